"""Direct cuBLAS calls for the GPU's matrix products and column sums (phi/backends/cublas.py).

On tests/fake_cupy.py (CI) the cuBLAS stand-in reads the column-major matrices
at the device addresses it is given, so a wrong leading dimension, transpose
flag or operand order gives wrong values or an out-of-buffer error here, and a
product equals the stand-in's matmul of the arrays bit for bit. On a real GPU
(benchmarks/gpu_check.sh runs every test named cublas) the same tests compare
against CuPy's matmul within a few ulps, as cuBLAS may pick another kernel for
a transposed operand.
"""
import numpy as np
import pytest

from conftest import REAL_GPU
from phi.backends import cublas, get_gpu_context
from phi.kernels import fused

cp = pytest.importorskip("cupy")  # tests/conftest.py installed the fake when there is no GPU


def _layouts(rng, rows, cols, dtype, layout):
    """A rows x cols device matrix that is C-contiguous, F-contiguous (a transposed
    view) or strided (every other column of a wider one)."""
    host = rng.standard_normal((rows, cols)).astype(dtype)
    if layout == "C":
        return cp.asarray(host), host
    if layout == "F":
        return cp.asarray(np.ascontiguousarray(host.T)).T, host
    wide = np.repeat(host, 2, axis=1)
    return cp.asarray(wide)[:, ::2], host


def _close(result, expected, dtype):
    if REAL_GPU:  # another cuBLAS kernel for a transposed operand may round differently
        eps = np.finfo(dtype).eps
        np.testing.assert_allclose(result, expected, rtol=64 * eps, atol=64 * eps * np.abs(expected).max())
    else:
        np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout_a", ["C", "F"])
@pytest.mark.parametrize("layout_b", ["C", "F"])
@pytest.mark.parametrize("shape", [(5, 3, 4), (1, 7, 1), (6, 1, 5), (64, 33, 17)])
def test_cublas_matmul_of_every_contiguous_layout_is_cupys_matmul(rng, dtype, layout_a, layout_b, shape):
    m, k, n = shape
    a, a_host = _layouts(rng, m, k, dtype, layout_a)
    b, b_host = _layouts(rng, k, n, dtype, layout_b)
    result = cublas.matmul(cp, a, b)
    assert result.shape == (m, n) and result.dtype == dtype and result.flags.c_contiguous
    _close(cp.asnumpy(result), cp.asnumpy(cp.matmul(a, b)), dtype)
    np.testing.assert_allclose(cp.asnumpy(result), a_host.astype(np.float64) @ b_host, rtol=1e-4 if dtype == np.float32
                               else 1e-12, atol=1e-4 if dtype == np.float32 else 1e-12)
    out = cp.full((m, n), np.nan, dtype)  # beta is 0: whatever out held is not read
    assert cublas.matmul(cp, a, b, out) is out
    _close(cp.asnumpy(out), cp.asnumpy(result), dtype)


@pytest.mark.parametrize("case", ["strided", "int64", "float16", "batched", "vector", "empty k", "empty m",
                                  "mixed dtypes", "F out"])
def test_cublas_matmul_leaves_what_it_does_not_serve_to_cupys_matmul(rng, case):
    a, _ = _layouts(rng, 4, 3, np.float32, "S" if case == "strided" else "C")
    b, _ = _layouts(rng, 3, 5, np.float32, "C")
    out = None
    if case in ("int64", "float16"):
        a, b = a.astype(case), b.astype(case)
    elif case == "batched":
        a, b = cp.stack([a, a]), cp.stack([b, b])
    elif case == "vector":
        a = a[0]
    elif case == "empty k":
        a, b = a[:, :0], b[:0]
    elif case == "empty m":
        a = a[:0]
    elif case == "mixed dtypes":
        b = b.astype(np.float64)
    elif case == "F out":
        out = cp.empty((5, 4), np.float32).T
    expected = cp.asnumpy(cp.matmul(a, b))
    result = cublas.matmul(cp, a, b, out)
    np.testing.assert_array_equal(cp.asnumpy(result), expected)
    if out is not None:
        assert result is out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64, 256), (1, 3), (513, 10), (7, 1)])
def test_cublas_column_sums_are_the_sums_over_rows(rng, dtype, shape):
    host = rng.standard_normal(shape).astype(dtype)
    a = cp.asarray(host)
    reference = host.astype(np.float64).sum(axis=0)
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    result = cublas.column_sums(cp, a)
    assert result.shape == (shape[1],) and result.dtype == dtype
    np.testing.assert_allclose(cp.asnumpy(result), reference, rtol=tolerance, atol=tolerance * shape[0])
    out = cp.full((shape[1],), np.nan, dtype)
    assert cublas.column_sums(cp, a, out) is out
    np.testing.assert_array_equal(cp.asnumpy(out), cp.asnumpy(result))
    # A longer matrix later grows the cached ones vector; the short one still sums right.
    longer = cp.asarray(np.ones((3 * shape[0] + 70, shape[1]), dtype))
    np.testing.assert_array_equal(cp.asnumpy(cublas.column_sums(cp, longer)), 3 * shape[0] + 70)
    np.testing.assert_allclose(cp.asnumpy(cublas.column_sums(cp, a)), reference, rtol=tolerance,
                               atol=tolerance * shape[0])


@pytest.mark.parametrize("case", ["strided", "F", "int32", "empty", "wrong out"])
def test_cublas_column_sums_leave_what_they_do_not_serve_to_cupys_sum(rng, case):
    a, _ = _layouts(rng, 6, 4, np.float32, {"strided": "S", "F": "F"}.get(case, "C"))
    out = None
    if case == "int32":
        a = a.astype(np.int32)
    elif case == "empty":
        a = a[:0]
    elif case == "wrong out":
        out = cp.empty((4,), np.float64)
    expected = cp.asnumpy(cp.sum(a, axis=0, dtype=None if out is None else out.dtype))
    result = cublas.column_sums(cp, a, out)
    np.testing.assert_allclose(cp.asnumpy(result), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.skipif(REAL_GPU, reason="counts the cuBLAS stand-in's calls")
def test_cublas_serves_the_linear_kernels_on_the_gpu(rng, monkeypatch):
    import fake_cupy

    seen = []
    for name in ("sgemm", "sgemv"):
        original = getattr(fake_cupy.cublas, name)
        monkeypatch.setattr(fake_cupy.cublas, name,
                            lambda *args, _name=name, _original=original: (seen.append(_name), _original(*args)))
    ctx = get_gpu_context()
    x, w, b = (cp.asarray(rng.standard_normal(s).astype(np.float32)) for s in ((8, 5), (5, 3), (3,)))
    out = fused.linear(ctx, x, w, b)
    np.testing.assert_array_equal(cp.asnumpy(out), cp.asnumpy(cp.matmul(x, w) + b))
    assert seen == ["sgemm"]
    g = cp.asarray(rng.standard_normal((8, 3)).astype(np.float32))
    x_grad, w_grad, b_grad = fused.linear_grad(ctx, x, w, g)
    assert seen == ["sgemm", "sgemm", "sgemm", "sgemv"]  # x's (g w^T), w's (x^T g), the bias's sums
    np.testing.assert_array_equal(cp.asnumpy(x_grad), cp.asnumpy(cp.matmul(g, w.T)))
    np.testing.assert_array_equal(cp.asnumpy(w_grad), cp.asnumpy(cp.matmul(x.T, g)))
    np.testing.assert_allclose(cp.asnumpy(b_grad), cp.asnumpy(g).sum(axis=0), rtol=1e-6, atol=1e-6)


@pytest.mark.skipif(REAL_GPU, reason="the stand-in's own strictness")
def test_the_cublas_stand_in_refuses_host_addresses_and_overruns():
    import fake_cupy

    handle = fake_cupy.cublas.create()
    one, zero = np.ones((), np.float32), np.zeros((), np.float32)
    a, c = cp.ones((2, 2), np.float32), cp.empty((2, 2), np.float32)
    host = np.ones((2, 2), np.float32)
    with pytest.raises(TypeError, match="not in a live device array"):
        fake_cupy.cublas.sgemm(handle, 0, 0, 2, 2, 2, one.ctypes.data, host.ctypes.data, 2, a.data.ptr, 2,
                               zero.ctypes.data, c.data.ptr, 2)
    with pytest.raises((ValueError, TypeError)):  # a 3 x 3 matrix does not fit in 2 x 2's buffer
        fake_cupy.cublas.sgemm(handle, 0, 0, 3, 3, 3, one.ctypes.data, a.data.ptr, 3, a.data.ptr, 3,
                               zero.ctypes.data, c.data.ptr, 3)


@pytest.mark.skipif(REAL_GPU, reason="reads the cuBLAS stand-in's live handles")
def test_cublas_handles_are_per_thread_and_die_with_it(rng):
    import gc
    import threading

    import fake_cupy

    a, b = cp.asarray(rng.standard_normal((3, 4))), cp.asarray(rng.standard_normal((4, 2)))
    cublas.matmul(cp, a, b)  # this thread's handle
    mine = set(fake_cupy.cublas._modes)
    results = []
    worker = threading.Thread(target=lambda: results.append((cp.asnumpy(cublas.matmul(cp, a, b)),
                                                              set(fake_cupy.cublas._modes))))
    worker.start()
    worker.join()
    gc.collect()
    product, during = results[0]
    np.testing.assert_array_equal(product, cp.asnumpy(cp.matmul(a, b)))
    assert len(during - mine) == 1  # the thread made its own handle
    assert set(fake_cupy.cublas._modes) == mine  # and it was destroyed with the thread
