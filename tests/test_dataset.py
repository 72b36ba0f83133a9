"""eager.dataset (Paddle's legacy paddle.dataset): common's cache lookup and
split/read helpers, the OpenCV image helpers against hand NumPy references, and
every reader module over small synthetic files written here in the real
formats into a temporary DATA_HOME (the modules' MD5 constants patched to the
written files')."""
import doctest
import gzip
import hashlib
import importlib
import io
import json
import os
import pickle
import re
import struct
import sys
import tarfile
import warnings
import zipfile
import zlib

import numpy as np
import pytest

import eager
from eager.dataset import (cifar, common, conll05, flowers, image, imdb, imikolov, mnist, movielens, uci_housing,
                           voc2012, wmt14, wmt16)

cv2 = pytest.importorskip("cv2")  # the 'cv2' extra, part of 'dev'


@pytest.fixture(autouse=True)
def quiet_deprecations():
    # The legacy readers warn on every call, as Paddle's; one test checks the warning.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


@pytest.fixture
def home(tmp_path, monkeypatch):
    folder = tmp_path / "data_home"
    monkeypatch.setattr(common, "DATA_HOME", str(folder))
    return folder


def put(monkeypatch, home, module, folder, url, md5_attr, data: bytes, name=None):
    """Writes ``data`` where download() looks for ``url`` and sets ``module.md5_attr`` to its MD5."""
    path = home / folder / (name or url.split("/")[-1])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    monkeypatch.setattr(module, md5_attr, hashlib.md5(data).hexdigest())
    return str(path)


def tar_bytes(members: dict, mode="w:gz") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def png_bytes(array) -> bytes:
    """An 8-bit RGB (H x W x 3) or grey (H x W) PNG written by hand (no image library)."""
    array = np.ascontiguousarray(array, dtype=np.uint8)
    height, width = array.shape[:2]
    colour = 2 if array.ndim == 3 else 0

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + array[y].tobytes() for y in range(height))  # filter 0 on every row
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


# ---------------------------------------------------------------- common


def test_data_home_is_paddles_cache_folder():
    home = os.path.expanduser("~")
    assert common.HOME == (home if os.access(home, os.W_OK) else common.tempfile.gettempdir())
    assert common.DATA_HOME == os.path.join(common.HOME, ".cache", "paddle", "dataset")


def test_must_mkdirs_creates_the_folder_once(tmp_path):
    common.must_mkdirs(str(tmp_path / "a" / "b"))
    common.must_mkdirs(tmp_path / "a" / "b")  # exists already: no error
    assert (tmp_path / "a" / "b").is_dir()
    with pytest.raises(TypeError, match="must_mkdirs: argument 'path' expected a path"):
        common.must_mkdirs(None)


def test_md5file_matches_known_digests(tmp_path):
    (tmp_path / "abc").write_bytes(b"abc")
    (tmp_path / "big").write_bytes(b"a" * 3_000_000)  # several read blocks
    assert common.md5file(str(tmp_path / "abc")) == "900150983cd24fb0d6963f7d28e17f72"
    assert common.md5file(tmp_path / "big") == hashlib.md5(b"a" * 3_000_000).hexdigest()
    with pytest.raises(FileNotFoundError, match="md5file: argument 'fname': no file at"):
        common.md5file(str(tmp_path / "none"))
    with pytest.raises(TypeError, match="md5file: argument 'fname' expected a path, got int"):
        common.md5file(3)


def test_download_finds_the_cached_file_and_never_fetches(home):
    url = "https://example.com/sets/thing.tgz"
    with pytest.raises(RuntimeError) as caught:
        common.download(url, "things", "0" * 32)
    message = str(caught.value)
    assert url in message and "never downloads" in message
    assert str(home / "things" / "thing.tgz") in message
    assert not home.exists()  # nothing created
    (home / "things").mkdir(parents=True)
    (home / "things" / "thing.tgz").write_bytes(b"payload")
    digest = hashlib.md5(b"payload").hexdigest()
    assert common.download(url, "things", digest) == str(home / "things" / "thing.tgz")
    assert common.download(url, "things", digest.upper()) == str(home / "things" / "thing.tgz")
    with pytest.raises(ValueError, match=f"has MD5 {digest}, expected {'1' * 32}.*thing.tgz"):
        common.download(url, "things", "1" * 32)
    (home / "things" / "other.bin").write_bytes(b"x")
    assert common.download(url, "things", hashlib.md5(b"x").hexdigest(), save_name="other.bin").endswith("other.bin")
    with pytest.raises(TypeError, match="download: argument 'module_name' expected a non-empty str"):
        common.download(url, None, digest)
    with pytest.raises(TypeError, match="download: argument 'md5sum' expected a non-empty str"):
        common.download(url, "things", 5)


def test_check_exists_and_download(home, tmp_path):
    (tmp_path / "here").write_bytes(b"")
    assert common._check_exists_and_download(str(tmp_path / "here"), "https://x/y", "0" * 32, "m") == \
        str(tmp_path / "here")
    with pytest.raises(ValueError, match="not exists and auto download disabled"):
        common._check_exists_and_download(None, "https://x/y", "0" * 32, "m", download=False)
    with pytest.raises(RuntimeError, match="https://x/y"):
        common._check_exists_and_download(None, "https://x/y", "0" * 32, "m")


def test_split_and_cluster_files_reader_round_trip(tmp_path):
    samples = [(i, np.arange(i)) for i in range(7)]
    pattern = str(tmp_path / "part-%03d.pickle")
    common.split(lambda: iter(samples), 3, pattern)
    assert sorted(os.listdir(tmp_path)) == ["part-000.pickle", "part-001.pickle", "part-002.pickle"]
    with open(tmp_path / "part-001.pickle", "rb") as f:
        assert [s[0] for s in pickle.load(f)] == [3, 4, 5]
    glob_pattern = str(tmp_path / "part-*.pickle")
    first = [s[0] for s in common.cluster_files_reader(glob_pattern, 2, 0)()]
    second = [s[0] for s in common.cluster_files_reader(glob_pattern, 2, 1)()]
    assert first == [0, 1, 2, 6] and second == [3, 4, 5]
    np.testing.assert_array_equal(list(common.cluster_files_reader(glob_pattern, 1, 0)())[4][1], np.arange(4))


def test_split_with_a_custom_dumper_and_loader(tmp_path):
    def dumper(obj, f):
        f.write(json.dumps(obj).encode())

    def loader(f):
        return json.loads(f.read().decode())

    common.split(lambda: iter(range(4)), 2, str(tmp_path / "j-%d.json"), dumper=dumper)
    assert json.loads((tmp_path / "j-1.json").read_text()) == [2, 3]
    reader = common.cluster_files_reader(str(tmp_path / "j-*.json"), 1, 0, loader=loader)
    assert list(reader()) == [0, 1, 2, 3]


def test_split_and_cluster_reader_errors(tmp_path):
    with pytest.raises(TypeError, match="split: argument 'dumper' expected a callable"):
        common.split(lambda: iter([1]), 1, dumper="pickle")
    with pytest.raises(ValueError, match="split: argument 'suffix' expected a str holding one %d"):
        common.split(lambda: iter([1]), 1, suffix=str(tmp_path / "no-number"))
    with pytest.raises(ValueError, match="split: argument 'line_count' expected an int >= 1, got 0"):
        common.split(lambda: iter([1]), 0)
    with pytest.raises(TypeError, match="split: argument 'reader' expected a reader"):
        common.split([1, 2], 1)
    with pytest.raises(ValueError, match=r"'trainer_id' expected an int in \[0, 2\), got 2"):
        common.cluster_files_reader("*.pickle", 2, 2)
    with pytest.raises(TypeError, match="cluster_files_reader: argument 'loader' expected a callable"):
        common.cluster_files_reader("*.pickle", 1, 0, loader=None)


def test_fetch_all_reports_the_first_missing_file(home):
    with pytest.raises(RuntimeError, match="cifar-10-python.tar.gz"):  # 'cifar' comes first
        common.fetch_all()


FETCHERS = [(cifar, "cifar-10-python.tar.gz"), (conll05, "conll05st%2FwordDict.txt"),
            (flowers, "102flowers.tgz"), (imdb, "imdb%2FaclImdb_v1.tar.gz"),
            (imikolov, "imikolov%2Fsimple-examples.tgz"), (mnist, "train-images-idx3-ubyte.gz"),
            (movielens, "movielens%2Fml-1m.zip"), (uci_housing, "housing.data"), (wmt14, "wmt14.tgz"),
            (wmt16, "wmt16.tar.gz")]


@pytest.mark.parametrize("module, name", FETCHERS, ids=[m.__name__.rsplit(".", 1)[1] for m, _ in FETCHERS])
def test_fetch_names_the_missing_file_and_where_to_put_it(home, module, name):
    with pytest.raises(RuntimeError, match=re.escape(name) + ".*never downloads.*" + re.escape(str(home))):
        module.fetch()


def test_voc2012_readers_name_the_missing_archive(home):
    with pytest.raises(RuntimeError, match="VOCtrainval_11-May-2012.tar.*voc2012"):
        voc2012.val()


def test_the_readers_are_deprecated_as_paddles(home):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError):
            mnist.train()
    assert [w.category for w in caught] == [DeprecationWarning]
    assert 'Please use "paddle.vision.datasets.MNIST"' in str(caught[0].message)


def test_eager_dataset_is_paddles_dataset_package():
    assert eager.dataset is importlib.import_module("eager.dataset")
    assert eager.dataset.mnist is mnist and eager.dataset.image is image
    assert eager.dataset.__all__ == []


# ---------------------------------------------------------------- image


def test_to_chw_matches_a_hand_transpose():
    im = np.arange(4 * 5 * 3).reshape(4, 5, 3)
    chw = image.to_chw(im)
    assert chw.shape == (3, 4, 5)
    for c in range(3):
        for y in range(4):
            for x in range(5):
                assert chw[c, y, x] == im[y, x, c]
    assert image.to_chw(im, order=(1, 0, 2)).shape == (5, 4, 3)
    with pytest.raises(ValueError, match="to_chw: argument 'order' expected a permutation of the 3 axes"):
        image.to_chw(im, order=(2, 0))
    with pytest.raises(TypeError, match="to_chw: argument 'im' expected a NumPy array, got list"):
        image.to_chw([[1]])


@pytest.mark.parametrize("h, w, size", [(6, 8, 4), (7, 8, 4), (7, 9, 2), (5, 5, 5)])
def test_center_crop_takes_the_middle(h, w, size):
    im = np.arange(h * w * 3).reshape(h, w, 3)
    top, left = (h - size) // 2, (w - size) // 2
    want = np.array([[im[top + i, left + j] for j in range(size)] for i in range(size)])
    np.testing.assert_array_equal(image.center_crop(im, size), want)
    np.testing.assert_array_equal(image.center_crop(im[:, :, 0], size, is_color=False), want[:, :, 0])


def test_random_crop_draws_from_numpys_global_generator():
    im = np.arange(6 * 7 * 3).reshape(6, 7, 3)
    np.random.seed(5)
    got = image.random_crop(im, 4)
    np.random.seed(5)
    top, left = np.random.randint(0, 3), np.random.randint(0, 4)
    np.testing.assert_array_equal(got, im[top:top + 4, left:left + 4])
    seen = set()
    for _ in range(200):
        crop = image.random_crop(im[:, :, 0], 4, is_color=False)
        seen.add((int(crop[0, 0]) // 21, int(crop[0, 0]) % 21 // 3))
    assert seen == {(t, l) for t in range(3) for l in range(4)}  # every offset is reachable


def test_left_right_flip_mirrors_columns():
    im = np.arange(2 * 3 * 3).reshape(2, 3, 3)
    flipped = image.left_right_flip(im)
    for x in range(3):
        np.testing.assert_array_equal(flipped[:, x], im[:, 2 - x])
    np.testing.assert_array_equal(image.left_right_flip(im[:, :, 1], is_color=False), im[:, ::-1, 1])


@pytest.mark.parametrize("shape, size, want", [((10, 20, 3), 5, (5, 10, 3)), ((30, 12), 8, (20, 8)),
                                               ((9, 9, 3), 4, (4, 4, 3)), ((7, 10, 3), 3, (3, 4, 3))])
def test_resize_short_keeps_the_aspect_ratio(shape, size, want):
    im = np.full(shape, 77, np.uint8)
    out = image.resize_short(im, size)
    assert out.shape == want and out.dtype == np.uint8
    assert (out == 77).all()  # bicubic keeps a constant image constant


def test_resize_short_is_opencvs_bicubic_on_a_smooth_image():
    y, x = np.mgrid[0:40, 0:60]
    im = (100 + 50 * np.sin(x / 9.0) * np.cos(y / 7.0)).astype(np.float32)
    out = image.resize_short(im, 20)
    assert out.shape == (20, 30)
    # Pixel centres of the half-size image sit between two source pixels: the smooth field there.
    ys, xs = 2 * np.arange(20) + 0.5, 2 * np.arange(30) + 0.5
    want = 100 + 50 * np.sin(xs[None, :] / 9.0) * np.cos(ys[:, None] / 7.0)
    np.testing.assert_allclose(out[3:-3, 3:-3], want[3:-3, 3:-3], atol=0.2)


def test_simple_transform_eval_is_resize_crop_chw_minus_mean():
    im = np.zeros((12, 16, 3), np.uint8)
    im[..., 0], im[..., 1], im[..., 2] = 10, 20, 30
    out = image.simple_transform(im, 6, 4, is_train=False, mean=[1.0, 2.0, 3.0])
    assert out.shape == (3, 4, 4) and out.dtype == np.float32
    for c, value in enumerate([9.0, 18.0, 27.0]):
        assert (out[c] == value).all()
    grey = image.simple_transform(im[:, :, 0], 6, 4, is_train=False, is_color=False, mean=[4.0])
    assert grey.shape == (4, 4) and (grey == 6.0).all()
    whole = np.arange(48, dtype=np.float32).reshape(3, 4, 4)
    np.testing.assert_array_equal(image.simple_transform(im, 6, 4, False, mean=whole)[0], 10 - whole[0])


def test_simple_transform_train_replays_the_numpy_draws():
    rng = np.random.default_rng(0)
    im = rng.integers(0, 256, (8, 10, 3)).astype(np.uint8)
    for seed in range(6):
        np.random.seed(seed)
        got = image.simple_transform(im, 8, 5, is_train=True)
        np.random.seed(seed)
        top, left = np.random.randint(0, 4), np.random.randint(0, 6)
        flip = np.random.randint(2) == 0
        want = im[top:top + 5, left:left + 5]  # resize to 8 keeps the 8x10 image as it is
        want = want[:, ::-1] if flip else want
        np.testing.assert_array_equal(got, want.transpose(2, 0, 1).astype(np.float32))


def test_load_image_reads_bgr_and_grey(tmp_path):
    rgb = np.random.default_rng(1).integers(0, 256, (5, 6, 3)).astype(np.uint8)
    path = tmp_path / "cat.png"
    path.write_bytes(png_bytes(rgb))
    np.testing.assert_array_equal(image.load_image(str(path)), rgb[:, :, ::-1])
    grey = image.load_image(str(path), is_color=False)
    want = rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114
    assert grey.shape == (5, 6) and np.abs(grey - want).max() <= 1.0
    np.testing.assert_array_equal(image.load_image_bytes(path.read_bytes()), rgb[:, :, ::-1])
    np.testing.assert_array_equal(image.load_image_bytes(bytearray(path.read_bytes()), is_color=False), grey)


def test_load_and_transform_is_load_then_simple_transform(tmp_path):
    rgb = np.random.default_rng(2).integers(0, 256, (9, 12, 3)).astype(np.uint8)
    path = tmp_path / "dog.png"
    path.write_bytes(png_bytes(rgb))
    out = image.load_and_transform(str(path), 9, 6, is_train=False, mean=[1, 2, 3])
    want = rgb[1:7, 3:9, ::-1].transpose(2, 0, 1).astype(np.float32) - np.array([1, 2, 3], np.float32)[:, None, None]
    np.testing.assert_array_equal(out, want)


def test_image_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="load_image: argument 'file': no file at"):
        image.load_image(str(tmp_path / "none.png"))
    (tmp_path / "bad.png").write_bytes(b"not an image")
    with pytest.raises(ValueError, match="load_image: cannot read an image from"):
        image.load_image(str(tmp_path / "bad.png"))
    with pytest.raises(ValueError, match="load_image_bytes: argument 'bytes' .12 bytes. is not an image"):
        image.load_image_bytes(b"not an image")
    with pytest.raises(TypeError, match="load_image_bytes: argument 'bytes' expected bytes, got str"):
        image.load_image_bytes("cat.jpg")
    im = np.zeros((4, 6, 3), np.uint8)
    with pytest.raises(ValueError, match=r"center_crop: argument 'size' \(5\) is larger than the image \(4x6\)"):
        image.center_crop(im, 5)
    with pytest.raises(ValueError, match="random_crop: argument 'size' expected a positive int, got 0"):
        image.random_crop(im, 0)
    with pytest.raises(TypeError, match="resize_short: argument 'size' expected an int, got float"):
        image.resize_short(im, 2.5)
    with pytest.raises(ValueError, match="center_crop: argument 'im' expected an HWC colour image"):
        image.center_crop(im[:, :, 0], 2)
    with pytest.raises(TypeError, match="left_right_flip: argument 'im' expected a NumPy array"):
        image.left_right_flip([[1, 2]])
    with pytest.raises(ValueError, match=r"simple_transform: argument 'crop_size' \(9\) is larger"):
        image.simple_transform(im, 4, 9, False)
    with pytest.raises(ValueError, match="simple_transform: argument 'mean' has 2 values, expected one per"):
        image.simple_transform(im, 4, 2, False, mean=[1, 2])
    with pytest.raises(ValueError, match="simple_transform: argument 'mean' expected one value per channel or"):
        image.simple_transform(im, 4, 2, False, mean=np.zeros((2, 2)))


def test_image_without_opencv_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "cv2", None)  # makes `import cv2` raise ImportError
    with pytest.raises(ImportError, match="resize_short needs OpenCV.*'cv2' extra.*opencv-python-headless"):
        image.resize_short(np.zeros((4, 4, 3), np.uint8), 2)
    with pytest.raises(ImportError, match="load_image_bytes needs OpenCV"):
        image.load_image_bytes(b"x")
    np.testing.assert_array_equal(image.center_crop(np.eye(3), 1, is_color=False), [[1.0]])  # NumPy only


def test_batch_images_from_tar_writes_pickled_batches(tmp_path):
    members = {f"jpg/image_{i}.jpg": bytes([i]) * (i + 1) for i in range(5)}
    path = tmp_path / "images.tar"
    path.write_bytes(tar_bytes(members, "w"))
    img2label = {"jpg/image_0.jpg": 7, "jpg/image_2.jpg": 8, "jpg/image_3.jpg": 9}
    meta = image.batch_images_from_tar(str(path), "train", img2label, num_per_batch=2)
    assert meta == f"{path}_batch/train_{os.getpid()}.txt"
    files = open(meta).read().split()
    assert [os.path.basename(f) for f in files] == ["batch_0", "batch_1"] and all(os.path.isabs(f) for f in files)
    batches = [pickle.load(open(f, "rb")) for f in files]
    assert batches[0] == {"label": [7, 8], "data": [members["jpg/image_0.jpg"], members["jpg/image_2.jpg"]]}
    assert batches[1] == {"label": [9], "data": [members["jpg/image_3.jpg"]]}
    assert image.batch_images_from_tar(str(path), "train", {}, 2) == meta  # done already: returned at once
    with pytest.raises(TypeError, match="batch_images_from_tar: argument 'img2label' expected a dict"):
        image.batch_images_from_tar(str(path), "test", ["a"])
    (tmp_path / "bad.tar").write_bytes(b"not a tar")
    with pytest.raises(ValueError, match="batch_images_from_tar: cannot read .* as a tar archive"):
        image.batch_images_from_tar(str(tmp_path / "bad.tar"), "test", {})


# ---------------------------------------------------------------- mnist, cifar, uci_housing


def idx_bytes(array, magic) -> bytes:
    header = struct.pack(">I", magic) + b"".join(struct.pack(">I", n) for n in array.shape)
    return gzip.compress(header + array.astype(np.uint8).tobytes())


def test_mnist_readers_scale_pixels_to_minus_one_one(home, monkeypatch):
    rng = np.random.default_rng(3)
    sets = {}
    for split, n in (("train", 5), ("t10k", 3)):
        images = rng.integers(0, 256, (n, 28, 28)).astype(np.uint8)
        labels = rng.integers(0, 10, n).astype(np.uint8)
        key = "TRAIN" if split == "train" else "TEST"
        put(monkeypatch, home, mnist, "mnist", getattr(mnist, f"{key}_IMAGE_URL"), f"{key}_IMAGE_MD5",
            idx_bytes(images, 2051))
        put(monkeypatch, home, mnist, "mnist", getattr(mnist, f"{key}_LABEL_URL"), f"{key}_LABEL_MD5",
            idx_bytes(labels, 2049))
        sets[split] = images, labels
    for reader, (images, labels) in ((mnist.train(), sets["train"]), (mnist.test(), sets["t10k"])):
        samples = list(reader())
        assert len(samples) == len(labels)
        for (pixels, label), im, want in zip(samples, images, labels):
            assert pixels.dtype == np.float32 and pixels.shape == (784,) and type(label) is int
            np.testing.assert_allclose(pixels, im.reshape(-1) / 255.0 * 2 - 1, rtol=0, atol=1e-6)
            assert label == want
        assert len(list(reader())) == len(labels)  # each call is a new pass
    mnist.fetch()
    with pytest.raises(ValueError, match="buffer_size' expected a positive int, got 0"):
        mnist.reader_creator("a", "b", 0)
    with pytest.raises(TypeError, match="buffer_size' expected an int, got str"):
        mnist.reader_creator("a", "b", "100")


def cifar_archive(records: dict) -> bytes:
    return tar_bytes({name: np.concatenate([labels, images.reshape(len(images), -1)], 1).astype(np.uint8).tobytes()
                      for name, (labels, images) in records.items()})


def test_cifar10_readers_give_chw_rows_in_unit_range(home, monkeypatch):
    rng = np.random.default_rng(4)
    records = {f"cifar-10-batches-bin/{name}": (rng.integers(0, 10, (n, 1)), rng.integers(0, 256, (n, 3, 32, 32)))
               for name, n in (("data_batch_1.bin", 2), ("data_batch_2.bin", 3), ("test_batch.bin", 2))}
    put(monkeypatch, home, cifar, "cifar", cifar.CIFAR10_BINARY_URL, "CIFAR10_BINARY_MD5", cifar_archive(records))
    train = list(cifar.train10()())
    labels = np.concatenate([records[f"cifar-10-batches-bin/data_batch_{i}.bin"][0][:, 0] for i in (1, 2)])
    images = np.concatenate([records[f"cifar-10-batches-bin/data_batch_{i}.bin"][1] for i in (1, 2)])
    assert [label for _, label in train] == labels.tolist()
    for (pixels, _), im in zip(train, images):
        assert pixels.dtype == np.float32 and pixels.shape == (3072,)
        np.testing.assert_array_equal(pixels, (im.reshape(-1) / 255.0).astype(np.float32))
    test = list(cifar.test10()())
    assert [label for _, label in test] == records["cifar-10-batches-bin/test_batch.bin"][0][:, 0].tolist()
    cycled = cifar.test10(cycle=True)()
    assert [next(cycled)[1] for _ in range(5)] == [test[0][1], test[1][1]] * 2 + [test[0][1]]


def test_cifar100_readers_use_the_fine_label(home, monkeypatch):
    rng = np.random.default_rng(5)
    records = {"cifar-100-binary/train.bin": (rng.integers(0, 100, (3, 2)), rng.integers(0, 256, (3, 3, 32, 32))),
               "cifar-100-binary/test.bin": (rng.integers(0, 100, (2, 2)), rng.integers(0, 256, (2, 3, 32, 32)))}
    put(monkeypatch, home, cifar, "cifar", cifar.CIFAR100_BINARY_URL, "CIFAR100_BINARY_MD5", cifar_archive(records))
    for reader, name in ((cifar.train100(), "train"), (cifar.test100(), "test")):
        labels, images = records[f"cifar-100-binary/{name}.bin"]
        samples = list(reader())
        assert [label for _, label in samples] == labels[:, 1].tolist()
        np.testing.assert_array_equal(samples[-1][0], (images[-1].reshape(-1) / 255.0).astype(np.float32))
    with pytest.raises(ValueError, match="cifar.reader_creator: argument 'sub_name' expected one of"):
        cifar.reader_creator("x", "batches")


def test_cifar_readers_take_paddles_python_archive_first(home, monkeypatch):
    rng = np.random.default_rng(8)
    batches = {name: (rng.integers(0, 10, n), rng.integers(0, 256, (n, 3072)).astype(np.uint8))
               for name, n in (("data_batch_1", 2), ("data_batch_2", 1), ("test_batch", 3))}
    members = {f"cifar-10-batches-py/{name}": pickle.dumps({b"labels": labels.tolist(), b"data": data}, protocol=2)
               for name, (labels, data) in batches.items()}
    python = put(monkeypatch, home, cifar, "cifar", cifar.CIFAR10_URL, "CIFAR10_MD5", tar_bytes(members))
    binary = {"b/test_batch.bin": (np.zeros((1, 1)), np.zeros((1, 3, 32, 32)))}  # beside it, not read
    put(monkeypatch, home, cifar, "cifar", cifar.CIFAR10_BINARY_URL, "CIFAR10_BINARY_MD5", cifar_archive(binary))
    assert python.endswith("cifar-10-python.tar.gz")
    test = list(cifar.test10()())
    assert [label for _, label in test] == batches["test_batch"][0].tolist()
    for (pixels, _), row in zip(test, batches["test_batch"][1]):
        np.testing.assert_array_equal(pixels, (row / 255.0).astype(np.float32))
    assert [label for _, label in cifar.train10()()] == [*batches["data_batch_1"][0], *batches["data_batch_2"][0]]
    monkeypatch.setattr(cifar, "CIFAR10_MD5", "0" * 32)  # a python archive with the wrong MD5 is not passed over
    with pytest.raises(ValueError, match="cifar-10-python.tar.gz' has MD5"):
        cifar.train10()
    with pytest.raises(RuntimeError, match="cifar-100-python.tar.gz.*or put the binary version there "
                                           r"\(from https://www.cs.toronto.edu/~kriz/cifar-100-binary.tar.gz"):
        cifar.train100()


def test_uci_housing_readers_normalize_and_split(home, monkeypatch):
    rows = np.random.default_rng(6).uniform(0, 50, (10, 14)).round(3)
    put(monkeypatch, home, uci_housing, "uci_housing", uci_housing.URL, "MD5",
        "\n".join(" ".join(str(v) for v in row) for row in rows).encode())
    monkeypatch.setattr(uci_housing, "UCI_TRAIN_DATA", None)
    monkeypatch.setattr(uci_housing, "UCI_TEST_DATA", None)
    want = rows.copy()
    for j in range(13):
        want[:, j] = (rows[:, j] - rows[:, j].sum() / 10) / (rows[:, j].max() - rows[:, j].min())
    train = list(uci_housing.train()())
    assert len(train) == 8 and train[0][0].shape == (13,) and train[0][1].shape == (1,)
    np.testing.assert_allclose(np.array([np.concatenate(s) for s in train]), want[:8], rtol=1e-12)
    test = list(uci_housing.test()())
    np.testing.assert_allclose(np.array([np.concatenate(s) for s in test]), want[8:], rtol=1e-12)
    (features,) = uci_housing.predict_reader()
    np.testing.assert_allclose(features, want[8, :13], rtol=1e-12)
    uci_housing.load_data("ignored: loaded once per process, as Paddle")
    assert len(list(uci_housing.train()())) == 8


def test_uci_housing_load_data_ratio_and_bad_files(tmp_path, monkeypatch):
    monkeypatch.setattr(uci_housing, "UCI_TRAIN_DATA", None)
    monkeypatch.setattr(uci_housing, "UCI_TEST_DATA", None)
    path = tmp_path / "h.data"
    path.write_text("\n".join(" ".join([str(i)] * 3) for i in range(4)))
    uci_housing.load_data(str(path), feature_num=3, ratio=0.5)
    assert uci_housing.UCI_TRAIN_DATA.shape == (2, 3) and uci_housing.UCI_TEST_DATA.shape == (2, 3)
    monkeypatch.setattr(uci_housing, "UCI_TRAIN_DATA", None)
    with pytest.raises(ValueError, match="uci_housing: .* holds 12 numbers, expected rows of 14"):
        uci_housing.load_data(str(path))
    with pytest.raises(ValueError, match=r"'ratio' expected a number in \[0, 1\]"):
        uci_housing.load_data(str(path), ratio=2)


def test_uci_housing_feature_range_draws_a_chart(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    uci_housing.feature_range(np.arange(13.0) + 1, np.zeros(13))
    assert (tmp_path / "image" / "ranges.png").read_bytes()[:4] == b"\x89PNG"


def test_uci_housing_fluid_model_unpacks_the_archive(home, monkeypatch):
    put(monkeypatch, home, uci_housing, "uci_housing", uci_housing.FLUID_URL_MODEL, "FLUID_MD5_MODEL",
        tar_bytes({"fit_a_line.inference.model/__model__": b"program"}, "w"), name="fit_a_line.fluid.tar")
    folder = uci_housing.fluid_model()
    with open(os.path.join(folder, "fit_a_line.inference.model", "__model__"), "rb") as f:
        assert f.read() == b"program"


# ---------------------------------------------------------------- text readers


def test_imdb_readers_and_dictionary(home, monkeypatch):
    reviews = {"aclImdb/train/pos/0_9.txt": b"A good film, a GOOD one!\n", "aclImdb/train/neg/1_2.txt": b"bad film.\n",
               "aclImdb/train/pos/2_8.txt": b"good good\n", "aclImdb/test/neg/0_1.txt": b"a bad one\n",
               "aclImdb/test/pos/0_7.txt": b"film\n", "aclImdb/README": b"good good good\n"}
    put(monkeypatch, home, imdb, "imdb", imdb.URL, "MD5", tar_bytes(reviews))
    assert imdb.word_dict() == {"<unk>": 0}  # nothing is seen more than 150 times
    # counts over train and test: good 4, a 3, bad 2, film 3, one 2 (the README is not a review)
    word_idx = imdb.build_dict(re.compile(r"aclImdb/((train)|(test))/((pos)|(neg))/.*\.txt$"), 1)
    assert word_idx == {b"good": 0, b"a": 1, b"film": 2, b"bad": 3, b"one": 4, "<unk>": 5}
    assert list(imdb.train(word_idx)()) == [([1, 0, 2, 1, 0, 4], 0), ([0, 0], 0), ([3, 2], 1)]
    assert list(imdb.test(word_idx)()) == [([2], 0), ([1, 3, 4], 1)]
    small = {b"good": 0, "<unk>": 1}
    assert list(imdb.test(small)()) == [([1], 0), ([1, 1, 1], 1)]
    assert [len(doc) for doc in imdb.tokenize(re.compile(r"aclImdb/README"))] == [3]
    with pytest.raises(TypeError, match="imdb.tokenize: argument 'pattern' expected a compiled regular expression"):
        imdb.tokenize("aclImdb/.*")
    with pytest.raises(ValueError, match="imdb.reader_creator: argument 'word_idx' expected a dict holding '<unk>'"):
        imdb.train({})


def test_imikolov_readers_ngrams_and_sequences(home, monkeypatch):
    texts = {"train": b" the cat sat \n the dog <unk> \n", "valid": b" the cat \n a cat \n", "test": b" x \n"}
    put(monkeypatch, home, imikolov, "imikolov", imikolov.URL, "MD5",
        tar_bytes({f"./simple-examples/data/ptb.{k}.txt": v for k, v in texts.items()}))
    word_idx = imikolov.build_dict(min_word_freq=1)
    # train + valid: <s> 4, <e> 4, the 3, cat 3; the rest once and dropped
    assert word_idx == {"<e>": 0, "<s>": 1, b"cat": 2, b"the": 3, "<unk>": 4}
    ngrams = list(imikolov.train(word_idx, 3)())
    assert ngrams == [(1, 3, 2), (3, 2, 4), (2, 4, 0), (1, 3, 4), (3, 4, 4), (4, 4, 0)]
    assert all(type(v) is int for v in ngrams[0])
    # the module's test split is ptb.valid.txt, as Paddle's
    assert list(imikolov.test(word_idx, 0, imikolov.DataType.SEQ)()) == [([1, 3, 2], [3, 2, 0]),
                                                                         ([1, 4, 2], [4, 2, 0])]
    assert list(imikolov.test(word_idx, 2, imikolov.DataType.SEQ)()) == []
    assert list(imikolov.train(word_idx, 6)()) == []  # sentences shorter than the window give nothing
    counts = imikolov.word_count([b"a b", b"b"])
    assert dict(counts) == {b"a": 1, b"b": 2, "<s>": 2, "<e>": 2}
    with pytest.raises(ValueError, match="imikolov.reader_creator: DataType.NGRAM needs argument 'n' >= 1"):
        imikolov.train(word_idx, 0)
    with pytest.raises(ValueError, match="argument 'data_type' expected DataType.NGRAM or DataType.SEQ"):
        imikolov.train(word_idx, 2, data_type="SEQ")
    with pytest.raises(ValueError, match="argument 'word_idx' has no '<s>'"):
        imikolov.train({"<unk>": 0}, 2)


def movielens_zip(ratings) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as package:
        package.writestr("ml-1m/movies.dat", "1::Toy Story (1995)::Animation|Comedy\n"
                                             "7::Heat (1995)::Action|Crime\n".encode("latin-1"))
        package.writestr("ml-1m/users.dat", b"1::F::1::10::48067\n4::M::56::16::70072\n")
        package.writestr("ml-1m/ratings.dat", "".join(f"{u}::{m}::{r}::978300760\n" for u, m, r in ratings).encode())
    return buffer.getvalue()


@pytest.fixture
def movielens_home(home, monkeypatch):
    for name in ("MOVIE_INFO", "MOVIE_TITLE_DICT", "CATEGORIES_DICT", "USER_INFO"):
        monkeypatch.setattr(movielens, name, None)
    ratings = [(1 + 3 * (i % 2), 1 + 6 * ((i // 2) % 2), 1 + i % 5) for i in range(30)]
    put(monkeypatch, home, movielens, "movielens", movielens.URL, "MD5", movielens_zip(ratings))
    return ratings


def test_movielens_readers_split_with_the_seeded_draws(movielens_home):
    ratings = movielens_home
    draws = np.random.RandomState(3).random_sample(len(ratings))
    train = list(movielens.train(rand_seed=3, test_ratio=0.25)())
    test = list(movielens.test(rand_seed=3, test_ratio=0.25)())
    assert len(train) == int((draws >= 0.25).sum()) and len(test) == int((draws < 0.25).sum())
    users = {1: [1, 1, 0, 10], 4: [4, 0, 6, 16]}  # id, female/male, age index, job
    movies = {1: [1, [1, 2], [2, 1]], 7: [7, [0, 3], [0]]}  # categories/title words numbered in sorted order
    want = [users[u] + movies[m] + [[r * 2 - 5.0]] for (u, m, r), d in zip(ratings, draws) if d >= 0.25]
    assert train == want
    assert movielens.get_movie_title_dict() == {"heat": 0, "story": 1, "toy": 2}
    assert movielens.movie_categories() == {"Action": 0, "Animation": 1, "Comedy": 2, "Crime": 3}
    assert (movielens.max_movie_id(), movielens.max_user_id(), movielens.max_job_id()) == (7, 4, 16)
    assert movielens.user_info()[4].value() == [4, 0, 6, 16]
    assert movielens.movie_info()[1].value() == [1, [1, 2], [2, 1]]
    assert str(movielens.movie_info()[7]) == "<MovieInfo id(7), title(Heat ), categories(['Action', 'Crime'])>"
    assert movielens.age_table == [1, 18, 25, 35, 45, 50, 56]


# The CoNLL-05 props: the verb column, then one bracketed argument column per verb.
PROPS = b"""\
-      (A0*   *
-      *)     *
saw    (V*)   *
-      (A1*   (A0*
-      *)     *)
ran    *      (V*)

"""


def test_conll05_test_reader_gives_nine_lists(home, monkeypatch):
    words = b"The\ncat\nsaw\nthe\ndog\nran\n\n"
    put(monkeypatch, home, conll05, "conll05st", conll05.DATA_URL, "DATA_MD5", tar_bytes({
        "conll05st-release/test.wsj/words/test.wsj.words.gz": gzip.compress(words),
        "conll05st-release/test.wsj/props/test.wsj.props.gz": gzip.compress(PROPS)}))
    put(monkeypatch, home, conll05, "conll05st", conll05.WORDDICT_URL, "WORDDICT_MD5",
        b"<unk>\nThe\ncat\nsaw\nthe\ndog\nbos\neos\n")
    put(monkeypatch, home, conll05, "conll05st", conll05.VERBDICT_URL, "VERBDICT_MD5", b"ran\nsaw\n")
    put(monkeypatch, home, conll05, "conll05st", conll05.TRGDICT_URL, "TRGDICT_MD5",
        b"B-A0\nI-A0\nB-V\nB-A1\nI-A1\nI-V\nO\n")
    emb = put(monkeypatch, home, conll05, "conll05st", conll05.EMB_URL, "EMB_MD5", b"vectors")
    word_dict, verb_dict, label_dict = conll05.get_dict()
    assert verb_dict == {"ran": 0, "saw": 1}
    assert label_dict == {"B-A0": 0, "I-A0": 1, "B-V": 2, "I-V": 3, "B-A1": 4, "I-A1": 5, "O": 6}
    samples = list(conll05.test()())
    assert len(samples) == 2 and all(len(s) == 9 and all(isinstance(c, list) for c in s) for s in samples)
    words_ids, n2, n1, c0, p1, p2, pred, mark, labels = samples[0]  # "saw": (A0 The cat) saw (A1 the dog) ran
    assert words_ids == [1, 2, 3, 4, 5, 0] and pred == [1] * 6
    assert (n2, n1, c0, p1, p2) == ([1] * 6, [2] * 6, [3] * 6, [4] * 6, [5] * 6)
    assert mark == [1, 1, 1, 1, 1, 0] and labels == [0, 1, 2, 4, 5, 6]
    words_ids, n2, n1, c0, p1, p2, pred, mark, labels = samples[1]  # "ran", the last word: eos after it
    assert (n2[0], n1[0], c0[0], p1[0], p2[0]) == (4, 5, 0, 7, 7) and mark == [0, 0, 0, 1, 1, 1]
    assert labels == [6, 6, 6, 0, 1, 2] and pred == [0] * 6
    assert conll05.get_embedding() == emb
    conll05.fetch()
    corpus = conll05.corpus_reader(str(home / "conll05st" / "conll05st-tests.tar.gz"),
                                   "conll05st-release/test.wsj/words/test.wsj.words.gz",
                                   "conll05st-release/test.wsj/props/test.wsj.props.gz")
    assert [verb for _, verb, _ in corpus()] == ["saw", "ran"]
    unknown_verb = conll05.reader_creator(corpus, word_dict, {"saw": 0}, label_dict)
    with pytest.raises(ValueError, match="conll05: the verb 'ran' is not in the verb dictionary"):
        list(unknown_verb())
    with pytest.raises(TypeError, match="conll05.reader_creator: argument 'label_dict' expected a dict"):
        conll05.reader_creator(corpus, word_dict, verb_dict)


def test_wmt14_readers_and_dictionaries(home, monkeypatch):
    put(monkeypatch, home, wmt14, "wmt14", wmt14.URL_TRAIN, "MD5_TRAIN", tar_bytes({
        "wmt14/src.dict": b"<s>\n<e>\n<unk>\nthe\ncat\nsat\n", "wmt14/trg.dict": b"<s>\n<e>\n<unk>\nle\nchat\n",
        "wmt14/train/train": b"the cat sat\tle chat\nbad line\n" + b"the " * 79 + b"\tle\ncat dog\tchien chat\n",
        "wmt14/test/test": b"sat\tle\n", "wmt14/gen/gen": b"cat\tchat\n"}))
    # the malformed line and the 81-word source are left out; 'sat' is outside a 5-word dictionary
    assert list(wmt14.train(5)()) == [([0, 3, 4, 2, 1], [0, 3, 4], [3, 4, 1]), ([0, 4, 2, 1], [0, 2, 4], [2, 4, 1])]
    assert list(wmt14.test(6)()) == [([0, 5, 1], [0, 3], [3, 1])]
    assert list(wmt14.gen(5)()) == [([0, 4, 1], [0, 4], [4, 1])]
    src_dict, trg_dict = wmt14.get_dict(4)
    assert src_dict == {0: "<s>", 1: "<e>", 2: "<unk>", 3: "the"} and trg_dict[3] == "le"
    assert wmt14.get_dict(4, reverse=False)[1] == {"<s>": 0, "<e>": 1, "<unk>": 2, "le": 3}
    with pytest.raises(ValueError, match="wmt14.reader_creator: argument 'dict_size' expected a positive int"):
        wmt14.train(0)
    with pytest.raises(ValueError, match="wmt14.reader_creator: argument 'file_name' expected one of"):
        wmt14.reader_creator("x.tgz", "dev/dev", 5)


def test_wmt16_readers_and_dictionaries(home, monkeypatch):
    put(monkeypatch, home, wmt16, "wmt16", wmt16.DATA_URL, "DATA_MD5", tar_bytes({
        "wmt16/train": b"a cat\teine katze\na dog\teine hund\nthe cat\tdie katze\n",
        "wmt16/test": b"a bird\teine katze\n", "wmt16/val": b"cat\tkatze\n"}))
    # en: <s> <e> <unk>, then a 2, cat 2, dog 1, the 1 (ties in order of first appearance)
    en = {"<s>": 0, "<e>": 1, "<unk>": 2, "a": 3, "cat": 4, "dog": 5, "the": 6}
    de = {"<s>": 0, "<e>": 1, "<unk>": 2, "eine": 3, "katze": 4, "hund": 5, "die": 6}
    assert wmt16.get_dict("en", 100) == en and wmt16.get_dict("de", 5, reverse=True) == {0: "<s>", 1: "<e>",
                                                                                         2: "<unk>", 3: "eine",
                                                                                         4: "katze"}
    assert list(wmt16.train(100, 100)())[0] == ([0, en["a"], en["cat"], 1], [0, de["eine"], de["katze"]],
                                               [de["eine"], de["katze"], 1])
    assert list(wmt16.test(5, 100)()) == [([0, 3, 2, 1], [0, 3, 4], [3, 4, 1])]  # 'bird' is unknown
    assert list(wmt16.validation(100, 100, src_lang="de")()) == [([0, 4, 1], [0, 4], [4, 1])]
    with pytest.raises(ValueError, match="wmt16.train: argument 'src_lang' expected 'en' .English. or 'de'"):
        wmt16.train(10, 10, src_lang="fr")
    with pytest.raises(ValueError, match="wmt16.train: argument 'trg_dict_size' expected a positive int, got 0"):
        wmt16.train(10, 0)
    with pytest.raises(TypeError, match="wmt16.get_dict: argument 'dict_size' expected an int, got float"):
        wmt16.get_dict("en", 2.5)


# ---------------------------------------------------------------- image readers


def flowers_files(home, monkeypatch, sizes):
    scipy_io = pytest.importorskip("scipy.io")
    rng = np.random.default_rng(8)
    images = {i: rng.integers(0, 256, (h, w, 3)).astype(np.uint8) for i, (h, w) in sizes.items()}
    # archive order differs from the set's order: 3, 1, 2
    data = tar_bytes({f"jpg/image_{i:05d}.jpg": png_bytes(images[i]) for i in (3, 1, 2)})
    put(monkeypatch, home, flowers, "flowers", flowers.DATA_URL, "DATA_MD5", data)
    for url, attr, content in ((flowers.LABEL_URL, "LABEL_MD5", {"labels": np.array([[5, 102, 1]])}),
                               (flowers.SETID_URL, "SETID_MD5", {"tstid": np.array([[1, 3]]), "trnid": np.array([[2]]),
                                                                 "valid": np.array([[2, 3]])})):
        buffer = io.BytesIO()
        scipy_io.savemat(buffer, content)
        put(monkeypatch, home, flowers, "flowers", url, attr, buffer.getvalue())
    return images


def test_flowers_readers_yield_raw_samples_in_archive_order(home, monkeypatch):
    images = flowers_files(home, monkeypatch, {1: (4, 5), 2: (6, 4), 3: (5, 5)})
    raw = list(flowers.train(mapper=lambda sample: sample, use_xmap=False)())
    assert [label for _, label in raw] == [0, 4]  # images 3 then 1: labels 1 and 5, minus 1
    np.testing.assert_array_equal(image.load_image_bytes(raw[1][0]), images[1][:, :, ::-1])
    assert [label for _, label in flowers.valid(mapper=lambda s: s, use_xmap=False)()] == [0, 101]
    assert [label for _, label in flowers.test(mapper=lambda s: s, use_xmap=False)()] == [101]
    mapped = flowers.train(mapper=lambda s: s[1] * 10, use_xmap=True, buffered_size=2)
    assert sorted(mapped()) == [0, 40]
    cycled = flowers.test(mapper=lambda s: s[1], use_xmap=False, cycle=True)()
    assert [next(cycled) for _ in range(3)] == [101, 101, 101]
    flowers.fetch()


def test_flowers_default_mapper_is_the_bgr_simple_transform(home, monkeypatch):
    flowers_files(home, monkeypatch, {1: (300, 260), 2: (4, 4), 3: (4, 4)})
    rgb = np.zeros((300, 260, 3), np.uint8)
    rgb[...] = (200, 100, 50)
    pixels, label = flowers.test_mapper((png_bytes(rgb), 7))
    assert label == 7 and pixels.dtype == np.float32 and pixels.shape == (3 * 224 * 224,)
    planes = pixels.reshape(3, 224, 224)
    for c, value in enumerate((50 - 103.94, 100 - 116.78, 200 - 123.68)):  # BGR planes minus the means
        np.testing.assert_allclose(planes[c], value, rtol=0, atol=1e-4)
    with pytest.raises(ValueError, match="flowers.reader_creator: argument 'dataset_name' expected 'tstid'"):
        flowers.reader_creator("d", "l", "s", "train", flowers.train_mapper)


def test_voc2012_readers_give_image_and_class_arrays(home, monkeypatch):
    PIL_Image = pytest.importorskip("PIL.Image")  # the VOC members are decoded with Pillow, as Paddle's
    rng = np.random.default_rng(9)
    pictures = {n: rng.integers(0, 256, (4, 5, 3)).astype(np.uint8) for n in ("2007_01", "2007_02")}
    classes = {n: rng.integers(0, 21, (4, 5)).astype(np.uint8) for n in pictures}
    members = {voc2012.SET_FILE.format("val"): b"2007_02\n2007_01\n", voc2012.SET_FILE.format("train"): b"2007_01\n",
               voc2012.SET_FILE.format("trainval"): b"2007_01\n2007_02\n"}
    for name in pictures:
        members[voc2012.DATA_FILE.format(name)] = png_bytes(pictures[name])
        buffer = io.BytesIO()
        label = PIL_Image.fromarray(classes[name], mode="L").convert("P")
        label.save(buffer, format="PNG")
        members[voc2012.LABEL_FILE.format(name)] = buffer.getvalue()
    put(monkeypatch, home, voc2012, "voc2012", voc2012.VOC_URL, "VOC_MD5", tar_bytes(members, "w"))
    val = list(voc2012.val()())
    assert len(val) == 2
    np.testing.assert_array_equal(val[0][0], pictures["2007_02"])
    np.testing.assert_array_equal(val[1][1], classes["2007_01"])
    assert val[0][1].shape == (4, 5) and val[0][1].dtype == np.uint8
    assert len(list(voc2012.test()())) == 1 and len(list(voc2012.train()())) == 2
    archive = str(home / "voc2012" / "VOCtrainval_11-May-2012.tar")
    with pytest.raises(ValueError, match="voc2012.reader_creator: .* has no .*Segmentation/seg.txt"):
        voc2012.reader_creator(archive, "seg")


# ---------------------------------------------------------------- docstrings


@pytest.mark.parametrize("name", ["eager.dataset", "eager.dataset.common", "eager.dataset.image",
                                  "eager.dataset.imikolov"])
def test_docstring_examples_run(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    failures, tried = doctest.testmod(importlib.import_module(name), extraglobs={"eager": eager})
    assert failures == 0 and tried > 0
