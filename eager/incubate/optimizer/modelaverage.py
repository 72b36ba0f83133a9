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
        if isinstance(average_window_rate, bool) or not isinstance(average_window_rate, numbers.Real):
            raise TypeError(f"{who}: argument 'average_window_rate' expected a positive float, got "
                            f"{type(average_window_rate).__name__}")
        if not float(average_window_rate) > 0:
            raise ValueError(f"{who}: argument 'average_window_rate' expected a positive float, got "
                             f"{average_window_rate!r}")
        for arg, value in (("min_average_window", min_average_window), ("max_average_window", max_average_window)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{who}: argument '{arg}' expected a positive int, got {type(value).__name__}")
            if value <= 0:
                raise ValueError(f"{who}: argument '{arg}' expected a positive int, got {value!r}")
        if min_average_window > max_average_window:
            raise ValueError(f"{who}: argument 'min_average_window' ({min_average_window}) expected to be at most "
                             f"max_average_window ({max_average_window})")
        super().__init__(learning_rate=1.0, parameters=parameters, name=name)
        self.average_window = float(average_window_rate)
        self.min_average_window, self.max_average_window = int(min_average_window), int(max_average_window)
        self._applied: list = []    # the parameters the last apply() replaced

    def _accumulator_meta(self, name: str, param, scalar: bool) -> tuple:
        if name in _COUNTERS:
            return (1,), DataType.INT64
        return tuple(param.impl.dims), param.impl.dtype  # the sums in the parameter's dtype, as Paddle's

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
        # Every decision is made on the device (where), so a step reads nothing
        # back to the host and eager.jit replays it as it ran.
        sum_1, sum_2, sum_3 = (self._accumulator(name, param) for name in ("sum_1", "sum_2", "sum_3"))
        num_accumulates, old_num, num_updates = (self._accumulator(name, param) for name in _COUNTERS)
        one = _F.full_like(num_updates, 1)
        updates, accumulates = _F.add(num_updates, one), _F.add(num_accumulates, one)
        new_1 = _F.add(sum_1, param)
        move = _F.equal(_F.remainder(updates, _F.full_like(updates, _MAX_NUM_ACCUMULATES)),
                        _F.zeros_like(updates))
        new_2 = _F.where(move, _F.add(sum_2, new_1), sum_2)
        new_1 = _F.where(move, _F.zeros_like(new_1), new_1)
        window = _F.cast(_F.floor(_F.scale(_F.cast(updates, DataType.FLOAT64), self.average_window)),
                         DataType.INT64)
        limit = _F.minimum(_F.full_like(updates, self.max_average_window), window)
        restart = _F.logical_and(_F.greater_equal(accumulates, _F.full_like(updates, self.min_average_window)),
                                 _F.greater_equal(accumulates, limit))
        new_3 = _F.where(restart, _F.add(new_1, new_2), sum_3)
        new_1 = _F.where(restart, _F.zeros_like(new_1), new_1)
        new_2 = _F.where(restart, _F.zeros_like(new_2), new_2)
        new_old = _F.where(restart, accumulates, old_num)
        accumulates = _F.where(restart, _F.zeros_like(accumulates), accumulates)
        for value, target in ((new_1, sum_1), (new_2, sum_2), (new_3, sum_3), (accumulates, num_accumulates),
                              (new_old, old_num), (updates, num_updates)):
            phi_api.assign_out_(value.impl, target.impl)

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
                if ("num_updates", id(param)) not in self._accumulators:
                    continue  # never stepped: the parameter stays as it is
                total = int(self._accumulator("num_accumulates", param).numpy()[0]
                            + self._accumulator("old_num_accumulates", param).numpy()[0])
                if total == 0:
                    continue  # nothing accumulated: the parameter stays as it is
                phi_api.assign_out_(param.impl, self._accumulator("restore", param).impl)
                sums = [self._accumulator(name, param) for name in ("sum_1", "sum_2", "sum_3")]
                summed = _F.add(_F.add(sums[0], sums[1]), sums[2])
                if summed.dtype == DataType.FLOAT16:  # divided in float32, as Paddle's
                    summed = _F.cast(summed, DataType.FLOAT32)
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
        state = super().state_dict()
        state.pop("@lr", None)
        return state

    def __repr__(self):
        return (f"ModelAverage(average_window_rate={self.average_window}, min_average_window="
                f"{self.min_average_window}, max_average_window={self.max_average_window})")
