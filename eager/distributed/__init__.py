"""eager.distributed: data-parallel training over MPI (mpi4py), with Paddle's API.

Each module is one idea and lists its public names in ``__all__``:
``env`` (the world: ranks, init), ``group`` (process groups), ``collective``
(collectives on tensors), ``parallel`` (DataParallel), ``nccl`` (GPU tensors'
collectives through CuPy's NCCL, used by the other two), ``spawning``
(``spawn``: ranks started from Python), ``gloo`` (Paddle's CPU barrier among
processes), ``stream`` (the collectives with
Paddle's stream arguments), ``communication`` (Paddle's module path for the
collectives and ``stream``, the same objects). ``fleet`` (Paddle's fleet API,
collective mode), ``launch`` (run as ``python -m eager.distributed.launch``, or
called) and ``sharding`` (group-sharded data parallelism, ZeRO) are loaded on
first use: ``fleet`` and ``sharding`` build on eager.nn, which itself uses this
package, and
``launch`` must not be imported before ``python -m`` runs it. ``split``
(Paddle's ``paddle.distributed.split``, which refuses dynamic-graph mode) and
``ParallelMode`` come from ``fleet`` and load with it.
"""
import importlib

from .env import *  # noqa: F401,F403
from .env import __all__ as _env_all
from .group import *  # noqa: F401,F403
from .group import __all__ as _group_all
from .collective import *  # noqa: F401,F403
from .collective import __all__ as _collective_all
from .parallel import *  # noqa: F401,F403
from .parallel import __all__ as _parallel_all
from .spawning import *  # noqa: F401,F403
from .spawning import __all__ as _spawning_all
from .gloo import *  # noqa: F401,F403
from .gloo import __all__ as _gloo_all
from . import stream  # noqa: F401
from . import communication  # noqa: F401  (Paddle's paddle.distributed.communication path)

_LAZY = ("fleet", "launch", "sharding")
# name: (module, attribute) of the names that live in fleet
_LAZY_NAMES = {"split": (".fleet.layers.mpu.mp_ops", "split"),
               "ParallelMode": (".fleet.base.topology", "ParallelMode")}

__all__ = [*_env_all, *_group_all, *_collective_all, *_parallel_all, *_spawning_all, *_gloo_all, "stream", *_LAZY,
           *_LAZY_NAMES]


def __getattr__(name):
    if name in _LAZY:
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY_NAMES:
        module, attribute = _LAZY_NAMES[name]
        return getattr(importlib.import_module(module, __name__), attribute)
    raise AttributeError(f"module 'eager.distributed' has no attribute {name!r}")
