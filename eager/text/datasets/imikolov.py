"""The Penn Treebank sample of Mikolov's simple-examples (Paddle's
``paddle.text.datasets.Imikolov``): n-grams or whole sentences as word ids."""
from __future__ import annotations

import collections

import numpy as np

from ...io.dataset import Dataset
from ._common import integer, lines, open_tar, resolve, tar_member
from ._common import mode as _mode

URL = "https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz"
_MEMBER = "./simple-examples/data/ptb.{}.txt"


def _sort_key(item):
    word, count = item
    return -count, word.encode("latin-1") if isinstance(word, str) else word


class Imikolov(Dataset):
    """Word-id samples of the PTB text of ``simple-examples.tgz``, as Paddle.

    ``data_type='NGRAM'``: every ``window_size``-gram of each sentence wrapped in
    ``<s>``/``<e>`` (sentences shorter than the window give none), an item being a
    tuple of ``window_size`` int64 scalars arrays. ``data_type='SEQ'``: one item per
    sentence, ``(ids of <s> + words, ids of words + <e>)``, sentences longer than
    ``window_size`` (when it is > 0) left out. ``mode`` 'train' reads
    ``ptb.train.txt``, 'test' ``ptb.test.txt``; the dictionary (``word_idx``: bytes
    words, ``'<s>'``, ``'<e>'``, ``'<unk>'``) counts ``ptb.train.txt`` and
    ``ptb.valid.txt`` and keeps words seen more than ``min_word_freq`` times.

    ``data_file``: the tgz (members ``./simple-examples/data/ptb.*.txt``); when None it
    is taken from Paddle's cache folder (``~/.cache/paddle/dataset/imikolov/``); this
    build never downloads.

    >>> ds = eager.text.datasets.Imikolov("simple-examples.tgz", data_type="NGRAM", window_size=5)
    >>> len(ds[0])
    5
    """

    def __init__(self, data_file=None, data_type="NGRAM", window_size=-1, mode="train", min_word_freq=50,
                 download=True):
        name = type(self).__name__
        if not isinstance(data_type, str) or data_type.upper() not in ("NGRAM", "SEQ"):
            raise ValueError(f"{name}: argument 'data_type' expected 'NGRAM' or 'SEQ', got {data_type!r}")
        self.data_type = data_type.upper()
        self.mode = _mode(name, mode)
        self.window_size = integer(name, "window_size", window_size)
        if self.data_type == "NGRAM" and self.window_size < 1:
            raise ValueError(f"{name}: data_type='NGRAM' needs argument 'window_size' >= 1 (the n of the "
                             f"n-grams), got {window_size}")
        self.min_word_freq = integer(name, "min_word_freq", min_word_freq)
        self.data_file = resolve(name, "data_file", data_file, download, "imikolov", URL)
        with open_tar(name, self.data_file) as archive:
            lines = {split: self._lines(archive, split) for split in dict.fromkeys(("train", "valid", self.mode))}
        self.word_idx = self._build_work_dict(lines["train"] + lines["valid"], self.min_word_freq)
        self._load_anno(lines[self.mode])

    def _lines(self, archive, split: str) -> list:
        name = _MEMBER.format(split)
        names = set(archive.getnames())
        if name not in names and name[2:] in names:
            name = name[2:]
        return lines(tar_member(type(self).__name__, archive, self.data_file, name).read())

    @staticmethod
    def _build_work_dict(lines, cutoff: int) -> dict:
        freq = collections.Counter()
        for line in lines:
            freq.update(line.split())
            freq["<s>"] += 1
            freq["<e>"] += 1
        # As Paddle: the str '<unk>' takes the last number; the corpus's own b'<unk>'
        # token is an ordinary word.
        kept = sorted((item for item in freq.items() if item[1] > cutoff), key=_sort_key)
        word_idx = {word: i for i, (word, _) in enumerate(kept)}
        word_idx["<unk>"] = len(kept)
        return word_idx

    def _load_anno(self, lines) -> None:
        self.data = []
        unk = self.word_idx["<unk>"]
        for line in lines:
            words = line.split()
            if self.data_type == "NGRAM":
                ids = [self.word_idx.get(w, unk) for w in ["<s>", *words, "<e>"]]
                n = self.window_size
                self.data.extend(tuple(ids[i - n:i]) for i in range(n, len(ids) + 1))
            else:
                ids = [self.word_idx.get(w, unk) for w in words]
                src, trg = [self.word_idx.get("<s>", unk), *ids], [*ids, self.word_idx.get("<e>", unk)]
                if self.window_size > 0 and len(src) > self.window_size:
                    continue
                self.data.append((src, trg))

    def __getitem__(self, idx):
        return tuple(np.array(d, dtype=np.int64) for d in self.data[idx])

    def __len__(self):
        return len(self.data)


__all__ = ["Imikolov"]
