"""Common layers: Linear, activations, Sequential and LayerList."""
from __future__ import annotations

import collections
import collections.abc
import numbers

from phi.core import InvalidArgumentError, NotFoundError

from ..generated import forward_api as _F
from ..tensor import Tensor
from . import functional as F
from . import initializer as _init
from .container import index_argument, position_argument
from .functional.checks import check_positive_int
from .layer import Layer, ParamAttr, name_repr


class Linear(Layer):
    """y = x @ weight + bias, with weight of shape [in_features, out_features] (Paddle's
    layout, the transpose of PyTorch's).

    ``weight_attr``/``bias_attr``: a ParamAttr, an initializer, a name, or None for
    the defaults (XavierUniform weight, zero bias); ``bias_attr=False`` drops the
    bias. ``generator`` (a numpy.random.Generator) overrides the global one that
    ``eager.nn.seed`` sets.

    >>> eager.nn.seed(0)
    >>> fc = eager.nn.Linear(4, 2)
    >>> fc(eager.ones([3, 4])).shape
    [3, 2]
    """

    def __init__(self, in_features: int, out_features: int, weight_attr=None, bias_attr=None,
                 name=None, generator=None):
        super().__init__()
        self._name = name
        check_positive_int("Linear", "in_features", in_features)
        check_positive_int("Linear", "out_features", out_features)
        if weight_attr is False:
            raise ValueError("Linear: argument 'weight_attr' cannot be False: a Linear layer needs a weight")
        self.in_features = int(in_features)
        self.out_features = int(out_features)
        weight_attr = ParamAttr.from_argument(weight_attr, "Linear", "weight_attr")
        bias_attr = ParamAttr.from_argument(bias_attr, "Linear", "bias_attr")
        self.weight = self.create_parameter([self.in_features, self.out_features], weight_attr,
                                            default_initializer=_init.XavierUniform(),
                                            generator=generator)
        self.bias = self.create_parameter([self.out_features], bias_attr, is_bias=True,
                                          generator=generator)

    def forward(self, x: Tensor) -> Tensor:
        """x @ weight (+ bias); x has shape [..., in_features]."""
        if not isinstance(x, Tensor):
            F.checks.check_tensor(f"Linear({self._full_name})", "x", x)
        dims = x.impl.dims
        if not dims or dims[-1] != self.in_features:
            raise ValueError(
                f"Linear({self._full_name}): argument 'x' expected a last dimension of "
                f"{self.in_features} (in_features), got shape {x.shape}")
        if type(self) is Linear:  # read from _parameters without the __getattr__ frame
            params = self._parameters
            try:
                weight, bias = params["weight"], params["bias"]
            except KeyError:  # no longer parameters (weight_norm): wherever the attributes are
                weight, bias = self.weight, self.bias
        else:  # a subclass may define them otherwise
            weight, bias = self.weight, self.bias
        try:
            return _F.linear(x, weight, bias)  # one fused op: product, bias, one grad node
        except InvalidArgumentError:
            if not any(t is not None and t.dtype.is_complex for t in (x, weight, bias)):
                raise
            return F.linear(x, weight, bias)  # a complex with a real dtype: promoted (Paddle's rule)

    def extra_repr(self) -> str:
        """Sizes and dtype, shown by repr."""
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"dtype={self._dtype.name.lower()}{name_repr(self._name)}")


class ReLU(Layer):
    """max(x, 0) elementwise."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        """relu(x)."""
        if isinstance(x, Tensor):
            try:
                return _F.relu(x)
            except NotFoundError:  # no kernel for x's dtype: F.relu raises the TypeError
                pass
        return F.relu(x)

    def extra_repr(self):
        """A given name, shown by repr (as Paddle's)."""
        return name_repr(self._name, "")


class Tanh(Layer):
    """tanh(x) elementwise."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        """tanh(x)."""
        return F.tanh(x)

    def extra_repr(self):
        """A given name, shown by repr (as Paddle's)."""
        return name_repr(self._name, "")


class Sigmoid(Layer):
    """1 / (1 + exp(-x)) elementwise."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        """sigmoid(x)."""
        return F.sigmoid(x)

    def extra_repr(self):
        """A given name, shown by repr (as Paddle's)."""
        return name_repr(self._name, "")


class Softmax(Layer):
    """softmax along ``axis``."""

    def __init__(self, axis: int = -1, name=None):
        super().__init__()
        self._name = name
        self.axis = axis

    def forward(self, x):
        """softmax(x) along self.axis."""
        return F.softmax(x, self.axis)

    def extra_repr(self):
        """The axis, shown by repr."""
        return f"axis={self.axis}{name_repr(self._name)}"


class Sequential(Layer):
    """Calls its layers in order, each on the previous one's output.

    ``Sequential(layer, layer, ...)`` names them "0", "1", ...;
    ``Sequential(("fc", layer), ...)`` gives them names.

    >>> net = eager.nn.Sequential(eager.nn.Linear(2, 4), eager.nn.ReLU(), eager.nn.Linear(4, 1))
    >>> [n for n, _ in net.named_parameters()]
    ['0.weight', '0.bias', '2.weight', '2.bias']
    """

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], collections.OrderedDict):
            layers = tuple(layers[0].items())
        for index, item in enumerate(layers):
            if isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], str):
                name, layer = item
                if not name or "." in name:
                    raise ValueError(f"Sequential: argument {index} names a layer {name!r}; expected a "
                                     f"non-empty str without '.'")
            else:
                name, layer = str(index), item
            if not isinstance(layer, Layer):
                raise TypeError(
                    f"Sequential: argument {index} expected a Layer or a (name, Layer) pair, got "
                    f"{type(layer).__name__}")
            self.add_sublayer(name, layer)

    def forward(self, x):
        """Each layer in order on the previous output."""
        for layer in self._sub_layers.values():
            x = layer(x)
        return x

    def __getitem__(self, index):
        """A layer by position or name; a slice gives a new Sequential of those
        layers, named "0", "1", ... (as Paddle's)."""
        layers = list(self._sub_layers.values())
        if isinstance(index, slice):
            return Sequential(*layers[index])
        return self._sub_layers[self._key(index)]

    def __setitem__(self, index, layer) -> None:
        """Replaces the layer at a position (or of a name) in place, keeping the
        order; a new name adds a layer at the end (Paddle's setattr).

        >>> net = eager.nn.Sequential(eager.nn.Linear(2, 2), eager.nn.ReLU())
        >>> net[1] = eager.nn.Tanh()
        >>> [type(layer).__name__ for layer in net]
        ['Linear', 'Tanh']
        """
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.__setitem__: expected a Layer, got {type(layer).__name__}")
        key = index if isinstance(index, str) else self._key(index)
        self.add_sublayer(key, layer)

    def __delitem__(self, index) -> None:
        """Removes the layer at a position (or of a name); the others keep their
        names (as Paddle's)."""
        del self._sub_layers[self._key(index)]

    def _key(self, index) -> str:
        """The name of the layer at ``index`` (a position or a name)."""
        names = list(self._sub_layers)
        if isinstance(index, str):
            if index not in self._sub_layers:
                raise KeyError(f"Sequential: no layer named {index!r}; the names are {names}")
            return index
        if isinstance(index, bool) or not isinstance(index, numbers.Integral) \
                or not -len(names) <= index < len(names):
            raise IndexError(f"Sequential: index expected an int in [{-len(names)}, {len(names)}) "
                             f"or a layer's name, got {index!r}")
        return names[index]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())


class LayerList(Layer):
    """A list of sublayers, registered so their parameters are found.

    >>> blocks = eager.nn.LayerList([eager.nn.Linear(4, 4) for _ in range(3)])
    """

    def __init__(self, sublayers=None):
        super().__init__()
        # An iterable Layer (a LayerList, a Sequential) gives its layers, as in Paddle.
        if sublayers is not None and not isinstance(sublayers, collections.abc.Iterable):
            raise TypeError(f"LayerList: argument 'sublayers' expected an iterable of Layers, got "
                            f"{type(sublayers).__name__}")
        for layer in () if sublayers is None else sublayers:
            self.append(layer)

    @staticmethod
    def _check(who: str, sublayer) -> None:
        if not isinstance(sublayer, Layer):
            raise TypeError(f"LayerList.{who}: argument 'sublayer' expected a Layer, got "
                            f"{type(sublayer).__name__}")

    def _renumber(self, layers) -> None:
        # Paddle names a LayerList's sublayers "0", "1", ...: keep them in order.
        for name in list(self._sub_layers):
            self._forget(name)
        for i, layer in enumerate(layers):
            self.add_sublayer(str(i), layer)

    def append(self, sublayer: Layer) -> "LayerList":
        """Adds a layer at the end."""
        self._check("append", sublayer)
        self.add_sublayer(str(len(self._sub_layers)), sublayer)
        return self

    def insert(self, index: int, sublayer: Layer) -> None:
        """Inserts a layer before position ``index`` (as list.insert)."""
        index = index_argument("LayerList.insert", index)
        self._check("insert", sublayer)
        layers = list(self._sub_layers.values())
        layers.insert(index, sublayer)
        self._renumber(layers)

    def extend(self, sublayers) -> "LayerList":
        """Appends every layer of ``sublayers``."""
        if not isinstance(sublayers, collections.abc.Iterable):
            raise TypeError(f"LayerList.extend: argument 'sublayers' expected an iterable of Layers, got "
                            f"{type(sublayers).__name__}")
        sublayers = list(sublayers)
        for layer in sublayers:
            self._check("extend", layer)
        for layer in sublayers:
            self.append(layer)
        return self

    def __setitem__(self, index: int, sublayer: Layer) -> None:
        index = position_argument("LayerList.__setitem__", index, len(self._sub_layers))
        self._check("__setitem__", sublayer)
        layers = list(self._sub_layers.values())
        layers[index] = sublayer
        self._renumber(layers)

    def __delitem__(self, index) -> None:
        index = index_argument("LayerList.__delitem__", index, slices=True)
        if not isinstance(index, slice):
            index = position_argument("LayerList.__delitem__", index, len(self._sub_layers))
        layers = list(self._sub_layers.values())
        del layers[index]
        self._renumber(layers)

    def __getitem__(self, index):
        index = index_argument("LayerList.__getitem__", index, slices=True)
        layers = list(self._sub_layers.values())
        if isinstance(index, slice):
            return LayerList(layers[index])
        return layers[position_argument("LayerList.__getitem__", index, len(layers))]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())


__all__ = ["Linear", "LayerList", "ReLU", "Sequential", "Sigmoid", "Softmax", "Tanh"]
