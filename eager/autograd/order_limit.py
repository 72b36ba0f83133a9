"""Gradients past the last order backward.yaml defines: they carry a history
that raises when a backward pass reaches it."""
from __future__ import annotations

from ..errors import AutogradError
from .accumulation import edge_of
from .meta import AutogradMeta
from .node import GradNodeBase


class UnsupportedOrderNode(GradNodeBase):
    """Stands behind a gradient that backward.yaml cannot differentiate further.

    It raises only if a backward pass actually reaches it, so create_graph=True
    is fine as long as nobody asks for the order the YAML does not define.
    """

    __slots__ = ("order",)
    backward_op = "unsupported_order"

    def __init__(self, forward_op: str, order: int, num_grad_slots: int, next_edges=()):
        super().__init__(next_edges)
        self.forward_op = forward_op  # instance values over the class defaults
        self.num_grad_slots = num_grad_slots
        self.order = order

    def apply(self, grads, create_graph: bool):
        raise AutogradError(
            f"{self.forward_op} is differentiable to order {self.order} only: backward.yaml gives "
            f"its order-{self.order} backward op neither a `backward:` nor a `composite:` "
            f"entry, so order {self.order + 1} cannot be computed"
        )


def limit_order(slot_grads, forward_op: str, order: int, read=()):
    """Gives each gradient (grouped per edge slot, as ``apply`` returns them) a
    history that raises when differentiated (see UnsupportedOrderNode).

    ``read`` holds the tensors the backward op computed them from (saved tensors,
    incoming gradients; a list for a ``Tensor[]``, None for one that did not
    come). The node keeps edges to them, so a pass that runs only the nodes on a
    path to its inputs (``grad(..., inputs)``) still reaches it and raises,
    instead of leaving the missing term out of the derivative.
    """
    grads = [g for slot in slot_grads if slot is not None for g in slot
             if g is not None and (g.dtype.is_floating_point or g.dtype.is_complex)]
    sources = [t for item in read for t in (item if isinstance(item, (list, tuple)) else (item,))
               if t is not None]
    edges = tuple((edge,) for edge in map(edge_of, sources) if edge is not None)
    node = UnsupportedOrderNode(forward_op, order, len(grads), edges)
    for slot, grad in enumerate(grads):
        grad._meta = AutogradMeta(node, slot)
    return slot_grads
