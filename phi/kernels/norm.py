"""Kernels of the normalization ops: batch_norm, layer_norm, group_norm,
instance_norm (issue #10).

Every op standardizes groups of elements by their own mean and biased
variance, then applies a per-feature scale and bias. One engine serves all
four: x is reshaped (no copy) into a view whose ``stat_axes`` are the axes a
group reduces over and whose ``param_axes`` carry the features that scale and
bias index (phi.infermeta.norm.norm_layout says which, per op and data
format). The forward makes one x-sized temporary (x - mean), which becomes
the output in place; the backward is the closed form

    dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),  g = dy * scale,

again in one x-sized temporary (plus g where scale varies within a group:
layer and group norm). Reductions of products are einsums, so no product is
materialised. float16 computes in float32 and rounds at the end. The forward
ops return the statistics they normalized with, so the backward need not
reduce x again.
"""
from __future__ import annotations

import math
import string

from ..core.kernel_registry import register_kernel
from ..infermeta.norm import batch_norm_global_stats, norm_layout
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


def _normalize(xp, x, scale, bias, epsilon, view, stat_axes, param_axes, mean=None, variance=None):
    """(out, mean, variance): x standardized over stat_axes (by the given
    statistics, else its own) then scaled and shifted; the statistics in the
    view's kept shape, in the compute dtype."""
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
    statistics are constants (batch_norm on running statistics)."""
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
