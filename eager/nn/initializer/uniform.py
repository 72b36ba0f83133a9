"""Paddle's ``paddle.nn.initializer.uniform`` path: Uniform of :mod:`eager.nn.initializer`
(the same objects)."""
from . import Uniform

__all__ = ["Uniform"]
