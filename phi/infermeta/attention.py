"""InferMeta of the dropout and attention ops (issue #10)."""
from __future__ import annotations

import math

from ..common.data_type import FLOATING_TYPES, DataType
from ..core.errors import InvalidArgumentError
from .checks import normalize_axes

__all__ = ["dropout_grad_infer_meta", "dropout_infer_meta"]

_MODES = ("upscale_in_train", "downscale_in_infer")


def _check_p(p) -> None:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or math.isnan(p) or not 0 <= p <= 1:
        raise InvalidArgumentError(f"argument 'p' expected a probability in [0, 1], got {p!r}")


def _check_mode(mode) -> None:
    if mode not in _MODES:
        raise InvalidArgumentError(f"argument 'mode' expected 'upscale_in_train' or 'downscale_in_infer', "
                                   f"got {mode!r}")


def dropout_mask_dims(dims, axis) -> tuple:
    """The mask's shape: x's dims along ``axis`` (every axis when empty), 1 elsewhere,
    so one draw is shared along the other axes."""
    axes = normalize_axes("axis", axis, len(dims))
    return tuple(d if i in axes else 1 for i, d in enumerate(dims))


def dropout_factor(p: float, is_test: bool, mode: str) -> float:
    """What dropout multiplies a kept element by (its gradient too): 1/(1-p) in
    training with upscale_in_train (0 when p is 1: everything is dropped), 1-p at
    inference with downscale_in_infer, else 1."""
    if is_test:
        return 1.0 - p if mode == "downscale_in_infer" else 1.0
    if mode == "upscale_in_train":
        return 0.0 if p >= 1.0 else 1.0 / (1.0 - p)
    return 1.0


def dropout_infer_meta(x, p, is_test, mode, axis, seed, out, mask) -> None:
    """out shaped like x; mask (uint8, 1 = kept) shaped like x with the axes outside
    ``axis`` set to 1."""
    if x.dtype not in FLOATING_TYPES:
        raise InvalidArgumentError(f"argument 'x' expected a floating-point tensor, got {x.dtype}")
    _check_p(p)
    _check_mode(mode)
    if seed < 0:
        raise InvalidArgumentError(f"argument 'seed' expected an int >= 0 (0: the global generator), got {seed}")
    out.dims, out.dtype, out.layout = x.dims, x.dtype, x.layout
    mask.dims, mask.dtype, mask.layout = dropout_mask_dims(tuple(x.dims), axis), DataType.UINT8, x.layout


def dropout_grad_infer_meta(mask, out_grad, p, is_test, mode, x_grad) -> None:
    """x_grad shaped like out_grad; the mask must broadcast to it without growing it."""
    if out_grad.dtype not in FLOATING_TYPES:
        raise InvalidArgumentError(f"argument 'out_grad' expected a floating-point tensor, got {out_grad.dtype}")
    if mask.dtype not in (DataType.UINT8, DataType.BOOL):
        raise InvalidArgumentError(f"argument 'mask' expected a uint8 or bool tensor, got {mask.dtype}")
    m, g = tuple(mask.dims), tuple(out_grad.dims)
    if len(m) != len(g) or any(a not in (b, 1) for a, b in zip(m, g)):
        raise InvalidArgumentError(f"argument 'mask' with shape {list(m)} expected the shape of out_grad "
                                   f"{list(g)}, or that shape with some axes set to 1")
    _check_p(p)
    _check_mode(mode)
    x_grad.dims, x_grad.dtype, x_grad.layout = out_grad.dims, out_grad.dtype, out_grad.layout
