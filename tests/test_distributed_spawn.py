"""eager.distributed.spawn: a function run as 2 MPI ranks from Python returns
each rank's result, a failing rank is named with its traceback, a script's
``__main__`` function works under the ``if __name__ == "__main__"`` guard, and
bad arguments are refused before anything starts. Every run is under a timeout.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import eager
import eager.distributed as dist
from eager.distributed import spawning
from eager.distributed.spawning import MultiprocessContext, SpawnError
from mpi_run import ROOT, require_mpi

TIMEOUT = 120


# -- functions the ranks import (top level of this module) ----------------------
def _sum_ranks(scale):
    dist.init_parallel_env()
    rank, world = dist.get_rank(), dist.get_world_size()
    t = eager.to_tensor(np.array([rank + 1.0, 10.0 * rank]))
    dist.all_reduce(t)
    return rank, world, (t.numpy() * scale).tolist()


def _rank_one_raises(message):
    dist.init_parallel_env()
    if dist.get_rank() == 1:
        raise ValueError(message)
    dist.barrier()  # rank 0 would wait here forever if the failure did not end the job
    return "unreachable"


def _exits_with_code():
    dist.init_parallel_env()
    if dist.get_rank() == 0:
        sys.exit(7)
    dist.barrier()


def _joined(context: MultiprocessContext) -> MultiprocessContext:
    """Joins under the test timeout (stopping the ranks and failing on a hang)."""
    if not context.join(timeout=TIMEOUT):
        context.terminate()
        pytest.fail(f"the spawned ranks did not finish within {TIMEOUT} s")
    return context


def test_two_ranks_run_the_function_and_return_their_results():
    require_mpi()
    context = dist.spawn(_sum_ranks, args=(2.0,), nprocs=2, join=False)
    assert isinstance(context, MultiprocessContext)
    _joined(context)
    results = [queue.get_nowait() for queue in context.return_queues]
    # the all_reduce sums [r + 1, 10 r] over r = 0, 1: [3, 10], times the argument
    assert results == [(0, 2, [6.0, 20.0]), (1, 2, [6.0, 20.0])]
    assert context.join() is True  # joining again is harmless


def test_join_true_waits_and_a_failing_rank_is_named_with_its_traceback():
    require_mpi()
    outcome = {}

    def run():
        try:
            dist.spawn(_rank_one_raises, args=("rank one is broken",), nprocs=2)
        except BaseException as error:  # noqa: BLE001  (inspected below)
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(TIMEOUT)
    assert not thread.is_alive(), f"spawn(join=True) did not return within {TIMEOUT} s"
    error = outcome.get("error")
    assert isinstance(error, SpawnError), repr(error)
    assert error.rank == 1 and error.exit_code != 0
    text = str(error)
    assert "rank 1 of 2 failed" in text
    assert "ValueError: rank one is broken" in text and "_rank_one_raises" in text
    assert "ValueError: rank one is broken" in error.tracebacks[1]


def test_a_nonzero_sys_exit_on_one_rank_ends_the_job():
    require_mpi()
    context = dist.spawn(_exits_with_code, nprocs=2, join=False)
    with pytest.raises(SpawnError, match="rank 0 of 2 failed") as caught:
        _joined(context)
    assert "exited with code 7" in caught.value.tracebacks[0]


def test_a_scripts_main_function_under_the_main_guard(tmp_path):
    require_mpi()
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent('''
        import eager, eager.distributed as dist

        print("module body ran")


        def train(base):
            dist.init_parallel_env()
            t = eager.to_tensor([base + dist.get_rank()])
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
            return float(t)


        if __name__ == "__main__":
            context = dist.spawn(train, args=(5.0,), nprocs=2)
            print("results", [q.get() for q in context.return_queues])
    '''))
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    assert "results [6.0, 6.0]" in result.stdout
    # the parent and each rank run the module body (a rank re-runs it as __mp_main__); only the parent spawns
    assert result.stdout.count("module body ran") == 3
    assert result.stdout.count("results") == 1


# -- argument errors: raised before any process starts ----------------------------
def _top_level():
    return None


def test_bad_arguments_are_refused_before_starting(monkeypatch):
    started = []
    monkeypatch.setattr(spawning.subprocess, "Popen", lambda *a, **k: started.append(a))

    def nested():
        return None

    cases = [
        (TypeError, "must be defined at the top level", lambda: dist.spawn(lambda: None, nprocs=2)),
        (TypeError, "must be defined at the top level", lambda: dist.spawn(nested, nprocs=2)),
        (TypeError, "argument 'func' expected a function", lambda: dist.spawn(3, nprocs=2)),
        (TypeError, "argument 'args' expected a tuple", lambda: dist.spawn(_top_level, args=5)),
        (TypeError, "cannot be pickled", lambda: dist.spawn(_top_level, args=(threading.Lock(),), nprocs=2)),
        (ValueError, "positive number of ranks or -1", lambda: dist.spawn(_top_level, nprocs=0)),
        (TypeError, "argument 'nprocs' expected an int", lambda: dist.spawn(_top_level, nprocs=True)),
        (TypeError, "argument 'join' expected a bool", lambda: dist.spawn(_top_level, nprocs=2, join=1)),
        (TypeError, "unexpected option 'gpu'", lambda: dist.spawn(_top_level, nprocs=2, gpu="0")),
        (ValueError, "start_method='fork' is not supported", lambda: dist.spawn(_top_level, start_method="fork")),
        (ValueError, "this machine only", lambda: dist.spawn(_top_level, nprocs=2, ips="10.0.0.1,10.0.0.2")),
        (ValueError, "comma-separated GPU ids", lambda: dist.spawn(_top_level, gpus="a,b")),
        (ValueError, "no XPU", lambda: dist.spawn(_top_level, nprocs=2, xpus="0")),
    ]
    for kind, text, call in cases:
        with pytest.raises(kind, match=text):
            call()
    assert started == []


def test_nprocs_minus_one_counts_cores_or_gpus():
    assert spawning._nprocs(-1, None) == len(os.sched_getaffinity(0))
    assert spawning._nprocs(-1, ["0", "3"]) == 2
    assert spawning._nprocs(3, ["0"]) == 3
    child = spawning._child_env(["0", "3"])
    assert child["CUDA_VISIBLE_DEVICES"] == "0,3"
    assert not any(name.startswith(("PMI_", "HYDRA_")) for name in child)


def test_missing_mpi_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(spawning.env, "find_mpiexec", lambda: None)
    with pytest.raises(RuntimeError, match=r"pip install eager-phi\[distributed\]"):
        dist.spawn(_top_level, nprocs=2)


def test_launch_is_importable_and_callable_as_in_paddle(monkeypatch):
    import eager.distributed.launch as launch_module
    assert dist.launch is launch_module and callable(dist.launch)
    monkeypatch.setattr(sys, "argv", ["launch", "--help"])
    with pytest.raises(SystemExit) as stop:
        dist.launch()
    assert stop.value.code == 0
