"""Making tensors from Python and NumPy data."""
from __future__ import annotations

import numbers

import numpy as np

from phi import api as phi_api
from phi.backends.gpu_context import import_cupy, refuse_bfloat16
from phi.common import DataType, convert_dtype, convert_place
from phi.core import DenseTensor
from phi.core.errors import ArgumentKindError

from .framework import current_place, default_dtype, parse_device, require_pinned_memory
from .tensor import Tensor

# The complex dtype that Python complex data gets, by the default (float) dtype.
_COMPLEX_OF_DEFAULT = {DataType.FLOAT16: np.dtype("complex64"), DataType.BFLOAT16: np.dtype("complex64"),
                       DataType.FLOAT32: np.dtype("complex64"), DataType.FLOAT64: np.dtype("complex128")}


def to_tensor(data, dtype=None, place=None, stop_gradient: bool = True) -> Tensor:
    """A new Tensor holding a copy of ``data``.

    ``data`` is a Python number, a (nested) list or tuple, a NumPy array or a
    Tensor. Python floats get the default dtype (float32 unless
    :func:`eager.set_default_dtype` changed it; Python complex numbers the
    matching complex dtype) and Python ints int64 (Paddle's defaults; a list
    of NumPy int32 scalars too); NumPy arrays and scalars keep their dtype
    unless ``dtype`` is given. ``place`` defaults to the
    device set by :func:`eager.set_device` (the CPU unless changed); it may be a
    Place or 'cpu', 'gpu', 'gpu:N', and ``CUDAPinnedPlace()`` or 'gpu_pinned'
    puts the values in page-locked host memory (which needs CuPy and a GPU).

    >>> eager.to_tensor([[1, 2], [3, 4]], dtype="float32", stop_gradient=False)
    """
    if not isinstance(stop_gradient, bool):
        raise TypeError(f"to_tensor: argument 'stop_gradient' expected a bool, got {stop_gradient!r}")
    try:
        target = None if dtype is None else convert_dtype(dtype).numpy_dtype
    except TypeError as error:
        raise TypeError(f"to_tensor: argument 'dtype': {error}") from None
    place = current_place() if place is None else convert_place(place)
    if isinstance(data, Tensor) and type(data.impl) is DenseTensor and data.impl.place == place:
        # A copy by phi kernels on the tensor's own device: a GPU tensor does not go
        # through the host, and a to_static trace records the copy (a host read would
        # make the call run eagerly for good).
        impl = phi_api.assign(data.impl)
        if target is not None and target != impl.array.dtype:
            impl = phi_api.cast(impl, convert_dtype(dtype))
        tensor = Tensor(impl)
        if not stop_gradient:
            tensor.stop_gradient = False
        return tensor
    array = _to_host_array(data, target)
    if place.is_gpu_place():
        refuse_bfloat16(array.dtype, "to_tensor")
        try:
            cupy = import_cupy()
        except ImportError:
            # Without CuPy a GPU place is a wrong value, as set_device('gpu') and Paddle's
            # CPU build (ValueError) say: parse_device raises that error.
            parse_device("to_tensor", place)
            raise
        with cupy.cuda.Device(place.device_id):
            array = cupy.array(array)
    elif place.is_cuda_pinned_place():
        require_pinned_memory("to_tensor")
        array = phi_api.copy_to(DenseTensor(array), place).array
    tensor = Tensor(DenseTensor(array))
    if not stop_gradient:
        tensor.stop_gradient = False
    return tensor


_INT64_RANGE = (-2**63, 2**63 - 1)


def _python_ints(data):
    if isinstance(data, (list, tuple)):
        for item in data:
            yield from _python_ints(item)
    elif isinstance(data, int) and not isinstance(data, bool):
        yield data


def _check_int64_range(data) -> None:
    """A Python int beyond int64 (Paddle's dtype for Python ints; NumPy makes uint64 or
    object of it) is a ValueError, as Paddle's, naming the value."""
    for value in _python_ints(data):
        if not _INT64_RANGE[0] <= value <= _INT64_RANGE[1]:
            raise ValueError(f"to_tensor: the integer {value} is outside int64's range [-2**63, 2**63 - 1] "
                             f"(Python integers become int64); pass it as a float to keep its magnitude")


def _to_host_array(data, target):
    if isinstance(data, Tensor):
        array = np.array(data.numpy(), copy=True)
    elif isinstance(data, np.ndarray):
        array = np.array(data, copy=True)
    elif isinstance(data, (numbers.Number, list, tuple, np.generic)):
        try:
            array = np.array(data)
        except ValueError as error:
            raise ValueError(
                f"to_tensor: data must be rectangular (all rows of one length): {error}"
            ) from None
        if array.dtype == object or array.dtype == np.uint64:  # the failure path only
            _check_int64_range(data)
            if array.dtype == object:  # a TypeError, and the ValueError Paddle raises
                raise ArgumentKindError(
                    f"to_tensor: data must hold numbers only, got {type(data).__name__} {data!r:.80}"
                )
        if target is None and not isinstance(data, np.generic):
            if array.dtype.kind == "f":
                array = array.astype(default_dtype().numpy_dtype)
            elif array.dtype.kind == "c":
                array = array.astype(_COMPLEX_OF_DEFAULT[default_dtype()])
            elif array.dtype == np.int32:
                # Lists of NumPy int32 scalars (or Windows' int32 default) become
                # int64, as Paddle unifies Python integer data to int64.
                array = array.astype(np.int64)
    elif type(data).__module__.startswith("cupy"):
        array = data.get()
    elif isinstance(getattr(data, "_tensor", None), Tensor):  # get_tensor()'s handle, base.Tensor()
        array = np.array(data._tensor.numpy(), copy=True)
    else:
        raise ArgumentKindError(
            f"to_tensor: data expected a number, list, tuple, numpy array or Tensor, got "
            f"{type(data).__name__}"
        )
    try:
        DataType.from_numpy(array.dtype)
    except TypeError:
        hint = ("; Paddle stores bfloat16 as uint16 bits: pass array.view(ml_dtypes.bfloat16) for those"
                if array.dtype == np.uint16 else "")
        raise ArgumentKindError(f"to_tensor: unsupported dtype {array.dtype} of data{hint}") from None
    if target is not None and array.dtype != target:
        array = array.astype(target)
    return array
