"""``fleet.utils``: of Paddle's ``paddle.distributed.fleet.utils``, ``recompute``
(the function of :mod:`eager.distributed.fleet.recompute`)."""
from ..recompute import recompute

__all__ = ["recompute"]
