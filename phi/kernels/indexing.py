"""Indexing kernels: x[index], x with x[index] = value, and their gradients."""
import numpy as np

from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, ALL_TYPES, NUMERIC
from .funcs import reduce_to_shape, want


def _has_array(index) -> bool:
    return any(hasattr(item, "dtype") for item in index)


@register_kernel("getitem", ALL_BACKENDS, ALL_TYPES)
def getitem(ctx, x, index):
    xp = ctx.xp
    if _has_array(index) and xp is not np:
        # Index arrays arrive as NumPy arrays; CuPy wants them on the device.
        index = tuple(xp.asarray(i) if hasattr(i, "dtype") else i for i in index)
    return x[index]


@register_kernel("getitem_grad", ALL_BACKENDS, NUMERIC)
def getitem_grad(ctx, x, out_grad, index):
    xp = ctx.xp
    x_grad = xp.zeros(x.shape, dtype=out_grad.dtype)
    # None adds an axis to x[index] but not to x: drop it from both sides.
    kept = tuple(i for i in index if i is not None)
    region_shape = xp.broadcast_to(xp.empty((), dtype=xp.int8), x.shape)[kept].shape
    grad = out_grad.reshape(region_shape)
    if _has_array(kept):
        # An integer array may name one element twice: its gradients add up.
        xp.add.at(x_grad, kept, grad)
    else:
        x_grad[kept] = grad
    return x_grad


@register_kernel("setitem", ALL_BACKENDS, ALL_TYPES)
def setitem(ctx, x, value, index):
    out = x.copy()
    out[index] = value
    return out


@register_kernel("setitem_grad", ALL_BACKENDS, NUMERIC)
def setitem_grad(ctx, value, out_grad, index, *, out_mask=None):
    x_grad = value_grad = None
    if want(out_mask, 0):
        x_grad = out_grad.copy()
        x_grad[index] = 0
    if want(out_mask, 1):
        value_grad = reduce_to_shape(out_grad[index], value.shape)
    return x_grad, value_grad
