"""``fleet.meta_parallel.parallel_layers``: Paddle's older home of the tensor-parallel
layers and the random-state tracker, re-exported from ``fleet.layers.mpu``, and
the pipeline's layer descriptions (:mod:`.pp_layers`)."""
from ...layers.mpu.mp_layers import ColumnParallelLinear, ParallelCrossEntropy, RowParallelLinear, VocabParallelEmbedding
from . import pp_layers, random  # noqa: F401
from .pp_layers import LayerDesc, PipelineLayer, SegmentLayers, SharedLayerDesc
from .random import RNGStatesTracker, get_rng_state_tracker, model_parallel_random_seed

__all__ = ["ColumnParallelLinear", "ParallelCrossEntropy", "RNGStatesTracker", "RowParallelLinear",
           "VocabParallelEmbedding", "get_rng_state_tracker", "model_parallel_random_seed", "random", "pp_layers",
           "LayerDesc", "SharedLayerDesc", "SegmentLayers", "PipelineLayer"]
