"""Scalar and IntArray: attribute types that may come from Python values or tensors."""
from __future__ import annotations

import numbers

import numpy as np

from ..core.errors import ArgumentKindError
from ..core.errors import describe_value as _describe


class Scalar:
    """A single number passed as an op attribute (Paddle's ``phi::Scalar``).

    Accepts a Python or NumPy number, or a NumPy array or anything with
    ``numpy()`` that holds exactly one number (a 0-d or one-element tensor of a
    bool, int, float or complex dtype; a one-element string array is refused), or
    a string that Python's ``float`` parses (Paddle's Scalar takes those too).
    """

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = to_scalar(value)

    def to(self, kind):
        return kind(self.value)

    def __repr__(self):
        return f"Scalar({self.value!r})"


def to_scalar(value, op: str = "Scalar", arg: str = "value"):
    """The Python number an attribute value stands for; raises an ArgumentKindError (a
    TypeError and, as Paddle's argument parser, a ValueError) naming op and arg."""
    if isinstance(value, (bool, numbers.Number)):
        return value.item() if isinstance(value, np.generic) else value
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return value.item()  # np.bool_ is no numbers.Number
    array = _as_array(value)
    if array is not None and array.size == 1 and array.dtype.kind in "biufc":
        return array.reshape(()).item()
    if isinstance(value, str):  # as Paddle's Scalar: full(shape, '0.5') fills 0.5
        try:
            return float(value)
        except ValueError:
            raise ValueError(f"{op}: argument '{arg}' expected a number or a numeric string, got "
                             f"{_describe(value)}") from None
    raise ArgumentKindError(
        f"{op}: argument '{arg}' expected a number (int, float, bool or a one-element "
        f"tensor), got {_describe(value)}"
    )


class IntArray:
    """A list of ints passed as an op attribute, e.g. a shape (Paddle's ``phi::IntArray``)."""

    __slots__ = ("data",)

    def __init__(self, value):
        self.data = to_int_array(value)

    def __repr__(self):
        return f"IntArray({list(self.data)})"


def to_int_array(value, op: str = "IntArray", arg: str = "value") -> tuple:
    """A tuple of ints from an int, a sequence of ints, or an integer tensor; anything
    else is an ArgumentKindError (a TypeError, and a ValueError as in Paddle)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),)
    if isinstance(value, (list, tuple)):
        out = []
        for item in value:
            if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
                out.append(int(item))
                continue
            array = _as_array(item)
            if array is not None and array.size == 1 and array.dtype.kind in "iu":
                out.append(int(array.reshape(()).item()))
                continue
            raise ArgumentKindError(
                f"{op}: argument '{arg}' expected a list of ints, got an element "
                f"{_describe(item)} in {value!r}"
            )
        return tuple(out)
    array = _as_array(value)
    if array is not None and array.ndim <= 1 and array.dtype.kind in "iu":
        return tuple(int(v) for v in array.reshape(-1).tolist())
    raise ArgumentKindError(
        f"{op}: argument '{arg}' expected an int, a list of ints or a 1-D integer tensor, "
        f"got {_describe(value)}"
    )


def _as_array(value):
    if isinstance(value, np.ndarray):
        return value
    to_numpy = getattr(value, "numpy", None)
    if callable(to_numpy):
        return np.asarray(to_numpy())
    return None


