"""``eager.distributed.stream``: the collectives with Paddle's stream arguments.

Paddle's ``paddle.distributed.stream`` functions are its collectives with one
more argument, ``use_calc_stream``: run on the computation stream (True) or on
a communication stream of their own (False, the default). Here there is one
ordering only: CPU tensors go through MPI, and GPU tensors through NCCL on the
current (computation) stream, so both values give the same, correct result;
``use_calc_stream=True`` with ``sync_op=False`` is refused, as in Paddle.

Their arguments follow Paddle's stream API, which differs from the main one in
places: ``alltoall`` and ``alltoall_single`` take the output first, and
``alltoall``, ``reduce_scatter`` and ``scatter`` also take one tensor in place of
a list (the ranks' parts concatenated along dim 0).

>>> import eager.distributed as dist
>>> task = dist.stream.all_reduce(t, sync_op=False)
>>> task.wait()
"""
from __future__ import annotations

from ..tensor import Tensor
from . import collective
from .collective import ReduceOp, Task, _check_sync, _check_tensor
from .group import resolve_group


def _check_stream(fn: str, sync_op, use_calc_stream) -> None:
    _check_sync(fn, sync_op)
    if not isinstance(use_calc_stream, bool):
        raise TypeError(f"{fn}: argument 'use_calc_stream' expected a bool, got {use_calc_stream!r}")
    if use_calc_stream and not sync_op:
        raise RuntimeError(f"{fn}: use_calc_stream=True needs sync_op=True (a collective on the "
                           f"computation stream is synchronous)")


def _parts(fn: str, arg: str, tensor: Tensor, group) -> list:
    """``tensor`` cut along dim 0 into one part per rank of ``group`` (views)."""
    _check_tensor(fn, arg, tensor)
    nranks = group.world_size
    if not tensor.shape or tensor.shape[0] % nranks:
        raise ValueError(f"{fn}: argument '{arg}', given as a Tensor, expected a dim 0 divisible by the "
                         f"group's {nranks} ranks (their parts concatenated), got shape {tensor.shape}")
    rows = tensor.shape[0] // nranks
    return [tensor[i * rows:(i + 1) * rows] for i in range(nranks)]


def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True, use_calc_stream=False) -> Task:
    """:func:`eager.distributed.all_reduce` with ``use_calc_stream``.

    >>> dist.stream.all_reduce(t, op=dist.ReduceOp.MAX)
    """
    _check_stream("stream.all_reduce", sync_op, use_calc_stream)
    return collective.all_reduce(tensor, op, group, sync_op)


def all_gather(tensor_or_tensor_list, tensor, group=None, sync_op=True, use_calc_stream=False) -> Task:
    """:func:`eager.distributed.all_gather` with ``use_calc_stream``: into a list,
    or into one tensor of the ranks' tensors concatenated along dim 0.

    >>> out = eager.empty([2 * dist.get_world_size()], "float32")
    >>> dist.stream.all_gather(out, eager.ones([2]))
    """
    _check_stream("stream.all_gather", sync_op, use_calc_stream)
    return collective.all_gather(tensor_or_tensor_list, tensor, group, sync_op)


def alltoall(out_tensor_or_tensor_list, in_tensor_or_tensor_list, group=None, sync_op=True,
             use_calc_stream=False) -> Task:
    """:func:`eager.distributed.alltoall` with the output first: lists of one
    tensor per rank, or two tensors (equal parts along dim 0, as
    :func:`alltoall_single` without split sizes).

    >>> out = []
    >>> dist.stream.alltoall(out, [a0, a1])
    """
    fn = "stream.alltoall"
    _check_stream(fn, sync_op, use_calc_stream)
    if isinstance(in_tensor_or_tensor_list, Tensor):
        if not isinstance(out_tensor_or_tensor_list, Tensor):
            raise TypeError(f"{fn}: argument 'out_tensor_or_tensor_list' expected a Tensor when "
                            f"'in_tensor_or_tensor_list' is one, got {type(out_tensor_or_tensor_list).__name__}")
        return collective.alltoall_single(in_tensor_or_tensor_list, out_tensor_or_tensor_list, None, None,
                                          group, sync_op)
    if isinstance(out_tensor_or_tensor_list, Tensor):
        raise TypeError(f"{fn}: argument 'out_tensor_or_tensor_list' is a Tensor, so "
                        f"'in_tensor_or_tensor_list' expected one too, got "
                        f"{type(in_tensor_or_tensor_list).__name__}")
    return collective.alltoall(in_tensor_or_tensor_list, out_tensor_or_tensor_list, group, sync_op)


def alltoall_single(out_tensor, in_tensor, out_split_sizes=None, in_split_sizes=None, group=None,
                    sync_op=True, use_calc_stream=False) -> Task:
    """:func:`eager.distributed.alltoall_single` with the output (and its split
    sizes) first, and ``use_calc_stream``.

    >>> dist.stream.alltoall_single(out, data, [1, 1], [1, 1])
    """
    _check_stream("stream.alltoall_single", sync_op, use_calc_stream)
    return collective.alltoall_single(in_tensor, out_tensor, in_split_sizes, out_split_sizes, group, sync_op)


def broadcast(tensor, src=0, group=None, sync_op=True, use_calc_stream=False) -> Task:
    """:func:`eager.distributed.broadcast` with ``use_calc_stream`` (``src`` defaults to 0).

    >>> dist.stream.broadcast(weights, src=0)
    """
    _check_stream("stream.broadcast", sync_op, use_calc_stream)
    return collective.broadcast(tensor, src, group, sync_op)


def reduce(tensor, dst=0, op=ReduceOp.SUM, group=None, sync_op=True, use_calc_stream=False) -> Task:
    """:func:`eager.distributed.reduce` with ``use_calc_stream`` (``dst`` defaults to 0).

    >>> dist.stream.reduce(loss, dst=0)
    """
    _check_stream("stream.reduce", sync_op, use_calc_stream)
    return collective.reduce(tensor, dst, op, group, sync_op)


def reduce_scatter(tensor, tensor_or_tensor_list, op=ReduceOp.SUM, group=None, sync_op=True,
                   use_calc_stream=False) -> Task:
    """:func:`eager.distributed.reduce_scatter` with ``use_calc_stream``; the input
    may be one tensor, the ranks' parts concatenated along dim 0.

    >>> dist.stream.reduce_scatter(out, eager.ones([2 * dist.get_world_size()]))
    """
    fn = "stream.reduce_scatter"
    _check_stream(fn, sync_op, use_calc_stream)
    if isinstance(tensor_or_tensor_list, Tensor):
        group = resolve_group(fn, group)
        if not group.is_member():
            return Task()
        tensor_or_tensor_list = _parts(fn, "tensor_or_tensor_list", tensor_or_tensor_list, group)
    return collective.reduce_scatter(tensor, tensor_or_tensor_list, op, group, sync_op)


def scatter(tensor, tensor_or_tensor_list=None, src=0, group=None, sync_op=True, use_calc_stream=False) -> Task:
    """:func:`eager.distributed.scatter` with ``use_calc_stream``; on ``src`` the
    input may be one tensor, the ranks' parts concatenated along dim 0.

    >>> dist.stream.scatter(t, eager.arange(4.0) if dist.get_rank() == 0 else None, src=0)
    """
    fn = "stream.scatter"
    _check_stream(fn, sync_op, use_calc_stream)
    if isinstance(tensor_or_tensor_list, Tensor):
        group = resolve_group(fn, group)
        if not group.is_member():
            return Task()
        tensor_or_tensor_list = _parts(fn, "tensor_or_tensor_list", tensor_or_tensor_list, group)
    return collective.scatter(tensor, tensor_or_tensor_list, src, group, sync_op)


def gather(tensor, gather_list=None, dst=0, group=None, sync_op=True, use_calc_stream=False) -> Task:
    """:func:`eager.distributed.gather` with ``use_calc_stream``.

    >>> found = []
    >>> dist.stream.gather(t, found, dst=0)
    """
    _check_stream("stream.gather", sync_op, use_calc_stream)
    return collective.gather(tensor, gather_list, dst, group, sync_op)


def send(tensor, dst=0, group=None, sync_op=True, use_calc_stream=False) -> Task:
    """:func:`eager.distributed.send` with ``use_calc_stream``.

    >>> dist.stream.send(t, dst=1)
    """
    _check_stream("stream.send", sync_op, use_calc_stream)
    return collective.send(tensor, dst, group, sync_op)


def recv(tensor, src=0, group=None, sync_op=True, use_calc_stream=False) -> Task:
    """:func:`eager.distributed.recv` with ``use_calc_stream``.

    >>> dist.stream.recv(t, src=0)
    """
    _check_stream("stream.recv", sync_op, use_calc_stream)
    return collective.recv(tensor, src, group, sync_op)


__all__ = ["all_gather", "all_reduce", "alltoall", "alltoall_single", "broadcast", "reduce", "reduce_scatter",
           "recv", "scatter", "gather", "send"]
