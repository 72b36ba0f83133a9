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

The generated phi API also remembers, per op, the signatures of calls that
passed InferMeta (:class:`SignatureCache`, made by
``KERNELS.signature_cache``); registering a kernel empties the dispatch tables
and the signature caches of its name, so the next call checks and selects
again. A kernel that only forwards its arguments to one function of
``ctx.xp`` (``return ctx.xp.add(x, y)``) is bound as that function itself
(see :func:`forwarded_xp_function`), which saves a Python frame per call.
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field
from types import FunctionType
from typing import Callable

from ..backends import bind_kernel
from ..common.backend import Backend, DataLayout
from ..common.data_type import DataType, convert_dtype
from ..common.tensor_kind import TensorKind
from .bfloat16_kernels import computing_in_float32
from .errors import NotFoundError, UnsupportedDtypeError


@dataclass(frozen=True)
class KernelKey:
    backend: Backend
    layout: DataLayout
    dtype: DataType
    kind: TensorKind = TensorKind.DENSE

    def __str__(self) -> str:
        return f"({self.backend}, {self.layout}, {self.dtype}, {self.kind})"

    def __hash__(self) -> int:
        # Registration hashes some 10,000 keys at import. Enum members are singletons
        # compared by identity, so their ids hash the key consistently with __eq__;
        # Enum's own __hash__ is a Python method per member (DataType's is already
        # the identity hash).
        return hash((id(self.backend), id(self.layout), self.dtype, id(self.kind)))


@dataclass(frozen=True)
class Kernel:
    """A registered kernel function and the names of its arguments (ctx excluded)."""

    name: str
    key: KernelKey
    fn: Callable
    arg_names: tuple = field(default=())
    keyword_only: tuple = field(default=())


def kernel_parameters(fn: Callable) -> tuple:
    """(name of ``fn``'s first parameter or None, names of its positional-or-keyword
    parameters after the first, names of its keyword-only parameters after the
    first): what :meth:`KernelFactory.register` keeps of a kernel's signature.

    A plain function is read from its code object, as ``inspect.signature`` reads
    it, at a tenth of the cost (registration reads some 500 kernels at import);
    anything else (a partial, a callable object, a function that declares
    ``__wrapped__`` or ``__signature__``) goes through ``inspect.signature``.

    >>> def kernel(ctx, x, y=1, *args, into=None, **kwargs): ...
    >>> kernel_parameters(kernel)
    ('ctx', ('x', 'y'), ('into',))
    """
    if type(fn) is not FunctionType or "__wrapped__" in fn.__dict__ or "__signature__" in fn.__dict__:
        params = list(inspect.signature(fn).parameters.values())
        if not params:
            return None, (), ()
        return (params[0].name,
                tuple(p.name for p in params[1:] if p.kind is p.POSITIONAL_OR_KEYWORD),
                tuple(p.name for p in params[1:] if p.kind is p.KEYWORD_ONLY))
    code = fn.__code__
    # co_varnames: the positional parameters (positional-only first), the
    # keyword-only ones, then *args and **kwargs, then the other locals.
    n_positional, n_keyword = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames
    keyword_only = names[n_positional:n_positional + n_keyword]
    if n_positional:
        first = names[0]
        positional = names[max(1, code.co_posonlyargcount):n_positional]
    else:
        star = n_keyword
        if code.co_flags & inspect.CO_VARARGS:
            first = names[star]  # inspect's order: *args before the keyword-only ones
        elif n_keyword:
            first, keyword_only = keyword_only[0], keyword_only[1:]
        elif code.co_flags & inspect.CO_VARKEYWORDS:
            first = names[star]
        else:
            first = None
        positional = ()
    return first, tuple(positional), tuple(keyword_only)


class KernelFactory:
    """All registered kernels, and a dispatch table per op for the generated code."""

    def __init__(self):
        self._kernels: dict[str, dict[KernelKey, Kernel]] = {}
        self._tables: dict[str, "DispatchTable"] = {}
        self._signature_caches: dict[str, list] = {}
        self._bfloat16_twins: set = set()  # (name, key) of the bfloat16 kernels made from float32 ones

    # -- registration -------------------------------------------------------
    def register(self, name: str, fn: Callable, backends, dtypes,
                 layout: DataLayout = DataLayout.ALL_LAYOUT,
                 kind: TensorKind = TensorKind.DENSE) -> None:
        """Registers ``fn`` as kernel ``name`` for every backend x dtype given, for
        inputs of tensor ``kind``.

        ``fn`` must take ``ctx`` first (TypeError otherwise). Registering a key
        that already has a kernel is a ValueError, and then nothing of this
        call is registered. Dispatch tables of ``name`` forget what they cached.

        A dense kernel registered for float32 and not for bfloat16 also serves
        bfloat16, computing in float32 (phi.core.bfloat16_kernels); a later
        registration of that bfloat16 key replaces the twin.
        """
        first, arg_names, keyword_only = kernel_parameters(fn)
        if first != "ctx":
            raise TypeError(f"kernel {name!r}: the first parameter must be 'ctx', got {fn}")
        table = self._kernels.get(name, {})
        dtypes = [convert_dtype(dtype) for dtype in dtypes]
        keys = [KernelKey(backend, layout, dtype, kind) for backend in backends for dtype in dtypes]
        # Check every key before adding any, so a failed call registers nothing. A name's
        # first registration (most of them) has no table to check against: a set of
        # the keys finds a key given twice at one hash per key.
        fresh = not table
        if not fresh or len(set(keys)) != len(keys):
            seen = set()
            for key in keys:
                if (key in table and (name, key) not in self._bfloat16_twins) or key in seen:
                    raise ValueError(f"kernel {name!r} registered twice for {key}")
                seen.add(key)
        twins = []
        if kind is TensorKind.DENSE and DataType.FLOAT32 in dtypes and DataType.BFLOAT16 not in dtypes:
            twins = [KernelKey(backend, layout, DataType.BFLOAT16, kind) for backend in backends]
            if not fresh:
                twins = [key for key in twins if key not in table or (name, key) in self._bfloat16_twins]
        self._kernels[name] = table
        for key in keys:
            table[key] = Kernel(name, key, fn, arg_names, keyword_only)
        if not fresh:  # a new kernel replaces a bfloat16 twin: it is no twin any more
            for key in keys:
                self._bfloat16_twins.discard((name, key))
        if twins:
            twin = computing_in_float32(fn, updates_inputs=name.endswith("_"))
            for key in twins:
                table[key] = Kernel(name, key, twin, arg_names, keyword_only)
                self._bfloat16_twins.add((name, key))
        # The generated code holds this op's DispatchTables from import time on:
        # empty them in place, so the next call selects again and sees the new kernel.
        for table_key, cached in self._tables.items():
            if table_key[0] == name:
                cached.clear()
        # A remembered signature holds the kernel bound then: forget those too.
        for cache in self._signature_caches.get(name, ()):
            cache.clear()

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
        wrong_dtype = bool(takes) and dtype not in takes
        summary = f" ({name} takes {takes_text} tensors, got {dtype})" if wrong_dtype else ""
        raise (UnsupportedDtypeError if wrong_dtype else NotFoundError)(
            f"{name}: no kernel for key {KernelKey(backend, layout, dtype, kind)}{summary}; "
            f"registered keys: {registered}"
        )

    def dispatch_table(self, name: str, kind: TensorKind = TensorKind.DENSE,
                       into: bool = False) -> "DispatchTable":
        """The per-op cache of kernels for inputs of ``kind``, indexed with
        ``[array_type, numpy_dtype]`` (of the value array, for SelectedRows).

        ``into=True``: a table for calls that pass ``into=`` (see
        :meth:`writes_into`); its kernels are never bound as the bare xp
        function, whose keyword is ``out``."""
        table_key = (name, kind, "into") if into else (name, kind)
        table = self._tables.get(table_key)
        if table is None:
            table = self._tables[table_key] = DispatchTable(self, name, kind, into)
        return table

    def writes_into(self, name: str) -> bool:
        """Whether every dense kernel ``name`` can write its result into a given
        array: it declares a keyword-only parameter ``into`` (an array of the
        result's shape, dtype and array type, which may be, or overlap, an input;
        the kernel writes the result there and returns it). The code generator
        gives such an op's inplace twin a path without a temporary result.

        >>> KERNELS.writes_into("add"), KERNELS.writes_into("matmul")
        (True, False)
        """
        dense = [k for key, k in self._kernels.get(name, {}).items() if key.kind is TensorKind.DENSE]
        return bool(dense) and all("into" in k.keyword_only for k in dense)

    def signature_cache(self, name: str, op: str | None = None) -> "SignatureCache":
        """A new, empty :class:`SignatureCache` for op ``op`` (default ``name``),
        emptied whenever a kernel named ``name`` is registered."""
        cache = SignatureCache(op or name)
        self._signature_caches.setdefault(name, []).append(cache)
        return cache

    def dispatch_tables(self) -> list:
        """Every dispatch table made so far (eager.jit wraps their kernels while it captures)."""
        return list(self._tables.values())

    def signature_caches(self) -> list:
        """Every signature cache made by this factory."""
        return [cache for caches in self._signature_caches.values() for cache in caches]


class SignatureCache(dict):
    """What one op remembers of its calls that passed InferMeta: the call's
    signature (array type, dtype and shape of every tensor input; value and type
    of every attribute) -> what the generated function needs to call the kernel
    directly (the bound kernel, the array type, the output metas InferMeta set).

    A plain dict on the hot path (``cache.get(signature)``); :meth:`remember`
    adds an entry and keeps at most ``capacity`` of them, dropping the oldest
    first, so a workload whose shapes keep changing holds a bounded amount.
    ``capacity`` 0 remembers nothing (every call runs the full checks).

    >>> cache = SignatureCache("add", capacity=2)
    >>> for n in range(3):
    ...     cache.remember(("f32", (n,)), n)
    >>> sorted(cache.values())
    [1, 2]
    """

    __slots__ = ("op", "capacity")
    DEFAULT_CAPACITY = 256

    def __init__(self, op: str, capacity: int | None = None):
        super().__init__()
        self.op = op
        self.capacity = self.DEFAULT_CAPACITY if capacity is None else capacity

    def remember(self, signature, entry) -> None:
        """Remembers ``entry`` for ``signature``, first dropping the oldest
        entries while the cache is full."""
        capacity = self.capacity
        if capacity <= 0:
            return
        while len(self) >= capacity:
            try:
                del self[next(iter(self))]
            except (KeyError, StopIteration, RuntimeError):  # emptied meanwhile (another thread)
                break
        self[signature] = entry

    def __repr__(self) -> str:
        return f"SignatureCache({self.op!r}, {len(self)}/{self.capacity} signatures)"


def set_signature_cache_capacity(capacity: int, factory: "KernelFactory | None" = None) -> int:
    """Sets how many signatures each op remembers (0: none, every call runs
    InferMeta), empties every cache, and returns the previous capacity.

    >>> previous = set_signature_cache_capacity(0)   # run every check on every call
    >>> _ = set_signature_cache_capacity(previous)
    """
    if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 0:
        raise ValueError(f"set_signature_cache_capacity: argument 'capacity' expected an int >= 0, got {capacity!r}")
    factory = KERNELS if factory is None else factory
    previous = SignatureCache.DEFAULT_CAPACITY
    SignatureCache.DEFAULT_CAPACITY = capacity
    for cache in factory.signature_caches():
        cache.capacity = capacity
        cache.clear()
    return previous


def forwarded_xp_function(fn: Callable):
    """The name NAME when kernel ``fn`` is exactly ``def k(ctx, a, b, ...):
    return ctx.xp.NAME(a, b, ...)`` (its parameters forwarded in order, nothing
    else), or ``def k(ctx, a, b, ..., *, into=None): return ctx.xp.NAME(a, b,
    ..., out=into)`` (a ufunc that can write into a given array; called
    without ``into``, it is the same call), else None.

    Decided by comparing ``fn``'s bytecode with that of such a function compiled
    here, so it holds for this interpreter: a kernel that does anything more
    (an ``astype``, a check, a default, a keyword) never matches.
    """
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    into = code.co_kwonlyargcount == 1 and fn.__kwdefaults__ == {"into": None}
    if (fn.__defaults__ or (fn.__kwdefaults__ and not into) or fn.__closure__
            or (code.co_kwonlyargcount and not into) or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
            or code.co_argcount < 1 or len(code.co_names) != 2 or code.co_names[0] != "xp"):
        return None
    params = code.co_varnames[:code.co_argcount]
    name = code.co_names[1]
    if not name.isidentifier() or not all(p.isidentifier() for p in params):
        return None
    if into:
        source = (f"def k({', '.join(params)}, *, into=None):\n"
                  f"    return {params[0]}.xp.{name}({', '.join(params[1:] + ('out=into',))})\n")
    else:
        source = f"def k({', '.join(params)}):\n    return {params[0]}.xp.{name}({', '.join(params[1:])})\n"
    namespace = {}
    exec(compile(source, "<forwarded_xp_function>", "exec"), namespace)  # noqa: S102  (names checked above)
    probe = namespace["k"].__code__
    if (probe.co_code != code.co_code or probe.co_names != code.co_names or code.co_nlocals != probe.co_nlocals
            or probe.co_varnames != code.co_varnames or (into and probe.co_consts != code.co_consts)):
        return None
    return name


class DispatchTable(dict):
    """(array type, NumPy dtype) -> kernel callable with its context bound, for
    one op and one tensor kind.

    The array type stands for the backend (numpy.ndarray is the CPU, cupy.ndarray
    the GPU), so a hit costs one dict lookup; a miss selects through the factory
    once and caches the result.
    """

    def __init__(self, factory: KernelFactory, name: str, kind: TensorKind = TensorKind.DENSE,
                 into: bool = False):
        super().__init__()
        self.factory = factory
        self.name = name
        self.kind = kind
        self.into = into  # its callers pass into=: never bound as the bare xp function

    def __missing__(self, key):
        array_type, np_dtype = key
        bound = bind_kernel(self.factory, self.name, array_type, np_dtype, self.kind)
        if not self.into and type(bound) is functools.partial and len(bound.args) == 1 and not bound.keywords:
            # Kernel fn bound to its context: one that only forwards to ctx.xp.NAME
            # is called as that function (np.add for add), one frame fewer.
            name = forwarded_xp_function(bound.func)
            direct = None if name is None else getattr(getattr(bound.args[0], "xp", None), name, None)
            if direct is not None:
                bound = direct
        hook = BIND_HOOK.hook
        if hook is not None:  # a recorder is capturing kernel calls (eager.jit)
            bound = hook(self, key, bound)
        self[key] = bound
        return bound


class _BindHook:
    """``hook(table, key, bound)``: called on every dispatch-table miss while set,
    returns what the table caches for ``key`` (eager.jit wraps kernels with it
    while it captures a call; None the rest of the time, so a hit costs nothing)."""

    __slots__ = ("hook",)

    def __init__(self):
        self.hook = None


BIND_HOOK = _BindHook()
KERNELS = KernelFactory()


def register_kernel(name: str, backends, dtypes, layout: DataLayout = DataLayout.ALL_LAYOUT,
                    kind: TensorKind = TensorKind.DENSE):
    """Registers the decorated function as kernel ``name`` for every backend x dtype
    given, for inputs of tensor ``kind`` (dense unless said otherwise)."""

    def decorate(fn):
        KERNELS.register(name, fn, backends, dtypes, layout, kind)
        return fn

    return decorate
