"""Paddle's ``paddle.optimizer.adamw`` path: :class:`eager.optimizer.AdamW` (the same class)."""
from .optimizer import AdamW

__all__ = ["AdamW"]
