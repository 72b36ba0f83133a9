"""Paddle's ``paddle.nn.initializer.kaiming`` path: KaimingNormal, KaimingUniform of :mod:`eager.nn.initializer`
(the same objects)."""
from . import KaimingNormal, KaimingUniform

__all__ = ["KaimingNormal", "KaimingUniform"]
