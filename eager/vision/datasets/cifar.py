"""CIFAR-10 and CIFAR-100 (Paddle's ``paddle.vision.datasets.Cifar10`` and
``Cifar100``), read from either version of the archives, told apart by their
members:

- the python version Paddle reads (``cifar-10-python.tar.gz``,
  ``cifar-100-python.tar.gz``): pickled batches, each a dict with ``data`` (an
  N x 3072 uint8 array) and ``labels`` (CIFAR-100: ``fine_labels``). Unlike
  Paddle's ``pickle.load``, which runs whatever code the file names, they are
  read by a restricted unpickler (:mod:`._batch_pickle`) that admits only what such a
  batch holds and refuses any other global with a ValueError;
- the binary version (``cifar-10-binary.tar.gz``, ``cifar-100-binary.tar.gz``
  from https://www.cs.toronto.edu/~kriz/cifar.html): fixed-size records of
  label byte(s) then 3072 pixel bytes (the red, green and blue 32x32 planes).

The images and labels are the same.
"""
from __future__ import annotations

import os
import tarfile

import numpy as np

from ...framework import get_default_dtype
from ...io.dataset import Dataset
from ..image import check_backend, to_pil_or_uint8
from . import _files
from ._batch_pickle import load_batch
from ._files import check_mode, resolve

_PIXELS = 3 * 32 * 32


def _base(name: str) -> str:
    return name.rsplit("/", 1)[-1]


class Cifar10(Dataset):
    """CIFAR-10: ``(image, label)`` pairs from ``cifar-10-python.tar.gz`` (Paddle's
    archive) or ``cifar-10-binary.tar.gz``.

    The python version's batches (``data_batch_1`` ... ``data_batch_5`` and
    ``test_batch``) are pickles; they are read by a restricted unpickler that
    admits only dicts, lists, bytes, str, int and NumPy arrays and refuses any
    other global (ValueError), so a crafted file cannot run code, as it can
    with Paddle's ``pickle.load``. The binary version's batches
    (``data_batch_1.bin`` ... and ``test_batch.bin``) are records of 1 label
    byte and 3,072 pixel bytes. ``data_file`` is either archive; when None it
    is taken from Paddle's cache folder (``~/.cache/paddle/dataset/cifar/``:
    the python version, else the binary one). This build never downloads: a
    missing file is an error saying where to put it.

    An image is 32x32x3 (HWC, RGB): a PIL Image (backend 'pil', or a uint8
    array without Pillow) or a uint8 array (backend 'cv2'), then ``transform``
    is applied and, with 'cv2', the result cast to the default dtype (float32
    unless set_default_dtype changed it); the label is an int64 0-d array, as
    Paddle.

    >>> ds = eager.vision.datasets.Cifar10(data_file, mode="test", backend="cv2")
    >>> image, label = ds[0]
    >>> image.shape, label.dtype
    ((32, 32, 3), dtype('int64'))
    """

    URL = "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"
    PYTHON_URL = "https://dataset.bj.bcebos.com/cifar/cifar-10-python.tar.gz"
    PYTHON_NAME = "cifar-10-python.tar.gz"
    LABEL_BYTES = 1
    LABEL_INDEX = 0
    LABEL_KEYS = (b"labels", "labels")
    FLAGS = {"train": "data_batch", "test": "test_batch"}

    def __init__(self, data_file=None, mode="train", transform=None, download=True, backend=None):
        name = type(self).__name__
        mode = check_mode(name, mode, ("train", "test"))
        if transform is not None and not callable(transform):
            raise TypeError(f"{name}: argument 'transform' expected a callable or None, got {transform!r}")
        self.mode = mode
        self.backend = check_backend(name, backend)
        self.data_file = self._resolve(name, data_file, download)
        self.transform = transform
        self.dtype = get_default_dtype()
        self._load_data(name)

    def _resolve(self, name, data_file, download):
        """data_file, or Paddle's python archive in the cache, or the binary one there."""
        binary_name = self.URL.rsplit("/", 1)[-1]
        folder = os.path.join(_files.DATA_HOME, "cifar")
        if data_file is None and not os.path.isfile(os.path.join(folder, self.PYTHON_NAME)) \
                and os.path.isfile(os.path.join(folder, binary_name)):
            return os.path.join(folder, binary_name)
        hint = f" (or the binary version {binary_name!r}, from {self.URL}, there)"
        return resolve(name, "data_file", data_file, download, "cifar", self.PYTHON_URL, hint)

    def _binary_members(self, names):
        if self.mode == "train":
            return sorted(n for n in names if _base(n).startswith("data_batch") and n.endswith(".bin"))
        return sorted(n for n in names if _base(n) == "test_batch.bin")

    def _binary_names(self):
        return "data_batch_*.bin" if self.mode == "train" else "test_batch.bin"

    def _python_members(self, names):
        """The python version's batches of this mode, by Paddle's flags (data_batch,
        test_batch; CIFAR-100: train, test) in the member's name, sorted."""
        flag = self.FLAGS[self.mode]
        return sorted(n for n in names if flag in _base(n) and not n.endswith(".bin"))

    def _load_data(self, name):
        try:
            with tarfile.open(self.data_file, mode="r") as archive:
                names = [m.name for m in archive.getmembers() if m.isfile()]
                binary = self._binary_members(names)
                members = binary or self._python_members(names)
                if not members:
                    raise ValueError(f"{name}: {self.data_file!r} has no {self._binary_names()} member (binary "
                                     f"version) nor a {self.FLAGS[self.mode]!r} batch (python version)")
                chunks = [(m, archive.extractfile(m).read()) for m in members]
        except tarfile.TarError as error:
            raise ValueError(f"{name}: cannot read {self.data_file!r} as a tar archive: {error}") from None
        if binary:
            self._from_records(name, b"".join(data for _, data in chunks))
        else:
            self._from_batches(name, chunks)

    def _from_records(self, name, data):
        record = self.LABEL_BYTES + _PIXELS
        if len(data) % record:
            raise ValueError(f"{name}: the batches of {self.data_file!r} hold {len(data)} bytes, not a whole number "
                             f"of {record}-byte records")
        rows = np.frombuffer(data, np.uint8).reshape(-1, record)
        self.labels = rows[:, self.LABEL_INDEX].astype(np.int64)
        self.images = rows[:, self.LABEL_BYTES:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)

    def _from_batches(self, name, chunks):
        images, labels = [], []
        for member, data in chunks:
            where = f"member {member!r} of {self.data_file!r}"
            batch = load_batch(name, data, where)
            pixels = batch.get(b"data", batch.get("data"))
            if not isinstance(pixels, np.ndarray) or pixels.dtype != np.uint8 or pixels.ndim != 2 \
                    or pixels.shape[1] != _PIXELS:
                got = (f"{pixels.dtype} array of shape {list(pixels.shape)}" if isinstance(pixels, np.ndarray)
                       else type(pixels).__name__)
                raise ValueError(f"{name}: {where}: 'data' expected a uint8 array of shape [N, {_PIXELS}], got {got}")
            found = [batch[key] for key in self.LABEL_KEYS if key in batch]
            if not found:
                raise ValueError(f"{name}: {where} has no {self.LABEL_KEYS[1]!r} entry")
            batch_labels = found[0]
            if not isinstance(batch_labels, (list, np.ndarray)) or len(batch_labels) != len(pixels) or not all(
                    isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in batch_labels):
                raise ValueError(f"{name}: {where}: {self.LABEL_KEYS[1]!r} expected a list of {len(pixels)} ints "
                                 f"(one per image)")
            images.append(pixels)
            labels.append(np.asarray(batch_labels, dtype=np.int64))
        self.labels = np.concatenate(labels)
        self.images = np.concatenate(images).reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)

    def __getitem__(self, idx):
        image, label = self.images[idx], np.array(self.labels[idx], dtype=np.int64)
        # Paddle hands the 'cv2' transform the uint8 pixels (so ToTensor scales them to [0, 1]); only the
        # result is cast to the default dtype.
        image = np.array(image, dtype=np.uint8)
        if self.backend == "pil":
            image = to_pil_or_uint8(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "cv2" and hasattr(image, "astype"):
            image = image.astype(self.dtype)
        return image, label

    def __len__(self):
        return len(self.labels)


class Cifar100(Cifar10):
    """CIFAR-100 from ``cifar-100-python.tar.gz`` (pickled batches ``train`` and
    ``test``, read as :class:`Cifar10` reads them, with ``fine_labels``) or
    ``cifar-100-binary.tar.gz`` (``train.bin``, ``test.bin``: records of a
    coarse and a fine label byte, then 3,072 pixel bytes); the label is the
    fine one (0..99), as Paddle. Arguments as :class:`Cifar10`.

    >>> ds = eager.vision.datasets.Cifar100(data_file100, mode="train", backend="cv2")
    >>> int(ds[0][1]) < 100
    True
    """

    URL = "https://www.cs.toronto.edu/~kriz/cifar-100-binary.tar.gz"
    PYTHON_URL = "https://dataset.bj.bcebos.com/cifar/cifar-100-python.tar.gz"
    PYTHON_NAME = "cifar-100-python.tar.gz"
    LABEL_BYTES = 2
    LABEL_INDEX = 1
    LABEL_KEYS = (b"fine_labels", "fine_labels")
    FLAGS = {"train": "train", "test": "test"}

    def _binary_members(self, names):
        wanted = "train.bin" if self.mode == "train" else "test.bin"
        return sorted(n for n in names if _base(n) == wanted)

    def _binary_names(self):
        return "train.bin" if self.mode == "train" else "test.bin"


__all__ = ["Cifar10", "Cifar100"]
