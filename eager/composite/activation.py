"""Composite rules of the activation ops beyond the spine's relu/sigmoid/tanh/softmax (issue #10) (see eager/composite/__init__.py).

Each rule is ``out_grad * f'(x)`` written with differentiable ops, so the
gradient recorded under ``create_graph`` can be differentiated again, to any
order. Branches that ``where`` discards are kept finite (exp of min(x, 0),
sigmoid rather than exp), since the gradient of the discarded branch is
multiplied by zero and 0 * inf would be NaN.
"""
from __future__ import annotations

from ..generated import forward_api as _F

_SQRT_HALF = 0.7071067811865476        # 1 / sqrt(2)
_INV_SQRT_2PI = 0.3989422804014327     # 1 / sqrt(2 pi)
_SQRT_2_OVER_PI = 0.7978845608028654   # sqrt(2 / pi)
_GELU_CUBIC = 0.044715


def _const(x, value):
    return _F.full_like(x, value, None)


def _masked(mask, grad):
    """grad where mask holds, 0 elsewhere."""
    return _F.where(mask, grad, _const(grad, 0.0))


def _outside(x, threshold):
    """|x| > threshold, as two comparisons (the gradient mask of the shrink ops)."""
    return _F.logical_or(_F.greater_than(x, _const(x, threshold)), _F.less_than(x, _const(x, -threshold)))


def _exp_nonpositive(x, divisor=1.0):
    """exp(min(x, 0) / divisor): the negative branch of elu/selu/celu, finite everywhere."""
    clipped = _F.minimum(x, _const(x, 0.0))
    return _F.exp(clipped if divisor == 1.0 else _F.scale(clipped, 1.0 / divisor, 0.0, True))


def gelu_grad(x, out_grad, approximate):
    if approximate:
        square = _F.square(x)
        t = _F.tanh(_F.scale(_F.multiply(x, _F.scale(square, _GELU_CUBIC, 1.0, True)), _SQRT_2_OVER_PI, 0.0, True))
        outer = _F.scale(t, 0.5, 0.5, True)
        inner = _F.multiply(_F.multiply(x, _F.scale(_F.square(t), -1.0, 1.0, True)),
                            _F.scale(square, 3 * _GELU_CUBIC, 1.0, True))
        slope = _F.add(outer, _F.scale(inner, 0.5 * _SQRT_2_OVER_PI, 0.0, True))
    else:
        cdf = _F.scale(_F.erf(_F.scale(x, _SQRT_HALF, 0.0, True)), 0.5, 0.5, True)
        pdf = _F.scale(_F.exp(_F.scale(_F.square(x), -0.5, 0.0, True)), _INV_SQRT_2PI, 0.0, True)
        slope = _F.add(cdf, _F.multiply(x, pdf))
    return _F.multiply(out_grad, slope)


def silu_grad(x, out_grad):
    s = _F.sigmoid(x)
    return _F.multiply(out_grad, _F.multiply(s, _F.add(_const(x, 1.0), _F.multiply(x, _F.scale(s, -1.0, 1.0, True)))))


def leaky_relu_grad(x, out_grad, negative_slope):
    return _F.where(_F.greater_equal(x, _const(x, 0.0)), out_grad, _F.scale(out_grad, negative_slope, 0.0, True))


def elu_grad(x, out_grad, alpha):
    negative = _F.multiply(out_grad, _F.scale(_exp_nonpositive(x), alpha, 0.0, True))
    return _F.where(_F.greater_than(x, _const(x, 0.0)), out_grad, negative)


def selu_grad(x, out_grad, scale, alpha):
    return _F.scale(elu_grad(x, out_grad, alpha), scale, 0.0, True)


def celu_grad(x, out_grad, alpha):
    negative = _F.multiply(out_grad, _exp_nonpositive(x, alpha))
    return _F.where(_F.greater_than(x, _const(x, 0.0)), out_grad, negative)


def softplus_grad(x, out_grad, beta, threshold):
    scaled = _F.scale(x, beta, 0.0, True)
    return _F.where(_F.greater_than(scaled, _const(x, threshold)), out_grad,
                    _F.multiply(out_grad, _F.sigmoid(scaled)))


def softsign_grad(x, out_grad):
    return _F.divide(out_grad, _F.square(_F.scale(_F.abs(x), 1.0, 1.0, True)))


def softshrink_grad(x, out_grad, threshold):
    return _masked(_outside(x, threshold), out_grad)


def hardshrink_grad(x, out_grad, threshold):
    return _masked(_outside(x, threshold), out_grad)


def tanhshrink_grad(x, out_grad):
    return _F.multiply(out_grad, _F.square(_F.tanh(x)))


def hardtanh_grad(x, out_grad, min, max):  # noqa: A002  (Paddle's argument names)
    inside = _F.logical_and(_F.greater_than(x, _const(x, min)), _F.less_than(x, _const(x, max)))
    return _masked(inside, out_grad)


def hardswish_grad(x, out_grad):
    middle = _F.multiply(out_grad, _F.scale(x, 1.0 / 3.0, 0.5, True))   # (2x + 3) / 6
    # Paddle's kernel: the linear piece only strictly inside (-3, 3); 0 at -3, 1 at 3
    upper = _F.where(_F.greater_equal(x, _const(x, 3.0)), out_grad, middle)
    return _F.where(_F.less_equal(x, _const(x, -3.0)), _const(out_grad, 0.0), upper)


def hardsigmoid_grad(x, out_grad, slope, offset):
    linear = _F.scale(x, slope, offset, True)
    inside = _F.logical_and(_F.greater_than(linear, _const(x, 0.0)), _F.less_than(linear, _const(x, 1.0)))
    return _masked(inside, _F.scale(out_grad, slope, 0.0, True))


def mish_grad(x, out_grad):
    t = _F.tanh(_F.softplus(x, 1.0, float("inf")))
    slope = _F.add(t, _F.multiply(_F.multiply(x, _F.scale(_F.square(t), -1.0, 1.0, True)), _F.sigmoid(x)))
    return _F.multiply(out_grad, slope)


def log_sigmoid_grad(x, out_grad):
    return _F.multiply(out_grad, _F.sigmoid(_F.neg(x)))


def thresholded_relu_grad(x, out_grad, threshold):
    return _masked(_F.greater_than(x, _const(x, threshold)), out_grad)
