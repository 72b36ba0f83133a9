"""Dropout (Paddle's ``paddle.nn.functional``): dropout, dropout2d, dropout3d,
alpha_dropout, feature_alpha_dropout.

``dropout`` is the phi op of the same name: its kernel draws the keep mask from
the global generator (so ``eager.seed(n)`` reproduces it), returns it beside
the result, and ``dropout_grad`` multiplies the incoming gradient by that very
mask. With ``axis`` one draw is shared along the other axes (the mask has size
1 there); dropout2d and dropout3d are that with the batch and channel axes, so
whole feature maps are dropped. ``alpha_dropout`` and ``feature_alpha_dropout``
are compositions of a uniform draw and differentiable ops, as in Paddle.
"""
from __future__ import annotations

import math
import numbers

from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import check_float, check_tensor

_MODES = ("upscale_in_train", "downscale_in_infer")

# SELU's constants: alpha_dropout keeps a SELU network's zero mean and unit variance.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _check_p(fn: str, p, arg: str = "p") -> float:
    """A dropout probability; ``arg`` is the caller's name for it (attention's 'dropout_p')."""
    if isinstance(p, Tensor):
        if p.numel() != 1:
            raise ValueError(f"{fn}: argument '{arg}' expected a number or a one-element Tensor, got shape {p.shape}")
        p = p.item()
    if not isinstance(p, numbers.Real) or isinstance(p, bool):
        raise TypeError(f"{fn}: argument '{arg}' expected a float or an int, got {type(p).__name__}")
    p = float(p)
    if math.isnan(p) or not 0.0 <= p <= 1.0:
        raise ValueError(f"{fn}: argument '{arg}' expected a probability in [0, 1], got {p}")
    return p


def _check_training(fn: str, training) -> bool:
    if not isinstance(training, bool):
        raise TypeError(f"{fn}: argument 'training' expected a bool, got {type(training).__name__}")
    return training


def _check_axes(fn: str, x: Tensor, axis) -> list:
    """axis (None: every axis, an int, or a list of ints) as a sorted list of non-negative axes."""
    if axis is None:
        return []
    if isinstance(axis, numbers.Integral) and not isinstance(axis, bool):
        axis = [axis]
    if (not isinstance(axis, (list, tuple)) or not axis
            or any(not isinstance(a, numbers.Integral) or isinstance(a, bool) for a in axis)):
        raise TypeError(f"{fn}: argument 'axis' expected None, an int or a non-empty list of ints, got {axis!r}")
    ndim = x.ndim
    out = []
    for a in axis:
        if not -ndim <= a < ndim:
            raise ValueError(f"{fn}: argument 'axis' expected axes in [{-ndim}, {ndim}) for x of shape "
                             f"{x.shape}, got {list(axis)}")
        if a % ndim not in out:   # a repeated axis is the same axis, as in Paddle
            out.append(int(a) % ndim)
    return sorted(out)


def dropout(x: Tensor, p=0.5, axis=None, training: bool = True, mode: str = "upscale_in_train",
            name=None) -> Tensor:
    """Sets each element of x to zero with probability ``p`` during training.

    ``mode="upscale_in_train"`` (the default) scales the kept elements by
    1 / (1 - p) in training and leaves x as it is at inference;
    ``"downscale_in_infer"`` keeps them unscaled in training and multiplies x by
    (1 - p) at inference. ``axis`` (an int or a list) draws the mask only along
    those axes and shares it along the others: ``axis=[0, 1]`` on [N, C, H, W]
    drops whole channels. ``p=0`` returns x itself; ``p=1`` gives zeros. The
    mask comes from the global generator, so ``eager.seed`` reproduces it, and
    the backward pass reuses it.

    >>> eager.seed(0)
    >>> x = eager.ones([2, 4])
    >>> y = eager.nn.functional.dropout(x, p=0.5)   # entries are 0 or 2
    >>> eager.nn.functional.dropout(x, p=0.5, training=False).numpy()
    array([[1., 1., 1., 1.],
           [1., 1., 1., 1.]], dtype=float32)
    """
    fn = "dropout"
    check_tensor(fn, "x", x)
    p = _check_p(fn, p)
    training = _check_training(fn, training)
    if not isinstance(mode, str) or mode not in _MODES:
        raise ValueError(f"{fn}: argument 'mode' expected 'upscale_in_train' or 'downscale_in_infer', got {mode!r}")
    axes = _check_axes(fn, x, axis)
    if p == 0.0:
        return x  # nothing dropped and nothing scaled, in either mode, whatever the dtype (as Paddle returns x)
    check_float(fn, "x", x)
    return _F.dropout(x, p, not training, mode, axes, 0)


def _channel_dropout(fn: str, x, p, training, data_format, k: int):
    formats = ("NCHW", "NHWC") if k == 2 else ("NCDHW", "NDHWC")
    check_tensor(fn, "x", x)
    if x.ndim != k + 2:
        raise ValueError(f"{fn}: argument 'x' expected a {k + 2}-d tensor ({formats[0]} or {formats[1]}), "
                         f"got shape {x.shape}")
    if not isinstance(data_format, str) or data_format not in formats:
        raise ValueError(f"{fn}: argument 'data_format' expected {formats[0]!r} or {formats[1]!r}, got "
                         f"{data_format!r}")
    channel = 1 if data_format == formats[0] else k + 1
    p = _check_p(fn, p)
    training = _check_training(fn, training)
    if p == 0.0:
        return x    # whatever the dtype, as Paddle's dropout returns it
    check_float(fn, "x", x)
    return _F.dropout(x, p, not training, "upscale_in_train", [0, channel], 0)


def dropout2d(x: Tensor, p=0.5, training: bool = True, data_format: str = "NCHW", name=None) -> Tensor:
    """Drops whole channels of a 4-d x ([N, C, H, W], or [N, H, W, C] with
    ``data_format="NHWC"``) with probability ``p``, scaling the kept ones by
    1 / (1 - p) in training; identity at inference.

    >>> y = eager.nn.functional.dropout2d(eager.ones([2, 3, 4, 4]), p=0.5)
    >>> y.shape
    [2, 3, 4, 4]
    """
    return _channel_dropout("dropout2d", x, p, training, data_format, 2)


def dropout3d(x: Tensor, p=0.5, training: bool = True, data_format: str = "NCDHW", name=None) -> Tensor:
    """Drops whole channels of a 5-d x ([N, C, D, H, W], or [N, D, H, W, C] with
    ``data_format="NDHWC"``) with probability ``p``, scaling the kept ones by
    1 / (1 - p) in training; identity at inference.

    >>> y = eager.nn.functional.dropout3d(eager.ones([2, 3, 2, 4, 4]), p=0.5)
    >>> y.shape
    [2, 3, 2, 4, 4]
    """
    return _channel_dropout("dropout3d", x, p, training, data_format, 3)


def _alpha_dropout(fn: str, x, p, training, channel_wise: bool):
    check_float(fn, "x", x)
    if channel_wise and x.ndim < 2:
        raise ValueError(f"{fn}: argument 'x' expected a tensor of at least 2 dimensions [N, C, ...], got "
                         f"shape {x.shape}")
    p = _check_p(fn, p)
    training = _check_training(fn, training)
    if not training:
        return x
    if p == 1.0:
        return _F.scale(x, 0.0, 0.0, True)
    alpha_p = -_SELU_ALPHA * _SELU_SCALE
    a = ((1.0 - p) * (1.0 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    # Kept where a uniform [0, 1) draw is >= p (Paddle draws the mask the same way);
    # channel-wise, one draw per [N, C] entry, shared over the rest.
    mask_shape = x.shape[:2] + [1] * (x.ndim - 2) if channel_wise else x.shape
    draws = _F.uniform(mask_shape, "float32", 0.0, 1.0, 0, x.place)
    keep = _F.cast(_F.greater_equal(draws, _F.full([], p, "float32", x.place)), x.dtype)
    # a * (x * keep + alpha_p * (1 - keep)) + b
    dropped_value = _F.scale(_F.scale(keep, -1.0, 1.0, True), alpha_p, 0.0, True)
    return _F.scale(_F.add(_F.multiply(x, keep), dropped_value), a, b, True)


def alpha_dropout(x: Tensor, p=0.5, training: bool = True, name=None) -> Tensor:
    """Dropout for SELU networks: dropped elements are set to SELU's negative
    saturation -alpha * scale instead of 0, then an affine map a * y + b restores
    zero mean and unit variance (for inputs with those moments). Identity at
    inference; ``p=1`` gives zeros.

    >>> eager.seed(0)
    >>> y = eager.nn.functional.alpha_dropout(eager.randn([1000]), p=0.2)
    >>> abs(float(y.mean())) < 0.2 and abs(float(y.std()) - 1) < 0.2
    True
    """
    return _alpha_dropout("alpha_dropout", x, p, training, channel_wise=False)


def feature_alpha_dropout(x: Tensor, p=0.5, training: bool = True, name=None) -> Tensor:
    """Alpha dropout of whole channels: x is [N, C, ...] and each of its N * C
    feature maps is kept or set to SELU's negative saturation as a whole (then
    the same affine map as :func:`alpha_dropout`). Identity at inference.

    >>> y = eager.nn.functional.feature_alpha_dropout(eager.randn([2, 3, 4, 4]), p=0.5)
    >>> y.shape
    [2, 3, 4, 4]
    """
    return _alpha_dropout("feature_alpha_dropout", x, p, training, channel_wise=True)


__all__ = ["alpha_dropout", "dropout", "dropout2d", "dropout3d", "feature_alpha_dropout"]
