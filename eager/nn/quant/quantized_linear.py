"""Weight-only int8 quantization (Paddle's paddle.nn.quant.weight_quantize,
weight_dequantize and weight_only_linear) and LLM.int8 (llm_int8_linear), per
output channel, computed exactly with existing ops on the CPU or the GPU.

A weight ``w`` of shape [k, n] (Paddle's Linear layout, ``x @ w``) quantizes to
``out = round(w / scale)`` clipped to [-127, 127], stored transposed as int8
[n, k], with ``scale = max(|w[:, j]|) / 127`` (float32, [n]); dequantization is
``out.T * scale``.

LLM.int8 (Dettmers et al., Paddle's ``llm_int8_linear``) also quantizes the
activations: the feature columns of x holding a value above ``threshold`` in
magnitude (outliers) are multiplied in floating point with the dequantized
weight; every other value is quantized per row of x to int8, with the row's
largest magnitude at or below the threshold as its range, and multiplied in
integers (int32 accumulation), then rescaled.
"""
from __future__ import annotations

import math
import numbers

from ...autograd import no_grad
from ...generated import forward_api as _F
from ...tensor import Tensor
from ..functional.common import linear

_ALGOS = ("weight_only_int8", "llm.int8")
_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _check_2d_float(who, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{who}: argument '{arg}' expected a Tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"{who}: argument '{arg}' expected a floating-point Tensor, got dtype {x.dtype}")
    if len(x.shape) != 2:
        raise ValueError(f"{who}: argument '{arg}' expected a 2-D Tensor, got shape {list(x.shape)}")


def _check_common(who, algo_arg, algo, allowed, group_size):
    if algo not in allowed:
        raise ValueError(f"{who}: argument '{algo_arg}' expected one of {list(allowed)}, got {algo!r}")
    if group_size != -1:
        raise ValueError(f"{who}: argument 'group_size' expected -1 (per-channel scales), got {group_size!r}")


def _check_int8_weight(who, x, scale):
    if not isinstance(x, Tensor):
        raise TypeError(f"{who}: argument 'x' expected a Tensor, got {type(x).__name__}")
    if str(x.dtype).split(".")[-1] != "int8":
        raise TypeError(f"{who}: argument 'x' expected an int8 Tensor (from weight_quantize), got dtype {x.dtype}")
    if len(x.shape) != 2:
        raise ValueError(f"{who}: argument 'x' expected a 2-D Tensor, got shape {list(x.shape)}")
    if not isinstance(scale, Tensor):
        raise TypeError(f"{who}: argument 'scale' expected a Tensor, got {type(scale).__name__}")
    if not scale.is_floating_point():
        raise TypeError(f"{who}: argument 'scale' expected a floating-point Tensor, got dtype {scale.dtype}")
    if list(scale.shape) != [x.shape[0]]:
        raise ValueError(f"{who}: argument 'scale' expected shape [{x.shape[0]}] (one per row of x), got "
                         f"{list(scale.shape)}")


def _dequantize(x, scale, dtype):
    return (x.astype("float32") * scale.astype("float32").reshape([-1, 1])).t().astype(dtype)


def weight_quantize(x, algo="weight_only_int8", arch=None, group_size=-1):
    """Per-channel int8 quantization of a [k, n] weight: returns ``(out, scale)``,
    ``out`` int8 of shape [n, k] (x transposed), ``scale`` float32 of shape [n],
    with ``out = clip(round(x / scale), -127, 127).T`` and ``scale = max|x[:, j]| / 127``.
    ``arch`` is accepted and ignored (no layout is device-specific here).

    >>> out, scale = eager.nn.quant.weight_quantize(eager.rand([64, 32]))
    >>> out.shape, scale.shape
    ([32, 64], [32])
    """
    who = "weight_quantize"
    _check_2d_float(who, "x", x)
    if x.shape[0] == 0:  # no rows: each column's max|x| is undefined (Paddle's kernel reads past the end)
        raise ValueError(f"{who}: argument 'x' expected at least one row (the scale of a column is its largest "
                         f"|value|), got shape {list(x.shape)}")
    _check_common(who, "algo", algo, _ALGOS, group_size)
    w = x.detach().astype("float32")
    absmax = _F.max(_F.abs(w), axis=0)
    scale = absmax / 127.0
    safe = _F.where(absmax > 0, scale, _F.ones_like(scale))
    out = _F.clip(_F.round(w / safe), -127.0, 127.0).t().astype("int8")
    return out, scale


def weight_dequantize(x, scale, algo="weight_only_int8", out_dtype="float16", group_size=-1):
    """The inverse of :func:`weight_quantize`: int8 ``x`` [n, k] and ``scale`` [n] give
    ``(x * scale[:, None]).T`` of shape [k, n] in ``out_dtype``.

    >>> w = eager.to_tensor([[0.5, -2.0], [1.27, 0.0]])
    >>> out, scale = eager.nn.quant.weight_quantize(w)
    >>> eager.nn.quant.weight_dequantize(out, scale, out_dtype="float32").numpy()   # w within scale / 2
    array([[ 0.5 , -2.  ],
           [ 1.27,  0.  ]], dtype=float32)
    """
    who = "weight_dequantize"
    _check_common(who, "algo", algo, _ALGOS, group_size)
    _check_int8_weight(who, x, scale)
    dtype = str(out_dtype).split(".")[-1]
    if dtype not in _FLOATS:
        raise ValueError(f"{who}: argument 'out_dtype' expected one of {list(_FLOATS)}, got {out_dtype!r}")
    return _dequantize(x, scale, dtype)


def weight_only_linear(x, weight, bias=None, weight_scale=None, weight_dtype="int8", arch=None, group_size=-1):
    """``x @ dequantized(weight) + bias`` with the int8 ``weight`` [n, k] and
    ``weight_scale`` [n] from :func:`weight_quantize`; the result has x's dtype and
    shape [..., n]. Gradients flow to x and bias (the int8 weight has none).

    >>> w = eager.to_tensor([[0.5, -2.0], [1.27, 0.0]])
    >>> qw, s = eager.nn.quant.weight_quantize(w)
    >>> x = eager.to_tensor([[1.0, 1.0]])
    >>> eager.nn.quant.weight_only_linear(x, qw, weight_scale=s).numpy()   # ~ x @ w
    array([[ 1.77, -2.  ]], dtype=float32)
    """
    who = "weight_only_linear"
    _check_float_tensor(who, x)
    _check_common(who, "weight_dtype", weight_dtype, ("int8",), group_size)
    _check_linear(who, x, weight, bias, weight_scale)
    dtype = str(x.dtype).split(".")[-1]
    w = _dequantize(weight, weight_scale, dtype)
    return linear(x, w, None if bias is None else bias.astype(dtype))


def _check_float_tensor(who, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{who}: argument 'x' expected a Tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"{who}: argument 'x' expected a floating-point Tensor, got dtype {x.dtype}")


def _check_linear(who, x, weight, bias, weight_scale):
    """The int8 weight [n, k] with its scale [n], x's last dimension k, and bias None or [n]."""
    if weight_scale is None:
        raise TypeError(f"{who}: argument 'weight_scale' expected a Tensor (the scale weight_quantize returned), "
                        f"got None")
    try:
        _check_int8_weight(who, weight, weight_scale)
    except (TypeError, ValueError) as err:  # name the arguments as this function calls them
        raise type(err)(str(err).replace("'x'", "'weight'").replace("'scale'", "'weight_scale'")) from None
    if x.shape[-1] != weight.shape[1]:
        raise ValueError(f"{who}: the last dimension of x ({x.shape[-1]}) must equal weight.shape[1] "
                         f"({weight.shape[1]})")
    if bias is not None and (not isinstance(bias, Tensor) or list(bias.shape) != [weight.shape[0]]):
        got = list(bias.shape) if isinstance(bias, Tensor) else type(bias).__name__
        raise ValueError(f"{who}: argument 'bias' expected None or a Tensor of shape [{weight.shape[0]}], got {got}")


def llm_int8_linear(x, weight, bias=None, weight_scale=None, threshold=6.0):
    """LLM.int8 ``x @ weight_dequantize(weight, weight_scale) + bias`` with x
    quantized too (Paddle's ``paddle.nn.quant.llm_int8_linear``): the int8
    ``weight`` [n, k] and ``weight_scale`` [n] come from
    ``weight_quantize(w, algo='llm.int8')``; the result has x's dtype and shape
    [..., n].

    With x seen as rows [m, k]: a column of x holding any value with
    ``|value| > threshold`` is an outlier column, multiplied in floating point
    with the dequantized weight (``weight * weight_scale[:, None]``). Every other
    value is quantized per row, ``round(x * 127 / r)`` clipped to [-127, 127],
    where the row's range ``r`` is its largest ``|value| <= threshold``; these
    int8 rows times the int8 weight, accumulated in int32, give
    ``acc * r * weight_scale / 127``. The two parts are added, then the bias.
    Not differentiable (Paddle's op has no backward): the result never records a
    gradient.

    >>> w = eager.to_tensor([[1.0, -0.5], [0.25, 2.0]])
    >>> qw, scale = eager.nn.quant.weight_quantize(w, algo="llm.int8")
    >>> x = eager.to_tensor([[1.0, 8.0]])   # column 1 is an outlier (8 > 6)
    >>> eager.nn.quant.llm_int8_linear(x, qw, weight_scale=scale).numpy().round(3)
    array([[ 3.016, 15.496]], dtype=float32)
    """
    who = "llm_int8_linear"
    _check_float_tensor(who, x)
    _check_linear(who, x, weight, bias, weight_scale)
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"{who}: argument 'threshold' expected a number, got {type(threshold).__name__}")
    if math.isnan(threshold) or threshold < 0:
        raise ValueError(f"{who}: argument 'threshold' expected a number >= 0, got {threshold}")
    dtype = str(x.dtype).split(".")[-1]
    compute = "float64" if dtype == "float64" else "float32"
    n, k = weight.shape
    with no_grad():
        rows = _F.reshape(x, [-1, k]).astype(compute)
        magnitude = _F.abs(rows)
        above = _F.greater_than(magnitude, _F.full([], float(threshold), compute, x.place))
        outlier = _F.any(above, [0], True)                                                  # [1, k]
        zero = _F.zeros([], compute, x.place)
        ranges = _F.max(_F.where(above, zero, magnitude), [1], True)                        # [m, 1]
        safe = _F.where(ranges > 0, ranges, _F.ones_like(ranges))
        quantized = _F.clip(_F.round(rows * 127.0 / safe), -127.0, 127.0)
        quantized = _F.where(outlier, zero, quantized).astype("int32")
        acc = _F.matmul(quantized, weight.astype("int32"), False, True)                     # [m, n]
        scale = weight_scale.astype(compute)
        out = acc.astype(compute) * ranges * _F.reshape(scale, [1, n]) / 127.0
        columns = _F.nonzero(_F.reshape(outlier, [k]))
        if columns.shape[0]:
            index = _F.reshape(columns, [-1])
            dense_w = _F.index_select(weight, index, 1).astype(compute) * _F.reshape(scale, [n, 1])
            out = out + _F.matmul(_F.index_select(rows, index, 1), dense_w, False, True)
        if bias is not None:
            out = out + bias.astype(compute)
        return _F.reshape(out.astype(dtype), list(x.shape[:-1]) + [n])
