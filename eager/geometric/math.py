"""Paddle's segment reductions (paddle.geometric.segment_sum / _mean / _max / _min):
the rows of ``data`` reduced by consecutive runs of equal, sorted ``segment_ids``.
The output has max(segment_ids) + 1 rows; a segment id that never occurs gives a
row of zeros. Differentiable in data (max/min: every row equal to its segment's
extremum gets the segment's full gradient, as Paddle).
"""
from __future__ import annotations

import numpy as np

from ..composite import _paddle_api as _check
from . import _args
from ._reduce import reduce_rows


def _segment(op: str, data, segment_ids, reduce_op: str):
    _args.values(op, "data", data)
    ids = _args.index(op, "segment_ids", segment_ids, column=True)
    if ids.shape[0] != data.shape[0]:
        raise ValueError(f"{op}: argument 'segment_ids' expected one id per row of 'data' "
                         f"({data.shape[0]}), got {ids.shape[0]}")
    if ids.size and ids[0] < 0:
        raise IndexError(f"{op}: argument 'segment_ids' holds {ids[0]}, expected ids >= 0")
    unsorted = np.flatnonzero(ids[1:] < ids[:-1])
    if unsorted.size:
        i = int(unsorted[0])
        raise ValueError(f"{op}: argument 'segment_ids' expected sorted ids, got segment_ids[{i}] = {ids[i]} "
                         f"> segment_ids[{i + 1}] = {ids[i + 1]}")
    rows = int(ids[-1]) + 1 if ids.size else 0
    return reduce_rows(data, ids, rows, reduce_op)


@_check.composed
def segment_sum(data, segment_ids, name=None):
    """Row sums of ``data`` per segment: out[i] = sum of data[j] with segment_ids[j] == i.
    ``segment_ids`` is a sorted 1-d int32/int64 tensor with one id per row of data;
    the result has max(segment_ids) + 1 rows (0 where an id does not occur).

    >>> data = eager.to_tensor([[1., 2., 3.], [3., 2., 1.], [4., 5., 6.]])
    >>> eager.geometric.segment_sum(data, eager.to_tensor([0, 0, 1])).numpy()
    array([[4., 4., 4.],
           [4., 5., 6.]], dtype=float32)
    """
    return _segment("segment_sum", data, segment_ids, "sum")


@_check.composed
def segment_mean(data, segment_ids, name=None):
    """Row means of ``data`` per segment (see :func:`segment_sum`; integer data divides
    towards zero; 0 where an id does not occur).

    >>> data = eager.to_tensor([[1., 2., 3.], [3., 2., 1.], [4., 5., 6.]])
    >>> eager.geometric.segment_mean(data, eager.to_tensor([0, 0, 1])).numpy()
    array([[2., 2., 2.],
           [4., 5., 6.]], dtype=float32)
    """
    return _segment("segment_mean", data, segment_ids, "mean")


@_check.composed
def segment_max(data, segment_ids, name=None):
    """Element-wise row maxima of ``data`` per segment (see :func:`segment_sum`; 0 where
    an id does not occur). The gradient goes, in full, to every row equal to the maximum.

    >>> data = eager.to_tensor([[1., 2., 3.], [3., 2., 1.], [4., 5., 6.]])
    >>> eager.geometric.segment_max(data, eager.to_tensor([0, 0, 1])).numpy()
    array([[3., 2., 3.],
           [4., 5., 6.]], dtype=float32)
    """
    return _segment("segment_max", data, segment_ids, "max")


@_check.composed
def segment_min(data, segment_ids, name=None):
    """Element-wise row minima of ``data`` per segment (see :func:`segment_sum`; 0 where
    an id does not occur). The gradient goes, in full, to every row equal to the minimum.

    >>> data = eager.to_tensor([[1., 2., 3.], [3., 2., 1.], [4., 5., 6.]])
    >>> eager.geometric.segment_min(data, eager.to_tensor([0, 0, 1])).numpy()
    array([[1., 2., 1.],
           [4., 5., 6.]], dtype=float32)
    """
    return _segment("segment_min", data, segment_ids, "min")
