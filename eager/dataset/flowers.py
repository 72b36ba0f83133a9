"""Paddle's ``paddle.dataset.flowers``: Oxford 102 Flowers as legacy reader creators.

``102flowers.tgz``, ``imagelabels.mat`` and ``setid.mat`` are looked for in
``DATA_HOME/flowers/`` (see :func:`eager.dataset.common.download`; nothing is
downloaded); the MATLAB files are read with SciPy as
:mod:`eager.vision.datasets.flowers` reads them. A raw sample is ``(JPEG bytes,
label)`` with the label in 0..101; the default mappers decode it with OpenCV
(BGR) and apply :func:`eager.dataset.image.simple_transform` (shorter side 256,
a 224 crop, random with a flip for training, minus the BGR channel means),
giving ``(150528 float32 values, label)``. As Paddle, 'train' is the official
test split (the larger one) and 'test' the official training split.

>>> image, label = next(eager.dataset.flowers.train(use_xmap=False)())  # doctest: +SKIP
"""
from __future__ import annotations

import functools
import os

from ..reader import map_readers, xmap_readers
from ..text.datasets._common import open_tar
from ..utils.deprecation import deprecated
from ..vision.datasets.flowers import _loadmat
from .common import download
from .image import load_image_bytes, simple_transform

__all__ = []

DATA_URL = "http://paddlemodels.bj.bcebos.com/flowers/102flowers.tgz"
LABEL_URL = "http://paddlemodels.bj.bcebos.com/flowers/imagelabels.mat"
SETID_URL = "http://paddlemodels.bj.bcebos.com/flowers/setid.mat"
DATA_MD5 = "52808999861908f626f3c1f4e79d11fa"
LABEL_MD5 = "e0620be6f572b9609742df49c70aed4d"
SETID_MD5 = "a5357ecc9cb78c4bef273ce3793fc85c"
# Paddle's split: its training set is the official test set (the larger one), and the other way round.
TRAIN_FLAG = "tstid"
TEST_FLAG = "trnid"
VALID_FLAG = "valid"

_UPDATE = dict(since="2.0.0", update_to="paddle.vision.datasets.Flowers", level=1,
               reason="Please use new dataset API which supports paddle.io.DataLoader")


def default_mapper(is_train, sample):
    """``(image bytes, label)`` to ``(flattened float32 CHW image, label)``:
    decoded with OpenCV (BGR), shorter side resized to 256, a 224x224 crop
    (random, and flipped half the time, when ``is_train``; central otherwise),
    minus the channel means ``[103.94, 116.78, 123.68]``."""
    img, label = sample
    img = load_image_bytes(img)
    img = simple_transform(img, 256, 224, is_train, mean=[103.94, 116.78, 123.68])
    return img.flatten().astype("float32"), label


train_mapper = functools.partial(default_mapper, True)
test_mapper = functools.partial(default_mapper, False)


def reader_creator(data_file, label_file, setid_file, dataset_name, mapper, buffered_size=1024, use_xmap=True,
                   cycle=False):
    """A reader of ``mapper((image bytes, label))`` over the images of split
    ``dataset_name`` ('tstid', 'trnid' or 'valid', the keys of ``setid_file``)
    in archive order, the label being ``imagelabels.mat``'s class minus 1.
    With ``use_xmap`` the mapper runs on ``min(4, cpu count)`` threads with
    ``buffered_size`` samples in flight (results as they are ready); with
    ``cycle`` the reader starts over without end."""
    if dataset_name not in (TRAIN_FLAG, TEST_FLAG, VALID_FLAG):
        raise ValueError(f"flowers.reader_creator: argument 'dataset_name' expected 'tstid', 'trnid' or 'valid', "
                         f"got {dataset_name!r}")
    if not callable(mapper):
        raise TypeError(f"flowers.reader_creator: argument 'mapper' expected a callable, got "
                        f"{type(mapper).__name__}")

    def reader():
        labels = _loadmat("flowers", label_file, "labels")
        indexes = _loadmat("flowers", setid_file, dataset_name)
        img2label = {}
        for i in indexes:
            if not 1 <= i <= len(labels):
                raise ValueError(f"flowers: {setid_file!r} names image {int(i)}, outside 1..{len(labels)} (the "
                                 f"labels of {label_file!r})")
            img2label[f"jpg/image_{int(i):05d}.jpg"] = int(labels[int(i) - 1])
        while True:
            with open_tar("flowers", data_file) as archive:
                for member in archive:
                    if member.name in img2label and member.isfile():
                        yield archive.extractfile(member).read(), img2label[member.name] - 1
            if not cycle:
                break

    if use_xmap:
        return xmap_readers(mapper, reader, min(4, os.cpu_count() or 1), buffered_size)
    return map_readers(mapper, reader)


def _files():
    return (download(DATA_URL, "flowers", DATA_MD5), download(LABEL_URL, "flowers", LABEL_MD5),
            download(SETID_URL, "flowers", SETID_MD5))


@deprecated(**_UPDATE)
def train(mapper=train_mapper, buffered_size=1024, use_xmap=True, cycle=False):
    """Paddle's flowers training set (the official test split): a reader of
    ``mapper((image bytes, label))`` (see :func:`reader_creator`)."""
    return reader_creator(*_files(), TRAIN_FLAG, mapper, buffered_size, use_xmap, cycle=cycle)


@deprecated(**_UPDATE)
def test(mapper=test_mapper, buffered_size=1024, use_xmap=True, cycle=False):
    """Paddle's flowers test set (the official training split): a reader of
    ``mapper((image bytes, label))`` (see :func:`reader_creator`)."""
    return reader_creator(*_files(), TEST_FLAG, mapper, buffered_size, use_xmap, cycle=cycle)


@deprecated(**_UPDATE)
def valid(mapper=test_mapper, buffered_size=1024, use_xmap=True):
    """The flowers validation set: a reader of ``mapper((image bytes, label))``
    (see :func:`reader_creator`)."""
    return reader_creator(*_files(), VALID_FLAG, mapper, buffered_size, use_xmap)


def fetch():
    """Checks that the three files are in ``DATA_HOME/flowers/`` (Paddle
    downloads them; a missing one raises :func:`eager.dataset.common.download`'s error)."""
    _files()
