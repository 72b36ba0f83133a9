"""Helpers shared by kernels (Paddle's phi/kernels/funcs)."""
from __future__ import annotations

import numpy as np

from ..common.shape_rules import broadcast_axes

# The dtypes CuPy's add.at (CUDA's atomicAdd) takes; others go through one of these.
_ATOMIC_ADD = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64, np.int32, np.uint32,
                                              np.uint64))


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


def scatter_add(xp, out, index, values) -> None:
    """``out[index] += values`` with repeated indices adding up (``numpy.add.at``),
    on either backend.

    CuPy's ``add.at`` serves only the dtypes CUDA's atomicAdd has (float16/32/64,
    int32, uint32, uint64); the others are added through one of those: int64 as
    uint64 (two's complement addition is the same bits), complex as its real and
    imaginary parts, bool and narrow integers in int32 (bool's sum is its "or").
    """
    if xp is np or out.dtype in _ATOMIC_ADD:
        xp.add.at(out, index, values)
        return
    values = xp.asarray(values)
    if out.dtype.kind == "c":
        values = values.astype(out.dtype, copy=False)
        scatter_add(xp, out.real, index, values.real)
        scatter_add(xp, out.imag, index, values.imag)
    elif out.dtype == np.int64:
        xp.add.at(out.view(np.uint64), index, values.astype(np.int64, copy=False).view(np.uint64))
    else:
        wide = out.astype(np.int32)
        xp.add.at(wide, index, values.astype(np.int32))
        out[...] = wide != 0 if out.dtype.kind == "b" else wide.astype(out.dtype)


def device_index(xp, index: tuple) -> tuple:
    """An index tuple with its arrays (NumPy arrays from the caller) on ``xp``'s
    device: CuPy refuses host arrays as indices."""
    if xp is np or not any(hasattr(item, "dtype") for item in index):
        return index
    return tuple(xp.asarray(i) if hasattr(i, "dtype") else i for i in index)
