"""Vision models (Paddle's ``paddle.vision.models``), with Paddle's layer and
parameter names; ``pretrained=True`` is an error (no weights are downloaded).

>>> model = eager.vision.models.resnet18(num_classes=10)
>>> model(eager.rand([1, 3, 32, 32])).shape
[1, 10]
"""
from . import lenet, mobilenetv1, resnet, vgg
from .lenet import LeNet
from .mobilenetv1 import MobileNetV1, mobilenet_v1
from .resnet import BasicBlock, BottleneckBlock, ResNet, resnet18, resnet34, resnet50, resnet101, resnet152
from .vgg import VGG, vgg11, vgg13, vgg16, vgg19

__all__ = ["BasicBlock", "BottleneckBlock", "LeNet", "MobileNetV1", "ResNet", "VGG", "mobilenet_v1", "resnet18",
           "resnet34", "resnet50", "resnet101", "resnet152", "vgg11", "vgg13", "vgg16", "vgg19"]
