"""``fleet.recompute``: activation recomputation (Paddle's ``paddle.distributed.fleet.recompute``):
``recompute(function, *args)``, ``recompute_sequential(ctx, functions, *args)`` and
``recompute_hybrid(ctx, function, *args)`` (under tensor parallelism)."""
from .recompute import recompute, recompute_sequential
from .recompute_hybrid import recompute_hybrid

__all__ = ["recompute", "recompute_sequential", "recompute_hybrid"]
