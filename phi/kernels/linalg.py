"""Linear-algebra kernels (bmm, dot, mv, outer, inner, cross, kron, einsum, trace,
diagonal, matrix_power, inverse, det, slogdet, solve, cholesky, qr, svd, eigh,
pinv, matrix_rank, eig, lu, lu_unpack) and the backward kernels of the decompositions.

Matrices are batched, ``[..., M, N]``. Only functions that numpy.linalg and
cupy.linalg both provide are used. The gradients of the simple ops are
composite rules alone (eager/composite/linalg.py); the decompositions' gradients
are kernels here, with the same identities written as composite rules for
create_graph (so every order works):

- cholesky (Murray 2016): gA = L^-T Φ(L^T gL) L^-1, Φ(X) = (tril(X) + tril(X)^T)/2 with the
  diagonal halved, a symmetric gradient;
- qr (Walter & Lehmann; as Paddle and TensorFlow): gA = (gQ + Q copyltu(M)) R^-T with
  M = R gR^T - gQ^T Q, and the extra columns of a wide matrix handled apart;
- svd and eigh (the F-matrix identities, as PyTorch): they divide by s_j^2 - s_i^2
  (svd) and w_j - w_i (eigh), so where singular values or eigenvalues repeat the
  gradient through U, VH or the eigenvectors is undefined (infinite), as in Paddle
  and PyTorch; svd's also divides by the singular values when U or VH is used and
  the matrix is not square. A term no gradient reaches stays 0 there, so a loss of
  the singular values or eigenvalues alone has a finite gradient even at repeats.
"""
import string

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.kernel_registry import register_kernel
from ..common.data_type import DataType as T
from ..infermeta.linalg import diagonal_length, parse_einsum, solve_vector_rhs
from .dtypes import ALL_BACKENDS, COMPLEX, FLOATS, INTS

LINALG_FLOATS = (T.FLOAT32, T.FLOAT64)  # what numpy.linalg / cupy.linalg compute in
PRODUCT_TYPES = INTS + FLOATS
# Paddle registers dot, trace, diagonal, kron, einsum, cross and matrix_power for
# complex64/complex128 too,
# and its outer and inner are matmuls, which take complex.
COMPLEX_PRODUCT_TYPES = PRODUCT_TYPES + COMPLEX


def _mT(a):
    return a.swapaxes(-1, -2)


def _mH(xp, a):
    """The conjugate transpose of a's matrices (the transpose of real ones)."""
    return xp.conj(a.swapaxes(-1, -2)) if a.dtype.kind == "c" else a.swapaxes(-1, -2)


def _finite_or_raise(ctx, result, what: str, *inputs):
    """A value check made after the computation and before anything is returned: a
    non-finite result from finite inputs (a singular matrix; CuPy returns one where
    NumPy raises LinAlgError) becomes an InvalidArgumentError naming the argument.
    NaN or Inf in the inputs propagates, as in any other op. Only where
    ``ctx.check_values``: on a GPU (outside anomaly mode) the result's NaN/Inf is
    returned instead, as reading the answer back would wait for the device."""
    xp = ctx.xp
    if ctx.check_values and result.size and not bool(xp.isfinite(result).all()) and all(bool(xp.isfinite(a).all()) for a in inputs):
        raise InvalidArgumentError(what)
    return result


# -- products ----------------------------------------------------------------------

@register_kernel("bmm", ALL_BACKENDS, PRODUCT_TYPES)
def bmm(ctx, x, y):
    return ctx.xp.matmul(x, y)


@register_kernel("dot", ALL_BACKENDS, COMPLEX_PRODUCT_TYPES)
def dot(ctx, x, y):
    return (x * y).sum(axis=-1, dtype=x.dtype)


@register_kernel("mv", ALL_BACKENDS, PRODUCT_TYPES)
def mv(ctx, x, vec):
    return ctx.xp.matmul(x, vec)


@register_kernel("outer", ALL_BACKENDS, COMPLEX_PRODUCT_TYPES)
def outer(ctx, x, y):
    return x.reshape(-1, 1) * y.reshape(1, -1)


@register_kernel("inner", ALL_BACKENDS, COMPLEX_PRODUCT_TYPES)
def inner(ctx, x, y):
    if x.size == 1 or y.size == 1:  # Paddle: an operand of one element multiplies
        return x * y
    return ctx.xp.tensordot(x, y, axes=([-1], [-1])).astype(x.dtype, copy=False)


@register_kernel("kron", ALL_BACKENDS, COMPLEX_PRODUCT_TYPES)
def kron(ctx, x, y):
    xp = ctx.xp
    n = max(x.ndim, y.ndim)
    xs, ys = (1,) * (n - x.ndim) + x.shape, (1,) * (n - y.ndim) + y.shape
    # out[a0*b0 + j0, ...] = x[a0, ...] * y[j0, ...]: interleave the axes, then merge the pairs.
    xe = x.reshape(tuple(d for s in xs for d in (s, 1)))
    ye = y.reshape(tuple(d for s in ys for d in (1, s)))
    return xp.multiply(xe, ye).reshape(tuple(a * b for a, b in zip(xs, ys)))


@register_kernel("cross", ALL_BACKENDS, COMPLEX_PRODUCT_TYPES)
def cross(ctx, x, y, axis):
    xp = ctx.xp
    a = cross_axis(x.shape, axis)
    xm, ym = xp.moveaxis(x, a, 0), xp.moveaxis(y, a, 0)
    out = xp.stack([xm[1] * ym[2] - xm[2] * ym[1],
                    xm[2] * ym[0] - xm[0] * ym[2],
                    xm[0] * ym[1] - xm[1] * ym[0]])
    return xp.moveaxis(out, 0, a)


def cross_axis(shape, axis: int) -> int:
    """Paddle's rule: axis 9 (its default) means the first axis of size 3."""
    if axis == 9:
        return list(shape).index(3)
    return axis % len(shape)


@register_kernel("einsum", ALL_BACKENDS, COMPLEX_PRODUCT_TYPES)
def einsum(ctx, x, equation):
    xp = ctx.xp
    plan = parse_einsum(equation, [t.shape for t in x])
    # Size-1 dimensions broadcast against a label's full size (NumPy's rule): widen
    # them first, so NumPy and CuPy see consistent sizes.
    operands = []
    for labels, operand in zip(plan.inputs, x):
        full = tuple(plan.sizes[label] for label in labels)
        operands.append(operand if operand.shape == full else xp.broadcast_to(operand, full))
    # optimize: NumPy (and CuPy) then contract pairwise through BLAS in a good order;
    # the plain loop is several times slower already for a batched matrix product.
    equation = plan.equation
    if len(set(plan.output)) < len(plan.output):
        equation, eyes = _undiagonalized(plan, xp, x[0].dtype)
        operands.extend(eyes)
    out = xp.einsum(equation, *operands, optimize=len(operands) > 1)
    # A one-operand einsum may return a view of its input (a transpose, a diagonal).
    return xp.array(out, dtype=x[0].dtype, copy=True) if len(x) == 1 else xp.asarray(out, dtype=x[0].dtype)


def _undiagonalized(plan, xp, dtype):
    """The equation and extra operands for an output that repeats a label ('i->ii'):
    NumPy's einsum refuses that, so each later occurrence gets a fresh label tied
    to the first by an identity matrix, which puts the values on the diagonal."""
    used = set(plan.output).union(*plan.inputs)
    fresh = iter(label for label in string.ascii_letters if label not in used)
    output, ties, eyes, seen = [], [], [], set()
    for label in plan.output:
        if label in seen:
            new = next(fresh, None)
            if new is None:
                raise InvalidArgumentError(f"argument 'equation': {plan.equation!r} needs more than 52 labels")
            ties.append(label + new)
            eyes.append(xp.eye(plan.sizes[label], dtype=dtype))
            label = new
        seen.add(label)
        output.append(label)
    return ",".join(plan.inputs + tuple(ties)) + "->" + "".join(output), eyes


# -- diagonals ----------------------------------------------------------------------------

def _clamped_offset(x, offset, axis1, axis2):
    """offset brought within the plane: every offset past its edge selects the same
    empty diagonal, and NumPy's diagonal takes only offsets that fit a C int."""
    return max(-x.shape[axis1], min(offset, x.shape[axis2]))


@register_kernel("diagonal", ALL_BACKENDS, (T.BOOL,) + COMPLEX_PRODUCT_TYPES)
def diagonal(ctx, x, offset, axis1, axis2):
    return ctx.xp.diagonal(x, _clamped_offset(x, offset, axis1, axis2), axis1, axis2).copy()


@register_kernel("trace", ALL_BACKENDS, COMPLEX_PRODUCT_TYPES)
def trace(ctx, x, offset, axis1, axis2):
    return ctx.xp.diagonal(x, _clamped_offset(x, offset, axis1, axis2), axis1, axis2).sum(axis=-1, dtype=x.dtype)


@register_kernel("diagonal_grad", ALL_BACKENDS, COMPLEX_PRODUCT_TYPES)
def diagonal_grad(ctx, x, out_grad, offset, axis1, axis2):
    """out_grad written onto the diagonal of zeros shaped like x (the adjoint of diagonal)."""
    xp = ctx.xp
    ndim = len(x.shape)
    a1, a2 = axis1 % ndim, axis2 % ndim
    x_grad = xp.zeros(x.shape, dtype=out_grad.dtype)
    planes = xp.moveaxis(x_grad, (a1, a2), (-2, -1))  # a writable view
    length = diagonal_length(x.shape[a1], x.shape[a2], offset)
    steps = xp.arange(length)
    planes[..., steps + max(-offset, 0), steps + max(offset, 0)] = out_grad
    return x_grad


# -- square matrices -----------------------------------------------------------------------

def _inverse(ctx, x, what: str):
    xp = ctx.xp
    try:
        result = xp.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(what) from None
    return _finite_or_raise(ctx, result, what, x)


_SINGULAR = "argument 'x' is singular: it has no inverse"


@register_kernel("inverse", ALL_BACKENDS, LINALG_FLOATS + COMPLEX)
def inverse(ctx, x):
    return _inverse(ctx, x, _SINGULAR)


@register_kernel("det", ALL_BACKENDS, LINALG_FLOATS + COMPLEX)
def det(ctx, x):
    return ctx.xp.asarray(ctx.xp.linalg.det(x), dtype=x.dtype)


@register_kernel("slogdet", ALL_BACKENDS, LINALG_FLOATS + COMPLEX)
def slogdet(ctx, x):
    xp = ctx.xp
    sign, logabsdet = xp.linalg.slogdet(x)
    return xp.stack([xp.asarray(sign, dtype=x.dtype), xp.asarray(logabsdet, dtype=x.dtype)])


@register_kernel("solve", ALL_BACKENDS, LINALG_FLOATS + COMPLEX)
def solve(ctx, x, y):
    xp = ctx.xp
    vector = solve_vector_rhs(x.shape, y.shape)
    rhs = y[..., None] if vector else y
    batch = np.broadcast_shapes(x.shape[:-2], rhs.shape[:-2])
    a = xp.broadcast_to(x, batch + x.shape[-2:])
    b = xp.broadcast_to(rhs, batch + rhs.shape[-2:])
    message = "argument 'x' is singular: the system has no unique solution"
    try:
        out = xp.linalg.solve(a, b) if a.size else xp.zeros(b.shape, dtype=x.dtype)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(message) from None
    _finite_or_raise(ctx, out, message, x, y)
    return out[..., 0] if vector else out


@register_kernel("matrix_power", ALL_BACKENDS, COMPLEX_PRODUCT_TYPES)
def matrix_power(ctx, x, n):
    xp = ctx.xp
    if n < 0:
        x = _inverse(ctx, x, "argument 'x' is singular, so a negative power has no value")
        n = -n
    result = xp.broadcast_to(xp.eye(x.shape[-1], dtype=x.dtype), x.shape).copy()
    base = x
    while n:  # square and multiply
        if n & 1:
            result = xp.matmul(result, base)
        n >>= 1
        if n:
            base = xp.matmul(base, base)
    return result


# -- decompositions ----------------------------------------------------------------------------

@register_kernel("cholesky", ALL_BACKENDS, LINALG_FLOATS)
def cholesky(ctx, x, upper):
    xp = ctx.xp
    message = "argument 'x' is not symmetric positive-definite: it has no Cholesky factor"
    finite = None
    if ctx.check_values:
        if not bool(xp.isfinite(x).all()):  # NumPy would raise; NaN propagates as in other ops
            return xp.full(x.shape, xp.nan, dtype=x.dtype)
    elif x.size:
        # On a GPU (outside anomaly mode) nothing is read back: a non-finite input is
        # factored as the identity and the result masked to NaN on the device.
        finite = xp.isfinite(x).all()
        x = xp.where(finite, x, xp.eye(x.shape[-1], dtype=x.dtype))
    try:
        lower = xp.linalg.cholesky(x) if x.size else xp.zeros(x.shape, dtype=x.dtype)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(message) from None
    _finite_or_raise(ctx, lower, message, x)
    if finite is not None:
        lower = xp.where(finite, lower, xp.full((), xp.nan, dtype=x.dtype))
    return _mT(lower).copy() if upper else lower


@register_kernel("cholesky_grad", ALL_BACKENDS, LINALG_FLOATS)
def cholesky_grad(ctx, out, out_grad, upper):
    xp = ctx.xp
    lower, g = (_mT(out), _mT(out_grad)) if upper else (out, out_grad)
    phi = xp.tril(xp.matmul(_mT(lower), g))
    phi = 0.5 * (phi + _mT(xp.tril(phi, -1)))  # symmetric, diagonal halved
    inv_lower = xp.linalg.inv(lower) if lower.size else lower
    return xp.matmul(xp.matmul(_mT(inv_lower), phi), inv_lower)


@register_kernel("qr", ALL_BACKENDS, LINALG_FLOATS)
def qr(ctx, x, mode):
    xp = ctx.xp
    *batch, m, n = x.shape
    k = min(m, n)
    if x.size == 0:
        q_cols = m if mode == "complete" else k
        r_rows = m if mode == "complete" else k
        q = xp.broadcast_to(xp.eye(m, q_cols, dtype=x.dtype), tuple(batch) + (m, q_cols)).copy()
        r = xp.zeros(tuple(batch) + (r_rows, n), dtype=x.dtype)
    else:
        q, r = xp.linalg.qr(x, mode="complete" if mode == "complete" else "reduced")
    if mode == "r":
        q = xp.zeros((0,), dtype=x.dtype)
    return q, r


def _qr_square_or_tall_grad(xp, q, r, gq, gr):
    """gA for A = QR with Q [..., M, N] and R [..., N, N] (M >= N)."""
    m_mat = xp.matmul(r, _mT(gr)) - xp.matmul(_mT(gq), q)
    lower = xp.tril(m_mat)
    sym = lower + _mT(lower) - lower * xp.eye(lower.shape[-1], dtype=lower.dtype)
    b = gq + xp.matmul(q, sym)
    # b R^-T: solve R X^T = b^T.
    return _mT(xp.linalg.solve(r, _mT(b))) if b.size else b


@register_kernel("qr_grad", ALL_BACKENDS, LINALG_FLOATS)
def qr_grad(ctx, x, q, r, q_grad, r_grad, mode):
    xp = ctx.xp
    m, n = x.shape[-2:]
    if mode == "r":
        raise InvalidArgumentError("qr with mode='r' is not differentiable (Q was not kept); use mode='reduced'")
    if mode == "complete" and m > n:
        raise InvalidArgumentError(
            "qr with mode='complete' is not differentiable for a tall matrix (M > N): Q is not unique")
    if x.size == 0:
        return xp.zeros(x.shape, dtype=x.dtype)
    if m >= n:
        return _qr_square_or_tall_grad(xp, q, r, q_grad, r_grad)
    # A = [X | Y] with X square: X = Q U, Y = Q V, R = [U | V].
    u = r[..., :, :m]
    gu, gv = r_grad[..., :, :m], r_grad[..., :, m:]
    y = x[..., :, m:]
    gy = xp.matmul(q, gv)
    gx = _qr_square_or_tall_grad(xp, q, u, q_grad + xp.matmul(y, _mT(gv)), gu)
    return xp.concatenate([gx, gy], axis=-1)


def _divide_where_used(xp, numerator, denominator):
    """numerator / denominator, and 0 where the numerator is 0: a term no gradient
    reaches (eigenvectors unused, say) stays 0 even where the eigenvalues repeat,
    so w.sum() keeps a finite gradient; a used term there is infinite, as in PyTorch."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.where(numerator == 0, 0, numerator / denominator)


def _svd(ctx, x, full_matrices=False, compute_uv=True):
    """xp.linalg.svd of a non-empty x, NaN for each matrix holding inf or NaN (all of
    its U, S and VH), as inverse, det and eigh give, where LAPACK would say "did not
    converge" or return a mix: such a matrix is factored as zeros and its results are
    masked to NaN on the device, so nothing is read back. A finite matrix the SVD
    cannot factor raises InvalidArgumentError."""
    xp = ctx.xp
    finite = xp.isfinite(x).all(axis=(-2, -1))
    clean = xp.where(finite[..., None, None], x, xp.zeros((), dtype=x.dtype))
    try:
        out = xp.linalg.svd(clean, full_matrices=bool(full_matrices), compute_uv=compute_uv)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError("argument 'x': the singular value decomposition did not converge") from None
    nan = xp.full((), xp.nan, dtype=x.dtype)
    if not compute_uv:
        return xp.where(finite[..., None], out, nan)
    u, s, vh = out
    return (xp.where(finite[..., None, None], u, nan), xp.where(finite[..., None], s, nan),
            xp.where(finite[..., None, None], vh, nan))


@register_kernel("svd", ALL_BACKENDS, LINALG_FLOATS)
def svd(ctx, x, full_matrices):
    xp = ctx.xp
    *batch, m, n = x.shape
    k = min(m, n)
    if x.size == 0:
        batch = tuple(batch)
        u_cols, vh_rows = (m, n) if full_matrices else (k, k)
        return (xp.broadcast_to(xp.eye(m, u_cols, dtype=x.dtype), batch + (m, u_cols)).copy(),
                xp.zeros(batch + (k,), dtype=x.dtype),
                xp.broadcast_to(xp.eye(vh_rows, n, dtype=x.dtype), batch + (vh_rows, n)).copy())
    u, s, vh = _svd(ctx, x, full_matrices)
    return u, s, vh


@register_kernel("svd_grad", ALL_BACKENDS, LINALG_FLOATS)
def svd_grad(ctx, x, u, s, vh, u_grad, s_grad, vh_grad, full_matrices):
    xp = ctx.xp
    m, n = x.shape[-2:]
    k = min(m, n)
    if x.size == 0:
        return xp.zeros(x.shape, dtype=x.dtype)
    # With full_matrices the columns past K are not determined by x: their gradients
    # are ignored, as PyTorch does.
    u, vh, gu, gvh = u[..., :, :k], vh[..., :k, :], u_grad[..., :, :k], vh_grad[..., :k, :]
    v, gv = _mT(vh), _mT(gvh)
    s2 = s * s
    eye = xp.eye(k, dtype=x.dtype)
    e = s2[..., None, :] - s2[..., :, None]  # e[j, k] = s_k^2 - s_j^2
    uhgu = xp.matmul(_mT(u), gu)
    vhgv = xp.matmul(_mT(v), gv)
    skew_u, skew_v = uhgu - _mT(uhgu), vhgv - _mT(vhgv)
    inner = _divide_where_used(xp, skew_u * s[..., None, :] + s[..., :, None] * skew_v, e + eye)
    inner = inner * (1 - eye) + s_grad[..., :, None] * eye
    if m > k:
        gus = _divide_where_used(xp, gu, s[..., None, :])
        ga = xp.matmul(u, inner) + gus - xp.matmul(u, xp.matmul(_mT(u), gus))
        return xp.matmul(ga, vh)
    if n > k:
        sgvh = _divide_where_used(xp, gvh, s[..., :, None])
        ga = xp.matmul(inner, vh) + sgvh - xp.matmul(xp.matmul(sgvh, v), vh)
        return xp.matmul(u, ga)
    return xp.matmul(u, xp.matmul(inner, vh))


@register_kernel("eigh", ALL_BACKENDS, LINALG_FLOATS + (T.COMPLEX64, T.COMPLEX128))
def eigh(ctx, x, UPLO):
    """Symmetric or Hermitian x: real eigenvalues (ascending) and the eigenvectors."""
    xp = ctx.xp
    if x.size == 0:
        return xp.zeros(x.shape[:-1], dtype=x.real.dtype), xp.zeros(x.shape, dtype=x.dtype)
    w, v = xp.linalg.eigh(x, UPLO=UPLO)
    return w, v


@register_kernel("eigh_grad", ALL_BACKENDS, LINALG_FLOATS + (T.COMPLEX64, T.COMPLEX128))
def eigh_grad(ctx, out_w, out_v, out_w_grad, out_v_grad, UPLO):
    """gA = V (diag(gw) + skew(V^H gV) / (w_j - w_i)) V^H off the diagonal, with skew the
    anti-Hermitian part (anti-symmetric for real x); a complex x's gradient is the
    conjugate Wirtinger one, as eig_grad's."""
    xp = ctx.xp
    v, w = out_v, out_w
    if v.size == 0:
        return xp.zeros(v.shape, dtype=v.dtype)
    n = w.shape[-1]
    eye = xp.eye(n, dtype=v.dtype)
    vhgv = xp.matmul(_mH(xp, v), out_v_grad)
    skew = 0.5 * (vhgv - _mH(xp, vhgv))      # the part a Hermitian perturbation can reach
    e = w[..., None, :] - w[..., :, None] + eye   # e[i, j] = w_j - w_i
    inner = _divide_where_used(xp, skew, e) * (1 - eye) + out_w_grad[..., :, None] * eye
    return xp.matmul(xp.matmul(v, inner), _mH(xp, v))


@register_kernel("pinv", ALL_BACKENDS, LINALG_FLOATS + (T.COMPLEX64, T.COMPLEX128))
def pinv(ctx, x, rcond, hermitian):
    """numpy's pinv: by svd, or by eigh (real eigenvalues) for a Hermitian x, the one
    path that takes complex x (InferMeta refuses the others, as Paddle has no complex svd)."""
    xp = ctx.xp
    *batch, m, n = x.shape
    if x.size == 0:
        return xp.zeros(tuple(batch) + (n, m), dtype=x.dtype)
    if hermitian:
        w, v = xp.linalg.eigh(x)
        cutoff = rcond * xp.abs(w).max(axis=-1, keepdims=True)
        keep = xp.abs(w) > cutoff
        w_inv = xp.where(keep, 1 / xp.where(keep, w, 1), 0)
        return xp.matmul(v * w_inv[..., None, :], _mH(xp, v)).astype(x.dtype, copy=False)
    u, s, vh = _svd(ctx, x)
    cutoff = rcond * s.max(axis=-1, keepdims=True)
    keep = s > cutoff
    s_inv = xp.where(keep, 1 / xp.where(keep, s, 1), 0)
    return xp.matmul(_mT(vh) * s_inv[..., None, :], _mT(u)).astype(x.dtype, copy=False)


@register_kernel("matrix_rank", ALL_BACKENDS, LINALG_FLOATS)
def matrix_rank(ctx, x, tol, hermitian):
    xp = ctx.xp
    *batch, m, n = x.shape
    if x.size == 0:
        return xp.zeros(tuple(batch), dtype=xp.int32)
    s = xp.abs(xp.linalg.eigvalsh(x)) if hermitian else _svd(ctx, x, compute_uv=False)
    if tol is None:
        # Paddle's and NumPy's default: the largest singular value times max(M, N) times eps.
        cutoff = s.max(axis=-1, keepdims=True) * max(m, n) * np.finfo(x.dtype).eps
    else:
        cutoff = max(tol, 0)   # Paddle: a negative tol counts as 0
    return (s > cutoff).sum(axis=-1).astype(xp.int32)


# -- eig, lu, lu_unpack --------------------------------------------------------------------

_COMPLEX_OF = {np.dtype("float32"): np.complex64, np.dtype("float64"): np.complex128,
               np.dtype("complex64"): np.complex64, np.dtype("complex128"): np.complex128}


@register_kernel("eig", ALL_BACKENDS, LINALG_FLOATS + (T.COMPLEX64, T.COMPLEX128))
def eig(ctx, x):
    """numpy.linalg.eig (LAPACK geev: unit eigenvectors), cast to the complex dtype
    even where every eigenvalue is real. CuPy has no general eig, so a GPU x is
    copied to the host, decomposed there and the results copied back."""
    xp = ctx.xp
    dtype = _COMPLEX_OF[x.dtype]
    if x.size == 0:
        return xp.zeros(x.shape[:-1], dtype=dtype), xp.zeros(x.shape, dtype=dtype)
    host = x if xp is np else xp.asnumpy(x)
    if not np.isfinite(host).all():
        raise InvalidArgumentError("argument 'x' expected finite values (eig of inf or nan is undefined)")
    w, v = np.linalg.eig(host)
    w, v = w.astype(dtype, copy=False), v.astype(dtype, copy=False)
    return (w, v) if xp is np else (xp.asarray(w), xp.asarray(v))


@register_kernel("lu", ALL_BACKENDS, LINALG_FLOATS)
def lu(ctx, x, pivot):
    """Gaussian elimination column by column, every matrix of the batch at once
    (so it runs on either backend): with ``pivot`` the row of largest magnitude
    in the column is swapped up first (LAPACK getrf's partial pivoting); a zero
    pivot leaves its column unscaled (its multipliers 0) and is reported, 1-based,
    in infos, as getrf does (infos [1] for one matrix, as Paddle's)."""
    xp = ctx.xp
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = x.shape[:-2]
    count = int(np.prod(batch, dtype=np.int64))  # not reshape(-1, ...): ambiguous for an empty x
    a = x.reshape((count, m, n)).copy()
    pivots = xp.empty((count, k), dtype=np.int32)
    rows = xp.arange(count)
    for j in range(k):
        if pivot:
            p = j + xp.argmax(xp.abs(a[:, j:, j]), axis=1)
            upper, lower = a[rows, j, :].copy(), a[rows, p, :].copy()
            a[rows, p, :] = upper
            a[rows, j, :] = lower
        else:
            p = xp.full((count,), j, dtype=np.int64)
        pivots[:, j] = (p + 1).astype(np.int32)
        d = a[:, j, j]
        zero = d == 0
        multipliers = a[:, j + 1:, j] / xp.where(zero, xp.ones_like(d), d)[:, None]
        multipliers = xp.where(zero[:, None], xp.zeros_like(multipliers), multipliers)
        a[:, j + 1:, j] = multipliers
        a[:, j + 1:, j + 1:] -= multipliers[:, :, None] * a[:, j, None, j + 1:]
    if k:
        diagonal = xp.diagonal(a[:, :k, :k], 0, 1, 2) == 0
        first = xp.argmax(diagonal, axis=1)
        infos = xp.where(diagonal.any(axis=1), first + 1, 0).astype(np.int32)
    else:
        infos = xp.zeros((count,), dtype=np.int32)
    return a.reshape(x.shape), pivots.reshape(batch + (k,)), infos.reshape(batch or (1,))


@register_kernel("lu_unpack", ALL_BACKENDS, LINALG_FLOATS)
def lu_unpack(ctx, x, y, unpack_ludata, unpack_pivots):
    """P from the row swaps y (applied in order to the identity's rows, P's
    column i is the original row that ended in place i), L the unit lower
    triangle and U the upper one of x."""
    xp = ctx.xp
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = x.shape[:-2]
    empty = xp.zeros((0,), dtype=x.dtype)
    pmat = l_out = u_out = empty
    if unpack_pivots:
        swaps = y.reshape((int(np.prod(batch, dtype=np.int64)), k)).astype(np.int64) - 1
        if swaps.size:
            low, high = (int(v) for v in (xp.stack([swaps.min(), swaps.max()]).tolist() if xp is not np
                                          else (swaps.min(), swaps.max())))
            if low < 0 or high >= m:
                raise InvalidArgumentError(
                    f"argument 'y' expected pivots in [1, {m}] (1-based rows of x), got {low + 1 if low < 0 else high + 1}")
        count = swaps.shape[0]
        rows = xp.arange(count)
        perm = xp.broadcast_to(xp.arange(m), (count, m)).copy()
        for j in range(k):
            target = swaps[:, j]
            here, there = perm[:, j].copy(), perm[rows, target].copy()
            perm[:, j] = there
            perm[rows, target] = here
        pmat = xp.zeros((count, m, m), dtype=x.dtype)
        pmat[rows[:, None], perm, xp.arange(m)[None, :]] = 1
        pmat = pmat.reshape(batch + (m, m))
    if unpack_ludata:
        l_out = xp.tril(x[..., :, :k], -1) + xp.eye(m, k, dtype=x.dtype)
        u_out = xp.triu(x[..., :k, :])
    return pmat, l_out, u_out


@register_kernel("eig_grad", ALL_BACKENDS, LINALG_FLOATS + (T.COMPLEX64, T.COMPLEX128))
def eig_grad(ctx, x, out_w, out_v, out_w_grad, out_v_grad):
    """The adjoint of the general eigendecomposition A = V diag(w) V^-1 with unit-norm
    eigenvector columns (w, V complex):

        gA = V^-H (diag(gw) + F o (V^H gV - V^H V diag(Re diag(V^H gV)))) V^H,
        F_ij = 1 / conj(w_j - w_i) off the diagonal, 0 on it,

    the real part for a real x. Defined where the eigenvalues are distinct (a used
    term between repeated ones is infinite), and for losses that do not depend on
    each eigenvector's phase (the only ones eig's output defines). Runs over xp
    (the forward runs on the host for a GPU x; this does not need to)."""
    xp = ctx.xp
    if x.size == 0:
        return xp.zeros(x.shape, dtype=x.dtype)
    w, v = out_w, out_v
    n = w.shape[-1]
    eye = xp.eye(n, dtype=bool)
    vh = xp.conj(_mT(v))
    vhgv = xp.matmul(vh, out_v_grad)
    # V^H V diag(d) scales column j of V^H V by d_j.
    inner = vhgv - xp.matmul(vh, v) * xp.real(xp.diagonal(vhgv, 0, -2, -1))[..., None, :]
    gaps = xp.conj(w[..., None, :] - w[..., :, None])       # conj(w_j - w_i)
    inner = _divide_where_used(xp, inner, xp.where(eye, 1, gaps))
    inner = xp.where(eye, out_w_grad[..., :, None] * eye, inner)
    grad = xp.linalg.solve(vh, xp.matmul(inner, vh))
    if x.dtype.kind != "c":
        grad = xp.real(grad)
    return grad.astype(x.dtype, copy=False)
