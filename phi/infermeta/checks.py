"""Shared checks for InferMeta functions; each raises with the argument named."""
from __future__ import annotations

import math

import numpy as np

from ..common.data_type import DataType, float_info
from ..core.errors import AxisError, InvalidArgumentError


def normalize_axis(arg: str, axis: int, ndim: int) -> int:
    """axis in [-ndim, ndim) mapped to [0, ndim); a 0-d tensor accepts -1 and 0."""
    bound = max(ndim, 1)
    if not -bound <= axis < bound:
        raise AxisError(
            f"argument '{arg}' expected an axis in [{-bound}, {bound}) for a "
            f"{ndim}-d tensor, got {axis}"
        )
    return axis % bound if ndim else 0


def normalize_axes(arg: str, axes, ndim: int) -> tuple:
    """Sorted distinct non-negative axes; an empty list means every axis."""
    if not axes:
        return tuple(range(ndim))
    out = []
    for axis in axes:
        a = normalize_axis(arg, axis, ndim)
        if a in out:
            raise InvalidArgumentError(
                f"argument '{arg}' lists axis {axis} more than once: {list(axes)}"
            )
        out.append(a)
    return tuple(sorted(out)) if ndim else ()


def same_dtype(arg_x: str, x, arg_y: str, y) -> None:
    if x.dtype is not y.dtype:
        raise InvalidArgumentError(
            f"arguments '{arg_x}' and '{arg_y}' expected the same dtype, got "
            f"{x.dtype} and {y.dtype}; cast one with .astype()"
        )


def broadcast_dims(arg_x: str, x_dims, arg_y: str, y_dims) -> tuple:
    """The NumPy broadcast of two shapes, or an error naming both."""
    if x_dims == y_dims:
        return tuple(x_dims)
    nx, ny = len(x_dims), len(y_dims)
    n = max(nx, ny)
    out = []
    for i in range(n):
        a = x_dims[i - n + nx] if i - n + nx >= 0 else 1
        b = y_dims[i - n + ny] if i - n + ny >= 0 else 1
        if a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        else:
            raise InvalidArgumentError(
                f"arguments '{arg_x}' with shape {list(x_dims)} and '{arg_y}' with shape "
                f"{list(y_dims)} cannot be broadcast: dimension {i - n} is {a} vs {b}"
            )
    return tuple(out)


def check_representable(arg: str, value, dtype: DataType) -> None:
    """Raises unless the Python number ``value`` can be stored as ``dtype``.

    Integer dtypes take integers in range and finite reals (truncated, as
    Paddle's full does); bool takes any number (NaN and inf are nonzero: True, as
    Paddle's full and setitem and NumPy's cast read them); real dtypes refuse a
    complex value with an imaginary part; an integer too large even for float64
    is refused everywhere.
    """
    if isinstance(value, complex) and not dtype.is_complex:
        if value.imag != 0:
            raise InvalidArgumentError(
                f"argument '{arg}' expected a real number for dtype {dtype}, got {value!r}; "
                f"use a complex dtype")
        value = value.real
    if dtype.is_integer:
        if isinstance(value, float) and not math.isfinite(value):
            raise InvalidArgumentError(
                f"argument '{arg}' expected a finite number for dtype {dtype}, got {value!r}")
        info = np.iinfo(dtype.numpy_dtype)
        if not info.min <= int(value) <= info.max:
            raise InvalidArgumentError(
                f"argument '{arg}' expected a number in [{info.min}, {info.max}] for dtype "
                f"{dtype}, got {value!r}")
    elif dtype is DataType.BOOL:
        return
    elif isinstance(value, int) and not isinstance(value, bool):
        try:
            float(value)
        except OverflowError:
            raise InvalidArgumentError(
                f"argument '{arg}' expected a number a {dtype} can hold, got an integer of "
                f"{value.bit_length()} bits") from None


def check_in_float_range(arg: str, value, dtype: DataType) -> None:
    """Raises if the real number ``value`` is finite but beyond the range of the
    floating dtype ``dtype`` (it would be stored as inf); inf and nan pass, and
    non-floating dtypes are left to :func:`check_representable`."""
    if not dtype.is_floating_point or dtype is DataType.FLOAT64:
        return
    value = value.real if isinstance(value, complex) else value
    if isinstance(value, bool) or not math.isfinite(value):
        return
    with np.errstate(over="ignore"):  # the overflow is what is being asked about
        stored = np.asarray(value, dtype=dtype.numpy_dtype)
    if np.isinf(stored):
        limit = float(float_info(dtype).max)
        raise InvalidArgumentError(
            f"argument '{arg}' expected a number in [{-limit:g}, {limit:g}] for dtype {dtype}, "
            f"got {value!r}")


MAX_DIMS = 64  # NumPy's (and CuPy's) limit on an array's rank
_MAX_BYTES = 2 ** 63 - 1


def check_result_shape(arg: str, dims, dtype: DataType) -> None:
    """A result shape a kernel can allocate: at most 64 dimensions and a byte size
    that fits a signed 64-bit count; checked before any memory is asked for."""
    if len(dims) > MAX_DIMS:
        raise InvalidArgumentError(
            f"argument '{arg}' gives a result of {len(dims)} dimensions; at most {MAX_DIMS} are supported")
    count = 1
    for d in dims:
        count *= d
    if count * dtype.itemsize > _MAX_BYTES:
        raise InvalidArgumentError(
            f"argument '{arg}' gives a result of shape {list(dims)}, {count:,} elements of {dtype}: "
            f"more bytes than any device can address")
