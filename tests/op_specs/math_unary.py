"""The op table of the math unary ops.

References are written from the maths with NumPy and the ``math`` module
(erf, lgamma), never from the kernels; the special functions without a NumPy
or math counterpart (erfinv, digamma, polygamma) get references computed by
other means (bisection on math.erf, series with an integral tail). Complex
inputs and float16 are checked in tests/test_math_unary.py, with tolerances.
"""
from __future__ import annotations

import math

import numpy as np

import eager
from eager.generated import forward_api as F

from .core import (FLOATS, INTS, UNARY_SHAPES, Case, OpSpec, binary_cases, unary_cases, unary_grad_cases,
                   unbroadcast, with_grad_of_broadcast)

WIDE_INTS = ("int32", "int64")


def _cases_with_grad():
    return unary_grad_cases(2)


def _shifted(by):
    """A prepare step moving every drawn input by ``by`` (acosh wants x > 1)."""
    def prepare(arrays, attrs):
        return [a + np.asarray(by, a.dtype) for a in arrays[:1]] + list(arrays[1:])
    return prepare


def _with_specials(arrays, attrs):
    """Puts NaN, +inf and -inf among a floating input's values (every 3rd, 4th, 5th)."""
    x = arrays[0].copy()
    if x.dtype.kind == "f":
        flat = x.reshape(-1)
        flat[::3] = np.nan
        flat[1::4] = np.inf
        flat[2::5] = -np.inf
    return [x] + list(arrays[1:])


def _forward(name, reference, domain="real", dtypes=FLOATS, prepare=None, grad=True):
    return OpSpec(name, getattr(F, name), reference, (domain,), unary_cases(), dtypes=dtypes,
                  grad=grad, prepare=prepare)


def _backward(name, reference, domain="real", prepare=None):
    """A backward op with a kernel (and a composite rule): called directly, not differentiated
    (its derivatives are the forward op's gradgradcheck)."""
    return OpSpec(name, getattr(F, name), reference, (domain, "real"), _cases_with_grad(), grad=False,
                  prepare=prepare)


def _composite_only(name, reference):
    """A composite-only backward op: it records, so gradcheck differentiates it."""
    return OpSpec(name, getattr(F, name), reference, ("real",), tuple(Case((s,)) for s in UNARY_SHAPES))


def ref_round(x):
    # Halves away from zero, written as sign(x) * floor(|x| + 1/2).
    return (np.sign(x) * np.floor(np.abs(x) + np.asarray(0.5, x.dtype))).astype(x.dtype)


def _elementwise(fn):
    """fn of Python floats applied to each element, in float64, cast back to x's dtype."""
    def reference(x):
        return np.asarray(np.vectorize(fn, otypes=[np.float64])(x.astype(np.float64)), x.dtype)
    return reference


def _erfinv_scalar(v):
    # Bisection on math.erf: 200 halvings of [-7, 7] pin the root to float64 precision.
    if v <= -1.0 or v >= 1.0:
        return math.copysign(math.inf, v) if abs(v) == 1.0 else math.nan
    lo, hi = -7.0, 7.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if math.erf(mid) < v:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


_EULER_GAMMA = 0.5772156649015329
_TERMS = 2000


def _digamma_scalar(v):
    # psi(x) = -gamma + sum_{k>=0} (1/(k+1) - 1/(k+x)); the tail past N terms is
    # psi(x+N) - psi(1+N), summed from its asymptotic expansion.
    total = -_EULER_GAMMA + sum(1.0 / (k + 1) - 1.0 / (k + v) for k in range(_TERMS))
    a, b = v + _TERMS, 1.0 + _TERMS
    return total + math.log(a / b) - 0.5 / a + 0.5 / b - 1 / (12 * a * a) + 1 / (12 * b * b)


def _polygamma_scalar(v, n):
    # psi^(n)(x) = (-1)^(n+1) n! sum_{k>=0} 1/(x+k)^(n+1); the tail past N terms by Euler-Maclaurin.
    if n == 0:
        return _digamma_scalar(v)
    total = sum(1.0 / (v + k) ** (n + 1) for k in range(_TERMS))
    a = v + _TERMS
    total += 1.0 / (n * a ** n) + 0.5 / a ** (n + 1) + (n + 1) / (12.0 * a ** (n + 2))
    return (-1) ** (n + 1) * math.factorial(n) * total


def ref_polygamma(x, n):
    return _elementwise(lambda v: _polygamma_scalar(v, n))(x)



def _bessel_scalar(v, order):
    # I_n(v) = sum_k (v/2)^(2k+n) / (k! (k+n)!), summed in Python floats (|v| <= 2 here).
    return math.fsum((v / 2) ** (2 * k + order) / (math.factorial(k) * math.factorial(k + order))
                     for k in range(40))


def ref_bessel(order, scaled):
    def reference(x):
        return _elementwise(lambda v: _bessel_scalar(v, order) * (math.exp(-abs(v)) if scaled else 1.0))(x)
    return reference


def _lower_gamma_scalar(a, y):
    # P(a, y) = y^a e^-y / Gamma(a + 1) sum_n y^n / ((a+1)...(a+n)): positive terms, 200 of them.
    term, terms = 1.0, [1.0]
    for n in range(1, 200):
        term *= y / (a + n)
        terms.append(term)
    return math.exp(a * math.log(y) - y - math.lgamma(a + 1)) * math.fsum(terms)


def ref_gammainc(x, y, upper=False):
    x64, y64 = np.broadcast_arrays(x.astype(np.float64), y.astype(np.float64))
    lower = np.vectorize(_lower_gamma_scalar, otypes=[np.float64])(x64, y64)
    return np.asarray(1.0 - lower if upper else lower, x.dtype)


def ref_gammainc_grad(x, y, g, upper=False):
    density = np.exp((x - 1) * np.log(y) - y - np.vectorize(math.lgamma, otypes=[np.float64])(x))
    return unbroadcast((-g if upper else g) * density, y.shape).astype(g.dtype)


def _bessel_grad_cases():
    return unary_grad_cases(3)


def _with_bessel_out(order, scaled):
    """Puts the forward value of x in the ``out`` input (the second) of a backward op."""
    reference = ref_bessel(order, scaled)

    def prepare(arrays, attrs):
        return [arrays[0], reference(arrays[0])] + list(arrays[2:])
    return prepare


def _bessel_slope_over_x(x, out):
    return np.where(x == 0, 0.5, out / np.where(x == 0, 1, x))


def ref_trunc(x):
    if x.dtype.kind in "iu":
        return x.copy()
    return np.where(x < 0, -np.floor(-x), np.floor(x)).astype(x.dtype)


def ref_nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    info = np.finfo(x.dtype)
    out = np.where(x != x, nan, x)
    out = np.where(x == np.inf, info.max if posinf is None else posinf, out)
    return np.where(x == -np.inf, info.min if neginf is None else neginf, out).astype(x.dtype)


def _with_imaginary(arrays, attrs):
    """Gives a complex input an imaginary part (the table draws real values)."""
    x = arrays[0]
    if x.dtype.kind == "c":
        x = x + 1j * np.cos(3.0 * x.real + 1.0).astype(x.dtype)
    return [x] + list(arrays[1:])


NAN_TO_NUM_CASES = unary_cases() + (Case(((3, 4),), {"nan": 1.5, "posinf": 2.0, "neginf": -3.0}),
                                    Case(((6,),), {"posinf": 7.0}), Case(((6,),), {"neginf": -7.0}))
POLYGAMMA_CASES = tuple(Case((s,), {"n": n}) for s in ((3, 4), (), (0, 2)) for n in (0, 1, 2, 3))
COMPLEX = ("complex64", "complex128")


SPECS = [
    OpSpec("abs", eager.abs, lambda x: np.where(x < 0, -x, x), ("nonzero",), unary_cases(), dtypes=FLOATS + INTS),
    _backward("abs_grad", lambda x, g: g * np.sign(x), "nonzero"),
    _forward("neg", lambda x: 0 - x, dtypes=FLOATS + INTS),
    _composite_only("neg_grad", lambda g: -g),
    _forward("sqrt", lambda x: x ** np.asarray(0.5, x.dtype), "positive"),
    _backward("sqrt_grad", lambda out, g: g / (2 * out), "positive"),
    _forward("square", lambda x: x * x, dtypes=FLOATS + INTS),
    _backward("square_grad", lambda x, g: 2 * x * g),
    _forward("rsqrt", lambda x: 1 / np.sqrt(x), "positive"),
    _backward("rsqrt_grad", lambda out, g: -0.5 * g * out ** 3, "positive"),
    _forward("reciprocal", lambda x: 1 / x, "nonzero"),
    _backward("reciprocal_grad", lambda out, g: -g * out * out, "nonzero"),
    _forward("log1p", lambda x: np.log(1 + x), "positive"),
    _backward("log1p_grad", lambda x, g: g / (1 + x), "positive"),
    _forward("expm1", lambda x: np.exp(x) - 1),
    _backward("expm1_grad", lambda out, g: g * (out + 1), "positive"),
    _forward("sin", np.sin),
    _backward("sin_grad", lambda x, g: g * np.cos(x)),
    _forward("cos", np.cos),
    _backward("cos_grad", lambda x, g: -g * np.sin(x)),
    _forward("floor", lambda x: x - np.mod(x, np.asarray(1, x.dtype))),
    _composite_only("floor_grad", np.zeros_like),
    _forward("ceil", lambda x: -np.floor(-x)),
    _composite_only("ceil_grad", np.zeros_like),
    _forward("round", ref_round),
    _composite_only("round_grad", np.zeros_like),
    _forward("isnan", lambda x: x != x, dtypes=FLOATS + INTS + ("bool",), prepare=_with_specials, grad=False),
    _forward("isinf", lambda x: np.abs(x.astype(np.float64)) == np.inf, dtypes=FLOATS + INTS + ("bool",),
             prepare=_with_specials, grad=False),
    _forward("isfinite", lambda x: np.abs(x.astype(np.float64)) < np.inf, dtypes=FLOATS + INTS + ("bool",),
             prepare=_with_specials, grad=False),
    _forward("logical_not", lambda x: x == 0, "coarse", dtypes=FLOATS + INTS + ("bool",), grad=False),
    _forward("tan", lambda x: np.sin(x) / np.cos(x)),
    _backward("tan_grad", lambda x, g: g / np.cos(x) ** 2),
    _forward("asin", lambda x: np.arctan2(x, np.sqrt(1 - x * x)), "open"),
    _backward("asin_grad", lambda x, g: g / np.sqrt(1 - x * x), "open"),
    _forward("acos", lambda x: np.arctan2(np.sqrt(1 - x * x), x), "open"),
    _backward("acos_grad", lambda x, g: -g / np.sqrt(1 - x * x), "open"),
    _forward("atan", lambda x: np.arcsin(x / np.sqrt(1 + x * x))),
    _backward("atan_grad", lambda x, g: g / (1 + x * x)),
    _forward("sinh", lambda x: (np.exp(x) - np.exp(-x)) / 2),
    _backward("sinh_grad", lambda x, g: g * (np.exp(x) + np.exp(-x)) / 2),
    _forward("cosh", lambda x: (np.exp(x) + np.exp(-x)) / 2),
    _backward("cosh_grad", lambda x, g: g * (np.exp(x) - np.exp(-x)) / 2),
    _forward("asinh", lambda x: np.log(x + np.sqrt(x * x + 1))),
    _backward("asinh_grad", lambda x, g: g / np.sqrt(x * x + 1)),
    _forward("acosh", lambda x: np.log(x + np.sqrt(x * x - 1)), "positive", prepare=_shifted(1.0)),
    _backward("acosh_grad", lambda x, g: g / np.sqrt(x * x - 1), "positive", prepare=_shifted(1.0)),
    _forward("atanh", lambda x: 0.5 * np.log((1 + x) / (1 - x)), "open"),
    _backward("atanh_grad", lambda x, g: g / (1 - x * x), "open"),
    _forward("log2", lambda x: np.log(x) / np.log(np.asarray(2, x.dtype)), "positive"),
    _backward("log2_grad", lambda x, g: g / (x * math.log(2)), "positive"),
    _forward("log10", lambda x: np.log(x) / np.log(np.asarray(10, x.dtype)), "positive"),
    _backward("log10_grad", lambda x, g: g / (x * math.log(10)), "positive"),
    _forward("erf", _elementwise(math.erf)),
    _backward("erf_grad", lambda x, g: g * 2 / math.sqrt(math.pi) * np.exp(-x * x)),
    _forward("erfinv", _elementwise(_erfinv_scalar), "open"),
    _backward("erfinv_grad", lambda out, g: g * math.sqrt(math.pi) / 2 * np.exp(out * out)),
    _forward("trunc", ref_trunc, dtypes=FLOATS + WIDE_INTS),
    _composite_only("trunc_grad", np.zeros_like),
    _forward("frac", lambda x: x - ref_trunc(x), dtypes=FLOATS + WIDE_INTS),
    _composite_only("frac_grad", lambda g: g),
    _forward("lgamma", _elementwise(math.lgamma)),
    _backward("lgamma_grad", lambda x, g: g * ref_polygamma(x, 0)),
    _forward("digamma", lambda x: ref_polygamma(x, 0)),
    _backward("digamma_grad", lambda x, g: g * ref_polygamma(x, 1)),
    OpSpec("polygamma", eager.polygamma, ref_polygamma, ("real",), POLYGAMMA_CASES),
    OpSpec("polygamma_grad", F.polygamma_grad, lambda x, g, n: g * ref_polygamma(x, n + 1), ("real", "real"),
           tuple(Case((c.shapes[0], c.shapes[0]), c.attrs) for c in POLYGAMMA_CASES), grad=False),
    OpSpec("nan_to_num", eager.nan_to_num, ref_nan_to_num, ("real",), NAN_TO_NUM_CASES,
           prepare=_with_specials),
    OpSpec("nan_to_num_grad", F.nan_to_num_grad, lambda x, g: np.where(np.isfinite(x), g, 0).astype(g.dtype),
           ("real", "real"), _cases_with_grad(), grad=False, prepare=_with_specials),
    _forward("bitwise_not", lambda x: np.logical_not(x) if x.dtype == bool else -x - np.asarray(1, x.dtype),
             dtypes=INTS + ("int8", "uint8", "bool"), grad=False),
    _forward("real", lambda x: x.real.copy(), dtypes=COMPLEX, prepare=_with_imaginary, grad=False),
    # Real in, complex out: gradgradcheck cannot seed these (tests/test_math_unary.py checks them).
    OpSpec("real_grad", F.real_grad, lambda g: g.astype(np.result_type(g.dtype, np.complex64)), ("real",),
           tuple(Case((s,)) for s in UNARY_SHAPES), grad=False),
    _forward("imag", lambda x: x.imag.copy(), dtypes=COMPLEX, prepare=_with_imaginary, grad=False),
    OpSpec("imag_grad", F.imag_grad, lambda g: 1j * g.astype(np.result_type(g.dtype, np.complex64)), ("real",),
           tuple(Case((s,)) for s in UNARY_SHAPES), grad=False),
    _forward("conj", lambda x: x.real - 1j * x.imag if x.dtype.kind == "c" else x.copy(),
             dtypes=FLOATS + INTS + COMPLEX, prepare=_with_imaginary),
    _composite_only("conj_grad", lambda g: g),
    _forward("angle", lambda x: np.arctan2(x.imag, x.real).astype(x.real.dtype), "nonzero",
             dtypes=FLOATS + COMPLEX, prepare=_with_imaginary),
    _backward("angle_grad", lambda x, g: np.zeros_like(g), "nonzero"),
    _forward("i0", ref_bessel(0, False)),
    OpSpec("i0_grad", F.i0_grad, lambda x, g: g * ref_bessel(1, False)(x), ("real", "real"), unary_grad_cases(2)),
    _forward("i0e", ref_bessel(0, True)),
    OpSpec("i0e_grad", F.i0e_grad, lambda x, out, g: g * (ref_bessel(1, True)(x) - np.sign(x) * out),
           ("real", "real", "real"), _bessel_grad_cases(), prepare=_with_bessel_out(0, True)),
    _forward("i1", ref_bessel(1, False)),
    OpSpec("i1_grad", F.i1_grad, lambda x, out, g: g * (ref_bessel(0, False)(x) - _bessel_slope_over_x(x, out)),
           ("real", "real", "real"), _bessel_grad_cases(), prepare=_with_bessel_out(1, False)),
    _forward("i1e", ref_bessel(1, True)),
    OpSpec("i1e_grad", F.i1e_grad,
           lambda x, out, g: g * (ref_bessel(0, True)(x) - _bessel_slope_over_x(x, out) - np.sign(x) * out),
           ("real", "real", "real"), _bessel_grad_cases(), prepare=_with_bessel_out(1, True)),
    # x is the shape, y the point; only y is differentiable (as Paddle).
    OpSpec("gammainc", eager.gammainc, ref_gammainc, ("positive", "positive"), binary_cases(), wrt=(1,)),
    OpSpec("gammainc_grad", F.gammainc_grad, ref_gammainc_grad, ("positive", "positive", "real"),
           with_grad_of_broadcast()),
    OpSpec("gammaincc", eager.gammaincc, lambda x, y: ref_gammainc(x, y, upper=True), ("positive", "positive"),
           binary_cases(), wrt=(1,)),
    OpSpec("gammaincc_grad", F.gammaincc_grad, lambda x, y, g: ref_gammainc_grad(x, y, g, upper=True),
           ("positive", "positive", "real"), with_grad_of_broadcast()),
    OpSpec("nextafter", eager.nextafter, np.nextafter, ("real", "coarse"), binary_cases(), grad=False),
]
