"""Regressions from a differential sweep of eager.distributed (Paddle 2.6's
paddle.distributed) under ``mpiexec -n 2`` and ``-n 3``: all_reduce (every
ReduceOp), broadcast, reduce, all_gather (into a list and into a Tensor),
reduce_scatter, scatter, gather, alltoall, alltoall_single (random split sizes),
send/recv/isend/irecv, the object collectives, on random shapes (0-d, size-1,
empty) and dtypes (bool, int8..int64, uint8, float16, bfloat16, float32/64,
complex64), over the world and over sub-groups (non-members included), with
sync_op True and False; each rank's result compared with NumPy's reduction of
every rank's input. Bad arguments (ranks out of range, mismatched tensor lists,
non-Tensors, bad split sizes, sending to oneself, bad groups) and DataParallel
(gradients against one process on the whole batch, no_sync,
find_unused_parameters, the broadcast of rank 0's state) were swept too.

Found and fixed:

- all_gather, gather and alltoall of 0-d tensors into an empty list appended
  tensors of shape [1] (alltoall's could not even be read back): the send
  buffer went through ``np.ascontiguousarray``, which makes a 0-d array 1-d, and
  the parts were taken by iterating a 1-d array (NumPy scalars).
- the same conversion broke 0-d GPU tensors on the host path (staged through a
  host copy and written back): scatter, recv/irecv, reduce_scatter, reduce and
  all_reduce where NCCL is not used raised InvalidArgumentError from
  ``assign_out_`` (a [1] copy written into a 0-d tensor); all_gather's NCCL
  path gave [1] parts the same way (``cupy.ascontiguousarray``).
- ``get_rank(group)`` / ``get_world_size(group)`` with a group that is not a
  Group raised AttributeError, and a Tensor (which has a ``rank`` of its own)
  was taken; now TypeError naming the function and the argument.
- ``new_group`` refused NumPy integer ranks (TypeError), which the
  collectives' ``src``/``dst`` take and Paddle passes on as ints.
"""
from __future__ import annotations

import numpy as np
import pytest

import eager
import eager.distributed as dist
from mpi_run import run_ranks

TWO_RANKS = '''
import sys
import numpy as np
import ml_dtypes
import eager
import eager.distributed as dist

dist.init_parallel_env()
rank, n = dist.get_rank(), dist.get_world_size()
assert n == 2


def data(r, dtype, salt=0):
    value = np.asarray(3 * r + salt + 1)
    return value.astype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)


def same(got, want, what):
    got = got.numpy()
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, got.dtype, want.shape)
    np.testing.assert_array_equal(got, want, err_msg=what)


for dtype in ("float32", "int64", "bool", "float16", "bfloat16", "complex64"):
    mine = eager.to_tensor(data(rank, dtype))
    # all_gather of a 0-d tensor into an empty list: one 0-d tensor per rank
    parts = []
    dist.all_gather(parts, mine)
    for r in range(n):
        same(parts[r], data(r, dtype), f"all_gather {dtype} part {r}")
    # gather onto each rank in turn
    for dst in range(n):
        found = []
        dist.gather(mine, found if rank == dst else None, dst=dst)
        if rank == dst:
            for r in range(n):
                same(found[r], data(r, dtype), f"gather {dtype} dst {dst} part {r}")
    # alltoall: rank i's out[j] is rank j's in[i]
    out = []
    task = dist.alltoall([eager.to_tensor(data(rank, dtype, 10 * j)) for j in range(n)], out, sync_op=False)
    task.wait()
    for j in range(n):
        same(out[j], data(j, dtype, 10 * rank), f"alltoall {dtype} part {j}")
open(f"ok_{rank}", "w").close()
'''


def test_zero_d_parts_on_two_ranks(tmp_path):
    run_ranks(2, TWO_RANKS, tmp_path, timeout=120)
    assert (tmp_path / "ok_0").exists() and (tmp_path / "ok_1").exists()


GPU_TWO_RANKS = '''
import sys
import numpy as np
import fake_cupy  # a GPU for each rank, with tests/fake_nccl.py as its NCCL
sys.modules["cupy"] = fake_cupy
sys.modules["cupyx"] = fake_cupy.cupyx
fake_cupy.install_backends(sys.modules)
import eager
import eager.distributed as dist

dist.init_parallel_env()
eager.set_device("gpu")
rank, n = dist.get_rank(), dist.get_world_size()
assert n == 2


def gpu(value, dtype="float64"):
    t = eager.to_tensor(np.asarray(value, dtype))
    assert t.place.is_gpu_place() and t.shape == []
    return t


def same(t, want, what):
    assert t.place.is_gpu_place() and t.shape == [], (what, t.place, t.shape)
    got = t.numpy()
    assert got.shape == () and got.dtype == np.asarray(want).dtype and got == want, (what, got, want)


for sync in (True, False):
    t = gpu(rank + 1.5)
    dist.all_reduce(t, op=dist.ReduceOp.MAX, sync_op=sync).wait()
    same(t, np.float64(2.5), f"all_reduce sync={sync}")
    t = gpu(rank + 2, "complex64")
    dist.reduce(t, dst=1, op=dist.ReduceOp.PROD, sync_op=sync).wait()
    same(t, np.complex64(6) if rank == 1 else np.complex64(2), f"reduce sync={sync}")
    t = gpu(0)
    parts = [gpu(10 * rank + j) for j in range(n)] if rank == 0 else None
    dist.scatter(t, parts, src=0, sync_op=sync).wait()
    same(t, np.float64(rank), f"scatter sync={sync}")
    t = gpu(-1, "int64")
    dist.reduce_scatter(t, [gpu(10 * rank + j, "int64") for j in range(n)], sync_op=sync).wait()
    same(t, np.int64(10 + 2 * rank), f"reduce_scatter sync={sync}")
    t = gpu(7 if rank == 0 else 0, "int32")
    if rank == 0:
        dist.send(t, dst=1, sync_op=sync).wait()
    else:
        dist.recv(t, src=0, sync_op=sync).wait()
    same(t, np.int32(7), f"send/recv sync={sync}")
    t = gpu(rank == 1, "bool")
    dist.broadcast(t, src=1, sync_op=sync).wait()
    same(t, np.bool_(True), f"broadcast sync={sync}")

# all_gather on the NCCL path (fake_nccl): cupy.ascontiguousarray, as NumPy's, made the parts [1]
import fake_nccl
before = fake_nccl.calls["allGather"]
parts = []
dist.all_gather(parts, gpu(rank + 0.5))
assert fake_nccl.calls["allGather"] == before + 1
for r in range(n):
    same(parts[r], np.float64(r + 0.5), f"all_gather part {r}")
open(f"ok_{rank}", "w").close()
'''


def test_zero_d_gpu_tensors_on_two_ranks(tmp_path):
    run_ranks(2, GPU_TWO_RANKS, tmp_path, timeout=120)
    assert (tmp_path / "ok_0").exists() and (tmp_path / "ok_1").exists()


class TestWorldOfOne:
    pytestmark = pytest.mark.usefixtures("device")

    def test_zero_d_parts_stay_zero_d(self):
        t = eager.to_tensor(np.float64(2.5))
        for name, call in (("all_gather", lambda out: dist.all_gather(out, t)),
                           ("gather", lambda out: dist.gather(t, out)),
                           ("alltoall", lambda out: dist.alltoall([t], out))):
            out = []
            call(out)
            assert len(out) == 1, name
            assert out[0].shape == [] and out[0].place == t.place, (name, out[0].shape)
            got = out[0].numpy()
            assert got.dtype == np.float64 and got.shape == () and got == 2.5, name
            assert out[0] is not t

    def test_zero_d_into_a_tensor_and_a_list_of_tensors(self):
        t = eager.to_tensor(np.array(True))
        whole = eager.to_tensor(np.array([False]))
        dist.all_gather(whole, t)
        np.testing.assert_array_equal(whole.numpy(), [True])
        target = eager.to_tensor(np.array(False))
        version = target.inplace_version
        dist.all_gather([target], t)
        assert target.shape == [] and bool(target.numpy()) and target.inplace_version > version


@pytest.mark.parametrize("call", [dist.get_rank, dist.get_world_size])
@pytest.mark.parametrize("group", ["g", 0, eager.to_tensor([1.0])])
def test_rank_queries_name_a_bad_group(call, group):
    with pytest.raises(TypeError, match=rf"{call.__name__}: argument 'group' expected an "
                                        r"eager.distributed.Group or None, got (str|int|Tensor)"):
        call(group)


def test_rank_queries_of_a_group():
    group = dist.new_group([0])
    try:
        assert dist.get_rank(group) == 0 and dist.get_world_size(group) == 1
    finally:
        dist.destroy_process_group(group)
    assert dist.get_rank() == 0 and dist.get_world_size() == 1


def test_new_group_takes_numpy_integer_ranks():
    group = dist.new_group([np.int64(0)])
    try:
        assert group.ranks == [0] and type(group.ranks[0]) is int
        t = eager.to_tensor([1.0, 2.0])
        dist.broadcast(t, src=np.int64(0), group=group)
        np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    finally:
        dist.destroy_process_group(group)
    with pytest.raises(TypeError, match="new_group: argument 'ranks' expected a list of ints"):
        dist.new_group([np.float64(0)])
    with pytest.raises(ValueError, match="new_group: argument 'ranks' holds 1, outside the world's ranks"):
        dist.new_group([np.int32(1)])
