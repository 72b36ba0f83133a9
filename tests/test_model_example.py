"""examples/fit_digits.py: the high-level API end to end (fit with callbacks,
save, reload into a fresh Model with the same accuracy) reaches 95%."""
from __future__ import annotations

import importlib.util
import pathlib

import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "fit_digits.py"


def test_fit_digits_reaches_95_percent_and_reloads(capsys, tmp_path):
    pytest.importorskip("sklearn")
    spec = importlib.util.spec_from_file_location("fit_digits", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--verbose", "2", "--save-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "\r" not in out and "Epoch 1/40" in out
    final = out.strip().splitlines()[-1]
    assert final.startswith("test accuracy ") and float(final.split()[2]) >= 0.95
    assert (tmp_path / "digits_mlp.pdparams").exists() and (tmp_path / "digits_mlp.pdopt").exists()
    assert (tmp_path / "final.pdparams").exists() and (tmp_path / "best_model.pdparams").exists()
