"""The rules of inplace ops: the leaf rule, writing into the buffer, versions."""
from __future__ import annotations

from phi import api as phi_api

from ..errors import AutogradError
from ..tensor import Tensor


def check_inplace_leaf(op: str, tensor) -> None:
    """Runs before an inplace op records. Refuses what would make gradients wrong:
    a leaf that requires a gradient, or a view of one (its .grad would no longer
    be the gradient of the value it holds). A view of a non-leaf is fine: the
    write rebases the base's history (views.py)."""
    meta = tensor._meta
    if meta is None or meta.stop_gradient:
        return
    node = meta.node
    if node is None or node.is_accumulation:
        raise AutogradError(
            f"{op}: a leaf tensor with stop_gradient=False (e.g. a parameter) cannot be "
            f"modified in place while gradients are recorded. Wrap the update in "
            f"`with eager.no_grad():`, or use the out-of-place op."
        )
    view = meta.view
    if view is not None and view.base.is_leaf:
        raise AutogradError(
            f"{op}: this tensor is a view (made by {node.forward_op}) of a leaf tensor with "
            f"stop_gradient=False; writing to it in place would change the leaf. Wrap the "
            f"update in `with eager.no_grad():`, or clone() the view first."
        )


def snapshot(tensor):
    """A copy of tensor's buffer that keeps its autograd history, saved before an
    inplace op overwrites the values its backward needs."""
    return Tensor(phi_api.assign(tensor.impl), tensor._meta)


def write_inplace(op: str, tensor, result) -> None:
    """Writes the op's result into tensor's buffer and bumps its version."""
    target = tensor.impl
    if tuple(result.dims) != tuple(target.dims):
        raise ValueError(
            f"{op}: the result has shape {list(result.dims)} but the tensor written in place "
            f"has shape {list(target.dims)}; an inplace op cannot broadcast its target"
        )
    if result.dtype is not target.dtype:
        raise TypeError(
            f"{op}: the result is {result.dtype} but the tensor written in place is {target.dtype}"
        )
    phi_api.assign_out_(result, target)


def write_constant(op: str, tensor, result):
    """Writes the result of a non-differentiable op (``remainder_``,
    ``floor_divide_``) into a tensor that requires a gradient, while recording.

    The tensor's history describes the values being overwritten, so keeping it
    would send gradients through them; the result goes in as a constant
    instead (the recorded ``setitem_``, which rebases a view's base), so no
    gradient flows through it, as none flows out of the out-of-place op. A leaf
    is refused as for every inplace op."""
    check_inplace_leaf(op, tensor)
    if tuple(result.dims) != tuple(tensor.impl.dims) or result.dtype is not tensor.impl.dtype:
        write_inplace(op, tensor, result)  # raises its shape or dtype error, writing nothing
    tensor[...] = Tensor(result)
    return tensor
