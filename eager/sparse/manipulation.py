"""Shape functions of a sparse tensor (Paddle's paddle.sparse.sum, transpose,
reshape, slice). They move coordinates with phi's pattern kernels and integer
ops, and the values with differentiable dense ops. A CSR input is handled in
COO form and comes back as CSR when the result is 2-d or 3-d with every
dimension sparse (COO otherwise).

>>> x = eager.to_tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]]).to_sparse_coo(2)
>>> eager.sparse.transpose(x, [1, 0]).to_dense().numpy()
array([[0., 2.],
       [1., 0.],
       [0., 3.]], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from phi.api import sparse as phi_sparse
from phi.core.sparse_tensor import coo_from_parts

from ..arguments import to_bool, to_dtype, to_int_array, to_int_array_none_as_empty
from ..composite import _paddle_api as _check
from ..creation import to_tensor
from ..generated import forward_api as _F
from ..tensor import Tensor
from ._core import CSR, coo_indices, expect_sparse, from_values, gather_at, to_dense, values_of
from .creation import coalesce, to_sparse_coo, to_sparse_csr


def _as_coo(x):
    return to_sparse_coo(x, x.ndim) if x.impl.kind is CSR else x


def _back(kind, out):
    """out (COO) as CSR when the input was CSR and out can be one."""
    if kind is CSR and out.ndim in (2, 3) and out.impl.sparse_dim == out.ndim:
        return to_sparse_csr(out)
    return out


def _coo(indices: Tensor, values: Tensor, shape, coalesced=False):
    return from_values(values, coo_from_parts(indices.impl, values.impl, shape, coalesced))


def _axes(op: str, axes, ndim: int) -> list:
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"{op}: axis {a} is out of range for a {ndim}-d tensor (expected [-{ndim}, {ndim}))")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{op}: repeated axis in {list(axes)}")
    return out


@_check.composed_in("sparse")
def transpose(x, perm, name=None):
    """x with its dimensions permuted by ``perm``. The result is coalesced and has
    x's sparse_dim: when ``perm`` brings dense dimensions of a hybrid COO x to the
    front, they become sparse (stored over their whole length wherever x stores a
    block) and the sparse dimensions moved back become dense.

    >>> x = eager.to_tensor([[-2.0, 0.0], [0.0, 0.0], [1.0, 2.0]]).to_sparse_coo(1)
    >>> y = eager.sparse.transpose(x, [1, 0])
    >>> y.indices().numpy(), y.values().numpy()
    (array([[0, 1]]), array([[-2.,  0.,  1.],
           [ 0.,  0.,  2.]], dtype=float32))
    """
    op = "sparse.transpose"
    expect_sparse(op, "x", x)
    kind = x.impl.kind
    perm = list(to_int_array(perm, op, "perm"))
    if sorted(a % x.ndim if -x.ndim <= a < x.ndim else a for a in perm) != list(range(x.ndim)):
        raise ValueError(f"{op}: argument 'perm' expected a permutation of range({x.ndim}), got {perm}")
    perm = [a % x.ndim for a in perm]
    x = _as_coo(x)
    s = x.impl.sparse_dim
    if sorted(perm[:s]) != list(range(s)):
        return _transpose_across(x, perm)
    index = _F.index_select(coo_indices(x), _small_index(perm[:s], x), 0)
    values = values_of(x)
    if s < x.ndim:
        values = _F.transpose(values, [0] + [a - s + 1 for a in perm[s:]])
    out = coalesce(_coo(index, values, [x.shape[a] for a in perm]))
    return _back(kind, out)


def _transpose_across(x, perm):
    """transpose of a hybrid COO x whose ``perm`` moves dense dimensions among the
    first sparse_dim ones: the result keeps sparse_dim sparse dimensions, and stores
    each block that some stored entry of x reaches (a dense dimension moved to the
    front is stored over its whole length)."""
    s, shape = x.impl.sparse_dim, x.shape
    indices = coo_indices(x)
    counts = Tensor(phi_sparse.sparse_to_dense(coo_from_parts(
        indices.impl, _F.full_like(indices[0], 1).impl, shape[:s], x.impl.coalesced)))
    reached = _F.expand(_F.reshape(counts, shape[:s] + [1] * (x.ndim - s)), shape)
    reached = _F.sum(_F.transpose(reached, perm), list(range(s, x.ndim)))
    out_indices = _F.transpose(_F.nonzero(reached), [1, 0])
    values = gather_at(_F.transpose(to_dense(x), perm), out_indices)
    return _coo(out_indices, values, [shape[a] for a in perm], coalesced=True)


def _small_index(numbers, like) -> Tensor:
    """A small int64 tensor of ``numbers`` on ``like``'s device."""
    return to_tensor(np.asarray(numbers, dtype=np.int64), place=like.place)


@_check.composed_in("sparse")
def reshape(x, shape, name=None):
    """x with a new shape of as many elements (-1 once: inferred; 0: the size kept),
    every dimension sparse (a COO x with dense dimensions is refused)."""
    op = "sparse.reshape"
    expect_sparse(op, "x", x)
    kind = x.impl.kind
    shape = list(to_int_array(shape, op, "shape"))
    x = _as_coo(x)
    if x.impl.sparse_dim != x.ndim:
        raise ValueError(f"{op}: a COO tensor with dense dimensions (sparse_dim {x.impl.sparse_dim} of {x.ndim}) "
                         f"cannot be reshaped")
    new = [x.shape[i] if d == 0 and i < x.ndim else d for i, d in enumerate(shape)]
    total = int(np.prod(x.shape, dtype=np.int64))
    if new.count(-1) > 1 or any(d < -1 for d in new):
        raise ValueError(f"{op}: argument 'shape' may hold one -1 and no other negative size, got {shape}")
    if -1 in new:
        known = int(np.prod([d for d in new if d != -1], dtype=np.int64))
        if known == 0 or total % known:
            raise ValueError(f"{op}: cannot infer the -1 of {shape} for {total} elements")
        new[new.index(-1)] = total // known
    if int(np.prod(new, dtype=np.int64)) != total:
        raise ValueError(f"{op}: shape {shape} does not hold the {total} elements of shape {x.shape}")
    indices = Tensor(phi_sparse.reshape_pattern(x.impl.indices, x.shape, new))
    return _back(kind, _coo(indices, values_of(x), new, x.impl.coalesced))


@_check.composed_in("sparse")
def sum(x, axis=None, dtype=None, keepdim=False, name=None):  # noqa: A001
    """The sum of a sparse tensor's elements, over every axis (None or []) or ``axis``
    (an int, or a list or tuple of ints); the result is sparse. bool and int32 sum as int64, as in Paddle.
    A CSR x summed over every axis gives a CSR ``[1, 1]`` (``[1] * x.ndim`` with keepdim), as Paddle's.

    >>> x = eager.to_tensor([[-2.0, 0.0], [1.0, 2.0]]).to_sparse_coo(2)
    >>> eager.sparse.sum(x, axis=1).to_dense().numpy()
    array([-2.,  3.], dtype=float32)
    """
    op = "sparse.sum"
    expect_sparse(op, "x", x)
    keepdim = to_bool(keepdim, op, "keepdim")
    kind = x.impl.kind
    target = to_dtype(dtype, op, "dtype")
    if target is None and x.dtype.value in ("bool", "int32"):
        target = to_dtype("int64", op, "dtype")
    # Paddle's sum_coo/sum_csr read an empty axis list as None: every axis.
    axis = to_int_array_none_as_empty(axis, op, "axis")
    x = _as_coo(x)
    values = values_of(x) if target is None or target == x.dtype else _F.cast(values_of(x), target)
    if not axis:
        total = _F.reshape(_F.sum(values), [1])
        # Paddle's sum_csr keeps a CSR result, which is 2-d at least: [1, 1] without keepdim
        shape = [1] * x.ndim if keepdim else [1, 1] if kind is CSR else [1]
        return _back(kind, _coo(_small_index(np.zeros((len(shape), 1)), x), total, shape, coalesced=True))
    axes = sorted(_axes(op, list(axis), x.ndim), reverse=True)
    indices, shape, s = coo_indices(x), list(x.shape), x.impl.sparse_dim
    for a in axes:
        if a >= s:  # a dense dimension: sum inside each value block
            values = _F.sum(values, [a - s + 1], keepdim=keepdim)
        elif keepdim or s > 1:  # a sparse dimension: its coordinate dropped (or set to 0), entries merged
            if keepdim:
                indices = _F.concat([indices[:a], _F.zeros_like(indices[a:a + 1]), indices[a + 1:]], 0)
            else:
                indices = _F.concat([indices[:a], indices[a + 1:]], 0)
                s -= 1
        else:  # the only sparse dimension: every entry merges into one, kept as a dimension of 1
            indices = _F.zeros_like(indices)
            shape[a] = 1
            continue
        if keepdim:
            shape[a] = 1
        else:
            shape.pop(a)
    out = coalesce(_coo(indices, values, shape))
    return _back(kind, out)



@_check.composed_in("sparse")
def slice(x, axes, starts, ends, name=None):  # noqa: A001
    """The part ``[starts[i], ends[i])`` of x along each of ``axes`` (negative
    positions count from the end, out-of-range ones are clipped, as Paddle's slice).

    >>> x = eager.to_tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]]).to_sparse_coo(2)
    >>> eager.sparse.slice(x, [1], [1], [3]).to_dense().numpy()
    array([[1., 0.],
           [0., 3.]], dtype=float32)
    """
    op = "sparse.slice"
    expect_sparse(op, "x", x)
    kind = x.impl.kind
    axes = _axes(op, list(to_int_array(axes, op, "axes")), x.ndim)
    starts, ends = list(to_int_array(starts, op, "starts")), list(to_int_array(ends, op, "ends"))
    if not len(axes) == len(starts) == len(ends):
        raise ValueError(f"{op}: axes, starts and ends must have one length, got {len(axes)}, {len(starts)} and "
                         f"{len(ends)}")
    x = _as_coo(x)
    s, shape = x.impl.sparse_dim, list(x.shape)
    bounds = {}
    for a, start, end in zip(axes, starts, ends):
        size = shape[a]
        start = min(max(start + size if start < 0 else start, 0), size)
        end = min(max(end + size if end < 0 else end, 0), size)
        bounds[a] = (start, max(end, start))
    indices, values = coo_indices(x), values_of(x)
    sparse_axes = [a for a in bounds if a < s]
    if sparse_axes:
        keep = None
        for a in sparse_axes:
            row = indices[a]
            inside = _F.logical_and(_F.greater_equal(row, _F.full_like(row, bounds[a][0])),
                                    _F.less_than(row, _F.full_like(row, bounds[a][1])))
            keep = inside if keep is None else _F.logical_and(keep, inside)
        kept = _F.reshape(_F.nonzero(keep), [-1])
        offset = _small_index([[bounds[a][0] if a in bounds else 0] for a in range(s)], x)
        indices = _F.subtract(_F.index_select(indices, kept, 1), offset)
        values = _F.index_select(values, kept, 0)
    dense_axes = [a for a in bounds if a >= s]
    if dense_axes:
        values = _F.slice(values, [a - s + 1 for a in dense_axes], [bounds[a][0] for a in dense_axes],
                          [bounds[a][1] for a in dense_axes])
    for a, (start, end) in bounds.items():
        shape[a] = end - start
    return _back(kind, _coo(indices, values, shape, x.impl.coalesced))


__all__ = ["reshape", "slice", "sum", "transpose"]
