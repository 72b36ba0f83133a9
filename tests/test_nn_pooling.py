"""eager.nn.functional pooling/unfold/fold and common (linear, bilinear,
cosine_similarity, pairwise_distance), and their layers: values against NumPy
references written from the definitions (the op table's, tests/op_specs/pooling.py,
plus the ones here), Paddle's argument forms, gradients by finite differences
in float64, errors, docstring examples, and PyTorch as an extra cross-check
where it is installed."""
import doctest
import itertools

import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck, gradgradcheck
from op_specs.pooling import ref_avg_pool, ref_fold, ref_max_pool, ref_unfold

pytestmark = pytest.mark.usefixtures("device")

rng = np.random.default_rng(0)


def array(*shape):
    return rng.standard_normal(shape)


def leaf(a):
    return eager.to_tensor(a, stop_gradient=False)


def max_attrs(kernel, strides, paddings, algorithm="EXPLICIT", ceil_mode=False, adaptive=False, fmt="NCHW"):
    return dict(kernel_size=list(kernel), strides=list(strides), paddings=list(paddings),
                padding_algorithm=algorithm, ceil_mode=ceil_mode, adaptive=adaptive, data_format=fmt)


# -- max pooling ---------------------------------------------------------------

@pytest.mark.parametrize("kwargs, attrs", [
    (dict(kernel_size=2), max_attrs((2, 2), (2, 2), (0, 0))),
    (dict(kernel_size=3, stride=2, padding=1), max_attrs((3, 3), (2, 2), (1, 1))),
    (dict(kernel_size=[3, 2], stride=[1, 2], padding=[1, 0, 1, 1]), max_attrs((3, 2), (1, 2), (1, 0, 1, 1))),
    (dict(kernel_size=[3, 2], stride=[1, 2], padding=[2, 1, 0, 1]), max_attrs((3, 2), (1, 2), (2, 1, 0, 1))),
    (dict(kernel_size=3, stride=2, padding=[[0, 0], [0, 0], [1, 1], [0, 1]]), max_attrs((3, 3), (2, 2), (1, 1, 0, 1))),
    (dict(kernel_size=3, stride=2, padding="SAME"), max_attrs((3, 3), (2, 2), (0, 0), "SAME")),
    (dict(kernel_size=2, padding="valid"), max_attrs((2, 2), (2, 2), (0, 0), "VALID")),
    (dict(kernel_size=2, stride=2, padding=1, ceil_mode=True), max_attrs((2, 2), (2, 2), (1, 1), ceil_mode=True)),
])
def test_max_pool2d_padding_forms_match_the_reference(kwargs, attrs):
    x = array(2, 3, 7, 6)
    out, mask = F.max_pool2d(eager.to_tensor(x), return_mask=True, **kwargs)
    want, want_mask = ref_max_pool(x, **attrs)
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(mask.numpy(), want_mask)
    assert mask.dtype == eager.int32


def test_max_pool_channel_last_1d_and_3d():
    x = array(2, 7, 6, 3)                                        # NHWC
    out, mask = F.max_pool2d(eager.to_tensor(x), 3, 2, 1, return_mask=True, data_format="NHWC")
    want, want_mask = ref_max_pool(x, **max_attrs((3, 3), (2, 2), (1, 1), fmt="NHWC"))
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(mask.numpy(), want_mask)
    x = array(2, 3, 9)
    out, mask = F.max_pool1d(eager.to_tensor(x), 3, stride=2, padding=1, return_mask=True)
    want, want_mask = ref_max_pool(x[:, :, None], **max_attrs((1, 3), (1, 2), (0, 1)))
    np.testing.assert_array_equal(out.numpy(), want[:, :, 0])
    np.testing.assert_array_equal(mask.numpy(), want_mask[:, :, 0])     # an index along L
    out = F.max_pool1d(eager.to_tensor(np.moveaxis(x, 1, 2).copy()), 3, 2, 1, data_format="NLC")
    np.testing.assert_array_equal(out.numpy(), np.moveaxis(want[:, :, 0], 1, 2))
    x = array(1, 2, 5, 4, 6)
    out = F.max_pool3d(eager.to_tensor(x), [2, 3, 2], stride=[2, 1, 2], padding=[1, 1, 0], ceil_mode=True)
    np.testing.assert_array_equal(out.numpy(), ref_max_pool(x, **max_attrs((2, 3, 2), (2, 1, 2), (1, 1, 0),
                                                                        ceil_mode=True, fmt="NCDHW"))[0])


def test_max_pool_ties_go_to_the_first_position_and_padding_never_wins():
    for value in (-5.0, -np.inf):  # -inf input ties with the -inf padding: the mask still points inside
        x = eager.to_tensor(np.full((1, 1, 3, 3), value))
        out, mask = F.max_pool2d(x, 2, stride=1, padding=1, return_mask=True)
        np.testing.assert_array_equal(out.numpy(), np.full((1, 1, 4, 4), value))
        np.testing.assert_array_equal(mask.numpy()[0, 0], [[0, 0, 1, 2], [0, 0, 1, 2], [3, 3, 4, 5], [6, 6, 7, 8]])


def test_max_pool_nan_never_wins_as_in_paddle():
    x = np.arange(20.0).reshape(1, 1, 4, 5)
    x[0, 0, 0, 0] = np.nan
    for out, mask in (F.max_pool2d(eager.to_tensor(x), 2, return_mask=True),
                      F.adaptive_max_pool2d(eager.to_tensor(x), [3, 3], return_mask=True),
                      F.adaptive_max_pool2d(eager.to_tensor(x), 1, return_mask=True)):
        flat = x.reshape(-1)
        np.testing.assert_array_equal(flat[mask.numpy()], out.numpy())
        assert not np.isnan(out.numpy()).any()


def test_max_pool_gradient_goes_to_the_argmax_and_double_grad_gathers():
    x = leaf(array(2, 2, 5, 6))
    assert gradcheck(lambda t: F.max_pool2d(t, 3, 2, 1), (x,))
    assert gradgradcheck(lambda t: F.max_pool2d(t, 3, 2, 1), (x,))
    assert gradcheck(lambda t: F.max_pool1d(t, 2, 1, ceil_mode=True), (leaf(array(2, 3, 6)),))
    assert gradcheck(lambda t: F.max_pool3d(t, 2, 1, data_format="NDHWC"), (leaf(array(1, 3, 3, 4, 2)),))
    x = leaf(np.array([[[[1.0, 5.0], [3.0, 2.0]]]]))
    F.max_pool2d(x, 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[[0.0, 1.0], [0.0, 0.0]]]])


# -- average pooling -------------------------------------------------------------

@pytest.mark.parametrize("kwargs, attrs", [
    (dict(kernel_size=2), dict(kernel_size=[2, 2], strides=[2, 2], paddings=[0, 0])),
    (dict(kernel_size=3, stride=1, padding=1), dict(kernel_size=[3, 3], strides=[1, 1], paddings=[1, 1])),
    (dict(kernel_size=3, stride=1, padding=1, exclusive=False),
     dict(kernel_size=[3, 3], strides=[1, 1], paddings=[1, 1], exclusive=False)),
    (dict(kernel_size=[3, 2], stride=2, padding=[1, 1], ceil_mode=True),
     dict(kernel_size=[3, 2], strides=[2, 2], paddings=[1, 1], ceil_mode=True)),
    (dict(kernel_size=3, stride=2, padding="SAME"),
     dict(kernel_size=[3, 3], strides=[2, 2], paddings=[0, 0], padding_algorithm="SAME")),
])
def test_avg_pool2d_matches_the_reference(kwargs, attrs):
    x = array(2, 3, 7, 6)
    full = dict(padding_algorithm="EXPLICIT", ceil_mode=False, exclusive=True, adaptive=False, data_format="NCHW")
    full.update(attrs)
    np.testing.assert_allclose(F.avg_pool2d(eager.to_tensor(x), **kwargs).numpy(), ref_avg_pool(x, **full),
                               rtol=1e-12, atol=1e-12)


def test_avg_pool_exclusive_counts_and_divisor_override_as_paddle():
    x = eager.ones([1, 1, 3, 3])
    np.testing.assert_allclose(F.avg_pool2d(x, 3, 1, 1).numpy(), np.ones((1, 1, 3, 3)), rtol=1e-6)
    corners = F.avg_pool2d(x, 3, 1, 1, exclusive=False).numpy()[0, 0]
    np.testing.assert_allclose(corners, [[4 / 9, 6 / 9, 4 / 9], [6 / 9, 1, 6 / 9], [4 / 9, 6 / 9, 4 / 9]],
                               rtol=1e-6)
    # Paddle: the average times kernel_h * kernel_w / divisor_override
    np.testing.assert_allclose(F.avg_pool2d(x, 3, 1, 1, divisor_override=3).numpy(), np.full((1, 1, 3, 3), 3.0),
                               rtol=1e-6)
    x = eager.to_tensor(np.arange(6.0).reshape(1, 1, 6))
    np.testing.assert_allclose(F.avg_pool1d(x, 2).numpy(), [[[0.5, 2.5, 4.5]]])
    y = F.avg_pool3d(eager.ones([1, 2, 4, 4, 4], "float64"), 2, divisor_override=4)
    np.testing.assert_allclose(y.numpy(), np.full((1, 2, 2, 2, 2), 2.0))


def test_avg_pool_gradients_any_order():
    x = leaf(array(1, 2, 5, 6))
    f = lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, exclusive=False)  # noqa: E731
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
    g = lambda t: F.avg_pool3d(t, 2, 1, padding=1, data_format="NDHWC")  # noqa: E731
    assert gradgradcheck(g, (leaf(array(1, 3, 3, 2, 2)),))


# -- adaptive pooling ----------------------------------------------------------

def ref_adaptive(x, out, reduce):
    """Window i of an axis of n spans [floor(i * n / out), ceil((i + 1) * n / out))."""
    spans = [[(i * n // o, -(-(i + 1) * n // o)) for i in range(o)] for n, o in zip(x.shape[2:], out)]
    result = np.zeros(x.shape[:2] + tuple(out))
    for position in itertools.product(*(range(o) for o in out)):
        window = x[(Ellipsis,) + tuple(slice(*spans[a][i]) for a, i in enumerate(position))]
        result[(Ellipsis,) + position] = reduce(window.reshape(x.shape[:2] + (-1,)), axis=-1)
    return result


@pytest.mark.parametrize("shape, out", [((2, 3, 7, 9), [3, 4]), ((1, 2, 6, 4), [3, 2]), ((1, 2, 5, 5), [1, 1]),
                                        ((1, 1, 3, 2), [5, 4])])
def test_adaptive_pool2d_windows(shape, out):
    x = array(*shape)
    np.testing.assert_allclose(F.adaptive_avg_pool2d(eager.to_tensor(x), out).numpy(), ref_adaptive(x, out, np.mean),
                               rtol=1e-12, atol=1e-12)
    got, mask = F.adaptive_max_pool2d(eager.to_tensor(x), out, return_mask=True)
    np.testing.assert_array_equal(got.numpy(), ref_adaptive(x, out, np.max))
    flat = x.reshape(shape[:2] + (-1,))
    np.testing.assert_array_equal(np.take_along_axis(flat, mask.numpy().reshape(shape[:2] + (-1,)), -1)
                                  .reshape(got.shape), got.numpy())


def test_adaptive_1d_3d_channel_last_and_none_sizes():
    x = array(2, 3, 10)
    np.testing.assert_allclose(F.adaptive_avg_pool1d(eager.to_tensor(x), 4).numpy(),
                               ref_adaptive(x[:, :, None], [1, 4], np.mean)[:, :, 0], atol=1e-12)
    np.testing.assert_array_equal(F.adaptive_max_pool1d(eager.to_tensor(x), 3).numpy(),
                                  ref_adaptive(x[:, :, None], [1, 3], np.max)[:, :, 0])
    x = array(1, 2, 5, 6, 7)
    np.testing.assert_allclose(F.adaptive_avg_pool3d(eager.to_tensor(x), [2, None, 3]).numpy(),
                               ref_adaptive(x, [2, 6, 3], np.mean), atol=1e-12)
    np.testing.assert_array_equal(F.adaptive_max_pool3d(eager.to_tensor(x), 2).numpy(),
                                  ref_adaptive(x, [2, 2, 2], np.max))
    nhwc = np.moveaxis(array(2, 3, 7, 5), 1, -1).copy()
    got = F.adaptive_avg_pool2d(eager.to_tensor(nhwc), [3, 2], data_format="NHWC").numpy()
    np.testing.assert_allclose(np.moveaxis(got, -1, 1), ref_adaptive(np.moveaxis(nhwc, -1, 1), [3, 2], np.mean),
                               atol=1e-12)


def test_adaptive_gradients():
    x = leaf(array(1, 2, 5, 7))
    for f in (lambda t: F.adaptive_avg_pool2d(t, [2, 3]), lambda t: F.adaptive_max_pool2d(t, [3, 4]),
              lambda t: F.adaptive_avg_pool2d(t, 1)):
        assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_global_avg_pool_float32_values_and_gradient(fmt):
    # one window per plane (the kernels' BLAS path): adaptive size 1 and a kernel of the whole plane
    x = (array(4, 3, 9, 8) * 2 + 5).astype("float32")
    data = x if fmt == "NCHW" else x.transpose(0, 2, 3, 1)
    want = x.astype("float64").mean(axis=(2, 3), keepdims=True)
    seed = array(4, 3, 1, 1).astype("float32")
    for pool in (lambda t: F.adaptive_avg_pool2d(t, 1, data_format=fmt),
                 lambda t: F.avg_pool2d(t, [9, 8], data_format=fmt)):
        t = leaf(data)
        out = pool(t)
        got = out.numpy() if fmt == "NCHW" else out.numpy().transpose(0, 3, 1, 2)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
        (out * eager.to_tensor(seed if fmt == "NCHW" else seed.transpose(0, 2, 3, 1))).sum().backward()
        grad = t.grad.numpy() if fmt == "NCHW" else t.grad.numpy().transpose(0, 3, 1, 2)
        np.testing.assert_allclose(grad, np.broadcast_to(seed / 72.0, x.shape), rtol=1e-6)


# -- unfold / fold -------------------------------------------------------------

def test_unfold_and_fold_match_the_reference_and_are_adjoint():
    x = array(2, 3, 6, 5)
    attrs = dict(kernel_sizes=[2, 3], strides=[2, 1], paddings=[1, 0, 1, 2], dilations=[1, 2])
    cols = F.unfold(eager.to_tensor(x), [2, 3], strides=[2, 1], paddings=[1, 0, 1, 2], dilations=[1, 2])
    np.testing.assert_array_equal(cols.numpy(), ref_unfold(x, **attrs))
    c = array(*cols.shape)
    back = F.fold(eager.to_tensor(c), [6, 5], [2, 3], strides=[2, 1], paddings=[1, 0, 1, 2], dilations=[1, 2])
    np.testing.assert_allclose(back.numpy(), ref_fold(c, [6, 5], **attrs), atol=1e-12)
    # <unfold(x), c> == <x, fold(c)>
    np.testing.assert_allclose(np.sum(cols.numpy() * c), np.sum(x * back.numpy()), rtol=1e-12)
    # int and pair paddings: [p] * 4 and [ph, pw, ph, pw]
    np.testing.assert_array_equal(F.unfold(eager.to_tensor(x), 3, paddings=1).numpy(),
                                  ref_unfold(x, [3, 3], [1, 1], [1, 1, 1, 1], [1, 1]))
    np.testing.assert_array_equal(F.unfold(eager.to_tensor(x), 2, paddings=[1, 2]).numpy(),
                                  ref_unfold(x, [2, 2], [1, 1], [1, 2, 1, 2], [1, 1]))


def test_unfold_fold_gradients():
    f = lambda t: F.unfold(t, [2, 2], strides=2, paddings=1)  # noqa: E731
    x = leaf(array(1, 2, 4, 3))
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
    g = lambda t: F.fold(t, [4, 3], 2, paddings=1, strides=2)  # noqa: E731
    assert gradgradcheck(g, (leaf(array(1, 8, 6)),))


# -- torch as a second implementation -------------------------------------------

def test_pooling_matches_torch():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    a = array(2, 3, 9, 8)
    cases = [
        (lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True), lambda t: tf.max_pool2d(t, 3, 2, 1, ceil_mode=True)),
        (lambda x: F.avg_pool2d(x, 3, 2, 1), lambda t: tf.avg_pool2d(t, 3, 2, 1, count_include_pad=False)),
        (lambda x: F.avg_pool2d(x, 3, 2, 1, exclusive=False), lambda t: tf.avg_pool2d(t, 3, 2, 1)),
        (lambda x: F.adaptive_avg_pool2d(x, [4, 3]), lambda t: tf.adaptive_avg_pool2d(t, (4, 3))),
        (lambda x: F.adaptive_max_pool2d(x, [4, 3]), lambda t: tf.adaptive_max_pool2d(t, (4, 3))),
        (lambda x: F.unfold(x, [2, 3], 2, 1, [1, 2]), lambda t: tf.unfold(t, (2, 3), (1, 2), 1, 2)),
    ]
    seed = None
    for ours, theirs in cases:
        x, t = leaf(a), torch.tensor(a, requires_grad=True)
        out, want = ours(x), theirs(t)
        np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
        seed = array(*want.shape)
        out.backward(eager.to_tensor(seed))
        want.backward(torch.tensor(seed))
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)
    out, mask = F.max_pool2d(eager.to_tensor(a), 3, 2, 1, return_mask=True)
    _, indices = tf.max_pool2d(torch.tensor(a), 3, 2, 1, return_indices=True)
    np.testing.assert_array_equal(mask.numpy(), indices.numpy())
    c = array(2, 12, 16)
    np.testing.assert_allclose(F.fold(eager.to_tensor(c), [5, 6], 2, dilations=[1, 2]).numpy(),
                               tf.fold(torch.tensor(c), (5, 6), 2, dilation=(1, 2)).numpy(), atol=1e-12)


# -- common: linear, bilinear, distances -------------------------------------------

def test_linear_and_bilinear():
    x, w, b = array(3, 4), array(4, 5), array(5)
    np.testing.assert_allclose(F.linear(eager.to_tensor(x), eager.to_tensor(w), eager.to_tensor(b)).numpy(),
                               x @ w + b, rtol=1e-12)
    assert gradcheck(lambda *t: F.linear(*t), (leaf(x), leaf(w), leaf(b)))
    x1, x2, weight, bias = array(3, 4), array(3, 2), array(5, 4, 2), array(1, 5)
    want = np.array([[x1[n] @ weight[o] @ x2[n] for o in range(5)] for n in range(3)]) + bias
    got = F.bilinear(eager.to_tensor(x1), eager.to_tensor(x2), eager.to_tensor(weight), eager.to_tensor(bias))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    assert gradgradcheck(lambda *t: F.bilinear(*t), (leaf(x1), leaf(x2), leaf(weight), leaf(bias)))


def test_cosine_similarity_and_pairwise_distance():
    x1, x2 = array(4, 3), array(1, 3)
    dots = (x1 * x2).sum(1)
    norms = np.sqrt(np.maximum((x1 ** 2).sum(1) * (x2 ** 2).sum(1), 1e-16))
    np.testing.assert_allclose(F.cosine_similarity(eager.to_tensor(x1), eager.to_tensor(x2)).numpy(), dots / norms,
                               rtol=1e-12)
    got = F.cosine_similarity(eager.to_tensor(x1), eager.to_tensor(x1), axis=0).numpy()
    np.testing.assert_allclose(got, np.ones(3), rtol=1e-12)
    assert gradcheck(lambda a, b: F.cosine_similarity(a, b), (leaf(x1), leaf(x2)))
    x, y = array(4, 3), array(4, 3)
    for p in (2.0, 1.0, 3.0, np.inf):
        d = np.abs(x - y + 1e-6)
        want = d.max(-1) if p == np.inf else (d ** p).sum(-1) ** (1 / p)
        got = F.pairwise_distance(eager.to_tensor(x), eager.to_tensor(y), p=p)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    assert F.pairwise_distance(eager.to_tensor(x), eager.to_tensor(y), keepdim=True).shape == [4, 1]
    assert gradcheck(lambda a, b: F.pairwise_distance(a, b), (leaf(x), leaf(y)))


def test_common_matches_torch():
    torch = pytest.importorskip("torch")
    x1, x2 = array(4, 3), array(4, 3)
    np.testing.assert_allclose(F.cosine_similarity(eager.to_tensor(x1), eager.to_tensor(x2)).numpy(),
                               torch.nn.functional.cosine_similarity(torch.tensor(x1), torch.tensor(x2)).numpy(),
                               rtol=1e-10)
    np.testing.assert_allclose(F.pairwise_distance(eager.to_tensor(x1), eager.to_tensor(x2), 3.0).numpy(),
                               torch.nn.functional.pairwise_distance(torch.tensor(x1), torch.tensor(x2), 3.0).numpy(),
                               rtol=1e-10)


# -- layers --------------------------------------------------------------------------

def test_pooling_layers():
    x = eager.to_tensor(array(2, 3, 8, 8))
    np.testing.assert_array_equal(eager.nn.MaxPool2D(2, 2)(x).numpy(), F.max_pool2d(x, 2, 2).numpy())
    out, mask = eager.nn.MaxPool2D(3, 1, 1, return_mask=True)(x)
    assert out.shape == [2, 3, 8, 8] and mask.shape == [2, 3, 8, 8]
    np.testing.assert_array_equal(eager.nn.AvgPool2D(2, divisor_override=2)(x).numpy(),
                                  F.avg_pool2d(x, 2, divisor_override=2).numpy())
    assert eager.nn.AdaptiveAvgPool2D(1)(x).shape == [2, 3, 1, 1]
    assert eager.nn.AdaptiveMaxPool2D([3, 2])(x).shape == [2, 3, 3, 2]
    assert eager.nn.MaxPool1D(2)(eager.ones([1, 2, 6])).shape == [1, 2, 3]
    assert eager.nn.AvgPool1D(3, 1, 1)(eager.ones([1, 2, 6])).shape == [1, 2, 6]
    assert eager.nn.MaxPool3D(2)(eager.ones([1, 1, 4, 4, 4])).shape == [1, 1, 2, 2, 2]
    assert eager.nn.AvgPool3D(2, ceil_mode=True)(eager.ones([1, 1, 5, 4, 4])).shape == [1, 1, 3, 2, 2]
    assert eager.nn.AdaptiveAvgPool1D(2)(eager.ones([1, 2, 5])).shape == [1, 2, 2]
    assert eager.nn.AdaptiveMaxPool1D(2)(eager.ones([1, 2, 5])).shape == [1, 2, 2]
    assert eager.nn.AdaptiveAvgPool3D(2)(eager.ones([1, 1, 4, 5, 3])).shape == [1, 1, 2, 2, 2]
    assert eager.nn.AdaptiveMaxPool3D(2)(eager.ones([1, 1, 4, 5, 3])).shape == [1, 1, 2, 2, 2]
    cols = eager.nn.Unfold([2, 2], dilations=1, paddings=1, strides=2)(x)
    np.testing.assert_array_equal(cols.numpy(), F.unfold(x, 2, 2, 1).numpy())
    assert eager.nn.Fold([8, 8], 2, paddings=1, strides=2)(cols).shape == [2, 3, 8, 8]
    assert "kernel_size=2" in repr(eager.nn.MaxPool2D(2)) and eager.nn.MaxPool2D(2).parameters() == []


def test_common_layers():
    assert eager.nn.Identity(3, anything=1)(eager.ones([2])).shape == [2]
    assert eager.nn.Flatten()(eager.ones([2, 3, 4, 5])).shape == [2, 60]
    assert eager.nn.Flatten(0, 1)(eager.ones([2, 3, 4])).shape == [6, 4]
    assert eager.nn.Unflatten(1, [2, -1])(eager.ones([4, 6, 5])).shape == [4, 2, 3, 5]
    assert eager.nn.Unflatten(-1, (5, 1))(eager.ones([4, 5])).shape == [4, 5, 1]
    eager.seed(0)
    layer = eager.nn.Bilinear(3, 2, 4)
    assert layer.weight.shape == [4, 3, 2] and layer.bias.shape == [1, 4]
    x1, x2 = eager.to_tensor(array(5, 3).astype("float32")), eager.to_tensor(array(5, 2).astype("float32"))
    np.testing.assert_allclose(layer(x1, x2).numpy(), F.bilinear(x1, x2, layer.weight, layer.bias).numpy())
    assert eager.nn.Bilinear(3, 2, 4, bias_attr=False).bias is None
    a, b = eager.ones([3, 4]), eager.ones([3, 4])
    np.testing.assert_allclose(eager.nn.CosineSimilarity()(a, b).numpy(), np.ones(3), rtol=1e-6)
    np.testing.assert_allclose(eager.nn.PairwiseDistance(p=1.0, epsilon=0.0)(a, eager.zeros([3, 4])).numpy(),
                               np.full(3, 4.0))


def test_a_small_lenet_trains():
    eager.seed(0)
    data = np.random.default_rng(1).standard_normal((32, 1, 8, 8)).astype("float32")
    labels = (data[:, 0, :4].sum(axis=(1, 2)) > data[:, 0, 4:].sum(axis=(1, 2))).astype("int64")
    model = eager.nn.Sequential(eager.nn.Conv2D(1, 4, 3, padding=1), eager.nn.ReLU(), eager.nn.MaxPool2D(2, 2),
                                eager.nn.Conv2D(4, 8, 3, padding=1), eager.nn.ReLU(), eager.nn.AvgPool2D(2),
                                eager.nn.Flatten(), eager.nn.Linear(32, 2))
    opt = eager.optimizer.Adam(learning_rate=0.02, parameters=model.parameters())
    x, y = eager.to_tensor(data), eager.to_tensor(labels)
    for _ in range(40):
        loss = F.cross_entropy(model(x), y)
        loss.backward(); opt.step(); opt.clear_grad()
    assert loss.item() < 0.2


# -- errors ---------------------------------------------------------------------------

@pytest.mark.parametrize("call, error, message", [
    (lambda x: F.max_pool2d(x, 2, data_format="NCL"), ValueError,
     "max_pool2d: argument 'data_format' expected one of ['NCHW', 'NHWC'], got 'NCL'"),
    (lambda x: F.max_pool1d(x, 2), ValueError, "max_pool1d: argument 'x' expected a 3-d tensor (NCL), got shape"),
    (lambda x: F.avg_pool2d(x, 0), ValueError, "avg_pool2d: argument 'kernel_size' expected values >= 1, got [0, 0]"),
    (lambda x: F.max_pool2d(x, [2, 2, 2]), ValueError, "max_pool2d: argument 'kernel_size' expected an int or a list"),
    (lambda x: F.max_pool2d(x, 2, padding="FULL"), ValueError, "max_pool2d: argument 'padding' expected 'SAME'"),
    (lambda x: F.max_pool2d(x, 2, padding="VALID", ceil_mode=True), ValueError,
     "max_pool2d: argument 'ceil_mode' must be False when padding is 'VALID'"),
    (lambda x: F.max_pool2d(x, 2, padding=2), ValueError,
     "max_pool2d: argument 'padding' expected each padding smaller than the kernel size [2, 2]"),
    (lambda x: F.max_pool2d(x, 9), ValueError, "max_pool2d: the kernel [9, 9] is larger than the padded input [5, 6]"),
    (lambda x: F.avg_pool2d(x, 2, divisor_override=0), ValueError,
     "avg_pool2d: argument 'divisor_override' expected a positive number, got 0"),
    (lambda x: F.avg_pool2d(x, 2, exclusive="yes"), TypeError, "avg_pool2d: argument 'exclusive' expected a bool"),
    (lambda x: F.adaptive_avg_pool2d(x, [0, 2]), ValueError, "adaptive_avg_pool2d: argument 'output_size' expected"),
    (lambda x: F.adaptive_max_pool2d(x, 2, return_mask=1), TypeError, "argument 'return_mask' expected a bool"),
    (lambda x: F.max_pool2d(x.astype("int64"), 2), TypeError,
     "max_pool2d: argument 'x' expected a floating-point Tensor, got paddle.int64"),
    (lambda x: F.unfold(x, 7), ValueError, "the kernel [7, 7] (dilations [1, 1]) is larger than the padded input"),
    (lambda x: F.unfold(x, 2, paddings=[1, 2, 3]), ValueError, "unfold: argument 'paddings' expected an int or"),
    (lambda x: F.fold(F.unfold(x, 2), [5, 5], 2), ValueError, "fold: argument 'x' expected 16 blocks"),
    (lambda x: F.fold(x, [5, 6], 2), ValueError, "fold: argument 'x' expected a 3-d tensor"),
    (lambda x: F.linear(x, eager.ones([5, 2], "float64")), ValueError,
     "linear: argument 'x' expected a last dimension of 5 (weight's in_features), got shape [2, 3, 5, 6]"),
    (lambda x: F.linear(x, eager.ones([6, 2])), TypeError, "linear: argument 'weight' expected the dtype of 'x'"),
    (lambda x: F.bilinear(x, x, eager.ones([2, 3], "float64")), ValueError,
     "bilinear: argument 'weight' expected a 3-d tensor"),
    (lambda x: F.cosine_similarity(x, eager.ones([4, 3], "float64")), ValueError,
     "cosine_similarity: arguments 'x1' [2, 3, 5, 6] and 'x2' [4, 3] do not broadcast"),
    (lambda x: F.cosine_similarity(x, x, axis=4), ValueError, "cosine_similarity: argument 'axis' expected an int"),
    (lambda x: F.pairwise_distance(x, x[:, :, :2]), ValueError,
     "pairwise_distance: argument 'y' expected a shape broadcasting with x's [2, 3, 5, 6]"),
    (lambda x: eager.nn.Unflatten(1, [2, 2])(x), ValueError,
     "Unflatten: argument 'shape' [2, 2] does not split axis 1 of size 3"),
    (lambda x: eager.nn.Unflatten(1, []), ValueError, "Unflatten: argument 'shape' expected a non-empty list"),
    (lambda x: eager.nn.Bilinear(0, 2, 3), AssertionError, "Bilinear: argument 'in1_features' expected a positive int"),
])
def test_bad_calls_raise_clear_errors_and_leave_inputs_untouched(call, error, message):
    values = array(2, 3, 5, 6)
    x = eager.to_tensor(values)
    with pytest.raises(error) as info:
        call(x)
    assert message in str(info.value)
    np.testing.assert_array_equal(x.numpy(), values)


def test_docstring_examples_run():
    from eager.nn import common, pooling
    from eager.nn.functional import common as common_functional, pooling as pooling_functional
    for module in (pooling_functional, common_functional, pooling, common):
        result = doctest.testmod(module, extraglobs={"eager": eager}, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0 and result.attempted > 0, module.__name__


def test_pooling_layer_reprs_are_paddles():
    # Paddle's extra_repr of each layer (and the quantization examples that print a LeNet).
    assert repr(eager.nn.MaxPool2D(kernel_size=2, stride=2)) == "MaxPool2D(kernel_size=2, stride=2, padding=0)"
    assert repr(eager.nn.AvgPool1D(3, padding="SAME")) == "AvgPool1D(kernel_size=3, stride=None, padding=SAME)"
    assert repr(eager.nn.MaxPool3D(2, 1, 1, ceil_mode=True)) == "MaxPool3D(kernel_size=2, stride=1, padding=1)"
    assert repr(eager.nn.AdaptiveAvgPool2D([3, 4])) == "AdaptiveAvgPool2D(output_size=[3, 4])"
    assert repr(eager.nn.AdaptiveMaxPool1D(4, return_mask=True)) == "AdaptiveMaxPool1D(output_size=4, return_mask=True)"
    assert repr(eager.nn.MaxUnPool2D(2, output_size=[4, 4])) == "MaxUnPool2D(output_size=[4, 4])"
    assert repr(eager.nn.Unfold([2, 3], strides=2)) == "Unfold(kernel_size=[2, 3], dilation=1, padding=0, stride=2)"
    assert repr(eager.nn.Fold([4, 4], 2)) == "Fold(kernel_size=2, dilation=1, padding=0, stride=1)"
    # Layers Paddle 2.6 lacks keep every argument.
    assert repr(eager.nn.LPPool1D(2, 3)) == ("LPPool1D(norm_type=2, kernel_size=3, stride=None, padding=0, "
                                             "ceil_mode=False, data_format='NCL')")
