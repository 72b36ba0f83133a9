"""Backward rules written with differentiable forward ops (backward.yaml ``composite``).

With ``create_graph=True`` a grad node calls these instead of its backward
kernel, so the gradient it returns is itself recorded and can be differentiated
again, to any order. Each rule is a few lines next to its name, as in JAX's
``lax.py``; one module per op group (the same groups as phi/kernels), and
``spine`` holds the helpers they share. A rule may be given ``None`` for a
gradient that never came (an ``optional`` argument) and returns None for an
output it cannot reach.

Every public function defined in one of these modules is a rule: it is
registered in :data:`eager.rules.COMPOSITE`, where generated code looks it up
by name, and is an attribute of this package (``eager.composite.log_grad``).
The exception sits below a module's "Paddle API functions composed of the ops
above" line: Paddle functions that existing ops compute exactly (``eager.diff``,
``eager.hstack``, ...), decorated with ``_paddle_api.composed`` and exported by
eager.api, which are not rules.
The generator reads the same modules' source (eager/api_gen/checks.py) to check
the YAML's ``composite`` calls against the rules' parameters.
"""
from ..rules import COMPOSITE
# The generated ops first, as every rule module imports them: loading them loads
# eager.tensor_api, which reads some of these modules, and it must not find one
# half-loaded (``import eager.composite`` as a program's first import).
from ..generated import forward_api as _forward_api  # noqa: F401
from . import spine
from . import math_unary
from . import math_binary
from . import reduce_scan
from . import search_sort
from . import rearrange
from . import gather_scatter
from . import creation
from . import linalg
from . import conv
from . import activation
from . import loss
from . import pooling
from . import norm
from . import vision
from . import embedding
from . import fft
from . import rnn
from . import attention
from . import fused

MODULES = (
    spine,
    math_unary,
    math_binary,
    reduce_scan,
    search_sort,
    rearrange,
    gather_scatter,
    creation,
    linalg,
    conv,
    activation,
    loss,
    pooling,
    norm,
    vision,
    embedding,
    fft,
    rnn,
    attention,
    fused,
)


def _rules_of(module) -> dict:
    return {name: value for name, value in vars(module).items()
            if callable(value) and not name.startswith("_") and not getattr(value, "paddle_api", False)
            and getattr(value, "__module__", None) == module.__name__}


for _module in MODULES:
    _rules = _rules_of(_module)
    clash = set(_rules) & set(vars(COMPOSITE))
    if clash:
        raise ImportError(f"eager.composite.{_module.__name__.rsplit('.', 1)[-1]} redefines the rules "
                          f"{sorted(clash)}")
    COMPOSITE.register(_rules)
    globals().update(_rules)
del _module, _rules
