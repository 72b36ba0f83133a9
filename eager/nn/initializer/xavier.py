"""Paddle's ``paddle.nn.initializer.xavier`` path: XavierNormal, XavierUniform of :mod:`eager.nn.initializer`
(the same objects)."""
from . import XavierNormal, XavierUniform

__all__ = ["XavierNormal", "XavierUniform"]
