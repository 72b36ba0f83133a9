"""eager.distributed.fleet in collective mode: a fleet data-parallel script on 2
MPI ranks (each on half of every batch, BatchNorm made SyncBatchNorm by the
strategy) ends with the parameters of one process trained on the full batch;
the worker queries; the strategy's checks; errors by type and message.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

import eager
from eager.distributed import fleet
from eager.distributed.fleet import DistributedStrategy, Fleet
from mpi_run import run_ranks

FLEET_SCRIPT = '''
import numpy as np
import eager
import eager.distributed as dist
from eager.distributed import fleet

eager.set_default_dtype("float64")
strategy = fleet.DistributedStrategy()
strategy.fuse_grad_size_in_MB = 1
strategy.sync_batch_norm = True
strategy.hybrid_configs = {"dp_degree": -1}
fleet.init(is_collective=True, strategy=strategy)
rank = fleet.worker_index()
assert (rank, fleet.worker_num(), fleet.is_first_worker()) == (dist.get_rank(), 2, rank == 0)
assert fleet.local_rank() == rank and fleet.node_num() == 1 and fleet.is_worker()
fleet.barrier_worker()


def network(seed):
    eager.seed(seed)
    return eager.nn.Sequential(eager.nn.Linear(4, 8), eager.nn.BatchNorm1D(8), eager.nn.ReLU(),
                               eager.nn.Linear(8, 1))


def train(model, optimizer, rows):
    for step in range(3):
        x = eager.to_tensor(X[step][rows])
        loss = ((model(x) - eager.to_tensor(Y[step][rows])) ** 2).mean()
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()


rng = np.random.default_rng(0)
X, Y = rng.normal(size=(3, 8, 4)), rng.normal(size=(3, 8, 1))

net = network(seed=10 + rank)                      # different on each rank before wrapping
model = fleet.distributed_model(net)
assert isinstance(model, eager.DataParallel)
assert type(model._layers[1]).__name__ == "SyncBatchNorm"
sgd = eager.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters=model.parameters())
optimizer = fleet.distributed_optimizer(sgd)
assert optimizer is sgd
train(model, optimizer, slice(4 * rank, 4 * rank + 4))   # this rank's half of each batch of 8

reference = network(seed=10)                        # rank 0's start, in one process, on the full batch
ref_opt = eager.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters=reference.parameters())
train(reference, ref_opt, slice(0, 8))
mine, theirs = model.state_dict(), reference.state_dict()
assert sorted(mine) == sorted(theirs)
for key in mine:
    np.testing.assert_allclose(mine[key].numpy(), theirs[key].numpy(), rtol=1e-10, atol=1e-12, err_msg=key)
with open(f"ok_{rank}", "w") as marker:
    marker.write("ok")
'''


def test_fleet_data_parallel_equals_one_process_on_the_full_batch(tmp_path):
    run_ranks(2, FLEET_SCRIPT, tmp_path, timeout=120)
    assert (tmp_path / "ok_0").exists() and (tmp_path / "ok_1").exists()


# -- the strategy ----------------------------------------------------------------
def test_strategy_defaults_settings_and_copies():
    strategy = DistributedStrategy()
    assert (strategy.find_unused_parameters, strategy.fuse_grad_size_in_MB, strategy.last_comm_group_size_MB,
            strategy.sync_batch_norm, strategy.amp, strategy.recompute) == (False, 32, 1, False, False, False)
    configs = strategy.hybrid_configs  # Paddle 2.6.2 reads back its sub-configs too
    assert {key: configs[key] for key in ("dp_degree", "mp_degree", "pp_degree", "sharding_degree", "sep_degree")} \
        == {"dp_degree": -1, "mp_degree": 1, "pp_degree": 1, "sharding_degree": 1, "sep_degree": 1}
    assert set(configs) >= {"mp_configs", "pp_configs", "sharding_configs"}
    strategy.find_unused_parameters = True
    strategy.fuse_grad_size_in_MB = 8
    strategy.hybrid_configs = {"dp_degree": 2}
    strategy.amp = False            # the default of an unsupported feature is accepted
    strategy.nccl_comm_num = 2      # accepted, no effect over MPI
    twin = copy.deepcopy(strategy)
    strategy.fuse_grad_size_in_MB = 4
    assert twin.fuse_grad_size_in_MB == 8 and twin.find_unused_parameters is True
    assert twin.hybrid_configs["dp_degree"] == 2
    assert "find_unused_parameters=True" in repr(twin)


def test_strategy_refuses_what_it_cannot_do():
    strategy = DistributedStrategy()
    cases = [
        (ValueError, "amp (automatic mixed precision", "amp", True),
        (ValueError, "recompute (activation recomputation) is not supported", "recompute", True),
        (ValueError, "sharding (sharded optimizer states) is not supported", "sharding_configs", {"stage": 1}),
        (ValueError, "pipeline (static-graph pipeline parallelism; set hybrid_configs['pp_degree']", "pipeline",
         True),
        (AttributeError, "has no setting 'find_unused_parameter'", "find_unused_parameter", True),
        (TypeError, "'find_unused_parameters' expected a bool", "find_unused_parameters", 1),
        (ValueError, "'fuse_grad_size_in_MB' expected a positive number of MB", "fuse_grad_size_in_MB", 0),
        (TypeError, "'hybrid_configs' expected a dict", "hybrid_configs", [("dp_degree", 2)]),
        (ValueError, "so sep_degree must be 1", "hybrid_configs", {"sep_degree": 2}),
        (ValueError, "'sharding_degree'] expected a positive int", "hybrid_configs", {"sharding_degree": 0}),
        (ValueError, "hybrid_configs['order'] expected each of", "hybrid_configs", {"order": ["dp"]}),
        (ValueError, "hybrid_configs key 'ep_configs' is not supported", "hybrid_configs", {"ep_configs": {}}),
        (ValueError, "'dp_degree'] expected -1", "hybrid_configs", {"dp_degree": 0}),
        (TypeError, "'amp' expected a bool", "amp", "yes"),
    ]
    for kind, text, name, value in cases:
        with pytest.raises(kind, match=text.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
            setattr(strategy, name, value)
    assert strategy.hybrid_configs["sharding_degree"] == 1 and strategy.amp is False
    assert repr(strategy) == "DistributedStrategy()"   # nothing refused was kept
    with pytest.raises(AttributeError, match="has no setting 'tensor_parallel_degree'"):
        strategy.tensor_parallel_degree  # noqa: B018


# -- fleet in a world of one ---------------------------------------------------------
def test_before_init_every_query_asks_for_init():
    fresh = Fleet()
    for name in ("worker_index", "worker_num", "is_first_worker", "local_rank", "node_num", "barrier_worker",
                 "is_worker"):
        with pytest.raises(RuntimeError, match=f"fleet.{name}: call fleet.init\\(is_collective=True\\) first"):
            getattr(fresh, name)()
    with pytest.raises(RuntimeError, match="fleet.distributed_model: call fleet.init"):
        fresh.distributed_model(eager.nn.Linear(2, 2))


def test_init_errors():
    fresh = Fleet()
    cases = [
        (ValueError, "parameter-server mode \\(is_collective=False\\) is not supported", {}),
        (ValueError, "'is_collective' expected a bool", {"is_collective": 1}),
        (ValueError, "'role_maker' is not supported", {"role_maker": object(), "is_collective": True}),
        (TypeError, "'strategy' expected a fleet.DistributedStrategy", {"is_collective": True, "strategy": {}}),
        (ValueError, "'log_level' expected one of DEBUG", {"is_collective": True, "log_level": "LOUD"}),
    ]
    for kind, text, kwargs in cases:
        with pytest.raises(kind, match=text):
            fresh.init(**kwargs)
    strategy = DistributedStrategy()
    strategy.hybrid_configs = {"dp_degree": 4}
    with pytest.raises(ValueError, match="dp_degree 4 \\* mp_degree 1 = 4 ranks, but the job has 1"):
        fresh.init(is_collective=True, strategy=strategy)
    with pytest.raises(RuntimeError, match="call fleet.init"):   # a failed init leaves fleet uninitialized
        fresh.worker_num()


def test_world_of_one():
    strategy = DistributedStrategy()
    strategy.find_unused_parameters = True
    assert fleet.init(is_collective=True, strategy=strategy, log_level="WARNING") is fleet.fleet
    strategy.find_unused_parameters = False          # init kept a copy
    assert fleet.fleet._strategy.find_unused_parameters is True
    assert (fleet.worker_index(), fleet.worker_num(), fleet.is_first_worker(), fleet.local_rank(),
            fleet.node_num(), fleet.is_worker()) == (0, 1, True, 0, 1, True)
    fleet.barrier_worker()
    net = eager.nn.Linear(3, 2)
    assert fleet.distributed_model(net) is net       # a world of one needs no wrapper, as in Paddle
    sgd = eager.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    replacement = DistributedStrategy()
    assert fleet.distributed_optimizer(sgd, strategy=replacement) is sgd
    assert fleet.fleet._strategy.find_unused_parameters is False
    with pytest.raises(TypeError, match="argument 'model' expected an eager.nn.Layer, got function"):
        fleet.distributed_model(lambda x: x)
    with pytest.raises(TypeError, match="argument 'optimizer' expected an eager.optimizer Optimizer"):
        fleet.distributed_optimizer(net)
    with pytest.raises(TypeError, match="argument 'strategy' expected a fleet.DistributedStrategy"):
        fleet.distributed_optimizer(sgd, strategy={"amp": False})
    x = eager.to_tensor(np.ones((2, 3), "float32"))
    fleet.distributed_model(net)(x).sum().backward()
    sgd.step()
