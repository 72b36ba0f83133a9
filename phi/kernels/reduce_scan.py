"""Reduction and scan kernels (max/min/amax/amin, prod, logsumexp, std/var, norm,
all/any, nan-reductions, median, cumulative ops) and their gradients.

An ``axis`` of None or an empty list reduces every axis (InferMeta validated
the axes). A scan's ``axis`` of None runs over the flattened input.
"""
import numpy as np

from ..common.data_type import DataType
from ..common.shape_rules import reduced_axes
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, ALL_TYPES, ALL_TYPES_AND_BFLOAT16, COMPLEX, FLOATS, REAL
from .funcs import conj, kept_shape, sum_dtype

_INT64 = np.dtype("int64")
_INT32 = np.dtype("int32")
_BOOL = np.dtype("bool")


def _axes(axis, ndim) -> tuple:
    return reduced_axes(ndim, axis or ())


def _count(shape, axes) -> int:
    count = 1
    for a in axes:
        count *= shape[a]
    return count


def _kept(x, grad, axis):
    """``grad`` (a reduction's result or its gradient) reshaped with the reduced
    axes of ``x`` kept as 1, so that it broadcasts against x."""
    return grad.reshape(kept_shape(x.shape, _axes(axis, x.ndim)))


def _to_last(xp, x, axes):
    """x with the ``axes`` moved to the end and flattened into one: (..., n)."""
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = xp.transpose(x, rest + list(axes))
    return moved.reshape(tuple(x.shape[i] for i in rest) + (_count(x.shape, axes),)), rest


def _from_last(xp, y, shape, axes, rest):
    """Undoes _to_last: y of shape (..., n) back to ``shape``."""
    moved = y.reshape(tuple(shape[i] for i in rest) + tuple(shape[a] for a in axes))
    order = rest + list(axes)
    inverse = [0] * len(order)
    for position, a in enumerate(order):
        inverse[a] = position
    return xp.transpose(moved, inverse)


# -- max, min, amax, amin ----------------------------------------------------------

@register_kernel("max", ALL_BACKENDS, REAL)
def reduce_max(ctx, x, axis, keepdim):
    return ctx.xp.max(x, axis=_axes(axis, x.ndim), keepdims=keepdim)


@register_kernel("min", ALL_BACKENDS, REAL)
def reduce_min(ctx, x, axis, keepdim):
    return ctx.xp.min(x, axis=_axes(axis, x.ndim), keepdims=keepdim)


register_kernel("amax", ALL_BACKENDS, REAL)(reduce_max)
register_kernel("amin", ALL_BACKENDS, REAL)(reduce_min)


@register_kernel("max_grad", ALL_BACKENDS, FLOATS)
@register_kernel("min_grad", ALL_BACKENDS, FLOATS)
def extreme_grad(ctx, x, out, out_grad, axis, keepdim):
    """Paddle's max/min rule: every element equal to the extreme gets the whole gradient."""
    hit = x == _kept(x, out, axis)
    return (hit * _kept(x, out_grad, axis)).astype(x.dtype, copy=False)


@register_kernel("amax_grad", ALL_BACKENDS, FLOATS)
@register_kernel("amin_grad", ALL_BACKENDS, FLOATS)
def extreme_split_grad(ctx, x, out, out_grad, axis, keepdim):
    """Paddle's amax/amin rule: the gradient is split evenly among the tied extremes.
    A NaN extreme equals no element: 0 / 0 makes the group's gradient NaN, as Paddle's
    kernel and the composite amax_grad give."""
    xp = ctx.xp
    hit = (x == _kept(x, out, axis)).astype(x.dtype)
    ties = xp.sum(hit, axis=_axes(axis, x.ndim), keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (hit * (_kept(x, out_grad, axis) / ties)).astype(x.dtype, copy=False)


# -- prod ---------------------------------------------------------------------------

@register_kernel("prod", ALL_BACKENDS, (DataType.BOOL,) + REAL + COMPLEX)  # bool with a dtype: cast first
def prod(ctx, x, axis, keepdim, dtype):
    out_dtype = x.dtype if dtype is None else dtype.numpy_dtype
    # dtype given explicitly: NumPy would widen int32 products to int64, Paddle does not.
    return ctx.xp.prod(x.astype(out_dtype, copy=False), axis=_axes(axis, x.ndim), keepdims=keepdim,
                       dtype=out_dtype)


def _exclusive_cumprod(xp, last):
    """prod of the entries before each one along the last axis (1 for the first)."""
    shifted = xp.concatenate([xp.ones_like(last[..., :1]), last[..., :-1]], axis=-1)
    return xp.cumprod(shifted, axis=-1)


def _product_of_others(xp, x, axes):
    """For each element, the product of the other elements of its reduced group:
    the prefix product times the suffix product, so zeros need no division."""
    last, rest = _to_last(xp, x, axes)
    before = _exclusive_cumprod(xp, last)
    after = _exclusive_cumprod(xp, last[..., ::-1])[..., ::-1]
    return _from_last(xp, before * after, x.shape, axes, rest)


@register_kernel("prod_grad", ALL_BACKENDS, FLOATS + COMPLEX)
def prod_grad(ctx, x, out_grad, axis, keepdim):
    xp = ctx.xp
    if x.size == 0:
        return xp.zeros(x.shape, dtype=x.dtype)
    # conj: Paddle's convention for complex x, out_grad times the conjugate derivative.
    others = _product_of_others(xp, conj(x.astype(out_grad.dtype, copy=False)), _axes(axis, x.ndim))
    return (others * _kept(x, out_grad, axis)).astype(x.dtype, copy=False)


# -- logsumexp, var, std --------------------------------------------------------------

def _finite_or_zero(xp, a):
    return xp.where(xp.isfinite(a), a, xp.zeros_like(a))


@register_kernel("logsumexp", ALL_BACKENDS, FLOATS)
def logsumexp(ctx, x, axis, keepdim):
    xp = ctx.xp
    axes = _axes(axis, x.ndim)
    if x.size == 0:
        # The log of an empty sum is -inf.
        shape = kept_shape(x.shape, axes) if keepdim else tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return xp.full(shape, -xp.inf, dtype=x.dtype)
    # Shift by the finite maximum so exp cannot overflow; a group of -inf stays -inf.
    shift = _finite_or_zero(xp, xp.max(x, axis=axes, keepdims=True))
    total = xp.sum(xp.exp(x - shift), axis=axes, keepdims=True, dtype=sum_dtype(x.dtype))
    out = xp.log(total) + shift
    if not keepdim:
        out = out.reshape(tuple(d for i, d in enumerate(x.shape) if i not in axes))
    return out.astype(x.dtype, copy=False)


@register_kernel("logsumexp_grad", ALL_BACKENDS, FLOATS)
def logsumexp_grad(ctx, x, out, out_grad, axis, keepdim):
    """exp(x - out) * g, Paddle's rule, so a +inf or NaN out spreads NaN and 0 as Paddle's
    does (as the composite logsumexp_grad); a group whose logsumexp is -inf (all -inf)
    gets zeros."""
    xp = ctx.xp
    kept_out = _kept(x, out, axis)
    at_minus_inf = kept_out == -xp.inf
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, as in Paddle
        weights = xp.exp(x - xp.where(at_minus_inf, xp.zeros_like(kept_out), kept_out))
    return (weights * _kept(x, out_grad, axis)).astype(x.dtype, copy=False)


def _divisor(x, axes, unbiased):
    # Paddle divides by N - 1 only where N > 1: one element has variance 0, not 0/0.
    count = _count(x.shape, axes)
    return count - 1 if unbiased and count > 1 else count


def _deviation(xp, x, axes):
    count = _count(x.shape, axes)
    if count == 0:
        return x
    return x - xp.sum(x, axis=axes, keepdims=True, dtype=sum_dtype(x.dtype)) / count


def _safe_divide(xp, numerator, divisor):
    # 0/0 and n/0 give NaN and inf as in Paddle, without NumPy's warning.
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.divide(numerator, divisor)


@register_kernel("var", ALL_BACKENDS, FLOATS)
def var(ctx, x, axis, unbiased, keepdim):
    xp = ctx.xp
    axes = _axes(axis, x.ndim)
    squares = xp.sum(_deviation(xp, x, axes) ** 2, axis=axes, keepdims=keepdim, dtype=sum_dtype(x.dtype))
    divisor = _divisor(x, axes, unbiased)
    return _safe_divide(xp, squares, max(divisor, 0)).astype(x.dtype, copy=False)


@register_kernel("var_grad", ALL_BACKENDS, FLOATS)
def var_grad(ctx, x, out_grad, axis, unbiased, keepdim):
    xp = ctx.xp
    axes = _axes(axis, x.ndim)
    scaled = _safe_divide(xp, 2 * _deviation(xp, x, axes), max(_divisor(x, axes, unbiased), 0))
    return (scaled * _kept(x, out_grad, axis)).astype(x.dtype, copy=False)


@register_kernel("std", ALL_BACKENDS, FLOATS)
def std(ctx, x, axis, unbiased, keepdim):
    return ctx.xp.sqrt(var(ctx, x, axis, unbiased, keepdim))


@register_kernel("std_grad", ALL_BACKENDS, FLOATS)
def std_grad(ctx, x, out, out_grad, axis, unbiased, keepdim):
    """var_grad / (2 std): NaN where the std is 0, as Paddle's sqrt of var gives."""
    xp = ctx.xp
    axes = _axes(axis, x.ndim)
    divisor = max(_divisor(x, axes, unbiased), 0)
    scaled = _safe_divide(xp, _deviation(xp, x, axes), divisor * _kept(x, out, axis))
    return (scaled * _kept(x, out_grad, axis)).astype(x.dtype, copy=False)


# -- norm -----------------------------------------------------------------------------

def norm_order(p) -> float:
    """The vector-norm order of paddle.norm's p: 'fro' is 2 (InferMeta refused other words)."""
    return 2.0 if isinstance(p, str) else float(p)


@register_kernel("norm", ALL_BACKENDS, FLOATS)
def norm(ctx, x, p, axis, keepdim):
    """The vector p-norm over the axes (taken as one flat vector, as Paddle does for two axes)."""
    xp = ctx.xp
    axes = _axes(axis, x.ndim)
    order = norm_order(p)
    magnitude = xp.abs(x)
    if x.size == 0:
        # The norm of an empty vector is 0, whatever the order.
        return xp.sum(magnitude, axis=axes, keepdims=keepdim)
    if order == xp.inf or order == -xp.inf:
        return (xp.max if order > 0 else xp.min)(magnitude, axis=axes, keepdims=keepdim)
    if order == 0:
        return xp.sum(magnitude != 0, axis=axes, keepdims=keepdim).astype(x.dtype)
    accumulate = sum_dtype(x.dtype)
    if order == 1:
        return xp.sum(magnitude, axis=axes, keepdims=keepdim, dtype=accumulate).astype(x.dtype, copy=False)
    if order == 2:
        return xp.sqrt(xp.sum(magnitude * magnitude, axis=axes, keepdims=keepdim,
                              dtype=accumulate)).astype(x.dtype, copy=False)
    # Scaled by the largest magnitude so |x|**p neither overflows nor underflows.
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scale = xp.max(magnitude, axis=axes, keepdims=True)
        safe = xp.where(scale > 0, scale, xp.ones_like(scale))
        total = xp.sum((magnitude / safe) ** order, axis=axes, keepdims=True, dtype=accumulate)
        out = (total ** (1.0 / order) * safe).astype(x.dtype, copy=False)
        if order < 0:
            out = xp.where(scale > 0, out, xp.zeros_like(out))
        if order > 0:  # an infinite element makes the norm infinite (not inf/inf = NaN)
            out = xp.where(xp.isinf(scale), scale.astype(x.dtype, copy=False), out)
    return out if keepdim else out.reshape(tuple(d for i, d in enumerate(x.shape) if i not in axes))


@register_kernel("norm_grad", ALL_BACKENDS, FLOATS)
def norm_grad(ctx, x, out, out_grad, p, axis, keepdim):
    """sign(x) |x|^(p-1) / out^(p-1) * g; a zero norm gives zeros (as Paddle's epsilon
    does); for p = ±inf every element at the extreme magnitude gets sign(x) * g."""
    xp = ctx.xp
    order = norm_order(p)
    kept_out = _kept(x, out, axis)
    grad = _kept(x, out_grad, axis)
    if order == 0:
        return xp.zeros(x.shape, dtype=x.dtype)
    if order == xp.inf or order == -xp.inf:
        return (xp.sign(x) * (xp.abs(x) == kept_out) * grad).astype(x.dtype, copy=False)
    if order == 1:
        return (xp.sign(x) * grad).astype(x.dtype, copy=False)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = xp.abs(x) / xp.where(kept_out == 0, xp.ones_like(kept_out), kept_out)
        local = xp.sign(x) * ratio ** (order - 1)
        local = xp.where(kept_out == 0, xp.zeros_like(local), local)
    return (local * grad).astype(x.dtype, copy=False)


# -- all, any, count_nonzero ------------------------------------------------------------

@register_kernel("all", ALL_BACKENDS, ALL_TYPES)
def reduce_all(ctx, x, axis, keepdim):
    return ctx.xp.all(x, axis=_axes(axis, x.ndim), keepdims=keepdim)


@register_kernel("any", ALL_BACKENDS, ALL_TYPES)
def reduce_any(ctx, x, axis, keepdim):
    return ctx.xp.any(x, axis=_axes(axis, x.ndim), keepdims=keepdim)


@register_kernel("count_nonzero", ALL_BACKENDS, ALL_TYPES)
def count_nonzero(ctx, x, axis, keepdim):
    return ctx.xp.sum(x != 0, axis=_axes(axis, x.ndim), keepdims=keepdim, dtype=_INT64)


# -- nansum, nanmean ------------------------------------------------------------------

@register_kernel("nansum", ALL_BACKENDS, REAL)
def nansum(ctx, x, axis, dtype, keepdim):
    xp = ctx.xp
    if dtype is not None:
        out_dtype = dtype.numpy_dtype
    elif x.dtype == _INT32:
        out_dtype = _INT64  # as sum: int32 widens (nansum_infer_meta)
    else:
        out_dtype = x.dtype
    values = xp.where(x == x, x, xp.zeros_like(x)) if x.dtype.kind == "f" else x
    total = xp.sum(values, axis=_axes(axis, x.ndim), dtype=sum_dtype(out_dtype), keepdims=keepdim)
    return total.astype(out_dtype, copy=False)


@register_kernel("nansum_grad", ALL_BACKENDS, FLOATS)
def nansum_grad(ctx, x, out_grad, axis, dtype, keepdim):
    xp = ctx.xp
    grad = xp.where(x == x, _kept(x, out_grad, axis).astype(x.dtype, copy=False), xp.zeros((), x.dtype))
    return xp.broadcast_to(grad, x.shape).astype(x.dtype)


@register_kernel("nanmean", ALL_BACKENDS, FLOATS)
def nanmean(ctx, x, axis, keepdim):
    xp = ctx.xp
    axes = _axes(axis, x.ndim)
    present = x == x
    total = xp.sum(xp.where(present, x, xp.zeros_like(x)), axis=axes, keepdims=keepdim, dtype=sum_dtype(x.dtype))
    count = xp.sum(present, axis=axes, keepdims=keepdim)
    return _safe_divide(xp, total, count).astype(x.dtype, copy=False)  # all NaN: NaN


@register_kernel("nanmean_grad", ALL_BACKENDS, FLOATS)
def nanmean_grad(ctx, x, out_grad, axis, keepdim):
    xp = ctx.xp
    present = x == x
    count = xp.sum(present, axis=_axes(axis, x.ndim), keepdims=True)
    share = _kept(x, out_grad, axis) / xp.maximum(count, 1)
    return xp.where(present, share, xp.zeros((), x.dtype)).astype(x.dtype, copy=False)


# -- median ---------------------------------------------------------------------------

def _median_dtype(dtype):
    return dtype if dtype == np.float64 else np.dtype("float32")


def _middle_ranks(n):
    """The sorted positions whose mean is the median of n values."""
    return ((n - 1) // 2, n // 2)


@register_kernel("median", ALL_BACKENDS, ALL_TYPES_AND_BFLOAT16)  # bfloat16 too: it computes in float32
def median(ctx, x, axis, keepdim):
    xp = ctx.xp
    axes = _axes(() if axis is None else (axis,), x.ndim)
    out_dtype = _median_dtype(x.dtype)
    last, rest = _to_last(xp, x.astype(out_dtype, copy=False), axes)
    ordered = xp.sort(last, axis=-1)  # InferMeta refused an empty reduced axis
    low, high = _middle_ranks(last.shape[-1])
    # An odd count's median is the middle element itself (x + x overflows near the
    # dtype's largest value, as Paddle's slice of topk does not).
    values = ordered[..., low] if low == high else (ordered[..., low] + ordered[..., high]) / 2
    # A NaN sorts last; Paddle's median of a set holding one is NaN (nanmedian skips them).
    values = xp.where(xp.isnan(ordered[..., -1]), ordered[..., -1], values)
    if keepdim:
        return values.reshape(kept_shape(x.shape, axes))
    return values.reshape(tuple(x.shape[i] for i in rest)).astype(out_dtype, copy=False)


@register_kernel("median_grad", ALL_BACKENDS, FLOATS)
def median_grad(ctx, x, out_grad, axis, keepdim):
    """Half the gradient to each of the two middle values (the whole to the middle
    one for odd counts); a middle value held by several elements shares its half
    evenly among them (as amax does), so the rule needs no stable sort."""
    xp = ctx.xp
    axes = _axes(() if axis is None else (axis,), x.ndim)
    last, rest = _to_last(xp, x, axes)
    n = last.shape[-1]
    weights = xp.zeros(last.shape, dtype=out_grad.dtype)
    if n and last.size:
        ordered = xp.sort(last, axis=-1)
        half = out_grad.reshape(last.shape[:-1] + (1,)) / 2
        for middle in _middle_ranks(n):
            holders = last == ordered[..., middle:middle + 1]
            weights = weights + holders * (half / xp.sum(holders, axis=-1, keepdims=True))
    return _from_last(xp, weights, x.shape, axes, rest).astype(x.dtype)


# -- cumsum, cumprod, logcumsumexp ----------------------------------------------------------

def _scan_input(x, axis, dtype):
    """The array a scan runs over (flattened when axis is None, cast to dtype) and its axis."""
    if dtype is not None:
        x = x.astype(dtype.numpy_dtype, copy=False)
    if axis is None:
        return x.reshape(-1), 0
    return x, axis % x.ndim if x.ndim else 0


def _reversed_along(a, axis):
    index = [slice(None)] * a.ndim
    index[axis] = slice(None, None, -1)
    return a[tuple(index)]


def _scan_ready(x, axis):
    """0-d input scans as a 1-vector."""
    return x.reshape(1) if x.ndim == 0 else x


def _scan_into(scan, x, axis, dtype, into):
    """``scan`` (xp.cumsum or xp.cumprod) of x along axis (flattened when None, cast to
    dtype); with ``into`` (an array of the result's shape and dtype: the inplace op's
    target, KernelFactory.writes_into) the scan runs with ``out=`` there. ``into``
    reshaped to the scanned array is a view of it: the result's shape is the scanned
    one, but for a 0-d x, whose one element scans as a 1-vector."""
    values, along = _scan_input(x, axis, dtype)
    scanned = _scan_ready(values, along)
    accumulate = sum_dtype(values.dtype)
    if into is None:
        return scan(scanned, axis=along, dtype=accumulate).astype(values.dtype, copy=False).reshape(values.shape)
    if accumulate == values.dtype:
        scan(scanned, axis=along, dtype=accumulate, out=into.reshape(scanned.shape))
    else:
        into.reshape(scanned.shape)[...] = scan(scanned, axis=along, dtype=accumulate)
    return into



@register_kernel("cumsum", ALL_BACKENDS, (DataType.BOOL,) + REAL + COMPLEX)  # bool with a dtype: cast first
def cumsum(ctx, x, axis, dtype, *, into=None):  # into: see _scan_into
    return _scan_into(ctx.xp.cumsum, x, axis, dtype, into)


@register_kernel("cumsum_grad", ALL_BACKENDS, FLOATS + COMPLEX)
def cumsum_grad(ctx, x, out_grad, axis, dtype):
    """The reversed cumulative sum of the gradient, back in x's shape and dtype."""
    xp = ctx.xp
    grad = _scan_ready(out_grad, 0)
    along = 0 if axis is None or x.ndim == 0 else axis % x.ndim
    summed = _reversed_along(xp.cumsum(_reversed_along(grad, along), axis=along,
                                       dtype=sum_dtype(grad.dtype)), along)
    return summed.reshape(x.shape).astype(x.dtype, copy=False)


@register_kernel("cumprod", ALL_BACKENDS, (DataType.BOOL,) + REAL + COMPLEX)  # bool with a dtype: cast first
def cumprod(ctx, x, dim, dtype, *, into=None):  # into: see _scan_into
    return _scan_into(ctx.xp.cumprod, x, dim, dtype, into)


def _lines_last(xp, a, axis):
    """The scanned lines of ``a`` with the scan axis last (0-d as one line of 1)."""
    a = a.reshape(1) if a.ndim == 0 else a
    return xp.moveaxis(a, 0 if axis is None else axis % a.ndim, -1)


def _reverse_affine_scan(xp, a, b):
    """s_i = b_i + a_i s_{i+1} along the last axis (nothing after the end), in
    log2(n) vectorized steps: each step composes every affine map with the one d
    places later (a Hillis-Steele scan), instead of n Python iterations."""
    a, b = a.copy(), b.copy()
    n, d = a.shape[-1], 1
    while d < n:
        composed_b = b[..., :-d] + a[..., :-d] * b[..., d:]
        a[..., :-d] = a[..., :-d] * a[..., d:]
        b[..., :-d] = composed_b
        d *= 2
    return b


@register_kernel("cumprod_grad", ALL_BACKENDS, FLOATS + COMPLEX)
def cumprod_grad(ctx, x, out_grad, dim, dtype):
    """dx_i = prod_{j<i} x_j * s_i with s_i = g_i + x_{i+1} s_{i+1}: no division, so
    zeros in x are exact. For complex x, Paddle's convention for a holomorphic op: the
    products are of conj(x)."""
    xp = ctx.xp
    values = conj(x.astype(out_grad.dtype, copy=False))
    if dim is None:
        values = values.reshape(-1)
    moved = _lines_last(xp, values, dim)
    grads = _lines_last(xp, out_grad.reshape(values.shape), dim)
    following = xp.concatenate([moved[..., 1:], xp.zeros_like(moved[..., :1])], axis=-1)
    result = _exclusive_cumprod(xp, moved) * _reverse_affine_scan(xp, following, grads)
    along = 0 if dim is None or x.ndim == 0 else dim % x.ndim
    return xp.moveaxis(result, -1, along).reshape(x.shape).astype(x.dtype, copy=False)


@register_kernel("logcumsumexp", ALL_BACKENDS, (DataType.BOOL,) + REAL)  # an integer x with a dtype: cast first
def logcumsumexp(ctx, x, axis, dtype):
    """log(cumsum(exp(x))) by logaddexp, which cannot overflow, in log2(n)
    vectorized steps (a Hillis-Steele scan)."""
    xp = ctx.xp
    values = x if dtype is None else x.astype(dtype.numpy_dtype, copy=False)
    if axis is None:
        values = values.reshape(-1)
    out = _lines_last(xp, values, axis).copy()
    d = 1
    while d < out.shape[-1]:
        out[..., d:] = xp.logaddexp(out[..., d:], out[..., :-d])
        d *= 2
    along = 0 if axis is None or values.ndim == 0 else axis % values.ndim
    return xp.moveaxis(out, -1, along).reshape(values.shape)


def _nan_to_zero(xp, a):
    return xp.where(a == a, a, xp.zeros((), a.dtype))


@register_kernel("logcumsumexp_grad", ALL_BACKENDS, FLOATS)
def logcumsumexp_grad(ctx, x, out, out_grad, axis, dtype):
    """dx_i = sum_{k>=i} g_k exp(x_i - out_k) = exp(x_i - out_i) t_i, where
    t_i = g_i + exp(out_i - out_{i+1}) t_{i+1}: every factor is <= 1 (out never
    decreases), so nothing overflows; between two -inf the factor is 0."""
    xp = ctx.xp
    values = x.astype(out_grad.dtype, copy=False)
    if axis is None:
        values = values.reshape(-1)
    moved = _lines_last(xp, values, axis)
    outs = _lines_last(xp, out.reshape(values.shape), axis)
    grads = _lines_last(xp, out_grad.reshape(values.shape), axis)
    with np.errstate(invalid="ignore", over="ignore"):
        steps = _nan_to_zero(xp, xp.exp(outs[..., :-1] - outs[..., 1:]))
        steps = xp.concatenate([steps, xp.zeros_like(outs[..., :1])], axis=-1)
        result = _nan_to_zero(xp, xp.exp(moved - outs)) * _reverse_affine_scan(xp, steps, grads)
    # The zeroing above is for -inf - -inf; a NaN in x makes the line's last out NaN,
    # and every dx_i of the line sums a g_k exp(x_i - NaN): NaN, as in Paddle and the
    # composite logcumsumexp_grad; so does an x_i of +inf (exp(inf - inf)).
    if outs.shape[-1]:
        result = xp.where(xp.isnan(outs[..., -1:]), outs[..., -1:], result)
        result = xp.where(moved == xp.inf, xp.asarray(xp.nan, dtype=result.dtype), result)
    along = 0 if axis is None or x.ndim == 0 else axis % x.ndim
    return xp.moveaxis(result, -1, along).reshape(x.shape).astype(x.dtype, copy=False)
