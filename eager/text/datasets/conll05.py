"""CoNLL-2005 semantic role labelling, its public test set (Paddle's
``paddle.text.datasets.Conll05st``): one item per (sentence, predicate)."""
from __future__ import annotations

import gzip
import os

import numpy as np

from ...io.dataset import Dataset
from ._common import lines, open_tar, resolve, tar_member

DATA_URL = "http://paddlemodels.bj.bcebos.com/conll05st/conll05st-tests.tar.gz"
WORDDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FwordDict.txt"
VERBDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FverbDict.txt"
TRGDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FtargetDict.txt"
EMB_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2Femb"
UNK_IDX = 0
_WORDS = "conll05st-release/test.wsj/words/test.wsj.words.gz"
_PROPS = "conll05st-release/test.wsj/props/test.wsj.props.gz"


def _bio(fn: str, column) -> list:
    """A predicate's bracketed argument column (``(A0*``, ``*``, ``*)``, ``(V*)``)
    as B-/I-/O tags."""
    tags, tag, inside = [], "O", False
    for mark in column:
        if mark == "*":
            tags.append(f"I-{tag}" if inside else "O")
        elif mark == "*)":
            tags.append(f"I-{tag}")
            inside = False
        elif "(" in mark:
            tag = mark[1:mark.find("*")]
            tags.append(f"B-{tag}")
            inside = ")" not in mark
        else:
            raise ValueError(f"{fn}: unexpected label {mark!r} in {_PROPS}")
    return tags


def load_dict(filename: str) -> dict:
    """A dictionary file as ``{line (stripped): line number}``."""
    with open(filename) as f:
        return {line.strip(): i for i, line in enumerate(f)}


def load_label_dict(filename: str) -> dict:
    """The tags of a target dictionary file: ``B-tag`` and ``I-tag`` numbered in
    pairs in order of first appearance (of either), then ``'O'``."""
    tags = {}
    with open(filename) as f:
        for line in f:
            line = line.strip()
            if line.startswith(("B-", "I-")):
                tags.setdefault(line[2:], None)
    labels = {}
    for tag in tags:
        labels[f"B-{tag}"] = len(labels)
        labels[f"I-{tag}"] = len(labels)
    labels["O"] = len(labels)
    return labels


def read_corpus(fn: str, data_file: str, words_name: str = _WORDS, props_name: str = _PROPS) -> list:
    """``(words, verb, tags)`` for each predicate of each sentence of the tar
    ``data_file``: its gzip members ``words_name`` (one word a line) and
    ``props_name`` (the verb column and one bracketed argument column per
    predicate), a blank line ending a sentence; ``tags`` are B-/I-/O.
    ``fn`` names the caller in errors.

    >>> [verb for _, verb, _ in read_corpus("Conll05st", "conll05st-tests.tar.gz")]
    ['saw', 'ran', 'Stop']
    """
    with open_tar(fn, data_file) as archive:
        try:
            words = gzip.decompress(tar_member(fn, archive, data_file, words_name).read())
            props = gzip.decompress(tar_member(fn, archive, data_file, props_name).read())
        except (OSError, EOFError) as error:
            raise ValueError(f"{fn}: cannot read the gzip members of {data_file!r}: {error}") from None
    corpus, sentence, rows = [], [], []
    for word, label in zip(lines(words), lines(props)):
        label = label.decode().split()
        if label:
            sentence.append(word.strip().decode())
            rows.append(label)
            continue
        if rows:  # a blank line ends a sentence
            columns = [[row[i] for row in rows] for i in range(len(rows[0]))]
            verbs = [v for v in columns[0] if v != "-"]
            if len(verbs) < len(columns) - 1:
                raise ValueError(f"{fn}: a sentence of {data_file!r} has {len(columns) - 1} argument "
                                 f"columns but {len(verbs)} verbs")
            for verb, column in zip(verbs, columns[1:]):
                corpus.append((sentence, verb, _bio(fn, column)))
        sentence, rows = [], []
    return corpus


def features(fn: str, sentence: list, predicate: str, labels: list, word_dict: dict, predicate_dict: dict,
             label_dict: dict) -> list:
    """The nine id lists of one (sentence, predicate) pair: ``[word ids, ctx_n2,
    ctx_n1, ctx_0, ctx_p1, ctx_p2, predicate id, mark, label ids]``, each as long
    as the sentence. A verb or tag missing from its dictionary is a ValueError
    (``fn`` names the caller)."""
    n = len(sentence)
    if "B-V" not in labels:
        raise ValueError(f"{fn}: the pair of verb {predicate!r} has no verb (B-V) among its labels")
    verb = labels.index("B-V")
    mark = [0] * n
    for i in range(verb - 2, verb + 3):
        if 0 <= i < n:
            mark[i] = 1
    context = [sentence[i] if 0 <= i < n else ("bos" if i < 0 else "eos") for i in range(verb - 2, verb + 3)]
    if predicate not in predicate_dict:
        raise ValueError(f"{fn}: the verb {predicate!r} is not in the verb dictionary")
    ids = [word_dict.get(w, UNK_IDX) for w in sentence]
    rows = [ids] + [[word_dict.get(w, UNK_IDX)] * n for w in context]
    unknown = [t for t in labels if t not in label_dict]
    if unknown:
        raise ValueError(f"{fn}: the tag {unknown[0]!r} of verb {predicate!r} is not in the label dictionary")
    return rows + [[predicate_dict[predicate]] * n, mark, [label_dict[t] for t in labels]]


class Conll05st(Dataset):
    """The CoNLL-05 test set for semantic role labelling, as Paddle: one item per
    predicate of each sentence, nine int64 arrays of the sentence's length:
    ``(word ids, ctx_n2, ctx_n1, ctx_0, ctx_p1, ctx_p2, predicate id, mark, label ids)``
    (the ctx_* repeat the ids of the words two before ... two after the verb, 'bos' /
    'eos' past the ends; mark is 1 on those five words).

    ``data_file``: ``conll05st-tests.tar.gz`` (``conll05st-release/test.wsj/words/test.wsj.words.gz``
    and ``.../props/test.wsj.props.gz``); ``word_dict_file``, ``verb_dict_file``: one
    word a line, numbered by line; ``target_dict_file``: the B-/I- tags, numbered
    B-tag, I-tag in order of first appearance, then 'O'; ``emb_file``: only returned
    by :meth:`get_embedding` (a given path as it is, unread). Files left None are taken from Paddle's cache folder
    (``~/.cache/paddle/dataset/conll05st/``); this build never downloads.

    >>> ds = eager.text.datasets.Conll05st("conll05st-tests.tar.gz", "wordDict.txt", "verbDict.txt",
    ...                                    "targetDict.txt")
    >>> len(ds[0])
    9
    """

    def __init__(self, data_file=None, word_dict_file=None, verb_dict_file=None, target_dict_file=None,
                 emb_file=None, download=True):
        name = type(self).__name__
        self.data_file = resolve(name, "data_file", data_file, download, "conll05st", DATA_URL)
        self.word_dict_file = resolve(name, "word_dict_file", word_dict_file, download, "conll05st", WORDDICT_URL)
        self.verb_dict_file = resolve(name, "verb_dict_file", verb_dict_file, download, "conll05st", VERBDICT_URL)
        self.target_dict_file = resolve(name, "target_dict_file", target_dict_file, download, "conll05st",
                                        TRGDICT_URL)
        # The embedding is only handed out by get_embedding: a missing cached one is an error
        # there, and a given path is kept as it is, as Paddle does (this class never reads it).
        self._download = download
        if emb_file is not None and not isinstance(emb_file, (str, os.PathLike)):
            raise TypeError(f"{name}: argument 'emb_file' expected a path, got {type(emb_file).__name__}")
        self.emb_file = os.fspath(emb_file) if emb_file else None
        self.word_dict = self._load_dict(self.word_dict_file)
        self.predicate_dict = self._load_dict(self.verb_dict_file)
        self.label_dict = self._load_label_dict(self.target_dict_file)
        self._load_anno()

    @staticmethod
    def _load_dict(filename: str) -> dict:
        return load_dict(filename)

    @staticmethod
    def _load_label_dict(filename: str) -> dict:
        return load_label_dict(filename)

    def _load_anno(self) -> None:
        corpus = read_corpus(type(self).__name__, self.data_file)
        self.sentences = [sentence for sentence, _, _ in corpus]
        self.predicates = [verb for _, verb, _ in corpus]
        self.labels = [tags for _, _, tags in corpus]

    def __getitem__(self, idx):
        sentence, predicate, labels = self.sentences[idx], self.predicates[idx], self.labels[idx]
        name = type(self).__name__
        if "B-V" not in labels:
            raise ValueError(f"{name}: item {idx} has no verb (B-V) among its labels")
        if predicate not in self.predicate_dict:
            raise ValueError(f"{name}: the verb {predicate!r} of item {idx} is not in {self.verb_dict_file!r}")
        unknown = [t for t in labels if t not in self.label_dict]
        if unknown:
            raise ValueError(f"{name}: the tag {unknown[0]!r} of item {idx} is not in {self.target_dict_file!r}")
        rows = features(name, sentence, predicate, labels, self.word_dict, self.predicate_dict, self.label_dict)
        return tuple(np.array(r, dtype=np.int64) for r in rows)

    def __len__(self):
        return len(self.sentences)

    def get_dict(self):
        """The word, verb and label dictionaries: ``(word_dict, predicate_dict, label_dict)``."""
        return self.word_dict, self.predicate_dict, self.label_dict

    def get_embedding(self):
        """The path of the embedding file (``emb_file``, or ``emb`` in Paddle's cache folder)."""
        if self.emb_file is None:
            self.emb_file = resolve(type(self).__name__, "emb_file", None, self._download, "conll05st", EMB_URL)
        return self.emb_file


__all__ = ["Conll05st"]
