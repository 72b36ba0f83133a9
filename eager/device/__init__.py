"""``eager.device``: Paddle's ``paddle.device``: the default device and the GPUs.

>>> eager.device.set_device("cpu")
Place(cpu)
>>> eager.device.get_device()
'cpu'
>>> eager.device.cuda.device_count() >= 0
True
"""
from ..framework import get_device, set_device
from . import cuda

__all__ = ["cuda", "get_device", "set_device"]
