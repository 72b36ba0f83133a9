"""Paddle's ``paddle.base`` (the ``fluid`` package, renamed in Paddle 2.6), as far
as dynamic-graph programs use it: ``set_flags``/``get_flags``, the places,
``ParamAttr``, ``BuildStrategy`` (``eager.static``'s: options held for
``to_static``), the build queries, ``dygraph`` (``guard``, ``to_variable``),
``core``, ``framework``, ``unique_name``, ``io``/``reader`` (the legacy
``DataLoader.from_generator`` and ``PyReader``) and ``Tensor`` (Paddle's LoDTensor made on
its own: ``t = base.Tensor(); t.set(array, place); to_tensor(t)``). Each name is eager's own
object.

Paddle's static-graph pieces (Program, Executor, Scope, program_guard,
DataFeeder, LoDTensor, ...) have no counterpart: asking for one is an
AttributeError that names it as static-graph API.

>>> eager.base.set_flags({"FLAGS_use_stride_kernel": True})
>>> eager.base.dygraph.to_variable is eager.base.dygraph.base.to_variable
True
"""
from __future__ import annotations

from phi.common import CPUPlace, CUDAPinnedPlace, GPUPlace as CUDAPlace

from ..device.build import is_compiled_with_cinn, is_compiled_with_cuda, is_compiled_with_rocm, is_compiled_with_xpu
from ..errors import static_graph_missing as missing
from ..framework import get_flags, in_dynamic_mode as in_dygraph_mode, set_flags
from ..nn.layer import ParamAttr
from ..static import BuildStrategy
from ..tensor_queries import LoDTensor as Tensor
from ..utils.versions import require_version
from . import core, dygraph, framework, io, reader, unique_name
from .dygraph.base import disable_dygraph, enable_dygraph

__all__ = ["CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "ParamAttr", "Tensor", "core", "disable_dygraph", "dygraph", "enable_dygraph", "framework",
           "get_flags", "io", "reader", "in_dygraph_mode", "is_compiled_with_cinn", "is_compiled_with_cuda", "is_compiled_with_rocm",
           "is_compiled_with_xpu", "require_version", "set_flags", "unique_name"]

_STATIC_ONLY = frozenset({
    "CompiledProgram", "DataFeedDesc", "DataFeeder", "DatasetFactory", "ExecutionStrategy",
    "Executor", "InMemoryDataset", "IpuCompiledProgram", "IpuStrategy", "LoDTensor", "LoDTensorArray", "Program",
    "Scope", "Variable", "WeightNormParamAttr", "append_backward", "backward", "compiler", "cpu_places",
    "create_lod_tensor", "create_random_int_lodtensor", "cuda_pinned_places", "cuda_places", "data_feeder",
    "dataset", "default_main_program", "default_startup_program", "device_guard", "executor", "global_scope",
    "gradients", "ipu_shard_guard", "layers", "program_guard", "scope_guard", "set_global_initializer",
    "set_ipu_shard", "xpu_places"})


def __getattr__(name):
    raise missing(__name__, name, _STATIC_ONLY)
