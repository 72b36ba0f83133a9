"""gather, alltoall_single, scatter_object_list, wait, is_available and the
eager.distributed.stream namespace: values on 2 MPI ranks against NumPy from the
known per-rank inputs (one mpiexec launch, under a timeout), the world of one
in-process, and argument errors by type and message.
"""
from __future__ import annotations

import numpy as np
import pytest

import eager
import eager.distributed as dist
from eager.distributed import collective
from mpi_run import run_ranks

TWO_RANKS = '''
import os
import numpy as np
import eager
import eager.distributed as dist
from eager.distributed import collective

dist.init_parallel_env()
rank, n = dist.get_rank(), dist.get_world_size()
assert n == 2


def same(got, want, what):
    got = got.numpy() if isinstance(got, eager.Tensor) else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want, err_msg=what)


def raises(kind, text, call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except kind as error:
        assert text in str(error), (text, str(error))
        return
    raise AssertionError(f"expected {kind.__name__} with {text!r}")


def data(r, shape=(2, 3), dtype="float32"):
    return (np.arange(int(np.prod(shape))).reshape(shape) + 10 * r).astype(dtype)


# gather: into an empty list on dst, into a list of tensors on dst (in place), others untouched
for dst in (0, 1):
    for dtype in ("float32", "int64", "bool"):
        mine = data(rank, dtype=dtype)
        found = [] if dst == 0 else [eager.to_tensor(np.zeros((2, 3), dtype)) for _ in range(2)]
        kept = list(found)
        other = ["untouched"]
        dist.gather(eager.to_tensor(mine), found if rank == dst else other, dst=dst)
        if rank == dst:
            assert len(found) == 2
            for r in range(2):
                same(found[r], data(r, dtype=dtype), f"gather dst={dst} {dtype} part {r}")
            if kept:
                assert found[0] is kept[0] and found[0].inplace_version > 0
        else:
            assert other == ["untouched"]

# gather, sync_op=False: the result is in place after the task's wait
found = []
task = dist.gather(eager.to_tensor(data(rank)), found, dst=0, sync_op=False)
task.wait()
if rank == 0:
    same(np.stack([t.numpy() for t in found]), np.stack([data(0), data(1)]), "gather async")

# alltoall_single, equal parts: rank i's out holds part i of every rank's in
source = eager.to_tensor(np.arange(4, dtype="int64") + 4 * rank)       # [0 1 2 3], [4 5 6 7]
out = eager.to_tensor(np.zeros(4, "int64"))
version = out.inplace_version
dist.alltoall_single(source, out)
same(out, np.array([0, 1, 4, 5]) + 2 * rank, "alltoall_single equal")
assert out.inplace_version > version

# unequal parts, rows of 2 columns: rank r sends j + 1 rows to rank j, so receives r + 1 from each
source = eager.to_tensor(np.full((3, 2), float(rank), "float64"))
out = eager.to_tensor(np.zeros((2 * (rank + 1), 2), "float64"))
dist.alltoall_single(source, out, in_split_sizes=[1, 2], out_split_sizes=[rank + 1, rank + 1])
same(out, np.repeat(np.array([0.0, 1.0]), rank + 1)[:, None].repeat(2, 1), "alltoall_single unequal")

# the same tensor as input and output; sync_op=False completed by dist.wait
both = eager.to_tensor(np.array([10 * rank, 10 * rank + 1], "int32"))
dist.alltoall_single(both, both, sync_op=False)
assert collective._PENDING.get(0), "an unfinished alltoall_single is pending on the world group"
dist.wait(both)
assert not collective._PENDING.get(0)
same(both, np.array([0, 10], "int32") + rank, "alltoall_single in place, waited for with dist.wait")

# split sizes that disagree across ranks: caught on both ranks under EAGER_DISTRIBUTED_DEBUG
os.environ["EAGER_DISTRIBUTED_DEBUG"] = "1"
source = eager.to_tensor(np.zeros((2, 1), "float32"))
out = eager.to_tensor(np.zeros((3 if rank == 0 else 1, 1), "float32"))
raises(RuntimeError, "which expects", dist.alltoall_single, source, out, [1, 1],
       [2, 1] if rank == 0 else [1, 0])
del os.environ["EAGER_DISTRIBUTED_DEBUG"]

# scatter_object_list from rank 1: each rank's list is cleared and gets its object
out_objects = ["stale", "entries"]
dist.scatter_object_list(out_objects, [{"to": 0}, ("to", 1)] if rank == 1 else None, src=1)
assert out_objects == [{"to": 0} if rank == 0 else ("to", 1)], out_objects

# wait: every pending collective of the group completes
t = eager.to_tensor(np.array([rank + 1.0], "float32"))
u = eager.to_tensor(np.array([rank + 2.0], "float32"))
dist.all_reduce(t, sync_op=False)
dist.all_reduce(u, op=dist.ReduceOp.MAX, sync_op=False)
dist.wait(t)
same(t, np.array([3.0], "float32"), "wait all_reduce")
same(u, np.array([3.0], "float32"), "wait covers the group's other pending collective")
assert not collective._PENDING.get(0)

# the stream namespace
s = dist.stream
t = eager.to_tensor(np.array([1.0, 2.0]) * (rank + 1))
task = s.all_reduce(t, sync_op=False)
task.wait()
same(t, np.array([3.0, 6.0]), "stream.all_reduce")
s.all_reduce(t, op=dist.ReduceOp.MIN, use_calc_stream=True)
same(t, np.array([3.0, 6.0]), "stream.all_reduce calc stream")
raises(RuntimeError, "use_calc_stream=True needs sync_op=True", s.all_reduce, t, sync_op=False,
       use_calc_stream=True)
gathered = eager.to_tensor(np.zeros((4,), "int64"))
s.all_gather(gathered, eager.to_tensor(np.array([rank, 7 * rank], "int64")))
same(gathered, np.array([0, 0, 1, 7], "int64"), "stream.all_gather into a tensor")
out = eager.to_tensor(np.zeros(2, "int64"))
s.alltoall(out, eager.to_tensor(np.array([0, 1]) + 2 * rank))          # output first
same(out, np.array([0, 2]) + rank, "stream.alltoall tensors")
outs = []
s.alltoall(outs, [eager.to_tensor(np.array([10 * rank + j])) for j in range(2)])
same(np.concatenate([o.numpy() for o in outs]), np.array([0, 10]) + rank, "stream.alltoall lists")
out = eager.to_tensor(np.zeros((2 * (rank + 1), 1), "float32"))
s.alltoall_single(out, eager.to_tensor(np.full((3, 1), float(rank), "float32")), [rank + 1] * 2, [1, 2])
same(out, np.repeat(np.array([0.0, 1.0], "float32"), rank + 1)[:, None], "stream.alltoall_single")
part = eager.to_tensor(np.zeros(2, "float32"))
s.reduce_scatter(part, eager.to_tensor(np.arange(4, dtype="float32") * (rank + 1)))
same(part, (np.arange(4, dtype="float32") * 3)[2 * rank:2 * rank + 2], "stream.reduce_scatter one tensor")
piece = eager.to_tensor(np.zeros(2, "int32"))
s.scatter(piece, eager.to_tensor(np.arange(4, dtype="int32")) if rank == 1 else None, src=1)
same(piece, np.arange(4, dtype="int32")[2 * rank:2 * rank + 2], "stream.scatter one tensor")
value = eager.to_tensor(np.array([float(rank)]))
s.broadcast(value)                                                      # src defaults to 0
same(value, np.array([0.0]), "stream.broadcast")
value = eager.to_tensor(np.array([rank + 1]))
s.reduce(value, op=dist.ReduceOp.PROD)                                   # dst defaults to 0
same(value, np.array([2]) if rank == 0 else np.array([2]), "stream.reduce")
found = []
s.gather(eager.to_tensor(np.array([rank])), found, dst=1)
assert [int(f) for f in found] == ([0, 1] if rank == 1 else []), found
message = eager.to_tensor(np.array([5.0, 6.0]) if rank == 0 else np.zeros(2))
if rank == 0:
    s.send(message, dst=1)
else:
    s.recv(message, src=0)
same(message, np.array([5.0, 6.0]), "stream.send/recv")

with open(f"ok_{rank}", "w") as marker:
    marker.write("ok")
'''


def test_new_collectives_on_two_ranks(tmp_path):
    run_ranks(2, TWO_RANKS, tmp_path, timeout=120)
    assert (tmp_path / "ok_0").exists() and (tmp_path / "ok_1").exists()


# -- a world of one, in this process ----------------------------------------------
def test_world_of_one():
    t = eager.to_tensor(np.array([[1, 2], [3, 4]], "int64"))
    found = []
    dist.gather(t, found)
    assert len(found) == 1 and np.array_equal(found[0].numpy(), t.numpy()) and found[0] is not t
    out = eager.to_tensor(np.zeros((2, 2), "int64"))
    dist.alltoall_single(t, out)
    np.testing.assert_array_equal(out.numpy(), t.numpy())
    objects = ["old"]
    dist.scatter_object_list(objects, [{"x": [1]}])
    assert objects == [{"x": [1]}]
    dist.wait(t)
    assert isinstance(dist.is_available(), bool)
    gathered = eager.to_tensor(np.zeros((2, 2), "int64"))
    dist.stream.all_gather(gathered, t)
    np.testing.assert_array_equal(gathered.numpy(), t.numpy())


def test_argument_errors():
    t = eager.to_tensor(np.zeros((4, 2), "float32"))
    cases = [
        (TypeError, "gather: argument 'gather_list' expected a list on rank 0", dist.gather, t, None),
        (ValueError, "gather: argument 'gather_list' expected 0 or 1 tensors", dist.gather, t, [t, t]),
        (ValueError, "gather: argument 'gather_list[0]' expected tensors of paddle.float32[4, 2]", dist.gather, t,
         [eager.to_tensor(np.zeros(3, "float32"))]),
        (ValueError, "gather: argument 'dst' expected a global rank of the group", dist.gather, t, [], 3),
        (TypeError, "gather: argument 'tensor' expected a Tensor", dist.gather, np.zeros(2), []),
        (ValueError, "alltoall_single: argument 'out_tensor' expected paddle.float32 with the trailing dimensions",
         dist.alltoall_single, t, eager.to_tensor(np.zeros((4, 3), "float32"))),
        (ValueError, "alltoall_single: argument 'out_tensor' expected paddle.float32", dist.alltoall_single, t,
         eager.to_tensor(np.zeros((4, 2), "int32"))),
        (ValueError, "argument 'in_split_sizes' expected 1 sizes (one per rank) adding up to 4",
         dist.alltoall_single, t, t, [2, 2]),
        (TypeError, "argument 'in_split_sizes' expected a list of non-negative ints", dist.alltoall_single, t,
         t, [-4]),
        (ValueError, "a tensor of at least 1 dimension", dist.alltoall_single,
         eager.to_tensor(np.float32(1)), eager.to_tensor(np.float32(1))),
        (ValueError, "sends itself 4 rows but 'out_tensor' has 2", dist.alltoall_single, t,
         eager.to_tensor(np.zeros((2, 2), "float32"))),
        (TypeError, "scatter_object_list: argument 'out_object_list' expected a list", dist.scatter_object_list,
         (), [1]),
        (ValueError, "scatter_object_list: argument 'in_object_list' expected 1 objects", dist.scatter_object_list,
         [], [1, 2]),
        (TypeError, "argument 'in_object_list' expected a list on rank 0", dist.scatter_object_list, [], None),
        (TypeError, "wait: argument 'tensor' expected a Tensor", dist.wait, [1.0]),
        (TypeError, "wait: argument 'use_calc_stream' expected a bool", dist.wait, t, None, 1),
        (TypeError, "stream.broadcast: argument 'use_calc_stream' expected a bool", dist.stream.broadcast, t, 0,
         None, True, "yes"),
        (RuntimeError, "use_calc_stream=True needs sync_op=True", dist.stream.send, t, 0, None, False, True),
        (TypeError, "stream.alltoall: argument 'out_tensor_or_tensor_list' expected a Tensor",
         dist.stream.alltoall, [], t),
        (ValueError, "stream.reduce_scatter: argument 'tensor_or_tensor_list', given as a Tensor",
         dist.stream.reduce_scatter, t, eager.to_tensor(np.float32(1))),
    ]
    for kind, text, call, *args in cases:
        version = t.inplace_version
        with pytest.raises(kind, match=text.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
            call(*args)
        assert t.inplace_version == version, f"{call.__name__} bumped the version of a tensor it refused"
    assert not collective._PENDING.get(0)


def test_world_of_one_on_each_device(device):
    """GPU tensors take the host path (copied out and back) and stay on their device."""
    t = eager.to_tensor(np.arange(6, dtype="float32").reshape(3, 2))
    assert t.place.is_gpu_place() == (device == "gpu")
    found = []
    dist.gather(t, found)
    assert found[0].place == t.place
    np.testing.assert_array_equal(found[0].numpy(), t.numpy())
    out = eager.zeros([3, 2], "float32")
    version = out.inplace_version
    dist.alltoall_single(t, out)
    assert out.place == t.place and out.inplace_version > version
    np.testing.assert_array_equal(out.numpy(), t.numpy())
    piece = eager.zeros([3, 2], "float32")
    dist.stream.scatter(piece, t)
    np.testing.assert_array_equal(piece.numpy(), t.numpy())
    part = eager.zeros([3, 2], "float32")
    dist.stream.reduce_scatter(part, t, op=dist.ReduceOp.MAX)
    np.testing.assert_array_equal(part.numpy(), t.numpy())
