"""Tensors saved by grad nodes for their backward ops.

A saved tensor remembers its buffer's version when saved and refuses to give
the tensor back if an inplace op has changed it since, or after the graph was
released. Three kinds, each as cheap to make as possible (one is made for
nearly every recorded op):

- SavedInput keeps the input Tensor itself, so with create_graph the gradient
  flows back into it;
- SavedOutput keeps only the output's buffer (the Tensor would point back at
  the node that saves it) and rebuilds the Tensor around the node on recovery;
- a shape-only save (``no_need_buffer``) keeps a (shape, dtype, device) spec,
  freeing the buffer: a plain tuple on the node, read back by
  :func:`saved_shape`, as one is taken per recorded add or multiply; SavedShape
  wraps one where a TensorWrapper is needed (an element of a saved Tensor[]).

``saved_tensors_hooks`` (see saved_hooks.py) swaps in PackedSaved, which keeps
whatever the user's pack hook returned.
"""
from __future__ import annotations

from phi.core import DenseTensor
from phi.core.dense_tensor import spec_of

from ..errors import AutogradError
from ..tensor import Tensor
from .meta import AutogradMeta


class TensorWrapper:
    """Base of the saved-tensor kinds: recover, recover_impl, release, shape, dtype, nbytes."""

    __slots__ = ()
    version = 0

    def recover(self, node):
        """The saved tensor as a Tensor, after checking it is still the one that was saved."""
        raise NotImplementedError

    def recover_impl(self, node):
        """The saved DenseTensor, with the same checks as :meth:`recover`."""
        raise NotImplementedError

    def release(self) -> None:
        raise NotImplementedError

    @property
    def released(self) -> bool:
        raise NotImplementedError

    @property
    def impl(self):
        raise NotImplementedError

    @property
    def shape(self) -> tuple:
        return tuple(self.impl.dims)

    @property
    def dtype(self):
        return self.impl.dtype

    @property
    def nbytes(self) -> int:
        """Bytes this saved tensor keeps alive (0 once released or when shape-only)."""
        return 0 if self.released else self.impl.nbytes

    def _check(self, node, impl, name=None):
        """Raises if the graph was released (impl is None) or the buffer changed since saved."""
        if impl is None:
            self._raise_released(node)
        current = impl.version
        if current != self.version:
            self._raise_modified(node, current, impl.dims, impl.dtype, name)

    @staticmethod
    def _raise_released(node):
        raise AutogradError(
            f"{node.backward_op}: trying to run backward through the graph a second time, but "
            f"its saved tensors were freed after the first backward. Pass "
            f"retain_graph=True to the first backward() or grad() to keep them."
        )

    def _raise_modified(self, node, current, shape, dtype, name=None):
        text = f"a tensor of shape {list(shape)} and dtype {dtype}"
        described = f"'{name}' ({text})" if name else text
        raise AutogradError(
            f"{node.backward_op}: a tensor saved for backward by {node.forward_op or node.backward_op} was "
            f"modified by an inplace operation: {described} was saved at version "
            f"{self.version} and is now at version {current}. Use the out-of-place op, or "
            f"clone() the tensor before modifying it."
        )


class SavedInput(TensorWrapper):
    __slots__ = ("tensor", "version")

    def __init__(self, tensor):
        self.tensor = tensor
        self.version = tensor.impl.version

    @property
    def impl(self):
        return None if self.tensor is None else self.tensor.impl

    @property
    def released(self) -> bool:
        return self.tensor is None

    def recover(self, node):
        tensor = self.tensor
        self._check(node, None if tensor is None else tensor.impl, None if tensor is None else tensor._name)
        return tensor

    def recover_impl(self, node):
        tensor = self.tensor
        impl = None if tensor is None else tensor.impl
        if type(impl) is DenseTensor:  # the version read without the property's frame
            counter = impl.version_counter
            if (0 if counter is None else counter.value) == self.version:
                return impl
        self._check(node, impl, None if tensor is None else tensor._name)
        return impl

    def release(self) -> None:
        self.tensor = None


class SavedOutput(TensorWrapper):
    __slots__ = ("_impl", "slot", "version")

    def __init__(self, tensor, slot: int):
        impl = self._impl = tensor.impl
        self.slot = slot
        self.version = impl.version

    @property
    def impl(self):
        return self._impl

    @property
    def released(self) -> bool:
        return self._impl is None

    def recover(self, node):
        impl = self._impl
        self._check(node, impl)
        return Tensor(impl, AutogradMeta(node, self.slot))

    def recover_impl(self, node):
        impl = self._impl
        if type(impl) is DenseTensor:  # the version read without the property's frame
            counter = impl.version_counter
            if (0 if counter is None else counter.value) == self.version:
                return impl
        self._check(node, impl)
        return impl

    def release(self) -> None:
        self._impl = None


class SavedShape(TensorWrapper):
    """Shape and dtype of a tensor whose values the backward op does not read."""

    __slots__ = ("_spec",)

    def __init__(self, tensor):
        self._spec = spec_of(tensor.impl)  # the DenseTensor around it is made in backward

    @property
    def impl(self):
        return None if self._spec is None else DenseTensor.from_spec(self._spec)

    @property
    def shape(self) -> tuple:
        return tuple(self._spec[0])

    @property
    def released(self) -> bool:
        return self._spec is None

    @property
    def nbytes(self) -> int:
        return 0

    def recover(self, node):
        return Tensor(self.recover_impl(node))

    def recover_impl(self, node):
        if self._spec is None:
            self._raise_released(node)
        return DenseTensor.from_spec(self._spec)

    def release(self) -> None:
        self._spec = None


def saved_shape(node, spec):
    """The shape-only DenseTensor of a spec a node saved, or the released-graph error."""
    if spec is None:
        TensorWrapper._raise_released(node)
    return DenseTensor.from_spec(spec)


class SavedList(TensorWrapper):
    """A saved Tensor[]: one wrapper per element (SavedInput / PackedSaved for a list
    whose values the backward op reads, SavedShape for one in no_need_buffer)."""

    __slots__ = ("_items",)

    def __init__(self, items):
        self._items = list(items)

    @property
    def released(self) -> bool:
        return self._items is None

    @property
    def nbytes(self) -> int:
        return 0 if self._items is None else sum(item.nbytes for item in self._items)

    @property
    def shape(self) -> tuple:
        return tuple(item.shape for item in self._items or ())

    @property
    def dtype(self):
        return self._items[0].dtype if self._items else None

    @property
    def impl(self):
        return None if self._items is None else [item.impl for item in self._items]

    def recover(self, node):
        if self._items is None:
            self._raise_released(node)
        return [item.recover(node) for item in self._items]

    def recover_impl(self, node):
        if self._items is None:
            self._raise_released(node)
        return [item.recover_impl(node) for item in self._items]

    def release(self) -> None:
        for item in self._items or ():
            item.release()
        self._items = None
