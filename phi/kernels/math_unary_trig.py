"""Trigonometric and hyperbolic kernels and their gradients (the math_unary ops' second
kernel module: one generated module per kernel module, and one would be too long).

Complex gradients are out_grad * conj(f'(x)), as in phi/kernels/math_unary.py.
"""
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, INEXACT
from .funcs import conj


# -- trigonometric and hyperbolic ----------------------------------------------------------
# Each is the array library's ufunc, written out (not made by a helper) so that the
# dispatch table binds the ufunc itself for the out-of-place op (forwarded_xp_function)
# and the inplace op writes into its target (into=, KernelFactory.writes_into).

@register_kernel("sin", ALL_BACKENDS, INEXACT)
def sin(ctx, x, *, into=None):
    return ctx.xp.sin(x, out=into)  # the sine


@register_kernel("cos", ALL_BACKENDS, INEXACT)
def cos(ctx, x, *, into=None):
    return ctx.xp.cos(x, out=into)  # the cosine


@register_kernel("tan", ALL_BACKENDS, INEXACT)
def tan(ctx, x, *, into=None):
    return ctx.xp.tan(x, out=into)  # the tangent


@register_kernel("asin", ALL_BACKENDS, INEXACT)
def asin(ctx, x, *, into=None):
    return ctx.xp.arcsin(x, out=into)  # the inverse sine


@register_kernel("acos", ALL_BACKENDS, INEXACT)
def acos(ctx, x, *, into=None):
    return ctx.xp.arccos(x, out=into)  # the inverse cosine


@register_kernel("atan", ALL_BACKENDS, INEXACT)
def atan(ctx, x, *, into=None):
    return ctx.xp.arctan(x, out=into)  # the inverse tangent


@register_kernel("sinh", ALL_BACKENDS, INEXACT)
def sinh(ctx, x, *, into=None):
    return ctx.xp.sinh(x, out=into)  # the hyperbolic sine


@register_kernel("cosh", ALL_BACKENDS, INEXACT)
def cosh(ctx, x, *, into=None):
    return ctx.xp.cosh(x, out=into)  # the hyperbolic cosine


@register_kernel("asinh", ALL_BACKENDS, INEXACT)
def asinh(ctx, x, *, into=None):
    return ctx.xp.arcsinh(x, out=into)  # the inverse hyperbolic sine


@register_kernel("acosh", ALL_BACKENDS, INEXACT)
def acosh(ctx, x, *, into=None):
    return ctx.xp.arccosh(x, out=into)  # the inverse hyperbolic cosine


@register_kernel("atanh", ALL_BACKENDS, INEXACT)
def atanh(ctx, x, *, into=None):
    return ctx.xp.arctanh(x, out=into)  # the inverse hyperbolic tangent


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
