"""``fleet.recompute``: activation recomputation (Paddle's ``paddle.distributed.fleet.recompute``):
``recompute(function, *args)`` and ``recompute_sequential(ctx, functions, *args)``."""
from .recompute import recompute, recompute_sequential

__all__ = ["recompute", "recompute_sequential"]
