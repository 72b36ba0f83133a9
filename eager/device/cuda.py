"""``eager.device.cuda``: Paddle's ``paddle.device.cuda``: how many GPUs, and
waiting for one."""
from __future__ import annotations

import importlib

from phi.common import GPUPlace

from ..framework import current_place, gpu_count, parse_device

__all__ = ["device_count", "synchronize"]


def device_count() -> int:
    """How many GPUs are visible: 0 without CuPy or without a usable driver.

    >>> eager.device.cuda.device_count() >= 0
    True
    """
    return gpu_count()


def synchronize(device=None) -> None:
    """Waits until every kernel queued on GPU ``device`` (an int id, 'gpu:N' or a
    GPUPlace; None: the default device if it is a GPU, else GPU 0) has finished.
    A device that does not exist is a ValueError."""
    if device is None:
        default = current_place()
        place = default if default.is_gpu_place() else parse_device("synchronize", "gpu")
    elif isinstance(device, int) and not isinstance(device, bool):
        if device < 0:
            raise ValueError(f"synchronize: argument 'device' expected a non-negative id, got {device}")
        place = parse_device("synchronize", GPUPlace(device))
    else:
        place = parse_device("synchronize", device)
        if not place.is_gpu_place():
            raise ValueError(f"synchronize: argument 'device' expected a GPU, got {device!r}")
    importlib.import_module("cupy").cuda.Device(place.device_id).synchronize()
