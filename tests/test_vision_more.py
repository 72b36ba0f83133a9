"""eager.vision additions: DatasetFolder/ImageFolder over a folder tree, and more
models (Paddle's architectures: output shapes, Paddle's parameter counts, one
backward pass each)."""
import os

import numpy as np
import pytest

import eager
from eager.vision import datasets as D

PIL_Image = pytest.importorskip("PIL.Image")


def _write_png(path, array):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    PIL_Image.fromarray(array).save(path)


@pytest.fixture
def tree(tmp_path):
    """root/dog/{0,1}.png, root/cat/{b,a}.png, root/cat/sub/c.png, plus a .txt and an empty class."""
    rng = np.random.default_rng(0)
    images = {}
    for rel in ["dog/0.png", "dog/1.png", "cat/b.png", "cat/a.PNG", "cat/sub/c.png"]:
        images[rel] = rng.integers(0, 256, (5, 4, 3), dtype=np.uint8)
        _write_png(str(tmp_path / rel), images[rel])
    (tmp_path / "dog" / "notes.txt").write_text("not an image")
    (tmp_path / "empty").mkdir()
    return tmp_path, images


def test_dataset_folder_classes_samples_and_pixels(tree):
    root, images = tree
    ds = D.DatasetFolder(str(root))
    assert ds.classes == ["cat", "dog", "empty"]
    assert ds.class_to_idx == {"cat": 0, "dog": 1, "empty": 2}
    rel = [os.path.relpath(p, root).replace(os.sep, "/") for p, _ in ds.samples]
    assert rel == ["cat/a.PNG", "cat/b.png", "cat/sub/c.png", "dog/0.png", "dog/1.png"]
    assert ds.targets == [0, 0, 0, 1, 1] and len(ds) == 5
    image, label = ds[3]
    assert label == 1 and image.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(image), images["dog/0.png"])


def test_dataset_folder_cv2_backend_transform_and_dataloader(tree):
    root, images = tree
    eager.vision.set_image_backend("cv2")
    try:
        ds = D.DatasetFolder(root, transform=eager.vision.transforms.ToTensor())
        image, label = ds[1]
    finally:
        eager.vision.set_image_backend("pil")
    assert label == 0 and image.shape == [3, 5, 4]
    np.testing.assert_allclose(image.numpy(), images["cat/b.png"].transpose(2, 0, 1) / 255.0, rtol=1e-6)
    batches = list(eager.io.DataLoader(ds, batch_size=5))
    assert batches[0][0].shape == [5, 3, 5, 4]
    np.testing.assert_array_equal(batches[0][1].numpy().ravel(), [0, 0, 0, 1, 1])


def test_dataset_folder_loader_extensions_and_is_valid_file(tree):
    root, _ = tree
    ds = D.DatasetFolder(root, loader=lambda p: os.path.basename(p), extensions=(".txt",))
    assert ds.samples == [(str(root / "dog" / "notes.txt"), 1)] and ds[0] == ("notes.txt", 1)
    ds = D.DatasetFolder(root, loader=os.path.basename, is_valid_file=lambda p: os.path.basename(p)[0] in "0c")
    assert [ds[i] for i in range(len(ds))] == [("c.png", 0), ("0.png", 1)]


def test_image_folder_flat_tree(tree):
    root, images = tree
    ds = D.ImageFolder(root)
    rel = [os.path.relpath(p, root).replace(os.sep, "/") for p in ds.samples]
    assert rel == ["cat/a.PNG", "cat/b.png", "cat/sub/c.png", "dog/0.png", "dog/1.png"]
    item = ds[4]
    assert isinstance(item, list) and len(item) == 1
    np.testing.assert_array_equal(np.asarray(item[0]), images["dog/1.png"])
    assert D.ImageFolder(root / "cat", loader=os.path.basename)[2] == ["c.png"]


def test_folder_datasets_errors(tree, tmp_path):
    root, _ = tree
    with pytest.raises(FileNotFoundError, match=r"DatasetFolder: argument 'root': no folder at .*missing"):
        D.DatasetFolder(root / "missing")
    with pytest.raises(TypeError, match="ImageFolder: argument 'root' expected a folder path, got int"):
        D.ImageFolder(3)
    with pytest.raises(RuntimeError, match="DatasetFolder: found no class folders in"):
        D.DatasetFolder(root / "empty")
    with pytest.raises(RuntimeError, match=r"DatasetFolder: found no files with extensions \.bmp in the class"):
        D.DatasetFolder(root, extensions=[".bmp"])
    with pytest.raises(RuntimeError, match="ImageFolder: found no files with extensions .* under"):
        D.ImageFolder(root / "empty")
    with pytest.raises(ValueError, match="DatasetFolder: pass 'extensions' or 'is_valid_file', not both"):
        D.DatasetFolder(root, extensions=(".png",), is_valid_file=bool)
    with pytest.raises(TypeError, match="ImageFolder: argument 'loader' expected a callable or None, got 3"):
        D.ImageFolder(root, loader=3)
    with pytest.raises(TypeError, match="DatasetFolder: argument 'extensions' expected a list or tuple of str"):
        D.DatasetFolder(root, extensions=[1])


def test_names_reachable_as_in_paddle():
    assert eager.vision.DatasetFolder is D.DatasetFolder and eager.vision.ImageFolder is D.ImageFolder


# ---- models --------------------------------------------------------------------------------------------------------

from eager.vision import models as M  # noqa: E402


def count(model):
    return sum(int(np.prod(p.shape)) for p in model.parameters())


def _mobilenet_v3_count(rows, last_out, last_exp, classes=1000, last_channel=1280):
    """Hand count from the paper's tables: conv+BN (no bias) layers, SE convs with bias, 1x1 head, Linear."""
    total = 3 * 16 * 9 + 2 * 16
    for cin, k, exp, out, se, _, _ in rows:
        total += cin * exp + 2 * exp + exp * k * k + 2 * exp + exp * out + 2 * out
        if se:
            total += 2 * exp * (exp // 4) + exp // 4 + exp
    return total + last_out * last_exp + 2 * last_exp + last_exp * last_channel + last_channel * classes + classes


@pytest.mark.parametrize("build, expected", [
    (lambda: M.mobilenet_v2(), 3_504_872),
    (lambda: M.squeezenet1_0(), 1_248_424),
    (lambda: M.squeezenet1_1(), 1_235_496),
    (lambda: M.shufflenet_v2_x0_5(), 1_366_792),
    (lambda: M.shufflenet_v2_x1_0(), 2_278_604),
    (lambda: M.shufflenet_v2_x1_5(), 3_503_624),
    (lambda: M.shufflenet_v2_swish(), 2_278_604),
    (lambda: M.mobilenet_v3_small(), _mobilenet_v3_count(M.mobilenetv3._SMALL, 96, 576)),
    (lambda: M.mobilenet_v3_large(), _mobilenet_v3_count(M.mobilenetv3._LARGE, 160, 960)),
], ids=["mobilenet_v2", "squeezenet1_0", "squeezenet1_1", "shufflenet_x0_5", "shufflenet_x1_0", "shufflenet_x1_5",
        "shufflenet_swish", "mobilenet_v3_small", "mobilenet_v3_large"])
def test_parameter_counts_are_paddles(build, expected):
    assert count(build()) == expected


def test_mobilenet_v3_counts_round_to_paddleclas_published_millions():
    assert round(count(M.mobilenet_v3_small()) / 1e6, 2) == 2.94
    assert round(count(M.mobilenet_v3_large()) / 1e6, 1) == 5.5


def test_alexnet_parameter_count():
    # 61,100,840 in all (as the paper's network with 64/192/384/256/256 channels); the three Linear layers
    # (58.6M, seconds to initialise) are counted from their shapes.
    linear = (256 * 6 * 6 * 4096 + 4096) + (4096 * 4096 + 4096) + (4096 * 1000 + 1000)
    assert count(M.alexnet(num_classes=0)) + linear == 61_100_840


def test_shufflenet_v2_channels_per_scale():
    # Paddle's table (not torchvision's: x2_0's first stage has 224 channels here, 244 there).
    for scale, last in [(0.25, 512), (0.33, 512), (2.0, 2048)]:
        model = M.ShuffleNetV2(scale=scale, num_classes=0)
        assert model._last_conv[0].weight.shape[0] == last
    assert M.shufflenet_v2_x2_0(num_classes=0)._block_list[0]._conv_linear_1[0].weight.shape[0] == 112


def test_state_dict_names_are_paddles():
    keys = set(M.mobilenet_v2(scale=0.35, num_classes=4).state_dict())
    assert {"features.0.0.weight", "features.0.1._mean", "features.1.conv.0.0.weight", "features.2.conv.3.weight",
            "features.18.0.weight", "classifier.1.weight"} <= keys
    keys = set(M.mobilenet_v3_small(scale=0.35, num_classes=4).state_dict())
    assert {"conv.conv.weight", "conv.bn._variance", "blocks.0.mid_se.conv1.bias", "blocks.10.linear_conv.bn.weight",
            "last_second_conv.conv.weight", "last_conv.weight", "fc.bias"} <= keys
    assert "last_conv.bias" not in keys
    keys = set(M.shufflenet_v2_x0_25(num_classes=4).state_dict())
    assert {"_conv1.0.weight", "_conv1.1._mean", "2_1._conv_dw_1.0.weight", "2_2._conv_pw.1.bias",
            "4_4._conv_linear.0.weight", "_last_conv.0.weight", "_fc.weight"} <= keys
    keys = set(M.squeezenet1_1(num_classes=4).state_dict())
    assert {"_conv.weight", "_conv.bias", "_conv1._conv._conv.weight", "_conv8._conv_path2._conv.bias",
            "_conv9.weight"} <= keys
    keys = set(M.alexnet(num_classes=0).state_dict())
    assert keys == {f"_conv{i}.{'_conv.' if i in (1, 2, 5) else ''}{p}" for i in range(1, 6) for p in ("weight", "bias")}


@pytest.mark.parametrize("build, size, shape", [
    (lambda: M.mobilenet_v2(scale=0.35, num_classes=4), 32, [2, 4]),
    (lambda: M.MobileNetV2(scale=0.35, num_classes=0, with_pool=False), 32, [2, 1280, 1, 1]),
    (lambda: M.mobilenet_v3_small(scale=0.35, num_classes=4), 32, [2, 4]),
    (lambda: M.MobileNetV3Large(scale=0.35, num_classes=0, with_pool=False), 64, [2, 336, 2, 2]),
    (lambda: M.squeezenet1_0(num_classes=4), 35, [2, 4]),
    (lambda: M.SqueezeNet("1.1", num_classes=4, with_pool=False), 32, [2, 4, 1, 1]),
    (lambda: M.shufflenet_v2_x0_25(num_classes=4), 32, [2, 4]),
    (lambda: M.ShuffleNetV2(scale=0.33, act="swish", num_classes=0), 32, [2, 512, 1, 1]),
    (lambda: M.alexnet(num_classes=0), 67, [2, 256, 1, 1]),
], ids=["mobilenet_v2", "mobilenet_v2_features", "mobilenet_v3_small", "mobilenet_v3_large_features",
        "squeezenet1_0", "squeezenet1_1_nopool", "shufflenet_x0_25", "shufflenet_swish_features", "alexnet_features"])
def test_forward_shape_and_backward_reaches_every_parameter(build, size, shape):
    eager.seed(0)
    model = build()
    out = model(eager.rand([2, 3, size, size]))
    assert out.shape == shape
    (out * out).sum().backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and np.isfinite(p.grad.numpy()).all(), name
    assert any(float(np.abs(p.grad.numpy()).max()) > 0 for p in model.parameters())


def test_alexnet_full_head_at_224():
    model = M.AlexNet(num_classes=3)
    model.eval()
    assert model(eager.rand([1, 3, 224, 224])).shape == [1, 3]


def test_channel_shuffle_against_a_loop():
    x = np.arange(2 * 6 * 2 * 1, dtype=np.float32).reshape(2, 6, 2, 1)
    out = M.shufflenetv2.channel_shuffle(eager.to_tensor(x), 3).numpy()
    expected = np.empty_like(x)
    for c in range(6):  # output channel c = group c % 3, member c // 3
        expected[:, c] = x[:, (c % 3) * 2 + c // 3]
    np.testing.assert_array_equal(out, expected)


def test_residual_blocks_add_their_input():
    eager.seed(0)
    block = M.mobilenetv2.InvertedResidual(8, 8, 1, 6)
    block.eval()
    x = eager.rand([1, 8, 4, 4])
    np.testing.assert_allclose(block(x).numpy(), x.numpy() + block.conv(x).numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("build", [M.mobilenet_v2, M.mobilenet_v3_small, M.mobilenet_v3_large, M.alexnet,
                                   M.squeezenet1_0, M.squeezenet1_1, M.shufflenet_v2_x0_25, M.shufflenet_v2_swish],
                         ids=lambda f: f.__name__)
def test_pretrained_is_a_clear_error(build):
    with pytest.raises(ValueError, match=f"{build.__name__}: pretrained=True is not available"):
        build(pretrained=True)


def test_bad_model_arguments():
    with pytest.raises(ValueError, match=r"ShuffleNetV2: argument 'scale' expected one of \[0.25, 0.33, 0.5, 1.0"):
        M.ShuffleNetV2(scale=0.75)
    with pytest.raises(ValueError, match="ShuffleNetV2: argument 'act' expected 'relu' or 'swish', got 'gelu'"):
        M.ShuffleNetV2(act="gelu")
    with pytest.raises(ValueError, match="SqueezeNet: argument 'version' expected '1.0' or '1.1', got '1.2'"):
        M.SqueezeNet("1.2")
    with pytest.raises(TypeError, match="MobileNetV2: argument 'num_classes' expected an int"):
        M.MobileNetV2(num_classes=2.0)
