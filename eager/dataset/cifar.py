"""Paddle's ``paddle.dataset.cifar``: CIFAR-10 and CIFAR-100 as legacy reader creators.

The archives are read with :mod:`eager.vision.datasets.cifar`: Paddle's python
version (``cifar-10-python.tar.gz``, ``cifar-100-python.tar.gz``, with Paddle's
URLs and MD5s), whose pickled batches go through a restricted unpickler that
refuses any global a CIFAR batch does not hold (Paddle's ``pickle.load`` runs
whatever the file names), or, when that is not there, the **binary version**
(``cifar-10-binary.tar.gz``, ``cifar-100-binary.tar.gz`` from
https://www.cs.toronto.edu/~kriz/cifar.html): the same images and labels. The
archives are looked for in ``DATA_HOME/cifar/`` (see
:func:`eager.dataset.common.download`; nothing is downloaded). A sample is
``(pixels, label)``: the 3072 float32 values of the red, green and blue 32x32
planes scaled to [0, 1], and an int.

>>> reader = eager.dataset.cifar.train10()  # doctest: +SKIP
>>> pixels, label = next(reader())  # doctest: +SKIP
"""
from __future__ import annotations

import os

import numpy as np

from ..utils.deprecation import deprecated
from ..vision.datasets.cifar import Cifar10, Cifar100
from . import common

__all__ = []

URL_PREFIX = "https://dataset.bj.bcebos.com/cifar/"
CIFAR10_URL = URL_PREFIX + "cifar-10-python.tar.gz"
CIFAR10_MD5 = "c58f30108f718f92721af3b95e74349a"
CIFAR100_URL = URL_PREFIX + "cifar-100-python.tar.gz"
CIFAR100_MD5 = "eb9058c3a382ffc7106e4002c42a8d85"
# The binary version, read when the python one is not in DATA_HOME/cifar/.
CIFAR10_BINARY_URL = Cifar10.URL
CIFAR10_BINARY_MD5 = "c32a1d4ab5d03f1284b67883e8d87530"
CIFAR100_BINARY_URL = Cifar100.URL
CIFAR100_BINARY_MD5 = "03b5dce01913d631647c71ecec9e9cb8"

# Paddle's member-name filters and the split each picks in the archives.
_SUB_NAMES = {"data_batch": (Cifar10, "train"), "test_batch": (Cifar10, "test"),
              "train": (Cifar100, "train"), "test": (Cifar100, "test")}


def _archive(url, md5, binary_url, binary_md5) -> str:
    """The python archive of ``url`` in DATA_HOME/cifar/ (MD5-checked), else the
    binary one of ``binary_url``; neither: download()'s error, naming both."""
    try:
        return common.download(url, "cifar", md5)
    except RuntimeError as missing:
        if not os.path.isfile(os.path.join(common.DATA_HOME, "cifar", binary_url.rsplit("/", 1)[-1])):
            raise RuntimeError(f"{missing}; or put the binary version there (from {binary_url}, MD5 "
                               f"{binary_md5})") from None
    return common.download(binary_url, "cifar", binary_md5)


def _cifar10() -> str:
    return _archive(CIFAR10_URL, CIFAR10_MD5, CIFAR10_BINARY_URL, CIFAR10_BINARY_MD5)


def _cifar100() -> str:
    return _archive(CIFAR100_URL, CIFAR100_MD5, CIFAR100_BINARY_URL, CIFAR100_BINARY_MD5)


def _update(name):
    return dict(since="2.0.0", update_to=f"paddle.vision.datasets.{name}", level=1,
                reason="Please use new dataset API which supports paddle.io.DataLoader")


def reader_creator(filename, sub_name, cycle=False):
    """A reader of ``(pixels, label)`` over the CIFAR archive ``filename``
    (python or binary version): ``sub_name`` 'data_batch' or 'test_batch'
    reads CIFAR-10's training or test batches, 'train' or 'test' CIFAR-100's
    (fine labels), as Paddle's member filters; pixels are the 3072 CHW values / 255 (float32).
    The archive is read at each pass; with ``cycle`` the reader starts over
    without end."""
    if sub_name not in _SUB_NAMES:
        raise ValueError(f"cifar.reader_creator: argument 'sub_name' expected one of "
                         f"{', '.join(map(repr, _SUB_NAMES))}, got {sub_name!r}")
    kind, mode = _SUB_NAMES[sub_name]

    def reader():
        while True:
            yield from _samples(kind, filename, mode)
            if not cycle:
                break
    return reader


def _samples(kind, filename, mode):
    dataset = kind(filename, mode=mode, backend="cv2")
    # The dataset keeps N x 32 x 32 x 3 (HWC) images: back to Paddle's rows of three 32x32 planes.
    rows = dataset.images.transpose(0, 3, 1, 2).reshape(len(dataset.images), -1)
    for row, label in zip(rows, dataset.labels):
        yield (row / 255.0).astype(np.float32), int(label)


@deprecated(**_update("Cifar100"))
def train100():
    """The CIFAR-100 training set: a reader creator of ``(pixels, label)``,
    pixels in [0, 1] and the fine label in 0..99."""
    return reader_creator(_cifar100(), "train")


@deprecated(**_update("Cifar100"))
def test100():
    """The CIFAR-100 test set: a reader creator of ``(pixels, label)``,
    pixels in [0, 1] and the fine label in 0..99."""
    return reader_creator(_cifar100(), "test")


@deprecated(**_update("Cifar10"))
def train10(cycle=False):
    """The CIFAR-10 training set: a reader creator of ``(pixels, label)``,
    pixels in [0, 1] and labels in 0..9; with ``cycle`` it repeats without end."""
    return reader_creator(_cifar10(), "data_batch", cycle=cycle)


@deprecated(**_update("Cifar10"))
def test10(cycle=False):
    """The CIFAR-10 test set: a reader creator of ``(pixels, label)``,
    pixels in [0, 1] and labels in 0..9; with ``cycle`` it repeats without end."""
    return reader_creator(_cifar10(), "test_batch", cycle=cycle)


@deprecated(**_update("Cifar10"))
def fetch():
    """Checks that both archives (each in its python or binary version) are in
    ``DATA_HOME/cifar/`` (Paddle downloads them; a missing one raises
    :func:`eager.dataset.common.download`'s error)."""
    _cifar10()
    _cifar100()
