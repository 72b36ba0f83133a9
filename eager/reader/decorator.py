"""Paddle's legacy reader decorators (``paddle.reader``), still public in Paddle 2.x.

A *reader* is a callable of no arguments that returns an iterable of samples
(a generator function, typically). Each decorator takes readers and returns a
new reader, so they compose and each call of the result starts a fresh pass.

>>> def digits():
...     yield from range(5)
>>> list(firstn(map_readers(lambda x: x * 10, digits), 3)())
[0, 10, 20]
>>> list(chain(firstn(digits, 2), firstn(digits, 1))())
[0, 1, 0]
"""
from __future__ import annotations

import itertools
import multiprocessing
import numbers
import queue
import random
import threading

__all__ = ["ComposeNotAligned", "buffered", "cache", "chain", "compose", "firstn", "map_readers",
           "multiprocess_reader", "shuffle", "xmap_readers"]


class ComposeNotAligned(ValueError):
    """Raised by a :func:`compose` reader whose readers ran out at different lengths."""


def _check_reader(fn: str, arg: str, reader) -> None:
    if not callable(reader):
        raise TypeError(f"{fn}: argument '{arg}' expected a reader (a callable returning an iterable), "
                        f"got {type(reader).__name__}")


def _check_count(fn: str, arg: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{fn}: argument '{arg}' expected an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{fn}: argument '{arg}' expected an int >= {minimum}, got {value}")
    return int(value)


def cache(reader):
    """A reader that reads ``reader`` once, on creation, and then replays the
    samples from memory on every pass.

    >>> replay = cache(lambda: iter([1, 2]))
    >>> list(replay()), list(replay())
    ([1, 2], [1, 2])
    """
    _check_reader("cache", "reader", reader)
    samples = list(reader())

    def cached():
        yield from samples
    return cached


def map_readers(func, *readers):
    """A reader of ``func(a, b, ...)`` over the samples of ``readers`` taken
    side by side; it stops with the shortest reader.

    >>> list(map_readers(lambda a, b: a + b, lambda: [1, 2], lambda: [10, 20, 30])())
    [11, 22]
    """
    if not callable(func):
        raise TypeError(f"map_readers: argument 'func' expected a callable, got {type(func).__name__}")
    for i, reader in enumerate(readers):
        _check_reader("map_readers", f"readers[{i}]", reader)

    def mapped():
        yield from map(func, *(reader() for reader in readers))
    return mapped


def shuffle(reader, buf_size):
    """A reader of the samples of ``reader`` shuffled within windows of
    ``buf_size``: it fills a buffer, shuffles it (Python's ``random``), yields
    it, and goes on; larger buffers mix further.

    >>> sorted(shuffle(lambda: range(5), 2)())
    [0, 1, 2, 3, 4]
    """
    _check_reader("shuffle", "reader", reader)
    buf_size = _check_count("shuffle", "buf_size", buf_size, 1)

    def shuffled():
        buffer = []
        for sample in reader():
            buffer.append(sample)
            if len(buffer) >= buf_size:
                random.shuffle(buffer)
                yield from buffer
                buffer = []
        random.shuffle(buffer)
        yield from buffer
    return shuffled


def chain(*readers):
    """A reader of all the samples of ``readers``, one reader after another.

    >>> list(chain(lambda: [1, 2], lambda: [3])())
    [1, 2, 3]
    """
    for i, reader in enumerate(readers):
        _check_reader("chain", f"readers[{i}]", reader)

    def chained():
        yield from itertools.chain.from_iterable(reader() for reader in readers)
    return chained


def _as_tuple(sample) -> tuple:
    return sample if isinstance(sample, tuple) else (sample,)


def compose(*readers, check_alignment: bool = True):
    """A reader of flat tuples joining the samples of ``readers`` side by side
    (a reader's tuple sample contributes its items, any other sample itself).
    With ``check_alignment`` a pass raises :class:`ComposeNotAligned` when the
    readers do not end together; without it, it stops with the shortest.

    >>> list(compose(lambda: [1, 2], lambda: [(3, 4), (5, 6)])())
    [(1, 3, 4), (2, 5, 6)]
    """
    for i, reader in enumerate(readers):
        _check_reader("compose", f"readers[{i}]", reader)
    if not isinstance(check_alignment, bool):
        raise TypeError(f"compose: argument 'check_alignment' expected a bool, got "
                        f"{type(check_alignment).__name__}")

    def composed():
        iterators = [iter(reader()) for reader in readers]
        if not check_alignment:
            for samples in zip(*iterators):
                yield sum((_as_tuple(s) for s in samples), ())
            return
        end = object()
        for samples in itertools.zip_longest(*iterators, fillvalue=end):
            if any(s is end for s in samples):
                ended = [i for i, s in enumerate(samples) if s is end]
                raise ComposeNotAligned(f"compose: readers {ended} ended before the others; pass "
                                        f"check_alignment=False to stop at the shortest")
            yield sum((_as_tuple(s) for s in samples), ())
    return composed


_END = object()


class _Failure:
    """An exception raised in a producer thread, carried to the consumer."""

    def __init__(self, error: BaseException):
        self.error = error


def buffered(reader, size):
    """A reader that reads ``reader`` ahead in a background thread, keeping up
    to ``size`` samples ready. Samples come in order; an error in ``reader``
    is raised in the consumer.

    >>> list(buffered(lambda: range(3), 2)())
    [0, 1, 2]
    """
    _check_reader("buffered", "reader", reader)
    size = _check_count("buffered", "size", size, 1)

    def produce(samples: queue.Queue, stop: threading.Event):
        try:
            for sample in reader():
                while not stop.is_set():
                    try:
                        samples.put(sample, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            samples.put(_END)
        except BaseException as error:     # handed to the consumer, raised there
            samples.put(_Failure(error))

    def read_ahead():
        samples, stop = queue.Queue(maxsize=size), threading.Event()
        thread = threading.Thread(target=produce, args=(samples, stop), daemon=True)
        thread.start()
        try:
            while True:
                sample = samples.get()
                if sample is _END:
                    return
                if isinstance(sample, _Failure):
                    raise sample.error
                yield sample
        finally:
            stop.set()
    return read_ahead


def firstn(reader, n):
    """A reader of the first ``n`` samples of ``reader``.

    >>> list(firstn(lambda: iter(range(100)), 3)())
    [0, 1, 2]
    """
    _check_reader("firstn", "reader", reader)
    n = _check_count("firstn", "n", n, 0)

    def first():
        yield from itertools.islice(reader(), n)
    return first


def xmap_readers(mapper, reader, process_num, buffer_size, order: bool = False):
    """A reader of ``mapper(sample)`` over ``reader``, mapped by
    ``process_num`` threads with up to ``buffer_size`` samples in flight.
    With ``order`` the results keep the order of the samples; without it they
    come as they are ready.

    >>> list(xmap_readers(lambda x: x * x, lambda: range(5), 2, 4, order=True)())
    [0, 1, 4, 9, 16]
    """
    if not callable(mapper):
        raise TypeError(f"xmap_readers: argument 'mapper' expected a callable, got {type(mapper).__name__}")
    _check_reader("xmap_readers", "reader", reader)
    process_num = _check_count("xmap_readers", "process_num", process_num, 1)
    buffer_size = _check_count("xmap_readers", "buffer_size", buffer_size, 1)
    if not isinstance(order, bool):
        raise TypeError(f"xmap_readers: argument 'order' expected a bool, got {type(order).__name__}")

    def mapped():
        # Threads keep at most buffer_size samples in flight: submit ahead, then one per result taken.
        pool = _ThreadMap(mapper, process_num)
        try:
            pending = []
            samples = iter(reader())
            for sample in itertools.islice(samples, buffer_size):
                pending.append(pool.submit(sample))
            while pending:
                if order:
                    result = pending.pop(0).get()
                else:
                    result = pool.next_done(pending)
                yield result
                for sample in itertools.islice(samples, 1):
                    pending.append(pool.submit(sample))
        finally:
            pool.close()
    return mapped


class _Job:
    """One sample's mapping: its result (or error) once a worker thread is done."""

    def __init__(self, sample, done: queue.Queue):
        self.sample, self.done, self.finished = sample, done, threading.Event()
        self.result = self.error = None

    def run(self, mapper):
        try:
            self.result = mapper(self.sample)
        except BaseException as error:      # raised in the consumer by get()
            self.error = error
        self.finished.set()
        self.done.put(self)

    def get(self):
        self.finished.wait()
        if self.error is not None:
            raise self.error
        return self.result


class _ThreadMap:
    """``process_num`` threads running ``mapper`` over submitted samples."""

    def __init__(self, mapper, threads: int):
        self.mapper, self.jobs, self.done = mapper, queue.Queue(), queue.Queue()
        self.threads = [threading.Thread(target=self._work, daemon=True) for _ in range(threads)]
        for thread in self.threads:
            thread.start()

    def _work(self):
        while True:
            job = self.jobs.get()
            if job is None:
                return
            job.run(self.mapper)

    def submit(self, sample) -> _Job:
        job = _Job(sample, self.done)
        self.jobs.put(job)
        return job

    def next_done(self, pending: list):
        """The result of whichever pending job finishes first (removed from ``pending``)."""
        while True:
            job = self.done.get()
            if job in pending:
                pending.remove(job)
                return job.get()

    def close(self):
        for _ in self.threads:
            self.jobs.put(None)


def _read_into(reader, samples) -> None:
    """A child process's work: every sample of ``reader`` into ``samples``, then the end mark."""
    try:
        for sample in reader():
            if sample is None:  # None would be read as the end of a reader (Paddle refuses it too)
                samples.put(("error", "a reader yielded None, which is not a sample"))
                return
            samples.put(("sample", sample))
        samples.put(("end", None))
    except BaseException as error:        # reported to the parent, raised there
        samples.put(("error", f"{type(error).__name__}: {error}"))


def multiprocess_reader(readers, use_pipe: bool = True, queue_size: int = 1000):
    """A reader of the samples of all ``readers``, each read in its own child
    process (forked, so a reader may be a closure). Samples of one reader keep
    their order; samples of different readers interleave as they arrive.
    Samples travel pickled through a queue of ``queue_size`` (``use_pipe`` is
    accepted for Paddle's signature: both of its transports give the same
    samples). A reader that fails, or yields None, makes the pass raise ValueError.

    >>> sorted(multiprocess_reader([lambda: [1, 2], lambda: [3]])())   # doctest: +SKIP
    [1, 2, 3]
    """
    if not isinstance(readers, (list, tuple)) or not readers:
        raise TypeError(f"multiprocess_reader: argument 'readers' expected a non-empty list of readers, "
                        f"got {readers!r}")
    for i, reader in enumerate(readers):
        _check_reader("multiprocess_reader", f"readers[{i}]", reader)
    if not isinstance(use_pipe, bool):
        raise TypeError(f"multiprocess_reader: argument 'use_pipe' expected a bool, got {type(use_pipe).__name__}")
    queue_size = _check_count("multiprocess_reader", "queue_size", queue_size, 1)

    def read_all():
        context = multiprocessing.get_context("fork")
        samples = context.Queue(queue_size)
        workers = [context.Process(target=_read_into, args=(reader, samples), daemon=True) for reader in readers]
        for worker in workers:
            worker.start()
        try:
            running = len(workers)
            while running:
                kind, value = samples.get()
                if kind == "end":
                    running -= 1
                elif kind == "error":
                    # ValueError, as Paddle's, for any failure of a reader in its process
                    raise ValueError(f"multiprocess_reader: a reader failed in its process: {value}")
                else:
                    yield value
        finally:
            for worker in workers:
                if worker.is_alive():
                    worker.terminate()
                worker.join()
    return read_all
