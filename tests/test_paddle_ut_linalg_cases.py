"""Cases found by re-running the dygraph parts of PaddlePaddle's own unit tests for
paddle.linalg and the matrix ops (test_norm_all, test_linalg_cond, test_matrix_rank_op,
test_linalg_pinv_op, test_linalg_lstsq_op, test_solve_op, test_triangular_solve_op,
test_cholesky_op, test_cholesky_solve_op, test_lu_op, test_lu_unpack_op, test_eig_op,
test_eigvals_op, test_eigh_op, test_eigvalsh_op, test_svd_op, test_qr_op, test_det_op,
test_inverse_op, test_matrix_power_op, test_multi_dot_op, test_cross_op, test_dist_op,
test_corrcoef, test_householder_product, test_bmm_op, test_mv_op, test_dot_op,
test_diag_v2, test_tensordot, test_kron, ...) against eager, each checked against the
real Paddle 2.6.2 (about 3,000 differential calls, gradients included).

What they found (one test per bug below; each failed before its fix):
- a dtype no linalg kernel takes (an int or complex x to cholesky, svd, qr, eigh, lu,
  pinv, matrix_rank, det, inverse, norm, cond, dist, ...) raised a ValueError or a
  TypeError only; Paddle's dynamic mode raises RuntimeError (its kernel-registry miss):
  now also a RuntimeError.
- two dtypes given to triangular_solve, cholesky_solve, lstsq, multi_dot or dist raised
  a TypeError only; Paddle's dynamic mode raises ValueError: now both.
- matrix_rank with a negative float tol raised; Paddle counts it as 0 (as eager already
  did for a Tensor tol).
- pinv(hermitian=True)'s gradient was the general (non-symmetric) one; Paddle's, as
  eigh's, is its symmetric part.
- pinv(hermitian=True) refused a complex x; Paddle (test_linalg_pinv_op's Hermitian
  cases) decomposes it with eigh, values and gradients: now so does eager (the
  gradient's conjugate transposes hold for real and complex x).
- cov / corrcoef of a single-row x with rowvar=False transposed it (N variables of one
  observation: NaN); Paddle keeps one row as one variable (numpy 2.x transposes).
- householder_product's shape errors and cdist's last-axis mismatch raised a ValueError
  only; Paddle asserts (AssertionError): now both.

Paddle quirks kept out (eager keeps the correct value or its clear error): linalg.norm
with p='nuc' raises in 2.6.2 (documented); norms, inverses, solves, qr, eig and
matrix_rank of 0-size batches raise in Paddle; the gradients of batched eigh /
eigvalsh are wrong past the first matrix (eigvalsh's not even symmetric); eigh accepts
any UPLO in dynamic mode (eager refuses all but 'L' / 'U'); pinv with a negative
rcond gives inf / NaN; qr(mode='r') and eig crash (SIGSEGV) on backward; cov of an int
x truncates to ints (eager refuses it); householder_product of an int x computes
garbage (eager: TypeError).

Fixed afterwards: cdist of float32 with float64 now promotes to float64, as Paddle's
(each input's gradient keeps its own dtype).
"""
import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")


def _t(a, **kw):
    return eager.to_tensor(np.asarray(a), **kw)


@pytest.mark.parametrize("call", [
    lambda x: eager.linalg.cholesky(x),
    lambda x: eager.linalg.svd(x),
    lambda x: eager.linalg.qr(x),
    lambda x: eager.linalg.eigh(x),
    lambda x: eager.linalg.pinv(x),
    lambda x: eager.linalg.matrix_rank(x),
    lambda x: eager.linalg.det(x),
    lambda x: eager.linalg.inv(x),
    lambda x: eager.linalg.norm(x, p=1),
    lambda x: eager.linalg.cond(x),
    lambda x: eager.dist(x, x),
    lambda x: eager.logsumexp(x),
])
def test_a_dtype_no_linalg_kernel_takes_is_also_a_runtime_error(call):
    # Paddle 2.6.2: RuntimeError "(NotFound) The kernel with key (CPU, ..., int64) ... is not registered"
    x = _t(np.eye(3, dtype="int64"))
    with pytest.raises(RuntimeError, match="int64"):
        call(x)


@pytest.mark.parametrize("call", [
    lambda a, b: eager.linalg.triangular_solve(a, b),
    lambda a, b: eager.linalg.cholesky_solve(b, a),
    lambda a, b: eager.linalg.lstsq(a, b),
    lambda a, b: eager.linalg.multi_dot([a, b]),
    lambda a, b: eager.dist(a, b[:, 0]),
])
def test_two_dtypes_to_a_linalg_op_are_also_a_value_error(call):
    # Paddle 2.6.2's dynamic mode: ValueError "The type of data we are trying to retrieve (float64) does not match"
    a = _t(np.eye(3))
    b = _t(np.ones((3, 3), "float32"))
    with pytest.raises(ValueError, match="dtype") as info:
        call(a, b)
    assert isinstance(info.value, TypeError)


def test_matrix_rank_counts_a_negative_float_tol_as_zero():
    x = np.diag([3.0, 1e-3, 0.0])
    # values from Paddle 2.6.2: a negative tol is max(tol, 0); singular values above 0 count
    assert int(eager.linalg.matrix_rank(_t(x), -0.5)) == 2
    assert int(eager.linalg.matrix_rank(_t(np.zeros((3, 3))), -1.0)) == 0
    np.testing.assert_array_equal(eager.linalg.matrix_rank(_t(np.stack([x, np.eye(3)])), -1.0).numpy(), [2, 3])


def test_hermitian_pinv_gradient_is_the_symmetric_part():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    a = a @ a.T + 3 * np.eye(3)
    g = rng.standard_normal((3, 3))
    # the general gradient of sum(g * pinv(a)) by central differences, then its symmetric part
    step, general = 1e-6, np.zeros_like(a)
    for i, j in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[i, j] = step
        general[i, j] = np.sum(g * (np.linalg.pinv(a + e) - np.linalg.pinv(a - e))) / (2 * step)
    expected = (general + general.T) / 2
    x = _t(a, stop_gradient=False)
    (eager.linalg.pinv(x, hermitian=True) * _t(g)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6, atol=1e-8)
    # without hermitian the general gradient stays
    y = _t(a, stop_gradient=False)
    (eager.linalg.pinv(y) * _t(g)).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), general, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("rowvar", [True, False])
def test_cov_and_corrcoef_keep_a_single_row_as_one_variable(rowvar):
    row = np.array([[1.0, 2.0, 4.0, 7.0, 11.0]])
    # value from Paddle 2.6.2: one variable, whatever rowvar says; numpy's var with ddof=1
    np.testing.assert_allclose(eager.linalg.cov(_t(row), rowvar=rowvar).numpy(), np.var(row, ddof=1))
    assert eager.linalg.cov(_t(row), rowvar=rowvar).shape == []
    fweights = _t(np.array([1, 2, 1, 1, 3]))
    expected = np.cov(row[0], fweights=fweights.numpy())
    np.testing.assert_allclose(eager.linalg.cov(_t(row), rowvar=rowvar, fweights=fweights).numpy(), expected)
    np.testing.assert_allclose(eager.linalg.corrcoef(_t(row), rowvar=rowvar).numpy(), 1.0)
    # a single column with rowvar=False is one variable too (numpy agrees); with rowvar=True, 5 variables
    assert eager.linalg.cov(_t(row.T), rowvar=False).shape == []
    assert eager.linalg.cov(_t(row.T), rowvar=True).shape == [5, 5]


@pytest.mark.parametrize("call", [
    lambda: eager.linalg.householder_product(_t(np.ones((3, 4))), _t(np.ones(3))),
    lambda: eager.linalg.householder_product(_t(np.ones((4, 3))), _t(np.ones(4))),
    lambda: eager.cdist(_t(np.ones((3, 4))), _t(np.ones((5, 3)))),
])
def test_shape_errors_paddle_asserts_are_also_assertion_errors(call):
    # Paddle 2.6.2 raises AssertionError ("The rows of input x must be greater than or equal to the columns",
    # "The last dim of x must be greater than tau", "The x and y must have same last dimension")
    with pytest.raises(ValueError) as info:
        call()
    assert isinstance(info.value, AssertionError)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_pinv_takes_a_complex_hermitian_x(dtype):
    rng = np.random.default_rng(1)
    z = rng.random((3, 4, 4)) + 1j * rng.random((3, 4, 4))
    a = (z + np.swapaxes(z, -1, -2).conj() + 4 * np.eye(4)).astype(dtype)
    x = _t(a, stop_gradient=False)
    out = eager.linalg.pinv(x, hermitian=True)
    assert out.dtype == x.dtype
    tol = 1e-4 if dtype == "complex64" else 1e-10
    np.testing.assert_allclose(out.numpy(), np.linalg.pinv(a, hermitian=True), rtol=tol, atol=tol)
    if dtype == "complex128":
        g = rng.random((3, 4, 4)) + 1j * rng.random((3, 4, 4))
        eager.real((out * _t(g)).sum()).backward()
        grad = x.grad.numpy()

        def loss(m):
            return np.real(np.sum(np.linalg.pinv(m, hermitian=True) * g))

        # the directional derivative along Hermitian perturbations: Re sum(conj(grad) * E)
        for _ in range(3):
            e = rng.standard_normal((3, 4, 4)) + 1j * rng.standard_normal((3, 4, 4))
            e = e + np.swapaxes(e, -1, -2).conj()
            numeric = (loss(a + 1e-6 * e) - loss(a - 1e-6 * e)) / 2e-6
            np.testing.assert_allclose(np.real(np.sum(np.conj(grad) * e)), numeric, rtol=1e-6)
        np.testing.assert_allclose(grad, np.swapaxes(grad, -1, -2).conj(), atol=1e-12)
    with pytest.raises(RuntimeError, match="complex"):  # the svd path: Paddle has no complex svd kernel
        eager.linalg.pinv(_t(a))


def test_cdist_promotes_float32_with_float64():
    # Paddle 2.6.2: float64 [[0, 2.828427], [2.828427, 0]], with its type-promotion warning
    x = eager.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    y = eager.to_tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64", stop_gradient=False)
    out = eager.cdist(x, y)
    assert out.dtype == eager.float64
    np.testing.assert_allclose(out.numpy(), [[0.0, 8 ** 0.5], [8 ** 0.5, 0.0]], rtol=1e-12)
    out.sum().backward()
    assert x.grad.dtype == eager.float32 and y.grad.dtype == eager.float64
    np.testing.assert_allclose(x.grad.numpy(), [[-0.5 ** 0.5] * 2, [0.5 ** 0.5] * 2], rtol=1e-6)
