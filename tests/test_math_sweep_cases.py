"""Cases a random differential sweep of the elementwise math ops (against NumPy and
PyTorch) found: each failed before its fix by dying inside NumPy or Python instead
of raising a clear error naming the op, or by giving a wrong value."""
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
    with pytest.raises(TypeError, match=r"pow: argument 'y' is the complex number \(1\+2j\) but x is " + dtype):
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
