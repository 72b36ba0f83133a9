"""QuantConfig: which quanter quantizes the activations and the weights of each
layer of a model, set globally, by layer type, by layer name or by layer, and
which quantized layer replaces each layer type."""
from __future__ import annotations

import copy

from .. import nn
from ..nn.layer import Layer
from ..nn.quant.qat import QuantedConv2D, QuantedLinear
from ..nn.quant.stub import QuanterStub, Stub
from .factory import QuanterFactory
from .wrapper import ObserveWrapper

DEFAULT_QAT_LAYER_MAPPINGS = {Stub: QuanterStub, nn.Linear: QuantedLinear, nn.Conv2D: QuantedConv2D}
DEFAULT_LEAVES = [nn.ReLU, nn.AvgPool2D]


def _check_factory(who, arg, value):
    if value is not None and not isinstance(value, QuanterFactory):
        raise TypeError(f"{who}: argument '{arg}' expected a quanter/observer factory (e.g. "
                        f"FakeQuanterWithAbsMaxObserver(...)) or None, got {type(value).__name__}")


def _check_layer_type(who, arg, value):
    if not (isinstance(value, type) and issubclass(value, Layer)):
        raise TypeError(f"{who}: argument '{arg}' expected a subclass of eager.nn.Layer, got {value!r}")


class SingleLayerConfig:
    """The activation and weight quanter factories of one layer."""

    def __init__(self, activation, weight):
        self._activation = activation
        self._weight = weight

    @property
    def activation(self):
        """The factory of the activation quanter (or None)."""
        return self._activation

    @property
    def weight(self):
        """The factory of the weight quanter (or None)."""
        return self._weight

    def __str__(self):
        return f"activation: {self._activation}\nweight: {self._weight}"


class QuantConfig:
    """How to quantize a model: ``activation`` and ``weight`` are the global
    quanter factories (both None: only layers configured below are quantized).
    Priority, highest first: ``add_layer_config`` / ``add_name_config`` (by the
    layer's full name), ``add_type_config``, the parent layer's config, the global one.

    >>> from eager.quantization import QuantConfig
    >>> from eager.quantization.quanters import FakeQuanterWithAbsMaxObserver
    >>> quanter = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)
    >>> q_config = QuantConfig(activation=quanter, weight=quanter)
    """

    def __init__(self, activation, weight):
        _check_factory("QuantConfig", "activation", activation)
        _check_factory("QuantConfig", "weight", weight)
        self._global_config = None if activation is None and weight is None else SingleLayerConfig(activation, weight)
        self._layer2config = {}
        self._prefix2config = {}
        self._type2config = {}
        self._model = None
        self._qat_layer_mapping = copy.copy(DEFAULT_QAT_LAYER_MAPPINGS)
        self._customized_leaves = []

    def add_layer_config(self, layer, activation=None, weight=None):
        """Configures one layer (or a list of layers) of the model."""
        _check_factory("QuantConfig.add_layer_config", "activation", activation)
        _check_factory("QuantConfig.add_layer_config", "weight", weight)
        layers = layer if isinstance(layer, list) else [layer]
        for item in layers:
            if not isinstance(item, Layer):
                raise TypeError(f"QuantConfig.add_layer_config: argument 'layer' expected a Layer or a list of "
                                f"Layers, got {type(item).__name__}")
        self.add_name_config([item.full_name() for item in layers], activation=activation, weight=weight)

    def add_name_config(self, layer_name, activation=None, weight=None):
        """Configures the layer(s) with the given full name(s) (``layer.full_name()``)."""
        _check_factory("QuantConfig.add_name_config", "activation", activation)
        _check_factory("QuantConfig.add_name_config", "weight", weight)
        names = layer_name if isinstance(layer_name, list) else [layer_name]
        for name in names:  # every name checked before any is configured: a refused call changes nothing
            if not isinstance(name, str):
                raise TypeError(f"QuantConfig.add_name_config: argument 'layer_name' expected a str or a list of "
                                f"str, got {type(name).__name__}")
        for name in names:
            self._prefix2config[name] = SingleLayerConfig(activation, weight)

    def add_type_config(self, layer_type, activation=None, weight=None):
        """Configures every layer of the given type(s) (subclasses of eager.nn.Layer)."""
        _check_factory("QuantConfig.add_type_config", "activation", activation)
        _check_factory("QuantConfig.add_type_config", "weight", weight)
        types = layer_type if isinstance(layer_type, list) else [layer_type]
        for kind in types:  # every type checked before any is configured: a refused call changes nothing
            _check_layer_type("QuantConfig.add_type_config", "layer_type", kind)
        for kind in types:
            self._type2config[kind] = SingleLayerConfig(activation, weight)

    def add_qat_layer_mapping(self, source, target):
        """Layers of type ``source`` are replaced by ``target(layer, single_layer_config)``
        before quantization-aware training (defaults: Linear -> QuantedLinear,
        Conv2D -> QuantedConv2D, Stub -> QuanterStub). ``source`` is a Layer
        subclass; ``target`` any class (a callable taking the layer and its
        config), as Paddle asks no more of it."""
        _check_layer_type("QuantConfig.add_qat_layer_mapping", "source", source)
        if not isinstance(target, type):
            raise TypeError(f"QuantConfig.add_qat_layer_mapping: argument 'target' expected a class, got {target!r}")
        self._qat_layer_mapping[source] = target

    def add_customized_leaf(self, layer_type):
        """Declares a layer type a leaf: quantized as one layer, its sublayers left alone."""
        _check_layer_type("QuantConfig.add_customized_leaf", "layer_type", layer_type)
        self._customized_leaves.append(layer_type)

    @property
    def customized_leaves(self):
        """The layer types declared leaves."""
        return self._customized_leaves

    @property
    def qat_layer_mappings(self):
        """source type -> quantized layer type."""
        return self._qat_layer_mapping

    @property
    def default_qat_layer_mapping(self):
        """The default source type -> quantized layer type mapping."""
        return DEFAULT_QAT_LAYER_MAPPINGS

    @property
    def global_config(self):
        """The global SingleLayerConfig (None when both global factories are None)."""
        return self._global_config

    # -- used by QAT / PTQ --------------------------------------------------
    def _get_config_by_layer(self, layer):
        return self._layer2config.get(layer)

    def _is_quantifiable(self, layer):
        return layer in self._layer2config

    def _is_leaf(self, layer):
        return self._is_default_leaf(layer) or self._is_real_leaf(layer) or self._is_customized_leaf(layer)

    def _is_default_leaf(self, layer):
        return type(layer) in DEFAULT_LEAVES

    def _is_real_leaf(self, layer):
        """A layer without sublayers."""
        return len(layer._sub_layers) == 0

    def _is_customized_leaf(self, layer):
        return type(layer) in self._customized_leaves

    def _has_observer_config(self, layer):
        config = self._get_config_by_layer(layer)
        return config is not None and config.activation is not None

    def _need_observe(self, layer):
        return self._is_leaf(layer) and self._has_observer_config(layer)

    def _get_qat_layer(self, layer):
        config = self._get_config_by_layer(layer)
        return self._qat_layer_mapping[type(layer)](layer, config)

    def _get_observer(self, layer):
        config = self._get_config_by_layer(layer)
        factory = None if config is None else config.activation
        return None if factory is None else factory._instance(layer)

    def _get_observe_wrapper(self, layer):
        return ObserveWrapper(self._get_observer(layer), layer)

    def _specify(self, model):
        """Assigns each sublayer of model its SingleLayerConfig."""
        self._model = model
        self._specify_helper(model)

    def _specify_helper(self, model):
        for child in model.children():
            config = self._layer2config.get(model, self._global_config)
            config = self._type2config.get(type(child), config)
            config = self._prefix2config.get(child.full_name(), config)
            if config is not None:
                self._layer2config[child] = config
            self._specify_helper(child)
        return self

    def details(self):
        """The model's layers with the config each got (after quantize)."""
        return "" if self._model is None else self._details_helper(self._model)

    def _details_helper(self, layer):
        lines = []
        for name, sub in layer.named_children():
            text = self._details_helper(sub).replace("\n", "\n  ")
            lines.append(f"({name}): {text}, {self._layer2config.get(sub)}")
        body = ("\n  " + "\n  ".join(lines) + "\n") if lines else ""
        return f"{type(layer).__name__}({body})"

    def __str__(self):
        result = f"Global config:\n{self._global_config}\n"
        if self._type2config:
            result += f"Layer type config:\n{self._type2config}\n"
        if self._prefix2config:
            result += f"Layer prefix config: \n{self._prefix2config}\n"
        return result
