"""Paddle's ``paddle.incubate.optimizer.lars_momentum`` path:
:class:`eager.optimizer.lars_momentum.LarsMomentumOptimizer` (the same class)."""
from ...optimizer.lars_momentum import LarsMomentumOptimizer

__all__ = ["LarsMomentumOptimizer"]
