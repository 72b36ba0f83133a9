"""Paddle's ``paddle.nn.layer.vision`` path: the layers Paddle defines in that file, re-exported
from the eager.nn modules that implement them (the objects of ``eager.nn``, not copies)."""
from ..vision import PixelShuffle, PixelUnshuffle, ChannelShuffle

__all__ = ['PixelShuffle', 'PixelUnshuffle', 'ChannelShuffle']
