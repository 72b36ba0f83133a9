"""Paddle's ``paddle.nn.layer.common`` path: the layers Paddle defines in that file, re-exported
from the eager.nn modules that implement them (the objects of ``eager.nn``, not copies)."""
from ..common import Identity, Bilinear, CosineSimilarity, Flatten, Unflatten
from ..dropout import Dropout, Dropout2D, Dropout3D, AlphaDropout
from ..embedding import Embedding
from ..layers import Linear
from ..pooling import Unfold, Fold
from ..vision import Upsample, UpsamplingNearest2D, UpsamplingBilinear2D, Pad1D, Pad2D, ZeroPad2D, Pad3D

__all__ = ['Identity', 'Linear', 'Upsample', 'UpsamplingNearest2D', 'UpsamplingBilinear2D', 'Bilinear', 'Dropout',
           'Dropout2D', 'Dropout3D', 'AlphaDropout', 'Pad1D', 'Pad2D', 'ZeroPad2D', 'Pad3D', 'CosineSimilarity',
           'Embedding', 'Unfold', 'Fold', 'Flatten', 'Unflatten']
