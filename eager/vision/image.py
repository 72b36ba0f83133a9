"""The image backend the datasets return (Paddle's ``paddle.vision.set_image_backend``
/ ``get_image_backend``): 'pil' (the default, as Paddle) or 'cv2' (NumPy arrays).

With 'pil' a dataset returns a ``PIL.Image`` when Pillow is installed and,
without Pillow, the same pixels as a uint8 NumPy array (what
``numpy.asarray`` of that image gives), so ``ToTensor`` scales them to [0, 1]
either way. With 'cv2' it returns float32 NumPy arrays, as Paddle's cv2 backend.

>>> import eager
>>> eager.vision.get_image_backend()
'pil'
"""
from __future__ import annotations

import importlib

_BACKENDS = ("pil", "cv2")
_STATE = {"backend": "pil"}


def set_image_backend(backend: str) -> None:
    """Makes ``backend`` ('pil' or 'cv2') what datasets built with ``backend=None`` return.

    >>> eager.vision.set_image_backend("cv2"); eager.vision.set_image_backend("pil")
    """
    if backend not in _BACKENDS:
        raise ValueError(f"set_image_backend: argument 'backend' expected one of {_BACKENDS}, got {backend!r}")
    _STATE["backend"] = backend


def get_image_backend() -> str:
    """The backend datasets use when given ``backend=None`` ('pil' unless set).

    >>> eager.vision.get_image_backend() in ("pil", "cv2")
    True
    """
    return _STATE["backend"]


def check_backend(fn: str, backend) -> str:
    """``backend`` checked, None meaning the current one."""
    if backend is None:
        return get_image_backend()
    if backend not in _BACKENDS:
        raise ValueError(f"{fn}: argument 'backend' expected one of {_BACKENDS} or None, got {backend!r}")
    return backend


def to_pil_or_uint8(array):
    """A uint8 array as a PIL Image when Pillow is installed, else as it is."""
    try:  # Pillow is optional: imported by name so that it stays so
        image_module = importlib.import_module("PIL.Image")
    except ImportError:
        return array
    return image_module.fromarray(array)


__all__ = ["get_image_backend", "set_image_backend"]
