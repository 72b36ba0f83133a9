"""paddle.profiler: time training steps and record what runs inside them.

:class:`Profiler` (with :func:`make_scheduler`, :class:`ProfilerState`,
:class:`ProfilerTarget`) records host events: every op and grad node, layer
forwards, backward passes, optimizer steps, DataLoader reads and
:class:`RecordEvent` spans; ``Profiler.summary`` prints tables of them
(:class:`SortedKeys`, :class:`SummaryView`), :func:`export_chrome_tracing`
writes Chrome trace JSON and :func:`load_profiler_result` reads it back. With
``timer_only=True`` it reports reader cost, batch cost and ips per step.
See docs/profiler.md.
"""
from .events import HostEvent, TracerEventType
from .profiler import Profiler, ProfilerTarget, export_chrome_tracing, export_protobuf
from .record_event import RecordEvent
from .scheduler import ProfilerState, make_scheduler
from .statistics import SortedKeys, SummaryView
from .trace_file import ProfilerResult, load_profiler_result

__all__ = [
    "ProfilerState", "ProfilerTarget", "make_scheduler", "export_chrome_tracing", "export_protobuf",
    "Profiler", "RecordEvent", "load_profiler_result", "SortedKeys", "SummaryView",
]
