"""Regression cases from the differential sweep of eager.vision.models and
eager.vision.datasets against Paddle 2.6 (python/paddle/vision/models/*.py and
python/paddle/vision/datasets/*.py read as the reference; parameter counts
against torchvision's/timm's published ones where the architecture is the same).

The models agreed: argument names and defaults, parameter counts (ResNet
18..152, ResNeXt 50/101, wide ResNet 50/101, VGG 11..19 with and without batch
norm, DenseNet 121..201, MobileNet v1/v2/v3, SqueezeNet, ShuffleNet, GoogLeNet,
InceptionV3, AlexNet, LeNet), output shapes with num_classes -1/0 and
with_pool=False, train/eval, bad num_classes/pretrained. What was found:

- MobileNetV1/V2/V3 ``scale`` was unchecked: '1.0' or None failed with raw
  TypeError/ValueError in the channel arithmetic ("can only concatenate str",
  "invalid literal for int()"), scale <= 0 built 8-channel MobileNetV2/V3 or
  failed in MobileNetV1's Conv2D naming 'out_channels', inf overflowed int(); ShuffleNetV2 took
  scale=True as 1.0 and a list scale failed as unhashable; ResNet groups/width
  and DenseNet bn_size of 0 or 2.5 failed in Conv2D. Now TypeError/ValueError
  naming the model and the argument.
- ResNet ``depth`` and DenseNet ``layers`` given as a list or dict failed with
  Python's raw "unhashable type" TypeError; a str was a ValueError.
- ``num_classes`` given as a NumPy int (np.int64(10), as a count read from a
  label array is) was refused with a TypeError; Paddle's models take it.

- Cifar10/Cifar100 with backend 'cv2' handed ``transform`` float32 pixels
  0..255; Paddle hands it the uint8 HWC array, so ``ToTensor`` scales to [0, 1]
  there and left 0..255 here.
- MNIST, FashionMNIST, Cifar10/100, Flowers, VOC2012 cast 'cv2' samples to a
  fixed float32; Paddle casts to ``paddle.get_default_dtype()`` (DatasetFolder
  keeps the same ``dtype`` attribute).
- a ``mode`` that is not a str (1, None, a list) was a ValueError; it is the
  wrong kind of argument, so a TypeError naming the dataset and 'mode'.
"""
import io

import numpy as np
import pytest

import eager
from eager.vision import datasets as D
from eager.vision import models as M
from eager.vision import transforms as T
from dataset_files import write_idx, write_tar


@pytest.fixture
def cifar10(tmp_path):
    """A binary CIFAR-10 archive: 2 training records, 1 test record (label byte, then R, G, B planes)."""
    rng = np.random.default_rng(3)
    labels, images = rng.integers(0, 10, (2, 1)), rng.integers(0, 256, (2, 3, 32, 32))
    records = np.concatenate([labels, images.reshape(2, -1)], axis=1).astype(np.uint8).tobytes()
    path = write_tar(tmp_path / "cifar-10-binary.tar.gz", {"cifar-10-batches-bin/data_batch_1.bin": records,
                                                       "cifar-10-batches-bin/test_batch.bin": records[:3073]})
    return path, images.astype(np.uint8).transpose(0, 2, 3, 1)


@pytest.fixture
def mnist(tmp_path):
    rng = np.random.default_rng(4)
    images = rng.integers(0, 256, (3, 28, 28)).astype(np.uint8)
    return (write_idx(tmp_path / "img.gz", images, 2051), write_idx(tmp_path / "lab.gz", np.array([1, 2, 3]), 2049), images)


@pytest.fixture
def float64_default():
    before = eager.get_default_dtype()
    eager.set_default_dtype("float64")
    yield
    eager.set_default_dtype(before)


@pytest.mark.parametrize("cls", [D.Cifar10, D.Cifar100])
def test_cifar_cv2_transform_gets_the_uint8_pixels(cifar10, tmp_path, cls):
    if cls is D.Cifar100:   # records of coarse and fine label bytes, then the pixels
        rng = np.random.default_rng(5)
        images = rng.integers(0, 256, (2, 3, 32, 32)).astype(np.uint8)
        records = np.concatenate([rng.integers(0, 100, (2, 2)), images.reshape(2, -1)], axis=1)
        path = write_tar(tmp_path / "cifar-100-binary.tar.gz",
                    {"cifar-100-binary/train.bin": records.astype(np.uint8).tobytes()})
        hwc = images.transpose(0, 2, 3, 1)
    else:
        path, hwc = cifar10
    seen = []
    ds = cls(path, backend="cv2", transform=lambda image: seen.append(image.dtype) or image)
    out, _ = ds[1]
    assert seen == [np.uint8]                          # what Paddle's transform receives
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, hwc[1].astype(np.float32))
    tensor, _ = cls(path, backend="cv2", transform=T.ToTensor())[1]
    assert tensor.shape == [3, 32, 32]
    np.testing.assert_allclose(tensor.numpy(), hwc[1].transpose(2, 0, 1) / 255.0, rtol=1e-6)
    assert float(tensor.max()) <= 1.0


def test_cv2_samples_take_the_default_dtype(mnist, cifar10, float64_default):
    image_path, label_path, images = mnist
    image, label = D.MNIST(image_path, label_path, backend="cv2")[2]
    assert image.dtype == np.float64 and label.dtype == np.int64
    np.testing.assert_array_equal(image, images[2].astype(np.float64))
    image, label = D.FashionMNIST(image_path, label_path, backend="cv2")[0]
    assert image.dtype == np.float64
    path, hwc = cifar10
    image, label = D.Cifar10(path, backend="cv2")[0]
    assert image.dtype == np.float64 and label.dtype == np.int64
    np.testing.assert_array_equal(image, hwc[0])
    # 'pil' samples are PIL Images, whatever the default dtype
    pil_image = pytest.importorskip("PIL.Image")
    assert isinstance(D.Cifar10(path, backend="pil")[0][0], pil_image.Image)


def test_voc2012_cv2_pairs_take_the_default_dtype(tmp_path, float64_default):
    pil_image = pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(6)
    image, label = rng.integers(0, 256, (4, 5, 3), dtype=np.uint8), rng.integers(0, 21, (4, 5), dtype=np.uint8)

    def png(array):
        buffer = io.BytesIO()
        pil_image.fromarray(array).save(buffer, format="PNG")
        return buffer.getvalue()
    root = "VOCdevkit/VOC2012/"
    path = write_tar(tmp_path / "voc.tar", {f"{root}JPEGImages/a.jpg": png(image), f"{root}SegmentationClass/a.png": png(label),
                                       f"{root}ImageSets/Segmentation/val.txt": b"a\n"}, mode="w")
    out_image, out_label = D.VOC2012(path, mode="VALID", backend="cv2")[0]
    assert out_image.dtype == np.float64 and out_label.dtype == np.float64
    np.testing.assert_array_equal(out_image, image)
    np.testing.assert_array_equal(out_label, label)


def test_folder_dtype_attribute_is_the_default_dtype(tmp_path, float64_default):
    (tmp_path / "cat").mkdir()
    (tmp_path / "cat" / "a.npy").write_bytes(b"x")
    ds = D.DatasetFolder(str(tmp_path), loader=lambda path: path, extensions=(".npy",))
    assert ds.dtype == "float64" and ds[0] == (str(tmp_path / "cat" / "a.npy"), 0)


@pytest.mark.parametrize("build, name", [
    (lambda mode: D.MNIST(mode=mode, download=False), "MNIST"),
    (lambda mode: D.FashionMNIST(mode=mode, download=False), "FashionMNIST"),
    (lambda mode: D.Cifar10(mode=mode, download=False), "Cifar10"),
    (lambda mode: D.Cifar100(mode=mode, download=False), "Cifar100"),
    (lambda mode: D.Flowers(mode=mode, download=False), "Flowers"),
    (lambda mode: D.VOC2012(mode=mode, download=False), "VOC2012"),
], ids=["mnist", "fashion", "cifar10", "cifar100", "flowers", "voc2012"])
def test_mode_of_the_wrong_kind_is_a_type_error(build, name):
    for mode in (1, None, ["train"]):
        with pytest.raises(TypeError, match=rf"^{name}: argument 'mode' expected a str, got "):
            build(mode)
    with pytest.raises(ValueError, match=rf"^{name}: argument 'mode' expected 'train'.*, got 'Tain'"):
        build("Tain")


def test_mode_is_still_case_insensitive(mnist, cifar10):
    image_path, label_path, _ = mnist
    assert D.MNIST(image_path, label_path, mode="TRAIN", backend="cv2").mode == "train"
    assert len(D.Cifar10(cifar10[0], mode="Test", backend="cv2")) == 1


@pytest.mark.parametrize("build, name", [
    (M.MobileNetV1, "MobileNetV1"), (M.MobileNetV2, "MobileNetV2"), (M.MobileNetV3Small, "MobileNetV3Small"),
    (M.MobileNetV3Large, "MobileNetV3Large"), (M.ShuffleNetV2, "ShuffleNetV2"),
], ids=["v1", "v2", "v3_small", "v3_large", "shufflenet"])
def test_scale_is_checked_by_name(build, name):
    for scale in ("1.0", None, True, [1.0]):
        with pytest.raises(TypeError, match=rf"^{name}: argument 'scale' expected a float, got "):
            build(scale=scale, num_classes=2)
    for scale in (0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match=rf"^{name}: argument 'scale' expected "):
            build(scale=scale, num_classes=2)


def test_mobilenet_v1_scale_too_small_for_one_channel():
    with pytest.raises(ValueError, match=r"MobileNetV1: argument 'scale' expected at least 1/32 .* got 0\.01"):
        M.mobilenet_v1(scale=0.01, num_classes=2)
    model = M.MobileNetV1(scale=1 / 32, num_classes=2)        # the smallest: 1 channel in the first conv
    assert model.conv1[0].weight.shape == [1, 3, 3, 3]


def test_shufflenet_act_of_the_wrong_kind():
    with pytest.raises(TypeError, match="ShuffleNetV2: argument 'act' expected a str, got NoneType None"):
        M.ShuffleNetV2(scale=0.25, act=None)
    with pytest.raises(ValueError, match="ShuffleNetV2: argument 'act' expected 'relu' or 'swish', got 'Relu'"):
        M.ShuffleNetV2(scale=0.25, act="Relu")


def test_resnet_groups_width_and_densenet_bn_size_are_checked():
    with pytest.raises(ValueError, match="ResNet: argument 'groups' expected a positive int, got 0"):
        M.ResNet(M.BottleneckBlock, 50, groups=0, num_classes=2)
    with pytest.raises(ValueError, match="ResNet: argument 'width' expected a positive int, got 0"):
        M.ResNet(M.BottleneckBlock, 50, width=0, num_classes=2)
    with pytest.raises(TypeError, match="ResNet: argument 'width' expected an int, got float 4.5"):
        M.ResNet(M.BottleneckBlock, 50, width=4.5, num_classes=2)
    with pytest.raises(ValueError, match="DenseNet: argument 'bn_size' expected a positive int, got 0"):
        M.DenseNet(121, bn_size=0, num_classes=2)
    with pytest.raises(TypeError, match="DenseNet: argument 'bn_size' expected an int, got float 2.5"):
        M.DenseNet(121, bn_size=2.5, num_classes=2)
    with pytest.raises(ValueError, match=r"BasicBlock: only groups=1 and base_width=64 .*BottleneckBlock"):
        M.ResNet(M.BasicBlock, 18, width=128, num_classes=2)


def test_num_classes_may_be_a_numpy_int():
    eager.seed(0)
    model = M.LeNet(np.int64(3))
    assert model.num_classes == 3 and type(model.num_classes) is int
    assert model(eager.rand([2, 1, 28, 28])).shape == [2, 3]
    assert M.ResNet(M.BasicBlock, 18, num_classes=np.int32(0)).num_classes == 0
    assert M.mobilenet_v3_small(scale=0.35, num_classes=np.int64(4))(eager.rand([1, 3, 32, 32])).shape == [1, 4]
    for bad in (2.5, "3", True, None, eager.to_tensor(3)):
        with pytest.raises(TypeError, match="ResNet: argument 'num_classes' expected an int, got "):
            M.resnet18(num_classes=bad)


@pytest.mark.parametrize("build, name, arg", [
    (lambda v: M.ResNet(M.BasicBlock, v), "ResNet", "depth"), (lambda v: M.DenseNet(v), "DenseNet", "layers"),
], ids=["resnet_depth", "densenet_layers"])
def test_depth_and_layers_of_the_wrong_kind(build, name, arg):
    for bad in ([18], {}, "121", True):
        with pytest.raises(TypeError, match=rf"^{name}: argument '{arg}' expected an int, got "):
            build(bad)
    with pytest.raises(ValueError, match=rf"^{name}: argument '{arg}' expected one of \[.*\], got 19$"):
        build(19)
