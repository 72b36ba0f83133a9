"""Kernels of the normalization ops: batch_norm, layer_norm, group_norm,
instance_norm (issue #10).

Every op standardizes groups of elements by their own mean and biased
variance, then applies a per-feature scale and bias. One engine serves all
four: x is reshaped (no copy) into a view whose ``stat_axes`` are the axes a
group reduces over and whose ``param_axes`` carry the features that scale and
bias index (phi.infermeta.norm.norm_layout says which, per op and data
format). The backward is the closed form

    dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),  g = dy * scale.

Three forms of it (docs/performance.md, "Batch norm and pooling kernels"):

- batch_norm and instance_norm over [N, C, S] (scale constant within a
  group): sums by BLAS combined in float64 (_sums), a one-pass forward
  x * a + b while mean^2 <= _ONE_PASS_RATIO * var on the CPU, else x - mean
  made first; the backward through t = x - mean, in t's buffer;
- layer_norm's rows: matrix-vector products for every reduction;
- the general engine (group norm, channel-last layouts): x - mean becomes the
  output in place, reductions of products are einsums.

float16 computes in float32 and rounds at the end. The forward ops return the
statistics they normalized with, so the backward need not reduce x again.
"""
from __future__ import annotations

import math
import string

import numpy as np

from ..core.kernel_registry import register_kernel
from ..infermeta.norm import batch_norm_global_stats, norm_layout, one_value_per_channel
from .dtypes import ALL_BACKENDS, FLOATS
from .funcs import kept_shape


def _compute(xp, a):
    """a in the dtype the arithmetic runs in: float32 for float16, itself otherwise."""
    return a.astype(xp.float32) if a is not None and a.dtype == xp.float16 else a


def _dot(xp, a, b, axes):
    """sum(a * b) over ``axes`` (kept as size 1), without an a-sized product."""
    letters = string.ascii_letters[:a.ndim]
    kept = "".join(letter for i, letter in enumerate(letters) if i not in axes)
    out = xp.einsum(f"{letters},{letters}->{kept}", a, b)
    return out.reshape(kept_shape(a.shape, axes))


def _param_shape(view, param_axes):
    """The shape scale and bias take in the view (1 outside param_axes)."""
    return tuple(d if i in param_axes else 1 for i, d in enumerate(view))


def _other_axes(ndim, axes):
    return tuple(i for i in range(ndim) if i not in axes)


def _count(view, axes):
    return max(math.prod(view[i] for i in axes), 1)


# The forward's one-pass statistics (sums of x and x * x, reduced by BLAS and combined in
# float64) lose about mean^2 / variance times the rounding of those sums to cancellation, and
# so does its x * a + b output. They are used while every group's mean^2 is at most this many
# times its variance: up to it the float32 error measured no larger than the centered form's
# (docs/performance.md, "Batch norm and pooling kernels"); beyond it x - mean is made first.
_ONE_PASS_RATIO = 4.0


def _summable(xp, view, stat_axes, param_axes, scale, bias):
    """Whether the BLAS-reduced forms apply: the view's last axis among the reduced
    ones and scale and bias constant within a group (batch_norm and instance_norm
    NCHW). A bias that varies within a group (group_norm's per channel) needs its
    own sums, which the reduced forms' per-group sum of dy does not give."""
    return (len(view) - 1 in stat_axes and math.prod(view) > 0
            and ((scale is None and bias is None) or not set(param_axes) & set(stat_axes)))


def _sums(xp, view, stat_axes, a, b=None, b_sum=False):
    """[sum of a, sum of a * b (given b), sum of b (with b_sum)] over stat_axes in
    float64, in the kept shape: along the last axis by BLAS in a's dtype (a product
    with ones, one dot product per row), along the other reduced axes in float64.
    No a-sized temporary."""
    n = view[-1]
    rows = a.reshape(-1, n)
    ones = xp.ones(n, dtype=a.dtype)
    sums = [rows @ ones]
    if b is not None:
        other_rows = b.reshape(-1, n)
        if n >= 256:   # one BLAS dot per row; einsum's loop is faster on short rows
            sums.append(xp.matmul(rows[:, None, :], other_rows[:, :, None]).reshape(-1))
        else:
            sums.append(xp.einsum("ij,ij->i", rows, other_rows))
        if b_sum:
            sums.append(other_rows @ ones)
    outer = tuple(axis for axis in stat_axes if axis != len(view) - 1)
    kept = kept_shape(view, stat_axes)
    out = []
    for total in sums:
        total = total.astype(xp.float64).reshape(view[:-1])
        if outer:
            total = total.sum(axis=outer, keepdims=True)
        out.append(total.reshape(kept))
    return out


def _planes(xp, view, kept):
    """(shape, operand): the shape to run the elementwise passes in and how a
    per-group array of ``kept`` shape (or a param-shaped one) enters them. Where
    the groups span axis 0 (batch_norm's channels), x is seen as [N, C * S] and
    the per-channel values repeated S times, a contiguous operand: NumPy's loop
    over a stride-0 one runs about twice as slow (docs/performance.md)."""
    if kept[0] == 1 and len(view) > 2 and view[0] > 1:
        inner = (1,) + tuple(view[1:])
        return (view[0], math.prod(view[1:])), lambda a: xp.broadcast_to(a, inner).reshape(1, -1)
    return view, lambda a: a


def _one_pass_safe(xp, mean, variance):
    """Whether every group's mean^2 is within _ONE_PASS_RATIO of its variance (False on NaN)."""
    return bool(xp.all(mean * mean <= _ONE_PASS_RATIO * variance))


def _affine64(xp, a, shape):
    """scale or bias as a float64 array of ``shape`` (the param shape), or None."""
    return None if a is None else a.astype(xp.float64).reshape(shape)


def _normalize(xp, x, scale, bias, epsilon, view, stat_axes, param_axes, mean=None, variance=None):
    """(out, mean, variance): x standardized over stat_axes (by the given
    statistics, else its own) then scaled and shifted; the statistics in the
    view's kept shape, in the compute dtype.

    Where _summable (batch and instance norm on the CPU) the statistics come
    from one pass of BLAS sums and the output is x * a + b with a = rstd * scale
    and b = bias - mean * a per group (two passes), while _ONE_PASS_RATIO
    holds; else x - mean is made first, its sums correct the statistics and it
    becomes the output. Layer and group norm run _normalize_two_pass."""
    if _rows_layout(view, stat_axes, param_axes):
        return _layer_normalize(xp, x, scale, bias, epsilon, view, mean, variance)
    if not _summable(xp, view, stat_axes, param_axes, scale, bias):
        return _normalize_two_pass(xp, x, scale, bias, epsilon, view, stat_axes, param_axes, mean, variance)
    xv = _compute(xp, x).reshape(view)
    dtype = xv.dtype
    kept = kept_shape(view, stat_axes)
    count = _count(view, stat_axes)
    if mean is None and xp is np:
        s1, s2 = _sums(xp, view, stat_axes, xv, xv)
        mean64 = s1 / count
        var64 = xp.maximum(s2 / count - mean64 * mean64, 0.0)
    elif mean is None:   # a GPU: the ratio test would read a value back, so always centered
        mean64 = _sums(xp, view, stat_axes, xv)[0] / count
        var64 = None
    else:
        mean64 = mean.astype(xp.float64).reshape(kept)
        var64 = variance.astype(xp.float64).reshape(kept)
    centered = None
    shape, operand = _planes(xp, view, kept)
    if var64 is None or xp is not np or not _one_pass_safe(xp, mean64, var64):
        shift = mean64.astype(dtype)
        centered = xv.reshape(shape) - operand(shift)
        if mean is None:   # the centered x's statistics: no cancellation
            t1, t2 = _sums(xp, view, stat_axes, centered.reshape(view), centered.reshape(view))
            offset = t1 / count
            mean64 = shift.astype(xp.float64) + offset
            var64 = xp.maximum(t2 / count - offset * offset, 0.0)
    pshape = _param_shape(view, param_axes)
    a = 1.0 / xp.sqrt(var64 + epsilon)
    if scale is not None:
        a = a * _affine64(xp, scale, pshape)
    b = 0.0 if bias is None else _affine64(xp, bias, pshape)
    if centered is None:
        out = xv.reshape(shape) * operand(a.astype(dtype))
        out += operand((b - mean64 * a).astype(dtype))
    else:
        out = centered
        out *= operand(a.astype(dtype))
        out += operand((b - (mean64 - shift) * a).astype(dtype))
    return out.reshape(x.shape).astype(x.dtype, copy=False), mean64.astype(dtype), var64.astype(dtype)


def _rows_layout(view, stat_axes, param_axes):
    """Whether the view is layer_norm's: rows [left, right], each standardized over
    its own elements, scale and bias indexing the columns."""
    return len(view) == 2 and stat_axes == (1,) and param_axes == (1,) and math.prod(view) > 0


def _layer_normalize(xp, x, scale, bias, epsilon, view, mean=None, variance=None):
    """_normalize for layer_norm's rows: the mean a BLAS product with ones, then
    t = x - mean, whose own sums correct the mean and give the variance (no
    cancellation), and t becomes the output."""
    xv = _compute(xp, x).reshape(view)
    dtype = xv.dtype
    ones = xp.ones(view[1], dtype=dtype)
    if mean is None:
        mean64 = (xv @ ones).astype(xp.float64)[:, None] / view[1]
        shift = mean64.astype(dtype)
        out = xv - shift
        offset = (out @ ones).astype(xp.float64)[:, None] / view[1]
        var64 = xp.maximum(xp.einsum("ij,ij->i", out, out).astype(xp.float64)[:, None] / view[1]
                           - offset * offset, 0.0)
        mean64 = shift.astype(xp.float64) + offset
    else:
        mean64 = _compute(xp, mean).reshape(view[0], 1).astype(xp.float64)
        var64 = _compute(xp, variance).reshape(view[0], 1).astype(xp.float64)
        shift = mean64.astype(dtype)
        offset = mean64 - shift
        out = xv - shift
    rstd = 1.0 / xp.sqrt(var64 + epsilon)
    out *= rstd.astype(dtype)
    correction = offset * rstd   # the rounding of the float32 mean, in output units
    if xp is np and float(xp.abs(correction).max()) > xp.finfo(dtype).eps:   # a pass only where it shows
        out -= correction.astype(dtype)
    if scale is not None:
        out *= _compute(xp, scale).reshape(1, -1)
    if bias is not None:
        out += _compute(xp, bias).reshape(1, -1)
    return out.reshape(x.shape).astype(x.dtype, copy=False), mean64.astype(dtype), var64.astype(dtype)


def _layer_normalize_grad(xp, x, scale, bias, mean, variance, out_grad, epsilon, view, out_mask):
    """_normalize_grad for layer_norm's rows. With t = x - mean and p = dy * t (one
    temporary, then g = dy * scale in its buffer), every reduction is a BLAS
    matrix-vector product: scale's gradient rstd @ p, bias's ones @ dy, the rows'
    sum(g) = dy @ scale and sum(g * t) = p @ scale; x_grad = (t * q + g) * rstd + k
    per row, written into t."""
    want_x, want_scale, want_bias = out_mask or (True, True, True)
    rows, cols = view
    dtype = _compute(xp, out_grad).dtype
    dy = _compute(xp, out_grad).reshape(view)
    rstd64 = 1.0 / xp.sqrt(_compute(xp, variance).reshape(rows, 1).astype(xp.float64) + epsilon)
    rstd = rstd64.astype(dtype)
    scale_v = None if scale is None else _compute(xp, scale).reshape(cols)
    t = _compute(xp, x).reshape(view) - _compute(xp, mean).reshape(rows, 1)
    p = dy * t
    x_grad = scale_grad = bias_grad = None
    if want_scale and scale is not None:
        scale_grad = (rstd[:, 0] @ p).reshape(scale.shape).astype(scale.dtype, copy=False)
    if want_bias and bias is not None:
        bias_grad = (xp.ones(rows, dtype=dtype) @ dy).reshape(bias.shape).astype(bias.dtype, copy=False)
    if want_x:
        if scale_v is None:
            sum_g, sum_gt = dy.sum(axis=1), p.sum(axis=1)
            g = dy
        else:
            sum_g, sum_gt = dy @ scale_v, p @ scale_v
            g = xp.multiply(dy, scale_v, out=p)
        mean_g = sum_g.astype(xp.float64)[:, None] / cols
        slope = -rstd64 * rstd64 * sum_gt.astype(xp.float64)[:, None] / cols   # -rstd * mean(g * xhat)
        t *= slope.astype(dtype)
        t += g
        t *= rstd
        t -= (rstd64 * mean_g).astype(dtype)
        x_grad = t.reshape(x.shape).astype(x.dtype, copy=False)
    return x_grad, scale_grad, bias_grad


def _normalize_two_pass(xp, x, scale, bias, epsilon, view, stat_axes, param_axes, mean=None, variance=None):
    """_normalize with centered statistics: x - mean once, which becomes the output."""
    xv = _compute(xp, x).reshape(view)
    if mean is None:
        mean = xv.mean(axis=stat_axes, keepdims=True) if xv.size else xp.zeros(kept_shape(view, stat_axes), xv.dtype)
        out = xv - mean
        variance = _dot(xp, out, out, stat_axes) / _count(view, stat_axes)
    else:
        mean = _compute(xp, mean).reshape(kept_shape(view, stat_axes))
        variance = _compute(xp, variance).reshape(mean.shape)
        out = xv - mean
    rstd = 1.0 / xp.sqrt(variance + epsilon)
    pshape = _param_shape(view, param_axes)
    if scale is None:
        out *= rstd
    elif set(param_axes) & set(stat_axes):   # scale varies within a group (layer, group norm)
        out *= rstd
        out *= _compute(xp, scale).reshape(pshape)
    else:                                    # one small factor per group and feature
        out *= rstd * _compute(xp, scale).reshape(pshape)
    if bias is not None:
        out += _compute(xp, bias).reshape(pshape)
    return out.reshape(x.shape).astype(x.dtype, copy=False), mean, variance


def _normalize_grad(xp, x, scale, bias, mean, variance, out_grad, epsilon, view, stat_axes, param_axes, out_mask,
                    stats_fixed=False):
    """(x_grad, scale_grad, bias_grad) of _normalize; with stats_fixed the
    statistics are constants (batch_norm on running statistics).

    Where _summable (batch and instance norm on the CPU): t = x - mean once,
    sum(dy) and sum(dy * t) by BLAS, then x_grad = (t * q + dy) * rstd * scale + k
    per group, written into t (five passes in all). Layer and group norm run
    _normalize_grad_centered."""
    if _rows_layout(view, stat_axes, param_axes) and not stats_fixed:
        return _layer_normalize_grad(xp, x, scale, bias, mean, variance, out_grad, epsilon, view, out_mask)
    if not _summable(xp, view, stat_axes, param_axes, scale, bias):
        return _normalize_grad_centered(xp, x, scale, bias, mean, variance, out_grad, epsilon, view, stat_axes,
                                        param_axes, out_mask, stats_fixed)
    want_x, want_scale, want_bias = out_mask or (True, True, True)
    want_scale = want_scale and scale is not None
    want_bias = want_bias and bias is not None
    kept = kept_shape(view, stat_axes)
    pshape = _param_shape(view, param_axes)
    dy = _compute(xp, out_grad).reshape(view)
    shape, operand = _planes(xp, view, kept)
    rstd = 1.0 / xp.sqrt(variance.astype(xp.float64).reshape(kept) + epsilon)
    factor = rstd if scale is None else rstd * _affine64(xp, scale, pshape)
    x_grad = scale_grad = bias_grad = None
    centered = None
    if want_scale or want_bias or (want_x and not stats_fixed):
        centered = _compute(xp, x).reshape(shape) - operand(_compute(xp, mean).reshape(kept))
        sum_dy, sum_dyt, sum_t = _sums(xp, view, stat_axes, dy, centered.reshape(view), b_sum=True)
        # t's own mean: what the saved statistics' rounding (and stats_fixed's running mean) leaves in it
        offset = sum_t / _count(view, stat_axes) if not stats_fixed else 0.0
        sum_dyt = sum_dyt - offset * sum_dy   # sum(dy * (t - offset))
        across = tuple(i for i in _other_axes(len(view), param_axes) if i not in stat_axes)  # instance norm's N
        if want_scale:
            total = rstd * sum_dyt
            scale_grad = (total.sum(axis=across, keepdims=True) if across else total).reshape(scale.shape)
            scale_grad = scale_grad.astype(scale.dtype)
        if want_bias:
            bias_grad = (sum_dy.sum(axis=across, keepdims=True) if across else sum_dy).reshape(bias.shape)
            bias_grad = bias_grad.astype(bias.dtype)
    if want_x:
        if stats_fixed:
            x_grad = dy.reshape(shape) * operand(factor.astype(dy.dtype))
        else:
            count = _count(view, stat_axes)
            # factor * (dy - mean(dy) - xhat * mean(dy * xhat)), xhat = (t - offset) * rstd
            slope = -rstd * rstd * sum_dyt / count
            x_grad = centered
            x_grad *= operand(slope.astype(dy.dtype))
            x_grad += dy.reshape(shape)
            x_grad *= operand(factor.astype(dy.dtype))
            x_grad += operand((-factor * (sum_dy / count + slope * offset)).astype(dy.dtype))
        x_grad = x_grad.reshape(x.shape).astype(x.dtype, copy=False)
    return x_grad, scale_grad, bias_grad


def _normalize_grad_centered(xp, x, scale, bias, mean, variance, out_grad, epsilon, view, stat_axes, param_axes,
                             out_mask, stats_fixed=False):
    """_normalize_grad through xhat = (x - mean) * rstd, made once."""
    want_x, want_scale, want_bias = out_mask or (True, True, True)
    kept = kept_shape(view, stat_axes)
    pshape = _param_shape(view, param_axes)
    outside = _other_axes(len(view), param_axes)
    dy = _compute(xp, out_grad).reshape(view)
    rstd = 1.0 / xp.sqrt(_compute(xp, variance).reshape(kept) + epsilon)
    xhat = _compute(xp, x).reshape(view) - _compute(xp, mean).reshape(kept)
    xhat *= rstd
    x_grad = scale_grad = bias_grad = None
    dy_xhat = sum_dy = None   # reductions over the non-feature axes, reused below where they are the group's
    if want_scale and scale is not None:
        dy_xhat = _dot(xp, dy, xhat, outside)
        scale_grad = dy_xhat.reshape(scale.shape).astype(scale.dtype, copy=False)
    if want_bias and bias is not None:
        sum_dy = dy.sum(axis=outside, keepdims=True)
        bias_grad = sum_dy.reshape(bias.shape).astype(bias.dtype, copy=False)
    if want_x:
        scale_b = None if scale is None else _compute(xp, scale).reshape(pshape)
        if stats_fixed:
            x_grad = dy * (rstd if scale_b is None else rstd * scale_b)
        elif scale_b is None or not set(param_axes) & set(stat_axes):
            # scale is constant within a group: factor it out, g = dy
            count = _count(view, stat_axes)
            reuse = outside == stat_axes   # batch_norm: the group is everything but the feature
            mean_g = (sum_dy if reuse and sum_dy is not None else dy.sum(axis=stat_axes, keepdims=True)) / count
            sum_gx = dy_xhat if reuse and dy_xhat is not None else _dot(xp, dy, xhat, stat_axes)
            x_grad = _standardized_grad(xhat, dy, mean_g, sum_gx / count,
                                        rstd if scale_b is None else rstd * scale_b)
        else:
            count = _count(view, stat_axes)
            g = dy * scale_b
            mean_g = g.sum(axis=stat_axes, keepdims=True) / count
            x_grad = _standardized_grad(xhat, g, mean_g, _dot(xp, g, xhat, stat_axes) / count, rstd)
        x_grad = x_grad.reshape(x.shape).astype(x.dtype, copy=False)
    return x_grad, scale_grad, bias_grad


def _standardized_grad(xhat, g, mean_g, mean_gx, factor):
    """factor * (g - mean_g - xhat * mean_gx), written into xhat."""
    xhat *= -mean_gx
    xhat += g
    xhat -= mean_g
    xhat *= factor
    return xhat


# -- layer_norm -----------------------------------------------------------------

@register_kernel("layer_norm", ALL_BACKENDS, FLOATS)
def layer_norm(ctx, x, scale, bias, epsilon, begin_norm_axis):
    """out = (x - mean) / sqrt(var + epsilon) * scale + bias over the axes from
    begin_norm_axis on; mean and variance come back flattened to [left]."""
    view, stat_axes, param_axes = norm_layout("layer_norm", x.shape, begin_norm_axis=begin_norm_axis)
    out, mean, variance = _normalize(ctx.xp, x, scale, bias, epsilon, view, stat_axes, param_axes)
    return out, mean.reshape(-1).astype(x.dtype), variance.reshape(-1).astype(x.dtype)


@register_kernel("layer_norm_grad", ALL_BACKENDS, FLOATS)
def layer_norm_grad(ctx, x, scale, bias, mean, variance, out_grad, epsilon, begin_norm_axis, *, out_mask=None):
    view, stat_axes, param_axes = norm_layout("layer_norm", x.shape, begin_norm_axis=begin_norm_axis)
    return _normalize_grad(ctx.xp, x, scale, bias, mean, variance, out_grad, epsilon, view, stat_axes, param_axes,
                           out_mask)


# -- batch_norm -----------------------------------------------------------------

@register_kernel("batch_norm", ALL_BACKENDS, FLOATS)
def batch_norm(ctx, x, mean, variance, scale, bias, is_test, momentum, epsilon, data_format, use_global_stats,
               trainable_statistics):
    """Per-channel batch normalization. With batch statistics (training): the
    new running statistics momentum * running + (1 - momentum) * batch (the
    biased batch variance, as Paddle) come back as mean_out/variance_out and
    the batch ones as saved_mean/saved_variance. With the running statistics
    (global): those are used and come back unchanged. The inputs are never
    written; the caller stores mean_out/variance_out into its buffers."""
    xp = ctx.xp
    view, stat_axes, param_axes = norm_layout("batch_norm", x.shape, data_format=data_format)
    if batch_norm_global_stats(is_test, use_global_stats, trainable_statistics):
        out, _, _ = _normalize(xp, x, scale, bias, epsilon, view, stat_axes, param_axes, mean, variance)
        return out, mean.copy(), variance.copy(), mean.astype(x.dtype), variance.astype(x.dtype)
    if one_value_per_channel(view, stat_axes):
        # Paddle's kernels (CPU and GPU) skip such a batch: y = x, running statistics unchanged
        zeros = xp.zeros(mean.shape, dtype=x.dtype)
        return x.copy(), mean.copy(), variance.copy(), zeros, zeros.copy()
    out, batch_mean, batch_variance = _normalize(xp, x, scale, bias, epsilon, view, stat_axes, param_axes)
    batch_mean, batch_variance = batch_mean.reshape(-1), batch_variance.reshape(-1)
    mean_out = (momentum * _compute(xp, mean) + (1.0 - momentum) * batch_mean).astype(mean.dtype, copy=False)
    variance_out = (momentum * _compute(xp, variance) + (1.0 - momentum) * batch_variance).astype(
        variance.dtype, copy=False)
    return out, mean_out, variance_out, batch_mean.astype(x.dtype), batch_variance.astype(x.dtype)


@register_kernel("batch_norm_grad", ALL_BACKENDS, FLOATS)
def batch_norm_grad(ctx, x, scale, bias, saved_mean, saved_variance, out_grad, momentum, epsilon, data_format,
                    is_test, use_global_stats, trainable_statistics, *, out_mask=None):
    view, stat_axes, param_axes = norm_layout("batch_norm", x.shape, data_format=data_format)
    fixed = batch_norm_global_stats(is_test, use_global_stats, trainable_statistics)
    if not fixed and one_value_per_channel(view, stat_axes):   # the forward was y = x (see batch_norm)
        want_x, want_scale, want_bias = out_mask or (True, True, True)
        xp = ctx.xp
        return (out_grad.copy() if want_x else None,
                xp.zeros_like(scale) if want_scale and scale is not None else None,
                xp.zeros_like(bias) if want_bias and bias is not None else None)
    return _normalize_grad(ctx.xp, x, scale, bias, saved_mean, saved_variance, out_grad, epsilon, view, stat_axes,
                           param_axes, out_mask, stats_fixed=fixed)


# -- instance_norm and group_norm -------------------------------------------------

@register_kernel("instance_norm", ALL_BACKENDS, FLOATS)
def instance_norm(ctx, x, scale, bias, epsilon, data_format):
    """Each (sample, channel) standardized over its spatial axes; saved_mean and
    saved_variance are [N * C]."""
    view, stat_axes, param_axes = norm_layout("instance_norm", x.shape, data_format=data_format)
    out, mean, variance = _normalize(ctx.xp, x, scale, bias, epsilon, view, stat_axes, param_axes)
    return out, mean.reshape(-1).astype(x.dtype), variance.reshape(-1).astype(x.dtype)


@register_kernel("instance_norm_grad", ALL_BACKENDS, FLOATS)
def instance_norm_grad(ctx, x, scale, bias, saved_mean, saved_variance, out_grad, epsilon, data_format, *,
                       out_mask=None):
    view, stat_axes, param_axes = norm_layout("instance_norm", x.shape, data_format=data_format)
    return _normalize_grad(ctx.xp, x, scale, bias, saved_mean, saved_variance, out_grad, epsilon, view, stat_axes,
                           param_axes, out_mask)


@register_kernel("group_norm", ALL_BACKENDS, FLOATS)
def group_norm(ctx, x, scale, bias, epsilon, groups, data_format):
    """Each (sample, group of C / groups channels) standardized over its
    channels and spatial axes; mean and variance are [N, groups]."""
    view, stat_axes, param_axes = norm_layout("group_norm", x.shape, data_format=data_format, groups=groups)
    out, mean, variance = _normalize(ctx.xp, x, scale, bias, epsilon, view, stat_axes, param_axes)
    n = x.shape[0]
    return out, mean.reshape(n, groups).astype(x.dtype), variance.reshape(n, groups).astype(x.dtype)


@register_kernel("group_norm_grad", ALL_BACKENDS, FLOATS)
def group_norm_grad(ctx, x, scale, bias, mean, variance, out_grad, epsilon, groups, data_format, *, out_mask=None):
    view, stat_axes, param_axes = norm_layout("group_norm", x.shape, data_format=data_format, groups=groups)
    return _normalize_grad(ctx.xp, x, scale, bias, mean, variance, out_grad, epsilon, view, stat_axes, param_axes,
                           out_mask)
