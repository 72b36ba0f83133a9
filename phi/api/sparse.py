"""The phi API of sparse tensors (no autograd): conversions between dense,
SparseCooTensor and SparseCsrTensor, and the pattern functions eager.sparse
composes its ops with. Each picks its kernel by the input's kind, backend and
dtype, like every phi API function.

>>> import numpy as np
>>> from phi.core import DenseTensor
>>> coo = dense_to_sparse_coo(DenseTensor(np.array([[0.0, 2.0], [3.0, 0.0]])), 2)
>>> coo.indices.array.tolist(), coo.values.array.tolist()
([[0, 1], [1, 0]], [2.0, 3.0])
"""
from __future__ import annotations

from ..common.tensor_kind import TensorKind
from ..core import KERNELS, DenseTensor
from ..core.errors import InvalidArgumentError, describe_tensor
from ..core.sparse_tensor import SparseCooTensor, coo_from_parts, csr_from_parts
from .buffers import copy_to

COO, CSR, DENSE = TensorKind.SPARSE_COO, TensorKind.SPARSE_CSR, TensorKind.DENSE
_to_dense = {COO: KERNELS.dispatch_table("sparse_to_dense", COO), CSR: KERNELS.dispatch_table("sparse_to_dense", CSR)}
_dense_to_coo = KERNELS.dispatch_table("dense_to_sparse_coo")
_coalesce = KERNELS.dispatch_table("sparse_coalesce_pattern")
_coo_to_csr = KERNELS.dispatch_table("sparse_coo_to_csr_pattern")
_csr_to_coo = KERNELS.dispatch_table("sparse_csr_to_coo_pattern")
_reshape = KERNELS.dispatch_table("sparse_reshape_pattern")
_rulebook = KERNELS.dispatch_table("sparse_conv3d_rulebook")
_spmm = KERNELS.dispatch_table("sparse_dense_matmul")


def is_sparse(x) -> bool:
    """Whether x is a SparseCooTensor or a SparseCsrTensor."""
    return x.kind is COO or x.kind is CSR


def _expect(op: str, x, kinds) -> None:
    if x.kind not in kinds:
        wanted = " or ".join(str(k) for k in kinds)
        raise InvalidArgumentError(f"{op}: argument 'x' expected a {wanted} tensor, got a {x.kind} tensor "
                                   f"{describe_tensor(x)}")


def sparse_to_dense(x) -> DenseTensor:
    """The dense tensor a sparse one stands for (repeated coordinates summed)."""
    _expect("sparse_to_dense", x, (COO, CSR))
    return DenseTensor(_to_dense[x.kind][x.dispatch_key](x), x.layout)


def dense_to_sparse_coo(x, sparse_dim: int) -> SparseCooTensor:
    """x's nonzero entries over its first ``sparse_dim`` axes, coalesced."""
    _expect("dense_to_sparse_coo", x, (DENSE,))
    indices, values = _dense_to_coo[x.dispatch_key](x.array, sparse_dim)
    return SparseCooTensor(DenseTensor(indices), DenseTensor(values, x.layout), x.dims, coalesced=True)


def coalesce_pattern(indices: DenseTensor, shape) -> tuple:
    """(distinct coordinates in row-major order, position of each entry among them)."""
    unique, inverse = _coalesce[indices.dispatch_key](indices.array, tuple(shape))
    return DenseTensor(unique), DenseTensor(inverse)


def coo_to_csr_pattern(indices: DenseTensor, shape) -> tuple:
    """(crows, cols) of coalesced coordinates of a 2-d or 3-d tensor."""
    crows, cols = _coo_to_csr[indices.dispatch_key](indices.array, tuple(shape))
    return DenseTensor(crows), DenseTensor(cols)


def reshape_pattern(indices: DenseTensor, shape, new_shape) -> DenseTensor:
    """The coordinates in ``new_shape`` of the entries at ``indices`` of ``shape`` (same sizes)."""
    return DenseTensor(_reshape[indices.dispatch_key](indices.array, tuple(shape), tuple(new_shape)))


def conv3d_rulebook(indices: DenseTensor, dims, out_spatial, kernel_size, stride, padding, dilation,
                    subm: bool) -> tuple:
    """The pairs of a sparse 3-d convolution (see the kernel): ``(out_indices,
    in_pos, out_pos)`` as DenseTensors and the pair count per kernel offset (host ints)."""
    out_indices, in_pos, out_pos, counts = _rulebook[indices.dispatch_key](
        indices.array, tuple(dims), tuple(out_spatial), tuple(kernel_size), tuple(stride), tuple(padding),
        tuple(dilation), bool(subm))
    return DenseTensor(out_indices), DenseTensor(in_pos), DenseTensor(out_pos), [int(c) for c in counts]


def sparse_dense_matmul(values: DenseTensor, rows: DenseTensor, cols: DenseTensor, y: DenseTensor,
                        out_rows: int) -> DenseTensor:
    """``out[rows[k]] += values[k] * y[cols[k]]`` for a dense 2-d y, out ``[out_rows, y.shape[1]]``."""
    if values.dtype is not y.dtype:
        raise InvalidArgumentError(f"sparse_dense_matmul: values and y must have one dtype, got {values.dtype} "
                                   f"and {y.dtype}")
    return DenseTensor(_spmm[values.dispatch_key](values.array, rows.array, cols.array, y.array, int(out_rows)))


def coo_indices(x) -> DenseTensor:
    """The coordinates ``[sparse_dim, nnz]`` of a sparse tensor's entries, in its order."""
    _expect("coo_indices", x, (COO, CSR))
    if x.kind is COO:
        return x.indices
    return DenseTensor(_csr_to_coo[x.crows.dispatch_key](x.crows.array, x.cols.array, x.dims))


def sparse_copy_to(x, place):
    """A sparse tensor of x's kind with each part copied to ``place`` (buffers of its own)."""
    _expect("sparse_copy_to", x, (COO, CSR))
    values = copy_to(x.values, place)
    if x.kind is COO:
        return coo_from_parts(copy_to(x.indices, place), values, x.dims, x.coalesced)
    return csr_from_parts(copy_to(x.crows, place), copy_to(x.cols, place), values, x.dims)


__all__ = ["coalesce_pattern", "conv3d_rulebook", "coo_indices", "coo_to_csr_pattern", "dense_to_sparse_coo",
           "is_sparse", "reshape_pattern", "sparse_copy_to", "sparse_dense_matmul", "sparse_to_dense"]
