"""Paddle's ``paddle.tensor`` namespace: ``eager.tensor.<function>`` and the
file-named paths Paddle's examples use (``paddle.tensor.math.frexp``,
``paddle.tensor.random.gaussian_``, ``paddle.tensor.array.create_array``, ...).

``eager.tensor`` is the Tensor core, at the bottom of the layers; it hands any
name it does not define to this module (the tensor module's ``__getattr__``
loads it on first use, as ``eager/__init__.py`` loads the API). Here a name is
one of the tensor-array functions, or one of Paddle's file names under
``paddle.tensor`` (each gives this whole namespace: eager does not split its
functions by Paddle's files), or any function of ``import eager`` or ``eager.linalg``.

>>> x = eager.to_tensor([[1.0, 2.0], [3.0, 4.0]])
>>> eager.tensor.math.frexp is eager.frexp, eager.tensor.triu(x).numpy().tolist()
(True, [[1.0, 2.0], [0.0, 4.0]])
"""
from __future__ import annotations

import sys

from phi.common import CPUPlace

from . import api as _api
from .arguments import to_bool
from .signal import istft, stft  # noqa: F401  (paddle.tensor.stft, as well as paddle.signal.stft)
from .tensor_queries import TensorFills
from .tensor_queries import gaussian_  # noqa: F401  (paddle.tensor.random.gaussian_, not top-level)
from .tensor_array import (array_length, array_read, array_write, create_array, create_tensor,  # noqa: F401
                           tensor_array_to_tensor)

# The modules of Paddle's python/paddle/tensor/ package; each is this namespace here.
PADDLE_FILES = frozenset({"array", "attribute", "creation", "einsum", "layer_function_generator", "linalg",
                          "logic", "manipulation", "math", "ops", "random", "search", "stat", "to_string"})


def uniform_(x, min=-1.0, max=1.0, seed=0, name=None):  # noqa: A002  (Paddle's names)
    """Paddle's ``paddle.tensor.uniform_``: ``x.uniform_(min, max, seed)``, x filled in place.

    >>> eager.tensor.uniform_(eager.zeros([2, 3]), 0.0, 1.0).shape
    [2, 3]
    """
    return TensorFills.uniform_(x, min, max, seed)


def exponential_(x, lam=1.0, name=None):
    """Paddle's ``paddle.tensor.exponential_``: ``x.exponential_(lam)``, x filled in place."""
    return TensorFills.exponential_(x, lam)


def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None):
    """Paddle's ``paddle.tensor.fill_constant``: ``full(shape, value, dtype)`` (on the
    CPU with ``force_cpu``) with stop_gradient True; given ``out``, out takes that
    shape, dtype and value and is returned, as Paddle's ``full_``.

    >>> eager.tensor.fill_constant([2], "int64", 3).numpy().tolist()
    [3, 3]
    """
    force_cpu = to_bool(force_cpu, "fill_constant", "force_cpu")
    result = _api.full(shape, value, dtype, CPUPlace() if force_cpu else None)
    if out is None:
        return result
    _api.assign(result, out)
    out.stop_gradient = True
    return out


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """Paddle's ``paddle.static.create_global_var`` (also ``paddle.tensor.creation``) as
    dygraph runs it: a tensor of ``shape`` filled with ``float(value)`` in ``dtype``,
    stop_gradient True, named ``name`` (else a generated name), on the CPU with
    ``force_cpu``.

    >>> v = eager.static.create_global_var([], 0.5, "float32", persistable=True)
    >>> v.shape, v.item(), v.persistable, v.stop_gradient
    ([], 0.5, True, True)
    """
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"create_global_var: argument 'shape' expected a list or tuple of ints, got {shape!r}")
    try:
        fill = float(value)
    except (TypeError, ValueError) as error:
        raise type(error)(f"create_global_var: argument 'value' expected a number, got {value!r}") from error
    if name is not None and not isinstance(name, str):
        raise TypeError(f"create_global_var: argument 'name' expected a str or None, got {name!r}")
    result = fill_constant(shape, dtype, fill, force_cpu=force_cpu)
    result.persistable = to_bool(persistable, "create_global_var", "persistable")
    if name is not None:
        result.name = name
    return result


def __getattr__(name):
    if name in PADDLE_FILES:
        return sys.modules[__name__]
    if name.startswith("_"):
        raise AttributeError(f"module 'eager.tensor' has no attribute {name!r}")
    for namespace in (_api, _api.linalg):  # paddle.tensor.linalg.cond is eager.linalg.cond
        if hasattr(namespace, name):
            return getattr(namespace, name)
    raise AttributeError(f"module 'eager.tensor' has no attribute {name!r}")
