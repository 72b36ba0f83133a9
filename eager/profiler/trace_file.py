"""A recorded trace (:class:`ProfilerResult`) and its file: Chrome's trace
event format (JSON), which chrome://tracing and Perfetto open. The protobuf
format of Paddle's ``export_protobuf`` needs the protobuf package, which eager
does not use: asking for it is a clear error."""
from __future__ import annotations

import json
import os

from .events import HostEvent, TracerEventType

_FORMAT_TAG = "eager.profiler chrome trace"


class ProfilerResult:
    """The host events of one recorded span of steps (what
    ``Profiler.export`` saves and :func:`load_profiler_result` loads)."""

    def __init__(self, events, pid: int = None):
        self.events = sorted(events, key=lambda e: (e.start_ns, -e.end_ns))
        self.pid = os.getpid() if pid is None else pid

    def get_data(self) -> dict:
        """The events by thread: ``{thread id: [HostEvent, ...]}`` in start order."""
        threads = {}
        for event in self.events:
            threads.setdefault(event.thread, []).append(event)
        return threads

    def save(self, path: str, format: str = "json") -> None:
        """Writes the trace to ``path``; ``format`` 'json' (Chrome trace
        events) or 'pb' (needs protobuf: an error)."""
        if format == "pb":
            raise_no_protobuf("ProfilerResult.save")
        if format != "json":
            raise ValueError(f"ProfilerResult.save: argument 'format' expected 'json' or 'pb', got {format!r}")
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        with open(path, "w") as file:
            json.dump(chrome_trace(self), file)

    def __len__(self) -> int:
        return len(self.events)


def raise_no_protobuf(who: str):
    raise RuntimeError(f"{who}: the protobuf trace format needs the protobuf package and Paddle's trace schema, "
                       "which eager does not use; export Chrome trace JSON instead "
                       "(export_chrome_tracing, or Profiler.export(path, format='json'))")


def chrome_trace(result: ProfilerResult) -> dict:
    """The trace as Chrome's trace event format: one complete event ('ph': 'X',
    'ts' and 'dur' in microseconds from the first event) per host event, and
    the process's and threads' names as metadata events."""
    base = result.events[0].start_ns if result.events else 0
    pid = result.pid
    threads = sorted({event.thread for event in result.events})
    trace = [{"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
              "args": {"name": f"eager host (pid {pid})"}}]
    trace += [{"name": "thread_name", "ph": "M", "pid": pid, "tid": thread, "args": {"name": f"thread {thread}"}}
              for thread in threads]
    for event in result.events:
        trace.append({"name": event.name, "cat": event.kind.name, "ph": "X", "pid": pid, "tid": event.thread,
                      "ts": (event.start_ns - base) / 1e3, "dur": event.duration_ns / 1e3,
                      "args": dict(event.args) if event.args else {}})
    return {"traceEvents": trace, "displayTimeUnit": "ms",
            "otherData": {"format": _FORMAT_TAG, "start_ns": base}}


def load_profiler_result(filename: str) -> ProfilerResult:
    """Loads a trace written by ``export_chrome_tracing`` or
    ``Profiler.export(path, format='json')``, for ``ProfilerResult.get_data``.
    Protobuf traces (``.pb``) need the protobuf package: an error."""
    if not isinstance(filename, (str, os.PathLike)):
        raise TypeError(f"load_profiler_result: argument 'filename' expected a path, got {type(filename).__name__}")
    filename = os.fspath(filename)
    if filename.endswith(".pb"):
        raise_no_protobuf("load_profiler_result")
    if not os.path.isfile(filename):
        raise FileNotFoundError(f"load_profiler_result: no file {filename!r}")
    with open(filename) as file:
        try:
            data = json.load(file)
        except json.JSONDecodeError as error:
            raise ValueError(f"load_profiler_result: {filename!r} is not a JSON trace ({error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("traceEvents"), list):
        raise ValueError(f"load_profiler_result: {filename!r} has no 'traceEvents' list (not a Chrome trace)")
    base = int(data.get("otherData", {}).get("start_ns", 0))
    events, pid = [], None
    for item in data["traceEvents"]:
        if item.get("ph") != "X":
            continue
        pid = item.get("pid", pid)
        kind = TracerEventType.__members__.get(item.get("cat"), TracerEventType.UserDefined)
        start = base + round(float(item["ts"]) * 1e3)
        events.append(HostEvent(item["name"], kind, start, start + round(float(item["dur"]) * 1e3),
                                item.get("tid", 0), item.get("args") or None))
    return ProfilerResult(events, pid)
