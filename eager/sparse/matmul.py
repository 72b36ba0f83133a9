"""Matrix products with sparse operands (Paddle's paddle.sparse.matmul,
masked_matmul, mv, addmm), 2-d or batched 3-d.

A sparse x times a dense y gathers y's rows at the entries' columns, scales
them by the values and adds them into the entries' rows (phi's
sparse_dense_matmul kernel): work and memory grow with nnz, and both the values
and y get gradients (y's is the transposed product). A sparse times a sparse
gives a sparse result whose pattern is that of the product's structure.

>>> x = eager.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
>>> eager.sparse.matmul(x, eager.to_tensor([[1.0, 1.0], [10.0, 10.0]])).numpy()
array([[20., 20.],
       [ 3.,  3.]], dtype=float32)
"""
from __future__ import annotations

from phi.api import sparse as phi_sparse

from ..arguments import to_float
from ..autograd.grad_mode import no_grad
from ..autograd.meta import records_gradient
from ..autograd.py_layer import PyLayer
from ..composite import _paddle_api as _check
from ..composite.spine import reshape_exactly  # _F.reshape reads a 0 as 'keep that dimension'
from ..generated import forward_api as _F
from ..tensor import Tensor
from ._core import (COO, DENSE, kind_name, coo_indices, expect_dense, expect_sparse, expect_tensor, from_values,
                    gather_at, to_dense, values_of)
from .binary import pattern_of


def _matrix_shapes(op: str, x, y, x_name="x", y_name="y"):
    if x.ndim not in (2, 3) or y.ndim != x.ndim:
        raise ValueError(f"{op}: {x_name} and {y_name} must both be 2-d, or both 3-d (batched), got shapes "
                         f"{x.shape} and {y.shape}")
    if x.shape[-1] != y.shape[-2]:
        raise ValueError(f"{op}: {x_name}'s last dimension must equal {y_name}'s second to last, got shapes "
                         f"{x.shape} and {y.shape}")
    if x.ndim == 3 and x.shape[0] != y.shape[0]:
        raise ValueError(f"{op}: {x_name} and {y_name} must have one batch size, got shapes {x.shape} and "
                         f"{y.shape}")
    if x.dtype != y.dtype:
        raise TypeError(f"{op}: {x_name} and {y_name} must have one dtype, got {x.dtype} and {y.dtype}")


def _inexact(op: str, x) -> None:
    """A sparse x times a dense operand runs phi's sparse_dense_matmul, which has
    floating and complex kernels only (as Paddle's): refuse others by the op's name."""
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise TypeError(f"{op}: argument 'x' expected a floating-point or complex sparse tensor when the other "
                        f"operand is dense, got {x.dtype}")


def _all_sparse_dims(op: str, x, arg="x") -> None:
    if x.impl.kind is COO and x.impl.sparse_dim != x.ndim:
        raise ValueError(f"{op}: argument '{arg}' must have every dimension sparse (values 1-d), got sparse_dim "
                         f"{x.impl.sparse_dim} of {x.ndim}")


def _flat_rows_cols(indices: Tensor, rows: int, cols: int):
    """(row, column) of each entry with the batch folded in: b * rows + i, b * cols + j."""
    if indices.shape[0] == 2:
        return indices[0], indices[1]
    return indices[0] * rows + indices[1], indices[0] * cols + indices[2]


class _SparseDenseMatmul(PyLayer):
    """A sparse matrix (values at rows, cols) times a dense 2-d y, by phi's kernel;
    its backward is written with differentiable ops (gradients of any order)."""

    @staticmethod
    def forward(ctx, values, y, rows, cols, out_rows):
        ctx.rows, ctx.cols, ctx.y_rows = rows, cols, y.shape[0]
        ctx.save_for_backward(values, y)
        return Tensor(phi_sparse.sparse_dense_matmul(values.impl, rows, cols, y.impl, out_rows))

    @staticmethod
    def backward(ctx, grad):
        values, y = ctx.saved_tensor()
        needs_values, needs_y = ctx.needs_input_grad
        grad_values = grad_y = None
        if values.dtype.is_complex:  # Paddle's complex gradients are conjugated, as the dense matmul's
            values, y = _F.conj(values), _F.conj(y)
        if needs_values:  # d out[rows[k]] / d values[k] = y[cols[k]]
            grad_values = _F.sum(_F.multiply(_F.index_select(grad, Tensor(ctx.rows), 0),
                                             _F.index_select(y, Tensor(ctx.cols), 0)), [1])
        if needs_y:  # the transposed product: x^T @ grad
            grad_y = spmm(values, grad, ctx.cols, ctx.rows, ctx.y_rows)
        return grad_values, grad_y


def spmm(values: Tensor, y: Tensor, rows, cols, out_rows: int) -> Tensor:
    """``out[rows[k]] += values[k] * y[cols[k]]`` (rows, cols: int64 phi tensors), out ``[out_rows, N]``."""
    if not (records_gradient(values) or records_gradient(y)):
        return Tensor(phi_sparse.sparse_dense_matmul(values.impl, rows, cols, y.impl, out_rows))
    return _SparseDenseMatmul.apply(values, y, rows, cols, out_rows)


def _sparse_dense(x, y) -> Tensor:
    m, k, n = x.shape[-2], x.shape[-1], y.shape[-1]
    batch = x.shape[0] if x.ndim == 3 else 1
    rows, cols = _flat_rows_cols(coo_indices(x), m, k)
    out = spmm(values_of(x), reshape_exactly(y, [batch * k, n]), rows.impl, cols.impl, batch * m)
    return reshape_exactly(out, x.shape[:-1] + [n])


def _structure(x) -> Tensor:
    """The dense 0/1 matrix of x's stored entries (no gradient)."""
    with no_grad():
        ones = _F.ones_like(Tensor(x.impl.values))
        return to_dense(from_values(ones, x.impl))


def _sparse_sparse(x, y) -> Tensor:
    product = _F.matmul(to_dense(x), to_dense(y))
    with no_grad():
        structure = _F.matmul(_structure(x), _structure(y))
    pattern = phi_sparse.dense_to_sparse_coo(structure.impl, x.ndim)
    values = gather_at(product, Tensor(pattern.indices))
    return from_values(values, pattern_of(x.impl.kind, pattern.indices, values.impl, product.shape))


@_check.composed_in("sparse")
def matmul(x, y, name=None):
    """x @ y for a sparse x (COO or CSR, 2-d or batched 3-d, every dimension sparse):
    with a dense y the result is dense; with a sparse y of x's kind it is sparse of
    that kind (its pattern: the entries the product's structure can reach)."""
    op = "sparse.matmul"
    expect_sparse(op, "x", x)
    expect_tensor(op, "y", y)
    _all_sparse_dims(op, x)
    _matrix_shapes(op, x, y)
    if y.impl.kind is DENSE:
        _inexact(op, x)
        return _sparse_dense(x, y)
    if y.impl.kind is not x.impl.kind:
        raise TypeError(f"{op}: a sparse y must be of x's kind, got {kind_name(x.impl.kind)} x and "
                        f"{kind_name(y.impl.kind)} y")
    _all_sparse_dims(op, y, "y")
    return _sparse_sparse(x, y)


@_check.composed_in("sparse")
def masked_matmul(x, y, mask, name=None):
    """(x @ y) at the entries of ``mask`` only: dense x ``[..., M, K]`` and y
    ``[..., K, N]``, a sparse mask (COO or CSR) ``[..., M, N]``; the result is
    sparse with mask's pattern, and costs nnz x K, not M x N x K.

    >>> mask = eager.sparse.sparse_csr_tensor([0, 1, 2], [1, 0], [1.0, 1.0], [2, 2])
    >>> out = eager.sparse.masked_matmul(eager.ones([2, 3]), eager.ones([3, 2]), mask)
    >>> out.values().numpy()
    array([3., 3.], dtype=float32)
    """
    op = "sparse.masked_matmul"
    expect_dense(op, "x", x)
    expect_dense(op, "y", y)
    expect_sparse(op, "mask", mask)
    _all_sparse_dims(op, mask, "mask")
    _matrix_shapes(op, x, y)
    if mask.shape != x.shape[:-1] + [y.shape[-1]]:
        raise ValueError(f"{op}: mask must have the product's shape {x.shape[:-1] + [y.shape[-1]]}, got "
                         f"{mask.shape}")
    m, k, n = x.shape[-2], x.shape[-1], y.shape[-1]
    batch = x.shape[0] if x.ndim == 3 else 1
    rows, cols = _flat_rows_cols(coo_indices(mask), m, n)
    y_by_column = reshape_exactly(_F.transpose(y, [1, 0] if y.ndim == 2 else [0, 2, 1]), [batch * n, k])
    left = _F.index_select(reshape_exactly(x, [batch * m, k]), rows, 0)
    right = _F.index_select(y_by_column, cols, 0)
    return from_values(_F.sum(_F.multiply(left, right), [1]), mask.impl)


@_check.composed_in("sparse")
def mv(x, vec, name=None):
    """x @ vec: a sparse 2-d x ``[M, N]`` (COO or CSR) times a dense vec ``[N]`` gives a dense ``[M]``.

    >>> x = eager.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
    >>> eager.sparse.mv(x, eager.to_tensor([1.0, 10.0])).numpy()
    array([20.,  3.], dtype=float32)
    """
    op = "sparse.mv"
    expect_sparse(op, "x", x)
    expect_dense(op, "vec", vec)
    if x.ndim != 2 or vec.ndim != 1:
        raise ValueError(f"{op}: x must be 2-d and vec 1-d, got shapes {x.shape} and {vec.shape}")
    _all_sparse_dims(op, x)
    column = _F.unsqueeze(vec, [1])
    _matrix_shapes(op, x, column, y_name="vec")
    _inexact(op, x)
    return _F.squeeze(_sparse_dense(x, column), [1])


@_check.composed_in("sparse")
def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """beta * input + alpha * (x @ y) for a dense input, a sparse x and a dense y
    (2-d or batched 3-d); the result is dense.

    >>> x = eager.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
    >>> eager.sparse.addmm(eager.ones([2, 1]), x, eager.ones([2, 1]), beta=0.5, alpha=2.0).numpy()
    array([[4.5],
           [6.5]], dtype=float32)
    """
    op = "sparse.addmm"
    expect_dense(op, "input", input)
    expect_sparse(op, "x", x)
    expect_dense(op, "y", y)
    beta, alpha = to_float(beta, op, "beta"), to_float(alpha, op, "alpha")
    _all_sparse_dims(op, x)
    _matrix_shapes(op, x, y)
    _inexact(op, x)
    product = _sparse_dense(x, y)
    if input.shape != product.shape or input.dtype != product.dtype:
        raise ValueError(f"{op}: input must match x @ y: expected {product.dtype}{product.shape}, got "
                         f"{input.dtype}{input.shape}")
    return _F.add(_F.scale(input, beta, 0.0, True), _F.scale(product, alpha, 0.0, True))


__all__ = ["addmm", "masked_matmul", "matmul", "mv"]
