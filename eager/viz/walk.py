"""Walks the backward graph from some outputs into a plain description.

Both pictures (``dot.py``) and the text view (``text.py``) draw from the
:class:`GraphModel` made here, so they always agree on what the graph holds.
The walk is breadth-first with an explicit queue (no recursion), so a chain of
100,000 ops is fine; past ``max_nodes`` it keeps counting but stops recording.
"""
from __future__ import annotations

import collections
import dataclasses

import numpy as np

from phi.common import DataType
from phi.common.data_type import dtype_name

from ..autograd.accumulation import GradNodeAccumulation
from ..tensor import Tensor

# Kinds of vertex.
OP, LEAF, OUTPUT = "op", "leaf", "output"
# Gradient health of a leaf.
GRAD_OK, GRAD_NONFINITE, GRAD_ZERO = "ok", "nonfinite", "zero"


@dataclasses.dataclass
class Saved:
    """A tensor a grad node keeps for its backward op."""

    name: str
    shape: tuple | None  # None once released
    dtype: str | None
    nbytes: int  # bytes really held: 0 for shape-only or released wrappers
    state: str  # "buffer", "shape only" or "freed"
    key: int | None  # identity of the buffer, so shared buffers count once


@dataclasses.dataclass
class GradInfo:
    """Norm and health of a leaf's accumulated gradient."""

    norm: float
    status: str  # GRAD_OK, GRAD_NONFINITE or GRAD_ZERO
    nan: int = 0
    inf: int = 0


@dataclasses.dataclass
class Vertex:
    """One box of the picture: a grad node, a leaf tensor or an output tensor."""

    id: str
    kind: str
    title: str  # backward op name, parameter/tensor name, or "output"
    scope: tuple = ()
    op_name: str = ""
    is_view: bool = False
    attrs: list = dataclasses.field(default_factory=list)  # (name, value) pairs
    saved: list = dataclasses.field(default_factory=list)  # Saved
    shape: list | None = None
    dtype: str | None = None
    named: bool = False  # title is a real name (parameter or tensor name)
    grad: GradInfo | None = None
    inputs: list = dataclasses.field(default_factory=list)  # ids, in input order
    num_outputs: int = 1
    truncated: bool = False  # some inputs were left out (max_nodes)


@dataclasses.dataclass
class GraphModel:
    vertices: dict  # id -> Vertex, outputs first, then breadth-first from them
    edges: list  # (source id, target id, gradient slot (output) of the source), forward direction
    left_out: int = 0  # grad nodes and leaves not recorded because of max_nodes
    max_nodes: int | None = None

    def of_kind(self, kind: str) -> list:
        return [v for v in self.vertices.values() if v.kind == kind]

    def saved_bytes(self) -> int:
        """Bytes held for backward by the recorded nodes, each buffer counted once."""
        sizes: dict = {}
        for vertex in self.vertices.values():
            for saved in vertex.saved:
                if saved.nbytes:
                    sizes[saved.key] = max(sizes.get(saved.key, 0), saved.nbytes)
        return sum(sizes.values())

    def grad_counts(self) -> dict:
        counts = collections.Counter(v.grad.status for v in self.vertices.values() if v.grad)
        return {GRAD_OK: counts[GRAD_OK], GRAD_NONFINITE: counts[GRAD_NONFINITE],
                GRAD_ZERO: counts[GRAD_ZERO]}


def walk(outputs, params=None, *, max_nodes: int | None = None, grads: bool = False,
         saved: bool = False, attrs: bool = False) -> GraphModel:
    """Describes the backward graph of ``outputs`` (a Tensor or a sequence of them).

    ``params`` names leaves: a dict name -> tensor, an iterable of (name, tensor)
    pairs, or anything with ``named_parameters()`` (an ``eager.nn.Layer``).
    """
    outputs = as_tensor_list(outputs)
    if max_nodes is not None and (isinstance(max_nodes, bool) or not isinstance(max_nodes, int)
                                  or max_nodes < 1):
        raise ValueError(f"max_nodes: expected None or an int >= 1, got {max_nodes!r}")
    known = _Known(param_pairs(params))
    for tensor in outputs:
        known.add_tensor(tensor)

    vertices: dict = {}
    edges: list = []
    ids: dict = {}  # grad node -> vertex id
    queue = collections.deque()
    left = set()  # nodes met past max_nodes

    def record(node):
        vertex_id = f"n{len(ids)}"
        ids[node] = vertex_id
        queue.append(node)
        return vertex_id

    for index, tensor in enumerate(outputs):
        out = Vertex(id=f"out{index}", kind=OUTPUT, title="output", shape=list(tensor.shape),
                     dtype=_dtype_name(tensor.dtype))
        name = known.name_of(tensor)
        if name:
            out.title, out.named = name, True
        vertices[out.id] = out
        meta = tensor._meta
        node = None if meta is None or meta.stop_gradient else meta.node
        if node is None:
            continue
        if node not in ids:
            record(node)
        out.inputs.append(ids[node])
        edges.append((ids[node], out.id, meta.slot))

    placeholders = {}  # id -> node; turned into vertices once saved inputs named the leaves
    while queue:
        node = queue.popleft()
        vertex_id = ids[node]
        known.add_saved(node)
        consumer_inputs = []
        for edge in node.edges():
            if edge is None:
                continue
            nxt, slot = edge
            if nxt not in ids:
                if max_nodes is not None and len(ids) >= max_nodes:
                    left.add(nxt)
                    continue
                record(nxt)
            consumer_inputs.append((ids[nxt], slot))
        placeholders[vertex_id] = (node, consumer_inputs, len(consumer_inputs) < _edge_count(node))

    for vertex_id, (node, inputs, truncated) in placeholders.items():
        vertex = _describe_node(vertex_id, node, known, grads=grads, saved=saved, attrs=attrs)
        vertex.inputs = [source for source, _ in inputs]
        vertex.truncated = truncated
        vertices[vertex_id] = vertex
        for source, slot in inputs:
            edges.append((source, vertex_id, slot))

    return GraphModel(vertices=vertices, edges=edges, left_out=_count_beyond(left, ids),
                      max_nodes=max_nodes)


def _edge_count(node) -> int:
    return sum(edge is not None for edge in node.edges())


def _count_beyond(start, recorded) -> int:
    """How many distinct nodes are reachable from ``start`` outside ``recorded``."""
    seen = set(start)
    stack = list(start)
    while stack:
        node = stack.pop()
        for edge in node.edges():
            if edge is not None and edge[0] not in seen and edge[0] not in recorded:
                seen.add(edge[0])
                stack.append(edge[0])
    return len(seen)


def _describe_node(vertex_id, node, known, *, grads, saved, attrs) -> Vertex:
    scope = tuple(getattr(node, "scope", ()) or ())
    if isinstance(node, GradNodeAccumulation):
        return _describe_leaf(vertex_id, node, scope, known, grads)
    vertex = Vertex(id=vertex_id, kind=OP, title=node.backward_op, scope=scope,
                    op_name=node.forward_op, is_view=node.is_view,
                    num_outputs=node.num_grad_slots)
    if attrs:
        vertex.attrs = [(name, getattr(node, name, None)) for name in getattr(node, "attr_names", ())]
    if saved:
        vertex.saved = [_describe_saved(name, getattr(node, name, None))
                        for name in getattr(node, "saved_names", ())
                        if getattr(node, name, None) is not None]
    return vertex


def _describe_leaf(vertex_id, node, scope, known, grads) -> Vertex:
    vertex = Vertex(id=vertex_id, kind=LEAF, title="leaf", scope=scope, op_name="accumulate_grad")
    meta = node._meta_ref()
    if meta is None:
        vertex.title = "leaf (freed)"
        return vertex
    tensor = known.tensor_of(meta)
    if tensor is None:
        # A weak reference to the leaf tensor, where the core keeps one.
        tensor_ref = getattr(node, "tensor_ref", None)
        tensor = tensor_ref() if callable(tensor_ref) else None
        if tensor is not None:
            known.add_tensor(tensor)
    name = known.name_of_meta(meta)
    if name:
        vertex.title, vertex.named = name, True
    source = tensor if tensor is not None else meta.grad
    if source is not None:
        vertex.shape = list(source.shape)
        vertex.dtype = _dtype_name(source.dtype)
    if grads and meta.grad is not None:
        vertex.grad = grad_info(meta.grad)
    return vertex


def _describe_saved(name, wrapper) -> Saved:
    if isinstance(wrapper, tuple):  # a shape-only save: (shape, dtype, device)
        return Saved(name, tuple(wrapper[0]), _dtype_name(DataType.from_numpy(wrapper[1])), 0,
                     "shape only", None)
    if getattr(wrapper, "released", False) or wrapper.impl is None:
        return Saved(name, None, None, 0, "freed", None)
    if isinstance(wrapper.impl, list):  # a saved Tensor[]: its shapes, one per element
        nbytes = int(wrapper.nbytes)
        return Saved(name, wrapper.shape, _dtype_name(wrapper.dtype), nbytes,
                     "buffer" if nbytes else "shape only", None)
    impl = wrapper.impl
    nbytes = int(wrapper.nbytes)
    state = "buffer" if nbytes else "shape only"
    return Saved(name, tuple(impl.dims), _dtype_name(impl.dtype), nbytes, state,
                 impl.buffer_id if nbytes else None)


def grad_info(grad) -> GradInfo:
    """Norm and health of a gradient tensor."""
    array = np.asarray(grad.numpy())
    magnitude = np.abs(array).astype(np.float64).ravel()
    finite = np.isfinite(magnitude)
    if not finite.all():
        nan = int(np.isnan(magnitude).sum())
        return GradInfo(float("nan") if nan else float("inf"), GRAD_NONFINITE,
                        nan=nan, inf=int(magnitude.size - finite.sum() - nan))
    if not magnitude.any():
        return GradInfo(0.0, GRAD_ZERO)
    return GradInfo(float(np.linalg.norm(magnitude)), GRAD_OK)


def _dtype_name(dtype) -> str:
    return dtype_name(dtype)  # graph labels keep the short name (float32)


class _Known:
    """Tensors met so far, by their AutogradMeta: leaf nodes only hold the meta."""

    def __init__(self, pairs):
        self._names: dict = {}  # id(meta) -> name
        self._tensors: dict = {}  # id(meta) -> (meta, tensor); the meta kept alive so ids stay valid
        for name, tensor in pairs:
            self.add_tensor(tensor)
            if tensor._meta is not None:
                self._names.setdefault(id(tensor._meta), name)

    def add_tensor(self, tensor) -> None:
        meta = getattr(tensor, "_meta", None)
        if meta is not None and id(meta) not in self._tensors:
            self._tensors[id(meta)] = (meta, tensor)

    def add_saved(self, node) -> None:
        # Saved forward inputs keep the Tensor itself: that is how unnamed leaves
        # get their shape and dtype.
        for name in getattr(node, "saved_names", ()):
            wrapper = getattr(node, name, None)
            tensor = getattr(wrapper, "tensor", None)
            if tensor is not None:
                self.add_tensor(tensor)

    def tensor_of(self, meta):
        entry = self._tensors.get(id(meta))
        return entry[1] if entry is not None and entry[0] is meta else None

    def name_of_meta(self, meta) -> str | None:
        name = self._names.get(id(meta))
        if name:
            return name
        tensor = self.tensor_of(meta)
        return getattr(tensor, "_name", None) if tensor is not None else None

    def name_of(self, tensor) -> str | None:
        meta = tensor._meta
        name = self._names.get(id(meta)) if meta is not None else None
        return name or getattr(tensor, "_name", None)


def as_tensor_list(outputs) -> list:
    if isinstance(outputs, Tensor):
        return [outputs]
    if isinstance(outputs, (list, tuple)) and outputs and all(isinstance(t, Tensor) for t in outputs):
        return list(outputs)
    got = type(outputs).__name__
    if isinstance(outputs, (list, tuple)):
        got = f"{got} of ({', '.join(type(t).__name__ for t in outputs)})" if outputs else f"empty {got}"
    raise TypeError(f"outputs: expected a Tensor or a non-empty list/tuple of Tensors, got {got}")


def param_pairs(params) -> list:
    """(name, tensor) pairs from a dict, a Layer, or an iterable of pairs."""
    if params is None:
        return []
    if hasattr(params, "named_parameters"):
        pairs = list(params.named_parameters())
    elif hasattr(params, "items"):
        pairs = list(params.items())
    else:
        try:
            pairs = [tuple(pair) for pair in params]
        except TypeError:
            pairs = None
    if pairs is None or not all(len(p) == 2 and isinstance(p[1], Tensor) for p in pairs):
        raise TypeError(
            f"params: expected a dict name -> Tensor, (name, Tensor) pairs or a Layer, "
            f"got {type(params).__name__}"
        )
    return [(str(name), tensor) for name, tensor in pairs]
