"""Paddle's ``paddle.nn.layer.conv`` path: the layers Paddle defines in that file, re-exported
from the eager.nn modules that implement them (the objects of ``eager.nn``, not copies)."""
from ..conv import Conv1D, Conv1DTranspose, Conv2D, Conv2DTranspose, Conv3D, Conv3DTranspose

__all__ = ['Conv1D', 'Conv1DTranspose', 'Conv2D', 'Conv2DTranspose', 'Conv3D', 'Conv3DTranspose']
