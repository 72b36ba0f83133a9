"""Paddle's ``paddle.nn.layer.pooling`` path: the layers Paddle defines in that file, re-exported
from the eager.nn modules that implement them (the objects of ``eager.nn``, not copies)."""
from ..pooling import (AvgPool1D, AvgPool2D, AvgPool3D, MaxPool1D, MaxPool2D, MaxPool3D, AdaptiveAvgPool1D,
    AdaptiveAvgPool2D, AdaptiveAvgPool3D, AdaptiveMaxPool1D, AdaptiveMaxPool2D, AdaptiveMaxPool3D, MaxUnPool1D,
    MaxUnPool2D, MaxUnPool3D)

__all__ = ['AvgPool1D', 'AvgPool2D', 'AvgPool3D', 'MaxPool1D', 'MaxPool2D', 'MaxPool3D', 'AdaptiveAvgPool1D',
           'AdaptiveAvgPool2D', 'AdaptiveAvgPool3D', 'AdaptiveMaxPool1D', 'AdaptiveMaxPool2D', 'AdaptiveMaxPool3D',
           'MaxUnPool1D', 'MaxUnPool2D', 'MaxUnPool3D']
