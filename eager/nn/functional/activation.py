"""Activation functions (Paddle's ``paddle.nn.functional.activation``)."""
from __future__ import annotations

from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import check_axis, check_float, check_tensor


def relu(x: Tensor, name=None) -> Tensor:
    """max(x, 0) elementwise."""
    return _F.relu(check_tensor("relu", "x", x))


def sigmoid(x: Tensor, name=None) -> Tensor:
    """1 / (1 + exp(-x)) elementwise."""
    return _F.sigmoid(check_float("sigmoid", "x", x))


def tanh(x: Tensor, name=None) -> Tensor:
    """Hyperbolic tangent elementwise."""
    return _F.tanh(check_float("tanh", "x", x))


def softmax(x: Tensor, axis: int = -1, dtype=None, name=None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``axis``, computed stably (a fused kernel).

    >>> eager.nn.functional.softmax(eager.to_tensor([1.0, 2.0, 3.0])).numpy().round(3)
    array([0.09 , 0.245, 0.665], dtype=float32)
    """
    check_float("softmax", "x", x)
    if dtype is not None:
        x = x.astype(dtype)
    return _F.softmax(x, check_axis("softmax", x, axis))


def log_softmax(x: Tensor, axis: int = -1, dtype=None, name=None) -> Tensor:
    """log(softmax(x)) along ``axis``, computed stably (a fused kernel)."""
    check_float("log_softmax", "x", x)
    if dtype is not None:
        x = x.astype(dtype)
    return _F.log_softmax(x, check_axis("log_softmax", x, axis))


__all__ = ["log_softmax", "relu", "sigmoid", "softmax", "tanh"]
