"""``eager.distributed.fleet``: Paddle's fleet API for collective data-parallel training.

``fleet.init(is_collective=True, strategy=...)`` joins the MPI world;
``fleet.distributed_model`` wraps a network in :class:`eager.DataParallel`;
``fleet.distributed_optimizer`` returns the optimizer to step;
``fleet.worker_index()``, ``worker_num()``, ``is_first_worker()``,
``local_rank()``, ``node_num()``, ``is_worker()``, ``is_server()``, ``server_num()`` and ``barrier_worker()``
describe and synchronize the ranks. The functions are the methods of one
:class:`Fleet`, ``fleet.fleet``, as in Paddle.

>>> from eager.distributed import fleet
>>> strategy = fleet.DistributedStrategy()
>>> strategy.find_unused_parameters = True
>>> fleet.init(is_collective=True, strategy=strategy)
>>> model = fleet.distributed_model(eager.nn.Linear(4, 2))
>>> optimizer = fleet.distributed_optimizer(eager.optimizer.Adam(parameters=model.parameters()))

Tensor (model) parallelism: set ``strategy.hybrid_configs = {"dp_degree": D,
"mp_degree": M}``, build the network from ``fleet.meta_parallel``'s layers
(ColumnParallelLinear, RowParallelLinear, VocabParallelEmbedding,
ParallelCrossEntropy), and ``fleet.get_hybrid_communicate_group()`` tells each
rank its model- and data-parallel ranks and groups;
``fleet.meta_parallel.get_rng_state_tracker()`` keeps the named random
streams (``model_parallel_random_seed``).

Pipeline parallelism: set ``hybrid_configs["pp_degree"]`` and
``strategy.pipeline_configs`` (``accumulate_steps``, ``micro_batch_size``),
describe the network as a ``fleet.meta_parallel.PipelineLayer`` of
``LayerDesc``/``SharedLayerDesc`` items (each rank builds only its stage), and
train the ``PipelineParallel`` that ``fleet.distributed_model`` returns with
``train_batch([inputs, labels], optimizer)``.

Activation recomputation: ``fleet.utils.recompute(block, x)`` (also
``fleet.recompute.recompute``, ``recompute_sequential``) keeps no activation of
``block`` in the forward and runs it again in backward; ``recompute_hybrid``
does so under tensor parallelism. Loss scaling: ``fleet.distributed_scaler``
(any ``eager.amp.GradScaler`` steps the hybrid optimizer, skipping on every
rank together).
"""
from . import base, layers, meta_parallel, recompute, utils  # noqa: F401
from .base.topology import CommunicateTopology, HybridCommunicateGroup, ParallelMode
from .fleet_base import Fleet
from .hybrid_parallel_optimizer import HybridParallelOptimizer
from .strategy import DistributedStrategy

fleet = Fleet()
init = fleet.init
is_first_worker = fleet.is_first_worker
worker_index = fleet.worker_index
worker_num = fleet.worker_num
is_worker = fleet.is_worker
is_server = fleet.is_server
server_num = fleet.server_num
local_rank = fleet.local_rank
node_num = fleet.node_num
barrier_worker = fleet.barrier_worker
distributed_model = fleet.distributed_model
distributed_optimizer = fleet.distributed_optimizer
distributed_scaler = fleet.distributed_scaler
get_hybrid_communicate_group = fleet.get_hybrid_communicate_group
get_hybrid_parallel_topology = fleet.get_hybrid_parallel_topology

__all__ = ["Fleet", "DistributedStrategy", "fleet", "init", "is_first_worker", "worker_index", "worker_num",
           "is_worker", "is_server", "server_num", "local_rank", "node_num", "barrier_worker", "distributed_model", "distributed_optimizer",
           "distributed_scaler", "get_hybrid_communicate_group", "get_hybrid_parallel_topology", "CommunicateTopology",
           "HybridCommunicateGroup", "HybridParallelOptimizer", "ParallelMode", "base", "layers", "meta_parallel",
           "recompute", "utils"]
