"""Device contexts, and binding a selected kernel to the context of its backend."""
from __future__ import annotations

import functools

import numpy as np

from ..common.backend import Backend
from ..common.data_type import DataType
from .cpu_context import CPU_CONTEXT, CPUContext

_gpu_context = None


def gpu_context():
    global _gpu_context
    if _gpu_context is None:
        from .gpu_context import GPUContext

        _gpu_context = GPUContext()
    return _gpu_context


def backend_of_array_type(array_type) -> Backend:
    if array_type is np.ndarray:
        return Backend.CPU
    if array_type.__module__.startswith("cupy"):
        return Backend.GPU
    raise TypeError(f"phi cannot compute on arrays of type {array_type.__module__}.{array_type.__name__}")


def context_for(backend: Backend):
    return CPU_CONTEXT if backend is Backend.CPU else gpu_context()


def bind_kernel(factory, name: str, array_type, np_dtype):
    """Selects the kernel for arrays of this type and dtype and binds its context.

    A GPU call served by a CPU kernel moves array arguments to the host and the
    results back, so the generated code never sees the difference.
    """
    backend = backend_of_array_type(array_type)
    kernel, needs_transfer = factory.select(name, backend, DataType.from_numpy(np_dtype))
    if not needs_transfer:
        return functools.partial(kernel.fn, context_for(backend))
    device = gpu_context()
    cpu_fn = kernel.fn

    def run_on_cpu(*args, **kwargs):
        host_args = [device.to_host(a) if type(a) is array_type else a for a in args]
        result = cpu_fn(CPU_CONTEXT, *host_args, **kwargs)
        if isinstance(result, tuple):
            return tuple(None if r is None else device.from_host(r) for r in result)
        if isinstance(result, list):
            return [device.from_host(r) for r in result]
        return device.from_host(result)

    return run_on_cpu


__all__ = ["CPUContext", "CPU_CONTEXT", "gpu_context", "backend_of_array_type", "context_for",
           "bind_kernel"]
