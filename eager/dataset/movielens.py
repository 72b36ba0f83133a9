"""Paddle's ``paddle.dataset.movielens``: the MovieLens 1M ratings as legacy
reader creators.

``movielens%2Fml-1m.zip`` is looked for in ``DATA_HOME/movielens/`` (see
:func:`eager.dataset.common.download`; nothing is downloaded) and read with
:mod:`eager.text.datasets.movielens` (title words and categories numbered in
sorted order). A sample is ``[user id, gender (0 male, 1 female), age index,
job id, movie id, [category ids], [title word ids], [rating * 2 - 5]]``. A
rating is a test one when a uniform draw of NumPy's generator seeded with
``rand_seed`` (one draw per rating line) is below ``test_ratio``.

>>> sample = next(eager.dataset.movielens.train()())  # doctest: +SKIP
>>> len(sample)  # doctest: +SKIP
8
"""
from __future__ import annotations

from ..text.datasets import movielens as _parser
from ..text.datasets._common import open_zip
from ..text.datasets.movielens import age_table  # noqa: F401  (Paddle's name)
from ..utils.deprecation import deprecated
from . import common

__all__ = []

URL = "https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip"
MD5 = "c4d9eecfca2ab87c1945afe126590906"

_UPDATE = dict(since="2.0.0", update_to="paddle.text.datasets.Movielens", level=1,
               reason="Please use new dataset API which supports paddle.io.DataLoader")


class MovieInfo(_parser.MovieInfo):
    """A movie's id, categories and title (its year cut off)."""

    def value(self):
        """``[id, [category ids], [title word ids]]`` (the module's dictionaries)."""
        return [self.index, [CATEGORIES_DICT[c] for c in self.categories],
                [MOVIE_TITLE_DICT[w.lower()] for w in self.title.split()]]

    def __str__(self):
        return self.__repr__()


class UserInfo(_parser.UserInfo):
    """A user's id, gender, age bracket (an index into ``age_table``) and job id."""

    def value(self):
        """``[id, 0 male / 1 female, age index, job id]``."""
        return [self.index, 0 if self.is_male else 1, self.age, self.job_id]

    def __str__(self):
        return self.__repr__()


MOVIE_INFO = None
MOVIE_TITLE_DICT = None
CATEGORIES_DICT = None
USER_INFO = None


def _initialize_meta_info() -> str:
    """Reads the movies and users once per process (Paddle's globals) and returns the archive's path."""
    global MOVIE_INFO, MOVIE_TITLE_DICT, CATEGORIES_DICT, USER_INFO
    fn = common.download(URL, "movielens", MD5)
    if MOVIE_INFO is None:
        with open_zip("movielens", fn) as package:
            movies, users, words, categories = _parser.read_meta_info("movielens", fn, package)
        MOVIE_INFO = {k: MovieInfo(m.index, m.categories, m.title) for k, m in movies.items()}
        USER_INFO = {k: UserInfo(u.index, "M" if u.is_male else "F", _parser.age_table[u.age], u.job_id)
                     for k, u in users.items()}
        MOVIE_TITLE_DICT, CATEGORIES_DICT = words, categories
    return fn


def _reader(rand_seed=0, test_ratio=0.1, is_test=False):
    fn = _initialize_meta_info()
    dataset = _parser.Movielens(fn, mode="test" if is_test else "train", test_ratio=test_ratio, rand_seed=rand_seed)
    for user, gender, age, job, movie, categories, title, rating in dataset.data:
        yield [user[0], gender[0], age[0], job[0], movie[0], categories, title, rating]


def _reader_creator(**kwargs):
    return lambda: _reader(**kwargs)


@deprecated(**_UPDATE)
def train(rand_seed=0, test_ratio=0.1):
    """The training ratings: a reader creator of samples (see the module),
    those whose draw is not below ``test_ratio``."""
    return _reader_creator(rand_seed=rand_seed, test_ratio=test_ratio, is_test=False)


@deprecated(**_UPDATE)
def test(rand_seed=0, test_ratio=0.1):
    """The test ratings: a reader creator of samples (see the module), those
    whose draw is below ``test_ratio``."""
    return _reader_creator(rand_seed=rand_seed, test_ratio=test_ratio, is_test=True)


@deprecated(**_UPDATE)
def get_movie_title_dict():
    """The title-word dictionary (lower-cased word -> id)."""
    _initialize_meta_info()
    return MOVIE_TITLE_DICT


@deprecated(**_UPDATE)
def max_movie_id():
    """The largest movie id."""
    _initialize_meta_info()
    return max(MOVIE_INFO.values(), key=lambda m: m.index).index


@deprecated(**_UPDATE)
def max_user_id():
    """The largest user id."""
    _initialize_meta_info()
    return max(USER_INFO.values(), key=lambda u: u.index).index


@deprecated(**_UPDATE)
def max_job_id():
    """The largest job id."""
    _initialize_meta_info()
    return max(USER_INFO.values(), key=lambda u: u.job_id).job_id


@deprecated(**_UPDATE)
def movie_categories():
    """The category dictionary (category -> id)."""
    _initialize_meta_info()
    return CATEGORIES_DICT


@deprecated(**_UPDATE)
def user_info():
    """The users: id -> :class:`UserInfo`."""
    _initialize_meta_info()
    return USER_INFO


@deprecated(**_UPDATE)
def movie_info():
    """The movies: id -> :class:`MovieInfo`."""
    _initialize_meta_info()
    return MOVIE_INFO


@deprecated(**_UPDATE)
def fetch():
    """Checks that the archive is in ``DATA_HOME/movielens/`` (Paddle downloads
    it; a missing file raises :func:`eager.dataset.common.download`'s error)."""
    common.download(URL, "movielens", MD5)
