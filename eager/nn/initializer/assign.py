"""Paddle's ``paddle.nn.initializer.assign`` path: Assign of :mod:`eager.nn.initializer`
(the same objects)."""
from . import Assign

__all__ = ["Assign"]
