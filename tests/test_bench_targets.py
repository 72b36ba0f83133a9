"""benchmarks/run.py's target check (--check), on made-up rows: no benchmark runs."""
import os
import sys

import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")


@pytest.fixture
def run(monkeypatch):
    monkeypatch.syspath_prepend(BENCH)
    import run as module

    monkeypatch.setattr(module, "ROWS", [])
    return module


def test_met_missed_skipped_and_not_run(run):
    T = run.Timing
    run.row("B1 on", "a + b", T([2.0e-6, 2.5e-6]), "us", {"numpy": T([1e-6]), "torch": T([2.5e-6])})
    run.row("B1 off", "a + b", T([3.0e-6]), "us", {"numpy": T([1e-6]), "torch": T([2.0e-6])})
    run.row("B2", "chain", T([1.0e-5]), "us", {"torch": None})
    run.row("B4 b64", "peak", 3 * 2 ** 20, "MiB", {"numpy": 2 * 2 ** 20})
    results = {name: (status, text) for name, status, text in run.target_results()}
    assert results["B1 on"][0] == "met" and "0.80x torch" in results["B1 on"][1]  # min over min
    assert results["B1 off"][0] == "missed" and "1.50x torch (target <= 1.00x)" in results["B1 off"][1]
    assert results["B2"][0] == "skipped"
    assert results["B4 b64"][0] == "met"  # exactly 1.5x
    assert results["B6"][0] == "not run"
    assert set(results) == set(run.CHECKED)
    listed = list(run.target_results())
    assert run.exit_status(listed, check=True) == 1 and run.exit_status(listed, check=False) == 0


def test_all_met_exits_zero(run):
    T = run.Timing
    run.row("B3 b64", "step", T([1.0e-3]), "ms", {"numpy": T([1.0e-3])})
    results = run.target_results()
    assert run.exit_status(results, check=True) == 0
    assert [s for n, s, _ in results if n == "B3 b64"] == ["met"]


def test_every_checked_target_has_a_limit(run):
    for name in run.CHECKED:
        against, limit, _ = run.TARGETS[name]
        assert against in ("numpy", "torch") and limit > 0
    assert run.TARGETS["B3 b64"][1] == 1.15 and run.TARGETS["B3 b512"][1] == 1.05
    assert run.TARGETS["B5"][1] == 1.2 and run.TARGETS["B6"][1] == 1.5 and run.TARGETS["B2"][1] == 0.8


def test_host_figures_use_the_chosen_clock(run, monkeypatch):
    ticks = iter(range(0, 1000, 3))  # a clock that moves 3 per read
    monkeypatch.setattr(run.timing, "CLOCK", lambda: next(ticks))
    assert run.timing._timer(lambda: None).timeit(5) == 3
    assert run.timing._timer("pass").timeit(5) == 3
    assert run.CLOCKS["cpu"] is __import__("time").process_time


def test_an_unknown_clock_is_refused(run, capsys):
    with pytest.raises(SystemExit) as exit_info:
        run.main(["--clock", "sundial", "--only", "B1"])
    assert exit_info.value.code == 2
    assert "--clock" in capsys.readouterr().err
