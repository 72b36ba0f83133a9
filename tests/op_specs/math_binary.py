"""The op table of the math binary ops."""
from __future__ import annotations

import numpy as np

import eager
from eager.generated import forward_api as F

from .core import BROADCAST_PAIRS, FLOATS, INTS, Case, OpSpec, binary_cases, unbroadcast, \
    with_grad_of_broadcast

ALL = FLOATS + INTS + ("bool",)


def _pow_prepare(arrays, attrs):
    # Exponents drawn in [0.5, 2] are moved to [-1.5, 1.5] for floats (negative
    # powers included); integer exponents stay positive (a negative one is an error).
    x, y = arrays[:2]
    if y is not None and y.dtype.kind == "f":
        y = (y * 2 - 2.5).astype(y.dtype)
    return [x, y, *arrays[2:]]


def ref_pow_grad(x, y, g):
    return (unbroadcast(g * y * x ** (y - 1), x.shape).astype(x.dtype),
            unbroadcast(g * np.log(x) * x ** y, y.shape).astype(y.dtype))


def ref_clip(x, min=None, max=None):  # noqa: A002
    out = x.copy()
    if min is not None:
        out[out < min] = min
    if max is not None:
        out[out > max] = max
    return out


def ref_clip_grad(x, g, min=None, max=None):  # noqa: A002
    outside = np.zeros(x.shape, bool)
    if min is not None:
        outside |= x < min
    if max is not None:
        outside |= x > max
    return np.where(outside, np.zeros((), g.dtype), g)


CLIP_BOUNDS = ({"min": -1, "max": 1}, {"min": -0.5}, {"max": 1}, {}, {"min": 1, "max": 1})
CLIP_CASES = (tuple(Case(((3, 4),), dict(bounds)) for bounds in CLIP_BOUNDS)
              + tuple(Case((s,), {"min": -1, "max": 1}) for s in ((), (0, 3), (2, 1, 3))))


def ref_remainder(x, y):
    # Python's %: the result has the sign of y. Written elementwise from the definition.
    if x.dtype.kind == "f":
        return (x - np.floor(x / y) * y).astype(x.dtype)
    return np.vectorize(lambda a, b: int(a) % int(b), otypes=[x.dtype])(*np.broadcast_arrays(x, y))


def ref_floor_divide(x, y):
    if x.dtype.kind == "f":
        return np.floor(x / y).astype(x.dtype)
    return np.vectorize(lambda a, b: int(a) // int(b), otypes=[x.dtype])(*np.broadcast_arrays(x, y))


def _remainder_spec(name, fn):
    return OpSpec(name, fn, ref_remainder, ("real", "nonzero"), binary_cases(), dtypes=FLOATS + INTS, grad=False)


def _bool_spec(name, fn, reference, dtypes=ALL, domains=("coarse", "coarse")):
    return OpSpec(name, fn, reference, domains, binary_cases(), dtypes=dtypes, grad=False)


def ref_isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
    x, y = np.broadcast_arrays(x.astype(np.float64), y.astype(np.float64))
    close = np.abs(x - y) <= atol + rtol * np.abs(y)
    if equal_nan:
        close |= np.isnan(x) & np.isnan(y)
    return close


def _ref_shift(left):
    """Paddle's shift functors element by element on Python ints: a shift below 0 or of
    the bit width or more gives 0, or -1 for a negative x shifted right arithmetically."""
    def reference(x, y, is_arithmetic=True):
        width = x.dtype.itemsize * 8
        x, y = np.broadcast_arrays(x, y)
        out = np.empty(x.shape, x.dtype)
        for index in np.ndindex(x.shape):
            value, shift = int(x[index]), int(y[index])
            if shift < 0 or shift >= width:
                result = -1 if (not left and is_arithmetic and value < 0) else 0
            elif left:
                result = value << shift
            else:
                result = (value if is_arithmetic else value % (1 << width)) >> shift
            result %= 1 << width
            out[index] = result - (1 << width) if result >= 1 << (width - 1) else result
        return out
    return reference


SHIFT_CASES = binary_cases() + (Case(((3, 4), (4,)), {"is_arithmetic": False}),
                                Case(((2, 3), (2, 3)), {"is_arithmetic": False}))


CLOSE_CASES = binary_cases() + (
    Case(((3, 4), (3, 4)), {"rtol": 0.6, "atol": 0.0}),
    Case(((3, 4), (4,)), {"rtol": 0.0, "atol": 0.75, "equal_nan": True}),
)


def ref_equal_all(x, y):
    return np.asarray(x.shape == y.shape and bool(np.all(x == y)))


def ref_atan2(x, y):
    if x.dtype.kind in "iu":
        x, y = x.astype(np.float64), y.astype(np.float64)
    return np.arctan2(x, y)


def ref_atan2_grad(x, y, g):
    r2 = x * x + y * y
    return unbroadcast(g * y / r2, x.shape).astype(x.dtype), unbroadcast(-g * x / r2, y.shape).astype(y.dtype)


def _hypot_prepare(arrays, attrs):
    x, y, _, g = arrays
    return [x, y, np.sqrt(x * x + y * y).astype(x.dtype), g]


def ref_hypot_grad(x, y, out, g):
    return unbroadcast(g * x / out, x.shape).astype(x.dtype), unbroadcast(g * y / out, y.shape).astype(y.dtype)


LERP_CASES = tuple(Case((x, y, ())) for x, y in BROADCAST_PAIRS) + (
    Case(((3, 4), (3, 4), (3, 4))),
    Case(((3, 1), (1, 4), (4,))),
    Case(((2, 3), (2, 3), (2, 1))),
    Case(((3,), (3,), (2, 1))),       # weight widens the result
)


def ref_lerp(x, y, w):
    return (x + w * (y - x)).astype(x.dtype)


def ref_lerp_grad(x, y, w, g):
    return (unbroadcast(g * (1 - w), x.shape).astype(x.dtype), unbroadcast(g * w, y.shape).astype(y.dtype),
            unbroadcast(g * (y - x), w.shape).astype(w.dtype))


def _nan_ignoring(pick):
    def reference(x, y):
        x, y = np.broadcast_arrays(x, y)
        if x.dtype.kind != "f":
            return pick(x, y)
        return np.where(np.isnan(y), x, np.where(np.isnan(x), y, pick(x, y)))
    return reference


def _x_wins_grad_reference(x_wins):
    def reference(x, y, g):
        wins = np.broadcast_to(x_wins(x, y) | np.isnan(y), g.shape)
        zero = np.zeros((), g.dtype)
        return (unbroadcast(np.where(wins, g, zero), x.shape).astype(g.dtype),
                unbroadcast(np.where(wins, zero, g), y.shape).astype(g.dtype))
    return reference


SPECS: list = [
    OpSpec("elementwise_pow", eager.ops.elementwise_pow, lambda x, y: np.power(x, y), ("positive", "positive"),
           binary_cases(), dtypes=FLOATS + INTS, prepare=_pow_prepare),
    OpSpec("elementwise_pow_grad", F.elementwise_pow_grad, ref_pow_grad, ("positive", "positive", "real"),
           with_grad_of_broadcast(), prepare=_pow_prepare),
    OpSpec("clip", F.clip, ref_clip, ("real",), CLIP_CASES, dtypes=FLOATS + INTS),
    OpSpec("clip_grad", F.clip_grad, ref_clip_grad, ("real", "real"),
           tuple(Case((c.shapes[0], c.shapes[0]), {"min": None, "max": None, **c.attrs}) for c in CLIP_CASES), dtypes=FLOATS + INTS),
    _remainder_spec("remainder", F.remainder),
    _remainder_spec("mod", F.mod),
    _remainder_spec("floor_mod", F.floor_mod),
    OpSpec("floor_divide", F.floor_divide, ref_floor_divide, ("real", "nonzero"), binary_cases(),
           dtypes=FLOATS + INTS, grad=False),
    _bool_spec("logical_and", F.logical_and, lambda x, y: (x != 0) & (y != 0)),
    _bool_spec("logical_or", F.logical_or, lambda x, y: (x != 0) | (y != 0)),
    _bool_spec("logical_xor", F.logical_xor, lambda x, y: (x != 0) != (y != 0)),
    _bool_spec("bitwise_and", F.bitwise_and, lambda x, y: x & y, INTS + ("bool",), ("real", "real")),
    _bool_spec("bitwise_or", F.bitwise_or, lambda x, y: x | y, INTS + ("bool",), ("real", "real")),
    _bool_spec("bitwise_xor", F.bitwise_xor, lambda x, y: x ^ y, INTS + ("bool",), ("real", "real")),
    OpSpec("bitwise_left_shift", F.bitwise_left_shift, _ref_shift(True), ("real", "real"), SHIFT_CASES,
           dtypes=INTS, grad=False),
    OpSpec("bitwise_right_shift", F.bitwise_right_shift, _ref_shift(False), ("real", "real"), SHIFT_CASES,
           dtypes=INTS, grad=False),
    OpSpec("isclose", F.isclose, ref_isclose, ("coarse", "coarse"), CLOSE_CASES, grad=False),
    OpSpec("allclose", F.allclose, lambda *a, **k: np.asarray(np.all(ref_isclose(*a, **k))),
           ("coarse", "coarse"), CLOSE_CASES, grad=False),
    OpSpec("equal_all", F.equal_all, ref_equal_all, ("coarse", "coarse"),
           binary_cases() + (Case(((1,), (1,))), Case(((2, 3), (3, 2)))), dtypes=ALL, grad=False),
    OpSpec("atan2", F.atan2, ref_atan2, ("real", "nonzero"), binary_cases(), dtypes=FLOATS + INTS),
    OpSpec("atan2_grad", F.atan2_grad, ref_atan2_grad, ("real", "nonzero", "real"), with_grad_of_broadcast()),
    OpSpec("hypot", F.hypot, lambda x, y: np.sqrt(x * x + y * y).astype(x.dtype), ("nonzero", "nonzero"),
           binary_cases()),
    OpSpec("hypot_grad", F.hypot_grad, ref_hypot_grad, ("nonzero", "nonzero", "real", "real"),
           with_grad_of_broadcast(n_before=1), prepare=_hypot_prepare),
    OpSpec("lerp", F.lerp, ref_lerp, ("real", "real", "unit"), LERP_CASES),
    OpSpec("lerp_grad", F.lerp_grad, ref_lerp_grad, ("real", "real", "unit", "real"),
           tuple(Case(c.shapes + (np.broadcast_shapes(*c.shapes),)) for c in LERP_CASES)),
    OpSpec("fmax", F.fmax, _nan_ignoring(np.maximum), ("real", "real"), binary_cases(), dtypes=FLOATS + INTS),
    OpSpec("fmin", F.fmin, _nan_ignoring(np.minimum), ("real", "real"), binary_cases(), dtypes=FLOATS + INTS),
    OpSpec("fmax_grad", F.fmax_grad, _x_wins_grad_reference(np.greater_equal), ("coarse", "coarse", "real"),
           with_grad_of_broadcast(), dtypes=FLOATS, wrt=(2,)),
    OpSpec("fmin_grad", F.fmin_grad, _x_wins_grad_reference(np.less_equal), ("coarse", "coarse", "real"),
           with_grad_of_broadcast(), dtypes=FLOATS, wrt=(2,)),
]
