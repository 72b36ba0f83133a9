"""The leaf end of the graph: GradNodeAccumulation, and the edge every recorded
op takes to its inputs (which creates a leaf's accumulation node on first use)."""
from __future__ import annotations

import weakref

from .node import GradNodeBase


class GradNodeAccumulation(GradNodeBase):
    """The end of every path to a leaf: adds the arriving gradient into ``.grad``.

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
