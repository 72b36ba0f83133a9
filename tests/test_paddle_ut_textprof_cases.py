"""Paddle 2.6.2 as the oracle for ``paddle.text.datasets`` (read from tiny local
files) and ``paddle.profiler`` / ``paddle.device`` on the CPU.

Every text dataset (UCIHousing, Imdb, Imikolov, Movielens, Conll05st, WMT14,
WMT16) was loaded from the same synthetic archives by eager and by Paddle 2.6.2
and compared item by item (values, dtypes, shapes), with ``len()``, the
dictionaries, each mode and the argument errors; the profiler's schedulers,
enums, ``Profiler`` states and argument checks, and the ``paddle.device`` /
``device.cuda`` / ``version`` / ``sysconfig`` queries likewise. Found:

- ``profiler.ProfilerTarget`` had ``MLU`` where 2.6.2 has ``XPU`` (value 2);
- ``Conll05st(emb_file=path)`` raised FileNotFoundError for a path that does not
  exist yet; 2.6.2 keeps the given path unread and hands it out by
  ``get_embedding()``;
- ``paddle.profiler.utils.job_schedule_profiler_range`` was missing;
- a custom scheduler going from RECORD to CLOSED handed the span to
  ``on_trace_ready``; 2.6.2 drops it with an "Improper schedule" warning (only
  RECORD_AND_RETURN or ``stop()`` while recording return a trace).

Left as documented differences (docs/training.md, docs/profiler.md, docs/gpu.md):
assert-based argument checks (eager raises ValueError / TypeError naming the
argument), whole floats for dataset sizes, WMT16's ``lang`` and dictionaries,
Movielens / Conll05st id order, the summary tables' layout, and the CPU-only
errors of ``device.cuda`` streams. Paddle's ``Imdb`` / ``Imikolov`` fail on small
files where no word reaches the cutoff; eager gives a dictionary of the marks.
``test_profiler_statistic`` drives C++ event nodes (``core.HostPythonNode``) that
eager has no counterpart for; not ported.
"""
import pytest

from eager import profiler
from eager.text import datasets as D

from test_text import write_conll


def test_profiler_target_members_are_paddle_262s():
    # from Paddle 2.6.2: [(m.name, m.value) for m in paddle.profiler.ProfilerTarget]
    assert [(m.name, m.value) for m in profiler.ProfilerTarget] == [("CPU", 0), ("GPU", 1), ("XPU", 2),
                                                                    ("CUSTOM_DEVICE", 3)]
    with pytest.raises(ValueError, match="argument 'targets'"):
        profiler.Profiler(targets=[profiler.ProfilerTarget.XPU])


def test_conll05st_keeps_a_given_embedding_path_unread(tmp_path):
    files = write_conll(tmp_path)
    missing = tmp_path / "not_yet" / "emb"
    ds = D.Conll05st(*files, emb_file=str(missing))  # Paddle 2.6.2 accepts it: it never opens the file
    assert ds.get_embedding() == str(missing) and len(ds) == 3
    assert D.Conll05st(*files, emb_file=missing).get_embedding() == str(missing)
    with pytest.raises(TypeError, match="Conll05st: argument 'emb_file' expected a path, got int"):
        D.Conll05st(*files, emb_file=3)


def test_job_schedule_profiler_range_yields_the_window_and_exits_after_it():
    from eager.profiler.utils import job_schedule_profiler_range

    def run(iter_id, start, end):
        try:
            with job_schedule_profiler_range(iter_id, start, end) as inside:
                pass
        except SystemExit:
            return inside, "exit"
        return inside, None

    # from Paddle 2.6.2: in [start, end), and sys.exit() when leaving iteration end - 1
    assert [run(i, 1, 3) for i in range(4)] == [(False, None), (True, None), (True, "exit"), (False, None)]
    assert [run(i, 3, 3) for i in range(4)] == [(False, None)] * 4  # an empty window never exits
    with job_schedule_profiler_range(2, 1, 3, exit_after_prof=False) as inside:
        assert inside is True


def test_a_span_left_from_record_to_closed_is_dropped_with_a_warning():
    State = profiler.ProfilerState
    calls = []
    prof = profiler.Profiler(targets=[profiler.ProfilerTarget.CPU],
                             scheduler=lambda step: State.RECORD if step % 3 else State.CLOSED,
                             on_trace_ready=lambda p: calls.append(p.step_num))
    prof.start()
    with pytest.warns(UserWarning, match="Improper schedule: RECORD->CLOSED"):
        for _ in range(6):
            prof.step()
    prof.stop()
    assert calls == []  # from Paddle 2.6.2: on_trace_ready never runs for this schedule
    prof = profiler.Profiler(targets=[profiler.ProfilerTarget.CPU],
                             scheduler=lambda step: State.RECORD if step < 2 else State.RECORD_AND_RETURN,
                             on_trace_ready=lambda p: calls.append(p.step_num))
    prof.start()
    for _ in range(4):
        prof.step()
    prof.stop()
    assert calls == [3, 4, 4]  # RECORD_AND_RETURN returns at each step after it, and stop() once more
