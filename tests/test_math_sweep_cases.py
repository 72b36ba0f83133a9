"""Cases a random differential sweep of the elementwise math ops (against NumPy and
PyTorch) found: each failed before its fix by dying inside NumPy or Python instead
of raising a clear error naming the op, or by giving a wrong value."""
import math

import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int32", "int64", "uint8"])
@pytest.mark.parametrize("call", ["pow", "pow_", "pow_tensor_exponent"])
def test_a_complex_scalar_exponent_of_a_real_tensor_is_refused_naming_pow(dtype, call):
    # pow's result keeps x's dtype, so a complex exponent of a real x has no result:
    # it returned a complex tensor against its own InferMeta (pow), died in NumPy's
    # casting (pow_ on a float x) or in int() (an integer x). Paddle's pow takes an
    # int or float exponent only and raises TypeError.
    before = np.array([1, 2, 3], dtype=dtype)
    x = eager.to_tensor(before)
    version = x.inplace_version
    name = "pow" if call == "pow" else "pow_"  # an inplace op's errors name the inplace op
    with pytest.raises(TypeError, match=name + r": argument 'y' is the complex number \(1\+2j\) but x is " + dtype):
        if call == "pow":
            eager.pow(x, 1 + 2j)
        elif call == "pow_":
            x.pow_(1 + 2j)
        else:  # a one-element tensor as pow_'s scalar exponent
            x.pow_(eager.to_tensor([1 + 2j], dtype="complex64"))
    np.testing.assert_array_equal(x.numpy(), before)  # refused before anything was written
    assert x.inplace_version == version


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_a_complex_tensor_still_takes_a_complex_scalar_exponent(dtype):
    values = np.array([1 + 1j, -2 + 0.5j, 3 - 1j], dtype=dtype)
    got = eager.pow(eager.to_tensor(values), 1 + 2j)
    assert got.dtype == eager.to_tensor(values).dtype
    expected = np.array([complex(v) ** (1 + 2j) for v in values.tolist()])  # Python's own complex power
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5 if dtype == "complex64" else 1e-12)


def test_float_floor_divide_is_pythons_floor_division():
    # floor(x / y) rounded the quotient before flooring (1.0 // 0.1 gave 10) and took
    # an infinite divisor or dividend wrong; Python's // (and Paddle's float functor,
    # which floors the quotient of x - fmod(x, y)) is the reference.
    xs = [1.0, 5.0, -1.5, 1.5, -3.0, math.inf, -math.inf, 0.3, -0.7, 7.0, 1e300]
    ys = [0.1, 0.1, math.inf, -math.inf, 1.5, 1.5, -2.0, 0.1, 0.2, -2.0, 1e-300]
    got = eager.floor_divide(eager.to_tensor(np.array(xs)), eager.to_tensor(np.array(ys))).numpy()
    for x, y, value in zip(xs, ys, got):
        expected = math.nan if math.isinf(x) else x // y  # Python raises nothing for these; inf // y is nan there too
        if math.isnan(expected):
            assert math.isnan(value), (x, y, value)
        else:
            assert value == expected, (x, y, value, expected)
    # The operator and a float32 tensor take the same rule.
    assert (eager.to_tensor(np.float32([1.0])) // eager.to_tensor(np.float32([0.1]))).numpy().tolist() == [9.0]
    # Division by zero stays IEEE's (inf, nan, -inf), as Paddle's float functor.
    by_zero = eager.floor_divide(eager.to_tensor([1.0, 0.0, -1.0]), eager.to_tensor([0.0, 0.0, 0.0])).numpy()
    assert by_zero[0] == math.inf and math.isnan(by_zero[1]) and by_zero[2] == -math.inf


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8"])
def test_negating_or_scaling_an_integer_tensor_is_exact_integer_arithmetic(dtype):
    # -x runs scale(x, -1.0), which computed through float64: int64's maximum came back
    # as its minimum. A whole factor is now applied in x's dtype, wrapping as C++ does.
    info = np.iinfo(dtype)
    values = [info.min, info.min + 1, -1 if info.min else 0, 0, 1, info.max - 1, info.max]
    bits = info.bits
    wrap = lambda v: ((v - info.min) % (1 << bits)) + info.min  # noqa: E731  (two's complement / modular wrap)
    x = eager.to_tensor(np.array(values, dtype=dtype))
    assert (-x).numpy().tolist() == [wrap(-v) for v in values]
    assert eager.scale(x, 3.0, 2.0).numpy().tolist() == [wrap(v * 3 + 2) for v in values]
    assert eager.scale(x, 2.0, 1.0, bias_after_scale=False).numpy().tolist() == [wrap((v + 1) * 2) for v in values]
    assert (-x).dtype == x.dtype


def test_equal_takes_a_python_number_as_y_like_paddle():
    # Paddle 2.6's paddle.equal fills a number y into a 0-d tensor of x's dtype; eager
    # refused it ("expected a Tensor").
    values = np.array([1.0, 2.0, -0.0, np.nan])
    x = eager.to_tensor(values)
    for y in (2.0, 0, True, -0.0):
        expected = [float(v) == float(y) for v in values]  # Python's own comparison, NaN never equal
        assert eager.equal(x, y).numpy().tolist() == expected
        assert x.equal(y).numpy().tolist() == expected
        assert eager.equal(x, y).dtype == eager.bool
    # An integer x compares with the number as x's dtype holds it: 1.5 is taken as 1.
    ints = eager.to_tensor(np.array([1, 2], dtype="int32"))
    assert eager.equal(ints, 1.5).numpy().tolist() == [True, False]
    with pytest.raises(ValueError, match=r"equal: argument 'y' expected a number in \[-2147483648, 2147483647\]"):
        eager.equal(ints, 2 ** 40)
    with pytest.raises(TypeError, match="equal: argument 'y'"):
        eager.equal(x, "a")
