"""Device contexts, and binding a selected kernel to the context of its backend.

Several GPUs: each device has its GPUContext. With one visible GPU a GPU
kernel is bound to device 0's context once (a ``functools.partial``, as on the
CPU): nothing is looked up per call. With more than one, the bound kernel
follows its arrays: it finds the device of its first array argument, checks
that every other array argument is on that device (a
:class:`PlaceMismatchError` otherwise), and runs with that device's context,
entering ``cupy.cuda.Device(id)`` only when another device is current. A
kernel without array arguments (a creation op) runs on the current device;
:func:`on_device` makes a place's device current around such a call. The CPU
path never changes.
"""
from __future__ import annotations

import functools
import threading
import warnings

import numpy as np

from ..common.backend import Backend
from ..common.data_type import DataType
from ..common.tensor_kind import TensorKind
from ..core.errors import InvalidArgumentError, NoDataError
from .cpu_context import CPU_CONTEXT, CPUContext
from .gpu_context import GPUContext, import_cupy, refuse_bfloat16

_gpu_context = None  # device 0's GPUContext (the one a single-GPU process uses)
_gpu_contexts: dict = {}  # device id -> GPUContext, for devices other than 0
_device_count: list = [None]
_LOCK = threading.Lock()


def gpu_device_count() -> int:
    """How many GPUs CuPy sees, read once (the first GPU kernel binding asks)."""
    if _device_count[0] is None:
        _device_count[0] = int(import_cupy().cuda.runtime.getDeviceCount())
    return _device_count[0]


def get_gpu_context(device_id: int = 0):
    """The GPUContext of GPU ``device_id``, made on first use (CuPy is imported then).

    Not named ``gpu_context``: that is the submodule gpu_context.py, and a
    package attribute of the same name is shadowed by it, or shadows it
    (``import phi.backends.gpu_context as m`` would give the function).
    """
    global _gpu_context
    if device_id == 0:
        if _gpu_context is None:
            _gpu_context = GPUContext(0)
        return _gpu_context
    context = _gpu_contexts.get(device_id)
    if context is None:
        with _LOCK:
            context = _gpu_contexts.get(device_id)
            if context is None:
                context = _gpu_contexts[device_id] = GPUContext(device_id)
    return context


class PlaceMismatchError(InvalidArgumentError):
    """A kernel's array arguments are on two GPUs. Raised by the bound kernel,
    which knows device ids only; :meth:`in_op` (the generated phi API calls it
    with the op's tensor inputs by name) names the two arguments and places."""

    def __init__(self, message: str = "", places: tuple = ()):
        super().__init__(message)
        self.places = places

    def in_op(self, op: str, **inputs) -> InvalidArgumentError:
        first = mismatch = None
        for name, value in inputs.items():
            for index, tensor in enumerate(value if isinstance(value, (list, tuple)) else (value,)):
                place = getattr(tensor, "place", None)
                if place is None:
                    continue
                label = f"{name}[{index}]" if isinstance(value, (list, tuple)) else name
                if first is None:
                    first = (label, place)
                elif mismatch is None and place != first[1]:
                    mismatch = (label, place)
        if first is None or mismatch is None:
            return InvalidArgumentError(f"{op}: {self.args[0] if self.args else ''}")
        return InvalidArgumentError(
            f"{op}: argument '{mismatch[0]}' is on {mismatch[1]} but argument '{first[0]}' is on {first[1]}; "
            f"an op's tensor inputs must share a place (move one with .cuda(), .cpu() or .to())")


def backend_of_array_type(array_type) -> Backend:
    if array_type is np.ndarray:
        return Backend.CPU
    if array_type.__module__.startswith("cupy"):
        return Backend.GPU
    if array_type.__name__ == "ArraySpec":  # phi.core's shape-only stand-in (it imports this module)
        raise NoDataError("phi cannot compute on a tensor that holds no data (shape and dtype only: not "
                          "initialized; a parameter made under LazyGuard gets its values from initialize())")
    raise TypeError(f"phi cannot compute on arrays of type {array_type.__module__}.{array_type.__name__}")


def context_for(backend: Backend, device_id: int = 0):
    return CPU_CONTEXT if backend is Backend.CPU else get_gpu_context(device_id)


def bind_kernel(factory, name: str, array_type, np_dtype, kind: TensorKind = TensorKind.DENSE):
    """Selects the kernel for arrays of this type and dtype and binds its context.

    A GPU call served by a CPU kernel moves array arguments to the host and the
    results back, so the generated code never sees the difference. Arrays inside
    list or tuple arguments (``Tensor[]`` inputs) and results move too; None
    results (outputs left out by ``out_mask``) stay None. Only dense kernels fall
    back (see KernelFactory.select): a kernel of another kind takes tensors, whose
    arrays this does not move. A fallback warns once per op and dtype (the
    binding is cached), naming the op: each call pays two transfers.

    On a machine with several GPUs a GPU kernel is bound to follow its
    arguments' device (see the module docstring).
    """
    try:
        backend = backend_of_array_type(array_type)
    except TypeError as error:
        raise type(error)(f"{name}: {error}") from None
    if backend is not Backend.CPU:
        refuse_bfloat16(np_dtype, name)
    kernel, needs_transfer = factory.select(name, backend, DataType.from_numpy(np_dtype), kind=kind)
    if backend is Backend.CPU:
        return functools.partial(kernel.fn, CPU_CONTEXT)
    fn = kernel.fn
    if needs_transfer:
        warnings.warn(f"{name}: no GPU kernel for {np.dtype(np_dtype)}; it runs on the CPU, with a copy of its "
                      f"inputs to the host and of its results back to the GPU on every call (FallBackToCpu)",
                      RuntimeWarning, stacklevel=3)
        fn = _on_the_cpu(kernel.fn, array_type)
    if gpu_device_count() <= 1:
        return functools.partial(fn, get_gpu_context())
    return _following_the_arguments(fn, name, array_type, kind)


def _on_the_cpu(cpu_fn, array_type):
    """``cpu_fn`` as a GPU kernel: array arguments to the host, results back to
    the device of the context it is called with (into ``into``, a device array,
    when an inplace op passes one: KernelFactory.writes_into)."""

    def run_on_cpu(device, *args, into=None, **kwargs):
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

        result = from_host(cpu_fn(CPU_CONTEXT, *[to_host(a) for a in args], **kwargs))
        if into is None:
            return result
        into[...] = result
        return into

    return run_on_cpu


def _mismatch(name: str, first: int, other: int) -> PlaceMismatchError:
    return PlaceMismatchError(f"{name}: arguments on GPU {first} and GPU {other}; an op's tensor inputs must "
                              f"share a place", (first, other))


def _device_of_others(name: str, args, array_type, kind: TensorKind, device):
    """The device of ``args``' arrays inside lists and tuples (Tensor[] inputs) and,
    for kernels of other tensor kinds, of tensors with a GPU place; ``device``
    when there are none. PlaceMismatchError when they are on two devices."""
    for arg in args:
        if type(arg) is list or type(arg) is tuple:
            found = [v.device.id for v in arg if type(v) is array_type]
        elif kind is not TensorKind.DENSE and getattr(getattr(arg, "place", None), "device_id", None) is not None:
            found = [arg.place.device_id]
        else:
            continue
        for d in found:
            if device is None:
                device = d
            elif d != device:
                raise _mismatch(name, device, d)
    return device


def _following_the_arguments(fn, name: str, array_type, kind: TensorKind):
    """``fn(ctx, ...)`` run with the context of its arguments' device (several GPUs).

    The arrays among the arguments are compared inline (the usual kernel takes
    one to three); list arguments and other tensor kinds go through a helper.
    """
    cuda = import_cupy().cuda
    current_device = cuda.runtime.getDevice
    contexts = [get_gpu_context(i) for i in range(gpu_device_count())]

    def run(*args, **kwargs):
        device = None
        nested = False
        for arg in args:
            if type(arg) is array_type:
                d = arg.device.id
                if device is None:
                    device = d
                elif d != device:
                    raise _mismatch(name, device, d)
            elif type(arg) is list or type(arg) is tuple or kind is not TensorKind.DENSE:
                nested = True
        if nested:
            device = _device_of_others(name, args, array_type, kind, device)
        current = current_device()
        if device is None or device == current:
            return fn(contexts[current], *args, **kwargs)
        with cuda.Device(device):
            return fn(contexts[device], *args, **kwargs)

    run.__name__ = run.__qualname__ = name
    return run


def on_device(kernel, place):
    """``kernel`` (bound, for a kernel without array arguments: a creation op
    with a ``place``) run with ``place``'s device current; ``kernel`` itself
    when only one GPU exists."""
    if gpu_device_count() <= 1:
        return kernel
    return functools.partial(_run_on, import_cupy().cuda.Device, place.device_id, kernel)


def _run_on(device_type, device_id, kernel, *args, **kwargs):
    with device_type(device_id):
        return kernel(*args, **kwargs)


__all__ = ["CPUContext", "CPU_CONTEXT", "GPUContext", "PlaceMismatchError", "get_gpu_context", "gpu_device_count",
           "backend_of_array_type", "context_for", "bind_kernel", "on_device"]
