"""Paddle's ``paddle.nn.initializer.lazy_init`` path: LazyGuard of :mod:`eager.nn.initializer`
(the same objects)."""
from . import LazyGuard

__all__ = ["LazyGuard"]
