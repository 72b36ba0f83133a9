"""Paddle's paddle.sparse.nn.functional: activations (.activation), 2-d and 3-d
convolutions (.conv), max pooling (.pooling) and attention (.transformer) of
sparse tensors.

>>> x = eager.sparse.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [1.0, 1.0, 5.0], [2, 3])
>>> eager.sparse.nn.functional.softmax(x).values().numpy()
array([0.5, 0.5, 1. ], dtype=float32)
"""
from .activation import leaky_relu, relu, relu6, softmax
from .conv import conv2d, conv3d, subm_conv2d, subm_conv3d
from .pooling import max_pool3d
from .transformer import attention

__all__ = ["attention", "conv2d", "conv3d", "leaky_relu", "max_pool3d", "relu", "relu6", "softmax", "subm_conv2d",
           "subm_conv3d"]
