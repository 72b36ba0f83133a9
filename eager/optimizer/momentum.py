"""Paddle's ``paddle.optimizer.momentum`` path: :class:`eager.optimizer.Momentum` (the same class)."""
from .optimizer import Momentum

__all__ = ["Momentum"]
