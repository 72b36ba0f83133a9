"""``eager.incubate.distributed.fleet``: ``recompute_sequential`` and ``recompute_hybrid``
(Paddle's ``paddle.incubate.distributed.fleet``): recomputing a Sequential model piece
by piece, and recomputing a block under tensor parallelism (see
:mod:`eager.distributed.fleet.recompute`)."""
from ....distributed.fleet.recompute import recompute_hybrid, recompute_sequential

__all__ = ["recompute_sequential", "recompute_hybrid"]
