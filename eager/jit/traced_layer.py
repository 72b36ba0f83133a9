"""Paddle's ``paddle.jit.api.TracedLayer``: a Layer's forward traced once into a
program that runs on the Layer's own parameters, and saved for inference.

``TracedLayer.trace(layer, inputs)`` runs ``layer(*inputs)`` once under the
kernel recorder of ``to_static`` (recorder.py) and returns its outputs with a
TracedLayer holding the recorded kernel program in ``eager.jit.save``'s JSON
format (program.py). Calling the TracedLayer with a list of input tensors of
the traced shapes and dtypes replays that program (compiled once per array
type, as a TranslatedLayer compiles a loaded one) on the layer's parameter and
buffer tensors as they are at the call, so optimizer updates made after the
trace are seen, and returns the outputs as a list of NumPy arrays, as
Paddle's Executor does. ``save_inference_model`` traces the forward again in
eval mode with :func:`eager.jit.save`'s machinery and writes an inference
program that :func:`eager.jit.load` loads as a TranslatedLayer.

As in Paddle, the program is the path the traced call took: a forward whose
kernels depend on the input values (control flow on values, a host read, a
data-dependent shape) cannot be traced, and raises a ValueError naming why.

>>> import eager
>>> net = eager.nn.Linear(3, 2)
>>> x = eager.ones([4, 3])
>>> out, traced = eager.jit.api.TracedLayer.trace(net, inputs=[x])
>>> [a.shape for a in traced([x])]
[(4, 2)]
"""
from __future__ import annotations

import numbers

import numpy as np

from ..nn.layer import Layer
from ..static.build_strategy import BuildStrategy
from ..tensor import Tensor
from .input_spec import InputSpec
from .program import FORMAT, VERSION, ProgramError, prune, references
from .save import _named_state, check_path, record_forward, state_entries, write_program
from .translated_layer import assemble, bump_written, compile_program, made_tensors

_TRACE = "TracedLayer.trace"
_SAVE = "TracedLayer.save_inference_model"
# The keyword arguments Paddle's save_inference_model reads; both change only Paddle's protobuf.
_SAVE_OPTIONS = ("clip_extra", "legacy_format")


def _flatten(value, out, who, what):
    """Appends the Tensors of ``value`` (a Tensor or nested lists and tuples of
    them) to ``out``; returns the structure to rebuild it (``None`` stands for a
    Tensor). A TypeError names ``who`` and ``what`` for anything else."""
    if isinstance(value, Tensor):
        out.append(value)
        return None
    if type(value) in (list, tuple):
        return type(value), [_flatten(item, out, who, what) for item in value]
    raise TypeError(f"{who}: {what} expected Tensors (or lists and tuples of Tensors), got an item of type "
                    f"{type(value).__name__}")


def _rebuild(structure, tensors):
    """The value ``_flatten`` took apart, with the next Tensors of the iterator ``tensors``."""
    if structure is None:
        return next(tensors)
    kind, items = structure
    return kind(_rebuild(item, tensors) for item in items)


class _FlatForward(Layer):
    """The traced layer called on its flat input tensors: the arguments are
    rebuilt as they were given to ``trace``, and the forward's Tensors returned
    flat, as a list. For ``save_inference_model``: only the ``feed`` inputs are
    arguments (the others are the traced tensors, placeholders the saved
    program must not need) and only the ``fetch`` outputs are returned (one
    alone, not in a list)."""

    def __init__(self, layer, structure, traced=(), feed=None, fetch=None):
        super().__init__()
        self.layer = layer  # a sublayer: train() and eval() reach it
        self._structure = structure
        self._traced = list(traced)
        self._feed = feed
        self._fetch = fetch
        self.result = None

    def forward(self, *inputs):
        """Calls the layer on the rebuilt arguments; returns its Tensors flat."""
        flat = list(inputs)
        if self._feed is not None:
            flat = list(self._traced)
            for position, tensor in zip(self._feed, inputs):
                flat[position] = tensor
        tensors = iter(flat)
        args = [_rebuild(item, tensors) for item in self._structure]
        self.result = self.layer(*args)
        outputs = []
        _flatten(self.result, outputs, _TRACE if self._fetch is None else _SAVE,
                 f"the outputs of {type(self.layer).__name__}.forward")
        if self._fetch is None:
            return outputs
        chosen = [outputs[k] for k in self._fetch]
        return chosen[0] if len(chosen) == 1 else chosen


def _indices(arg, value, count, what):
    """``value`` (None or a list of ints in [-count, count)) as a list of
    non-negative indices, each once; TypeError/ValueError naming ``arg``."""
    if value is None:
        return list(range(count))
    if not isinstance(value, list):
        raise TypeError(f"{_SAVE}: argument '{arg}' expected None or a list of int, got {type(value).__name__}")
    out = []
    for item in value:
        if not isinstance(item, numbers.Integral) or isinstance(item, bool):
            raise TypeError(f"{_SAVE}: each element of '{arg}' expected an int, got {type(item).__name__}")
        if not -count <= item < count:
            raise ValueError(f"{_SAVE}: argument '{arg}' holds index {item}, but the TracedLayer has {count} "
                             f"{what}")
        index = int(item) % count
        if index in out:
            raise ValueError(f"{_SAVE}: argument '{arg}' names {what[:-1]} {index} twice")
        out.append(index)
    return out


class TracedLayer:
    """A Layer's forward as a traced kernel program (Paddle's
    ``paddle.jit.api.TracedLayer``), made by :meth:`trace` only. Calling it
    with a list of input Tensors (the traced shapes and dtypes) runs the
    program on the layer's current parameters and buffers and returns the
    outputs as a list of NumPy arrays; :meth:`save_inference_model` saves an
    inference program for :func:`eager.jit.load`. See docs/jit.md.

    >>> out, traced = TracedLayer.trace(net, [x])
    >>> traced([x])[0]          # a NumPy array, equal to out.numpy()
    """

    def __init__(self, program, parameters, feed_names, fetch_names):
        # Made by trace(); ``program`` is the JSON document, ``parameters`` the
        # tensors of its "state" entries, in order (``_state``, as TranslatedLayer's).
        self._program = program
        self._state = list(parameters)
        self._feed_names = list(feed_names)
        self._fetch_names = list(fetch_names)
        self._state_index = {entry["name"]: i for i, entry in enumerate(program["state"])}
        self._compiled = {}  # array type -> the compiled program
        self._build_strategy = None
        self._exec_strategy = None
        self._origin = None  # (layer, input structure, traced inputs, the named state), set by trace

    @property
    def program(self) -> dict:
        """The traced program: the JSON document of ``eager.jit.save``'s format
        (the inputs' shapes and dtypes, the state it reads, its kernel calls,
        the outputs), without its gradient programs. Read it, do not change it."""
        return self._program

    @staticmethod
    def trace(layer, inputs):
        """Runs ``layer(*inputs)`` (``inputs`` a Tensor, or a list or tuple of
        Tensors and of lists and tuples of them) once while recording its
        kernels, in the current mode and grad mode; returns ``(outputs,
        traced_layer)``, ``outputs`` being what the forward returned (Tensors,
        or lists and tuples of them). The TracedLayer's inputs are the Tensors
        of ``inputs`` flattened in order, its outputs those of ``outputs``.
        TypeError for another ``layer`` or input; ValueError for a forward the
        program cannot express (naming why).

        >>> out, traced = TracedLayer.trace(eager.nn.Linear(3, 2), [eager.ones([4, 3])])
        """
        if not isinstance(layer, Layer):
            raise TypeError(f"{_TRACE}: argument 'layer' expected an eager.nn.Layer, got {type(layer).__name__}")
        args = list(inputs) if type(inputs) in (list, tuple) else [inputs]
        flat = []
        structure = [_flatten(arg, flat, _TRACE, "argument 'inputs'") for arg in args]
        if len({id(t) for t in flat}) != len(flat):
            raise ValueError(f"{_TRACE}: argument 'inputs' holds one Tensor twice; each input must be its own "
                             f"Tensor")
        state = _named_state(layer)
        wrapper = _FlatForward(layer, structure)
        try:
            program, outputs, bumps, _ = record_forward(wrapper, flat, state)
        except ProgramError as error:
            raise ValueError(f"{_TRACE}: cannot trace {type(layer).__name__}.forward as a program: {error}") \
                from None
        feed_names = [f"feed_{i}" for i in range(len(flat))]
        document = {
            "format": FORMAT, "version": VERSION, "layer": type(layer).__name__,
            "inputs": [{"shape": list(t.shape), "dtype": t.impl.array.dtype.name, "name": name,
                        "stop_gradient": t.stop_gradient} for t, name in zip(flat, feed_names)],
            "dims": 0, "state": state_entries(state), "calls": program, "outputs": outputs, "bumps": bumps,
        }
        traced = TracedLayer(document, [t for _, t, *_ in state], feed_names,
                             [f"fetch_{i}" for i in range(len(outputs["list"]))])
        traced._origin = (layer, structure, flat, state)
        return wrapper.result, traced

    def set_strategy(self, build_strategy=None, exec_strategy=None) -> None:
        """Paddle's strategies for running the static program: ``build_strategy``
        None or a :class:`eager.static.BuildStrategy` (its options are kept and
        change nothing, as for ``to_static``), ``exec_strategy`` None (eager has no
        ``ExecutionStrategy``: it runs no static graph); a TypeError names the
        argument otherwise. As in Paddle, only before the first call (RuntimeError
        after it)."""
        if self._compiled:
            raise RuntimeError("TracedLayer.set_strategy: cannot set the strategies after the TracedLayer ran")
        if build_strategy is not None and not isinstance(build_strategy, BuildStrategy):
            raise TypeError(f"TracedLayer.set_strategy: argument 'build_strategy' expected None or a "
                            f"paddle.static.BuildStrategy, got {type(build_strategy).__name__}")
        if exec_strategy is not None:
            raise TypeError(f"TracedLayer.set_strategy: argument 'exec_strategy' expected None (eager has no "
                            f"ExecutionStrategy: it runs no static graph), got {type(exec_strategy).__name__}")
        self._build_strategy = build_strategy
        self._exec_strategy = exec_strategy

    def __call__(self, inputs):
        """Runs the traced program on ``inputs`` (a list or tuple of Tensors of
        the traced shapes and dtypes, one per flattened input of ``trace``) and
        the layer's parameters and buffers as they are now; returns the outputs
        as a list of NumPy arrays. Buffers the traced forward writes (batch
        norm's running statistics in train mode) are written again."""
        who = "TracedLayer.__call__"
        if type(inputs) not in (list, tuple):
            raise TypeError(f"{who}: argument 'inputs' expected a list or tuple of Tensors, got "
                            f"{type(inputs).__name__}")
        specs = self._program["inputs"]
        if len(inputs) != len(specs):
            raise ValueError(f"{who}: the TracedLayer takes {len(specs)} input(s), got {len(inputs)}")
        for i, (x, spec) in enumerate(zip(inputs, specs)):
            if not isinstance(x, Tensor):
                raise TypeError(f"{who}: input {i} expected a Tensor, got {type(x).__name__}")
            if list(x.shape) != spec["shape"] or x.impl.array.dtype.name != spec["dtype"]:
                raise ValueError(f"{who}: input {i} expected {spec['dtype']}{spec['shape']} (the traced "
                                 f"input's dtype and shape), got {x.impl.array.dtype.name}{list(x.shape)}")
        arrays = [x.impl.array for x in inputs] + [t.impl.array for t in self._state]
        array_type = type(arrays[0]) if arrays else np.ndarray
        if any(type(a) is not array_type for a in arrays):
            raise ValueError(f"{who}: the inputs and the layer's parameters are on different devices; move "
                             f"them to one place")
        compiled = self._compiled.get(array_type)
        if compiled is None:
            compiled = self._compiled[array_type] = compile_program(self._program, [], array_type)
        results = compiled.run(arrays)
        bump_written(compiled, self._state, self._state_index)
        outputs = assemble(compiled.outputs, made_tensors(compiled, results), list(inputs), self._state,
                           self._state_index)
        return [np.array(t.numpy(), copy=True) for t in outputs]

    def save_inference_model(self, path, feed=None, fetch=None, **kwargs) -> None:
        """Saves an inference program of the traced layer at ``path`` (a
        ``dirname/file_prefix``: ``.pdmodel`` and ``.pdiparams``, the format of
        :func:`eager.jit.save`), which :func:`eager.jit.load` loads as a
        TranslatedLayer. ``feed`` and ``fetch`` (None: all) are lists of the
        indices of the inputs it takes and of the outputs it returns (one
        output alone, several as a list). The forward is traced again in eval
        mode without gradients (Paddle's inference programs run as in eval
        mode) on the parameters as they are now, with the traced shapes;
        an input left out of ``feed`` must not be read by it. ``clip_extra``
        and ``legacy_format`` (bools) are accepted and change nothing.

        >>> traced.save_inference_model("out/traced", feed=[0], fetch=[0])
        >>> eager.jit.load("out/traced")(x)
        """
        if not isinstance(path, str):
            raise TypeError(f"{_SAVE}: argument 'path' expected a str, got {type(path).__name__}")
        path = check_path(_SAVE, path)
        for key, value in kwargs.items():
            if key not in _SAVE_OPTIONS:
                raise ValueError(f"{_SAVE}: the keyword argument {key!r} is not supported (only "
                                 f"{', '.join(_SAVE_OPTIONS)})")
            if not isinstance(value, bool):
                raise TypeError(f"{_SAVE}: argument {key!r} expected a bool, got {type(value).__name__}")
        feed = _indices("feed", feed, len(self._feed_names), "inputs")
        fetch = _indices("fetch", fetch, len(self._fetch_names), "outputs")
        if not fetch:
            raise ValueError(f"{_SAVE}: argument 'fetch' is empty; an inference program returns at least one "
                             f"output")
        layer, structure, traced, state = self._origin
        wrapper = _FlatForward(layer, structure, traced, feed, fetch)
        specs = [InputSpec(tuple(traced[i].shape), traced[i].dtype, name=self._feed_names[i]) for i in feed]
        # The inputs left out of feed are traced as state under names no layer
        # attribute has; the calls the fetched outputs do not need are pruned, and
        # none that is left may read them.
        left_out = {f"<input {i}>": i for i in range(len(traced)) if i not in feed}
        placeholders = [(name, traced[i], "attribute", False, False) for name, i in left_out.items()]

        def finish(document):
            if document["bumps"]:  # the program writes into its state: every call is kept
                calls, outputs = document["calls"], document["outputs"]
            else:
                calls, outputs = prune(document["calls"], document["outputs"])
            read = sorted(left_out[name] for name in references(calls, outputs)[1] if name in left_out)
            if read:
                raise ProgramError(f"the fetched outputs need inputs {read}, which 'feed' leaves out")
            document["calls"], document["outputs"] = calls, outputs
            document["state"] = [entry for entry in document["state"] if entry["name"] not in left_out]

        write_program(wrapper, path, specs, state + placeholders, type(layer).__name__,
                      f"{_SAVE}: cannot save {type(layer).__name__}.forward as an inference program",
                      grad=False, edit=finish)


__all__ = ["TracedLayer"]
