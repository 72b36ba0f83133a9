"""eager.distributed.sharding: group-sharded data parallelism (ZeRO), Paddle's
``paddle.distributed.sharding``: :func:`group_sharded_parallel` and
:func:`save_group_sharded_model` (see :mod:`.group_sharded`)."""
from .group_sharded import *  # noqa: F401,F403
from .group_sharded import __all__ as _group_sharded_all

__all__ = [*_group_sharded_all]
