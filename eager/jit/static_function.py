"""StaticFunction: a function that captures its kernel calls once per input
signature and replays them while the signature and the state repeat.

See docs/jit.md for the rules; in short, a call's *signature* is its argument
tree (each tensor's shape, dtype, array type, GPU and whether it requires a
gradient; Layers and Optimizers by
identity; numbers, strings and None by value), the grad mode, the default
dtype and the current place. The first call of a signature runs eagerly
under a :class:`~eager.jit.recorder.Recorder`; if the recorder saw nothing a
kernel list cannot replay, and the call left the state it reaches as it found
it (apart from in-place writes, version counters and optimizer step counts),
the kernel list becomes the signature's trace. Later calls whose state still
passes the trace's :class:`~eager.jit.state.Guard` replay it; any other call
captures again. A
signature whose capture is unreplayable, or that has not settled after a few
captures, runs eagerly from then on, with one warning naming why.

A forward-only call (its returned tensors carry a graph that no backward in
the call ran) also records that graph's backward (see backward.py); its
replays give the outputs one grad node that runs it.
"""
from __future__ import annotations

import copy
import functools
import gc
import inspect
import textwrap
import types
import warnings
import weakref

import numpy as np

from phi.core import DenseTensor

from ..autograd.anomaly import ANOMALY
from ..autograd.grad_mode import STATE
from ..autograd.op_modes import MODES
from ..framework import current_place, default_dtype
from ..nn.layer import Layer
from ..optimizer.optimizer import Optimizer
from ..tensor import Tensor
from . import logging_utils as _log
from . import recorder as _recorder
from . import state as _state
from .backward import MAX_GRAD_OUTPUTS, NotCapturable, capture_backward
from .replay import ALIASED, compile_replay
from .trace import build, read_slots

# Captures of one signature that may fail to settle before it runs eagerly for good.
MAX_CAPTURES = 4
# Signatures one StaticFunction remembers; the oldest is forgotten first.
MAX_SIGNATURES = 64


class _Switch:
    __slots__ = ("enabled",)

    def __init__(self):
        self.enabled = True


SWITCH = _Switch()


class _Eager:
    """A signature that runs eagerly for good, and why."""

    __slots__ = ("reason",)

    def __init__(self, reason):
        self.reason = reason


class _Unsupported(Exception):
    pass


# Marks the signature of a call whose arguments are all host tensors, positional.
_POSITIONAL = "positional host tensors"


def _signature(value, tensors, parts):
    """Appends ``value``'s part of the call signature to ``parts`` and its tensors
    to ``tensors``; raises _Unsupported for a value a signature cannot hold."""
    t = type(value)
    if t is Tensor or isinstance(value, Tensor):
        impl = value.impl
        if type(impl) is not DenseTensor:
            raise _Unsupported("a tensor argument is not dense")
        array = impl.array
        meta = value._meta
        grad = meta is not None and not meta.stop_gradient  # its gradient reaches its own graph
        tensors.append(value)
        kind = type(array)
        if kind is np.ndarray:
            parts.append((kind, array.shape, array.dtype, grad))
        else:  # a GPU array: which device too (kernels follow their arrays' device)
            parts.append((kind, array.shape, array.dtype, grad, int(array.device.id)))
    elif t in (int, float, bool, str, type(None)):
        parts.append((t, value))
    elif t is tuple or t is list:
        parts.append((t, len(value)))
        for item in value:
            _signature(item, tensors, parts)
    elif t is dict:
        parts.append((t, tuple(value)))
        for item in value.values():
            _signature(item, tensors, parts)
    elif isinstance(value, (Layer, Optimizer)):
        parts.append(id(value))
    else:
        raise _Unsupported(f"an argument of type {t.__name__} (not a Tensor, number, string, None, "
                           f"list, tuple, dict, Layer or Optimizer)")


class Trace:
    """One signature's captured call: ``run`` its compiled kernel list (trace.py),
    ``guard`` the state it is specialised to and ``check()`` the guard's
    compiled expression, ``replay(tensors)`` the whole replay (replay.py, which
    holds the effects it repeats and how it builds the return value): the
    result, or ALIASED when an input tensor's array is a buffer of the state.
    ``kept`` holds the located arrays, so their ids stay theirs."""

    __slots__ = ("run", "guard", "check", "replay", "kept", "replays", "streak", "grad")


class _GradPlan:
    """How a forward-only trace's replay makes its grad node (see backward.py):
    ``programs`` mask -> compiled backward; ``n_results`` the forward's results
    before the saved arrays; ``checks`` where the DenseTensors to version-check
    come from: ("in", input index), ("ext", impl) or ("out", grad slot);
    ``edges`` one per boundary: ("in", input index) or ("edge", the edge).
    replay.py writes the code that makes the node from it."""

    __slots__ = ("num_grad_slots", "programs", "n_results", "checks", "edges", "on_create_graph", "saved_slots")


class StaticFunction:
    """A function under :func:`eager.jit.to_static` (see the module doc).

    Calling it calls the function; ``function`` is the one decorated,
    ``rollback()`` gives it back, ``reasons`` maps each signature that runs
    eagerly for good to why, ``captures`` and ``replays`` count the calls that
    ran under the recorder and those a trace served.
    """

    def __init__(self, function, input_spec=None, build_strategy=None, backend=None, **kwargs):
        self._function = function
        self._input_spec = input_spec
        self._build_strategy = build_strategy
        self._backend = backend
        self._kwargs = kwargs
        self._cache = {}
        self._attempts = {}
        self.replays = 0  # calls served by a replay
        self.captures = 0  # calls run eagerly under the recorder
        self._bound = weakref.WeakKeyDictionary()
        # The last call's positional Tensors, (shape, dtype, requires_grad) each, when it had only
        # those: eager.jit.save's input specs when none are given (Paddle saves the last program).
        self._last_call = None
        self._training = True  # Paddle's mode flag of a plain function (train() / eval())
        functools.update_wrapper(self, function, updated=())

    @property
    def function(self):
        """The decorated (plain eager) function."""
        return self._function

    @property
    def dygraph_function(self):
        """The decorated function, bound to its Layer for a method (Paddle's name for ``function``)."""
        return self._function

    @property
    def is_property(self) -> bool:
        """Whether ``to_static`` was given ``property=True`` (Paddle exports such a method's value)."""
        return bool(self._kwargs.get("property", False))

    @property
    def reasons(self) -> dict:
        return {key: entry.reason for key, entry in self._cache.items() if type(entry) is _Eager}

    def rollback(self):
        """The plain function (Paddle's StaticFunction.rollback). For a Layer's method,
        as in Paddle, the Layer's attribute becomes the plain method again, and so do
        the to_static methods of its sublayers: later calls run the plain code."""
        owner = getattr(self._function, "__self__", None)
        if not isinstance(owner, Layer):
            return self._function
        name = self._function.__name__
        _rollback(owner, name)
        for layer in owner.sublayers():
            _rollback(layer)
        return getattr(owner, name)

    @property
    def code(self) -> str:
        """The function's source. Paddle's is the source its AST transformers made; eager
        runs the function's own code unchanged, so that is what it shows."""
        function = inspect.unwrap(getattr(self._function, "__func__", self._function))
        return textwrap.dedent(inspect.getsource(function))

    def get_traced_count(self) -> int:
        """How many traces (one per input signature that replays) the function holds."""
        return sum(type(entry) is Trace for entry in self._cache.values())

    def train(self):
        """Paddle's mode switch of a to_static function; a Layer's method follows the
        Layer (``Layer.train()``), so switching it away from the Layer's mode raises."""
        self._switch_mode(True)

    def eval(self):
        """Paddle's mode switch of a to_static function; see :meth:`train`."""
        self._switch_mode(False)

    def _switch_mode(self, training):
        owner = getattr(self._function, "__self__", None)
        if isinstance(owner, Layer) and owner.training is not training:
            mode = "train" if training else "eval"
            raise RuntimeError(f"Failed to switch {mode} mode. {self._function} is a Layer's method, please "
                               f"use Layer.{mode}() to switch {mode} mode.")
        self._training = training

    def __deepcopy__(self, memo):
        # A fresh StaticFunction: the traces, guards and signatures belong to the
        # original's Layer and state (and hold compiled code that cannot be copied);
        # a method's copy is bound to the copied Layer, which memo already maps.
        new = StaticFunction(copy.deepcopy(self._function, memo), self._input_spec, self._build_strategy,
                             self._backend, **self._kwargs)
        new._training = self._training
        memo[id(self)] = new
        return new

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        # One StaticFunction per instance, kept in the instance's __dict__ (it holds
        # the bound method, so a weak-keyed table would keep the instance alive).
        name = f"_to_static_{getattr(self._function, '__name__', 'function')}_{id(self)}"
        holder = getattr(instance, "__dict__", None)
        bound = holder.get(name) if holder is not None else self._bound.get(instance)
        if bound is None:
            bound = StaticFunction(types.MethodType(self._function, instance), self._input_spec,
                                   self._build_strategy, self._backend, **self._kwargs)
            if holder is not None:
                holder[name] = bound
            else:
                self._bound[instance] = bound
        return bound

    def __call__(self, *args, **kwargs):
        function = self._function
        if not SWITCH.enabled or ANOMALY.enabled or MODES.amp() is not None or MODES.debugging() \
                or _recorder._ACTIVE is not None and _recorder._mine():
            # off, anomaly checks (they read values on the host), auto_cast (a replay
            # has no casts of its own: it runs eagerly), eager.amp.debugging's tools
            # (they look at every op), or called inside another
            # capture, which records these kernels as its own
            return function(*args, **kwargs)
        key = None
        if not kwargs:  # the common call, tensors on the host only: its signature without the tree walk
            parts = []
            for value in args:
                if type(value) is not Tensor:
                    break
                impl = value.impl
                if type(impl) is not DenseTensor:
                    break
                array = impl.array
                if type(array) is not np.ndarray:
                    break
                meta = value._meta
                parts.append((array.shape, array.dtype, meta is not None and not meta.stop_gradient))
            else:  # (a key of five items: it never equals one of the general form's four)
                tensors = args
                self._last_call = parts
                key = (STATE.enabled, default_dtype(), current_place(), _POSITIONAL, tuple(parts))
        if key is None:
            tensors, parts = [], []
            try:
                _signature(args, tensors, parts)
                _signature(kwargs, tensors, parts)
            except _Unsupported as error:
                key = ("unsupported", str(error))
                if key not in self._cache:
                    self._cache[key] = _Eager(str(error))
                    _warn(function, str(error))
                return function(*args, **kwargs)
            key = (STATE.enabled, default_dtype(), current_place(), tuple(parts))
            if not kwargs and all(type(value) is Tensor for value in args):
                self._last_call = [(tuple(value.shape), value.dtype, False) for value in args]
        entry = self._cache.get(key)
        if type(entry) is Trace:
            if entry.check():
                result = entry.replay(tensors)
                if result is ALIASED:  # an input aliases the state: this call runs eagerly
                    _log.log(2, f"{_name(function)}: an input tensor shares its buffer with the state the "
                                f"trace reads; this call runs eagerly")
                    return function(*args, **kwargs)
                self.replays += 1
                entry.replays += 1
                return result
            # The state moved: capture again; a trace replaced before it ever
            # replayed, several times in a row, means the state moves on every call.
            streak = entry.streak + 1 if entry.replays == 0 else 1
            _log.log(2, f"{_name(function)}: the state its trace depends on changed (the guard failed); "
                        f"capturing again")
            return self._capture(key, args, kwargs, tensors, streak)
        elif type(entry) is _Eager:
            return function(*args, **kwargs)
        return self._capture(key, args, kwargs, tensors)

    def _capture(self, key, args, kwargs, tensors, streak=0):
        function = self._function
        discovered = _state.discover(function, args, kwargs)
        roots, layers, optimizers, held, schedulers = discovered
        located = _located(held, optimizers)
        guard = _state.Guard(*discovered)
        counters_before = _state.counters(optimizers)
        rec = _recorder.Recorder([t.impl for t in tensors], located)
        self.captures += 1
        if any(layer._forward_pre_hooks or layer._forward_post_hooks for layer in layers):
            rec.fail("a forward hook of a Layer it reaches runs Python")
        metas = [(t._meta, t.impl) for t in tensors]
        stepped = [_state.shallow(s) for s in schedulers]
        _recorder.start(rec)
        try:
            result = function(*args, **kwargs)
            forward = _forward_only(rec, result, tensors, held) if STATE.enabled else None
        finally:
            _recorder.stop()
        if any(t._meta is not meta or t.impl is not impl for t, (meta, impl) in zip(tensors, metas)):
            rec.fail("it changes an input tensor's buffer or autograd state (stop_gradient, .grad)")
        if stepped != [_state.shallow(s) for s in schedulers]:
            rec.fail("it steps a learning-rate scheduler (Python state a replay does not advance; "
                     "call scheduler.step() outside the function)")
        trace, reason, settled = _analyse(rec, result, tensors, discovered, guard, counters_before, located,
                                          forward)
        if trace is not None and trace.grad is not None:
            trace.grad.on_create_graph = functools.partial(self._refuse_create_graph, key)
        while len(self._cache) >= MAX_SIGNATURES:
            del self._cache[next(iter(self._cache))]
        if trace is not None and streak >= MAX_CAPTURES:
            reason = ("the state it depends on (a number in its globals, a Layer attribute, a learning "
                      "rate, a gradient buffer) changes on every call, so no trace is ever replayed")
            self._cache[key] = _Eager(reason)
            _warn(function, reason)
        elif trace is not None:
            trace.streak = streak
            self._cache[key] = trace
            self._attempts.pop(key, None)
            _log.log(1, f"{_name(function)}: captured a trace of {len(rec.calls)} kernel calls; the next call "
                        f"of this input signature replays it while the state is unchanged")
            if _log.wants_code():
                _show_code(function, trace, rec, forward, len(tensors))
        elif not settled:
            attempts = self._attempts.get(key, 0) + 1
            self._attempts[key] = attempts
            _log.log(1, f"{_name(function)}: capture {attempts} of at most {MAX_CAPTURES} made no trace, "
                        f"the next call captures again: {reason}")
            if attempts >= MAX_CAPTURES:
                self._cache[key] = _Eager(reason)
                self._attempts.pop(key, None)
                _warn(function, reason)
            else:
                self._cache.pop(key, None)
        else:
            self._cache[key] = _Eager(reason)
            _warn(function, reason)
        return result


    def _refuse_create_graph(self, key):
        """A replay's output met backward(create_graph=True): that signature runs eagerly from now on."""
        if type(self._cache.get(key)) is Trace:
            reason = ("a backward with create_graph=True went through a replayed call's output "
                      "(the replay keeps no differentiable graph of its forward)")
            self._cache[key] = _Eager(reason)
            _warn(self._function, reason)


class _ForwardOnly:
    """A capture whose outputs carry a graph for a backward outside the call:
    the outputs (in gradient-slot order), the recorded backward, where each
    boundary node comes from, and how many calls and slots the forward made."""

    __slots__ = ("outputs", "recorded", "origins", "n_calls", "n_slots")


def _forward_only(rec, result, tensors, held):
    """Records the backward of a forward-only call (see backward.py) while the
    recorder is still active; None when the result carries no graph that a
    backward inside the call left unused."""
    if rec.reason is not None or len(rec.backward_ran):
        return None
    outputs = []
    _graph_outputs(result, tensors, held, outputs)
    if not outputs:
        return None
    info = _ForwardOnly()
    info.n_calls, info.n_slots = len(rec.calls), len(rec.slot_refs)
    if len(outputs) > MAX_GRAD_OUTPUTS:
        rec.fail(f"it returns {len(outputs)} tensors with a graph for a backward outside the call "
                 f"(at most {MAX_GRAD_OUTPUTS}: a backward is recorded for each subset of them)")
        return None
    origins = {}  # boundary node -> ("in", input index) or ("held", tensor)
    for index, t in enumerate(tensors):
        if t._meta is not None and t._meta.node is not None:
            origins.setdefault(t._meta.node, ("in", index))
    for t in held:
        if t._meta is not None and t._meta.node is not None:
            origins.setdefault(t._meta.node, ("held", t))
    try:
        info.recorded = capture_backward(rec, outputs, origins)
    except NotCapturable as error:
        rec.fail(str(error))
        return None
    except Exception as error:  # a grad node that cannot run on placeholders: the call stays eager
        rec.fail(f"the backward of its outputs could not be recorded ({type(error).__name__}: {error})")
        return None
    info.outputs = outputs
    info.origins = origins
    return info


def _graph_outputs(value, tensors, held, found):
    """The returned tensors made by the call that carry a graph, each once."""
    if isinstance(value, Tensor):
        if any(t is value for t in tensors) or any(t is value for t in held) or any(t is value for t in found):
            return
        node = value.grad_node
        if node is not None and not node.is_accumulation:
            found.append(value)
    elif type(value) in (tuple, list):
        for item in value:
            _graph_outputs(item, tensors, held, found)
    elif type(value) is dict:
        for item in value.values():
            _graph_outputs(item, tensors, held, found)


def _name(function) -> str:
    return getattr(function, "__qualname__", repr(function))


def _warn(function, reason):
    message = f"{_name(function)} runs eagerly for this input signature from now on: {reason}"
    _log.log(1, message)
    warnings.warn(f"to_static: {message}", RuntimeWarning, stacklevel=3)


def _show_code(function, trace, rec, forward, n_inputs):
    """Logs the code of the stage set_code_level names (logging_utils)."""
    programs = [("forward program" if trace.grad is not None else "kernel program", trace.run.source)]
    if trace.grad is not None:
        programs += [(f"backward program for the incoming gradients {list(mask)}", program.source)
                     for mask, program in trace.grad.programs.items()]
    _log.log_code(_name(function), rec.calls, n_inputs, programs, trace.replay.source)


def _located(tensors, optimizers) -> dict:
    """id(array) -> array for every buffer a trace may read from the state."""
    located = {}
    for t in tensors:
        impl = t.impl
        if type(impl) is DenseTensor:
            located[id(impl.array)] = impl.array
        grad = t.grad
        if grad is not None and type(grad.impl) is DenseTensor:
            located[id(grad.impl.array)] = grad.impl.array
    for opt in optimizers:
        for _, lr_tensor in list(opt._lr_inputs.values()):
            located[id(lr_tensor.array)] = lr_tensor.array
        for state in opt._states.values():
            for impl in state:
                if type(impl) is DenseTensor:
                    located[id(impl.array)] = impl.array
        for group in opt._flat_groups.values():  # use_multi_tensor: the flat buffers its update runs on
            for buffer in [group.param_buffer, group.grad_buffer] + list(group.state_buffers):
                if buffer is not None:
                    located[id(buffer.flat.array)] = buffer.flat.array
    return located


def _analyse(rec, result, tensors, discovered, guard, counters_before, located, forward=None):
    """(trace, reason, settled): a Trace, or None with why and whether trying
    again later may succeed (settled False: the state was still changing).
    ``forward`` is the _ForwardOnly of a call whose outputs carry a graph."""
    if rec.reason is not None:
        # An array it could not locate while the call changed the state (it made
        # the flat buffers of a multi-tensor optimizer): the next capture may.
        return None, rec.reason, not (rec.unlocated and not guard.guard())
    if len(rec.backward_ran) and any(t._meta is not None and not t._meta.stop_gradient for t in tensors):
        return None, ("a tensor argument requires a gradient (stop_gradient=False) and the call runs a "
                      "backward: its gradient would reach the argument's .grad or graph"), True
    if not guard.guard():
        return None, ("the call changes which tensors, gradients, hooks or settings the state holds "
                      "(a first step that creates gradients or optimizer state, a learning rate that "
                      "changed, a Layer attribute it sets) on every capture"), False
    returned = []
    try:
        template = _template(result, rec, tensors, discovered[3], returned, forward)
        plan = None if forward is None else _grad_plan(rec, forward, tensors, discovered[3])
    except _Unsupported as error:
        return None, str(error), True
    # An array a kernel made that outlives the call (other than a returned one, one
    # the graph of a forward-only call saves, and the buffers they view) is held by
    # something a replay would not update.
    allowed = set(located) | {id(t.impl.array) for t in tensors}
    kept = [value.impl.array for value in returned]
    calls, n_slots = rec.calls, len(rec.slot_refs)
    if forward is not None:
        calls, n_slots = rec.calls[:forward.n_calls], forward.n_slots
        kept += [rec.slot_refs[slot]() for slot in plan.saved_slots]
    for array in kept:
        while array is not None:
            allowed.add(id(array))
            array = getattr(array, "base", None)
    gc.collect()
    for ref in rec.slot_refs[:n_slots]:
        array = ref()
        if array is not None and id(array) not in allowed:
            return None, ("a tensor made during the call is still held after it (a graph kept for a "
                          "backward outside the call, a retained gradient, or state the call stores), "
                          "which a replay would not update"), False
    bumps = tuple((impl, count) for impl, count in rec.bumps.values())
    counters_after = _state.counters(discovered[2])
    steps = []
    for opt, was, now in zip(discovered[2], counters_before, counters_after):
        names = _state._counters_of(opt)
        moved = tuple((name, b - a) for name, a, b in zip(names, was, now) if b != a)
        if moved:
            steps.append((opt, moved))
    result_slots = []
    template = _number_results(template, result_slots)
    trace = Trace()
    trace.grad = None
    if plan is not None:
        trace.grad = plan
        plan.n_results = len(result_slots)
        result_slots = result_slots + plan.saved_slots
    trace.run = build(calls, len(tensors), rec.externals, result_slots, _slot_types(rec, calls))
    trace.guard = guard
    trace.check = guard.guard
    trace.replay = compile_replay(trace.run, len(tensors), frozenset(located), bumps, tuple(steps), template,
                                  trace.grad)
    trace.kept = list(located.values())
    trace.replays = 0
    trace.streak = 0
    return trace, None, True


def _slot_types(rec, calls) -> dict:
    slot_types = {}
    for call in calls:
        for slot in _out_slots(call.outs):
            slot_types[slot] = rec.slot_types[slot]
    return slot_types


def _grad_plan(rec, forward, tensors, held):
    """The _GradPlan of a forward-only capture: its backward programs compiled,
    what they read from the forward, what to version-check, where each boundary
    edge leads. Raises _Unsupported for a boundary it cannot rebuild."""
    recorded = forward.recorded
    externals = {slot for slot, _ in rec.externals}
    saved_slots = []
    for calls, _, _ in recorded.programs.values():
        for slot in read_slots(calls):
            if slot < forward.n_slots and slot not in externals and slot not in saved_slots:
                saved_slots.append(slot)
    plan = _GradPlan()
    plan.saved_slots = saved_slots
    plan.num_grad_slots = len(forward.outputs)
    plan.programs = {mask: build(calls, saved_slots + seeds, rec.externals, results, _slot_types(rec, calls))
                     for mask, (calls, seeds, results) in recorded.programs.items()}
    read = set(saved_slots)
    for calls, _, _ in recorded.programs.values():
        read.update(read_slots(calls))
    impl_of = {id(t.impl.array): t.impl for t in held if type(t.impl) is DenseTensor}
    checks = []
    for slot in sorted(read):
        if slot < len(tensors):
            checks.append(("in", slot))
        elif slot in externals:
            array = rec.slot_refs[slot]()
            impl = impl_of.get(id(array))
            if impl is not None:
                checks.append(("ext", impl))
    for index, out in enumerate(forward.outputs):
        if rec.slot(out.impl.array) in read:
            checks.append(("out", index))
    plan.checks = tuple(checks)
    edges = []
    for node, slot in recorded.boundaries:
        for index, t in enumerate(tensors):
            meta = t._meta
            if meta is not None and meta.node is node and meta.slot == slot:
                edges.append(("in", index))
                break
        else:
            if not any(t._meta is not None and t._meta.node is node and t._meta.slot == slot for t in held):
                raise _Unsupported("its graph reaches a tensor made outside the call that is neither an "
                                   "argument nor a parameter or buffer it reaches")
            edges.append(("edge", (node, slot)))
    plan.edges = tuple(edges)
    plan.on_create_graph = None
    return plan


def _rollback(layer, only=None):
    """Sets ``layer``'s to_static methods (those made on the instance, and the bound
    copies of class-level ones) back to the plain bound methods; ``only`` names one."""
    for value in list(vars(layer).values()):
        if isinstance(value, StaticFunction):
            method = value._function
            if getattr(method, "__self__", None) is layer and only in (None, method.__name__):
                setattr(layer, method.__name__, method)


def _out_slots(outs):
    if outs[0] == "a":
        yield outs[1]
    elif outs[0] == "l":
        for o in outs[2]:
            yield from _out_slots(o)


def _internal_view(meta, rec, tensors, held, parts) -> bool:
    """Whether the returned tensor's autograd extras are only that it is a view of a
    tensor the call made and keeps nowhere (an RNN's output transposed back, a last
    reshape): the replay's plain tensor behaves the same, the base being unreachable."""
    if set(meta.__dict__) != {"view"} or meta.view is None:
        return False
    base = meta.view.base
    if type(base.impl) is not DenseTensor or any(base is t for t in (*tensors, *held, *parts)):
        return False
    slot = rec.slot(base.impl.array)
    return slot is not None and slot >= len(tensors) and id(base.impl.array) not in rec.located


def _template(value, rec, tensors, held, parts, forward=None):
    """How to rebuild the call's return value from replayed arrays."""
    if isinstance(value, Tensor):
        for index, t in enumerate(tensors):
            if t is value:
                return ("in", index)
        if any(t is value for t in held):
            return ("obj", value)
        impl = value.impl
        if type(impl) is not DenseTensor:
            raise _Unsupported("it returns a tensor that is not dense")
        slot = rec.slot(impl.array)
        if slot is None or slot < len(tensors) or id(impl.array) in rec.located:
            raise _Unsupported("it returns a tensor that the trace cannot rebuild (not made by the "
                               "call's kernels, nor an input, parameter or state tensor)")
        node = value.grad_node
        grad_slot = None
        if forward is not None:
            grad_slot = next((i for i, out in enumerate(forward.outputs) if out is value), None)
        if node is not None and node not in rec.backward_ran and grad_slot is None:
            raise _Unsupported("it returns a tensor whose graph a backward outside the call would use "
                               "(a forward-only function: the replay returns no graph)")
        meta = value._meta
        if meta is not None and meta.__dict__ and not _internal_view(meta, rec, tensors, held, parts):
            raise _Unsupported("it returns a tensor with a .grad, hooks or a retained gradient, which "
                               "a replay does not rebuild")
        parts.append(value)
        which = next(i for i, p in enumerate(parts) if p is value)  # the same tensor returned twice: once
        return ("slot", slot, value.stop_gradient, impl.version, which, grad_slot)
    if type(value) in (int, float, bool, str, type(None)):
        return ("c", value)
    if type(value) in (tuple, list):
        return ("seq", type(value), [_template(v, rec, tensors, held, parts, forward) for v in value])
    if type(value) is dict:
        return ("seq", dict, [_template(v, rec, tensors, held, parts, forward) for v in value.values()],
                tuple(value))
    raise _Unsupported(f"it returns a {type(value).__name__}, which a replay cannot rebuild")


def _number_results(template, result_slots):
    """The template with each slot replaced by its index among the replay's results."""
    kind = template[0]
    if kind == "slot":
        result_slots.append(template[1])
        return ("t", len(result_slots) - 1, template[2], template[3], template[4], template[5])
    if kind == "seq":
        items = [_number_results(t, result_slots) for t in template[2]]
        return ("seq", template[1], items) + tuple(template[3:])
    return template


__all__ = ["MAX_CAPTURES", "SWITCH", "StaticFunction", "Trace"]
