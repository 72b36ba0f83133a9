"""Kernels of gradient accumulation: a copy that owns its buffer, an in-place
add, an in-place zero."""
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, ALL_TYPES, NUMERIC


@register_kernel("assign", ALL_BACKENDS, ALL_TYPES)
def assign(ctx, x):
    return x.copy()


@register_kernel("accumulate_", ALL_BACKENDS, NUMERIC)
def accumulate_(ctx, acc, x):
    acc += x
    return acc


@register_kernel("zero_", ALL_BACKENDS, ALL_TYPES)
def zero_(ctx, x):
    x[...] = 0
    return x
