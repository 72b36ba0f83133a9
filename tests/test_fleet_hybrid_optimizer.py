"""fleet's HybridParallelOptimizer on real MPI ranks.

Data-parallel average with a branch only some ranks use: on 2 ranks
(dp_degree 2), rank 1's batch goes through a branch rank 0's skips; the step
must finish (before the fix the ranks ran different collectives and hung) and
every rank's gradients must be the one-process averages: the skipped branch's
gradient is rank 1's halved (rank 0 counts as zeros), a parameter no rank used
keeps ``None``. A GradScaler stepping the hybrid optimizer (mp 2, a
global-norm clip over the mp group): an Inf on one rank only makes every rank
skip and halve the scale (through step, minimize and unscale_), a good step
equals the unscaled one. A pipeline stage without parameters (pp 2, first or
last stage empty) builds its optimizer from its empty list and trains with a
clip spanning the stages, against NumPy. In one process: optimizers over an
empty parameter list build and update nothing; LBFGS refuses one.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

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


EMPTY_STAGE_SCRIPT = '''
import json
import numpy as np
import eager
import eager.distributed as dist
from eager.distributed import fleet
from eager.distributed.fleet.meta_parallel import LayerDesc, PipelineLayer

X, Y = np.array({x}), np.array({y})
eager.set_default_dtype("float64")
strategy = fleet.DistributedStrategy()
strategy.hybrid_configs = {{"dp_degree": 1, "mp_degree": 1, "pp_degree": 2}}
strategy.pipeline_configs = {{"accumulate_steps": 2, "micro_batch_size": 2}}
fleet.init(is_collective=True, strategy=strategy)
rank = dist.get_rank()


def mse(out, label):
    return ((out - label) ** 2).mean()


out = {{}}
for name, descs in [("last_empty", [LayerDesc(eager.nn.Linear, 4, 3), LayerDesc(eager.nn.Tanh)]),
                    ("first_empty", [LayerDesc(eager.nn.Tanh), LayerDesc(eager.nn.Linear, 4, 3)])]:
    eager.seed(4)
    layer = PipelineLayer(descs, num_stages=2, loss_fn=mse)
    model = fleet.distributed_model(layer)
    # the parameterless stage builds its optimizer from its empty list, as any stage does; the clip's
    # norm is summed over the stages, so that stage must join the step's all-reduce
    opt = fleet.distributed_optimizer(eager.optimizer.SGD(0.3, parameters=model.parameters(),
                                                          grad_clip=eager.nn.ClipGradByGlobalNorm(0.05)))
    losses = [float(model.train_batch([eager.to_tensor(X[s]), eager.to_tensor(Y[s])], opt)) for s in range(2)]
    out[name] = {{"count": len(layer.parameters()), "losses": losses,
                 "params": [p.numpy().tolist() for p in layer.parameters()]}}
with open(f"rank{{rank}}.json", "w") as handle:
    json.dump(out, handle)
'''

PX = np.random.default_rng(31).normal(size=(2, 4, 4))
PY = np.random.default_rng(32).normal(size=(2, 4, 3))


def _initial(name):
    """The Linear's starting weight and bias: PipelineLayer builds layer i right after
    eager.seed(1234 + i) (Paddle's rule), the Linear being item 0 or item 1."""
    eager.set_default_dtype("float64")
    try:
        eager.seed(1234 if name == "last_empty" else 1235)
        linear = eager.nn.Linear(4, 3)
        return linear.weight.numpy(), linear.bias.numpy()
    finally:
        eager.set_default_dtype("float32")


def test_a_pipeline_stage_without_parameters_trains(tmp_path):
    run_ranks(2, EMPTY_STAGE_SCRIPT.format(x=PX.tolist(), y=PY.tolist()), tmp_path, timeout=120)
    outs = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    for name, holder in (("last_empty", 0), ("first_empty", 1)):
        assert [outs[r][name]["count"] for r in range(2)] == [2 if r == holder else 0 for r in range(2)]
        weight, bias = (np.asarray(a) for a in outs[holder][name]["params"])
        # the same two steps in NumPy: two micro-batches of 2 rows, each loss / 2, one clipped SGD step
        losses = outs[1][name]["losses"]
        assert outs[0][name]["losses"] == losses
        w, b = _initial(name)
        for step in range(2):
            gw, gb, total = np.zeros_like(w), np.zeros_like(b), 0.0
            for micro in range(2):
                x, y = PX[step][2 * micro:2 * micro + 2], PY[step][2 * micro:2 * micro + 2]
                if name == "last_empty":
                    z = x @ w + b
                    out = np.tanh(z)
                    d_out = 2 * (out - y) / out.size / 2
                    dz = d_out * (1 - out ** 2)
                    xin = x
                else:
                    xin = np.tanh(x)
                    out = xin @ w + b
                    dz = 2 * (out - y) / out.size / 2
                total += ((out - y) ** 2).mean() / 2
                gw += xin.T @ dz
                gb += dz.sum(0)
            np.testing.assert_allclose(losses[step], total, rtol=1e-12)
            norm = np.sqrt((gw ** 2).sum() + (gb ** 2).sum())
            scale = 0.05 / max(norm, 0.05)
            assert norm > 0.05                          # the clip bites
            w, b = w - 0.3 * gw * scale, b - 0.3 * gb * scale
        np.testing.assert_allclose(weight, w, rtol=1e-11, atol=1e-13)
        np.testing.assert_allclose(bias, b, rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("name", ["SGD", "Momentum", "Adam", "AdamW", "Lamb", "RMSProp", "Adagrad", "NAdam"])
def test_an_empty_parameter_list_builds_and_steps_nothing(name):
    cls = getattr(eager.optimizer, name)
    clip = eager.nn.ClipGradByGlobalNorm(1.0)
    decay = {"lamb_weight_decay": 0.01} if name == "Lamb" else {"weight_decay": 0.01}
    opt = cls(learning_rate=0.1, parameters=[], grad_clip=clip, **decay)
    grouped = cls(learning_rate=0.1, parameters=[{"params": []}])
    other = eager.to_tensor([1.0, 2.0], stop_gradient=False)       # not the optimizer's: untouched
    (other * 3).sum().backward()
    for o in (opt, grouped):
        o.step()
        assert o.minimize((other * 3).sum()) == ([], [])
        o.clear_grad()
        state = o.state_dict()
        assert [k for k in state if not k.startswith("@")] == [] and state["@step"] == 2   # no accumulators
    np.testing.assert_array_equal(other.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(other.grad.numpy(), [3.0, 3.0])


def test_lbfgs_refuses_an_empty_parameter_list():
    with pytest.raises(ValueError, match="LBFGS: argument 'parameters' is empty; LBFGS searches along"):
        eager.optimizer.LBFGS(parameters=[])
    with pytest.raises(ValueError, match="SGD: argument 'parameters' is required"):
        eager.optimizer.SGD(0.1, parameters=None)
