"""``eager.incubate.distributed.fleet``: ``recompute_sequential`` (Paddle's
``paddle.incubate.distributed.fleet.recompute_sequential``), recomputing a
Sequential model piece by piece (see :mod:`eager.distributed.fleet.recompute`)."""
from ....distributed.fleet.recompute import recompute_sequential

__all__ = ["recompute_sequential"]
