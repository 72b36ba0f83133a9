"""Optimizers (Paddle 2.x's ``paddle.optimizer``): SGD, Momentum, Adam.

``step()`` runs under ``no_grad`` and writes every update into the parameter's
own buffer, so parameters stay leaves, keep their identity (a Layer and the
optimizer see the same tensor) and their version counter records the change
(a graph that saved the old value then refuses to run backward).

Each optimizer's update is one fused function on the array module (NumPy or
CuPy) with ``out=`` arguments, the way Paddle runs its ``sgd_``/``momentum_``/
``adam_`` kernels: composing it from inplace ops (``p.subtract_(g.scale(lr))``)
gives the same values but allocates two parameter-sized temporaries per
parameter (the scaled gradient and the op's result, which ``write_inplace``
then copies), which doubled the peak memory of a small-batch training step.

>>> opt = eager.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
>>> loss.backward(); opt.step(); opt.clear_grad()
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from phi.core import DenseTensor

from ..autograd.grad_mode import no_grad
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
        if weight_decay is not None and (not isinstance(weight_decay, numbers.Real)
                                         or isinstance(weight_decay, bool) or weight_decay < 0):
            raise TypeError(
                f"{who}: argument 'weight_decay' expected a non-negative float or None, got "
                f"{weight_decay!r}")
        self._weight_decay = None if not weight_decay else float(weight_decay)
        if grad_clip is not None:
            # Accepting and ignoring a clip would silently train a different model.
            raise NotImplementedError(f"{who}: argument 'grad_clip' is not supported yet; pass None")
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
        self._step_count += 1
        base = self._learning_rate
        decay = self._weight_decay
        for param in self._parameter_list:
            grad = param.grad
            if grad is None or param.stop_gradient:
                continue
            if grad.shape != param.shape:
                raise ValueError(
                    f"{type(self).__name__}.step: gradient of {param.name} has shape {grad.shape}, "
                    f"the parameter {param.shape}")
            if grad.dtype != param.dtype:
                raise TypeError(
                    f"{type(self).__name__}.step: gradient of {param.name} is {grad.dtype}, the "
                    f"parameter {param.dtype}")
            p, g = param.impl.array, grad.impl.array
            xp = _array_module(p)
            if decay is not None:
                g = g + decay * p  # a new array: .grad itself must not change
            self._update(xp, param, p, g, base * _param_lr(param))
            param.impl.bump_version()

    def _update(self, xp, param: Tensor, p, g, lr: float) -> None:
        """Writes the new value into ``p`` (the parameter's array) from its gradient
        ``g``; ``param`` keys the accumulators. Never modifies ``g``."""
        raise NotImplementedError

    def minimize(self, loss: Tensor, startup_program=None, parameters=None, no_grad_set=None):
        """loss.backward() then step() (Paddle's minimize); gradients are not cleared."""
        if not isinstance(loss, Tensor):
            raise TypeError(f"{type(self).__name__}.minimize: argument 'loss' expected a Tensor, "
                            f"got {type(loss).__name__}")
        loss.backward()
        self.step()

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
            array = param.impl.array
            xp = _array_module(array)
            acc = Tensor(DenseTensor(xp.full(array.shape, fill, dtype=array.dtype)))
            self._accumulators[key] = acc
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
        """Restores what :meth:`state_dict` returned (matching parameters by name)."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"{type(self).__name__}.set_state_dict: argument 'state_dict' "
                            f"expected a dict, got {type(state_dict).__name__}")
        self._step_count = int(state_dict.get("@step", self._step_count))
        self._learning_rate = float(state_dict.get("@lr", self._learning_rate))
        for param in self._parameter_list:
            for acc_name in self._accumulator_names:
                key = f"{param.name}_{acc_name}"
                if key in state_dict:
                    value = np.asarray(state_dict[key])
                    if list(value.shape) != param.shape:
                        raise ValueError(f"{type(self).__name__}.set_state_dict: {key!r} expected "
                                         f"shape {param.shape}, got {list(value.shape)}")
                    acc = self._accumulator(acc_name, param)
                    acc.impl.array[...] = value

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

    def _update(self, xp, param, p, g, lr):
        xp.subtract(p, xp.multiply(g, lr), out=p)


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
        if not isinstance(momentum, numbers.Real) or isinstance(momentum, bool) or momentum < 0:
            raise TypeError(f"Momentum: argument 'momentum' expected a non-negative float, got "
                            f"{momentum!r}")
        if not isinstance(use_nesterov, bool):
            raise TypeError(f"Momentum: argument 'use_nesterov' expected a bool, got {use_nesterov!r}")
        self._momentum = float(momentum)
        self._use_nesterov = use_nesterov
        self._rescale_grad = float(rescale_grad)

    def _update(self, xp, param, p, g, lr):
        if self._rescale_grad != 1.0:
            g = xp.multiply(g, self._rescale_grad)
        v = self._accumulator("velocity", param).impl.array
        xp.multiply(v, self._momentum, out=v)
        xp.add(v, g, out=v)
        if self._use_nesterov:
            step = xp.multiply(v, self._momentum)
            xp.add(step, g, out=step)
            xp.multiply(step, lr, out=step)
        else:
            step = xp.multiply(v, lr)
        xp.subtract(p, step, out=p)


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
        if not isinstance(epsilon, numbers.Real) or isinstance(epsilon, bool) or epsilon < 0:
            raise ValueError(f"Adam: argument 'epsilon' expected a non-negative float, got {epsilon!r}")
        self._beta1, self._beta2, self._epsilon = float(beta1), float(beta2), float(epsilon)

    def _update(self, xp, param, p, g, lr):
        b1, b2, t = self._beta1, self._beta2, self._step_count
        m = self._accumulator("moment1", param).impl.array
        v = self._accumulator("moment2", param).impl.array
        scratch = xp.multiply(g, 1.0 - b1)
        xp.multiply(m, b1, out=m)
        xp.add(m, scratch, out=m)
        xp.multiply(g, g, out=scratch)
        xp.multiply(scratch, 1.0 - b2, out=scratch)
        xp.multiply(v, b2, out=v)
        xp.add(v, scratch, out=v)
        correction2 = math.sqrt(1.0 - b2 ** t)
        lr_t = lr * correction2 / (1.0 - b1 ** t)
        # scratch = lr_t * m / (sqrt(v) + epsilon * correction2)
        xp.sqrt(v, out=scratch)
        xp.add(scratch, self._epsilon * correction2, out=scratch)
        xp.divide(m, scratch, out=scratch)
        xp.multiply(scratch, lr_t, out=scratch)
        xp.subtract(p, scratch, out=p)


def _array_module(array):
    if type(array) is np.ndarray:
        return np
    import cupy

    return cupy


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


__all__ = ["Adam", "Momentum", "Optimizer", "SGD"]
