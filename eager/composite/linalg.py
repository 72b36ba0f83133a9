"""Composite rules of the linalg ops (see eager/composite/__init__.py).

Every rule is written with differentiable forward ops, most of them with
einsum, whose own rule is einsum again: so every linalg gradient can be
differentiated to any order. The products, inverse, det, slogdet, solve,
matrix_power and pinv have no backward kernel; the decompositions (cholesky,
qr, svd, eigh) have one for the first order (phi/kernels/linalg.py), and their
rules here repeat its identities with ops, the identity matrix and the
lower-triangle mask built from diagonal/diagonal_grad.
"""
from __future__ import annotations

import math
import numbers
import string

import numpy as np

from phi.core.errors import AssertedArgumentError, AxisError, InvalidArgumentError, InvalidDtypeError, PhiError
from phi.infermeta.linalg import parse_einsum, solve_vector_rhs

from ..creation import to_tensor
from ..generated import forward_api as _F
from ..tensor import Tensor
from ..type_promotion import complex_operands
from . import _paddle_api as _check
from .spine import conj_if_complex, reshape_exactly, sum_to_shape

_LETTERS = string.ascii_letters


def _mT(t):
    """The matrices of t transposed (the last two axes swapped)."""
    nd = len(t.shape)
    return _F.transpose(t, list(range(nd - 2)) + [nd - 1, nd - 2])


def _neg(t):
    return _F.scale(t, -1.0, 0.0, True)


# -- einsum ---------------------------------------------------------------------------

def _einsum_operand_grad(plan, x, k, out_grad):
    """The gradient of operand k: an einsum of out_grad with the other operands.

    Labels repeated within operand k are first taken as diagonals (the forward
    einsum reads only those), and the gradient is put back on them with
    diagonal_grad; labels the other operands and the output do not have (summed
    over in the forward), and size-1 dimensions that broadcast, get the gradient
    broadcast along them.
    """
    labels = plan.inputs[k]
    current = x[k]
    undo = []
    while len(set(labels)) < len(labels):
        label = next(label for label in labels if labels.count(label) > 1)
        first = labels.index(label)
        second = labels.index(label, first + 1)
        undo.append((current, first, second))
        current = _F.diagonal(current, 0, first, second)
        labels = "".join(label_ for i, label_ in enumerate(labels) if i not in (first, second)) + label
    shape = list(current.shape)
    elsewhere = set(plan.output).union(*(set(t) for i, t in enumerate(plan.inputs) if i != k))
    kept = [label for label, size in zip(labels, shape)
            if label in elsewhere and not (size == 1 and plan.sizes[label] != 1)]
    terms = [plan.output] + [t for i, t in enumerate(plan.inputs) if i != k]
    # einsum is holomorphic in each operand: Paddle's convention takes out_grad times
    # the conjugates of the others (as matmul's gradient).
    operands = [out_grad] + [conj_if_complex(t) for i, t in enumerate(x) if i != k]
    grad = _F.einsum(operands, ",".join(terms) + "->" + "".join(kept))
    sizes = dict(zip(kept, grad.shape))
    grad = reshape_exactly(grad, [sizes.get(label, 1) for label in labels])
    if grad.shape != shape:
        grad = _F.expand(grad, shape)
    for before, first, second in reversed(undo):
        grad = _F.diagonal_grad(before, grad, 0, first, second)
    return grad


def einsum_grad(x, out_grad, equation):
    plan = parse_einsum(equation, [tuple(t.shape) for t in x])
    return [_einsum_operand_grad(plan, x, k, out_grad) for k in range(len(x))]


# -- products ---------------------------------------------------------------------------

def bmm_grad(x, y, out_grad):
    return _F.bmm(out_grad, _mT(y)), _F.bmm(_mT(x), out_grad)


def dot_grad(x, y, out_grad):
    if x.dtype.is_complex:
        # Paddle's dot_grad for complex: out_grad * conj(other), the same convention
        # as multiply's.
        g = _F.unsqueeze(out_grad, [-1])
        return _F.multiply(g, _F.conj(y)), _F.multiply(g, _F.conj(x))
    return (_F.einsum([out_grad, y], "...,...i->...i"), _F.einsum([out_grad, x], "...,...i->...i"))


def mv_grad(x, vec, out_grad):
    return _F.einsum([out_grad, vec], "i,j->ij"), _F.einsum([x, out_grad], "ij,i->j")


def outer_grad(x, y, out_grad):
    x_flat = reshape_exactly(x, [out_grad.shape[0]])
    y_flat = reshape_exactly(y, [out_grad.shape[1]])
    if x.dtype.is_complex:  # matmul's convention, out_grad times conj(other)
        return (reshape_exactly(_F.matmul(out_grad, _F.conj(y_flat)), x.shape),
                reshape_exactly(_F.matmul(_F.conj(x_flat), out_grad), y.shape))
    return (reshape_exactly(_F.einsum([out_grad, y_flat], "ij,j->i"), x.shape),
            reshape_exactly(_F.einsum([out_grad, x_flat], "ij,i->j"), y.shape))


def _product_grad(out_grad, other, target):
    """The gradient of ``target`` in out = target * other (broadcasting) where one of
    them has a single element: out_grad * other summed to target's shape."""
    if other.dtype.is_complex:
        return reshape_exactly(sum_to_shape(_F.multiply(out_grad, _F.conj(other)), target.shape), target.shape)
    labels = _LETTERS[:len(out_grad.shape)]
    other_labels = labels[len(labels) - len(other.shape):]
    kept = "" if _numel(target.shape) == 1 else labels[len(labels) - len(target.shape):]
    return reshape_exactly(_F.einsum([out_grad, other], f"{labels},{other_labels}->{kept}"), target.shape)


def _numel(shape) -> int:
    count = 1
    for d in shape:
        count *= d
    return count


def inner_grad(x, y, out_grad):
    if _numel(x.shape) == 1 or _numel(y.shape) == 1:  # a broadcasting product (Paddle's rule)
        return _product_grad(out_grad, y, x), _product_grad(out_grad, x, y)
    if x.dtype.is_complex:  # as matmul's gradient: out_grad times conj(other), over [rows, shared]
        shared = x.shape[-1]
        x_rows, y_rows = reshape_exactly(x, [-1, shared]), reshape_exactly(y, [-1, shared])
        g = reshape_exactly(out_grad, [x_rows.shape[0], y_rows.shape[0]])
        return (reshape_exactly(_F.matmul(g, _F.conj(y_rows)), x.shape),
                reshape_exactly(_F.matmul(g, _F.conj(x_rows), True, False), y.shape))
    nx, ny = len(x.shape) - 1, len(y.shape) - 1
    x_batch, y_batch, shared = _LETTERS[:nx], _LETTERS[nx:nx + ny], _LETTERS[nx + ny]
    g = x_batch + y_batch
    return (_F.einsum([out_grad, y], f"{g},{y_batch}{shared}->{x_batch}{shared}"),
            _F.einsum([out_grad, x], f"{g},{x_batch}{shared}->{y_batch}{shared}"))


def cross_grad(x, y, out_grad, axis):
    # <g, x × y> = <x, y × g> = <y, g × x>; for complex operands the conjugate of the
    # other one (Paddle's convention: out_grad times the conjugate derivative).
    return _F.cross(conj_if_complex(y), out_grad, axis), _F.cross(out_grad, conj_if_complex(x), axis)


def kron_grad(x, y, out_grad):
    xs, ys = list(x.shape), list(y.shape)
    n = max(len(xs), len(ys))
    xs_padded, ys_padded = [1] * (n - len(xs)) + xs, [1] * (n - len(ys)) + ys
    # out viewed as [x0, y0, x1, y1, ...] is x[x0, x1, ...] * y[y0, y1, ...].
    g = reshape_exactly(out_grad, [d for pair in zip(xs_padded, ys_padded) for d in pair])
    x_labels, y_labels = _LETTERS[:n], _LETTERS[n:2 * n]
    g_labels = "".join(a + b for a, b in zip(x_labels, y_labels))
    x_grad = _F.einsum([g, reshape_exactly(conj_if_complex(y), ys_padded)], f"{g_labels},{y_labels}->{x_labels}")
    y_grad = _F.einsum([g, reshape_exactly(conj_if_complex(x), xs_padded)], f"{g_labels},{x_labels}->{y_labels}")
    return reshape_exactly(x_grad, xs), reshape_exactly(y_grad, ys)


# -- diagonals ---------------------------------------------------------------------------

def trace_grad(x, out_grad, offset, axis1, axis2):
    rest = list(out_grad.shape)
    ndim = len(x.shape)
    a1, a2 = axis1 % ndim, axis2 % ndim
    rows, cols = x.shape[a1], x.shape[a2]
    length = max(0, min(rows, cols - offset)) if offset >= 0 else max(0, min(rows + offset, cols))
    on_diagonal = _F.expand(reshape_exactly(out_grad, rest + [1]), rest + [length])
    return _F.diagonal_grad(x, on_diagonal, offset, axis1, axis2)


def diagonal_double_grad(grad_x_grad, offset, axis1, axis2):
    # diagonal_grad writes out_grad onto a diagonal of zeros; its derivative reads it back.
    return _F.diagonal(grad_x_grad, offset, axis1, axis2)


# -- square matrices ---------------------------------------------------------------------------

def inverse_grad(out, out_grad):
    # d(A^-1) = -A^-1 dA A^-1, so gA = -A^-H G A^-H (A^-T for real A: the conjugate
    # derivative is Paddle's convention for complex).
    out = conj_if_complex(out)
    return _neg(_F.matmul(_F.matmul(out, out_grad, True, False), out, False, True))


def _per_matrix(values, batch_shape):
    """values [...] shaped [..., 1, 1], to scale each matrix of a batch."""
    return reshape_exactly(values, list(batch_shape) + [1, 1])


def _inverse_for_gradient(x, op: str):
    """inverse(x) for the gradient of ``op``; a singular x gets an error naming ``op``."""
    try:
        return _F.inverse(x)
    except InvalidArgumentError:
        raise InvalidArgumentError(
            f"the gradient of {op} needs the inverse of 'x', and x is singular: it is not computed "
            f"there (Paddle returns zeros, which is wrong unless the rank is below N - 1)") from None


def det_grad(x, out, out_grad):
    # d det A = det A * tr(A^-1 dA): gA = g det A A^-T (g conj(det A) A^-H for complex A:
    # Paddle's convention, out_grad times the conjugate derivative).
    scale = _per_matrix(_F.multiply(out_grad, conj_if_complex(out)), out.shape)
    return _F.multiply(scale, _mT(conj_if_complex(_inverse_for_gradient(x, "det"))))


def slogdet_grad(x, out_grad):
    # The sign is piecewise constant; d log|det A| = tr(A^-1 dA). For complex A, Paddle's kernel
    # takes the log|det| gradient times A^-H and, as for real A, none through the sign.
    logabsdet_grad = _F.unbind(out_grad, 0)[1]
    inverse = conj_if_complex(_inverse_for_gradient(x, "slogdet"))
    return _F.multiply(_per_matrix(logabsdet_grad, x.shape[:-2]), _mT(inverse))


def solve_grad(x, y, out, out_grad):
    # X = A^-1 B: gB = A^-H G and gA = -gB X^H (A^-T and X^T for real ones: the conjugates
    # are Paddle's convention for complex), summed over broadcast batch dims.
    vector = solve_vector_rhs(x.shape, y.shape)
    if vector:
        out = reshape_exactly(out, list(out.shape) + [1])
        out_grad = reshape_exactly(out_grad, list(out_grad.shape) + [1])
    y_grad = _F.solve(_mT(conj_if_complex(x)), out_grad)
    x_grad = sum_to_shape(_neg(_F.matmul(y_grad, conj_if_complex(out), False, True)), x.shape)
    if vector:
        return x_grad, reshape_exactly(sum_to_shape(y_grad, list(y.shape) + [1]), y.shape)
    return x_grad, sum_to_shape(y_grad, y.shape)


def matrix_power_grad(x, out_grad, n):
    # d(B^m) = sum_k B^k dB B^(m-1-k), so gB = sum_k (B^H)^k G (B^H)^(m-1-k): m products
    # (B^H, the conjugate transpose: Paddle's convention for complex B).
    if n == 0:
        return _F.scale(out_grad, 0.0, 0.0, True)
    base = x if n > 0 else _F.inverse(x)
    m = abs(n)
    powers = [conj_if_complex(_F.matrix_power(base, k)) for k in range(m)]
    base_grad = None
    for k in range(m):
        term = _F.matmul(_F.matmul(powers[k], out_grad, True, False), powers[m - 1 - k], False, True)
        base_grad = term if base_grad is None else _F.add(base_grad, term)
    return base_grad if n > 0 else inverse_grad(base, base_grad)


def pinv_grad(x, out, out_grad, hermitian=False):
    # Golub & Pereyra's derivative of X = A^+ where A's rank is locally constant:
    # gA = -X^H G X^H + (I - A X) G^H X X^H + X^H X G^H (I - X A) (^H the conjugate transpose).
    # hermitian: A is Hermitian, so only its Hermitian part is the gradient (Paddle's, as eigh_grad's).
    out_h = conj_if_complex(_mT(out))
    grad_h = conj_if_complex(_mT(out_grad))
    first = _neg(_F.matmul(_F.matmul(out_h, out_grad), out_h))
    gh_xxh = _F.matmul(grad_h, _F.matmul(out, out_h))
    second = _F.subtract(gh_xxh, _F.matmul(_F.matmul(x, out), gh_xxh))
    xhx_gh = _F.matmul(_F.matmul(out_h, out), grad_h)
    third = _F.subtract(xhx_gh, _F.matmul(_F.matmul(xhx_gh, out), x))
    grad = _F.add(_F.add(first, second), third)
    return _F.scale(_F.add(grad, conj_if_complex(_mT(grad))), 0.5, 0.0, True) if hermitian else grad


# -- decompositions (the same identities as their kernels, with ops) -------------------------

def _eye_like(x):
    """The identity shaped like the square matrices x (a constant)."""
    ones = _F.full_like(_F.diagonal(x, 0, -2, -1), 1.0, None)
    return _F.diagonal_grad(x, ones, 0, -2, -1)


def _lower_mask(x):
    """1 on and below the diagonal of x's matrices, 0 above (a constant), built from
    one diagonal at a time: N small ops, paid only when gradients are recorded."""
    rows = x.shape[-2]
    mask = _F.full_like(x, 0.0, None)
    for offset in range(-(rows - 1), 1):
        ones = _F.full_like(_F.diagonal(x, offset, -2, -1), 1.0, None)
        mask = _F.add(mask, _F.diagonal_grad(x, ones, offset, -2, -1))
    return mask


def _divide_where_used(numerator, denominator):
    """numerator / denominator, 0 where the numerator is 0 (as the kernels' helper)."""
    zeros = _F.full_like(numerator, 0.0, None)
    return _F.where(_F.equal(numerator, zeros), zeros, _F.divide(numerator, denominator))


def cholesky_grad(out, out_grad, upper):
    # gA = L^-T Φ L^-1 with Φ the symmetric part of tril(L^T gL), its diagonal halved.
    lower, g = (_mT(out), _mT(out_grad)) if upper else (out, out_grad)
    if 0 in lower.shape:
        return _F.full_like(lower, 0.0, None)
    phi = _F.multiply(_F.matmul(lower, g, True, False), _lower_mask(lower))
    strictly_lower = _F.subtract(phi, _F.multiply(phi, _eye_like(lower)))
    phi = _F.scale(_F.add(phi, _mT(strictly_lower)), 0.5, 0.0, True)
    inv_lower = _F.inverse(lower)
    return _F.matmul(_F.matmul(inv_lower, phi, True, False), inv_lower)


def eigh_grad(out_w, out_v, out_w_grad, out_v_grad, UPLO):
    # gA = V (diag(gw) + skew(V^H gV) / (w_j - w_i)) V^H, off the diagonal (V^T for real V).
    if 0 in out_v.shape:
        return _F.full_like(out_v, 0.0, None)
    eye = _F.cast(_eye_like(_F.real(out_v)), out_v.dtype) if out_v.dtype.is_complex else _eye_like(out_v)
    v_conj = conj_if_complex(out_v)
    vhgv = _F.matmul(v_conj, out_v_grad, True, False)
    vhgv_h = _F.conj(_mT(vhgv)) if out_v.dtype.is_complex else _mT(vhgv)
    skew = _F.scale(_F.subtract(vhgv, vhgv_h), 0.5, 0.0, True)
    w, w_grad = out_w, out_w_grad
    if out_v.dtype.is_complex:  # the real eigenvalues meet complex matrices
        w, w_grad = _F.cast(w, out_v.dtype), _F.cast(w_grad, out_v.dtype)
    gaps = _F.add(_F.subtract(_F.unsqueeze(w, [-2]), _F.unsqueeze(w, [-1])), eye)
    ratio = _divide_where_used(skew, gaps)
    inner = _F.add(_F.subtract(ratio, _F.multiply(ratio, eye)), _F.multiply(_F.unsqueeze(w_grad, [-1]), eye))
    return _F.matmul(_F.matmul(out_v, inner), v_conj, False, True)


def svd_grad(x, u, s, vh, u_grad, s_grad, vh_grad, full_matrices):
    # PyTorch's identity (see phi/kernels/linalg.py); columns past K of full matrices are ignored.
    m, n = x.shape[-2:]
    k = min(m, n)
    if 0 in x.shape:
        return _F.full_like(x, 0.0, None)
    if full_matrices:
        u, u_grad, vh, vh_grad = u[..., :k], u_grad[..., :k], vh[..., :k, :], vh_grad[..., :k, :]
    v, v_grad = _mT(vh), _mT(vh_grad)
    uhgu = _F.matmul(u, u_grad, True, False)
    vhgv = _F.matmul(v, v_grad, True, False)
    eye = _eye_like(uhgu)
    s_row, s_column = _F.unsqueeze(s, [-2]), _F.unsqueeze(s, [-1])
    gaps = _F.add(_F.subtract(_F.multiply(s_row, s_row), _F.multiply(s_column, s_column)), eye)
    skew_u, skew_v = _F.subtract(uhgu, _mT(uhgu)), _F.subtract(vhgv, _mT(vhgv))
    ratio = _divide_where_used(_F.add(_F.multiply(skew_u, s_row), _F.multiply(s_column, skew_v)), gaps)
    inner = _F.add(_F.subtract(ratio, _F.multiply(ratio, eye)), _F.multiply(_F.unsqueeze(s_grad, [-1]), eye))
    if m > k:
        gus = _divide_where_used(u_grad, s_row)
        x_grad = _F.subtract(_F.add(_F.matmul(u, inner), gus), _F.matmul(u, _F.matmul(u, gus, True, False)))
        return _F.matmul(x_grad, vh)
    if n > k:
        sgvh = _divide_where_used(vh_grad, s_column)
        x_grad = _F.subtract(_F.add(_F.matmul(inner, vh), sgvh), _F.matmul(_F.matmul(sgvh, v), vh))
        return _F.matmul(u, x_grad)
    return _F.matmul(u, _F.matmul(inner, vh))


def _qr_tall_grad(q, r, q_grad, r_grad):
    """gA for A = QR, Q [..., M, N], R [..., N, N]: (gQ + Q copyltu(M)) R^-T, M = R gR^T - gQ^T Q."""
    m_mat = _F.subtract(_F.matmul(r, r_grad, False, True), _F.matmul(q_grad, q, True, False))
    lower = _F.multiply(m_mat, _lower_mask(m_mat))
    symmetric = _F.subtract(_F.add(lower, _mT(lower)), _F.multiply(lower, _eye_like(lower)))
    b = _F.add(q_grad, _F.matmul(q, symmetric))
    return _mT(_F.solve(r, _mT(b)))


def qr_grad(x, q, r, q_grad, r_grad, mode):
    m, n = x.shape[-2:]
    if mode == "r":
        raise InvalidArgumentError("qr with mode='r' is not differentiable (Q was not kept); use mode='reduced'")
    if mode == "complete" and m > n:
        raise InvalidArgumentError(
            "qr with mode='complete' is not differentiable for a tall matrix (M > N): Q is not unique")
    if 0 in x.shape:
        return _F.full_like(x, 0.0, None)
    if m >= n:
        return _qr_tall_grad(q, r, q_grad, r_grad)
    # A = [X | Y] with X square: X = Q U, Y = Q V, R = [U | V].
    square, right = r[..., :m], x[..., m:]
    right_grad = _F.matmul(q, r_grad[..., m:])
    square_grad = _qr_tall_grad(q, square, _F.add(q_grad, _F.matmul(right, r_grad[..., m:], False, True)),
                                r_grad[..., :m])
    return _F.concat([square_grad, right_grad], -1)


# -- lu, lu_unpack ---------------------------------------------------------------------------

def _solve_left_transposed(a, b):
    """a^-T b for square a (a triangle here)."""
    return _F.solve(_mT(a), b)


def _solve_right_transposed(b, a):
    """b a^-T for square a: (a^-1 b^T)^T."""
    return _mT(_F.solve(a, _mT(b)))


def lu_grad(out, pivots, out_grad):
    # A = P L U. With X = L^-1 P^T dA U^-1 (strictly lower part L^-1 dL, upper part dU U^-1),
    # a square A gets gA = P L^-T (tril_-1(L^T gL) + triu(gU U^T)) U^-T. The rows of a tall A
    # below the square part solve L2 = A2 U^-1, the columns of a wide one U2 = L^-1 A2, which
    # add -L2^T gL2 to the gU term (tall) or -gU2 U2^T to the gL term (wide).
    pmat, lower, upper = _F.lu_unpack(out, pivots, True, True)
    m, n = out.shape[-2:]
    k = min(m, n)
    g_lower = _F.tril(out_grad[..., :, :k], -1)
    g_upper = _F.triu(out_grad[..., :k, :])
    if m > n:
        l1, l2 = lower[..., :k, :], lower[..., k:, :]
        g1, g2 = g_lower[..., :k, :], g_lower[..., k:, :]
        middle = _F.add(_F.tril(_F.matmul(l1, g1, True, False), -1),
                        _F.triu(_F.subtract(_F.matmul(g_upper, upper, False, True), _F.matmul(l2, g2, True, False))))
        top = _solve_right_transposed(_solve_left_transposed(l1, middle), upper)
        grad = _F.concat([top, _solve_right_transposed(g2, upper)], -2)
    elif m < n:
        u1, u2 = upper[..., :, :k], upper[..., :, k:]
        gu1, gu2 = g_upper[..., :, :k], g_upper[..., :, k:]
        middle = _F.add(_F.tril(_F.subtract(_F.matmul(lower, g_lower, True, False), _F.matmul(gu2, u2, False, True)),
                                -1),
                        _F.triu(_F.matmul(gu1, u1, False, True)))
        left = _solve_right_transposed(_solve_left_transposed(lower, middle), u1)
        grad = _F.concat([left, _solve_left_transposed(lower, gu2)], -1)
    else:
        middle = _F.add(_F.tril(_F.matmul(lower, g_lower, True, False), -1),
                        _F.triu(_F.matmul(g_upper, upper, False, True)))
        grad = _solve_right_transposed(_solve_left_transposed(lower, middle), upper)
    return _F.matmul(pmat, grad)


def lu_unpack_grad(x, l_grad, u_grad):
    # L = tril_-1(x)[:, :K] + I and U = triu(x)[:K]: each entry of x reaches one of them.
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = list(x.shape[:-2])
    grad = _F.zeros(list(x.shape), x.dtype, x.place)
    if l_grad is not None and len(l_grad.shape) > 1:
        lower = _F.tril(l_grad, -1)
        if n > k:
            lower = _F.concat([lower, _F.zeros(batch + [m, n - k], x.dtype, x.place)], -1)
        grad = _F.add(grad, lower)
    if u_grad is not None and len(u_grad.shape) > 1:
        upper = _F.triu(u_grad)
        if m > k:
            upper = _F.concat([upper, _F.zeros(batch + [m - k, n], x.dtype, x.place)], -2)
        grad = _F.add(grad, upper)
    return grad


# -- Paddle API functions composed of the ops above (eager.mm, eager.tensordot, ...) ---------

@_check.composed
def mm(input, mat2, name=None):  # noqa: A002  (Paddle's argument name)
    """The matrix product of input and mat2: ``eager.matmul(input, mat2)`` (batched
    and broadcast as matmul is), Paddle's ``paddle.mm``.

    >>> eager.mm(eager.ones([2, 3]), eager.ones([3, 4])).shape
    [2, 4]
    """
    _check.tensor("mm", "input", input)
    _check.tensor("mm", "mat2", mat2)
    return _F.matmul(input, mat2)


def _input_plus_product(op, input, x, y, beta, alpha, shape, product):  # noqa: A002
    """beta * input + alpha * product(x, y) for addmm and baddbmm: one dtype, and input
    broadcast to the product's ``shape``."""
    if input.dtype != x.dtype or y.dtype != x.dtype:  # (Paddle's kernel raises ValueError here)
        raise InvalidDtypeError(
            f"{op}: 'input', 'x' and 'y' expected one dtype, got {input.dtype}, {x.dtype} and {y.dtype}")
    if len(input.shape) > len(shape) or any(a not in (1, b) for a, b in zip(input.shape[::-1], shape[::-1])):
        raise ValueError(f"{op}: argument 'input' expected a shape that broadcasts to {shape}, got {input.shape}")
    return _F.add(_times(_F.expand(input, shape), beta), _times(product(x, y), alpha))


def _times(t, factor):
    """factor * t, where a factor of 0 gives zeros even where t holds NaN or inf: Paddle
    runs addmm as one BLAS GEMM into the broadcast input, and GEMM reads neither the input
    (beta 0) nor the product (alpha 0) then (as PyTorch). where keeps t in the graph, with a
    zero gradient, as Paddle's beta * out_grad."""
    if factor == 0:
        return _F.where(_F.full_like(t, False, "bool"), t, _F.full_like(t, 0.0))
    return _F.scale(t, factor, 0.0, True)


@_check.composed
def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002
    """beta * input + alpha * (x @ y): x [M, K], y [K, N], input broadcastable to
    [M, N]. Differentiable in all three.

    >>> eager.addmm(eager.ones([2, 2]), eager.ones([2, 3]), eager.ones([3, 2]), beta=0.5, alpha=2.0).numpy()
    array([[6.5, 6.5],
           [6.5, 6.5]], dtype=float32)
    """
    _check.tensor("addmm", "input", input)
    _check.tensor("addmm", "x", x)
    _check.tensor("addmm", "y", y)
    beta = _check.number("addmm", "beta", beta)
    alpha = _check.number("addmm", "alpha", alpha)
    if len(input.shape) not in (1, 2):  # Paddle's check: a 0-d input does not broadcast here
        raise ValueError(f"addmm: argument 'input' expected a 1-d or 2-d tensor, got shape {input.shape}")
    if len(x.shape) != 2 or len(y.shape) != 2:
        raise ValueError(f"addmm: arguments 'x' and 'y' expected 2-d tensors, got shapes {x.shape} and {y.shape}")
    if x.shape[1] != y.shape[0]:
        raise ValueError(f"addmm: x's columns must equal y's rows, got shapes {x.shape} and {y.shape}")
    return _input_plus_product("addmm", input, x, y, beta, alpha, [x.shape[0], y.shape[1]], _F.matmul)


def _int_axes(axes):
    """A Tensor of axes (or a list/tuple holding Tensors) as Python ints."""
    if hasattr(axes, "numpy") and not isinstance(axes, (list, tuple)):
        return axes.numpy().tolist()  # a conversion point: a Tensor of axes
    if isinstance(axes, (list, tuple)) and any(hasattr(a, "numpy") for a in axes):
        return [a.numpy().tolist() if hasattr(a, "numpy") else a for a in axes]
    return axes


def _tensordot_axes(axes, x, y):
    """tensordot's ``axes`` as two lists of axes of x and of y (Paddle's forms), each
    pair checked in order as Paddle checks them: an axis past the tensor is an
    IndexError (AxisError), two sizes that differ (neither 1) an AssertionError."""
    axes = _int_axes(axes)
    if isinstance(axes, numbers.Integral) and not isinstance(axes, bool):
        if axes < 0:  # Paddle asserts this
            raise AssertedArgumentError(f"tensordot: argument 'axes' as an int expected a count >= 0, got {axes}")
        if axes > min(len(x.shape), len(y.shape)):
            raise AxisError(f"tensordot: argument 'axes' as an int expected 0 to "
                            f"{min(len(x.shape), len(y.shape))} for shapes {x.shape} and {y.shape}, got {axes}")
        x_axes, y_axes = list(range(len(x.shape) - axes, len(x.shape))), list(range(axes))
    elif not isinstance(axes, (list, tuple)):
        raise TypeError(f"tensordot: argument 'axes' expected an int, a list/tuple or a Tensor, got "
                        f"{type(axes).__name__} {axes!r}")
    elif all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in axes):
        x_axes, y_axes = list(axes), list(axes)          # one list: the same axes of both
    elif len(axes) in (1, 2) and all(isinstance(a, (list, tuple)) for a in axes):
        x_axes, y_axes = list(axes[0]), list(axes[-1])
        # Paddle completes the shorter list with the longer one's entries.
        if len(x_axes) < len(y_axes):
            x_axes += y_axes[len(x_axes):]
        elif len(y_axes) < len(x_axes):
            y_axes += x_axes[len(y_axes):]
    else:
        raise TypeError(f"tensordot: argument 'axes' expected a list of ints or two lists of ints, got {axes!r}")
    for i, (a, b) in enumerate(zip(x_axes, y_axes)):
        x_axes[i] = a = _check.axis("tensordot", "axes", a, len(x.shape))
        y_axes[i] = b = _check.axis("tensordot", "axes", b, len(y.shape))
        if x.shape[a] != y.shape[b] and 1 not in (x.shape[a], y.shape[b]):
            raise AssertedArgumentError(
                f"tensordot: axis {a} of x (size {x.shape[a]}) and axis {b} of y (size {y.shape[b]}) are "
                f"contracted but differ in size (and neither is 1)")
    if len(set(x_axes)) != len(x_axes) or len(set(y_axes)) != len(y_axes):
        raise ValueError(f"tensordot: argument 'axes' names an axis twice: {x_axes}, {y_axes}")
    return x_axes, y_axes


@_check.composed
def tensordot(x, y, axes=2, name=None):
    """Sums the products of x's and y's elements over the contracted axes: ``axes``
    an int k (x's last k with y's first k), a list of axes (the same of both), two
    lists ([x's], [y's]) or a Tensor of them. The result's axes are x's free ones,
    then y's. Differentiable in x and y.

    >>> eager.tensordot(eager.ones([2, 3, 4]), eager.ones([3, 4, 5]), axes=2).shape
    [2, 5]
    """
    _check.tensor("tensordot", "x", x)
    _check.tensor("tensordot", "y", y)
    if x.dtype != y.dtype:  # a floating with a complex tensor promotes, as Paddle's matmul; nothing else does
        x, y = complex_operands(x, y, InvalidDtypeError(
            f"tensordot: arguments 'x' and 'y' expected the same dtype, got {x.dtype} and {y.dtype}"))
    x_axes, y_axes = _tensordot_axes(axes, x, y)
    # Paddle's rule: a contracted axis of size 1 on one side broadcasts against the other
    # side's, which is summed over first (keeping the axis); other sizes must agree.
    for a, b in zip(x_axes, y_axes):
        if x.shape[a] == y.shape[b]:
            continue
        if x.shape[a] == 1:
            y = _F.sum(y, [b], None, True)
        else:  # (_tensordot_axes has checked that one of them is 1)
            x = _F.sum(x, [a], None, True)
    x_free = [a for a in range(len(x.shape)) if a not in x_axes]
    y_free = [a for a in range(len(y.shape)) if a not in y_axes]
    contracted = math.prod(x.shape[a] for a in x_axes)
    left = _F.reshape(_F.transpose(x, x_free + x_axes), [math.prod(x.shape[a] for a in x_free), contracted])
    right = _F.reshape(_F.transpose(y, y_axes + y_free), [contracted, math.prod(y.shape[a] for a in y_free)])
    out_shape = [x.shape[a] for a in x_free] + [y.shape[a] for a in y_free]
    return _F.reshape(_F.matmul(left, right), out_shape)


@_check.composed
def dist(x, y, p=2, name=None):
    """The p-norm of x - y (broadcast) as a 0-d tensor: (sum |x - y|^p)^(1/p); p = 0
    counts the non-zero differences, inf takes the largest |x - y|, -inf the smallest.

    >>> eager.dist(eager.to_tensor([3.0, 0.0]), eager.to_tensor([0.0, 4.0])).numpy()
    array(5., dtype=float32)
    """
    _check.floating("dist", "x", x)
    _check.floating("dist", "y", y)
    p = _check.number("dist", "p", p)
    if x.dtype != y.dtype:
        raise InvalidDtypeError(f"dist: arguments 'x' and 'y' expected the same dtype, got {x.dtype} and {y.dtype}")
    difference = _F.subtract(x, y)
    # norm, also for p = 0 (the count of non-zero differences, with zero gradients as
    # Paddle's; count_nonzero would cut x and y off the graph). Not pow(sum(pow(size, p)),
    # 1 / p): norm's gradient is 0 where x - y is all zeros, as Paddle's p_norm_grad,
    # where the pow chain gives 0 * inf = NaN. For p = +-inf it is max / min with
    # Paddle's gradient (every tie gets it), and an empty x - y has norm 0 for every p,
    # as eager.linalg.norm gives (max / min of nothing refused it).
    return _F.norm(reshape_exactly(difference, [difference.size]), float(p), [0], False)


@_check.composed
def renorm(x, p, axis, max_norm, name=None):
    """x with each slice along ``axis`` scaled down so that its p-norm (over the other
    axes) is at most ``max_norm``; slices within the limit are unchanged. A slice
    above it is scaled by max_norm / (norm + 1e-7). Differentiable in x.

    >>> eager.renorm(eager.to_tensor([[3.0, 4.0], [0.3, 0.4]]), 2.0, 0, 1.0).numpy().round(4)
    array([[0.6, 0.8],
           [0.3, 0.4]], dtype=float32)
    """
    _check.floating("renorm", "x", x)
    p = _check.number("renorm", "p", p)
    max_norm = _check.number("renorm", "max_norm", max_norm)
    if not x.shape:  # no axis to take slices along (Paddle 2.6.2 refuses a 0-d x too)
        raise ValueError("renorm: argument 'x' expected at least one dimension, got a 0-d tensor")
    axis = _check.axis("renorm", "axis", axis, len(x.shape))
    if p <= 0:
        raise ValueError(f"renorm: argument 'p' expected a positive number, got {p}")
    if max_norm < 0:
        raise ValueError(f"renorm: argument 'max_norm' expected a number >= 0, got {max_norm}")
    others = [a for a in range(len(x.shape)) if a != axis]
    if not others:
        norms = _F.abs(x)
    else:
        norms = _F.pow(_F.sum(_F.pow(_F.abs(x), p), others, None, True), 1.0 / p)
    factor = _F.divide(_F.full_like(norms, max_norm, None), _F.scale(norms, 1.0, 1e-7, True))
    return _F.multiply(x, _F.where(_F.greater_than(norms, _F.full_like(norms, max_norm, None)), factor,
                                   _F.ones_like(norms)))


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


@_check.composed
def cdist(x, y, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary", name=None) -> Tensor:
    """The p-norm distance between each row of x [..., P, M] and each row of y
    [..., R, M]: out [..., P, R] (batch axes broadcast). p >= 0; p = 0 counts
    the differing coordinates, p = inf takes the largest. Differentiable (a zero
    distance has gradient 0). x and y of float32 and float64 give float64. ``compute_mode`` is checked and kept for Paddle's
    signature: every mode computes the differences directly (exact, but
    P * R * M elements of scratch).

    >>> import eager
    >>> x = eager.to_tensor([[0.0, 0.0], [3.0, 4.0]])
    >>> eager.cdist(x, x).numpy()
    array([[0., 5.],
           [5., 0.]], dtype=float32)
    """
    _check.tensor("cdist", "x", x)
    _check.tensor("cdist", "y", y)
    for arg, value in (("x", x), ("y", y)):
        _check.floating("cdist", arg, value)
        if value.ndim < 2:
            raise ValueError(f"cdist: argument '{arg}' expected at least 2 dimensions, got shape {value.shape}")
    # float32 with float64: the differences promote to float64, as Paddle's subtraction does
    if x.shape[-1] != y.shape[-1]:
        raise AssertedArgumentError(f"cdist: x {x.shape} and y {y.shape} expected the same last axis (the coordinates)")
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not p >= 0:
        raise ValueError(f"cdist: argument 'p' expected a float >= 0, got {p!r}")
    if not isinstance(compute_mode, str) or compute_mode not in _CDIST_MODES:
        raise ValueError(f"cdist: argument 'compute_mode' expected one of {list(_CDIST_MODES)}, got {compute_mode!r}")
    try:
        differences = _F.subtract(_F.unsqueeze(x, [-2]), _F.unsqueeze(y, [-3]))
    except PhiError as error:
        raise type(error)(f"cdist: the batch axes of x {x.shape} and y {y.shape} do not broadcast "
                          f"({error})") from None
    return _F.norm(differences, float(p), [-1])


@_check.composed
def baddbmm(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002
    """beta * input + alpha * (x @ y), batched: x [B, M, K], y [B, K, N], input
    broadcastable to [B, M, N]. Differentiable in all three.

    >>> eager.baddbmm(eager.ones([2, 2, 2]), eager.ones([2, 2, 3]), eager.ones([2, 3, 2]), 0.5, 2.0).numpy()[0]
    array([[6.5, 6.5],
           [6.5, 6.5]], dtype=float32)
    """
    _check.tensor("baddbmm", "input", input)
    _check.tensor("baddbmm", "x", x)
    _check.tensor("baddbmm", "y", y)
    beta = _check.number("baddbmm", "beta", beta)
    alpha = _check.number("baddbmm", "alpha", alpha)
    if len(x.shape) != 3 or len(y.shape) != 3:
        raise ValueError(f"baddbmm: arguments 'x' and 'y' expected 3-d tensors, got shapes {x.shape} and {y.shape}")
    if x.shape[0] != y.shape[0] or x.shape[2] != y.shape[1]:
        raise ValueError(f"baddbmm: x [B, M, K] and y [B, K, N] do not match, got shapes {x.shape} and {y.shape}")
    return _input_plus_product("baddbmm", input, x, y, beta, alpha, [x.shape[0], x.shape[1], y.shape[2]], _F.bmm)


@_check.composed
def pdist(x, p=2.0, name=None):
    """The p-norm distances between the rows of x [N, M], for every pair i < j in
    row-major order: a tensor of N (N - 1) / 2 values (the upper triangle of
    cdist(x, x) without its diagonal). Differentiable where no two rows coincide
    (for p > 1 the gradient at a zero distance is not defined).

    >>> eager.pdist(eager.to_tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])).numpy()
    array([ 5., 10.,  5.], dtype=float32)
    """
    _check.floating("pdist", "x", x)
    p = _check.number("pdist", "p", p)
    if not p >= 0:
        raise ValueError(f"pdist: argument 'p' expected a number >= 0, got {p}")
    if x.ndim != 2:
        raise ValueError(f"pdist: argument 'x' expected a 2-D tensor [N, M], got shape {x.shape}")
    n = x.shape[0]
    if n < 2:
        return _F.zeros([0], x.dtype)
    rows, cols = np.triu_indices(n, 1)  # host constants: the pairs' coordinates
    first = _F.index_select(x, to_tensor(rows.astype(np.int64), place=x.place), 0)
    second = _F.index_select(x, to_tensor(cols.astype(np.int64), place=x.place), 0)
    return _F.norm(_F.subtract(first, second), p, [-1])
