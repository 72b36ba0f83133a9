"""Paddle's ``paddle.incubate.optimizer.LookAhead`` (Zhang et al., 2019): an
inner optimizer moves the fast weights; every k steps the slow weights take a
step of size alpha towards them and the fast weights restart from there."""
from __future__ import annotations

import numbers

from phi import api as phi_api

from ...autograd.grad_mode import no_grad
from ...generated import forward_api as _F
from ...optimizer.optimizer import Optimizer

_INNER_KEY = "inner_optimizer"


class LookAhead(Optimizer):
    """Wraps ``inner_optimizer``; after each of its steps (``step`` or
    ``minimize``), at step count t (from 1)::

        t == 1:       slow = param
        t % k == 0:   slow = param = alpha * param + (1 - alpha) * slow

    for every parameter that has a gradient. ``state_dict`` holds the slow
    weights (``<param name>_slow_0``, Paddle's key), the step count ``@step``
    and the inner optimizer's own state under ``inner_optimizer``.

    >>> linear = eager.nn.Linear(2, 1)
    >>> sgd = eager.optimizer.SGD(0.1, parameters=linear.parameters())
    >>> opt = eager.incubate.optimizer.LookAhead(sgd, alpha=0.5, k=2)
    >>> linear(eager.ones([3, 2])).mean().backward()
    >>> opt.step(); opt.clear_grad()
    """

    _accumulator_specs = (("slow", 0.0, False),)

    def __init__(self, inner_optimizer, alpha=0.5, k=5, name=None):
        who = "LookAhead"
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError(f"{who}: argument 'inner_optimizer' expected an eager.optimizer.Optimizer, got "
                            f"{type(inner_optimizer).__name__}")
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
            raise TypeError(f"{who}: argument 'alpha' expected a float in [0, 1], got {type(alpha).__name__}")
        if not 0.0 <= float(alpha) <= 1.0:
            raise ValueError(f"{who}: argument 'alpha' expected a float in [0, 1], got {alpha!r}")
        if isinstance(k, bool) or not isinstance(k, numbers.Integral):
            raise TypeError(f"{who}: argument 'k' expected a positive int, got {type(k).__name__}")
        if k <= 0:
            raise ValueError(f"{who}: argument 'k' expected a positive int, got {k!r}")
        super().__init__(learning_rate=inner_optimizer.get_lr(), parameters=list(inner_optimizer._parameter_list),
                         name=name)
        self.inner_optimizer = inner_optimizer
        self.alpha, self.k = float(alpha), int(k)

    def _accumulator_meta(self, name: str, param, scalar: bool) -> tuple:
        return tuple(param.impl.dims), param.impl.dtype  # the slow weights in the parameter's dtype

    # The learning rate is the inner optimizer's.
    def get_lr(self) -> float:
        """The inner optimizer's learning rate."""
        return self.inner_optimizer.get_lr()

    def set_lr(self, value: float) -> None:
        """Sets the inner optimizer's learning rate."""
        self.inner_optimizer.set_lr(value)

    def set_lr_scheduler(self, scheduler) -> None:
        """Gives the inner optimizer a learning-rate scheduler."""
        self.inner_optimizer.set_lr_scheduler(scheduler)

    @no_grad()
    def step(self) -> None:
        """The inner optimizer's step, then the look-ahead update."""
        self.inner_optimizer.step()
        self._look_ahead()

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """The inner optimizer's ``minimize`` (call ``loss.backward()`` first), then
        the look-ahead update; returns the inner optimizer's result."""
        result = self.inner_optimizer.minimize(loss, startup_program, parameters, no_grad_set)
        with no_grad():
            self._look_ahead()
        return result

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Clears the gradients (the inner optimizer's parameters)."""
        self.inner_optimizer.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    def _look_ahead(self) -> None:
        self._step_count += 1
        step, alpha = self._step_count, self.alpha
        for param in self._parameter_list:
            if param.stop_gradient or param.grad is None:
                continue
            slow = self._accumulator("slow", param)
            if step == 1:
                phi_api.assign_out_(param.impl, slow.impl)
            if step % self.k == 0:
                mixed = _F.add(_F.scale(param, alpha), _F.scale(slow, 1.0 - alpha))
                phi_api.assign_out_(mixed.impl, param.impl)
                phi_api.assign_out_(mixed.impl, slow.impl)

    def state_dict(self) -> dict:
        """The slow weights, ``@step``, ``@lr`` and ``inner_optimizer`` (the inner
        optimizer's state dict)."""
        state = super().state_dict()
        state[_INNER_KEY] = self.inner_optimizer.state_dict()
        return state

    def set_state_dict(self, state_dict) -> None:
        """Restores :meth:`state_dict`'s result (the inner optimizer's part too);
        a bad entry raises and leaves both optimizers as they were."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"LookAhead.set_state_dict: argument 'state_dict' expected a dict, got "
                            f"{type(state_dict).__name__}")
        own = {key: value for key, value in state_dict.items() if key != _INNER_KEY}
        if _INNER_KEY not in state_dict:
            super().set_state_dict(own)
            return
        before = self.inner_optimizer.state_dict()
        self.inner_optimizer.set_state_dict(state_dict[_INNER_KEY])
        try:
            super().set_state_dict(own)
        except Exception:
            self.inner_optimizer.set_state_dict(before)
            raise

    def __repr__(self):
        return f"LookAhead(inner_optimizer={self.inner_optimizer!r}, alpha={self.alpha}, k={self.k})"
