"""Paddle's ``paddle.dataset.imikolov``: the Penn Treebank sample of Mikolov's
simple-examples as legacy reader creators of n-grams or sentences.

``imikolov%2Fsimple-examples.tgz`` is looked for in ``DATA_HOME/imikolov/`` (see
:func:`eager.dataset.common.download`; nothing is downloaded). The dictionary
is built as :mod:`eager.text.datasets.imikolov` builds it (bytes words, the
marks ``'<s>'``, ``'<e>'`` and ``'<unk>'`` as str).

>>> word_idx = eager.dataset.imikolov.build_dict()  # doctest: +SKIP
>>> next(eager.dataset.imikolov.train(word_idx, 5)())  # doctest: +SKIP
(1, 2, 3, 4, 5)
"""
from __future__ import annotations

import collections
import numbers

from ..text.datasets._common import lines, open_tar, tar_member
from ..text.datasets.imikolov import Imikolov
from ..utils.deprecation import deprecated
from . import common

__all__ = []

URL = "https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz"
MD5 = "30177ea32e27c525793142b6bf2c8e2d"

_TRAIN = "./simple-examples/data/ptb.train.txt"
_VALID = "./simple-examples/data/ptb.valid.txt"

_UPDATE = dict(since="2.0.0", update_to="paddle.text.datasets.Imikolov", level=1,
               reason="Please use new dataset API which supports paddle.io.DataLoader")


class DataType:
    """The kinds of sample: ``NGRAM`` (tuples of n word ids) or ``SEQ``
    (a sentence's source and target id lists)."""

    NGRAM = 1
    SEQ = 2


def word_count(f, word_freq=None):
    """Adds the words of each line of ``f`` (and one ``'<s>'`` and ``'<e>'`` per
    line) to the counts ``word_freq`` (a new defaultdict(int) when None) and
    returns them.

    >>> dict(word_count([b"a b a"]))
    {b'a': 2, b'b': 1, '<s>': 1, '<e>': 1}
    """
    if word_freq is None:
        word_freq = collections.defaultdict(int)
    for line in f:
        for word in line.strip().split():
            word_freq[word] += 1
        word_freq["<s>"] += 1
        word_freq["<e>"] += 1
    return word_freq


def _lines(path: str, filename: str) -> list:
    """The lines of member ``filename`` of the archive at ``path`` (with or without its './')."""
    with open_tar("imikolov", path) as archive:
        names = set(archive.getnames())
        if filename not in names and filename.startswith("./") and filename[2:] in names:
            filename = filename[2:]
        return lines(tar_member("imikolov", archive, path, filename).read())


def build_dict(min_word_freq=50):
    """The dictionary of ``ptb.train.txt`` and ``ptb.valid.txt``: words seen
    more than ``min_word_freq`` times (the marks included) numbered by falling
    count then word, and ``'<unk>'`` last."""
    if isinstance(min_word_freq, bool) or not isinstance(min_word_freq, numbers.Integral):
        raise TypeError(f"imikolov.build_dict: argument 'min_word_freq' expected an int, got "
                        f"{type(min_word_freq).__name__}")
    path = common.download(URL, "imikolov", MD5)
    return Imikolov._build_work_dict(_lines(path, _TRAIN) + _lines(path, _VALID), int(min_word_freq))


def reader_creator(filename, word_idx, n, data_type):
    """A reader over the sentences of archive member ``filename``. With
    ``DataType.NGRAM`` it yields every ``n``-gram (a tuple of ids, ``n >= 1``)
    of each sentence wrapped in ``<s>``/``<e>``; with ``DataType.SEQ`` one
    ``(ids of <s> + words, ids of words + <e>)`` per sentence, leaving out those
    whose source is longer than ``n`` when ``n > 0``. Words outside ``word_idx``
    are ``word_idx['<unk>']``. The archive is read at each pass."""
    if data_type not in (DataType.NGRAM, DataType.SEQ):
        raise ValueError(f"imikolov.reader_creator: argument 'data_type' expected DataType.NGRAM or DataType.SEQ, "
                         f"got {data_type!r}")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"imikolov.reader_creator: argument 'n' expected an int, got {type(n).__name__}")
    if data_type == DataType.NGRAM and n < 1:
        raise ValueError(f"imikolov.reader_creator: DataType.NGRAM needs argument 'n' >= 1 (the n of the n-grams), "
                         f"got {n}")
    if not isinstance(word_idx, dict):
        raise TypeError(f"imikolov.reader_creator: argument 'word_idx' expected a dict (from build_dict()), got "
                        f"{type(word_idx).__name__}")
    missing = [mark for mark in ("<s>", "<e>", "<unk>") if mark not in word_idx]
    if missing:
        raise ValueError(f"imikolov.reader_creator: argument 'word_idx' has no {missing[0]!r} (build it with "
                         f"build_dict())")

    def reader():
        path = common.download(URL, "imikolov", MD5)
        unk = word_idx["<unk>"]
        for line in _lines(path, filename):
            if data_type == DataType.NGRAM:
                ids = [word_idx.get(w, unk) for w in ["<s>", *line.strip().split(), "<e>"]]
                for i in range(n, len(ids) + 1):
                    yield tuple(ids[i - n:i])
            else:
                ids = [word_idx.get(w, unk) for w in line.strip().split()]
                src_seq, trg_seq = [word_idx["<s>"], *ids], [*ids, word_idx["<e>"]]
                if n > 0 and len(src_seq) > n:
                    continue
                yield src_seq, trg_seq
    return reader


@deprecated(**_UPDATE)
def train(word_idx, n, data_type=DataType.NGRAM):
    """A reader creator over ``ptb.train.txt``: n-grams, or sentences of at
    most ``n`` source ids (see :func:`reader_creator`)."""
    return reader_creator(_TRAIN, word_idx, n, data_type)


@deprecated(**_UPDATE)
def test(word_idx, n, data_type=DataType.NGRAM):
    """A reader creator over ``ptb.valid.txt`` (Paddle's test split of this
    module): n-grams, or sentences of at most ``n`` source ids."""
    return reader_creator(_VALID, word_idx, n, data_type)


@deprecated(**_UPDATE)
def fetch():
    """Checks that the archive is in ``DATA_HOME/imikolov/`` (Paddle downloads
    it; a missing file raises :func:`eager.dataset.common.download`'s error)."""
    common.download(URL, "imikolov", MD5)
