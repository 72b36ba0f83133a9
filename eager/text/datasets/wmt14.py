"""WMT14 English-French, Paddle's small training set (Paddle's
``paddle.text.datasets.WMT14``): source and target word ids."""
from __future__ import annotations

import numpy as np

from ...io.dataset import Dataset
from ._common import integer, lines, open_tar, resolve
from ._common import mode as _mode

URL_TRAIN = "http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz"
START, END, UNK = "<s>", "<e>", "<unk>"
UNK_IDX = 2
_MAX_LEN = 80


def _one(fn: str, data_file: str, members, suffix: str) -> str:
    found = [m for m in members if m.endswith(suffix)]
    if len(found) != 1:
        raise ValueError(f"{fn}: {data_file!r} expected one member ending with {suffix!r}, found {len(found)}")
    return found[0]


def read_dicts(fn: str, archive, data_file: str, dict_size: int) -> tuple:
    """The source and target dictionaries (word -> line number, the first
    ``dict_size`` lines) of the open tar ``archive`` (read from ``data_file``):
    its one member ending with ``src.dict`` and its one ending with ``trg.dict``.

    >>> with open_tar("WMT14", "wmt14.tgz") as archive:
    ...     src_dict, trg_dict = read_dicts("WMT14", archive, "wmt14.tgz", 4)
    >>> trg_dict
    {'<s>': 0, '<e>': 1, '<unk>': 2, 'le': 3}
    """
    members = [m.name for m in archive.getmembers() if m.isfile()]
    dicts = []
    for suffix in ("src.dict", "trg.dict"):
        words = lines(archive.extractfile(_one(fn, data_file, members, suffix)).read())
        dicts.append({w.strip().decode(): i for i, w in enumerate(words[:dict_size])})
    return tuple(dicts)


class WMT14(Dataset):
    """``(src_ids, trg_ids, trg_ids_next)`` of each sentence pair of ``mode``
    ('train', 'test' or 'gen'), as Paddle: the source wrapped in ``<s>``/``<e>``,
    the target after ``<s>``, and the target followed by ``<e>``; words outside the
    dictionaries are ``UNK_IDX`` (2); pairs with a source (marks included) or target
    longer than 80 words are left out.

    ``data_file``: ``wmt14.tgz``, holding a ``*src.dict`` and a ``*trg.dict`` (one word
    a line; the first ``dict_size`` lines are kept, numbered by line) and the
    tab-separated pairs in members ending with ``<mode>/<mode>``. When None it is
    taken from Paddle's cache folder (``~/.cache/paddle/dataset/wmt14/``); this build
    never downloads. ``dict_size`` must be positive.

    >>> ds = eager.text.datasets.WMT14("wmt14.tgz", mode="train", dict_size=50)
    >>> src_ids, trg_ids, trg_ids_next = ds[0]
    >>> trg_ids[1:].tolist() == trg_ids_next[:-1].tolist()
    True
    """

    def __init__(self, data_file=None, mode="train", dict_size=-1, download=True):
        name = type(self).__name__
        self.mode = _mode(name, mode, ("train", "test", "gen"))
        self.dict_size = integer(name, "dict_size", dict_size)
        if self.dict_size <= 0:
            raise ValueError(f"{name}: argument 'dict_size' expected a positive int, got {dict_size}")
        self.data_file = resolve(name, "data_file", data_file, download, "wmt14", URL_TRAIN)
        self._load_data()

    def _load_data(self) -> None:
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        with open_tar(type(self).__name__, self.data_file) as archive:
            self.src_dict, self.trg_dict = read_dicts(type(self).__name__, archive, self.data_file, self.dict_size)
            members = [m.name for m in archive.getmembers() if m.isfile()]
            suffix = f"{self.mode}/{self.mode}"
            for member in (m for m in members if m.endswith(suffix)):
                for line in lines(archive.extractfile(member).read()):
                    self._add(line.decode())

    def _add(self, line: str) -> None:
        pair = line.strip().split("\t")
        if len(pair) != 2:
            return
        src = [self.src_dict.get(w, UNK_IDX) for w in [START, *pair[0].split(), END]]
        trg = [self.trg_dict.get(w, UNK_IDX) for w in pair[1].split()]
        if len(src) > _MAX_LEN or len(trg) > _MAX_LEN:
            return
        for word in (START, END):
            if word not in self.trg_dict:
                raise ValueError(f"{type(self).__name__}: the target dictionary of {self.data_file!r} has no "
                                 f"{word!r} among its first {self.dict_size} words")
        self.src_ids.append(src)
        self.trg_ids.append([self.trg_dict[START], *trg])
        self.trg_ids_next.append([*trg, self.trg_dict[END]])

    def __getitem__(self, idx):
        return tuple(np.array(ids[idx], dtype=np.int64) for ids in (self.src_ids, self.trg_ids, self.trg_ids_next))

    def __len__(self):
        return len(self.src_ids)

    def get_dict(self, reverse=False):
        """The source and target dictionaries (word -> id; id -> word with ``reverse``).

        >>> src_dict, trg_dict = eager.text.datasets.WMT14("wmt14.tgz", dict_size=50).get_dict()
        >>> trg_dict["<s>"]
        0
        """
        if reverse:
            return {v: k for k, v in self.src_dict.items()}, {v: k for k, v in self.trg_dict.items()}
        return self.src_dict, self.trg_dict


__all__ = ["WMT14"]
