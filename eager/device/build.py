"""What this build of eager can run on: Paddle's ``paddle.is_compiled_with_*`` and
``paddle.device.get_all_device_type`` / ``get_available_device``.

eager is pure Python: nothing is compiled in. A GPU is CuPy's, so "compiled
with CUDA" means what a script asking it wants to know: whether ``'gpu'`` can
be used now (CuPy importable and at least one visible device). The common
``paddle.set_device('gpu' if paddle.is_compiled_with_cuda() else 'cpu')``
then picks the GPU exactly when ``set_device('gpu')`` succeeds. ROCm, XPU, IPU,
CINN and custom devices are never available.

>>> eager.set_device("gpu" if eager.is_compiled_with_cuda() else "cpu")  # doctest: +SKIP
>>> "cpu" in eager.device.get_all_device_type()
True
"""
from __future__ import annotations

import importlib

from ..framework import gpu_count


def is_compiled_with_cuda() -> bool:
    """Whether GPU tensors can be made: CuPy imports and sees at least one device
    (Paddle: whether the package was built with CUDA)."""
    return gpu_count() > 0


def is_compiled_with_rocm() -> bool:
    """False: eager's GPU path is CuPy on CUDA (a ROCm build of CuPy is not supported)."""
    return False


def is_compiled_with_xpu() -> bool:
    """False: eager runs on CPUs and CUDA GPUs only."""
    return False


def is_compiled_with_ipu() -> bool:
    """False: eager runs on CPUs and CUDA GPUs only."""
    return False


def is_compiled_with_cinn() -> bool:
    """False: eager has no CINN compiler (``eager.jit`` replays traces instead)."""
    return False


def is_compiled_with_custom_device(device_type: str) -> bool:
    """False for every ``device_type`` (a str, e.g. 'npu'): eager has no custom devices."""
    if not isinstance(device_type, str):
        raise TypeError(f"is_compiled_with_custom_device: argument 'device_type' expected a str, got "
                        f"{type(device_type).__name__}")
    return False


def is_compiled_with_distribute() -> bool:
    """Whether ``eager.distributed`` can run: mpi4py, its transport, imports."""
    try:
        importlib.import_module("mpi4py")
    except ImportError:
        return False
    return True


def get_all_device_type() -> list:
    """The device types usable now: ['cpu'], plus 'gpu' when a GPU is
    (is_compiled_with_cuda).

    >>> eager.device.get_all_device_type()[0]
    'cpu'
    """
    return ["cpu", "gpu"] if gpu_count() > 0 else ["cpu"]


def get_available_device() -> list:
    """The devices usable now: 'cpu', then 'gpu:0', 'gpu:1', ... for each visible GPU.

    >>> eager.device.get_available_device()[0]
    'cpu'
    """
    return ["cpu"] + [f"gpu:{i}" for i in range(gpu_count())]


def get_all_custom_device_type() -> list:
    """The custom (plug-in) device types registered: always ``[]``, as eager has
    no custom devices (Paddle: a list of names such as 'npu').

    >>> eager.device.get_all_custom_device_type()
    []
    """
    return []


def get_available_custom_device() -> list:
    """The custom (plug-in) devices usable now: always ``[]``, as eager has no
    custom devices (Paddle: e.g. ['npu:0', 'npu:1']).

    >>> eager.device.get_available_custom_device()
    []
    """
    return []


def get_cudnn_version():
    """None: eager's GPU kernels are CuPy's and never call cuDNN, so there is no
    cuDNN version in use (Paddle: the cuDNN version as an int such as 8906, or
    None in a build without CUDA).

    >>> eager.device.get_cudnn_version() is None
    True
    """
    return None


__all__ = ["get_all_custom_device_type", "get_all_device_type", "get_available_custom_device",
           "get_available_device", "get_cudnn_version", "is_compiled_with_cinn", "is_compiled_with_cuda",
           "is_compiled_with_custom_device", "is_compiled_with_distribute", "is_compiled_with_ipu",
           "is_compiled_with_rocm", "is_compiled_with_xpu"]
