"""Paddle's ``paddle.optimizer.adamax`` path: :class:`eager.optimizer.Adamax` (the same class)."""
from .optimizer import Adamax

__all__ = ["Adamax"]
