"""GroupWiseWeightObserver: one abs-max scale per group of weight rows (post-training
quantization of Linear weights for group-wise weight-only kernels)."""
from __future__ import annotations

import numbers

from ...autograd import no_grad
from ...generated import forward_api as _F
from ...nn.quant import fake_quant
from ..base_observer import BaseObserver
from ..factory import ObserverFactory

_GROUP_SIZES = (64, 128)


def _check_group_size(who, group_size):
    if isinstance(group_size, bool) or not isinstance(group_size, numbers.Integral) \
            or group_size not in _GROUP_SIZES:
        raise ValueError(f"{who}: argument 'group_size' expected 64 or 128, got {group_size!r}")
    return int(group_size)


class GroupWiseWeightObserver(ObserverFactory):
    """Factory of :class:`GroupWiseWeightObserverLayer`: for a 2-D weight ``w`` of shape
    [in, out] (a Linear's), the scales are ``max|w|`` over each group of ``group_size``
    consecutive rows, per column: shape [in // group_size, out], float32, a zero
    maximum replaced by 1e-8. Zero points are zeros. Unlike Paddle 2.6.2, whose factory
    drops ``group_size`` (always 128) and whose layer's ``bit_length()`` fails, both
    arguments are used.

    >>> observer = GroupWiseWeightObserver(quant_bits=4, group_size=128)
    >>> q_config = QuantConfig(activation=None, weight=observer)
    """

    def __init__(self, quant_bits=8, group_size=128):
        fake_quant.check_bit_length("GroupWiseWeightObserver", quant_bits, "quant_bits")
        _check_group_size("GroupWiseWeightObserver", group_size)
        super().__init__(quant_bits=quant_bits, group_size=group_size)

    def _get_class(self):
        return GroupWiseWeightObserverLayer


class GroupWiseWeightObserverLayer(BaseObserver):
    """The observer layer :class:`GroupWiseWeightObserver` builds: returns its input
    unchanged and keeps the group-wise abs max of the last input it saw."""

    def __init__(self, layer, quant_bits=8, group_size=128):
        super().__init__()
        who = type(self).__name__
        self.quant_bits = fake_quant.check_bit_length(who, quant_bits, "quant_bits")
        self.group_size = _check_group_size(who, group_size)
        self._layer = layer
        self._max = None
        self._scale = None
        self._zero_point = None

    def forward(self, inputs):
        """inputs unchanged; records their group-wise abs max."""
        self._max = self._cal_abs_max(inputs)
        return inputs

    def _cal_abs_max(self, inputs):
        who = type(self).__name__
        fake_quant.check_float_tensor(who, "inputs", inputs)
        shape = list(inputs.shape)
        if len(shape) != 2:
            raise ValueError(f"{who}: argument 'inputs' expected a 2-D weight [in, out], got shape {shape}")
        if shape[0] == 0 or shape[0] % self.group_size != 0:
            raise ValueError(f"{who}: the rows of 'inputs' (shape {shape}) expected a positive multiple of "
                             f"group_size {self.group_size}")
        with no_grad():
            grouped = inputs.detach().reshape([shape[0] // self.group_size, self.group_size, shape[1]])
            abs_max = _F.max(_F.abs(grouped), axis=1).astype("float32")
            return _F.where(abs_max == 0, _F.full_like(abs_max, 1e-8), abs_max)

    def min_value(self) -> float:
        """0.0: symmetric."""
        return 0.0

    def max_value(self):
        """The group-wise abs max of the last input (None before any)."""
        return self._max

    def bit_length(self):
        """The number of bits."""
        return self.quant_bits

    def quant_axis(self):
        """-1: the scales are group-wise, not along one axis."""
        return -1

    def cal_thresholds(self):
        """Takes the scales from the abs max seen (once) and zero points of the same shape."""
        if self._scale is None:
            self._scale = self._max
        self._zero_point = None if self._scale is None else _F.zeros_like(self._scale)

    def scales(self):
        """The group-wise scales, a [in // group_size, out] float32 Tensor (None before any input)."""
        if self._scale is None:
            self.cal_thresholds()
        return self._scale

    def zero_points(self):
        """Zeros shaped like the scales (None before any input)."""
        if self._zero_point is None:
            self.cal_thresholds()
        return self._zero_point
