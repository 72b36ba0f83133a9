"""Paddle's ``paddle.dataset.voc2012``: PASCAL VOC2012 segmentation pairs as
legacy reader creators.

``VOCtrainval_11-May-2012.tar`` is looked for in ``DATA_HOME/voc2012/`` (see
:func:`eager.dataset.common.download`; nothing is downloaded) and its members
are read as :mod:`eager.vision.datasets.voc2012` reads them (decoded with
Pillow). A sample is ``(image, label)``: the HWC RGB uint8 image and its HW
uint8 class-index map.

>>> image, label = next(eager.dataset.voc2012.val()())  # doctest: +SKIP
"""
from __future__ import annotations

import numpy as np

from ..utils.deprecation import deprecated
from ..vision.datasets._tar import TarMembers
from .common import download

__all__ = []

VOC_URL = "http://host.robots.ox.ac.uk/pascal/VOC/voc2012/VOCtrainval_11-May-2012.tar"
VOC_MD5 = "6cd6e144f989b92b3379bac3b3de84fd"
SET_FILE = "VOCdevkit/VOC2012/ImageSets/Segmentation/{}.txt"
DATA_FILE = "VOCdevkit/VOC2012/JPEGImages/{}.jpg"
LABEL_FILE = "VOCdevkit/VOC2012/SegmentationClass/{}.png"

CACHE_DIR = "voc2012"

_UPDATE = dict(since="2.0.0", update_to="paddle.vision.datasets.VOC2012", level=1,
               reason="Please use new dataset API which supports paddle.io.DataLoader")


def reader_creator(filename, sub_name):
    """A reader of ``(image, label)`` arrays for the names listed in
    ``ImageSets/Segmentation/<sub_name>.txt`` of the tar ``filename``: the JPEG
    image and its ``SegmentationClass`` PNG. The archive's member list is read
    now."""
    if not isinstance(sub_name, str):
        raise TypeError(f"voc2012.reader_creator: argument 'sub_name' expected a str, got {type(sub_name).__name__}")
    archive = TarMembers("voc2012", filename)
    set_file = SET_FILE.format(sub_name)
    if set_file not in archive:
        raise ValueError(f"voc2012.reader_creator: {filename!r} has no {set_file!r} (argument 'sub_name' is "
                         f"{sub_name!r})")

    def reader():
        for line in archive.read(set_file).decode("utf-8").splitlines():
            name = line.strip()
            if name:
                yield (np.array(archive.image(DATA_FILE.format(name))),
                       np.array(archive.image(LABEL_FILE.format(name))))
    return reader


@deprecated(**_UPDATE)
def train():
    """The 'trainval' list (2913 pairs): a reader creator of ``(image, label)``."""
    return reader_creator(download(VOC_URL, CACHE_DIR, VOC_MD5), "trainval")


@deprecated(**_UPDATE)
def test():
    """The 'train' list (1464 pairs), Paddle's test split: a reader creator of ``(image, label)``."""
    return reader_creator(download(VOC_URL, CACHE_DIR, VOC_MD5), "train")


@deprecated(**_UPDATE)
def val():
    """The 'val' list (1449 pairs): a reader creator of ``(image, label)``."""
    return reader_creator(download(VOC_URL, CACHE_DIR, VOC_MD5), "val")
