"""Paddle's ``paddle.optimizer.sgd`` path: :class:`eager.optimizer.SGD` (the same class)."""
from .optimizer import SGD

__all__ = ["SGD"]
