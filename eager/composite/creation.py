"""Composite rules of the creation ops (see eager/composite/__init__.py).

The differentiable creation ops are linear maps that select or place elements,
so each gradient is the adjoint selection written with forward ops, and every
higher order comes from those ops' own rules.
"""
from __future__ import annotations

from ..generated import forward_api as _F
from .spine import sum_to_shape  # noqa: F401


def tril_grad(out_grad, diagonal):
    return _F.tril(out_grad, diagonal)


def triu_grad(out_grad, diagonal):
    return _F.triu(out_grad, diagonal)
