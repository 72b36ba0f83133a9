"""The op table of the activation ops beyond the spine's relu/sigmoid/tanh/softmax (issue #10).

References are written from each function's definition, evaluated in float64
with NumPy (and math.erf for gelu) and cast back, so they share nothing with
the kernels' overflow-free rearrangements; derivatives are the textbook ones.
Inputs of the piecewise functions are moved away from their kinks by
``_away_from`` so finite differences never straddle one.
"""
from __future__ import annotations

import inspect
import math

import numpy as np

from eager.generated import forward_api as F

from .core import UNARY_SHAPES, Case, OpSpec, unary_cases

SELU_SCALE = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717


def _wide(fn):
    """fn evaluated on float64 copies of the arrays, cast back to the first one's dtype."""
    def reference(*arrays, **attrs):
        out = fn(*[np.asarray(a, np.float64) for a in arrays], **attrs)
        return np.asarray(out).astype(arrays[0].dtype)
    return reference


def _grad_of(slope):
    """The reference of a backward op: out_grad * f'(x)."""
    return _wide(lambda x, g, **attrs: g * slope(x, **attrs))


def _away_from(*points):
    """A prepare hook moving x (the first input) at least 0.05 away from each kink;
    a point may be a function of the case's attributes."""
    def prepare(arrays, attrs):
        x = np.array(arrays[0], copy=True)
        for point in points:
            p = point(attrs) if callable(point) else point
            close = np.abs(x - p) < 0.05
            x[close] = (p + np.where(x[close] >= p, 0.05, -0.05)).astype(x.dtype)
        return [x] + list(arrays[1:])
    return prepare


def _widened(arrays, attrs):
    """x stretched from [-2, 2] to [-5, 5] and kept off hardswish's kinks at -3 and 3."""
    return _away_from(-3.0, 3.0)([np.asarray(arrays[0] * 2.5, arrays[0].dtype)] + list(arrays[1:]), attrs)


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# -- the functions ----------------------------------------------------------------------

def ref_gelu(x, approximate=False):
    if approximate:
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    return x * 0.5 * (1 + _erf(x / np.sqrt(2)))


def d_gelu(x, approximate=False):
    if approximate:
        c = np.sqrt(2 / np.pi)
        t = np.tanh(c * (x + 0.044715 * x ** 3))
        return 0.5 * (1 + t) + 0.5 * x * (1 - t ** 2) * c * (1 + 3 * 0.044715 * x ** 2)
    return 0.5 * (1 + _erf(x / np.sqrt(2))) + x * np.exp(-x ** 2 / 2) / np.sqrt(2 * np.pi)


def ref_elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * (np.exp(np.minimum(x, 0)) - 1))


def d_elu(x, alpha=1.0):
    return np.where(x > 0, 1.0, alpha * np.exp(np.minimum(x, 0)))


def ref_celu(x, alpha=1.0):
    return np.maximum(0, x) + np.minimum(0, alpha * (np.exp(x / alpha) - 1))


def ref_softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log(1 + np.exp(beta * x)) / beta)


def ref_mish(x):
    return x * np.tanh(np.log(1 + np.exp(x)))


def d_mish(x):
    sp = np.log(1 + np.exp(x))
    return np.tanh(sp) + x * (1 - np.tanh(sp) ** 2) * _sigmoid(x)


def ref_hardswish(x):
    return x * np.minimum(np.maximum(x + 3, 0), 6) / 6


def d_hardswish(x):
    return np.where(x < -3, 0.0, np.where(x > 3, 1.0, (2 * x + 3) / 6))


# (name, reference, derivative, attributes of extra cases, kinks or a prepare hook)
ELEMENTWISE = [
    ("gelu", ref_gelu, d_gelu, [{"approximate": True}, {"approximate": False}], ()),
    ("silu", lambda x: x * _sigmoid(x), lambda x: _sigmoid(x) * (1 + x * (1 - _sigmoid(x))), [], ()),
    ("leaky_relu", lambda x, negative_slope=0.01: np.where(x > 0, x, negative_slope * x),
     lambda x, negative_slope=0.01: np.where(x > 0, 1.0, negative_slope),
     [{"negative_slope": 0.2}, {"negative_slope": -1.5}], (0.0,)),
    ("elu", ref_elu, d_elu, [{"alpha": 0.5}, {"alpha": 2.0}], (0.0,)),
    ("selu", lambda x, scale=SELU_SCALE, alpha=SELU_ALPHA: scale * ref_elu(x, alpha),
     lambda x, scale=SELU_SCALE, alpha=SELU_ALPHA: scale * d_elu(x, alpha),
     [{"scale": 1.5, "alpha": 0.5}], (0.0,)),
    ("celu", ref_celu, lambda x, alpha=1.0: np.where(x > 0, 1.0, np.exp(x / alpha)),
     [{"alpha": 0.5}, {"alpha": -2.0}], (0.0,)),
    ("softplus", ref_softplus,
     lambda x, beta=1.0, threshold=20.0: np.where(beta * x > threshold, 1.0, _sigmoid(beta * x)),
     [{"beta": 2.0, "threshold": 3.0}, {"beta": -1.5, "threshold": 20.0}],
     (lambda a: a.get("threshold", 20.0) / a.get("beta", 1.0),)),
    ("softsign", lambda x: x / (1 + np.abs(x)), lambda x: 1 / (1 + np.abs(x)) ** 2, [], (0.0,)),
    ("softshrink", lambda x, threshold=0.5: np.where(x > threshold, x - threshold,
                                                     np.where(x < -threshold, x + threshold, 0.0)),
     lambda x, threshold=0.5: (np.abs(x) > threshold).astype(np.float64),
     [{"threshold": 1.2}, {"threshold": 0.0}],
     (lambda a: a.get("threshold", 0.5), lambda a: -a.get("threshold", 0.5))),
    ("hardshrink", lambda x, threshold=0.5: np.where(np.abs(x) > threshold, x, 0.0),
     lambda x, threshold=0.5: (np.abs(x) > threshold).astype(np.float64),
     [{"threshold": 1.2}],
     (lambda a: a.get("threshold", 0.5), lambda a: -a.get("threshold", 0.5))),
    ("tanhshrink", lambda x: x - np.tanh(x), lambda x: np.tanh(x) ** 2, [], ()),
    ("hardtanh", lambda x, min=-1.0, max=1.0: np.minimum(np.maximum(x, min), max),  # noqa: A002
     lambda x, min=-1.0, max=1.0: ((x > min) & (x < max)).astype(np.float64),  # noqa: A002
     [{"min": -0.5, "max": 1.5}, {"min": 0.0, "max": 6.0}],
     (lambda a: a.get("min", -1.0), lambda a: a.get("max", 1.0))),
    ("hardswish", ref_hardswish, d_hardswish, [], _widened),
    ("hardsigmoid", lambda x, slope=0.1666667, offset=0.5: np.clip(slope * x + offset, 0, 1),
     lambda x, slope=0.1666667, offset=0.5: np.where((slope * x + offset > 0) & (slope * x + offset < 1), slope, 0.0),
     [{"slope": 0.5, "offset": 0.3}, {"slope": 0.2, "offset": 0.5}],
     (lambda a: -a.get("offset", 0.5) / a.get("slope", 0.1666667),
      lambda a: (1 - a.get("offset", 0.5)) / a.get("slope", 0.1666667))),
    ("mish", ref_mish, d_mish, [], ()),
    ("log_sigmoid", lambda x: np.log(_sigmoid(x)), lambda x: 1 - _sigmoid(x), [], ()),
    ("thresholded_relu", lambda x, threshold=1.0: np.where(x > threshold, x, 0.0),
     lambda x, threshold=1.0: (x > threshold).astype(np.float64),
     [{"threshold": 0.3}, {"threshold": -0.5}], (lambda a: a.get("threshold", 1.0),)),
]


# gelu_grad also takes the forward result (it reads Phi(x) off it as out / x), which must
# be gelu(x) itself, also while gradcheck perturbs x: the row calls it through gelu.
GRAD_CALLS = {
    "gelu": lambda x, out_grad, approximate: F.gelu_grad(x, F.gelu(x, approximate), out_grad, approximate),
}


def _specs():
    specs = []
    for name, reference, slope, extra, kinks in ELEMENTWISE:
        cases = unary_cases() + tuple(Case(((3, 4),), attrs) for attrs in extra)
        # A backward op takes every attribute (no defaults): those of the reference's signature.
        defaults = {p.name: p.default for p in inspect.signature(reference).parameters.values()
                    if p.default is not inspect.Parameter.empty}
        grad_cases = (tuple(Case((s, s), dict(defaults)) for s in UNARY_SHAPES)
                      + tuple(Case(((3, 4), (3, 4)), {**defaults, **a}) for a in extra))
        prepare = kinks if callable(kinks) else _away_from(*kinks) if kinks else None
        specs.append(OpSpec(name, getattr(F, name), _wide(reference), ("real",), cases, prepare=prepare))
        specs.append(OpSpec(f"{name}_grad", GRAD_CALLS.get(name, getattr(F, f"{name}_grad")), _grad_of(slope),
                            ("real", "real"), grad_cases, prepare=prepare))
    return specs


SPECS: list = _specs()
