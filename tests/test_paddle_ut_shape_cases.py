"""Cases found by re-running the dygraph parts of PaddlePaddle's own unit tests
(test/legacy_test: manipulation, reductions, search / sort, gather / scatter) with
``import eager as paddle`` and checking each failure against real Paddle 2.6.2.
Each test failed before its fix:

- quantile over a slice holding NaN gave NaN with a zero gradient; Paddle reads the
  slice's last sorted element (a NaN), so the result's gradient reaches that element
  ([1, nan, 3], q=0.5 -> grad [0, 1, 0]);
- quantile / nanquantile refused ``axis=[]``; Paddle 2.6.2 reads it as every axis;
- quantile / nanquantile / nanmedian with a repeated axis ([1, -1] on a 2-d x)
  silently reduced it once; Paddle raises ValueError;
- histogram with min=-inf (or a NaN / inf bound) counted over an infinite range;
  Paddle refuses a range that is not finite;
- index_fill / index_fill_ refused a bool ``value`` (value=True into a bool x, Paddle's
  own test case);
- atleast_1d / 2d / 3d refused a Python number, list or NumPy array; Paddle converts
  what is not a Tensor with to_tensor (its docstring's own example is atleast_1d(123, 1.23));
- as_strided read ``offset`` as a count of elements; Paddle counts bytes (stride counts
  elements): offset=8 on float64 starts at element 1, offset=1 read element 1 here where
  Paddle reads a misaligned start (now refused);
- nanmedian of an integer x returned float32 (with the .5 of an even count); Paddle
  keeps x's dtype (as its docstring says), the mean of the middle two truncated
  towards zero ([-4, -1] -> -2, [-6, -4, 3, 5] -> 0);
- logcumsumexp of an integer (or bool) x with a floating ``dtype`` was refused; Paddle
  casts x to dtype first, as cumsum does;
"""
import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")


def _leaf(values, dtype=np.float32):
    return eager.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


@pytest.mark.parametrize("q, expected", [(0.5, [0, 1, 0, 0]), ([0.2, 0.9], [0, 2, 0, 0])])
def test_quantile_nan_slice_gradient_reaches_the_nan(q, expected):
    x = _leaf([1.0, np.nan, 3.0, 2.0])
    out = eager.quantile(x, q, 0)
    assert np.isnan(out.numpy()).all()
    out.sum().backward()
    # value from Paddle 2.6.2: the NaN element (the last in sorted order) gets it.
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_quantile_nan_rows_and_clean_rows():
    x = _leaf([[1.0, np.nan, np.nan], [1.0, 2.0, 3.0]])
    out = eager.quantile(x, 0.5, 1)
    np.testing.assert_array_equal(out.numpy(), [np.nan, 2.0])
    out.sum().backward()
    # the last NaN in a stable sort (index 2) holds the first row's gradient
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0, 1], [0, 1, 0]])


@pytest.mark.parametrize("op, reference", [(eager.quantile, np.quantile), (eager.nanquantile, np.nanquantile)])
def test_quantile_empty_axis_list_is_every_axis(op, reference):
    data = np.random.default_rng(0).random((3, 4))
    out = op(eager.to_tensor(data), [0.5, 0.2], axis=[])
    np.testing.assert_allclose(out.numpy(), reference(data, [0.5, 0.2]))


@pytest.mark.parametrize("op", [lambda x, a: eager.quantile(x, 0.5, axis=a),
                                lambda x, a: eager.nanquantile(x, 0.5, axis=a),
                                lambda x, a: eager.nanmedian(x, axis=a)])
def test_quantile_family_refuses_a_repeated_axis(op):
    x = eager.to_tensor(np.ones((3, 4)))
    with pytest.raises(ValueError, match="distinct axes"):
        op(x, [1, -1])


@pytest.mark.parametrize("bounds", [(-np.inf, 5.0), (0.0, np.inf), (np.nan, 5.0)])
def test_histogram_refuses_a_range_that_is_not_finite(bounds):
    x = eager.full([3, 4], 3.0, "float32")
    with pytest.raises(ValueError, match="histogram: argument '(min|max)' expected a finite number"):
        eager.histogram(x, bins=2, min=bounds[0], max=bounds[1])


@pytest.mark.parametrize("dtype, filled", [("bool", True), ("float32", 1.0), ("int32", 1)])
def test_index_fill_takes_a_bool_value(dtype, filled):
    x = eager.zeros([2, 3], dtype)
    out = eager.index_fill(x, eager.to_tensor([0, 2]), 1, True)
    expected = np.zeros([2, 3], dtype)
    expected[:, [0, 2]] = filled
    np.testing.assert_array_equal(out.numpy(), expected)
    x.index_fill_(eager.to_tensor([0, 2]), 1, True)
    np.testing.assert_array_equal(x.numpy(), expected)


@pytest.mark.parametrize("op, reference", [(eager.atleast_1d, np.atleast_1d), (eager.atleast_2d, np.atleast_2d),
                                           (eager.atleast_3d, np.atleast_3d)])
def test_atleast_nd_converts_data_that_is_not_a_tensor(op, reference):
    outs = op(1.5, [1.0, 2.0], np.ones((2, 3)))
    for out, data in zip(outs, (1.5, [1.0, 2.0], np.ones((2, 3)))):
        np.testing.assert_array_equal(out.numpy(), reference(np.asarray(data)))
    with pytest.raises(TypeError, match="argument 'inputs' expected Tensors or data to_tensor takes, got str"):
        op("abc")


@pytest.mark.parametrize("dtype", ["float64", "float32", "int16"])
def test_as_strided_offset_counts_bytes(dtype):
    data = np.arange(12).astype(dtype)
    x = eager.to_tensor(data, stop_gradient=dtype == "int16")
    itemsize = np.dtype(dtype).itemsize
    out = eager.as_strided(x, [2, 2], [4, 1], itemsize)         # value from Paddle 2.6.2: [[1, 2], [5, 6]]
    np.testing.assert_array_equal(out.numpy(), [[1, 2], [5, 6]])
    if dtype != "int16":
        out.sum().backward()
        expected = np.zeros(12)
        expected[[1, 2, 5, 6]] = 1
        np.testing.assert_array_equal(x.grad.numpy(), expected)
    if itemsize > 1:
        with pytest.raises(ValueError, match="'offset' counts bytes"):
            eager.as_strided(x, [2], [1], 1)


def _nanmedian_truncated(row):
    ordered = np.sort(row[~np.isnan(row.astype(float))])
    n = len(ordered)
    if n % 2:
        return ordered[n // 2]
    return int((int(ordered[n // 2 - 1]) + int(ordered[n // 2])) / 2)   # int() truncates towards zero


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_nanmedian_of_integers_keeps_the_dtype_and_truncates(dtype):
    data = np.array([[1, 2, 4, 7], [3, -4, 5, -6], [-4, -1, -1, -4], [5, 1, 3, 9]], dtype)
    out = eager.nanmedian(eager.to_tensor(data), axis=1)
    assert out.dtype == getattr(eager, dtype)
    np.testing.assert_array_equal(out.numpy(), [_nanmedian_truncated(row) for row in data])   # [3, 0, -2, 4]
    assert eager.nanmedian(eager.to_tensor(np.array([-4, -1], dtype))).numpy() == -2


@pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
def test_logcumsumexp_casts_an_integer_x_to_the_dtype_given(dtype):
    data = np.array([[2, -2, 0], [1, 3, 2]]).astype(dtype)
    out = eager.logcumsumexp(eager.to_tensor(data), 1, dtype="float64")
    assert out.dtype == eager.float64
    np.testing.assert_allclose(out.numpy(), np.logaddexp.accumulate(data.astype(np.float64), axis=1))
    with pytest.raises(ValueError, match="logcumsumexp: argument 'x' expected a floating-point tensor"):
        eager.logcumsumexp(eager.to_tensor(data))
