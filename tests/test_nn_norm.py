"""eager.nn.functional normalization and the norm layers: values against NumPy
references written from the definitions, gradients by gradcheck in float64,
PyTorch as an extra cross-check where installed, and bad input. The phi ops
themselves are in the op table (tests/op_specs/norm.py)."""
import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck, gradgradcheck

pytestmark = pytest.mark.usefixtures("device")


def rand(shape, seed=0, dtype="float64"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def tensor(array, grad=False):
    return eager.to_tensor(array, stop_gradient=not grad)


def ref_normalize(x, axes, epsilon):
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + epsilon)


# -- layer_norm ---------------------------------------------------------------

@pytest.mark.parametrize("shape, normalized", [((4, 6), 6), ((2, 3, 4), [3, 4]), ((2, 3, 4), (4,))])
def test_layer_norm_matches_numpy(shape, normalized):
    x = rand(shape)
    k = 1 if isinstance(normalized, int) else len(normalized)
    w, b = rand(shape[-k:], 1), rand(shape[-k:], 2)
    out = F.layer_norm(tensor(x), normalized, tensor(w), tensor(b), epsilon=1e-3)
    want = ref_normalize(x, tuple(range(len(shape) - k, len(shape))), 1e-3) * w + b
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12, atol=1e-12)


def test_layer_norm_float32_and_no_affine():
    x = rand((3, 5), dtype="float32")
    out = F.layer_norm(tensor(x), [5])
    assert out.dtype == eager.float32
    np.testing.assert_allclose(out.numpy(), ref_normalize(x.astype("float64"), (1,), 1e-5), rtol=1e-5, atol=1e-5)


def test_layer_norm_gradients():
    x, w, b = tensor(rand((2, 3, 4)), True), tensor(rand((3, 4), 1), True), tensor(rand((3, 4), 2), True)
    fn = lambda x, w, b: F.layer_norm(x, [3, 4], w, b, 1e-2)  # noqa: E731
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


def test_layer_norm_layer_trains_and_matches_torch():
    torch = pytest.importorskip("torch")
    layer = eager.nn.LayerNorm([3, 4], epsilon=1e-4)
    # the parameters are flat, [12], as Paddle's (torch's are [3, 4])
    layer.set_state_dict({"weight": rand((12,), 1, "float32"), "bias": rand((12,), 2, "float32")})
    ref = torch.nn.LayerNorm([3, 4], eps=1e-4)
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(layer.weight.numpy().reshape(3, 4)))
        ref.bias.copy_(torch.tensor(layer.bias.numpy().reshape(3, 4)))
    x = rand((2, 3, 4), 3, "float32")
    out, want = layer(tensor(x)), ref(torch.tensor(x))
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-5)
    seed = rand((2, 3, 4), 4, "float32")
    out.backward(tensor(seed))
    want.backward(torch.tensor(seed))
    np.testing.assert_allclose(layer.weight.grad.numpy(), ref.weight.grad.numpy().ravel(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(layer.bias.grad.numpy(), ref.bias.grad.numpy().ravel(), rtol=1e-4, atol=1e-5)


def test_layer_norm_layer_parameters():
    layer = eager.nn.LayerNorm(8)
    assert layer.weight.shape == [8] and layer.bias.shape == [8]
    np.testing.assert_array_equal(layer.weight.numpy(), np.ones(8, "float32"))
    np.testing.assert_array_equal(layer.bias.numpy(), np.zeros(8, "float32"))
    bare = eager.nn.LayerNorm(8, weight_attr=False, bias_attr=False)
    assert bare.weight is None and bare.bias is None and not bare.parameters()
    assert "normalized_shape=[8]" in repr(layer)


def test_layer_norm_bad_input():
    x = tensor(rand((2, 3)))
    with pytest.raises(ValueError, match="layer_norm: argument 'normalized_shape'"):
        F.layer_norm(x, [4])
    with pytest.raises(ValueError, match="layer_norm: argument 'epsilon'"):
        F.layer_norm(x, 3, epsilon=-1.0)
    with pytest.raises(ValueError, match="layer_norm: argument 'weight' expected shape \\[3\\]"):
        F.layer_norm(x, 3, weight=tensor(np.ones(2)))
    with pytest.raises(TypeError, match="layer_norm: argument 'x' expected a floating-point Tensor"):
        F.layer_norm(eager.to_tensor([[1, 2]]), 2)
    with pytest.raises(ValueError, match="LayerNorm: argument 'normalized_shape'"):
        eager.nn.LayerNorm([0])


# -- batch_norm ---------------------------------------------------------------

CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


def channel_axis(ndim, fmt):
    return ndim - 1 if fmt in CHANNEL_LAST and ndim > 2 else 1


def ref_batch_norm_step(x, mean, var, w, b, momentum, eps, fmt, use_batch):
    """(out, new running mean, new running var) from the definition, float64."""
    axis = channel_axis(x.ndim, fmt)
    axes = tuple(i for i in range(x.ndim) if i != axis)
    shape = [1] * x.ndim
    shape[axis] = -1
    if use_batch:
        m, v = x.mean(axis=axes), x.var(axis=axes)
        mean, var_new = momentum * mean + (1 - momentum) * m, momentum * var + (1 - momentum) * v
    else:
        m, v, var_new = mean, var, var
    out = (x - m.reshape(shape)) / np.sqrt(v.reshape(shape) + eps) * w.reshape(shape) + b.reshape(shape)
    return out, mean, var_new


@pytest.mark.parametrize("shape, fmt", [((6, 3), "NC"), ((4, 3, 5), "NCL"), ((4, 5, 3), "NLC"),
                                        ((2, 3, 4, 5), "NCHW"), ((2, 4, 5, 3), "NHWC"),
                                        ((2, 3, 2, 3, 2), "NCDHW"), ((2, 2, 3, 2, 3), "NDHWC")])
def test_batch_norm_training_updates_running_stats(shape, fmt):
    c = shape[channel_axis(len(shape), fmt)]
    w, b = rand(c, 1), rand(c, 2)
    mean, var = tensor(np.zeros(c)), tensor(np.ones(c))
    ref_mean, ref_var = np.zeros(c), np.ones(c)
    for step in range(3):
        x = rand(shape, 10 + step) * 2 + 1
        out = F.batch_norm(tensor(x), mean, var, tensor(w), tensor(b), training=True, momentum=0.8,
                           epsilon=1e-3, data_format=fmt)
        want, ref_mean, ref_var = ref_batch_norm_step(x, ref_mean, ref_var, w, b, 0.8, 1e-3, fmt, True)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(mean.numpy(), ref_mean, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(var.numpy(), ref_var, rtol=1e-12, atol=1e-12)
    # eval: the running statistics normalize and stay as they are
    x = rand(shape, 20)
    out = F.batch_norm(tensor(x), mean, var, tensor(w), tensor(b), training=False, epsilon=1e-3, data_format=fmt)
    want, _, _ = ref_batch_norm_step(x, ref_mean, ref_var, w, b, 0.8, 1e-3, fmt, False)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(mean.numpy(), ref_mean, rtol=1e-12, atol=1e-12)


def test_batch_norm_use_global_stats_overrides_training():
    x, w, b = rand((4, 3, 2)), rand(3, 1), rand(3, 2)
    mean, var = tensor(rand(3, 3)), tensor(np.abs(rand(3, 4)) + 0.5)
    before = mean.numpy().copy(), var.numpy().copy()
    out = F.batch_norm(tensor(x), mean, var, tensor(w), tensor(b), training=True, use_global_stats=True,
                       data_format="NCL")
    want, _, _ = ref_batch_norm_step(x, before[0], before[1], w, b, 0.9, 1e-5, "NCL", False)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(mean.numpy(), before[0])
    # use_global_stats=False in eval mode: batch statistics, running ones updated (Paddle)
    F.batch_norm(tensor(x), mean, var, tensor(w), tensor(b), training=False, use_global_stats=False,
                 data_format="NCL")
    np.testing.assert_allclose(mean.numpy(), 0.9 * before[0] + 0.1 * x.mean(axis=(0, 2)), rtol=1e-12)


def test_batch_norm_float32_and_no_affine():
    x = rand((8, 4), dtype="float32")
    mean, var = eager.zeros([4]), eager.ones([4])
    out = F.batch_norm(tensor(x), mean, var, training=True, data_format="NC")
    assert out.dtype == eager.float32 and mean.dtype == eager.float32
    want, _, _ = ref_batch_norm_step(x.astype("float64"), np.zeros(4), np.ones(4), np.ones(4), np.zeros(4), 0.9,
                                     1e-5, "NC", True)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_gradients(training):
    x, w, b = tensor(rand((3, 2, 2, 2)), True), tensor(rand(2, 1), True), tensor(rand(2, 2), True)

    def fn(x, w, b):
        # fresh running statistics per call, so repeated calls see the same inputs
        return F.batch_norm(x, tensor(np.full(2, 0.3)), tensor(np.full(2, 1.7)), w, b, training=training,
                            epsilon=1e-2)
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


def _offset_batch(shape, offset, seed):
    """float32 NCHW data whose channel c has std s_c and mean offset * s_c (a sign per channel)."""
    rng = np.random.default_rng(seed)
    c = shape[1]
    std = rng.uniform(0.2, 2.0, (1, c, 1, 1))
    x = rng.standard_normal(shape) * std + offset * std * rng.choice([-1.0, 1.0], (1, c, 1, 1))
    return x.astype("float32"), rng.standard_normal(shape).astype("float32")


def _max_rel(got, want):
    return float(np.max(np.abs(got.astype("float64") - want)) / np.max(np.abs(want)))


# mean/std 0 and 1.5 take the one-pass statistics and x * a + b (phi/kernels/norm.py's
# _ONE_PASS_RATIO); 100 must take the centered form: one pass there loses about 1e-5.
@pytest.mark.parametrize("shape", [(8, 3, 16, 16), (16, 4, 5, 5)])   # BLAS row dots, einsum row dots
@pytest.mark.parametrize("offset", [0.0, 1.5, 100.0])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_float32_accuracy_against_float64(shape, offset, training):
    x, seed = _offset_batch(shape, offset, 1)
    c = shape[1]
    w = np.random.default_rng(2).uniform(0.5, 1.5, c).astype("float32")
    b = np.random.default_rng(3).standard_normal(c).astype("float32")
    x64, seed64, w64, b64 = (a.astype("float64") for a in (x, seed, w, b))
    rm = (x64.mean(axis=(0, 2, 3)) * 0.999).astype("float32")   # running statistics near the batch's
    rv = (x64.var(axis=(0, 2, 3)) * 1.001).astype("float32")
    xt, wt, bt = tensor(x, True), tensor(w, True), tensor(b, True)
    out = F.batch_norm(xt, tensor(rm.copy()), tensor(rv.copy()), wt, bt, training=training, epsilon=1e-5)
    (out * tensor(seed)).sum().backward()
    if training:
        m, v = x64.mean(axis=(0, 2, 3)), x64.var(axis=(0, 2, 3))
    else:
        m, v = rm.astype("float64"), rv.astype("float64")
    per = (1, c, 1, 1)
    rstd = 1 / np.sqrt(v + 1e-5)
    xhat = (x64 - m.reshape(per)) * rstd.reshape(per)
    want_out = xhat * w64.reshape(per) + b64.reshape(per)
    g = seed64 * w64.reshape(per)
    if training:
        mean_g = g.mean(axis=(0, 2, 3), keepdims=True)
        mean_gx = (g * xhat).mean(axis=(0, 2, 3), keepdims=True)
        want_dx = rstd.reshape(per) * (g - mean_g - xhat * mean_gx)
    else:
        want_dx = g * rstd.reshape(per)
    assert _max_rel(out.numpy(), want_out) < 1e-6
    assert _max_rel(xt.grad.numpy(), want_dx) < 1e-6
    assert _max_rel(wt.grad.numpy(), (seed64 * xhat).sum(axis=(0, 2, 3))) < 1e-6
    assert _max_rel(bt.grad.numpy(), seed64.sum(axis=(0, 2, 3))) < 1e-6


@pytest.mark.parametrize("offset", [0.0, 100.0])
def test_instance_norm_float32_accuracy_against_float64(offset):
    x, seed = _offset_batch((4, 3, 16, 16), offset, 4)
    xt = tensor(x, True)
    out = F.instance_norm(xt, eps=1e-5)
    (out * tensor(seed)).sum().backward()
    x64, g = x.astype("float64"), seed.astype("float64")
    xhat = ref_normalize(x64, (2, 3), 1e-5)
    rstd = 1 / np.sqrt(x64.var(axis=(2, 3), keepdims=True) + 1e-5)
    want_dx = rstd * (g - g.mean(axis=(2, 3), keepdims=True) - xhat * (g * xhat).mean(axis=(2, 3), keepdims=True))
    assert _max_rel(out.numpy(), xhat) < 1e-6
    assert _max_rel(xt.grad.numpy(), want_dx) < 1e-6


def test_batch_norm_layers_match_torch():
    torch = pytest.importorskip("torch")
    eager.seed(0)
    layer = eager.nn.BatchNorm2D(3, momentum=0.8)
    ref = torch.nn.BatchNorm2d(3, momentum=0.2).double()
    layer.set_state_dict({"weight": rand(3, 1, "float32"), "bias": rand(3, 2, "float32")})
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(layer.weight.numpy(), dtype=torch.float64))
        ref.bias.copy_(torch.tensor(layer.bias.numpy(), dtype=torch.float64))
    for step in range(3):
        x = rand((4, 3, 5, 5), 30 + step, "float32") * 3 + 2
        out = layer(tensor(x, True))
        want = ref(torch.tensor(x, dtype=torch.float64, requires_grad=True))
        np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(layer._mean.numpy(), ref.running_mean.numpy(), rtol=1e-5, atol=1e-6)
    # gradients of the last step
    seed = rand((4, 3, 5, 5), 40, "float32")
    out.backward(tensor(seed))
    want.backward(torch.tensor(seed, dtype=torch.float64))
    np.testing.assert_allclose(layer.weight.grad.numpy(), ref.weight.grad.numpy(), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(layer.bias.grad.numpy(), ref.bias.grad.numpy(), rtol=1e-4, atol=1e-3)
    # eval mode: torch with our running statistics (torch's running variance is unbiased, ours biased as Paddle)
    layer.eval()
    ref.eval()
    with torch.no_grad():
        ref.running_var.copy_(torch.tensor(layer._variance.numpy(), dtype=torch.float64))
    x = rand((2, 3, 4, 4), 50, "float32")
    np.testing.assert_allclose(layer(tensor(x)).numpy(), ref(torch.tensor(x, dtype=torch.float64)).detach().numpy(),
                               rtol=1e-4, atol=1e-4)


def test_batch_norm_layer_buffers_and_modes():
    layer = eager.nn.BatchNorm1D(4)
    assert list(layer.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    x = rand((6, 4, 3), 1, "float32")
    layer(tensor(x))
    trained = layer._mean.numpy().copy()
    np.testing.assert_allclose(trained, 0.1 * x.mean(axis=(0, 2)), rtol=1e-5, atol=1e-7)
    layer.eval()
    out = layer(tensor(x))
    np.testing.assert_array_equal(layer._mean.numpy(), trained)
    want = (x - trained[None, :, None]) / np.sqrt(layer._variance.numpy()[None, :, None] + 1e-5)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)
    fresh = eager.nn.BatchNorm1D(4)
    fresh.set_state_dict(layer.state_dict())
    np.testing.assert_array_equal(fresh._mean.numpy(), trained)
    assert layer(tensor(rand((5, 4), 2, "float32"))).shape == [5, 4]     # "NCL" layers take [N, C] too


def test_old_style_batch_norm():
    layer = eager.nn.BatchNorm(3, act="relu", data_layout="NHWC", dtype="float64")
    x = rand((2, 4, 3), 1)
    out = layer(tensor(x))
    want, mean, _ = ref_batch_norm_step(x, np.zeros(3), np.ones(3), np.ones(3), np.zeros(3), 0.9, 1e-5, "NLC", True)
    np.testing.assert_allclose(out.numpy(), np.maximum(want, 0), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(layer._mean.numpy(), mean, rtol=1e-12)
    frozen = eager.nn.BatchNorm(3, is_test=True)
    frozen.eval()
    frozen(tensor(rand((2, 3), 2, "float32")))
    np.testing.assert_array_equal(frozen._mean.numpy(), np.zeros(3, "float32"))


def test_batch_norm_bad_input_leaves_running_stats():
    mean, var = eager.zeros([3]), eager.ones([3])
    x = tensor(rand((4, 3, 2), dtype="float32"))
    with pytest.raises(ValueError, match="batch_norm: argument 'running_mean' expected shape \\[4\\]"):
        F.batch_norm(tensor(rand((4, 4, 2), dtype="float32")), mean, var, training=True)
    with pytest.raises(ValueError, match="batch_norm: argument 'data_format'"):
        F.batch_norm(x, mean, var, training=True, data_format="NHCW")
    with pytest.raises(ValueError, match="batch_norm: argument 'epsilon'"):
        F.batch_norm(x, mean, var, training=True, epsilon=-1e-5)
    with pytest.raises(ValueError, match="batch_norm: argument 'momentum'"):
        F.batch_norm(x, mean, var, training=True, momentum=1.5)
    np.testing.assert_array_equal(mean.numpy(), np.zeros(3))
    np.testing.assert_array_equal(var.numpy(), np.ones(3))
    layer = eager.nn.BatchNorm2D(3)
    with pytest.raises(ValueError, match="BatchNorm2D.*expected 3 channels"):
        layer(tensor(rand((2, 4, 3, 3), dtype="float32")))
    with pytest.raises(ValueError, match="BatchNorm2D.*rank 4"):
        layer(tensor(rand((2, 3, 3), dtype="float32")))
    with pytest.raises(ValueError, match="BatchNorm2D: argument 'data_format'"):
        eager.nn.BatchNorm2D(3, data_format="NCL")
    with pytest.raises(ValueError, match="BatchNorm1D: argument 'epsilon'"):
        eager.nn.BatchNorm1D(3, epsilon=-1.0)
    np.testing.assert_array_equal(layer._mean.numpy(), np.zeros(3))


# -- instance_norm, group_norm --------------------------------------------------

@pytest.mark.parametrize("shape, fmt", [((2, 3, 5), "NCL"), ((2, 4, 4, 3), "NHWC"), ((1, 2, 2, 3, 2), "NCDHW")])
def test_instance_norm_matches_numpy(shape, fmt):
    x = rand(shape)
    axis = channel_axis(len(shape), fmt)
    c = shape[axis]
    w, b = rand(c, 1), rand(c, 2)
    pshape = [1] * len(shape)
    pshape[axis] = c
    spatial = tuple(i for i in range(1, len(shape)) if i != axis)
    want = ref_normalize(x, spatial, 1e-5) * w.reshape(pshape) + b.reshape(pshape)
    out = F.instance_norm(tensor(x), weight=tensor(w), bias=tensor(b), data_format=fmt)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10, atol=1e-10)
    # running statistics instead of the input's
    mean, var = rand(c, 3), np.abs(rand(c, 4)) + 0.5
    out = F.instance_norm(tensor(x), tensor(mean), tensor(var), tensor(w), tensor(b), use_input_stats=False,
                          data_format=fmt)
    want = (x - mean.reshape(pshape)) / np.sqrt(var.reshape(pshape) + 1e-5) * w.reshape(pshape) + b.reshape(pshape)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("shape, groups, fmt", [((2, 6, 3), 3, "NCL"), ((2, 3, 3, 4), 2, "NHWC"),
                                                ((3, 4), 2, "NCHW"), ((1, 4, 2, 2, 2), 4, "NCDHW")])
def test_group_norm_matches_numpy(shape, groups, fmt):
    x = rand(shape)
    axis = channel_axis(len(shape), fmt)
    c = shape[axis]
    w, b = rand(c, 1), rand(c, 2)
    first = np.moveaxis(x, axis, 1)
    grouped = first.reshape((shape[0], groups, -1))
    want = ref_normalize(grouped, (2,), 1e-4).reshape(first.shape)
    pshape = (1, c) + (1,) * (len(shape) - 2)
    want = np.moveaxis(want * w.reshape(pshape) + b.reshape(pshape), 1, axis)
    out = F.group_norm(tensor(x), groups, 1e-4, tensor(w), tensor(b), fmt)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10, atol=1e-10)


def test_instance_and_group_norm_gradients():
    x, w, b = tensor(rand((2, 4, 3)), True), tensor(rand(4, 1), True), tensor(rand(4, 2), True)
    for fn in (lambda x, w, b: F.instance_norm(x, weight=w, bias=b, data_format="NCL"),
               lambda x, w, b: F.group_norm(x, 2, 1e-3, w, b, "NCL")):
        assert gradcheck(fn, (x, w, b))
        assert gradgradcheck(fn, (x, w, b))


def test_instance_and_group_layers_match_torch():
    torch = pytest.importorskip("torch")
    x = rand((2, 4, 5, 5), 1, "float32")
    inst = eager.nn.InstanceNorm2D(4)
    assert list(inst.state_dict()) == ["scale", "bias"]
    inst.set_state_dict({"scale": rand(4, 2, "float32"), "bias": rand(4, 3, "float32")})
    ref = torch.nn.InstanceNorm2d(4, affine=True)
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(inst.scale.numpy()))
        ref.bias.copy_(torch.tensor(inst.bias.numpy()))
    np.testing.assert_allclose(inst(tensor(x)).numpy(), ref(torch.tensor(x)).detach().numpy(), rtol=1e-4, atol=1e-5)
    group = eager.nn.GroupNorm(2, 4, epsilon=1e-3)
    group.set_state_dict({"weight": rand(4, 2, "float32"), "bias": rand(4, 3, "float32")})
    ref = torch.nn.GroupNorm(2, 4, eps=1e-3)
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(group.weight.numpy()))
        ref.bias.copy_(torch.tensor(group.bias.numpy()))
    np.testing.assert_allclose(group(tensor(x)).numpy(), ref(torch.tensor(x)).detach().numpy(), rtol=1e-4,
                               atol=1e-5)


def test_instance_and_group_norm_bad_input():
    x = tensor(rand((2, 4, 3)))
    with pytest.raises(ValueError, match="group_norm: argument 'num_groups' \\(3\\) must divide"):
        F.group_norm(x, 3, data_format="NCL")
    with pytest.raises(ValueError, match="group_norm: argument 'data_format'"):
        F.group_norm(x, 2, data_format="NCWH")
    with pytest.raises(ValueError, match="group_norm: argument 'epsilon'"):
        F.group_norm(x, 2, epsilon=-1.0, data_format="NCL")
    with pytest.raises(ValueError, match="instance_norm: argument 'weight' expected shape \\[4\\]"):
        F.instance_norm(x, weight=tensor(np.ones(3)), data_format="NCL")
    with pytest.raises(ValueError, match="instance_norm: argument 'x' expected a tensor of rank 2"):
        F.instance_norm(tensor(rand((4,))))
    with pytest.raises(ValueError, match="GroupNorm: argument 'num_groups'"):
        eager.nn.GroupNorm(3, 4)
    with pytest.raises(ValueError, match="InstanceNorm1D.*expected 3 channels"):
        eager.nn.InstanceNorm1D(3)(tensor(rand((2, 4, 5), dtype="float32")))


# -- local_response_norm, normalize -----------------------------------------------

def ref_local_response_norm(x, size, alpha, beta, k, axis):
    x_first = np.moveaxis(x, axis, 1)
    c = x_first.shape[1]
    squares = x_first ** 2
    total = np.zeros_like(squares)
    for ch in range(c):
        lo, hi = max(0, ch - size // 2), min(c, ch + (size - 1) // 2 + 1)
        total[:, ch] = squares[:, lo:hi].sum(axis=1)
    return np.moveaxis(x_first / (k + alpha / size * total) ** beta, 1, axis)


@pytest.mark.parametrize("shape, size, fmt", [((2, 5, 3), 3, "NCL"), ((1, 4, 3, 6), 4, "NHWC"),
                                              ((1, 3, 2, 2, 2), 5, "NCDHW")])
def test_local_response_norm(shape, size, fmt):
    x = rand(shape)
    out = F.local_response_norm(tensor(x), size, alpha=0.3, beta=0.6, k=2.0, data_format=fmt)
    want = ref_local_response_norm(x, size, 0.3, 0.6, 2.0, channel_axis(len(shape), fmt))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10, atol=1e-12)
    assert gradcheck(lambda t: F.local_response_norm(t, size, 0.3, 0.6, 2.0, fmt), (tensor(x, True),))


def test_local_response_norm_layer_matches_torch():
    torch = pytest.importorskip("torch")
    x = rand((2, 7, 3, 3), 1, "float32")
    ours = eager.nn.LocalResponseNorm(5, alpha=1e-2, beta=0.75, k=1.5)(tensor(x))
    want = torch.nn.LocalResponseNorm(5, alpha=1e-2, beta=0.75, k=1.5)(torch.tensor(x))
    np.testing.assert_allclose(ours.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("p, axis", [(2, 1), (1, 0), (3.0, -1)])
def test_normalize(p, axis):
    x = rand((3, 4))
    x[1] = 0.0                                   # a zero slice divides by epsilon
    out = F.normalize(tensor(x), p=p, axis=axis, epsilon=1e-6)
    norms = (np.abs(x) ** p).sum(axis=axis, keepdims=True) ** (1.0 / p)
    np.testing.assert_allclose(out.numpy(), x / np.maximum(norms, 1e-6), rtol=1e-10, atol=1e-12)
    assert gradcheck(lambda t: F.normalize(t, p=p, axis=axis), (tensor(rand((3, 4), 2), True),))


def test_normalize_matches_torch():
    torch = pytest.importorskip("torch")
    x = rand((4, 5), 3)
    np.testing.assert_allclose(F.normalize(tensor(x)).numpy(), torch.nn.functional.normalize(torch.tensor(x)).numpy(),
                               rtol=1e-12)


def test_normalize_and_local_response_norm_bad_input():
    x = rand((4, 5), 3)
    with pytest.raises(ValueError, match="normalize: argument 'axis'"):
        F.normalize(tensor(x), axis=2)
    with pytest.raises(ValueError, match="local_response_norm: argument 'size'"):
        F.local_response_norm(tensor(rand((1, 3, 3))), 0)


def test_batch_norm_layers_follow_the_default_dtype():
    previous = eager.get_default_dtype()
    try:
        eager.set_default_dtype("float64")
        layer = eager.nn.BatchNorm2D(3)
        assert layer.weight.dtype == eager.float64 and layer._mean.dtype == eager.float64
        x = eager.randn([2, 3, 4, 4])
        assert layer(x).dtype == eager.float64
        eager.set_default_dtype("float16")  # statistics and affine parameters stay float32, as Paddle
        layer = eager.nn.BatchNorm1D(3)
        assert layer.weight.dtype == eager.float32 and layer._variance.dtype == eager.float32
    finally:
        eager.set_default_dtype(previous)
