"""Helpers shared by kernels (Paddle's phi/kernels/funcs)."""
from __future__ import annotations

from ..common.shape_rules import broadcast_axes


def reduce_to_shape(grad, shape):
    """Sums ``grad`` over the axes along which an input of ``shape`` was broadcast.

    Every backward kernel undoes broadcasting here (composite rules use the same
    axes, from phi.common.shape_rules).
    """
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    axes = broadcast_axes(grad.shape, shape)
    # dtype: NumPy would widen int32 sums to int64, and the gradient must keep its dtype.
    return grad.sum(axis=axes, dtype=grad.dtype).reshape(shape) if axes else grad.reshape(shape)


def kept_shape(shape, axes) -> tuple:
    """``shape`` with the reduced ``axes`` kept as 1 (a keepdim result's shape)."""
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def channel_first(xp, x, channel_last: bool):
    """x with a channel-last layout's channels moved to axis 1 (a view)."""
    return xp.moveaxis(x, -1, 1) if channel_last else x


def want(out_mask, index: int) -> bool:
    return out_mask is None or out_mask[index]


def conj(array):
    """The complex conjugate, and the array itself when it is real.

    Gradients of complex ops need conjugates; np.conj on a real array would
    still allocate a full copy (a measurable cost in matmul_grad).
    """
    return array.conj() if array.dtype.kind == "c" else array
