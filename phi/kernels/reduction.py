"""Reductions over axes and their gradients."""
import numpy as np

from ..common.data_type import DataType as T
from ..common.shape_rules import reduced_axes
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, ALL_TYPES, INEXACT, INTS, NUMERIC
from .funcs import kept_shape, sum_dtype
from .fusion import fused


_INT64 = np.dtype("int64")
_INT32 = np.dtype("int32")


def _axes(axis, ndim):
    """Kernel-side axis tuple: empty means all; negatives allowed (InferMeta validated)."""
    return reduced_axes(ndim, axis)


@register_kernel("sum", ALL_BACKENDS, ALL_TYPES)
def sum(ctx, x, axis, dtype, keepdim):
    if dtype is not None:
        out_dtype = dtype.numpy_dtype
    elif x.dtype == _INT32 or x.dtype.kind == "b":
        out_dtype = _INT64  # Paddle widens bool and int32 sums only (sum_infer_meta)
    else:
        out_dtype = x.dtype
    total = ctx.xp.sum(x, axis=_axes(axis, x.ndim), dtype=sum_dtype(out_dtype), keepdims=keepdim)
    return total.astype(out_dtype, copy=False)


@register_kernel("sum_grad", ALL_BACKENDS, NUMERIC)
def sum_grad(ctx, x, out_grad, axis, keepdim):
    xp = ctx.xp
    kept = kept_shape(x.shape, _axes(axis, x.ndim))
    out = xp.empty(x.shape, dtype=x.dtype)
    xp.copyto(out, out_grad.reshape(kept), casting="unsafe")
    return out


@fused
def mean_gpu(xp, x, count, *, axes):
    """sum(x) / count over axes (one fused reduction)."""
    return xp.sum(x, axis=axes) / count


def mean_over(xp, x, axis, keepdim, accumulate, result):
    """sum(x) / count over axis, summed in ``accumulate`` and returned as ``result``;
    the mean of nothing is NaN, as NumPy says, but without its warning. On a GPU,
    a mean of floats in their own dtype is one fused kernel (the reduction's
    order of additions is CuPy's either way)."""
    axes = _axes(axis, x.ndim)
    count = 1
    for a in axes:
        count *= x.shape[a]
    if xp is not np and axes and x.size and accumulate is None and x.dtype == result and not keepdim:
        return mean_gpu(xp, x, count, axes=tuple(sorted(a % x.ndim for a in axes)))
    total = xp.sum(x, axis=axes, keepdims=keepdim, dtype=accumulate)
    if count == 0:
        return xp.full(total.shape, xp.nan, dtype=result)
    return xp.divide(total, count).astype(result, copy=False)


@register_kernel("mean", ALL_BACKENDS, INEXACT)
def mean(ctx, x, axis, keepdim):
    # float16 sums in float32 (sum_dtype); CuPy's float16 sum already does, so on a
    # GPU the mean stays one fused kernel.
    accumulate = sum_dtype(x.dtype) if ctx.xp is np else x.dtype
    return mean_over(ctx.xp, x, axis, keepdim, None if accumulate == x.dtype else accumulate, x.dtype)


@register_kernel("mean", ALL_BACKENDS, (T.BOOL,) + INTS)
def mean_of_integers(ctx, x, axis, keepdim):
    """The mean of bool or integer values as float32 (Paddle 3's rule: the
    average of integers is not an integer); summed in float64 so that large
    int64 totals keep their precision until the one rounding at the end."""
    return mean_over(ctx.xp, x, axis, keepdim, ctx.xp.float64, ctx.xp.float32)


@register_kernel("mean_grad", ALL_BACKENDS, INEXACT)
def mean_grad(ctx, x, out_grad, axis, keepdim):
    xp = ctx.xp
    axes = _axes(axis, x.ndim)
    count = 1
    for a in axes:
        count *= x.shape[a]
    out = xp.empty(x.shape, dtype=x.dtype)
    if out.size:
        xp.copyto(out, xp.divide(out_grad, count).reshape(kept_shape(x.shape, axes)),
                  casting="unsafe")
    return out
