"""Samplers (Paddle's ``paddle.io`` samplers): what order a DataLoader reads a
map-style dataset in, and how indices are grouped into batches."""
from __future__ import annotations

import math
import numbers

import numpy as np

from phi.common import CPUPlace
from phi.core.generator import Generator, default_generator

from ..arguments import to_bool
from ..distributed.env import get_rank, get_world_size


def _check_positive_int(func: str, arg: str, value) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{func}: argument '{arg}' expected a positive int, got {value!r}")
    return int(value)


def _check_sized(func: str, data_source, arg: str = "data_source"):
    """A data source whose len() is read: refused up front when it has none
    (also a 0-d array or Tensor, which have __len__ but raise)."""
    try:
        len(data_source)
    except TypeError:
        raise TypeError(f"{func}: argument '{arg}' expected a sized dataset or sequence (one with len()), "
                        f"got {type(data_source).__name__}") from None
    return data_source


def _check_generator(func: str, generator):
    """None (eager's CPU generator, which eager.seed seeds), a phi Generator, a
    numpy.random.Generator, or (as Paddle) an iterator that yields the indices."""
    if generator is None or isinstance(generator, (Generator, np.random.Generator)) or hasattr(generator, "__next__"):
        return generator
    raise TypeError(f"{func}: argument 'generator' expected None, an eager/phi Generator, a numpy.random.Generator "
                    f"or an iterator of indices, got {type(generator).__name__}")


def _engine(generator) -> np.random.Generator:
    """The NumPy generator to draw with (the global CPU one follows eager.seed)."""
    if generator is None:
        return default_generator(CPUPlace()).engine
    if isinstance(generator, Generator):
        return generator.engine
    return generator


class Sampler:
    """Base of the samplers: a subclass yields dataset indices from ``__iter__``
    (and may define ``__len__``). ``data_source`` is kept as Paddle does.

    >>> class EvenSampler(eager.io.Sampler):
    ...     def __iter__(self):
    ...         return iter(range(0, len(self.data_source), 2))
    """

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__ (a Sampler subclass's job)")


class SequenceSampler(Sampler):
    """The indices 0, 1, ..., len(data_source) - 1 in order.

    >>> list(eager.io.SequenceSampler(range(4)))
    [0, 1, 2, 3]
    """

    def __init__(self, data_source):
        super().__init__(_check_sized("SequenceSampler", data_source))

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """The indices in random order: a permutation, or with ``replacement=True``
    ``num_samples`` (default len(data_source)) independent uniform draws.

    ``generator`` is None (NumPy's global random state, as Paddle: ``np.random.seed``
    makes the order repeat, and the same seed gives Paddle's order), a Generator,
    or (as Paddle) an iterator yielding the indices.

    >>> import numpy as np
    >>> np.random.seed(0); order = list(eager.io.RandomSampler(range(5)))
    >>> sorted(order)
    [0, 1, 2, 3, 4]
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        super().__init__(_check_sized("RandomSampler", data_source))
        self.replacement = to_bool(replacement, "RandomSampler", "replacement")
        if num_samples is not None:
            if not self.replacement:
                raise ValueError("RandomSampler: argument 'num_samples' can only be given with replacement=True "
                                 f"(a permutation has len(data_source) samples), got {num_samples!r}")
            num_samples = _check_positive_int("RandomSampler", "num_samples", num_samples)
        self._num_samples = num_samples
        self.generator = _check_generator("RandomSampler", generator)

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.generator is not None and not isinstance(self.generator, (Generator, np.random.Generator)):
            for _ in range(self.num_samples):
                try:
                    yield int(next(self.generator))
                except StopIteration:
                    return
            return
        if self.replacement and not n:
            drawn = np.zeros(0, np.int64)
        elif self.generator is None:  # Paddle's very draws, from NumPy's global state
            drawn = np.random.choice(np.arange(n), self.num_samples if self.replacement else n,
                                     replace=self.replacement)
        elif self.replacement:
            drawn = _engine(self.generator).integers(0, n, self.num_samples, dtype=np.int64)
        else:
            drawn = _engine(self.generator).permutation(n)
        yield from drawn.tolist()

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in random order (a new permutation each pass).

    >>> sorted(eager.io.SubsetRandomSampler([5, 1, 9]))
    [1, 5, 9]
    """

    def __init__(self, indices, generator=None):
        try:
            self.indices = list(indices)
        except TypeError:
            raise TypeError(f"SubsetRandomSampler: argument 'indices' expected a sequence of ints, "
                            f"got {type(indices).__name__}") from None
        if len(self.indices) == 0:
            raise ValueError("SubsetRandomSampler: argument 'indices' expected at least one index, got none")
        super().__init__(self.indices)
        if generator is not None and not isinstance(generator, (Generator, np.random.Generator)):
            raise TypeError(f"SubsetRandomSampler: argument 'generator' expected None or a Generator, "
                            f"got {type(generator).__name__}")
        self.generator = generator

    def __iter__(self):
        for position in _engine(self.generator).permutation(len(self.indices)).tolist():
            yield self.indices[position]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probability proportional to ``weights``
    (with replacement by default), from NumPy's global random state as Paddle draws
    them (``np.random.seed`` repeats them).

    >>> list(eager.io.WeightedRandomSampler([0.0, 1.0, 0.0], 3))
    [1, 1, 1]
    """

    def __init__(self, weights, num_samples, replacement=True):
        if hasattr(weights, "numpy"):
            weights = weights.numpy()
        try:
            w = np.asarray(weights, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"WeightedRandomSampler: argument 'weights' expected a 1-D sequence of numbers, "
                            f"got {type(weights).__name__}") from None
        if w.ndim != 1 or w.size == 0:
            raise ValueError(f"WeightedRandomSampler: argument 'weights' expected a non-empty 1-D sequence, "
                             f"got shape {w.shape}")
        if not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
            raise ValueError("WeightedRandomSampler: argument 'weights' expected finite non-negative numbers "
                             f"with a positive sum, got {w.tolist()}")
        self.num_samples = _check_positive_int("WeightedRandomSampler", "num_samples", num_samples)
        self.replacement = to_bool(replacement, "WeightedRandomSampler", "replacement")
        if not self.replacement and self.num_samples > np.count_nonzero(w):
            raise ValueError(f"WeightedRandomSampler: argument 'num_samples' ({self.num_samples}) exceeds the "
                             f"{np.count_nonzero(w)} indices of positive weight, which replacement=False cannot do")
        super().__init__(None)
        self.weights = w

    def __iter__(self):
        p = self.weights / self.weights.sum()
        # NumPy's global random state, as Paddle draws: np.random.seed repeats Paddle's indices
        drawn = np.random.choice(len(p), self.num_samples, self.replacement, p)
        return iter(drawn.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` (or of ``dataset`` in order, or in
    random order with ``shuffle=True``) into lists of ``batch_size``; the last
    shorter list is dropped with ``drop_last=True``. Give exactly one of
    ``dataset`` and ``sampler``.

    >>> list(eager.io.BatchSampler(dataset=range(5), batch_size=2))
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1, drop_last=False):
        if (dataset is None) == (sampler is None):
            raise ValueError("BatchSampler: give exactly one of the arguments 'dataset' and 'sampler', "
                             f"got {'both' if dataset is not None else 'neither'}")
        shuffle = to_bool(shuffle, "BatchSampler", "shuffle")
        if sampler is not None:
            if shuffle:
                raise ValueError("BatchSampler: argument 'shuffle' must be False when a 'sampler' is given "
                                 "(the sampler decides the order)")
            if not hasattr(sampler, "__iter__"):
                raise TypeError(f"BatchSampler: argument 'sampler' expected an iterable of indices, "
                                f"got {type(sampler).__name__}")
        else:
            _check_sized("BatchSampler", dataset, "dataset")
            sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        super().__init__(dataset)
        self.sampler = sampler
        self.shuffle = shuffle
        self.batch_size = _check_positive_int("BatchSampler", "batch_size", batch_size)
        self.drop_last = to_bool(drop_last, "BatchSampler", "drop_last")

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size


class DistributedBatchSampler(BatchSampler):
    """The batches of one rank out of ``num_replicas``: the index list is padded
    (by repeating its start) to a multiple of ``num_replicas``, shuffled with
    ``numpy.random.RandomState(epoch)`` when ``shuffle`` (the same order on every
    rank; call :meth:`set_epoch` each epoch to change it), and dealt out
    ``batch_size`` at a time in turn, so each rank gets ``ceil(len / num_replicas)``
    indices. ``num_replicas``/``rank`` default to the job's world size and this
    process's rank (``eager.distributed.get_world_size()``/``get_rank()``: the
    MPI world under ``mpiexec``, Paddle's ``PADDLE_TRAINERS_NUM``/
    ``PADDLE_TRAINER_ID`` before ``init_parallel_env``; 1 and 0 in a plain run).

    >>> s = eager.io.DistributedBatchSampler(range(5), batch_size=2, num_replicas=2, rank=1)
    >>> list(s)  # rank 0 gets [[0, 1], [4]]; index 0 pads the 5 indices to 6
    [[2, 3], [0]]
    """

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False, drop_last=False):
        _check_sized("DistributedBatchSampler", dataset, "dataset")
        self.dataset = dataset
        self.data_source = dataset
        self.batch_size = _check_positive_int("DistributedBatchSampler", "batch_size", batch_size)
        self.shuffle = to_bool(shuffle, "DistributedBatchSampler", "shuffle")
        self.drop_last = to_bool(drop_last, "DistributedBatchSampler", "drop_last")
        if num_replicas is None:
            num_replicas = get_world_size()
        self.nranks = _check_positive_int("DistributedBatchSampler", "num_replicas", num_replicas)
        if rank is None:
            rank = get_rank()
        if not isinstance(rank, numbers.Integral) or isinstance(rank, bool) or not 0 <= rank < self.nranks:
            raise ValueError(f"DistributedBatchSampler: argument 'rank' expected an int in [0, {self.nranks}), "
                             f"got {rank!r}")
        self.local_rank = int(rank)
        self.epoch = 0
        self.num_samples = int(math.ceil(len(dataset) / self.nranks))
        self.total_size = self.num_samples * self.nranks
        self.sampler = None

    def _local_indices(self) -> list:
        n = len(self.dataset)
        indices = list(range(n))
        while len(indices) < self.total_size:  # pad by wrapping around to the start
            indices += indices[: self.total_size - len(indices)]
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks == 1:
            return indices
        # Deal out whole batches in turn; the tail that cannot fill a batch on
        # every rank is split evenly.
        stride = self.batch_size * self.nranks
        tail = self.total_size % stride
        local = []
        for start in range(self.local_rank * self.batch_size, self.total_size - tail, stride):
            local.extend(indices[start:start + self.batch_size])
        share = tail // self.nranks
        rest = indices[self.total_size - tail:]
        local.extend(rest[self.local_rank * share:(self.local_rank + 1) * share])
        return local

    def __iter__(self):
        local = self._local_indices()
        for start in range(0, len(local), self.batch_size):
            batch = local[start:start + self.batch_size]
            if len(batch) == self.batch_size or not self.drop_last:
                yield batch

    def __len__(self):
        if self.drop_last:
            return self.num_samples // self.batch_size
        return (self.num_samples + self.batch_size - 1) // self.batch_size

    def set_epoch(self, epoch):
        """Sets the epoch that seeds the shuffle (call it before each epoch)."""
        if not isinstance(epoch, numbers.Integral) or isinstance(epoch, bool) or epoch < 0:
            raise ValueError(f"DistributedBatchSampler.set_epoch: argument 'epoch' expected a non-negative int, "
                             f"got {epoch!r}")
        self.epoch = int(epoch)


__all__ = ["Sampler", "SequenceSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler", "DistributedBatchSampler"]
