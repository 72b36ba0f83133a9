"""The DataLoader iterators' shared ``__next__``: reading a batch is one profiler span."""
from __future__ import annotations

import time

from ..autograd.op_modes import MODES


class BatchIterator:
    """Base of the DataLoader's iterators: ``__next__`` calls ``_next``, which
    each subclass defines to read one batch, and, while eager.profiler records, reports it as one
    "DataLoader.next" span."""

    def __iter__(self):
        return self

    def __next__(self):
        recorder = MODES.recorder
        if recorder is None:
            return self._next()
        start = time.perf_counter_ns()
        try:
            return self._next()
        finally:
            recorder.add_span("DataLoader.next", "Dataloader", start)

    def next(self):
        """The next batch, as ``next(iterator)``: Paddle's DataLoader iterators keep this
        Python 2 spelling and its tutorials call it (``img, label = loader().next()``)."""
        return self.__next__()
