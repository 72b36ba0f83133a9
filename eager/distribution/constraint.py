"""Constraints on the values of a random variable: Paddle's ``paddle.distribution.constraint``.

A constraint is called on a Tensor and answers, element by element, whether the
value satisfies it (a bool Tensor); ``Simplex`` answers per vector along the
last axis.

>>> import eager
>>> from eager.distribution import constraint
>>> constraint.positive(eager.to_tensor([-1.0, 0.0, 2.0])).numpy().tolist()
[False, True, True]
>>> constraint.Range(-1.0, 1.0)(eager.to_tensor([-2.0, 0.5])).numpy().tolist()
[False, True]
"""
from __future__ import annotations

from ..generated import forward_api as _F
from ..tensor import Tensor


class Constraint:
    """The base class: ``constraint(value)`` (or ``constraint.check(value)``, the
    name newer Paddle releases use) is a bool Tensor, or a bool for a number."""

    def __call__(self, value):
        raise NotImplementedError(f"{type(self).__name__} does not define a constraint")

    def check(self, value):
        """The same as calling the constraint."""
        return self(value)


class Real(Constraint):
    """Every real number: False only at NaN."""

    def __call__(self, value):
        return value == value


class Range(Constraint):
    """``lower <= value <= upper``."""

    def __init__(self, lower, upper):
        self._lower = lower
        self._upper = upper
        super().__init__()

    def __call__(self, value):
        if not isinstance(value, Tensor):
            return self._lower <= value <= self._upper
        # elementwise: Paddle's chained comparison only works on one-element tensors
        return _F.logical_and(value >= self._lower, value <= self._upper)


class Positive(Constraint):
    """``value >= 0`` (as Paddle's, zero included)."""

    def __call__(self, value):
        return value >= 0.0


class Simplex(Constraint):
    """Non-negative vectors along the last axis that sum to 1 (within 1e-6)."""

    def __call__(self, value):
        return _F.logical_and(_F.all(value >= 0, axis=-1), _F.abs(_F.sum(value, axis=-1) - 1.0) < 1e-6)


real = Real()
positive = Positive()
simplex = Simplex()

__all__ = ["Constraint", "Positive", "Range", "Real", "Simplex", "positive", "real", "simplex"]
