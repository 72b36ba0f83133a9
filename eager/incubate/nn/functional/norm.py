"""Paddle's fused normalizations with an optional residual: ``fused_layer_norm``
and ``fused_rms_norm`` (the pattern ``norm(x + bias + residual)``), composed of
add, layer_norm, mean and rsqrt. Both return the tuple Paddle's dynamic graph
returns (its op's outputs), so ``fused_rms_norm(...)[0]`` is the output, as in
Paddle scripts."""
from __future__ import annotations

import math

from phi.common import DataType

from ....composite._paddle_api import composed_in
from ....generated import forward_api as _F
from ....nn import functional as F
from . import _checks

_composed = composed_in(_checks.NAMESPACE)


_HALF = (DataType.FLOAT16, DataType.BFLOAT16)


def _prepare(fn: str, x, norm_weight, norm_bias, epsilon, begin_norm_axis, bias, residual, quant_scale,
             float32_norm: bool = False) -> tuple:
    """Checks the arguments; with ``float32_norm``, float32 norm parameters are
    taken for a float16/bfloat16 x (Paddle's layer-norm kernels keep them so)."""
    _checks.floating(fn, "x", x)
    if isinstance(begin_norm_axis, bool) or not isinstance(begin_norm_axis, int) \
            or not -x.ndim <= begin_norm_axis < max(x.ndim, 1):
        raise ValueError(f"{_checks.who(fn)}: argument 'begin_norm_axis' expected an int in [{-x.ndim}, "
                         f"{x.ndim - 1}] for a {x.ndim}-d x, got {begin_norm_axis!r}")
    begin = begin_norm_axis % x.ndim
    normalized = list(x.shape[begin:])
    width = math.prod(normalized)
    for arg, value in (("norm_weight", norm_weight), ("norm_bias", norm_bias)):
        mixed = float32_norm and x.dtype in _HALF and value is not None and value.dtype == DataType.FLOAT32
        _checks.like(fn, arg, value, value if mixed else x, shape=[width])
    _checks.like(fn, "bias", bias, x, shape=[x.shape[-1]])
    _checks.like(fn, "residual", residual, x, shape=x.shape)
    eps = _checks.positive(fn, "epsilon", epsilon)
    if quant_scale > 0:
        raise ValueError(f"{_checks.who(fn)}: argument 'quant_scale' expected a value <= 0 (eager has no int8 "
                         f"quantized output), got {quant_scale!r}")
    return begin, normalized, eps


@_composed
def fused_layer_norm(x, norm_weight, norm_bias, epsilon, residual_alpha=1.0, begin_norm_axis=1, bias=None,
                     residual=None, quant_scale=-1, quant_round_type=0, quant_max_bound=0, quant_min_bound=0):
    """Layer normalization of ``h = x + bias + residual_alpha * residual`` over
    the axes from ``begin_norm_axis`` on; ``norm_weight``/``norm_bias`` are 1-d
    (the product of those axes) or None (no scale / no shift); for a float16 or
    bfloat16 x they may be float32 (as in Paddle's example).

    Returns Paddle's dynamic-graph tuple ``(out, residual_out, mean, variance)``:
    ``residual_out`` is ``h`` (None without ``residual``), ``mean`` and
    ``variance`` (the biased variance) are float32, one value per row (the
    product of the axes before ``begin_norm_axis``). With ``residual`` and both
    norm parameters None, only the sum is made: ``(h, None, None, None)``.

    >>> x = eager.to_tensor([[1.0, 3.0]])
    >>> out, _, mean, variance = eager.incubate.nn.functional.fused_layer_norm(
    ...     x, eager.ones([2]), eager.zeros([2]), 0.0)
    >>> out.numpy(), mean.numpy(), variance.numpy()
    (array([[-1.,  1.]], dtype=float32), array([2.], dtype=float32), array([1.], dtype=float32))
    """
    fn = "fused_layer_norm"
    begin, normalized, eps = _prepare(fn, x, norm_weight, norm_bias, epsilon, begin_norm_axis, bias, residual,
                                      quant_scale, float32_norm=True)
    alpha = _checks.number(fn, "residual_alpha", residual_alpha)
    h = x if bias is None else _F.add(x, bias)
    if residual is not None:
        h = _F.add(h, residual if alpha == 1.0 else _F.scale(residual, alpha))
        if norm_weight is None and norm_bias is None:
            return h, None, None, None
    weight = None if norm_weight is None else _F.reshape(norm_weight, normalized)
    shift = None if norm_bias is None else _F.reshape(norm_bias, normalized)
    if any(t is not None and t.dtype != h.dtype for t in (weight, shift)):
        # float32 parameters of a float16/bfloat16 x: normalize in float32, as Paddle's kernel
        # computes, and round once at the end
        out = _F.cast(F.layer_norm(_F.cast(h, DataType.FLOAT32), normalized, weight, shift, eps), h.dtype)
    else:
        out = F.layer_norm(h, normalized, weight, shift, eps)
    axes = list(range(begin, x.ndim))
    rows = [math.prod(x.shape[:begin])]
    mean = _F.mean(h, axes, True)
    variance = _F.mean(_F.square(_F.subtract(h, mean)), axes, False)
    mean, variance = (_F.cast(_F.reshape(t, rows), DataType.FLOAT32) for t in (mean, variance))
    return out, (h if residual is not None else None), mean, variance


@_composed
def fused_rms_norm(x, norm_weight, norm_bias, epsilon, begin_norm_axis, bias=None, residual=None, quant_scale=-1,
                   quant_round_type=0, quant_max_bound=0, quant_min_bound=0):
    """RMS normalization of ``h = x + bias + residual`` over the axes from
    ``begin_norm_axis`` on: ``h / sqrt(mean(h**2) + epsilon) * norm_weight +
    norm_bias`` (norm_bias may be None). Returns Paddle's dynamic-graph tuple
    ``(out, residual_out)``: ``residual_out`` is ``h``, None without ``residual``
    (scripts take ``fused_rms_norm(...)[0]``).

    >>> x = eager.to_tensor([[3.0, 4.0]])
    >>> eager.incubate.nn.functional.fused_rms_norm(x, eager.ones([2]), None, 0.0, 1)[0].numpy().round(4)
    array([[0.8485, 1.1314]], dtype=float32)
    """
    fn = "fused_rms_norm"
    begin, normalized, eps = _prepare(fn, x, norm_weight, norm_bias, epsilon, begin_norm_axis, bias, residual,
                                      quant_scale)
    if norm_weight is None:
        raise TypeError(f"{_checks.who(fn)}: argument 'norm_weight' expected a Tensor, got None")
    h = x if bias is None else _F.add(x, bias)
    if residual is not None:
        h = _F.add(h, residual)
    axes = list(range(begin, x.ndim))
    scale = _F.rsqrt(_F.scale(_F.mean(_F.square(h), axes, True), 1.0, eps))
    out = _F.multiply(_F.multiply(h, scale), _F.reshape(norm_weight, normalized))
    if norm_bias is not None:
        out = _F.add(out, _F.reshape(norm_bias, normalized))
    return out, (h if residual is not None else None)


__all__ = ["fused_layer_norm", "fused_rms_norm"]
