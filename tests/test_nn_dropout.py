"""Dropout: F.dropout / dropout2d / dropout3d / alpha_dropout and their layers.

Random results are checked by what they must satisfy: every element is 0 or
x times the mode's scale, the kept fraction is near 1 - p, the backward pass
multiplies by the same mask as the forward one, eager.seed reproduces a mask,
and masks drawn with ``axis`` are shared along the other axes.
"""
import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck, gradgradcheck
from phi import api as phi_api

pytestmark = pytest.mark.usefixtures("device")


def _rng(seed=0):
    return np.random.default_rng(seed)


def _nonzero(shape, dtype="float64", seed=0):
    rng = _rng(seed)
    return (rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)).astype(dtype)


# -- values and statistics ------------------------------------------------------------

@pytest.mark.parametrize("p", [0.1, 0.3, 0.5, 0.9])
def test_keep_fraction_and_upscaling(p):
    eager.seed(11)
    out = F.dropout(eager.ones([200, 500]), p=p).numpy()
    kept = out != 0
    assert abs(kept.mean() - (1 - p)) < 0.01
    np.testing.assert_allclose(out[kept], 1.0 / (1.0 - p), rtol=1e-6)
    # upscale_in_train keeps the expected value: E[out] = x.
    assert abs(out.mean() - 1.0) < 0.05


def test_downscale_in_infer_scales_at_inference_only():
    x = eager.to_tensor(_nonzero((50, 40)))
    eager.seed(3)
    out = F.dropout(x, p=0.25, mode="downscale_in_infer").numpy()
    kept = out != 0
    np.testing.assert_array_equal(out[kept], x.numpy()[kept])  # kept values unscaled in training
    assert abs(kept.mean() - 0.75) < 0.05
    np.testing.assert_allclose(F.dropout(x, p=0.25, training=False, mode="downscale_in_infer").numpy(),
                               x.numpy() * 0.75, rtol=1e-12)


def test_eval_mode_is_identity_for_upscale_in_train():
    x = eager.to_tensor(_nonzero((4, 5)), stop_gradient=False)
    out = F.dropout(x, p=0.7, training=False)
    np.testing.assert_array_equal(out.numpy(), x.numpy())
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((4, 5)))


def test_p_zero_returns_x_and_p_one_gives_zeros():
    x = eager.to_tensor(_nonzero((3, 4)), stop_gradient=False)
    assert F.dropout(x, p=0.0) is x
    assert F.dropout(x, p=0, mode="downscale_in_infer", training=False) is x
    out = F.dropout(x, p=1.0)
    np.testing.assert_array_equal(out.numpy(), np.zeros((3, 4)))
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 4)))
    np.testing.assert_array_equal(F.dropout(x, p=1.0, training=False).numpy(), x.numpy())


def test_backward_reuses_the_forward_mask():
    x = eager.to_tensor(_nonzero((30, 20)), stop_gradient=False)
    seed = eager.to_tensor(_rng(5).standard_normal((30, 20)))
    out = F.dropout(x, p=0.4)
    out.backward(seed)
    kept = out.numpy() != 0
    assert 0 < kept.sum() < kept.size
    np.testing.assert_allclose(x.grad.numpy(), seed.numpy() * kept / 0.6, rtol=1e-12)


def test_the_op_returns_its_mask_for_the_backward_op():
    x = eager.to_tensor(_nonzero((6, 7)))
    eager.seed(9)
    out, mask = phi_api.dropout(x.impl, 0.5, False, "upscale_in_train", [], 0)
    mask_tensor = eager.Tensor(mask)
    out, mask = eager.Tensor(out).numpy(), mask_tensor.numpy()
    assert mask.dtype == np.uint8 and set(np.unique(mask)) <= {0, 1}
    np.testing.assert_allclose(out, x.numpy() * mask * 2.0, rtol=1e-12)
    g = _rng(1).standard_normal((6, 7))
    x_grad = eager.ops.dropout_grad(mask_tensor, eager.to_tensor(g), 0.5, False, "upscale_in_train")
    np.testing.assert_allclose(x_grad.numpy(), g * mask * 2.0, rtol=1e-12)


def test_eager_seed_reproduces_the_mask():
    x = eager.to_tensor(_nonzero((8, 9)))
    eager.seed(123)
    a = F.dropout(x, 0.5).numpy()
    b = F.dropout(x, 0.5).numpy()
    eager.seed(123)
    c = F.dropout(x, 0.5).numpy()
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)


def test_a_rejected_call_draws_nothing():
    x = eager.to_tensor(_nonzero((5, 5)))
    eager.seed(77)
    want = F.dropout(x, 0.5).numpy()
    eager.seed(77)
    with pytest.raises(ValueError):
        F.dropout(x, 1.5)
    with pytest.raises(ValueError, match="argument 'mode'"):
        eager.dropout(x, 0.5, False, "bad mode")
    np.testing.assert_array_equal(F.dropout(x, 0.5).numpy(), want)


# -- axis: one draw shared along the other axes -----------------------------------------

@pytest.mark.parametrize("axis", [0, [1], [0, 2], [-1], (2, 0)])
def test_axis_shares_the_mask_along_the_other_axes(axis):
    x = eager.to_tensor(_nonzero((6, 7, 8)))
    eager.seed(4)
    out = F.dropout(x, p=0.5, axis=axis).numpy()
    kept = out != 0
    axes = sorted(a % 3 for a in ([axis] if isinstance(axis, int) else axis))
    first = kept[tuple(slice(None) if i in axes else slice(0, 1) for i in range(3))]
    assert (kept == first).all()
    assert 0 < kept.mean() < 1
    np.testing.assert_allclose(out[kept], 2 * x.numpy()[kept], rtol=1e-12)


def test_axis_in_eval_mode_and_downscale():
    x = eager.to_tensor(_nonzero((3, 4)))
    np.testing.assert_allclose(F.dropout(x, 0.2, axis=1, training=False, mode="downscale_in_infer").numpy(),
                               0.8 * x.numpy(), rtol=1e-12)


@pytest.mark.parametrize("fn, shape, data_format, channel", [
    (F.dropout2d, (4, 6, 3, 5), "NCHW", 1), (F.dropout2d, (4, 3, 5, 6), "NHWC", 3),
    (F.dropout3d, (3, 5, 2, 3, 4), "NCDHW", 1), (F.dropout3d, (3, 2, 3, 4, 5), "NDHWC", 4)])
def test_channel_dropout_drops_whole_feature_maps(fn, shape, data_format, channel):
    x = eager.to_tensor(_nonzero(shape))
    eager.seed(8)
    out = fn(x, p=0.5, data_format=data_format).numpy()
    kept = np.moveaxis(out != 0, channel, 1).reshape(shape[0], shape[channel], -1)
    assert (kept.all(axis=2) | ~kept.any(axis=2)).all(), "a channel was partly dropped"
    assert 0 < kept.mean() < 1
    np.testing.assert_allclose(out[out != 0], 2 * x.numpy()[out != 0], rtol=1e-12)
    np.testing.assert_array_equal(fn(x, p=0.5, training=False, data_format=data_format).numpy(), x.numpy())


# -- alpha dropout ----------------------------------------------------------------------

def test_alpha_dropout_keeps_zero_mean_and_unit_variance():
    eager.seed(21)
    x = eager.randn([400000], dtype="float64")
    out = F.alpha_dropout(x, p=0.3).numpy()
    assert abs(out.mean()) < 0.01 and abs(out.std() - 1.0) < 0.01


def test_alpha_dropout_values_and_gradient():
    p = 0.4
    alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    x = eager.to_tensor(_nonzero((40, 30)), stop_gradient=False)
    out = F.alpha_dropout(x, p=p)
    values = out.numpy()
    dropped = np.isclose(values, a * alpha_p + b, rtol=0, atol=1e-12)
    kept_values = a * x.numpy() + b
    assert (dropped | np.isclose(values, kept_values, rtol=1e-12)).all()
    assert abs(dropped.mean() - p) < 0.08
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(dropped, 0.0, a), rtol=1e-12)
    assert F.alpha_dropout(x, p=p, training=False) is x
    np.testing.assert_array_equal(F.alpha_dropout(x, p=1.0).numpy(), np.zeros((40, 30)))


def test_feature_alpha_dropout_drops_whole_channels():
    p = 0.5
    alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    x = eager.to_tensor(_nonzero((6, 5, 3, 4)), stop_gradient=False)
    eager.seed(13)
    out = F.feature_alpha_dropout(x, p=p)
    dropped = np.isclose(out.numpy(), a * alpha_p + b, rtol=0, atol=1e-12).reshape(6, 5, -1)
    assert (dropped.all(axis=2) | ~dropped.any(axis=2)).all(), "a channel was partly dropped"
    assert 0 < dropped.mean() < 1
    kept = ~dropped
    np.testing.assert_allclose(out.numpy().reshape(6, 5, -1)[kept], (a * x.numpy() + b).reshape(6, 5, -1)[kept],
                               rtol=1e-12)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy().reshape(6, 5, -1), np.where(dropped, 0.0, a), rtol=1e-12)
    assert F.feature_alpha_dropout(x, p=p, training=False) is x
    eager.seed(13)
    np.testing.assert_array_equal(eager.nn.FeatureAlphaDropout(p)(x).numpy(), out.numpy())


# -- gradients --------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{"p": 0.4}, {"p": 0.3, "axis": [1]}, {"p": 0.5, "mode": "downscale_in_infer"},
                                    {"p": 0.5, "training": False, "mode": "downscale_in_infer"}])
def test_gradcheck_with_a_fixed_mask(kwargs):
    x = eager.to_tensor(_nonzero((3, 4)), stop_gradient=False)

    def fn(t):
        eager.seed(5)  # one mask for every evaluation of the finite differences
        return F.dropout(t, **kwargs)

    assert gradcheck(fn, [x])
    assert gradgradcheck(fn, [x])


def test_gradcheck_channel_and_alpha_dropout():
    x4 = eager.to_tensor(_nonzero((2, 3, 2, 2)), stop_gradient=False)
    x2 = eager.to_tensor(_nonzero((3, 4)), stop_gradient=False)

    def drop2d(t):
        eager.seed(6)
        return F.dropout2d(t, 0.5)

    def alpha(t):
        eager.seed(6)
        return F.alpha_dropout(t, 0.3)

    assert gradcheck(drop2d, [x4])
    assert gradcheck(alpha, [x2]) and gradgradcheck(alpha, [x2])


# -- layers -----------------------------------------------------------------------------

def test_dropout_layer_follows_train_and_eval():
    net = eager.nn.Sequential(eager.nn.Linear(4, 4), eager.nn.Dropout(0.5))
    x = eager.ones([64, 4])
    drop = net[1]
    assert drop.training
    eager.seed(1)
    assert (drop(eager.ones([20, 20])).numpy() == 0).any()
    net.eval()
    assert not drop.training
    np.testing.assert_array_equal(drop(x).numpy(), x.numpy())
    net.train()
    assert drop.training
    assert "p=0.5" in repr(drop)


def test_dropout_layers_pass_their_arguments():
    x = eager.to_tensor(_nonzero((4, 6, 3, 3)))
    eager.seed(2)
    want = F.dropout(x, 0.3, axis=[0, 1], mode="downscale_in_infer").numpy()
    eager.seed(2)
    got = eager.nn.Dropout(0.3, axis=[0, 1], mode="downscale_in_infer")(x).numpy()
    np.testing.assert_array_equal(got, want)
    eager.seed(2)
    np.testing.assert_array_equal(eager.nn.Dropout2D(0.3, data_format="NHWC")(x).numpy(),
                                  (eager.seed(2), F.dropout2d(x, 0.3, data_format="NHWC"))[1].numpy())
    x5 = eager.to_tensor(_nonzero((2, 3, 2, 2, 2)))
    layer = eager.nn.Dropout3D(0.5)
    layer.eval()
    np.testing.assert_array_equal(layer(x5).numpy(), x5.numpy())
    alpha = eager.nn.AlphaDropout(0.2)
    alpha.eval()
    assert alpha(x) is x
    assert "p=0.2" in repr(alpha)


# -- bad input --------------------------------------------------------------------------

@pytest.mark.parametrize("call, error, words", [
    (lambda x: F.dropout(x, p=-0.1), ValueError, "argument 'p'"),
    (lambda x: F.dropout(x, p=1.5), ValueError, "[0, 1]"),
    (lambda x: F.dropout(x, p=float("nan")), ValueError, "argument 'p'"),
    (lambda x: F.dropout(x, p="0.5"), TypeError, "argument 'p'"),
    (lambda x: F.dropout(x, p=0.5, mode="upscale"), ValueError, "argument 'mode'"),
    (lambda x: F.dropout(x, p=0.5, axis=3), ValueError, "argument 'axis'"),
    (lambda x: F.dropout(x, p=0.5, axis="0"), TypeError, "argument 'axis'"),
    (lambda x: F.dropout(x, p=0.5, training=1), TypeError, "argument 'training'"),
    (lambda x: F.dropout(x.astype("int64"), p=0.5), TypeError, "floating-point"),
    (lambda x: F.dropout(x.numpy(), p=0.5), TypeError, "expected a Tensor"),
    (lambda x: F.dropout2d(x, p=0.5), ValueError, "4-d"),
    (lambda x: F.dropout2d(eager.unsqueeze(x, [0, 1]), p=0.5, data_format="NCWH"), ValueError, "data_format"),
    (lambda x: F.dropout3d(x, p=0.5), ValueError, "5-d"),
    (lambda x: F.alpha_dropout(x, p=2), ValueError, "argument 'p'"),
    (lambda x: eager.nn.Dropout(p=1.1), ValueError, "Dropout: argument 'p'"),
    (lambda x: eager.nn.Dropout(mode="scale"), ValueError, "argument 'mode'"),
    (lambda x: eager.nn.Dropout2D(data_format="NCDHW"), ValueError, "data_format"),
    (lambda x: eager.nn.Dropout3D(data_format="NCHW"), ValueError, "data_format"),
    (lambda x: eager.nn.AlphaDropout(p=-1), ValueError, "argument 'p'"),
    (lambda x: F.feature_alpha_dropout(x[0], p=0.5), ValueError, "at least 2 dimensions"),
    (lambda x: eager.nn.FeatureAlphaDropout(p=3), ValueError, "argument 'p'"),
])
def test_bad_input_is_rejected_with_a_clear_error(call, error, words):
    x = eager.to_tensor(_nonzero((3, 4)))
    before = x.numpy().copy()
    with pytest.raises(error) as info:
        call(x)
    assert words in str(info.value)
    np.testing.assert_array_equal(x.numpy(), before)


def test_the_op_rejects_bad_attributes_naming_the_op():
    x = eager.to_tensor(_nonzero((3, 4)))
    for kwargs, words in (({"p": 1.5}, "argument 'p'"), ({"mode": "x"}, "argument 'mode'"),
                          ({"axis": [5]}, "argument 'axis'")):
        args = dict(p=0.5, is_test=False, mode="upscale_in_train", axis=[], seed=0)
        args.update(kwargs)
        with pytest.raises(ValueError) as info:
            eager.dropout(x, **args)
        assert "dropout" in str(info.value) and words in str(info.value)
