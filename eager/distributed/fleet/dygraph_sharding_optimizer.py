"""``DygraphShardingOptimizer``: the sharded (stage 1, ZeRO-1) optimizer that
``fleet.distributed_optimizer`` builds when ``hybrid_configs['sharding_degree']``
is above 1 (Paddle's class of that name), inside a
:class:`~eager.distributed.fleet.HybridParallelOptimizer`.

The optimizer's parameters are sorted by size, largest first, and each goes to
the rank of the sharding group that owns the fewest elements so far (Paddle's
split for this optimizer). The wrapped optimizer keeps state for its own
parameters only. ``step`` (reached through HybridParallelOptimizer, which first
averages the gradients over the data-parallel group) averages every gradient
over the sharding group, updates the owned parameters and broadcasts each from
its owner: level ``'os'`` of :mod:`eager.distributed.sharding`, whose
:class:`~eager.distributed.sharding.group_sharded.GroupShardedOptimizer` it is.
"""
from __future__ import annotations

import numpy as np

from ...optimizer.optimizer import Optimizer
from ..sharding.group_sharded import GroupShardedOptimizer, _Shards


class DygraphShardingOptimizer(GroupShardedOptimizer):
    """``optimizer`` sharded over ``hcg``'s sharding group (stage 1): state for
    this rank's parameters only, gradients averaged over the group, owners
    update and broadcast. ``state_dict()`` is this rank's share.

    >>> strategy.hybrid_configs = {"dp_degree": 1, "sharding_degree": 2}
    >>> fleet.init(is_collective=True, strategy=strategy)
    >>> opt = fleet.distributed_optimizer(eager.optimizer.Adam(parameters=model.parameters()))
    >>> type(opt._inner_opt).__name__
    'DygraphShardingOptimizer'
    """

    def __init__(self, optimizer, hcg):
        if not isinstance(optimizer, Optimizer) or isinstance(optimizer, GroupShardedOptimizer):
            raise TypeError(f"DygraphShardingOptimizer: argument 'optimizer' expected an eager.optimizer "
                            f"Optimizer (not already sharded), got {type(optimizer).__name__}")
        params = sorted(optimizer._parameter_list, key=lambda p: -int(np.prod(p.shape, dtype=np.int64)))
        self._hcg = hcg
        super().__init__(optimizer, _Shards(params, hcg.get_sharding_parallel_group(), "os"))

    @property
    def _inner_opt(self):
        """The wrapped optimizer (Paddle's attribute name)."""
        return self._optim

    def __repr__(self):
        return f"DygraphShardingOptimizer({self._optim!r}, owned={len(self._shards.mine)}/{len(self._shards.params)})"


__all__ = ["DygraphShardingOptimizer"]
