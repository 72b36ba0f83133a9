"""Checking and converting op arguments, for the generated API.

Each function names the op and the argument, and says what was expected and
what came, so bad input never reaches a kernel.
"""
from __future__ import annotations

import numbers
import weakref

import numpy as np

from phi import api as _phi_api
from phi.common import DataType, Place, convert_dtype, convert_place
from phi.common.scalar import to_int_array as _phi_to_int_array
from phi.common.scalar import to_scalar as _phi_to_scalar
from phi.common.tensor_kind import TensorKind
from phi.core.errors import ArgumentKindError, PhiError, TensorArgumentError
from phi.core.errors import describe_value as describe
from phi.infermeta.checks import check_representable

from .framework import current_place

_PLAIN_NUMBERS = (int, float, bool)

# Tensor operator name ("__add__") -> fallback(x, other) for an ``other`` that is
# not a Tensor. The generated operator functions (``add_operator``) run the op
# in one frame for two Tensors and hand anything else to this fallback, which
# eager.tensor_api registers when it installs the operators (it holds the
# scalar promotion rules, and sits above the generated code).
OPERATOR_FALLBACKS: dict = {}

# The Tensor operators (and the binary APIs add, subtract, multiply, divide) on
# sparse tensors: op name ("add", "matmul", "neg", ...) -> fn(*operands), which
# eager.sparse registers when it loads. phi's dense kernels refuse a sparse COO
# or CSR tensor (UnimplementedError); the places that catch that refusal (the
# generated ops' except paths, eager.tensor_api's operators) hand the operands
# here, so dense operands never pay for the check.
SPARSE_OPERATIONS: dict = {}
_SPARSE_KINDS = (TensorKind.SPARSE_COO, TensorKind.SPARSE_CSR)


def has_sparse(*operands) -> bool:
    """Whether any operand is a Tensor holding a sparse COO or CSR tensor."""
    return any(getattr(getattr(value, "impl", None), "kind", None) in _SPARSE_KINDS for value in operands)


def sparse_operation(op: str, error, *operands):
    """``op`` on operands of which one at least is sparse, by the function
    eager.sparse registered for it; ``error`` (what the dense path raised) is
    raised again where no operand is sparse. An op sparse tensors do not take
    is a TypeError naming it (or ``error`` itself, where there is one)."""
    if error is not None and not has_sparse(*operands):
        raise error
    function = SPARSE_OPERATIONS.get(op)
    if function is None:
        if error is not None:
            raise error
        raise TypeError(f"{op}: sparse tensors take the operators + - * / @ and unary - only (Paddle's "
                        f"paddle.sparse functions); convert with to_dense() for other operators")
    return function(*operands)


def as_called(error: Exception, target: str, op: str, renames: dict | None = None) -> Exception:
    """``error`` from ``target`` (the op that ``op`` invokes), reworded to name
    ``op``, the function the user called, and (``renames``: target's argument ->
    op's) the arguments by the names op takes; other errors come back unchanged."""
    text = str(error)
    if not text.startswith(f"{target}: "):
        return error
    text = text[len(target) + 2:]
    for old, new in (renames or {}).items():
        text = text.replace(f"'{old}'", f"'{new}'")
    return type(error)(f"{op}: " + text)


def in_called(error: Exception, op: str) -> Exception:
    """``error`` from an op that ``op`` is composed of, prefixed with ``op`` (the
    function the user called) unless it names it already."""
    text = str(error)
    if text.startswith(f"{op}: "):
        return error
    return type(error)(f"{op}: {text}")


def bad_tensor(op: str, arg: str, value) -> TensorArgumentError:
    """The error for a non-Tensor given for op's Tensor argument ``arg``: a TypeError
    and a ValueError (TensorArgumentError), as Paddle's dygraph parser raises ValueError."""
    hint = " (convert it with eager.to_tensor)" if isinstance(value, (np.ndarray, list, tuple, numbers.Number)) else ""
    return TensorArgumentError(f"{op}: argument '{arg}' expected a Tensor, got {describe(value)}{hint}")


def scalar_tensor(value, like, op: str, arg: str):
    """A Python number given for a tensor argument, as a 0-d phi tensor of ``like``'s dtype
    and place (Paddle's ``full([], value, x.dtype)`` in masked_fill and put_along_axis);
    anything else is refused."""
    if not isinstance(value, (numbers.Number, np.number)) or isinstance(value, np.ndarray):
        raise TypeError(f"{op}: argument '{arg}' expected a Tensor or a number, got {describe(value)}")
    value = to_scalar(value.item() if isinstance(value, np.number) else value, op, arg)
    try:
        check_representable(arg, value, like.dtype)
    except PhiError as error:
        raise type(error)(f"{op}: {error}") from None
    return _phi_api.full((), value, like.dtype, like.place)


def check_tensor_list(op: str, arg: str, value, tensor_type) -> list:
    """``value`` as a list, or a TensorArgumentError (both TypeError and ValueError, as
    Paddle's stack raises ValueError and concat TypeError) unless it is a list or tuple
    of Tensors."""
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, tensor_type) for v in value):
        raise TensorArgumentError(f"{op}: argument '{arg}' expected a list of Tensors, got {describe(value)}")
    return list(value)


# Integer attributes reach kernels as C int64s; a Python int outside that range
# would fail deep inside NumPy.
_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1


def _out_of_range(op: str, arg: str, value) -> ValueError:
    return ValueError(f"{op}: argument '{arg}' expected an int in [{_INT64_MIN}, {_INT64_MAX}], got {value}")


def to_scalar(value, op: str, arg: str):
    if type(value) in _PLAIN_NUMBERS:
        if type(value) is int and value.bit_length() > 1023:  # beyond any float, let alone int64
            raise ValueError(f"{op}: argument '{arg}' expected a number a float64 can hold, got an "
                             f"integer of {value.bit_length()} bits")
        return value
    return _phi_to_scalar(value, op, arg)


def to_scalar_or_str(value, op: str, arg: str):
    """A Scalar that may also be a word (a Scalar argument whose YAML default is a
    string, as norm's ``p = "fro"``); which words are valid is the InferMeta's call."""
    if isinstance(value, str):
        return value
    return to_scalar(value, op, arg)


def to_int_array(value, op: str, arg: str) -> tuple:
    if type(value) is tuple and all(type(v) is int and _INT64_MIN <= v <= _INT64_MAX for v in value):
        return value
    values = _phi_to_int_array(value, op, arg)
    for v in values:
        if not _INT64_MIN <= v <= _INT64_MAX:
            raise _out_of_range(op, arg, v)
    return values


def to_int_array_none_as_empty(value, op: str, arg: str) -> tuple:
    """An IntArray whose None means the empty list (Paddle's ``axis=None``: every axis)."""
    return () if value is None else to_int_array(value, op, arg)


def to_int_or_int_array(value, op: str, arg: str):
    """An int (or a 0-d integer tensor) as an int, a list, tuple or 1-D integer tensor
    as a tuple of ints: for an argument whose meaning differs between the two, such
    as tensor_split's num_or_indices (n pieces, or cut at these indices)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return to_int(value, op, arg)
    if getattr(value, "ndim", None) == 0 and getattr(value, "shape", None) is not None:
        return to_int_array(value, op, arg)[0]  # a 0-d integer tensor is a number
    return to_int_array(value, op, arg)


def to_int(value, op: str, arg: str) -> int:
    """An int argument: a Python or NumPy int, or (as Paddle's int attributes take) an
    integer tensor holding one element, read here."""
    if type(value) is int and _INT64_MIN <= value <= _INT64_MAX:
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if not _INT64_MIN <= int(value) <= _INT64_MAX:
            raise _out_of_range(op, arg, value)
        return int(value)
    if callable(getattr(value, "numpy", None)) and not isinstance(value, np.ndarray):
        array = np.asarray(value.numpy())
        if array.size == 1 and array.dtype.kind in "iu":
            return to_int(array.reshape(()).item(), op, arg)
    raise ArgumentKindError(f"{op}: argument '{arg}' expected an int, got {describe(value)}")


def to_float(value, op: str, arg: str) -> float:
    if type(value) is float:
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    raise TypeError(f"{op}: argument '{arg}' expected a float, got {describe(value)}")


def to_float_list(value, op: str, arg: str) -> tuple:
    if isinstance(value, (list, tuple)) and all(isinstance(v, numbers.Real) for v in value):
        return tuple(float(v) for v in value)
    raise TypeError(f"{op}: argument '{arg}' expected a list of floats, got {describe(value)}")


def to_bool(value, op: str, arg: str) -> bool:
    if type(value) is bool:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    raise ArgumentKindError(f"{op}: argument '{arg}' expected a bool, got {describe(value)}")


def to_str(value, op: str, arg: str) -> str:
    if isinstance(value, str):
        return value
    raise TypeError(f"{op}: argument '{arg}' expected a str, got {describe(value)}")


def to_dtype(value, op: str, arg: str, default=None):
    if value is None:
        return None if default is None else convert_dtype(default)
    if type(value) is DataType:
        return value
    try:
        return convert_dtype(value)
    except TypeError as error:  # also a ValueError, as Paddle's "Not supported numpy dtype uint4"
        raise ArgumentKindError(f"{op}: argument '{arg}': {error}") from None


def to_required_dtype(value, op: str, arg: str) -> DataType:
    """A DataType argument without a default: None is not a dtype here."""
    if value is None:
        raise TypeError(f"{op}: argument '{arg}' expected a dtype (a DataType or a name such as "
                        f"'float32'), got None")
    return to_dtype(value, op, arg)


def to_place(value, op: str, arg: str) -> Place:
    if value is None:  # the device set by eager.set_device (the CPU unless changed)
        return current_place()
    try:
        place = convert_place(value)
    except ValueError as error:
        raise ValueError(f"{op}: argument '{arg}': {error}") from None
    if place.is_cuda_pinned_place():  # ops make tensors on the CPU or a GPU; pinned memory holds copies
        raise ValueError(f"{op}: argument '{arg}' cannot be CUDAPinnedPlace(): ops make tensors on 'cpu' "
                         f"or 'gpu:N'; copy one into pinned memory with .pin_memory()")
    return place


# The index arrays to_index made from Python lists and tuples, by id: fresh and
# read-only, their values are the code's, so a to_static trace keeps one as a
# constant (an index array of another origin may hold data; see eager/jit/recorder.py).
_LIST_INDEX_ARRAYS = weakref.WeakValueDictionary()


def is_list_index(array) -> bool:
    """Whether ``array`` is an index array to_index made from a Python list or tuple."""
    return _LIST_INDEX_ARRAYS.get(id(array)) is array


def to_index(value, op: str, arg: str) -> tuple:
    """A NumPy index as a tuple: ints, slices, None, Ellipsis, and bool or integer arrays
    (tensors and lists become arrays, so the kernel sees plain NumPy indices; a 0-d
    integer one becomes an int)."""
    items = value if isinstance(value, tuple) else (value,)
    out = []
    for item in items:
        if item is None or item is Ellipsis or isinstance(item, slice):
            out.append(item)
        elif isinstance(item, (bool, np.bool_)):
            out.append(bool(item))
        elif isinstance(item, (int, np.integer)):
            out.append(int(item))
        else:
            array = item.numpy() if hasattr(item, "numpy") and hasattr(item, "impl") else item
            try:
                array = np.asarray(array)
            except Exception:
                array = None
            if array is not None and array.size == 0 and isinstance(item, (list, tuple)):
                array = array.astype(np.int64)  # [] selects nothing (Paddle, PyTorch); NumPy reads it as float
            if array is None or array.dtype.kind not in "biu":  # a TypeError, and Paddle's ValueError
                raise ArgumentKindError(
                    f"{op}: argument '{arg}' expected ints, slices, None, Ellipsis, or bool / integer "
                    f"arrays or tensors as indices, got {describe(item)}"
                )
            # A 0-d integer array or tensor is an int, as Paddle and PyTorch read it: a
            # basic index that removes its axis, applied before any index array beside it.
            if array.ndim == 0 and array.dtype.kind in "iu":
                out.append(int(array))
                continue
            if isinstance(item, (list, tuple)):
                array.flags.writeable = False
                _LIST_INDEX_ARRAYS[id(array)] = array
            out.append(array)
    return tuple(out)
