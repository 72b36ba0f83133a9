"""Paddle's ``paddle.vision.image_load``: an image file, read by the image backend."""
from __future__ import annotations

import importlib
import os

import numpy as np

from ..utils.lazy_import import try_import
from .image import get_image_backend
from .ops import decode_jpeg, read_file

__all__ = ["image_load"]

_LOAD_BACKENDS = ("pil", "cv2", "tensor")


def image_load(path, backend=None):
    """The image at ``path`` as the backend gives it (None: the current one,
    :func:`eager.vision.get_image_backend`): 'pil' a ``PIL.Image`` (Pillow),
    'cv2' an HWC BGR uint8 NumPy array (OpenCV's ``imread``; without OpenCV,
    the same array decoded by Pillow: 3 channels, alpha dropped), 'tensor' a CHW
    uint8 Tensor (:func:`eager.vision.ops.decode_jpeg` of the file's bytes).

    >>> image = eager.vision.image_load("photo.jpg")   # doctest: +SKIP
    >>> image.size                                     # doctest: +SKIP
    (640, 480)
    """
    if backend is None:
        backend = get_image_backend()
    if backend not in _LOAD_BACKENDS:
        raise ValueError(f"image_load: argument 'backend' expected one of {list(_LOAD_BACKENDS)} or None, got "
                         f"{backend!r}")
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"image_load: argument 'path' expected a file path, got {type(path).__name__}")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"image_load: argument 'path': no file at {os.fspath(path)!r}")
    if backend == "pil":
        return try_import("PIL.Image", "image_load: the 'pil' backend needs Pillow (pip install Pillow)").open(path)
    if backend == "cv2":
        return _imread_bgr(os.fspath(path))
    return decode_jpeg(read_file(path))


def _imread_bgr(path: str):
    """OpenCV's ``imread(path)`` (IMREAD_COLOR: HWC, 3 channels, BGR, uint8),
    with Pillow standing in when OpenCV is not installed."""
    try:  # OpenCV and Pillow are optional: imported by name so that they stay so
        cv2 = importlib.import_module("cv2")
    except ImportError:
        cv2 = None
    if cv2 is not None:
        return cv2.imread(path)
    image_module = try_import("PIL.Image", "image_load: the 'cv2' backend needs OpenCV (pip install "
                                           "opencv-python) or, standing in for it, Pillow (pip install Pillow)")
    with image_module.open(path) as image:
        rgb = np.asarray(image.convert("RGB"), dtype=np.uint8)
    return np.ascontiguousarray(rgb[:, :, ::-1])
