"""Paddle 2.6 tensor functions and argument forms met in Paddle's examples: linspace's
float num, one-element Tensors for int arguments, quantile's float64 result,
fill_diagonal_tensor(_), gaussian_."""
import numpy as np
import pytest

import eager
from eager.autograd import gradcheck, gradgradcheck


def test_linspace_takes_a_whole_float_num_and_a_tensor_num():
    np.testing.assert_allclose(eager.linspace(0, 1, 5.0).numpy(), np.linspace(0, 1, 5))
    np.testing.assert_allclose(eager.linspace(0, 2, eager.to_tensor([3])).numpy(), [0.0, 1.0, 2.0])
    with pytest.raises(TypeError, match=r"linspace: argument 'num' expected an int \(or a float holding a whole "
                                        r"number\), got float 2.5"):
        eager.linspace(0, 1, 2.5)


def test_an_int_argument_takes_a_one_element_integer_tensor():
    a, b = eager.ones([2, 3]), eager.zeros([2, 3])
    axis = eager.full([1], 0, dtype="int32")
    np.testing.assert_array_equal(eager.concat([a, b], axis=axis).numpy(), np.concatenate([a.numpy(), b.numpy()], 0))
    assert eager.concat([a, b], axis=eager.to_tensor(-1)).shape == [2, 6]
    with pytest.raises(TypeError, match="concat: argument 'axis' expected an int, got Tensor of paddle.int64"):
        eager.concat([a, b], axis=eager.to_tensor([0, 1]))
    with pytest.raises(TypeError, match="concat: argument 'axis' expected an int, got Tensor of paddle.float32"):
        eager.concat([a, b], axis=eager.to_tensor(0.0))


def test_quantile_answers_in_float64_like_numpy():
    y = eager.arange(0, 8, dtype="float32").reshape([4, 2])
    out = eager.quantile(y, q=[0.3, 0.5], axis=0)
    assert out.dtype == eager.float64
    np.testing.assert_allclose(out.numpy(), np.quantile(np.arange(8.0).reshape(4, 2), [0.3, 0.5], axis=0))
    x = eager.to_tensor([[np.nan, 1, 2, 3, 4], [5, 6, 7, 8, 9]], dtype="float32")
    got = eager.nanquantile(x, q=0.8, axis=1, keepdim=True)
    assert got.dtype == eager.float64 and got.shape == [2, 1]
    np.testing.assert_allclose(got.numpy(), np.nanquantile(x.numpy().astype("float64"), 0.8, axis=1, keepdims=True))


def test_fill_diagonal_tensor_writes_the_diagonal():
    x = eager.full([4, 3], 2.0)
    out = x.fill_diagonal_tensor(eager.ones([3]))
    want = np.full((4, 3), 2.0)
    np.fill_diagonal(want, 1.0)
    np.testing.assert_array_equal(out.numpy(), want)
    assert x.numpy().max() == 2.0  # not in place
    shifted = eager.fill_diagonal_tensor(eager.zeros([2, 3, 3]), eager.ones([2, 2]), offset=1, dim1=1, dim2=2)
    want = np.zeros((2, 3, 3))
    want[:, [0, 1], [1, 2]] = 1.0
    np.testing.assert_array_equal(shifted.numpy(), want)


def test_fill_diagonal_tensor_inplace_and_gradients():
    x = eager.full([3, 3], 2.0)
    assert x.fill_diagonal_tensor_(eager.to_tensor([1.0, 2.0, 3.0])) is x
    np.testing.assert_array_equal(np.diag(x.numpy()), [1.0, 2.0, 3.0])
    a = eager.to_tensor(np.random.default_rng(0).standard_normal((3, 4)), stop_gradient=False)
    d = eager.to_tensor(np.random.default_rng(1).standard_normal(3), stop_gradient=False)
    assert gradcheck(lambda u, v: eager.fill_diagonal_tensor(u, v) ** 2, (a, d))
    with pytest.raises(ValueError, match="fill_diagonal_tensor_: .*expected the diagonal's shape \\[3\\], got \\[2\\]"):
        x.fill_diagonal_tensor_(eager.ones([2]))


def test_gaussian_fills_in_place_and_a_seed_repeats():
    x = eager.zeros([20000])
    assert eager.tensor.random.gaussian_(x, mean=1.0, std=2.0) is x
    assert abs(float(x.numpy().mean()) - 1.0) < 0.1 and abs(float(x.numpy().std()) - 2.0) < 0.1
    a = eager.tensor.random.gaussian_(eager.zeros([5]), seed=11)
    b = eager.tensor.random.gaussian_(eager.zeros([5]), seed=11)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(TypeError, match="gaussian_: expected a floating-point tensor, got paddle.int64"):
        eager.tensor.random.gaussian_(eager.zeros([2], "int64"))
    with pytest.raises(ValueError, match="gaussian_: argument 'std' expected a number >= 0, got -1.0"):
        eager.tensor.random.gaussian_(eager.zeros([2]), std=-1.0)


def _hermitian(rng, n):
    a = rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))
    return a + a.conj().T


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_of_a_hermitian_matrix_matches_numpy(uplo):
    a = _hermitian(np.random.default_rng(0), 4).astype("complex64")
    w, v = eager.linalg.eigh(eager.to_tensor(a), UPLO=uplo)
    ref_w = np.linalg.eigvalsh(a.astype("complex128"), UPLO=uplo)
    assert w.dtype == eager.float32 and v.dtype == eager.complex64
    np.testing.assert_allclose(w.numpy(), ref_w, rtol=1e-5, atol=1e-5)
    # eigenvectors up to phase: A V = V diag(w), V unitary
    vv = v.numpy().astype("complex128")
    np.testing.assert_allclose(a @ vv, vv * ref_w, atol=1e-4)
    np.testing.assert_allclose(vv.conj().T @ vv, np.eye(4), atol=1e-5)
    np.testing.assert_allclose(eager.eigvalsh(eager.to_tensor(a), UPLO=uplo).numpy(), ref_w, rtol=1e-5, atol=1e-5)


def test_eigh_of_the_two_by_two_hermitian_by_hand():
    # [[1, -2i], [2i, 5]]: trace 6, determinant 1, eigenvalues 3 -+ sqrt(8).
    w, _ = eager.linalg.eigh(eager.to_tensor([[1, -2j], [2j, 5]]))
    np.testing.assert_allclose(w.numpy(), [3 - np.sqrt(8), 3 + np.sqrt(8)], rtol=1e-6)


def test_eigh_gradients_through_complex_hermitian_matrices():
    rng = np.random.default_rng(1)
    re = eager.to_tensor(rng.standard_normal((3, 3)), stop_gradient=False)
    im = eager.to_tensor(rng.standard_normal((3, 3)), stop_gradient=False)

    def hermitian(r, i):
        a = r + 1j * i
        return (a + eager.conj(a).t()) * 0.5

    assert gradcheck(lambda r, i: eager.linalg.eigh(hermitian(r, i))[0], (re, im))
    # |v|^2 does not depend on each eigenvector's phase, which eigh leaves free
    assert gradcheck(lambda r, i: eager.abs(eager.linalg.eigh(hermitian(r, i))[1]) ** 2, (re, im))
    assert gradgradcheck(lambda r, i: eager.linalg.eigh(hermitian(r, i))[0], (re, im))


def test_binomial_draws_int64_counts_reproducibly():
    count, prob = eager.to_tensor([10.0, 50.0]), eager.to_tensor([0.2, 0.6])
    eager.seed(5)
    first = eager.binomial(count, prob)
    eager.seed(5)
    assert first.dtype == eager.int64 and first.numpy().tolist() == eager.binomial(count, prob).numpy().tolist()
    edges = eager.binomial(eager.to_tensor([[7], [9]]), eager.to_tensor([0.0, 1.0]))
    assert edges.numpy().tolist() == [[0, 7], [0, 9]]
    many = eager.binomial(eager.full([20000], 30, "int64"), eager.full([20000], 0.25))
    assert abs(float(many.numpy().mean()) - 7.5) < 0.1 and abs(float(many.numpy().var()) - 5.625) < 0.3


def test_binomial_refuses_bad_counts_and_probabilities():
    with pytest.raises(ValueError, match=r"binomial: argument 'prob' expected probabilities in \[0, 1\], got 1.5"):
        eager.binomial(eager.to_tensor([3.0]), eager.to_tensor([1.5]))
    with pytest.raises(ValueError, match="binomial: argument 'count' expected whole numbers >= 0, got 2.5"):
        eager.binomial(eager.to_tensor([2.5]), eager.to_tensor([0.5]))
    with pytest.raises(ValueError, match="binomial: argument 'prob' expected one of paddle.float16, paddle.bfloat16, paddle.float32, paddle.float64"):
        eager.binomial(eager.to_tensor([3]), eager.to_tensor([1]))
