"""Unary elementwise math kernels (abs, neg, powers, exp/log, rounding, predicates,
logic) and their gradients. The group's trigonometric kernels are in
math_unary_trig.py and its special functions and complex parts in
math_unary_special.py (Bessel functions in math_unary_bessel.py, incomplete gamma
in math_unary_igamma.py): the generator writes one module per kernel module, and
one for the whole group would be too long.

Gradients of complex inputs follow the convention of the other kernels
(tanh_grad): for a holomorphic f the gradient is ``out_grad * conj(f'(x))``;
for the non-holomorphic ones (abs, real, imag, conj, angle) it is
``dL/d(re x) + i dL/d(im x)``.
"""
import math

import numpy as np

from ..common.data_type import DataType as T
from ..common.data_type import float_info
from ..core.kernel_registry import register_kernel
# The group's other kernel modules register their kernels when imported.
from . import math_unary_bessel, math_unary_igamma, math_unary_special, math_unary_trig  # noqa: F401
from .dtypes import ALL_BACKENDS, ALL_TYPES, FLOATS, INEXACT, INTS, NUMERIC
from .funcs import conj, copied_into

WIDE_INTS = (T.INT32, T.INT64)
REAL_AND_WIDE_INTS = FLOATS + WIDE_INTS  # trunc, as Paddle registers it
# frac: Paddle's frac refuses float16 and bfloat16 before its kernel, in dynamic mode too
FRAC_TYPES = (T.FLOAT32, T.FLOAT64) + WIDE_INTS
BOOL_AND_INTS = (T.BOOL,) + INTS

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


def _unary(name, dtypes, ufunc_name, doc):
    """Registers kernel ``name`` as the array library's ufunc ``ufunc_name``."""
    def kernel(ctx, x):
        return getattr(ctx.xp, ufunc_name)(x)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = doc
    return register_kernel(name, ALL_BACKENDS, dtypes)(kernel)


# -- abs, neg, powers ------------------------------------------------------------------

@register_kernel("abs", ALL_BACKENDS, NUMERIC)
def abs(ctx, x, *, into=None):  # noqa: A001  (the op's name)
    return ctx.xp.abs(x, out=into)  # |x|; the modulus (a real tensor) for complex x


@register_kernel("abs_grad", ALL_BACKENDS, INEXACT)
def abs_grad(ctx, x, out_grad):
    """out_grad * sign(x): 0 at x == 0, as Paddle; x / |x| (0 at 0) for complex x."""
    xp = ctx.xp
    if x.dtype.kind != "c":
        return xp.multiply(out_grad, xp.sign(x))
    modulus = xp.abs(x)
    safe = xp.where(modulus == 0, 1, modulus)
    return xp.where(modulus == 0, 0, xp.multiply(out_grad, x / safe)).astype(x.dtype)


# neg and square have inplace twins: written out, each can write into its target
# (into=, KernelFactory.writes_into) and is bound as the ufunc itself otherwise.

@register_kernel("neg", ALL_BACKENDS, NUMERIC)
def neg(ctx, x, *, into=None):
    return ctx.xp.negative(x, out=into)  # -x


@register_kernel("square", ALL_BACKENDS, NUMERIC)
def square(ctx, x, *, into=None):
    return ctx.xp.square(x, out=into)  # x * x


@register_kernel("square_grad", ALL_BACKENDS, INEXACT)
def square_grad(ctx, x, out_grad):
    return ctx.xp.multiply(out_grad, conj(x * 2))


@register_kernel("sqrt", ALL_BACKENDS, INEXACT)
def sqrt(ctx, x, *, into=None):
    return ctx.xp.sqrt(x, out=into)


@register_kernel("sqrt_grad", ALL_BACKENDS, INEXACT)
def sqrt_grad(ctx, out, out_grad):
    return ctx.xp.divide(out_grad * 0.5, conj(out))


@register_kernel("rsqrt", ALL_BACKENDS, INEXACT)
def rsqrt(ctx, x, *, into=None):
    """1 / sqrt(x), the reciprocal taken in the square root's array (0-d: a new scalar)."""
    xp = ctx.xp
    root = xp.sqrt(x, out=into)
    return xp.reciprocal(root, out=root if x.ndim or into is not None else None)


@register_kernel("rsqrt_grad", ALL_BACKENDS, INEXACT)
def rsqrt_grad(ctx, out, out_grad):
    return ctx.xp.multiply(out_grad * -0.5, conj(out * out * out))


@register_kernel("reciprocal", ALL_BACKENDS, INEXACT)
def reciprocal(ctx, x, *, into=None):
    return ctx.xp.reciprocal(x, out=into)


@register_kernel("reciprocal_grad", ALL_BACKENDS, INEXACT)
def reciprocal_grad(ctx, out, out_grad):
    return ctx.xp.multiply(-out_grad, conj(out * out))


# -- exponentials and logarithms ---------------------------------------------------------

@register_kernel("expm1", ALL_BACKENDS, INEXACT)
def expm1(ctx, x, *, into=None):
    return ctx.xp.expm1(x, out=into)  # exp(x) - 1, accurate for small x


@register_kernel("expm1_grad", ALL_BACKENDS, INEXACT)
def expm1_grad(ctx, out, out_grad):
    return ctx.xp.multiply(out_grad, conj(out + 1))


@register_kernel("log1p", ALL_BACKENDS, INEXACT)
def log1p(ctx, x, *, into=None):
    return ctx.xp.log1p(x, out=into)  # log(1 + x), accurate for small x


@register_kernel("log2", ALL_BACKENDS, INEXACT)
def log2(ctx, x, *, into=None):
    return ctx.xp.log2(x, out=into)


@register_kernel("log10", ALL_BACKENDS, INEXACT)
def log10(ctx, x, *, into=None):
    return ctx.xp.log10(x, out=into)


def _float32_of_integers(name, ufunc_name):
    """Registers kernel ``name`` for int32 and int64 x as the ufunc of x read as float32:
    Paddle 2.6's exp, expm1 and logarithms return float32 for integer tensors."""
    def kernel(ctx, x, *, into=None):  # into: a float32 buffer (see KernelFactory.writes_into)
        return getattr(ctx.xp, ufunc_name)(x.astype(np.float32), out=into)

    kernel.__name__ = kernel.__qualname__ = f"{name}_integer"
    return register_kernel(name, ALL_BACKENDS, WIDE_INTS)(kernel)


for _name in ("exp", "expm1", "log", "log1p", "log2", "log10"):
    _float32_of_integers(_name, _name)


@register_kernel("log1p_grad", ALL_BACKENDS, INEXACT)
def log1p_grad(ctx, x, out_grad):
    return ctx.xp.divide(out_grad, conj(x + 1))


@register_kernel("log2_grad", ALL_BACKENDS, INEXACT)
def log2_grad(ctx, x, out_grad):
    return ctx.xp.divide(out_grad, conj(x * _LN2))


@register_kernel("log10_grad", ALL_BACKENDS, INEXACT)
def log10_grad(ctx, x, out_grad):
    return ctx.xp.divide(out_grad, conj(x * _LN10))


# -- rounding --------------------------------------------------------------------------------

@register_kernel("floor", ALL_BACKENDS, FLOATS)
def floor(ctx, x, *, into=None):
    return ctx.xp.floor(x, out=into)  # the largest integer <= x


@register_kernel("ceil", ALL_BACKENDS, FLOATS)
def ceil(ctx, x, *, into=None):
    return ctx.xp.ceil(x, out=into)  # the smallest integer >= x


@register_kernel("trunc", ALL_BACKENDS, REAL_AND_WIDE_INTS)
def trunc(ctx, input, *, into=None):  # noqa: A002  (Paddle's argument name)
    """input rounded toward zero (integers unchanged)."""
    if input.dtype.kind not in "iu":
        return ctx.xp.trunc(input, out=into)
    if into is None:
        return input.copy()
    into[...] = input
    return into


@register_kernel("round", ALL_BACKENDS, FLOATS)
def round(ctx, x, *, into=None):  # noqa: A001  (the op's name)
    """x rounded to the nearest integer, halves away from zero (Paddle's rule;
    numpy.round sends halves to the even neighbour: round(2.5) is 2 there, 3 here)."""
    xp = ctx.xp
    whole = xp.trunc(x)
    # x - trunc(x) is exact, so the comparison decides halves exactly (where
    # floor(|x| + 0.5) would round 0.49999999999999994 up).
    with np.errstate(invalid="ignore"):  # inf - inf: the comparison is False and inf stays
        away = xp.abs(x - whole) >= 0.5
    return copied_into(xp.where(away, whole + xp.sign(x), whole).astype(x.dtype), into)


@register_kernel("frac", ALL_BACKENDS, FRAC_TYPES)
def frac(ctx, x, *, into=None):
    """x - trunc(x): the fractional part with x's sign (0 for integers)."""
    xp = ctx.xp
    if x.dtype.kind not in "iu":
        return xp.subtract(x, xp.trunc(x), out=into)
    if into is None:
        return xp.zeros_like(x)
    into[...] = 0
    return into


# -- predicates and logic ------------------------------------------------------------------

isnan = _unary("isnan", ALL_TYPES, "isnan", "Whether x is NaN (bool).")
isinf = _unary("isinf", ALL_TYPES, "isinf", "Whether x is +-inf (bool).")
isfinite = _unary("isfinite", ALL_TYPES, "isfinite", "Whether x is neither NaN nor infinite (bool).")


@register_kernel("logical_not", ALL_BACKENDS, ALL_TYPES)
def logical_not(ctx, x, *, into=None):
    return ctx.xp.logical_not(x, out=into)  # not x, elementwise (bool); non-zero is True


@register_kernel("bitwise_not", ALL_BACKENDS, BOOL_AND_INTS)
def bitwise_not(ctx, x, *, into=None):
    return ctx.xp.invert(x, out=into)  # ~x: the bits flipped (not x for bool)


@register_kernel("nan_to_num", ALL_BACKENDS, FLOATS + (T.BFLOAT16,))  # bfloat16 as it is: only selects
def nan_to_num(ctx, x, nan, posinf, neginf, *, into=None):
    """NaN -> nan, +inf -> posinf, -inf -> neginf (None: the dtype's largest or
    smallest finite value)."""
    xp = ctx.xp
    info = float_info(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = xp.where(xp.isnan(x), xp.asarray(nan, x.dtype), x)
    out = xp.where(x == xp.inf, xp.asarray(posinf, x.dtype), out)
    return copied_into(xp.where(x == -xp.inf, xp.asarray(neginf, x.dtype), out), into)


@register_kernel("nan_to_num_grad", ALL_BACKENDS, FLOATS)
def nan_to_num_grad(ctx, x, out_grad):
    """out_grad where x is finite; 0 where x was replaced."""
    xp = ctx.xp
    return xp.where(xp.isfinite(x), out_grad, xp.zeros((), out_grad.dtype))


@register_kernel("nextafter", ALL_BACKENDS, (T.FLOAT32, T.FLOAT64))
def nextafter(ctx, x, y):
    """The next representable value after x in the direction of y (x itself where x == y)."""
    return ctx.xp.nextafter(x, y)
