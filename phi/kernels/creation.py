"""Kernels that make new tensors."""
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, ALL_TYPES


@register_kernel("full", ALL_BACKENDS, ALL_TYPES)
def full(ctx, shape, value, dtype):
    return ctx.xp.full(shape, value, dtype=dtype.numpy_dtype)


@register_kernel("full_like", ALL_BACKENDS, ALL_TYPES)
def full_like(ctx, x, value, dtype):
    return ctx.xp.full(x.shape, value, dtype=x.dtype if dtype is None else dtype.numpy_dtype)
