"""UCI Housing (Paddle's ``paddle.text.datasets.UCIHousing``): Boston house prices,
13 normalized features and the price, from ``housing.data``."""
from __future__ import annotations

import numpy as np

from ...framework import get_default_dtype
from ...io.dataset import Dataset
from ._common import mode as _mode
from ._common import resolve

URL = "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data"
feature_names = ["CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX", "PTRATIO", "B", "LSTAT"]
_COLUMNS = len(feature_names) + 1


def load_normalized(fn: str, data_file: str, feature_num: int = _COLUMNS) -> np.ndarray:
    """The rows of ``data_file`` (whitespace-separated numbers, ``feature_num`` a
    row) as a float64 array, every column but the last centred on its mean and
    divided by its range (a constant column becomes 0). ``fn`` names the caller
    in errors.

    >>> load_normalized("UCIHousing", "housing.data").shape[1]
    14
    """
    with open(data_file, "rb") as f:
        words = f.read().split()
    try:
        data = np.array([float(w) for w in words], dtype=np.float64)
    except ValueError as error:
        raise ValueError(f"{fn}: {data_file!r} holds something that is not a number: {error}") from None
    if data.size == 0 or data.size % feature_num:
        raise ValueError(f"{fn}: {data_file!r} holds {data.size} numbers, expected rows of {feature_num}")
    data = data.reshape(-1, feature_num)
    low, high, mean = data.min(axis=0), data.max(axis=0), data.mean(axis=0)
    spread = high - low
    spread[spread == 0] = 1.0  # a constant column becomes 0, not NaN
    data[:, :-1] = (data[:, :-1] - mean[:-1]) / spread[:-1]
    return data


class UCIHousing(Dataset):
    """``(features, price)`` pairs of the UCI Housing data, as Paddle.

    ``data_file``: ``housing.data`` (whitespace-separated numbers, 14 a row); when
    None it is taken from Paddle's cache folder (``~/.cache/paddle/dataset/uci_housing/``);
    this build never downloads, so a missing file is an error saying where to put it.
    Each feature column is centred on its mean and divided by its range (over the
    whole file); the first 80% of rows are ``mode='train'``, the rest ``'test'``.
    An item is ``(features [13], price [1])``, arrays of the default dtype.

    >>> ds = eager.text.datasets.UCIHousing("housing.data", mode="test")
    >>> features, price = ds[0]
    >>> features.shape, price.shape
    ((13,), (1,))
    """

    def __init__(self, data_file=None, mode="train", download=True):
        name = type(self).__name__
        self.mode = _mode(name, mode)
        self.data_file = resolve(name, "data_file", data_file, download, "uci_housing", URL)
        self._load_data()
        self.dtype = get_default_dtype()

    def _load_data(self, feature_num=_COLUMNS, ratio=0.8):
        data = load_normalized(type(self).__name__, self.data_file, feature_num)
        offset = int(data.shape[0] * ratio)
        self.data = data[:offset] if self.mode == "train" else data[offset:]

    def __getitem__(self, idx):
        row = self.data[idx]
        return np.array(row[:-1]).astype(self.dtype), np.array(row[-1:]).astype(self.dtype)

    def __len__(self):
        return len(self.data)


__all__ = ["UCIHousing"]
