"""Paddle's ``paddle.optimizer.rmsprop`` path: :class:`eager.optimizer.RMSProp` (the same class)."""
from .optimizer import RMSProp

__all__ = ["RMSProp"]
