"""The elementary math kernels the spine was built on: exp, log, pow and scale,
with their gradients (kept apart from activation.py so each generated op module
stays readable).

scale's gradient takes ``into``: an array of out_grad's shape and dtype (the
engine passes out_grad's own buffer when it owns it exclusively; backward.yaml's
``inplace : (out_grad -> x_grad)``) into which the result may be written. It
returns the result, which is ``into`` when it wrote there.
"""
import math

import numpy as np

from ..core.errors import InvalidArgumentError, InvalidTypeError
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, COMPLEX, FLOATS, INEXACT, INTS, NUMERIC
from .funcs import conj, copied_into, host_factor


@register_kernel("exp", ALL_BACKENDS, INEXACT)
def exp(ctx, x, *, into=None):  # into: see KernelFactory.writes_into
    return ctx.xp.exp(x, out=into)


@register_kernel("exp_grad", ALL_BACKENDS, FLOATS)
def exp_grad(ctx, out, out_grad):
    # out * out_grad (the product is the same either way round): a kernel that only
    # forwards its arguments is called as np.multiply itself, no frame.
    return ctx.xp.multiply(out, out_grad)


@register_kernel("exp_grad", ALL_BACKENDS, COMPLEX)
def exp_grad_complex(ctx, out, out_grad):
    return ctx.xp.multiply(out_grad, ctx.xp.conj(out))


@register_kernel("log", ALL_BACKENDS, INEXACT)
def log(ctx, x, *, into=None):  # into: see KernelFactory.writes_into
    return ctx.xp.log(x, out=into)


@register_kernel("log_grad", ALL_BACKENDS, FLOATS)
def log_grad(ctx, x, out_grad):
    return ctx.xp.divide(out_grad, x)


@register_kernel("log_grad", ALL_BACKENDS, COMPLEX)
def log_grad_complex(ctx, x, out_grad):
    return ctx.xp.divide(out_grad, ctx.xp.conj(x))


def _refuse_complex_exponent(x, y):
    # The result takes x's dtype (unchanged_infer_meta): a complex exponent of a real x
    # has no result there (NumPy would return a complex array, or fail writing in place).
    # Paddle's paddle.pow takes an int or float y only and raises TypeError otherwise.
    if isinstance(y, complex) and x.dtype.kind != "c":
        raise InvalidTypeError(f"argument 'y' is the complex number {y!r} but x is {x.dtype.name}: the result keeps "
                               f"x's dtype; cast x to a complex dtype, or pass a real exponent")


@register_kernel("pow", ALL_BACKENDS, INEXACT)
def pow(ctx, x, y, *, into=None):  # noqa: A001  (the op's name)
    _refuse_complex_exponent(x, y)
    return ctx.xp.power(x, y, out=into)


@register_kernel("pow", ALL_BACKENDS, INTS)
def pow_integer(ctx, x, y, *, into=None):
    # Paddle's integer pow casts the exponent to x's type first (2.5 acts as 2), so the
    # result is an integer power in x's dtype; a negative one would be a fraction.
    _refuse_complex_exponent(x, y)
    exponent = int(y)  # toward zero, as a C++ cast
    if exponent < 0:
        raise InvalidArgumentError(f"argument 'y' ({y!r}) is a negative exponent for an integer tensor; integers "
                                   f"to negative powers are not integers: cast x to a floating dtype first")
    info = np.iinfo(x.dtype)
    if exponent > info.max:  # x.dtype.type(exponent) would be NumPy's OverflowError, naming neither op nor argument
        raise InvalidArgumentError(f"argument 'y' ({y!r}) expected an exponent in [0, {info.max}] for an "
                                   f"{x.dtype.name} tensor (Paddle casts it to x's dtype)")
    return ctx.xp.power(x, x.dtype.type(exponent), out=into)


@register_kernel("pow_grad", ALL_BACKENDS, INEXACT)
def pow_grad(ctx, x, out_grad, y):
    xp = ctx.xp
    if y == 0:
        return xp.zeros_like(out_grad)
    # out_grad times the conjugate derivative, conj(y x^(y-1)): y may be a complex scalar.
    return xp.multiply(out_grad, conj(xp.multiply(xp.power(x, y - 1), y)))


_REAL_BIAS = frozenset((float, int))  # a bias added in place into a float result (a complex one is not)


def _integral(value) -> bool:
    # An int, bool or finite float whose integer part is exact in any integer dtype's arithmetic.
    return type(value) in (int, bool, float) and math.isfinite(value) and abs(value) <= 2 ** 31


def _in_dtype(value, dtype):
    # A number as a NumPy scalar of the integer dtype, truncated toward zero and wrapping as a C++ cast
    # would (0.5 -> 0, -1 -> 255 in uint8): a host scalar, so neither backend copies it to a device or
    # reads it back.
    return np.array(int(value), dtype=np.int64).astype(dtype)[()]


@register_kernel("scale", ALL_BACKENDS, NUMERIC)
def scale(ctx, x, scale, bias, bias_after_scale, *, into=None):
    # into (see KernelFactory.writes_into): an array of x's shape and dtype, x's own
    # buffer for scale_; the fast path writes there, the others copy their result in.
    if ctx.xp is np and type(scale) is float and bias_after_scale and x.ndim and type(bias) in _REAL_BIAS:
        # The common case (a float tensor times a Python float: ``y * 0.5``): the
        # factor as a 0-d array of x's dtype, which is what NumPy converts a Python
        # float to anyway (same rounding), without a ufunc's ~300 ns on a Python scalar.
        factor = host_factor(scale, x.dtype)
        if factor is not None:
            out = np.multiply(x, factor, out=into)
            if bias:
                np.add(out, bias, out=out)
            return out
    if (into is not None and bias_after_scale and not bias and type(bias) in _REAL_BIAS
            and type(scale) in _REAL_BIAS and x.dtype.kind in "fc"):
        # The inplace op (on the GPU, or a factor the fast path above does not take):
        # x * scale is one ufunc whose result has x's dtype, written into the target.
        return ctx.xp.multiply(x, scale, out=into)
    if x.dtype.kind in "iu" and _integral(scale) and _integral(bias):
        # Integer arithmetic in x's dtype (wrapping, as Paddle's kernel, which casts the
        # factor and the bias to x's type: scale 0.5 is 0): through float64 an int64
        # beyond 2**53 would be rounded (``-x`` of int64's maximum gave its minimum).
        scale, bias = _in_dtype(scale, x.dtype), _in_dtype(bias, x.dtype)
    if (type(scale) is complex or type(bias) is complex) and x.dtype.kind != "c":
        # The result keeps x's dtype: the cast below would drop the imaginary part (scale(x, 1j)
        # of a real x gave zeros). Paddle 2.6.2 returns wrong complex values here.
        arg, value = ("scale", scale) if type(scale) is complex else ("bias", bias)
        raise InvalidTypeError(f"argument '{arg}' is the complex number {value!r} but x is {x.dtype.name}: the "
                               f"result keeps x's dtype; cast x to a complex dtype, or pass a real number")
    if bias_after_scale:
        out = x * scale + bias if bias else x * scale
    else:
        out = (x + bias) * scale
    # An integer tensor scaled by a float stays integer, as in Paddle.
    return copied_into(out if out.dtype == x.dtype else out.astype(x.dtype), into)


@register_kernel("scale_grad", ALL_BACKENDS, NUMERIC)
def scale_grad(ctx, out_grad, scale, *, into=None):
    xp = ctx.xp
    if xp is np and type(scale) is float:  # as in scale, the factor as a 0-d array
        factor = host_factor(scale, out_grad.dtype)
        if factor is not None:
            return np.multiply(out_grad, factor, out=into)
    if type(scale) is complex:  # out_grad times the conjugate derivative (Paddle's convention)
        scale = scale.conjugate()
    if into is not None and into.dtype.kind in "fc":
        return xp.multiply(out_grad, scale, out=into)
    out = out_grad * scale
    return out if out.dtype == out_grad.dtype else out.astype(out_grad.dtype)
