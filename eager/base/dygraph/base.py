"""Paddle's ``paddle.base.dygraph.base``: the dygraph helpers of Paddle 1.x-style
scripts, on eager (which is always in dynamic graph mode).

>>> import numpy as np
>>> with eager.base.dygraph.guard():
...     t = eager.base.dygraph.to_variable(np.ones([2, 3], "float32"))
>>> t.shape, t.stop_gradient
([2, 3], True)
"""
from __future__ import annotations

import contextlib
import warnings

import numpy as np

from ...autograd.backward_api import grad
from ...autograd.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from ...autograd.grad_mode import no_grad as no_grad_
from ...creation import to_tensor
from ...framework import current_place, disable_static as enable_dygraph, enable_static as disable_dygraph
from ...framework import in_dynamic_mode as enabled, parse_default_device, set_device
from ...tensor import Tensor
from ...utils import unique_name

__all__ = ["disable_dygraph", "enable_dygraph", "enable_grad", "enabled", "grad", "guard", "is_grad_enabled",
           "no_grad", "no_grad_", "set_grad_enabled", "to_variable"]



def no_grad(func=None):
    """Paddle's ``base.dygraph.no_grad``: ``no_grad()`` is a context (and decorator)
    in which nothing is recorded for autograd, and ``no_grad(func)`` (also the bare
    decorator ``@base.dygraph.no_grad``) is func run that way. ``no_grad_`` is the
    class form (``paddle.no_grad``).

    >>> @eager.base.dygraph.no_grad
    ... def f():
    ...     return eager.is_grad_enabled()
    >>> f(), eager.is_grad_enabled()
    (False, True)
    """
    if func is None:
        return no_grad_()
    if not callable(func):
        raise TypeError(f"base.dygraph.no_grad: argument 'func' expected a callable or None, got "
                        f"{type(func).__name__}")
    return no_grad_()(func)


@contextlib.contextmanager
def guard(place=None):
    """A ``with`` block that runs in dynamic graph mode (eager's only mode) on
    ``place`` ('cpu', 'gpu', 'gpu:N' or a Place; None: the current default device),
    with a fresh :func:`eager.utils.unique_name.guard` for the names of layers and
    parameters created inside, as Paddle's ``base.dygraph.guard``. The default
    device and the name counters are restored on exit.

    >>> with eager.base.dygraph.guard("cpu"):
    ...     eager.nn.Linear(2, 2).full_name()
    'linear_0'
    """
    chosen = None if place is None else parse_default_device("guard", place)
    previous = current_place()
    with unique_name.guard():
        if chosen is not None:
            set_device(chosen)
        try:
            yield
        finally:
            if chosen is not None:
                set_device(previous)


def to_variable(value, name=None, zero_copy=None, dtype=None) -> Tensor:
    """A Tensor from a list, tuple or numpy.ndarray (a Tensor is returned as it
    is), as Paddle's ``base.dygraph.to_variable``: lists and tuples go through
    ``numpy.array`` (so Python floats give float64), ``dtype`` casts the data,
    and the result has ``stop_gradient=True``, its own copy of the data, named
    ``name`` when one is given. ``zero_copy`` is accepted and ignored (Paddle
    discards it too, and warns on ``zero_copy=True`` as here).

    >>> eager.base.dygraph.to_variable([1.5, 2.0]).dtype == eager.float64
    True
    """
    if isinstance(value, Tensor):
        return value
    if not isinstance(value, (list, tuple, np.ndarray)):
        raise TypeError(f"to_variable: argument 'value' expected a list, tuple, numpy.ndarray or Tensor, got "
                        f"{type(value).__name__}")
    if zero_copy is True:
        # Paddle 2.6.2's words: scripts (and Paddle's tests) look for them
        warnings.warn("Currently, zero_copy is not supported, and it will be discarded.", stacklevel=2)
    array = value if isinstance(value, np.ndarray) else np.array(value)
    tensor = to_tensor(array, dtype=dtype)
    if name is not None:
        tensor.name = name
    return tensor
