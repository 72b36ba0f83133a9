"""Regression cases from the vision transforms differential sweep: each one failed
on the code before the sweep's fixes (an empty image dying inside NumPy or
giving NaN, erase of a PIL image with inplace=True, adjust_hue's missing
Tensor gradient, a bicubic resize of an integer Tensor naming interpolate,
RandomPerspective on a one-pixel-high image, to_tensor of a 16-bit PIL image).
References are hand-written loops (colorsys for the hue) and Pillow."""
import colorsys
import re

import numpy as np
import pytest

import eager
from eager.autograd import gradcheck
from eager.vision import transforms as T
from eager.vision.transforms import functional as F

Image = pytest.importorskip("PIL.Image")


def chw(arr):
    return eager.to_tensor(np.ascontiguousarray(arr.transpose(2, 0, 1)))


# -- empty images: refused naming the function (pad/rotate died in NumPy, contrast gave NaN) ----------

@pytest.mark.parametrize("call, name", [
    (lambda img: F.pad(img, (1, 3, 0, 5), padding_mode="edge"), "pad"),
    (lambda img: F.rotate(img, 130.0, expand=True), "rotate"),
    (lambda img: F.adjust_contrast(img, 1.5), "adjust_contrast"),
    (lambda img: F.affine(img, 10.0, (0, 0), 1.0, 0.0), "affine"),
    (lambda img: F.resize(img, 4), "resize"),
    (lambda img: F.hflip(img), "hflip"),
])
@pytest.mark.parametrize("shape", [(0, 3, 3), (3, 0), (2, 2, 0)])
def test_empty_numpy_image_is_refused_naming_the_function(call, name, shape):
    with pytest.raises(ValueError, match="^" + re.escape(f"{name}: argument 'img' is an empty image (shape {shape}")):
        call(np.zeros(shape))


@pytest.mark.parametrize("shape", [[3, 0, 4], [0, 2, 2]])
def test_empty_tensor_image_is_refused_naming_the_function(shape):
    img = eager.zeros(shape, dtype="float32")
    with pytest.raises(ValueError, match=r"^rotate: argument 'img' is an empty Tensor image"):
        F.rotate(img, 30.0)
    with pytest.raises(ValueError, match=r"^pad: argument 'img' is an empty Tensor image"):
        F.pad(img, 1)


def test_to_tensor_still_takes_an_empty_array():
    out = F.to_tensor(np.zeros((0, 3, 3), np.uint8))
    assert out.shape == [3, 0, 3]


# -- erase on a PIL image with inplace=True: a new image, as Paddle's PIL path ----------------------

def test_erase_pil_inplace_returns_a_new_image_with_the_box_set():
    pixels = np.random.default_rng(0).integers(0, 256, (6, 6, 3)).astype(np.uint8)
    img = Image.fromarray(pixels)
    out = F.erase(img, 1, 2, 3, 2, [10, 20, 30], inplace=True)
    expected = pixels.copy()
    for i in range(1, 4):
        for j in range(2, 4):
            expected[i, j] = (10, 20, 30)
    assert isinstance(out, Image.Image) and out.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(out), expected)
    np.testing.assert_array_equal(np.asarray(img), pixels)        # a PIL image cannot be written in place


def test_random_erasing_inplace_on_a_pil_image():
    pixels = np.zeros((8, 8, 3), np.uint8)
    eager.seed(3)
    out = T.RandomErasing(prob=1.0, value=9, inplace=True)(Image.fromarray(pixels))
    arr = np.asarray(out)
    assert isinstance(out, Image.Image) and (arr == 9).any() and set(np.unique(arr)) <= {0, 9}


# -- adjust_hue on a Tensor keeps its gradient ---------------------------------------------------

def hue_loop(img, factor):
    out = np.empty_like(img)
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            h, s, v = colorsys.rgb_to_hsv(*img[i, j])
            out[i, j] = colorsys.hsv_to_rgb((h + factor) % 1.0, s, v)
    return out


@pytest.mark.parametrize("factor", [0.1, -0.37, 0.5])
def test_adjust_hue_tensor_values_and_gradient(factor):
    img = np.random.default_rng(1).uniform(0.05, 0.95, (3, 4, 3))
    out = F.adjust_hue(chw(img), factor)
    np.testing.assert_allclose(out.numpy().transpose(1, 2, 0), hue_loop(img, factor), atol=1e-12)
    x = chw(img)
    x.stop_gradient = False
    assert gradcheck(lambda t: F.adjust_hue(t, factor), (x,))


def test_adjust_hue_tensor_gradient_through_the_hue():
    # rgb (0.8, 0.3, 0.1) turned by 0.1 stays in the red-to-yellow sector: G' = v (1 - s (1 - f)) with
    # f = 6 h' and h = (g - b) / (6 (r - b)), so dG'/dg = v s / (r - b) = 1 (it was 0: x % 1 cut the hue)
    x = chw(np.array([[[0.8, 0.3, 0.1]]]))
    x.stop_gradient = False
    F.adjust_hue(x, 0.1)[1].sum().backward()
    assert abs(float(x.grad.numpy()[1, 0, 0]) - 1.0) < 1e-9


# -- resize: a bicubic integer Tensor is refused by resize itself --------------------------------

def test_resize_bicubic_integer_tensor_names_resize():
    img = eager.to_tensor(np.arange(25, dtype=np.uint8).reshape(1, 5, 5))
    with pytest.raises(TypeError, match=r"^resize: interpolation 'bicubic' expected a floating-point Tensor image"):
        F.resize(img, (7, 8), "bicubic")
    assert F.resize(img, (7, 8), "bilinear").shape == [1, 7, 8]       # bilinear takes uint8, as Paddle's kernel


# -- perspective with points three on a line; RandomPerspective on thin images -------------------

@pytest.mark.parametrize("shape", [(1, 7), (7, 1), (1, 5, 3), (1, 1)])
def test_perspective_with_the_corners_of_a_thin_image_gives_it_back(shape):
    img = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    h, w = shape[:2]
    corners = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
    np.testing.assert_array_equal(F.perspective(img, corners, corners), img)


@pytest.mark.parametrize("shape", [(1, 9, 3), (9, 1), (1, 1, 3)])
def test_random_perspective_on_a_one_pixel_high_or_wide_image(shape):
    img = np.random.default_rng(2).integers(0, 256, shape).astype(np.uint8)
    eager.seed(0)
    t = T.RandomPerspective(prob=1.0, distortion_scale=1.0)
    for _ in range(10):
        out = t(img)
        assert out.shape == img.shape and out.dtype == np.uint8
        assert set(np.unique(out)) <= set(np.unique(img)) | {0}       # nearest: input pixels or the fill


def test_perspective_degenerate_1d_map_takes_the_end_points_to_the_start_points():
    # one row: start x in [0, 7] onto end x in [1, 6]; output pixel j samples the input where the
    # 1-D map sends its centre, and the ends land on the ends
    img = np.arange(7, dtype=np.float64).reshape(1, 7) + 1
    out = F.perspective(img, [[0, 0], [7, 0], [7, 0], [0, 0]], [[1, 0], [6, 0], [6, 0], [1, 0]])
    assert np.isfinite(out).all() and out.shape == (1, 7)
    assert out[0, 0] == 0 and out[0, 6] == 0                       # outside [1, 6]: the fill
    # the map fits affinely (x -> (x - 1) * 7 / 5, rows kept): output centre j + 0.5 samples pixel
    # round((j + 0.5 - 1) * 7 / 5 - 0.5)
    for j in range(1, 6):
        src = int(np.floor((j + 0.5 - 1) * 7 / 5 - 0.5 + 0.5))
        assert out[0, j] == img[0, src]


# -- to_tensor of a 16-bit PIL image: int32, as Paddle ------------------------------------------

@pytest.mark.parametrize("data_format", ["CHW", "HWC"])
def test_to_tensor_of_a_16_bit_pil_image(data_format):
    values = np.array([[1, 40000, 65535], [0, 7, 300]], np.uint16)
    img = Image.fromarray(values)
    assert img.mode.startswith("I;16")
    out = F.to_tensor(img, data_format)
    assert str(out.dtype).endswith("int32")
    expected = values.astype(np.int64)[None] if data_format == "CHW" else values.astype(np.int64)[:, :, None]
    np.testing.assert_array_equal(out.numpy(), expected)


# -- affine's argument rules as Paddle's: [s] shears x and y alike; a non-sequence is a TypeError -----

def shear_loop(img, sx_deg, sy_deg):
    """Nearest sampling of x' = c + Shy Shx (x - c), c the image centre, by inverting the map per pixel."""
    h, w = img.shape
    tx, ty = np.tan(np.radians(sx_deg)), np.tan(np.radians(sy_deg))
    forward = np.array([[1.0, 0.0], [-ty, 1.0]]) @ np.array([[1.0, -tx], [0.0, 1.0]])
    inverse = np.linalg.inv(forward)
    out = np.zeros_like(img)
    for i in range(h):
        for j in range(w):
            d = np.array([j + 0.5 - w / 2.0, i + 0.5 - h / 2.0])
            u, v = inverse @ d + [w / 2.0, h / 2.0]
            c, r = int(np.floor(u)), int(np.floor(v))
            if 0 <= r < h and 0 <= c < w:
                out[i, j] = img[r, c]
    return out


def test_affine_one_shear_value_in_a_list_shears_both_axes():
    img = np.arange(1, 50, dtype=np.float64).reshape(7, 7)
    out = F.affine(img, 0.0, (0, 0), 1.0, [10.0])
    np.testing.assert_array_equal(out, F.affine(img, 0.0, (0, 0), 1.0, (10.0, 10.0)))
    np.testing.assert_array_equal(out, shear_loop(img, 10.0, 10.0))
    assert not np.array_equal(out, F.affine(img, 0.0, (0, 0), 1.0, 10.0))   # a bare number shears x only


@pytest.mark.parametrize("kwargs, arg", [
    (dict(translate=3), "translate"),
    (dict(shear="x"), "shear"),
    (dict(center=2.0), "center"),
])
def test_affine_non_sequence_arguments_are_type_errors(kwargs, arg):
    args = dict(angle=0.0, translate=(0, 0), scale=1.0, shear=0.0)
    args.update(kwargs)
    with pytest.raises(TypeError, match=rf"^affine: argument '{arg}' expected"):
        F.affine(np.zeros((3, 3)), **args)


# -- an array of other than 2 or 3 dims is not an image: TypeError, as Paddle's -------------------

@pytest.mark.parametrize("call, name", [
    (lambda img: F.resize(img, 2), "resize"),
    (lambda img: F.pad(img, 1), "pad"), (lambda img: F.hflip(img), "hflip"),
    (lambda img: F.rotate(img, 10.0), "rotate"), (lambda img: F.normalize(img, 0.5, 0.5), "normalize"),
    (lambda img: T.Transpose()(img), "Transpose"),
])
@pytest.mark.parametrize("shape", [(2, 2, 3, 1), (4,)])
def test_an_array_of_other_dims_is_a_type_error(call, name, shape):
    with pytest.raises(TypeError, match="^" + re.escape(f"{name}: argument 'img' expected a NumPy image of 2 (HW) "
                                                       f"or 3 (HWC) dims, got shape {shape}")):
        call(np.zeros(shape))


@pytest.mark.parametrize("call, error, match", [
    (lambda: F.resize(np.zeros((3, 3)), "4"), TypeError, "resize: argument 'size'"),
    (lambda: F.resize(np.zeros((3, 3)), 2.5), TypeError, "resize: argument 'size'"),
    (lambda: F.resize(np.zeros((3, 3)), (1, 2, 3)), ValueError, "resize: argument 'size'"),
    (lambda: F.resize(np.zeros((3, 3)), -1), ValueError, "resize: argument 'size'"),
    (lambda: F.center_crop(np.zeros((3, 3)), None), TypeError, "center_crop: argument 'output_size'"),
    (lambda: T.RandomCrop("3"), TypeError, "RandomCrop: argument 'size'"),
    (lambda: F.pad(np.zeros((3, 3)), "1"), TypeError, "pad: argument 'padding'"),
    (lambda: F.pad(np.zeros((3, 3)), 1.5), TypeError, "pad: argument 'padding'"),
    (lambda: F.pad(np.zeros((3, 3)), (1, 2, 3)), ValueError, "pad: argument 'padding'"),
    (lambda: T.Pad(None), TypeError, "Pad: argument 'padding'"),
])
def test_size_and_padding_of_a_wrong_type_are_type_errors(call, error, match):
    with pytest.raises(error, match="^" + re.escape(match)):
        call()


# -- normalize keeps float64 NumPy images in float64 (Paddle's float32 mean/std promote with them) ---

@pytest.mark.parametrize("dtype, expected", [(np.uint8, np.float32), (np.float32, np.float32),
                                             (np.float64, np.float64), (np.int32, np.float64)])
def test_normalize_numpy_result_dtype(dtype, expected):
    img = (np.arange(24).reshape(2, 3, 4) * 10).astype(dtype)
    mean, std = [1.5, 2.25], [0.5, 4.0]
    out = F.normalize(img, mean, std, "CHW")
    assert out.dtype == expected
    ref = np.empty((2, 3, 4))
    for c in range(2):
        for i in range(3):
            for j in range(4):
                ref[c, i, j] = (float(img[c, i, j]) - mean[c]) / std[c]
    np.testing.assert_allclose(out, ref, rtol=1e-6 if expected == np.float32 else 1e-15)


# -- to_tensor of a Tensor image: itself (CHW) or moved to HWC, as Paddle ---------------------------

def test_to_tensor_of_a_tensor_image():
    values = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    img = eager.to_tensor(values)
    assert F.to_tensor(img) is img
    out = T.ToTensor(data_format="HWC")(img)
    assert out.shape == [3, 4, 2]
    for c in range(2):
        for i in range(3):
            for j in range(4):
                assert out.numpy()[i, j, c] == values[c, i, j]
    with pytest.raises(ValueError, match=r"^to_tensor: a Tensor image must be 3-D \(CHW\)"):
        F.to_tensor(eager.to_tensor(values[0]))


def test_to_tensor_names_its_argument_pic():
    with pytest.raises(TypeError, match=r"^to_tensor: argument 'pic' expected a NumPy image of 2 \(HW\) or 3"):
        F.to_tensor(np.zeros((2, 2, 3, 1)))
