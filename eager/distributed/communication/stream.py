"""Paddle's ``paddle.distributed.communication.stream`` path (the module Paddle
exposes as ``paddle.distributed.stream``): the collectives with Paddle's stream
arguments, the same functions as :mod:`eager.distributed.stream`'s.

>>> import eager.distributed.communication.stream as stream
>>> stream.all_reduce is eager.distributed.stream.all_reduce
True
"""
from ..stream import (all_gather, all_reduce, alltoall, alltoall_single, broadcast, gather, recv, reduce,
                      reduce_scatter, scatter, send)

__all__ = ["all_gather", "all_reduce", "alltoall", "alltoall_single", "broadcast", "gather", "recv", "reduce",
           "reduce_scatter", "scatter", "send"]
