"""``TensorParallel``: the wrapper ``fleet.distributed_model`` gives a network
built from tensor-parallel layers (Paddle's ``meta_parallel.TensorParallel``).

At wrapping, the parameters and buffers that are not shards (``is_distributed``
False) are broadcast from the first rank of the model-parallel group, so the
ranks that share a layer agree on everything they replicate; with data
parallelism too, every parameter and buffer is then broadcast from the first
rank of the data-parallel group. Each forward first broadcasts its Tensor
arguments from the first rank of the model-parallel group (in place, as
Paddle does): the ranks of a model-parallel group must see the same batch.
The gradients are averaged over the data-parallel group by
:class:`~eager.distributed.fleet.HybridParallelOptimizer` (``fleet.distributed_optimizer``).
"""
from __future__ import annotations

from ....autograd import no_grad
from ....tensor import Tensor
from ...collective import broadcast
from .meta_parallel_base import MetaParallelBase, sync_params_buffers


class TensorParallel(MetaParallelBase):
    """``layers`` for tensor-parallel training over ``hcg``'s groups: calling it
    calls ``layers`` (the wrapped network is ``_layers``).

    >>> model = fleet.distributed_model(net)          # mp_degree > 1
    >>> isinstance(model, fleet.meta_parallel.TensorParallel)
    True
    """

    def __init__(self, layers, hcg, strategy=None):
        super().__init__(layers, hcg, strategy)
        if hcg.get_model_parallel_world_size() > 1:
            sync_params_buffers(layers, hcg.get_model_parallel_group(), hcg.get_model_parallel_group_src_rank(),
                                True)
        if hcg.get_data_parallel_world_size() > 1:
            sync_params_buffers(layers, hcg.get_data_parallel_group(), hcg.get_data_parallel_group_src_rank(),
                                False)

    def forward(self, *inputs, **kwargs):
        """``layers(*inputs, **kwargs)``, the Tensor arguments first broadcast
        from the first rank of the model-parallel group."""
        if self._hcg.get_model_parallel_world_size() > 1:
            group, src = self._hcg.get_model_parallel_group(), self._hcg.get_model_parallel_group_src_rank()
            with no_grad():
                for value in (*inputs, *kwargs.values()):
                    if isinstance(value, Tensor):
                        broadcast(value, src=src, group=group)
        return self._layers(*inputs, **kwargs)


__all__ = ["TensorParallel"]
