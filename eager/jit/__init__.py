"""Paddle's ``paddle.jit`` dynamic-to-static entry points, by trace and replay.

``to_static`` runs the first call of each input signature eagerly while it
records every phi kernel the call runs (forward, backward, optimizer update,
in-place writes), then replays that flat kernel list on later calls with the
same signature and state, skipping the Python of layers, autograd and
optimizers. Unlike Paddle, which rewrites the function's Python source into a
static program, Python control flow is specialised to the path the capture
took (as ``jax.jit`` does); the capture rules (docs/jit.md) make every call
that could take another path, or that a kernel list cannot express, run
eagerly instead. A call that returns tensors for a backward outside it (a
converted ``forward``) replays with one grad node that runs the backward
kernels recorded at capture. ``save`` and ``load`` write a Layer's forward (or a
function) as JSON kernel programs beside its parameters, its backward
included, and load it as a TranslatedLayer that runs and can be fine-tuned.

>>> import eager
>>> net = eager.nn.Linear(3, 1)
>>> opt = eager.optimizer.SGD(0.1, parameters=net.parameters())
>>> @eager.jit.to_static
... def step(x):
...     loss = net(x).mean()
...     loss.backward()
...     opt.step()
...     opt.clear_grad()
...     return loss
>>> for _ in range(3):
...     loss = step(eager.ones([4, 3]))
"""
from __future__ import annotations

import functools
import importlib
import types

from ..nn.layer import Layer
from ..static.build_strategy import BuildStrategy
from . import recorder as _recorder
from .input_spec import InputSpec
from .logging_utils import get_code_level, get_verbosity, set_code_level, set_verbosity
from .static_function import SWITCH, StaticFunction
from .save import save
from .translated_layer import TranslatedLayer, load


def to_static(function=None, input_spec=None, build_strategy=None, backend=None, **kwargs):
    """Makes ``function`` (a function, a method, or a Layer, whose ``forward``
    is converted) capture its kernel calls once per input signature and replay
    them afterwards (see the module doc and docs/jit.md). Usable as
    ``@to_static`` or ``@to_static(...)``. ``input_spec``, ``build_strategy``
    and ``backend`` are accepted for Paddle compatibility; shapes come from
    each call, so they change nothing here.

    >>> f = to_static(lambda x: x * 2.0)
    """
    if input_spec is not None and not isinstance(input_spec, (list, tuple)):
        raise TypeError(f"to_static: argument 'input_spec' expected a list or tuple of InputSpec, got "
                        f"{type(input_spec).__name__}")
    if build_strategy is not None and not isinstance(build_strategy, BuildStrategy):
        raise TypeError(f"to_static: argument 'build_strategy' expected None or a paddle.static.BuildStrategy, "
                        f"got {type(build_strategy).__name__}")
    if backend is not None and not isinstance(backend, str):
        raise TypeError(f"to_static: argument 'backend' expected None or a str, got {type(backend).__name__}")
    if backend not in (None, "CINN"):  # Paddle's rule: the only compiler backend it names
        raise ValueError(f"to_static: argument 'backend' expected 'CINN' or None, got {backend!r}")

    def decorate(fn):
        if isinstance(fn, Layer):
            forward = fn.forward
            if not isinstance(forward, StaticFunction):
                fn.forward = StaticFunction(forward, input_spec, build_strategy, backend, **kwargs)
            return fn
        if isinstance(fn, StaticFunction):
            return fn
        if getattr(fn, "_not_to_static", False):
            return fn
        if not callable(fn):
            raise TypeError(f"to_static: argument 'function' expected a callable or a Layer, got "
                            f"{type(fn).__name__}")
        return StaticFunction(fn, input_spec, build_strategy, backend, **kwargs)

    if function is None:
        return decorate
    return decorate(function)


def not_to_static(func=None):
    """Keeps ``func`` eager: ``to_static`` leaves it as it is, and a captured
    call that runs it is not replayed (its Python must run on every call)."""
    if func is None:
        return not_to_static

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        recorder = _recorder._mine()
        if recorder is not None:
            recorder.fail(f"it calls {getattr(func, '__qualname__', func)!r}, marked not_to_static")
        return func(*args, **kwargs)

    wrapper._not_to_static = True
    return wrapper


# The modules given to ignore_module, in order (Paddle keeps the same list).
IGNORED_MODULES: list = []


def ignore_module(modules) -> None:
    """Paddle's ``paddle.jit.ignore_module(modules)``: Paddle's converter leaves the
    functions of these modules (a list of module objects) untranscribed, running
    them as Python. eager transcribes no function's source: ``to_static`` runs
    every function as Python while it captures, so the functions of any module,
    these included, take part through the kernels they run. The modules are
    recorded in ``IGNORED_MODULES``.

    >>> import math
    >>> eager.jit.ignore_module([math])
    """
    if not isinstance(modules, (list, tuple)):
        raise TypeError(f"ignore_module: argument 'modules' expected a list of modules, got "
                        f"{type(modules).__name__}")
    for module in modules:
        if not isinstance(module, types.ModuleType):
            raise TypeError(f"ignore_module: argument 'modules' expected a list of modules, got an item of "
                            f"type {type(module).__name__}")
    IGNORED_MODULES.extend(m for m in modules if all(m is not known for known in IGNORED_MODULES))


def enable_to_static(enable_to_static_bool: bool) -> None:
    """Turns every ``to_static`` function on (True, the default) or off (False:
    they run eagerly, capturing and replaying nothing)."""
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError(f"enable_to_static: argument 'enable_to_static_bool' expected a bool, got "
                        f"{type(enable_to_static_bool).__name__}")
    SWITCH.enabled = enable_to_static_bool


__all__ = ["InputSpec", "StaticFunction", "TranslatedLayer", "enable_to_static", "ignore_module", "load",
           "not_to_static", "save", "set_code_level", "set_verbosity", "to_static"]


def __getattr__(name):
    # Paddle's paddle.jit.api path (eager/jit/api.py) loads on first use: it imports this package.
    if name == "api":
        return importlib.import_module(".api", __name__)
    raise AttributeError(f"module 'eager.jit' has no attribute {name!r}")
