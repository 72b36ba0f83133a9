"""phi API functions on buffers that are not ops of ops.yaml.

- ``assign_out_(x, out)``: x's values written into out's existing buffer, as an
  inplace op needs (views of out see the change); out's version is bumped.
- ``nan_inf_count(x)``: how many NaN and Inf values x holds, as Python ints
  (anomaly mode; it waits for the device).
- ``copy_to(x, place)``: x's values in a new buffer on ``place`` (the one
  host-device transfer the API offers; ``Tensor.cuda()``/``.cpu()``/``.to()``).
"""
from __future__ import annotations

import importlib

import numpy as np

from ..backends.gpu_context import import_cupy, refuse_bfloat16
from ..common.place import convert_place
from ..common.tensor_kind import TensorKind
from ..core import KERNELS
from ..core.dense_tensor import DenseTensor
from ..core.errors import InvalidArgumentError, describe_tensor

_assign_out_kernel = KERNELS.dispatch_table("assign_out_")
_nan_inf_count_kernel = KERNELS.dispatch_table("nan_inf_count")


def assign_out_(x, out):
    """Writes x into out's buffer (same dims and dtype) and returns out."""
    if tuple(x.dims) != tuple(out.dims) or x.dtype is not out.dtype or \
            (x.place != out.place and (x.place.is_gpu_place() or out.place.is_gpu_place())):  # host: pinned or not
        raise InvalidArgumentError(
            f"assign_out_: argument 'x' must match 'out' exactly (no broadcasting or casting): "
            f"expected {describe_tensor(out)}, got {describe_tensor(x)}")
    if x.array is not out.array:
        _assign_out_kernel[type(out.array), out.array.dtype](x.array, out.array)
    out.bump_version()
    return out


def nan_inf_count(x) -> tuple:
    """(number of NaN, number of Inf) in x; (0, 0) for a dtype that cannot hold them."""
    if not (x.dtype.is_floating_point or x.dtype.is_complex) or x.numel == 0:
        return 0, 0
    if x.kind is not TensorKind.DENSE:  # rows or a sparse tensor: the values it stores
        x = x.value if x.kind is TensorKind.SELECTED_ROWS else x.values
        if x.numel == 0:
            return 0, 0
    counts = _nan_inf_count_kernel[type(x.array), x.array.dtype](x.array)
    nan, inf = (int(c) for c in counts.tolist())
    return nan, inf


def copy_to(x, place):
    """A DenseTensor with x's values on ``place`` (a Place or "cpu"/"gpu:N"/
    "gpu_pinned"), in a buffer of its own (a copy even when x is on ``place``
    already; between two GPUs, a device-to-device copy). Pinned memory comes
    from CuPy (``cupyx.empty_pinned``): without CuPy that is an ImportError
    saying how to get it.

    >>> copy_to(DenseTensor(np.ones(2)), "cpu").array
    array([1., 1.])
    """
    if not isinstance(x, DenseTensor):
        raise InvalidArgumentError(f"copy_to: argument 'x' expected a DenseTensor, got {type(x).__name__}")
    place = convert_place(place)
    array = x.array
    if place.is_cpu_place():
        return DenseTensor(np.array(array, copy=True) if type(array) is np.ndarray else array.get())
    if place.is_cuda_pinned_place():
        return DenseTensor(_pinned_copy(array))
    refuse_bfloat16(array.dtype, "copy_to")
    cupy = import_cupy()
    with cupy.cuda.Device(place.device_id):
        return DenseTensor(cupy.array(array, copy=True))


def _pinned_copy(array) -> np.ndarray:
    """A C-contiguous copy of a NumPy or CuPy array in page-locked host memory;
    from a GPU, one device-to-host copy straight into it."""
    import_cupy()  # the ImportError that says how to get CuPy, before cupyx is asked for
    if array.size == 0:
        # On an H200 (CuPy 14.2) an empty tensor copied to pinned memory came back a CPU tensor:
        # CuPy's empty_pinned of zero bytes leaves no pinned buffer at the end of the array's bases
        # for is_pinned_array to find. An empty one is a view of one pinned element instead.
        return importlib.import_module("cupyx").empty_pinned((1,), array.dtype)[:0].reshape(array.shape)
    out = importlib.import_module("cupyx").empty_pinned(array.shape, array.dtype)
    if type(array) is np.ndarray:
        np.copyto(out, array)
    else:
        array.get(out=out)
    return out


__all__ = ["assign_out_", "copy_to", "nan_inf_count"]
