"""The Paddle 2.x functions and Tensor methods added for scripts that run with
``import eager as paddle``: values against NumPy or hand-written loops, gradients
against finite differences (float64), errors by type and message, the inplace
rules for the fills, buffer sharing for the views, and the GPU path (on
tests/fake_cupy.py where no GPU is present) for the functions that touch index
values on the host."""
import doctest
import importlib
import itertools
import math

import numpy as np
import pytest

import eager as paddle
from eager.autograd import gradcheck
from eager.errors import AutogradError
from phi.api import FLAGS


def _t(values, dtype="float64", stop_gradient=True):
    return paddle.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=stop_gradient)


def _var(values):
    return _t(values, "float64", stop_gradient=False)


# -- 1. framework ---------------------------------------------------------------------------

def test_dynamic_mode_is_the_only_mode():
    assert paddle.in_dynamic_mode() is True
    assert paddle.disable_static() is None
    paddle.disable_static("cpu")
    assert paddle.get_device() == "cpu"
    with pytest.raises(ValueError, match="disable_static: argument 'device' expected 'cpu', 'gpu' or 'gpu:N'"):
        paddle.disable_static("tpu")
    assert paddle.get_device() == "cpu"
    with pytest.raises(RuntimeError, match=r"enable_static: .*eager.jit.to_static"):
        paddle.enable_static()
    assert paddle.in_dynamic_mode() is True


def test_flags_read_and_write_phi_flags_and_refuse_unknown_ones():
    before = FLAGS.check_infer_meta
    try:
        paddle.set_flags({"FLAGS_check_infer_meta": not before})
        assert FLAGS.check_infer_meta is (not before)
        assert paddle.get_flags("FLAGS_check_infer_meta") == {"FLAGS_check_infer_meta": not before}
        assert paddle.get_flags(["FLAGS_check_infer_meta"]) == {"FLAGS_check_infer_meta": not before}
    finally:
        FLAGS.check_infer_meta = before
    with pytest.raises(ValueError, match=r"get_flags: unknown flag 'FLAGS_no_such_flag'.*"
                                         r"FLAGS_check_infer_meta"):
        paddle.get_flags(["FLAGS_no_such_flag"])
    with pytest.raises(ValueError, match="set_flags: unknown flag 'FLAGS_nope'"):
        paddle.set_flags({"FLAGS_check_infer_meta": True, "FLAGS_nope": 1})
    assert FLAGS.check_infer_meta is before  # nothing set when one name is bad
    with pytest.raises(TypeError, match="set_flags: argument 'flags' expected a dict"):
        paddle.set_flags(["FLAGS_check_infer_meta"])
    with pytest.raises(TypeError, match="set_flags: flag 'FLAGS_check_infer_meta' expected a bool, got 'yes'"):
        paddle.set_flags({"FLAGS_check_infer_meta": "yes"})


def test_dtype_queries_functions_and_methods():
    f, c, i, b = paddle.ones([2]), _t([1j], "complex128"), _t([1], "int32"), _t([True], "bool")
    assert [paddle.is_floating_point(t) for t in (f, c, i, b)] == [True, False, False, False]
    assert [paddle.is_complex(t) for t in (f, c, i, b)] == [False, True, False, False]
    assert [paddle.is_integer(t) for t in (f, c, i, b)] == [False, False, True, False]
    assert f.is_floating_point() and c.is_complex() and i.is_integer()
    with pytest.raises(TypeError, match="is_floating_point: argument 'x' expected a Tensor, got list"):
        paddle.is_floating_point([1.0])


def test_size_queries_return_paddle_tensors():
    x = paddle.zeros([2, 0, 3])
    assert bool(paddle.is_empty(x)) and not bool(paddle.is_empty(paddle.zeros([1])))
    assert paddle.is_empty(x).dtype == paddle.bool and x.is_empty().shape == []
    n = paddle.numel(paddle.zeros([2, 3]))
    assert n.shape == [] and n.dtype == paddle.int64 and int(n) == 6
    s = paddle.shape(x)
    assert s.dtype == paddle.int32 and s.numpy().tolist() == [2, 0, 3]
    assert paddle.shape(paddle.to_tensor(1.0)).shape == [0]
    r = paddle.rank(paddle.zeros([2, 3, 4]))
    assert r.shape == [] and r.dtype == paddle.int32 and int(r) == 3 and int(x.rank()) == 3
    assert x.ndimension() == 3 and x.dim() == 3 and x.ndim == 3
    assert paddle.zeros([1], dtype="float64").element_size() == 8 and _t([1], "int16").element_size() == 2
    assert paddle.tolist(_t([[1, 2], [3, 4]], "int64")) == [[1, 2], [3, 4]]


def test_broadcast_shape():
    assert paddle.broadcast_shape([2, 1, 3], [4, 3]) == [2, 4, 3]
    assert paddle.broadcast_shape([], [5]) == [5]
    with pytest.raises(ValueError, match=r"broadcast_shape: .*cannot be broadcast"):
        paddle.broadcast_shape([2, 3], [4, 3])
    with pytest.raises(TypeError, match="broadcast_shape: argument 'y_shape' expected a list or tuple"):
        paddle.broadcast_shape([2], 3)


# -- 2. maths ------------------------------------------------------------------------------

def test_mm_and_addmm(rng):
    a, b, c = rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), rng.normal(size=(1, 2))
    np.testing.assert_allclose(paddle.mm(_t(a), _t(b)).numpy(), a @ b)
    np.testing.assert_allclose(_t(a).mm(_t(b)).numpy(), a @ b)
    np.testing.assert_allclose(paddle.addmm(_t(c), _t(a), _t(b), beta=0.5, alpha=2.0).numpy(), 0.5 * c + 2 * a @ b)
    np.testing.assert_allclose(_t(c).addmm(_t(a), _t(b)).numpy(), c + a @ b)
    assert gradcheck(lambda i, x, y: paddle.addmm(i, x, y, 0.3, -1.5), (_var(c), _var(a), _var(b)))
    with pytest.raises(ValueError, match=r"addmm: x's columns must equal y's rows, got shapes \[3, 4\] and \[3, 2\]"):
        paddle.addmm(_t(c), _t(a), _t(rng.normal(size=(3, 2))))
    with pytest.raises(ValueError, match=r"addmm: argument 'input' expected a shape that broadcasts to \[3, 2\]"):
        paddle.addmm(_t(np.ones(3)), _t(a), _t(b))
    with pytest.raises(ValueError, match=r"mm: matmul: "):
        paddle.mm(_t(a), _t(a))


@pytest.mark.parametrize("axes, numpy_axes", [
    (2, 2), (0, 0), ([[1, 2], [1, 0]], ([1, 2], [1, 0])),
    ([1], ([1], [1])),                       # one list: the same axes of both
    ([[0, 1], [1]], ([0, 1], [1, 0])),      # Paddle completes y's list from x's: [1] -> [1, 0]... see below
])
def test_tensordot_against_numpy(rng, axes, numpy_axes):
    x = rng.normal(size=(3, 3, 3))
    y = rng.normal(size=(3, 3, 2))
    if axes == [[0, 1], [1]]:
        numpy_axes = ([0, 1], [1, 1])  # completed as [1, 1]: an axis named twice is refused
        with pytest.raises(ValueError, match="tensordot: argument 'axes' names an axis twice"):
            paddle.tensordot(_t(x), _t(y), axes)
        axes, numpy_axes = [[0, 1], [1, 0]], ([0, 1], [1, 0])
    out = paddle.tensordot(_t(x), _t(y), axes)
    np.testing.assert_allclose(out.numpy(), np.tensordot(x, y, numpy_axes), atol=1e-12)
    assert gradcheck(lambda a, b: paddle.tensordot(a, b, axes), (_var(x), _var(y)))
    assert paddle.tensordot(_t(x), _t(y), _t(np.array(axes), "int64") if not isinstance(axes, int)
                            else axes).shape == list(out.shape)


def test_tensordot_errors():
    with pytest.raises(ValueError, match=r"tensordot: axis 1 of x \(size 3\) and axis 0 of y \(size 4\)"):
        paddle.tensordot(paddle.ones([2, 3]), paddle.ones([4, 3]), [[1], [0]])
    with pytest.raises(ValueError, match="tensordot: argument 'axes' as an int expected 0 to 2"):
        paddle.tensordot(paddle.ones([2, 3]), paddle.ones([3, 4]), 3)
    with pytest.raises(TypeError, match="tensordot: argument 'axes' expected an int, a list/tuple or a Tensor"):
        paddle.tensordot(paddle.ones([2, 3]), paddle.ones([3, 4]), "1")


@pytest.mark.parametrize("p", [2, 1, 3.5, 0, math.inf, -math.inf])
def test_dist_against_numpy(rng, p):
    x, y = rng.normal(size=(3, 1)), rng.normal(size=(4,))
    d = np.abs(x - y).ravel()
    expected = {0: np.count_nonzero(d), math.inf: d.max(), -math.inf: d.min()}.get(p, (d ** p).sum() ** (1 / p) if p else 0)
    out = paddle.dist(_t(x), _t(y), p)
    assert out.shape == []
    np.testing.assert_allclose(out.numpy(), expected)
    if p != 0:
        assert gradcheck(lambda a, b: paddle.dist(a, b, p), (_var(x), _var(y)))


def test_add_n(rng):
    a, b, c = (rng.normal(size=(2, 3)) for _ in range(3))
    np.testing.assert_allclose(paddle.add_n([_t(a), _t(b), _t(c)]).numpy(), a + b + c)
    single = _t(a)
    out = paddle.add_n(single)
    np.testing.assert_array_equal(out.numpy(), a)
    assert out.impl.buffer_id != single.impl.buffer_id
    assert gradcheck(lambda *xs: paddle.add_n(list(xs)), (_var(a), _var(b), _var(c)))
    with pytest.raises(ValueError, match=r"add_n: argument 'inputs' expected tensors of one shape and dtype, "
                                         r"element 0 is paddle.float64\[2, 3\] and element 1 is paddle.float64\[3\]"):
        paddle.add_n([_t(a), _t([1.0, 2, 3])])
    with pytest.raises(TypeError, match="add_n: argument 'inputs' expected a non-empty list"):
        paddle.add_n([])


def test_logit_sinc_stanh_sgn_signbit(rng):
    x = rng.uniform(0.05, 0.95, size=(5,))
    np.testing.assert_allclose(paddle.logit(_t(x)).numpy(), np.log(x / (1 - x)))
    edge = np.array([0.0, 0.5, 1.0, 1e-9])
    clipped = np.clip(edge, 1e-3, 1 - 1e-3)
    np.testing.assert_allclose(paddle.logit(_t(edge), eps=1e-3).numpy(), np.log(clipped / (1 - clipped)))
    assert np.isnan(paddle.logit(_t([1.5])).numpy()).all()
    assert gradcheck(lambda t: paddle.logit(t, 0.2), (_var([0.1, 0.5, 0.7]),))
    with pytest.raises(ValueError, match=r"logit: argument 'eps' expected a number in \[0, 0.5\], got 0.7"):
        paddle.logit(_t(x), eps=0.7)
    with pytest.raises(TypeError, match="logit: argument 'x' expected a floating-point Tensor"):
        paddle.logit(_t([1], "int64"))

    s = np.array([-2.5, -1.0, 0.0, 0.3, 1.0, 4.0])
    np.testing.assert_allclose(paddle.sinc(_t(s)).numpy(), np.sinc(s), atol=1e-15)
    assert gradcheck(paddle.sinc, (_var([-0.7, 0.0, 0.2, 1.3]),))  # the gradient at 0 is 0, not NaN
    np.testing.assert_allclose(paddle.stanh(_t(s)).numpy(), 1.7159 * np.tanh(0.67 * s))
    np.testing.assert_allclose(_t(s).stanh(2.0, 0.5).numpy(), 0.5 * np.tanh(2.0 * s))
    assert gradcheck(lambda t: paddle.stanh(t, 0.3, 2.0), (_var(s),))

    np.testing.assert_array_equal(paddle.sgn(_t(s)).numpy(), np.sign(s))
    z = np.array([3 + 4j, 0j, -2j])
    np.testing.assert_allclose(paddle.sgn(_t(z, "complex128")).numpy(), [0.6 + 0.8j, 0, -1j])
    np.testing.assert_array_equal(paddle.signbit(_t([-1.0, -0.0, 0.0, 2.0, -np.inf])).numpy(),
                                  np.signbit([-1.0, -0.0, 0.0, 2.0, -np.inf]))
    np.testing.assert_array_equal(paddle.signbit(_t([-3, 0, 2], "int32")).numpy(), [True, False, False])


def test_angles_frexp_ldexp(rng):
    d = rng.uniform(-360, 360, size=(4,))
    np.testing.assert_allclose(paddle.deg2rad(_t(d)).numpy(), np.deg2rad(d))
    np.testing.assert_allclose(paddle.rad2deg(_t(d)).numpy(), np.rad2deg(d))
    as_int = paddle.deg2rad(_t([180], "int64"))
    assert as_int.dtype == paddle.float32 and np.isclose(as_int.numpy()[0], np.pi)
    assert gradcheck(paddle.rad2deg, (_var(d),))

    values = np.array([8.0, -3.0, 0.0, 1e-310, 1.7e308, 0.1, -0.75, 1 - 1e-16, np.inf])
    mantissa, exponent = paddle.frexp(_t(values))
    ref_m, ref_e = np.frexp(values)
    np.testing.assert_array_equal(mantissa.numpy(), ref_m)
    np.testing.assert_array_equal(exponent.numpy(), ref_e.astype(np.float64))
    assert exponent.dtype == paddle.float64
    assert gradcheck(lambda t: paddle.frexp(t)[0], (_var([3.0, -0.3, 100.0]),))

    x, e = rng.normal(size=(3,)), np.array([3, -1, 0])
    np.testing.assert_allclose(paddle.ldexp(_t(x), _t(e, "int64")).numpy(), np.ldexp(x, e))
    assert paddle.ldexp(_t([3], "int32"), _t([2], "int32")).dtype == paddle.float32
    assert gradcheck(lambda t: paddle.ldexp(t, _t(e, "int64")), (_var(x),))
    # a float y is a real power of 2, as Paddle 2.6.2 (it casts y to the result's float dtype)
    np.testing.assert_allclose(paddle.ldexp(_t(x), _t(x)).numpy(), x * 2.0 ** x)
    with pytest.raises(TypeError, match="ldexp: argument 'y' expected a real Tensor, got paddle.complex128"):
        paddle.ldexp(_t(x), _t(x + 1j, "complex128"))


def test_logaddexp(rng):
    x, y = rng.normal(size=(3, 1)) * 5, rng.normal(size=(4,)) * 5
    np.testing.assert_allclose(paddle.logaddexp(_t(x), _t(y)).numpy(), np.logaddexp(x, y))
    big = np.array([1000.0, -np.inf, np.inf, 1.0, -np.inf])
    other = np.array([1000.0, -np.inf, 3.0, -np.inf, 2.0])
    np.testing.assert_allclose(paddle.logaddexp(_t(big), _t(other)).numpy(), np.logaddexp(big, other))
    assert gradcheck(paddle.logaddexp, (_var(x), _var(y)))
    tie = _var([0.5])
    paddle.logaddexp(tie, _t([0.5])).backward()
    np.testing.assert_allclose(tie.grad.numpy(), [0.5])  # the true derivative at a tie


def test_heaviside_gcd_lcm():
    x = np.array([-1.5, 0.0, 2.0, 0.0])
    y = np.array([0.3, 0.7, 0.1, 0.9])
    np.testing.assert_array_equal(paddle.heaviside(_t(x), _t(y)).numpy(), np.heaviside(x, y))
    xv, yv = _var(x), _var(y)
    paddle.heaviside(xv, yv).sum().backward()
    assert xv.grad is None  # x reaches the output only through comparisons: no gradient
    np.testing.assert_array_equal(yv.grad.numpy(), x == 0)
    a = np.array([[12, 0, -9, 0, 7], [35, 14, 0, 5, -21]])
    b = np.array([18, 5, 6, 0, 14])
    np.testing.assert_array_equal(paddle.gcd(_t(a, "int64"), _t(b, "int64")).numpy(), np.gcd(a, b))
    np.testing.assert_array_equal(paddle.lcm(_t(a, "int32"), _t(b, "int32")).numpy(), np.lcm(a, b))
    with pytest.raises(TypeError, match="gcd: argument 'x' expected an integer Tensor, got paddle.float64"):
        paddle.gcd(_t([1.0]), _t([2.0]))
    with pytest.raises(TypeError, match="lcm: arguments 'x' and 'y' expected the same dtype"):
        paddle.lcm(_t([1], "int32"), _t([2], "int64"))


def test_renorm_against_a_loop(rng):
    x = rng.normal(size=(3, 4, 2)) * 3
    for p, axis, max_norm in ((2.0, 1, 2.5), (1.0, 0, 4.0), (3.0, -1, 1.0)):
        expected = x.copy()
        for k in range(x.shape[axis]):
            part = np.take(x, k, axis=axis)
            norm = (np.abs(part) ** p).sum() ** (1 / p)
            scale = max_norm / (norm + 1e-7) if norm > max_norm else 1.0
            index = [slice(None)] * 3
            index[axis] = k
            expected[tuple(index)] = part * scale
        np.testing.assert_allclose(paddle.renorm(_t(x), p, axis, max_norm).numpy(), expected, rtol=1e-12)
    assert gradcheck(lambda t: paddle.renorm(t, 2.0, 1, 2.5), (_var(x),))
    with pytest.raises(ValueError, match=r"renorm: argument 'axis' expected an axis in \[-3, 2\]"):
        paddle.renorm(_t(x), 2.0, 3, 1.0)


def test_take_modes_match_numpy():
    x = np.arange(12).reshape(3, 4)
    index = np.arange(-2, 13).reshape(3, 5)
    for mode in ("wrap", "clip"):
        np.testing.assert_array_equal(paddle.take(_t(x, "int64"), _t(index, "int64"), mode).numpy(),
                                      np.take(x, index, mode=mode if mode == "wrap" else "clip")
                                      if mode == "wrap" else np.take(x, np.clip(index, 0, 11)))
    inside = np.array([[0, -1], [5, -12]])
    np.testing.assert_array_equal(paddle.take(_t(x, "int64"), _t(inside, "int32")).numpy(), np.take(x, inside))
    np.testing.assert_array_equal(_t(x, "int64").take(_t(inside, "int64")).numpy(), np.take(x, inside))
    with pytest.raises(IndexError, match=r"take: argument 'index' holds 12, outside \[-12, 12\)"):
        paddle.take(_t(x), _t(index, "int64"))
    with pytest.raises(ValueError, match="take: argument 'mode' expected one of 'raise', 'wrap', 'clip'"):
        paddle.take(_t(x), _t([0], "int64"), "fill")
    with pytest.raises(TypeError, match="take: argument 'index' expected an integer Tensor, got paddle.float64"):
        paddle.take(_t(x), _t([0.0]))
    w = _var(np.arange(6.0).reshape(2, 3))
    assert gradcheck(lambda t: paddle.take(t, _t([[0, 5], [5, -1]], "int64")), (w,))


def test_isin():
    x = np.array([[1, 2, 3], [4, 5, 6]])
    test = np.array([2, 4, 6, 8])
    np.testing.assert_array_equal(paddle.isin(_t(x, "int64"), _t(test, "int64")).numpy(), np.isin(x, test))
    np.testing.assert_array_equal(paddle.isin(_t(x, "int64"), _t(test, "int64"), invert=True).numpy(),
                                  np.isin(x, test, invert=True))
    big = np.arange(3000)
    np.testing.assert_array_equal(paddle.isin(_t(big, "int64"), _t(big[::7] * 2, "int64")).numpy(),
                                  np.isin(big, big[::7] * 2))
    with pytest.raises(TypeError, match="isin: arguments 'x' and 'test_x' expected the same dtype"):
        paddle.isin(_t(x, "int64"), _t(test, "float64"))


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint"])
def test_quantile_and_nanquantile_against_numpy(rng, method):
    x = rng.normal(size=(3, 4, 5))
    for q, axis, keepdim in ((0.3, None, False), ([0.1, 0.5, 1.0], 1, True), (0.75, [0, 2], False)):
        np_axis = tuple(axis) if isinstance(axis, list) else axis
        out = paddle.quantile(_t(x), q, axis=axis, keepdim=keepdim, interpolation=method)
        np.testing.assert_allclose(out.numpy(), np.quantile(x, q, axis=np_axis, keepdims=keepdim, method=method))
    holey = x.copy()
    holey[0, 1, 2] = holey[2, 3, 0] = np.nan
    holey[1, :, 4] = np.nan
    with np.errstate(all="ignore"):
        expected = np.nanquantile(holey, [0.2, 0.9], axis=1, method=method)
    np.testing.assert_allclose(paddle.nanquantile(_t(holey), [0.2, 0.9], axis=1, interpolation=method).numpy(),
                               expected)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(paddle.quantile(_t(holey), 0.5, axis=2).numpy(), np.quantile(holey, 0.5, axis=2))


def test_quantile_nearest_rounds_half_away_from_zero_and_gradients(rng):
    x = np.array([4.0, 1.0, 3.0, 2.0])
    # positions (n - 1) * q: 0.5 -> 1, 1.5 -> 2, 2.4 -> 2
    out = paddle.quantile(_t(x), [0.5 / 3, 1.5 / 3, 2.4 / 3], interpolation="nearest")
    np.testing.assert_array_equal(out.numpy(), [2.0, 3.0, 3.0])
    data = rng.normal(size=(3, 5))
    assert gradcheck(lambda t: paddle.quantile(t, [0.3, 0.8], axis=1), (_var(data),))
    holey = data.copy()
    holey[1, 2] = np.nan
    assert gradcheck(lambda t: paddle.nanquantile(t, 0.4, axis=1), (_var(holey),))
    with pytest.raises(ValueError, match=r"quantile: argument 'q' expected numbers in \[0, 1\], got 1.5"):
        paddle.quantile(_t(x), 1.5)
    with pytest.raises(ValueError, match="quantile: argument 'interpolation' expected one of"):
        paddle.quantile(_t(x), 0.5, interpolation="cubic")
    # Paddle's quantile and nanquantile answer in float64 whatever the input dtype.
    assert paddle.quantile(_t([1, 2, 3, 4], "int64"), 0.5).dtype == paddle.float64
    assert paddle.nanquantile(_t([1.0, 2.0], "float32"), [0.5], axis=0).dtype == paddle.float64
    assert paddle.nanmedian(_t([1.0, 2.0], "float32")).dtype == paddle.float32


def test_nanmedian():
    x = np.array([[np.nan, 2.0, 3.0], [0.0, 1.0, 2.0]])
    assert float(paddle.nanmedian(_t(x))) == 2.0
    np.testing.assert_array_equal(paddle.nanmedian(_t(x), 0).numpy(), [0.0, 1.5, 2.5])
    assert paddle.nanmedian(_t(x), 0, keepdim=True).shape == [1, 3]
    np.testing.assert_array_equal(_t(x).nanmedian(1).numpy(), np.nanmedian(x, 1))
    assert np.isnan(paddle.nanmedian(_t([np.nan, np.nan])).numpy())
    assert gradcheck(lambda t: paddle.nanmedian(t, 1), (_var(x),))


def test_increment_is_inplace_and_checks_its_tensor():
    step = _t([0], "int64")
    version = step.inplace_version
    out = paddle.increment(step)
    assert out is step and step.numpy().tolist() == [1] and step.inplace_version > version
    paddle.increment(step, 5)
    assert step.numpy().tolist() == [6]
    lr = _t(0.5)
    lr.increment(-0.25)
    assert float(lr) == 0.25
    with pytest.raises(ValueError, match=r"increment: argument 'x' expected a tensor of one element, got shape \[2\]"):
        paddle.increment(paddle.ones([2]))
    with pytest.raises(TypeError, match="increment: a paddle.int64 tensor cannot be incremented by the fraction 0.5"):
        paddle.increment(step, 0.5)
    assert step.numpy().tolist() == [6]


# -- 3. shapes -----------------------------------------------------------------------------

def test_stacks_match_numpy(rng):
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    v1, v2 = rng.normal(size=(3,)), rng.normal(size=(3,))
    np.testing.assert_array_equal(paddle.hstack([_t(a), _t(b)]).numpy(), np.hstack([a, b]))
    np.testing.assert_array_equal(paddle.hstack([_t(v1), _t(v2)]).numpy(), np.hstack([v1, v2]))
    np.testing.assert_array_equal(paddle.vstack([_t(v1), _t(v2)]).numpy(), np.vstack([v1, v2]))
    np.testing.assert_array_equal(paddle.row_stack([_t(a), _t(v1)]).numpy(), np.vstack([a, v1]))
    np.testing.assert_array_equal(paddle.dstack([_t(a), _t(b)]).numpy(), np.dstack([a, b]))
    np.testing.assert_array_equal(paddle.dstack([_t(v1), _t(v2)]).numpy(), np.dstack([v1, v2]))
    np.testing.assert_array_equal(paddle.column_stack([_t(v1), _t(a.T)]).numpy(), np.column_stack([v1, a.T]))
    assert gradcheck(lambda x, y: paddle.dstack([x, y]), (_var(a), _var(b)))
    assert gradcheck(lambda x, y: paddle.column_stack([x, y]), (_var(v1), _var(a.T)))
    with pytest.raises(TypeError, match="hstack: argument 'x' expected Tensors, element 1 is ndarray"):
        paddle.hstack([_t(a), a])
    with pytest.raises(ValueError, match="vstack: concat: "):
        paddle.vstack([_t(a), _t(np.ones(4))])


def test_atleast_nd_follow_numpy():
    for shape in ([], [3], [2, 3], [2, 3, 4], [1, 2, 3, 4]):
        x = np.ones(shape)
        assert paddle.atleast_1d(_t(x)).shape == list(np.atleast_1d(x).shape)
        assert paddle.atleast_2d(_t(x)).shape == list(np.atleast_2d(x).shape)
        assert paddle.atleast_3d(_t(x)).shape == list(np.atleast_3d(x).shape)
    several = paddle.atleast_2d(_t(1.0), _t([1.0, 2.0]))
    assert isinstance(several, list) and [t.shape for t in several] == [[1, 1], [1, 2]]
    x = _t([1.0, 2.0])
    assert paddle.atleast_3d(x).impl.buffer_id == x.impl.buffer_id  # a view, as reshape's


def test_splits_match_numpy():
    x = np.arange(24.0).reshape(2, 4, 3)
    for ours, theirs, arg in ((paddle.hsplit, np.hsplit, 2), (paddle.vsplit, np.vsplit, 2),
                              (paddle.dsplit, np.dsplit, 3), (paddle.hsplit, np.hsplit, [1, 3])):
        got = ours(_t(x), arg)
        want = theirs(x, arg)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w)
    np.testing.assert_array_equal(paddle.hsplit(_t(np.arange(6.0)), 3)[2].numpy(), [4.0, 5.0])
    assert [t.shape for t in _t(x).vsplit(2)] == [[1, 4, 3], [1, 4, 3]]
    with pytest.raises(ValueError, match=r"vsplit: argument 'x' expected at least 2 dimension\(s\), got shape \[6\]"):
        paddle.vsplit(_t(np.arange(6.0)), 2)
    with pytest.raises(ValueError, match="dsplit: argument 'num_or_indices' as an int must divide axis 2's size 3"):
        paddle.dsplit(_t(x), 2)


def test_unflatten_view_view_as_share_the_buffer():
    x = paddle.to_tensor(np.arange(12.0).reshape(3, 4))
    u = paddle.unflatten(x, 1, [2, -1])
    assert u.shape == [3, 2, 2] and u.impl.buffer_id == x.impl.buffer_id
    v = paddle.view(x, [4, 3])
    w = x.view_as(paddle.zeros([2, 6]))
    assert v.shape == [4, 3] and w.shape == [2, 6]
    assert v.impl.buffer_id == x.impl.buffer_id == w.impl.buffer_id
    x[0, 0] = 100.0  # a write to x is seen through the views, and moves their shared version counter
    assert v.numpy()[0, 0] == 100.0 and w.inplace_version == x.inplace_version > 0
    leaf = _var(np.arange(6.0))
    assert gradcheck(lambda t: paddle.view(t, [3, 2]) * paddle.unflatten(t, 0, [2, 3]).reshape([3, 2]), (leaf,))
    with pytest.raises(TypeError, match="view: argument 'shape_or_dtype' expected a list or tuple of ints .* or a dtype"):
        paddle.view(x, "no-such-dtype")
    with pytest.raises(ValueError, match=r"view: shape \[5, -1\] does not hold x's 12 elements"):
        paddle.view(x, [5, -1])
    with pytest.raises(ValueError, match=r"unflatten: argument 'shape' \[3, 2\] does not split axis 1 of size 4"):
        paddle.unflatten(x, 1, [3, 2])
    with pytest.raises(ValueError, match=r"view_as: argument 'other' has 5 elements"):
        paddle.view_as(x, paddle.zeros([5]))


def test_unique_consecutive_against_a_loop():
    values = [1, 1, 2, 2, 3, 1, 1, 2]
    out, inverse, counts = paddle.unique_consecutive(_t(values, "int64"), return_inverse=True, return_counts=True)
    runs = [(k, len(list(g))) for k, g in itertools.groupby(values)]
    assert out.numpy().tolist() == [k for k, _ in runs]
    assert counts.numpy().tolist() == [n for _, n in runs]
    assert inverse.numpy().tolist() == [i for i, (_, n) in enumerate(runs) for _ in range(n)]
    assert paddle.unique_consecutive(_t(values, "int64")).numpy().tolist() == [1, 2, 3, 1, 2]
    grid = np.array([[1, 1, 2], [1, 1, 2], [3, 3, 3], [1, 1, 2]])
    rows, counts = paddle.unique_consecutive(_t(grid, "int32"), return_counts=True, axis=0, dtype="int32")
    assert rows.numpy().tolist() == [[1, 1, 2], [3, 3, 3], [1, 1, 2]] and counts.numpy().tolist() == [2, 1, 1]
    assert counts.dtype == paddle.int32
    cols = paddle.unique_consecutive(_t(grid.T, "int32"), axis=1)
    assert cols.numpy().tolist() == np.array([[1, 1, 2], [3, 3, 3], [1, 1, 2]]).T.tolist()
    with pytest.raises(TypeError, match="unique_consecutive: argument 'dtype' expected 'int32' or 'int64', got 'float32'"):
        paddle.unique_consecutive(_t(values, "int64"), dtype="float32")


def test_index_fill_and_inplace_index_fill():
    x = np.arange(12.0).reshape(3, 4)
    expected = x.copy()
    expected[:, [0, 2]] = -1.0
    np.testing.assert_array_equal(paddle.index_fill(_t(x), _t([0, 2], "int64"), 1, -1.0).numpy(), expected)
    t = _t(x)
    assert paddle.index_fill_(t, _t([0, -2], "int64"), 1, -1.0) is t
    np.testing.assert_array_equal(t.numpy(), expected)
    leaf, value = _var(x), _var(3.0)
    paddle.index_fill(leaf, _t([1], "int64"), 0, value).sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), [[1] * 4, [0] * 4, [1] * 4])
    assert float(value.grad) == 4.0
    with pytest.raises(IndexError, match=r"index_fill: argument 'index' holds values outside \[-3, 3\)"):
        paddle.index_fill(_t(x), _t([3], "int64"), 0, 1.0)
    untouched = _t(x)
    with pytest.raises(IndexError, match=r"index_fill_: argument 'index' holds values outside"):
        untouched.index_fill_(_t([5], "int64"), 1, 1.0)
    np.testing.assert_array_equal(untouched.numpy(), x)


def test_scatters_against_numpy(rng):
    x = rng.normal(size=(3, 4, 5))
    diag = rng.normal(size=(5, 3))
    out = paddle.diagonal_scatter(_t(x), _t(diag), offset=1, axis1=0, axis2=1)
    expected = x.copy()
    for k in range(3):
        expected[k, k + 1, :] = diag[:, k]
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(paddle.diagonal(out, 1, 0, 1).numpy(), diag)
    assert gradcheck(lambda a, b: paddle.diagonal_scatter(a, b, -1, 2, 1), (_var(x), _var(rng.normal(size=(3, 4)))))

    row = rng.normal(size=(3, 5))
    expected = x.copy()
    expected[:, 2, :] = row
    np.testing.assert_array_equal(paddle.select_scatter(_t(x), _t(row), 1, -2).numpy(), expected)
    assert gradcheck(lambda a, b: paddle.select_scatter(a, b, 2, 0), (_var(x), _var(rng.normal(size=(3, 4)))))

    block = rng.normal(size=(3, 2, 2))
    expected = x.copy()
    expected[:, 1:4:2, 0:2] = block
    np.testing.assert_array_equal(
        paddle.slice_scatter(_t(x), _t(block), axes=[1, 2], starts=[1, 0], ends=[4, 2], strides=[2, 1]).numpy(),
        expected)
    assert gradcheck(lambda a, b: paddle.slice_scatter(a, b, [1, 2], [1, 0], [4, 2], [2, 1]),
                     (_var(x), _var(block)))
    with pytest.raises(ValueError, match=r"diagonal_scatter: argument 'y' expected the diagonal's shape \[5, 3\]"):
        paddle.diagonal_scatter(_t(x), _t(row), 1)
    with pytest.raises(IndexError, match=r"select_scatter: argument 'index' expected a position in \[-4, 4\)"):
        paddle.select_scatter(_t(x), _t(row), 1, 4)
    with pytest.raises(ValueError, match="slice_scatter: argument 'strides' expected positive ints"):
        paddle.slice_scatter(_t(x), _t(block), [1], [0], [4], [0])


def test_index_helpers_and_products(rng):
    for row, col, offset in ((3, 3, 0), (4, 2, 1), (2, 5, -1)):
        np.testing.assert_array_equal(paddle.tril_indices(row, col, offset).numpy(),
                                      np.stack(np.tril_indices(row, offset, col)))
        np.testing.assert_array_equal(paddle.triu_indices(row, col, offset).numpy(),
                                      np.stack(np.triu_indices(row, offset, col)))
    assert paddle.triu_indices(3, dtype="int32").dtype == paddle.int32
    with pytest.raises(ValueError, match="tril_indices: argument 'row' expected an int >= 0, got -1"):
        paddle.tril_indices(-1, 2)

    x = rng.normal(size=(4,))
    np.testing.assert_allclose(paddle.vander(_t(x)).numpy(), np.vander(x))
    np.testing.assert_allclose(paddle.vander(_t(x), 3, increasing=True).numpy(), np.vander(x, 3, increasing=True))
    assert gradcheck(lambda t: paddle.vander(t, 4), (_var([0.0, 1.5, -2.0]),))  # finite at x = 0

    got = paddle.combinations(_t(x), 3).numpy()
    np.testing.assert_array_equal(got, np.array(list(itertools.combinations(x, 3))))
    got = paddle.combinations(_t(x), 2, with_replacement=True).numpy()
    np.testing.assert_array_equal(got, np.array(list(itertools.combinations_with_replacement(x, 2))))
    assert paddle.combinations(_t(x), 5).shape == [0, 5]
    assert gradcheck(lambda t: paddle.combinations(t, 2), (_var(x),))

    a, b, c = _t([1, 2], "int64"), _t([3, 4, 5], "int64"), _t([6], "int64")
    np.testing.assert_array_equal(paddle.cartesian_prod([a, b, c]).numpy(),
                                  np.array(list(itertools.product([1, 2], [3, 4, 5], [6]))))

    blocks = [rng.normal(size=(2, 3)), rng.normal(size=(1,)), rng.normal(size=(3, 1))]
    expected = np.zeros((6, 5))
    expected[0:2, 0:3], expected[2, 3], expected[3:6, 4] = blocks[0], blocks[1][0], blocks[2][:, 0]
    np.testing.assert_array_equal(paddle.block_diag([_t(m) for m in blocks]).numpy(), expected)
    assert gradcheck(lambda *ms: paddle.block_diag(list(ms)), tuple(_var(m) for m in blocks))


def test_complex_views(rng):
    r, a = rng.uniform(0.5, 2, size=(3,)), rng.uniform(-3, 3, size=(3,))
    np.testing.assert_allclose(paddle.polar(_t(r), _t(a)).numpy(), r * np.exp(1j * a))
    pairs = rng.normal(size=(2, 3, 2))
    z = paddle.as_complex(_t(pairs))
    assert z.dtype == paddle.complex128 and z.shape == [2, 3]
    np.testing.assert_array_equal(z.numpy(), pairs[..., 0] + 1j * pairs[..., 1])
    np.testing.assert_array_equal(paddle.as_real(z).numpy(), pairs)
    assert gradcheck(lambda t: paddle.as_real(paddle.as_complex(t) * paddle.as_complex(t)), (_var(pairs),))
    assert gradcheck(lambda m, p: paddle.as_real(paddle.polar(m, p)), (_var(r), _var(a)))
    with pytest.raises(ValueError, match=r"as_complex: argument 'x' expected a last axis of size 2, got shape \[3\]"):
        paddle.as_complex(_t(r))
    with pytest.raises(TypeError, match="as_real: argument 'x' expected a complex Tensor, got paddle.float64"):
        paddle.as_real(_t(r))


# -- 4. Tensor methods ---------------------------------------------------------------------

def test_random_fills_are_inplace_and_follow_the_inplace_rules():
    paddle.seed(7)
    x = paddle.zeros([2000], dtype="float64")
    buffer, version = x.impl.buffer_id, x.inplace_version
    assert x.uniform_(-2.0, 3.0) is x and x.impl.buffer_id == buffer and x.inplace_version > version
    values = x.numpy()
    assert values.min() >= -2.0 and values.max() < 3.0 and abs(values.mean() - 0.5) < 0.15
    x.normal_(1.0, 0.5)
    assert abs(x.numpy().mean() - 1.0) < 0.05 and abs(x.numpy().std() - 0.5) < 0.05
    x.exponential_(4.0)
    assert x.numpy().min() >= 0 and abs(x.numpy().mean() - 0.25) < 0.03
    x.bernoulli_(0.2)
    assert set(np.unique(x.numpy())) <= {0.0, 1.0} and abs(x.numpy().mean() - 0.2) < 0.04
    mask = paddle.zeros([3, 2]).bernoulli_(paddle.to_tensor([0.0, 1.0]))
    assert mask.numpy().tolist() == [[0.0, 1.0]] * 3
    leaf = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(AutogradError, match="cannot be modified in place"):
        leaf.uniform_()
    assert leaf.numpy().tolist() == [1.0, 2.0]
    with paddle.no_grad():
        leaf.normal_()
    with pytest.raises(ValueError, match=r"uniform_: argument 'min' \(2.0\) must not exceed 'max' \(1.0\)"):
        x.uniform_(2.0, 1.0)
    with pytest.raises(TypeError, match="normal_: expected a floating-point tensor, got paddle.int64"):
        _t([1, 2], "int64").normal_()


def test_fill_diagonal_matches_numpy():
    for shape, wrap in (((3, 3), False), ((5, 2), True), ((5, 2), False), ((2, 4), False), ((3, 3, 3), False)):
        expected = np.zeros(shape)
        np.fill_diagonal(expected, 7.0, wrap=wrap)
        got = paddle.zeros(list(shape), dtype="float64").fill_diagonal_(7.0, wrap=wrap)
        np.testing.assert_array_equal(got.numpy(), expected)
    shifted = paddle.zeros([3, 4]).fill_diagonal_(1.0, offset=1).numpy()
    np.testing.assert_array_equal(shifted, np.eye(3, 4, 1))
    shifted = paddle.zeros([3, 4]).fill_diagonal_(1.0, offset=-1).numpy()
    np.testing.assert_array_equal(shifted, np.eye(3, 4, -1))
    with pytest.raises(ValueError, match=r"fill_diagonal_: a tensor of more than 2 dimensions must have them all equal"):
        paddle.zeros([2, 3, 2]).fill_diagonal_(1.0)
    y = _var(np.ones((2, 2))) * 3
    y.fill_diagonal_(0.0)
    y.sum().backward()  # the overwritten diagonal gets no gradient


def test_detach_in_place():
    leaf = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = leaf * 2
    assert y.detach_() is y
    assert y.stop_gradient and y.grad_node is None and y.is_leaf
    z = (y * leaf).sum()
    z.backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), [2.0, 4.0])  # y counts as a constant now


def test_composed_functions_are_tensor_methods(rng):
    x = _t(rng.uniform(0.1, 0.9, size=(2, 3)))
    np.testing.assert_array_equal(x.logit().numpy(), paddle.logit(x).numpy())
    np.testing.assert_array_equal(x.quantile(0.5, axis=1).numpy(), paddle.quantile(x, 0.5, axis=1).numpy())
    np.testing.assert_array_equal(x.tensordot(x, [[0, 1], [0, 1]]).numpy(), paddle.tensordot(x, x, 2).numpy())
    assert x.unflatten(1, [3, 1]).shape == [2, 3, 1] and x.view([3, 2]).shape == [3, 2]
    assert float(x.dist(x)) == 0.0
    for name in ("sgn", "signbit", "sinc", "deg2rad", "rad2deg", "frexp", "as_real", "isin", "take",
                 "renorm", "nanmedian", "nanquantile", "select_scatter", "slice_scatter", "diagonal_scatter",
                 "hsplit", "dsplit", "unique_consecutive", "logaddexp", "heaviside", "gcd", "lcm", "ldexp"):
        assert getattr(paddle.Tensor, name) is getattr(paddle, name)


# -- the GPU path (tests/fake_cupy.py without a GPU) -----------------------------------------

@pytest.mark.usefixtures("device")
def test_host_index_paths_run_on_the_default_device():
    x = paddle.to_tensor(np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(paddle.take(x, paddle.to_tensor([[0, -1]])).numpy(), [[0.0, 11.0]])
    np.testing.assert_array_equal(paddle.index_fill(x, paddle.to_tensor([1]), 0, 0.0).numpy()[1], 0.0)
    np.testing.assert_allclose(paddle.quantile(x, 0.5, axis=1).numpy(), np.median(np.arange(12.0).reshape(3, 4), 1))
    np.testing.assert_array_equal(paddle.isin(x, paddle.to_tensor(np.array([3.0, 5.0]))).numpy().sum(), 2)
    assert paddle.unique_consecutive(paddle.to_tensor([1, 1, 2])).numpy().tolist() == [1, 2]
    y = paddle.zeros([3, 3]).fill_diagonal_(2.0)
    np.testing.assert_array_equal(y.numpy(), 2 * np.eye(3))
    assert paddle.combinations(paddle.to_tensor([1, 2, 3])).shape == [3, 2]
    np.testing.assert_array_equal(paddle.diagonal_scatter(paddle.zeros([2, 2]), paddle.ones([2])).numpy(), np.eye(2))
    assert paddle.tril_indices(2, 2).place == x.place
    assert paddle.shape(x).place == x.place and paddle.shape(x).numpy().tolist() == [3, 4]
    assert int(paddle.numel(x)) == 12 and paddle.numel(x).place == x.place
    assert paddle.gcd(paddle.to_tensor([12, 9]), paddle.to_tensor([8, 6])).numpy().tolist() == [4, 3]
    z = paddle.zeros([4])
    assert z.bernoulli_(1.0).numpy().tolist() == [1.0] * 4 and z.place == x.place


# -- inplace shape changes ------------------------------------------------------------------

def test_inplace_shape_changes_keep_the_tensor_and_its_buffer():
    x = paddle.to_tensor(np.arange(6.0))
    buffer, version = x.impl.buffer_id, x.inplace_version
    assert paddle.reshape_(x, [2, -1]) is x and x.shape == [2, 3]
    assert x.unsqueeze_(0) is x and x.shape == [1, 2, 3]
    assert x.squeeze_() is x and x.shape == [2, 3]
    assert x.flatten_() is x and x.shape == [6]
    assert paddle.unsqueeze_(x, [0, 2]).shape == [1, 6, 1] and paddle.squeeze_(x, [2]).shape == [1, 6]
    assert paddle.flatten_(x).shape == [6]
    assert x.impl.buffer_id == buffer and x.inplace_version > version
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0))


def test_inplace_shape_changes_record_the_reshape():
    w = _var(np.arange(6.0))
    y = w * 2
    y.reshape_([2, 3])
    weights = _t(np.arange(6.0).reshape(2, 3))
    (y * weights).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), 2 * np.arange(6.0))
    y = w * 2
    saved = w * y  # multiply saved y in its old shape: backward refuses rather than read it reshaped
    y.reshape_([2, 3])
    with pytest.raises(AutogradError, match="saved for backward by multiply was modified by an inplace operation"):
        saved.sum().backward()
    assert gradcheck(lambda t: (t * 1.0).reshape_([3, 2]).unsqueeze_(1).flatten_(), (_var(np.arange(6.0)),))


def test_inplace_shape_changes_refuse_what_would_break_gradients():
    leaf = _var(np.arange(6.0))
    with pytest.raises(AutogradError, match="reshape_: a leaf tensor with stop_gradient=False"):
        leaf.reshape_([2, 3])
    with paddle.no_grad():
        assert leaf.reshape_([2, 3]).shape == [2, 3]
    y = _var(np.arange(6.0)) * 1.0
    part = y[0:2]
    with pytest.raises(RuntimeError, match=r"squeeze_: x is a view of another tensor's buffer or has views"):
        y.squeeze_()
    assert y.shape == [6] and part.shape == [2]
    z = paddle.zeros([6])
    with pytest.raises(ValueError, match=r"reshape_: argument 'shape' \[4, 2\] has 8 elements but x of shape \[6\]"):
        z.reshape_([4, 2])
    assert z.shape == [6]
    with pytest.raises(TypeError, match="flatten_: argument 'x' expected a Tensor, got list"):
        paddle.flatten_([1.0])


@pytest.mark.usefixtures("device")
def test_contiguous_copies_only_a_strided_view():
    x = paddle.to_tensor(np.arange(6.0).reshape(2, 3))
    assert x.is_contiguous() and x.contiguous() is x
    t = x.transpose([1, 0])
    assert not t.is_contiguous() and not x[:, ::2].is_contiguous()
    c = t.contiguous()
    assert c.is_contiguous() and c.impl.buffer_id != x.impl.buffer_id
    np.testing.assert_array_equal(c.numpy(), np.arange(6.0).reshape(2, 3).T)
    leaf = paddle.to_tensor(np.arange(6.0).reshape(2, 3), stop_gradient=False)
    assert gradcheck(lambda v: v.transpose([1, 0]).contiguous() * 2.0, (leaf,))


@pytest.mark.parametrize("module", ["eager.framework", "eager.tensor_queries", "eager.inplace_shape",
                                    "eager.composite.math_unary", "eager.composite.math_binary",
                                    "eager.composite.linalg", "eager.composite.gather_scatter",
                                    "eager.composite.reduce_scan", "eager.composite.rearrange",
                                    "eager.composite.creation"])
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module), extraglobs={"eager": paddle, "np": np, "math": math},
                             optionflags=doctest.NORMALIZE_WHITESPACE, report=False)
    assert result.attempted >= 3 and result.failed == 0, result


def test_cross_check_with_torch(rng):
    torch = pytest.importorskip("torch")
    x = rng.normal(size=(3, 4, 5)) * 2
    y = rng.normal(size=(4, 5))
    np.testing.assert_allclose(paddle.renorm(_t(x), 1.5, 1, 3.0).numpy(),
                               torch.renorm(torch.tensor(x), 1.5, 1, 3.0).numpy(), rtol=1e-10)
    np.testing.assert_allclose(paddle.logaddexp(_t(x), _t(y)).numpy(),
                               torch.logaddexp(torch.tensor(x), torch.tensor(y)).numpy())
    np.testing.assert_allclose(paddle.tensordot(_t(x), _t(y), 2).numpy(),
                               torch.tensordot(torch.tensor(x), torch.tensor(y), 2).numpy(), atol=1e-12)
    holey = x.copy()
    holey[0, 1, :3] = np.nan
    for method in ("linear", "lower", "higher", "midpoint"):
        np.testing.assert_allclose(
            paddle.nanquantile(_t(holey), [0.25, 0.6], axis=2, interpolation=method).numpy(),
            torch.nanquantile(torch.tensor(holey), torch.tensor([0.25, 0.6], dtype=torch.float64), dim=2,
                              interpolation=method).numpy())
    m, e = paddle.frexp(_t(x))
    tm, te = torch.frexp(torch.tensor(x))
    np.testing.assert_array_equal(m.numpy(), tm.numpy())
    np.testing.assert_array_equal(e.numpy(), te.numpy())
    np.testing.assert_array_equal(paddle.block_diag([_t(x[0]), _t(y)]).numpy(),
                                  torch.block_diag(torch.tensor(x[0]), torch.tensor(y)).numpy())


@pytest.mark.usefixtures("device")
def test_every_composed_function_runs_on_the_default_device():
    x = paddle.to_tensor(np.linspace(0.1, 0.9, 6).reshape(2, 3))
    place = x.place
    outs = [
        paddle.logit(x), paddle.sgn(x), paddle.signbit(x), paddle.sinc(x), paddle.stanh(x), paddle.deg2rad(x),
        paddle.rad2deg(x), paddle.frexp(x)[0], paddle.logaddexp(x, x), paddle.heaviside(x, x),
        paddle.ldexp(x, paddle.to_tensor([1, 2, 3])), paddle.add_n([x, x]), paddle.mm(x, x.t()),
        paddle.addmm(x, x, paddle.ones([3, 3], dtype="float64")), paddle.tensordot(x, x, 2), paddle.dist(x, x),
        paddle.renorm(x, 2.0, 0, 0.5), paddle.select_scatter(x, x[0], 0, 1),
        paddle.slice_scatter(x, x[:, :1], [1], [0], [1], [1]), paddle.diagonal_scatter(x, x[0, :2]),
        paddle.nanquantile(x, 0.5, 1), paddle.nanmedian(x), paddle.hstack([x, x]), paddle.vstack([x, x]),
        paddle.dstack([x, x]), paddle.column_stack([x, x]), paddle.atleast_3d(x), paddle.hsplit(x, 3)[0],
        paddle.vsplit(x, 2)[0], paddle.unflatten(x, 1, [3, 1]), paddle.view(x, [3, 2]), paddle.view_as(x, x),
        paddle.combinations(x[0]), paddle.cartesian_prod([x[0], x[1]]), paddle.block_diag([x, x]),
        paddle.vander(x[0]), paddle.polar(x, x), paddle.as_real(paddle.as_complex(paddle.stack([x, x], -1))),
        paddle.triu_indices(3, 3), paddle.gcd(paddle.to_tensor([4]), paddle.to_tensor([6])),
        paddle.lcm(paddle.to_tensor([4]), paddle.to_tensor([6])), paddle.is_empty(x), paddle.rank(x),
    ]
    assert all(out.place == place for out in outs)
    y = paddle.to_tensor(np.zeros((2, 3)))
    y.uniform_().normal_().exponential_()
    assert y.reshape_([3, 2]).flatten_().unsqueeze_(0).squeeze_().shape == [6] and y.place == place
    assert y.detach_() is y and y.contiguous() is y
    np.testing.assert_allclose(paddle.quantile(x, [0.25, 0.75], axis=None).numpy(),
                               np.quantile(np.linspace(0.1, 0.9, 6), [0.25, 0.75]))


def test_paddle_tuning_flags_are_kept_without_effect():
    # A Paddle script's start-up `set_flags({'FLAGS_cudnn_deterministic': True})` runs unchanged.
    before = paddle.get_flags(["FLAGS_cudnn_deterministic", "FLAGS_conv_workspace_size_limit"])
    assert before == {"FLAGS_cudnn_deterministic": False, "FLAGS_conv_workspace_size_limit": 512}
    try:
        paddle.set_flags({"FLAGS_cudnn_deterministic": 1, "FLAGS_conv_workspace_size_limit": np.int64(4096)})
        after = paddle.get_flags(["FLAGS_cudnn_deterministic", "FLAGS_conv_workspace_size_limit"])
        assert after == {"FLAGS_cudnn_deterministic": True, "FLAGS_conv_workspace_size_limit": 4096}
        assert type(after["FLAGS_conv_workspace_size_limit"]) is int
        with pytest.raises(TypeError, match="flag 'FLAGS_conv_workspace_size_limit' expected an int, got 1.5"):
            paddle.set_flags({"FLAGS_conv_workspace_size_limit": 1.5})
        with pytest.raises(TypeError, match="flag 'FLAGS_cudnn_deterministic' expected a bool, got 'on'"):
            paddle.set_flags({"FLAGS_cudnn_deterministic": "on", "FLAGS_use_mkldnn": True})
        assert paddle.get_flags("FLAGS_use_mkldnn") == {"FLAGS_use_mkldnn": False}  # nothing set on a failure
    finally:
        paddle.set_flags(before)
    with pytest.raises(ValueError, match=r"unknown flag 'FLAGS_not_a_flag'"):
        paddle.set_flags({"FLAGS_not_a_flag": 1})



def test_paddle_memory_and_allocator_flags_are_kept_without_effect_with_their_kinds():
    # Paddle 2.6's own get_flags/set_flags example reads and sets FLAGS_eager_delete_tensor_gb; scripts
    # also set the allocator strategy (a str) and GPU memory fraction (a float). Defaults from Paddle 2.6.2.
    names = ["FLAGS_eager_delete_tensor_gb", "FLAGS_allocator_strategy", "FLAGS_fraction_of_gpu_memory_to_use"]
    before = paddle.get_flags(names)
    assert before == {"FLAGS_eager_delete_tensor_gb": 0.0, "FLAGS_allocator_strategy": "auto_growth",
                      "FLAGS_fraction_of_gpu_memory_to_use": 0.92}
    try:
        paddle.set_flags({"FLAGS_eager_delete_tensor_gb": 1, "FLAGS_allocator_strategy": "naive_best_fit"})
        after = paddle.get_flags(names[:2])
        assert after == {"FLAGS_eager_delete_tensor_gb": 1.0, "FLAGS_allocator_strategy": "naive_best_fit"}
        assert type(after["FLAGS_eager_delete_tensor_gb"]) is float
        with pytest.raises(TypeError, match="flag 'FLAGS_eager_delete_tensor_gb' expected a float, got 'x'"):
            paddle.set_flags({"FLAGS_eager_delete_tensor_gb": "x"})
        with pytest.raises(TypeError, match="flag 'FLAGS_allocator_strategy' expected a str, got 3"):
            paddle.set_flags({"FLAGS_fraction_of_gpu_memory_to_use": 0.5, "FLAGS_allocator_strategy": 3})
        assert paddle.get_flags("FLAGS_fraction_of_gpu_memory_to_use")["FLAGS_fraction_of_gpu_memory_to_use"] == 0.92
    finally:
        paddle.set_flags(before)

# -- assign(x, output=None): Paddle's argument order (output is not name) ----------------------

def test_assign_writes_into_output_in_place_and_gradients_reach_x():
    x = paddle.to_tensor([1.0, 2.0], dtype="float64", stop_gradient=False)
    out = paddle.zeros([2], dtype="float64")
    version = out.inplace_version
    assert paddle.assign(x * 3, out) is out
    np.testing.assert_array_equal(out.numpy(), [3.0, 6.0])
    assert out.inplace_version == version + 1 and not out.stop_gradient
    (out * out).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * 9 * np.array([1.0, 2.0]))


@pytest.mark.parametrize("data, shape, dtype", [
    (3, [1], "int64"), (2.5, [1], "float32"), (True, [1], "bool"), ([1.5, 2.0], [2], "float32"),  # float64 -> float32, as Paddle 2.6.2
    ((1, 2, 3), [3], "int64"), (np.arange(6, dtype="int32").reshape(2, 3), [2, 3], "int32"),
    (np.float32(1.0), [1], "float32"),
])
def test_assign_of_numbers_lists_and_arrays_keeps_their_numpy_dtype(data, shape, dtype):
    result = paddle.assign(data)
    assert result.shape == shape and str(result.dtype).endswith(dtype)
    np.testing.assert_array_equal(result.numpy().reshape(-1), np.asarray(data).reshape(-1))
    out = paddle.full(shape, 7, dtype)
    assert paddle.assign(data, out) is out
    np.testing.assert_array_equal(out.numpy().reshape(-1), np.asarray(data).reshape(-1))


def test_assign_of_a_list_of_tensors_stacks_them_differentiably():
    # Paddle 2.6.2 builds np.array(x): 0-d Tensors mix with numbers, shape-[1] ones give [n, 1]
    a = paddle.to_tensor(2.0, stop_gradient=False)
    y = paddle.assign([a, a * 3, 4.0])
    np.testing.assert_array_equal(y.numpy(), [2.0, 6.0, 4.0])
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), 4.0)
    b = paddle.to_tensor([2.0], stop_gradient=False)
    y = paddle.assign([b, b * 3])
    assert y.shape == [2, 1]
    np.testing.assert_array_equal(y.numpy(), [[2.0], [6.0]])


def test_assign_of_a_tensor_copies_it():
    x = paddle.to_tensor([1.0, 2.0])
    y = paddle.assign(x)
    y[0] = 5.0
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])


@pytest.mark.parametrize("args, error, message", [
    (("abc",), TypeError, "assign: argument 'x' expected a Tensor, NumPy array, list, tuple or number, got str"),
    ((np.array(["a"]),), TypeError, "assign: argument 'x' expected numbers, got an array of dtype <U1"),
    (([paddle.ones([2]), 1.0],), TypeError, "must have one shape to be stacked, got shapes [[2], []]"),
    (([paddle.ones([1]), 1.0],), ValueError, "must have one shape to be stacked, got shapes [[1], []]"),
    ((paddle.ones([2]), "out"), TypeError, "assign: argument 'output' expected a Tensor"),
    ((paddle.ones([2]), paddle.to_tensor([0.0, 0.0, 0.0], stop_gradient=False)), ValueError,
     "expected x's shape and dtype [2] paddle.float32"),
])
def test_assign_refuses_bad_input_and_leaves_output_as_it_was(args, error, message):
    with pytest.raises(error) as caught:
        paddle.assign(*args)
    assert message in str(caught.value)
    if len(args) == 2 and isinstance(args[1], paddle.Tensor):
        assert not args[1].numpy().any()
