"""TensorWrapper: a tensor saved by a grad node for its backward op.

It remembers the buffer's version when saved, and refuses to give the tensor
back if an inplace op has changed it since, or after the graph was released.
"""
from __future__ import annotations

from phi.core import ArraySpec, DenseTensor

from .meta import AutogradMeta


class AutogradError(RuntimeError):
    """An autograd rule was broken: a released graph, a modified saved tensor, ..."""


class TensorWrapper:
    """A saved forward input or output.

    Inputs keep the Tensor itself, so with ``create_graph`` the gradient flows
    back to it; outputs keep only the buffer (the Tensor would point back at the
    node that saves it) and are rebuilt around the node when recovered.
    ``no_need_buffer`` keeps shape and dtype alone, freeing the buffer.
    """

    __slots__ = ("tensor", "impl", "version", "output_rank", "released")

    def __init__(self, tensor, is_output: bool = False, rank: int = 0,
                 no_need_buffer: bool = False):
        impl = tensor.impl
        self.released = False
        self.version = impl.version
        if no_need_buffer:
            self.tensor = None
            self.impl = DenseTensor(ArraySpec(impl.array.shape, impl.array.dtype))
            self.output_rank = None
        elif is_output:
            self.tensor = None
            self.impl = impl
            self.output_rank = rank
        else:
            self.tensor = tensor
            self.impl = impl
            self.output_rank = None

    def recover(self, node):
        """The saved tensor, after checking it is still the one that was saved."""
        if self.released:
            raise AutogradError(
                f"{node.name}: trying to run backward through the graph a second time, but "
                f"its saved tensors were freed after the first backward. Pass "
                f"retain_graph=True to the first backward() or grad() to keep them."
            )
        impl = self.impl
        if impl.version != self.version:
            raise AutogradError(
                f"{node.name}: a tensor saved for backward was modified by an inplace "
                f"operation: {_describe(self)} was saved at version {self.version} and is "
                f"now at version {impl.version}. Use the out-of-place op, or clone() the "
                f"tensor before modifying it."
            )
        if self.tensor is not None:
            return self.tensor
        from ..tensor import Tensor

        if self.output_rank is None:  # shape-only
            return Tensor(impl)
        return Tensor(impl, AutogradMeta(node, self.output_rank))

    def recover_impl(self, node):
        """The saved DenseTensor, with the same checks as :meth:`recover`."""
        if self.released or self.impl.version != self.version:
            self.recover(node)  # raises the right error
        return self.impl

    def release(self) -> None:
        self.released = True
        self.tensor = None
        self.impl = None

    @property
    def nbytes(self) -> int:
        if self.released or self.tensor is None and self.output_rank is None:
            return 0
        return self.impl.array.nbytes


def _describe(wrapper) -> str:
    tensor = wrapper.tensor
    array = wrapper.impl.array
    text = f"a tensor of shape {list(array.shape)} and dtype {array.dtype}"
    name = getattr(tensor, "_name", None) if tensor is not None else None
    return f"'{name}' ({text})" if name else text
