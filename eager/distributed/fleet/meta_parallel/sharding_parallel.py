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

from ....nn.layer import Layer
from .tensor_parallel import _sync


class ShardingParallel(Layer):
    """``layers`` for sharded data-parallel training over ``hcg``'s groups
    (the wrapped network is ``_layers``; ``state_dict()`` is its own).

    >>> model = fleet.distributed_model(net)          # sharding_degree > 1
    >>> isinstance(model, fleet.meta_parallel.sharding_parallel.ShardingParallel)
    True
    """

    def __init__(self, layers, hcg, strategy=None):
        if not isinstance(layers, Layer):
            raise TypeError(f"ShardingParallel: argument 'layers' expected an eager.nn.Layer, got "
                            f"{type(layers).__name__}")
        super().__init__(layers.full_name() + "_meta_parallel_base")
        self._layers = layers
        self._hcg = hcg
        self._strategy = strategy
        if hcg.get_sharding_parallel_world_size() > 1:
            group = hcg.get_sharding_parallel_group()
            _sync(layers, group, group.ranks[0], False)
        if hcg.get_data_parallel_world_size() > 1:
            _sync(layers, hcg.get_data_parallel_group(), hcg.get_data_parallel_group_src_rank(), False)

    def forward(self, *inputs, **kwargs):
        """The wrapped network's forward."""
        return self._layers(*inputs, **kwargs)

    def state_dict(self, destination=None, include_sublayers: bool = True, structured_name_prefix: str = ""):
        """The wrapped network's state dict (its own keys, no ``_layers.`` prefix)."""
        return self._layers.state_dict(destination=destination, include_sublayers=include_sublayers,
                                       structured_name_prefix=structured_name_prefix)

    def set_state_dict(self, state_dict, use_structured_name: bool = True):
        """Loads into the wrapped network."""
        return self._layers.set_state_dict(state_dict, use_structured_name=use_structured_name)


__all__ = ["ShardingParallel"]
