"""bfloat16 kernels made from float32 ones: compute in float32, round once.

NumPy has no bfloat16 arithmetic of its own (ml_dtypes gives it the dtype and
casts), and a bfloat16 sum or matmul accumulated in bfloat16 would lose most
of its bits. So phi gives every kernel registered for float32 a bfloat16 twin
(:meth:`KernelFactory.register` makes it, unless the kernel registers
bfloat16 itself): the twin runs the float32 kernel on float32 copies of its
bfloat16 arrays and rounds the float32 results to bfloat16 (round to nearest
even). Accumulation happens in float32 for free, and the result is what a
float32 computation rounded once gives, as Paddle's bfloat16 kernels aim for.

What the twin changes, argument by argument:

- a bfloat16 array (also inside a list or tuple: ``concat``'s inputs) becomes
  float32 (an ArraySpec, a saved input without its buffer, too); arrays of other dtypes (indices, masks) pass as they are;
- a ``DataType.BFLOAT16`` attribute (a creation op's ``dtype``) becomes
  FLOAT32, so the float32 kernel makes float32 values to round;
- each float32 result (also inside a list or tuple) is rounded to bfloat16,
  unless the call named FLOAT32 as an attribute (``sum(x, dtype=float32)``
  asks for a float32 result); results of other dtypes (argmax's int64
  indices, a comparison's bools) pass as they are; a SelectedRows result
  (a sparse gradient) gets its rows' values rounded;
- ``into=`` (an inplace op's destination, a bfloat16 array; for a backward
  kernel a tuple of them, one per gradient) receives the rounded result.

Kernels whose float32 result must stay float32 for a bfloat16 input (``cast``)
register bfloat16 themselves.
"""
from __future__ import annotations

import functools

import numpy as np

from ..common.data_type import DataType, bfloat16_numpy_dtype
from .dense_tensor import ArraySpec, DenseTensor
from .selected_rows import SelectedRows

_FLOAT32 = np.dtype(np.float32)


def computing_in_float32(fn, updates_inputs: bool = False):
    """The bfloat16 twin of float32 kernel ``fn`` (see the module docstring).

    ``updates_inputs``: ``fn`` writes into its array arguments (phi names such
    kernels with a trailing underscore: ``sgd_``, ``zero_``); the twin writes
    each widened array back into its bfloat16 original, rounded."""
    takes_into = "into" in (getattr(fn, "__kwdefaults__", None) or {})

    @functools.wraps(fn)
    def bfloat16_kernel(ctx, *args, **kwargs):
        bfloat16 = bfloat16_numpy_dtype()
        into = kwargs.pop("into", None) if takes_into else None
        keeps_float32 = any(a is DataType.FLOAT32 for a in args) or \
            any(a is DataType.FLOAT32 for a in kwargs.values())
        widened = {}  # id(float32 copy) -> (copy, bfloat16 original)
        args = [_widened(a, bfloat16, widened) for a in args]
        kwargs = {k: _widened(v, bfloat16, widened) for k, v in kwargs.items()}
        out = fn(ctx, *args, **kwargs)
        if updates_inputs:
            for copy, original in widened.values():
                original[...] = copy.astype(bfloat16)
        passed = {id(a): a for a in args if hasattr(a, "dtype")}
        out = _results(out, bfloat16, widened, passed, not keeps_float32)
        if into is None:
            return out
        return _written_into(into, out)

    bfloat16_kernel.float32_kernel = fn
    return bfloat16_kernel


def _written_into(into, out):
    """``out`` written into ``into``: one array, or a tuple with an array (or
    None: that result comes back as it is) per result, as a backward kernel
    with several gradients takes it."""
    if type(into) is tuple or type(into) is list:
        return type(out)(result if buffer is None or result is None else _written_into(buffer, result)
                         for buffer, result in zip(into, out))
    into[...] = out
    return into


def _widened(value, bfloat16, widened: dict):
    if getattr(value, "dtype", None) is bfloat16:
        if type(value) is ArraySpec:  # a saved input's shape and dtype, without its buffer
            return ArraySpec(value.shape, _FLOAT32, value.place)
        copy = value.astype(_FLOAT32)
        widened[id(copy)] = (copy, value)
        return copy
    if value is DataType.BFLOAT16:
        return DataType.FLOAT32
    if type(value) is list or type(value) is tuple:
        return type(value)(_widened(v, bfloat16, widened) for v in value)
    return value


def _results(value, bfloat16, widened: dict, passed: dict, rounds: bool):
    """The twin's results: a widened argument given back is its bfloat16
    original, another argument given back stays as it is, and a new float32
    array is rounded to bfloat16 when ``rounds``."""
    if type(value) is list or type(value) is tuple:
        return type(value)(_results(v, bfloat16, widened, passed, rounds) for v in value)
    if type(value) is SelectedRows:  # a sparse result of a dense kernel (embedding's gradient)
        if rounds and value.value.array.dtype is _FLOAT32:
            return SelectedRows(value.rows, DenseTensor(value.value.array.astype(bfloat16)), value.height)
        return value
    if getattr(value, "dtype", None) is None:
        return value
    copy_and_original = widened.get(id(value))
    if copy_and_original is not None and copy_and_original[0] is value:
        return copy_and_original[1]
    if passed.get(id(value)) is value:
        return value
    if rounds and value.dtype is _FLOAT32:
        return value.astype(bfloat16)
    return value
