"""Paddle's ``paddle.nn.layer.distance`` path: the layers Paddle defines in that file, re-exported
from the eager.nn modules that implement them (the objects of ``eager.nn``, not copies)."""
from ..common import PairwiseDistance

__all__ = ['PairwiseDistance']
