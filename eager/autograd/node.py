"""Grad nodes: one per recorded op, holding what its backward op needs.

A node has two sides, as Paddle's GradNodeBase does:

- gradient slots, one per forward output tensor (a Tensor[] output gives one
  per element): ``num_grad_slots`` of them. The engine collects the gradients
  arriving for each slot and calls ``apply`` with them.
- edge slots, one per forward tensor input: ``next_edges[i]`` is a tuple with
  one edge per tensor of input i (one for a Tensor, one per element for a
  Tensor[]). An edge is ``(node, slot)``: the grad node of that forward input
  and which of its gradient slots the input was; None where the input stops
  gradients. ``apply`` returns one entry per edge slot, shaped the same, or
  None for a whole slot that gets no gradient.

Gradient ownership (what lets a backward write into a gradient instead of a new
buffer): the engine tracks, for a node with one gradient slot and
``tracks_ownership``, whether the gradient waiting for it is exclusively owned,
meaning nothing else can see that buffer: a fresh result of a generated grad
node (``fresh_grads``) sent to that one edge, or a sum the engine made. For a
node with ``grad_inplace`` it then calls ``apply_into`` instead of ``apply``,
which computes the result into that buffer; a node without it (add's
pass-through) only passes the ownership on. Never owned: the seed, a hook's result, a
retained gradient, a ``.grad``, a PyLayer's results, anything under
``create_graph``, and a gradient whose node has hooks or retains it.
Generated grad kernels keep the contract this needs: each returns new arrays,
views of its inputs (which have a ``base``), or its incoming gradients as they
are, never a saved forward tensor's array.
"""
from __future__ import annotations

from phi import api as phi_api
from phi.api.support import FLAGS, verify_infer_meta, wrap_result
from phi.core import MetaTensor

from ..tensor import Tensor
from .meta import AutogradMeta
from .scope import SCOPE


# backward op -> wrap(apply): the apply of that op's grad node class that may write a
# leaf's gradient straight into its zeroed .grad; filled by accumulation.py (which
# imports this module), applied by GradNodeBase.__init_subclass__.
LEAF_WRITERS: dict = {}


class GradSlotMeta:
    """Shape and dtype of the gradient a slot expects: used to fill zeros for a
    forward output whose gradient never came, and to check hook results."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype


class GradNodeBase:
    """Base of every grad node. Subclasses (generated) set ``backward_op``,
    ``forward_op``, ``num_grad_slots``, ``saved_names`` and implement ``apply``."""

    # slot_metas and pre_hooks are rare (multi-output ops, hooks): they live in
    # __dict__ with class-level defaults, keeping node creation to two writes.
    __slots__ = ("next_edges", "scope", "__dict__", "__weakref__")
    slot_metas = None
    pre_hooks = None  # grad slot -> {handle id: hook}
    retain_metas = None  # grad slot -> weakref to the Tensor that retains its grad (.grad on its current meta)
    backward_op = "grad_node"
    forward_op = ""
    num_grad_slots = 1
    saved_names: tuple = ()
    attr_names: tuple = ()
    is_view = False  # the forward op's output shares its input's buffer
    is_accumulation = False  # the end of a path: a leaf's GradNodeAccumulation
    single_edge_slots = True  # every edge slot holds one edge (no Tensor[] input)
    fresh_grads = False  # its results are new buffers, views or its incoming gradients (generated nodes)
    tracks_ownership = False  # the engine says (apply_into) when its one gradient is exclusively owned
    grad_inplace = False  # apply_into writes the result into that gradient's buffer
    into_kernel = ""  # with grad_inplace: the kernel apply_into calls (generated with into_kernels, its dispatch table)
    # What the engine's walk reads first: True where it must take the general steps
    # (pre_hooks, retain_metas, is_accumulation, not single_edge_slots). Set per class
    # below, and on a node by hooks.py when it gets a hook or retains a gradient.
    special = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "special" not in cls.__dict__:
            cls.special = bool(cls.is_accumulation or not cls.single_edge_slots)
        wrap = LEAF_WRITERS.get(cls.__dict__.get("backward_op"))
        if wrap is not None and "apply" in cls.__dict__:
            cls.apply = wrap(cls.__dict__["apply"])

    def __init__(self, next_edges):
        self.next_edges = next_edges
        self.scope = SCOPE.current

    def apply(self, grads, create_graph: bool):
        """Gradients of the forward inputs (per edge slot) from those of its outputs."""
        raise NotImplementedError

    def apply_into(self, grads):
        """``apply`` without create_graph, called by the engine for a node with
        ``grad_inplace`` when its one gradient is exclusively owned (see the
        module doc): it may write its result into that gradient's buffer."""
        return self.apply(grads, False)

    def into_result(self, grad, result):
        """The gradient Tensor for what ``apply_into``'s kernel (``into_kernel``)
        returned when it was called with ``into=`` grad's array: ``grad`` itself
        when the kernel wrote there, else the result wrapped. With
        ``FLAGS.check_infer_meta`` it first checks that the result has grad's
        shape and dtype (the op's InferMeta: same as out_grad)."""
        into = grad.impl
        if FLAGS.check_infer_meta:
            verify_infer_meta(self.into_kernel, [MetaTensor(into.dims, into.dtype)], [result])
        array = into.array
        if result is array:
            return grad
        return Tensor(wrap_result(result, type(array)))

    def release(self) -> None:
        """Frees the saved tensors (after a backward without retain_graph)."""
        for name in self.saved_names:
            wrapper = getattr(self, name)
            if isinstance(wrapper, tuple):
                setattr(self, name, None)  # a shape-only spec
            elif wrapper is not None:
                wrapper.release()

    def saved_tensors(self) -> dict:
        """Name -> what this node keeps for backward: a TensorWrapper, or a
        (shape, dtype, device) spec for a shape-only save."""
        return {name: getattr(self, name) for name in self.saved_names
                if getattr(self, name) is not None}

    def edges(self):
        """Every edge of every slot, flattened (None where an input stops gradients)."""
        return [edge for slot in self.next_edges for edge in slot]

    def run_pre_hooks(self, grads):
        """Runs the tensor hooks registered on this node's gradient slots, in
        registration order; returns the (possibly replaced) gradients. A hook
        that returns :data:`TAKEN` has taken the gradient away (the gradient
        stops there: a leaf's ``.grad`` is left alone) and the later hooks of
        the slot do not run."""
        grads = list(grads)
        for slot, hooks in (self.pre_hooks or {}).items():
            for hook in list(hooks.values()):
                if grads[slot] is None:
                    break
                replaced = hook(grads[slot])
                if replaced is TAKEN:
                    grads[slot] = None
                    break
                if replaced is not None:
                    grads[slot] = check_hook_result(hook, grads[slot], replaced)
        return grads

    def __repr__(self):
        return f"<{type(self).__name__} {self.backward_op}>"


class _Taken:
    """The type of :data:`TAKEN`."""

    __slots__ = ()

    def __repr__(self):
        return "TAKEN"


# What a tensor hook returns when it has consumed the gradient itself (group
# sharding reduces a parameter's gradient onto its owner rank in the hook): the
# engine then keeps no reference to it, so its memory goes as soon as the hook's
# caller lets it go, and nothing of it reaches ``.grad``.
TAKEN = _Taken()


def check_hook_result(hook, grad, replaced):
    """A hook may replace a gradient only by one of the same shape, dtype and place."""
    name = getattr(hook, "__qualname__", repr(hook))
    if not isinstance(replaced, Tensor):
        raise TypeError(f"hook {name} returned {type(replaced).__name__}; a hook returns a Tensor or None")
    if replaced.shape != grad.shape or replaced.dtype != grad.dtype or replaced.place != grad.place:
        # another dtype or place is Paddle's RuntimeError; another shape, which Paddle takes, a ValueError
        error = ValueError if replaced.dtype == grad.dtype and replaced.place == grad.place else RuntimeError
        raise error(
            f"hook {name} returned a gradient of {replaced.dtype}{replaced.shape} on "
            f"{replaced.place}; it must keep {grad.dtype}{grad.shape} on {grad.place}"
        )
    return replaced


def fill_missing_grads(node, grads, optional: tuple):
    """Zeros for the outputs of a multi-output op whose gradient never came
    (they were not used), decided by the slot metadata recorded in the forward.
    ``optional`` holds the slots (negative: from the end) left None instead."""
    if all(g is not None for g in grads):
        return grads
    present = next(g for g in grads if g is not None)
    skip = {i % len(grads) for i in optional}
    filled = list(grads)
    for index, grad in enumerate(grads):
        if grad is None and index not in skip:
            meta = node.slot_metas[index]
            filled[index] = Tensor(phi_api.full(meta.shape, 0, meta.dtype, present.place))
    return filled


def set_history(node, outputs) -> None:
    """Makes ``node`` the history of ``outputs`` (flattened forward outputs, None
    for an output not computed): output i is gradient slot i."""
    node.num_grad_slots = len(outputs)
    for slot, tensor in enumerate(outputs):
        if tensor is not None:
            tensor._meta = AutogradMeta(node, slot)


__all__ = ["GradNodeBase", "GradSlotMeta", "check_hook_result", "fill_missing_grads",
           "set_history"]
