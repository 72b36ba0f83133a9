"""Gradient hooks on tensors.

- ``register_hook(fn)``: ``fn(grad)`` runs when the tensor's gradient is computed,
  before it flows on (or into ``.grad`` for a leaf); it may return a
  replacement of the same shape, dtype and place. Stored on the grad node that
  receives the gradient, keyed by the tensor's slot, so they run in the engine
  exactly once per backward.
- ``retain_grads()``: a non-leaf keeps its gradient in ``.grad``, after its hooks.
- post-accumulate hooks: ``fn(tensor)`` runs on a leaf after its ``.grad`` was
  updated, where a data-parallel wrapper starts the all-reduce of that gradient
  (Paddle's reduce hooks).
"""
from __future__ import annotations

import itertools
import weakref

from ..errors import AutogradError
from .accumulation import GradNodeAccumulation, edge_of
from .meta import is_flag_only_trainable, records_gradient

_next_id = itertools.count()


class RemovableHandle:
    """Returned by hook registration; ``remove()`` unregisters the hook (idempotent).

    It holds the small dict of hooks it was registered in, not the node.
    """

    __slots__ = ("_hooks", "id")

    def __init__(self, hooks: dict):
        self._hooks = hooks
        self.id = next(_next_id)

    def remove(self) -> bool:
        """Unregisters the hook: True the first time, False once it is gone (Paddle)."""
        return self._hooks.pop(self.id, None) is not None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False


def _require_grad(tensor, what: str):
    meta = tensor._meta
    if meta is None or meta.stop_gradient:
        raise AutogradError(
            f"{what}: the tensor has stop_gradient=True, so no gradient will reach it; "
            f"set stop_gradient=False first"
        )
    return meta


def _node_and_slot(tensor, what: str):
    meta = _require_grad(tensor, what)
    node, slot = edge_of(tensor)
    return meta, node, slot


def _idle_handle(hook) -> RemovableHandle:
    """The handle of a hook kept nowhere a gradient passes (on an integer tensor,
    which eager never differentiates): it never runs; remove() works as usual."""
    hooks = {}
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


def register_hook(tensor, hook) -> RemovableHandle:
    if not callable(hook):
        raise TypeError(f"register_hook: hook must be callable, got {type(hook).__name__}")
    if is_flag_only_trainable(tensor):
        return _idle_handle(hook)  # an integer tensor: no gradient ever reaches it to hook
    _, node, slot = _node_and_slot(tensor, "register_hook")
    if node.pre_hooks is None:
        node.pre_hooks = {}
        node.special = True  # the engine runs the hooks (see GradNodeBase.special)
    hooks = node.pre_hooks.setdefault(slot, {})
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


def retain_grads(tensor) -> None:
    if not records_gradient(tensor):
        return  # no gradient will come (Paddle: a no-op); an integer tensor records none either
    meta, node, slot = _node_and_slot(tensor, "retain_grads")
    if type(node) is GradNodeAccumulation or meta.retain_grads:
        return  # a leaf gets .grad anyway
    meta.retain_grads = True
    if node.retain_metas is None:
        node.retain_metas = {}
        node.special = True
    # The tensor, not its meta: an inplace op gives the tensor a new meta (a new
    # history), and the gradient arriving here must still reach its .grad.
    node.retain_metas[slot] = weakref.ref(tensor)


def register_post_accumulate_grad_hook(tensor, hook, op: str = "register_post_accumulate_grad_hook") -> RemovableHandle:
    """``op`` is the method the user called (Paddle's ``_register_backward_hook`` too),
    for the errors."""
    if not callable(hook):
        raise TypeError(f"{op}: hook must be callable, got {type(hook).__name__}")
    if is_flag_only_trainable(tensor):
        return _idle_handle(hook)  # an integer tensor: nothing accumulates into it
    _, node, _ = _node_and_slot(tensor, op)
    if type(node) is not GradNodeAccumulation:  # Paddle raises ValueError: AutogradError is both
        raise AutogradError(f"{op}: only a leaf tensor accumulates into .grad; use register_hook on a "
                            f"non-leaf tensor")
    if node.post_hooks is None:
        node.post_hooks = {}
    handle = RemovableHandle(node.post_hooks)
    node.post_hooks[handle.id] = hook
    return handle
