"""Activation kernels and their gradients (exp, log, pow and scale live in
math_elementary.py).

The gradients of relu, tanh and sigmoid take ``into``: an array of
out_grad's shape and dtype (the engine passes out_grad's own buffer when it
owns it exclusively; backward.yaml's ``inplace : (out_grad -> x_grad)``) into
which the result may be written. They return the result, which is ``into``
when they wrote there.
"""
import numpy as np

from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, COMPLEX, FLOATS, INEXACT
from .funcs import ONES, ZEROS, copied_into
from .fusion import fused
from .math_unary_special import _erf_and_erfc


# relu, tanh and sigmoid and their gradients run on NumPy with 0-d constants of the
# operand's dtype (funcs.ZEROS, ONES, HALVES) where a Python number would cost a
# ufunc ~300 ns of type resolution on every call, and compute in one temporary; the
# results are the same bits as the plain formulas' (tests/test_kernel_fast_paths.py).
# A 0-d NumPy operand gives scalar results, which take no out=: those use the plain
# formula.

# On a GPU the gradients below are each one fused kernel (fusion.py) instead of two
# or three CuPy calls; written into ``into`` when it is given.

@fused
def relu_grad_gpu(xp, out, out_grad, into):
    """out_grad * (out > 0)."""
    grad = out_grad * (out > 0)
    if into is None:
        return grad
    into[...] = grad


@fused
def tanh_grad_gpu(xp, out, out_grad, into):
    """out_grad * (1 - out * out)."""
    grad = out_grad * (1 - out * out)
    if into is None:
        return grad
    into[...] = grad


@fused
def sigmoid_grad_gpu(xp, out, out_grad, into):
    """out_grad * (out * (1 - out))."""
    grad = out_grad * (out * (1 - out))
    if into is None:
        return grad
    into[...] = grad


@register_kernel("relu", ALL_BACKENDS, FLOATS)
def relu(ctx, x, *, into=None):  # into: see KernelFactory.writes_into
    # fmax, not maximum: Paddle's relu is x > 0 ? x : 0, so a nan input gives 0 (maximum would keep the nan)
    xp = ctx.xp
    return xp.fmax(x, ZEROS[x.dtype] if xp is np else 0, out=into)


@register_kernel("relu_grad", ALL_BACKENDS, FLOATS)
def relu_grad(ctx, out, out_grad, *, into=None):
    # out_grad times (out > 0), as in Paddle: an inf or nan gradient where out <= 0 gives nan.
    xp = ctx.xp
    if xp is not np:
        grad = relu_grad_gpu(xp, out, out_grad, into)
        return into if grad is None else grad
    return xp.multiply(out_grad, xp.greater(out, ZEROS[out.dtype]), out=into)


@register_kernel("tanh", ALL_BACKENDS, INEXACT)
def tanh(ctx, x, *, into=None):  # into: see KernelFactory.writes_into
    return ctx.xp.tanh(x, out=into)


@register_kernel("tanh_grad", ALL_BACKENDS, FLOATS)
def tanh_grad(ctx, out, out_grad, *, into=None):
    # out_grad * (1 - out * out) in one temporary (slope), which also takes the result
    # when there is no ``into`` (out_grad has out's shape and dtype: same_shape_grad_infer_meta).
    xp = ctx.xp
    if xp is not np:
        grad = tanh_grad_gpu(xp, out, out_grad, into)
        return into if grad is None else grad
    slope = xp.multiply(out, out)
    one = ONES[out.dtype]
    if not out.ndim:
        return xp.multiply(out_grad, one - slope, out=into)
    xp.subtract(one, slope, out=slope)
    return xp.multiply(out_grad, slope, out=slope if into is None else into)


@register_kernel("tanh_grad", ALL_BACKENDS, COMPLEX)
def tanh_grad_complex(ctx, out, out_grad, *, into=None):
    xp = ctx.xp
    return xp.multiply(out_grad, xp.conj(1 - xp.square(out)), out=into)


@register_kernel("sigmoid", ALL_BACKENDS, FLOATS)
def sigmoid(ctx, x, *, into=None):  # into: see KernelFactory.writes_into
    # 1 / (1 + exp(-x)), Paddle's SigmoidFunctor: the lower tail keeps its relative
    # precision (0.5 * (1 + tanh(x / 2)) cancels to 0 below x = -37 in float64 and is
    # off by orders of magnitude below -10 in float32), and exp(-x) overflowing to inf
    # gives the 0 the true value rounds to. Every step is elementwise, so ``into`` may be x.
    xp = ctx.xp
    one = ONES[x.dtype] if xp is np else 1
    if into is None and not x.ndim:  # a 0-d result is a scalar, which takes no out=
        return xp.divide(one, xp.exp(xp.negative(x)) + one)
    out = xp.negative(x, out=into)
    xp.exp(out, out=out)
    xp.add(out, one, out=out)
    return xp.divide(one, out, out=out)


@register_kernel("sigmoid_grad", ALL_BACKENDS, FLOATS)
def sigmoid_grad(ctx, out, out_grad, *, into=None):
    # out_grad * (out * (1 - out)) in one temporary (see tanh_grad).
    xp = ctx.xp
    if xp is not np:
        grad = sigmoid_grad_gpu(xp, out, out_grad, into)
        return into if grad is None else grad
    slope = xp.subtract(ONES[out.dtype], out)
    if not out.ndim:
        return xp.multiply(out_grad, out * slope, out=into)
    xp.multiply(out, slope, out=slope)
    return xp.multiply(out_grad, slope, out=slope if into is None else into)


# Complex x: the same formulas on the complex plane, and each gradient out_grad times the
# conjugate of f'(x) (Paddle's convention for holomorphic ops, as tanh_grad_complex).

@register_kernel("sigmoid", ALL_BACKENDS, COMPLEX)
def sigmoid_complex(ctx, x, *, into=None):
    xp = ctx.xp
    return copied_into(xp.divide(1, xp.exp(xp.negative(x)) + 1).astype(x.dtype, copy=False), into)


@register_kernel("sigmoid_grad", ALL_BACKENDS, COMPLEX)
def sigmoid_grad_complex(ctx, out, out_grad, *, into=None):
    xp = ctx.xp
    return xp.multiply(out_grad, xp.conj(out * (1 - out)), out=into)


# -- the activation ops of issue #10 ----------------------------------------------------
# Each forward kernel is written so that no intermediate overflows where the true
# value is finite (exp only of non-positive arguments, log1p(exp(-|x|))), and each
# backward kernel computes out_grad * f'(x) from the saved input x.

_SQRT_HALF = 0.7071067811865476        # 1 / sqrt(2)
_INV_SQRT_2PI = 0.3989422804014327     # 1 / sqrt(2 pi)
_SQRT_2_OVER_PI = 0.7978845608028654   # sqrt(2 / pi)
_GELU_CUBIC = 0.044715


def _sigmoid(xp, x):
    """1 / (1 + exp(-x)), as the sigmoid kernel: precise in the lower tail, 0 where exp overflows."""
    return xp.divide(1, xp.exp(xp.negative(x)) + 1).astype(x.dtype, copy=False)


def _softplus(xp, x):
    """log(1 + exp(x)) as max(x, 0) + log1p(exp(-|x|)): exp never sees a positive argument."""
    return xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))


def _typed(value, like):
    return value if value.dtype == like.dtype else value.astype(like.dtype)


def _normal_cdf(xp, x):
    """Phi(x) = P(N(0, 1) <= x) in float64, to a few ulp in both tails: 1 - erfc(x / sqrt 2) / 2
    above 0 and erfc(|x| / sqrt 2) / 2 below, so the lower tail keeps its relative precision
    where 1 + erf(x / sqrt 2) would cancel to 0."""
    wide = xp.asarray(x, dtype=xp.float64)
    with np.errstate(all="ignore"):
        _, erfc_abs = _erf_and_erfc(xp, wide * _SQRT_HALF)
    return xp.where(wide >= 0, 1.0 - 0.5 * erfc_abs, 0.5 * erfc_abs)


@register_kernel("gelu", ALL_BACKENDS, FLOATS)
def gelu(ctx, x, approximate):
    xp = ctx.xp
    if approximate:
        inner = xp.multiply(x + _GELU_CUBIC * x * x * x, _SQRT_2_OVER_PI)
        return _typed(0.5 * x * (1 + xp.tanh(inner)), x)
    return _typed(x * _normal_cdf(xp, x), x)


@register_kernel("gelu_grad", ALL_BACKENDS, FLOATS)
def gelu_grad(ctx, x, out, out_grad, approximate):
    """out_grad * (Phi(x) + x phi(x)); Phi(x) is read off the saved result as out / x, which
    spares a second evaluation of erf (within a few ulp, out being x Phi(x) to a few ulp),
    and is 1/2 + x / sqrt(2 pi) where |x| < 1e-8 (no division by a tiny or zero x)."""
    xp = ctx.xp
    narrow = x.dtype.itemsize == 2
    if narrow:
        # a 16-bit x in float32, as Paddle's kernels compute it: x**3 overflows float16 from
        # |x| = 41 on (0 * inf in the slope), and 1e-8 is 0 in float16 (0 / 0 below)
        x = x.astype(xp.float32)
    if approximate:
        t = xp.tanh(xp.multiply(x + _GELU_CUBIC * x * x * x, _SQRT_2_OVER_PI))
        slope = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * _GELU_CUBIC * x * x)
    elif narrow:  # out, rounded to 16 bits, would give Phi(x) = out / x to 3 digits only
        slope = _normal_cdf(xp, x) + x * xp.exp(-0.5 * x * x) * _INV_SQRT_2PI
    else:
        tiny = xp.abs(x) < 1e-8
        with np.errstate(all="ignore"):
            cdf = xp.where(tiny, 0.5 + x * _INV_SQRT_2PI, out / xp.where(tiny, 1, x))
        slope = cdf + x * xp.exp(-0.5 * x * x) * _INV_SQRT_2PI
    return _typed(out_grad * slope, out_grad)


@register_kernel("silu", ALL_BACKENDS, FLOATS)
def silu(ctx, x):
    return x * _sigmoid(ctx.xp, x)


@register_kernel("silu_grad", ALL_BACKENDS, FLOATS)
def silu_grad(ctx, x, out_grad):
    s = _sigmoid(ctx.xp, x)
    return out_grad * (s * (1 + x * (1 - s)))


@register_kernel("leaky_relu", ALL_BACKENDS, FLOATS)
def leaky_relu(ctx, x, negative_slope, *, into=None):
    return copied_into(_typed(ctx.xp.where(x > 0, x, x * negative_slope), x), into)


@register_kernel("leaky_relu_grad", ALL_BACKENDS, FLOATS)
def leaky_relu_grad(ctx, x, out_grad, negative_slope):
    # Paddle's LeakyReluGradFunctor: the slope 1 holds at x == 0 too (x >= 0).
    return _typed(ctx.xp.where(x >= 0, out_grad, out_grad * negative_slope), out_grad)


def _elu(xp, x, alpha):
    # expm1 of min(x, 0) only: the branch not taken never overflows.
    return xp.where(x > 0, x, xp.expm1(xp.minimum(x, 0)) * alpha)


def _elu_slope(xp, x, alpha):
    return xp.where(x > 0, 1, xp.exp(xp.minimum(x, 0)) * alpha)


@register_kernel("elu", ALL_BACKENDS, FLOATS)
def elu(ctx, x, alpha, *, into=None):
    return copied_into(_typed(_elu(ctx.xp, x, alpha), x), into)


@register_kernel("elu_grad", ALL_BACKENDS, FLOATS)
def elu_grad(ctx, x, out_grad, alpha):
    return _typed(out_grad * _elu_slope(ctx.xp, x, alpha), out_grad)


@register_kernel("selu", ALL_BACKENDS, FLOATS)
def selu(ctx, x, scale, alpha):
    return _typed(_elu(ctx.xp, x, alpha) * scale, x)


@register_kernel("selu_grad", ALL_BACKENDS, FLOATS)
def selu_grad(ctx, x, out_grad, scale, alpha):
    return _typed(out_grad * (_elu_slope(ctx.xp, x, alpha) * scale), out_grad)


@register_kernel("celu", ALL_BACKENDS, FLOATS)
def celu(ctx, x, alpha):
    xp = ctx.xp
    return _typed(xp.where(x > 0, x, xp.expm1(xp.minimum(x, 0) / alpha) * alpha), x)


@register_kernel("celu_grad", ALL_BACKENDS, FLOATS)
def celu_grad(ctx, x, out_grad, alpha):
    xp = ctx.xp
    return _typed(out_grad * xp.where(x > 0, 1, xp.exp(xp.minimum(x, 0) / alpha)), out_grad)


@register_kernel("softplus", ALL_BACKENDS, FLOATS)
def softplus(ctx, x, beta, threshold):
    xp = ctx.xp
    scaled = x * beta
    return _typed(xp.where(scaled > threshold, x, _softplus(xp, scaled) / beta), x)


@register_kernel("softplus_grad", ALL_BACKENDS, FLOATS)
def softplus_grad(ctx, x, out_grad, beta, threshold):
    xp = ctx.xp
    scaled = x * beta
    return _typed(out_grad * xp.where(scaled > threshold, 1, _sigmoid(xp, scaled)), out_grad)


@register_kernel("softsign", ALL_BACKENDS, FLOATS)
def softsign(ctx, x):
    return x / (1 + ctx.xp.abs(x))


@register_kernel("softsign_grad", ALL_BACKENDS, FLOATS)
def softsign_grad(ctx, x, out_grad):
    return out_grad / ctx.xp.square(1 + ctx.xp.abs(x))


@register_kernel("softshrink", ALL_BACKENDS, FLOATS)
def softshrink(ctx, x, threshold):
    xp = ctx.xp
    # x >= -threshold is False for NaN, so NaN falls to x + threshold and stays NaN (as Paddle's)
    return _typed(xp.where(x > threshold, x - threshold, xp.where(x >= -threshold, 0, x + threshold)), x)


@register_kernel("softshrink_grad", ALL_BACKENDS, FLOATS)
def softshrink_grad(ctx, x, out_grad, threshold):
    xp = ctx.xp
    return xp.where((x > threshold) | (x < -threshold), out_grad, xp.zeros_like(out_grad))


@register_kernel("hardshrink", ALL_BACKENDS, FLOATS)
def hardshrink(ctx, x, threshold):
    xp = ctx.xp
    # "not inside" rather than "outside": NaN is neither, and stays NaN (as Paddle's x * mask)
    return xp.where((x >= -threshold) & (x <= threshold), xp.zeros_like(x), x)


@register_kernel("hardshrink_grad", ALL_BACKENDS, FLOATS)
def hardshrink_grad(ctx, x, out_grad, threshold):
    xp = ctx.xp
    return xp.where((x > threshold) | (x < -threshold), out_grad, xp.zeros_like(out_grad))


@register_kernel("tanhshrink", ALL_BACKENDS, FLOATS)
def tanhshrink(ctx, x):
    return x - ctx.xp.tanh(x)


@register_kernel("tanhshrink_grad", ALL_BACKENDS, FLOATS)
def tanhshrink_grad(ctx, x, out_grad):
    return out_grad * ctx.xp.square(ctx.xp.tanh(x))


@register_kernel("hardtanh", ALL_BACKENDS, FLOATS)
def hardtanh(ctx, x, min, max, *, into=None):  # noqa: A002  (Paddle's argument names)
    if into is not None:  # clip writes into an array of x's dtype: the cast _typed makes
        return ctx.xp.clip(x, min, max, out=into)
    return _typed(ctx.xp.clip(x, min, max), x)


@register_kernel("hardtanh_grad", ALL_BACKENDS, FLOATS)
def hardtanh_grad(ctx, x, out_grad, min, max):  # noqa: A002
    xp = ctx.xp
    return xp.where((x > min) & (x < max), out_grad, xp.zeros_like(out_grad))


@register_kernel("hardswish", ALL_BACKENDS, FLOATS)
def hardswish(ctx, x):
    return _typed(x * ctx.xp.clip(x + 3, 0, 6) / 6, x)


@register_kernel("hardswish_grad", ALL_BACKENDS, FLOATS)
def hardswish_grad(ctx, x, out_grad):
    xp = ctx.xp
    # Paddle's kernel: the linear piece only strictly inside (-3, 3); 0 at -3, 1 at 3
    slope = xp.where(x <= -3, 0, xp.where(x >= 3, 1, (2 * x + 3) / 6))
    return _typed(out_grad * slope, out_grad)


@register_kernel("hardsigmoid", ALL_BACKENDS, FLOATS)
def hardsigmoid(ctx, x, slope, offset):
    return _typed(ctx.xp.clip(x * slope + offset, 0, 1), x)


@register_kernel("hardsigmoid_grad", ALL_BACKENDS, FLOATS)
def hardsigmoid_grad(ctx, x, out_grad, slope, offset):
    xp = ctx.xp
    linear = x * slope + offset
    return _typed(xp.where((linear > 0) & (linear < 1), out_grad * slope, xp.zeros_like(out_grad)), out_grad)


@register_kernel("mish", ALL_BACKENDS, FLOATS)
def mish(ctx, x):
    xp = ctx.xp
    return x * xp.tanh(_softplus(xp, x))


@register_kernel("mish_grad", ALL_BACKENDS, FLOATS)
def mish_grad(ctx, x, out_grad):
    xp = ctx.xp
    t = xp.tanh(_softplus(xp, x))
    return out_grad * (t + x * (1 - t * t) * _sigmoid(xp, x))


@register_kernel("log_sigmoid", ALL_BACKENDS, FLOATS)
def log_sigmoid(ctx, x):
    return -_softplus(ctx.xp, -x)


@register_kernel("log_sigmoid_grad", ALL_BACKENDS, FLOATS)
def log_sigmoid_grad(ctx, x, out_grad):
    return out_grad * _sigmoid(ctx.xp, -x)


@register_kernel("thresholded_relu", ALL_BACKENDS, FLOATS)
def thresholded_relu(ctx, x, threshold, *, into=None):
    xp = ctx.xp
    # x <= threshold is False for NaN, which stays NaN (as Paddle's x * (x > threshold))
    return copied_into(xp.where(x <= threshold, xp.zeros_like(x), x), into)


@register_kernel("thresholded_relu_grad", ALL_BACKENDS, FLOATS)
def thresholded_relu_grad(ctx, x, out_grad, threshold):
    xp = ctx.xp
    return xp.where(x > threshold, out_grad, xp.zeros_like(out_grad))
