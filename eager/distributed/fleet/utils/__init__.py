"""``fleet.utils``: of Paddle's ``paddle.distributed.fleet.utils``, ``recompute``
(the function of :mod:`eager.distributed.fleet.recompute`); also ``recompute_hybrid``
(Paddle keeps it in ``fleet.recompute`` and ``paddle.incubate.distributed.fleet``). The
submodule ``hybrid_parallel_util`` has ``fused_allreduce_gradients``; ``LocalFS`` (the
local file system of :mod:`.fs`) is Paddle's too."""
from ..recompute import recompute, recompute_hybrid
from .fs import LocalFS

__all__ = ["recompute", "recompute_hybrid", "LocalFS"]
