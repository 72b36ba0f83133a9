"""eager.jit.api.TracedLayer (Paddle's older tracing API): trace returns the
eager outputs and a TracedLayer whose calls equal the layer's own forward,
on the layer's current parameters; save_inference_model round-trips through
eager.jit.load; bad arguments raise by type and message."""
import json

import numpy as np
import pytest

import eager
from eager import nn
from eager.jit.api import TracedLayer

RNG = np.random.default_rng(7)


def _t(shape, dtype="float32"):
    return eager.to_tensor(RNG.standard_normal(shape).astype(dtype))


def _mlp():
    eager.seed(5)
    return nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))


def _net():
    """Conv, batch norm and dropout: layers whose train mode differs from eval."""
    eager.seed(9)
    return nn.Sequential(nn.Conv2D(1, 3, 3), nn.BatchNorm2D(3), nn.ReLU(), nn.Flatten(), nn.Dropout(0.4),
                         nn.Linear(3 * 6 * 6, 4))


class _TwoByTwo(nn.Layer):
    """Two inputs, two outputs: the first reads only ``a``."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, a, b):
        return self.fc(a), a.sum(axis=1, keepdim=True) * b


class _Nested(nn.Layer):
    def forward(self, a, pair):
        return [a, (pair[0] * pair[1] + a,)]


def test_trace_returns_the_eager_outputs_and_the_traced_call_equals_them():
    net = _mlp()
    x = _t((5, 6))
    out, traced = TracedLayer.trace(net, inputs=[x])
    assert isinstance(traced, TracedLayer)
    np.testing.assert_array_equal(out.numpy(), net(x).numpy())
    got = traced([x])
    assert isinstance(got, list) and len(got) == 1 and isinstance(got[0], np.ndarray)
    np.testing.assert_array_equal(got[0], out.numpy())
    other = _t((5, 6))  # another input of the traced shape
    np.testing.assert_array_equal(traced([other])[0], net(other).numpy())
    # by hand: tanh(x W1 + b1) W2 + b2
    w1, b1, w2, b2 = (p.numpy().astype(np.float64) for p in net.parameters())
    want = np.tanh(other.numpy() @ w1 + b1) @ w2 + b2
    np.testing.assert_allclose(traced([other])[0], want, rtol=1e-5, atol=1e-6)


def test_the_outputs_trace_returns_carry_the_eager_graph():
    net, x = _mlp(), _t((4, 6))
    out, _ = TracedLayer.trace(net, [x])
    out.sum().backward()
    traced_grads = [p.grad.numpy().copy() for p in net.parameters()]
    net.clear_gradients()
    net(x).sum().backward()
    for got, want in zip(traced_grads, (p.grad.numpy() for p in net.parameters())):
        np.testing.assert_array_equal(got, want)


def test_a_single_tensor_input_and_a_returned_array_that_is_a_fresh_copy():
    net, x = _mlp(), _t((3, 6))
    out, traced = TracedLayer.trace(net, x)
    first = traced([x])[0]
    first[...] = 0.0  # the caller's array: the next call is not affected
    np.testing.assert_array_equal(traced((x,))[0], out.numpy())


def test_the_traced_call_reads_the_parameters_as_they_are_after_updates():
    net, x = _mlp(), _t((5, 6))
    out, traced = TracedLayer.trace(net, [x])
    opt = eager.optimizer.Adam(0.1, parameters=net.parameters())
    for _ in range(3):
        net(x).square().mean().backward()
        opt.step()
        opt.clear_grad()
    now = net(x).numpy()
    assert np.abs(now - out.numpy()).max() > 1e-3  # the training moved the outputs
    np.testing.assert_array_equal(traced([x])[0], now)
    net[0].weight.set_value(np.zeros([6, 8], "float32"))
    np.testing.assert_array_equal(traced([x])[0], net(x).numpy())


def test_train_mode_batch_norm_and_dropout_replay_as_the_eager_layer():
    x = _t((2, 1, 8, 8))
    net, twin = _net(), _net()
    eager.seed(20)
    out, traced = TracedLayer.trace(net, [x])
    eager.seed(20)
    np.testing.assert_array_equal(out.numpy(), twin(x).numpy())  # the trace call is an eager call
    version = net[1]._mean.impl.version
    eager.seed(21)
    got = traced([x])[0]
    eager.seed(21)
    want = twin(x).numpy()  # dropout draws the same mask, batch norm moves its statistics again
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(net[1]._mean.numpy(), twin[1]._mean.numpy())
    np.testing.assert_array_equal(net[1]._variance.numpy(), twin[1]._variance.numpy())
    assert net[1]._mean.impl.version > version  # the in-place write is seen by autograd's checks


def test_nested_inputs_several_outputs_and_an_input_returned():
    a, b, c = _t((3,)), _t((3,)), _t((3,))
    outs, traced = TracedLayer.trace(_Nested(), [a, [b, c]])
    assert isinstance(outs, list) and outs[0] is a and isinstance(outs[1], tuple)
    got = traced([a, b, c])  # the inputs flattened, as the outputs
    assert len(got) == 2
    np.testing.assert_array_equal(got[0], a.numpy())
    np.testing.assert_allclose(got[1], b.numpy() * c.numpy() + a.numpy(), rtol=1e-6)
    d = _t((3,))
    np.testing.assert_allclose(traced([d, b, c])[1], b.numpy() * c.numpy() + d.numpy(), rtol=1e-6)


def test_program_is_the_json_document():
    net, x = _mlp(), _t((5, 6))
    _, traced = TracedLayer.trace(net, [x])
    program = traced.program
    assert program["format"] == "eager.jit.program" and "grad" not in program
    assert program["inputs"] == [{"shape": [5, 6], "dtype": "float32", "name": "feed_0", "stop_gradient": True}]
    assert [entry["name"] for entry in program["state"]] == list(net.state_dict())
    assert len(program["calls"]) >= 3  # two linears and a tanh at least


def test_save_inference_model_round_trips_through_jit_load(tmp_path):
    net, x = _mlp(), _t((5, 6))
    _, traced = TracedLayer.trace(net, [x])
    opt = eager.optimizer.SGD(0.5, parameters=net.parameters())
    net(x).sum().backward()
    opt.step()  # saved: the parameters as they are at save
    traced.save_inference_model(str(tmp_path / "sub" / "mlp"))
    assert (tmp_path / "sub" / "mlp.pdmodel").exists() and (tmp_path / "sub" / "mlp.pdiparams").exists()
    loaded = eager.jit.load(str(tmp_path / "sub" / "mlp"))
    assert list(loaded.state_dict()) == list(net.state_dict())
    got = loaded(x)
    assert isinstance(got, eager.Tensor)
    np.testing.assert_array_equal(got.numpy(), net(x).numpy())


def test_save_inference_model_saves_the_eval_mode_program_and_leaves_the_modes(tmp_path):
    net, x = _net(), _t((2, 1, 8, 8))
    _, traced = TracedLayer.trace(net, [x])  # traced in train mode
    mean = net[1]._mean.numpy().copy()
    traced.save_inference_model(str(tmp_path / "net"))
    assert net.training and all(sub.training for sub in net.sublayers())
    np.testing.assert_array_equal(net[1]._mean.numpy(), mean)  # the eval trace moved no statistics
    loaded = eager.jit.load(str(tmp_path / "net"))
    assert not loaded.training  # eval mode after load, as Paddle's jit.load; its program is the inference one
    want = net.eval()(x).numpy()
    np.testing.assert_array_equal(loaded(x).numpy(), want)
    np.testing.assert_array_equal(loaded(x).numpy(), want)  # no dropout draws


def test_feed_and_fetch_pick_the_inputs_and_outputs(tmp_path):
    layer, a, b = _TwoByTwo(), _t((3, 4)), _t((3, 1))
    (first, second), traced = TracedLayer.trace(layer, [a, b])
    traced.save_inference_model(str(tmp_path / "first"), feed=[0], fetch=[0])
    only = eager.jit.load(str(tmp_path / "first"))
    with pytest.raises(TypeError, match="takes 1 input"):
        only(a, b)
    np.testing.assert_array_equal(only(a).numpy(), first.numpy())
    traced.save_inference_model(str(tmp_path / "both"), fetch=[-1, 0])
    got = eager.jit.load(str(tmp_path / "both"))(a, b)
    assert isinstance(got, list) and len(got) == 2
    np.testing.assert_array_equal(got[0].numpy(), second.numpy())
    np.testing.assert_array_equal(got[1].numpy(), first.numpy())
    traced.save_inference_model(str(tmp_path / "swap"), feed=[1, 0], fetch=[1])
    np.testing.assert_allclose(eager.jit.load(str(tmp_path / "swap"))(b, a).numpy(), second.numpy(), rtol=1e-6)


def test_feed_leaving_out_an_input_the_fetched_outputs_need_raises(tmp_path):
    _, traced = TracedLayer.trace(_TwoByTwo(), [_t((3, 4)), _t((3, 1))])
    with pytest.raises(ValueError, match=r"TracedLayer.save_inference_model: cannot save _TwoByTwo.forward as an "
                                         r"inference program: the fetched outputs need inputs \[1\], which "
                                         r"'feed' leaves out"):
        traced.save_inference_model(str(tmp_path / "m"), feed=[0], fetch=[1])
    assert not list(tmp_path.iterdir())


def test_the_saved_program_keeps_only_the_calls_the_fetched_outputs_need(tmp_path):
    layer, a, b = _TwoByTwo(), _t((3, 4)), _t((3, 1))
    _, traced = TracedLayer.trace(layer, [a, b])
    traced.save_inference_model(str(tmp_path / "all"))
    traced.save_inference_model(str(tmp_path / "one"), fetch=[0])
    every = json.loads((tmp_path / "all.pdmodel").read_text())["calls"]
    one = json.loads((tmp_path / "one.pdmodel").read_text())["calls"]
    assert 0 < len(one) < len(every)
    assert "multiply" in {c["kernel"] for c in every} and "multiply" not in {c["kernel"] for c in one}


class _HostRead(nn.Layer):
    def forward(self, x):
        return x * float(x.sum())


class _ReturnsDict(nn.Layer):
    def forward(self, x):
        return {"x": x}


def test_a_forward_the_program_cannot_express_raises():
    x = _t((3,))
    with pytest.raises(ValueError, match=r"TracedLayer.trace: cannot trace _HostRead.forward as a program: it "
                                         r"reads tensor values on the host"):
        TracedLayer.trace(_HostRead(), [x])
    with pytest.raises(TypeError, match=r"TracedLayer.trace: the outputs of _ReturnsDict.forward expected "
                                        r"Tensors .* got an item of type dict"):
        TracedLayer.trace(_ReturnsDict(), [x])


def test_trace_argument_errors():
    x = _t((3, 6))
    with pytest.raises(TypeError, match="TracedLayer.trace: argument 'layer' expected an eager.nn.Layer, got "
                                        "function"):
        TracedLayer.trace(lambda v: v, [x])
    with pytest.raises(TypeError, match="TracedLayer.trace: argument 'inputs' expected Tensors .* got an item "
                                        "of type ndarray"):
        TracedLayer.trace(_mlp(), [x.numpy()])
    with pytest.raises(TypeError, match="argument 'inputs' expected Tensors .* got an item of type int"):
        TracedLayer.trace(_Nested(), [x, [x, 3]])
    with pytest.raises(ValueError, match="argument 'inputs' holds one Tensor twice"):
        TracedLayer.trace(_TwoByTwo(), [x, x])


@pytest.fixture
def traced():
    return TracedLayer.trace(_mlp(), [_t((5, 6))])[1]


@pytest.mark.parametrize("inputs, error, message", [
    (lambda x: x, TypeError, "argument 'inputs' expected a list or tuple of Tensors, got Tensor"),
    (lambda x: [x, x], ValueError, r"the TracedLayer takes 1 input\(s\), got 2"),
    (lambda x: [x.numpy()], TypeError, "input 0 expected a Tensor, got ndarray"),
    (lambda x: [x[:4]], ValueError, r"input 0 expected float32\[5, 6\] .* got float32\[4, 6\]"),
    (lambda x: [x.astype("float64")], ValueError, r"input 0 expected float32\[5, 6\] .* got float64\[5, 6\]"),
])
def test_call_errors(traced, inputs, error, message):
    with pytest.raises(error, match=f"TracedLayer.__call__: {message}"):
        traced(inputs(_t((5, 6))))


@pytest.mark.parametrize("kwargs, error, message", [
    ({"path": 3}, TypeError, "argument 'path' expected a str, got int"),
    ({"path": "dir/"}, ValueError, "argument 'path' must be dirname/file_prefix"),
    ({"feed": (0,)}, TypeError, "argument 'feed' expected None or a list of int, got tuple"),
    ({"fetch": 0}, TypeError, "argument 'fetch' expected None or a list of int, got int"),
    ({"feed": [0.0]}, TypeError, "each element of 'feed' expected an int, got float"),
    ({"fetch": [True]}, TypeError, "each element of 'fetch' expected an int, got bool"),
    ({"feed": [1]}, ValueError, "argument 'feed' holds index 1, but the TracedLayer has 1 inputs"),
    ({"fetch": [-2]}, ValueError, "argument 'fetch' holds index -2, but the TracedLayer has 1 outputs"),
    ({"fetch": [0, -1]}, ValueError, "argument 'fetch' names output 0 twice"),
    ({"fetch": []}, ValueError, "argument 'fetch' is empty"),
    ({"clip_extra": "yes"}, TypeError, "argument 'clip_extra' expected a bool, got str"),
    ({"output_spec": []}, ValueError, "the keyword argument 'output_spec' is not supported"),
])
def test_save_inference_model_errors(traced, tmp_path, kwargs, error, message):
    kwargs.setdefault("path", str(tmp_path / "m"))
    with pytest.raises(error, match=f"TracedLayer.save_inference_model: {message}"):
        traced.save_inference_model(**kwargs)
    assert not list(tmp_path.iterdir())


def test_save_inference_model_accepts_paddles_options(traced, tmp_path):
    traced.save_inference_model(str(tmp_path / "m"), feed=[0], fetch=[0], clip_extra=False, legacy_format=True)
    assert eager.jit.load(str(tmp_path / "m"))(_t((5, 6))).shape == [5, 3]


def test_set_strategy_takes_none_before_the_first_call_only(traced):
    traced.set_strategy()
    traced.set_strategy(build_strategy=None, exec_strategy=None)
    traced.set_strategy(build_strategy=eager.static.BuildStrategy())  # kept, changing nothing
    with pytest.raises(TypeError, match="TracedLayer.set_strategy: argument 'build_strategy' expected None or a "
                                        "paddle.static.BuildStrategy, got object"):
        traced.set_strategy(build_strategy=object())
    with pytest.raises(TypeError, match="TracedLayer.set_strategy: argument 'exec_strategy' expected None"):
        traced.set_strategy(exec_strategy={"num_threads": 2})
    traced([_t((5, 6))])
    with pytest.raises(RuntimeError, match="cannot set the strategies after the TracedLayer ran"):
        traced.set_strategy()


@pytest.mark.usefixtures("device")
def test_trace_and_call_on_the_device_axis(device, tmp_path):
    net = _mlp()
    x = _t((4, 6))
    out, traced = TracedLayer.trace(net, [x])
    got = traced([x])[0]
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, out.numpy())
    traced.save_inference_model(str(tmp_path / "m"))
    np.testing.assert_array_equal(eager.jit.load(str(tmp_path / "m"))(x).numpy(), out.numpy())


def test_trace_inside_a_to_static_function_raises_instead_of_waiting_forever():
    net = _mlp()

    @eager.jit.to_static
    def step(x):
        TracedLayer.trace(net, [x])
        return x * 2.0

    for _ in range(2):  # the failed capture left the recorder ready for the next one
        with pytest.raises(RuntimeError, match="a kernel capture is already recording in this thread"):
            step(_t((2, 6)))
    _, traced = TracedLayer.trace(net, [_t((2, 6))])  # outside, tracing works
    assert len(traced([_t((2, 6))])) == 1
