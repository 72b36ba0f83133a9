"""Layer, Parameter and ParamAttr: Paddle 2.x's ``paddle.nn.Layer`` model.

A Layer owns Parameters and sublayers, registered by assigning them as
attributes. Calling a layer runs ``forward`` inside a name scope named after
the layer (``linear_0``), so the grad nodes it records can be grouped in a
picture of the graph.

This package is also Paddle's ``paddle.nn.layer``: its submodules carry
Paddle's file names (``eager.nn.layer.common``, ``.loss``, ``.transformer``,
``.layers``, ...) and re-export the eager.nn classes Paddle defines in each
file. They load on first use, by import statement or attribute access.
"""
from __future__ import annotations

import collections
import collections.abc
import copy
import functools
import importlib
import numbers
import pkgutil
import re
import time
import warnings
from typing import Iterator

import numpy as np

from phi import api as phi_api
from phi.common import DataType, TensorKind, convert_dtype
from phi.common.data_type import FLOATING_TYPES, bfloat16_numpy_dtype
from phi.core import ArraySpec, DenseTensor, InvalidArgumentError
from phi.infermeta.checks import check_result_shape

from ...arguments import to_bool, to_float, to_str
from ...autograd.grad_mode import no_grad
from ...autograd.hooks import RemovableHandle
from ...autograd.meta import AutogradMeta
from ...autograd.op_modes import MODES
from ...autograd.scope import SCOPE as _SCOPE
from ...creation import to_tensor
from ...framework import current_place, default_dtype, parse_device
from ...regularizer import WeightDecayRegularizer
from ...tensor import Tensor
from ...tensor_array import create_tensor
from ...utils import unique_name
from .. import initializer as _init


class Parameter(Tensor):
    """A Tensor that a Layer trains: a leaf with ``stop_gradient=False``.

    ``trainable=False`` keeps it in the layer (and its state_dict) but stops
    gradients, as Paddle does. An integer or bool parameter is allowed, as in
    Paddle, but never gets a gradient (see Tensor.stop_gradient).
    ``optimize_attr["learning_rate"]`` scales the
    optimizer's learning rate for this parameter; ``need_clip=False`` keeps its
    gradient out of gradient clipping; ``regularizer`` (an
    :mod:`eager.regularizer` decay) replaces the optimizer's weight decay for it.

    >>> p = eager.nn.Parameter(np.zeros((2, 3), "float32"))
    >>> p.stop_gradient
    False
    """

    # is_distributed: True for a model-parallel shard (fleet.meta_parallel's layers), whose
    # split_axis (unset otherwise) is the axis of the full weight it was cut along;
    # do_model_average: the ParamAttr's, for Paddle code that reads them; is_firstly_shared: False on
    # the copies of a pipeline's shared weight (fleet's SharedLayerDesc) other than the first stage's.
    # _init_func: under LazyGuard, what draws the values that initialize() gives (None otherwise).
    __slots__ = ("optimize_attr", "need_clip", "regularizer", "is_distributed", "split_axis", "do_model_average",
                 "is_firstly_shared", "_init_func")

    def __init__(self, value, trainable: bool = True, name: str | None = None,
                 learning_rate: float = 1.0, need_clip: bool = True, regularizer=None):
        super().__init__(_parameter_impl(value))
        if not isinstance(trainable, bool):
            raise TypeError(f"Parameter: argument 'trainable' expected a bool, got {trainable!r}")
        self._meta = AutogradMeta(stop_gradient=True)
        self.stop_gradient = not trainable  # an integer one only reports it (Tensor.stop_gradient)
        if name is not None:
            self.name = name
        self.optimize_attr = {"learning_rate": to_float(learning_rate, "Parameter", "learning_rate")}
        if not isinstance(need_clip, bool):
            raise TypeError(f"Parameter: argument 'need_clip' expected a bool, got {need_clip!r}")
        self.need_clip = need_clip  # False: gradient clipping leaves this gradient alone
        self.regularizer = _check_regularizer("Parameter", regularizer)
        self.is_distributed = False
        self.do_model_average = None
        self.is_firstly_shared = True
        self._init_func = None

    @classmethod
    def _from_attr(cls, attr: "ParamAttr", name: str, shape, dtype: DataType, value, draw) -> "Parameter":
        """The parameter ``create_parameter`` makes: ``attr``'s settings and ``name``,
        holding ``value`` (the initializer's array); a ``value`` of None (under
        LazyGuard) holds shape and dtype only, and keeps ``draw`` (the initializer's
        call) for :meth:`initialize`."""
        lazy = value is None
        if lazy:
            value = DenseTensor(ArraySpec(tuple(shape), dtype.numpy_dtype, current_place()))
        param = cls(value, trainable=attr.trainable, name=name, learning_rate=attr.learning_rate,
                    need_clip=attr.need_clip, regularizer=attr.regularizer)
        param.do_model_average = attr.do_model_average
        if lazy:
            param._init_func = draw
        return param

    @property
    def trainable(self) -> bool:
        """Whether the optimizer updates it (the same as ``not stop_gradient``)."""
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, value: bool) -> None:
        # Paddle refuses anything but a bool here, with a ValueError: a string such as "1" or "False"
        # would otherwise silently make the parameter trainable.
        if not isinstance(value, bool):
            raise ValueError(f"Parameter.trainable: expected a bool, got {type(value).__name__} {value!r}")
        self.stop_gradient = not value

    def initialize(self) -> None:
        """Paddle's ``param.initialize()``: fills a parameter that ``LazyGuard``
        left without values, with its initializer's draw. A parameter that holds
        values (made outside the guard, initialized already, or filled by
        ``set_value``/``set_state_dict``) keeps them.

        >>> with eager.LazyGuard():
        ...     layer = eager.nn.Linear(2, 2)
        >>> for p in layer.parameters():
        ...     p.initialize()
        >>> layer.weight._is_initialized()
        True
        """
        # (getattr: a Parameter unpickled from a file written before the slot existed lacks it)
        init, self._init_func = getattr(self, "_init_func", None), None
        if init is None or self.impl.initialized():
            return
        self.impl.array = _parameter_impl(init()).array
        self.impl.bump_version()

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        """A copy as ``copy.deepcopy`` makes of any Tensor (values, attributes, a new
        leaf), named ``<name>_deepcopy_<n>`` as Paddle's: a copied model's
        parameters do not share the original's names, which optimizer state is
        keyed by. ``pickle`` keeps the name."""
        copied = type(self).__new__(type(self))
        memo[id(self)] = copied
        for key, value in self.__getstate__()[1].items():
            setattr(copied, key, copy.deepcopy(value, memo))
        copied.name = unique_name.generate(self.name + "_deepcopy")
        return copied


def _check_regularizer(who: str, regularizer):
    if regularizer is not None and not isinstance(regularizer, WeightDecayRegularizer):
        raise TypeError(f"{who}: argument 'regularizer' expected None, eager.regularizer.L1Decay or "
                        f"L2Decay, got {type(regularizer).__name__}")
    return regularizer


def _parameter_impl(value) -> DenseTensor:
    """The DenseTensor a Parameter holds: a copy of a Tensor's values, or the given
    DenseTensor or array itself (a conversion point: the array is wrapped, not read).
    A NumPy array goes to the default device (:func:`eager.set_device`), as
    Paddle makes parameters on the expected place."""
    if isinstance(value, Tensor):
        return phi_api.assign(value.impl)
    if isinstance(value, DenseTensor):
        return value
    if isinstance(value, np.ndarray):
        place = current_place()
        return DenseTensor(value) if place.is_cpu_place() else phi_api.copy_to(DenseTensor(value), place)
    if type(value).__module__.startswith("cupy"):
        return DenseTensor(value)
    raise TypeError(
        f"Parameter: argument 'value' expected a numpy array, DenseTensor or Tensor, got "
        f"{type(value).__name__}"
    )


class ParamAttr:
    """How a Layer creates one parameter (Paddle's ``paddle.ParamAttr``).

    ``name``: the parameter's name; ``initializer``: an :mod:`eager.nn.initializer`
    callable; ``learning_rate``: multiplies the optimizer's rate for it;
    ``regularizer``: an :mod:`eager.regularizer` decay used for this parameter
    instead of the optimizer's ``weight_decay``; ``trainable``: False makes it a
    fixed parameter; ``do_model_average``: kept for Paddle's signature (read by
    model averaging, which eager does not have); ``need_clip``: False keeps its
    gradient out of the optimizer's ``grad_clip``. The order of the arguments
    is Paddle's.
    """

    def __init__(self, name=None, initializer=None, learning_rate: float = 1.0, regularizer=None,
                 trainable: bool = True, do_model_average: bool = True, need_clip: bool = True):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"ParamAttr: argument 'name' expected a str or None, got {name!r}")
        if initializer is not None and not callable(initializer):
            raise TypeError(
                f"ParamAttr: argument 'initializer' expected an initializer (callable), got "
                f"{type(initializer).__name__}"
            )
        if not isinstance(learning_rate, (int, float)) or isinstance(learning_rate, bool):
            raise TypeError(
                f"ParamAttr: argument 'learning_rate' expected a float, got {learning_rate!r}")
        if not isinstance(trainable, bool):
            raise TypeError(f"ParamAttr: argument 'trainable' expected a bool, got {trainable!r}")
        self.name = name
        self.initializer = initializer
        self.learning_rate = float(learning_rate)
        self.trainable = trainable
        if not isinstance(need_clip, bool):
            raise TypeError(f"ParamAttr: argument 'need_clip' expected a bool, got {need_clip!r}")
        self.need_clip = need_clip
        self.regularizer = _check_regularizer("ParamAttr", regularizer)
        if not isinstance(do_model_average, bool):
            raise TypeError(f"ParamAttr: argument 'do_model_average' expected a bool, got "
                            f"{do_model_average!r}")
        self.do_model_average = do_model_average

    @staticmethod
    def from_argument(attr, who: str, arg: str):
        """A ParamAttr from what layers accept: None or True (the default), a
        ParamAttr, a name or an initializer; False (no parameter) comes back as
        False, as Paddle's ``ParamAttr._to_attr``."""
        if attr is None or attr is True:
            return ParamAttr()
        if attr is False:
            return False
        if isinstance(attr, ParamAttr):
            return attr
        if isinstance(attr, str):
            return ParamAttr(name=attr)
        if isinstance(attr, _init.Initializer):
            return ParamAttr(initializer=attr)
        raise TypeError(
            f"{who}: argument '{arg}' expected None, a bool, a ParamAttr, a name or an "
            f"initializer, got {type(attr).__name__}"
        )

    def __repr__(self):
        return (f"ParamAttr(name={self.name!r}, initializer={self.initializer!r}, "
                f"learning_rate={self.learning_rate}, trainable={self.trainable})")


# Paddle's layer names: a capitalised word after any character starts a new word
# ("Conv2DTranspose" -> conv2d_transpose, "LSTMCell" -> lstm_cell), and so does
# a capital after a lowercase letter ("ReLU" -> re_lu); a digit does not
# ("Conv2D" -> conv2d).
_CAPITALISED_WORD = re.compile(r"(?<=.)(?=[A-Z][a-z])")
_LOWER_THEN_UPPER = re.compile(r"(?<=[a-z])(?=[A-Z])")


def _snake_case(name: str) -> str:
    return _LOWER_THEN_UPPER.sub("_", _CAPITALISED_WORD.sub("_", name)).lower()



def post_order(root: "Layer") -> list:
    """Every layer under ``root`` once, each after its own sublayers and ``root``
    last (the order of Paddle's ``Layer.apply``). Iterative, so a deep chain cannot
    hit the recursion limit."""
    order, stack, seen = [], [(root, False)], set()
    while stack:
        layer, expanded = stack.pop()
        if expanded:
            order.append(layer)
            continue
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        stack.append((layer, True))
        stack.extend((child, False) for child in reversed(list(layer.children())))
    return order


def fixed_parameter(layer: "Layer", shape, is_bias: bool) -> "Parameter":
    """A parameter of ``layer`` that stays fixed (stop_gradient): ones, or zeros for a
    bias. What Paddle 2.6's GroupNorm, SyncBatchNorm and RNN cells hold where their
    weight or bias attr is False."""
    fixed = layer.create_parameter(list(shape), None, is_bias=is_bias,
                                   default_initializer=_init.Constant(0.0 if is_bias else 1.0))
    fixed.stop_gradient = True
    return fixed


def name_repr(name, lead: str = ", ") -> str:
    """The ``name=...`` part that ends a built-in layer's repr when it was given a
    ``name`` (any true value, as Paddle's reprs test it). Built-in layers only store
    ``name``: it never becomes their name scope, so their full_name and parameter
    names are the class's (``linear_0.w_0``), as in Paddle, and a PyTorch-ordered
    call such as ``nn.ReLU(True)`` still builds."""
    return f"{lead}name={name}" if name else ""


class Layer:
    """Base class of every layer: subclass it, create parameters and sublayers in
    ``__init__`` by assigning them as attributes, and compute in ``forward``.

    >>> class MLP(eager.nn.Layer):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc1 = eager.nn.Linear(4, 8)
    ...         self.fc2 = eager.nn.Linear(8, 1)
    ...     def forward(self, x):
    ...         return self.fc2(eager.nn.functional.relu(self.fc1(x)))
    >>> [name for name, _ in MLP().named_parameters()]
    ['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']
    """

    def __init__(self, name_scope: str | None = None, dtype=None):
        if name_scope is not None and (not isinstance(name_scope, str) or not name_scope):
            raise TypeError(f"Layer: argument 'name_scope' expected a non-empty str, got {name_scope!r}")
        # Set through object.__setattr__: our __setattr__ needs these dicts to exist.
        object.__setattr__(self, "_parameters", collections.OrderedDict())
        object.__setattr__(self, "_sub_layers", collections.OrderedDict())
        object.__setattr__(self, "_buffers", collections.OrderedDict())
        object.__setattr__(self, "_non_persistable_buffer_names", set())
        object.__setattr__(self, "_forward_pre_hooks", collections.OrderedDict())
        object.__setattr__(self, "_forward_post_hooks", collections.OrderedDict())
        object.__setattr__(self, "_hooks_with_kwargs", set())  # handle ids of hooks that take kwargs
        object.__setattr__(self, "_state_dict_hooks", collections.OrderedDict())
        object.__setattr__(self, "training", True)
        # dtype None: the default dtype when the layer is made (eager.set_default_dtype).
        object.__setattr__(self, "_dtype", default_dtype() if dtype is None else _layer_dtype("Layer", dtype))
        object.__setattr__(self, "_full_name",
                           unique_name.generate(name_scope or _snake_case(type(self).__name__)))

    # -- calling ------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        """The computation; every subclass defines it."""
        raise NotImplementedError(f"{type(self).__name__}.forward is not implemented")

    def __call__(self, *inputs, **kwargs):
        try:  # a layer without hooks: this check and the one after forward
            pre_hooks = self._forward_pre_hooks
        except AttributeError:  # no hook table: Layer.__init__ never ran
            if "_parameters" in self.__dict__:
                raise
            raise RuntimeError(
                f"{type(self).__name__}: Layer.__init__ was not called; call "
                f"super().__init__() first in {type(self).__name__}.__init__"
            ) from None
        if pre_hooks:
            inputs, kwargs = self._run_pre_hooks(inputs, kwargs)
        # name_scope(self._full_name) written in line: every layer call enters one
        scope = _SCOPE
        previous = scope.current
        scope.current = previous + (self._full_name,)
        recorder = MODES.recorder  # the profiler's (eager.profiler): the forward is one span
        if recorder is not None:
            start = time.perf_counter_ns()
        try:
            outputs = self.forward(*inputs, **kwargs)
        finally:
            scope.current = previous
            if recorder is not None:
                recorder.add_span(self._full_name, "Forward", start)
        if self._forward_post_hooks:
            return self._run_post_hooks(inputs, kwargs, outputs)
        return outputs

    def _run_pre_hooks(self, inputs: tuple, kwargs: dict) -> tuple:
        """The forward pre-hooks in order, each of which may replace the inputs
        (and, registered with_kwargs, the keyword arguments): (inputs, kwargs)."""
        for key, hook in list(self._forward_pre_hooks.items()):
            if key in self._hooks_with_kwargs:
                result = hook(self, inputs, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], dict)):
                        raise TypeError(f"forward pre-hook {getattr(hook, '__qualname__', hook)} "
                                        f"registered with_kwargs=True must return None or "
                                        f"(inputs, kwargs), got {type(result).__name__}")
                    inputs, kwargs = result
                    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
                continue
            result = hook(self, inputs)
            if result is not None:
                inputs = result if isinstance(result, tuple) else (result,)
        return inputs, kwargs

    def _run_post_hooks(self, inputs: tuple, kwargs: dict, outputs):
        """The forward post-hooks in order, each of which may replace the outputs."""
        for key, hook in list(self._forward_post_hooks.items()):
            if key in self._hooks_with_kwargs:
                result = hook(self, inputs, kwargs, outputs)
            else:
                result = hook(self, inputs, outputs)
            if result is not None:
                outputs = result
        return outputs

    def register_forward_pre_hook(self, hook, with_kwargs: bool = False):
        """``hook(layer, inputs)`` runs before forward; it may return new inputs. With
        ``with_kwargs=True`` it is ``hook(layer, inputs, kwargs)`` and may return
        ``(inputs, kwargs)``. Returns a handle whose ``remove()`` unregisters it."""
        return self._add_hook(self._forward_pre_hooks, hook, "register_forward_pre_hook", with_kwargs)

    def register_forward_post_hook(self, hook, with_kwargs: bool = False):
        """``hook(layer, inputs, outputs)`` runs after forward; it may return new outputs
        (``hook(layer, inputs, kwargs, outputs)`` with ``with_kwargs=True``).
        Returns a handle whose ``remove()`` unregisters it."""
        return self._add_hook(self._forward_post_hooks, hook, "register_forward_post_hook", with_kwargs)

    def _add_hook(self, table, hook, who, with_kwargs: bool = False):
        if not callable(hook):
            raise TypeError(f"{who}: argument 'hook' expected a callable, got {type(hook).__name__}")
        if not isinstance(with_kwargs, bool):
            raise TypeError(f"{who}: argument 'with_kwargs' expected a bool, got {with_kwargs!r}")
        handle = RemovableHandle(table)
        table[handle.id] = hook
        if with_kwargs:
            self._hooks_with_kwargs.add(handle.id)
        return handle

    # -- names --------------------------------------------------------------
    def full_name(self) -> str:
        """The layer's unique name, e.g. ``linear_0``: the name scope of its grad nodes."""
        return self._full_name

    # -- registration -------------------------------------------------------
    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            if isinstance(value, (Parameter, Layer)):
                raise RuntimeError(
                    f"{type(self).__name__}: assigning {name!r} before Layer.__init__; call "
                    f"super().__init__() first in {type(self).__name__}.__init__"
                )
            object.__setattr__(self, name, value)
            return
        params, layers, buffers = self._parameters, self._sub_layers, self._buffers
        if isinstance(value, Parameter):
            self._forget(name, params)
            params[name] = value
        elif isinstance(value, Layer):
            self._forget(name, layers)
            layers[name] = value
        elif name in params:
            if value is not None:
                raise TypeError(
                    f"{type(self).__name__}: attribute {name!r} is a parameter; assign a "
                    f"Parameter or None, not {type(value).__name__}"
                )
            params[name] = None
        elif name in layers:
            if value is not None:
                raise TypeError(
                    f"{type(self).__name__}: attribute {name!r} is a sublayer; assign a Layer "
                    f"or None, not {type(value).__name__}"
                )
            layers[name] = None
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"{type(self).__name__}: attribute {name!r} is a buffer; assign a Tensor "
                    f"or None, not {type(value).__name__}"
                )
            buffers[name] = value
        elif isinstance(value, Tensor) and not hasattr(type(self), name):
            # Paddle's rule: a Tensor attribute is a buffer, non-persistable unless
            # register_buffer made it (so Layer.to/astype convert it, and
            # buffers()/to_static_state_dict() list it; state_dict() does not).
            # A name the class defines (a property, a class-level default) stays an
            # ordinary attribute: as a buffer, the class's would hide it.
            self._forget(name, buffers)
            buffers[name] = value
            self._non_persistable_buffer_names.add(name)
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name, keep=None):
        # One name lives in exactly one place: a parameter replacing a plain
        # attribute (or a sublayer) must not leave the old one visible. The
        # table ``keep`` is left alone, so that a member replaced by one of its
        # kind keeps its position (Paddle's: ``seq[1] = layer``, ``net.fc = Linear(...)``
        # keep the order of forward and of state_dict).
        self.__dict__.pop(name, None)
        for table in (self._parameters, self._sub_layers, self._buffers):
            if table is not keep:
                table.pop(name, None)
        if keep is not self._buffers:
            self._non_persistable_buffer_names.discard(name)

    def __getattr__(self, name):
        # Only called when normal lookup fails, i.e. for registered members.
        d = self.__dict__
        for table in ("_parameters", "_sub_layers", "_buffers"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __delattr__(self, name):
        for table in (self._parameters, self._sub_layers, self._buffers):
            if name in table:
                del table[name]
                self._non_persistable_buffer_names.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._sub_layers)
                      | set(self._buffers))

    def add_sublayer(self, name: str, sublayer: "Layer") -> "Layer":
        """Registers ``sublayer`` under ``name`` and returns it."""
        _check_member_name("add_sublayer", name)
        if not isinstance(sublayer, Layer):
            raise TypeError(
                f"add_sublayer: argument 'sublayer' expected a Layer, got {type(sublayer).__name__}")
        self._forget(name, self._sub_layers)
        self._sub_layers[name] = sublayer
        return sublayer

    def add_parameter(self, name: str, parameter) -> Parameter:
        """Registers ``parameter`` (a Parameter or None) under ``name`` and returns it."""
        _check_member_name("add_parameter", name, self, self._parameters)
        if parameter is not None and not isinstance(parameter, Parameter):
            raise TypeError(
                f"add_parameter: argument 'parameter' expected a Parameter or None, got "
                f"{type(parameter).__name__} (wrap a tensor with eager.nn.Parameter)"
            )
        self._forget(name, self._parameters)
        self._parameters[name] = parameter
        return parameter

    def register_buffer(self, name: str, tensor, persistable: bool = True) -> None:
        """Registers a Tensor that is state but not a parameter (e.g. running
        statistics). Persistable buffers are saved in the state_dict."""
        _check_member_name("register_buffer", name, self, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"register_buffer: argument 'tensor' expected a Tensor or None, got "
                f"{type(tensor).__name__}")
        if isinstance(tensor, Parameter):
            raise TypeError(f"register_buffer: {name!r} is a Parameter; use add_parameter")
        to_bool(persistable, "register_buffer", "persistable")
        self._forget(name, self._buffers)
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names.discard(name)
        else:
            self._non_persistable_buffer_names.add(name)

    def create_variable(self, name=None, persistable=None, dtype=None) -> Tensor:
        """A placeholder tensor for ``eager.assign(x, placeholder)`` to fill, as
        Paddle's: it holds no data (shape [], printed ``Tensor(Not initialized)``,
        as :func:`eager.tensor.create_tensor`) until then, when it takes x's shape
        and values. Named ``<layer full name>.<name>``, or a generated
        ``<layer full name>._generated_var_<n>``; ``dtype`` defaults to the
        layer's. It is not registered as a buffer.

        >>> layer = eager.nn.Linear(2, 2)
        >>> keep = layer.create_variable(name="last_out")
        >>> keep
        Tensor(Not initialized)
        >>> _ = eager.assign(layer(eager.ones([3, 2])), keep)
        >>> keep.shape
        [3, 2]
        """
        who = f"{type(self).__name__}.create_variable"
        if name is not None and not isinstance(name, str):
            raise TypeError(f"{who}: argument 'name' expected a str or None, got {name!r}")
        if persistable is not None and not isinstance(persistable, bool):
            raise TypeError(f"{who}: argument 'persistable' expected a bool or None, got {persistable!r}")
        dtype = self._dtype if dtype is None else convert_dtype(dtype)
        placeholder = create_tensor(dtype, persistable=bool(persistable))
        placeholder.name = (f"{self._full_name}.{name}" if name is not None
                            else unique_name.generate(f"{self._full_name}._generated_var"))
        return placeholder

    def create_tensor(self, name=None, persistable=None, dtype=None) -> Tensor:
        """The same placeholder as :meth:`create_variable` (Paddle keeps both names)."""
        return self.create_variable(name, persistable, dtype)

    def create_parameter(self, shape, attr=None, dtype=None, is_bias: bool = False,
                         default_initializer=None, generator=None) -> Parameter | None:
        """A new Parameter of ``shape``, initialized by ``attr.initializer``, else the
        global one (eager.nn.initializer.set_global_initializer), else
        ``default_initializer``, else Constant(0) for a bias or an integer or bool
        parameter and XavierUniform for a weight. ``attr=False`` gives None (no parameter). ``dtype`` defaults to the
        layer's (the default dtype when it was made); the parameter lives on the
        device set by :func:`eager.set_device`. Unless ``attr.name`` names it, the
        parameter is named as in Paddle: ``<layer full name>.w_<n>`` for a weight,
        ``.b_<n>`` for a bias (``linear_0.w_0``), which optimizer state dicts key by."""
        attr = ParamAttr.from_argument(attr, "create_parameter", "attr")
        if attr is False:  # no parameter, whatever the rest says (Paddle's order)
            return None
        shape = _parameter_shape(shape)
        to_bool(is_bias, "create_parameter", "is_bias")
        if default_initializer is not None and not callable(default_initializer):
            raise TypeError(f"create_parameter: argument 'default_initializer' expected None or an initializer, "
                            f"got {type(default_initializer).__name__}")
        dtype = self._dtype if dtype is None else _layer_dtype("create_parameter", dtype)
        init = attr.initializer or _init.global_initializer(is_bias) or default_initializer or \
            _init.default_initializer(dtype, is_bias)
        draw = functools.partial(init, shape, dtype, generator)  # a NumPy array: Parameter puts it on the device
        if _init.lazy_init_active():  # shape and dtype only; initialize() draws the values (see LazyGuard)
            _check_parameter_size(type(self).__name__, shape, dtype)
            value = None
        else:
            try:
                value = draw()
            except (ValueError, MemoryError):
                # A size from the layer's constructor too large for any array: say which layer
                # and shape, not NumPy's "array is too big" from inside the initializer.
                _check_parameter_size(type(self).__name__, shape, dtype)
                raise
        name = attr.name or unique_name.generate(f"{self._full_name}.{'b' if is_bias else 'w'}")
        return Parameter._from_attr(attr, name, shape, dtype, value, draw)

    # -- traversal ----------------------------------------------------------
    def named_parameters(self, prefix: str = "", include_sublayers: bool = True
                         ) -> Iterator[tuple]:
        """(name, parameter) pairs, sublayers' included with dotted names ("0.weight").
        A parameter shared by two layers is listed once."""
        to_str(prefix, "named_parameters", "prefix")
        to_bool(include_sublayers, "named_parameters", "include_sublayers")
        return self._named_parameters(prefix, include_sublayers)

    def _named_parameters(self, prefix, include_sublayers):
        seen = set()
        layers = self._named_sublayers(prefix, True, None) if include_sublayers else [(prefix, self)]
        for layer_prefix, layer in layers:
            for name, param in layer._parameters.items():
                if param is None or id(param) in seen:
                    continue
                seen.add(id(param))
                yield (f"{layer_prefix}.{name}" if layer_prefix else name), param

    def parameters(self, include_sublayers: bool = True) -> list:
        """All parameters of this layer and (by default) its sublayers, in registration order."""
        to_bool(include_sublayers, "parameters", "include_sublayers")
        return [p for _, p in self._named_parameters("", include_sublayers)]

    def named_sublayers(self, prefix: str = "", include_self: bool = False,
                        layers_set=None) -> Iterator[tuple]:
        """(name, layer) pairs of every sublayer, depth first, each layer once.
        ``layers_set`` (a set) holds the layers already listed: they are not listed
        again, though their sublayers still are unless the set holds them too, and
        every layer listed is added to it (Paddle's).
        Iterative, so a deep chain of layers cannot hit the recursion limit."""
        to_str(prefix, "named_sublayers", "prefix")
        to_bool(include_self, "named_sublayers", "include_self")
        if layers_set is not None and not isinstance(layers_set, set):
            raise TypeError(f"named_sublayers: argument 'layers_set' expected None or a set, got "
                            f"{type(layers_set).__name__}")
        return self._named_sublayers(prefix, include_self, layers_set)

    def _named_sublayers(self, prefix, include_self, layers_set):
        seen = set() if layers_set is None else layers_set
        expanded = set()  # ids of the layers whose sublayers are on the stack: each once, so a cycle ends
        stack = [(prefix, self, include_self)]
        while stack:
            name, layer, emit = stack.pop()
            if emit and layer not in seen:
                seen.add(layer)
                yield name, layer
            if id(layer) in expanded:
                continue
            expanded.add(id(layer))
            children = [(f"{name}.{k}" if name else k, v, True)
                        for k, v in layer._sub_layers.items() if v is not None]
            stack.extend(reversed(children))

    def sublayers(self, include_self: bool = False) -> list:
        """Every sublayer, recursively, depth first."""
        to_bool(include_self, "sublayers", "include_self")
        return [layer for _, layer in self._named_sublayers("", include_self, None)]

    def named_children(self) -> Iterator[tuple]:
        """(name, layer) of the direct sublayers."""
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def children(self) -> Iterator["Layer"]:
        """The direct sublayers."""
        for _, layer in self.named_children():
            yield layer

    def named_buffers(self, prefix: str = "", include_sublayers: bool = True) -> Iterator[tuple]:
        """(name, buffer) pairs, sublayers' included."""
        to_str(prefix, "named_buffers", "prefix")
        to_bool(include_sublayers, "named_buffers", "include_sublayers")
        return self._named_buffers(prefix, include_sublayers)

    def _named_buffers(self, prefix, include_sublayers):
        layers = self._named_sublayers(prefix, True, None) if include_sublayers else [(prefix, self)]
        for layer_prefix, layer in layers:
            for name, buf in layer._buffers.items():
                if buf is not None:
                    yield (f"{layer_prefix}.{name}" if layer_prefix else name), buf

    def buffers(self, include_sublayers: bool = True) -> list:
        """All buffers of this layer and (by default) its sublayers."""
        to_bool(include_sublayers, "buffers", "include_sublayers")
        return [b for _, b in self._named_buffers("", include_sublayers)]

    def apply(self, fn) -> "Layer":
        """Calls ``fn(layer)`` on every sublayer, each after its own sublayers
        (post-order, Paddle's order), and last on this layer; returns self.

        >>> net.apply(lambda layer: print(type(layer).__name__))
        """
        if not callable(fn):
            raise TypeError(f"Layer.apply: argument 'fn' expected a callable, got {type(fn).__name__}")
        for layer in post_order(self):
            fn(layer)
        return self

    # -- modes --------------------------------------------------------------
    def train(self) -> "Layer":
        """Training mode (``self.training = True``) for this layer and all sublayers."""
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", True)
        return self

    def eval(self) -> "Layer":
        """Evaluation mode (``self.training = False``) for this layer and all sublayers."""
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", False)
        return self

    def clear_gradients(self, set_to_zero: bool = True) -> None:
        """clear_grad on every parameter: ``set_to_zero=True`` (Paddle's default) fills each
        gradient with zeros, keeping its buffer; False drops it (``grad`` becomes None)."""
        to_bool(set_to_zero, "clear_gradients", "set_to_zero")
        for p in self.parameters():
            p.clear_grad(set_to_zero)

    # -- dtype and device ---------------------------------------------------
    def to(self, device=None, dtype=None, blocking=None) -> "Layer":
        """Moves every parameter and buffer (and gradient) of this layer and its
        sublayers to ``device`` ("cpu", "gpu", "gpu:1" or a Place) and/or casts
        the floating-point ones to ``dtype``, in place: each tensor keeps its
        identity, so an optimizer holding it sees the change. ``blocking`` is
        accepted for Paddle's signature (copies here are synchronous). Returns self.

        >>> net = eager.nn.Linear(2, 2).to(dtype="float64")
        >>> net.weight.dtype == eager.float64
        True
        """
        if blocking is not None and not isinstance(blocking, bool):
            raise TypeError(f"Layer.to: argument 'blocking' expected None or a bool, got {blocking!r}")
        place = None if device is None else parse_device("Layer.to", device)
        dtype = None if dtype is None else _floating_dtype("Layer.to", dtype)
        self._convert(place, dtype, ())
        return self

    def astype(self, dtype=None) -> "Layer":
        """Casts every parameter and buffer (and gradient) to ``dtype`` in place,
        integer ones included, as Paddle's ``Layer.astype`` does; ``dtype`` may
        be a floating, complex, integer or bool dtype. Each tensor keeps its
        identity and its stop_gradient (an integer parameter reports
        ``stop_gradient=False`` but gets no gradients). Returns self.

        >>> net = eager.nn.Linear(2, 2).astype("int8")
        >>> net.weight.dtype, net.weight.stop_gradient
        (paddle.int8, False)
        """
        self._convert(None, _astype_dtype(dtype), (), floating_only=False)
        return self

    def float(self, excluded_layers=None) -> "Layer":
        """Floating-point parameters and buffers to float32, except in the layers
        (instances or Layer classes) listed in ``excluded_layers``; returns self."""
        self._convert(None, DataType.FLOAT32, _excluded("Layer.float", excluded_layers))
        return self

    def double(self, excluded_layers=None) -> "Layer":
        """Floating-point parameters and buffers to float64 (see :meth:`float`)."""
        self._convert(None, DataType.FLOAT64, _excluded("Layer.double", excluded_layers))
        return self

    def float16(self, excluded_layers=None) -> "Layer":
        """Floating-point parameters and buffers to float16 (see :meth:`float`);
        without ``excluded_layers``, ``nn.BatchNorm`` layers keep their dtype, as
        in Paddle."""
        self._convert(None, DataType.FLOAT16, self._half_excluded("Layer.float16", excluded_layers))
        return self

    half = float16

    def bfloat16(self, excluded_layers=None) -> "Layer":
        """Floating-point parameters and buffers to bfloat16 (see :meth:`float16`);
        needs the optional ml_dtypes package (TypeError naming it otherwise).

        >>> net = eager.nn.Linear(2, 2).bfloat16()
        >>> net.weight.dtype == eager.bfloat16
        True
        """
        excluded = self._half_excluded("Layer.bfloat16", excluded_layers)
        bfloat16_numpy_dtype()  # before any parameter changes: ml_dtypes must be there
        self._convert(None, DataType.BFLOAT16, excluded)
        return self

    def _half_excluded(self, who: str, excluded_layers) -> tuple:
        """The layers float16/bfloat16 leave alone: those given, else (Paddle's
        default) the layers whose own class sets ``_kept_in_half`` (nn.BatchNorm,
        matched by exact type as Paddle matches it)."""
        if excluded_layers is not None:
            return _excluded(who, excluded_layers)
        return tuple({type(layer) for layer in self.sublayers(include_self=True)
                      if type(layer).__dict__.get("_kept_in_half", False)})

    def _convert(self, place, dtype, excluded, floating_only: bool = True) -> None:
        """Casts (floating point only, unless ``floating_only`` is False) and moves
        every parameter, buffer and gradient of the layers not excluded; each
        Tensor keeps its identity."""
        seen = set()
        with no_grad():
            for layer in self.sublayers(include_self=True):
                if excluded and any(layer is e or (isinstance(e, type) and isinstance(layer, e))
                                    for e in excluded):
                    continue
                if dtype is not None:
                    object.__setattr__(layer, "_dtype", dtype)
                for table in (layer._parameters, layer._buffers):
                    for tensor in table.values():
                        if tensor is not None and id(tensor) not in seen:
                            seen.add(id(tensor))
                            _convert_tensor_(tensor, place, dtype, floating_only)

    # -- state --------------------------------------------------------------
    def state_dict(self, destination=None, include_sublayers: bool = True,
                   structured_name_prefix: str = "", use_hook: bool = True) -> collections.OrderedDict:
        """Name -> Tensor of every parameter and persistable buffer, layer by layer
        (its parameters, its buffers, then its sublayers'), as Paddle orders them
        (a parameter or layer shared by two parents under each of its names);
        ``structured_name_prefix`` is put before each key as it is (Paddle's
        ``"model."`` gives ``"model.weight"``).
        The values are the layer's own tensors (not copies): save them with
        ``.numpy()``. With ``use_hook`` (the default) the hooks of
        :meth:`register_state_dict_hook` run on the dict, each layer's after its
        sublayers have added their entries."""
        return self._state_dict_impl("state_dict", destination, include_sublayers,
                                     structured_name_prefix, False, use_hook)

    def to_static_state_dict(self, destination=None, include_sublayers: bool = True,
                             structured_name_prefix: str = "", use_hook: bool = True
                             ) -> collections.OrderedDict:
        """:meth:`state_dict` with the non-persistable buffers too (Paddle's
        ``to_static_state_dict``).

        >>> net = eager.nn.Linear(2, 2)
        >>> net.register_buffer("scratch", eager.zeros([2]), persistable=False)
        >>> "scratch" in net.state_dict(), "scratch" in net.to_static_state_dict()
        (False, True)
        """
        return self._state_dict_impl("to_static_state_dict", destination, include_sublayers,
                                     structured_name_prefix, True, use_hook)

    def _state_dict_impl(self, who, destination, include_sublayers, prefix, non_persistable, use_hook):
        if destination is None:
            destination = collections.OrderedDict()
        elif not isinstance(destination, collections.abc.MutableMapping):
            raise TypeError(f"{who}: argument 'destination' expected None or a dict, got "
                            f"{type(destination).__name__}")
        if not isinstance(prefix, str):
            raise TypeError(f"{who}: argument 'structured_name_prefix' expected a str, got {prefix!r}")
        for arg, value in (("include_sublayers", include_sublayers), ("use_hook", use_hook)):
            if not isinstance(value, bool):
                raise TypeError(f"{who}: argument '{arg}' expected a bool, got {value!r}")
        # As Paddle's: a parameter or layer shared by two parents (tied weights, an RNN's flat
        # weight_ih_l0 beside 0.cell.weight_ih) is listed under each of its names. Each layer's
        # entries when it is reached, its hooks after its sublayers' (a post-order marker);
        # iterative, so a deep chain cannot hit the recursion limit; a layer that contains
        # itself is not entered again below itself.
        stack = [(prefix, self, False, frozenset())]
        while stack:
            name, layer, done, ancestors = stack.pop()
            if done:
                if use_hook:
                    for hook in list(layer._state_dict_hooks.values()):
                        result = hook(destination)
                        if result is not None and layer is self:
                            destination = result  # a sublayer's replacement is its own (as Paddle)
                continue
            # Paddle's rule: a key is the prefix and the name, the prefix carrying its "." ("model.")
            for key, param in layer._parameters.items():
                if param is not None:
                    destination[name + key] = param
            for key, buf in layer._buffers.items():
                if buf is not None and (non_persistable or key not in layer._non_persistable_buffer_names):
                    destination[name + key] = buf
            stack.append((name, layer, True, ancestors))
            if include_sublayers:
                inside = ancestors | {id(layer)}
                children = [(name + k + ".", v, False, inside) for k, v in layer._sub_layers.items()
                            if v is not None and id(v) not in inside]
                stack.extend(reversed(children))
        return destination

    def register_state_dict_hook(self, hook):
        """``hook(state_dict)`` runs at the end of every :meth:`state_dict` call
        that reaches this layer (``use_hook=True``). It may change the dict in
        place; on the layer ``state_dict`` was called on, a dict it returns
        replaces the result. Returns a handle whose ``remove()`` unregisters it.

        >>> net = eager.nn.Linear(2, 2)
        >>> handle = net.register_state_dict_hook(lambda sd: {k: v for k, v in sd.items() if k != "bias"})
        >>> list(net.state_dict())
        ['weight']
        >>> handle.remove()
        """
        return self._add_hook(self._state_dict_hooks, hook, "register_state_dict_hook")

    def set_state_dict(self, state_dict, use_structured_name: bool = True) -> tuple:
        """Copies values (Tensors or NumPy arrays) into the matching parameters and
        buffers, in place: each keeps its buffer, so an optimizer holding it sees
        the loaded value. Keys are structured names ("0.weight"), or the tensors'
        own names with ``use_structured_name=False``.

        Every entry is checked (a Tensor or NumPy array of the target's exact
        shape and dtype) before any is written, so a bad dict raises and leaves
        every parameter as it was. Keys the layer has but the dict lacks stay
        unchanged and keys the layer does not have are ignored; both are named
        in a warning, as Paddle does, and returned as
        ``(missing_keys, unexpected_keys)``.

        >>> missing, unexpected = net.set_state_dict(eager.load("net.pdparams"))
        """
        if not isinstance(state_dict, collections.abc.Mapping):
            raise TypeError(
                f"set_state_dict: argument 'state_dict' expected a dict, got "
                f"{type(state_dict).__name__}")
        if not isinstance(use_structured_name, bool):
            raise TypeError(f"set_state_dict: argument 'use_structured_name' expected a bool, got "
                            f"{use_structured_name!r}")
        # The layer's own entries, not an override's (Paddle's _state_dict_impl): a subclass whose
        # state_dict renames keys converts them back in its set_state_dict, then calls this one.
        own = self._state_dict_impl("set_state_dict", None, True, "", False, False)
        if not use_structured_name:
            own = collections.OrderedDict((t.name, t) for t in own.values())
        unexpected = [k for k in state_dict if k not in own]
        # Check and convert everything before writing anything, so a bad dict
        # leaves the layer intact.
        staged = [(own[key], _loadable(key, state_dict[key], own[key]))
                  for key in own if key in state_dict]
        # A shared parameter is loaded by any one of its names (a dict saved before state_dict
        # listed every name has only the first).
        loaded = {id(target) for target, _ in staged}
        missing = [k for k, t in own.items() if id(t) not in loaded]
        for target, source in staged:
            if target.impl.initialized():
                phi_api.assign_out_(source, target.impl)
            else:  # a parameter made under LazyGuard: the checkpoint gives its first values
                target.impl.array = phi_api.assign(source).array
                target.impl.bump_version()
        if missing:
            warnings.warn(f"set_state_dict: {len(missing)} key(s) of the layer not in the dict, left "
                          f"as they were: {missing}", stacklevel=2)
        if unexpected:
            warnings.warn(f"set_state_dict: {len(unexpected)} key(s) of the dict match nothing in the "
                          f"layer, ignored: {unexpected}", stacklevel=2)
        return missing, unexpected

    load_dict = set_state_dict
    set_dict = set_state_dict

    def backward(self, *inputs):
        """Not supported, as in Paddle: gradients come from ``Tensor.backward``."""
        raise ValueError("Layer shouldn't implement backward")

    # -- printing -----------------------------------------------------------
    def extra_repr(self) -> str:
        """Text shown inside this layer's parentheses in repr (subclasses override)."""
        return ""

    def __repr__(self):
        lines = []
        for name, layer in self._sub_layers.items():
            body = repr(layer).replace("\n", "\n  ")
            lines.append(f"({name}): {body}")
        extra = self.extra_repr()
        if not lines:
            return f"{type(self).__name__}({extra})"
        head = f"{type(self).__name__}({extra}" if extra else f"{type(self).__name__}("
        return head + "\n  " + "\n  ".join(lines) + "\n)"


def _loadable(key: str, value, target: Tensor):
    """The DenseTensor to copy into ``target`` for state-dict entry ``key``, on
    target's device; raises naming the key, what was expected and what came."""
    if isinstance(value, Tensor):
        dims, dtype = tuple(value.impl.dims), value.impl.dtype
    elif isinstance(value, np.ndarray):
        dims = value.shape
        try:
            dtype = DataType.from_numpy(value.dtype)
        except TypeError:
            dtype = value.dtype
    else:
        raise TypeError(f"set_state_dict: {key!r} expected a Tensor or numpy array, got "
                        f"{type(value).__name__}")
    if list(dims) != target.shape:
        raise ValueError(f"set_state_dict: {key!r} expected shape {target.shape}, got {list(dims)}")
    if dtype is not target.dtype:
        raise TypeError(f"set_state_dict: {key!r} expected dtype {target.dtype}, got {dtype}")
    if isinstance(value, Tensor) and value.impl.kind is target.impl.kind and \
            value.place == target.place:
        return value.impl  # already a tensor there: copied by assign_out_ alone
    return to_tensor(value, place=target.place).impl  # a conversion point: data to a tensor


def _floating_dtype(who: str, dtype) -> DataType:
    given = dtype
    try:
        dtype = convert_dtype(dtype)
    except (TypeError, ValueError):
        # Layer.to reads a string as NumPy does, so NumPy's aliases ('double', 'float', 'half',
        # 'single') name dtypes there too, as in Paddle
        try:
            numpy_dtype = np.dtype(dtype) if isinstance(dtype, str) else None
            dtype = None if numpy_dtype is None else DataType.from_numpy(numpy_dtype)
        except (TypeError, ValueError):
            numpy_dtype = None
        if numpy_dtype is None:
            raise TypeError(f"{who}: argument 'dtype' expected a floating-point dtype such as 'float32', "
                            f"got {given!r}") from None
    if dtype not in FLOATING_TYPES:
        raise TypeError(f"{who}: argument 'dtype' expected a floating-point dtype, got {dtype}")
    if dtype is DataType.BFLOAT16:
        bfloat16_numpy_dtype()  # before any parameter changes: ml_dtypes must be there
    return dtype


def _astype_dtype(dtype) -> DataType:
    """Layer.astype's dtype: any of Paddle's listed ones (a ValueError otherwise, as Paddle)."""
    try:
        resolved = convert_dtype(dtype)
    except (TypeError, ValueError):
        resolved = None
    if resolved is None or not (resolved.is_floating_point or resolved.is_complex or resolved.is_integer
                                or resolved is DataType.BOOL):
        raise ValueError(f"Layer.astype: argument 'dtype' expected a floating, complex, integer or bool dtype "
                         f"such as 'float32' or 'int8', got {dtype!r}")
    if resolved is DataType.BFLOAT16:
        bfloat16_numpy_dtype()  # before any parameter changes: ml_dtypes must be there
    return resolved


def _excluded(who: str, excluded_layers) -> tuple:
    if excluded_layers is None:
        return ()
    items = excluded_layers if isinstance(excluded_layers, (list, tuple)) else [excluded_layers]
    for item in items:
        if not (isinstance(item, Layer) or (isinstance(item, type) and issubclass(item, Layer))):
            raise TypeError(f"{who}: argument 'excluded_layers' expected Layers or Layer classes, got "
                            f"{type(item).__name__}")
    return tuple(items)


def _converted(impl, place, dtype, floating_only: bool = True):
    """impl cast to dtype (floating point only, unless ``floating_only`` is False)
    and moved to place; impl itself when nothing changes."""
    if dtype is not None and impl.dtype is not dtype and (not floating_only or impl.dtype in FLOATING_TYPES):
        if impl.kind is not TensorKind.DENSE:
            impl = phi_api.selected_rows_to_dense(impl)
        impl = phi_api.cast(impl, dtype)
    if place is not None and impl.place != place:
        if impl.kind is not TensorKind.DENSE:
            impl = phi_api.selected_rows_to_dense(impl)
        impl = phi_api.copy_to(impl, place)
    return impl


def _convert_tensor_(tensor: Tensor, place, dtype, floating_only: bool = True) -> None:
    """Gives tensor (and its gradient) a new buffer of the dtype and place asked
    for, keeping the Tensor object, its name and its autograd state."""
    for target in (tensor, tensor.grad):
        if target is None:
            continue
        new = _converted(target.impl, place, dtype, floating_only)
        if new is not target.impl:
            differentiable = _is_differentiable(target.impl.dtype)
            target.impl = new
            if differentiable is not _is_differentiable(new.dtype):
                # Between integer and floating point: the same stop_gradient flag, set anew
                # so that an integer tensor only reports it (see Tensor.stop_gradient).
                target.stop_gradient = target.stop_gradient


def _is_differentiable(dtype) -> bool:
    return dtype.is_floating_point or dtype.is_complex


def _layer_dtype(who: str, dtype) -> DataType:
    try:
        return convert_dtype(dtype)
    except (TypeError, ValueError):
        raise TypeError(f"{who}: argument 'dtype' expected a dtype such as 'float32', got {dtype!r}") from None


def _parameter_shape(shape) -> list:
    """Layer.create_parameter's shape as a list of ints (a list or tuple of
    non-negative ints, Paddle's; a TypeError or ValueError naming it otherwise)."""
    if not isinstance(shape, (list, tuple)) or not all(
            isinstance(d, numbers.Integral) and not isinstance(d, (bool, np.bool_)) for d in shape):
        raise TypeError(f"create_parameter: argument 'shape' expected a list or tuple of ints, got {shape!r}")
    if any(d < 0 for d in shape):
        raise ValueError(f"create_parameter: argument 'shape' expected non-negative sizes, got {list(shape)}")
    return [int(d) for d in shape]


def _check_parameter_size(who: str, shape: list, dtype) -> None:
    """A ValueError naming the layer when a parameter of ``shape`` could not be held."""
    try:
        check_result_shape("shape", shape, convert_dtype(dtype))
    except InvalidArgumentError:
        raise ValueError(f"{who}: its arguments give a parameter of shape {shape} of {convert_dtype(dtype)}, "
                         f"more bytes than any device can address") from None


class MemberNameError(ValueError, KeyError):
    """An empty member name or one holding '.', or the name of a parameter a layer
    does not have (weight_norm, spectral_norm): a ValueError, as eager's other bad
    argument values, and a KeyError, as Paddle's add_parameter/register_buffer and
    its weight_norm/spectral_norm raise it."""

    def __str__(self) -> str:
        # KeyError's str() would quote the message
        return ValueError.__str__(self)


def _check_member_name(who: str, name, layer=None, members=None) -> None:
    """A valid member name; with ``layer``, also one that is not already another of
    its members or attributes than an entry of ``members`` (as Paddle, and PyTorch:
    a parameter or buffer never silently replaces a sublayer or attribute)."""
    if not isinstance(name, str):
        raise TypeError(f"{who}: argument 'name' expected a str, got {type(name).__name__} {name!r}")
    if not name or "." in name:
        raise MemberNameError(f"{who}: argument 'name' expected a non-empty str without '.', got {name!r}")
    if layer is not None and name not in members and hasattr(layer, name):
        raise KeyError(f"{who}: attribute {name!r} already exists in {type(layer).__name__}")


__all__ = ["Layer", "ParamAttr", "Parameter"]

# Paddle's file-named modules of this package (see the docstring).
_PADDLE_FILES = frozenset(module.name for module in pkgutil.iter_modules(__path__))


def __getattr__(name):
    if name in _PADDLE_FILES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'eager.nn.layer' has no attribute {name!r}")
