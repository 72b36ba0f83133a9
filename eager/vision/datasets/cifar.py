"""CIFAR-10 and CIFAR-100 (Paddle's ``paddle.vision.datasets.Cifar10`` and
``Cifar100``), read from the *binary version* of the archives.

Paddle reads the python version (``cifar-10-python.tar.gz``), whose batches
are pickles; unpickling runs code from the file, so this reader takes the
binary version instead (``cifar-10-binary.tar.gz``, ``cifar-100-binary.tar.gz``
from https://www.cs.toronto.edu/~kriz/cifar.html): fixed-size records of
label byte(s) then 3072 pixel bytes (the red, green and blue 32x32 planes).
The images and labels are the same.
"""
from __future__ import annotations

import tarfile

import numpy as np

from ...io.dataset import Dataset
from ..image import check_backend, to_pil_or_uint8
from ._files import resolve

_PIXELS = 3 * 32 * 32


class Cifar10(Dataset):
    """CIFAR-10: ``(image, label)`` pairs from ``cifar-10-binary.tar.gz``.

    Reads the **binary version** of the archive (``cifar-10-binary.tar.gz``:
    ``data_batch_1.bin`` ... ``data_batch_5.bin`` and ``test_batch.bin``, each
    10,000 records of 1 label byte and 3,072 pixel bytes), never the python
    version Paddle reads, whose batches are pickles. ``data_file`` is that
    archive; when None it is taken from Paddle's cache folder
    (``~/.cache/paddle/dataset/cifar/``). This build never downloads: a missing
    file is an error saying where to put it.

    An image is 32x32x3 (HWC, RGB): a PIL Image (backend 'pil', or a uint8
    array without Pillow) or a float32 array (backend 'cv2'), then
    ``transform`` is applied; the label is an int64 0-d array, as Paddle.

    >>> ds = eager.vision.datasets.Cifar10(data_file, mode="test", backend="cv2")
    >>> image, label = ds[0]
    >>> image.shape, label.dtype
    ((32, 32, 3), dtype('int64'))
    """

    URL = "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"
    PYTHON_NAME = "cifar-10-python.tar.gz"
    LABEL_BYTES = 1
    LABEL_INDEX = 0

    def __init__(self, data_file=None, mode="train", transform=None, download=True, backend=None):
        name = type(self).__name__
        if not isinstance(mode, str) or mode.lower() not in ("train", "test"):
            raise ValueError(f"{name}: argument 'mode' expected 'train' or 'test', got {mode!r}")
        if transform is not None and not callable(transform):
            raise TypeError(f"{name}: argument 'transform' expected a callable or None, got {transform!r}")
        self.mode = mode.lower()
        self.backend = check_backend(name, backend)
        hint = (f" (the binary version: Paddle's {self.PYTHON_NAME} holds pickles, which this reader does "
                f"not load)")
        self.data_file = resolve(name, "data_file", data_file, download, "cifar", self.URL, hint)
        self.transform = transform
        self.dtype = "float32"
        self._load_data(name)

    def _members(self, names):
        if self.mode == "train":
            return sorted(n for n in names if n.rsplit("/", 1)[-1].startswith("data_batch") and n.endswith(".bin"))
        return sorted(n for n in names if n.rsplit("/", 1)[-1] == "test_batch.bin")

    def _member_names(self):
        return "data_batch_*.bin" if self.mode == "train" else "test_batch.bin"

    def _load_data(self, name):
        record = self.LABEL_BYTES + _PIXELS
        try:
            with tarfile.open(self.data_file, mode="r") as archive:
                names = [m.name for m in archive.getmembers() if m.isfile()]
                members = self._members(names)
                if not members:
                    pickled = any("batch" in n.rsplit("/", 1)[-1] and not n.endswith(".bin") for n in names) or \
                        any(n.rsplit("/", 1)[-1] in ("train", "test") for n in names)
                    why = (" It looks like the python version (pickled batches): use the binary version from "
                           f"{self.URL}." if pickled else "")
                    raise ValueError(f"{name}: {self.data_file!r} has no {self._member_names()} member.{why}")
                chunks = [archive.extractfile(m).read() for m in members]
        except tarfile.TarError as error:
            raise ValueError(f"{name}: cannot read {self.data_file!r} as a tar archive: {error}") from None
        data = b"".join(chunks)
        if len(data) % record:
            raise ValueError(f"{name}: the batches of {self.data_file!r} hold {len(data)} bytes, not a whole number "
                             f"of {record}-byte records")
        rows = np.frombuffer(data, np.uint8).reshape(-1, record)
        self.labels = rows[:, self.LABEL_INDEX].astype(np.int64)
        self.images = rows[:, self.LABEL_BYTES:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)

    def __getitem__(self, idx):
        image, label = self.images[idx], np.array(self.labels[idx], dtype=np.int64)
        image = to_pil_or_uint8(np.ascontiguousarray(image)) if self.backend == "pil" else image.astype(np.float32)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "cv2" and hasattr(image, "astype"):
            image = image.astype(self.dtype)
        return image, label

    def __len__(self):
        return len(self.labels)


class Cifar100(Cifar10):
    """CIFAR-100 from ``cifar-100-binary.tar.gz`` (``train.bin``, ``test.bin``:
    records of a coarse and a fine label byte, then 3,072 pixel bytes); the
    label is the fine one (0..99), as Paddle. Arguments as :class:`Cifar10`.

    >>> ds = eager.vision.datasets.Cifar100(data_file100, mode="train", backend="cv2")
    >>> int(ds[0][1]) < 100
    True
    """

    URL = "https://www.cs.toronto.edu/~kriz/cifar-100-binary.tar.gz"
    PYTHON_NAME = "cifar-100-python.tar.gz"
    LABEL_BYTES = 2
    LABEL_INDEX = 1

    def _members(self, names):
        wanted = "train.bin" if self.mode == "train" else "test.bin"
        return sorted(n for n in names if n.rsplit("/", 1)[-1] == wanted)

    def _member_names(self):
        return "train.bin" if self.mode == "train" else "test.bin"


__all__ = ["Cifar10", "Cifar100"]
