"""The reduction every eager.geometric function ends with: the rows of ``messages``
([E, ...]) summed, averaged, or reduced to their maximum/minimum into ``n`` output
rows by a destination row per message. A row no message reaches is 0 for every
reduction, as in Paddle.

Sum and mean are index_add of the messages (mean then divides by the host-counted
row sizes), so they are differentiable through index_add. Max and min are one
PyLayer: the values come from a segmented doubling reduction over the messages
sorted by destination (exact: only maximum/minimum, gather and scatter run), and
the gradient is Paddle's: every message equal to its row's extremum gets that
row's full gradient (ties are not split). The backward is written with ops, so it
is itself differentiable (create_graph).
"""
from __future__ import annotations

import numpy as np

from ..autograd import PyLayer
from ..creation import to_tensor
from ..generated import forward_api as _F
from ..tensor import Tensor


def _host_index(positions: np.ndarray, like: Tensor) -> Tensor:
    return to_tensor(positions.astype(np.int64), place=like.place)


def _column(mask: np.ndarray, ndim: int, like: Tensor) -> Tensor:
    """A bool tensor of shape [len(mask), 1, ...] (ndim dims) on like's place."""
    return to_tensor(mask.reshape((-1,) + (1,) * (ndim - 1)), place=like.place)


def _zeros(shape, like: Tensor) -> Tensor:
    return _F.full(list(shape), 0, like.dtype, like.place)


def _extreme_values(messages: Tensor, dst: np.ndarray, n: int, take) -> Tensor:
    """Per output row the extremum (take = _F.maximum / _F.minimum) of its messages."""
    out = _zeros([n] + list(messages.shape[1:]), messages)
    if dst.size == 0:
        return out
    order = np.argsort(dst, kind="stable")
    rows = dst[order]
    values = _F.gather(messages, _host_index(order, messages), 0)
    count = rows.size
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    longest = int(np.diff(np.r_[starts, count]).max())
    ndim = len(messages.shape)
    step = 1
    # After the pass with step s, values[i] is the extremum of the (up to 2s) messages
    # of i's row from i on: once 2s reaches the longest row, a row's first holds its own.
    while step < longest:
        head, tail = values[:count - step], values[step:]
        same = _column(rows[:count - step] == rows[step:], ndim, messages)
        values = _F.concat([_F.where(same, take(head, tail), head), values[count - step:]], 0)
        step *= 2
    firsts = _F.gather(values, _host_index(starts, messages), 0)
    return _F.scatter(out, _host_index(rows[starts], messages), firsts, True)


class _SegmentExtreme(PyLayer):
    """messages [E, ...] -> [n, ...]: each row's maximum or minimum (0 where no message)."""

    @staticmethod
    def forward(ctx, messages, dst, n, take):
        out = _extreme_values(messages, dst, n, take)
        ctx.dst = dst
        ctx.save_for_backward(messages, out)
        return out

    @staticmethod
    def backward(ctx, out_grad):
        messages, out = ctx.saved_tensor()
        where = _host_index(ctx.dst, messages)
        hit = _F.cast(_F.equal(messages, _F.gather(out, where, 0)), out_grad.dtype)
        return _F.multiply(_F.gather(out_grad, where, 0), hit)


def reduce_rows(messages: Tensor, dst: np.ndarray, n: int, reduce_op: str) -> Tensor:
    """The rows of ``messages`` reduced into ``n`` rows at ``dst`` (host int64, in [0, n))."""
    if reduce_op in ("max", "min"):
        return _SegmentExtreme.apply(messages, dst, n, _F.maximum if reduce_op == "max" else _F.minimum)
    out = _zeros([n] + list(messages.shape[1:]), messages)
    # also with no edges: the result stays connected to the messages, so x.grad is zeros (as Paddle), not None
    out = _F.index_add(out, _host_index(dst, messages), messages, 0)
    if reduce_op == "sum":
        return out
    counts = np.maximum(np.bincount(dst, minlength=n), 1).reshape((-1,) + (1,) * (len(messages.shape) - 1))
    if messages.dtype.is_floating_point:
        return _F.divide(out, to_tensor(counts.astype(messages.dtype.value), place=messages.place))
    # Integer mean divides as C does (towards zero), as Paddle's kernel.
    quotient = _F.trunc(_F.divide(_F.cast(out, "float64"), to_tensor(counts.astype(np.float64),
                                                                      place=messages.place)))
    return _F.cast(quotient, messages.dtype)
