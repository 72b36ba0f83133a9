"""Paddle's ``paddle.incubate.nn``: the fused transformer layers, and their
functionals in ``eager.incubate.nn.functional``.

>>> eager.incubate.nn.FusedLinear(3, 4).weight.shape
[3, 4]
"""
from . import functional
from .layer import (FusedBiasDropoutResidualLayerNorm, FusedDropout, FusedDropoutAdd, FusedEcMoe, FusedFeedForward,
                    FusedLinear, FusedMultiHeadAttention, FusedMultiTransformer, FusedTransformerEncoderLayer)

__all__ = ["FusedBiasDropoutResidualLayerNorm", "FusedDropout", "FusedDropoutAdd", "FusedEcMoe", "FusedFeedForward",
           "FusedLinear", "FusedMultiHeadAttention", "FusedMultiTransformer", "FusedTransformerEncoderLayer",
           "functional"]
