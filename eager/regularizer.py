"""Weight decay as Paddle spells it (``paddle.regularizer``): L1Decay and L2Decay.

Pass one as an optimizer's ``weight_decay`` (a float there means L2Decay), or
as a ``ParamAttr``'s ``regularizer``, which then replaces the optimizer's for
that parameter, as in Paddle. The optimizer adds the decay term to each
gradient after gradient clipping; ``.grad`` itself is left as it is.

>>> opt = eager.optimizer.SGD(0.1, parameters=net.parameters(),
...                           weight_decay=eager.regularizer.L1Decay(1e-4))
"""
from __future__ import annotations

import math
import numbers


class WeightDecayRegularizer:
    """Base of L1Decay and L2Decay: a non-negative finite coefficient."""

    def __init__(self, coeff: float = 0.0):
        if isinstance(coeff, bool) or not isinstance(coeff, numbers.Real) or not (
                coeff >= 0 and math.isfinite(coeff)):
            raise ValueError(f"{type(self).__name__}: argument 'coeff' expected a non-negative finite "
                             f"float, got {coeff!r}")
        self.coeff = float(coeff)

    def __repr__(self):
        return f"{type(self).__name__}(coeff={self.coeff})"


class L2Decay(WeightDecayRegularizer):
    """Adds ``coeff * param`` to the gradient (the gradient of coeff/2 * ||param||^2)."""


class L1Decay(WeightDecayRegularizer):
    """Adds ``coeff * sign(param)`` to the gradient (the gradient of coeff * ||param||_1)."""


__all__ = ["L1Decay", "L2Decay", "WeightDecayRegularizer"]
