"""``eager.jit.save`` / ``eager.jit.load`` and the TranslatedLayer that load returns.

``save(layer, path, input_spec)`` traces the layer's forward in eval mode under
no_grad (the kernel recorder of to_static) and writes two files:

- ``path + ".pdmodel"``: the kernel program as JSON (program.py's format: each
  phi kernel by name, its attributes, where each array argument comes from,
  its results' shapes and dtypes), with the inputs' specs, the parameters' and
  buffers' names, shapes and dtypes, and how to assemble the outputs;
- ``path + ".pdiparams"``: the parameters and buffers, as :func:`eager.save`
  writes them (safetensors, keyed by structured name).

``load(path)`` reads both, checks them against each other and against phi
(every kernel must exist, every parameter must have the shape and dtype the
program names) and returns a :class:`TranslatedLayer`: a Layer holding the
parameters under the original structured names, whose forward runs the
program. Nothing is unpickled and no code is imported from the files.

>>> net = eager.nn.Sequential(eager.nn.Linear(4, 3), eager.nn.ReLU())
>>> eager.jit.save(net, "/tmp/net", input_spec=[InputSpec([None, 4], "float32")])
>>> loaded = eager.jit.load("/tmp/net")
>>> loaded(eager.ones([2, 4])).shape
[2, 3]
"""
from __future__ import annotations

import json
import os

import numpy as np

from phi.core import DenseTensor

from ..autograd.grad_mode import no_grad
from ..creation import to_tensor
from ..nn.layer import Layer, Parameter
from ..serialization import load as _load_state
from ..serialization import save as _save_state
from ..tensor import Tensor
from . import recorder as _recorder
from .input_spec import InputSpec
from .program import FORMAT, VERSION, ProgramError, decode, encode, resolve, unify
from .static_function import StaticFunction
from .trace import build

MODEL_SUFFIX = ".pdmodel"
PARAMS_SUFFIX = ".pdiparams"
# The sizes a None dimension is traced with (two traces, unified): primes, so that
# a size that happens to equal another dimension is unlikely.
_TRACE_SIZES = ((7, 11), (13, 17), (19, 23), (29, 31), (37, 41), (43, 47))


def _check_path(who: str, path) -> str:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{who}: argument 'path' expected a str path prefix (dirname/file_prefix), got "
                        f"{type(path).__name__}")
    path = os.fspath(path)
    if not os.path.basename(path):
        raise ValueError(f"{who}: argument 'path' must be dirname/file_prefix, got {path!r}, whose file "
                         f"prefix is empty")
    return path


def _specs(layer, input_spec):
    if input_spec is None:
        forward = layer.forward
        input_spec = forward._input_spec if isinstance(forward, StaticFunction) else None
        if input_spec is None:
            raise ValueError("eager.jit.save: argument 'input_spec' is needed (a list of InputSpec or "
                             "example Tensors): eager traces the forward, so it must know the inputs' "
                             "shapes and dtypes")
    if not isinstance(input_spec, (list, tuple)):
        raise TypeError(f"eager.jit.save: argument 'input_spec' expected a list or tuple of InputSpec or "
                        f"Tensor, got {type(input_spec).__name__}")
    specs = []
    for i, spec in enumerate(input_spec):
        if isinstance(spec, Tensor):
            spec = InputSpec.from_tensor(spec)
        if not isinstance(spec, InputSpec):
            raise TypeError(f"eager.jit.save: input_spec[{i}] expected an InputSpec or a Tensor, got "
                            f"{type(spec).__name__}")
        specs.append(spec)
    return specs


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


def _trace(layer, specs, symbols, sizes, state):
    """One trace of ``layer``'s forward for ``specs`` (the i-th None size is
    ``sizes[symbols[i]]``): (the JSON program, outputs template, bumps)."""
    inputs, d = [], 0
    for spec in specs:
        shape = []
        for size in spec.shape:
            if size is None:
                shape.append(sizes[symbols[d]])
                d += 1
            else:
                shape.append(size)
        inputs.append(to_tensor(np.ones(shape, dtype=spec.dtype.numpy_dtype)))
    located = {id(t.impl.array): t.impl.array for _, t, *_ in state}
    name_of = {id(t.impl.array): name for name, t, *_ in state}
    rec = _recorder.Recorder([t.impl for t in inputs], located)
    _recorder.start(rec)
    try:
        with no_grad():
            result = layer(*inputs)
    finally:
        _recorder.stop()
    if rec.reason is not None:
        raise ProgramError(rec.reason)
    state_of_slot = {slot: name_of[id(array)] for slot, array in rec.externals}
    program = encode(rec.calls, len(inputs), state_of_slot)
    slots = {}
    for index, call in enumerate(rec.calls):
        flat = []
        _flat_slots(call.outs, flat)
        for j, slot in enumerate(flat):
            slots[slot] = {"call": index, "out": j}
    outputs = _outputs(result, rec, inputs, name_of, slots)
    bumps = sorted([name_of[id(impl.array)], count] for impl, count in rec.bumps.values())
    return program, outputs, bumps


def _flat_slots(outs, flat):
    if outs[0] == "a":
        flat.append(outs[1])
    elif outs[0] == "l":
        for o in outs[2]:
            _flat_slots(o, flat)


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


def save(layer, path, input_spec=None, **configs) -> None:
    """Saves ``layer``'s forward as a kernel program and its parameters (Paddle's
    ``paddle.jit.save``): ``path + ".pdmodel"`` (JSON) and ``path + ".pdiparams"``
    (safetensors). ``input_spec`` lists the inputs (InputSpec or example
    Tensors; a None size, such as the batch, stays free in the program); None
    takes the ``input_spec`` given to ``to_static`` on the forward. The forward
    is traced in eval mode under no_grad (the layer's modes are restored
    afterwards): the saved program is for inference. See docs/jit.md.

    >>> eager.jit.save(net, "out/mlp", input_spec=[InputSpec([None, 784], "float32")])
    """
    who = "eager.jit.save"
    if not isinstance(layer, Layer):
        raise TypeError(f"{who}: argument 'layer' expected an eager.nn.Layer, got {type(layer).__name__} "
                        f"(wrap a function in a Layer to save it)")
    path = _check_path(who, path)
    if configs:
        raise ValueError(f"{who}: the configs {sorted(configs)} are not supported (Paddle's output_spec, "
                         f"clip_extra, ... change a static program eager does not build)")
    specs = _specs(layer, input_spec)
    free = sum(size is None for spec in specs for size in spec.shape)
    if free > len(_TRACE_SIZES):
        raise ValueError(f"{who}: input_spec leaves {free} sizes as None; at most {len(_TRACE_SIZES)}")
    state = _named_state(layer)
    modes = [(sub, sub.training) for sub in layer.sublayers(include_self=True)]
    try:
        layer.eval()
        # Each None size its own dimension; where the forward cannot run so (two
        # inputs' batches meet in one op), one dimension shared by every None size.
        for symbols in ([*range(free)], [0] * free):
            count = len(set(symbols))
            first, second = [a for a, _ in _TRACE_SIZES[:count]], [b for _, b in _TRACE_SIZES[:count]]
            try:
                traced = _trace(layer, specs, symbols, first, state)
            except ProgramError:
                raise
            except Exception:
                if free < 2 or count == 1:
                    raise
                continue
            if free:
                other = _trace(layer, specs, symbols, second, state)
                traced = unify(list(traced), list(other), first, second)
            break
    except ProgramError as error:
        raise ValueError(f"{who}: cannot save {type(layer).__name__}.forward as a program: {error}") from None
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
        inputs.append({"shape": shape, "dtype": spec.dtype.numpy_dtype.name, "name": spec.name})
    document = {
        "format": FORMAT, "version": VERSION, "layer": type(layer).__name__,
        "inputs": inputs, "dims": len(set(symbols)),
        "state": [{"name": name, "shape": list(t.shape), "dtype": t.impl.array.dtype.name, "kind": kind,
                   "trainable": trainable, "persistable": persistable}
                  for name, t, kind, trainable, persistable in state],
        "calls": program, "outputs": outputs, "bumps": bumps,
    }
    text = json.dumps(document, allow_nan=False, separators=(",", ":"))
    _save_state({name: t for name, t, *_ in state}, path + PARAMS_SUFFIX)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    temporary = f"{path}{MODEL_SUFFIX}.tmp"
    with open(temporary, "w", encoding="utf-8") as stream:
        stream.write(text)
    os.replace(temporary, path + MODEL_SUFFIX)


class _Holder(Layer):
    """A sublayer of a TranslatedLayer that only holds parameters and buffers
    under their original structured names."""

    def forward(self, *inputs):
        raise RuntimeError("a TranslatedLayer's inner layer holds parameters only; call the TranslatedLayer")


class TranslatedLayer(Layer):
    """A Layer that runs a program saved by :func:`save` (Paddle's
    ``paddle.jit.TranslatedLayer``); made by :func:`load`. Its parameters and
    buffers keep the saved layer's structured names (``state_dict()`` keys
    match), ``train()``/``eval()`` set its mode, and ``forward`` runs the
    saved inference program: outputs carry no graph."""

    def __init__(self, programs, persistable_vars):
        super().__init__()
        self._document = programs
        self._state = []  # the tensors in the program's state order
        for entry, tensor in zip(programs["state"], persistable_vars):
            *path, leaf = entry["name"].split(".")
            holder = self
            for part in path:
                child = holder._sub_layers.get(part)
                if child is None:
                    child = _Holder()
                    holder.add_sublayer(part, child)
                holder = child
            if entry["kind"] == "parameter":
                param = Parameter(tensor, trainable=bool(entry["trainable"]))
                holder.add_parameter(leaf, param)
                self._state.append(param)
            else:
                holder.register_buffer(leaf, tensor, persistable=bool(entry["persistable"]))
                self._state.append(tensor)
        self._state_index = {entry["name"]: i for i, entry in enumerate(programs["state"])}
        self._compiled = {}

    def _program(self, dims, array_type):
        key = (tuple(dims), array_type)
        compiled = self._compiled.get(key)
        if compiled is None:
            document = self._document
            names = {entry["name"]: len(document["inputs"]) + i for i, entry in enumerate(document["state"])}
            calls, result_slots = decode(resolve(document["calls"], dims), len(document["inputs"]), names,
                                         array_type)
            outputs = resolve(document["outputs"], dims)
            wanted = []
            _output_slots(outputs, result_slots, wanted)
            slot_types = {slot: array_type for slots in result_slots for slot in slots}
            n_bound = len(document["inputs"]) + len(document["state"])
            run = build(calls, list(range(n_bound)), [], wanted, slot_types)
            compiled = self._compiled[key] = (run, outputs)
        return compiled

    def forward(self, *inputs):
        document = self._document
        specs = document["inputs"]
        if len(inputs) != len(specs):
            raise TypeError(f"TranslatedLayer.forward: the saved program takes {len(specs)} input(s), got "
                            f"{len(inputs)}")
        dims = [None] * document["dims"]
        for i, (value, spec) in enumerate(zip(inputs, specs)):
            if not isinstance(value, Tensor):
                raise TypeError(f"TranslatedLayer.forward: input {i} expected a Tensor, got {type(value).__name__}")
            shape = tuple(value.shape)
            ok = len(shape) == len(spec["shape"]) and value.impl.array.dtype.name == spec["dtype"]
            for size, want in zip(shape, spec["shape"]) if ok else ():
                if type(want) is dict:
                    d = want["dim"]
                    dims[d] = size if dims[d] is None else dims[d]
                    ok = ok and dims[d] == size
                else:
                    ok = ok and size == want
            if not ok:
                expected = [None if type(s) is dict else s for s in spec["shape"]]
                raise ValueError(f"TranslatedLayer.forward: input {i} expected {spec['dtype']}{expected} "
                                 f"(None: any size, the same wherever the spec shares it), got "
                                 f"{value.impl.array.dtype.name}{list(shape)}")
        arrays = [t.impl.array for t in inputs] + [t.impl.array for t in self._state]
        array_type = type(arrays[0])
        if any(type(a) is not array_type for a in arrays):
            raise ValueError("TranslatedLayer.forward: the inputs and the parameters are on different "
                             "devices; move them to one place")
        run, outputs = self._program(dims, array_type)
        results = run(arrays)
        for name, count in document["bumps"]:  # a buffer the program writes in place (none in eval)
            impl = self._state[self._state_index[name]].impl
            for _ in range(count):
                impl.bump_version()
        return _assemble(outputs, list(results), inputs, self)


def _output_slots(node, result_slots, wanted):
    if type(node) is dict:
        if "call" in node:
            wanted.append(result_slots[node["call"]][node["out"]])
        for key in ("tuple", "list"):
            for v in node.get(key, ()):
                _output_slots(v, result_slots, wanted)
        for _, v in node.get("dict", ()):
            _output_slots(v, result_slots, wanted)


def _assemble(node, results, inputs, layer):
    if "call" in node:
        return Tensor(DenseTensor(results.pop(0)))
    if "in" in node:
        return inputs[node["in"]]
    if "state" in node:
        return layer._state[layer._state_index[node["state"]]]
    if "const" in node:
        return node["const"]
    if "tuple" in node:
        return tuple(_assemble(v, results, inputs, layer) for v in node["tuple"])
    if "list" in node:
        return [_assemble(v, results, inputs, layer) for v in node["list"]]
    return {k: _assemble(v, results, inputs, layer) for k, v in node["dict"]}


def load(path, **configs) -> TranslatedLayer:
    """Loads what :func:`save` wrote at ``path`` (the same prefix) as a
    :class:`TranslatedLayer` (Paddle's ``paddle.jit.load``). Raises ValueError
    when the program names a kernel this phi lacks, or its parameters file
    does not hold the parameters the program names with their shapes and
    dtypes; FileNotFoundError when a file is missing.

    >>> layer = eager.jit.load("out/mlp")
    >>> layer.eval()(x)
    """
    who = "eager.jit.load"
    path = _check_path(who, path)
    if configs:
        raise ValueError(f"{who}: the configs {sorted(configs)} are not supported (Paddle's "
                         f"model_filename and params_filename name Paddle 1.x files)")
    model_file = path + MODEL_SUFFIX
    try:
        with open(model_file, encoding="utf-8") as stream:
            document = json.load(stream)
    except FileNotFoundError:
        raise FileNotFoundError(f"{who}: no program at {model_file!r} (save writes path + "
                                f"{MODEL_SUFFIX!r} and {PARAMS_SUFFIX!r})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{who}: {model_file!r} is not a program eager.jit.save wrote ({error})") from None
    if type(document) is not dict or document.get("format") != FORMAT:
        raise ValueError(f"{who}: {model_file!r} is not a program eager.jit.save wrote")
    if document.get("version") != VERSION:
        raise ValueError(f"{who}: {model_file!r} has program version {document.get('version')!r}; this "
                         f"eager reads version {VERSION}")
    for key in ("inputs", "dims", "state", "calls", "outputs", "bumps"):
        if key not in document:
            raise ValueError(f"{who}: {model_file!r} lacks its {key!r} entry")
    state = _load_state(path + PARAMS_SUFFIX, return_numpy=True)
    try:
        return _translated(who, path, document, state)
    except ProgramError as error:
        raise ValueError(f"{who}: {model_file!r}: {error}") from None
    except (KeyError, IndexError, TypeError, AttributeError) as error:  # an entry missing or of another type
        raise ValueError(f"{who}: {model_file!r} is not a well-formed program ({type(error).__name__}: "
                         f"{error})") from None


def _translated(who, path, document, state):
    """The TranslatedLayer of a parsed program and its parameters, checked
    against each other, with every kernel bound once (so a program naming an
    unknown kernel fails at load, not at its first call)."""
    tensors = []
    for entry in document["state"]:
        name = entry["name"]
        if name not in state:
            raise ProgramError(f"the program reads {name!r}, which {path + PARAMS_SUFFIX!r} lacks")
        array = state[name]
        if list(array.shape) != list(entry["shape"]) or array.dtype.name != entry["dtype"]:
            raise ProgramError(f"{name!r} is {array.dtype.name}{list(array.shape)} in "
                               f"{path + PARAMS_SUFFIX!r}, but the program expects "
                               f"{entry['dtype']}{list(entry['shape'])}")
        tensors.append(to_tensor(array))
    layer = TranslatedLayer(document, tensors)
    layer._program([1] * document["dims"], type(tensors[0].impl.array) if tensors else np.ndarray)
    layer._compiled.clear()
    return layer


__all__ = ["InputSpec", "TranslatedLayer", "load", "save"]
