"""Random variables' spaces: Paddle's ``paddle.distribution.variable``.

A ``Variable`` says whether values are discrete, how many rightmost axes make
one event (``event_rank``) and which ``constraint`` they satisfy; transforms
give theirs as ``_domain`` and ``_codomain``.

>>> import eager
>>> from eager.distribution import ExpTransform, variable
>>> isinstance(ExpTransform()._codomain, variable.Positive)
True
>>> variable.Independent(variable.real, 2).event_rank
2
"""
from __future__ import annotations

from ..generated import forward_api as _F
from . import constraint


class Variable:
    """A random variable's space: ``is_discrete``, ``event_rank`` and a ``constraint``."""

    def __init__(self, is_discrete=False, event_rank=0, constraint=None):
        self._is_discrete = is_discrete
        self._event_rank = event_rank
        self._constraint = constraint

    @property
    def is_discrete(self):
        """Whether the values are discrete."""
        return self._is_discrete

    @property
    def event_rank(self):
        """How many rightmost axes make one event."""
        return self._event_rank

    def constraint(self, value):
        """Whether ``value`` satisfies this variable's constraint (a bool Tensor)."""
        if self._constraint is None:
            raise NotImplementedError(f"{type(self).__name__} has no constraint")
        return self._constraint(value)


class Real(Variable):
    """Real numbers."""

    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, constraint.real)


class Positive(Variable):
    """Non-negative real numbers."""

    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, constraint.positive)


class Independent(Variable):
    """``base`` with its ``reinterpreted_batch_rank`` rightmost batch axes made event axes."""

    def __init__(self, base, reinterpreted_batch_rank):
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__(base.is_discrete, base.event_rank + reinterpreted_batch_rank)

    def constraint(self, value):
        """The base's answer, all-reduced over the reinterpreted axes."""
        ret = self._base.constraint(value)
        n = self._reinterpreted_batch_rank
        if len(ret.shape) < n:
            raise ValueError(f"variable.Independent.constraint: expected a value of at least {n} "
                             f"dimensions, got shape {list(value.shape)}")
        return _F.all(ret, axis=list(range(-n, 0))) if n > 0 else ret


class Stack(Variable):
    """``vars`` stacked along ``axis``: each slice satisfies its own variable."""

    def __init__(self, vars, axis=0):
        self._vars = vars
        self._axis = axis
        super().__init__()

    @property
    def is_discrete(self):
        return any(var.is_discrete for var in self._vars)

    @property
    def event_rank(self):
        rank = max(var.event_rank for var in self._vars)
        if self._axis + rank < 0:
            rank += 1
        return rank

    def constraint(self, value):
        """Each slice along ``axis`` checked by its variable, stacked back."""
        rank = len(value.shape)
        if not -rank <= self._axis < rank:
            raise ValueError(f"variable.Stack.constraint: axis {self._axis} is out of range for a value "
                             f"of shape {list(value.shape)}")
        parts = _F.unbind(value, self._axis)
        return _F.stack([var.constraint(part) for var, part in zip(self._vars, parts)], self._axis)


real = Real()
positive = Positive()

__all__ = ["Independent", "Positive", "Real", "Stack", "Variable", "positive", "real"]
