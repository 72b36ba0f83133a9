"""eager.io.DataLoader with worker processes: the same batches as in-process,
errors from workers, seeding, IterableDataset sharding, timeouts, and no
worker left behind."""
import gc
import multiprocessing
import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import eager
from eager import io

ROOT = Path(__file__).resolve().parents[1]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def assert_no_workers(pids=()):
    assert multiprocessing.active_children() == []
    assert not [pid for pid in set(pids) if pid != os.getpid() and alive(pid)]


class Rows(io.Dataset):
    """Sample i: (row of i's, i, pid of the reading process)."""

    def __init__(self, n=23):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return np.full(3, i, "float32"), i, os.getpid()


def plain(field):
    return field.numpy().tolist() if isinstance(field, eager.Tensor) else field


def as_lists(loader):
    return [[plain(field) for field in batch[:2]] for batch in loader]


@pytest.mark.parametrize("options", [dict(batch_size=4), dict(batch_size=4, shuffle=True, drop_last=True),
                                     dict(batch_size=5, prefetch_factor=1), dict(batch_size=3, prefetch_factor=4),
                                     dict(batch_size=None)])
def test_workers_give_the_batches_of_num_workers_0_in_order(options):
    np.random.seed(11)  # the shuffled order (NumPy's global state, as Paddle)
    expected = as_lists(io.DataLoader(Rows(), num_workers=0, **options))
    np.random.seed(11)  # the shuffled order (NumPy's global state, as Paddle)
    loader = io.DataLoader(Rows(), num_workers=2, **options)
    batches = list(loader)
    assert [[plain(f) for f in b[:2]] for b in batches] == expected
    pids = {int(p) for b in batches for p in np.atleast_1d(plain(b[2]))}
    assert len(pids) == 2 and os.getpid() not in pids  # read by two other processes
    assert_no_workers(pids)


def test_tensor_dataset_and_dict_samples_through_workers():
    x = eager.to_tensor(np.arange(20, dtype="float32").reshape(10, 2))
    ds = io.TensorDataset([x, np.arange(10)])
    got = [(a.numpy(), b.numpy()) for a, b in io.DataLoader(ds, batch_size=3, num_workers=2)]
    np.testing.assert_array_equal(np.concatenate([a for a, _ in got]), x.numpy())
    np.testing.assert_array_equal(np.concatenate([b for _, b in got]), np.arange(10))

    class Named(io.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return {"name": f"n{i}", "v": [i, np.float64(i) / 2]}

    (batch,) = list(io.DataLoader(Named(), batch_size=4, num_workers=2))
    assert batch["name"] == ["n0", "n1", "n2", "n3"]
    assert batch["v"][0].numpy().tolist() == [0, 1, 2, 3] and batch["v"][1].dtype == eager.float64


class FailAt(Rows):
    def __init__(self, bad, error):
        super().__init__()
        self.bad, self.error = bad, error

    def __getitem__(self, i):
        if i == self.bad:
            raise self.error
        return super().__getitem__(i)


class CustomError(Exception):
    pass


def test_a_worker_error_names_the_worker_the_sample_and_keeps_its_type():
    loader = io.DataLoader(FailAt(9, KeyError("no such key")), batch_size=4, num_workers=2)
    with pytest.raises(KeyError) as info:
        list(loader)
    text = str(info.value)
    # Batch 2 (indices 8..11) goes to worker 0 of two in turn.
    assert "DataLoader worker 0 raised KeyError while reading sample index 9" in text
    assert "no such key" in text and "Traceback in DataLoader worker 0" in text and "__getitem__" in text
    assert_no_workers()
    with pytest.raises(CustomError, match="worker 1 raised CustomError while reading sample index 5: boom"):
        list(io.DataLoader(FailAt(5, CustomError("boom")), batch_size=4, num_workers=2))

    class LocalError(Exception):
        pass

    with pytest.raises(RuntimeError, match="LocalError while reading sample index 0: local"):
        list(io.DataLoader(FailAt(0, LocalError("local")), batch_size=4, num_workers=2))
    assert_no_workers()


def test_batches_before_a_failing_one_arrive_first():
    got = []
    with pytest.raises(ValueError, match="sample index 13"):
        for batch in io.DataLoader(FailAt(13, ValueError("x")), batch_size=4, num_workers=2):
            got.append(batch[1].numpy().tolist())
    assert got == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]


def test_collate_and_worker_init_errors_surface():
    def bad_collate(samples):
        raise TypeError("cannot collate")

    with pytest.raises(TypeError, match=r"collating the samples at indices \[0, 1\]: cannot collate"):
        list(io.DataLoader(Rows(), batch_size=2, num_workers=2, collate_fn=bad_collate))

    def bad_init(worker_id):
        raise ValueError(f"init {worker_id}")

    with pytest.raises(ValueError, match="worker 0 raised ValueError while running worker_init_fn: init 0"):
        list(io.DataLoader(Rows(), batch_size=2, num_workers=2, worker_init_fn=bad_init))
    assert_no_workers()


def test_break_and_garbage_collection_stop_the_workers():
    pids = set()
    for batch in io.DataLoader(Rows(), batch_size=2, num_workers=2):
        pids.add(int(batch[2].numpy()[0]))
        break
    gc.collect()
    assert_no_workers(pids)
    iterator = iter(io.DataLoader(Rows(), batch_size=2, num_workers=2))
    pids = {int(next(iterator)[2].numpy()[0]), int(next(iterator)[2].numpy()[0])}
    del iterator
    assert_no_workers(pids)


def test_a_worker_that_dies_is_reported():
    class Dies(Rows):
        def __getitem__(self, i):
            if i == 6:
                os._exit(3)
            return super().__getitem__(i)

    with pytest.raises(RuntimeError, match=r"DataLoader worker 1 \(pid \d+\) exited with code 3"):
        list(io.DataLoader(Dies(), batch_size=4, num_workers=2))
    assert_no_workers()


class SlowAt(Rows):
    def __getitem__(self, i):
        if i >= 4:
            time.sleep(5)
        return super().__getitem__(i)


def test_timeout_names_the_worker_and_stops_the_workers():
    loader = io.DataLoader(SlowAt(), batch_size=4, num_workers=2, timeout=0.3)
    start = time.monotonic()
    iterator = iter(loader)
    assert next(iterator)[1].numpy().tolist() == [0, 1, 2, 3]
    with pytest.raises(RuntimeError, match=r"worker 1 gave no batch within timeout=0.3 s"):
        next(iterator)
    assert time.monotonic() - start < 4  # stopped at once, not left to finish the slow sample
    assert_no_workers()


class Seeded(io.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = io.get_worker_info()
        return (np.random.rand(), random.random(), float(eager.rand([1]).numpy()[0]),
                info.id, info.num_workers, info.seed, isinstance(info.dataset, Seeded))


def test_worker_info_and_per_worker_seeds():
    assert io.get_worker_info() is None
    eager.seed(7)
    first = [[f.numpy() for f in b[:6]] + [b[6]] for b in io.DataLoader(Seeded(), batch_size=2, num_workers=2)]
    eager.seed(7)
    again = [[f.numpy() for f in b[:6]] + [b[6]] for b in io.DataLoader(Seeded(), batch_size=2, num_workers=2)]
    for a, b in zip(first, again):  # repeatable under eager.seed
        for x, y in zip(a[:6], b[:6]):
            np.testing.assert_array_equal(x, y)
    ids = [int(b[3][0]) for b in first]
    assert ids == [0, 1, 0, 1] and all(int(b[4][0]) == 2 for b in first)
    assert all(b[6].numpy().all() for b in first)
    seeds = {int(b[3][0]): int(b[5][0]) for b in first}
    assert seeds[1] == seeds[0] + 1
    # The two workers draw different numbers from every generator.
    for field in range(3):
        assert not np.allclose(first[0][field], first[1][field])
    eager.seed(8)
    other = [b[0].numpy() for b in io.DataLoader(Seeded(), batch_size=2, num_workers=2)]
    assert not np.allclose(other[0], first[0][0])


def test_worker_init_fn_runs_in_each_worker():
    class Reads(io.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return os.environ.get("EAGER_IO_TEST_WORKER", "main")

    def init(worker_id):
        os.environ["EAGER_IO_TEST_WORKER"] = f"w{worker_id}"

    got = [b for b in io.DataLoader(Reads(), batch_size=1, num_workers=2, worker_init_fn=init)]
    assert got == [["w0"], ["w1"], ["w0"], ["w1"]] and "EAGER_IO_TEST_WORKER" not in os.environ


class Stream(io.IterableDataset):
    def __init__(self, n, shard=True):
        self.n, self.shard = n, shard

    def __iter__(self):
        info = io.get_worker_info()
        if info is None or not self.shard:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


def test_iterable_dataset_with_workers_and_sharding():
    batches = [b.numpy().tolist() for b in io.DataLoader(Stream(11), batch_size=3, num_workers=2)]
    # Worker 0 streams 0,2,..,10, worker 1 streams 1,3,..,9; batches alternate between them.
    assert batches == [[0, 2, 4], [1, 3, 5], [6, 8, 10], [7, 9]]
    batches = [b.numpy().tolist() for b in io.DataLoader(Stream(11), batch_size=3, num_workers=2, drop_last=True)]
    assert batches == [[0, 2, 4], [1, 3, 5], [6, 8, 10]]
    # Without sharding every worker reads the whole stream.
    unsharded = [v for b in io.DataLoader(Stream(5, shard=False), batch_size=2, num_workers=3) for v in b.numpy()]
    assert sorted(unsharded) == sorted(list(range(5)) * 3)
    assert list(io.DataLoader(Stream(4), batch_size=None, num_workers=2)) == [0, 1, 2, 3]
    chained = io.ChainDataset([Stream(3, shard=False), Stream(2, shard=False)])
    assert [b.numpy().tolist() for b in io.DataLoader(chained, batch_size=2)] == [[0, 1], [2, 0], [1]]
    assert_no_workers()


def test_persistent_workers_are_kept_between_epochs_and_stopped_with_the_loader():
    loader = io.DataLoader(Rows(9), batch_size=3, num_workers=2, persistent_workers=True)
    epochs = [[(b[1].numpy().tolist(), int(b[2].numpy()[0])) for b in loader] for _ in range(2)]
    assert [v for v, _ in epochs[0]] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]] == [v for v, _ in epochs[1]]
    pids = {p for _, p in epochs[0]}
    assert pids == {p for _, p in epochs[1]} and all(alive(p) for p in pids)
    for _ in loader:  # an abandoned epoch leaves the workers usable
        break
    assert [b[1].numpy().tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    old = iter(loader)
    next(old)
    new = iter(loader)
    with pytest.raises(RuntimeError, match="newer iterator"):
        next(old)
    assert [b[1].numpy().tolist() for b in new] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    del old, new
    stream = io.DataLoader(Stream(6), batch_size=2, num_workers=2, persistent_workers=True)
    assert [b.numpy().tolist() for b in stream] == [[0, 2], [1, 3], [4], [5]]
    assert [b.numpy().tolist() for b in stream] == [[0, 2], [1, 3], [4], [5]]  # each epoch restarts the streams
    del loader, stream
    gc.collect()
    assert_no_workers(pids)


def test_workers_are_stopped_at_interpreter_exit():
    script = textwrap.dedent("""
        import os, numpy as np, eager
        from eager import io
        class D(io.Dataset):
            def __len__(self): return 50
            def __getitem__(self, i): return np.float32(i), os.getpid()
        keep = io.DataLoader(D(), batch_size=2, num_workers=2, persistent_workers=True)
        it = iter(keep)
        pids = {int(next(it)[1].numpy()[0]), int(next(it)[1].numpy()[0])}
        print(" ".join(map(str, sorted(pids))), flush=True)
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    pids = [int(p) for p in done.stdout.split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 5
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(p) for p in pids)


def test_spawn_start_method(monkeypatch):
    from eager.io import worker
    monkeypatch.setattr(worker, "START_METHOD", "spawn")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    batches = list(io.DataLoader(Rows(6), batch_size=2, num_workers=1))
    assert [b[1].numpy().tolist() for b in batches] == [[0, 1], [2, 3], [4, 5]]
    assert int(batches[0][2].numpy()[0]) != os.getpid()
    assert_no_workers()


def test_dataloader_bad_arguments():
    with pytest.raises(ValueError, match="num_workers"):
        io.DataLoader(Rows(), num_workers=-1)
    with pytest.raises(ValueError, match="timeout"):
        io.DataLoader(Rows(), timeout=-1)
    with pytest.raises(ValueError, match="prefetch_factor"):
        io.DataLoader(Rows(), prefetch_factor=0)
    with pytest.raises(ValueError, match="shuffle"):
        io.DataLoader(Stream(3), shuffle=True)
    with pytest.raises(TypeError, match="len"):
        len(io.DataLoader(Stream(3)))
    with pytest.raises(TypeError, match="dataset"):
        io.DataLoader(42)


class RangeStream(io.IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        for i in range(self.start, self.end):
            yield np.array([i])


def shard_in_init(worker_id):
    info = io.get_worker_info()
    dataset = info.dataset  # this worker's own copy
    start, end = dataset.start, dataset.end
    per_worker = -(-(end - start) // info.num_workers)
    dataset.start = start + info.id * per_worker
    dataset.end = min(dataset.start + per_worker, end)


def test_sharding_in_worker_init_fn_as_paddle_documents():
    loader = io.DataLoader(RangeStream(2, 9), num_workers=2, batch_size=1, drop_last=True,
                           worker_init_fn=shard_in_init)
    # Worker 0 streams 2..5, worker 1 streams 6..8; batches alternate while both last.
    assert [int(b.numpy()[0, 0]) for b in loader] == [2, 6, 3, 7, 4, 8, 5]


def _iterate_in_pool_worker(num_workers):
    """Run inside a daemonic multiprocessing.Pool worker: what iterating a loader there gives."""
    loader = io.DataLoader(Rows(4), batch_size=2, num_workers=num_workers)
    eager.seed(5)
    try:
        return [int(x) for batch in loader for x in batch[1].numpy()]
    except RuntimeError as error:
        after = eager.rand([3]).numpy()
        eager.seed(5)
        return str(error), bool(np.array_equal(after, eager.rand([3]).numpy()))


def test_workers_in_a_daemonic_process_are_refused_clearly():
    with multiprocessing.get_context("fork").Pool(1) as pool:
        message, rng_unchanged = pool.apply(_iterate_in_pool_worker, (2,))
        assert pool.apply(_iterate_in_pool_worker, (0,)) == [0, 1, 2, 3]
    assert message.startswith("DataLoader: num_workers=2 starts worker processes, but this code runs in a daemonic")
    assert "use num_workers=0" in message
    assert rng_unchanged                         # refused before the epoch's seed was drawn


def test_a_worker_iterator_has_paddles_next_method():
    loader = io.DataLoader(io.TensorDataset([eager.to_tensor(np.arange(6, dtype="float32"))]), batch_size=3,
                           num_workers=2)
    iterator = iter(loader)
    np.testing.assert_array_equal(iterator.next()[0].numpy(), [0, 1, 2])
    np.testing.assert_array_equal(iterator.next()[0].numpy(), [3, 4, 5])
    with pytest.raises(StopIteration):
        iterator.next()
