"""Datasets read from a folder tree (Paddle's ``paddle.vision.datasets.DatasetFolder``
and ``ImageFolder``): one sub-folder per class, or a flat tree of samples.

The default loader reads an image with the image backend
(``eager.vision.get_image_backend``): 'pil' gives an RGB ``PIL.Image``, 'cv2' an
RGB uint8 NumPy array of shape HWC (read with OpenCV when it is installed,
else with Pillow; both give the same pixels); with 'tensor', as in Paddle, the
'pil' one.
"""
from __future__ import annotations

import importlib
import os

import numpy as np

from ...framework import get_default_dtype
from ...io.dataset import Dataset
from ..image import get_image_backend

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_valid_extension(filename, extensions) -> bool:
    """Whether ``filename`` ends (case-insensitively) with one of ``extensions``.

    >>> has_valid_extension("a/B.JPG", (".jpg",))
    True
    """
    return filename.lower().endswith(tuple(e.lower() for e in extensions))


def _optional(name: str):
    try:  # Pillow and OpenCV are optional: imported by name so that they stay so
        return importlib.import_module(name)
    except ImportError:
        return None


def pil_loader(path):
    """The image at ``path`` as an RGB ``PIL.Image`` (needs Pillow)."""
    image_module = _optional("PIL.Image")
    if image_module is None:
        raise ImportError(f"pil_loader: reading {path!r} with the 'pil' image backend needs Pillow; install it, "
                          f"or pass loader=... to the dataset")
    with open(path, "rb") as f:
        return image_module.open(f).convert("RGB")


def cv2_loader(path):
    """The image at ``path`` as an RGB uint8 array (HWC): OpenCV when installed, else Pillow."""
    cv2 = _optional("cv2")
    if cv2 is not None:
        image = cv2.imread(os.fspath(path))
        if image is None:
            raise ValueError(f"cv2_loader: cannot read an image from {path!r}")
        return cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
    if _optional("PIL.Image") is None:
        raise ImportError(f"cv2_loader: reading {path!r} needs OpenCV or Pillow; install one, or pass loader=... "
                          f"to the dataset")
    return np.asarray(pil_loader(path), dtype=np.uint8)


def default_loader(path):
    """The image at ``path`` read with the current image backend: 'cv2' an RGB
    uint8 HWC array, otherwise ('pil', and 'tensor' as in Paddle) a PIL Image.

    >>> eager.vision.datasets.folder.default_loader("cat.png").size
    (32, 32)
    """
    return cv2_loader(path) if get_image_backend() == "cv2" else pil_loader(path)


def _check_args(fn, root, loader, extensions, transform, is_valid_file):
    if not isinstance(root, (str, os.PathLike)):
        raise TypeError(f"{fn}: argument 'root' expected a folder path, got {type(root).__name__}")
    root = os.path.expanduser(os.fspath(root))
    if not os.path.isdir(root):
        raise FileNotFoundError(f"{fn}: argument 'root': no folder at {root!r}")
    for name, value in (("loader", loader), ("transform", transform), ("is_valid_file", is_valid_file)):
        if value is not None and not callable(value):
            raise TypeError(f"{fn}: argument '{name}' expected a callable or None, got {value!r}")
    if extensions is not None and is_valid_file is not None:
        raise ValueError(f"{fn}: pass 'extensions' or 'is_valid_file', not both")
    if extensions is not None:
        if isinstance(extensions, str):
            extensions = (extensions,)
        if not isinstance(extensions, (list, tuple)) or not all(isinstance(e, str) for e in extensions):
            raise TypeError(f"{fn}: argument 'extensions' expected a list or tuple of str, got {extensions!r}")
        extensions = tuple(extensions)
    elif is_valid_file is None:
        extensions = IMG_EXTENSIONS
    return root, extensions


def _files_under(folder, extensions, is_valid_file):
    """Every file under ``folder`` (following links) that passes, in sorted order."""
    found = []
    for where, dirs, names in sorted(os.walk(folder, followlinks=True)):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(where, name)
            if is_valid_file(path) if extensions is None else has_valid_extension(path, extensions):
                found.append(path)
    return found


def make_dataset(dir, class_to_idx, extensions=None, is_valid_file=None):
    """``(path, class_index)`` for every valid file under ``dir/<class>/``, classes
    in sorted order, files sorted within each.

    >>> make_dataset(root, {"cat": 0, "dog": 1}, extensions=(".png",))[0]
    ('root/cat/0.png', 0)
    """
    if (extensions is None) == (is_valid_file is None):
        raise ValueError("make_dataset: pass exactly one of 'extensions' and 'is_valid_file'")
    dir = os.path.expanduser(os.fspath(dir))
    samples = []
    for name in sorted(class_to_idx):
        folder = os.path.join(dir, name)
        if os.path.isdir(folder):
            samples.extend((path, class_to_idx[name]) for path in _files_under(folder, extensions, is_valid_file))
    return samples


def _what(extensions):
    return f"with extensions {', '.join(extensions)}" if extensions is not None else "that pass is_valid_file"


class DatasetFolder(Dataset):
    """Samples arranged one folder per class (``root/<class>/.../<file>``):
    ``ds[i]`` is ``(sample, class_index)``, classes numbered in sorted order.

    ``loader(path)`` reads a sample (default: the image backend's reader);
    ``extensions`` (default: the common image ones) or ``is_valid_file(path)``
    picks the files (not both); ``transform`` is applied to each sample.
    Attributes: ``classes``, ``class_to_idx``, ``samples`` (``(path, index)``
    pairs) and ``targets``.

    >>> ds = eager.vision.datasets.DatasetFolder(root)   # root/cat/*.png, root/dog/*.png
    >>> ds.classes, len(ds)
    (['cat', 'dog'], 4)
    >>> image, label = ds[0]
    """

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        name = type(self).__name__
        self.root, extensions = _check_args(name, root, loader, extensions, transform, is_valid_file)
        classes, class_to_idx = self._find_classes(self.root)
        if not classes:
            raise RuntimeError(f"{name}: found no class folders in {self.root!r} (expected root/<class>/<file>)")
        samples = make_dataset(self.root, class_to_idx, extensions, is_valid_file)
        if not samples:
            raise RuntimeError(f"{name}: found no files {_what(extensions)} in the class folders of {self.root!r}")
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.transform = transform
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [target for _, target in samples]
        self.dtype = get_default_dtype()

    def _find_classes(self, dir):
        """The sub-folder names of ``dir`` sorted, and their indices."""
        classes = sorted(entry.name for entry in os.scandir(dir) if entry.is_dir())
        return classes, {cls: i for i, cls in enumerate(classes)}

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target

    def __len__(self):
        return len(self.samples)


class ImageFolder(Dataset):
    """Samples anywhere under ``root`` (``root/1.ext``, ``root/sub/2.ext``), no
    labels: ``ds[i]`` is ``[sample]``, files in sorted order. Arguments as
    :class:`DatasetFolder`; attribute ``samples`` (the paths).

    >>> ds = eager.vision.datasets.ImageFolder(root, transform=eager.vision.transforms.ToTensor())
    >>> [image] = ds[0]
    """

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        name = type(self).__name__
        self.root, extensions = _check_args(name, root, loader, extensions, transform, is_valid_file)
        samples = _files_under(self.root, extensions, is_valid_file)
        if not samples:
            raise RuntimeError(f"{name}: found no files {_what(extensions)} under {self.root!r}")
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.transform = transform
        self.samples = samples

    def __getitem__(self, index):
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self):
        return len(self.samples)


__all__ = ["DatasetFolder", "ImageFolder"]
