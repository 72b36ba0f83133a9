"""Shape manipulation and dtype conversion kernels and their gradients."""
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, ALL_TYPES


@register_kernel("reshape", ALL_BACKENDS, ALL_TYPES)
def reshape(ctx, x, shape):
    # 0 copies x's dimension at that position (Paddle), -1 is inferred (NumPy).
    resolved = tuple(x.shape[i] if s == 0 else s for i, s in enumerate(shape))
    return x.reshape(resolved)


@register_kernel("reshape_grad", ALL_BACKENDS, ALL_TYPES)
def reshape_grad(ctx, x, out_grad):
    return out_grad.reshape(x.shape)


@register_kernel("transpose", ALL_BACKENDS, ALL_TYPES)
def transpose(ctx, x, perm):
    return ctx.xp.transpose(x, perm)


@register_kernel("transpose_grad", ALL_BACKENDS, ALL_TYPES)
def transpose_grad(ctx, out_grad, perm):
    xp = ctx.xp
    return xp.transpose(out_grad, xp.argsort([p % len(perm) for p in perm]))


@register_kernel("cast", ALL_BACKENDS, ALL_TYPES)
def cast(ctx, x, dtype):
    return x.astype(dtype.numpy_dtype)


@register_kernel("cast_grad", ALL_BACKENDS, ALL_TYPES)
def cast_grad(ctx, x, out_grad):
    return out_grad.astype(x.dtype)
