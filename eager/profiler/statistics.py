"""The tables of ``Profiler.summary``: overview by event kind, model phases
(DataLoader, forward, backward, optimizer), operators and user-defined events,
built from a :class:`~eager.profiler.trace_file.ProfilerResult`."""
from __future__ import annotations

import enum

from .events import TracerEventType


class SortedKeys(enum.Enum):
    """The column the operator table is sorted by (largest first; the Min keys
    smallest first, as Paddle). eager times
    ops on the host only, so the GPU keys sort by the matching CPU column."""

    CPUTotal = 0
    CPUAvg = 1
    CPUMax = 2
    CPUMin = 3
    GPUTotal = 4
    GPUAvg = 5
    GPUMax = 6
    GPUMin = 7


class SummaryView(enum.Enum):
    """A table of ``Profiler.summary``. eager fills ``OverView``,
    ``ModelView``, ``OperatorView`` and ``UDFView``; the device, kernel,
    distributed and memory views have no host data and print a note."""

    DeviceView = 0
    OverView = 1
    ModelView = 2
    DistributedView = 3
    KernelView = 4
    OperatorView = 5
    MemoryView = 6
    MemoryManipulationView = 7
    UDFView = 8


TIME_UNITS = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1.0}
HOST_VIEWS = (SummaryView.OverView, SummaryView.ModelView, SummaryView.OperatorView, SummaryView.UDFView)
_USER_KINDS = (TracerEventType.PythonUserDefined, TracerEventType.UserDefined)


class _Stat:
    """Calls and total/max/min duration (ns) of a group of events."""

    __slots__ = ("calls", "total", "high", "low", "inner")

    def __init__(self):
        self.calls, self.total, self.high, self.low = 0, 0, 0, None
        self.inner = None  # {name: _Stat} of the ops called inside (op_detail)

    def add(self, duration: int) -> None:
        self.calls += 1
        self.total += duration
        self.high = max(self.high, duration)
        self.low = duration if self.low is None else min(self.low, duration)

    def key(self, sorted_by: SortedKeys):
        """The sort key in Paddle's order: smallest first for the Min keys, largest first for the others."""
        column = sorted_by.value % 4
        if column == 3:
            return self.low or 0
        return -(self.total, self.total / max(self.calls, 1), self.high)[column]


def _outermost(events) -> list:
    """(event, parent event or None, whether an enclosing event has the same
    kind) per event, nesting found per thread from the start/end times."""
    found = []
    by_thread = {}
    for event in events:
        by_thread.setdefault(event.thread, []).append(event)
    for thread_events in by_thread.values():
        thread_events.sort(key=lambda e: (e.start_ns, -e.end_ns))
        stack = []
        for event in thread_events:
            while stack and stack[-1].end_ns <= event.start_ns:
                stack.pop()
            parent = stack[-1] if stack else None
            nested_in_same = any(outer.kind is event.kind for outer in stack)
            found.append((event, parent, nested_in_same))
            stack.append(event)
    return found


def _table(title: str, header: list, rows: list, unit: str) -> str:
    cells = [header] + rows
    widths = [max(len(str(row[i])) for row in cells) + 2 for i in range(len(header))]
    rule = "  ".join("-" * w for w in widths)
    line = lambda row: "  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip()
    width = len(rule)
    out = [f"{title:-^{width}}", f"Time unit: {unit}", rule, line(header), rule]
    out += [line(row) for row in rows]
    out.append(rule)
    return "\n".join(out)


def _times(stat: _Stat, scale: float) -> list:
    return [f"{stat.total / scale:.3f}", f"{stat.total / max(stat.calls, 1) / scale:.3f}",
            f"{stat.high / scale:.3f}", f"{(stat.low or 0) / scale:.3f}"]


def _ratio(part: float, whole: float) -> str:
    return f"{100 * part / whole:.2f}" if whole > 0 else "0.00"


def _overview(nested, unit: str, scale: float) -> str:
    stats = {}
    for event, _, inside_same in nested:
        if not inside_same:
            stats.setdefault(event.kind, _Stat()).add(event.duration_ns)
    whole = _whole(nested, stats)
    rows = []
    order = [TracerEventType.ProfileStep, TracerEventType.Dataloader, TracerEventType.Forward,
             TracerEventType.Backward, TracerEventType.Optimization, TracerEventType.Operator,
             TracerEventType.PythonUserDefined, TracerEventType.UserDefined]
    for kind in order:
        stat = stats.get(kind)
        if stat is not None:
            indent = "" if kind is TracerEventType.ProfileStep else "  "
            rows.append([indent + kind.name, stat.calls, f"{stat.total / scale:.3f}", _ratio(stat.total, whole)])
    return _table("Overview Summary", ["Event Type", "Calls", "CPU Time", "Ratio (%)"], rows, unit)


def _whole(nested, stats) -> float:
    """The time the ratios are taken of: the recorded steps, else the recorded span."""
    steps = stats.get(TracerEventType.ProfileStep)
    if steps is not None and steps.total > 0:
        return steps.total
    if not nested:
        return 0.0
    return max(e.end_ns for e, _, _ in nested) - min(e.start_ns for e, _, _ in nested)


def _model(nested, unit: str, scale: float) -> str:
    phases = [TracerEventType.Dataloader, TracerEventType.Forward, TracerEventType.Backward,
              TracerEventType.Optimization]
    stats = {}
    for event, _, inside_same in nested:
        if not inside_same and (event.kind in phases or event.kind is TracerEventType.ProfileStep):
            stats.setdefault(event.kind, _Stat()).add(event.duration_ns)
    whole = _whole(nested, stats)
    rows = []
    step = stats.get(TracerEventType.ProfileStep)
    if step is not None:
        rows.append(["ProfileStep", step.calls] + _times(step, scale) + ["100.00"])
    used = 0
    for kind in phases:
        stat = stats.get(kind)
        if stat is not None:
            used += stat.total
            rows.append(["  " + kind.name, stat.calls] + _times(stat, scale) + [_ratio(stat.total, whole)])
    if step is not None:
        rows.append(["  Others", "-", f"{max(step.total - used, 0) / scale:.3f}", "-", "-", "-",
                     _ratio(max(step.total - used, 0), whole)])
    header = ["Name", "Calls", "CPU Total", "Avg", "Max", "Min", "Ratio (%)"]
    return _table("Model Summary", header, rows, unit)


def _grouped(nested, kinds, op_detail: bool) -> dict:
    """{name: _Stat} of the outermost events of ``kinds``; with ``op_detail``
    each keeps, in ``inner``, the events of ``kinds`` called directly inside it."""
    stats = {}
    outermost = {id(event) for event, _, inside_same in nested if event.kind in kinds and not inside_same}
    for event, parent, inside_same in nested:
        if event.kind not in kinds:
            continue
        if not inside_same:
            stats.setdefault(event.name, _Stat()).add(event.duration_ns)
        elif op_detail and parent is not None and id(parent) in outermost:
            holder = stats.setdefault(parent.name, _Stat())
            if holder.inner is None:
                holder.inner = {}
            holder.inner.setdefault(event.name, _Stat()).add(event.duration_ns)
    return stats


def _named_table(title: str, stats: dict, sorted_by: SortedKeys, unit: str, scale: float) -> str:
    whole = sum(stat.total for stat in stats.values())
    rows = []
    for name, stat in sorted(stats.items(), key=lambda item: item[1].key(sorted_by)):
        rows.append([name, stat.calls] + _times(stat, scale) + [_ratio(stat.total, whole)])
        if stat.inner:
            for inner_name, inner in sorted(stat.inner.items(), key=lambda item: item[1].key(sorted_by)):
                rows.append(["  " + inner_name, inner.calls] + _times(inner, scale) + [_ratio(inner.total, whole)])
    header = ["Name", "Calls", "CPU Total", "Avg", "Max", "Min", "Ratio (%)"]
    return _table(title, header, rows, unit)


def build_summary(result, sorted_by: SortedKeys, op_detail: bool, thread_sep: bool, time_unit: str,
                  views) -> str:
    """The summary tables of ``result`` as text (see ``Profiler.summary``)."""
    scale = TIME_UNITS[time_unit]
    nested = _outermost(result.events)
    parts = []
    for view in views:
        if view is SummaryView.OverView:
            parts.append(_overview(nested, time_unit, scale))
        elif view is SummaryView.ModelView:
            parts.append(_model(nested, time_unit, scale))
        elif view in (SummaryView.OperatorView, SummaryView.UDFView):
            kinds = (TracerEventType.Operator,) if view is SummaryView.OperatorView else _USER_KINDS
            title = "Operator Summary" if view is SummaryView.OperatorView else "UserDefined Summary"
            groups = {}
            for item in nested:
                groups.setdefault(item[0].thread if thread_sep else None, []).append(item)
            for thread, items in sorted(groups.items(), key=lambda kv: kv[0] or 0):
                stats = _grouped(items, kinds, op_detail and view is SummaryView.OperatorView)
                if not stats:
                    continue
                heading = title if thread is None else f"{title} (thread {thread})"
                parts.append(_named_table(heading, stats, sorted_by, time_unit, scale))
        else:
            parts.append(f"{view.name}: no data (eager's profiler records host events only)")
    return "\n\n".join(parts)
