"""Runtime support for the generated phi API."""
from __future__ import annotations

import numpy as np

from ..backends.gpu_context import import_cupy
from ..common.data_type import DataType
from ..core.errors import PreconditionNotMetError


class Flags:
    """Debug switches. ``check_infer_meta`` compares every kernel result with what
    InferMeta predicted (the test suite turns it on)."""

    __slots__ = ("check_infer_meta",)

    def __init__(self):
        self.check_infer_meta = False


FLAGS = Flags()


def array_type_of(place):
    """The array type a place computes with: numpy.ndarray or cupy.ndarray."""
    if place.is_cpu_place():
        return np.ndarray
    return import_cupy().ndarray


def as_array(value, array_type):
    """NumPy ufuncs return scalars for 0-d inputs; phi keeps 0-d arrays."""
    if array_type is np.ndarray:
        return np.asarray(value)
    return import_cupy().asarray(value)


def verify_infer_meta(op: str, metas, arrays) -> None:
    """Raises if a kernel's result disagrees with its InferMeta (a bug in one of them)."""
    for index, (meta, array) in enumerate(zip(metas, arrays)):
        if array is None:
            continue
        if isinstance(array, list):  # a Tensor[] output: one MetaTensor per element
            if len(meta) != len(array):
                raise PreconditionNotMetError(
                    f"{op}: output {index} has {len(array)} tensors but InferMeta said {len(meta)}")
            verify_infer_meta(op, meta, array)
            continue
        if (meta.dims is not None and tuple(meta.dims) != tuple(array.shape)) or \
                (meta.dtype is not None and DataType.from_numpy(array.dtype) is not meta.dtype):
            raise PreconditionNotMetError(
                f"{op}: output {index} is {DataType.from_numpy(array.dtype)}{list(array.shape)} but "
                f"InferMeta said {meta.dtype}{list(meta.dims)}"
            )
