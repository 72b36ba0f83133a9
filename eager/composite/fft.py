"""Composite rules of the fft ops (see eager/composite/__init__.py); the only
backward rules these ops have, so their gradients differentiate to any order.

Every transform is linear, so its gradient is its adjoint applied to out_grad
(the convention of the project's complex ops: d/d re + i d/d im of a real loss).
The adjoint of a transform is the transform the other way (exponent sign flipped)
with the same scale, which is the other direction under the swapped norm string
("backward" <-> "forward"). The real transforms add the onesided weighting:

- r2c keeps n//2+1 of the n bins of the last axis; its adjoint is c2r of out_grad
  with the bins that have a dropped mirror (all but the zero bin and, for even n,
  the Nyquist bin) halved, since c2r counts each of them twice;
- c2r reads each such bin twice (itself and its conjugate mirror) and only the
  Hermitian part of the others: its adjoint is onesided r2c of out_grad with those
  bins doubled.
"""
from __future__ import annotations

from phi.infermeta.fft import fft_axes as _fft_axes

from ..generated import forward_api as _F

_OTHER_DIRECTION = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _other(normalization):
    # An unknown string passes on unchanged, for the op to refuse by name.
    return _OTHER_DIRECTION.get(normalization, normalization)


def _mirrored_bins_scaled(spectrum, axis: int, n: int, factor: float):
    """spectrum (n//2+1 bins along axis) with the bins 1 .. (n-1)//2 (those whose
    mirror n-k is not kept) multiplied by factor."""
    last = (n - 1) // 2 + 1  # one past the last mirrored bin
    if last <= 1:
        return spectrum
    pieces = [_F.slice(spectrum, [axis], [0], [1]),
              _F.scale(_F.slice(spectrum, [axis], [1], [last]), factor, 0.0, True)]
    if last < spectrum.shape[axis]:
        pieces.append(_F.slice(spectrum, [axis], [last], [spectrum.shape[axis]]))
    return _F.concat(pieces, axis)


def fft_c2c_grad(out_grad, axes, normalization, forward):
    return _F.fft_c2c(out_grad, axes, _other(normalization), not forward)


def fft_r2c_grad(x, out_grad, axes, normalization, forward, onesided):
    norm = _other(normalization)
    if not onesided:
        return _F.real(_F.fft_c2c(out_grad, axes, norm, not forward))
    axis = _fft_axes(axes, tuple(x.shape))[-1]
    n = x.shape[axis]
    return _F.fft_c2r(_mirrored_bins_scaled(out_grad, axis, n, 0.5), axes, norm, not forward, n)


def fft_c2r_grad(out_grad, axes, normalization, forward):
    axis = _fft_axes(axes, tuple(out_grad.shape))[-1]
    n = out_grad.shape[axis]
    spectrum = _F.fft_r2c(out_grad, axes, _other(normalization), not forward, True)
    return _mirrored_bins_scaled(spectrum, axis, n, 2.0)
