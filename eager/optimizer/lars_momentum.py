"""LARS momentum, Paddle 2.6's ``paddle.incubate.optimizer.LarsMomentumOptimizer``
(exported as ``eager.incubate.optimizer.LarsMomentumOptimizer``)."""
from __future__ import annotations

from phi import api as phi_api

from ..arguments import as_called, to_bool
from .optimizer import Optimizer, _check_nonneg, _not_set


# The base class's argument names -> this class's (Paddle's).
_PADDLE_NAMES = {"parameters": "parameter_list", "weight_decay": "regularization"}


class LarsMomentumOptimizer(Optimizer):
    """Momentum with LARS (layer-wise adaptive rate scaling), Paddle's rule (op
    ``lars_momentum_``), one local learning rate per parameter, with
    g = rescale_grad * grad and wd = lars_weight_decay:

    local_lr = lr * lars_coeff * ||param|| / (||g|| + wd * ||param|| + epsilon)
    velocity = momentum * velocity + local_lr * (g + wd * param)
    param -= velocity

    local_lr is lr itself when wd is 0 or either norm is 0 (as Paddle). A
    parameter whose name contains one of the strings of
    ``exclude_from_weight_decay`` takes wd = 0. ``regularization`` (a float:
    L2Decay, or an L1Decay/L2Decay) is added to the gradient before the update,
    as Paddle's ``weight_decay``. The accumulator is ``velocity`` (state-dict key
    ``<param>_velocity_0``); with ``multi_precision`` a float16/bfloat16
    parameter is updated on a float32 master weight. Paddle's argument names:
    ``parameter_list`` (required in dygraph mode), ``regularization``.

    >>> net = eager.nn.Linear(3, 2)
    >>> opt = eager.incubate.optimizer.LarsMomentumOptimizer(
    ...     learning_rate=0.1, momentum=0.9, parameter_list=net.parameters())
    >>> loss = net(eager.ones([4, 3])).square().mean()
    >>> loss.backward(); opt.step(); opt.clear_grad()
    >>> sum(key.endswith("_velocity_0") for key in opt.state_dict())
    2
    """

    _accumulator_specs = (("velocity", 0.0, False),)
    _takes_rows = False
    _group_keys = {"momentum": "_check_nonneg"}
    _plan_reads = Optimizer._plan_reads + ("_momentum", "_lars_coeff", "_lars_weight_decay", "_epsilon",
                                           "_rescale_grad", "_exclude")

    def __init__(self, learning_rate, momentum, lars_coeff: float = 0.001, lars_weight_decay: float = 0.0005,
                 parameter_list=None, regularization=None, grad_clip=None, name=None,
                 exclude_from_weight_decay=None, epsilon: float = 0, multi_precision: bool = False,
                 rescale_grad: float = 1.0):
        who = "LarsMomentumOptimizer"
        # Paddle asserts these two are given (no defaults): a clear error instead.
        _not_set(who, "learning_rate", learning_rate, "a float or an LRScheduler")
        _not_set(who, "momentum", momentum, "a finite float >= 0")
        try:
            super().__init__(learning_rate, parameter_list, regularization, grad_clip, name)
        except (TypeError, ValueError) as error:  # named by Paddle's argument names here
            raise as_called(error, who, who, _PADDLE_NAMES) from None
        self._momentum = _check_nonneg(who, "momentum", momentum)
        self._lars_coeff = _check_nonneg(who, "lars_coeff", lars_coeff)
        self._lars_weight_decay = _check_nonneg(who, "lars_weight_decay", lars_weight_decay)
        self._epsilon = _check_nonneg(who, "epsilon", epsilon)
        self._rescale_grad = _check_nonneg(who, "rescale_grad", rescale_grad)
        self._exclude = _check_names(who, exclude_from_weight_decay)
        self._multi_precision = to_bool(multi_precision, who, "multi_precision")

    def _updater(self, param):
        (velocity,) = self._state(param)
        impl, master, multi = param.impl, self._master_weight(param), self._multi_precision
        name = param.name or ""
        decay = 0.0 if any(part in name for part in self._exclude) else self._lars_weight_decay
        mu, coeff, epsilon, rescale = (self._hyper(param, "momentum"), self._lars_coeff, self._epsilon,
                                       self._rescale_grad)
        return lambda grad, lr: phi_api.optimizer.lars_momentum_(impl, grad, velocity, lr, master, mu, coeff,
                                                                 decay, epsilon, multi, rescale)


def _check_names(who: str, value) -> tuple:
    """exclude_from_weight_decay: None or a list (tuple) of strings, as a tuple."""
    expected = "None or a list of strings (parts of parameter names)"
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{who}: argument 'exclude_from_weight_decay' expected {expected}, got {value!r}")
    for item in value:
        if not isinstance(item, str):
            raise TypeError(f"{who}: argument 'exclude_from_weight_decay' expected {expected}, got {value!r} "
                            f"(holding {type(item).__name__})")
    return tuple(value)


__all__ = ["LarsMomentumOptimizer"]
