"""Paddle's ``paddle.base.core`` (its C++ core module), as far as dygraph scripts
use it: the places, what the build supports, how many devices there are and the
operator statistics of paddle.amp.debugging (``get_low_precision_op_list``).
Static-graph classes (VarDesc, Scope, ProgramDesc, LoDTensor, ...) are an
AttributeError that says so; Paddle's other C++ internals are simply absent.

>>> eager.base.core.is_compiled_with_xpu(), eager.base.core.get_xpu_device_count()
(False, 0)
"""
from __future__ import annotations

from phi.common import CPUPlace, CUDAPinnedPlace, GPUPlace as CUDAPlace

from ..amp.debugging import get_low_precision_op_list
from ..device.build import (is_compiled_with_cinn, is_compiled_with_cuda, is_compiled_with_custom_device,
                            is_compiled_with_ipu, is_compiled_with_rocm, is_compiled_with_xpu)
from ..device.cuda import device_count as get_cuda_device_count
from ..device.xpu import device_count as get_xpu_device_count
from ..errors import static_graph_missing as missing

__all__ = ["CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "get_cuda_device_count", "get_low_precision_op_list",
           "get_xpu_device_count", "grad_var_suffix", "is_compiled_with_cinn", "is_compiled_with_cuda", "is_compiled_with_custom_device",
           "is_compiled_with_ipu", "is_compiled_with_rocm", "is_compiled_with_xpu"]

_STATIC_ONLY = frozenset({"BlockDesc", "LoDTensor", "LoDTensorArray", "OpDesc", "ProgramDesc", "Scope",
                          "VarDesc", "Variable", "Executor", "Graph"})


def grad_var_suffix() -> str:
    """The suffix Paddle appends to a variable's name to name its gradient
    ("@GRAD"), which Paddle's dygraph tests use to key gradient dicts
    (``param.name + core.grad_var_suffix()``).

    >>> eager.base.core.grad_var_suffix()
    '@GRAD'
    """
    return "@GRAD"


def __getattr__(name):
    raise missing(__name__, name, _STATIC_ONLY)
