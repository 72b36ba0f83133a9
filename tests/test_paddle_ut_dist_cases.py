"""Paddle's own distributed unit tests (test/collective/*_api_dygraph.py,
communication_stream_*_api_dygraph.py, collective_batch_isend_irecv.py,
fleet/new_group.py, parallel_dygraph_gradient_check.py,
test_spawn_and_init_parallel_env.py) as an oracle, re-told with their NumPy
expectations and checked against Paddle 2.6.2 run on two CPU ranks (Gloo).

What they found, one test each below:

- ``P2POp`` and ``batch_isend_irecv`` were missing (Paddle 2.6.2 has both in
  ``paddle.distributed`` and ``paddle.distributed.communication``); Paddle's
  test sends a ring of ``isend``/``irecv``.
- A non-Tensor argument, a non-list ``tensor_list`` and an unknown ``op``
  raised TypeError only; Paddle raises ValueError there (its argument
  parsing's "must be Tensor", "Unknown reduce_op type"): now an
  ``ArgumentKindError``, both.
- ``spawn`` refused Paddle 1.x options (``selected_devices``, ...) that Paddle
  2.6.2 ignores with a DeprecationWarning; an unknown option is also Paddle's
  ValueError.
- ``ParallelEnv`` had no ``device_type``, ``current_endpoint``,
  ``trainer_endpoints``, ``nrings``.
- ``python -m eager.distributed.launch`` refused Paddle's ``--devices`` /
  ``--gpus`` (one rank per listed GPU).
- Under ``EAGER_DISTRIBUTED_DEBUG=1`` an ``irecv`` read the sender's signature
  at once, blocking: two ranks that each irecv before they isend (a
  ``batch_isend_irecv`` in that order) deadlocked; it is now checked at the wait.
- Tasks had no ``is_sync()`` / ``synchronize()``; an empty list given to an
  asynchronous ``all_gather``/``alltoall``/``gather`` stayed empty until the
  wait (Paddle's has its tensors at once, written at the wait).

Everything else the ported tests check agreed with Paddle 2.6.2 (or, where Gloo
lacks the collective, with the tests' NumPy expectations): every collective and
stream collective over float16/32/64, int8/32/64, uint8, bool, bfloat16 and 0-d
tensors, sync and async; objects; groups; DataParallel's gradients, ``no_sync``,
``find_unused_parameters``, state_dict keys; fleet's default-strategy training.
"""
from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import eager
import eager.distributed as dist
import eager.distributed.communication as communication
from mpi_run import ROOT, require_mpi, run_ranks

TWO_RANKS = '''
import os

import numpy as np
import eager
import eager.distributed as dist
import eager.distributed.communication as communication

dist.init_parallel_env()
rank, n = dist.get_rank(), dist.get_world_size()
assert n == 2

# Paddle's collective_batch_isend_irecv: a ring, every rank sends to the next and
# receives from the previous in one batch
eager.seed(1024)
base = eager.randint(0, 100, [2000])
dist.broadcast(base, src=0)
send_t = base + rank
recv_t = eager.empty(shape=[2000], dtype=send_t.dtype)
send_op = dist.P2POp(dist.isend, send_t, (rank + 1) % n)
recv_op = dist.P2POp(dist.irecv, recv_t, (rank - 1 + n) % n)
tasks = dist.batch_isend_irecv([send_op, recv_op])
assert len(tasks) == 2
for task in tasks:
    task.wait()
np.testing.assert_array_equal(recv_t.numpy(), base.numpy() + (rank - 1 + n) % n)

# the communication path's objects, on a group, with 0-d bfloat16 tensors
group = dist.new_group([0, 1])
mine = eager.to_tensor(np.float32(1.5 + rank)).cast("bfloat16")
theirs = eager.zeros([], dtype="bfloat16")
tasks = communication.batch_isend_irecv([
    communication.P2POp(communication.irecv, theirs, 1 - rank, group),
    communication.P2POp(communication.isend, mine, 1 - rank, group)])
for task in tasks:
    task.wait()
assert theirs.shape == [] and float(theirs.cast("float32")) == 1.5 + (1 - rank)

# a bad op in the list is refused before any message starts: the ranks stay in step
try:
    dist.batch_isend_irecv([dist.P2POp(dist.isend, send_t, 1 - rank), dist.P2POp(dist.irecv, recv_t, rank)])
except ValueError as error:
    assert "p2p_op_list[1].peer" in str(error), error
else:
    raise AssertionError("a receive from this rank itself was accepted")
t = eager.to_tensor([float(rank)])
dist.all_reduce(t)
assert t.numpy().tolist() == [1.0]

# Paddle 2.6.2's tasks also have is_sync() and synchronize(); an empty list given to
# an asynchronous all_gather / alltoall / gather (on dst) has its tensors at once
x = eager.to_tensor([float(rank), 1.0])
parts = []
task = dist.all_gather(parts, x, sync_op=False)
assert len(parts) == 2 and not task.is_sync()
assert task.synchronize() is None and task.is_completed()
assert [p.numpy().tolist() for p in parts] == [[0.0, 1.0], [1.0, 1.0]]
out = []
task = dist.alltoall([x * 1, x * 2], out, sync_op=False)
assert len(out) == 2
task.wait()
assert [o.numpy().tolist() for o in out] == [[0.0, 1.0 + rank], [1.0 + rank, 1.0 + rank]]
found = []
task = dist.gather(x, found, dst=0, sync_op=False)
assert len(found) == (2 if rank == 0 else 0)
task.wait()
assert [f.numpy().tolist() for f in found] == ([[0.0, 1.0], [1.0, 1.0]] if rank == 0 else [])
assert dist.all_reduce(x).is_sync()

# under EAGER_DISTRIBUTED_DEBUG an irecv posted before the isend does not block (it
# checks the sender's shape at the wait): both ranks receiving first used to deadlock
os.environ["EAGER_DISTRIBUTED_DEBUG"] = "1"
mine, theirs = eager.to_tensor([float(rank), 7.0]), eager.zeros([2])
tasks = dist.batch_isend_irecv([dist.P2POp(dist.irecv, theirs, 1 - rank), dist.P2POp(dist.isend, mine, 1 - rank)])
for task in tasks:
    task.wait()
assert theirs.numpy().tolist() == [float(1 - rank), 7.0]
short = eager.zeros([1])
receiving = dist.irecv(short, 1 - rank)
sending = dist.isend(mine, 1 - rank)
try:
    receiving.wait()
except RuntimeError as error:
    assert "sent a tensor of paddle.float32[2], but this rank receives into paddle.float32[1]" in str(error), error
else:
    raise AssertionError("a receive into a tensor of the wrong shape went unnoticed")
sending.wait()
os.environ["EAGER_DISTRIBUTED_DEBUG"] = "0"
dist.barrier()
open(f"ok_{rank}", "w").write("ok")
'''


def test_batch_isend_irecv_ring_and_tasks_on_two_ranks(tmp_path):
    run_ranks(2, TWO_RANKS, tmp_path, timeout=90)
    assert sorted(p.name for p in tmp_path.glob("ok_*")) == ["ok_0", "ok_1"]


def test_p2p_op_and_batch_are_paddles_names_and_check_their_arguments(lone):
    assert communication.P2POp is dist.P2POp and communication.batch_isend_irecv is dist.batch_isend_irecv
    t = eager.to_tensor([1.0])
    op = dist.P2POp(dist.isend, t, 0)
    assert op.op is dist.isend and op.tensor is t and op.peer == 0 and op.group is dist.get_group(0)
    # errors from Paddle 2.6.2: RuntimeError for an op that is not isend/irecv and for a bad list
    with pytest.raises(RuntimeError, match="argument 'op' expected eager.distributed.isend"):
        dist.P2POp(dist.send, t, 0)
    for bad in ("x", (op,), [op, 3]):
        with pytest.raises(RuntimeError, match="argument 'p2p_op_list' expected a non-empty list"):
            dist.batch_isend_irecv(bad)
    with pytest.raises(RuntimeError, match="non-empty"):  # Paddle: IndexError (docs/distributed.md)
        dist.batch_isend_irecv([])
    with pytest.raises(TypeError, match=r"p2p_op_list\[0\].tensor"):
        dist.batch_isend_irecv([dist.P2POp(dist.isend, np.ones(1), 0)])


def test_wrong_kinds_are_also_paddles_value_errors(lone):
    t = eager.to_tensor([1.0, 2.0])
    cases = [
        ("all_reduce: argument 'tensor' expected a Tensor", lambda: dist.all_reduce(np.ones(2, "float32"))),
        ("all_reduce: argument 'tensor' expected a Tensor", lambda: dist.all_reduce([1.0, 2.0])),
        ("broadcast: argument 'tensor' expected a Tensor", lambda: dist.broadcast(np.ones(2), src=0)),
        ("send: argument 'tensor' expected a Tensor", lambda: dist.send(np.ones(2), dst=1)),
        ("all_gather: argument 'tensor' expected a Tensor", lambda: dist.all_gather([], np.ones(2))),
        ("all_gather: argument 'tensor_list' expected a list", lambda: dist.all_gather("x", t)),
        ("all_reduce: argument 'op' expected", lambda: dist.all_reduce(t, op=99)),
        ("all_reduce: argument 'op' expected", lambda: dist.all_reduce(t, op="sum")),
        ("reduce: argument 'op' expected", lambda: dist.reduce(t, dst=0, op=99)),
        ("reduce_scatter: argument 'tensor_list' expected a list", lambda: dist.reduce_scatter(t, t)),
    ]
    for message, call in cases:
        for kind in (ValueError, TypeError):  # ValueError: Paddle 2.6.2's; TypeError: eager's rule
            with pytest.raises(kind, match=message):
                call()
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])


def _plus_rank(x):
    dist.init_parallel_env()
    return x + dist.get_rank()


def test_spawn_ignores_paddles_deprecated_options_and_refuses_unknown_ones():
    with pytest.raises(ValueError, match="unexpected option 'error'"):  # Paddle 2.6.2: ValueError
        dist.spawn(_plus_rank, args=(1,), nprocs=2, error="error")
    require_mpi()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        context = dist.spawn(_plus_rank, args=(10,), nprocs=2, selected_devices="0,1", started_port=6170)
    assert [q.get() for q in context.return_queues] == [10, 11]
    found = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert any("'selected_devices' is deprecated" in m for m in found), found
    assert any("'started_port' is deprecated" in m for m in found), found


def test_parallel_env_has_paddles_launcher_fields(monkeypatch):
    for name in ("PADDLE_XCCL_BACKEND", "PADDLE_CURRENT_ENDPOINT", "PADDLE_TRAINER_ENDPOINTS", "FLAGS_nccl_nrings"):
        monkeypatch.delenv(name, raising=False)
    penv = dist.ParallelEnv()
    # Paddle 2.6.2's values without a launcher
    assert (penv.device_type, penv.current_endpoint, penv.trainer_endpoints, penv.nrings) == ("", "", [""], 1)
    monkeypatch.setenv("PADDLE_CURRENT_ENDPOINT", "127.0.0.1:6171")
    monkeypatch.setenv("PADDLE_TRAINER_ENDPOINTS", "127.0.0.1:6170,127.0.0.1:6171")
    monkeypatch.setenv("FLAGS_nccl_nrings", "2")
    assert penv.current_endpoint == "127.0.0.1:6171"
    assert penv.trainer_endpoints == ["127.0.0.1:6170", "127.0.0.1:6171"]
    assert penv.nrings == 2
    monkeypatch.setenv("FLAGS_nccl_nrings", "9")
    with pytest.raises(ValueError, match="FLAGS_nccl_nrings expected 1 to 8, got 9"):
        penv.nrings


def test_launch_takes_paddles_devices_option(tmp_path):
    require_mpi()
    script = tmp_path / "train.py"
    script.write_text(
        "import os\n"
        "import eager.distributed as dist\n"
        "dist.init_parallel_env()\n"
        "rank = dist.get_rank()\n"
        "# one file per rank: two ranks' prints can interleave within a line of the launcher's stdout\n"
        "with open(f'rank{rank}.txt', 'w') as f:\n"
        "    f.write(f\"rank {rank} {dist.get_world_size()} {os.environ.get('CUDA_VISIBLE_DEVICES')}\")\n")
    environment = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    for option in ("--gpus", "--devices"):  # Paddle's two spellings: one rank per listed GPU
        result = subprocess.run([sys.executable, "-m", "eager.distributed.launch", option, "0,1", str(script)],
                                capture_output=True, text=True, timeout=90, env=environment, cwd=str(tmp_path))
        assert result.returncode == 0, result.stderr
        lines = [(tmp_path / f"rank{rank}.txt").read_text() for rank in (0, 1)]
        assert lines == ["rank 0 2 0,1", "rank 1 2 0,1"], result.stdout
        for rank in (0, 1):
            (tmp_path / f"rank{rank}.txt").unlink()
    result = subprocess.run([sys.executable, "-m", "eager.distributed.launch", "--devices", "a,b", str(script)],
                            capture_output=True, text=True, timeout=90, env=environment, cwd=str(tmp_path))
    assert result.returncode == 2 and "--devices expected comma-separated GPU ids" in result.stderr
