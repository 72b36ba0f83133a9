"""AbsmaxObserver: records the largest |x| seen (post-training quantization)."""
from __future__ import annotations

from ...autograd import no_grad
from ...creation import to_tensor
from ...generated import forward_api as _F
from ...nn.quant import fake_quant
from ..base_observer import BaseObserver
from ..factory import ObserverFactory


class AbsmaxObserver(ObserverFactory):
    """Factory of :class:`AbsmaxObserverLayer`: per-tensor observer whose scale is
    the largest ``|x|`` over every input it saw (starting from 1e-7).

    >>> observer = AbsmaxObserver(quant_bits=8)
    >>> q_config = QuantConfig(activation=observer, weight=observer)
    """

    def __init__(self, quant_bits=8):
        fake_quant.check_bit_length("AbsmaxObserver", quant_bits, "quant_bits")
        super().__init__(quant_bits=quant_bits)

    def _get_class(self):
        return AbsmaxObserverLayer


class AbsmaxObserverLayer(BaseObserver):
    """The observer layer :class:`AbsmaxObserver` builds: returns its input
    unchanged and keeps ``abs_max_val``, the largest ``|x|`` seen."""

    INIT_ABS_MAX = 1e-7

    def __init__(self, layer, quant_bits=8):
        super().__init__()
        self._quant_bits = fake_quant.check_bit_length(type(self).__name__, quant_bits, "quant_bits")
        self.abs_max_val = to_tensor(AbsmaxObserverLayer.INIT_ABS_MAX, dtype="float32")

    def forward(self, input):
        """input unchanged; ``abs_max_val`` becomes max(abs_max_val, max|input|)."""
        fake_quant.check_observable(type(self).__name__, "input",
                                    fake_quant.check_float_tensor(type(self).__name__, "input", input))
        with no_grad():
            current = _F.max(_F.abs(input.detach())).astype("float32")
            self.abs_max_val = _F.maximum(current, self.abs_max_val)
        return input

    def cal_thresholds(self):
        """Sets ``thresholds`` to the abs max seen."""
        self.thresholds = self.abs_max_val

    def bit_length(self):
        """The number of bits."""
        return self._quant_bits

    def quant_axis(self):
        """-1: one scale for the whole tensor."""
        return -1

    def scales(self):
        """The largest |x| seen, a Tensor."""
        return self.abs_max_val

    def zero_points(self):
        """None: symmetric quantization."""
        return None
