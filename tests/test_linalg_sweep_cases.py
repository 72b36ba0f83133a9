"""Regression cases found by a differential sweep of eager.linalg against PyTorch
(random batch shapes with size-1 and empty axes, every keyword, float64 and
float32): empty matrices in lu, lu_unpack, lstsq, cond and matrix_exp, and
matrices holding inf or NaN in the SVD family. Values are checked against
references written here (loops, eigvalsh of the Gram matrix), gradients by
finite differences in float64."""
import math

import numpy as np
import pytest

import eager
from eager.autograd import gradcheck

pytestmark = pytest.mark.usefixtures("device")

rng = np.random.default_rng(27)


def t(array, grad=False):
    return eager.to_tensor(np.asarray(array, dtype=np.float64), stop_gradient=not grad)


# -- lu and lu_unpack of empty matrices (the kernels reshaped with -1, ambiguous for size 0) --

@pytest.mark.parametrize("shape", [(2, 3, 0), (2, 0, 3), (3, 0), (0, 3), (0, 0, 0), (1, 0, 0), (0, 2, 2)])
def test_lu_and_lu_unpack_of_empty_matrices(shape):
    *batch, m, n = shape
    k = min(m, n)
    packed, pivots, infos = eager.linalg.lu(t(np.zeros(shape)), get_infos=True)
    assert packed.shape == list(shape)
    assert pivots.shape == batch + [k] and pivots.dtype == eager.int32
    assert infos.shape == (batch or [1]) and not infos.numpy().any()
    p, l, u = eager.linalg.lu_unpack(packed, pivots)
    assert (p.shape, l.shape, u.shape) == (batch + [m, m], batch + [m, k], batch + [k, n])
    # No row swaps: P is the identity; L is eye(m, k), the unit lower part with no columns.
    for index in np.ndindex(*batch):
        np.testing.assert_array_equal(p.numpy()[index], np.eye(m))
        np.testing.assert_array_equal(l.numpy()[index], np.eye(m, k))


def test_lu_of_an_empty_batch_has_an_empty_gradient():
    x = t(np.zeros((0, 3, 3)), grad=True)
    packed, _ = eager.linalg.lu(x)
    packed.sum().backward()
    assert x.grad.shape == [0, 3, 3]


# -- lstsq of empty matrices (amax of no singular values raised, naming amax) ----------------

@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_with_no_columns_solves_to_nothing_and_keeps_every_residual(driver, device):
    y = rng.normal(size=(2, 3, 2))
    if device == "gpu":  # gels is the GPU's only driver, and its default (as in Paddle)
        if driver not in (None, "gels"):
            with pytest.raises(ValueError, match="lstsq: argument 'driver' expected 'gels'"):
                eager.linalg.lstsq(t(np.zeros((2, 3, 0))), t(y), driver=driver)
            return
        driver = "gels"
    solution, residuals, rank, singular = eager.linalg.lstsq(t(np.zeros((2, 3, 0))), t(y), driver=driver)
    assert solution.shape == [2, 0, 2]
    # x @ solution is 0, so each residual is the squared norm of y's column (M > N = rank = 0).
    want = np.zeros((2, 2))
    for b in range(2):
        for col in range(2):
            want[b, col] = sum(y[b, row, col] ** 2 for row in range(3))
    np.testing.assert_allclose(residuals.numpy(), want)
    if driver == "gels":
        assert rank.shape == [0]
    else:
        np.testing.assert_array_equal(rank.numpy(), [0, 0])
    assert singular.shape == ([2, 0] if driver in ("gelsd", "gelss") else [0])
    assert gradcheck(lambda yy: eager.linalg.lstsq(t(np.zeros((2, 3, 0))), yy, driver=driver)[1], (t(y, True),))


def test_lstsq_with_no_rows_solves_to_zeros():
    solution, residuals, rank, _ = eager.linalg.lstsq(t(np.zeros((0, 3))), t(np.zeros((0, 2))))
    np.testing.assert_array_equal(solution.numpy(), np.zeros((3, 2)))
    assert residuals.shape == [0] and rank.numpy().tolist() in (0, [])  # [] for gels, the GPU's default


# -- the SVD family on inf or NaN (NumPy's "SVD did not converge" escaped) -------------------

def _singular_values(a):
    """The singular values of a matrix, descending, from the eigenvalues of its Gram matrix."""
    gram = a.T @ a if a.shape[0] >= a.shape[1] else a @ a.T
    return np.sqrt(np.clip(np.linalg.eigvalsh(gram), 0, None))[::-1]


def test_svd_of_matrices_holding_nan_or_inf_is_nan_for_those_alone():
    a = rng.normal(size=(4, 3, 2))
    a[1, 0, 1] = np.nan
    a[2, 2, 0] = np.inf
    u, s, vh = eager.linalg.svd(t(a))
    for b in (1, 2):
        assert np.isnan(u.numpy()[b]).all() and np.isnan(s.numpy()[b]).all() and np.isnan(vh.numpy()[b]).all()
    for b in (0, 3):
        np.testing.assert_allclose(s.numpy()[b], _singular_values(a[b]), atol=1e-12)
        np.testing.assert_allclose(u.numpy()[b] * s.numpy()[b] @ vh.numpy()[b], a[b], atol=1e-12)


def test_pinv_matrix_rank_lstsq_and_cond_of_a_nan_matrix_propagate_it():
    nan = t(np.full((3, 2), np.nan))
    assert np.isnan(eager.linalg.pinv(nan).numpy()).all()
    assert int(eager.linalg.matrix_rank(nan)) == 0  # no singular value exceeds the (NaN) tolerance
    assert np.isnan(eager.linalg.lstsq(nan, t(np.ones((3, 1))))[0].numpy()).all()
    assert np.isnan(float(eager.linalg.cond(nan)))
    assert np.isnan(float(eager.linalg.norm(nan, p="nuc")))


# -- cond of empty matrices (Paddle: an empty batch gives an empty result) ------------------------

@pytest.mark.parametrize("p", [None, "fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
def test_cond_of_an_empty_batch_is_empty_and_of_empty_matrices_raises(p):
    x = t(np.zeros((0, 3, 3)), grad=True)
    out = eager.linalg.cond(x, p=p)
    assert out.shape == [0]
    out.sum().backward()
    assert x.grad.shape == [0, 3, 3]
    for shape in [(0, 0), (2, 0, 0)]:
        with pytest.raises(ValueError, match=r"cond: argument 'x' expected non-empty matrices, got shape"):
            eager.linalg.cond(t(np.zeros(shape)), p=p)


# -- matrix_exp of empty matrices stays on the graph ---------------------------------------

@pytest.mark.parametrize("shape", [(2, 0, 0), (0, 3, 3), (0, 0)])
def test_matrix_exp_of_empty_matrices_has_a_gradient(shape):
    x = t(np.zeros(shape), grad=True)
    out = eager.linalg.matrix_exp(x)
    assert out.shape == list(shape) and not out.stop_gradient
    (grad,) = eager.grad([out], [x], [t(np.zeros(shape))])
    assert grad.shape == list(shape)


# -- matrix_rank with a Tensor tol (Paddle's matrix_rank_tol; eager raised TypeError) -------------

def test_matrix_rank_with_a_tensor_tol_broadcasts_against_the_batch():
    a = np.stack([rng.normal(size=(4, 3)) @ np.diag([5.0, 1.0, 0.2]) for _ in range(2)])
    tol = np.array([[0.01], [0.5], [3.0]])            # [3, 1] against the batch [2]: result [3, 2]
    got = eager.linalg.matrix_rank(t(a), tol=t(tol))
    assert got.dtype == eager.int32 and got.shape == [3, 2]
    for i in range(3):
        for b in range(2):
            assert got.numpy()[i, b] == sum(1 for s in _singular_values(a[b]) if s > tol[i, 0])
    sym = a[0].T @ a[0] - 2.0 * np.eye(3)               # eigenvalues of both signs: their magnitudes count
    want = sum(1 for w in np.linalg.eigvalsh(sym) if abs(w) > 1.5)
    assert int(eager.linalg.matrix_rank(t(sym), tol=eager.to_tensor(np.float32(1.5)), hermitian=True)) == want
    # A negative tolerance counts as 0 (Paddle's max(tol, 0)): every nonzero singular value counts.
    assert int(eager.linalg.matrix_rank(t(np.diag([1.0, 1e-20, 0.0])), tol=t(-1.0))) == 2


def test_matrix_rank_with_a_tensor_tol_rejects_bad_input_naming_it():
    with pytest.raises(ValueError, match=r"matrix_rank: argument 'tol' of shape \[3\] does not broadcast"):
        eager.linalg.matrix_rank(t(np.ones((2, 3, 3))), tol=t([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"matrix_rank: argument 'x' expected square matrices"):
        eager.linalg.matrix_rank(t(np.ones((2, 3))), tol=t(1.0), hermitian=True)
    with pytest.raises(TypeError, match=r"matrix_rank: argument 'tol' expected a float, or a floating-point"):
        eager.linalg.matrix_rank(t(np.ones((3, 3))), tol=eager.to_tensor([True]))
    with pytest.raises(TypeError, match=r"matrix_rank: argument 'hermitian' expected a bool"):
        eager.linalg.matrix_rank(t(np.ones((3, 3))), tol=t(1.0), hermitian=1)


# -- triangular_solve / cholesky_solve when y's shape is x's minus its last axis -------------------
# y [M, M] against x [M, M, M] is one matrix broadcast over x's batch; solve's rule read it as a
# batch of vectors and returned [M, M].

def _back_substitution(a, b, upper):
    """The solution of T X = b for the upper (or lower) triangle T of a, by substitution."""
    m, k = b.shape
    out = np.zeros((m, k))
    rows = range(m - 1, -1, -1) if upper else range(m)
    for col in range(k):
        for i in rows:
            others = range(i + 1, m) if upper else range(i)
            out[i, col] = (b[i, col] - sum(a[i, j] * out[j, col] for j in others)) / a[i, i]
    return out


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("m", [1, 3])
def test_triangular_solve_broadcasts_a_matrix_y_shaped_like_a_batch_of_vectors(upper, m):
    a = rng.normal(size=(m, m, m)) + 4 * np.eye(m)
    b = rng.normal(size=(m, m))
    got = eager.linalg.triangular_solve(t(a), t(b), upper=upper)
    assert got.shape == [m, m, m]
    for i in range(m):
        np.testing.assert_allclose(got.numpy()[i], _back_substitution(a[i], b, upper), atol=1e-12)
    assert gradcheck(lambda aa, bb: eager.linalg.triangular_solve(aa, bb, upper=upper), (t(a, True), t(b, True)))


def test_cholesky_solve_broadcasts_a_matrix_x_shaped_like_a_batch_of_vectors():
    factor = np.tril(rng.normal(size=(2, 2, 2))) + 3 * np.eye(2)
    b = rng.normal(size=(2, 2))
    got = eager.linalg.cholesky_solve(t(b), t(factor))
    assert got.shape == [2, 2, 2]
    for i in range(2):
        inner = _back_substitution(factor[i], b, upper=False)                 # L z = b
        np.testing.assert_allclose(got.numpy()[i], _back_substitution(factor[i].T, inner, upper=True), atol=1e-12)
