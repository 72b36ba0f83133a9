"""The op table of the linalg ops.

References are NumPy written from the maths by another route than the kernel
where one exists (inverse by solving against I, det by eigenvalues, Cholesky
by its loop, QR by Gram-Schmidt, SVD and pinv from eigh of x^T x ...). The
backward ops of linear maps take their reference from ``linear_vjp``; those of
the decompositions from ``linear_vjp`` of the forward derivative (the JVP,
a different identity than the kernel's VJP).

Decompositions are not unique (signs of singular vectors, of Q's columns, of
eigenvectors): their table functions return what is unique (Q and R with R's
diagonal made positive, the rank-one terms u_k v_k^T and v_k v_k^T), and eigh
and cholesky are given symmetric (positive-definite) inputs built with ops, so
finite differences see the same function as the gradient.
"""
from __future__ import annotations

import numpy as np

import eager
from eager.generated import forward_api as F

from .core import FLOATS, INTS, Case, OpSpec, linear_vjp, unbroadcast

PRODUCTS = FLOATS + INTS


def _t(a):
    return np.swapaxes(a, -1, -2)


def _shift(arrays, attrs, amount=4.0):
    """Square matrices made well conditioned: x + amount * I (the first input)."""
    x, *rest = arrays
    if x.ndim >= 2 and x.shape[-1] == x.shape[-2]:
        x = (x + amount * np.eye(x.shape[-1])).astype(x.dtype)
    return [x, *rest]


def _forward_prepare(forward, shift=4.0):
    """Backward-op inputs: a well-conditioned x followed by forward(x) outputs, then the rest."""
    def prepare(arrays, attrs):
        x = _shift(arrays[:1], attrs, shift)[0]
        outs = forward(x, attrs)
        return [x, *outs, *arrays[1 + len(outs):]]
    return prepare


# -- products -------------------------------------------------------------------------

def ref_dot(x, y):
    return np.sum(x * y, axis=-1, dtype=x.dtype)


def ref_inner(x, y):
    if x.size == 1 or y.size == 1:  # Paddle: a one-element operand multiplies
        return np.asarray(x * y, dtype=x.dtype)
    return np.asarray(np.inner(x, y), dtype=x.dtype)


def ref_kron(x, y):
    return np.kron(x, y).astype(x.dtype)


def _resolved_cross_axis(shape, axis):
    return list(shape).index(3) if axis == 9 else axis % len(shape)


def ref_cross(x, y, axis=9):
    return np.cross(x, y, axis=_resolved_cross_axis(x.shape, axis)).astype(x.dtype)


BMM_CASES = (Case(((2, 3, 4), (2, 4, 5))), Case(((1, 2, 3), (1, 3, 1))), Case(((0, 2, 3), (0, 3, 4))),
             Case(((2, 3, 0), (2, 0, 4))))
DOT_CASES = (Case(((4,), (4,))), Case(((3, 4), (3, 4))), Case(((0,), (0,))), Case(((0, 3), (0, 3))),
             Case(((2, 0), (2, 0))))
MV_CASES = (Case(((3, 4), (4,))), Case(((0, 4), (4,))), Case(((3, 0), (0,))))
OUTER_CASES = (Case(((3,), (4,))), Case(((2, 3), (4,))), Case(((), (3,))), Case(((0,), (3,))),
               Case(((2, 2), (1, 3))))
INNER_CASES = (Case(((4,), (4,))), Case(((2, 3, 4), (5, 4))), Case(((), (3,))), Case(((2, 3), ())),
               Case(((2, 3), (1,))), Case(((1, 1), (3, 1))), Case(((1,), (1,))),   # one element: a product
               Case(((0, 3), (2, 3))), Case(((2, 0), (0,))))
CROSS_CASES = (Case(((3,), (3,)), {"axis": 9}), Case(((2, 3), (2, 3)), {"axis": 9}),
               Case(((3, 4), (3, 4)), {"axis": 9}), Case(((4, 3, 3), (4, 3, 3)), {"axis": -1}),
               Case(((3, 3), (3, 3)), {"axis": 1}), Case(((0, 3), (0, 3)), {"axis": 1}))
KRON_CASES = (Case(((2, 3), (3, 2))), Case(((2,), (2, 3))), Case(((), (3,))), Case(((2, 2, 1), (1, 3))),
              Case(((0, 2), (2, 2))))


def _einsum_fn(a, b, c, equation):
    return F.einsum([t for t in (a, b, c) if t is not None], equation)


def ref_einsum(a, b, c, equation):
    operands = [t for t in (a, b, c) if t is not None]
    return np.asarray(np.einsum(equation, *operands), dtype=operands[0].dtype)


EINSUM_CASES = tuple(Case(tuple(shapes) + (None,) * (3 - len(shapes)), {"equation": eq}) for eq, shapes in (
    ("ij,jk->ik", ((3, 4), (4, 5))),
    ("ij,jk", ((3, 4), (4, 5))),                           # implicit output
    ("Ba,aC", ((2, 3), (3, 4))),                           # upper-case labels sort first
    ("bij,bjk->bik", ((2, 3, 4), (2, 4, 2))),
    ("...ij,...jk->...ik", ((2, 1, 3, 4), (5, 4, 2))),     # ellipsis dims broadcast
    ("...ij,...jk", ((3, 4), (2, 4, 2))),
    ("i...->...", ((3, 2, 2),)),
    ("ii->i", ((3, 3),)),                                  # a diagonal
    ("ii", ((3, 3),)),                                     # a trace
    ("iij->j", ((2, 2, 3),)),
    ("ii,i->i", ((3, 3), (3,))),
    ("ij->", ((3, 4),)),
    ("ij->ji", ((3, 4),)),
    ("ij->j", ((3, 4),)),                                  # i summed in one operand only
    ("i,j->ij", ((3,), (4,))),
    ("i,i", ((4,), (4,))),
    ("ij,ij->ij", ((1, 3), (2, 3))),                       # a size-1 label broadcasts
    ("ijk,jl,lk->i", ((2, 3, 4), (3, 5), (5, 4))),         # three operands
    (",->", ((), ())),
    ("...", ((),)),
    ("ij,jk->ik", ((0, 3), (3, 2))),
    ("ij,jk->ik", ((2, 0), (0, 3))),                       # an empty contraction: zeros
))


# -- diagonals -----------------------------------------------------------------------------

DIAGONAL_CASES = (
    Case(((3, 4),), {"offset": 0, "axis1": 0, "axis2": 1}),
    Case(((3, 4),), {"offset": 1, "axis1": 0, "axis2": 1}),
    Case(((4, 3),), {"offset": -2, "axis1": 0, "axis2": 1}),
    Case(((2, 3, 4),), {"offset": 0, "axis1": -1, "axis2": 0}),
    Case(((2, 3, 4),), {"offset": 1, "axis1": 1, "axis2": 2}),
    Case(((3, 3),), {"offset": 5, "axis1": 0, "axis2": 1}),   # past the corner: empty
    Case(((0, 3),), {"offset": 0, "axis1": 0, "axis2": 1}),
)


def ref_diagonal(x, offset=0, axis1=0, axis2=1):
    return np.diagonal(x, offset, axis1, axis2).copy()


def ref_trace(x, offset=0, axis1=0, axis2=1):
    return np.asarray(np.trace(x, offset, axis1, axis2, dtype=x.dtype))


def _diagonal_grad_cases():
    return tuple(Case((c.shapes[0], ref_diagonal(np.zeros(c.shapes[0]), **c.attrs).shape), c.attrs)
                 for c in DIAGONAL_CASES)


def _trace_grad_cases():
    return tuple(Case((c.shapes[0], ref_trace(np.zeros(c.shapes[0]), **c.attrs).shape), c.attrs)
                 for c in DIAGONAL_CASES)


# -- square matrices -------------------------------------------------------------------------

SQUARE_CASES = (Case(((3, 3),)), Case(((2, 4, 4),)), Case(((1, 1),)), Case(((0, 2, 2),)), Case(((2, 0, 0),)))


def ref_inverse(x):
    eye = np.broadcast_to(np.eye(x.shape[-1]), x.shape)
    return np.linalg.solve(x, eye).astype(x.dtype) if x.size else x.copy()


def ref_det(x):
    # The product of the eigenvalues (complex pairs multiply to real numbers).
    if x.shape[-1] == 0:
        return np.ones(x.shape[:-2], dtype=x.dtype)
    return np.prod(np.linalg.eigvals(x), axis=-1).real.astype(x.dtype) if x.size else np.ones(x.shape[:-2], x.dtype)


def ref_slogdet(x):
    if x.size == 0:
        return np.stack([np.ones(x.shape[:-2]), np.zeros(x.shape[:-2])]).astype(x.dtype)
    # From QR: |det| is the product of |R_ii|, the sign is that of det(Q) times those of R_ii.
    r = np.linalg.qr(x)[1]
    diag = np.diagonal(r, 0, -2, -1)
    return np.stack([np.sign(ref_det(x)), np.log(np.abs(diag)).sum(-1)]).astype(x.dtype)


def ref_solve(x, y):
    # y is read as vectors when 1-d or shaped x.shape[:-1] (Paddle's rule).
    if y.ndim == 1 or y.shape == x.shape[:-1]:
        return np.matmul(ref_inverse(x), y[..., None])[..., 0].astype(x.dtype)
    return np.matmul(ref_inverse(x), y).astype(x.dtype)


SOLVE_CASES = (Case(((3, 3), (3, 2))), Case(((3, 3), (3,))), Case(((2, 3, 3), (3, 4))), Case(((2, 3, 3), (3,))),
               Case(((3, 3, 3), (3, 3))), Case(((2, 3, 3), (2, 3))),   # vectors: y shaped x.shape[:-1]
               Case(((3, 3), (2, 3, 1))), Case(((2, 1, 3, 3), (4, 3, 2))), Case(((0, 3, 3), (3, 2))),
               Case(((2, 2), (2, 0))))

MATRIX_POWER_CASES = tuple(Case(((3, 3),), {"n": n}) for n in (0, 1, 2, 3, -1, -2)) + (
    Case(((2, 3, 3),), {"n": 2}), Case(((0, 3, 3),), {"n": 2}), Case(((2, 2),), {"n": 5}))


def ref_matrix_power(x, n):
    if n < 0:
        x, n = ref_inverse(x), -n
    out = np.broadcast_to(np.eye(x.shape[-1], dtype=x.dtype), x.shape).copy()
    for _ in range(n):
        out = out @ x
    return out.astype(x.dtype)


# -- decompositions -------------------------------------------------------------------------

def _spd_numpy(x):
    n = x.shape[-1]
    return (x @ _t(x) + n * np.eye(n)).astype(x.dtype)


def _spd(x):
    """x x^T + n I, built with ops so the gradient reaches x."""
    n = x.shape[-1]
    return F.add(F.matmul(x, x, False, True), eager.to_tensor((n * np.eye(n)).astype(x.dtype.numpy_dtype)))


def _symmetric(x):
    return F.scale(F.add(x, F.transpose(x, list(range(len(x.shape) - 2)) + [len(x.shape) - 1, len(x.shape) - 2])),
                   0.5, 0.0, True)


def _cholesky_loop(a):
    """The Cholesky-Banachiewicz recurrence, one matrix at a time."""
    out = np.zeros_like(a, dtype=np.float64)
    for index in np.ndindex(a.shape[:-2]):
        m, lower = a[index].astype(np.float64), out[index]
        for i in range(m.shape[0]):
            for j in range(i + 1):
                s = m[i, j] - lower[i, :j] @ lower[j, :j]
                lower[i, j] = np.sqrt(s) if i == j else s / lower[j, j]
    return out


def ref_cholesky(x, upper=False):
    lower = _cholesky_loop(_spd_numpy(x))
    return (_t(lower) if upper else lower).astype(x.dtype)


CHOLESKY_CASES = (Case(((3, 3),), {"upper": False}), Case(((3, 3),), {"upper": True}),
                  Case(((2, 4, 4),), {"upper": False}), Case(((1, 1),), {"upper": True}),
                  Case(((0, 3, 3),), {"upper": False}))


def _gram_schmidt(a):
    """Q with orthonormal columns spanning a's first K columns and R = Q^T a (R_ii > 0)."""
    m, n = a.shape
    k = min(m, n)
    q = np.zeros((m, k))
    for j in range(k):
        v = a[:, j].astype(np.float64)
        for i in range(j):
            v = v - (q[:, i] @ v) * q[:, i]
        q[:, j] = v / np.linalg.norm(v)
    return q, np.triu(q.T @ a)


def ref_qr(x, mode="reduced"):
    *batch, m, n = x.shape
    k = min(m, n)
    q = np.zeros(tuple(batch) + (m, k))
    r = np.zeros(tuple(batch) + (k, n))
    for index in np.ndindex(tuple(batch)):
        q[index], r[index] = _gram_schmidt(x[index])
    if mode == "r":
        return r.astype(x.dtype)
    return q.astype(x.dtype), r.astype(x.dtype)


def _qr_fn(x, mode):
    """qr with R's diagonal made positive (Q's columns and R's rows flipped together): unique."""
    q, r = F.qr(x, mode)
    k = min(x.shape[-2:])
    signs = F.sign(F.diagonal(r, 0, -2, -1))
    if len(signs.shape):
        signs = F.where(F.equal(signs, F.full_like(signs, 0.0, None)), F.full_like(signs, 1.0, None), signs)
    r = F.multiply(r, F.unsqueeze(signs, [-1]))
    if mode == "r":
        return r
    return F.multiply(q[..., :k], F.unsqueeze(signs, [-2])), r


QR_CASES = (Case(((4, 3),), {"mode": "reduced"}), Case(((3, 3),), {"mode": "reduced"}),
            Case(((3, 5),), {"mode": "reduced"}), Case(((2, 4, 3),), {"mode": "reduced"}),
            Case(((3, 5),), {"mode": "complete"}), Case(((4, 3),), {"mode": "r"}, grad=False),
            Case(((0, 3),), {"mode": "reduced"}))


def _eigh_numpy(a):
    """Eigenvalues (ascending) and eigenvectors of symmetric a, by the general eig."""
    w, v = np.linalg.eig(a)
    order = np.argsort(w.real, axis=-1)
    w = np.take_along_axis(w.real, order, -1)
    v = np.take_along_axis(v.real, order[..., None, :], -1)
    return w, v / np.linalg.norm(v, axis=-2, keepdims=True)


def _svd_numpy(a):
    """s descending and the rank-one terms u_k v_k^T, from the eigenvectors of a^T a or a a^T."""
    m, n = a.shape[-2:]
    if m >= n:
        w, v = _eigh_numpy(_t(a) @ a)
        w, v = w[..., ::-1], v[..., ::-1]
        s = np.sqrt(np.maximum(w, 0))
        u = (a @ v) / s[..., None, :]
    else:
        w, u = _eigh_numpy(a @ _t(a))
        w, u = w[..., ::-1], u[..., ::-1]
        s = np.sqrt(np.maximum(w, 0))
        v = (_t(a) @ u) / s[..., None, :]
    return s, u, v


def _svd_fn(x, full_matrices):
    u, s, vh = F.svd(x, full_matrices)
    k = s.shape[-1]
    return s, F.einsum([u[..., :k], vh[..., :k, :]], "...ik,...kj->...kij")


def ref_svd(x, full_matrices):
    if x.size == 0:
        k = min(x.shape[-2:])
        return (np.zeros(x.shape[:-2] + (k,), x.dtype),
                np.zeros(x.shape[:-2] + (k,) + x.shape[-2:], x.dtype))
    s, u, v = _svd_numpy(x.astype(np.float64))
    return s.astype(x.dtype), np.einsum("...ik,...jk->...kij", u, v).astype(x.dtype)


SVD_CASES = (Case(((4, 3),), {"full_matrices": False}), Case(((3, 3),), {"full_matrices": False}),
             Case(((3, 5),), {"full_matrices": False}), Case(((2, 4, 3),), {"full_matrices": False}),
             Case(((4, 3),), {"full_matrices": True}), Case(((2, 3),), {"full_matrices": True}),
             Case(((0, 3),), {"full_matrices": False}))


def _eigh_fn(x, UPLO):
    w, v = F.eigh(_symmetric(x), UPLO)
    return w, F.einsum([v, v], "...ik,...jk->...kij")


def ref_eigh(x, UPLO):
    a = ((x + _t(x)) / 2).astype(np.float64)
    if a.size == 0:
        return np.zeros(a.shape[:-1], x.dtype), np.zeros(a.shape[:-1] + a.shape[-1:] * 2, x.dtype)
    w, v = _eigh_numpy(a)
    return w.astype(x.dtype), np.einsum("...ik,...jk->...kij", v, v).astype(x.dtype)


EIGH_CASES = (Case(((3, 3),), {"UPLO": "L"}), Case(((3, 3),), {"UPLO": "U"}), Case(((2, 4, 4),), {"UPLO": "L"}),
              Case(((1, 1),), {"UPLO": "L"}), Case(((0, 2, 2),), {"UPLO": "L"}))


def _pinv_fn(x, rcond, hermitian):
    return F.pinv(_symmetric(x) if hermitian else x, rcond, hermitian)


def ref_pinv(x, rcond=1e-15, hermitian=False):
    a = ((x + _t(x)) / 2 if hermitian else x).astype(np.float64)
    m, n = a.shape[-2:]
    if a.size == 0:
        return np.zeros(a.shape[:-2] + (n, m), x.dtype)
    # Full rank: (A^T A)^-1 A^T for a tall A, A^T (A A^T)^-1 for a wide one.
    out = np.linalg.solve(_t(a) @ a, _t(a)) if m >= n else _t(np.linalg.solve(a @ _t(a), a))
    return out.astype(x.dtype)


PINV_CASES = (Case(((3, 3),), {"rcond": 1e-15, "hermitian": False}),
              Case(((4, 3),), {"rcond": 1e-15, "hermitian": False}),
              Case(((3, 5),), {"rcond": 1e-15, "hermitian": False}),
              Case(((2, 4, 3),), {"rcond": 1e-15, "hermitian": False}),
              Case(((3, 3),), {"rcond": 1e-15, "hermitian": True}),
              Case(((0, 3),), {"rcond": 1e-15, "hermitian": False}))


def _rank_prepare(arrays, attrs):
    """Matrices of known rank: the last column repeats the first."""
    (x,) = arrays
    x = x.copy()
    if x.shape[-1] > 1 and x.size:
        x[..., -1] = x[..., 0]
    if attrs.get("hermitian"):
        x = ((x + _t(x)) / 2).astype(x.dtype)
    return [x]


def ref_matrix_rank(x, tol=None, hermitian=False):
    if x.size == 0:
        return np.zeros(x.shape[:-2], np.int32)   # int32, as Paddle 2.6.2's matrix_rank
    # The singular values (|eigenvalues| of a symmetric matrix), in x's precision.
    s = np.abs(np.linalg.eigvalsh(x)) if hermitian else np.linalg.svd(x, compute_uv=False)
    cutoff = s.max(-1, keepdims=True) * max(x.shape[-2:]) * np.finfo(x.dtype).eps if tol is None else tol
    return np.asarray((s > cutoff).sum(-1), dtype=np.int32)


RANK_CASES = (Case(((3, 3),), {"tol": None, "hermitian": False}), Case(((4, 3),), {"tol": None, "hermitian": False}),
              Case(((2, 3, 5),), {"tol": None, "hermitian": False}), Case(((3, 3),), {"tol": 0.5, "hermitian": False}),
              Case(((4, 4),), {"tol": None, "hermitian": True}), Case(((0, 3),), {"tol": None, "hermitian": False}))


# -- backward-op references ---------------------------------------------------------------------

def _vjp2(forward, x, y, g):
    """The VJP of a map bilinear in (x, y), one argument at a time."""
    return (linear_vjp(lambda a: forward(a, y), x.shape, g, x.dtype),
            linear_vjp(lambda b: forward(x, b), y.shape, g, y.dtype))


def _product_grad_spec(name, fn, forward, cases, dtypes=PRODUCTS):
    def reference(x, y, g, **attrs):
        return _vjp2(lambda a, b: forward(a, b, **attrs), x, y, g)
    grad_cases = tuple(Case(c.shapes + (np.asarray(forward(np.zeros(c.shapes[0]), np.zeros(c.shapes[1]),
                                                               **c.attrs)).shape,), c.attrs) for c in cases)
    return OpSpec(name, fn, reference, ("real", "real", "real"), grad_cases, dtypes=dtypes, grad=False)


def _einsum_grad_fn(a, b, c, g, equation):
    return tuple(F.einsum_grad([t for t in (a, b, c) if t is not None], g, equation))


def ref_einsum_grad(a, b, c, g, equation):
    operands = [t for t in (a, b, c) if t is not None]
    grads = []
    for k, operand in enumerate(operands):
        def image(v, k=k):
            return np.einsum(equation, *[v if i == k else t for i, t in enumerate(operands)])
        grads.append(linear_vjp(image, operand.shape, g, operand.dtype))
    return tuple(grads)


def _einsum_grad_cases():
    cases = []
    for c in EINSUM_CASES:
        shapes = [s for s in c.shapes if s is not None]
        out = np.einsum(c.attrs["equation"], *[np.zeros(s) for s in shapes]).shape
        cases.append(Case(c.shapes + (out,), c.attrs))
    return tuple(cases)


def ref_inverse_grad(out, g):
    return (-_t(out) @ g @ _t(out)).astype(out.dtype)


def _inverse_grad_prepare(arrays, attrs):
    x = _shift(arrays[:1], attrs)[0]
    return [ref_inverse(x), arrays[1]]


def ref_det_grad(x, out, g):
    return ((g * out)[..., None, None] * _t(ref_inverse(x))).astype(x.dtype)


def ref_slogdet_grad(x, g):
    return (g[1][..., None, None] * _t(ref_inverse(x))).astype(x.dtype)


def ref_solve_grad(x, y, out, g):
    vector = y.ndim == 1 or y.shape == x.shape[:-1]
    if vector:
        out, g = out[..., None], g[..., None]
    gy = np.matmul(_t(ref_inverse(x)), g)
    gx = unbroadcast(-gy @ _t(out), x.shape)
    gy = unbroadcast(gy, y.shape + (1,)).reshape(y.shape) if vector else unbroadcast(gy, y.shape)
    return gx.astype(x.dtype), gy.astype(y.dtype)


def _solve_grad_prepare(arrays, attrs):
    x, y, _, g = arrays
    x = _shift([x], attrs)[0]
    return [x, y, ref_solve(x, y), g]


def ref_matrix_power_grad(x, g, n):
    # The derivative of B^m (B = x or x^-1) applied to every basis direction.
    def power_jvp(dx):
        base, m = (x, n) if n >= 0 else (ref_inverse(x), -n)
        dbase = dx if n >= 0 else -base @ dx @ base
        total = np.zeros_like(g, dtype=np.float64)
        for k in range(m):
            total = total + ref_matrix_power(base, k) @ dbase @ ref_matrix_power(base, m - 1 - k)
        return total
    return linear_vjp(power_jvp, x.shape, g, x.dtype)


def ref_pinv_grad(x, out, g):
    # The JVP of X = A^+ (constant rank), applied to every basis direction.
    def jvp(da):
        return (-out @ da @ out + out @ _t(out) @ _t(da) @ (np.eye(x.shape[-2]) - x @ out)
                + (np.eye(x.shape[-1]) - out @ x) @ _t(da) @ _t(out) @ out)
    return linear_vjp(jvp, x.shape, g, x.dtype)


def ref_cholesky_grad(out, g, upper):
    # The JVP dL = L Φ(L^-1 dA L^-T) (Φ: lower triangle, diagonal halved) over symmetric dA.
    lower = _t(out) if upper else out
    inv = np.linalg.inv(lower)

    def jvp(da):
        sym = (da + _t(da)) / 2
        inner = inv @ sym @ _t(inv)
        phi = np.tril(inner) - np.triu(np.tril(inner)) / 2
        dl = lower @ phi
        return _t(dl) if upper else dl
    return linear_vjp(jvp, out.shape, g, out.dtype)


def ref_eigh_grad(w, v, gw, gv, UPLO):
    # The JVP over symmetric dA: dw = diag(V^T dA V), dV = V (F o V^T dA V), F_ij = 1/(w_j - w_i).
    n = w.shape[-1]
    f = 1.0 / (w[..., None, :] - w[..., :, None] + np.eye(n)) * (1 - np.eye(n))

    def jvp_w(da):
        sym = (da + _t(da)) / 2
        return np.diagonal(_t(v) @ sym @ v, 0, -2, -1)

    def jvp_v(da):
        sym = (da + _t(da)) / 2
        return v @ (f * (_t(v) @ sym @ v))
    shape = v.shape
    return (linear_vjp(jvp_w, shape, gw, v.dtype) + linear_vjp(jvp_v, shape, gv, v.dtype)).astype(v.dtype)


def _eigh_grad_prepare(arrays, attrs):
    x, _, _, gw, gv = arrays
    a = ((x + _t(x)) / 2).astype(x.dtype)
    w, v = np.linalg.eigh(a.astype(np.float64))
    return [w.astype(x.dtype), v.astype(x.dtype), gw, gv]


def _eig_grad_prepare(arrays, attrs):
    """eig_grad's inputs from a drawn x: its eigenpairs, a complex eigenvalue cotangent, and
    the eigenvector cotangent 2 C o v of the phase-independent loss sum(C o |v|^2) (C the
    drawn real matrix): the only kind of eigenvector loss eig's output defines."""
    x, _, _, gw, c = arrays
    w, v = np.linalg.eig(x)
    return [x, w, v, gw + 0.5j * gw[..., ::-1], 2 * c * v]


def _eig_loss(x, gw, c):
    """The loss whose gradient eig_grad gives: Re(sum(conj(gw) w)) + sum(C |v|^2), with each
    eigenpair of the perturbed x matched to the nearest eigenvalue of the unperturbed one."""
    w0 = np.linalg.eigvals(x)

    def loss(a):
        w, v = np.linalg.eig(a)
        order = [int(np.argmin(np.abs(w - target))) for target in w0]
        w, v = w[order], v[:, order]
        return float(np.real(np.sum(np.conj(gw) * w)) + np.sum(c * np.abs(v) ** 2))
    return loss


def ref_eig_grad(x, w, v, gw, gv):
    """Fourth-order central differences (h = 1e-3: truncation ~h^4, rounding ~1e-16 / h) of
    the loss above, entry by entry, on float64 x."""
    out = np.zeros(x.shape, np.float64)
    for index in np.ndindex(x.shape[:-2]):
        a = x[index].astype(np.float64)
        c = np.real(gv[index] / (2 * v[index]))  # gv = 2 C o v
        loss = _eig_loss(a, gw[index], c)
        for i, j in np.ndindex(a.shape):
            step = np.zeros_like(a)
            step[i, j] = 1e-3
            out[index + (i, j)] = (8 * (loss(a + step) - loss(a - step))
                                   - (loss(a + 2 * step) - loss(a - 2 * step))) / 12e-3
    return out.astype(x.dtype)


def ref_svd_grad(x, u, s, vh, gu, gs, gvh, full_matrices):
    # The JVP (Townsend): with P = U^T dA V, F_ij = 1/(s_j^2 - s_i^2),
    # dS = diag(P), dU = U (F o (P S + S P^T)) + (I - U U^T) dA V S^-1,
    # dV = V (F o (S P + P^T S)) + (I - V V^T) dA^T U S^-1.
    k = s.shape[-1]
    u, vh, gu, gvh = u[..., :, :k], vh[..., :k, :], gu[..., :, :k], gvh[..., :k, :]
    v = _t(vh)
    f = 1.0 / (s[..., None, :] ** 2 - s[..., :, None] ** 2 + np.eye(k)) * (1 - np.eye(k))
    sm = s[..., :, None] * np.eye(k)

    def pieces(da):
        p = _t(u) @ da @ v
        du = u @ (f * (p @ sm + sm @ _t(p))) + (np.eye(u.shape[-2]) - u @ _t(u)) @ da @ v / s[..., None, :]
        dv = v @ (f * (sm @ p + _t(p) @ sm)) + (np.eye(v.shape[-2]) - v @ _t(v)) @ _t(da) @ u / s[..., None, :]
        return du, np.diagonal(p, 0, -2, -1), _t(dv)
    total = (linear_vjp(lambda da: pieces(da)[0], x.shape, gu, x.dtype)
             + linear_vjp(lambda da: pieces(da)[1], x.shape, gs, x.dtype)
             + linear_vjp(lambda da: pieces(da)[2], x.shape, gvh, x.dtype))
    return total.astype(x.dtype)


def _svd_grad_prepare(arrays, attrs):
    x, _, _, _, gu, gs, gvh = arrays
    u, s, vh = np.linalg.svd(x.astype(np.float64), full_matrices=attrs["full_matrices"])
    return [x, u.astype(x.dtype), s.astype(x.dtype), vh.astype(x.dtype), gu, gs, gvh]


def ref_qr_grad(x, q, r, gq, gr, mode):
    # The JVP for M >= N: X = Q^T dA R^-1 splits into a skew part Ω and an upper one;
    # dR = (X - Ω) R and dQ = (dA - Q dR) R^-1.
    rinv = np.linalg.inv(r)

    def pieces(da):
        xm = _t(q) @ da @ rinv
        lower = np.tril(xm, -1)
        omega = lower - _t(lower)
        dr = (xm - omega) @ r
        return (da - q @ dr) @ rinv, dr
    return (linear_vjp(lambda da: pieces(da)[0], x.shape, gq, x.dtype)
            + linear_vjp(lambda da: pieces(da)[1], x.shape, gr, x.dtype)).astype(x.dtype)


def _qr_grad_prepare(arrays, attrs):
    x, _, _, gq, gr = arrays
    q, r = np.linalg.qr(x.astype(np.float64))
    return [x, q.astype(x.dtype), r.astype(x.dtype), gq, gr]



# -- eig, lu, lu_unpack -------------------------------------------------------------------------

def ref_eig(x):
    """Only the dtypes and shapes: eigenvectors are unique up to a phase, so the
    values are checked by check_eig's properties."""
    dtype = np.complex64 if x.dtype == np.float32 else np.complex128
    return np.zeros(x.shape[:-1], dtype), np.zeros(x.shape, dtype)


def check_eig(got, x):
    """Eigenvalues: their sum, product and sum of squares are the trace, the
    determinant and trace(x @ x). Eigenvectors: unit columns v with x v parallel
    to v (Cauchy-Schwarz with equality), which needs no eigenvalue."""
    tol = 1e-4 if x.dtype == np.float32 else 1e-9
    a = x.astype(np.complex128)
    for index in np.ndindex(x.shape[:-2]):
        m, g = a[index], got[index].astype(np.complex128)
        n = m.shape[-1]
        if g.ndim == 1:
            trace = sum(m[i, i] for i in range(n))
            square = sum(m[i, j] * m[j, i] for i in range(n) for j in range(n))
            np.testing.assert_allclose(g.sum(), trace, rtol=tol, atol=tol)
            np.testing.assert_allclose((g ** 2).sum(), square, rtol=tol, atol=tol)
            np.testing.assert_allclose(np.prod(g), np.linalg.det(m), rtol=tol, atol=tol)
            continue
        for j in range(n):
            v = g[:, j]
            image = m @ v
            np.testing.assert_allclose(np.vdot(v, v).real, 1.0, rtol=tol)
            np.testing.assert_allclose(abs(np.vdot(v, image)) ** 2, np.vdot(image, image).real * np.vdot(v, v).real,
                                       rtol=tol, atol=tol)


def _ref_lu_one(a, pivot):
    """Doolittle elimination with partial pivoting, a loop per entry."""
    a = a.astype(np.float64).copy()
    m, n = a.shape
    swaps = []
    for j in range(min(m, n)):
        p = j
        if pivot:
            for i in range(j + 1, m):
                if abs(a[i, j]) > abs(a[p, j]):
                    p = i
        swaps.append(p + 1)
        a[[j, p]] = a[[p, j]]
        for i in range(j + 1, m):
            factor = a[i, j] / a[j, j] if a[j, j] != 0 else 0.0
            a[i, j] = factor
            for c in range(j + 1, n):
                a[i, c] -= factor * a[j, c]
    info = next((j + 1 for j in range(min(m, n)) if a[j, j] == 0), 0)
    return a, swaps, info


def ref_lu(x, pivot=True):
    m, n = x.shape[-2:]
    out = np.zeros(x.shape, x.dtype)
    pivots = np.zeros(x.shape[:-2] + (min(m, n),), np.int32)
    infos = np.zeros(x.shape[:-2], np.int32)
    for index in np.ndindex(x.shape[:-2]):
        out[index], pivots[index], infos[index] = _ref_lu_one(x[index], pivot)
    # one matrix: Paddle's LUInferMeta gives infos the shape [1], not 0-d
    return out, pivots, infos.reshape(1) if x.ndim == 2 else infos


def ref_lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True):
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = x.shape[:-2]
    pmat, lower, upper = (np.zeros(batch + s, x.dtype) for s in ((m, m), (m, k), (k, n)))
    for index in np.ndindex(batch):
        order = list(range(m))
        for j, p in enumerate(y[index]):
            order[j], order[p - 1] = order[p - 1], order[j]
        for i in range(m):
            pmat[index][order[i], i] = 1
            for j in range(k):
                lower[index][i, j] = 1 if i == j else x[index][i, j] if i > j else 0
        for i in range(k):
            for j in range(n):
                upper[index][i, j] = x[index][i, j] if i <= j else 0
    empty = np.zeros((0,), x.dtype)
    return (pmat if unpack_pivots else empty, lower if unpack_ludata else empty,
            upper if unpack_ludata else empty)


def _lu_unpack_prepare(arrays, attrs):
    x = arrays[0]
    packed, pivots, _ = ref_lu(x)
    return [packed, pivots]


def ref_lu_grad(out, pivots, g, pivot):
    # The JVP of square A = P L U: X = L^-1 P^T dA U^-1, d(packed) = L tril_-1(X) + triu(X) U.
    pmat, lower, upper = ref_lu_unpack(out, pivots)

    def jvp(da):
        x = np.linalg.solve(lower, _t(pmat) @ da) @ np.linalg.inv(upper)
        return lower @ np.tril(x, -1) + np.triu(x) @ upper
    return linear_vjp(jvp, out.shape, g, out.dtype) if out.ndim == 2 else np.stack(
        [linear_vjp(lambda da, i=i: (lambda x: lower[i] @ np.tril(x, -1) + np.triu(x) @ upper[i])(
            np.linalg.solve(lower[i], _t(pmat[i]) @ da) @ np.linalg.inv(upper[i])), out.shape[1:], g[i], out.dtype)
         for i in range(out.shape[0])])


def _lu_grad_prepare(arrays, attrs):
    x, _, g = arrays
    packed, pivots, _ = ref_lu(x, attrs["pivot"])
    return [packed, pivots, g]


def ref_lu_unpack_grad(x, l_grad, u_grad, unpack_ludata, unpack_pivots):
    m, n = x.shape[-2:]
    grad = np.zeros(x.shape, x.dtype)
    for index in np.ndindex(x.shape[:-2]):
        for i in range(m):
            for j in range(n):
                grad[index][i, j] = l_grad[index][i, j] if i > j else u_grad[index][i, j]
    return grad


LU_CASES = (Case(((3, 3),), {"pivot": True}), Case(((2, 4, 3),), {"pivot": True}), Case(((3, 5),), {"pivot": True}),
            Case(((3, 3),), {"pivot": False}), Case(((1, 1),), {"pivot": True}),
            Case(((0, 2, 2),), {"pivot": True}, grad=False))
EIG_CASES = (Case(((3, 3),)), Case(((2, 4, 4),)), Case(((1, 1),)), Case(((0, 2, 2),)))
LU_UNPACK_CASES = tuple(Case((c.shapes[0], c.shapes[0][:-2] + (min(c.shapes[0][-2:]),)),
                             {"unpack_ludata": True, "unpack_pivots": True}) for c in LU_CASES[:3]) + (
    Case(((3, 3), (3,)), {"unpack_ludata": False, "unpack_pivots": True}, grad=False),
    Case(((3, 3), (3,)), {"unpack_ludata": True, "unpack_pivots": False}))

SPECS = [
    OpSpec("bmm", F.bmm, np.matmul, ("real", "real"), BMM_CASES, dtypes=PRODUCTS),
    OpSpec("dot", F.dot, ref_dot, ("real", "real"), DOT_CASES, dtypes=PRODUCTS),
    OpSpec("mv", F.mv, np.matmul, ("real", "real"), MV_CASES, dtypes=PRODUCTS),
    OpSpec("outer", F.outer, lambda x, y: np.outer(x, y).astype(x.dtype), ("real", "real"), OUTER_CASES,
           dtypes=PRODUCTS),
    OpSpec("inner", F.inner, ref_inner, ("real", "real"), INNER_CASES, dtypes=PRODUCTS),
    OpSpec("cross", F.cross, ref_cross, ("real", "real"), CROSS_CASES, dtypes=PRODUCTS),
    OpSpec("kron", F.kron, ref_kron, ("real", "real"), KRON_CASES, dtypes=PRODUCTS),
    OpSpec("einsum", _einsum_fn, ref_einsum, ("real", "real", "real"), EINSUM_CASES, dtypes=PRODUCTS),
    OpSpec("trace", F.trace, ref_trace, ("real",), DIAGONAL_CASES, dtypes=PRODUCTS),
    OpSpec("diagonal", F.diagonal, ref_diagonal, ("real",), DIAGONAL_CASES, dtypes=PRODUCTS + ("bool",)),
    OpSpec("matrix_power", F.matrix_power, ref_matrix_power, ("real",), MATRIX_POWER_CASES,
           prepare=lambda arrays, attrs: _shift(arrays, attrs, 3.0)),
    OpSpec("inverse", F.inverse, ref_inverse, ("real",), SQUARE_CASES, prepare=_shift),
    OpSpec("det", F.det, ref_det, ("real",), SQUARE_CASES, prepare=_shift),
    # Shifted by -3 I: odd sizes get a negative determinant.
    OpSpec("slogdet", F.slogdet, ref_slogdet, ("real",), SQUARE_CASES,
           prepare=lambda arrays, attrs: _shift(arrays, attrs, -3.0)),
    OpSpec("solve", F.solve, ref_solve, ("real", "real"), SOLVE_CASES, prepare=_shift),
    OpSpec("cholesky", lambda x, upper: F.cholesky(_spd(x), upper), ref_cholesky, ("real",), CHOLESKY_CASES),
    OpSpec("qr", _qr_fn, ref_qr, ("real",), QR_CASES),
    OpSpec("svd", _svd_fn, ref_svd, ("real",), SVD_CASES),
    OpSpec("eigh", _eigh_fn, ref_eigh, ("real",), EIGH_CASES),
    OpSpec("pinv", _pinv_fn, ref_pinv, ("real",), PINV_CASES),
    OpSpec("matrix_rank", F.matrix_rank, ref_matrix_rank, ("real",), RANK_CASES, grad=False,
           prepare=_rank_prepare),
    OpSpec("eig", F.eig, ref_eig, ("real",), EIG_CASES, grad=False, check=check_eig),
    OpSpec("lu", F.lu, ref_lu, ("real",), LU_CASES),
    OpSpec("lu_unpack", F.lu_unpack, ref_lu_unpack, ("real", "real"), LU_UNPACK_CASES, prepare=_lu_unpack_prepare,
           wrt=(0,)),
    # -- backward ops ------------------------------------------------------------------------
    _product_grad_spec("bmm_grad", F.bmm_grad, np.matmul, BMM_CASES),
    _product_grad_spec("dot_grad", F.dot_grad, ref_dot, DOT_CASES),
    _product_grad_spec("mv_grad", F.mv_grad, np.matmul, MV_CASES),
    _product_grad_spec("outer_grad", F.outer_grad, lambda x, y: np.outer(x, y).astype(x.dtype), OUTER_CASES),
    _product_grad_spec("inner_grad", F.inner_grad, ref_inner, INNER_CASES),
    _product_grad_spec("cross_grad", F.cross_grad, ref_cross, CROSS_CASES),
    _product_grad_spec("kron_grad", F.kron_grad, ref_kron, KRON_CASES),
    OpSpec("einsum_grad", _einsum_grad_fn, ref_einsum_grad, ("real",) * 4, _einsum_grad_cases(), dtypes=PRODUCTS,
           grad=False),
    OpSpec("trace_grad", F.trace_grad,
           lambda x, g, **attrs: linear_vjp(lambda a: ref_trace(a, **attrs), x.shape, g, x.dtype),
           ("real", "real"), _trace_grad_cases(), dtypes=PRODUCTS, grad=False),
    OpSpec("diagonal_grad", F.diagonal_grad,
           lambda x, g, **attrs: linear_vjp(lambda a: ref_diagonal(a, **attrs), x.shape, g, x.dtype),
           ("real", "real"), _diagonal_grad_cases(), dtypes=PRODUCTS, wrt=(1,)),
    OpSpec("diagonal_double_grad", F.diagonal_double_grad, ref_diagonal, ("real",), DIAGONAL_CASES,
           dtypes=PRODUCTS),
    OpSpec("matrix_power_grad", F.matrix_power_grad, ref_matrix_power_grad, ("real", "real"),
           tuple(Case((c.shapes[0], c.shapes[0]), c.attrs) for c in MATRIX_POWER_CASES),
           prepare=lambda arrays, attrs: _shift(arrays, attrs, 3.0), grad=False),
    OpSpec("inverse_grad", F.inverse_grad, ref_inverse_grad, ("real", "real"),
           tuple(Case((c.shapes[0], c.shapes[0])) for c in SQUARE_CASES), prepare=_inverse_grad_prepare,
           grad=False),
    OpSpec("det_grad", F.det_grad, ref_det_grad, ("real", "real", "real"),
           tuple(Case((c.shapes[0], c.shapes[0][:-2], c.shapes[0][:-2])) for c in SQUARE_CASES),
           prepare=_forward_prepare(lambda x, attrs: [ref_det(x)]), grad=False),
    OpSpec("slogdet_grad", F.slogdet_grad, ref_slogdet_grad, ("real", "real"),
           tuple(Case((c.shapes[0], (2,) + c.shapes[0][:-2])) for c in SQUARE_CASES), prepare=_shift, grad=False),
    OpSpec("solve_grad", F.solve_grad, ref_solve_grad, ("real",) * 4,
           tuple(Case(c.shapes + (ref_solve(np.eye(c.shapes[0][-1]) + np.zeros(c.shapes[0]),
                                            np.zeros(c.shapes[1])).shape,) * 2) for c in SOLVE_CASES),
           prepare=_solve_grad_prepare, grad=False),
    OpSpec("pinv_grad", F.pinv_grad, lambda x, out, g, rcond, hermitian: ref_pinv_grad(x, out, g),
           ("real",) * 3,
           tuple(Case((c.shapes[0], c.shapes[0][:-2] + c.shapes[0][:-3:-1], c.shapes[0][:-2] + c.shapes[0][:-3:-1]),
                      {"rcond": 1e-15, "hermitian": False}) for c in PINV_CASES[:4]),
           prepare=lambda arrays, attrs: [arrays[0], ref_pinv(arrays[0]), arrays[2]], grad=False),
    OpSpec("cholesky_grad", F.cholesky_grad, ref_cholesky_grad, ("real", "real"),
           tuple(Case((c.shapes[0], c.shapes[0]), c.attrs) for c in CHOLESKY_CASES),
           prepare=lambda arrays, attrs: [ref_cholesky(arrays[0], attrs["upper"]), arrays[1]], grad=False),
    OpSpec("qr_grad", F.qr_grad, ref_qr_grad, ("real",) * 5,
           (Case(((4, 3), (4, 3), (3, 3), (4, 3), (3, 3)), {"mode": "reduced"}),
            Case(((2, 3, 3), (2, 3, 3), (2, 3, 3), (2, 3, 3), (2, 3, 3)), {"mode": "reduced"})),
           prepare=_qr_grad_prepare, grad=False),
    OpSpec("svd_grad", F.svd_grad, ref_svd_grad, ("real",) * 7,
           (Case(((4, 3), (4, 3), (3,), (3, 3), (4, 3), (3,), (3, 3)), {"full_matrices": False}),
            Case(((3, 5), (3, 3), (3,), (3, 5), (3, 3), (3,), (3, 5)), {"full_matrices": False}),
            Case(((2, 3, 3), (2, 3, 3), (2, 3), (2, 3, 3), (2, 3, 3), (2, 3), (2, 3, 3)), {"full_matrices": False})),
           prepare=_svd_grad_prepare, grad=False),
    OpSpec("lu_grad", F.lu_grad, ref_lu_grad, ("real",) * 3,
           (Case(((3, 3), (3,), (3, 3)), {"pivot": True}), Case(((2, 4, 4), (2, 4), (2, 4, 4)), {"pivot": False})),
           prepare=_lu_grad_prepare, wrt=(0, 2)),
    OpSpec("lu_unpack_grad", F.lu_unpack_grad, ref_lu_unpack_grad, ("real",) * 3,
           (Case(((3, 3), (3, 3), (3, 3)), {"unpack_ludata": True, "unpack_pivots": True}),
            Case(((2, 4, 3), (2, 4, 3), (2, 3, 3)), {"unpack_ludata": True, "unpack_pivots": True}),
            Case(((3, 5), (3, 3), (3, 5)), {"unpack_ludata": True, "unpack_pivots": False})), wrt=(1, 2)),
    OpSpec("eigh_grad", F.eigh_grad, ref_eigh_grad, ("real",) * 5,
           (Case(((3, 3), (3,), (3, 3), (3,), (3, 3)), {"UPLO": "L"}),
            Case(((2, 4, 4), (2, 4), (2, 4, 4), (2, 4), (2, 4, 4)), {"UPLO": "L"})),
           prepare=_eigh_grad_prepare, grad=False),
    # eig itself stays grad=False above: a generic cotangent on the eigenvectors depends on their
    # phases, which eig does not define (tests/test_ops_special.py gradchecks phase-free losses).
    OpSpec("eig_grad", F.eig_grad, ref_eig_grad, ("real",) * 5,
           (Case(((3, 3), (3,), (3, 3), (3,), (3, 3))), Case(((2, 4, 4), (2, 4), (2, 4, 4), (2, 4), (2, 4, 4)))),
           dtypes=("float64",), prepare=_eig_grad_prepare, grad=False),
]
