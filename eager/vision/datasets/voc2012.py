"""PASCAL VOC2012 segmentation (Paddle's ``paddle.vision.datasets.VOC2012``),
read from the local ``VOCtrainval_11-May-2012.tar``."""
from __future__ import annotations

import numpy as np

from ...framework import get_default_dtype
from ...io.dataset import Dataset
from ..image import check_backend
from ._files import check_mode, resolve
from ._tar import TarMembers

_URL = "https://dataset.bj.bcebos.com/voc/VOCtrainval_11-May-2012.tar"
_ROOT = "VOCdevkit/VOC2012/"
# Paddle's split: 'train' is trainval, 'test' is train, 'valid' is val.
_MODE_FLAG = {"train": "trainval", "test": "train", "valid": "val"}


class VOC2012(Dataset):
    """VOC2012 segmentation pairs ``(image, label)``: the JPEG image and its
    class-index PNG (``SegmentationClass``), for the names listed in
    ``ImageSets/Segmentation/<split>.txt`` ('train' -> trainval, 'test' ->
    train, 'valid' -> val, as Paddle). Both are PIL Images (backend 'pil') or
    arrays of the default dtype (backend 'cv2'; float32 unless set_default_dtype
    changed it); ``transform`` applies to the image only.
    ``data_file`` defaults to Paddle's cache folder
    (``~/.cache/paddle/dataset/voc2012/``); nothing is downloaded.

    >>> ds = eager.vision.datasets.VOC2012(data_file, mode="valid", backend="cv2")
    >>> image, label = ds[0]
    """

    def __init__(self, data_file=None, mode="train", transform=None, download=True, backend=None):
        name = type(self).__name__
        mode = check_mode(name, mode, ("train", "valid", "test"))
        if transform is not None and not callable(transform):
            raise TypeError(f"{name}: argument 'transform' expected a callable or None, got {transform!r}")
        self.backend = check_backend(name, backend)
        self.flag = _MODE_FLAG[mode]
        self.data_file = resolve(name, "data_file", data_file, download, "voc2012", _URL)
        self.transform = transform
        self.data_tar = TarMembers(name, self.data_file)
        listing = self.data_tar.read(f"{_ROOT}ImageSets/Segmentation/{self.flag}.txt").decode("utf-8")
        names = [line.strip() for line in listing.splitlines() if line.strip()]
        self.data = [f"{_ROOT}JPEGImages/{n}.jpg" for n in names]
        self.labels = [f"{_ROOT}SegmentationClass/{n}.png" for n in names]
        self.dtype = get_default_dtype()

    def __getitem__(self, idx):
        image, label = self.data_tar.image(self.data[idx]), self.data_tar.image(self.labels[idx])
        if self.backend == "cv2":
            image, label = np.array(image), np.array(label)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "cv2":
            return image.astype(self.dtype), label.astype(self.dtype)
        return image, label

    def __len__(self):
        return len(self.data)


__all__ = ["VOC2012"]
