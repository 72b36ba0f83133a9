"""Paddle's legacy generator loader: ``paddle.base.io.DataLoader.from_generator``
(``DygraphGeneratorLoader`` in dynamic mode) and ``PyReader``.

A loader made by ``from_generator(capacity=...)`` reads batches from a Python
generator set with ``set_sample_generator`` (samples, batched here),
``set_sample_list_generator`` (lists of samples) or ``set_batch_generator``
(batches). Each iteration (``for batch in loader():`` or ``for batch in
loader:``) starts the generator anew and yields each batch as a list of
Tensors, one per field, on the loader's place.

How it reads
------------
As in Paddle, a producer reads the generator ahead of the consumer into a queue
of ``capacity`` batches: a thread of this process, or with
``use_multiprocess=True`` a forked child process (the generator need not be
picklable; NumPy's random state is inherited, not reseeded, so a seeded
generator yields the same data in both modes; where the platform cannot fork,
a thread reads instead, with a warning, as Paddle on macOS and Windows). Each
field of a batch becomes a NumPy array in the producer (Tensors are copied to
host, lists become arrays); the Tensors are made in the main process. An
exception in the generator stops the producer and is raised again, with its
type, from the next ``next()`` of the loader (Paddle logs it and raises
SystemError "Blocking queue is killed"). With a child process, a batch that has
not come within ``QUEUE_GET_TIMEOUT`` seconds (60, Paddle's) stops the
iteration with a RuntimeError. A ``break`` out of the loop, a new iteration
and garbage collection stop the producer.
"""
from __future__ import annotations

import multiprocessing
import numbers
import os
import queue
import signal
import threading
import time
import warnings

import numpy as np

from phi.common import convert_place

from ..arguments import to_bool
from ..batch_reader import batch as _batch
from ..creation import to_tensor
from ..tensor import Tensor
from .batch_iterator import BatchIterator
from .collate import to_tensors
from . import worker as _worker

# Paddle's limit on the wait for a batch from the producer process (seconds).
QUEUE_GET_TIMEOUT = 60
_POLL_S = 0.2  # how often a waiting side checks that the other is still there

_PINNED = [None]  # use_pinned_memory(): accepted and stored, no effect (no pinned copies here)
_KEEP_ORDER = [True]  # keep_data_loader_order(): batches always come in order here


def use_pinned_memory(*args):
    """Paddle's switch for pinned host copies of batches: with no argument, the
    setting (None until set); with a bool, sets it. Eager makes no pinned copies,
    so it has no effect."""
    return _flag(_PINNED, "use_pinned_memory", args)


def keep_data_loader_order(*args):
    """Paddle's switch for in-order multi-device batches: with no argument, the
    setting (True); with a bool, sets it. The loaders here always keep order."""
    return _flag(_KEEP_ORDER, "keep_data_loader_order", args)


def _flag(cell, name, args):
    if not args:
        return cell[0]
    if len(args) != 1 or not isinstance(args[0], bool):
        raise TypeError(f"{name}: expected no argument or one bool, got {args!r}")
    cell[0] = args[0]
    return None


class _End:
    """The producer's word that the generator is done."""


def _describe_batch(batch) -> str:
    return f"{type(batch).__name__} {batch!r:.60}"


def batch_to_arrays(batch, keep_tensors: bool = False) -> list:
    """One batch of the generator as a list of NumPy arrays, one per field (what
    Paddle's producer puts on its queue): Tensors copied to host (or, with
    ``keep_tensors``, for the reader thread, kept: the consumer copies them where
    they are, so a device Tensor is not read back), anything else through
    ``np.asarray``. A batch must be an iterable of fields."""
    if batch is None or isinstance(batch, (str, bytes, dict)) or not hasattr(batch, "__iter__"):
        # ValueError as Paddle's conversion of a batch (None) in its reader process
        raise ValueError(f"DataLoader.from_generator: a batch must be a list or tuple of fields (arrays, Tensors, "
                         f"numbers or nested lists), got {_describe_batch(batch)}")
    fields = []
    for i, item in enumerate(batch):
        if isinstance(item, Tensor):
            fields.append(item if keep_tensors else item.numpy().copy())
            continue
        try:
            array = np.asarray(item)
        except ValueError as error:  # NumPy refuses ragged nested lists
            raise ValueError(f"DataLoader.from_generator: field {i} of a batch is ragged (nested lists of different "
                             f"lengths), so it is not a regular array: {error}") from None
        if array.dtype == np.object_:
            raise TypeError(f"DataLoader.from_generator: field {i} of a batch could not be made a regular array "
                            f"(got {_describe_batch(item)}): usually nested lists of different lengths; check the "
                            f"generator given to set_batch_generator")
        fields.append(array)
    return fields


class _ReaderProcessError(_worker.WorkerError):
    """An exception of the generator in the reader process of ``use_multiprocess=True``."""

    def source(self) -> str:
        return "the DataLoader.from_generator reader process"


class _ThreadFailure:
    """An exception of the generator in the reader thread: the object itself is handed over."""

    def __init__(self, exc: BaseException):
        self.exc = exc

    def reraise(self):
        raise self.exc


def _put(q, item, stop) -> bool:
    """Puts ``item`` on the bounded queue, giving up (False) once ``stop`` is set."""
    while stop is None or not stop.is_set():
        try:
            q.put(item, timeout=_POLL_S)
            return True
        except queue.Full:
            continue
    return False


def _thread_loop(batch_reader, data_queue, stop):
    try:
        for batch in batch_reader():
            if not _put(data_queue, batch_to_arrays(batch, keep_tensors=True), stop):
                return
        _put(data_queue, _End(), stop)
    except BaseException as exc:  # noqa: B036  handed to the consumer, which raises it
        _put(data_queue, _ThreadFailure(exc), stop)


def _reader_process_loop(batch_reader, data_queue):
    """The producer process of ``use_multiprocess=True`` (Paddle's function of this
    name): puts each batch as a list of arrays on ``data_queue``, then None. An
    exception of the generator is put on the queue for the consumer, then raised."""
    try:
        for batch in batch_reader():
            data_queue.put(batch_to_arrays(batch))
        data_queue.put(None)
    except KeyboardInterrupt:  # the main process handles Ctrl-C
        pass
    except Exception as exc:
        data_queue.put(_ReaderProcessError(0, "running the generator", exc))
        raise


def _process_main(batch_reader, data_queue, parent_pid):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker._reset_in_child()
    try:
        _reader_process_loop(batch_reader, data_queue)
    except Exception:
        pass  # already on the queue: the consumer raises it with this traceback
    # Flush what is queued before leaving, unless the consumer is gone.
    if os.getppid() != parent_pid:
        data_queue.cancel_join_thread()
    data_queue.close()


class _Run:
    """One iteration's producer (a thread or a process) and its queue."""

    def __init__(self, loader):
        self.ended = False
        self.stop = None
        self.process = None
        if loader._use_multiprocess:
            _worker.check_can_start_workers(1)
            context = multiprocessing.get_context(_worker.START_METHOD)
            self.queue = context.Queue(loader._capacity)
            self.process = context.Process(target=_process_main, name="DataLoader.from_generator reader",
                                           args=(loader._batch_reader, self.queue, os.getpid()), daemon=True)
            self.process.start()
        else:
            self.queue = queue.Queue(loader._capacity)
            self.stop = threading.Event()
            self.thread = threading.Thread(target=_thread_loop, name="DataLoader.from_generator reader",
                                           args=(loader._batch_reader, self.queue, self.stop), daemon=True)
            self.thread.start()

    def get(self, timeout: float):
        """The next item of the producer (waiting at most ``timeout`` s for a process)."""
        if self.process is None:
            while True:
                try:
                    return self.queue.get(timeout=_POLL_S)
                except queue.Empty:
                    if not self.thread.is_alive() and self.queue.empty():
                        raise RuntimeError("DataLoader.from_generator: the reader thread ended without a batch "
                                           "or an end mark") from None
        deadline = time.monotonic() + timeout
        while True:
            wait = min(_POLL_S, deadline - time.monotonic())
            if wait <= 0:
                self.close()
                raise RuntimeError(f"DataLoader.from_generator: the reader process gave no batch within "
                                   f"{timeout:g} s (QUEUE_GET_TIMEOUT); it was stopped")
            try:
                return self.queue.get(timeout=wait)
            except queue.Empty:
                pass
            if not self.process.is_alive():
                try:  # it may have put its last item just before it ended
                    return self.queue.get(timeout=_POLL_S)
                except queue.Empty:
                    code = self.process.exitcode
                    self.close()
                    raise RuntimeError(f"DataLoader.from_generator: the reader process (pid {self.process.pid}) "
                                       f"exited with code {code} without finishing the batches") from None

    def close(self):
        self.ended = True
        if self.process is None:
            self.stop.set()
            return
        if self.process.is_alive():
            self.process.terminate()
        self.process.join(2.0)
        self.queue.cancel_join_thread()
        self.queue.close()


class DygraphGeneratorLoader(BatchIterator):
    """The loader :meth:`DataLoader.from_generator` makes (Paddle's class of this
    name): set a data source, then iterate.

    >>> loader = eager.base.io.DataLoader.from_generator(capacity=2, return_list=True)
    >>> def samples():
    ...     for i in range(4):
    ...         yield np.full([3], i, "float32"), np.array([i])
    >>> loader = loader.set_sample_generator(samples, batch_size=2)
    >>> [[x.shape for x in batch] for batch in loader()]
    [[[2, 3], [2, 1]], [[2, 3], [2, 1]]]
    """

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True, return_list=True,
                 use_multiprocess=False):
        if not capacity:  # Paddle's own test: ValueError for no capacity (None or 0)
            raise ValueError("Please give value to capacity. (DataLoader.from_generator: argument 'capacity', the "
                             "number of batches read ahead, expected a positive int)")
        if not isinstance(capacity, numbers.Integral) or isinstance(capacity, bool):
            raise TypeError(f"DataLoader.from_generator: argument 'capacity' expected a positive int, "
                            f"got {type(capacity).__name__} {capacity!r}")
        if capacity < 0:
            raise ValueError(f"DataLoader.from_generator: argument 'capacity' expected a positive int, got {capacity}")
        iterable = to_bool(iterable, "DataLoader.from_generator", "iterable")
        return_list = to_bool(return_list, "DataLoader.from_generator", "return_list")
        self._use_multiprocess = to_bool(use_multiprocess, "DataLoader.from_generator", "use_multiprocess")
        if self._use_multiprocess and _worker.START_METHOD != "fork":
            # The set_*_generator wrappers are closures, which a spawned process cannot
            # unpickle: read in a thread, as Paddle does on macOS and Windows.
            warnings.warn("NOTE: DygraphGeneratorLoader with multiprocess mode needs the fork start method "
                          f"(this platform uses {_worker.START_METHOD!r}); reading in a thread instead.")
            self._use_multiprocess = False
        self._feed_list = feed_list
        self._capacity = int(capacity)
        # no effect: the queue already reads ahead
        self._use_double_buffer = to_bool(use_double_buffer, "DataLoader.from_generator", "use_double_buffer")
        if not iterable:
            warnings.warn("Please NOTE: DygraphGeneratorLoader supports iterable mode only. Change to iterable mode.")
        self._iterable = True
        if not return_list:
            warnings.warn("Please NOTE: DygraphGeneratorLoader supports returning as list only. "
                          "Change to return as list.")
        self._return_list = True
        self._timeout = QUEUE_GET_TIMEOUT
        self._batch_reader = None
        self._places = None
        self._place = None
        self._run = None

    @property
    def iterable(self):
        """Always True in dynamic mode (``iterable=False`` is changed to True, with a warning, as Paddle)."""
        return self._iterable

    def __call__(self):
        return self

    def __iter__(self):
        if self._batch_reader is None:
            raise RuntimeError("DataLoader.from_generator: the data source has not been set: call "
                               "set_sample_generator, set_sample_list_generator or set_batch_generator first")
        self._stop_run()
        self._run = _Run(self)
        return self

    def _next(self):
        run = self._run
        if run is None:
            raise RuntimeError("DataLoader.from_generator: next() before the loader was iterated: loop over it "
                               "(for batch in loader()) or call iter(loader) first")
        if run.ended:
            raise StopIteration
        item = run.get(self._timeout)
        if item is None or isinstance(item, _End):
            self._stop_run()
            raise StopIteration
        if isinstance(item, (_ThreadFailure, _ReaderProcessError)):
            self._stop_run()
            item.reraise()
        # A Tensor the generator yielded (reader thread) is copied, as Paddle copies it into its queue.
        return [to_tensor(field, place=self._place) if isinstance(field, Tensor) else to_tensors(field, self._place)
                for field in item]

    def _stop_run(self):
        # The ended run stays, so next() keeps answering StopIteration until the next iter().
        if self._run is not None and not self._run.ended:
            self._run.close()

    def __del__(self):
        run = getattr(self, "_run", None)
        if run is not None and not run.ended:
            run.close()

    def set_sample_generator(self, reader, batch_size, drop_last=True, places=None):
        """Reads ``reader()``'s samples (tuples of fields) in batches of ``batch_size``
        (the last, shorter one dropped when ``drop_last``); returns the loader."""
        if isinstance(batch_size, float) and batch_size.is_integer():
            batch_size = int(batch_size)  # Paddle int()s it
        if not isinstance(batch_size, numbers.Integral) or isinstance(batch_size, bool):
            raise TypeError(f"DataLoader.set_sample_generator: argument 'batch_size' expected a positive int, "
                            f"got {type(batch_size).__name__} {batch_size!r}")
        if batch_size <= 0:
            raise ValueError(f"DataLoader.set_sample_generator: argument 'batch_size' expected a positive int, "
                             f"got {batch_size}")
        return self.set_sample_list_generator(_batch(reader, int(batch_size), drop_last=drop_last), places=places)

    def set_sample_list_generator(self, reader, places=None):
        """Reads ``reader()``'s lists of samples, each list one batch whose fields are
        stacked position by position; returns the loader."""
        _check_reader(reader, "set_sample_list_generator")

        def batch_reader():
            for samples in reader():
                yield _transpose(samples)

        return self.set_batch_generator(batch_reader, places)

    def set_batch_generator(self, reader, places=None):
        """Reads ``reader()``'s batches (each a list or tuple of fields: arrays,
        Tensors, numbers or nested lists); returns the loader. ``places``: one place,
        or a list holding one (dynamic mode reads to one place)."""
        _check_reader(reader, "set_batch_generator")
        if isinstance(places, (list, tuple)):
            if len(places) != 1:
                raise ValueError(f"DataLoader.set_batch_generator: argument 'places' expected one place (Number of "
                                 f"places must be 1 in imperative mode), got {len(places)}")
            place = places[0]
        else:
            place = places
        try:
            self._place = None if place is None else convert_place(place)
        except (TypeError, ValueError) as error:
            raise TypeError(f"DataLoader.set_batch_generator: argument 'places' expected a place or a list of one "
                            f"place, got {place!r}") from error
        self._places = None if self._place is None else [self._place]
        self._batch_reader = reader
        return self


def _check_reader(reader, method):
    if not callable(reader):
        raise TypeError(f"DataLoader.{method}: argument 'reader' expected a callable that returns an iterable "
                        f"(a generator function), got {type(reader).__name__}")


def _transpose(samples):
    """A list of samples (tuples of fields) as a list of fields (lists of the samples' values)."""
    slots = []
    for n, sample in enumerate(samples):
        if n == 0:
            slots = [[item] for item in sample]
            continue
        items = list(sample)
        if len(items) != len(slots):
            raise ValueError(f"DataLoader.set_sample_list_generator: the samples of a batch differ in length: "
                             f"sample 0 has {len(slots)} fields, sample {n} has {len(items)}")
        for slot, item in zip(slots, items):
            slot.append(item)
    return slots


class DataLoader:
    """Paddle's legacy ``paddle.base.io.DataLoader``: its static constructors.
    (``eager.io.DataLoader`` is the loader of Datasets.)"""

    @staticmethod
    def from_generator(feed_list=None, capacity=None, use_double_buffer=True, iterable=True, return_list=False,
                       use_multiprocess=False, drop_last=True):
        """A :class:`DygraphGeneratorLoader` reading a Python generator through a queue of
        ``capacity`` batches (required), in a thread, or in a child process with
        ``use_multiprocess``. In dynamic mode, as Paddle's, it is always iterable
        and returns lists (``iterable=False`` and ``return_list=False`` warn);
        ``feed_list``, ``use_double_buffer`` and ``drop_last`` (static-graph
        settings) change nothing."""
        return DygraphGeneratorLoader(feed_list, capacity, use_double_buffer, iterable, return_list, use_multiprocess)

    @staticmethod
    def from_dataset(dataset, places, drop_last=True):
        """Paddle reads a ``paddle.distributed.fleet`` Dataset into a static-graph
        program with it; eager has no static graph nor those Datasets."""
        raise RuntimeError("DataLoader.from_dataset reads a paddle.distributed.fleet Dataset in static-graph mode, "
                           "which eager does not have: use eager.io.DataLoader over an eager.io.Dataset")


class PyReader:
    """Paddle's older ``PyReader``: a :meth:`DataLoader.from_generator` loader with
    ``decorate_*`` names for its ``set_*_generator`` methods."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True, return_list=False):
        self._loader = DataLoader.from_generator(feed_list, capacity, use_double_buffer, iterable, return_list)

    @property
    def iterable(self):
        return self._loader.iterable

    def __call__(self):
        return self._loader()

    def __iter__(self):
        return self._loader.__iter__()

    def __next__(self):
        return self._loader.__next__()

    def decorate_sample_generator(self, sample_generator, batch_size, drop_last=True, places=None):
        """As :meth:`DygraphGeneratorLoader.set_sample_generator`."""
        self._loader.set_sample_generator(sample_generator, batch_size, drop_last, places)

    def decorate_sample_list_generator(self, reader, places=None):
        """As :meth:`DygraphGeneratorLoader.set_sample_list_generator`."""
        self._loader.set_sample_list_generator(reader, places)

    def decorate_batch_generator(self, reader, places=None):
        """As :meth:`DygraphGeneratorLoader.set_batch_generator`."""
        self._loader.set_batch_generator(reader, places)


__all__ = ["DataLoader", "DygraphGeneratorLoader", "PyReader", "keep_data_loader_order", "use_pinned_memory"]
