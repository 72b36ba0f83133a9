"""Joining and splitting: concat, stack, split, unbind (their gradients are
composite rules: each is the other one).

split and unbind return views of x, as NumPy does; the generated API shares
x's version counter with them (``view`` in ops.yaml).
"""
from ..core.kernel_registry import register_kernel
from ..infermeta.multiary import split_sizes
from .dtypes import ALL_BACKENDS, ALL_TYPES, ALL_TYPES_AND_BFLOAT16


def _split_at(xp, array, sizes, axis):
    bounds, total = [], 0
    for size in sizes[:-1]:
        total += size
        bounds.append(total)
    return xp.split(array, bounds, axis=axis)


def _unbind(array, axis):
    axis = axis % array.ndim
    lead = (slice(None),) * axis
    return [array[lead + (i,)] for i in range(array.shape[axis])]


@register_kernel("concat", ALL_BACKENDS, ALL_TYPES)
def concat(ctx, x, axis):
    return ctx.xp.concatenate(x, axis=axis)


@register_kernel("stack", ALL_BACKENDS, ALL_TYPES)
def stack(ctx, x, axis):
    return ctx.xp.stack(x, axis=axis)


@register_kernel("split", ALL_BACKENDS, ALL_TYPES_AND_BFLOAT16)
def split(ctx, x, num_or_sections, axis):
    return _split_at(ctx.xp, x, split_sizes(x.shape, num_or_sections, axis), axis)


@register_kernel("unbind", ALL_BACKENDS, ALL_TYPES_AND_BFLOAT16)
def unbind(ctx, x, axis):
    return _unbind(x, axis)


