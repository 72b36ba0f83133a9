"""FakeQuanterWithAbsMaxObserver: fake quantization with a moving-average abs-max scale."""
from __future__ import annotations

from ...autograd import no_grad
from ...nn.initializer import Constant
from ...nn.layer import ParamAttr
from ...nn.quant import fake_quant
from ...utils import unique_name
from ..base_quanter import BaseQuanter
from ..factory import QuanterFactory


class FakeQuanterWithAbsMaxObserver(QuanterFactory):
    """Factory of :class:`FakeQuanterWithAbsMaxObserverLayer`: symmetric per-tensor
    fake quantization whose scale is the moving average of ``max(|x|)``. In training,
    before quantizing each input x::

        state = moving_rate * state + 1
        accum = moving_rate * accum + max(|x|)
        scale = accum / state

    (state and accum start at 1, scale at 0.001); in eval mode the stored scale is
    used unchanged. The output is ``round(clip(x, -scale, scale) / scale * bnt) * scale / bnt``
    with ``bnt = 2**(bit_length-1) - 1``, and its gradient passes where x was not clipped.

    >>> quanter = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)
    >>> q_config = QuantConfig(activation=quanter, weight=quanter)
    """

    def __init__(self, moving_rate=0.9, bit_length=8, dtype="float32", name=None):
        who = "FakeQuanterWithAbsMaxObserver"
        fake_quant.check_moving_rate(who, moving_rate)
        fake_quant.check_bit_length(who, bit_length)
        if str(dtype).split(".")[-1] not in ("float16", "bfloat16", "float32", "float64"):
            raise ValueError(f"{who}: argument 'dtype' expected a floating-point dtype, got {dtype!r}")
        super().__init__(name=name, moving_rate=moving_rate, bit_length=bit_length, dtype=dtype)

    def _get_class(self):
        return FakeQuanterWithAbsMaxObserverLayer


class FakeQuanterWithAbsMaxObserverLayer(BaseQuanter):
    """The quanter layer :class:`FakeQuanterWithAbsMaxObserver` builds for one
    quantized layer: holds ``_scale``, ``_state`` and ``_accum`` as non-trainable
    parameters (saved in state_dict)."""

    def __init__(self, layer, name=None, moving_rate=0.9, bit_length=8, dtype="float32"):
        super().__init__()
        who = type(self).__name__
        self._moving_rate = fake_quant.check_moving_rate(who, moving_rate)
        self._bit_length = fake_quant.check_bit_length(who, bit_length)
        prefix = name or "quant_dequant"
        self._scale = self._make(f"{prefix}.scale", 0.001, dtype)
        self._state = self._make(f"{prefix}.state", 1.0, dtype)
        self._accum = self._make(f"{prefix}.accum", 1.0, dtype)

    def _make(self, name, value, dtype):
        attr = ParamAttr(name=unique_name.generate(name), initializer=Constant(value), trainable=False)
        return self.create_parameter([1], attr=attr, dtype=dtype)

    def forward(self, input):
        """input fake-quantized; in training the moving-average scale is updated first."""
        fake_quant.check_float_tensor(type(self).__name__, "input", input)
        if self.training:
            fake_quant.check_observable(type(self).__name__, "input", input)
            scale = fake_quant.moving_abs_max(input, self._state, self._accum, self._scale, self._moving_rate)
        else:
            with no_grad():
                scale = self._scale.clone()
        return fake_quant.fake_quant_dequant(input, scale, self._bit_length)

    def bit_length(self):
        """The number of bits."""
        return self._bit_length

    def quant_axis(self):
        """-1: one scale for the whole tensor."""
        return -1

    def scales(self):
        """The current scale, a [1] Tensor."""
        return self._scale

    def zero_points(self):
        """None: symmetric quantization."""
        return None
