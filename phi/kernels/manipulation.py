"""Shape manipulation and dtype conversion kernels and their gradients."""
from ..common.shape_rules import inverse_permutation
from ..core.kernel_registry import register_kernel
from ..infermeta.shape import unsqueeze_positions
from .dtypes import ALL_BACKENDS, ALL_TYPES, ALL_TYPES_AND_BFLOAT16, NUMERIC
from .funcs import reduce_to_shape


@register_kernel("reshape", ALL_BACKENDS, ALL_TYPES_AND_BFLOAT16)
def reshape(ctx, x, shape):
    # 0 copies x's dimension at that position (Paddle), -1 is inferred (NumPy).
    resolved = tuple(x.shape[i] if s == 0 else s for i, s in enumerate(shape))
    return x.reshape(resolved)


@register_kernel("reshape_grad", ALL_BACKENDS, ALL_TYPES)
def reshape_grad(ctx, x, out_grad):
    return out_grad.reshape(x.shape)


@register_kernel("transpose", ALL_BACKENDS, ALL_TYPES_AND_BFLOAT16)
def transpose(ctx, x, perm):
    return ctx.xp.transpose(x, perm)


@register_kernel("transpose_grad", ALL_BACKENDS, ALL_TYPES)
def transpose_grad(ctx, out_grad, perm):
    xp = ctx.xp
    return xp.transpose(out_grad, inverse_permutation(perm))


@register_kernel("cast", ALL_BACKENDS, ALL_TYPES_AND_BFLOAT16)
def cast(ctx, x, dtype):
    return x.astype(dtype.numpy_dtype)


@register_kernel("squeeze", ALL_BACKENDS, ALL_TYPES_AND_BFLOAT16)
def squeeze(ctx, x, axis):
    if axis and x.ndim:  # a 0-d x takes axis 0 / -1 (InferMeta's rule) and stays 0-d
        drop = tuple({a % x.ndim for a in axis if x.shape[a] == 1})  # Paddle takes a repeated axis
    else:
        drop = tuple(i for i, d in enumerate(x.shape) if d == 1)
    return x.squeeze(axis=drop) if drop else x.view()


@register_kernel("unsqueeze", ALL_BACKENDS, ALL_TYPES_AND_BFLOAT16)
def unsqueeze(ctx, x, axis):
    return ctx.xp.expand_dims(x, unsqueeze_positions(x.ndim, axis))


@register_kernel("flatten", ALL_BACKENDS, ALL_TYPES_AND_BFLOAT16)
def flatten(ctx, x, start_axis, stop_axis):
    if x.ndim == 0:
        return x.reshape((1,))
    start, stop = start_axis % x.ndim, stop_axis % x.ndim
    merged = 1
    for d in x.shape[start:stop + 1]:
        merged *= d  # explicit: -1 cannot be inferred when another axis has size 0
    return x.reshape(x.shape[:start] + (merged,) + x.shape[stop + 1:])


@register_kernel("expand", ALL_BACKENDS, ALL_TYPES)
def expand(ctx, x, shape):
    # -1 keeps x's size (InferMeta checked the rest); a copy, so the result is writable.
    lead = len(shape) - x.ndim
    target = tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(shape))
    return ctx.xp.broadcast_to(x, target).copy()


@register_kernel("expand_grad", ALL_BACKENDS, NUMERIC)
def expand_grad(ctx, x, out_grad, shape):
    return reduce_to_shape(out_grad, x.shape)


@register_kernel("assign", ALL_BACKENDS, ALL_TYPES)
def assign(ctx, x):
    return x.copy()
