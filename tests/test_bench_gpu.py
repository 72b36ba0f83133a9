"""The GPU benchmarks (benchmarks/gpu.py, the G rows of benchmarks/run.py) run
once at tiny sizes on the suite's CuPy (tests/fake_cupy.py without a GPU), so
their code cannot rot: the hand-written CuPy steps agree with NumPy and eager,
a training step moves nothing between host and device, and run.py's table and
``--check`` treat a machine without a GPU as "skipped", not as a failure."""
from __future__ import annotations

import contextlib
import importlib
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import eager
from conftest import REAL_GPU

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import gpu  # noqa: E402  (benchmarks/gpu.py)
import lenet  # noqa: E402  (benchmarks/lenet.py)
import mlp  # noqa: E402  (benchmarks/mlp.py)
import run  # noqa: E402  (benchmarks/run.py)


@pytest.fixture
def cupy():
    return importlib.import_module("cupy")


def test_every_g_benchmark_runs_at_tiny_sizes_and_a_step_moves_nothing(cupy):
    rows = {name: (value, baselines) for name, _what, value, baselines in gpu.run(cupy, smoke=True)}
    assert set(rows) == {"G1 small", "G1 large", "G3 b4", "G3j b4", "G3 xfer", "G3j xfer", "G5"}
    for name in ("G1 small", "G1 large", "G3 b4", "G3j b4", "G5"):
        value, baselines = rows[name]
        assert len(value) == 1 and value[0] > 0 and min(baselines["cupy"]) > 0, name
    for name in ("G3 xfer", "G3j xfer"):
        count, split = rows[name]
        assert (count, split["down"], split["up"]) == (0, 0, 0), name
    assert eager.get_device() == "cpu"  # the benchmarks place tensors explicitly


def test_transfer_counter_sees_copies_both_ways(cupy):
    with gpu.count_transfers(cupy) as counts:
        device = cupy.asarray(np.ones(3, np.float32))  # host -> device
        device.get()  # device -> host
    assert counts["up"] == 1 and counts["down"] >= 1


def test_transfer_counter_on_real_cupy_wraps_uploads_and_catches_a_synchronisation(monkeypatch):
    # Real CuPy's branch, on a stand-in: uploads through cupy.array/asarray of host
    # data, downloads as the DeviceSynchronized that allow_synchronize(False) raises.
    class DeviceSynchronized(RuntimeError):
        pass

    guarded = []

    @contextlib.contextmanager
    def allow_synchronize(allow):
        guarded.append(allow)
        yield

    monkeypatch.setitem(sys.modules, "cupyx", types.SimpleNamespace(
        allow_synchronize=allow_synchronize, DeviceSynchronized=DeviceSynchronized))
    device = object()
    to_device = lambda obj, *args, **kwargs: device  # noqa: E731
    cupy = types.SimpleNamespace(array=to_device, asarray=to_device, asnumpy=lambda a: np.zeros(1))
    with gpu.count_transfers(cupy) as counts:
        cupy.asarray(np.ones(2))
        cupy.array(2.0)
        cupy.asarray(device)  # already on the device: no copy
        cupy.asnumpy(device)
    assert counts == {"down": 1, "up": 2} and guarded == [False]
    with gpu.count_transfers(cupy) as counts:
        try:
            raise DeviceSynchronized("a device synchronisation was detected")
        except DeviceSynchronized as error:
            raise ValueError("an op failed") from error  # eager wrapping it
    assert counts == {"down": 1, "up": 0}
    with pytest.raises(KeyError), gpu.count_transfers(cupy):
        raise KeyError("not a synchronisation")
    assert cupy.array is to_device and cupy.asarray is to_device  # restored


def test_handwritten_mlp_on_the_gpu_is_the_numpy_step_of_b3():
    cupy = importlib.import_module("cupy")
    params = mlp.init_weights()
    x, y = mlp.make_batch(16)
    ref, ours = mlp.HandWrittenMLP(params), mlp.HandWrittenMLP(params, xp=cupy)
    x_gpu, y_gpu = cupy.asarray(x), cupy.asarray(y)
    for _ in range(3):
        assert np.isclose(float(ours.step(x_gpu, y_gpu)), ref.step(x, y), rtol=1e-5)
    for p, q in zip(ref.params, ours.params):
        np.testing.assert_allclose(cupy.asnumpy(q), p, rtol=1e-5, atol=1e-7)


def test_handwritten_lenet_on_the_gpu_is_the_numpy_step_of_b5():
    cupy = importlib.import_module("cupy")
    params = lenet.init_weights()
    x, labels = lenet.make_batch(4)
    ref, ours = lenet.HandWrittenLeNet(params), lenet.HandWrittenLeNet(params, xp=cupy)
    x_gpu, labels_gpu = cupy.asarray(x), cupy.asarray(labels)
    for _ in range(2):
        assert np.isclose(float(ours.step(x_gpu, labels_gpu)), ref.step(x, labels), rtol=1e-5)
    for name in ref.p:
        np.testing.assert_allclose(cupy.asnumpy(ours.p[name]), ref.p[name], rtol=1e-5, atol=1e-7)


@pytest.mark.skipif(REAL_GPU, reason="on a real GPU the G rows run instead of being skipped")
def test_run_py_skips_the_g_rows_without_a_gpu(capsys, monkeypatch):
    monkeypatch.setattr(run, "GPU_ROWS", [])
    monkeypatch.setattr(run, "GPU_SKIPPED", [])
    assert run.main(["--only", "G", "--check", "--no-torch", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "G1, G3, G5: skipped: no GPU" in out
    assert all(status == "skipped" for _, status, _ in run.gpu_target_results(("G1", "G3", "G5")))


def test_a_missed_gpu_target_fails_the_check(monkeypatch):
    slow, fast = [2e-3, 3e-3], [1e-3, 1e-3]
    monkeypatch.setattr(run, "GPU_SKIPPED", [])
    monkeypatch.setattr(run, "GPU_ROWS", [
        ("G1 large", "a + b", [1.1e-3], {"cupy": fast}),
        ("G3 b64", "step", slow, {"cupy": fast, "torch": None}),
        ("G3 b512", "step", fast, {"cupy": fast, "torch": None}),
        ("G3j b64", "replayed step", fast, {"cupy": fast, "torch": None}),
        ("G3j b512", "replayed step", slow, {"cupy": fast, "torch": None}),
        ("G3 xfer", "copies", 1, {"down": 1, "up": 0}),
        ("G3j xfer", "copies", 0, {"down": 0, "up": 0}),
    ])
    results = {name: status for name, status, _ in run.gpu_target_results(("G1", "G3"))}
    assert results == {"G1 large": "met", "G3 b64": "missed", "G3 b512": "met", "G3j b64": "met",
                       "G3j b512": "missed", "G3 xfer": "missed", "G3j xfer": "met"}
    assert run.exit_status(run.gpu_target_results(("G1", "G3")), check=True) == 1
    assert run.exit_status(run.gpu_target_results(("G1", "G3")), check=False) == 0


def test_gpu_profile_reports_every_step_and_attribute(cupy):
    # benchmarks/gpu_profile.py (what gpu_check.sh runs on a real GPU) at tiny sizes.
    import gpu_profile  # benchmarks/gpu_profile.py

    lines = []
    gpu_profile.report(cupy, smoke=True, out=lines.append)
    text = "\n".join(lines)
    for step in ("hand-written CuPy", "eager", "eager to_static replay"):
        assert f"== cProfile of 2 steps: {step}\n" in text + "\n"
    assert "function calls" in text  # the profiles themselves
    for what in ("a.shape", "a.device.id", "sgd_step fused (1 kernel)"):
        line = next(line for line in lines if line.strip().startswith(what))
        assert float(line.split()[-1]) > 0
