"""Value checks that would read GPU memory (index ranges, class labels, embedding
ids, probabilities, sampling weights, singular results) and erf's series length:
on the GPU they cost no device-to-host transfer outside anomaly mode, and they
raise in anomaly mode as they always do on the CPU.

The counters are tests/fake_cupy.py's, so these run only on the fake GPU.
"""
from __future__ import annotations

import numpy as np
import pytest

import eager
import eager.nn.functional as F

from conftest import REAL_GPU

pytestmark = pytest.mark.skipif(REAL_GPU, reason="counts transfers with tests/fake_cupy.py's counters")


@pytest.fixture
def gpu():
    eager.set_device("gpu")
    try:
        yield
    finally:
        eager.set_device("cpu")


def _t(data, dtype=None, grad=False):
    return eager.to_tensor(np.asarray(data, dtype=dtype), stop_gradient=not grad)


def _x():
    return _t(np.arange(12.0).reshape(3, 4), grad=True)


def _idx(data):
    return _t(data, dtype=np.int64)


CASES = {
    "gather": lambda: eager.gather(_x(), _idx([2, 0]), axis=0),
    "index_select": lambda: eager.index_select(_x(), _idx([3, 1]), axis=1),
    "take_along_axis": lambda: eager.take_along_axis(_x(), _idx([[0, 3, 1, 2]]), axis=1),
    "put_along_axis": lambda: eager.put_along_axis(_x(), _idx([[0, 3, 1, 2]]), 1.0, axis=1),
    "scatter": lambda: eager.scatter(_x(), _idx([2, 0]), _t(np.ones((2, 4)), grad=True)),
    "index_add": lambda: eager.index_add(_x(), _idx([1, 1]), 0, _t(np.ones((2, 4)), grad=True)),
    "gather_nd": lambda: eager.gather_nd(_x(), _idx([[1, 2], [0, -1]])),
    "scatter_nd_add": lambda: eager.scatter_nd_add(_x(), _idx([[1, 2], [0, 3]]), _t([5.0, 6.0], grad=True)),
    "scatter_nd": lambda: eager.scatter_nd(_idx([[1], [2]]), _t(np.ones((2, 4)), grad=True), [3, 4]),
    "embedding": lambda: F.embedding(_idx([[0, 2], [1, 2]]), _x()),
    "cross_entropy": lambda: F.cross_entropy(_x(), _idx([3, 0, 1])),
    "cross_entropy_ignore": lambda: F.cross_entropy(_x(), _idx([3, -100, 1])),
    "nll_loss": lambda: F.nll_loss(F.log_softmax(_x(), axis=1), _idx([3, 0, 1])),
    "binary_cross_entropy": lambda: F.binary_cross_entropy(F.sigmoid(_x()), _t(np.ones((3, 4)))),
    "one_hot": lambda: F.one_hot(_idx([0, 3]), 4),
    "bernoulli": lambda: eager.bernoulli(_t([0.2, 0.9])),
    "poisson": lambda: eager.poisson(_t([0.5, 3.0])),
    "multinomial": lambda: eager.multinomial(_t([[0.2, 0.8, 0.0], [1.0, 1.0, 1.0]]), 2),
    "uniform": lambda: eager.uniform([4], min=-1.0, max=1.0),
    "inverse": lambda: eager.linalg.inv(_t([[2.0, 1.0], [1.0, 3.0]], grad=True)),
    "solve": lambda: eager.linalg.solve(_t([[2.0, 1.0], [1.0, 3.0]], grad=True), _t([[1.0], [2.0]])),
    "erf": lambda: eager.erf(_t(np.linspace(-4.0, 4.0, 17), grad=True)),
    "erfinv": lambda: eager.erfinv(_t(np.linspace(-0.999, 0.999, 17), grad=True)),
    "gelu": lambda: F.gelu(_x()),
    "cholesky": lambda: eager.linalg.cholesky(_t([[4.0, 2.0], [2.0, 3.0]], grad=True)),
    "det": lambda: eager.linalg.det(_t([[4.0, 2.0], [2.0, 3.0]], grad=True)),
    "max_pool2d_padded_mask": lambda: F.max_pool2d(_img(), 3, stride=2, padding=1, return_mask=True)[0],
    "max_pool3d_padded_mask": lambda: F.max_pool3d(_img((1, 2, 5, 4, 5)), 3, stride=2, padding=1,
                                                   return_mask=True)[0],
    "max_pool2d_double_grad": lambda: _double_grad(lambda x: F.max_pool2d(x, 3, stride=2, padding=1)),
    "masked_scatter": lambda: eager.masked_scatter(_x(), _t(np.arange(12).reshape(3, 4) % 3 == 0),
                                                   _t(np.arange(5.0), grad=True)),
    "sparse_embedding": lambda: F.embedding(_idx([[0, 2], [1, 2]]), _x(), sparse=True),
}


def _double_grad(pool):
    """The sum of squares of a pooling's gradient, built with create_graph: its
    backward runs the pooling's double grad."""
    x = _img()
    y = pool(x)
    (g,) = eager.grad([(y * y).sum()], [x], create_graph=True)
    return (g * g).sum()


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_device_read_outside_anomaly_mode(gpu, name):
    import fake_cupy

    CASES[name]()  # the first call may build caches
    down, up = fake_cupy.transfers[0], fake_cupy.uploads[0]
    out = CASES[name]()
    if not out.stop_gradient:
        out.sum().backward()
    assert out.place.is_gpu_place()
    assert fake_cupy.transfers[0] - down == 0, f"{name} read device memory back"
    if name == "uniform":
        assert fake_cupy.uploads[0] - up == 0, "uniform uploaded its bounds"


BAD = [
    (lambda: eager.gather(_x(), _idx([3]), axis=0), IndexError, r"gather: argument 'index' expected index values in \[0, 3\), got 3"),
    (lambda: eager.gather_nd(_x(), _idx([[0, 4]])), IndexError, "expected index values in"),
    (lambda: F.embedding(_idx([5]), _x()), IndexError, r"embedding.*\[0, 3\).*got 5"),
    (lambda: F.cross_entropy(_x(), _idx([4, 0, 1])), ValueError, r"cross_entropy: argument 'label' expected class indices in \[0, 4\)"),
    (lambda: F.nll_loss(_x(), _idx([0, 0, -3])), ValueError, "nll_loss: argument 'label' expected class indices"),
    (lambda: F.binary_cross_entropy(_t([0.5, 1.5]), _t([1.0, 0.0])), ValueError, "expected probabilities in"),
    (lambda: eager.bernoulli(_t([0.5, 1.5])), ValueError, r"bernoulli: argument 'x' expected probabilities in \[0, 1\], got 1.5"),
    (lambda: eager.poisson(_t([1.0, -1.0])), ValueError, "poisson: argument 'x' expected finite rates >= 0, got -1.0"),
    (lambda: eager.multinomial(_t([[0.0, 0.0]]), 1), ValueError, "multinomial: argument 'x' has a row of weights that sum to 0"),
    (lambda: eager.linalg.inv(_t([[1.0, 2.0], [2.0, 4.0]])), ValueError, "inverse: argument 'x' is singular"),
    (lambda: eager.masked_scatter(_x(), _t(np.ones((3, 4), bool)), _t(np.arange(5.0))), ValueError,
     "argument 'value' expected at least 12 elements"),
]


def test_masked_scatter_on_the_gpu_matches_the_cpu_with_its_gradients(gpu):
    mask = np.array([[True, False, True, True], [False, False, True, False], [True, True, False, False]])
    results = []
    for place in ("gpu", "cpu"):
        x = eager.to_tensor(np.arange(12.0).reshape(3, 4), place=place, stop_gradient=False)
        value = eager.to_tensor(np.arange(100.0, 109.0), place=place, stop_gradient=False)
        out = eager.masked_scatter(x, eager.to_tensor(mask, place=place), value)
        (out * eager.to_tensor(np.arange(1.0, 13.0).reshape(3, 4), place=place)).sum().backward()
        results.append((out.numpy(), x.grad.numpy(), value.grad.numpy()))
    expected = np.arange(12.0).reshape(3, 4)
    expected[mask] = np.arange(100.0, 106.0)
    np.testing.assert_array_equal(results[0][0], expected)
    np.testing.assert_array_equal(results[0][2], np.r_[np.arange(1.0, 13.0)[mask.ravel()], 0, 0, 0])
    for gpu_result, cpu_result in zip(*results):
        np.testing.assert_array_equal(gpu_result, cpu_result)


@pytest.mark.parametrize("call, error, text", BAD)
def test_bad_values_raise_on_the_gpu_in_anomaly_mode(gpu, call, error, text):
    with eager.autograd.detect_anomaly(), pytest.raises(error, match=text):
        call()


def test_erf_on_the_gpu_matches_the_series_to_float64_precision(gpu):
    x = np.concatenate([np.linspace(-3.5, 3.5, 141), [0.0, 1e-300, 0.999999, 1.0, 2.999999, 6.0, 30.0]])
    got = eager.erf(_t(x)).numpy()
    want = np.array([__import__("math").erf(v) for v in x])
    np.testing.assert_allclose(got, want, rtol=4e-15, atol=1e-300)


def test_uniform_on_the_gpu_stays_in_the_half_open_interval(gpu):
    eager.seed(3)
    for dtype in ("float16", "float32", "float64"):
        v = eager.uniform([4000], dtype=dtype, min=0.0, max=1.0).numpy()
        assert v.dtype == np.dtype(dtype) and v.min() >= 0.0 and v.max() < 1.0
        assert v.max() > 0.9 and v.min() < 0.1


def _img(shape=(2, 3, 7, 6)):
    return _t(np.random.default_rng(0).normal(size=shape), grad=True)


GEOMETRY = {
    "max_pool2d": lambda: F.max_pool2d(_img(), 3, stride=2),
    "max_pool2d_global": lambda: F.max_pool2d(_img(), (7, 6)),
    "avg_pool2d_padded": lambda: F.avg_pool2d(_img(), 3, stride=2, padding=1, exclusive=True),
    "adaptive_avg_pool2d": lambda: F.adaptive_avg_pool2d(_img(), (3, 4)),
    "adaptive_max_pool2d": lambda: F.adaptive_max_pool2d(_img(), (3, 4)),
    "interpolate_bilinear": lambda: F.interpolate(_img(), size=(9, 4), mode="bilinear"),
    "interpolate_nearest": lambda: F.interpolate(_img(), scale_factor=2, mode="nearest"),
}


@pytest.mark.parametrize("name", sorted(GEOMETRY))
def test_pooling_and_interpolation_upload_nothing_once_their_geometry_was_seen(gpu, name):
    import fake_cupy

    GEOMETRY[name]().sum().backward()  # the first call copies the window/tap arrays once
    _img()
    down, up = fake_cupy.transfers[0], fake_cupy.uploads[0]
    GEOMETRY[name]().sum().backward()
    assert fake_cupy.uploads[0] - up == 1, f"{name} uploaded per call"  # the input image itself
    assert fake_cupy.transfers[0] - down == 0, f"{name} read device memory back"


def test_erfinv_on_the_gpu_matches_the_cpu_without_reading_back(gpu):
    import fake_cupy

    x = np.concatenate([np.linspace(-0.9999, 0.9999, 201), [0.0, 1e-300, 0.5, -1.0, 1.0, 1.5, np.nan]])
    down = fake_cupy.transfers[0]
    out = eager.erfinv(_t(x))
    assert fake_cupy.transfers[0] == down
    got = out.numpy()
    eager.set_device("cpu")
    want = eager.erfinv(_t(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)   # NaN outside [-1, 1], +-inf at +-1 alike
    inside = np.abs(x) < 1
    erf_back = np.array([__import__("math").erf(v) for v in got[inside]])
    np.testing.assert_allclose(erf_back, x[inside], rtol=2e-15, atol=1e-300)


def test_cholesky_on_the_gpu_masks_a_non_finite_input_to_nan_on_the_device(gpu):
    import fake_cupy

    good = np.array([[4.0, 2.0], [2.0, 3.0]])
    down = fake_cupy.transfers[0]
    out = eager.linalg.cholesky(_t(good))
    bad = eager.linalg.cholesky(_t([[np.nan, 0.0], [0.0, 1.0]]))
    assert fake_cupy.transfers[0] == down
    np.testing.assert_allclose(out.numpy(), np.linalg.cholesky(good), rtol=1e-15)
    assert np.isnan(bad.numpy()).all()


def test_padded_max_pool_on_the_gpu_never_points_a_mask_into_the_padding(gpu):
    x = np.random.default_rng(1).normal(size=(1, 1, 5, 6))
    x[0, 0, :2, :2] = -np.inf   # the top-left window (padding 1) holds only -inf input values
    out, mask = F.max_pool2d(_t(x), 3, stride=2, padding=1, return_mask=True)
    got = mask.numpy()
    eager.set_device("cpu")
    cpu_out, cpu_mask = F.max_pool2d(_t(x), 3, stride=2, padding=1, return_mask=True)
    np.testing.assert_array_equal(got, cpu_mask.numpy())
    np.testing.assert_array_equal(out.numpy(), cpu_out.numpy())
    assert got[0, 0, 0, 0] == 0 and ((0 <= got) & (got < 30)).all()   # inside the 5 x 6 plane
