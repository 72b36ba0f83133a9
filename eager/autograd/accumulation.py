"""The leaf end of the graph, and how gradients are added up.

- ``GradNodeAccumulation``: the end of every path to a leaf. The engine adds the
  leaf's gradient into ``.grad`` once the whole backward has succeeded
  (see engine.py), through :func:`accumulate_into_leaf`.
- ``edge_of``: the edge a recorded op takes to a tensor, creating a leaf's
  accumulation node on first use.
- ``add_grads``: the sum of two gradients of one tensor, recorded when the
  gradients themselves are being differentiated (create_graph).

A leaf's ``.grad`` owns its buffer: the first gradient to arrive is copied
(it may be the user's seed or share a buffer with another leaf's gradient),
later ones are added into it in place by phi's ``accumulate_`` (dense, or
SelectedRows for sparse gradients), and accumulation into one leaf is atomic
across threads.

Gradients written straight into ``.grad`` (``LEAF_WRITERS``): after
``clear_grad()`` (``set_to_zero=True``, Paddle's default) the ``.grad`` buffer
is known to be zero until its version moves (``mark_zeroed``; tracked, never
read from the values). In a plain backward (no create_graph, no captured
inputs, anomaly mode off, no ``eager.jit`` capture running), a node whose
kernel can write a gradient into a given array (``linear_grad``'s weight and
bias gradients, ``matmul_grad``'s of 2-D operands, ``conv2d_grad``'s and
``conv3d_grad``'s filter gradient; their grad node classes get
an ``apply`` that does so, see node.LEAF_WRITERS, active only while the engine
runs such a walk, LEAF_WALK) writes the gradient of a leaf straight into that
zeroed buffer, instead of into a new array that would
then be added into the zeros, when that leaf gets no other gradient in this
backward and has no gradient hook or retained gradient. The values are the
same bit for bit, the ``.grad`` tensor and its buffer stay the ones the user
(or a data-parallel bucket) holds, its version moves as an accumulation's
would, post-accumulate hooks run as usual, and a backward that fails later
zeroes the buffer again (a backward is a transaction: see engine.py).
"""
from __future__ import annotations

import sys
import threading
import weakref

import numpy as np

from phi import api as phi_api
from phi import infermeta as _im
from phi.api.support import FLAGS, verify_infer_meta, wrap_result
from phi.common.tensor_kind import TensorKind
from phi.core import KERNELS, DenseTensor, MetaTensor
from phi.core.dense_tensor import REFS_OF_ONE_LOCAL
from phi.core.errors import PhiError
from phi.core.kernel_registry import BIND_HOOK

from ..tensor import Tensor
from .meta import AutogradMeta, GradBufferMeta, is_owned_grad, own_grad
from .node import LEAF_WRITERS, GradNodeBase

_new = object.__new__  # an object whose slots the code sets itself (no __init__ frame)

# One lock for every leaf: accumulation is a short in-place add, and a backward
# commits all its leaves under it at once (engine._commit).
ACCUMULATION_LOCK = threading.Lock()


class _LeafWalk(threading.local):
    """Per thread: ``state`` is (dependencies, holders, leaves) of the plain walk
    without create_graph running now (engine._walk sets it), or None; the leaf
    writers (LEAF_WRITERS) act only inside such a walk."""

    state = None


LEAF_WALK = _LeafWalk()


class GradNodeAccumulation(GradNodeBase):
    """The end of every path to a leaf: its gradient goes into ``.grad``.

    It holds the leaf's AutogradMeta and the leaf itself weakly: the meta holds
    this node, and the tensor should die with its last user reference, not with
    the next GC cycle.
    """

    __slots__ = ("_meta_ref", "tensor_ref")
    backward_op = "accumulate_grad"
    is_accumulation = True
    post_hooks = None  # {handle id: hook(tensor)}, run after .grad is updated

    def __init__(self, meta, tensor=None):
        super().__init__(())
        self._meta_ref = weakref.ref(meta)
        self.tensor_ref = None if tensor is None else weakref.ref(tensor)

    @property
    def meta(self):
        """The leaf's AutogradMeta, while it is alive."""
        return self._meta_ref()

    @property
    def tensor(self):
        """The leaf tensor, while it is alive."""
        return None if self.tensor_ref is None else self.tensor_ref()

    def apply(self, grads, create_graph: bool):
        # The engine never calls this: it collects a leaf's gradient and adds it
        # into .grad once the whole backward has succeeded (engine._commit).
        return ()


def edge_of(tensor):
    """The edge a recorded op takes to ``tensor``, or None if it stops gradients.

    A leaf that requires a gradient gets its accumulation node here, on first use.
    """
    meta = tensor._meta
    if meta is None or meta.stop_gradient:
        return None
    node = meta.node
    if node is None:
        node = meta.node = GradNodeAccumulation(meta, tensor)
    return (node, meta.slot)


class SumGradNode(GradNodeBase):
    """The history of a sum of two gradients made under create_graph: the
    gradient of ``a + b`` flows unchanged to both."""

    __slots__ = ()
    backward_op = "add_grads_grad"
    forward_op = "add_grads"

    def apply(self, grads, create_graph: bool):
        grad = grads[0]
        return ((grad,), (grad,))


class CopyGradNode(GradNodeBase):
    """The history of a copy of a gradient made under create_graph."""

    __slots__ = ()
    backward_op = "copy_grad_grad"
    forward_op = "copy_grad"

    def apply(self, grads, create_graph: bool):
        return ((grads[0],),)


def _recorded(result, node_class, inputs):
    edges = tuple((edge_of(t),) for t in inputs)
    if any(edge is not None for (edge,) in edges):
        result._meta = AutogradMeta(node_class(edges), 0)
    return result


def add_grads(current, incoming, create_graph: bool):
    """current + incoming in a new buffer; recorded under create_graph."""
    a, b = current.impl, incoming.impl
    if a.kind is TensorKind.DENSE and b.kind is TensorKind.DENSE:
        total = Tensor(phi_api.add(a, b))
    else:  # a SelectedRows (a sparse embedding gradient, a tied weight's other use): phi's accumulation rules
        total = Tensor(phi_api.accumulate_(phi_api.owned_copy(a), b))
    if create_graph:
        return _recorded(total, SumGradNode, (current, incoming))
    return total


def owned_copy(grad, create_graph: bool):
    """A copy of ``grad`` in a buffer of its own; recorded under create_graph."""
    copy = Tensor(phi_api.owned_copy(grad.impl))
    if create_graph:
        return _recorded(copy, CopyGradNode, (grad,))
    return copy


def accumulate_leaves(leaves, create_graph: bool) -> None:
    """Adds each ``(leaf node, gradient)`` of a finished walk into its leaf's
    ``.grad`` (the caller holds ACCUMULATION_LOCK), emptying ``leaves``; an
    entry with gradient None was written into ``.grad`` by a leaf writer.

    A gradient that becomes a leaf's first ``.grad`` is taken without a copy when
    it is fresh: nothing but this function's one local name refers to the
    Tensor, its DenseTensor or its buffer (PyTorch steals a gradient on the same
    grounds). Any other holder (the user's seed, a tensor a hook kept, another
    gradient sharing the buffer, a retained gradient, a view) adds a reference
    and makes it a copy. Every other case goes through :func:`accumulate_into_leaf`.
    """
    refs = REFS_OF_ONE_LOCAL
    getrefcount = sys.getrefcount
    while leaves:
        node, grad = leaves.pop()  # the list's tuple dies here: `grad` is this frame's only reference
        if grad is None:
            continue
        meta = node.meta
        if meta is None:
            continue
        if meta.grad is None and not create_graph and refs is not None:
            impl = grad.impl
            # grad: the local `grad`; impl: grad's slot and the local `impl`; a dense
            # array not a view: impl's slot (the common case asked without a frame)
            if getrefcount(grad) == refs and getrefcount(impl) == refs + 1 and (
                    type(impl) is DenseTensor and impl.array.base is None and getrefcount(impl.array) == refs
                    or impl.owns_buffer_alone()):
                # Tensor(impl, GradBufferMeta()) without the two __init__ frames
                owner = _new(GradBufferMeta)
                owner.node, owner.slot, owner.stop_gradient = None, 0, False
                taken = _new(Tensor)
                taken.impl, taken._meta, taken._name = impl, owner, None
                meta.grad = taken
                continue
        accumulate_into_leaf(meta, grad, create_graph)


def accumulate_into_leaf(meta, grad, create_graph: bool) -> None:
    """Adds ``grad`` into the leaf's ``.grad`` (the caller holds ACCUMULATION_LOCK).

    In place when the current ``.grad`` is a buffer accumulation owns (see
    GradBufferMeta); out of place (and recorded) under create_graph, as the sum
    must then be differentiable, and out of place over a trainable tensor the
    user assigned to ``.grad``. A first ``.grad`` is a copy (see
    :func:`accumulate_leaves` for the fresh gradient taken as it is).
    """
    current = meta.grad
    if current is None:
        copy = owned_copy(grad, create_graph)
        meta.grad = copy if create_graph else own_grad(copy)
    elif create_graph or not is_owned_grad(current):
        total = add_grads(current, grad, create_graph)
        meta.grad = total if create_graph else own_grad(total)
    else:
        # accumulate_ returns acc itself for a dense acc, and a new tensor when a
        # sparse (SelectedRows) .grad meets a dense gradient.
        try:
            result = phi_api.accumulate_(current.impl, grad.impl)
        except PhiError:
            if not _master_grad(current.impl, grad.impl):
                raise
            # amp's master_grad made this float16 leaf's .grad float32: later passes add
            # into it in float32, as Paddle's mixed-dtype add does on the GPU
            result = phi_api.accumulate_(current.impl, phi_api.cast(grad.impl, current.impl.dtype))
        if result is not current.impl:
            meta.grad = own_grad(Tensor(result))


def _master_grad(acc, x) -> bool:
    """Whether ``acc`` is a float32 master gradient (amp's master_grad) of the
    float16/bfloat16 gradient ``x``: same shape and place, dense."""
    return (acc.dtype is not x.dtype and _im.grad_dtype_fits(x.dtype, acc.dtype) and acc.kind is TensorKind.DENSE
            and x.kind is TensorKind.DENSE and tuple(acc.dims) == tuple(x.dims) and acc.place == x.place)


# -- gradients written straight into a zeroed .grad (see the module doc) ------------

def mark_zeroed(grad) -> None:
    """Records that ``grad``, an owned dense ``.grad``, was just zeroed in place
    (clear_grad): known zero until its buffer's version moves."""
    impl = grad.impl
    own_grad(grad)._meta.zero_mark = (impl, impl.version)


def _zeroed_grad(slot, dependencies, holders):
    """The ``.grad`` Tensor of the leaf at the end of edge slot ``slot`` when a
    kernel may write the leaf's gradient straight into it: the leaf gets this
    gradient only, has no gradient hook nor retained gradient, and its ``.grad``
    is an owned, C-contiguous dense buffer known to be zero. Else None."""
    edge = slot[0]
    if edge is None:
        return None
    node = edge[0]
    if not node.is_accumulation:
        return None
    meta = node.meta
    grad = None if meta is None else meta.grad  # None after clear_grad(set_to_zero=False): asked first
    if (grad is None or dependencies.get(node) != 1 or node in holders
            or node.pre_hooks is not None or node.retain_metas is not None or not is_owned_grad(grad)):
        return None
    impl = grad.impl
    if not _known_zero(grad) or type(impl) is not DenseTensor or not impl.array.flags.c_contiguous:
        return None
    return grad


def writable_zero_grad(grad) -> bool:
    """Whether ``grad`` (a leaf's ``.grad`` or None) is a dense, C-contiguous
    buffer that accumulation owns and that is known to be zero (clear_grad
    zeroed it and nothing wrote into it since): a gradient may be written
    straight into it instead of added (group sharding reduces into it)."""
    return (grad is not None and is_owned_grad(grad) and type(grad.impl) is DenseTensor
            and grad.impl.array.flags.c_contiguous and _known_zero(grad))


def _known_zero(grad) -> bool:
    """Whether ``grad`` (an owned .grad) is as clear_grad() zeroed it (see mark_zeroed)."""
    meta = grad._meta
    if meta is None:  # a plain tensor the user set as .grad (_set_grad_ivar): never marked
        return False
    impl = grad.impl
    mark = meta.__dict__.get("zero_mark")
    return mark is not None and mark[0] is impl and mark[1] == impl.version


def _into_arrays(targets, inputs):
    """The arrays of ``targets`` (``.grad`` Tensors or None), when every input
    (DenseTensors) has the targets' array type, dtype and device; else None."""
    array = next(t for t in targets if t is not None).impl.array
    array_type, dtype = type(array), array.dtype
    device = None if array_type is np.ndarray else array.device

    def alike(other) -> bool:
        return type(other) is array_type and other.dtype == dtype and (device is None or other.device == device)

    if not all(type(tensor) is DenseTensor and alike(tensor.array) for tensor in inputs):
        return None
    arrays = tuple(None if target is None else target.impl.array for target in targets)
    if not all(other is None or alike(other) for other in arrays):
        return None
    return arrays


def _run_into(op: str, node, targets, inputs, attrs, out_mask, infer_meta, leaves):
    """Runs kernel ``op`` on ``inputs`` (DenseTensors) and ``attrs`` with its
    gradients written into the ``targets``' buffers (None: a new array); returns
    the node's outputs, None for each gradient written into a ``.grad`` (whose
    leaf goes to ``leaves`` with None), or None when the op's own checks must
    run instead (node.apply)."""
    into = _into_arrays(targets, inputs)
    if into is None:
        return None
    metas = None
    if FLAGS.check_infer_meta:
        metas = [MetaTensor() for _ in targets]
        try:
            infer_meta(*inputs, *attrs, *metas)
        except PhiError:
            return None  # node.apply raises it, naming the op
    array = inputs[-1].array
    kernel = KERNELS.dispatch_table(op)[type(array), array.dtype]
    # Under the lock every other write into a .grad takes (engine._commit): another
    # thread's backward may have added into one of these buffers since it was checked.
    with ACCUMULATION_LOCK:
        if not all(target is None or _known_zero(target) for target in targets):
            return None
        try:
            results = kernel(*(t.array for t in inputs), *attrs, out_mask=out_mask, into=into)
        except BaseException:  # the buffers may hold part of a result: zeros again
            for target in targets:
                if target is not None:
                    phi_api.zero_(target.impl)
                    mark_zeroed(target)
            raise
        for target, buffer, result in zip(targets, into, results):
            if target is not None and result is buffer:
                target.impl.bump_version()
    if metas is not None:
        verify_infer_meta(op, metas, results)
    outputs = []
    for target, buffer, result in zip(targets, into, results):
        if target is not None and result is buffer:
            leaves.append((node.next_edges[len(outputs)][0][0], None))
            outputs.append((None,))
        else:
            outputs.append((None if result is None else Tensor(wrap_result(result, type(array))),))
    return tuple(outputs)


def _write_linear(node, grads, apply, dependencies, holders, leaves):
    """LinearGradNode in a plain backward: weight's and bias's gradients straight
    into their zeroed ``.grad`` where they may go (see the module doc); else
    ``apply``, the generated one."""
    edges = node.next_edges
    weight_grad = _zeroed_grad(edges[1], dependencies, holders)
    bias_grad = _zeroed_grad(edges[2], dependencies, holders)
    if (weight_grad is not None or bias_grad is not None) and BIND_HOOK.hook is None:
        out_mask = (edges[0][0] is not None, edges[1][0] is not None, edges[2][0] is not None)
        inputs = (node.x.recover_impl(node), node.weight.recover_impl(node), grads[0].impl)
        outputs = _run_into("linear_grad", node, (None, weight_grad, bias_grad), inputs, (), out_mask,
                            _im.linear_grad_infer_meta, leaves)
        if outputs is not None:
            return outputs
    return apply(node, grads, False)


def _write_matmul(node, grads, apply, dependencies, holders, leaves):
    """MatmulGradNode in a plain backward of 2-D operands without transposes:
    a leaf operand's gradient straight into its zeroed ``.grad``."""
    edges = node.next_edges
    x_grad = _zeroed_grad(edges[0], dependencies, holders)
    y_grad = _zeroed_grad(edges[1], dependencies, holders)
    if ((x_grad is not None or y_grad is not None) and BIND_HOOK.hook is None
            and not node.transpose_x and not node.transpose_y):
        x, y = node.x.recover_impl(node), node.y.recover_impl(node)
        if len(x.dims) == 2 and len(y.dims) == 2:
            out_mask = (edges[0][0] is not None, edges[1][0] is not None)
            outputs = _run_into("matmul_grad", node, (x_grad, y_grad), (x, y, grads[0].impl),
                                (False, False), out_mask, _im.matmul_grad_infer_meta, leaves)
            if outputs is not None:
                return outputs
    return apply(node, grads, False)


def _write_conv(node, grads, apply, dependencies, holders, leaves):
    """Conv2dGradNode / Conv3dGradNode in a plain backward: the filter's gradient
    straight into its zeroed ``.grad`` (the kernel's matmul writes it there);
    the input's gradient is a new array as always."""
    edges = node.next_edges
    filter_grad = _zeroed_grad(edges[1], dependencies, holders)
    if filter_grad is not None and BIND_HOOK.hook is None:
        op = node.backward_op
        out_mask = (edges[0][0] is not None, True)
        inputs = (node.input.recover_impl(node), node.filter.recover_impl(node), grads[0].impl)
        attrs = (node.strides, node.paddings, node.padding_algorithm, node.dilations, node.groups, node.data_format)
        outputs = _run_into(op, node, (None, filter_grad), inputs, attrs, out_mask,
                            getattr(_im, f"{op}_infer_meta"), leaves)
        if outputs is not None:
            return outputs
    return apply(node, grads, False)


def _leaf_writing(writer):
    """wrap(apply) for LEAF_WRITERS: the grad node's ``apply`` that runs
    ``writer`` inside a plain walk (LEAF_WALK), and ``apply`` itself elsewhere
    (create_graph, grad(), anomaly mode, a call outside a backward)."""
    def wrap(apply):
        def apply_writing_leaves(self, grads, create_graph):
            walk = LEAF_WALK.state
            if walk is None or create_graph:
                return apply(self, grads, create_graph)
            return writer(self, grads, apply, *walk)

        apply_writing_leaves.__doc__ = apply.__doc__
        apply_writing_leaves.__wrapped__ = apply
        return apply_writing_leaves
    return wrap


LEAF_WRITERS.update(linear_grad=_leaf_writing(_write_linear), matmul_grad=_leaf_writing(_write_matmul),
                    conv2d_grad=_leaf_writing(_write_conv), conv3d_grad=_leaf_writing(_write_conv))


def undo_leaf_writes(leaves) -> None:
    """Zeroes again each ``.grad`` a leaf writer filled (a ``(node, None)`` entry
    of a walk that failed): the backward leaves every ``.grad`` as it was."""
    with ACCUMULATION_LOCK:
        for node, grad in leaves:
            if grad is None:
                meta = node.meta
                current = None if meta is None else meta.grad
                if current is not None:
                    phi_api.zero_(current.impl)
                    mark_zeroed(current)


__all__ = ["ACCUMULATION_LOCK", "GradNodeAccumulation", "LEAF_WALK", "LEAF_WRITERS", "accumulate_into_leaf",
           "accumulate_leaves", "add_grads", "edge_of", "mark_zeroed", "owned_copy",
           "undo_leaf_writes"]
