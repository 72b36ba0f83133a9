"""IMDB movie reviews (Paddle's ``paddle.text.datasets.Imdb``): word-id sequences
and a sentiment label, from the ``aclImdb_v1.tar.gz`` archive."""
from __future__ import annotations

import collections
import re
import string

import numpy as np

from ...io.dataset import Dataset
from ._common import integer, open_tar, resolve
from ._common import mode as _mode

URL = "https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz"
_REVIEW = re.compile(r"aclImdb/(train|test)/(pos|neg)/.*\.txt$")
_PUNCTUATION = string.punctuation.encode("latin-1")


def tokenize(text: bytes) -> list:
    """Paddle's IMDB tokens: trailing newlines and ASCII punctuation dropped,
    lower-cased, split on whitespace (bytes, as Paddle's)."""
    return text.rstrip(b"\n\r").translate(None, _PUNCTUATION).lower().split()


def build_dict(docs, cutoff: int) -> dict:
    """Words seen more than ``cutoff`` times, numbered by falling count then word;
    ``'<unk>'`` takes the next number."""
    freq = collections.Counter(word for doc in docs for word in doc)
    kept = sorted((item for item in freq.items() if item[1] > cutoff), key=lambda item: (-item[1], item[0]))
    word_idx = {word: i for i, (word, _) in enumerate(kept)}
    word_idx["<unk>"] = len(kept)
    return word_idx


class Imdb(Dataset):
    """``(word ids, label)`` pairs of the IMDB reviews of ``mode`` ('train'/'test'),
    as Paddle: label 0 for a positive review, 1 for a negative one (positives first,
    each in archive order).

    ``data_file``: ``aclImdb_v1.tar.gz`` (members ``aclImdb/<train|test>/<pos|neg>/*.txt``);
    when None it is taken from Paddle's cache folder (``~/.cache/paddle/dataset/imdb/``,
    file ``imdb%2FaclImdb_v1.tar.gz``); this build never downloads. The dictionary
    (``word_idx``, bytes keys and ``'<unk>'``) counts the words of every review, train
    and test, and keeps those seen more than ``cutoff`` times. An item is
    ``(int64 array [n_words], int64 array [1])``.

    >>> ds = eager.text.datasets.Imdb("aclImdb_v1.tar.gz", mode="train", cutoff=150)
    >>> doc, label = ds[0]
    >>> doc.dtype, label.shape
    (dtype('int64'), (1,))
    """

    def __init__(self, data_file=None, mode="train", cutoff=150, download=True):
        name = type(self).__name__
        self.mode = _mode(name, mode)
        cutoff = integer(name, "cutoff", cutoff)
        self.data_file = resolve(name, "data_file", data_file, download, "imdb", URL)
        reviews = self._tokenize()
        self.word_idx = build_dict((doc for _, _, doc in reviews), cutoff)
        self._load_anno(reviews)

    def _tokenize(self) -> list:
        """(split, label name, tokens) of every review in the archive, in archive order."""
        reviews = []
        with open_tar(type(self).__name__, self.data_file) as archive:
            for member in archive:
                found = _REVIEW.match(member.name)
                if found and member.isfile():
                    reviews.append((found.group(1), found.group(2), tokenize(archive.extractfile(member).read())))
        return reviews

    def _load_anno(self, reviews) -> None:
        unk = self.word_idx["<unk>"]
        self.docs, self.labels = [], []
        for label, polarity in enumerate(("pos", "neg")):
            for split, kind, doc in reviews:
                if split == self.mode and kind == polarity:
                    self.docs.append([self.word_idx.get(w, unk) for w in doc])
                    self.labels.append(label)

    def __getitem__(self, idx):
        return np.array(self.docs[idx], dtype=np.int64), np.array([self.labels[idx]], dtype=np.int64)

    def __len__(self):
        return len(self.docs)


__all__ = ["Imdb"]
