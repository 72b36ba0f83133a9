"""The training examples reach their accuracy targets (each exits non-zero below
its threshold); .ci/run also runs examples/train_mlp.py on its own."""
from __future__ import annotations

import importlib.util
import pathlib

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_lenet_digits_reaches_97_percent(capsys):
    pytest.importorskip("sklearn")
    assert load_example("lenet_digits").main(["--epochs", "15"]) == 0
    final = capsys.readouterr().out.strip().splitlines()[-1]
    assert final.startswith("test accuracy ") and float(final.split()[2]) >= 0.97


def test_lstm_sequence_learns_the_majority_task():
    assert load_example("lstm_sequence").main([]) == 0
