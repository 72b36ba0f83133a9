"""Paddle's ``paddle.version``: the installed version and what the build has.

Paddle writes this module at build time; eager's numbers are its own
(``eager.__version__``). A CPU-only Paddle reports ``'False'`` (a str) for CUDA
and cuDNN, and scripts test ``paddle.version.cuda() != 'False'``, so eager gives
the CUDA runtime's version when CuPy sees a GPU and ``'False'`` otherwise, and
``'False'`` for cuDNN, which eager's kernels never call.

>>> eager.version.full_version == eager.__version__
True
>>> eager.version.xpu()
'False'
"""
from __future__ import annotations

import importlib

from . import __version__
from .framework import gpu_count

__all__ = ["cuda", "cudnn", "show", "xpu", "xpu_xccl"]

full_version = __version__
major, minor, patch = __version__.split(".")[:3]
rc = "0"
xpu_version = "False"
xpu_xccl_version = "False"
istaged = True
commit = "Unknown"
with_mkl = "OFF"
cinn_version = "False"
# eager's GPU kernels are CuPy's and never call cuDNN (eager.device.get_cudnn_version() is None).
cudnn_version = "False"


def _cuda_version() -> str:
    # Asked on each call (not at import): importing CuPy costs a second, and a bare
    # `import eager` must stay cheap.
    if gpu_count() == 0:
        return "False"
    number = int(importlib.import_module("cupy").cuda.runtime.runtimeGetVersion())
    return f"{number // 1000}.{number % 1000 // 10}"


def __getattr__(name):
    # Paddle's module-level constant cuda_version, computed on first use.
    if name == "cuda_version":
        return _cuda_version()
    raise AttributeError(f"module 'eager.version' has no attribute {name!r}")


def show() -> None:
    """Prints the version (full_version, major, minor, patch, rc) and the CUDA, cuDNN,
    XPU, XCCL and CINN versions, ``False`` for what the build lacks, as Paddle's."""
    print("full_version:", full_version)
    print("major:", major)
    print("minor:", minor)
    print("patch:", patch)
    print("rc:", rc)
    print("cuda:", _cuda_version())
    print("cudnn:", cudnn_version)
    print("xpu:", xpu_version)
    print("xpu_xccl:", xpu_xccl_version)
    print("cinn:", cinn_version)


def mkl() -> str:
    """Whether the build uses MKL, as Paddle's ``'ON'``/``'OFF'``: eager uses NumPy's BLAS."""
    return with_mkl


def cuda() -> str:
    """The CUDA runtime version as ``'major.minor'`` (e.g. ``'12.2'``) when a GPU can be
    used, ``'False'`` otherwise (Paddle's CPU build)."""
    return _cuda_version()


def cudnn() -> str:
    """``'False'``: no cuDNN is used (Paddle: the cuDNN version, ``'8.9.2'``, in a CUDA build)."""
    return cudnn_version


def xpu() -> str:
    """``'False'``: eager has no XPU build."""
    return xpu_version


def xpu_xccl() -> str:
    """``'False'``: eager has no XPU build."""
    return xpu_xccl_version


def cinn() -> str:
    """``'False'``: eager has no CINN compiler."""
    return cinn_version
