"""Capture: run one call eagerly while recording every phi kernel it runs.

While a :class:`Recorder` is active (one thread at a time), every kernel in
phi's dispatch tables is wrapped so that a call from the capturing thread is
recorded: the kernel, each array argument by provenance (an input tensor's
array, an earlier call's result, or an *external* array, one that existed
before the call and must be found in the state the function reaches), every
other argument as a constant, and each result's shape and dtype. The
signature caches of the generated phi API are emptied on entry and exit, so
the generated code indexes the (wrapped) tables. Nothing is wrapped outside a
capture: the plain eager path is unchanged.

During a capture the recorder also watches what a kernel list cannot replay
and marks the capture *unreplayable* with the reason: a read of tensor values
on the host (``Tensor.numpy``, through which ``item``, ``bool``, ``float``
and printing go), a PyLayer, a gradient hook or post-accumulate hook, saved
tensor hooks, a Layer forward hook, a kernel argument of an unknown kind, a
kernel whose result's shape depends on the values (``nonzero``,
``masked_select``, ``unique``, boolean-mask indexing), an array the trace
cannot locate, an in-place write into an input tensor. It counts the version
bumps of the state's tensors (a replay repeats them). It holds the arrays
it sees only weakly, so that the call decides as eager does wherever eager
reads reference counts; after the call, an array a kernel made that is still
alive, other than a returned one, is state the replay would not update.
"""
from __future__ import annotations

import enum
import sys
import threading
import weakref

import numpy as np

from phi.api.support import as_array
from phi.common.place import Place
from phi.core import KERNELS, ArraySpec, DenseTensor
from phi.core.kernel_registry import BIND_HOOK

from ..arguments import is_list_index
from ..autograd import engine
from ..autograd.node import GradNodeBase
from ..autograd.py_layer import PyLayer
from ..autograd.saved_hooks import HOOKS, saved_tensors_hooks
from ..nn.layer import Layer
from ..tensor import Tensor

# Kernels whose results' shapes depend on the input values, not only on shapes.
DATA_DEPENDENT = frozenset({"nonzero", "masked_select", "masked_select_grad", "unique",
                            "unique_consecutive", "masked_scatter", "masked_scatter_grad", "bincount"})
# Kernels whose result shape depends on the values when an index is a boolean mask.
MASK_INDEXED = frozenset({"getitem", "getitem_grad", "setitem", "setitem_grad", "index_put",
                          "index_put_grad"})
# Kernels whose results the caller reads on the host (anomaly mode's NaN count).
HOST_READ = frozenset({"nan_inf_count"})
# Kernels whose results are constants of the trace when every array they read is one
# (their values then follow from constants and shapes, which the signature fixes):
# paddle.shape(x)[0] and sizes computed from it may be read on the host, as a
# reshape does with a Tensor size. Random and state-reading kernels are never here.
CONSTANT_FOLDING = frozenset({"full", "stack", "concat", "getitem", "cast", "reshape", "add", "subtract",
                              "multiply", "divide", "floor_divide", "scale", "remainder", "maximum",
                              "minimum"})
_CONSTANT_TYPES = (bool, int, float, complex, str, bytes, type(None), np.generic, np.dtype, enum.Enum,
                   type, slice, Place, type(Ellipsis), ArraySpec)

_ACTIVE = None  # the Recorder capturing now, or None


def _is_array(value) -> bool:
    """A NumPy array, or an array of the loaded CuPy (the two array types phi computes on)."""
    kind = type(value)
    if kind is np.ndarray:
        return True
    cupy = sys.modules.get("cupy")
    return cupy is not None and kind is getattr(cupy, "ndarray", None)


class _Strong:
    """A strong reference for an array type without weak references."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __call__(self):
        return self.value


def _ref(array):
    try:
        return weakref.ref(array)
    except TypeError:
        return _Strong(array)


class Unreplayable(Exception):
    """Raised inside the recorder for a call argument it cannot express;
    ``args[1]`` True when the argument is an array the trace cannot locate."""


class KernelCall:
    """One recorded kernel call: ``fn(*args, **kwargs)`` where each argument is a
    plan: ("a", slot) an array, ("c", value) a constant, ("l", type, plans) a
    list or tuple; ``outs`` the result: ("a", slot, shape, dtype), ("n",) for
    None, ("l", type, outs) for a tuple or list; ``key`` and ``kind`` where
    ``fn`` sits in phi's dispatch tables (array type and dtype, tensor kind)."""

    __slots__ = ("fn", "name", "args", "kwargs", "outs", "key", "kind")

    def __init__(self, fn, name, args, kwargs, outs, key=None, kind=None):
        self.fn = fn
        self.name = name
        self.args = args
        self.kwargs = kwargs
        self.outs = outs
        self.key = key
        self.kind = kind


class RecordingKernel:
    """A dispatch-table entry during a capture: records the call, then runs it."""

    __slots__ = ("fn", "name", "key", "kind")

    def __init__(self, fn, name, key=None, kind=None):
        self.fn = fn
        self.name = name
        self.key = key
        self.kind = kind

    def __call__(self, *args, **kwargs):
        recorder = _ACTIVE
        if recorder is None or recorder.depth or recorder.thread != threading.get_ident():
            return self.fn(*args, **kwargs)
        recorder.depth += 1
        try:
            result = self.fn(*args, **kwargs)
        finally:
            recorder.depth -= 1
        return recorder.record(self.fn, self.name, args, kwargs, result, self.key, self.kind)


class Recorder:
    """Records the kernel calls of one eager call (see the module doc).

    ``located`` maps id(array) -> the array for every external array the trace
    may read (the buffers of tensors the function reaches); ``inputs`` are the
    input tensors' DenseTensors, in the order the replay passes their arrays.
    """

    def __init__(self, inputs, located, once=False):
        self.thread = threading.get_ident()
        self.depth = 0
        # A one-time trace (``once``: jit.save) records the kernels that Layer forward
        # hooks and PyLayers run as the forward's own; a to_static capture refuses
        # them: its guard does not follow hooks added between calls, nor what a
        # PyLayer's Python reads.
        self.once = once
        self.reason = None  # why the capture cannot be replayed
        # Whether that is an array the trace cannot locate: one the call itself may
        # have put into the state (a multi-tensor optimizer's first flat buffers),
        # which the next capture, finding the state changed, may locate.
        self.unlocated = False
        self.calls = []
        self.slot_of = {}  # id(array) -> slot
        # slot -> a weak reference to the array seen at capture: a dead one means
        # its id may be reused. Weak, so that the call's reference-count decisions
        # (a fresh gradient becomes .grad without a copy) are those of eager.
        self.slot_refs = []
        self.slot_types = []
        self.externals = []  # (slot, array)
        self.located = located
        self.input_impls = inputs
        self.bumps = {}  # id(DenseTensor) -> [DenseTensor, count], for tensors of the state
        # The grad nodes a backward inside the call ran: a returned tensor whose node
        # is not among them has a graph a backward outside the call would use.
        self.backward_ran = weakref.WeakSet()
        self.constant_slots = set()  # slots whose values follow from constants (CONSTANT_FOLDING)
        for impl in inputs:
            array = impl.array
            if id(array) in self.slot_of or id(array) in located:
                self.fail("an input tensor shares its buffer with another input or with a parameter, "
                          "gradient or optimizer state")
            self._new_slot(array)

    def fail(self, reason: str, unlocated: bool = False) -> None:
        if self.reason is None:
            self.reason = reason
            self.unlocated = unlocated

    def _new_slot(self, array) -> int:
        slot = len(self.slot_refs)
        self.slot_refs.append(_ref(array))
        self.slot_types.append(type(array))
        self.slot_of[id(array)] = slot
        return slot

    def slot(self, array):
        """The slot of a live array seen during the capture, or None."""
        slot = self.slot_of.get(id(array))
        if slot is not None and self.slot_refs[slot]() is not array:
            return None  # a dead array's id, reused
        return slot

    # -- kernel calls ---------------------------------------------------------
    def _plan(self, value, name):
        if _is_array(value):
            slot = self.slot(value)
            if slot is None:
                if is_list_index(value):  # an index the code wrote as a list: a constant
                    return ("c", value)
                if id(value) not in self.located:
                    raise Unreplayable(
                        f"kernel {name!r} reads a tensor the trace cannot locate (made outside the phi "
                        f"kernels, e.g. by to_tensor in the function, or held by an object the function "
                        f"does not reach through its arguments, closure or globals)", True)
                slot = self._new_slot(value)
                self.externals.append((slot, value))
            return ("a", slot)
        if isinstance(value, (list, tuple)):
            return ("l", type(value), [self._plan(v, name) for v in value])
        if isinstance(value, _CONSTANT_TYPES):
            return ("c", value)
        raise Unreplayable(f"kernel {name!r} takes an argument of type {type(value).__name__} "
                           f"that a replay cannot rebuild")

    def _out(self, value, name):
        if value is None:
            return ("n",), None
        if isinstance(value, np.generic):
            value = as_array(value, np.ndarray)  # what wrap_result makes of a NumPy scalar
        if _is_array(value):
            return ("a", self._new_slot(value), value.shape, value.dtype), value
        if isinstance(value, (list, tuple)):
            pairs = [self._out(v, name) for v in value]
            return ("l", type(value), [p[0] for p in pairs]), type(value)(p[1] for p in pairs)
        raise Unreplayable(f"kernel {name!r} returns a {type(value).__name__}, which a replay cannot rebuild")

    def record(self, fn, name, args, kwargs, result, key=None, kind=None):
        if self.reason is not None:
            return result
        try:
            if name in HOST_READ:
                raise Unreplayable(f"kernel {name!r} has its result read on the host (anomaly checks)")
            if name in DATA_DEPENDENT or (name in MASK_INDEXED and any(
                    _is_array(a) and a.dtype == np.bool_ for a in _flat(args))):
                raise Unreplayable(f"kernel {name!r} makes a result whose shape depends on the values")
            plans = [self._plan(a, name) for a in args]
            kw = {k: self._plan(v, name) for k, v in kwargs.items()}
            outs, result = self._out(result, name)
        except Unreplayable as error:
            self.fail(error.args[0], len(error.args) > 1 and error.args[1])
            return result
        self.calls.append(KernelCall(fn, name, plans, kw, outs, key, kind))
        if name in CONSTANT_FOLDING and _reads_only(plans, self.constant_slots) \
                and _reads_only(kw.values(), self.constant_slots):
            _add_slots(outs, self.constant_slots)
        return result

    def is_constant(self, array) -> bool:
        """Whether ``array`` was made during the capture from constants only."""
        slot = self.slot(array)
        return slot is not None and slot in self.constant_slots

    # -- watching the rest of the call -----------------------------------------
    def bumped(self, impl) -> None:
        """Counts an in-place write into a tensor of the state (its buffer is
        located); one into an input, or into a tensor neither made by the call
        nor located, makes the capture unreplayable."""
        if any(impl is i for i in self.input_impls):
            self.fail("it writes into an input tensor in place")
            return
        array = getattr(impl, "array", None)
        slot = self.slot(array) if array is not None else None
        self.constant_slots.discard(slot)  # written in place: no longer known from constants
        if id(array) in self.located:
            entry = self.bumps.get(id(impl))
            if entry is None:
                self.bumps[id(impl)] = [impl, 1]
            else:
                entry[1] += 1
        elif array is None or self.slot(array) is None:
            self.fail("it writes in place into a tensor the trace cannot locate", unlocated=True)


def _reads_only(plans, slots) -> bool:
    """Whether every array the argument plans read is in ``slots``."""
    for plan in plans:
        if plan[0] == "a":
            if plan[1] not in slots:
                return False
        elif plan[0] == "l" and not _reads_only(plan[2], slots):
            return False
    return True


def _add_slots(out, slots) -> None:
    if out[0] == "a":
        slots.add(out[1])
    elif out[0] == "l":
        for o in out[2]:
            _add_slots(o, slots)


def _flat(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


# -- the swaps made for the duration of a capture ----------------------------------
_original_numpy = Tensor.numpy
_original_repr = Tensor.__repr__
_original_bump = DenseTensor.bump_version
_original_apply = PyLayer.__dict__["apply"]
_original_pre_hooks = GradNodeBase.run_pre_hooks
_original_commit = engine._commit
_original_walk = engine._walk
_original_layer_call = Layer.__call__
_original_saved_enter = saved_tensors_hooks.__enter__


def _mine():
    recorder = _ACTIVE
    if recorder is not None and recorder.thread == threading.get_ident():
        return recorder
    return None


def _numpy(self):
    recorder = _mine()
    if recorder is not None and not recorder.is_constant(getattr(self.impl, "array", None)):
        recorder.fail("it reads tensor values on the host (numpy(), item(), bool(), float(), int() or "
                      "printing a tensor), which can steer Python control flow")
    return _original_numpy(self)


def _repr(self):
    # Printing shows values on every call: a replay would not, even of a tensor known
    # from constants (whose other host reads a trace keeps).
    recorder = _mine()
    if recorder is not None:
        recorder.fail("it reads tensor values on the host (numpy(), item(), bool(), float(), int() or "
                      "printing a tensor), which can steer Python control flow")
    return _original_repr(self)


def _bump(self):
    recorder = _mine()
    if recorder is not None:
        recorder.bumped(self)
    _original_bump(self)


def _apply(cls, *args, **kwargs):
    recorder = _mine()
    if recorder is not None and not recorder.once:
        recorder.fail(f"it runs PyLayer {cls.__name__} (Python code in forward and backward)")
    return _original_apply.__func__(cls, *args, **kwargs)


def _pre_hooks(self, grads):
    recorder = _mine()
    if recorder is not None:
        recorder.fail("a gradient hook (register_hook) runs Python during backward")
    return _original_pre_hooks(self, grads)


def _commit(leaves, retained, create_graph):
    recorder = _mine()
    if recorder is not None:
        if any(node.post_hooks for node, _ in leaves):
            recorder.fail("a post-accumulate gradient hook runs Python during backward")
        if create_graph:
            recorder.fail("backward with create_graph=True keeps a graph beyond the call")
    return _original_commit(leaves, retained, create_graph)


def _walk(roots, holders, captures, create_graph, cut):
    result = _original_walk(roots, holders, captures, create_graph, cut)
    recorder = _mine()
    if recorder is not None:
        recorder.backward_ran.update(result[2])  # (leaves, retained, ran, captured)
    return result


def _layer_call(self, *inputs, **kwargs):
    recorder = _mine()
    if recorder is not None and not recorder.once and (self._forward_pre_hooks or self._forward_post_hooks):
        recorder.fail(f"a forward hook of {type(self).__name__} runs Python")
    return _original_layer_call(self, *inputs, **kwargs)


def _saved_enter(self):
    recorder = _mine()
    if recorder is not None:
        recorder.fail("saved_tensors_hooks run Python on saved tensors")
    return _original_saved_enter(self)


_LOCK = threading.Lock()


def _wrap_tables() -> None:
    for table in KERNELS.dispatch_tables():
        for key, fn in list(table.items()):
            if type(fn) is not RecordingKernel:
                table[key] = RecordingKernel(fn, table.name, key, table.kind)


def _clear_signature_caches():
    for cache in KERNELS.signature_caches():
        cache.clear()


def start(recorder: Recorder) -> None:
    """Activates ``recorder`` (one capture at a time in the process: a second
    thread's capture waits); :func:`stop` undoes it."""
    global _ACTIVE
    if _ACTIVE is not None and _ACTIVE.thread == threading.get_ident():
        # (waiting for the lock would wait forever: this thread holds it)
        raise RuntimeError("a kernel capture is already recording in this thread: jit.save, TracedLayer.trace "
                           "and save_inference_model cannot run inside a to_static function")
    _LOCK.acquire()
    try:
        if HOOKS.pack_hooks:
            recorder.fail("saved_tensors_hooks are active")
        _ACTIVE = recorder
        _wrap_tables()
        BIND_HOOK.hook = lambda table, key, bound: RecordingKernel(bound, table.name, key, table.kind)
        _clear_signature_caches()
        Tensor.numpy = _numpy
        Tensor.__repr__ = _repr
        DenseTensor.bump_version = _bump
        PyLayer.apply = classmethod(_apply)
        GradNodeBase.run_pre_hooks = _pre_hooks
        engine._commit = _commit
        engine._walk = _walk
        Layer.__call__ = _layer_call
        saved_tensors_hooks.__enter__ = _saved_enter
    except BaseException:
        stop()  # puts back whatever was swapped, and releases the lock
        raise


def stop() -> None:
    """Undoes :func:`start`: every swap, every wrapped table entry (those bound
    during the capture too), the signature caches that remembered wrapped
    kernels."""
    global _ACTIVE
    try:
        saved_tensors_hooks.__enter__ = _original_saved_enter
        Layer.__call__ = _original_layer_call
        engine._commit = _original_commit
        engine._walk = _original_walk
        GradNodeBase.run_pre_hooks = _original_pre_hooks
        PyLayer.apply = _original_apply
        DenseTensor.bump_version = _original_bump
        Tensor.numpy = _original_numpy
        Tensor.__repr__ = _original_repr
        BIND_HOOK.hook = None
        # Every wrapped entry still there gets its kernel back (a table that a
        # kernel registration emptied meanwhile stays empty: it binds anew).
        for table in KERNELS.dispatch_tables():
            for key, fn in list(table.items()):
                if type(fn) is RecordingKernel:
                    table[key] = fn.fn
        _clear_signature_caches()
        _ACTIVE = None
    finally:
        _LOCK.release()


__all__ = ["KernelCall", "Recorder", "RecordingKernel", "start", "stop"]
