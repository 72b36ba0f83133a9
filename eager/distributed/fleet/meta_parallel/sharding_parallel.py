"""``ShardingParallel``: the wrapper ``fleet.distributed_model`` gives a network
when ``hybrid_configs['sharding_degree']`` is above 1 (Paddle's
``meta_parallel.ShardingParallel``). At wrapping, every parameter and buffer is
broadcast from the first rank of the sharding group, then (with
``dp_degree`` > 1) from the first rank of the data-parallel group, so every
rank starts from the same network. Calling it calls the network; the sharded
optimizer (:class:`~eager.distributed.fleet.dygraph_sharding_optimizer.DygraphShardingOptimizer`)
does the rest at its step.
"""
from __future__ import annotations

from ...parallel import WrappedStateDict
from .meta_parallel_base import MetaParallelBase, sync_params_buffers


class ShardingParallel(WrappedStateDict, MetaParallelBase):
    """``layers`` for sharded data-parallel training over ``hcg``'s groups
    (the wrapped network is ``_layers``; ``state_dict()`` is its own).

    >>> model = fleet.distributed_model(net)          # sharding_degree > 1
    >>> isinstance(model, fleet.meta_parallel.sharding_parallel.ShardingParallel)
    True
    """

    def __init__(self, layers, hcg, strategy=None):
        super().__init__(layers, hcg, strategy)
        if hcg.get_sharding_parallel_world_size() > 1:
            group = hcg.get_sharding_parallel_group()
            sync_params_buffers(layers, group, group.ranks[0], False)
        if hcg.get_data_parallel_world_size() > 1:
            sync_params_buffers(layers, hcg.get_data_parallel_group(), hcg.get_data_parallel_group_src_rank(),
                                False)


__all__ = ["ShardingParallel"]
