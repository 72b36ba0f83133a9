"""Kernels between the sparse kinds and dense, and the accumulation rules of a
sparse gradient (as phi/kernels/selected_rows.py has for SelectedRows).

Registered by kind: ``sparse_to_dense``, ``assign``, ``accumulate_`` (a dense
accumulator += a sparse tensor) and ``sparse_accumulate`` (sparse + sparse of
one kind) for SPARSE_COO and SPARSE_CSR; ``dense_to_sparse_coo`` for DENSE.
"""
import numpy as np

from ...common.tensor_kind import TensorKind
from ...core.dense_tensor import DenseTensor
from ...core.kernel_registry import register_kernel
from ...core.sparse_tensor import SparseCooTensor, SparseCsrTensor
from ..dtypes import ALL_BACKENDS, ALL_TYPES, NUMERIC
from ..funcs import scatter_add
from .pattern import linear_index, sparse_coalesce_pattern, sparse_coo_to_csr_pattern, sparse_csr_to_coo_pattern, unravel

COO, CSR = TensorKind.SPARSE_COO, TensorKind.SPARSE_CSR


def coo_indices(ctx, x):
    """The coordinates ``[sparse_dim, nnz]`` of x's entries (COO or CSR), in x's order."""
    if x.kind is COO:
        return x.indices.array
    return sparse_csr_to_coo_pattern(ctx, x.crows.array, x.cols.array, x.dims)


def _scatter_dense(ctx, x):
    xp = ctx.xp
    indices = coo_indices(ctx, x)
    sparse_dim = indices.shape[0]
    values = x.values.array
    flat = xp.zeros((int(np.prod(x.dims[:sparse_dim], dtype=np.int64)),) + tuple(x.dims[sparse_dim:]),
                    dtype=values.dtype)
    scatter_add(xp, flat, linear_index(xp, indices, x.dims[:sparse_dim]), values)
    return flat.reshape(x.dims)


@register_kernel("sparse_to_dense", ALL_BACKENDS, ALL_TYPES, kind=COO)
def coo_to_dense(ctx, x):
    return _scatter_dense(ctx, x)


@register_kernel("sparse_to_dense", ALL_BACKENDS, ALL_TYPES, kind=CSR)
def csr_to_dense(ctx, x):
    return _scatter_dense(ctx, x)


@register_kernel("dense_to_sparse_coo", ALL_BACKENDS, ALL_TYPES)
def dense_to_sparse_coo(ctx, x, sparse_dim):
    """(indices, values) of x's nonzero entries over its first ``sparse_dim`` axes
    (a block counts when any of its elements is nonzero), in row-major order."""
    xp = ctx.xp
    shape = x.shape
    # Both sizes spelled out: with -1, a tensor with a 0-length sparse axis (nothing stored)
    # cannot be reshaped (NumPy cannot infer -1 from 0 elements).
    blocks = x.reshape((int(np.prod(shape[:sparse_dim], dtype=np.int64)),
                        int(np.prod(shape[sparse_dim:], dtype=np.int64))))
    nonzero = xp.nonzero((blocks != 0).any(axis=1))[0].astype(np.int64)
    values = blocks[nonzero].reshape((nonzero.shape[0],) + tuple(shape[sparse_dim:]))
    return unravel(xp, nonzero, shape[:sparse_dim]), values


@register_kernel("assign", ALL_BACKENDS, ALL_TYPES, kind=COO)
def assign_coo(ctx, x):
    return SparseCooTensor(DenseTensor(x.indices.array.copy()), DenseTensor(x.values.array.copy()),
                           x.dims, x.coalesced)


@register_kernel("assign", ALL_BACKENDS, ALL_TYPES, kind=CSR)
def assign_csr(ctx, x):
    return SparseCsrTensor(DenseTensor(x.crows.array.copy()), DenseTensor(x.cols.array.copy()),
                           DenseTensor(x.values.array.copy()), x.dims)


def _accumulate_into_dense(ctx, acc, x):
    """A dense acc += x, each entry added at its coordinates (repeats add)."""
    xp = ctx.xp
    indices = coo_indices(ctx, x)
    sparse_dim = indices.shape[0]
    flat = acc.reshape((-1,) + tuple(acc.shape[sparse_dim:]))
    scatter_add(xp, flat, linear_index(xp, indices, acc.shape[:sparse_dim]), x.values.array)
    return acc


register_kernel("accumulate_", ALL_BACKENDS, NUMERIC, kind=COO)(_accumulate_into_dense)
register_kernel("accumulate_", ALL_BACKENDS, NUMERIC, kind=CSR)(_accumulate_into_dense)


def _same_pattern(xp, a, b) -> bool:
    return a.shape == b.shape and bool(xp.all(a == b))


@register_kernel("sparse_accumulate", ALL_BACKENDS, NUMERIC, kind=COO)
def sparse_accumulate_coo(ctx, acc, x):
    """acc + x, two COO tensors of one shape: the values added when the coordinates
    are the same, otherwise the entries side by side (repeats add up)."""
    xp = ctx.xp
    a, b = acc.indices.array, x.indices.array
    if _same_pattern(xp, a, b):
        return SparseCooTensor(DenseTensor(a.copy()), DenseTensor(acc.values.array + x.values.array),
                               acc.dims, acc.coalesced)
    return SparseCooTensor(DenseTensor(xp.concatenate([a, b], axis=1)),
                           DenseTensor(xp.concatenate([acc.values.array, x.values.array])), acc.dims)


@register_kernel("sparse_accumulate", ALL_BACKENDS, NUMERIC, kind=CSR)
def sparse_accumulate_csr(ctx, acc, x):
    """acc + x, two CSR tensors of one shape: the values added when the patterns are
    the same, otherwise the union of both patterns."""
    xp = ctx.xp
    if _same_pattern(xp, acc.crows.array, x.crows.array) and _same_pattern(xp, acc.cols.array, x.cols.array):
        return SparseCsrTensor(DenseTensor(acc.crows.array.copy()), DenseTensor(acc.cols.array.copy()),
                               DenseTensor(acc.values.array + x.values.array), acc.dims)
    both = xp.concatenate([coo_indices(ctx, acc), coo_indices(ctx, x)], axis=1)
    unique, inverse = sparse_coalesce_pattern(ctx, both, acc.dims)
    values = xp.zeros(unique.shape[1], dtype=acc.values.array.dtype)
    scatter_add(xp, values, inverse, xp.concatenate([acc.values.array, x.values.array]))
    crows, cols = sparse_coo_to_csr_pattern(ctx, unique, acc.dims)
    return SparseCsrTensor(DenseTensor(crows), DenseTensor(cols), DenseTensor(values), acc.dims)
