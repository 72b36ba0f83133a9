"""InferMeta of the normalization ops: batch_norm, layer_norm, group_norm, instance_norm (issue #10).

norm_layout (shared with the kernels and the composite rules) says how each
op sees x: a view shape, the axes one group of statistics reduces over, and
the axes its scale and bias index.
"""
from __future__ import annotations

import math

from ..common.data_type import DataType
from ..core.errors import InvalidArgumentError
from .checks import same_dtype

__all__ = [
    "batch_norm_grad_infer_meta", "batch_norm_infer_meta", "group_norm_grad_infer_meta", "group_norm_infer_meta",
    "instance_norm_grad_infer_meta", "instance_norm_infer_meta", "layer_norm_grad_infer_meta",
    "layer_norm_infer_meta",
]

CHANNEL_FIRST = ("NC", "NCL", "NCHW", "NCDHW")
CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


def channel_last(data_format: str) -> bool:
    return data_format in CHANNEL_LAST


def batch_norm_global_stats(is_test: bool, use_global_stats: bool, trainable_statistics: bool) -> bool:
    """Whether batch_norm normalizes with the running statistics (and leaves
    them as they are): Paddle's rule."""
    return (is_test and not trainable_statistics) or use_global_stats


def one_value_per_channel(view, stat_axes) -> bool:
    """Whether batch statistics would be taken over a single value per channel
    (N * spatial == 1), which Paddle's batch_norm kernels pass through as y = x."""
    return math.prod(view[i] for i in stat_axes) == 1


def norm_layout(op: str, shape, begin_norm_axis=None, data_format=None, groups=None):
    """(view, stat_axes, param_axes) of x of ``shape`` for ``op`` (see the module doc)."""
    shape = tuple(shape)
    if op == "layer_norm":
        return ((math.prod(shape[:begin_norm_axis]), math.prod(shape[begin_norm_axis:])), (1,), (1,))
    last = channel_last(data_format) and len(shape) > 2
    n = shape[0]
    c = shape[-1] if last else shape[1]
    spatial = math.prod(shape[1:-1] if last else shape[2:])
    if op == "batch_norm":
        return ((n * spatial, c), (0,), (1,)) if last else ((n, c, spatial), (0, 2), (1,))
    if op == "instance_norm":
        return ((n, spatial, c), (1,), (2,)) if last else ((n, c, spatial), (2,), (1,))
    if op == "group_norm":
        per = c // groups
        return ((n, spatial, groups, per), (1, 3), (2, 3)) if last else ((n, groups, per, spatial), (2, 3), (1, 2))
    raise ValueError(f"norm_layout: unknown op {op!r}")


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


def _check_format(data_format, dims, min_rank, formats=CHANNEL_FIRST + CHANNEL_LAST, max_rank=5):
    if data_format not in formats:
        raise InvalidArgumentError(f"argument 'data_format' expected one of {list(formats)}, got {data_format!r}")
    if max_rank is None and len(dims) < min_rank:
        raise InvalidArgumentError(f"argument 'x' expected a tensor of rank {min_rank} or more ([N, C, ...] or "
                                   f"channel-last), got shape {list(dims)}")
    if max_rank is not None and not min_rank <= len(dims) <= max_rank:
        raise InvalidArgumentError(f"argument 'x' expected a tensor of rank {min_rank} to {max_rank} ([N, C, ...] "
                                   f"or channel-last), got shape {list(dims)}")


def _channels(dims, data_format):
    return dims[-1] if channel_last(data_format) and len(dims) > 2 else dims[1]


def _set(meta, dims, dtype, layout=None):
    meta.dims, meta.dtype = tuple(dims), dtype
    if layout is not None:
        meta.layout = layout


def _check_out_grad(x, out_grad):
    if tuple(out_grad.dims) != tuple(x.dims) or out_grad.dtype is not x.dtype:
        raise InvalidArgumentError(f"argument 'out_grad' expected {x.dtype}{list(x.dims)} (the shape of x), got "
                                   f"{out_grad.dtype}{list(out_grad.dims)}")


def _affine_grads(x, scale, bias, x_grad, scale_grad, bias_grad):
    x_grad.share_meta(x)
    if scale is not None:
        scale_grad.share_meta(scale)
    if bias is not None:
        bias_grad.share_meta(bias)


# -- layer_norm -------------------------------------------------------------------

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
    _set(out, dims, x.dtype, x.layout)
    left = (math.prod(dims[:begin_norm_axis]),)
    _set(mean, left, x.dtype)
    _set(variance, left, x.dtype)


def layer_norm_grad_infer_meta(x, scale, bias, mean, variance, out_grad, epsilon, begin_norm_axis,
                               x_grad, scale_grad, bias_grad) -> None:
    _check_out_grad(x, out_grad)
    _affine_grads(x, scale, bias, x_grad, scale_grad, bias_grad)


# -- batch_norm -------------------------------------------------------------------

def batch_norm_infer_meta(x, mean, variance, scale, bias, is_test, momentum, epsilon, data_format, use_global_stats,
                          trainable_statistics, out, mean_out, variance_out, saved_mean, saved_variance) -> None:
    """x [N, C, ...] (or channel-last); mean, variance (the running statistics),
    scale and bias are [C]; running statistics of a float16 x may be float32."""
    dims = tuple(x.dims)
    _check_float("x", x)
    _check_format(data_format, dims, 2)
    _check_epsilon(epsilon)
    if not 0.0 <= momentum <= 1.0:
        raise InvalidArgumentError(f"argument 'momentum' expected a number in [0, 1], got {momentum}")
    c = _channels(dims, data_format)
    for arg, t in (("mean", mean), ("variance", variance)):
        if tuple(t.dims) != (c,):
            raise InvalidArgumentError(f"argument '{arg}' expected shape [{c}] (one per channel of x, shape "
                                       f"{list(dims)}, data_format {data_format!r}), got {list(t.dims)}")
        if t.dtype is not x.dtype and not (x.dtype is DataType.FLOAT16 and t.dtype is DataType.FLOAT32):
            raise InvalidArgumentError(f"argument '{arg}' expected dtype {x.dtype} (that of x), got {t.dtype}")
    what = f"one per channel of x, shape {list(dims)}, data_format {data_format!r}"
    _check_affine("scale", scale, x, ((c,),), what)
    _check_affine("bias", bias, x, ((c,),), what)
    if not batch_norm_global_stats(is_test, use_global_stats, trainable_statistics) and math.prod(dims) == 0:
        raise InvalidArgumentError(f"argument 'x' has no elements to compute batch statistics from: shape "
                                   f"{list(dims)}")
    _set(out, dims, x.dtype, x.layout)
    _set(mean_out, (c,), mean.dtype)
    _set(variance_out, (c,), variance.dtype)
    _set(saved_mean, (c,), x.dtype)
    _set(saved_variance, (c,), x.dtype)


def batch_norm_grad_infer_meta(x, scale, bias, saved_mean, saved_variance, out_grad, momentum, epsilon, data_format,
                               is_test, use_global_stats, trainable_statistics, x_grad, scale_grad,
                               bias_grad) -> None:
    _check_out_grad(x, out_grad)
    _check_format(data_format, tuple(x.dims), 2)
    _affine_grads(x, scale, bias, x_grad, scale_grad, bias_grad)


# -- instance_norm and group_norm ---------------------------------------------------

def instance_norm_infer_meta(x, scale, bias, epsilon, data_format, out, saved_mean, saved_variance) -> None:
    """x [N, C, spatial...] (or channel-last, at least one spatial axis); scale
    and bias [C]; saved_mean and saved_variance [N * C]."""
    dims = tuple(x.dims)
    _check_float("x", x)
    _check_format(data_format, dims, 3, CHANNEL_FIRST[1:] + CHANNEL_LAST)
    _check_epsilon(epsilon)
    c = _channels(dims, data_format)
    what = f"one per channel of x, shape {list(dims)}, data_format {data_format!r}"
    _check_affine("scale", scale, x, ((c,),), what)
    _check_affine("bias", bias, x, ((c,),), what)
    _set(out, dims, x.dtype, x.layout)
    _set(saved_mean, (dims[0] * c,), x.dtype)
    _set(saved_variance, (dims[0] * c,), x.dtype)


def instance_norm_grad_infer_meta(x, scale, bias, saved_mean, saved_variance, out_grad, epsilon, data_format,
                                  x_grad, scale_grad, bias_grad) -> None:
    _check_out_grad(x, out_grad)
    _affine_grads(x, scale, bias, x_grad, scale_grad, bias_grad)


def group_norm_infer_meta(x, scale, bias, epsilon, groups, data_format, out, mean, variance) -> None:
    """x [N, C, ...] (or channel-last); groups divides C; scale and bias [C];
    mean and variance [N, groups]."""
    dims = tuple(x.dims)
    _check_float("x", x)
    _check_format(data_format, dims, 2, max_rank=None)   # Paddle's group_norm takes any rank from 2
    _check_epsilon(epsilon)
    c = _channels(dims, data_format)
    if groups < 1 or c % groups:
        raise InvalidArgumentError(f"argument 'groups' expected a positive divisor of the channels of x ({c}, "
                                   f"shape {list(dims)}, data_format {data_format!r}), got {groups}")
    what = f"one per channel of x, shape {list(dims)}, data_format {data_format!r}"
    _check_affine("scale", scale, x, ((c,),), what)
    _check_affine("bias", bias, x, ((c,),), what)
    _set(out, dims, x.dtype, x.layout)
    _set(mean, (dims[0], groups), x.dtype)
    _set(variance, (dims[0], groups), x.dtype)


def group_norm_grad_infer_meta(x, scale, bias, mean, variance, out_grad, epsilon, groups, data_format,
                               x_grad, scale_grad, bias_grad) -> None:
    _check_out_grad(x, out_grad)
    _affine_grads(x, scale, bias, x_grad, scale_grad, bias_grad)
