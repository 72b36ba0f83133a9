"""DenseTensor: a contiguous (or strided) array plus its meta, and the version counter
that inplace ops bump and saved tensors check."""
from __future__ import annotations

import operator
import sys

import numpy as np

from ..backends.gpu_context import import_cupy
from ..common.backend import DataLayout
from ..common.data_type import _FROM_NUMPY, DataType, dtype_name
from ..common.place import CPUPlace, CUDAPinnedPlace, GPUPlace
from ..common.tensor_kind import TensorKind
from .tensor_base import TensorBase


def _refs_of_one_local():
    """What sys.getrefcount reports for an object held by one local name only.

    Measured rather than assumed: interpreters differ in the references a call
    adds (CPython 3.14 counts fewer). None where there is no getrefcount.
    """
    if not hasattr(sys, "getrefcount"):
        return None
    probe = object()
    return sys.getrefcount(probe)


REFS_OF_ONE_LOCAL = _refs_of_one_local()
_CPU_PLACE = CPUPlace()  # a singleton, but building it on every read costs a call
_PINNED_PLACE = CUDAPinnedPlace()


def is_pinned_array(array) -> bool:
    """Whether a NumPy array lies in page-locked memory that CuPy allocated
    (``cupyx.empty_pinned``, ``cupy.cuda.alloc_pinned_memory``): the buffer
    at the end of its chain of bases is a ``cupy.cuda.PinnedMemoryPointer``.
    Views of such an array are pinned too. Without CuPy imported there is no
    pinned memory, and nothing is imported to find that out."""
    base = array.base
    while type(base) is np.ndarray:
        base = base.base
    if base is None:
        return False
    cupy = sys.modules.get("cupy")
    pointer_type = getattr(getattr(cupy, "cuda", None), "PinnedMemoryPointer", None)
    return pointer_type is not None and isinstance(base, pointer_type)


class VersionCounter:
    """Counts inplace modifications of one buffer; views of the buffer share it."""

    __slots__ = ("value",)

    def __init__(self):
        self.value = 0

    def bump(self) -> None:
        self.value += 1


class DenseTensor(TensorBase):
    """A dense n-d array held as a NumPy array (CPU) or CuPy array (GPU).

    The array's own shape and dtype are the tensor's dims and dtype, so the
    meta is derived from it rather than stored twice. ``version`` is shared with
    every view of the same buffer (see :meth:`share_buffer_with`).

    >>> t = DenseTensor(np.zeros((2, 3), np.float32))
    >>> t.dims, t.dtype
    ((2, 3), DataType.FLOAT32)
    """

    __slots__ = ("array", "layout", "version_counter")
    kind = TensorKind.DENSE

    def __init__(self, array, layout: DataLayout = DataLayout.ALL_LAYOUT,
                 version_counter: VersionCounter | None = None):
        self.array = array
        self.layout = layout
        self.version_counter = version_counter

    @property
    def dims(self) -> tuple:
        return self.array.shape

    @property
    def shape(self) -> tuple:
        return self.array.shape

    @property
    def ndim(self) -> int:
        return self.array.ndim

    @property
    def dtype(self) -> DataType:
        # A plain dict lookup: InferMeta reads this on every op call. A miss
        # (non-native byte order, or a dtype phi does not support) takes the
        # slow path, which maps the first and raises TypeError for the second.
        try:
            return _FROM_NUMPY[self.array.dtype]
        except KeyError:
            return DataType.from_numpy(self.array.dtype)

    @property
    def numel(self) -> int:
        return self.array.size

    @property
    def place(self):
        """CPUPlace for a NumPy array (CUDAPinnedPlace for one over pinned memory:
        see :func:`is_pinned_array`), GPUPlace(id) for a CuPy array; for an
        ArraySpec (no buffer), the place it was made with, or None if unknown."""
        array = self.array
        if type(array) is np.ndarray:
            if array.base is None or not is_pinned_array(array):  # an array owning its memory: the CPU's
                return _CPU_PLACE
            return _PINNED_PLACE
        if type(array) is ArraySpec:
            return array.place
        return GPUPlace(int(array.device.id))

    @property
    def nbytes(self) -> int:
        return self.array.nbytes

    @property
    def is_contiguous(self) -> bool:
        """Whether the buffer is laid out row-major without gaps (a transposed or
        strided view is not)."""
        return bool(self.array.flags.c_contiguous)

    @property
    def strides(self) -> tuple:
        """The step between neighbours along each axis, in elements (the array's byte
        strides over its itemsize; 0 along a broadcast axis)."""
        array = self.array
        size = array.dtype.itemsize
        return tuple(step // size for step in array.strides)

    @property
    def data_ptr(self) -> int:
        """The address of the first element (host memory for NumPy, device memory for CuPy)."""
        array = self.array
        if type(array) is np.ndarray:
            return int(array.__array_interface__["data"][0])
        return int(array.data.ptr)

    @property
    def byte_offset(self) -> int:
        """Bytes from the start of the allocation holding the buffer to the first element:
        0 for an array that owns its memory, a view's position inside its base."""
        array = self.array
        if type(array) is not np.ndarray:
            return int(array.data.ptr - array.data.mem.ptr)
        base = array
        while isinstance(base.base, np.ndarray):
            base = base.base
        return self.data_ptr - int(base.__array_interface__["data"][0])

    @property
    def version(self) -> int:
        counter = self.version_counter
        return 0 if counter is None else counter.value

    def initialized(self) -> bool:
        """Whether the tensor holds a buffer: False over None or an ArraySpec (meta only)."""
        return self.array is not None and type(self.array) is not ArraySpec

    @property
    def dispatch_key(self) -> tuple:
        # The generated phi API inlines this expression on its hot path; this
        # property serves the code that handles any kind of tensor.
        array = self.array
        return type(array), array.dtype

    def shape_only(self) -> "DenseTensor":
        """A DenseTensor with this one's dims, dtype and place but no buffer (an
        ArraySpec): what a backward op that reads only the shape is given."""
        return DenseTensor.from_spec(spec_of(self))

    @staticmethod
    def from_spec(spec: tuple) -> "DenseTensor":
        """A DenseTensor over an ArraySpec, from what :func:`spec_of` returned."""
        shape, dtype, device = spec
        place = _CPU_PLACE if device == "cpu" else GPUPlace(int(device.id))
        return DenseTensor(ArraySpec(shape, dtype, place))

    @property
    def buffer_id(self) -> int:
        """Identity of the memory behind this tensor: views of one buffer share it."""
        array = self.array
        while getattr(array, "base", None) is not None:
            array = array.base
        return id(array)

    def owns_buffer_alone(self) -> bool:
        """Whether no other object can reach this tensor's buffer: the array is not a
        view and nothing but this DenseTensor refers to it.

        Reference counts are exact in CPython (PyTorch's gradient accumulation
        decides the same way from use counts); elsewhere the answer is False,
        which only costs a copy.
        """
        if REFS_OF_ONE_LOCAL is None:
            return False
        array = self.array
        # this DenseTensor's slot and the local name `array`
        if sys.getrefcount(array) != REFS_OF_ONE_LOCAL + 1:
            return False
        # A view (a kernel's transposed result) is fine if its base is held by the
        # view alone: the view's reference and the local name `base`.
        base = getattr(array, "base", None)
        while base is not None:
            if sys.getrefcount(base) != REFS_OF_ONE_LOCAL + 1:
                return False
            base = getattr(base, "base", None)
        return True

    def bump_version(self) -> None:
        """Records an inplace modification of the buffer."""
        if self.version_counter is None:
            self.version_counter = VersionCounter()
        self.version_counter.bump()

    def replaces(self, old: "DenseTensor") -> None:
        """Records that this tensor takes the place of ``old`` in a Tensor written in
        place with a new buffer (``t_``, ``assign`` into an output of another shape):
        the Tensor's version goes on from old's, moved by one, so code reading
        ``inplace_version`` sees the write; a view of old's buffer keeps it as its own
        counter (it shares old's, which this one does not touch)."""
        counter = self.version_counter
        if counter is not None and counter is old.version_counter:  # a view of old's buffer
            counter.bump()
            return
        if counter is None:
            self.version_counter = counter = VersionCounter()
        counter.value = old.version + 1

    def share_buffer_with(self, view_array) -> "DenseTensor":
        """A DenseTensor over ``view_array`` (a view of this buffer) sharing the version counter."""
        if self.version_counter is None:
            self.version_counter = VersionCounter()
        return DenseTensor(view_array, self.layout, self.version_counter)

    def __repr__(self):
        return f"DenseTensor(dims={list(self.dims)}, dtype={dtype_name(self.dtype)}, place={self.place})"


# (shape, NumPy dtype, device) of a DenseTensor: what a saved shape-only input
# keeps. Read in C, because the generated code takes one per recorded op; the
# device is NumPy's "cpu" or a CuPy Device.
spec_of = operator.attrgetter("array.shape", "array.dtype", "array.device")


class ArraySpec:
    """Shape and dtype of an array without its buffer.

    A backward op that needs only the shape of a forward input (``no_need_buffer``
    in backward.yaml) receives one of these in place of the array, so the
    forward's buffer can be freed as soon as the forward is done. A DenseTensor
    over an ArraySpec has dims, dtype and (when given here) place, holds 0 bytes
    and is not ``initialized()``.
    """

    __slots__ = ("shape", "dtype", "place")
    nbytes = 0  # no buffer

    def __init__(self, shape, dtype, place=None):
        self.shape = shape if type(shape) is tuple else tuple(shape)
        self.dtype = dtype
        self.place = place

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def device(self):
        """The device as the array would name it (NumPy's "cpu" or a CuPy Device),
        so a shape-only tensor saved by a backward op that is itself recorded
        (a double grad) can be saved shape-only again by :func:`spec_of`."""
        if self.place is None or not self.place.is_gpu_place():  # the host's memory, pinned or not
            return "cpu"
        return import_cupy().cuda.Device(self.place.device_id)

    @property
    def size(self) -> int:
        count = 1
        for d in self.shape:
            count *= d
        return count

    def __repr__(self):
        return f"ArraySpec(shape={self.shape}, dtype={self.dtype})"
