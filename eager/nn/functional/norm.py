"""Normalization (Paddle's ``paddle.nn.functional``).

layer_norm calls the fused phi op ``layer_norm`` (one forward kernel that
returns the output and the statistics, one backward kernel for x, weight and
bias; a composite rule makes it differentiable again).
"""
from __future__ import annotations

import numbers

from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import check_float


def _check_epsilon(fn: str, epsilon) -> float:
    if not isinstance(epsilon, numbers.Real) or isinstance(epsilon, bool):
        raise TypeError(f"{fn}: argument 'epsilon' expected a number, got {epsilon!r}")
    if not epsilon >= 0:
        raise ValueError(f"{fn}: argument 'epsilon' expected a number >= 0, got {epsilon}")
    return float(epsilon)


def _check_affine(fn: str, arg: str, value, shape) -> None:
    """weight or bias: None, or a float Tensor of ``shape``."""
    if value is None:
        return
    check_float(fn, arg, value)
    if value.shape != list(shape):
        raise ValueError(f"{fn}: argument '{arg}' expected shape {list(shape)}, got {value.shape}")


def normalized_shape_list(fn: str, normalized_shape) -> list:
    """An int or a sequence of positive ints as a list."""
    if isinstance(normalized_shape, numbers.Integral) and not isinstance(normalized_shape, bool):
        normalized_shape = [normalized_shape]
    if (not isinstance(normalized_shape, (list, tuple)) or not normalized_shape
            or any(not isinstance(d, numbers.Integral) or isinstance(d, bool) or d <= 0 for d in normalized_shape)):
        raise ValueError(f"{fn}: argument 'normalized_shape' expected a positive int or a non-empty list of "
                         f"positive ints, got {normalized_shape!r}")
    return [int(d) for d in normalized_shape]


def layer_norm(x: Tensor, normalized_shape, weight=None, bias=None, epsilon: float = 1e-05, name=None) -> Tensor:
    """Layer normalization over the trailing axes ``normalized_shape`` of x:
    (x - mean) / sqrt(var + epsilon) * weight + bias, with the biased variance
    of each sample's trailing block. weight and bias have shape
    ``normalized_shape`` (or are None).

    >>> x = eager.to_tensor([[1.0, 2.0, 3.0], [2.0, 2.0, 5.0]])
    >>> eager.nn.functional.layer_norm(x, 3).shape
    [2, 3]
    """
    fn = "layer_norm"
    check_float(fn, "x", x)
    shape = normalized_shape_list(fn, normalized_shape)
    if x.ndim < len(shape) or x.shape[x.ndim - len(shape):] != shape:
        raise ValueError(f"{fn}: argument 'normalized_shape' {shape} must match the trailing dimensions of x, "
                         f"got x of shape {x.shape}")
    epsilon = _check_epsilon(fn, epsilon)
    _check_affine(fn, "weight", weight, shape)
    _check_affine(fn, "bias", bias, shape)
    for arg, value in (("weight", weight), ("bias", bias)):
        if value is not None and value.dtype != x.dtype:
            raise TypeError(f"{fn}: argument '{arg}' expected the dtype of x {x.dtype}, got {value.dtype}")
    return _F.layer_norm(x, weight, bias, epsilon, x.ndim - len(shape))


__all__ = ["layer_norm"]
