"""``paddle.static`` as far as a dygraph script reaches it: :class:`InputSpec` and
:class:`BuildStrategy` (the options given to ``paddle.jit.to_static``).

eager has no static-graph mode (no Program, Executor or ``paddle.enable_static``);
Paddle's dygraph scripts name ``paddle.static.InputSpec`` for
``paddle.jit.to_static(input_spec=...)`` and ``paddle.jit.save``, so the class is
here as well as at :mod:`eager.jit`. ``create_parameter`` and ``create_global_var``
make the dygraph tensors Paddle makes for them there, and :mod:`eager.static.nn` has
the control flow (``cond``, ``case``, ``switch_case``, ``while_loop``) as dygraph runs it.

>>> import eager
>>> eager.static.InputSpec([None, 784], "float32") == eager.jit.InputSpec([None, 784], "float32")
True
"""
from ..jit.input_spec import InputSpec
from ..parameter import create_parameter
from ..tensor_namespace import create_global_var
from . import nn
from .build_strategy import BuildStrategy

__all__ = ["BuildStrategy", "InputSpec", "create_global_var", "create_parameter", "nn"]
