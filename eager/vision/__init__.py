"""Vision helpers (Paddle's ``paddle.vision``): ``transforms`` for NumPy/PIL
images and Tensors, ``datasets`` (MNIST, FashionMNIST, Cifar10/100 from local
files), ``models`` (LeNet, ResNet, VGG, MobileNets, ...), ``ops`` (detection
ops) and the image backend.
As in Paddle, their names are also reachable here (``eager.vision.LeNet``).

>>> import numpy as np, eager
>>> t = eager.vision.transforms.Compose([eager.vision.transforms.ToTensor()])
>>> eager.vision.models.LeNet()(t(np.zeros((28, 28), np.uint8)).unsqueeze(0)).shape
[1, 10]
"""
from . import datasets, models, ops, transforms
from .datasets import *  # noqa: F401,F403
from .image import get_image_backend, set_image_backend
from .loading import image_load
from .models import *  # noqa: F401,F403
from .transforms import *  # noqa: F401,F403

__all__ = ["datasets", "get_image_backend", "image_load", "models", "ops", "set_image_backend", "transforms",
           *datasets.__all__, *models.__all__, *[n for n in transforms.__all__ if n != "functional"]]
