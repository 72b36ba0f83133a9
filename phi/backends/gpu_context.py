"""GPUContext: kernels on an NVIDIA GPU compute with CuPy on the current device and stream."""
from __future__ import annotations

import importlib

from ..common.place import GPUPlace


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
    """The device context of GPU kernels: cupy as ``xp`` on the current device and stream."""

    def __init__(self):
        self.xp = import_cupy()

    @property
    def place(self):
        return GPUPlace(self.xp.cuda.runtime.getDevice())

    @property
    def stream(self):
        return self.xp.cuda.get_current_stream()

    def to_host(self, array):
        return self.xp.asnumpy(array)

    def from_host(self, array):
        return self.xp.asarray(array)

    def __repr__(self):
        return f"GPUContext({self.place})"
