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
