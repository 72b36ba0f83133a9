"""Paddle's ``paddle.incubate.autograd.utils`` path: the prim-mode switches of
:mod:`eager.incubate.autograd` (the same objects)."""
from . import disable_prim, enable_prim, prim_enabled

__all__ = ["disable_prim", "enable_prim", "prim_enabled"]
