"""Kernels of the normalization ops: batch_norm, layer_norm, group_norm,
instance_norm (issue #10).

Every op normalizes groups of elements by their own mean and (biased)
variance, then applies a per-feature scale and bias. Each forward is one pass
of vectorised reductions over a 2-D or 3-D view of x (no copy where the
layout allows), and each backward is the closed form

    dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),  g = dy * scale,

with mean over the normalized group, so no op keeps more than x-sized
temporaries alive. float16 inputs compute in float32 and round at the end.
The forward ops return the statistics they used (mean and variance, as
Paddle does) so the backward need not reduce x again.
"""
from __future__ import annotations

import math

from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, FLOATS


def _compute(xp, a):
    """a in the dtype the arithmetic runs in: float32 for float16, itself otherwise."""
    return a.astype(xp.float32) if a is not None and a.dtype == xp.float16 else a


def _rstd(xp, variance, epsilon):
    return 1.0 / xp.sqrt(variance + epsilon)


def _row_dot(xp, a, b):
    """sum(a * b) along the last axis, without an a-sized temporary."""
    return xp.einsum("...j,...j->...", a, b)


def _layer_rows(x, begin_norm_axis):
    left = math.prod(x.shape[:begin_norm_axis])
    return left, math.prod(x.shape[begin_norm_axis:])


@register_kernel("layer_norm", ALL_BACKENDS, FLOATS)
def layer_norm(ctx, x, scale, bias, epsilon, begin_norm_axis):
    """out = (x - mean) / sqrt(var + epsilon) * scale + bias over the axes from
    begin_norm_axis on; mean and variance come back flattened to [left]."""
    xp = ctx.xp
    left, right = _layer_rows(x, begin_norm_axis)
    x2 = _compute(xp, x).reshape(left, right)
    mean = x2.mean(axis=1) if right else xp.zeros(left, x2.dtype)
    out = x2 - mean[:, None]
    variance = _row_dot(xp, out, out) / max(right, 1)
    out *= _rstd(xp, variance, epsilon)[:, None]
    if scale is not None:
        out *= _compute(xp, scale).reshape(right)
    if bias is not None:
        out += _compute(xp, bias).reshape(right)
    return out.reshape(x.shape).astype(x.dtype, copy=False), mean.astype(x.dtype), variance.astype(x.dtype)


@register_kernel("layer_norm_grad", ALL_BACKENDS, FLOATS)
def layer_norm_grad(ctx, x, scale, bias, mean, variance, out_grad, epsilon, begin_norm_axis, *, out_mask=None):
    xp = ctx.xp
    want_x, want_scale, want_bias = out_mask or (True, scale is not None, bias is not None)
    left, right = _layer_rows(x, begin_norm_axis)
    dy = _compute(xp, out_grad).reshape(left, right)
    rstd = _rstd(xp, _compute(xp, variance).reshape(left, 1), epsilon)
    xhat = _compute(xp, x).reshape(left, right) - _compute(xp, mean).reshape(left, 1)
    xhat *= rstd
    x_grad = scale_grad = bias_grad = None
    if want_scale and scale is not None:
        scale_grad = xp.einsum("ij,ij->j", dy, xhat).reshape(scale.shape).astype(scale.dtype, copy=False)
    if want_bias and bias is not None:
        bias_grad = dy.sum(axis=0).reshape(bias.shape).astype(bias.dtype, copy=False)
    if want_x:
        g = dy * _compute(xp, scale).reshape(right) if scale is not None else dy
        x_grad = _standardized_grad(xp, g, xhat, rstd, right)
        x_grad = x_grad.reshape(x.shape).astype(x.dtype, copy=False)
    return x_grad, scale_grad, bias_grad


def _standardized_grad(xp, g, xhat, rstd, count):
    """rstd * (g - mean(g) - xhat * mean(g * xhat)) along the last axis: the
    gradient through (x - mean) * rstd of the incoming g. Overwrites xhat."""
    count = max(count, 1)
    mean_g = g.sum(axis=-1, keepdims=True) / count
    mean_gx = _row_dot(xp, g, xhat)[..., None] / count
    xhat *= -mean_gx
    xhat += g
    xhat -= mean_g
    xhat *= rstd
    return xhat
