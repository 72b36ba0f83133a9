"""Regression cases found by a sweep of per-op dtype coverage against the dtypes
Paddle registers for its CPU kernels (PD_REGISTER_KERNEL), complex first.

Found: einsum, kron, cumsum, cumprod, prod, cross, matrix_power and det (Paddle's
kernels register complex64/complex128) refused complex tensors (no kernel, or an
InferMeta check for real dtypes). They take them now, with gradients in Paddle's
convention for holomorphic ops (out_grad times the conjugate derivative: the
conjugate of the other factor, A^-H, conj(det)), which PyTorch shares. det's
gradient needs the inverse of a complex matrix, so inverse (and matrix_power with
a negative n) take complex too. A complex x given a real dtype in cumsum/cumprod/prod
is refused (the cast would drop the imaginary part); logcumsumexp still refuses
complex, as Paddle does.

Values are checked against NumPy, gradients (first order through the kernels,
and through the composite rules that create_graph uses) against a central
difference Jacobian J of the holomorphic map: the gradient is conj(J)^T w for the
incoming gradient w.
"""
import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")

rng = np.random.default_rng(47)


def cn(*shape):
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


def numeric_grads(f, arrays, w, h=1e-6):
    """conj(J)^T w for each argument of the holomorphic f (NumPy in, NumPy out)."""
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros(a.shape, dtype=np.complex128)
        for index in np.ndindex(a.shape):
            step = np.zeros(a.shape, dtype=np.complex128)
            step[index] = h
            hi = [b + step if i == k else b for i, b in enumerate(arrays)]
            lo = [b - step if i == k else b for i, b in enumerate(arrays)]
            derivative = (np.asarray(f(*hi)) - np.asarray(f(*lo))) / (2 * h)
            g[index] = np.sum(w * np.conj(derivative))
        grads.append(g)
    return grads


def check(op, reference, arrays, create_graph):
    xs = [eager.to_tensor(a, stop_gradient=False) for a in arrays]
    out = op(*xs)
    expected = np.asarray(reference(*arrays))
    assert out.dtype == eager.complex128
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10, atol=1e-12)
    w = cn(*expected.shape)
    grads = eager.grad([out], xs, [eager.to_tensor(w)], create_graph=create_graph)
    for got, want in zip(grads, numeric_grads(reference, arrays, w)):
        assert got.dtype == eager.complex128
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-7)


def np_cross(a, b, axis):
    return np.cross(a, b, axis=axis)


CASES = {
    "einsum_matmul": (lambda a, b: eager.einsum("ij,jk->ik", a, b),
                      lambda a, b: np.einsum("ij,jk->ik", a, b), [(3, 4), (4, 2)]),
    "einsum_three": (lambda a, b, c: eager.einsum("bij,bjk,k->bi", a, b, c),
                     lambda a, b, c: np.einsum("bij,bjk,k->bi", a, b, c), [(2, 3, 2), (2, 2, 3), (3,)]),
    "einsum_diagonal": (lambda a: eager.einsum("ii->i", a), lambda a: np.einsum("ii->i", a), [(3, 3)]),
    "kron": (eager.kron, np.kron, [(2, 3), (3, 2)]),
    "kron_ranks": (eager.kron, np.kron, [(3,), (2, 2)]),
    "cumsum_axis": (lambda a: eager.cumsum(a, axis=-1), lambda a: np.cumsum(a, axis=-1), [(3, 4)]),
    "cumsum_flat": (lambda a: eager.cumsum(a), lambda a: np.cumsum(a), [(2, 3)]),
    "cumprod": (lambda a: eager.cumprod(a, dim=1), lambda a: np.cumprod(a, axis=1), [(3, 4)]),
    "cumprod_0d": (lambda a: eager.cumprod(a, dim=0), lambda a: a.copy(), [()]),
    "prod_all": (lambda a: eager.prod(a), np.prod, [(2, 3)]),
    "prod_axes_keepdim": (lambda a: eager.prod(a, axis=[0, 2], keepdim=True),
                          lambda a: np.prod(a, axis=(0, 2), keepdims=True), [(2, 3, 2)]),
    "prod_0d": (lambda a: eager.prod(a), np.prod, [()]),
    "cross": (lambda a, b: eager.cross(a, b, axis=0), lambda a, b: np_cross(a, b, 0), [(3, 4), (3, 4)]),
    "cross_default_axis": (eager.cross, lambda a, b: np_cross(a, b, 1), [(2, 3), (2, 3)]),
    "matrix_power_3": (lambda a: eager.linalg.matrix_power(a, 3),
                       lambda a: np.linalg.matrix_power(a, 3), [(2, 3, 3)]),
    "matrix_power_0": (lambda a: eager.linalg.matrix_power(a, 0),
                       lambda a: np.linalg.matrix_power(a, 0), [(3, 3)]),
    "matrix_power_-2": (lambda a: eager.linalg.matrix_power(a, -2),
                        lambda a: np.linalg.matrix_power(a, -2), [(3, 3)]),
    "det": (eager.linalg.det, np.linalg.det, [(2, 3, 3)]),
    "inverse": (eager.linalg.inv, np.linalg.inv, [(2, 3, 3)]),
}


@pytest.mark.parametrize("create_graph", [False, True], ids=["kernel", "composite"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_complex128_values_and_conjugate_gradients(name, create_graph):
    op, reference, shapes = CASES[name]
    check(op, reference, [cn(*shape) for shape in shapes], create_graph)


@pytest.mark.parametrize("create_graph", [False, True], ids=["kernel", "composite"])
def test_cumprod_and_prod_complex_gradients_with_zeros_are_exact(create_graph):
    a = cn(2, 5)
    a[0, 2] = a[1, 1] = a[1, 3] = 0
    check(lambda x: eager.cumprod(x, dim=1), lambda x: np.cumprod(x, axis=1), [a], create_graph)
    check(lambda x: eager.prod(x, axis=1), lambda x: np.prod(x, axis=1), [a], create_graph)


@pytest.mark.parametrize("op, reference", [
    (lambda x: eager.cumsum(x, 0), lambda x: np.cumsum(x, 0)),
    (lambda x: eager.cumprod(x, 0), lambda x: np.cumprod(x, 0)),
    (lambda x: eager.kron(x, x), lambda x: np.kron(x, x)),
    (lambda x: eager.einsum("ij->j", x), lambda x: np.einsum("ij->j", x)),
    (lambda x: eager.linalg.det(x), lambda x: np.linalg.det(x)),
    (lambda x: eager.prod(x, 1), lambda x: np.prod(x, 1)),
    (lambda x: eager.cross(x, x[::-1], axis=0), lambda x: np.cross(x, x[::-1], axis=0)),
])
def test_complex64_keeps_its_dtype(op, reference):
    a = cn(3, 3).astype(np.complex64)
    out = op(eager.to_tensor(a))
    assert out.dtype == eager.complex64
    np.testing.assert_allclose(out.numpy(), reference(a), rtol=1e-4, atol=1e-5)


def test_cumsum_real_x_to_complex_dtype():
    x = eager.to_tensor(np.array([1.0, 2.0, 3.0]), stop_gradient=False)
    out = eager.cumsum(x, dtype="complex128")
    assert out.dtype == eager.complex128
    np.testing.assert_allclose(out.numpy(), [1, 3, 6])
    (g,) = eager.grad([out], [x], [eager.to_tensor(np.array([1 + 1j, 2 + 2j, 3 - 1j]))])
    assert g.dtype == eager.float64  # the real part, the gradient of a real input
    np.testing.assert_allclose(g.numpy(), [6.0, 5.0, 3.0])


@pytest.mark.parametrize("call, message", [
    (lambda x: eager.cumsum(x, dtype="float32"),
     r"cumsum: argument 'dtype' expected a complex dtype for complex x \(paddle.complex128\), got paddle.float32"),
    (lambda x: eager.cumprod(x, dim=0, dtype="int64"),
     r"cumprod: argument 'dtype' expected a complex dtype for complex x \(paddle.complex128\), got paddle.int64"),
    (lambda x: eager.prod(x, dtype="float64"),
     r"prod: argument 'dtype' expected a complex dtype for complex x \(paddle.complex128\), got paddle.float64"),
    (lambda x: eager.logcumsumexp(x), r"logcumsumexp: argument 'x' expected a floating-point tensor"),
])
def test_complex_refusals_name_the_argument(call, message):
    a = cn(3, 3)
    x = eager.to_tensor(a)
    with pytest.raises(ValueError, match=message):
        call(x)
    np.testing.assert_array_equal(x.numpy(), a)


@pytest.mark.parametrize("call, message", [
    (lambda: eager.linalg.det(eager.to_tensor([[1, 2], [3, 4]])),
     r"det: argument 'x' expected a float32, float64, complex64 or complex128 tensor, got paddle.int64"),
    (lambda: eager.linalg.inv(eager.zeros([2, 2], "complex128")), r"inverse: argument 'x' is singular"),
])
def test_linalg_refusals(call, message):
    with pytest.raises(ValueError, match=message):
        call()
