"""GPUContext: kernels on an NVIDIA GPU compute with CuPy, one context per device."""
from __future__ import annotations

import importlib
import threading

from ..common.place import GPUPlace
from . import cublas
from ..core.errors import InvalidTypeError


class _ValueChecks(threading.local):
    """Per thread: whether GPU kernels check values that need a read of device
    memory (labels in range, probabilities in [0, 1]). Off by default, so no op
    waits for the device; eager's anomaly mode turns it on."""

    on = False


VALUE_CHECKS = _ValueChecks()


def refuse_bfloat16(dtype, what: str) -> None:
    """InvalidTypeError when ``dtype`` is bfloat16: CuPy has no bfloat16 dtype,
    so bfloat16 tensors live on the CPU only."""
    if getattr(dtype, "name", None) == "bfloat16":
        raise InvalidTypeError(f"{what}: bfloat16 tensors live on the CPU only (CuPy has no bfloat16 dtype); "
                               f"keep them on the CPU, or cast to float16 or float32 for the GPU")


def import_cupy():
    """CuPy, or an ImportError that says how to get it."""
    try:
        return importlib.import_module("cupy")
    except ImportError as error:
        raise ImportError(
            "GPU tensors need CuPy: install it with `pip install eager-phi[gpu]` "
            "(or a cupy-cudaXXx wheel matching your CUDA)"
        ) from error


class GPUContext:
    """The device context of GPU kernels on device ``device_id``: cupy as ``xp``.

    A kernel bound to this context runs while its device is current (the
    binding in phi/backends switches devices when a call's arrays are on
    another one), so what it allocates through ``xp`` lands there.
    """

    def __init__(self, device_id: int = 0):
        self.xp = import_cupy()
        self.device_id = device_id
        self.place = GPUPlace(device_id)

    @property
    def check_values(self) -> bool:
        """Whether a kernel should check values it can only see by synchronising
        with the device (``if ctx.check_values:``): only in anomaly mode."""
        return VALUE_CHECKS.on

    @property
    def stream(self):
        return self.xp.cuda.get_current_stream()

    def matmul(self, a, b, out=None):
        """``xp.matmul(a, b, out=out)``; a product of two matrices by one direct cuBLAS
        call where it can (cublas.py: CuPy's matmul costs the host ~10 us more)."""
        return cublas.matmul(self.xp, a, b, out)

    def column_sums(self, a, out=None):
        """``a.sum(axis=0)`` of a 2-D matrix, into ``out`` when given; a cuBLAS gemv
        where it can (cublas.py)."""
        return cublas.column_sums(self.xp, a, out)

    def to_host(self, array):
        return self.xp.asnumpy(array)

    def from_host(self, array):
        """A device copy of host ``array`` on this context's device; a bfloat16
        array is refused (:func:`refuse_bfloat16`)."""
        if array.dtype.kind == "V":
            refuse_bfloat16(array.dtype, "a copy to the GPU")
        if self.xp.cuda.runtime.getDevice() == self.device_id:
            return self.xp.asarray(array)
        with self.xp.cuda.Device(self.device_id):
            return self.xp.asarray(array)

    def __repr__(self):
        return f"GPUContext({self.place})"
