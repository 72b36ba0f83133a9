"""Paddle's ``paddle.nn.initializer.initializer`` path: Initializer, calculate_gain of :mod:`eager.nn.initializer`
(the same objects)."""
from . import Initializer, calculate_gain

__all__ = ["Initializer", "calculate_gain"]
