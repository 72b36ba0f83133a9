"""Paddle's fused GEMM epilogues (``fused_matmul_bias``, ``fused_linear``,
``fused_linear_activation``), composed of matmul, add and the activation ops:
the same values as Paddle's fused kernels, differentiable through the ops."""
from __future__ import annotations

from ....composite._paddle_api import composed_in
from ....generated import forward_api as _F
from ....nn.functional import activation as _act
from . import _checks

_composed = composed_in(_checks.NAMESPACE)


def _matmul_bias(fn: str, x, y, bias, transpose_x: bool, transpose_y: bool):
    _checks.floating(fn, "x", x)
    _checks.like(fn, "y", y, x, optional=False)
    _checks.flag(fn, "transpose_x", transpose_x)
    _checks.flag(fn, "transpose_y", transpose_y)
    if bias is None:  # a plain matmul, batched y included (as Paddle's)
        return _F.matmul(x, y, transpose_x, transpose_y)
    if y.ndim != 2:
        raise ValueError(f"{_checks.who(fn)}: argument 'y' expected a 2-d Tensor, got shape {y.shape}")
    columns = y.shape[0] if transpose_y else y.shape[1]
    _checks.like(fn, "bias", bias, x, shape=[columns])
    return _F.add(_F.matmul(x, y, transpose_x, transpose_y), bias)


@_composed
def fused_matmul_bias(x, y, bias=None, transpose_x=False, transpose_y=False, name=None):
    """``matmul(x, y, transpose_x, transpose_y) + bias``: with a bias, y is 2-d and
    bias has its output width; without, a plain matmul.

    >>> x, w = eager.ones([2, 3]), eager.ones([3, 4])
    >>> eager.incubate.nn.functional.fused_matmul_bias(x, w, eager.ones([4])).numpy()[0]
    array([4., 4., 4., 4.], dtype=float32)
    """
    return _matmul_bias("fused_matmul_bias", x, y, bias, transpose_x, transpose_y)


@_composed
def fused_linear(x, weight, bias=None, transpose_weight=False, name=None):
    """A linear layer, ``x @ weight + bias``; ``weight`` is ``[in, out]``, or
    ``[out, in]`` with ``transpose_weight=True``.

    >>> out = eager.incubate.nn.functional.fused_linear(eager.ones([2, 3]), eager.ones([4, 3]), None, True)
    >>> out.shape
    [2, 4]
    """
    return _matmul_bias("fused_linear", x, weight, bias, False, transpose_weight)


_ACTIVATIONS = (None, "none", "relu", "gelu")


@_composed
def fused_linear_activation(x, y, bias, trans_x=False, trans_y=False, activation=None):
    """``activation(matmul(x, y, trans_x, trans_y) + bias)``; activation is None /
    'none', 'relu' or 'gelu' (the tanh approximation, as the cuBLASLt GELU
    epilogue Paddle's kernel runs).

    >>> x = eager.to_tensor([[1.0, -2.0]])
    >>> eager.incubate.nn.functional.fused_linear_activation(x, eager.ones([2, 2]), eager.zeros([2]),
    ...                                                     activation="relu").numpy()
    array([[0., 0.]], dtype=float32)
    """
    fn = "fused_linear_activation"
    if not (activation is None or isinstance(activation, str) and activation in _ACTIVATIONS):
        raise ValueError(f"{_checks.who(fn)}: argument 'activation' expected None, 'none', 'relu' or 'gelu', "
                         f"got {activation!r}")
    if bias is None:
        raise TypeError(f"{_checks.who(fn)}: argument 'bias' expected a Tensor, got None")
    out = _matmul_bias(fn, x, y, bias, trans_x, trans_y)
    if activation == "relu":
        return _act.relu(out)
    if activation == "gelu":
        return _act.gelu(out, approximate=True)
    return out


__all__ = ["fused_linear", "fused_linear_activation", "fused_matmul_bias"]
