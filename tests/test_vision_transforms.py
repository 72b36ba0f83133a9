"""eager.vision.transforms: values against hand-written references (per-pixel
loops, np.pad's documented examples, formulas), torch where installed, and the
seeding contract of the random transforms."""
import colorsys
import doctest

import numpy as np
import pytest

import eager
from eager.vision import transforms as T
from eager.vision.transforms import functional as F


def rgb(h=5, w=7, seed=0, dtype=np.uint8):
    return np.random.default_rng(seed).integers(0, 256, (h, w, 3)).astype(dtype)


# -- to_tensor ----------------------------------------------------------------------

def test_to_tensor_scales_uint8_to_unit_range_and_moves_channels_first():
    img = rgb()
    out = T.ToTensor()(img)
    assert out.shape == [3, 5, 7] and str(out.dtype).endswith("float32")
    np.testing.assert_allclose(out.numpy(), img.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    hwc = T.ToTensor(data_format="HWC")(img)
    np.testing.assert_allclose(hwc.numpy(), img / 255.0, rtol=1e-6)


def test_to_tensor_keeps_other_dtypes_and_adds_a_channel_to_2d():
    img = np.arange(6, dtype=np.float64).reshape(2, 3) * 10
    out = F.to_tensor(img)
    assert out.shape == [1, 2, 3] and str(out.dtype).endswith("float64")
    np.testing.assert_array_equal(out.numpy()[0], img)


# -- resize -------------------------------------------------------------------------

def bilinear_loop(img, oh, ow):
    """Per-pixel half-pixel bilinear (OpenCV INTER_LINEAR / torch align_corners=False)."""
    h, w = img.shape[:2]
    out = np.zeros((oh, ow) + img.shape[2:])
    for i in range(oh):
        for j in range(ow):
            sy = max((i + 0.5) * h / oh - 0.5, 0.0)
            sx = max((j + 0.5) * w / ow - 0.5, 0.0)
            y0, x0 = min(int(np.floor(sy)), h - 1), min(int(np.floor(sx)), w - 1)
            y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
            dy, dx = sy - y0, sx - x0
            out[i, j] = ((1 - dy) * ((1 - dx) * img[y0, x0] + dx * img[y0, x1])
                         + dy * ((1 - dx) * img[y1, x0] + dx * img[y1, x1]))
    return out


@pytest.mark.parametrize("oh, ow", [(3, 4), (9, 13), (5, 7), (1, 1)])
def test_resize_bilinear_matches_the_per_pixel_formula(oh, ow):
    img = rgb(dtype=np.float64)
    np.testing.assert_allclose(F.resize(img, (oh, ow)), bilinear_loop(img, oh, ow), rtol=1e-12, atol=1e-9)


def test_resize_uint8_rounds_the_float_result():
    img = rgb()
    out = F.resize(img, (8, 3))
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out, np.clip(np.rint(bilinear_loop(img.astype(float), 8, 3)), 0, 255))


def test_resize_nearest_takes_floor_of_the_scaled_index():
    img = np.arange(20).reshape(4, 5)
    out = F.resize(img, (2, 3), interpolation="nearest")
    rows, cols = [int(np.floor(i * 4 / 2)) for i in range(2)], [int(np.floor(j * 5 / 3)) for j in range(3)]
    np.testing.assert_array_equal(out, img[np.ix_(rows, cols)])


def test_resize_int_size_sets_the_shorter_side_as_paddle():
    assert T.Resize(224)(np.zeros((256, 300, 3), np.uint8)).shape == (224, 262, 3)
    assert T.Resize(224)(np.zeros((300, 256, 3), np.uint8)).shape == (262, 224, 3)
    img = rgb(4, 6)
    assert F.resize(img, 4) is img  # already the size: returned as is (Paddle)
    assert T.Resize((200, 150))(np.zeros((256, 300), np.uint8)).shape == (200, 150)


def test_resize_of_a_tensor_matches_the_numpy_resize():
    img = rgb(dtype=np.float32)
    for mode in ("bilinear", "nearest"):
        out = F.resize(eager.to_tensor(img.transpose(2, 0, 1).copy()), (9, 4), mode)
        np.testing.assert_allclose(out.numpy().transpose(1, 2, 0), F.resize(img, (9, 4), mode), rtol=1e-5,
                                   atol=1e-4)


def test_resize_against_torch():
    torch = pytest.importorskip("torch")
    img = rgb(6, 10, dtype=np.float64)
    ours = F.resize(img, (4, 15))
    ref = torch.nn.functional.interpolate(torch.from_numpy(img.transpose(2, 0, 1))[None], size=(4, 15),
                                          mode="bilinear", align_corners=False)[0].numpy().transpose(1, 2, 0)
    np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=1e-10)


# -- pad, crop, flips, normalize, transpose ----------------------------------------------

def test_pad_modes_follow_the_documented_examples():
    row = np.array([[1, 2, 3, 4]])
    assert F.pad(row, (2, 0), padding_mode="reflect").tolist() == [[3, 2, 1, 2, 3, 4, 3, 2]]
    assert F.pad(row, (2, 0), padding_mode="symmetric").tolist() == [[2, 1, 1, 2, 3, 4, 4, 3]]
    assert F.pad(row, (2, 0), padding_mode="edge").tolist() == [[1, 1, 1, 2, 3, 4, 4, 4]]
    assert F.pad(row, (1, 0), fill=9).tolist() == [[9, 1, 2, 3, 4, 9]]


def test_pad_with_four_values_and_a_fill_per_channel():
    img = rgb(2, 3)
    out = F.pad(img, (1, 2, 3, 4), fill=(10, 20, 30))   # left, top, right, bottom
    assert out.shape == (2 + 2 + 4, 3 + 1 + 3, 3)
    np.testing.assert_array_equal(out[2:4, 1:4], img)
    assert out[0, 0].tolist() == [10, 20, 30] and out[-1, -1].tolist() == [10, 20, 30]


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
def test_pad_of_a_tensor_matches_the_numpy_pad(mode):
    img = rgb(4, 5, dtype=np.float32)
    out = F.pad(eager.to_tensor(img.transpose(2, 0, 1).copy()), (1, 2, 3, 1), fill=0, padding_mode=mode)
    np.testing.assert_array_equal(out.numpy().transpose(1, 2, 0), F.pad(img, (1, 2, 3, 1), padding_mode=mode))


def test_crop_center_crop_and_flips_on_arrays_and_tensors():
    img = np.arange(5 * 6 * 2, dtype=np.float32).reshape(5, 6, 2)
    chw = eager.to_tensor(img.transpose(2, 0, 1).copy())
    np.testing.assert_array_equal(F.crop(img, 1, 2, 3, 2), img[1:4, 2:4])
    np.testing.assert_array_equal(F.center_crop(img, (3, 2)), img[1:4, 2:4])   # round(1.0), round(2.0)
    np.testing.assert_array_equal(F.center_crop(chw, (3, 2)).numpy(), img[1:4, 2:4].transpose(2, 0, 1))
    np.testing.assert_array_equal(T.CenterCrop(4)(img), img[0:4, 1:5])          # round(0.5) = 0 as Python
    np.testing.assert_array_equal(F.hflip(img), img[:, ::-1])
    np.testing.assert_array_equal(F.vflip(img), img[::-1])
    np.testing.assert_array_equal(F.hflip(chw).numpy(), img[:, ::-1].transpose(2, 0, 1))
    np.testing.assert_array_equal(F.vflip(chw).numpy(), img[::-1].transpose(2, 0, 1))


def test_normalize_per_channel_in_both_layouts():
    img = rgb(dtype=np.float32)
    mean, std = [10.0, 20.0, 30.0], [2.0, 4.0, 8.0]
    hwc = T.Normalize(mean, std, data_format="HWC")(img)
    np.testing.assert_allclose(hwc, (img - np.array(mean)) / np.array(std), rtol=1e-6)
    chw = img.transpose(2, 0, 1)
    np.testing.assert_allclose(T.Normalize(mean, std)(chw), (chw - np.array(mean)[:, None, None])
                               / np.array(std)[:, None, None], rtol=1e-6)
    rgb_first = T.Normalize(mean, std, data_format="HWC", to_rgb=True)(img)
    np.testing.assert_allclose(rgb_first, (img[..., ::-1] - np.array(mean)) / np.array(std), rtol=1e-6)
    tensor = T.Normalize(mean, std)(eager.to_tensor(chw.copy()))
    np.testing.assert_allclose(tensor.numpy(), T.Normalize(mean, std)(chw), rtol=1e-6)


def test_normalize_of_a_tensor_is_differentiable():
    x = eager.to_tensor(np.ones((3, 2, 2), np.float32), stop_gradient=False)
    T.Normalize([0.0, 0.0, 0.0], [2.0, 4.0, 8.0])(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[:, 0, 0], [0.5, 0.25, 0.125])


def test_transpose_and_compose():
    img = rgb()
    assert T.Transpose()(img).shape == (3, 5, 7)
    assert T.Transpose()(img[..., 0]).shape == (1, 5, 7)
    t = T.Compose([T.Resize((10, 14)), T.CenterCrop(8), T.ToTensor(), T.Normalize(0.5, 0.5)])
    out = t(img)
    assert out.shape == [3, 8, 8]
    assert out.numpy().min() >= -1.0 and out.numpy().max() <= 1.0


# -- random transforms ----------------------------------------------------------------------

def test_random_transforms_repeat_after_eager_seed():
    img = np.arange(10 * 10, dtype=np.uint8).reshape(10, 10)
    t = T.Compose([T.RandomCrop(4), T.RandomHorizontalFlip(), T.RandomVerticalFlip()])
    eager.seed(123)
    first = [t(img) for _ in range(20)]
    eager.seed(123)
    second = [t(img) for _ in range(20)]
    assert all(np.array_equal(a, b) for a, b in zip(first, second))
    assert len({a.tobytes() for a in first}) > 5   # they are random


def test_random_crop_draws_every_offset_and_gives_true_windows():
    img = np.arange(6 * 5).reshape(6, 5)
    eager.seed(0)
    seen = set()
    for _ in range(300):
        out = T.RandomCrop((4, 3))(img)
        top, left = divmod(int(out[0, 0]), 5)
        np.testing.assert_array_equal(out, img[top:top + 4, left:left + 3])
        seen.add((top, left))
    assert seen == {(t, l) for t in range(3) for l in range(3)}


def test_random_crop_padding_and_pad_if_needed():
    img = np.ones((3, 3), np.uint8)
    eager.seed(1)
    out = T.RandomCrop(5, padding=1, fill=0)(img)
    assert out.shape == (5, 5) and out.sum() == 9        # the whole image, zero border
    out = T.RandomCrop((3, 6), pad_if_needed=True, fill=7)(img)
    assert out.shape == (3, 6) and out.sum() == 9 + 7 * 9
    with pytest.raises(ValueError, match="RandomCrop: the crop size"):
        T.RandomCrop(4)(img)


def test_flip_probability_and_paired_inputs_share_one_draw():
    img = np.arange(4).reshape(1, 4)
    eager.seed(3)
    flips = sum(T.RandomHorizontalFlip(0.5)(img)[0, 0] == 3 for _ in range(400))
    assert 150 < flips < 250
    assert T.RandomHorizontalFlip(0.0)(img).tolist() == img.tolist()
    t = T.RandomCrop(2, keys=("image", "image"))
    for _ in range(20):
        a, b = t((img.reshape(2, 2), img.reshape(2, 2) * 10))
        np.testing.assert_array_equal(a * 10, b)
    mask_t = T.RandomCrop((1, 2), keys=("image", "mask", "label"))
    a, m, label = mask_t((img, img + 100, 5))
    assert label == 5 and np.array_equal(a + 100, m)


# -- errors ---------------------------------------------------------------------------------

@pytest.mark.parametrize("make, match", [
    (lambda: T.Resize(0), "Resize: argument 'size'"),
    (lambda: T.Resize(8, interpolation="lanczos"), "Resize: argument 'interpolation'"),
    (lambda: T.RandomHorizontalFlip(1.5), "RandomHorizontalFlip: argument 'prob'"),
    (lambda: T.Normalize([1.0], [0.0]), "Normalize: argument 'std'"),
    (lambda: T.ToTensor(data_format="NCHW"), "ToTensor: argument 'data_format'"),
    (lambda: T.CenterCrop((1, 2, 3)), "CenterCrop: argument 'size'"),
    (lambda: T.Pad(1, padding_mode="wrap"), "Pad: argument 'padding_mode'"),
])
def test_bad_arguments_raise_clear_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_unsupported_key_is_not_implemented_as_paddle():
    with pytest.raises(NotImplementedError, match="ToTensor: key 'boxes' is not supported"):
        T.ToTensor(keys=("image", "boxes"))


def test_bad_images_raise_clear_errors_and_leave_the_input_alone():
    img = rgb()
    before = img.copy()
    with pytest.raises(TypeError, match="resize: argument 'img'"):
        F.resize([[1, 2]], 4)
    with pytest.raises(ValueError, match="center_crop: argument 'output_size'"):
        F.center_crop(img, 9)
    with pytest.raises(ValueError, match="normalize: argument 'mean' has 2 values"):
        F.normalize(img, [1.0, 2.0], [1.0], data_format="HWC")
    with pytest.raises(ValueError, match="pad: padding_mode 'symmetric'"):
        F.pad(eager.to_tensor(img.transpose(2, 0, 1).copy()), 1, padding_mode="symmetric")
    with pytest.raises(TypeError, match="to_tensor: argument 'pic'"):
        F.to_tensor("not an image")
    F.hflip(img), F.resize(img, 3), F.normalize(img, 1.0, 2.0, "HWC"), T.RandomCrop(2)(img)
    np.testing.assert_array_equal(img, before)


def test_pil_images_come_back_as_pil_images():
    Image = pytest.importorskip("PIL.Image")
    ImageEnhance = pytest.importorskip("PIL.ImageEnhance")
    ImageOps = pytest.importorskip("PIL.ImageOps")
    img = rgb(6, 9)
    pil = Image.fromarray(img)
    # geometry against Pillow's own operations
    expected = {
        "hflip": (F.hflip(pil), pil.transpose(Image.Transpose.FLIP_LEFT_RIGHT)),
        "vflip": (F.vflip(pil), pil.transpose(Image.Transpose.FLIP_TOP_BOTTOM)),
        "crop": (F.crop(pil, 1, 2, 4, 5), pil.crop((2, 1, 7, 5))),
        "pad": (F.pad(pil, (2, 1), fill=7), ImageOps.expand(pil, (2, 1, 2, 1), fill=(7, 7, 7))),
        "rotate90": (F.rotate(pil, 90, expand=True), pil.transpose(Image.Transpose.ROTATE_90)),
        "brightness": (F.adjust_brightness(pil, 0.55), ImageEnhance.Brightness(pil).enhance(0.55)),
    }
    for name, (got, want) in expected.items():
        assert isinstance(got, Image.Image), name
        assert (got.mode, got.size) == (want.mode, want.size), name
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=name)
    # size is (width, height) as PIL has it; one channel is an 'L' image
    assert F.resize(pil, (3, 4)).size == (4, 3)
    gray = F.to_grayscale(pil)
    assert gray.mode == "L" and np.asarray(gray).shape == (6, 9)
    assert np.asarray(T.Grayscale()(pil)).shape == (6, 9)
    assert F.to_grayscale(pil, 3).mode == "RGB"
    # a palette image keeps its palette
    palette = pil.convert("P")
    flipped = F.hflip(palette)
    assert flipped.mode == "P" and flipped.getpalette() == palette.getpalette()
    np.testing.assert_array_equal(np.asarray(flipped), np.asarray(palette)[:, ::-1])
    # functions that end in a Tensor or an array still do
    np.testing.assert_allclose(T.ToTensor()(pil).numpy(), img.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    assert isinstance(F.normalize(pil, 0.5, 0.5, "HWC"), np.ndarray)


@pytest.mark.parametrize("module", [F, T.transforms], ids=["functional", "transforms"])
def test_docstring_examples_run(module):
    failures, _ = doctest.testmod(module, extraglobs={"eager": eager, "np": np, "F": F, "T": T.transforms},
                                  optionflags=doctest.ELLIPSIS)
    assert failures == 0


def test_random_transforms_on_tensor_images_match_the_numpy_path():
    img = rgb(6, 6, dtype=np.float32)
    chw = eager.to_tensor(img.transpose(2, 0, 1).copy())
    t = T.Compose([T.RandomCrop(5, padding=1, padding_mode="reflect"), T.RandomHorizontalFlip(),
                   T.RandomVerticalFlip()])
    for seed in range(5):
        eager.seed(seed)
        from_array = t(img)
        eager.seed(seed)
        from_tensor = t(chw)
        np.testing.assert_array_equal(from_tensor.numpy().transpose(1, 2, 0), from_array)


# -- rotate -----------------------------------------------------------------------------------

@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_rotate_by_multiples_of_90_degrees_is_rot90(interpolation):
    square = rgb(5, 5)
    tall = rgb(4, 7, seed=1)
    for k in range(-1, 5):
        np.testing.assert_array_equal(F.rotate(square, 90 * k, interpolation), np.rot90(square, k))
        np.testing.assert_array_equal(F.rotate(tall, 90 * k, interpolation, expand=True), np.rot90(tall, k))
    np.testing.assert_array_equal(F.rotate(tall, 0, interpolation), tall)
    np.testing.assert_array_equal(F.rotate(tall, 360, interpolation), tall)
    np.testing.assert_array_equal(F.rotate(tall[..., 0], 90, interpolation, expand=True), np.rot90(tall[..., 0]))


def test_rotate_moves_a_pixel_where_the_rotation_puts_it():
    # 9x9, centre at pixel (4, 4); the pixel 4 to the right of it, turned 30 degrees counter-clockwise,
    # lands at (4 cos 30, -4 sin 30) = (3.46, -2) from the centre: row 2, column 7 (nearest).
    img = np.zeros((9, 9), np.uint8)
    img[4, 8] = 200
    out = F.rotate(img, 30)
    lit = np.argwhere(out == 200)
    assert out[2, 7] == 200 and (out[out != 200] == 0).all()
    assert (np.abs(lit - [2, 7]).max(axis=1) <= 1).all()   # nearest may copy it to a neighbour, no farther
    # and with an explicit centre at the upper-left pixel's centre, 90 degrees takes (row 0, col 3) to (row -3 ...),
    # outside: only the fill remains where nothing maps in
    out = F.rotate(img, 90, center=(0.5, 0.5), fill=7)
    assert out[0, 0] == 0 and out[8, 8] == 7


def test_rotate_fill_expand_size_and_per_channel_fill():
    img = np.full((4, 6, 3), 100, np.uint8)
    out = F.rotate(img, 45, expand=True, fill=(1, 2, 3))
    side = (4 + 6) / np.sqrt(2)                        # the bounding box of a 4x6 box turned by 45 degrees
    assert out.shape == (int(np.ceil(side)), int(np.ceil(side)), 3)
    assert out[0, 0].tolist() == [1, 2, 3] and out[out.shape[0] // 2, out.shape[1] // 2].tolist() == [100] * 3
    same = F.rotate(img, 45, fill=5)
    assert same.shape == img.shape and same[0, 0].tolist() == [5] * 3


def test_rotate_bilinear_against_torch_grid_sample():
    torch = pytest.importorskip("torch")
    img = rgb(6, 8, dtype=np.float64)
    angle, (h, w) = 33.0, img.shape[:2]
    ours = F.rotate(img, angle, "bilinear")
    c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    theta = torch.tensor([[[c, -s * h / w, 0.0], [s * w / h, c, 0.0]]], dtype=torch.float64)
    grid = torch.nn.functional.affine_grid(theta, (1, 3, h, w), align_corners=False)
    ref = torch.nn.functional.grid_sample(torch.from_numpy(img.transpose(2, 0, 1).copy())[None], grid,
                                          mode="bilinear", padding_mode="zeros", align_corners=False)
    np.testing.assert_allclose(ours, ref[0].numpy().transpose(1, 2, 0), atol=1e-9)


@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_rotate_of_a_tensor_matches_the_numpy_rotate_and_passes_gradients(interpolation):
    img = rgb(5, 6, dtype=np.float32)
    chw = eager.to_tensor(img.transpose(2, 0, 1).copy(), stop_gradient=False)
    out = F.rotate(chw, 25, interpolation, expand=True, fill=3.0)
    # The Tensor path blends as Paddle's (grid_sample, then img * mask + (1 - mask) * fill): the sample
    # reaching past the border is scaled by the inside share ``mask`` once more; NumPy's is OpenCV's blend.
    sampled = F.rotate(img.astype(np.float64), 25, interpolation, True, fill=0.0)
    mask = F.rotate(np.ones(img.shape[:2]), 25, interpolation, True, fill=0.0)[:, :, None]
    np.testing.assert_allclose(out.numpy().transpose(1, 2, 0), sampled * mask + (1 - mask) * 3.0,
                               rtol=1e-5, atol=1e-4)
    out.sum().backward()
    assert chw.grad is not None and float(chw.grad.numpy().sum()) > 0


# -- colour -------------------------------------------------------------------------------------

def test_to_grayscale_uses_paddles_weights():
    img = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [10, 20, 30]]], np.uint8)
    out = F.to_grayscale(img)
    assert out.shape == (1, 4, 1) and out.dtype == np.uint8
    # 0.299 * 255 = 76.2, 0.587 * 255 = 149.7, 0.114 * 255 = 29.1, 2.99 + 11.74 + 3.42 = 18.15
    assert out[..., 0].tolist() == [[76, 150, 29, 18]]
    three = T.Grayscale(3)(img)
    assert three.shape == (1, 4, 3) and (three == out).all()
    f = img.astype(np.float32) / 255
    np.testing.assert_allclose(F.to_grayscale(f)[..., 0], f @ np.array([0.299, 0.587, 0.114]), rtol=1e-6)
    tensor = F.to_grayscale(eager.to_tensor(f.transpose(2, 0, 1).copy()), 3)
    assert tensor.shape == [3, 1, 4]
    # Paddle's Tensor backend weighs red by 0.2989 (its NumPy/PIL backends by 0.299)
    np.testing.assert_allclose(tensor.numpy()[1], f @ np.array([0.2989, 0.587, 0.114]), rtol=1e-6)


def test_adjust_brightness_scales_and_clips():
    img = np.array([[0, 10, 100, 200]], np.uint8)
    np.testing.assert_array_equal(F.adjust_brightness(img, 1.0), img)
    assert F.adjust_brightness(img, 0.0).tolist() == [[0, 0, 0, 0]]
    assert F.adjust_brightness(img, 2.0).tolist() == [[0, 20, 200, 255]]
    assert F.adjust_brightness(img, 0.25).tolist() == [[0, 2, 25, 50]]
    assert F.adjust_brightness(np.array([[3, 5, 61]], np.uint8), 1.5).tolist() == [[4, 7, 91]]   # truncated
    t = F.adjust_brightness(eager.to_tensor(np.array([[[3, 5, 61]]], np.uint8)), 1.5)
    assert t.dtype == eager.uint8 and t.numpy().tolist() == [[[4, 7, 91]]]
    f = np.array([[0.2, 0.6]])
    np.testing.assert_allclose(F.adjust_brightness(f, 2.0), [[0.4, 1.0]])


def test_adjust_contrast_blends_with_the_rounded_mean_grey():
    img = rgb(3, 4)
    mean = np.rint((img.astype(float) @ np.array([0.299, 0.587, 0.114])).mean())
    for factor in (0.0, 0.5, 1.7):
        expected = np.clip(np.rint(factor * img + (1 - factor) * mean), 0, 255)
        np.testing.assert_array_equal(F.adjust_contrast(img, factor), expected)
    np.testing.assert_array_equal(F.adjust_contrast(img, 1.0), img)
    grey = np.array([[0.2, 0.4], [0.6, 0.8]])                         # one channel: its own mean, not rounded
    np.testing.assert_allclose(F.adjust_contrast(grey, 0.5), 0.5 * grey + 0.25)


def test_adjust_saturation_zero_is_grey_and_one_is_identity():
    img = rgb(4, 5)
    np.testing.assert_array_equal(F.adjust_saturation(img, 1.0), img)
    np.testing.assert_array_equal(F.adjust_saturation(img, 0.0), F.to_grayscale(img, 3))
    f = img / 255.0
    gray = (f @ np.array([0.299, 0.587, 0.114]))[..., None]
    np.testing.assert_allclose(F.adjust_saturation(f, 1.5), np.clip(1.5 * f - 0.5 * gray, 0, 1), atol=1e-12)
    single = img[..., :1]
    assert F.adjust_saturation(single, 0.0) is single


def hue_loop(img, factor):
    """Per pixel through the standard library's colorsys."""
    out = np.empty_like(img, dtype=np.float64)
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            h, s, v = colorsys.rgb_to_hsv(*img[i, j])
            out[i, j] = colorsys.hsv_to_rgb((h + factor) % 1.0, s, v)
    return out


@pytest.mark.parametrize("factor", [-0.5, -0.3, 0.1, 1 / 6, 0.45])
def test_adjust_hue_matches_colorsys(factor):
    img = rgb(4, 6, seed=2) / 255.0
    img[0, :3] = [[0.5, 0.5, 0.5], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]    # grey, a primary, black
    np.testing.assert_allclose(F.adjust_hue(img, factor), hue_loop(img, factor), atol=1e-12)


def test_adjust_hue_identities():
    img = rgb(4, 6, seed=3)
    np.testing.assert_array_equal(F.adjust_hue(img, 0.0), img)            # through HSV and back, exact in uint8
    f = img / 255.0
    np.testing.assert_allclose(F.adjust_hue(F.adjust_hue(f, 0.5), 0.5), f, atol=1e-12)   # a whole turn
    np.testing.assert_allclose(F.adjust_hue(f, 0.5), F.adjust_hue(f, -0.5), atol=1e-12)
    np.testing.assert_allclose(F.adjust_hue(F.adjust_hue(f, 0.3), -0.3), f, atol=1e-12)
    assert F.adjust_hue(np.array([[[255, 0, 0]]], np.uint8), 1 / 3).tolist() == [[[0, 255, 0]]]


@pytest.mark.parametrize("name, factor", [("adjust_brightness", 1.3), ("adjust_contrast", 0.6),
                                          ("adjust_saturation", 1.7), ("adjust_hue", -0.2)])
def test_colour_functions_on_tensors_match_the_numpy_ones(name, factor):
    img = rgb(4, 5, seed=4) / 255.0
    fn = getattr(F, name)
    x = eager.to_tensor(img.transpose(2, 0, 1).astype(np.float32), stop_gradient=False)
    out = fn(x, factor)
    want = fn(img, factor)
    if name in ("adjust_contrast", "adjust_saturation"):
        # the Tensor path greys with Paddle's Tensor weights (0.2989 for red; NumPy's 0.299)
        gray = (img @ np.array([0.2989, 0.587, 0.114]))[..., None]
        want = np.clip(factor * img + (1 - factor) * (gray.mean() if name == "adjust_contrast" else gray), 0, 1)
    np.testing.assert_allclose(out.numpy().transpose(1, 2, 0), want, atol=2e-6)
    out.sum().backward()
    assert x.grad is not None
    u8 = eager.to_tensor(rgb(4, 5, seed=4).transpose(2, 0, 1).copy())
    out8 = fn(u8, factor)
    assert out8.dtype == u8.dtype
    assert np.abs(out8.numpy().transpose(1, 2, 0).astype(int) - fn(rgb(4, 5, seed=4), factor)).max() <= 1


# -- random transforms added in round 3 -----------------------------------------------------

def coded(h, w):
    """A float image whose value names its pixel: 100 * row + column, in every channel."""
    return np.repeat((100.0 * np.arange(h)[:, None] + np.arange(w))[..., None], 3, axis=2)


def test_random_resized_crop_gives_the_size_and_a_box_of_the_image():
    img = coded(20, 30)
    t = T.RandomResizedCrop((6, 8), scale=(0.1, 0.9), ratio=(0.5, 2.0), interpolation="nearest")
    eager.seed(5)
    for _ in range(30):
        out = t(img)
        assert out.shape == (6, 8, 3)
        top, left, h, w = t.params["box"]
        assert 0 <= top and top + h <= 20 and 0 <= left and left + w <= 30
        rows, cols = np.divmod(out[..., 0].astype(int), 100)
        assert rows.min() >= top and rows.max() < top + h and cols.min() >= left and cols.max() < left + w
        assert rows.min() == top and cols.min() == left                  # nearest keeps the first row and column
        # the box's area and shape follow scale and ratio (up to the rounding of its sides)
        assert 0.1 * 600 * 0.8 <= h * w <= 0.9 * 600 * 1.2
        assert 0.5 * 0.8 <= w / h <= 2.0 * 1.25
    assert T.RandomResizedCrop(5)(rgb(9, 9)).shape == (5, 5, 3)


def test_random_resized_crop_falls_back_to_the_centre_box():
    t = T.RandomResizedCrop(4, scale=(2.0, 3.0), ratio=(1.0, 1.0))     # no draw fits: centre box, ratio 1
    out = t(coded(10, 40))
    assert t.params["box"] == (0, 15, 10, 10) and out.shape == (4, 4, 3)
    t = T.RandomResizedCrop(4, scale=(2.0, 3.0))                       # a ratio inside the range: the whole image
    t(coded(10, 11))
    assert t.params["box"] == (0, 0, 10, 11)


def test_random_rotation_draws_its_angle_in_degrees():
    eager.seed(2)
    t = T.RandomRotation(30)
    img = rgb(5, 5)
    angles = []
    for _ in range(50):
        t(img)
        angles.append(t.params["angle"])
    assert -30 <= min(angles) < -15 and 15 < max(angles) <= 30
    t = T.RandomRotation((10, 20), interpolation="bilinear", expand=True, fill=9)
    out = t(img)
    np.testing.assert_array_equal(out, F.rotate(img, t.params["angle"], "bilinear", True, None, 9))
    np.testing.assert_array_equal(T.RandomRotation((90, 90))(img), np.rot90(img))


def test_colour_transforms_draw_factors_in_paddles_ranges():
    eager.seed(11)
    img = rgb(3, 3)
    for t, low, high in [(T.BrightnessTransform(0.4), 0.6, 1.4), (T.ContrastTransform(2.0), 0.0, 3.0),
                         (T.SaturationTransform((0.5, 0.7)), 0.5, 0.7), (T.HueTransform(0.2), -0.2, 0.2)]:
        factors = []
        for _ in range(40):
            out = t(img)
            factors.append(t.params["factor"])
            np.testing.assert_array_equal(out, t._adjust(img, factors[-1]))
        assert low <= min(factors) < low + (high - low) / 4 and high - (high - low) / 4 < max(factors) <= high
    for t in (T.BrightnessTransform(0), T.HueTransform(0), T.ColorJitter()):
        assert t(img) is img


def test_color_jitter_applies_each_part_once_in_a_random_order():
    img = rgb(4, 4, seed=6)
    t = T.ColorJitter(0.3, 0.3, 0.3, 0.1)
    adjust = [F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue]
    eager.seed(4)
    orders = set()
    for _ in range(30):
        out = t(img)
        steps = t.params["steps"]
        assert sorted(k for k, _ in steps) == [0, 1, 2, 3]
        orders.add(tuple(k for k, _ in steps))
        expected = img
        for k, factor in steps:
            expected = adjust[k](expected, factor)
        np.testing.assert_array_equal(out, expected)
    assert len(orders) > 5
    only_brightness = T.ColorJitter(brightness=0.5)
    out = only_brightness(img)
    factor = [f for k, f in only_brightness.params["steps"] if k == 0][0]
    np.testing.assert_array_equal(out, F.adjust_brightness(img, factor))


def erased_box(before, after):
    """The bounding box of the changed pixels, and whether it is filled completely."""
    changed = (before != after).any(axis=-1)
    rows, cols = np.nonzero(changed)
    top, left, h, w = rows.min(), cols.min(), np.ptp(rows) + 1, np.ptp(cols) + 1
    return (top, left, h, w), changed[top:top + h, left:left + w].all() and changed.sum() == h * w


def test_random_erasing_sets_one_box_to_the_value():
    img = np.full((20, 24, 3), 50, np.uint8)
    before = img.copy()
    eager.seed(8)
    t = T.RandomErasing(prob=1.0, value=(1, 2, 3))
    for _ in range(20):
        out = t(img)
        box, full = erased_box(img, out)
        assert full and box == tuple(t.params["box"])
        top, left, h, w = box
        assert (out[top:top + h, left:left + w] == [1, 2, 3]).all()
        assert 0.02 * 480 * 0.7 <= h * w <= 0.33 * 480 * 1.3 and 0.3 * 0.7 <= h / w <= 3.3 * 1.3
    np.testing.assert_array_equal(img, before)                         # not inplace: the input is kept
    assert T.RandomErasing(prob=0.0)(img) is img
    out = T.RandomErasing(prob=1.0, value="random")(img.astype(np.float32))
    top, left, h, w = erased_box(img, out)[0]
    assert len(np.unique(out[top:top + h, left:left + w])) > 3
    T.RandomErasing(prob=1.0, value=0, inplace=True)(img)
    assert (img == 0).any()                                           # inplace writes the input


def test_random_erasing_on_tensors_is_chw_and_keeps_other_gradients():
    img = rgb(10, 12, seed=9).astype(np.float32)
    x = eager.to_tensor(img.transpose(2, 0, 1).copy(), stop_gradient=False)
    t = T.RandomErasing(prob=1.0, value=[7.0, 8.0, 9.0])
    eager.seed(3)
    out = t(x)
    eager.seed(3)
    ref = t(img)
    np.testing.assert_array_equal(out.numpy().transpose(1, 2, 0), ref)
    out.sum().backward()
    top, left, h, w = t.params["box"]
    grad = x.grad.numpy()
    assert (grad[:, top:top + h, left:left + w] == 0).all() and grad.sum() == 3 * (120 - h * w)


def test_new_random_transforms_repeat_after_eager_seed():
    img = rgb(12, 12, seed=10)
    t = T.Compose([T.RandomResizedCrop(8), T.RandomRotation(20, interpolation="bilinear"),
                   T.ColorJitter(0.4, 0.4, 0.4, 0.1), T.RandomErasing(prob=0.7, value="random")])
    eager.seed(99)
    first = [t(img) for _ in range(10)]
    eager.seed(99)
    second = [t(img) for _ in range(10)]
    assert all(np.array_equal(a, b) for a, b in zip(first, second))
    assert len({a.tobytes() for a in first}) == 10
    assert all(a.dtype == np.uint8 and a.shape == (8, 8, 3) for a in first)


def test_paired_keys_share_the_crop_and_rotation():
    img = coded(10, 10)
    for t in (T.RandomResizedCrop(6, interpolation="nearest", keys=("image", "mask")),
              T.RandomRotation(40, keys=("image", "mask"))):
        for _ in range(5):
            a, m = t((img, img.copy()))
            np.testing.assert_array_equal(a, m)                        # nearest both ways here


@pytest.mark.parametrize("make, error, match", [
    (lambda: T.RandomResizedCrop(0), ValueError, "RandomResizedCrop: argument 'size'"),
    (lambda: T.RandomResizedCrop(4, scale=(0.9, 0.1)), ValueError, "RandomResizedCrop: argument 'scale'"),
    (lambda: T.RandomResizedCrop(4, ratio=(0, 1)), ValueError, "RandomResizedCrop: argument 'ratio'"),
    (lambda: T.RandomResizedCrop(4, interpolation="cubic"), ValueError, "RandomResizedCrop: argument 'interp"),
    (lambda: T.RandomRotation(-5), ValueError, "RandomRotation: argument 'degrees'"),
    (lambda: T.RandomRotation((1, 2, 3)), ValueError, "RandomRotation: argument 'degrees'"),
    (lambda: T.RandomRotation(5, interpolation="bicubic"), ValueError, "RandomRotation: argument 'interpolation'"),
    (lambda: T.Grayscale(2), ValueError, "Grayscale: argument 'num_output_channels' expected 1 or 3, got 2"),
    (lambda: T.BrightnessTransform(-0.1), ValueError, "BrightnessTransform: argument 'value'"),
    (lambda: T.HueTransform(0.6), ValueError, r"HueTransform: argument 'value' gives the range \[-0.6, 0.6\]"),
    (lambda: T.ColorJitter(contrast=(2, 1)), ValueError, "ColorJitter: argument 'contrast'"),
    (lambda: T.ColorJitter(hue=0.7), ValueError, r"ColorJitter: argument 'hue' gives the range \[-0.7, 0.7\]"),
    (lambda: T.RandomErasing(prob=2), ValueError, "RandomErasing: argument 'prob'"),
    (lambda: T.RandomErasing(scale=(0.1, 1.5)), ValueError, "RandomErasing: argument 'scale'"),
    (lambda: T.RandomErasing(value="noise"), ValueError, "RandomErasing: argument 'value'"),
    (lambda: T.RandomErasing(value=(1, 2)), ValueError, "RandomErasing: argument 'value'"),
    (lambda: F.rotate(rgb(), "90"), TypeError, "rotate: argument 'angle'"),
    (lambda: F.rotate(rgb(), 9, center=(1,)), ValueError, "rotate: argument 'center'"),
    (lambda: F.rotate(rgb(), 9, fill=(1, 2)), ValueError, "rotate: argument 'fill' has 2 values"),
    (lambda: F.adjust_hue(rgb(), 0.7), ValueError, r"adjust_hue: argument 'hue_factor' expected a number in \[-0.5"),
    (lambda: F.adjust_brightness(rgb(), -1), ValueError, "adjust_brightness: argument 'brightness_factor'"),
    (lambda: F.adjust_contrast(rgb(), None), ValueError, "adjust_contrast: argument 'contrast_factor'"),
    (lambda: F.to_grayscale(rgb()[..., :2]), ValueError, r"to_grayscale: argument 'img' expected an RGB image"),
    (lambda: F.adjust_saturation(rgb()[..., :2], 2), ValueError, "adjust_saturation: argument 'img'"),
    (lambda: F.erase(rgb(), 4, 0, 2, 2, 0), ValueError, "erase: the box"),
    (lambda: F.erase(rgb(), 0, 0, 2, 2, np.zeros((3, 3))), ValueError, "erase: argument 'v'"),
    (lambda: F.erase(rgb(), 0, 0, 2, 2, "x"), TypeError, "erase: argument 'v'"),
])
def test_bad_arguments_of_the_new_transforms_raise_clear_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()


# -- affine and perspective ---------------------------------------------------------------------

def test_affine_rotation_is_a_clockwise_rotate_and_translation_shifts():
    img = rgb(6, 6, seed=12)
    for angle in (0, 30, 90, -45):
        np.testing.assert_array_equal(F.affine(img, angle, (0, 0), 1.0, 0), F.rotate(img, -angle))
    np.testing.assert_array_equal(F.affine(img, -90, (0, 0), 1.0, 0), np.rot90(img))
    shifted = F.affine(img, 0, (2, -1), 1.0, 0, fill=9)               # content moves 2 right, 1 up
    np.testing.assert_array_equal(shifted[:5, 2:], img[1:, :4])
    assert (shifted[:, :2] == 9).all() and (shifted[5] == 9).all()


def test_affine_scale_and_shear_move_points_as_their_matrices_say():
    img = np.arange(16.0).reshape(4, 4)
    # scale 2 about the centre (2, 2): output pixel (0, 0) at (0.5, 0.5) comes from (1.25, 1.25), pixel (1, 1)
    assert F.affine(img, 0, (0, 0), 2.0, 0)[0, 0] == img[1, 1]
    # scale 1/2 of a 5x5 about (2.5, 2.5): output (1, 1) at (1.5, 1.5) comes from (0.5, 0.5), pixel (0, 0);
    # output (1, 3) from (4.5, 0.5), pixel (0, 4); output (0, 0) from (-1.5, -1.5), outside
    five = np.arange(25.0).reshape(5, 5)
    small = F.affine(five, 0, (0, 0), 0.5, 0, fill=-1)
    np.testing.assert_array_equal(small[np.ix_([1, 3], [1, 3])], five[np.ix_([0, 4], [0, 4])])
    assert small[2, 2] == five[2, 2] and small[0, 0] == -1 and small[4, 4] == -1
    # an x shear of 45 degrees maps (dx, dy) to (dx - dy, dy): the row below the centre moves one pixel left
    big = np.zeros((5, 5))
    big[3, 2] = 1.0                                                    # dx = 0, dy = 1 from the centre (2.5, 2.5)
    out = F.affine(big, 0, (0, 0), 1.0, 45)
    assert out[3, 1] == 1.0 and out.sum() == 1.0
    big = np.zeros((5, 5))
    big[2, 3] = 1.0                                                    # dx = 1, dy = 0: a y shear moves it up
    out = F.affine(big, 0, (0, 0), 1.0, (0, 45))
    assert out[1, 3] == 1.0 and out.sum() == 1.0


def test_affine_against_torch_grid_sample():
    torch = pytest.importorskip("torch")
    img = rgb(6, 8, seed=13, dtype=np.float64)
    h, w = img.shape[:2]
    angle, (tx, ty), scale, (shx, shy) = 20.0, (1.5, -0.5), 1.2, (10.0, -5.0)
    ours = F.affine(img, angle, (tx, ty), scale, (shx, shy), "bilinear")
    a, sx, sy = np.radians([angle, shx, shy])
    forward = scale * (np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
                       @ np.array([[1, 0], [-np.tan(sy), 1]]) @ np.array([[1, -np.tan(sx)], [0, 1]]))
    inv = np.linalg.inv(forward)
    # to normalised coordinates (x / (w/2), y / (h/2)) about the centre, the translation included
    norm = np.diag([2.0 / w, 2.0 / h])
    theta = np.zeros((2, 3))
    theta[:, :2] = norm @ inv @ np.linalg.inv(norm)
    theta[:, 2] = -(norm @ inv @ np.array([tx, ty]))
    grid = torch.nn.functional.affine_grid(torch.from_numpy(theta)[None], (1, 3, h, w), align_corners=False)
    ref = torch.nn.functional.grid_sample(torch.from_numpy(img.transpose(2, 0, 1).copy())[None], grid,
                                          mode="bilinear", padding_mode="zeros", align_corners=False)
    np.testing.assert_allclose(ours, ref[0].numpy().transpose(1, 2, 0), atol=1e-9)


def test_perspective_identities_and_corner_mapping():
    img = rgb(6, 6, seed=14)
    corners = [[0, 0], [6, 0], [6, 6], [0, 6]]
    np.testing.assert_array_equal(F.perspective(img, corners, corners), img)
    turned = [[0, 6], [0, 0], [6, 0], [6, 6]]                          # each corner to the next, counter-clockwise
    np.testing.assert_array_equal(F.perspective(img, corners, turned), np.rot90(img))
    np.testing.assert_array_equal(F.perspective(img, corners, [[x + 2, y] for x, y in corners], fill=0)[:, 2:],
                                  img[:, :4])
    # a true projective map: each corner pixel lands on its end point's pixel
    code = coded(12, 12)
    start = [[0.5, 0.5], [11.5, 0.5], [11.5, 11.5], [0.5, 11.5]]
    end = [[2.5, 1.5], [10.5, 3.5], [9.5, 11.5], [1.5, 8.5]]
    out = F.perspective(code, start, end)
    for (sx, sy), (ex, ey) in zip(start, end):
        assert out[int(ey), int(ex), 0] == code[int(sy), int(sx), 0]
    chw = eager.to_tensor(code.transpose(2, 0, 1).astype(np.float32))
    # the Tensor path scales border samples by the inside share once more, as Paddle's (see rotate's test)
    mask = F.perspective(np.ones((12, 12)), start, end, "bilinear")[:, :, None]
    np.testing.assert_allclose(F.perspective(chw, start, end, "bilinear").numpy().transpose(1, 2, 0),
                               F.perspective(code.astype(np.float64), start, end, "bilinear") * mask,
                               rtol=1e-5, atol=1e-3)


def test_random_affine_draws_its_parameters_in_range():
    img = rgb(10, 20, seed=15)
    t = T.RandomAffine(10, translate=(0.2, 0.1), scale=(0.8, 1.2), shear=(-5, 5, 2, 4))
    eager.seed(6)
    for _ in range(30):
        out = t(img)
        p = t.params
        assert -10 <= p["angle"] <= 10 and 0.8 <= p["scale"] <= 1.2
        assert abs(p["translate"][0]) <= 4 and abs(p["translate"][1]) <= 1
        assert isinstance(p["translate"][0], int)
        assert -5 <= p["shear"][0] <= 5 and 2 <= p["shear"][1] <= 4
        np.testing.assert_array_equal(out, F.affine(img, p["angle"], p["translate"], p["scale"], p["shear"]))
    assert T.RandomAffine(0)(img) is not img and np.array_equal(T.RandomAffine(0)(img), img)


def test_random_perspective_moves_corners_inwards():
    img = coded(10, 16)
    t = T.RandomPerspective(prob=1.0, distortion_scale=0.5)
    eager.seed(7)
    for _ in range(20):
        out = t(img)
        start, end = t.params["points"]
        assert start == [[0, 0], [15, 0], [15, 9], [0, 9]]
        offsets = np.abs(np.array(end) - np.array(start))
        assert (offsets[:, 0] <= 4).all() and (offsets[:, 1] <= 2).all()
        np.testing.assert_array_equal(out, F.perspective(img, start, end))
    assert T.RandomPerspective(prob=0.0)(img) is img
    eager.seed(1)
    a = [T.RandomPerspective(0.5)(img) for _ in range(6)]
    eager.seed(1)
    b = [T.RandomPerspective(0.5)(img) for _ in range(6)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("make, error, match", [
    (lambda: F.affine(rgb(), 0, (1,), 1.0, 0), ValueError, "affine: argument 'translate' expected a pair"),
    (lambda: F.affine(rgb(), 0, (0, 0), 0.0, 0), ValueError, "affine: argument 'scale' expected a positive"),
    (lambda: F.affine(rgb(), 0, (0, 0), 1.0, "x"), TypeError, "affine: argument 'shear'"),
    (lambda: F.affine(rgb(), None, (0, 0), 1.0, 0), TypeError, "affine: argument 'angle'"),
    (lambda: F.perspective(rgb(), [[0, 0]] * 3, [[0, 0]] * 4), ValueError, "perspective: argument 'startpoints'"),
    (lambda: F.perspective(rgb(), [[0, 0], [1, 0], [1, 1], [0, 1]], [[0, 0], [1, 1], [2, 2], [3, 3]]), ValueError,
     "perspective: the points"),
    (lambda: T.RandomAffine(-1), ValueError, "RandomAffine: argument 'degrees'"),
    (lambda: T.RandomAffine(5, translate=(0.5, 2)), ValueError, "RandomAffine: argument 'translate'"),
    (lambda: T.RandomAffine(5, scale=(0, 1)), ValueError, "RandomAffine: argument 'scale'"),
    (lambda: T.RandomAffine(5, shear=(1, 2, 3)), ValueError, "RandomAffine: argument 'shear'"),
    (lambda: T.RandomPerspective(distortion_scale=1.5), ValueError, "RandomPerspective: argument 'distortion_scale'"),
    (lambda: T.RandomPerspective(interpolation="bicubic"), ValueError, "RandomPerspective: argument 'interpolation'"),
])
def test_bad_arguments_of_affine_and_perspective_raise_clear_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()
