"""eager.DataParallel, eager.nn.SyncBatchNorm, DistributedBatchSampler and Model.fit
on several MPI ranks (through tests/mpi_run.py: under a timeout, skipped with the
reason without MPI), and the world of one they fall back to.

The rank script checks against a reference computed in the same job: rank 0
trains a second copy of the network in one process on the full batches, in
float64, and every rank's parameters must match it. The ranks start from
different random weights, so the broadcast from rank 0 is needed too.
"""
from pathlib import Path

import numpy as np
import pytest

import eager
import eager.distributed as dist
from eager import nn
from eager.distributed.parallel import DataParallel, _assign_buckets
from mpi_run import run_ranks

# Every check of the multi-rank run; rank 0 prints "OK <check>" after each.
CHECKS = ["broadcast and state_dict keys", "sgd", "adam", "no_sync adam", "sync batch norm",
          "sparse embedding", "find_unused_parameters", "unused on some ranks", "unused parameter error", "grad() untouched",
          "Model.fit", "SyncBatchNorm NHWC", "failed backward"]

RANK_SCRIPT = r'''
import sys
import numpy as np
import eager
import eager.distributed as dist
from eager import nn
from eager.distributed.env import world_comm

dist.init_parallel_env()
rank, world = dist.get_rank(), dist.get_world_size()
comm = world_comm()

# A failed check on one rank ends every rank at once: eager.distributed's own
# abort hook, installed under the launcher (it reports the rank, then MPI_Abort).
eager.set_default_dtype("float64")
K, B = 3, 8
rng = np.random.RandomState(0)
XS, YS = rng.randn(K, 2, B, 5), rng.randn(K, 2, B, 3)
LABELS = rng.randint(0, 20, size=(K, 2, B, 4))
lo, hi = rank * B // world, (rank + 1) * B // world


class Net(nn.Layer):
    def __init__(self, extra=False, norm=False, sparse=False):
        super().__init__()
        self.fc1 = nn.Linear(5, 7)
        self.norm = nn.BatchNorm1D(7) if norm else None
        self.emb = nn.Embedding(20, 3, sparse=True) if sparse else None
        self.fc2 = nn.Linear(7, 3)
        self.extra = nn.Linear(3, 3) if extra else None

    def forward(self, x, ids=None):
        h = self.fc1(x)
        if self.norm is not None:
            h = self.norm(h)
        out = self.fc2(nn.functional.tanh(h))
        if self.emb is not None:
            out = out + self.emb(ids).sum(axis=1)
        return out


def loss_of(net, x, y, ids=None):
    out = net(eager.to_tensor(x), None if ids is None else eager.to_tensor(ids))
    return ((out - eager.to_tensor(y)) ** 2).mean()


def train(net, opt, full, micro=1, dp=None, sparse=False):
    """K steps; each of `micro` micro-batches backward (all but the last under no_sync)."""
    for k in range(K):
        for m in range(micro):
            sl = slice(None) if full else slice(lo, hi)
            ids = LABELS[k, m, sl] if sparse else None
            ctx = dp.no_sync() if (dp is not None and m < micro - 1) else _null()
            with ctx:
                loss_of(net, XS[k, m, sl], YS[k, m, sl], ids).backward()
        opt.step()
        opt.clear_grad()


class _null:
    def __enter__(self): return self
    def __exit__(self, *a): return False


def values(layer):
    return {k: v.numpy().copy() for k, v in layer.state_dict().items()}


def check_case(name, make_opt, micro=1, norm=False, sparse=False, **dp_args):
    eager.seed(1000 + 17 * rank)              # different random weights on every rank
    net = Net(norm=norm, sparse=sparse, **{k: v for k, v in dp_args.items() if k == "extra"})
    if norm:
        net = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    dp_kw = {k: v for k, v in dp_args.items() if k != "extra"}
    dp = eager.DataParallel(net, comm_buffer_size=0.0002, last_comm_buffer_size=0.0001, **dp_kw)
    start = values(dp)
    train(dp, make_opt(dp.parameters()), full=False, micro=micro, dp=dp, sparse=sparse)
    final = values(dp)
    gathered = comm.gather(final, root=0)
    if rank == 0:
        ref = Net(norm=norm, sparse=sparse, **{k: v for k, v in dp_args.items() if k == "extra"})
        ref.set_state_dict(start)
        train(ref, make_opt(ref.parameters()), full=True, micro=micro, sparse=sparse)
        for key, expected in values(ref).items():
            for r, got in enumerate(gathered):
                np.testing.assert_allclose(got[key], expected, rtol=1e-10, atol=1e-12,
                                           err_msg=f"{name}: {key} on rank {r}")
        print(f"OK {name}", flush=True)


SGD = lambda params: eager.optimizer.SGD(0.1, parameters=params)
ADAM = lambda params: eager.optimizer.Adam(0.05, parameters=params)

# 1. parameters are broadcast from rank 0; state_dict keys are the network's.
eager.seed(7 + rank)
inner = Net()
dp = eager.DataParallel(inner)
assert list(dp.state_dict()) == list(inner.state_dict()) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
assert [id(p) for p in dp.parameters()] == [id(p) for p in inner.parameters()]
mine = np.concatenate([p.numpy().ravel() for p in inner.parameters()])
root = comm.bcast(mine, root=0)
assert np.array_equal(mine, root), "parameters differ from rank 0's after DataParallel()"
assert dp.scale_loss(3.0) == 3.0 and dp.apply_collective_grads() is None
sampler = eager.io.DistributedBatchSampler(range(10), batch_size=2)
assert (sampler.nranks, sampler.local_rank) == (world, rank), (sampler.nranks, sampler.local_rank)
if rank == 0:
    print("OK broadcast and state_dict keys", flush=True)

# 2. K steps on 1/N of each batch == one process on the full batches.
check_case("sgd", SGD)
check_case("adam", ADAM)
# 3. no_sync accumulation: the synced backward averages the accumulated sum.
check_case("no_sync adam", ADAM, micro=2)
# 4. SyncBatchNorm: outputs, gradients and running statistics as BatchNorm on the full batch.
check_case("sync batch norm", SGD, norm=True)
# 5. sparse embedding gradients (SelectedRows) are all-gathered.
check_case("sparse embedding", SGD, sparse=True)
# 6. find_unused_parameters=True trains (the unused parameter keeps no gradient).
check_case("find_unused_parameters", ADAM, extra=True, find_unused_parameters=True)

# 6b. a parameter only rank 0 uses (data-dependent): the other ranks count zeros, which is what
# one process gets when that layer touches only rank 0's rows of the full batch.
def extra_loss(model, net, x, y, rows):
    out = model(eager.to_tensor(x))
    if rows is not None:
        out = out + net.extra(out) * eager.to_tensor(rows)
    return ((out - eager.to_tensor(y)) ** 2).mean()


eager.seed(300 + rank)
net = Net(extra=True)
dp = eager.DataParallel(net, find_unused_parameters=True)
start = values(dp)
opt = ADAM(dp.parameters())
for k in range(K):
    extra_loss(dp, net, XS[k, 0, lo:hi], YS[k, 0, lo:hi], np.ones((hi - lo, 1)) if rank == 0 else None).backward()
    opt.step()
    opt.clear_grad()
gathered = comm.gather(values(dp), root=0)
del dp
if rank == 0:
    ref = Net(extra=True)
    ref.set_state_dict(start)
    opt = ADAM(ref.parameters())
    mask = (np.arange(B) < B // world).astype("float64")[:, None]
    for k in range(K):
        extra_loss(ref, ref, XS[k, 0], YS[k, 0], mask).backward()
        opt.step()
        opt.clear_grad()
    for key, expected in values(ref).items():
        for r, got in enumerate(gathered):
            np.testing.assert_allclose(got[key], expected, rtol=1e-10, atol=1e-12, err_msg=f"{key} rank {r}")
    assert not np.array_equal(start["extra.weight"], values(ref)["extra.weight"])   # it did train
    print("OK unused on some ranks", flush=True)

# 7. an unused parameter without find_unused_parameters: an error naming it, on every rank.
net = Net(extra=True)
dp = eager.DataParallel(net)
try:
    loss_of(dp, XS[0, 0, lo:hi], YS[0, 0, lo:hi]).backward()
except RuntimeError as error:
    assert "extra.weight" in str(error) and "extra.bias" in str(error) and "find_unused_parameters" in str(error), error
else:
    raise AssertionError("no error for unused parameters")
# ... and the wrapper still works afterwards (ranks stayed in step).
net.extra = None
del dp  # its hooks go with it
dp2 = eager.DataParallel(net)
for p in net.parameters():
    p.clear_grad()
loss_of(dp2, XS[0, 0, lo:hi], YS[0, 0, lo:hi]).backward()
grads = comm.gather(net.fc1.weight.grad.numpy(), root=0)
if rank == 0:
    assert all(np.array_equal(g, grads[0]) for g in grads)
    print("OK unused parameter error", flush=True)

# 8. eager.grad on the wrapped network writes no .grad and keeps the ranks in step.
net = Net()
dp = eager.DataParallel(net)
x = eager.to_tensor(XS[0, 0, lo:hi], stop_gradient=False)
(gx,) = eager.grad([dp(x).sum()], [x])
assert net.fc1.weight.grad is None and gx.shape == [hi - lo, 5]
loss_of(dp, XS[0, 0, lo:hi], YS[0, 0, lo:hi]).backward()
grads = comm.gather(net.fc1.weight.grad.numpy(), root=0)
if rank == 0:
    assert all(np.array_equal(g, grads[0]) for g in grads)
    print("OK grad() untouched", flush=True)

# 9. Model.fit under mpiexec: data parallel (batch_size per rank), rank 0 alone prints and saves.
import os
data_rng = np.random.RandomState(5)
fx, fy = data_rng.randn(16, 5), data_rng.randn(16, 3)
eager.seed(50 + rank)
net = Net()
model = eager.Model(net, inputs=["x"], labels=["y"])
start = values(net)   # rank 0's, broadcast by the DataParallel the Model made
model.prepare(eager.optimizer.SGD(0.1, parameters=model.parameters()), nn.MSELoss())
model.fit(eager.io.TensorDataset([eager.to_tensor(fx), eager.to_tensor(fy)]), batch_size=4, epochs=2,
          shuffle=False, verbose=2, save_dir=f"ckpt{rank}")
assert os.path.exists(f"ckpt{rank}/final.pdparams") == (rank == 0)
final = values(net)
gathered = comm.gather(final, root=0)
if rank == 0:
    ref = Net()
    ref.set_state_dict(start)
    opt = eager.optimizer.SGD(0.1, parameters=ref.parameters())
    step = 4 * world
    for epoch in range(2):
        for s in range(0, 16, step):
            out = ref(eager.to_tensor(fx[s:s + step]))
            ((out - eager.to_tensor(fy[s:s + step])) ** 2).mean().backward()
            opt.step()
            opt.clear_grad()
    for key, expected in values(ref).items():
        for r, got in enumerate(gathered):
            np.testing.assert_allclose(got[key], expected, rtol=1e-10, atol=1e-12, err_msg=f"fit: {key} rank {r}")
    print("OK Model.fit", flush=True)

# 10. SyncBatchNorm alone, channel-last 4-D: each rank's outputs and input gradients are its
# slice of BatchNorm2D's on the full batch; weight/bias gradients summed over ranks are the full ones.
bn_rng = np.random.RandomState(9)
x_full = bn_rng.randn(8, 3, 2, 4) * 2 + 1
c_full = bn_rng.randn(8, 3, 2, 4)
sync = nn.SyncBatchNorm(4, data_format="NHWC")
x = eager.to_tensor(x_full[lo:hi], stop_gradient=False)
out = sync(x)
(out * eager.to_tensor(c_full[lo:hi])).sum().backward()
summed = [comm.allreduce(sync.weight.grad.numpy()), comm.allreduce(sync.bias.grad.numpy())]
ref = nn.BatchNorm2D(4, data_format="NHWC")
xr = eager.to_tensor(x_full, stop_gradient=False)
outr = ref(xr)
(outr * eager.to_tensor(c_full)).sum().backward()
np.testing.assert_allclose(out.numpy(), outr.numpy()[lo:hi], rtol=1e-10, atol=1e-12)
np.testing.assert_allclose(x.grad.numpy(), xr.grad.numpy()[lo:hi], rtol=1e-9, atol=1e-12)
np.testing.assert_allclose(summed[0], ref.weight.grad.numpy(), rtol=1e-10, atol=1e-12)
np.testing.assert_allclose(summed[1], ref.bias.grad.numpy(), rtol=1e-10, atol=1e-12)
np.testing.assert_allclose(sync._mean.numpy(), ref._mean.numpy(), rtol=1e-12)
np.testing.assert_allclose(sync._variance.numpy(), ref._variance.numpy(), rtol=1e-12)
sync.eval(); ref.eval()
np.testing.assert_allclose(sync(x).numpy(), ref(xr).numpy()[lo:hi], rtol=1e-12)
if rank == 0:
    print("OK SyncBatchNorm NHWC", flush=True)

# 11. a backward that fails half way (a hook raises on every rank) leaves the ranks in step:
# retrying the same graph, and retain_graph's second backward, average again.
net = Net()
dp = eager.DataParallel(net, comm_buffer_size=0.00001, last_comm_buffer_size=0.00001)


def boom(grad):
    raise ValueError("boom")


handle = net.fc1.bias.register_hook(boom)
loss = loss_of(dp, XS[0, 0, lo:hi], YS[0, 0, lo:hi])
try:
    loss.backward()
except ValueError:
    pass
else:
    raise AssertionError("the hook did not raise")
handle.remove()
loss.backward(retain_graph=True)
loss.backward()
grads = comm.gather(np.concatenate([p.grad.numpy().ravel() for p in net.parameters()]), root=0)
if rank == 0:
    assert all(np.array_equal(g, grads[0]) for g in grads)
    print("OK failed backward", flush=True)
'''


@pytest.mark.parametrize("ranks", [2, 4])
def test_ranks_train_as_one_process_on_the_full_batch(tmp_path, ranks):
    result = run_ranks(ranks, RANK_SCRIPT, tmp_path, timeout=120)
    for check in CHECKS:
        assert f"OK {check}\n" in result.stdout, (check, result.stdout, result.stderr)
    # Model.fit: rank 0 alone prints progress and writes checkpoints.
    assert result.stdout.count("Epoch 1/2") == 1
    assert (tmp_path / "ckpt0" / "final.pdparams").exists()
    assert not any((tmp_path / f"ckpt{r}").exists() for r in range(1, ranks))


EXAMPLE = """
import runpy, sys
sys.argv = ["data_parallel.py", "--epochs", "3"]
runpy.run_path("{path}", run_name="__main__")
"""


def test_example_prints_the_accuracy_of_one_process(tmp_path):
    pytest.importorskip("sklearn")
    path = Path(__file__).resolve().parents[1] / "examples" / "data_parallel.py"
    finals = []
    for ranks in (1, 2):
        result = run_ranks(ranks, EXAMPLE.format(path=path), tmp_path, timeout=120)
        lines = result.stdout.strip().splitlines()
        assert lines[-1].startswith("test accuracy ") and f"{ranks} rank(s):" in lines[-2], result.stdout
        assert result.stdout.count("epoch 1 ") == 1   # rank 0 alone prints
        finals.append(lines[-1])
    assert finals[0] == finals[1]


# -- a world of one: what a plain `python train.py` gets -------------------------

def mlp():
    return nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2))


def test_world_of_one_is_a_transparent_wrapper():
    eager.set_default_dtype("float64")
    try:
        inner = mlp()
        model = DataParallel(inner)
        twin = mlp()
        twin.set_state_dict(inner.state_dict())
        x = np.random.default_rng(0).standard_normal((5, 4))
        out = model(eager.to_tensor(x))
        np.testing.assert_array_equal(out.numpy(), twin(eager.to_tensor(x)).numpy())
        with model.no_sync():
            out.sum().backward()
        twin(eager.to_tensor(x)).sum().backward()
        for p, q in zip(model.parameters(), twin.parameters()):
            np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())
        assert list(model.state_dict()) == list(inner.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
        assert [name for name, _ in model.named_parameters()][0] == "_layers.0.weight"  # as Paddle's
        assert model._layers is inner and model.grad_need_sync
        assert model.scale_loss(out) is out and model.apply_collective_grads() is None
        missing, unexpected = model.set_state_dict({k: np.zeros(v.shape) for k, v in inner.state_dict().items()})
        assert (missing, unexpected) == ([], []) and not inner[0].weight.numpy().any()
    finally:
        eager.set_default_dtype("float32")


def test_data_parallel_rejects_bad_arguments():
    with pytest.raises(TypeError, match="DataParallel: argument 'layers' expected an eager.nn.Layer, got list"):
        DataParallel([mlp()])
    with pytest.raises(ValueError, match="'comm_buffer_size' expected a positive number of MB, got 0"):
        DataParallel(mlp(), comm_buffer_size=0)
    with pytest.raises(ValueError, match="'last_comm_buffer_size' expected a positive number of MB, got -1"):
        DataParallel(mlp(), last_comm_buffer_size=-1)
    with pytest.raises(TypeError, match="'find_unused_parameters' expected a bool, got 'yes'"):
        DataParallel(mlp(), find_unused_parameters="yes")
    with pytest.raises(TypeError, match="'group' expected None or a group from eager.distributed.new_group"):
        DataParallel(mlp(), group=3)
    assert eager.DataParallel is DataParallel


def test_data_parallel_over_a_group_of_new_group(tmp_path):
    # A group spanning both ranks averages over them; a group without this rank is refused.
    result = run_ranks(2, """
        import numpy as np
        import eager, eager.distributed as dist
        from eager import nn
        dist.init_parallel_env()
        rank = dist.get_rank()
        eager.seed(rank)  # different weights: DataParallel broadcasts rank 0's
        net = dist.DataParallel(nn.Linear(3, 1), group=dist.new_group([0, 1]))
        x = eager.to_tensor(np.full((2, 3), rank + 1.0, "float32"))
        net(x).sum().backward()
        # d(sum(x @ w + b))/dw = column sums of x: 2 * (rank + 1); the average over ranks is 3
        assert np.allclose(net._layers.weight.grad.numpy(), 3.0), net._layers.weight.grad.numpy()
        only_zero = dist.new_group([0])
        if rank == 1:
            try:
                dist.DataParallel(nn.Linear(3, 1), group=only_zero)
            except ValueError as error:
                assert "is not one of the group's ranks [0]" in str(error), error
            else:
                raise AssertionError("a group without this rank was accepted")
        else:
            lone = dist.DataParallel(nn.Linear(3, 1), group=only_zero)  # one member: no averaging
            lone(x).sum().backward()
            assert np.allclose(lone._layers.weight.grad.numpy(), 2.0)
        open(f"ok{rank}", "w").close()  # not print: the ranks' output may interleave
    """, tmp_path)
    assert (tmp_path / "ok0").exists() and (tmp_path / "ok1").exists(), result.stdout


def test_buckets_are_cut_by_size_and_sent_last_layers_first():
    # float64 [100, 100] weights are 80,000 bytes, biases 800.
    params = [p for layer in (nn.Linear(100, 100), nn.Linear(100, 100), nn.Linear(100, 100))
              for p in layer.to(dtype="float64").parameters()]
    buckets = _assign_buckets(params, list(range(6)), last_limit=50_000, limit=100_000)
    # The first layer's weight alone passes last_limit; the next bucket closes at 100,000 bytes.
    assert [b.indices for b in buckets] == [[5], [1, 2, 3, 4], [0]]
    assert [b.buffer.size for b in buckets] == [100, 100 + 10_000 + 100 + 10_000, 10_000]
    assert all(b.buffer.dtype == np.float64 for b in buckets)
    assert buckets[1].views[1].shape == (100, 100) and np.shares_memory(buckets[1].views[1], buckets[1].buffer)
    # Two dtypes never share a bucket; half floats travel as float32.
    mixed = params[:2] + [nn.Linear(4, 4).to(dtype="float16").weight]
    buckets = _assign_buckets(mixed, [0, 1, 2], last_limit=10**9, limit=10**9)
    assert [b.indices for b in buckets] == [[2], [0, 1]]
    assert [b.buffer.dtype for b in buckets] == [np.float32, np.float64]


def numpy_batch_norm(x, axis, weight, bias, epsilon=1e-5):
    axes = tuple(a for a in range(x.ndim) if a != axis)
    shape = [1] * x.ndim
    shape[axis] = -1
    mean, var = x.mean(axis=axes), x.var(axis=axes)
    out = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + epsilon)
    return out * weight.reshape(shape) + bias.reshape(shape), mean, var


@pytest.mark.parametrize("shape, data_format, axis", [((6, 3), "NC", 1), ((4, 3, 5), "NCL", 1),
                                                      ((2, 3, 2, 2), "NCHW", 1), ((2, 2, 2, 3), "NHWC", 3)])
def test_sync_batch_norm_in_a_world_of_one_is_batch_norm(shape, data_format, axis):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape) * 3 + 2
    layer = nn.SyncBatchNorm(3, momentum=0.8, data_format=data_format)
    layer.to(dtype="float64")
    layer.weight.set_value(rng.standard_normal(3))
    layer.bias.set_value(rng.standard_normal(3))
    out = layer(eager.to_tensor(x))
    expected, mean, var = numpy_batch_norm(x, axis, layer.weight.numpy(), layer.bias.numpy())
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(layer._mean.numpy(), 0.2 * mean, rtol=1e-12)
    np.testing.assert_allclose(layer._variance.numpy(), 0.8 + 0.2 * var, rtol=1e-12)
    layer.eval()
    ref = (x - layer._mean.numpy().reshape([-1 if a == axis else 1 for a in range(x.ndim)]))
    ref = ref / np.sqrt(layer._variance.numpy().reshape([-1 if a == axis else 1 for a in range(x.ndim)]) + 1e-5)
    ref = ref * layer.weight.numpy().reshape([-1 if a == axis else 1 for a in range(x.ndim)]) \
        + layer.bias.numpy().reshape([-1 if a == axis else 1 for a in range(x.ndim)])
    np.testing.assert_allclose(layer(eager.to_tensor(x)).numpy(), ref, rtol=1e-10, atol=1e-12)


def test_convert_sync_batchnorm_keeps_the_tensors_and_the_structure():
    bn1, bn2 = nn.BatchNorm1D(4, momentum=0.7, epsilon=1e-3), nn.BatchNorm2D(2, weight_attr=False,
                                                                               data_format="NHWC")
    net = nn.Sequential(nn.Linear(3, 4), bn1, nn.Sequential(bn2, nn.ReLU()))
    optimizer = eager.optimizer.SGD(0.1, parameters=net.parameters())
    assert bn2.weight is None                     # Paddle 2.6.2's BatchNorm2D(weight_attr=False)
    tensors = [bn1.weight, bn1.bias, bn1._mean, bn1._variance, bn2.bias, bn2._mean]
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert converted is net and isinstance(net[1], nn.SyncBatchNorm) and isinstance(net[2][0], nn.SyncBatchNorm)
    assert isinstance(net[0], nn.Linear) and isinstance(net[2][1], nn.ReLU)
    sync1, sync2 = net[1], net[2][0]
    assert all(a is b for a, b in zip([sync1.weight, sync1.bias, sync1._mean, sync1._variance, sync2.bias,
                                       sync2._mean], tensors))
    # weight_attr=False: the SyncBatchNorm's own fixed weight of ones, as Paddle's
    assert sync2.weight.stop_gradient and sync2.weight.numpy().tolist() == [1.0, 1.0]
    assert (sync1._momentum, sync1._epsilon) == (0.7, 1e-3)
    assert sync1._data_format == "NCL" and sync2._data_format == "NHWC"
    assert list(net.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias", "1._mean", "1._variance",
                                      "2.0.weight", "2.0.bias", "2.0._mean", "2.0._variance"]   # Paddle's order
    assert {id(p) for p in net.parameters()} - {id(sync2.weight)} == {id(p) for p in optimizer._parameter_list}
    single = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm3D(2))
    assert isinstance(single, nn.SyncBatchNorm) and single._data_format == "NCDHW"
    with pytest.raises(TypeError, match="convert_sync_batchnorm: argument 'layer' expected an eager.nn.Layer"):
        nn.SyncBatchNorm.convert_sync_batchnorm("bn")


def test_distributed_batch_sampler_defaults_to_the_launcher(monkeypatch):
    if dist.is_initialized():
        pytest.skip("MPI was started in this process: the world, not the environment, answers")
    monkeypatch.setenv("PMI_SIZE", "3")
    monkeypatch.setenv("PMI_RANK", "1")
    sampler = eager.io.DistributedBatchSampler(range(7), batch_size=2)
    assert (sampler.nranks, sampler.local_rank) == (3, 1)
    assert list(sampler) == [[2, 3], [0]]   # 7 indices padded to 9: [0..6, 0, 1]


def test_integer_parameter_flagged_trainable_is_left_out_of_the_average(tmp_path):
    # An int64 parameter reads stop_gradient=False (Paddle allows it) but never gets a
    # gradient: DataParallel must not wait for one (it used to raise "received no gradient").
    result = run_ranks(2, """
        import numpy as np
        import eager, eager.distributed as dist
        from eager import nn
        dist.init_parallel_env()
        rank = dist.get_rank()

        class Net(nn.Layer):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 1)
                self.table = self.create_parameter([2], dtype="int64")

            def forward(self, x):
                return self.fc(x)

        net = dist.DataParallel(Net())
        assert net._layers.table.stop_gradient is False
        assert net._reducer.names == ["fc.weight", "fc.bias"], net._reducer.names
        x = eager.to_tensor(np.full((2, 3), rank + 1.0, "float32"))
        net(x).sum().backward()
        # d(sum(x @ w + b))/dw = column sums of x: 2 * (rank + 1); the average over ranks is 3
        assert np.allclose(net._layers.fc.weight.grad.numpy(), 3.0), net._layers.fc.weight.grad.numpy()
        assert net._layers.table.grad is None

        class OnlyInts(nn.Layer):
            def __init__(self):
                super().__init__()
                self.table = self.create_parameter([2], dtype="int64")

        try:
            dist.DataParallel(OnlyInts())
        except ValueError as error:
            assert "no trainable parameters" in str(error), error
        else:
            raise AssertionError("a network of integer parameters only was given a reducer")
        open(f"ok{rank}", "w").close()
    """, tmp_path)
    assert (tmp_path / "ok0").exists() and (tmp_path / "ok1").exists(), result.stdout
