"""WMT16 Multi30K English-German (Paddle's ``paddle.text.datasets.WMT16``):
source and target word ids with dictionaries built from the training pairs."""
from __future__ import annotations

import collections

import numpy as np

from ...io.dataset import Dataset
from ._common import integer, lines, open_tar, resolve, tar_member
from ._common import mode as _mode

DATA_URL = "http://paddlemodels.bj.bcebos.com/wmt/wmt16.tar.gz"
TOTAL_EN_WORDS = 11250
TOTAL_DE_WORDS = 19220
START_MARK, END_MARK, UNK_MARK = "<s>", "<e>", "<unk>"


class WMT16(Dataset):
    """``(src_ids, trg_ids, trg_ids_next)`` of each sentence pair of ``mode``
    ('train', 'test' or 'val'), as Paddle: the source wrapped in ``<s>``/``<e>``, the
    target after ``<s>``, and the target followed by ``<e>``; unknown words are
    ``<unk>`` (ids 0, 1, 2 are ``<s>``, ``<e>``, ``<unk>``).

    ``data_file``: ``wmt16.tar.gz`` with members ``wmt16/train``, ``wmt16/test``,
    ``wmt16/val`` (one 'english<TAB>german' pair a line); when None it is taken from
    Paddle's cache folder (``~/.cache/paddle/dataset/wmt16/``); this build never
    downloads. ``lang`` is the source language ('en' or 'de'). Each language's
    dictionary holds the 3 marks and then its most frequent words in
    ``wmt16/train`` (ties in order of first appearance), ``src_dict_size`` /
    ``trg_dict_size`` entries at most (both must be positive).

    >>> ds = eager.text.datasets.WMT16("wmt16.tar.gz", mode="train", src_dict_size=50, trg_dict_size=50)
    >>> src_ids, trg_ids, trg_ids_next = ds[0]
    >>> int(src_ids[0]), int(src_ids[-1])
    (0, 1)
    """

    def __init__(self, data_file=None, mode="train", src_dict_size=-1, trg_dict_size=-1, lang="en",
                 download=True):
        name = type(self).__name__
        self.mode = _mode(name, mode, ("train", "test", "val"))
        if lang not in ("en", "de"):
            raise ValueError(f"{name}: argument 'lang' expected 'en' or 'de', got {lang!r}")
        self.lang = lang
        sizes = []
        for arg, value in (("src_dict_size", src_dict_size), ("trg_dict_size", trg_dict_size)):
            if integer(name, arg, value) <= 0:
                raise ValueError(f"{name}: argument '{arg}' expected a positive int, got {value}")
            sizes.append(int(value))
        self.data_file = resolve(name, "data_file", data_file, download, "wmt16", DATA_URL)
        other = "de" if lang == "en" else "en"
        total = {"en": TOTAL_EN_WORDS, "de": TOTAL_DE_WORDS}
        self.src_dict_size = min(sizes[0], total[lang])
        self.trg_dict_size = min(sizes[1], total[other])
        with open_tar(name, self.data_file) as archive:
            train = self._pairs(archive, "train")
            pairs = train if self.mode == "train" else self._pairs(archive, self.mode)
        self._dicts = {lang: self._build_dict(train, lang, sizes[0]), other: self._build_dict(train, other, sizes[1])}
        self.src_dict, self.trg_dict = self._dicts[lang], self._dicts[other]
        self._load_data(pairs)

    def _pairs(self, archive, split: str) -> list:
        member = tar_member(type(self).__name__, archive, self.data_file, f"wmt16/{split}")
        pairs = (line.decode().strip().split("\t") for line in lines(member.read()))
        return [pair for pair in pairs if len(pair) == 2]

    @staticmethod
    def _build_dict(pairs, lang: str, size: int) -> dict:
        column = 0 if lang == "en" else 1
        freq = collections.Counter(w for pair in pairs for w in pair[column].split())
        words = [START_MARK, END_MARK, UNK_MARK]
        words += [w for w, _ in sorted(freq.items(), key=lambda item: -item[1])][:max(size - 3, 0)]
        return {w: i for i, w in enumerate(words)}

    def _load_data(self, pairs) -> None:
        start, end, unk = (self.src_dict[m] for m in (START_MARK, END_MARK, UNK_MARK))
        src_col = 0 if self.lang == "en" else 1
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        for pair in pairs:
            src = [self.src_dict.get(w, unk) for w in pair[src_col].split()]
            trg = [self.trg_dict.get(w, unk) for w in pair[1 - src_col].split()]
            self.src_ids.append([start, *src, end])
            self.trg_ids.append([start, *trg])
            self.trg_ids_next.append([*trg, end])

    def __getitem__(self, idx):
        return tuple(np.array(ids[idx], dtype=np.int64) for ids in (self.src_ids, self.trg_ids, self.trg_ids_next))

    def __len__(self):
        return len(self.src_ids)

    def get_dict(self, lang, reverse=False):
        """The dictionary of ``lang`` ('en' or 'de'): word -> id, or id -> word with ``reverse``.

        >>> ds = eager.text.datasets.WMT16("wmt16.tar.gz", src_dict_size=50, trg_dict_size=50)
        >>> ds.get_dict("de", reverse=True)[2]
        '<unk>'
        """
        if lang not in self._dicts:
            raise ValueError(f"{type(self).__name__}.get_dict: argument 'lang' expected 'en' or 'de', got {lang!r}")
        words = self._dicts[lang]
        return {i: w for w, i in words.items()} if reverse else dict(words)


__all__ = ["WMT16"]
