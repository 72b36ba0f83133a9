"""DenseTensor: a contiguous (or strided) array plus its meta, and the version counter
that inplace ops bump and saved tensors check."""
from __future__ import annotations

import sys

import numpy as np

from ..common.backend import DataLayout
from ..common.data_type import _FROM_NUMPY, DataType
from ..common.place import CPUPlace, GPUPlace
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
        """CPUPlace for a NumPy array, GPUPlace(id) for a CuPy array; for an
        ArraySpec (no buffer), the place it was made with, or None if unknown."""
        array = self.array
        if type(array) is np.ndarray:
            return CPUPlace()
        if type(array) is ArraySpec:
            return array.place
        return GPUPlace(int(array.device.id))

    @property
    def nbytes(self) -> int:
        return self.array.nbytes

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
        array = self.array
        return DenseTensor(ArraySpec(array.shape, array.dtype, self.place), self.layout)

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
        array = self.array
        if getattr(array, "base", None) is not None or REFS_OF_ONE_LOCAL is None:
            return False
        # this DenseTensor's slot and the local name `array`
        return sys.getrefcount(array) == REFS_OF_ONE_LOCAL + 1

    def bump_version(self) -> None:
        """Records an inplace modification of the buffer."""
        if self.version_counter is None:
            self.version_counter = VersionCounter()
        self.version_counter.bump()

    def share_buffer_with(self, view_array) -> "DenseTensor":
        """A DenseTensor over ``view_array`` (a view of this buffer) sharing the version counter."""
        if self.version_counter is None:
            self.version_counter = VersionCounter()
        return DenseTensor(view_array, self.layout, self.version_counter)

    def __repr__(self):
        return f"DenseTensor(dims={list(self.dims)}, dtype={self.dtype}, place={self.place})"


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
        self.shape = tuple(shape)
        self.dtype = dtype
        self.place = place

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        count = 1
        for d in self.shape:
            count *= d
        return count

    def __repr__(self):
        return f"ArraySpec(shape={self.shape}, dtype={self.dtype})"
