"""Gradient accumulation in phi: the buffer rules the autograd engine relies on.

- ``assign(x)``: a copy of x in a buffer of its own.
- ``accumulate_(acc, x)``: x added into acc's buffer in place (acc's version is
  bumped); returns acc.
- ``zero_(x)``: x's buffer set to zeros in place; returns x.
"""
from __future__ import annotations

from ..core import DenseTensor, KERNELS
from ..core.errors import InvalidArgumentError, describe_tensor

_assign_kernel = KERNELS.dispatch_table("assign")
_accumulate_kernel = KERNELS.dispatch_table("accumulate_")
_zero_kernel = KERNELS.dispatch_table("zero_")


def assign(x):
    """A new DenseTensor with x's values, owning its buffer."""
    array = x.array
    return DenseTensor(_assign_kernel[type(array), array.dtype](array), x.layout)


def accumulate_(acc, x):
    """acc += x in place (same dims, dtype and place; checked before anything is written)."""
    if tuple(x.dims) != tuple(acc.dims) or x.dtype is not acc.dtype or x.place != acc.place:
        raise InvalidArgumentError(
            f"accumulate_: argument 'x' must match the accumulator 'acc': expected "
            f"{describe_tensor(acc)} on {acc.place}, got {describe_tensor(x)} on {x.place}")
    array = acc.array
    _accumulate_kernel[type(array), array.dtype](array, x.array)
    acc.bump_version()
    return acc


def zero_(x):
    """x's buffer set to zeros in place."""
    array = x.array
    _zero_kernel[type(array), array.dtype](array)
    x.bump_version()
    return x


__all__ = ["accumulate_", "assign", "zero_"]
