"""Optimizers (Paddle 2.x's ``paddle.optimizer``): SGD, Momentum, Adam.

``step()`` runs under ``no_grad`` and writes every update into the parameter's
own buffer, so parameters stay leaves, keep their identity (a Layer and the
optimizer see the same tensor) and their version counter records the change
(a graph that saved the old value then refuses to run backward).

Each optimizer's update is one fused phi kernel (``phi.api.sgd_``,
``momentum_``, ``adam_``), as Paddle runs them: composing it from inplace ops
(``p.subtract_(g.scale(lr))``) gives the same values but allocates two
parameter-sized temporaries per parameter, which doubled the peak memory of a
small-batch training step. ``grad_clip`` (an ``eager.nn.ClipGrad*``) clips the
gradients handed to the update, leaving ``.grad`` as it is.

>>> opt = eager.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
>>> loss.backward(); opt.step(); opt.clear_grad()
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from phi import api as phi_api

from ..autograd.grad_mode import no_grad
from ..creation import to_tensor
from ..generated import forward_api as _F
from ..regularizer import L1Decay, L2Decay, WeightDecayRegularizer
from ..tensor import Tensor


class Optimizer:
    """Base class: holds the parameters and the learning rate; subclasses implement
    :meth:`_update` for one parameter.

    ``parameters``: the tensors to optimize (e.g. ``layer.parameters()``), each a
    leaf with stop_gradient=False. ``learning_rate``: a positive float.
    ``weight_decay``: a float c adds c * param to the gradient (L2 decay, as
    Paddle's L2Decay); None for none.
    """

    _name = "Optimizer"

    def __init__(self, learning_rate: float = 0.001, parameters=None, weight_decay=None,
                 grad_clip=None, name=None):
        who = type(self).__name__
        self._learning_rate = _check_learning_rate(who, learning_rate)
        self._parameter_list = _check_parameters(who, parameters)
        if isinstance(weight_decay, WeightDecayRegularizer):
            self._regularizer = weight_decay
        elif weight_decay is None:
            self._regularizer = None
        elif (not isinstance(weight_decay, numbers.Real) or isinstance(weight_decay, bool)
              or not (weight_decay >= 0 and math.isfinite(weight_decay))):
            raise TypeError(
                f"{who}: argument 'weight_decay' expected a non-negative float, an "
                f"eager.regularizer.L1Decay/L2Decay or None, got {weight_decay!r}")
        else:
            self._regularizer = L2Decay(float(weight_decay)) if weight_decay else None
        self._weight_decay = (self._regularizer.coeff
                              if isinstance(self._regularizer, L2Decay) else 0.0)
        if grad_clip is not None and not callable(grad_clip):
            raise TypeError(f"{who}: argument 'grad_clip' expected an eager.nn.ClipGradByValue, "
                            f"ClipGradByNorm or ClipGradByGlobalNorm, got {type(grad_clip).__name__}")
        self._grad_clip = grad_clip
        # Per-parameter optimizer state (accumulators), keyed by the parameter's id.
        self._accumulators: dict = {}
        self._step_count = 0

    # -- learning rate --------------------------------------------------------
    def get_lr(self) -> float:
        """The current learning rate."""
        return self._learning_rate

    def set_lr(self, value: float) -> None:
        """Sets the learning rate used by the following steps."""
        self._learning_rate = _check_learning_rate(f"{type(self).__name__}.set_lr", value)

    # -- the step -------------------------------------------------------------
    @no_grad()
    def step(self) -> None:
        """Updates every parameter that has a gradient, in place. Parameters
        without a gradient (unused in the loss) or with stop_gradient=True are
        skipped."""
        who = type(self).__name__
        params_grads = []
        for param in self._parameter_list:
            grad = param.grad
            if grad is None or param.stop_gradient:
                continue
            if grad.shape != param.shape:
                raise ValueError(f"{who}.step: gradient of {param.name} has shape {grad.shape}, "
                                 f"the parameter {param.shape}")
            if grad.dtype != param.dtype:
                raise TypeError(f"{who}.step: gradient of {param.name} is {grad.dtype}, the "
                                f"parameter {param.dtype}")
            params_grads.append((param, grad))
        self._apply(params_grads)

    def _apply(self, params_grads) -> None:
        if self._grad_clip is not None:
            params_grads = self._grad_clip(params_grads)
        self._step_count += 1
        base = self._learning_rate
        for param, grad in params_grads:
            decay = self._weight_decay
            regularizer = getattr(param, "regularizer", None)  # the parameter's own replaces ours
            if regularizer is not None or isinstance(self._regularizer, L1Decay):
                grad, decay = _regularized(param, grad, regularizer or self._regularizer)
            self._update(param, grad, base * _param_lr(param), decay)

    def _update(self, param: Tensor, grad: Tensor, lr: float, decay: float) -> None:
        """Writes the new value of ``param`` (and its state) in place, through a
        fused phi kernel, with L2 decay ``decay``; never modifies ``grad``."""
        raise NotImplementedError

    def minimize(self, loss: Tensor, startup_program=None, parameters=None, no_grad_set=None):
        """Applies the gradients already computed (Paddle's dygraph ``minimize``:
        call ``loss.backward()`` first); returns ``(optimize_ops, params_grads)``,
        with no ops in dynamic-graph mode. Gradients are not cleared."""
        if not isinstance(loss, Tensor):
            raise TypeError(f"{type(self).__name__}.minimize: argument 'loss' expected a Tensor, "
                            f"got {type(loss).__name__}")
        chosen = self._parameter_list if parameters is None else _check_parameters(
            f"{type(self).__name__}.minimize", parameters)
        skip = {id(p) for p in (no_grad_set or ())}
        params_grads = [(p, p.grad) for p in chosen
                        if p.grad is not None and not p.stop_gradient and id(p) not in skip]
        with no_grad():
            self._apply(params_grads)
        return [], params_grads

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Resets the gradients of all parameters: to zeros (default, as Paddle), or to
        None with ``set_to_zero=False`` (cheaper: the next backward writes a new one)."""
        for param in self._parameter_list:
            param.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    # -- state ----------------------------------------------------------------
    def _accumulator(self, name: str, param: Tensor, fill: float = 0.0) -> Tensor:
        key = (name, id(param))
        acc = self._accumulators.get(key)
        if acc is None:
            acc = self._accumulators[key] = Tensor(phi_api.full_like(param.impl, fill, None))
        return acc

    def state_dict(self) -> dict:
        """The optimizer's state: accumulators as NumPy copies keyed
        "<param name>_<accumulator>", plus the step count and learning rate."""
        names = {id(p): p.name for p in self._parameter_list}
        state = {f"{names[pid]}_{acc_name}": np.array(acc.numpy(), copy=True)
                 for (acc_name, pid), acc in self._accumulators.items() if pid in names}
        state["@step"] = self._step_count
        state["@lr"] = self._learning_rate
        return state

    def set_state_dict(self, state_dict: dict) -> None:
        """Restores what :meth:`state_dict` returned (matching parameters by name).

        Every entry is checked before any is applied, so a bad one (a wrong shape,
        a negative step, a learning rate that is not a positive number) raises
        and leaves the learning rate, the step count and every accumulator as
        they were.
        """
        who = f"{type(self).__name__}.set_state_dict"
        if not isinstance(state_dict, dict):
            raise TypeError(f"{who}: argument 'state_dict' expected a dict, got {type(state_dict).__name__}")
        step = state_dict.get("@step", self._step_count)
        if isinstance(step, bool) or not isinstance(step, (numbers.Integral, np.integer)) or step < 0:
            raise ValueError(f"{who}: '@step' expected a non-negative int, got {step!r}")
        lr = state_dict.get("@lr", self._learning_rate)
        lr = _check_learning_rate(who + " '@lr'", lr)
        staged = []
        for param in self._parameter_list:
            for acc_name in self._accumulator_names:
                key = f"{param.name}_{acc_name}"
                if key not in state_dict:
                    continue
                value = state_dict[key]
                try:
                    array = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
                except Exception:  # noqa: BLE001  anything that is not array-like
                    array = None
                if array is None or array.dtype.kind not in "fiu" or list(array.shape) != param.shape:
                    raise ValueError(
                        f"{who}: {key!r} expected a {param.dtype} array of shape {param.shape}, got "
                        f"{type(value).__name__}" + ("" if array is None else f" of {array.dtype}{list(array.shape)}"))
                staged.append((acc_name, param, to_tensor(array, dtype=param.dtype, place=param.place)))
        # Everything checked: apply.
        self._step_count = int(step)
        self._learning_rate = lr
        for acc_name, param, value in staged:
            phi_api.assign_out_(value.impl, self._accumulator(acc_name, param).impl)

    _accumulator_names: tuple = ()

    def __repr__(self):
        return (f"{type(self).__name__}(learning_rate={self._learning_rate}, "
                f"parameters={len(self._parameter_list)})")


class SGD(Optimizer):
    """Stochastic gradient descent: param -= lr * grad.

    >>> opt = eager.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    """

    def __init__(self, learning_rate: float = 0.001, parameters=None, weight_decay=None,
                 grad_clip=None, multi_precision: bool = False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _update(self, param, grad, lr, decay):
        phi_api.sgd_(param.impl, grad.impl, lr, decay)


class Momentum(Optimizer):
    """SGD with momentum, Paddle's rule:

    velocity = momentum * velocity + grad
    param -= lr * velocity                        (use_nesterov=False)
    param -= lr * (grad + momentum * velocity)    (use_nesterov=True)
    """

    _accumulator_names = ("velocity",)

    def __init__(self, learning_rate: float = 0.001, momentum: float = 0.9, parameters=None,
                 use_nesterov: bool = False, weight_decay=None, grad_clip=None,
                 multi_precision: bool = False, rescale_grad: float = 1.0, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        if (not isinstance(momentum, numbers.Real) or isinstance(momentum, bool)
                or not (momentum >= 0 and math.isfinite(momentum))):
            raise TypeError(f"Momentum: argument 'momentum' expected a non-negative float, got "
                            f"{momentum!r}")
        if not isinstance(use_nesterov, bool):
            raise TypeError(f"Momentum: argument 'use_nesterov' expected a bool, got {use_nesterov!r}")
        self._momentum = float(momentum)
        self._use_nesterov = use_nesterov
        if (not isinstance(rescale_grad, numbers.Real) or isinstance(rescale_grad, bool)
                or not (rescale_grad > 0 and math.isfinite(rescale_grad))):
            raise ValueError(f"Momentum: argument 'rescale_grad' expected a positive finite float, got "
                             f"{rescale_grad!r}")
        self._rescale_grad = float(rescale_grad)

    def _update(self, param, grad, lr, decay):
        phi_api.momentum_(param.impl, grad.impl, self._accumulator("velocity", param).impl, lr,
                          self._momentum, self._use_nesterov, self._rescale_grad, decay)


class Adam(Optimizer):
    """Adam, with Paddle's formulation (epsilon scaled by the bias correction):

    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)
    param -= lr_t * m / (sqrt(v) + epsilon * sqrt(1 - beta2^t))
    """

    _accumulator_names = ("moment1", "moment2")

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, parameters=None, weight_decay=None, grad_clip=None,
                 lazy_mode: bool = False, multi_precision: bool = False,
                 use_multi_tensor: bool = False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        for arg, value in (("beta1", beta1), ("beta2", beta2)):
            if not isinstance(value, numbers.Real) or isinstance(value, bool) or not 0 <= value < 1:
                raise ValueError(f"Adam: argument '{arg}' expected a float in [0, 1), got {value!r}")
        if (not isinstance(epsilon, numbers.Real) or isinstance(epsilon, bool)
                or not (epsilon >= 0 and math.isfinite(epsilon))):
            raise ValueError(f"Adam: argument 'epsilon' expected a non-negative float, got {epsilon!r}")
        self._beta1, self._beta2, self._epsilon = float(beta1), float(beta2), float(epsilon)

    _decoupled_decay = False  # AdamW decays the parameter directly

    def _update(self, param, grad, lr, decay):
        phi_api.adam_(param.impl, grad.impl, self._accumulator("moment1", param).impl,
                      self._accumulator("moment2", param).impl, lr, self._beta1, self._beta2,
                      self._epsilon, self._step_count, decay, self._decoupled_decay)


class AdamW(Adam):
    """Adam with decoupled weight decay (Paddle's ``paddle.optimizer.AdamW``):
    param *= 1 - lr * weight_decay before the Adam step; weight_decay defaults to 0.01."""

    _decoupled_decay = True

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, parameters=None, weight_decay: float = 0.01, grad_clip=None,
                 lazy_mode: bool = False, multi_precision: bool = False, name=None):
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, weight_decay, grad_clip,
                         lazy_mode, multi_precision, name=name)


def _regularized(param, grad, regularizer):
    """(gradient, L2 coefficient for the fused kernel) under ``regularizer``: L2 goes
    to the kernel, L1 is added here as coeff * sign(param)."""
    if isinstance(regularizer, L2Decay):
        return grad, regularizer.coeff
    if isinstance(regularizer, L1Decay) and regularizer.coeff:
        with no_grad():
            return _F.add(grad, _F.scale(_F.sign(param), regularizer.coeff, 0.0, True)), 0.0
    return grad, 0.0


def _param_lr(param) -> float:
    attr = getattr(param, "optimize_attr", None)
    return 1.0 if attr is None else attr["learning_rate"]


def _check_learning_rate(who: str, value) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{who}: argument 'learning_rate' expected a float, got {value!r}")
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{who}: argument 'learning_rate' expected a positive finite float, got {value!r}")
    return float(value)


def _check_parameters(who: str, parameters) -> list:
    if parameters is None:
        raise ValueError(
            f"{who}: argument 'parameters' is required in dynamic-graph mode, e.g. "
            f"parameters=model.parameters()")
    if isinstance(parameters, Tensor):
        raise TypeError(f"{who}: argument 'parameters' expected a list of Tensors, got one Tensor; "
                        f"wrap it in a list")
    try:
        params = list(parameters)
    except TypeError:
        raise TypeError(f"{who}: argument 'parameters' expected a list of Tensors, got "
                        f"{type(parameters).__name__}") from None
    seen = set()
    for index, p in enumerate(params):
        if isinstance(p, dict):
            raise TypeError(f"{who}: argument 'parameters' holds a dict at position {index}; "
                            f"parameter groups are not supported, pass a list of Tensors")
        if not isinstance(p, Tensor):
            raise TypeError(f"{who}: argument 'parameters' expected a list of Tensors, position "
                            f"{index} is {type(p).__name__}")
        if not p.is_leaf:
            raise ValueError(f"{who}: argument 'parameters' position {index} is not a leaf tensor "
                             f"(it was computed by an op); optimize leaves such as layer parameters")
        if id(p) in seen:
            raise ValueError(f"{who}: argument 'parameters' lists the same tensor twice "
                             f"(position {index})")
        seen.add(id(p))
    if not params:
        raise ValueError(f"{who}: argument 'parameters' is empty; there is nothing to optimize")
    return params


__all__ = ["Adam", "AdamW", "Momentum", "Optimizer", "SGD"]
