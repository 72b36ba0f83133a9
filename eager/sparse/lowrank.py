"""Principal component analysis of a sparse matrix (Paddle's
``paddle.sparse.pca_lowrank``) by a randomized low-rank SVD that never makes
the matrix dense.

The centred matrix ``A = X - 1 mean`` (``mean`` the row of column means) is
dense even when X is sparse, so it is never formed: a product with it is the
sparse product with X minus a rank-one correction,
``A @ D = X @ D - 1 (mean @ D)`` and ``A^T @ D = X^T @ D - mean^T (1^T D)``.
The range finder is Halko, Martinsson and Tropp's (as in
:func:`eager.linalg.svd_lowrank`): a Gaussian start from the framework's
generator, ``niter`` subspace iterations with a QR after each product, then the
SVD of the small projected matrix. The work grows with nnz * q, not M * N.
"""
from __future__ import annotations

import numbers

from phi.common import DataType

from ..composite import _paddle_api as _check
from ..generated import forward_api as _F
from ._core import COO, expect_sparse
from .manipulation import transpose
from .matmul import matmul

_OP = "sparse.pca_lowrank"


def _swap_last(t):
    return _F.transpose(t, list(range(t.ndim - 2)) + [t.ndim - 1, t.ndim - 2])


def _check_args(x, q, center, niter) -> int:
    """The number of components, after checking every argument."""
    expect_sparse(_OP, "x", x)
    if x.ndim not in (2, 3):
        raise ValueError(f"{_OP}: argument 'x' expected a sparse matrix [M, N] or a batch of them [B, M, N], got "
                         f"shape {x.shape}")
    if x.impl.kind is COO and x.impl.sparse_dim != x.ndim:
        raise ValueError(f"{_OP}: argument 'x' must have every dimension sparse (values 1-d), got sparse_dim "
                         f"{x.impl.sparse_dim} of {x.ndim}")
    if x.dtype not in (DataType.FLOAT32, DataType.FLOAT64):
        raise TypeError(f"{_OP}: argument 'x' expected float32 or float64 values, got {x.dtype}")
    if not isinstance(center, bool):
        raise TypeError(f"{_OP}: argument 'center' expected a bool, got {center!r}")
    m, n = x.shape[-2], x.shape[-1]
    if q is None:
        q = min(6, m, n)
    if isinstance(q, bool) or not isinstance(q, numbers.Integral) or not 1 <= q <= min(m, n):
        raise ValueError(f"{_OP}: argument 'q' expected an int in [1, min(M, N)] = [1, {min(m, n)}], got {q!r}")
    if isinstance(niter, bool) or not isinstance(niter, numbers.Integral) or niter < 0:
        raise ValueError(f"{_OP}: argument 'niter' expected an int >= 0, got {niter!r}")
    return int(q)


@_check.composed_in("sparse")
def pca_lowrank(x, q=None, center=True, niter=2, name=None) -> tuple:
    """A randomized principal component analysis of a sparse COO or CSR matrix x
    [M, N] (or a batch [B, M, N]): ``(U, S, V)`` with U [M, q], S [q], V [N, q],
    a near-optimal rank-q SVD ``U diag(S) V^T`` of x centred on its column means
    (``center=True``) or of x itself. V's columns are the principal directions,
    ``S**2 / (M - 1)`` the variances along them. ``q`` defaults to min(6, M, N)
    and must not exceed min(M, N); ``niter`` subspace iterations sharpen the
    result (see the module doc). x stays sparse throughout. The random start
    comes from the framework's generator (``eager.seed`` repeats a result).

    >>> import numpy as np
    >>> _ = eager.seed(0)
    >>> dense = np.array([[2.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    >>> u, s, v = eager.sparse.pca_lowrank(eager.to_tensor(dense).to_sparse_csr(), q=2, center=False)
    >>> s.numpy().round(6)
    array([2., 1.])
    """
    q = _check_args(x, q, center, niter)
    m, n = x.shape[-2], x.shape[-1]
    batch = x.shape[:-2]
    x_t = transpose(x, list(range(len(batch))) + [len(batch) + 1, len(batch)])
    if center:
        ones = _F.ones(batch + [m, 1], x.dtype, x.place)
        mean_t = _F.scale(matmul(x_t, ones), 1.0 / m, 0.0, True)  # [..., N, 1]: the column means
        mean = _swap_last(mean_t)

    def times(dense):  # A @ dense, dense [..., N, k]
        out = matmul(x, dense)
        return _F.subtract(out, _F.matmul(ones, _F.matmul(mean, dense))) if center else out

    def times_t(dense):  # A^T @ dense, dense [..., M, k]
        out = matmul(x_t, dense)
        return _F.subtract(out, _F.matmul(mean_t, _F.sum(dense, [-2], None, True))) if center else out

    start = _F.gaussian(batch + [n, q], 0.0, 1.0, 0, x.dtype, x.place)
    basis = _F.qr(times(start), "reduced")[0]                    # [..., M, q]
    for _ in range(niter):
        basis = _F.qr(times_t(basis), "reduced")[0]              # [..., N, q]
        basis = _F.qr(times(basis), "reduced")[0]                # [..., M, q]
    projected = _swap_last(times_t(basis))                       # Q^T A: [..., q, N]
    u, s, vh = _F.svd(projected, False)
    return _F.matmul(basis, u), s, _swap_last(vh)


__all__ = ["pca_lowrank"]
