"""Cases a differential sweep of dtype combinations and type promotion found.

The sweep ran every pair of the twelve dtypes through the operators
(+ - * / // % ** == < & | ^ @, reflected and inplace forms) and the functions
(add, subtract, multiply, divide, floor_divide, remainder, pow, maximum,
minimum, equal, less_than, logical_and, bitwise_and, matmul, fmax, atan2,
where, concat, stack), and every dtype against Python and NumPy scalars
(bool, int, float, complex, np.bool_, np.int32, np.int64, np.uint8,
np.float16, np.float32, np.float64, np.complex128, 0-d and 1-element
tensors), against Paddle 2.6's rules (eager_math_op_patch's scalar and
tensor paths, type_promotion.h) with values checked against NumPy computed
in the result dtype. Found:

- a NumPy bool scalar (``x + np.True_``, ``x == np.bool_(False)``) was
  refused by every operator ("cannot combine a Tensor with bool"): it is no
  ``numbers.Number``; Paddle's operators read it as the bool it holds;
- ``int_tensor ** True`` became float32; Paddle makes True a tensor of x's
  dtype, so the result stays integer (as ``** 1`` does);
- ``int8_tensor ** 300`` (and ``** 2**70``) died in NumPy's cast of the
  exponent with a bare OverflowError naming neither pow nor its argument.
"""
import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")


@pytest.mark.parametrize("dtype", ["int32", "uint8", "float32", "float64", "complex64"])
@pytest.mark.parametrize("scalar", [np.True_, np.bool_(False)])
def test_a_numpy_bool_scalar_is_taken_as_the_bool_it_holds(dtype, scalar):
    values = np.array([1, 2, 3], dtype=dtype)
    x = eager.to_tensor(values)
    flag = bool(scalar)
    for got, expected in [(x + scalar, values + flag), (scalar + x, flag + values), (x * scalar, values * flag),
                          (x - scalar, values - np.array(flag, dtype=dtype))]:
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got.numpy(), expected.astype(dtype))
    equal = x == scalar
    assert equal.dtype == eager.bool
    np.testing.assert_array_equal(equal.numpy(), values == flag)
    if dtype in ("int32", "uint8"):
        np.testing.assert_array_equal((x & scalar).numpy(), values & np.array(flag, dtype=dtype))
    # In place, the buffer keeps its dtype and gets the bool's value added.
    x += scalar
    assert x.dtype == eager.to_tensor(values).dtype
    np.testing.assert_array_equal(x.numpy(), (values + flag).astype(dtype))


def test_a_python_bool_and_a_numpy_bool_agree():
    x = eager.to_tensor([1.5, -2.0], dtype="float32")
    for op in (lambda a, s: a + s, lambda a, s: a / s, lambda a, s: a < s, lambda a, s: s - a):
        np.testing.assert_array_equal(op(x, np.True_).numpy(), op(x, True).numpy())


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_an_integer_tensor_to_a_bool_power_stays_integer(dtype):
    values = np.array([0, 2, 5], dtype=dtype)
    x = eager.to_tensor(values)
    for exponent in (True, False, np.True_):
        got = x ** exponent
        assert got.dtype == x.dtype, exponent
        np.testing.assert_array_equal(got.numpy(), values ** np.array(int(exponent), dtype=dtype))
    # A float exponent still makes x float32 first (Paddle's operator), and True works on floats as 1.
    assert (x ** 1.0).dtype == eager.float32
    assert (eager.to_tensor([2.0]) ** True).numpy().tolist() == [2.0]


@pytest.mark.parametrize("dtype,exponent", [("int8", 300), ("int8", 128), ("uint8", 256), ("int32", 2 ** 40),
                                            ("int64", 2 ** 70)])
def test_an_integer_power_beyond_x_dtype_is_refused_naming_pow(dtype, exponent):
    values = np.array([1, 2, 3], dtype=dtype)
    x = eager.to_tensor(values)
    version = x.inplace_version
    for call in (lambda: x ** exponent, lambda: eager.pow(x, exponent), lambda: x.pow_(exponent)):
        with pytest.raises(ValueError, match=r"pow_?: argument 'y' \(\d+\) expected an exponent in \[0, \d+\] for an "
                                             + dtype):
            call()
        np.testing.assert_array_equal(x.numpy(), values)
        assert x.dtype == eager.to_tensor(values).dtype
    assert x.inplace_version == version


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
def test_the_largest_integer_power_x_dtype_holds_still_runs(dtype):
    top = int(np.iinfo(dtype).max)
    values = np.array([0, 1, 2], dtype=dtype)
    got = eager.to_tensor(values) ** top
    assert got.dtype == eager.to_tensor(values).dtype
    # 2 ** top wraps as repeated multiplication in the dtype does: Python's exact power, reduced.
    bits = np.iinfo(dtype).bits
    expected = [pow(int(v), top, 2 ** bits) for v in values]
    np.testing.assert_array_equal(got.numpy().astype(np.int64) % 2 ** bits, expected)
