"""eager.vision additions: DatasetFolder/ImageFolder over a folder tree, and more
models (Paddle's architectures: output shapes, Paddle's parameter counts, one
backward pass each)."""
import os
import sys

import numpy as np
import pytest

import eager
from eager.vision import datasets as D
from dataset_files import write_tar

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


@pytest.mark.parametrize("build, expected", [
    (lambda: M.mobilenet_v2(), 3_504_872),
    (lambda: M.squeezenet1_0(), 1_248_424),
    (lambda: M.squeezenet1_1(), 1_235_496),
    (lambda: M.shufflenet_v2_x0_5(), 1_366_792),
    (lambda: M.shufflenet_v2_x1_0(), 2_278_604),
    (lambda: M.shufflenet_v2_x1_5(), 3_503_624),
    (lambda: M.shufflenet_v2_swish(), 2_278_604),
    (lambda: M.mobilenet_v3_small(), 2_542_856),   # Paddle 2.6.2's trainable parameters
    (lambda: M.mobilenet_v3_large(), 5_483_032),
    (lambda: M.densenet121(), 7_978_856),
    (lambda: M.densenet169(), 14_149_480),
    (lambda: M.inception_v3(), 23_834_568),
    (lambda: M.resnext50_32x4d(), 25_028_904),
], ids=["mobilenet_v2", "squeezenet1_0", "squeezenet1_1", "shufflenet_x0_5", "shufflenet_x1_0", "shufflenet_x1_5",
        "shufflenet_swish", "mobilenet_v3_small", "mobilenet_v3_large", "densenet121", "densenet169",
        "inception_v3", "resnext50_32x4d"])
def test_parameter_counts_are_paddles(build, expected):
    assert count(build()) == expected


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
    assert {"conv.0.weight", "conv.1._variance", "blocks.0.mid_se.fc1.bias", "blocks.10.linear_conv.1.weight",
            "lastconv.0.weight", "classifier.0.weight", "classifier.3.bias"} <= keys
    assert "conv.0.bias" not in keys and "blocks.0.expand_conv.0.weight" not in keys   # 16 -> 16: no expansion
    keys = set(M.shufflenet_v2_x0_25(num_classes=4).state_dict())
    assert {"_conv1.0.weight", "_conv1.1._mean", "2_1._conv_dw_1.0.weight", "2_2._conv_pw.1.bias",
            "4_4._conv_linear.0.weight", "_last_conv.0.weight", "_fc.weight"} <= keys
    keys = set(M.squeezenet1_1(num_classes=4).state_dict())
    assert {"_conv.weight", "_conv.bias", "_conv1._conv._conv.weight", "_conv8._conv_path2._conv.bias",
            "_conv9.weight"} <= keys
    keys = set(M.densenet121(num_classes=4).state_dict())
    assert {"conv1_func._conv.weight", "conv1_func._batch_norm._mean", "db_conv_2.conv2_6.bn_ac_func2._conv.weight",
            "tr_conv4_blk.conv_ac_func._batch_norm.bias", "db_conv_5.conv5_16.bn_ac_func1._batch_norm.weight",
            "batch_norm._variance", "out.weight", "out.bias"} <= keys
    keys = set(M.inception_v3(num_classes=4).state_dict())
    assert {"inception_stem.conv_1a_3x3.0.weight", "inception_stem.conv_4a_3x3.1._mean",
            "inception_block_list.0.branch_pool_conv.0.weight", "inception_block_list.7.branch7x7dbl_5.1.bias",
            "inception_block_list.10.branch3x3dbl_3b.0.weight", "fc.weight"} <= keys
    keys = set(M.googlenet(num_classes=4).state_dict())
    assert {"_conv._conv.weight", "_ince3a._conv5._conv.weight", "_ince5b._convprj._conv.weight", "_fc_out.bias",
            "_conv_o1._conv.weight", "_fc_o2.weight", "_out2.bias"} <= keys
    keys = set(M.alexnet(num_classes=0).state_dict())
    assert keys == {f"_conv{i}.{'_conv.' if i in (1, 2, 5) else ''}{p}" for i in range(1, 6)
                    for p in ("weight", "bias")}


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
    (lambda: M.DenseNet(121, dropout=0.1, num_classes=4), 32, [2, 4]),
    (lambda: M.InceptionV3(num_classes=4), 75, [2, 4]),
], ids=["mobilenet_v2", "mobilenet_v2_features", "mobilenet_v3_small", "mobilenet_v3_large_features",
        "squeezenet1_0", "squeezenet1_1_nopool", "shufflenet_x0_25", "shufflenet_swish_features", "alexnet_features",
        "densenet121", "inception_v3"])
def test_forward_shape_and_backward_reaches_every_parameter(build, size, shape):
    eager.seed(0)
    model = build()
    out = model(eager.rand([2, 3, size, size]))
    assert out.shape == shape
    (out * out).sum().backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and np.isfinite(p.grad.numpy()).all(), name
    assert any(float(np.abs(p.grad.numpy()).max()) > 0 for p in model.parameters())


def _googlenet_count(classes=1000):
    """Hand count from the paper's Table 1: bias-free convs, three Linear heads with bias."""
    total = 3 * 64 * 49 + 64 * 64 + 64 * 192 * 9
    for _, cin, _, f1, f3r, f3, f5r, f5, proj in sys.modules["eager.vision.models.googlenet"]._INCEPTIONS:
        total += cin * (f1 + f3r + f5r + proj) + f3r * f3 * 9 + f5r * f5 * 25
    heads = 1024 * classes + classes
    for cin in (512, 528):
        heads += cin * 128 + 1152 * 1024 + 1024 + 1024 * classes + classes
    return total + heads


def test_googlenet_parameter_count_and_three_outputs():
    assert count(M.googlenet()) == _googlenet_count() == 11_535_736
    eager.seed(0)
    with eager.no_grad():   # the heads' Linear layers need 224x224 inputs: forward only there
        outs = M.GoogLeNet(num_classes=3)(eager.rand([1, 3, 224, 224]))
    assert isinstance(outs, list) and [o.shape for o in outs] == [[1, 3]] * 3
    model = M.GoogLeNet(num_classes=0, with_pool=False)
    feats = model(eager.rand([1, 3, 64, 64]))
    assert [f.shape for f in feats] == [[1, 1024, 1, 1], [1, 512, 3, 3], [1, 528, 3, 3]]
    sum((f * f).sum() for f in feats).backward()
    assert all(p.grad is not None for p in model.parameters())


def test_alexnet_full_head_at_224():
    model = M.AlexNet(num_classes=3)
    model.eval()
    with eager.no_grad():
        assert model(eager.rand([1, 3, 224, 224])).shape == [1, 3]


def test_resnext_and_wide_resnet_widths():
    # ResNeXt 32x4d: 3x3 convs of 32 groups, 128 channels in the first stage; wide ResNet: twice ResNet-50's
    block = M.resnext50_32x4d(num_classes=0).layer1[0]
    assert block.conv2.weight.shape == [128, 4, 3, 3] and block.conv3.weight.shape == [256, 128, 1, 1]
    wide = M.wide_resnet50_2(num_classes=0)
    assert wide.layer1[0].conv2.weight.shape == [128, 128, 3, 3] and wide.layer4[2].conv2.weight.shape[0] == 1024
    assert count(wide) + 2048 * 1000 + 1000 == 68_883_240


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
                                   M.squeezenet1_0, M.squeezenet1_1, M.shufflenet_v2_x0_25, M.shufflenet_v2_swish,
                                   M.densenet121, M.densenet264, M.googlenet, M.inception_v3,
                                   M.resnext101_64x4d, M.wide_resnet101_2],
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
    with pytest.raises(ValueError, match=r"DenseNet: argument 'layers' expected one of \[121, 161, 169, 201, 264\]"):
        M.DenseNet(layers=100)
    with pytest.raises(TypeError, match="MobileNetV2: argument 'num_classes' expected an int"):
        M.MobileNetV2(num_classes=2.0)


# ---- ops -----------------------------------------------------------------------------------------------------------

from eager.vision import ops as O  # noqa: E402


def _bilinear_loop(img, y, x):
    """One bilinear sample of a 2-D image, written from the maths with Paddle's border rule."""
    h, w = img.shape
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * img[y0, x0] + (1 - ly) * lx * img[y0, x1] + ly * (1 - lx) * img[y1, x0]
            + ly * lx * img[y1, x1])


def _roi_align_loop(x, boxes, image_of, out_hw, scale, ratio, aligned):
    ph_n, pw_n = out_hw
    out = np.zeros((len(boxes), x.shape[1], ph_n, pw_n))
    off = 0.5 if aligned else 0.0
    for r, (x1, y1, x2, y2) in enumerate(boxes):
        xmin, ymin, xmax, ymax = x1 * scale - off, y1 * scale - off, x2 * scale - off, y2 * scale - off
        rw, rh = xmax - xmin, ymax - ymin
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph_n, rw / pw_n
        gh = ratio if ratio > 0 else int(np.ceil(rh / ph_n))
        gw = ratio if ratio > 0 else int(np.ceil(rw / pw_n))
        for c in range(x.shape[1]):
            for ph in range(ph_n):
                for pw in range(pw_n):
                    total = 0.0
                    for iy in range(gh):
                        for ix in range(gw):
                            yy = ymin + ph * bh + (iy + 0.5) * bh / gh
                            xx = xmin + pw * bw + (ix + 0.5) * bw / gw
                            total += _bilinear_loop(x[image_of[r], c], yy, xx)
                    out[r, c, ph, pw] = total / max(gh * gw, 1)
    return out


def _roi_pool_loop(x, boxes, image_of, out_hw, scale):
    ph_n, pw_n = out_hw
    h, w = x.shape[2:]
    out = np.zeros((len(boxes), x.shape[1], ph_n, pw_n))
    rnd = lambda v: int(np.floor(v + 0.5)) if v >= 0 else -int(np.floor(-v + 0.5))  # noqa: E731  C's round
    for r, (x1, y1, x2, y2) in enumerate(boxes):
        sw, sh, ew, eh = rnd(x1 * scale), rnd(y1 * scale), rnd(x2 * scale), rnd(y2 * scale)
        bh, bw = max(eh - sh + 1, 1) / ph_n, max(ew - sw + 1, 1) / pw_n
        for ph in range(ph_n):
            for pw in range(pw_n):
                h0 = min(max(int(np.floor(ph * bh)) + sh, 0), h)
                h1 = min(max(int(np.ceil((ph + 1) * bh)) + sh, 0), h)
                w0 = min(max(int(np.floor(pw * bw)) + sw, 0), w)
                w1 = min(max(int(np.ceil((pw + 1) * bw)) + sw, 0), w)
                if h1 > h0 and w1 > w0:
                    out[r, :, ph, pw] = x[image_of[r], :, h0:h1, w0:w1].max(axis=(1, 2))
    return out


def _nms_loop(boxes, threshold):
    keep = []
    for i in range(len(boxes)):
        ok = True
        for j in keep:
            a, b = boxes[i], boxes[j]
            iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
            ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
            inter = iw * ih
            union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
            if union > 0 and inter / union > threshold:
                ok = False
                break
        if ok:
            keep.append(i)
    return keep


@pytest.fixture
def rois():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 9, 11))
    boxes = np.array([[0.3, 0.7, 6.2, 5.1], [2.0, 1.0, 2.4, 8.8], [-1.5, -0.5, 3.0, 2.0],
                      [4.0, 3.0, 12.5, 10.0], [1.0, 1.0, 1.0, 1.0]])
    return x, boxes, np.array([2, 3], np.int32), np.array([0, 0, 1, 1, 1])


@pytest.mark.parametrize("out_hw, scale, ratio, aligned", [
    ((2, 3), 1.0, -1, True), ((3, 2), 0.5, 2, False), ((1, 1), 1.0, -1, False), ((2, 2), 0.8, 1, True)])
def test_roi_align_against_a_loop(rois, out_hw, scale, ratio, aligned):
    x, boxes, num, image_of = rois
    out = O.roi_align(eager.to_tensor(x), eager.to_tensor(boxes), eager.to_tensor(num), out_hw, scale, ratio,
                      aligned)
    assert out.shape == [5, 3, *out_hw] and out.dtype == eager.float64
    np.testing.assert_allclose(out.numpy(), _roi_align_loop(x, boxes, image_of, out_hw, scale, ratio, aligned),
                               rtol=1e-12, atol=1e-12)


def test_roi_align_gradient_is_the_transposed_sampling(rois):
    x, boxes, num, image_of = rois
    xt = eager.to_tensor(x, stop_gradient=False)
    upstream = np.random.default_rng(2).standard_normal((5, 3, 2, 2))
    out = O.roi_align(xt, eager.to_tensor(boxes), eager.to_tensor(num), 2, sampling_ratio=2)
    (out * eager.to_tensor(upstream)).sum().backward()
    # roi_align is linear in x: d<upstream, out>/dx[k] = <upstream, roi_align(e_k)>, checked on a few pixels.
    for k in [(0, 1, 2, 3), (1, 0, 4, 5), (1, 2, 8, 10), (0, 2, 0, 0)]:
        e = np.zeros_like(x)
        e[k] = 1.0
        expected = (upstream * _roi_align_loop(e, boxes, image_of, (2, 2), 1.0, 2, True)).sum()
        assert xt.grad.numpy()[k] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("out_hw, scale", [((2, 3), 1.0), ((3, 3), 0.5), ((1, 1), 1.0), ((4, 2), 1.3)])
def test_roi_pool_against_a_loop(rois, out_hw, scale):
    x, boxes, num, image_of = rois
    out = O.roi_pool(eager.to_tensor(x), eager.to_tensor(boxes), eager.to_tensor(num), out_hw, scale)
    assert out.shape == [5, 3, *out_hw]
    np.testing.assert_array_equal(out.numpy(), _roi_pool_loop(x, boxes, image_of, out_hw, scale))


def test_roi_pool_gradient_goes_to_each_bins_maximum():
    x = np.random.default_rng(3).permutation(2 * 6 * 6).reshape(1, 2, 6, 6).astype(np.float32)
    xt = eager.to_tensor(x, stop_gradient=False)
    out = O.roi_pool(xt, eager.to_tensor([[0.0, 0.0, 3.0, 3.0], [1.0, 2.0, 5.0, 5.0]]),
                     eager.to_tensor([2]), 2)
    out.sum().backward()
    expected = np.zeros_like(x)
    for box in [(0, 0, 3, 3), (1, 2, 5, 5)]:
        x0, y0, x1, y1 = box
        hb, wb = (y1 - y0 + 1) / 2, (x1 - x0 + 1) / 2
        for c in range(2):
            for ph in range(2):
                for pw in range(2):
                    hs, he = y0 + int(np.floor(ph * hb)), y0 + int(np.ceil((ph + 1) * hb))
                    ws, we = x0 + int(np.floor(pw * wb)), x0 + int(np.ceil((pw + 1) * wb))
                    patch = x[0, c, hs:he, ws:we]
                    i, j = np.unravel_index(patch.argmax(), patch.shape)
                    expected[0, c, hs + i, ws + j] += 1
    np.testing.assert_array_equal(xt.grad.numpy(), expected)


def test_roi_layers():
    rng = np.random.default_rng(4)
    x = eager.to_tensor(rng.standard_normal((1, 2, 8, 8)).astype(np.float32))
    boxes, num = eager.to_tensor([[1.0, 1.0, 6.0, 5.0]]), eager.to_tensor([1])
    np.testing.assert_array_equal(O.RoIAlign((2, 3), 0.5)(x, boxes, num, aligned=False).numpy(),
                                  O.roi_align(x, boxes, num, (2, 3), 0.5, aligned=False).numpy())
    np.testing.assert_array_equal(O.RoIPool(2, 0.5)(x, boxes, num).numpy(), O.roi_pool(x, boxes, num, 2, 0.5).numpy())


def test_roi_errors_leave_inputs_untouched(rois):
    x, boxes, num, _ = rois
    xt, bt = eager.to_tensor(x), eager.to_tensor(boxes)
    with pytest.raises(ValueError, match=r"roi_align: argument 'boxes_num' \[2, 2\] must be non-negative and sum to"):
        O.roi_align(xt, bt, eager.to_tensor([2, 2]), 2)
    with pytest.raises(ValueError, match=r"roi_pool: argument 'boxes_num' expected one count per image \(2\), got 1"):
        O.roi_pool(xt, bt, eager.to_tensor([5]), 2)
    with pytest.raises(ValueError, match=r"roi_align: argument 'boxes' expected shape \[..., 4\], got \[5, 3\]"):
        O.roi_align(xt, eager.to_tensor(boxes[:, :3]), eager.to_tensor(num), 2)
    with pytest.raises(ValueError, match=r"roi_pool: argument 'x' expected a 4-D Tensor, got shape \[3, 9, 11\]"):
        O.roi_pool(eager.to_tensor(x[0]), bt, eager.to_tensor(num), 2)
    with pytest.raises(ValueError, match="roi_align: argument 'output_size' expected a positive int or a pair"):
        O.roi_align(xt, bt, eager.to_tensor(num), (2, 0))
    with pytest.raises(TypeError, match="roi_pool: argument 'boxes_num' expected an int32 or int64 Tensor"):
        O.roi_pool(xt, bt, eager.to_tensor([2.0, 3.0]), 2)
    with pytest.raises(TypeError, match="roi_align: argument 'x' expected a Tensor, got ndarray"):
        O.roi_align(x, bt, eager.to_tensor(num), 2)
    np.testing.assert_array_equal(xt.numpy(), x)


def test_nms_against_a_loop():
    rng = np.random.default_rng(5)
    xy = rng.uniform(0, 10, (40, 2))
    boxes = np.concatenate([xy, xy + rng.uniform(1, 5, (40, 2))], 1)
    scores = rng.uniform(0, 1, 40)
    bt = eager.to_tensor(boxes.astype(np.float32))
    # without scores: the given order
    kept = O.nms(bt, 0.3)
    assert kept.dtype == eager.int64
    assert kept.numpy().tolist() == _nms_loop(boxes.astype(np.float32).astype(np.float64), 0.3)
    # with scores: ranked, then suppressed, in score order; top_k (Paddle: only with category_idxs) is ignored
    order = np.argsort(-scores, kind="stable")
    expected = [int(order[i]) for i in _nms_loop(boxes[order].astype(np.float32).astype(np.float64), 0.5)]
    assert O.nms(bt, 0.5, scores=eager.to_tensor(scores)).numpy().tolist() == expected
    assert O.nms(bt, 0.5, scores=eager.to_tensor(scores), top_k=3).numpy().tolist() == expected
    # per category: suppression only within a category, merged by score
    labels = rng.integers(0, 3, 40)
    merged = []
    for c in range(3):
        members = [int(i) for i in order if labels[i] == c]
        merged += [members[i] for i in _nms_loop(boxes[members].astype(np.float32).astype(np.float64), 0.4)]
    merged.sort(key=lambda i: -scores[i])
    got = O.nms(bt, 0.4, scores=eager.to_tensor(scores), category_idxs=eager.to_tensor(labels), categories=[0, 1, 2])
    assert got.numpy().tolist() == merged


def test_nms_threshold_is_strict_and_errors():
    boxes = eager.to_tensor([[0.0, 0.0, 2.0, 1.0], [1.0, 0.0, 3.0, 1.0]])  # IoU exactly 1/3
    assert O.nms(boxes, 1 / 3).numpy().tolist() == [0, 1]
    assert O.nms(boxes, 0.33).numpy().tolist() == [0]
    with pytest.raises(ValueError, match=r"nms: argument 'scores' expected 2 scores \(one per box\), got 3"):
        O.nms(boxes, scores=eager.to_tensor([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="nms: 'category_idxs' needs 'categories'"):
        O.nms(boxes, scores=eager.to_tensor([1.0, 2.0]), category_idxs=eager.to_tensor([0, 1]))
    with pytest.raises(ValueError, match=r"nms: argument 'boxes' expected shape \[..., 4\], got \[2, 2\]"):
        O.nms(eager.to_tensor([[0.0, 1.0], [1.0, 2.0]]))


def test_conv_norm_activation():
    block = O.ConvNormActivation(3, 4, 3, stride=2)
    assert [type(layer).__name__ for layer in block] == ["Conv2D", "BatchNorm2D", "ReLU"]
    assert block[0].bias is None and block(eager.rand([1, 3, 8, 8])).shape == [1, 4, 4, 4]
    plain = O.ConvNormActivation(3, 4, 5, norm_layer=None, activation_layer=None)
    assert len(plain) == 1 and plain[0].bias is not None and plain(eager.rand([1, 3, 8, 8])).shape == [1, 4, 8, 8]


@pytest.mark.usefixtures("device")
def test_ops_run_on_the_default_device(rois):
    x, boxes, num, image_of = rois
    xt = eager.to_tensor(x, stop_gradient=False)
    bt, nt = eager.to_tensor(boxes), eager.to_tensor(num)
    out = O.roi_align(xt, bt, nt, 2)
    assert out.place == xt.place
    np.testing.assert_allclose(out.numpy(), _roi_align_loop(x, boxes, image_of, (2, 2), 1.0, -1, True), atol=1e-12)
    pooled = O.roi_pool(xt, bt, nt, 2)
    assert pooled.place == xt.place
    np.testing.assert_array_equal(pooled.numpy(), _roi_pool_loop(x, boxes, image_of, (2, 2), 1.0))
    (out.sum() + pooled.sum()).backward()
    assert xt.grad.place == xt.place and np.isfinite(xt.grad.numpy()).all()
    kept = O.nms(bt, 0.1, scores=eager.to_tensor(np.arange(5.0)))
    assert kept.place == bt.place and kept.numpy().tolist() == [4 - i for i in _nms_loop(boxes[::-1], 0.1)]
    code = O.box_coder(bt[:2], [0.1, 0.1, 0.2, 0.2], bt[2:4])
    assert code.place == bt.place
    np.testing.assert_allclose(code.numpy(), _box_coder_loop(boxes[:2], [0.1, 0.1, 0.2, 0.2], boxes[2:4],
                                                             "encode_center_size", True, 0), rtol=1e-12)
    r = np.random.default_rng(13)
    xs, ws, offs = r.standard_normal((1, 2, 4, 4)), r.standard_normal((2, 2, 2, 2)), r.uniform(-1.5, 1.5, (1, 8, 3, 3))
    xd = eager.to_tensor(xs, stop_gradient=False)
    deformed = O.deform_conv2d(xd, eager.to_tensor(offs), eager.to_tensor(ws))
    assert deformed.place == xd.place
    np.testing.assert_allclose(deformed.numpy(), _deform_conv_loop(xs, offs, ws, None, 1, 0, 1, 1, 1, None),
                               rtol=1e-10, atol=1e-10)
    deformed.sum().backward()
    assert xd.grad.place == xd.place
    priors, prior_vars = O.prior_box(eager.rand([1, 2, 2, 2]), eager.rand([1, 3, 8, 8]), [4.0])
    assert priors.place == xt.place and prior_vars.place == xt.place
    assert priors.numpy()[1, 1, 0].tolist() == [0.5, 0.5, 1.0, 1.0]
    yolo_boxes, _ = O.yolo_box(eager.zeros([1, 14, 2, 2]), eager.to_tensor([[64, 64]]), [10, 13, 16, 30], 2, 0.01, 32)
    assert yolo_boxes.place == xt.place and yolo_boxes.numpy()[0, 0].tolist() == [11.0, 9.5, 21.0, 22.5]
    shuffled = M.shufflenetv2.channel_shuffle(eager.arange(4, dtype="float32").reshape([1, 4, 1, 1]), 2)
    assert shuffled.place == xt.place and shuffled.flatten().numpy().tolist() == [0.0, 2.0, 1.0, 3.0]


def _box_coder_loop(prior, var, target, code_type, normalized, axis):
    """Paddle's box_coder, element by element from its formulas."""
    norm = 0.0 if normalized else 1.0

    def centre(b):
        w, h = b[2] - b[0] + norm, b[3] - b[1] + norm
        return b[0] + w / 2, b[1] + h / 2, w, h

    def variance(j):
        if var is None:
            return np.ones(4)
        return np.asarray(var[j] if np.ndim(var) == 2 else var, np.float64)

    if code_type == "encode_center_size":
        out = np.zeros((len(target), len(prior), 4))
        for i, t in enumerate(target):
            tcx, tcy, tw, th = (t[0] + t[2]) / 2, (t[1] + t[3]) / 2, t[2] - t[0] + norm, t[3] - t[1] + norm
            for j, p in enumerate(prior):
                pcx, pcy, pw, ph = centre(p)
                code = [(tcx - pcx) / pw, (tcy - pcy) / ph, np.log(abs(tw / pw)), np.log(abs(th / ph))]
                out[i, j] = np.array(code) / variance(j)
        return out
    out = np.zeros(target.shape)
    for i in range(target.shape[0]):
        for j in range(target.shape[1]):
            k = j if axis == 0 else i
            pcx, pcy, pw, ph = centre(prior[k])
            v, t = variance(k), target[i, j]
            cx, cy = v[0] * t[0] * pw + pcx, v[1] * t[1] * ph + pcy
            w, h = np.exp(v[2] * t[2]) * pw, np.exp(v[3] * t[3]) * ph
            out[i, j] = [cx - w / 2, cy - h / 2, cx + w / 2 - norm, cy + h / 2 - norm]
    return out


@pytest.mark.parametrize("var_kind", ["none", "list", "tensor"])
@pytest.mark.parametrize("normalized", [True, False])
def test_box_coder_against_a_loop(var_kind, normalized):
    rng = np.random.default_rng(6)

    def corners(n):
        xy = rng.uniform(0, 5, (n, 2))
        return np.concatenate([xy, xy + rng.uniform(0.5, 3, (n, 2))], 1)

    prior, target = corners(3), corners(4)
    var = {"none": None, "list": [0.1, 0.1, 0.2, 0.2], "tensor": rng.uniform(0.1, 1, (3, 4))}[var_kind]
    var_arg = eager.to_tensor(var) if var_kind == "tensor" else var
    encoded = O.box_coder(eager.to_tensor(prior), var_arg, eager.to_tensor(target), box_normalized=normalized)
    assert encoded.shape == [4, 3, 4]
    np.testing.assert_allclose(encoded.numpy(), _box_coder_loop(prior, var, target, "encode_center_size", normalized,
                                                                0), rtol=1e-12, atol=1e-12)
    offsets = rng.standard_normal((4, 3, 4)) * 0.5
    for axis, priors in [(0, prior), (1, corners(4))]:
        pv = var if var_kind != "tensor" else rng.uniform(0.1, 1, (len(priors), 4))
        pv_arg = eager.to_tensor(pv) if var_kind == "tensor" else pv
        decoded = O.box_coder(eager.to_tensor(priors), pv_arg, eager.to_tensor(offsets), "decode_center_size",
                              normalized, axis=axis)
        np.testing.assert_allclose(decoded.numpy(), _box_coder_loop(priors, pv, offsets, "decode_center_size",
                                                                    normalized, axis), rtol=1e-12, atol=1e-12)
    # normalised boxes: decoding the encoding gives the targets back (each against each prior); pixel boxes come
    # back half a pixel up-left, as in Paddle (the encoder's target centre leaves out the +1 its width has)
    back = O.box_coder(eager.to_tensor(prior), var_arg, encoded, "decode_center_size", normalized)
    shift = 0.0 if normalized else 0.5
    np.testing.assert_allclose(back.numpy(), np.broadcast_to(target[:, None, :] - shift, (4, 3, 4)), rtol=1e-10,
                               atol=1e-10)


def test_box_coder_errors():
    prior = eager.to_tensor([[0.0, 0.0, 2.0, 2.0]])
    with pytest.raises(ValueError, match="box_coder: argument 'code_type' expected 'encode_center_size' or"):
        O.box_coder(prior, None, prior, "encode")
    with pytest.raises(ValueError, match=r"box_coder: argument 'target_box' expected a 3-D Tensor, got shape \[1, 4\]"):
        O.box_coder(prior, None, prior, "decode_center_size")
    with pytest.raises(ValueError, match=r"box_coder: with axis=0, target_box \[2, 2, 4\] expected dimension 1"):
        O.box_coder(prior, None, eager.zeros([2, 2, 4]), "decode_center_size")
    with pytest.raises(TypeError, match="box_coder: argument 'prior_box_var' expected None, 4 floats or a Tensor"):
        O.box_coder(prior, [1.0, 1.0], prior)
    with pytest.raises(ValueError, match=r"box_coder: argument 'prior_box_var' expected shape \[1, 4\]"):
        O.box_coder(prior, eager.ones([2, 4]), prior)


# ---- Flowers and VOC2012 from local archives ----------------------------------------------------------------------

def _png_bytes(array):
    import io
    buffer = io.BytesIO()
    PIL_Image.fromarray(array).save(buffer, format="PNG")  # lossless, whatever the member's name says
    return buffer.getvalue()


def test_flowers_reads_the_archive_and_paddles_split(tmp_path):
    scipy_io = pytest.importorskip("scipy.io")
    rng = np.random.default_rng(7)
    images = {i: rng.integers(0, 256, (6, 5, 3), dtype=np.uint8) for i in range(1, 7)}
    write_tar(tmp_path / "102flowers.tgz", {f"jpg/image_{i:05d}.jpg": _png_bytes(a) for i, a in images.items()})
    labels = np.array([[3, 1, 102, 7, 7, 2]])
    scipy_io.savemat(tmp_path / "imagelabels.mat", {"labels": labels})
    scipy_io.savemat(tmp_path / "setid.mat", {"trnid": np.array([[1, 2]]), "valid": np.array([[3]]),
                                             "tstid": np.array([[6, 4, 5]])})
    files = [str(tmp_path / n) for n in ("102flowers.tgz", "imagelabels.mat", "setid.mat")]
    train = D.Flowers(*files)  # Paddle's 'train' is the official test split (tstid)
    assert len(train) == 3
    image, label = train[0]
    assert label.dtype == np.int64 and label.tolist() == [2]
    np.testing.assert_array_equal(np.asarray(image), images[6])
    test = D.Flowers(*files, mode="test", backend="cv2")
    image, label = test[1]
    assert image.dtype == np.float32 and label.tolist() == [1]
    np.testing.assert_array_equal(image, images[2])
    import pickle
    again = pickle.loads(pickle.dumps(train))
    np.testing.assert_array_equal(np.asarray(again[2][0]), images[5])
    assert D.Flowers(*files, mode="valid", transform=eager.vision.transforms.ToTensor())[0][0].shape == [3, 6, 5]
    with pytest.raises(ValueError, match="Flowers: argument 'mode' expected 'train', 'valid' or 'test', got 'val'"):
        D.Flowers(*files, mode="val")
    with pytest.raises(ValueError, match="Flowers: argument 'data_file' is not set and download is False"):
        D.Flowers(None, files[1], files[2], download=False)
    with pytest.raises(ValueError, match="Flowers: cannot read .* as a MATLAB file"):
        D.Flowers(files[0], files[0], files[2])


def test_voc2012_reads_the_segmentation_pairs(tmp_path):
    rng = np.random.default_rng(8)
    root = "VOCdevkit/VOC2012/"
    members, pairs = {}, {}
    for n in ["2007_000032", "2007_000039", "2008_000001"]:
        image = rng.integers(0, 256, (4, 6, 3), dtype=np.uint8)
        label = rng.integers(0, 21, (4, 6), dtype=np.uint8)
        pairs[n] = (image, label)
        members[f"{root}JPEGImages/{n}.jpg"] = _png_bytes(image)
        members[f"{root}SegmentationClass/{n}.png"] = _png_bytes(label)
    members[f"{root}ImageSets/Segmentation/trainval.txt"] = b"2007_000032\n2007_000039\n2008_000001\n"
    members[f"{root}ImageSets/Segmentation/train.txt"] = b"2007_000039\n"
    members[f"{root}ImageSets/Segmentation/val.txt"] = b"2008_000001\n2007_000032\n"
    write_tar(tmp_path / "voc.tar", members, mode="w")
    ds = D.VOC2012(str(tmp_path / "voc.tar"))
    assert len(ds) == 3
    image, label = ds[1]
    np.testing.assert_array_equal(np.asarray(image), pairs["2007_000039"][0])
    np.testing.assert_array_equal(np.asarray(label), pairs["2007_000039"][1])
    ds = D.VOC2012(str(tmp_path / "voc.tar"), mode="valid", backend="cv2")
    image, label = ds[0]
    assert image.dtype == np.float32 and label.dtype == np.float32 and label.shape == (4, 6)
    np.testing.assert_array_equal(label, pairs["2008_000001"][1])
    assert len(D.VOC2012(str(tmp_path / "voc.tar"), mode="test")) == 1
    write_tar(tmp_path / "bad.tar", {"x.txt": b"x"}, mode="w")
    with pytest.raises(ValueError, match=r"VOC2012: .*bad.tar' has no member 'VOCdevkit/VOC2012/ImageSets/Segment"):
        D.VOC2012(str(tmp_path / "bad.tar"))
    (tmp_path / "junk.tar").write_bytes(b"not a tar")
    with pytest.raises(ValueError, match="VOC2012: cannot read .* as a tar archive"):
        D.VOC2012(str(tmp_path / "junk.tar"))


@pytest.mark.parametrize("module", ["eager.vision.ops", "eager.vision.models._layers",
                                    "eager.vision.models.mobilenetv2", "eager.vision.models.mobilenetv3",
                                    "eager.vision.models.shufflenetv2", "eager.vision.models.squeezenet"])
def test_docstring_examples_run(module, tmp_path):
    import doctest
    import importlib
    jpeg = tmp_path / "example.jpg"
    PIL_Image.fromarray(np.zeros((4, 5, 3), np.uint8)).save(jpeg)
    result = doctest.testmod(importlib.import_module(module),
                             extraglobs={"eager": eager, "np": np, "path_to_jpeg": str(jpeg)},
                             optionflags=doctest.NORMALIZE_WHITESPACE, report=False)
    assert result.failed == 0 and result.attempted > 0


@pytest.mark.usefixtures("device")
def test_read_file_and_decode_jpeg(tmp_path):
    rng = np.random.default_rng(9)
    rgb = rng.integers(0, 256, (6, 7, 3), dtype=np.uint8)
    PIL_Image.fromarray(rgb).save(tmp_path / "a.png")                  # lossless: exact pixels
    PIL_Image.fromarray(rgb).save(tmp_path / "a.jpg", quality=95)
    data = O.read_file(str(tmp_path / "a.png"))
    assert data.dtype == eager.uint8 and data.numpy().tobytes() == (tmp_path / "a.png").read_bytes()
    image = O.decode_jpeg(data)
    assert image.shape == [3, 6, 7] and image.dtype == eager.uint8 and image.place == data.place
    np.testing.assert_array_equal(image.numpy(), rgb.transpose(2, 0, 1))
    gray = O.decode_jpeg(data, mode="gray").numpy()
    np.testing.assert_array_equal(gray[0], np.asarray(PIL_Image.fromarray(rgb).convert("L")))
    jpeg = O.decode_jpeg(O.read_file(tmp_path / "a.jpg"), mode="rgb").numpy()
    np.testing.assert_array_equal(jpeg, np.asarray(PIL_Image.open(tmp_path / "a.jpg")).transpose(2, 0, 1))
    with pytest.raises(FileNotFoundError, match="read_file: argument 'filename': no file at"):
        O.read_file(str(tmp_path / "none.jpg"))
    with pytest.raises(ValueError, match="decode_jpeg: argument 'mode' expected one of"):
        O.decode_jpeg(data, mode="bgr")
    with pytest.raises(ValueError, match="decode_jpeg: argument 'x' does not hold a decodable image"):
        O.decode_jpeg(eager.to_tensor(np.arange(10, dtype=np.uint8)))
    with pytest.raises(TypeError, match="decode_jpeg: argument 'x' expected a uint8 Tensor of file bytes"):
        O.decode_jpeg(eager.to_tensor(np.arange(10.0)))


def _psroi_pool_loop(x, boxes, image_of, out_hw, scale):
    ph_n, pw_n = out_hw
    h, w = x.shape[2:]
    out_c = x.shape[1] // (ph_n * pw_n)
    out = np.zeros((len(boxes), out_c, ph_n, pw_n))
    rnd = lambda v: float(np.floor(v + 0.5)) if v >= 0 else -float(np.floor(-v + 0.5))  # noqa: E731  C's round
    for r, (x1, y1, x2, y2) in enumerate(boxes):
        sw, sh = rnd(x1) * scale, rnd(y1) * scale
        ew, eh = (rnd(x2) + 1) * scale, (rnd(y2) + 1) * scale
        bh, bw = max(eh - sh, 0.1) / ph_n, max(ew - sw, 0.1) / pw_n
        for c in range(out_c):
            for ph in range(ph_n):
                for pw in range(pw_n):
                    h0 = min(max(int(np.floor(bh * ph + sh)), 0), h)
                    h1 = min(max(int(np.ceil(bh * (ph + 1) + sh)), 0), h)
                    w0 = min(max(int(np.floor(bw * pw + sw)), 0), w)
                    w1 = min(max(int(np.ceil(bw * (pw + 1) + sw)), 0), w)
                    if h1 > h0 and w1 > w0:
                        channel = (c * ph_n + ph) * pw_n + pw
                        out[r, c, ph, pw] = x[image_of[r], channel, h0:h1, w0:w1].mean()
    return out


@pytest.mark.parametrize("out_hw, scale", [((2, 3), 1.0), ((2, 2), 0.5), ((1, 1), 1.0)])
def test_psroi_pool_against_a_loop(out_hw, scale):
    rng = np.random.default_rng(10)
    channels = 2 * out_hw[0] * out_hw[1]
    x = rng.standard_normal((2, channels, 9, 11))
    boxes = np.array([[0.3, 0.7, 6.2, 5.1], [2.0, 1.0, 2.4, 8.8], [-1.5, -0.5, 3.0, 2.0], [4.0, 3.0, 12.5, 10.0]])
    xt = eager.to_tensor(x, stop_gradient=False)
    out = O.psroi_pool(xt, eager.to_tensor(boxes), eager.to_tensor(np.array([1, 3], np.int32)), out_hw, scale)
    expected = _psroi_pool_loop(x, boxes, [0, 1, 1, 1], out_hw, scale)
    assert out.shape == list(expected.shape)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)
    upstream = rng.standard_normal(expected.shape)
    (out * eager.to_tensor(upstream)).sum().backward()
    # linear in x: the gradient at a pixel is <upstream, the output's response to that pixel>; the last channel
    # of image 1, pixel by pixel
    expected_grad = np.zeros((9, 11))
    for i in range(9):
        for j in range(11):
            e = np.zeros_like(x)
            e[1, channels - 1, i, j] = 1.0
            expected_grad[i, j] = (upstream * _psroi_pool_loop(e, boxes, [0, 1, 1, 1], out_hw, scale)).sum()
    assert np.abs(expected_grad).max() > 0
    np.testing.assert_allclose(xt.grad.numpy()[1, channels - 1], expected_grad, atol=1e-12)
    layer = O.PSRoIPool(out_hw, scale)
    np.testing.assert_array_equal(layer(xt, eager.to_tensor(boxes), eager.to_tensor([1, 3])).numpy(), out.numpy())
    with pytest.raises(ValueError, match=r"psroi_pool: the channels of x \(5\) must be a multiple of"):
        O.psroi_pool(eager.rand([1, 5, 4, 4]), eager.to_tensor([[0.0, 0.0, 2.0, 2.0]]), eager.to_tensor([1]), 2)


def _deform_conv_loop(x, offset, weight, bias, stride, padding, dilation, dg, groups, mask):
    """Deformable convolution from its definition, one output value at a time."""
    n, cin, h, w = x.shape
    cout, cpg, kh, kw = weight.shape
    oh, ow = offset.shape[2:]

    def sample(img, y, xx):
        if y <= -1 or y >= h or xx <= -1 or xx >= w:
            return 0.0
        y0, x0 = int(np.floor(y)), int(np.floor(xx))
        total = 0.0
        for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
            for xc, wx in ((x0, 1 - (xx - x0)), (x0 + 1, xx - x0)):
                if 0 <= yy < h and 0 <= xc < w:
                    total += wy * wx * img[yy, xc]
        return total

    out = np.zeros((n, cout, oh, ow))
    for b in range(n):
        for co in range(cout):
            g = co // (cout // groups)
            for i in range(oh):
                for j in range(ow):
                    acc = 0.0 if bias is None else bias[co]
                    for cl in range(cpg):
                        c = g * cpg + cl
                        d = c // (cin // dg)
                        for ki in range(kh):
                            for kj in range(kw):
                                k = ki * kw + kj
                                dy = offset[b, 2 * (d * kh * kw + k), i, j]
                                dx = offset[b, 2 * (d * kh * kw + k) + 1, i, j]
                                y = i * stride - padding + ki * dilation + dy
                                xx = j * stride - padding + kj * dilation + dx
                                m = 1.0 if mask is None else mask[b, d * kh * kw + k, i, j]
                                acc += weight[co, cl, ki, kj] * m * sample(x[b, c], y, xx)
                    out[b, co, i, j] = acc
    return out


@pytest.mark.parametrize("stride, padding, dilation, dg, groups, with_mask", [
    (1, 1, 1, 1, 1, False), (2, 1, 1, 2, 1, True), (1, 2, 2, 2, 2, True)])
def test_deform_conv2d_against_a_loop(stride, padding, dilation, dg, groups, with_mask):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 4, 6, 5))
    weight = rng.standard_normal((6, 4 // groups, 3, 3))
    bias = rng.standard_normal(6)
    oh = (6 + 2 * padding - (dilation * 2 + 1)) // stride + 1
    ow = (5 + 2 * padding - (dilation * 2 + 1)) // stride + 1
    offset = rng.uniform(-2.5, 2.5, (2, 2 * dg * 9, oh, ow))
    mask = rng.uniform(0, 1, (2, dg * 9, oh, ow)) if with_mask else None
    out = O.deform_conv2d(eager.to_tensor(x), eager.to_tensor(offset), eager.to_tensor(weight), eager.to_tensor(bias),
                          stride, padding, dilation, dg, groups, None if mask is None else eager.to_tensor(mask))
    expected = _deform_conv_loop(x, offset, weight, bias, stride, padding, dilation, dg, groups, mask)
    assert out.shape == list(expected.shape)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10, atol=1e-10)


def test_deform_conv2d_gradients_match_finite_differences():
    from eager.autograd import gradcheck
    rng = np.random.default_rng(12)
    # offsets kept away from whole numbers, where the bilinear sampling has kinks
    offset = rng.integers(-2, 2, (1, 2 * 4, 3, 3)) + rng.uniform(0.2, 0.8, (1, 8, 3, 3))

    def var(a):
        return eager.to_tensor(a, stop_gradient=False)

    assert gradcheck(lambda x, off, w, b, m: O.deform_conv2d(x, off, w, b, padding=0, mask=m),
                     (var(rng.standard_normal((1, 2, 4, 4))), var(offset), var(rng.standard_normal((3, 2, 2, 2))),
                      var(rng.standard_normal(3)), var(rng.uniform(0, 1, (1, 4, 3, 3)))))


def test_deform_conv2d_layer_and_errors():
    layer = O.DeformConv2D(4, 6, 3, padding=1, deformable_groups=2, groups=2)
    assert layer.weight.shape == [6, 2, 3, 3] and layer.bias.shape == [6]
    x = eager.rand([1, 4, 5, 5])
    out = layer(x, eager.zeros([1, 36, 5, 5]), eager.ones([1, 18, 5, 5]))
    np.testing.assert_allclose(out.numpy(), eager.nn.functional.conv2d(x, layer.weight, layer.bias, padding=1,
                                                                       groups=2).numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"deform_conv2d: argument 'offset' expected shape \[1, 18, 5, 5\], got"):
        O.deform_conv2d(x, eager.zeros([1, 18, 4, 4]), eager.rand([6, 4, 3, 3]), padding=1)
    with pytest.raises(ValueError, match=r"deform_conv2d: argument 'mask' expected shape \[1, 9, 5, 5\]"):
        O.deform_conv2d(x, eager.zeros([1, 18, 5, 5]), eager.rand([6, 4, 3, 3]), padding=1,
                        mask=eager.ones([1, 9, 4, 4]))
    with pytest.raises(ValueError, match="deform_conv2d: weight .* with groups=1 expected x to have 2 channels"):
        O.deform_conv2d(x, eager.zeros([1, 18, 5, 5]), eager.rand([6, 2, 3, 3]), padding=1)
    with pytest.raises(ValueError, match="deform_conv2d: argument 'stride' expected an int >= 1"):
        O.deform_conv2d(x, eager.zeros([1, 18, 5, 5]), eager.rand([6, 4, 3, 3]), stride=0)


def _prior_box_loop(fh, fw, ih, iw, mins, maxs, ars, flip, clip, steps, offset, mm_order):
    ratios = [1.0]
    for ar in ars:
        if not any(abs(ar - r) < 1e-6 for r in ratios):
            ratios += [ar, 1.0 / ar] if flip else [ar]
    sw, sh = steps if steps[0] and steps[1] else (iw / fw, ih / fh)
    out = []
    for h in range(fh):
        row = []
        for w in range(fw):
            cx, cy = (w + offset) * sw, (h + offset) * sh
            cell = []

            def push(bw, bh):
                cell.append([(cx - bw / 2) / iw, (cy - bh / 2) / ih, (cx + bw / 2) / iw, (cy + bh / 2) / ih])
            for i, mn in enumerate(mins):
                if mm_order:
                    push(mn, mn)
                    if maxs:
                        push(np.sqrt(mn * maxs[i]), np.sqrt(mn * maxs[i]))
                    for ar in ratios:
                        if abs(ar - 1.0) >= 1e-6:
                            push(mn * np.sqrt(ar), mn / np.sqrt(ar))
                else:
                    for ar in ratios:
                        push(mn * np.sqrt(ar), mn / np.sqrt(ar))
                    if maxs:
                        push(np.sqrt(mn * maxs[i]), np.sqrt(mn * maxs[i]))
            row.append(cell)
        out.append(row)
    out = np.array(out)
    return np.clip(out, 0, 1) if clip else out


@pytest.mark.parametrize("maxs, ars, flip, clip, steps, offset, mm_order", [
    (None, [1.0], False, False, [0.0, 0.0], 0.5, False),
    ([3.0, 6.0], [2.0, 3.0, 2.0], True, True, [0.0, 0.0], 0.5, False),
    ([3.0, 6.0], [2.0], True, False, [4.0, 3.0], 0.0, True)])
def test_prior_box_against_a_loop(maxs, ars, flip, clip, steps, offset, mm_order):
    feature, image = eager.rand([1, 2, 3, 2]), eager.rand([1, 3, 9, 8])
    boxes, variances = O.prior_box(feature, image, [2.0, 4.0], maxs, ars, [0.1, 0.2, 0.3, 0.4], flip, clip, steps,
                                   offset, mm_order)
    expected = _prior_box_loop(3, 2, 9, 8, [2.0, 4.0], maxs, ars, flip, clip, steps, offset, mm_order)
    assert boxes.shape == list(expected.shape) and variances.shape == boxes.shape
    np.testing.assert_allclose(boxes.numpy(), expected, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(variances.numpy()[2, 1, -1], [0.1, 0.2, 0.3, 0.4], rtol=1e-6)


def test_prior_box_by_hand_and_errors():
    # one 4x4 square per cell of a 2x2 grid over an 8x8 image: centres at 2 and 6
    boxes, _ = O.prior_box(eager.rand([1, 2, 2, 2]), eager.rand([1, 3, 8, 8]), [4.0])
    np.testing.assert_allclose(boxes.numpy()[:, :, 0], [[[0, 0, .5, .5], [.5, 0, 1, .5]],
                                                        [[0, .5, .5, 1], [.5, .5, 1, 1]]])
    with pytest.raises(ValueError, match=r"prior_box: argument 'max_sizes' expected 2 sizes \(one per min size\)"):
        O.prior_box(eager.rand([1, 2, 2, 2]), eager.rand([1, 3, 8, 8]), [2.0, 4.0], [5.0])
    with pytest.raises(ValueError, match="prior_box: argument 'variance' expected 4 floats"):
        O.prior_box(eager.rand([1, 2, 2, 2]), eager.rand([1, 3, 8, 8]), [2.0], variance=[0.1])


def _yolo_box_loop(x, img_size, anchors, class_num, conf_thresh, ratio, clip, scale, iou_aware, factor):
    sig = lambda v: 1.0 / (1.0 + np.exp(-v))  # noqa: E731
    n, _, h, w = x.shape
    a = len(anchors) // 2
    boxes = np.zeros((n, a * h * w, 4))
    scores = np.zeros((n, a * h * w, class_num))
    for i in range(n):
        ih, iw = img_size[i]
        for j in range(a):
            base = a + j * (5 + class_num) if iou_aware else j * (5 + class_num)
            for k in range(h):
                for m in range(w):
                    conf = sig(x[i, base + 4, k, m])
                    if iou_aware:
                        conf = conf ** (1 - factor) * sig(x[i, j, k, m]) ** factor
                    if conf < conf_thresh:
                        continue
                    cx = (m + sig(x[i, base, k, m]) * scale - 0.5 * (scale - 1)) * iw / w
                    cy = (k + sig(x[i, base + 1, k, m]) * scale - 0.5 * (scale - 1)) * ih / h
                    bw = np.exp(x[i, base + 2, k, m]) * anchors[2 * j] * iw / (ratio * w)
                    bh = np.exp(x[i, base + 3, k, m]) * anchors[2 * j + 1] * ih / (ratio * h)
                    box = [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]
                    if clip:
                        box = [max(box[0], 0), max(box[1], 0), min(box[2], iw - 1), min(box[3], ih - 1)]
                    row = j * h * w + k * w + m
                    boxes[i, row] = box
                    scores[i, row] = [conf * sig(x[i, base + 5 + c, k, m]) for c in range(class_num)]
    return boxes, scores


@pytest.mark.parametrize("clip, scale, iou_aware", [(True, 1.0, False), (False, 1.2, False), (True, 1.05, True)])
def test_yolo_box_against_a_loop(clip, scale, iou_aware):
    rng = np.random.default_rng(14)
    anchors, classes = [10, 13, 16, 30, 33, 23], 3
    x = rng.standard_normal((2, 3 * (5 + classes) + (3 if iou_aware else 0), 4, 5)) * 2
    sizes = np.array([[320, 416], [200, 150]])
    boxes, scores = O.yolo_box(eager.to_tensor(x), eager.to_tensor(sizes), anchors, classes, 0.4, 32, clip,
                               scale_x_y=scale, iou_aware=iou_aware, iou_aware_factor=0.4)
    eb, es = _yolo_box_loop(x, sizes, anchors, classes, 0.4, 32, clip, scale, iou_aware, 0.4)
    assert boxes.shape == [2, 60, 4] and scores.shape == [2, 60, 3]
    assert (es == 0).any() and (es > 0).any()           # the threshold drops some boxes and keeps others
    np.testing.assert_allclose(boxes.numpy(), eb, rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(scores.numpy(), es, rtol=1e-10, atol=1e-12)


def test_yolo_box_errors():
    with pytest.raises(ValueError, match=r"yolo_box: x has 14 channels; 2 anchors and 3 classes need 16"):
        O.yolo_box(eager.zeros([1, 14, 2, 2]), eager.to_tensor([[64, 64]]), [10, 13, 16, 30], 3, 0.01, 32)
    with pytest.raises(ValueError, match=r"yolo_box: argument 'img_size' expected an int Tensor \[1, 2\]"):
        O.yolo_box(eager.zeros([1, 14, 2, 2]), eager.to_tensor([[64.0, 64.0]]), [10, 13, 16, 30], 2, 0.01, 32)
    with pytest.raises(ValueError, match="yolo_box: argument 'anchors' expected .width, height. pairs, got 3"):
        O.yolo_box(eager.zeros([1, 14, 2, 2]), eager.to_tensor([[64, 64]]), [10, 13, 16], 2, 0.01, 32)


def test_distribute_fpn_proposals_against_a_loop():
    rng = np.random.default_rng(15)
    xy = rng.uniform(0, 100, (12, 2))
    rois = np.concatenate([xy, xy + rng.uniform(1, 600, (12, 2))], 1)
    counts = np.array([5, 0, 7], np.int32)
    rt = eager.to_tensor(rois, stop_gradient=False)
    multi, restore, per_level = O.distribute_fpn_proposals(rt, 2, 5, 4, 224, pixel_offset=True,
                                                           rois_num=eager.to_tensor(counts))
    levels = []
    for x1, y1, x2, y2 in rois:   # by hand: sqrt of the inclusive area, log2 against the reference, clamped
        scale = np.sqrt((x2 - x1 + 1) * (y2 - y1 + 1))
        levels.append(min(max(int(np.floor(np.log2(scale / 224 + 1e-8) + 4)), 2), 5))
    levels = np.array(levels)
    assert len(multi) == 4 and len(set(levels)) > 1
    for i, lv in enumerate(range(2, 6)):
        np.testing.assert_array_equal(multi[i].numpy(), rois[levels == lv])
        image = np.repeat([0, 1, 2], counts)
        assert per_level[i].numpy().tolist() == [int(((levels == lv) & (image == b)).sum()) for b in range(3)]
    stacked = np.concatenate([m.numpy() for m in multi])
    assert restore.shape == [12, 1] and restore.dtype == eager.int32
    np.testing.assert_array_equal(stacked[restore.numpy()[:, 0]], rois)
    eager.concat(multi).sum().backward()
    np.testing.assert_array_equal(rt.grad.numpy(), np.ones_like(rois))
    assert O.distribute_fpn_proposals(rt, 2, 5, 4, 224)[2] is None
    with pytest.raises(ValueError, match=r"distribute_fpn_proposals: argument 'rois_num' \[5\] must be non-negative"):
        O.distribute_fpn_proposals(rt, 2, 5, 4, 224, rois_num=eager.to_tensor([5]))


def _matrix_nms_loop(boxes, scores, st, pt, top_k, keep_top_k, gaussian, sigma, background, normalized):
    def iou(a, b):
        e = 0.0 if normalized else 1.0
        if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
            return 0.0                       # Paddle's kernel: apart by any gap (even under a pixel) is no overlap
        iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]) + e)
        ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]) + e)
        inter = iw * ih
        union = (a[2] - a[0] + e) * (a[3] - a[1] + e) + (b[2] - b[0] + e) * (b[3] - b[1] + e) - inter
        return inter / union if union > 0 else 0.0

    rows, nums, index = [], [], []
    for b in range(boxes.shape[0]):
        found = []
        for c in range(scores.shape[1]):
            if c == background:
                continue
            s = scores[b, c]
            order = sorted([i for i in range(len(s)) if s[i] > st], key=lambda i: -s[i])
            if top_k > -1:
                order = order[:top_k]
            best_iou = [max([iou(boxes[b, order[i]], boxes[b, order[j]]) for j in range(i)], default=0.0)
                        for i in range(len(order))]
            for i, m in enumerate(order):
                decay = 1.0
                for j in range(i):
                    o = iou(boxes[b, m], boxes[b, order[j]])
                    d = np.exp((best_iou[j] ** 2 - o ** 2) * sigma) if gaussian else (1 - o) / (1 - best_iou[j])
                    decay = min(decay, d)
                if s[m] * decay > pt:
                    found.append((s[m] * decay, c, m))
        found.sort(key=lambda f: -f[0])
        found = found[:keep_top_k] if keep_top_k > -1 else found
        nums.append(len(found))
        rows += [[c, v, *boxes[b, m]] for v, c, m in found]
        index += [b * boxes.shape[1] + m for _, _, m in found]
    return np.array(rows).reshape(-1, 6), nums, index


@pytest.mark.parametrize("gaussian, normalized, top_k, keep_top_k", [
    (False, True, -1, -1), (True, True, 6, 5), (False, False, 8, -1)])
def test_matrix_nms_against_a_loop(gaussian, normalized, top_k, keep_top_k):
    rng = np.random.default_rng(16)
    xy = rng.uniform(0, 4, (2, 10, 2))
    boxes = np.concatenate([xy, xy + rng.uniform(1, 4, (2, 10, 2))], -1)
    scores = rng.uniform(0, 1, (2, 3, 10))
    out, nums, index = O.matrix_nms(eager.to_tensor(boxes), eager.to_tensor(scores), 0.2, 0.1, top_k, keep_top_k,
                                    gaussian, 2.0, 0, normalized, return_index=True)
    rows, enums, eindex = _matrix_nms_loop(boxes, scores, 0.2, 0.1, top_k, keep_top_k, gaussian, 2.0, 0, normalized)
    assert len(rows) > 0 and nums.numpy().tolist() == enums
    np.testing.assert_allclose(out.numpy(), rows, rtol=1e-12, atol=1e-12)
    assert index.numpy()[:, 0].tolist() == eindex


def test_matrix_nms_options_and_errors():
    boxes = eager.to_tensor(np.array([[[0.0, 0.0, 1.0, 1.0]]]))
    out, nums, index = O.matrix_nms(boxes, eager.to_tensor(np.array([[[0.9], [0.3]]])), 0.5, 0.1, -1, -1,
                                    background_label=-1, return_rois_num=False)
    assert out.numpy().tolist() == [[0.0, 0.9, 0.0, 0.0, 1.0, 1.0]] and nums is None and index is None
    out, nums, _ = O.matrix_nms(boxes, eager.to_tensor(np.array([[[0.9]]])), 0.5, 0.1, -1, -1)  # only background
    assert out.shape == [0, 6] and nums.numpy().tolist() == [0]
    with pytest.raises(ValueError, match=r"matrix_nms: argument 'scores' expected shape \[1, C, 1\]"):
        O.matrix_nms(boxes, eager.zeros([1, 2, 3]), 0.5, 0.1, -1, -1)
