"""Composite rules of the search sort ops (see eager/composite/__init__.py).

Every differentiable op of the group picks elements of x (topk, sort,
kthvalue, mode, cummax/cummin), so every gradient is one scatter: out_grad
sent back to the picked positions, summed where a position was picked more
than once. Written with a one-hot product, it is linear in out_grad through
differentiable ops, so gradients of gradients work to any order (the indices
are integers and carry no gradient). ``x`` arrives shape-only (no_need_buffer).
"""
from __future__ import annotations

from ..generated import forward_api as _F
from ..tensor import Tensor
from . import _paddle_api as _check


def _scatter_back(shape, indices, grad, axis: int):
    """A tensor of ``shape`` with, at each position along axis, the sum of the entries
    of grad whose entry of indices (shaped like grad, of len(shape) dimensions) points there."""
    shape = list(shape)
    ndim = len(shape)
    if ndim == 0:
        return _F.assign(grad)
    if 0 in shape:
        # Nothing to scatter; the 0-d sum keeps the result connected to grad.
        return _F.expand(_F.sum(grad, [], None, False), shape)
    hot = _F.cast(_F.one_hot(indices, shape[axis]), grad.dtype)  # indices' shape + [size]
    summed = _F.sum(_F.multiply(hot, _F.unsqueeze(grad, [-1])), [axis], None, False)
    # summed holds the other axes in order, then the size of axis last: move it back.
    return _F.transpose(summed, list(range(axis)) + [ndim - 1] + list(range(axis, ndim - 1)))


def _axis(axis, ndim: int) -> int:
    """None (topk, kthvalue: the last axis) and negative axes as a position."""
    if ndim == 0:
        return 0
    return (ndim - 1) if axis is None else axis % ndim


def _keepdim_form(x, indices, grad, axis: int, keepdim: bool):
    """indices and grad with the reduced axis back as size 1."""
    if keepdim or len(x.shape) == 0:
        return indices, grad
    return _F.unsqueeze(indices, [axis]), _F.unsqueeze(grad, [axis])


def topk_grad(x, indices, out_grad, k, axis, largest, sorted):
    """out_grad back at the k picked positions; zero elsewhere."""
    return _scatter_back(x.shape, indices, out_grad, _axis(axis, len(x.shape)))


def sort_grad(x, indices, out_grad, axis, descending, stable):
    """out_grad un-permuted: each value's gradient back at its position in x."""
    return _scatter_back(x.shape, indices, out_grad, _axis(axis, len(x.shape)))


def kthvalue_grad(x, indices, out_grad, k, axis, keepdim):
    """out_grad at the position of the k-th smallest value; zero elsewhere."""
    axis = _axis(axis, len(x.shape))
    indices, out_grad = _keepdim_form(x, indices, out_grad, axis, keepdim)
    return _scatter_back(x.shape, indices, out_grad, axis)


def mode_grad(x, indices, out_grad, axis, keepdim):
    """out_grad at the position mode reported (one occurrence of the most frequent value)."""
    axis = _axis(axis, len(x.shape))
    indices, out_grad = _keepdim_form(x, indices, out_grad, axis, keepdim)
    return _scatter_back(x.shape, indices, out_grad, axis)


def _cum_extreme_grad(x, indices, out_grad, axis):
    shape = list(x.shape)
    if axis is None and 0 not in shape:  # the forward ran on x flattened
        return _F.reshape(_scatter_back([x.size], indices, out_grad, 0), shape)
    return _scatter_back(shape, indices, out_grad, 0 if axis is None else _axis(axis, len(shape)))


def cummax_grad(x, indices, out_grad, axis, dtype):
    """Each running maximum's gradient added at the position it came from."""
    return _cum_extreme_grad(x, indices, out_grad, axis)


def cummin_grad(x, indices, out_grad, axis, dtype):
    """Each running minimum's gradient added at the position it came from."""
    return _cum_extreme_grad(x, indices, out_grad, axis)


# -- Paddle API functions composed of the ops above (eager.bucketize) ----------------------------

@_check.composed
def bucketize(x, sorted_sequence, out_int32: bool = False, right: bool = False, name=None) -> Tensor:
    """The bucket of each element of x among the boundaries of the 1-D ascending
    ``sorted_sequence``: its insertion index, the first place (or, with ``right``,
    the last) that keeps the sequence sorted. int64, or int32 when ``out_int32``.
    Not differentiable (an index).

    >>> import eager
    >>> edges = eager.to_tensor([2, 4, 6, 8])
    >>> eager.bucketize(eager.to_tensor([[1, 4], [8, 9]]), edges).numpy()
    array([[0, 1],
           [3, 4]])
    """
    _check.tensor("bucketize", "x", x)
    _check.tensor("bucketize", "sorted_sequence", sorted_sequence)
    if sorted_sequence.ndim != 1:
        raise ValueError(f"bucketize: argument 'sorted_sequence' expected a 1-D tensor, got shape "
                         f"{sorted_sequence.shape}")
    return _F.searchsorted(sorted_sequence, x, out_int32, right)
