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

from .core import FLOATS, INTS, UNARY_SHAPES, Case, OpSpec, unary_cases, unary_grad_cases

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
    return OpSpec(name, getattr(eager, name), reference, (domain,), unary_cases(), dtypes=dtypes,
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
    _forward("isnan", lambda x: x != x, dtypes=FLOATS + INTS, prepare=_with_specials, grad=False),
    _forward("isinf", lambda x: np.abs(x.astype(np.float64)) == np.inf, dtypes=FLOATS + INTS,
             prepare=_with_specials, grad=False),
    _forward("isfinite", lambda x: np.abs(x.astype(np.float64)) < np.inf, dtypes=FLOATS + INTS,
             prepare=_with_specials, grad=False),
    _forward("logical_not", lambda x: x == 0, "coarse", dtypes=FLOATS + INTS + ("bool",), grad=False),
]
