"""The op table's vocabulary: drawing inputs, Case, OpSpec and the reference
helpers every group's table shares (see tests/op_specs/__init__.py).

The op table: one OpSpec per op of ops.yaml and backward.yaml (Chainer style).

Each entry says how to call the op, how to draw its inputs (``domains``), which
shapes and attributes to try (``cases``), an independent NumPy reference for
its values, which dtypes its kernel takes, and whether its eager function is
differentiable. ``tests/test_ops.py`` runs one generic checker over the table.

The references are written from the maths, not from the kernels: backward ops
of linear maps (sum, reshape, transpose, broadcasting adds, matmul in each
argument, ...) take their reference from :func:`linear_vjp`, which builds the
vector-Jacobian product of the NumPy forward reference one basis vector at a
time, so no reference shares the kernels' unbroadcasting code.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import eager
import eager.api  # noqa: F401  (importing eager.generated first hits an import cycle via eager.nn)
from eager.generated import forward_api as F

FLOATS = ("float32", "float64")
INTS = ("int32", "int64")


# -- drawing inputs -----------------------------------------------------------

def draw(domain: str, shape, dtype: str, rng) -> np.ndarray:
    """An array of ``shape`` with values suited to the op's input.

    real:     uniform in [-2, 2]
    positive: uniform in [0.5, 2] (log, pow bases, divisors)
    nonzero:  |x| in [0.5, 2] with a random sign (away from relu's kink and 1/x's pole)
    unit:     uniform in [0.1, 0.9] (a sigmoid output)
    open:     uniform in [-0.9, 0.9] (a tanh output)
    coarse:   multiples of 0.5 in [-1, 1], so comparisons see ties
    """
    shape = tuple(shape)
    if np.dtype(dtype).kind in "iub":
        if domain in ("positive", "nonzero"):
            values = rng.integers(1, 4, shape) * (rng.choice([-1, 1], shape) if domain == "nonzero" else 1)
        elif np.dtype(dtype).kind == "b":
            return rng.integers(0, 2, shape).astype(bool)
        else:
            values = rng.integers(-3, 4, shape)
        return values.astype(dtype)
    if domain == "real":
        values = rng.uniform(-2.0, 2.0, shape)
    elif domain == "positive":
        values = rng.uniform(0.5, 2.0, shape)
    elif domain == "nonzero":
        values = rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    elif domain == "unit":
        values = rng.uniform(0.1, 0.9, shape)
    elif domain == "open":
        values = rng.uniform(-0.9, 0.9, shape)
    elif domain == "coarse":
        values = rng.integers(-2, 3, shape) * 0.5
    else:
        raise ValueError(f"unknown domain {domain!r}")
    return np.asarray(values, dtype=dtype)


# -- the table's types --------------------------------------------------------

@dataclass(frozen=True)
class Case:
    """One call: a shape per tensor input (None passes None) and the attributes."""

    shapes: tuple
    attrs: dict = field(default_factory=dict)
    # False where the call is valid but not differentiable in float64 (a cast to float32).
    grad: bool = True
    # False where a second derivative of this case costs minutes (a backward op over a whole
    # sequence, checked to third order) and the op's smaller cases check the same rule.
    gradgrad: bool = True

    @property
    def id(self) -> str:
        shapes = "_".join("None" if s is None else "x".join(map(str, s)) or "scalar" for s in self.shapes)
        attrs = ",".join(f"{k}={_short(v)}" for k, v in self.attrs.items())
        return f"{shapes}[{attrs}]" if attrs else shapes


def _short(value) -> str:
    return getattr(value, "name", None) or str(value).replace(" ", "")


@dataclass(frozen=True)
class OpSpec:
    name: str
    fn: Callable                      # eager function: fn(*tensors, **attrs)
    reference: Callable               # NumPy: reference(*arrays, **attrs) -> array or tuple
    domains: tuple                    # one per tensor input
    cases: tuple
    dtypes: tuple = FLOATS            # forward checks run for each
    grad: bool = True                 # whether fn records a differentiable graph
    # Inputs derived from the others (e.g. divide_grad's ``out = x / y``), so the
    # saved forward values a backward op takes are consistent.
    prepare: Callable | None = None
    # Which tensor inputs gradcheck differentiates (default: all floating ones).
    wrt: tuple | None = None
    # Ops whose values cannot be predicted (random ops, empty): the reference gives
    # only the expected dtype and shape, and check(got, *inputs, **attrs) asserts
    # what the values must satisfy (bounds, moments); the generators are seeded
    # from the test's identity first, so the checks do not flake.
    check: Callable | None = None

    def __repr__(self) -> str:
        return f"OpSpec({self.name})"


# -- reference helpers --------------------------------------------------------

def unbroadcast(grad: np.ndarray, shape) -> np.ndarray:
    """Sums ``grad`` down to ``shape``: written as a loop over axes, not as the kernel's one sum."""
    shape = tuple(shape)
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


def linear_vjp(f, in_shape, cotangent: np.ndarray, dtype) -> np.ndarray:
    """cotangent · J for a function ``f`` linear in its argument, by brute force.

    Entry k is ``sum(cotangent * f(e_k))`` for the k-th basis array e_k; with the
    small shapes of the table this is cheap, and it depends on nothing but f.
    """
    size = int(np.prod(in_shape, dtype=np.int64))
    out = np.zeros(size, dtype=np.float64)
    for k in range(size):
        basis = np.zeros(size, dtype=np.float64)
        basis[k] = 1.0
        image = np.asarray(f(basis.reshape(in_shape)), dtype=np.float64)
        out[k] = np.sum(np.asarray(cotangent, np.float64) * image)
    return out.reshape(in_shape).astype(dtype)


def _axes(axis, ndim):
    if not axis:
        return None
    return tuple(a % ndim for a in axis) if ndim else None


def ref_sum(x, axis=(), dtype=None, keepdim=False):
    # Without a dtype, bool and integer sums are int64, as in NumPy and Paddle.
    out_dtype = (np.dtype("int64") if x.dtype.kind in "biu" else x.dtype) if dtype is None else dtype.numpy_dtype
    return np.asarray(np.sum(x, axis=_axes(axis, x.ndim), dtype=out_dtype, keepdims=keepdim))


def ref_mean(x, axis=(), keepdim=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the mean of nothing is NaN
        return np.asarray(np.mean(x, axis=_axes(axis, x.ndim), keepdims=keepdim)).astype(x.dtype)


def ref_reshape(x, shape):
    resolved = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
    return np.reshape(x, resolved)


def ref_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _binary(x_shape, y_shape, attrs=None):
    return Case((x_shape, y_shape), attrs or {})


# Broadcasting pairs: equal shapes, a trailing-vector operand, both sides
# broadcasting, 0-d operands, and a size-0 dimension.
BROADCAST_PAIRS = (
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((4,), (3, 4)),
    ((2, 1, 3), (4, 1)),
    ((), ()),
    ((2, 3), ()),
    ((), (3,)),
    ((0, 3), (3,)),
    ((2, 0), (1,)),
)
UNARY_SHAPES = ((3, 4), (), (5,), (2, 1, 3), (0, 3))


def binary_cases():
    return tuple(_binary(x, y) for x, y in BROADCAST_PAIRS)


def unary_cases(attrs=None):
    return tuple(Case((s,), dict(attrs or {})) for s in UNARY_SHAPES)


def with_grad_of_broadcast(n_before=0, n_after=0):
    """Backward-op cases of a binary op: x, y, [extra tensors shaped like out,] out_grad."""
    cases = []
    for x, y in BROADCAST_PAIRS:
        out = np.broadcast_shapes(x, y)
        cases.append(Case((x, y) + (out,) * n_before + (out,) + (out,) * n_after))
    return tuple(cases)


def unary_grad_cases(n_inputs):
    return tuple(Case((s,) * n_inputs) for s in UNARY_SHAPES)


REDUCE_CASES = (
    Case(((2, 3, 4),), {}),
    Case(((2, 3, 4),), {"axis": [0]}),
    Case(((2, 3, 4),), {"axis": [-1], "keepdim": True}),
    Case(((2, 3, 4),), {"axis": [0, 2]}),
    Case(((2, 3, 4),), {"axis": [2, 0], "keepdim": True}),
    Case(((),), {}),
    Case(((),), {"axis": [-1]}),
    Case(((0, 3),), {"axis": [0]}),
    Case(((0, 3),), {"axis": [1], "keepdim": True}),
)


def reduce_grad_cases():
    cases = []
    for case in REDUCE_CASES:
        (x,) = case.shapes
        attrs = {"axis": [], "keepdim": False, **case.attrs}
        out = ref_sum(np.zeros(x), attrs["axis"], None, attrs["keepdim"]).shape
        cases.append(Case((x, out), attrs))
    return tuple(cases)


D = eager.DataType
