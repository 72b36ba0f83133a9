"""Reading samples: the fetchers that turn indices into collated batches (in
the main process or a worker) and the worker processes of a DataLoader.

How ``num_workers > 0`` works
-----------------------------
Each worker is a process with its own index queue; all send to one result
queue. The main process deals the batches' index lists to the workers in turn,
``prefetch_factor`` per worker ahead of what it has handed out, and hands the
results out in the order it dealt them (a reorder buffer), so the batches come
in the order of ``num_workers=0``. A worker reads the samples, collates them to
NumPy and sends them pickled; the main process turns the arrays into Tensors.
An IterableDataset is iterated by every worker on its own copy; each request
gets the next batch of that worker's stream, or word that the stream is done.

Start method: ``fork`` where the platform has it (Linux), else ``spawn``. Fork
starts a worker in milliseconds and needs nothing to be picklable (datasets
and collate functions defined in ``__main__`` or as lambdas work). It is made
safe for what a worker touches here: the child re-creates the locks of eager's
random generators (a thread of the parent could have held one at the fork),
ignores SIGINT (Ctrl-C is handled once, in the main process), reseeds Python's,
NumPy's and eager's generators, and exits when its parent is gone. With
``spawn`` (macOS, Windows) the dataset, collate_fn and worker_init_fn must be
picklable, as in Paddle and PyTorch. ``eager.io.worker.START_METHOD`` can be set
to another multiprocessing start method before a DataLoader is iterated.

Seeds: each iteration of a DataLoader draws a base seed from eager's CPU
generator (also with ``num_workers=0``, so a shuffled order after
``eager.seed(n)`` is the same either way); worker ``i`` is seeded with
``base_seed + i``, so random augmentations differ across workers and repeat
under the same ``eager.seed``. Persistent workers keep the seed they started with.

Shutdown: the workers get a stop message and are joined (terminated if they
do not stop within a couple of seconds) when the data run out, when the
iterator is garbage collected (a ``break`` out of the loop), when a worker
fails, when a batch times out, and at interpreter exit; persistent workers
stay until their DataLoader is collected or the interpreter exits.
"""
from __future__ import annotations

import atexit
import multiprocessing
import os
import pickle
import queue
import random
import signal
import threading
import time
import traceback
import weakref

import numpy as np

from phi.core import generator as _phi_generator

from .batch_iterator import BatchIterator
from .collate import to_host

# multiprocessing start method for the workers (see the module docstring).
START_METHOD = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
_POLL_S = 0.2  # how often a waiting process checks that its peers are alive
_JOIN_S = 2.0  # how long workers get to stop before they are terminated


class WorkerInfo:
    """What :func:`get_worker_info` tells code running in a DataLoader worker:
    ``id`` (0 .. num_workers - 1), ``num_workers``, ``dataset`` (this worker's
    copy) and ``seed`` (this worker's random seed).

    >>> def worker_init_fn(worker_id):
    ...     info = eager.io.get_worker_info()     # a WorkerInfo in a worker
    ...     print(info.id == worker_id, info.num_workers)
    """

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
        self.current = None  # what is being done, for error messages

    def fetch(self, indices):
        if not self.auto_collate:
            self.current = f"reading sample index {indices}"
            return self.collate_fn(self.dataset[indices])
        self.current = "taking the batch sampler's list of indices"
        try:
            if isinstance(indices, (str, bytes)):
                raise TypeError
            indices = list(indices)
        except TypeError:  # not iterable (a 0-d array or Tensor has __iter__ but raises)
            raise TypeError(f"DataLoader: argument 'batch_sampler' must yield lists of sample indices, it yielded "
                            f"{type(indices).__name__} {indices!r:.60}") from None
        samples = []
        for index in indices:
            self.current = f"reading sample index {index}"
            samples.append(self.dataset[index])
        self.current = f"collating the samples at indices {indices}"
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
            self.current = f"reading sample #{self.produced} of its stream"
            sample = next(self.iterator)
            self.produced += 1
            return self.collate_fn(sample)
        samples = []
        while len(samples) < self.batch_size:
            self.current = f"reading sample #{self.produced} of its stream"
            try:
                sample = next(self.iterator)
            except StopIteration:
                break
            self.produced += 1
            samples.append(sample)
        if not samples or (self.drop_last and len(samples) < self.batch_size):
            raise StopIteration
        self.current = f"collating samples #{self.produced - len(samples)}..#{self.produced - 1} of its stream"
        return self.collate_fn(samples)


def make_fetcher(loader):
    if loader.dataset_kind_iterable:
        return IterableFetcher(loader.dataset, loader.auto_collate, loader.collate_fn, loader.batch_size,
                               loader.drop_last)
    return MapFetcher(loader.dataset, loader.auto_collate, loader.collate_fn)


class _Spec:
    """What a worker needs of its DataLoader (picklable for spawn, unlike the loader)."""

    def __init__(self, loader):
        self.dataset = loader.dataset
        self.dataset_kind_iterable = loader.dataset_kind_iterable
        self.auto_collate = loader.auto_collate
        self.collate_fn = loader.collate_fn
        self.batch_size = loader.batch_size
        self.drop_last = loader.drop_last
        self.worker_init_fn = loader.worker_init_fn


class _End:
    """A worker's answer once its IterableDataset stream is done."""


class _Message(str):
    """An error message that prints as itself (KeyError would show its repr)."""

    def __repr__(self):
        return str(self)


class WorkerError:
    """An exception raised in a worker, carried to the main process."""

    def __init__(self, worker_id: int, doing: str, exc: BaseException):
        self.worker_id = worker_id
        self.doing = doing
        self.type_name = type(exc).__qualname__
        try:
            self.exc_type = pickle.loads(pickle.dumps(type(exc)))
        except Exception:  # a class the main process could not find (defined in a function)
            self.exc_type = None
        self.message = str(exc)
        self.traceback = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))

    def source(self) -> str:
        """Who raised it, as the message names it."""
        return f"DataLoader worker {self.worker_id}"

    def reraise(self):
        text = _Message(f"{self.source()} raised {self.type_name} while {self.doing}: "
                        f"{self.message}\n\nTraceback in {self.source()}:\n{self.traceback}")
        error = None
        if self.exc_type is not None:
            try:
                error = self.exc_type(text)
            except Exception:
                error = None
        if not isinstance(error, BaseException):
            error = RuntimeError(text)
        raise error


def _reset_in_child():
    """After a fork: locks a parent's thread may have held are made anew."""
    _phi_generator._REGISTRY_LOCK = threading.Lock()
    for gen in list(_phi_generator._GENERATORS.values()):
        gen._lock = threading.Lock()


def _seed_worker(seed: int):
    random.seed(seed)
    np.random.seed(seed % 2 ** 32)
    _phi_generator.seed_all(seed % 2 ** 64)


def _worker_loop(spec, index_queue, result_queue, done_event, worker_id, num_workers, seed, parent_pid):
    """A worker's life: answer (epoch, batch number, indices) requests until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _reset_in_child()
    _seed_worker(seed)
    _WORKER_INFO[0] = WorkerInfo(worker_id, num_workers, spec.dataset, seed)
    failure, fetcher = None, None
    try:
        if spec.worker_init_fn is not None:
            spec.worker_init_fn(worker_id)
    except Exception as exc:
        failure = WorkerError(worker_id, "running worker_init_fn", exc)
    epoch, ended = None, False
    while True:
        try:
            task = index_queue.get(timeout=_POLL_S)
        except queue.Empty:
            if os.getppid() != parent_pid:  # the main process is gone
                break
            continue
        if task is None:
            break
        if done_event.is_set():
            continue
        task_epoch, number, indices = task
        if task_epoch != epoch or (fetcher is None and failure is None):
            epoch, ended = task_epoch, False
            if failure is None:
                try:
                    fetcher = make_fetcher(spec)  # an IterableDataset starts its stream anew each epoch
                except Exception as exc:
                    failure = WorkerError(worker_id, "starting to iterate the dataset", exc)
        if failure is not None:
            result = failure
        elif ended:
            result = _End()
        else:
            try:
                result = to_host(fetcher.fetch(indices))
            except StopIteration:
                ended, result = True, _End()
            except Exception as exc:
                result = WorkerError(worker_id, fetcher.current, exc)
        try:
            payload = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            payload = pickle.dumps(WorkerError(worker_id, f"sending the batch made from {fetcher.current}", exc))
        result_queue.put((task_epoch, number, payload))
    # Leave without waiting for unread results to be flushed (nobody reads them).
    result_queue.cancel_join_thread()
    result_queue.close()


_LIVE_POOLS = weakref.WeakSet()


def check_can_start_workers(num_workers: int) -> None:
    """Worker processes are children of this process, and a daemonic process
    (a ``multiprocessing.Pool`` worker, say) may not have children: say so
    before anything starts, instead of multiprocessing's bare assertion."""
    if multiprocessing.current_process().daemon:
        raise RuntimeError(f"DataLoader: num_workers={num_workers} starts worker processes, but this code runs in "
                           f"a daemonic process ({multiprocessing.current_process().name}, e.g. a "
                           f"multiprocessing.Pool worker), which may not start children; use num_workers=0 there, "
                           f"or iterate the DataLoader from a non-daemonic process")


def _shutdown_all():
    for pool in list(_LIVE_POOLS):
        pool.shutdown()


atexit.register(_shutdown_all)


class WorkerPool:
    """The worker processes of one DataLoader iteration (or of a persistent loader)."""

    def __init__(self, loader, base_seed: int):
        context = multiprocessing.get_context(START_METHOD)
        spec = _Spec(loader)
        self.num_workers = loader.num_workers
        self.result_queue = context.Queue()
        self.done_event = context.Event()
        self.index_queues, self.workers = [], []
        self.epoch = 0
        self.closed = False
        self.owner_pid = os.getpid()  # a forked child holds a copy it must not shut down
        _LIVE_POOLS.add(self)
        try:
            for worker_id in range(self.num_workers):
                index_queue = context.Queue()
                index_queue.cancel_join_thread()
                process = context.Process(
                    target=_worker_loop, name=f"DataLoader worker {worker_id}", daemon=True,
                    args=(spec, index_queue, self.result_queue, self.done_event, worker_id, self.num_workers,
                          (base_seed + worker_id) % 2 ** 64, os.getpid()))
                process.start()
                self.index_queues.append(index_queue)
                self.workers.append(process)
        except BaseException:
            self.shutdown(force=True)
            raise

    def check_alive(self):
        for worker_id, process in enumerate(self.workers):
            if not process.is_alive():
                code = process.exitcode
                how = f"was killed by signal {signal.Signals(-code).name}" if code is not None and code < 0 and \
                    -code in signal.valid_signals() else f"exited with code {code}"
                self.shutdown(force=True)
                raise RuntimeError(f"DataLoader worker {worker_id} (pid {process.pid}) {how} unexpectedly")

    def shutdown(self, force: bool = False):
        if self.closed or os.getpid() != self.owner_pid:
            return
        self.closed = True
        _LIVE_POOLS.discard(self)
        try:
            self.done_event.set()
        except Exception:
            pass
        for index_queue in self.index_queues:
            try:
                index_queue.put(None)
            except Exception:
                pass
        deadline = time.monotonic() + (0.0 if force else _JOIN_S)
        for process in self.workers:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.terminate()
                process.join(_JOIN_S)
            if process.is_alive():
                process.kill()
                process.join()
        for q in self.index_queues + [self.result_queue]:
            q.cancel_join_thread()
            q.close()

    def __del__(self):
        if hasattr(self, "closed"):
            self.shutdown()


class MultiProcessIter(BatchIterator):
    """Iterates a DataLoader with worker processes, in the order of num_workers=0."""

    def __init__(self, loader, base_seed: int):
        self._loader = loader
        self._persistent = loader.persistent_workers
        if self._persistent:
            if loader._pool is None or loader._pool.closed:
                loader._pool = WorkerPool(loader, base_seed)
            self._pool = loader._pool
        else:
            self._pool = WorkerPool(loader, base_seed)
        self._pool.epoch += 1
        self._epoch = self._pool.epoch
        n = self._pool.num_workers
        if loader.batch_sampler is not None:
            self._indices = iter(loader.batch_sampler)
        else:
            self._indices = None if loader.dataset_kind_iterable else iter(range(len(loader.dataset)))
        self._sent = self._received = 0
        self._worker_of = {}  # batch number -> worker
        self._ready = {}      # batch number -> result, received ahead of its turn
        self._active = [True] * n
        self._next_worker = 0
        self._exhausted = False
        self._finished = False
        for _ in range(loader.prefetch_factor * n):
            self._request()

    def __len__(self):
        return len(self._loader)

    def _request(self):
        """Deals the next batch's indices (or, for a stream, a request) to the next live worker."""
        if self._exhausted:
            return
        if self._indices is None:
            indices = None
        else:
            try:
                indices = next(self._indices)
            except StopIteration:
                self._exhausted = True
                return
        n = len(self._active)
        for _ in range(n):
            worker_id = self._next_worker
            self._next_worker = (worker_id + 1) % n
            if self._active[worker_id]:
                break
        else:
            self._exhausted = True
            return
        self._pool.index_queues[worker_id].put((self._epoch, self._sent, indices))
        self._worker_of[self._sent] = worker_id
        self._sent += 1

    def _next(self):
        if self._finished:
            raise StopIteration
        if self._pool.epoch != self._epoch:
            raise RuntimeError("DataLoader: a newer iterator of this DataLoader has taken over its persistent workers")
        while True:
            if self._received == self._sent:
                self._finish()
                raise StopIteration
            if self._received in self._ready:
                result = self._ready.pop(self._received)
                worker_id = self._worker_of.pop(self._received)
                self._received += 1
                if isinstance(result, _End):
                    self._active[worker_id] = False
                    continue
                if isinstance(result, WorkerError):
                    self._finish(failed=True)
                    result.reraise()
                self._request()
                return self._loader._finish(result)
            epoch, number, payload = self._get()
            if epoch == self._epoch:
                self._ready[number] = pickle.loads(payload)

    def _get(self):
        timeout = self._loader.timeout
        deadline = None if timeout == 0 else time.monotonic() + timeout
        while True:
            wait = _POLL_S if deadline is None else min(_POLL_S, deadline - time.monotonic())
            if wait <= 0:
                worker_id = self._worker_of[self._received]
                self._finish(failed=True)
                raise RuntimeError(f"DataLoader: worker {worker_id} gave no batch within timeout={timeout:g} s "
                                   f"(waiting for batch {self._received} of this epoch); it was stopped")
            try:
                return self._pool.result_queue.get(timeout=wait)
            except queue.Empty:
                pass
            try:
                self._pool.check_alive()
            except RuntimeError:
                self._finish(failed=True)
                raise

    def _finish(self, failed: bool = False):
        self._finished = True
        if not self._persistent or failed:
            self._pool.shutdown(force=failed)
            if self._persistent:
                self._loader._pool = None

    def __del__(self):
        # (getattr: __init__ may have failed before these were set)
        if not getattr(self, "_finished", True) and not self._persistent:
            self._pool.shutdown()


__all__ = ["WorkerInfo", "get_worker_info"]
