"""eager.profiler: the scheduler's states, what a recording profiler collects
(ops, grad nodes, layer forwards, backward, optimizer, DataLoader, RecordEvent
spans), the step timer against known sleeps, the summary tables, the Chrome
trace file (schema, nesting, round trip) and the errors."""
import json
import re
import threading
import time

import numpy as np
import pytest

import eager
from eager import profiler
from eager.autograd.op_modes import MODES
from eager.profiler import ProfilerState, TracerEventType


@pytest.fixture(autouse=True)
def no_profiler_left():
    active = MODES.active
    yield
    assert MODES.recorder is None, "a test left a profiler running"
    assert MODES.active == active


def keep():
    """An on_trace_ready that keeps each result."""
    results = []

    def handle(prof):
        results.append(prof.profiler_result)
    handle.results = results
    return handle


def names(result, kind=TracerEventType.Operator):
    return [e.name for e in result.events if e.kind is kind]


# -- scheduler ------------------------------------------------------------------
def test_make_scheduler_cycles_through_its_states():
    C, R, REC, RET = ProfilerState.CLOSED, ProfilerState.READY, ProfilerState.RECORD, ProfilerState.RECORD_AND_RETURN
    schedule = profiler.make_scheduler(closed=1, ready=1, record=4, repeat=1)
    assert [schedule(s) for s in range(8)] == [C, R, REC, REC, REC, RET, C, C]
    schedule = profiler.make_scheduler(closed=1, ready=1, record=2, skip_first=2)
    assert [schedule(s) for s in range(10)] == [C, C, C, R, REC, RET, C, R, REC, RET]


@pytest.mark.parametrize("kwargs, error", [
    (dict(closed=1.0, ready=1, record=1), TypeError),
    (dict(closed=True, ready=1, record=1), TypeError),
    (dict(closed=-1, ready=1, record=1), ValueError),
    (dict(closed=0, ready=0, record=0), ValueError),
    (dict(closed=0, ready=0, record=1, repeat=-2), ValueError),
])
def test_make_scheduler_checks_its_arguments(kwargs, error):
    with pytest.raises(error, match="make_scheduler: argument"):
        profiler.make_scheduler(**kwargs)


def test_make_scheduler_takes_keywords_only():
    with pytest.raises(TypeError):
        profiler.make_scheduler(1, 1, 1)


# -- what is recorded ------------------------------------------------------------
def test_only_the_scheduled_steps_are_recorded():
    handle = keep()
    ops = [eager.exp, eager.tanh, eager.sin, eager.cos, eager.abs, eager.floor]
    x = eager.ones([3])
    with profiler.Profiler(scheduler=(2, 4), on_trace_ready=handle) as prof:
        for op in ops:
            op(x)
            prof.step()
    assert len(handle.results) == 1
    result = handle.results[0]
    assert names(result, TracerEventType.ProfileStep) == ["ProfileStep#2", "ProfileStep#3"]
    assert names(result) == ["sin", "cos"]
    # every op lies inside a recorded step
    steps = [e for e in result.events if e.kind is TracerEventType.ProfileStep]
    for event in result.events:
        if event.kind is TracerEventType.Operator:
            assert any(s.start_ns <= event.start_ns and event.end_ns <= s.end_ns for s in steps)


def test_a_repeating_scheduler_hands_over_each_span_and_stop_the_last():
    handle = keep()
    x = eager.ones([2])
    prof = profiler.Profiler(scheduler=profiler.make_scheduler(closed=0, ready=0, record=2), on_trace_ready=handle)
    prof.start()
    for _ in range(5):
        eager.exp(x)
        prof.step()
    prof.stop()  # steps 4 and 5 were recording: handed over at stop
    assert [len(names(r)) for r in handle.results] == [2, 2, 1]
    assert names(handle.results[1], TracerEventType.ProfileStep) == ["ProfileStep#2", "ProfileStep#3"]
    assert names(handle.results[2], TracerEventType.ProfileStep) == ["ProfileStep#4", "ProfileStep#5"]


def test_training_step_spans_and_grad_nodes_are_recorded():
    eager.seed(1)
    net = eager.nn.Linear(4, 3)
    opt = eager.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    x = eager.rand([5, 4])
    handle = keep()
    with profiler.Profiler(on_trace_ready=handle) as prof:
        loss = net(x).sum()
        loss.backward()
        opt.step()
        prof.step()
    result = handle.results[0]
    kinds = {e.kind: e.name for e in result.events}
    assert kinds[TracerEventType.Forward] == net._full_name
    assert kinds[TracerEventType.Backward] == "backward"
    assert kinds[TracerEventType.Optimization] == "SGD.step"
    ops = names(result)
    assert "linear" in ops and "sum" in ops
    assert "linear_grad" in ops and "sum_grad" in ops  # grad nodes are timed as ops
    forward = next(e for e in result.events if e.kind is TracerEventType.Forward)
    linear = next(e for e in result.events if e.name == "linear")
    assert forward.start_ns <= linear.start_ns and linear.end_ns <= forward.end_ns


def test_gradients_are_the_same_under_the_profiler():
    x_np = np.array([0.5, -1.5, 2.0])
    x = eager.to_tensor(x_np, dtype="float64", stop_gradient=False)
    with profiler.Profiler(on_trace_ready=keep()):
        y = (x * x * x).sum()
        (g,) = eager.grad(y, x, create_graph=True)
        g.sum().backward()
    np.testing.assert_allclose(g.numpy(), 3 * x_np ** 2)
    np.testing.assert_allclose(x.grad.numpy(), 6 * x_np)


def test_record_shapes_keeps_input_shapes_and_dtypes():
    handle = keep()
    a, b = eager.ones([2, 3]), eager.ones([3, 4])
    with profiler.Profiler(on_trace_ready=handle, record_shapes=True):
        eager.matmul(a, b)
    event = next(e for e in handle.results[0].events if e.name == "matmul")
    assert event.args["input_shapes"] == [[2, 3], [3, 4]]
    assert event.args["input_dtypes"] == ["float32", "float32"]


def test_ops_of_other_threads_are_recorded_with_their_thread():
    handle = keep()
    x = eager.ones([2])
    with profiler.Profiler(on_trace_ready=handle):
        worker = threading.Thread(target=lambda: eager.tanh(x))
        worker.start()
        worker.join()
        eager.exp(x)
    events = {e.name: e.thread for e in handle.results[0].events if e.kind is TracerEventType.Operator}
    assert events["exp"] == threading.get_native_id()
    assert events["tanh"] != events["exp"]


def test_record_event_marks_user_spans():
    handle = keep()

    @profiler.RecordEvent("decorated")
    def work():
        return eager.exp(eager.ones([2]))

    with profiler.Profiler(on_trace_ready=handle):
        with profiler.RecordEvent("block"):
            eager.tanh(eager.ones([2]))
        event = profiler.RecordEvent("manual")
        event.begin()
        event.end()
        work()
    result = handle.results[0]
    assert names(result, TracerEventType.PythonUserDefined) == ["block", "manual", "decorated"]
    block = next(e for e in result.events if e.name == "block")
    tanh = next(e for e in result.events if e.name == "tanh")
    assert block.start_ns <= tanh.start_ns and tanh.end_ns <= block.end_ns


def test_record_event_without_a_profiler_records_nothing():
    with profiler.RecordEvent("alone"):
        eager.ones([1])
    event = profiler.RecordEvent("never begun")
    event.end()  # no begin: nothing happens


def test_record_event_checks_its_arguments():
    with pytest.raises(TypeError, match="RecordEvent: argument 'name' expected a str"):
        profiler.RecordEvent(3)
    with pytest.raises(TypeError, match="RecordEvent: argument 'event_type'"):
        profiler.RecordEvent("x", event_type="user")


# -- the step timer ---------------------------------------------------------------
class SlowDataset(eager.io.Dataset):
    def __getitem__(self, index):
        time.sleep(0.004)
        return np.full([2], index, dtype="float32")

    def __len__(self):
        return 6


def test_timer_only_reports_reader_cost_batch_cost_and_ips(capsys):
    loader = eager.io.DataLoader(SlowDataset(), batch_size=2)
    prof = profiler.Profiler(timer_only=True)
    prof.start()
    assert MODES.timing_ops() is None  # timer_only: no op goes through the mode check
    for batch in loader:
        time.sleep(0.01)
        prof.step(num_samples=2)
    info = prof.step_info(unit="images")
    prof.stop()
    match = re.fullmatch(r" reader_cost: ([\d.]+) s batch_cost: ([\d.]+) s ips: ([\d.]+) images/s", info)
    assert match, info
    reader, batch, ips = map(float, match.groups())
    assert reader >= 0.008  # two samples of 4 ms each per batch
    assert batch >= reader + 0.01
    assert ips == pytest.approx(2 / batch, rel=0.02)
    printed = capsys.readouterr().out
    assert "Reader Ratio:" in printed and "IPS Unit: images/s" in printed
    assert re.search(r"\|\s+reader_cost\s+\|", printed) and re.search(r"\|\s+ips\s+\|", printed)


def test_step_info_averages_the_steps_since_the_last_call():
    prof = profiler.Profiler(timer_only=True)
    prof.start()
    time.sleep(0.03)
    prof.step()
    first = prof.step_info()
    for _ in range(4):
        time.sleep(0.005)
        prof.step()
    second = prof.step_info()
    prof.stop()
    batch = lambda text: float(re.search(r"batch_cost: ([\d.]+) s", text).group(1))
    assert "reader_cost" not in first and first.endswith("steps/s")
    assert batch(first) >= 0.03
    assert 0.005 <= batch(second) < 0.03


# -- summary ------------------------------------------------------------------------
def run_profiled(**kwargs):
    handle = keep()
    x = eager.ones([8, 8])
    prof = profiler.Profiler(on_trace_ready=handle, **kwargs)
    prof.start()
    for _ in range(3):
        eager.exp(x)
        eager.matmul(x, x)
        eager.matmul(x, x)
        prof.step()
    prof.stop()
    return prof


def table_rows(text, title):
    block = text[text.index(title):].split("\n\n")[0]
    return [line.split() for line in block.splitlines()[5:-1]]


def test_summary_counts_each_op_and_sorts_by_the_key(capsys):
    prof = run_profiled()
    prof.summary(sorted_by=profiler.SortedKeys.CPUTotal, time_unit="us")
    out = capsys.readouterr().out
    assert "Overview Summary" in out and "Model Summary" in out and "Time unit: us" in out
    rows = table_rows(out, "Operator Summary")
    calls = {row[0]: int(row[1]) for row in rows}
    assert calls == {"exp": 3, "matmul": 6}
    totals = [float(row[2]) for row in rows]
    assert totals == sorted(totals, reverse=True)
    result = prof.profiler_result
    matmul_total = sum(e.duration_ns for e in result.events if e.name == "matmul") / 1e3
    assert float(next(r for r in rows if r[0] == "matmul")[2]) == pytest.approx(matmul_total, abs=1e-3)


def test_summary_views_pick_tables(capsys):
    prof = run_profiled()
    prof.summary(views=profiler.SummaryView.OperatorView)
    out = capsys.readouterr().out
    assert "Operator Summary" in out and "Overview Summary" not in out


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(time_unit="min"), ValueError, "argument 'time_unit'"),
    (dict(sorted_by="total"), TypeError, "argument 'sorted_by'"),
    (dict(views=["ops"]), TypeError, "argument 'views'"),
])
def test_summary_checks_its_arguments(kwargs, error, message):
    prof = run_profiled()
    with pytest.raises(error, match=message):
        prof.summary(**kwargs)


def test_summary_before_any_trace_is_an_error():
    with pytest.raises(RuntimeError, match="Profiler.summary: nothing was recorded"):
        profiler.Profiler(on_trace_ready=keep()).summary()


# -- the trace file --------------------------------------------------------------------
def test_chrome_trace_schema_and_nesting(tmp_path):
    prof = run_profiled()
    path = tmp_path / "trace.json"
    prof.export(str(path), format="json")
    data = json.loads(path.read_text())
    events = data["traceEvents"]
    assert data["displayTimeUnit"] in ("ms", "ns")
    complete = [e for e in events if e["ph"] == "X"]
    meta = [e for e in events if e["ph"] == "M"]
    assert len(complete) == len(prof.profiler_result.events)
    for e in complete:
        assert isinstance(e["name"], str) and isinstance(e["cat"], str)
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
        assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0
        assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0
        assert isinstance(e["args"], dict)
    assert {m["name"] for m in meta} == {"process_name", "thread_name"}
    assert all(isinstance(m["args"]["name"], str) for m in meta)
    # chrome://tracing needs the complete events of a thread to nest or be disjoint
    spans = sorted((e["ts"], -(e["ts"] + e["dur"])) for e in complete)
    stack = []
    for start, negative_end in spans:
        end = -negative_end
        while stack and stack[-1] <= start:
            stack.pop()
        assert not stack or end <= stack[-1] + 1e-3
        stack.append(end)


def test_export_chrome_tracing_writes_a_file_that_loads_back(tmp_path):
    x = eager.ones([4])
    with profiler.Profiler(on_trace_ready=profiler.export_chrome_tracing(str(tmp_path), "worker0")) as prof:
        eager.exp(x)
        prof.step()
    (path,) = tmp_path.glob("worker0_time_*.paddle_trace.json")
    loaded = profiler.load_profiler_result(str(path))
    original = prof.profiler_result
    assert [(e.name, e.kind) for e in loaded.events] == [(e.name, e.kind) for e in original.events]
    for a, b in zip(loaded.events, original.events):
        assert abs(a.duration_ns - b.duration_ns) <= 1
    assert set(loaded.get_data()) == {threading.get_native_id()}


def test_protobuf_is_a_clear_error(tmp_path):
    with pytest.raises(RuntimeError, match="export_protobuf: the protobuf trace format"):
        profiler.export_protobuf(str(tmp_path))
    prof = run_profiled()
    with pytest.raises(RuntimeError, match="Profiler.export: the protobuf trace format"):
        prof.export(str(tmp_path / "t.pb"), format="pb")
    with pytest.raises(RuntimeError, match="load_profiler_result: the protobuf trace format"):
        profiler.load_profiler_result(str(tmp_path / "t.pb"))


def test_load_profiler_result_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="load_profiler_result: no file"):
        profiler.load_profiler_result(str(tmp_path / "missing.json"))
    (tmp_path / "x.json").write_text(json.dumps({"a": 1}))
    with pytest.raises(ValueError, match="no 'traceEvents' list"):
        profiler.load_profiler_result(str(tmp_path / "x.json"))


# -- lifecycle and errors ----------------------------------------------------------------
def test_lifecycle_errors():
    prof = profiler.Profiler(on_trace_ready=keep())
    with pytest.raises(RuntimeError, match="Profiler.step: the profiler is not started"):
        prof.step()
    with pytest.raises(RuntimeError, match="Profiler.stop: the profiler is not started"):
        prof.stop()
    prof.start()
    try:
        with pytest.raises(RuntimeError, match="already started"):
            prof.start()
        with pytest.raises(RuntimeError, match="another profiler is running"):
            profiler.Profiler(on_trace_ready=keep()).start()
        with pytest.raises(ValueError, match="argument 'num_samples'"):
            prof.step(num_samples=-1)
    finally:
        prof.stop()


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(targets="cpu"), TypeError, "argument 'targets'"),
    (dict(targets=[profiler.ProfilerTarget.XPU]), ValueError, "argument 'targets'"),
    (dict(scheduler=(3, 1)), ValueError, "argument 'scheduler'"),
    (dict(scheduler=(1, 2, 3)), TypeError, "argument 'scheduler'"),
    (dict(scheduler=5), TypeError, "argument 'scheduler'"),
    (dict(on_trace_ready="./log"), TypeError, "argument 'on_trace_ready'"),
    (dict(timer_only=1), TypeError, "argument 'timer_only'"),
])
def test_profiler_checks_its_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        profiler.Profiler(**kwargs)


def test_an_error_in_on_trace_ready_leaves_the_profiler_sound():
    def fail(prof):
        raise OSError("disk full")

    prof = profiler.Profiler(scheduler=profiler.make_scheduler(closed=0, ready=0, record=1, repeat=1),
                             on_trace_ready=fail)
    prof.start()
    with pytest.raises(OSError, match="disk full"):
        prof.step()
    assert prof.current_state is ProfilerState.CLOSED and MODES.timing_ops() is None
    prof.step()
    prof.stop()


def test_the_default_trace_goes_to_profiler_log(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with profiler.Profiler() as prof:
        prof.step()
    assert len(list((tmp_path / "profiler_log").glob("*.paddle_trace.json"))) == 1


def test_worker_process_batches_are_reader_spans():
    handle = keep()
    loader = eager.io.DataLoader(SlowDataset(), batch_size=3, num_workers=1)
    with profiler.Profiler(on_trace_ready=handle) as prof:
        for batch in loader:
            prof.step()
    spans = names(handle.results[0], TracerEventType.Dataloader)
    assert spans[:2] == ["DataLoader.next", "DataLoader.next"]


def test_the_profiler_works_with_auto_cast_and_anomaly_mode():
    handle = keep()
    x = eager.ones([2, 2], dtype="float32")
    with profiler.Profiler(on_trace_ready=handle):
        with eager.amp.auto_cast(level="O1", dtype="float16"):
            y = eager.matmul(x, x)
        with eager.autograd.detect_anomaly():
            z = eager.exp(x)
    assert y.dtype == eager.float16
    np.testing.assert_allclose(z.numpy(), np.exp(np.ones([2, 2])), rtol=1e-6)
    ops = names(handle.results[0])
    assert ops.count("matmul") == 1 and "cast" in ops and "exp" in ops


@pytest.mark.parametrize("device", ["gpu"], indirect=True)
def test_gpu_profiler_times_ops_with_a_synchronize_each(device, monkeypatch):
    """On a GPU the default targets include the GPU, and each recorded op and step
    reads its end time after a synchronize, so the host times include the queued work;
    the gradients are the ones computed without the profiler."""
    from eager.profiler import profiler as profiler_module
    syncs = []
    real_sync = profiler_module.synchronize
    monkeypatch.setattr(profiler_module, "synchronize", lambda *a: syncs.append(1) or real_sync(*a))
    eager.seed(3)
    net = eager.nn.Linear(4, 3)
    x = eager.rand([5, 4])
    handle = keep()
    with profiler.Profiler(on_trace_ready=handle) as prof:
        assert profiler.ProfilerTarget.GPU in prof.targets
        loss = net(x).sum()
        loss.backward()
        prof.step()
    ops = names(handle.results[0])
    assert "linear" in ops and "linear_grad" in ops
    assert len(syncs) >= len(ops)  # one per op at least, and one per step
    assert net.weight.place.is_gpu_place()
    np.testing.assert_allclose(net.weight.grad.numpy(), np.tile(x.numpy().sum(0), (3, 1)).T, rtol=1e-6)


@pytest.mark.parametrize("device", ["gpu"], indirect=True)
def test_gpu_profiler_with_cpu_target_only_never_synchronizes(device, monkeypatch):
    from eager.profiler import profiler as profiler_module
    monkeypatch.setattr(profiler_module, "synchronize", lambda *a: pytest.fail("synchronized"))
    handle = keep()
    with profiler.Profiler(targets=[profiler.ProfilerTarget.CPU], on_trace_ready=handle) as prof:
        (eager.ones([3]) * 2).sum()
        prof.step()
    assert names(handle.results[0]) == ["full", "scale", "sum"]
