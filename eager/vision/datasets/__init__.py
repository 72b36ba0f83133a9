"""Vision datasets (Paddle's ``paddle.vision.datasets``): MNIST, FashionMNIST,
Cifar10, Cifar100, Flowers and VOC2012 read from local files, DatasetFolder and
ImageFolder over a folder tree (this build never downloads; a
missing file is an error naming the file, Paddle's URL and where to put it).

>>> from eager.vision.datasets import MNIST
>>> ds = MNIST(image_path, label_path, backend="cv2")
>>> len(ds) > 0
True
"""
from .cifar import Cifar10, Cifar100
from .flowers import Flowers
from .folder import DatasetFolder, ImageFolder
from .mnist import MNIST, FashionMNIST
from .voc2012 import VOC2012

__all__ = ["Cifar10", "Cifar100", "DatasetFolder", "FashionMNIST", "Flowers", "ImageFolder", "MNIST", "VOC2012"]
