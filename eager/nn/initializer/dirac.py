"""Paddle's ``paddle.nn.initializer.dirac`` path: Dirac of :mod:`eager.nn.initializer`
(the same objects)."""
from . import Dirac

__all__ = ["Dirac"]
