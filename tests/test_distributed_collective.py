"""eager.distributed collectives: values against NumPy from the known per-rank
inputs, on 2 and 4 MPI ranks (through tests/mpi_run.py, under a timeout), the
world of one in-process, argument errors, mismatch detection, and a failing rank
ending the job instead of hanging it.

Each MPI script makes many checks so that few ``mpiexec`` launches are needed,
and leaves a file ``ok_<rank>`` per rank when it gets to its end.
"""
from __future__ import annotations

import doctest
import pickle

import numpy as np
import pytest

import eager
import eager.distributed as dist
import eager.distributed.communication as communication
import eager.distributed.communication.stream as communication_stream
from eager.autograd import AutogradError
from eager.distributed import ReduceOp
from mpi_run import run_ranks
from phi.core import DenseTensor, SelectedRows

# Shared by the MPI scripts: every rank's input is a known function of its rank,
# so each rank computes the expected result of a collective in NumPy.
COMMON = '''
import os, sys
import numpy as np
import eager
import eager.distributed as dist
from eager.distributed import ReduceOp, collective

dist.init_parallel_env()
rank, n = dist.get_rank(), dist.get_world_size()


def data(r, shape=(2, 3), dtype="float32"):
    base = np.arange(int(np.prod(shape))).reshape(shape)
    if dtype == "bool":
        return (base + r) % 3 == 0
    value = (base % 5 + r + 1).astype(dtype)
    if np.dtype(dtype).kind == "c":
        value = value + 1j * (r - base % 3)
    return value.astype(dtype)


def every(shape=(2, 3), dtype="float32", ranks=None):
    return np.stack([data(r, shape, dtype) for r in (range(n) if ranks is None else ranks)])


def expected(op, stack):
    if stack.dtype == np.bool_:
        return stack.any(0) if op in (ReduceOp.SUM, ReduceOp.MAX) else stack.all(0)
    reduce = {ReduceOp.SUM: np.sum, ReduceOp.MAX: np.max, ReduceOp.MIN: np.min,
              ReduceOp.PROD: np.prod, ReduceOp.AVG: np.mean}[op]
    return reduce(stack, axis=0).astype(stack.dtype)


def same(got, want, what):
    got = got.numpy() if isinstance(got, eager.Tensor) else got
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=1e-3 if want.dtype == np.float16 else 1e-6,
                                   err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def raises(kind, text, call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except kind as error:
        assert text in str(error), (text, str(error))
        return str(error)
    raise AssertionError(f"expected {kind.__name__} with {text!r}")


def tensor(array):
    return eager.to_tensor(array)


def done(rank):
    with open(f"ok_{rank}", "w") as marker:  # in the test's tmp_path: a line per rank could interleave
        marker.write("ok")
'''

TWO_RANKS = COMMON + '''
assert n == 2

# all_reduce: every op on every dtype MPI can combine it for, sync and async
for dtype in ["float32", "float64", "float16", "int32", "int64", "int8", "uint8", "complex64", "bool"]:
    for op in ReduceOp:
        kind = np.dtype(dtype).kind
        if (op is ReduceOp.AVG and kind not in "fc") or (kind == "c" and op in (ReduceOp.MAX, ReduceOp.MIN)):
            continue
        for sync_op in (True, False):
            t = tensor(data(rank, dtype=dtype))
            version = t.inplace_version
            task = dist.all_reduce(t, op=op, sync_op=sync_op)
            assert task.wait() and task.is_completed()
            same(t, expected(op, every(dtype=dtype)), f"all_reduce {dtype} {op.name} sync={sync_op}")
            assert t.inplace_version > version

# the buffer is written in place: an array taken from the tensor before sees the sum
t = tensor(data(rank))
before = t.numpy()
dist.all_reduce(t)
same(before, expected(ReduceOp.SUM, every()), "all_reduce writes the tensor's own buffer")

# float16 where MPI has no float16: reduced as float32, cast back
collective._MPI_STATE["float16"] = False
for op in (ReduceOp.SUM, ReduceOp.AVG):
    t = tensor(data(rank, dtype="float16"))
    dist.all_reduce(t, op=op)
    same(t, expected(op, every(dtype="float16")), f"float16 via float32 {op.name}")
t = tensor(data(rank, dtype="float16"))
dist.reduce(t, dst=0, op=ReduceOp.MAX)
same(t, expected(ReduceOp.MAX, every(dtype="float16")) if rank == 0 else data(rank, dtype="float16"),
     "reduce float16 via float32")
t = tensor(np.zeros((2, 3), "float16"))
dist.reduce_scatter(t, [tensor(data(rank + 2 * j, dtype="float16")) for j in range(2)], op=ReduceOp.AVG)
same(t, expected(ReduceOp.AVG, np.stack([data(r + 2 * rank, dtype="float16") for r in range(2)])),
     "reduce_scatter float16 via float32")
collective._MPI_STATE["float16"] = None

# a non-contiguous view is staged (copied out, written back into its base)
base = tensor(np.zeros((3, 4), "float32") + rank + 1)
column = base[:, 1]
dist.all_reduce(column, op=ReduceOp.PROD)
want = np.zeros((3, 4), "float32") + rank + 1
want[:, 1] = 2.0
same(base, want, "all_reduce on a strided view")
assert column.inplace_version > 0

# an async all_reduce of a large buffer overlaps with compute
big = tensor(np.full(1 << 20, rank + 1.0, "float32"))
task = dist.all_reduce(big, sync_op=False)
busy = sum(float(np.sin(i)) for i in range(1000))
while not task.is_completed():
    pass
assert task.wait()
same(big, np.full(1 << 20, 3.0, "float32"), "async all_reduce of 4 MB")

# reduce: the result on dst only
for dst in (0, 1):
    for op in (ReduceOp.SUM, ReduceOp.MIN, ReduceOp.AVG):
        for sync_op in (True, False):
            t = tensor(data(rank, dtype="float64"))
            dist.reduce(t, dst, op=op, sync_op=sync_op).wait()
            want = expected(op, every(dtype="float64")) if rank == dst else data(rank, dtype="float64")
            same(t, want, f"reduce dst={dst} {op.name}")

# broadcast from either rank, with any dtype (moved as bytes)
for src in (0, 1):
    for dtype in ("float32", "int64", "bool", "float16", "complex128"):
        t = tensor(data(rank, (4,), dtype))
        version = t.inplace_version
        dist.broadcast(t, src, sync_op=(src == 0)).wait()
        same(t, data(src, (4,), dtype), f"broadcast from {src} {dtype}")
        assert (t.inplace_version > version) == (rank != src)

# all_gather: empty list extended, list written in place, tensor form, 0-d, async
parts = []
dist.all_gather(parts, tensor(data(rank, dtype="int32")))
assert len(parts) == 2
for r in range(2):
    same(parts[r], data(r, dtype="int32"), "all_gather into an empty list")
mine = tensor(data(rank))
held = [eager.zeros([2, 3]), eager.zeros([2, 3])]
ids = [id(h) for h in held]
task = dist.all_gather(held, mine, sync_op=False)
task.wait()
assert [id(h) for h in held] == ids
for r in range(2):
    same(held[r], data(r), "all_gather into given tensors")
out = eager.zeros([4, 3])
dist.all_gather(out, mine)
same(out, np.concatenate([data(0), data(1)]), "all_gather into one tensor")
scalars = []
dist.all_gather(scalars, tensor(np.float64(rank * 10 + 1)))
assert [float(s) for s in scalars] == [1.0, 11.0]
mine[0, 0] = -5.0
same(parts[rank], data(rank, dtype="int32"), "gathered tensors are copies")

# scatter from rank 1 (the list is read there only)
for sync_op in (True, False):
    t = eager.zeros([3], dtype="int64")
    pieces = [tensor(np.array([10, 20, 30]) * (i + 1)) for i in range(2)] if rank == 1 else None
    dist.scatter(t, pieces, src=1, sync_op=sync_op).wait()
    same(t, np.array([10, 20, 30]) * (rank + 1), f"scatter sync={sync_op}")

# reduce_scatter: rank i gets op over the ranks of their tensor_list[i]
for op in (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.AVG):
    for dtype in ("float32", "float16", "bool"):
        if op is ReduceOp.AVG and dtype == "bool":
            continue
        for sync_op in (True, False):
            inputs = [tensor(data(rank + 2 * j, dtype=dtype)) for j in range(2)]
            t = tensor(np.zeros((2, 3), dtype))
            dist.reduce_scatter(t, inputs, op=op, sync_op=sync_op).wait()
            same(t, expected(op, np.stack([data(r + 2 * rank, dtype=dtype) for r in range(2)])),
                 f"reduce_scatter {op.name} {dtype}")
mine = [tensor([0, 1]), tensor([2, 3])] if rank == 0 else [tensor([4, 5]), tensor([6, 7])]
dist.reduce_scatter(mine[0], mine)  # the output may be one of the inputs
same(mine[0], np.array([4, 6]) if rank == 0 else np.array([8, 10]), "reduce_scatter into its own input")

# alltoall: rank i's out[j] is rank j's in[i]
def piece(sender, receiver):
    return data(sender, (2, 2), "float64") * (receiver + 1)

ins = [tensor(piece(rank, j)) for j in range(2)]
outs = []
dist.alltoall(ins, outs)
for j in range(2):
    same(outs[j], piece(j, rank), "alltoall into an empty list")
given = [eager.zeros([2, 2], dtype="float64") for _ in range(2)]
dist.alltoall(ins, given, sync_op=False).wait()
for j in range(2):
    same(given[j], piece(j, rank), "alltoall into given tensors")

# send / recv, isend / irecv (from a named rank and from any rank)
peer = 1 - rank
if rank == 0:
    dist.send(tensor(data(0, (5,), "float32")), dst=1)
    got = eager.zeros([5])
    dist.recv(got, src=1)
    same(got, data(1, (5,), "float32"), "recv on rank 0")
else:
    got = eager.zeros([5])
    dist.recv(got, src=0)
    same(got, data(0, (5,), "float32"), "recv on rank 1")
    dist.send(tensor(data(1, (5,), "float32")), dst=0)
box = eager.zeros([3], dtype="int64")
sent = dist.isend(tensor(np.array([rank, rank, rank]) + 7), dst=peer)
received = dist.irecv(box, src=None if rank == 0 else peer)
sent.wait(); received.wait()
same(box, np.array([peer] * 3) + 7, "isend / irecv")

# objects
found = []
dist.all_gather_object(found, {"rank": rank, "items": list(range(rank + 1))})
assert found == [{"rank": 0, "items": [0]}, {"rank": 1, "items": [0, 1]}], found
shared = [{"lr": 0.5}, "x"] if rank == 1 else [None]
dist.broadcast_object_list(shared, src=1)
assert shared == [{"lr": 0.5}, "x"], shared
dist.barrier()

# argument errors: raised on every rank before any communication
t = tensor(data(rank))
raises(TypeError, "all_reduce: argument 'tensor' expected a Tensor, got ndarray", dist.all_reduce, data(rank))
raises(TypeError, "all_reduce: argument 'op' expected an eager.distributed.ReduceOp", dist.all_reduce, t, op="sum")
raises(TypeError, "all_reduce: ReduceOp.AVG needs a floating-point", dist.all_reduce,
       eager.to_tensor([1, 2]), op=ReduceOp.AVG)
raises(TypeError, "reduce: ReduceOp.MAX is not defined for complex", dist.reduce,
       tensor(data(rank, dtype="complex64")), 0, op=ReduceOp.MAX)
raises(TypeError, "all_reduce: argument 'sync_op' expected a bool", dist.all_reduce, t, sync_op="no")
raises(TypeError, "all_reduce: argument 'group' expected an eager.distributed.Group", dist.all_reduce, t, group=0)
raises(ValueError, "broadcast: argument 'src' expected a global rank of the group (one of [0, 1]), got 2",
       dist.broadcast, t, 2)
raises(TypeError, "reduce: argument 'dst' expected an int rank", dist.reduce, t, 0.5)
raises(ValueError, "all_gather: argument 'tensor_list' expected 0 or 2 tensors", dist.all_gather, [t], t)
raises(ValueError, "all_gather: argument 'tensor_list[1]' expected tensors of paddle.float32[2, 3], got paddle.float32[3, 2]",
       dist.all_gather, [t, eager.zeros([3, 2])], t)
raises(ValueError, "all_gather: argument 'tensor_list[0]' expected tensors of paddle.float32[2, 3], got paddle.float64[2, 3]",
       dist.all_gather, [eager.zeros([2, 3], dtype="float64"), t], t)
raises(ValueError, "all_gather: argument 'tensor_list', given as a Tensor, expected paddle.float32[4, 3]",
       dist.all_gather, eager.zeros([2, 3]), t)
raises(TypeError, "all_gather: argument 'tensor_list' expected a list of Tensors or a Tensor",
       dist.all_gather, None, t)
raises(ValueError, "alltoall: argument 'in_tensor_list' expected 2 tensors", dist.alltoall, [t], [])
raises(ValueError, "alltoall: argument 'in_tensor_list[1]' expected tensors of paddle.float32[2, 3]",
       dist.alltoall, [t, eager.zeros([2])], [])
raises(TypeError, "alltoall: argument 'out_tensor_list' expected a list", dist.alltoall, [t, t], None)
raises(ValueError, "reduce_scatter: argument 'tensor_list' expected 2 tensors", dist.reduce_scatter, t, [t])
raises(ValueError, f"send: argument 'dst' is this process's own rank ({rank})", dist.send, t, rank)
raises(ValueError, f"irecv: argument 'src' is this process's own rank ({rank})", dist.irecv, t, rank)
raises(TypeError, "all_gather_object: argument 'object_list' expected a list", dist.all_gather_object, (), 1)
raises(ValueError, "new_group: argument 'ranks' holds 2, outside the world's ranks 0..1", dist.new_group, [0, 2])
raises(ValueError, "new_group: argument 'ranks' expected distinct ranks", dist.new_group, [1, 1])
t = tensor(data(rank))
dist.all_reduce(t)  # nothing was left half-started by the errors above
same(t, expected(ReduceOp.SUM, every()), "all_reduce after the errors")

# an MPI error (a message longer than the receiving tensor) names the call
if rank == 0:
    dist.send(eager.ones([4]), dst=1)
else:
    raises(RuntimeError, "recv: MPI reported an error", dist.recv, eager.zeros([2]), src=0)
dist.barrier()

# EAGER_DISTRIBUTED_DEBUG=1: mismatched calls are caught on every rank
os.environ["EAGER_DISTRIBUTED_DEBUG"] = "1"
message = raises(RuntimeError, "all_reduce: the ranks of group 0 made different collective calls",
                 dist.all_reduce, eager.ones([2 + rank]))
assert "rank 0: all_reduce((2,), paddle.float32, SUM)" in message and "rank 1: all_reduce((3,), paddle.float32, SUM)" in message
if rank == 0:
    raises(RuntimeError, "rank 1: broadcast", dist.all_reduce, eager.ones([2]))
else:
    raises(RuntimeError, "rank 0: all_reduce", dist.broadcast, eager.ones([2]), 0)
if rank == 0:
    dist.send(eager.ones([2]), dst=1)
else:
    raises(RuntimeError, "recv: rank 0 sent a tensor of paddle.float32[2], but this rank receives into paddle.float32[3]",
           dist.recv, eager.zeros([3]), src=0)
t = tensor(data(rank))
dist.all_reduce(t)  # agreeing calls pass the check
same(t, expected(ReduceOp.SUM, every()), "all_reduce under the debug check")
os.environ["EAGER_DISTRIBUTED_DEBUG"] = "0"
if rank == 1:
    drained = eager.zeros([2])
    dist.recv(drained, src=0)  # the message whose signature did not match
    same(drained, np.ones(2, "float32"), "the mismatched message")
dist.barrier()
done(rank)
'''

FOUR_RANKS = COMMON + '''
assert n == 4

# every op across 4 ranks
for op in ReduceOp:
    t = tensor(data(rank, (3,), "float64"))
    dist.all_reduce(t, op=op)
    same(t, expected(op, every((3,), "float64")), f"all_reduce {op.name} on 4 ranks")

# groups: members get their group rank, the others -1 and return at once
odd = dist.new_group([3, 1])
assert odd.ranks == [1, 3] and odd.nranks == 2 and odd.id > 0, odd
assert dist.get_group(odd.id) is odd and dist.get_group(0).ranks == [0, 1, 2, 3]
if rank in (1, 3):
    assert odd.rank == [1, 3].index(rank) and odd.world_size == 2 and odd.is_member()
    assert dist.get_rank(odd) == odd.rank and dist.get_world_size(odd) == 2
    assert odd.get_group_rank(3) == 1 and odd.get_group_rank(0) == -1
    assert dist.get_backend(odd) == "MPI" and dist.get_backend() == "MPI"
else:
    assert odd.rank == -1 and odd.world_size == -1 and not odd.is_member()
    raises(RuntimeError, f"get_backend: this process (global rank {rank}) is not a member of group {odd.id} "
           f"(ranks [1, 3])", dist.get_backend, odd)
t = tensor(data(rank))
task = dist.all_reduce(t, group=odd)
assert task.is_completed()
same(t, expected(ReduceOp.SUM, every(ranks=[1, 3])) if rank in (1, 3) else data(rank), "all_reduce in a group")
t = tensor(data(rank))
dist.broadcast(t, src=3, group=odd)
same(t, data(3) if rank in (1, 3) else data(rank), "broadcast from global rank 3 in a group")
parts = []
dist.all_gather(parts, tensor(data(rank)), group=odd)
assert len(parts) == (2 if rank in (1, 3) else 0)
for part, r in zip(parts, [1, 3]):
    same(part, data(r), "all_gather in a group")
raises(ValueError, "broadcast: argument 'src' expected a global rank of the group (one of [1, 3]), got 0",
       dist.broadcast, t, 0, group=odd)

low = dist.new_group([2, 0, 1])
t = tensor(data(rank, dtype="int64"))
dist.reduce(t, dst=2, op=ReduceOp.MAX, group=low, sync_op=False).wait()
same(t, expected(ReduceOp.MAX, every(dtype="int64", ranks=[0, 1, 2])) if rank == 2 else data(rank, dtype="int64"),
     "reduce to global rank 2 in a group of 3")
if rank in (0, 2):
    box = eager.zeros([2, 3])
    if rank == 0:
        dist.send(tensor(data(0)), dst=2, group=low)
    else:
        dist.recv(box, src=0, group=low)
        same(box, data(0), "send / recv in a group")

# scatter and alltoall on 4 ranks
t = eager.zeros([2], dtype="int32")
dist.scatter(t, [tensor(np.array([i, -i], "int32")) for i in range(4)] if rank == 2 else None, src=2)
same(t, np.array([rank, -rank], "int32"), "scatter on 4 ranks")
outs = []
dist.alltoall([tensor(np.array([rank * 10 + j])) for j in range(4)], outs)
assert [int(o) for o in outs] == [j * 10 + rank for j in range(4)], outs

# destroying groups
dist.destroy_process_group(odd)
assert dist.get_group(odd.id) is None
raises(ValueError, "all_reduce: argument 'group' (id", dist.all_reduce, t, group=odd)
dist.destroy_process_group()
assert not dist.is_initialized()
t = tensor(data(rank))
dist.all_reduce(t)
assert dist.is_initialized()
same(t, expected(ReduceOp.SUM, every()), "all_reduce after destroy_process_group()")
done(rank)
'''

ONE_RANK = COMMON + '''
assert n == 1 and dist.env.mpi_module() is not None
t = tensor(data(0))
for op in ReduceOp:
    dist.all_reduce(t, op=op)
same(t, data(0), "all_reduce on one rank with MPI")
parts = []
dist.all_gather(parts, t)
same(parts[0], data(0), "all_gather on one rank with MPI")
dist.barrier()
done(rank)
'''

RANK_FAILS = '''
import sys
import eager
import eager.distributed as dist

if sys.argv[1] == "after-init":
    dist.init_parallel_env()
if dist.get_rank() == 1:
    raise ValueError("rank one gives up")
dist.all_reduce(eager.ones([3]))   # rank 0 waits here for a rank that is gone
print("rank 0 should never get here", flush=True)
'''


def finished(tmp_path) -> list:
    """The ranks whose script got to its end."""
    return sorted(int(path.name[3:]) for path in tmp_path.glob("ok_*"))


def test_collectives_on_two_ranks(tmp_path):
    run_ranks(2, TWO_RANKS, tmp_path, timeout=90)
    assert finished(tmp_path) == [0, 1]


def test_groups_and_collectives_on_four_ranks(tmp_path):
    run_ranks(4, FOUR_RANKS, tmp_path, timeout=90)
    assert finished(tmp_path) == [0, 1, 2, 3]


def test_one_rank_under_mpi(tmp_path):
    run_ranks(1, ONE_RANK, tmp_path, timeout=60)
    assert finished(tmp_path) == [0]


@pytest.mark.parametrize("when", ["after-init", "before-init"])
def test_a_rank_that_raises_ends_the_job_naming_itself(tmp_path, when):
    result = run_ranks(2, RANK_FAILS, tmp_path, timeout=60, check=False, args=[when])
    assert result.returncode != 0
    assert "eager.distributed: rank 1 of 2 raised an uncaught ValueError" in result.stderr, result.stderr
    assert "rank one gives up" in result.stderr
    assert "should never get here" not in result.stdout


# -- the world of one, in-process (no MPI: every collective is an identity; the
# `lone` fixture of conftest.py) ---------------------------------------------------
def values(shape=(2, 3), dtype="float32"):
    return (np.arange(int(np.prod(shape))).reshape(shape) % 5 + 1).astype(dtype)


def test_world_of_one_collectives_are_identities(lone):
    assert dist.get_world_size() == 1 and dist.get_rank() == 0
    for op in ReduceOp:
        t = eager.to_tensor(values())
        version = t.inplace_version
        task = dist.all_reduce(t, op=op, sync_op=False)
        assert task.is_completed() and task.wait()
        np.testing.assert_array_equal(t.numpy(), values())
        assert t.inplace_version == version + 1  # a write, as on N ranks
    t = eager.to_tensor(values(dtype="int64"))
    dist.reduce(t, dst=0, op=ReduceOp.PROD)
    dist.broadcast(t, src=0)
    np.testing.assert_array_equal(t.numpy(), values(dtype="int64"))

    parts = []
    dist.all_gather(parts, t)
    assert len(parts) == 1 and parts[0] is not t
    np.testing.assert_array_equal(parts[0].numpy(), values(dtype="int64"))
    parts[0][0, 0] = 100
    assert int(t[0, 0]) == 1  # a copy
    held = [eager.zeros([2, 3], dtype="int64")]
    dist.all_gather(held, t)
    np.testing.assert_array_equal(held[0].numpy(), values(dtype="int64"))
    whole = eager.zeros([2, 3], dtype="int64")
    dist.all_gather(whole, t)
    np.testing.assert_array_equal(whole.numpy(), values(dtype="int64"))

    received = eager.zeros([3])
    dist.scatter(received, [eager.to_tensor([1.0, 2.0, 3.0])], src=0)
    np.testing.assert_array_equal(received.numpy(), [1.0, 2.0, 3.0])
    outs = []
    dist.alltoall([eager.to_tensor([4, 5])], outs)
    np.testing.assert_array_equal(outs[0].numpy(), [4, 5])
    dist.reduce_scatter(received, [eager.to_tensor([7.0, 8.0, 9.0])], op=ReduceOp.MAX)
    np.testing.assert_array_equal(received.numpy(), [7.0, 8.0, 9.0])

    obj = {"a": [1, 2]}
    gathered = []
    dist.all_gather_object(gathered, obj)
    assert gathered == [obj] and gathered[0] is not obj and gathered[0]["a"] is not obj["a"]
    listed = [1, "two"]
    dist.broadcast_object_list(listed, src=0)
    assert listed == [1, "two"]
    assert dist.barrier() is None


def test_world_of_one_errors(lone):
    t = eager.to_tensor(values())
    with pytest.raises(ValueError, match=r"scatter: argument 'tensor_list' expected 1 tensors"):
        dist.scatter(t, [t, t])
    with pytest.raises(TypeError, match=r"scatter: argument 'tensor_list' expected a list of Tensors, got NoneType"):
        dist.scatter(t, None, src=0)
    with pytest.raises(ValueError, match=r"send: argument 'dst' is this process's own rank \(0\)"):
        dist.send(t, dst=0)
    with pytest.raises(ValueError, match=r"recv: argument 'src' is None \(any rank\), but this process is the only"):
        dist.recv(t, src=None)
    with pytest.raises(ValueError, match=r"broadcast: argument 'src' expected a global rank of the group "
                                         r"\(one of \[0\]\), got 1"):
        dist.broadcast(t, src=1)
    rows = eager.Tensor(SelectedRows(np.array([1]), DenseTensor(np.ones((1, 3), "float32")), height=4))
    with pytest.raises(TypeError, match=r"all_reduce: argument 'tensor' expected a dense Tensor, got a SELECTED_ROWS"):
        dist.all_reduce(rows)
    with pytest.raises(TypeError, match=r"all_reduce: argument 'op' expected an eager.distributed.ReduceOp"):
        dist.all_reduce(t, op=True)
    with pytest.raises(TypeError, match=r"new_group: argument 'ranks' expected a list of ints, got int"):
        dist.new_group(0)
    with pytest.raises(ValueError, match=r"new_group: argument 'backend' expected one of"):
        dist.new_group([0], backend="carrier-pigeon")
    np.testing.assert_array_equal(t.numpy(), values())  # untouched by the failed calls


def test_world_of_one_groups(lone):
    group = dist.new_group([0])
    assert (group.rank, group.ranks, group.world_size, group.nranks) == (0, [0], 1, 1)
    assert dist.get_group(group.id) is group and dist.get_group(12345) is None
    assert dist.get_group().id == 0 and dist.is_initialized()
    t = eager.to_tensor(values())
    dist.all_reduce(t, group=group)
    np.testing.assert_array_equal(t.numpy(), values())
    dist.destroy_process_group(group)
    with pytest.raises(ValueError, match=r"was destroyed by destroy_process_group"):
        dist.all_reduce(t, group=group)
    dist.destroy_process_group()
    assert not dist.is_initialized()


def test_group_docstring_examples_run_in_a_world_of_one(lone):
    """The examples of eager.distributed.group (new_group's among them) run as written."""
    module = eager.distributed.group
    result = doctest.testmod(module, extraglobs={"eager": eager, "np": np},
                             optionflags=doctest.NORMALIZE_WHITESPACE, report=False)
    assert result.failed == 0 and result.attempted >= 6, result
    assert "new_group([0])" in module.new_group.__doc__


def test_get_backend_names_the_process_groups_engine(lone):
    assert dist.get_backend() == "MPI" and dist.get_group(0).backend == "MPI"
    group = dist.new_group([0])
    assert dist.get_backend(group) == "MPI" and dist.communication.get_backend(group=group) == "MPI"
    with pytest.raises(TypeError, match="get_backend: argument 'group' expected an eager.distributed.Group or None, "
                                        "got int"):
        dist.get_backend(0)
    dist.destroy_process_group(group)
    with pytest.raises(ValueError, match=r"get_backend: argument 'group' \(id \d+\) was destroyed"):
        dist.get_backend(group)


def test_communication_is_paddles_path_to_the_same_objects():
    stream = communication_stream
    assert dist.communication is communication and communication.stream is stream
    assert set(communication.__all__) == {
        "P2POp", "ReduceOp", "all_gather", "all_gather_object", "all_reduce", "alltoall", "alltoall_single",
        "barrier", "batch_isend_irecv", "broadcast", "broadcast_object_list", "destroy_process_group", "gather", "get_backend", "get_group",
        "irecv", "is_initialized", "isend", "recv", "reduce", "reduce_scatter", "scatter", "scatter_object_list",
        "send", "stream", "wait"}
    for name in communication.__all__:
        if name != "stream":
            assert getattr(communication, name) is getattr(dist, name), name
    assert set(stream.__all__) == set(dist.stream.__all__)
    for name in stream.__all__:
        assert getattr(stream, name) is getattr(dist.stream, name), name


def test_a_collective_write_is_seen_by_autograd(lone):
    x = eager.to_tensor(values(), stop_gradient=False)
    hidden = x * 2.0
    loss = (hidden * hidden).sum()  # saves `hidden`
    dist.all_reduce(hidden)
    with pytest.raises(AutogradError, match="modified by an inplace operation"):
        loss.backward()


def test_reduce_op_and_task_follow_paddle():
    assert [op.name for op in ReduceOp] == ["SUM", "MAX", "MIN", "PROD", "AVG"]
    assert ReduceOp.SUM == 0 and ReduceOp(4) is ReduceOp.AVG
    assert pickle.loads(pickle.dumps(ReduceOp.MAX)) is ReduceOp.MAX
    done = dist.Task()
    assert done.is_completed() and done.wait()
