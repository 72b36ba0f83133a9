"""``Profiler``: times training steps and records what ran inside them (ops,
grad nodes, layer calls, backward passes, optimizer steps, DataLoader reads,
``RecordEvent`` spans) on the host, for a summary table and a Chrome trace."""
from __future__ import annotations

import datetime
import enum
import importlib
import json
import os
import socket
import time
import warnings

from ..autograd.op_modes import MODES
from ..device import synchronize
from ..framework import get_device
from . import utils
from .events import TracerEventType
from .recorder import Recorder
from .scheduler import ProfilerState, always_record, make_scheduler
from .statistics import TIME_UNITS, SortedKeys, SummaryView, HOST_VIEWS, build_summary
from .step_timer import StepTimer
from .trace_file import ProfilerResult, raise_no_protobuf


class ProfilerTarget(enum.Enum):
    """What a profiler watches. eager records host events for ``CPU``; with
    ``GPU`` (and the default device a GPU) it synchronizes the device before
    reading the clock after each op and step, so host times include the GPU
    work."""

    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM_DEVICE = 3


_RECORDING = (ProfilerState.RECORD, ProfilerState.RECORD_AND_RETURN)


def _trace_path(dir_name: str, worker_name, suffix: str) -> str:
    if worker_name is None:
        worker_name = f"host_{socket.gethostname()}pid_{os.getpid()}"
    stamp = datetime.datetime.now().strftime("%Y_%m_%d_%H_%M_%S_%f")  # microseconds, as Paddle names traces
    return os.path.join(dir_name, f"{worker_name}_time_{stamp}{suffix}")


def _check_dir(who: str, dir_name, worker_name) -> None:
    if not isinstance(dir_name, (str, os.PathLike)):
        raise TypeError(f"{who}: argument 'dir_name' expected a directory path, got {type(dir_name).__name__}")
    if worker_name is not None and not isinstance(worker_name, str):
        raise TypeError(f"{who}: argument 'worker_name' expected a str or None, got {type(worker_name).__name__}")


def export_chrome_tracing(dir_name: str, worker_name: str = None):
    """An ``on_trace_ready`` callback that writes each recorded trace as Chrome
    trace JSON to ``dir_name`` (made if missing), in a file named
    ``{worker_name}_time_{timestamp}.paddle_trace.json`` (``worker_name``
    defaults to the host name and process id). Open it in chrome://tracing or
    https://ui.perfetto.dev.

    >>> from eager import profiler
    >>> with profiler.Profiler(on_trace_ready=profiler.export_chrome_tracing("./trace")) as prof:
    ...     prof.step()
    """
    _check_dir("export_chrome_tracing", dir_name, worker_name)
    dir_name = os.fspath(dir_name)

    def handle(prof) -> None:
        prof.export(_trace_path(dir_name, worker_name, ".paddle_trace.json"), format="json")

    return handle


def export_protobuf(dir_name: str, worker_name: str = None):
    """Paddle's protobuf trace writer. eager has no protobuf trace format (it
    would need the protobuf package and Paddle's trace schema): this raises a
    RuntimeError saying to use :func:`export_chrome_tracing` instead."""
    _check_dir("export_protobuf", dir_name, worker_name)
    raise_no_protobuf("export_protobuf")


def _gpu_sync(targets):
    """The synchronize that GPU timing needs, or None (CPU only)."""
    if ProfilerTarget.GPU in targets and get_device().startswith("gpu"):
        return synchronize
    return None


def _targets(targets) -> tuple:
    if targets is None:
        return (ProfilerTarget.CPU, ProfilerTarget.GPU) if get_device().startswith("gpu") else (ProfilerTarget.CPU,)
    if isinstance(targets, ProfilerTarget):
        targets = [targets]
    if not isinstance(targets, (list, tuple, set)):
        raise TypeError(f"Profiler: argument 'targets' expected a list of ProfilerTarget, "
                        f"got {type(targets).__name__}")
    for target in targets:
        if not isinstance(target, ProfilerTarget):
            raise TypeError(f"Profiler: argument 'targets' expected ProfilerTarget members, got {target!r}")
        if target in (ProfilerTarget.XPU, ProfilerTarget.CUSTOM_DEVICE):
            raise ValueError(f"Profiler: argument 'targets': eager profiles CPU and GPU only, got {target}")
    return tuple(targets)


def _scheduler(scheduler):
    if scheduler is None:
        return always_record
    if isinstance(scheduler, (tuple, list)):
        if len(scheduler) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in scheduler):
            raise TypeError(f"Profiler: argument 'scheduler' as a tuple expected (start_step, end_step) ints, "
                            f"got {scheduler!r}")
        start, end = scheduler
        start = max(start, 0)  # Paddle reads a negative start as 0
        if not start < end:
            raise ValueError(f"Profiler: argument 'scheduler' expected start_step < end_step with end_step > 0, "
                             f"got {scheduler!r}")
        # Steps [start, end) recorded once: closed until start - 1, one ready step before.
        return make_scheduler(closed=max(start - 1, 0), ready=1 if start > 0 else 0, record=end - start, repeat=1)
    if not callable(scheduler):
        raise TypeError(f"Profiler: argument 'scheduler' expected a callable, a (start, end) tuple or None, "
                        f"got {type(scheduler).__name__}")
    return scheduler


class Profiler:
    """Times steps and records the host events inside them.

    Call :meth:`start`, then :meth:`step` at the end of every training step,
    then :meth:`stop` (or use ``with Profiler(...) as prof:``). The
    ``scheduler`` picks the recorded steps: None records every step, a
    ``(start, end)`` tuple records steps ``start`` to ``end - 1``, or a
    function of the step number returning a :class:`ProfilerState` (see
    :func:`make_scheduler`). When a recorded span ends (``RECORD_AND_RETURN``,
    or :meth:`stop` while recording) ``on_trace_ready(prof)`` runs: by default
    :func:`export_chrome_tracing` into ``./profiler_log/`` (a span left from
    ``RECORD`` to ``CLOSED``/``READY`` is dropped with a warning, as Paddle). Then
    :meth:`summary` prints tables and :meth:`export` writes the trace.

    ``timer_only=True`` records nothing: :meth:`step_info` and the table
    printed at :meth:`stop` give reader cost, batch cost and ips.
    ``record_shapes`` adds each op's input shapes and dtypes to its event.
    ``profile_memory``, ``emit_nvtx``, ``custom_device_types`` and
    ``with_flops`` are accepted for Paddle code and record nothing more.

    While the profiler records, every op goes through the ops' shared mode
    check (``eager.autograd.op_modes``) to be timed; when no profiler records
    that check costs what it did before.

    >>> from eager import profiler
    >>> prof = profiler.Profiler(scheduler=(1, 3), on_trace_ready=lambda p: None)
    >>> prof.start()
    >>> for step in range(4):
    ...     y = eager.ones([2, 2]).matmul(eager.ones([2, 2]))
    ...     prof.step()
    >>> prof.stop()
    >>> prof.summary(views=profiler.SummaryView.OperatorView)  # doctest: +SKIP
    """

    def __init__(self, *, targets=None, scheduler=None, on_trace_ready=None, record_shapes: bool = False,
                 profile_memory: bool = False, timer_only: bool = False, emit_nvtx: bool = False,
                 custom_device_types=None, with_flops: bool = False):
        self.targets = _targets(targets)
        self.scheduler = _scheduler(scheduler)
        if on_trace_ready is not None and not callable(on_trace_ready):
            raise TypeError(f"Profiler: argument 'on_trace_ready' expected a callable or None, "
                            f"got {type(on_trace_ready).__name__}")
        self.on_trace_ready = export_chrome_tracing("./profiler_log/") if on_trace_ready is None else on_trace_ready
        for name, value in (("record_shapes", record_shapes), ("profile_memory", profile_memory),
                            ("timer_only", timer_only), ("emit_nvtx", emit_nvtx), ("with_flops", with_flops)):
            if not isinstance(value, bool):
                raise TypeError(f"Profiler: argument '{name}' expected a bool, got {type(value).__name__}")
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.timer_only = timer_only
        self.with_flops = with_flops
        sync = _gpu_sync(self.targets)
        self._timer = StepTimer(sync)
        self._recorder = Recorder(self._timer, record_shapes, sync)
        self.step_num = 0
        self.current_state = ProfilerState.CLOSED
        self.profiler_result = None
        self._step_start = None
        self._started = False
        self._unit = None

    # -- lifecycle ------------------------------------------------------------
    def start(self) -> None:
        """Starts timing steps and, in a recorded step, recording events."""
        if self._started:
            raise RuntimeError("Profiler.start: the profiler is already started; call stop() first")
        if MODES.recorder is not None:
            raise RuntimeError("Profiler.start: another profiler is running in this process; stop it first")
        # The scheduler is asked first: a bad state it returns leaves the profiler unstarted.
        state = None if self.timer_only else self._state(0)
        self._started = True
        self.step_num = 0
        self._timer.begin()
        self._recorder.events = []
        if self.timer_only:
            MODES.set_recorder(self._recorder, time_ops=False)
            return
        utils._is_profiler_used = True
        self._enter(state)

    def stop(self) -> None:
        """Stops timing and recording; a trace being recorded goes to
        ``on_trace_ready``. A timer-only profiler prints its step table."""
        if not self._started:
            raise RuntimeError("Profiler.stop: the profiler is not started; call start() first")
        recorded = not self.timer_only and self.current_state in _RECORDING
        if recorded:
            self._close_step()
        self._recorder.recording = False
        MODES.set_recorder(None, time_ops=False)
        utils._is_profiler_used = False
        self._started = False
        self.current_state = ProfilerState.CLOSED
        if recorded:
            self._hand_over(self._recorder.events)
        if self.timer_only:
            print(self._timer.summary(self._unit))

    def step(self, num_samples: int = None) -> None:
        """Ends the current step (``num_samples``: how many samples it
        processed, for ips) and moves the scheduler to the next."""
        if num_samples is not None and (isinstance(num_samples, bool) or not isinstance(num_samples, int)
                                        or num_samples < 0):
            raise ValueError(f"Profiler.step: argument 'num_samples' expected an int >= 0 or None, "
                             f"got {num_samples!r}")
        if not self._started:
            raise RuntimeError("Profiler.step: the profiler is not started; call start() first")
        self._timer.step(num_samples)
        if self.timer_only:
            self.step_num += 1
            return
        previous = self.current_state
        if previous in _RECORDING:
            self._close_step()
        state = self._state(self.step_num + 1)
        self.step_num += 1
        finished = None
        if previous is ProfilerState.RECORD_AND_RETURN:
            finished, self._recorder.events = self._recorder.events, []
        elif previous is ProfilerState.RECORD and state not in _RECORDING:
            # As Paddle: only RECORD_AND_RETURN (or stop) returns a trace; a scheduler that
            # goes from RECORD to CLOSED/READY drops the span.
            warnings.warn(f"Improper schedule: RECORD->{state.name}, profiler will not save data "
                          f"(end a recorded span with RECORD_AND_RETURN)", stacklevel=2)
            self._recorder.events = []
        self._enter(state)
        if finished is not None:  # last: an error in on_trace_ready leaves the profiler in a sound state
            self._hand_over(finished)

    def step_info(self, unit: str = None) -> str:
        """Reader cost, batch cost and ips averaged over the steps since the
        previous call (ips in ``unit``/s when :meth:`step` got
        ``num_samples``, else steps/s)."""
        if unit is not None and not isinstance(unit, str):
            raise TypeError(f"Profiler.step_info: argument 'unit' expected a str or None, got {type(unit).__name__}")
        self._unit = unit
        return self._timer.info(unit)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- results --------------------------------------------------------------
    def export(self, path: str = "", format: str = "json") -> None:
        """Writes the last recorded trace to ``path``: 'json' for Chrome trace
        events; 'pb' (Paddle's protobuf) is not available in eager."""
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"Profiler.export: argument 'path' expected a file path, got {type(path).__name__}")
        if not os.fspath(path):
            raise ValueError(f"Profiler.export: argument 'path' expected a file path, got {path!r}")
        if format not in ("json", "pb"):
            raise ValueError(f"Profiler.export: argument 'format' expected 'json' or 'pb', got {format!r}")
        if format == "pb":
            raise_no_protobuf("Profiler.export")
        self._result("Profiler.export").save(os.fspath(path), format)

    def summary(self, sorted_by=SortedKeys.CPUTotal, op_detail: bool = True, thread_sep: bool = False,
                time_unit: str = "ms", views=None) -> None:
        """Prints tables of the last recorded trace: an overview by event
        kind, the model's phases (DataLoader, Forward, Backward, Optimization
        and the rest of each step), operators (``op_detail``: with the ops each
        called) and :class:`RecordEvent` spans; ``views`` picks tables (a
        :class:`SummaryView` or a list of them), ``thread_sep`` splits the
        operator and user tables by thread, ``sorted_by`` orders them."""
        if not isinstance(sorted_by, SortedKeys):
            raise TypeError(f"Profiler.summary: argument 'sorted_by' expected a SortedKeys member, got {sorted_by!r}")
        if time_unit not in TIME_UNITS:
            raise ValueError(f"Profiler.summary: argument 'time_unit' expected one of {sorted(TIME_UNITS)}, "
                             f"got {time_unit!r}")
        if views is None:
            views = list(HOST_VIEWS)
        elif isinstance(views, SummaryView):
            views = [views]
        elif not isinstance(views, (list, tuple)) or not all(isinstance(v, SummaryView) for v in views):
            raise TypeError(f"Profiler.summary: argument 'views' expected a SummaryView or a list of them, "
                            f"got {views!r}")
        result = self._result("Profiler.summary")
        print(build_summary(result, sorted_by, bool(op_detail), bool(thread_sep), time_unit, views))

    def _result(self, who: str) -> ProfilerResult:
        if self.profiler_result is None:
            raise RuntimeError(f"{who}: nothing was recorded yet (a trace is ready after a recorded step "
                               f"range ends or the profiler stops while recording)")
        return self.profiler_result

    # -- steps ----------------------------------------------------------------
    def _state(self, step: int) -> ProfilerState:
        state = self.scheduler(step)
        if not isinstance(state, ProfilerState):
            raise TypeError(f"Profiler: the scheduler returned {state!r} for step {step}, "
                            f"expected a ProfilerState")
        return state

    def _enter(self, state: ProfilerState) -> None:
        self.current_state = state
        recording = state in _RECORDING
        self._recorder.recording = recording
        MODES.set_recorder(self._recorder, time_ops=recording)
        self._step_start = time.perf_counter_ns()

    def _close_step(self) -> None:
        self._recorder.add_event(f"ProfileStep#{self.step_num}", TracerEventType.ProfileStep,
                                 self._step_start, time.perf_counter_ns())

    def _hand_over(self, events) -> None:
        self.profiler_result = ProfilerResult(events)
        self.on_trace_ready(self)


def _config_callable(entry: dict):
    """The callable a get_profiler config entry ``{name: {"module", "use_direct", "args",
    "kwargs"}}`` names (called with its arguments unless ``use_direct``). A Paddle module
    path (``paddle.profiler``) is read as eager's (``eager.profiler``)."""
    for name, spec in entry.items():
        module_path = spec["module"]
        if module_path == "paddle" or module_path.startswith("paddle."):
            module_path = "eager" + module_path[len("paddle"):]
        method = getattr(importlib.import_module(module_path), name)
        return method if spec["use_direct"] else method(*spec["args"], **spec["kwargs"])
    return None


def get_profiler(config_path) -> Profiler:
    """A Profiler made from the JSON file at ``config_path``, as Paddle's: keys
    ``targets`` (["CPU", "GPU"]), ``scheduler`` ([start, end] or a callable entry
    ``{"make_scheduler": {"module": "paddle.profiler", "use_direct": false, "args": [],
    "kwargs": {...}}}``), ``on_trace_ready`` (a callable entry) and ``timer_only`` (a
    bool). As in Paddle, an unreadable file or a bad key is not an error: a warning
    names it and the default is used.

    >>> prof = get_profiler("profiler_config.json")   # doctest: +SKIP
    """
    try:
        with open(config_path) as handle:
            config = json.load(handle)
    except (OSError, TypeError, ValueError) as error:
        warnings.warn(f"get_profiler: cannot read the config file {config_path!r} ({error}); "
                      f"using the default parameters", stacklevel=2)
        return Profiler()
    kwargs = {}
    if "targets" in config:
        try:
            names = {"cpu": ProfilerTarget.CPU, "gpu": ProfilerTarget.GPU}
            kwargs["targets"] = [names[t.lower()] for t in config["targets"] if t.lower() in names]
        except (AttributeError, TypeError):
            warnings.warn(f"get_profiler: bad 'targets' {config['targets']!r}; using the default", stacklevel=2)
    for key in ("scheduler", "on_trace_ready"):
        if key not in config:
            continue
        value = config[key]
        try:
            if isinstance(value, dict):
                kwargs[key] = _config_callable(value)
            elif key == "scheduler":
                kwargs[key] = (value[0], value[1])
            else:
                raise TypeError(f"expected a callable entry, got {type(value).__name__}")
        except Exception as error:  # any broken entry falls back to the default, as in Paddle
            kwargs.pop(key, None)
            warnings.warn(f"get_profiler: bad {key!r} ({type(error).__name__}: {error}); using the default",
                          stacklevel=2)
    if "timer_only" in config:
        if isinstance(config["timer_only"], bool):
            kwargs["timer_only"] = config["timer_only"]
        else:
            warnings.warn(f"get_profiler: 'timer_only' expected a bool, got {config['timer_only']!r}; "
                          f"using the default", stacklevel=2)
    return Profiler(**kwargs)
