"""Kernels of gradient accumulation: an in-place add and an in-place zero (the
copy that owns its buffer is ``assign``, in manipulation.py)."""
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, ALL_TYPES, NUMERIC


@register_kernel("accumulate_", ALL_BACKENDS, NUMERIC)
def accumulate_(ctx, acc, x):
    acc += x
    return acc


@register_kernel("zero_", ALL_BACKENDS, ALL_TYPES)
def zero_(ctx, x):
    x[...] = 0
    return x
