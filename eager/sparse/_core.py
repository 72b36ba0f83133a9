"""The differentiable primitives every sparse op of eager.sparse is built from.

A sparse Tensor holds a phi SparseCooTensor or SparseCsrTensor as its ``impl``.
Its gradient is a sparse tensor of the same pattern, whose values are the
gradient of the stored values. Three links connect sparse tensors to the dense
ops that compute on their values:

- :func:`values_of` (x -> its values, a dense Tensor ``[nnz, ...]``),
- :func:`from_values` (values + a pattern -> a sparse Tensor),
- :func:`to_dense` (x -> the dense Tensor it stands for),

each a PyLayer whose backward is written with the others, so gradients of
gradients work too. An op then changes the pattern with phi's pattern kernels
(integers, no gradient) and the values with dense ops (gather, index_add,
elementwise math), which the engine differentiates as usual.

>>> x = eager.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2], stop_gradient=False)
>>> values_of(x).sum().backward()
>>> x.grad.to_dense().numpy()
array([[0., 1.],
       [1., 0.]], dtype=float32)
"""
from __future__ import annotations

from phi import api as phi_api
from phi.api import sparse as phi_sparse
from phi.common.tensor_kind import TensorKind
from phi.core.sparse_tensor import with_values

from ..arguments import bad_tensor
from ..autograd.meta import records_gradient
from ..autograd.py_layer import PyLayer
from ..generated import forward_api as _F
from ..tensor import Tensor

COO, CSR, DENSE = TensorKind.SPARSE_COO, TensorKind.SPARSE_CSR, TensorKind.DENSE


def is_sparse(x) -> bool:
    """Whether the Tensor x holds a sparse COO or CSR tensor."""
    return x.impl.kind is COO or x.impl.kind is CSR


def expect_tensor(op: str, arg: str, value) -> Tensor:
    """``value`` checked to be a Tensor (the project's TypeError naming op and arg otherwise)."""
    if not isinstance(value, Tensor):
        raise bad_tensor(op, arg, value)
    return value


def expect_sparse(op: str, arg: str, value, kinds=(COO, CSR)) -> Tensor:
    """``value`` checked to be a Tensor of one of ``kinds``; a TypeError naming op and arg otherwise."""
    expect_tensor(op, arg, value)
    if value.impl.kind not in kinds:
        wanted = " or ".join(kind_name(k) for k in kinds)
        raise TypeError(f"{op}: argument '{arg}' expected a {wanted} tensor, got a {kind_name(value.impl.kind)} "
                        f"tensor of shape {value.shape}"
                        + (" (convert it with to_sparse_coo(sparse_dim) or to_sparse_csr())"
                           if value.impl.kind is DENSE else ""))
    return value


def expect_dense(op: str, arg: str, value) -> Tensor:
    """``value`` checked to be a dense Tensor; a TypeError naming op and arg otherwise."""
    expect_tensor(op, arg, value)
    if value.impl.kind is not DENSE:
        raise TypeError(f"{op}: argument '{arg}' expected a dense tensor, got a {kind_name(value.impl.kind)} "
                        f"tensor of shape {value.shape} (convert it with to_dense())")
    return value


def kind_name(kind) -> str:
    """'sparse COO', 'sparse CSR' or 'dense', for messages."""
    return {COO: "sparse COO", CSR: "sparse CSR", DENSE: "dense"}.get(kind, str(kind))


def zeros(shape, dtype, place) -> Tensor:
    """A dense zero Tensor on ``place``."""
    return Tensor(phi_api.full(list(shape), 0, dtype, place))


def coo_indices(x) -> Tensor:
    """The coordinates ``[sparse_dim, nnz]`` of x's entries (COO, or CSR's rows and columns)."""
    return Tensor(phi_sparse.coo_indices(x.impl))


class _Values(PyLayer):
    """x -> its stored values; the gradient is sparse, of x's pattern."""

    @staticmethod
    def forward(ctx, x):
        ctx.pattern = x.impl
        return Tensor(x.impl.values)

    @staticmethod
    def backward(ctx, grad):
        return from_values(grad, ctx.pattern)


class _FromValues(PyLayer):
    """values -> a sparse tensor of a given pattern; the gradient is the values of
    the incoming sparse gradient (on the pattern's entries)."""

    @staticmethod
    def forward(ctx, values, pattern):
        ctx.pattern = pattern
        return Tensor(with_values(pattern, values.impl))

    @staticmethod
    def backward(ctx, grad):
        return values_on_pattern(grad, ctx.pattern)


def values_of(x: Tensor) -> Tensor:
    """x's stored values, differentiable (the gradient reaches x as a sparse tensor)."""
    if not records_gradient(x):  # also an integer x flagged stop_gradient=False: no gradient flows
        return Tensor(x.impl.values)
    return _Values.apply(x)


def from_values(values: Tensor, pattern) -> Tensor:
    """A sparse Tensor of ``pattern``'s kind, coordinates and shape holding ``values``."""
    if not records_gradient(values):
        return Tensor(with_values(pattern, values.impl))
    return _FromValues.apply(values, pattern)


def values_on_pattern(grad: Tensor, pattern) -> Tensor:
    """The values of ``grad`` (sparse or dense, of the pattern's shape) at the pattern's entries."""
    impl = grad.impl
    if impl.kind is pattern.kind and _same_pattern(impl, pattern):
        return values_of(grad)
    dense = to_dense(grad) if is_sparse(grad) else grad
    return gather_at(dense, Tensor(phi_sparse.coo_indices(pattern)))


def _same_pattern(a, b) -> bool:
    if a.kind is COO:
        return a.indices is b.indices or (a.indices.dims == b.indices.dims
                                          and bool(phi_api.equal_all(a.indices, b.indices).array))
    return (a.cols is b.cols and a.crows is b.crows) or (
        a.cols.dims == b.cols.dims and bool(phi_api.equal_all(a.cols, b.cols).array)
        and bool(phi_api.equal_all(a.crows, b.crows).array))


def gather_at(dense: Tensor, indices: Tensor) -> Tensor:
    """The entries (or dense blocks) of ``dense`` at the coordinate columns of ``indices``."""
    return _F.gather_nd(dense, _F.transpose(indices, [1, 0]))


def to_dense(x: Tensor) -> Tensor:
    """The dense Tensor a sparse one stands for (repeated coordinates add up); differentiable."""
    if not records_gradient(x):
        return Tensor(phi_sparse.sparse_to_dense(x.impl))
    indices = coo_indices(x)
    return _F.scatter_nd_add(zeros(x.shape, x.dtype, x.place), _F.transpose(indices, [1, 0]), values_of(x))


__all__ = ["coo_indices", "expect_dense", "expect_sparse", "from_values", "gather_at", "is_sparse", "kind_name",
           "to_dense", "values_of", "values_on_pattern", "zeros"]
