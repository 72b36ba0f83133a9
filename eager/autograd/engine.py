"""The backward engine: walks the graph from the roots and runs each grad node once,
after every gradient flowing into it has arrived.

Iterative throughout (no recursion), so a chain of 100,000 ops is fine.

A backward is a transaction: the walk only computes. What it changes for the
user (leaves' ``.grad``, retained gradients, released saved tensors) is
collected and applied once every node has run, so an error raised by a hook,
a saved tensor or a PyLayer leaves every ``.grad`` as it was and the graph
intact for another try. Then the post-accumulate hooks and the final callbacks
(``queue_callback``) run.
"""
from __future__ import annotations

import itertools
import threading
import time

from phi.core.dense_tensor import DenseTensor

from ..errors import AutogradError
from ..tensor import Tensor
from .accumulation import (ACCUMULATION_LOCK, LEAF_WALK, accumulate_into_leaf, accumulate_leaves, add_grads,
                           edge_of, undo_leaf_writes)
from .anomaly import ANOMALY, check_backward
from .grad_mode import STATE
from .meta import is_flag_only_trainable
from .node import fill_missing_grads
from .op_modes import MODES
from .seeds import ones_like

# Stands for "no gradient" for every edge of a slot, or every slot of a node.
_NONES = itertools.repeat(None)

# Functions run at the end of the current backward, after every .grad is set
# (queue_callback); per thread, as each thread runs its own backward. ``writes``:
# whether that backward adds into .grad (writes_grad).
_CALLBACKS = threading.local()


def queue_callback(callback) -> None:
    """Runs ``callback()`` once the backward pass now running has finished and
    every ``.grad`` is set (PyTorch's ``Variable._execution_engine.queue_callback``;
    DESIGN.md's final hooks). Called from inside a hook; data parallel waits
    for its all-reduces here. Outside a backward it is an error."""
    queue = getattr(_CALLBACKS, "queue", None)
    if queue is None:
        raise AutogradError("queue_callback: no backward pass is running in this thread; "
                            "call it from a hook during backward")
    if not callable(callback):
        raise TypeError(f"queue_callback: expected a callable, got {type(callback).__name__}")
    queue.append(callback)


# Paddle's backward final hooks (core.eager._add_backward_final_hook): process-wide, each
# runs once, at the end of the next backward pass of any thread, then is dropped.
_FINAL_HOOKS: list = []


def add_backward_final_hook(hook) -> None:
    """Runs ``hook()`` once, when the next backward pass (``backward()`` or
    ``eager.grad``) has finished and its gradients are set; then forgets it
    (Paddle's ``core.eager._add_backward_final_hook``: amp's master_grad casts
    the float16 gradients to float32 there)."""
    if not callable(hook):
        raise TypeError(f"add_backward_final_hook: expected a callable, got {type(hook).__name__}")
    _FINAL_HOOKS.append(hook)


def _run_final_hooks() -> None:
    hooks = _FINAL_HOOKS[:]
    del _FINAL_HOOKS[:len(hooks)]  # a hook may register the next pass's hook
    for hook in hooks:
        hook()


def writes_grad() -> bool:
    """Whether the backward pass running in this thread will add its gradients
    into the leaves' ``.grad`` (``backward()``), as opposed to returning them
    (``eager.grad``); False outside a backward. For hooks that act on what
    ``.grad`` will get (group sharding reduces it across ranks)."""
    return getattr(_CALLBACKS, "writes", False)


def _root_edge(tensor, position: int, what: str):
    meta = tensor._meta
    if meta is None or meta.stop_gradient:
        if is_flag_only_trainable(tensor):
            raise AutogradError(
                f"{what}: {_ordinal(position)} tensor is an integer tensor ({tensor.dtype}); its "
                f"stop_gradient=False is only a flag: eager records no gradients through integer tensors"
            )
        raise AutogradError(
            f"{what}: {_ordinal(position)} tensor has stop_gradient=True, so no gradient "
            f"can flow from it; set stop_gradient=False on the inputs you differentiate"
        )
    return edge_of(tensor)


def _seed(tensor, grad_tensor, position: int, what: str):
    if grad_tensor is None:
        # Ones of the tensor's shape, as Paddle seeds any tensor (PyTorch asks for
        # one unless the tensor has a single element).
        return Tensor(ones_like(tensor.impl))
    if not isinstance(grad_tensor, Tensor):
        raise TypeError(
            f"{what}: grad_tensor for the {_ordinal(position)} tensor expected a Tensor or "
            f"None, got {type(grad_tensor).__name__}"
        )
    if tuple(grad_tensor.shape) != tuple(tensor.shape) or grad_tensor.dtype != tensor.dtype:
        raise ValueError(
            f"{what}: grad_tensor for the {_ordinal(position)} tensor must match it: expected "
            f"{tensor.dtype}{list(tensor.shape)}, got {grad_tensor.dtype}{list(grad_tensor.shape)}"
        )
    return grad_tensor


def _ordinal(i: int) -> str:
    return {0: "first", 1: "second", 2: "third"}.get(i, f"{i + 1}th")


def _count_dependencies(roots) -> dict:
    """node -> number of edges into it from nodes reachable from the roots (a
    root no edge reaches has 0: it is ready at once).

    The node an edge reached first goes next without a trip through the stack
    (the others found at that node are pushed), so a chain is counted in one
    inner loop: no push and pop per node."""
    dependencies = dict.fromkeys(roots, 0)  # a root is on the stack already
    get = dependencies.get
    stack = list(dependencies)
    push, pop = stack.append, stack.pop
    while stack:
        node = pop()
        while True:
            if node.single_edge_slots:  # one edge per slot: unpacked, no inner loop
                edges = node.next_edges
            else:
                edges = [(edge,) for slot in node.next_edges for edge in slot]
            following = None  # a node first reached from this one, counted next
            for (edge,) in edges:
                if edge is None:
                    continue
                nxt = edge[0]
                count = get(nxt)
                if count is None:
                    dependencies[nxt] = 1
                    if following is not None:
                        push(following)
                    following = nxt
                else:
                    dependencies[nxt] = count + 1
            if following is None:
                break
            node = following
    return dependencies


def run_backward(tensors, grad_tensors, retain_graph: bool, create_graph: bool = False,
                 inputs=None, allow_unused: bool = False, what: str = "backward", cut=None):
    """Runs the graph behind ``tensors``.

    Without ``inputs`` it accumulates into the leaves' ``.grad``. With ``inputs``
    it returns their gradients instead, touching no ``.grad``, and runs only the
    nodes on a path from the roots to an input. ``cut`` is a set of
    ``(node, slot)`` edges whose arriving gradients are dropped, so nothing
    flows through those tensors (grad's no_grad_vars).
    """
    holders: dict = {}
    roots = []
    for i, (tensor, grad_tensor) in enumerate(zip(tensors, grad_tensors)):
        if allow_unused and inputs is not None and (tensor._meta is None or tensor._meta.stop_gradient):
            continue  # as in Paddle: an output no gradient flows from adds nothing
        node, slot = _root_edge(tensor, i, what)
        seed = _seed(tensor, grad_tensor, i, what)
        slots = holders.get(node)
        if slots is None:
            slots = holders[node] = [None] * node.num_grad_slots
        slots[slot] = seed if slots[slot] is None else add_grads(slots[slot], seed, create_graph)
        if node not in roots:
            roots.append(node)
    if not roots:
        return [None] * len(inputs)
    del seed, slots  # a gradient held here would look shared to the leaf commit

    captures = None
    if inputs is not None:
        captures = _capture_points(inputs)
    recorder = MODES.recorder  # the profiler's (eager.profiler): the walk is one "Backward" span
    if recorder is not None:
        start = time.perf_counter_ns()
    previous_queue = getattr(_CALLBACKS, "queue", None)
    previous_writes = getattr(_CALLBACKS, "writes", False)
    callbacks = _CALLBACKS.queue = []
    _CALLBACKS.writes = inputs is None
    try:
        leaves, retained, ran, captured = _walk(roots, holders, captures, create_graph, cut)
    finally:
        _CALLBACKS.queue = previous_queue
        _CALLBACKS.writes = previous_writes
        if recorder is not None:
            recorder.add_span(what, "Backward", start)
    if inputs is not None:
        for i, grad in enumerate(captured):
            if grad is None and not allow_unused:
                if is_flag_only_trainable(inputs[i]):
                    raise AutogradError(
                        f"{what}: the {_ordinal(i)} input is an integer tensor ({inputs[i].dtype}); eager "
                        f"records no gradients through integer tensors (its stop_gradient=False is only "
                        f"a flag); pass allow_unused=True to get None for it")
                raise AutogradError(
                    f"{what}: the {_ordinal(i)} input is not reached from the outputs, so it has "
                    f"no gradient; pass allow_unused=True to get None for it"
                )
    # grad() writes no .grad, retained ones included (a retained gradient with
    # create_graph would also hold its own tensor in a reference cycle).
    if inputs is None:
        _commit(leaves, retained, create_graph)
    if not retain_graph:
        for node in ran:
            node.release()
    for callback in callbacks:
        callback()
    if _FINAL_HOOKS:  # one list check per pass: empty unless amp's master_grad is on
        _run_final_hooks()
    return captured


def _walk(roots, holders, captures, create_graph: bool, cut):
    """Runs every node reachable from the roots once its gradients are all in.

    Returns what the transaction applies afterwards: the leaves' gradients, the
    nodes with retained gradients, the nodes that ran (to release), and the
    gradients captured for grad()'s inputs. Its own locals die with it, so the
    leaves' gradients are held by the returned list alone.
    """
    dependencies = _count_dependencies(roots)
    # A plain walk without create_graph lets leaf writers (accumulation.py) fill a
    # zeroed .grad; they add (leaf node, None) to leaves, undone if the walk fails.
    previous_walk, leaves = LEAF_WALK.state, []
    if (captures is None and cut is None and not ANOMALY.enabled
            and not (MODES.active and (MODES.checker() or MODES.timing_ops()))):
        previous_mode = STATE.enabled
        STATE.enabled = create_graph
        LEAF_WALK.state = None if create_graph else (dependencies, holders, leaves)
        try:
            return _walk_plain(roots, holders, create_graph, dependencies, leaves) + (None,)
        except BaseException:
            undo_leaf_writes(leaves)
            raise
        finally:
            STATE.enabled = previous_mode
            LEAF_WALK.state = previous_walk
    LEAF_WALK.state = None
    try:
        return _walk_general(roots, holders, captures, create_graph, cut, dependencies)
    finally:
        LEAF_WALK.state = previous_walk


def _walk_plain(roots, holders, create_graph: bool, dependencies, leaves):
    """The walk of a plain backward (no inputs to capture, no cut edges, anomaly
    mode off): the same steps as :func:`_walk_general`, in one tight loop.

    It also tracks which gradients are exclusively owned (see
    :func:`_exclusive`): a node whose class has ``grad_inplace`` and whose one
    gradient is owned runs ``apply_into``, which may write its result into that
    gradient's buffer instead of a new one. ``leaves`` is the caller's list
    (leaf writers add to it during the walk; see :func:`_walk`).

    The node that a node's edges made ready last runs next without a trip
    through the ready stack (it is what the stack would pop next), so a chain
    runs as one inner loop. A node that is not ``special`` (no hooks, no
    retained gradient, not a leaf's, one edge per slot: nearly every node) is
    run after one attribute read; the others take the general steps.
    """
    ready = [node for node in roots if not dependencies[node]]
    retained, ran = [], []
    owned = set()  # nodes whose one gradient, in holders, is exclusively owned
    inplace = not create_graph
    # Locals: this loop runs once per node of the graph.
    pop_ready, push_ready, pop_holder, get_holder = ready.pop, ready.append, holders.pop, holders.get
    ran_append = ran.append
    while ready:
        node = pop_ready()
        grads = pop_holder(node, None)
        own = node in owned
        while True:
            if grads is not None and not node.special:
                outputs = node.apply_into(grads) if own and node.grad_inplace else node.apply(grads, create_graph)
                ran_append(node)
                pairs = zip(node.next_edges, outputs)
                single = True
            else:
                if grads is None:  # nothing arrived (every gradient into it was None)
                    outputs = _NONES
                else:
                    # A gradient a hook saw or a retained one is never owned: the hook
                    # may keep it, the retained one becomes a .grad.
                    if node.pre_hooks is not None:
                        grads = node.run_pre_hooks(grads)
                        own = False
                    if node.retain_metas is not None:
                        retained.append((node, grads))
                        own = False
                    if node.is_accumulation:
                        if grads[0] is not None:
                            leaves.append((node, grads[0]))
                        break
                    outputs = (node.apply_into(grads) if own and node.grad_inplace
                               else node.apply(grads, create_graph))
                    ran_append(node)
                # One (edge slot, its gradients) pair per edge, as in _walk_general.
                pairs = zip(node.next_edges, outputs)
                single = node.single_edge_slots
                if not single:
                    pairs = [((edge,), None if grads_ is None else (grad,)) for slot, grads_ in pairs
                             for edge, grad in zip(slot, _NONES if grads_ is None else grads_)]
            # The node made ready last runs next (the stack would pop it next), its
            # gradients and ownership kept in locals rather than in holders/owned.
            following = following_grads = following_own = None
            for (edge,), grads_ in pairs:
                if edge is None:
                    continue
                nxt = edge[0]
                grad = None if grads_ is None else grads_[0]
                remaining = dependencies[nxt] - 1
                if remaining:
                    dependencies[nxt] = remaining
                    if grad is not None:
                        holder = get_holder(nxt)
                        if holder is None:
                            if nxt.num_grad_slots == 1:
                                holders[nxt] = [grad]
                                if (inplace and nxt.tracks_ownership and node.fresh_grads
                                        and _exclusive(grads, outputs, grad, own)):
                                    owned.add(nxt)
                            else:
                                holder = holders[nxt] = [None] * nxt.num_grad_slots
                                holder[edge[1]] = grad
                        else:
                            slot = edge[1]
                            current = holder[slot]
                            if current is None:
                                holder[slot] = grad
                            else:
                                holder[slot] = add_grads(current, grad, create_graph)
                                if inplace and nxt.tracks_ownership and nxt.num_grad_slots == 1:
                                    owned.add(nxt)  # the sum is a new buffer, held here alone
                    continue
                # nxt is ready: its last gradient arrives here
                holder = pop_holder(nxt, None) if holders else None
                if holder is None:
                    next_own = False
                    if grad is not None:
                        if nxt.num_grad_slots == 1:
                            holder = [grad]
                            if inplace and nxt.tracks_ownership and node.fresh_grads:
                                if grad is grads[0]:
                                    # Its incoming gradient, written into or passed through:
                                    # owned if it was owned at the node and is the node's one
                                    # result (_exclusive's answer, mostly without the call).
                                    next_own = own and (
                                        single and len(grads_) == 1 and outputs.count(None) == len(outputs) - 1
                                        or _exclusive(grads, outputs, grad, own))
                                else:
                                    next_own = _exclusive(grads, outputs, grad, own)
                        else:
                            holder = [None] * nxt.num_grad_slots
                            holder[edge[1]] = grad
                else:
                    next_own = nxt in owned
                    if grad is not None:
                        slot = edge[1]
                        current = holder[slot]
                        if current is None:
                            holder[slot] = grad
                        else:
                            holder[slot] = add_grads(current, grad, create_graph)
                            if inplace and nxt.tracks_ownership and nxt.num_grad_slots == 1:
                                next_own = True  # the sum is a new buffer, held here alone
                if following is not None:  # a node made ready before: back to the stack
                    if following_grads is not None:
                        holders[following] = following_grads
                    if following_own:
                        owned.add(following)
                    push_ready(following)
                following, following_grads, following_own = nxt, holder, next_own
            if following is None:
                break
            node, grads, own = following, following_grads, following_own
    return leaves, retained, ran


def _exclusive(incoming, outputs, grad, own: bool) -> bool:
    """Whether ``grad``, one of the gradients a node returned, is exclusively
    owned by the one edge it goes to, so its consumer may write into it.

    Ownership is decided from the graph, never from reference counts: the
    gradient must come from a generated grad node (``fresh_grads``, checked by
    the caller: its kernel returns new arrays, views, or its incoming
    gradients), be a dense tensor whose array owns its memory (not a view),
    appear once among the node's results (a gradient passed to two inputs is
    shared), and not be one of the node's incoming gradients unless that one
    was owned and unseen by hooks or retain_grads at the node (``own``: passed
    through). The seed, a hook's result, a retained gradient, a PyLayer's
    results and a ``.grad`` never qualify: they are not fresh results of a
    generated node, or their consumer has hooks or retains them (checked
    before ``apply_into``).
    """
    impl = grad.impl
    if type(impl) is not DenseTensor:
        return False
    array = impl.array
    if array.base is not None:
        return False
    if len(outputs) != 1 or len(outputs[0]) != 1:  # one result only: it is grad
        seen = 0
        for slot in outputs:
            if slot is not None:
                for other in slot:
                    if other is not None and (other is grad or getattr(other.impl, "array", None) is array):
                        seen += 1
        if seen != 1:
            return False
    for other in incoming:
        if other is not None and (other is grad or getattr(other.impl, "array", None) is array):
            return own  # passed through: owned only if it was owned at the node
    return True


def _walk_general(roots, holders, captures, create_graph: bool, cut, dependencies):
    """The walk with grad()'s captured inputs, cut edges, anomaly checks, the
    tensor checker, or the profiler timing each grad node as an op."""
    if captures is not None:
        captures, captured = captures
        needed = _nodes_above(roots, captures)
    else:
        needed = captured = None
    ready = [node for node in roots if not dependencies[node]]
    leaves, retained, ran = [], [], []
    # Locals: this loop runs once per node of the graph.
    pop_ready, push_ready, pop_holder = ready.pop, ready.append, holders.pop
    capturing = captures is not None
    anomaly = ANOMALY.enabled
    checker = None if create_graph or not MODES.active else MODES.checker()  # eager.amp.debugging
    recorder = MODES.timing_ops()  # eager.profiler
    previous_mode = STATE.enabled
    STATE.enabled = create_graph
    try:
        while ready:
            node = pop_ready()
            grads = pop_holder(node, None)
            if grads is not None:
                if node.pre_hooks is not None:
                    grads = node.run_pre_hooks(grads)
                if node.retain_metas is not None:
                    retained.append((node, grads))
            if capturing:
                for slot, index in captures.get(node, ()):
                    captured[index] = None if grads is None else grads[slot]
                if node not in needed:
                    grads = None
            if grads is None:
                outputs = None
            elif node.is_accumulation:
                if grads[0] is not None:
                    leaves.append((node, grads[0]))
                continue
            else:
                if recorder is not None:
                    start = time.perf_counter_ns()
                outputs = node.apply(grads, create_graph)
                if recorder is not None:
                    recorder.add_op(node.backward_op, grads, start)
                if anomaly:
                    check_backward(node, outputs)
                if checker is not None:
                    MODES.check_gradients(checker, node, outputs)
                ran.append(node)
            # One (edge slot, its gradients) pair per edge. Nearly every node has one
            # edge per slot and is iterated as it is; a node with a Tensor[] input
            # has its slots split into one-edge pairs first.
            pairs = zip(node.next_edges, _NONES if outputs is None else outputs)
            if not node.single_edge_slots:
                pairs = [((edge,), None if grads_ is None else (grad,)) for slot, grads_ in pairs
                         for edge, grad in zip(slot, _NONES if grads_ is None else grads_)]
            for (edge,), grads_ in pairs:
                if edge is None:
                    continue
                nxt, nxt_slot = edge
                grad = None if grads_ is None else grads_[0]
                if grad is not None and (cut is None or edge not in cut):
                    holder = holders.get(nxt)
                    if holder is None:
                        holder = holders[nxt] = [None] * nxt.num_grad_slots
                    current = holder[nxt_slot]
                    holder[nxt_slot] = grad if current is None else add_grads(current, grad, create_graph)
                remaining = dependencies[nxt] - 1
                dependencies[nxt] = remaining
                if remaining == 0:
                    push_ready(nxt)
    finally:
        STATE.enabled = previous_mode
    return leaves, retained, ran, captured


def _commit(leaves, retained, create_graph: bool) -> None:
    """Applies what a finished walk computed: retained gradients and the leaves'
    ``.grad`` (atomically with respect to other threads), then the leaves'
    post-accumulate hooks."""
    hooked = [node for node, _ in leaves if node.post_hooks]
    with ACCUMULATION_LOCK:
        for node, grads in retained:
            if node.slot_metas is not None:  # an unused output of a multi-output op: zeros (Paddle)
                grads = fill_missing_grads(node, grads, ())
            for slot, tensor_ref in node.retain_metas.items():
                tensor = tensor_ref()
                if tensor is None or grads[slot] is None:
                    continue
                # Its current meta: after an inplace op on the tensor (a new history,
                # a new meta) the gradient of the value it retained still lands in
                # its .grad, as in Paddle (whose tensor keeps one meta).
                meta = tensor._meta
                if meta is not None:
                    meta.retain_grads = True
                    accumulate_into_leaf(meta, grads[slot], False)
        accumulate_leaves(leaves, create_graph)
    for node in hooked:
        tensor = node.tensor
        for hook in list(node.post_hooks.values()):
            hook(tensor)


def _capture_points(inputs):
    """node -> [(slot, index into the result)], and the result list to fill."""
    captures: dict = {}
    for index, tensor in enumerate(inputs):
        edge = edge_of(tensor)
        if edge is not None:
            node, slot = edge
            captures.setdefault(node, []).append((slot, index))
    return captures, [None] * len(inputs)


def _nodes_above(roots, targets) -> set:
    """The nodes reachable from the roots that have a path down to a target node."""
    parents: dict = {}
    seen = set(roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        for slot in node.next_edges:
            for edge in slot:
                if edge is None:
                    continue
                parents.setdefault(edge[0], []).append(node)
                if edge[0] not in seen:
                    seen.add(edge[0])
                    stack.append(edge[0])
    needed: set = set()
    stack = [t for t in targets if t in seen]
    while stack:
        node = stack.pop()
        for parent in parents.get(node, ()):
            if parent not in needed:
                needed.add(parent)
                stack.append(parent)
    return needed
