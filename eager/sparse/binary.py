"""Elementwise arithmetic of sparse tensors (Paddle's paddle.sparse.add,
subtract, multiply, divide) and is_same_shape.

Two sparse operands are of one kind (COO with COO, CSR with CSR) and one
shape; as in Paddle, y is cast to x's dtype when theirs differ. The result
stores the union of both patterns, coalesced, each operand taken as zero where
it stores nothing; ``divide``, as Paddle's, stores every position (x / 0 gives
inf or nan there, as it does densely). Paddle's other forms: ``multiply`` and
``divide`` take a Python number y (x's pattern kept; an integer x is divided
in float32), and ``add`` takes a dense 1-D y added to every stored value block
of a hybrid COO x (a bias over the last, dense, dimension). Differentiable in
every tensor operand.

>>> x = eager.sparse.sparse_coo_tensor([[0, 1]], [1.0, 2.0], [3])
>>> y = eager.sparse.sparse_coo_tensor([[1, 2]], [10.0, 20.0], [3])
>>> eager.sparse.add(x, y).to_dense().numpy()
array([ 1., 12., 20.], dtype=float32)
"""
from __future__ import annotations

import importlib

from phi.api import sparse as phi_sparse
from phi.common import DataType
from phi.core.sparse_tensor import coo_from_parts, csr_from_parts

from ..composite import _paddle_api as _check
from ..generated import forward_api as _F
from ..tensor import Tensor
from ._core import COO, DENSE, kind_name, coo_indices, expect_sparse, expect_tensor, from_values, values_of, zeros
from .unary import apply_to_values, cast


def check_pair(op: str, x, y):
    """y, checked against x: both sparse, of one kind and shape (TypeError /
    ValueError naming op); cast to x's dtype where theirs differ, as Paddle does."""
    expect_sparse(op, "x", x)
    expect_sparse(op, "y", y)
    if x.impl.kind is not y.impl.kind:
        raise TypeError(f"{op}: x and y must be of one sparse kind, got {kind_name(x.impl.kind)} and "
                        f"{kind_name(y.impl.kind)} (convert one with to_sparse_coo / to_sparse_csr)")
    if x.shape != y.shape:
        raise ValueError(f"{op}: x and y must have one shape, got {x.shape} and {y.shape}")
    if x.impl.kind is COO and x.impl.sparse_dim != y.impl.sparse_dim:
        raise ValueError(f"{op}: x and y must have one sparse_dim, got {x.impl.sparse_dim} and {y.impl.sparse_dim}")
    return y if y.dtype == x.dtype else cast(y, None, x.dtype)


def is_number(value) -> bool:
    """Whether ``value`` is a number Paddle's sparse multiply and divide take as a scalar
    (a Python int or float, NumPy's float64 included)."""
    return isinstance(value, (int, float))


def pattern_of(kind, indices, values, shape):
    """A sparse pattern of ``kind`` for coalesced coordinates ``indices`` (phi tensors)."""
    if kind is COO:
        return coo_from_parts(indices, values, shape, coalesced=True)
    crows, cols = phi_sparse.coo_to_csr_pattern(indices, shape)
    return csr_from_parts(crows, cols, values, shape)


def on_union(op: str, x, y, fn, everywhere: bool = False):
    """fn(x's values, y's values) over the union of both patterns (over every
    position of the sparse dimensions when ``everywhere``)."""
    y = check_pair(op, x, y)
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
    """x + y: two sparse tensors of one kind and shape (y cast to x's dtype), or a
    hybrid COO x and a dense 1-D y of x's last (dense) dimension, added to every
    stored value block (see the module doc).

    >>> x = eager.sparse.sparse_coo_tensor([[0, 1]], [[1.0, 2.0], [3.0, 4.0]], [3, 2])
    >>> eager.sparse.add(x, eager.to_tensor([10.0, 20.0])).values().numpy()
    array([[11., 22.],
           [13., 24.]], dtype=float32)
    """
    op = "sparse.add"
    expect_tensor(op, "y", y)
    if y.impl.kind is DENSE:
        return _add_dense(op, x, y)
    return on_union(op, x, y, _F.add)


def _add_dense(op: str, x, y):
    """Paddle's add_coo_dense: y (1-D, x's last dimension) added to each stored block."""
    expect_sparse(op, "x", x, kinds=(COO,))
    dense_dims = x.ndim - x.impl.sparse_dim
    if dense_dims < 1:
        raise ValueError(f"{op}: a dense y is added to every stored value block of a hybrid COO x, so x needs a "
                         f"dense last dimension (sparse_dim < ndim); x has shape {x.shape} and sparse_dim "
                         f"{x.impl.sparse_dim} (add two sparse tensors, or convert x with to_dense())")
    if y.ndim != 1 or y.shape[0] != x.shape[-1]:
        raise ValueError(f"{op}: a dense y must be 1-D of x's last dimension {x.shape[-1]} (a bias), got shape "
                         f"{y.shape}")
    if y.dtype != x.dtype:
        y = _F.cast(y, x.dtype)
    return apply_to_values(op, x, lambda values: _F.add(values, y))


@_check.composed_in("sparse")
def subtract(x, y, name=None):
    """x - y of two sparse tensors of one kind and shape, y cast to x's dtype (see the module doc)."""
    return on_union("sparse.subtract", x, y, _F.subtract)


@_check.composed_in("sparse")
def multiply(x, y, name=None):
    """x * y of two sparse tensors of one kind and shape (y cast to x's dtype), or of
    a sparse x and a Python number y (x's pattern kept, x's dtype kept: as Paddle's
    scale kernel, an integer x takes y cast to its dtype, so 2.5 multiplies by 2).

    >>> x = eager.sparse.sparse_coo_tensor([[0, 2]], [1.0, 2.0], [3])
    >>> eager.sparse.multiply(x, 3).to_dense().numpy()
    array([3., 0., 6.], dtype=float32)
    """
    op = "sparse.multiply"
    expect_sparse(op, "x", x)
    if is_number(y):
        floating = x.dtype.is_floating_point or x.dtype.is_complex
        factor = float(y) if floating else float(int(y))
        return apply_to_values(op, x, lambda values: _F.scale(values, factor, 0.0, True))
    return on_union(op, x, y, _F.multiply)


@_check.composed_in("sparse")
def divide(x, y, name=None):
    """x / y of two sparse tensors of one kind and shape (y cast to x's dtype), or of
    a sparse x and a Python number y (x's pattern kept). An integer x is divided in
    float32, as in Paddle. With two sparse tensors the result stores every position:
    where neither stores a value it holds 0 / 0 = nan.

    >>> x = eager.sparse.sparse_coo_tensor([[1]], [3.0], [2])
    >>> eager.sparse.divide(x, eager.sparse.sparse_coo_tensor([[1]], [2.0], [2])).to_dense().numpy()
    array([nan, 1.5], dtype=float32)
    >>> eager.sparse.divide(x, 2).to_dense().numpy()
    array([0. , 1.5], dtype=float32)
    """
    op = "sparse.divide"
    expect_sparse(op, "x", x)
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = cast(x, None, DataType.FLOAT32)
    if is_number(y):
        divisor = float(y)
        return apply_to_values(op, x, lambda values: _F.divide(values, _F.full([], divisor, values.dtype,
                                                                               values.place)))
    return on_union(op, x, y, _F.divide, everywhere=True)


def is_same_shape(x, y) -> bool:
    """Whether two tensors (sparse or dense) have one shape.

    >>> eager.sparse.is_same_shape(eager.ones([2, 3]), eager.ones([2, 3]).to_sparse_coo(2))
    True
    """
    expect_tensor("sparse.is_same_shape", "x", x)
    expect_tensor("sparse.is_same_shape", "y", y)
    return x.shape == y.shape


__all__ = ["add", "divide", "is_same_shape", "multiply", "subtract"]

# Paddle's paddle.sparse.binary also holds matmul, masked_matmul and mv; they live in
# eager/sparse/matmul.py, which imports this module, so they are looked up on first use
# (importlib rather than an import statement, which the cycle would break).
_FROM_MATMUL = ("masked_matmul", "matmul", "mv")


def __getattr__(name):
    if name in _FROM_MATMUL:  # by full name: the package's own `matmul` is the function
        return getattr(importlib.import_module(f"{__package__}.matmul"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
