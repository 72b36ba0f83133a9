"""eager.distributed.gloo_*: Paddle's CPU barrier among processes."""
import multiprocessing
import socket
import threading
import time
from contextlib import closing

import pytest

import eager
from eager import distributed as dist
from eager.distributed import gloo


def free_endpoint():
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def rank_main(rank, size, endpoint, times):
    dist.gloo_init_parallel_env(rank, size, endpoint)
    for round_ in range(2):
        if rank == (round_ + 1) % size:                   # a different late rank each round
            time.sleep(0.3)
        arrived = time.time()
        dist.gloo_barrier()
        times.put((round_, rank, arrived, time.time()))
    dist.gloo_release()


def test_no_rank_passes_a_barrier_before_the_last_one_arrives():
    context = multiprocessing.get_context("fork")
    times = context.Queue()
    endpoint = free_endpoint()
    ranks = [context.Process(target=rank_main, args=(r, 3, endpoint, times)) for r in range(3)]
    for p in ranks:
        p.start()
    records = [times.get(timeout=60) for _ in range(6)]
    for p in ranks:
        p.join(timeout=60)
    assert [p.exitcode for p in ranks] == [0, 0, 0]
    for round_ in range(2):
        rows = [r for r in records if r[0] == round_]
        assert sorted(r[1] for r in rows) == [0, 1, 2]
        last_arrival = max(r[2] for r in rows)
        assert all(passed >= last_arrival for _, _, _, passed in rows)


def test_a_group_of_one_and_release():
    dist.gloo_init_parallel_env(0, 1, "127.0.0.1:0")
    try:
        dist.gloo_barrier()
        dist.gloo_barrier()
        with pytest.raises(RuntimeError, match="already in a group"):
            dist.gloo_init_parallel_env(0, 1, "127.0.0.1:0")
    finally:
        dist.gloo_release()
    with pytest.raises(RuntimeError, match=r"gloo_barrier: no group: call gloo_init_parallel_env"):
        dist.gloo_barrier()
    assert eager.distributed.gloo_release is dist.gloo.gloo_release


@pytest.mark.parametrize("args, error, message", [
    ((2, 2, "127.0.0.1:1"), ValueError, r"'rank_id' expected an int in \[0, 2\), got 2"),
    ((0, 0, "127.0.0.1:1"), ValueError, "'rank_num' expected an int >= 1, got 0"),
    ((0.0, 1, "127.0.0.1:1"), TypeError, "'rank_id' expected an int, got float"),
    ((0, 1, "localhost"), ValueError, "'server_endpoint' expected 'ip:port', got 'localhost'"),
    ((0, 1, 6170), TypeError, "'server_endpoint' expected an 'ip:port' str, got int"),
])
def test_bad_arguments_are_refused(args, error, message):
    with pytest.raises(error, match="gloo_init_parallel_env: argument " + message):
        dist.gloo_init_parallel_env(*args)
    with pytest.raises(RuntimeError, match="no group"):
        dist.gloo_release()


def test_launch_utils_add_arguments():
    import argparse
    from eager.distributed.utils import launch_utils
    parser = argparse.ArgumentParser()
    launch_utils.add_arguments("name", str, "Jonh", "User name.", parser)
    launch_utils.add_arguments("verbose", bool, False, "Talk.", parser)
    launch_utils.add_arguments("nproc", int, 1, "Ranks.", parser, choices=[1, 2, 4])
    args = parser.parse_args(["--verbose", "True", "--nproc", "4"])
    assert (args.name, args.verbose, args.nproc) == ("Jonh", True, 4)
    assert parser.parse_args(["--verbose", "off"]).verbose is False
    assert "User name. Default: Jonh." in parser.format_help()
    with pytest.raises(SystemExit):
        parser.parse_args(["--verbose", "maybe"])
    with pytest.raises(TypeError, match="add_arguments: argument 'argparser'"):
        launch_utils.add_arguments("x", int, 0, "X.", None)


def test_a_barrier_aborted_right_after_it_tripped_still_passes_its_waiters():
    # Rank 0 passes a barrier and releases the group (abort) before the other ranks'
    # handler threads have woken: with threading.Barrier they read the aborted state on
    # waking and told their ranks the barrier was broken (a flaky failure of the test above).
    barrier = gloo._Barrier(3)
    results = []
    waiters = [threading.Thread(target=lambda: results.append(barrier.wait(10.0))) for _ in range(2)]
    for thread in waiters:
        thread.start()
    while barrier._arrived < 2:
        time.sleep(0.001)
    assert barrier.wait(10.0) is True
    barrier.abort()
    for thread in waiters:
        thread.join(timeout=10)
    assert results == [True, True]
    assert barrier.wait(10.0) is False      # a later barrier can never complete
