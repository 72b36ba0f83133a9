"""Sparse tensors: only the stored entries of a mostly-zero tensor (Paddle's
phi::SparseCooTensor and phi::SparseCsrTensor).

- ``SparseCooTensor``: ``indices`` (an int64 DenseTensor ``[sparse_dim, nnz]``,
  one column of coordinates per stored entry) and ``values`` (a DenseTensor
  ``[nnz] + dims[sparse_dim:]``: one value, or one dense block, per entry).
  Repeated coordinates are allowed and add up; ``coalesced`` says the entries
  are known to be unique and in row-major order.
- ``SparseCsrTensor``: a 2-d ``[M, N]`` or batched 3-d ``[B, M, N]`` tensor in
  compressed rows: ``crows`` (int64, ``M + 1`` offsets per batch, each batch's
  first 0 and last its count of entries), ``cols`` (int64 column of each entry,
  the batches one after another) and ``values`` (``[nnz]``).

Both answer TensorBase (``dims`` of the dense tensor they stand for, ``dtype``
and ``place`` of their values), so eager code holds them like any tensor; a
kernel for them is registered with ``kind=SPARSE_COO`` or ``SPARSE_CSR``.

>>> import numpy as np
>>> coo = SparseCooTensor(DenseTensor(np.array([[0, 1], [2, 0]])), DenseTensor(np.array([1.0, 2.0])), (2, 3))
>>> coo.dims, coo.nnz, coo.kind.value
((2, 3), 2, 'sparse_coo')
"""
from __future__ import annotations

import numpy as np

from ..backends.gpu_context import VALUE_CHECKS
from ..common.data_type import dtype_name
from ..common.tensor_kind import TensorKind
from .dense_tensor import DenseTensor
from .errors import InvalidArgumentError, UnimplementedError
from .tensor_base import TensorBase


def _host(array):
    """The values of an index array on the host (a device read for CuPy)."""
    return array if isinstance(array, np.ndarray) else array.get()


def _check_dims(op: str, dims) -> tuple:
    try:
        dims = tuple(int(d) for d in dims)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{op}: argument 'shape' expected a list of ints, got {dims!r}") from None
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(f"{op}: argument 'shape' must not hold negative sizes, got {list(dims)}")
    return dims


def _check_index_tensor(op: str, name: str, tensor, ndim: int) -> None:
    if not isinstance(tensor, DenseTensor):
        raise InvalidArgumentError(f"{op}: argument '{name}' expected a DenseTensor, got {type(tensor).__name__}")
    if not tensor.dtype.is_integer:
        raise InvalidArgumentError(f"{op}: argument '{name}' expected an integer tensor, got {tensor.dtype}")
    if len(tensor.dims) != ndim:
        raise InvalidArgumentError(
            f"{op}: argument '{name}' expected a {ndim}-d tensor, got shape {list(tensor.dims)}")


def _check_same_place(op: str, named: dict) -> None:
    places = {name: t.place for name, t in named.items()}
    if len(set(places.values())) > 1:
        listed = ", ".join(f"{name} on {place}" for name, place in places.items())
        raise InvalidArgumentError(f"{op}: every part must be on one device, got {listed}")


def _as_int64(tensor: DenseTensor) -> DenseTensor:
    if tensor.array.dtype == np.int64:
        return tensor
    return DenseTensor(tensor.array.astype(np.int64))


class _SparseBase(TensorBase):
    """What both sparse kinds share: the dense dims, and values for dtype/place."""

    __slots__ = ()

    @property
    def dims(self) -> tuple:
        return self._dims

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def layout(self):
        return self.values.layout

    @property
    def place(self):
        return self.values.place

    @property
    def nnz(self) -> int:
        """How many entries are stored (repeats counted)."""
        return int(self.values.dims[0])

    def initialized(self) -> bool:
        return self.values.initialized()

    @property
    def dispatch_key(self) -> tuple:
        """The values' array type and dtype: a sparse tensor computes where its values live."""
        return self.values.dispatch_key

    @property
    def array(self):
        # Dense kernels read `.array`; a sparse tensor reaching one is an op without a
        # kernel for its kind, which must say so rather than fail inside NumPy.
        raise UnimplementedError(
            f"this op has no kernel for a {self.kind} input; use eager.sparse's functions, or "
            f"convert it with to_dense() first")


class SparseCooTensor(_SparseBase):
    """Entries ``values`` at coordinates ``indices`` of a tensor of ``dims``.

    ``check_range`` reads the indices to check that each lies inside ``dims``
    (always on the CPU; on a GPU, a device read, only when asked or in anomaly
    mode). ``op`` names the caller in error messages.
    """

    __slots__ = ("indices", "values", "_dims", "coalesced")
    kind = TensorKind.SPARSE_COO

    def __init__(self, indices: DenseTensor, values: DenseTensor, dims, coalesced: bool = False,
                 check_range: bool = False, op: str = "SparseCooTensor"):
        dims = _check_dims(op, dims)
        _check_index_tensor(op, "indices", indices, 2)
        if not isinstance(values, DenseTensor):
            raise InvalidArgumentError(f"{op}: argument 'values' expected a DenseTensor, got "
                                       f"{type(values).__name__}")
        _check_same_place(op, {"indices": indices, "values": values})
        sparse_dim, nnz = indices.dims
        if not values.dims or values.dims[0] != nnz:
            raise InvalidArgumentError(
                f"{op}: 'indices' holds {nnz} entries (shape {list(indices.dims)}), so 'values' must "
                f"have {nnz} rows, got shape {list(values.dims)}")
        if sparse_dim < 1 or sparse_dim + len(values.dims) - 1 != len(dims):
            raise InvalidArgumentError(
                f"{op}: 'indices' has {sparse_dim} rows (sparse dimensions) and 'values' "
                f"{len(values.dims) - 1} dense dimension(s), which must add up to the {len(dims)} "
                f"dimensions of shape {list(dims)} (with at least one sparse dimension)")
        if tuple(values.dims[1:]) != dims[sparse_dim:]:
            raise InvalidArgumentError(
                f"{op}: the dense dimensions of 'values' {list(values.dims[1:])} must equal "
                f"shape[{sparse_dim}:] = {list(dims[sparse_dim:])}")
        if nnz and (isinstance(indices.array, np.ndarray) or check_range or VALUE_CHECKS.on):
            host = _host(indices.array)
            low, high = host.min(axis=1), host.max(axis=1)
            for axis in range(sparse_dim):
                if low[axis] < 0 or high[axis] >= dims[axis]:
                    raise InvalidArgumentError(
                        f"{op}: row {axis} of 'indices' must lie in [0, {dims[axis]}) (shape[{axis}]), "
                        f"got values from {int(low[axis])} to {int(high[axis])}")
        self.indices = _as_int64(indices)
        self.values = values
        self._dims = dims
        self.coalesced = bool(coalesced)

    @property
    def sparse_dim(self) -> int:
        return int(self.indices.dims[0])

    @property
    def nbytes(self) -> int:
        return self.values.nbytes + self.indices.nbytes

    def __repr__(self):
        return (f"SparseCooTensor(nnz={self.nnz}, sparse_dim={self.sparse_dim}, dims={list(self.dims)}, "
                f"dtype={dtype_name(self.dtype)}, place={self.place})")


class SparseCsrTensor(_SparseBase):
    """A 2-d or batched 3-d tensor of ``dims`` in compressed rows (see the module doc).

    The structure of ``crows`` (offsets start at 0, never decrease, end at each
    batch's entry count) and the range of ``cols`` are checked on the host: always
    on the CPU, on a GPU when ``check_range`` is asked or in anomaly mode.
    """

    __slots__ = ("crows", "cols", "values", "_dims")
    kind = TensorKind.SPARSE_CSR

    def __init__(self, crows: DenseTensor, cols: DenseTensor, values: DenseTensor, dims,
                 check_range: bool = False, op: str = "SparseCsrTensor"):
        dims = _check_dims(op, dims)
        if len(dims) not in (2, 3):
            raise InvalidArgumentError(f"{op}: a CSR tensor is 2-d or 3-d (batched), got shape {list(dims)}")
        _check_index_tensor(op, "crows", crows, 1)
        _check_index_tensor(op, "cols", cols, 1)
        if not isinstance(values, DenseTensor):
            raise InvalidArgumentError(f"{op}: argument 'values' expected a DenseTensor, got "
                                       f"{type(values).__name__}")
        if len(values.dims) != 1:
            raise InvalidArgumentError(f"{op}: argument 'values' expected a 1-d tensor, got shape "
                                       f"{list(values.dims)}")
        _check_same_place(op, {"crows": crows, "cols": cols, "values": values})
        batches = dims[0] if len(dims) == 3 else 1
        rows, columns = dims[-2], dims[-1]
        if crows.dims[0] != batches * (rows + 1):
            raise InvalidArgumentError(
                f"{op}: 'crows' must hold {batches} x ({rows} + 1) = {batches * (rows + 1)} offsets for "
                f"shape {list(dims)}, got {crows.dims[0]}")
        if cols.dims[0] != values.dims[0]:
            raise InvalidArgumentError(
                f"{op}: 'cols' and 'values' must have one entry each per stored value, got "
                f"{cols.dims[0]} and {values.dims[0]}")
        if isinstance(crows.array, np.ndarray) or check_range or VALUE_CHECKS.on:
            offsets = _host(crows.array).reshape(batches, rows + 1)
            if (offsets[:, 0] != 0).any() or (np.diff(offsets, axis=1) < 0).any():
                raise InvalidArgumentError(
                    f"{op}: each batch's 'crows' must start at 0 and never decrease, got "
                    f"{offsets.tolist()}")
            if int(offsets[:, -1].sum()) != cols.dims[0]:
                raise InvalidArgumentError(
                    f"{op}: the last offsets of 'crows' add up to {int(offsets[:, -1].sum())} entries "
                    f"but 'cols' holds {cols.dims[0]}")
            host_cols = _host(cols.array)
            if len(host_cols) and (host_cols.min() < 0 or host_cols.max() >= columns):
                raise InvalidArgumentError(
                    f"{op}: every entry of 'cols' must lie in [0, {columns}), got values from "
                    f"{int(host_cols.min())} to {int(host_cols.max())}")
        self.crows = _as_int64(crows)
        self.cols = _as_int64(cols)
        self.values = values
        self._dims = dims

    @property
    def nbytes(self) -> int:
        return self.values.nbytes + self.crows.nbytes + self.cols.nbytes

    def __repr__(self):
        return f"SparseCsrTensor(nnz={self.nnz}, dims={list(self.dims)}, dtype={dtype_name(self.dtype)}, place={self.place})"


def coo_from_parts(indices: DenseTensor, values: DenseTensor, dims, coalesced: bool = False) -> SparseCooTensor:
    """A SparseCooTensor of parts known to fit (made by phi's kernels or taken from
    another sparse tensor): no checks, no device read."""
    out = SparseCooTensor.__new__(SparseCooTensor)
    out.indices, out.values, out._dims, out.coalesced = indices, values, tuple(dims), bool(coalesced)
    return out


def csr_from_parts(crows: DenseTensor, cols: DenseTensor, values: DenseTensor, dims) -> SparseCsrTensor:
    """A SparseCsrTensor of parts known to fit: no checks, no device read."""
    out = SparseCsrTensor.__new__(SparseCsrTensor)
    out.crows, out.cols, out.values, out._dims = crows, cols, values, tuple(dims)
    return out


def with_values(x, values: DenseTensor):
    """A sparse tensor of x's kind and pattern holding ``values`` (nnz rows, as x's)."""
    if x.kind is TensorKind.SPARSE_COO:
        return coo_from_parts(x.indices, values, x.dims, x.coalesced)
    return csr_from_parts(x.crows, x.cols, values, x.dims)


__all__ = ["SparseCooTensor", "SparseCsrTensor", "coo_from_parts", "csr_from_parts", "with_values"]
