"""Paddle's ``paddle.incubate.autograd.primapi`` path: ``grad`` and ``forward_grad`` of
:mod:`eager.incubate.autograd` (the same objects)."""
from . import forward_grad, grad

__all__ = ["forward_grad", "grad"]
