"""Reading samples: the fetchers that turn indices into collated batches (in
the main process or a worker) and the worker processes of a DataLoader."""
from __future__ import annotations


class WorkerInfo:
    """What :func:`get_worker_info` tells code running in a DataLoader worker:
    ``id`` (0 .. num_workers - 1), ``num_workers``, ``dataset`` (this worker's
    copy) and ``seed`` (this worker's random seed)."""

    def __init__(self, id, num_workers, dataset, seed):
        self.id = id
        self.num_workers = num_workers
        self.dataset = dataset
        self.seed = seed

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed})"


_WORKER_INFO = [None]


def get_worker_info():
    """In a DataLoader worker process, its :class:`WorkerInfo`; None in the main
    process. An IterableDataset shards its stream with it:

    >>> info = eager.io.get_worker_info()
    >>> start = 0 if info is None else info.id
    """
    return _WORKER_INFO[0]


class MapFetcher:
    """Reads the samples at a list of indices and collates them."""

    def __init__(self, dataset, auto_collate, collate_fn):
        self.dataset = dataset
        self.auto_collate = auto_collate
        self.collate_fn = collate_fn
        self.current = None  # the index being read, for error messages

    def fetch(self, indices):
        if not self.auto_collate:
            self.current = indices
            return self.collate_fn(self.dataset[indices])
        samples = []
        for index in indices:
            self.current = index
            samples.append(self.dataset[index])
        self.current = list(indices)
        return self.collate_fn(samples)


class IterableFetcher:
    """Reads the next ``batch_size`` samples of an iterable dataset and collates
    them; raises StopIteration when the stream is done."""

    def __init__(self, dataset, auto_collate, collate_fn, batch_size, drop_last):
        self.dataset = dataset
        self.iterator = iter(dataset)
        self.auto_collate = auto_collate
        self.collate_fn = collate_fn
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.produced = 0  # samples read so far from the stream
        self.current = None

    def fetch(self, _indices):
        if not self.auto_collate:
            self.current = f"#{self.produced} of its stream"
            sample = next(self.iterator)
            self.produced += 1
            return self.collate_fn(sample)
        samples = []
        while len(samples) < self.batch_size:
            self.current = f"#{self.produced} of its stream"
            try:
                sample = next(self.iterator)
            except StopIteration:
                break
            self.produced += 1
            samples.append(sample)
        if not samples or (self.drop_last and len(samples) < self.batch_size):
            raise StopIteration
        self.current = f"#{self.produced - len(samples)}..#{self.produced - 1} of its stream"
        return self.collate_fn(samples)


def make_fetcher(loader):
    if loader.dataset_kind_iterable:
        return IterableFetcher(loader.dataset, loader.auto_collate, loader.collate_fn, loader.batch_size,
                               loader.drop_last)
    return MapFetcher(loader.dataset, loader.auto_collate, loader.collate_fn)


__all__ = ["WorkerInfo", "get_worker_info"]
