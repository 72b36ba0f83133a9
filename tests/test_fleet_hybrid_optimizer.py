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
