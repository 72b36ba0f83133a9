"""Elementwise arithmetic of two sparse tensors (Paddle's paddle.sparse.add,
subtract, multiply, divide) and is_same_shape.

Both operands are of one kind (COO with COO, CSR with CSR), one shape and one
dtype. The result stores the union of both patterns, coalesced, each operand
taken as zero where it stores nothing; ``divide``, as Paddle's, stores every
position (x / 0 gives inf or nan there, as it does densely). Differentiable in
both.

>>> x = eager.sparse.sparse_coo_tensor([[0, 1]], [1.0, 2.0], [3])
>>> y = eager.sparse.sparse_coo_tensor([[1, 2]], [10.0, 20.0], [3])
>>> eager.sparse.add(x, y).to_dense().numpy()
array([ 1., 12., 20.], dtype=float32)
"""
from __future__ import annotations

from phi.api import sparse as phi_sparse
from phi.common import DataType
from phi.core.sparse_tensor import coo_from_parts, csr_from_parts

from ..composite import _paddle_api as _check
from ..generated import forward_api as _F
from ..tensor import Tensor
from ._core import COO, kind_name, coo_indices, expect_sparse, expect_tensor, from_values, values_of, zeros


def check_pair(op: str, x, y) -> None:
    """x and y: sparse, of one kind, shape and dtype (TypeError / ValueError naming op)."""
    expect_sparse(op, "x", x)
    expect_sparse(op, "y", y)
    if x.impl.kind is not y.impl.kind:
        raise TypeError(f"{op}: x and y must be of one sparse kind, got {kind_name(x.impl.kind)} and "
                        f"{kind_name(y.impl.kind)} (convert one with to_sparse_coo / to_sparse_csr)")
    if x.shape != y.shape:
        raise ValueError(f"{op}: x and y must have one shape, got {x.shape} and {y.shape}")
    if x.dtype != y.dtype:
        raise TypeError(f"{op}: x and y must have one dtype, got {x.dtype} and {y.dtype}")
    if x.impl.kind is COO and x.impl.sparse_dim != y.impl.sparse_dim:
        raise ValueError(f"{op}: x and y must have one sparse_dim, got {x.impl.sparse_dim} and {y.impl.sparse_dim}")


def pattern_of(kind, indices, values, shape):
    """A sparse pattern of ``kind`` for coalesced coordinates ``indices`` (phi tensors)."""
    if kind is COO:
        return coo_from_parts(indices, values, shape, coalesced=True)
    crows, cols = phi_sparse.coo_to_csr_pattern(indices, shape)
    return csr_from_parts(crows, cols, values, shape)


def on_union(op: str, x, y, fn, everywhere: bool = False):
    """fn(x's values, y's values) over the union of both patterns (over every
    position of the sparse dimensions when ``everywhere``)."""
    check_pair(op, x, y)
    ix, iy = coo_indices(x), coo_indices(y)
    sparse_dim = ix.shape[0]
    both = [ix, iy]
    if everywhere:  # every coordinate of the sparse dimensions, in row-major order
        grid = zeros(x.shape[:sparse_dim], DataType.BOOL, x.place)
        both.append(_F.transpose(_F.nonzero(_F.logical_not(grid)), [1, 0]))
    unique, inverse = phi_sparse.coalesce_pattern(_F.concat(both, 1).impl, x.shape[:sparse_dim])
    n, nx, ny = unique.dims[1], ix.shape[1], iy.shape[1]
    inverse = Tensor(inverse)
    vx, vy = values_of(x), values_of(y)
    block = [n] + vx.shape[1:]
    on_x = _F.index_add(zeros(block, vx.dtype, vx.place), inverse[:nx], vx, 0)
    on_y = _F.index_add(zeros(block, vy.dtype, vy.place), inverse[nx:nx + ny], vy, 0)
    out = fn(on_x, on_y)
    return from_values(out, pattern_of(x.impl.kind, unique, out.impl, x.shape))


@_check.composed_in("sparse")
def add(x, y, name=None):
    """x + y of two sparse tensors of one kind, shape and dtype (see the module doc)."""
    return on_union("sparse.add", x, y, _F.add)


@_check.composed_in("sparse")
def subtract(x, y, name=None):
    """x - y of two sparse tensors of one kind, shape and dtype (see the module doc)."""
    return on_union("sparse.subtract", x, y, _F.subtract)


@_check.composed_in("sparse")
def multiply(x, y, name=None):
    """x * y of two sparse tensors of one kind, shape and dtype (see the module doc)."""
    return on_union("sparse.multiply", x, y, _F.multiply)


@_check.composed_in("sparse")
def divide(x, y, name=None):
    """x / y of two sparse tensors of one kind, shape and dtype. As in Paddle the
    result stores every position: where neither stores a value it holds 0 / 0 = nan.

    >>> x = eager.sparse.sparse_coo_tensor([[1]], [3.0], [2])
    >>> eager.sparse.divide(x, eager.sparse.sparse_coo_tensor([[1]], [2.0], [2])).to_dense().numpy()
    array([nan, 1.5], dtype=float32)
    """
    return on_union("sparse.divide", x, y, _F.divide, everywhere=True)


def is_same_shape(x, y) -> bool:
    """Whether two tensors (sparse or dense) have one shape.

    >>> eager.sparse.is_same_shape(eager.ones([2, 3]), eager.ones([2, 3]).to_sparse_coo(2))
    True
    """
    expect_tensor("sparse.is_same_shape", "x", x)
    expect_tensor("sparse.is_same_shape", "y", y)
    return x.shape == y.shape


__all__ = ["add", "divide", "is_same_shape", "multiply", "subtract"]
