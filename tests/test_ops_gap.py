"""The Paddle functions of the ops-gap round: is_tensor, create_parameter,
bucketize, index_sample, diff, trapezoid, cumulative_trapezoid, cdist, the
linalg additions and the nn additions (searchsorted and histogram are YAML ops:
their rows are in tests/op_specs/search_sort.py).

References are written from the maths with loops over elements; gradients are
checked against finite differences in float64; errors by type and message.
"""
import contextlib
import itertools

import numpy as np
import pytest

import eager
from conftest import REAL_GPU
from eager.autograd import gradcheck, gradgradcheck


def t(array, grad=False):
    return eager.to_tensor(np.asarray(array), stop_gradient=not grad)


# -- is_tensor / create_parameter -------------------------------------------------------

def test_is_tensor_function_and_method():
    x = t([1.0])
    assert eager.is_tensor(x) and x.is_tensor()
    assert eager.is_tensor(eager.nn.Parameter(np.zeros(2, "float32")))
    assert not eager.is_tensor(np.zeros(2)) and not eager.is_tensor([1.0]) and not eager.is_tensor(None)


def test_create_parameter_defaults_and_names():
    w = eager.create_parameter([4, 3], "float32")
    assert isinstance(w, eager.nn.Parameter) and not w.stop_gradient
    assert w.shape == [4, 3] and w.dtype == eager.float32
    bound = np.sqrt(6.0 / (4 + 3))  # XavierUniform of a weight
    assert np.all(np.abs(w.numpy()) <= bound) and np.any(w.numpy() != 0)
    assert w.name.startswith("create_parameter_") and w.name.endswith(".w_0")
    b = eager.create_parameter([3], "float64", is_bias=True)
    assert b.dtype == eager.float64 and np.all(b.numpy() == 0) and b.name.endswith(".b_0")
    assert b.name != w.name
    named = eager.create_parameter([2], "float32", name="my_w")
    assert named.name == "my_w"


def test_create_parameter_attr_and_initializer():
    init = eager.nn.initializer.Constant(2.5)
    p = eager.create_parameter([2, 2], "float32", default_initializer=init)
    np.testing.assert_array_equal(p.numpy(), np.full((2, 2), 2.5, "float32"))
    attr = eager.ParamAttr(name="frozen", initializer=eager.nn.initializer.Constant(1.0), trainable=False,
                           learning_rate=0.5)
    q = eager.create_parameter([3], "float32", attr=attr, default_initializer=init)
    assert q.name == "frozen" and q.stop_gradient and np.all(q.numpy() == 1.0)
    assert q.optimize_attr["learning_rate"] == 0.5
    loss = (p * p).sum()
    loss.backward()
    np.testing.assert_allclose(p.grad.numpy(), 5.0)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"shape": 3, "dtype": "float32"}, TypeError, "argument 'shape'"),
    ({"shape": [2, -1], "dtype": "float32"}, TypeError, "argument 'shape'"),
    ({"shape": [2], "dtype": "complex64"}, TypeError, "a paddle.complex64 parameter has no default initializer"),
    ({"shape": [2], "dtype": "float32", "default_initializer": 3}, TypeError, "default_initializer"),
])
def test_create_parameter_bad_input(kwargs, error, message):
    with pytest.raises(error, match=f"create_parameter: .*{message}"):
        eager.create_parameter(**kwargs)


# -- bucketize / searchsorted ------------------------------------------------------------

def test_bucketize_matches_a_count_and_the_paddle_example():
    edges = t([2, 4, 6, 8])
    x = t([[2, 6, 9], [1, 4, 8]])
    np.testing.assert_array_equal(eager.bucketize(x, edges).numpy(), [[0, 2, 4], [0, 1, 3]])
    np.testing.assert_array_equal(eager.bucketize(x, edges, right=True).numpy(), [[1, 3, 4], [0, 2, 4]])
    out = x.bucketize(edges, out_int32=True)
    assert out.dtype == eager.int32 and out.stop_gradient


def test_bucketize_and_searchsorted_errors():
    with pytest.raises(ValueError, match="bucketize: argument 'sorted_sequence' expected a 1-D tensor"):
        eager.bucketize(t([1.0]), t([[1.0, 2.0]]))
    with pytest.raises(TypeError, match="bucketize: argument 'x' expected a Tensor"):
        eager.bucketize([1.0], t([1.0, 2.0]))
    with pytest.raises(ValueError, match="searchsorted: argument 'values' expected the leading axes"):
        eager.searchsorted(t([[1.0, 2.0]]), t([[1.0], [2.0]]))
    with pytest.raises(ValueError, match="searchsorted: argument 'sorted_sequence' expected a float32"):
        eager.searchsorted(t([True, False]), t([1.0]))


def test_histogram_paddle_example_and_errors():
    np.testing.assert_array_equal(eager.histogram(t([1, 2, 1]), bins=4, min=0, max=3).numpy(), [0, 2, 1, 0])
    assert eager.histogram(t([1.0, 2.0])).shape == [100]
    with pytest.raises(ValueError, match="histogram: argument 'max' expected a value >= min"):
        eager.histogram(t([1.0]), min=2.0, max=1.0)
    with pytest.raises(ValueError, match="histogram: argument 'bins' expected an int >= 1"):
        eager.histogram(t([1.0]), bins=0)


# -- index_sample -----------------------------------------------------------------------

def test_index_sample_values_and_gradient(rng):
    x = rng.normal(size=(3, 5))
    index = np.array([[4, 0, 4, 1], [2, 2, 2, 2], [0, 1, 3, 4]])
    want = np.array([[x[i, index[i, j]] for j in range(4)] for i in range(3)])
    got = eager.index_sample(t(x), t(index))
    np.testing.assert_array_equal(got.numpy(), want)
    assert t(x).index_sample(t(index.astype("int32"))).shape == [3, 4]
    xs = t(x, grad=True)
    eager.index_sample(xs, t(index)).sum().backward()
    counts = np.zeros((3, 5))
    for i, j in itertools.product(range(3), range(4)):
        counts[i, index[i, j]] += 1
    np.testing.assert_array_equal(xs.grad.numpy(), counts)
    assert gradcheck(lambda a: eager.index_sample(a, t(index)), [t(x, grad=True)])


@pytest.mark.parametrize("x_shape, index, error, message", [
    ((3,), [[0]], ValueError, "argument 'x' expected a 2-D tensor"),
    ((2, 3), [0, 1], ValueError, "argument 'index' expected a 2-D tensor"),
    ((2, 3), [[0.0], [1.0]], TypeError, "argument 'index' expected an int32 or int64 tensor"),
    ((2, 3), [[0], [1], [2]], ValueError, "argument 'index' expected 2 rows"),
    ((2, 3), [[0], [3]], IndexError, "index values in"),
])
def test_index_sample_bad_input(x_shape, index, error, message):
    with pytest.raises(error, match=f"index_sample: .*{message}"):
        eager.index_sample(t(np.zeros(x_shape)), t(index))


# -- diff -------------------------------------------------------------------------------

def ref_diff(x, n, axis, prepend=None, append=None):
    parts = [p for p in (prepend, x, append) if p is not None]
    out = np.concatenate(parts, axis=axis)
    for _ in range(n):
        moved = np.moveaxis(out, axis, 0)
        rows = [moved[i + 1] != moved[i] if out.dtype == bool else moved[i + 1] - moved[i]
                for i in range(moved.shape[0] - 1)]
        out = np.moveaxis(np.array(rows).reshape((len(rows),) + moved.shape[1:]), 0, axis)
    return out


@pytest.mark.parametrize("shape, n, axis, extra", [
    ((6,), 1, -1, None), ((6,), 3, 0, None), ((3, 5), 1, 0, None), ((3, 5), 2, 1, "both"),
    ((2, 3, 4), 1, 1, "prepend"), ((4,), 5, -1, None),
])
def test_diff_values_and_gradient(rng, shape, n, axis, extra):
    x = rng.normal(size=shape)
    side = list(shape)
    side[axis] = 2
    prepend = rng.normal(size=side) if extra in ("both", "prepend") else None
    append = rng.normal(size=side) if extra == "both" else None
    want = ref_diff(x, n, axis, prepend, append)
    got = eager.diff(t(x), n, axis, None if prepend is None else t(prepend), None if append is None else t(append))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    inputs = [t(x, grad=True)] + [t(a, grad=True) for a in (prepend, append) if a is not None]

    def func(a, *extras):
        given = dict(zip([k for k, v in (("prepend", prepend), ("append", append)) if v is not None], extras))
        return eager.diff(a, n=n, axis=axis, **given)
    assert gradcheck(func, inputs)


def test_diff_integer_bool_and_paddle_examples():
    x = t([1, 4, 5, 2])
    np.testing.assert_array_equal(x.diff().numpy(), [3, 1, -3])
    np.testing.assert_array_equal(eager.diff(x, n=2, append=t([7, 9])).numpy(), [-2, -4, 8, -3])
    np.testing.assert_array_equal(eager.diff(t([True, True, False])).numpy(), [False, True])
    assert eager.diff(x).dtype == eager.int64


@pytest.mark.parametrize("call, error, message", [
    (lambda: eager.diff(t([1.0, 2.0]), n=0), ValueError, "argument 'n' expected a positive int"),
    (lambda: eager.diff(t(1.0)), ValueError, "0-d tensor"),
    (lambda: eager.diff(t([1.0, 2.0]), axis=1), ValueError, "argument 'axis'"),
    (lambda: eager.diff(t(np.zeros((2, 3))), prepend=t(np.zeros((3, 1)))), ValueError, "argument 'prepend'"),
    (lambda: eager.diff(t([1.0]), append=t([1])), TypeError, "argument 'append' expected the dtype of x"),
])
def test_diff_bad_input(call, error, message):
    with pytest.raises(error, match=f"diff: .*{message}"):
        call()


# -- trapezoid / cumulative_trapezoid ---------------------------------------------------

def ref_trapezoid_parts(y, x, dx, axis):
    y = np.moveaxis(y, axis, -1)
    n = y.shape[-1]
    if x is None:
        widths = [dx if dx is not None else 1.0] * max(n - 1, 0)
        widths = np.broadcast_to(np.array(widths), y.shape[:-1] + (max(n - 1, 0),))
    elif x.ndim == 1:
        widths = np.broadcast_to(np.array([x[i + 1] - x[i] for i in range(n - 1)]), y.shape[:-1] + (n - 1,))
    else:
        xm = np.moveaxis(x, axis, -1)
        widths = np.stack([xm[..., i + 1] - xm[..., i] for i in range(n - 1)], axis=-1)
    parts = np.zeros(y.shape[:-1] + (max(n - 1, 0),))
    for i in range(n - 1):
        parts[..., i] = widths[..., i] * (y[..., i] + y[..., i + 1]) / 2
    return parts


@pytest.mark.parametrize("shape, axis, spacing", [
    ((5,), -1, None), ((3, 4), 1, "dx"), ((3, 4), 0, "x1"), ((2, 3, 4), 1, "xfull"), ((3, 1), 1, None),
])
def test_trapezoid_and_cumulative(rng, shape, axis, spacing):
    y = rng.normal(size=shape)
    x = dx = None
    if spacing == "dx":
        dx = 0.25
    elif spacing == "x1":
        x = np.sort(rng.normal(size=shape[axis]))
    elif spacing == "xfull":
        x = np.sort(rng.normal(size=shape), axis=axis)
    parts = ref_trapezoid_parts(y, x, dx, axis)
    total = parts.sum(axis=-1)
    running = np.moveaxis(np.cumsum(parts, axis=-1), -1, axis)
    xt = None if x is None else t(x)
    np.testing.assert_allclose(eager.trapezoid(t(y), xt, dx, axis).numpy(), total, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(t(y).cumulative_trapezoid(xt, dx, axis).numpy(), running, rtol=1e-12, atol=1e-12)
    inputs = [t(y, grad=True)] + ([] if x is None else [t(x, grad=True)])
    for fn in (eager.trapezoid, eager.cumulative_trapezoid):
        assert gradcheck(lambda a, *b: fn(a, b[0] if b else None, dx, axis), inputs)


def test_trapezoid_float32_and_example():
    out = eager.trapezoid(t(np.array([1.0, 2.0, 3.0], "float32")), dx=2.0)
    assert out.dtype == eager.float32 and float(out) == 8.0


@pytest.mark.parametrize("call, error, message", [
    (lambda: eager.trapezoid(t([1, 2])), TypeError, "argument 'y' expected a floating-point Tensor"),
    (lambda: eager.trapezoid(t([1.0, 2.0]), t([0.0, 1.0]), 1.0), ValueError, "give x or dx, not both"),
    (lambda: eager.trapezoid(t([1.0, 2.0]), t([0.0, 1.0, 2.0])), ValueError, "argument 'x' \\(1-D\\)"),
    (lambda: eager.cumulative_trapezoid(t(np.ones((2, 3))), t(np.ones((3, 2)))), ValueError, "argument 'x'"),
    (lambda: eager.cumulative_trapezoid(t([1.0]), dx="a"), TypeError, "argument 'dx'"),
    (lambda: eager.trapezoid(t([1.0]), axis=2), ValueError, "argument 'axis'"),
])
def test_trapezoid_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


# -- cdist ------------------------------------------------------------------------------

def ref_cdist(x, y, p):
    batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    x, y = np.broadcast_to(x, batch + x.shape[-2:]), np.broadcast_to(y, batch + y.shape[-2:])
    out = np.zeros(batch + (x.shape[-2], y.shape[-2]))
    for b in np.ndindex(batch):
        for i in range(x.shape[-2]):
            for j in range(y.shape[-2]):
                d = np.abs(x[b][i] - y[b][j])
                out[b][i, j] = (np.count_nonzero(d) if p == 0 else d.max() if p == np.inf
                                else (d ** p).sum() ** (1.0 / p))
    return out


@pytest.mark.parametrize("x_shape, y_shape, p", [
    ((3, 4), (5, 4), 2.0), ((2, 3, 4), (5, 4), 1.0), ((2, 1, 3, 2), (4, 2, 2), 3.0),
    ((3, 2), (2, 2), 0.0), ((3, 2), (4, 2), float("inf")), ((3, 4), (2, 4), 0.5),
])
def test_cdist_values_and_gradient(rng, x_shape, y_shape, p):
    x, y = rng.normal(size=x_shape), rng.normal(size=y_shape)
    np.testing.assert_allclose(eager.cdist(t(x), t(y), p).numpy(), ref_cdist(x, y, p), rtol=1e-10, atol=1e-12)
    if p != 0:
        assert gradcheck(lambda a, b: eager.cdist(a, b, p), [t(x, grad=True), t(y, grad=True)])


def test_cdist_zero_distance_gradient_is_zero_and_double_grad():
    x = t([[0.0, 0.0], [3.0, 4.0]], grad=True)
    out = eager.cdist(x, x)
    np.testing.assert_allclose(out.numpy(), [[0.0, 5.0], [5.0, 0.0]])
    out.sum().backward()
    assert np.all(np.isfinite(x.grad.numpy()))
    a = t(np.array([[0.3, -1.0], [2.0, 0.5]]), grad=True)
    b = t(np.array([[1.0, 1.0], [-0.5, 2.0], [0.2, 0.1]]), grad=True)
    assert gradgradcheck(lambda u, v: eager.cdist(u, v), [a, b])
    assert t(np.zeros((2, 3), "float32")).cdist(t(np.ones((4, 3), "float32"))).dtype == eager.float32


@pytest.mark.parametrize("call, error, message", [
    (lambda: eager.cdist(t(np.ones((2, 3))), t(np.ones((2, 4)))), ValueError, "the same last axis"),
    (lambda: eager.cdist(t(np.ones(3)), t(np.ones((2, 3)))), ValueError, "argument 'x' expected at least 2"),
    (lambda: eager.cdist(t(np.ones((2, 3))), t(np.ones((2, 3))), p=-1.0), ValueError, "argument 'p'"),
    (lambda: eager.cdist(t(np.ones((2, 3), "int64")), t(np.ones((2, 3)))), TypeError, "argument 'x'"),
    (lambda: eager.cdist(t(np.ones((2, 2, 3))), t(np.ones((3, 2, 3)))), ValueError, "batch axes"),
    (lambda: eager.cdist(t(np.ones((2, 3))), t(np.ones((2, 3))), compute_mode="x"), ValueError, "compute_mode"),
])
def test_cdist_bad_input(call, error, message):
    with pytest.raises(error, match=f"cdist: .*{message}"):
        call()


def test_composed_ops_on_the_gpu_stand_in(device):
    x = t([[1.0, 4.0, 5.0], [2.0, 2.0, 0.0]], grad=True)
    assert x.place.is_gpu_place() == (device == "gpu")
    out = eager.diff(x).sum() + eager.trapezoid(x).sum() + eager.cdist(x, x).sum() \
        + eager.index_sample(x, t([[2], [0]])).sum()
    out.backward()
    assert x.grad.place == x.place
    np.testing.assert_array_equal(eager.bucketize(t([0.5, 4.0]), t([1.0, 2.0, 4.0])).numpy(), [0, 2])
    np.testing.assert_array_equal(eager.histogram(t([1.0, 2.0, 2.5]), bins=2).numpy(), [1, 2])


# -- linalg: multi_dot, cov, corrcoef, cond, triangular_solve, lstsq --------------------

L = eager.linalg


def ref_chain(arrays):
    out = arrays[0]
    for a in arrays[1:]:
        out = np.array([[sum(out[i, k] * a[k, j] for k in range(a.shape[0])) for j in range(a.shape[1])]
                        for i in range(out.shape[0])])
    return out


@pytest.mark.parametrize("shapes", [[(2, 3), (3, 4)], [(3,), (3, 5), (5, 2), (2,)], [(6, 2), (2, 5), (5, 1)],
                                    [(1, 4), (4, 3), (3, 6), (6, 2)]])
def test_multi_dot_values_and_gradient(rng, shapes):
    arrays = [rng.normal(size=s) for s in shapes]
    as_2d = [a.reshape(1, -1) if i == 0 and a.ndim == 1 else a.reshape(-1, 1) if a.ndim == 1 else a
             for i, a in enumerate(arrays)]
    want = ref_chain(as_2d)
    want = want.reshape([d for d, keep in zip(want.shape, (len(shapes[0]) == 2, len(shapes[-1]) == 2)) if keep])
    got = L.multi_dot([t(a) for a in arrays])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    assert gradcheck(lambda *xs: L.multi_dot(list(xs)), [t(a, grad=True) for a in arrays])
    assert t(arrays[0]).multi_dot is not None


def test_multi_dot_errors():
    with pytest.raises(ValueError, match="multi_dot: argument 'x' expected a list of at least 2"):
        L.multi_dot([t(np.ones((2, 2)))])
    with pytest.raises(ValueError, match="multi_dot: x\\[0\\] \\[2, 3\\] and x\\[1\\] \\[2, 2\\] cannot be multiplied"):
        L.multi_dot([t(np.ones((2, 3))), t(np.ones((2, 2)))])
    with pytest.raises(ValueError, match="multi_dot: argument 'x\\[1\\]' expected a 2-D tensor"):
        L.multi_dot([t(np.ones((2, 3))), t(np.ones(3)), t(np.ones((1, 2)))])
    with pytest.raises(TypeError, match="multi_dot: argument 'x\\[1\\]' expected the dtype of x\\[0\\]"):
        L.multi_dot([t(np.ones((2, 3))), t(np.ones((3, 2), "float32"))])


def ref_cov(x, rowvar=True, ddof=True, fweights=None, aweights=None):
    """Weighted covariance by loops: mean, then sums of weighted products."""
    x = np.atleast_2d(x) if rowvar or x.ndim == 1 else x.T
    n = x.shape[1]
    w = np.ones(n)
    if fweights is not None:
        w = w * fweights
    if aweights is not None:
        w = w * aweights
    total = w.sum()
    mean = [sum(w[k] * x[i, k] for k in range(n)) / total for i in range(x.shape[0])]
    if not ddof:
        fact = total
    elif aweights is None:
        fact = total - 1
    else:
        fact = total - sum(w[k] * aweights[k] for k in range(n)) / total
    out = np.array([[sum(w[k] * (x[i, k] - mean[i]) * (x[j, k] - mean[j]) for k in range(n)) / fact
                     for j in range(x.shape[0])] for i in range(x.shape[0])])
    return out.squeeze()


@pytest.mark.parametrize("shape, rowvar, ddof, weights", [
    ((3, 6), True, True, None), ((6, 3), False, True, None), ((5,), True, False, None),
    ((2, 5), True, True, "f"), ((2, 5), True, True, "a"), ((3, 5), True, True, "fa"), ((3, 5), True, False, "fa"),
])
def test_cov_and_corrcoef(rng, shape, rowvar, ddof, weights):
    x = rng.normal(size=shape)
    count = shape[-1] if rowvar or len(shape) == 1 else shape[0]
    fw = rng.integers(0, 4, count) if "f" in (weights or "") else None
    aw = rng.uniform(0.2, 2.0, count) if "a" in (weights or "") else None
    if fw is not None:
        fw[0] = 2
    kwargs = {"fweights": None if fw is None else t(fw), "aweights": None if aw is None else t(aw)}
    got = L.cov(t(x), rowvar, ddof, **kwargs)
    np.testing.assert_allclose(got.numpy(), ref_cov(x, rowvar, ddof, fw, aw), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.numpy(), np.cov(x, rowvar=rowvar, ddof=int(ddof), fweights=fw, aweights=aw),
                               rtol=1e-10, atol=1e-12)
    inputs = [t(x, grad=True)] + ([t(aw, grad=True)] if aw is not None else [])
    assert gradcheck(lambda a, *b: L.cov(a, rowvar, ddof, kwargs["fweights"], b[0] if b else None), inputs)
    if weights is None and len(shape) == 2:
        c = ref_cov(x, rowvar, True)
        d = np.sqrt(np.diag(c))
        want = np.clip(c / d[:, None] / d[None, :], -1, 1)
        np.testing.assert_allclose(t(x).corrcoef(rowvar).numpy(), want, rtol=1e-10, atol=1e-12)
        assert gradcheck(lambda a: L.corrcoef(a, rowvar), [t(x, grad=True)])


@pytest.mark.parametrize("call, error, message", [
    (lambda: L.cov(t(np.ones((2, 2, 2)))), ValueError, "cov: argument 'x' expected a 1-D or 2-D tensor"),
    (lambda: L.cov(t(np.ones((2, 3))), fweights=t([1.0, 2.5, 3.0])), ValueError, "cov: argument 'fweights' expected whole"),
    (lambda: L.cov(t(np.ones((2, 3))), fweights=t([True, False, True])), TypeError, "cov: argument 'fweights'"),
    (lambda: L.cov(t(np.ones((2, 3))), fweights=t([1, 2])), ValueError, "cov: argument 'fweights' expected a 1-D"),
    (lambda: L.cov(t(np.ones((2, 3))), fweights=t([1, -2, 1])), ValueError, "non-negative"),
    (lambda: L.cov(t(np.ones((2, 3))), aweights=t([1 + 0j, 2, 3])), TypeError, "cov: argument 'aweights'"),
    (lambda: L.cov(t(np.ones((2, 3))), fweights=t([0, 0, 0])), ValueError, "cov: the weights sum to zero"),
    (lambda: L.cov(t(np.ones((2, 3))), ddof=1.0), TypeError, "cov: argument 'ddof' expected a bool or an int"),
    (lambda: L.corrcoef(t(np.ones((2, 3), "int64"))), TypeError, "corrcoef: argument 'x'"),
])
def test_cov_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def ref_matrix_norm(a, p):
    if p == "fro":
        return np.sqrt(sum(v * v for v in a.ravel()))
    if p == "nuc":
        return np.linalg.svd(a, compute_uv=False).sum()
    sums = np.abs(a).sum(axis=0 if abs(p) == 1 else 1)
    return sums.max() if p > 0 else sums.min()


@pytest.mark.parametrize("p", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_cond(rng, p):
    x = rng.normal(size=(2, 3, 3)) + 3 * np.eye(3)
    if p in (None, 2, -2):
        s = [np.linalg.svd(m, compute_uv=False) for m in x]
        want = [v.min() / v.max() if p == -2 else v.max() / v.min() for v in s]
    else:
        want = [ref_matrix_norm(m, p) * ref_matrix_norm(np.linalg.inv(m), p) for m in x]
    np.testing.assert_allclose(L.cond(t(x), p).numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(t(x).cond(p).numpy(), np.linalg.cond(x, p), rtol=1e-10)
    assert gradcheck(lambda a: L.cond(a, p), [t(x, grad=True)])


def test_cond_rectangular_and_errors(rng):
    x = rng.normal(size=(4, 2))
    s = np.linalg.svd(x, compute_uv=False)
    np.testing.assert_allclose(float(L.cond(t(x))), s.max() / s.min(), rtol=1e-10)
    with pytest.raises(ValueError, match="cond: argument 'x' expected square matrices"):
        L.cond(t(x), "fro")
    with pytest.raises(ValueError, match="cond: argument 'p' expected one of"):
        L.cond(t(np.eye(2)), 3)
    with pytest.raises(ValueError, match="cond: argument 'x' expected matrices"):
        L.cond(t(np.ones(3)))


def ref_triangular_solve(a, b, upper, transpose, unit):
    """Substitution, one column at a time."""
    n = a.shape[0]
    tri = np.triu(a) if upper else np.tril(a)
    if unit:
        tri = tri - np.diag(np.diag(tri)) + np.eye(n)
    if transpose:
        tri, upper = tri.T, not upper
    out = np.zeros(b.shape)
    order = range(n - 1, -1, -1) if upper else range(n)
    for k in range(b.shape[1]):
        for i in order:
            known = sum(tri[i, j] * out[j, k] for j in range(n) if j != i)
            out[i, k] = (b[i, k] - known) / tri[i, i]
    return out


@pytest.mark.parametrize("upper, transpose, unit", list(itertools.product([True, False], repeat=3)))
def test_triangular_solve(rng, upper, transpose, unit):
    a = rng.normal(size=(2, 4, 4)) + 4 * np.eye(4)
    b = rng.normal(size=(4, 3))
    want = np.stack([ref_triangular_solve(m, b, upper, transpose, unit) for m in a])
    got = L.triangular_solve(t(a), t(b), upper, transpose, unit)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)
    assert gradcheck(lambda u, v: L.triangular_solve(u, v, upper, transpose, unit), [t(a, grad=True), t(b, grad=True)])
    xs = t(a, grad=True)
    L.triangular_solve(xs, t(b), upper, transpose, unit).sum().backward()
    untouched = np.tril(np.ones((4, 4)), -1) if upper else np.triu(np.ones((4, 4)), 1)
    if unit:
        untouched += np.eye(4)
    assert np.all(xs.grad.numpy()[:, untouched == 1] == 0)


def test_triangular_solve_errors():
    with pytest.raises(ValueError, match="triangular_solve: argument 'x' expected square matrices"):
        L.triangular_solve(t(np.ones((2, 3))), t(np.ones((2, 1))))
    with pytest.raises(ValueError, match="triangular_solve: argument 'y' expected 2 rows"):
        L.triangular_solve(t(np.eye(2)), t(np.ones((3, 1))))
    with pytest.raises(TypeError, match="triangular_solve: argument 'upper' expected a bool"):
        L.triangular_solve(t(np.eye(2)), t(np.ones((2, 1))), upper=1)


@pytest.mark.parametrize("shape, driver", [((5, 3), None), ((5, 3), "gels"), ((2, 6, 3), "gelsd"),
                                           ((3, 5), "gelss"), ((4, 4), "gelsy")])
def test_lstsq(rng, shape, driver):
    x = rng.normal(size=shape)
    y = rng.normal(size=shape[:-1] + (2,))
    solution, residuals, rank, singular = L.lstsq(t(x), t(y), driver=driver)
    mats = x.reshape((-1,) + shape[-2:])
    rhs = y.reshape((-1,) + y.shape[-2:])
    want = np.stack([np.linalg.lstsq(m, r, rcond=None)[0] for m, r in zip(mats, rhs)]).reshape(solution.shape)
    np.testing.assert_allclose(solution.numpy(), want, rtol=1e-9, atol=1e-10)
    rows, cols = shape[-2:]
    if rows > cols:
        err = np.einsum("...ij,...jk->...ik", x, want) - y
        np.testing.assert_allclose(residuals.numpy(), (err ** 2).sum(axis=-2), rtol=1e-9)
    else:
        assert residuals.shape == [0]
    if driver in (None, "gelsy", "gelsd", "gelss"):
        assert rank.dtype == eager.int32 and rank.shape == list(shape[:-2])
        np.testing.assert_array_equal(rank.numpy(), min(rows, cols))
    else:
        assert rank.shape == [0]
    if driver in ("gelsd", "gelss"):
        np.testing.assert_allclose(singular.numpy(), np.linalg.svd(x, compute_uv=False), rtol=1e-10)
    else:
        assert singular.shape == [0]
    assert gradcheck(lambda a, b: L.lstsq(a, b, driver=driver)[0], [t(x, grad=True), t(y, grad=True)])


def test_lstsq_rank_deficient_and_errors():
    x = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    solution, residuals, rank, _ = L.lstsq(t(x), t(np.ones((3, 1))))
    assert int(rank) == 1 and residuals.shape == [0]
    np.testing.assert_allclose(solution.numpy(), np.linalg.pinv(x) @ np.ones((3, 1)), rtol=1e-10)
    with pytest.raises(ValueError, match="lstsq: argument 'driver' expected one of"):
        L.lstsq(t(x), t(np.ones((3, 1))), driver="lu")
    with pytest.raises(ValueError, match="lstsq: argument 'y' expected 3 rows"):
        L.lstsq(t(x), t(np.ones((2, 1))))
    with pytest.raises(TypeError, match="lstsq: argument 'y' expected the dtype of x"):
        L.lstsq(t(x), t(np.ones((3, 1), "float32")))


def test_linalg_compositions_on_the_gpu_stand_in(device):
    a = t(np.array([[3.0, 1.0], [0.5, 2.0]]), grad=True)
    b = t(np.array([[1.0], [2.0]]))
    out = L.cond(a) + L.cov(a).sum() + L.corrcoef(a).sum() + L.triangular_solve(a, b).sum() \
        + L.multi_dot([a, a, b]).sum() + L.lstsq(a, b, driver="gels")[0].sum()
    out.backward()
    assert a.grad.place == a.place
    with pytest.raises(ValueError, match="lstsq: argument 'driver' expected 'gels'") if device == "gpu" else \
            contextlib.nullcontext():
        L.lstsq(a, b, driver="gelsd")


# -- nn: label_smooth, dice_loss, npair_loss, Softmax2D ----------------------------------

NF = eager.nn.functional


def test_label_smooth(rng):
    label = np.eye(4)[rng.integers(0, 4, 5)]
    np.testing.assert_allclose(NF.label_smooth(t(label), epsilon=0.2).numpy(), label * 0.8 + 0.2 / 4, rtol=1e-12)
    prior = rng.uniform(size=(1, 4))
    np.testing.assert_allclose(NF.label_smooth(t(label), t(prior), 0.3).numpy(), label * 0.7 + 0.3 * prior,
                               rtol=1e-12)
    assert gradcheck(lambda a, b: NF.label_smooth(a, b, 0.3), [t(label, grad=True), t(prior, grad=True)])
    with pytest.raises(ValueError, match="label_smooth: argument 'epsilon' expected a value in \\[0, 1\\]"):
        NF.label_smooth(t(label), epsilon=1.5)
    with pytest.raises(ValueError, match="label_smooth: argument 'prior_dist' expected shape \\[1, 4\\] or \\[4\\]"):
        NF.label_smooth(t(label), t(np.ones(3)))
    with pytest.raises(TypeError, match="label_smooth: argument 'label' expected a floating-point Tensor"):
        NF.label_smooth(t([[0, 1]]))


def ref_dice(probs, label, epsilon):
    n, classes = probs.shape[0], probs.shape[-1]
    losses = []
    for i in range(n):
        p = probs[i].reshape(-1, classes)
        lab = label[i].reshape(-1)
        overlap = sum(p[k, lab[k]] for k in range(len(lab)))
        losses.append(1 - 2 * overlap / (p.sum() + len(lab) + epsilon))
    return np.mean(losses)


@pytest.mark.parametrize("shape", [(4, 3), (2, 5, 3), (2, 3, 4, 2)])
def test_dice_loss(rng, shape):
    probs = rng.dirichlet(np.ones(shape[-1]), size=shape[:-1])
    label = rng.integers(0, shape[-1], shape[:-1] + (1,))
    got = NF.dice_loss(t(probs), t(label), 1e-3)
    np.testing.assert_allclose(float(got), ref_dice(probs, label, 1e-3), rtol=1e-12)
    assert gradcheck(lambda a: NF.dice_loss(a, t(label)), [t(probs, grad=True)])


def test_dice_loss_errors():
    with pytest.raises(ValueError, match="dice_loss: argument 'label' expected shape \\[2, 1\\]"):
        NF.dice_loss(t(np.ones((2, 3))), t([0, 1]))
    with pytest.raises(TypeError, match="dice_loss: argument 'label' expected an int32 or int64"):
        NF.dice_loss(t(np.ones((2, 3))), t([[0.0], [1.0]]))
    with pytest.raises(ValueError, match="dice_loss: .*3"):
        NF.dice_loss(t(np.ones((2, 3))), t([[0], [3]]))


def ref_npair(anchor, positive, labels, l2_reg):
    b = anchor.shape[0]
    sim = np.array([[sum(anchor[i, k] * positive[j, k] for k in range(anchor.shape[1])) for j in range(b)]
                    for i in range(b)])
    ce = []
    for i in range(b):
        same = [float(labels[i] == labels[j]) for j in range(b)]
        log_norm = np.log(sum(np.exp(sim[i, j]) for j in range(b)))
        ce.append(-sum(same[j] / sum(same) * (sim[i, j] - log_norm) for j in range(b)))
    reg = np.mean((anchor ** 2).sum(1)) + np.mean((positive ** 2).sum(1))
    return np.mean(ce) + 0.25 * l2_reg * reg


def test_npair_loss(rng):
    anchor, positive = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    labels = np.array([0, 1, 0, 2, 1])
    got = NF.npair_loss(t(anchor), t(positive), t(labels), l2_reg=0.01)
    np.testing.assert_allclose(float(got), ref_npair(anchor, positive, labels, 0.01), rtol=1e-12)
    assert gradcheck(lambda a, p: NF.npair_loss(a, p, t(labels)), [t(anchor, grad=True), t(positive, grad=True)])
    with pytest.raises(ValueError, match="npair_loss: argument 'labels' expected shape \\[5\\] or \\[5, 1\\]"):
        NF.npair_loss(t(anchor), t(positive), t(labels[:3]))
    with pytest.raises(ValueError, match="npair_loss: argument 'positive' expected the shape of 'anchor'"):
        NF.npair_loss(t(anchor), t(positive[:4]), t(labels))


def test_softmax2d(rng):
    x = rng.normal(size=(2, 3, 4, 5))
    e = np.exp(x)
    want = e / e.sum(axis=1, keepdims=True)
    layer = eager.nn.Softmax2D()
    np.testing.assert_allclose(layer(t(x)).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(layer(t(x[0])).numpy(), want[0], rtol=1e-12)
    assert gradcheck(lambda a: layer(a), [t(x[:, :, :2, :2], grad=True)])
    with pytest.raises(ValueError, match="Softmax2D: argument 'x' expected a 3-D"):
        layer(t(np.ones((2, 3))))


# -- linalg: lu / lu_unpack / eig / eigvals (the YAML ops' rows are in tests/op_specs/linalg.py) ----

@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 3), (3, 6)])
def test_lu_reconstructs_and_differentiates(rng, shape):
    x = rng.normal(size=shape)
    packed, pivots = L.lu(t(x))
    assert pivots.dtype == eager.int32 and pivots.shape == list(shape[:-2]) + [min(shape[-2:])]
    p, lower, upper = L.lu_unpack(packed, pivots)
    np.testing.assert_allclose((p @ lower @ upper).numpy(), x, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(np.tril(lower.numpy(), -1), lower.numpy() - np.eye(*lower.shape[-2:]))
    np.testing.assert_array_equal(np.triu(upper.numpy()), upper.numpy())
    for index in np.ndindex(shape[:-2]):  # partial pivoting: every multiplier at most 1 in magnitude
        assert np.all(np.abs(lower.numpy()[index]) <= 1 + 1e-12)

    def through_unpack(a):
        _, low, up = L.lu_unpack(*L.lu(a))
        return low, up
    assert gradcheck(through_unpack, [t(x, grad=True)])
    assert gradgradcheck(lambda a: L.lu(a)[0], [t(x, grad=True)])


def test_lu_infos_method_and_paddle_example():
    x = t([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    packed, pivots, infos = x.lu(get_infos=True)
    np.testing.assert_array_equal(pivots.numpy(), [3, 3])
    np.testing.assert_allclose(packed.numpy(), [[5.0, 6.0], [0.2, 0.8], [0.6, 0.5]], rtol=1e-6)
    # One matrix gives infos of shape [1], as Paddle's (LUInferMeta); a batch gives one per matrix.
    assert infos.shape == [1] and int(infos) == 0 and infos.dtype == eager.int32
    singular = L.lu(t(np.array([[1.0, 2.0], [2.0, 4.0]])), get_infos=True)
    assert singular[2].shape == [1] and int(singular[2]) == 2
    batch = L.lu(t(np.array([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]]])), get_infos=True)
    assert batch[2].shape == [2] and batch[2].numpy().tolist() == [2, 0]
    assert L.lu(t(np.zeros((3, 2, 2, 2))), get_infos=True)[2].shape == [3, 2]
    assert len(x.lu()) == 2
    with pytest.raises(TypeError, match="lu: argument 'get_infos' expected a bool"):
        L.lu(x, get_infos=1)
    with pytest.raises(ValueError, match="lu: argument 'x' expected a float32 or float64 tensor"):
        L.lu(t([[1, 2], [3, 4]]))


def test_lu_unpack_errors():
    packed, pivots = L.lu(t(np.eye(3)))
    with pytest.raises(ValueError, match="lu_unpack: argument 'y' expected shape \\[3\\]"):
        L.lu_unpack(packed, t(np.array([1, 2], "int32")))
    with pytest.raises(ValueError, match="lu_unpack: argument 'y' expected pivots in \\[1, 3\\]"):
        L.lu_unpack(packed, t(np.array([1, 4, 3], "int32")))
    p, lower, upper = L.lu_unpack(packed, pivots, unpack_ludata=False)
    assert p.shape == [3, 3] and lower.shape == [0] and upper.shape == [0]


def test_eig_and_eigvals(rng):
    x = rng.normal(size=(2, 4, 4))
    w, v = L.eig(t(x))
    assert w.dtype == eager.complex128 and v.dtype == eager.complex128
    for i in range(2):  # x v = v diag(w)
        np.testing.assert_allclose(x[i] @ v.numpy()[i], v.numpy()[i] * w.numpy()[i][None, :], atol=1e-10)
    np.testing.assert_array_equal(t(x).eigvals().numpy(), w.numpy())
    rotation = L.eigvals(t(np.array([[0.0, -1.0], [1.0, 0.0]], "float32")))
    assert rotation.dtype == eager.complex64
    np.testing.assert_allclose(sorted(rotation.numpy(), key=lambda z: z.imag), [-1j, 1j], atol=1e-6)
    with pytest.raises(ValueError, match="eig: argument 'x' expected square matrices"):
        L.eig(t(np.ones((2, 3))))
    with pytest.raises(ValueError, match="eigvals: argument 'x' expected a float32, float64, complex64 or complex128"):
        L.eigvals(t([[1, 2], [3, 4]]))
    with pytest.raises(ValueError, match="eig: argument 'x' expected finite values"):
        L.eig(t(np.array([[1.0, np.nan], [0.0, 1.0]])))


def test_lu_and_eig_on_the_gpu_stand_in(device):
    x = t(np.array([[2.0, 1.0, 0.0], [4.0, 3.0, 1.0], [0.0, 1.0, 5.0]]), grad=True)
    packed, pivots = L.lu(x)
    p, lower, upper = L.lu_unpack(packed, pivots)
    np.testing.assert_allclose((p @ lower @ upper).numpy(), x.numpy(), atol=1e-12)
    (lower.sum() + upper.sum()).backward()
    assert x.grad.place == x.place
    w, _ = L.eig(x)
    assert w.place == x.place
    np.testing.assert_allclose(w.numpy().sum(), 10.0, atol=1e-10)


@pytest.mark.parametrize("name, call, reads", [
    ("histogram", lambda: eager.histogram(eager.to_tensor([1.0, 2.0, 2.5, 4.0], place="gpu"), bins=3), 0),
    ("histogram_range", lambda: eager.histogram(eager.to_tensor([1, 2, 9], place="gpu"), 2, 0, 4), 0),
    ("searchsorted", lambda: eager.searchsorted(eager.to_tensor([[1.0, 3.0], [2.0, 4.0]], place="gpu"),
                                                eager.to_tensor([[2.0], [5.0]], place="gpu")), 0),
    ("bucketize", lambda: eager.bucketize(eager.to_tensor([0.5, 3.0], place="gpu"),
                                          eager.to_tensor([1.0, 2.0], place="gpu")), 0),
    ("lu", lambda: eager.linalg.lu(eager.to_tensor(np.eye(3) + 1.0, place="gpu")), 0),
    # lu_unpack reads the pivots' smallest and largest value together, to check them
    ("lu_unpack", lambda: eager.linalg.lu_unpack(*eager.linalg.lu(eager.to_tensor(np.eye(3) + 1.0, place="gpu"))), 1),
])
@pytest.mark.skipif(REAL_GPU, reason="counts transfers with tests/fake_cupy.py's counters")
def test_gpu_reads_of_the_search_and_lu_kernels(name, call, reads):
    import fake_cupy

    call()  # caches
    down = fake_cupy.transfers[0]
    out = call()
    assert fake_cupy.transfers[0] - down == reads, f"{name}: {fake_cupy.transfers[0] - down} device reads"
    assert all(o.place.is_gpu_place() for o in (out if isinstance(out, tuple) else (out,)))
