"""eager.nn.quant.quant_layers (Paddle's paddle.nn.quant.quant_layers) against
NumPy written from Paddle's formulas: abs-max, moving-average and channel-wise
fake quantization, the moving-average scale layer, the quantized Linear, Conv2D,
Conv2DTranspose and matmul, the output-scale wrappers; straight-through gradients; errors."""
import numpy as np
import pytest

import eager
from eager import nn
from eager.nn.quant import quant_layers as QL

RNG = np.random.default_rng(31)


def _t(a, grad=False):
    return eager.to_tensor(np.asarray(a), stop_gradient=not grad)


def _round(v):
    """Rounding halves away from zero, as Paddle's quantization kernels."""
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def _fq(x, s, bits):
    """round(clip(x, -s, s) / s * bnt) * s / bnt, s broadcast against x."""
    bnt = 2.0 ** (bits - 1) - 1
    return _round(np.clip(x, -s, s) / s * bnt) * s / bnt


@pytest.mark.parametrize("bits", [2, 4, 8])
def test_fake_quant_abs_max_against_numpy_with_a_straight_through_gradient(bits):
    x = RNG.standard_normal((3, 5))
    layer = QL.FakeQuantAbsMax(quant_bits=bits, dtype="float64")
    assert layer._scale is None and not list(layer.state_dict())
    xt = _t(x, grad=True)
    out = layer(xt)
    np.testing.assert_allclose(out.numpy(), _fq(x, np.abs(x).max(), bits), rtol=1e-12, atol=1e-15)
    upstream = RNG.standard_normal((3, 5))
    (out * _t(upstream)).sum().backward()
    np.testing.assert_array_equal(xt.grad.numpy(), upstream)


def test_fake_quant_abs_max_on_a_weight_keeps_the_scale():
    layer = QL.FakeQuantAbsMax(name="w", quant_on_weight=True)
    assert list(layer.state_dict()) == ["_scale"] and layer._scale.stop_gradient
    np.testing.assert_allclose(layer._scale.numpy(), [0.001])
    layer.eval()(_t(np.array([0.5, -3.0, 1.0], "float32")))  # in every mode the input's own max
    np.testing.assert_allclose(layer._scale.numpy(), [3.0])


def test_fake_quant_moving_average_abs_max_follows_the_moving_average():
    rate, bits = 0.8, 5
    layer = QL.FakeQuantMovingAverageAbsMax(moving_rate=rate, quant_bits=bits, dtype="float64")
    state, accum = 1.0, 1.0
    for _ in range(3):
        x = RNG.standard_normal(7) * 3
        out = layer(_t(x)).numpy()
        state, accum = rate * state + 1, rate * accum + np.abs(x).max()
        np.testing.assert_allclose(out, _fq(x, accum / state, bits), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose([layer._scale.item(), layer._state.item(), layer._accum.item()],
                                   [accum / state, state, accum], rtol=1e-12)
    layer.eval()
    x = RNG.standard_normal(7) * 10  # eval mode: the stored scale, unmoved
    np.testing.assert_allclose(layer(_t(x)).numpy(), _fq(x, accum / state, bits), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(layer._scale.item(), accum / state, rtol=1e-12)


@pytest.mark.parametrize("axis", [0, 1])
def test_fake_quant_channel_wise_against_loops(axis):
    w = RNG.standard_normal((3, 4, 2))
    layer = QL.FakeQuantChannelWiseAbsMax(channel_num=w.shape[axis], quant_bits=4, quant_axis=axis,
                                          dtype="float64", quant_on_weight=True)
    wt = _t(w, grad=True)
    out = layer(wt)
    want = np.empty_like(w)
    scales = []
    for c in range(w.shape[axis]):
        index = [slice(None)] * 3
        index[axis] = c
        s = np.abs(w[tuple(index)]).max()
        scales.append(s)
        want[tuple(index)] = _fq(w[tuple(index)], s, 4)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(layer._scale.numpy(), scales, rtol=1e-12)
    out.sum().backward()
    np.testing.assert_array_equal(wt.grad.numpy(), np.ones_like(w))


def test_moving_average_abs_max_scale_passes_the_input_and_records_the_scale():
    assert QL.QuantStub is QL.MovingAverageAbsMaxScale and eager.nn.quant.QuantStub is QL.QuantStub
    rate = 0.5
    layer = QL.QuantStub(moving_rate=rate, dtype="float64")
    state = accum = 0.0
    for _ in range(3):
        x = RNG.standard_normal(6)
        xt = _t(x, grad=True)
        out = layer(xt)
        assert out is not xt
        np.testing.assert_array_equal(out.numpy(), x)
        state, accum = rate * state + 1, rate * accum + np.abs(x).max()
        np.testing.assert_allclose([layer._scale.item(), layer._state.item(), layer._accum.item()],
                                   [accum / state, state, accum], rtol=1e-12)
        (out * 3.0).sum().backward()
        np.testing.assert_array_equal(xt.grad.numpy(), np.full(6, 3.0))
    layer.eval()(_t(np.full(6, 100.0)))
    np.testing.assert_allclose(layer._scale.item(), accum / state, rtol=1e-12)


@pytest.mark.parametrize("weight_type", ["abs_max", "channel_wise_abs_max", "moving_average_abs_max"])
def test_quantized_linear_against_numpy(weight_type):
    eager.seed(2)
    lin = nn.Linear(4, 3)
    lin.weight.set_value(RNG.standard_normal((4, 3)).astype("float32"))
    q = QL.QuantizedLinear(lin, weight_bits=4, activation_bits=6, weight_quantize_type=weight_type,
                           activation_quantize_type="abs_max")
    assert q.weight is lin.weight and q.bias is lin.bias
    x = RNG.standard_normal((5, 4)).astype("float32")
    w, b = lin.weight.numpy().astype(np.float64), lin.bias.numpy().astype(np.float64)
    if weight_type == "channel_wise_abs_max":
        wq = _fq(w, np.abs(w).max(axis=0, keepdims=True), 4)  # one scale per output feature
    elif weight_type == "abs_max":
        wq = _fq(w, np.abs(w).max(), 4)
    else:
        wq = _fq(w, (0.9 + np.abs(w).max()) / 1.9, 4)  # the first moving-average step from 1, 1
    xq = _fq(x.astype(np.float64), np.abs(x).max(), 6)
    out = q(_t(x))
    np.testing.assert_allclose(out.numpy(), xq @ wq + b, rtol=1e-5, atol=1e-5)
    upstream = RNG.standard_normal((5, 3)).astype("float32")
    (out * _t(upstream)).sum().backward()  # straight through: the weight's gradient is xq^T @ upstream
    np.testing.assert_allclose(lin.weight.grad.numpy(), xq.T @ upstream, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("padding_mode", ["zeros", "reflect"])
def test_quantized_conv2d_equals_the_conv_of_the_quantized_values(padding_mode):
    eager.seed(3)
    conv = nn.Conv2D(2, 3, 3, padding=1, padding_mode=padding_mode)
    q = QL.QuantizedConv2D(conv, weight_bits=4, activation_bits=5, weight_quantize_type="channel_wise_abs_max")
    assert q.weight is conv.weight and list(q.state_dict()) == ["weight", "bias", "_fake_quant_weight._scale"]
    x = RNG.standard_normal((1, 2, 6, 6)).astype("float32")
    w = conv.weight.numpy()
    wq = _fq(w.astype(np.float64), np.abs(w).max(axis=(1, 2, 3), keepdims=True), 4).astype("float32")
    xq = _fq(x.astype(np.float64), np.abs(x).max(), 5).astype("float32")
    out = q(_t(x)).numpy()
    twin = nn.Conv2D(2, 3, 3, padding=1, padding_mode=padding_mode)
    twin.weight.set_value(wq)
    twin.bias.set_value(conv.bias.numpy())
    np.testing.assert_allclose(out, twin(_t(xq)).numpy(), rtol=1e-5, atol=1e-6)


def _conv2d_transpose_loops(x, w, b, stride, padding, output_padding, dilation, groups):
    """NCHW transposed convolution by scattering each input pixel times the
    kernel: out[n, g*cpg + o, i*s - p + k*d] += x[n, c, i] * w[c, o, k]."""
    n, c_in, h, wd = x.shape
    _, cpg, kh, kw = w.shape
    (sh, sw), (ph, pw), (oph, opw), (dh, dw) = stride, padding, output_padding, dilation
    oh = (h - 1) * sh - 2 * ph + dh * (kh - 1) + 1 + oph
    ow = (wd - 1) * sw - 2 * pw + dw * (kw - 1) + 1 + opw
    full = np.zeros((n, cpg * groups, oh + 2 * ph + sh, ow + 2 * pw + sw))
    in_per_group = c_in // groups
    for ni in range(n):
        for c in range(c_in):
            g = c // in_per_group
            for i in range(h):
                for j in range(wd):
                    for o in range(cpg):
                        for a in range(kh):
                            for e in range(kw):
                                full[ni, g * cpg + o, i * sh + a * dh, j * sw + e * dw] += x[ni, c, i, j] * w[c, o, a, e]
    return full[:, :, ph:ph + oh, pw:pw + ow] + b.reshape(1, -1, 1, 1)


def _numeric_grad(f, a, eps=1e-6):
    """Central differences of the scalar f at every entry of the float64 array a."""
    grad = np.zeros_like(a)
    for index in np.ndindex(a.shape):
        hi, lo = a.copy(), a.copy()
        hi[index] += eps
        lo[index] -= eps
        grad[index] = (f(hi) - f(lo)) / (2 * eps)
    return grad


@pytest.mark.parametrize("weight_type", ["abs_max", "channel_wise_abs_max", "moving_average_abs_max"])
def test_quantized_conv2d_transpose_against_loops(weight_type):
    eager.seed(4)
    conv = nn.Conv2DTranspose(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, dilation=2)
    conv.to(dtype="float64")
    conv.bias.set_value(RNG.standard_normal(6))
    q = QL.QuantizedConv2DTranspose(conv, weight_bits=4, activation_bits=5, weight_quantize_type=weight_type)
    assert q.weight is conv.weight and q.bias is conv.bias
    w, b = conv.weight.numpy(), conv.bias.numpy()
    if weight_type == "channel_wise_abs_max":  # one scale per output channel of a group: the weight's axis 1
        assert q._fake_quant_weight._scale.shape == [3]
        wq = _fq(w, np.abs(w).max(axis=(0, 2, 3), keepdims=True), 4)
    elif weight_type == "abs_max":
        wq = _fq(w, np.abs(w).max(), 4)
    else:
        wq = _fq(w, (0.9 + np.abs(w).max()) / 1.9, 4)
    x = RNG.standard_normal((2, 4, 3, 4))
    xq = _fq(x, np.abs(x).max(), 5)
    out = q(_t(x))
    want = _conv2d_transpose_loops(xq, wq, b, (2, 2), (1, 1), (1, 1), (2, 2), 2)
    assert out.shape == list(want.shape) == [2, 6, 8, 10]
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12, atol=1e-12)
    if weight_type == "channel_wise_abs_max":
        np.testing.assert_allclose(q._fake_quant_weight._scale.numpy(), np.abs(w).max(axis=(0, 2, 3)), rtol=1e-12)


def test_quantized_conv2d_transpose_output_size_and_nhwc():
    eager.seed(6)
    conv = nn.Conv2DTranspose(2, 3, 3, stride=2, output_padding=1, data_format="NHWC")
    conv.to(dtype="float64")
    q = QL.QuantizedConv2DTranspose(conv, weight_bits=6, activation_bits=6)
    x = RNG.standard_normal((1, 4, 4, 2))
    w, b = conv.weight.numpy(), conv.bias.numpy()
    xq, wq = _fq(x, np.abs(x).max(), 6), _fq(w, np.abs(w).max(), 6)
    nchw = xq.transpose(0, 3, 1, 2)
    want = _conv2d_transpose_loops(nchw, wq, b, (2, 2), (0, 0), (1, 1), (1, 1), 1).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(q(_t(x)).numpy(), want, rtol=1e-12, atol=1e-12)
    # output_size replaces the layer's output_padding: 9 is the size without it
    want = _conv2d_transpose_loops(nchw, wq, b, (2, 2), (0, 0), (0, 0), (1, 1), 1).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(q(_t(x), output_size=[9, 9]).numpy(), want, rtol=1e-12, atol=1e-12)


def test_quantized_conv2d_transpose_straight_through_gradients_by_finite_differences():
    """The fake quantization passes the gradient straight through, so the input's
    gradient is that of x -> conv_transpose(x, wq) and the weight's that of
    w -> conv_transpose(xq, w), each checked by central differences."""
    eager.seed(7)
    conv = nn.Conv2DTranspose(2, 2, 2, stride=2, padding=1)
    conv.to(dtype="float64")
    q = QL.QuantizedConv2DTranspose(conv, weight_bits=3, activation_bits=3,
                                    weight_quantize_type="channel_wise_abs_max")
    x = RNG.standard_normal((1, 2, 3, 3))
    xt = _t(x, grad=True)
    out = q(xt)
    upstream = RNG.standard_normal(out.shape)
    (out * _t(upstream)).sum().backward()
    w, b = conv.weight.numpy(), conv.bias.numpy()
    xq = _fq(x, np.abs(x).max(), 3)
    wq = _fq(w, np.abs(w).max(axis=(0, 2, 3), keepdims=True), 3)
    settings = ((2, 2), (1, 1), (0, 0), (1, 1), 1)
    grad_x = _numeric_grad(lambda a: (_conv2d_transpose_loops(a, wq, b, *settings) * upstream).sum(), x)
    grad_w = _numeric_grad(lambda a: (_conv2d_transpose_loops(xq, a, b, *settings) * upstream).sum(), w)
    np.testing.assert_allclose(xt.grad.numpy(), grad_x, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(conv.weight.grad.numpy(), grad_w, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(conv.bias.grad.numpy(), upstream.sum(axis=(0, 2, 3)), rtol=1e-12)


def test_quantized_matmul_against_numpy():
    x, y = RNG.standard_normal((3, 4)), RNG.standard_normal((5, 4))
    q = QL.QuantizedMatmul(activation_bits=3, activation_quantize_type="abs_max")
    out = q(_t(x), _t(y), transpose_y=True)
    np.testing.assert_allclose(out.numpy(), _fq(x, np.abs(x).max(), 3) @ _fq(y, np.abs(y).max(), 3).T,
                               rtol=1e-12)


class _Double(nn.Layer):
    def forward(self, x):
        return x * 2.0


class _Pair(nn.Layer):
    def forward(self, x):
        return x, x * 2.0


def test_preprocess_and_custom_quant_layer_classes():
    lin = nn.Linear(3, 2)
    q = QL.QuantizedLinear(lin, weight_pre_layer=_Double, act_pre_layer=_Double, weight_quant_layer=_Double,
                           act_quant_layer=_Double)
    x = RNG.standard_normal((2, 3)).astype("float32")
    want = (4 * x) @ (4 * lin.weight.numpy()) + lin.bias.numpy()
    np.testing.assert_allclose(q(_t(x)).numpy(), want, rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match="QuantizedLinear: argument 'act_pre_layer' expected a Layer class"):
        QL.QuantizedLinear(lin, act_pre_layer=_Double())
    with pytest.raises(TypeError, match="calling it gave a int"):
        QL.QuantizedLinear(lin, weight_quant_layer=lambda: 3)


def test_output_scale_wrappers():
    x = RNG.standard_normal(5).astype("float32")
    ma = QL.MAOutputScaleLayer(nn.ReLU(), moving_rate=0.5)
    np.testing.assert_array_equal(ma(_t(x)).numpy(), np.maximum(x, 0))
    np.testing.assert_allclose(ma._ma_output_scale._scale.item(), np.maximum(x, 0).max(), rtol=1e-6)
    pair = QL.MAOutputScaleLayer(_Pair())(_t(x))
    assert isinstance(pair, tuple) and len(pair) == 2
    fq = QL.FakeQuantMAOutputScaleLayer(nn.ReLU(), activation_bits=4, moving_rate=0.5)
    relu = np.maximum(x, 0).astype(np.float64)
    scale = (0.5 + relu.max()) / 1.5
    np.testing.assert_allclose(fq(_t(x)).numpy(), _fq(relu, scale, 4), rtol=1e-5, atol=1e-6)
    assert isinstance(QL.FakeQuantMAOutputScaleLayer(_Pair())(_t(x)), tuple)


@pytest.mark.parametrize("make, error, message", [
    (lambda: QL.FakeQuantAbsMax(quant_bits=True), TypeError, "FakeQuantAbsMax: argument 'quant_bits' expected an int"),
    (lambda: QL.FakeQuantAbsMax(quant_bits=1), ValueError, r"argument 'quant_bits' expected an int in \[2, 16\]"),
    (lambda: QL.FakeQuantAbsMax(reduce_type="max"), ValueError, "argument 'reduce_type' 'max' is not offered"),
    (lambda: QL.FakeQuantMovingAverageAbsMax(moving_rate=1.5), ValueError,
     r"FakeQuantMovingAverageAbsMax: argument 'moving_rate' expected a number in \[0, 1\)"),
    (lambda: QL.FakeQuantMovingAverageAbsMax(dtype="int32"), ValueError, "argument 'dtype' expected a floating"),
    (lambda: QL.FakeQuantChannelWiseAbsMax(channel_num=3), ValueError,
     "FakeQuantChannelWiseAbsMax: channel-wise quantization is for weights only"),
    (lambda: QL.FakeQuantChannelWiseAbsMax(quant_on_weight=True), ValueError,
     "argument 'channel_num' expected a positive int"),
    (lambda: QL.FakeQuantChannelWiseAbsMax(channel_num=3, quant_axis=2, quant_on_weight=True), ValueError,
     "argument 'quant_axis' expected 0 or 1, got 2"),
    (lambda: QL.QuantizedLinear(nn.Conv2D(1, 1, 1)), TypeError,
     "QuantizedLinear: argument 'layer' expected an eager.nn.Linear, got Conv2D"),
    (lambda: QL.QuantizedConv2D(nn.Linear(1, 1)), TypeError,
     "QuantizedConv2D: argument 'layer' expected an eager.nn.Conv2D, got Linear"),
    (lambda: QL.QuantizedConv2DTranspose(nn.Conv2D(1, 1, 1)), TypeError,
     "QuantizedConv2DTranspose: argument 'layer' expected an eager.nn.Conv2DTranspose, got Conv2D"),
    (lambda: QL.QuantizedConv2DTranspose(nn.Conv2DTranspose(1, 1, 1), weight_quantize_type="range_abs_max"),
     ValueError, "QuantizedConv2DTranspose: argument 'weight_quantize_type' expected one of"),
    (lambda: QL.QuantizedLinear(nn.Linear(2, 2), activation_quantize_type="lsq_weight"), ValueError,
     "argument 'activation_quantize_type' 'lsq_weight' \\(LSQ\\+\\) is not offered here"),
    (lambda: QL.QuantizedLinear(nn.Linear(2, 2), activation_quantize_type="channel_wise_abs_max"), ValueError,
     r"argument 'activation_quantize_type' expected one of \['abs_max', 'moving_average_abs_max', 'lsq_act'\]"),
    (lambda: QL.MAOutputScaleLayer(), TypeError, "MAOutputScaleLayer: argument 'layer' expected an eager.nn.Layer"),
])
def test_construction_errors(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_forward_errors():
    with pytest.raises(TypeError, match="FakeQuantAbsMax: argument 'input' expected a floating-point Tensor"):
        QL.FakeQuantAbsMax()(_t(np.array([1, 2])))
    with pytest.raises(TypeError, match="QuantStub|MovingAverageAbsMaxScale: argument 'input' expected a Tensor"):
        QL.QuantStub()(np.ones(3))
    layer = QL.FakeQuantChannelWiseAbsMax(channel_num=3, quant_on_weight=True)
    with pytest.raises(ValueError, match=r"expected 3 channels along axis 0, got shape \[2, 3\]"):
        layer(_t(np.ones((2, 3), "float32")))
    q = QL.QuantizedConv2DTranspose(nn.Conv2DTranspose(2, 3, 3), activation_quantize_type="moving_average_abs_max")
    with pytest.raises(TypeError, match=r"QuantizedConv2DTranspose\(.*\): argument 'input' expected a Tensor"):
        q(np.ones((1, 2, 4, 4), "float32"))
    for shape in [(2, 4, 4), (1, 3, 4, 4), (1, 4, 4, 2)]:  # rank, channels: refused before the scale moves
        with pytest.raises(ValueError, match=r"QuantizedConv2DTranspose\(.*\): argument 'input' expected a 4-d "
                                             rf"NCHW tensor with 2 channels, got shape \[{', '.join(map(str, shape))}\]"):
            q(_t(np.ones(shape, "float32")))
    np.testing.assert_array_equal(
        [q._fake_quant_input._scale.item(), q._fake_quant_input._state.item(), q._fake_quant_input._accum.item()],
        np.float32([0.001, 1.0, 1.0]))
    with pytest.raises(ValueError, match="output_size"):  # 20 is not reachable from 4 with stride 1, kernel 3
        q(_t(np.ones((1, 2, 4, 4), "float32")), output_size=[20, 20])


@pytest.mark.usefixtures("device")
def test_quantized_linear_on_the_device_axis(device):
    eager.seed(5)
    lin = nn.Linear(4, 2)
    q = QL.QuantizedLinear(lin, weight_quantize_type="channel_wise_abs_max",
                           activation_quantize_type="moving_average_abs_max")
    x = RNG.standard_normal((3, 4)).astype("float32")
    w, b = lin.weight.numpy().astype(np.float64), lin.bias.numpy()
    xq = _fq(x.astype(np.float64), (0.9 + np.abs(x).max()) / 1.9, 8)
    wq = _fq(w, np.abs(w).max(axis=0, keepdims=True), 8)
    np.testing.assert_allclose(q(_t(x)).numpy(), xq @ wq + b, rtol=1e-5, atol=1e-5)


@pytest.mark.usefixtures("device")
def test_quantized_conv2d_transpose_on_the_device_axis(device):
    eager.seed(8)
    conv = nn.Conv2DTranspose(2, 4, 3, stride=2, padding=1, groups=2)
    q = QL.QuantizedConv2DTranspose(conv, weight_quantize_type="channel_wise_abs_max",
                                    activation_quantize_type="moving_average_abs_max")
    x = RNG.standard_normal((1, 2, 3, 3)).astype("float32")
    w, b = conv.weight.numpy().astype(np.float64), conv.bias.numpy().astype(np.float64)
    xq = _fq(x.astype(np.float64), (0.9 + np.abs(x).max()) / 1.9, 8)
    wq = _fq(w, np.abs(w).max(axis=(0, 2, 3), keepdims=True), 8)
    want = _conv2d_transpose_loops(xq, wq, b, (2, 2), (1, 1), (0, 0), (1, 1), 2)
    np.testing.assert_allclose(q(_t(x)).numpy(), want, rtol=1e-5, atol=1e-5)
