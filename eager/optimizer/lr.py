"""Learning-rate schedules (Paddle 2.x's ``paddle.optimizer.lr``).

A scheduler holds the epoch (or step) count ``last_epoch`` and the rate for
it, ``last_lr``; ``scheduler()`` returns the rate and ``scheduler.step()``
advances by one, as Paddle's do. Give one as an optimizer's
``learning_rate`` and the optimizer reads it on every step:

>>> scheduler = eager.optimizer.lr.StepDecay(learning_rate=0.1, step_size=10, gamma=0.5)
>>> opt = eager.optimizer.SGD(learning_rate=scheduler, parameters=model.parameters())
>>> for epoch in range(30):
...     train_one_epoch(model, opt)
...     scheduler.step()          # 0.1 for epochs 0-9, 0.05 for 10-19, 0.025 after

Each schedule is its formula in a few lines (``get_lr``), as Paddle writes
them; ``step(epoch)`` jumps to an epoch, using the closed form where a
schedule is defined recursively (CosineAnnealingDecay). ``state_dict()`` /
``set_state_dict()`` round-trip the counters and the current rate, so a
resumed run continues with the same rates; a bad state dict raises an error
naming the key and changes nothing.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..errors import StateDictKeyError

__all__ = [
    "CosineAnnealingDecay", "CosineAnnealingWarmRestarts", "CyclicLR", "ExponentialDecay", "InverseTimeDecay",
    "LRScheduler", "LambdaDecay", "LinearLR", "LinearWarmup", "MultiStepDecay", "MultiplicativeDecay", "NaturalExpDecay",
    "NoamDecay", "OneCycleLR", "PiecewiseDecay", "PolynomialDecay", "ReduceOnPlateau", "StepDecay",
]


def _number(who: str, arg: str, value, *, positive=False, non_negative=False, integer=False) -> float:
    kinds = (numbers.Integral, np.integer) if integer else (numbers.Real, np.floating, np.integer)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, kinds) or not math.isfinite(value):
        raise TypeError(f"{who}: argument '{arg}' expected a finite {'int' if integer else 'float'}, "
                        f"got {value!r}")
    if positive and not value > 0:
        raise ValueError(f"{who}: argument '{arg}' expected a value > 0, got {value!r}")
    if non_negative and not value >= 0:
        raise ValueError(f"{who}: argument '{arg}' expected a value >= 0, got {value!r}")
    return int(value) if integer else float(value)


def _epoch(who: str, value, non_negative: bool = False, arg: str = "epoch"):
    """An epoch given to ``step(epoch)``: an int, or a finite float (a fractional
    epoch, ``step(epoch + i / iters)``), which Paddle's schedules take too."""
    if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return _number(who, arg, value, non_negative=non_negative, integer=True)
    return _number(who, arg, value, non_negative=non_negative)


def _period(who: str, arg: str, value) -> int:
    """A period count of CosineAnnealingWarmRestarts: a positive int. A float
    (even 2.0) is a wrong value there, a ValueError as in Paddle; a non-number
    stays a TypeError."""
    if isinstance(value, (numbers.Real, np.floating)) and not isinstance(value, (numbers.Integral, np.integer)):
        raise ValueError(f"{who}: argument '{arg}' expected a positive int, got {value!r}")
    return _number(who, arg, value, positive=True, integer=True)


def _choice(who: str, arg: str, value, options: tuple) -> str:
    """value, one of the strings in options; any other value (an array too)
    raises a ValueError naming the argument."""
    if not isinstance(value, str) or value not in options:
        listed = " or ".join(repr(o) for o in options) if len(options) == 2 else \
            ", ".join(repr(o) for o in options[:-1]) + f" or {options[-1]!r}"
        raise ValueError(f"{who}: argument '{arg}' expected {listed}, got {_short(value)}")
    return value


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class LRScheduler:
    """Base class: ``learning_rate`` is the initial rate (``base_lr``);
    subclasses define :meth:`get_lr` from ``last_epoch``, ``base_lr`` and
    ``last_lr``. Construction takes the first step, so ``last_epoch`` is 0
    (or ``last_epoch + 1`` when resuming) and ``last_lr`` its rate."""

    # Attributes saved by state_dict (subclasses add their own counters).
    keys = ("last_epoch", "last_lr")
    # Saved by eager but not by Paddle: a Paddle state dict without them loads.
    _optional_keys = ()

    def __init__(self, learning_rate=0.1, last_epoch: int = -1, verbose: bool = False):
        who = type(self).__name__
        # >= 0 as Paddle's base class checks (a negative rate would surface at some later step)
        self.base_lr = _number(who, "learning_rate", learning_rate, non_negative=True)
        self.last_lr = self.base_lr
        self.last_epoch = _number(who, "last_epoch", last_epoch, integer=True)
        if not isinstance(verbose, bool):
            raise TypeError(f"{who}: argument 'verbose' expected a bool, got {verbose!r}")
        self.verbose = verbose
        self.step()

    def __call__(self) -> float:
        """The current learning rate."""
        return self.last_lr

    def step(self, epoch=None) -> None:
        """Advances to the next epoch (or to ``epoch``) and updates ``last_lr``."""
        if epoch is None:
            self.last_epoch += 1
            lr = self.get_lr()
        else:
            self.last_epoch = _epoch(f"{type(self).__name__}.step", epoch)
            closed_form = getattr(self, "_get_closed_form_lr", None)
            lr = closed_form() if closed_form is not None else self.get_lr()
        self.last_lr = _checked_rate(type(self).__name__, self.last_epoch, lr, self.base_lr)
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.")

    def get_lr(self) -> float:
        """The rate for ``last_epoch``; every schedule defines it (the base
        class raises NotImplementedError, as Paddle's)."""
        raise NotImplementedError(f"{type(self).__name__}: an LRScheduler subclass must define get_lr()")

    # -- state ----------------------------------------------------------------
    def state_keys(self) -> None:
        """Sets ``self.keys``, the attributes :meth:`state_dict` saves and
        :meth:`set_state_dict` restores (called by both first, as Paddle's). A
        subclass with more state overrides it:

        >>> class Warm(eager.optimizer.lr.LRScheduler):
        ...     def __init__(self, learning_rate):
        ...         self.seen = 0
        ...         super().__init__(learning_rate)
        ...     def get_lr(self):
        ...         self.seen += 1
        ...         return self.base_lr
        ...     def state_keys(self):
        ...         self.keys = ["last_epoch", "last_lr", "seen"]
        """
        self.keys = type(self).keys

    def state_dict(self) -> dict:
        """The counters and the current rate (plain Python numbers)."""
        self.state_keys()
        state = {}
        for key in self.keys:
            value = getattr(self, key)
            state[key] = value.item() if isinstance(value, np.generic) else value
        return state

    def set_state_dict(self, state_dict: dict) -> None:
        """Restores :meth:`state_dict`'s result; checks every entry first."""
        self._apply(self._staged(state_dict))

    set_dict = set_state_dict  # Paddle's older name

    def _staged(self, state_dict) -> dict:
        who = f"{type(self).__name__}.set_state_dict"
        if not isinstance(state_dict, dict):
            raise TypeError(f"{who}: argument 'state_dict' expected a dict, got {type(state_dict).__name__}")
        self.state_keys()
        staged = {}
        for key in self.keys:
            if key not in state_dict:
                if key in self._optional_keys:
                    continue
                raise StateDictKeyError(f"{who}: argument 'state_dict' has no entry {key!r} "
                                        f"(expected the keys {list(self.keys)}, got {list(state_dict)})")
            value = state_dict[key]
            current = getattr(self, key)
            if current is None or value is None:
                staged[key] = value
            elif key in ("last_epoch", "T_cur"):  # fractional after step(epoch=<float>)
                staged[key] = _epoch(who, value, arg=key)
            elif isinstance(current, (int, np.integer)) and not isinstance(current, bool):
                staged[key] = _number(who, key, value, integer=True)
            else:
                staged[key] = _number(who, key, value)
        return staged

    def _apply(self, staged: dict) -> None:
        for key, value in staged.items():
            setattr(self, key, value)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(last_epoch={self.last_epoch}, last_lr={self.last_lr})"


def _checked_rate(who: str, epoch: int, lr, base_lr: float = 1.0) -> float:
    """lr as a float, checked: finite and >= 0. A schedule computed step to step
    from the previous rate (LinearLR, CosineAnnealingDecay) may land a rounding
    error below a rate of 0 (LinearLR to end_factor=0 gives -1e-17): within
    1e-12 of the schedule's scale that is 0.0, not an error."""
    if isinstance(lr, (numbers.Real, np.floating, np.integer)) and not isinstance(lr, (bool, np.bool_)) \
            and -1e-12 * max(1.0, abs(base_lr)) <= lr < 0:
        return 0.0
    if isinstance(lr, (bool, np.bool_)) or not isinstance(lr, (numbers.Real, np.floating, np.integer)) \
            or not math.isfinite(lr) or lr < 0:
        raise ValueError(f"{who}: the learning rate for epoch {epoch} is {lr!r}; it must be a finite "
                         f"float >= 0")
    return float(lr)


class NoamDecay(LRScheduler):
    """The Transformer's schedule: ``lr * d_model^-0.5 * min(t^-0.5, t * warmup_steps^-1.5)``
    (t = last_epoch; at t = 0 the first term counts as 1)."""

    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        self.d_model = _number("NoamDecay", "d_model", d_model, positive=True)
        self.warmup_steps = _number("NoamDecay", "warmup_steps", warmup_steps, positive=True)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        a = 1.0 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * self.d_model ** -0.5 * min(a, b)


class PiecewiseDecay(LRScheduler):
    """``values[i]`` while ``last_epoch < boundaries[i]``, then the last value;
    ``len(values) == len(boundaries) + 1``."""

    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        who = "PiecewiseDecay"
        if not isinstance(boundaries, (list, tuple)) or not isinstance(values, (list, tuple)):
            raise TypeError(f"{who}: arguments 'boundaries' and 'values' expected lists, got "
                            f"{type(boundaries).__name__} and {type(values).__name__}")
        if len(values) != len(boundaries) + 1:
            raise ValueError(f"{who}: 'values' must have one more entry than 'boundaries', got "
                             f"{len(values)} values and {len(boundaries)} boundaries")
        # epochs may be fractional (step(epoch + i / iters)), so a boundary may be too, as in Paddle
        self.boundaries = [_epoch(who, b, arg="boundaries") for b in boundaries]
        if self.boundaries != sorted(self.boundaries):
            raise ValueError(f"{who}: 'boundaries' must be increasing, got {list(boundaries)}")
        self.values = [_number(who, "values", v, non_negative=True) for v in values]
        super().__init__(self.values[0], last_epoch, verbose)

    def get_lr(self):
        for boundary, value in zip(self.boundaries, self.values):
            if self.last_epoch < boundary:
                return value
        return self.values[-1]


class NaturalExpDecay(LRScheduler):
    """``lr * exp(-gamma * last_epoch)``, ``gamma > 0`` (as Paddle: a decay)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _number("NaturalExpDecay", "gamma", gamma, positive=True)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """``lr / (1 + gamma * last_epoch)``."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _number("InverseTimeDecay", "gamma", gamma, non_negative=True)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """From ``learning_rate`` to ``end_lr`` over ``decay_steps`` as
    ``(lr - end_lr) * (1 - t / decay_steps) ** power + end_lr``; after
    ``decay_steps`` it stays at ``end_lr``, or with ``cycle=True`` restarts with
    ``decay_steps`` stretched to the next multiple."""

    def __init__(self, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False, last_epoch=-1,
                 verbose=False):
        who = "PolynomialDecay"
        self.decay_steps = _number(who, "decay_steps", decay_steps, positive=True, integer=True)
        self.end_lr = _number(who, "end_lr", end_lr, non_negative=True)
        self.power = _number(who, "power", power, positive=True)
        if not isinstance(cycle, bool):
            raise TypeError(f"{who}: argument 'cycle' expected a bool, got {cycle!r}")
        self.cycle = cycle
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        t, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            steps = steps * max(1, math.ceil(t / steps))
        else:
            t = min(t, steps)
        return (self.base_lr - self.end_lr) * (1 - t / steps) ** self.power + self.end_lr


class LinearWarmup(LRScheduler):
    """Rises linearly from ``start_lr`` to ``end_lr`` over ``warmup_steps``,
    then follows ``learning_rate``: a float, or another scheduler stepped to
    ``last_epoch - warmup_steps``."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1, verbose=False):
        who = "LinearWarmup"
        if isinstance(learning_rate, LRScheduler):
            self.learning_rate = learning_rate
        else:
            self.learning_rate = _number(who, "learning_rate", learning_rate, non_negative=True)
        self.warmup_steps = _number(who, "warmup_steps", warmup_steps, positive=True, integer=True)
        self.start_lr = _number(who, "start_lr", start_lr, non_negative=True)
        self.end_lr = _number(who, "end_lr", end_lr, non_negative=True)
        if self.end_lr <= self.start_lr:  # a warmup rises, as Paddle asserts
            raise ValueError(f"LinearWarmup: argument 'end_lr' expected a rate greater than start_lr "
                             f"({_short(start_lr)}), got {_short(end_lr)}")
        super().__init__(start_lr, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * self.last_epoch / self.warmup_steps + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return self.learning_rate

    def state_dict(self):
        state = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            state["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return state

    def _staged(self, state_dict):
        staged = super()._staged(state_dict)
        if isinstance(self.learning_rate, LRScheduler):
            if "LinearWarmup_LR" not in state_dict:
                raise StateDictKeyError("LinearWarmup.set_state_dict: argument 'state_dict' has no entry "
                                        "'LinearWarmup_LR' (the state of the schedule it warms up)")
            staged["LinearWarmup_LR"] = self.learning_rate._staged(state_dict["LinearWarmup_LR"])
        return staged

    def _apply(self, staged):
        inner = staged.pop("LinearWarmup_LR", None)
        super()._apply(staged)
        if inner is not None:
            self.learning_rate._apply(inner)


class ExponentialDecay(LRScheduler):
    """``lr * gamma ** last_epoch``, ``0 < gamma < 1`` (as Paddle: a decay)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _number("ExponentialDecay", "gamma", gamma, positive=True)
        if self.gamma >= 1.0:
            raise ValueError(f"ExponentialDecay: argument 'gamma' expected a value in (0, 1), got {gamma!r}")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** self.last_epoch


class MultiStepDecay(LRScheduler):
    """``lr * gamma ** (number of milestones <= last_epoch)``."""

    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        who = "MultiStepDecay"
        if not isinstance(milestones, (list, tuple)):
            raise TypeError(f"{who}: argument 'milestones' expected a list of ints, got "
                            f"{type(milestones).__name__}")
        self.milestones = [_number(who, "milestones", m, integer=True) for m in milestones]
        if any(b <= a for a, b in zip(self.milestones, self.milestones[1:])):
            raise ValueError(f"{who}: 'milestones' must be strictly increasing, got {list(milestones)}")
        self.gamma = _number(who, "gamma", gamma, positive=True)
        if self.gamma >= 1.0:
            raise ValueError(f"{who}: argument 'gamma' expected a value < 1.0, got {gamma!r}")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        passed = sum(1 for m in self.milestones if self.last_epoch >= m)
        return self.base_lr * self.gamma ** passed


class StepDecay(LRScheduler):
    """``lr * gamma ** (last_epoch // step_size)``."""

    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        who = "StepDecay"
        self.step_size = _number(who, "step_size", step_size, positive=True, integer=True)
        self.gamma = _number(who, "gamma", gamma, positive=True)
        if self.gamma >= 1.0:
            raise ValueError(f"{who}: argument 'gamma' expected a value < 1.0, got {gamma!r}")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class LambdaDecay(LRScheduler):
    """``lr * lr_lambda(last_epoch)``."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError(f"LambdaDecay: argument 'lr_lambda' expected a function, got "
                            f"{type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """``lr * lr_lambda(1) * lr_lambda(2) * ... * lr_lambda(last_epoch)``: each
    step multiplies the rate by ``lr_lambda`` of the new epoch. As in Paddle
    the product is taken from ``learning_rate`` at every step, so
    ``step(epoch)`` and a resuming ``last_epoch`` give the rate of that epoch."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError(f"MultiplicativeDecay: argument 'lr_lambda' expected a function, got "
                            f"{type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        rate = self.base_lr
        for epoch in range(1, self.last_epoch + 1):
            rate = rate * self.lr_lambda(epoch)
        return rate


class CosineAnnealingDecay(LRScheduler):
    """Cosine from ``learning_rate`` down to ``eta_min`` over ``T_max`` epochs
    (then back up, periodically), computed recursively from the previous rate
    as Paddle does; ``step(epoch)`` uses the closed form
    ``eta_min + (lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2``."""

    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        who = "CosineAnnealingDecay"
        self.T_max = _number(who, "T_max", T_max, positive=True, integer=True)
        self.eta_min = _number(who, "eta_min", eta_min, non_negative=True)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        t, T = self.last_epoch, self.T_max
        if t == 0:
            return self.base_lr
        if (t - 1 - T) % (2 * T) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (1 - math.cos(math.pi / T)) / 2
        return ((1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
                * (self.last_lr - self.eta_min) + self.eta_min)

    def _get_closed_form_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every ``T_i`` epochs, the period starting at
    ``T_0`` and multiplied by ``T_mult`` after each restart (SGDR)."""

    keys = ("last_epoch", "last_lr", "T_cur", "T_i")
    _optional_keys = ("T_cur", "T_i")  # Paddle saves neither

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        who = "CosineAnnealingWarmRestarts"
        self.T_0 = _period(who, "T_0", T_0)
        self.T_mult = _period(who, "T_mult", T_mult)
        self.eta_min = _number(who, "eta_min", eta_min, non_negative=True)
        self.T_i = self.T_0
        self.T_cur = _number(who, "last_epoch", last_epoch, integer=True)
        super().__init__(learning_rate, last_epoch, verbose)

    def step(self, epoch=None):
        if epoch is None:
            if self.last_epoch >= 0:  # the constructor's step starts the first period at 0
                self.T_cur += 1
                if self.T_cur >= self.T_i:
                    self.T_cur -= self.T_i
                    self.T_i *= self.T_mult
            else:
                self.T_cur = 0
            super().step()
            return
        epoch = _epoch(f"{type(self).__name__}.step", epoch, non_negative=True)
        if epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur, self.T_i = epoch % self.T_0, self.T_0
            else:
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) // (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        else:
            self.T_cur, self.T_i = epoch, self.T_0
        super().step(math.floor(epoch))  # a fractional epoch moves T_cur only, as Paddle's

    def get_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    _get_closed_form_lr = get_lr


class OneCycleLR(LRScheduler):
    """The one-cycle policy: from ``max_learning_rate / divide_factor`` up to
    ``max_learning_rate`` over the first ``phase_pct`` of ``total_steps``, then
    down to ``end_learning_rate`` (with ``three_phase``: back down to the start
    first, then to the end), annealed by cosine or linearly."""

    def __init__(self, max_learning_rate, total_steps, divide_factor=25.0, end_learning_rate=0.0001,
                 phase_pct=0.3, anneal_strategy="cos", three_phase=False, last_epoch=-1, verbose=False):
        who = "OneCycleLR"
        max_lr = _number(who, "max_learning_rate", max_learning_rate, non_negative=True)
        self.total_steps = _number(who, "total_steps", total_steps, positive=True, integer=True)
        divide_factor = _number(who, "divide_factor", divide_factor, positive=True)
        end_lr = _number(who, "end_learning_rate", end_learning_rate, non_negative=True)
        phase_pct = _number(who, "phase_pct", phase_pct)
        if not isinstance(three_phase, bool):
            raise TypeError(f"{who}: argument 'three_phase' expected a bool, got {_short(three_phase)}")
        if not 0 < phase_pct < (0.5 if three_phase else 1.0):
            raise ValueError(f"{who}: argument 'phase_pct' expected a value in (0, "
                             f"{0.5 if three_phase else 1.0}), got {phase_pct!r}")
        _choice(who, "anneal_strategy", anneal_strategy, ("cos", "linear"))
        self.anneal_strategy = anneal_strategy
        initial = max_lr / divide_factor
        up_end = phase_pct * self.total_steps - 1
        if three_phase:
            self._phases = ((up_end, initial, max_lr), (2 * up_end, max_lr, initial),
                            (self.total_steps - 1, initial, end_lr))
        else:
            self._phases = ((up_end, initial, max_lr), (self.total_steps - 1, max_lr, end_lr))
        super().__init__(initial, last_epoch, verbose)

    def get_lr(self):
        t = self.last_epoch
        if t > self.total_steps:
            raise ValueError(f"OneCycleLR: stepped {t} times, beyond total_steps={self.total_steps}")
        start = 0
        for i, (end, start_lr, end_lr) in enumerate(self._phases):
            if t <= end or i == len(self._phases) - 1:
                # The step after the last (t == total_steps, which Paddle allows) stays at the end rate.
                pct = min((t - start) / (end - start), 1.0) if end != start else 1.0
                if self.anneal_strategy == "cos":
                    return end_lr + (start_lr - end_lr) / 2 * (1 + math.cos(math.pi * pct))
                return (end_lr - start_lr) * pct + start_lr
            start = end
        raise AssertionError("unreachable: the last phase always answers")


class CyclicLR(LRScheduler):
    """Cycles between ``base_learning_rate`` and ``max_learning_rate``:
    ``step_size_up`` steps up, ``step_size_down`` (default: as many) down;
    the amplitude scaled per cycle by ``mode`` ('triangular': 1,
    'triangular2': halves each cycle, 'exp_range': ``exp_gamma ** iterations``)
    or by a given ``scale_fn``."""

    def __init__(self, base_learning_rate, max_learning_rate, step_size_up, step_size_down=None,
                 mode="triangular", exp_gamma=1.0, scale_fn=None, scale_mode="cycle", last_epoch=-1,
                 verbose=False):
        who = "CyclicLR"
        _number(who, "base_learning_rate", base_learning_rate, non_negative=True)
        self.max_lr = _number(who, "max_learning_rate", max_learning_rate, non_negative=True)
        up = _number(who, "step_size_up", step_size_up, positive=True, integer=True)
        down = up if step_size_down is None else _number(who, "step_size_down", step_size_down,
                                                         positive=True, integer=True)
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.exp_gamma = _number(who, "exp_gamma", exp_gamma, positive=True)
        _choice(who, "scale_mode", scale_mode, ("cycle", "iterations"))  # checked always, as Paddle
        if scale_fn is None:
            _choice(who, "mode", mode, ("triangular", "triangular2", "exp_range"))
            self.scale_fn = {"triangular": lambda x: 1.0, "triangular2": lambda x: 1 / (2.0 ** (x - 1)),
                             "exp_range": lambda x: self.exp_gamma ** x}[mode]
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        else:
            if not callable(scale_fn):
                raise TypeError(f"{who}: argument 'scale_fn' expected a function, got {type(scale_fn).__name__}")
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        self.mode = mode
        super().__init__(base_learning_rate, last_epoch, verbose)

    def get_lr(self):
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        pct = 1.0 + iterations / self.cycle_size - cycle
        scale = pct / self.step_up_pct if pct <= self.step_up_pct else (1 - pct) / (1 - self.step_up_pct)
        height = (self.max_lr - self.base_lr) * scale
        return self.base_lr + height * self.scale_fn(cycle if self.scale_mode == "cycle" else iterations)


class ReduceOnPlateau(LRScheduler):
    """Multiplies the rate by ``factor`` when ``metrics`` (passed to
    ``step(metrics)``) stop improving for more than ``patience`` steps, then
    waits ``cooldown`` steps; never below ``min_lr``. ``mode='min'`` wants the
    metric to fall, 'max' to rise; improvement is relative (``threshold_mode
    ='rel'``: beyond ``best * (1 -+ threshold)``) or absolute."""

    keys = ("cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr")

    def __init__(self, learning_rate, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        who = "ReduceOnPlateau"
        _choice(who, "mode", mode, ("min", "max"))
        _choice(who, "threshold_mode", threshold_mode, ("rel", "abs"))
        self.mode, self.threshold_mode = mode, threshold_mode
        self.factor = _number(who, "factor", factor, positive=True)
        if self.factor >= 1.0:
            raise ValueError(f"{who}: argument 'factor' expected a value < 1.0, got {factor!r}")
        self.patience = _number(who, "patience", patience, non_negative=True, integer=True)
        self.threshold = _number(who, "threshold", threshold, non_negative=True)
        self.cooldown = _number(who, "cooldown", cooldown, non_negative=True, integer=True)
        self.min_lr = _number(who, "min_lr", min_lr, non_negative=True)
        self.epsilon = _number(who, "epsilon", epsilon, non_negative=True)
        self.cooldown_counter = 0
        self.best = None
        self.num_bad_epochs = 0
        self.base_lr = self.last_lr = _number(who, "learning_rate", learning_rate, non_negative=True)
        self.last_epoch = 0
        if not isinstance(verbose, bool):
            raise TypeError(f"{who}: argument 'verbose' expected a bool, got {verbose!r}")
        self.verbose = verbose

    def step(self, metrics, epoch=None):
        """Records ``metrics`` (a number or a one-element Tensor/array) for this
        step and lowers the rate if it has not improved for long enough."""
        who = "ReduceOnPlateau.step"
        current = _metric_value(who, metrics)
        if epoch is None:
            self.last_epoch += 1
        else:
            self.last_epoch = _epoch(who, epoch)
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                if self.verbose:
                    print(f"Epoch {self.last_epoch}: ReduceOnPlateau set learning rate to {self.last_lr}.")

    def _is_better(self, current, best) -> bool:
        if self.mode == "min":
            bound = best - best * self.threshold if self.threshold_mode == "rel" else best - self.threshold
            return current < bound
        bound = best + best * self.threshold if self.threshold_mode == "rel" else best + self.threshold
        return current > bound

    def get_lr(self):
        return self.last_lr


def _metric_value(who: str, metrics) -> float:
    if isinstance(metrics, (bool, np.bool_)):
        raise TypeError(f"{who}: argument 'metrics' expected a number or a one-element tensor, got {metrics!r}")
    if isinstance(metrics, (numbers.Real, np.floating, np.integer)):
        value = float(metrics)
    else:
        array = metrics.numpy() if hasattr(metrics, "numpy") else metrics
        if not isinstance(array, np.ndarray) or array.size != 1 or array.dtype.kind not in "iuf":
            raise TypeError(f"{who}: argument 'metrics' expected a number or a one-element tensor, got "
                            f"{type(metrics).__name__}{' of shape ' + str(list(array.shape)) if isinstance(array, np.ndarray) else ''}")
        value = float(array.reshape(()))
    if not math.isfinite(value):
        raise ValueError(f"{who}: argument 'metrics' is {value}; a plateau needs finite values")
    return value


class LinearLR(LRScheduler):
    """Scales the rate linearly from ``learning_rate * start_factor`` to
    ``learning_rate * end_factor`` over ``total_steps`` steps, then keeps it
    (Paddle's ``LinearLR``): ``lr * (start + (end - start) * min(epoch, total_steps)
    / total_steps)``, computed step to step from the previous rate as Paddle does.

    >>> s = eager.optimizer.lr.LinearLR(0.5, total_steps=4, start_factor=0.5, end_factor=1.0)
    >>> rates = []
    >>> for _ in range(6):
    ...     rates.append(s()); s.step()
    >>> rates
    [0.25, 0.3125, 0.375, 0.4375, 0.5, 0.5]
    """

    def __init__(self, learning_rate, total_steps, start_factor=1.0 / 3, end_factor=1.0, last_epoch=-1,
                 verbose=False):
        who = "LinearLR"
        self.start_factor = _number(who, "start_factor", start_factor)
        if not 0.0 < self.start_factor <= 1.0:
            raise ValueError(f"{who}: argument 'start_factor' expected a value in (0, 1], got {start_factor!r}")
        self.end_factor = _number(who, "end_factor", end_factor)
        if not 0.0 <= self.end_factor <= 1.0:
            raise ValueError(f"{who}: argument 'end_factor' expected a value in [0, 1], got {end_factor!r}")
        self.total_steps = _number(who, "total_steps", total_steps, positive=True, integer=True)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        change = self.end_factor - self.start_factor
        return self.last_lr * (1.0 + change / (self.total_steps * self.start_factor
                                               + (self.last_epoch - 1) * change))

    def _get_closed_form_lr(self):
        done = min(max(self.last_epoch, 0), self.total_steps) / self.total_steps
        return self.base_lr * (self.start_factor + (self.end_factor - self.start_factor) * done)


# -- the function forms (Paddle's fluid-era names, kept in paddle.optimizer.lr) --------------
# Each returns the scheduler above that computes its formula; step it as any scheduler.

def noam_decay(d_model, warmup_steps, learning_rate=1.0):
    """The Transformer's schedule as a function: ``NoamDecay(d_model,
    warmup_steps, learning_rate)``.

    >>> s = eager.optimizer.lr.noam_decay(d_model=64, warmup_steps=4000)
    >>> type(s).__name__
    'NoamDecay'
    """
    return NoamDecay(d_model, warmup_steps, learning_rate=learning_rate)


def polynomial_decay(learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False):
    """``PolynomialDecay(learning_rate, decay_steps, end_learning_rate, power,
    cycle)``: from ``learning_rate`` to ``end_learning_rate`` over
    ``decay_steps`` steps."""
    return PolynomialDecay(learning_rate, decay_steps, end_lr=end_learning_rate, power=power, cycle=cycle)


def piecewise_decay(boundaries, values):
    """``PiecewiseDecay(boundaries, values)``: ``values[i]`` until step
    ``boundaries[i]``, then the last value."""
    return PiecewiseDecay(boundaries, values)


def cosine_decay(learning_rate, step_each_epoch, epochs):
    """Cosine decay over ``epochs`` epochs: ``CosineAnnealingDecay(learning_rate,
    T_max=epochs)``, which gives ``learning_rate * (1 + cos(pi * epoch / epochs)) / 2``
    when stepped once per epoch. ``step_each_epoch`` (a positive int) is checked
    and not used, as in Paddle's dynamic graph: the scheduler counts epochs.

    >>> s = eager.optimizer.lr.cosine_decay(0.1, step_each_epoch=100, epochs=10)
    >>> s.step(5); round(s(), 6)
    0.05
    """
    _number("cosine_decay", "step_each_epoch", step_each_epoch, positive=True, integer=True)
    return CosineAnnealingDecay(learning_rate, T_max=epochs)


def linear_lr_warmup(learning_rate, warmup_steps, start_lr, end_lr):
    """``LinearWarmup(learning_rate, warmup_steps, start_lr, end_lr)``: linear
    from ``start_lr`` to ``end_lr`` over ``warmup_steps``, then
    ``learning_rate`` (a float or another scheduler)."""
    return LinearWarmup(learning_rate, warmup_steps, start_lr, end_lr)


def _decay_period(who: str, decay_steps, staircase) -> int:
    if not isinstance(staircase, bool):
        raise TypeError(f"{who}: argument 'staircase' expected a bool, got {staircase!r}")
    return _number(who, "decay_steps", decay_steps, positive=True, integer=True)


def exponential_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    """``learning_rate * decay_rate ** (step / decay_steps)``, the exponent
    floored with ``staircase=True``: an ``ExponentialDecay`` with
    ``gamma = decay_rate ** (1 / decay_steps)``, or a ``StepDecay``-like
    ``LambdaDecay`` for the staircase.

    >>> s = eager.optimizer.lr.exponential_decay(0.1, decay_steps=10, decay_rate=0.5)
    >>> s.step(10); round(s(), 6)
    0.05
    """
    who = "exponential_decay"
    period = _decay_period(who, decay_steps, staircase)
    rate = _number(who, "decay_rate", decay_rate, positive=True)
    if rate >= 1.0:  # Paddle's ExponentialDecay takes a decay only
        raise ValueError(f"{who}: argument 'decay_rate' expected a value in (0, 1), got {decay_rate!r}")
    if staircase:
        return LambdaDecay(learning_rate, lambda step: rate ** (step // period))
    return ExponentialDecay(learning_rate, rate ** (1.0 / period))


def natural_exp_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    """``learning_rate * exp(-decay_rate * step / decay_steps)``, the ratio
    floored with ``staircase=True``: a ``NaturalExpDecay`` with
    ``gamma = decay_rate / decay_steps``, or a ``LambdaDecay`` for the staircase."""
    who = "natural_exp_decay"
    period = _decay_period(who, decay_steps, staircase)
    rate = _number(who, "decay_rate", decay_rate, positive=True)  # Paddle's NaturalExpDecay: gamma > 0
    if staircase:
        return LambdaDecay(learning_rate, lambda step: math.exp(-rate * (step // period)))
    return NaturalExpDecay(learning_rate, rate / period)


def inverse_time_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    """``learning_rate / (1 + decay_rate * step / decay_steps)``, the ratio
    floored with ``staircase=True``: an ``InverseTimeDecay`` with
    ``gamma = decay_rate / decay_steps``, or a ``LambdaDecay`` for the staircase."""
    who = "inverse_time_decay"
    period = _decay_period(who, decay_steps, staircase)
    rate = _number(who, "decay_rate", decay_rate, non_negative=True)
    if staircase:
        return LambdaDecay(learning_rate, lambda step: 1.0 / (1.0 + rate * (step // period)))
    return InverseTimeDecay(learning_rate, rate / period)
