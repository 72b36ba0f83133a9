"""Paddle's ``paddle.dataset.mnist``: the MNIST digits as legacy reader creators.

The four IDX files (``train-images-idx3-ubyte.gz``, ``train-labels-idx1-ubyte.gz``
and the ``t10k-`` pair) are looked for in ``DATA_HOME/mnist/`` (see
:func:`eager.dataset.common.download`; nothing is downloaded) and read with
:mod:`eager.vision.datasets.mnist`'s IDX reader. A sample is
``(pixels, label)``: 784 float32 values in [-1, 1] and an int in 0..9.

>>> reader = eager.dataset.mnist.train()  # doctest: +SKIP
>>> image, label = next(reader())  # doctest: +SKIP
"""
from __future__ import annotations

import numbers

import numpy as np

from ..utils.deprecation import deprecated
from ..vision.datasets.mnist import _IMAGE_MAGIC, _LABEL_MAGIC, read_idx
from . import common

__all__ = []

URL_PREFIX = "https://dataset.bj.bcebos.com/mnist/"
TEST_IMAGE_URL = URL_PREFIX + "t10k-images-idx3-ubyte.gz"
TEST_IMAGE_MD5 = "9fb629c4189551a2d022fa330f9573f3"
TEST_LABEL_URL = URL_PREFIX + "t10k-labels-idx1-ubyte.gz"
TEST_LABEL_MD5 = "ec29112dd5afa0611ce80d1b7f02629c"
TRAIN_IMAGE_URL = URL_PREFIX + "train-images-idx3-ubyte.gz"
TRAIN_IMAGE_MD5 = "f68b3c2dcbeaaa9fbdd348bbdeb94873"
TRAIN_LABEL_URL = URL_PREFIX + "train-labels-idx1-ubyte.gz"
TRAIN_LABEL_MD5 = "d53e105ee54ea40749a09fcbcd1e9432"

_UPDATE = dict(since="2.0.0", update_to="paddle.vision.datasets.MNIST", level=1,
               reason="Please use new dataset API which supports paddle.io.DataLoader")


def reader_creator(image_filename, label_filename, buffer_size):
    """A reader of ``(pixels, label)`` over the IDX image and label files (gzip
    or not): each image flattened to 784 float32 values scaled to [-1, 1]
    (``x / 255 * 2 - 1``), the label an int. The files are read at each pass;
    ``buffer_size`` (a positive int) is how many images Paddle unpacks at a time
    and does not change the samples."""
    if isinstance(buffer_size, bool) or not isinstance(buffer_size, numbers.Integral):
        raise TypeError(f"mnist.reader_creator: argument 'buffer_size' expected an int, got "
                        f"{type(buffer_size).__name__}")
    if buffer_size < 1:
        raise ValueError(f"mnist.reader_creator: argument 'buffer_size' expected a positive int, got {buffer_size}")

    def reader():
        images = read_idx("mnist", image_filename, _IMAGE_MAGIC, 3)
        labels = read_idx("mnist", label_filename, _LABEL_MAGIC, 1)
        if len(images) != len(labels):
            raise ValueError(f"mnist: {image_filename!r} has {len(images)} images but {label_filename!r} has "
                             f"{len(labels)} labels")
        pixels = images.reshape(len(images), -1).astype(np.float32) / 255.0 * 2.0 - 1.0
        for row, label in zip(pixels, labels):
            yield row, int(label)
    return reader


@deprecated(**_UPDATE)
def train():
    """The MNIST training set: a reader creator of 60,000 ``(pixels, label)``
    samples, pixels in [-1, 1] and labels in 0..9."""
    return reader_creator(common.download(TRAIN_IMAGE_URL, "mnist", TRAIN_IMAGE_MD5),
                          common.download(TRAIN_LABEL_URL, "mnist", TRAIN_LABEL_MD5), 100)


@deprecated(**_UPDATE)
def test():
    """The MNIST test set: a reader creator of 10,000 ``(pixels, label)``
    samples, pixels in [-1, 1] and labels in 0..9."""
    return reader_creator(common.download(TEST_IMAGE_URL, "mnist", TEST_IMAGE_MD5),
                          common.download(TEST_LABEL_URL, "mnist", TEST_LABEL_MD5), 100)


@deprecated(**_UPDATE)
def fetch():
    """Checks that the four MNIST files are in ``DATA_HOME/mnist/`` (Paddle
    downloads them; a missing one raises :func:`eager.dataset.common.download`'s error)."""
    common.download(TRAIN_IMAGE_URL, "mnist", TRAIN_IMAGE_MD5)
    common.download(TRAIN_LABEL_URL, "mnist", TRAIN_LABEL_MD5)
    common.download(TEST_IMAGE_URL, "mnist", TEST_IMAGE_MD5)
    common.download(TEST_LABEL_URL, "mnist", TEST_LABEL_MD5)
