"""The layers a converted quantized model holds (Paddle's paddle.nn.quant.format):
``LinearQuanter`` (float -> integer levels), ``LinearDequanter`` (levels -> float),
``LinearQuanterDequanter`` (the two in a row, what a quanter becomes), and
``ConvertibleQuantedLayer``, the base of the layers QAT/PTQ swap in, whose
``_convert`` turns their quanters into those layers and stores the weights as
integer levels."""
from __future__ import annotations

import abc

import numpy as np

from ...arguments import to_int
from ...creation import to_tensor
from ...tensor import Tensor
from ..layer import Layer, ParamAttr
from . import fake_quant


class _LinearQuantBase(Layer):
    """Holds the scale (a non-trainable parameter, so state_dict saves it), the
    quantization axis and the bit length of a quantize or dequantize step."""

    def __init__(self, scales, zero_point=None, quant_axis=None, bit_length=8, group_size=128):
        super().__init__()
        who = type(self).__name__
        self._bit_length = fake_quant.check_bit_length(who, bit_length)
        if zero_point is not None:
            zeros = np.asarray(zero_point.numpy() if isinstance(zero_point, Tensor) else zero_point)
            if np.any(zeros != 0):
                raise ValueError(f"{who}: argument 'zero_point' expected None or zeros (symmetric "
                                 f"quantization), got {zeros.tolist()!r}")
        values = scales.numpy() if isinstance(scales, Tensor) else np.asarray(scales)
        values = np.asarray(values, dtype=np.float32)
        if values.size == 0 or not np.all(np.isfinite(values)):
            raise ValueError(f"{who}: argument 'scales' expected finite numbers, got {values.tolist()!r}")
        # 2-D scales [rows // group_size, ...] are group-wise (GroupWiseWeightObserver): each scale
        # covers group_size consecutive rows of the weight; lower ranks are per tensor or per channel.
        if values.ndim < 2:
            values = values.reshape(-1)
        self._scales = self.create_parameter(list(values.shape), ParamAttr(trainable=False), dtype="float32")
        self._scales.set_value(values)
        self._zero_point = to_tensor(np.zeros([1], np.float32))
        self._quant_axis = -1 if quant_axis is None else to_int(quant_axis, who, "quant_axis")
        self._group_size = to_int(group_size, who, "group_size")
        if self._group_size <= 0:
            raise ValueError(f"{who}: argument 'group_size' expected a positive int, got {group_size!r}")
        self._qmax = (1 << (self._bit_length - 1)) - 1
        self._qmin = -self._qmax - 1


class LinearQuanter(_LinearQuantBase):
    """Quantizes its input to integer levels (kept in the input's float dtype):
    ``round(clip(x, -scales, scales) / scales * qmax)`` with ``qmax = 2**(bit_length-1) - 1``
    (levels in [-qmax, qmax], matching the fake quantization QAT trained with).

    >>> q = LinearQuanter(eager.to_tensor([2.0]), bit_length=8)
    >>> q(eager.to_tensor([1.0, -3.0]))   # [64., -127.]
    """

    def forward(self, input):
        """The integer levels of input."""
        fake_quant.check_float_tensor(type(self).__name__, "input", input)
        if len(self._scales.shape) > 1:
            return fake_quant.quantize_groupwise(input, self._scales, self._bit_length, self._group_size)
        return fake_quant.quantize_linear(input, self._scales, self._bit_length, self._quant_axis)

    @staticmethod
    def from_quanter(quanter):
        """A LinearQuanter with the scales, axis and bit length a trained quanter/observer holds."""
        return LinearQuanter(quanter.scales(), zero_point=quanter.zero_points(),
                             quant_axis=quanter.quant_axis(), bit_length=quanter.bit_length(),
                             group_size=getattr(quanter, "group_size", 128))


class LinearDequanter(_LinearQuantBase):
    """Maps integer levels back to values: ``q * scales / qmax``.

    >>> d = LinearDequanter(eager.to_tensor([2.0]), bit_length=8)
    >>> d(eager.to_tensor([127.0]))   # [2.]
    """

    def forward(self, input):
        """The values the levels in input stand for."""
        fake_quant.check_float_tensor(type(self).__name__, "input", input)
        if len(self._scales.shape) > 1:
            return fake_quant.dequantize_groupwise(input, self._scales, self._bit_length, self._group_size)
        return fake_quant.dequantize_linear(input, self._scales, self._bit_length, self._quant_axis)

    @staticmethod
    def from_quanter(quanter):
        """A LinearDequanter with the scales, axis and bit length a trained quanter/observer holds."""
        return LinearDequanter(quanter.scales(), zero_point=quanter.zero_points(),
                               quant_axis=quanter.quant_axis(), bit_length=quanter.bit_length(),
                               group_size=getattr(quanter, "group_size", 128))


class LinearQuanterDequanter(Layer):
    """A quantize step followed by a dequantize step (either may be None): what
    ``convert`` puts in place of a quanter or observer."""

    def __init__(self, quanter, dequanter):
        super().__init__()
        self._quanter = quanter
        self._dequanter = dequanter

    def forward(self, input):
        """input quantized then dequantized (the steps that are not None)."""
        out = input
        if self._quanter is not None:
            out = self._quanter(out)
        if self._dequanter is not None:
            out = self._dequanter(out)
        return out

    @staticmethod
    def from_quanter(quanter):
        """The quantize/dequantize pair for a trained quanter or observer."""
        if quanter is None:
            raise TypeError("LinearQuanterDequanter.from_quanter: argument 'quanter' expected a quanter, got None")
        return LinearQuanterDequanter(LinearQuanter.from_quanter(quanter), LinearDequanter.from_quanter(quanter))


class ConvertibleQuantedLayer(Layer, metaclass=abc.ABCMeta):
    """Base of the quantized layers (QuantedLinear, QuantedConv2D): a subclass
    names its (weight, quanter) pairs in ``weights_to_quanters`` and its activation
    quanters in ``activation_quanters``; ``_convert`` then replaces each quanter by a
    LinearQuanterDequanter and stores each weight as its integer levels (only the
    dequantize step stays in front of it), which gives the fake-quantized layer's
    outputs in evaluation mode."""

    def __init__(self):
        super().__init__()
        self.converted = False

    @abc.abstractmethod
    def weights_to_quanters(self) -> list:
        """(weight attribute name, quanter attribute name) pairs."""

    @abc.abstractmethod
    def activation_quanters(self) -> list:
        """Names of the quanter attributes applied to activations."""

    def _convert_quanter_to_qdq(self, quanter_name):
        if not hasattr(self, quanter_name):
            raise AttributeError(f"{type(self).__name__}._convert: {quanter_name!r} is not an attribute of the layer")
        quanter = getattr(self, quanter_name)
        if quanter is None:
            return None
        qdq = LinearQuanterDequanter.from_quanter(quanter)
        setattr(self, quanter_name, qdq)
        return qdq

    def _quant_weights(self, weight_name, quanter):
        weight = getattr(self, weight_name)
        weight.set_value(quanter(weight.detach()))

    def _convert(self, remain_weight=False):
        """Turns the quanters into quantize/dequantize layers; unless ``remain_weight``,
        the weights become their integer levels and only the dequantize step stays."""
        if self.converted:
            raise RuntimeError(f"{type(self).__name__}._convert: the layer was already converted; convert only once")
        for weight_name, quanter_name in self.weights_to_quanters():
            qdq = self._convert_quanter_to_qdq(quanter_name)
            if qdq is not None and not remain_weight:
                self._quant_weights(weight_name, qdq._quanter)
                qdq._quanter = None
        for quanter_name in self.activation_quanters():
            self._convert_quanter_to_qdq(quanter_name)
        self.converted = True
