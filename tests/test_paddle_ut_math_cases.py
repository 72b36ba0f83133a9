"""Cases found by re-running the dygraph parts of PaddlePaddle's own unit tests for
elementwise math, creation, comparisons, logic, linalg, fft and random ops
(test/legacy_test) against eager, each checked against the real Paddle 2.6.2.

What they found (one test per bug below; each failed before its fix):
- equal / not_equal / == / != / equal_all compared float32 and float64 exactly;
  Paddle's EqualFunctor calls values less than 1e-8 apart equal (test_compare_op's
  test_not_equal: 1.2e-15 != 1.1e-15 is False), an infinity equal only to itself,
  NaN to nothing; half types, integers and complex stay exact. eager's own rules
  that compare (max's gradient, frexp, heaviside, unique_consecutive, norms) stay
  exact, as Paddle's C++ kernels are.
- an axis out of range raised a ValueError only; Paddle raises IndexError for its
  OutOfRange checks (test_diagonal_op, test_diag_embed, test_trace_op, cumsum; also
  trace/diagonal of a 1-D x) and ValueError for others (sum, flip): the error is now
  both (as numpy's AxisError).
- eye(-1) raised a ValueError only; Paddle's test_eye_op expects TypeError
  ("num_rows should be a non-negative int"): now both.
- to_tensor of a Python int beyond int64 (2**63, 2**70, -2**63 - 1) said "data must
  hold numbers only" (TypeError) or "unsupported dtype uint64"; Paddle raises
  ValueError: now a ValueError naming the integer and int64's range.
- leaky_relu's gradient at x == 0 was negative_slope; Paddle's LeakyReluGradFunctor
  passes the gradient there (x >= 0), and so does rrelu in eval mode, built on it.
"""
import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")


def _paddle_equal(a, b):
    # Paddle's EqualFunctor for float32/float64, written out per element.
    out = np.empty(np.broadcast(a, b).shape, dtype=bool)
    for index, (u, v) in zip(np.ndindex(out.shape), np.broadcast(a, b)):
        if np.isinf(u) or np.isinf(v):
            out[index] = u == v
        elif np.isnan(u) or np.isnan(v):
            out[index] = False
        else:
            out[index] = abs(float(u - v)) < 1e-8
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_equal_of_floats_has_paddles_1e_8_tolerance(dtype):
    a = np.array([1.2e-15, 1e-9, 0.0, 1.0, np.inf, -np.inf, np.nan, 3e38, 1.0], dtype=dtype)
    b = np.array([1.1e-15, 2e-9, 9e-9, 1.0 + 2e-8, np.inf, np.inf, np.nan, -3e38, 1.0], dtype=dtype)
    expected = _paddle_equal(a, b)
    x, y = eager.to_tensor(a), eager.to_tensor(b)
    np.testing.assert_array_equal(eager.equal(x, y).numpy(), expected)
    np.testing.assert_array_equal((x == y).numpy(), expected)
    np.testing.assert_array_equal(eager.not_equal(x, y).numpy(), ~expected)
    np.testing.assert_array_equal((x != y).numpy(), ~expected)
    assert expected[0] and expected[1] and not expected[6]  # the reference's own sanity
    # a number operand goes through the same kernel: 1e-9 == 0 (value from Paddle 2.6.2)
    np.testing.assert_array_equal((x[1:3] == 0).numpy(), [True, True])
    assert bool(eager.equal_all(x[:3], y[:3]))
    assert not bool(eager.equal_all(x, y))


@pytest.mark.parametrize("dtype", ["float16", "int64", "complex64"])
def test_equal_of_other_dtypes_stays_exact(dtype):
    a = np.array([1, 0, 3], dtype=dtype) * (np.array(1e-4, dtype=dtype) if dtype == "float16" else 1)
    b = np.array([2, 0, 3], dtype=dtype) * (np.array(1e-4, dtype=dtype) if dtype == "float16" else 1)
    x, y = eager.to_tensor(a), eager.to_tensor(b)
    np.testing.assert_array_equal(eager.equal(x, y).numpy(), a == b)
    np.testing.assert_array_equal(eager.not_equal(x, y).numpy(), a != b)


def test_eagers_own_comparisons_stay_exact():
    # near-equal values that the public equal calls equal must not merge or share
    # a gradient inside eager's rules
    x64 = eager.to_tensor(np.array([1.0, 1.0 + 2e-9, 0.5], dtype="float64"), stop_gradient=False)
    eager.amax(x64).backward()
    np.testing.assert_array_equal(x64.grad.numpy(), [0.0, 1.0, 0.0])
    out = eager.unique_consecutive(eager.to_tensor(np.array([1.0, 1.0 + 2e-9, 1.0 + 2e-9])))
    np.testing.assert_array_equal(out.numpy(), [1.0, 1.0 + 2e-9])
    values = np.array([1e-310, 0.0, 3.0])
    mantissa, exponent = eager.frexp(eager.to_tensor(values))
    np.testing.assert_array_equal(mantissa.numpy(), np.frexp(values)[0])
    got = eager.heaviside(eager.to_tensor(np.array([1e-10, 0.0])), eager.to_tensor(np.array([0.5, 0.5])))
    np.testing.assert_array_equal(got.numpy(), [1.0, 0.5])


@pytest.mark.parametrize("call", [
    lambda: eager.diagonal(eager.ones([2, 3]), 0, 0, 2),
    lambda: eager.trace(eager.ones([2, 3]), 0, 0, 2),
    lambda: eager.diag_embed(eager.ones([3]), 0, 0, 5),
    lambda: eager.cumsum(eager.ones([2, 3]), axis=5),
    lambda: eager.trace(eager.ones([3])),
    lambda: eager.diagonal(eager.ones([3])),
])
def test_an_axis_out_of_range_is_an_index_error_as_paddles_out_of_range(call):
    with pytest.raises(IndexError, match=r"expected an axis in|expected at least 2 dimensions"):
        call()
    with pytest.raises(ValueError, match=r"expected an axis in|expected at least 2 dimensions"):  # eager's type, kept
        call()


def test_an_axis_out_of_range_of_sum_is_still_a_value_error():
    with pytest.raises(ValueError, match=r"sum: argument 'axis' expected an axis in \[-2, 2\)"):
        eager.sum(eager.ones([2, 3]), axis=5)


@pytest.mark.parametrize("args", [(-1,), (2, -2)])
def test_eye_of_a_negative_count_is_a_type_error_as_paddles(args):
    with pytest.raises(TypeError, match=r"eye: argument 'num_(rows|columns)' expected a count >= 0"):
        eager.eye(*args)


@pytest.mark.parametrize("data", [2**63, 2**70, -2**63 - 1, [2**70, 1], [[1], [2**64]]])
def test_to_tensor_of_an_int_beyond_int64_is_a_value_error_naming_it(data):
    with pytest.raises(ValueError, match=r"to_tensor: the integer -?\d+ is outside int64's range"):
        eager.to_tensor(data)


def test_to_tensor_still_takes_int64s_extremes_and_refuses_non_numbers_as_type_errors():
    np.testing.assert_array_equal(eager.to_tensor([2**63 - 1, -2**63]).numpy(), [2**63 - 1, -2**63])
    with pytest.raises(TypeError, match="numbers only"):
        eager.to_tensor([None])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_leaky_relu_gradient_at_zero_is_one_as_paddles(dtype):
    values = np.array([-1.5, 0.0, 2.0], dtype=dtype)
    x = eager.to_tensor(values, stop_gradient=False)
    eager.nn.functional.leaky_relu(x, 0.1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(values >= 0, 1.0, 0.1), rtol=1e-6)
    x = eager.to_tensor(values, stop_gradient=False)
    eager.nn.functional.rrelu(x, 0.1, 0.3, training=False).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(values >= 0, 1.0, 0.2), rtol=1e-6)


def test_leaky_relu_second_derivative_keeps_the_rule():
    x = eager.to_tensor(np.array([-1.0, 0.0, 2.0]), stop_gradient=False)
    (g,) = eager.grad(eager.nn.functional.leaky_relu(x, 0.1).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), [0.1, 1.0, 1.0])
