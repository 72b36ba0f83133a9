"""Composite rules of the normalization ops: batch_norm, layer_norm, group_norm, instance_norm (issue #10) (see eager/composite/__init__.py).

Each rule sees x through the same view as the kernels (phi.infermeta.norm.
norm_layout) and recomputes the statistics from x with differentiable ops
(rather than using the mean and variance the forward saved, which carry no
history), so the gradient it returns differentiates again to any order
through x, scale and out_grad. batch_norm on running statistics uses the
saved ones: they are constants there.
"""
from __future__ import annotations

from phi.infermeta.norm import batch_norm_global_stats, norm_layout, one_value_per_channel

from ..generated import forward_api as _F


def _standardize(x, axes, epsilon):
    """((x - mean) * rstd, rstd) over ``axes`` (kept), differentiable in x."""
    centered = _F.subtract(x, _F.mean(x, list(axes), True))
    variance = _F.mean(_F.multiply(centered, centered), list(axes), True)
    rstd = _F.rsqrt(_F.scale(variance, 1.0, float(epsilon), True))
    return _F.multiply(centered, rstd), rstd


def _standardized_grad(g, xhat, rstd, axes):
    """rstd * (g - mean(g) - xhat * mean(g * xhat)) over ``axes``: the gradient of
    g . xhat with respect to x."""
    mean_g = _F.mean(g, list(axes), True)
    mean_gx = _F.mean(_F.multiply(g, xhat), list(axes), True)
    return _F.multiply(_F.subtract(_F.subtract(g, mean_g), _F.multiply(xhat, mean_gx)), rstd)


def _sum_over(t, axes, shape):
    """t summed over ``axes`` (none: t itself), reshaped to ``shape``."""
    if axes:
        t = _F.sum(t, list(axes), None, False)
    return _F.reshape(t, list(shape))


def _normalize_grad(x, scale, bias, out_grad, epsilon, layout, stats=None):
    view, stat_axes, param_axes = layout
    view = list(view)
    pshape = [d if i in param_axes else 1 for i, d in enumerate(view)]
    outside = [i for i in range(len(view)) if i not in param_axes]
    xv, dy = _F.reshape(x, view), _F.reshape(out_grad, view)
    if stats is None:
        xhat, rstd = _standardize(xv, stat_axes, epsilon)
    else:
        kept = [1 if i in stat_axes else d for i, d in enumerate(view)]
        mean, variance = (_F.reshape(s, kept) for s in stats)
        rstd = _F.rsqrt(_F.scale(variance, 1.0, float(epsilon), True))
        xhat = _F.multiply(_F.subtract(xv, mean), rstd)
    g = dy if scale is None else _F.multiply(dy, _F.reshape(scale, pshape))
    x_grad = _F.multiply(g, rstd) if stats is not None else _standardized_grad(g, xhat, rstd, stat_axes)
    scale_grad = None if scale is None else _sum_over(_F.multiply(dy, xhat), outside, scale.shape)
    bias_grad = None if bias is None else _sum_over(dy, outside, bias.shape)
    return _F.reshape(x_grad, x.shape), scale_grad, bias_grad


def layer_norm_grad(x, scale, bias, mean, variance, out_grad, epsilon, begin_norm_axis):
    layout = norm_layout("layer_norm", x.shape, begin_norm_axis=begin_norm_axis)
    return _normalize_grad(x, scale, bias, out_grad, epsilon, layout)


def batch_norm_grad(x, scale, bias, saved_mean, saved_variance, out_grad, momentum, epsilon, data_format, is_test,
                    use_global_stats, trainable_statistics):
    layout = norm_layout("batch_norm", x.shape, data_format=data_format)
    fixed = batch_norm_global_stats(is_test, use_global_stats, trainable_statistics)
    if not fixed and one_value_per_channel(layout[0], layout[1]):   # the kernel's y = x (Paddle's)
        return (_F.scale(out_grad, 1.0, 0.0, True), None if scale is None else _F.zeros_like(scale),
                None if bias is None else _F.zeros_like(bias))
    return _normalize_grad(x, scale, bias, out_grad, epsilon, layout,
                           (saved_mean, saved_variance) if fixed else None)


def instance_norm_grad(x, scale, bias, saved_mean, saved_variance, out_grad, epsilon, data_format):
    layout = norm_layout("instance_norm", x.shape, data_format=data_format)
    return _normalize_grad(x, scale, bias, out_grad, epsilon, layout)


def group_norm_grad(x, scale, bias, mean, variance, out_grad, epsilon, groups, data_format):
    layout = norm_layout("group_norm", x.shape, data_format=data_format, groups=groups)
    return _normalize_grad(x, scale, bias, out_grad, epsilon, layout)
