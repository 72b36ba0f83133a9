"""The NCCL path of eager.distributed (GPU tensors), on 2 MPI ranks with
tests/fake_cupy.py's GPU and tests/fake_nccl.py's NCCL (over mpi4py): results
equal the host path's and NumPy's, the NCCL path (not the host one) ran
(fake_nccl counts its calls), DataParallel's device buckets give one process's
gradients to 1e-10 in float64 without a device-to-host copy in backward, and
what NCCL cannot do falls back to the host path."""
from __future__ import annotations

import numpy as np
import pytest

import eager
import eager.distributed as dist
from conftest import REAL_GPU
from eager.distributed import ReduceOp, nccl
from mpi_run import run_ranks

pytestmark = pytest.mark.skipif(REAL_GPU, reason="runs on tests/fake_cupy.py's GPU and tests/fake_nccl.py")

RANK_SCRIPT = r'''
import os, sys
import fake_cupy
sys.modules["cupy"], sys.modules["cupyx"] = fake_cupy, fake_cupy.cupyx
fake_cupy.install_backends(sys.modules)
import numpy as np
import eager
import eager.distributed as dist
import fake_nccl
from eager.distributed import ReduceOp

dist.init_parallel_env()
rank, n = dist.get_rank(), dist.get_world_size()
calls = fake_nccl.calls
REDUCE = {ReduceOp.SUM: np.sum, ReduceOp.MAX: np.max, ReduceOp.MIN: np.min, ReduceOp.PROD: np.prod,
          ReduceOp.AVG: np.mean}


def data(r, dtype, shape=(2, 3)):
    base = np.arange(int(np.prod(shape))).reshape(shape) % 4 + r + 1
    if dtype == "bool":
        return base % 2 == 0
    value = base.astype(dtype)
    return (value + 1j * (r - base % 3)).astype(dtype) if np.dtype(dtype).kind == "c" else value


def expected(op, dtype, shape=(2, 3)):
    stack = np.stack([data(r, dtype, shape) for r in range(n)])
    if dtype == "bool":
        return stack.any(0) if op in (ReduceOp.SUM, ReduceOp.MAX) else stack.all(0)
    return REDUCE[op](stack, axis=0).astype(dtype)


def gpu(value):
    return eager.to_tensor(value, place="gpu")


def same(tensor, want, what):
    assert tensor.place.is_gpu_place(), what
    got = tensor.numpy()
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, got.shape)
    np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=str(what))


# -- all_reduce: every op on every dtype NCCL serves; the rest on the host path ------------
for dtype in ("float32", "float64", "float16", "int32", "int64", "uint8", "bool", "complex64", "int16"):
    for op in ReduceOp:
        if op is ReduceOp.AVG and dtype in ("int32", "int64", "uint8", "bool", "int16"):
            continue
        if op in (ReduceOp.MAX, ReduceOp.MIN) and dtype == "complex64":
            continue
        t = gpu(data(rank, dtype))
        version, before = t.impl.version, calls["allReduce"]
        task = dist.all_reduce(t, op, sync_op=(op is not ReduceOp.MAX))
        assert task.wait() and task.is_completed()
        same(t, expected(op, dtype), ("all_reduce", dtype, op))
        assert t.impl.version > version
        on_nccl = dtype != "int16" and not (dtype == "complex64" and op is ReduceOp.PROD)
        assert calls["allReduce"] - before == int(on_nccl), (dtype, op)

# -- broadcast, reduce, all_gather, reduce_scatter -------------------------------------------
for dtype in ("float32", "int64", "bool"):
    t = gpu(data(rank, dtype))
    dist.broadcast(t, src=1)
    same(t, data(1, dtype), ("broadcast", dtype))
assert calls["bcast"] == 3

for op in (ReduceOp.SUM, ReduceOp.AVG, ReduceOp.MAX):
    t = gpu(data(rank, "float64"))
    dist.reduce(t, dst=0, op=op)
    same(t, expected(op, "float64") if rank == 0 else data(rank, "float64"), ("reduce", op))
assert calls["reduce"] == 3

parts = []
dist.all_gather(parts, gpu(data(rank, "float32")))
assert len(parts) == n
for r, part in enumerate(parts):
    same(part, data(r, "float32"), ("all_gather new", r))
into = [gpu(np.zeros((2, 3), "int32")) for _ in range(n)]
dist.all_gather(into, gpu(data(rank, "int32")))
for r, part in enumerate(into):
    same(part, data(r, "int32"), ("all_gather into", r))
whole = gpu(np.zeros((2 * n, 3), "float32"))
dist.all_gather(whole, gpu(data(rank, "float32")))
same(whole, np.concatenate([data(r, "float32") for r in range(n)]), "all_gather tensor")
assert calls["allGather"] == 3

for op in (ReduceOp.SUM, ReduceOp.AVG):
    mine = [gpu(data(rank + 10 * i, "float32")) for i in range(n)]
    dist.reduce_scatter(mine[0], mine, op=op)
    want = REDUCE[op](np.stack([data(r + 10 * rank, "float32") for r in range(n)]), axis=0).astype("float32")
    same(mine[0], want, ("reduce_scatter", op))
assert calls["reduceScatter"] == 2

# -- a view that is not contiguous: reduced in a copy, written back through the view ----------
before = dict(calls)
base = gpu(data(rank, "float32"))
column = base[:, 1]
dist.all_reduce(column)
same(column, expected(ReduceOp.SUM, "float32")[:, 1], "view")
same(base[:, 1], expected(ReduceOp.SUM, "float32")[:, 1], "view's base")
same(base[:, 0], data(rank, "float32")[:, 0], "view's base elsewhere")
dist.broadcast(column, src=0)
same(base[:, 1], expected(ReduceOp.SUM, "float32")[:, 1], "view after broadcast")
assert (calls["allReduce"], calls["bcast"]) == (before["allReduce"] + 1, before["bcast"] + 1)

# -- one communicator per group; destroying the group destroys it ---------------------------
assert calls["init"] == 1
group = dist.new_group([0, 1])
t = gpu(data(rank, "float32"))
dist.all_reduce(t, group=group)
same(t, expected(ReduceOp.SUM, "float32"), "group all_reduce")
assert calls["init"] == 2
dist.destroy_process_group(group)
assert calls["destroy"] == 1

# -- ranks sharing a GPU (NCCL refuses that): the host path, with a warning ----------------
import warnings
from eager.distributed import nccl
real_name = nccl._gpu_name
nccl._gpu_name = lambda device_id: ("one host", "one bus")
shared = dist.new_group([0, 1])
before = dict(calls)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    t = gpu(data(rank, "float32"))
    dist.all_reduce(t, group=shared)
    dist.all_reduce(t, group=shared)
assert [str(w.message) for w in caught if "share a GPU" in str(w.message)], caught
same(t, 2 * expected(ReduceOp.SUM, "float32"), "shared GPU")
assert dict(calls) == before
nccl._gpu_name = real_name

# -- switched off: the host path, same result ---------------------------------------------
os.environ["EAGER_DISTRIBUTED_NCCL"] = "0"
before = dict(calls)
t = gpu(data(rank, "float32"))
dist.all_reduce(t)
same(t, expected(ReduceOp.SUM, "float32"), "host path")
assert dict(calls) == before
del os.environ["EAGER_DISTRIBUTED_NCCL"]

# -- DataParallel on the GPU: device buckets, one process's gradients -------------------------
eager.set_default_dtype("float64")
eager.seed(3)
net = eager.nn.Sequential(eager.nn.Linear(5, 7), eager.nn.Tanh(), eager.nn.Linear(7, 3))
alone = eager.nn.Sequential(eager.nn.Linear(5, 7), eager.nn.Tanh(), eager.nn.Linear(7, 3))
alone.set_state_dict(net.state_dict())
net.to("gpu")
model = dist.DataParallel(net, comm_buffer_size=1e-4, last_comm_buffer_size=1e-4)
assert len(model._reducer.buckets) > 1 and all(b.device == 0 for b in model._reducer.buckets)
opt = eager.optimizer.SGD(0.1, parameters=model.parameters())
opt_alone = eager.optimizer.SGD(0.1, parameters=alone.parameters())
rng = np.random.default_rng(0)
for step in range(2):
    x, y = rng.standard_normal((8, 5)), rng.standard_normal((8, 3))
    share = slice(4 * rank, 4 * rank + 4)
    reduces, down = calls["allReduce"], fake_cupy.transfers[0]
    loss = ((model(gpu(x[share])) - gpu(y[share])) ** 2).mean()
    loss.backward()
    assert fake_cupy.transfers[0] == down, "backward copied a gradient to the host"
    assert calls["allReduce"] - reduces == len(model._reducer.buckets)
    ((alone(eager.to_tensor(x)) - eager.to_tensor(y)) ** 2).mean().backward()
    for (name, p), q in zip(net.named_parameters(), alone.parameters()):
        assert p.grad.place.is_gpu_place(), name
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)
    opt.step(), opt.clear_grad(), opt_alone.step(), opt_alone.clear_grad()
for p, q in zip(net.parameters(), alone.parameters()):
    np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-10, atol=1e-12)

open(f"ok_{rank}", "w").close()
'''


def test_gpu_collectives_and_data_parallel_run_on_nccl(tmp_path):
    run_ranks(2, RANK_SCRIPT, tmp_path, timeout=180)
    assert sorted(p.name for p in tmp_path.glob("ok_*")) == ["ok_0", "ok_1"]


def test_what_nccl_serves_and_what_goes_the_host_way():
    module = nccl.nccl_module()
    assert module is not None
    assert nccl.reduction(ReduceOp.SUM, np.float32) == (module.NCCL_FLOAT32, 1, module.NCCL_SUM)
    assert nccl.reduction(ReduceOp.MAX, np.int64) == (module.NCCL_INT64, 1, module.NCCL_MAX)
    assert nccl.reduction(ReduceOp.PROD, np.uint8) == (module.NCCL_UINT8, 1, module.NCCL_PROD)
    assert nccl.reduction(ReduceOp.AVG, np.float64) == (module.NCCL_FLOAT64, 1, module.NCCL_SUM)
    # bool as uint8: or is max, and is min; complex as pairs of floats, sums only
    assert nccl.reduction(ReduceOp.SUM, np.bool_) == (module.NCCL_UINT8, 1, module.NCCL_MAX)
    assert nccl.reduction(ReduceOp.PROD, np.bool_) == (module.NCCL_UINT8, 1, module.NCCL_MIN)
    assert nccl.reduction(ReduceOp.AVG, np.complex128) == (module.NCCL_FLOAT64, 2, module.NCCL_SUM)
    assert nccl.reduction(ReduceOp.PROD, np.complex64) is None
    assert nccl.reduction(ReduceOp.SUM, np.int16) is None


def test_nccl_is_used_for_one_gpu_only(monkeypatch):
    # These answers come before any communicator is made (group None is never asked).
    cpu, gpu = eager.ones([2]), eager.ones([2], place="gpu")
    assert not nccl.usable(None, cpu) and not nccl.usable(None, gpu, cpu)
    monkeypatch.setenv("EAGER_DISTRIBUTED_NCCL", "0")
    assert not nccl.usable(None, gpu)


def test_a_world_of_one_needs_no_nccl_communicator():
    import fake_nccl

    before = dict(fake_nccl.calls)
    t = eager.to_tensor([1.0, 2.0], place="gpu")
    dist.all_reduce(t, op=ReduceOp.AVG)
    parts = []
    dist.all_gather(parts, t)
    np.testing.assert_array_equal(parts[0].numpy(), [1.0, 2.0])
    assert parts[0].place.is_gpu_place()
    assert dict(fake_nccl.calls) == before


def test_fake_nccl_refuses_an_overrun_and_a_foreign_address():
    import fake_cupy
    import fake_nccl

    a = fake_cupy.zeros(4, fake_cupy.float32)
    pointer = a.data.ptr
    assert fake_nccl._host(pointer, 4, fake_nccl.NCCL_FLOAT32, "t").shape == (4,)
    with pytest.raises(ValueError, match="overrun"):
        fake_nccl._host(pointer, 5, fake_nccl.NCCL_FLOAT32, "t")
    with pytest.raises(ValueError, match="not that of a live device array"):
        fake_nccl._host(pointer + 4, 1, fake_nccl.NCCL_FLOAT32, "t")


DP_SCRIPT = r'''
import os, sys
import fake_cupy
sys.modules["cupy"], sys.modules["cupyx"] = fake_cupy, fake_cupy.cupyx
fake_cupy.install_backends(sys.modules)
import numpy as np
import eager
import eager.distributed as dist
import fake_nccl
from eager import nn
from eager.distributed.env import world_comm
from phi.common.tensor_kind import TensorKind

dist.init_parallel_env()
rank, world = dist.get_rank(), dist.get_world_size()
comm, calls = world_comm(), fake_nccl.calls

# A failed check on one rank ends every rank at once: eager.distributed's own
# abort hook, installed under the launcher (it reports the rank, then MPI_Abort).
eager.set_default_dtype("float64")
K, B = 3, 7   # shares of 3 and 4 rows: the ranks' sparse gradients have different row counts
rng = np.random.RandomState(0)
XS, YS, IDS = rng.randn(K, B, 5), rng.randn(K, B, 3), rng.randint(0, 20, size=(K, B, 4))
lo, hi = rank * B // world, (rank + 1) * B // world
EXTRA_ROWS = (np.arange(B) < B // world).astype("float64")[:, None]   # rank 0's rows of the batch


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(5, 7)
        self.emb = nn.Embedding(20, 3, sparse=True)
        self.fc2 = nn.Linear(7, 3)
        self.extra = nn.Linear(3, 3)   # used on rank 0's rows only, in step 1
        self.never = nn.Linear(3, 3)   # never used: its gradient stays None everywhere
        self.register_buffer("scale", eager.rand([3]) + 0.5)

    def forward(self, x, ids):
        return (self.fc2(nn.functional.tanh(self.fc1(x))) + self.emb(ids).sum(axis=1)) * self.scale


def step_loss(model, net, k, rows, place, alone=False):
    """Step k's loss on the batch's ``rows`` (a mean over the full batch). Step 1 uses ``extra`` on rank 0's rows
    only; step 2 also uses the embedding's weight densely on rank 0 (its gradient is
    then dense there and rows elsewhere): one process on the full batch adds that
    term divided by the world size, as the average of the ranks' gradients does."""
    data = lambda a: eager.to_tensor(a, place=place)
    out = model(data(XS[k, rows]), data(IDS[k, rows]))
    if k == 1 and (alone or rank == 0):
        out = out + net.extra(out) * data(EXTRA_ROWS[rows] if alone else np.ones((hi - lo, 1)))
    # The full batch's mean: each rank's sum scaled so that the ranks' average is it.
    loss = ((out - data(YS[k, rows])) ** 2).sum() * ((1 if alone else world) / (B * 3))
    if k == 2 and (alone or rank == 0):
        loss = loss + 0.01 * net.emb.weight.sum() / (world if alone else 1)
    return loss


def values(layer):
    return {k: v.numpy().copy() for k, v in layer.state_dict().items()}


def copies():
    return fake_cupy.transfers[0] + fake_cupy.uploads[0]


def check(name, wrap_on="gpu", train_on="gpu", wrap_dtype="float64"):
    """DataParallel made on ``wrap_on`` in ``wrap_dtype``, the network then moved to
    ``train_on`` in float64."""
    eager.seed(100 + rank)              # different weights and buffer on every rank
    net = Net().to(wrap_on, dtype=wrap_dtype)
    nccl_on = os.environ.get("EAGER_DISTRIBUTED_NCCL") != "0"
    before, bcasts = copies(), calls["bcast"]
    model = eager.DataParallel(net, comm_buffer_size=2e-4, last_comm_buffer_size=1e-4,
                               find_unused_parameters=True)
    if wrap_on == "gpu":
        # Rank 0's parameters and buffer reach every rank by NCCL, in place on the device
        # (the host path, EAGER_DISTRIBUTED_NCCL=0, copies them: the counters see copies).
        assert (copies() == before) == nccl_on, ("broadcast copies", copies() - before)
        assert calls["bcast"] - bcasts == (len(net.parameters()) + len(net.buffers()) if nccl_on else 0)
    model.to(train_on, dtype="float64")
    start = values(net)
    opt = eager.optimizer.SGD(0.1, parameters=model.parameters())
    reducer = model._reducer
    on_device = nccl_on and train_on == "gpu"
    for k in range(K):
        reduces, gathers = calls["allReduce"], calls["allGather"]
        loss = step_loss(model, net, k, slice(lo, hi), train_on)
        before = copies()
        loss.backward()
        grad = net.emb.weight.grad
        if k != 2 and (on_device or train_on == "cpu"):   # every rank's rows, no padding: one per id
            assert grad.impl.kind is not TensorKind.DENSE and len(grad.impl.rows) == IDS[k].size, (name, k)
        else:   # dense on rank 0 in step 2; the host path averages a GPU embedding densely
            assert grad.impl.kind is TensorKind.DENSE, (name, k)
        opt.step()
        opt.clear_grad(set_to_zero=False)
        # Dense, sparse, unused and mixed steps alike: nothing crosses to the host
        # (on the CPU there is no device; GPU tensors on the host path are copied).
        assert (copies() == before) == (on_device or train_on == "cpu"), (name, k, copies() - before)
        assert all(p.place.is_gpu_place() == (train_on == "gpu") for p in net.parameters())
        if on_device:
            assert all(b.device == 0 for b in reducer.buckets), (name, "host buckets")
            assert all(b.buffer.dtype == np.float64 for b in reducer.buckets), (name, "float32 buckets")
            dense_emb = int(k == 2)   # the embedding averaged densely (one allreduce) when dense somewhere
            assert calls["allReduce"] - reduces == len(reducer.buckets) + dense_emb, (name, k)
            assert calls["allGather"] - gathers == 2 * (1 - dense_emb), (name, k)   # rows, values
        else:
            assert all(b.device is None for b in reducer.buckets), (name, "device buckets")
            assert (calls["allReduce"], calls["allGather"]) == (reduces, gathers)
        assert net.never.weight.grad is None
    gathered = comm.gather(values(net), root=0)
    if rank == 0:
        alone = Net()
        alone.set_state_dict(start)
        opt = eager.optimizer.SGD(0.1, parameters=alone.parameters())
        for k in range(K):
            step_loss(alone, alone, k, slice(None), "cpu", alone=True).backward()
            opt.step()
            opt.clear_grad(set_to_zero=False)
        for key, want in values(alone).items():
            for r, got in enumerate(gathered):
                np.testing.assert_allclose(got[key], want, rtol=1e-10, atol=1e-12, err_msg=f"{name}: {key} rank {r}")
        assert not np.array_equal(start["extra.weight"], values(alone)["extra.weight"])   # it did train
        print(f"OK {name}", flush=True)


# Networks that differ across ranks (here: on the GPU on rank 0, on the CPU elsewhere) are
# refused on every rank before anything is sent, naming what differs.
mixed = Net().to("gpu" if rank == 0 else "cpu")
try:
    eager.DataParallel(mixed)
except ValueError as error:
    assert "every rank must wrap the same network" in str(error) and "on rank 0" in str(error) \
        if rank else "another rank's network differs" in str(error), error
else:
    raise AssertionError("networks on different places were accepted")
assert calls["bcast"] == 0
if rank == 0:
    print("OK mismatch", flush=True)

check("on the gpu")
check("moved to the gpu after wrapping", wrap_on="cpu")
check("moved to the cpu after wrapping", train_on="cpu")
check("cast to float64 after wrapping", wrap_dtype="float32")
os.environ["EAGER_DISTRIBUTED_NCCL"] = "0"
check("host path")
'''


def test_data_parallel_on_the_gpu_makes_no_host_copies(tmp_path):
    result = run_ranks(2, DP_SCRIPT, tmp_path, timeout=180)
    for name in ("mismatch", "on the gpu", "moved to the gpu after wrapping", "moved to the cpu after wrapping",
                 "cast to float64 after wrapping", "host path"):
        assert f"OK {name}\n" in result.stdout, (name, result.stdout, result.stderr)
