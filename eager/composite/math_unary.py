"""Composite rules of the math unary ops (see eager/composite/__init__.py).

Each is the backward kernel of the same name written with differentiable
forward ops, so gradients of these ops differentiate again to any order. For
complex inputs they use the kernels' convention: out_grad * conj(f'(x)) for a
holomorphic f.
"""
from __future__ import annotations

import math

from phi.common.data_type import DataType
from phi.core.errors import UnsupportedDtypeError
from phi.infermeta.checks import check_result_shape

from ..autograd.grad_mode import STATE as _grad_state
from ..autograd.inplace import check_inplace_leaf
from ..generated import forward_api as _F
from .. import random as _random
from . import _paddle_api as _check
from .spine import conj_if_complex, exactly_equal, sum_to_shape

_COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}


def _times_conj(out_grad, factor):
    return _F.multiply(out_grad, conj_if_complex(factor))


def _over_conj(out_grad, factor):
    return _F.divide(out_grad, conj_if_complex(factor))


def _zeros_like(t):
    return _F.full_like(t, 0, None)


def _as_complex(real_tensor):
    return _F.cast(real_tensor, _COMPLEX_OF[real_tensor.dtype.value])


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
    return conj_if_complex(out_grad)


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


def i0_grad(x, out_grad):
    # I_0' = I_1.
    return _F.multiply(out_grad, _F.i1(x))


def i0e_grad(x, out, out_grad):
    # (e^-|x| I_0)' = e^-|x| I_1 - sign(x) e^-|x| I_0.
    return _F.multiply(out_grad, _F.subtract(_F.i1e(x), _F.multiply(_F.sign(x), out)))


def _over_x_or_half(x, out):
    """out / x, and 1/2 at x = 0 (the limit of I_1(x) / x and of I_1e(x) / x there)."""
    at_zero = _F.equal(x, _zeros_like(x))
    safe = _F.where(at_zero, _F.full_like(x, 1, None), x)
    return _F.where(at_zero, _F.full_like(x, 0.5, None), _F.divide(out, safe))


def i1_grad(x, out, out_grad):
    # I_1' = I_0 - I_1 / x (1/2 at 0).
    return _F.multiply(out_grad, _F.subtract(_F.i0(x), _over_x_or_half(x, out)))


def i1e_grad(x, out, out_grad):
    # (e^-|x| I_1)' = e^-|x| I_0 - e^-|x| I_1 / x - sign(x) e^-|x| I_1.
    slope = _F.subtract(_F.i0e(x), _over_x_or_half(x, out))
    return _F.multiply(out_grad, _F.subtract(slope, _F.multiply(_F.sign(x), out)))


def _incomplete_gamma_density(x, y):
    # d/dy P(x, y) = y^(x-1) e^(-y) / Gamma(x), taken through logs.
    log_density = _F.subtract(_F.multiply(_F.scale(x, 1.0, -1.0, True), _F.log(y)), _F.add(y, _F.lgamma(x)))
    return _F.exp(log_density)


def gammainc_grad(x, y, out_grad):
    return sum_to_shape(_F.multiply(out_grad, _incomplete_gamma_density(x, y)), y.shape)


def gammaincc_grad(x, y, out_grad):
    return sum_to_shape(_F.scale(_F.multiply(out_grad, _incomplete_gamma_density(x, y)), -1.0, 0.0, True),
                        y.shape)


# -- Paddle API functions composed of the ops above (eager.logit, eager.sinc, ...) ---------

def _as_float(x):
    """x, or x cast to float32 when it is an integer or bool tensor (Paddle's rule for
    deg2rad/rad2deg/ldexp on integers)."""
    return x if x.dtype.is_floating_point or x.dtype.is_complex else _F.cast(x, "float32")


@_check.composed
def logit(x, eps=None, name=None):
    """log(x / (1 - x)) elementwise, x clipped to [eps, 1 - eps] first when ``eps``
    is given (outside [0, 1] without it, or with eps 0: NaN, as in Paddle). The
    gradient is 1 / (x (1 - x)) inside [eps, 1 - eps] (infinite at 0 and 1) and 0
    outside, as Paddle's logit_grad.

    >>> eager.logit(eager.to_tensor([0.5, 0.0]), eps=1e-6).numpy()
    array([  0.     , -13.81551], dtype=float32)
    """
    _check.floating("logit", "x", x)
    eps = 0.0 if eps is None else _check.number("logit", "eps", eps)
    if not 0.0 <= eps <= 0.5:
        raise ValueError(f"logit: argument 'eps' expected a number in [0, 0.5], got {eps}")
    # Paddle clips to [eps, 1 - eps] also for eps 0, so the gradient is 0 outside
    # [0, 1]; log(x) - log1p(-x) rather than log(x / (1 - x)), whose quotient rule
    # gives 0 * inf = NaN at 0 and 1 where Paddle's gradient is infinite.
    clipped = _F.clip(x, eps, 1.0 - eps)
    out = _F.subtract(_F.log(clipped), _F.log1p(_F.scale(clipped, -1.0, 0.0, True)))
    if eps == 0.0:  # Paddle's kernel: NaN outside [0, 1] when eps is 0
        out = _F.where(_F.not_equal(x, clipped), _F.full_like(out, math.nan, None), out)
    return out


_SGN_REAL = ("float16", "float32", "float64")


@_check.composed
def sgn(x, name=None):
    """The sign of x: -1, 0 or 1 for real x; x / |x| (0 at 0) for complex x.

    >>> eager.sgn(eager.to_tensor([-2.0, 0.0, 3.0])).numpy()
    array([-1.,  0.,  1.], dtype=float32)
    """
    _check.tensor("sgn", "x", x)
    if not x.dtype.is_complex:
        if x.dtype.value not in _SGN_REAL:
            # Paddle's sgn takes float16/32/64 and complex only (no int, bool or bfloat16).
            raise TypeError(f"sgn: argument 'x' expected a float16, float32, float64, complex64 or complex128 "
                            f"Tensor, got {x.dtype}")
        return _F.sign(x)
    # Paddle's rule: each of x's parts divided by |x|, a NaN quotient (x NaN or infinite,
    # or |x| overflowing) set to 0; at 0 the result is 0 and so is its gradient.
    magnitude = _F.abs(x)
    zero = _F.equal(magnitude, _F.zeros_like(magnitude))
    safe = _F.where(zero, _F.ones_like(magnitude), magnitude)
    parts = []
    for part in (_F.real(x), _F.imag(x)):
        quotient = _F.divide(part, safe)
        parts.append(_F.where(_F.isnan(quotient), _F.zeros_like(quotient), quotient))
    return _F.where(zero, _F.zeros_like(x), _F.complex(*parts))


@_check.composed
def signbit(x, name=None):
    """True where x's sign bit is set: x < 0, and -0.0 (a bool tensor; not differentiable).

    >>> eager.signbit(eager.to_tensor([-1.0, -0.0, 0.0, 2.0])).numpy()
    array([ True,  True, False, False])
    """
    _check.tensor("signbit", "x", x)
    if x.dtype.is_complex:
        raise TypeError(f"signbit: argument 'x' expected a real Tensor, got {x.dtype}")
    zero = _F.zeros_like(x)
    negative = _F.less_than(x, zero)
    if not x.dtype.is_floating_point:
        return negative
    # -0.0 is the zero whose reciprocal is -inf.
    negative_zero = _F.logical_and(_F.equal(x, zero), _F.less_than(_F.reciprocal(x), zero))
    return _F.logical_or(negative, negative_zero)


@_check.composed
def sinc(x, name=None):
    """sin(pi x) / (pi x) elementwise, 1 at x = 0 (the normalized sinc).

    >>> eager.sinc(eager.to_tensor([0.0, 0.5])).numpy().round(4)
    array([1.    , 0.6366], dtype=float32)
    """
    _check.floating("sinc", "x", x)
    zero = _F.equal(x, _F.zeros_like(x))
    safe = _F.scale(_F.where(zero, _F.ones_like(x), x), math.pi, 0.0, True)  # no 0/0 in value or gradient
    return _F.where(zero, _F.ones_like(x), _F.divide(_F.sin(safe), safe))


@_check.composed
def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    """scale_b * tanh(scale_a * x) elementwise (Paddle's scaled tanh; a complex x too).

    >>> eager.stanh(eager.to_tensor([0.0, 1.0])).numpy().round(4)
    array([0.    , 1.0038], dtype=float32)
    """
    _check.floating("stanh", "x", x, complex_ok=True)
    scale_a = _check.number("stanh", "scale_a", scale_a)
    scale_b = _check.number("stanh", "scale_b", scale_b)
    return _F.scale(_F.tanh(_F.scale(x, scale_a, 0.0, True)), scale_b, 0.0, True)


@_check.composed
def deg2rad(x, name=None):
    """Degrees to radians, x * pi / 180 (an integer x gives float32).

    >>> eager.deg2rad(eager.to_tensor([180.0])).numpy()
    array([3.1415927], dtype=float32)
    """
    _check.tensor("deg2rad", "x", x)
    return _F.scale(_as_float(x), math.pi / 180.0, 0.0, True)


@_check.composed
def rad2deg(x, name=None):
    """Radians to degrees, x * 180 / pi (an integer x gives float32).

    >>> eager.rad2deg(eager.to_tensor([math.pi])).numpy()
    array([180.], dtype=float32)
    """
    _check.tensor("rad2deg", "x", x)
    return _F.scale(_as_float(x), 180.0 / math.pi, 0.0, True)


@_check.composed
def frexp(x, name=None):
    """x split into a mantissa in [0.5, 1) (by magnitude) and a power of two:
    x == mantissa * 2 ** exponent; both in x's dtype, as Paddle returns them.
    0, inf and NaN give (x, 0). Differentiable in the mantissa.

    >>> m, e = eager.frexp(eager.to_tensor([8.0, -3.0]))
    >>> m.numpy(), e.numpy()
    (array([ 0.5 , -0.75], dtype=float32), array([4., 2.], dtype=float32))
    """
    _check.floating("frexp", "x", x)
    if x.dtype not in (DataType.FLOAT32, DataType.FLOAT64):  # Paddle's frexp checks this in dynamic mode too
        raise UnsupportedDtypeError(f"frexp: argument 'x' expected a float32 or float64 Tensor, got {x.dtype}")
    special = _F.logical_or(exactly_equal(x, _F.zeros_like(x)), _F.logical_not(_F.isfinite(x)))
    safe = _F.where(special, _F.ones_like(x), x)
    magnitude = _F.abs(safe)
    exponent = _F.scale(_F.floor(_F.log2(magnitude)), 1.0, 1.0, True)
    # log2 may round across an integer: move the exponent by one where the mantissa left [0.5, 1).
    scaled = _divide_by_power_of_two(magnitude, exponent)
    exponent = _F.add(exponent, _F.cast(_F.greater_equal(scaled, _F.ones_like(x)), x.dtype))
    exponent = _F.subtract(exponent, _F.cast(_F.less_than(scaled, _F.full_like(x, 0.5, None)), x.dtype))
    exponent = _F.where(special, _F.zeros_like(x), exponent)
    mantissa = _F.where(special, x, _divide_by_power_of_two(safe, exponent))
    return mantissa, exponent


def _divide_by_power_of_two(x, exponent):
    # x / 2**exponent as (x / 2**(exponent - 1)) / 2, so that 2**1024 (beyond float64) is never formed.
    power = _F.elementwise_pow(_F.full_like(x, 2.0, None), _F.scale(exponent, 1.0, -1.0, True))
    return _F.scale(_F.divide(x, power), 0.5, 0.0, True)


@_check.composed
def gammaln(x, name=None):
    """log |Gamma(x)| elementwise: Paddle's gammaln, the same function as lgamma (its
    gradient is digamma; +inf at 0 and the negative integers).

    >>> eager.gammaln(eager.to_tensor([0.5, 4.0])).numpy().round(4)
    array([0.5724, 1.7918], dtype=float32)
    """
    _check.floating("gammaln", "x", x)
    return _F.lgamma(x)


@_check.composed
def multigammaln(x, p, name=None):
    """The log of the multivariate gamma function of dimension ``p``:
    sum_{j=0}^{p-1} lgamma(x - j/2) + p (p - 1) / 4 * log(pi), elementwise (x > (p-1)/2
    for a finite value; as Paddle, x is not checked against that bound).

    >>> eager.multigammaln(eager.to_tensor([2.5, 3.5]), 2).numpy().round(4)
    array([0.857 , 2.4665], dtype=float32)
    """
    _check.floating("multigammaln", "x", x)
    p = _check.integer("multigammaln", "p", p, minimum=1)
    # All p terms at once, as Paddle computes them (lgamma(x[..., None] - j/2) summed): a
    # loop over p runs for ever on a large p, where this is refused by its size up front.
    check_result_shape("p", tuple(x.shape) + (p,), x.dtype)
    halves = _F.scale(_F.arange(1 - p, 1, 1, x.dtype, x.place), 0.5, 0.0, True)
    total = _F.sum(_F.lgamma(_F.add(_F.unsqueeze(x, [-1]), halves)), [-1])
    return _F.scale(total, 1.0, 0.25 * p * (p - 1) * math.log(math.pi), True)


def _infinity_test(op, x, sign):
    _check.tensor(op, "x", x)
    if x.dtype.is_complex:
        raise TypeError(f"{op}: argument 'x' expected a real Tensor, got {x.dtype}")
    if not x.dtype.is_floating_point:
        return _F.full(x.shape, False, "bool", x.place)
    return _F.equal(x, _F.full_like(x, sign * math.inf, None))


@_check.composed
def isposinf(x, name=None):
    """True where x is +inf (a bool tensor; all False for integer x).

    >>> eager.isposinf(eager.to_tensor([-math.inf, 1.0, math.inf])).numpy()
    array([False, False,  True])
    """
    return _infinity_test("isposinf", x, 1.0)


@_check.composed
def isneginf(x, name=None):
    """True where x is -inf (a bool tensor; all False for integer x).

    >>> eager.isneginf(eager.to_tensor([-math.inf, 1.0, math.inf])).numpy()
    array([ True, False, False])
    """
    return _infinity_test("isneginf", x, -1.0)


@_check.composed
def isreal(x, name=None):
    """True where x is real: for complex x where its imaginary part is 0, all True
    for any other dtype (a bool tensor).

    >>> eager.isreal(eager.to_tensor([1 + 0j, 1 + 2j])).numpy()
    array([ True, False])
    """
    _check.tensor("isreal", "x", x)
    if not x.dtype.is_complex:
        return _F.full(x.shape, True, "bool", x.place)
    imaginary = _F.imag(x)
    return _F.equal(imaginary, _F.zeros_like(imaginary))


@_check.composed
def log_normal(mean=1.0, std=2.0, shape=None, name=None):
    """Samples of the log-normal distribution: exp(N(mean, std^2)), ``mean`` and ``std``
    those of the underlying normal, each a number or a Tensor, as :func:`eager.normal`
    (numbers: the result has ``shape`` and dtype float32; a Tensor: its shape and
    dtype, ``shape`` ignored). Seeded by ``eager.seed``.

    >>> eager.log_normal(0.0, 1.0, shape=[2, 3]).shape
    [2, 3]
    """
    return _F.exp(_random.normal(mean, std, shape))


@_check.composed
def log_normal_(x, mean=1.0, std=2.0, name=None):
    """Fills x in place with samples of exp(N(mean, std^2)) and returns it (also
    ``Tensor.log_normal_``).

    >>> w = eager.zeros([2, 3]).log_normal_(0.0, 0.5)
    """
    _check.floating("log_normal_", "x", x)
    mean = _check.number("log_normal_", "mean", mean)
    std = _check.number("log_normal_", "std", std)
    if std < 0:
        raise ValueError(f"log_normal_: argument 'std' expected a number >= 0, got {std}")
    if _grad_state.enabled:  # named log_normal_, not the setitem_ that writes
        check_inplace_leaf("log_normal_", x)
    x[...] = _F.exp(_F.gaussian(x.shape, mean, std, 0, x.dtype, x.place))
    return x


@_check.composed
def gammaln_(x, name=None):
    """Inplace :func:`gammaln`: writes log |Gamma(x)| into x and returns x.

    >>> eager.gammaln_(eager.to_tensor([4.0])).numpy().round(4)
    array([1.7918], dtype=float32)
    """
    _check.floating("gammaln_", "x", x)
    return _F.lgamma_(x)
