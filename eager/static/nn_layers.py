"""``paddle.static.nn``'s layers that Paddle 2.6.2 also runs in dygraph mode (the
normalizations, ``spectral_norm``, ``bilinear_tensor_product``, ``row_conv``): each call makes
the layer's parameters anew (``param_attr`` / ``bias_attr``
with their initializers, else Paddle's defaults: scale 1, bias 0, moving mean 0,
moving variance 1) and normalizes ``input`` with them, then applies ``act``. So
the result is that of a freshly made layer; use the ``eager.nn`` layers to keep
parameters across calls.

>>> x = eager.rand([2, 4, 3, 3])
>>> y = eager.static.nn.batch_norm(x)          # normalized over the batch's statistics
"""
from __future__ import annotations

import numbers

from phi.common import DataType
from phi.common.data_type import HALF_TYPES

from ..arguments import describe
from ..nn import functional as F
from ..nn.initializer import Constant
from ..nn.norm import SpectralNorm
from ..parameter import create_parameter
from ..tensor import Tensor

_FLOATS = frozenset({DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT32, DataType.FLOAT64})


def _check_input(op: str, input, min_rank: int, max_rank: int) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}: argument 'input' expected a Tensor, got {describe(input)}")
    if input.impl.dtype not in _FLOATS:
        raise TypeError(f"{op}: argument 'input' expected a float16, bfloat16, float32 or float64 Tensor, got "
                        f"{input.dtype}")
    if not min_rank <= input.ndim <= max_rank:
        raise ValueError(f"{op}: argument 'input' expected a {min_rank}-D to {max_rank}-D Tensor, got shape "
                         f"{input.shape}")


def _channels(op: str, input, data_layout) -> int:
    if data_layout not in ("NCHW", "NHWC"):
        raise ValueError(f"{op}: argument 'data_layout' expected 'NCHW' or 'NHWC', got {data_layout!r}")
    return input.shape[1] if data_layout == "NCHW" else input.shape[-1]


def _param_dtype(input, float32_for_half: bool):
    dtype = input.impl.dtype
    return DataType.FLOAT32 if float32_for_half and dtype in HALF_TYPES else dtype


def _activation(op: str, out, act):
    """``act`` (a name such as 'relu', 'sigmoid', 'tanh') applied to out, or out."""
    if act is None:
        return out
    fn = getattr(F, act, None) if isinstance(act, str) else None
    if fn is None or not callable(fn):
        raise ValueError(f"{op}: argument 'act' expected None or the name of an activation of "
                         f"eager.nn.functional ('relu', 'sigmoid', 'tanh', ...), got {act!r}")
    return fn(out)


_FORMATS = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def _normalized(input, data_layout: str, normalize):
    """normalize(x, data_format) on input, F's data_format named for its rank (a
    2-D input as [N, C, 1]); a float16/bfloat16 input is normalized in float32 (the
    parameters' dtype) and the result cast back, as Paddle's kernels compute."""
    dtype = input.impl.dtype
    x = input.astype("float32") if dtype in HALF_TYPES else input
    flat = x.ndim == 2
    if flat:
        x = x.unsqueeze(-1)
    channels_first = data_layout == "NCHW" or flat
    out = normalize(x, _FORMATS[x.ndim][0 if channels_first else 1])
    if flat:
        out = out.squeeze(-1)
    return out.astype(dtype) if dtype in HALF_TYPES else out


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None, bias_attr=None,
               data_layout="NCHW", in_place=False, name=None, moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """Paddle's ``paddle.static.nn.batch_norm`` in dygraph mode: a new scale
    (``param_attr``, default 1), bias (``bias_attr``, default 0), moving mean (0)
    and variance (1), float32 for a float16/bfloat16 input; ``input`` (2-D to 5-D)
    normalized with the batch's statistics (with the moving ones when ``is_test``
    or ``use_global_stats``), then ``act``."""
    op = "batch_norm"
    _check_input(op, input, 2, 5)
    if not 0.0 <= epsilon <= 0.001:  # Paddle's batch_norm op checks its attribute so
        raise ValueError(f"{op}: argument 'epsilon' expected a value in [0, 0.001], got {epsilon!r}")
    channels = _channels(op, input, data_layout)
    dtype = _param_dtype(input, True)
    scale = create_parameter([channels], dtype, attr=param_attr, default_initializer=Constant(1.0))
    bias = create_parameter([channels], dtype, attr=bias_attr, is_bias=True)
    mean = create_parameter([channels], dtype, name=moving_mean_name, default_initializer=Constant(0.0))
    variance = create_parameter([channels], dtype, name=moving_variance_name, default_initializer=Constant(1.0))
    mean.stop_gradient = variance.stop_gradient = True
    # Paddle's op uses the moving statistics when is_test or use_global_stats, else the batch's
    use_global = True if is_test or use_global_stats else None
    out = _normalized(input, data_layout, lambda x, data_format: F.batch_norm(
        x, mean, variance, scale, bias, training=not is_test, momentum=momentum, epsilon=epsilon,
        data_format=data_format, use_global_stats=use_global))
    return _activation(op, out, act)


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None, data_layout="NCHW",
               name=None):
    """Paddle's ``paddle.static.nn.group_norm`` in dygraph mode: ``input`` (at
    least 2-D) normalized over ``groups`` channel groups; a scale (default 1) only
    when ``param_attr`` is given, a bias (default 0) only when ``bias_attr`` is
    (as in Paddle 2.6.2, whose defaults None make neither); then ``act``."""
    op = "group_norm"
    _check_input(op, input, 2, 5)
    channels = _channels(op, input, data_layout)
    dtype = _param_dtype(input, False)
    scale = create_parameter([channels], dtype, attr=param_attr, default_initializer=Constant(1.0)) \
        if param_attr else None
    bias = create_parameter([channels], dtype, attr=bias_attr, is_bias=True) if bias_attr else None
    out = _normalized(input, data_layout, lambda x, data_format: F.group_norm(
        x, groups, epsilon=epsilon, weight=scale, bias=bias, data_format=data_format))
    return _activation(op, out, act)


def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    """Paddle's ``paddle.static.nn.instance_norm`` in dygraph mode: ``input``
    (2-D to 5-D, channels first) normalized per sample and channel; a scale
    (default 1) and bias (default 0) only when both ``param_attr`` and
    ``bias_attr`` are given (as in Paddle 2.6.2), float32 for a float16 input."""
    op = "instance_norm"
    _check_input(op, input, 2, 5)
    channels = input.shape[1]
    scale = bias = None
    if param_attr and bias_attr:
        dtype = _param_dtype(input, True)
        scale = create_parameter([channels], dtype, attr=param_attr, default_initializer=Constant(1.0))
        bias = create_parameter([channels], dtype, attr=bias_attr, is_bias=True,
                                default_initializer=Constant(0.0))
    return _normalized(input, "NCHW", lambda x, data_format: F.instance_norm(
        x, weight=scale, bias=bias, eps=epsilon, data_format=data_format))


def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    """Paddle's ``paddle.static.nn.spectral_norm`` in dygraph mode: ``weight``
    (float32 or float64, at least 2-D) divided by its largest singular value,
    estimated by ``power_iters`` power iterations from vectors drawn anew from
    N(0, 1) at each call (see eager.nn.SpectralNorm; ``dim`` is 0 or 1, as in Paddle)."""
    op = "spectral_norm"
    if not isinstance(weight, Tensor):
        raise TypeError(f"{op}: argument 'weight' expected a Tensor, got {describe(weight)}")
    if weight.impl.dtype not in (DataType.FLOAT32, DataType.FLOAT64):
        raise TypeError(f"{op}: argument 'weight' expected a float32 or float64 Tensor, got {weight.dtype}")
    for arg, value, kind, kind_name in (("dim", dim, int, "an int"), ("power_iters", power_iters, int, "an int"),
                                        ("eps", eps, numbers.Real, "a float")):
        if isinstance(value, bool) or not isinstance(value, kind):
            raise TypeError(f"{op}: argument '{arg}' expected {kind_name}, got {describe(value)}")
    if dim not in (0, 1):
        raise ValueError(f"{op}: argument 'dim' expected 0 (the weight of a fc) or 1 (of a conv), got {dim}")
    if weight.ndim < 2 or weight.size == 0:
        raise ValueError(f"{op}: argument 'weight' expected a tensor of at least 2 dimensions, none of size 0, "
                         f"got shape {weight.shape}")
    return SpectralNorm(weight.shape, dim, power_iters, float(eps), dtype=weight.dtype)(weight)


def bilinear_tensor_product(x, y, size, act=None, name=None, param_attr=None, bias_attr=None):
    """Paddle's ``paddle.static.nn.bilinear_tensor_product`` in dygraph mode:
    ``out[:, i] = x W_i y^T + b_i`` for ``i < size``, x [N, M] and y [N, K], with a
    new weight [size, M, K] (``param_attr``, Xavier by default) and bias [1, size]
    (``bias_attr``, zeros; none with ``bias_attr=False``), then ``act``."""
    op = "bilinear_tensor_product"
    for arg, value in (("x", x), ("y", y)):
        if not isinstance(value, Tensor):
            raise TypeError(f"{op}: argument '{arg}' expected a Tensor, got {describe(value)}")
    if x.ndim != 2 or y.ndim != 2:
        raise ValueError(f"{op}: arguments 'x' and 'y' expected 2-D tensors, got shapes {x.shape} and {y.shape}")
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise ValueError(f"{op}: argument 'size' expected a positive int, got {size!r}")
    dtype = x.impl.dtype
    weight = create_parameter([size, x.shape[1], y.shape[1]], dtype, attr=param_attr)
    bias = None if bias_attr is False else create_parameter([1, size], dtype, attr=bias_attr, is_bias=True)
    return _activation(op, F.bilinear(x, y, weight, bias), act)


def row_conv(input, future_context_size, param_attr=None, act=None):
    """Paddle's ``paddle.static.nn.row_conv`` (lookahead convolution) in dygraph
    mode on a batch of sequences ``input`` [N, T, D]: with a new filter
    [future_context_size + 1, D] (``param_attr``, Xavier by default),
    ``out[:, t] = sum_k input[:, t + k] * filter[k]`` over the steps ``t + k < T``,
    then ``act``. (A 2-D input is a LoD sequence in Paddle, which eager does not have.)"""
    op = "row_conv"
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}: argument 'input' expected a Tensor, got {describe(input)}")
    if input.impl.dtype not in (DataType.FLOAT32, DataType.FLOAT64):
        raise TypeError(f"{op}: argument 'input' expected a float32 or float64 Tensor, got {input.dtype}")
    if input.ndim != 3:
        raise ValueError(f"{op}: argument 'input' expected a 3-D Tensor [batch, time, features] (eager has no "
                         f"LoD sequences), got shape {input.shape}")
    if isinstance(future_context_size, bool) or not isinstance(future_context_size, int) \
            or future_context_size < 0:
        raise ValueError(f"{op}: argument 'future_context_size' expected an int >= 0, got {future_context_size!r}")
    steps = input.shape[1]
    weight = create_parameter([future_context_size + 1, input.shape[2]], input.impl.dtype, attr=param_attr)
    padded = F.pad(input, [0, 0, 0, future_context_size, 0, 0]) if future_context_size else input
    out = None
    for k in range(future_context_size + 1):
        term = padded[:, k:k + steps, :] * weight[k]
        out = term if out is None else out + term
    return _activation(op, out, act)


__all__ = ["batch_norm", "bilinear_tensor_product", "group_norm", "instance_norm", "row_conv", "spectral_norm"]
