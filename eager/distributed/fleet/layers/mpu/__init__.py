"""``fleet.layers.mpu``: tensor (model) parallel layers and the differentiable
collectives they are made of (Paddle's ``paddle.distributed.fleet.layers.mpu``)."""
from . import mp_ops  # noqa: F401
from .mp_layers import ColumnParallelLinear, ParallelCrossEntropy, RowParallelLinear, VocabParallelEmbedding

__all__ = ["ColumnParallelLinear", "RowParallelLinear", "VocabParallelEmbedding", "ParallelCrossEntropy", "mp_ops"]
