"""eager.vision.datasets on small synthetic files written here in the exact
formats: IDX (gzip or raw) for MNIST, the binary CIFAR archives (fixed-size
records) for Cifar10/100."""
import doctest
import gzip
import io
import struct
import tarfile

import numpy as np
import pytest

import eager
from eager.vision import datasets as D
from eager.vision import transforms as T
from eager.vision.datasets import _files, cifar, mnist


def write_idx(path, array, magic, compress=True):
    header = struct.pack(">I", magic) + b"".join(struct.pack(">I", n) for n in array.shape)
    data = header + array.astype(np.uint8).tobytes()
    with (gzip.open if compress else open)(path, "wb") as f:
        f.write(data)
    return str(path)


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
    with pytest.raises(RuntimeError, match="cifar-10-binary.tar.gz.*pickles"):
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


def test_cifar_python_version_is_refused_with_a_pointer_to_the_binary(tmp_path):
    path = tmp_path / "cifar-10-python.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("cifar-10-batches-py/data_batch_1")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"abc"))
    with pytest.raises(ValueError, match="python version .*cifar-10-binary.tar.gz"):
        D.Cifar10(str(path))
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"not a tar")
    with pytest.raises(ValueError, match="Cifar10: cannot read"):
        D.Cifar10(str(bad))


def test_docstring_examples_run(mnist_files, cifar10_file, tmp_path):
    image_path, label_path, _, _ = mnist_files
    path100 = write_cifar(tmp_path / "c100.tar.gz",
                          {"x/train.bin": (np.array([[0, 42]]), np.zeros((1, 3, 32, 32)))}, ["x/train.bin"])
    globs = {"eager": eager, "image_path": image_path, "label_path": label_path, "data_file": cifar10_file[0],
             "data_file100": path100, "np": np}
    for module in (mnist, cifar, D):
        failures, _ = doctest.testmod(module, extraglobs=globs)
        assert failures == 0, module.__name__
