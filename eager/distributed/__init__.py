"""eager.distributed: data-parallel training over MPI (mpi4py), with Paddle's API.

Each module is one idea and lists its public names in ``__all__``:
``env`` (the world: ranks, init), ``group`` (process groups), ``collective``
(collectives on tensors), ``parallel`` (DataParallel), ``nccl`` (GPU tensors'
collectives through CuPy's NCCL, used by the other two). ``launch`` is run as
``python -m eager.distributed.launch``.
"""
from .env import *  # noqa: F401,F403
from .env import __all__ as _env_all
from .group import *  # noqa: F401,F403
from .group import __all__ as _group_all
from .collective import *  # noqa: F401,F403
from .collective import __all__ as _collective_all
from .parallel import *  # noqa: F401,F403
from .parallel import __all__ as _parallel_all

__all__ = [*_env_all, *_group_all, *_collective_all, *_parallel_all]
