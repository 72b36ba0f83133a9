"""Gradient accumulation in phi: the buffer rules the autograd engine relies on,
for dense gradients and SelectedRows (sparse rows) alike.

- ``owned_copy(x)``: a copy of x, of its kind, in buffers of its own (the
  ``assign`` kernel of that kind; the generated ``assign`` takes dense only).
- ``accumulate_(acc, x)``: acc + x. Into a dense acc the sum is written in place
  (acc's version is bumped) and acc is returned; dense += SelectedRows adds each
  row block into its row. A SelectedRows acc returns a new tensor: SelectedRows
  + SelectedRows keeps the rows side by side, SelectedRows + dense is dense.
- A sparse (COO or CSR) acc returns a new tensor: with x of its kind the
  values add up (one pattern) or the entries join; with anything else, dense.
- ``zero_(x)``: a dense x's buffer set to zeros in place.
- ``selected_rows_to_dense(x)``, ``merge_selected_rows(x)``: a SelectedRows made
  dense, or with each row once.

Kernels are chosen by the tensor kind of the input that is read, then by
backend and dtype, like every phi kernel.
"""
from __future__ import annotations

from ..common.tensor_kind import TensorKind
from ..core import KERNELS, DenseTensor
from ..core.errors import InvalidArgumentError, describe_tensor
from .support import kernel_input

_DENSE, _SR = TensorKind.DENSE, TensorKind.SELECTED_ROWS
_SPARSE = (TensorKind.SPARSE_COO, TensorKind.SPARSE_CSR)  # eager.sparse's tensors (phi/kernels/sparse)
_assign = {kind: KERNELS.dispatch_table("assign", kind) for kind in (_DENSE, _SR) + _SPARSE}
_accumulate = {kind: KERNELS.dispatch_table("accumulate_", kind) for kind in (_DENSE, _SR) + _SPARSE}
_sparse_accumulate = {kind: KERNELS.dispatch_table("sparse_accumulate", kind) for kind in _SPARSE}
_zero = KERNELS.dispatch_table("zero_")
_to_dense = KERNELS.dispatch_table("selected_rows_to_dense", _SR)
_sr_add = KERNELS.dispatch_table("selected_rows_add", _SR)
_merge = KERNELS.dispatch_table("merge_selected_rows", _SR)
_to_dense_of = {kind: KERNELS.dispatch_table("sparse_to_dense", kind) for kind in _SPARSE}


def owned_copy(x):
    """A copy of x, of the same kind, owning its buffers."""
    out = _assign[x.kind][x.dispatch_key](kernel_input(x))
    return DenseTensor(out, x.layout) if x.kind is _DENSE else out


def accumulate_(acc, x):
    """acc + x (see the module doc); checked before anything is written."""
    if tuple(x.dims) != tuple(acc.dims) or x.dtype is not acc.dtype or x.place != acc.place:
        raise InvalidArgumentError(
            f"accumulate_: argument 'x' must match the accumulator 'acc': expected "
            f"{describe_tensor(acc)} on {acc.place}, got {describe_tensor(x)} on {x.place}")
    if acc.kind is _SR:
        if x.kind is _SR:
            return _sr_add[acc.dispatch_key](acc, x)
        return accumulate_(selected_rows_to_dense(acc), x)
    if acc.kind in _SPARSE:  # a sparse gradient: same kind adds up sparse, anything else makes it dense
        if x.kind is acc.kind:
            return _sparse_accumulate[acc.kind][acc.dispatch_key](acc, x)
        dense = DenseTensor(_to_dense_of[acc.kind][acc.dispatch_key](acc), acc.layout)
        return accumulate_(dense, x)
    _accumulate[x.kind][acc.dispatch_key](acc.array, kernel_input(x))
    acc.bump_version()
    return acc


def zero_(x):
    """x's buffer set to zeros in place (a dense x); its version is bumped."""
    if x.kind is not _DENSE:
        raise InvalidArgumentError(
            f"zero_: argument 'x' expected a dense tensor (zeroed in place, its buffer kept), "
            f"got a {x.kind} tensor {describe_tensor(x)}")
    _zero[x.dispatch_key](x.array)
    x.bump_version()
    return x


def _expect_selected_rows(op: str, x) -> None:
    if x.kind is not _SR:
        raise InvalidArgumentError(
            f"{op}: argument 'x' expected a selected_rows tensor, got a {x.kind} tensor "
            f"{describe_tensor(x)}")


def selected_rows_to_dense(x):
    """The dense tensor a SelectedRows stands for (repeated rows summed)."""
    _expect_selected_rows("selected_rows_to_dense", x)
    return DenseTensor(_to_dense[x.dispatch_key](x), x.layout)


def merge_selected_rows(x):
    """x with each row once, in increasing order, repeated rows summed."""
    _expect_selected_rows("merge_selected_rows", x)
    return _merge[x.dispatch_key](x)


__all__ = ["accumulate_", "merge_selected_rows", "owned_copy", "selected_rows_to_dense", "zero_"]
