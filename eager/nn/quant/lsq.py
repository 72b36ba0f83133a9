"""LSQ+ fake quantization (Paddle's paddle.nn.quant.lsq): learned step sizes.

``FakeQuantWeightLSQPlus`` and ``FakeQuantActLSQPlus`` quantize with a trainable
step ``s`` (per tensor, or per output channel for weights) and, for asymmetric
activations, a trainable offset ``beta``:

    q = clip(round((x - beta) / s), Qn, Qp) * s + beta

with ``round`` halving away from zero, ``[Qn, Qp] = [-2**(b-1), 2**(b-1)-1]``
(``[0, 2**b - 1]`` with ``all_postive``). The gradient is LSQ's: x gets the
incoming gradient where it was not clipped; ``s`` gets ``g * sum(grad * (Qn or
Qp where clipped, round(v) - v elsewhere))`` and ``beta`` ``g * sum(grad where
clipped)``, with ``g = 1 / sqrt(numel * Qp)`` fixed at the first call. The first
``batch_init`` calls initialize the step from the data: activations from their
range, weights from ``max(|mean - 3 std|, |mean + 3 std|) / (2**b - 1)``, the
first call setting it, the next ones moving it by ``0.9 * s + 0.1 * estimate``.
"""
from __future__ import annotations

import math
import numbers

from ...autograd import no_grad
from ...autograd.py_layer import PyLayer
from ...generated import forward_api as _F
from ...utils import unique_name
from ..initializer import Constant
from ..layer import Layer, ParamAttr

__all__ = ["FakeQuantActLSQPlus", "FakeQuantWeightLSQPlus"]


def _round(x):
    return _F.sign(x) * _F.floor(_F.abs(x) + 0.5)


def _along(s, x, axis):
    """``s`` shaped to broadcast over x along ``axis`` (per channel), or as is."""
    if axis is None:
        return s
    shape = [1] * len(x.shape)
    shape[axis] = -1
    return s.reshape(shape)


def _reduce_to(grad, s, axis):
    """``grad`` summed to the shape of the step ``s`` (over everything but ``axis``)."""
    if axis is None:
        return grad.sum().reshape(s.shape)
    others = [d for d in range(len(grad.shape)) if d != axis]
    return grad.sum(axis=others).reshape(s.shape)


class _LsqQuant(PyLayer):
    """q = clip(round((x - beta) / s), Qn, Qp) * s + beta with LSQ(+)'s gradients."""

    @staticmethod
    def forward(ctx, x, s, beta, g, qn, qp, axis):
        ctx.save_for_backward(x, s, beta)
        ctx.other = (g, qn, qp, axis)
        step = _along(s, x, axis)
        shifted = x if beta is None else x - beta
        out = _F.clip(_round(shifted / step), qn, qp) * step
        return out if beta is None else out + beta

    @staticmethod
    def backward(ctx, grad):
        x, s, beta = ctx.saved_tensor()
        g, qn, qp, axis = ctx.other
        v = (x if beta is None else x - beta) / _along(s, x, axis)
        lower = (v < qn).astype(grad.dtype)
        upper = (v > qp).astype(grad.dtype)
        middle = 1.0 - lower - upper
        grad_s = _reduce_to((lower * qn + upper * qp + middle * (_round(v) - v)) * grad * g, s, axis)
        grad_x = middle * grad
        if beta is None:
            return grad_x, grad_s
        return grad_x, grad_s, ((lower + upper) * grad * g).sum().reshape(beta.shape)


def _levels(who, quant_bits, all_positive):
    if isinstance(quant_bits, bool) or not isinstance(quant_bits, numbers.Integral) or not 2 <= quant_bits <= 16:
        raise ValueError(f"{who}: argument 'quant_bits' expected an int in [2, 16], got {quant_bits!r}")
    if all_positive:
        return 0, 2 ** quant_bits - 1
    return -(2 ** (quant_bits - 1)), 2 ** (quant_bits - 1) - 1


def _check_reduce(who, reduce_type):
    if reduce_type is not None:
        raise ValueError(f"{who}: argument 'reduce_type' {reduce_type!r} is not offered here (no all-reduce of "
                         f"the step across ranks); use None")


def _check_batch_init(who, batch_init):
    if isinstance(batch_init, bool) or not isinstance(batch_init, numbers.Integral) or batch_init < 1:
        raise ValueError(f"{who}: argument 'batch_init' expected a positive int, got {batch_init!r}")
    return int(batch_init)


class FakeQuantActLSQPlus(Layer):
    """LSQ+ fake quantization of activations: a trainable 0-D step ``s`` (and offset
    ``beta`` unless ``symmetric``) initialized from the first ``batch_init`` inputs'
    range ``(max - min) / (Qp - Qn)`` (``beta = min - s * Qn``)."""

    def __init__(self, quant_bits, all_postive=False, symmetric=False, batch_init=20, dtype="float32", name=None,
                 reduce_type=None):
        super().__init__()
        who = type(self).__name__
        _check_reduce(who, reduce_type)
        self.bits = quant_bits
        self.all_positive = bool(all_postive)
        self.symmetric = bool(symmetric)
        self.batch_init = _check_batch_init(who, batch_init)
        self.name = name
        self.reduce_type = reduce_type
        self.Qn, self.Qp = _levels(who, quant_bits, self.all_positive)
        self._scale_name = unique_name.generate(f"{name}.scale" if name else "quant_dequant.scale")
        self.s = self.create_parameter([], ParamAttr(name=self._scale_name, initializer=Constant(1.0)),
                                       dtype="float32")
        self.beta = None
        if not self.symmetric:
            self._beta_name = unique_name.generate(f"{name}.beta" if name else "quant_dequant.beta")
            self.beta = self.create_parameter([], ParamAttr(name=self._beta_name, initializer=Constant(0.0)),
                                              dtype="float32")
        self.init_state = 0
        self.g = None

    def forward(self, activation):
        """activation fake-quantized; the first ``batch_init`` calls (re)estimate the step."""
        if self.init_state < self.batch_init:
            with no_grad():
                low, high = _F.min(activation.detach()), _F.max(activation.detach())
                estimate = (high - low) / (self.Qp - self.Qn)
                if self.init_state == 0:
                    self.g = 1.0 / math.sqrt(activation.size * self.Qp)
                    self.s.set_value(estimate)
                else:
                    self.s.set_value(self.s * 0.9 + 0.1 * estimate)
                if self.beta is not None:
                    offset = low - self.s * self.Qn
                    self.beta.set_value(offset if self.init_state == 0 else self.beta * 0.9 + 0.1 * offset)
        self.init_state += 1
        return _LsqQuant.apply(activation, self.s, self.beta, self.g, self.Qn, self.Qp, None)


class FakeQuantWeightLSQPlus(Layer):
    """LSQ+ fake quantization of weights: a trainable step per tensor
    (``per_channel=False``, ``s`` of shape [1]) or per output channel (axis 0; axis 1
    of a Linear weight with ``quant_linear=True``; ``s`` of shape [channel_num])."""

    def __init__(self, quant_bits, all_postive=False, per_channel=False, batch_init=20, channel_num=None,
                 quant_linear=False, dtype="float32", name=None, reduce_type=None):
        super().__init__()
        who = type(self).__name__
        _check_reduce(who, reduce_type)
        self.bits = quant_bits
        self.all_positive = bool(all_postive)
        self.per_channel = bool(per_channel)
        self.quant_linear = bool(quant_linear)
        self.batch_init = _check_batch_init(who, batch_init)
        self.name = name
        self.quant_axis = 1 if self.quant_linear else 0
        self.reduce_type = reduce_type
        self.Qn, self.Qp = _levels(who, quant_bits, self.all_positive)
        if self.per_channel and (isinstance(channel_num, bool) or not isinstance(channel_num, numbers.Integral)
                                 or channel_num < 1):
            raise ValueError(f"{who}: per_channel needs 'channel_num', the number of output channels, "
                             f"got {channel_num!r}")
        shape = [int(channel_num)] if self.per_channel else [1]
        self._scale_name = unique_name.generate(f"{name}.scale" if name else "quant_dequant.scale")
        self.s = self.create_parameter(shape, ParamAttr(name=self._scale_name, initializer=Constant(1.0)), dtype=dtype)
        self.init_state = 0
        self.g = None

    def _estimate(self, weight):
        w = weight.detach()
        if self.per_channel:
            axis = self.quant_axis
            others = [d for d in range(len(w.shape)) if d != axis]
            mean, std = _F.mean(w, axis=others), w.std(axis=others)
        else:
            mean, std = _F.mean(w), w.std()
        return _F.maximum(_F.abs(mean - 3 * std), _F.abs(mean + 3 * std)).reshape(self.s.shape) / (2 ** self.bits - 1)

    def forward(self, weight):
        """weight fake-quantized; the first ``batch_init`` calls (re)estimate the step."""
        if self.init_state < self.batch_init:
            with no_grad():
                estimate = self._estimate(weight)
                if self.init_state == 0:
                    self.g = 1.0 / math.sqrt(weight.size * self.Qp)
                    self.s.set_value(estimate)
                else:
                    self.s.set_value(self.s * 0.9 + 0.1 * estimate)
        self.init_state += 1
        axis = self.quant_axis if self.per_channel else None
        return _LsqQuant.apply(weight, self.s, None, self.g, self.Qn, self.Qp, axis)
