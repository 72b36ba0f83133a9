"""Paddle's ``paddle.base.framework``, as far as dygraph scripts use it: flags,
the mode query, what the build supports and ``require_version``. Program,
Variable, program_guard and the rest of the static graph are an
AttributeError that says so.

>>> eager.base.framework.in_dygraph_mode()
True
"""
from __future__ import annotations

from ..device.build import (is_compiled_with_cinn, is_compiled_with_cuda, is_compiled_with_distribute,
                            is_compiled_with_rocm, is_compiled_with_xpu)
from ..errors import static_graph_missing as missing
from ..framework import current_place, get_flags, in_dynamic_mode as in_dygraph_mode, set_flags
# Paddle's dygraph parameter class, which scripts name in isinstance checks
from ..nn.layer import Parameter as EagerParamBase
from ..utils.versions import require_version

__all__ = ["EagerParamBase", "get_flags", "in_dygraph_mode", "is_compiled_with_cinn", "is_compiled_with_cuda",
           "is_compiled_with_distribute", "is_compiled_with_rocm", "is_compiled_with_xpu", "require_version",
           "set_flags"]

_STATIC_ONLY = frozenset({"Block", "Operator", "Parameter", "Program", "Variable", "cpu_places", "cuda_places",
                          "cuda_pinned_places", "default_main_program", "default_startup_program",
                          "device_guard", "ipu_shard_guard", "program_guard",
                          "set_ipu_shard", "switch_main_program", "switch_startup_program", "xpu_places"})


def _current_expected_place():
    """The place new tensors go to (what ``set_device`` chose), as Paddle's private
    helper that scripts and Paddle's own tests call."""
    return current_place()


def __getattr__(name):
    raise missing(__name__, name, _STATIC_ONLY)
