"""The rules of inplace ops: the leaf rule, writing into the buffer, versions."""
from __future__ import annotations

from .tensor_wrapper import AutogradError


def check_inplace_leaf(op: str, tensor) -> None:
    """A leaf that requires a gradient may not be modified in place while recording:
    its .grad would no longer be the gradient of the value it holds."""
    meta = tensor._meta
    if meta is not None and not meta.stop_gradient and tensor.is_leaf:
        raise AutogradError(
            f"{op}: a leaf tensor with stop_gradient=False (e.g. a parameter) cannot be "
            f"modified in place while gradients are recorded. Wrap the update in "
            f"`with eager.no_grad():`, or use the out-of-place op."
        )


def snapshot(tensor):
    """A copy of tensor's buffer that keeps its autograd history, saved before an
    inplace op overwrites the values its backward needs."""
    from ..tensor import Tensor
    from phi.core import DenseTensor

    return Tensor(DenseTensor(tensor.impl.array.copy()), tensor._meta)


def write_inplace(op: str, tensor, result) -> None:
    """Copies the op's result into tensor's buffer and bumps its version."""
    target = tensor.impl.array
    array = result.array
    if array.shape != target.shape:
        raise ValueError(
            f"{op}: the result has shape {list(array.shape)} but the tensor written in place "
            f"has shape {list(target.shape)}; an inplace op cannot broadcast its target"
        )
    if array.dtype != target.dtype:
        raise TypeError(
            f"{op}: the result is {array.dtype} but the tensor written in place is {target.dtype}"
        )
    if array is not target:
        target[...] = array
    tensor.impl.bump_version()
