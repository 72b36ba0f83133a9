"""Paddle's ``paddle.dataset.imdb``: the IMDB movie reviews as legacy reader creators.

``imdb%2FaclImdb_v1.tar.gz`` is looked for in ``DATA_HOME/imdb/`` (see
:func:`eager.dataset.common.download`; nothing is downloaded); reviews are
tokenized as :mod:`eager.text.datasets.imdb` does (Paddle's rule: punctuation
dropped, lower-cased, bytes words). A sample is ``(word ids, label)``: a list
of ints and 0 for a positive review, 1 for a negative one.

>>> word_idx = eager.dataset.imdb.word_dict()  # doctest: +SKIP
>>> ids, label = next(eager.dataset.imdb.train(word_idx)())  # doctest: +SKIP
"""
from __future__ import annotations

import re

from ..text.datasets._common import open_tar
from ..text.datasets.imdb import build_dict as _build_dict
from ..text.datasets.imdb import tokenize as _tokenize
from ..utils.deprecation import deprecated
from . import common

__all__ = []

URL = "https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz"
MD5 = "7c2ac02c03563afcf9b574c7e56c153a"

_UPDATE = dict(since="2.0.0", update_to="paddle.text.datasets.Imdb", level=1,
               reason="Please use new dataset API which supports paddle.io.DataLoader")


def _check_pattern(fn: str, arg: str, pattern):
    if not isinstance(pattern, re.Pattern):
        raise TypeError(f"imdb.{fn}: argument '{arg}' expected a compiled regular expression (re.compile), got "
                        f"{type(pattern).__name__}")
    return pattern


def tokenize(pattern):
    """The tokens (a list of bytes words) of each archive member whose name
    ``pattern`` (a compiled regular expression) matches, in archive order."""
    _check_pattern("tokenize", "pattern", pattern)
    return _docs(pattern, common.download(URL, "imdb", MD5))


def _docs(pattern, path):
    with open_tar("imdb", path) as archive:
        for member in archive:
            if member.isfile() and pattern.match(member.name):
                yield _tokenize(archive.extractfile(member).read())


def build_dict(pattern, cutoff):
    """The word dictionary of the reviews ``pattern`` matches: the words seen
    more than ``cutoff`` times, numbered by falling count then word, and
    ``'<unk>'`` after them."""
    _check_pattern("build_dict", "pattern", pattern)
    if isinstance(cutoff, bool) or not isinstance(cutoff, int):
        raise TypeError(f"imdb.build_dict: argument 'cutoff' expected an int, got {type(cutoff).__name__}")
    return _build_dict(tokenize(pattern), cutoff)


@deprecated(**_UPDATE)
def reader_creator(pos_pattern, neg_pattern, word_idx):
    """A reader of ``(word ids, label)`` over the reviews ``pos_pattern``
    matches (label 0) and then those ``neg_pattern`` matches (label 1), words
    outside ``word_idx`` being ``word_idx['<unk>']``. The reviews are read now."""
    _check_pattern("reader_creator", "pos_pattern", pos_pattern)
    _check_pattern("reader_creator", "neg_pattern", neg_pattern)
    if not isinstance(word_idx, dict) or "<unk>" not in word_idx:
        raise ValueError("imdb.reader_creator: argument 'word_idx' expected a dict holding '<unk>' (as word_dict() "
                         f"gives), got {type(word_idx).__name__}")
    unk = word_idx["<unk>"]
    samples = []
    for label, pattern in enumerate((pos_pattern, neg_pattern)):
        samples.extend(([word_idx.get(w, unk) for w in doc], label) for doc in tokenize(pattern))

    def reader():
        yield from samples
    return reader


@deprecated(**_UPDATE)
def train(word_idx):
    """The training reviews: a reader creator of ``(word ids, label)``."""
    return reader_creator(re.compile(r"aclImdb/train/pos/.*\.txt$"), re.compile(r"aclImdb/train/neg/.*\.txt$"),
                          word_idx)


@deprecated(**_UPDATE)
def test(word_idx):
    """The test reviews: a reader creator of ``(word ids, label)``."""
    return reader_creator(re.compile(r"aclImdb/test/pos/.*\.txt$"), re.compile(r"aclImdb/test/neg/.*\.txt$"),
                          word_idx)


@deprecated(**_UPDATE)
def word_dict():
    """The dictionary of all reviews, training and test: words seen more than
    150 times, and ``'<unk>'``."""
    return build_dict(re.compile(r"aclImdb/((train)|(test))/((pos)|(neg))/.*\.txt$"), 150)


@deprecated(**_UPDATE)
def fetch():
    """Checks that the archive is in ``DATA_HOME/imdb/`` (Paddle downloads it; a
    missing file raises :func:`eager.dataset.common.download`'s error)."""
    common.download(URL, "imdb", MD5)
