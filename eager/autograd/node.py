"""Grad nodes: one per recorded op, holding what its backward op needs.

An edge is a ``(node, rank)`` pair: the grad node of a forward input and which
of that node's gradient slots (forward outputs) the input was. A node's
``next_edges`` has one entry per forward input, None where the input stops
gradients.
"""
from __future__ import annotations

import weakref

from .scope import SCOPE
from .tensor_wrapper import AutogradError


class GradSlotMeta:
    """Shape and dtype of the gradient a slot expects: used to fill zeros for a
    forward output whose gradient never came, and to check hook results."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype


class GradNodeBase:
    """Base of every grad node. Subclasses (generated) set ``name`` (the backward
    op), ``num_outputs``, ``saved_names`` and implement ``apply``."""

    # slot_metas and pre_hooks are rare (multi-output ops, hooks): they live in
    # __dict__ with class-level defaults, keeping node creation to two writes.
    __slots__ = ("next_edges", "scope", "__dict__", "__weakref__")
    slot_metas = None
    pre_hooks = None  # rank -> {handle id: hook}
    retain_metas = None  # rank -> weakref to the AutogradMeta that retains its grad
    name = "grad_node"
    op_name = ""
    num_outputs = 1
    saved_names: tuple = ()
    attr_names: tuple = ()
    is_view = False  # the forward op's output shares its input's buffer

    def __init__(self, next_edges):
        self.next_edges = next_edges
        self.scope = SCOPE.current

    def apply(self, grads, create_graph: bool):
        """Gradients of the forward inputs from gradients of the forward outputs."""
        raise NotImplementedError

    def release(self) -> None:
        """Frees the saved tensors (after a backward without retain_graph)."""
        for name in self.saved_names:
            wrapper = getattr(self, name)
            if wrapper is not None:
                wrapper.release()

    def saved_tensors(self) -> dict:
        """Name -> TensorWrapper of what this node keeps for backward."""
        return {name: getattr(self, name) for name in self.saved_names
                if getattr(self, name) is not None}

    def run_pre_hooks(self, grads):
        """Runs the tensor hooks registered on this node's slots, in registration order,
        then stores the gradients of tensors that retain theirs."""
        grads = list(grads)
        for rank, hooks in (self.pre_hooks or {}).items():
            for hook in list(hooks.values()):
                if grads[rank] is None:
                    break
                replaced = hook(grads[rank])
                if replaced is not None:
                    grads[rank] = check_hook_result(hook, grads[rank], replaced)
        for rank, meta_ref in (self.retain_metas or {}).items():
            meta = meta_ref()
            if meta is not None and grads[rank] is not None:
                from .engine import accumulate

                meta.grad = grads[rank] if meta.grad is None else accumulate(meta.grad, grads[rank], False)
        return grads

    @property
    def next_functions(self) -> tuple:
        return tuple(edge for edge in self.next_edges)

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"


class GradNodeAccumulation(GradNodeBase):
    """The end of every path to a leaf: adds the arriving gradient into ``.grad``.

    It holds the leaf's AutogradMeta and the leaf itself weakly: the meta holds
    this node, and the tensor should die with its last user reference, not with
    the next GC cycle.
    """

    __slots__ = ("_meta_ref", "tensor_ref")
    name = "accumulate_grad"
    post_hooks = None  # {handle id: hook(tensor)}, run after .grad is updated

    def __init__(self, meta, tensor=None):
        super().__init__(())
        self._meta_ref = weakref.ref(meta)
        self.tensor_ref = None if tensor is None else weakref.ref(tensor)

    @property
    def tensor(self):
        """The leaf tensor, while it is alive."""
        return None if self.tensor_ref is None else self.tensor_ref()

    def apply(self, grads, create_graph: bool):
        grad = grads[0]
        meta = self._meta_ref()
        if meta is None or grad is None:
            return ()
        if meta.grad is None:
            meta.grad = grad
        else:
            from .engine import accumulate  # engine imports this module

            meta.grad = accumulate(meta.grad, grad, create_graph)
        if self.post_hooks:
            tensor = self.tensor
            for hook in list(self.post_hooks.values()):
                hook(tensor)
        return ()


class UnsupportedOrderNode(GradNodeBase):
    """Stands behind a gradient that backward.yaml cannot differentiate further.

    It raises only if a backward pass actually reaches it, so create_graph=True
    is fine as long as nobody asks for the order the YAML does not define.
    """

    __slots__ = ("order",)
    name = "unsupported_order"

    def __init__(self, op_name: str, order: int):
        super().__init__(())
        self.op_name = op_name  # an instance value over the class default
        self.order = order

    def apply(self, grads, create_graph: bool):
        raise AutogradError(
            f"{self.op_name} is differentiable to order {self.order} only: backward.yaml gives "
            f"its order-{self.order} backward op neither a `backward:` nor a `composite:` "
            f"entry, so order {self.order + 1} cannot be computed"
        )


def limit_order(grads, op_name: str, order: int):
    """Gives each gradient a history that raises when differentiated (see UnsupportedOrderNode)."""
    from .meta import AutogradMeta

    node = UnsupportedOrderNode(op_name, order)
    node.num_outputs = len(grads)
    for rank, grad in enumerate(grads):
        if grad is not None and grad.impl.array.dtype.kind in "fc":
            grad._meta = AutogradMeta(node, rank)
    return grads


def check_hook_result(hook, grad, replaced):
    """A hook may replace a gradient only by one of the same shape, dtype and place."""
    from ..tensor import Tensor

    name = getattr(hook, "__qualname__", repr(hook))
    if not isinstance(replaced, Tensor):
        raise TypeError(f"hook {name} returned {type(replaced).__name__}; a hook returns a Tensor or None")
    if replaced.shape != grad.shape or replaced.dtype != grad.dtype or replaced.place != grad.place:
        raise ValueError(
            f"hook {name} returned a gradient of {replaced.dtype}{replaced.shape} on "
            f"{replaced.place}; it must keep {grad.dtype}{grad.shape} on {grad.place}"
        )
    return replaced


def fill_missing_grads(node, grads, optional: tuple):
    """Zeros for the outputs of a multi-output op whose gradient never came
    (they were not used), decided by the slot metadata recorded in the forward."""
    if all(g is not None for g in grads):
        return grads
    from ..tensor import Tensor
    from phi import api as phi_api
    from phi.common import CPUPlace

    filled = list(grads)
    for index, grad in enumerate(grads):
        if grad is None and index not in optional:
            meta = node.slot_metas[index]
            filled[index] = Tensor(phi_api.full(meta.shape, 0, meta.dtype, CPUPlace()))
    return filled


def edge_of(tensor):
    """The edge a recorded op takes to ``tensor``, or None if it stops gradients.

    A leaf that requires a gradient gets its accumulation node here, on first use.
    """
    meta = tensor._meta
    if meta is None or meta.stop_gradient:
        return None
    node = meta.node
    if node is None:
        node = meta.node = GradNodeAccumulation(meta, tensor)
    return (node, meta.rank)


__all__ = ["AutogradError", "GradNodeBase", "GradNodeAccumulation", "GradSlotMeta", "edge_of"]
