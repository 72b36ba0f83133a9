"""Paddle's ``paddle.dataset.image``: image loading and simple augmentation for
the legacy readers, on NumPy arrays through OpenCV, as Paddle's.

Images are HWC NumPy arrays as OpenCV gives them (colour channels in **BGR**
order, uint8); :func:`to_chw` turns one into the CHW layout networks take.
Loading and resizing need OpenCV (``cv2``, the optional extra ``eager-phi[cv2]``:
``opencv-python-headless``); cropping, flipping and transposing are NumPy only.
Random crops and flips draw from NumPy's global generator, as Paddle's
(``np.random.seed`` repeats them).

>>> import numpy as np
>>> im = np.arange(2 * 3 * 3).reshape(2, 3, 3)
>>> to_chw(left_right_flip(im)).shape
(3, 2, 3)
"""
from __future__ import annotations

import importlib
import numbers
import os
import pickle
import tarfile

import numpy as np

__all__ = []


def _cv2(fn: str):
    """OpenCV, or ImportError naming the extra that installs it."""
    try:
        return importlib.import_module("cv2")
    except ImportError:
        raise ImportError(f"{fn} needs OpenCV (the cv2 module): install eager's 'cv2' extra "
                          f"(pip install 'eager-phi[cv2]', which installs opencv-python-headless)") from None


def _check_image(fn: str, im, is_color=None) -> np.ndarray:
    if not isinstance(im, np.ndarray):
        raise TypeError(f"{fn}: argument 'im' expected a NumPy array (an HWC or HW image), got {type(im).__name__}")
    if im.ndim not in (2, 3):
        raise ValueError(f"{fn}: argument 'im' expected an HWC or HW image (2 or 3 dims), got shape {im.shape}")
    if is_color and im.ndim != 3:
        raise ValueError(f"{fn}: argument 'im' expected an HWC colour image (3 dims) with is_color=True, got "
                         f"shape {im.shape}; pass is_color=False for a grey HW image")
    return im


def _check_size(fn: str, arg: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{fn}: argument '{arg}' expected an int, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{fn}: argument '{arg}' expected a positive int, got {value}")
    return int(value)


def _check_crop(fn: str, im, size) -> tuple:
    size = _check_size(fn, "size", size)
    h, w = im.shape[:2]
    if size > h or size > w:
        raise ValueError(f"{fn}: argument 'size' ({size}) is larger than the image ({h}x{w})")
    return size, h, w


def batch_images_from_tar(data_file, dataset_name, img2label, num_per_batch=1024) -> str:
    """Reads the images of the tar ``data_file`` named in ``img2label`` (member
    name -> label) and writes them in batch files of ``num_per_batch``: pickled
    ``{'label': [...], 'data': [image bytes, ...]}`` under
    ``<data_file>_batch/<dataset_name>_<pid>/batch_<i>``. Returns the path of the
    text file listing the batch files (one absolute path a line); when the batch
    folder of this process exists already, it is returned at once.

    >>> import io, os, tarfile, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "images.tar")
    >>> with tarfile.open(path, "w") as tar:
    ...     for name in ("a.jpg", "b.jpg", "c.jpg"):
    ...         info = tarfile.TarInfo(name)
    ...         info.size = 3
    ...         tar.addfile(info, io.BytesIO(b"xyz"))
    >>> meta = batch_images_from_tar(path, "train", {"a.jpg": 0, "c.jpg": 1}, num_per_batch=1)
    >>> len(open(meta).read().split())
    2
    """
    if not isinstance(data_file, (str, os.PathLike)):
        raise TypeError(f"batch_images_from_tar: argument 'data_file' expected a path, got "
                        f"{type(data_file).__name__}")
    if not isinstance(dataset_name, str):
        raise TypeError(f"batch_images_from_tar: argument 'dataset_name' expected a str, got "
                        f"{type(dataset_name).__name__}")
    if not isinstance(img2label, dict):
        raise TypeError(f"batch_images_from_tar: argument 'img2label' expected a dict (member name -> label), got "
                        f"{type(img2label).__name__}")
    num_per_batch = _check_size("batch_images_from_tar", "num_per_batch", num_per_batch)
    data_file = os.fspath(data_file)
    batch_dir = data_file + "_batch"
    out_path = f"{batch_dir}/{dataset_name}_{os.getpid()}"
    meta_file = f"{batch_dir}/{dataset_name}_{os.getpid()}.txt"
    if os.path.exists(out_path):
        return meta_file
    try:
        archive = tarfile.open(data_file)
    except (tarfile.TarError, OSError, EOFError) as error:
        raise ValueError(f"batch_images_from_tar: cannot read {data_file!r} as a tar archive: {error}") from None
    os.makedirs(out_path)

    def dump(number, labels, data):
        with open(f"{out_path}/batch_{number}", "wb") as f:
            pickle.dump({"label": labels, "data": data}, f, protocol=2)

    with archive:
        data, labels, file_id = [], [], 0
        for member in archive:
            if member.name in img2label and member.isfile():
                data.append(archive.extractfile(member).read())
                labels.append(img2label[member.name])
                if len(data) == num_per_batch:
                    dump(file_id, labels, data)
                    data, labels, file_id = [], [], file_id + 1
        if data:
            dump(file_id, labels, data)
    with open(meta_file, "a") as meta:
        for name in sorted(os.listdir(out_path), key=lambda n: int(n.rsplit("_", 1)[-1])):
            meta.write(os.path.abspath(f"{out_path}/{name}") + "\n")
    return meta_file


def load_image_bytes(bytes, is_color=True) -> np.ndarray:  # noqa: A002  (Paddle's argument name)
    """Decodes an encoded image (JPEG, PNG, ... as OpenCV reads) from ``bytes``:
    an HWC BGR uint8 array, or with ``is_color=False`` a grey HW one.

    >>> import cv2, numpy as np
    >>> png = cv2.imencode(".png", np.full((2, 3, 3), 7, np.uint8))[1].tobytes()
    >>> load_image_bytes(png).shape, load_image_bytes(png, is_color=False).shape
    ((2, 3, 3), (2, 3))
    """
    if not isinstance(bytes, (type(b""), bytearray, memoryview)):
        raise TypeError(f"load_image_bytes: argument 'bytes' expected bytes, got {type(bytes).__name__}")
    cv2 = _cv2("load_image_bytes")
    img = cv2.imdecode(np.frombuffer(bytes, dtype=np.uint8), 1 if is_color else 0)
    if img is None:
        raise ValueError(f"load_image_bytes: argument 'bytes' ({len(bytes)} bytes) is not an image OpenCV can "
                         f"decode")
    return img


def load_image(file, is_color=True) -> np.ndarray:
    """Reads the image file at ``file`` with OpenCV: an HWC BGR uint8 array, or
    with ``is_color=False`` a grey HW one.

    >>> import cv2, numpy as np, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "cat.png")
    >>> _ = cv2.imwrite(path, np.zeros((4, 5, 3), np.uint8))
    >>> load_image(path).shape
    (4, 5, 3)
    """
    if not isinstance(file, (str, os.PathLike)):
        raise TypeError(f"load_image: argument 'file' expected a path, got {type(file).__name__}")
    cv2 = _cv2("load_image")
    if not os.path.isfile(file):
        raise FileNotFoundError(f"load_image: argument 'file': no file at {os.fspath(file)!r}")
    im = cv2.imread(os.fspath(file), 1 if is_color else 0)
    if im is None:
        raise ValueError(f"load_image: cannot read an image from {os.fspath(file)!r}")
    return im


def resize_short(im, size) -> np.ndarray:
    """Resizes ``im`` (HWC or HW) so that its shorter side is ``size``, keeping
    the aspect ratio (the longer side ``size * long // short``), with OpenCV's
    bicubic interpolation.

    >>> import numpy as np
    >>> resize_short(np.zeros((10, 20, 3), np.uint8), 5).shape
    (5, 10, 3)
    """
    im = _check_image("resize_short", im)
    size = _check_size("resize_short", "size", size)
    cv2 = _cv2("resize_short")
    h, w = im.shape[:2]
    h_new, w_new = size, size
    if h > w:
        h_new = size * h // w
    else:
        w_new = size * w // h
    return cv2.resize(im, (w_new, h_new), interpolation=cv2.INTER_CUBIC)


def to_chw(im, order=(2, 0, 1)) -> np.ndarray:
    """``im`` transposed by ``order`` (by default HWC to CHW).

    >>> import numpy as np
    >>> to_chw(np.zeros((4, 5, 3))).shape
    (3, 4, 5)
    """
    if not isinstance(im, np.ndarray):
        raise TypeError(f"to_chw: argument 'im' expected a NumPy array, got {type(im).__name__}")
    if not isinstance(order, (tuple, list)) or sorted(order) != list(range(im.ndim)):
        raise ValueError(f"to_chw: argument 'order' expected a permutation of the {im.ndim} axes of 'im' (shape "
                         f"{im.shape}), got {order!r}")
    return im.transpose(order)


def center_crop(im, size, is_color=True) -> np.ndarray:
    """The ``size`` x ``size`` centre of ``im`` (HWC, or HW with
    ``is_color=False``); an odd margin leaves its extra pixel after the crop.

    >>> import numpy as np
    >>> center_crop(np.arange(16).reshape(4, 4), 2, is_color=False).tolist()
    [[5, 6], [9, 10]]
    """
    im = _check_image("center_crop", im, is_color)
    size, h, w = _check_crop("center_crop", im, size)
    h_start, w_start = (h - size) // 2, (w - size) // 2
    return im[h_start:h_start + size, w_start:w_start + size]


def random_crop(im, size, is_color=True) -> np.ndarray:
    """A ``size`` x ``size`` crop of ``im`` (HWC, or HW with ``is_color=False``)
    at a random place (NumPy's global generator: the row start, then the column
    start).

    >>> import numpy as np
    >>> random_crop(np.zeros((5, 6, 3)), 4).shape
    (4, 4, 3)
    """
    im = _check_image("random_crop", im, is_color)
    size, h, w = _check_crop("random_crop", im, size)
    h_start = np.random.randint(0, h - size + 1)
    w_start = np.random.randint(0, w - size + 1)
    return im[h_start:h_start + size, w_start:w_start + size]


def left_right_flip(im, is_color=True) -> np.ndarray:
    """``im`` (HWC or HW) mirrored left to right (a view).

    >>> import numpy as np
    >>> left_right_flip(np.array([[1, 2, 3]]), is_color=False).tolist()
    [[3, 2, 1]]
    """
    im = _check_image("left_right_flip", im)
    return im[:, ::-1]


def simple_transform(im, resize_size, crop_size, is_train, is_color=True, mean=None) -> np.ndarray:
    """Paddle's simple augmentation: :func:`resize_short` to ``resize_size``;
    then for training a :func:`random_crop` of ``crop_size`` and a
    :func:`left_right_flip` with probability 1/2 (NumPy's global generator), or
    else a :func:`center_crop`; a colour image goes to CHW; the result is
    float32, minus ``mean`` when given (one value per channel, a 1-D array, or
    an array of the result's shape).

    >>> import numpy as np
    >>> simple_transform(np.zeros((8, 10, 3), np.uint8), 6, 4, False, mean=[1, 2, 3])[:, 0, 0].tolist()
    [-1.0, -2.0, -3.0]
    """
    im = _check_image("simple_transform", im, is_color)
    im = resize_short(im, resize_size)
    crop_size = _check_size("simple_transform", "crop_size", crop_size)
    if crop_size > min(im.shape[:2]):
        raise ValueError(f"simple_transform: argument 'crop_size' ({crop_size}) is larger than the resized image "
                         f"({im.shape[0]}x{im.shape[1]})")
    if is_train:
        im = random_crop(im, crop_size, is_color=is_color)
        if np.random.randint(2) == 0:
            im = left_right_flip(im, is_color)
    else:
        im = center_crop(im, crop_size, is_color=is_color)
    if im.ndim == 3:
        im = to_chw(im)
    im = im.astype("float32")
    if mean is not None:
        mean = np.array(mean, dtype=np.float32)
        if mean.ndim == 1 and is_color:
            if mean.shape[0] not in (1, im.shape[0]):
                raise ValueError(f"simple_transform: argument 'mean' has {mean.shape[0]} values, expected one per "
                                 f"channel ({im.shape[0]})")
            mean = mean[:, np.newaxis, np.newaxis]
        elif mean.ndim > 1 and mean.shape != im.shape:
            raise ValueError(f"simple_transform: argument 'mean' expected one value per channel or the shape of "
                             f"the result {im.shape}, got shape {mean.shape}")
        try:
            im -= mean
        except ValueError:
            raise ValueError(f"simple_transform: argument 'mean' of shape {mean.shape} does not fit the result of "
                             f"shape {im.shape}") from None
    return im


def load_and_transform(filename, resize_size, crop_size, is_train, is_color=True, mean=None) -> np.ndarray:
    """:func:`load_image` then :func:`simple_transform` with these arguments.

    >>> import cv2, numpy as np, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "cat.png")
    >>> _ = cv2.imwrite(path, np.zeros((8, 10, 3), np.uint8))
    >>> load_and_transform(path, 6, 4, True).shape
    (3, 4, 4)
    """
    im = load_image(filename, is_color)
    return simple_transform(im, resize_size, crop_size, is_train, is_color, mean)
