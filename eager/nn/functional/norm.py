"""Normalization (Paddle's ``paddle.nn.functional``).

batch_norm, layer_norm, instance_norm and group_norm call fused phi ops (one
forward kernel that returns the output and the statistics it used, one
backward kernel for x, weight and bias; composite rules make them
differentiable again). batch_norm's op writes no input: it returns the new
running statistics, which this module stores into ``running_mean`` and
``running_var`` in place (bumping their versions) when batch statistics were
used. local_response_norm and normalize are compositions of ops.
"""
from __future__ import annotations

import math
import numbers

from phi.core.errors import InvalidDtypeError

from ...arguments import to_bool
from ...autograd.inplace import write_inplace
from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import check_axis, check_float, check_positive_int, check_tensor, dtypes_differ

_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")
_CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


def check_epsilon(fn: str, epsilon) -> float:
    if not isinstance(epsilon, numbers.Real) or isinstance(epsilon, bool):
        raise TypeError(f"{fn}: argument 'epsilon' expected a number, got {epsilon!r}")
    if not epsilon >= 0:
        raise ValueError(f"{fn}: argument 'epsilon' expected a number >= 0, got {epsilon}")
    return float(epsilon)


def _check_affine(fn: str, arg: str, value, shape, flat_too: bool = False) -> None:
    """weight or bias: None, or a float Tensor of ``shape`` (or, with ``flat_too``,
    of its element count: layer_norm's flattened form, Paddle's own)."""
    if value is None:
        return
    check_float(fn, arg, value)
    if value.shape != list(shape) and not (flat_too and value.shape == [math.prod(shape)]):
        flat = f" or [{math.prod(shape)}]" if flat_too else ""
        raise ValueError(f"{fn}: argument '{arg}' expected shape {list(shape)}{flat}, got {value.shape}")


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
    ``normalized_shape`` or are flat (Paddle's form, what LayerNorm holds), or None.

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
    epsilon = check_epsilon(fn, epsilon)
    _check_affine(fn, "weight", weight, shape, flat_too=True)
    _check_affine(fn, "bias", bias, shape, flat_too=True)
    for arg, value in (("weight", weight), ("bias", bias)):
        if value is not None and dtypes_differ(x, value):
            # Paddle's kernel raises ValueError (InvalidArgument) for it: InvalidDtypeError is both
            raise InvalidDtypeError(f"{fn}: argument '{arg}' expected the dtype of x {x.dtype}, got {value.dtype}")
    return _F.layer_norm(x, weight, bias, epsilon, x.ndim - len(shape))


def _check_format(fn: str, data_format, formats=_FORMATS) -> str:
    if not isinstance(data_format, str) or data_format not in formats:
        raise ValueError(f"{fn}: argument 'data_format' expected one of {list(formats)}, got {data_format!r}")
    return data_format


def channel_axis(x: Tensor, data_format: str) -> int:
    return x.ndim - 1 if data_format in _CHANNEL_LAST and x.ndim > 2 else 1


def _check_rank(fn: str, x: Tensor, low: int, high: int | None = 5) -> None:
    if high is None and x.ndim < low:
        raise ValueError(f"{fn}: argument 'x' expected a tensor of rank {low} or more ([N, C, ...] or "
                         f"channel-last), got shape {x.shape}")
    if high is not None and not low <= x.ndim <= high:
        raise ValueError(f"{fn}: argument 'x' expected a tensor of rank {low} to {high} ([N, C, ...] or "
                         f"channel-last), got shape {x.shape}")


def _check_per_channel(fn: str, x: Tensor, data_format: str, **tensors) -> int:
    """Each given tensor must be a float [C] of x's dtype; returns C."""
    channels = x.shape[channel_axis(x, data_format)]
    for arg, value in tensors.items():
        if value is None:
            continue
        check_float(fn, arg, value)
        if value.shape != [channels]:
            raise ValueError(f"{fn}: argument '{arg}' expected shape [{channels}] (x of shape {x.shape} has "
                             f"{channels} channels in data_format {data_format!r}), got {value.shape}")
    return channels


def _check_same_dtype(fn: str, x: Tensor, **tensors) -> None:
    for arg, value in tensors.items():
        if value is not None and dtypes_differ(x, value):
            # Paddle's kernels raise ValueError (InvalidArgument) for it: InvalidDtypeError is both
            raise InvalidDtypeError(f"{fn}: argument '{arg}' expected the dtype of x {x.dtype}, got {value.dtype}")


def batch_norm(x: Tensor, running_mean: Tensor, running_var: Tensor, weight=None, bias=None, training: bool = False,
               momentum: float = 0.9, epsilon: float = 1e-05, data_format: str = "NCHW", use_global_stats=None,
               name=None) -> Tensor:
    """Batch normalization per channel: (x - mean) / sqrt(var + epsilon) * weight + bias.

    The statistics are the batch's (mean and biased variance over every axis
    but the channel's) when ``training`` (or ``use_global_stats=False``), and
    then running_mean and running_var become ``momentum * running + (1 -
    momentum) * batch`` in place (Paddle's convention: momentum weighs the old
    value); otherwise (eval, or ``use_global_stats=True``) the running ones are
    used and left as they are. ``data_format``: "NC", "NCL", "NCHW", "NCDHW"
    or channel-last "NLC", "NHWC", "NDHWC".

    >>> x = eager.to_tensor([[1.0, 2.0], [3.0, 6.0]])
    >>> mean, var = eager.zeros([2]), eager.ones([2])
    >>> out = eager.nn.functional.batch_norm(x, mean, var, training=True)
    >>> mean.numpy().tolist()
    [0.20000000298023224, 0.4000000059604645]
    """
    fn = "batch_norm"
    check_float(fn, "x", x)
    _check_rank(fn, x, 2)
    _check_format(fn, data_format)
    check_tensor(fn, "running_mean", running_mean)
    check_tensor(fn, "running_var", running_var)
    _check_per_channel(fn, x, data_format, running_mean=running_mean, running_var=running_var, weight=weight,
                       bias=bias)
    _check_same_dtype(fn, x, weight=weight, bias=bias)
    epsilon = check_epsilon(fn, epsilon)
    if not isinstance(momentum, numbers.Real) or isinstance(momentum, bool) or not 0.0 <= momentum <= 1.0:
        raise ValueError(f"{fn}: argument 'momentum' expected a number in [0, 1], got {momentum!r}")
    training = to_bool(training, fn, "training")
    if use_global_stats is None:
        use_global_stats, trainable_statistics = not training, False
    else:
        use_global_stats = to_bool(use_global_stats, fn, "use_global_stats")
        trainable_statistics = not use_global_stats
    return run_batch_norm(fn, x, running_mean, running_var, weight, bias, not training, float(momentum), epsilon,
                          data_format, use_global_stats, trainable_statistics)


def run_batch_norm(fn, x, running_mean, running_var, weight, bias, is_test, momentum, epsilon, data_format,
                   use_global_stats, trainable_statistics) -> Tensor:
    """The batch_norm op with Paddle's flags; when it used batch statistics, the
    new running statistics it returns are written into running_mean and
    running_var (in place, bumping their versions)."""
    _check_per_channel(fn, x, data_format, running_mean=running_mean, running_var=running_var, weight=weight,
                       bias=bias)
    out, mean_out, variance_out = _F.batch_norm(x, running_mean, running_var, weight, bias, is_test, momentum,
                                                epsilon, data_format, use_global_stats, trainable_statistics)
    if not ((is_test and not trainable_statistics) or use_global_stats):   # batch statistics were used
        write_inplace(fn, running_mean, mean_out.impl)
        write_inplace(fn, running_var, variance_out.impl)
    return out


def instance_norm(x: Tensor, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.9, eps: float = 1e-05,
                  data_format: str = "NCHW", name=None) -> Tensor:
    """Instance normalization: each sample's channel standardized over its spatial
    axes (mean and biased variance), then * weight + bias per channel. A 2-D
    x [N, C] has no spatial axis: each element is its own instance.

    With ``use_input_stats=False`` and running statistics given, they are used
    instead (the same per-channel affine map as batch_norm in eval mode).

    >>> x = eager.to_tensor([[[1.0, 2.0, 3.0], [0.0, 0.0, 6.0]]])
    >>> eager.nn.functional.instance_norm(x, data_format="NCL").shape
    [1, 2, 3]
    """
    fn = "instance_norm"
    check_float(fn, "x", x)
    _check_rank(fn, x, 2)
    _check_format(fn, data_format, _FORMATS[1:])
    _check_per_channel(fn, x, data_format, weight=weight, bias=bias, running_mean=running_mean,
                       running_var=running_var)
    _check_same_dtype(fn, x, weight=weight, bias=bias)
    eps = check_epsilon(fn, eps)
    if not to_bool(use_input_stats, fn, "use_input_stats"):
        if running_mean is None or running_var is None:
            raise ValueError(f"{fn}: use_input_stats=False needs running_mean and running_var")
        return _F.batch_norm(x, running_mean, running_var, weight, bias, True, float(momentum), eps, data_format,
                             True, False)[0]
    if x.ndim == 2:
        # [N, C], as Paddle (and its InstanceNorm1D) take it: instances of one
        # element each, so the result is the bias (0 without one)
        return _F.squeeze(_F.instance_norm(_F.unsqueeze(x, [2]), weight, bias, eps, "NCL"), [2])
    return _F.instance_norm(x, weight, bias, eps, data_format)


def group_norm(x: Tensor, num_groups: int, epsilon: float = 1e-05, weight=None, bias=None,
               data_format: str = "NCHW", name=None) -> Tensor:
    """Group normalization: the channels of each sample split into ``num_groups``
    groups, each standardized over its channels and spatial axes (mean and
    biased variance), then * weight + bias per channel.

    >>> x = eager.arange(48, dtype="float32").reshape([2, 6, 2, 2])
    >>> eager.nn.functional.group_norm(x, num_groups=3).shape
    [2, 6, 2, 2]
    """
    fn = "group_norm"
    check_float(fn, "x", x)
    _check_rank(fn, x, 2, None)     # any rank from 2, as Paddle's kernel
    _check_format(fn, data_format, _FORMATS[1:])
    channels = _check_per_channel(fn, x, data_format, weight=weight, bias=bias)
    _check_same_dtype(fn, x, weight=weight, bias=bias)
    num_groups = check_positive_int(fn, "num_groups", num_groups, ValueError)   # Paddle: "groups >= 1", ValueError
    if channels % num_groups:
        raise ValueError(f"{fn}: argument 'num_groups' ({num_groups}) must divide the channels of x ({channels}, "
                         f"shape {x.shape}, data_format {data_format!r})")
    epsilon = check_epsilon(fn, epsilon)
    return _F.group_norm(x, weight, bias, epsilon, int(num_groups), data_format)


def local_response_norm(x: Tensor, size: int, alpha: float = 0.0001, beta: float = 0.75, k: float = 1.0,
                        data_format: str = "NCHW", name=None) -> Tensor:
    """Local response normalization across channels:
    x / (k + alpha / size * sum of x^2 over ``size`` neighbouring channels)^beta,
    the window centred on each channel (size // 2 before, (size - 1) // 2
    after) and zero beyond the edges. A composition of ops.

    >>> x = eager.ones([1, 3, 2, 2])
    >>> eager.nn.functional.local_response_norm(x, size=3).shape
    [1, 3, 2, 2]
    """
    fn = "local_response_norm"
    check_float(fn, "x", x)
    _check_rank(fn, x, 3)
    _check_format(fn, data_format, _FORMATS[1:])
    if not isinstance(size, numbers.Integral) or isinstance(size, bool) or size <= 0:
        raise ValueError(f"{fn}: argument 'size' expected a positive int, got {size!r}")
    for arg, value in (("alpha", alpha), ("beta", beta), ("k", k)):
        if not isinstance(value, numbers.Real) or isinstance(value, bool):
            raise TypeError(f"{fn}: argument '{arg}' expected a number, got {value!r}")
    axis = channel_axis(x, data_format)
    channels = x.shape[axis]
    squares = _F.multiply(x, x)
    before, after = size // 2, (size - 1) // 2
    pads = []
    for count in (before, after):
        shape = list(x.shape)
        shape[axis] = count
        pads.append(_F.zeros(shape, x.dtype) if count else None)
    padded = _F.concat([t for t in (pads[0], squares, pads[1]) if t is not None], axis)
    window = None
    for offset in range(size):   # one whole-tensor slice per window position
        index = (slice(None),) * axis + (slice(offset, offset + channels),)
        part = _F.getitem(padded, index)
        window = part if window is None else _F.add(window, part)
    div = _F.pow(_F.scale(window, float(alpha) / size, float(k), True), float(beta))
    return _F.divide(x, div)


def normalize(x: Tensor, p=2, axis: int = 1, epsilon: float = 1e-12, name=None) -> Tensor:
    """x / max(||x||_p along axis, epsilon): each slice along ``axis`` scaled to
    unit p-norm. A composition of ops.

    >>> eager.nn.functional.normalize(eager.to_tensor([[3.0, 4.0]])).numpy().tolist()
    [[0.6000000238418579, 0.800000011920929]]
    """
    fn = "normalize"
    check_float(fn, "x", x)
    if not isinstance(p, numbers.Real) or isinstance(p, bool):
        raise TypeError(f"{fn}: argument 'p' expected a number, got {p!r}")
    axis = check_axis(fn, x, axis)
    epsilon = check_epsilon(fn, epsilon)
    if x.ndim == 0:
        raise ValueError(f"{fn}: argument 'x' expected at least 1 dimension, got a 0-d tensor")
    norm = _F.norm(x, float(p), [axis], True)
    return _F.divide(x, _F.clip(norm, epsilon, None))


__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm", "local_response_norm", "normalize"]
