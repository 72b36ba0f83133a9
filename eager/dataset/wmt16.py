"""Paddle's ``paddle.dataset.wmt16``: WMT16 Multi30K English-German as legacy
reader creators.

``wmt16.tar.gz`` is looked for in ``DATA_HOME/wmt16/`` (see
:func:`eager.dataset.common.download`; nothing is downloaded) and read with
:mod:`eager.text.datasets.wmt16`: each language's dictionary holds ``<s>``,
``<e>``, ``<unk>`` (ids 0, 1, 2) and then its most frequent words of
``wmt16/train``, built in memory (Paddle writes it to ``DATA_HOME/wmt16/``). A
sample is ``(source ids, target ids, next target ids)``, lists of ints.

>>> src, trg, trg_next = next(eager.dataset.wmt16.train(10000, 10000)())  # doctest: +SKIP
"""
from __future__ import annotations

import numbers

from ..text.datasets import wmt16 as _parser
from ..utils.deprecation import deprecated
from . import common

__all__ = []

DATA_URL = _parser.DATA_URL
DATA_MD5 = "0c38be43600334966403524a40dcd81e"

TOTAL_EN_WORDS = _parser.TOTAL_EN_WORDS
TOTAL_DE_WORDS = _parser.TOTAL_DE_WORDS

START_MARK, END_MARK, UNK_MARK = _parser.START_MARK, _parser.END_MARK, _parser.UNK_MARK

# Paddle's member names and the split each is.
_FILES = {"wmt16/train": "train", "wmt16/test": "test", "wmt16/val": "val"}

_UPDATE = dict(since="2.0.0", update_to="paddle.text.datasets.WMT16", level=1,
               reason="Please use new dataset API which supports paddle.io.DataLoader")


def _check_lang(fn: str, arg: str, lang) -> str:
    if lang not in ("en", "de"):
        raise ValueError(f"wmt16.{fn}: argument '{arg}' expected 'en' (English) or 'de' (German), got {lang!r}")
    return lang


def reader_creator(tar_file, file_name, src_dict_size, trg_dict_size, src_lang):
    """A reader of ``(source ids, target ids, next target ids)`` over the pairs
    of member ``file_name`` ('wmt16/train', 'wmt16/test' or 'wmt16/val') of
    ``tar_file``, ``src_lang`` ('en' or 'de') being the source language and the
    dictionaries holding ``src_dict_size`` and ``trg_dict_size`` entries at
    most. The archive is read at each pass."""
    if file_name not in _FILES:
        raise ValueError(f"wmt16.reader_creator: argument 'file_name' expected one of "
                         f"{', '.join(map(repr, _FILES))}, got {file_name!r}")
    _check_lang("reader_creator", "src_lang", src_lang)

    def reader():
        dataset = _parser.WMT16(tar_file, mode=_FILES[file_name], src_dict_size=src_dict_size,
                                trg_dict_size=trg_dict_size, lang=src_lang)
        yield from zip(dataset.src_ids, dataset.trg_ids, dataset.trg_ids_next)
    return reader


def _check_size(fn: str, arg: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"wmt16.{fn}: argument '{arg}' expected an int, got {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"wmt16.{fn}: argument '{arg}' expected a positive int, got {value}")
    return int(value)


def _creator(fn: str, split: str, src_dict_size, trg_dict_size, src_lang):
    _check_lang(fn, "src_lang", src_lang)
    other = "de" if src_lang == "en" else "en"
    total = {"en": TOTAL_EN_WORDS, "de": TOTAL_DE_WORDS}
    src_dict_size = _check_size(fn, "src_dict_size", src_dict_size)
    trg_dict_size = _check_size(fn, "trg_dict_size", trg_dict_size)
    return reader_creator(common.download(DATA_URL, "wmt16", DATA_MD5, "wmt16.tar.gz"), f"wmt16/{split}",
                          min(src_dict_size, total[src_lang]), min(trg_dict_size, total[other]), src_lang)


@deprecated(**_UPDATE)
def train(src_dict_size, trg_dict_size, src_lang="en"):
    """The training pairs: a reader creator of ``(source ids, target ids, next
    target ids)``; ``src_lang`` 'en' translates English to German, 'de' the
    other way; each dictionary size counts the three marks."""
    return _creator("train", "train", src_dict_size, trg_dict_size, src_lang)


@deprecated(**_UPDATE)
def test(src_dict_size, trg_dict_size, src_lang="en"):
    """The test pairs: a reader creator as :func:`train`'s."""
    return _creator("test", "test", src_dict_size, trg_dict_size, src_lang)


@deprecated(**_UPDATE)
def validation(src_dict_size, trg_dict_size, src_lang="en"):
    """The validation pairs (member 'wmt16/val'): a reader creator as :func:`train`'s."""
    return _creator("validation", "val", src_dict_size, trg_dict_size, src_lang)


@deprecated(**_UPDATE)
def get_dict(lang, dict_size, reverse=False):
    """The dictionary of language ``lang`` ('en' or 'de') with ``dict_size``
    entries at most: word -> id, or id -> word with ``reverse``."""
    _check_lang("get_dict", "lang", lang)
    dict_size = min(_check_size("get_dict", "dict_size", dict_size), TOTAL_EN_WORDS if lang == "en" else TOTAL_DE_WORDS)
    tar_file = common.download(DATA_URL, "wmt16", DATA_MD5, "wmt16.tar.gz")
    dataset = _parser.WMT16(tar_file, mode="train", src_dict_size=dict_size, trg_dict_size=dict_size, lang=lang)
    return dataset.get_dict(lang, reverse=reverse)


@deprecated(**_UPDATE)
def fetch():
    """Checks that ``wmt16.tar.gz`` is in ``DATA_HOME/wmt16/`` (Paddle downloads
    it; a missing file raises :func:`eager.dataset.common.download`'s error)."""
    common.download(DATA_URL, "wmt16", DATA_MD5, "wmt16.tar.gz")
