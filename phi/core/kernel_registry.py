"""Kernel registration and selection: name -> KernelKey(backend, layout, dtype, kind) -> Kernel.

This is the seeds' KernelFactory with PD_REGISTER_KERNEL collapsed into one
decorator that names the kernel, its backends and all its dtypes at once:

    @register_kernel("relu", backends=ALL, dtypes=FLOATS)
    def relu(ctx, x):
        return ctx.xp.maximum(x, 0)

The key's ``kind`` is the TensorKind of the input that selects the kernel:
a dense kernel takes arrays; a kernel registered with
``kind=TensorKind.SELECTED_ROWS`` under the same name takes that input as the
SelectedRows itself (rows, value, height), so one name serves both. The
generated phi API indexes the dense table inline (one type check on the
selecting tensor) and sends a tensor of another kind to
``phi.api.support.call_kernel_of_kind``, which indexes that kind's table with
the tensor's ``dispatch_key``; a second kind plugs in as a TensorBase subclass
with its ``kind``, ``dispatch_key`` and kernels registered under that kind.

A kernel is ``fn(ctx, *inputs, *attributes)`` in the order of the YAML
``args``; each Kernel keeps those argument names so the code generator can
check the YAML against it.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable

from ..backends import bind_kernel
from ..common.backend import Backend, DataLayout
from ..common.data_type import DataType, convert_dtype
from ..common.tensor_kind import TensorKind
from .errors import NotFoundError


@dataclass(frozen=True)
class KernelKey:
    backend: Backend
    layout: DataLayout
    dtype: DataType
    kind: TensorKind = TensorKind.DENSE

    def __str__(self) -> str:
        return f"({self.backend}, {self.layout}, {self.dtype}, {self.kind})"


@dataclass(frozen=True)
class Kernel:
    """A registered kernel function and the names of its arguments (ctx excluded)."""

    name: str
    key: KernelKey
    fn: Callable
    arg_names: tuple = field(default=())
    keyword_only: tuple = field(default=())


class KernelFactory:
    """All registered kernels, and a dispatch table per op for the generated code."""

    def __init__(self):
        self._kernels: dict[str, dict[KernelKey, Kernel]] = {}
        self._tables: dict[str, "DispatchTable"] = {}

    # -- registration -------------------------------------------------------
    def register(self, name: str, fn: Callable, backends, dtypes,
                 layout: DataLayout = DataLayout.ALL_LAYOUT,
                 kind: TensorKind = TensorKind.DENSE) -> None:
        """Registers ``fn`` as kernel ``name`` for every backend x dtype given, for
        inputs of tensor ``kind``.

        ``fn`` must take ``ctx`` first (TypeError otherwise). Registering a key
        that already has a kernel is a ValueError, and then nothing of this
        call is registered. Dispatch tables of ``name`` forget what they cached.
        """
        params = list(inspect.signature(fn).parameters.values())
        if not params or params[0].name != "ctx":
            raise TypeError(f"kernel {name!r}: the first parameter must be 'ctx', got {fn}")
        arg_names = tuple(p.name for p in params[1:] if p.kind is p.POSITIONAL_OR_KEYWORD)
        keyword_only = tuple(p.name for p in params[1:] if p.kind is p.KEYWORD_ONLY)
        table = self._kernels.get(name, {})
        keys = [KernelKey(backend, layout, convert_dtype(dtype), kind)
                for backend in backends for dtype in dtypes]
        # Check every key before adding any, so a failed call registers nothing.
        for i, key in enumerate(keys):
            if key in table or key in keys[:i]:
                raise ValueError(f"kernel {name!r} registered twice for {key}")
        self._kernels[name] = table
        for key in keys:
            table[key] = Kernel(name, key, fn, arg_names, keyword_only)
        # The generated code holds this op's DispatchTables from import time on:
        # empty them in place, so the next call selects again and sees the new kernel.
        for (table_name, _), cached in self._tables.items():
            if table_name == name:
                cached.clear()

    # -- queries --------------------------------------------------------------
    def has(self, name: str) -> bool:
        return name in self._kernels

    def names(self) -> list[str]:
        return sorted(self._kernels)

    def kernels(self, name: str) -> dict[KernelKey, Kernel]:
        if name not in self._kernels:
            raise NotFoundError(f"no kernel named {name!r} is registered")
        return dict(self._kernels[name])

    def select(self, name: str, backend: Backend, dtype: DataType,
               layout: DataLayout = DataLayout.ALL_LAYOUT,
               kind: TensorKind = TensorKind.DENSE) -> tuple[Kernel, bool]:
        """The kernel for a key, and whether it is a CPU fallback for a GPU call.

        Lookup order: the exact backend, then ALL_BACKEND, then (for GPU only)
        the CPU kernel with a data transfer, as the seeds' FallBackToCpu does.
        Only dense kernels fall back: the transfer moves arrays, and a kernel of
        another kind takes tensors (register those for ALL_BACKEND, on ctx.xp).
        """
        table = self._kernels.get(name)
        if table is None:
            raise NotFoundError(f"{name}: no kernel named {name!r} is registered")
        dtype = convert_dtype(dtype)  # "float32" or np.float32 find the same kernel
        for candidate in (backend, Backend.ALL_BACKEND):
            for lay in (layout, DataLayout.ALL_LAYOUT):
                kernel = table.get(KernelKey(candidate, lay, dtype, kind))
                if kernel is not None:
                    return kernel, False
        if backend is Backend.GPU and kind is TensorKind.DENSE:
            kernel = table.get(KernelKey(Backend.CPU, DataLayout.ALL_LAYOUT, dtype, kind))
            if kernel is not None:
                return kernel, True
        registered = ", ".join(sorted(str(k) for k in table)) or "none"
        # Most misses are a dtype the op does not take: say which it does first.
        reachable = {backend, Backend.ALL_BACKEND} | ({Backend.CPU} if backend is Backend.GPU else set())
        takes = {k.dtype for k in table if k.kind is kind and k.backend in reachable}
        takes_text = ", ".join(str(t) for t in DataType if t in takes)
        summary = f" ({name} takes {takes_text} tensors, got {dtype})" if takes and dtype not in takes else ""
        raise NotFoundError(
            f"{name}: no kernel for key {KernelKey(backend, layout, dtype, kind)}{summary}; "
            f"registered keys: {registered}"
        )

    def dispatch_table(self, name: str, kind: TensorKind = TensorKind.DENSE) -> "DispatchTable":
        """The per-op cache of kernels for inputs of ``kind``, indexed with
        ``[array_type, numpy_dtype]`` (of the value array, for SelectedRows)."""
        table = self._tables.get((name, kind))
        if table is None:
            table = self._tables[(name, kind)] = DispatchTable(self, name, kind)
        return table


class DispatchTable(dict):
    """(array type, NumPy dtype) -> kernel callable with its context bound, for
    one op and one tensor kind.

    The array type stands for the backend (numpy.ndarray is the CPU, cupy.ndarray
    the GPU), so a hit costs one dict lookup; a miss selects through the factory
    once and caches the result.
    """

    def __init__(self, factory: KernelFactory, name: str, kind: TensorKind = TensorKind.DENSE):
        super().__init__()
        self.factory = factory
        self.name = name
        self.kind = kind

    def __missing__(self, key):
        array_type, np_dtype = key
        bound = bind_kernel(self.factory, self.name, array_type, np_dtype, self.kind)
        self[key] = bound
        return bound


KERNELS = KernelFactory()


def register_kernel(name: str, backends, dtypes, layout: DataLayout = DataLayout.ALL_LAYOUT,
                    kind: TensorKind = TensorKind.DENSE):
    """Registers the decorated function as kernel ``name`` for every backend x dtype
    given, for inputs of tensor ``kind`` (dense unless said otherwise)."""

    def decorate(fn):
        KERNELS.register(name, fn, backends, dtypes, layout, kind)
        return fn

    return decorate
