"""The Paddle functions of the ops-gap round: is_tensor, create_parameter,
bucketize, index_sample, diff, trapezoid, cumulative_trapezoid, cdist, the
linalg additions and the nn additions (searchsorted and histogram are YAML ops:
their rows are in tests/op_specs/search_sort.py).

References are written from the maths with loops over elements; gradients are
checked against finite differences in float64; errors by type and message.
"""
import itertools

import numpy as np
import pytest

import eager
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
    ({"shape": [2], "dtype": "int64"}, TypeError, "argument 'dtype' expected a floating dtype"),
    ({"shape": [2], "dtype": "float32", "attr": False}, TypeError, "argument 'attr'"),
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
    (lambda: eager.trapezoid(t([1, 2])), TypeError, "argument 'y' expected a float16, float32 or float64"),
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
