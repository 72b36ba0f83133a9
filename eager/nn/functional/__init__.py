"""Stateless functions for building networks (Paddle's ``paddle.nn.functional``).

Everything here is a call of ops from ops.yaml: convolution, softmax,
log_softmax and the two cross-entropy losses are fused phi kernels (the
softmax ones stable for any magnitude, a -inf logit included), the rest
compose differentiable ops, so gradients and higher-order gradients come from
the ops' own backward rules. Nothing reads an array or waits for the device:
label values are checked inside the kernel. One module per family, as
Paddle's: ``activation``, ``loss``, ``conv``; ``checks`` holds the shared
argument checks.
"""
from .activation import log_softmax, relu, sigmoid, softmax, tanh
from .conv import conv1d, conv2d, conv3d
from .loss import binary_cross_entropy_with_logits, cross_entropy, l1_loss, mse_loss

__all__ = [
    "binary_cross_entropy_with_logits", "conv1d", "conv2d", "conv3d", "cross_entropy", "l1_loss",
    "log_softmax", "mse_loss", "relu", "sigmoid", "softmax", "tanh",
]
