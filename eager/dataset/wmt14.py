"""Paddle's ``paddle.dataset.wmt14``: Paddle's small WMT14 English-French set as
legacy reader creators.

``wmt14.tgz`` is looked for in ``DATA_HOME/wmt14/`` (see
:func:`eager.dataset.common.download`; nothing is downloaded) and read with
:mod:`eager.text.datasets.wmt14`. A sample is ``(source ids, target ids, next
target ids)``, lists of ints: the source wrapped in ``<s>``/``<e>``, the target
after ``<s>``, the target followed by ``<e>``; words outside the dictionaries
are ``UNK_IDX``; pairs longer than 80 words are left out.

>>> src, trg, trg_next = next(eager.dataset.wmt14.train(30000)())  # doctest: +SKIP
"""
from __future__ import annotations

import numbers

from ..text.datasets import wmt14 as _parser
from ..text.datasets._common import open_tar
from ..utils.deprecation import deprecated
from . import common

__all__ = []

URL_DEV_TEST = "http://www-lium.univ-lemans.fr/~schwenk/cslm_joint_paper/data/dev+test.tgz"
MD5_DEV_TEST = "7d7897317ddd8ba0ae5c5fa7248d3ff5"
URL_TRAIN = "http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz"
MD5_TRAIN = "0791583d57d5beb693b9414c5b36798c"
URL_MODEL = "http://paddlemodels.bj.bcebos.com/wmt%2Fwmt14.tgz"
MD5_MODEL = "0cb4a5366189b6acba876491c8724fa3"

START, END, UNK = _parser.START, _parser.END, _parser.UNK
UNK_IDX = _parser.UNK_IDX

# Paddle's member-name suffixes and the split each is.
_FILES = {"train/train": "train", "test/test": "test", "gen/gen": "gen"}

_UPDATE = dict(since="2.0.0", update_to="paddle.text.datasets.WMT14", level=1,
               reason="Please use new dataset API which supports paddle.io.DataLoader")


def _check_dict_size(fn: str, dict_size) -> int:
    if isinstance(dict_size, bool) or not isinstance(dict_size, numbers.Integral):
        raise TypeError(f"wmt14.{fn}: argument 'dict_size' expected an int, got {type(dict_size).__name__}")
    if dict_size <= 0:
        raise ValueError(f"wmt14.{fn}: argument 'dict_size' expected a positive int, got {dict_size}")
    return int(dict_size)


def reader_creator(tar_file, file_name, dict_size):
    """A reader of ``(source ids, target ids, next target ids)`` over the pairs
    of the members of ``tar_file`` ending with ``file_name`` ('train/train',
    'test/test' or 'gen/gen'), with the first ``dict_size`` words of each
    dictionary. The archive is read at each pass."""
    if file_name not in _FILES:
        raise ValueError(f"wmt14.reader_creator: argument 'file_name' expected one of "
                         f"{', '.join(map(repr, _FILES))}, got {file_name!r}")
    dict_size = _check_dict_size("reader_creator", dict_size)

    def reader():
        dataset = _parser.WMT14(tar_file, mode=_FILES[file_name], dict_size=dict_size)
        yield from zip(dataset.src_ids, dataset.trg_ids, dataset.trg_ids_next)
    return reader


@deprecated(**_UPDATE)
def train(dict_size):
    """The training pairs: a reader creator of ``(source ids, target ids, next target ids)``."""
    return reader_creator(common.download(URL_TRAIN, "wmt14", MD5_TRAIN), "train/train", dict_size)


@deprecated(**_UPDATE)
def test(dict_size):
    """The test pairs: a reader creator of ``(source ids, target ids, next target ids)``."""
    return reader_creator(common.download(URL_TRAIN, "wmt14", MD5_TRAIN), "test/test", dict_size)


@deprecated(**_UPDATE)
def gen(dict_size):
    """The generation pairs: a reader creator of ``(source ids, target ids, next target ids)``."""
    return reader_creator(common.download(URL_TRAIN, "wmt14", MD5_TRAIN), "gen/gen", dict_size)


@deprecated(**_UPDATE)
def get_dict(dict_size, reverse=True):
    """The source and target dictionaries (their first ``dict_size`` words):
    id -> word with ``reverse`` (the default), word -> id without."""
    dict_size = _check_dict_size("get_dict", dict_size)
    tar_file = common.download(URL_TRAIN, "wmt14", MD5_TRAIN)
    with open_tar("wmt14", tar_file) as archive:
        src_dict, trg_dict = _parser.read_dicts("wmt14", archive, tar_file, dict_size)
    if reverse:
        src_dict = {v: k for k, v in src_dict.items()}
        trg_dict = {v: k for k, v in trg_dict.items()}
    return src_dict, trg_dict


@deprecated(**_UPDATE)
def fetch():
    """Checks that ``wmt14.tgz`` and the model archive ``wmt%2Fwmt14.tgz`` are in
    ``DATA_HOME/wmt14/`` (Paddle downloads them; a missing one raises
    :func:`eager.dataset.common.download`'s error)."""
    common.download(URL_TRAIN, "wmt14", MD5_TRAIN)
    common.download(URL_MODEL, "wmt14", MD5_MODEL)
