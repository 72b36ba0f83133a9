"""Paddle's ``paddle.nn.layer.norm`` path: the layers Paddle defines in that file, re-exported
from the eager.nn modules that implement them (the objects of ``eager.nn``, not copies)."""
from ..norm import (InstanceNorm1D, InstanceNorm2D, InstanceNorm3D, GroupNorm, LayerNorm, BatchNorm, BatchNorm1D,
    BatchNorm2D, BatchNorm3D, LocalResponseNorm, SpectralNorm)
from ..sync_batch_norm import SyncBatchNorm

__all__ = ['InstanceNorm1D', 'InstanceNorm2D', 'InstanceNorm3D', 'GroupNorm', 'LayerNorm', 'BatchNorm',
           'BatchNorm1D', 'BatchNorm2D', 'BatchNorm3D', 'SyncBatchNorm', 'LocalResponseNorm', 'SpectralNorm']
