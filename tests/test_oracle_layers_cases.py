"""Regression cases from a differential sweep of paddle.nn layers, initializers,
nn.utils and Tensor attributes/printing against the real Paddle 2.6.2 (run beside
eager on the same NumPy inputs; weights copied across with set_state_dict).
Literals marked "Paddle 2.6.2" are what Paddle itself printed or returned; values
are checked against NumPy references written here.

Found and fixed:
- a built-in layer's ``name`` became its name scope, so ``Linear(3, 4,
  name="lin")`` had full_name ``lin_0`` and parameters ``lin_0.w_0``; Paddle
  only stores the name (``linear_0.w_0``) and shows it in repr (``name=lin``).
- ``print(layer)`` differed from Paddle's text for ~40 layers: a given name was
  never shown; BatchNorm, Flatten, RNN/BiRNN, MultiHeadAttention, SpectralNorm
  and ParameterList print nothing inside the parentheses in Paddle; Upsample
  shows align_mode; UpsamplingNearest2D/Bilinear2D, ZeroPad2D, InstanceNorm*,
  PixelShuffle/Unshuffle, ChannelShuffle, PairwiseDistance and LSTM/GRU leave
  out fixed or default settings; Bilinear, PReLU and RReLU show the dtype;
  Embedding always shows ``sparse=``; values print as given (``beta=1``,
  ``min=-2``, ``output_padding=1``, ``padding_idx=-1``, ``shape=(1, 2)``);
  conv's padding_mode comes before dilation, unquoted.
- eager.sparse.nn reprs: ReLU/ReLU6/LeakyReLU/Softmax show only a given name,
  the convolutions leave out defaults and show data_format, BatchNorm shows
  data_format=NDHWC (as Paddle 2.6.2 prints them).
- PReLU's parameter is ``_weight`` in Paddle (its state_dict key), so a Paddle
  checkpoint did not load.
- LayerNorm([3, 4]) held [3, 4] weight/bias where Paddle's are flat [12]: a
  Paddle checkpoint did not load (F.layer_norm now takes either form).
- BatchNorm1D/2D/3D(weight_attr=False, bias_attr=False) kept fixed ones/zeros,
  where Paddle 2.6.2 has None (state_dict only _mean, _variance); GroupNorm with
  False had None where Paddle keeps fixed ones/zeros (stop_gradient), so Paddle
  checkpoints did not load either way. SyncBatchNorm keeps fixed ones/zeros.
- Layer.register_buffer under the name of a parameter or attribute replaced it
  silently; Paddle raises KeyError ("attribute 'weight' already exists").
  Layer.backward (Paddle: ValueError) and nn.spectral_norm were missing; BatchNorm's
  running statistics were not persistable (Paddle's are Parameters).
- Conv2DTranspose/Conv3DTranspose took groups before dilation positionally;
  Paddle 2.6's order is (..., output_padding, dilation, groups, ...), so
  Conv2DTranspose(4, 4, 3, 1, 0, 0, 2) was groups=2 instead of dilation=2.
  nn.BatchNorm's do_model_average_for_mean_and_var defaulted to False (Paddle: True).
- RNN cells with bias_*_attr=False had no bias and weight_*_attr=False was
  refused; Paddle 2.6.2 keeps fixed (stop_gradient) zero biases and weights of
  ones, in state_dict (its checkpoints did not load).
- copy.deepcopy of a parameter (so of a layer) kept its name; Paddle names the
  copy ``<name>_deepcopy_<n>``, so a model and its copy never share the names
  that optimizer state is keyed by.
- TruncatedNormal(mean, std) truncated at the absolute [-2, 2]; Paddle 2.6
  truncates at mean -/+ 2 std (TruncatedNormal(std=0.02) went untruncated).
- calculate_gain gave 1.0 where Paddle gives the int 1.
- Tensor printing: inf printed ``inf`` (Paddle: ``inf.``) and -0.0 counted as
  negative for the sign column (Paddle: ``[-0., 0. ]``).
- Tensor.get_strides, Tensor.layout and Tensor.is_same_shape were missing.
- weight_norm(dim=None) made a [1] weight_g; Paddle 2.6's is 0-d.
- clip_grad_norm_ accepted any order; Paddle 2.6 takes 0, 1, 2 and inf only.
"""
import copy
import math
import pickle

import numpy as np
import pytest

import eager
from eager import nn

pytestmark = pytest.mark.usefixtures("device")


# -- a layer's name labels its repr, never its name scope ------------------------------------

def test_layer_name_is_not_the_name_scope():
    layer = nn.Linear(3, 4, name="lin")
    assert layer.full_name().startswith("linear_")
    assert all(p.name.startswith("linear_") for p in layer.parameters())
    assert repr(layer) == "Linear(in_features=3, out_features=4, dtype=float32, name=lin)"   # Paddle 2.6.2
    assert nn.PReLU(name="p").full_name().startswith("p_re_lu_")


# -- print(layer) as Paddle 2.6.2 prints it ------------------------------------------------

_REPRS = [   # (constructor, Paddle 2.6.2's repr)
    ("nn.ReLU(name='r')", "ReLU(name=r)"),
    ("nn.Tanh(name='t')", "Tanh(name=t)"),
    ("nn.Hardswish(name='h')", "Hardswish(name=h)"),
    ("nn.Softmax2D(name='x')", "Softmax2D(name=x)"),
    ("nn.Softmax(0, name='s')", "Softmax(axis=0, name=s)"),
    ("nn.LeakyReLU(0.1, name='x')", "LeakyReLU(negative_slope=0.1, name=x)"),
    ("nn.Softplus(2, 10)", "Softplus(beta=2, threshold=10)"),
    ("nn.Hardtanh(-2, 2)", "Hardtanh(min=-2, max=2)"),
    ("nn.PReLU()", "PReLU(num_parameters=1, data_format=NCHW, init=0.25, dtype=float32)"),
    ("nn.PReLU(4, 0.1, data_format='NHWC', name='p')",
     "PReLU(num_parameters=4, data_format=NHWC, init=0.1, dtype=float32, name=p)"),
    ("nn.RReLU(0.1, 0.2, name='r')", "RReLU(lower=0.1, upper=0.2, training=True, dtype=float32, name=r)"),
    ("nn.BatchNorm(4)", "BatchNorm()"),
    ("nn.BatchNorm2D(4, data_format='NHWC', name='b')",
     "BatchNorm2D(num_features=4, momentum=0.9, epsilon=1e-05, data_format=NHWC, name=b)"),
    ("nn.InstanceNorm2D(4)", "InstanceNorm2D(num_features=4, epsilon=1e-05)"),
    ("nn.LocalResponseNorm(3, data_format='NHWC', name='l')",
     "LocalResponseNorm(size=3, alpha=0.0001, beta=0.75, k=1.0, data_format=NHWC, name=l)"),
    ("nn.Embedding(10, 3)", "Embedding(10, 3, sparse=False)"),
    ("nn.Embedding(10, 3, padding_idx=-1)", "Embedding(10, 3, padding_idx=-1, sparse=False)"),
    ("nn.Embedding(10, 3, sparse=True, name='e')", "Embedding(10, 3, sparse=True, name=e)"),
    ("nn.AlphaDropout(0.2, name='a')", "AlphaDropout(p=0.2, name=a)"),
    ("nn.Dropout2D(0.2, name='d')", "Dropout2D(p=0.2, data_format=NCHW, name=d)"),
    ("nn.Upsample(scale_factor=2)", "Upsample(scale_factor=2, mode=nearest, align_corners=False, align_mode=0, "
                                    "data_format=NCHW)"),
    ("nn.UpsamplingNearest2D(size=[4, 4])", "UpsamplingNearest2D(size=[4, 4], data_format=NCHW)"),
    ("nn.UpsamplingBilinear2D(scale_factor=2)", "UpsamplingBilinear2D(scale_factor=2, data_format=NCHW)"),
    ("nn.ZeroPad2D(1, name='z')", "ZeroPad2D(padding=[1, 1, 1, 1], data_format=NCHW, name=z)"),
    ("nn.Flatten(0, 2)", "Flatten()"),
    ("nn.Unflatten(0, (1, 2))", "Unflatten(axis=0, shape=(1, 2))"),
    ("nn.PixelShuffle(2)", "PixelShuffle(upscale_factor=2)"),
    ("nn.PixelUnshuffle(2, 'NHWC', name='p')", "PixelUnshuffle(downscale_factor=2, data_format=NHWC, name=p)"),
    ("nn.ChannelShuffle(2)", "ChannelShuffle(groups=2)"),
    ("nn.PairwiseDistance()", "PairwiseDistance(p=2.0)"),
    ("nn.PairwiseDistance(1.0, 1e-5, True, name='p')", "PairwiseDistance(p=1.0, epsilon=1e-05, keepdim=True, name=p)"),
    ("nn.Bilinear(2, 3, 4)", "Bilinear(in1_features=2, in2_features=3, out_features=4, dtype=float32)"),
    ("nn.Conv2D(2, 4, (3, 2), dilation=2, padding_mode='reflect', padding=1, bias_attr=False)",
     "Conv2D(2, 4, kernel_size=[3, 2], padding=1, padding_mode=reflect, dilation=[2, 2], data_format=NCHW)"),
    ("nn.Conv1D(2, 4, 3, padding='same')", "Conv1D(2, 4, kernel_size=[3], padding=same, data_format=NCL)"),
    ("nn.Conv2DTranspose(2, 4, 3, output_padding=1, stride=2)",
     "Conv2DTranspose(2, 4, kernel_size=[3, 3], stride=[2, 2], output_padding=1, data_format=NCHW)"),
    ("nn.SpectralNorm([2, 3])", "SpectralNorm()"),
    ("nn.RNN(nn.GRUCell(3, 4))", "RNN(\n  (cell): GRUCell(3, 4)\n)"),
    ("nn.BiRNN(nn.LSTMCell(3, 4), nn.LSTMCell(3, 4))",
     "BiRNN(\n  (cell_fw): LSTMCell(3, 4)\n  (cell_bw): LSTMCell(3, 4)\n)"),
    ("nn.GRU(3, 4, direction='bidirectional')",
     "GRU(3, 4\n  (0): BiRNN(\n    (cell_fw): GRUCell(3, 4)\n    (cell_bw): GRUCell(3, 4)\n  )\n)"),
    ("nn.LSTM(3, 4, time_major=True, dropout=0.1)",
     "LSTM(3, 4, time_major=True, dropout=0.1\n  (0): RNN(\n    (cell): LSTMCell(3, 4)\n  )\n)"),
    ("nn.ParameterList([eager.create_parameter([2, 3], 'float32')])", "ParameterList()"),
]


@pytest.mark.parametrize("make, text", _REPRS, ids=[make for make, _ in _REPRS])
def test_layer_repr_is_paddles(make, text):
    assert repr(eval(make, {"nn": nn, "eager": eager})) == text


_SPARSE_REPRS = [   # (constructor, Paddle 2.6.2's repr)
    ("ReLU6(name='x')", "ReLU6(name=x)"),
    ("LeakyReLU(0.1)", "LeakyReLU()"),
    ("Softmax(name='x')", "Softmax(name=x)"),
    ("Conv2D(2, 3, 3)", "Conv2D(2, 3, kernel_size=[3, 3], data_format=NHWC)"),
    ("Conv3D(2, 3, 3, stride=2, padding=1)",
     "Conv3D(2, 3, kernel_size=[3, 3, 3], stride=[2, 2, 2], padding=1, data_format=NDHWC)"),
    ("BatchNorm(3)", "BatchNorm(num_features=3, momentum=0.9, epsilon=1e-05, data_format=NDHWC)"),
]


@pytest.mark.parametrize("make, text", _SPARSE_REPRS, ids=[make for make, _ in _SPARSE_REPRS])
def test_sparse_layer_repr_is_paddles(make, text):
    assert repr(eval("eager.sparse.nn." + make, {"eager": eager})) == text


def test_multi_head_attention_repr_lists_only_its_projections():
    lines = repr(nn.MultiHeadAttention(8, 2, kdim=4)).split("\n")
    assert lines[0] == "MultiHeadAttention("                        # Paddle 2.6.2: no extra text
    assert lines[2] == "  (k_proj): Linear(in_features=4, out_features=8, dtype=float32)"


def test_register_buffer_does_not_replace_a_parameter():
    layer = nn.Linear(2, 2)
    weight = layer.weight
    with pytest.raises(KeyError, match="register_buffer: attribute 'weight' already exists in Linear"):
        layer.register_buffer("weight", eager.ones([2]))
    with pytest.raises(KeyError, match="attribute 'forward' already exists"):
        layer.register_buffer("forward", eager.ones([2]))
    assert layer.weight is weight and list(layer.state_dict()) == ["weight", "bias"]
    layer.register_buffer("b", eager.ones([2]))
    layer.register_buffer("b", eager.zeros([2]))                   # a buffer may be registered again
    assert layer.b.numpy().tolist() == [0.0, 0.0]


def test_layer_backward_spectral_norm_and_persistable_statistics():
    with pytest.raises(ValueError, match="Layer shouldn't implement backward"):   # Paddle 2.6.2's message
        nn.Linear(2, 2).backward()
    assert nn.spectral_norm is nn.utils.spectral_norm
    bn = nn.BatchNorm2D(3)
    assert bn._mean.persistable and bn._variance.persistable


@pytest.mark.parametrize("cls, x_shape", [(nn.Conv2DTranspose, [1, 4, 5, 5]), (nn.Conv3DTranspose, [1, 4, 3, 3, 3])])
def test_conv_transpose_positional_order_is_paddles(cls, x_shape):
    layer = cls(4, 4, 3, 1, 0, 0, 2)                 # dilation=2, groups=1, as Paddle 2.6 reads them
    assert layer._dilation == (2,) * (len(x_shape) - 2) or list(layer._dilation) == [2] * (len(x_shape) - 2)
    assert layer._groups == 1 and layer.weight.shape[:2] == [4, 4]
    # a transposed conv's output size: (in - 1) * stride - 2 * padding + dilation * (k - 1) + 1
    assert layer(eager.ones(x_shape)).shape[2:] == [s + 4 for s in x_shape[2:]]
    assert cls(4, 4, 3, 1, 0, 0, 1, 2)._groups == 2


# -- state_dict keys and shapes that Paddle checkpoints use --------------------------------

def test_prelu_parameter_is_named_underscore_weight():
    layer = nn.PReLU(3, init=0.1)
    assert list(layer.state_dict()) == ["_weight"]                 # Paddle 2.6.2's key
    layer.set_state_dict({"_weight": np.array([0.5, 1.0, 2.0], "float32")})
    x = np.array([[-1.0, -2.0, 3.0]], "float32").reshape(1, 3, 1)
    out = layer(eager.to_tensor(x)).numpy()
    np.testing.assert_allclose(out.ravel(), [-0.5, -2.0, 3.0])
    assert layer.weight is layer._weight


def test_layer_norm_holds_flat_parameters_and_loads_paddles():
    layer = nn.LayerNorm([3, 4], epsilon=1e-5)
    assert [list(v.shape) for v in layer.state_dict().values()] == [[12], [12]]   # Paddle 2.6.2
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal(12).astype("float32"), rng.standard_normal(12).astype("float32")
    layer.set_state_dict({"weight": w, "bias": b})
    x = rng.standard_normal((2, 3, 4)).astype("float32")
    flat = x.reshape(2, 12).astype(np.float64)
    want = (flat - flat.mean(1, keepdims=True)) / np.sqrt(flat.var(1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(layer(eager.to_tensor(x)).numpy().reshape(2, 12), want, rtol=1e-5, atol=1e-5)
    # the functional takes either form
    out = nn.functional.layer_norm(eager.to_tensor(x), [3, 4], eager.to_tensor(w.reshape(3, 4)),
                                   eager.to_tensor(b.reshape(3, 4)))
    np.testing.assert_allclose(out.numpy().reshape(2, 12), want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"layer_norm: argument 'weight' expected shape \[3, 4\] or \[12\]"):
        nn.functional.layer_norm(eager.to_tensor(x), [3, 4], eager.ones([4, 3]))


@pytest.mark.parametrize("make, keys", [   # Paddle 2.6.2's state_dict keys
    (lambda: nn.BatchNorm2D(4, weight_attr=False, bias_attr=False), ["_mean", "_variance"]),
    (lambda: nn.BatchNorm1D(4, weight_attr=False), ["bias", "_mean", "_variance"]),
    (lambda: nn.GroupNorm(2, 4, weight_attr=False, bias_attr=False), ["weight", "bias"]),
    (lambda: nn.GroupNorm(2, 4, bias_attr=False), ["weight", "bias"]),
])
def test_norm_layers_without_affine_have_paddles_parameters(make, keys):
    layer = make()
    assert list(layer.state_dict()) == keys
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 3)).astype("float32") if isinstance(layer, nn.BatchNorm1D) else \
        rng.standard_normal((2, 4, 3, 3)).astype("float32")
    out = layer(eager.to_tensor(x)).numpy().astype(np.float64)
    if isinstance(layer, nn.GroupNorm):
        assert layer.bias.stop_gradient and np.all(layer.bias.numpy() == 0)    # the fixed zeros
        g = x.reshape(2, 2, -1).astype(np.float64)
        want = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(x.shape)
    else:
        axes = (0, 2) if x.ndim == 3 else (0, 2, 3)
        want = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)


def test_rnn_cell_attr_false_keeps_fixed_parameters():
    cell = nn.LSTMCell(3, 4, weight_ih_attr=False, bias_hh_attr=False)
    keys = [(k, v.shape, v.stop_gradient) for k, v in cell.state_dict().items()]
    assert keys == [("weight_ih", [16, 3], True), ("weight_hh", [16, 4], False), ("bias_ih", [16], False),
                    ("bias_hh", [16], True)]                         # Paddle 2.6.2
    assert np.all(cell.weight_ih.numpy() == 1) and not cell.bias_hh.numpy().any()
    x = np.random.default_rng(2).standard_normal((2, 3)).astype(np.float64)
    h, (_, c) = cell(eager.to_tensor(x.astype("float32")))
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    gates = x @ np.ones((3, 16)) + cell.bias_ih.numpy()             # h0 = c0 = 0: weight_hh drops out
    i, f, g, o = np.split(gates, 4, axis=1)
    c_want = sig(i) * np.tanh(g)
    np.testing.assert_allclose(c.numpy(), c_want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.numpy(), sig(o) * np.tanh(c_want), rtol=1e-5, atol=1e-6)


def test_deepcopy_renames_parameters_as_paddle():
    layer = nn.Linear(2, 2)
    twin = copy.deepcopy(layer)
    assert twin.weight.name.startswith(layer.weight.name + "_deepcopy_")    # Paddle 2.6.2: linear_0.w_0_deepcopy_0
    assert twin.weight.name != copy.deepcopy(layer).weight.name
    np.testing.assert_array_equal(twin.weight.numpy(), layer.weight.numpy())
    assert twin.weight is not layer.weight and list(twin.state_dict()) == ["weight", "bias"]
    assert pickle.loads(pickle.dumps(layer.weight)).name == layer.weight.name


# -- initializers ---------------------------------------------------------------------------

def test_truncated_normal_truncates_at_two_std_around_the_mean():
    values = np.asarray(nn.initializer.TruncatedNormal(0.5, 2.0)((200, 200)), np.float64)
    assert values.min() >= -3.5 and values.max() <= 4.5                 # mean -/+ 2 std, as Paddle 2.6
    assert values.min() < -3.4 and values.max() > 4.4
    # N(0.5, 2) truncated to mean -/+ 2 std: std = 2 * sqrt(1 - 2 a pdf(a) / (2 cdf(a) - 1)), a = 2
    pdf, mass = math.exp(-2.0) / math.sqrt(2 * math.pi), math.erf(2 / math.sqrt(2))
    assert abs(values.std() - 2.0 * math.sqrt(1 - 4 * pdf / mass)) < 0.02
    small = np.asarray(nn.initializer.TruncatedNormal(std=0.02)((100, 100)))
    assert np.abs(small).max() <= 0.04
    bounded = np.asarray(nn.initializer.TruncatedNormal(0.0, 1.0, a=-0.5, b=1.0)((100, 100)))  # 3.x's a, b
    assert bounded.min() >= -0.5 and bounded.max() <= 1.0


def test_calculate_gain_of_unit_gains_is_the_int_one():
    for name in ("linear", "sigmoid", "conv2d", "conv3d_transpose"):
        gain = nn.initializer.calculate_gain(name)
        assert gain == 1 and type(gain) is int                      # Paddle 2.6.2 prints 1
    assert nn.initializer.calculate_gain("tanh") == 5.0 / 3.0


# -- nn.utils -------------------------------------------------------------------------------

def test_weight_norm_over_all_axes_has_a_0d_g():
    fc = nn.Linear(3, 4)
    w = fc.weight.numpy().astype(np.float64)
    nn.utils.weight_norm(fc, dim=None)
    assert fc.weight_g.shape == []                                  # Paddle 2.6.2
    np.testing.assert_allclose(float(fc.weight_g), np.sqrt((w ** 2).sum()), rtol=1e-6)
    x = np.ones((2, 3), "float32")
    np.testing.assert_allclose(fc(eager.to_tensor(x)).numpy(), x @ w + fc.bias.numpy(), rtol=1e-5, atol=1e-6)


def test_clip_grad_norm_takes_paddles_orders_only():
    p = eager.create_parameter([3], "float32")
    p.grad = eager.to_tensor(np.array([3.0, -4.0, 0.0], "float32"))
    for order in (3, -1, 0.5, "inf"):
        with pytest.raises(ValueError, match="clip_grad_norm_: argument 'norm_type' expected one of 0, 1, 2 and inf"):
            nn.utils.clip_grad_norm_([p], 1.0, norm_type=order)
    np.testing.assert_array_equal(p.grad.numpy(), [3.0, -4.0, 0.0])   # a refused call changes nothing
    total = nn.utils.clip_grad_norm_([p], 1.0, norm_type=float("inf"))
    assert float(total) == 4.0


# -- Tensor printing and attributes ---------------------------------------------------------

def test_tensor_prints_inf_with_a_point_and_minus_zero_unsigned():
    x = eager.to_tensor(np.array([1.5, np.nan, np.inf, -np.inf], "float32"))
    assert str(x).endswith("[1.50000000,  nan      ,  inf.     , -inf.     ])")     # Paddle 2.6.2
    assert str(eager.to_tensor(np.array([-0.0, 0.0], "float32"))).endswith("[-0., 0. ])")


def test_tensor_get_strides_layout_and_is_same_shape():
    x = eager.zeros([2, 3])
    assert x.get_strides() == [3, 1] and x.transpose([1, 0]).get_strides() == [1, 3]
    assert x.layout == "NCHW"                                        # Paddle 2.6.2
    assert x.is_same_shape(eager.ones([2, 3])) and not x.is_same_shape(eager.ones([3, 2]))
    with pytest.raises(TypeError, match="is_same_shape: argument 'y' expected a Tensor, got list"):
        x.is_same_shape([2, 3])
