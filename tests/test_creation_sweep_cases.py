"""Regression cases found by the differential sweep of the creation, dtype,
embedding, one_hot and dropout family (eager against NumPy, PyTorch and Paddle's
rules on random arguments).

- to_tensor: a list of NumPy int32 scalars becomes int64, as Paddle unifies
  integer list data to int64 (a lone int32 scalar or array keeps int32).
- to_tensor: an unknown dtype spelling raises a TypeError naming to_tensor and
  its 'dtype' argument.
- one_hot: num_classes may be a one-element int Tensor (Paddle reads it as a Scalar).
- Tensor.astype: an unreadable dtype raises cast's error (op and argument named).
- arange: a step whose sign disagrees with end - start raises (Paddle and
  PyTorch both refuse; NumPy returns an empty range), and a float range's
  length is computed in its dtype, as Paddle's kernel does.
- linspace/logspace: the ends (and base) are cast to the dtype first (an integer
  dtype truncates them), integer values come from Paddle's two-halves formula
  (float ones agree with it to an ulp), and num 0 raises.
- dropout: a dropped element is exactly 0 even where x is inf or nan (Paddle
  writes 0 there; multiplying by the mask gave nan).
- full_like: a finite fill value beyond a floating dtype's range raises, as in
  Paddle (it was stored as inf, with NumPy's overflow warning).
"""
import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck

pytestmark = pytest.mark.usefixtures("device")


# -- to_tensor ----------------------------------------------------------------------

@pytest.mark.parametrize("data", [
    [np.int32(3), np.int32(-7)],
    [[np.int32(1), np.int32(2)], [np.int32(3), np.int32(4)]],
    (np.int32(5),),
])
def test_to_tensor_list_of_numpy_int32_becomes_int64(data):
    out = eager.to_tensor(data)
    assert out.dtype == eager.int64
    expected = [[int(v) for v in row] for row in data] if isinstance(data[0], list) else [int(v) for v in data]
    assert out.numpy().tolist() == expected


def test_to_tensor_numpy_int32_scalar_and_array_keep_int32():
    assert eager.to_tensor(np.int32(4)).dtype == eager.int32
    assert eager.to_tensor(np.array([1, 2], dtype=np.int32)).dtype == eager.int32
    # An explicit dtype wins over the int64 rule.
    assert eager.to_tensor([np.int32(1)], dtype="int32").dtype == eager.int32


@pytest.mark.parametrize("spelling", ["half", "long", "paddle.float32"])
def test_to_tensor_unknown_dtype_string_names_op_and_argument(spelling):
    with pytest.raises(TypeError, match=r"to_tensor: argument 'dtype'.*" + spelling.replace(".", r"\.")):
        eager.to_tensor([1.0, 2.0], dtype=spelling)


# -- dropout: dropped non-finite elements ------------------------------------------------

def _reference_dropout(x, kept, scale):
    """A direct loop: 0 where dropped, x * scale where kept."""
    out = np.empty_like(x)
    for i, value in enumerate(x.ravel()):
        out.ravel()[i] = value * scale if kept.ravel()[i] else 0.0
    return out


@pytest.mark.parametrize("mode", ["upscale_in_train", "downscale_in_infer"])
def test_dropout_p1_gives_zeros_for_inf_and_nan(mode):
    x = np.array([1.5, np.inf, -np.inf, np.nan, -2.0])
    out = F.dropout(eager.to_tensor(x), p=1.0, mode=mode).numpy()
    np.testing.assert_array_equal(out, np.zeros(5))


@pytest.mark.parametrize("axis", [None, [0], 1])
def test_dropout_drops_non_finite_to_exact_zero(axis):
    p = 0.5
    rng = np.random.default_rng(3)
    x = rng.uniform(0.5, 2.0, (30, 8))
    x[::3, ::2] = np.inf
    x[1::3, 1::2] = np.nan
    xt = eager.to_tensor(x, stop_gradient=False)
    eager.seed(7)
    out = F.dropout(xt, p=p, axis=axis)
    out.sum().backward()
    values = out.numpy()
    # The gradient of a sum is the mask times the scale: it tells which elements were kept.
    kept = xt.grad.numpy() != 0
    assert 0 < kept.mean() < 1
    expected = _reference_dropout(x, kept, 1.0 / (1.0 - p))
    np.testing.assert_array_equal(np.isnan(values), np.isnan(expected))
    finite = ~np.isnan(expected)
    np.testing.assert_allclose(values[finite], expected[finite], rtol=1e-15)
    assert (values[~kept] == 0).all()


def test_dropout_gradcheck_after_the_where():
    x = eager.to_tensor(np.random.default_rng(4).uniform(0.5, 2.0, (4, 5)), stop_gradient=False)

    def fn(t):
        eager.seed(9)  # the same mask for every finite-difference evaluation
        return F.dropout(t, p=0.4, axis=[0])

    assert gradcheck(fn, [x])


# -- one_hot: num_classes as a one-element tensor (Paddle's Scalar) ----------------------

@pytest.mark.parametrize("data, dtype", [(4, "int64"), ([4], "int32")], ids=["0-d int64", "1-element int32"])
def test_one_hot_num_classes_tensor(data, dtype):
    classes = eager.to_tensor(data, dtype=dtype)
    ids = np.array([[3, 0], [1, 1]])
    out = F.one_hot(eager.to_tensor(ids), classes).numpy()
    expected = np.zeros((2, 2, 4), dtype=np.float32)
    for i in range(2):
        for j in range(2):
            expected[i, j, ids[i, j]] = 1.0
    np.testing.assert_array_equal(out, expected)
    assert out.dtype == np.float32


@pytest.mark.parametrize("data", [4.0, [4, 5], 0], ids=["float", "two elements", "zero"])
def test_one_hot_num_classes_bad_tensor(data):
    classes = eager.to_tensor(data)
    with pytest.raises(ValueError, match=r"one_hot: argument 'num_classes' expected a positive int"):
        F.one_hot(eager.to_tensor([0]), classes)


# -- arange: Paddle's sizing -----------------------------------------------------------

def _paddle_arange_reference(start, end, step, dtype):
    """Paddle's kernel written out: cast the bounds to the dtype, size the range
    as ceil(|end - start| / |step|) in that dtype, then list start + k * step."""
    kind = np.dtype(dtype).type
    first, last, stride = kind(start), kind(end), kind(step)
    count = int(np.ceil(np.abs((last - first) / stride)))
    return np.array([float(first) + k * float(stride) for k in range(count)]).astype(dtype)


@pytest.mark.parametrize("start, end, step", [
    (0.8, 1.1, 0.1), (1.38, 1.41, 0.01), (2.07, 2.87, 0.1), (-1.3, -3.9, -0.1), (0.0, 1.0, 0.1), (2.3, 5.0, 0.3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_arange_length_is_computed_in_the_dtype(start, end, step, dtype):
    expected = _paddle_arange_reference(start, end, step, dtype)
    out = eager.arange(start, end, step, dtype=dtype).numpy()
    assert out.shape == expected.shape
    np.testing.assert_allclose(out, expected, rtol=1e-6 if dtype == "float32" else 1e-15)


def test_arange_float32_differs_from_numpy_where_paddle_does():
    # NumPy (float64 arithmetic) gives 4 values; Paddle's float32 kernel 3.
    assert np.arange(0.8, 1.1, 0.1).shape == (4,)
    np.testing.assert_allclose(eager.arange(0.8, 1.1, 0.1).numpy(), np.array([0.8, 0.9, 1.0], np.float32))
    assert eager.arange(0.8, 1.1, 0.1, dtype="float64").shape == [4]


@pytest.mark.parametrize("args, sign", [
    ((5, 0), "negative"), ((0, 5, -1), "positive"), ((0.0, 1.0, -0.5), "positive"), ((3.0, 1.0, 0.5), "negative"),
    ((5,), None), ((4, 4, -2), None)])
def test_arange_step_sign_must_agree_with_the_range(args, sign):
    if sign is None:  # arange(5) counts up; start == end is empty whatever the step
        out = eager.arange(*args).numpy()
        assert out.tolist() == list(range(*args))
        return
    with pytest.raises(ValueError, match=rf"arange: argument 'step' expected a {sign} step"):
        eager.arange(*args)


# -- linspace / logspace: Paddle's kernel --------------------------------------------------

def _paddle_linspace_reference(start, stop, num, dtype, base=None):
    """Paddle's kernel written out: the ends (and base) cast to the dtype, a float64
    step, the first half counted from start and the second half back from stop, each
    value truncated into the dtype."""
    kind = np.dtype(dtype).type
    first, last = float(kind(start)), float(kind(stop))
    step = (last - first) / (num - 1) if num > 1 else 0.0
    values = []
    for i in range(num):
        value = first + step * i if i < num // 2 else last - step * (num - 1 - i)
        if base is not None:
            value = float(kind(base)) ** value
        values.append(value)
    values = np.array(values)
    return (np.trunc(values) if np.dtype(dtype).kind == "i" else values).astype(dtype)


@pytest.mark.parametrize("start, stop, num", [(0.5, 1.5, 3), (-0.5, 2.5, 4), (0.9, 7.3, 6), (-3.7, 3.7, 5), (2.5, 2.5, 1)])
@pytest.mark.parametrize("dtype", ["int32", "int64", "float64"])
def test_linspace_casts_its_ends_to_the_dtype_first(start, stop, num, dtype):
    expected = _paddle_linspace_reference(start, stop, num, dtype)
    np.testing.assert_allclose(eager.linspace(start, stop, num, dtype=dtype).numpy(), expected, rtol=1e-15)


def test_linspace_integer_ends_truncate_before_spacing():
    # NumPy's spacing of [0.5, 1.5] truncated would give [0, 1, 1]; Paddle spaces [0, 1].
    assert eager.linspace(0.5, 1.5, 3, dtype="int32").numpy().tolist() == [0, 0, 1]


@pytest.mark.parametrize("base, dtype", [(2.5, "int64"), (2.5, "float64"), (3, "int32"), (0.5, "float64")])
def test_logspace_casts_base_to_the_dtype(base, dtype):
    expected = _paddle_linspace_reference(0, 3, 4, dtype, base=base)
    np.testing.assert_allclose(eager.logspace(0, 3, 4, base=base, dtype=dtype).numpy(), expected, rtol=1e-14)


@pytest.mark.parametrize("op", ["linspace", "logspace"])
def test_linspace_and_logspace_refuse_num_zero(op):
    with pytest.raises(ValueError, match=rf"{op}: argument 'num' expected a count >= 1"):
        getattr(eager, op)(0, 1, 0)


@pytest.mark.parametrize("op", ["linspace", "logspace"])
def test_linspace_ends_must_fit_an_integer_dtype(op):
    with pytest.raises(ValueError, match=rf"{op}: argument 'stop' expected a number in \[-2147483648"):
        getattr(eager, op)(0, 2 ** 40, 3, dtype="int32")


# -- Tensor.astype: an unreadable dtype names cast and its argument -----------------------

@pytest.mark.parametrize("dtype", ["half", "double", 3])
def test_astype_bad_dtype_names_cast_and_argument(dtype):
    with pytest.raises(TypeError, match=r"cast: argument 'dtype'"):
        eager.ones([2]).astype(dtype)


def test_astype_still_takes_every_spelling():
    x = eager.to_tensor([1.5, -2.5])
    for spelling, want in (("float64", eager.float64), (eager.int32, eager.int32), (np.int64, eager.int64),
                           (bool, eager.bool), ("complex64", eager.complex64)):
        out = x.astype(spelling)
        assert out.dtype == want
        np.testing.assert_array_equal(out.numpy(), np.array([1.5, -2.5]).astype(np.dtype(want.value)))


# -- full_like ----------------------------------------------------------------------
@pytest.mark.parametrize("dtype, value", [("float32", 1e40), ("float32", -1e39), ("float32", 10 ** 50),
                                          ("float16", 65520.0), ("bfloat16", 1e39)])
def test_full_like_refuses_a_finite_value_beyond_the_dtype(dtype, value):
    # Paddle's full_like raises where the value would not fit; NumPy would store inf.
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    x = eager.ones([3])
    with pytest.raises(ValueError, match=r"full_like: argument 'fill_value' expected a number in \[.*"
                                         + dtype + r", got"):
        eager.full_like(x, value, dtype=dtype)


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), 3.0e38, 65504.0])
def test_full_like_takes_infinities_and_the_largest_finite_values(value):
    dtype = "float16" if value == 65504.0 else "float32"
    out = eager.full_like(eager.ones([2]), value, dtype=dtype).numpy()
    np.testing.assert_array_equal(out, np.full([2], value, dtype=dtype))
    nan = eager.full_like(eager.ones([2]), float("nan")).numpy()
    assert np.isnan(nan).all()


def test_full_like_float64_takes_any_python_float():
    out = eager.full_like(eager.ones([2], dtype="float64"), 1e300).numpy()
    np.testing.assert_array_equal(out, [1e300, 1e300])
