"""Paddle's ``paddle.nn.layer.layers`` path: the layers Paddle defines in that file, re-exported
from the eager.nn modules that implement them (the objects of ``eager.nn``, not copies)."""
from . import Layer

__all__ = ['Layer']
