"""Regression cases found by re-telling Paddle's own unit tests of paddle.io, second
pass (test/legacy_test: test_imperative_data_loader_base, _exception, _process,
_fds_clear, test_dataloader_early_reset (its dygraph analogue),
test_multiprocess_dataloader_dynamic, _exception, _iterable_dataset_split)
against eager, each checked with the real Paddle 2.6.2.

Found and fixed:
- Paddle 2.6.2's legacy loader paddle.base.io.DataLoader.from_generator (also
  paddle.base.reader.DataLoader, and PyReader) was missing: eager.base listed
  `io` as static-graph API, but 2.6.2 runs it in dygraph (DygraphGeneratorLoader).
  Now eager.base.io / eager.base.reader provide it as 2.6.2 does: capacity
  required (ValueError "Please give value to capacity."), always iterable and
  returning lists (iterable=False / return_list=False warn), set_sample_generator
  (batched with drop_last), set_sample_list_generator (fields stacked),
  set_batch_generator (fields through np.asarray: Python ints int64, floats
  float64, NumPy scalars keep their dtype, 0-d stays 0-d), one place, each
  iteration restarting the generator (a break, then a new epoch: values from
  the start), a reader thread or (use_multiprocess=True) a reader process
  through a queue of `capacity` batches, Paddle's _reader_process_loop (None
  batch: ValueError) and its 60 s QUEUE_GET_TIMEOUT, use_pinned_memory.
  Batches, dtypes and shapes equal to 2.6.2's for 13 generator shapes.

Deliberate differences (docs/training.md): a generator's exception comes back
with its own type (2.6.2: SystemError "Blocking queue is killed"); argument
errors at the call (capacity, batch_size, places, reader); from_dataset is a
RuntimeError (fleet Datasets, static graph).

Paddle quirks left (2.6.2): use_multiprocess=True fails here with "Memory map
failed" (shared memory); an infinite generator broken out of and iterated again
aborts the process (SIGABRT); a DataLoader whose dataset raises with
num_workers=0 hangs after logging it; batches without arrays end the loader at
once; DataLoader(timeout=t) never raises (t is only its poll interval);
DistributedBatchSampler takes rank >= num_replicas and fails when iterated.
paddle.io.DataLoader has no from_generator in 2.6.2 (only
paddle.base.io.DataLoader), so eager.io.DataLoader has none either. Skipped as
Paddle internals: test_imperative_data_loader_exit_func (CleanupFuncRegistrar,
SIGCHLD handlers), _worker_loop and _generate_states.

Checked and agreeing (no change): PyReader over paddle.batch (the imperative
tests' pattern), the from_generator docstring's dygraph example; DataLoader batches of map-style, batched
(batch_size=None), dict/nested/string samples, IterableDataset split by
get_worker_info, batch_sampler, persistent_workers, collate_fn, return_list=False,
worker_init_fn, with 0 and 2 workers; test_multiprocess_dataloader_dataset's
Tensor/Compose/Subset/Chain/Concat/NumpyMix/Complex/SingleField/drop_last cases;
test_batch_sampler's samplers; Dataset/IterableDataset base errors; the argument
checks already documented.
"""
import queue
import time
import warnings

import numpy as np
import pytest

import eager as paddle
from eager import base
from eager.base.reader import _reader_process_loop, use_pinned_memory
from eager.io import generator_loader


def _loader(**kwargs):
    kwargs.setdefault("capacity", 4)
    kwargs.setdefault("return_list", True)
    return base.io.DataLoader.from_generator(**kwargs)


def _values(loader):
    return [[(x.numpy().tolist(), str(x.numpy().dtype), x.shape) for x in batch] for batch in loader()]


def _samples():
    for i in range(5):
        yield i, float(i)


@pytest.mark.parametrize("drop_last, sizes", [(True, [2, 2]), (False, [2, 2, 1])])
def test_from_generator_set_sample_generator_batches_samples(drop_last, sizes):
    loader = _loader().set_sample_generator(_samples, batch_size=2, drop_last=drop_last, places=base.CPUPlace())
    batches = _values(loader)
    assert [b[0][2] for b in batches] == [[n] for n in sizes]
    starts = np.cumsum([0] + sizes[:-1])
    for batch, start, n in zip(batches, starts, sizes):
        # value from Paddle 2.6.2: Python ints become int64, floats float64
        assert batch[0][:2] == (list(range(start, start + n)), "int64")
        assert batch[1][:2] == ([float(v) for v in range(start, start + n)], "float64")
    for x in next(iter(loader)):
        assert x.stop_gradient


def test_from_generator_sample_list_generator_stacks_fields():
    def sample_lists():
        for i in range(2):
            yield [(np.ones(2) * i, i) for _ in range(3)]

    batches = _values(_loader().set_sample_list_generator(sample_lists, places=[base.CPUPlace()]))
    assert batches == [[(np.full((3, 2), float(i)).tolist(), "float64", [3, 2]), ([i] * 3, "int64", [3])]
                       for i in range(2)]


def test_from_generator_batch_generator_fields_as_numpy_makes_them():
    def batches():
        for i in range(2):
            yield [paddle.to_tensor([1.0, 2.0]), np.int32(i), [1, 2], True, np.float16(1.5)]

    got = _values(_loader().set_batch_generator(batches, places="cpu"))
    # values from Paddle 2.6.2 (0-d fields stay 0-d)
    assert got == [[([1.0, 2.0], "float32", [2]), (i, "int32", []), ([1, 2], "int64", [2]), (True, "bool", []),
                    (1.5, "float16", [])] for i in range(2)]


def test_from_generator_iteration_restarts_the_generator():
    def infinite():
        n = 0
        while True:
            yield (np.ones([2, 3]) * n).astype("float32"),
            n += 1

    loader = _loader(capacity=10).set_batch_generator(infinite)
    assert loader() is loader and iter(loader) is loader
    for _ in range(3):  # test_dataloader_early_reset, dygraph: each epoch starts at 0 again
        seen = []
        for (x,) in loader():
            seen.append(float(x.numpy()[0, 0]))
            if len(seen) == 4:
                break
        assert seen == [0.0, 1.0, 2.0, 3.0]


def test_from_generator_multiprocess_reads_the_same_batches():
    def random_batches():
        for _ in range(3):
            yield [np.random.rand(2).astype("float32"), np.arange(2)]

    results = []
    for use_multiprocess in (False, True):
        np.random.seed(5)
        loader = _loader(use_multiprocess=use_multiprocess).set_batch_generator(random_batches)
        results.append([[x.numpy() for x in batch] for batch in loader])
    np.random.seed(5)
    expected = [np.random.rand(2).astype("float32") for _ in range(3)]
    for got in results:
        assert len(got) == 3
        for (x, y), e in zip(got, expected):
            np.testing.assert_array_equal(x, e)
            np.testing.assert_array_equal(y, np.arange(2))


def test_from_generator_multiprocess_break_and_reiterate():
    loader = _loader(capacity=50, use_multiprocess=True)
    loader.set_batch_generator(lambda: ([np.full([8, 4], i, "float32")] for i in range(100)), places=base.CPUPlace())
    for _ in range(2):  # test_imperative_data_loader_fds_clear
        for step, (x,) in enumerate(loader()):
            assert x.shape == [8, 4] and float(x.numpy()[0, 0]) == step
            if step == 30:
                break


@pytest.mark.parametrize("capacity", [None, 0])
def test_from_generator_needs_capacity(capacity):
    with pytest.raises(ValueError, match="Please give value to capacity"):
        base.io.DataLoader.from_generator(capacity=capacity)


@pytest.mark.parametrize("capacity, error", [("a", TypeError), (2.5, TypeError), (True, TypeError), (-1, ValueError)])
def test_from_generator_bad_capacity(capacity, error):
    with pytest.raises(error, match="from_generator: argument 'capacity'"):
        base.io.DataLoader.from_generator(capacity=capacity)


def test_from_generator_flags_are_bools():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # refused before any warning
        with pytest.raises(TypeError, match="argument 'use_multiprocess' expected a bool"):
            base.io.DataLoader.from_generator(capacity=2, use_multiprocess=1)


def test_from_generator_dygraph_is_iterable_and_returns_lists_with_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loader = base.io.DataLoader.from_generator(capacity=2, iterable=False)
    assert loader.iterable and loader._return_list
    assert [str(w.message).split(".")[0] for w in caught] == [
        "Please NOTE: DygraphGeneratorLoader supports iterable mode only",
        "Please NOTE: DygraphGeneratorLoader supports returning as list only"]


def _failing():
    yield [np.array([1])]
    raise KeyError("boom")


@pytest.mark.parametrize("use_multiprocess", [False, True])
def test_from_generator_generator_error_comes_back_with_its_type(use_multiprocess):
    loader = _loader(use_multiprocess=use_multiprocess).set_batch_generator(_failing)
    seen = []
    with pytest.raises(KeyError, match="boom"):
        for (x,) in loader():
            seen.append(x.numpy().tolist())
    assert seen == [[1]]


@pytest.mark.parametrize("use_multiprocess", [False, True])
def test_from_generator_ragged_batch_is_value_error(use_multiprocess):
    # test_imperative_data_loader_exception: [[1, 2], [1]] is not a regular array
    loader = _loader(use_multiprocess=use_multiprocess).set_batch_generator(lambda: iter([[[[1, 2], [1]]]] * 4))
    with pytest.raises(ValueError, match="field 0 of a batch is ragged"):
        list(loader())


def test_reader_process_loop_puts_arrays_then_none_and_refuses_a_none_batch():
    q = queue.Queue(6)
    _reader_process_loop(lambda: ((np.ones([2, 3]) * i, np.arange(2)) for i in range(4)), q)
    got = [q.get(timeout=5) for _ in range(5)]
    assert got[-1] is None
    for i, (x, y) in enumerate(got[:-1]):
        np.testing.assert_array_equal(x, np.ones([2, 3]) * i)
    with pytest.raises(ValueError, match="a batch must be a list or tuple"):
        _reader_process_loop(lambda: iter([None]), queue.Queue(2))


def test_from_generator_process_timeout():
    def slow():
        time.sleep(30)
        yield [np.zeros(1)]

    loader = _loader(use_multiprocess=True).set_batch_generator(slow)
    loader._timeout = 0.5  # Paddle's QUEUE_GET_TIMEOUT is 60 s
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="gave no batch within 0.5 s"):
        list(loader())
    assert time.monotonic() - start < 10


def test_from_generator_argument_and_order_errors():
    loader = _loader()
    with pytest.raises(RuntimeError, match="data source has not been set"):
        iter(loader)
    with pytest.raises(RuntimeError, match="next\\(\\) before the loader was iterated"):
        next(loader)
    with pytest.raises(ValueError, match="Number of places must be 1"):
        loader.set_batch_generator(_samples, places=[base.CPUPlace(), base.CPUPlace()])
    with pytest.raises(ValueError, match="'batch_size' expected a positive int, got 0"):
        loader.set_sample_generator(_samples, batch_size=0)
    with pytest.raises(TypeError, match="'batch_size' expected a positive int"):
        loader.set_sample_generator(_samples, batch_size="2")
    with pytest.raises(TypeError, match="'reader' expected a callable"):
        loader.set_batch_generator(5)
    with pytest.raises(RuntimeError, match="from_dataset"):
        base.io.DataLoader.from_dataset(None, base.CPUPlace())


def test_pyreader_decorates_the_loader():
    reader = base.io.PyReader(capacity=2, return_list=True)
    reader.decorate_sample_generator(lambda: ((i,) for i in range(3)), batch_size=2, drop_last=False)
    assert [[x.numpy().tolist() for x in b] for b in reader()] == [[[0, 1]], [[2]]]  # as Paddle 2.6.2


def test_use_pinned_memory_switch():
    before = use_pinned_memory()
    try:
        use_pinned_memory(False)
        assert use_pinned_memory() is False
        with pytest.raises(TypeError, match="use_pinned_memory"):
            use_pinned_memory(1)
    finally:
        generator_loader._PINNED[0] = before


@pytest.mark.parametrize("use_multiprocess", [False, True])
def test_from_generator_batches_land_on_the_current_or_given_place(device, use_multiprocess):
    # test_imperative_data_loader_base.test_generator_no_places: no places -> the current place
    def batches():
        for i in range(2):
            yield [np.full([2, 3], i, "float32")]

    loader = _loader(use_multiprocess=use_multiprocess).set_batch_generator(batches)
    got = [x for (x,) in loader()]
    assert [str(x.place) for x in got] == [str(paddle.framework.current_place())] * 2
    for i, x in enumerate(got):
        np.testing.assert_array_equal(x.numpy(), np.full([2, 3], i, "float32"))
    loader.set_batch_generator(batches, places=paddle.CPUPlace())
    assert all(x.place.is_cpu_place() for (x,) in loader())


def test_from_generator_multiprocess_without_fork_reads_in_a_thread(monkeypatch):
    # Paddle 2.6.2 turns use_multiprocess off with a warning where it cannot fork (macOS, Windows)
    monkeypatch.setattr(paddle.io.worker, "START_METHOD", "spawn")
    with pytest.warns(UserWarning, match="multiprocess mode needs the fork start method"):
        loader = _loader(use_multiprocess=True)
    loader.set_sample_generator(lambda: iter([(1,), (2,), (3,)]), batch_size=2, drop_last=False)
    assert [b[0].numpy().tolist() for b in loader()] == [[1, 2], [3]]


def test_pyreader_sample_list_generator_of_paddle_batch():
    # the dygraph pattern of test_imperative_optimizer / _resnet: PyReader(capacity=1) over paddle.batch
    images = np.random.RandomState(0).rand(10, 784).astype("float32")

    def samples():
        for i in range(10):
            yield images[i].reshape(1, 28, 28), np.array(i % 7, "int64").reshape(1)

    reader = base.io.PyReader(capacity=1, return_list=True)
    reader.decorate_sample_list_generator(paddle.batch(samples, batch_size=4, drop_last=True), places=base.CPUPlace())
    for _ in range(2):
        got = [(x.numpy(), y.numpy()) for x, y in reader()]
        assert len(got) == 2
        for n, (x, y) in enumerate(got):
            np.testing.assert_array_equal(x, images[4 * n:4 * n + 4].reshape(4, 1, 28, 28))
            np.testing.assert_array_equal(y, (np.arange(4 * n, 4 * n + 4) % 7).reshape(4, 1))


def test_from_generator_copies_the_tensors_a_generator_yields(device):
    source = paddle.to_tensor(np.array([1.0, 2.0], "float32"), stop_gradient=False)
    loader = _loader().set_batch_generator(lambda: iter([[source, np.ones(2, "float32")]]))
    ((x, ones),) = [batch for batch in loader()]
    assert x is not source and x.stop_gradient and ones.stop_gradient
    assert str(x.place) == str(source.place)
    with paddle.no_grad():
        source.set_value(np.array([5.0, 6.0], "float32"))
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])
