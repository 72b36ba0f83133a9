"""Composite rules of the math unary ops (see eager/composite/__init__.py).

Each is the backward kernel of the same name written with differentiable
forward ops, so gradients of these ops differentiate again to any order. For
complex inputs they use the kernels' convention: out_grad * conj(f'(x)) for a
holomorphic f.
"""
from __future__ import annotations

import math

from ..generated import forward_api as _F

_COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}


def _conj(t):
    return _F.conj(t) if t.dtype.is_complex else t


def _times_conj(out_grad, factor):
    return _F.multiply(out_grad, _conj(factor))


def _over_conj(out_grad, factor):
    return _F.divide(out_grad, _conj(factor))


def _zeros_like(t):
    return _F.full_like(t, 0, None)


def _as_complex(real_tensor):
    return _F.cast(real_tensor, _COMPLEX_OF[str(real_tensor.dtype)])


def abs_grad(x, out_grad):
    # sign(x) is 0 at 0, so the gradient there is 0 (Paddle's rule); for complex x
    # the direction x / |x|, 0 at 0.
    if not x.dtype.is_complex:
        return _F.multiply(out_grad, _F.sign(x))
    modulus = _F.abs(x)
    at_zero = _F.equal(modulus, _zeros_like(modulus))
    safe = _as_complex(_F.where(at_zero, _F.full_like(modulus, 1, None), modulus))
    direction = _F.divide(x, safe)
    return _F.where(at_zero, _zeros_like(x), _F.multiply(_as_complex(out_grad), direction))


def neg_grad(out_grad):
    return _F.neg(out_grad)


def square_grad(x, out_grad):
    return _times_conj(out_grad, _F.scale(x, 2.0, 0.0, True))


def sqrt_grad(out, out_grad):
    return _over_conj(_F.scale(out_grad, 0.5, 0.0, True), out)


def rsqrt_grad(out, out_grad):
    return _times_conj(_F.scale(out_grad, -0.5, 0.0, True), _F.multiply(_F.square(out), out))


def reciprocal_grad(out, out_grad):
    return _times_conj(_F.scale(out_grad, -1.0, 0.0, True), _F.square(out))


def expm1_grad(out, out_grad):
    return _times_conj(out_grad, _F.scale(out, 1.0, 1.0, True))


def log1p_grad(x, out_grad):
    return _over_conj(out_grad, _F.scale(x, 1.0, 1.0, True))


def log2_grad(x, out_grad):
    return _over_conj(out_grad, _F.scale(x, math.log(2.0), 0.0, True))


def log10_grad(x, out_grad):
    return _over_conj(out_grad, _F.scale(x, math.log(10.0), 0.0, True))


def sin_grad(x, out_grad):
    return _times_conj(out_grad, _F.cos(x))


def cos_grad(x, out_grad):
    return _times_conj(out_grad, _F.scale(_F.sin(x), -1.0, 0.0, True))


def tan_grad(x, out_grad):
    return _over_conj(out_grad, _F.square(_F.cos(x)))


def _one_minus_square(x):
    return _F.scale(_F.square(x), -1.0, 1.0, True)


def asin_grad(x, out_grad):
    return _over_conj(out_grad, _F.sqrt(_one_minus_square(x)))


def acos_grad(x, out_grad):
    return _over_conj(_F.scale(out_grad, -1.0, 0.0, True), _F.sqrt(_one_minus_square(x)))


def atan_grad(x, out_grad):
    return _over_conj(out_grad, _F.scale(_F.square(x), 1.0, 1.0, True))


def sinh_grad(x, out_grad):
    return _times_conj(out_grad, _F.cosh(x))


def cosh_grad(x, out_grad):
    return _times_conj(out_grad, _F.sinh(x))


def asinh_grad(x, out_grad):
    return _over_conj(out_grad, _F.sqrt(_F.scale(_F.square(x), 1.0, 1.0, True)))


def acosh_grad(x, out_grad):
    root = _F.multiply(_F.sqrt(_F.scale(x, 1.0, -1.0, True)), _F.sqrt(_F.scale(x, 1.0, 1.0, True)))
    return _over_conj(out_grad, root)


def atanh_grad(x, out_grad):
    return _over_conj(out_grad, _one_minus_square(x))


def erf_grad(x, out_grad):
    density = _F.scale(_F.exp(_F.scale(_F.square(x), -1.0, 0.0, True)), 2.0 / math.sqrt(math.pi), 0.0, True)
    return _F.multiply(out_grad, density)


def erfinv_grad(out, out_grad):
    return _F.multiply(out_grad, _F.scale(_F.exp(_F.square(out)), math.sqrt(math.pi) / 2.0, 0.0, True))


def lgamma_grad(x, out_grad):
    return _F.multiply(out_grad, _F.digamma(x))


def digamma_grad(x, out_grad):
    return _F.multiply(out_grad, _F.polygamma(x, 1))


def polygamma_grad(x, out_grad, n):
    return _F.multiply(out_grad, _F.polygamma(x, n + 1))


def rounding_grad(out_grad):
    # floor, ceil, round and trunc are piecewise constant: zero gradient, as Paddle.
    return _zeros_like(out_grad)


def frac_grad(out_grad):
    # frac(x) = x - trunc(x), and trunc's gradient is zero.
    return out_grad


def nan_to_num_grad(x, out_grad):
    return _F.where(_F.isfinite(x), out_grad, _zeros_like(out_grad))


def conj_grad(out_grad):
    return _conj(out_grad)


def real_grad(out_grad):
    return _as_complex(out_grad)


def imag_grad(out_grad):
    # d/d(im x) of imag(x) is 1: the gradient is i * out_grad.
    as_complex = _as_complex(out_grad)
    return _F.multiply(as_complex, _F.full_like(as_complex, 1j, None))


def angle_grad(x, out_grad):
    # angle(a + ib) = atan2(b, a): d/da = -b / |x|^2, d/db = a / |x|^2, so the gradient
    # is out_grad * i x / |x|^2; 0 at x == 0, and 0 for real x (piecewise constant).
    if not x.dtype.is_complex:
        return _zeros_like(x)
    norm = _F.square(_F.abs(x))
    at_zero = _F.equal(norm, _zeros_like(norm))
    safe = _as_complex(_F.where(at_zero, _F.full_like(norm, 1, None), norm))
    turned = _F.multiply(x, _F.full_like(x, 1j, None))
    grad = _F.divide(_F.multiply(_as_complex(out_grad), turned), safe)
    return _F.where(at_zero, _zeros_like(x), grad)
