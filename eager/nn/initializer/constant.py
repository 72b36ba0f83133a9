"""Paddle's ``paddle.nn.initializer.constant`` path: Constant of :mod:`eager.nn.initializer`
(the same objects)."""
from . import Constant

__all__ = ["Constant"]
