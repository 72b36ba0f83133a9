"""Regression cases found by re-telling Paddle's own unit tests of paddle.amp
(test/amp: test_amp_api, test_amp_list, test_amp_promote, test_amp_decorate,
test_layer_convert_dtype, test_collect_operator_stats, test_tensor_checker;
test/legacy_test: test_imperative_auto_mixed_precision's auto_cast, AmpScaler,
GradScaler and decorate cases) against eager. Paddle 2.6.2 on the CPU turns
auto_cast, GradScaler and decorate off (docs/amp.md), so the dtypes below are
the tests' GPU expectations, checked against Paddle 2.6.2's source (its
amp_guard, GradScaler and decorate) and, where the CPU runs them, its values.

Found and fixed:
- nn.Linear / F.linear under auto_cast ran as one white-listed op, float16 out;
  Paddle's dygraph linear is a matmul (white) and an add (promoted), so a
  float32 bias gives float32 at O1, OD and O2 with use_promote, and custom
  lists naming matmul/add decide (test_amp_api OD, test_amp_promote).
- decorate(level='O2', save_dtype=...) replaced the model's state_dict method,
  so set_state_dict (which reads the layer through state_dict(use_hook=False))
  saw float32 targets for float16 parameters and refused a float16 dict
  (TestStateDictHookForAMP); it is now a state-dict hook on every layer, as
  Paddle registers it.
- decorate(level='O2') took a paddle.DataParallel model and cast it; Paddle
  raises RuntimeError (decorate first, then wrap).
- amp.is_float16_supported / is_bfloat16_supported took any str ('xxx': True)
  and raised TypeError for 111; Paddle 2.6.2 raises ValueError for both
  (test_layer_convert_dtype's TestSupportedTypeInfo).
- paddle.base.core.get_low_precision_op_list() was missing: the operator
  statistics as {op: "fp16,bf16,fp32,other"}, kept after the collection
  ends, by Paddle's names too (elementwise_add, matmul_v2, reduce_mean;
  test_collect_operator_stats, test_amp_promote, test_amp_api).
- AmpScaler was a subclass of GradScaler; in Paddle GradScaler is the
  subclass (isinstance(GradScaler(), AmpScaler) is True), each with its own
  defaults.
- GradScaler.state_dict()["scale"] was a Python float; Paddle's is a float32
  array of shape [1] (its load_state_dict reads state_dict["scale"][0]).
- A tensor hook returning another dtype (an mm run in float16 by auto_cast
  inside the hook) raised ValueError; Paddle raises RuntimeError
  (TestAmpWithHook). Another shape, which Paddle takes, stays a ValueError.
- A depthwise Conv2D (groups == input channels) ran as the white-listed
  conv2d; Paddle runs it as depthwise_conv2d, which is in neither list (so
  promoted: float32 with a float32 filter at O1), and white_list() did not
  list it (found comparing white_list()/black_list() with Paddle 2.6.2's).
- GradScaler.minimize returned (None, None) for a skipped (Inf/NaN) step;
  Paddle hands found_inf to the optimizer's minimize, which skips the update
  and still returns ([], params_grads).
- paddle.amp.OptimizerState (INIT / UNSCALED / STEPPED), which Paddle 2.6.2's
  paddle.amp holds, was missing.

Also compared and agreeing (no change): auto_cast white/black ops and custom
lists, amp_guard level/dtype errors, GradScaler get/set, unscale_ twice /
after step and step twice (RuntimeError), load_state_dict({}) (RuntimeError),
a disabled scaler's load_state_dict, skipped Inf/NaN steps keeping parameters
and counters, parameter groups, O2 decorate with master weights (AdamW, the
first step skipped by the float16 overflow of the 65536 scale, then equal to a
NumPy AdamW), decorate's excluded_layers / norm layers / int buffers /
master_weight, Layer.float16/bfloat16/float(excluded_layers), the tensor
checker's debug_step and op lists (test_tensor_checker), check_numerics
against Paddle 2.6.2 on 300 random float16/32/64 tensors with NaN/Inf/0, and
operator statistics of float32/float64/int64 ops against Paddle 2.6.2.

Paddle quirks left (eager keeps its behaviour): check_numerics' CPU kernel
gives max = min = NaN when the FIRST element is NaN (else NaN is left out);
GradScaler with use_dynamic_loss_scaling=False keeps an optimizer UNSCALED
across update(), so the next unscale_ raises and a step() skips unscaling;
a hook returning another shape is taken silently. Not ported: compare_accuracy
(reads the flags-based checker's dump files, writes .xlsx), decorate's
master_grad=True (since supported: tests/test_paddle_ut_gaps_cases.py), static/PIR tests.
"""
import numpy as np
import pytest

import eager as paddle

pytestmark = pytest.mark.usefixtures("device")


def _conv_and_linear():
    paddle.seed(0)
    return paddle.nn.Conv2D(1, 6, 3, bias_attr=False), paddle.nn.Linear(4, 4)


@pytest.mark.parametrize("level, use_promote, expected", [
    ("OD", True, ("float16", "float32", "float32")),    # test_amp_api: only the white list in float16
    ("O2", True, ("float16", "float16", "float32")),    # test_amp_promote: the float32 bias promotes the add
    ("O2", False, ("float16", "float16", "float16")),
    ("O1", True, ("float16", "float16", "float32")),
])
def test_linear_under_auto_cast_is_a_matmul_then_a_promoted_add(level, use_promote, expected):
    conv, linear = _conv_and_linear()
    with paddle.amp.auto_cast(level=level, use_promote=use_promote):
        out1 = conv(paddle.rand([1, 1, 6, 6], dtype="float32"))
        out2 = out1 + paddle.rand(out1.shape, dtype="float16")
        out3 = linear(out2)
    assert (str(out1.dtype), str(out2.dtype), str(out3.dtype)) == tuple(f"paddle.{d}" for d in expected)
    # the values are the matmul rounded to float16, then the add in the add's dtype
    product = (out2.numpy().astype("float16").astype("float32") @ linear.weight.numpy().astype("float16")
               .astype("float32")).astype("float16").astype("float32")
    want = product + linear.bias.numpy().astype(out3.numpy().dtype).astype("float32")
    np.testing.assert_allclose(out3.numpy().astype("float32"), want, rtol=2e-3, atol=2e-3)


def test_custom_black_list_naming_matmul_keeps_linear_in_float32():
    _, linear = _conv_and_linear()
    x = paddle.rand([2, 4])
    with paddle.amp.auto_cast(custom_black_list={"matmul_v2"}):
        assert linear(x).dtype == paddle.float32
    with paddle.amp.auto_cast(level="O2", use_promote=False):
        assert linear(x).dtype == paddle.float16


def test_decorate_save_dtype_is_a_state_dict_hook_and_set_state_dict_loads():
    paddle.seed(100)
    model = paddle.amp.decorate(models=paddle.nn.Linear(2, 4), level="O2", save_dtype="float32")
    before = {name: p.numpy() for name, p in model.named_parameters()}
    state = model.state_dict()
    assert {str(v.dtype) for v in state.values()} == {"paddle.float32"}
    assert {str(v.dtype) for v in model.state_dict(use_hook=False).values()} == {"paddle.float16"}
    model.set_state_dict({key: value.cast("float16") for key, value in state.items()})
    for name, p in model.named_parameters():
        assert p.dtype == paddle.float16
        np.testing.assert_array_equal(p.numpy(), before[name])


def test_decorate_o2_refuses_a_data_parallel_model():
    model = paddle.DataParallel(paddle.nn.Conv2D(3, 2, 3))
    with pytest.raises(RuntimeError, match=r"decorate: argument 'models' holds a DataParallel"):
        paddle.amp.decorate(models=model, level="O2")
    assert model._layers.weight.dtype == paddle.float32  # nothing cast
    assert paddle.amp.decorate(models=model, level="O1") is model  # O1 changes nothing, as Paddle


@pytest.mark.parametrize("name", ["xxx", 111, "gpu:x"])
@pytest.mark.parametrize("fn", ["is_float16_supported", "is_bfloat16_supported"])
def test_amp_support_queries_refuse_what_is_no_device(fn, name):
    with pytest.raises(ValueError, match=rf"{fn}: argument 'device' expected"):
        getattr(paddle.amp, fn)(device=name)
    assert getattr(paddle.amp, fn)(device="cpu") in (True, False)


@pytest.mark.parametrize("use_context", [False, True])
def test_get_low_precision_op_list_after_collecting(use_context):
    conv = paddle.nn.Conv2D(3, 2, 3)
    x = paddle.rand([2, 3, 8, 8])
    if use_context:
        with paddle.amp.debugging.collect_operator_stats():
            with paddle.amp.auto_cast(enable=True, level="O2"):
                out = conv(x)
    else:
        paddle.amp.debugging.enable_operator_stats_collection()
        with paddle.amp.auto_cast(enable=True, level="O2"):
            out = conv(x)
        paddle.amp.debugging.disable_operator_stats_collection()
    ops = paddle.base.core.get_low_precision_op_list()
    assert ops == paddle.base.core.get_low_precision_op_list()  # kept, as Paddle's
    assert ops["conv2d"] == "1,0,0,0"  # in float16
    # the bias add: the float16 product meets the float32 bias, so it is promoted
    assert ops["elementwise_add"] == ops["add"] == "0,0,1,0" and out.dtype == paddle.float32
    assert ops["transfer_dtype"] == ops["cast"]
    with paddle.amp.debugging.collect_operator_stats():
        paddle.matmul(x, x).mean()
        running = paddle.base.core.get_low_precision_op_list()
    assert running["matmul_v2"] == running["matmul"] == "0,0,1,0" and "conv2d" not in running
    assert running["reduce_mean"] == "0,0,1,0"


def test_grad_scaler_is_the_subclass_of_amp_scaler():
    assert issubclass(paddle.amp.GradScaler, paddle.amp.AmpScaler)
    assert not issubclass(paddle.amp.AmpScaler, paddle.amp.GradScaler)
    amp_scaler, grad_scaler = paddle.amp.AmpScaler(), paddle.amp.GradScaler()
    assert isinstance(grad_scaler, paddle.amp.AmpScaler)
    assert (amp_scaler.get_init_loss_scaling(), amp_scaler.get_incr_every_n_steps()) == (2.0 ** 15, 1000)
    assert (grad_scaler.get_init_loss_scaling(), grad_scaler.get_incr_every_n_steps()) == (2.0 ** 16, 2000)
    with pytest.raises(ValueError, match=r"AmpScaler: argument 'incr_ratio' expected a float > 1.0"):
        paddle.amp.AmpScaler(incr_ratio=0.5)


def test_grad_scaler_state_dict_scale_is_paddles_float32_array():
    scaler = paddle.amp.GradScaler(init_loss_scaling=14, incr_ratio=233.0, decr_ratio=0.523,
                                   incr_every_n_steps=1090, decr_every_n_nan_or_inf=20)
    state = scaler.state_dict()
    assert isinstance(state["scale"], np.ndarray) and state["scale"].dtype == np.float32
    assert state["scale"].shape == (1,) and state["scale"][0] == 14.0
    other = paddle.amp.GradScaler()
    other.load_state_dict(state)
    assert (other.get_init_loss_scaling(), other.get_incr_ratio(), other.get_decr_ratio(),
            other.get_incr_every_n_steps(), other.get_decr_every_n_nan_or_inf()) == (14, 233.0, 0.523, 1090, 20)
    assert paddle.amp.GradScaler(enable=False).state_dict() == {}


def test_hook_changing_the_gradient_dtype_is_a_runtime_error():
    v = paddle.rand([3, 3])
    v.stop_gradient = False
    v.register_hook(lambda grad: paddle.mm(grad, grad))  # under auto_cast: float16
    with paddle.amp.auto_cast():
        loss = paddle.mm(v, v).sum()
        with pytest.raises(RuntimeError, match=r"returned a gradient of paddle.float16\[3, 3\].*must keep "
                                               r"paddle.float32\[3, 3\]"):
            loss.backward()
    w = paddle.rand([3, 3])
    w.stop_gradient = False
    w.register_hook(lambda grad: paddle.ones([2, 2]))
    with pytest.raises(ValueError, match=r"must keep paddle.float32\[3, 3\]"):
        paddle.mm(w, w).sum().backward()


@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_depthwise_conv2d_is_its_own_op_under_auto_cast(data_format):
    depthwise = paddle.nn.Conv2D(4, 8, 3, groups=4, bias_attr=False, data_format=data_format)
    grouped = paddle.nn.Conv2D(4, 8, 3, groups=2, bias_attr=False, data_format=data_format)
    x = paddle.rand([1, 4, 6, 6] if data_format == "NCHW" else [1, 6, 6, 4])
    with paddle.amp.auto_cast():
        assert depthwise(x).dtype == paddle.float32  # promoted by its float32 filter
        assert grouped(x).dtype == paddle.float16    # conv2d: white list
    with paddle.amp.auto_cast(custom_white_list=["depthwise_conv2d"]):
        out = depthwise(x)
    assert out.dtype == paddle.float16
    with paddle.amp.auto_cast(enable=False):
        want = depthwise(x.astype("float16").astype("float32"))
    np.testing.assert_allclose(out.numpy().astype("float32"), want.numpy(), rtol=1e-2, atol=1e-2)
    assert "depthwise_conv2d" not in paddle.amp.white_list()["float16"]["O1"]


def test_grad_scaler_minimize_of_a_skipped_step_returns_the_pairs():
    conv = paddle.nn.Conv2D(3, 4, 3)
    opt = paddle.optimizer.SGD(0.01, parameters=conv.parameters())
    before = [p.numpy().copy() for p in conv.parameters()]
    x = np.random.default_rng(0).random((1, 3, 8, 8)).astype("float32")
    x[0, 1, 2, 3] = np.nan
    scaler = paddle.amp.AmpScaler(init_loss_scaling=1024)
    scaled = scaler.scale(paddle.mean(conv(paddle.to_tensor(x))))
    scaled.backward()
    ops, params_grads = scaler.minimize(opt, scaled)
    assert ops == [] and len(params_grads) == 2
    assert all(p is q for (p, _), q in zip(params_grads, conv.parameters()))
    for p, value in zip(conv.parameters(), before):
        np.testing.assert_array_equal(p.numpy(), value)  # not updated
    assert scaler.get_init_loss_scaling() == 1024 and scaler._scale == 512.0


def test_optimizer_state_enum_tracks_the_scaler_round():
    state = paddle.amp.OptimizerState
    assert [(m.name, m.value) for m in state] == [("INIT", 0), ("UNSCALED", 1), ("STEPPED", 2)]
    w = paddle.create_parameter([2], "float32")
    opt = paddle.optimizer.SGD(0.1, parameters=[w])
    scaler = paddle.amp.GradScaler(init_loss_scaling=4.0)
    scaler.scale((w * w).sum()).backward()
    scaler.unscale_(opt)
    assert scaler._optimizer_states[id(opt)] is state.UNSCALED
    scaler.step(opt)
    assert scaler._optimizer_states[id(opt)] is state.STEPPED
    scaler.update()
    assert id(opt) not in scaler._optimizer_states
