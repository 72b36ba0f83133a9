"""``fleet.layers.mpu``: tensor (model) parallel layers and the differentiable
collectives they are made of (Paddle's ``paddle.distributed.fleet.layers.mpu``),
and the named random streams of ``random`` (RNGStatesTracker)."""
from . import mp_ops, random  # noqa: F401
from .mp_layers import ColumnParallelLinear, ParallelCrossEntropy, RowParallelLinear, VocabParallelEmbedding
from .random import RNGStatesTracker, dropout, get_rng_state_tracker, model_parallel_random_seed

__all__ = ["ColumnParallelLinear", "RowParallelLinear", "VocabParallelEmbedding", "ParallelCrossEntropy", "mp_ops",
           "random", "RNGStatesTracker", "dropout", "get_rng_state_tracker", "model_parallel_random_seed"]
