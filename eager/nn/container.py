"""Containers beyond Sequential and LayerList: LayerDict, ParameterList (Paddle's ``paddle.nn``)."""
from __future__ import annotations

import collections
import collections.abc
import numbers

from .layer import Layer, Parameter


class LayerDict(Layer):
    """Sublayers by name, in insertion order, registered so their parameters are
    found (Paddle's ``paddle.nn.LayerDict``). Takes a dict (an OrderedDict keeps
    its order), or an iterable of (name, layer) pairs.

    >>> heads = eager.nn.LayerDict({"cls": eager.nn.Linear(4, 2), "box": eager.nn.Linear(4, 4)})
    >>> list(heads.keys()), len(heads.parameters())
    (['cls', 'box'], 4)
    """

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key: str) -> Layer:
        _check_key("LayerDict.__getitem__", key)
        if key not in self._sub_layers:
            raise KeyError(f"LayerDict: no sublayer named {key!r}; names: {list(self._sub_layers)}")
        return self._sub_layers[key]

    def __setitem__(self, key: str, sublayer: Layer) -> None:
        _check_key("LayerDict.__setitem__", key, new=True)
        if not isinstance(sublayer, Layer):
            raise TypeError(f"LayerDict: the value for {key!r} expected a Layer, got {type(sublayer).__name__}")
        self._put(key, sublayer)

    def _put(self, key: str, sublayer: Layer) -> None:
        # Replacing a name keeps its place in the order, as a dict does.
        if key in self._sub_layers:
            self._sub_layers[key] = sublayer
        else:
            self.add_sublayer(key, sublayer)

    def __delitem__(self, key: str) -> None:
        _check_key("LayerDict.__delitem__", key)
        self[key]  # noqa: B018  (KeyError naming the keys)
        del self._sub_layers[key]

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key) -> bool:
        return key in self._sub_layers

    def clear(self) -> None:
        """Removes every sublayer."""
        self._sub_layers.clear()

    def pop(self, key: str) -> Layer:
        """Removes the sublayer ``key`` and returns it."""
        _check_key("LayerDict.pop", key)
        layer = self[key]
        del self._sub_layers[key]
        return layer

    def keys(self):
        """The names, in order."""
        return self._sub_layers.keys()

    def items(self):
        """(name, sublayer) pairs, in order."""
        return self._sub_layers.items()

    def values(self):
        """The sublayers, in order."""
        return self._sub_layers.values()

    def update(self, sublayers) -> None:
        """Adds (or replaces) sublayers from a mapping, a LayerDict or (name, layer) pairs.
        Everything is checked before anything is added."""
        if isinstance(sublayers, (collections.abc.Mapping, LayerDict)):
            pairs = list(sublayers.items())
        elif isinstance(sublayers, collections.abc.Iterable) and not isinstance(sublayers, (str, Layer)):
            pairs = []
            for index, item in enumerate(sublayers):
                if not isinstance(item, (list, tuple)):
                    raise TypeError(f"LayerDict.update: element {index} expected a (name, Layer) pair, got "
                                    f"{type(item).__name__}")
                if len(item) != 2:
                    # a pair of the wrong length is a ValueError, as in Paddle and dict.update
                    raise ValueError(f"LayerDict.update: element {index} expected a (name, Layer) pair, got "
                                     f"a {type(item).__name__} of length {len(item)}")
                pairs.append(tuple(item))
        else:
            raise TypeError(f"LayerDict.update: argument 'sublayers' expected a dict, a LayerDict or "
                            f"(name, Layer) pairs, got {type(sublayers).__name__}")
        for name, layer in pairs:
            if not isinstance(name, str) or not name or "." in name:
                raise ValueError(f"LayerDict.update: names must be non-empty strs without '.', got {name!r}")
            if not isinstance(layer, Layer):
                raise TypeError(f"LayerDict.update: the value for {name!r} expected a Layer, got "
                                f"{type(layer).__name__}")
        for name, layer in pairs:
            self._put(name, layer)


def _check_key(who: str, key, new: bool = False) -> None:
    """A LayerDict key: a str (a TypeError naming the method otherwise; unhashable keys
    would die in the dict with Python's own message); a ``new`` one also non-empty and
    without '.' (a ValueError), as add_sublayer requires."""
    if not isinstance(key, str):
        raise TypeError(f"{who}: argument 'key' expected a str, got {type(key).__name__}")
    if new and (not key or "." in key):
        raise ValueError(f"{who}: argument 'key' expected a non-empty str without '.', got {key!r}")


def index_argument(who: str, index, slices: bool = False):
    """A container method's ``index``: an int (a slice too where ``slices``), checked
    before anything changes; anything else is a TypeError naming ``who``."""
    if slices and isinstance(index, slice):
        return index
    if isinstance(index, bool) or not isinstance(index, numbers.Integral):
        raise TypeError(f"{who}: argument 'index' expected an int{' or a slice' if slices else ''}, "
                        f"got {type(index).__name__}")
    return int(index)


def position_argument(who: str, index, length: int, slices: bool = False) -> int:
    """An int ``index`` within [-length, length) (an IndexError naming ``who``
    otherwise); ``slices`` only says in the TypeError that the method also takes
    a slice, which the caller has handled before."""
    index = index_argument(who, index, slices)
    if not -length <= index < length:
        raise IndexError(f"{who}: index {index} is out of range [{-length}, {length})")
    return index


class ParameterList(Layer):
    """A list of Parameters, registered under "0", "1", ... so that
    ``parameters()``, ``state_dict()`` and the optimizers see them (Paddle's
    ``paddle.nn.ParameterList``).

    >>> params = eager.nn.ParameterList([eager.nn.Parameter(np.zeros((2, 2), "float32")) for _ in range(3)])
    >>> len(params), [name for name, _ in params.named_parameters()]
    (3, ['0', '1', '2'])
    """

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            if isinstance(parameters, Parameter) or not isinstance(parameters, collections.abc.Iterable):
                raise TypeError(f"ParameterList: argument 'parameters' expected an iterable of Parameters, got "
                                f"{type(parameters).__name__}")
            parameters = list(parameters)
            for p in parameters:
                self._check("ParameterList", p)
            for p in parameters:
                self.append(p)

    @staticmethod
    def _check(who: str, parameter) -> None:
        if not isinstance(parameter, Parameter):
            raise TypeError(f"{who}: expected a Parameter (wrap a tensor with eager.nn.Parameter or make one "
                            f"with create_parameter), got {type(parameter).__name__}")

    def __getitem__(self, index):
        values = list(self._parameters.values())
        if isinstance(index, slice):
            return ParameterList(values[index])
        return values[position_argument("ParameterList.__getitem__", index, len(values), slices=True)]

    def __setitem__(self, index: int, parameter) -> None:
        index = position_argument("ParameterList.__setitem__", index, len(self._parameters))
        self._check("ParameterList.__setitem__", parameter)
        keys = list(self._parameters)
        self._parameters[keys[index]] = parameter

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self):
        return iter(list(self._parameters.values()))

    def append(self, parameter) -> "ParameterList":
        """Adds a Parameter at the end; returns self."""
        self._check("ParameterList.append", parameter)
        self.add_parameter(str(len(self._parameters)), parameter)
        return self

    def extend(self, parameters) -> "ParameterList":
        """Appends every Parameter of ``parameters``; returns self."""
        if isinstance(parameters, Parameter) or not isinstance(parameters, collections.abc.Iterable):
            raise TypeError(f"ParameterList.extend: argument 'parameters' expected an iterable of Parameters, "
                            f"got {type(parameters).__name__}")
        parameters = list(parameters)
        for p in parameters:
            self._check("ParameterList.extend", p)
        for p in parameters:
            self.append(p)
        return self


__all__ = ["LayerDict", "ParameterList"]
