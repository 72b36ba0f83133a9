"""Quantization: what QAT and PTQ share: swapping quantized layers in, wrapping
observed leaves, and ``convert``."""
from __future__ import annotations

import abc
import copy

from ..nn.layer import Layer
from ..nn.quant.format import ConvertibleQuantedLayer, LinearQuanterDequanter
from .base_quanter import BaseQuanter
from .config import QuantConfig


class Quantization(metaclass=abc.ABCMeta):
    """Prepares a copy of a model for calibration (PTQ) or quantization-aware
    training (QAT) with a (copied) QuantConfig, and converts the result."""

    def __init__(self, config):
        if not isinstance(config, QuantConfig):
            raise TypeError(f"{type(self).__name__}: argument 'config' expected a QuantConfig, got "
                            f"{type(config).__name__}")
        self._config = copy.deepcopy(config)

    @abc.abstractmethod
    def quantize(self, model, inplace=False):
        """The model prepared for quantization."""

    def convert(self, model, inplace=False, remain_weight=False):
        """The quantized model for inference: each quanter/observer becomes a
        quantize-dequantize layer with the scale it found, and the weights of the
        quantized layers are stored as integer levels (only a dequantize step in
        front of them; ``remain_weight=True`` keeps them in floats), so the outputs
        equal the fake-quantized model's in eval mode. As Paddle's, a layer already
        converted, or without a weight quanter or its scales, is left as it is.

        >>> converted = qat.convert(quant_model)
        """
        who = type(self).__name__ + ".convert"
        _check_model(who, model, inplace)
        if not isinstance(remain_weight, bool):
            raise TypeError(f"{who}: argument 'remain_weight' expected a bool, got {remain_weight!r}")
        out = model if inplace else copy.deepcopy(model)
        replaced = {}
        for name, child in out.named_children():
            if isinstance(child, ConvertibleQuantedLayer):
                if child.converted or (hasattr(child, "weight_quanter") and (
                        child.weight_quanter is None or child.weight_quanter.scales() is None)):
                    continue
                child._convert(remain_weight=remain_weight)
            elif isinstance(child, BaseQuanter):
                replaced[name] = LinearQuanterDequanter.from_quanter(child)
            else:
                self.convert(child, inplace=True, remain_weight=remain_weight)
        for name, layer in replaced.items():
            out._sub_layers[name] = layer  # in place: a Sequential keeps its order
        return out

    def _convert_to_quant_layers(self, model, config):
        replaced = {}
        for name, child in model.named_children():
            if config._is_quantifiable(child) and type(child) in config.qat_layer_mappings:
                replaced[name] = config._get_qat_layer(child)
            else:
                self._convert_to_quant_layers(child, config)
        for name, layer in replaced.items():
            model._sub_layers[name] = layer

    def _insert_activation_observers(self, model, config):
        replaced = {}
        for name, child in model.named_children():
            if config._need_observe(child):
                replaced[name] = config._get_observe_wrapper(child)
            else:
                self._insert_activation_observers(child, config)
        for name, layer in replaced.items():
            model._sub_layers[name] = layer

    def _details(self):
        return self._config.details()

    def __str__(self):
        return self._details()

    __repr__ = __str__


def _check_model(who, model, inplace):
    if not isinstance(model, Layer):
        raise TypeError(f"{who}: argument 'model' expected an eager.nn.Layer, got {type(model).__name__}")
    if not isinstance(inplace, bool):
        raise TypeError(f"{who}: argument 'inplace' expected a bool, got {inplace!r}")
