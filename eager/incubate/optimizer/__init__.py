"""Paddle's ``paddle.incubate.optimizer``: LookAhead, ModelAverage, LarsMomentumOptimizer,
``LBFGS`` (where Paddle 2.5 kept it; the same class as eager.optimizer.LBFGS),
and ``functional`` (minimize_bfgs, minimize_lbfgs).

>>> sorted(n for n in dir(eager.incubate.optimizer) if n[0].isupper())
['LBFGS', 'LarsMomentumOptimizer', 'LookAhead', 'ModelAverage']
"""
from .lars_momentum import LarsMomentumOptimizer
from ...optimizer.lbfgs import LBFGS
from . import functional
from .lookahead import LookAhead
from .modelaverage import ModelAverage

__all__ = ["LBFGS", "LarsMomentumOptimizer", "LookAhead", "ModelAverage", "functional"]
