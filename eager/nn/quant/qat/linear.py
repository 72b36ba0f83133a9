"""QuantedLinear: Linear with fake-quantized input and weight."""
from __future__ import annotations

from ...functional.common import linear
from ..format import ConvertibleQuantedLayer


class QuantedLinear(ConvertibleQuantedLayer):
    """Computes as the Linear ``layer`` it replaces (sharing its weight and bias),
    with the input passed through the config's activation quanter and the weight
    through its weight quanter (either may be None)."""

    def __init__(self, layer, q_config):
        super().__init__()
        self.weight = layer.weight
        self.bias = layer.bias
        self.name = getattr(layer, "name", None)
        self.weight_quanter = None if q_config.weight is None else q_config.weight._instance(layer)
        self.activation_quanter = None if q_config.activation is None else q_config.activation._instance(layer)

    def forward(self, input):
        """linear(quantized input, quantized weight, bias)."""
        quant_input = input if self.activation_quanter is None else self.activation_quanter(input)
        quant_weight = self.weight if self.weight_quanter is None else self.weight_quanter(self.weight)
        return linear(quant_input, quant_weight, self.bias)

    def weights_to_quanters(self):
        """[('weight', 'weight_quanter')]."""
        return [("weight", "weight_quanter")]

    def activation_quanters(self):
        """['activation_quanter']."""
        return ["activation_quanter"]
