"""``eager.device``: Paddle's ``paddle.device``: the default device, the GPUs, and
what this build can run on (build.py).

>>> eager.device.set_device("cpu")
Place(cpu)
>>> eager.device.get_device()
'cpu'
>>> eager.device.cuda.device_count() >= 0
True
"""
from ..framework import get_device, set_device
from . import cuda, xpu
from .streams import Event, Stream, current_stream, set_stream, stream_guard, synchronize
from .build import (get_all_custom_device_type, get_all_device_type, get_available_custom_device, get_available_device,
                    get_cudnn_version, is_compiled_with_cinn, is_compiled_with_cuda,
                    is_compiled_with_custom_device, is_compiled_with_distribute, is_compiled_with_ipu,
                    is_compiled_with_rocm, is_compiled_with_xpu)

__all__ = ["Event", "Stream", "cuda", "xpu", "current_stream", "set_stream", "stream_guard", "synchronize", "get_all_custom_device_type", "get_all_device_type", "get_available_custom_device", "get_available_device",
           "get_cudnn_version", "get_device", "is_compiled_with_cinn",
           "is_compiled_with_cuda", "is_compiled_with_custom_device", "is_compiled_with_distribute",
           "is_compiled_with_ipu", "is_compiled_with_rocm", "is_compiled_with_xpu", "set_device"]
