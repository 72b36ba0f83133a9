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
- ``eager.jit.save`` of a model decorated at 'O2' with ``save_dtype='float32'``
  traced with the float16 parameters, so a float32 input_spec failed and the
  hook was ignored. Paddle's jit.save shares the hooked state dict's tensors
  into the saved program (2.6.2 itself then fails: its hook casts in static
  mode, a TypeError: docs/amp.md); eager now traces and saves the hooked
  float32 values and gives the layer its float16 parameters back.
- ``paddle.static.name_scope``, ``device_guard``, ``cpu_places``, ``cuda_places``
  were missing (AttributeError naming the static graph); Paddle 2.6.2 runs them
  in dygraph mode: the two guards place nothing (device_guard checks the name
  when entered: ValueError for 'cpu:0', 'abc', 'GPU'), cpu_places gives
  ``device_count`` CPU places (CPU_NUM, default 1; a negative count gives []),
  cuda_places asserts without CUDA.
- ``paddle.static.nn.batch_norm``, ``group_norm``, ``instance_norm`` were missing;
  Paddle 2.6.2 runs them in dygraph mode with parameters made at each call
  (batch_norm: scale 1, bias 0, moving mean 0 / variance 1; is_test uses the
  moving statistics; epsilon outside [0, 0.001] is a ValueError; group_norm
  makes a scale/bias only when param_attr/bias_attr is given, instance_norm only
  when both are), any rank from 2 to 5, NCHW or NHWC.
- ``paddle.static.nn.spectral_norm`` and ``bilinear_tensor_product`` were missing;
  Paddle 2.6.2 runs them in dygraph mode with new random vectors / weights at
  each call (dim must be 0 or 1; x and y 2-D; bias_attr=False drops the bias);
  likewise ``row_conv`` on [N, T, D] sequences (a 2-D input is a LoD sequence in
  Paddle: refused).
- ``paddle.static.auc`` was missing; in Paddle 2.6.2's dygraph mode its
  statistics start at zero in each call: both AUCs are the batch's (float64
  0-d), and the int64 bucket counts come back in the op's layout (300 random
  draws compared equal with Paddle 2.6.2).
"""
from __future__ import annotations

import os

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


def _normalize(x, axes, eps=1e-5):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def test_static_nn_batch_norm():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 3, 3)).astype("float32")
    S = eager.static.nn
    out = S.batch_norm(eager.to_tensor(x))
    assert not out.stop_gradient  # a fresh trainable scale and bias, as in Paddle 2.6.2
    np.testing.assert_allclose(out.numpy(), _normalize(x, (0, 2, 3)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(S.batch_norm(eager.to_tensor(x), is_test=True).numpy(),
                               x / np.sqrt(1 + 1e-5), rtol=1e-6, atol=1e-6)  # moving mean 0, variance 1
    nhwc = S.batch_norm(eager.to_tensor(x), data_layout="NHWC", act="relu")
    np.testing.assert_allclose(nhwc.numpy(), np.maximum(_normalize(x, (0, 1, 2)), 0), rtol=1e-5, atol=1e-5)
    init = eager.nn.initializer.Constant
    scaled = S.batch_norm(eager.to_tensor(x[:, :, 0, 0]), param_attr=eager.ParamAttr(initializer=init(2.0)),
                          bias_attr=eager.ParamAttr(initializer=init(0.5)))
    np.testing.assert_allclose(scaled.numpy(), 2 * _normalize(x[:, :, 0, 0], (0,)) + 0.5, rtol=1e-5, atol=1e-5)
    half = S.batch_norm(eager.to_tensor(x.astype("float16")))
    assert half.dtype == eager.float16
    np.testing.assert_allclose(half.numpy().astype(np.float32), _normalize(x.astype(np.float16).astype(np.float32),
                               (0, 2, 3)), rtol=2e-3, atol=2e-3)
    with pytest.raises(ValueError, match="batch_norm: argument 'epsilon' expected a value in \\[0, 0.001\\]"):
        S.batch_norm(eager.to_tensor(x), epsilon=0.5)  # Paddle 2.6.2: ValueError from its op too
    with pytest.raises(ValueError, match="batch_norm: argument 'input' expected a 2-D to 5-D Tensor"):
        S.batch_norm(eager.to_tensor(x[0, 0, 0]))


def test_static_nn_group_and_instance_norm():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 3, 5)).astype("float32")
    S = eager.static.nn
    out = S.group_norm(eager.to_tensor(x), groups=2)
    assert out.stop_gradient  # no parameters without param_attr/bias_attr (Paddle 2.6.2)
    expected = _normalize(x.reshape(2, 2, -1), (2,)).reshape(x.shape)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-5)
    init = eager.nn.initializer.Constant
    both = S.group_norm(eager.to_tensor(x), 4, param_attr=eager.ParamAttr(initializer=init(2.0)),
                        bias_attr=eager.ParamAttr(initializer=init(0.5)), act="sigmoid")
    np.testing.assert_allclose(both.numpy(), 1 / (1 + np.exp(-(2 * _normalize(x, (2, 3)) + 0.5))),
                               rtol=1e-5, atol=1e-5)
    flat = S.group_norm(eager.to_tensor(x[:, :, 0, 0]), 2)
    np.testing.assert_allclose(flat.numpy(), _normalize(x[:, :, 0, 0].reshape(2, 2, 2), (2,)).reshape(2, 4),
                               rtol=1e-5, atol=1e-5)
    inst = S.instance_norm(eager.to_tensor(x))
    np.testing.assert_allclose(inst.numpy(), _normalize(x, (2, 3)), rtol=1e-5, atol=1e-5)
    # Paddle 2.6.2 makes the scale and bias only when both attrs are given
    one = S.instance_norm(eager.to_tensor(x), param_attr=eager.ParamAttr(initializer=init(2.0)))
    np.testing.assert_allclose(one.numpy(), _normalize(x, (2, 3)), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="group_norm: argument 'data_layout' expected 'NCHW' or 'NHWC'"):
        S.group_norm(eager.to_tensor(x), 2, data_layout="NCL")


def test_static_auc():
    p = eager.to_tensor(np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]], "float32"))
    label = eager.to_tensor(np.array([[0], [1], [1], [0]]))
    auc_out, batch_auc, stats = eager.static.auc(p, label)
    # 3 of the 4 (positive, negative) pairs are ranked right
    assert auc_out.dtype == eager.float64 and auc_out.shape == [] and float(auc_out) == 0.75
    assert float(batch_auc) == 0.75 and auc_out.stop_gradient
    assert [s.shape for s in stats] == [[8193], [8193], [1, 4096], [1, 4096]]
    # num_thresholds=3: buckets int(p * 3); values from Paddle 2.6.2
    auc_out, batch_auc, stats = eager.static.auc(p, label, num_thresholds=3)
    assert float(auc_out) == 0.625 and float(batch_auc) == 0.625
    assert [s.numpy().tolist() for s in stats] == [[0, 1, 1, 0, 0, 1, 1, 0, 1], [1, 0, 1, 0, 1, 0, 1, 0, 1],
                                                   [[0, 1, 1, 0]], [[1, 0, 1, 0]]]
    assert all(s.dtype == eager.int64 for s in stats)
    _, _, stats = eager.static.auc(p, label, num_thresholds=3, slide_steps=0)
    assert [s.numpy().tolist() for s in stats] == [[[0, 1, 1, 0]], [[1, 0, 1, 0]]] * 2
    with pytest.raises(ValueError, match="auc: argument 'input' expected shape \\[N, 2\\] or \\[N, 1\\]"):
        eager.static.auc(eager.concat([p, p], axis=1), label)
    with pytest.raises(TypeError, match="auc: argument 'input' expected a Tensor"):
        eager.static.auc(p.numpy(), label)


def test_static_nn_spectral_norm_and_bilinear_tensor_product():
    rng = np.random.default_rng(2)
    w = rng.standard_normal((3, 4)).astype("float64")
    S = eager.static.nn
    out = S.spectral_norm(eager.to_tensor(w), power_iters=100)
    np.testing.assert_allclose(out.numpy(), w / np.linalg.svd(w, compute_uv=False)[0], rtol=1e-9)
    w4 = rng.standard_normal((2, 3, 2, 2)).astype("float32")
    out = S.spectral_norm(eager.to_tensor(w4), dim=1, power_iters=200)
    sigma = np.linalg.svd(np.moveaxis(w4, 1, 0).reshape(3, -1), compute_uv=False)[0]
    np.testing.assert_allclose(out.numpy(), w4 / sigma, rtol=1e-4)
    with pytest.raises(ValueError, match="spectral_norm: argument 'dim' expected 0 .* or 1"):
        S.spectral_norm(eager.to_tensor(w4), dim=2)  # Paddle 2.6.2: ValueError too
    x = rng.standard_normal((5, 3)).astype("float32")
    y = rng.standard_normal((5, 4)).astype("float32")
    const = lambda v: eager.ParamAttr(initializer=eager.nn.initializer.Constant(v))  # noqa: E731
    out = S.bilinear_tensor_product(eager.to_tensor(x), eager.to_tensor(y), 6, param_attr=const(0.5),
                                    bias_attr=const(0.25))
    expected = 0.5 * x.sum(1, keepdims=True) * y.sum(1, keepdims=True) + 0.25   # x W_i y^T with W_i all 0.5
    np.testing.assert_allclose(out.numpy(), np.repeat(expected, 6, axis=1), rtol=1e-5, atol=1e-5)
    assert not out.stop_gradient
    out = S.bilinear_tensor_product(eager.to_tensor(x), eager.to_tensor(y), 2, act="tanh", param_attr=const(0.5),
                                    bias_attr=False)
    np.testing.assert_allclose(out.numpy(), np.repeat(np.tanh(expected - 0.25), 2, axis=1), rtol=1e-5, atol=1e-5)
    assert S.bilinear_tensor_product(eager.to_tensor(x), eager.to_tensor(y), 7).shape == [5, 7]
    with pytest.raises(ValueError, match="bilinear_tensor_product: arguments 'x' and 'y' expected 2-D tensors"):
        S.bilinear_tensor_product(eager.to_tensor(x[None]), eager.to_tensor(y), 6)


def test_jit_save_of_o2_model_with_save_dtype_float32(tmp_path):
    eager.seed(3)
    model = eager.nn.Sequential(eager.nn.Linear(4, 3), eager.nn.ReLU(), eager.nn.Linear(3, 2))
    model = amp.decorate(model, level="O2", save_dtype="float32")
    assert model[0].weight.dtype == eager.float16
    weights = [p.numpy().astype(np.float32) for p in (model[0].weight, model[0].bias, model[2].weight, model[2].bias)]
    path = os.path.join(str(tmp_path), "m")
    eager.jit.save(model, path, input_spec=[eager.static.InputSpec([None, 4], "float32")])
    assert model[0].weight.dtype == eager.float16 and model[2].bias.dtype == eager.float16  # given back
    np.testing.assert_array_equal(model[0].weight.numpy().astype(np.float32), weights[0])
    loaded = eager.jit.load(path)
    assert all(p.dtype == eager.float32 for p in loaded.parameters())
    x = np.random.default_rng(4).standard_normal((5, 4)).astype("float32")
    out = loaded(eager.to_tensor(x))
    w1, b1, w2, b2 = weights
    np.testing.assert_allclose(out.numpy(), np.maximum(x @ w1 + b1, 0) @ w2 + b2, rtol=1e-5, atol=1e-5)


def test_static_nn_row_conv():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 5, 3)).astype("float32")
    w = rng.standard_normal((3, 3)).astype("float32")
    attr = eager.ParamAttr(initializer=eager.nn.initializer.Assign(w))
    out = eager.static.nn.row_conv(eager.to_tensor(x), 2, param_attr=attr, act="relu")
    padded = np.concatenate([x, np.zeros((2, 2, 3), np.float32)], axis=1)
    expected = sum(padded[:, k:k + 5, :] * w[k] for k in range(3))   # out[t] = sum_k x[t + k] * w[k]
    np.testing.assert_allclose(out.numpy(), np.maximum(expected, 0), rtol=1e-5, atol=1e-6)
    assert not out.stop_gradient and out.shape == [2, 5, 3]
    with pytest.raises(ValueError, match="row_conv: argument 'input' expected a 3-D Tensor"):
        eager.static.nn.row_conv(eager.to_tensor(x[0]), 2)
