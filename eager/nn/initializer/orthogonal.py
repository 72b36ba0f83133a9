"""Paddle's ``paddle.nn.initializer.orthogonal`` path: Orthogonal of :mod:`eager.nn.initializer`
(the same objects)."""
from . import Orthogonal

__all__ = ["Orthogonal"]
