"""DataParallel: one network trained by several ranks, each on its share of every batch.

Each rank runs forward and backward on its part of the batch; the gradients are
averaged across ranks before the optimizer step, so every rank takes the same
step and the replicas stay equal (they start equal: rank 0's parameters and
buffers are broadcast when the wrapper is made).

How the averaging overlaps backward (the ``_Reducer``, Paddle's EagerReducer):

- The trainable parameters are packed by dtype into buckets of consecutive
  parameters: flat NumPy buffers of about ``comm_buffer_size`` MB, except the
  one holding the first layers, ``last_comm_buffer_size`` MB: the first layers'
  gradients come last in backward, so their allreduce is the one that nothing
  overlaps, and a small one keeps the wait at the end short. Buckets are sent
  in reverse parameter order, the order backward fills them in.
- A gradient hook per parameter copies the parameter's gradient total (what
  ``.grad`` will hold after this backward: the earlier ``.grad`` plus this
  pass's gradient) into its bucket and marks it ready. A bucket whose
  parameters are all ready starts a non-blocking MPI allreduce
  (``Iallreduce``) while backward goes on. Buckets start in one fixed order on
  every rank, as MPI requires of collectives.
- At the end of backward (``eager.autograd.queue_callback``) the reducer waits
  for the buckets, divides by the world size and writes the averages into the
  parameters' ``.grad``. A parameter that got no gradient is an error naming it,
  unless ``find_unused_parameters=True``: then its current ``.grad`` (or zeros)
  takes part, so every rank still runs the same collectives.
- Gradients of sparse embeddings (``Embedding(sparse=True)``, SelectedRows) are
  all-gathered (rows and values) instead: the average is the rows of every rank
  with their values divided by the world size.

MPI is reached through mpi4py's buffer interface on NumPy arrays
(``Tensor.numpy()`` shares memory on the CPU), and results go back through
``Tensor.set_value``. On a GPU with NCCL (:mod:`~eager.distributed.nccl`)
nothing crosses to the host: the first broadcast is NCCL's, in place per
parameter and buffer; the buckets live in device memory and are summed by NCCL
on the current stream as each fills; sparse rows and values are all-gathered by
NCCL, padded to the longest rank's, after an MPI exchange of the row counts
(shapes, known on the host). What each rank knows without reading the device
(which parameters got no gradient, how many rows a sparse gradient has) travels
over MPI. A network moved or cast after ``DataParallel()`` gets its buckets
rebuilt at its next backward. Without NCCL (or ``EAGER_DISTRIBUTED_NCCL=0``)
GPU tensors are staged through the host.
"""
from __future__ import annotations

import contextlib
import numbers
import weakref

import numpy as np

from phi import api as phi_api
from phi.backends.gpu_context import import_cupy
from phi.common.tensor_kind import TensorKind
from phi.core import DenseTensor, SelectedRows

from ..autograd.engine import queue_callback
from ..autograd.meta import is_owned_grad, own_grad, records_gradient
from ..creation import to_tensor
from ..nn.embedding import Embedding
from ..nn.layer import Layer
from ..tensor import Tensor
from . import nccl
from .env import get_rank, get_world_size, mpi_module, world_comm
from .group import Group, resolve_group

_MB = 1024 * 1024
_DENSE = TensorKind.DENSE


def _wire_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype a gradient travels and is summed in: its own, or float32 for the
    half types MPI cannot add (float16, bfloat16)."""
    if dtype.itemsize <= 2 and dtype.kind in "fV":
        return np.dtype(np.float32)
    return dtype


def _host(tensor: Tensor) -> np.ndarray:
    """A tensor's values as a NumPy array (its own memory on the CPU, a copy from a GPU)."""
    return tensor.numpy()


def _write_grad(param: Tensor, values) -> None:
    """Sets ``param.grad`` to ``values`` (a NumPy array, or a device array of a
    device bucket; cast to the parameter's dtype): into the existing dense
    gradient's buffer, or as a new owned gradient."""
    values = values.astype(param.dtype.numpy_dtype, copy=False).reshape(param.shape)
    grad = param.grad
    on_device = not isinstance(values, np.ndarray)
    if grad is not None and grad.impl.kind is _DENSE and is_owned_grad(grad):
        grad.set_value(Tensor(DenseTensor(values)) if on_device else values)
    elif on_device:
        param.grad = own_grad(Tensor(DenseTensor(values.copy())))  # the bucket is reused next step
    else:
        param.grad = own_grad(to_tensor(values, place=param.place))


def _check_size(who: str, arg: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
        raise ValueError(f"{who}: argument '{arg}' expected a positive number of MB, got {value!r}")
    return float(value)


class _Bucket:
    """Consecutive dense parameters of one dtype whose gradients travel in one
    flat buffer: ``views[k]`` is parameter ``indices[k]``'s slice, in its shape.
    ``device``: the GPU id of a bucket in device memory, reduced by NCCL with
    ``plan`` (:func:`eager.distributed.nccl.reduction`); None for a host bucket."""

    __slots__ = ("indices", "buffer", "views", "pending", "request", "device", "plan")

    def __init__(self, indices, params, dtype: np.dtype, plan=None):
        self.indices = list(indices)
        sizes = [int(np.prod(params[i].shape, dtype=np.int64)) for i in self.indices]
        self.plan = plan
        self.device = params[self.indices[0]].place.device_id if plan is not None else None
        if plan is None:
            self.buffer = np.zeros(sum(sizes), _wire_dtype(dtype))
        else:
            cupy = import_cupy()
            with cupy.cuda.Device(self.device):
                self.buffer = cupy.zeros(sum(sizes), _wire_dtype(dtype))
        self.views = []
        offset = 0
        for i, size in zip(self.indices, sizes):
            self.views.append(self.buffer[offset:offset + size].reshape(params[i].shape))
            offset += size
        self.pending = len(self.indices)
        self.request = None


def _nccl_plan(group, param):
    """How a GPU parameter's bucket is summed by NCCL, or None (a host bucket)."""
    if not nccl.usable(group, param):
        return None
    return nccl.reduction(0, _wire_dtype(param.dtype.numpy_dtype))  # ReduceOp.SUM


def _assign_buckets(params, dense, last_limit: int, limit: int, group=None) -> list:
    """The dense parameters (indices into params) grouped by dtype (and place:
    GPU parameters summed by NCCL apart from host ones) into buckets of
    consecutive parameters: a bucket closes once it holds ``limit`` bytes or
    more, except the first of each dtype, ``last_limit``: those hold the first
    layers, whose gradients come last in backward, so their allreduce is the
    one nothing overlaps, and it is kept small (Paddle's last_comm_buffer_size).
    Ordered as backward fills them: the last parameters' bucket first."""
    open_, closed, count = {}, [], {}
    plans = {}
    for i in dense:
        dtype = params[i].dtype.numpy_dtype
        plan = None if group is None else _nccl_plan(group, params[i])
        key = (dtype, None if plan is None else params[i].place.device_id)
        plans[key] = plan
        current = open_.setdefault(key, [[], 0])
        current[0].append(i)
        current[1] += int(np.prod(params[i].shape, dtype=np.int64)) * dtype.itemsize
        if current[1] >= (last_limit if count.get(key, 0) == 0 else limit):
            closed.append((current[0], key))
            count[key] = count.get(key, 0) + 1
            del open_[key]
    closed.extend((members, key) for key, (members, _) in open_.items())
    closed.sort(key=lambda bucket: -bucket[0][-1])
    return [_Bucket(members, params, key[0], plans[key]) for members, key in closed]


class _Reducer:
    """The gradient averaging of one DataParallel (see the module doc). Hooks hold
    it weakly: once its DataParallel is gone, the network trains alone again."""

    def __init__(self, comm, group, names, params, sparse, last_limit, limit, find_unused):
        self.comm = comm
        self.group = group
        self.world_size = comm.Get_size()
        self.names = names
        self.params = params
        self.sparse = [i for i in range(len(params)) if sparse[i]]
        self.dense = [i for i in range(len(params)) if not sparse[i]]
        self.limits = (last_limit, limit)
        self.find_unused = find_unused
        self.need_sync = True
        self._build()
        self.marked = [False] * len(params)
        self.in_pass = False
        self.committed = False
        self.next_bucket = 0
        handles = []
        me = weakref.ref(self)
        for index, param in enumerate(params):
            handles.append(param.register_hook(_gradient_hook(me, index)))
            handles.append(param.register_post_accumulate_grad_hook(_commit_probe(me)))
        weakref.finalize(self, _remove_hooks, handles)

    def _placement(self) -> list:
        return [(param.place, param.dtype) for param in self.params]

    def _build(self) -> None:
        """Buckets (and the sparse parameters' transport) for where the parameters
        are now: device buckets summed by NCCL for GPU parameters, host buckets
        for the others. A collective call (it may make NCCL communicators)."""
        self.places = self._placement()
        self.buckets = _assign_buckets(self.params, self.dense, *self.limits, self.group)
        self.slot_of = {}
        for bucket in self.buckets:
            for index, view in zip(bucket.indices, bucket.views):
                self.slot_of[index] = (bucket, view)
        # Sparse parameters whose gradients are gathered by NCCL on the device.
        self.sparse_on_device = {i for i in self.sparse if nccl.usable(self.group, self.params[i])}

    # -- a backward pass ------------------------------------------------------
    def prepare(self) -> None:
        """Before a forward whose backward will synchronise: drops the state of a
        backward that failed before its end (waiting for what it had started)."""
        if self.in_pass:
            self._abandon()

    def _begin(self) -> None:
        if self._placement() != self.places:
            # The network moved or was cast (say .to("gpu") after DataParallel()): every
            # rank moved it alike and is here, at its first gradient, so rebuilding
            # (a collective) keeps the ranks in step.
            self._build()
        self.in_pass = True
        self.committed = False
        self.next_bucket = 0
        self.marked = [False] * len(self.params)
        for bucket in self.buckets:
            bucket.pending = len(bucket.indices)
            bucket.request = None
        queue_callback(self.finish)

    def on_gradient(self, index: int, grad: Tensor) -> None:
        """A parameter's gradient of this pass arrived (its gradient hook)."""
        if not self.need_sync:
            return
        if self.in_pass and self.marked[index]:
            self._abandon()  # a pass that never finished: this is a new one
        if not self.in_pass:
            self._begin()
        self.marked[index] = True
        slot = self.slot_of.get(index)
        if slot is None:
            return  # a sparse parameter: gathered at the end from its .grad
        bucket, view = slot
        current = self.params[index].grad
        if bucket.device is not None:  # device memory: the gradient stays on the GPU
            if current is None:
                view[...] = grad.impl.array
            else:
                import_cupy().add(current.impl.array, grad.impl.array, out=view)
        elif current is None:
            view[...] = _host(grad)
        else:
            np.add(_host(current), _host(grad), out=view)
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch_ready()

    def _launch_ready(self) -> None:
        """Starts the allreduce of every full bucket whose predecessors have started."""
        mpi = mpi_module()
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            bucket = self.buckets[self.next_bucket]
            if bucket.device is None:
                bucket.request = self.comm.Iallreduce(mpi.IN_PLACE, bucket.buffer, op=mpi.SUM)
            else:  # queued on the current stream: what reads the bucket next is ordered after it
                nccl.all_reduce_array(bucket.buffer, 0, self.group, bucket.plan, bucket.device)
            self.next_bucket += 1
        # Let MPI move the started ones along while backward continues.
        mpi.Request.Testall(self._requests())

    def _requests(self) -> list:
        return [b.request for b in self.buckets[:self.next_bucket] if b.request is not None]

    def _wait_started(self) -> None:
        mpi_module().Request.Waitall(self._requests())

    def _abandon(self) -> None:
        self._wait_started()
        self.in_pass = False

    def finish(self) -> None:
        """The end of backward: waits, averages, writes ``.grad`` (queue_callback)."""
        if not self.in_pass:
            return
        if not self.committed:
            # eager.grad(): nothing went into .grad, so there is nothing to average;
            # every rank started the same allreduces, which are finished and dropped.
            self._abandon()
            return
        unused = [i for i in range(len(self.params)) if not self.marked[i]]
        if unused and not self.find_unused:
            self._abandon()
            names = ", ".join(self.names[i] for i in unused)
            raise RuntimeError(
                f"DataParallel: {len(unused)} trainable parameter(s) received no gradient in this backward: "
                f"{names}. Every rank must average the same parameters; pass find_unused_parameters=True "
                f"to DataParallel if some parameters are not used in every step, or set stop_gradient=True "
                f"on those that never are. This step's gradients are local (not averaged): clear them")
        try:
            for i in unused:
                if i in self.slot_of:
                    bucket, view = self.slot_of[i]
                    current = self.params[i].grad
                    if current is None:
                        view[...] = 0
                    else:
                        view[...] = _host(current) if bucket.device is None else current.impl.array
                    bucket.pending -= 1
            self._launch_ready()
            # After every bucket has started, so all ranks start collectives in one order.
            used_anywhere = self._used_anywhere(unused) if self.find_unused else None
            self._wait_started()
            for bucket in self.buckets:
                bucket.buffer /= self.world_size
                for index, view in zip(bucket.indices, bucket.views):
                    param = self.params[index]
                    if param.grad is None and used_anywhere is not None and not used_anywhere[index]:
                        continue  # no rank had a gradient: it stays None, as in one process
                    _write_grad(param, view)
            self._gather_sparse()
        finally:
            self.in_pass = False

    def _used_anywhere(self, unused) -> np.ndarray:
        """Per parameter, whether some rank has a gradient for it (one allreduce).
        Whether a gradient exists is known on the host, so the flags go over MPI
        even for GPU parameters: on the device they would cost an upload, and a
        read back that waits for the whole backward (NCCL is asynchronous)."""
        flags = np.ones(len(self.params), np.int32)
        for i in unused:
            flags[i] = 0 if self.params[i].grad is None else 1
        self.comm.Allreduce(mpi_module().IN_PLACE, flags, op=mpi_module().MAX)
        return flags.astype(bool)

    # -- sparse gradients -----------------------------------------------------
    def _gather_sparse(self) -> None:
        """All-gathers the SelectedRows gradients (rows and values) of the sparse
        parameters; a parameter whose gradient is dense on some rank is averaged
        densely instead. What each rank holds (nothing, rows and how many, or a
        dense gradient) is host metadata, exchanged first in one MPI allgather;
        the values travel by NCCL on the device where the parameter's group has it."""
        if not self.sparse:
            return
        header = np.zeros((len(self.sparse), 2), np.int64)  # (kind: 0 none, 1 rows, 2 dense; row count)
        for k, i in enumerate(self.sparse):
            grad = self.params[i].grad
            if grad is not None:
                is_rows = grad.impl.kind is not _DENSE
                header[k] = (1, len(grad.impl.rows)) if is_rows else (2, 0)  # a shape: no device read
        headers = np.empty((self.world_size,) + header.shape, np.int64)
        self.comm.Allgather(header, headers)
        for k, i in enumerate(self.sparse):
            param = self.params[i]
            kinds, counts = headers[:, k, 0], headers[:, k, 1]
            if not kinds.any():
                continue
            on_device = i in self.sparse_on_device
            if (kinds == 2).any() or (param.place.is_gpu_place() and not on_device):
                self._average_densely(param, on_device)
            elif on_device:
                param.grad = Tensor(self._gathered_rows_on_device(param, counts))
            else:
                param.grad = Tensor(self._gathered_rows(param, counts))

    def _average_densely(self, param, on_device: bool) -> None:
        """``param``'s gradient (rows made dense; zeros where it has none) summed
        over the ranks, by NCCL on the device or by MPI on the host, then averaged."""
        grad = param.grad
        wire = _wire_dtype(param.dtype.numpy_dtype)
        if not on_device:
            values = np.zeros(param.shape, wire)
            if grad is not None:
                values[...] = _host(grad)
            mpi = mpi_module()
            self.comm.Allreduce(mpi.IN_PLACE, values, op=mpi.SUM)
            _write_grad(param, values / self.world_size)
            return
        cupy, device = import_cupy(), param.place.device_id
        with cupy.cuda.Device(device):
            values = cupy.zeros(param.shape, wire)
            if grad is not None:
                dense = grad.impl if grad.impl.kind is _DENSE else phi_api.selected_rows_to_dense(grad.impl)
                values[...] = dense.array
            nccl.all_reduce_array(values, 0, self.group, nccl.reduction(0, wire), device)  # ReduceOp.SUM
            _write_grad(param, values / self.world_size)

    def _gathered_rows(self, param, counts) -> SelectedRows:
        """The ranks' rows and values of ``param``'s gradient, over MPI (a CPU parameter)."""
        grad = param.grad
        row_shape = list(param.shape[1:])
        row_size = int(np.prod(row_shape, dtype=np.int64))
        wire = _wire_dtype(param.dtype.numpy_dtype)
        if grad is None:
            rows, values = np.zeros(0, np.int64), np.zeros(0, wire)
        else:
            rows = np.ascontiguousarray(grad.impl.rows, np.int64)
            values = np.ascontiguousarray(Tensor(grad.impl.value).numpy(), wire).reshape(-1)
        all_rows = np.empty(int(counts.sum()), np.int64)
        self.comm.Allgatherv(rows, [all_rows, counts.tolist()])
        all_values = np.empty(int(counts.sum()) * row_size, wire)
        self.comm.Allgatherv(values, [all_values, (counts * row_size).tolist()])
        all_values /= self.world_size
        value = to_tensor(all_values.reshape([len(all_rows)] + row_shape).astype(param.dtype.numpy_dtype,
                                                                                  copy=False), place=param.place)
        return SelectedRows(all_rows, value.impl, param.shape[0])

    def _gathered_rows_on_device(self, param, counts) -> SelectedRows:
        """The ranks' rows and values of ``param``'s gradient, by NCCL on its GPU:
        each rank's rows padded to the longest (``counts``, from the header, says
        how many are real), all-gathered, and the padding cut off on the device."""
        grad = param.grad
        cupy, device = import_cupy(), param.place.device_id
        row_shape = tuple(param.shape[1:])
        wire = _wire_dtype(param.dtype.numpy_dtype)
        longest = int(counts.max())
        with cupy.cuda.Device(device):
            rows = cupy.zeros(longest, np.int64)
            values = cupy.zeros((longest,) + row_shape, wire)
            if longest:
                if grad is not None and len(grad.impl.rows):
                    mine = len(grad.impl.rows)
                    rows[:mine] = grad.impl.rows
                    values[:mine] = grad.impl.value.array
                every_rows = nccl.all_gather_array(rows, self.group, device)
                every_values = nccl.all_gather_array(values, self.group, device)
                rows = cupy.concatenate([every_rows[r, :n] for r, n in enumerate(counts.tolist())])
                values = cupy.concatenate([every_values[r, :n] for r, n in enumerate(counts.tolist())])
            values /= self.world_size
            value = DenseTensor(values.astype(param.dtype.numpy_dtype, copy=False))
        return SelectedRows(rows, value, param.shape[0])


def _gradient_hook(reducer_ref, index: int):
    def hook(grad):
        reducer = reducer_ref()
        if reducer is not None:
            reducer.on_gradient(index, grad)
    return hook


def _commit_probe(reducer_ref):
    # Post-accumulate hooks run only when a backward writes .grad (not for eager.grad).
    def probe(tensor):
        reducer = reducer_ref()
        if reducer is not None and reducer.in_pass:
            reducer.committed = True
    return probe


def _remove_hooks(handles) -> None:
    for handle in handles:
        handle.remove()


class WrappedStateDict:
    """A mixin for a Layer that wraps one network (the attribute named by
    ``_wrapped``): its state dict has the network's own keys, without the
    wrapper's attribute prefix, so a checkpoint of the wrapper loads into the
    plain network and back (Paddle's DataParallel)."""

    _wrapped = "_layers"

    def state_dict(self, destination=None, include_sublayers: bool = True, structured_name_prefix: str = ""):
        """The wrapped network's state dict (its own keys, no prefix)."""
        return getattr(self, self._wrapped).state_dict(destination=destination, include_sublayers=include_sublayers,
                                                       structured_name_prefix=structured_name_prefix)

    def set_state_dict(self, state_dict, use_structured_name: bool = True):
        """Loads into the wrapped network (keys as its :meth:`state_dict` has them)."""
        return getattr(self, self._wrapped).set_state_dict(state_dict, use_structured_name=use_structured_name)

    set_dict = set_state_dict
    load_dict = set_state_dict


class DataParallel(WrappedStateDict, Layer):
    """Runs ``layers`` data-parallel (Paddle's ``paddle.DataParallel``): each rank
    computes on its own share of the batch and, during ``backward()``, the
    gradients are averaged across ranks, so every rank's optimizer takes the same
    step. Rank 0's parameters and buffers are broadcast to every rank here (on a
    GPU by NCCL, in place). The network may be moved or cast afterwards
    (``model.to("gpu")``), alike on every rank: its next backward rebuilds the
    buckets where the parameters are.

    - ``comm_buffer_size`` (MB): the size of the buckets gradients travel in;
      ``last_comm_buffer_size`` (MB): the size of the last one to be sent (the
      first layers' parameters), kept small because its allreduce overlaps no
      computation.
    - ``find_unused_parameters``: allow parameters that get no gradient in a
      step (they are averaged with zeros from the ranks that did not use
      them); without it such a parameter is an error that names it.
    - ``group``: the ranks to average over (a group from
      ``eager.distributed.new_group``; None: all of them).
    - ``strategy``: Paddle's deprecated ``ParallelStrategy``, accepted and unused.

    Launched with ``mpiexec -n N python train.py``; with plain ``python`` (a
    world of one) it is a transparent wrapper. ``state_dict()`` has the wrapped
    network's keys, without a ``_layers.`` prefix; the network itself is
    ``self._layers``.

    >>> import eager, eager.distributed as dist
    >>> dist.init_parallel_env()
    >>> model = eager.DataParallel(eager.nn.Linear(4, 2))
    >>> loss = model(eager.randn([8, 4])).mean()
    >>> loss.backward()              # .grad now holds the average over the ranks
    """

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, group=None):
        who = "DataParallel"
        if not isinstance(layers, Layer):
            raise TypeError(f"{who}: argument 'layers' expected an eager.nn.Layer, got {type(layers).__name__}")
        comm_buffer_size = _check_size(who, "comm_buffer_size", comm_buffer_size)
        last_comm_buffer_size = _check_size(who, "last_comm_buffer_size", last_comm_buffer_size)
        if not isinstance(find_unused_parameters, bool):
            raise TypeError(f"{who}: argument 'find_unused_parameters' expected a bool, got "
                            f"{find_unused_parameters!r}")
        comm = self._communicator(who, group)
        super().__init__(layers.full_name() + "_data_parallel")
        self._layers = layers
        self.find_unused_parameters = find_unused_parameters
        self.group = group
        self._strategy = strategy
        self.comm_buffer_size = int(comm_buffer_size * _MB)
        self.last_comm_buffer_size = int(last_comm_buffer_size * _MB)
        self._reducer = None
        if comm is not None and comm.Get_size() > 1:
            _broadcast_state(who, comm, layers, resolve_group(who, group))
            self._reducer = self._make_reducer(who, comm, layers)

    @staticmethod
    def _communicator(who: str, group):
        if group is None:
            return world_comm() if get_world_size() > 1 else None
        if not isinstance(group, Group):
            raise TypeError(f"{who}: argument 'group' expected None or a group from "
                            f"eager.distributed.new_group, got {type(group).__name__}")
        if not group.is_member():
            raise ValueError(f"{who}: argument 'group': this process (rank {get_rank()}) is not one of "
                             f"the group's ranks {group.ranks}")
        comm = group.process_group
        return comm if comm is not None and comm.Get_size() > 1 else None

    def _make_reducer(self, who: str, comm, layers) -> _Reducer:
        sparse_ids = {id(layer.weight) for layer in layers.sublayers(include_self=True)
                      if isinstance(layer, Embedding) and layer._sparse}
        # records_gradient, not the flag: an integer parameter marked trainable never gets a gradient to average
        named = [(name, p) for name, p in layers.named_parameters() if records_gradient(p)]
        if not named:
            raise ValueError(f"{who}: the network has no trainable parameters (stop_gradient=False), so "
                             f"there is nothing to average; train it without DataParallel")
        return _Reducer(comm, resolve_group(who, self.group), [n for n, _ in named], [p for _, p in named],
                        [id(p) in sparse_ids for _, p in named], self.last_comm_buffer_size,
                        self.comm_buffer_size, self.find_unused_parameters)

    @property
    def grad_need_sync(self) -> bool:
        """Whether backward averages gradients now (False inside :meth:`no_sync`)."""
        return self._reducer is None or self._reducer.need_sync

    @grad_need_sync.setter
    def grad_need_sync(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"DataParallel.grad_need_sync: expected a bool, got {value!r}")
        if self._reducer is not None:
            self._reducer.need_sync = value

    def forward(self, *inputs, **kwargs):
        """The wrapped network's forward."""
        if self._reducer is not None and self._reducer.need_sync:
            self._reducer.prepare()
        return self._layers(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Inside it, backward accumulates gradients locally without communicating;
        the first backward after it averages the accumulated totals.

        >>> with model.no_sync():
        ...     model(x1).mean().backward()     # local only
        >>> model(x2).mean().backward()         # averages the sum of both
        """
        reducer = self._reducer
        if reducer is None:
            yield
            return
        previous = reducer.need_sync
        reducer.need_sync = False
        try:
            yield
        finally:
            reducer.need_sync = previous

    def scale_loss(self, loss):
        """Returns ``loss`` unchanged: kept for Paddle 1.x code (Paddle 2.x made it
        a no-op too; the averaging happens in backward)."""
        return loss

    def apply_collective_grads(self) -> None:
        """Does nothing: kept for Paddle 1.x code (gradients are averaged during
        backward, as in Paddle 2.x)."""
        return None



def _broadcast_state(who: str, comm, layers, group) -> None:
    """Makes every rank's parameters and buffers equal to rank 0's, after checking
    that the networks match (names, shapes, dtypes, and whether on a GPU): a GPU
    tensor is broadcast in place by NCCL on its device, the others as one host
    broadcast of the raw bytes per dtype."""
    tensors = [(name, t) for name, t in layers.named_parameters()]
    tensors += [(name, t) for name, t in layers.named_buffers()]
    signature = [(name, tuple(t.shape), str(t.dtype), "gpu" if t.place.is_gpu_place() else "cpu")
                 for name, t in tensors]
    root = comm.bcast(signature, root=0)
    same = comm.allreduce(int(signature == root), op=mpi_module().MIN)
    if not same:
        if signature != root:
            differ = next((f"{mine} here, {theirs} on rank 0" for mine, theirs in zip(signature, root)
                           if mine != theirs), f"{len(signature)} tensors here, {len(root)} on rank 0")
        else:
            differ = "another rank's network differs"
        raise ValueError(f"{who}: every rank must wrap the same network (names, shapes, dtypes of the "
                         f"parameters and buffers, all on a GPU or all on the CPU); rank "
                         f"{comm.Get_rank()}: {differ}")
    by_dtype: dict = {}
    for _, tensor in tensors:
        if nccl.usable(group, tensor):
            nccl.broadcast(tensor, 0, group)  # queued on the current stream, in place
        else:
            by_dtype.setdefault(tensor.dtype.numpy_dtype, []).append(tensor)
    for dtype, same_dtype in by_dtype.items():
        packed = np.concatenate([_host(t).reshape(-1) for t in same_dtype]) if comm.Get_rank() == 0 else \
            np.empty(sum(int(np.prod(t.shape, dtype=np.int64)) for t in same_dtype), dtype)
        comm.Bcast(packed.view(np.uint8), root=0)
        if comm.Get_rank() != 0:
            offset = 0
            for tensor in same_dtype:
                size = int(np.prod(tensor.shape, dtype=np.int64))
                tensor.set_value(packed[offset:offset + size].reshape(tensor.shape))
                offset += size


__all__ = ["DataParallel"]
