"""The image backend (Paddle's ``paddle.vision.set_image_backend`` /
``get_image_backend``): 'pil' (the default, as Paddle), 'cv2' or 'tensor'.

What the built-in datasets return: with 'pil' a ``PIL.Image`` when Pillow is
installed and, without Pillow, the same pixels as a uint8 NumPy array (what
``numpy.asarray`` of that image gives), so ``ToTensor`` scales them to [0, 1]
either way; with 'cv2' float32 NumPy arrays, as Paddle's cv2 backend. As in
Paddle, 'tensor' is a backend of :func:`eager.vision.image_load` only (a CHW
uint8 Tensor): a dataset built with ``backend=None`` while it is set raises
ValueError, and DatasetFolder's default loader reads with Pillow.

>>> import eager
>>> eager.vision.get_image_backend()
'pil'
"""
from __future__ import annotations

import importlib

_BACKENDS = ("pil", "cv2", "tensor")
_DATASET_BACKENDS = ("pil", "cv2")
_STATE = {"backend": "pil"}


def set_image_backend(backend: str) -> None:
    """Makes ``backend`` ('pil', 'cv2' or 'tensor') the one that
    :func:`eager.vision.image_load` and datasets built with ``backend=None``
    use ('tensor' is for image_load only: such datasets then raise).

    >>> eager.vision.set_image_backend("cv2"); eager.vision.set_image_backend("pil")
    """
    if backend not in _BACKENDS:
        raise ValueError(f"set_image_backend: argument 'backend' expected one of {_BACKENDS}, got {backend!r}")
    _STATE["backend"] = backend


def get_image_backend() -> str:
    """The backend image_load and the datasets use when given ``backend=None``
    ('pil' unless set).

    >>> eager.vision.get_image_backend() in ("pil", "cv2", "tensor")
    True
    """
    return _STATE["backend"]


def check_backend(fn: str, backend) -> str:
    """A dataset's ``backend`` checked ('pil' or 'cv2'), None meaning the current
    one, which must then be one of those two (not 'tensor', as in Paddle)."""
    if backend is None:
        current = get_image_backend()
        if current not in _DATASET_BACKENDS:
            raise ValueError(f"{fn}: argument 'backend' is None and the image backend is {current!r} (set by "
                             f"set_image_backend), which datasets do not return; expected one of "
                             f"{_DATASET_BACKENDS}: pass backend='pil' or 'cv2', or set one of them")
        return current
    if backend not in _DATASET_BACKENDS:
        raise ValueError(f"{fn}: argument 'backend' expected one of {_DATASET_BACKENDS} or None, got {backend!r}")
    return backend


def to_pil_or_uint8(array):
    """A uint8 array as a PIL Image when Pillow is installed, else as it is."""
    try:  # Pillow is optional: imported by name so that it stays so
        image_module = importlib.import_module("PIL.Image")
    except ImportError:
        return array
    return image_module.fromarray(array)


__all__ = ["get_image_backend", "set_image_backend"]
