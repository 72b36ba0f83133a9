"""``eager.linalg``: Paddle's ``paddle.linalg`` namespace (linear-algebra ops).

The functions are the generated ops under Paddle's ``paddle.linalg`` names
(``inv`` is the op ``inverse``), with Paddle's signatures; ``qr`` returns R
alone for ``mode='r'`` and ``eigvalsh`` the eigenvalues of ``eigh``, as Paddle
does. ``einsum`` here (not in ``__all__``: Paddle has it at the top level only)
has Paddle's ``einsum(equation, *operands)`` signature and is ``eager.einsum``.

>>> import numpy as np, eager
>>> a = eager.to_tensor(np.array([[4.0, 1.0], [1.0, 3.0]]))
>>> float(eager.linalg.det(a))
11.0
>>> eager.einsum("ij,jk->ik", a, a).shape
[2, 2]
"""
from __future__ import annotations

from .generated import forward_api as _F

__all__ = [
    "cholesky", "det", "eigh", "eigvalsh", "inv", "matrix_power", "matrix_rank", "norm", "pinv", "qr", "slogdet",
    "solve", "svd",
]

inv = _F.inverse
det = _F.det
slogdet = _F.slogdet
solve = _F.solve
cholesky = _F.cholesky
svd = _F.svd
eigh = _F.eigh
pinv = _F.pinv
matrix_rank = _F.matrix_rank
matrix_power = _F.matrix_power


def norm(x, p="fro", axis=None, keepdim=False, name=None):
    """Vector and matrix norms, Paddle's ``paddle.linalg.norm``: every form of
    :func:`eager.norm` (p = 'fro', any number, inf, -inf over one axis, all of
    them or two), plus the nuclear norm ``p='nuc'`` over two axes (the last two
    of a matrix when ``axis`` is None): the sum of the singular values, through
    svd, so differentiable where the singular values are distinct and nonzero.

    >>> import numpy as np, eager
    >>> float(eager.linalg.norm(eager.to_tensor(np.diag([3.0, -4.0])), p="nuc"))
    7.0
    """
    if not (isinstance(p, str) and p == "nuc"):
        return _F.norm(x, p, axis, keepdim)
    ndim = x.ndim
    if axis is None:
        if ndim != 2:
            raise ValueError(f"linalg.norm: p='nuc' needs a matrix or two axes, got a {ndim}-d x and axis=None")
        axis = [0, 1]
    if not isinstance(axis, (list, tuple)) or len(axis) != 2 or not all(isinstance(a, int) for a in axis):
        raise ValueError(f"linalg.norm: p='nuc' needs axis as two ints, got {axis!r}")
    first, second = (a % ndim if -ndim <= a < ndim else None for a in axis)
    if first is None or second is None or first == second:
        raise ValueError(f"linalg.norm: argument 'axis' {list(axis)} does not name two distinct axes of a "
                         f"{ndim}-d x")
    rest = [a for a in range(ndim) if a not in (first, second)]
    matrices = _F.transpose(x, rest + [first, second])
    singular = _F.svd(matrices, False)[1]
    out = _F.sum(singular, [-1], None, False)
    if keepdim:
        out = _F.unsqueeze(out, sorted([first, second]))
    return out


def qr(x, mode="reduced", name=None):
    """QR decomposition of x [..., M, N]: (Q, R) for mode 'reduced' or 'complete', R alone for 'r'.

    >>> import numpy as np, eager
    >>> q, r = eager.linalg.qr(eager.to_tensor(np.eye(3)[:, :2]))
    >>> q.shape, r.shape
    ([3, 2], [2, 2])
    """
    q, r = _F.qr(x, mode)
    return r if mode == "r" else (q, r)


def eigvalsh(x, UPLO="L", name=None):
    """Eigenvalues (ascending) of symmetric matrices [..., N, N], reading the UPLO triangle.

    The eigenvalues of eigh; their gradient is finite even where eigenvalues repeat,
    since no eigenvector gradient is asked for.
    """
    return _F.eigh(x, UPLO)[0]


def einsum(equation, *operands):
    """Einstein summation, Paddle's signature: ``einsum("ij,jk->ik", a, b)``.

    The equation follows numpy.einsum (implicit and explicit outputs, '...',
    repeated labels for diagonals, size-1 broadcasting). Differentiable to any
    order: its gradient is an einsum too. A single list or tuple of tensors is
    also accepted as the operands.
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return _F.einsum(list(operands), equation)
