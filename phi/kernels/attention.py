"""Kernels of the dropout and attention ops (issue #10).

``dropout`` draws its keep mask from the generator of its place (the one
``eager.seed`` seeds, or a generator of its own when ``seed`` is not 0), as the
random kernels of phi/kernels/sampling.py do, and returns it beside the result
(uint8, 1 = kept) so that ``dropout_grad`` multiplies by the very same mask.
With ``axis`` the mask has size 1 along the other axes and is broadcast, so one
draw is shared along them (Paddle's dropout with axis, dropout2d, dropout3d).
"""
from __future__ import annotations

import numpy as np

from ..core.generator import generator_for_call
from ..core.kernel_registry import register_kernel
from ..infermeta.attention import dropout_factor as _factor
from ..infermeta.attention import dropout_mask_dims
from .dtypes import ALL_BACKENDS, FLOATS


@register_kernel("dropout", ALL_BACKENDS, FLOATS)
def dropout(ctx, x, p, is_test, mode, axis, seed):
    xp = ctx.xp
    mask_dims = dropout_mask_dims(x.shape, axis)
    if is_test:
        mask = xp.ones(mask_dims, dtype=np.uint8)
    else:
        # Kept where a uniform [0, 1) draw is >= p: p = 0 keeps all, p = 1 drops all.
        mask = (generator_for_call(ctx.place, seed).random(mask_dims) >= p).astype(np.uint8)
    factor = _factor(float(p), is_test, mode)
    if is_test:
        return x * x.dtype.type(factor), mask
    # A dropped element is exactly 0, as in Paddle, even where x is inf or nan (x times
    # a 0 in the mask would be nan there): x's bits go through an integer mask of all
    # ones (kept) or zeros (dropped, giving +0.0), then the kept values are scaled. Four
    # cheap passes, as fast as the plain product; NumPy's where() took 4-20x as long.
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    keep = xp.array(mask, dtype=unsigned)  # (an array even when a 0-d mask came as a NumPy scalar)
    xp.negative(keep, out=keep)  # 1 -> all ones (unsigned wrap-around), 0 -> 0
    out = xp.bitwise_and(x.view(unsigned), keep, out=keep if keep.shape == x.shape else None).view(x.dtype)
    out *= x.dtype.type(factor)
    return out, mask


@register_kernel("dropout_grad", ALL_BACKENDS, FLOATS)
def dropout_grad(ctx, mask, out_grad, p, is_test, mode):
    factor = _factor(float(p), is_test, mode)
    return out_grad * (mask.astype(out_grad.dtype) * out_grad.dtype.type(factor))
