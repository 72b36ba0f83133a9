"""Paddle's ``paddle.incubate.nn.layer.fused_transformer`` path: the fused
transformer layers of :mod:`eager.incubate.nn.layer` (the same objects)."""
from . import (FusedBiasDropoutResidualLayerNorm, FusedFeedForward, FusedMultiHeadAttention, FusedMultiTransformer,
               FusedTransformerEncoderLayer)

__all__ = ["FusedBiasDropoutResidualLayerNorm", "FusedFeedForward", "FusedMultiHeadAttention", "FusedMultiTransformer",
           "FusedTransformerEncoderLayer"]
