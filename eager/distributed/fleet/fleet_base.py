"""``fleet.Fleet``: Paddle's fleet API in collective mode, over eager's DataParallel
and the tensor-parallel layers of ``fleet.meta_parallel``.

A Paddle 2.x data-parallel script written for fleet reads::

    fleet.init(is_collective=True, strategy=strategy)
    model = fleet.distributed_model(model)
    optimizer = fleet.distributed_optimizer(optimizer)

Here ``init`` joins the MPI world (:func:`eager.distributed.init_parallel_env`),
``distributed_model`` wraps the network in :class:`eager.DataParallel` with the
strategy's bucket sizes and ``find_unused_parameters`` (as Paddle does for pure
data parallelism), and ``distributed_optimizer`` returns the optimizer itself:
with DataParallel averaging the gradients during backward there is nothing left
for an optimizer wrapper to do (Paddle's HybridParallelOptimizer also only
steps the inner optimizer in this mode). Parameter-server mode, role makers and
sharding modes are refused with an error.

With ``strategy.hybrid_configs = {"dp_degree": D, "mp_degree": M}`` (D * M ranks)
``init`` also lays the ranks out as Paddle does (groups of M consecutive ranks
share each parallel layer's shards; see :mod:`.base.topology`) and builds the
:class:`HybridCommunicateGroup` that ``get_hybrid_communicate_group`` returns and
the layers of :mod:`.meta_parallel` use; with M > 1 ``distributed_model`` gives a
:class:`TensorParallel` and ``distributed_optimizer`` a
:class:`HybridParallelOptimizer` (it averages the gradients over the D
data-parallel ranks and clips by the global norm of the whole, unsharded model).
With ``sharding_degree`` S > 1 (with data parallelism only), ``distributed_model``
gives a :class:`ShardingParallel` and ``distributed_optimizer`` a
HybridParallelOptimizer around a :class:`DygraphShardingOptimizer`: stage-1
sharding (ZeRO-1) of the optimizer state over each group of S ranks, the
gradients first averaged over the D data-parallel ranks.

With ``pp_degree`` P > 1 (``dp_degree`` * P * ``mp_degree`` ranks) the model
is a ``fleet.meta_parallel.PipelineLayer`` and ``distributed_model`` gives a
:class:`PipelineParallel`, whose ``train_batch`` runs the micro-batches of
``strategy.pipeline_configs`` through the stages.
"""
from __future__ import annotations

import copy
import logging
import socket

from ...amp.grad_scaler import GradScaler
from ...nn.layer import Layer
from ...nn.sync_batch_norm import SyncBatchNorm
from ...optimizer.optimizer import Optimizer
from ..collective import all_gather_object, barrier
from ..env import get_rank, get_world_size, init_parallel_env
from ..parallel import DataParallel
from .base.topology import CommunicateTopology, HybridCommunicateGroup, ParallelMode
from .dygraph_sharding_optimizer import DygraphShardingOptimizer
from .hybrid_parallel_optimizer import HybridParallelOptimizer
from .meta_parallel.parallel_layers.pp_layers import PipelineLayer
from .meta_parallel.pipeline_parallel import PipelineParallel
from .meta_parallel.sharding_parallel import ShardingParallel
from .meta_parallel.tensor_parallel import TensorParallel
from .strategy import DistributedStrategy

_LOGGER = logging.getLogger("eager.distributed.fleet")


class Fleet:
    """Paddle's ``Fleet`` in collective mode; ``eager.distributed.fleet`` exposes
    one instance's methods as functions (``fleet.init``, ``fleet.worker_index``, ...).

    >>> from eager.distributed import fleet
    >>> fleet.init(is_collective=True)
    >>> fleet.worker_index(), fleet.worker_num()     # (0, 1) under plain python
    (0, 1)
    """

    def __init__(self):
        self._strategy = None
        self._local_rank = 0
        self._node_num = 1
        self._hcg = None
        self._topology = None

    def _require_init(self, fn: str) -> None:
        if self._strategy is None:
            raise RuntimeError(f"fleet.{fn}: call fleet.init(is_collective=True) first")

    def init(self, role_maker=None, is_collective=False, strategy=None, log_level="INFO"):
        """Joins the job's world for collective (data-, tensor- and pipeline-parallel)
        training, keeps ``strategy`` (a :class:`DistributedStrategy`; None: the
        defaults) and lays the ranks out by its ``hybrid_configs`` (``dp_degree``
        * ``mp_degree`` * ``pp_degree`` must be the world size; see
        :meth:`get_hybrid_communicate_group`). Every rank calls it. Only ``is_collective=True`` is supported, with no role maker
        (the ranks come from MPI). ``log_level`` sets the level of the
        ``eager.distributed.fleet`` logger. Returns this Fleet.

        >>> fleet.init(is_collective=True, strategy=fleet.DistributedStrategy())
        """
        if role_maker is not None:
            raise ValueError(f"fleet.init: argument 'role_maker' is not supported (got "
                             f"{type(role_maker).__name__}): eager's fleet takes the ranks from MPI; pass None")
        if not isinstance(is_collective, bool):
            raise ValueError(f"fleet.init: argument 'is_collective' expected a bool, got "
                             f"{type(is_collective).__name__}")
        if not is_collective:
            raise ValueError("fleet.init: parameter-server mode (is_collective=False) is not supported; eager's "
                             "fleet trains collective data parallel: call fleet.init(is_collective=True)")
        if strategy is None:
            strategy = DistributedStrategy()
        if not isinstance(strategy, DistributedStrategy):
            raise TypeError(f"fleet.init: argument 'strategy' expected a fleet.DistributedStrategy or None, got "
                            f"{type(strategy).__name__}")
        if isinstance(log_level, bool) or not isinstance(log_level, (int, str)):
            raise TypeError(f"fleet.init: argument 'log_level' expected a level name such as 'INFO' or an int, "
                            f"got {log_level!r}")
        level = log_level.upper() if isinstance(log_level, str) else log_level
        if isinstance(level, str) and not isinstance(logging.getLevelName(level), int):
            raise ValueError(f"fleet.init: argument 'log_level' expected one of DEBUG, INFO, WARNING, ERROR, "
                             f"CRITICAL, got {log_level!r}")
        world = get_world_size()
        configs = strategy.hybrid_configs
        mp_degree = max(configs["mp_degree"], 1)
        pp_degree = max(configs["pp_degree"], 1)
        sharding_degree = configs["sharding_degree"]
        if sharding_degree > 1 and (mp_degree > 1 or pp_degree > 1):
            others = " and ".join(f"{k} {v}" for k, v in (("mp_degree", mp_degree), ("pp_degree", pp_degree)) if v > 1)
            raise ValueError(f"fleet.init: strategy.hybrid_configs has sharding_degree {sharding_degree} and "
                             f"{others}; sharding combines with data parallelism only here")
        dp_degree = configs["dp_degree"]
        if pp_degree > 1 and strategy.sync_batch_norm:
            raise ValueError("fleet.init: strategy.sync_batch_norm is not supported with pp_degree > 1 (the "
                             "pipeline does not convert BatchNorm layers); leave it False")
        if dp_degree == -1:
            product = mp_degree * pp_degree * sharding_degree
            if world % product:
                named = [f"{k} {v}" for k, v in (("pp_degree", pp_degree), ("sharding_degree", sharding_degree))
                         if v > 1]
                which = (f" mp_degree {mp_degree} * {' * '.join(named)} is {product}" if named
                         else f"['mp_degree'] is {mp_degree}")
                raise ValueError(f"fleet.init: strategy.hybrid_configs{which}, which does not divide the job's "
                                 f"{world} ranks (dp_degree -1 takes the ranks left over)")
            dp_degree = world // product
        total = dp_degree * mp_degree * pp_degree * sharding_degree
        if total != world:
            extra = "".join(f" * {k} {v}" for k, v in (("pp_degree", pp_degree), ("sharding_degree", sharding_degree))
                            if v > 1)
            raise ValueError(f"fleet.init: strategy.hybrid_configs gives dp_degree {dp_degree} * mp_degree "
                             f"{mp_degree}{extra} = {total} ranks, but the job has {world}; the degrees must "
                             f"multiply to the world size (dp_degree -1 fills it in)")
        if mp_degree > 1 and strategy.sync_batch_norm:
            raise ValueError("fleet.init: strategy.sync_batch_norm is not supported with mp_degree > 1 (its "
                             "statistics would be summed over ranks that share the same batch); leave it False")
        _LOGGER.setLevel(level)
        init_parallel_env()
        axes = {"dp": ("data", dp_degree), "pp": ("pipe", pp_degree), "sharding": ("sharding", sharding_degree),
                "sep": ("sep", 1), "mp": ("model", mp_degree)}
        order = strategy.hybrid_parallel_order          # outermost first, as Paddle's
        if "sep" not in order:
            order.append("sep")                         # degree 1: where it goes does not move a rank
        topology = CommunicateTopology([axes[a][0] for a in order], [axes[a][1] for a in order])
        self._hcg = HybridCommunicateGroup(topology)
        self._topology = topology
        hosts = []
        all_gather_object(hosts, socket.gethostname())
        rank = get_rank()
        self._local_rank = hosts[:rank].count(hosts[rank])
        self._node_num = len(set(hosts))
        self._strategy = copy.deepcopy(strategy)
        _LOGGER.info("fleet: rank %d of %d initialized (collective, over MPI)", rank, world)
        return self

    def get_hybrid_communicate_group(self) -> HybridCommunicateGroup:
        """The :class:`HybridCommunicateGroup` ``init`` built: this rank's
        data- and model-parallel ranks and groups.

        >>> hcg = fleet.get_hybrid_communicate_group()
        >>> hcg.get_model_parallel_world_size()
        1
        """
        self._require_init("get_hybrid_communicate_group")
        return self._hcg

    def get_hybrid_parallel_topology(self) -> CommunicateTopology:
        """The :class:`CommunicateTopology` (the grid of ranks) ``init`` laid out."""
        self._require_init("get_hybrid_parallel_topology")
        return self._topology

    def is_first_worker(self) -> bool:
        """Whether this process is rank 0.

        >>> fleet.is_first_worker()
        True
        """
        self._require_init("is_first_worker")
        return get_rank() == 0

    def worker_index(self) -> int:
        """This process's rank, 0 to ``worker_num() - 1``."""
        self._require_init("worker_index")
        return get_rank()

    def worker_num(self) -> int:
        """The number of ranks (trainers) in the job."""
        self._require_init("worker_num")
        return get_world_size()

    def is_worker(self) -> bool:
        """True: in collective mode every rank is a worker."""
        self._require_init("is_worker")
        return True

    def is_server(self) -> bool:
        """False: a collective job has no parameter servers."""
        self._require_init("is_server")
        return False

    def server_num(self) -> int:
        """0: a collective job has no parameter servers."""
        self._require_init("server_num")
        return 0

    def local_rank(self) -> int:
        """This process's rank among the ranks on its machine (0 on the first)."""
        self._require_init("local_rank")
        return self._local_rank

    def node_num(self) -> int:
        """The number of machines the ranks run on."""
        self._require_init("node_num")
        return self._node_num

    def barrier_worker(self) -> None:
        """Waits until every rank has reached this call.

        >>> fleet.barrier_worker()
        """
        self._require_init("barrier_worker")
        barrier()

    def distributed_model(self, model):
        """``model`` ready for parallel training. With ``pp_degree`` > 1 ``model``
        must be a ``fleet.meta_parallel.PipelineLayer``, and the result is a
        :class:`PipelineParallel` (train it with ``train_batch``). With ``mp_degree`` > 1, a
        :class:`TensorParallel` around it (the replicated parameters made equal
        across the model-parallel group, every parameter across the data-parallel
        group; each forward's tensor inputs broadcast from the first rank of the
        model-parallel group). With ``sharding_degree`` > 1, a
        :class:`ShardingParallel` (every parameter and buffer made equal over the
        sharding and data-parallel groups). Otherwise, for data parallelism: wrapped in
        :class:`eager.DataParallel` with the strategy's ``fuse_grad_size_in_MB``,
        ``last_comm_group_size_MB`` and ``find_unused_parameters`` (with
        ``sync_batch_norm``, its BatchNorm layers become SyncBatchNorm first).
        In a world of one, ``model`` itself, as in Paddle.

        >>> model = fleet.distributed_model(eager.nn.Linear(4, 2))
        """
        self._require_init("distributed_model")
        if not isinstance(model, Layer):
            raise TypeError(f"fleet.distributed_model: argument 'model' expected an eager.nn.Layer, got "
                            f"{type(model).__name__}")
        strategy = self._strategy
        if self._hcg.get_parallel_mode() == ParallelMode.PIPELINE_PARALLEL:
            if not isinstance(model, PipelineLayer):
                raise TypeError(f"fleet.distributed_model: with pp_degree > 1 argument 'model' expected a "
                                f"fleet.meta_parallel.PipelineLayer, got {type(model).__name__}")
            return PipelineParallel(model, self._hcg, strategy=strategy)
        if self._hcg.get_parallel_mode() == ParallelMode.TENSOR_PARALLEL:
            return TensorParallel(model, self._hcg, strategy=strategy)
        if self._hcg.get_parallel_mode() == ParallelMode.SHARDING_PARALLEL:
            return ShardingParallel(model, self._hcg, strategy=strategy)
        if get_world_size() <= 1:
            return model
        if strategy.sync_batch_norm:
            model = SyncBatchNorm.convert_sync_batchnorm(model)
        return DataParallel(model, comm_buffer_size=strategy.fuse_grad_size_in_MB,
                            last_comm_buffer_size=strategy.last_comm_group_size_MB,
                            find_unused_parameters=strategy.find_unused_parameters)

    def distributed_optimizer(self, optimizer, strategy=None):
        """The optimizer for parallel training. With ``mp_degree`` or ``pp_degree`` > 1, a
        :class:`HybridParallelOptimizer` around it; with ``sharding_degree`` > 1,
        a HybridParallelOptimizer around a :class:`DygraphShardingOptimizer`
        (stage-1 sharding over the sharding group) around it. For data parallelism,
        ``optimizer`` itself (the gradients it reads are already averaged by the
        model from :meth:`distributed_model`). A ``strategy`` given here replaces
        ``fleet.init``'s for the models wrapped afterwards, as in Paddle.

        >>> optimizer = fleet.distributed_optimizer(eager.optimizer.SGD(0.1, parameters=model.parameters()))
        """
        self._require_init("distributed_optimizer")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"fleet.distributed_optimizer: argument 'optimizer' expected an eager.optimizer "
                            f"Optimizer, got {type(optimizer).__name__}")
        if strategy is not None:
            if not isinstance(strategy, DistributedStrategy):
                raise TypeError(f"fleet.distributed_optimizer: argument 'strategy' expected a "
                                f"fleet.DistributedStrategy or None, got {type(strategy).__name__}")
            self._strategy = copy.deepcopy(strategy)
        if self._hcg.get_parallel_mode() in (ParallelMode.TENSOR_PARALLEL, ParallelMode.PIPELINE_PARALLEL):
            return HybridParallelOptimizer(optimizer, self._hcg, self._strategy)
        if self._hcg.get_parallel_mode() == ParallelMode.SHARDING_PARALLEL:
            return HybridParallelOptimizer(DygraphShardingOptimizer(optimizer, self._hcg), self._hcg, self._strategy)
        return optimizer

    def distributed_scaler(self, scaler):
        """``scaler`` (an ``eager.amp.GradScaler``) for hybrid-parallel training, Paddle's
        ``fleet.distributed_scaler``: with the :class:`HybridParallelOptimizer` from
        :meth:`distributed_optimizer`, its ``unscale_`` (and so ``step`` and ``minimize``)
        agrees over every rank whether a gradient is Inf/NaN, so all ranks skip the same
        steps and change the scale alike. The agreement is the optimizer's, so the same
        scaler object comes back (the scaler works the same without this call).

        >>> scaler = fleet.distributed_scaler(eager.amp.GradScaler(init_loss_scaling=1024))
        >>> scaler.scale(loss).backward(); scaler.step(optimizer); scaler.update()
        """
        self._require_init("distributed_scaler")
        if not isinstance(scaler, GradScaler):
            raise TypeError(f"fleet.distributed_scaler: argument 'scaler' expected an eager.amp.GradScaler, got "
                            f"{type(scaler).__name__}")
        return scaler


__all__ = ["Fleet"]
