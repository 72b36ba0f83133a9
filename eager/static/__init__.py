"""``paddle.static`` as far as a dygraph script reaches it: :class:`InputSpec` and
:class:`BuildStrategy` (the options given to ``paddle.jit.to_static``).

eager has no static-graph mode (no Program, Executor or ``paddle.enable_static``);
Paddle's dygraph scripts name ``paddle.static.InputSpec`` for
``paddle.jit.to_static(input_spec=...)`` and ``paddle.jit.save``, so the class is
here as well as at :mod:`eager.jit`.

>>> import eager
>>> eager.static.InputSpec([None, 784], "float32") == eager.jit.InputSpec([None, 784], "float32")
True
"""
from ..jit.input_spec import InputSpec
from .build_strategy import BuildStrategy

__all__ = ["BuildStrategy", "InputSpec"]
