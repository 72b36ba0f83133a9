"""BaseQuanter: the base of the layers that quantize (or observe) a tensor."""
from __future__ import annotations

import abc

from ..nn.layer import Layer


class BaseQuanter(Layer, metaclass=abc.ABCMeta):
    """A layer that fake-quantizes or observes its input and reports the
    quantization parameters it found, which ``convert`` turns into
    quantize/dequantize layers: ``scales()``, ``zero_points()`` (None when
    symmetric), ``quant_axis()`` (-1: per tensor) and ``bit_length()``."""

    def __init__(self):
        super().__init__()

    @abc.abstractmethod
    def forward(self, input):
        """The (fake-)quantized or observed input."""

    @abc.abstractmethod
    def scales(self):
        """The scale(s) found, a Tensor."""

    @abc.abstractmethod
    def zero_points(self):
        """The zero point(s), or None for symmetric quantization."""

    @abc.abstractmethod
    def quant_axis(self):
        """The channel axis of per-channel scales, or -1 for one scale."""

    @abc.abstractmethod
    def bit_length(self):
        """The number of bits of a quantized value."""
