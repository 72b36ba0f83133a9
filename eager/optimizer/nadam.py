"""NAdam (Adam with Nesterov momentum), Paddle 2.6's ``paddle.optimizer.NAdam``."""
from __future__ import annotations

from phi import api as phi_api

from .optimizer import Optimizer, _check_finite, _check_nonneg, _check_unit


class NAdam(Optimizer):
    """NAdam, Paddle's rule (op ``nadam_``), with psi = ``momentum_decay``:

    mu_t = beta1 * (1 - 0.5 * 0.96^(t psi));  mu_{t+1} = beta1 * (1 - 0.5 * 0.96^((t+1) psi))
    m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g^2
    m_hat = mu_{t+1} m / (1 - prod_{i<=t+1} mu_i) + (1 - mu_t) g / (1 - prod_{i<=t} mu_i)
    param -= lr * m_hat / (sqrt(v / (1 - beta2^t)) + epsilon)

    This is torch.optim.NAdam's rule (without its decoupled weight decay).
    Accumulators (state-dict names as Paddle's): ``moment1``, ``moment2`` and
    the one-element ``momentum_decay_pow`` (0.96^t), ``beta2_pow`` and
    ``mu_product``. ``weight_decay`` (a float: L2Decay, or an L1Decay/L2Decay)
    is added to the gradient. Parameter groups may set ``beta1``, ``beta2``,
    ``epsilon`` and ``momentum_decay``. A float16 parameter's state is float32
    (Paddle's NAdam takes no ``multi_precision``). A SelectedRows gradient is
    made dense.

    >>> opt = eager.optimizer.NAdam(learning_rate=0.002, parameters=net.parameters())
    >>> loss.backward(); opt.step(); opt.clear_grad()
    """

    _accumulator_specs = (("momentum_decay_pow", 1.0, True), ("beta2_pow", 1.0, True),
                          ("mu_product", 1.0, True), ("moment1", 0.0, False), ("moment2", 0.0, False))
    _takes_rows = False
    _group_keys = {"beta1": "_check_unit", "beta2": "_check_unit", "epsilon": "_check_nonneg",
                   "momentum_decay": "_check_nonneg"}
    _plan_reads = Optimizer._plan_reads + ("_beta1", "_beta2", "_epsilon", "_momentum_decay")

    def __init__(self, learning_rate: float = 0.002, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1.0e-8, momentum_decay: float = 0.004, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        self._momentum_decay = _check_finite("NAdam", "momentum_decay", momentum_decay, positive=False)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1 = self._hyper_argument("beta1", beta1, _check_unit)
        self._beta2 = self._hyper_argument("beta2", beta2, _check_unit)
        self._epsilon = self._hyper_argument("epsilon", epsilon, _check_nonneg)

    def _updater(self, param):
        decay_pow, b2p, mu_product, m1, m2 = self._state(param)
        impl = param.impl
        beta1, beta2 = self._hyper(param, "beta1"), self._hyper(param, "beta2")
        epsilon, psi = self._hyper(param, "epsilon"), self._hyper(param, "momentum_decay")
        return lambda grad, lr: phi_api.optimizer.nadam_(impl, grad, lr, decay_pow, b2p, mu_product, m1, m2,
                                                         None, beta1, beta2, epsilon, psi, False)


__all__ = ["NAdam"]
