"""Quanter/observer factories: a configuration names a factory (the class to
build and its arguments); QAT/PTQ build one quanter layer per quantized layer
from it. ``quanter(class_name)`` declares a factory for a custom quanter class."""
from __future__ import annotations

import abc
import functools
import sys


class ClassWithArguments(metaclass=abc.ABCMeta):
    """Holds positional and keyword arguments for the class ``_get_class`` names."""

    def __init__(self, *args, **kwargs):
        self._args = args
        self._kwargs = kwargs

    @property
    def args(self):
        """The positional arguments."""
        return self._args

    @property
    def kwargs(self):
        """The keyword arguments."""
        return self._kwargs

    @abc.abstractmethod
    def _get_class(self):
        """The class this factory builds."""

    def __str__(self):
        parts = [str(a) for a in self.args] + [f"{k}={v}" for k, v in self.kwargs.items()]
        return f"{type(self).__name__}({','.join(parts)})"

    __repr__ = __str__


class QuanterFactory(ClassWithArguments):
    """A quanter's class and the arguments it is built with; ``_instance(layer)``
    builds one as ``cls(*args, layer, **kwargs)``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.partial_class = None

    def _instance(self, layer):
        """A new quanter (a Layer) for ``layer``."""
        if self.partial_class is None:
            self.partial_class = functools.partial(self._get_class(), *self.args, **self.kwargs)
        return self.partial_class(layer)


ObserverFactory = QuanterFactory


def quanter(class_name):
    """Class decorator declaring a factory for a custom quanter: ``@quanter("MyQuanter")``
    on ``class MyQuanterLayer(BaseQuanter)`` adds ``MyQuanter`` to the decorated class's
    module; ``MyQuanter(*args, **kwargs)`` is then a factory a QuantConfig accepts, building
    ``MyQuanterLayer(*args, layer, **kwargs)`` for each quantized layer.

    >>> @quanter("MyQuanter")
    ... class MyQuanterLayer(BaseQuanter):
    ...     def __init__(self, layer, bits=8):
    ...         super().__init__()
    """
    if not isinstance(class_name, str) or not class_name.isidentifier():
        raise TypeError(f"quanter: argument 'class_name' expected a Python identifier string, got {class_name!r}")

    def wrapper(target_class):
        if not isinstance(target_class, type):
            raise TypeError(f"quanter({class_name!r}): expected to decorate a class, got "
                            f"{type(target_class).__name__}")
        factory = type(class_name, (QuanterFactory,), {
            "_get_class": lambda self: target_class,
            "__doc__": f"Factory of {target_class.__name__} (declared by eager.quantization.quanter).",
            "__module__": target_class.__module__,
        })
        module = sys.modules.get(target_class.__module__)
        namespace = module.__dict__ if module is not None else sys._getframe(1).f_globals
        namespace[class_name] = factory
        if isinstance(namespace.get("__all__"), list):
            namespace["__all__"].append(class_name)
        return target_class

    return wrapper
