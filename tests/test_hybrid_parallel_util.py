"""fleet.utils.hybrid_parallel_util.fused_allreduce_gradients, as Paddle's recompute
guide uses it: under DataParallel, recomputed blocks run their backward inside
no_sync(), and the gradients are averaged over the ranks afterwards by this call.

On two MPI ranks (tests/mpi_run.py: skipped, with the reason, without MPI) every
rank's gradients must become the mean of the ranks' own gradients, gathered
before the call; in a world of one they stay as they are. Bad arguments are
refused by type and message, with the gradients untouched.
"""
from __future__ import annotations

import numpy as np
import pytest

import eager
from eager.distributed.fleet.utils import hybrid_parallel_util
from eager.distributed.fleet.utils.hybrid_parallel_util import (fused_allreduce_gradients,
                                                                 fused_allreduce_gradients_with_group)
from mpi_run import run_ranks

RANK_SCRIPT = r'''
import numpy as np
import eager as paddle
import eager.distributed as dist
from eager.distributed.fleet.utils import recompute
from eager.distributed.fleet.utils.hybrid_parallel_util import fused_allreduce_gradients
from eager.distributed.env import world_comm

dist.init_parallel_env()
rank = dist.get_rank()
paddle.seed(10)
block = paddle.nn.Sequential(paddle.nn.Linear(6, 6), paddle.nn.Dropout(0.5), paddle.nn.ReLU())
head = paddle.nn.Linear(6, 1)
model = paddle.DataParallel(paddle.nn.Sequential(block, head))
paddle.seed(100 + rank)                      # each rank draws its own data and dropout masks
x = paddle.to_tensor(np.random.RandomState(rank).randn(4, 6).astype("float32"), stop_gradient=False)
with model.no_sync():
    h = recompute(model._layers[0], x)      # the guide's recompute block: re-run in backward
    loss = model._layers[1](h).mean()
    loss.backward()
params = list(model.parameters())
own = np.concatenate([p._grad_ivar().numpy().ravel() for p in params])
fused_allreduce_gradients(params, None)
after = np.concatenate([p.grad.numpy().ravel() for p in params])
gathered = world_comm().gather((own, after), root=0)
if rank == 0:
    owns, afters = zip(*gathered)
    assert not np.allclose(owns[0], owns[1])
    for a in afters:
        np.testing.assert_allclose(a, np.mean(owns, axis=0), rtol=1e-6, atol=1e-7)
    print("OK averaged", flush=True)
'''


def test_two_ranks_get_the_mean_of_their_recomputed_gradients(tmp_path):
    result = run_ranks(2, RANK_SCRIPT, tmp_path, timeout=120)
    assert "OK averaged\n" in result.stdout, (result.stdout, result.stderr)


def _net_with_grads():
    net = eager.nn.Sequential(eager.nn.Linear(3, 4), eager.nn.Tanh(), eager.nn.Linear(4, 2))
    net(eager.to_tensor(np.arange(6.0).reshape(2, 3).astype("float32"))).sum().backward()
    return net


def test_a_world_of_one_leaves_the_gradients_and_skips_parameters_without_one():
    net = _net_with_grads()
    frozen = eager.nn.Linear(2, 2)               # no backward reached it: no gradient
    before = [p.grad.numpy().copy() for p in net.parameters()]
    fused_allreduce_gradients(list(net.parameters()) + list(frozen.parameters()), None)
    for p, b in zip(net.parameters(), before):
        np.testing.assert_array_equal(p.grad.numpy(), b)
    assert all(p.grad is None for p in frozen.parameters())
    # An explicit scale multiplies (Paddle's fused_allreduce_gradients_with_group).
    fused_allreduce_gradients_with_group(net.parameters(), None, scale=0.5)
    for p, b in zip(net.parameters(), before):
        np.testing.assert_allclose(p.grad.numpy(), b * 0.5)
    assert hybrid_parallel_util.__all__[:2] == ["fused_allreduce_gradients", "fused_allreduce_gradients_with_group"]


def test_bad_arguments_are_refused_and_leave_the_gradients():
    net = _net_with_grads()
    before = [p.grad.numpy().copy() for p in net.parameters()]
    with pytest.raises(TypeError, match="fused_allreduce_gradients: argument 'parameter_list' expected an "
                                        "iterable of parameters, got int"):
        fused_allreduce_gradients(3, None)
    with pytest.raises(TypeError, match="fused_allreduce_gradients: argument 'parameter_list' expected "
                                        "Tensors \\(parameters\\), got str at index 4"):
        fused_allreduce_gradients(list(net.parameters()) + ["w"], None)
    with pytest.raises(TypeError, match="fused_allreduce_gradients_with_group: argument 'scale' expected a "
                                        "number or None, got str"):
        fused_allreduce_gradients_with_group(net.parameters(), None, scale="half")
    emb = eager.nn.Embedding(5, 2, sparse=True)
    emb(eager.to_tensor([1, 3])).sum().backward()
    with pytest.raises(ValueError, match="fused_allreduce_gradients: parameter '.*' has a sparse gradient"):
        fused_allreduce_gradients(list(net.parameters()) + list(emb.parameters()), None)
    for p, b in zip(net.parameters(), before):
        np.testing.assert_array_equal(p.grad.numpy(), b)
