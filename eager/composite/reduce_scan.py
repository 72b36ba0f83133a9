"""Composite rules of the reduce scan ops (see eager/composite/__init__.py).

The rules of prod and the scans that need "the product (or sum) of the others"
build an (..., n, n) table from the group's n elements, so they divide by
nothing and stay exact with zeros; they run only under create_graph.
"""
from __future__ import annotations

import math
import numbers

from phi.common import DataType
from phi.core.errors import AxisError
from phi.common.shape_rules import inverse_permutation, reduced_axes

from ..generated import forward_api as _F
from . import _paddle_api as _check
from ..tensor import Tensor
from .spine import _broadcast_like, conj_if_complex, exactly_equal, reshape_exactly


def _axes_of(shape, axis) -> tuple:
    """The reduced axes: all for None or [], an int as a one-element list."""
    if isinstance(axis, int):
        axis = (axis,)
    return reduced_axes(len(shape), axis or ())


def _spread(grad, shape, axis):
    """A reduction's gradient (or result) with the reduced axes back as 1s,
    broadcast to ``shape``."""
    axes = _axes_of(shape, axis)
    kept = reshape_exactly(grad, [1 if i in axes else d for i, d in enumerate(shape)])
    return _broadcast_like(kept, shape)


def _kept(value, shape, axis):
    axes = _axes_of(shape, axis)
    return reshape_exactly(value, [1 if i in axes else d for i, d in enumerate(shape)])


def _as_dtype(t, dtype):
    return t if t.dtype == dtype else _F.cast(t, dtype)


def _zeros_like(x):
    return _F.full_like(x, 0, None)


# -- max, min, amax, amin ----------------------------------------------------------

def _hits(x, out, axis):
    return _F.cast(exactly_equal(x, _kept(out, x.shape, axis)), x.dtype)


def max_grad(x, out, out_grad, axis, keepdim):
    # Paddle: every element equal to the maximum gets the whole gradient.
    return _F.multiply(_hits(x, out, axis), _spread(out_grad, x.shape, axis))


def min_grad(x, out, out_grad, axis, keepdim):
    return max_grad(x, out, out_grad, axis, keepdim)


def amax_grad(x, out, out_grad, axis, keepdim):
    # Paddle: the gradient is split evenly among the tied extremes.
    hits = _hits(x, out, axis)
    ties = _F.sum(hits, list(_axes_of(x.shape, axis)), None, True)
    return _F.multiply(hits, _F.divide(_spread(out_grad, x.shape, axis), ties))


def amin_grad(x, out, out_grad, axis, keepdim):
    return amax_grad(x, out, out_grad, axis, keepdim)


# -- the (..., n, n) tables -------------------------------------------------------------

def _to_last(x, axes):
    """x with ``axes`` moved last and flattened into one: (..., n), and how to undo it."""
    rest = [i for i in range(len(x.shape)) if i not in axes]
    perm = rest + list(axes)
    n = 1
    for a in axes:
        n *= x.shape[a]
    moved = _F.reshape(_F.transpose(x, perm), [x.shape[i] for i in rest] + [n])
    unflat = [x.shape[i] for i in perm]

    def back(y):
        return _F.transpose(_F.reshape(y, unflat), inverse_permutation(perm))
    return moved, back


def _rank_tables(moved):
    """Positions 1..n along the last axis, as (..., n, 1) and (..., 1, n) for comparisons."""
    position = _F.cumsum(_F.full_like(moved, 1, None), -1, None)
    return _F.unsqueeze(position, [-1]), _F.unsqueeze(position, [-2])


def _others(moved):
    """(..., n, n) whose row i is the group with entry i replaced by 1."""
    rows, cols = _rank_tables(moved)
    spread = _F.unsqueeze(moved, [-2])
    return _F.where(_F.equal(rows, cols), _F.full_like(spread, 1, None), spread), rows, cols


# -- prod -----------------------------------------------------------------------------------

def prod_grad(x, out_grad, axis, keepdim):
    grad = _as_dtype(out_grad, x.dtype)
    if len(x.shape) == 0:
        return reshape_exactly(grad, [])
    if 0 in x.shape:
        return _zeros_like(x)
    # Paddle's convention for complex x: out_grad times the conjugate derivative.
    moved, back = _to_last(conj_if_complex(x), _axes_of(x.shape, axis))
    table, _, _ = _others(moved)
    others = back(_F.prod(table, [-1], False, None))
    return _F.multiply(others, _spread(grad, x.shape, axis))


# -- scans ------------------------------------------------------------------------------------

def _scan_to_last(x, axis):
    """The scanned array as (..., n) with the scan axis last, and how to get x's shape back."""
    flat = axis is None
    values = _F.reshape(x, [-1]) if flat else x
    along = 0 if flat else axis % len(x.shape)
    perm = [i for i in range(len(values.shape)) if i != along] + [along]
    moved = _F.transpose(values, perm)

    def back(y):
        return reshape_exactly(_F.transpose(y, inverse_permutation(perm)), x.shape)
    return moved, back


def _reversed_last(t):
    return _F.getitem(t, (Ellipsis, slice(None, None, -1)))


def cumsum_grad(x, out_grad, axis, dtype):
    grad = _as_dtype(out_grad, x.dtype)
    if len(x.shape) == 0 or 0 in x.shape:
        return reshape_exactly(grad, x.shape)
    moved, back = _scan_to_last(reshape_exactly(grad, x.shape) if axis is None else grad, axis)
    return back(_reversed_last(_F.cumsum(_reversed_last(moved), -1, None)))


def cumprod_grad(x, out_grad, dim, dtype):
    grad = _as_dtype(out_grad, x.dtype)
    if len(x.shape) == 0:
        return reshape_exactly(grad, [])
    if 0 in x.shape:
        return _zeros_like(x)
    # Paddle's convention for a holomorphic op: out_grad times the conjugate derivative.
    moved, back = _scan_to_last(conj_if_complex(x), dim)
    grad_moved, _ = _scan_to_last(reshape_exactly(grad, x.shape), dim)
    table, rows, cols = _others(moved)
    # products[i, k] = prod_{j <= k, j != i} x_j; dx_i = sum_{k >= i} g_k products[i, k]
    products = _F.cumprod(table, -1, None)
    later = _F.where(_F.greater_equal(cols, rows), products, _zeros_like(products))
    return back(_F.sum(_F.multiply(later, _F.unsqueeze(grad_moved, [-2])), [-1], None, False))


def logcumsumexp_grad(x, out, out_grad, axis, dtype):
    grad = _as_dtype(out_grad, x.dtype)
    if len(x.shape) == 0:
        return reshape_exactly(grad, [])
    if 0 in x.shape:
        return _zeros_like(x)
    moved, back = _scan_to_last(x, axis)
    out_moved, _ = _scan_to_last(reshape_exactly(_as_dtype(out, x.dtype), x.shape), axis)
    grad_moved, _ = _scan_to_last(reshape_exactly(grad, x.shape), axis)
    rows, cols = _rank_tables(moved)
    # dx_i = sum_{k >= i} g_k exp(x_i - out_k); the pairs k < i are -inf before exp.
    gaps = _F.subtract(_F.unsqueeze(moved, [-1]), _F.unsqueeze(out_moved, [-2]))
    gaps = _F.where(_F.greater_equal(cols, rows), gaps, _F.full_like(gaps, float("-inf"), None))
    return back(_F.sum(_F.multiply(_F.exp(gaps), _F.unsqueeze(grad_moved, [-2])), [-1], None, False))


# -- logsumexp, var, std, norm -------------------------------------------------------------

def logsumexp_grad(x, out, out_grad, axis, keepdim):
    kept = _kept(out, x.shape, axis)
    # A group that is all -inf has logsumexp -inf; shifting by 0 there gives exp(-inf) = 0.
    shift = _F.where(_F.equal(kept, _F.full_like(kept, float("-inf"), None)), _zeros_like(kept), kept)
    return _F.multiply(_F.exp(_F.subtract(x, shift)), _spread(out_grad, x.shape, axis))


def _divisor(x, axis, unbiased) -> int:
    count = 1
    for a in _axes_of(x.shape, axis):
        count *= x.shape[a]
    return count - 1 if unbiased and count > 1 else count  # as the var kernel: N = 1 divides by 1


def _deviation(x, axis):
    return _F.subtract(x, _F.mean(x, list(_axes_of(x.shape, axis)), True))


def var_grad(x, out_grad, axis, unbiased, keepdim):
    if 0 in x.shape:
        return _zeros_like(x)
    divisor = _divisor(x, axis, unbiased)
    factor = 2.0 / divisor if divisor > 0 else float("nan")
    return _F.multiply(_F.scale(_deviation(x, axis), factor, 0.0, True), _spread(out_grad, x.shape, axis))


def std_grad(x, out, out_grad, axis, unbiased, keepdim):
    if 0 in x.shape:
        return _zeros_like(x)
    divisor = max(_divisor(x, axis, unbiased), 0)
    spread_out = _spread(_F.scale(out, float(divisor), 0.0, True), x.shape, axis)
    return _F.divide(_F.multiply(_deviation(x, axis), _spread(out_grad, x.shape, axis)), spread_out)


def norm_grad(x, out, out_grad, p, axis, keepdim):
    order = 2.0 if isinstance(p, str) else float(p)
    if order == 0 or 0 in x.shape:
        return _zeros_like(x)
    sign = _F.sign(x)
    grad = _spread(out_grad, x.shape, axis)
    if order == 1:
        return _F.multiply(sign, grad)
    magnitude = _F.multiply(sign, x)
    norm = _spread(out, x.shape, axis)
    if order in (float("inf"), float("-inf")):
        hits = _F.cast(exactly_equal(magnitude, norm), x.dtype)
        return _F.multiply(_F.multiply(sign, hits), grad)
    # A zero norm divides by 1 instead and gives a zero gradient, as the kernel does.
    is_zero = exactly_equal(norm, _zeros_like(norm))
    safe = _F.where(is_zero, _F.full_like(norm, 1, None), norm)
    local = _F.multiply(sign, _F.pow(_F.divide(magnitude, safe), order - 1))
    local = _F.where(is_zero, _zeros_like(local), local)
    return _F.multiply(local, grad)


# -- nansum, nanmean, median ------------------------------------------------------------------

def nansum_grad(x, out_grad, axis, dtype, keepdim):
    grad = _spread(_as_dtype(out_grad, x.dtype), x.shape, axis)
    return _F.where(_F.equal(x, x), grad, _zeros_like(grad))


def nanmean_grad(x, out_grad, axis, keepdim):
    present = _F.equal(x, x)
    count = _F.sum(_F.cast(present, x.dtype), list(_axes_of(x.shape, axis)), None, True)
    count = _F.maximum(count, _F.full_like(count, 1, None))
    share = _F.divide(_spread(out_grad, x.shape, axis), count)
    return _F.where(present, share, _zeros_like(share))


def median_grad(x, out_grad, axis, keepdim):
    # The weights (1/2 on each middle element) depend on x only through its order,
    # so they are constants (the kernel on a detached x); the rule is linear in out_grad.
    weights = _F.median_grad(x.detach(), _F.full_like(out_grad.detach(), 1, None), axis, keepdim)
    reduced = None if axis is None else [axis]
    # median's result is float32 for float16 input (Paddle): the gradient comes back in x's dtype.
    return _F.multiply(weights, _spread(_as_dtype(out_grad, x.dtype), x.shape, reduced))


# -- Paddle API functions composed of the ops above (eager.quantile, ...) -------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_levels(op: str, q) -> tuple:
    """q as a list of floats in [0, 1], and whether it was one number."""
    if hasattr(q, "numpy") and not isinstance(q, (list, tuple)):
        values = q.numpy()  # a conversion point: the levels decide the computation
        if values.ndim > 1:
            raise ValueError(f"{op}: argument 'q' expected a number, a list or a 0-d/1-d Tensor, got shape "
                             f"{list(values.shape)}")
        q = values.item() if values.ndim == 0 else values.tolist()
    single = not isinstance(q, (list, tuple))
    levels = [q] if single else list(q)
    if not levels:
        raise ValueError(f"{op}: argument 'q' expected at least one quantile, got an empty list")
    for level in levels:
        if isinstance(level, bool) or not isinstance(level, numbers.Real):
            raise TypeError(f"{op}: argument 'q' expected numbers in [0, 1], got {type(level).__name__} {level!r}")
        if not 0.0 <= level <= 1.0:
            raise ValueError(f"{op}: argument 'q' expected numbers in [0, 1], got {level}")
    return [float(level) for level in levels], single


def _quantile(op: str, x, q, axis, keepdim, interpolation, ignore_nan: bool, dtype=None):
    """The quantiles, computed in ``dtype`` (None: x's floating dtype, float32 for integers)."""
    _check.tensor(op, "x", x)
    if x.dtype.is_integer:
        x = _F.cast(x, dtype or "float32")
    _check.floating(op, "x", x)
    if dtype is not None and x.dtype.value != dtype:
        x = _F.cast(x, dtype)
    levels, single = _quantile_levels(op, q)
    if not isinstance(keepdim, bool):
        raise TypeError(f"{op}: argument 'keepdim' expected a bool, got {keepdim!r}")
    _check.choice(op, "interpolation", interpolation, _INTERPOLATIONS)
    ndim = len(x.shape)
    given = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if axis is None or (not given and op != "nanmedian"):
        # quantile / nanquantile read an empty list as every axis (Paddle 2.6.2);
        # nanmedian refuses it, as Paddle does.
        axes = list(range(ndim))
    else:
        if not given:
            raise ValueError(f"{op}: argument 'axis' expected an int or a non-empty list of axes, got {axis!r}")
        axes = sorted({_check.axis(op, "axis", a, ndim) for a in given})
        if len(axes) != len(given):
            raise ValueError(f"{op}: argument 'axis' expected distinct axes, got {axis!r} for a {ndim}-d tensor")
    # keepdim keeps x's rank (a 0-d x gives a 0-d result either way).
    kept_shape = [1 if a in axes else size for a, size in enumerate(x.shape)]
    if ndim == 0:
        x, axes, ndim = _F.reshape(x, [1]), [0], 1
    others = [a for a in range(ndim) if a not in axes]
    kept = [x.shape[a] for a in others]
    count = math.prod(x.shape[a] for a in axes)
    if count == 0:
        raise ValueError(f"{op}: the reduced axes {axes} of x's shape {x.shape} hold no element")
    rows = reshape_exactly(_F.transpose(x, others + axes), kept + [count])
    ordered = _F.sort(rows, -1)  # NaN sorts last
    missing = _F.isnan(rows)
    index_dtype = "float64"
    if ignore_nan:
        valid = _F.cast(_F.sum(_F.cast(_F.logical_not(missing), "int64"), [-1], None, True), index_dtype)
    else:
        valid = _F.full(kept + [1], float(count), index_dtype, x.place)
    if not ignore_nan:
        # A slice holding NaN reads its last sorted element (a NaN), as Paddle does: the
        # result is NaN and its gradient goes to that element.
        any_missing = _F.any(missing, [-1], True)
        last = _F.full(kept + [1], float(count - 1), index_dtype, x.place)
    results = []
    for level in levels:
        position = _F.scale(valid, level, -level, True)        # (valid - 1) * q
        position = _F.clip(position, 0.0, float(count - 1))
        if not ignore_nan:
            position = _F.where(any_missing, last, position)
        below, above = _F.floor(position), _F.ceil(position)
        if interpolation == "nearest":  # half away from zero, as Paddle's round
            below = above = _F.floor(_F.scale(position, 1.0, 0.5, True))
        low = _F.take_along_axis(ordered, _F.cast(below, "int64"), -1)
        high = _F.take_along_axis(ordered, _F.cast(above, "int64"), -1)
        if interpolation in ("lower", "nearest"):
            value = low
        elif interpolation == "higher":
            value = high
        elif interpolation == "midpoint":  # at a whole position the element itself: x + x may overflow
            value = _F.where(exactly_equal(below, above), low, _F.scale(_F.add(low, high), 0.5, 0.0, True))
        else:
            weight = _F.cast(_F.subtract(position, below), x.dtype)
            value = _F.add(low, _F.multiply(_F.subtract(high, low), weight))
        if ignore_nan:
            undefined = _F.equal(valid, _F.zeros_like(valid))
            value = _F.where(undefined, _F.full_like(value, math.nan, None), value)
        # reshape_exactly: an empty kept axis must stay empty (a 0 given to
        # reshape would copy the dimension at that position instead).
        results.append(reshape_exactly(value, kept_shape if keepdim else kept))
    return results[0] if single else _F.stack(results, 0)


@_check.composed
def quantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """The q-th quantiles of x over ``axis`` (None: all elements; an int or a list),
    ``q`` a number in [0, 1] or a list of them (then stacked along a new first
    axis). Between two sorted elements ``interpolation`` picks 'linear' (default),
    'lower', 'higher', 'midpoint' or 'nearest'. A slice holding NaN gives NaN.
    The result is float64 whatever x's dtype (Paddle's rule, for precision).
    Differentiable in x.

    >>> eager.quantile(eager.to_tensor([[0.0, 1.0, 2.0, 3.0]]), [0.25, 0.5], axis=1).numpy()
    array([[0.75],
           [1.5 ]])
    """
    return _quantile("quantile", x, q, axis, keepdim, interpolation, ignore_nan=False, dtype="float64")


@_check.composed
def nanquantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """:func:`quantile` ignoring NaN: each slice's quantile is taken over its other
    elements; a slice of NaN only gives NaN. float64, as quantile. Differentiable in x.

    >>> eager.nanquantile(eager.to_tensor([1.0, float("nan"), 3.0]), 0.5).numpy()
    array(2.)
    """
    return _quantile("nanquantile", x, q, axis, keepdim, interpolation, ignore_nan=True, dtype="float64")


@_check.composed
def nanmedian(x, axis=None, keepdim=False, name=None):
    """The median of x over ``axis`` (None: all elements; an int or a list) ignoring
    NaN; with an even count, the mean of the two middle elements. A slice of NaN
    only gives NaN. An integer x gives its own dtype, the mean truncated towards
    zero (Paddle's kernel: [-4, -1] gives -2). Differentiable in x.

    >>> eager.nanmedian(eager.to_tensor([[float("nan"), 2.0, 3.0], [0.0, 1.0, 2.0]]), axis=0).numpy()
    array([0. , 1.5, 2.5], dtype=float32)
    """
    # Paddle's nanmedian kernel takes the middle element, or the mean of the two
    # middle ones: 'midpoint', where 'linear' (low + (high - low) * w) gives NaN
    # when the middle elements are infinite ([-inf] and [-inf, 1] came back NaN).
    if isinstance(x, Tensor) and x.dtype.is_integer:
        # the cast truncates towards zero, as the integer division in Paddle's kernel
        middle = _quantile("nanmedian", x, 0.5, axis, keepdim, "midpoint", ignore_nan=True, dtype="float64")
        return _F.cast(middle, x.dtype)
    return _quantile("nanmedian", x, 0.5, axis, keepdim, "midpoint", ignore_nan=True)


def _take(x: Tensor, axis: int, start: int, stop: int) -> Tensor:
    return _F.slice(x, [axis], [start], [stop])


@_check.composed
def diff(x, n: int = 1, axis: int = -1, prepend=None, append=None, name=None) -> Tensor:
    """The n-th forward difference along axis, ``out[i] = x[i + 1] - x[i]``
    applied n times, after ``prepend`` and ``append`` (tensors shaped as x off the
    axis) are joined to x along it. A bool x gives ``x[i + 1] != x[i]``.
    Differentiable for floating x.

    >>> import eager
    >>> eager.diff(eager.to_tensor([1, 4, 5, 2]), n=2).numpy()
    array([-2, -4])
    """
    _check.tensor("diff", "x", x)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"diff: argument 'n' expected a positive int, got {n!r}")
    if x.ndim == 0:
        # Paddle reads x.shape[axis] of the 0-d x: an IndexError, as every axis check of eager's is
        raise AxisError("diff: argument 'x' expected at least 1 dimension, got a 0-d tensor")
    axis = _check.axis("diff", "axis", axis, x.ndim)
    parts = []
    for arg, extra in (("prepend", prepend), (None, x), ("append", append)):
        if extra is None:
            continue
        if arg is not None:
            _check.tensor("diff", arg, extra)
            off_axis = [d for i, d in enumerate(extra.shape) if i != axis]
            if extra.ndim != x.ndim or off_axis != [d for i, d in enumerate(x.shape) if i != axis]:
                raise ValueError(f"diff: argument '{arg}' expected the shape of x {x.shape} off axis {axis}, "
                                 f"got {extra.shape}")
            if extra.dtype != x.dtype:
                raise TypeError(f"diff: argument '{arg}' expected the dtype of x ({x.dtype}), got {extra.dtype}")
        parts.append(extra)
    out = _F.concat(parts, axis) if len(parts) > 1 else x
    for _ in range(int(n)):
        length = out.shape[axis]
        if length == 0:
            break
        later, earlier = _take(out, axis, 1, length), _take(out, axis, 0, length - 1)
        out = _F.not_equal(later, earlier) if out.dtype == DataType.BOOL else _F.subtract(later, earlier)
    return out


def _spacing(fn: str, y: Tensor, x, dx, axis: int):
    """The widths of the trapezoids along axis: a number, or a tensor that
    broadcasts against y's pairs (diff of x; a 1-D x lies along axis)."""
    if x is not None and dx is not None:
        raise ValueError(f"{fn}: give x or dx, not both")
    if x is None:
        if dx is None:
            return 1.0
        if isinstance(dx, Tensor):
            # Paddle takes dx through to_tensor: a one-element Tensor is a spacing too
            if dx.ndim > 1 or dx.size != 1:
                raise ValueError(f"{fn}: argument 'dx' expected a number or a one-element Tensor, got shape "
                                 f"{dx.shape}")
            return _F.reshape(_F.cast(dx, y.dtype), [])
        if isinstance(dx, bool) or not isinstance(dx, numbers.Real):
            raise TypeError(f"{fn}: argument 'dx' expected a float, got {dx!r}")
        return float(dx)
    _check.tensor(fn, "x", x)
    _check.floating(fn, "x", x)
    if x.dtype != y.dtype:
        raise TypeError(f"{fn}: argument 'x' expected the dtype of y ({y.dtype}), got {x.dtype}")
    if x.ndim == 1:
        if x.shape[0] != y.shape[axis]:
            raise ValueError(f"{fn}: argument 'x' (1-D) expected y's length along axis {axis} "
                             f"({y.shape[axis]}), got {x.shape[0]}")
        widths = diff(x)
        return _F.reshape(widths, [-1 if i == axis else 1 for i in range(y.ndim)])
    if x.shape != y.shape:
        raise ValueError(f"{fn}: argument 'x' expected a 1-D tensor or the shape of y {y.shape}, got {x.shape}")
    return diff(x, axis=axis)


def _trapezoids(fn: str, y, x, dx, axis) -> tuple:
    _check.tensor(fn, "y", y)
    _check.floating(fn, "y", y)
    if y.ndim == 0:
        raise AxisError(f"{fn}: argument 'y' expected at least 1 dimension, got a 0-d tensor")  # Paddle: IndexError
    axis = _check.axis(fn, "axis", axis, y.ndim)
    widths = _spacing(fn, y, x, dx, axis)
    length = y.shape[axis]
    heights = _F.add(_take(y, axis, 1, max(length, 1)), _take(y, axis, 0, max(length - 1, 0)))
    if isinstance(widths, float):
        return _F.scale(heights, 0.5 * widths), axis
    return _F.scale(_F.multiply(heights, widths), 0.5), axis


@_check.composed
def trapezoid(y, x=None, dx=None, axis: int = -1, name=None) -> Tensor:
    """The integral of y along axis by the trapezoidal rule (Paddle's
    ``paddle.trapezoid``): the sample points ``x`` (1-D along axis, or shaped as
    y), or the spacing ``dx`` (1.0 when both are None; not both). Differentiable
    in y and x.

    >>> import eager
    >>> float(eager.trapezoid(eager.to_tensor([1.0, 2.0, 3.0]), dx=2.0))
    8.0
    """
    areas, axis = _trapezoids("trapezoid", y, x, dx, axis)
    return _F.sum(areas, [axis])


@_check.composed
def cumulative_trapezoid(y, x=None, dx=None, axis: int = -1, name=None) -> Tensor:
    """The running trapezoidal integral of y along axis: one less element along
    it than y (Paddle's ``paddle.cumulative_trapezoid``; x and dx as in
    :func:`trapezoid`). Differentiable in y and x.

    >>> import eager
    >>> eager.cumulative_trapezoid(eager.to_tensor([1.0, 2.0, 3.0])).numpy()
    array([1.5, 4. ], dtype=float32)
    """
    areas, axis = _trapezoids("cumulative_trapezoid", y, x, dx, axis)
    return _F.cumsum(areas, axis)
