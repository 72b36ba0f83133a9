"""Paddle's ``paddle.incubate.optimizer.functional``: ``minimize_bfgs`` and
``minimize_lbfgs``, functional quasi-Newton minimizers of a function of one
1-D tensor (eager.incubate.optimizer.functional.quasi_newton)."""
from .quasi_newton import minimize_bfgs, minimize_lbfgs

__all__ = ["minimize_bfgs", "minimize_lbfgs"]
