"""Paddle's ``paddle.batch``: groups the samples of a reader into lists.

A reader, in Paddle's old data API, is a function without arguments that
returns an iterable of samples. ``batch`` wraps one into a reader of batches.

>>> def digits():
...     return iter(range(5))
>>> [b for b in eager.batch(digits, batch_size=2)()]
[[0, 1], [2, 3], [4]]
"""
from __future__ import annotations

from .arguments import describe, to_int

__all__ = ["batch"]


def batch(reader, batch_size, drop_last=False):
    """Returns a reader whose samples are lists of ``batch_size`` samples of ``reader``, in
    order; the last, shorter list is kept unless ``drop_last`` is True.

    ``reader`` is a callable without arguments that returns an iterable (a generator
    function, for example); ``batch_size`` a positive int (a whole float such as 2.0 too).

    >>> [b for b in eager.batch(lambda: "abcde", 2, drop_last=True)()]
    [['a', 'b'], ['c', 'd']]
    """
    if not callable(reader):
        raise TypeError(f"batch: argument 'reader' expected a callable that returns an iterable of samples, "
                        f"got {describe(reader)}")
    # Paddle int()s batch_size, so a whole float (2.0) or a NumPy int is taken; a
    # fractional one (2.5) or a string is refused rather than truncated or parsed.
    if isinstance(batch_size, float) and batch_size.is_integer():
        batch_size = int(batch_size)
    elif type(batch_size) is not int:
        batch_size = to_int(batch_size, "batch", "batch_size")
    if batch_size <= 0:
        raise ValueError(f"batch: argument 'batch_size' expected a positive int, got {batch_size}")
    if not isinstance(drop_last, bool):
        raise TypeError(f"batch: argument 'drop_last' expected a bool, got {describe(drop_last)}")

    def batch_reader():
        samples = []
        for sample in reader():
            samples.append(sample)
            if len(samples) == batch_size:
                yield samples
                samples = []
        if samples and not drop_last:
            yield samples

    return batch_reader
