"""ImperativeQuantAware: Paddle's older dynamic-graph QAT interface (named by
strings: which layer types, which weight and activation quantization), set up
here on the same quantized layers and quanters as :class:`eager.quantization.QAT`."""
from __future__ import annotations

import copy
import numbers

from .. import jit, nn
from ..nn.layer import Layer
from ..nn.quant import fake_quant
from ..nn.quant.quant_layers import QuantizedConv2D, QuantizedConv2DTranspose, QuantizedLinear
from .config import DEFAULT_QAT_LAYER_MAPPINGS, QuantConfig, SingleLayerConfig
# paddle.quantization.imperative also holds the older PTQ
from .imperative_ptq import (SUPPORT_ACT_QUANTIZERS, SUPPORT_WT_QUANTIZERS, AbsmaxQuantizer,  # noqa: F401
                             BaseQuantizer, HistQuantizer, ImperativePTQ, KLQuantizer, PerChannelAbsmaxQuantizer,
                             PTQConfig, PTQRegistry, default_ptq_config)
from .qat import QAT
from .quanters import FakeQuanterWithAbsMaxObserver

# Paddle's quantizable layer names; the parallel linears have no quantized layers here.
_KNOWN_TYPES = ("Conv2D", "Linear", "Conv2DTranspose", "ColumnParallelLinear", "RowParallelLinear")
_QUANTIZED_TYPES = {"Conv2D": nn.Conv2D, "Linear": nn.Linear, "Conv2DTranspose": nn.Conv2DTranspose}
_WEIGHT_TYPES = ("abs_max", "channel_wise_abs_max", "moving_average_abs_max", "lsq_weight", "channel_wise_lsq_weight")
_ACTIVATION_TYPES = ("abs_max", "moving_average_abs_max", "lsq_act", "range_abs_max")


def _choice(arg, value, offered, known):
    who = "ImperativeQuantAware"
    if value not in known:
        raise ValueError(f"{who}: argument '{arg}' expected one of {list(known)}, got {value!r}")
    if value not in offered:
        raise ValueError(f"{who}: argument '{arg}' {value!r} is not offered here; use one of {list(offered)}")
    return value


class ImperativeQuantAware:
    """Quantization-aware training set up by names: ``quantize(model)`` swaps,
    in place, each sublayer whose type is in ``quantizable_layer_type`` (and
    that has no ``skip_quant = True``) for its quantized layer, which
    fake-quantizes its weight (``weight_quantize_type='abs_max'``: the current
    ``max|w|`` as scale) and its input (``activation_quantize_type``:
    ``'moving_average_abs_max'`` with ``moving_rate``, or ``'abs_max'``, the
    batch's ``max|x|``), to ``weight_bits`` / ``activation_bits``. Conv2D and
    Linear become QAT's QuantedConv2D/QuantedLinear; Conv2DTranspose becomes
    :class:`eager.nn.quant.quant_layers.QuantizedConv2DTranspose` with the same
    settings, as in Paddle. With another ``weight_quantize_type`` ('channel_wise_abs_max':
    one scale per output channel; 'moving_average_abs_max'; the LSQ+ 'lsq_weight',
    'channel_wise_lsq_weight'), ``activation_quantize_type='lsq_act'`` or user layers (``weight_preprocess_layer``,
    ``act_preprocess_layer``, ``weight_quantize_layer``, ``act_quantize_layer``:
    Layer classes instantiated with no arguments, a preprocess applied first, a
    fake-quant layer used instead), every layer becomes its ``nn.quant.quant_layers``
    counterpart (QuantizedConv2D, QuantizedLinear), as Paddle's does.
    ``fuse_conv_bn=True`` leaves Conv2D and BatchNorm2D apart, as Paddle 2.6.2 does
    (its fusion works on a copy of the model that it drops).
    ``save_quantized_model`` saves the inference form of the model (what
    ``QAT.convert`` makes of it, in eval mode) with :func:`eager.jit.save`.

    >>> from eager.quantization import ImperativeQuantAware
    >>> model = eager.nn.Sequential(eager.nn.Linear(4, 3))
    >>> ImperativeQuantAware().quantize(model)
    >>> type(model[0]).__name__
    'QuantedLinear'
    """

    def __init__(self, quantizable_layer_type=("Conv2D", "Linear", "Conv2DTranspose", "ColumnParallelLinear",
                                               "RowParallelLinear"),
                 weight_quantize_type="abs_max", activation_quantize_type="moving_average_abs_max", weight_bits=8,
                 activation_bits=8, moving_rate=0.9, fuse_conv_bn=False, weight_preprocess_layer=None,
                 act_preprocess_layer=None, weight_quantize_layer=None, act_quantize_layer=None, onnx_format=False):
        who = "ImperativeQuantAware"
        types = [quantizable_layer_type] if isinstance(quantizable_layer_type, str) else quantizable_layer_type
        if not isinstance(types, (list, tuple)) or not all(t in _KNOWN_TYPES for t in types):
            raise ValueError(f"{who}: argument 'quantizable_layer_type' expected names from {list(_KNOWN_TYPES)}, "
                             f"got {quantizable_layer_type!r}")
        _choice("weight_quantize_type", weight_quantize_type, _WEIGHT_TYPES, _WEIGHT_TYPES)
        _choice("activation_quantize_type", activation_quantize_type, ("abs_max", "moving_average_abs_max", "lsq_act"),
                _ACTIVATION_TYPES)
        for arg, value in (("fuse_conv_bn", fuse_conv_bn), ("onnx_format", onnx_format)):
            if not isinstance(value, bool):
                raise TypeError(f"{who}: argument '{arg}' expected a bool, got {value!r}")
        # Paddle 2.6.2 accepts fuse_conv_bn=True but fuses a deep copy of the model that it then
        # drops (fuse_layers(inplace=False)), so the model is quantized unfused: eager does the same
        self.fuse_conv_bn = fuse_conv_bn
        custom = {"weight_preprocess_layer": weight_preprocess_layer, "act_preprocess_layer": act_preprocess_layer,
                  "weight_quantize_layer": weight_quantize_layer, "act_quantize_layer": act_quantize_layer}
        for arg, value in custom.items():
            if value is not None and not (isinstance(value, type) and issubclass(value, Layer)):
                raise TypeError(f"{who}: argument '{arg}' expected a subclass of eager.nn.Layer (instantiated with "
                                f"no arguments) or None, got {value!r}")
        if not isinstance(moving_rate, numbers.Real) or isinstance(moving_rate, bool):
            raise TypeError(f"{who}: argument 'moving_rate' expected a number, got {moving_rate!r}")
        fake_quant.check_moving_rate(who, moving_rate)
        fake_quant.check_bit_length(who, weight_bits, "weight_bits")
        fake_quant.check_bit_length(who, activation_bits, "activation_bits")
        activation_rate = float(moving_rate) if activation_quantize_type == "moving_average_abs_max" else 0.0
        self._types = tuple(_QUANTIZED_TYPES[t] for t in types if t in _QUANTIZED_TYPES)
        self._transpose_settings = {"weight_bits": weight_bits, "activation_bits": activation_bits,
                                    "moving_rate": moving_rate, "weight_quantize_type": weight_quantize_type,
                                    "activation_quantize_type": activation_quantize_type,
                                    "weight_pre_layer": weight_preprocess_layer, "act_pre_layer": act_preprocess_layer,
                                    "weight_quant_layer": weight_quantize_layer, "act_quant_layer": act_quantize_layer}
        # Per-channel weights and user layers need Paddle's own quantized layers (nn.quant.quant_layers),
        # as Paddle uses for every layer; the plain case keeps QAT's convertible layers (integer weights on save).
        self._legacy_layers = (weight_quantize_type != "abs_max" or activation_quantize_type == "lsq_act"
                               or any(v is not None for v in custom.values()))
        self._config = SingleLayerConfig(
            activation=FakeQuanterWithAbsMaxObserver(moving_rate=activation_rate, bit_length=activation_bits),
            weight=FakeQuanterWithAbsMaxObserver(moving_rate=0.0, bit_length=weight_bits))

    def quantize(self, model):
        """Swaps the quantized layers into ``model`` in place (returns None, as Paddle)."""
        if not isinstance(model, Layer):
            raise TypeError(f"ImperativeQuantAware.quantize: argument 'model' expected an eager.nn.Layer, got "
                            f"{type(model).__name__}")
        self._swap(model)

    def _swap(self, parent):
        for name, child in list(parent.named_children()):
            if type(child) in self._types and not getattr(child, "skip_quant", False):
                parent._sub_layers[name] = self._quantized(child)
            else:
                self._swap(child)

    def _quantized(self, layer):
        if type(layer) is nn.Conv2DTranspose:
            return QuantizedConv2DTranspose(layer, **self._transpose_settings)
        if self._legacy_layers:
            kind = QuantizedConv2D if type(layer) is nn.Conv2D else QuantizedLinear
            return kind(layer, **self._transpose_settings)
        return DEFAULT_QAT_LAYER_MAPPINGS[type(layer)](layer, self._config)

    def save_quantized_model(self, layer, path=None, input_spec=None, model_path=None, **config):
        """Saves the inference form of the quantized ``layer`` (a converted copy
        in eval mode: quantize-dequantize steps with the scales found, integer
        weights) with :func:`eager.jit.save` at ``path`` (``model_path`` is
        accepted as its other name). ``layer`` itself is left as it is."""
        if not isinstance(layer, Layer):
            raise TypeError(f"ImperativeQuantAware.save_quantized_model: argument 'layer' expected an "
                            f"eager.nn.Layer, got {type(layer).__name__}")
        if (path is None) == (model_path is None):
            raise ValueError("ImperativeQuantAware.save_quantized_model: expected one of the arguments 'path' and "
                             "'model_path'")
        inference = QAT(QuantConfig(None, None)).convert(copy.deepcopy(layer).eval(), inplace=True)
        jit.save(inference, path if path is not None else model_path, input_spec=input_spec, **config)


__all__ = ["ImperativeQuantAware"]
