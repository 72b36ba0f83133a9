"""Unary elementwise kernels and their gradients."""
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, FLOATS, INEXACT, NUMERIC
from .funcs import conj


@register_kernel("relu", ALL_BACKENDS, FLOATS)
def relu(ctx, x):
    return ctx.xp.maximum(x, 0)


@register_kernel("relu_grad", ALL_BACKENDS, FLOATS)
def relu_grad(ctx, out, out_grad):
    return ctx.xp.multiply(out_grad, out > 0)


@register_kernel("tanh", ALL_BACKENDS, INEXACT)
def tanh(ctx, x):
    return ctx.xp.tanh(x)


@register_kernel("tanh_grad", ALL_BACKENDS, INEXACT)
def tanh_grad(ctx, out, out_grad):
    xp = ctx.xp
    return xp.multiply(out_grad, conj(1 - xp.square(out)))


@register_kernel("sigmoid", ALL_BACKENDS, FLOATS)
def sigmoid(ctx, x):
    # 0.5 * (1 + tanh(x / 2)) is sigmoid without the overflow of exp(-x) for large |x|.
    xp = ctx.xp
    return xp.multiply(xp.tanh(xp.multiply(x, 0.5)) + 1, 0.5)


@register_kernel("sigmoid_grad", ALL_BACKENDS, FLOATS)
def sigmoid_grad(ctx, out, out_grad):
    return ctx.xp.multiply(out_grad, out * (1 - out))


@register_kernel("exp", ALL_BACKENDS, INEXACT)
def exp(ctx, x):
    return ctx.xp.exp(x)


@register_kernel("exp_grad", ALL_BACKENDS, INEXACT)
def exp_grad(ctx, out, out_grad):
    return ctx.xp.multiply(out_grad, conj(out))


@register_kernel("log", ALL_BACKENDS, INEXACT)
def log(ctx, x):
    return ctx.xp.log(x)


@register_kernel("log_grad", ALL_BACKENDS, INEXACT)
def log_grad(ctx, x, out_grad):
    return ctx.xp.divide(out_grad, conj(x))


@register_kernel("pow", ALL_BACKENDS, INEXACT)
def pow(ctx, x, y):
    return ctx.xp.power(x, y)


@register_kernel("pow_grad", ALL_BACKENDS, INEXACT)
def pow_grad(ctx, x, out_grad, y):
    xp = ctx.xp
    if y == 0:
        return xp.zeros_like(out_grad)
    return xp.multiply(out_grad, xp.multiply(xp.power(conj(x), y - 1), y))


@register_kernel("scale", ALL_BACKENDS, NUMERIC)
def scale(ctx, x, scale, bias, bias_after_scale):
    if bias_after_scale:
        out = x * scale + bias if bias else x * scale
    else:
        out = (x + bias) * scale
    # An integer tensor scaled by a float stays integer, as in Paddle.
    return out if out.dtype == x.dtype else out.astype(x.dtype)


@register_kernel("scale_grad", ALL_BACKENDS, NUMERIC)
def scale_grad(ctx, out_grad, scale):
    out = out_grad * scale
    return out if out.dtype == out_grad.dtype else out.astype(out_grad.dtype)
