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

    def __init__(self, node=None, slot: int = 0, stop_gradient: bool = False):
        self.node = node
        self.slot = slot
        self.stop_gradient = stop_gradient
