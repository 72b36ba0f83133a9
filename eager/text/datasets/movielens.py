"""MovieLens 1M ratings (Paddle's ``paddle.text.datasets.Movielens``): user and
movie features with the rating, from ``ml-1m.zip``."""
from __future__ import annotations

import re

import numpy as np

from ...io.dataset import Dataset
from ._common import open_zip, resolve, zip_lines
from ._common import mode as _mode

URL = "https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip"
age_table = [1, 18, 25, 35, 45, 50, 56]
_TITLE = re.compile(r"^(.*)\((\d+)\)$")


class MovieInfo:
    """A movie's id, categories and title (its year cut off)."""

    def __init__(self, index, categories, title):
        self.index = int(index)
        self.categories = categories
        self.title = title

    def value(self, categories_dict, movie_title_dict):
        """``[[id], [category ids], [title word ids]]``."""
        return [[self.index], [categories_dict[c] for c in self.categories],
                [movie_title_dict[w.lower()] for w in self.title.split()]]

    def __repr__(self):
        return f"<MovieInfo id({self.index}), title({self.title}), categories({self.categories})>"


class UserInfo:
    """A user's id, gender, age bracket (an index into ``age_table``) and job id."""

    def __init__(self, index, gender, age, job_id):
        self.index = int(index)
        self.is_male = gender == "M"
        self.age = age_table.index(int(age))
        self.job_id = int(job_id)

    def value(self):
        """``[[id], [0 male / 1 female], [age index], [job id]]``."""
        return [[self.index], [0 if self.is_male else 1], [self.age], [self.job_id]]

    def __repr__(self):
        return (f"<UserInfo id({self.index}), gender({'M' if self.is_male else 'F'}), "
                f"age({age_table[self.age]}), job({self.job_id})>")


def _fields(fn: str, data_file: str, line: str, count: int, member: str) -> list:
    fields = line.strip().split("::")
    if len(fields) != count:
        raise ValueError(f"{fn}: a line of {member} in {data_file!r} has {len(fields)} "
                         f"'::'-separated fields, expected {count}: {line!r}")
    return fields


def read_meta_info(fn: str, data_file: str, package) -> tuple:
    """``(movie_info, user_info, movie_title_dict, categories_dict)`` from the
    ``ml-1m/movies.dat`` and ``ml-1m/users.dat`` of the open zip ``package``
    (read from ``data_file``; ``fn`` names the caller in errors): id ->
    :class:`MovieInfo`, id -> :class:`UserInfo`, and the title words and
    categories numbered in sorted order.

    >>> with open_zip("Movielens", "ml-1m.zip") as package:
    ...     movies, users, words, kinds = read_meta_info("Movielens", "ml-1m.zip", package)
    >>> words
    {'heat': 0, 'story': 1, 'toy': 2}
    """
    movie_info, user_info = {}, {}
    words, categories = set(), set()
    for line in zip_lines(fn, package, data_file, "ml-1m/movies.dat"):
        if not line.strip():
            continue
        movie_id, title, kinds = _fields(fn, data_file, line, 3, "ml-1m/movies.dat")
        found = _TITLE.match(title)
        if found is None:
            raise ValueError(f"{fn}: movie {movie_id} of {data_file!r} has a title without its year "
                             f"in brackets: {title!r}")
        kinds = kinds.split("|")
        categories.update(kinds)
        title = found.group(1)
        words.update(w.lower() for w in title.split())
        movie_info[int(movie_id)] = MovieInfo(movie_id, kinds, title)
    # Numbered in sorted order (Paddle numbers them in set order, which changes from run to run).
    movie_title_dict = {w: i for i, w in enumerate(sorted(words))}
    categories_dict = {c: i for i, c in enumerate(sorted(categories))}
    for line in zip_lines(fn, package, data_file, "ml-1m/users.dat"):
        if line.strip():
            uid, gender, age, job, _ = _fields(fn, data_file, line, 5, "ml-1m/users.dat")
            user_info[int(uid)] = UserInfo(uid, gender, age, job)
    return movie_info, user_info, movie_title_dict, categories_dict


class Movielens(Dataset):
    """One item per rating of ``ml-1m/ratings.dat``, as Paddle: ``(user id, gender,
    age index, job id, movie id, category ids, title word ids, rating)``, int64
    arrays and the rating as ``[2 * stars - 5]`` (float64).

    A rating is in the test split when a uniform draw (NumPy's legacy generator
    seeded with ``rand_seed``, one draw per line in file order) is below
    ``test_ratio``; the rest are ``mode='train'``. ``data_file``: ``ml-1m.zip``
    (``ml-1m/movies.dat``, ``users.dat``, ``ratings.dat``, '::'-separated, latin-1);
    when None it is taken from Paddle's cache folder (``~/.cache/paddle/dataset/sentiment/``,
    file ``movielens%2Fml-1m.zip``); this build never downloads.

    >>> ds = eager.text.datasets.Movielens("ml-1m.zip", mode="test", test_ratio=0.1)
    >>> len(ds[0])
    8
    """

    def __init__(self, data_file=None, mode="train", test_ratio=0.1, rand_seed=0, download=True):
        name = type(self).__name__
        self.mode = _mode(name, mode)
        if isinstance(test_ratio, bool) or not isinstance(test_ratio, (int, float)) or not 0 <= test_ratio <= 1:
            raise ValueError(f"{name}: argument 'test_ratio' expected a number in [0, 1], got {test_ratio!r}")
        self.test_ratio = float(test_ratio)
        self.rand_seed = rand_seed
        self.data_file = resolve(name, "data_file", data_file, download, "sentiment", URL)
        try:
            self._rng = np.random.RandomState(rand_seed)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{name}: argument 'rand_seed' expected a seed for NumPy, got {rand_seed!r}: "
                             f"{error}") from None
        with open_zip(name, self.data_file) as package:
            self._load_meta_info(package)
            self._load_data(package)

    def _fields(self, line: str, count: int, member: str) -> list:
        return _fields(type(self).__name__, self.data_file, line, count, member)

    def _load_meta_info(self, package) -> None:
        (self.movie_info, self.user_info, self.movie_title_dict,
         self.categories_dict) = read_meta_info(type(self).__name__, self.data_file, package)

    def _load_data(self, package) -> None:
        name = type(self).__name__
        lines = [line for line in zip_lines(name, package, self.data_file, "ml-1m/ratings.dat") if line.strip()]
        draws = self._rng.random_sample(len(lines))
        is_test = self.mode == "test"
        self.data = []
        for line, draw in zip(lines, draws):
            if (draw < self.test_ratio) != is_test:
                continue
            uid, movie_id, rating, _ = self._fields(line, 4, "ml-1m/ratings.dat")
            try:
                user, movie = self.user_info[int(uid)], self.movie_info[int(movie_id)]
            except KeyError as error:
                raise ValueError(f"{name}: a rating in {self.data_file!r} names an unknown user or movie "
                                 f"{error}: {line!r}") from None
            self.data.append(user.value() + movie.value(self.categories_dict, self.movie_title_dict)
                             + [[float(rating) * 2 - 5.0]])

    def __getitem__(self, idx):
        *ids, rating = self.data[idx]
        return (*(np.array(d, dtype=np.int64) for d in ids), np.array(rating, dtype=np.float64))

    def __len__(self):
        return len(self.data)


__all__ = ["Movielens"]
