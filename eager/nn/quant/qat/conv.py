"""QuantedConv2D: Conv2D with fake-quantized input and weight."""
from __future__ import annotations

from ...functional import conv as conv_functional
from ...functional.checks import check_tensor
from ...functional.vision import pad_by_index
from ..format import ConvertibleQuantedLayer


class QuantedConv2D(ConvertibleQuantedLayer):
    """Computes as the Conv2D ``layer`` it replaces (sharing its weight, bias,
    stride, padding, dilation, groups and layout), with the input passed through
    the config's activation quanter and the weight through its weight quanter."""

    def __init__(self, layer, q_config):
        super().__init__()
        self.weight, self.bias = layer.weight, layer.bias
        self._stride, self._padding, self._dilation = layer._stride, layer._padding, layer._dilation
        self._paddings, self._padding_mode = layer._paddings, layer._padding_mode
        self._groups, self._data_format = layer._groups, layer._data_format
        self.weight_quanter = None if q_config.weight is None else q_config.weight._instance(layer)
        self.activation_quanter = None if q_config.activation is None else q_config.activation._instance(layer)

    def forward(self, input):
        """conv2d(quantized input, quantized weight) + bias, as the Conv2D it replaced."""
        who = f"QuantedConv2D({self._full_name})"
        check_tensor(who, "x", input)
        x = input if self.activation_quanter is None else self.activation_quanter(input)
        weight = self.weight if self.weight_quanter is None else self.weight_quanter(self.weight)
        padding = self._padding
        if self._padding_mode != "zeros":
            x = pad_by_index(who, x, self._paddings, self._padding_mode, 1 if self._data_format.endswith("C") else 2)
            padding = 0
        return conv_functional._conv(who, 2, x, weight, self.bias, self._stride, padding, self._dilation,
                                     self._groups, self._data_format)

    def weights_to_quanters(self):
        """[('weight', 'weight_quanter')]."""
        return [("weight", "weight_quanter")]

    def activation_quanters(self):
        """['activation_quanter']."""
        return ["activation_quanter"]
