"""fleet's HybridParallelOptimizer on real MPI ranks.

Data-parallel average with a branch only some ranks use: on 2 ranks
(dp_degree 2), rank 1's batch goes through a branch rank 0's skips; the step
must finish (before the fix the ranks ran different collectives and hung) and
every rank's gradients must be the one-process averages: the skipped branch's
gradient is rank 1's halved (rank 0 counts as zeros), a parameter no rank used
keeps ``None``.
"""
from __future__ import annotations

import json

import numpy as np

import eager
from mpi_run import run_ranks

X = np.random.default_rng(21).normal(size=(2, 3))     # row r for rank r

UNUSED_SCRIPT = '''
import json
import numpy as np
import eager
import eager.distributed as dist
from eager.distributed import fleet

X = np.array({x})
eager.set_default_dtype("float64")
strategy = fleet.DistributedStrategy()
strategy.hybrid_configs = {{"dp_degree": 2, "mp_degree": 1, "pp_degree": 1}}
fleet.init(is_collective=True, strategy=strategy)
rank = dist.get_rank()
eager.seed(3)
trunk, branch, never = eager.nn.Linear(3, 3), eager.nn.Linear(3, 1), eager.nn.Linear(3, 1)
params = trunk.parameters() + branch.parameters() + never.parameters()
opt = fleet.HybridParallelOptimizer(eager.optimizer.SGD(0.5, parameters=params),
                                    fleet.get_hybrid_communicate_group())
hidden = eager.tanh(trunk(eager.to_tensor(X[rank:rank + 1])))
loss = hidden.sum() if rank == 0 else hidden.sum() + (branch(hidden) ** 2).sum()   # rank 0 skips the branch
loss.backward()
opt.step()
out = {{"grads": [None if p.grad is None else p.grad.numpy().tolist() for p in params],
        "params": [p.numpy().tolist() for p in params]}}
with open(f"rank{{rank}}.json", "w") as handle:
    json.dump(out, handle)
'''


def _one_process_grads():
    """Each rank's local gradients in one process (None where unused), and the initial parameters."""
    eager.set_default_dtype("float64")
    try:
        eager.seed(3)
        trunk, branch, never = eager.nn.Linear(3, 3), eager.nn.Linear(3, 1), eager.nn.Linear(3, 1)
        params = trunk.parameters() + branch.parameters() + never.parameters()
        initial = [p.numpy().copy() for p in params]
        local = []
        for rank in range(2):
            hidden = eager.tanh(trunk(eager.to_tensor(X[rank:rank + 1])))
            loss = hidden.sum() if rank == 0 else hidden.sum() + (branch(hidden) ** 2).sum()
            loss.backward()
            local.append([None if p.grad is None else p.grad.numpy().copy() for p in params])
            for p in params:
                p.clear_gradient(False)
        return initial, local
    finally:
        eager.set_default_dtype("float32")


def test_data_parallel_average_agrees_when_one_rank_skips_a_branch(tmp_path):
    source = UNUSED_SCRIPT.format(x=X.tolist())
    run_ranks(2, source, tmp_path, timeout=90)
    outs = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    initial, local = _one_process_grads()
    assert local[0][2] is None and local[1][2] is not None      # the branch: rank 1 only
    for index in range(len(initial)):
        present = [g for g in (local[0][index], local[1][index]) if g is not None]
        for out in outs:
            if not present:                                      # 'never': no rank used it
                assert out["grads"][index] is None
                np.testing.assert_array_equal(out["params"][index], initial[index])
                continue
            want = sum(present) / 2.0                            # a missing gradient counts as zeros
            np.testing.assert_allclose(out["grads"][index], want, rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(out["params"][index], initial[index] - 0.5 * want, rtol=1e-12,
                                       atol=1e-14)


SCALER_SCRIPT = '''
import json
import numpy as np
import eager
import eager.distributed as dist
from eager.distributed import fleet
from eager.distributed.fleet import meta_parallel as mp

X = np.array({x})
eager.set_default_dtype("float64")
strategy = fleet.DistributedStrategy()
strategy.hybrid_configs = {{"dp_degree": 1, "mp_degree": 2, "pp_degree": 1}}
fleet.init(is_collective=True, strategy=strategy)
rank = dist.get_rank()


def build():
    eager.seed(5)
    net = eager.nn.Sequential(mp.ColumnParallelLinear(3, 4, gather_output=False),
                              mp.RowParallelLinear(4, 2, input_is_parallel=True))
    model = fleet.distributed_model(net)
    # a clip that bites: its norm is all-reduced over the mp group, so a rank stepping alone would hang
    opt = fleet.distributed_optimizer(eager.optimizer.SGD(0.5, parameters=model.parameters(),
                                                          grad_clip=eager.nn.ClipGradByGlobalNorm(0.05)))
    return net, model, opt


def loss_of(model):
    return (model(eager.to_tensor(X)) ** 2).sum()


def poison(net, on_rank):
    if rank == on_rank:
        grad = net[0].weight.grad.numpy().copy()
        grad[0, 0] = np.inf
        net[0].weight.grad = eager.to_tensor(grad)


def params(net):
    return [p.numpy().tolist() for p in net.parameters()]


net, model, opt = build()
ref_net, ref_model, ref_opt = build()
scaler = fleet.distributed_scaler(eager.amp.GradScaler(init_loss_scaling=1024.0))
out = {{"same": scaler.__class__.__name__, "initial": params(net)}}
# 1. an Inf on rank 1 only, through step/update: every rank skips, the scale halves
scaler.scale(loss_of(model)).backward()
poison(net, 1)
scaler.step(opt)
scaler.update()
opt.clear_grad()
out["after_skip1"], out["scale1"] = params(net), scaler._scale
# 2. a good step through minimize equals the plain (unscaled) step
scaled = scaler.scale(loss_of(model))
scaled.backward()
scaler.minimize(opt, scaled)
opt.clear_grad()
loss_of(ref_model).backward()
ref_opt.step()
ref_opt.clear_grad()
out["after_good"], out["ref_good"], out["scale2"] = params(net), params(ref_net), scaler._scale
# 3. an Inf on rank 0 only, through unscale_ then step
scaler.scale(loss_of(model)).backward()
poison(net, 0)
scaler.unscale_(opt)
out["found3"] = scaler._found_inf
scaler.step(opt)
scaler.update()
opt.clear_grad()
out["after_skip3"], out["scale3"] = params(net), scaler._scale
errors = []
try:
    fleet.distributed_scaler(opt)
except TypeError as error:
    errors.append(str(error))
out["errors"] = errors
with open(f"rank{{rank}}.json", "w") as handle:
    json.dump(out, handle)
'''


def test_grad_scaler_with_the_hybrid_optimizer_skips_on_every_rank(tmp_path):
    run_ranks(2, SCALER_SCRIPT.format(x=X.tolist()), tmp_path, timeout=90)
    outs = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    for out in outs:
        assert out["same"] == "GradScaler"
        # Inf on one rank only: no rank stepped, the scale halved on both
        for got, want in zip(out["after_skip1"], out["initial"]):
            np.testing.assert_array_equal(got, want)
        assert out["scale1"] == 512.0
        # the good step equals the unscaled one (scales are powers of two: exact); it moved the weights
        for got, want, before in zip(out["after_good"], out["ref_good"], out["initial"]):
            np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
        assert any(not np.array_equal(g, b) for g, b in zip(out["after_good"], out["initial"]))
        assert out["scale2"] == 512.0            # incr_every_n_steps (2000) not reached
        assert out["found3"] is True             # rank 1's own gradients were finite: the answer is agreed
        for got, want in zip(out["after_skip3"], out["after_good"]):
            np.testing.assert_array_equal(got, want)
        assert out["scale3"] == 256.0
        assert out["errors"] == ["fleet.distributed_scaler: argument 'scaler' expected an eager.amp.GradScaler, "
                                 "got HybridParallelOptimizer"]
