"""``paddle.static`` as far as a dygraph script reaches it: :class:`InputSpec` and
:class:`BuildStrategy` (the options given to ``paddle.jit.to_static``).

eager has no static-graph mode (no Program, Executor or ``paddle.enable_static``);
Paddle's dygraph scripts name ``paddle.static.InputSpec`` for
``paddle.jit.to_static(input_spec=...)`` and ``paddle.jit.save``, so the class is
here as well as at :mod:`eager.jit`. ``create_parameter`` and ``create_global_var``
make the dygraph tensors Paddle makes for them there, ``name_scope``, ``device_guard``,
``cpu_places`` and ``cuda_places`` (eager.static.guards) and ``auc`` do what they do in
Paddle's dygraph mode,
and :mod:`eager.static.nn` has
the control flow (``cond``, ``case``, ``switch_case``, ``while_loop``) as dygraph runs it.

>>> import eager
>>> eager.static.InputSpec([None, 784], "float32") == eager.jit.InputSpec([None, 784], "float32")
True
"""
from ..errors import static_graph_missing as missing
from ..jit.input_spec import InputSpec
from ..metric.metrics import accuracy
from .auc import auc
from ..parameter import create_parameter
from ..tensor_namespace import create_global_var
from . import nn
from .build_strategy import BuildStrategy
from .guards import cpu_places, cuda_places, device_guard, name_scope

# accuracy: Paddle's static.accuracy runs the same top-k and accuracy ops as metric.accuracy in dygraph mode
__all__ = ["BuildStrategy", "InputSpec", "accuracy", "auc", "cpu_places", "create_global_var", "create_parameter",
           "cuda_places", "device_guard", "name_scope", "nn"]

# Paddle 2.6.2's paddle.static names that need a static graph: asking for one says so
_STATIC_ONLY = frozenset({
    "CompiledProgram", "ExecutionStrategy", "Executor", "ExponentialMovingAverage", "IpuCompiledProgram",
    "IpuStrategy", "Print", "Program", "Variable", "WeightNormParamAttr", "append_backward",
    "ctr_metric_bundle", "data", "default_main_program", "default_startup_program",
    "deserialize_persistables", "deserialize_program", "global_scope", "gradients",
    "ipu_shard_guard", "load", "load_from_file", "load_inference_model", "load_program_state",
    "normalize_program", "program_guard", "py_func", "save", "save_inference_model", "save_to_file",
    "scope_guard", "serialize_persistables", "serialize_program", "set_ipu_shard", "set_program_state",
    "xpu_places"})


def __getattr__(name):
    raise missing(__name__, name, _STATIC_ONLY)
