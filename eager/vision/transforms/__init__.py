"""Image transforms (Paddle's ``paddle.vision.transforms``) and their functional
forms (``eager.vision.transforms.functional``); see the transforms module for
how ``eager.seed`` makes the random ones reproducible.

>>> import numpy as np
>>> from eager.vision import transforms as T
>>> t = T.Compose([T.Resize(8), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(0.5, 0.5)])
>>> t(np.zeros((16, 20, 3), np.uint8)).shape
[3, 8, 10]
"""
from . import functional
from .functional import center_crop, crop, hflip, normalize, pad, resize, to_tensor, vflip
from .transforms import (BaseTransform, CenterCrop, Compose, Normalize, Pad, RandomCrop, RandomHorizontalFlip,
                         RandomVerticalFlip, Resize, ToTensor, Transpose)

__all__ = ["functional", "center_crop", "crop", "hflip", "normalize", "pad", "resize", "to_tensor", "vflip",
           "BaseTransform", "CenterCrop", "Compose", "Normalize", "Pad", "RandomCrop", "RandomHorizontalFlip",
           "RandomVerticalFlip", "Resize", "ToTensor", "Transpose"]
