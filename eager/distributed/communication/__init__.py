"""Paddle's ``paddle.distributed.communication`` path: the collectives,
process-group functions and ``stream`` namespace that Paddle defines in this
package and re-exports from ``paddle.distributed``. Here they are the same
objects as ``eager.distributed``'s (the collectives run over MPI; see
docs/distributed.md).

>>> import eager.distributed.communication as comm
>>> comm.all_reduce is eager.distributed.all_reduce
True
"""
from ..collective import (P2POp, ReduceOp, all_gather, all_gather_object, all_reduce, alltoall, alltoall_single,
                          barrier, batch_isend_irecv, broadcast, broadcast_object_list, gather, irecv, isend, recv,
                          reduce, reduce_scatter, scatter, scatter_object_list, send, wait)
from ..env import is_initialized
from ..group import destroy_process_group, get_backend, get_group
from . import stream

__all__ = ["P2POp", "ReduceOp", "all_gather", "all_gather_object", "all_reduce", "alltoall", "alltoall_single",
           "barrier", "batch_isend_irecv", "broadcast", "broadcast_object_list", "destroy_process_group", "gather",
           "get_backend", "get_group", "irecv", "is_initialized", "isend", "recv", "reduce", "reduce_scatter",
           "scatter", "scatter_object_list", "send", "stream", "wait"]
