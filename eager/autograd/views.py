"""Inplace ops on views of tensors that require gradients.

A view op (reshape, squeeze, x[1:], transpose, split, ...) whose result shares
its input's buffer records, on the result, its *base* (the tensor that owns
the buffer, through chains of views) and a *replay*: a function that makes the
same view of any tensor shaped like the base. When an inplace op then writes
through the view, the base's values change, so the base's history is rebased
(PyTorch's CopySlices): its new grad node sends the incoming gradient to the
base's old history with the view's region zeroed, and the region itself, seen
through the replay, to the view's new history. Other views of the base get
fresh histories from the rebased base, so every later use differentiates
what the buffer now holds. Saved tensors of the base or any view share one
version counter, so a saved value the write made stale raises as usual.

A view of a leaf that requires a gradient cannot be written in place (the
leaf's .grad would no longer match its values); see inplace.check_inplace_leaf.
"""
from __future__ import annotations

import weakref

from phi import api as phi_api

from ..errors import AutogradError
from ..tensor import Tensor
from .accumulation import edge_of
from .grad_mode import enable_grad, no_grad
from .meta import AutogradMeta
from .node import GradNodeBase


class ViewInfo:
    """What a view remembers: its base tensor and how to make the view again."""

    __slots__ = ("base", "replay")

    def __init__(self, base, replay):
        self.base = base
        self.replay = replay


def track_view(out, source, replay) -> None:
    """Records that ``out = replay(source)`` is a view of ``source``'s buffer
    (called by the generated view ops while recording). A view of a view
    points at the first base, with the replays composed."""
    if out.impl.buffer_id != source.impl.buffer_id:
        return  # the op had to copy (e.g. reshape of a non-contiguous tensor): not a view
    outer = source._meta.view
    if outer is None:
        base, full_replay = source, replay
    else:
        inner = outer.replay
        base = outer.base
        full_replay = lambda t: replay(inner(t))  # noqa: E731
    out._meta.view = ViewInfo(base, full_replay)
    base_meta = base._meta
    if base_meta.views is None:
        base_meta.views = []
    base_meta.views.append(weakref.ref(out))


class InplaceContext:
    """What an inplace op must carry from the tensor's old history to its new one."""

    __slots__ = ("view", "views")

    def __init__(self, meta):
        self.view = meta.view
        self.views = meta.views


def before_inplace(tensor) -> InplaceContext | None:
    """Called before an inplace op replaces ``tensor``'s history."""
    meta = tensor._meta
    if meta is None or (meta.view is None and meta.views is None):
        return None
    return InplaceContext(meta)


def after_inplace(tensor, context: InplaceContext | None) -> None:
    """Called once ``tensor`` has its new history: keeps it a view (rebasing its
    base) or a base (refreshing its views)."""
    if context is None:
        return
    meta = tensor._meta
    meta.views = context.views
    if context.view is not None:
        meta.view = context.view
        _rebase(context.view.base, tensor, context.view.replay)
        _refresh_views(context.view.base, skip=tensor)
    else:
        _refresh_views(tensor, skip=None)


class CopySlicesNode(GradNodeBase):
    """The history of a base after an inplace op wrote through one of its views:
    the base's old value outside the view's region, the view's new value inside."""

    __slots__ = ("replay",)
    backward_op = "copy_slices"
    forward_op = "inplace write through a view"

    def apply(self, grads, create_graph: bool):
        grad = grads[0]
        with no_grad():
            mask = Tensor(phi_api.full_like(grad.impl, 1, None))
            region = self.replay(mask)
            if region.impl.buffer_id != mask.impl.buffer_id:
                raise AutogradError("copy_slices: the view could not be replayed as a view of "
                                    "the gradient; this is a bug in the view op's replay")
            phi_api.zero_(region.impl)
        # Tensor operators: recorded under create_graph, so this differentiates again.
        return ((grad * mask,), (self.replay(grad),))


def _rebase(base, view, replay) -> None:
    node = CopySlicesNode(((edge_of(base),), (edge_of(view),)))
    node.replay = replay
    old = base._meta
    new = AutogradMeta(node, 0)
    new.views = old.views
    base._meta = new


def _refresh_views(base, skip) -> None:
    """Gives every live view of ``base`` (but ``skip``) a history from base's current one."""
    views = base._meta.views
    if not views:
        return
    fresh = None
    for ref in list(views):
        view = ref()
        if view is None or view is skip:
            continue
        info = view._meta.view
        with enable_grad():
            fresh = info.replay(base)
        # fresh is a new view of base (it registered itself and dies here); view
        # takes its history.
        view._meta = fresh._meta
        view._meta.view = info
    del fresh
    base._meta.views = [ref for ref in base._meta.views if ref() is not None]


__all__ = ["CopySlicesNode", "ViewInfo", "after_inplace", "before_inplace", "track_view"]
