"""``eager.io.DataLoader`` (Paddle's ``paddle.io.DataLoader``).

This package is also Paddle's ``paddle.io.dataloader``: its submodules carry
Paddle's file names (``dataset``, ``sampler``, ``batch_sampler``, ``collate``,
``worker``) and re-export eager.io's objects; they load on first use.
"""
from __future__ import annotations

import importlib
import numbers

import numpy as np

from phi.common import CPUPlace, convert_place
from phi.core.generator import default_generator

from ...arguments import to_bool
from ..batch_iterator import BatchIterator
from ..collate import default_collate_fn, default_convert_fn, to_host, to_tensors
from ..dataset import IterableDataset
from ..sampler import BatchSampler, _check_sized
from .. import worker as _worker


class DataLoader:
    """Iterates over ``dataset`` in batches of eager Tensors.

    A map-style dataset is read in the order of ``batch_sampler`` (by default a
    :class:`BatchSampler` of ``batch_size``, ``shuffle`` and ``drop_last``); an
    :class:`IterableDataset` is read in its own order, ``batch_size`` samples at
    a time. ``collate_fn`` (default :func:`default_collate_fn`) turns a list of
    samples into a batch; NumPy arrays in it become Tensors on ``places``
    (the CPU by default). With ``batch_size=None`` the samples are taken to be
    batches already (no collation). ``return_list=False`` gives dicts keyed by
    the names in ``feed_list`` (without a ``feed_list`` it is ignored, as in
    Paddle's dynamic mode).

    ``num_workers > 0`` reads in that many worker processes (see
    :mod:`eager.io.worker`): ``prefetch_factor`` batches in flight per worker,
    ``worker_init_fn(worker_id)`` run in each worker, ``timeout`` seconds at
    most to wait for a batch (0: no limit), and ``persistent_workers`` to keep
    the workers between epochs. Batches come in the same order as with
    ``num_workers=0``.

    ``use_buffer_reader`` and ``use_shared_memory`` are accepted for Paddle's
    signature and change nothing: with ``num_workers=0`` each batch is read
    when asked for, and workers send batches pickled through pipes.

    >>> x = np.arange(10, dtype="float32").reshape(5, 2); y = np.arange(5)
    >>> loader = eager.io.DataLoader(eager.io.TensorDataset([x, y]), batch_size=2)
    >>> [xb.shape for xb, yb in loader]
    [[2, 2], [2, 2], [1, 2]]
    """

    def __init__(self, dataset, feed_list=None, places=None, return_list=True, batch_sampler=None, batch_size=1,
                 shuffle=False, drop_last=False, collate_fn=None, num_workers=0, use_buffer_reader=True,
                 prefetch_factor=2, use_shared_memory=True, timeout=0, worker_init_fn=None,
                 persistent_workers=False):
        self.dataset = dataset
        self.feed_list = feed_list
        self.return_list = to_bool(return_list, "DataLoader", "return_list")
        # Without a feed_list, return_list=False is ignored, as in Paddle's dynamic mode.
        self._feed_names = None
        if not self.return_list and feed_list:
            self._feed_names = [getattr(v, "name", v) for v in feed_list]
            if not all(isinstance(n, str) for n in self._feed_names):
                raise TypeError("DataLoader: argument 'feed_list' expected names (str) or objects with a .name, "
                                f"got {feed_list!r}")
        self.places = places
        self._place = _first_place(places)
        self.dataset_kind_iterable = isinstance(dataset, IterableDataset)
        if not self.dataset_kind_iterable and not (hasattr(dataset, "__getitem__") and hasattr(dataset, "__len__")):
            raise TypeError(f"DataLoader: argument 'dataset' expected a Dataset (__getitem__ and __len__) or an "
                            f"IterableDataset, got {type(dataset).__name__}")
        if not self.dataset_kind_iterable:
            _check_sized("DataLoader", dataset, "dataset")
        shuffle = to_bool(shuffle, "DataLoader", "shuffle")
        drop_last = to_bool(drop_last, "DataLoader", "drop_last")
        if batch_size is not None:
            if not isinstance(batch_size, numbers.Integral) or isinstance(batch_size, bool) or batch_size <= 0:
                raise _bad_count(batch_size)(f"DataLoader: argument 'batch_size' expected a positive int or None, "
                                             f"got {batch_size!r}")
            batch_size = int(batch_size)
        if self.dataset_kind_iterable:
            if batch_sampler is not None:
                raise ValueError("DataLoader: an IterableDataset is read in its own order; 'batch_sampler' must be None")
            if shuffle:
                raise ValueError("DataLoader: an IterableDataset is read in its own order; 'shuffle' must be False")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or drop_last:
                raise ValueError("DataLoader: with a 'batch_sampler', leave 'batch_size', 'shuffle' and 'drop_last' "
                                 "at their defaults (the batch sampler decides them)")
            if not hasattr(batch_sampler, "__iter__"):
                raise TypeError(f"DataLoader: argument 'batch_sampler' expected an iterable of index lists, "
                                f"got {type(batch_sampler).__name__}")
            batch_size = getattr(batch_sampler, "batch_size", batch_size)
            drop_last = getattr(batch_sampler, "drop_last", drop_last)
        elif batch_size is not None and not self.dataset_kind_iterable:
            batch_sampler = BatchSampler(dataset=dataset, shuffle=shuffle, batch_size=batch_size, drop_last=drop_last)
        self.batch_sampler = batch_sampler
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.auto_collate = batch_size is not None or self.batch_sampler is not None
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"DataLoader: argument 'collate_fn' expected a callable, got {type(collate_fn).__name__}")
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate_fn if self.auto_collate else default_convert_fn)
        if not isinstance(num_workers, numbers.Integral) or isinstance(num_workers, bool) or num_workers < 0:
            raise _bad_count(num_workers)(f"DataLoader: argument 'num_workers' expected an int >= 0, "
                                          f"got {num_workers!r}")
        self.num_workers = int(num_workers)
        if not isinstance(prefetch_factor, numbers.Integral) or isinstance(prefetch_factor, bool) or prefetch_factor <= 0:
            raise _bad_count(prefetch_factor)(f"DataLoader: argument 'prefetch_factor' expected a positive int, "
                                              f"got {prefetch_factor!r}")
        self.prefetch_factor = int(prefetch_factor)
        if not isinstance(timeout, numbers.Real) or isinstance(timeout, bool) or not timeout >= 0:  # NaN too
            raise _bad_count(timeout)(f"DataLoader: argument 'timeout' expected a number of seconds >= 0, "
                                      f"got {timeout!r}")
        self.timeout = float(timeout)
        if worker_init_fn is not None and not callable(worker_init_fn):
            raise TypeError(f"DataLoader: argument 'worker_init_fn' expected a callable, "
                            f"got {type(worker_init_fn).__name__}")
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = to_bool(persistent_workers, "DataLoader", "persistent_workers")
        self.use_buffer_reader = to_bool(use_buffer_reader, "DataLoader", "use_buffer_reader")
        self.use_shared_memory = to_bool(use_shared_memory, "DataLoader", "use_shared_memory")
        self._pool = None  # the persistent workers, once started

    def __len__(self):
        if self.dataset_kind_iterable:
            raise TypeError("DataLoader: len() is not defined for an IterableDataset (its length is unknown)")
        if self.batch_sampler is None:
            return len(self.dataset)
        return len(self.batch_sampler)

    def __iter__(self):
        if self.num_workers > 0:
            _worker.check_can_start_workers(self.num_workers)
        # Drawn in both modes, so a shuffled order after eager.seed(n) is the
        # same with and without workers (the workers are seeded from it).
        base_seed = int(default_generator(CPUPlace()).integers(0, 2 ** 62, []))
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        return _worker.MultiProcessIter(self, base_seed)

    def __del__(self):
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown()

    def __call__(self):
        return self.__iter__()

    def _finish(self, batch):
        """Turns a collated NumPy batch into Tensors (in the main process)."""
        out = to_tensors(batch, self._place)
        if self._feed_names is not None:
            fields = out if isinstance(out, list) else [out]
            if len(fields) != len(self._feed_names):
                raise ValueError(f"DataLoader: a batch has {len(fields)} fields, 'feed_list' names "
                                 f"{len(self._feed_names)}")
            return dict(zip(self._feed_names, fields))
        return out


def _bad_count(value) -> type:
    """The error for a bad count or duration: TypeError when it is not a number
    at all (as Paddle's comparison with 0 raises), ValueError for a bad number."""
    return TypeError if isinstance(value, bool) or not isinstance(value, numbers.Number) else ValueError


def _first_place(places):
    if places is None:
        return None
    if isinstance(places, (list, tuple)):
        if not places:
            return None
        places = places[0]
    try:
        return convert_place(places)
    except Exception as error:
        raise TypeError(f"DataLoader: argument 'places' expected a place or a list of places, got {places!r}") from error


class _SingleProcessIter(BatchIterator):
    """Reads batches in the calling process."""

    def __init__(self, loader):
        self._loader = loader
        self._fetcher = _worker.make_fetcher(loader)
        self._indices = iter(loader.batch_sampler) if loader.batch_sampler is not None else (
            None if loader.dataset_kind_iterable else iter(range(len(loader.dataset))))

    def _next(self):
        if self._indices is None:
            batch = self._fetcher.fetch(None)
        else:
            batch = self._fetcher.fetch(next(self._indices))
        return self._loader._finish(to_host(batch))

    def __len__(self):
        return len(self._loader)


__all__ = ["DataLoader"]


# Paddle's file-named modules of this package (see the docstring).
_PADDLE_FILES = frozenset({"batch_sampler", "collate", "dataset", "sampler", "worker"})


# The names Paddle's paddle.io.dataloader package re-exports from its files; eager.io
# imports this package, so they are looked up there on use.
_PADDLE_REEXPORTS = frozenset({"ChainDataset", "ComposeDataset", "ConcatDataset", "Dataset", "DistributedBatchSampler",
                               "RandomSampler", "Sampler", "SequenceSampler", "Subset", "SubsetRandomSampler",
                               "TensorDataset", "WeightedRandomSampler", "get_worker_info", "random_split"})


def __getattr__(name):
    if name in _PADDLE_FILES:
        return importlib.import_module(f".{name}", __name__)
    if name in _PADDLE_REEXPORTS:
        return getattr(importlib.import_module(__package__.rpartition(".")[0]), name)
    raise AttributeError(f"module 'eager.io.dataloader' has no attribute {name!r}")
