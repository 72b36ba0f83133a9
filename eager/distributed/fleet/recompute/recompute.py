"""Activation recomputation (Paddle's ``paddle.distributed.fleet.recompute``).

``recompute(function, *args)`` returns ``function(*args)`` but keeps none of
the activations ``function`` makes inside: its forward runs without recording
a graph, and only the inputs (and the random-generator states) are kept. When
the backward pass reaches the block, ``function`` runs again on the saved
inputs with grad on, with the same random states (so dropout draws the same
mask), and the gradient is backpropagated through that second run: the
parameters inside ``function`` get their ``.grad`` from it, the inputs their
gradient through the recompute node. Memory for one block's activations is
then needed only while that block's backward runs: compute traded for memory.

Two implementations, chosen with ``use_reentrant`` as in Paddle:

- ``use_reentrant=True`` (the default): the block is one
  :class:`~eager.autograd.PyLayer` node whose backward re-runs ``function`` and
  calls ``eager.autograd.backward`` on the re-run's outputs (a backward inside
  a backward). Tensor arguments are the positional ones, or tuples holding
  only Tensors; keyword arguments are refused (ValueError, as Paddle).
- ``use_reentrant=False``: ``function`` runs with grad on under
  ``saved_tensors_hooks`` whose pack hook keeps a placeholder instead of each
  saved tensor; the first unpack re-runs ``function`` and hands back the
  re-made tensors. The graph is the ordinary one, so keyword arguments and
  Tensors anywhere in the arguments work.

``recompute_sequential(ctx, functions, *args)`` cuts a Sequential (or a list
of layers) into ``ctx['segments']`` pieces and recomputes each but the last.
"""
from __future__ import annotations

import contextlib
import warnings
import weakref

from phi.core.generator import default_generator

from ....autograd import PyLayer
from ....autograd import backward as _autograd_backward
from ....autograd.grad_mode import STATE, enable_grad
from ....autograd.op_modes import MODES
from ....autograd.saved_hooks import saved_tensors_hooks
from ....errors import AutogradError
from ....framework import current_place
from ....generated.ops_creation import zeros_like
from ....nn.initializer import get_rng_state, set_rng_state
from ....nn.layers import Sequential
from ....tensor import Tensor
from ..layers.mpu.random import get_rng_state_tracker


class _Slot:
    """Where the i-th tensor input goes back when the arguments are rebuilt."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


def _flatten_args(args, who: str = "recompute") -> tuple:
    """(template, tensors): the arguments with each Tensor replaced by a _Slot,
    and the Tensors in order. A tuple of Tensors becomes a tuple of slots;
    ``who`` names the caller in errors."""
    template, tensors = [], []

    def slot(tensor):
        tensors.append(tensor)
        return _Slot(len(tensors) - 1)

    for i, arg in enumerate(args):
        if isinstance(arg, Tensor):
            template.append(slot(arg))
        elif type(arg) is tuple and any(isinstance(a, Tensor) for a in arg):
            if not all(isinstance(a, Tensor) for a in arg):
                raise ValueError(
                    f"{who}: argument {i} is a tuple holding Tensors and other values "
                    f"({', '.join(type(a).__name__ for a in arg)}); a tuple argument must hold only Tensors "
                    f"(or none)")
            template.append(tuple(slot(a) for a in arg))
        elif isinstance(arg, (list, tuple, dict)) and _holds_trainable(arg):
            raise TypeError(
                f"{who}: argument {i} is a {type(arg).__name__} holding a Tensor with stop_gradient=False; "
                f"with use_reentrant=True only Tensors passed directly or in a tuple get gradients: pass it "
                f"that way, or use use_reentrant=False")
        else:
            template.append(arg)
    return tuple(template), tensors


def _holds_trainable(value) -> bool:
    items = value.values() if isinstance(value, dict) else value
    return any(isinstance(t, Tensor) and not t.stop_gradient for t in items)


def _rebuild_args(template, tensors) -> list:
    out = []
    for item in template:
        if isinstance(item, _Slot):
            out.append(tensors[item.index])
        elif type(item) is tuple and item and isinstance(item[0], _Slot):
            out.append(tuple(tensors[s.index] for s in item))
        else:
            out.append(item)
    return out


def _output_tensors(outputs) -> list:
    """The Tensors among ``function``'s outputs, in the order PyLayer gives them gradients."""
    if isinstance(outputs, Tensor):
        return [outputs]
    if isinstance(outputs, (tuple, list)):
        return [o for o in outputs if isinstance(o, Tensor)]
    return []


class _ForwardState:
    """What the re-run must find as the forward found it: the random states
    (global and the tracker's named ones) and the auto_cast settings."""

    __slots__ = ("rng", "tracker", "amp")

    def __init__(self, preserve_rng_state: bool, tensors=()):
        if preserve_rng_state:
            # The generators of the inputs' devices and of the current one exist
            # before the snapshot: one made during the forward would be missing from it.
            for place in {current_place()} | {t.place for t in tensors}:
                default_generator(place)
        self.rng = get_rng_state() if preserve_rng_state else None
        self.tracker = get_rng_state_tracker().get_states_tracker() if preserve_rng_state else None
        self.amp = MODES.amp()

    @contextlib.contextmanager
    def restored(self):
        """The block runs with grad on and the forward's states; afterwards the
        states are back as they were, so the re-run consumes no random numbers."""
        tracker = get_rng_state_tracker()
        if self.rng is not None:
            outer_rng, outer_tracker = get_rng_state(), tracker.get_states_tracker()
            set_rng_state(self.rng)
            tracker.set_states_tracker(self.tracker)
        previous_amp = MODES.set_amp(self.amp)
        try:
            with enable_grad():
                yield
        finally:
            MODES.set_amp(previous_amp)
            if self.rng is not None:
                set_rng_state(outer_rng)
                tracker.set_states_tracker(outer_tracker)


class RecomputeFunction(PyLayer):
    """The recompute node (``use_reentrant=True``): forward runs the block without
    a graph; backward re-runs it with one and backpropagates through it."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, template, *tensors):
        """Runs ``run_function`` on the rebuilt arguments (under no_grad, as every
        PyLayer forward) and keeps the tensor inputs and the forward's states."""
        ctx.run_function = run_function
        ctx.template = template
        ctx.state = _ForwardState(preserve_rng_state, tensors)
        ctx.save_for_backward(*tensors)
        ctx.set_materialize_grads(False)
        return _run_forward("recompute", ctx, run_function, template, tensors)

    @staticmethod
    def backward(ctx, *grads):
        """Re-runs the block on detached copies of the inputs and backpropagates ``grads`` through it."""
        return _backward_through_rerun(ctx, ctx.saved_tensor(), grads)


def _backward_through_rerun(ctx, saved, grads, who: str = "recompute") -> tuple:
    """The reentrant recompute's backward: re-runs ``ctx.run_function`` on detached
    copies of ``saved`` (the inputs as the forward had them) under the forward's
    states, backpropagates ``grads`` through the re-run and returns the inputs' gradients."""
    detached = []
    for t in saved:
        d = t.detach()
        d.stop_gradient = t.stop_gradient
        detached.append(d)
    with ctx.state.restored():
        outputs = ctx.run_function(*_rebuild_args(ctx.template, detached))
    outputs = _output_tensors(outputs)
    if len(outputs) != len(grads):
        raise AutogradError(
            f"{who}: the re-run of {_name(ctx.run_function)} returned {len(outputs)} Tensor(s), the "
            f"forward returned {len(grads)}; the function must compute the same thing each time it runs")
    roots, seeds = [], []
    for out, grad in zip(outputs, grads):
        if grad is not None and not out.stop_gradient:
            roots.append(out)
            seeds.append(grad)
    if roots:
        _autograd_backward(roots, seeds)
    result = []
    for original, d in zip(saved, detached):
        if original.stop_gradient:
            result.append(None)
        elif d.grad is None:   # an input the outputs do not depend on
            result.append(zeros_like(d))
        else:
            result.append(d.grad)
    return tuple(result)


def _run_forward(who: str, ctx, run_function, template, tensors):
    """A recompute PyLayer's forward call of ``run_function`` on the arguments
    rebuilt from ``template`` and ``tensors``: its outputs, which must hold a
    Tensor; an input handed back as it is keeps its own history."""
    outputs = run_function(*_rebuild_args(template, list(tensors)))
    if not _output_tensors(outputs):
        raise TypeError(f"{who}: {_name(run_function)} returned {type(outputs).__name__}; the function "
                        f"must return a Tensor or a tuple/list holding Tensors")
    returned = [t for t in _output_tensors(outputs) if any(t is x for x in tensors)]
    if returned:
        ctx.mark_not_inplace(*returned)
    return outputs


def _name(function) -> str:
    return getattr(function, "__qualname__", None) or type(function).__name__


def _recompute_reentrant(function, preserve_rng_state, args):
    template, tensors = _flatten_args(args)
    return RecomputeFunction.apply(function, preserve_rng_state, template, *tensors)


class _Placeholder:
    """What the pack hook keeps instead of a saved tensor (see _recompute_without_reentrant)."""

    __slots__ = ("__weakref__",)


def _recompute_without_reentrant(function, preserve_rng_state, args, kwargs):
    """The hook implementation: the forward records the graph as usual, but every
    tensor an op saves is replaced by a placeholder. When backward asks for a
    placeholder that has no tensor, ``function`` runs again under hooks that
    store the re-made saved tensors, in the same order, under the placeholders
    still alive."""
    state = _ForwardState(preserve_rng_state, _flatten_tensors(args, kwargs))
    placeholders = []                          # weak references, in the order of saving
    storage = weakref.WeakKeyDictionary()      # placeholder -> re-made tensor

    def pack(tensor):
        placeholder = _Placeholder()
        placeholders.append(weakref.ref(placeholder))
        return placeholder

    def unpack(placeholder):
        # Each re-made tensor is handed out once and dropped from storage, so the
        # re-run's tensors die as backward goes (a second backward through a
        # retained graph finds storage empty and re-runs the block again).
        if placeholder not in storage:
            _rerun()
        tensor = storage.pop(placeholder, None)
        if tensor is None:
            raise AutogradError(
                f"recompute(use_reentrant=False): the re-run of {_name(function)} did not make the tensor "
                f"this backward needs; the function must record the same ops each time it runs")
        return tensor

    def _rerun():
        count = [0]

        def inner_pack(tensor):
            index = count[0]
            count[0] += 1
            if index < len(placeholders):
                placeholder = placeholders[index]()
                if placeholder is not None:
                    storage[placeholder] = tensor
            return None

        def inner_unpack(_):
            raise AutogradError("recompute(use_reentrant=False): a tensor of the re-run was unpacked; "
                                "the re-run is not meant to be differentiated")

        with state.restored(), saved_tensors_hooks(inner_pack, inner_unpack):
            function(*args, **kwargs)

    with saved_tensors_hooks(pack, unpack):
        return function(*args, **kwargs)


def _flatten_tensors(args, kwargs) -> list:
    """The Tensors among the arguments, also one level inside lists, tuples and dicts."""
    out = []
    for value in list(args) + list(kwargs.values()):
        items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else (value,)
        out.extend(t for t in items if isinstance(t, Tensor))
    return out


def _check_recompute_necessary(args, kwargs) -> None:
    """Warns, as Paddle does, when no tensor argument needs a gradient: then the
    block gets no backward at all (its parameters get no gradient either)."""
    values = list(args) + list(kwargs.values())
    flags = []
    for value in values:
        items = value if type(value) is tuple else (value,)
        flags.extend(t.stop_gradient for t in items if isinstance(t, Tensor))
    if all(flags):
        warnings.warn("[Recompute]: none of the inputs of this recompute block needs a gradient, so there is "
                      "no backward through it: nothing is recomputed and its parameters get no gradient",
                      UserWarning, stacklevel=3)


def recompute(function, *args, **kwargs):
    """Runs ``function(*args, **kwargs)`` without keeping its intermediate
    activations; they are recomputed when backward reaches the block.

    ``function``: a callable (a Layer, a Sequential, a function) whose outputs
    are a Tensor or a tuple/list holding Tensors. Two keyword arguments are
    recompute's own: ``preserve_rng_state`` (default True: the re-run starts
    from the forward's random states, global and the tracker's, so dropout
    draws the same mask) and ``use_reentrant`` (default True: the PyLayer
    implementation; False: the saved-tensor-hooks one, which also takes other
    keyword arguments for ``function``). Gradients equal those of calling
    ``function`` directly.

    >>> block = eager.nn.Sequential(eager.nn.Linear(8, 8), eager.nn.ReLU(), eager.nn.Linear(8, 8))
    >>> y = recompute(block, x)
    >>> y.sum().backward()      # block runs again here; block's parameters get their .grad
    """
    preserve = kwargs.pop("preserve_rng_state", True)
    use_reentrant = kwargs.pop("use_reentrant", True)
    if not callable(function):
        raise TypeError(f"recompute: argument 'function' expected a callable (a Layer or a function), got "
                        f"{type(function).__name__}")
    for arg, value in (("preserve_rng_state", preserve), ("use_reentrant", use_reentrant)):
        if not isinstance(value, bool):
            raise TypeError(f"recompute: argument '{arg}' expected a bool, got {type(value).__name__}")
    if kwargs and use_reentrant:
        raise ValueError(f"recompute: keyword arguments for the function ({', '.join(sorted(kwargs))}) need "
                         f"use_reentrant=False; with use_reentrant=True pass them positionally")
    if STATE.enabled:
        _check_recompute_necessary(args, kwargs)
    if use_reentrant:
        return _recompute_reentrant(function, preserve, args)
    if not STATE.enabled:
        return function(*args, **kwargs)   # nothing is recorded: nothing to recompute
    return _recompute_without_reentrant(function, preserve, args, kwargs)


def recompute_sequential(ctx, functions, *args, **kwargs):
    """Recomputes a Sequential model piecewise (Paddle's ``recompute_sequential``).

    ``ctx``: a dict with ``'segments'`` (int, default 1: how many pieces) and
    ``'preserve_rng_state'`` (default True). ``functions``: an
    ``eager.nn.Sequential`` or a list/tuple of callables, each taking the
    previous one's output. The layers are cut into ``segments`` pieces of
    ``len // segments`` layers; each piece but the last runs under
    :func:`recompute` (``kwargs`` go to those, so they need
    ``use_reentrant=False``), the last piece (with the remaining layers) runs
    normally.

    >>> model = eager.nn.Sequential(eager.nn.Linear(10, 10), eager.nn.ReLU(), eager.nn.Linear(10, 2))
    >>> out = recompute_sequential({"segments": 2}, model, x)
    """
    if not isinstance(ctx, dict):
        raise TypeError(f"recompute_sequential: argument 'ctx' expected a dict (with 'segments' and "
                        f"'preserve_rng_state'), got {type(ctx).__name__}")
    segments = ctx.get("segments", 1)
    preserve_rng_state = ctx.get("preserve_rng_state", True)
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    elif isinstance(functions, (list, tuple)) and all(callable(f) for f in functions):
        functions = list(functions)
    else:
        raise TypeError(f"recompute_sequential: argument 'functions' expected an eager.nn.Sequential or a list "
                        f"of callables, got {type(functions).__name__}")
    if not isinstance(segments, int) or isinstance(segments, bool) or not 1 <= segments <= max(len(functions), 1):
        raise ValueError(f"recompute_sequential: ctx['segments'] expected an int from 1 to the number of "
                         f"layers ({len(functions)}), got {segments!r}")
    segment_size = len(functions) // segments

    def run(begin, end):
        def run_segment(*values):
            if begin == end:   # no layer in this piece: its input passes through
                return values[0] if len(values) == 1 else values
            value = functions[begin](*values)
            for f in functions[begin + 1:end]:
                value = f(value)
            return value
        return run_segment

    end = 0
    for begin in range(0, segment_size * (segments - 1), segment_size):
        end = begin + segment_size
        args = recompute(run(begin, end), *args, preserve_rng_state=preserve_rng_state, **kwargs)
        args = (args,)
    return run(end, len(functions))(*args)


__all__ = ["recompute", "recompute_sequential", "RecomputeFunction"]
