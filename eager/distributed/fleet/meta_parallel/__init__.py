"""``fleet.meta_parallel``: tensor (model) parallelism (Paddle's
``paddle.distributed.fleet.meta_parallel``): the parallel layers, and
:class:`TensorParallel`, the wrapper ``fleet.distributed_model`` puts around a
network built from them."""
from ..layers.mpu.mp_layers import ColumnParallelLinear, ParallelCrossEntropy, RowParallelLinear, VocabParallelEmbedding
from .tensor_parallel import TensorParallel

__all__ = ["ColumnParallelLinear", "RowParallelLinear", "VocabParallelEmbedding", "ParallelCrossEntropy",
           "TensorParallel"]
