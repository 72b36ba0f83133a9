"""Vision models (Paddle's ``paddle.vision.models``), with Paddle's layer and
parameter names; ``pretrained=True`` is an error (no weights are downloaded).

>>> model = eager.vision.models.resnet18(num_classes=10)
>>> model(eager.rand([1, 3, 32, 32])).shape
[1, 10]
"""
# The modules (alexnet and googlenet are the builder functions, as in Paddle).
from . import (densenet, inceptionv3, lenet, mobilenetv1, mobilenetv2, mobilenetv3, resnet, shufflenetv2,  # noqa: F401
               squeezenet, vgg)
from .alexnet import AlexNet, alexnet
from .densenet import DenseNet, densenet121, densenet161, densenet169, densenet201, densenet264
from .googlenet import GoogLeNet, googlenet
from .inceptionv3 import InceptionV3, inception_v3
from .lenet import LeNet
from .mobilenetv1 import MobileNetV1, mobilenet_v1
from .mobilenetv2 import MobileNetV2, mobilenet_v2
from .mobilenetv3 import MobileNetV3Large, MobileNetV3Small, mobilenet_v3_large, mobilenet_v3_small
from .resnet import (BasicBlock, BottleneckBlock, ResNet, resnet18, resnet34, resnet50, resnet101, resnet152,
                     resnext50_32x4d, resnext50_64x4d, resnext101_32x4d, resnext101_64x4d, resnext152_32x4d,
                     resnext152_64x4d, wide_resnet50_2, wide_resnet101_2)
from .shufflenetv2 import (ShuffleNetV2, shufflenet_v2_swish, shufflenet_v2_x0_5, shufflenet_v2_x0_25,
                           shufflenet_v2_x0_33, shufflenet_v2_x1_0, shufflenet_v2_x1_5, shufflenet_v2_x2_0)
from .squeezenet import SqueezeNet, squeezenet1_0, squeezenet1_1
from .vgg import VGG, vgg11, vgg13, vgg16, vgg19

__all__ = ["AlexNet", "BasicBlock", "BottleneckBlock", "DenseNet", "GoogLeNet", "InceptionV3", "LeNet", "MobileNetV1",
           "MobileNetV2", "MobileNetV3Large", "MobileNetV3Small", "ResNet", "ShuffleNetV2", "SqueezeNet", "VGG",
           "alexnet", "densenet121", "densenet161", "densenet169", "densenet201", "densenet264", "googlenet",
           "inception_v3", "mobilenet_v1", "mobilenet_v2", "mobilenet_v3_large", "mobilenet_v3_small", "resnet18",
           "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d", "resnext50_64x4d", "resnext101_32x4d",
           "resnext101_64x4d", "resnext152_32x4d", "resnext152_64x4d", "shufflenet_v2_swish", "shufflenet_v2_x0_25",
           "shufflenet_v2_x0_33", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5",
           "shufflenet_v2_x2_0", "squeezenet1_0", "squeezenet1_1", "vgg11", "vgg13", "vgg16", "vgg19", "wide_resnet50_2",
           "wide_resnet101_2"]
