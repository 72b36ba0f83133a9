"""Rprop (resilient backpropagation), Paddle 2.6's ``paddle.optimizer.Rprop``."""
from __future__ import annotations

import math
import numbers

from phi import api as phi_api

from ..arguments import to_bool
from .optimizer import Optimizer


class Rprop(Optimizer):
    """Rprop, Paddle's rule (op ``rprop_``): every element has its own step size,
    which starts at ``learning_rate`` and follows the sign of the gradient:

    g * prev > 0: step = min(step * eta_plus, max)
    g * prev < 0: step = max(step * eta_minus, min), and g counts as 0 (no move)
    otherwise:    step unchanged
    param -= sign(g) * step;  prev = g

    with ``etas = (eta_minus, eta_plus)`` and ``learning_rate_range = (min,
    max)``. This is torch.optim.Rprop's rule. Accumulators (state-dict names as
    Paddle's): ``prevs`` and ``learning_rates`` (param's shape). The learning
    rate (or an LRScheduler's value) is read only when a parameter's
    ``learning_rates`` are made, at its first step; a group's or ParamAttr's
    learning-rate factor does not apply (as Paddle). Rprop has no
    ``weight_decay`` argument (as Paddle); a parameter group's
    ``weight_decay`` or the parameter's own regularizer is still added to its
    gradient. ``multi_precision=True`` keeps a float32
    master copy of each float16 parameter. A SelectedRows gradient is made
    dense.

    >>> opt = eager.optimizer.Rprop(learning_rate=0.001, learning_rate_range=(1e-4, 0.1),
    ...                             parameters=net.parameters(), etas=(0.5, 1.2))
    >>> loss.backward(); opt.step(); opt.clear_grad()
    """

    _accumulator_specs = (("prevs", 0.0, False), ("learning_rates", "initial_learning_rate", False))
    _takes_rows = False
    _plan_reads = Optimizer._plan_reads + ("_learning_rate_range", "_etas")

    def __init__(self, learning_rate: float = 0.001, learning_rate_range=(1e-5, 50), parameters=None,
                 etas=(0.5, 1.2), grad_clip=None, multi_precision: bool = False, name=None):
        lo, hi = _pair("learning_rate_range", learning_rate_range)
        eta_minus, eta_plus = _pair("etas", etas)
        if not 0.0 < eta_minus < 1.0 < eta_plus:
            raise ValueError(f"Rprop: argument 'etas' expected (eta_minus, eta_plus) with "
                             f"0 < eta_minus < 1 < eta_plus, got {etas!r}")
        multi_precision = to_bool(multi_precision, "Rprop", "multi_precision")
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        if not 0.0 < lo <= self.get_lr() <= hi:
            raise ValueError(f"Rprop: arguments 'learning_rate_range' and 'learning_rate' expected "
                             f"0 < learning_rate_range[0] <= learning_rate <= learning_rate_range[1], got "
                             f"learning_rate_range={learning_rate_range!r}, learning_rate={self.get_lr()!r}")
        self._learning_rate_range = (lo, hi)
        self._etas = (eta_minus, eta_plus)
        self._multi_precision = multi_precision

    @property
    def _initial_learning_rate(self) -> float:
        """What a parameter's ``learning_rates`` start at: the rate when they are made."""
        return self.get_lr()

    def _updater(self, param):
        prevs, rates = self._state(param)
        impl, master, multi = param.impl, self._master_weight(param), self._multi_precision
        bounds, etas = self._learning_rate_range, self._etas
        return lambda grad, lr: phi_api.optimizer.rprop_(impl, grad, prevs, rates, master, bounds, etas, multi)


def _pair(arg: str, value) -> tuple:
    """value as a pair of finite floats, or a ValueError naming Rprop's argument."""
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v) for v in value):
        return float(value[0]), float(value[1])
    raise ValueError(f"Rprop: argument '{arg}' expected a pair of finite floats, got {value!r}")


__all__ = ["Rprop"]
