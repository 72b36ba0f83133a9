"""eager.sparse.pca_lowrank (Paddle's paddle.sparse.pca_lowrank): singular values
and subspaces against NumPy's SVD of the dense (centred) matrix, for COO and
CSR, 2-d and batched; the Rayleigh-Ritz identities on a matrix too large to make
dense; the generator; and the argument errors."""
import numpy as np
import pytest

import eager


def _sparse_matrix(rng, shape, density=0.4):
    return np.where(rng.random(shape) < density, rng.normal(size=shape), 0.0)


def _as(kind, dense, dtype="float64"):
    t = eager.to_tensor(dense.astype(dtype))
    return t.to_sparse_csr() if kind == "csr" else t.to_sparse_coo(dense.ndim)


def _projector(columns):
    return columns @ columns.T


@pytest.mark.parametrize("kind", ["coo", "csr"])
@pytest.mark.parametrize("center", [True, False])
def test_full_rank_q_gives_the_exact_svd_of_the_centred_matrix(kind, center):
    rng = np.random.default_rng(1)
    dense = _sparse_matrix(rng, (25, 7))
    want = dense - dense.mean(axis=0) if center else dense
    eager.seed(3)
    u, s, v = eager.sparse.pca_lowrank(_as(kind, dense), q=7, center=center, niter=3)
    assert (u.shape, s.shape, v.shape) == ([25, 7], [7], [7, 7])
    assert all(t.dtype == eager.float64 and not t.is_sparse() for t in (u, s, v))
    u, s, v = u.numpy(), s.numpy(), v.numpy()
    np.testing.assert_allclose(s, np.linalg.svd(want, compute_uv=False), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(u @ np.diag(s) @ v.T, want, atol=1e-10)
    np.testing.assert_allclose(u.T @ u, np.eye(7), atol=1e-12)
    np.testing.assert_allclose(v.T @ v, np.eye(7), atol=1e-12)


def test_a_low_rank_matrix_is_recovered_with_its_subspaces():
    rng = np.random.default_rng(2)
    # 40 rows, each a multiple of one of three sparse base rows: rank 3 (and rank <= 3 once centred)
    base = _sparse_matrix(rng, (3, 12), density=0.5)
    dense = rng.normal(size=(40, 1)) * base[rng.integers(0, 3, size=40)]
    centred = dense - dense.mean(axis=0)
    left, values, right_h = np.linalg.svd(centred)
    rank = int(np.sum(values > 1e-10 * values[0]))
    assert rank == 3
    eager.seed(0)
    u, s, v = (t.numpy() for t in eager.sparse.pca_lowrank(_as("coo", dense), q=4))
    np.testing.assert_allclose(s[:rank], values[:rank], rtol=1e-10)
    assert s[rank] < 1e-10 * s[0]
    np.testing.assert_allclose(_projector(u[:, :rank]), _projector(left[:, :rank]), atol=1e-10)
    np.testing.assert_allclose(_projector(v[:, :rank]), _projector(right_h[:rank].T), atol=1e-10)


def test_a_few_components_of_a_general_matrix_are_ritz_values():
    rng = np.random.default_rng(4)
    dense = _sparse_matrix(rng, (60, 20), density=0.2)
    centred = dense - dense.mean(axis=0)
    true = np.linalg.svd(centred, compute_uv=False)
    u, s, v = (t.numpy() for t in eager.sparse.pca_lowrank(_as("csr", dense), q=5, niter=4))
    # Q^T A's singular values interlace A's: never above, and close after subspace iterations
    assert np.all(s <= true[:5] * (1 + 1e-12))
    np.testing.assert_allclose(s[:2], true[:2], rtol=0.05)
    np.testing.assert_allclose(u.T @ centred @ v, np.diag(s), atol=1e-10)


def test_batched_matrices_are_each_decomposed():
    rng = np.random.default_rng(5)
    dense = np.stack([_sparse_matrix(rng, (9, 4)), _sparse_matrix(rng, (9, 4))])
    u, s, v = (t.numpy() for t in eager.sparse.pca_lowrank(_as("csr", dense), q=4))
    assert (u.shape, s.shape, v.shape) == ((2, 9, 4), (2, 4), (2, 4, 4))
    for b in range(2):
        centred = dense[b] - dense[b].mean(axis=0)
        np.testing.assert_allclose(s[b], np.linalg.svd(centred, compute_uv=False), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(u[b] @ np.diag(s[b]) @ v[b].T, centred, atol=1e-10)


def test_float32_and_the_default_q():
    rng = np.random.default_rng(6)
    dense = _sparse_matrix(rng, (30, 10))
    u, s, v = eager.sparse.pca_lowrank(_as("coo", dense, "float32"), niter=6)
    assert (u.shape, s.shape, v.shape) == ([30, 6], [6], [10, 6]) and s.dtype == eager.float32
    true = np.linalg.svd(dense - dense.mean(axis=0), compute_uv=False)
    np.testing.assert_allclose(s.numpy()[:3], true[:3], rtol=2e-2)
    u, s, v = eager.sparse.pca_lowrank(_as("coo", dense[:4, :3]))  # min(6, 4, 3)
    assert s.shape == [3]


def test_a_matrix_too_large_for_dense_stays_sparse():
    sp = pytest.importorskip("scipy.sparse")
    n = 20000  # dense float64 would take 3.2 GB
    rng = np.random.default_rng(7)
    rows, cols = rng.integers(0, n, size=(2, 400))
    values = rng.normal(size=400)
    x = eager.sparse.sparse_coo_tensor(np.stack([rows, cols]), values, [n, n], dtype="float64")
    u, s, v = (t.numpy() for t in eager.sparse.pca_lowrank(x, q=3, center=False))
    reference = sp.coo_matrix((values, (rows, cols)), shape=(n, n)).tocsr()
    np.testing.assert_allclose(u.T @ u, np.eye(3), atol=1e-10)
    np.testing.assert_allclose(v.T @ v, np.eye(3), atol=1e-10)
    np.testing.assert_allclose(u.T @ (reference @ v), np.diag(s), atol=1e-10)  # Rayleigh-Ritz: U^T X V = S
    assert np.all(s > 0)


def test_the_random_start_comes_from_the_framework_generator():
    dense = _sparse_matrix(np.random.default_rng(8), (30, 12))
    eager.seed(11)
    first = [t.numpy() for t in eager.sparse.pca_lowrank(_as("coo", dense), q=3, niter=0)]
    eager.seed(11)
    again = [t.numpy() for t in eager.sparse.pca_lowrank(_as("coo", dense), q=3, niter=0)]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)


def test_bad_arguments_are_refused_with_the_op_and_argument():
    dense = _sparse_matrix(np.random.default_rng(9), (5, 4))
    x = _as("coo", dense)
    cases = [
        (TypeError, r"sparse.pca_lowrank: argument 'x' expected a sparse COO or sparse CSR tensor, got a dense",
         (eager.to_tensor(dense),), {}),
        (ValueError, r"argument 'x' expected a sparse matrix \[M, N\] or a batch of them \[B, M, N\], got shape \[5\]",
         (_as("coo", dense[:, 0]),), {}),
        (ValueError, r"argument 'x' must have every dimension sparse", (eager.to_tensor(dense).to_sparse_coo(1),), {}),
        (TypeError, r"argument 'x' expected float32 or float64 values, got paddle.int64",
         (eager.to_tensor(dense.astype("int64")).to_sparse_coo(2),), {}),
        (ValueError, r"argument 'q' expected an int in \[1, min\(M, N\)\] = \[1, 4\], got 5", (x,), {"q": 5}),
        (ValueError, r"argument 'q' expected an int .*got 0", (x,), {"q": 0}),
        (ValueError, r"argument 'q' expected an int .*got 2.0", (x,), {"q": 2.0}),
        (ValueError, r"argument 'niter' expected an int >= 0, got -1", (x,), {"niter": -1}),
        (TypeError, r"argument 'center' expected a bool, got 'yes'", (x,), {"center": "yes"}),
    ]
    for kind, message, args, kwargs in cases:
        with pytest.raises(kind, match=message):
            eager.sparse.pca_lowrank(*args, **kwargs)
