"""Describing a network for pipeline parallelism (Paddle's ``pp_layers``):
:class:`LayerDesc`, :class:`SharedLayerDesc`, :class:`SegmentLayers` and
:class:`PipelineLayer`.

A :class:`PipelineLayer` takes the whole network as a flat list (Layers,
LayerDescs, SharedLayerDescs and plain callables), cuts it into ``num_stages``
consecutive segments and builds only the segment of this rank's stage: a
LayerDesc is a recipe, so the other stages' layers are never made. Each
described layer is built right after ``eager.seed(1234 + its index)`` (the
random state is restored afterwards), so a layer starts from the same weights
whichever stage builds it and however many stages there are: a one-process
``PipelineLayer(layers, num_stages=1)`` is the reference of a pipelined run.

A :class:`SharedLayerDesc` key names one layer used at several places (a tied
input/output embedding). Each stage that uses the key builds one copy; at
construction the copy of the first such stage is broadcast to the others, and
:meth:`PipelineLayer.allreduce_shared_weight_gradients` (the pipeline calls it
after every batch's backward) sums the shared weight's gradients over them, so
the copies stay equal.
"""
from __future__ import annotations

import functools
import glob
import itertools
import os
import re

from .....autograd import no_grad
from .....nn.container import LayerDict
from .....nn.initializer import get_rng_state, seed, set_rng_state
from .....nn.layer import Layer
from .....serialization import load, save
from ....collective import all_reduce, broadcast
from ....env import get_rank, get_world_size
from ....group import new_group
from ...base.topology import CommunicateTopology
from ...layers.mpu.random import get_rng_state_tracker
from ...recompute.recompute import recompute

_BASE_SEED = 1234  # Paddle's: layer i is built after seed(1234 + i)


class LayerDesc:
    """A recipe for one layer of a :class:`PipelineLayer`: ``layer_func(*inputs,
    **kwargs)`` is called only on the stage that holds the layer.

    >>> desc = LayerDesc(eager.nn.Linear, 4, 8, bias_attr=False)
    >>> desc.build_layer()
    """

    def __init__(self, layer_func, *inputs, **kwargs):
        if not (isinstance(layer_func, type) and issubclass(layer_func, Layer)):
            raise TypeError(f"LayerDesc: argument 'layer_func' expected a subclass of eager.nn.Layer, got "
                            f"{layer_func!r}")
        self.layer_func = layer_func
        self.inputs = inputs
        self.kwargs = kwargs

    def build_layer(self) -> Layer:
        """A new layer: ``layer_func(*inputs, **kwargs)``."""
        return self.layer_func(*self.inputs, **self.kwargs)

    def __repr__(self):
        args = [repr(a) for a in self.inputs] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.layer_func.__name__}({', '.join(args)})"


class SharedLayerDesc(LayerDesc):
    """A layer used at several places of a :class:`PipelineLayer` under one
    ``key`` (all its SharedLayerDescs describe the same layer; the first one
    built on a stage is the stage's copy). Where ``forward_func`` is given that
    place runs ``forward_func(layer, x)`` instead of ``layer(x)`` (a tied output
    projection reading the embedding's weight). ``shared_weight_attr`` names the
    attribute holding the weight kept equal across stages.

    >>> SharedLayerDesc("embed", eager.nn.Embedding, None, "weight", 100, 16)
    >>> SharedLayerDesc("embed", eager.nn.Embedding, lambda layer, x: eager.matmul(x, layer.weight,
    ...                 transpose_y=True), "weight", 100, 16)
    """

    def __init__(self, key, layer_func, forward_func=None, shared_weight_attr="weight", *inputs, **kwargs):
        super().__init__(layer_func, *inputs, **kwargs)
        if not isinstance(key, str):
            raise TypeError(f"SharedLayerDesc: argument 'key' expected a str, got {key!r}")
        if forward_func is not None and not callable(forward_func):
            raise TypeError(f"SharedLayerDesc: argument 'forward_func' expected a callable or None, got "
                            f"{forward_func!r}")
        if not isinstance(shared_weight_attr, str):
            raise TypeError(f"SharedLayerDesc: argument 'shared_weight_attr' expected a str, got "
                            f"{shared_weight_attr!r}")
        self.layer_name = key
        self.forward_func = forward_func
        self.shared_weight_attr = shared_weight_attr


def _item_name(item):
    """The class (or function) name ``seg_method='layer:Name'`` matches, or None."""
    if isinstance(item, Layer):
        return type(item).__name__
    if isinstance(item, LayerDesc):
        return item.layer_func.__name__
    return getattr(item, "__name__", None)


class SegmentLayers:
    """Cuts ``layers_desc`` into ``num_parts`` consecutive segments;
    :meth:`do_segment` returns the ``num_parts + 1`` boundaries (segment i is
    ``layers_desc[bounds[i]:bounds[i + 1]]``). ``method``:

    - ``"uniform"``: as equal counts as possible, the later segments taking
      one more where it does not divide;
    - ``"layer:Name"``: the items whose class name matches the regular
      expression ``Name`` (case-insensitive, searched) are shared out equally
      (their count must divide by ``num_parts``); each segment ends right after
      its last one, the last segment running to the end;
    - a list of boundaries starting with 0 (with or without the final
      ``len(layers_desc)``).

    >>> SegmentLayers(list(range(5)), 2).do_segment()
    [0, 2, 5]
    """

    def __init__(self, layers_desc, num_parts, method="uniform", num_virtual_pipeline_stage=None):
        self._layers_desc = list(layers_desc)
        if isinstance(num_parts, bool) or not isinstance(num_parts, int) or num_parts < 1:
            raise ValueError(f"SegmentLayers: argument 'num_parts' expected a positive int, got {num_parts!r}")
        if num_virtual_pipeline_stage not in (None, 1):
            raise ValueError(f"SegmentLayers: argument 'num_virtual_pipeline_stage' expected None or 1 (eager has "
                             f"no interleaved pipeline), got {num_virtual_pipeline_stage!r}")
        self.method = method
        self.num_parts = num_parts
        self.num_items = len(self._layers_desc)
        self.num_virtual_pipeline_stage = num_virtual_pipeline_stage
        if self.num_items < num_parts:
            raise ValueError(f"SegmentLayers: {self.num_items} layers cannot fill {num_parts} segments (each "
                             f"stage needs at least one layer)")
        if isinstance(method, list):
            self._check_bounds(method)
        elif not isinstance(method, str) or not (method == "uniform" or method.startswith("layer:")):
            raise ValueError(f"SegmentLayers: argument 'method' (seg_method) expected 'uniform', 'layer:ClassName' "
                             f"or a list of boundaries, got {method!r}")

    def _check_bounds(self, bounds) -> None:
        who = "SegmentLayers: argument 'method' (seg_method)"
        if not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds):
            raise TypeError(f"{who} expected a list of int boundaries, got {bounds!r}")
        if not bounds or bounds[0] != 0:
            raise ValueError(f"{who} expected boundaries starting with 0, got {bounds!r}")
        if any(b > self.num_items for b in bounds) or any(a > b for a, b in zip(bounds, bounds[1:])):
            raise ValueError(f"{who} expected non-decreasing boundaries within 0..{self.num_items}, got {bounds!r}")
        if len(bounds) - 1 not in (self.num_parts, self.num_parts - 1):
            raise ValueError(f"{who} has {len(bounds)} boundaries, but {self.num_parts} stages take "
                             f"{self.num_parts + 1} (or {self.num_parts} without the final {self.num_items})")

    def do_segment(self) -> list:
        """The segment boundaries: a list of ``num_parts + 1`` ints from 0 to the number of layers."""
        if isinstance(self.method, list):
            bounds = list(self.method)
            return bounds + [self.num_items] if len(bounds) == self.num_parts else bounds
        if self.method == "uniform":
            return self.uniform(self.num_items, self.num_parts)
        pattern = self.method[len("layer:"):]
        try:
            regex = re.compile(pattern, re.IGNORECASE)
        except re.error as error:
            raise ValueError(f"SegmentLayers: seg_method {self.method!r}: {pattern!r} is not a regular "
                             f"expression ({error})") from None
        marked = [i for i, item in enumerate(self._layers_desc)
                  if _item_name(item) is not None and regex.search(_item_name(item))]
        if not marked:
            raise ValueError(f"SegmentLayers: seg_method {self.method!r} matches none of the layers "
                             f"({', '.join(str(_item_name(item)) for item in self._layers_desc)})")
        if len(marked) % self.num_parts:
            raise ValueError(f"SegmentLayers: seg_method {self.method!r} matches {len(marked)} layers, which do "
                             f"not divide into {self.num_parts} equal segments")
        per_part = len(marked) // self.num_parts
        bounds = [0] + [marked[per_part * k - 1] + 1 for k in range(1, self.num_parts)] + [self.num_items]
        return bounds

    @staticmethod
    def uniform(num_items: int, num_parts: int) -> list:
        """``num_items`` cut into ``num_parts`` counts differing by at most one, the extra ones last."""
        bounds = [0] * (num_parts + 1)
        size, extra = divmod(num_items, num_parts)
        for i in range(1, num_parts):
            bounds[i] = min(bounds[i - 1] + size + (1 if i > num_parts - extra else 0), num_items)
        bounds[num_parts] = num_items
        return bounds


class PipelineLayer(Layer):
    """A network cut into pipeline stages; this rank builds and runs its own
    stage's part (Paddle's ``fleet.meta_parallel.PipelineLayer``).

    ``layers``: the whole network in order; each item is an ``eager.nn.Layer``
    (built already, kept only by its stage), a :class:`LayerDesc`, a
    :class:`SharedLayerDesc` or a plain callable (``eager.nn.functional.relu``,
    a reshape). Each item is called with the previous one's output (a tuple is
    passed as one argument). ``num_stages`` (or ``topology``, whose ``pipe``
    axis gives it) is the number of stages; ``loss_fn(output, label)`` is the
    loss the last stage computes. ``seg_method`` cuts the list (see
    :class:`SegmentLayers`). ``recompute_interval`` > 0 recomputes the stage's
    layers in chunks of that many in backward instead of keeping their
    activations (``recompute_ctx`` may give ``offload``/``partition``, which
    must be False here).

    >>> descs = [LayerDesc(eager.nn.Linear, 8, 8), eager.nn.functional.relu, LayerDesc(eager.nn.Linear, 8, 2)]
    >>> model = PipelineLayer(descs, num_stages=2, loss_fn=eager.nn.CrossEntropyLoss())
    >>> model = fleet.distributed_model(model)    # a PipelineParallel
    """

    def __init__(self, layers, num_stages=None, topology=None, loss_fn=None, seg_method="uniform",
                 recompute_interval=0, recompute_ctx=None, num_virtual_pipeline_stages=None):
        super().__init__()
        who = "PipelineLayer"
        if num_stages is None and topology is None:
            raise ValueError(f"{who}: give argument 'num_stages' or 'topology' (got neither)")
        if num_stages is not None and (isinstance(num_stages, bool) or not isinstance(num_stages, int)
                                       or num_stages < 1):
            raise ValueError(f"{who}: argument 'num_stages' expected a positive int, got {num_stages!r}")
        if topology is not None and not isinstance(topology, CommunicateTopology):
            raise TypeError(f"{who}: argument 'topology' expected a fleet.CommunicateTopology, got "
                            f"{type(topology).__name__}")
        if num_virtual_pipeline_stages not in (None, 1):
            raise ValueError(f"{who}: argument 'num_virtual_pipeline_stages' expected None or 1 (eager has no "
                             f"interleaved pipeline schedule), got {num_virtual_pipeline_stages!r}")
        if loss_fn is not None and not callable(loss_fn):
            raise TypeError(f"{who}: argument 'loss_fn' expected a callable or None, got {loss_fn!r}")
        if isinstance(recompute_interval, bool) or not isinstance(recompute_interval, int) or recompute_interval < 0:
            raise ValueError(f"{who}: argument 'recompute_interval' expected a non-negative int, got "
                             f"{recompute_interval!r}")
        if recompute_ctx is not None:
            if not isinstance(recompute_ctx, dict):
                raise TypeError(f"{who}: argument 'recompute_ctx' expected a dict or None, got "
                                f"{type(recompute_ctx).__name__}")
            for key in ("offload", "partition"):
                if recompute_ctx.get(key, False):
                    raise ValueError(f"{who}: recompute_ctx[{key!r}] is not supported by eager's recompute; "
                                     f"leave it False")
        if isinstance(layers, (str, bytes)) or not hasattr(layers, "__iter__"):
            raise TypeError(f"{who}: argument 'layers' expected a list of Layers, LayerDescs and callables, got "
                            f"{type(layers).__name__}")
        descs = list(layers)
        for index, item in enumerate(descs):
            if not (isinstance(item, (Layer, LayerDesc)) or callable(item)):
                raise TypeError(f"{who}: argument 'layers'[{index}] expected an eager.nn.Layer, a LayerDesc, a "
                                f"SharedLayerDesc or a callable, got {type(item).__name__}")
        self.global_rank = get_rank()
        if topology is not None:
            if "pipe" not in topology.get_hybrid_group_names():
                raise ValueError(f"{who}: argument 'topology' has no 'pipe' axis (axes "
                                 f"{topology.get_hybrid_group_names()})")
            stages = topology.get_dim("pipe")
            if num_stages is not None and num_stages != stages:
                raise ValueError(f"{who}: argument 'num_stages' is {num_stages}, but the topology's pipe axis "
                                 f"(pp_degree) has {stages} stages; they must agree")
        else:
            world = get_world_size()
            if world % num_stages:
                raise ValueError(f"{who}: argument 'num_stages' ({num_stages}) does not divide the job's {world} "
                                 f"ranks")
            topology = CommunicateTopology(["data", "pipe", "model"], [world // num_stages, num_stages, 1])
        self.layers = descs
        self._layers_desc = descs
        self._num_layers = len(descs)
        self._loss_fn = loss_fn
        self._topo = topology
        self._num_stages = topology.get_dim("pipe")
        self._stage_id = topology.get_coord(self.global_rank).pipe
        self._recompute_interval = recompute_interval
        self.recompute_ctx = recompute_ctx
        self._base_seed = _BASE_SEED
        self._num_virtual_pipeline_stages = 1
        self.segment_parts = SegmentLayers(descs, self._num_stages, seg_method).do_segment()
        self._start_pos = self.segment_parts[self._stage_id]
        self._end_pos = self.segment_parts[self._stage_id + 1]
        self.shared_layers = LayerDict()
        self.shared_weight_attrs = {}
        self.run_function = []
        self._build_layer()
        self.shared_comm = self._construct_shared_comm()
        self._synchronize_shared_weights()

    # -- building ----------------------------------------------------------------
    def _build_layer(self) -> None:
        rng_state = get_rng_state()
        tracker = get_rng_state_tracker()
        tracker_state = tracker.get_states_tracker()
        try:
            for index in range(self._start_pos, self._end_pos):
                item = self._layers_desc[index]
                seed(self._base_seed + index)
                if isinstance(item, SharedLayerDesc):
                    key = item.layer_name
                    if key not in self.shared_layers:
                        self.shared_layers[key] = item.build_layer()
                        self.shared_weight_attrs[key] = item.shared_weight_attr
                        self._shared_weight(key)     # checks the attribute names a weight
                    layer = self.shared_layers[key]
                    self.run_function.append(layer if item.forward_func is None
                                             else functools.partial(item.forward_func, layer))
                elif isinstance(item, LayerDesc):
                    layer = item.build_layer()
                    if not isinstance(layer, Layer):
                        raise TypeError(f"PipelineLayer: LayerDesc {item!r} built a {type(layer).__name__}, not "
                                        f"an eager.nn.Layer")
                    self.add_sublayer(str(index), layer)
                    self.run_function.append(layer)
                elif isinstance(item, Layer):
                    self.add_sublayer(str(index), item)
                    self.run_function.append(item)
                else:
                    self.run_function.append(item)
        finally:
            set_rng_state(rng_state)
            tracker.set_states_tracker(tracker_state)

    def _shared_weight(self, key: str):
        layer, attr = self.shared_layers[key], self.shared_weight_attrs[key]
        weight = getattr(layer, attr, None)
        if weight is None or not hasattr(weight, "stop_gradient"):
            raise ValueError(f"PipelineLayer: SharedLayerDesc {key!r}: its layer ({type(layer).__name__}) has no "
                             f"tensor attribute shared_weight_attr={attr!r}")
        return weight

    def get_stage_from_index(self, layer_idx: int) -> int:
        """The stage that holds item ``layer_idx`` of the layer list."""
        if isinstance(layer_idx, bool) or not isinstance(layer_idx, int) or not 0 <= layer_idx < self._num_layers:
            raise ValueError(f"PipelineLayer.get_stage_from_index: argument 'layer_idx' expected 0.."
                             f"{self._num_layers - 1}, got {layer_idx!r}")
        for stage in range(self._num_stages):
            if self.segment_parts[stage] <= layer_idx < self.segment_parts[stage + 1]:
                return stage
        raise AssertionError("unreachable: the segments cover every layer")

    def get_num_virtual_stages(self) -> int:
        """The number of virtual stages per rank (1: eager has no interleaved schedule)."""
        return self._num_virtual_pipeline_stages

    def get_model_chunks(self):
        """None: the model chunks of an interleaved schedule, which eager does not have."""
        return None

    # -- shared layers -------------------------------------------------------------
    def _construct_shared_comm(self) -> dict:
        """For each SharedLayerDesc key: per model replica, a group of the ranks of
        the stages that use it (every rank makes every group, in one order)."""
        comm = {}
        if self._num_stages == 1:
            return comm
        keys = sorted({d.layer_name for d in self._layers_desc if isinstance(d, SharedLayerDesc)})
        names = self._topo.get_hybrid_group_names()
        others = [name for name in names if name != "pipe"]
        for key in keys:
            stages = sorted({self.get_stage_from_index(i) for i, d in enumerate(self._layers_desc)
                             if isinstance(d, SharedLayerDesc) and d.layer_name == key})
            for fixed in itertools.product(*(range(self._topo.get_dim(name)) for name in others)):
                coord = dict(zip(others, fixed))
                ranks = [self._topo.get_rank(pipe=stage, **coord) for stage in stages]
                group = new_group(ranks=ranks)
                if self.global_rank in ranks:
                    comm[key] = {"ranks": ranks, "group": group, "weight_attr": self.shared_weight_attrs[key],
                                 "layer": self.shared_layers[key]}
        return comm

    def _synchronize_shared_weights(self) -> None:
        """Broadcasts each shared weight from the first stage that uses it."""
        for key, info in self.shared_comm.items():
            src = min(info["ranks"])
            if len(info["ranks"]) > 1:
                with no_grad():
                    broadcast(self._shared_weight(key), src=src, group=info["group"])
            if self.global_rank != src:
                for param in info["layer"].parameters():
                    param.is_firstly_shared = False

    def allreduce_shared_weight_gradients(self) -> None:
        """Sums each shared weight's gradient over the stages that use it (every
        stage then steps its copy alike). A copy without a gradient joins with zeros."""
        for key, info in self.shared_comm.items():
            if len(info["ranks"]) <= 1:
                continue
            weight = self._shared_weight(key)
            with no_grad():
                if weight.grad is None:
                    zeros = weight.detach() * 0
                    all_reduce(zeros, group=info["group"])
                    weight.grad = zeros
                else:
                    all_reduce(weight.grad, group=info["group"])

    # -- running -----------------------------------------------------------------------
    def forward_function(self, start: int, end: int):
        """A function running this stage's items ``start:end`` in order (several
        arguments are passed on as one tuple)."""
        functions = self.run_function[start:end]

        def run(*values):
            value = values[0] if len(values) == 1 else values
            for function in functions:
                value = function(value)
            return value

        return run

    def forward(self, input, chunk_id=None):  # noqa: A002  (Paddle's name)
        """Runs this stage's layers on ``input`` (the previous stage's output,
        or the first stage's data); with ``recompute_interval`` the chunks
        holding parameters are recomputed in backward."""
        if chunk_id is not None:
            raise ValueError(f"PipelineLayer.forward: argument 'chunk_id' is for interleaved pipelines, which "
                             f"eager does not have; got {chunk_id!r}")
        count = len(self.run_function)
        if self._recompute_interval == 0:
            return self.forward_function(0, count)(input)
        for start in range(0, count, self._recompute_interval):
            end = min(start + self._recompute_interval, count)
            args = input if isinstance(input, tuple) else (input,)
            if self._need_recompute(self.run_function[start:end], args):
                input = recompute(self.forward_function(start, end), *args)
            else:
                input = self.forward_function(start, end)(*args)
        return input

    @staticmethod
    def _need_recompute(functions, args) -> bool:
        if not any(hasattr(a, "stop_gradient") and not a.stop_gradient for a in args):
            return False
        return any(isinstance(f, Layer) and any(True for _ in f.parameters()) for f in functions)

    # -- checkpoints ----------------------------------------------------------------------
    def _file_stem(self, index: int) -> str:
        return f"layer_{index:02d}"

    def _model_coord(self):
        coord = self._topo.get_coord(self.global_rank)
        names = self._topo.get_hybrid_group_names()
        return (coord.model if "model" in names else 0), (self._topo.get_dim("model") if "model" in names else 1)

    def save_state_dict(self, path: str) -> None:
        """Saves each of this stage's layers to its own file in directory
        ``path``: ``layer_{index:02d}-tensor_{mp_rank:02d}-model_states.pdparams``
        (Paddle's names; ``index`` is the item's place in the whole list, so the
        stages write disjoint files and any cut can read them back). Only the
        first data-parallel replica writes; plain callables have nothing to save.

        >>> model.save_state_dict("checkpoint/")      # every stage, same directory
        """
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"PipelineLayer.save_state_dict: argument 'path' expected a directory path, got "
                            f"{type(path).__name__}")
        names = self._topo.get_hybrid_group_names()
        if "data" in names and self._topo.get_coord(self.global_rank).data != 0:
            return
        os.makedirs(path, exist_ok=True)
        mp_rank, _ = self._model_coord()
        for offset, function in enumerate(self.run_function):
            if isinstance(function, Layer):
                name = f"{self._file_stem(self._start_pos + offset)}-tensor_{mp_rank:02d}-model_states.pdparams"
                save(function.state_dict(), os.path.join(path, name))

    def set_state_dir(self, path: str) -> None:
        """Loads this stage's layers from the files :meth:`save_state_dict` wrote
        in directory ``path`` (with several tensor-parallel files per layer, the
        share of this rank's model-parallel index), then broadcasts the shared
        weights from their first stage again.

        >>> model.set_state_dir("checkpoint/")
        """
        who = "PipelineLayer.set_state_dir"
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"{who}: argument 'path' expected a directory path, got {type(path).__name__}")
        if not os.path.isdir(path):
            raise FileNotFoundError(f"{who}: no directory {os.fspath(path)!r}")
        mp_rank, mp_size = self._model_coord()
        for offset, function in enumerate(self.run_function):
            if not isinstance(function, Layer):
                continue
            stem = self._file_stem(self._start_pos + offset)
            files = sorted(glob.glob(os.path.join(glob.escape(os.fspath(path)), stem + "-*model_states.pdparams")))
            if not files:
                raise FileNotFoundError(f"{who}: no file {stem}-*model_states.pdparams in {os.fspath(path)!r} for "
                                        f"item {self._start_pos + offset} ({type(function).__name__})")
            function.set_state_dict(load(files[mp_rank * len(files) // mp_size]))
        self._synchronize_shared_weights()

    def extra_repr(self) -> str:
        return (f"stage={self._stage_id}/{self._num_stages}, layers={self._start_pos}..{self._end_pos - 1} of "
                f"{self._num_layers}")


__all__ = ["LayerDesc", "SharedLayerDesc", "SegmentLayers", "PipelineLayer"]
