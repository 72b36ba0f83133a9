"""benchmarks/models.py (the M1-M4 rows) runs end to end at its smoke sizes, so it
cannot rot: every model trains, eager's first losses match PyTorch's where PyTorch
is installed, and the table's ratios are the times' ratios. Its loss check refuses
two steps that disagree, and run.py takes the M rows in --only."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "benchmarks")
SCRIPT = os.path.join(BENCH, "models.py")
ROW = re.compile(r"^(M[1-4]) +(.+?) +([0-9.]+) / +([0-9.]+) ms +(?:([0-9.]+) ms|-) +(?:([0-9.]+)x|-) +(\S+)$")


def _has_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def _rows(stdout):
    rows = {}
    for line in stdout.splitlines():
        m = ROW.match(line)
        if m:
            rows[m.group(1)] = m.groups()
    return rows


def test_smoke_run_prints_every_model(models, capsys):
    # In this process (eager is imported already; the script's own start is the
    # next test's): every model at its smoke size, against PyTorch where installed.
    torch = sys.modules.get("torch") or (__import__("torch") if _has_torch() else None)
    threads = torch.get_num_threads() if torch is not None else None
    try:
        assert models.main(["--smoke"]) == 0
    finally:
        if torch is not None:
            torch.set_num_threads(threads)
    stdout = capsys.readouterr().out
    rows = _rows(stdout)
    assert sorted(rows) == ["M1", "M2", "M3", "M4"], stdout
    for name, (_, what, low, median, torch_ms, ratio, diff) in rows.items():
        assert 0 < float(low) <= float(median), name
        if torch is not None:
            # Same weights and data: the first two losses agree (the script checked to 2e-4).
            assert float(diff) <= 2e-4, (name, diff)
            assert float(ratio) == pytest.approx(float(low) / float(torch_ms), rel=0.03, abs=0.01)
        else:
            assert torch_ms is None and ratio is None and diff == "-"
    assert "ResNet" in rows["M1"][1] and "LSTM" in rows["M2"][1] and "Transformer" in rows["M3"][1]


def test_script_runs_on_its_own():
    # The command line as a user runs it: it pins the thread pools and restarts
    # itself, then prints eager's times alone with --no-torch.
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    done = subprocess.run([sys.executable, SCRIPT, "--smoke", "--no-torch", "--only", "m4"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "threads: 1" in done.stdout and "torch skipped" in done.stdout
    rows = _rows(done.stdout)
    assert list(rows) == ["M4"] and rows["M4"][4:] == (None, None, "-")


@pytest.fixture
def models(monkeypatch):
    monkeypatch.syspath_prepend(BENCH)
    import models as module
    return module


class _Loss:
    def __init__(self, value):
        self.value = value

    def item(self):
        return self.value


def test_loss_check_refuses_different_work(models):
    same = models.check_same_losses("M9", lambda: _Loss(2.0), lambda: _Loss(2.0 + 1e-6))
    assert same == pytest.approx(5e-7)
    losses = iter([2.0, 2.0, 1.5, 1.9])  # eager, torch, eager, torch: the second step differs
    step = lambda: _Loss(next(losses))  # noqa: E731
    with pytest.raises(AssertionError, match=r"M9: eager's loss 1.5 differs from PyTorch's 1.9 at step 2"):
        models.check_same_losses("M9", step, step)


def test_only_names_are_checked(models, monkeypatch, capsys):
    monkeypatch.syspath_prepend(BENCH)
    import run
    for main in (models.main, run.main):
        with pytest.raises(SystemExit) as exit_info:
            main(["--only", "M7"])
        assert exit_info.value.code == 2
        assert "M7" in capsys.readouterr().err
