"""eager.amp: auto_cast's per-op casting, GradScaler's dynamic loss scaling,
decorate's O2 models and optimizers, against hand-computed references."""
from __future__ import annotations

import re
import threading
from pathlib import Path

import numpy as np
import pytest

import eager
from eager import amp
from eager.amp import amp_lists
from eager.errors import AnomalyError

ROOT = Path(__file__).resolve().parent.parent


def _t(array, stop_gradient=True):
    return eager.to_tensor(np.asarray(array), stop_gradient=stop_gradient)


# -- the lists -------------------------------------------------------------------

def test_every_listed_name_is_an_op_of_ops_yaml():
    ops = set(re.findall(r"^- op : (\w+)", (ROOT / "ops.yaml").read_text(), re.M))
    listed = (amp_lists.FP16_WHITE_LIST | amp_lists.FP16_BLACK_LIST | amp_lists.EXTRA_BLACK_LIST
              | amp_lists.BF16_WHITE_LIST | amp_lists.BF16_BLACK_LIST | set(amp_lists.PADDLE_OP_NAMES.values()))
    assert listed - ops == set()
    assert not set(amp_lists.PADDLE_OP_NAMES) & ops  # an alias never hides an op of the same name


def test_white_and_black_list_tables():
    white, black = amp.white_list(), amp.black_list()
    assert set(white) == set(black) == {"float16", "bfloat16"}
    assert "matmul" in white["float16"]["O1"] and "conv2d" in white["float16"]["O2"]
    assert "softmax" in black["float16"]["O1"] and "softmax" not in black["float16"]["O2"]
    assert "embedding" in black["float16"]["O2"] and black["float16"]["OD"] == set()
    white["float16"]["O1"].add("relu")  # a copy: the module's lists do not change
    assert "relu" not in amp.white_list()["float16"]["O1"]


def test_float16_and_bfloat16_support():
    assert amp.is_float16_supported() is True and amp.is_float16_supported("gpu:0") is True
    # bfloat16 on the CPU with ml_dtypes (tests/test_bfloat16.py); CuPy has none
    assert amp.is_bfloat16_supported("gpu:0") is False


# -- auto_cast: which dtype each op runs in -----------------------------------------

@pytest.mark.parametrize("device", ["cpu", "gpu"], indirect=True)
def test_o1_white_black_and_promoted_ops(device, rng):
    x = _t(rng.standard_normal((4, 3)).astype("float32"))
    w = _t(rng.standard_normal((3, 5)).astype("float32"))
    with amp.auto_cast():
        y = eager.matmul(x, w)                         # white: float16
        assert y.dtype == eager.float16
        assert eager.nn.functional.relu(y).dtype == eager.float16   # follows its float16 input
        assert eager.nn.functional.softmax(y).dtype == eager.float32  # black: float32
        assert (y + y).dtype == eager.float16          # all inputs float16: stays
        assert (y + eager.ones([4, 5])).dtype == eager.float32  # a float32 input: promoted
        assert eager.cast(y, "float64").dtype == eager.float64  # an explicit cast is obeyed
        idx = eager.to_tensor(np.array([1, 0]))
        assert eager.gather(y, idx).dtype == eager.float16  # integer inputs are never cast
        with amp.auto_cast(enable=False):
            assert eager.matmul(x, w).dtype == eager.float32
        assert eager.matmul(x, w).dtype == eager.float16  # the outer block again
    assert eager.matmul(x, w).dtype == eager.float32
    np.testing.assert_allclose(y.numpy().astype(np.float64),
                               x.numpy().astype(np.float16).astype(np.float64)
                               @ w.numpy().astype(np.float16).astype(np.float64), rtol=5e-3, atol=5e-3)


def test_custom_lists_levels_and_paddle_names(rng):
    x = _t(rng.standard_normal((2, 3)).astype("float32"))
    w = _t(rng.standard_normal((3, 3)).astype("float32"))
    with amp.auto_cast(custom_black_list={"matmul"}):
        assert eager.matmul(x, w).dtype == eager.float32
    with amp.auto_cast(custom_white_list={"elementwise_add"}):  # Paddle's name of add
        assert (x + w[:2]).dtype == eager.float16
    with amp.auto_cast(custom_white_list=["softmax"]):  # out of the black list
        assert eager.nn.functional.softmax(x).dtype == eager.float16
    half = eager.cast(x, "float16")
    with amp.auto_cast(level="OD"):  # only the white list in float16
        assert eager.matmul(x, w).dtype == eager.float16
        assert eager.nn.functional.relu(half).dtype == eager.float32
    with amp.auto_cast(level="O2", use_promote=False):  # all but the black list in float16
        assert (x + x).dtype == eager.float16
        assert eager.reshape(x, [3, 2]).dtype == eager.float32  # view ops are never cast (they stay views)
        assert eager.nn.functional.embedding(eager.to_tensor(np.array([0, 1])), w).dtype == eager.float32
    with amp.auto_cast(level="O2"):  # promote: a float32 input keeps float32
        assert (x + x).dtype == eager.float32
        assert eager.nn.functional.softmax(half).dtype == eager.float16  # not black at O2
    with amp.auto_cast(level="O0"):
        assert eager.matmul(x, w).dtype == eager.float32
    with amp.amp_guard():
        assert eager.matmul(x, w).dtype == eager.float16


def test_auto_cast_as_decorator_and_per_thread(rng):
    x = _t(rng.standard_normal((2, 2)).astype("float32"))

    @amp.auto_cast()
    def product():
        return eager.matmul(x, x)

    assert product().dtype == eager.float16
    seen = []
    inside, done = threading.Event(), threading.Event()

    def other():
        inside.wait()
        seen.append(eager.matmul(x, x).dtype)  # another thread: not in auto_cast
        done.set()

    thread = threading.Thread(target=other)
    thread.start()
    with amp.auto_cast():
        inside.set()
        done.wait()
        assert eager.matmul(x, x).dtype == eager.float16
    thread.join()
    assert seen == [eager.float32]


def test_to_static_runs_eagerly_inside_auto_cast(rng):
    x = _t(rng.standard_normal((3, 3)).astype("float32"))
    net = eager.jit.to_static(eager.nn.Linear(3, 3, bias_attr=False))  # a matmul: white list
    for _ in range(3):  # captured and replayed outside auto_cast
        assert net(x).dtype == eager.float32
    with amp.auto_cast():
        assert net(x).dtype == eager.float16
    assert net(x).dtype == eager.float32


@pytest.mark.parametrize("device", ["cpu", "gpu"], indirect=True)
def test_gradients_reach_float32_leaves(device, rng):
    xv = rng.standard_normal((5, 4)).astype("float32")
    wv = rng.standard_normal((4, 3)).astype("float32")
    x, w = _t(xv, False), _t(wv, False)
    with amp.auto_cast():
        h = eager.nn.functional.relu(eager.matmul(x, w))  # float16
        loss = (h * h).mean()                             # multiply float16; mean float32
    assert h.dtype == eager.float16 and loss.dtype == eager.float32
    loss.backward()
    assert x.grad.dtype == eager.float32 and w.grad.dtype == eager.float32
    # Reference in float64 from the float16-rounded inputs: d mean(relu(xw)^2).
    x64, w64 = xv.astype(np.float16).astype(np.float64), wv.astype(np.float16).astype(np.float64)
    pre = x64 @ w64
    g = 2 * np.maximum(pre, 0) * (pre > 0) / pre.size
    np.testing.assert_allclose(x.grad.numpy(), g @ w64.T, rtol=2e-2, atol=2e-3)
    np.testing.assert_allclose(w.grad.numpy(), x64.T @ g, rtol=2e-2, atol=2e-3)


def test_anomaly_mode_still_names_the_op_inside_auto_cast(rng):
    x = _t(np.array([[0.0, 1.0]], dtype="float32"), False)
    with eager.autograd.detect_anomaly(), amp.auto_cast():
        with pytest.raises(AnomalyError, match=r"^log: output 0 \(paddle.float32") as caught:
            eager.log(eager.matmul(x, _t(np.eye(2, dtype="float32"))))
        stack = str(caught.value).split("called from:\n", 1)[1]
        assert stack.rstrip().endswith("eager.log(eager.matmul(x, _t(np.eye(2, dtype=\"float32\"))))")
        assert "op_modes.py" not in stack and "generated" not in stack
        with pytest.raises(AnomalyError, match=r"^layer_norm: output 0 \(paddle.float32"):  # checks itself (intermediates)
            eager.nn.functional.layer_norm(_t(np.array([[np.inf, 1.0]], dtype="float32")), [2])
        with pytest.raises(AnomalyError, match=r"^cast: output 0 \(paddle.float16"):  # auto_cast's cast: 1e5 overflows float16
            eager.matmul(x + 1e5, _t(np.eye(2, dtype="float32")))


# -- GradScaler ------------------------------------------------------------------------

def _step(scaler, opt, w, data):
    loss = (w * _t(np.asarray(data, dtype="float32"))).sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    opt.clear_grad()


def test_grad_scaler_dynamic_scale_sequence():
    w = eager.create_parameter([2], "float32")
    w.set_value(np.array([1.0, 2.0], dtype="float32"))
    opt = eager.optimizer.SGD(0.5, parameters=[w])
    scaler = amp.GradScaler(init_loss_scaling=8.0, incr_every_n_steps=2, decr_every_n_nan_or_inf=1)
    scales, values = [], []
    for data in ([1.0, 1.0], [1.0, 1.0], [np.inf, 1.0], [1.0, 1.0], [np.nan, 0.0], [1.0, 3.0], [1.0, 1.0]):
        _step(scaler, opt, w, data)
        scales.append(scaler._scale)
        values.append(w.numpy().tolist())
    # good, good (x2 -> 16), inf (/2 -> 8, skipped), good, nan (/2 -> 4, skipped), good, good (x2 -> 8)
    assert scales == [8.0, 16.0, 8.0, 8.0, 4.0, 4.0, 8.0]
    expected, w_now = [], np.array([1.0, 2.0])
    for data, skipped in (([1, 1], 0), ([1, 1], 0), (None, 1), ([1, 1], 0), (None, 1), ([1, 3], 0), ([1, 1], 0)):
        if not skipped:
            w_now = w_now - 0.5 * np.asarray(data, dtype=np.float64)  # the unscaled gradient
        expected.append(w_now.tolist())
    np.testing.assert_allclose(values, expected)
    assert opt._step_count == 5


def test_grad_scaler_minimize_unscale_and_skipped_step_keeps_adam_state():
    w = eager.create_parameter([3], "float32")
    w.set_value(np.array([1.0, -1.0, 0.5], dtype="float32"))
    opt = eager.optimizer.Adam(0.1, parameters=[w])
    scaler = amp.GradScaler(init_loss_scaling=1024.0)
    loss = (w * w).sum()
    scaled = scaler.scale(loss)
    np.testing.assert_allclose(scaled.numpy(), 1024.0 * loss.numpy(), rtol=1e-6)
    scaled.backward()
    scaler.unscale_(opt)
    np.testing.assert_allclose(w.grad.numpy(), 2 * w.numpy(), rtol=1e-6)  # the true gradient
    with pytest.raises(RuntimeError, match="unscale_\\(\\) was already called"):
        scaler.unscale_(opt)
    ops, params_grads = scaler.minimize(opt, scaled)
    assert ops == [] and params_grads[0][0] is w
    opt.clear_grad()
    state, before = opt.state_dict(), w.numpy().copy()
    bad = (w * _t(np.array([np.inf, 1.0, 1.0], dtype="float32"))).sum()
    scaled = scaler.scale(bad)
    scaled.backward()
    ops, params_grads = scaler.minimize(opt, scaled)  # skipped: the pairs not applied, as Paddle's
    assert ops == [] and params_grads[0][0] is w and not np.isfinite(params_grads[0][1].numpy()[0])
    np.testing.assert_array_equal(w.numpy(), before)
    after = opt.state_dict()
    assert after["@step"] == state["@step"] == 1
    for key, value in state.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(after[key], value)
    assert scaler._scale == 512.0


def test_grad_scaler_state_dict_round_trip_and_disabled():
    scaler = amp.GradScaler(init_loss_scaling=256.0, incr_ratio=3.0, decr_ratio=0.25,
                            incr_every_n_steps=7, decr_every_n_nan_or_inf=2)
    scaler._incr_count, scaler._decr_count = 3, 1
    state = scaler.state_dict()
    other = amp.GradScaler()
    other.load_state_dict(state)
    assert other.state_dict() == state
    assert (other.get_init_loss_scaling(), other.get_incr_ratio(), other.get_decr_ratio(),
            other.get_incr_every_n_steps(), other.get_decr_every_n_nan_or_inf()) == (256.0, 3.0, 0.25, 7, 2)
    assert other.is_enable() and other.is_use_dynamic_loss_scaling()
    state_with_array = dict(state, scale=np.array([64.0], dtype=np.float32))
    other.load_state_dict(state_with_array)
    assert other._scale == 64.0
    off = amp.GradScaler(enable=False)
    assert off.state_dict() == {} and not off.is_enable()
    loss = _t(np.array(2.0, dtype="float32"))
    assert off.scale(loss) is loss
    with pytest.raises(RuntimeError, match="empty"):
        other.load_state_dict({})
    with pytest.raises(ValueError, match=r"load_state_dict: argument 'state_dict\['incr_ratio'\]' expected a float > 1.0"):
        other.load_state_dict(dict(state, incr_ratio=0.5))
    assert other._scale == 64.0  # a bad dict changes nothing
    assert amp.AmpScaler().get_init_loss_scaling() == 32768.0


# -- decorate (O2) ---------------------------------------------------------------------

def _mlp():
    return eager.nn.Sequential(eager.nn.Linear(4, 16), eager.nn.LayerNorm(16), eager.nn.ReLU(),
                               eager.nn.Linear(16, 8), eager.nn.BatchNorm1D(8), eager.nn.Linear(8, 1))


def test_decorate_o2_keeps_norm_layers_and_gives_master_weights():
    eager.seed(3)
    model = _mlp()
    opt = eager.optimizer.Momentum(0.1, parameters=model.parameters())
    out_model, out_opt = amp.decorate(models=model, optimizers=opt, level="O2", excluded_layers=model[5])
    assert out_model is model and out_opt is opt
    assert model[0].weight.dtype == eager.float16 and model[3].bias.dtype == eager.float16
    assert model[1].weight.dtype == eager.float32  # LayerNorm
    assert model[4].weight.dtype == eager.float32 and model[4]._mean.dtype == eager.float32  # BatchNorm1D
    assert model[5].weight.dtype == eager.float32  # excluded
    assert opt._multi_precision is True
    x = _t(np.ones((8, 4), dtype="float32"))
    with amp.auto_cast(level="O2"):
        loss = model(x).mean()
    loss.backward()
    assert model[0].weight.grad.dtype == eager.float16
    opt.step()
    masters = list(opt._master_weights.values())
    assert masters and all(m.dtype == eager.float32 for m in masters)
    assert amp.decorate(models=[model], level="O1") == [model]  # O1: nothing changes


def test_decorate_save_dtype():
    model = eager.nn.Linear(2, 2)
    amp.decorate(models=model, level="O2", save_dtype="float32")
    assert model.weight.dtype == eager.float16
    assert {v.dtype.value for v in model.state_dict().values()} == {"float32"}
    assert model.weight.dtype == eager.float16


@pytest.mark.parametrize("level", ["O1", "O2"])
def test_mlp_learns_with_grad_scaler(level):
    eager.seed(0)
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((64, 4)).astype("float32")
    yv = (xv @ np.array([[1.0], [-2.0], [0.5], [1.5]], dtype="float32")).astype("float32")
    model = eager.nn.Sequential(eager.nn.Linear(4, 32), eager.nn.ReLU(), eager.nn.Linear(32, 1))
    opt = eager.optimizer.Adam(0.01, parameters=model.parameters())
    if level == "O2":
        model, opt = amp.decorate(models=model, optimizers=opt, level="O2")
    scaler = amp.GradScaler(init_loss_scaling=1024)
    x, y = _t(xv), _t(yv)
    losses = []
    for _ in range(60):
        with amp.auto_cast(level=level):
            loss = eager.nn.functional.mse_loss(model(x), y)
        scaled = scaler.scale(loss)
        scaled.backward()
        scaler.minimize(opt, scaled)
        opt.clear_grad()
        losses.append(float(loss.numpy()))
    assert losses[-1] < 0.1 * losses[0]


# -- bad arguments -------------------------------------------------------------------

def test_bad_arguments():
    with pytest.raises(ValueError, match="auto_cast: argument 'level' expected one of 'O0', 'OD', 'O1', 'O2', got 'O3'"):
        amp.auto_cast(level="O3")
    with pytest.raises(ValueError, match="auto_cast: argument 'dtype' expected 'float16' or 'bfloat16', got 'int8'"):
        amp.auto_cast(dtype="int8")
    with pytest.raises(ValueError, match=r"custom_black_list' names \['no_such_op'\], which are not ops"):
        amp.auto_cast(custom_black_list={"no_such_op"})
    with pytest.raises(TypeError, match="custom_white_list' expected None or a set, list or tuple of op names, got"):
        amp.auto_cast(custom_white_list="matmul")
    with pytest.raises(ValueError, match=r"ops \['matmul'\] are in both custom_white_list and custom_black_list"):
        amp.auto_cast(custom_white_list=["matmul"], custom_black_list=["matmul_v2"])
    with pytest.raises(TypeError, match="auto_cast: argument 'enable' expected a bool"):
        amp.auto_cast(enable="yes")
    with pytest.raises(ValueError, match="GradScaler: argument 'incr_ratio' expected a float > 1.0, got 1.0"):
        amp.GradScaler(incr_ratio=1.0)
    with pytest.raises(ValueError, match="GradScaler: argument 'decr_ratio' expected a float in \\(0, 1\\)"):
        amp.GradScaler(decr_ratio=2.0)
    with pytest.raises(ValueError, match="GradScaler: argument 'init_loss_scaling' expected a positive finite float"):
        amp.GradScaler(init_loss_scaling=-1)
    with pytest.raises(ValueError, match="argument 'incr_every_n_steps' expected a positive int"):
        amp.GradScaler(incr_every_n_steps=0)
    scaler = amp.GradScaler()
    with pytest.raises(TypeError, match="GradScaler.scale: argument 'var' expected a Tensor, got"):
        scaler.scale(1.0)
    with pytest.raises(TypeError, match="GradScaler.step: argument 'optimizer' expected an eager.optimizer.Optimizer"):
        scaler.step("sgd")
    model = eager.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="decorate: argument 'level' expected 'O1' \\(AMP\\) or 'O2'"):
        amp.decorate(models=model, level="O3")
    with pytest.raises(TypeError, match="decorate: argument 'models' expected a Layer or a list of them"):
        amp.decorate(models="net", level="O2")
    with pytest.raises(TypeError, match="decorate: argument 'master_grad'"):
        amp.decorate(models=model, level="O2", master_grad="yes")
    with pytest.raises(ValueError, match="decorate: argument 'save_dtype' expected None"):
        amp.decorate(models=model, level="O2", save_dtype="int32")
    assert model.weight.dtype == eager.float32  # every refusal left the model as it was


# -- eager.Model(...).prepare(amp_configs=...) ---------------------------------------------

@pytest.mark.parametrize("configs", ["O1", {"level": "O2", "init_loss_scaling": 256.0, "custom_black_list": ["relu"]}])
def test_model_prepare_amp_configs_trains(configs):
    eager.seed(1)
    rng = np.random.default_rng(1)
    xv = rng.standard_normal((64, 3)).astype("float32")
    yv = (xv @ np.array([[1.0], [-1.0], [2.0]], dtype="float32")).astype("float32")
    net = eager.nn.Sequential(eager.nn.Linear(3, 16), eager.nn.ReLU(), eager.nn.Linear(16, 1))
    model = eager.Model(net)
    model.prepare(eager.optimizer.Adam(0.02, parameters=model.parameters()), eager.nn.MSELoss(),
                  amp_configs=configs)
    if isinstance(configs, dict):
        assert net[0].weight.dtype == eager.float16  # O2 decorated the network
    first = model.eval_batch([xv], [yv])[0]
    for _ in range(40):
        model.train_batch([xv], [yv])
    assert isinstance(model._scaler, amp.GradScaler)
    assert model._scaler.get_init_loss_scaling() == (256.0 if isinstance(configs, dict) else 65536.0)
    last = model.eval_batch([xv], [yv])[0]
    assert float(last) < 0.2 * float(first)
    (out,) = model.predict_batch([xv])
    # the last Linear ran under auto_cast: its matmul in float16, then (as in Paddle) the add
    # promoted to float32 by O1's float32 bias, and kept in float16 by O2's decorated one
    assert out.dtype == (np.float16 if isinstance(configs, dict) else np.float32)


def test_model_prepare_amp_configs_refusals():
    model = eager.Model(eager.nn.Linear(2, 1))
    with pytest.raises(ValueError, match=r"Model.prepare: amp_configs\['level'\] expected 'O0', 'O1' or 'O2', got 'O3'"):
        model.prepare(amp_configs={"level": "O3"})
    with pytest.raises(ValueError, match=r"amp_configs keys \['scale'\] are not mixed precision settings"):
        model.prepare(amp_configs={"scale": 2})
    with pytest.raises(ValueError, match="custom_black_list' names \\['nope'\\]"):
        model.prepare(amp_configs={"level": "O2", "custom_black_list": ["nope"]})
    assert model.network.weight.dtype == eager.float32  # refused before decorating
    model.prepare(amp_configs="O0")
    assert model._amp_level == "O0"


def test_functionals_take_float16_with_float32_inside_auto_cast_only(rng):
    x = _t(rng.standard_normal((2, 4)).astype("float32"))
    net = eager.nn.Sequential(eager.nn.Linear(4, 4), eager.nn.PReLU())
    with amp.auto_cast():
        out = net(x)  # prelu: float16 input, float32 weight: promoted
    assert out.dtype == eager.float32
    h = x.numpy().astype(np.float16).astype(np.float64) @ net[0].weight.numpy().astype(np.float16) \
        + net[0].bias.numpy().astype(np.float16)
    np.testing.assert_allclose(out.numpy(), np.where(h > 0, h, 0.25 * h), rtol=1e-2, atol=1e-2)
    with pytest.raises(TypeError, match="prelu: argument 'weight' expected the dtype of 'x' paddle.float16"):
        net[1](eager.cast(x, "float16"))
    q = eager.cast(_t(rng.standard_normal((1, 3, 2, 4)).astype("float32")), "float16")
    mask = eager.zeros([1, 2, 3, 3])
    with amp.auto_cast():
        att = eager.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=mask, training=False)
    assert att.shape == [1, 3, 2, 4]
    with pytest.raises(TypeError, match="attn_mask' expected the dtype of query"):
        eager.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=mask, training=False)


def test_o2_lstm_takes_float32_inputs_inside_auto_cast_only(rng):
    eager.seed(2)
    lstm = amp.decorate(models=eager.nn.LSTM(3, 4), level="O2")
    x = _t(rng.standard_normal((2, 5, 3)).astype("float32"))
    with amp.auto_cast(level="O2"):
        out, (h, c) = lstm(x)  # float32 input, float16 weights: promoted to float32
    assert out.shape == [2, 5, 4] and out.dtype == eager.float32
    with pytest.raises(TypeError, match=r"argument 'inputs' expected dtype paddle.float16 \(the weights'\), got paddle.float32"):
        lstm(x)
