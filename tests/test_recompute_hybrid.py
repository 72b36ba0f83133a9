"""recompute_hybrid (fleet.recompute, fleet.utils, eager.incubate.distributed.fleet)
on 2 MPI ranks with mp_degree 2: a tensor-parallel block (ColumnParallelLinear,
a dropout drawn from the model-parallel tracker's stream, a dropout from the
global stream, RowParallelLinear, a keyword argument) recomputed with every
ctx (plain, partition, offload, both) gives the plain run's outputs, input
gradient and shard gradients (float64), though both random streams move
between forward and backward; partition keeps a half of the input per rank.
In one process: ctx's checks, and the world-of-one group on the CPU and GPU
axis (gradients against finite differences through gradcheck and by hand;
offload keeps the saved input on the host).
"""
from __future__ import annotations

import json
import sys

import numpy as np
import pytest

import eager
from eager.autograd import gradcheck
from eager.distributed import fleet
from eager.distributed.fleet.recompute import recompute_hybrid
from eager.distributed.fleet.utils import recompute_hybrid as utils_recompute_hybrid
from eager.incubate.distributed.fleet import recompute_hybrid as incubate_recompute_hybrid
from mpi_run import run_ranks

hybrid_module = sys.modules["eager.distributed.fleet.recompute.recompute_hybrid"]  # the package's name is the function

X = np.random.default_rng(8).normal(size=(4, 6))
W = np.random.default_rng(9).normal(size=(4, 6))

RANK_SCRIPT = '''
import json
import numpy as np
import eager
import eager.distributed as dist
from eager.distributed import fleet
from eager.distributed.fleet import meta_parallel as mp
from eager.distributed.fleet.layers.mpu.random import dropout as mp_dropout
from eager.distributed.fleet.recompute import recompute_hybrid
import sys
module = sys.modules["eager.distributed.fleet.recompute.recompute_hybrid"]   # the package's name is the function

X, W = np.array({x}), np.array({w})
eager.set_default_dtype("float64")
strategy = fleet.DistributedStrategy()
strategy.hybrid_configs = {{"dp_degree": 1, "mp_degree": 2, "pp_degree": 1}}
fleet.init(is_collective=True, strategy=strategy)
rank = dist.get_rank()
hcg = fleet.get_hybrid_communicate_group()
group = hcg.get_model_parallel_group()
mp.model_parallel_random_seed(123)
tracker = mp.get_rng_state_tracker()
eager.seed(7)
col = mp.ColumnParallelLinear(6, 8, has_bias=True, gather_output=False)
row = mp.RowParallelLinear(8, 6, input_is_parallel=True)


def block(x, gain=1.0):
    hidden = eager.tanh(col(x))
    with tracker.rng_state():
        hidden = mp_dropout(hidden, 0.4, rng_name="model_parallel_rng")      # differs per mp rank
    return eager.nn.functional.dropout(row(hidden), 0.3) * gain                # the same on both ranks


kept = []
original_keep = module._keep
def spy(tensor, *rest):
    saved = original_keep(tensor, *rest)
    kept.append(list(saved.shape))
    return saved
module._keep = spy

out = {{}}
snapshot = (eager.get_rng_state(), tracker.get_states_tracker())
for name, ctx in [("plain", None), ("default", {{"mp_group": group}}),
                  ("partition", {{"mp_group": group, "partition": True}}),
                  ("offload", {{"mp_group": group, "offload": True}}),
                  ("both", {{"mp_group": group, "partition": True, "offload": True}})]:
    eager.set_rng_state(snapshot[0])
    tracker.set_states_tracker(snapshot[1])
    for p in col.parameters() + row.parameters():
        p.clear_gradient(False)
    x = eager.to_tensor(X, stop_gradient=False)
    y = block(x, gain=1.5) if ctx is None else recompute_hybrid(ctx, block, x, gain=1.5)
    eager.rand([5])
    with tracker.rng_state():
        eager.rand([5])                                   # both streams move before backward
    (y * eager.to_tensor(W)).sum().backward()
    out[name] = {{"y": y.numpy().tolist(), "dx": x.grad.numpy().tolist(),
                 "grads": [p.grad.numpy().tolist() for p in col.parameters() + row.parameters()]}}
out["kept"] = kept
with open(f"rank{{rank}}.json", "w") as handle:
    json.dump(out, handle)
'''


def test_recompute_hybrid_equals_the_plain_run_on_two_mp_ranks(tmp_path):
    run_ranks(2, RANK_SCRIPT.format(x=X.tolist(), w=W.tolist()), tmp_path, timeout=120)
    outs = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    for out in outs:
        plain = out["plain"]
        assert np.count_nonzero(np.asarray(plain["y"]) == 0) > 0          # the dropouts bite
        for name in ("default", "partition", "offload", "both"):
            got = out[name]
            np.testing.assert_array_equal(got["y"], plain["y"], err_msg=name)
            np.testing.assert_allclose(got["dx"], plain["dx"], rtol=1e-12, atol=1e-14, err_msg=name)
            for g, want in zip(got["grads"], plain["grads"]):
                np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-14, err_msg=name)
        # default and offload keep the whole [4, 6] input; partition (and both) a flat half of it
        assert out["kept"] == [[4, 6], [12], [4, 6], [12]]
    # the column shards (and so the tracker's masks) differ between the ranks: a real mp run
    assert not np.array_equal(outs[0]["plain"]["grads"][0], outs[1]["plain"]["grads"][0])
    np.testing.assert_allclose(outs[0]["plain"]["dx"], outs[1]["plain"]["dx"], rtol=1e-12)


@pytest.fixture
def world_of_one_group():
    fleet.init(is_collective=True)
    return fleet.get_hybrid_communicate_group().get_model_parallel_group()


@pytest.mark.usefixtures("device")
def test_names_and_world_of_one_gradients(world_of_one_group):
    assert recompute_hybrid is utils_recompute_hybrid is incubate_recompute_hybrid
    assert fleet.recompute.recompute_hybrid is recompute_hybrid
    eager.set_default_dtype("float64")
    try:
        eager.seed(2)
        layer = eager.nn.Linear(6, 3)
        x = eager.to_tensor(X, stop_gradient=False)
        ctx = {"mp_group": world_of_one_group, "partition": True, "offload": True}
        assert gradcheck(lambda t: recompute_hybrid(ctx, lambda v: eager.tanh(layer(v)), t), (x,))
        y = recompute_hybrid(ctx, lambda v, s: (eager.tanh(layer(v)) * s, v.sum()), x, 2.0)
        (y[0].sum() + y[1]).backward()
        want = (1 - np.tanh(X @ layer.weight.numpy() + layer.bias.numpy()) ** 2) * 2.0 @ layer.weight.numpy().T + 1
        np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12)
        assert x.grad.place == x.place
        # offload keeps the saved input in host memory (from the GPU on the device axis)
        assert hybrid_module._keep(x, world_of_one_group, True, False).place == eager.CPUPlace()
        assert hybrid_module._keep(x, world_of_one_group, False, False).place == x.place
    finally:
        eager.set_default_dtype("float32")


@pytest.mark.parametrize("ctx, args, kwargs, error, message", [
    ([], (), {}, TypeError, "recompute_hybrid: argument 'ctx' expected a dict with 'mp_group'"),
    ({}, (), {}, ValueError, "recompute_hybrid: ctx['mp_group'] is required"),
    ({"mp_group": "g"}, (), {}, TypeError, "ctx['mp_group'] expected an eager.distributed Group, got str"),
    ({"mp_group": "GROUP", "offload": 1}, (), {}, TypeError, "ctx['offload'] expected a bool, got int"),
    ({"mp_group": "GROUP", "segments": 2}, (), {}, ValueError, "ctx has unknown key(s) ['segments']"),
    ({"mp_group": "GROUP"}, (), {"y": "TRAINABLE"}, TypeError, "keyword argument 'y' holds a Tensor with "
                                                               "stop_gradient=False"),
    # argument errors name recompute_hybrid, not the recompute they share their checks with
    ({"mp_group": "GROUP"}, ("MIXED_TUPLE",), {}, ValueError, "recompute_hybrid: argument 1 is a tuple holding "
                                                              "Tensors and other values (Tensor, int)"),
    ({"mp_group": "GROUP"}, ("TRAINABLE_LIST",), {}, TypeError, "recompute_hybrid: argument 1 is a list holding a "
                                                                "Tensor with stop_gradient=False"),
])
def test_ctx_checks(world_of_one_group, ctx, args, kwargs, error, message):
    if isinstance(ctx, dict) and ctx.get("mp_group") == "GROUP":
        ctx = dict(ctx, mp_group=world_of_one_group)
    kwargs = {k: eager.to_tensor([1.0], stop_gradient=False) if v == "TRAINABLE" else v for k, v in kwargs.items()}
    x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    built = {"MIXED_TUPLE": (x, 1), "TRAINABLE_LIST": [x]}
    args = tuple(built.get(a, a) if isinstance(a, str) else a for a in args)
    with pytest.raises(error, match=None) as info:
        recompute_hybrid(ctx, lambda v, *rest, **kw: v * 2, x, *args, **kwargs)
    assert message in str(info.value)


def test_partition_needs_a_divisible_input(world_of_one_group, monkeypatch):
    class Pair:  # a group of two as partition sees it (checked before anything runs)
        nranks, rank, ranks = 2, 0, [0, 1]
    monkeypatch.setattr(hybrid_module, "_check_ctx", lambda ctx: (Pair, False, True))
    with pytest.raises(ValueError, match=r"positive multiple of the model-parallel degree \(2\); Tensor input 0 "
                                         r"has shape \[3\] \(3 elements\)"):
        recompute_hybrid({}, lambda v: v * 2, eager.to_tensor([1.0, 2.0, 3.0], stop_gradient=False))
