"""Layer dtype/device conversion, state dicts, create_parameter with ParamAttr,
LayerDict and ParameterList, and the initializers (statistics from large
draws, orthogonality, the Dirac identity, reproducibility)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.nn import initializer as I

pytestmark = pytest.mark.usefixtures("device")


class _Net(eager.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = eager.nn.Linear(3, 2)
        self.emb = eager.nn.Embedding(5, 3)
        self.register_buffer("running", eager.ones([2]))
        self.register_buffer("steps", eager.to_tensor(np.array([3], np.int64)))
        self.register_buffer("scratch", eager.zeros([2]), persistable=False)

    def forward(self, x):
        return self.fc(x) * self.running


# -- dtype and device -------------------------------------------------------------------

def test_to_dtype_keeps_tensors_and_casts_gradients():
    net = _Net()
    weight, running = net.fc.weight, net.running
    opt = eager.optimizer.SGD(0.1, parameters=net.parameters())
    net(eager.ones([4, 3])).sum().backward()
    assert net.to(dtype="float64") is net
    assert net.fc.weight is weight and net.running is running
    assert weight.dtype == eager.float64 and weight.grad.dtype == eager.float64
    assert running.dtype == eager.float64 and net.steps.dtype == eager.int64  # integers stay
    assert not weight.stop_gradient and weight.name == net.fc.weight.name
    out = net(eager.ones([4, 3], "float64"))
    assert out.dtype == eager.float64
    before = weight.numpy().copy()
    opt.step()                                  # the optimizer sees the converted tensor
    np.testing.assert_allclose(weight.numpy(), before - 0.1 * weight.grad.numpy())
    net.to(device="cpu")
    assert weight.place.is_cpu_place() and weight.dtype == eager.float64


def test_float_double_half_astype_and_excluded_layers():
    net = _Net()
    net.double()
    assert {p.dtype for p in net.parameters()} == {eager.float64}
    net.float(excluded_layers=[eager.nn.Embedding])
    assert net.fc.weight.dtype == eager.float32 and net.emb.weight.dtype == eager.float64
    net.float(excluded_layers=net.fc)
    assert net.emb.weight.dtype == eager.float32
    net.float16()
    assert net.fc.weight.dtype == eager.float16 and net.half().running.dtype == eager.float16
    net.astype("float64")
    assert {p.dtype for p in net.parameters()} == {eager.float64} and net.running.dtype == eager.float64
    assert net.create_parameter([2]).dtype == eager.float64     # new parameters follow the layer's dtype


def test_conversion_rejects_bad_arguments():
    net = _Net()
    with pytest.raises(TypeError, match="Layer.to: argument 'dtype' expected a floating-point dtype"):
        net.to(dtype="int32")
    with pytest.raises(ValueError, match="Layer.to: argument 'device'"):
        net.to(device="tpu:3")
    with pytest.raises(TypeError, match="blocking"):
        net.to(blocking="yes")
    with pytest.raises(TypeError, match="excluded_layers"):
        net.float(excluded_layers=[3])
    assert net.fc.weight.dtype == eager.float32


# -- state dicts and parameters -----------------------------------------------------------

def test_state_dict_and_missing_unexpected_keys():
    net = _Net()
    keys = list(net.state_dict())
    # Paddle's order: the layer's own parameters and buffers, then its sublayers'; scratch is
    # not persistable
    assert keys == ["running", "steps", "fc.weight", "fc.bias", "emb.weight"]
    state = {k: v.numpy() * 0 for k, v in net.state_dict().items()}
    del state["running"]
    state["extra.weight"] = np.zeros(3)
    with pytest.warns(UserWarning):
        missing, unexpected = net.set_state_dict(state)
    assert missing == ["running"] and unexpected == ["extra.weight"]
    assert float(net.fc.weight.abs().sum()) == 0.0
    np.testing.assert_array_equal(net.running.numpy(), 1.0)


def test_create_parameter_with_param_attr():
    layer = eager.nn.Layer()
    attr = eager.nn.ParamAttr(name="w_custom", initializer=I.Constant(0.25), learning_rate=0.5,
                              regularizer=eager.regularizer.L2Decay(0.1), trainable=False)
    p = layer.create_parameter([2, 3], attr=attr)
    assert p.name == "w_custom" and p.shape == [2, 3] and p.stop_gradient and not p.trainable
    np.testing.assert_array_equal(p.numpy(), 0.25)
    assert p.optimize_attr["learning_rate"] == 0.5 and isinstance(p.regularizer, eager.regularizer.L2Decay)
    bias = layer.create_parameter([4], is_bias=True)
    np.testing.assert_array_equal(bias.numpy(), 0.0)
    assert layer.create_parameter([4], attr=False) is None
    d = layer.create_parameter([2, 2], dtype="float64", default_initializer=I.Constant(1.0))
    assert d.dtype == eager.float64 and float(d.sum()) == 4.0


# -- containers ---------------------------------------------------------------------------

def test_layer_dict():
    heads = eager.nn.LayerDict({"cls": eager.nn.Linear(4, 2), "box": eager.nn.Linear(4, 4)})
    assert list(heads.keys()) == ["cls", "box"] and len(heads) == 2 and "cls" in heads
    assert [n for n, _ in heads.named_parameters()] == ["cls.weight", "cls.bias", "box.weight", "box.bias"]
    heads["mask"] = eager.nn.Linear(4, 1)
    heads.update([("cls", eager.nn.Linear(4, 3))])
    assert heads["cls"].weight.shape == [4, 3] and list(heads) == ["cls", "box", "mask"]
    box = heads.pop("box")
    assert isinstance(box, eager.nn.Linear) and list(heads.keys()) == ["cls", "mask"]
    del heads["mask"]
    assert [type(v).__name__ for v in heads.values()] == ["Linear"] and len(list(heads.items())) == 1
    with pytest.raises(KeyError, match="no sublayer named 'nope'"):
        heads["nope"]
    with pytest.raises(TypeError, match="expected a Layer"):
        heads["x"] = 3
    with pytest.raises(TypeError, match=r"\(name, Layer\) pair"):
        heads.update([eager.nn.Linear(1, 1)])
    assert list(heads.keys()) == ["cls"]
    heads.clear()
    assert len(heads) == 0 and heads.parameters() == []


def test_parameter_list():
    params = eager.nn.ParameterList([eager.nn.Parameter(np.full((2,), float(i), "float32")) for i in range(2)])
    params.append(eager.nn.Parameter(np.zeros((3,), "float32")))
    params.extend([eager.nn.Parameter(np.ones((1,), "float32"))])
    assert len(params) == 4 and [n for n, _ in params.named_parameters()] == ["0", "1", "2", "3"]
    assert params[1].numpy()[0] == 1.0 and params[-1].shape == [1]
    replacement = eager.nn.Parameter(np.full((2,), 7.0, "float32"))
    params[0] = replacement
    assert params[0] is replacement and list(params.state_dict()) == ["0", "1", "2", "3"]
    assert len(params[1:3]) == 2
    with pytest.raises(TypeError, match="expected a Parameter"):
        params.append(eager.ones([2]))

    class Model(eager.nn.Layer):
        def __init__(self):
            super().__init__()
            self.ws = eager.nn.ParameterList([eager.nn.Parameter(np.ones((2,), "float32")) for _ in range(3)])

        def forward(self):
            return sum((w * w).sum() for w in self.ws)

    model = Model()
    opt = eager.optimizer.SGD(0.5, parameters=model.parameters())
    model().backward()
    opt.step()
    for w in model.ws:
        np.testing.assert_allclose(w.numpy(), 0.0)


# -- initializers -------------------------------------------------------------------------

def _stats(init, shape=(400, 500), dtype="float64"):
    eager.seed(11)
    values = init(shape, dtype)
    return values, values.mean(), values.std()


def test_constant_normal_uniform_statistics():
    np.testing.assert_array_equal(I.Constant(1.5)((3, 2)), np.full((3, 2), 1.5, np.float32))
    _, mean, std = _stats(I.Normal(0.5, 2.0))
    assert abs(mean - 0.5) < 0.02 and abs(std - 2.0) < 0.02
    values, mean, std = _stats(I.Uniform(-1.0, 3.0))
    assert values.min() >= -1.0 and values.max() < 3.0
    assert abs(mean - 1.0) < 0.02 and abs(std - 4.0 / math.sqrt(12)) < 0.01


def test_truncated_normal():
    values, mean, std = _stats(I.TruncatedNormal(0.0, 1.0))
    assert values.min() >= -2.0 and values.max() <= 2.0
    # The standard normal truncated to [-a, a]: var = 1 - 2 a pdf(a) / (2 cdf(a) - 1).
    a = 2.0
    pdf = math.exp(-a * a / 2) / math.sqrt(2 * math.pi)
    mass = math.erf(a / math.sqrt(2))
    assert abs(mean) < 0.01 and abs(std - math.sqrt(1 - 2 * a * pdf / mass)) < 0.01
    values, _, _ = _stats(I.TruncatedNormal(1.0, 0.5, a=0.8, b=1.1))
    assert values.min() >= 0.8 and values.max() <= 1.1
    with pytest.raises(ValueError, match="a < b"):
        I.TruncatedNormal(a=1.0, b=0.0)
    with pytest.raises(ValueError, match="6 std"):
        I.TruncatedNormal(0.0, 1.0, a=10.0, b=11.0)


def test_xavier_and_kaiming_use_paddle_fans():
    # A Linear weight is [in, out]: fan_in is shape[0] (PyTorch's [out, in] has it at shape[1]).
    fan_in, fan_out = 400, 100
    values, _, std = _stats(I.XavierUniform(), (fan_in, fan_out))
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    assert np.abs(values).max() <= limit and abs(std - limit / math.sqrt(3)) < 0.002
    _, _, std = _stats(I.XavierNormal(gain=2.0), (fan_in, fan_out))
    assert abs(std - 2.0 * math.sqrt(2.0 / (fan_in + fan_out))) < 0.002
    _, _, std = _stats(I.KaimingNormal(), (fan_in, fan_out))
    assert abs(std - math.sqrt(2.0 / fan_in)) < 0.001                      # 1/sqrt(400), not 1/sqrt(100)
    values, _, _ = _stats(I.KaimingUniform(nonlinearity="leaky_relu", negative_slope=0.2), (fan_in, fan_out))
    assert np.abs(values).max() <= math.sqrt(2.0 / 1.04) * math.sqrt(3.0 / fan_in)
    # A conv filter [out, in, kh, kw]: fan_in = in * kh * kw, fan_out = out * kh * kw.
    assert I.compute_fans((8, 4, 3, 3)) == (36, 72)
    _, _, std = _stats(I.KaimingNormal(fan_in=50.0), (300, 300))
    assert abs(std - math.sqrt(2.0 / 50.0)) < 0.002
    with pytest.raises(ValueError, match="fan_in"):
        I.XavierUniform(fan_in=0)


def test_calculate_gain():
    assert I.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert I.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert I.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01 ** 2)))
    assert I.calculate_gain("leaky_relu", 0.5) == pytest.approx(math.sqrt(2 / 1.25))
    assert I.calculate_gain("selu") == 0.75 and I.calculate_gain("conv2d_transpose") == 1.0
    with pytest.raises(ValueError, match="calculate_gain: argument 'nonlinearity'"):
        I.calculate_gain("swish")


@pytest.mark.parametrize("shape", [(6, 6), (4, 9), (9, 4), (6, 2, 3)])
def test_orthogonal(shape):
    eager.seed(1)
    w = I.Orthogonal(gain=2.0)(shape, "float64")
    assert w.shape == shape
    m = w.reshape(shape[0], -1) / 2.0
    if m.shape[0] <= m.shape[1]:
        np.testing.assert_allclose(m @ m.T, np.eye(m.shape[0]), atol=1e-12)
    else:
        np.testing.assert_allclose(m.T @ m, np.eye(m.shape[1]), atol=1e-12)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        I.Orthogonal()((4,))


def test_dirac_is_the_identity_convolution():
    x = eager.to_tensor(np.random.default_rng(0).standard_normal((2, 3, 5, 5)))
    w = eager.to_tensor(I.Dirac()((3, 3, 3, 3), "float64"))
    np.testing.assert_allclose(F.conv2d(x, w, padding=1).numpy(), x.numpy(), atol=1e-12)
    # More output channels than input: the extra ones are zero.
    w = eager.to_tensor(I.Dirac()((5, 3, 3, 3), "float64"))
    out = F.conv2d(x, w, padding=1).numpy()
    np.testing.assert_allclose(out[:, :3], x.numpy(), atol=1e-12)
    np.testing.assert_array_equal(out[:, 3:], 0.0)
    # Groups: each group passes its own channels through.
    x4 = eager.to_tensor(np.random.default_rng(1).standard_normal((1, 4, 4, 4)))
    w = eager.to_tensor(I.Dirac(groups=2)((4, 2, 3, 3), "float64"))
    np.testing.assert_allclose(F.conv2d(x4, w, padding=1, groups=2).numpy(), x4.numpy(), atol=1e-12)
    assert I.Dirac()((2, 2, 3)).sum() == 2 and I.Dirac()((2, 2, 3, 3, 3))[1, 1, 1, 1, 1] == 1
    with pytest.raises(ValueError, match="3-D, 4-D or 5-D"):
        I.Dirac()((3, 3))


def test_assign_and_bilinear():
    np.testing.assert_array_equal(I.Assign([[1.0, 2.0]])((1, 2)), np.array([[1.0, 2.0]], np.float32))
    np.testing.assert_array_equal(I.Assign(eager.ones([2]))((2,), "float64"), np.ones(2))
    with pytest.raises(ValueError, match="Assign: the value has shape"):
        I.Assign([1.0, 2.0])((3,))
    w = I.Bilinear()((2, 1, 4, 4), "float64")
    # The bilinear upsampling kernel for factor 2: taps (1 - |x/f - c|), f = 2, c = 0.75.
    taps = 1 - np.abs(np.arange(4) / 2 - 0.75)
    np.testing.assert_allclose(w[1, 0], np.outer(taps, taps))
    with pytest.raises(ValueError, match="square kernels"):
        I.Bilinear()((1, 1, 3, 4))


def test_initializers_follow_the_seed_and_fill_parameters_in_place():
    for init in (I.Normal(), I.TruncatedNormal(), I.Uniform(), I.XavierNormal(), I.KaimingUniform(),
                 I.Orthogonal()):
        eager.seed(3)
        a = init((5, 4))
        eager.seed(3)
        np.testing.assert_array_equal(a, init((5, 4)))
    fc = eager.nn.Linear(3, 2)
    weight = fc.weight
    assert I.Constant(0.5)(fc.weight) is weight and fc.weight is weight
    np.testing.assert_array_equal(weight.numpy(), 0.5)
    eager.seed(4)
    I.Orthogonal()(fc.weight)
    np.testing.assert_allclose(weight.numpy().T @ weight.numpy(), np.eye(2), atol=1e-6)
    eager.seed(5)
    a = eager.nn.Linear(4, 4, weight_attr=I.TruncatedNormal(std=0.02)).weight.numpy()
    eager.seed(5)
    np.testing.assert_array_equal(a, eager.nn.Linear(4, 4, weight_attr=I.TruncatedNormal(std=0.02)).weight.numpy())


def test_attr_true_means_the_default_parameter():
    # Paddle's ParamAttr._to_attr: True is the default attribute, False no parameter.
    eager.seed(3)
    default = eager.nn.Conv2D(3, 2, 3)
    eager.seed(3)
    explicit = eager.nn.Conv2D(3, 2, 3, weight_attr=True, bias_attr=True)
    np.testing.assert_array_equal(explicit.weight.numpy(), default.weight.numpy())
    np.testing.assert_array_equal(explicit.bias.numpy(), np.zeros(2, "float32"))
    assert eager.nn.Linear(2, 3, bias_attr=True).bias.shape == [3]
    with pytest.raises(TypeError, match=r"Linear: argument 'bias_attr' expected None, a bool, a ParamAttr, "
                                        r"a name or an initializer, got int"):
        eager.nn.Linear(2, 3, bias_attr=1)


def test_layer_names_snake_case_the_class_name_as_paddle():
    # Paddle names a Conv2D conv2d_N and its weight conv2d_N.w_0: a digit does not start a word,
    # a capitalised word does (LSTMCell -> lstm_cell), a capital after a lowercase letter does (ReLU -> re_lu).
    with eager.utils.unique_name.guard():
        names = [layer.full_name() for layer in (
            eager.nn.Conv2D(1, 1, 1), eager.nn.MaxPool2D(2), eager.nn.ReLU(), eager.nn.LSTMCell(2, 2),
            eager.nn.Conv2DTranspose(1, 1, 1), eager.nn.BatchNorm2D(1), eager.nn.PReLU(), eager.nn.Conv2D(1, 1, 1))]
        assert names == ["conv2d_0", "max_pool2d_0", "re_lu_0", "lstm_cell_0", "conv2d_transpose_0",
                         "batch_norm2d_0", "p_re_lu_0", "conv2d_1"]
        assert eager.nn.Conv1D(1, 1, 1).weight.name == "conv1d_0.w_0"
