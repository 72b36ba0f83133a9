"""Device contexts, and binding a selected kernel to the context of its backend."""
from __future__ import annotations

import functools
import warnings

import numpy as np

from ..common.backend import Backend
from ..common.data_type import DataType
from ..common.tensor_kind import TensorKind
from .cpu_context import CPU_CONTEXT, CPUContext
from .gpu_context import GPUContext

_gpu_context = None


def get_gpu_context():
    """The GPUContext of this process, made on first use (CuPy is imported then).

    Not named ``gpu_context``: that is the submodule gpu_context.py, and a
    package attribute of the same name is shadowed by it, or shadows it
    (``import phi.backends.gpu_context as m`` would give the function).
    """
    global _gpu_context
    if _gpu_context is None:
        _gpu_context = GPUContext()
    return _gpu_context


def backend_of_array_type(array_type) -> Backend:
    if array_type is np.ndarray:
        return Backend.CPU
    if array_type.__module__.startswith("cupy"):
        return Backend.GPU
    raise TypeError(f"phi cannot compute on arrays of type {array_type.__module__}.{array_type.__name__}")


def context_for(backend: Backend):
    return CPU_CONTEXT if backend is Backend.CPU else get_gpu_context()


def bind_kernel(factory, name: str, array_type, np_dtype, kind: TensorKind = TensorKind.DENSE):
    """Selects the kernel for arrays of this type and dtype and binds its context.

    A GPU call served by a CPU kernel moves array arguments to the host and the
    results back, so the generated code never sees the difference. Arrays inside
    list or tuple arguments (``Tensor[]`` inputs) and results move too; None
    results (outputs left out by ``out_mask``) stay None. Only dense kernels fall
    back (see KernelFactory.select): a kernel of another kind takes tensors, whose
    arrays this does not move. A fallback warns once per op and dtype (the
    binding is cached), naming the op: each call pays two transfers.
    """
    backend = backend_of_array_type(array_type)
    kernel, needs_transfer = factory.select(name, backend, DataType.from_numpy(np_dtype), kind=kind)
    if not needs_transfer:
        return functools.partial(kernel.fn, context_for(backend))
    device = get_gpu_context()
    cpu_fn = kernel.fn
    warnings.warn(f"{name}: no GPU kernel for {np.dtype(np_dtype)}; it runs on the CPU, with a copy of its "
                  f"inputs to the host and of its results back to the GPU on every call (FallBackToCpu)",
                  RuntimeWarning, stacklevel=3)

    def to_host(value):
        if type(value) is array_type:
            return device.to_host(value)
        if isinstance(value, (list, tuple)) and any(type(v) is array_type for v in value):
            return type(value)(to_host(v) for v in value)
        return value

    def from_host(value):
        if value is None:
            return None
        if isinstance(value, (list, tuple)):
            return type(value)(from_host(v) for v in value)
        return device.from_host(value)

    def run_on_cpu(*args, **kwargs):
        return from_host(cpu_fn(CPU_CONTEXT, *[to_host(a) for a in args], **kwargs))

    return run_on_cpu


__all__ = ["CPUContext", "CPU_CONTEXT", "get_gpu_context", "backend_of_array_type", "context_for",
           "bind_kernel"]
