"""Composite rules of the normalization ops: batch_norm, layer_norm, group_norm, instance_norm (issue #10) (see eager/composite/__init__.py).

Each rule recomputes the statistics from x with differentiable ops (rather
than using the mean and variance the forward saved, which carry no history),
so the gradient it returns differentiates again to any order through x,
scale and out_grad.
"""
from __future__ import annotations

from ..generated import forward_api as _F


def _standardize(x, axes, epsilon):
    """((x - mean) * rstd, rstd) over ``axes`` (kept), differentiable in x."""
    centered = _F.subtract(x, _F.mean(x, axes, True))
    variance = _F.mean(_F.multiply(centered, centered), axes, True)
    rstd = _F.rsqrt(_F.scale(variance, 1.0, float(epsilon), True))
    return _F.multiply(centered, rstd), rstd


def _standardized_grad(g, xhat, rstd, axes):
    """rstd * (g - mean(g) - xhat * mean(g * xhat)) over ``axes``: the gradient of
    g . xhat with respect to x."""
    mean_g = _F.mean(g, axes, True)
    mean_gx = _F.mean(_F.multiply(g, xhat), axes, True)
    return _F.multiply(_F.subtract(_F.subtract(g, mean_g), _F.multiply(xhat, mean_gx)), rstd)


def _sum_over(t, axes, shape):
    """t summed over ``axes`` (none: t itself), reshaped to ``shape``."""
    if axes:
        t = _F.sum(t, list(axes), None, False)
    return _F.reshape(t, list(shape))


def layer_norm_grad(x, scale, bias, mean, variance, out_grad, epsilon, begin_norm_axis):
    ndim = len(x.shape)
    normalized = list(range(begin_norm_axis, ndim))
    leading = list(range(begin_norm_axis))
    trailing = list(x.shape[begin_norm_axis:])
    xhat, rstd = _standardize(x, normalized, epsilon)
    g = out_grad if scale is None else _F.multiply(out_grad, _F.reshape(scale, trailing))
    x_grad = _standardized_grad(g, xhat, rstd, normalized)
    scale_grad = None if scale is None else _sum_over(_F.multiply(out_grad, xhat), leading, scale.shape)
    bias_grad = None if bias is None else _sum_over(out_grad, leading, bias.shape)
    return x_grad, scale_grad, bias_grad
