"""Gaps the real-Paddle sweeps left (checked against Paddle 2.6.2 and its source):

- ``paddle.amp.decorate(..., level='O2', master_grad=True)`` was refused with
  ValueError. Paddle 2.6.2 (GPU semantics; on the CPU its decorate returns the
  models untouched, and eager runs amp on the CPU: docs/amp.md) registers the
  models' parameters when optimizers are given; each auto_cast entry arms a
  backward final hook that casts their float16 gradients to float32
  (``core.eager.set_master_grads``), later passes add into them in float32 (its
  GPU add takes mixed dtypes), and the GradScaler, the gradient clip, weight
  decay (on the master weight) and the optimizer's update run on float32
  gradients. Its own test (test/amp/test_amp_master_grad.py) checks the
  float32 gradient dtypes with Adam (accumulating two batches) and with Momentum
  plus L1Decay.
- ``paddle.static.name_scope``, ``device_guard``, ``cpu_places``, ``cuda_places``
  were missing (AttributeError naming the static graph); Paddle 2.6.2 runs them
  in dygraph mode: the two guards place nothing (device_guard checks the name
  when entered: ValueError for 'cpu:0', 'abc', 'GPU'), cpu_places gives
  ``device_count`` CPU places (CPU_NUM, default 1; a negative count gives []),
  cuda_places asserts without CUDA.
"""
from __future__ import annotations

import numpy as np
import pytest

import eager
from eager import amp

pytestmark = pytest.mark.usefixtures("device")


def _model(seed: int = 0):
    eager.seed(seed)
    return eager.nn.Linear(3, 2)


def _inputs(step: int):
    rng = np.random.default_rng(step)
    return eager.to_tensor(rng.standard_normal((4, 3)).astype("float32"))


def _half_grads(steps):
    """The float16 gradients of each step, taken apart (no master_grad): the reference."""
    model = _model()
    opt = eager.optimizer.SGD(0.5, parameters=model.parameters())
    model, opt = amp.decorate(model, opt, level="O2")
    grads = []
    for step in steps:
        with amp.auto_cast(level="O2"):
            loss = model(_inputs(step)).sum()
        loss.backward()
        grads.append({"w": model.weight.grad.numpy().copy(), "b": model.bias.grad.numpy().copy()})
        opt.clear_grad()
    return grads


def test_master_grad_gives_float32_gradients_accumulated_in_float32():
    reference = _half_grads([0, 1])
    assert reference[0]["w"].dtype == np.float16
    model = _model()
    opt = eager.optimizer.SGD(0.5, parameters=model.parameters())
    model, opt = amp.decorate(model, opt, level="O2", master_grad=True)
    assert model.weight.dtype == eager.float16
    for step in (0, 1):
        with amp.auto_cast(level="O2"):
            loss = model(_inputs(step)).sum()
        loss.backward()
        assert model.weight.grad.dtype == eager.float32 and model.bias.grad.dtype == eager.float32
        if step == 0:
            np.testing.assert_array_equal(model.weight.grad.numpy(), reference[0]["w"].astype(np.float32))
    for key, param in (("w", model.weight), ("b", model.bias)):
        expected = reference[0][key].astype(np.float32) + reference[1][key].astype(np.float32)
        np.testing.assert_array_equal(param.grad.numpy(), expected)


def test_master_grad_update_runs_on_float32_gradient_and_master_weight():
    reference = _half_grads([0])[0]
    model = _model()
    w0 = model.weight.numpy().astype(np.float16).astype(np.float32)
    opt = eager.optimizer.SGD(0.5, parameters=model.parameters())
    model, opt = amp.decorate(model, opt, level="O2", master_grad=True)
    with amp.auto_cast(level="O2"):
        loss = model(_inputs(0)).sum()
    loss.backward()
    opt.step()
    master = w0 - np.float32(0.5) * reference["w"].astype(np.float32)
    np.testing.assert_array_equal(model.weight.numpy(), master.astype(np.float16))
    assert model.weight.dtype == eager.float16


@pytest.mark.parametrize("opt_name", ["Adam", "Momentum"])
def test_master_grad_with_scaler_clip_and_decay(opt_name):
    # test_amp_master_grad.py's loop: GradScaler, accumulation of two batches (Adam),
    # L1Decay (Momentum); here with a global-norm clip too
    model = _model()
    kwargs = {"weight_decay": eager.regularizer.L1Decay(0.0001)} if opt_name == "Momentum" else {}
    opt = getattr(eager.optimizer, opt_name)(parameters=model.parameters(),
                                             grad_clip=eager.nn.ClipGradByGlobalNorm(1.0), **kwargs)
    model, opt = amp.decorate(model, optimizers=opt, level="O2", master_grad=True)
    scaler = amp.GradScaler()
    every = 2 if opt_name == "Adam" else 1
    before = model.weight.numpy().copy()
    for step in range(4):
        with amp.auto_cast(level="O2"):
            loss = eager.nn.functional.l1_loss(model(_inputs(step)), eager.zeros([4, 2]))
        scaler.scale(loss).backward()
        assert model.weight.grad.dtype == eager.float32 and model.bias.grad.dtype == eager.float32
        if (step + 1) % every == 0:
            scaler.step(opt)
            scaler.update()
            opt.clear_grad()
    assert model.weight.dtype == eager.float16
    assert np.isfinite(model.weight.numpy()).all() and not np.array_equal(model.weight.numpy(), before)


def test_master_grad_needs_optimizers_and_an_auto_cast_entry():
    # Paddle 2.6.2 sets master_grad up with the optimizers only; the cast is armed
    # when an auto_cast block is entered
    model = amp.decorate(_model(), level="O2", master_grad=True)
    with amp.auto_cast(level="O2"):
        loss = model(_inputs(0)).sum()
    loss.backward()
    assert model.weight.grad.dtype == eager.float16
    model = _model()
    opt = eager.optimizer.SGD(0.5, parameters=model.parameters())
    model, opt = amp.decorate(model, opt, level="O2", master_grad=True)
    eager.to_tensor([1.0], stop_gradient=False).sum().backward()  # runs a hook another test may have armed
    model(_inputs(0).astype("float16")).sum().backward()  # no auto_cast entered since
    assert model.weight.grad.dtype == eager.float16


def test_static_name_scope_and_device_guard_place_nothing():
    for guard in (eager.static.name_scope("abc"), eager.static.name_scope(),
                  *(eager.static.device_guard(d) for d in ("cpu", "gpu", "gpu:1", "xpu", "xpu:0", "", None))):
        with guard as value:
            y = eager.to_tensor([1.0, 2.0]) + 1
        assert value is None  # from Paddle 2.6.2: both yield None in dygraph mode
        np.testing.assert_array_equal(y.numpy(), [2.0, 3.0])
    for bad in ("cpu:0", "abc", "GPU"):  # from Paddle 2.6.2: ValueError when the block is entered
        guard = eager.static.device_guard(bad)
        with pytest.raises(ValueError, match="device_guard: argument 'device'"):
            guard.__enter__()
    with pytest.raises(TypeError, match="device_guard: argument 'device' expected a str"):
        eager.static.device_guard(0).__enter__()


def test_static_cpu_and_cuda_places(monkeypatch):
    monkeypatch.delenv("CPU_NUM", raising=False)
    assert eager.static.cpu_places() == [eager.CPUPlace()]
    monkeypatch.setenv("CPU_NUM", "2")
    assert eager.static.cpu_places() == [eager.CPUPlace()] * 2
    assert eager.static.cpu_places(3) == [eager.CPUPlace()] * 3
    assert eager.static.cpu_places(0) == [] and eager.static.cpu_places(-1) == []  # from Paddle 2.6.2
    with pytest.raises(TypeError, match="cpu_places: argument 'device_count' expected an int"):
        eager.static.cpu_places(2.0)
    if eager.device.is_compiled_with_cuda():
        assert eager.static.cuda_places([0]) == [eager.CUDAPlace(0)]
        assert eager.static.cuda_places(0) == [eager.CUDAPlace(0)]
    else:
        with pytest.raises(AssertionError, match="Not compiled with CUDA"):
            eager.static.cuda_places()
