"""Activations of sparse tensors (Paddle's paddle.sparse.nn.functional.relu,
relu6, leaky_relu, softmax).

relu, relu6 and leaky_relu act on the stored values (the pattern kept);
softmax normalizes each row's stored values (the entries that share every
coordinate but the last), the unstored entries counting as absent, not as 0.

>>> x = eager.sparse.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [1.0, 1.0, 5.0], [2, 3])
>>> eager.sparse.nn.functional.softmax(x).values().numpy()
array([0.5, 0.5, 1. ], dtype=float32)
"""
from __future__ import annotations

from ....arguments import to_float, to_int
from ....autograd.grad_mode import no_grad
from ....composite import _paddle_api as _check
from ....geometric import segment_max, segment_sum
from ....generated import forward_api as _F
from ..._core import COO, coo_indices, expect_sparse, from_values, values_of
from ...creation import coalesce
from ...unary import apply_to_values


def _floating(op: str, x):
    expect_sparse(op, "x", x)
    if not x.dtype.is_floating_point:
        raise TypeError(f"{op}: argument 'x' expected a floating-point sparse tensor, got {x.dtype}")


@_check.composed_in("sparse.nn.functional")
def relu(x, name=None):
    """max(x, 0) of each stored value; x's pattern kept.

    >>> x = eager.sparse.sparse_coo_tensor([[0, 2]], [-1.0, 4.0], [3])
    >>> eager.sparse.nn.functional.relu(x).values().numpy()
    array([0., 4.], dtype=float32)
    """
    _floating("sparse.nn.functional.relu", x)
    return apply_to_values("sparse.nn.functional.relu", x, _F.relu)


@_check.composed_in("sparse.nn.functional")
def relu6(x, name=None):
    """min(max(x, 0), 6) of each stored value; x's pattern kept."""
    _floating("sparse.nn.functional.relu6", x)
    return apply_to_values("sparse.nn.functional.relu6", x, lambda v: _F.hardtanh(v, 0.0, 6.0))


@_check.composed_in("sparse.nn.functional")
def leaky_relu(x, negative_slope=0.01, name=None):
    """x where x >= 0, negative_slope * x elsewhere, of each stored value; x's pattern kept."""
    op = "sparse.nn.functional.leaky_relu"
    _floating(op, x)
    slope = to_float(negative_slope, op, "negative_slope")
    return apply_to_values(op, x, lambda v: _F.leaky_relu(v, slope))


@_check.composed_in("sparse.nn.functional")
def softmax(x, axis=-1, name=None):
    """Softmax over the last axis of a sparse tensor (COO with every dimension
    sparse, or CSR): each row's stored values exp-normalized among themselves.
    A COO x is coalesced first (its result is coalesced)."""
    op = "sparse.nn.functional.softmax"
    _floating(op, x)
    axis = to_int(axis, op, "axis")
    if axis not in (-1, x.ndim - 1):
        raise ValueError(f"{op}: only the last axis (-1) is supported, got axis={axis} for a {x.ndim}-d tensor")
    if x.impl.kind is COO:
        if x.impl.sparse_dim != x.ndim:
            raise ValueError(f"{op}: a COO x must have every dimension sparse, got sparse_dim {x.impl.sparse_dim} "
                             f"of {x.ndim}")
        x = coalesce(x)
    indices = coo_indices(x)
    if x.ndim == 1:  # one row: every entry in it
        rows = _F.zeros_like(indices[0])
    else:  # row id: the row-major position of all coordinates but the last (sorted, as x is coalesced)
        rows = indices[0]
        for axis_, size in enumerate(x.shape[1:-1], start=1):
            rows = _F.add(_F.scale(rows, float(size), 0.0, True), indices[axis_])
    values = values_of(x)
    with no_grad():  # the shift keeps exp finite; softmax does not depend on it
        peak = _F.index_select(segment_max(values.detach(), rows), rows, 0)
    exp = _F.exp(_F.subtract(values, peak))
    total = _F.index_select(segment_sum(exp, rows), rows, 0)
    return from_values(_F.divide(exp, total), x.impl)


__all__ = ["leaky_relu", "relu", "relu6", "softmax"]
