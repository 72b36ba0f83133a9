"""``GradScaler`` (also ``AmpScaler``): loss scaling for float16 training,
Paddle 2.x's ``paddle.amp.GradScaler``.

The loss is multiplied by the scale before backward so that small float16
gradients do not flush to zero; before the optimizer steps, the gradients are
divided by it again (``unscale_``) and checked for Inf/NaN. A step with a
non-finite gradient is skipped (parameters, optimizer state and step count stay
as they were). With dynamic loss scaling the scale is multiplied by
``decr_ratio`` after ``decr_every_n_nan_or_inf`` such steps in a row (below
1.0 too, as in Paddle), and by ``incr_ratio`` after ``incr_every_n_steps`` good steps in a row.

>>> scaler = eager.amp.GradScaler(init_loss_scaling=1024)
>>> with eager.amp.auto_cast():
...     loss = model(x).mean()
>>> scaler.scale(loss).backward()
>>> scaler.minimize(opt, scaled)        # or scaler.step(opt); scaler.update()
>>> opt.clear_grad()
"""
from __future__ import annotations

import enum
import math
import numbers

import numpy as np

from phi.common import DataType

from ..arguments import describe, to_bool
from ..autograd.grad_mode import no_grad
from ..generated import forward_api as _F
from ..optimizer.optimizer import Optimizer
from ..tensor import Tensor

class OptimizerState(enum.Enum):
    """Where an optimizer is between two GradScaler updates (Paddle's ``paddle.amp.OptimizerState``)."""
    INIT = 0
    UNSCALED = 1
    STEPPED = 2


_INIT, _UNSCALED, _STEPPED = OptimizerState.INIT, OptimizerState.UNSCALED, OptimizerState.STEPPED


def _positive(who: str, arg: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{who}: argument '{arg}' expected a positive finite float, got {describe(value)}")
    return float(value)


def _ratio(who: str, arg: str, value, above_one: bool) -> float:
    value = _positive(who, arg, value)
    if above_one and value <= 1.0:
        raise ValueError(f"{who}: argument '{arg}' expected a float > 1.0, got {value!r}")
    if not above_one and value >= 1.0:
        raise ValueError(f"{who}: argument '{arg}' expected a float in (0, 1), got {value!r}")
    return value


def _count(who: str, arg: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{who}: argument '{arg}' expected a positive int, got {describe(value)}")
    return int(value)


def _check_optimizer(who: str, optimizer) -> None:
    # A wrapper around an optimizer (fleet's HybridParallelOptimizer) is taken too: it keeps the
    # wrapped one as ``_inner_opt`` and answers for its parameters.
    if not isinstance(optimizer, Optimizer) and not isinstance(getattr(optimizer, "_inner_opt", None), Optimizer):
        raise TypeError(f"{who}: argument 'optimizer' expected an eager.optimizer.Optimizer (or fleet's "
                        f"HybridParallelOptimizer), got {describe(optimizer)}")


def _agreed(optimizer, found: bool) -> bool:
    """Whether any rank found an Inf/NaN, where ``optimizer`` spans several ranks: a wrapper
    with ``_agree_found_inf`` (fleet's HybridParallelOptimizer) answers for every rank, so
    that all of them skip the same steps; otherwise this rank's own answer."""
    agree = getattr(type(optimizer), "_agree_found_inf", None)
    return found if agree is None else bool(agree(optimizer, found))


class AmpScaler:
    """Dynamic (or fixed) loss scaling (see the module docstring) with Paddle's
    AmpScaler defaults (``init_loss_scaling=32768.0``,
    ``incr_every_n_steps=1000``); :class:`GradScaler`, its subclass as in
    Paddle, has Paddle's GradScaler defaults.
    """

    def __init__(self, enable=True, init_loss_scaling=2.0 ** 15, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=1000, decr_every_n_nan_or_inf=1, use_dynamic_loss_scaling=True):
        who = type(self).__name__
        self._enable = to_bool(enable, who, "enable")
        self._init_loss_scaling = _positive(who, "init_loss_scaling", init_loss_scaling)
        self._incr_ratio = _ratio(who, "incr_ratio", incr_ratio, True)
        self._decr_ratio = _ratio(who, "decr_ratio", decr_ratio, False)
        self._incr_every_n_steps = _count(who, "incr_every_n_steps", incr_every_n_steps)
        self._decr_every_n_nan_or_inf = _count(who, "decr_every_n_nan_or_inf", decr_every_n_nan_or_inf)
        self._use_dynamic_loss_scaling = to_bool(use_dynamic_loss_scaling, who, "use_dynamic_loss_scaling")
        self._scale = self._init_loss_scaling  # kept on the host: no device read to scale a loss
        self._incr_count = 0
        self._decr_count = 0
        self._found_inf = False        # the last unscale_'s answer
        self._cache_found_inf = False  # whether the last step was skipped (read by update)
        self._optimizer_states = {}    # id(optimizer) -> _INIT / _UNSCALED / _STEPPED

    # -- the training step ------------------------------------------------------
    def scale(self, var):
        """``var * scale`` (a float16 or bfloat16 loss is cast to float32 first; a
        0-d loss gives shape [1], as Paddle's); the loss itself when the scaler is
        disabled."""
        if not isinstance(var, Tensor):
            raise TypeError(f"{type(self).__name__}.scale: argument 'var' expected a Tensor, got {describe(var)}")
        if not self._enable:
            return var
        if var.impl.dtype is DataType.FLOAT16 or var.impl.dtype is DataType.BFLOAT16:
            var = _F.cast(var, DataType.FLOAT32)
        out = _F.scale(var, self._scale, 0.0, True)
        # Paddle multiplies by its [1]-shaped scale Tensor, so a 0-d loss comes back as [1].
        return _F.reshape(out, [1]) if not var.impl.dims else out

    def unscale_(self, optimizer) -> None:
        """Divides the gradients of ``optimizer``'s parameters by the scale (new
        gradient tensors, set only once all are computed) and records whether
        any is Inf or NaN (one read from the device for all of them). At most
        once per optimizer between update() calls, and before step(). With
        fleet's HybridParallelOptimizer the answer is agreed over every rank
        (any rank's Inf/NaN skips the step everywhere)."""
        who = f"{type(self).__name__}.unscale_"
        _check_optimizer(who, optimizer)
        if not self._enable:
            return
        state = self._optimizer_states.get(id(optimizer), _INIT)
        if state is _UNSCALED:
            raise RuntimeError(f"{who}: unscale_() was already called on this optimizer since the last update()")
        if state is _STEPPED:
            raise RuntimeError(f"{who}: unscale_() called after step(); call update() first")
        params = [p for p in optimizer._parameter_list if not p.stop_gradient and p.grad is not None]
        inverse = 1.0 / self._scale
        with no_grad():
            unscaled = [_F.scale(p.grad, inverse, 0.0, True) for p in params]
            total = None
            for grad in unscaled:  # x * 0 is NaN exactly where x is Inf or NaN
                bad = _F.sum(_F.cast(_F.scale(grad, 0.0, 0.0, True), DataType.FLOAT32), None, None, False)
                total = bad if total is None else _F.add(total, bad)
            found = total is not None and not math.isfinite(float(total.item()))
        found = _agreed(optimizer, found)
        for param, grad in zip(params, unscaled):
            param.grad = grad
        self._found_inf = found
        self._optimizer_states[id(optimizer)] = _UNSCALED

    def step(self, optimizer) -> None:
        """unscale_ (unless done), then ``optimizer.step()`` unless a gradient is
        Inf/NaN (then the step is skipped). Call update() after it (with a fixed
        scale, use_dynamic_loss_scaling=False, step() alone starts the next round)."""
        who = f"{type(self).__name__}.step"
        _check_optimizer(who, optimizer)
        if not self._enable:
            optimizer.step()
            return
        state = self._optimizer_states.get(id(optimizer), _INIT)
        if state is _STEPPED:
            raise RuntimeError(f"{who}: step() was already called on this optimizer since the last update()")
        if state is _INIT:
            self.unscale_(optimizer)
        if self._found_inf:
            self._cache_found_inf = True
        else:
            optimizer.step()
            self._cache_found_inf = False
        self._optimizer_states[id(optimizer)] = _STEPPED
        if not self._use_dynamic_loss_scaling:
            # A fixed scale gives update() nothing to do, so (as in Paddle) a new round starts here:
            # step() in a loop without update() is a fixed-scale training loop.
            del self._optimizer_states[id(optimizer)]

    def update(self) -> None:
        """Adjusts the scale after step() (dynamic loss scaling) and starts a new
        round for every optimizer."""
        if not self._enable:
            return
        if self._use_dynamic_loss_scaling:
            self._update()
        self._optimizer_states = {}

    def minimize(self, optimizer, *args, **kwargs):
        """step() and update() in one call, Paddle's style: unscale_ (unless
        done), ``optimizer.minimize(*args, **kwargs)`` unless a gradient is
        Inf/NaN, then the scale update. Returns the optimizer's
        ``(optimize_ops, params_grads)``; for a skipped step ``([], params_grads)``
        with the pairs that were not applied, as Paddle's."""
        who = f"{type(self).__name__}.minimize"
        _check_optimizer(who, optimizer)
        if not self._enable:
            return optimizer.minimize(*args, **kwargs)
        state = self._optimizer_states.get(id(optimizer), _INIT)
        if state is _STEPPED:
            raise RuntimeError(f"{who}: step() was already called on this optimizer; call update()")
        if state is _INIT:
            self.unscale_(optimizer)
        if self._found_inf:
            self._cache_found_inf = True
            # Paddle hands found_inf to the optimizer's minimize, which skips the update but still
            # returns its ([], params_grads): the pairs that would have been applied
            backward = getattr(optimizer, "backward", None)
            result = (None, None) if backward is None else ([], backward(*args, **kwargs))
        else:
            result = optimizer.minimize(*args, **kwargs)
            self._cache_found_inf = False
        if self._use_dynamic_loss_scaling:
            self._update()
        self._optimizer_states = {}
        return result

    def _update(self) -> None:
        if self._cache_found_inf:
            self._incr_count = 0
            self._decr_count += 1
            if self._decr_count == self._decr_every_n_nan_or_inf:
                # No floor at 1.0 (Paddle's dygraph scaler and torch's have none); only an
                # underflow to 0.0 is refused, as unscale_ divides by the scale.
                shrunk = self._scale * self._decr_ratio
                # Paddle's scaler prints this line (a host float here: no device read).
                print(f"Found inf or nan, current scale is: {float(self._scale)}, decrease to: "
                      f"{float(self._scale)}*{float(self._decr_ratio)}")
                self._scale = shrunk if shrunk > 0.0 else self._scale
                self._decr_count = 0
        else:
            self._decr_count = 0
            self._incr_count += 1
            if self._incr_count == self._incr_every_n_steps:
                grown = self._scale * self._incr_ratio
                self._scale = grown if math.isfinite(grown) else self._scale
                self._incr_count = 0

    # -- settings ---------------------------------------------------------------
    def is_enable(self) -> bool:
        """Whether loss scaling is on."""
        return self._enable

    def is_use_dynamic_loss_scaling(self) -> bool:
        """Whether the scale adapts to Inf/NaN gradients."""
        return self._use_dynamic_loss_scaling

    def get_init_loss_scaling(self) -> float:
        """The initial loss scale given (set_init_loss_scaling changes it)."""
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling) -> None:
        """Sets the initial loss scale and resets the current scale to it."""
        self._init_loss_scaling = _positive(f"{type(self).__name__}.set_init_loss_scaling",
                                            "new_init_loss_scaling", new_init_loss_scaling)
        self._scale = self._init_loss_scaling

    def get_incr_ratio(self) -> float:
        """The factor the scale grows by after incr_every_n_steps good steps."""
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio) -> None:
        """Sets incr_ratio (> 1.0)."""
        self._incr_ratio = _ratio(f"{type(self).__name__}.set_incr_ratio", "new_incr_ratio", new_incr_ratio, True)

    def get_decr_ratio(self) -> float:
        """The factor the scale shrinks by after decr_every_n_nan_or_inf bad steps."""
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio) -> None:
        """Sets decr_ratio (in (0, 1))."""
        self._decr_ratio = _ratio(f"{type(self).__name__}.set_decr_ratio", "new_decr_ratio", new_decr_ratio, False)

    def get_incr_every_n_steps(self) -> int:
        """How many good steps in a row grow the scale."""
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, new_incr_every_n_steps) -> None:
        """Sets incr_every_n_steps (a positive int)."""
        self._incr_every_n_steps = _count(f"{type(self).__name__}.set_incr_every_n_steps",
                                          "new_incr_every_n_steps", new_incr_every_n_steps)

    def get_decr_every_n_nan_or_inf(self) -> int:
        """How many Inf/NaN steps in a row shrink the scale."""
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf) -> None:
        """Sets decr_every_n_nan_or_inf (a positive int)."""
        self._decr_every_n_nan_or_inf = _count(f"{type(self).__name__}.set_decr_every_n_nan_or_inf",
                                               "new_decr_every_n_nan_or_inf", new_decr_every_n_nan_or_inf)

    # -- state ------------------------------------------------------------------
    def state_dict(self) -> dict:
        """The scaler's state (Paddle's keys and types: ``scale`` a float32 array
        of shape [1], as Paddle saves its scale Tensor, so a checkpoint loads in
        either); empty when the scaler is disabled."""
        if not self._enable:
            return {}
        return {
            "scale": np.array([self._scale], dtype=np.float32),
            "incr_ratio": self._incr_ratio,
            "decr_ratio": self._decr_ratio,
            "incr_every_n_steps": self._incr_every_n_steps,
            "decr_every_n_nan_or_inf": self._decr_every_n_nan_or_inf,
            "incr_count": self._incr_count,
            "decr_count": self._decr_count,
            "use_dynamic_loss_scaling": self._use_dynamic_loss_scaling,
        }

    def load_state_dict(self, state_dict) -> None:
        """Restores what state_dict() returned; every entry is checked before any
        is applied. ``scale`` may be a number or a one-element array/Tensor
        (Paddle saves it as an array)."""
        who = f"{type(self).__name__}.load_state_dict"
        if not isinstance(state_dict, dict):
            raise TypeError(f"{who}: argument 'state_dict' expected a dict, got {describe(state_dict)}")
        if not self._enable:  # a disabled scaler keeps no state (Paddle's ignores the dict too)
            return
        if not state_dict:
            raise RuntimeError(f"{who}: the state dict is empty (saved from a disabled GradScaler?)")
        missing = [k for k in ("scale", "incr_ratio", "decr_ratio", "incr_every_n_steps",
                               "decr_every_n_nan_or_inf", "incr_count", "decr_count",
                               "use_dynamic_loss_scaling") if k not in state_dict]
        if missing:
            raise KeyError(f"{who}: the state dict lacks {missing}")
        scale = state_dict["scale"]
        if isinstance(scale, Tensor):
            scale = scale.numpy()
        if hasattr(scale, "size") and getattr(scale, "size", 0) == 1:
            scale = float(scale.reshape(()))
        scale = _positive(who, "state_dict['scale']", scale)
        incr = _ratio(who, "state_dict['incr_ratio']", state_dict["incr_ratio"], True)
        decr = _ratio(who, "state_dict['decr_ratio']", state_dict["decr_ratio"], False)
        every_incr = _count(who, "state_dict['incr_every_n_steps']", state_dict["incr_every_n_steps"])
        every_decr = _count(who, "state_dict['decr_every_n_nan_or_inf']", state_dict["decr_every_n_nan_or_inf"])
        counts = []
        for key in ("incr_count", "decr_count"):
            value = state_dict[key]
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
                raise ValueError(f"{who}: state_dict[{key!r}] expected a non-negative int, got {describe(value)}")
            counts.append(int(value))
        dynamic = to_bool(state_dict["use_dynamic_loss_scaling"], who, "state_dict['use_dynamic_loss_scaling']")
        self._scale = self._init_loss_scaling = scale
        self._incr_ratio, self._decr_ratio = incr, decr
        self._incr_every_n_steps, self._decr_every_n_nan_or_inf = every_incr, every_decr
        self._incr_count, self._decr_count = counts
        self._use_dynamic_loss_scaling = dynamic


class GradScaler(AmpScaler):
    """Dynamic (or fixed) loss scaling; see the module docstring.

    Arguments and defaults are Paddle's: ``enable=True``,
    ``init_loss_scaling=65536.0`` (2**16), ``incr_ratio=2.0``,
    ``decr_ratio=0.5``, ``incr_every_n_steps=2000``,
    ``decr_every_n_nan_or_inf=1``, ``use_dynamic_loss_scaling=True``. A
    disabled scaler passes everything through (``scale`` returns the loss,
    ``step`` / ``minimize`` call the optimizer's).
    """

    def __init__(self, enable=True, init_loss_scaling=2.0 ** 16, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=2000, decr_every_n_nan_or_inf=1, use_dynamic_loss_scaling=True):
        super().__init__(enable, init_loss_scaling, incr_ratio, decr_ratio, incr_every_n_steps,
                         decr_every_n_nan_or_inf, use_dynamic_loss_scaling)
