"""saved_tensors_hooks: let the user decide how saved tensors are stored.

Inside ``with saved_tensors_hooks(pack, unpack):`` every tensor a recorded op
saves for backward goes through ``pack(tensor)``, and the node keeps only what
pack returned; backward calls ``unpack(packed)`` to get a tensor back. Use it
to offload saved tensors, compress them, or count their bytes.
"""
from __future__ import annotations

from ..tensor import Tensor
from .meta import AutogradMeta
from .tensor_wrapper import SavedInput, SavedOutput, TensorWrapper
from .thread_state import THREAD

# The thread-local hook stack, ``pack_hooks`` ((pack, unpack) pairs, innermost last); the
# same object as grad mode's, so a recorded op reads one thread-local object.
HOOKS = THREAD


class saved_tensors_hooks:
    """Context manager installing ``pack``/``unpack`` for tensors saved for backward.

    >>> sizes = []
    >>> def pack(t):
    ...     sizes.append(t.numpy().nbytes)
    ...     return t.numpy().copy()
    >>> def unpack(a):
    ...     return eager.to_tensor(a)
    >>> with eager.autograd.saved_tensors_hooks(pack, unpack):
    ...     y = (x * x).sum()
    """

    def __init__(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be callables")
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        HOOKS.pack_hooks = HOOKS.pack_hooks + ((self.pack_hook, self.unpack_hook),)
        return self

    def __exit__(self, *exc):
        HOOKS.pack_hooks = HOOKS.pack_hooks[:-1]
        return False


class PackedSaved(TensorWrapper):
    """A saved tensor kept as whatever the pack hook returned."""

    __slots__ = ("packed", "unpack_hook", "meta", "slot", "counter", "version", "_released",
                 "_shape", "_dtype", "_nbytes")

    def __init__(self, tensor, slot, is_output: bool):
        pack_hook, self.unpack_hook = HOOKS.pack_hooks[-1]
        impl = tensor.impl
        if impl.version_counter is None:
            impl.bump_version()  # make a counter, so later inplace ops are seen
            impl.version_counter.value = 0
        self.counter = impl.version_counter
        self.version = self.counter.value
        self.meta = None if is_output else tensor._meta
        self.slot = slot if is_output else None
        self._shape, self._dtype, self._nbytes = tuple(impl.dims), impl.dtype, impl.nbytes
        self._released = False
        # pack sees a tensor outside the graph: it must not keep the node alive.
        self.packed = pack_hook(Tensor(impl))

    @property
    def released(self) -> bool:
        return self._released

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def nbytes(self) -> int:
        return 0 if self._released else self._nbytes

    def _unpacked_impl(self, node):
        if self._released:
            self._raise_released(node)
        if self.counter.value != self.version:
            self._raise_modified(node, self.counter.value, self._shape, self._dtype)
        tensor = self.unpack_hook(self.packed)
        if not isinstance(tensor, Tensor):
            raise TypeError(f"saved_tensors_hooks: unpack_hook must return a Tensor, got "
                            f"{type(tensor).__name__}")
        if tuple(tensor.shape) != tuple(self._shape) or tensor.dtype != self._dtype:
            raise ValueError(f"saved_tensors_hooks: unpack_hook returned {tensor.dtype}{tensor.shape}, "
                             f"but {self._dtype}{list(self._shape)} was packed")
        return tensor.impl

    def recover(self, node):
        impl = self._unpacked_impl(node)
        if self.slot is not None:
            return Tensor(impl, AutogradMeta(node, self.slot))
        return Tensor(impl, self.meta)

    def recover_impl(self, node):
        return self._unpacked_impl(node)

    def release(self) -> None:
        self._released = True
        self.packed = None
        self.meta = None


def save_input(tensor):
    """What a grad node keeps of a forward input its backward op reads."""
    if HOOKS.pack_hooks:
        return PackedSaved(tensor, None, False)
    return SavedInput(tensor)


def save_output(tensor):
    """What a grad node keeps of one of its own forward outputs (whose history,
    the node and its gradient slot, is already set)."""
    slot = tensor._meta.slot
    if HOOKS.pack_hooks:
        return PackedSaved(tensor, slot, True)
    return SavedOutput(tensor, slot)


