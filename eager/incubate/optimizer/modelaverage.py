"""Paddle's ``paddle.incubate.optimizer.ModelAverage``: keeps running sums of
the parameters over a sliding window of steps and swaps the averages in for
evaluation (``apply()``), restoring the trained values afterwards."""
from __future__ import annotations

import contextlib
import numbers

from phi import api as phi_api
from phi.common import DataType

from ...autograd.grad_mode import no_grad
from ...generated import forward_api as _F
from ...optimizer.optimizer import Optimizer

# Paddle's kMaxNumAccumulates: every this many updates sum_1 moves into sum_2,
# so no running sum collects too many terms.
_MAX_NUM_ACCUMULATES = 16384
_COUNTERS = ("num_accumulates", "old_num_accumulates", "num_updates")


class ModelAverage(Optimizer):
    """Averages each parameter over a window of recent steps. ``step()`` (after
    the real optimizer's step) adds the parameters into running sums; the
    window restarts once it holds at least ``min_average_window`` steps and at
    least ``min(max_average_window, int(num_updates * average_window_rate))``,
    the last full window being kept. ``apply()`` is a context manager that
    writes ``(sum_1 + sum_2 + sum_3) / (num_accumulates + old_num_accumulates)``
    into the parameters and restores them on exit (``need_restore=True``);
    ``restore()`` does that by hand. State-dict keys are Paddle's
    (``<param>_sum_1_0``, ``<param>_num_updates_0``, ...).

    >>> linear = eager.nn.Linear(2, 1)
    >>> avg = eager.incubate.optimizer.ModelAverage(0.15, parameters=linear.parameters(),
    ...                                             min_average_window=2, max_average_window=10)
    >>> linear(eager.ones([3, 2])).mean().backward()
    >>> avg.step()
    >>> with avg.apply():
    ...     pass
    """

    _accumulator_specs = (("sum_1", 0.0, False), ("sum_2", 0.0, False), ("sum_3", 0.0, False),
                          ("num_accumulates", 0, True), ("old_num_accumulates", 0, True), ("num_updates", 0, True),
                          ("restore", 0.0, False))

    def __init__(self, average_window_rate, parameters=None, min_average_window=10000, max_average_window=10000,
                 name=None):
        who = "ModelAverage"
        if isinstance(average_window_rate, bool) or not isinstance(average_window_rate, numbers.Real) \
                or not float(average_window_rate) > 0:
            raise ValueError(f"{who}: argument 'average_window_rate' expected a positive float, got "
                             f"{average_window_rate!r}")
        for arg, value in (("min_average_window", min_average_window), ("max_average_window", max_average_window)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
                raise ValueError(f"{who}: argument '{arg}' expected a positive int, got {value!r}")
        if min_average_window > max_average_window:
            raise ValueError(f"{who}: argument 'min_average_window' ({min_average_window}) expected to be at most "
                             f"max_average_window ({max_average_window})")
        super().__init__(learning_rate=1.0, parameters=parameters, name=name)
        self.average_window = float(average_window_rate)
        self.min_average_window, self.max_average_window = int(min_average_window), int(max_average_window)
        self._counts: dict = {}     # id(param) -> [num_accumulates, old_num_accumulates, num_updates]
        self._applied: list = []    # the parameters the last apply() replaced

    def _accumulator_meta(self, name: str, param, scalar: bool) -> tuple:
        if name in _COUNTERS:
            return (1,), DataType.INT64
        return super()._accumulator_meta(name, param, scalar)

    def get_lr(self) -> float:
        """0.0: ModelAverage updates no parameter by gradient (as Paddle's)."""
        return 0.0

    @no_grad()
    def step(self) -> None:
        """Adds every parameter that has a gradient into its running sums."""
        for param in self._parameter_list:
            if param.stop_gradient or param.grad is None:
                continue
            self._accumulate(param)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """:meth:`step` (Paddle's dygraph ``minimize``); returns None."""
        self.step()

    def _accumulate(self, param) -> None:
        sums = [self._accumulator(name, param) for name in ("sum_1", "sum_2", "sum_3")]
        counts = self._counts.setdefault(id(param), [0, 0, 0])
        counts[0] += 1
        counts[2] += 1
        num_accumulates, num_updates = counts[0], counts[2]
        sum_1 = _F.add(sums[0], param)
        sum_2 = sums[1]
        if num_updates % _MAX_NUM_ACCUMULATES == 0:
            sum_2, sum_1 = _F.add(sum_2, sum_1), _F.zeros_like(sum_1)
        if num_accumulates >= self.min_average_window and num_accumulates >= min(
                self.max_average_window, int(num_updates * self.average_window)):
            phi_api.assign_out_(_F.add(sum_1, sum_2).impl, sums[2].impl)
            sum_1, sum_2 = _F.zeros_like(sum_1), _F.zeros_like(sum_2)
            counts[1], counts[0] = num_accumulates, 0
        phi_api.assign_out_(sum_1.impl, sums[0].impl)
        if sum_2 is not sums[1]:
            phi_api.assign_out_(sum_2.impl, sums[1].impl)

    @contextlib.contextmanager
    def apply(self, executor=None, need_restore=True):
        """Replaces each parameter that has accumulated steps by its average for
        the ``with`` block; restores the trained values on exit when
        ``need_restore`` (else call :meth:`restore`)."""
        if not isinstance(need_restore, bool):
            raise TypeError(f"ModelAverage.apply: argument 'need_restore' expected a bool, got {need_restore!r}")
        with no_grad():
            self._applied = []
            for param in self._parameter_list:
                counts = self._counts.get(id(param))
                total = 0 if counts is None else counts[0] + counts[1]
                if total == 0:
                    continue  # nothing accumulated: the parameter stays as it is
                phi_api.assign_out_(param.impl, self._accumulator("restore", param).impl)
                sums = [self._accumulator(name, param) for name in ("sum_1", "sum_2", "sum_3")]
                summed = _F.add(_F.add(sums[0], sums[1]), sums[2])
                average = _F.divide(summed, _F.full_like(summed, float(total)))
                phi_api.assign_out_(_F.cast(average, param.dtype).impl, param.impl)
                self._applied.append(param)
        try:
            yield
        finally:
            if need_restore:
                self.restore()

    @no_grad()
    def restore(self, executor=None) -> None:
        """Writes back the values the last :meth:`apply` replaced."""
        for param in self._applied:
            phi_api.assign_out_(self._accumulator("restore", param).impl, param.impl)
        self._applied = []

    def state_dict(self) -> dict:
        """The running sums and counters under Paddle's keys, and ``@step``."""
        for param in self._parameter_list:
            counts = self._counts.get(id(param))
            if counts is not None:
                for name, value in zip(_COUNTERS, counts):
                    target = self._accumulator(name, param).impl
                    phi_api.assign_out_(phi_api.full((1,), value, DataType.INT64, target.place), target)
        state = super().state_dict()
        state.pop("@lr", None)
        return state

    def set_state_dict(self, state_dict) -> None:
        """Restores :meth:`state_dict`'s result (checked first, as Optimizer's)."""
        super().set_state_dict(state_dict)
        for param in self._parameter_list:
            if ("num_updates", id(param)) in self._accumulators:
                self._counts[id(param)] = [int(self._accumulator(name, param).numpy()[0]) for name in _COUNTERS]

    def __repr__(self):
        return (f"ModelAverage(average_window_rate={self.average_window}, min_average_window="
                f"{self.min_average_window}, max_average_window={self.max_average_window})")
