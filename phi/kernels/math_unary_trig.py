"""Trigonometric and hyperbolic kernels and their gradients (the math_unary ops' second
kernel module: one generated module per kernel module, and one would be too long).

Complex gradients are out_grad * conj(f'(x)), as in phi/kernels/math_unary.py.
"""
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, INEXACT
from .funcs import conj


def _unary(name, dtypes, ufunc_name, doc):
    """Registers kernel ``name`` as the array library's ufunc ``ufunc_name``."""
    def kernel(ctx, x):
        return getattr(ctx.xp, ufunc_name)(x)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = doc
    return register_kernel(name, ALL_BACKENDS, dtypes)(kernel)


# -- trigonometric and hyperbolic ----------------------------------------------------------

sin = _unary("sin", INEXACT, "sin", "The sine.")
cos = _unary("cos", INEXACT, "cos", "The cosine.")
tan = _unary("tan", INEXACT, "tan", "The tangent.")
asin = _unary("asin", INEXACT, "arcsin", "The inverse sine.")
acos = _unary("acos", INEXACT, "arccos", "The inverse cosine.")
atan = _unary("atan", INEXACT, "arctan", "The inverse tangent.")
sinh = _unary("sinh", INEXACT, "sinh", "The hyperbolic sine.")
cosh = _unary("cosh", INEXACT, "cosh", "The hyperbolic cosine.")
asinh = _unary("asinh", INEXACT, "arcsinh", "The inverse hyperbolic sine.")
acosh = _unary("acosh", INEXACT, "arccosh", "The inverse hyperbolic cosine.")
atanh = _unary("atanh", INEXACT, "arctanh", "The inverse hyperbolic tangent.")


@register_kernel("sin_grad", ALL_BACKENDS, INEXACT)
def sin_grad(ctx, x, out_grad):
    return ctx.xp.multiply(out_grad, conj(ctx.xp.cos(x)))


@register_kernel("cos_grad", ALL_BACKENDS, INEXACT)
def cos_grad(ctx, x, out_grad):
    return ctx.xp.multiply(out_grad, conj(-ctx.xp.sin(x)))


@register_kernel("tan_grad", ALL_BACKENDS, INEXACT)
def tan_grad(ctx, x, out_grad):
    return ctx.xp.divide(out_grad, conj(ctx.xp.square(ctx.xp.cos(x))))


@register_kernel("asin_grad", ALL_BACKENDS, INEXACT)
def asin_grad(ctx, x, out_grad):
    return ctx.xp.divide(out_grad, conj(ctx.xp.sqrt(1 - x * x)))


@register_kernel("acos_grad", ALL_BACKENDS, INEXACT)
def acos_grad(ctx, x, out_grad):
    return ctx.xp.divide(-out_grad, conj(ctx.xp.sqrt(1 - x * x)))


@register_kernel("atan_grad", ALL_BACKENDS, INEXACT)
def atan_grad(ctx, x, out_grad):
    return ctx.xp.divide(out_grad, conj(1 + x * x))


@register_kernel("sinh_grad", ALL_BACKENDS, INEXACT)
def sinh_grad(ctx, x, out_grad):
    return ctx.xp.multiply(out_grad, conj(ctx.xp.cosh(x)))


@register_kernel("cosh_grad", ALL_BACKENDS, INEXACT)
def cosh_grad(ctx, x, out_grad):
    return ctx.xp.multiply(out_grad, conj(ctx.xp.sinh(x)))


@register_kernel("asinh_grad", ALL_BACKENDS, INEXACT)
def asinh_grad(ctx, x, out_grad):
    return ctx.xp.divide(out_grad, conj(ctx.xp.sqrt(x * x + 1)))


@register_kernel("acosh_grad", ALL_BACKENDS, INEXACT)
def acosh_grad(ctx, x, out_grad):
    # sqrt(x - 1) * sqrt(x + 1), not sqrt(x * x - 1): the same for real x > 1, and
    # the derivative of arccosh's principal branch for complex x.
    xp = ctx.xp
    return xp.divide(out_grad, conj(xp.sqrt(x - 1) * xp.sqrt(x + 1)))


@register_kernel("atanh_grad", ALL_BACKENDS, INEXACT)
def atanh_grad(ctx, x, out_grad):
    return ctx.xp.divide(out_grad, conj(1 - x * x))
