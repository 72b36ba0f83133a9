"""InferMeta of the activation ops beyond the spine's relu/sigmoid/tanh/softmax (issue #10).

Every activation is elementwise: out is shaped and typed like x, which must be
floating-point. The ops with attributes check them here, before any kernel
runs, with the limits Paddle's functionals enforce (and a few more where the
formula has no value: a zero ``alpha`` of celu, a zero ``beta`` of softplus).
"""
from __future__ import annotations

import math

from ..common.data_type import FLOATING_TYPES
from ..core.errors import InvalidArgumentError, UnsupportedInputDtypeError, ZeroDivisorError

__all__ = [
    "activation_infer_meta", "gelu_infer_meta", "leaky_relu_infer_meta", "elu_infer_meta", "selu_infer_meta",
    "celu_infer_meta", "softplus_infer_meta", "shrink_infer_meta", "softshrink_infer_meta", "hardtanh_infer_meta",
    "hardsigmoid_infer_meta",
]


def _finite(arg: str, value) -> None:
    if not math.isfinite(value):
        raise InvalidArgumentError(f"argument '{arg}' expected a finite number, got {value}")


def activation_infer_meta(x, out) -> None:
    """A floating-point x; out like x (silu, softsign, mish, log_sigmoid, ...)."""
    if x.dtype not in FLOATING_TYPES:
        raise UnsupportedInputDtypeError(
            f"argument 'x' expected a floating-point (float16, float32 or float64) tensor, got {x.dtype}; "
            f"cast it first, e.g. x.astype('float32')")
    out.dims = x.dims
    out.dtype = x.dtype
    out.layout = x.layout


def gelu_infer_meta(x, approximate, out) -> None:
    activation_infer_meta(x, out)


def leaky_relu_infer_meta(x, negative_slope, out) -> None:
    _finite("negative_slope", negative_slope)
    activation_infer_meta(x, out)


def elu_infer_meta(x, alpha, out) -> None:
    _finite("alpha", alpha)
    activation_infer_meta(x, out)


def selu_infer_meta(x, scale, alpha, out) -> None:
    """scale > 1 and alpha >= 0, as Paddle's selu asks."""
    if not scale > 1.0 or not math.isfinite(scale):
        raise InvalidArgumentError(f"argument 'scale' expected a finite number greater than 1.0, got {scale}")
    if not alpha >= 0.0 or not math.isfinite(alpha):
        raise InvalidArgumentError(f"argument 'alpha' expected a finite number >= 0, got {alpha}")
    activation_infer_meta(x, out)


def celu_infer_meta(x, alpha, out) -> None:
    """alpha != 0 (celu divides by it)."""
    _finite("alpha", alpha)
    if alpha == 0:
        raise ZeroDivisorError(f"argument 'alpha' expected a nonzero number (celu divides x by it), got {alpha}")
    activation_infer_meta(x, out)


def softplus_infer_meta(x, beta, threshold, out) -> None:
    """beta != 0 (softplus divides by it)."""
    _finite("beta", beta)
    if beta == 0:
        raise InvalidArgumentError(f"argument 'beta' expected a nonzero number (softplus divides by it), got {beta}")
    if math.isnan(threshold):
        raise InvalidArgumentError(f"argument 'threshold' expected a number, got {threshold}")
    activation_infer_meta(x, out)


def shrink_infer_meta(x, threshold, out) -> None:
    """A threshold that is a number (hardshrink, thresholded_relu)."""
    if math.isnan(threshold):
        raise InvalidArgumentError(f"argument 'threshold' expected a number, got {threshold}")
    activation_infer_meta(x, out)


def softshrink_infer_meta(x, threshold, out) -> None:
    """threshold >= 0, as Paddle's softshrink asks."""
    if not threshold >= 0:
        raise InvalidArgumentError(f"argument 'threshold' expected a number >= 0, got {threshold}")
    activation_infer_meta(x, out)


def hardtanh_infer_meta(x, min, max, out) -> None:  # noqa: A002  (Paddle's argument names)
    """min <= max."""
    if math.isnan(min) or math.isnan(max) or min > max:
        raise InvalidArgumentError(f"argument 'max' expected a number >= argument 'min', got min={min}, max={max}")
    activation_infer_meta(x, out)


def hardsigmoid_infer_meta(x, slope, offset, out) -> None:
    _finite("slope", slope)
    _finite("offset", offset)
    activation_infer_meta(x, out)
