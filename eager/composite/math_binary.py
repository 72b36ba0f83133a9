"""Composite rules of the math binary ops (see eager/composite/__init__.py)."""
from __future__ import annotations

from ..generated import forward_api as _F
from .spine import sum_to_shape, where_grad


def elementwise_pow_grad(x, y, out_grad):
    # d/dx x**y = y * x**(y-1); d/dy x**y = log(x) * x**y (Paddle's formulas, NaN where x <= 0).
    x_grad = _F.multiply(out_grad, _F.multiply(y, _F.elementwise_pow(x, _F.scale(y, 1.0, -1.0, True))))
    y_grad = _F.multiply(out_grad, _F.multiply(_F.log(x), _F.elementwise_pow(x, y)))
    return sum_to_shape(x_grad, x.shape), sum_to_shape(y_grad, y.shape)


def clip_grad(x, out_grad, min, max):  # noqa: A002  (Paddle's argument names)
    # Zero strictly outside [min, max]; the edges pass the gradient, as in Paddle.
    zeros = _F.full_like(out_grad, 0, None)
    grad = out_grad
    if min is not None:
        grad = _F.where(_F.less_than(x, _F.full_like(x, min, None)), zeros, grad)
    if max is not None:
        grad = _F.where(_F.greater_than(x, _F.full_like(x, max, None)), zeros, grad)
    return grad if grad is not out_grad else _F.assign(out_grad)


def atan2_grad(x, y, out_grad):
    # atan2(x, y) = arctan(x / y): d/dx = y / (x^2 + y^2), d/dy = -x / (x^2 + y^2).
    scaled = _F.divide(out_grad, _F.add(_F.multiply(x, x), _F.multiply(y, y)))
    return (sum_to_shape(_F.multiply(scaled, y), x.shape),
            sum_to_shape(_F.scale(_F.multiply(scaled, x), -1.0, 0.0, True), y.shape))


def hypot_grad(x, y, out, out_grad):
    scaled = _F.divide(out_grad, out)
    return sum_to_shape(_F.multiply(scaled, x), x.shape), sum_to_shape(_F.multiply(scaled, y), y.shape)


def lerp_grad(x, y, weight, out_grad):
    # out = x + weight * (y - x)
    return (sum_to_shape(_F.multiply(out_grad, _F.scale(weight, -1.0, 1.0, True)), x.shape),
            sum_to_shape(_F.multiply(out_grad, weight), y.shape),
            sum_to_shape(_F.multiply(out_grad, _F.subtract(y, x)), weight.shape))


def fmax_grad(x, y, out_grad):
    # Paddle: to x where x >= y or y is NaN (ties go to x), to y elsewhere.
    return where_grad(_F.logical_or(_F.greater_equal(x, y), _F.not_equal(y, y)), x, y, out_grad)


def fmin_grad(x, y, out_grad):
    return where_grad(_F.logical_or(_F.less_equal(x, y), _F.not_equal(y, y)), x, y, out_grad)
