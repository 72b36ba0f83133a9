"""A strict NumPy-backed stand-in for CuPy, so the GPU path runs in CI without a GPU.

Installed as ``sys.modules["cupy"]`` (and ``"cupyx"``) by tests/conftest.py when
real CuPy with a device is not importable. It computes with NumPy but keeps
CuPy's contract, and is stricter where a real GPU would pay for leniency:

- its own :class:`ndarray` type (``type(a).__module__`` starts with "cupy", as
  phi's backend_of_array_type expects), with ``.device``, ``.get()``,
  ``.item()``, ``.tolist()``, operators and the array methods NumPy has;
- no implicit conversion to NumPy: ``np.asarray(a)`` raises TypeError, and so
  does a NumPy function called on it (real CuPy dispatches some of those
  through ``__array_function__``; here code must say ``xp``);
- NumPy arrays and Python lists are refused as operands of operators, ufuncs
  and functions (TypeError "Unsupported type"), as are NumPy arrays as
  indices or as the value of ``a[...] = value`` (an implicit host-to-device copy);
- reductions and scalar indexing give 0-d arrays, never NumPy scalars;
- what CuPy lacks is absent: the functions in ``_MISSING``, ``ufunc.at``
  outside the ufuncs and dtypes CUDA's atomics serve (see ``_AT_DTYPES``),
  and dtypes CuPy has no kernels for (object, strings, datetimes).

Several devices (``set_device_count(n)``; two by default, so the suite runs
as on a two-GPU machine): an array remembers the device it was made on
(``.device``), ``cuda.Device(id)`` as a context manager makes a device
current, and, as in real CuPy, an operation whose array operands are not all
on the current device raises ValueError ("Array device must be same as the
current device"). That is stricter than CuPy in one way: views (slices,
reshapes) check too. ``array``/``asarray`` of an array on another device
copies it to the current one, counted in ``peer_copies``; reading values back
(``get``, ``item``) works from any device, as in CuPy.

Pinned host memory as CuPy makes it: ``cuda.alloc_pinned_memory(size)``
returns a ``cuda.PinnedMemoryPointer`` (ordinary host memory here) and
``cupyx.empty_pinned(shape, dtype, order)`` a NumPy array over one, its
``base``; ``pinned_allocations`` counts them.

``transfers`` counts device-to-host copies (``get``, ``asnumpy``, ``item``,
``tolist``, ``bool``/``float``/``int``, and reading through a boolean mask,
``a[mask]``, whose count of True values CuPy reads back to size the result) and ``uploads`` host-to-device copies
(``array``/``asarray`` of host data), so a test can assert that a hot path
does not synchronize.
"""
from __future__ import annotations

import builtins
import sys
import types
import weakref

import numpy

__version__ = "13.0.0+fake"
_UNSUPPORTED_KINDS = "OSUMmV"  # object, str, bytes, datetime, timedelta, void
# ufunc.at in CuPy is built on CUDA atomics: only these ufuncs, only these dtypes.
# CuPy accepts float64 maximum.at/minimum.at, but on an H200 they gave wrong values
# (docs/gpu.md), so the stand-in refuses them: eager must not call them.
_AT_DTYPES = {
    "add": {numpy.float16, numpy.float32, numpy.float64, numpy.int32, numpy.uint32, numpy.uint64},
    "subtract": {numpy.float16, numpy.float32, numpy.float64, numpy.int32, numpy.uint32, numpy.uint64},
    "maximum": {numpy.float32, numpy.int32, numpy.uint32, numpy.int64, numpy.uint64},
    "minimum": {numpy.float32, numpy.int32, numpy.uint32, numpy.int64, numpy.uint64},
}
# NumPy names CuPy does not provide (host-only machinery or not implemented).
_MISSING = {"errstate", "seterr", "geterr", "frompyfunc", "apply_over_axes", "nditer", "ndindex",
            "ndenumerate", "fromfunction", "ma", "rec", "char", "memmap", "polynomial", "ctypeslib",
            "object_", "str_", "bytes_", "datetime64", "timedelta64", "busday_count", "is_busday",
            "loadtxt", "savetxt", "genfromtxt", "fromregex", "set_printoptions", "testing", "emath"}
# Functions whose first argument is data to copy or a shape, not an operand.
_CREATION = {"array", "asarray", "ascontiguousarray", "asanyarray", "zeros", "ones", "empty", "full",
             "arange", "eye", "identity", "linspace", "logspace", "tri", "indices", "meshgrid",
             "broadcast_shapes", "result_type", "can_cast", "dtype", "finfo", "iinfo", "promote_types",
             "einsum", "ravel_multi_index", "unravel_index", "diag_indices", "tril_indices",
             "triu_indices", "isscalar", "ndim", "shape", "issubdtype", "r_", "c_"}
transfers = [0]
uploads = [0]
peer_copies = [0]  # device-to-device copies (array/asarray of an array on another device)
# Calls into CuPy on device arrays: functions, ufuncs, operators, array methods,
# indexing. On a real GPU each costs the host ~8-30 us (kernel launch, allocation,
# argument parsing) however small the array, so a training step's count measures
# what it pays in launch overhead (benchmarks/gpu.py's G rows).
calls = [0]
# Functions that only take memory from the pool and launch no kernel (cupy.empty costs
# the host ~2 us on an H200): not counted in ``calls``.
_ALLOCATING = {"empty", "empty_like"}
# Inside a fused function (see fuse): how deep, and how many reductions it made.
_fusing = [0, 0]
# What a function fused by CuPy may call besides ufuncs and operators: one
# reduction (these), and these array methods.
_FUSED_REDUCTIONS = {"sum", "prod", "amax", "amin", "max", "min"}
_FUSED_METHODS = {"astype", "copy"} | _FUSED_REDUCTIONS


class Device:
    """A CUDA device by id; a context manager that makes it current."""

    @property
    def compute_capability(self) -> str:
        """Major and minor version digits joined, as CuPy gives them ('80')."""
        props = _device_properties(self.id)
        return f"{props['major']}{props['minor']}"

    def __init__(self, device=None):
        self.id = _current[0] if device is None else int(device)
        if not 0 <= self.id < _DEVICE_COUNT[0]:
            raise RuntimeError(f"CUDARuntimeError: cudaErrorInvalidDevice: invalid device ordinal {self.id}")
        self._previous = []

    def __enter__(self):
        self._previous.append(_current[0])
        _current[0] = self.id
        return self

    def __exit__(self, *exc):
        _current[0] = self._previous.pop()

    def use(self):
        _current[0] = self.id

    def synchronize(self):
        pass

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(("cuda", self.id))

    def __repr__(self):
        return f"<CUDA Device {self.id}>"


_DEVICE_COUNT = [2]
_current = [0]


def set_device_count(count: int) -> None:
    """How many devices the fake has (``cuda.runtime.getDeviceCount()``); device 0
    becomes current. phi reads the count once, when it first binds a GPU kernel:
    set it before that."""
    if not isinstance(count, int) or count < 0:
        raise ValueError(f"set_device_count: expected a non-negative int, got {count!r}")
    _DEVICE_COUNT[0] = count
    _current[0] = 0


def _set_device(device_id):
    Device(device_id).use()


def _check_device(arrays):
    """CuPy's rule: a kernel runs on the current device, on arrays of that device."""
    current = _current[0]
    for a in arrays:
        if a._dev != current:
            raise ValueError(f"Array device must be same as the current device: array device = {a._dev} "
                             f"while current = {current}")


def _arrays_in(value, found):
    if isinstance(value, ndarray):
        found.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _arrays_in(v, found)
    return found


def _refuse(value):
    raise TypeError(f"Unsupported type {type(value)}")


def _check_dtype(dtype):
    if dtype.kind in _UNSUPPORTED_KINDS or dtype.itemsize > 16 or dtype == numpy.longdouble and \
            dtype.itemsize > 8:
        raise TypeError(f"Unsupported dtype {dtype}")


def _owner(array):
    """The NumPy array that owns ``array``'s memory (the end of its base chain)."""
    while isinstance(array.base, numpy.ndarray):
        array = array.base
    return array


def _wrap(value, like=None):
    """NumPy results as fake arrays: scalars become 0-d arrays; tuples stay tuples."""
    if isinstance(value, numpy.ndarray):
        _check_dtype(value.dtype)
        out = ndarray.__new__(ndarray)
        out._a = value
        out.base = None
        out._dev = _current[0] if like is None else like._dev
        _live(out)
        if like is not None and value is not like._a and value.base is not None and (
                numpy.may_share_memory(value, like._a)
                # An empty view shares no memory, yet CuPy's slice of x is a view of x all the same.
                or value.size == 0 and _owner(value) is _owner(like._a)):
            out.base = like if like.base is None else like.base  # a view: CuPy's base is the owner
        return out
    if isinstance(value, numpy.generic):
        return _wrap(numpy.asarray(value))
    if isinstance(value, tuple):  # includes NumPy's named results (QRResult, ...): CuPy gives tuples
        return tuple(_wrap(v, like) for v in value)
    if isinstance(value, list) and value and isinstance(value[0], numpy.ndarray):
        return [_wrap(v, like) for v in value]
    return value


def _has_array(value):
    if isinstance(value, (ndarray, numpy.ndarray)):
        return True
    return isinstance(value, (list, tuple)) and builtins.any(_has_array(v) for v in value)


def _plain_number(value):
    """A fused function's Python float argument as the plain float NumPy takes as a
    weak scalar (NumPy types a float subclass as float64)."""
    return float(value) if type(value) is _FusedPythonFloat else value


def _unwrap(value, operand=True):
    """An argument as NumPy sees it. ``operand``: it is an array operand, where CuPy
    takes arrays and scalars only. Shapes and axes (tuples of ints) pass."""
    if isinstance(value, ndarray):
        return value._a
    if type(value) is _FusedPythonFloat:
        return float(value)
    if isinstance(value, numpy.ndarray):
        _refuse(value)
    if isinstance(value, (list, tuple)):
        if _has_array(value):  # arrays to join (concatenate, stack): each one an operand
            return type(value)(_unwrap(v) for v in value)
        if operand:
            _refuse(value)
    return value


def _first_array(args):
    for a in args:
        if isinstance(a, ndarray):
            return a
        if isinstance(a, (list, tuple)):
            found = _first_array(a)
            if found is not None:
                return found
    return None


def _delegate(fn, name, operands=1, is_ufunc=False):
    """numpy's ``fn`` over fake arrays; its first ``operands`` arguments are operands."""
    operands = 0 if name in _CREATION else operands
    launches = name not in _ALLOCATING

    def call(*args, **kwargs):
        if _fusing[0]:
            _check_fusable(name, kwargs, is_ufunc)
            if not _arrays_in(args, []) and builtins.any(isinstance(a, _FusedPythonFloat) for a in args):
                _FusedPythonFloat.refuse(name)
        calls[0] += launches
        _check_device(_arrays_in(list(kwargs.values()), _arrays_in(args, [])))
        plain = [_unwrap(a, operand=i < operands) for i, a in enumerate(args)]
        plain_kw = {k: _unwrap(v, operand=False) for k, v in kwargs.items()}
        if "out" in kwargs and kwargs["out"] is not None:
            fn(*plain, **plain_kw)
            return kwargs["out"]
        return _wrap(fn(*plain, **plain_kw), _first_array(args))

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"cupy.{name} (fake: numpy.{name} over device arrays)"
    return call


class ufunc:
    """A NumPy ufunc over fake arrays; ``at`` only where CuPy has it."""

    def __init__(self, np_ufunc):
        self._u = np_ufunc
        self.name, self.nin, self.nout, self.nargs = np_ufunc.__name__, np_ufunc.nin, np_ufunc.nout, np_ufunc.nargs
        self.__name__ = self.name

    def __call__(self, *args, **kwargs):
        return _delegate(self._u, self.name, self.nin, is_ufunc=True)(*args, **kwargs)

    def reduce(self, array, *args, **kwargs):
        return _delegate(self._u.reduce, self.name + ".reduce")(array, *args, **kwargs)

    def accumulate(self, array, *args, **kwargs):
        return _delegate(self._u.accumulate, self.name + ".accumulate")(array, *args, **kwargs)

    def outer(self, a, b, **kwargs):
        return _delegate(self._u.outer, self.name + ".outer", 2)(a, b, **kwargs)

    def at(self, a, indices, b=None):
        supported = _AT_DTYPES.get(self.name)
        if supported is None:
            raise NotImplementedError(f"cupy.{self.name}.at is not supported")
        if a.dtype.type not in supported:
            raise TypeError(f"cupy.{self.name}.at does not support dtype {a.dtype}")
        if isinstance(indices, numpy.ndarray) or isinstance(b, numpy.ndarray):
            _refuse(numpy.ndarray([]))
        calls[0] += 1
        _check_device(_arrays_in((a, indices, b), []))
        args = () if b is None else (_unwrap(b),)
        self._u.at(a._a, _unwrap(indices, operand=False), *args)

    def __repr__(self):
        return f"<ufunc '{self.name}'>"


def _binary(np_fn, reflected=False):
    def op(self, other):
        if isinstance(other, (numpy.ndarray, list)):
            _refuse(other)
        other_plain = other._a if isinstance(other, ndarray) else _plain_number(other)
        if not isinstance(other, (ndarray, int, float, complex, bool, numpy.generic)):
            return NotImplemented
        calls[0] += 1
        _check_device((self, other) if isinstance(other, ndarray) else (self,))
        return _wrap(np_fn(other_plain, self._a) if reflected else np_fn(self._a, other_plain))
    return op


def _inplace(np_fn):
    def op(self, other):
        if isinstance(other, (numpy.ndarray, list)):
            _refuse(other)
        calls[0] += 1
        _check_device((self, other) if isinstance(other, ndarray) else (self,))
        np_fn(self._a, other._a if isinstance(other, ndarray) else _plain_number(other), out=self._a)
        return self
    return op


def _reads_a_count(key):
    """Whether ``a[key]`` reads device memory, as in CuPy: a boolean mask (its number
    of True values sets the result's size)."""
    if isinstance(key, tuple):
        return builtins.any(_reads_a_count(k) for k in key)
    return isinstance(key, ndarray) and key.dtype == numpy.bool_ and key.ndim > 0


def _index(key):
    if isinstance(key, tuple):
        return tuple(_index(k) for k in key)
    if isinstance(key, numpy.ndarray):
        _refuse(key)  # an index array on the host would be copied to the device implicitly
    return key._a if isinstance(key, ndarray) else key


def _refuse_racing_writes(target, index, value):
    """Refuses an assignment through integer index arrays that writes one place twice
    with different values: NumPy's last write wins, but on a GPU the threads race and
    CuPy leaves the winner undefined (it changed from run to run on an H200)."""
    parts = index if isinstance(index, tuple) else (index,)
    if not builtins.any(isinstance(p, numpy.ndarray) and p.dtype.kind in "iu" for p in parts):
        return
    places = numpy.arange(target.size).reshape(target.shape)[index]
    if numpy.unique(places).size == places.size:
        return
    values = numpy.broadcast_to(numpy.asarray(value, dtype=target.dtype), places.shape)
    order = numpy.argsort(places.reshape(-1), kind="stable")
    sorted_places, sorted_values = places.reshape(-1)[order], values.reshape(-1)[order]
    same_place = sorted_places[1:] == sorted_places[:-1]
    same_value = sorted_values[1:] == sorted_values[:-1]
    if sorted_values.dtype.kind in "fc":  # NaN at both writes is the same value
        same_value |= numpy.isnan(sorted_values[1:]) & numpy.isnan(sorted_values[:-1])
    if numpy.any(same_place & ~same_value):
        raise AssertionError("fake_cupy: an index-array assignment writes one place twice with different "
                             "values; CuPy leaves which write wins undefined")


_NOT_ON_ARRAYS = {"ctypes", "tofile", "dump", "dumps", "itemset", "newbyteorder", "setflags",
                  "getfield", "setfield", "resize", "tobytes", "tostring", "flat"}


class ndarray:
    """A device array (a NumPy array inside, never handed out)."""

    __slots__ = ("_a", "base", "_dev", "__weakref__")
    __array_priority__ = 100.0
    __array_ufunc__ = None  # NumPy's operators defer to ours, which refuse NumPy operands

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        self._a = numpy.empty(shape, dtype=dtype, order=order)
        _check_dtype(self._a.dtype)
        self.base = None
        self._dev = _current[0]
        _live(self)

    # -- what CuPy refuses -----------------------------------------------------------
    def __array__(self, *args, **kwargs):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
                        "construct a NumPy array explicitly.")

    def __array_function__(self, func, types_, args, kwargs):
        raise TypeError(f"numpy.{func.__name__} was called on a cupy.ndarray: compute with cupy (ctx.xp)")

    def __getattr__(self, name):
        if name.startswith("__array") or name in _NOT_ON_ARRAYS or name.startswith("_"):
            raise AttributeError(f"'cupy.ndarray' object has no attribute {name!r}")
        attr = getattr(self._a, name)
        if callable(attr):
            _check_device((self,))
            if _fusing[0]:
                _check_fusable(name, {}, False, method=True)

            def method(*args, **kwargs):
                calls[0] += 1
                return _wrap(attr(*[_unwrap(a, operand=False) for a in args],
                                  **{k: _unwrap(v, operand=False) for k, v in kwargs.items()}), self)
            return method
        return _wrap(attr, self)

    # -- attributes ------------------------------------------------------------------
    shape = property(lambda self: self._a.shape if not _fusing[0] else _not_in_fuse("shape"))
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size if not _fusing[0] else _not_in_fuse("size"))
    nbytes = property(lambda self: self._a.nbytes)
    itemsize = property(lambda self: self._a.itemsize)
    strides = property(lambda self: self._a.strides)
    device = property(lambda self: Device(self._dev))
    data = property(lambda self: MemoryPointer(self))
    T = property(lambda self: _wrap(self._a.T, self))
    real = property(lambda self: _wrap(self._a.real, self))
    imag = property(lambda self: _wrap(self._a.imag, self))

    # -- explicit transfers ------------------------------------------------------------
    def get(self, stream=None, order="C", out=None):
        """A NumPy copy of the values (the one way to the host); with ``out`` (a
        NumPy array of this shape and dtype, C- or F-contiguous, as CuPy asks)
        the values are written into it and ``out`` is returned."""
        if _fusing[0]:
            _not_in_fuse("get")
        if out is not None:
            if not isinstance(out, numpy.ndarray):
                raise TypeError("Only numpy.ndarray can be obtained from cupy.ndarray")
            if out.dtype != self._a.dtype:
                raise TypeError(f"{out.dtype} array cannot be obtained from {self._a.dtype} array")
            if out.shape != self._a.shape:
                raise ValueError(f"Shape mismatch. Expected shape: {self._a.shape}, actual shape: {out.shape}")
            if not (out.flags.c_contiguous or out.flags.f_contiguous):
                raise RuntimeError("Cannot set to non-contiguous array")
            transfers[0] += 1
            numpy.copyto(out, self._a)
            return out
        transfers[0] += 1
        return numpy.array(self._a, copy=True)

    def item(self, *args):
        if _fusing[0]:
            _not_in_fuse("item")
        transfers[0] += 1
        return self._a.item(*args)

    def tolist(self):
        if _fusing[0]:
            _not_in_fuse("tolist")
        transfers[0] += 1
        return self._a.tolist()

    def _scalar(self, convert):
        if _fusing[0]:
            raise TypeError("cupy.fuse: Can't cast to bool (or to a Python number) inside a fused function")
        if self._a.size != 1:
            raise TypeError("only size-1 arrays can be converted to Python scalars")
        return convert(self.item())

    __float__ = lambda self: self._scalar(float)
    __int__ = lambda self: self._scalar(int)
    __complex__ = lambda self: self._scalar(complex)

    def __bool__(self):
        if self._a.size != 1:
            raise ValueError("The truth value of an array with more than one element is ambiguous.")
        return self._scalar(builtins.bool)

    def __index__(self):
        if self._a.ndim != 0 or self._a.dtype.kind not in "iu":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return self._scalar(int)

    # -- indexing ----------------------------------------------------------------------
    def __getitem__(self, key):
        if _fusing[0]:
            _not_in_fuse("indexing")
        calls[0] += 1
        _check_device(_arrays_in(key, [self]))
        if _reads_a_count(key):
            transfers[0] += 1
        index = _index(key)
        value = self._a[index]
        if isinstance(value, numpy.generic):  # an int per axis: CuPy gives a 0-d view, NumPy a scalar copy
            value = self._a[(index if isinstance(index, tuple) else (index,)) + (Ellipsis,)]
        return _wrap(value, self)

    def __setitem__(self, key, value):
        if isinstance(value, (numpy.ndarray, list)):
            _refuse(value)
        if _fusing[0] and key is not Ellipsis and key != slice(None):
            raise ValueError("The fusion supports `[...]` or `[:]`.")
        calls[0] += 1
        _check_device(_arrays_in((key, value), [self]))
        index, plain = _index(key), value._a if isinstance(value, ndarray) else value
        _refuse_racing_writes(self._a, index, plain)
        self._a[index] = plain

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self._a)))

    def __repr__(self):
        return repr(self._a)

    def __str__(self):
        return str(self._a)

    __hash__ = None

    # -- operators ---------------------------------------------------------------------
    __add__, __radd__, __iadd__ = _binary(numpy.add), _binary(numpy.add, True), _inplace(numpy.add)
    __sub__, __rsub__, __isub__ = _binary(numpy.subtract), _binary(numpy.subtract, True), _inplace(numpy.subtract)
    __mul__, __rmul__, __imul__ = _binary(numpy.multiply), _binary(numpy.multiply, True), _inplace(numpy.multiply)
    __truediv__, __rtruediv__ = _binary(numpy.true_divide), _binary(numpy.true_divide, True)
    __itruediv__ = _inplace(numpy.true_divide)
    __floordiv__, __rfloordiv__ = _binary(numpy.floor_divide), _binary(numpy.floor_divide, True)
    __ifloordiv__ = _inplace(numpy.floor_divide)
    __mod__, __rmod__, __imod__ = _binary(numpy.remainder), _binary(numpy.remainder, True), _inplace(numpy.remainder)
    __pow__, __rpow__, __ipow__ = _binary(numpy.power), _binary(numpy.power, True), _inplace(numpy.power)
    __matmul__, __rmatmul__ = _binary(numpy.matmul), _binary(numpy.matmul, True)
    __and__, __rand__, __iand__ = _binary(numpy.bitwise_and), _binary(numpy.bitwise_and, True), \
        _inplace(numpy.bitwise_and)
    __or__, __ror__, __ior__ = _binary(numpy.bitwise_or), _binary(numpy.bitwise_or, True), _inplace(numpy.bitwise_or)
    __xor__, __rxor__, __ixor__ = _binary(numpy.bitwise_xor), _binary(numpy.bitwise_xor, True), \
        _inplace(numpy.bitwise_xor)
    __lshift__, __rshift__ = _binary(numpy.left_shift), _binary(numpy.right_shift)
    __lt__, __le__, __gt__, __ge__ = (_binary(numpy.less), _binary(numpy.less_equal), _binary(numpy.greater),
                                      _binary(numpy.greater_equal))
    __eq__, __ne__ = _binary(numpy.equal), _binary(numpy.not_equal)
    def _unary(self, np_fn):
        calls[0] += 1
        _check_device((self,))
        return _wrap(np_fn(self._a))

    __neg__ = lambda self: self._unary(numpy.negative)
    __pos__ = lambda self: self._unary(numpy.positive)
    __abs__ = lambda self: self._unary(numpy.absolute)
    __invert__ = lambda self: self._unary(numpy.invert)

    def __copy__(self):
        return self._copy()

    def __deepcopy__(self, memo):
        return self._copy()

    def _copy(self):  # a copy on the array's own device, whichever is current (as CuPy's copy does)
        out = _wrap(self._a.copy())
        out._dev = self._dev
        return out

    def __reduce__(self):
        return (_rebuild, (self.get(),))


ndarray.__module__ = "cupy._core.core"
ufunc.__module__ = "cupy._core._kernel"


def _rebuild(host):
    return _wrap(host)


# -- module-level functions ------------------------------------------------------------

def asnumpy(a, stream=None, order="C", out=None):
    """A NumPy copy of a device array (NumPy input passes through, as in CuPy)."""
    if isinstance(a, ndarray):
        return a.get()
    return numpy.asarray(a)


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0):
    """A device array from host data (NumPy arrays, lists, scalars) or another device array."""
    if isinstance(obj, ndarray):
        if obj._dev != _current[0]:
            peer_copies[0] += 1  # a device-to-device copy
        obj = obj._a
    elif _has_array(obj) and not isinstance(obj, numpy.ndarray):
        _check_device(_arrays_in(obj, []))
        obj = _unwrap(obj, operand=False)
    else:
        uploads[0] += 1
    return _wrap(numpy.array(obj, dtype=dtype, copy=True, order=order, ndmin=ndmin))


def asarray(a, dtype=None, order=None):
    if isinstance(a, ndarray) and (dtype is None or numpy.dtype(dtype) == a.dtype) and a._dev == _current[0]:
        return a
    return array(a, dtype=dtype, order=order or "K")


def get_array_module(*args):
    """This module if any argument is a device array, else NumPy."""
    return sys.modules[__name__] if builtins.any(isinstance(a, ndarray) for a in args) else numpy


def _namespace(module_name, source, missing=()):
    module = types.ModuleType(module_name)
    for name in dir(source):
        if name.startswith("_") or name in missing:
            continue
        value = getattr(source, name)
        if isinstance(value, numpy.ufunc):
            setattr(module, name, ufunc(value))
        elif isinstance(value, type) or isinstance(value, (int, float, str, numpy.dtype)):
            setattr(module, name, value)  # dtypes (numpy.float32), constants (inf, nan, pi)
        elif callable(value):
            setattr(module, name, _delegate(value, name))
    return module


_this = sys.modules[__name__]
for _name in dir(numpy):
    if not _name.startswith("_") and _name not in _MISSING and not hasattr(_this, _name):
        _value = getattr(numpy, _name)
        if isinstance(_value, numpy.ufunc):
            setattr(_this, _name, ufunc(_value))
        elif isinstance(_value, type) or isinstance(_value, (int, float, str, numpy.dtype)):
            setattr(_this, _name, _value)
        elif callable(_value):
            setattr(_this, _name, _delegate(_value, _name))
ndarray = ndarray  # noqa: PLW0127  (numpy.ndarray must not replace ours)
linalg = _namespace("cupy.linalg", numpy.linalg, missing={"eig", "eigvals", "LinAlgError"})
linalg.LinAlgError = numpy.linalg.LinAlgError
fft = _namespace("cupy.fft", numpy.fft)
lib = types.ModuleType("cupy.lib")
lib.stride_tricks = _namespace("cupy.lib.stride_tricks", numpy.lib.stride_tricks)


# -- cupy.cuda -----------------------------------------------------------------------

class Stream:
    """A CUDA stream; work here is synchronous, so synchronize has nothing to wait for."""

    null = None

    def __init__(self, null=False, non_blocking=False, ptds=False):
        self.ptr = 0

    def synchronize(self):
        pass

    def use(self):
        _stream[0] = self
        return self

    def __enter__(self):
        self._previous = _stream[0]
        _stream[0] = self
        return self

    def __exit__(self, *exc):
        _stream[0] = self._previous


_stream = [Stream(null=True)]
cuda = types.ModuleType("cupy.cuda")
cuda.Device, cuda.Stream = Device, Stream
cuda.get_current_stream = lambda device_id=-1: _stream[0]
cuda.is_available = lambda: _DEVICE_COUNT[0] > 0


def _device_properties(device_id):
    """cudaGetDeviceProperties as CuPy returns it (a dict with str keys; the name
    is bytes), for a made-up device: compute capability 8.0, 16 GiB, 108 SMs."""
    Device(device_id)  # an invalid ordinal raises, as in CUDA
    return {"name": b"Fake CUDA Device", "totalGlobalMem": 16 * 1024 ** 3, "major": 8, "minor": 0,
            "multiProcessorCount": 108}


cuda.runtime = types.SimpleNamespace(getDeviceCount=lambda: _DEVICE_COUNT[0], getDevice=lambda: _current[0],
                                     setDevice=_set_device, getDeviceProperties=_device_properties,
                                     deviceSynchronize=lambda: None, CUDARuntimeError=RuntimeError,
                                     runtimeGetVersion=lambda: 12020)  # CUDA 12.2, CuPy's encoding
cuda.curand = types.SimpleNamespace(CURAND_RNG_PSEUDO_DEFAULT=100, CURAND_RNG_PSEUDO_XORWOW=101,
                                    CURAND_RNG_PSEUDO_PHILOX4_32_10=161)
is_available = cuda.is_available


# -- the memory pool (cupy.get_default_memory_pool) -------------------------------------
# Every device array made here (id -> weak reference), so that the pool can count the
# live ones; weak, so that an array dies as it would. (A WeakSet needs hashable items;
# an array's == is elementwise.)
_LIVE: dict = {}


def _live(array) -> None:
    key = id(array)
    _LIVE[key] = weakref.ref(array, lambda _, key=key: _LIVE.pop(key, None))
_ALLOCATION_UNIT = 512  # CuPy rounds each allocation up to a multiple of 512 bytes


class MemoryPool:
    """cupy.cuda.MemoryPool's statistics for the current device: ``used_bytes``
    (the live arrays' buffers, each rounded up to 512 bytes), ``total_bytes``
    (what the pool holds: it keeps every block it served until
    ``free_all_blocks``), ``free_bytes`` (their difference). The fake counts
    at each call, so it sees only the peaks that a call catches."""

    def __init__(self):
        self._total = {}

    def used_bytes(self) -> int:
        owners = {}
        for ref in list(_LIVE.values()):
            array = ref()
            if array is not None and array._dev == _current[0]:
                root = _root(array._a)
                owners[id(root)] = root.nbytes
        return builtins.sum(-(-n // _ALLOCATION_UNIT) * _ALLOCATION_UNIT for n in owners.values())

    def total_bytes(self) -> int:
        used = self.used_bytes()
        total = self._total[_current[0]] = builtins.max(self._total.get(_current[0], 0), used)
        return total

    def free_bytes(self) -> int:
        return self.total_bytes() - self.used_bytes()

    def free_all_blocks(self, stream=None) -> None:
        self._total[_current[0]] = self.used_bytes()


_memory_pool = MemoryPool()
cuda.MemoryPool = MemoryPool
get_default_memory_pool = lambda: _memory_pool  # noqa: E731


# -- pinned (page-locked) host memory: cupy.cuda.alloc_pinned_memory, cupyx.empty_pinned --
pinned_allocations = [0]  # calls of alloc_pinned_memory (cupyx.empty_pinned makes one each)


class PinnedMemoryPointer(bytearray):
    """cupy.cuda.PinnedMemoryPointer, as ``cuda.alloc_pinned_memory`` returns it:
    host memory that NumPy arrays are made over (``numpy.ndarray(shape, dtype,
    buffer=pointer)``, whose ``base`` it then is), with ``ptr`` (its address)
    and ``size()`` (its length in bytes). Here the memory is ordinary host
    memory: a bytearray is the one writable buffer pure Python can hand NumPy.
    Only ``alloc_pinned_memory`` makes one."""

    __slots__ = ()

    @property
    def ptr(self) -> int:
        if not len(self):
            return 0
        return int(numpy.frombuffer(self, numpy.uint8).__array_interface__["data"][0])

    def size(self) -> int:
        return len(self)


def alloc_pinned_memory(size):
    """cupy.cuda.alloc_pinned_memory: ``size`` bytes of pinned host memory."""
    if not hasattr(size, "__index__"):  # CuPy's size_t argument takes what int() of an index takes
        raise TypeError(f"an integer is required, got {type(size).__name__}")
    size = size.__index__()
    if size < 0:
        raise OverflowError("can't convert negative value to size_t")
    pinned_allocations[0] += 1
    return PinnedMemoryPointer(size)


cuda.PinnedMemoryPointer, cuda.alloc_pinned_memory = PinnedMemoryPointer, alloc_pinned_memory


# -- cupy.random (the legacy RandomState API, which real CuPy has in full) --------------

class RandomState:
    """cupy.random.RandomState: seeded draws on the device it was made on (NumPy's
    PCG64 inside); drawing while another device is current raises, as a curand
    generator belongs to one device."""

    def __init__(self, seed=None, method=100):
        self._dev = _current[0]
        self.seed(seed)

    def seed(self, seed=None):
        self._gen = numpy.random.Generator(numpy.random.PCG64(seed))

    def _out(self, values, dtype=None):
        if self._dev != _current[0]:
            raise ValueError(f"RandomState of device {self._dev} used while device {_current[0]} is current")
        values = numpy.asarray(values)
        return _wrap(values if dtype is None else values.astype(dtype, copy=False))

    def random_sample(self, size=None, dtype=float):
        return self._out(self._gen.random(size), dtype)

    def rand(self, *size, dtype=float):
        return self.random_sample(size, dtype)

    def standard_normal(self, size=None, dtype=float):
        return self._out(self._gen.standard_normal(size), dtype)

    def randn(self, *size, dtype=float):
        return self.standard_normal(size, dtype)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=float):
        return self._out(self._gen.normal(_unwrap(loc, False), _unwrap(scale, False), size), dtype)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=float):
        return self._out(self._gen.uniform(_unwrap(low, False), _unwrap(high, False), size), dtype)

    def randint(self, low, high=None, size=None, dtype=int):
        return self._out(self._gen.integers(low, high, size), dtype)

    def permutation(self, num):
        if isinstance(num, ndarray):
            _check_device((num,))
            return self._out(self._gen.permutation(num._a))
        return self._out(self._gen.permutation(int(num)))

    def poisson(self, lam=1.0, size=None, dtype=int):
        return self._out(self._gen.poisson(_unwrap(lam, False), size), dtype)

    def binomial(self, n, p, size=None, dtype=int):
        return self._out(self._gen.binomial(_unwrap(n, False), _unwrap(p, False), size), dtype)

    def choice(self, a, size=None, replace=True, p=None):
        _check_device(_arrays_in((a, p), []))
        return self._out(self._gen.choice(_unwrap(a, False), size, replace, _unwrap(p, False)))


_global_states: dict = {}


def get_random_state():
    """The current device's global RandomState (one per device, as in CuPy)."""
    state = _global_states.get(_current[0])
    if state is None:
        state = _global_states[_current[0]] = RandomState()
    return state


random = types.ModuleType("cupy.random")
random.RandomState = RandomState
random.get_random_state = get_random_state
random.seed = lambda seed=None: get_random_state().seed(seed)
for _name in ("random_sample", "rand", "randn", "standard_normal", "normal", "uniform", "randint",
              "permutation", "poisson", "choice"):
    setattr(random, _name, (lambda n: lambda *a, **k: getattr(get_random_state(), n)(*a, **k))(_name))
random.random = random.random_sample


# -- cupy.fuse ----------------------------------------------------------------------------

def _not_in_fuse(what):
    raise TypeError(f"cupy.fuse: {what} is not available inside a fused function (its variables have "
                    f"a dtype and an ndim only, no shape, size or values)")


def _check_fusable(name, kwargs, is_ufunc, method=False):
    """What CuPy's fusion refuses inside a fused function: functions other than ufuncs
    and one reduction, keywords it would drop (a reduction's keepdims or dtype), a
    second reduction."""
    base = name.split(".")[0]
    if method and name not in _FUSED_METHODS or not method and not is_ufunc and base not in _FUSED_REDUCTIONS:
        raise TypeError(f"cupy.fuse: cupy.{name} cannot be called inside a fused function")
    if name in _FUSED_REDUCTIONS:
        unsupported = set(kwargs) - {"axis", "out"}
        if unsupported:
            raise TypeError(f"cupy.fuse: {name}() inside a fused function takes axis and out only, "
                            f"got {sorted(unsupported)}")
        if _fusing[1]:
            raise NotImplementedError("Multiple reduction is not implemented yet")
        _fusing[1] += 1
    elif "." in name:
        raise TypeError(f"cupy.fuse: cupy.{name} cannot be called inside a fused function")


def _scalar_only(name):
    def op(self, other):
        if isinstance(other, (int, float, complex, numpy.generic)):
            _FusedPythonFloat.refuse(name)
        return getattr(float, name)(self, other)
    return op


class _FusedPythonFloat(float):
    """A Python float argument inside a fused function. With an array it is a weak
    scalar, as in CuPy; arithmetic of it with another scalar is refused, because
    cupy.fuse does that in the smallest dtype that holds the value: on an H200
    (CuPy 14.2) ``1.0 - s`` with s = 0.9 gave 0.10009765625 (float16), which moved
    fused Adam's updates by ~1e-4 relative."""

    @staticmethod
    def refuse(what):
        raise TypeError(f"cupy.fuse: {what} of a Python float argument and another scalar runs in the "
                        f"smallest dtype holding the value (float16 for 0.9) on a real GPU; compute it "
                        f"outside the kernel or pass a NumPy float64 scalar")

    for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
                  "__rtruediv__", "__pow__", "__rpow__"):
        locals()[_name] = _scalar_only(_name)
    del _name

    def __neg__(self):
        return _FusedPythonFloat(-float(self))


class _Fusion:
    """cupy.fuse(func): one kernel made of func's elementwise maths (and at most one
    reduction), compiled once per argument dtypes and ndims.

    The stand-in runs func on the fake arrays as they are and counts ONE call into
    CuPy (the fused kernel's launch) for the whole body, and it refuses what the
    real one refuses: functions whose name is no C identifier (a lambda's
    "<lambda>": the kernel is named after the function), keyword arguments,
    arguments other than device arrays, NumPy scalars, Python numbers and None,
    and inside the body the shape, size, values, indexing (but ``x[...] =``) and
    calls other than ufuncs, operators and one reduction. What the real kernel
    returns is always new arrays, never an argument: so here too.
    """

    def __init__(self, func, kernel_name=None):
        name = kernel_name or getattr(func, "__name__", "")
        if not name.isidentifier():
            raise ValueError(f"cupy.fuse: the kernel name {name!r} is not a C identifier (CUDA compile "
                             f"error); fuse named functions, not lambdas")
        self.func, self.name = func, name

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"cupy.fuse: {self.name}() takes positional arguments only, got {sorted(kwargs)}")
        arrays = [a for a in args if isinstance(a, ndarray)]
        if not arrays:
            return self.func(*args)  # no device array: plain Python, as in CuPy
        for a in args:
            if not isinstance(a, (ndarray, numpy.generic, int, float, complex, bool, type(None))):
                raise TypeError(f"Invalid argument type for '{self.name}': ({type(a)})")
        _check_device(arrays)
        args = [_FusedPythonFloat(a) if type(a) is float else a for a in args]
        before = calls[0]
        saved = _fusing[:]
        _fusing[:] = [saved[0] + 1, 0]
        try:
            result = self.func(*args)
        finally:
            _fusing[:] = saved
            calls[0] = before + 1
        if result is None:
            return None
        results = result if isinstance(result, tuple) else (result,)
        fresh = []
        for r in results:
            if not isinstance(r, ndarray):
                raise TypeError(f"Fusion function can't return {type(r)}")
            if builtins.any(numpy.may_share_memory(r._a, a._a) for a in arrays):
                r = r._copy()
            fresh.append(r)
        return tuple(fresh) if isinstance(result, tuple) else fresh[0]

    def __repr__(self):
        return f"<Fusion '{self.name}'>"


def fuse(*args, **kwargs):
    """cupy.fuse as a decorator, bare (``@fuse``) or with ``kernel_name=``."""
    if len(args) == 1 and not kwargs and callable(args[0]):
        return _Fusion(args[0])
    return lambda func: _Fusion(func, *args, **kwargs)


# -- cupyx -------------------------------------------------------------------------------

def scatter_add(a, slices, value):
    """cupyx.scatter_add: numpy.add.at on the device (CUDA's atomicAdd dtypes only)."""
    add.at(a, slices, value)  # noqa: F821  (add is a ufunc set above)


def empty_pinned(shape, dtype=float, order="C"):
    """cupyx.empty_pinned: an uninitialised NumPy array over pinned memory from
    ``cuda.alloc_pinned_memory`` (its ``base``). An empty one has no such base: on an
    H200 with CuPy 14.2 nothing marked a zero-byte one as pinned memory afterwards."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    count = 1
    for n in shape:
        count *= n
    if count == 0:
        return numpy.empty(shape, dtype=dtype, order=order)
    memory = alloc_pinned_memory(count * numpy.dtype(dtype).itemsize)
    return numpy.ndarray(shape, dtype=dtype, buffer=memory, order=order)


# -- device pointers, and cuBLAS through them (cupy_backends.cuda.libs.cublas) --------------

def _root(a):
    """The NumPy array that owns ``a``'s memory."""
    while isinstance(a.base, numpy.ndarray):
        a = a.base
    return a


def _address(a) -> int:
    return a.__array_interface__["data"][0]


class _Allocation:
    """cupy.cuda.Memory's ``ptr``: where the allocation holding an array starts."""

    def __init__(self, ptr):
        self.ptr = ptr


# Device addresses handed out by ``a.data`` (first element's address -> (weak reference
# to the array, owning NumPy array)): where the cuBLAS and NCCL stand-ins find the memory
# an address points into.
_POINTED: dict = {}


class MemoryPointer:
    """cupy.cuda.MemoryPointer of an array (``a.data``): ``ptr`` the address of its
    first element (host memory here), ``mem.ptr`` its allocation's start."""

    def __init__(self, array):
        root = _root(array._a)
        self.ptr = _address(array._a)
        self.mem = _Allocation(_address(root))
        self.device_id = array._dev
        _POINTED[self.ptr] = (weakref.ref(array), root)


def pointed_arrays(ptr):
    """The live arrays whose ``.data.ptr`` was read and is ``ptr``."""
    entry = _POINTED.get(ptr)
    array = entry[0]() if entry is not None else None
    return [] if array is None else [array]


def _buffer_at(ptr):
    """(owning NumPy array, byte offset) of memory of a live device array on the
    current device that holds address ``ptr`` (one whose ``.data`` was read); a
    TypeError for any other address (host memory, an array freed or on another
    device), as the GPU would fault."""
    for start, (ref, root) in list(_POINTED.items()):
        array = ref()
        if array is None:
            del _POINTED[start]
            continue
        begin = _address(root)
        if array._dev == _current[0] and begin <= ptr < begin + root.nbytes and \
                (root.flags.c_contiguous or root.flags.f_contiguous):
            return root.ravel(order="K"), ptr - begin  # (a view: the memory in address order)
    raise TypeError(f"cuBLAS stand-in: address {ptr:#x} is not in a live device array on device {_current[0]}")


def _matrix(ptr, rows, cols, ld, dtype):
    """The column-major rows x cols matrix at device address ``ptr`` with leading
    dimension ``ld``, as a NumPy view (NumPy refuses one that runs past its buffer)."""
    if ld < builtins.max(rows, 1):
        raise ValueError(f"cuBLAS stand-in: leading dimension {ld} < {rows} rows")
    root, offset = _buffer_at(ptr)
    item = numpy.dtype(dtype).itemsize
    return numpy.ndarray((rows, cols), dtype, buffer=root, offset=offset, strides=(item, ld * item))


def _vector(ptr, length, inc, dtype):
    root, offset = _buffer_at(ptr)
    item = numpy.dtype(dtype).itemsize
    return numpy.ndarray((length,), dtype, buffer=root, offset=offset, strides=(inc * item,))


def _host_scalar(ptr, dtype):
    import ctypes  # noqa: PLC0415  (only the cuBLAS stand-in reads host addresses)
    item = numpy.dtype(dtype).itemsize
    return numpy.frombuffer((ctypes.c_char * item).from_address(ptr), dtype)[0]


class _Cublas(types.ModuleType):
    """The cuBLAS calls eager makes, on device addresses: column-major matrices,
    scalars in host memory (the only pointer mode eager sets; others are refused).
    A product is NumPy's matmul of the same memory in row-major order, which is
    what the stand-in's ``matmul`` of the arrays computes, so the two agree bit for bit."""

    CUBLAS_POINTER_MODE_HOST = 0
    CUBLAS_POINTER_MODE_DEVICE = 1

    def __init__(self):
        super().__init__("cupy_backends.cuda.libs.cublas")
        self._modes = {}

    def create(self):
        handle = self._made = getattr(self, "_made", 0) + 1
        self._modes[handle] = self.CUBLAS_POINTER_MODE_HOST
        return handle

    def destroy(self, handle):
        self._modes.pop(handle, None)

    def setPointerMode(self, handle, mode):  # noqa: N802  (cuBLAS's name)
        self._modes[handle] = mode

    def setStream(self, handle, stream):  # noqa: N802
        if handle not in self._modes:
            raise RuntimeError("CUBLAS_STATUS_NOT_INITIALIZED")

    def _scalars(self, handle, dtype, *ptrs):
        if self._modes.get(handle) != self.CUBLAS_POINTER_MODE_HOST:
            raise RuntimeError("cuBLAS stand-in: only host pointer mode is modelled")
        return [_host_scalar(p, dtype) for p in ptrs]

    def _gemm(self, dtype, handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
        calls[0] += 1
        alpha, beta = self._scalars(handle, dtype, alpha, beta)
        op_a = _matrix(a, k, m, lda, dtype).T if transa else _matrix(a, m, k, lda, dtype)
        op_b = _matrix(b, n, k, ldb, dtype).T if transb else _matrix(b, k, n, ldb, dtype)
        out = _matrix(c, m, n, ldc, dtype)
        product = numpy.matmul(op_b.T, op_a.T).T
        if beta == 0:  # cuBLAS does not read C then (it may hold garbage, NaN)
            out[...] = product if alpha == 1 else alpha * product
        else:
            out[...] = alpha * product + beta * out

    def _gemv(self, dtype, handle, trans, m, n, alpha, a, lda, x, incx, beta, y, incy):
        calls[0] += 1
        alpha, beta = self._scalars(handle, dtype, alpha, beta)
        matrix = _matrix(a, m, n, lda, dtype)
        if trans:
            matrix = matrix.T
        rows, cols = matrix.shape
        vector, out = _vector(x, cols, incx, dtype), _vector(y, rows, incy, dtype)
        product = numpy.matmul(matrix, vector)
        if beta == 0:
            out[...] = product if alpha == 1 else alpha * product
        else:
            out[...] = alpha * product + beta * out

    def sgemm(self, *args):
        self._gemm(numpy.float32, *args)

    def dgemm(self, *args):
        self._gemm(numpy.float64, *args)

    def sgemv(self, *args):
        self._gemv(numpy.float32, *args)

    def dgemv(self, *args):
        self._gemv(numpy.float64, *args)


cublas = _Cublas()


def install_backends(modules) -> None:
    """Puts the stand-in's ``cupy_backends.cuda.libs.cublas`` (and its packages) into
    ``modules`` (sys.modules), where eager imports CuPy's cuBLAS bindings from."""
    names = ["cupy_backends", "cupy_backends.cuda", "cupy_backends.cuda.libs"]
    packages = [types.ModuleType(name) for name in names]
    for parent, child in zip(packages, packages[1:] + [cublas]):
        setattr(parent, child.__name__.rsplit(".", 1)[1], child)
    for module in packages + [cublas]:
        modules[module.__name__] = module


cupyx = types.ModuleType("cupyx")
cupyx.scatter_add = scatter_add
cupyx.empty_pinned = empty_pinned
cupyx.__fake__ = True
__fake__ = True


# -- cupy.cuda.nccl: tests/fake_nccl.py (NCCL over mpi4py), its one hook here --------------
try:
    import fake_nccl
except ImportError:  # tests/ not importable as top-level modules: CuPy without NCCL
    pass
else:
    fake_nccl.install(_this)
