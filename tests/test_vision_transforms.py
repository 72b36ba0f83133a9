"""eager.vision.transforms: values against hand-written references (per-pixel
loops, np.pad's documented examples, formulas), torch where installed, and the
seeding contract of the random transforms."""
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
    (lambda: T.ToTensor(keys=("image", "boxes")), "ToTensor: key 'boxes' is not supported"),
])
def test_bad_arguments_raise_clear_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()


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
        F.to_tensor(eager.ones([3, 2, 2]))
    F.hflip(img), F.resize(img, 3), F.normalize(img, 1.0, 2.0, "HWC"), T.RandomCrop(2)(img)
    np.testing.assert_array_equal(img, before)


def test_pil_images_are_read_as_arrays():
    Image = pytest.importorskip("PIL.Image")
    img = rgb()
    pil = Image.fromarray(img)
    np.testing.assert_array_equal(F.hflip(pil), img[:, ::-1])
    np.testing.assert_allclose(T.ToTensor()(pil).numpy(), img.transpose(2, 0, 1) / 255.0, rtol=1e-6)


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
