"""Cases found by re-running the dygraph parts of PaddlePaddle's own unit tests for
elementwise math, creation, comparisons, logic, linalg, fft and random ops
(test/legacy_test) against eager, each checked against the real Paddle 2.6.2.

What they found (one test per bug below; each failed before its fix):
- equal / not_equal / == / != / equal_all compared float32 and float64 exactly;
  Paddle's EqualFunctor calls values less than 1e-8 apart equal (test_compare_op's
  test_not_equal: 1.2e-15 != 1.1e-15 is False), an infinity equal only to itself,
  NaN to nothing; half types, integers and complex stay exact.
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
