"""A stand-in for a GPU array module, to run kernels' GPU code paths on a machine
without one and catch what would not work on CuPy there.

``DEVICE_XP`` wraps NumPy: its functions return :class:`DeviceArray`, an
ndarray subclass that behaves like a CuPy array in the two ways kernels get
wrong:

- reading a value back to the host (``bool``, ``int``, ``float``, ``.item()``,
  ``.tolist()``, using it as a slice bound) raises :class:`HostSync`: on a GPU
  that waits for the device, so hot paths must not do it;
- calling a NumPy function directly on it (``np.maximum(a, b)`` instead of
  ``ctx.xp.maximum``) raises :class:`HostSync` too: CuPy arrays refuse that.

Methods and operators (``a.sum()``, ``a + b``, ``a[idx] -= w``) work, as on
CuPy; reductions give 0-d arrays, not host scalars, and 0-d arrays promote
like arrays (float32 / int64 is float64), as in CuPy. ``DEVICE_XP is np`` is
False, so kernels take their GPU branch. ``DeviceContext`` is a kernel context
around it.
"""
from __future__ import annotations

import numpy as np


class HostSync(AssertionError):
    """A kernel read a device value back to the host or used NumPy on a device array."""


_DEPTH = [0]  # > 0 while DEVICE_XP (or a DeviceArray method) is running NumPy on plain arrays


def _plain(value):
    if isinstance(value, DeviceArray):
        return value.view(np.ndarray)
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _device(value):
    if isinstance(value, np.ndarray) and not isinstance(value, DeviceArray):
        return value.view(DeviceArray)
    if isinstance(value, np.generic):
        return np.asarray(value).view(DeviceArray)
    if isinstance(value, tuple):
        return tuple(_device(v) for v in value)
    if isinstance(value, list):
        return [_device(v) for v in value]
    return value


def _on_plain(fn, args, kwargs):
    _DEPTH[0] += 1
    try:
        return _device(fn(*_plain(args), **_plain(kwargs)))
    finally:
        _DEPTH[0] -= 1


class DeviceArray(np.ndarray):
    """An ndarray standing for a GPU array (see the module docstring)."""

    def _refuse(self, *args, **kwargs):
        raise HostSync("a device value was read back to the host (a GPU sync on a hot path)")

    __bool__ = __int__ = __float__ = __complex__ = __index__ = item = tolist = _refuse

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if not _DEPTH[0]:
            raise HostSync(f"numpy.{ufunc.__name__} called on a device array: use ctx.xp")
        return getattr(ufunc, method)(*_plain(inputs), **_plain(kwargs))

    def __array_function__(self, func, types, args, kwargs):
        if not _DEPTH[0]:
            raise HostSync(f"numpy.{func.__name__} called on a device array: use ctx.xp")
        return func(*_plain(args), **_plain(kwargs))

    def __repr__(self):
        return f"DeviceArray({self.view(np.ndarray)!r})"


def _method(name):
    base = getattr(np.ndarray, name)

    def method(self, *args, **kwargs):
        result = _on_plain(base, (self,) + args, kwargs)
        # In-place operators return self's plain view: hand back the DeviceArray itself.
        return self if name.startswith("__i") and name not in ("__invert__", "__index__") else result
    method.__name__ = name
    return method


for _name in ("__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__", "__rmul__",
              "__imul__", "__truediv__", "__rtruediv__", "__itruediv__", "__floordiv__", "__mod__", "__pow__",
              "__rpow__", "__neg__", "__abs__", "__invert__", "__and__", "__rand__", "__iand__", "__or__",
              "__ror__", "__ior__", "__xor__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
              "__matmul__", "__rmatmul__", "__getitem__", "__setitem__", "sum", "max", "min", "mean", "any", "all",
              "astype", "reshape", "swapaxes", "transpose", "copy", "cumsum", "argmax", "argmin", "clip", "ravel",
              "prod", "nonzero", "fill", "dot"):
    setattr(DeviceArray, _name, _method(_name))
del _name


class _DeviceXP:
    """NumPy's namespace whose functions take and return DeviceArrays."""

    def __getattr__(self, name):
        value = getattr(np, name)
        if callable(value) and not isinstance(value, type):
            def call(*args, **kwargs):
                return _on_plain(value, args, kwargs)
            call.__name__ = name
            return call
        return value


DEVICE_XP = _DeviceXP()


class DeviceContext:
    """A kernel context whose ``xp`` is DEVICE_XP."""

    xp = DEVICE_XP


def to_device(array) -> DeviceArray:
    return np.asarray(array).view(DeviceArray)


def to_host(value):
    """A kernel result (DeviceArray, tuple of them, None) as plain NumPy."""
    if isinstance(value, tuple):
        return tuple(to_host(v) for v in value)
    return None if value is None else np.asarray(value.view(np.ndarray) if isinstance(value, DeviceArray) else value)
