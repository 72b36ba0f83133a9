"""SelectedRows: some rows of a tall tensor (Paddle's phi::SelectedRows).

An embedding table of 50,000 rows used by a batch that looks up 64 of them has
a gradient that is zero outside those rows. SelectedRows stores just the rows
that are there: ``rows`` (int64 indices into the tall tensor, duplicates
allowed, meaning their blocks add up), ``value`` (a DenseTensor holding one
block per entry of rows) and ``height`` (how many rows the tall tensor has).
Its dims are those of the tall tensor, ``[height] + value.dims[1:]``.

>>> import numpy as np
>>> sr = SelectedRows(np.array([4, 1]), DenseTensor(np.ones((2, 3))), height=10)
>>> sr.dims, sr.numel
((10, 3), 30)
"""
from __future__ import annotations

import numpy as np

from ..backends.gpu_context import VALUE_CHECKS
from ..common.backend import DataLayout
from ..common.data_type import dtype_name
from ..common.place import CPUPlace, GPUPlace
from ..common.tensor_kind import TensorKind
from .dense_tensor import DenseTensor
from .errors import InvalidArgumentError, UnimplementedError
from .tensor_base import TensorBase


def _place_of(array):
    """CPUPlace for a NumPy array (or subclass), GPUPlace(id) for a CuPy array."""
    if isinstance(array, np.ndarray):
        return CPUPlace()
    return GPUPlace(int(array.device.id))


def _row_range(rows) -> tuple:
    """(min, max) of the row indices, read on the device that holds them."""
    if isinstance(rows, np.ndarray):
        return int(rows.min()), int(rows.max())
    with rows.device:  # rows of gpu:1 while gpu:0 is current
        return int(rows.min()), int(rows.max())


class SelectedRows(TensorBase):
    """Rows ``rows`` of a ``height``-row tensor, their values in ``value``.

    ``rows`` is a 1-D integer array (NumPy, or CuPy beside a GPU value) with one
    entry per row block of ``value``; each entry must lie in [0, height).
    """

    __slots__ = ("rows", "value", "height")
    kind = TensorKind.SELECTED_ROWS

    def __init__(self, rows, value: DenseTensor, height: int):
        if not isinstance(value, DenseTensor):
            raise InvalidArgumentError(f"SelectedRows: argument 'value' expected a DenseTensor, got "
                                       f"{type(value).__name__}")
        if isinstance(height, bool) or not isinstance(height, (int, np.integer)) or height < 0:
            raise InvalidArgumentError(f"SelectedRows: argument 'height' expected an int >= 0, got {height!r}")
        if getattr(rows, "ndim", None) != 1 or getattr(rows, "dtype", np.dtype(object)).kind not in "iu":
            raise InvalidArgumentError(
                f"SelectedRows: argument 'rows' expected a 1-D integer array, got "
                f"{type(rows).__name__} of {getattr(rows, 'dtype', '?')}{list(getattr(rows, 'shape', ()))}")
        if value.initialized() and _place_of(rows) != value.place:
            # Kernels index value with rows: both must live on one device.
            raise InvalidArgumentError(
                f"SelectedRows: 'rows' and 'value' must be on one device, got rows on "
                f"{_place_of(rows)} and value on {value.place}")
        if not value.dims:
            raise InvalidArgumentError("SelectedRows: argument 'value' must have at least one dimension "
                                       "(one block per row)")
        if len(rows) != value.dims[0]:
            raise InvalidArgumentError(
                f"SelectedRows: 'rows' has {len(rows)} entries but 'value' holds {value.dims[0]} row "
                f"blocks; they must be equal")
        if len(rows) and (isinstance(rows, np.ndarray) or VALUE_CHECKS.on):
            # On a GPU the range needs a read of device memory: only in anomaly mode,
            # as for every value check (a sparse gradient is built on every step).
            low, high = _row_range(rows)
            if low < 0 or high >= height:
                raise InvalidArgumentError(
                    f"SelectedRows: every entry of 'rows' must lie in [0, {height}), got rows from "
                    f"{low} to {high}")
        self.rows = rows.astype(np.int64, copy=False)
        self.value = value
        self.height = int(height)

    @property
    def dims(self) -> tuple:
        return (self.height,) + tuple(self.value.dims[1:])

    @property
    def dtype(self):
        return self.value.dtype

    @property
    def layout(self) -> DataLayout:
        return self.value.layout

    @property
    def place(self):
        return self.value.place

    @property
    def nbytes(self) -> int:
        return self.value.nbytes + self.rows.nbytes

    def initialized(self) -> bool:
        return self.value.initialized()

    @property
    def dispatch_key(self) -> tuple:
        """The value's array type and dtype: a SelectedRows computes where its value lives."""
        return self.value.dispatch_key

    @property
    def array(self):
        # Dense kernels read `.array`; a SelectedRows reaching one is an op without
        # a selected_rows kernel, which must say so rather than fail inside NumPy.
        raise UnimplementedError(
            "this op has no kernel for a SelectedRows input; convert it with "
            "phi.api.selected_rows_to_dense first")

    def __repr__(self):
        return (f"SelectedRows(rows={len(self.rows)}, height={self.height}, dims={list(self.dims)}, "
                f"dtype={dtype_name(self.dtype)}, place={self.place})")


__all__ = ["SelectedRows"]
