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
from .functional import (adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation, affine, center_crop, crop,
                         erase, hflip, normalize, pad, perspective, resize, rotate, to_grayscale, to_tensor, vflip)
from .transforms import (BaseTransform, BrightnessTransform, CenterCrop, ColorJitter, Compose, ContrastTransform,
                         Grayscale, HueTransform, Normalize, Pad, RandomAffine, RandomCrop, RandomErasing,
                         RandomHorizontalFlip, RandomPerspective, RandomResizedCrop, RandomRotation,
                         RandomVerticalFlip, Resize, SaturationTransform, ToTensor, Transpose)

__all__ = ["functional", "adjust_brightness", "adjust_contrast", "adjust_hue", "adjust_saturation", "affine",
           "center_crop", "crop", "erase", "hflip", "normalize", "pad", "perspective", "resize", "rotate",
           "to_grayscale", "to_tensor", "vflip",
           "BaseTransform", "BrightnessTransform", "CenterCrop", "ColorJitter", "Compose", "ContrastTransform",
           "Grayscale", "HueTransform", "Normalize", "Pad", "RandomAffine", "RandomCrop", "RandomErasing",
           "RandomHorizontalFlip", "RandomPerspective", "RandomResizedCrop", "RandomRotation", "RandomVerticalFlip",
           "Resize", "SaturationTransform", "ToTensor", "Transpose"]
