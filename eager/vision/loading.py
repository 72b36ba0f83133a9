"""Paddle's ``paddle.vision.image_load``: an image file, read by the image backend."""
from __future__ import annotations

import os

from ..utils.lazy_import import try_import
from .image import get_image_backend
from .ops import decode_jpeg, read_file

__all__ = ["image_load"]

_LOAD_BACKENDS = ("pil", "cv2", "tensor")


def image_load(path, backend=None):
    """The image at ``path`` as the backend gives it (None: the current one,
    :func:`eager.vision.get_image_backend`): 'pil' a ``PIL.Image`` (Pillow),
    'cv2' an HWC BGR uint8 NumPy array (OpenCV's ``imread``), 'tensor' a CHW
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
        return try_import("cv2", "image_load: the 'cv2' backend needs OpenCV (pip install opencv-python)").imread(
            os.fspath(path))
    return decode_jpeg(read_file(path))
