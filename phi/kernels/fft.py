"""The fft kernels: fft_c2c, fft_r2c and fft_c2r over ``ctx.xp.fft`` (numpy.fft on
the host, cupy.fft on the GPU), using only its fftn, ifftn, rfftn and irfftn.

The norm strings keep NumPy's meaning for the forward (fftn) and inverse (ifftn)
directions, so the two other real transforms are written with a conjugate:
the inverse transform of a real x is the conjugate of its forward one, and the
forward transform of a Hermitian signal is the inverse one of its conjugate, each
with the scale of the other direction ("backward" and "forward" swapped).
"""
import numpy as np

from ..core.kernel_registry import register_kernel
from ..common.data_type import DataType as T
from ..infermeta.fft import fft_c2r_size
from .dtypes import ALL_BACKENDS, COMPLEX

# The norm string that gives the other direction the same scale.
OTHER_DIRECTION = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}


@register_kernel("fft_c2c", ALL_BACKENDS, COMPLEX)
def fft_c2c(ctx, x, axes, normalization, forward):
    fft = ctx.xp.fft
    out = (fft.fftn if forward else fft.ifftn)(x, axes=tuple(axes), norm=normalization)
    return out.astype(x.dtype, copy=False)


@register_kernel("fft_r2c", ALL_BACKENDS, (T.FLOAT32, T.FLOAT64))
def fft_r2c(ctx, x, axes, normalization, forward, onesided):
    xp = ctx.xp
    axes = tuple(axes)
    if not onesided:
        out = (xp.fft.fftn if forward else xp.fft.ifftn)(x, axes=axes, norm=normalization)
    elif forward:
        out = xp.fft.rfftn(x, axes=axes, norm=normalization)
    else:
        out = xp.conj(xp.fft.rfftn(x, axes=axes, norm=OTHER_DIRECTION[normalization]))
    return out.astype(_COMPLEX_OF[np.dtype(x.dtype)], copy=False)


@register_kernel("fft_c2r", ALL_BACKENDS, COMPLEX)
def fft_c2r(ctx, x, axes, normalization, forward, last_dim_size):
    xp = ctx.xp
    axes = tuple(axes)
    sizes = [x.shape[a] for a in axes[:-1]] + [fft_c2r_size(x.shape, axes, last_dim_size)]
    if forward:
        out = xp.fft.irfftn(xp.conj(x), s=sizes, axes=axes, norm=OTHER_DIRECTION[normalization])
    else:
        out = xp.fft.irfftn(x, s=sizes, axes=axes, norm=normalization)
    return out.astype(x.real.dtype, copy=False)
