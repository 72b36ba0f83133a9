"""The step timer behind ``Profiler.step`` / ``step_info`` and the timer-only
summary: per step, the time spent reading batches (``reader_cost``: the
DataLoader's ``__next__`` calls inside the step), the whole step
(``batch_cost``) and the throughput (``ips``: samples, or steps, per second)."""
from __future__ import annotations

import time


class StepTimer:
    """Times the steps between :meth:`begin` and the last :meth:`step`."""

    def __init__(self, sync=None):
        self._sync = sync  # called before reading the clock (a GPU synchronize), or None
        self.steps = []  # (reader_ns, batch_ns, samples or None), one per finished step
        self._window = 0  # index of the first step since the last info()
        self._start = None
        self._reader_ns = 0
        self.reader_used = False  # a DataLoader batch was read since begin()

    def begin(self) -> None:
        self.steps = []
        self._window = 0
        self._reader_ns = 0
        self.reader_used = False
        self._start = self._now()

    def _now(self) -> int:
        if self._sync is not None:
            self._sync()
        return time.perf_counter_ns()

    def add_reader(self, elapsed_ns: int) -> None:
        """Adds the time of one batch read to the current step."""
        self._reader_ns += elapsed_ns
        self.reader_used = True

    def step(self, num_samples=None) -> None:
        """Closes the current step (``num_samples``: the samples it processed,
        or None to count steps) and opens the next."""
        now = self._now()
        if self._start is None:
            self._start = now
            return
        self.steps.append((self._reader_ns, now - self._start, num_samples))
        self._start = now
        self._reader_ns = 0

    @staticmethod
    def _ips(batch_ns: int, samples) -> float:
        seconds = batch_ns / 1e9
        if seconds <= 0:
            return 0.0
        return (1 if samples is None else samples) / seconds

    @staticmethod
    def _unit(steps, unit) -> str:
        counted = any(samples is not None for _, _, samples in steps)
        return f"{unit or 'samples'}/s" if counted else "steps/s"

    def info(self, unit=None) -> str:
        """Averages over the steps since the previous call: reader cost (when
        a DataLoader was read), batch cost (seconds) and ips (total samples or
        steps over total time)."""
        window = self.steps[self._window:]
        self._window = len(self.steps)
        count = max(len(window), 1)
        reader = sum(r for r, _, _ in window) / count / 1e9
        batch = sum(b for _, b, _ in window) / count / 1e9
        total_ns = sum(b for _, b, _ in window)
        done = sum(1 if s is None else s for _, _, s in window)
        ips = done / (total_ns / 1e9) if total_ns > 0 else 0.0
        text = f" reader_cost: {reader:.5f} s" if self.reader_used else ""
        return text + f" batch_cost: {batch:.5f} s ips: {ips:.3f} {self._unit(window, unit)}"

    def summary(self, unit=None) -> str:
        """The table printed when a timer-only profiler stops: avg (totals
        over all steps), max and min of reader cost, batch cost and ips."""
        steps = self.steps
        if not steps:
            return "Perf Summary: no step was timed (call Profiler.step() once per step)"
        count = len(steps)
        readers = [r / 1e9 for r, _, _ in steps]
        batches = [b / 1e9 for _, b, _ in steps]
        ips = [self._ips(b, s) for _, b, s in steps]
        total = sum(batches)
        done = sum(1 if s is None else s for _, _, s in steps)
        rows = []
        if self.reader_used:
            rows.append(("reader_cost", sum(readers) / count, max(readers), min(readers), 5))
        rows.append(("batch_cost", total / count, max(batches), min(batches), 5))
        rows.append(("ips", done / total if total > 0 else 0.0, max(ips), min(ips), 5))
        lines = ["=" * 30 + " Perf Summary " + "=" * 30]
        if self.reader_used:
            lines.append(f"Reader Ratio: {100 * sum(readers) / total if total > 0 else 0.0:.3f}%")
        lines.append(f"Time Unit: s, IPS Unit: {self._unit(steps, unit)}")
        lines.append("|" + "|".join(f"{h:^17}" for h in ("", "avg", "max", "min")) + "|")
        for name, avg, high, low, digits in rows:
            cells = [name] + [f"{v:.{digits}f}" for v in (avg, high, low)]
            lines.append("|" + "|".join(f"{c:^17}" for c in cells) + "|")
        return "\n".join(lines)
