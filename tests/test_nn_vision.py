"""eager.nn.functional's vision functions (pad, interpolate/upsample,
pixel_shuffle/unshuffle, affine_grid, grid_sample), the vision layers and the
transposed convolutions: NumPy references written from the definitions,
float64 gradchecks, Paddle's argument forms and errors. PyTorch cross-checks
run where torch is installed (each test skips on its own without it)."""
import doctest
import itertools

import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck
from eager.nn import conv as conv_layers
from eager.nn import vision as vision_layers
from eager.nn.functional import conv as conv_functional
from eager.nn.functional import vision as vision_functional
from eager.vision import transforms
from tests.op_specs.conv import ref_conv_transpose
from tests.op_specs.vision import resample_matrix

pytestmark = pytest.mark.usefixtures("device")

RNG = np.random.default_rng(0)


def leaf(shape, seed=0, dtype="float64"):
    array = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return eager.to_tensor(array, stop_gradient=False)


@pytest.mark.parametrize("module", [vision_functional, vision_layers, conv_functional, conv_layers])
def test_docstring_examples_run(module):
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, globs={"eager": eager}):
        runner.run(test)
    assert runner.failures == 0 and runner.tries >= 5


# -- pad ------------------------------------------------------------------------------

NUMPY_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@pytest.mark.parametrize("mode", list(NUMPY_MODES))
@pytest.mark.parametrize("shape, pad, data_format, numpy_pad", [
    ((2, 3, 5), [1, 2], "NCL", [(0, 0), (0, 0), (1, 2)]),
    ((1, 2, 4, 5), [1, 2, 3, 0], "NCHW", [(0, 0), (0, 0), (3, 0), (1, 2)]),
    ((1, 4, 5, 2), [0, 3, 2, 1], "NHWC", [(0, 0), (2, 1), (0, 3), (0, 0)]),
    ((1, 1, 3, 4, 3), [1, 1, 0, 2, 2, 1], "NCDHW", [(0, 0), (0, 0), (2, 1), (0, 2), (1, 1)]),
])
def test_pad_matches_numpy_and_gradchecks(mode, shape, pad, data_format, numpy_pad):
    x = leaf(shape)
    kwargs = {"constant_values": 0.5} if mode == "constant" else {}
    expected = np.pad(x.numpy(), numpy_pad, mode=NUMPY_MODES[mode], **kwargs)
    out = F.pad(x, pad, mode=mode, value=0.5, data_format=data_format)
    np.testing.assert_array_equal(out.numpy(), expected)
    assert gradcheck(lambda t: F.pad(t, pad, mode=mode, value=0.5, data_format=data_format), (x,))


def test_pad_full_rank_constant_form_and_tensor_pad():
    x = leaf((2, 3))
    out = F.pad(x, [1, 0, 2, 3], value=-1.0)           # a pair for every axis, the first axis first
    np.testing.assert_array_equal(out.numpy(), np.pad(x.numpy(), [(1, 0), (2, 3)], constant_values=-1.0))
    out = F.pad(eager.ones([1, 1, 2, 2]), eager.to_tensor([1, 1, 0, 0]))
    assert out.shape == [1, 1, 2, 4]
    ints = F.pad(eager.to_tensor(np.arange(6).reshape(1, 2, 3)), [1, 1], mode="reflect", data_format="NCL")
    np.testing.assert_array_equal(ints.numpy(), [[[1, 0, 1, 2, 1], [4, 3, 4, 5, 4]]])


def test_pad_double_gradient():
    x = leaf((1, 1, 3, 3))
    assert eager.autograd.gradgradcheck(lambda t: F.pad(t, [1, 1, 1, 1]) ** 2, (x,))


# -- interpolate ----------------------------------------------------------------------

def ref_resize(x, sizes, method, align_corners=False, align_mode=0, scales=None, channel_last=False):
    out = np.moveaxis(x, -1, 1) if channel_last else x
    for i, size in enumerate(sizes):
        m = resample_matrix(method, out.shape[2 + i], size, scales[i] if scales else None, align_corners,
                            align_mode)
        out = np.moveaxis(np.tensordot(m, np.moveaxis(out, 2 + i, 0), axes=(1, 0)), 0, 2 + i)
    return np.moveaxis(out, 1, -1) if channel_last else out


@pytest.mark.parametrize("mode, method, shape, kwargs", [
    ("nearest", "nearest", (2, 3, 4, 5), {"size": [7, 3]}),
    ("nearest", "nearest", (1, 2, 2, 3, 3), {"scale_factor": 2, "data_format": "NCDHW"}),
    ("bilinear", "linear", (2, 3, 4, 5), {"size": [6, 9]}),
    ("bilinear", "linear", (2, 3, 4, 5), {"size": [6, 9], "align_corners": True}),
    ("bilinear", "linear", (2, 3, 4, 5), {"size": [6, 9], "align_mode": 1}),
    ("bilinear", "linear", (1, 5, 6, 2), {"scale_factor": [0.5, 1.5], "data_format": "NHWC"}),
    ("linear", "linear", (2, 3, 5), {"size": 8, "data_format": "NCW"}),
    ("bicubic", "cubic", (1, 2, 5, 4), {"size": [9, 7]}),
    ("bicubic", "cubic", (1, 2, 5, 4), {"size": [3, 6], "align_corners": True}),
    ("trilinear", "linear", (1, 2, 3, 4, 2), {"size": [5, 2, 4], "data_format": "NCDHW"}),
])
def test_interpolate_matches_formulas_and_gradchecks(mode, method, shape, kwargs):
    x = leaf(shape)
    out = F.interpolate(x, mode=mode, **kwargs)
    channel_last = kwargs.get("data_format", "NCHW").endswith("C")
    spatial = shape[1:-1] if channel_last else shape[2:]
    k = len(spatial)
    if "size" in kwargs:
        sizes = kwargs["size"] if isinstance(kwargs["size"], list) else [kwargs["size"]] * k
        scales = None
    else:
        factor = kwargs["scale_factor"]
        scales = factor if isinstance(factor, list) else [factor] * k
        sizes = [int(n * s) for n, s in zip(spatial, scales)]
    expected = ref_resize(x.numpy(), sizes, method, kwargs.get("align_corners", False), kwargs.get("align_mode", 0),
                          scales, channel_last)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)
    assert gradcheck(lambda t: F.interpolate(t, mode=mode, **kwargs), (x,))


def test_upsample_is_interpolate_and_double_gradient():
    x = leaf((1, 1, 3, 3))
    np.testing.assert_array_equal(F.upsample(x, size=[5, 4], mode="bicubic").numpy(),
                                  F.interpolate(x, size=[5, 4], mode="bicubic").numpy())
    assert eager.autograd.gradgradcheck(lambda t: F.interpolate(t, scale_factor=2, mode="bilinear") ** 2, (x,))


def test_interpolate_float32_and_downsampling_scatter():
    x = np.arange(2 * 16, dtype="float32").reshape(1, 2, 4, 4)
    t = eager.to_tensor(x, stop_gradient=False)
    out = F.interpolate(t, size=[2, 2], mode="nearest")
    np.testing.assert_array_equal(out.numpy(), x[:, :, ::2, ::2])
    out = F.interpolate(t, size=[9, 9], mode="nearest")          # each input pixel read 2 or 3 times
    out.sum().backward()
    rows = np.bincount(np.floor(np.arange(9) * 4 / 9).astype(int), minlength=4)
    np.testing.assert_array_equal(t.grad.numpy()[0, 0], np.outer(rows, rows).astype("float32"))


# -- interpolation of integer images (Paddle's CPU kernels: uint8, and int32/int64 for nearest) --

def paddle_linear_taps(in_size, out_size, align_corners, align_mode):
    """(low, high, w_low, w_high) of one axis as Paddle's CPU kernels compute them, in float32."""
    f32 = np.float32
    if align_corners:
        ratio = f32((in_size - 1) / (out_size - 1)) if out_size > 1 else f32(0.0)
    else:
        ratio = f32(in_size / out_size)
    k = np.arange(out_size, dtype=f32)
    half = align_mode == 0 and not align_corners
    centre = ratio * (k + f32(0.5)) - f32(0.5)
    low = np.maximum(np.trunc(centre if half else ratio * k).astype(np.int64), 0)
    high = np.minimum(low + 1, in_size - 1)
    w_high = (np.maximum(centre, f32(0.0)) if half else ratio * k) - low.astype(f32)
    return low, high, f32(1.0) - w_high, w_high


def paddle_integer_resize(x, sizes, align_corners=False, align_mode=0):
    """x [N, C, *spatial] (an integer array) resized as Paddle's CPU linear kernels do: the
    2**k corners weighted in float32, the sum truncated toward zero into x's dtype."""
    k = len(sizes)
    taps = [paddle_linear_taps(x.shape[2 + i], sizes[i], align_corners, align_mode) for i in range(k)]
    acc = np.zeros(x.shape[:2] + tuple(sizes), np.float32)
    for corner in itertools.product((0, 1), repeat=k):
        index, weight = [], np.float32(1.0)
        for i, (low, high, w_low, w_high) in enumerate(taps):
            shape = [1] * k
            shape[i] = sizes[i]
            index.append((high if corner[i] else low).reshape(shape))
            weight = weight * (w_high if corner[i] else w_low).reshape(shape)
        acc += x[(slice(None), slice(None)) + tuple(index)].astype(np.float32) * weight
    return np.trunc(acc).astype(x.dtype)


@pytest.mark.parametrize("mode, shape, size, kwargs", [
    ("bilinear", (2, 3, 5, 7), [9, 4], {}),
    ("bilinear", (1, 2, 6, 6), [4, 11], {"align_corners": True}),
    ("bilinear", (1, 2, 6, 5), [7, 13], {"align_mode": 1}),
    ("linear", (2, 3, 9), [5], {"data_format": "NCW"}),
    ("trilinear", (1, 2, 3, 5, 4), [5, 3, 7], {"data_format": "NCDHW"}),
])
def test_interpolate_uint8_is_paddles_truncated_float32_sum(mode, shape, size, kwargs):
    x = np.random.default_rng(7).integers(0, 256, size=shape, dtype=np.uint8)
    out = F.interpolate(eager.to_tensor(x), size=size, mode=mode, **kwargs)
    assert out.dtype == eager.uint8 and out.shape == list(shape[:2]) + size
    expected = paddle_integer_resize(x, size, kwargs.get("align_corners", False), kwargs.get("align_mode", 0))
    got = out.numpy().astype(np.int64)
    # The float32 sums may differ in their last bit (another order of the same
    # terms), which moves a value sitting on an integer by one: rare, never more.
    assert np.abs(got - expected).max() <= 1
    assert np.mean(got == expected) > 0.99
    float_out = F.interpolate(eager.to_tensor(x.astype("float64")), size=size, mode=mode, **kwargs).numpy()
    frac = float_out - np.floor(float_out)
    clear = (frac > 0.55) & (frac < 0.95)                         # far from an integer either way
    assert clear.any() and np.array_equal(got[clear], np.floor(float_out[clear]))   # truncated, not rounded


def test_interpolate_uint8_exact_where_the_weights_are_dyadic():
    """Upsampling by 2 weights the taps by 1/4 and 3/4: every float32 sum is exact,
    so eager and Paddle's kernel agree to the last value, and x.5 truncates down."""
    x = np.random.default_rng(3).integers(0, 256, size=(2, 3, 4, 6), dtype=np.uint8)
    out = F.interpolate(eager.to_tensor(x), scale_factor=2, mode="bilinear")
    np.testing.assert_array_equal(out.numpy(), paddle_integer_resize(x, [8, 12]))
    np.testing.assert_array_equal(F.interpolate(eager.to_tensor(np.array([[[0, 1]]], np.uint8)), size=[4],
                                                mode="linear", data_format="NCW").numpy(),
                                  [[[0, 0, 0, 1]]])    # 0.25 and 0.75 truncate to 0, as Paddle's cast
    channel_last = F.interpolate(eager.to_tensor(np.ascontiguousarray(x.transpose(0, 2, 3, 1))), size=[8, 12],
                                 mode="bilinear", data_format="NHWC")
    np.testing.assert_array_equal(channel_last.numpy().transpose(0, 3, 1, 2), paddle_integer_resize(x, [8, 12]))


@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64"])
def test_interpolate_nearest_takes_integer_images(dtype):
    x = np.random.default_rng(1).integers(0, 200, size=(1, 2, 5, 4)).astype(dtype)
    out = F.interpolate(eager.to_tensor(x), size=[7, 3], mode="nearest")
    rows = np.floor(np.arange(7) * (5 / 7)).astype(int)
    cols = np.floor(np.arange(3) * (4 / 3)).astype(int)
    assert out.dtype == getattr(eager, dtype)
    np.testing.assert_array_equal(out.numpy(), x[:, :, rows][:, :, :, cols])


@pytest.mark.parametrize("mode, dtype", [("bicubic", "uint8"), ("area", "uint8"), ("bilinear", "int32"),
                                         ("bilinear", "int64"), ("nearest", "int16"), ("nearest", "bool")])
def test_interpolate_refuses_the_integer_dtypes_paddle_refuses(mode, dtype):
    x = eager.to_tensor(np.ones((1, 1, 4, 4), dtype=dtype))
    with pytest.raises(TypeError, match=rf"interpolate: mode '{mode}' expected a floating-point x; nearest also "
                                        rf"takes uint8, int32, int64; .*got paddle.{dtype}\[1, 1, 4, 4\]"):
        F.interpolate(x, size=[2, 2], mode=mode)


def test_resize_transform_on_a_uint8_tensor_image():
    """vision.transforms.Resize on a uint8 CHW Tensor (the 'tensor' backend): the
    image stays uint8, values those of Paddle's bilinear kernel."""
    img = np.random.default_rng(5).integers(0, 256, size=(3, 6, 8), dtype=np.uint8)
    out = transforms.Resize([12, 16])(eager.to_tensor(img))
    assert out.dtype == eager.uint8 and out.shape == [3, 12, 16]
    np.testing.assert_array_equal(out.numpy(), paddle_integer_resize(img[None], [12, 16])[0])
    near = transforms.Resize([3, 4], interpolation="nearest")(eager.to_tensor(img))
    np.testing.assert_array_equal(near.numpy(), img[:, ::2, ::2])


# -- pixel shuffle ----------------------------------------------------------------------

def test_pixel_shuffle_definition_roundtrip_and_gradients():
    r = 2
    x = leaf((2, 8, 3, 2))
    out = F.pixel_shuffle(x, r)
    expected = np.zeros((2, 2, 6, 4))
    for n, c, h, w, i, j in itertools.product(range(2), range(2), range(3), range(2), range(r), range(r)):
        expected[n, c, h * r + i, w * r + j] = x.numpy()[n, c * r * r + i * r + j, h, w]
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(F.pixel_unshuffle(out, r).numpy(), x.numpy())
    nhwc = F.pixel_shuffle(eager.to_tensor(x.numpy().transpose(0, 2, 3, 1)), r, data_format="NHWC")
    np.testing.assert_array_equal(nhwc.numpy(), expected.transpose(0, 2, 3, 1))
    assert gradcheck(lambda t: F.pixel_shuffle(t, r), (x,))
    assert gradcheck(lambda t: F.pixel_unshuffle(t, 3, "NHWC"), (leaf((1, 3, 6, 2)),))


# -- affine_grid and grid_sample ---------------------------------------------------------

def ref_affine_grid(theta, shape, align_corners):
    n, _, h, w = shape

    def centre(i, size):
        if size == 1:
            return 0.0
        return (2 * i / (size - 1) - 1) if align_corners else (2 * i + 1) / size - 1

    out = np.zeros((n, h, w, 2))
    for b, i, j in itertools.product(range(n), range(h), range(w)):
        out[b, i, j] = theta[b] @ np.array([centre(j, w), centre(i, h), 1.0])
    return out


@pytest.mark.parametrize("align_corners", [True, False])
def test_affine_grid_matches_definition_and_gradchecks(align_corners):
    theta = leaf((2, 2, 3))
    out = F.affine_grid(theta, [2, 3, 4, 5], align_corners)
    np.testing.assert_allclose(out.numpy(), ref_affine_grid(theta.numpy(), (2, 3, 4, 5), align_corners), atol=1e-14)
    assert gradcheck(lambda t: F.affine_grid(t, [2, 1, 3, 2], align_corners), (theta,))
    assert F.affine_grid(leaf((1, 3, 4)), [1, 1, 2, 3, 4]).shape == [1, 2, 3, 4, 3]


def test_identity_affine_grid_samples_the_input_back():
    x = leaf((2, 3, 4, 5))
    theta = eager.to_tensor(np.tile(np.array([[1.0, 0, 0], [0, 1.0, 0]]), (2, 1, 1)))
    for align_corners in (True, False):
        grid = F.affine_grid(theta, [2, 3, 4, 5], align_corners)
        out = F.grid_sample(x, grid, align_corners=align_corners)
        np.testing.assert_allclose(out.numpy(), x.numpy(), atol=1e-12)


@pytest.mark.parametrize("mode, padding_mode, align_corners", [
    ("bilinear", "zeros", True), ("bilinear", "border", False), ("bilinear", "reflection", True),
    ("bilinear", "reflection", False), ("nearest", "zeros", False),
])
def test_grid_sample_gradchecks_in_x_and_grid(mode, padding_mode, align_corners):
    x = leaf((1, 2, 3, 4))
    grid = eager.to_tensor(np.random.default_rng(1).uniform(-1.3, 1.3, (1, 3, 2, 2)), stop_gradient=False)
    assert gradcheck(lambda a, g: F.grid_sample(a, g, mode, padding_mode, align_corners), (x, grid))


def test_grid_sample_through_affine_grid_trains_theta():
    x = leaf((1, 1, 5, 5))
    theta = eager.to_tensor(np.array([[[0.8, 0.1, 0.05], [-0.1, 0.9, 0.02]]]), stop_gradient=False)
    assert gradcheck(lambda t: F.grid_sample(x.detach(), F.affine_grid(t, [1, 1, 3, 3], False),
                                             align_corners=False), (theta,))


# -- layers -------------------------------------------------------------------------------

def test_layers_match_their_functionals():
    x = leaf((1, 2, 4, 4))
    np.testing.assert_array_equal(eager.nn.Pad2D([1, 0, 2, 1], mode="replicate")(x).numpy(),
                                  F.pad(x, [1, 0, 2, 1], mode="replicate").numpy())
    np.testing.assert_array_equal(eager.nn.Pad2D(1, value=3.0)(x).numpy(), F.pad(x, [1] * 4, value=3.0).numpy())
    np.testing.assert_array_equal(eager.nn.ZeroPad2D([0, 1, 1, 0])(x).numpy(), F.pad(x, [0, 1, 1, 0]).numpy())
    assert eager.nn.Pad1D(2, mode="circular")(leaf((1, 2, 3))).shape == [1, 2, 7]
    assert eager.nn.Pad3D([1, 0, 0, 1, 2, 2], data_format="NDHWC")(leaf((1, 2, 2, 2, 3))).shape == [1, 6, 3, 3, 3]
    np.testing.assert_array_equal(eager.nn.Upsample(size=[6, 5], mode="bicubic")(x).numpy(),
                                  F.interpolate(x, size=[6, 5], mode="bicubic").numpy())
    np.testing.assert_array_equal(eager.nn.UpsamplingNearest2D(scale_factor=2)(x).numpy(),
                                  F.interpolate(x, scale_factor=2).numpy())
    np.testing.assert_array_equal(eager.nn.UpsamplingBilinear2D(size=[7, 7])(x).numpy(),
                                  F.interpolate(x, size=[7, 7], mode="bilinear", align_corners=True).numpy())
    np.testing.assert_array_equal(eager.nn.PixelUnshuffle(2)(eager.nn.PixelShuffle(2)(leaf((1, 8, 2, 3)))).numpy(),
                                  leaf((1, 8, 2, 3)).numpy())
    assert "mode=bilinear" in repr(eager.nn.Upsample(scale_factor=2, mode="BILINEAR"))
    assert "padding=[1, 1, 1, 1]" in repr(eager.nn.Pad2D(1))


# -- transposed convolution ----------------------------------------------------------

@pytest.mark.parametrize("fn, k, kwargs, attrs", [
    (F.conv2d_transpose, 2, {"stride": 2, "padding": 1, "output_padding": 1},
     dict(strides=(2, 2), paddings=(1, 1), output_padding=(1, 1))),
    (F.conv2d_transpose, 2, {"stride": [1, 2], "padding": [0, 1, 1, 0], "dilation": [2, 1], "groups": 2},
     dict(strides=(1, 2), paddings=(0, 1, 1, 0), dilations=(2, 1), groups=2)),
    (F.conv2d_transpose, 2, {"stride": 2, "output_size": [8, 9]}, dict(strides=(2, 2), output_size=(8, 9))),
    (F.conv3d_transpose, 3, {"stride": [1, 2, 1], "padding": 1},
     dict(strides=(1, 2, 1), paddings=(1, 1, 1))),
])
def test_conv_transpose_matches_definition_and_gradchecks(fn, k, kwargs, attrs):
    groups = kwargs.get("groups", 1)
    x = leaf((2, 4) + (3, 4, 2)[:k])
    w = leaf((4, 3 // 1) + (3, 2, 2)[:k], 1)
    b = leaf((3 * groups,), 2)
    out = fn(x, w, b, **kwargs)
    full = dict(strides=(1,) * k, paddings=(0,) * k, output_padding=(), output_size=(), padding_algorithm="EXPLICIT",
                groups=1, dilations=(1,) * k, data_format="NCHW" if k == 2 else "NCDHW")
    full.update(attrs)
    expected = ref_conv_transpose(x.numpy(), w.numpy(), **full) + b.numpy().reshape([-1] + [1] * k)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)
    small = [leaf((1, 4) + (2, 2, 2)[:k]), leaf((4, 1) + (2, 2, 2)[:k], 1)]
    small_kwargs = {key: v for key, v in kwargs.items() if key != "output_size"}
    assert gradcheck(lambda a, c: fn(a, c, **small_kwargs), small)


def test_conv1d_transpose_and_channel_last():
    x, w = leaf((2, 3, 5)), leaf((3, 2, 3), 1)
    out = F.conv1d_transpose(x, w, stride=2, padding=1, output_padding=1)
    expected = ref_conv_transpose(x.numpy()[:, :, None], w.numpy()[:, :, None], (1, 2), (0, 1), (0, 1), (),
                                  "EXPLICIT", 1, (1, 1), "NCHW")[:, :, 0]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)
    nlc = F.conv1d_transpose(eager.to_tensor(x.numpy().transpose(0, 2, 1)), w, stride=2, padding=1,
                             output_padding=1, data_format="NLC")
    np.testing.assert_allclose(nlc.numpy(), expected.transpose(0, 2, 1), rtol=1e-12, atol=1e-12)
    assert F.conv1d_transpose(x, w, stride=3, output_size=[16]).shape == [2, 2, 16]
    nhwc = F.conv2d_transpose(eager.to_tensor(np.ones((1, 3, 3, 2))), eager.ones([2, 5, 2, 2], "float64"),
                              stride=2, padding="SAME", data_format="NHWC")
    assert nhwc.shape == [1, 5, 5, 5]      # Paddle's "SAME": pads from x's size, (3 - 1) * 2 - 1 + 2


def test_conv_transpose_layers():
    eager.seed(3)
    layer = eager.nn.Conv2DTranspose(6, 4, kernel_size=3, stride=2, padding=1, output_padding=1, groups=2)
    assert layer.weight.shape == [6, 2, 3, 3] and layer.bias.shape == [4]
    limit = (6.0 / (2 * 9 + 6 * 9)) ** 0.5                 # XavierUniform over [C_in, C_out/g, k, k]
    assert np.abs(layer.weight.numpy()).max() <= limit and np.abs(layer.weight.numpy()).max() > 0.8 * limit
    x = leaf((2, 6, 5, 5), dtype="float32")
    out = layer(x)
    assert out.shape == [2, 4, 10, 10]
    np.testing.assert_allclose(out.numpy(), F.conv2d_transpose(x, layer.weight, layer.bias, stride=2, padding=1,
                                                               output_padding=1, groups=2).numpy())
    assert layer(x, output_size=[9, 10]).shape == [2, 4, 9, 10]
    out.sum().backward()
    assert layer.weight.grad.shape == [6, 2, 3, 3] and x.grad.shape == [2, 6, 5, 5]
    assert eager.nn.Conv1DTranspose(2, 3, 4, stride=2)(eager.ones([1, 2, 5])).shape == [1, 3, 12]
    assert eager.nn.Conv3DTranspose(2, 2, 2, bias_attr=False)(eager.ones([1, 2, 2, 2, 2])).shape == [1, 2, 3, 3, 3]
    assert "output_padding=1" in repr(layer)


def test_conv_transpose_double_gradient():
    x, w = leaf((1, 2, 2, 2)), leaf((2, 1, 2, 2), 1)
    assert eager.autograd.gradgradcheck(lambda a, c: F.conv2d_transpose(a, c, stride=2), (x, w))


# -- errors ------------------------------------------------------------------------------

def _ones(*shape):
    return eager.ones(list(shape))


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.pad(_ones(1, 1, 3, 3), [1, 1]), ValueError,
     "pad: argument 'pad' expected 4 ints (a pair per spatial axis, the last axis first) or 8"),
    (lambda: F.pad(_ones(1, 1, 3, 3), [1, 1, 1, 1], mode="mirror"), ValueError,
     "pad: argument 'mode' expected one of ['constant', 'reflect', 'replicate', 'circular'], got 'mirror'"),
    (lambda: F.pad(_ones(1, 1, 3, 3), [3, 0, 0, 0], mode="reflect"), ValueError,
     "pad: mode 'reflect' needs paddings smaller than the input size"),
    (lambda: F.pad(_ones(1, 1, 3, 3), [-1, 0, 0, 0]), ValueError, "pad: argument 'pad' expected non-negative ints"),
    (lambda: F.pad(_ones(3, 3), [1, 1], mode="reflect"), ValueError,
     "pad: mode 'reflect' pads the spatial axes of a 3-, 4- or 5-d x"),
    (lambda: F.interpolate(_ones(1, 1, 3, 3)), ValueError, "interpolate: one of 'size' and 'scale_factor' must be given"),
    (lambda: F.interpolate(_ones(1, 1, 3, 3), size=[4, 4], scale_factor=2), ValueError,
     "interpolate: only one of 'size' and 'scale_factor' may be given"),
    (lambda: F.interpolate(_ones(1, 1, 3, 3), size=[4, 4], mode="linear"), ValueError,
     "interpolate: mode 'linear' expects a 3-d x, got shape [1, 1, 3, 3]"),
    (lambda: F.interpolate(_ones(1, 1, 3), size=[4], mode="linear"), ValueError,
     "interpolate: argument 'data_format' expected one of ['NCW', 'NWC'] for a 3-d x, got 'NCHW'"),
    (lambda: F.interpolate(_ones(1, 1, 3, 3), size=[4, 4], align_corners=True), ValueError,
     "interpolate: align_corners can only be set with the interpolating modes"),
    (lambda: F.interpolate(_ones(1, 1, 3, 3), size=[4, 4], mode="bilinear", align_mode=2), ValueError,
     "interpolate: argument 'align_mode' expected 0 or 1, got 2"),
    (lambda: F.interpolate(_ones(1, 1, 3, 3), size=[4], mode="bilinear"), ValueError,
     "interpolate: argument 'size' expected 2 positive ints"),
    (lambda: F.interpolate(_ones(1, 1, 3, 3), scale_factor=0.1), ValueError, "gives an empty output"),
    (lambda: F.interpolate(_ones(1, 1, 3, 3), size=[4, 4], mode="cubic"), ValueError,
     "interpolate: argument 'mode' expected one of"),
    (lambda: F.pixel_shuffle(_ones(1, 6, 2, 2), 2), ValueError,
     "pixel_shuffle: the channels of x (6, shape [1, 6, 2, 2]) must be divisible by upscale_factor ** 2 = 4"),
    (lambda: F.pixel_unshuffle(_ones(1, 1, 3, 4), 2), ValueError, "pixel_unshuffle: the height and width of x"),
    (lambda: F.pixel_shuffle(_ones(1, 4, 2, 2), 0), ValueError, "pixel_shuffle: argument 'upscale_factor' expected"),
    (lambda: F.affine_grid(_ones(2, 2, 3), [1, 1, 3, 3]), ValueError,
     "affine_grid: argument 'theta' expected shape [1, 2, 3] for out_shape [1, 1, 3, 3], got [2, 2, 3]"),
    (lambda: F.grid_sample(_ones(1, 1, 3, 3), _ones(1, 2, 2, 3)), ValueError,
     "grid_sample: argument 'grid' expected shape [1, H_out, W_out, 2]"),
    (lambda: F.grid_sample(_ones(1, 1, 3, 3), _ones(1, 2, 2, 2), mode="bicubic"), ValueError,
     "grid_sample: argument 'mode' expected one of ['bilinear', 'nearest'], got 'bicubic'"),
    (lambda: F.grid_sample(_ones(1, 1, 3, 3), _ones(1, 2, 2, 2), padding_mode="wrap"), ValueError,
     "grid_sample: argument 'padding_mode' expected one of ['zeros', 'border', 'reflection']"),
    (lambda: eager.nn.Pad2D([1, 1]), ValueError, "Pad2D: argument 'padding' expected a non-negative int or 4 of them"),
    (lambda: eager.nn.Upsample(), ValueError, "Upsample: one of 'size' and 'scale_factor' must be given"),
    (lambda: eager.nn.PixelShuffle(2, data_format="NCL"), ValueError, "PixelShuffle: argument 'data_format'"),
    (lambda: F.conv2d_transpose(_ones(1, 3, 4, 4), _ones(2, 2, 3, 3)), ValueError,
     "conv2d_transpose: argument 'filter' expects 2 input channels"),
    (lambda: F.conv2d_transpose(_ones(1, 2, 4, 4), _ones(2, 2, 3, 3), stride=2, output_padding=2), ValueError,
     "conv2d_transpose: argument 'output_padding' expected values smaller than max(stride, dilation) = 2"),
    (lambda: F.conv2d_transpose(_ones(1, 2, 4, 4), _ones(2, 2, 3, 3), stride=2, output_size=[12, 9]), ValueError,
     "conv2d_transpose: argument 'output_size' expected a size in [9, 11) on axis 0"),
    (lambda: F.conv2d_transpose(_ones(1, 2, 4, 4), _ones(2, 2, 3, 3), stride=2, output_padding=1,
                                output_size=[10, 10]), ValueError,
     "conv2d_transpose: arguments 'output_padding' ([1, 1]) and 'output_size' ([10, 10]) are mutually exclusive"),
    (lambda: F.conv2d_transpose(_ones(1, 2, 4, 4), _ones(2, 2, 3, 3), _ones(2), groups=2), ValueError,
     "conv2d_transpose: argument 'bias' expected shape [4] (one per output channel), got [2]"),
    (lambda: F.conv3d_transpose(_ones(1, 2, 4, 4), _ones(2, 2, 3, 3, 3)), ValueError,
     "conv3d_transpose: argument 'x' expected a 5-d tensor (NCDHW), got shape [1, 2, 4, 4]"),
    (lambda: eager.nn.Conv2DTranspose(3, 4, 3, groups=2), ValueError,
     "Conv2DTranspose: argument 'groups' (2) must divide in_channels (3)"),
])
def test_bad_calls_raise_clear_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


def test_a_failed_call_leaves_its_input_untouched():
    x = leaf((1, 1, 3, 3))
    before = x.numpy().copy()
    with pytest.raises(ValueError):
        F.pad(x, [5, 0, 0, 0], mode="reflect")
    np.testing.assert_array_equal(x.numpy(), before)
    assert x.grad is None


# -- PyTorch cross-checks ------------------------------------------------------------------

def _torch():
    return pytest.importorskip("torch")


def _check_against_torch(ours, theirs, arrays, rtol=1e-10):
    torch = _torch()
    mine = [eager.to_tensor(a, stop_gradient=False) for a in arrays]
    refs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, expected = ours(*mine), theirs(*refs)
    np.testing.assert_allclose(out.numpy(), expected.detach().numpy(), rtol=rtol, atol=rtol)
    seed = np.random.default_rng(7).standard_normal(tuple(expected.shape))
    out.backward(eager.to_tensor(seed))
    expected.backward(torch.tensor(seed))
    for a, b in zip(mine, refs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("mode, size, align_corners", [
    ("nearest", [7, 3], None), ("bilinear", [7, 9], False), ("bilinear", [3, 2], True),
    ("bicubic", [8, 3], False), ("bicubic", [8, 3], True),
])
def test_interpolate_matches_torch(mode, size, align_corners):
    torch = _torch()
    x = RNG.standard_normal((2, 3, 5, 4))
    extra = {} if align_corners is None else {"align_corners": align_corners}
    _check_against_torch(lambda t: F.interpolate(t, size=size, mode=mode, **extra),
                         lambda t: torch.nn.functional.interpolate(t, size=size, mode=mode, **extra), [x])


def test_interpolate_scale_factor_and_align_mode_against_torch():
    torch = _torch()
    TF = torch.nn.functional
    x = RNG.standard_normal((1, 2, 4, 6))
    _check_against_torch(lambda t: F.interpolate(t, scale_factor=1.7, mode="bilinear"),
                         lambda t: TF.interpolate(t, scale_factor=1.7, mode="bilinear"), [x])
    _check_against_torch(lambda t: F.interpolate(t, scale_factor=[2, 0.5], mode="nearest"),
                         lambda t: TF.interpolate(t, scale_factor=[2, 0.5], mode="nearest"), [x])
    # align_mode=1 (src = dst / scale, Paddle only) is not torch's half-pixel rule: for an
    # exact 2x upscale it is torch's align_corners=False applied to the image shifted by
    # half an output pixel, and it differs from torch's result.
    ours = F.interpolate(eager.to_tensor(x), size=[8, 12], mode="bilinear", align_mode=1).numpy()
    theirs = TF.interpolate(torch.tensor(x), size=(8, 12), mode="bilinear", align_corners=False).numpy()
    assert np.abs(ours - theirs).max() > 1e-3
    np.testing.assert_allclose(ours[:, :, ::2, ::2], x, atol=1e-12)     # even outputs sit on input pixels


@pytest.mark.parametrize("mode, padding_mode, align_corners", list(itertools.product(
    ["bilinear", "nearest"], ["zeros", "border", "reflection"], [True, False])))
def test_grid_sample_matches_torch(mode, padding_mode, align_corners):
    torch = _torch()
    x = RNG.standard_normal((2, 3, 4, 5))
    grid = RNG.uniform(-1.4, 1.4, (2, 3, 6, 2))
    _check_against_torch(lambda a, g: F.grid_sample(a, g, mode, padding_mode, align_corners),
                         lambda a, g: torch.nn.functional.grid_sample(a, g, mode=mode, padding_mode=padding_mode,
                                                                      align_corners=align_corners), [x, grid])


def test_grid_sample_3d_and_affine_grid_match_torch():
    torch = _torch()
    TF = torch.nn.functional
    x = RNG.standard_normal((1, 2, 3, 4, 3))
    grid = RNG.uniform(-1.2, 1.2, (1, 2, 3, 2, 3))
    _check_against_torch(lambda a, g: F.grid_sample(a, g, "bilinear", "border", False),
                         lambda a, g: TF.grid_sample(a, g, padding_mode="border", align_corners=False), [x, grid])
    theta = RNG.standard_normal((2, 3, 4))
    _check_against_torch(lambda t: F.affine_grid(t, [2, 1, 2, 3, 4], False),
                         lambda t: TF.affine_grid(t, [2, 1, 2, 3, 4], align_corners=False), [theta])


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_matches_torch(mode):
    torch = _torch()
    x = RNG.standard_normal((1, 2, 3, 4, 5))
    _check_against_torch(lambda t: F.pad(t, [1, 2, 0, 2, 2, 1], mode=mode, data_format="NCDHW"),
                         lambda t: torch.nn.functional.pad(t, (1, 2, 0, 2, 2, 1), mode=mode), [x])


def test_pixel_shuffle_matches_torch():
    torch = _torch()
    _check_against_torch(lambda t: F.pixel_shuffle(t, 3), lambda t: torch.nn.functional.pixel_shuffle(t, 3),
                         [RNG.standard_normal((2, 18, 2, 3))])
    _check_against_torch(lambda t: F.pixel_unshuffle(t, 2), lambda t: torch.nn.functional.pixel_unshuffle(t, 2),
                         [RNG.standard_normal((2, 3, 4, 6))])
