"""Argument checks shared by the functionals; each error names the function
and the argument. Also the two label helpers that go with them: ``value_range``
(the read a value check makes) and ``as_int64`` (checked indices as int64)."""
from __future__ import annotations

import numbers

import numpy as np

from phi.backends.gpu_context import VALUE_CHECKS
from phi.common.data_type import FLOATING_TYPES, INTEGER_TYPES, DataType
from phi.core.errors import ArgumentKindError, UnsupportedDtypeError

from ...arguments import bad_tensor, describe, to_int
from ...autograd.op_modes import MODES
from ...generated import forward_api as _F
from ...tensor import Tensor
from ...type_promotion import promoted_dtype

_REDUCTIONS = ("mean", "sum", "none")
REDUCTIONS = _REDUCTIONS  # what check_reduction accepts, for the functionals' in-line checks

# The NumPy dtypes (native byte order) of the floating-point DataTypes: an array
# whose dtype is in here is what check_float accepts, read without the DataType lookup.
# bfloat16 (whose NumPy dtype needs the optional ml_dtypes) is left out: a fast path
# keyed on these sends a bfloat16 array down the checked path.
FLOAT_ARRAY_DTYPES = frozenset(np.dtype(t.value) for t in FLOATING_TYPES if t is not DataType.BFLOAT16)


def check_tensor(fn: str, arg: str, value) -> Tensor:
    """``value``, or bad_tensor's error (a TypeError and a ValueError) naming fn and arg."""
    if not isinstance(value, Tensor):
        raise bad_tensor(fn, arg, value)
    return value


def check_float(fn: str, arg: str, value, complex_ok: bool = False) -> Tensor:
    """``value``, or a TypeError naming fn and arg unless it is a floating-point Tensor
    (or a complex one, where ``complex_ok``). The error is an UnsupportedDtypeError: the
    TypeError of Paddle's static-mode dtype checks (test_activation_op's test_errors) and
    the RuntimeError its dynamic mode raises when no kernel takes the dtype."""
    check_tensor(fn, arg, value)
    if value.dtype not in FLOATING_TYPES and not (complex_ok and value.dtype.is_complex):
        kinds = "floating-point or complex" if complex_ok else "floating-point"
        raise UnsupportedDtypeError(f"{fn}: argument '{arg}' expected a {kinds} Tensor, got {value.dtype}{value.shape}")
    return value


def check_integer(fn: str, arg: str, value, what: str = "an integer Tensor") -> Tensor:
    """``value``, or a TypeError naming fn and arg unless it is a Tensor of an
    integer dtype (int8, uint8, int16, int32 or int64). ``what`` is the expected
    thing as the message says it (e.g. "an integer Tensor of class indices")."""
    check_tensor(fn, arg, value)
    if value.dtype not in INTEGER_TYPES:
        raise TypeError(f"{fn}: argument '{arg}' expected {what}, got {value.dtype}{value.shape}")
    return value


def check_positive_int(fn: str, arg: str, value, error: type = TypeError) -> int:
    """``value`` as an int, or ``error`` naming fn and arg (a bool is not an int here).
    Layers' sizes raise TypeError; functionals and layers whose Paddle
    counterparts raise ValueError for such arguments pass ``error=ValueError``."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value <= 0:
        raise error(f"{fn}: argument '{arg}' expected a positive int, got {value!r}")
    return int(value)


def check_number(fn: str, arg: str, value) -> float:
    """``value`` as a float, or an ArgumentKindError (a TypeError, and the ValueError of
    Paddle's argument parser for a str or None given for a float attribute) naming fn and
    arg (a bool is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentKindError(f"{fn}: argument '{arg}' expected a number, got {describe(value)}")
    return float(value)


def check_float_number(fn: str, arg: str, value) -> float:
    """``value`` as a float, or a TypeError naming fn and arg unless it is a float
    (Python's or NumPy's): for Paddle's arguments that refuse ints (rrelu's bounds)."""
    if not isinstance(value, (float, np.floating)):
        raise TypeError(f"{fn}: argument '{arg}' expected a float, got {describe(value)}")
    return float(value)


def check_reduction(fn: str, reduction) -> str:
    """``reduction``, or a ValueError naming fn unless it is 'mean', 'sum' or 'none'.
    The losses call it before their other checks, as Paddle's do: a bad reduction
    is the ValueError whatever else is wrong (Paddle's tests pass NumPy inputs)."""
    if not isinstance(reduction, str) or reduction not in _REDUCTIONS:
        raise ValueError(
            f"{fn}: argument 'reduction' expected one of 'mean', 'sum', 'none', got {reduction!r}")
    return reduction


def check_axis(fn: str, x: Tensor, axis) -> int:
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        if not isinstance(axis, Tensor):
            raise TypeError(f"{fn}: argument 'axis' expected an int, got {axis!r}")
        axis = to_int(axis, fn, "axis")  # as Paddle's: a one-element integer tensor, read here
    ndim = max(x.ndim, 1)
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"{fn}: argument 'axis' expected an int in [{-ndim}, {ndim}) for input of shape "
            f"{x.shape}, got {axis}")
    return int(axis) % ndim


def check_same_shape(fn: str, a_name: str, a: Tensor, b_name: str, b: Tensor, dtypes: bool = True) -> None:
    """A ValueError unless a and b share a shape, and (where ``dtypes``) a TypeError
    unless they share a dtype (callers that promote check dtypes with promote_floats)."""
    # Losses do not broadcast: [N, 1] against [N] would silently give an N x N loss.
    if a.shape != b.shape:
        raise ValueError(
            f"{fn}: argument '{b_name}' expected the shape of '{a_name}' {a.shape}, got {b.shape}")
    if dtypes and dtypes_differ(a, b):
        raise TypeError(
            f"{fn}: argument '{b_name}' expected the dtype of '{a_name}' {a.dtype}, got {b.dtype}")


def same_shape_promoted(fn: str, a_name: str, a: Tensor, b_name: str, b: Tensor) -> tuple:
    """(a, b) after check_same_shape's shape check, cast to one dtype as
    :func:`promote_floats` says."""
    check_same_shape(fn, a_name, a, b_name, b, dtypes=False)
    return promote_floats(fn, a_name, a, (b_name, b))


def promote_floats(fn: str, first_name: str, first: Tensor, *others) -> list:
    """[first, *others' tensors] (``others``: (name, tensor) pairs) cast to one
    dtype where floating dtypes differ: Paddle's losses composed of elementwise
    ops promote them (float32 with float64 gives float64); any other mix is a
    TypeError naming the argument."""
    tensors = [first] + [tensor for _, tensor in others]
    dtype = first.dtype
    for name, tensor in others:
        if dtype_mismatch(dtype, tensor.dtype):
            wider = promoted_dtype(dtype, tensor.dtype) if (
                dtype in FLOATING_TYPES and tensor.dtype in FLOATING_TYPES) else None
            if wider is None:
                raise TypeError(
                    f"{fn}: argument '{name}' expected the dtype of '{first_name}' {first.dtype}, got {tensor.dtype}")
            dtype = wider
    return [_F.cast(t, dtype) if dtype_mismatch(dtype, t.dtype) else t for t in tensors]


_AMP_MIX = frozenset({DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT32})


def dtypes_differ(a: Tensor, b: Tensor) -> bool:
    """Whether a and b differ in dtype in a way the ops cannot take: float16 or
    bfloat16 with float32 is fine inside eager.amp.auto_cast (each op casts its inputs)."""
    return dtype_mismatch(a.dtype, b.dtype)


def dtype_mismatch(a: DataType, b: DataType) -> bool:
    """dtypes_differ for two dtypes."""
    if a == b:
        return False
    return MODES.amp() is None or not (a in _AMP_MIX and b in _AMP_MIX)


def reads_values(x: Tensor) -> bool:
    """Whether a functional may read x's values to check them: always on the CPU;
    on a GPU only in anomaly mode (elsewhere the read would wait for the device),
    as the kernels' ``ctx.check_values``."""
    return not x.place.is_gpu_place() or VALUE_CHECKS.on  # host memory, pinned or not: always


def value_range(x: Tensor) -> tuple:
    """(min, max) of a non-empty integer tensor, as ints: a read of its values
    (callers ask ``reads_values`` first)."""
    return int(_F.min(x).numpy()), int(_F.max(x).numpy())


def as_int64(x: Tensor) -> Tensor:
    """An integer tensor (checked labels or indices) as int64: x itself when it is."""
    return x if x.dtype == DataType.INT64 else _F.cast(x, DataType.INT64)


def reduce_loss(fn: str, loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return _F.mean(loss)
    if reduction == "sum":
        return _F.sum(loss)
    return loss
