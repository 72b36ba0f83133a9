"""InferMeta of the normalization ops: batch_norm, layer_norm, group_norm, instance_norm (issue #10)."""
from __future__ import annotations

import math

from ..core.errors import InvalidArgumentError
from .checks import same_dtype

__all__ = ["layer_norm_grad_infer_meta", "layer_norm_infer_meta"]


def _check_float(arg, t):
    if not t.dtype.is_floating_point:
        raise InvalidArgumentError(f"argument '{arg}' expected a floating-point tensor, got {t.dtype}")


def _check_epsilon(epsilon):
    if not epsilon >= 0:
        raise InvalidArgumentError(f"argument 'epsilon' expected a number >= 0, got {epsilon}")


def _check_affine(arg, t, x, shapes, what):
    """scale or bias (if given): x's dtype and one of ``shapes``."""
    if t is None:
        return
    same_dtype("x", x, arg, t)
    if tuple(t.dims) not in shapes:
        raise InvalidArgumentError(f"argument '{arg}' expected shape {' or '.join(str(list(s)) for s in shapes)} "
                                   f"({what}), got {list(t.dims)}")


def layer_norm_infer_meta(x, scale, bias, epsilon, begin_norm_axis, out, mean, variance) -> None:
    """x [d0, ..., dk]; the axes from begin_norm_axis on are normalized; scale and
    bias have those axes' shape (or are flat); mean and variance are [left]."""
    dims = tuple(x.dims)
    _check_float("x", x)
    if not 0 <= begin_norm_axis < len(dims):
        raise InvalidArgumentError(f"argument 'begin_norm_axis' expected an axis in [0, {len(dims)}) of x "
                                   f"(shape {list(dims)}), got {begin_norm_axis}")
    _check_epsilon(epsilon)
    trailing = dims[begin_norm_axis:]
    right = math.prod(trailing)
    if right == 0:
        raise InvalidArgumentError(f"argument 'x' has no elements to normalize: shape {list(dims)}, normalized "
                                   f"axes from {begin_norm_axis}")
    shapes = (trailing, (right,))
    _check_affine("scale", scale, x, shapes, "the normalized axes of x")
    _check_affine("bias", bias, x, shapes, "the normalized axes of x")
    out.dims, out.dtype, out.layout = dims, x.dtype, x.layout
    left = (math.prod(dims[:begin_norm_axis]),)
    mean.dims, mean.dtype = left, x.dtype
    variance.dims, variance.dtype = left, x.dtype


def layer_norm_grad_infer_meta(x, scale, bias, mean, variance, out_grad, epsilon, begin_norm_axis,
                               x_grad, scale_grad, bias_grad) -> None:
    if tuple(out_grad.dims) != tuple(x.dims) or out_grad.dtype is not x.dtype:
        raise InvalidArgumentError(f"argument 'out_grad' expected {x.dtype}{list(x.dims)} (the shape of x), got "
                                   f"{out_grad.dtype}{list(out_grad.dims)}")
    x_grad.share_meta(x)
    if scale is not None:
        scale_grad.share_meta(scale)
    if bias is not None:
        bias_grad.share_meta(bias)
