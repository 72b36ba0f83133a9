"""Collectives on tensors over MPI, with Paddle's names, arguments and in-place semantics.

Every function works on the ranks of a :class:`~eager.distributed.Group` (the
world when ``group`` is None) and writes its result into the tensors it is
given, as Paddle's do: ``all_reduce(t)`` leaves the sum in ``t``.

How the data travels:

- A CPU tensor's buffer is handed to MPI as it is (``Tensor.numpy()`` shares
  memory), reductions in place with ``MPI.IN_PLACE``: no copy. A view that is
  not contiguous is copied out and written back.
- A GPU tensor goes through NCCL (CuPy's ``cupy.cuda.nccl``) on the current
  stream for all_reduce, broadcast, reduce, all_gather and reduce_scatter
  (:mod:`~eager.distributed.nccl` says what it covers); otherwise, and where
  CuPy has no NCCL, it is staged through the host: copied out, communicated,
  copied back into its buffer (as ``Tensor.set_value`` does).
- Every tensor a collective writes has its inplace version bumped, so autograd
  refuses a backward that would read a value saved before the write.
- ``sync_op=False`` starts MPI's non-blocking call (``Iallreduce``, ``Ibcast``,
  ...) and returns a :class:`Task`; the result is in place after ``task.wait()``.
  With ``sync_op=True`` the call returns once the result is in place (and a
  completed Task, as Paddle does).

Arguments are checked before any communication, on every rank, so a bad call
raises the same error everywhere. With ``EAGER_DISTRIBUTED_DEBUG=1`` each
collective first gathers every rank's (function, shape, dtype, op, root) and
raises, on every rank, if they differ: MPI itself would hang or garble on such
a mismatch. It costs one small allgather per call, so it is off by default.

In a world of one (plain ``python``), every collective is the identity it
should be and needs no mpi4py.
"""
from __future__ import annotations

import enum
import os
import pickle

import numpy as np

from phi import api as phi_api
from phi.common import DataType, TensorKind
from phi.core import DenseTensor

from .. import autograd  # noqa: F401  (the autograd core before eager.tensor, which needs it loaded)
from ..creation import to_tensor
from ..errors import ArgumentKindError
from ..tensor import Tensor
from . import nccl
from .env import mpi_module
from .group import Group, resolve_group

_TAG = 17  # point-to-point data messages
# Tasks started with sync_op=False and not yet complete, by group id (for wait()).
_PENDING: dict = {}
_DEBUG_TAG = 18  # point-to-point signatures under EAGER_DISTRIBUTED_DEBUG
_MPI_STATE = {"float16": None, "ops": None}
_environ = os.environ
_FLOAT16 = np.dtype(np.float16)
_BOOL = DataType.BOOL


class ReduceOp(enum.IntEnum):
    """How :func:`all_reduce` and :func:`reduce` combine the ranks' values
    (Paddle's ``ReduceOp``): SUM, MAX, MIN, PROD, AVG (the sum divided by the
    number of ranks; floating-point and complex tensors only).

    >>> eager.distributed.all_reduce(t, op=eager.distributed.ReduceOp.MAX)
    """

    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3
    AVG = 4


class Task:
    """A collective started with ``sync_op=False`` (Paddle's task).

    ``wait()`` blocks until the result is in place and returns True;
    ``is_completed()`` asks without blocking. Waiting twice is harmless.

    >>> task = eager.distributed.all_reduce(t, sync_op=False)
    >>> ...                                   # compute while the ranks communicate
    >>> task.wait()
    True
    """

    __slots__ = ("_requests", "_finish", "_done", "_fn", "_group")

    def __init__(self, requests=(), finish=None, fn: str = "", group=None):
        self._requests = list(requests)
        self._finish = finish
        self._done = not self._requests and finish is None
        self._fn = fn
        self._group = group  # the group id, while the task is pending (see wait())
        if not self._done and group is not None:
            _PENDING.setdefault(group, []).append(self)

    def wait(self) -> bool:
        """Blocks until the collective is done and its result written; returns True."""
        if not self._done:
            if self._requests:
                _call(self._fn, mpi_module().Request.Waitall, self._requests)
            self._complete()
        return True

    def is_completed(self) -> bool:
        """Whether the collective is done (its result then written), without blocking."""
        if not self._done:
            if not self._requests or _call(self._fn, mpi_module().Request.Testall, self._requests):
                self._complete()
        return self._done

    def is_sync(self) -> bool:
        """Whether the collective was synchronous (``sync_op=True``): it was
        complete when the call returned."""
        return self._group is None

    def synchronize(self) -> None:
        """Paddle's ``synchronize``: waits for the collective, as :meth:`wait`
        does (there is no separate communication stream to order with)."""
        self.wait()

    def _complete(self) -> None:
        finish, self._finish, self._requests = self._finish, None, []
        self._done = True
        pending = _PENDING.get(self._group)
        if pending is not None and self in pending:
            pending.remove(self)
        if finish is not None:
            finish()

    def __repr__(self):
        return f"Task({self._fn or 'done'}, completed={self._done})"


# -- helpers ------------------------------------------------------------------
def _call(fn: str, method, *args, **kwargs):
    """Runs an MPI call, turning an MPI error into one that names the collective."""
    try:
        return method(*args, **kwargs)
    except mpi_module().Exception as error:
        raise RuntimeError(f"{fn}: MPI reported an error: {error.Get_error_string()}") from None


def _check_tensor(fn: str, arg: str, value) -> None:
    if not isinstance(value, Tensor):
        # also a ValueError: Paddle's argument parsing raises one ("must be Tensor")
        raise ArgumentKindError(f"{fn}: argument '{arg}' expected a Tensor, got {type(value).__name__}")
    if value.impl.kind is not TensorKind.DENSE:
        raise TypeError(f"{fn}: argument '{arg}' expected a dense Tensor, got a {value.impl.kind.name} "
                        f"one; convert it first (e.g. phi.api.selected_rows_to_dense)")


def _check_like(fn: str, arg: str, value, reference: Tensor) -> None:
    """``value`` must be a Tensor of ``reference``'s shape and dtype."""
    _check_tensor(fn, arg, value)
    if value.shape != reference.shape or value.dtype is not reference.dtype:
        raise ValueError(f"{fn}: argument '{arg}' expected tensors of {reference.dtype}{reference.shape}, "
                         f"got {value.dtype}{value.shape}")


def _check_list(fn: str, arg: str, values, reference: Tensor, counts: tuple) -> None:
    """``values`` must be a list (or tuple) of ``counts`` tensors like ``reference``."""
    if not isinstance(values, (list, tuple)):
        raise ArgumentKindError(f"{fn}: argument '{arg}' expected a list of Tensors, got {type(values).__name__}")
    if len(values) not in counts:
        wanted = " or ".join(map(str, counts))
        raise ValueError(f"{fn}: argument '{arg}' expected {wanted} tensors (the group has {counts[-1]} "
                         f"ranks), got {len(values)}")
    for index, value in enumerate(values):
        _check_like(fn, f"{arg}[{index}]", value, reference)


def _check_sync(fn: str, sync_op) -> None:
    if not isinstance(sync_op, bool):
        raise TypeError(f"{fn}: argument 'sync_op' expected a bool, got {sync_op!r}")


def _check_op(fn: str, op, dtype: DataType) -> ReduceOp:
    if type(op) is not ReduceOp:  # Paddle's ops are plain ints: take those too, but not bools
        if isinstance(op, bool) or not isinstance(op, int) or op not in _OP_VALUES:
            # also a ValueError, Paddle's "Unknown reduce_op type"
            raise ArgumentKindError(f"{fn}: argument 'op' expected an eager.distributed.ReduceOp (SUM, MAX, "
                                    f"MIN, PROD, AVG), got {op!r}")
        op = ReduceOp(op)
    if op is _AVG and not (dtype.is_floating_point or dtype.is_complex):
        raise TypeError(f"{fn}: ReduceOp.AVG needs a floating-point or complex tensor, got {dtype}; "
                        f"use SUM and divide, or cast first")
    if (op is _MAX or op is _MIN) and dtype.is_complex:
        raise TypeError(f"{fn}: ReduceOp.{op.name} is not defined for complex tensors ({dtype})")
    return op


_OP_VALUES = frozenset(int(op) for op in ReduceOp)
_AVG, _MAX, _MIN = ReduceOp.AVG, ReduceOp.MAX, ReduceOp.MIN


def _mpi_op(op: ReduceOp, dtype: DataType):
    """The MPI operation for ``op`` on ``dtype`` (from tables made once, indexed by the op)."""
    tables = _MPI_STATE["ops"]
    if tables is None:
        MPI = mpi_module()
        numeric = (MPI.SUM, MPI.MAX, MPI.MIN, MPI.PROD, MPI.SUM)  # in ReduceOp's order; AVG sums
        # MPI has only logical ops on booleans: a sum (or max) of flags is "any", a product (min) "all"
        logical = (MPI.LOR, MPI.LOR, MPI.LAND, MPI.LAND, MPI.LOR)
        tables = _MPI_STATE["ops"] = (numeric, logical)
    return tables[dtype is _BOOL][op]


def _mpi_has_float16() -> bool:
    """Whether this MPI reduces float16 itself (MPICH 4.1+ does; else float32 is used)."""
    known = _MPI_STATE["float16"]
    if known is None:
        try:
            mpi_module().Datatype.fromcode("e")
            known = True
        except (KeyError, ValueError, AttributeError):
            known = False
        _MPI_STATE["float16"] = known
    return known


def _group_rank(fn: str, arg: str, rank, group: Group) -> int:
    """The group rank of global ``rank`` (a member of ``group``)."""
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)):
        raise TypeError(f"{fn}: argument '{arg}' expected an int rank, got {rank!r}")
    ranks = group._ranks
    if rank not in ranks:
        raise ValueError(f"{fn}: argument '{arg}' expected a global rank of the group (one of {ranks}), "
                         f"got {rank}")
    return ranks.index(rank)


def _debugging() -> bool:
    """Whether EAGER_DISTRIBUTED_DEBUG asks for the cross-rank checks (read on every call)."""
    return _environ.get("EAGER_DISTRIBUTED_DEBUG", "0") not in ("", "0")


def _describe(signature) -> str:
    fn, *rest = signature
    return f"{fn}({', '.join(map(str, rest))})"


def _agree(fn: str, group: Group, *signature) -> None:
    """Checks that every rank of ``group`` makes this same call (callers ask
    :func:`_debugging` first); raises on every rank if not."""
    mine = (fn, *signature)
    every = _call(fn, group.process_group.allgather, mine)
    if any(theirs != mine for theirs in every):
        calls = "; ".join(f"rank {group._ranks[i]}: {_describe(s)}" for i, s in enumerate(every))
        raise RuntimeError(f"{fn}: the ranks of group {group.id} made different collective calls "
                           f"(found by EAGER_DISTRIBUTED_DEBUG=1): {calls}")


def _host_view(tensor: Tensor):
    """(array, staged): the tensor's values as a C-contiguous host NumPy array
    MPI can write. Not staged: the tensor's own buffer. Staged (a GPU tensor, a
    non-contiguous view): a copy, to be written back with :func:`_store`."""
    array = tensor.numpy()  # shares memory on the CPU; a host copy of a GPU tensor
    if array.flags.c_contiguous and array.flags.writeable:
        return array, not tensor.place.is_cpu_place()
    return array.copy(order="C"), True  # a read-only view must be copied too, as MPI writes it


def _contiguous(array: np.ndarray) -> np.ndarray:
    """``array`` C-contiguous, its shape kept: ``np.ascontiguousarray`` makes a 0-d array 1-d,
    which gave the gathered parts of 0-d tensors the shape [1]."""
    return array if array.flags.c_contiguous else array.copy(order="C")


def _host_read(tensor: Tensor) -> np.ndarray:
    """The tensor's values as a C-contiguous host array, for sending only."""
    return _contiguous(tensor.numpy())


def _store(tensor: Tensor, array: np.ndarray) -> None:
    """Writes a staged copy back into the tensor (to its device), bumping its version
    (what ``Tensor.set_value`` does)."""
    phi_api.assign_out_(to_tensor(array, place=tensor.place).impl, tensor.impl)


def _write(tensor: Tensor, array: np.ndarray) -> None:
    """Writes host values into an existing tensor of the same shape and dtype."""
    if tensor.place.is_cpu_place():
        target = tensor.numpy()
        if target.flags.writeable:
            np.copyto(target, array.reshape(target.shape))
            tensor.impl.bump_version()
            return
    _store(tensor, array.reshape(tensor.shape))


def _new_tensor(array: np.ndarray, place) -> Tensor:
    """A new tensor over host values (on ``place``); CPU tensors take the array as it is."""
    if place.is_cpu_place():
        return Tensor(DenseTensor(array))
    return to_tensor(array, place=place)


def _fill(tensor_list: list, parts: np.ndarray, place) -> None:
    """Puts ``parts[i]`` into ``tensor_list``: into its tensors when it has them,
    else as new tensors appended."""
    if tensor_list:
        for target, part in zip(tensor_list, parts):
            _write(target, part)
    else:
        # parts[i, ...], not iteration: iterating a 1-d array yields NumPy scalars, which would
        # make the parts of 0-d tensors 1-d (or unreadable) instead of 0-d
        tensor_list.extend(_new_tensor(parts[index, ...], place) for index in range(len(parts)))


def _fill_later(tensor_list: list, parts: np.ndarray, place, sync_op: bool):
    """What fills ``tensor_list`` with ``parts`` once the collective is done. An
    empty list given to a ``sync_op=False`` call gets its tensors at once, as
    Paddle's does, and they are written at the wait; a synchronous call hands
    ``parts`` over without a copy."""
    if not sync_op and not tensor_list:
        tensor_list.extend(_new_tensor(np.empty_like(parts[index, ...]), place) for index in range(len(parts)))
    return lambda: _fill(tensor_list, parts, place)


def _reduce_buffer(array: np.ndarray) -> np.ndarray:
    """What MPI reduces: the array itself, or a float32 copy of a float16 array
    where this MPI has no float16, and of a bfloat16 one (MPI has no bfloat16)."""
    if (array.dtype is _FLOAT16 and not _mpi_has_float16()) or array.dtype.kind == "V":
        return array.astype(np.float32)
    return array


def _reduction_finish(tensor, array, work, staged, op, nranks):
    """What completes a reduction: the average, the float16 cast back, the write-back."""
    def finish():
        if op is ReduceOp.AVG:
            np.divide(work, nranks, out=work)
        if work is not array:
            array[...] = work
        if staged:
            _store(tensor, array)
    return finish


def _done(requests, finish, fn: str, sync_op: bool, group=None) -> Task:
    """The Task of a started collective; waited for here when ``sync_op``. A task
    left running (``sync_op=False``) is recorded under ``group`` for :func:`wait`."""
    task = Task(requests, finish, fn, None if sync_op or group is None else group.id)
    if sync_op:
        task.wait()
    return task


# -- collectives on tensors ---------------------------------------------------
def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True) -> Task:
    """Combines ``tensor`` across the ranks of ``group`` with ``op`` and leaves
    the result in ``tensor`` on every rank.

    >>> import eager.distributed as dist
    >>> t = eager.to_tensor([1.0, 2.0]) * (dist.get_rank() + 1)
    >>> dist.all_reduce(t)        # on 2 ranks: t == [3., 6.] everywhere
    """
    fn = "all_reduce"
    _check_tensor(fn, "tensor", tensor)
    op = _check_op(fn, op, tensor.dtype)
    _check_sync(fn, sync_op)
    group = resolve_group(fn, group)
    if not group.is_member():
        return Task()
    if group.world_size == 1:
        tensor.impl.bump_version()
        return Task()
    if _debugging():
        _agree(fn, group, tuple(tensor.shape), str(tensor.dtype), op.name)
    if nccl.usable(group, tensor):
        plan = nccl.reduction(op, tensor.dtype.numpy_dtype)
        if plan is not None:
            nccl.all_reduce(tensor, op, group, plan)
            return Task()
    array, staged = _host_view(tensor)
    work = _reduce_buffer(array)
    mpi_op = _mpi_op(op, tensor.dtype)
    comm = group.process_group
    if not staged:
        tensor.impl.bump_version()
    finish = None
    if op is ReduceOp.AVG or staged or work is not array:
        finish = _reduction_finish(tensor, array, work, staged, op, group.world_size)
    if sync_op:
        _call(fn, comm.Allreduce, mpi_module().IN_PLACE, work, op=mpi_op)
        return _done((), finish, fn, True) if finish is not None else Task()
    return _done([_call(fn, comm.Iallreduce, mpi_module().IN_PLACE, work, op=mpi_op)], finish, fn, False, group)


def broadcast(tensor, src, group=None, sync_op=True) -> Task:
    """Copies ``tensor`` of global rank ``src`` into ``tensor`` on every rank of ``group``.

    >>> dist.broadcast(weights, src=0)   # every rank now holds rank 0's weights
    """
    fn = "broadcast"
    _check_tensor(fn, "tensor", tensor)
    _check_sync(fn, sync_op)
    group = resolve_group(fn, group)
    root = _group_rank(fn, "src", src, group)
    if not group.is_member() or group.world_size == 1:
        return Task()
    if _debugging():
        _agree(fn, group, tuple(tensor.shape), str(tensor.dtype), src)
    if nccl.usable(group, tensor):
        nccl.broadcast(tensor, root, group)
        return Task()
    MPI = mpi_module()
    finish = None
    if group.rank == root:
        buffer = _host_read(tensor)
    else:
        buffer, staged = _host_view(tensor)
        if staged:
            finish = lambda: _store(tensor, buffer)  # noqa: E731
        else:
            tensor.impl.bump_version()
    comm = group.process_group
    if sync_op:
        _call(fn, comm.Bcast, [buffer, MPI.BYTE], root=root)
        return _done((), finish, fn, True)
    return _done([_call(fn, comm.Ibcast, [buffer, MPI.BYTE], root=root)], finish, fn, False, group)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, sync_op=True) -> Task:
    """Combines ``tensor`` across the ranks of ``group`` with ``op`` into
    ``tensor`` of global rank ``dst``; the other ranks' tensors are unchanged.

    >>> dist.reduce(loss, dst=0)   # rank 0 holds the sum
    """
    fn = "reduce"
    _check_tensor(fn, "tensor", tensor)
    op = _check_op(fn, op, tensor.dtype)
    _check_sync(fn, sync_op)
    group = resolve_group(fn, group)
    root = _group_rank(fn, "dst", dst, group)
    if not group.is_member():
        return Task()
    if group.world_size == 1:
        tensor.impl.bump_version()
        return Task()
    if _debugging():
        _agree(fn, group, tuple(tensor.shape), str(tensor.dtype), op.name, dst)
    if nccl.usable(group, tensor):
        plan = nccl.reduction(op, tensor.dtype.numpy_dtype)
        if plan is not None:
            nccl.reduce(tensor, root, op, group, plan)
            return Task()
    MPI, comm, mpi_op = mpi_module(), group.process_group, _mpi_op(op, tensor.dtype)
    finish = None
    if group.rank == root:
        array, staged = _host_view(tensor)
        work = _reduce_buffer(array)
        if not staged:
            tensor.impl.bump_version()
        if op is ReduceOp.AVG or staged or work is not array:
            finish = _reduction_finish(tensor, array, work, staged, op, group.world_size)
        send, receive = MPI.IN_PLACE, work
    else:
        send, receive = _reduce_buffer(_host_read(tensor)), None
    if sync_op:
        _call(fn, comm.Reduce, send, receive, op=mpi_op, root=root)
        return _done((), finish, fn, True)
    return _done([_call(fn, comm.Ireduce, send, receive, op=mpi_op, root=root)], finish, fn, False, group)


def all_gather(tensor_list, tensor, group=None, sync_op=True) -> Task:
    """Gathers ``tensor`` from every rank of ``group``, in rank order, on every rank.

    ``tensor_list`` is a list: empty, it is extended with one new tensor per
    rank; holding one tensor per rank (of ``tensor``'s shape and dtype), they
    are written in place. It may also be a Tensor of the ranks' tensors
    concatenated along axis 0 (shape ``[nranks * d0, ...]``; ``[nranks]`` for
    0-d tensors), written in place.

    >>> parts = []
    >>> dist.all_gather(parts, eager.to_tensor([dist.get_rank()]))
    >>> [int(p) for p in parts]          # on 2 ranks
    [0, 1]
    """
    fn = "all_gather"
    _check_tensor(fn, "tensor", tensor)
    _check_sync(fn, sync_op)
    group = resolve_group(fn, group)
    if not group.is_member():
        return Task()
    nranks = group.world_size
    shape = tensor.shape
    if isinstance(tensor_list, Tensor):
        _check_tensor(fn, "tensor_list", tensor_list)
        wanted = [nranks * shape[0], *shape[1:]] if shape else [nranks]
        if tensor_list.shape != wanted or tensor_list.dtype is not tensor.dtype:
            raise ValueError(f"{fn}: argument 'tensor_list', given as a Tensor, expected "
                             f"{tensor.dtype}{wanted} (the {nranks} ranks' tensors concatenated along "
                             f"axis 0), got {tensor_list.dtype}{tensor_list.shape}")
    elif isinstance(tensor_list, list):
        _check_list(fn, "tensor_list", tensor_list, tensor, (0, nranks))
    else:
        raise ArgumentKindError(f"{fn}: argument 'tensor_list' expected a list of Tensors or a Tensor, got "
                                f"{type(tensor_list).__name__}")
    targets = [tensor_list] if isinstance(tensor_list, Tensor) else tensor_list
    if nranks > 1 and nccl.usable(group, tensor, *targets):
        if _debugging():
            _agree(fn, group, tuple(shape), str(tensor.dtype))
        parts = nccl.all_gather(tensor, group)
        if isinstance(tensor_list, Tensor):
            nccl.store(tensor_list, parts.reshape(tensor_list.shape))
        elif tensor_list:
            for target, part in zip(tensor_list, parts):
                nccl.store(target, part)
        else:
            tensor_list.extend(Tensor(DenseTensor(part.copy())) for part in parts)
        return Task()
    send = _host_read(tensor)
    if isinstance(tensor_list, Tensor):
        receive, staged = _host_view(tensor_list)
        if not staged:
            tensor_list.impl.bump_version()
        finish = (lambda: _store(tensor_list, receive)) if staged else None  # noqa: E731
    else:
        receive = np.empty((nranks, *send.shape), send.dtype)
        finish = _fill_later(tensor_list, receive, tensor.place, sync_op)
    if nranks == 1:
        receive.reshape(-1)[...] = send.reshape(-1)
        return _done((), finish, fn, True)
    if _debugging():
        _agree(fn, group, tuple(shape), str(tensor.dtype))
    MPI, comm = mpi_module(), group.process_group
    buffers = ([send, MPI.BYTE], [receive, MPI.BYTE])
    if sync_op:
        _call(fn, comm.Allgather, *buffers)
        return _done((), finish, fn, True)
    return _done([_call(fn, comm.Iallgather, *buffers)], finish, fn, False, group)


def scatter(tensor, tensor_list=None, src=0, group=None, sync_op=True) -> Task:
    """Sends ``tensor_list[i]`` of global rank ``src`` to the i-th rank of
    ``group``, into its ``tensor``. ``tensor_list`` (one tensor per rank, of
    ``tensor``'s shape and dtype) is read on ``src`` only.

    >>> parts = [eager.full([2], float(i)) for i in range(dist.get_world_size())]
    >>> dist.scatter(t, parts if dist.get_rank() == 0 else None, src=0)   # t == [rank, rank]
    """
    fn = "scatter"
    _check_tensor(fn, "tensor", tensor)
    _check_sync(fn, sync_op)
    group = resolve_group(fn, group)
    root = _group_rank(fn, "src", src, group)
    if not group.is_member():
        return Task()
    if group.rank == root:
        _check_list(fn, "tensor_list", tensor_list, tensor, (group.world_size,))
    if group.world_size == 1:
        _write(tensor, _host_read(tensor_list[0]))
        return Task()
    if _debugging():
        _agree(fn, group, tuple(tensor.shape), str(tensor.dtype), src)
    MPI, comm = mpi_module(), group.process_group
    send = None
    if group.rank == root:
        send = [np.concatenate([_host_read(t).reshape(-1) for t in tensor_list]), MPI.BYTE]
    receive, staged = _host_view(tensor)
    if not staged:
        tensor.impl.bump_version()
    finish = (lambda: _store(tensor, receive)) if staged else None  # noqa: E731
    if sync_op:
        _call(fn, comm.Scatter, send, [receive, MPI.BYTE], root=root)
        return _done((), finish, fn, True)
    return _done([_call(fn, comm.Iscatter, send, [receive, MPI.BYTE], root=root)], finish, fn, False, group)


def gather(tensor, gather_list=None, dst=0, group=None, sync_op=True) -> Task:
    """Gathers ``tensor`` from every rank of ``group``, in rank order, into
    ``gather_list`` of global rank ``dst``; the other ranks' lists are not read
    nor changed.

    On ``dst``, ``gather_list`` is a list: empty, it is extended with one new
    tensor per rank; holding one tensor per rank (of ``tensor``'s shape and
    dtype), they are written in place.

    >>> found = []
    >>> dist.gather(eager.to_tensor([dist.get_rank()]), found, dst=0)
    >>> [int(t) for t in found]          # rank 0, on 2 ranks; [] elsewhere
    [0, 1]
    """
    fn = "gather"
    _check_tensor(fn, "tensor", tensor)
    _check_sync(fn, sync_op)
    group = resolve_group(fn, group)
    root = _group_rank(fn, "dst", dst, group)
    if not group.is_member():
        return Task()
    nranks = group.world_size
    mine = group.rank == root
    if mine:
        if not isinstance(gather_list, list):
            raise TypeError(f"{fn}: argument 'gather_list' expected a list on rank {dst} (dst), got "
                            f"{type(gather_list).__name__}")
        _check_list(fn, "gather_list", gather_list, tensor, (0, nranks))
    send = _host_read(tensor)
    receive = np.empty((nranks, *send.shape), send.dtype) if mine else None
    finish = _fill_later(gather_list, receive, tensor.place, sync_op) if mine else None
    if nranks == 1:
        receive[0] = send
        return _done((), finish, fn, True)
    if _debugging():
        _agree(fn, group, tuple(tensor.shape), str(tensor.dtype), dst)
    MPI, comm = mpi_module(), group.process_group
    buffers = ([send, MPI.BYTE], [receive, MPI.BYTE] if mine else None)
    if sync_op:
        _call(fn, comm.Gather, *buffers, root=root)
        return _done((), finish, fn, True)
    return _done([_call(fn, comm.Igather, *buffers, root=root)], finish, fn, False, group)


def alltoall(in_tensor_list, out_tensor_list, group=None, sync_op=True) -> Task:
    """Sends ``in_tensor_list[j]`` to the j-th rank of ``group``; rank i's
    ``out_tensor_list[j]`` receives rank j's ``in_tensor_list[i]`` (a transpose
    across ranks). ``in_tensor_list`` holds one tensor per rank, all of one shape
    and dtype; ``out_tensor_list`` is empty (extended with new tensors) or holds
    one such tensor per rank (written in place).

    >>> out = []
    >>> dist.alltoall([a0, a1], out)   # on 2 ranks: out == [rank 0's a_me, rank 1's a_me]
    """
    fn = "alltoall"
    _check_sync(fn, sync_op)
    group = resolve_group(fn, group)
    if not group.is_member():
        return Task()
    nranks = group.world_size
    if not isinstance(in_tensor_list, (list, tuple)) or not in_tensor_list:
        raise TypeError(f"{fn}: argument 'in_tensor_list' expected a list of {nranks} Tensors, got "
                        f"{in_tensor_list!r:.80}")
    _check_tensor(fn, "in_tensor_list[0]", in_tensor_list[0])
    reference = in_tensor_list[0]
    _check_list(fn, "in_tensor_list", in_tensor_list, reference, (nranks,))
    if not isinstance(out_tensor_list, list):
        raise TypeError(f"{fn}: argument 'out_tensor_list' expected a list, got "
                        f"{type(out_tensor_list).__name__}")
    _check_list(fn, "out_tensor_list", out_tensor_list, reference, (0, nranks))
    send = np.concatenate([_host_read(t).reshape(-1) for t in in_tensor_list])
    receive = np.empty((nranks, *reference.shape), send.dtype)
    finish = _fill_later(out_tensor_list, receive, reference.place, sync_op)
    if nranks == 1:
        receive.reshape(-1)[...] = send
        return _done((), finish, fn, True)
    if _debugging():
        _agree(fn, group, tuple(reference.shape), str(reference.dtype))
    MPI, comm = mpi_module(), group.process_group
    buffers = ([send, MPI.BYTE], [receive, MPI.BYTE])
    if sync_op:
        _call(fn, comm.Alltoall, *buffers)
        return _done((), finish, fn, True)
    return _done([_call(fn, comm.Ialltoall, *buffers)], finish, fn, False, group)


def _split_sizes(fn: str, arg: str, sizes, tensor: Tensor, tensor_arg: str, nranks: int) -> list:
    """The rows of ``tensor`` (its dim 0) going to / coming from each rank."""
    if not tensor.shape:
        raise ValueError(f"{fn}: argument '{tensor_arg}' expected a tensor of at least 1 dimension "
                         f"(split along dim 0), got a 0-d tensor")
    rows = tensor.shape[0]
    if sizes is None or (isinstance(sizes, (list, tuple)) and not sizes):  # Paddle: None or []
        if rows % nranks:
            raise ValueError(f"{fn}: argument '{tensor_arg}' has {rows} rows (dim 0), not divisible by "
                             f"the group's {nranks} ranks; give '{arg}'")
        return [rows // nranks] * nranks
    if not isinstance(sizes, (list, tuple)) or any(
            isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0 for v in sizes):
        raise TypeError(f"{fn}: argument '{arg}' expected a list of non-negative ints, got {sizes!r}")
    if len(sizes) != nranks or sum(sizes) != rows:
        raise ValueError(f"{fn}: argument '{arg}' expected {nranks} sizes (one per rank) adding up to "
                         f"{rows}, the rows of '{tensor_arg}', got {list(sizes)}")
    return [int(v) for v in sizes]


def alltoall_single(in_tensor, out_tensor, in_split_sizes=None, out_split_sizes=None, group=None,
                    sync_op=True) -> Task:
    """Splits ``in_tensor`` along dim 0 and sends part j to the j-th rank of
    ``group``; the parts received, in rank order, fill ``out_tensor`` (in place).

    ``in_split_sizes[j]`` is the number of rows sent to rank j,
    ``out_split_sizes[j]`` the number received from rank j (None: equal parts,
    dim 0 divisible by the number of ranks). Rank i's ``in_split_sizes[j]``
    must equal rank j's ``out_split_sizes[i]``; the two tensors have one dtype
    and the same trailing dimensions.

    >>> data = eager.arange(2, dtype="int64") + 2 * dist.get_rank()   # [0, 1] and [2, 3]
    >>> out = eager.empty([2], dtype="int64")
    >>> dist.alltoall_single(data, out)      # rank 0: [0, 2]; rank 1: [1, 3]
    """
    fn = "alltoall_single"
    _check_tensor(fn, "in_tensor", in_tensor)
    _check_tensor(fn, "out_tensor", out_tensor)
    _check_sync(fn, sync_op)
    if out_tensor.dtype is not in_tensor.dtype or out_tensor.shape[1:] != in_tensor.shape[1:]:
        raise ValueError(f"{fn}: argument 'out_tensor' expected {in_tensor.dtype} with the trailing "
                         f"dimensions {in_tensor.shape[1:]} of 'in_tensor' ({in_tensor.dtype}"
                         f"{in_tensor.shape}), got {out_tensor.dtype}{out_tensor.shape}")
    group = resolve_group(fn, group)
    if not group.is_member():
        return Task()
    nranks = group.world_size
    sent = _split_sizes(fn, "in_split_sizes", in_split_sizes, in_tensor, "in_tensor", nranks)
    got = _split_sizes(fn, "out_split_sizes", out_split_sizes, out_tensor, "out_tensor", nranks)
    if _debugging():
        _agree_splits(fn, group, sent, got, str(in_tensor.dtype), tuple(in_tensor.shape[1:]))
    send = _host_read(in_tensor)
    receive, staged = _host_view(out_tensor)
    if np.may_share_memory(send, receive):  # in_tensor is (a view of) out_tensor: MPI needs two buffers
        send = send.copy()
    if nranks == 1 and sent != got:
        raise ValueError(f"{fn}: this rank, the group's only one, sends itself {sent[0]} rows but "
                         f"'out_tensor' has {got[0]}")
    if not staged:
        out_tensor.impl.bump_version()
    finish = (lambda: _store(out_tensor, receive)) if staged else None  # noqa: E731
    if nranks == 1:
        receive.reshape(-1)[...] = send.reshape(-1)
        return _done((), finish, fn, True)
    row = send.itemsize * int(np.prod(send.shape[1:], dtype=np.int64))
    send_counts = [n * row for n in sent]
    receive_counts = [n * row for n in got]
    MPI, comm = mpi_module(), group.process_group
    buffers = ([send, (send_counts, _offsets(send_counts)), MPI.BYTE],
               [receive, (receive_counts, _offsets(receive_counts)), MPI.BYTE])
    if sync_op:
        _call(fn, comm.Alltoallv, *buffers)
        return _done((), finish, fn, True)
    return _done([_call(fn, comm.Ialltoallv, *buffers)], finish, fn, False, group)


def _offsets(counts: list) -> list:
    """Where each rank's part starts: the running sum of ``counts``."""
    return [int(v) for v in np.concatenate([[0], np.cumsum(counts)[:-1]])]


def _agree_splits(fn: str, group: Group, sent: list, got: list, dtype: str, row_shape: tuple) -> None:
    """Under EAGER_DISTRIBUTED_DEBUG: rank i's sizes sent to j equal rank j's sizes
    received from i, with one dtype and row shape everywhere; raises on every rank if not."""
    every = _call(fn, group.process_group.allgather, (sent, got, dtype, row_shape))
    ranks = group._ranks
    for i, (sent_i, _, dtype_i, row_i) in enumerate(every):
        if (dtype_i, row_i) != (dtype, row_shape):
            raise RuntimeError(f"{fn}: rank {ranks[i]} sends rows of {dtype_i}{list(row_i)}, rank "
                               f"{ranks[group.rank]} rows of {dtype}{list(row_shape)} (found by "
                               f"EAGER_DISTRIBUTED_DEBUG=1)")
        for j, (_, got_j, _, _) in enumerate(every):
            if sent_i[j] != got_j[i]:
                raise RuntimeError(f"{fn}: rank {ranks[i]} sends {sent_i[j]} rows to rank {ranks[j]}, which "
                                   f"expects {got_j[i]} (in_split_sizes and out_split_sizes disagree; found "
                                   f"by EAGER_DISTRIBUTED_DEBUG=1)")


def reduce_scatter(tensor, tensor_list, op=ReduceOp.SUM, group=None, sync_op=True) -> Task:
    """Combines ``tensor_list`` across the ranks of ``group`` with ``op`` and
    leaves part i of the result (``op`` over the ranks of their
    ``tensor_list[i]``) in ``tensor`` of the i-th rank. ``tensor_list`` holds
    one tensor per rank, of ``tensor``'s shape and dtype; ``tensor`` may be one
    of them.

    >>> mine = [eager.to_tensor([0, 1]), eager.to_tensor([2, 3])]   # rank 0; rank 1: [4, 5], [6, 7]
    >>> dist.reduce_scatter(mine[0], mine)   # rank 0: [4, 6]; rank 1: [8, 10]
    """
    fn = "reduce_scatter"
    _check_tensor(fn, "tensor", tensor)
    op = _check_op(fn, op, tensor.dtype)
    _check_sync(fn, sync_op)
    group = resolve_group(fn, group)
    if not group.is_member():
        return Task()
    nranks = group.world_size
    _check_list(fn, "tensor_list", tensor_list, tensor, (nranks,))
    if nranks > 1 and nccl.usable(group, tensor, *tensor_list):
        plan = nccl.reduction(op, tensor.dtype.numpy_dtype)
        if plan is not None:
            if _debugging():
                _agree(fn, group, tuple(tensor.shape), str(tensor.dtype), op.name)
            nccl.reduce_scatter(tensor, tensor_list, op, group, plan)
            return Task()
    send = np.concatenate([_host_read(t).reshape(-1) for t in tensor_list])  # a copy: tensor may be in the list
    if nranks == 1:
        _write(tensor, send)
        return Task()
    if _debugging():
        _agree(fn, group, tuple(tensor.shape), str(tensor.dtype), op.name)
    receive, staged = _host_view(tensor)
    work = _reduce_buffer(receive)
    if work is not receive:
        send = send.astype(work.dtype)
    if not staged:
        tensor.impl.bump_version()
    finish = None
    if op is ReduceOp.AVG or staged or work is not receive:
        finish = _reduction_finish(tensor, receive, work, staged, op, nranks)
    comm, mpi_op = group.process_group, _mpi_op(op, tensor.dtype)
    if sync_op:
        _call(fn, comm.Reduce_scatter_block, send, work, op=mpi_op)
        return _done((), finish, fn, True)
    return _done([_call(fn, comm.Ireduce_scatter_block, send, work, op=mpi_op)], finish, fn, False, group)


def _peer(fn: str, arg: str, rank, group: Group) -> int:
    """The group rank of a point-to-point peer (not this process)."""
    peer = _group_rank(fn, arg, rank, group)
    if peer == group.rank:
        raise ValueError(f"{fn}: argument '{arg}' is this process's own rank ({rank}); a rank cannot "
                         f"{'send to' if arg == 'dst' else 'receive from'} itself")
    return peer


def send(tensor, dst=0, group=None, sync_op=True) -> Task:
    """Sends ``tensor`` to global rank ``dst``, which receives it with :func:`recv`.

    >>> if dist.get_rank() == 0:
    ...     dist.send(t, dst=1)
    ... else:
    ...     dist.recv(t, src=0)
    """
    fn = "send" if sync_op else "isend"
    _check_tensor(fn, "tensor", tensor)
    _check_sync(fn, sync_op)
    group = resolve_group(fn, group)
    if not group.is_member():
        return Task()
    peer = _peer(fn, "dst", dst, group)
    comm, requests = group.process_group, []
    if _debugging():
        requests.append(_call(fn, comm.isend, (tuple(tensor.shape), str(tensor.dtype)), dest=peer,
                              tag=_DEBUG_TAG))
    buffer = [_host_read(tensor), mpi_module().BYTE]
    if sync_op:
        _call(fn, comm.Send, buffer, dest=peer, tag=_TAG)
        return _done(requests, None, fn, True)
    requests.append(_call(fn, comm.Isend, buffer, dest=peer, tag=_TAG))
    return _done(requests, None, fn, False, group)


def recv(tensor, src=0, group=None, sync_op=True) -> Task:
    """Receives into ``tensor`` what global rank ``src`` sent with :func:`send`
    (any rank when ``src`` is None).

    >>> dist.recv(t, src=0)
    """
    fn = "recv" if sync_op else "irecv"
    _check_tensor(fn, "tensor", tensor)
    _check_sync(fn, sync_op)
    group = resolve_group(fn, group)
    if not group.is_member():
        return Task()
    MPI, comm = mpi_module(), group.process_group
    if src is None:
        if group.world_size == 1:
            raise ValueError(f"{fn}: argument 'src' is None (any rank), but this process is the only "
                             f"rank of its group")
        peer = MPI.ANY_SOURCE
    else:
        peer = _peer(fn, "src", src, group)
    # the sender's signature under EAGER_DISTRIBUTED_DEBUG: read now, or, for an irecv
    # from a known rank, at the wait (blocking here would deadlock two ranks that
    # each irecv before they isend, as batch_isend_irecv lets them)
    deferred = _debugging() and not sync_op and src is not None
    if _debugging() and not deferred:
        status = MPI.Status()
        theirs = _call(fn, comm.recv, source=peer, tag=_DEBUG_TAG, status=status)
        peer = status.Get_source()
        _check_signature(fn, group, peer, theirs, tensor)
    buffer, staged = _host_view(tensor)
    if not staged:
        tensor.impl.bump_version()
    finish = (lambda: _store(tensor, buffer)) if staged else None  # noqa: E731
    if sync_op:
        _call(fn, comm.Recv, [buffer, MPI.BYTE], source=peer, tag=_TAG)
        return _done((), finish, fn, True)
    if deferred:
        signature = _call(fn, comm.irecv, source=peer, tag=_DEBUG_TAG)
        data = _call(fn, comm.Irecv, [buffer, MPI.BYTE], source=peer, tag=_TAG)

        def checked_finish():
            try:
                _check_signature(fn, group, peer, _call(fn, signature.wait), tensor)
            except RuntimeError:
                _cancel(data)  # the message does not fit this tensor: leave no receive pending
                raise
            _call(fn, data.Wait)
            if finish is not None:
                finish()
        return _done((), checked_finish, fn, False, group)
    return _done([_call(fn, comm.Irecv, [buffer, MPI.BYTE], source=peer, tag=_TAG)], finish, fn, False, group)


def _cancel(request) -> None:
    """Cancels a pending receive and frees it; one that already matched its
    message (too long for the buffer) is freed with its error swallowed."""
    MPI = mpi_module()
    try:
        request.Cancel()
        request.Wait()
    except MPI.Exception:
        pass


def _check_signature(fn: str, group: Group, peer: int, theirs, tensor: Tensor) -> None:
    """Under EAGER_DISTRIBUTED_DEBUG: the sender's (shape, dtype) must be the receiving tensor's."""
    mine = (tuple(tensor.shape), str(tensor.dtype))
    if theirs != mine:
        raise RuntimeError(f"{fn}: rank {group._ranks[peer]} sent a tensor of {theirs[1]}"
                           f"{list(theirs[0])}, but this rank receives into {mine[1]}{list(mine[0])} "
                           f"(found by EAGER_DISTRIBUTED_DEBUG=1)")


def isend(tensor, dst, group=None) -> Task:
    """Starts sending ``tensor`` to global rank ``dst``; returns a :class:`Task`.
    Do not modify ``tensor`` until the task is waited for."""
    return send(tensor, dst, group, sync_op=False)


def irecv(tensor, src=None, group=None) -> Task:
    """Starts receiving into ``tensor`` from global rank ``src`` (any when None);
    returns a :class:`Task`; ``tensor`` holds the message after ``wait()``."""
    return recv(tensor, src, group, sync_op=False)


class P2POp:
    """One point-to-point operation for :func:`batch_isend_irecv` (Paddle's
    ``P2POp``): ``op`` is :func:`isend` or :func:`irecv`, ``tensor`` what is
    sent or received into, ``peer`` the other side's global rank, ``group``
    the group (the world when None).

    >>> send_op = dist.P2POp(dist.isend, send_t, (rank + 1) % world_size)
    """

    def __init__(self, op, tensor, peer, group=None):
        if op is not isend and op is not irecv:
            raise RuntimeError(f"P2POp: argument 'op' expected eager.distributed.isend or "
                               f"eager.distributed.irecv, got {op!r}")
        self.op = op
        self.tensor = tensor
        self.peer = peer
        self.group = resolve_group("P2POp", group)

    def __repr__(self):
        return f"P2POp({self.op.__name__}, peer={self.peer}, group={self.group.id})"


def batch_isend_irecv(p2p_op_list) -> list:
    """Starts every :class:`P2POp` of ``p2p_op_list``, in order, and returns
    their tasks (Paddle's ``batch_isend_irecv``). Each send must be matched by
    a receive on its peer, in the same order; MPI's sends do not block, so a
    ring (each rank sends to the next and receives from the previous) needs no
    ordering between the ranks. Every operation is checked before any starts,
    so a bad one leaves no message in flight. A process outside the ops' group
    gets None, as in Paddle.

    >>> tasks = dist.batch_isend_irecv([send_op, recv_op])
    >>> for task in tasks:
    ...     task.wait()
    """
    fn = "batch_isend_irecv"
    if not isinstance(p2p_op_list, list) or not p2p_op_list or not all(
            isinstance(p2p_op, P2POp) for p2p_op in p2p_op_list):
        raise RuntimeError(f"{fn}: argument 'p2p_op_list' expected a non-empty list of "
                           f"eager.distributed.P2POp, got {p2p_op_list!r:.120}")
    if not p2p_op_list[0].group.is_member():
        return None
    for index, p2p_op in enumerate(p2p_op_list):
        _check_tensor(fn, f"p2p_op_list[{index}].tensor", p2p_op.tensor)
        group = resolve_group(fn, p2p_op.group)
        if group.is_member() and not (p2p_op.op is irecv and p2p_op.peer is None):
            _peer(fn, f"p2p_op_list[{index}].peer", p2p_op.peer, group)
    return [p2p_op.op(p2p_op.tensor, p2p_op.peer, p2p_op.group) for p2p_op in p2p_op_list]


def barrier(group=None) -> None:
    """Waits until every rank of ``group`` has reached this call.

    >>> dist.barrier()
    """
    fn = "barrier"
    group = resolve_group(fn, group)
    if group.is_member() and group.world_size > 1:
        _call(fn, group.process_group.Barrier)


def wait(tensor, group=None, use_calc_stream=True) -> None:
    """Waits until every collective this process started on ``group`` (the
    world when None) with ``sync_op=False`` is complete, so ``tensor`` and every
    other tensor they write hold their results (Paddle's ``wait``, which syncs
    the communication stream with the computation). ``use_calc_stream`` is
    checked and has no other effect: results are in place when this returns.

    >>> dist.all_reduce(t, sync_op=False)
    >>> dist.wait(t)                     # t now holds the sum
    """
    fn = "wait"
    _check_tensor(fn, "tensor", tensor)
    if not isinstance(use_calc_stream, bool):
        raise TypeError(f"{fn}: argument 'use_calc_stream' expected a bool, got {use_calc_stream!r}")
    group = resolve_group(fn, group)
    for task in list(_PENDING.get(group.id, ())):
        task.wait()


# -- collectives on Python objects ----------------------------------------------
def all_gather_object(object_list, obj, group=None) -> None:
    """Appends every rank's ``obj`` (any picklable object), in rank order, to
    ``object_list`` on every rank of ``group``. Each is a copy (pickled).

    >>> found = []
    >>> dist.all_gather_object(found, {"rank": dist.get_rank()})
    >>> found                               # on 2 ranks
    [{'rank': 0}, {'rank': 1}]
    """
    fn = "all_gather_object"
    if not isinstance(object_list, list):
        raise TypeError(f"{fn}: argument 'object_list' expected a list, got {type(object_list).__name__}")
    group = resolve_group(fn, group)
    if not group.is_member():
        return
    if group.world_size == 1:
        object_list.append(pickle.loads(pickle.dumps(obj)))
        return
    object_list.extend(_call(fn, group.process_group.allgather, obj))


def broadcast_object_list(object_list, src=0, group=None) -> None:
    """Replaces the contents of ``object_list`` on every rank of ``group`` with
    those of global rank ``src``'s list (picklable objects).

    >>> objects = [{"lr": 0.1}] if dist.get_rank() == 0 else [None]
    >>> dist.broadcast_object_list(objects, src=0)   # objects == [{"lr": 0.1}] everywhere
    """
    fn = "broadcast_object_list"
    if not isinstance(object_list, list):
        raise TypeError(f"{fn}: argument 'object_list' expected a list, got {type(object_list).__name__}")
    group = resolve_group(fn, group)
    root = _group_rank(fn, "src", src, group)
    if not group.is_member() or group.world_size == 1:
        return
    received = _call(fn, group.process_group.bcast, object_list if group.rank == root else None,
                     root=root)
    object_list[:] = received


def scatter_object_list(out_object_list, in_object_list=None, src=0, group=None) -> None:
    """Sends ``in_object_list[i]`` of global rank ``src`` (picklable objects, one
    per rank of ``group``) to the i-th rank, whose ``out_object_list`` is
    cleared and then holds that one object. ``in_object_list`` is read on
    ``src`` only.

    >>> out = []
    >>> dist.scatter_object_list(out, [{"part": 0}, {"part": 1}], src=0)
    >>> out                                  # rank 1 of 2
    [{'part': 1}]
    """
    fn = "scatter_object_list"
    if not isinstance(out_object_list, list):
        raise TypeError(f"{fn}: argument 'out_object_list' expected a list, got "
                        f"{type(out_object_list).__name__}")
    group = resolve_group(fn, group)
    root = _group_rank(fn, "src", src, group)
    if not group.is_member():
        return
    if group.rank == root:
        if not isinstance(in_object_list, (list, tuple)):
            raise TypeError(f"{fn}: argument 'in_object_list' expected a list on rank {src} (src), got "
                            f"{type(in_object_list).__name__}")
        if len(in_object_list) != group.world_size:
            raise ValueError(f"{fn}: argument 'in_object_list' expected {group.world_size} objects (one per "
                             f"rank of the group), got {len(in_object_list)}")
    if group.world_size == 1:
        received = pickle.loads(pickle.dumps(in_object_list[0]))
    else:
        received = _call(fn, group.process_group.scatter,
                         list(in_object_list) if group.rank == root else None, root=root)
    out_object_list.clear()
    out_object_list.append(received)


__all__ = ["ReduceOp", "Task", "all_reduce", "broadcast", "reduce", "all_gather", "scatter", "gather",
           "reduce_scatter", "alltoall", "alltoall_single", "send", "recv", "isend", "irecv", "P2POp",
           "batch_isend_irecv", "barrier", "wait", "all_gather_object", "broadcast_object_list",
           "scatter_object_list"]
