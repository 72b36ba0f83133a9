"""Datasets (Paddle's ``paddle.io`` datasets): the bases, TensorDataset,
ComposeDataset, ConcatDataset, ChainDataset, Subset and random_split."""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import generated as _generated  # noqa: F401  loads the ops and Tensor's methods (indexing) first
from ..tensor import Tensor
from .sampler import _check_generator, _check_sized, _engine


class Dataset:
    """A map-style dataset: subclasses define ``__getitem__(idx)`` returning one
    sample and ``__len__()``, as in Paddle.

    >>> class Squares(eager.io.Dataset):
    ...     def __getitem__(self, i):
    ...         return np.float32(i * i)
    ...     def __len__(self):
    ...         return 10
    """

    def __getitem__(self, idx):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__ (a Dataset subclass's job)")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__ (a Dataset subclass's job)")


class IterableDataset(Dataset):
    """A stream-style dataset: subclasses define ``__iter__`` yielding samples.

    With ``num_workers > 0`` every DataLoader worker iterates its own copy of the
    dataset, so a dataset that does not shard itself is read once per worker.
    Shard inside ``__iter__`` with :func:`eager.io.get_worker_info`:

    >>> class Range(eager.io.IterableDataset):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         info = eager.io.get_worker_info()
    ...         if info is None:                       # the main process
    ...             return iter(range(self.n))
    ...         return iter(range(info.id, self.n, info.num_workers))
    """

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__ (an IterableDataset subclass's job)")

    def __getitem__(self, idx):
        raise TypeError(f"{type(self).__name__} is an IterableDataset: it is iterated, not indexed")

    def __len__(self):
        raise TypeError(f"{type(self).__name__} is an IterableDataset: it has no len()")


def _first_dim(value):
    shape = value.shape
    return shape[0] if len(shape) else None


class TensorDataset(Dataset):
    """Samples are the rows of ``tensors`` (Tensors or NumPy arrays with the same
    first dimension): ``dataset[i]`` is ``tuple(t[i] for t in tensors)``.

    >>> x = eager.to_tensor(np.arange(6, dtype="float32").reshape(3, 2))
    >>> y = eager.to_tensor(np.array([0, 1, 0]))
    >>> ds = eager.io.TensorDataset([x, y]); len(ds)
    3
    """

    def __init__(self, tensors):
        if not isinstance(tensors, (list, tuple)) or len(tensors) == 0:
            raise TypeError(f"TensorDataset: argument 'tensors' expected a non-empty list of Tensors, "
                            f"got {type(tensors).__name__ if not isinstance(tensors, (list, tuple)) else 'an empty list'}")
        for i, t in enumerate(tensors):
            if not isinstance(t, (Tensor, np.ndarray)):
                raise TypeError(f"TensorDataset: argument 'tensors' expected Tensors, item {i} is "
                                f"{type(t).__name__}")
            if _first_dim(t) is None:
                raise ValueError(f"TensorDataset: argument 'tensors' expected tensors with at least one dimension, "
                                 f"item {i} is 0-d")
        lengths = [_first_dim(t) for t in tensors]
        if len(set(lengths)) != 1:
            raise ValueError(f"TensorDataset: argument 'tensors' expected one first dimension for all, got {lengths}")
        self.tensors = list(tensors)

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return _first_dim(self.tensors[0])


def _as_list(func: str, arg: str, value, expected: str) -> list:
    """An iterable argument as a list; anything else is a TypeError naming func and arg."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{func}: argument '{arg}' expected {expected}, got {type(value).__name__}")
    try:
        return list(value)
    except TypeError:  # a 0-d array has __iter__ but does not iterate
        raise TypeError(f"{func}: argument '{arg}' expected {expected}, got {type(value).__name__}") from None


def _as_fields(sample) -> list:
    return list(sample) if isinstance(sample, (list, tuple)) else [sample]


class ComposeDataset(Dataset):
    """Joins map-style datasets of one length field-wise: ``dataset[i]`` is the
    fields of ``datasets[0][i]``, then of ``datasets[1][i]``, ..., as one tuple.

    >>> a = eager.io.TensorDataset([np.zeros((4, 2))]); b = eager.io.TensorDataset([np.ones((4, 1))])
    >>> len(eager.io.ComposeDataset([a, b])[0])
    2
    """

    def __init__(self, datasets):
        self.datasets = _as_list("ComposeDataset", "datasets", datasets, "a list of map-style datasets")
        if not self.datasets:
            raise ValueError("ComposeDataset: argument 'datasets' expected at least one dataset, got none")
        for i, d in enumerate(self.datasets):
            if isinstance(d, IterableDataset) or not hasattr(d, "__getitem__") or not hasattr(d, "__len__"):
                raise TypeError(f"ComposeDataset: argument 'datasets' expected map-style datasets, item {i} is "
                                f"{type(d).__name__}")
            _check_sized("ComposeDataset", d, f"datasets[{i}]")
        lengths = [len(d) for d in self.datasets]
        if len(set(lengths)) != 1:
            raise ValueError(f"ComposeDataset: argument 'datasets' expected datasets of one length, got {lengths}")

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        fields = []
        for d in self.datasets:
            fields.extend(_as_fields(d[idx]))
        return tuple(fields)


class ChainDataset(IterableDataset):
    """Iterates the iterable datasets one after another.

    >>> chained = eager.io.ChainDataset([stream_a, stream_b])
    """

    def __init__(self, datasets):
        self.datasets = _as_list("ChainDataset", "datasets", datasets, "a list of IterableDatasets")
        for i, d in enumerate(self.datasets):
            if not isinstance(d, IterableDataset):
                raise TypeError(f"ChainDataset: argument 'datasets' expected IterableDatasets, item {i} is "
                                f"{type(d).__name__}")

    def __iter__(self):
        for d in self.datasets:
            yield from d


class ConcatDataset(Dataset):
    """The samples of each map-style dataset in turn: indices ``0..len(datasets[0])-1``
    are the first dataset's, the next ones the second's, ... (Paddle's
    ``paddle.io.ConcatDataset``). A negative index counts from the end;
    ``cumulative_sizes`` holds the running totals of the lengths.

    >>> both = eager.io.ConcatDataset([list("abc"), list("de")])
    >>> len(both), both[3], both[-1], both.cumulative_sizes
    (5, 'd', 'e', [3, 5])
    """

    @staticmethod
    def cumsum(sequence) -> list:
        """The running totals of the lengths of ``sequence``'s datasets (Paddle's helper)."""
        totals, total = [], 0
        for dataset in sequence:
            total += len(dataset)
            totals.append(total)
        return totals

    def __init__(self, datasets):
        if isinstance(datasets, (Dataset, str)) or not hasattr(datasets, "__iter__"):
            raise TypeError(f"ConcatDataset: argument 'datasets' expected a list of datasets, got "
                            f"{type(datasets).__name__}")
        self.datasets = _as_list("ConcatDataset", "datasets", datasets, "a list of datasets")
        if not self.datasets:
            raise ValueError("ConcatDataset: argument 'datasets' expected at least one dataset, got none")
        for i, d in enumerate(self.datasets):
            if isinstance(d, IterableDataset) or not hasattr(d, "__getitem__") or not hasattr(d, "__len__"):
                raise TypeError(f"ConcatDataset: argument 'datasets' expected map-style datasets, item {i} is "
                                f"{type(d).__name__}")
            _check_sized("ConcatDataset", d, f"datasets[{i}]")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if isinstance(idx, (bool, np.bool_)) or not isinstance(idx, (numbers.Integral, np.integer)):
            raise TypeError(f"ConcatDataset: index expected an int, got {type(idx).__name__}")
        n = len(self)
        if not -n <= idx < n:
            raise IndexError(f"ConcatDataset: index {idx} out of range for {n} samples")
        idx = int(idx) + n if idx < 0 else int(idx)
        part = int(np.searchsorted(self.cumulative_sizes, idx, side="right"))
        start = self.cumulative_sizes[part - 1] if part else 0
        return self.datasets[part][idx - start]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``: ``subset[i]`` is ``dataset[indices[i]]``.

    >>> eager.io.Subset(list("abcde"), [4, 0])[0]
    'e'
    """

    def __init__(self, dataset, indices):
        if isinstance(dataset, IterableDataset):
            raise TypeError("Subset: argument 'dataset' expected a map-style dataset, got an IterableDataset")
        if not hasattr(dataset, "__getitem__"):
            raise TypeError(f"Subset: argument 'dataset' expected a map-style dataset (with __getitem__), "
                            f"got {type(dataset).__name__}")
        self.dataset = dataset
        self.indices = _as_list("Subset", "indices", indices, "a sequence of indices")

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def _split_lengths(n: int, lengths) -> list:
    if not isinstance(lengths, (list, tuple)):
        raise TypeError(f"random_split: argument 'lengths' expected a list of ints or fractions, "
                        f"got {lengths!r}")
    # An empty list is a wrong value: it sums to 0, which only an empty dataset has (Paddle's rule).
    for v in lengths:
        if not isinstance(v, numbers.Real) or isinstance(v, bool) or v < 0:
            raise ValueError(f"random_split: argument 'lengths' expected non-negative ints or fractions, got {lengths!r}")
    if all(isinstance(v, numbers.Integral) for v in lengths):
        lengths = [int(v) for v in lengths]
    elif math.isclose(sum(lengths), 1.0) and all(v <= 1 for v in lengths):
        counts = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(counts)):  # the remainder, one each, round robin
            counts[i % len(counts)] += 1
        lengths = counts
    else:
        raise ValueError(f"random_split: argument 'lengths' expected ints summing to len(dataset) or fractions "
                         f"summing to 1, got {lengths!r}")
    if sum(lengths) != n:
        raise ValueError(f"random_split: the lengths {lengths} sum to {sum(lengths)}, expected len(dataset) = {n}")
    return lengths


def random_split(dataset, lengths, generator=None):
    """Splits ``dataset`` into non-overlapping :class:`Subset` s of the given
    ``lengths`` (ints summing to len(dataset), or fractions summing to 1 whose
    rounding remainder is dealt one by one to the first subsets), from one
    random permutation (drawn from eager's generator, so ``eager.seed``
    repeats it, or from ``generator``).

    >>> train, val = eager.io.random_split(range(10), [0.8, 0.2])
    >>> len(train), len(val)
    (8, 2)
    """
    if isinstance(dataset, IterableDataset) or not hasattr(dataset, "__len__"):
        raise TypeError(f"random_split: argument 'dataset' expected a map-style dataset with len(), "
                        f"got {type(dataset).__name__}")
    _check_sized("random_split", dataset, "dataset")
    generator = _check_generator("random_split", generator)
    if generator is not None and not hasattr(generator, "integers") and not hasattr(generator, "engine"):
        raise TypeError("random_split: argument 'generator' expected a Generator, got an iterator")
    lengths = _split_lengths(len(dataset), lengths)
    order = _engine(generator).permutation(len(dataset)).tolist()
    subsets, start = [], 0
    for length in lengths:
        subsets.append(Subset(dataset, order[start:start + length]))
        start += length
    return subsets


__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset", "Subset", "random_split"]
