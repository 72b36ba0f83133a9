"""Forward-only calls: the backward of a captured forward, and the grad node
a replay attaches to its outputs.

Paddle's most common ``to_static`` use converts a Layer's ``forward`` while
``loss.backward()`` and ``opt.step()`` run outside the call. A capture of such a
call returns outputs whose graph no backward in the call ran. While the
recorder is still active, :func:`capture_backward` runs that graph's backward
once per subset of the outputs that can carry a gradient, seeded with ones as
placeholders for the incoming gradients, and records its kernels. The walk is
the engine's own (same order, same sums, same kernels) but stops at the graph's
*boundary*: the edges into the leaves' accumulation nodes (parameters, inputs
that require a gradient) and into the graph of an input made outside the call,
where a sink collects the gradient the edge would carry. The graph of the
capture itself is left as it was (its edges are put back), so the capturing
call's outputs are plain eager tensors.

A replay then runs the forward kernels and attaches one :class:`ReplayGradNode`
to its outputs. Its ``apply`` runs the recorded backward kernels with the
incoming gradients in the seeds' places, and returns each boundary edge's
gradient; the engine delivers them exactly as it delivers any node's results
(accumulation into ``.grad``, hooks on leaves, retained gradients, an input's
outer graph, ``paddle.grad``). The node checks, as saved tensors do, that the
tensors its backward reads were not modified in place since the forward, and
frees what it holds after a backward without ``retain_graph``.
"""
from __future__ import annotations

import itertools

from phi import api as phi_api
from phi.core import DenseTensor

from ..autograd import engine
from ..autograd.accumulation import LEAF_WALK
from ..autograd.grad_mode import STATE
from ..autograd.node import GradNodeBase
from ..errors import AutogradError
from ..tensor import Tensor

# Outputs that may carry a gradient, at most: a backward is recorded for every
# non-empty subset of them (the outputs a loss outside actually uses).
MAX_GRAD_OUTPUTS = 3


class NotCapturable(Exception):
    """The forward's graph has something a recorded backward cannot repeat."""


class _Sink(GradNodeBase):
    """Stands for a boundary edge during the recorded walk: the engine collects
    the gradient arriving here as it would for a leaf."""

    __slots__ = ()
    backward_op = "to_static_boundary"
    is_accumulation = True
    post_hooks = None

    def __init__(self):
        super().__init__(())

    def apply(self, grads, create_graph: bool):
        return ()


class RecordedBackward:
    """What :func:`capture_backward` found: ``programs`` maps each mask (a tuple
    of bools, one per gradient output) to (calls, seed slots, result slots: one
    per boundary, None where no gradient reaches it); ``boundaries`` holds one
    (node, slot) per boundary edge, in the order of the results."""

    __slots__ = ("programs", "boundaries")

    def __init__(self, programs, boundaries):
        self.programs = programs
        self.boundaries = boundaries


def _internal_nodes(roots, boundary_nodes):
    """Every node reachable from ``roots`` without passing a boundary node, and
    the boundary edges (node, slot) reached, in order of discovery."""
    internal, edges, order = set(roots), {}, list(roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        for slot in node.next_edges:
            for edge in slot:
                if edge is None:
                    continue
                target = edge[0]
                if target in boundary_nodes:
                    edges.setdefault(edge, len(edges))
                elif target.is_accumulation:
                    raise NotCapturable("a leaf tensor made during the call requires a gradient (its "
                                        "gradient would go to a tensor a replay does not rebuild)")
                elif target not in internal:
                    internal.add(target)
                    order.append(target)
                    stack.append(target)
    return order, list(edges)


def capture_backward(rec, outputs, boundary_nodes) -> RecordedBackward:
    """Records the backward of the graph behind ``outputs`` (Tensors, each with an
    internal grad node) with ``rec`` (active), once per non-empty subset of
    them; ``boundary_nodes`` are the nodes where the graph leaves the call.
    Raises NotCapturable for what a recorded backward cannot repeat."""
    roots_edges = [(t._meta.node, t._meta.slot) for t in outputs]
    order, boundaries = _internal_nodes(list(dict.fromkeys(n for n, _ in roots_edges)), boundary_nodes)
    for node in order:
        if node.pre_hooks or node.retain_metas:
            raise NotCapturable("a tensor made during the call has a gradient hook or retains its "
                                "gradient (Python that runs during the backward outside)")
    sinks = {edge: _Sink() for edge in boundaries}
    saved_edges = []
    try:
        for node in order:  # boundary edges lead to sinks for the recorded walk
            edges = node.next_edges
            if any(e is not None and e in sinks for slot in edges for e in slot):
                saved_edges.append((node, edges))
                node.next_edges = tuple(tuple(None if e is None else (sinks[e], 0) if e in sinks else e
                                              for e in slot) for slot in edges)
        programs = {}
        count = len(outputs)
        for mask in itertools.product((True, False), repeat=count):
            if not any(mask):
                continue
            programs[mask] = _record_one(rec, outputs, roots_edges, mask, [sinks[e] for e in boundaries])
    finally:
        for node, edges in saved_edges:
            node.next_edges = edges
    return RecordedBackward(programs, boundaries)


def _record_one(rec, outputs, roots_edges, mask, sinks):
    holders, seed_slots = {}, []
    rec.depth += 1  # the seeds are placeholders, not kernels of the trace
    try:
        seeds = [Tensor(phi_api.full_like(t.impl, 1, None)) if wanted else None
                 for t, wanted in zip(outputs, mask)]
    finally:
        rec.depth -= 1
    roots = []
    for seed, (node, slot) in zip(seeds, roots_edges):
        if seed is None:
            seed_slots.append(None)
            continue
        seed_slots.append(rec._new_slot(seed.impl.array))
        holder = holders.setdefault(node, [None] * node.num_grad_slots)
        holder[slot] = seed
        if node not in roots:
            roots.append(node)
    mark = len(rec.calls)
    previous, previous_walk = STATE.enabled, LEAF_WALK.state
    # No leaf writer may write into a .grad during this walk (not even an outer
    # backward's, should a hook call the function): every boundary gradient
    # must arrive in ``leaves`` as a sink's.
    STATE.enabled, LEAF_WALK.state = False, None
    try:
        leaves, _, _ = engine._walk_plain(roots, holders, False, engine._count_dependencies(roots), [])
    finally:
        STATE.enabled, LEAF_WALK.state = previous, previous_walk
    if rec.reason is not None:
        raise NotCapturable(rec.reason)
    arrived = {id(node): grad for node, grad in leaves}
    results = []
    for sink in sinks:
        grad = arrived.get(id(sink))
        if grad is None:
            results.append(None)
            continue
        impl = grad.impl
        slot = rec.slot(impl.array) if type(impl) is DenseTensor else None
        if slot is None:
            raise NotCapturable("the backward of the call makes a gradient outside the phi kernels")
        results.append(slot)
    return rec.calls[mark:], [s for s in seed_slots if s is not None], results


class ReplayGradNode(GradNodeBase):
    """The grad node of one replayed forward-only call (see the module doc).

    ``programs`` maps a mask of the incoming gradients to its compiled backward
    ``run(saved + seeds) -> one array (or None) per edge slot``; ``saved`` are the
    arrays those programs read from the forward (None once released); ``checks``
    the (DenseTensor, version) pairs of the tensors they read that a user could
    modify in place; ``on_create_graph`` is called before a backward with
    ``create_graph=True`` is refused.
    """

    __slots__ = ("programs", "saved", "checks", "on_create_graph")
    backward_op = "to_static_grad"
    forward_op = "to_static"

    def __init__(self, next_edges, num_grad_slots, programs, saved, checks, on_create_graph):
        super().__init__(next_edges)
        self.num_grad_slots = num_grad_slots
        self.programs = programs
        self.saved = saved
        self.checks = checks
        self.on_create_graph = on_create_graph

    def apply(self, grads, create_graph: bool):
        if create_graph:
            self.on_create_graph()
            raise AutogradError(
                "to_static_grad: backward with create_graph=True through the output of a replayed "
                "to_static call: the replay keeps no differentiable graph of its forward. This input "
                "signature runs eagerly from the next call on; run this step again, or call the "
                "function's rollback() (or eager.jit.enable_to_static(False)) for double backward.")
        saved = self.saved
        if saved is None:
            raise AutogradError(
                f"{self.backward_op}: trying to run backward through the graph a second time, but "
                f"its saved tensors were freed after the first backward. Pass retain_graph=True to "
                f"the first backward() or grad() to keep them.")
        for impl, version in self.checks:
            if impl.version != version:
                raise AutogradError(
                    f"{self.backward_op}: a tensor saved for backward by {self.forward_op} was modified "
                    f"by an inplace operation: a tensor of shape {list(impl.dims)} and dtype "
                    f"{impl.dtype} was saved at version {version} and is now at version "
                    f"{impl.version}. Use the out-of-place op, or clone() the tensor before "
                    f"modifying it.")
        seeds, mask = [], []
        for grad in grads:
            if grad is None:
                mask.append(False)
                continue
            if type(grad.impl) is not DenseTensor:
                raise AutogradError(f"{self.backward_op}: the gradient of a to_static output must be a "
                                    f"dense tensor, got {type(grad.impl).__name__}")
            mask.append(True)
            seeds.append(grad.impl.array)
        arrays = self.programs[tuple(mask)](saved + tuple(seeds))
        made = {}
        incoming = {id(g.impl.array): g for g in grads if g is not None}
        out = []
        for array in arrays:
            if array is None:
                out.append(None)
                continue
            # A gradient passed through (add's backward) is the incoming Tensor itself, as
            # in eager; an array returned for two edges is one Tensor.
            tensor = incoming.get(id(array))
            if tensor is None:
                tensor = made.get(id(array))
                if tensor is None:
                    tensor = made[id(array)] = Tensor(DenseTensor(array))
            out.append((tensor,))
        return tuple(out)

    def release(self) -> None:
        self.saved = None


__all__ = ["MAX_GRAD_OUTPUTS", "NotCapturable", "RecordedBackward", "ReplayGradNode", "capture_backward"]
