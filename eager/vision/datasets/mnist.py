"""MNIST and Fashion-MNIST (Paddle's ``paddle.vision.datasets.MNIST`` and
``FashionMNIST``), read from the IDX files (gzip-compressed or not)."""
from __future__ import annotations

import gzip

import numpy as np

from ...framework import get_default_dtype
from ...io.dataset import Dataset
from ..image import check_backend, to_pil_or_uint8
from ._files import check_mode, resolve

_IMAGE_MAGIC, _LABEL_MAGIC = 2051, 2049


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        return f.read()


def read_idx(fn: str, path: str, magic: int, ndim: int) -> np.ndarray:
    """The uint8 array of an IDX file (big-endian header: magic, then one count per axis)."""
    try:
        data = _read_bytes(path)
    except (OSError, EOFError) as error:
        raise ValueError(f"{fn}: cannot read {path!r}: {error}") from None
    header = 4 * (1 + ndim)
    found = int(np.frombuffer(data, ">u4", count=1)[0]) if len(data) >= 4 else None
    if found != magic:
        raise ValueError(f"{fn}: {path!r} is not an IDX file of {'images' if ndim == 3 else 'labels'}: magic "
                         f"number {found}, expected {magic}")
    if len(data) < header:
        raise ValueError(f"{fn}: {path!r} is too short for an IDX file ({len(data)} bytes)")
    fields = np.frombuffer(data, ">u4", count=1 + ndim)
    shape = tuple(int(v) for v in fields[1:])
    size = int(np.prod(shape))
    if len(data) - header != size:
        raise ValueError(f"{fn}: {path!r} holds {len(data) - header} bytes of data, its header says {shape} "
                         f"({size} bytes)")
    return np.frombuffer(data, np.uint8, offset=header).reshape(shape)


class MNIST(Dataset):
    """The MNIST digits: ``(image, label)`` pairs from the IDX files.

    ``image_path``/``label_path``: the image and label files
    (``train-images-idx3-ubyte.gz``, ``train-labels-idx1-ubyte.gz``, or the
    ``t10k-`` ones for ``mode='test'``), gzip-compressed or not. When a path is
    None the file is taken from Paddle's cache folder
    (``~/.cache/paddle/dataset/mnist/``); this build never downloads, so a
    missing file is an error that says where to put it and where Paddle gets it.

    An image is 28x28: a PIL Image (backend 'pil', or a uint8 array without
    Pillow) or a float32 array (backend 'cv2'), then ``transform`` is applied
    (with 'cv2' the result cast to the default dtype, float32 unless
    set_default_dtype changed it); the label is an int64 array of shape [1], as Paddle.

    >>> ds = eager.vision.datasets.MNIST(image_path, label_path, mode="test",
    ...                                  transform=eager.vision.transforms.ToTensor())
    >>> image, label = ds[0]
    >>> image.shape, label.dtype
    ([1, 28, 28], dtype('int64'))
    """

    NAME = "mnist"
    URL_PREFIX = "https://dataset.bj.bcebos.com/mnist/"

    def __init__(self, image_path=None, label_path=None, mode="train", transform=None, download=True,
                 backend=None):
        name = type(self).__name__
        mode = check_mode(name, mode, ("train", "test"))
        if transform is not None and not callable(transform):
            raise TypeError(f"{name}: argument 'transform' expected a callable or None, got {transform!r}")
        self.mode = mode
        self.backend = check_backend(name, backend)
        prefix = "train" if self.mode == "train" else "t10k"
        self.image_path = resolve(name, "image_path", image_path, download, self.NAME,
                                  f"{self.URL_PREFIX}{prefix}-images-idx3-ubyte.gz")
        self.label_path = resolve(name, "label_path", label_path, download, self.NAME,
                                  f"{self.URL_PREFIX}{prefix}-labels-idx1-ubyte.gz")
        self.transform = transform
        self.images = read_idx(name, self.image_path, _IMAGE_MAGIC, 3)
        self.labels = read_idx(name, self.label_path, _LABEL_MAGIC, 1).astype(np.int64)
        if len(self.images) != len(self.labels):
            raise ValueError(f"{name}: {self.image_path!r} has {len(self.images)} images but {self.label_path!r} "
                             f"has {len(self.labels)} labels")
        self.dtype = get_default_dtype()

    def __getitem__(self, idx):
        image, label = self.images[idx], np.array([self.labels[idx]], dtype=np.int64)
        image = to_pil_or_uint8(image.copy()) if self.backend == "pil" else image.astype(np.float32)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "cv2" and hasattr(image, "astype"):
            image = image.astype(self.dtype)
        return image, label

    def __len__(self):
        return len(self.labels)


class FashionMNIST(MNIST):
    """Fashion-MNIST: the same files and arguments as :class:`MNIST` (Paddle's
    cache folder ``~/.cache/paddle/dataset/fashion-mnist/``).

    >>> ds = eager.vision.datasets.FashionMNIST(image_path, label_path, backend="cv2")
    >>> ds[0][0].dtype
    dtype('float32')
    """

    NAME = "fashion-mnist"
    URL_PREFIX = "https://dataset.bj.bcebos.com/fashion_mnist/"


__all__ = ["FashionMNIST", "MNIST"]
