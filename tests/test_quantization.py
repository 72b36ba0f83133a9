"""eager.quantization (QAT / PTQ) and eager.nn.quant against NumPy written from
the formulas: fake quantization round(clip(x, -s, s) / s * bnt) * s / bnt with
bnt = 2**(b-1) - 1, its straight-through gradient, the moving-average abs-max
scale, convert() equal to the fake-quantized model, and weight-only int8."""
from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest

import eager
from eager.nn.quant import Stub, llm_int8_linear, weight_dequantize, weight_only_linear, weight_quantize
from eager.nn.quant.fake_quant import fake_quant_dequant
from eager.nn.quant.qat import QuantedConv2D, QuantedLinear
from eager.quantization import PTQ, QAT, BaseQuanter, QuantConfig, quanter
from eager.quantization.observers import AbsmaxObserver
from eager.quantization.quanters import FakeQuanterWithAbsMaxObserver


def on_device(tensor, device):
    return ("gpu" in str(tensor.place).lower()) == (device == "gpu")


def np_round(x):  # halves away from zero, as Paddle's round
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def np_fake_quant(x, s, bits):
    bnt = 2 ** (bits - 1) - 1
    return np_round(np.clip(x, -s, s) / s * bnt) * s / bnt


def mlp():
    return eager.nn.Sequential(eager.nn.Linear(4, 16), eager.nn.ReLU(), eager.nn.Linear(16, 1))


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("bits", [2, 4, 8])
def test_fake_quant_values_and_straight_through_gradient(bits, device):
    rng = np.random.default_rng(bits)
    x_np = rng.uniform(-3, 3, size=[5, 7]).astype(np.float32)
    x_np[0, :3] = [0.5, -1.5, 2.5]   # exact halves of the grid for scale 1.5, 2 bits: x/s*1
    s = 1.5
    x = eager.to_tensor(x_np, stop_gradient=False)
    out = fake_quant_dequant(x, eager.to_tensor([s]), bits)
    assert on_device(out, device)
    np.testing.assert_allclose(out.numpy(), np_fake_quant(x_np, s, bits), rtol=1e-6, atol=1e-7)
    (out * eager.to_tensor(np.arange(35, dtype=np.float32).reshape(5, 7))).sum().backward()
    # Paddle's straight-through estimator: the gradient passes unchanged, clipped entries too.
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(35).reshape(5, 7))
    assert (np.abs(x_np) > s).any()  # some entries were clipped


@pytest.mark.usefixtures("device")
def test_moving_average_scale_against_a_hand_loop(device):
    quanter = FakeQuanterWithAbsMaxObserver(moving_rate=0.8, bit_length=4)._instance(None)
    rng = np.random.default_rng(0)
    state, accum = 1.0, 1.0   # Paddle's initial accumulators
    for step in range(4):
        x_np = rng.normal(size=[3, 5]).astype(np.float32) * (step + 1)
        out = quanter(eager.to_tensor(x_np))
        state = 0.8 * state + 1
        accum = 0.8 * accum + np.abs(x_np).max()
        np.testing.assert_allclose(quanter.scales().numpy(), [accum / state], rtol=1e-6)
        np.testing.assert_allclose(out.numpy(), np_fake_quant(x_np, np.float32(accum / state), 4), rtol=1e-5,
                                   atol=1e-6)
    quanter.eval()
    before = quanter.scales().numpy().copy()
    out = quanter(eager.to_tensor(np.full([2, 2], 100.0, np.float32)))
    np.testing.assert_array_equal(quanter.scales().numpy(), before)   # eval mode leaves the scale alone
    np.testing.assert_allclose(out.numpy(), np.full([2, 2], before[0]), rtol=1e-6)


@pytest.mark.usefixtures("device")
def test_qat_mlp_learns_and_convert_matches_the_fake_quantized_model(device):
    eager.seed(3)
    model = mlp()
    original = model[0].weight.numpy().copy()
    quanter = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)
    qat = QAT(QuantConfig(activation=quanter, weight=quanter))
    qmodel = qat.quantize(model)
    assert isinstance(qmodel[0], QuantedLinear) and isinstance(qmodel[2], QuantedLinear)
    rng = np.random.default_rng(1)
    x_np = rng.uniform(-1, 1, size=[64, 4]).astype(np.float32)
    x, y = eager.to_tensor(x_np), eager.to_tensor(x_np @ np.array([[1.0], [-2.0], [0.5], [1.5]], np.float32))
    opt = eager.optimizer.Adam(learning_rate=0.02, parameters=qmodel.parameters())
    losses = []
    for _ in range(60):
        loss = ((qmodel(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.2 * losses[0]
    np.testing.assert_array_equal(model[0].weight.numpy(), original)   # quantize(inplace=False) copied it
    qmodel.eval()
    expected = qmodel(x).numpy()
    converted = qat.convert(qmodel)
    weight = converted[0].weight.numpy()
    np.testing.assert_array_equal(weight, np.round(weight))   # stored as integer levels
    assert weight.min() >= -127 and weight.max() <= 127
    out = converted(x)
    assert on_device(out, device)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(qmodel(x).numpy(), expected)   # convert(inplace=False) left qmodel alone


def test_ptq_absmax_observer_and_converted_outputs_against_numpy():
    eager.seed(4)
    model = eager.nn.Sequential(eager.nn.Linear(3, 5))
    model.eval()
    observer = AbsmaxObserver(quant_bits=8)
    ptq = PTQ(QuantConfig(activation=observer, weight=observer))
    observed = ptq.quantize(model)
    rng = np.random.default_rng(2)
    batches = [rng.normal(size=[4, 3]).astype(np.float32) * k for k in (1, 3, 2)]
    for batch in batches:
        np.testing.assert_allclose(observed(eager.to_tensor(batch)).numpy(), model(eager.to_tensor(batch)).numpy())
    act_scale = max(np.abs(b).max() for b in batches)
    np.testing.assert_allclose(observed[0].activation_quanter.scales().numpy(), act_scale, rtol=1e-6)
    w, b = model[0].weight.numpy(), model[0].bias.numpy()
    w_scale = np.abs(w).max()
    converted = ptq.convert(observed)
    x_np = batches[1]
    xq = np_fake_quant(x_np, act_scale, 8)
    wq = np_fake_quant(w, w_scale, 8)
    np.testing.assert_allclose(converted(eager.to_tensor(x_np)).numpy(), xq @ wq + b, rtol=1e-5, atol=1e-5)


def test_config_priorities_mappings_stub_and_conv():
    class Net(eager.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = eager.nn.Conv2D(2, 3, 3, padding=1)
            self.fc1 = eager.nn.Linear(3, 3)
            self.fc2 = eager.nn.Linear(3, 3)
            self.stub = Stub()

        def forward(self, x):
            h = self.conv(x).mean(axis=[2, 3])
            return self.fc2(self.fc1(self.stub(h)))

    net = Net()
    q8, q4 = FakeQuanterWithAbsMaxObserver(bit_length=8), FakeQuanterWithAbsMaxObserver(bit_length=4)
    config = QuantConfig(activation=None, weight=None)
    config.add_type_config(eager.nn.Linear, activation=q8, weight=q8)
    config.add_layer_config(net.fc2, activation=None, weight=q4)   # by layer beats by type
    config.add_name_config(net.conv.full_name(), activation=q8, weight=q8)
    qnet = QAT(config).quantize(net)
    assert isinstance(qnet.conv, QuantedConv2D) and isinstance(qnet.fc1, QuantedLinear)
    assert qnet.fc2.activation_quanter is None and qnet.fc2.weight_quanter.bit_length() == 4
    assert qnet.fc1.weight_quanter.bit_length() == 8
    assert type(qnet.stub).__name__ == "Stub"   # no global config: the stub is not configured
    x = eager.to_tensor(np.random.default_rng(5).normal(size=[2, 2, 5, 5]).astype(np.float32))
    assert qnet(x).shape == [2, 3]
    # QuantedConv2D is conv2d of the fake-quantized input and weight, with the scales its quanters hold
    qconv = QAT(QuantConfig(q4, q8)).quantize(net).conv
    out = qconv(x)
    s_act, s_w = qconv.activation_quanter.scales().numpy()[0], qconv.weight_quanter.scales().numpy()[0]
    ref = eager.nn.functional.conv2d(eager.to_tensor(np_fake_quant(x.numpy(), s_act, 4)),
                                     eager.to_tensor(np_fake_quant(net.conv.weight.numpy(), s_w, 8)),
                                     net.conv.bias, padding=1)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)

    stubbed = QAT(QuantConfig(activation=q8, weight=None)).quantize(net)
    assert type(stubbed.stub).__name__ == "QuanterStub" and stubbed.fc1.weight_quanter is None

    class MyLinear(QuantedLinear):
        pass

    config = QuantConfig(activation=q8, weight=q8)
    config.add_qat_layer_mapping(eager.nn.Linear, MyLinear)
    assert isinstance(QAT(config).quantize(net).fc1, MyLinear)

    class PlainTarget:  # Paddle asks only that the target be a class
        def __init__(self, layer, layer_config):
            self.wrapped = layer

    config.add_qat_layer_mapping(eager.nn.Conv2D, PlainTarget)
    assert config.qat_layer_mappings[eager.nn.Conv2D] is PlainTarget


def test_quanter_decorator_declares_a_factory():
    @quanter("HalfQuanter")
    class HalfQuanterLayer(BaseQuanter):
        def __init__(self, layer, factor=0.5):
            super().__init__()
            self.factor = factor

        def forward(self, input):
            return input * self.factor

        def scales(self):
            return eager.to_tensor([1.0])

        def zero_points(self):
            return None

        def quant_axis(self):
            return -1

        def bit_length(self):
            return 8

    factory = globals()["HalfQuanter"](factor=0.25)
    model = QAT(QuantConfig(activation=factory, weight=None)).quantize(eager.nn.Sequential(eager.nn.Linear(2, 2)))
    assert isinstance(model[0].activation_quanter, HalfQuanterLayer) and model[0].activation_quanter.factor == 0.25
    del globals()["HalfQuanter"]


@pytest.mark.usefixtures("device")
def test_weight_only_int8_against_a_dequantized_reference(device):
    rng = np.random.default_rng(6)
    w_np = rng.normal(size=[8, 5]).astype(np.float32)
    w_np[:, 2] = 0.0   # an all-zero channel quantizes to zeros, scale 0
    out, scale = weight_quantize(eager.to_tensor(w_np))
    assert str(out.dtype).endswith("int8") and out.shape == [5, 8] and scale.shape == [5]
    ref_scale = np.abs(w_np).max(axis=0) / 127
    np.testing.assert_allclose(scale.numpy(), ref_scale, rtol=1e-6)
    safe = np.where(ref_scale > 0, ref_scale, 1)
    ref_q = np.clip(np_round(w_np / safe), -127, 127).T
    np.testing.assert_array_equal(out.numpy(), ref_q)
    deq = weight_dequantize(out, scale, out_dtype="float32")
    np.testing.assert_allclose(deq.numpy(), ref_q.T * ref_scale, rtol=1e-6)
    assert np.abs(deq.numpy() - w_np).max() <= ref_scale.max() / 2 + 1e-6
    x_np = rng.normal(size=[2, 3, 8]).astype(np.float32)
    bias_np = rng.normal(size=[5]).astype(np.float32)
    x = eager.to_tensor(x_np, stop_gradient=False)
    y = weight_only_linear(x, out, bias=eager.to_tensor(bias_np), weight_scale=scale)
    assert on_device(y, device) and y.shape == [2, 3, 5]
    np.testing.assert_allclose(y.numpy(), x_np @ (ref_q.T * ref_scale) + bias_np, rtol=1e-5, atol=1e-5)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to((ref_q.T * ref_scale).sum(axis=1), [2, 3, 8]),
                               rtol=1e-5, atol=1e-5)


def _llm_int8_reference(x, qweight, scale, bias, threshold):
    """LLM.int8 by hand: outlier columns (any |x| > threshold) in float64 with the
    dequantized weight, the rest quantized per row and multiplied in exact integers."""
    k = qweight.shape[1]
    rows = x.reshape(-1, k).astype(np.float64)
    above = np.abs(rows) > threshold
    outlier = above.any(axis=0)
    ranges = np.where(above, 0.0, np.abs(rows)).max(axis=1)
    safe = np.where(ranges > 0, ranges, 1.0)
    q = np.clip(np_round(rows * 127.0 / safe[:, None]), -127, 127).astype(np.int64)
    q[:, outlier] = 0
    acc = np.zeros((rows.shape[0], qweight.shape[0]), np.int64)
    for i in range(rows.shape[0]):          # integer dot products, one output at a time
        for j in range(qweight.shape[0]):
            acc[i, j] = sum(int(a) * int(b) for a, b in zip(q[i], qweight[j]))
    out = acc * ranges[:, None] * scale[None, :].astype(np.float64) / 127.0
    out += rows[:, outlier] @ (qweight[:, outlier].astype(np.float64) * scale[:, None]).T
    if bias is not None:
        out += bias
    return out.reshape(x.shape[:-1] + (qweight.shape[0],)), outlier


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("dtype, rtol", [("float64", 1e-12), ("float32", 2e-6)])
def test_llm_int8_linear_against_a_hand_computed_reference(device, dtype, rtol):
    rng = np.random.default_rng(10)
    w_np = rng.normal(size=[16, 6])
    qweight, scale = weight_quantize(eager.to_tensor(w_np.astype(np.float32)), algo="llm.int8")
    x_np = rng.normal(size=[2, 3, 16])
    x_np[0, 1, 4] = 9.0      # column 4 holds an outlier (|x| > 6)
    x_np[1, 2, 11] = -7.5    # so does column 11
    x_np[1, 0, :] = 0.0      # a row of zeros has range 0
    x_np = x_np.astype(dtype)
    bias_np = rng.normal(size=[6]).astype(dtype)
    x = eager.to_tensor(x_np, stop_gradient=False)
    y = llm_int8_linear(x, qweight, bias=eager.to_tensor(bias_np), weight_scale=scale)
    assert on_device(y, device) and y.shape == [2, 3, 6] and y.dtype == x.dtype
    assert y.stop_gradient  # no backward, as Paddle's op
    want, outlier = _llm_int8_reference(x_np, qweight.numpy(), scale.numpy(), bias_np, 6.0)
    assert np.flatnonzero(outlier).tolist() == [4, 11]
    np.testing.assert_allclose(y.numpy(), want, rtol=rtol, atol=rtol)
    # within int8 rounding of the float product (the outlier columns exact up to the weight's rounding)
    deq = qweight.numpy().T.astype(np.float64) * scale.numpy()
    np.testing.assert_allclose(y.numpy(), x_np.astype(np.float64) @ deq + bias_np, atol=0.1)
    # threshold: with no outliers every column is quantized; with 0 every nonzero column is an outlier
    none, _ = _llm_int8_reference(x_np, qweight.numpy(), scale.numpy(), None, 100.0)
    np.testing.assert_allclose(llm_int8_linear(x, qweight, weight_scale=scale, threshold=100.0).numpy(), none,
                               rtol=rtol, atol=rtol)
    exact = llm_int8_linear(x, qweight, weight_scale=scale, threshold=0.0).numpy()
    np.testing.assert_allclose(exact, x_np.astype(np.float64) @ deq, rtol=rtol * 10, atol=rtol * 10)


def test_llm_int8_linear_checks_its_arguments_first():
    qweight, scale = weight_quantize(eager.ones([4, 3]), algo="llm.int8")
    x = eager.ones([2, 4])
    cases = [
        (lambda: llm_int8_linear(eager.ones([2, 4], dtype="int32"), qweight, weight_scale=scale), TypeError,
         r"llm_int8_linear: argument 'x' expected a floating-point Tensor"),
        (lambda: llm_int8_linear(x, qweight), TypeError, r"llm_int8_linear: argument 'weight_scale' expected a Tensor"),
        (lambda: llm_int8_linear(x, qweight.astype("float32"), weight_scale=scale), TypeError,
         r"llm_int8_linear: argument 'weight' expected an int8 Tensor"),
        (lambda: llm_int8_linear(eager.ones([2, 5]), qweight, weight_scale=scale), ValueError,
         r"llm_int8_linear: the last dimension of x \(5\) must equal weight.shape\[1\] \(4\)"),
        (lambda: llm_int8_linear(x, qweight, bias=eager.ones([4]), weight_scale=scale), ValueError,
         r"llm_int8_linear: argument 'bias' expected None or a Tensor of shape \[3\], got \[4\]"),
        (lambda: llm_int8_linear(x, qweight, weight_scale=scale, threshold="6"), TypeError,
         r"llm_int8_linear: argument 'threshold' expected a number, got str"),
        (lambda: llm_int8_linear(x, qweight, weight_scale=scale, threshold=-1.0), ValueError,
         r"llm_int8_linear: argument 'threshold' expected a number >= 0, got -1.0"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()


def _linear_of_width(k):
    qweight, scale = weight_quantize(eager.ones([4, 3]))
    return weight_only_linear(eager.ones([2, k]), qweight, weight_scale=scale)


@pytest.mark.parametrize("call, error, message", [
    (lambda: FakeQuanterWithAbsMaxObserver(moving_rate=1.5), ValueError,
     r"FakeQuanterWithAbsMaxObserver: argument 'moving_rate' expected a number in \[0, 1\), got 1.5"),
    (lambda: FakeQuanterWithAbsMaxObserver(bit_length=1), ValueError,
     r"FakeQuanterWithAbsMaxObserver: argument 'bit_length' expected an int in \[2, 16\], got 1"),
    (lambda: AbsmaxObserver(quant_bits=8.0), TypeError, r"AbsmaxObserver: argument 'quant_bits' expected an int"),
    (lambda: QuantConfig(activation="abs_max", weight=None), TypeError,
     r"QuantConfig: argument 'activation' expected a quanter/observer factory"),
    (lambda: QuantConfig(None, None).add_type_config(int), TypeError,
     r"QuantConfig.add_type_config: argument 'layer_type' expected a subclass of eager.nn.Layer"),
    (lambda: QuantConfig(None, None).add_qat_layer_mapping(eager.nn.Linear, "QuantedLinear"), TypeError,
     r"QuantConfig.add_qat_layer_mapping: argument 'target' expected a class, got 'QuantedLinear'"),
    (lambda: QuantConfig(None, None).add_qat_layer_mapping(object, QuantedLinear), TypeError,
     r"QuantConfig.add_qat_layer_mapping: argument 'source' expected a subclass of eager.nn.Layer"),
    (lambda: QAT(QuantConfig(None, None)).quantize(mlp().eval()), ValueError,
     r"QAT.quantize: quantization-aware training needs a model in training mode"),
    (lambda: PTQ(QuantConfig(None, None)).quantize(mlp()), ValueError,
     r"PTQ.quantize: post-training quantization needs a model in evaluation mode"),
    (lambda: QAT("config"), TypeError, r"QAT: argument 'config' expected a QuantConfig, got str"),
    (lambda: QAT(QuantConfig(None, None)).quantize([1]), TypeError,
     r"QAT.quantize: argument 'model' expected an eager.nn.Layer, got list"),
    (lambda: fake_quant_dequant(eager.to_tensor([1, 2]), eager.to_tensor([1.0])), TypeError,
     r"fake_quant_dequant: argument 'x' expected a floating-point Tensor, got dtype"),
    (lambda: weight_quantize(eager.ones([4])), ValueError,
     r"weight_quantize: argument 'x' expected a 2-D Tensor, got shape \[4\]"),
    (lambda: weight_quantize(eager.ones([4, 4]), algo="weight_only_int4"), ValueError,
     r"weight_quantize: argument 'algo' expected one of \['weight_only_int8', 'llm.int8'\], got 'weight_only_int4'"),
    (lambda: weight_dequantize(eager.ones([2, 3]), eager.ones([2])), TypeError,
     r"weight_dequantize: argument 'x' expected an int8 Tensor"),
    (lambda: weight_only_linear(eager.ones([2, 4]), weight_quantize(eager.ones([4, 3]))[0]), TypeError,
     r"weight_only_linear: argument 'weight_scale' expected a Tensor"),
    (lambda: _linear_of_width(5), ValueError,
     r"weight_only_linear: the last dimension of x \(5\) must equal weight.shape\[1\] \(4\)"),
])
def test_errors_name_the_function_and_argument(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_failed_quantize_leaves_the_model_alone():
    model = mlp().eval()
    before = [p.numpy().copy() for p in model.parameters()]
    with pytest.raises(ValueError):
        QAT(QuantConfig(FakeQuanterWithAbsMaxObserver(), None)).quantize(model, inplace=True)
    assert isinstance(model[0], eager.nn.Linear)
    for p, b in zip(model.parameters(), before):
        np.testing.assert_array_equal(p.numpy(), b)


def test_paddle_namespace_paths():
    assert eager.quantization.QAT is QAT and eager.nn.quant.Stub is Stub
    assert eager.nn.quant.weight_only_linear is weight_only_linear
    assert eager.nn.quant.llm_int8_linear is llm_int8_linear and "llm_int8_linear" in eager.nn.quant.__all__


def test_quanter_state_is_saved_and_never_touched_by_the_optimizer():
    eager.seed(7)
    quanter = FakeQuanterWithAbsMaxObserver(moving_rate=0.5)
    qat = QAT(QuantConfig(activation=quanter, weight=quanter))
    model = qat.quantize(mlp())
    x = eager.to_tensor(np.random.default_rng(8).normal(size=[6, 4]).astype(np.float32))
    model(x).sum().backward()
    keys = model.state_dict().keys()
    assert {"0.weight_quanter._scale", "0.activation_quanter._state", "2.weight_quanter._accum"} <= set(keys)
    scale = model[0].weight_quanter.scales().numpy().copy()
    eager.optimizer.SGD(learning_rate=0.5, parameters=model.parameters(), weight_decay=0.1).step()
    np.testing.assert_array_equal(model[0].weight_quanter.scales().numpy(), scale)
    other = qat.quantize(mlp())
    other.set_state_dict(model.state_dict())
    model.eval()
    other.eval()
    np.testing.assert_array_equal(other(x).numpy(), model(x).numpy())


# -- ImperativeQuantAware (Paddle's string-configured dynamic-graph QAT) -----------------------------

def test_imperative_quant_aware_swaps_unskipped_layers_and_fake_quantizes(tmp_path):
    from eager.quantization import ImperativeQuantAware
    from eager.static.quantization import ImperativeQuantAware as from_static

    assert from_static is ImperativeQuantAware
    eager.seed(3)
    model = eager.nn.Sequential(eager.nn.Linear(6, 5), eager.nn.ReLU(), eager.nn.Linear(5, 3))
    model[0].skip_quant = True
    ImperativeQuantAware(weight_bits=8, activation_bits=8, moving_rate=0.9).quantize(model)
    assert type(model[0]) is eager.nn.Linear and isinstance(model[2], QuantedLinear)
    x = np.random.default_rng(0).normal(size=(4, 6)).astype(np.float32)
    out = model(eager.to_tensor(x)).numpy()
    hidden = np.maximum(x @ model[0].weight.numpy() + model[0].bias.numpy(), 0)
    w = model[2].weight.numpy()
    s_w = np.abs(w).max()                                    # abs_max: this step's max|w|
    s_a = (0.9 * 1.0 + np.abs(hidden).max()) / (0.9 * 1.0 + 1.0)   # moving average from state = accum = 1
    want = np_fake_quant(hidden, s_a, 8) @ np_fake_quant(w, s_w, 8) + model[2].bias.numpy()
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    path = str(tmp_path / "qat")
    ImperativeQuantAware().save_quantized_model(model, path, input_spec=[eager.static.InputSpec([None, 6])])
    loaded = eager.jit.load(path)
    np.testing.assert_allclose(loaded(eager.to_tensor(x)).numpy(), model.eval()(eager.to_tensor(x)).numpy(),
                               rtol=1e-5, atol=1e-6)


def test_imperative_quant_aware_swaps_conv2d_transpose_for_the_quantized_layer(tmp_path):
    from eager.nn.quant.quant_layers import QuantizedConv2DTranspose
    from eager.quantization import ImperativeQuantAware

    eager.seed(4)
    model = eager.nn.Sequential(eager.nn.Conv2D(2, 3, 3), eager.nn.Conv2DTranspose(3, 2, 3, stride=2))
    up = model[1]
    ImperativeQuantAware(weight_bits=6, activation_bits=7, moving_rate=0.8).quantize(model)
    assert isinstance(model[0], QuantedConv2D) and type(model[1]) is QuantizedConv2DTranspose
    assert model[1].weight is up.weight and model[1]._fake_quant_weight._quant_bits == 6
    x = np.random.default_rng(1).normal(size=(1, 2, 5, 5)).astype(np.float32)
    hidden = model[0](eager.to_tensor(x))
    out = model[1](hidden).numpy()
    h = hidden.numpy().astype(np.float64)
    s_a = (0.8 + np.abs(h).max()) / 1.8  # moving average from state = accum = 1
    w = up.weight.numpy().astype(np.float64)
    twin = eager.nn.Conv2DTranspose(3, 2, 3, stride=2)
    twin.weight.set_value(np_fake_quant(w, np.abs(w).max(), 6).astype(np.float32))
    twin.bias.set_value(up.bias.numpy())
    want = twin(eager.to_tensor(np_fake_quant(h, s_a, 7).astype(np.float32))).numpy()
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    skipped = eager.nn.Sequential(eager.nn.Conv2DTranspose(3, 2, 3))
    ImperativeQuantAware(quantizable_layer_type=["Conv2D", "Linear"]).quantize(skipped)
    assert type(skipped[0]) is eager.nn.Conv2DTranspose
    path = str(tmp_path / "qat_transpose")  # saved with its fake-quant layers; eval mode: the stored scale
    ImperativeQuantAware().save_quantized_model(model, path, input_spec=[eager.static.InputSpec([None, 2, 5, 5])])
    loaded = eager.jit.load(path).eval()
    np.testing.assert_allclose(loaded(eager.to_tensor(x)).numpy(), model.eval()(eager.to_tensor(x)).numpy(),
                               rtol=1e-5, atol=1e-6)


def test_imperative_quant_aware_errors():
    from eager.quantization import ImperativeQuantAware

    with pytest.raises(ValueError, match="ImperativeQuantAware: argument 'weight_quantize_type' expected one of"):
        ImperativeQuantAware(weight_quantize_type="range_abs_max")
    with pytest.raises(ValueError, match="ImperativeQuantAware: argument 'activation_quantize_type' expected one of"):
        ImperativeQuantAware(activation_quantize_type="max")
    with pytest.raises(ValueError, match="ImperativeQuantAware: argument 'quantizable_layer_type' expected names"):
        ImperativeQuantAware(quantizable_layer_type=["Dense"])
    with pytest.raises(TypeError, match="ImperativeQuantAware: argument 'act_quantize_layer' expected a subclass"):
        ImperativeQuantAware(act_quantize_layer=object)
    with pytest.raises(TypeError, match="ImperativeQuantAware.quantize: argument 'model' expected an eager.nn.Layer"):
        ImperativeQuantAware().quantize("model")
    with pytest.raises(ValueError, match="save_quantized_model: expected one of the arguments 'path' and 'model_path'"):
        ImperativeQuantAware().save_quantized_model(eager.nn.Linear(2, 2))


def test_weight_only_docstring_examples_run():
    """The examples of weight_quantize, weight_dequantize and weight_only_linear run
    as written (they once named undefined w and x)."""
    module = importlib.import_module("eager.nn.quant.quantized_linear")
    result = doctest.testmod(module, extraglobs={"eager": eager, "np": np},
                             optionflags=doctest.NORMALIZE_WHITESPACE, report=False)
    assert result.failed == 0 and result.attempted >= 9, result
    for function in (weight_dequantize, weight_only_linear):
        assert ">>> w = eager.to_tensor(" in function.__doc__
