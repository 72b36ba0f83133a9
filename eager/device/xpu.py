"""``eager.device.xpu``: Paddle's ``paddle.device.xpu``. eager runs on CPUs and
CUDA GPUs only, so there are no XPUs: ``device_count()`` is 0 (as on Paddle's
builds without XPU support) and ``synchronize`` has no device to wait for.

>>> eager.device.xpu.device_count()
0
"""
from __future__ import annotations

__all__ = ["device_count", "synchronize"]


def device_count() -> int:
    """How many XPUs are visible: always 0 (eager has no XPU support).

    >>> eager.device.xpu.device_count()
    0
    """
    return 0


def synchronize(device=None) -> None:
    """Paddle waits for an XPU here; eager has no XPUs, so every call is a ValueError
    naming the device asked for (as eager's other ops do for a device that is neither
    the CPU nor a GPU)."""
    asked = "the current XPU" if device is None else repr(device)
    raise ValueError(f"synchronize: argument 'device' expected an XPU, but eager has no XPU devices "
                     f"(eager.device.xpu.device_count() is 0; it runs on 'cpu' and 'gpu:N'), got {asked}")
