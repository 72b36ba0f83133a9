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
    "cholesky", "det", "eigh", "eigvalsh", "inv", "matrix_power", "matrix_rank", "pinv", "qr", "slogdet",
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
