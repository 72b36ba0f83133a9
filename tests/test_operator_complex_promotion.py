"""Paddle's +, -, *, / and @ between a real and a complex tensor promote the real side
to complex (complex128 when either side is complex128 or float64); other dtype mismatches
are still refused. Values against NumPy, gradients against finite differences."""
import numpy as np
import pytest

import eager
from eager.autograd import gradcheck

OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
       "div": lambda a, b: a / b, "matmul": lambda a, b: a @ b}


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("real, cplx, expected", [("float32", "complex64", "complex64"),
                                                  ("float64", "complex64", "complex128"),
                                                  ("float32", "complex128", "complex128")])
def test_real_and_complex_tensors_promote_both_ways(op, real, cplx, expected):
    rng = np.random.default_rng(0)
    r = rng.standard_normal((3, 3)).astype(real) + 2.0
    c = (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))).astype(cplx)
    fn = OPS[op]
    for left, right in ((r, c), (c, r)):
        got = fn(eager.to_tensor(left), eager.to_tensor(right))
        assert got.dtype == getattr(eager, expected)
        want = fn(left.astype(expected), right.astype(expected))
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)


def test_a_real_column_plus_an_imaginary_row_is_a_complex_grid():
    x = eager.to_tensor([-2.0, -1.0, 0.0, 1.0]).unsqueeze(-1)
    y = eager.to_tensor([-2.0, -1.0, 0.0, 1.0])
    z = x + 1j * y
    assert z.dtype == eager.complex64 and z.shape == [4, 4]
    np.testing.assert_allclose(eager.angle(z).numpy(), np.angle(x.numpy() + 1j * y.numpy()), rtol=1e-6)


def test_gradients_reach_the_real_operand():
    c = eager.to_tensor(np.array([1 + 2j, -0.5 + 1j, 3 - 1j]))
    x = eager.to_tensor(np.array([0.3, -1.2, 2.0]), stop_gradient=False)
    assert gradcheck(lambda t: eager.abs(t * c + t), (x,))
    assert gradcheck(lambda t: eager.abs(c / (t + 3.0)), (x,))
