"""Group-sharded data parallelism (ZeRO), Paddle's ``paddle.distributed.sharding``.

Every rank of the sharding group trains the whole network on its own share of
each batch, as with DataParallel, but the optimizer's work is split: each
parameter has one owner rank, and only the owner keeps the parameter's
optimizer state (Adam's moments, master weights) and updates it.

How the parameters are split: the optimizer's parameters, in its order, each
go to the rank that owns the fewest elements so far (Paddle's greedy split;
parameters with ``stop_gradient=True`` count zero). Every rank computes the
same split, so no message is needed.

What a training step does, by level (``optimizer.step()``):

- ``'os'`` (stage 1, optimizer state): every gradient is averaged over the
  group on every rank (an all-reduce), the owners update their parameters,
  and each updated parameter is broadcast from its owner.
- ``'os_g'`` (stage 2, + gradients): each gradient is averaged onto its
  owner only (a reduce) while backward runs (:class:`_BackwardReducer`); the
  other ranks never keep it (``.grad`` stays None). ``step()``: the owners
  update and broadcast as in ``'os'``.
- ``'p_g_os'`` (stage 3, + parameters): between steps a rank holds only the
  storage of the parameters it owns; the others are released (their
  ``.impl.array`` becomes a read-only zero-stride view of one zero: the
  shape stays, the memory goes). The wrapped model's forward gathers them
  (a broadcast from each owner) and they stay gathered through backward,
  which reduces the gradients onto their owners as in ``'os_g'``;
  ``step()`` updates the owned parameters and releases the rest again. A
  forward under ``no_grad`` releases what it gathered as soon as it returns.

The collectives carry consecutive tensors of one dtype (and owner) packed
into flat buffers of up to ``buffer_max_size`` elements. A parameter that got
a gradient on some ranks only is averaged with zeros from the others; one
that no rank got a gradient for keeps its ``.grad`` (None: not updated).

With a ``dp_group`` (the ranks that hold the same shard in a sharding x
data-parallel grid), the gradients are first averaged over it.

A ``ClipGradByGlobalNorm`` of the optimizer is replaced by one whose norm
covers the whole model: the owners' squared norms summed over the group. A
``GradScaler`` passed as ``scaler`` comes back as a :class:`GroupShardedScaler`,
whose Inf/NaN check is agreed over the group, so every rank skips the same
steps.
"""
from __future__ import annotations

import numbers
import os
import weakref

import numpy as np

from phi import api as phi_api
from phi.backends.gpu_context import import_cupy
from phi.common import DataType, TensorKind
from phi.core import DenseTensor

from ...amp.grad_scaler import GradScaler
from ...autograd.accumulation import writable_zero_grad
from ...autograd.engine import queue_callback, writes_grad
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...autograd.meta import is_owned_grad, own_grad, records_gradient
from ...autograd.node import TAKEN
from ...creation import to_tensor
from ...generated import forward_api as _F
from ...nn.clip import ClipGradByGlobalNorm, _squared_norm
from ...nn.embedding import Embedding
from ...nn.layer import Layer
from ...optimizer.optimizer import Optimizer
from ...serialization import save
from ...tensor import Tensor
from ..collective import ReduceOp, all_gather_object, all_reduce, barrier, broadcast, reduce
from ..group import Group, resolve_group
from ..parallel import WrappedStateDict, _broadcast_state

_LEVELS = ("os", "os_g", "p_g_os")
_WHO = "group_sharded_parallel"


def _numel(param) -> int:
    return int(np.prod(param.shape, dtype=np.int64))


def partition(params, nranks: int) -> list:
    """The owner (a rank of the group, 0 .. nranks-1) of each parameter: in
    order, each goes to the rank holding the fewest trainable elements so far
    (the lowest such rank on a tie); ``stop_gradient`` parameters count zero."""
    sizes = [0] * nranks
    owners = []
    for param in params:
        rank = sizes.index(min(sizes))
        owners.append(rank)
        if not param.stop_gradient:
            sizes[rank] += _numel(param)
    return owners


def _runs(tensors, limit: int):
    """``tensors`` cut into consecutive runs of one dtype and device kind, each
    of at most ``limit`` elements (a larger tensor is a run of its own); every
    rank cuts its list alike, so the collectives of the runs match."""
    run, size, key = [], 0, None
    for tensor in tensors:
        numel = _numel(tensor)
        kind = (tensor.impl.dtype, tensor.place.is_gpu_place())
        if run and (kind != key or size + numel > limit):
            yield run
            run, size = [], 0
        run.append(tensor)
        size += numel
        key = kind
    if run:
        yield run


def _packed(tensors, collective) -> None:
    """Runs ``collective`` (in place on one tensor) over ``tensors`` as one flat
    buffer, and writes the result back into each (a single tensor goes as it is)."""
    if len(tensors) == 1:
        collective(tensors[0])
        return
    flat = _F.concat([_F.reshape(t, [-1]) for t in tensors], 0)
    collective(flat)
    offset = 0
    for tensor in tensors:
        numel = _numel(tensor)
        piece = _F.reshape(_F.slice(flat, [0], [offset], [offset + numel]), tensor.shape)
        phi_api.assign_out_(piece.impl, tensor.impl)
        offset += numel


def _released_array(array):
    """A read-only array of ``array``'s shape and dtype holding one zero (zero
    strides): what a released parameter keeps, on the same device."""
    if isinstance(array, np.ndarray):
        return np.broadcast_to(np.zeros((), array.dtype), array.shape)
    cupy = import_cupy()
    with cupy.cuda.Device(array.device.id):
        return cupy.broadcast_to(cupy.zeros((), array.dtype), array.shape)


def _empty_array(array):
    """A new writable array of ``array``'s shape and dtype on its device."""
    if isinstance(array, np.ndarray):
        return np.empty(array.shape, array.dtype)
    cupy = import_cupy()
    with cupy.cuda.Device(array.device.id):
        return cupy.empty(array.shape, array.dtype)


class _Shards:
    """The split of the optimizer's parameters over the group, and the
    collectives of a step (shared by the model and optimizer wrappers)."""

    def __init__(self, params, group: Group, level: str, excluded=frozenset(), buffer_max_size: int = 2 ** 23,
                 dp_group=None):
        self.group = group
        # The data-parallel group across which ranks of the same shard average first (None: none).
        self.dp_group = dp_group if dp_group is not None and dp_group.nranks > 1 else None
        self.limit = buffer_max_size      # the most elements one collective carries
        self.level = level
        self.params = list(params)
        self.nranks = group.nranks
        self.owners = partition(self.params, self.nranks)
        self.owner_of = {id(p): o for p, o in zip(self.params, self.owners)}
        self.mine = [p for p, o in zip(self.params, self.owners) if o == group.rank]
        self.excluded = excluded        # ids of stage-3 parameters kept whole on every rank
        self.released = False           # stage 3: the others' parameters are released now
        self.reducer = None             # stages 2 and 3 over several ranks: reduces during backward

    def source(self, param) -> int:
        """The global rank that owns ``param``."""
        return self.group.ranks[self.owner_of[id(param)]]

    def owns(self, param) -> bool:
        return self.owner_of[id(param)] == self.group.rank

    # -- gradients ------------------------------------------------------------
    def reduce_in_backward(self) -> None:
        """Stages 2 and 3: from now on each gradient is reduced onto its owner
        while backward runs (see :class:`_BackwardReducer`)."""
        if self.nranks == 1 and self.dp_group is None:
            return  # nothing to reduce
        trainable = [p for p in self.params if records_gradient(p)]
        if trainable:
            self.reducer = _BackwardReducer(trainable, [self.owner_of[id(p)] for p in trainable], self.group,
                                            self.dp_group, self.limit)

    def reduce_gradients(self, who: str) -> None:
        """Averages the gradients over the group: onto every rank ('os') or onto
        the owners, the other ranks' dropped ('os_g', 'p_g_os')."""
        trainable = [p for p in self.params if records_gradient(p)]
        for param in trainable:  # checked before anything changes
            grad = param.grad
            if grad is not None and grad.impl.kind is not TensorKind.DENSE:
                raise TypeError(f"{who}: parameter {param.name!r} has a sparse (SelectedRows) gradient, "
                                f"which group sharding does not reduce; use Embedding(sparse=False)")
        if (self.nranks == 1 and self.dp_group is None) or not trainable:
            return
        present = to_tensor(np.array([p.grad is not None for p in trainable], np.int32))
        for group in (self.group, self.dp_group):  # the maximum over the sharding x data-parallel grid
            if group is not None:
                all_reduce(present, op=ReduceOp.MAX, group=group)
        used = [p for p, anywhere in zip(trainable, present.numpy().tolist()) if anywhere]
        for param in used:  # (a parameter no rank has a gradient for is not updated)
            if param.grad is None:  # used on other ranks only: this rank adds zeros
                param.grad = own_grad(Tensor(phi_api.full(param.impl.dims, 0.0, param.impl.dtype,
                                                          param.impl.place)))
        if self.dp_group is not None:  # first the average over the replicas of this shard
            for run in _runs([p.grad for p in used], self.limit):
                _packed(run, lambda t: all_reduce(t, op=ReduceOp.AVG, group=self.dp_group))
        if self.nranks == 1:
            return
        if self.level == "os":
            for run in _runs([p.grad for p in used], self.limit):
                _packed(run, lambda t: all_reduce(t, op=ReduceOp.AVG, group=self.group))
            return
        for owner in range(self.nranks):
            dst = self.group.ranks[owner]
            owned = [p for p in used if self.owner_of[id(p)] == owner]
            for run in _runs([p.grad for p in owned], self.limit):
                if owner == self.group.rank:
                    _packed(run, lambda t: reduce(t, dst, op=ReduceOp.AVG, group=self.group))
                else:  # what this rank sends; the result lands on the owner only
                    reduce(run[0] if len(run) == 1 else _F.concat([_F.reshape(t, [-1]) for t in run], 0),
                           dst, op=ReduceOp.AVG, group=self.group)
            if owner != self.group.rank:
                for param in owned:
                    param.clear_grad(False)

    # -- parameters -----------------------------------------------------------
    def broadcast_params(self, only_excluded: bool = False) -> None:
        """Each trainable parameter (or only the excluded ones) from its owner to the group."""
        if self.nranks == 1:
            return
        chosen = [p for p in self.params if records_gradient(p) and (not only_excluded or id(p) in self.excluded)]
        self._broadcast_from_owners(chosen)

    def _broadcast_from_owners(self, params) -> None:
        """``params`` from their owners, packed by owner (in runs of ``limit`` elements)."""
        for owner in range(self.nranks):
            src = self.group.ranks[owner]
            for run in _runs([p for p in params if self.owner_of[id(p)] == owner], self.limit):
                _packed(run, lambda t: broadcast(t, src, group=self.group))

    def gather_params(self) -> bool:
        """Stage 3: brings back the released parameters (a broadcast from each
        owner). Returns whether there was anything to gather."""
        if not self.released:
            return False
        gathered = [p for p in self.params if id(p) not in self.excluded]
        for param in gathered:
            if not self.owns(param):
                param.impl.array = _empty_array(param.impl.array)
        self._broadcast_from_owners(gathered)
        self.released = False
        return True

    def release_params(self) -> None:
        """Stage 3: drops the storage of the parameters this rank does not own."""
        if self.nranks == 1 or self.released:
            return
        for param in self.params:
            if id(param) not in self.excluded and not self.owns(param):
                param.impl.array = _released_array(param.impl.array)
        self.released = True

    def broadcast_buffers(self, layer: Layer) -> None:
        """The layer's buffers from the group's first rank (``sync_buffers``)."""
        if self.nranks == 1:
            return
        for _, buffer in layer.named_buffers():
            broadcast(buffer, self.group.ranks[0], group=self.group)


class _Bucket:
    """Consecutive trainable parameters of one owner, dtype and device kind
    whose gradients of one backward travel in one flat buffer."""

    __slots__ = ("indices", "offsets", "numel", "owner", "buffer", "pending", "borrowed")

    def __init__(self, indices, offsets, numel: int, owner: int):
        self.indices = indices      # positions in the reducer's parameter list
        self.offsets = offsets      # where each parameter's gradient starts in the buffer
        self.numel = numel
        self.owner = owner          # the rank in the sharding group the buffer is reduced onto
        self.buffer = None          # this backward's flat gradients (a Tensor), once one arrived
        self.borrowed = False       # buffer is the gradient backward brought (a one-parameter bucket)
        self.pending = 0            # the parameters whose gradient this backward has not brought yet


class _BackwardReducer:
    """Stages 2 and 3: each parameter's gradient is reduced onto its owner
    while backward runs (Paddle's reduce hooks), so a rank never holds the
    full gradients of the model.

    The trainable parameters are cut into buckets of consecutive parameters of
    one owner, dtype and device kind, of at most ``limit`` elements (a larger
    parameter is a bucket of its own). A tensor hook on each parameter copies
    the gradient backward brings into its bucket's flat buffer and returns
    ``TAKEN``, so the engine drops its own reference and nothing reaches
    ``.grad`` then. A bucket whose parameters have all arrived is averaged
    (over ``dp_group`` first, then reduced onto its owner) as soon as the
    buckets before it in the fixed order (the last parameters' first, the
    order backward brings them) have gone, so every rank runs the same
    collectives in the same order; a rank that does not own it drops the
    buffer right away. At the end of backward (``queue_callback``) the
    buckets whose parameters got no gradient on this rank go with zeros, the
    ranks agree which parameters had a gradient somewhere (one small
    all-reduce) and the owner adds the averages into ``.grad`` (views of its
    buffers; a parameter no rank had a gradient for keeps ``.grad`` as it
    was). ``.grad`` changes only there, after the backward succeeded. Hooks
    hold the reducer weakly. ``eager.grad`` (which writes no ``.grad``) is
    left alone: it returns this rank's local gradients."""

    def __init__(self, params, owners, group: Group, dp_group, limit: int):
        self.params = params
        self.group = group
        self.dp_group = dp_group
        self.in_pass = False
        self.in_walk = False
        self.marked = [False] * len(params)
        self.next_bucket = 0
        self.buckets, self.slot_of = [], {}
        run, size, key = [], 0, None
        for index, param in enumerate(params):
            numel = _numel(param)
            kind = (param.impl.dtype, param.place.is_gpu_place(), owners[index])
            if run and (kind != key or size + numel > limit):
                self._add_bucket(run, key[2])
                run, size = [], 0
            run.append(index)
            size += numel
            key = kind
        if run:
            self._add_bucket(run, key[2])
        self.buckets.reverse()  # backward brings the last parameters' gradients first
        me = weakref.ref(self)
        handles = [param.register_hook(_taking_hook(me, index)) for index, param in enumerate(params)]
        weakref.finalize(self, _remove_hooks, handles)

    def _add_bucket(self, indices, owner: int) -> None:
        offsets, total = [], 0
        for index in indices:
            offsets.append(total)
            total += _numel(self.params[index])
        bucket = _Bucket(indices, offsets, total, owner)
        self.buckets.append(bucket)
        for index, offset in zip(indices, offsets):
            self.slot_of[index] = (bucket, offset)

    def _buffer(self, bucket: _Bucket) -> Tensor:
        if bucket.buffer is None:
            first = self.params[bucket.indices[0]].impl
            bucket.buffer = Tensor(phi_api.full([bucket.numel], 0.0, first.dtype, first.place))
        return bucket.buffer

    def prepare(self) -> None:
        """Before a forward: forgets a backward that failed before its end (its
        collectives were synchronous, so nothing is left in flight)."""
        self.in_pass = False

    def _begin(self) -> None:
        self.in_pass = True
        self.in_walk = True  # the engine's walk runs (False in finish)
        self.next_bucket = 0
        self.marked = [False] * len(self.params)
        for bucket in self.buckets:
            bucket.pending = len(bucket.indices)
            bucket.buffer = None
            bucket.borrowed = False
        queue_callback(self.finish)

    def on_gradient(self, index: int, grad: Tensor):
        """A parameter's gradient of this backward arrived (its hook): into its
        bucket, and the bucket reduced when its turn has come. Returns TAKEN."""
        if not writes_grad():
            return None  # eager.grad: the caller gets the local gradient, .grad is not touched
        param = self.params[index]
        if grad.impl.kind is not TensorKind.DENSE:
            raise TypeError(f"group_sharded_parallel: parameter {param.name!r} got a sparse (SelectedRows) "
                            f"gradient, which group sharding does not reduce; use Embedding(sparse=False)")
        if self.in_pass and self.marked[index]:
            self.in_pass = False  # the pass before failed before its end: this is a new one
        if not self.in_pass:
            self._begin()
        self.marked[index] = True
        bucket, offset = self.slot_of[index]
        if len(bucket.indices) == 1:  # kept as it is until its turn (copied only if written into)
            bucket.buffer, bucket.borrowed = grad, True
        else:
            self._buffer(bucket).impl.array[offset:offset + _numel(param)] = grad.impl.array.reshape(-1)
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch_ready()
        return TAKEN

    def _launch_ready(self) -> None:
        """Reduces every full bucket whose predecessors have gone."""
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            bucket = self.buckets[self.next_bucket]
            mine = bucket.owner == self.group.rank
            flat, direct = self._buffer(bucket), False
            if bucket.borrowed and (mine or self.dp_group is not None):  # it will be written into
                grad = self.params[bucket.indices[0]].grad
                if mine and writable_zero_grad(grad):  # reduced straight into the zeroed .grad
                    grad.impl.array[...] = flat.impl.array.reshape(grad.impl.array.shape)
                    flat, direct = grad, True
                else:
                    flat = Tensor(phi_api.owned_copy(flat.impl))
                bucket.buffer, bucket.borrowed = flat, False
            if self.dp_group is not None:
                all_reduce(flat, op=ReduceOp.AVG, group=self.dp_group)
            if self.group.nranks > 1:
                reduce(flat, self.group.ranks[bucket.owner], op=ReduceOp.AVG, group=self.group)
            if not mine or direct:
                bucket.buffer = None  # sent (this rank keeps nothing of another rank's gradients), or in .grad
            elif self.in_walk:  # every parameter of it had a gradient: into .grad now
                self._write(bucket, None)
            self.next_bucket += 1

    def _write(self, bucket: _Bucket, anywhere) -> None:
        """The owner adds the bucket's averages into ``.grad`` (views of the
        buffer for a parameter without one; ``anywhere``: per parameter, whether
        some rank had a gradient for it, None: all did) and lets the buffer go."""
        flat = bucket.buffer.impl.array.reshape(-1)
        bucket.buffer = None
        for index, offset in zip(bucket.indices, bucket.offsets):
            param = self.params[index]
            if anywhere is None or anywhere[index] or param.grad is not None:
                _add_into_grad(param, flat[offset:offset + _numel(param)].reshape(param.shape))

    def finish(self) -> None:
        """The end of backward: the rest of the buckets, then the owner's ``.grad``."""
        if not self.in_pass:
            return
        try:
            self.in_walk = False
            for index, marked in enumerate(self.marked):
                if not marked:  # no gradient here this time: its slot goes as zeros
                    self.slot_of[index][0].pending -= 1
            self._launch_ready()
            present = to_tensor(np.array(self.marked, np.int32))
            for group in (self.group, self.dp_group):
                if group is not None and group.nranks > 1:
                    all_reduce(present, op=ReduceOp.MAX, group=group)
            anywhere = present.numpy().tolist()
            for bucket in self.buckets:
                if bucket.buffer is not None:  # this rank's, reduced just now
                    self._write(bucket, anywhere)
        finally:
            self.in_pass = False


def _add_into_grad(param, values) -> None:
    """``param.grad`` += ``values`` (an array of its shape; taken as the new
    ``.grad`` when there is none)."""
    current = param.grad
    if current is None:
        param.grad = own_grad(Tensor(DenseTensor(values)))
    elif current.impl.kind is TensorKind.DENSE and is_owned_grad(current):
        phi_api.accumulate_(current.impl, DenseTensor(values))
    else:
        param.grad = own_grad(Tensor(phi_api.add(current.impl, DenseTensor(values))))


def _taking_hook(reducer_ref, index: int):
    def hook(grad):
        reducer = reducer_ref()
        return None if reducer is None else reducer.on_gradient(index, grad)
    return hook


def _remove_hooks(handles) -> None:
    for handle in handles:
        handle.remove()


class GroupShardedClipGrad(ClipGradByGlobalNorm):
    """ClipGradByGlobalNorm over a sharded optimizer: each rank holds the
    gradients of its own parameters, so the squared norms are summed over the
    group (in float64) and every rank scales by the norm of the whole model."""

    _skip_when_empty = False  # every rank joins the all-reduce, with or without gradients

    def __init__(self, clip: ClipGradByGlobalNorm, group: Group):
        super().__init__(clip.clip_norm, clip.group_name, clip.auto_skip_clip)
        self._group = group

    def _squared_total(self, clipped, wide):
        """The owners' squared norms summed over the group."""
        total = _F.zeros([], DataType.FLOAT64)
        for _, grad in clipped:
            total = _F.add(total, _F.cast(_squared_norm(grad, wide), DataType.FLOAT64))
        all_reduce(total, group=self._group)
        return _F.cast(total, wide)

    def __repr__(self):
        return f"GroupShardedClipGrad(clip_norm={self.clip_norm})"


class GroupShardedOptimizer(Optimizer):
    """The optimizer :func:`group_sharded_parallel` returns: Paddle's optimizer
    API over the wrapped ``_optim``, which keeps state for (and updates) only
    the parameters this rank owns. ``step()`` runs the level's collectives
    around the owner's update (see the module doc); ``clear_grad`` clears
    every parameter's gradient; ``state_dict`` / ``set_state_dict`` are the
    wrapped optimizer's (this rank's share: :func:`save_group_sharded_model`
    gathers them all); ``get_lr`` / ``set_lr`` / ``set_lr_scheduler`` reach
    the wrapped optimizer. ``step`` must be called on every rank of the group.
    """

    def __init__(self, optimizer: Optimizer, shards: _Shards):
        rate = optimizer._lr_scheduler if optimizer._lr_scheduler is not None else optimizer._lr_value
        mine = {id(p) for p in shards.mine}
        # The wrapped optimizer keeps only its own parameters, and only their state.
        optimizer._release_flat_groups()
        optimizer._parameter_list = [p for p in optimizer._parameter_list if id(p) in mine]
        for group in optimizer._param_groups:
            group["params"] = [p for p in group["params"] if id(p) in mine]
        optimizer._accumulators = {k: v for k, v in optimizer._accumulators.items() if k[1] in mine}
        optimizer._states = {k: v for k, v in optimizer._states.items() if k in mine}
        optimizer._master_weights = {k: v for k, v in optimizer._master_weights.items() if k in mine}
        optimizer._plans = {k: v for k, v in optimizer._plans.items() if k in mine}
        if type(optimizer._grad_clip) is ClipGradByGlobalNorm and shards.nranks > 1:
            optimizer._grad_clip = GroupShardedClipGrad(optimizer._grad_clip, shards.group)
        super().__init__(rate, parameters=shards.params, grad_clip=optimizer._grad_clip)
        self._optim = optimizer
        self._shards = shards

    @property
    def level(self) -> str:
        """The sharding level: 'os', 'os_g' or 'p_g_os'."""
        return self._shards.level

    @property
    def local_params(self) -> list:
        """The parameters this rank owns (those whose state it keeps)."""
        return list(self._shards.mine)

    @property
    def param2rank(self) -> dict:
        """Parameter name -> the rank (in the group) that owns it (Paddle's property)."""
        return {p.name: o for p, o in zip(self._shards.params, self._shards.owners)}

    @no_grad()
    def step(self) -> None:
        """Reduces the gradients, updates this rank's parameters, then shares
        them (broadcast, 'os'/'os_g') or releases the others (stage 3)."""
        shards = self._shards
        if shards.reducer is None:
            shards.reduce_gradients(f"{type(self).__name__}.step")
        self._optim.step()
        if shards.level == "p_g_os":
            shards.broadcast_params(only_excluded=True)
            shards.release_params()
        else:
            shards.broadcast_params()

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Not supported, as in Paddle: call ``loss.backward()`` then :meth:`step`."""
        raise RuntimeError(f"{type(self).__name__}.minimize: not supported with group sharding (as in "
                           f"Paddle); call loss.backward() and then optimizer.step()")

    def apply_gradients(self, params_grads) -> list:
        """Not supported: the gradients are reduced by :meth:`step`."""
        raise RuntimeError(f"{type(self).__name__}.apply_gradients: not supported with group sharding; "
                           f"call loss.backward() and then optimizer.step()")

    def add_param_group(self, param_group: dict) -> None:
        """Not supported: the split over the ranks is fixed when the optimizer is wrapped."""
        raise RuntimeError(f"{type(self).__name__}.add_param_group: the parameters are split over the "
                           f"ranks when group_sharded_parallel wraps the optimizer; add groups before")

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Resets the gradients of every parameter (owned or not)."""
        for param in self._shards.params:
            param.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    def state_dict(self) -> dict:
        """The wrapped optimizer's state: only this rank's parameters' accumulators."""
        return self._optim.state_dict()

    def set_state_dict(self, state_dict) -> None:
        """Loads into the wrapped optimizer (keys of parameters other ranks own are ignored)."""
        self._optim.set_state_dict(state_dict)

    def get_lr(self) -> float:
        """The wrapped optimizer's learning rate."""
        return self._optim.get_lr()

    def set_lr(self, value: float) -> None:
        """Sets the wrapped optimizer's learning rate."""
        self._optim.set_lr(value)

    def set_lr_scheduler(self, scheduler) -> None:
        """Gives the wrapped optimizer a learning-rate scheduler."""
        self._optim.set_lr_scheduler(scheduler)

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_optim", "_shards"):
            raise AttributeError(name)
        return getattr(self._optim, name)

    def __repr__(self):
        return (f"GroupShardedOptimizer(level={self.level!r}, optimizer={self._optim!r}, "
                f"owned={len(self._shards.mine)}/{len(self._shards.params)})")


class GroupShardedStage2(WrappedStateDict, Layer):
    """The model :func:`group_sharded_parallel` returns for 'os' and 'os_g':
    runs the wrapped network (``self._layer``) and, with ``sync_buffers``,
    first broadcasts its buffers from the group's first rank.
    ``state_dict()`` is the network's (no prefix)."""

    _wrapped = "_layer"

    def __init__(self, layer: Layer, shards: _Shards, sync_buffers: bool):
        super().__init__(layer.full_name() + "_group_sharded")
        self._layer = layer
        self._shards = shards
        self._sync_buffers = sync_buffers

    def forward(self, *inputs, **kwargs):
        """The wrapped network's forward."""
        if self._shards.reducer is not None:
            self._shards.reducer.prepare()
        if self._sync_buffers:
            with no_grad():
                self._shards.broadcast_buffers(self._layer)
        return self._layer(*inputs, **kwargs)


class GroupShardedStage3(GroupShardedStage2):
    """The model :func:`group_sharded_parallel` returns for 'p_g_os': between
    steps only this rank's own parameters keep their storage; ``forward``
    gathers the others first (every rank must call it together). Call
    :meth:`get_all_parameters` before reading ``state_dict()`` of a released
    model (its released parameters read as zeros)."""

    def forward(self, *inputs, **kwargs):
        """Gathers the released parameters, then runs the wrapped network; under
        ``no_grad`` (no backward to come) releases them again at the end."""
        with no_grad():
            gathered = self._shards.gather_params()
        try:
            return super().forward(*inputs, **kwargs)
        finally:
            if gathered and not is_grad_enabled():
                self._shards.release_params()

    def get_all_parameters(self, convert2cpu: bool = False) -> None:
        """Gathers every parameter onto every rank (a collective) until the next
        ``step()``. ``convert2cpu`` is Paddle's (for offload) and must be False."""
        if not isinstance(convert2cpu, bool) or convert2cpu:
            raise ValueError(f"GroupShardedStage3.get_all_parameters: argument 'convert2cpu' expected "
                             f"False (offload is not supported), got {convert2cpu!r}")
        with no_grad():
            self._shards.gather_params()


class GroupShardedScaler(GradScaler):
    """The GradScaler :func:`group_sharded_parallel` returns: the given
    scaler's settings and state, with the Inf/NaN found by ``unscale_``
    agreed over the sharding group (the maximum), so that every rank skips
    the same steps (each rank checks its own, un-averaged gradients)."""

    def __init__(self, scaler: GradScaler, group: Group, dp_group=None):  # a copy: no super().__init__
        self.__dict__.update(scaler.__dict__)
        self._groups = [g for g in (group, dp_group) if g is not None and g.nranks > 1]

    def unscale_(self, optimizer) -> None:
        """GradScaler's unscale_, then the found Inf/NaN agreed over the group
        (and the data-parallel group)."""
        super().unscale_(optimizer)
        if self._enable and self._groups:
            found = to_tensor(np.array([int(self._found_inf)], np.int32))
            for group in self._groups:
                all_reduce(found, op=ReduceOp.MAX, group=group)
            self._found_inf = bool(found.numpy()[0])


# -- checks -------------------------------------------------------------------
def _check_bool(arg: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{_WHO}: argument '{arg}' expected a bool, got {value!r}")
    return bool(value)


def _check_count(arg: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{_WHO}: argument '{arg}' expected a positive int, got {value!r}")
    if value <= 0:
        raise ValueError(f"{_WHO}: argument '{arg}' expected a positive int, got {value}")
    return int(value)


def _check_group(arg: str, group) -> Group:
    if group is not None and not isinstance(group, Group):
        raise TypeError(f"{_WHO}: argument '{arg}' expected None or a group from "
                        f"eager.distributed.new_group, got {type(group).__name__}")
    group = resolve_group(_WHO, group)
    if not group.is_member():
        raise ValueError(f"{_WHO}: argument '{arg}': this process is not one of the group's ranks "
                         f"{group.ranks}")
    return group


def _excluded_ids(model: Layer, exclude_layer) -> frozenset:
    """ids of the parameters of the layers ``exclude_layer`` names (class names or ids)."""
    if exclude_layer is None:
        return frozenset()
    if not isinstance(exclude_layer, (list, tuple)) or not all(
            isinstance(item, str) or (isinstance(item, int) and not isinstance(item, bool))
            for item in exclude_layer):
        raise TypeError(f"{_WHO}: argument 'exclude_layer' expected None or a list of layer class names "
                        f"(str) and layer ids (int), got {exclude_layer!r}")
    wanted = set(exclude_layer)
    layers = [layer for layer in model.sublayers(include_self=True)
              if type(layer).__name__ in wanted or id(layer) in wanted]
    return frozenset(id(p) for layer in layers for p in layer.parameters())


def group_sharded_parallel(model, optimizer, level, scaler=None, group=None, offload=False, sync_buffers=False,
                           buffer_max_size=2 ** 23, segment_size=2 ** 20, sync_comm=False, dp_group=None,
                           exclude_layer=None):
    """Wraps ``model``, ``optimizer`` (and ``scaler``) for group-sharded data
    parallelism (ZeRO; Paddle's ``paddle.distributed.sharding.group_sharded_parallel``).
    Returns ``(model, optimizer, scaler)``; call it on every rank of ``group``
    (None: all ranks), which first makes every rank's parameters and buffers
    equal to the group's first rank's.

    ``level``: 'os' (the optimizer state is split over the ranks), 'os_g'
    (and the gradients), 'p_g_os' (and the parameters' storage between
    steps); the module doc says what each does. ``scaler``: None or a
    GradScaler (returned as a :class:`GroupShardedScaler`). ``sync_buffers``:
    broadcast the buffers from the first rank before each forward.
    ``exclude_layer`` ('p_g_os'): layer class names or ``id(layer)`` s whose
    parameters are kept whole on every rank. ``buffer_max_size``: the most
    elements one collective carries (consecutive gradients or parameters of
    one dtype travel packed in one flat buffer up to it). ``segment_size``
    and ``sync_comm`` are Paddle's stage-3 tuning knobs, checked and not used
    (the collectives are synchronous).
    ``dp_group``: the data-parallel group of this rank (one rank of each
    sharding group holding the same shard, e.g. from fleet's hybrid group):
    its ranks' gradients are averaged first, and their state is made equal to
    its first rank's. ``offload=True`` is not supported (a clear error).

    >>> model, opt, scaler = group_sharded_parallel(model, opt, "os_g")
    >>> loss = model(x).mean(); loss.backward(); opt.step(); opt.clear_grad()
    """
    if not isinstance(model, Layer):
        raise TypeError(f"{_WHO}: argument 'model' expected an eager.nn.Layer, got {type(model).__name__}")
    if isinstance(model, GroupShardedStage2):
        raise ValueError(f"{_WHO}: argument 'model' is already wrapped by group_sharded_parallel")
    if not isinstance(optimizer, Optimizer) or isinstance(optimizer, GroupShardedOptimizer):
        what = "already wrapped by group_sharded_parallel" if isinstance(optimizer, GroupShardedOptimizer) \
            else type(optimizer).__name__
        raise TypeError(f"{_WHO}: argument 'optimizer' expected an eager.optimizer.Optimizer, got {what}")
    if not isinstance(level, str) or level not in _LEVELS:
        raise ValueError(f"{_WHO}: argument 'level' expected one of 'os', 'os_g', 'p_g_os', got {level!r}")
    if scaler is not None and not isinstance(scaler, GradScaler):
        raise TypeError(f"{_WHO}: argument 'scaler' expected None or an eager.amp.GradScaler, got "
                        f"{type(scaler).__name__}")
    if _check_bool("offload", offload):
        raise ValueError(f"{_WHO}: argument 'offload': True is not supported (eager keeps the optimizer "
                         f"state where the parameters are); pass offload=False")
    sync_buffers = _check_bool("sync_buffers", sync_buffers)
    _check_bool("sync_comm", sync_comm)
    _check_count("segment_size", segment_size)
    excluded = _excluded_ids(model, exclude_layer)
    if excluded and level != "p_g_os":
        raise ValueError(f"{_WHO}: argument 'exclude_layer' applies to level 'p_g_os' only, got level {level!r}")
    buffer_max_size = _check_count("buffer_max_size", buffer_max_size)
    group = _check_group("group", group)
    if dp_group is not None:
        dp_group = _check_group("dp_group", dp_group)
        if len(set(group.ranks) & set(dp_group.ranks)) != 1:
            raise ValueError(f"{_WHO}: argument 'dp_group' (ranks {dp_group.ranks}) must share exactly this "
                             f"rank with 'group' (ranks {group.ranks}): it joins the ranks that hold the same "
                             f"shard")
    params = optimizer._parameter_list
    if level != "os":
        ids = {id(p) for p in params}
        sparse = [layer.weight.name for layer in model.sublayers(include_self=True)
                  if isinstance(layer, Embedding) and layer._sparse and id(layer.weight) in ids]
        if sparse:
            raise ValueError(f"{_WHO}: level {level!r} reduces gradients during backward, which it cannot do "
                             f"for the sparse (SelectedRows) gradients of {sparse} (Embedding(sparse=True)); "
                             f"use Embedding(sparse=False) or level 'os'")
    if level == "p_g_os":
        known = {id(p) for p in model.parameters()}
        stray = [p.name for p in params if id(p) not in known]
        if stray:
            raise ValueError(f"{_WHO}: level 'p_g_os' shards the model's parameters, but the optimizer's "
                             f"{stray} are not parameters of 'model'")
    for sync in (group, dp_group):  # the sharding group's first rank's state, then the replicas' first's
        if sync is not None and sync.nranks > 1:
            _broadcast_state(_WHO, sync.process_group, model, sync)
    shards = _Shards(params, group, level, excluded, buffer_max_size, dp_group)
    if level != "os":
        shards.reduce_in_backward()
    sharded_optimizer = GroupShardedOptimizer(optimizer, shards)
    if level == "p_g_os":
        wrapped = GroupShardedStage3(model, shards, sync_buffers)
        shards.release_params()
    else:
        wrapped = GroupShardedStage2(model, shards, sync_buffers)
    if scaler is not None:
        scaler = GroupShardedScaler(scaler, group, dp_group)
    return wrapped, sharded_optimizer, scaler


def _merged_optimizer_state(optimizer: GroupShardedOptimizer) -> dict:
    """Every rank's optimizer state in one dict (a collective)."""
    states: list = []
    all_gather_object(states, optimizer._optim.state_dict(), group=optimizer._shards.group)
    merged: dict = {}
    masters: dict = {}
    for state in states:
        for key, value in state.items():
            if key == "master_weights":
                masters.update(value)
            elif key not in merged:
                merged[key] = value
    if masters:
        merged["master_weights"] = masters
    return merged


def save_group_sharded_model(model, output, optimizer=None) -> None:
    """Saves the whole model (and optimizer) state of a group-sharded run
    (Paddle's ``paddle.distributed.sharding.save_group_sharded_model``): the
    network's state dict to ``output/model.pdmodel`` and, with ``optimizer``,
    the state of every rank's share merged into ``output/model.pdopt`` (the
    file names are Paddle's), both written by the group's first rank with
    :func:`eager.save`. A collective: call it on every rank; it returns once
    the files are written. Load them into a plain network and optimizer
    (``set_state_dict(eager.load(...))``) before ``group_sharded_parallel``.
    """
    who = "save_group_sharded_model"
    if not isinstance(model, GroupShardedStage2):
        raise ValueError(f"{who}: argument 'model' expected the model returned by group_sharded_parallel, "
                         f"got {type(model).__name__}")
    if optimizer is not None and not isinstance(optimizer, GroupShardedOptimizer):
        raise ValueError(f"{who}: argument 'optimizer' expected None or the optimizer returned by "
                         f"group_sharded_parallel, got {type(optimizer).__name__}")
    if not isinstance(output, (str, os.PathLike)):
        raise TypeError(f"{who}: argument 'output' expected a directory path (str), got {type(output).__name__}")
    if os.path.isfile(output):
        raise ValueError(f"{who}: argument 'output' expected a directory, got the file {os.fspath(output)!r}")
    shards = model._shards
    released = shards.released
    if isinstance(model, GroupShardedStage3):
        model.get_all_parameters()
    state = model._layer.state_dict()
    optimizer_state = None if optimizer is None else _merged_optimizer_state(optimizer)
    if shards.group.rank == 0 and (shards.dp_group is None or shards.dp_group.rank == 0):
        os.makedirs(output, exist_ok=True)
        save(state, os.path.join(output, "model.pdmodel"))
        if optimizer_state is not None:
            save(optimizer_state, os.path.join(output, "model.pdopt"))
    del state
    if released:
        shards.release_params()
    barrier(shards.group)
    if shards.dp_group is not None:
        barrier(shards.dp_group)


__all__ = ["group_sharded_parallel", "save_group_sharded_model"]
