"""Paddle's ``paddle.dataset.conll05``: the CoNLL-2005 semantic role labelling
test set as a legacy reader creator.

The files (``conll05st-tests.tar.gz``, ``conll05st%2FwordDict.txt``,
``conll05st%2FverbDict.txt``, ``conll05st%2FtargetDict.txt`` and
``conll05st%2Femb``) are looked for in ``DATA_HOME/conll05st/`` (see
:func:`eager.dataset.common.download`; nothing is downloaded) and read with
:mod:`eager.text.datasets.conll05`. A sample is nine lists as long as the
sentence: ``(word ids, ctx_n2, ctx_n1, ctx_0, ctx_p1, ctx_p2, predicate ids,
mark, label ids)``.

>>> sample = next(eager.dataset.conll05.test()())  # doctest: +SKIP
>>> len(sample)  # doctest: +SKIP
9
"""
from __future__ import annotations

from ..text.datasets import conll05 as _parser
from ..utils.deprecation import deprecated
from . import common

__all__ = []

DATA_URL = _parser.DATA_URL
DATA_MD5 = "387719152ae52d60422c016e92a742fc"
WORDDICT_URL = _parser.WORDDICT_URL
WORDDICT_MD5 = "ea7fb7d4c75cc6254716f0177a506baa"
VERBDICT_URL = _parser.VERBDICT_URL
VERBDICT_MD5 = "0d2977293bbb6cbefab5b0f97db1e77c"
TRGDICT_URL = _parser.TRGDICT_URL
TRGDICT_MD5 = "d8c7f03ceb5fc2e5a0fa7503a4353751"
EMB_URL = _parser.EMB_URL
EMB_MD5 = "bf436eb0faa1f6f9103017f8be57cdb7"

UNK_IDX = 0

_UPDATE = dict(since="2.0.0", update_to="paddle.text.datasets.Conll05st", level=1,
               reason="Please use new dataset API which supports paddle.io.DataLoader")


def load_label_dict(filename):
    """The tags of a target dictionary file: ``B-tag``/``I-tag`` numbered in
    pairs in order of first appearance, then ``'O'``."""
    return _parser.load_label_dict(filename)


def load_dict(filename):
    """A dictionary file as ``{line: line number}``."""
    return _parser.load_dict(filename)


def corpus_reader(data_path, words_name, props_name):
    """A reader of ``(words, verb, tags)`` for each predicate of each sentence
    of the tar ``data_path``: its gzip members ``words_name`` and
    ``props_name``; ``tags`` are B-/I-/O. The archive is read at each pass."""
    for arg, value in (("words_name", words_name), ("props_name", props_name)):
        if not isinstance(value, str):
            raise TypeError(f"conll05.corpus_reader: argument '{arg}' expected a member name (str), got "
                            f"{type(value).__name__}")

    def reader():
        yield from _parser.read_corpus("conll05", data_path, words_name, props_name)
    return reader


def reader_creator(corpus_reader, word_dict=None, predicate_dict=None, label_dict=None):
    """A reader of the nine id lists of each ``(words, verb, tags)`` that
    ``corpus_reader`` yields, with these dictionaries (a word outside
    ``word_dict`` is ``UNK_IDX``; an unknown verb or tag is a ValueError)."""
    if not callable(corpus_reader):
        raise TypeError(f"conll05.reader_creator: argument 'corpus_reader' expected a reader, got "
                        f"{type(corpus_reader).__name__}")
    for arg, value in (("word_dict", word_dict), ("predicate_dict", predicate_dict), ("label_dict", label_dict)):
        if not isinstance(value, dict):
            raise TypeError(f"conll05.reader_creator: argument '{arg}' expected a dict (see get_dict()), got "
                            f"{type(value).__name__}")

    def reader():
        for sentence, predicate, labels in corpus_reader():
            yield tuple(_parser.features("conll05", sentence, predicate, labels, word_dict, predicate_dict,
                                         label_dict))
    return reader


@deprecated(**_UPDATE)
def get_dict():
    """The word, verb and label dictionaries: ``(word_dict, verb_dict, label_dict)``."""
    word_dict = load_dict(common.download(WORDDICT_URL, "conll05st", WORDDICT_MD5))
    verb_dict = load_dict(common.download(VERBDICT_URL, "conll05st", VERBDICT_MD5))
    label_dict = load_label_dict(common.download(TRGDICT_URL, "conll05st", TRGDICT_MD5))
    return word_dict, verb_dict, label_dict


@deprecated(**_UPDATE)
def get_embedding():
    """The path of the trained word vectors (``conll05st%2Femb``)."""
    return common.download(EMB_URL, "conll05st", EMB_MD5)


@deprecated(**_UPDATE)
def test():
    """The CoNLL-05 test set (Paddle trains on it, the training set not being
    free): a reader creator of the nine id lists of each (sentence, predicate)."""
    word_dict, verb_dict, label_dict = get_dict()
    reader = corpus_reader(common.download(DATA_URL, "conll05st", DATA_MD5),
                           words_name="conll05st-release/test.wsj/words/test.wsj.words.gz",
                           props_name="conll05st-release/test.wsj/props/test.wsj.props.gz")
    return reader_creator(reader, word_dict, verb_dict, label_dict)


@deprecated(**_UPDATE)
def fetch():
    """Checks that the five files are in ``DATA_HOME/conll05st/`` (Paddle
    downloads them; a missing one raises :func:`eager.dataset.common.download`'s error)."""
    common.download(WORDDICT_URL, "conll05st", WORDDICT_MD5)
    common.download(VERBDICT_URL, "conll05st", VERBDICT_MD5)
    common.download(TRGDICT_URL, "conll05st", TRGDICT_MD5)
    common.download(EMB_URL, "conll05st", EMB_MD5)
    common.download(DATA_URL, "conll05st", DATA_MD5)
