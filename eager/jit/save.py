"""``eager.jit.save``: a Layer's forward (or a function) traced into a JSON
kernel program beside its parameters.

``save(layer, path, input_spec)`` runs the forward under the kernel recorder of
to_static on inputs of the specs' shapes and writes two files:

- ``path + ".pdmodel"``: the kernel programs as JSON (program.py's format: each
  phi kernel by name, its attributes, where each array argument comes from,
  its results' shapes and dtypes), with the inputs' specs, the parameters' and
  buffers' names, shapes and dtypes, and how to assemble the outputs;
- ``path + ".pdiparams"``: the parameters and buffers, as :func:`eager.save`
  writes them (safetensors, keyed by structured name).

Three traces make the programs: the inference program (eval mode, no_grad;
with gradients on for a forward that calls grad on its own graph), and for
each of train and eval mode a forward with gradients on whose backward
is recorded too, as a forward-only ``to_static`` call records it (backward.py):
one backward program per subset of the outputs that carry a gradient, seeded
with the incoming gradients, ending at the *boundaries*, the inputs and
trainable parameters. A TranslatedLayer runs these to be fine-tuned. The
traces leave the layer as they found it: its modes, the random generators,
and the values and versions of its parameters and buffers (a train-mode trace
runs on copies of them). Layer forward hooks and PyLayers run in the traces
like the forward's own code. Input specs fewer than a to_static forward's own
are Paddle's input pruning: the inputs left out are made inside (zeros) and
must not feed the outputs.
"""
from __future__ import annotations

import inspect
import json
import os
import types
import warnings

import numpy as np

from ..arguments import to_bool
from ..autograd.grad_mode import enable_grad, no_grad
from ..creation import to_tensor
from ..errors import AutogradError
from ..generated.ops_creation import full
from ..nn.initializer import get_rng_state, set_rng_state
from ..nn.layer import Layer
from ..serialization import save as _save_state
from ..tensor import Tensor
from . import recorder as _recorder
from .backward import MAX_GRAD_OUTPUTS, NotCapturable, capture_backward
from .input_spec import InputSpec
from .program import (FORMAT, MODEL_SUFFIX, PARAMS_SUFFIX, VERSION, ProgramError, encode, output_leaves, prune,
                      result_slots, unify)
from .static_function import SWITCH, StaticFunction

# The sizes a None dimension is traced with (two traces, unified): primes, so that
# a size that happens to equal another dimension is unlikely.
_TRACE_SIZES = ((7, 11), (13, 17), (19, 23), (29, 31), (37, 41), (43, 47))
# The gradient programs: one per mode (Layer.training True, False), with the
# inputs' gradients, and ("/params") without them, for the common fine-tuning
# call whose inputs require none (no input gradient computed, e.g. the first
# linear's x @ W.T).
GRAD_MODES = ("train", "eval")
PARAMS_ONLY = "/params"
GRAD_PROGRAMS = ("train", "eval", "train" + PARAMS_ONLY, "eval" + PARAMS_ONLY)


def check_path(who: str, path) -> str:
    """``path`` as a str prefix (dirname/file_prefix); TypeError or ValueError otherwise."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{who}: argument 'path' expected a str path prefix (dirname/file_prefix), got "
                        f"{type(path).__name__}")
    path = os.fspath(path)
    if not os.path.basename(path):
        raise ValueError(f"{who}: argument 'path' must be dirname/file_prefix, got {path!r}, whose file "
                         f"prefix is empty")
    return path


class _FunctionLayer(Layer):
    """A function to save, as a Layer without parameters (Paddle saves none of a function's);
    a method bound to a Layer (``to_static(net.another_func)``) is saved with that Layer's
    parameters and buffers under their own structured names, as Paddle saves it."""

    def __init__(self, function):
        super().__init__()
        self._function = function
        bound = function.function if isinstance(function, StaticFunction) else function
        owner = getattr(bound, "__self__", None) if isinstance(bound, types.MethodType) else None
        self.owner = owner if isinstance(owner, Layer) else None  # a sublayer: modes follow target's

    def forward(self, *inputs):
        return self._function(*inputs)


# Paddle's jit.save switches that change nothing eager writes: one parameters file
# always (combine_params), Layer hooks always traced (with_hook), no program
# attributes to clip or prune (clip_extra, skip_prune_program).
_NEUTRAL_CONFIGS = frozenset({"combine_params", "with_hook", "clip_extra", "skip_prune_program"})


def _specs(who, target, input_spec):
    if input_spec is None:
        forward = target.forward if isinstance(target, Layer) else target
        input_spec = forward._input_spec if isinstance(forward, StaticFunction) else None
        if input_spec is None and isinstance(forward, StaticFunction) and forward._last_call is not None:
            # As Paddle, which saves the program of the last call: its inputs' shapes and dtypes.
            return [InputSpec(shape, dtype) for shape, dtype, _ in forward._last_call], "call"
        if input_spec is None:
            raise ValueError(f"{who}: argument 'input_spec' is needed (a list of InputSpec or example "
                             f"Tensors), an input_spec given to to_static, or a call of the to_static "
                             f"forward with Tensors only before saving: eager traces the "
                             f"{'forward' if isinstance(target, Layer) else 'function'}, so it must know "
                             f"the inputs' shapes and dtypes")
    if not isinstance(input_spec, (list, tuple)):
        raise TypeError(f"{who}: argument 'input_spec' expected a list or tuple of InputSpec or "
                        f"Tensor, got {type(input_spec).__name__}")
    specs = []
    # A Python constant (a flag, a scale) is passed to the forward as given and kept in the
    # program, as Paddle does; the loaded layer takes the tensor arguments only.
    tree = [{"const": spec} if spec is None or type(spec) in _CONSTANTS
            else _flatten_spec(who, spec, f"input_spec[{i}]", specs) for i, spec in enumerate(input_spec)]
    if all("spec" in node for node in tree):
        if input_spec and all(isinstance(spec, Tensor) for spec in input_spec):
            # Example Tensors, as the inputs of a call: Paddle's program from them runs
            # any batch, so the batch is left free where the forward allows it.
            return specs, "call"
        return specs, False
    return specs, tree


_CONSTANTS = (bool, int, float, str)


def _flatten_spec(who, spec, where, specs):
    """Appends the InputSpecs of one argument's spec (an InputSpec, a Tensor, or a list,
    tuple or str-keyed dict of them, as Paddle takes) to ``specs``; returns its tree:
    {"spec": i}, {"list"/"tuple": [...]} or {"dict": [[key, ...], ...]}."""
    if isinstance(spec, Tensor):
        spec = InputSpec.from_tensor(spec)
    if isinstance(spec, InputSpec):
        specs.append(spec)
        return {"spec": len(specs) - 1}
    if type(spec) in (list, tuple):
        return {type(spec).__name__: [_flatten_spec(who, item, f"{where}[{i}]", specs)
                                      for i, item in enumerate(spec)]}
    if type(spec) is dict and all(isinstance(k, str) for k in spec):
        return {"dict": [[k, _flatten_spec(who, v, f"{where}[{k!r}]", specs)] for k, v in spec.items()]}
    raise TypeError(f"{who}: {where} expected an InputSpec or a Tensor (or a list, tuple or str-keyed dict "
                    f"of them), got {type(spec).__name__} (a bool, int, float, str or None is taken only as a "
                    f"whole argument)")


def pack_inputs(tree, flat):
    """The arguments ``tree`` describes, with its leaves taken from ``flat``."""
    def build(node):
        if "spec" in node:
            return flat[node["spec"]]
        if "const" in node:
            return node["const"]
        if "dict" in node:
            return {k: build(v) for k, v in node["dict"]}
        items = [build(v) for v in node.get("list", node.get("tuple"))]
        return items if "list" in node else tuple(items)
    return [build(node) for node in tree]


class _Packed(Layer):
    """Calls ``inner`` with its arguments built from flat inputs (nested input specs)."""

    def __init__(self, inner, tree):
        super().__init__()
        self.inner = inner
        self._tree = tree

    def forward(self, *flat):
        return self.inner(*pack_inputs(self._tree, flat))


class _Pruned(Layer):
    """Calls ``inner`` with the inputs at positions ``kept`` of ``specs`` given and the
    others made inside: zeros of their dtype, a None size taken from a given input's
    size at the same axis position (the batch), else 1."""

    def __init__(self, inner, kept, specs):
        super().__init__()
        self.inner = inner
        self._kept, self._specs = kept, specs

    def forward(self, *given):
        inputs = [None] * len(self._specs)
        for position, value in zip(self._kept, given):
            inputs[position] = value
        for i, spec in enumerate(self._specs):
            if inputs[i] is None:
                shape = [size if size is not None else next(
                    (t.shape[axis] for t in given if axis < len(t.shape)), 1)
                    for axis, size in enumerate(spec.shape)]
                inputs[i] = full(shape, 0, spec.dtype)
        return self.inner(*inputs)


def _batch_free(specs, min_rank):
    """``specs`` with the first size of each of rank ``min_rank`` or more left free: the batch."""
    return [InputSpec((None,) + spec.shape[1:], spec.dtype, spec.name, spec.stop_gradient)
            if len(spec.shape) >= min_rank else spec for spec in specs]


def _named_state(layer):
    """(name, tensor, kind, trainable, persistable) for every parameter, buffer and
    Tensor kept as a plain attribute of the layer and its sublayers."""
    out, seen = [], set()
    for prefix, sub in layer.named_sublayers(include_self=True):
        dot = f"{prefix}." if prefix else ""
        entries = [(k, v, "parameter") for k, v in sub._parameters.items()]
        entries += [(k, v, "buffer") for k, v in sub._buffers.items()]
        entries += [(k, v, "attribute") for k, v in vars(sub).items()
                    if isinstance(v, Tensor) and not k.startswith("__")]
        for key, tensor, kind in entries:
            if tensor is None or id(tensor) in seen:
                continue
            seen.add(id(tensor))
            persistable = kind == "parameter" or (kind == "buffer" and key not in sub._non_persistable_buffer_names)
            out.append((dot + key, tensor, kind, not tensor.stop_gradient, persistable))
    return out


def _inputs(specs, symbols, sizes, grad=False):
    """Tensors for ``specs`` (the i-th None size is ``sizes[symbols[i]]``): ones, and
    zeros for integers (a valid index and class label for any size: ids, labels);
    with ``grad``, the floating ones whose spec allows it require a gradient."""
    inputs, d = [], 0
    for spec in specs:
        shape = []
        for size in spec.shape:
            if size is None:
                shape.append(sizes[symbols[d]])
                d += 1
            else:
                shape.append(size)
        dtype = spec.dtype.numpy_dtype
        fill = np.zeros if np.issubdtype(dtype, np.integer) else np.ones
        t = to_tensor(fill(shape, dtype=dtype))
        if grad and not spec.stop_gradient and np.issubdtype(dtype, np.inexact):
            t.stop_gradient = False
        inputs.append(t)
    return inputs


def _trace(layer, specs, symbols, sizes, state):
    """The inference trace of ``layer``'s forward (no_grad): (the JSON program,
    outputs template, bumps)."""
    try:
        with no_grad():
            return record_forward(layer, _inputs(specs, symbols, sizes), state)[:3]
    except AutogradError:
        # A forward that differentiates its own graph (paddle.grad inside forward) needs
        # the graph even to infer: its program records the backward kernels that grad runs.
        with enable_grad():
            return record_forward(layer, _inputs(specs, symbols, sizes), state)[:3]


def record_forward(layer, inputs, state):
    """Runs ``layer(*inputs)`` once, in the current grad mode, under the kernel
    recorder: (the JSON program of its kernels, the outputs template, the
    bumps, the result). ``state`` is ``_named_state``'s list: the tensors the
    program reads by name. Raises ProgramError for a forward the program
    cannot express."""
    located = {id(t.impl.array): t.impl.array for _, t, *_ in state}
    name_of = {id(t.impl.array): name for name, t, *_ in state}
    rec = _recorder.Recorder([t.impl for t in inputs], located, once=True)
    _recorder.start(rec)
    try:
        result = layer(*inputs)
    finally:
        _recorder.stop()
    if rec.reason is not None:
        raise ProgramError(rec.reason)
    state_of_slot = {slot: name_of[id(array)] for slot, array in rec.externals}
    program = encode(rec.calls, len(inputs), state_of_slot)
    outputs = _outputs(result, rec, inputs, name_of, result_slots(rec.calls))
    bumps = sorted([name_of[id(impl.array)], count] for impl, count in rec.bumps.values())
    return program, outputs, bumps, result


def _graph_outputs(value, inputs, found):
    """The returned tensors the forward's kernels made that carry a graph, each once."""
    if isinstance(value, Tensor):
        node = value.grad_node
        if node is not None and not node.is_accumulation and all(value is not t for t in inputs + found):
            found.append(value)
    elif type(value) in (list, tuple):
        for item in value:
            _graph_outputs(item, inputs, found)
    elif type(value) is dict:
        for item in value.values():
            _graph_outputs(item, inputs, found)


def _trace_grad(layer, specs, symbols, sizes, state, input_grads=True):
    """The gradient program of ``layer``'s forward in its current mode: a JSON
    dict with the forward (``calls``, ``outputs``, ``bumps``), the outputs that
    carry a gradient (``grad_outputs``), the ``boundaries`` their gradients
    reach (``{"in": i}`` or ``{"state": name}``) and the ``backward`` programs,
    one per non-empty subset (``mask``) of the incoming gradients, each with
    its ``calls`` (numbered after the forward's; ``{"seed": k}`` the gradient of
    output k) and ``results`` (one provenance or None per boundary). A forward
    whose backward cannot be recorded keeps ``backward`` None and the ``reason``.
    Raises ProgramError for a forward that cannot be traced. Runs on copies of
    the state (a train-mode forward writes running statistics) and restores the
    random generators (a dropout draws)."""
    inputs = _inputs(specs, symbols, sizes, grad=input_grads)
    saved = [(t.impl, t.impl.array, t.impl.version_counter) for _, t, *_ in state]
    rng = get_rng_state()
    try:
        for impl, array, _ in saved:
            impl.array = array.copy()
            impl.version_counter = None
        return _record_grad(layer, inputs, state)
    finally:
        for impl, array, counter in saved:
            impl.array = array
            impl.version_counter = counter
        set_rng_state(rng)


def _record_grad(layer, inputs, state):
    located = {id(t.impl.array): t.impl.array for _, t, *_ in state}
    name_of = {id(t.impl.array): name for name, t, *_ in state}
    rec = _recorder.Recorder([t.impl for t in inputs], located, once=True)
    reason, recorded = None, None
    _recorder.start(rec)
    try:
        with enable_grad():
            result = layer(*inputs)
        if rec.reason is not None:
            raise ProgramError(rec.reason)
        n_forward = len(rec.calls)
        outputs = []
        _graph_outputs(result, inputs, outputs)
        origins = {}  # boundary node -> its provenance
        for i, t in enumerate(inputs):
            if t._meta is not None and t._meta.node is not None:
                origins[t._meta.node] = {"in": i}
        for name, t, *_ in state:
            if t._meta is not None and t._meta.node is not None:
                origins.setdefault(t._meta.node, {"state": name})
        if len(outputs) > MAX_GRAD_OUTPUTS:
            reason = (f"the forward returns {len(outputs)} tensors with a graph (a backward is recorded for "
                      f"each subset of them, at most {MAX_GRAD_OUTPUTS})")
        elif outputs:
            try:
                recorded = capture_backward(rec, outputs, origins)
            except NotCapturable as error:
                reason = str(error)
            except Exception as error:  # a grad node that cannot run on placeholders
                reason = f"its backward could not be recorded ({type(error).__name__}: {error})"
    finally:
        _recorder.stop()
    forward = rec.calls[:n_forward]
    state_of_slot = {slot: name_of[id(array)] for slot, array in rec.externals}
    made = result_slots(forward)
    section = {
        "calls": encode(forward, len(inputs), state_of_slot),
        "outputs": _outputs(result, rec, inputs, name_of, made),
        "bumps": sorted([name_of[id(impl.array)], count] for impl, count in rec.bumps.values()),
        "grad_outputs": [made[rec.slot(t.impl.array)] for t in outputs],
        "boundaries": [], "backward": None, "reason": reason,
    }
    if recorded is not None:
        try:
            section["backward"] = _encode_backward(recorded, forward, len(inputs), state_of_slot)
            section["boundaries"] = [origins[node] for node, _ in recorded.boundaries]
        except ProgramError as error:
            section["reason"] = str(error)
    elif not outputs and reason is None:
        section["backward"] = []  # no output carries a gradient: nothing to run backward
    return section


def _encode_backward(recorded, forward, n_inputs, state_of_slot):
    programs = []
    for mask, (calls, seeds, results) in recorded.programs.items():
        present = [k for k, wanted in enumerate(mask) if wanted]
        named = {slot: {"seed": present[j]} for j, slot in enumerate(seeds)}
        entries = encode(forward + calls, n_inputs, state_of_slot, named)[len(forward):]
        made = result_slots(calls, len(forward))
        where = []
        for slot in results:
            if slot is None:
                where.append(None)
            elif slot in named or slot in made:
                where.append(dict(named.get(slot) or made[slot]))
            else:
                raise ProgramError("a gradient of the backward is neither an incoming gradient nor made by "
                                   "its kernels")
        programs.append({"mask": list(mask), "calls": entries, "results": where})
    return programs


def _outputs(value, rec, inputs, name_of, slots):
    if isinstance(value, Tensor):
        for i, t in enumerate(inputs):
            if t is value:
                return {"in": i}
        array = value.impl.array
        if id(array) in name_of:
            return {"state": name_of[id(array)]}
        slot = rec.slot(array)
        if slot is None or slot not in slots:
            raise ProgramError("the forward returns a tensor the program cannot rebuild (not made by its "
                               "kernels, nor an input, parameter or buffer)")
        return dict(slots[slot])
    if value is None or type(value) in (bool, int, float, str):
        return {"const": value}
    if type(value) in (list, tuple):
        return {type(value).__name__: [_outputs(v, rec, inputs, name_of, slots) for v in value]}
    if type(value) is dict and all(isinstance(k, str) for k in value):
        return {"dict": [[k, _outputs(v, rec, inputs, name_of, slots)] for k, v in value.items()]}
    raise ProgramError(f"the forward returns a {type(value).__name__}, which a program cannot rebuild")


def _traced_twice(trace, free, symbols):
    """``trace(symbols, sizes)`` for the first sizes, unified with a trace for
    the second sizes when some size is None."""
    count = len(set(symbols))
    first, second = [a for a, _ in _TRACE_SIZES[:count]], [b for _, b in _TRACE_SIZES[:count]]
    traced = trace(symbols, first)
    if free:
        traced = unify(traced, trace(symbols, second), first, second)
    return traced


def save(layer, path, input_spec=None, **configs) -> None:
    """Saves ``layer``'s forward, or a function, as kernel programs with the
    parameters (Paddle's ``paddle.jit.save``): ``path + ".pdmodel"`` (JSON) and
    ``path + ".pdiparams"`` (safetensors). ``input_spec`` lists the inputs
    (InputSpec or example Tensors; a None size, such as the batch, stays free
    in the program); None takes the ``input_spec`` given to ``to_static``, or
    else the shapes of the last call of a ``to_static`` forward (as Paddle, which
    saves that call's program; its batch size left free where the forward allows). A
    function (plain, or decorated with ``to_static``) is saved without
    parameters, as in Paddle: the tensors it reads must be its inputs. The
    programs are the inference forward (eval mode, no_grad) and, for train and
    eval mode, the forward with its recorded backward, which a loaded
    TranslatedLayer runs to be fine-tuned; the layer's modes and state are
    left as they were. See docs/jit.md.

    >>> eager.jit.save(net, "out/mlp", input_spec=[InputSpec([None, 784], "float32")])
    """
    who = "eager.jit.save"
    if not SWITCH.enabled:  # as Paddle, whose save builds the program by converting
        raise RuntimeError(f"{who} does not work after eager.jit.enable_to_static(False); enable it to save")
    if isinstance(layer, Layer):
        target, what = layer, f"{type(layer).__name__}.forward"
    elif isinstance(layer, (StaticFunction, types.FunctionType, types.MethodType)):
        target = _FunctionLayer(layer)
        what = f"function {getattr(layer, '__qualname__', type(layer).__name__)}"
    else:
        raise TypeError(f"{who}: argument 'layer' expected an eager.nn.Layer or a function, got "
                        f"{type(layer).__name__}")
    path = check_path(who, path)
    for key in _NEUTRAL_CONFIGS.intersection(configs):
        to_bool(configs.pop(key), who, key)
    output_spec = configs.pop("output_spec", None)
    if output_spec is not None and not (isinstance(output_spec, (list, tuple))
                                        and all(isinstance(t, Tensor) for t in output_spec)):
        raise TypeError(f"{who}: argument 'output_spec' expected None or a list of the forward's output "
                        f"Tensors, got {type(output_spec).__name__}")
    if configs:
        raise ValueError(f"{who}: the configs {sorted(configs)} are not supported (Paddle's output_spec, "
                         f"input_names_after_prune, ... prune a static program eager does not build)")
    if input_spec is not None and isinstance(layer, Layer):
        others = [name for name, _ in _other_static_methods(layer)]
        # set on the instance (net.f = to_static(net.f)); "_to_static_*" are a class method's bound copies
        others += [k for k, v in vars(layer).items()
                   if isinstance(v, StaticFunction) and k != "forward" and not k.startswith("_to_static_")]
        if others:
            # As Paddle: input_spec describes forward only, and the other methods would be saved with it.
            raise ValueError(f"{who}: {type(layer).__name__} has to_static methods other than forward "
                             f"({', '.join(sorted(set(others)))}) to save, so argument 'input_spec' must be None "
                             f"(each method's input_spec comes from its to_static), got "
                             f"{type(input_spec).__name__}")
    with _hooked_state(layer):
        _save_layer(who, layer, target, what, input_spec, output_spec, path)


def _save_layer(who, layer, target, what, input_spec, output_spec, path) -> None:
    """save's tracing and writing (see save)."""
    document, state = _document_of(who, layer, target, what, input_spec)
    if output_spec is not None:
        _check_output_spec(who, what, output_spec, document["outputs"])
    if isinstance(layer, Layer):
        methods = {}
        for name, method in _other_static_methods(layer):
            try:
                methods[name] = _document_of(who, method, _FunctionLayer(method),
                                             f"{type(layer).__name__}.{name}", None)[0]
            except ValueError as error:
                if "'input_spec' is needed" not in str(error):
                    raise
                # Paddle raises here; a to_static helper never called and without a spec is skipped.
                warnings.warn(f"{who}: {type(layer).__name__}.{name} is a to_static method without an "
                              f"input_spec that was never called: it is not saved", stacklevel=2)
        if methods:
            document["methods"] = methods  # the layer's other to_static methods, on the same state
    _write(document, state, path)


class _hooked_state:
    """While saving a Layer, each parameter or buffer that the layer's state-dict
    hooks replace (amp.decorate's ``save_dtype`` casts them) holds the hooked value,
    so the program is traced with it and saves it, as Paddle's jit.save shares the
    hooked state dict's tensors; the layer's own buffers are back afterwards."""

    def __init__(self, layer):
        self._swapped = []
        if isinstance(layer, Layer) and any(sub._state_dict_hooks for sub in layer.sublayers(include_self=True)):
            plain = layer.to_static_state_dict(use_hook=False)
            hooked = layer.to_static_state_dict()
            for key, tensor in plain.items():
                value = hooked.get(key)
                if isinstance(value, Tensor) and value is not tensor and value.shape == tensor.shape:
                    self._swapped.append((tensor, tensor.impl, value.impl))

    def __enter__(self):
        for tensor, _, hooked in self._swapped:
            tensor.impl = hooked
        return self

    def __exit__(self, *exc):
        for tensor, own, _ in self._swapped:
            tensor.impl = own
        return False


def _check_output_spec(who, what, output_spec, outputs):
    """Paddle's output_spec keeps a subset of the forward's outputs, found by the names
    its static program gave them; a spec as long as the outputs keeps them all. eager
    saves every output, so only that case is accepted."""
    count = sum(1 for _ in output_leaves(outputs))
    if len(output_spec) != count:
        raise ValueError(f"{who}: argument 'output_spec' must list all {count} output Tensors of {what} "
                         f"(eager saves every output; a subset is not pruned), got {len(output_spec)}")


def _other_static_methods(layer):
    """(name, the bound StaticFunction) of each method of ``layer``'s class other than
    forward that is decorated with to_static, as Paddle's jit.save saves them."""
    seen, found = {"forward"}, []
    for klass in type(layer).__mro__:
        for name, value in vars(klass).items():
            if name not in seen and isinstance(value, StaticFunction):
                seen.add(name)
                found.append((name, getattr(layer, name)))
    return found


def _document_of(who, layer, target, what, input_spec):
    """(the program document, the saved state) of ``target`` (a Layer, or a function as a Layer)."""
    specs, how = _specs(who, layer, input_spec)
    declared = _declared_specs(layer) if input_spec is not None and how is False else None
    kept = None
    if declared is not None and len(specs) == len(declared):
        _check_compatible(who, specs, declared)
    elif declared is not None and len(specs) < len(declared):
        # As Paddle: the program of to_static's inputs, fed only those input_spec names.
        kept = _kept_inputs(who, specs, declared)
        given = dict(zip(kept, specs))
        specs = [given.get(i, spec) for i, spec in enumerate(declared)]
    _check_arity(who, layer, what, len(how) if isinstance(how, list) else len(specs))
    owner = getattr(target, "owner", None) if isinstance(target, _FunctionLayer) else None
    state_root = owner if owner is not None else target
    tree = None
    if isinstance(how, list):  # nested specs: the program takes their leaves
        tree, target = how, _Packed(target, how)
    if how == "call":
        # The last call's shapes, as Paddle saves its program; the batch left free where the
        # forward allows it (Paddle's program runs any batch: a script predicts one sample
        # with a model trained on batches), the call's exact shapes otherwise.
        # First every input's batch, then only those of rank 2 or more (a 1-D input beside
        # them is more often a bias or a mask than a batch of labels).
        tried = []
        for min_rank in (1, 2):
            free = _batch_free(specs, min_rank)
            if free == specs or free in tried:
                continue
            tried.append(free)
            try:
                return _save_program(who, layer, target, what, free, state_root, tree)
            except ValueError:
                pass
    document, state = _save_program(who, layer, target, what, specs, state_root, tree)
    if kept is None:
        return document, state
    # The traced program of every input shows which the outputs need; the saved one is
    # traced with the inputs left out made inside (their use in a loss stays, unread),
    # so its training programs take the given inputs only.
    _drop_inputs(who, what, document, kept)
    pruned = _Pruned(target, kept, specs)
    return _save_program(who, layer, pruned, what, [specs[i] for i in kept], state_root, tree)


def _declared_specs(layer):
    """The flat InputSpecs a Layer's to_static forward was given, or None."""
    forward = layer.forward if isinstance(layer, Layer) else None
    declared = forward._input_spec if isinstance(forward, StaticFunction) else None
    if declared and all(isinstance(spec, InputSpec) for spec in declared):
        return list(declared)
    return None


def _check_compatible(who, specs, declared):
    """ValueError, as Paddle's, where an input_spec disagrees with to_static's in dtype, rank or a fixed size."""
    for i, (spec, own) in enumerate(zip(specs, declared)):
        fits = spec.dtype == own.dtype and len(spec.shape) == len(own.shape) and all(
            a is None or b is None or a == b for a, b in zip(spec.shape, own.shape))
        if not fits:
            raise ValueError(f"{who}: input_spec[{i}] {spec} does not fit the forward's to_static input_spec[{i}] "
                             f"{own} (same dtype and rank; sizes equal where both are fixed)")


def _kept_inputs(who, specs, declared):
    """The positions in to_static's ``declared`` specs of the fewer ``specs`` given, by name."""
    names = [spec.name for spec in declared]
    kept = []
    for i, spec in enumerate(specs):
        if spec.name is None or spec.name not in names:
            raise ValueError(f"{who}: input_spec[{i}] {spec} leaves out inputs of the forward's to_static "
                             f"input_spec, so each given spec must name one of its inputs {names}")
        kept.append(names.index(spec.name))
    if len(set(kept)) != len(kept):
        raise ValueError(f"{who}: input_spec names an input of the to_static input_spec twice: {kept}")
    return kept


def _drop_inputs(who, what, document, kept):
    """ValueError when the inference program of ``document``, pruned to what its outputs
    need, reads an input not in ``kept``."""
    left = {i for i in range(len(document["inputs"])) if i not in kept}
    calls, outputs = document["calls"], document["outputs"]
    if not document["bumps"]:  # a program that writes into its state keeps every call
        calls, outputs = prune(calls, outputs)
    read = sorted(left & _inputs_read([calls, outputs]))
    if read:
        names = [document["inputs"][i]["name"] for i in read]
        raise ValueError(f"{who}: cannot save {what} without the inputs {names}: its outputs need them")


def _inputs_read(node, found=None):
    """The input positions ``{"in": i}`` that a JSON node refers to."""
    found = set() if found is None else found
    if type(node) is dict:
        if len(node) == 1 and "in" in node:
            found.add(node["in"])
        else:
            for value in node.values():
                _inputs_read(value, found)
    elif type(node) is list:
        for value in node:
            _inputs_read(value, found)
    return found


def _check_arity(who, layer, what, count):
    """A ValueError, as Paddle raises, when the forward cannot take ``count`` positional inputs."""
    forward = layer.forward if isinstance(layer, Layer) else layer
    try:
        signature = inspect.signature(forward)
    except (TypeError, ValueError):  # a callable without a readable signature: its call tells
        return
    try:
        signature.bind(*range(count))
    except TypeError as error:
        raise ValueError(f"{who}: {what} cannot take the {count} input(s) input_spec gives ({error}); give "
                         f"one InputSpec or Tensor per argument of {signature}") from None


def _save_program(who, layer, target, what, specs, state_root, tree):
    """(the document, the state) of ``target`` traced on ``specs``, as jit.save names it."""
    hint = ("" if isinstance(layer, Layer) else " (a function is saved without parameters: wrap it and "
            "the Layers it uses in a Layer)")
    name = type(layer).__name__ if isinstance(layer, Layer) else getattr(layer, "__name__", "function")
    state = _named_state(state_root)
    document = _build_document(target, specs, state, name, f"{who}: cannot save {what} as a program", hint)
    if tree is not None:
        document["input_tree"] = tree  # how a call's nested arguments hold the inputs
    return document, state


def write_program(target, path, specs, state, layer_name, failure, hint="", grad=True, edit=None) -> None:
    """Traces ``target``'s forward on inputs of ``specs`` and writes the program
    (``path + ".pdmodel"``) and the ``state`` tensors (``_named_state``'s list,
    ``path + ".pdiparams"``); ``layer_name`` is the document's "layer". Without
    ``grad`` only the inference program is written (no "grad" entry: a loaded
    TranslatedLayer runs it in every mode, without gradients). ``edit``, if
    given, may change the document before it is written (only the state
    entries it keeps are saved; a ProgramError it raises is reported as the
    trace's). A forward that cannot be traced raises ValueError: ``failure``,
    the reason, ``hint``; nothing is written then."""
    document = _build_document(target, specs, state, layer_name, failure, hint, grad)
    if edit is not None:
        try:
            edit(document)
        except ProgramError as error:
            raise ValueError(f"{failure}: {error}{hint}") from None
    _write(document, state, path)


def _write(document, state, path) -> None:
    """Writes ``document`` (``path + ".pdmodel"``) and the state tensors it names (``path + ".pdiparams"``)."""
    kept = {entry["name"] for entry in document["state"]}
    text = json.dumps(document, allow_nan=False, separators=(",", ":"))
    _save_state({name: t for name, t, *_ in state if name in kept}, path + PARAMS_SUFFIX)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    temporary = f"{path}{MODEL_SUFFIX}.tmp"
    with open(temporary, "w", encoding="utf-8") as stream:
        stream.write(text)
    os.replace(temporary, path + MODEL_SUFFIX)


def state_entries(state) -> list:
    """The document's "state" entries of ``_named_state``'s list (name, shape, dtype, kind, flags)."""
    return [{"name": name, "shape": list(t.shape), "dtype": t.impl.array.dtype.name, "kind": kind,
             "trainable": trainable, "persistable": persistable}
            for name, t, kind, trainable, persistable in state]


def _symbol_choices(specs, free: int) -> list:
    """The groupings of the ``free`` None sizes to trace with, loosest first: each
    its own dimension, those at the same axis position sharing one, the first axes
    sharing one and all others another (a batch and a sequence length: ids
    [None, None] beside an attention mask [None, 1, None, None]), all sharing one."""
    by_axis = {}
    axes = [by_axis.setdefault(axis, len(by_axis))
            for spec in specs for axis, size in enumerate(spec.shape) if size is None]
    first_rest = [0 if axis == 0 else 1 for spec in specs for axis, size in enumerate(spec.shape) if size is None]
    choices = [_first_seen([*range(free)]), _first_seen(axes), _first_seen(first_rest), [0] * free]
    return [c for i, c in enumerate(choices) if c not in choices[:i]]


def _first_seen(symbols):
    """``symbols`` renumbered in order of first appearance (one grouping, one list)."""
    order = {}
    return [order.setdefault(symbol, len(order)) for symbol in symbols]


def _build_document(target, specs, state, layer_name, failure, hint="", grad=True) -> dict:
    """The program document of ``target``'s forward traced on inputs of ``specs`` (see write_program)."""
    free = sum(size is None for spec in specs for size in spec.shape)
    if free > len(_TRACE_SIZES):
        raise ValueError(f"{failure}: input_spec leaves {free} sizes as None; at most {len(_TRACE_SIZES)}")
    modes = [(sub, sub.training) for sub in target.sublayers(include_self=True)]
    programs = {}
    try:
        target.eval()
        # Each None size its own dimension; where the forward cannot run so (two
        # inputs' batches meet in one op), one dimension per axis position (the
        # batches shared, a sequence length apart), and last one dimension shared
        # by every None size.
        for symbols in _symbol_choices(specs, free):
            try:
                traced = _traced_twice(lambda s, sizes: list(_trace(target, specs, s, sizes, state)), free,
                                       symbols)
            except ProgramError:
                raise
            except Exception:
                if free < 2 or len(set(symbols)) == 1:
                    raise
                continue
            break
        for key in GRAD_PROGRAMS if grad else ():
            mode, input_grads = key.split("/")[0], not key.endswith(PARAMS_ONLY)
            target.train() if mode == "train" else target.eval()
            try:
                programs[key] = _traced_twice(lambda s, sizes: _trace_grad(target, specs, s, sizes, state,
                                                                           input_grads), free, symbols)
            except ProgramError as error:
                programs[key] = {"reason": str(error)}
            except Exception as error:  # a forward that runs in eval mode only
                programs[key] = {"reason": f"the {mode}-mode forward failed ({type(error).__name__}: {error})"}
    except ProgramError as error:
        raise ValueError(f"{failure}: {error}{hint}") from None
    finally:
        for sub, training in modes:
            sub.training = training
    program, outputs, bumps = traced
    inputs, d = [], 0
    for spec in specs:
        shape = []
        for size in spec.shape:
            shape.append({"dim": symbols[d], "times": 1} if size is None else size)
            d += size is None
        inputs.append({"shape": shape, "dtype": spec.dtype.numpy_dtype.name, "name": spec.name,
                       "stop_gradient": spec.stop_gradient})
    document = {
        "format": FORMAT, "version": VERSION,
        "layer": layer_name, "inputs": inputs, "dims": len(set(symbols)),
        "state": state_entries(state), "calls": program, "outputs": outputs, "bumps": bumps,
    }
    if grad:
        document["grad"] = programs
    return document


__all__ = ["GRAD_MODES", "GRAD_PROGRAMS", "PARAMS_ONLY", "check_path", "pack_inputs", "record_forward", "save",
           "state_entries", "write_program"]
