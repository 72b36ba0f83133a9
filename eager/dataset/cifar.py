"""Paddle's ``paddle.dataset.cifar``: CIFAR-10 and CIFAR-100 as legacy reader creators.

Unlike Paddle, which reads the python version of the archives (pickled
batches; unpickling runs code from the file), these read the **binary
version** (``cifar-10-binary.tar.gz``, ``cifar-100-binary.tar.gz`` from
https://www.cs.toronto.edu/~kriz/cifar.html) with
:mod:`eager.vision.datasets.cifar`: the same images and labels. The archives are
looked for in ``DATA_HOME/cifar/`` (see :func:`eager.dataset.common.download`;
nothing is downloaded). A sample is ``(pixels, label)``: the 3072 float32
values of the red, green and blue 32x32 planes scaled to [0, 1], and an int.

>>> reader = eager.dataset.cifar.train10()  # doctest: +SKIP
>>> pixels, label = next(reader())  # doctest: +SKIP
"""
from __future__ import annotations

import numpy as np

from ..utils.deprecation import deprecated
from ..vision.datasets.cifar import Cifar10, Cifar100
from . import common

__all__ = []

URL_PREFIX = "https://www.cs.toronto.edu/~kriz/"
CIFAR10_URL = Cifar10.URL
CIFAR10_MD5 = "c32a1d4ab5d03f1284b67883e8d87530"
CIFAR100_URL = Cifar100.URL
CIFAR100_MD5 = "03b5dce01913d631647c71ecec9e9cb8"

# Paddle's member-name filters and the split each picks in the binary archives.
_SUB_NAMES = {"data_batch": (Cifar10, "train"), "test_batch": (Cifar10, "test"),
              "train": (Cifar100, "train"), "test": (Cifar100, "test")}


def _update(name):
    return dict(since="2.0.0", update_to=f"paddle.vision.datasets.{name}", level=1,
                reason="Please use new dataset API which supports paddle.io.DataLoader")


def reader_creator(filename, sub_name, cycle=False):
    """A reader of ``(pixels, label)`` over the binary CIFAR archive
    ``filename``: ``sub_name`` 'data_batch' or 'test_batch' reads CIFAR-10's
    training or test batches, 'train' or 'test' CIFAR-100's (fine labels), as
    Paddle's member filters; pixels are the 3072 CHW values / 255 (float32).
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
    return reader_creator(common.download(CIFAR100_URL, "cifar", CIFAR100_MD5), "train")


@deprecated(**_update("Cifar100"))
def test100():
    """The CIFAR-100 test set: a reader creator of ``(pixels, label)``,
    pixels in [0, 1] and the fine label in 0..99."""
    return reader_creator(common.download(CIFAR100_URL, "cifar", CIFAR100_MD5), "test")


@deprecated(**_update("Cifar10"))
def train10(cycle=False):
    """The CIFAR-10 training set: a reader creator of ``(pixels, label)``,
    pixels in [0, 1] and labels in 0..9; with ``cycle`` it repeats without end."""
    return reader_creator(common.download(CIFAR10_URL, "cifar", CIFAR10_MD5), "data_batch", cycle=cycle)


@deprecated(**_update("Cifar10"))
def test10(cycle=False):
    """The CIFAR-10 test set: a reader creator of ``(pixels, label)``,
    pixels in [0, 1] and labels in 0..9; with ``cycle`` it repeats without end."""
    return reader_creator(common.download(CIFAR10_URL, "cifar", CIFAR10_MD5), "test_batch", cycle=cycle)


@deprecated(**_update("Cifar10"))
def fetch():
    """Checks that both binary archives are in ``DATA_HOME/cifar/`` (Paddle
    downloads them; a missing one raises :func:`eager.dataset.common.download`'s error)."""
    common.download(CIFAR10_URL, "cifar", CIFAR10_MD5)
    common.download(CIFAR100_URL, "cifar", CIFAR100_MD5)
