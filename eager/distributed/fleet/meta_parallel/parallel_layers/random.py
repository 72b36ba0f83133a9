"""``fleet.meta_parallel.parallel_layers.random``: the random-state tracker of
:mod:`eager.distributed.fleet.layers.mpu.random`, under Paddle's older path."""
from ...layers.mpu.random import (MODEL_PARALLEL_RNG, RNGStatesTracker, dropout, get_rng_state_tracker,
                                  model_parallel_random_seed)

__all__ = ["MODEL_PARALLEL_RNG", "RNGStatesTracker", "dropout", "get_rng_state_tracker",
           "model_parallel_random_seed"]
