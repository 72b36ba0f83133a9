"""Paddle's ``paddle.nn.layer.transformer`` path: the layers Paddle defines in that file, re-exported
from the eager.nn modules that implement them (the objects of ``eager.nn``, not copies)."""
from ..transformer import (MultiHeadAttention, TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer,
    TransformerDecoder, Transformer)

__all__ = ['MultiHeadAttention', 'TransformerEncoderLayer', 'TransformerEncoder', 'TransformerDecoderLayer',
           'TransformerDecoder', 'Transformer']
