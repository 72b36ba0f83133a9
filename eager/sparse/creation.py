"""Making sparse tensors and converting between dense, COO and CSR
(Paddle's paddle.sparse.sparse_coo_tensor / sparse_csr_tensor and the Tensor
methods to_dense, to_sparse_coo, to_sparse_csr, coalesce, indices, values,
crows, cols, nnz). Every conversion is differentiable in the values.

>>> x = eager.sparse.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [1.0, 2.0, 3.0], [2, 3])
>>> x.to_dense().numpy()
array([[0., 0., 1.],
       [2., 0., 3.]], dtype=float32)
>>> y = x.to_sparse_csr()
>>> y.crows().numpy(), y.cols().numpy()
(array([0, 1, 3]), array([2, 0, 2]))
"""
from __future__ import annotations

import numpy as np

from phi.api import sparse as phi_sparse
from phi.core.sparse_tensor import SparseCooTensor, SparseCsrTensor, coo_from_parts, csr_from_parts

from ..arguments import to_bool, to_dtype, to_int, to_int_array, to_place
from ..autograd import hooks
from ..autograd.meta import records_gradient
from ..autograd.py_layer import PyLayer
from ..composite import _paddle_api as _check
from ..creation import to_tensor
from ..generated import forward_api as _F
from ..tensor import Tensor
from ._core import COO, CSR, DENSE, expect_sparse, expect_tensor, from_values, to_dense, values_of, zeros


def _index_array(op: str, arg: str, value, place) -> Tensor:
    """``value`` (a Tensor, list or array of integers) as an int Tensor on ``place``."""
    if isinstance(value, Tensor):
        if not value.dtype.is_integer:
            raise TypeError(f"{op}: argument '{arg}' expected an integer tensor, got {value.dtype}")
        return value if value.place == place else value.to(place)
    try:
        array = np.asarray(value)
    except ValueError:  # ragged nesting
        raise ValueError(f"{op}: argument '{arg}' expected a rectangular array of integers, got {value!r}") from None
    if array.size and array.dtype.kind not in "iu":
        raise TypeError(f"{op}: argument '{arg}' expected integers, got {array.dtype} values")
    return to_tensor(array.astype(np.int64), place=place)


def _values_tensor(op: str, values, dtype, place) -> Tensor:
    """``values`` as a Tensor of ``dtype`` (None: as it is) on ``place`` (None: where it is)."""
    if dtype is False:  # Paddle reads a falsy dtype as None; its own tests pass stop_gradient=False there
        dtype = None
    dtype = to_dtype(dtype, op, "dtype")
    if isinstance(values, Tensor):
        if dtype is not None and values.dtype != dtype:
            values = _F.cast(values, dtype)
        place = None if place is None else to_place(place, op, "place")
        return values if place is None or values.place == place else values.to(place)
    return to_tensor(values, dtype=dtype, place=place)


def _finish(op: str, impl, values: Tensor, stop_gradient) -> Tensor:
    """The new sparse Tensor: differentiable in ``values`` when they need a gradient
    and stop_gradient is False; a new leaf otherwise (as Paddle's creation ops)."""
    stop_gradient = to_bool(stop_gradient, op, "stop_gradient")
    if not stop_gradient and records_gradient(values):
        return from_values(values, impl)
    out = Tensor(impl)
    if not stop_gradient:
        out.stop_gradient = False
    return out


@_check.composed_in("sparse")
def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None, stop_gradient=True):
    """A sparse COO tensor with ``values[k]`` at the coordinates ``indices[:, k]``.

    ``indices`` is ``[sparse_dim, nnz]`` integers, ``values`` ``[nnz, ...]`` (a
    Tensor, list or array); ``shape`` defaults to the smallest that holds every
    coordinate. Repeated coordinates are kept and add up (see :func:`coalesce`).

    >>> x = eager.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [5.0, 6.0], [2, 2])
    >>> x.is_sparse_coo(), x.nnz()
    (True, 2)
    """
    op = "sparse.sparse_coo_tensor"
    values = _values_tensor(op, values, dtype, place)
    indices = _index_array(op, "indices", indices, values.place)
    if indices.ndim != 2:
        raise ValueError(f"{op}: argument 'indices' expected a 2-d [sparse_dim, nnz] array, got shape "
                         f"{indices.shape}")
    if shape is None:
        if indices.shape[1] == 0:
            raise ValueError(f"{op}: argument 'shape' is needed when there are no entries")
        high = indices.numpy().max(axis=1) + 1
        shape = [int(h) for h in high] + list(values.shape[1:])
    shape = to_int_array(shape, op, "shape")
    impl = SparseCooTensor(indices.impl, values.impl, shape, check_range=True, op=op)
    return _finish(op, impl, values, stop_gradient)


@_check.composed_in("sparse")
def sparse_csr_tensor(crows, cols, values, shape, dtype=None, place=None, stop_gradient=True):
    """A sparse CSR tensor (2-d ``[M, N]``, or 3-d ``[B, M, N]`` batched): row i's
    entries are ``values[crows[i]:crows[i+1]]`` at columns ``cols[crows[i]:crows[i+1]]``.

    >>> x = eager.sparse.sparse_csr_tensor([0, 1, 3], [2, 0, 2], [1.0, 2.0, 3.0], [2, 3])
    >>> x.to_dense().numpy()
    array([[0., 0., 1.],
           [2., 0., 3.]], dtype=float32)
    """
    op = "sparse.sparse_csr_tensor"
    values = _values_tensor(op, values, dtype, place)
    crows = _index_array(op, "crows", crows, values.place)
    cols = _index_array(op, "cols", cols, values.place)
    impl = SparseCsrTensor(crows.impl, cols.impl, values.impl, to_int_array(shape, op, "shape"), check_range=True,
                           op=op)
    return _finish(op, impl, values, stop_gradient)


def to_sparse_coo(x, sparse_dim):
    """x as a sparse COO tensor: a dense x keeps its nonzero entries over its first
    ``sparse_dim`` axes (a block with any nonzero counts); a CSR x is re-coded."""
    op = "to_sparse_coo"
    expect_tensor(op, "x", x)
    sparse_dim = to_int(sparse_dim, op, "sparse_dim")
    kind = x.impl.kind
    if kind is COO:
        if sparse_dim != x.impl.sparse_dim:
            raise ValueError(f"{op}: x is a COO tensor with sparse_dim {x.impl.sparse_dim}, got sparse_dim "
                             f"{sparse_dim} (go through to_dense() to change it)")
        return x
    if kind is CSR:
        if sparse_dim != x.ndim:
            raise ValueError(f"{op}: a CSR tensor converts with sparse_dim = its rank {x.ndim}, got {sparse_dim}")
        pattern = coo_from_parts(phi_sparse.coo_indices(x.impl), x.impl.values, x.shape, coalesced=False)
        return from_values(values_of(x), pattern)
    if not 1 <= sparse_dim <= x.ndim:
        raise ValueError(f"{op}: argument 'sparse_dim' expected an int in [1, {x.ndim}] for a tensor of shape "
                         f"{x.shape}, got {sparse_dim}")
    pattern = phi_sparse.dense_to_sparse_coo(x.impl, sparse_dim)
    if not records_gradient(x):
        return Tensor(pattern)
    return _DenseToCoo.apply(x, pattern)


class _DenseToCoo(PyLayer):
    """A dense x -> its COO form. The COO tensor stands for x itself, whatever x
    is, so the gradient is the incoming one made dense, entries off the pattern
    included (as Paddle's to_sparse_coo grad, coo_to_dense of out_grad)."""

    @staticmethod
    def forward(ctx, x, pattern):
        return Tensor(pattern)

    @staticmethod
    def backward(ctx, grad):
        return to_dense(grad) if grad.impl.kind is not DENSE else grad


def to_sparse_csr(x):
    """x as a sparse CSR tensor (2-d or 3-d); a COO x is coalesced first."""
    op = "to_sparse_csr"
    expect_tensor(op, "x", x)
    kind = x.impl.kind
    if kind is CSR:
        return x
    if x.ndim not in (2, 3):
        raise ValueError(f"{op}: a CSR tensor is 2-d or 3-d, got shape {x.shape}")
    if kind is DENSE:
        x = to_sparse_coo(x, x.ndim)
    elif x.impl.sparse_dim != x.ndim:
        raise ValueError(f"{op}: a COO tensor converts to CSR when all its dimensions are sparse; this one has "
                         f"sparse_dim {x.impl.sparse_dim} of {x.ndim}")
    x = coalesce(x)
    crows, cols = phi_sparse.coo_to_csr_pattern(x.impl.indices, x.shape)
    out = from_values(values_of(x), csr_from_parts(crows, cols, x.impl.values, x.shape))
    if not out.stop_gradient:
        # Paddle's result is a new leaf (no backward), so Paddle code reads its .grad;
        # eager also passes the gradient on to x.
        hooks.retain_grads(out)
    return out


@_check.composed_in("sparse")
def coalesce(x, name=None):
    """x with each coordinate once, in row-major order, repeated entries summed.

    >>> x = eager.sparse.sparse_coo_tensor([[1, 0, 1]], [1.0, 2.0, 3.0], [2])
    >>> y = eager.sparse.coalesce(x)
    >>> y.indices().numpy(), y.values().numpy()
    (array([[0, 1]]), array([2., 4.], dtype=float32))
    """
    expect_sparse("sparse.coalesce", "x", x, (COO,))
    impl = x.impl
    if impl.coalesced:
        return x
    unique, inverse = phi_sparse.coalesce_pattern(impl.indices, impl.dims[:impl.sparse_dim])
    n = unique.dims[1]
    values = values_of(x)
    summed = _F.index_add(zeros([n] + list(values.shape[1:]), values.dtype, values.place), Tensor(inverse),
                          values, 0)
    return from_values(summed, coo_from_parts(unique, summed.impl, impl.dims, coalesced=True))


def indices(x):
    """The coordinates ``[sparse_dim, nnz]`` (int64) of a COO tensor's entries."""
    return Tensor(expect_sparse("indices", "x", x, (COO,)).impl.indices)


def values(x):
    """The stored values of a COO or CSR tensor, differentiable (``x.values()``)."""
    return values_of(expect_sparse("values", "x", x))


def crows(x):
    """The row offsets (int64) of a CSR tensor."""
    return Tensor(expect_sparse("crows", "x", x, (CSR,)).impl.crows)


def cols(x):
    """The column (int64) of each entry of a CSR tensor."""
    return Tensor(expect_sparse("cols", "x", x, (CSR,)).impl.cols)


def nnz(x) -> int:
    """How many entries a sparse tensor stores."""
    return expect_sparse("nnz", "x", x).impl.nnz


def dense_of(x):
    """``x.to_dense()``: the dense tensor of a sparse x (differentiable); a dense x as it is."""
    expect_tensor("to_dense", "x", x)
    return x if x.impl.kind is DENSE else to_dense(x)


def is_sparse(x) -> bool:
    """Whether x is a sparse (COO or CSR) tensor."""
    return expect_tensor("is_sparse", "x", x).impl.kind in (COO, CSR)


def is_dense(x) -> bool:
    """Whether x is a dense tensor (neither sparse nor rows)."""
    return expect_tensor("is_dense", "x", x).impl.kind is DENSE


def is_sparse_coo(x) -> bool:
    """Whether x is a sparse COO tensor."""
    return expect_tensor("is_sparse_coo", "x", x).impl.kind is COO


def is_sparse_csr(x) -> bool:
    """Whether x is a sparse CSR tensor."""
    return expect_tensor("is_sparse_csr", "x", x).impl.kind is CSR

