"""What the op table cannot express for the linalg ops: Paddle's signatures and
namespace, value-dependent errors, InferMeta errors, properties of the
decompositions that have no unique value, gradients at repeated eigenvalues,
and higher-order gradients (einsum to third order)."""
import numpy as np
import pytest

import eager
from eager.autograd import AutogradError, gradcheck, gradgradcheck
from eager.autograd.gradient_check import gradient_function


def _t(a):
    return np.swapaxes(a, -1, -2)


def _tensor(array, grad=False):
    return eager.to_tensor(np.asarray(array, dtype=np.float64), stop_gradient=not grad)


# -- Paddle's names and signatures ---------------------------------------------------------

def test_linalg_namespace_has_paddles_names():
    a = _tensor([[4.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(eager.linalg.inv(a).numpy(), np.linalg.inv(a.numpy()))
    np.testing.assert_allclose(eager.linalg.det(a).numpy(), 11.0)
    assert eager.linalg.inv is eager.inverse and eager.linalg.solve is eager.solve
    for name in ("cholesky", "det", "eigh", "eigvalsh", "inv", "matrix_power", "matrix_rank", "pinv", "qr",
                 "slogdet", "solve", "svd"):
        assert callable(getattr(eager.linalg, name)), name


def test_eigvalsh_is_eighs_eigenvalues_with_a_gradient():
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    x = _tensor(a, grad=True)
    w = eager.linalg.eigvalsh(x)
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(a))
    w.sum().backward()  # the sum of the eigenvalues is the trace
    np.testing.assert_allclose(x.grad.numpy(), np.eye(2), atol=1e-12)


def test_tensor_methods_as_paddle():
    a = _tensor([[4.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(a.inverse().numpy(), np.linalg.inv(a.numpy()))
    assert float(a.trace()) == 7.0
    np.testing.assert_array_equal(a.diagonal().numpy(), [4.0, 3.0])
    np.testing.assert_allclose(a.matrix_power(2).numpy(), a.numpy() @ a.numpy())


def test_einsum_takes_the_equation_first_as_paddle():
    a, b = _tensor(np.arange(6.0).reshape(2, 3)), _tensor(np.arange(12.0).reshape(3, 4))
    want = a.numpy() @ b.numpy()
    np.testing.assert_allclose(eager.einsum("ij,jk->ik", a, b).numpy(), want)
    np.testing.assert_allclose(eager.einsum("ij,jk->ik", [a, b]).numpy(), want)
    assert eager.linalg.einsum is eager.einsum


def test_qr_mode_r_returns_r_alone():
    x = np.random.default_rng(0).normal(size=(4, 3))
    r = eager.linalg.qr(_tensor(x), mode="r")
    assert isinstance(r, eager.Tensor) and r.shape == [3, 3]
    np.testing.assert_allclose(np.abs(r.numpy()), np.abs(np.linalg.qr(x)[1]), atol=1e-12)


def test_cross_default_axis_is_the_first_of_size_3():
    x = np.random.default_rng(1).normal(size=(3, 3, 4))
    y = np.random.default_rng(2).normal(size=(3, 3, 4))
    np.testing.assert_allclose(eager.cross(_tensor(x), _tensor(y)).numpy(), np.cross(x, y, axis=0))
    np.testing.assert_allclose(eager.cross(_tensor(x), _tensor(y), axis=1).numpy(), np.cross(x, y, axis=1))


# -- value-dependent errors ------------------------------------------------------------------

SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])


@pytest.mark.parametrize("call, message", [
    (lambda x: eager.inverse(x), r"inverse: argument 'x' is singular"),
    (lambda x: eager.solve(x, _tensor([1.0, 2.0])), r"solve: argument 'x' is singular"),
    (lambda x: eager.matrix_power(x, -2), r"matrix_power: argument 'x' is singular"),
    (lambda x: eager.cholesky(x), r"cholesky: argument 'x' is not symmetric positive-definite"),
])
def test_singular_input_raises_naming_the_op_and_leaves_it_unchanged(call, message):
    x = _tensor(SINGULAR)
    with pytest.raises(ValueError, match=message):
        call(x)
    np.testing.assert_array_equal(x.numpy(), SINGULAR)


def test_nan_in_the_input_propagates_instead_of_reading_as_singular():
    x = _tensor([[np.nan, 1.0], [1.0, 2.0]])
    assert np.isnan(eager.inverse(x).numpy()).any()
    assert np.isnan(eager.solve(x, _tensor([1.0, 1.0])).numpy()).any()
    assert np.isnan(eager.cholesky(x).numpy()).all()


def test_det_gradient_at_a_singular_matrix_says_so():
    x = _tensor(SINGULAR, grad=True)
    with pytest.raises(ValueError, match="the gradient of det needs the inverse of 'x', and x is singular"):
        eager.det(x).backward()


# -- InferMeta errors ------------------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda: eager.inverse(eager.ones([2, 3])), r"inverse: argument 'x' expected square matrices"),
    (lambda: eager.det(eager.ones([3])), r"det: argument 'x' expected a matrix or a batch"),
    (lambda: eager.matrix_power(eager.ones([2, 2], "int32"), -1), r"matrix_power: argument 'x' expected a float32"),
    (lambda: eager.inverse(eager.ones([2, 2], "int32")), r"inverse: argument 'x' expected a float32, float64, complex64 or complex128"),
    (lambda: eager.solve(eager.ones([2, 3, 3]), eager.ones([4, 3, 1])), r"solve: arguments 'x' .* cannot be broadcast"),
    (lambda: eager.solve(eager.ones([3, 3]), eager.ones([2, 1])), r"solve: argument 'y' expected \[\.\.\., 3, K\]"),
    (lambda: eager.bmm(eager.ones([2, 3]), eager.ones([2, 3, 4])), r"bmm: argument 'x' expected a 3-d tensor"),
    (lambda: eager.bmm(eager.ones([2, 3, 4]), eager.ones([3, 4, 5])), r"bmm: arguments 'x' and 'y' expected the same batch"),
    (lambda: eager.dot(eager.ones([3]), eager.ones([4])), r"dot: arguments 'x' and 'y' expected the same shape"),
    (lambda: eager.mv(eager.ones([3, 4]), eager.ones([3])), r"mv: the contracted dimensions differ"),
    (lambda: eager.cross(eager.ones([2, 4]), eager.ones([2, 4])), r"cross: argument 'x' has no axis of size 3"),
    (lambda: eager.cross(eager.ones([3, 4]), eager.ones([3, 4]), axis=1), r"cross: argument 'axis' expected an axis of size 3"),
    (lambda: eager.diagonal(eager.ones([3, 3]), 0, 1, -1), r"diagonal: arguments 'axis1' and 'axis2' expected two different axes"),
    (lambda: eager.trace(eager.ones([3])), r"trace: argument 'x' expected at least 2 dimensions"),
    (lambda: eager.qr(eager.ones([3, 3]), "full"), r"qr: argument 'mode' expected 'reduced', 'complete' or 'r'"),
    (lambda: eager.eigh(eager.ones([3, 3]), "X"), r"eigh: argument 'UPLO' expected 'L' or 'U'"),
    (lambda: eager.pinv(eager.ones([3, 3]), -1.0), r"pinv: argument 'rcond' expected a non-negative number"),
    (lambda: eager.matrix_rank(eager.ones([3, 3]), float('nan')), r"matrix_rank: argument 'tol' expected a number or None"),
    (lambda: eager.einsum("ij,jk", eager.ones([2, 3])), r"einsum: argument 'equation' names 2 operand\(s\)"),
    (lambda: eager.einsum("ij->i", eager.ones([2])), r"einsum: argument 'equation': term 'ij' .* names 2 dimension"),
    (lambda: eager.einsum("i1->i", eager.ones([2, 2])), r"einsum: argument 'equation': the term 'i1' has '1'"),
    (lambda: eager.einsum("ij->k", eager.ones([2, 2])), r"einsum: argument 'equation': output label 'k' .* is in no operand"),
    (lambda: eager.einsum("...i->i", eager.ones([2, 2])), r"einsum: argument 'equation': the output .* has no '\.\.\.'"),
    (lambda: eager.einsum("ii->i", eager.ones([2, 3])), r"einsum: argument 'equation': label 'i' repeats in operand 0"),
    (lambda: eager.einsum("i,i->i", eager.ones([2]), eager.ones([2], "float64")), r"einsum: arguments 'x\[0\]' and 'x\[1\]' expected the same dtype"),
])
def test_bad_shapes_dtypes_and_equations_are_refused_by_infermeta(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# -- decompositions: properties --------------------------------------------------------------

def test_qr_complete_on_a_tall_matrix():
    x = np.random.default_rng(3).normal(size=(2, 5, 3))
    q, r = eager.qr(_tensor(x), "complete")
    q, r = q.numpy(), r.numpy()
    assert q.shape == (2, 5, 5) and r.shape == (2, 5, 3)
    np.testing.assert_allclose(q @ r, x, atol=1e-12)
    np.testing.assert_allclose(_t(q) @ q, np.broadcast_to(np.eye(5), (2, 5, 5)), atol=1e-12)
    np.testing.assert_array_equal(np.tril(r, -1), 0)


@pytest.mark.parametrize("mode, message", [("r", "mode='r' is not differentiable"),
                                           ("complete", "mode='complete' is not differentiable for a tall")])
def test_qr_gradients_that_do_not_exist_raise(mode, message):
    x = _tensor(np.random.default_rng(4).normal(size=(4, 3)), grad=True)
    q, r = eager.qr(x, mode)
    with pytest.raises(ValueError, match=message):
        r.sum().backward()


def test_svd_full_matrices_gives_square_orthogonal_factors():
    x = np.random.default_rng(5).normal(size=(4, 2))
    u, s, vh = (t.numpy() for t in eager.svd(_tensor(x), True))
    assert u.shape == (4, 4) and s.shape == (2,) and vh.shape == (2, 2)
    np.testing.assert_allclose(_t(u) @ u, np.eye(4), atol=1e-12)
    np.testing.assert_allclose(u[:, :2] * s @ vh, x, atol=1e-12)
    assert s[0] >= s[1] >= 0


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_reads_only_the_uplo_triangle(uplo):
    rng = np.random.default_rng(6)
    a = rng.normal(size=(4, 4))
    keep = np.tril(a) if uplo == "L" else np.triu(a)
    symmetric = keep + _t(keep) - np.diag(np.diag(a))
    w, v = eager.eigh(_tensor(a), uplo)
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(symmetric), atol=1e-12)
    np.testing.assert_allclose(v.numpy() @ np.diag(w.numpy()) @ _t(v.numpy()), symmetric, atol=1e-12)


def test_pinv_of_a_rank_deficient_matrix_drops_the_zero_singular_values():
    x = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 0.0]])
    got = eager.linalg.pinv(_tensor(x)).numpy()
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    want = _t(vh[:1]) / s[0] @ _t(u[:, :1])  # rank one
    np.testing.assert_allclose(got, want, atol=1e-12)
    np.testing.assert_allclose(x @ got @ x, x, atol=1e-12)  # a Penrose condition


def test_matrix_rank_of_known_ranks():
    rng = np.random.default_rng(7)
    b = rng.normal(size=(3, 5, 2)) @ rng.normal(size=(3, 2, 4))
    got = eager.linalg.matrix_rank(_tensor(b))
    assert got.dtype == eager.int32 and got.numpy().tolist() == [2, 2, 2]
    assert eager.linalg.matrix_rank(_tensor(np.diag([3.0, 1.0, 0.1])), tol=0.5).numpy() == 2
    assert eager.linalg.matrix_rank(_tensor(np.diag([3.0, -1.0, 0.0])), hermitian=True).numpy() == 2


def test_slogdet_is_paddles_stacked_layout():
    x = np.array([[[0.0, 2.0], [3.0, 0.0]], [[2.0, 0.0], [0.0, 3.0]]])
    out = eager.linalg.slogdet(_tensor(x)).numpy()
    np.testing.assert_allclose(out, [[-1.0, 1.0], [np.log(6.0), np.log(6.0)]])


# -- gradients ----------------------------------------------------------------------------------

def test_eigenvalue_and_singular_value_gradients_stay_finite_at_repeats():
    # Only the eigenvalues are used: the 1/(w_j - w_i) terms are not reached.
    x = _tensor(np.eye(3), grad=True)
    w, _ = eager.eigh(x)
    (w * _tensor([1.0, 2.0, 3.0])).sum().backward()
    assert np.isfinite(x.grad.numpy()).all()
    np.testing.assert_allclose(np.trace(x.grad.numpy()), 6.0)
    y = _tensor(2 * np.eye(3)[:, :2], grad=True)
    _, s, _ = eager.svd(y)
    s.sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), np.eye(3)[:, :2], atol=1e-12)


def test_decomposition_gradients_can_be_differentiated_again():
    # Their composite rules (the kernels' identities written with ops) record.
    rng = np.random.default_rng(8)
    b = _tensor(rng.normal(size=(3, 3)), grad=True)
    a = eager.add(eager.matmul(b, b, False, True), _tensor(3 * np.eye(3)))
    (g,) = eager.grad((eager.cholesky(a) ** 2).sum(), b, create_graph=True)
    (gg,) = eager.grad(g.sum(), b)
    assert np.isfinite(gg.numpy()).all() and np.abs(gg.numpy()).sum() > 0
    assert "Differentiable to any order." in eager.svd.__doc__


def test_einsum_gradients_to_third_order():
    rng = np.random.default_rng(9)
    a, b = _tensor(rng.uniform(-1, 1, (2, 3)), grad=True), _tensor(rng.uniform(-1, 1, (3, 3)), grad=True)

    def func(a, b):
        # A product of three einsums (one with a diagonal) has non-zero third derivatives.
        return eager.einsum("ij,jk,ik->i", a, b, eager.einsum("ij,jj->ij", a, b))

    g = _tensor(rng.uniform(-1, 1, (2,)), grad=True)
    assert gradcheck(func, [a, b])
    assert gradgradcheck(gradient_function(func, 2), [a, b, g])


def test_inverse_det_solve_second_derivatives_through_their_composites():
    rng = np.random.default_rng(10)
    x = _tensor(rng.normal(size=(3, 3)) + 3 * np.eye(3), grad=True)
    y = _tensor(rng.normal(size=(3, 2)), grad=True)
    assert gradgradcheck(lambda x, y: eager.matmul(eager.inverse(x), eager.solve(x, y)), [x, y])
    assert gradgradcheck(lambda x: eager.det(x) * eager.slogdet(x)[1], [x])


def test_integer_matrix_power_for_non_negative_exponents():
    a = np.array([[[1, 2], [3, 4]], [[0, 1], [1, 1]]], dtype=np.int32)
    for n in (0, 1, 5):
        got = eager.matrix_power(eager.to_tensor(a), n)
        assert got.dtype == eager.int32
        np.testing.assert_array_equal(got.numpy(), np.linalg.matrix_power(a, n))


def test_linalg_norm_is_norm_plus_the_nuclear_norm():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 3, 4))
    x = eager.to_tensor(a, stop_gradient=False)
    np.testing.assert_allclose(eager.linalg.norm(x, "nuc", axis=[1, 2]).numpy(),
                               np.linalg.norm(a, "nuc", axis=(1, 2)), rtol=1e-12)
    np.testing.assert_allclose(eager.linalg.norm(x, "nuc", axis=[2, 0]).numpy(),
                               np.linalg.norm(a, "nuc", axis=(2, 0)), rtol=1e-12)
    assert eager.linalg.norm(x, "nuc", axis=[0, 2], keepdim=True).shape == [1, 3, 1]
    np.testing.assert_allclose(float(eager.linalg.norm(x)), np.linalg.norm(a.ravel()), rtol=1e-12)
    np.testing.assert_allclose(eager.linalg.norm(x, 1, axis=[1]).numpy(), np.abs(a).sum(axis=1), rtol=1e-12)
    assert eager.autograd.gradcheck(lambda t: eager.linalg.norm(t, "nuc", axis=[1, 2]), [x])
    with pytest.raises(ValueError, match="p='nuc' needs a matrix or two axes, got a 3-d x and axis=None"):
        eager.linalg.norm(x, "nuc")
