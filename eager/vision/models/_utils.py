"""What the model builders share, and Paddle's ``IntermediateLayerGetter``."""
from __future__ import annotations

import math
import numbers
from collections import OrderedDict

import numpy as np

from phi.core.errors import describe_value

from ... import nn
from ...arguments import to_float, to_int


def check_pretrained(fn: str, pretrained) -> None:
    """``pretrained=True`` cannot be honoured: eager downloads no weights."""
    if pretrained:
        raise ValueError(f"{fn}: pretrained=True is not available: eager does not download weights. Build the "
                         f"model with pretrained=False and load a state dict you have with "
                         f"model.set_state_dict(...)")


def check_num_classes(fn: str, num_classes) -> int:
    """``num_classes`` as a Python int: NumPy ints are taken, as Paddle's models
    take them (a Tensor is not: the layers are sized by the argument itself)."""
    if isinstance(num_classes, (int, np.integer)) and not isinstance(num_classes, bool):
        return int(num_classes)
    raise TypeError(f"{fn}: argument 'num_classes' expected an int, got {describe_value(num_classes)}")


def check_choice(fn: str, arg: str, value, choices):
    """``value``, one of the int keys of ``choices`` (a depth, a layer count); a
    value that is no number (a list failed as unhashable) is a TypeError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{fn}: argument '{arg}' expected an int, got {describe_value(value)}")
    if value not in choices:
        raise ValueError(f"{fn}: argument '{arg}' expected one of {sorted(choices)}, got {value!r}")
    return value


def check_scale(fn: str, scale) -> float:
    """A width multiplier: a positive real number (a str or None failed deep in
    the channel arithmetic)."""
    scale = to_float(scale, fn, "scale")
    if not 0 < scale < math.inf:  # NaN fails both, inf overflowed int() of a channel count
        raise ValueError(f"{fn}: argument 'scale' expected a positive finite number, got {scale!r}")
    return scale


def check_positive_int(fn: str, arg: str, value) -> int:
    """A count such as ResNet's groups or DenseNet's bn_size: an int of at least 1."""
    value = to_int(value, fn, arg)
    if value < 1:
        raise ValueError(f"{fn}: argument '{arg}' expected a positive int, got {value}")
    return value


class IntermediateLayerGetter(nn.LayerDict):
    """The direct sublayers of ``model``, in order, up to the last one named in
    ``return_layers`` (``{sublayer name: output name}``); calling it runs them
    one after another and returns an OrderedDict of the named sublayers'
    outputs, under their output names. Only a model whose forward is its
    direct sublayers in sequence (ResNet up to its pooling, VGG's features, ...)
    can be cut so; the sublayers are shared with ``model``, not copied.

    >>> net = eager.nn.Sequential(eager.nn.Linear(4, 3), eager.nn.ReLU(), eager.nn.Linear(3, 2))
    >>> getter = IntermediateLayerGetter(net, {"0": "hidden", "2": "out"})
    >>> [(name, value.shape) for name, value in getter(eager.ones([5, 4])).items()]
    [('hidden', [5, 3]), ('out', [5, 2])]
    """

    def __init__(self, model, return_layers):
        if not isinstance(model, nn.Layer):
            raise TypeError(f"IntermediateLayerGetter: argument 'model' expected a Layer, got "
                            f"{type(model).__name__}")
        if not isinstance(return_layers, dict) or not return_layers or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in return_layers.items()):
            raise TypeError(f"IntermediateLayerGetter: argument 'return_layers' expected a non-empty dict of "
                            f"sublayer name -> output name (str -> str), got {return_layers!r}")
        children = list(model.named_children())
        names = [name for name, _ in children]
        missing = [name for name in return_layers if name not in names]
        if missing:
            raise ValueError(f"IntermediateLayerGetter: return_layers {missing} are not direct sublayers of the "
                             f"model; its sublayers are {names}")
        wanted = set(return_layers)
        kept = OrderedDict()
        for name, layer in children:
            kept[name] = layer
            wanted.discard(name)
            if not wanted:
                break
        super().__init__(kept)
        self.return_layers = dict(return_layers)

    def forward(self, x):
        out = OrderedDict()
        for name, layer in self.items():
            x = layer(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out
