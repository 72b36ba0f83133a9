"""Paddle's ``paddle.utils.dlpack``: tensors in and out of other frameworks through
DLPack, without copying.

:func:`to_dlpack` gives a DLPack capsule that shares the tensor's memory
(host memory through NumPy, device memory through CuPy); :func:`from_dlpack`
takes a capsule or any object with ``__dlpack__`` (a NumPy or CuPy array, a
torch tensor) and returns a Tensor over the same memory.

>>> import numpy as np
>>> x = eager.to_tensor([1.0, 2.0])
>>> y = eager.utils.dlpack.from_dlpack(eager.utils.dlpack.to_dlpack(x))
>>> y.numpy()
array([1., 2.], dtype=float32)
"""
from __future__ import annotations

import ctypes
import importlib

import numpy as np

from phi.common import DataType, TensorKind
from phi.core.dense_tensor import DenseTensor

from .. import autograd  # noqa: F401  (first: eager.tensor loaded before eager.autograd is an import cycle)
from ..tensor import Tensor

__all__ = ["from_dlpack", "to_dlpack"]

_KDL_CPU, _KDL_CUDA, _KDL_CUDA_HOST = 1, 2, 3


def to_dlpack(x):
    """A DLPack capsule over ``x``'s memory (no copy); a consumer that writes into
    it writes into ``x``. The capsule is used once, by one consumer.

    >>> capsule = eager.utils.dlpack.to_dlpack(eager.ones([2]))
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"to_dlpack: argument 'x' expected a Tensor, got {type(x).__name__}")
    impl = x.impl
    if impl.kind is not TensorKind.DENSE:
        raise TypeError(f"to_dlpack: argument 'x' expected a dense tensor, got {impl.kind}")
    if impl.dtype is DataType.BFLOAT16:
        # bfloat16 lives in an ml_dtypes array, which NumPy's DLPack export refuses
        # (BufferError): say so here rather than deep in NumPy.
        raise TypeError("to_dlpack: argument 'x' has dtype bfloat16, which eager cannot export through "
                        "DLPack (NumPy's DLPack has no bfloat16); cast it first, e.g. x.astype('float32')")
    array = impl.array  # a conversion point: the buffer handed to another framework
    if type(array) is np.ndarray:
        return array.__dlpack__()
    return array.toDlpack()


class _Capsule:
    """A bare DLPack capsule as the producer object ``numpy.from_dlpack`` and
    ``cupy.from_dlpack`` expect."""

    def __init__(self, capsule, device):
        self._capsule, self._device = capsule, device

    def __dlpack__(self, stream=None, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return self._device


class _Writable:
    """The memory of a read-only array, presented writable (it keeps the array, so
    the memory lives as long as the view does)."""

    def __init__(self, array):
        self._array = array
        interface = dict(array.__array_interface__)
        interface["data"] = (interface["data"][0], False)
        self.__array_interface__ = interface


def _capsule_device(capsule) -> tuple:
    """(device type, device id) of a legacy DLPack capsule (a DLManagedTensor, whose
    DLTensor starts with the data pointer and then the device)."""
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    name = get_name(capsule)
    if name != b"dltensor":
        raise ValueError(f"from_dlpack: the capsule is named {name!r}, not 'dltensor' (it was consumed "
                         f"already, or is not a DLPack capsule)")
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    address = get_pointer(capsule, b"dltensor")
    device = (ctypes.c_int32 * 2).from_address(address + ctypes.sizeof(ctypes.c_void_p))
    return int(device[0]), int(device[1])


def from_dlpack(dlpack):
    """A Tensor over the memory of ``dlpack``: a DLPack capsule (consumed) or an object
    with ``__dlpack__`` (a NumPy/CuPy array, a torch tensor; CPU or CUDA). No copy
    (writes through the tensor reach the producer's memory), unless the producer
    says its memory is read-only: then the values are copied.

    >>> import numpy as np
    >>> a = np.arange(3.0)
    >>> t = eager.utils.dlpack.from_dlpack(a)
    >>> a[0] = 7.0; float(t[0])
    7.0
    """
    if type(dlpack).__name__ == "PyCapsule":
        producer = _Capsule(dlpack, _capsule_device(dlpack))
    elif hasattr(dlpack, "__dlpack__") and hasattr(dlpack, "__dlpack_device__"):
        producer = dlpack
    else:
        raise TypeError(f"from_dlpack: argument 'dlpack' expected a DLPack capsule or an object with "
                        f"__dlpack__ (a NumPy/CuPy array, a torch tensor), got {type(dlpack).__name__}")
    device_type = int(producer.__dlpack_device__()[0])
    if device_type in (_KDL_CPU, _KDL_CUDA_HOST):
        try:
            array = np.from_dlpack(producer)
        except (RuntimeError, BufferError) as error:
            # NumPy imports only bool, int, uint, float and complex (a bfloat16 torch tensor is
            # refused with "Unsupported dtype in DLTensor").
            raise TypeError(f"from_dlpack: argument 'dlpack' holds a dtype NumPy cannot import through "
                            f"DLPack (bool, int, uint, float and complex only; bfloat16 is not): {error}") from None
        if not array.flags.writeable:
            # NumPy marks what a legacy capsule holds read-only, as the capsule cannot say; DLPack's
            # legacy producers (eager, Paddle, torch) lend writable memory: view it writable. A
            # producer that says read-only (a versioned __dlpack__) gets its values copied.
            array = np.asarray(_Writable(array)) if producer is not dlpack else array.copy()
    elif device_type == _KDL_CUDA:
        try:
            cupy = importlib.import_module("cupy")
        except ImportError:
            raise RuntimeError("from_dlpack: the data is in GPU memory, which needs CuPy") from None
        array = cupy.from_dlpack(producer)
    else:
        raise ValueError(f"from_dlpack: DLPack device type {device_type} is neither the CPU (1) nor CUDA (2)")
    try:
        DataType.from_numpy(array.dtype)
    except (TypeError, ValueError):
        raise TypeError(f"from_dlpack: eager cannot hold dtype {array.dtype}") from None
    return Tensor(DenseTensor(array))
