"""Paddle's ``paddle.base.framework``, as far as dygraph scripts use it: flags,
the mode query, what the build supports and ``require_version``. Program,
Variable, program_guard and the rest of the static graph are an
AttributeError that says so.

>>> eager.base.framework.in_dygraph_mode()
True
"""
from __future__ import annotations

import contextlib

import numpy as np

from phi.core import ArraySpec, DenseTensor

from ..arguments import bad_tensor, describe, to_dtype
from ..device.build import (is_compiled_with_cinn, is_compiled_with_cuda, is_compiled_with_distribute,
                            is_compiled_with_rocm, is_compiled_with_xpu)
from ..errors import static_graph_missing as missing
from ..framework import current_place, get_flags, in_dynamic_mode as in_dygraph_mode, set_device, set_flags
from ..nn.layer import Parameter
from ..tensor import Tensor
from ..utils import unique_name
from ..utils.versions import require_version

__all__ = ["EagerParamBase", "get_flags", "in_dygraph_mode", "is_compiled_with_cinn", "is_compiled_with_cuda",
           "is_compiled_with_distribute", "is_compiled_with_rocm", "is_compiled_with_xpu", "require_version",
           "set_flags"]

_STATIC_ONLY = frozenset({"Block", "Operator", "Parameter", "Program", "Variable", "cpu_places", "cuda_places",
                          "cuda_pinned_places", "default_main_program", "default_startup_program",
                          "device_guard", "ipu_shard_guard", "program_guard",
                          "set_ipu_shard", "switch_main_program", "switch_startup_program", "xpu_places"})


class _ParameterClass(type):
    """EagerParamBase's metaclass: eager's parameters are :class:`eager.nn.Parameter`,
    so ``isinstance(p, EagerParamBase)`` (scripts' check for a parameter) asks that."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Parameter)

    def __subclasscheck__(cls, sub) -> bool:
        return issubclass(sub, Parameter)


class EagerParamBase(metaclass=_ParameterClass):
    """Paddle's dygraph parameter class, ``EagerParamBase(shape, dtype, **kwargs)``:
    makes an :class:`eager.nn.Parameter` of that shape and dtype holding no data yet
    (fill it with ``set_value``), with Paddle's keywords ``name``, ``trainable``,
    ``optimize_attr``, ``regularizer``, ``do_model_average``, ``need_clip`` and
    ``is_distributed``. Every eager parameter is an instance of it.

    >>> p = eager.base.framework.EagerParamBase(shape=[2], dtype="float32")
    >>> p.shape, p._is_initialized(), isinstance(p, eager.base.framework.EagerParamBase)
    ([2], False, True)
    """

    def __new__(cls, shape, dtype, **kwargs):
        # Paddle's checks, in its order and with its error type
        if shape is None:
            raise ValueError("EagerParamBase: the shape of Parameter should not be None")
        if dtype is None:
            raise ValueError("EagerParamBase: the dtype of Parameter should not be None")
        if isinstance(shape, Tensor):
            shape = shape.numpy().tolist()
        if not isinstance(shape, (list, tuple)) or not all(
                isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in shape):
            raise TypeError(f"EagerParamBase: argument 'shape' expected a list of ints, got {describe(shape)}")
        if any(d < 0 for d in shape):
            raise ValueError(f"EagerParamBase: each dimension of shape for Parameter must be greater than 0, "
                             f"but received {list(shape)}")
        dtype = to_dtype(dtype, "EagerParamBase", "dtype")
        unknown = set(kwargs) - _PARAM_KWARGS
        if unknown:
            raise TypeError(f"EagerParamBase: unexpected keyword argument(s) {sorted(unknown)}")
        value = kwargs.pop("_value", None)
        if value is None:
            value = DenseTensor(ArraySpec(tuple(int(d) for d in shape), dtype.numpy_dtype, current_place()))
        optimize_attr = kwargs.get("optimize_attr") or {"learning_rate": 1.0}
        param = Parameter(value, trainable=kwargs.get("trainable", True),
                          name=kwargs.get("name") or unique_name.generate("_eager_param_base"),
                          learning_rate=optimize_attr.get("learning_rate", 1.0),
                          need_clip=kwargs.get("need_clip", True), regularizer=kwargs.get("regularizer"))
        param.do_model_average = kwargs.get("do_model_average")
        param.is_distributed = bool(kwargs.get("is_distributed", False))
        return param

    @classmethod
    def from_tensor(cls, tensor, **kwargs):
        """A parameter holding ``tensor``'s buffer (shared, not copied), as Paddle's
        ``EagerParamBase.from_tensor``; the keywords as the constructor's."""
        if not isinstance(tensor, Tensor):
            raise bad_tensor("EagerParamBase.from_tensor", "tensor", tensor)
        return cls(tensor.shape, tensor.dtype, _value=tensor.impl, **kwargs)


_PARAM_KWARGS = frozenset({"name", "trainable", "optimize_attr", "regularizer", "do_model_average", "need_clip",
                           "is_distributed", "_value"})


def _current_expected_place():
    """The place new tensors go to (what ``set_device`` chose), as Paddle's private
    helper that scripts and Paddle's own tests call."""
    return current_place()


@contextlib.contextmanager
def _dygraph_place_guard(place):
    """Paddle's private guard: ``place`` (a Place or a device string) is where new
    tensors go inside the block, as after ``set_device``; the previous place after it.

    >>> with eager.base.framework._dygraph_place_guard(eager.CPUPlace()):
    ...     eager.base.framework._current_expected_place()
    Place(cpu)
    """
    saved = current_place()
    set_device(place)
    try:
        yield
    finally:
        set_device(saved)


def __getattr__(name):
    raise missing(__name__, name, _STATIC_ONLY)
