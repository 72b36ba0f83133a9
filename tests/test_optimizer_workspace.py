"""Host optimizer updates take their scratch from a per-thread workspace
(phi.kernels.optimizer._host_scratch): after the first call an update of any
size allocates no array, and the values are bit for bit those of the update
written with temporaries (as the kernels computed before the workspace)."""
import threading
import tracemalloc

import numpy as np
import pytest

from phi import api as phi_api
from phi.core import DenseTensor
from phi.kernels import optimizer as kernels


def dense(value, dtype="float32"):
    return DenseTensor(np.array(value, dtype=dtype))


def _peak(call) -> int:
    call()  # warm: signature checks, kernel selection, the workspace itself
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        call()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("n", [3000, 4 * kernels._BLOCK, 9 * kernels._BLOCK + 5])
def test_sgd_momentum_and_adam_allocate_no_array_after_the_first_call(n):
    rng = np.random.default_rng(n)
    p, g = dense(rng.standard_normal(n)), dense(rng.standard_normal(n))
    lr, velocity = dense(0.1), dense(np.zeros(n))
    moments, pows = [dense(np.zeros(n)) for _ in range(2)], [dense([0.9]), dense([0.999])]
    for call in (lambda: phi_api.sgd_(p, lr, g),
                 lambda: phi_api.momentum_(p, g, velocity, lr),
                 lambda: phi_api.adam_(p, g, lr, *moments, *pows)):
        assert _peak(call) < 4096  # Python objects (views, tuples), no n * 4 bytes array


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sgd_is_bitwise_the_update_with_a_temporary(dtype):
    rng = np.random.default_rng(3)
    for shape in [(5,), (300, 7), (4 * kernels._BLOCK + 3,)]:
        p0, g = rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype)
        p = dense(p0, dtype)
        for _ in range(3):
            phi_api.sgd_(p, dense(0.01, dtype), dense(g, dtype))
            p0 = p0 - g * np.array(0.01, dtype)
            assert p.array.tobytes() == p0.tobytes()


def test_momentum_is_bitwise_the_update_with_temporaries():
    rng = np.random.default_rng(4)
    p0, g = rng.standard_normal((50, 40)).astype(np.float32), rng.standard_normal((50, 40)).astype(np.float32)
    v0 = np.zeros_like(p0)
    p, v, lr = dense(p0), dense(v0), dense(0.1)
    mu, lr32 = 0.9, np.float32(0.1)
    for _ in range(3):
        phi_api.momentum_(p, dense(g), v, lr, mu=mu, use_nesterov=True)
        v0 = v0 * mu + g
        p0 = p0 - (v0 * mu + g) * lr32
        assert v.array.tobytes() == v0.tobytes() and p.array.tobytes() == p0.tobytes()


def test_threads_have_their_own_workspace():
    n = 2 * kernels._BLOCK
    rng = np.random.default_rng(5)
    starts = [rng.standard_normal(n).astype(np.float32) for _ in range(4)]
    grads = [rng.standard_normal(n).astype(np.float32) for _ in range(4)]
    params = [dense(s) for s in starts]
    barrier = threading.Barrier(4)

    def train(i):
        barrier.wait()
        for _ in range(20):
            phi_api.sgd_(params[i], dense(0.01), dense(grads[i]))

    threads = [threading.Thread(target=train, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for p, s, g in zip(params, starts, grads):
        for _ in range(20):
            s = s - g * np.float32(0.01)
        assert p.array.tobytes() == s.tobytes()


def test_a_repeated_scratch_request_gets_the_same_views_until_the_workspace_grows():
    found = {}

    def run():  # a new thread: a workspace of its own, empty at the start
        f32 = np.dtype(np.float32)
        first = kernels._host_scratch(f32, (4, 5), 2)
        found["same"] = kernels._host_scratch(f32, (4, 5), 2) is first
        found["shapes"] = [a.shape for a in first]
        found["disjoint"] = not np.shares_memory(first[0], first[1])
        big = kernels._host_scratch(f32, (1000,))  # grows the buffer: the old views are forgotten
        again = kernels._host_scratch(f32, (4, 5), 2)
        found["renewed"] = again is not first and again[0].base is big[0].base
        for n in range(kernels._VIEWS_KEPT + 10):  # shapes that keep changing hold a bounded amount
            kernels._host_scratch(f32, (n + 1,))
        found["kept"] = len(kernels._WORKSPACE.views)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert found["same"] and found["disjoint"] and found["renewed"]
    assert found["shapes"] == [(4, 5), (4, 5)]
    assert found["kept"] <= kernels._VIEWS_KEPT
