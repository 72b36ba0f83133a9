"""eager.vision.datasets on small synthetic files written here in the exact
formats: IDX (gzip or raw) for MNIST, the binary CIFAR archives (fixed-size
records) and the python ones (pickled batches, written as Python 2 wrote them)
for Cifar10/100; pickles that name other globals are refused."""
import doctest
import io
import os
import pickle
import struct
import tarfile

import numpy as np
import pytest

import eager
from eager.vision import datasets as D
from eager.vision import transforms as T
from eager.vision.datasets import _batch_pickle, _files, cifar, mnist
from dataset_files import write_idx


@pytest.fixture
def mnist_files(tmp_path):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (7, 28, 28)).astype(np.uint8)
    labels = rng.integers(0, 10, 7).astype(np.uint8)
    return (write_idx(tmp_path / "img.gz", images, 2051), write_idx(tmp_path / "lab.gz", labels, 2049),
            images, labels)


def write_cifar(path, records, members):
    """records: {member name: (labels [N, k] uint8, images [N, 3, 32, 32] uint8)}."""
    with tarfile.open(path, "w:gz") as tar:
        for name in members:
            labels, images = records[name]
            payload = np.concatenate([labels, images.reshape(len(images), -1)], axis=1).astype(np.uint8).tobytes()
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    return str(path)


@pytest.fixture
def cifar10_file(tmp_path):
    rng = np.random.default_rng(1)
    records = {}
    for name, n in [("cifar-10-batches-bin/data_batch_1.bin", 3), ("cifar-10-batches-bin/data_batch_2.bin", 2),
                    ("cifar-10-batches-bin/test_batch.bin", 4)]:
        records[name] = (rng.integers(0, 10, (n, 1)), rng.integers(0, 256, (n, 3, 32, 32)))
    path = write_cifar(tmp_path / "cifar-10-binary.tar.gz", records, list(records))
    return path, records


def test_mnist_reads_images_and_labels_as_paddle(mnist_files):
    image_path, label_path, images, labels = mnist_files
    ds = D.MNIST(image_path, label_path, mode="test", backend="cv2")
    assert len(ds) == 7
    for i in (0, 6, -1):
        image, label = ds[i]
        assert image.dtype == np.float32 and image.shape == (28, 28)
        np.testing.assert_array_equal(image, images[i])
        assert label.dtype == np.int64 and label.shape == (1,) and label[0] == labels[i]


def test_mnist_pil_backend_with_to_tensor_gives_unit_range(mnist_files):
    image_path, label_path, images, _ = mnist_files
    ds = D.MNIST(image_path, label_path, transform=T.ToTensor())    # backend 'pil', Paddle's default
    image, _ = ds[2]
    assert image.shape == [1, 28, 28]
    np.testing.assert_allclose(image.numpy()[0], images[2] / 255.0, rtol=1e-6)


def test_fashion_mnist_and_uncompressed_files(tmp_path):
    images = np.arange(2 * 28 * 28).reshape(2, 28, 28) % 256
    ip = write_idx(tmp_path / "i", images, 2051, compress=False)
    lp = write_idx(tmp_path / "l", np.array([3, 9]), 2049, compress=False)
    ds = D.FashionMNIST(ip, lp, backend="cv2")
    np.testing.assert_array_equal(ds[1][0], images[1])
    assert ds[1][1].tolist() == [9]


def test_mnist_bad_files_raise_clear_errors(tmp_path, mnist_files):
    image_path, label_path, _, _ = mnist_files
    with pytest.raises(ValueError, match="MNIST: .* is not an IDX file of images: magic number 2049"):
        D.MNIST(label_path, label_path)
    short = write_idx(tmp_path / "short.gz", np.zeros(3), 2049)
    with pytest.raises(ValueError, match="has 7 images but .* has 3 labels"):
        D.MNIST(image_path, short)
    with pytest.raises(ValueError, match="MNIST: argument 'mode'"):
        D.MNIST(image_path, label_path, mode="val")
    with pytest.raises(FileNotFoundError, match="MNIST: argument 'image_path': no file"):
        D.MNIST(str(tmp_path / "nope"), label_path)


def test_missing_files_say_where_to_put_them(tmp_path, monkeypatch):
    monkeypatch.setattr(_files, "DATA_HOME", str(tmp_path))
    with pytest.raises(RuntimeError) as error:
        D.MNIST(mode="test")
    message = str(error.value)
    assert "t10k-images-idx3-ubyte.gz" in message and "https://dataset.bj.bcebos.com/mnist/" in message
    assert str(tmp_path / "mnist") in message
    with pytest.raises(ValueError, match="download is False"):
        D.FashionMNIST(download=False)
    with pytest.raises(RuntimeError, match="put 'cifar-10-python.tar.gz'.*or the binary version "
                                           "'cifar-10-binary.tar.gz'"):
        D.Cifar10()


def test_files_in_paddles_cache_folder_are_found(tmp_path, monkeypatch, mnist_files):
    image_path, label_path, images, _ = mnist_files
    monkeypatch.setattr(_files, "DATA_HOME", str(tmp_path))
    (tmp_path / "mnist").mkdir()
    (tmp_path / "mnist" / "train-images-idx3-ubyte.gz").write_bytes(open(image_path, "rb").read())
    (tmp_path / "mnist" / "train-labels-idx1-ubyte.gz").write_bytes(open(label_path, "rb").read())
    np.testing.assert_array_equal(D.MNIST(backend="cv2")[3][0], images[3])


def test_cifar10_reads_the_binary_records(cifar10_file):
    path, records = cifar10_file
    train = D.Cifar10(path, mode="train", backend="cv2")
    assert len(train) == 5
    labels1, images1 = records["cifar-10-batches-bin/data_batch_1.bin"]
    labels2, images2 = records["cifar-10-batches-bin/data_batch_2.bin"]
    image, label = train[4]                                      # the second batch's last record
    assert image.shape == (32, 32, 3) and image.dtype == np.float32
    np.testing.assert_array_equal(image, images2[1].transpose(1, 2, 0))
    assert label.dtype == np.int64 and label.shape == () and label == labels2[1, 0]
    np.testing.assert_array_equal(train[0][0][..., 2], images1[0][2])  # blue plane
    test = D.Cifar10(path, mode="test", transform=T.Compose([T.ToTensor()]), backend="pil")
    assert len(test) == 4 and test[0][0].shape == [3, 32, 32]


def test_cifar100_uses_the_fine_label(tmp_path):
    labels = np.array([[1, 77], [2, 5]])
    images = np.random.default_rng(2).integers(0, 256, (2, 3, 32, 32))
    path = write_cifar(tmp_path / "c100.tar.gz", {"cifar-100-binary/train.bin": (labels, images)},
                       ["cifar-100-binary/train.bin"])
    ds = D.Cifar100(path, backend="cv2")
    assert [int(ds[i][1]) for i in range(2)] == [77, 5]
    np.testing.assert_array_equal(ds[1][0], images[1].transpose(1, 2, 0))


class Py2Pickler(pickle._Pickler):
    """Pickles as Python 2's cPickle wrote the CIFAR batches (protocol 2, every
    str and bytes a BINSTRING), so that reading them with encoding='bytes'
    gives bytes keys, as the real archives do."""

    dispatch = dict(pickle._Pickler.dispatch)

    def save_py2_string(self, obj):
        raw = obj.encode("latin1") if isinstance(obj, str) else obj
        if len(raw) < 256:
            self.write(pickle.SHORT_BINSTRING + bytes([len(raw)]) + raw)
        else:
            self.write(pickle.BINSTRING + struct.pack("<i", len(raw)) + raw)
        self.memoize(obj)

    dispatch[str] = save_py2_string
    dispatch[bytes] = save_py2_string


def py2_pickle(obj) -> bytes:
    out = io.BytesIO()
    Py2Pickler(out, protocol=2).dump(obj)
    # NumPy 1 (what wrote the real files) named its reconstructor's module numpy.core.multiarray
    return out.getvalue().replace(b"numpy._core.multiarray\n", b"numpy.core.multiarray\n")


def write_members(path, members: dict):
    with tarfile.open(path, "w:gz") as tar:
        for name, payload in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    return str(path)


def python_cifar10(path, records, dump=py2_pickle):
    """The python version of the binary records of ``cifar10_file``: one pickled dict per batch."""
    members = {"cifar-10-batches-py/batches.meta": dump({"label_names": ["airplane"], "num_vis": 3072}),
               "cifar-10-batches-py/readme.html": b"<html></html>"}
    for name, (labels, images) in records.items():
        batch = {"batch_label": name, "labels": [int(v) for v in labels[:, 0]],
                 "data": images.reshape(len(images), -1).astype(np.uint8),
                 "filenames": [f"img_{i}.png" for i in range(len(images))]}
        members[name.replace("-bin/", "-py/").removesuffix(".bin")] = dump(batch)
    return write_members(path, members)


def test_cifar10_reads_the_python_version_as_the_binary_one(cifar10_file, tmp_path):
    binary_path, records = cifar10_file
    dumps = {"py2": py2_pickle, "protocol2": lambda o: pickle.dumps(o, protocol=2),
             "protocol5": lambda o: pickle.dumps(o, protocol=5)}
    for kind, dump in dumps.items():
        path = python_cifar10(tmp_path / f"cifar-10-python-{kind}.tar.gz", records, dump)
        for mode in ("train", "test"):
            python, binary = D.Cifar10(path, mode=mode, backend="cv2"), D.Cifar10(binary_path, mode=mode, backend="cv2")
            assert len(python) == len(binary) == (5 if mode == "train" else 4)
            np.testing.assert_array_equal(python.images, binary.images)
            np.testing.assert_array_equal(python.labels, binary.labels)
            image, label = python[len(python) - 1]
            assert image.dtype == np.float32 and label.dtype == np.int64 and label.shape == ()
            np.testing.assert_array_equal(image, binary[len(binary) - 1][0])
    labels2, images2 = records["cifar-10-batches-bin/data_batch_2.bin"]
    train = D.Cifar10(path, backend="cv2")  # data_batch_1 then data_batch_2, as Paddle's sorted names
    np.testing.assert_array_equal(train[3][0], images2[0].transpose(1, 2, 0))
    assert int(train[3][1]) == labels2[0, 0]


def test_cifar100_reads_the_python_version_with_the_fine_label(tmp_path):
    rng = np.random.default_rng(7)
    images = rng.integers(0, 256, (3, 3, 32, 32)).astype(np.uint8)
    batch = {"filenames": ["a", "b", "c"], "batch_label": "training batch 1 of 1", "fine_labels": [77, 5, 99],
             "coarse_labels": [1, 2, 3], "data": images.reshape(3, -1)}
    path = write_members(tmp_path / "cifar-100-python.tar.gz",
                         {"cifar-100-python/train": py2_pickle(batch),
                          "cifar-100-python/test": py2_pickle({**batch, "fine_labels": [0, 1, 2]}),
                          "cifar-100-python/meta": py2_pickle({"fine_label_names": ["apple"]})})
    ds = D.Cifar100(path, backend="cv2")
    assert [int(ds[i][1]) for i in range(3)] == [77, 5, 99]
    np.testing.assert_array_equal(ds[2][0], images[2].transpose(1, 2, 0))
    assert [int(label) for _, label in D.Cifar100(path, mode="test", backend="cv2")] == [0, 1, 2]


class _RunsCommand:
    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return os.system, (self.command,)


def test_cifar_refuses_a_pickle_that_names_another_global(tmp_path):
    marker = tmp_path / "ran"
    evil = {"data": _RunsCommand(f"touch {marker}"), "labels": [0]}
    path = write_members(tmp_path / "cifar-10-python.tar.gz", {"cifar-10-batches-py/data_batch_1": py2_pickle(evil)})
    with pytest.raises(ValueError, match=r"Cifar10: member 'cifar-10-batches-py/data_batch_1' of .* refers to the "
                                         r"global (posix|nt|os)\.system, which a CIFAR batch does not contain"):
        D.Cifar10(path)
    assert not marker.exists()
    # a restricted callable admitted under its name is still checked: _codecs.encode only to latin-1
    sneaky = pickle.dumps({"data": b"x"}, protocol=2).replace(b"latin1", b"rot_13")
    path = write_members(tmp_path / "sneaky.tar.gz", {"cifar-10-batches-py/data_batch_1": sneaky})
    with pytest.raises(ValueError, match=r"refers to the global _codecs.encode\(str, 'rot_13', 'strict'\) \(only "
                                         r"encode\(str, 'latin1'\) is admitted\)"):
        D.Cifar10(path)


@pytest.mark.parametrize("batch, message", [
    ([1, 2], "expected a pickled dict \\(a CIFAR batch\\), got list"),
    ({"data": np.zeros((1, 3072), np.float32), "labels": [0]},
     r"'data' expected a uint8 array of shape \[N, 3072\], got float32 array of shape \[1, 3072\]"),
    ({"data": np.zeros((1, 3072), np.uint8)}, "has no 'labels' entry"),
    ({"data": np.zeros((2, 3072), np.uint8), "labels": [0]}, "'labels' expected a list of 2 ints"),
])
def test_cifar_python_batches_of_the_wrong_shape_are_refused(tmp_path, batch, message):
    path = write_members(tmp_path / "c.tar.gz", {"cifar-10-batches-py/data_batch_1": py2_pickle(batch)})
    with pytest.raises(ValueError, match="Cifar10: .*" + message):
        D.Cifar10(path)


def test_cifar_archive_errors(tmp_path):
    path = write_members(tmp_path / "empty.tar.gz", {"cifar-10-batches-py/readme.html": b"x"})
    with pytest.raises(ValueError, match="has no data_batch_\\*.bin member \\(binary version\\) nor a 'data_batch' "
                                         "batch \\(python version\\)"):
        D.Cifar10(path)
    path = write_members(tmp_path / "cut.tar.gz", {"cifar-10-batches-py/test_batch": py2_pickle({"a": 1})[:-5]})
    with pytest.raises(ValueError, match="test_batch' of .* is not a readable CIFAR batch"):
        D.Cifar10(path, mode="test")
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"not a tar")
    with pytest.raises(ValueError, match="Cifar10: cannot read"):
        D.Cifar10(str(bad))


def test_cifar_takes_paddles_python_archive_from_the_cache_first(tmp_path, monkeypatch, cifar10_file):
    binary_path, records = cifar10_file
    monkeypatch.setattr(_files, "DATA_HOME", str(tmp_path / "home"))
    (tmp_path / "home" / "cifar").mkdir(parents=True)
    binary = tmp_path / "home" / "cifar" / "cifar-10-binary.tar.gz"
    binary.write_bytes(open(binary_path, "rb").read())
    assert D.Cifar10(mode="test").data_file == str(binary)
    shuffled = {name: (labels[::-1], images[::-1]) for name, (labels, images) in records.items()}
    python = python_cifar10(tmp_path / "home" / "cifar" / "cifar-10-python.tar.gz", shuffled)
    ds = D.Cifar10(mode="test", backend="cv2")
    assert ds.data_file == python
    np.testing.assert_array_equal(ds.labels, records["cifar-10-batches-bin/test_batch.bin"][0][::-1, 0])


def test_docstring_examples_run(mnist_files, cifar10_file, tmp_path):
    image_path, label_path, _, _ = mnist_files
    path100 = write_cifar(tmp_path / "c100.tar.gz",
                          {"x/train.bin": (np.array([[0, 42]]), np.zeros((1, 3, 32, 32)))}, ["x/train.bin"])
    globs = {"eager": eager, "image_path": image_path, "label_path": label_path, "data_file": cifar10_file[0],
             "data_file100": path100, "np": np}
    for module in (mnist, cifar, D, _batch_pickle):
        failures, _ = doctest.testmod(module, extraglobs=globs)
        assert failures == 0, module.__name__


def test_the_tensor_image_backend_is_for_image_load_only(mnist_files, cifar10_file, tmp_path):
    image_module = pytest.importorskip("PIL.Image")
    pixels = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
    png = tmp_path / "x.png"
    image_module.fromarray(pixels).save(png)
    image_path, label_path, images, _ = mnist_files
    with pytest.raises(ValueError, match=r"set_image_backend: argument 'backend' expected one of \('pil', 'cv2', "
                                         r"'tensor'\), got 'numpy'"):
        eager.vision.set_image_backend("numpy")
    assert eager.vision.get_image_backend() == "pil"
    eager.vision.set_image_backend("tensor")
    try:
        assert eager.vision.get_image_backend() == "tensor"
        loaded = eager.vision.image_load(png)  # backend None: the current one, a CHW uint8 Tensor
        assert isinstance(loaded, eager.Tensor) and loaded.dtype == eager.uint8
        np.testing.assert_array_equal(loaded.numpy(), pixels.transpose(2, 0, 1))
        folder_image = D.folder.default_loader(str(png))  # as Paddle: anything but 'cv2' reads with Pillow
        assert isinstance(folder_image, image_module.Image)
        np.testing.assert_array_equal(np.asarray(folder_image), pixels)
        for make in (lambda: D.MNIST(image_path, label_path), lambda: D.Cifar10(cifar10_file[0])):
            with pytest.raises(ValueError, match=r"argument 'backend' is None and the image backend is 'tensor'"):
                make()
        np.testing.assert_array_equal(D.MNIST(image_path, label_path, backend="cv2")[2][0], images[2])
        with pytest.raises(ValueError, match=r"Cifar10: argument 'backend' expected one of \('pil', 'cv2'\) or None, "
                                             r"got 'tensor'"):
            D.Cifar10(cifar10_file[0], backend="tensor")
    finally:
        eager.vision.set_image_backend("pil")
