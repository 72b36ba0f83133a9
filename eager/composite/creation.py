"""Composite rules of the creation ops (see eager/composite/__init__.py).

The differentiable creation ops are linear maps that select or place elements,
so each gradient is the adjoint selection written with forward ops, and every
higher order comes from those ops' own rules.
"""
from __future__ import annotations

import numpy as np

from ..generated import forward_api as _F
from .spine import _reshape  # reshape that also reaches shapes holding zeros


def tril_grad(out_grad, diagonal):
    return _F.tril(out_grad, diagonal)


def triu_grad(out_grad, diagonal):
    return _F.triu(out_grad, diagonal)


def _diagonal_indices(length, offset):
    """(rows, columns) of the ``length`` elements of diagonal ``offset``, as index arrays."""
    steps = np.arange(length)
    return steps + max(-offset, 0), steps + max(offset, 0)


def diag_grad(x, out_grad, offset):
    if len(x.shape) == 1:
        # out placed x on a diagonal: x's gradient is that diagonal of out_grad.
        return _F.getitem(out_grad, _diagonal_indices(x.shape[0], offset))
    # out was x's diagonal: scatter out_grad back onto it (padding got no gradient).
    zeros = _F.full(x.shape, 0, out_grad.dtype, out_grad.place)
    return _F.setitem(zeros, out_grad, _diagonal_indices(out_grad.shape[0], offset))


def diagflat_grad(x, out_grad, offset):
    size = 1
    for d in x.shape:
        size *= d
    return _reshape(_F.getitem(out_grad, _diagonal_indices(size, offset)), x.shape)


def diag_embed_grad(input, out_grad, offset, dim1, dim2):
    ndim = len(out_grad.shape)
    first, second = dim1 % ndim, dim2 % ndim
    rest = [a for a in range(ndim) if a not in (first, second)]
    planes = _F.transpose(out_grad, rest + [first, second])
    return _F.getitem(planes, (Ellipsis,) + _diagonal_indices(input.shape[-1], offset))


def meshgrid_grad(x, out_grad):
    # Output k is x[k] broadcast along every other axis: sum those axes away.
    grads = []
    for axis, (t, g) in enumerate(zip(x, out_grad)):
        others = [a for a in range(len(x)) if a != axis]
        summed = _F.sum(g, others, None, False) if others else g
        grads.append(summed if summed.shape == list(t.shape) else _reshape(summed, t.shape))
    return grads


def fill_grad(out_grad):
    return _F.full_like(out_grad, 0, None)


def zero_grad(out_grad):
    return _F.full_like(out_grad, 0, None)


def complex_double_grad(real, imag, grad_real_grad, grad_imag_grad):
    # complex_grad takes (Re g, Im g): its adjoint builds complex(a, b) again; a
    # gradient that did not come is zero.
    if grad_real_grad is None and grad_imag_grad is None:
        return None
    present = grad_real_grad if grad_real_grad is not None else grad_imag_grad
    if grad_real_grad is None:
        grad_real_grad = _F.full(real.shape, 0, real.dtype, present.place)
    if grad_imag_grad is None:
        grad_imag_grad = _F.full(imag.shape, 0, imag.dtype, present.place)
    return _F.complex(grad_real_grad, grad_imag_grad)
