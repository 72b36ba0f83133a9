"""``eager.jit.load`` and the TranslatedLayer it returns.

``load(path)`` reads what :func:`eager.jit.save` wrote (save.py), checks the
program against its parameters file and against phi (every kernel must exist,
every parameter must have the shape and dtype the program names) and returns a
:class:`TranslatedLayer`: a Layer holding the parameters under the original
structured names, whose forward runs the programs. Nothing is unpickled and no
code is imported from the files.

A TranslatedLayer can be fine-tuned, as Paddle's: in eval mode without
gradients it runs the inference program; otherwise the program of its mode
traced with gradients, whose outputs share one grad node
(:class:`~eager.jit.backward.ReplayGradNode`) that runs the recorded backward
for the outputs whose gradients arrive and hands the engine the gradients of
the inputs and parameters: ``loss.backward()`` fills the parameters' ``.grad``
as eager would, and an optimizer trains them.

>>> net = eager.nn.Sequential(eager.nn.Linear(4, 3), eager.nn.ReLU())
>>> eager.jit.save(net, "/tmp/net", input_spec=[InputSpec([None, 4], "float32")])
>>> loaded = eager.jit.load("/tmp/net")
>>> loaded(eager.ones([2, 4])).shape
[2, 3]
"""
from __future__ import annotations

import json

import numpy as np

from phi.core import DenseTensor

from ..autograd.accumulation import edge_of
from ..autograd.grad_mode import STATE
from ..autograd.meta import AutogradMeta
from ..autograd.node import GradNodeBase
from ..creation import to_tensor
from ..errors import AutogradError, ModelNotFoundError
from ..nn.layer import Layer, Parameter
from ..serialization import load as _load_state
from ..tensor import Tensor
from . import recorder as _recorder
from .backward import ReplayGradNode
from .input_spec import InputSpec
from .program import FORMAT, MODEL_SUFFIX, PARAMS_SUFFIX, VERSIONS, ProgramError, decode, output_leaves, resolve
from .save import GRAD_MODES, GRAD_PROGRAMS, PARAMS_ONLY, check_path, save
from .trace import build, read_slots


class _Holder(Layer):
    """A sublayer of a TranslatedLayer that only holds parameters and buffers
    under their original structured names."""

    def forward(self, *inputs):
        raise RuntimeError("a TranslatedLayer's inner layer holds parameters only; call the TranslatedLayer")


class _Compiled:
    """One program compiled for one size of the None dimensions and one array
    type: ``run(inputs + state arrays)`` gives the outputs' arrays (by
    provenance key, in ``keys`` order) and then the ``saved`` arrays the backward
    programs read; ``grad`` is None for a program without a backward, else
    (the grad outputs' keys, the backward programs by mask, the boundaries,
    the saved slots)."""

    __slots__ = ("run", "outputs", "keys", "output_slots", "bumps", "grad", "saved_slots", "n_bound",
                 "unrecorded")


def _key(node):
    return (node["call"], node["out"])


# The key of a TranslatedLayer's internals in its __dict__: a name with a '.',
# which no parameter, buffer or sublayer can have (Layer refuses it), so a saved
# layer's own members (FakeQuantMovingAverageAbsMax's ``_state``, ...) never
# collide with them, and each keeps its attribute name on the loaded layer.
_INTERNALS = "translated.program"


class _Program:
    """What a TranslatedLayer runs: the saved ``document``, the ``state``
    tensors in the program's state order, ``index`` (state name -> position)
    and the ``compiled`` programs by (dims, array type, mode)."""

    __slots__ = ("document", "state", "index", "compiled")

    def __init__(self, document):
        self.document = document
        self.state = []
        self.index = {entry["name"]: i for i, entry in enumerate(document["state"])}
        self.compiled = {}


def program_of(layer) -> _Program:
    """The internals (:class:`_Program`) of TranslatedLayer ``layer``."""
    return layer.__dict__[_INTERNALS]


class TranslatedLayer(Layer):
    """A Layer that runs the programs saved by :func:`eager.jit.save` (Paddle's
    ``paddle.jit.TranslatedLayer``); made by :func:`load`. Its parameters and
    buffers keep the saved layer's structured names (``state_dict()`` keys
    match) and are trainable Parameters. In eval mode without gradients
    (``no_grad``, or nothing requiring one) ``forward`` runs the inference
    program; otherwise the program of its mode (train: dropout draws, batch
    norm updates its running statistics) traced with gradients, whose outputs
    carry a grad node running the recorded backward, so the layer can be
    fine-tuned and saved again.

    >>> layer = eager.jit.load("out/mlp")
    >>> opt = eager.optimizer.SGD(0.1, parameters=layer.parameters())
    >>> loss = layer(x).mean(); loss.backward(); opt.step()
    """

    def __init__(self, programs, persistable_vars):
        super().__init__()
        # Everything of its own lives in one object under a key no member name can
        # take (see _INTERNALS), and its helpers are module functions: the saved
        # layer's parameters, buffers and sublayers keep all their names.
        program = self.__dict__[_INTERNALS] = _Program(programs)
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
                program.state.append(param)
            else:
                holder.register_buffer(leaf, tensor, persistable=bool(entry["persistable"]))
                program.state.append(tensor)

    # Paddle's private accessors (underscored: no saved layer's member takes their names).
    def _input_spec(self, method_name="forward"):
        """The saved program's inputs as InputSpecs (a None size is free), in order."""
        return [_spec(meta, meta.get("name")) for meta in _section(self, method_name, "_input_spec")["inputs"]]

    def _output_spec(self, method_name="forward"):
        """The saved program's output tensors as InputSpecs (shape and dtype), flattened in order."""
        return _output_specs(_section(self, method_name, "_output_spec"))

    def forward(self, *inputs):
        program = program_of(self)
        document = program.document
        specs = document["inputs"]
        tree = document.get("input_tree")
        if tree is not None:  # saved from nested input specs: their leaves, in order
            tree = [node for node in tree if "const" not in node]  # constants are in the program
            if len(inputs) != len(tree):
                raise TypeError(f"TranslatedLayer.forward: the saved program takes {len(tree)} argument(s), got "
                                f"{len(inputs)}")
            flat = [None] * len(specs)
            for i, (value, node) in enumerate(zip(inputs, tree)):
                _flatten_input(value, node, f"argument {i}", flat)
            inputs = tuple(flat)
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
        arrays = [t.impl.array for t in inputs] + [t.impl.array for t in program.state]
        array_type = type(arrays[0])
        if any(type(a) is not array_type for a in arrays):
            raise ValueError("TranslatedLayer.forward: the inputs and the parameters are on different "
                             "devices; move them to one place")
        mode, wanted = _mode(self, program, inputs)
        compiled = _program_for(program, dims, array_type, mode)
        results = compiled.run(arrays)
        bump_written(compiled, program.state, program.index)
        n_out = len(compiled.keys)
        made = made_tensors(compiled, results)
        if compiled.grad is not None and wanted:
            _attach(program, compiled, inputs, made, results[n_out:])
        elif compiled.unrecorded is not None and wanted:
            keys, reason = compiled.unrecorded
            node = _UnrecordedGradNode(len(keys), reason)
            for slot, key in enumerate(keys):
                made[key]._meta = AutogradMeta(node, slot)
        return assemble(compiled.outputs, made, inputs, program.state, program.index)


def _section(layer, method_name, who):
    """The document of ``layer``'s saved ``method_name`` (forward, or a saved to_static method)."""
    document = program_of(layer).document
    if method_name == "forward":
        return document
    methods = document.get("methods", {})
    if method_name not in methods:
        raise ValueError(f"{who}: argument 'method_name' expected one of {['forward', *methods]}, got "
                         f"{method_name!r}")
    return methods[method_name]


def _spec(meta, name=None):
    return InputSpec([None if type(size) is dict else size for size in meta["shape"]], meta["dtype"], name)


def _array_results(outs, found=None):
    """A call entry's array results ({"shape", "dtype"}), in the order "out" counts them."""
    found = [] if found is None else found
    if type(outs) is dict and ("tuple" in outs or "list" in outs):
        for value in outs.get("tuple", outs.get("list")):
            _array_results(value, found)
    elif outs is not None:
        found.append(outs)
    return found


def _output_specs(section):
    """InputSpecs (shape and dtype) of a program section's output tensors, flattened in order."""
    state = {entry["name"]: entry for entry in section["state"]}
    specs = []
    for node in output_leaves(section["outputs"]):
        if "call" in node:
            specs.append(_spec(_array_results(section["calls"][node["call"]]["outs"])[node["out"]]))
        elif "in" in node:
            specs.append(_spec(section["inputs"][node["in"]]))
        else:
            specs.append(_spec(state[node["state"]]))
    return specs


def _program_for(program, dims, array_type, mode=None):
    """The compiled inference program (mode None) or gradient program of
    ``mode``; compiled afresh (not kept) while a to_static or save trace
    records, whose kernels are the dispatch tables' recording entries."""
    key = (tuple(dims), array_type, mode)
    recording = _recorder._mine() is not None
    compiled = None if recording else program.compiled.get(key)
    if compiled is None:
        compiled = compile_program(program.document, dims, array_type, mode)
        if not recording:
            program.compiled[key] = compiled
    return compiled


def _mode(layer, program, inputs):
    """(None for the inference program or the mode whose gradient program
    runs, whether a gradient is wanted); raises for a gradient the saved
    programs cannot give."""
    document = program.document
    grad = document.get("grad")
    input_grads = STATE.enabled and any(not t.stop_gradient for t in inputs)
    wanted = input_grads or STATE.enabled and any(not t.stop_gradient for t in program.state)
    if grad is None or not (wanted or layer.training):
        return None, False  # a version 1 program (inference only), or eval mode without gradients
    mode = GRAD_MODES[0] if layer.training else GRAD_MODES[1]
    if not input_grads and mode + PARAMS_ONLY in grad:  # no input's gradient to compute
        mode += PARAMS_ONLY
    section = grad[mode]
    if "calls" not in section:
        raise ValueError(f"TranslatedLayer.forward: the saved program has no {mode.split('/')[0]}-mode "
                         f"forward (save could not trace it: {section['reason']})" +
                         ("; call eval() for inference" if layer.training else ""))
    if wanted:
        for i, (t, spec) in enumerate(zip(inputs, document["inputs"])):
            if not t.stop_gradient and spec.get("stop_gradient", False):
                raise ValueError(f"TranslatedLayer.forward: input {i} requires a gradient, but was "
                                 f"saved with InputSpec(stop_gradient=True): its program gives it none")
        for t, entry in zip(program.state, document["state"]):
            if not t.stop_gradient and entry["kind"] == "parameter" and not entry["trainable"]:
                raise ValueError(f"TranslatedLayer.forward: parameter {entry['name']!r} requires a "
                                 f"gradient, but was saved frozen (stop_gradient=True): its program "
                                 f"gives it none")
    return mode, wanted


def _attach(program, compiled, inputs, made, saved):
    """Gives the gradient outputs one ReplayGradNode."""
    grad_keys, programs, boundaries = compiled.grad
    outputs = [made.get(key) for key in grad_keys]
    if any(out is None for out in outputs) or len(set(map(id, outputs))) != len(outputs):
        raise ValueError("TranslatedLayer.forward: the saved program's gradient outputs are not among "
                         "its outputs (a malformed program)")
    edges = []
    for node in boundaries:
        tensor = inputs[node["in"]] if "in" in node else program.state[program.index[node["state"]]]
        edges.append((edge_of(tensor),))
    # What the backward reads that the user could write in place before it runs:
    # the inputs, parameters and buffers, and the returned outputs (not the
    # forward's intermediate arrays, which no one else holds).
    n_inputs, n_bound = len(inputs), compiled.n_bound
    read = set(compiled.saved_slots)
    checks = []
    for slot in compiled.saved_slots:
        if slot < n_inputs:
            checks.append(inputs[slot].impl)
        elif slot < n_bound:
            checks.append(program.state[slot - n_inputs].impl)
    for key, out in made.items():
        if compiled.output_slots[key] in read:
            checks.append(out.impl)
    node = ReplayGradNode(tuple(edges), len(outputs), programs, tuple(saved),
                          tuple((impl, impl.version) for impl in checks), _refuse_create_graph)
    for slot, out in enumerate(outputs):
        out._meta = AutogradMeta(node, slot)


def compile_program(document, dims, array_type, mode=None) -> _Compiled:
    """The program of a saved document (``eager.jit.save``'s format) compiled for
    the sizes ``dims`` of its None dimensions and ``array_type``: the inference
    program (``mode`` None) or the gradient program of ``mode``. Its ``run``
    takes the input arrays followed by the state arrays in the document's
    state order."""
    n_inputs = len(document["inputs"])
    names = {entry["name"]: n_inputs + i for i, entry in enumerate(document["state"])}
    n_bound = n_inputs + len(names)
    if mode is None:
        section = {key: resolve(document[key], dims) for key in ("calls", "outputs", "bumps")}
        section["grad_outputs"], section["backward"] = [], None
    else:
        section = resolve(document["grad"][mode], dims)
    grad_outputs = section["grad_outputs"]
    seeds = len(grad_outputs)
    calls, made = decode(section["calls"], n_inputs, names, array_type, seeds)
    compiled = _Compiled()
    compiled.outputs = section["outputs"]
    compiled.bumps = section["bumps"]
    compiled.n_bound = n_bound
    keys = [_key(node) for node in output_leaves(compiled.outputs) if "call" in node]
    compiled.keys = keys
    wanted = [made[c][j] for c, j in keys]
    compiled.output_slots = dict(zip(keys, wanted))
    slot_types = {slot: array_type for slots in made for slot in slots}
    compiled.grad = None
    compiled.saved_slots = []
    compiled.unrecorded = None
    if mode is not None and section["backward"] is None:  # save could not record it: say so at backward
        compiled.unrecorded = ([_key(node) for node in grad_outputs], section["reason"])
    if section["backward"]:
        first_seed = n_bound
        produced = {slot for slots in made for slot in slots}
        programs, saved = {}, []
        for entry in section["backward"]:
            every, results = decode(section["calls"] + entry["calls"], n_inputs, names, array_type, seeds)
            backward = every[len(calls):]
            for slot in read_slots(backward):
                if (slot < n_bound or slot in produced) and slot not in saved:
                    saved.append(slot)
            programs[tuple(entry["mask"])] = (backward, results, entry)
        compiled.saved_slots = saved
        built = {}
        for mask, (backward, results, entry) in programs.items():
            seed_slots = [first_seed + k for k, wanted_ in enumerate(mask) if wanted_]
            where = [None if node is None else first_seed + node["seed"] if "seed" in node
                     else results[node["call"]][node["out"]] for node in entry["results"]]
            types_ = {slot: array_type for slots in results[len(calls):] for slot in slots}
            built[mask] = build(backward, saved + seed_slots, [], where, types_)
        compiled.grad = ([_key(node) for node in grad_outputs], built, section["boundaries"])
    compiled.run = build(calls, list(range(n_bound)), [], wanted + compiled.saved_slots, slot_types)
    return compiled


def _flatten_input(value, node, where, flat):
    """Puts the Tensors of ``value`` into ``flat`` where the saved tree ``node`` says;
    TypeError where ``value`` is not shaped as the specs were."""
    if "spec" in node:
        flat[node["spec"]] = value
        return
    if "dict" in node:
        keys = [k for k, _ in node["dict"]]
        if not isinstance(value, dict) or sorted(value) != sorted(keys):
            got = sorted(value) if isinstance(value, dict) else type(value).__name__
            raise TypeError(f"TranslatedLayer.forward: {where} expected a dict with keys {keys}, as its input "
                            f"spec, got {got}")
        for k, child in node["dict"]:
            _flatten_input(value[k], child, f"{where}[{k!r}]", flat)
        return
    children = node.get("list", node.get("tuple"))
    if not isinstance(value, (list, tuple)) or len(value) != len(children):
        got = f"{type(value).__name__} of {len(value)}" if isinstance(value, (list, tuple)) else type(value).__name__
        raise TypeError(f"TranslatedLayer.forward: {where} expected a list or tuple of {len(children)}, as its "
                        f"input spec, got {got}")
    for i, (item, child) in enumerate(zip(value, children)):
        _flatten_input(item, child, f"{where}[{i}]", flat)


class _UnrecordedGradNode(GradNodeBase):
    """The grad node of a TranslatedLayer's outputs whose backward save could
    not record: the forward runs, a backward through it raises naming why."""

    __slots__ = ("reason",)
    backward_op = "to_static_grad"
    forward_op = "to_static"

    def __init__(self, num_grad_slots, reason):
        super().__init__(())
        self.num_grad_slots = num_grad_slots
        self.reason = reason

    def apply(self, grads, create_graph: bool):
        raise AutogradError(f"{self.backward_op}: backward through the output of a TranslatedLayer whose "
                            f"saved program has no backward (save could not record it: {self.reason})")


def _refuse_create_graph():
    raise AutogradError("to_static_grad: backward with create_graph=True through the output of a "
                        "TranslatedLayer: its saved backward program is not differentiable. Build the "
                        "model in Python and load its state_dict for double backward.")


def bump_written(compiled, state, index) -> None:
    """Bumps the version of each of the ``state`` tensors (in the program's state
    order, found by name through ``index``) that the program wrote in place
    (batch norm's running statistics in train mode), once per write."""
    for name, count in compiled.bumps:
        impl = state[index[name]].impl
        for _ in range(count):
            impl.bump_version()


def made_tensors(compiled, results) -> dict:
    """The program's output arrays (the first of ``results``) as Tensors, by output key."""
    made = {}
    for key, array in zip(compiled.keys, results[:len(compiled.keys)]):
        if key not in made:
            made[key] = Tensor(DenseTensor(array))
    return made


def assemble(node, made, inputs, state, index):
    """The forward's return value rebuilt from the saved outputs template ``node``:
    Tensors the program made (``made``), inputs, the ``state`` tensors (found by
    name through ``index``), constants."""
    if "call" in node:
        return made[_key(node)]
    if "in" in node:
        return inputs[node["in"]]
    if "state" in node:
        return state[index[node["state"]]]
    if "const" in node:
        return node["const"]
    if "tuple" in node:
        return tuple(assemble(v, made, inputs, state, index) for v in node["tuple"])
    if "list" in node:
        return [assemble(v, made, inputs, state, index) for v in node["list"]]
    return {k: assemble(v, made, inputs, state, index) for k, v in node["dict"]}


def load(path, **configs) -> TranslatedLayer:
    """Loads what :func:`save` wrote at ``path`` (the same prefix) as a
    :class:`TranslatedLayer` (Paddle's ``paddle.jit.load``). Raises ValueError
    when the program names a kernel this phi lacks, or its parameters file
    does not hold the parameters the program names with their shapes and
    dtypes; FileNotFoundError when a file is missing. The layer starts in eval
    mode, as Paddle's: call ``train()`` before fine-tuning it.

    >>> layer = eager.jit.load("out/mlp")
    >>> layer(x)                   # inference
    >>> layer.train()              # to fine-tune
    """
    who = "eager.jit.load"
    path = check_path(who, path)
    if configs:
        raise ValueError(f"{who}: the configs {sorted(configs)} are not supported (Paddle's "
                         f"model_filename and params_filename name Paddle 1.x files)")
    model_file = path + MODEL_SUFFIX
    try:
        with open(model_file, encoding="utf-8") as stream:
            document = json.load(stream)
    except FileNotFoundError:
        raise ModelNotFoundError(f"{who}: no program at {model_file!r} (save writes path + "
                                 f"{MODEL_SUFFIX!r} and {PARAMS_SUFFIX!r})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{who}: {model_file!r} is not a program eager.jit.save wrote ({error})") from None
    if type(document) is not dict or document.get("format") != FORMAT:
        raise ValueError(f"{who}: {model_file!r} is not a program eager.jit.save wrote")
    if document.get("version") not in VERSIONS:
        raise ValueError(f"{who}: {model_file!r} has program version {document.get('version')!r}; this "
                         f"eager reads versions {', '.join(map(str, VERSIONS))}")
    if document["version"] == 1:
        document.pop("grad", None)  # inference only
    for key in ("inputs", "dims", "state", "calls", "outputs", "bumps"):
        if key not in document:
            raise ValueError(f"{who}: {model_file!r} lacks its {key!r} entry")
    state = _load_state(path + PARAMS_SUFFIX, return_numpy=True)
    try:
        layer = _translated(who, path, document, state)
    except ProgramError as error:
        raise ValueError(f"{who}: {model_file!r}: {error}") from None
    except (KeyError, IndexError, TypeError, AttributeError) as error:  # an entry missing or of another type
        raise ValueError(f"{who}: {model_file!r} is not a well-formed program ({type(error).__name__}: "
                         f"{error})") from None
    layer.eval()  # as Paddle's jit.load: the loaded layer starts in eval mode; train() to fine-tune
    return layer


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
    program = program_of(layer)
    array_type = type(tensors[0].impl.array) if tensors else np.ndarray
    _program_for(program, [1] * document["dims"], array_type)
    for mode, section in document.get("grad", {}).items():
        if mode not in GRAD_PROGRAMS:
            raise ProgramError(f"the gradient programs name {mode!r}, not one of {GRAD_PROGRAMS}")
        if "calls" in section:
            _program_for(program, [1] * document["dims"], array_type, mode)
    program.compiled.clear()
    for name, section in document.get("methods", {}).items():
        _attach_method(who, path, layer, name, section, state)
    return layer


def _attach_method(who, path, layer, name, section, state):
    """Gives ``layer`` the saved to_static method ``name`` (Paddle's TranslatedLayer has
    each saved method): its program runs on the layer's own parameters and buffers."""
    if not name.isidentifier() or hasattr(layer, name):
        raise ProgramError(f"the saved method name {name!r} is not an identifier or is taken by the layer")
    if [e["name"] for e in section["state"]] != [e["name"] for e in program_of(layer).document["state"]]:
        raise ProgramError(f"the saved method {name!r} reads another state than the forward")
    method = _translated(who, path, section, state)
    program_of(method).state = program_of(layer).state  # share the layer's tensors: one set of parameters
    program_of(method).compiled.clear()

    def call(*inputs):
        method.training = layer.training
        return method(*inputs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"The saved to_static method {name!r} of the layer, run as its program."
    object.__setattr__(layer, name, call)


__all__ = ["InputSpec", "TranslatedLayer", "assemble", "bump_written", "compile_program", "load", "made_tensors",
           "program_of", "save"]
