"""Paddle's ``paddle.nn.initializer.normal`` path: Normal, TruncatedNormal of :mod:`eager.nn.initializer`
(the same objects)."""
from . import Normal, TruncatedNormal

__all__ = ["Normal", "TruncatedNormal"]
