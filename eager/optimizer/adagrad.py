"""Paddle's ``paddle.optimizer.adagrad`` path: :class:`eager.optimizer.Adagrad` (the same class)."""
from .optimizer import Adagrad

__all__ = ["Adagrad"]
