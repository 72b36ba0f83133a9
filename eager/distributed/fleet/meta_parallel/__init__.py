"""``fleet.meta_parallel``: tensor (model) parallelism (Paddle's
``paddle.distributed.fleet.meta_parallel``): the parallel layers, and
:class:`TensorParallel`, the wrapper ``fleet.distributed_model`` puts around a
network built from them; the random-state tracker (``get_rng_state_tracker``,
``model_parallel_random_seed``); pipeline parallelism: :class:`LayerDesc`,
:class:`SharedLayerDesc` and :class:`PipelineLayer` describe the staged
network, :class:`PipelineParallel` trains it (``train_batch``); the sharding
wrapper :class:`ShardingParallel`; and :class:`MetaParallelBase`, what the
wrappers share."""
from ..layers.mpu.mp_layers import ColumnParallelLinear, ParallelCrossEntropy, RowParallelLinear, VocabParallelEmbedding
from ..layers.mpu.random import RNGStatesTracker, get_rng_state_tracker, model_parallel_random_seed
from . import parallel_layers  # noqa: F401
from .parallel_layers.pp_layers import LayerDesc, PipelineLayer, SegmentLayers, SharedLayerDesc
from .meta_parallel_base import MetaParallelBase
from .pipeline_parallel import PipelineParallel
from .sharding_parallel import ShardingParallel
from .tensor_parallel import TensorParallel

__all__ = ["ColumnParallelLinear", "RowParallelLinear", "VocabParallelEmbedding", "ParallelCrossEntropy",
           "RNGStatesTracker", "TensorParallel", "get_rng_state_tracker", "model_parallel_random_seed",
           "parallel_layers", "LayerDesc", "SharedLayerDesc", "SegmentLayers", "PipelineLayer",
           "PipelineParallel", "ShardingParallel", "MetaParallelBase"]
