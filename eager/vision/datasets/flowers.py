"""Oxford 102 Flowers (Paddle's ``paddle.vision.datasets.Flowers``), read from
the local ``102flowers.tgz``, ``imagelabels.mat`` and ``setid.mat`` (the MATLAB
files are read with SciPy, as Paddle)."""
from __future__ import annotations

import importlib

import numpy as np

from ...framework import get_default_dtype
from ...io.dataset import Dataset
from ..image import check_backend
from ._files import check_mode, resolve
from ._tar import TarMembers

_URL = "http://paddlemodels.bj.bcebos.com/flowers/"
# Paddle swaps the official split: its 'train' is the (larger) official test set.
_MODE_FLAG = {"train": "tstid", "test": "trnid", "valid": "valid"}


def _loadmat(fn, path, key):
    try:
        scipy_io = importlib.import_module("scipy.io")
    except ImportError:
        raise ImportError(f"{fn}: reading {path!r} (a MATLAB file) needs SciPy; install it") from None
    try:
        content = scipy_io.loadmat(path)
    except Exception as error:  # SciPy raises several kinds for a file that is not a MATLAB file
        raise ValueError(f"{fn}: cannot read {path!r} as a MATLAB file: {error}") from None
    if key not in content:
        raise ValueError(f"{fn}: {path!r} has no {key!r} entry (found {sorted(k for k in content if k[0] != '_')})")
    return np.asarray(content[key]).reshape(-1)


class Flowers(Dataset):
    """The 102 Flowers images: ``(image, label)`` pairs, the label an int64
    array of shape [1] holding the class 1..102, as Paddle.

    ``data_file`` (``102flowers.tgz``), ``label_file`` (``imagelabels.mat``) and
    ``setid_file`` (``setid.mat``) default to Paddle's cache folder
    (``~/.cache/paddle/dataset/flowers/``); nothing is downloaded. ``mode``
    'train', 'valid' or 'test' picks Paddle's split ('train' is the official
    test set, the larger one, as in Paddle). An image is a PIL Image (backend
    'pil') or a HWC array (backend 'cv2': uint8 into ``transform``, the result
    cast to the default dtype, float32 unless set_default_dtype changed it).

    >>> ds = eager.vision.datasets.Flowers(data_file, label_file, setid_file, mode="valid")
    >>> image, label = ds[0]
    """

    def __init__(self, data_file=None, label_file=None, setid_file=None, mode="train", transform=None,
                 download=True, backend=None):
        name = type(self).__name__
        mode = check_mode(name, mode, ("train", "valid", "test"))
        if transform is not None and not callable(transform):
            raise TypeError(f"{name}: argument 'transform' expected a callable or None, got {transform!r}")
        self.backend = check_backend(name, backend)
        self.flag = _MODE_FLAG[mode]
        self.data_file = resolve(name, "data_file", data_file, download, "flowers", _URL + "102flowers.tgz")
        self.label_file = resolve(name, "label_file", label_file, download, "flowers", _URL + "imagelabels.mat")
        self.setid_file = resolve(name, "setid_file", setid_file, download, "flowers", _URL + "setid.mat")
        self.transform = transform
        self.labels = _loadmat(name, self.label_file, "labels")
        self.indexes = _loadmat(name, self.setid_file, self.flag).astype(np.int64)
        self.data_tar = TarMembers(name, self.data_file)
        if len(self.indexes) and (self.indexes.min() < 1 or self.indexes.max() > len(self.labels)):
            raise ValueError(f"{name}: {self.setid_file!r} names images outside 1..{len(self.labels)} (the labels "
                             f"of {self.label_file!r})")
        self.dtype = get_default_dtype()

    def __getitem__(self, idx):
        index = int(self.indexes[idx])
        label = np.array([self.labels[index - 1]]).astype(np.int64)
        image = self.data_tar.image(f"jpg/image_{index:05d}.jpg")
        if self.backend == "cv2":
            image = np.array(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label
        return image.astype(self.dtype), label

    def __len__(self):
        return len(self.indexes)


__all__ = ["Flowers"]
