"""ASGD, Paddle 2.6's ``paddle.optimizer.ASGD``: the stochastic average gradient
over the last ``batch_num`` gradients (not torch.optim.ASGD's averaged SGD)."""
from __future__ import annotations

import numbers

from phi import api as phi_api
from phi.common import DataType

from ..arguments import to_bool
from .optimizer import Optimizer


class ASGD(Optimizer):
    """ASGD, Paddle's rule (op ``asgd_``): each parameter keeps the sum ``d`` of
    the last ``batch_num`` gradients, the gradients themselves (``y``, one slot
    per batch) and its step count ``m``; at step m (from 0)

    i = m % batch_num;  d = d - y[i] + g;  y[i] = g
    param -= lr * d / min(m + 1, batch_num)

    so with ``batch_num=1`` it is SGD. Name and formula come from SAG (Schmidt
    et al.), unlike torch.optim.ASGD (averaged SGD), a different method.
    Accumulators (state-dict names as Paddle's): ``d`` (param's shape), ``y``
    ([batch_num] + param's shape) and ``m`` (int64, one element).
    ``weight_decay`` (a float: L2Decay, or an L1Decay/L2Decay) is added to the
    gradient before it is stored. ``multi_precision=True`` keeps a float32
    master copy of each float16 parameter. A SelectedRows gradient is made
    dense.

    >>> opt = eager.optimizer.ASGD(learning_rate=0.01, batch_num=10, parameters=net.parameters())
    >>> loss.backward(); opt.step(); opt.clear_grad()
    """

    _accumulator_specs = (("d", 0.0, False), ("y", 0.0, False), ("m", 0, True))
    _takes_rows = False
    _plan_reads = Optimizer._plan_reads + ("_batch_num",)

    def __init__(self, learning_rate: float = 0.001, batch_num: int = 1, parameters=None, weight_decay=None,
                 grad_clip=None, multi_precision: bool = False, name=None):
        if isinstance(batch_num, bool) or not isinstance(batch_num, numbers.Integral) or batch_num < 1:
            raise ValueError(f"ASGD: argument 'batch_num' expected an int > 0 (the batches of an epoch), "
                             f"got {batch_num!r}")
        multi_precision = to_bool(multi_precision, "ASGD", "multi_precision")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._batch_num = int(batch_num)
        self._multi_precision = multi_precision

    def _accumulator_meta(self, name: str, param, scalar: bool) -> tuple:
        dims, dtype = super()._accumulator_meta(name, param, scalar)
        if name == "y":
            return (self._batch_num, *dims), dtype
        if name == "m":
            return (1,), DataType.INT64
        return dims, dtype

    def _updater(self, param):
        d, ys, m = self._state(param)
        impl, master, multi, batch_num = param.impl, self._master_weight(param), self._multi_precision, \
            self._batch_num
        return lambda grad, lr: phi_api.optimizer.asgd_(impl, grad, lr, d, ys, m, master, batch_num, multi)


__all__ = ["ASGD"]
