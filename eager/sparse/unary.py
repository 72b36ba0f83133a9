"""Elementwise functions of a sparse tensor (Paddle's paddle.sparse.sin, ...,
pow, cast, isnan): the function applied to the stored values, the pattern kept.
As in Paddle, the entries that are not stored stay zero, so these are the
functions with f(0) = 0 (isnan gives False there). Differentiable in the values.

>>> x = eager.sparse.sparse_coo_tensor([[0, 2]], [-1.0, 4.0], [3])
>>> eager.sparse.abs(x).to_dense().numpy()
array([1., 0., 4.], dtype=float32)
"""
from __future__ import annotations

import importlib
import math

from ..arguments import to_dtype, to_float
from ..composite import _paddle_api as _check
from ..generated import forward_api as _F
from ._core import expect_sparse, from_values, values_of


def apply_to_values(op: str, x, fn):
    """A sparse tensor of x's pattern holding ``fn(x's values)``."""
    expect_sparse(op, "x", x)
    return from_values(fn(values_of(x)), x.impl)


def _floating(op: str, x):
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise TypeError(f"{op}: argument 'x' expected a floating-point sparse tensor, got {x.dtype}")


def _elementwise(name: str, fn, floating: bool = True):
    def function(x, name=None):
        expect_sparse(name_, "x", x)
        if floating:
            _floating(name_, x)
        return apply_to_values(name_, x, fn)

    name_ = f"sparse.{name}"
    function.__name__ = function.__qualname__ = name
    function.__doc__ = (f"``{name}`` of each stored value of a sparse COO or CSR tensor; the result has "
                        f"x's pattern.\n\n    >>> eager.sparse.{name}(x)  # doctest: +SKIP\n    ")
    return _check.composed_in("sparse")(function)


abs = _elementwise("abs", _F.abs, floating=False)  # noqa: A001
sin = _elementwise("sin", _F.sin)
tan = _elementwise("tan", _F.tan)
asin = _elementwise("asin", _F.asin)
atan = _elementwise("atan", _F.atan)
sinh = _elementwise("sinh", _F.sinh)
tanh = _elementwise("tanh", _F.tanh)
asinh = _elementwise("asinh", _F.asinh)
atanh = _elementwise("atanh", _F.atanh)
sqrt = _elementwise("sqrt", _F.sqrt)
square = _elementwise("square", _F.square, floating=False)
log1p = _elementwise("log1p", _F.log1p)
expm1 = _elementwise("expm1", _F.expm1)
neg = _elementwise("neg", _F.neg, floating=False)
def _angle(name: str, factor: float):
    """deg2rad / rad2deg: the values times ``factor``; integer values are cast to
    float32 first, as Paddle does."""
    def convert(values):
        if values.dtype.is_integer:
            values = _F.cast(values, to_dtype("float32", f"sparse.{name}", "x"))
        return _F.scale(values, factor, 0.0, True)

    def checked(x, name=None):
        expect_sparse(op, "x", x)
        if not (x.dtype.is_floating_point or x.dtype.is_complex or x.dtype.is_integer):
            raise TypeError(f"{op}: argument 'x' expected a floating-point or integer sparse tensor, got {x.dtype}")
        return apply_to_values(op, x, convert)

    op = f"sparse.{name}"
    checked.__name__ = checked.__qualname__ = name
    checked.__doc__ = (f"``{name}`` of each stored value of a sparse COO or CSR tensor (integer values give "
                       f"float32, as in Paddle); the result has x's pattern.\n\n"
                       f"    >>> eager.sparse.{name}(x)  # doctest: +SKIP\n    ")
    return _check.composed_in("sparse")(checked)


deg2rad = _angle("deg2rad", math.pi / 180.0)
rad2deg = _angle("rad2deg", 180.0 / math.pi)
isnan = _elementwise("isnan", _F.isnan, floating=False)


@_check.composed_in("sparse")
def pow(x, factor, name=None):  # noqa: A001
    """Each stored value to the power ``factor`` (a number); x's pattern kept.

    >>> x = eager.sparse.sparse_coo_tensor([[0, 2]], [2.0, 3.0], [3])
    >>> eager.sparse.pow(x, 2).values().numpy()
    array([4., 9.], dtype=float32)
    """
    expect_sparse("sparse.pow", "x", x)
    _floating("sparse.pow", x)
    factor = to_float(factor, "sparse.pow", "factor")
    return apply_to_values("sparse.pow", x, lambda v: _F.pow(v, factor))


@_check.composed_in("sparse")
def cast(x, index_dtype=None, value_dtype=None, name=None):
    """x with its values cast to ``value_dtype`` (None keeps them).

    ``index_dtype`` may be int32 or int64 and is checked only: eager keeps a
    sparse tensor's coordinates as int64 (see docs/sparse.md).

    >>> x = eager.sparse.sparse_coo_tensor([[0, 2]], [2.5, 3.0], [3])
    >>> eager.sparse.cast(x, value_dtype="int64").values().numpy()
    array([2, 3])
    """
    expect_sparse("sparse.cast", "x", x)
    index = to_dtype(index_dtype, "sparse.cast", "index_dtype")
    if index is not None and index.value not in ("int32", "int64"):
        raise TypeError(f"sparse.cast: argument 'index_dtype' expected int32 or int64, got {index}")
    value = to_dtype(value_dtype, "sparse.cast", "value_dtype")
    if value is None or value == x.dtype:
        return x
    return apply_to_values("sparse.cast", x, lambda v: _F.cast(v, value))


__all__ = ["abs", "asin", "asinh", "atan", "atanh", "cast", "deg2rad", "expm1", "isnan", "log1p", "neg", "pow",
           "rad2deg", "sin", "sinh", "sqrt", "square", "tan", "tanh"]

# Paddle's paddle.sparse.unary also holds these; they live in modules that import this
# one (through binary.py), so they are looked up on first use.
_ELSEWHERE = {"coalesce": "creation", "pca_lowrank": "lowrank", "reshape": "manipulation", "slice": "manipulation",
              "sum": "manipulation", "transpose": "manipulation"}


def __getattr__(name):
    module = _ELSEWHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__package__}.{module}"), name)
