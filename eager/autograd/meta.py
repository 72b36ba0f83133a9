"""Autograd metadata of a Tensor: the node that made it and how gradients reach it.

A Tensor gets an AutogradMeta only when it needs one (it requires a gradient,
or was made by a recorded op); the many tensors that never take part in
autograd cost nothing here.
"""
from __future__ import annotations

import abc


class AbstractAutogradMeta(abc.ABC):
    """What a Tensor keeps for autograd (Paddle's AbstractAutogradMeta)."""

    __slots__ = ()


class AutogradMeta(AbstractAutogradMeta):
    """The grad node that made the tensor (or its leaf accumulation node), which of
    that node's gradient slots it is, whether it stops gradients, and its ``.grad``."""

    # Every recorded op makes one of these for its output, and few of them ever get
    # a .grad or hooks: those rare fields live in __dict__ (made on first write) with
    # class-level defaults, so the common case sets three attributes.
    __slots__ = ("node", "slot", "stop_gradient", "__dict__", "__weakref__")
    grad = None
    retain_grads = False
    hooks = None
    view = None  # ViewInfo of a tensor that is a view of another's buffer (views.py)
    views = None  # weak references to the tracked views of this tensor's buffer
    # True on an integer or bool tensor the user marked stop_gradient=False (Paddle
    # allows it): the Tensor property reports False, but the stop_gradient slot,
    # which the recording ops read, stays True, so no op records an edge into it
    # and no gradient ever flows there. See Tensor.stop_gradient.
    flag_only_trainable = False

    def __init__(self, node=None, slot: int = 0, stop_gradient: bool = False):
        self.node = node
        self.slot = slot
        self.stop_gradient = stop_gradient


def records_gradient(tensor) -> bool:
    """Whether ops record an edge to ``tensor``: its autograd truth, which differs
    from ``not tensor.stop_gradient`` only for an integer tensor marked
    ``stop_gradient=False`` (a flag that records nothing)."""
    meta = tensor._meta
    return meta is not None and not meta.stop_gradient


def is_flag_only_trainable(tensor) -> bool:
    """Whether ``tensor`` is an integer or bool tensor marked ``stop_gradient=False``:
    it reports that flag, but no gradient ever flows into it."""
    meta = tensor._meta
    return meta is not None and meta.flag_only_trainable


class GradBufferMeta(AutogradMeta):
    """The meta of a ``.grad`` that accumulation made and owns.

    As in Paddle, a leaf's ``.grad`` has ``stop_gradient=False``: ops on it are
    recorded like ops on any trainable leaf. What sets it apart from a tensor the
    user assigned to ``.grad`` is ownership: later gradients are added into this
    one's buffer in place, and ``clear_grad()`` zeroes it in place, because no
    one else holds that buffer as their data. (If the user records ops on it, the
    in-place writes move its version, and a stale use raises as for any tensor.)
    """

    __slots__ = ()


def is_owned_grad(tensor) -> bool:
    """Whether ``tensor`` is a gradient buffer accumulation made and may write in
    place: a plain tensor (no autograd meta), or one with a GradBufferMeta that
    no recorded op made (a leaf; ``create_graph`` gradients are recorded results)."""
    meta = tensor._meta
    if meta is None:
        return True
    return type(meta) is GradBufferMeta and (meta.node is None or meta.node.is_accumulation)


def own_grad(tensor):
    """Marks a fresh, unrecorded gradient as owned by accumulation (and so with
    ``stop_gradient=False``, as Paddle's ``.grad``); returns it."""
    if tensor._meta is None:
        tensor._meta = GradBufferMeta()
    return tensor
