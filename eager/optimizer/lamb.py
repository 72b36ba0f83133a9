"""Paddle's ``paddle.optimizer.lamb`` path: :class:`eager.optimizer.Lamb` (the same class)."""
from .optimizer import Lamb

__all__ = ["Lamb"]
