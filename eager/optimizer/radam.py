"""RAdam (rectified Adam), Paddle 2.6's ``paddle.optimizer.RAdam``."""
from __future__ import annotations

from phi import api as phi_api

from .optimizer import Optimizer, _check_nonneg, _check_unit


class RAdam(Optimizer):
    """RAdam, Paddle's rule (op ``radam_``):

    m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g^2
    rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
    rho_t > 5:  r = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
                param -= lr * m / (1 - beta1^t) * r * sqrt(1 - beta2^t) / (sqrt(v) + epsilon)
    otherwise:  param -= lr * m / (1 - beta1^t)

    This is torch.optim.RAdam's rule (without its decoupled weight decay).
    Accumulators (state-dict names as Paddle's): ``moment1``, ``moment2`` and the
    one-element ``beta1_pow``, ``beta2_pow`` and ``rho`` (t beta2^t / (1 -
    beta2^t)). ``weight_decay`` (a float: L2Decay, or an L1Decay/L2Decay) is
    added to the gradient. Parameter groups may set ``beta1``, ``beta2`` and
    ``epsilon``. A float16 parameter's state is float32 (Paddle's RAdam takes no
    ``multi_precision``). A SelectedRows gradient is made dense.

    >>> opt = eager.optimizer.RAdam(learning_rate=0.001, parameters=net.parameters())
    >>> loss.backward(); opt.step(); opt.clear_grad()
    """

    _accumulator_specs = (("beta1_pow", 1.0, True), ("beta2_pow", 1.0, True), ("rho", 1.0, True),
                          ("moment1", 0.0, False), ("moment2", 0.0, False))
    _takes_rows = False
    _group_keys = {"beta1": "_check_unit", "beta2": "_check_unit", "epsilon": "_check_nonneg"}
    _plan_reads = Optimizer._plan_reads + ("_beta1", "_beta2", "_epsilon")

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1.0e-8, parameters=None, weight_decay=None, grad_clip=None, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1 = self._hyper_argument("beta1", beta1, _check_unit)
        self._beta2 = self._hyper_argument("beta2", beta2, _check_unit)
        self._epsilon = self._hyper_argument("epsilon", epsilon, _check_nonneg)

    def _updater(self, param):
        b1p, b2p, rho, m1, m2 = self._state(param)
        impl = param.impl
        beta1, beta2, epsilon = (self._hyper(param, "beta1"), self._hyper(param, "beta2"),
                                 self._hyper(param, "epsilon"))
        return lambda grad, lr: phi_api.optimizer.radam_(impl, grad, lr, b1p, b2p, rho, m1, m2, None, beta1,
                                                         beta2, epsilon, False)


__all__ = ["RAdam"]
