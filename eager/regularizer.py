"""Weight-decay regularizers (Paddle 2.x's ``paddle.regularizer``): L1Decay, L2Decay.

A regularizer adds a term to a parameter's gradient before the optimizer's
update. Give one to an optimizer as ``weight_decay`` (a float there means
``L2Decay(float)``), or to one parameter as ``ParamAttr(regularizer=...)``,
which then takes the place of the optimizer's for that parameter, as in Paddle.
The optimizer adds the term to each gradient after gradient clipping (an L2
decay of Momentum runs inside its fused kernel); ``.grad`` itself is left as
it is.

>>> opt = eager.optimizer.Momentum(0.1, parameters=net.parameters(),
...                                weight_decay=eager.regularizer.L2Decay(1e-4))
"""
from __future__ import annotations

import abc
import math
import numbers

from .generated import forward_api as _F


class WeightDecayRegularizer(abc.ABC):
    """Base class: ``coeff`` and :meth:`__call__` giving the term added to the gradient."""

    def __init__(self, coeff: float = 0.0):
        if isinstance(coeff, bool) or not isinstance(coeff, numbers.Real):
            raise TypeError(f"{type(self).__name__}: argument 'coeff' expected a non-negative finite "
                            f"float, got {coeff!r}")
        if not (coeff >= 0 and math.isfinite(coeff)):
            raise ValueError(f"{type(self).__name__}: argument 'coeff' expected a non-negative finite "
                             f"float, got {coeff!r}")
        self.coeff = float(coeff)

    @abc.abstractmethod
    def __call__(self, param, grad):
        """The term to add to ``grad`` (a new tensor; neither input changes)."""

    @property
    def _coeff(self) -> float:
        """Paddle's attribute name for ``coeff`` (scripts and Paddle's own optimizers read it)."""
        return self.coeff

    def __repr__(self):
        return f"{type(self).__name__}(coeff={self.coeff})"

    def __str__(self):
        return f"{type(self).__name__}, coeff={self.coeff:f}"  # Paddle's str()


class L2Decay(WeightDecayRegularizer):
    """L2 weight decay: adds ``coeff * param`` to the gradient (the gradient of
    ``coeff / 2 * sum(param ** 2)``)."""

    def __call__(self, param, grad):
        return _F.scale(param, self.coeff, 0.0, True)


class L1Decay(WeightDecayRegularizer):
    """L1 weight decay: adds ``coeff * sign(param)`` to the gradient (a
    subgradient of ``coeff * sum(|param|)``)."""

    def __call__(self, param, grad):
        return _F.scale(_F.sign(param), self.coeff, 0.0, True)


__all__ = ["L1Decay", "L2Decay", "WeightDecayRegularizer"]
