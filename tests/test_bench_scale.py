"""benchmarks/scale.py's smallest configuration runs end to end (so the study cannot
rot): its CSV has every contestant with positive times, ratios consistent with them,
and it writes plots with matplotlib or says it wrote the CSV alone without it."""
from __future__ import annotations

import csv
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "benchmarks", "scale.py")


def run_scale(out, extra_path=None):
    env = dict(os.environ)
    if extra_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(extra_path), env.get("PYTHONPATH")) if p)
    done = subprocess.run([sys.executable, SCRIPT, "--smallest", "--no-torch", "--out", str(out)],
                          capture_output=True, text=True, env=env, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    with open(os.path.join(out, "performance_scale.csv"), newline="") as f:
        return done.stdout, list(csv.DictReader(f))


def check_rows(rows):
    chain = [r for r in rows if r["study"] == "chain"]
    mlp = [r for r in rows if r["study"] == "mlp"]
    assert {r["contestant"] for r in chain} == {"eager, gc on (policy)", "eager, gc on, no policy", "eager, gc off"}
    for r in chain:
        assert r["size"] == "100" and r["unit"] == "us/node" and r["ratio"] == ""  # no torch, no ratio
        forward, backward, total = float(r["forward_us"]), float(r["backward_us"]), float(r["total_us"])
        assert forward > 0 and backward > 0 and total == pytest.approx(forward + backward, abs=2e-3)
    assert {r["contestant"] for r in mlp} == {"numpy", "eager"}
    times = {r["contestant"]: float(r["total_us"]) for r in mlp}
    for r in mlp:
        assert (r["size"], r["batch"], r["unit"]) == ("64", "64", "us/step")
        assert float(r["ratio"]) == pytest.approx(times[r["contestant"]] / times["numpy"], rel=2e-3)


def test_smallest_configuration_without_matplotlib(tmp_path):
    # A matplotlib that cannot be imported, ahead of any installed one.
    blocker = tmp_path / "blocker" / "matplotlib"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('matplotlib blocked for this test')\n")
    out = tmp_path / "out"
    stdout, rows = run_scale(out, extra_path=tmp_path / "blocker")
    check_rows(rows)
    # The Markdown tables docs/performance.md shows: one row per chain length and per MLP.
    assert "| ops | eager, gc on (policy) | eager, gc on, no policy | eager, gc off |" in stdout
    assert "\n| 100 | " in stdout and "\n| 64 | 64 | " in stdout
    assert "matplotlib is not installed" in stdout and "wrote the CSV only" in stdout
    assert sorted(os.listdir(out)) == ["performance_scale.csv"]


def test_smallest_configuration_plots_with_matplotlib(tmp_path):
    pytest.importorskip("matplotlib")
    stdout, rows = run_scale(tmp_path)
    check_rows(rows)
    for name in ("performance_scale_chain.png", "performance_scale_mlp.png"):
        with open(tmp_path / name, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
        assert f"wrote {tmp_path / name}" in stdout
