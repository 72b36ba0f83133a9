"""Symmetric linear quantization arithmetic shared by the quanters, the layers
QAT swaps in and the layers convert() leaves: fake quantize-dequantize with the
straight-through estimator, and the separate quantize / dequantize steps.

With ``bnt = 2**(bit_length-1) - 1`` and a positive scale ``s``:

- fake quantization: ``round(clip(x, -s, s) / s * bnt) * s / bnt``; its gradient
  is the straight-through estimator, as Paddle's: the incoming gradient unchanged;
- quantize: ``round(clip(x, -s, s) / s * bnt)`` (integer values, kept
  in x's float dtype); dequantize: ``q * s / bnt``.

``round`` rounds halves away from zero (eager.round, as Paddle). Everything is
composed of existing differentiable ops, so it runs on the CPU and the GPU alike.
"""
from __future__ import annotations

import numbers

from ...autograd import no_grad
from ...generated import forward_api as _F
from ...tensor import Tensor

# The smallest scale used: an all-zero input gives a zero scale, which would divide by zero
# (float16's range ends near 6e-8, so it gets its own).
_TINY = 1e-30
_TINY_FLOAT16 = 1e-7


def check_bit_length(who: str, bit_length, arg: str = "bit_length") -> int:
    """``bit_length`` as an int in [2, 16], else a TypeError/ValueError naming ``who``
    and ``arg`` (the caller's name for it: quant_bits, weight_bits, ...)."""
    if not isinstance(bit_length, numbers.Integral) or isinstance(bit_length, bool):
        raise TypeError(f"{who}: argument '{arg}' expected an int, got {bit_length!r}")
    if not 2 <= bit_length <= 16:
        raise ValueError(f"{who}: argument '{arg}' expected an int in [2, 16], got {bit_length}")
    return int(bit_length)


def check_moving_rate(who: str, moving_rate) -> float:
    """``moving_rate`` as a float in [0, 1), else a ValueError naming ``who``."""
    if not isinstance(moving_rate, numbers.Real) or isinstance(moving_rate, bool) or not 0.0 <= moving_rate < 1.0:
        raise ValueError(f"{who}: argument 'moving_rate' expected a number in [0, 1), got {moving_rate!r}")
    return float(moving_rate)


def check_float_tensor(who: str, arg: str, x) -> Tensor:
    """``x`` if it is a floating-point Tensor, else a TypeError naming ``who`` and ``arg``."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{who}: argument '{arg}' expected a Tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"{who}: argument '{arg}' expected a floating-point Tensor, got dtype {x.dtype}")
    return x


def check_observable(who: str, arg: str, x: Tensor) -> Tensor:
    """``x`` if it has elements, else a ValueError naming ``who`` and ``arg``: the
    abs-max statistic of an empty input is undefined (Paddle's kernels read past
    its end), and an observer or moving average must not take a made-up value."""
    if x.size == 0:
        raise ValueError(f"{who}: argument '{arg}' is empty (shape {list(x.shape)}): max|{arg}|, the statistic "
                         f"the scale is made from, is undefined for no elements")
    return x


def bin_count(bit_length: int) -> float:
    """The largest quantized magnitude, ``2**(bit_length-1) - 1`` (127 for 8 bits)."""
    return float((1 << (bit_length - 1)) - 1)


def _scale_like(who: str, scale: Tensor, x: Tensor, quant_axis: int = -1) -> Tensor:
    """The scale as a constant (no gradient) of x's dtype, shaped to broadcast over x:
    a one-element scale is per tensor, a longer one lies along ``quant_axis`` and
    must have one scale per channel there (else a ValueError naming ``who``)."""
    if scale.size > 1:
        rank = len(x.shape)
        if isinstance(quant_axis, bool) or not isinstance(quant_axis, numbers.Integral) \
                or not -rank <= quant_axis < rank:
            raise ValueError(f"{who}: argument 'quant_axis' expected an axis of x (rank {rank}) for per-channel "
                             f"scales, got {quant_axis!r}")
        if x.shape[quant_axis] != scale.size:
            raise ValueError(f"{who}: {scale.size} per-channel scales do not match x's {x.shape[quant_axis]} "
                             f"channels along quant_axis {quant_axis} (x of shape {list(x.shape)})")
    with no_grad():
        tiny = _TINY_FLOAT16 if str(x.dtype).split(".")[-1] == "float16" else _TINY
        s = _F.maximum(scale.detach().astype(x.dtype), _F.full([1], tiny, x.dtype))
        if s.size > 1:
            shape = [1] * len(x.shape)
            shape[quant_axis] = -1
            s = s.reshape(shape)
        else:  # x's rank, so a 0-D x stays 0-D
            s = s.reshape([1] * len(x.shape))
    return s


def _level_factor(s: Tensor, bnt: float) -> Tensor:
    """``bnt * (1 / s)``, rounded in s's dtype in that order, as Paddle's kernels
    (``bin_cnt * inv_s * x``): ``x / s * bnt`` rounds a level sitting on a half
    (38.5) to one side now and then where Paddle's order gives the other."""
    return (1.0 / s) * bnt


def fake_quant_dequant(x: Tensor, scale: Tensor, bit_length: int = 8, quant_axis: int = -1) -> Tensor:
    """x quantized to ``bit_length`` bits with ``scale`` and dequantized back:
    ``round(clip(x, -scale, scale) / scale * bnt) * scale / bnt``. The gradient is
    the straight-through estimator, as Paddle's fake quant-dequant kernels: x gets
    the incoming gradient unchanged (clipped entries too); ``scale`` receives none.
    A one-element scale is per tensor; a longer one is per channel along ``quant_axis``.

    >>> fake_quant_dequant(eager.to_tensor([0.3, -2.0]), eager.to_tensor([1.0]), 2)
    Tensor([0., -1.])
    """
    who = "fake_quant_dequant"
    check_float_tensor(who, "x", x)
    check_float_tensor(who, "scale", scale)
    bnt = bin_count(check_bit_length(who, bit_length))
    s = _scale_like(who, scale, x, quant_axis)
    with no_grad():
        rest = _F.round(_F.minimum(_F.maximum(x, -s), s) * _level_factor(s, bnt)) * s / bnt - x
    return x + rest  # value: the fake-quantized x; gradient: the identity


def quantize_linear(x: Tensor, scale: Tensor, bit_length: int = 8, quant_axis: int = -1) -> Tensor:
    """``round(clip(x, -scale, scale) / scale * bnt)``: the integer levels of x (in
    [-bnt, bnt]), in x's dtype, so that dequantizing gives :func:`fake_quant_dequant`'s values.
    A one-element scale is per tensor; a longer one is per channel along ``quant_axis``."""
    who = "quantize_linear"
    check_float_tensor(who, "x", x)
    bnt = bin_count(check_bit_length(who, bit_length))
    s = _scale_like(who, scale, x, quant_axis)
    return _F.round(_F.minimum(_F.maximum(x, -s), s) * _level_factor(s, bnt))


def dequantize_linear(q: Tensor, scale: Tensor, bit_length: int = 8, quant_axis: int = -1) -> Tensor:
    """``q * scale / bnt``: the values the integer levels ``q`` (a float Tensor) stand for."""
    who = "dequantize_linear"
    check_float_tensor(who, "q", q)
    bnt = bin_count(check_bit_length(who, bit_length))
    return q * _scale_like(who, scale, q, quant_axis) / bnt


def _group_scale_like(who: str, scale: Tensor, x: Tensor, group_size: int) -> Tensor:
    """A 2-D group-wise scale [rows // group_size, cols] repeated ``group_size`` times along
    axis 0 to x's shape (a constant, float32), else a ValueError naming ``who``."""
    rows = scale.shape[0] * group_size
    if len(x.shape) != len(scale.shape) or x.shape[0] != rows or list(x.shape[1:]) != list(scale.shape[1:]):
        raise ValueError(f"{who}: group-wise scales of shape {list(scale.shape)} with group_size {group_size} "
                         f"expected x of shape {[rows] + list(scale.shape[1:])}, got {list(x.shape)}")
    with no_grad():
        return _F.repeat_interleave(scale.detach().astype("float32"), group_size, 0)


def quantize_groupwise(x: Tensor, scale: Tensor, bit_length: int, group_size: int) -> Tensor:
    """Paddle's group-wise quantize step: ``clip(round(x / s * bnt), -bnt - 1, bnt)`` with
    each scale of the 2-D ``scale`` covering ``group_size`` consecutive rows of x,
    computed in float32 and returned in x's dtype."""
    who = "quantize_groupwise"
    check_float_tensor(who, "x", x)
    bnt = bin_count(check_bit_length(who, bit_length))
    s = _group_scale_like(who, scale, x, group_size)
    return _F.clip(_F.round(x.astype("float32") / s * bnt), -bnt - 1, bnt).astype(x.dtype)


def dequantize_groupwise(q: Tensor, scale: Tensor, bit_length: int, group_size: int) -> Tensor:
    """``q / bnt * s``, the inverse of :func:`quantize_groupwise` (float32, returned in q's dtype)."""
    who = "dequantize_groupwise"
    check_float_tensor(who, "q", q)
    bnt = bin_count(check_bit_length(who, bit_length))
    s = _group_scale_like(who, scale, q, group_size)
    return (q.astype("float32") / bnt * s).astype(q.dtype)


def moving_abs_max(x: Tensor, state: Tensor, accum: Tensor, scale: Tensor, moving_rate: float) -> Tensor:
    """Moves the moving-average abs-max statistics by one input (Paddle's
    moving_average_abs_max kernels): ``state = rate * state + 1``, ``accum =
    rate * accum + max(|x|)``, ``scale = accum / state``, written into the three
    [1] tensors (no gradient); returns the new scale."""
    with no_grad():
        current = _F.max(_F.abs(x.detach())).astype(scale.dtype).reshape([1])
        new_state = state * moving_rate + 1.0
        new_accum = accum * moving_rate + current
        new_scale = new_accum / new_state
        state.set_value(new_state)
        accum.set_value(new_accum)
        scale.set_value(new_scale)
    return new_scale

