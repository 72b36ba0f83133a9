"""eager.reader: Paddle's legacy reader decorators."""
import doctest
import random
import threading
import time

import pytest

import eager
from eager import reader
from eager.reader import decorator


def counting(n, calls=None):
    """A reader of 0..n-1 that counts its passes in ``calls``."""
    def read():
        if calls is not None:
            calls.append(1)
        yield from range(n)
    return read


def test_docstring_examples_run():
    assert doctest.testmod(decorator).failed == 0


def test_reachable_as_paddle_names_them():
    assert eager.reader.chain is reader.chain is decorator.chain
    assert issubclass(reader.ComposeNotAligned, ValueError)


def test_cache_reads_once_and_replays():
    calls = []
    cached = reader.cache(counting(4, calls))
    assert list(cached()) == [0, 1, 2, 3] and list(cached()) == [0, 1, 2, 3]
    assert len(calls) == 1


def test_each_call_of_a_decorated_reader_is_a_fresh_pass():
    composed = reader.firstn(reader.map_readers(lambda a, b: a * b, counting(5), counting(3)), 2)
    assert list(composed()) == [0, 1] and list(composed()) == [0, 1]
    assert list(reader.map_readers(lambda a, b: a + b, counting(5), counting(3))()) == [0, 2, 4]


def test_shuffle_permutes_within_windows():
    random.seed(3)
    out = list(reader.shuffle(counting(10), 4)())
    assert sorted(out) == list(range(10))
    assert sorted(out[:4]) == [0, 1, 2, 3] and sorted(out[4:8]) == [4, 5, 6, 7] and sorted(out[8:]) == [8, 9]
    seen = {tuple(reader.shuffle(counting(6), 6)()) for _ in range(30)}
    assert len(seen) > 1


def test_chain_and_compose():
    assert list(reader.chain(counting(2), counting(3))()) == [0, 1, 0, 1, 2]
    pairs = reader.compose(counting(2), lambda: [("a", "b"), ("c", "d")])
    assert list(pairs()) == [(0, "a", "b"), (1, "c", "d")]
    with pytest.raises(reader.ComposeNotAligned, match=r"compose: readers \[0\] ended"):
        list(reader.compose(counting(1), counting(2))())
    assert list(reader.compose(counting(1), counting(2), check_alignment=False)()) == [(0, 0)]


def test_buffered_keeps_order_reads_ahead_and_passes_errors():
    assert list(reader.buffered(counting(50), 3)()) == list(range(50))
    produced = []

    def noting():
        for i in range(10):
            produced.append(i)
            yield i
    it = reader.buffered(noting, 2)()
    assert next(it) == 0
    deadline = time.time() + 5
    while len(produced) < 3 and time.time() < deadline:
        time.sleep(0.01)
    assert 3 <= len(produced) <= 4             # one taken, two queued, one waiting to be put
    it.close()

    def failing():
        yield 1
        raise KeyError("bad sample")
    with pytest.raises(KeyError, match="bad sample"):
        list(reader.buffered(failing, 2)())


def test_xmap_readers_maps_on_threads():
    threads = set()

    def square(x):
        threads.add(threading.get_ident())
        time.sleep(0.002 * (x % 3))
        return x * x
    ordered = list(reader.xmap_readers(square, counting(20), 4, 5, order=True)())
    assert ordered == [x * x for x in range(20)]
    unordered = list(reader.xmap_readers(square, counting(20), 4, 5)())
    assert sorted(unordered) == ordered
    assert threading.get_ident() not in threads

    def broken(x):
        raise ValueError(f"cannot map {x}")
    with pytest.raises(ValueError, match="cannot map 0"):
        list(reader.xmap_readers(broken, counting(3), 2, 2, order=True)())


def test_multiprocess_reader_reads_every_sample_in_children():
    out = list(reader.multiprocess_reader([counting(3), lambda: ["x", "y"]])())
    assert sorted(map(str, out)) == ["0", "1", "2", "x", "y"]
    assert [v for v in out if isinstance(v, int)] == [0, 1, 2]      # one reader's samples keep their order

    def failing():
        yield 1
        raise OSError("disk gone")
    with pytest.raises(ValueError, match="OSError: disk gone"):
        list(reader.multiprocess_reader([failing])())


@pytest.mark.parametrize("call, error, message", [
    (lambda: reader.firstn(5, 2), TypeError, "firstn: argument 'reader' expected a reader"),
    (lambda: reader.firstn(counting(2), -1), ValueError, "firstn: argument 'n' expected an int >= 0, got -1"),
    (lambda: reader.shuffle(counting(2), 2.5), TypeError, "shuffle: argument 'buf_size' expected an int"),
    (lambda: reader.buffered(counting(2), 0), ValueError, "buffered: argument 'size' expected an int >= 1"),
    (lambda: reader.chain(counting(2), None), TypeError, r"chain: argument 'readers\[1\]'"),
    (lambda: reader.compose(counting(2), check_alignment=1), TypeError, "compose: argument 'check_alignment'"),
    (lambda: reader.map_readers(3, counting(2)), TypeError, "map_readers: argument 'func'"),
    (lambda: reader.xmap_readers(abs, counting(2), 0, 1), ValueError, "xmap_readers: argument 'process_num'"),
    (lambda: reader.multiprocess_reader([]), TypeError, "multiprocess_reader: argument 'readers'"),
    (lambda: reader.multiprocess_reader(counting(2)), TypeError, "multiprocess_reader: argument 'readers'"),
])
def test_bad_arguments_are_refused(call, error, message):
    with pytest.raises(error, match=message):
        call()
