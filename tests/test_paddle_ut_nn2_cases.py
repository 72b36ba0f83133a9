"""Regressions found by re-telling the dygraph parts of Paddle's own unit tests
(test/legacy_test, second nn pass: test_layers.py's later pages, conv, norms,
rnn, transformer, embedding, pad, interpolate, fold/unfold, affine_grid,
grid_sample, dropout, initializers, rrelu, gumbel_softmax, cosine_similarity,
label_smooth, sequence_mask, weight_norm) under ``import eager as paddle`` and
checking each disagreement against the real Paddle 2.6.2.

Found:
- cosine_similarity and pairwise_distance refused a float32 with a float64
  input; Paddle promotes them (its multiply/subtract do) to float64.
- rrelu/RReLU took int ``lower``/``upper``; Paddle raises TypeError ("must be
  float type"; test_rrelu_op's error cases, RReLU(2, 3) included).
- interpolate's scale_factor of a wrong kind (a str) was a ValueError; Paddle
  raises TypeError ("Attr(scale)'s type should be ...").
- the conv functionals' groups=0 (or negative) was a TypeError; Paddle raises
  ValueError (test_functional_conv2d's TestFunctionalConv2DErrorCase13).
- LocalResponseNorm(size=0), GroupNorm/group_norm's num_groups=0 and the RNN
  cells/layers' hidden_size=0 were TypeErrors; Paddle raises ValueError.
- Layer.float16()/bfloat16() without excluded_layers cast nn.BatchNorm too;
  Paddle's default excluded_layers is [nn.BatchNorm] (exact class).
- dropout/dropout2d/dropout3d with p=0 refused an integer tensor; Paddle
  returns x itself before looking at the dtype.
- sequence_mask refused float32/float64 lengths, which Paddle's kernel takes.
- weight_norm/spectral_norm of a missing parameter name raised only a
  ValueError; Paddle raises KeyError (now both).
- label_smooth refused a one-element Tensor epsilon and pad a one-element
  Tensor value, which Paddle float()s; cosine_similarity's eps of a wrong
  kind (a str) was a ValueError (Paddle: TypeError; a negative eps stays a
  ValueError).
- group_norm/GroupNorm refused inputs of rank 6 and more, which Paddle takes.
- batch_norm with batch statistics over one value per channel ([1, C],
  [1, C, 1, 1]) normalized it to the bias; Paddle's kernels (CPU and GPU) pass
  it through: y = x, dx = dy, zero weight/bias gradients, running statistics
  unchanged.

Paddle 2.6.2 quirks met and left (eager keeps its behaviour): cosine_similarity
of inputs broadcasting along ``axis`` (docs/nn.md); Adam on a sparse
(SelectedRows) gradient applies the bias corrections one step ahead, AdamW
there dies in C++ (docs/training.md); the gradient of a BatchNorm layer with
use_global_stats=False in eval mode uses the running variance while the
forward used the batch's; the CPU rnn kernel's
gradient of the reverse direction is wrong with both initial states and
sequence_length (eager's agrees with finite differences); 5-D grid_sample in
nearest mode zeroes in-range samples; conv*_transpose with output_padding
below the dilation but not the stride passes InferMeta and fails in the
kernel; fold with four unequal paddings disagrees with unfold; unfold with a
dilated kernel wider than the input returns one block (C division);
affine_grid takes an out_shape batch different from theta's; Embedding
accepts padding_idx=-11 for 10 rows (checked after wrapping); Normal(std<0)
is accepted; GRU(bias_ih_attr=False) segfaults; fp16 interpolate rounds
differently (weights in float32). Documented differences added: interpolate's
int/float ``size`` and Conv padding lists with a non-zero padding_mode
(docs/nn.md). Newer than 2.6.2 and left out: cosine_similarity's ``dim``
alias and its rank-mismatch/broadcast tests, LSTM ``proj_size`` (eager has
it), embedding_renorm_, TruncatedNormal ``a``/``b`` and XavierNormal ``gain``
(eager has them).
"""
import numpy as np
import pytest

import eager
import eager.nn.functional as F

pytestmark = pytest.mark.usefixtures("device")


def _np_cosine(x1, x2, axis):
    x1, x2 = np.broadcast_arrays(x1, x2)
    return (x1 * x2).sum(axis) / np.sqrt((x1 * x1).sum(axis) * (x2 * x2).sum(axis))


def test_cosine_similarity_and_pairwise_distance_promote_float32_with_float64():
    rng = np.random.default_rng(0)
    a = rng.random((3, 5)).astype("float32")
    b = rng.random((3, 5))
    x1 = eager.to_tensor(a, stop_gradient=False)
    x2 = eager.to_tensor(b, stop_gradient=False)
    out = F.cosine_similarity(x1, x2, axis=1)
    assert out.dtype == eager.float64
    np.testing.assert_allclose(out.numpy(), _np_cosine(a.astype("float64"), b, 1), rtol=1e-6)
    out.sum().backward()
    assert x1.grad.dtype == eager.float32 and x2.grad.dtype == eager.float64
    dist = F.pairwise_distance(eager.to_tensor(a), eager.to_tensor(b), epsilon=0.0)
    assert dist.dtype == eager.float64
    np.testing.assert_allclose(dist.numpy(), np.linalg.norm(a.astype("float64") - b, axis=-1), rtol=1e-6)


@pytest.mark.parametrize("lower, upper", [(0, 0.5), (0.5, 1), (2, 3)])
def test_rrelu_refuses_int_lower_upper(lower, upper):
    x = eager.to_tensor(np.random.default_rng(0).random((2, 3)).astype("float32"))
    before = x.numpy().copy()
    with pytest.raises(TypeError, match="rrelu: argument '(lower|upper)' expected a float"):
        F.rrelu(x, lower, upper)
    with pytest.raises(TypeError, match="expected a float"):
        eager.nn.RReLU(lower, upper)(x)
    np.testing.assert_array_equal(x.numpy(), before)
    # floats (NumPy's included) still work
    out = F.rrelu(eager.to_tensor([-2.0, 3.0]), np.float64(0.25), 0.25, training=False)
    np.testing.assert_allclose(out.numpy(), [-0.5, 3.0])


@pytest.mark.parametrize("scale", ["a", {2.0}, object()])
def test_interpolate_scale_factor_of_a_wrong_kind_is_a_type_error(scale):
    with pytest.raises(TypeError, match="interpolate: argument 'scale_factor' expected a number, a list/tuple"):
        F.interpolate(eager.ones([1, 1, 4, 4]), scale_factor=scale, mode="bilinear")


@pytest.mark.parametrize("name, k", [("conv1d", 1), ("conv2d", 2), ("conv3d", 3), ("conv1d_transpose", 1),
                                     ("conv2d_transpose", 2), ("conv3d_transpose", 3)])
@pytest.mark.parametrize("groups", [0, -1])
def test_conv_groups_below_one_is_a_value_error(name, k, groups):
    x = eager.ones([1, 3] + [3] * k)
    w = eager.ones([3, 3] + [1] * k)
    with pytest.raises(ValueError, match=f"{name}: argument 'groups' expected a positive int, got {groups}"):
        getattr(F, name)(x, w, groups=groups)
    with pytest.raises(TypeError, match="'groups' expected a positive int, got 1.5"):
        getattr(F, name)(x, w, groups=1.5)


def test_local_response_norm_size_zero_is_a_value_error():
    with pytest.raises(ValueError, match="LocalResponseNorm: argument 'size' expected a positive int, got 0"):
        eager.nn.LocalResponseNorm(0)


@pytest.mark.parametrize("make", [lambda: eager.nn.GRU(5, 0), lambda: eager.nn.GRUCell(5, 0),
                                  lambda: eager.nn.LSTMCell(5, -1), lambda: eager.nn.SimpleRNN(5, 0)])
def test_rnn_hidden_size_below_one_is_a_value_error(make):
    with pytest.raises(ValueError, match="argument 'hidden_size' expected a positive int"):
        make()


def test_rnn_hidden_size_of_a_wrong_kind_stays_a_type_error():
    with pytest.raises(TypeError, match="argument 'hidden_size' expected a positive int, got 2.5"):
        eager.nn.GRUCell(5, 2.5)


@pytest.mark.parametrize("cast, dtype", [("float16", eager.float16), ("bfloat16", eager.bfloat16)])
def test_half_casts_keep_legacy_batch_norm_by_default(cast, dtype, device):
    if cast == "bfloat16":
        pytest.importorskip("ml_dtypes")
        if device != "cpu":
            pytest.skip("bfloat16 lives on the CPU only")
    model = eager.nn.Sequential(eager.nn.Linear(2, 2), eager.nn.BatchNorm(2), eager.nn.BatchNorm2D(2))
    getattr(model, cast)()
    assert model[0].weight.dtype == dtype
    # Paddle's default excluded_layers=[nn.BatchNorm] matches that class exactly
    assert model[1].weight.dtype == eager.float32 and model[1]._mean.dtype == eager.float32
    assert model[2].weight.dtype == dtype
    # an explicit list replaces the default
    model = eager.nn.Sequential(eager.nn.Linear(2, 2), eager.nn.BatchNorm(2))
    getattr(model, cast)(excluded_layers=[eager.nn.Linear])
    assert model[0].weight.dtype == eager.float32 and model[1].weight.dtype == dtype


@pytest.mark.parametrize("call", [
    lambda x: F.dropout(x, p=0.0),
    lambda x: F.dropout(x, p=0, axis=0, training=True),
    lambda x: F.dropout2d(x.reshape([1, 1, 1, 3]), p=0.0).reshape([3]),
    lambda x: F.dropout3d(x.reshape([1, 1, 1, 1, 3]), p=0.0).reshape([3]),
])
def test_dropout_p_zero_returns_integer_x(call):
    x = eager.to_tensor(np.array([1, 2, 3], "int64"))
    out = call(x)
    assert out.dtype == eager.int64
    np.testing.assert_array_equal(out.numpy(), [1, 2, 3])
    with pytest.raises(TypeError, match="dropout: argument 'x' expected a floating-point Tensor"):
        F.dropout(x, p=0.5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sequence_mask_takes_float_lengths(dtype):
    lengths = np.array([[1.5, 3.0], [0.2, -1.5]], dtype)
    out = F.sequence_mask(eager.to_tensor(lengths), maxlen=4)
    np.testing.assert_array_equal(out.numpy(), (np.arange(4) < lengths[..., None]).astype(np.int64))
    # the default maxlen is the largest length truncated to an int (Paddle 2.6.2: [0.2, 2.7] -> 2)
    out = F.sequence_mask(eager.to_tensor(np.array([0.2, 2.7], dtype)))
    np.testing.assert_array_equal(out.numpy(), [[1, 0], [1, 1]])
    with pytest.raises(TypeError, match="sequence_mask: argument 'x' expected an int32/int64/float32/float64"):
        F.sequence_mask(eager.to_tensor([True, False]), maxlen=3)


@pytest.mark.parametrize("util", ["weight_norm", "spectral_norm"])
def test_norm_utils_missing_parameter_is_a_key_error(util):
    layer = eager.nn.Linear(3, 2)
    with pytest.raises(KeyError, match=f"{util}: layer Linear has no parameter 'abc'"):
        getattr(eager.nn.utils, util)(layer, name="abc")
    with pytest.raises(ValueError, match="has no parameter 'abc'"):
        getattr(eager.nn.utils, util)(layer, name="abc")
    assert sorted(n for n, _ in layer.named_parameters()) == ["bias", "weight"]


def test_label_smooth_takes_a_one_element_tensor_epsilon():
    # Paddle 2.6.2 float()s it (test_label_smooth_functional's epsilon, as a Tensor)
    label = np.eye(4, dtype="float32")[[0, 2, 3]]
    out = F.label_smooth(eager.to_tensor(label), epsilon=eager.to_tensor(0.25))
    np.testing.assert_allclose(out.numpy(), 0.75 * label + 0.25 / 4, rtol=1e-6)
    with pytest.raises(ValueError, match="label_smooth: argument 'epsilon' expected a value in \\[0, 1\\]"):
        F.label_smooth(eager.to_tensor(label), epsilon=eager.to_tensor([2.0]))


def test_cosine_similarity_eps_of_a_wrong_kind_is_a_type_error():
    x = eager.ones([2, 3])
    with pytest.raises(TypeError, match="cosine_similarity: argument 'eps' expected a non-negative number"):
        F.cosine_similarity(x, x, eps="a")
    with pytest.raises(ValueError, match="cosine_similarity: argument 'eps' expected a non-negative number"):
        F.cosine_similarity(x, x, eps=-1e-8)


def _np_group_norm(x, groups, eps=1e-5):
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1)
    out = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)
    return out.reshape(x.shape)


def test_group_norm_takes_any_rank_from_two():
    # Paddle 2.6.2's GroupNorm normalizes a 6-d [N, C, ...] input (the spatial axes flattened)
    x = np.random.default_rng(0).standard_normal((2, 6, 1, 2, 2, 3))
    out = eager.nn.GroupNorm(3, 6)(eager.to_tensor(x.astype("float32")))
    np.testing.assert_allclose(out.numpy(), _np_group_norm(x, 3), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(F.group_norm(eager.to_tensor(x), 2).numpy(), _np_group_norm(x, 2), rtol=1e-10)
    with pytest.raises(ValueError, match="group_norm: argument 'x' expected a tensor of rank 2 or more"):
        F.group_norm(eager.ones([6]), 3)


@pytest.mark.parametrize("shape, make", [((1, 3), lambda: eager.nn.BatchNorm1D(3)),
                                         ((1, 3, 1), lambda: eager.nn.BatchNorm1D(3)),
                                         ((1, 3, 1, 1), lambda: eager.nn.BatchNorm2D(3)),
                                         ((1, 1, 1, 3), lambda: eager.nn.BatchNorm2D(3, data_format="NHWC"))])
def test_batch_norm_of_one_value_per_channel_passes_x_through(shape, make):
    # Paddle 2.6.2 (BatchNorm1D(3) in training on [[1, 2, 3]]): y = [[1, 2, 3]], x.grad = the
    # output gradient, weight/bias gradients 0, _mean 0 and _variance 1 as they were
    layer = make()
    layer.weight.set_value(np.array([2.0, 3.0, 4.0], "float32"))
    layer.bias.set_value(np.array([0.5, 0.5, 0.5], "float32"))
    x = eager.to_tensor(np.arange(1.0, 4.0).reshape(shape).astype("float32"), stop_gradient=False)
    g = np.arange(2.0, 5.0).reshape(shape).astype("float32")
    y = layer(x)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    (y * eager.to_tensor(g)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), g)
    np.testing.assert_array_equal(layer.weight.grad.numpy(), np.zeros(3, "float32"))
    np.testing.assert_array_equal(layer.bias.grad.numpy(), np.zeros(3, "float32"))
    np.testing.assert_array_equal(layer._mean.numpy(), np.zeros(3, "float32"))
    np.testing.assert_array_equal(layer._variance.numpy(), np.ones(3, "float32"))
    # eval mode normalizes by the running statistics as ever
    layer.eval()
    np.testing.assert_allclose(layer(x).numpy().reshape(-1), np.arange(1.0, 4.0) / np.sqrt(1 + 1e-5) * [2, 3, 4] + 0.5,
                               rtol=1e-6)


def test_batch_norm_of_one_value_per_channel_double_grad_is_zero():
    x = eager.to_tensor(np.array([[1.0, 2.0, 3.0]]), stop_gradient=False)
    w = eager.to_tensor(np.array([2.0, 3.0, 4.0]), stop_gradient=False)
    b = eager.to_tensor(np.zeros(3), stop_gradient=False)
    y = F.batch_norm(x, eager.zeros([3], "float64"), eager.ones([3], "float64"), w, b, training=True)
    (gx,) = eager.grad((y * y).sum(), [x], create_graph=True)
    np.testing.assert_array_equal(gx.numpy(), 2 * x.numpy())
    (ggx,) = eager.grad(gx.sum(), [x])
    np.testing.assert_array_equal(ggx.numpy(), np.full((1, 3), 2.0))


def test_pad_takes_a_one_element_tensor_value():
    # Paddle 2.6.2 float()s it: pad(x, [1, 1, 1, 1], value=paddle.to_tensor(2.5)) fills 2.5
    x = np.arange(4.0, dtype="float32").reshape(1, 1, 2, 2)
    out = F.pad(eager.to_tensor(x), [1, 1, 1, 1], value=eager.to_tensor(2.5))
    np.testing.assert_array_equal(out.numpy(), np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)], constant_values=2.5))
    out = F.pad(eager.to_tensor(x), [0, 0, 0, 0, 1, 0, 0, 1], value=eager.to_tensor([-1.0]))
    np.testing.assert_array_equal(out.numpy(), np.pad(x, [(0, 0), (0, 0), (1, 0), (0, 1)], constant_values=-1.0))


@pytest.mark.parametrize("call", [lambda: eager.nn.GroupNorm(0, 6), lambda: eager.nn.GroupNorm(-2, 6),
                                  lambda: F.group_norm(eager.ones([2, 6, 3]), 0)])
def test_group_norm_num_groups_below_one_is_a_value_error(call):
    # Paddle 2.6.2: "The Attr(groups) of Op(group_norm) must be greater than or equal to 1" (ValueError)
    with pytest.raises(ValueError, match="argument 'num_groups' expected a positive int"):
        call()
