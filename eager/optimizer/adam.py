"""Paddle's ``paddle.optimizer.adam`` path: :class:`eager.optimizer.Adam` (the same class)."""
from .optimizer import Adam

__all__ = ["Adam"]
