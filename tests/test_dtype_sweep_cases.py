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
from torch_reference import needs_torch, torch

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


# -- second part: solve, pow, slogdet, multi_dot, isclose/allclose -----------------------------
#
# Found: solve, elementwise_pow (x ** y with a tensor y), slogdet, multi_dot, isclose, allclose and
# linear refused complex tensors. slogdet, isclose and allclose take them as Paddle's CPU kernels
# register them, multi_dot and linear as the matmuls (and add) they are made of; solve and
# elementwise_pow go beyond Paddle's CPU registration (docs/dtypes.md). Their
# gradients follow the conjugate convention, through the kernels and the composite rules. Scalar
# pow with a complex exponent and scale with a complex factor had gradients that used the exponent
# and the factor unconjugated (y x^(y-1) instead of its conjugate), wrong for complex scalars.

CASES2 = {
    "solve": (eager.linalg.solve, np.linalg.solve, [(3, 3), (3, 2)]),
    "solve_batch_broadcast": (eager.linalg.solve, np.linalg.solve, [(2, 3, 3), (1, 3, 2)]),
    "solve_vector": (eager.linalg.solve, np.linalg.solve, [(3, 3), (3,)]),
    "pow_tensor": (eager.pow, np.power, [(3, 4), (3, 4)]),
    "pow_tensor_broadcast": (eager.pow, np.power, [(3, 4), (4,)]),
    "pow_operator": (lambda a, b: a ** b, np.power, [(2, 3), (2, 3)]),
    "pow_complex_scalar": (lambda a: eager.pow(a, 1.5 + 0.5j), lambda a: a ** (1.5 + 0.5j), [(3, 4)]),
    "pow_real_scalar": (lambda a: eager.pow(a, 3.0), lambda a: a ** 3.0, [(3, 4)]),
    "scale_complex_factor": (lambda a: eager.scale(a, 2.0 - 1.0j, 0.5), lambda a: a * (2.0 - 1.0j) + 0.5, [(3,)]),
    "multi_dot": (lambda a, b, c: eager.linalg.multi_dot([a, b, c]),
                  lambda a, b, c: np.linalg.multi_dot([a, b, c]), [(3,), (3, 4), (4, 2)]),
    "linear_bias": (eager.nn.functional.linear, lambda a, w, b: a @ w + b, [(2, 3, 4), (4, 2), (2,)]),
    "linear": (eager.nn.functional.linear, lambda a, w: a @ w, [(3, 4), (4, 2)]),
}


@pytest.mark.parametrize("create_graph", [False, True], ids=["kernel", "composite"])
@pytest.mark.parametrize("name", sorted({**CASES, **CASES2}))
def test_complex128_values_and_conjugate_gradients(name, create_graph):
    op, reference, shapes = {**CASES, **CASES2}[name]
    check(op, reference, [cn(*shape) for shape in shapes], create_graph)


@pytest.mark.parametrize("create_graph", [False, True], ids=["kernel", "composite"])
def test_complex_slogdet_layout_and_gradient(create_graph):
    a = cn(2, 3, 3)
    x = eager.to_tensor(a, stop_gradient=False)
    out = eager.linalg.slogdet(x)
    sign, logabsdet = np.linalg.slogdet(a)
    assert out.dtype == eager.complex128 and out.shape == [2, 2]
    np.testing.assert_allclose(out.numpy()[0], sign, rtol=1e-12)  # det / |det|
    np.testing.assert_allclose(out.numpy()[1], logabsdet + 0j, rtol=1e-12)  # real, as a complex
    # Paddle's gradient: the log|det| gradient times A^-H, none through the sign.
    w = rng.normal(size=(2, 2)) + 1j * rng.normal(size=(2, 2))
    (g,) = eager.grad([out], [x], [eager.to_tensor(w)], create_graph=create_graph)
    expected = w[1][:, None, None] * np.conj(np.swapaxes(np.linalg.inv(a), -1, -2))
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-10)


def test_complex_slogdet_of_a_singular_matrix():
    out = eager.linalg.slogdet(eager.zeros([2, 2], "complex64"))
    assert out.dtype == eager.complex64
    np.testing.assert_array_equal(out.numpy(), np.array([0, -np.inf], dtype=np.complex64))


@pytest.mark.parametrize("equal_nan", [False, True])
def test_complex_isclose_and_allclose(equal_nan):
    a = np.array([1 + 1j, np.nan + 0j, np.inf + 1j, 1e-9j, 2 + 0j, complex(1, np.nan), 1 + 1j])
    b = np.array([1 + 1.0000001j, np.nan + 0j, np.inf + 1j, 0j, 2 + 1e-3j, complex(np.nan, 1), 1 - 1j])
    x, y = eager.to_tensor(a), eager.to_tensor(b)
    got = eager.isclose(x, y, rtol=1e-5, atol=1e-8, equal_nan=equal_nan)
    assert got.dtype == eager.bool
    np.testing.assert_array_equal(got.numpy(), np.isclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=equal_nan))
    assert bool(eager.allclose(x[:4], y[:4], equal_nan=equal_nan)) is equal_nan
    assert bool(eager.allclose(x, y, equal_nan=equal_nan)) is False
    np.testing.assert_array_equal(x.numpy(), a)


@pytest.mark.parametrize("op, reference", [
    (lambda x: eager.linalg.solve(x, x[:, :1]), lambda x: np.linalg.solve(x, x[:, :1])),
    (lambda x: eager.pow(x, x), lambda x: np.power(x, x)),
    (lambda x: eager.linalg.slogdet(x), lambda x: np.stack(np.linalg.slogdet(x)).astype(np.complex64)),
    (lambda x: eager.linalg.multi_dot([x, x, x]), lambda x: x @ x @ x),
    (lambda x: eager.nn.functional.linear(x, x, x[0]), lambda x: x @ x + x[0]),
])
def test_complex64_keeps_its_dtype_part2(op, reference):
    a = cn(3, 3).astype(np.complex64)
    out = op(eager.to_tensor(a))
    assert out.dtype == eager.complex64
    np.testing.assert_allclose(out.numpy(), reference(a), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("call, error, message", [
    (lambda a, b: eager.linalg.solve(a, b.astype("complex64")), ValueError, r"solve: .*'y'.*complex64"),
    (lambda a, b: eager.pow(a, b.astype("float64")), ValueError, r"elementwise_pow: .*'y'.*float64"),
    (lambda a, b: eager.linalg.multi_dot([a, b.astype("complex64")]), TypeError,
     r"multi_dot: argument 'x\[1\]' expected the dtype of x\[0\] \(paddle.complex128\), got paddle.complex64"),
    (lambda a, b: eager.linalg.multi_dot([a.astype("int64"), b]), TypeError,
     r"multi_dot: argument 'x\[0\]' expected a floating-point or complex tensor, got paddle.int64"),
])
def test_complex_mixed_dtypes_are_refused_by_name(call, error, message):
    a, b = cn(3, 3), cn(3, 3)
    x, y = eager.to_tensor(a, stop_gradient=False), eager.to_tensor(b, stop_gradient=False)
    with pytest.raises(error, match=message):
        call(x, y)
    np.testing.assert_array_equal(x.numpy(), a)
    np.testing.assert_array_equal(y.numpy(), b)
    assert x.grad is None and y.grad is None


@needs_torch
@pytest.mark.parametrize("name", ["solve", "solve_vector", "pow_tensor", "pow_complex_scalar", "pow_real_scalar"])
def test_complex_second_order_against_torch(name):
    op = CASES2[name][0]
    torch_ops = {
        "solve": torch.linalg.solve, "solve_vector": torch.linalg.solve, "pow_tensor": torch.pow,
        "pow_complex_scalar": lambda t: torch.pow(t, 1.5 + 0.5j), "pow_real_scalar": lambda t: torch.pow(t, 3.0),
    }
    arrays = [cn(*shape) for shape in CASES2[name][2]]
    xs = [eager.to_tensor(a, stop_gradient=False) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, t_out = op(*xs), torch_ops[name](*ts)
    w = cn(*t_out.shape)
    grads = eager.grad([out], xs, [eager.to_tensor(w)], create_graph=True)
    t_grads = torch.autograd.grad(t_out, ts, torch.tensor(w), create_graph=True)
    vs = [cn(*a.shape) for a in arrays]
    second = eager.grad(list(grads), xs, [eager.to_tensor(v) for v in vs])
    t_second = torch.autograd.grad(t_grads, ts, [torch.tensor(v) for v in vs])
    for got, want in zip(second, t_second):
        assert got.dtype == eager.complex128
        np.testing.assert_allclose(got.numpy(), want.resolve_conj().numpy(), rtol=1e-8, atol=1e-10)
