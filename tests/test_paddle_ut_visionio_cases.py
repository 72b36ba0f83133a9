"""Regression cases found by re-telling Paddle's own unit tests of vision, io,
metric, jit and incubate (test/legacy_test/test_transforms.py, ...) against
eager, each checked with the real Paddle 2.6.2.

Found and fixed:
- vision.transforms: a batch of Tensor images (N x C x H x W) was refused by
  hflip, vflip, normalize, to_grayscale, adjust_brightness/contrast/
  saturation/hue, affine, perspective and erase, and so by ColorJitter,
  RandomAffine, RandomPerspective and RandomErasing; Paddle 2.6.2 transforms
  each image alike (test_transforms: TestFunctional.test_batch_input,
  TestTransformsTensor.test_color_jitter/test_perspective/test_affine/
  test_erase).
- rotate(expand=True) gave a box one pixel smaller than Paddle's (28x24 by 80
  degrees: 29x32, Paddle 30x32) and ignored a custom centre's translation in
  the size; now Paddle's rule (ceil(max) - floor(min) of the turned corners),
  with exact quarter turns kept (test_transforms: test_rotate).
- pad(img, 1, padding_mode=-1) raised ValueError; Paddle raises TypeError for a
  padding_mode that is not a string (test_transforms: test_exception).
- BrightnessTransform('0.1') (and the other colour transforms given a string
  or a list of another length) raised ValueError; Paddle raises TypeError.
- A transform's unsupported key (keys=('image', 'boxes'), or a string keys='a'
  read as one-letter keys) raised ValueError; Paddle raises
  NotImplementedError ("unsupported data structure").
- MobileNetV1 and MobileNetV3Small/Large were built with an older Paddle's
  layout (ConvBNLayer `_conv`/`_norm_layer`, a 1x1 `last_conv` head), so a
  state dict saved by Paddle 2.6.2 did not load: now Paddle 2.6.2's
  ConvNormActivation blocks (`conv1.0.weight`), its squeeze-excitation
  (fc1/fc2, hardsigmoid), BatchNorm(epsilon=0.001, momentum=0.99), no
  expansion conv where a block does not widen, and the Linear-Hardswish-
  Dropout-Linear classifier (test_vision_models, state dicts from 2.6.2).
- jit InputSpec(3) (an int shape) was taken as [3]; Paddle raises TypeError
  (the shape is a list or tuple).
- jit.load of a path with no saved program raised FileNotFoundError; Paddle
  raises ValueError: now ModelNotFoundError, both.
- resize(pil_image, ..., 'nearest') took OpenCV's floor(dst * in / out) rows
  and columns; Paddle resizes a PIL image with Pillow, whose NEAREST takes the
  pixel under each output centre (stepped by repeated addition): whole rows
  and columns differed (test_transforms: test_resize, checked against
  Pillow itself and Paddle 2.6.2).
- to_tensor of a NumPy bool image gave float32; Paddle keeps bool (only a PIL
  '1' image becomes 0/1 floats).
- metric.accuracy took integer scores; Paddle's accuracy wants float16/32/64
  (TypeError in its check; its dygraph has no integer kernel)
  (test_accuracy_op: test_type_errors).
"""
import numpy as np
import pytest

import eager as paddle
from eager.vision import transforms as T
from eager.vision.transforms import functional as F

pytestmark = pytest.mark.usefixtures("device")


def _batch(seed=0):
    return np.random.RandomState(seed).rand(2, 3, 8, 8).astype("float32")


@pytest.mark.parametrize("name, call", [
    ("hflip", lambda x: F.hflip(x)),
    ("vflip", lambda x: F.vflip(x)),
    ("normalize", lambda x: F.normalize(x, [0.5, 0.4, 0.3], [0.5, 0.2, 0.1])),
    ("to_grayscale", lambda x: F.to_grayscale(x, 3)),
    ("adjust_brightness", lambda x: F.adjust_brightness(x, 2.1)),
    ("adjust_contrast", lambda x: F.adjust_contrast(x, 0.3)),
    ("adjust_saturation", lambda x: F.adjust_saturation(x, 1.1)),
    ("adjust_hue", lambda x: F.adjust_hue(x, -0.2)),
    ("affine", lambda x: F.affine(x, 45, translate=[0.2, 0.2], scale=0.5, shear=[-10, 10])),
    ("perspective", lambda x: F.perspective(x, [[0, 0], [3, 0], [4, 5], [6, 7]], [[0, 1], [3, 1], [4, 4], [5, 7]])),
    ("erase", lambda x: F.erase(x, 1, 1, 2, 2, 0.5)),
])
def test_functional_takes_a_batch_of_tensor_images_as_paddle(name, call):
    batch = paddle.to_tensor(_batch())
    out = call(batch)
    expected = np.stack([call(paddle.to_tensor(image)).numpy() for image in _batch()])
    assert out.shape == list(expected.shape)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=1e-6)


def test_erase_of_a_batch_sets_the_box_of_every_image():
    data = _batch()
    out = F.erase(paddle.to_tensor(data), 1, 2, 3, 2, [7.0, 8.0, 9.0]).numpy()
    expected = data.copy()
    expected[:, :, 1:4, 2:4] = np.array([7.0, 8.0, 9.0], np.float32)[:, None, None]
    np.testing.assert_array_equal(out, expected)
    x = paddle.to_tensor(data)
    assert F.erase(x, 0, 0, 2, 2, 0.0, inplace=True) is x
    assert float(x.numpy()[:, :, :2, :2].sum()) == 0.0


@pytest.mark.parametrize("transform", [
    lambda: T.ColorJitter(1.2, 0.2, 0.5, 0.2),
    lambda: T.RandomPerspective(prob=1.0, distortion_scale=0.7),
    lambda: T.RandomAffine(15, translate=[0.1, 0.1]),
    lambda: T.RandomErasing(prob=1.0, value=(0.5, 0.2, 0.01)),
    lambda: T.RandomErasing(prob=1.0, value="random"),
])
def test_random_transforms_take_a_batch_of_tensor_images_as_paddle(transform):
    out = transform()(paddle.to_tensor(_batch()))
    assert out.shape == [2, 3, 8, 8]


def test_a_batch_where_paddle_refuses_it_stays_an_error():
    with pytest.raises(ValueError, match="rotate: a Tensor image must be 3-D"):
        F.rotate(paddle.to_tensor(_batch()), 30)
    with pytest.raises(ValueError, match="adjust_hue"):
        F.adjust_hue(paddle.to_tensor(_batch()[None]), 0.1)


# sizes from Paddle 2.6.2 (its Tensor and PIL paths agree on these) for a 28x24 image
@pytest.mark.parametrize("angle, center, size", [
    (90, None, (24, 28)), (80, None, (30, 32)), (45, None, (38, 38)), (30, None, (38, 36)),
    (80, (0, 0), (29, 33)), (80, (10, 10), (29, 33)), (180, None, (28, 24)), (-37, (3, 20), (38, 37)),
])
def test_rotate_expand_size_as_paddle(angle, center, size):
    img = (np.random.RandomState(0).rand(28, 24, 3) * 255).astype("uint8")
    assert F.rotate(paddle.to_tensor(img.transpose(2, 0, 1)), angle, expand=True, center=center).shape == [3, *size]
    assert F.rotate(img, angle, expand=True, center=center).shape == (*size, 3)


def test_rotate_expand_about_a_corner_keeps_the_pixels_of_paddle():
    img = np.arange(28 * 24).reshape(1, 28, 24).astype("float32")
    out = F.rotate(paddle.to_tensor(img), 80, expand=True, center=[0, 0]).numpy()
    assert out.shape == (1, 29, 33)
    # values from Paddle 2.6.2 (its output equals eager's pixel for pixel): 82 pixels of the image stay in the box
    assert int((out > 0).sum()) == 82
    assert [float(out[0, r, c]) for r, c in [(0, 6), (0, 10), (1, 23), (4, 30), (14, 16)]] == [24, 121, 434, 624, 0]


def test_pad_mode_not_a_string_is_a_type_error():
    for img in (np.zeros((4, 5, 3), np.uint8), paddle.rand((3, 4, 5))):
        with pytest.raises(TypeError, match="pad: argument 'padding_mode'"):
            F.pad(img, 1, padding_mode=-1)
        with pytest.raises(ValueError, match="pad: argument 'padding_mode'"):
            F.pad(img, 1, padding_mode="wrap")


@pytest.mark.parametrize("cls", [T.BrightnessTransform, T.ContrastTransform, T.SaturationTransform, T.HueTransform])
def test_colour_transform_value_of_a_wrong_kind_is_a_type_error(cls):
    with pytest.raises(TypeError, match=f"{cls.__name__}: argument 'value'"):
        cls("0.1")
    with pytest.raises(TypeError, match=f"{cls.__name__}: argument 'value'"):
        cls([0.1, 0.2, 0.3])
    with pytest.raises(ValueError):
        cls(-1.0)


def test_unsupported_keys_are_not_implemented():
    with pytest.raises(NotImplementedError, match="keys"):
        T.BrightnessTransform(0.1, keys="a")
    with pytest.raises(NotImplementedError, match="'boxes' is not supported"):
        T.Pad(2, keys=("image", "boxes"))
    with pytest.raises(ValueError, match="keys"):
        T.BrightnessTransform(0.1, keys=1)


def test_accuracy_of_integer_scores_is_a_type_error():
    label = paddle.to_tensor(np.zeros((2, 1), "int64"))
    with pytest.raises(TypeError, match="accuracy: argument 'input' expected a float16, float32 or float64"):
        paddle.metric.accuracy(paddle.to_tensor(np.ones((2, 4), "int32")), label)
    scores = paddle.to_tensor(np.array([[0.2, 0.1, 0.4, 0.1, 0.1], [0.2, 0.3, 0.1, 0.15, 0.25]], "float64"))
    assert float(paddle.metric.accuracy(scores, paddle.to_tensor(np.array([[2], [0]], "int64")), k=1)) == 0.5


def _trainable(model):
    return sum(int(np.prod(p.shape)) for p in model.parameters() if not p.stop_gradient)


# key counts, keys and trainable parameter counts from Paddle 2.6.2
@pytest.mark.parametrize("build, n_keys, keys, n_params", [
    (lambda: paddle.vision.models.mobilenet_v1(scale=0.25, num_classes=10), 137,
     ["conv1.0.weight", "conv1.1._mean", "conv2_1._depthwise_conv.0.weight", "conv6._pointwise_conv.1._variance",
      "fc.weight"], None),
    (lambda: paddle.vision.models.mobilenet_v3_small(scale=0.5, num_classes=10), 210,
     ["conv.0.weight", "conv.1._mean", "blocks.0.bottleneck_conv.0.weight", "blocks.0.mid_se.fc1.weight",
      "lastconv.1._variance", "classifier.0.weight", "classifier.3.bias"], 409_394),
    (lambda: paddle.vision.models.mobilenet_v3_large(scale=0.75, num_classes=0, with_pool=False), 262,
     ["conv.0.weight", "blocks.1.expand_conv.0.weight", "lastconv.0.weight"], 1_724_416),
])
def test_mobilenet_state_dicts_are_paddle_262s(build, n_keys, keys, n_params):
    model = build()
    state = model.state_dict()
    assert len(state) == n_keys and set(keys) <= set(state)
    if n_params is not None:
        assert _trainable(model) == n_params


def test_mobilenet_v3_layers_as_paddle_262():
    model = paddle.vision.models.mobilenet_v3_small(num_classes=10)
    assert "blocks.0.expand_conv.0.weight" not in model.state_dict()      # 16 -> 16 channels: no expansion
    bn = model.conv[1]
    assert bn._epsilon == 0.001 and bn._momentum == 0.99
    assert model.blocks[0].mid_se.fc1.weight.shape == [8, 16, 1, 1]
    assert isinstance(model.blocks[0].mid_se.scale_activation, paddle.nn.Hardsigmoid)
    assert model.classifier[0].weight.shape == [576, 1024] and model.classifier[2].mode == "upscale_in_train"
    model.eval()
    assert model(paddle.rand([1, 3, 32, 32])).shape == [1, 10]
    assert paddle.vision.models.mobilenet_v3_large(scale=0.75, num_classes=0, with_pool=False)(
        paddle.rand([1, 3, 32, 32])).shape == [1, 720, 1, 1]


def test_input_spec_shape_must_be_a_list_or_tuple():
    with pytest.raises(TypeError, match="InputSpec: argument 'shape' expected a list or tuple"):
        paddle.static.InputSpec(3)
    assert paddle.static.InputSpec([3], "int64").shape == (3,)


def test_input_spec_from_tensor_of_a_non_tensor_is_also_a_value_error():
    # Paddle 2.6.2: ValueError "Input `tensor` should be a Tensor, but received ndarray."
    for wrong in (np.ones(3), [1]):
        with pytest.raises(ValueError, match="InputSpec.from_tensor: argument 'tensor' expected a Tensor"):
            paddle.static.InputSpec.from_tensor(wrong)
        with pytest.raises(TypeError, match="expected a Tensor"):
            paddle.static.InputSpec.from_tensor(wrong)


def test_jit_load_of_a_missing_model_is_also_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="no program at"):
        paddle.jit.load(str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError):
        paddle.jit.load(str(tmp_path / "missing"))


def test_resize_of_a_pil_image_nearest_is_pillows():
    image_module = pytest.importorskip("PIL.Image")
    rs = np.random.RandomState(0)
    for h, w, oh, ow in [(30, 20, 20, 15), (12, 10, 6, 5), (7, 9, 13, 4), (33, 32, 11, 53)]:
        img = image_module.fromarray((rs.rand(h, w, 3) * 255).astype("uint8"))
        expected = np.array(img.resize((ow, oh), image_module.NEAREST))
        np.testing.assert_array_equal(np.array(F.resize(img, (oh, ow), "nearest")), expected)
    # NumPy images keep OpenCV's INTER_NEAREST rule: source index floor(dst * in / out)
    arr = np.arange(10, dtype=np.uint8).reshape(1, 10)
    assert F.resize(arr, (1, 4), "nearest").ravel().tolist() == [0, 2, 5, 7]


def test_to_tensor_keeps_a_numpy_bool_image_bool():
    mask = np.array([[True, False], [False, True]])
    out = F.to_tensor(mask)
    assert out.dtype == paddle.bool and out.shape == [1, 2, 2]
    np.testing.assert_array_equal(out.numpy()[0], mask)
    image_module = pytest.importorskip("PIL.Image")
    pil = F.to_tensor(image_module.fromarray(mask))                  # a PIL '1' image: 0/1 floats
    assert pil.dtype == paddle.float32 and pil.numpy()[0].tolist() == [[1.0, 0.0], [0.0, 1.0]]
