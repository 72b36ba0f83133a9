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


def _histogramdd_edges(x2, dims: int, bins, ranges) -> list:
    """The bin edges of each of the ``dims`` coordinates of the points x2 [N, dims]."""
    if isinstance(bins, (list, tuple)) and bins and all(isinstance(b, Tensor) for b in bins):
        if len(bins) != dims:
            raise ValueError(f"histogramdd: argument 'bins' expected {dims} edge tensors (one per coordinate), "
                             f"got {len(bins)}")
        edges = []
        for d, b in enumerate(bins):
            if b.ndim != 1 or b.shape[0] < 2:
                raise ValueError(f"histogramdd: bins[{d}] expected a 1-D tensor of at least 2 edges, got shape "
                                 f"{b.shape}")
            edges.append(_F.cast(b, x2.dtype))
        return edges
    counts = [bins] * dims if not isinstance(bins, (list, tuple)) else list(bins)
    if len(counts) != dims:
        raise ValueError(f"histogramdd: argument 'bins' expected {dims} bin counts (one per coordinate), "
                         f"got {len(counts)}")
    counts = [_check.integer("histogramdd", "bins", b, minimum=1) for b in counts]
    if ranges is not None:
        if not isinstance(ranges, (list, tuple)) or len(ranges) != 2 * dims:
            raise ValueError(f"histogramdd: argument 'ranges' expected {2 * dims} numbers (a leftmost and a "
                             f"rightmost edge per coordinate), got {ranges!r}")
        bounds = [_check.number("histogramdd", "ranges", r) for r in ranges]
    else:
        bounds = []
        for d in range(dims):
            column = _F.slice(x2, [1], [d], [d + 1])
            empty = x2.shape[0] == 0
            bounds += [0.0 if empty else float(_F.min(column)), 0.0 if empty else float(_F.max(column))]
    edges = []
    for d, count in enumerate(counts):
        low, high = bounds[2 * d], bounds[2 * d + 1]
        if low > high:
            raise ValueError(f"histogramdd: argument 'ranges' expected leftmost <= rightmost edges, got "
                             f"[{low}, {high}] for coordinate {d}")
        if low == high:  # one value: a unit-wide range around it, as NumPy
            low, high = low - 0.5, high + 0.5
        edges.append(_F.linspace(low, high, count + 1, x2.dtype, x2.place))
    return edges


@_check.composed
def histogramdd(x, bins=10, ranges=None, density=False, weights=None, name=None):
    """The D-dimensional histogram of the points x [..., D] (all axes but the last
    flattened): (hist, edges), hist of shape [bins_0, ..., bins_{D-1}] holding the
    count (or the total ``weights``, shaped x.shape[:-1]) of the points in each bin,
    and edges the D 1-D tensors of bin edges. ``bins`` is an int (every coordinate),
    a list of ints, or a list of edge tensors; ``ranges`` the leftmost and rightmost
    edges [min_0, max_0, min_1, max_1, ...] (default each coordinate's min and max).
    Bins are half-open [e_i, e_{i+1}) except the last, which holds its right edge;
    points outside are left out. With ``density`` each bin is divided by the total
    and by its volume. Not differentiable.

    >>> x = eager.to_tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]])
    >>> hist, edges = eager.histogramdd(x, bins=[3, 3], weights=eager.to_tensor([1.0, 2.0, 4.0, 8.0]))
    >>> hist.numpy()
    array([[0., 1., 0.],
           [2., 0., 0.],
           [4., 0., 8.]], dtype=float32)
    """
    _check.floating("histogramdd", "x", x)
    if x.ndim < 2:
        raise ValueError(f"histogramdd: argument 'x' expected a tensor of at least 2 dimensions [..., D], got "
                         f"shape {x.shape}")
    if not isinstance(density, bool):
        raise TypeError(f"histogramdd: argument 'density' expected a bool, got {density!r}")
    dims = x.shape[-1]
    x2 = _F.reshape(x, [-1, dims])
    points = x2.shape[0]
    if weights is not None:
        _check.tensor("histogramdd", "weights", weights)
        if weights.shape != x.shape[:-1]:
            raise ValueError(f"histogramdd: argument 'weights' expected shape {x.shape[:-1]} (x's without its last "
                             f"axis), got {weights.shape}")
        if weights.dtype != x.dtype:
            raise TypeError(f"histogramdd: argument 'weights' expected the dtype of x ({x.dtype}), got "
                            f"{weights.dtype}")
        weights = _F.reshape(weights, [points])
    edges = _histogramdd_edges(x2, dims, bins, ranges)
    counts = [e.shape[0] - 1 for e in edges]
    linear = _F.zeros([points], "int64", x.place)
    inside = _F.full([points], True, "bool", x.place)
    for d, (edge, count) in enumerate(zip(edges, counts)):
        column = _F.reshape(_F.slice(x2, [1], [d], [d + 1]), [points])
        index = _F.scale(_F.searchsorted(edge, column, False, True), 1.0, -1.0, True)  # the bin whose left edge <= x
        last = _F.slice(edge, [0], [count], [count + 1])
        on_last = _F.equal(column, _F.expand(last, [points]))
        index = _F.where(on_last, _F.full([points], count - 1, "int64", x.place), index)
        inside = _F.logical_and(inside, _F.logical_and(_F.greater_equal(index, _F.zeros_like(index)),
                                                       _F.less_than(index, _F.full_like(index, count, None))))
        linear = _F.add(_F.scale(linear, float(count), 0.0, True), index)
    total_bins = 1
    for count in counts:
        total_bins *= count
    linear = _F.where(inside, linear, _F.zeros_like(linear))
    weight = _F.ones([points], x.dtype, x.place) if weights is None else weights
    weight = _F.where(inside, weight, _F.zeros_like(weight))
    hist = _F.reshape(_F.bincount(linear, weight, total_bins), counts)
    if density:
        hist = _F.divide(hist, _F.sum(hist))
        for d, edge in enumerate(edges):
            widths = _F.subtract(_F.slice(edge, [0], [1], [counts[d] + 1]), _F.slice(edge, [0], [0], [counts[d]]))
            shape = [1] * dims
            shape[d] = counts[d]
            hist = _F.divide(hist, _F.reshape(widths, shape))
    return hist, edges
