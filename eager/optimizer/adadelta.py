"""Paddle's ``paddle.optimizer.adadelta`` path: :class:`eager.optimizer.Adadelta` (the same class)."""
from .optimizer import Adadelta

__all__ = ["Adadelta"]
