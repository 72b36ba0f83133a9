"""The leaf end of the graph, and how gradients are added up.

- ``GradNodeAccumulation``: the end of every path to a leaf. The engine adds the
  leaf's gradient into ``.grad`` once the whole backward has succeeded
  (see engine.py), through :func:`accumulate_into_leaf`.
- ``edge_of``: the edge a recorded op takes to a tensor, creating a leaf's
  accumulation node on first use.
- ``add_grads``: the sum of two gradients of one tensor, recorded when the
  gradients themselves are being differentiated (create_graph).

A leaf's ``.grad`` owns its buffer: the first gradient to arrive is copied
(it may be the user's seed or share a buffer with another leaf's gradient),
later ones are added into it in place by phi's ``accumulate_`` (dense, or
SelectedRows for sparse gradients), and accumulation into one leaf is atomic
across threads.
"""
from __future__ import annotations

import sys
import threading
import weakref

from phi import api as phi_api
from phi.common.tensor_kind import TensorKind
from phi.core.dense_tensor import REFS_OF_ONE_LOCAL

from ..tensor import Tensor
from .meta import AutogradMeta, is_owned_grad, own_grad
from .node import GradNodeBase

# One lock for every leaf: accumulation is a short in-place add, and a backward
# commits all its leaves under it at once (engine._commit).
ACCUMULATION_LOCK = threading.Lock()


class GradNodeAccumulation(GradNodeBase):
    """The end of every path to a leaf: its gradient goes into ``.grad``.

    It holds the leaf's AutogradMeta and the leaf itself weakly: the meta holds
    this node, and the tensor should die with its last user reference, not with
    the next GC cycle.
    """

    __slots__ = ("_meta_ref", "tensor_ref")
    backward_op = "accumulate_grad"
    is_accumulation = True
    post_hooks = None  # {handle id: hook(tensor)}, run after .grad is updated

    def __init__(self, meta, tensor=None):
        super().__init__(())
        self._meta_ref = weakref.ref(meta)
        self.tensor_ref = None if tensor is None else weakref.ref(tensor)

    @property
    def meta(self):
        """The leaf's AutogradMeta, while it is alive."""
        return self._meta_ref()

    @property
    def tensor(self):
        """The leaf tensor, while it is alive."""
        return None if self.tensor_ref is None else self.tensor_ref()

    def apply(self, grads, create_graph: bool):
        # The engine never calls this: it collects a leaf's gradient and adds it
        # into .grad once the whole backward has succeeded (engine._commit).
        return ()


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
    return (node, meta.slot)


class SumGradNode(GradNodeBase):
    """The history of a sum of two gradients made under create_graph: the
    gradient of ``a + b`` flows unchanged to both."""

    __slots__ = ()
    backward_op = "add_grads_grad"
    forward_op = "add_grads"

    def apply(self, grads, create_graph: bool):
        grad = grads[0]
        return ((grad,), (grad,))


class CopyGradNode(GradNodeBase):
    """The history of a copy of a gradient made under create_graph."""

    __slots__ = ()
    backward_op = "copy_grad_grad"
    forward_op = "copy_grad"

    def apply(self, grads, create_graph: bool):
        return ((grads[0],),)


def _recorded(result, node_class, inputs):
    edges = tuple((edge_of(t),) for t in inputs)
    if any(edge is not None for (edge,) in edges):
        result._meta = AutogradMeta(node_class(edges), 0)
    return result


def add_grads(current, incoming, create_graph: bool):
    """current + incoming in a new buffer; recorded under create_graph."""
    a, b = current.impl, incoming.impl
    if a.kind is TensorKind.DENSE and b.kind is TensorKind.DENSE:
        total = Tensor(phi_api.add(a, b))
    else:  # a SelectedRows (a sparse embedding gradient, a tied weight's other use): phi's accumulation rules
        total = Tensor(phi_api.accumulate_(phi_api.owned_copy(a), b))
    if create_graph:
        return _recorded(total, SumGradNode, (current, incoming))
    return total


def owned_copy(grad, create_graph: bool):
    """A copy of ``grad`` in a buffer of its own; recorded under create_graph."""
    copy = Tensor(phi_api.owned_copy(grad.impl))
    if create_graph:
        return _recorded(copy, CopyGradNode, (grad,))
    return copy


def held_by_caller_alone(tensor) -> bool:
    """Whether nothing but the caller's one local name refers to ``tensor``, its
    DenseTensor or its buffer: then the buffer is fresh and may become a
    ``.grad`` without a copy (PyTorch steals a gradient on the same grounds).

    Any other holder (the user's seed, a tensor a hook kept, another gradient
    sharing the buffer, a view) adds a reference and makes this False, which
    only costs a copy.
    """
    if REFS_OF_ONE_LOCAL is None:
        return False
    impl = tensor.impl
    # tensor: the caller's local and this parameter; impl: tensor's slot and `impl`
    return (sys.getrefcount(tensor) == REFS_OF_ONE_LOCAL + 1
            and sys.getrefcount(impl) == REFS_OF_ONE_LOCAL + 1
            and impl.owns_buffer_alone())


def accumulate_into_leaf(meta, grad, create_graph: bool, fresh: bool = False) -> None:
    """Adds ``grad`` into the leaf's ``.grad`` (the caller holds ACCUMULATION_LOCK).

    In place when the current ``.grad`` is a buffer accumulation owns (see
    GradBufferMeta); out of place (and recorded) under create_graph, as the sum
    must then be differentiable, and out of place over a trainable tensor the
    user assigned to ``.grad``. A ``fresh`` gradient (see
    :func:`held_by_caller_alone`) is taken without a copy.
    """
    current = meta.grad
    if current is None:
        if fresh and not create_graph:
            meta.grad = own_grad(Tensor(grad.impl))
        else:
            copy = owned_copy(grad, create_graph)
            meta.grad = copy if create_graph else own_grad(copy)
    elif create_graph or not is_owned_grad(current):
        total = add_grads(current, grad, create_graph)
        meta.grad = total if create_graph else own_grad(total)
    else:
        # accumulate_ returns acc itself for a dense acc, and a new tensor when a
        # sparse (SelectedRows) .grad meets a dense gradient.
        result = phi_api.accumulate_(current.impl, grad.impl)
        if result is not current.impl:
            meta.grad = own_grad(Tensor(result))


__all__ = ["ACCUMULATION_LOCK", "GradNodeAccumulation", "accumulate_into_leaf", "add_grads",
           "edge_of", "held_by_caller_alone", "owned_copy"]
