"""``eager.linalg``: Paddle's ``paddle.linalg`` namespace (linear-algebra ops).

The functions are the generated ops under Paddle's ``paddle.linalg`` names
(``inv`` is the op ``inverse``), with Paddle's signatures; ``qr`` returns R
alone for ``mode='r'`` and ``eigvalsh`` the eigenvalues of ``eigh``, as Paddle
does. ``einsum`` here (not in ``__all__``: Paddle has it at the top level only)
has Paddle's ``einsum(equation, *operands)`` signature and is ``eager.einsum``.

>>> import numpy as np, eager
>>> a = eager.to_tensor(np.array([[4.0, 1.0], [1.0, 3.0]]))
>>> round(float(eager.linalg.det(a)), 12)  # (LU in floating point: 11.000000000000002)
11.0
>>> eager.einsum("ij,jk->ik", a, a).shape
[2, 2]
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from phi.common import DataType
from phi.core.errors import AssertedArgumentError, InvalidArgumentError, InvalidDtypeError, UnsupportedDtypeError

from .arguments import as_called, bad_tensor
from .generated import forward_api as _F
from .tensor import Tensor
from .type_promotion import complex_list_operands

__all__ = [
    "cholesky", "det", "eigh", "eigvalsh", "inv", "matrix_power", "matrix_rank", "norm", "pinv", "qr", "slogdet",
    "solve", "svd",
    # ops-gap: written over the ops above (see each docstring)
    "cond", "corrcoef", "cov", "lstsq", "multi_dot", "triangular_solve",
    "eig", "eigvals", "lu", "lu_unpack",
    # ops-special
    "vector_norm", "matrix_norm", "cholesky_solve", "matrix_exp", "householder_product", "svd_lowrank",
    "pca_lowrank",
]

inv = _F.inverse
det = _F.det
slogdet = _F.slogdet
solve = _F.solve
cholesky = _F.cholesky
svd = _F.svd
eigh = _F.eigh
pinv = _F.pinv
matrix_power = _F.matrix_power
eig = _F.eig
lu_unpack = _F.lu_unpack


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


def matrix_rank(x, tol=None, hermitian=False, name=None):
    """The rank of matrices x [..., M, N]: how many singular values (with
    ``hermitian``, absolute eigenvalues of the lower triangle) exceed ``tol``;
    int32 as in Paddle, shape [...]. ``tol`` None: the largest singular value times max(M, N)
    times the dtype's epsilon, per matrix. A float ``tol`` holds for every matrix;
    a Tensor ``tol`` (Paddle's matrix_rank_tol) is cast to x's dtype and broadcast
    against x's batch axes, the result taking the broadcast shape; a negative entry
    counts as 0, as in Paddle (so does a negative float ``tol``).

    >>> import numpy as np, eager
    >>> x = eager.to_tensor(np.diag([3.0, 0.5, 0.0]))
    >>> int(eager.linalg.matrix_rank(x)), eager.linalg.matrix_rank(x, tol=eager.to_tensor([0.1, 1.0])).numpy()
    (2, array([2, 1], dtype=int32))
    """
    if not isinstance(tol, Tensor):
        return _F.matrix_rank(x, tol, hermitian)
    if not isinstance(hermitian, bool):
        raise TypeError(f"matrix_rank: argument 'hermitian' expected a bool, got {hermitian!r}")
    _matrices("matrix_rank", "x", x, square=hermitian)
    if not (tol.dtype.is_floating_point or tol.dtype in (DataType.INT32, DataType.INT64)):
        raise TypeError(f"matrix_rank: argument 'tol' expected a float, or a floating-point or integer tensor, "
                        f"got a {tol.dtype} tensor")
    batch = x.shape[:-2]
    try:
        np.broadcast_shapes(tuple(batch), tuple(tol.shape))
    except ValueError:
        raise ValueError(f"matrix_rank: argument 'tol' of shape {tol.shape} does not broadcast against x's batch "
                         f"axes {batch} (x is {x.shape})") from None
    values = _F.abs(_F.eigh(x, "L")[0]) if hermitian else _F.svd(x, False)[1]          # [..., K]
    limit = _F.maximum(_F.cast(tol, x.dtype), _F.zeros([], x.dtype, x.place))      # Paddle: max(tol, 0)
    above = _F.greater_than(values, _F.unsqueeze(limit, [-1]))
    return _F.sum(_F.cast(above, DataType.INT32), [-1], DataType.INT32)


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
    try:
        return _F.eigh(x, UPLO)[0]
    except (TypeError, ValueError) as error:
        raise as_called(error, "eigh", "eigvalsh") from None


def einsum(equation, *operands):
    """Einstein summation, Paddle's signature: ``einsum("ij,jk->ik", a, b)``.

    The equation follows numpy.einsum (implicit and explicit outputs, '...',
    repeated labels for diagonals, size-1 broadcasting). Differentiable to any
    order: its gradient is an einsum too. A single list or tuple of tensors is
    also accepted as the operands.
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    try:
        return _F.einsum(list(operands), equation)
    except InvalidArgumentError as error:  # a complex with a real operand: Paddle casts the real ones
        if not all(isinstance(t, Tensor) for t in operands):
            raise
        return _F.einsum(complex_list_operands(operands, error), equation)


# -- ops-gap: Paddle's linalg functions written as compositions of the ops ------------------

def _tensor(fn: str, arg: str, value) -> Tensor:
    # (eager.composite._paddle_api.tensor, which this module cannot import: composite loads after it)
    if not isinstance(value, Tensor):
        raise bad_tensor(fn, arg, value)
    return value


def _floating(fn: str, arg: str, value: Tensor, ndims=None, complex_ok: bool = False) -> Tensor:
    _tensor(fn, arg, value)
    if not (value.dtype.is_floating_point or (complex_ok and value.dtype.is_complex)):
        kinds = "floating-point or complex" if complex_ok else "floating-point"
        # a TypeError, and the RuntimeError of Paddle's missing kernel
        raise UnsupportedDtypeError(f"{fn}: argument '{arg}' expected a {kinds} tensor, got {value.dtype}")
    if ndims is not None and value.ndim not in ndims:
        wanted = " or ".join(f"{d}-D" for d in ndims)
        raise ValueError(f"{fn}: argument '{arg}' expected a {wanted} tensor, got shape {value.shape}")
    return value


def _matrices(fn: str, arg: str, value: Tensor, square: bool = False) -> Tensor:
    _floating(fn, arg, value)
    if value.ndim < 2:
        raise ValueError(f"{fn}: argument '{arg}' expected matrices [..., M, N], got shape {value.shape}")
    if square and value.shape[-1] != value.shape[-2]:
        raise ValueError(f"{fn}: argument '{arg}' expected square matrices [..., N, N], got shape {value.shape}")
    return value


def multi_dot(x, name=None) -> Tensor:
    """The product of a list of matrices, multiplied in the order that costs the
    fewest scalar multiplications (the matrix-chain order); the first may be a
    vector (a row) and the last a vector (a column), which the result then
    lacks, as numpy.linalg.multi_dot. Differentiable (a chain of matmuls).

    >>> import numpy as np, eager
    >>> a, b = eager.to_tensor(np.ones((2, 3))), eager.to_tensor(np.ones((3, 4)))
    >>> eager.linalg.multi_dot([a, b, eager.to_tensor(np.ones(4))]).numpy()
    array([12., 12.])
    """
    if not isinstance(x, (list, tuple)) or len(x) < 2:
        raise ValueError(f"multi_dot: argument 'x' expected a list of at least 2 tensors, got {x!r}")
    for i, item in enumerate(x):
        _floating("multi_dot", f"x[{i}]", item, complex_ok=True)  # a chain of matmuls, which take complex
        if item.dtype != x[0].dtype:
            raise InvalidDtypeError(f"multi_dot: argument 'x[{i}]' expected the dtype of x[0] ({x[0].dtype}), "
                                    f"got {item.dtype}")
        allowed = (1, 2) if i in (0, len(x) - 1) else (2,)
        if item.ndim not in allowed:
            raise ValueError(f"multi_dot: argument 'x[{i}]' expected a {' or '.join(f'{d}-D' for d in allowed)} "
                             f"tensor, got shape {item.shape}")
    first_vector, last_vector = x[0].ndim == 1, x[-1].ndim == 1
    mats = list(x)
    if first_vector:
        mats[0] = _F.unsqueeze(mats[0], [0])
    if last_vector:
        mats[-1] = _F.unsqueeze(mats[-1], [1])
    for i in range(len(mats) - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise ValueError(f"multi_dot: x[{i}] {x[i].shape} and x[{i + 1}] {x[i + 1].shape} cannot be multiplied")
    dims = [m.shape[0] for m in mats] + [mats[-1].shape[1]]
    count = len(mats)
    cost = [[0] * count for _ in range(count)]
    split = [[0] * count for _ in range(count)]
    for length in range(1, count):
        for i in range(count - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def product(i, j):
        if i == j:
            return mats[i]
        k = split[i][j]
        return _F.matmul(product(i, k), product(k + 1, j))

    out = product(0, count - 1)
    if last_vector:
        out = _F.squeeze(out, [-1])
    if first_vector:
        out = _F.squeeze(out, [0])
    return out


def _observations(fn: str, x, rowvar: bool) -> Tensor:
    _floating(fn, "x", x, (1, 2))
    if not isinstance(rowvar, bool):
        raise TypeError(f"{fn}: argument 'rowvar' expected a bool, got {rowvar!r}")
    if x.ndim == 1:
        return _F.unsqueeze(x, [0])
    # Paddle keeps a single row as one variable even with rowvar=False (numpy 2.x transposes it)
    return x if rowvar or x.shape[0] == 1 else _F.transpose(x, [1, 0])


def _weights(arg: str, w, count: int, dtype: DataType) -> Tensor:
    """fweights / aweights of any integer or floating dtype, as x's dtype (Paddle casts
    them; its own test_cov passes int32 aweights); fweights must hold whole numbers."""
    _tensor("cov", arg, w)
    if not (w.dtype.is_floating_point or w.dtype.is_integer):
        raise TypeError(f"cov: argument '{arg}' expected an integer or floating-point tensor, got {w.dtype}")
    if w.ndim != 1 or w.shape[0] != count:
        raise ValueError(f"cov: argument '{arg}' expected a 1-D tensor of {count} weights (one per observation), "
                         f"got shape {w.shape}")
    whole = arg == "fweights" and w.dtype.is_floating_point
    valid = _F.greater_equal(w, _F.zeros_like(w))
    if whole:
        valid = _F.logical_and(valid, _F.equal(w, _F.round(w)))
    if count and not bool(_F.all(valid)):  # one host read; the failure path finds which rule broke
        if not bool(_F.all(_F.greater_equal(w, _F.zeros_like(w)))):
            raise ValueError(f"cov: argument '{arg}' expected non-negative weights, got a negative one")
        raise ValueError("cov: argument 'fweights' expected whole numbers (frequency weights), got a fraction")
    return w if w.dtype == dtype else _F.cast(w, dtype)


def cov(x, rowvar: bool = True, ddof: bool = True, fweights=None, aweights=None, name=None) -> Tensor:
    """The covariance matrix of the variables of x (Paddle's ``paddle.linalg.cov``):
    each row a variable and each column an observation (the reverse when
    ``rowvar`` is False, except for a single row, as Paddle; a 1-D x is one variable). ``ddof`` True divides by
    N - 1 (the unbiased estimate), False by N, an int k by N - k (as Paddle;
    with ``aweights`` any nonzero ddof is numpy's ddof=1); frequency weights
    ``fweights`` (whole numbers) and ``aweights`` weigh the observations as in
    numpy.cov (both are cast to x's dtype; they must not sum to zero). [V, V],
    or 0-d for one variable. Differentiable in x and aweights.

    >>> import numpy as np, eager
    >>> round(float(eager.linalg.cov(eager.to_tensor([1.0, 2.0, 3.0, 4.0]))), 6)
    1.666667
    """
    return _covariance("cov", x, rowvar, ddof, fweights, aweights)


def _covariance(fn: str, x, rowvar, ddof, fweights, aweights) -> Tensor:
    observations = _observations(fn, x, rowvar)
    if not isinstance(ddof, numbers.Integral):
        raise TypeError(f"{fn}: argument 'ddof' expected a bool or an int, got {ddof!r}")
    ddof = int(ddof)
    count = observations.shape[1]
    weights = None
    if fweights is not None:
        weights = _weights("fweights", fweights, count, observations.dtype)
    if aweights is not None:
        aweights = _weights("aweights", aweights, count, observations.dtype)
        weights = aweights if weights is None else _F.multiply(weights, aweights)
    if weights is None:
        mean = _F.mean(observations, [1], True)
        centered = _F.subtract(observations, mean)
        scaled = centered
        factor = max(count - ddof, 0)  # Paddle's norm_factor <= 0 becomes 0
    else:
        total = _F.sum(weights)
        if not bool(_F.not_equal(total, _F.zeros_like(total))):
            raise ValueError(f"{fn}: the weights sum to zero, so the covariance cannot be normalized")
        mean = _F.divide(_F.sum(_F.multiply(observations, weights), [1], None, True), total)
        centered = _F.subtract(observations, mean)
        scaled = _F.multiply(centered, weights)
        factor = total
        if ddof:
            factor = _F.subtract(total, _F.divide(_F.sum(_F.multiply(weights, aweights)), total)) \
                if aweights is not None else _F.subtract(total, _F.full_like(total, float(ddof)))
    product = _F.matmul(scaled, centered, False, True)
    out = _F.scale(product, 1.0 / factor) if isinstance(factor, int) and factor != 0 else \
        _F.divide(product, factor if isinstance(factor, Tensor) else _F.full_like(product, float(factor)))
    return _F.squeeze(out)


def corrcoef(x, rowvar: bool = True, name=None) -> Tensor:
    """Pearson correlation coefficients of the variables of x (rows, or columns
    when ``rowvar`` is False): cov(x) divided by the products of the standard
    deviations, clipped to [-1, 1] (Paddle's ``paddle.linalg.corrcoef``).
    Differentiable.

    >>> import numpy as np, eager
    >>> eager.linalg.corrcoef(eager.to_tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])).numpy()
    array([[ 1., -1.],
           [-1.,  1.]], dtype=float32)
    """
    c = _covariance("corrcoef", x, rowvar, True, None, None)
    if c.ndim == 0:
        return _F.divide(c, c)
    deviations = _F.sqrt(_F.diagonal(c, 0, 0, 1))
    c = _F.divide(_F.divide(c, _F.unsqueeze(deviations, [1])), _F.unsqueeze(deviations, [0]))
    return _F.clip(c, -1.0, 1.0)


_COND_P = (None, "fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def _matrix_norm(x: Tensor, p) -> Tensor:
    """The matrix norm of the last two axes: 'fro', 'nuc', or induced by ±1 / ±inf."""
    if p == "fro":
        return _F.sqrt(_F.sum(_F.multiply(x, x), [-2, -1]))
    if p == "nuc":
        return _F.sum(_F.svd(x, False)[1], [-1])
    sums = _F.sum(_F.abs(x), [-2 if abs(p) == 1 else -1])
    return _F.amax(sums, [-1]) if p > 0 else _F.amin(sums, [-1])


def cond(x, p=None, name=None) -> Tensor:
    """The condition number of matrices x [..., M, N] in the norm p (Paddle's
    ``paddle.linalg.cond``): None or 2 the ratio of the largest to the smallest
    singular value, -2 its inverse; 'fro', 'nuc', 1, -1, inf and -inf (square
    invertible matrices only) ``norm(x, p) * norm(inv(x), p)``. Shape [...].
    Differentiable (through svd, or inverse).

    >>> import numpy as np, eager
    >>> float(eager.linalg.cond(eager.to_tensor(np.diag([4.0, 1.0, 2.0]))))
    4.0
    """
    _matrices("cond", "x", x)
    valid = p is None or (p in ("fro", "nuc") if isinstance(p, str) else
                          not isinstance(p, bool) and isinstance(p, numbers.Real) and p in _COND_P)
    if not valid:
        raise ValueError(f"cond: argument 'p' expected one of None, 'fro', 'nuc', 1, -1, 2, -2, inf, -inf, "
                         f"got {p!r}")
    if 0 in x.shape[-2:] and 0 not in x.shape[:-2]:
        # Paddle's rule: an empty batch gives an empty result, an empty matrix has no condition number
        raise ValueError(f"cond: argument 'x' expected non-empty matrices, got shape {x.shape}")
    if p is None or p in (2, -2):
        singular = _F.svd(x, False)[1]
        largest, smallest = _F.amax(singular, [-1]), _F.amin(singular, [-1])
        return _F.divide(smallest, largest) if p == -2 else _F.divide(largest, smallest)
    _matrices("cond", "x", x, square=True)
    return _F.multiply(_matrix_norm(x, p), _matrix_norm(_F.inverse(x), p))


def triangular_solve(x, y, upper: bool = True, transpose: bool = False, unitriangular: bool = False,
                     name=None) -> Tensor:
    """The solution of ``A @ out = y`` (``A.T @ out = y`` when ``transpose``) for
    the upper (or lower) triangle A of x [..., M, M]; its diagonal is taken as
    ones when ``unitriangular``. y is [..., M, K]; batch axes broadcast (Paddle's
    ``paddle.linalg.triangular_solve``). Only the triangle read takes a
    gradient (the diagonal too unless ``unitriangular``). Solved by
    :func:`solve` on the triangle, which is exact; it costs an LU factorization
    where back substitution would do.

    >>> import numpy as np, eager
    >>> a = eager.to_tensor([[2.0, 1.0], [9.0, 4.0]])
    >>> eager.linalg.triangular_solve(a, eager.to_tensor([[3.0], [8.0]])).numpy()
    array([[0.5],
           [2. ]], dtype=float32)
    """
    _matrices("triangular_solve", "x", x, square=True)
    _matrices("triangular_solve", "y", y)
    for arg, flag in (("upper", upper), ("transpose", transpose), ("unitriangular", unitriangular)):
        if not isinstance(flag, bool):
            raise TypeError(f"triangular_solve: argument '{arg}' expected a bool, got {flag!r}")
    if y.dtype != x.dtype:
        raise InvalidDtypeError(f"triangular_solve: argument 'y' expected the dtype of x ({x.dtype}), got {y.dtype}")
    if y.shape[-2] != x.shape[-1]:
        raise ValueError(f"triangular_solve: argument 'y' expected {x.shape[-1]} rows (x is {x.shape}), "
                         f"got shape {y.shape}")
    a = _F.triu(x) if upper else _F.tril(x)
    if unitriangular:
        a = _F.add(_F.subtract(a, _F.diag_embed(_F.diagonal(a, 0, -2, -1))),
                   _F.eye(x.shape[-1], None, x.dtype, x.place))
    if transpose:
        a = _F.transpose(a, list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2])
    if tuple(y.shape) == tuple(x.shape[:-1]):
        # y is matrices here, but solve would read this shape as a batch of vectors: a leading 1 keeps it matrices
        y = _F.unsqueeze(y, [0])
    return _F.solve(a, y)


_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(x, y, rcond=None, driver=None, name=None) -> tuple:
    """The least-squares solution of ``x @ solution = y`` for x [..., M, N] and y
    [..., M, K] (Paddle's ``paddle.linalg.lstsq``), as the tuple (solution
    [..., N, K], residuals [..., K], rank [...] int32, singular_values [..., min(M, N)]).
    As Paddle: residuals (squared column norms of ``x @ solution - y``) only when
    M > N and every matrix has rank N; rank for the drivers 'gelsy' (the default),
    'gelsd' and 'gelss'; singular values for 'gelsd' and 'gelss'; what is not
    computed comes back empty ([0]). Singular values at most ``rcond`` times the
    largest count as zero (default: max(M, N) times the dtype's machine epsilon).
    The solution is ``pinv(x, rcond) @ y`` for every driver (the minimum-norm
    solution), differentiable in x and y, as are the residuals.

    >>> import numpy as np, eager
    >>> x = eager.to_tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> solution, residuals, rank, _ = eager.linalg.lstsq(x, eager.to_tensor([[1.0], [1.0], [3.0]]))
    >>> [round(float(v), 4) for v in solution.numpy().ravel()], int(rank)
    ([1.3333, 1.3333], 2)
    """
    for arg, value in (("x", x), ("y", y)):
        if not isinstance(value, Tensor):
            raise bad_tensor("lstsq", arg, value)
    # Dtypes before shapes, and any dtype but float32/float64 a ValueError too, as Paddle checks them.
    if x.dtype not in (DataType.FLOAT32, DataType.FLOAT64):
        raise InvalidDtypeError(f"lstsq: argument 'x' expected a float32 or float64 tensor, got {x.dtype}")
    if y.dtype != x.dtype:
        raise InvalidDtypeError(f"lstsq: argument 'y' expected the dtype of x ({x.dtype}), got {y.dtype}")
    _matrices("lstsq", "x", x)
    _matrices("lstsq", "y", y)
    if y.shape[-2] != x.shape[-2]:
        raise ValueError(f"lstsq: argument 'y' expected {x.shape[-2]} rows (x is {x.shape}), got shape {y.shape}")
    if driver is None:
        driver = "gels" if x.place.is_gpu_place() else "gelsy"
    if not isinstance(driver, str) or driver not in _LSTSQ_DRIVERS:
        raise ValueError(f"lstsq: argument 'driver' expected one of {list(_LSTSQ_DRIVERS)} or None, got {driver!r}")
    if x.place.is_gpu_place() and driver != "gels":
        raise ValueError(f"lstsq: argument 'driver' expected 'gels' (the only GPU driver, as in Paddle), "
                         f"got {driver!r}")
    rows, cols = x.shape[-2], x.shape[-1]
    if rcond is None:
        rcond = max(rows, cols) * float(np.finfo(x.dtype.numpy_dtype).eps)
    elif isinstance(rcond, bool) or not isinstance(rcond, numbers.Real):
        raise TypeError(f"lstsq: argument 'rcond' expected a float or None, got {rcond!r}")
    solution = _F.matmul(_F.pinv(x, float(rcond)), y)
    singular = None
    rank = None
    if driver != "gels" or rows > cols:
        singular = _F.svd(x, False)[1]
        if min(rows, cols) == 0:  # no singular values: rank 0 (amax of an empty set is undefined)
            rank = _F.zeros(x.shape[:-2], DataType.INT32, x.place)
        else:
            cutoff = _F.scale(_F.amax(singular, [-1], True), float(rcond))
            rank = _F.sum(_F.cast(_F.greater_than(singular, cutoff), DataType.INT32), [-1], DataType.INT32)
    empty = _F.zeros([0], x.dtype, x.place)
    residuals = empty
    if rows > cols and bool(_F.all(_F.equal(rank, _F.full_like(rank, cols)))):
        error = _F.subtract(_F.matmul(x, solution), y)
        residuals = _F.sum(_F.multiply(error, error), [-2])
    return (solution, residuals,
            rank if driver != "gels" else _F.zeros([0], DataType.INT32, x.place),
            singular if driver in ("gelsd", "gelss") else empty)


def eigvals(x, name=None) -> Tensor:
    """The eigenvalues of general square matrices x [..., N, N], complex
    (complex64 for float32, complex128 for float64), in LAPACK's order; not
    differentiable (the eigenvalues of :func:`eig`).

    >>> import numpy as np, eager
    >>> eager.linalg.eigvals(eager.to_tensor([[0.0, -1.0], [1.0, 0.0]])).numpy()
    array([0.+1.j, 0.-1.j], dtype=complex64)
    """
    try:
        return _F.eig(x)[0]
    except (TypeError, ValueError) as error:
        raise as_called(error, "eig", "eigvals") from None


def lu(x, pivot: bool = True, get_infos: bool = False, name=None):
    """LU factorization of matrices x [..., M, N] (Paddle's ``paddle.linalg.lu``):
    ``(LU, pivots)``, or ``(LU, pivots, infos)`` with ``get_infos``. LU packs the
    unit lower L (below the diagonal) and U; pivots are the 1-based int32 row
    swaps (partial pivoting, none when ``pivot`` is False); infos is int32, k > 0
    where U[k-1, k-1] is zero. :func:`lu_unpack` gives P, L, U with
    ``x = P @ L @ U``. Differentiable in x through LU (for a nonsingular
    leading square part).

    >>> import numpy as np, eager
    >>> x = eager.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> packed, pivots = eager.linalg.lu(x)
    >>> p, l, u = eager.linalg.lu_unpack(packed, pivots)
    >>> np.allclose((p @ l @ u).numpy(), x.numpy()), pivots.numpy().tolist()
    (True, [2, 2])
    """
    if not isinstance(get_infos, bool):
        raise TypeError(f"lu: argument 'get_infos' expected a bool, got {get_infos!r}")
    out, pivots, infos = _F.lu(x, pivot)
    return (out, pivots, infos) if get_infos else (out, pivots)


# -- ops-special: more of Paddle's linalg functions, composed of the ops -----------------------

def _axes(fn: str, axis, ndim: int) -> list:
    """``axis`` (None: every axis; an int; a list/tuple of ints) as distinct non-negative axes."""
    if axis is None:
        return list(range(ndim))
    items = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    out = []
    for a in items:
        if isinstance(a, bool) or not isinstance(a, numbers.Integral):
            raise TypeError(f"{fn}: argument 'axis' expected an int or a list of ints, got {axis!r}")
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise ValueError(f"{fn}: argument 'axis' {axis!r} is out of range for a {ndim}-D tensor")
        out.append(int(a) % max(ndim, 1))
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}: argument 'axis' {axis!r} repeats an axis")
    return out


def vector_norm(x, p=2.0, axis=None, keepdim=False, name=None) -> Tensor:
    """The vector p-norm of x over ``axis`` (None: all of x as one vector; an int; a
    list of ints): (sum |x|^p)^(1/p) for any real p, max |x| for inf, min |x| for
    -inf, the count of non-zeros for 0 (Paddle's ``paddle.linalg.vector_norm``).

    >>> import eager
    >>> float(eager.linalg.vector_norm(eager.to_tensor([[3.0, 0.0], [0.0, -4.0]])))
    5.0
    """
    _floating("vector_norm", "x", x)
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"vector_norm: argument 'p' expected a number, got {type(p).__name__} {p!r}")
    if not isinstance(keepdim, bool):
        raise TypeError(f"vector_norm: argument 'keepdim' expected a bool, got {keepdim!r}")
    ndim = x.ndim
    axes = _axes("vector_norm", axis, ndim)
    if ndim == 0:
        return _F.norm(_F.reshape(x, [1]), float(p), [0], False)
    rest = [a for a in range(ndim) if a not in axes]
    flat = _F.reshape(_F.transpose(x, rest + axes), [x.shape[a] for a in rest] + [-1])
    out = _F.norm(flat, float(p), [-1], False)
    if keepdim:
        out = _F.reshape(out, [1 if a in axes else x.shape[a] for a in range(ndim)])
    return out


_MATRIX_NORM_P = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def matrix_norm(x, p="fro", axis=[-2, -1], keepdim=False, name=None) -> Tensor:  # noqa: B006  (Paddle's default)
    """The matrix norm of the matrices x spans over the two axes ``axis``: 'fro'
    (Frobenius), 'nuc' (sum of singular values), 2 / -2 (largest / smallest singular
    value), 1 / -1 (max / min column sum of |x|), inf / -inf (max / min row sum)
    (Paddle's ``paddle.linalg.matrix_norm``). Differentiable (through svd for
    'nuc' and +-2, where the singular values are distinct and non-zero).

    >>> import numpy as np, eager
    >>> float(eager.linalg.matrix_norm(eager.to_tensor(np.array([[1.0, -2.0], [3.0, 4.0]])), p=1))
    6.0
    """
    _floating("matrix_norm", "x", x)
    valid = p in ("fro", "nuc") if isinstance(p, str) else (
        not isinstance(p, bool) and isinstance(p, numbers.Real) and p in _MATRIX_NORM_P)
    if not valid:
        raise ValueError(f"matrix_norm: argument 'p' expected one of 'fro', 'nuc', 1, -1, 2, -2, inf, -inf, "
                         f"got {p!r}")
    if not isinstance(keepdim, bool):
        raise TypeError(f"matrix_norm: argument 'keepdim' expected a bool, got {keepdim!r}")
    if x.ndim < 2:
        raise ValueError(f"matrix_norm: argument 'x' expected matrices (2 or more axes), got shape {x.shape}")
    if not isinstance(axis, (list, tuple)) or len(axis) != 2:
        raise ValueError(f"matrix_norm: argument 'axis' expected two axes, got {axis!r}")
    first, second = _axes("matrix_norm", axis, x.ndim)
    rest = [a for a in range(x.ndim) if a not in (first, second)]
    matrices = _F.transpose(x, rest + [first, second])
    if p in (2, -2):
        singular = _F.svd(matrices, False)[1]
        out = _F.amax(singular, [-1]) if p == 2 else _F.amin(singular, [-1])
    else:
        out = _matrix_norm(matrices, p)
    if keepdim:
        out = _F.unsqueeze(out, sorted([first, second]))
    return out


def cholesky_solve(x, y, upper=False, name=None) -> Tensor:
    """The solution X of A X = x, given y, the Cholesky factor of A: A = y y^T for a
    lower y (``upper=False``), A = y^T y for an upper one. x is [..., N, K], y
    [..., N, N]; batch axes broadcast (Paddle's ``paddle.linalg.cholesky_solve``).
    Two triangular solves; differentiable in x and in the triangle of y read.

    >>> import numpy as np, eager
    >>> l = eager.to_tensor(np.array([[2.0, 0.0], [1.0, 1.0]]))
    >>> eager.linalg.cholesky_solve(eager.to_tensor(np.array([[4.0], [3.0]])), l).numpy()
    array([[0.5],
           [1. ]])
    """
    _matrices("cholesky_solve", "x", x)
    _matrices("cholesky_solve", "y", y, square=True)
    if not isinstance(upper, bool):
        raise TypeError(f"cholesky_solve: argument 'upper' expected a bool, got {upper!r}")
    # Checked here: triangular_solve takes them the other way round (y first) and would name itself.
    if x.dtype != y.dtype:
        raise InvalidDtypeError(f"cholesky_solve: argument 'y' expected the dtype of x ({x.dtype}), got {y.dtype}")
    if x.shape[-2] != y.shape[-1]:
        raise ValueError(f"cholesky_solve: argument 'x' expected {y.shape[-1]} rows (y is {y.shape}), "
                         f"got shape {x.shape}")
    # lower: L (L^T X) = x; upper: U^T (U X) = x.
    inner = triangular_solve(y, x, upper=upper, transpose=upper)
    return triangular_solve(y, inner, upper=upper, transpose=not upper)


_EXP_TAYLOR_DEGREE = 18  # with ||A||_1 <= 1/2 the remainder is below 0.5^19 / 19! ~ 1.6e-23


def matrix_exp(x, name=None) -> Tensor:
    """The matrix exponential exp(x) = sum_k x^k / k! of square matrices x [..., N, N]
    (Paddle's ``paddle.linalg.matrix_exp``): scaling and squaring, x / 2^s brought
    to 1-norm <= 1/2 (s chosen from the batch's largest norm, read on the host),
    a degree-18 Taylor polynomial by Horner's rule, then s squarings. Made of
    matmuls, so differentiable to any order.

    >>> import numpy as np, eager
    >>> eager.linalg.matrix_exp(eager.to_tensor(np.array([[0.0, 1.0], [0.0, 0.0]]))).numpy()
    array([[1., 1.],
           [0., 1.]])
    """
    _tensor("matrix_exp", "x", x)
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise TypeError(f"matrix_exp: argument 'x' expected a floating-point or complex tensor, got {x.dtype}")
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"matrix_exp: argument 'x' expected square matrices [..., N, N], got shape {x.shape}")
    n = x.shape[-1]
    identity = _F.expand(_F.eye(n, n, x.dtype, x.place), x.shape)
    if x.size == 0:
        return _F.add(identity, x)  # empty too, but on x's graph (x's gradient is an empty tensor)
    largest = float(_F.max(_F.sum(_F.abs(x), [-2]), None, False))  # the largest 1-norm in the batch
    squarings = max(0, math.ceil(math.log2(largest / 0.5))) if math.isfinite(largest) and largest > 0.5 else 0
    scaled = _F.scale(x, 0.5 ** squarings, 0.0, True) if squarings else x
    out = identity
    for k in range(_EXP_TAYLOR_DEGREE, 0, -1):  # I + A/1 (I + A/2 (I + ... (I + A/18)))
        out = _F.add(identity, _F.scale(_F.matmul(scaled, out), 1.0 / k, 0.0, True))
    for _ in range(squarings):
        out = _F.matmul(out, out)
    return out


def householder_product(x, tau, name=None) -> Tensor:
    """The first N columns of the product H_1 H_2 ... H_K of Householder reflectors
    H_i = I - tau_i v_i v_i^H, v_i being column i of x [..., M, N] below the diagonal
    with a 1 on it (LAPACK's orgqr: the Q of a QR factorization stored as
    reflectors); tau is [..., K], K <= N <= M (Paddle's
    ``paddle.linalg.householder_product``). Differentiable in x and tau.

    >>> import numpy as np, eager
    >>> x = eager.to_tensor(np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]))
    >>> q = eager.linalg.householder_product(x, eager.to_tensor(np.array([1.0, 1.0])))
    >>> q.shape
    [3, 2]
    """
    _tensor("householder_product", "x", x)
    _tensor("householder_product", "tau", tau)
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise TypeError(f"householder_product: argument 'x' expected a floating-point or complex tensor, "
                        f"got {x.dtype}")
    if tau.dtype != x.dtype:
        raise TypeError(f"householder_product: argument 'tau' expected the dtype of x ({x.dtype}), got {tau.dtype}")
    if x.ndim < 2 or x.shape[-2] < x.shape[-1]:
        raise AssertedArgumentError(f"householder_product: argument 'x' expected matrices [..., M, N] with "
                                    f"M >= N, got shape {x.shape}")
    if tau.ndim != x.ndim - 1 or tau.shape[:-1] != x.shape[:-2] or tau.shape[-1] > x.shape[-1]:
        raise AssertedArgumentError(f"householder_product: argument 'tau' expected shape {x.shape[:-2]} + [K] "
                                    f"with K <= {x.shape[-1]}, got {tau.shape}")
    m, n = x.shape[-2], x.shape[-1]
    batch = x.shape[:-2]
    q = _F.expand(_F.eye(m, m, x.dtype, x.place), batch + [m, m])
    rows = _F.reshape(_F.arange(0, m, 1, "int64", x.place), [m, 1])
    for i in range(tau.shape[-1]):
        at_i = _F.full([m, 1], i, "int64", x.place)
        below = _F.cast(_F.greater_than(rows, at_i), x.dtype)  # v_i: x's column below i, 1 at i
        unit = _F.cast(_F.equal(rows, at_i), x.dtype)
        column = _F.slice(x, [x.ndim - 1], [i], [i + 1])                     # [..., M, 1]
        v = _F.add(_F.multiply(column, below), unit)                         # [..., M, 1]
        t = _F.unsqueeze(_F.slice(tau, [tau.ndim - 1], [i], [i + 1]), [-1])  # [..., 1, 1]
        # Q H_i = Q - tau_i (Q v)(v^H)
        qv = _F.matmul(q, v)
        swap = list(range(len(batch))) + [len(batch) + 1, len(batch)]
        v_h = _F.transpose(_F.conj(v) if x.dtype.is_complex else v, swap)
        q = _F.subtract(q, _F.multiply(t, _F.matmul(qv, v_h)))
    return _F.slice(q, [q.ndim - 1], [0], [n])



def _swap_last(t: Tensor) -> Tensor:
    return _F.transpose(t, list(range(t.ndim - 2)) + [t.ndim - 1, t.ndim - 2])


def svd_lowrank(x, q=None, niter=2, M=None, name=None) -> tuple:
    """A randomized truncated SVD (U, S, V) of matrices x [..., M, N] (of x - M when the
    mean ``M`` [..., 1, N] is given), with x ~= U diag(S) V^T: U [..., M, q], S [..., q],
    V [..., N, q] (Paddle's ``paddle.linalg.svd_lowrank``; Halko, Martinsson and Tropp's
    range finder with ``niter`` subspace iterations). ``q`` (default 6) is capped at
    min(M, N). The random start is drawn from the framework's generator, so
    ``eager.seed`` makes the result repeatable. Differentiable through qr and svd.

    >>> import numpy as np, eager
    >>> _ = eager.seed(0)
    >>> u, s, v = eager.linalg.svd_lowrank(eager.to_tensor(np.diag([3.0, 2.0, 0.0])), q=2)
    >>> s.numpy().round(6)
    array([3., 2.])
    """
    return _lowrank("svd_lowrank", x, 6 if q is None else q, niter, M)


def _lowrank(fn: str, x, q, niter, M) -> tuple:
    _matrices(fn, "x", x)
    if isinstance(q, bool) or not isinstance(q, numbers.Integral) or q < 1:
        raise ValueError(f"{fn}: argument 'q' expected an int >= 1, got {q!r}")
    if isinstance(niter, bool) or not isinstance(niter, numbers.Integral) or niter < 0:
        raise ValueError(f"{fn}: argument 'niter' expected an int >= 0, got {niter!r}")
    rows, cols = x.shape[-2], x.shape[-1]
    if M is not None:
        _tensor(fn, "M", M)
        if M.dtype != x.dtype:
            raise TypeError(f"{fn}: argument 'M' expected the dtype of x ({x.dtype}), got {M.dtype}")
        try:
            x = _F.subtract(x, M)
        except (ValueError, TypeError) as error:
            raise ValueError(f"{fn}: argument 'M' of shape {M.shape} does not broadcast to x {x.shape} "
                             f"({error})") from None
    q = min(int(q), rows, cols)
    x_t = _swap_last(x)
    start = _F.gaussian(x.shape[:-2] + [cols, q], 0.0, 1.0, 0, x.dtype, x.place)
    basis = _F.qr(_F.matmul(x, start), "reduced")[0]                   # [..., M, q]
    for _ in range(niter):
        basis = _F.qr(_F.matmul(x_t, basis), "reduced")[0]              # [..., N, q]
        basis = _F.qr(_F.matmul(x, basis), "reduced")[0]                # [..., M, q]
    projected = _F.matmul(_swap_last(basis), x)                          # [..., q, N]
    u, s, vh = _F.svd(projected, False)
    return _F.matmul(basis, u), s, _swap_last(vh)


def pca_lowrank(x, q=None, center=True, niter=2, name=None) -> tuple:
    """A randomized principal component analysis of the rows of x [..., M, N]:
    (U, S, V) of the low-rank SVD of x centred on its column means (``center``),
    with ``q`` components (default min(6, M, N)); V's columns are the principal
    directions (Paddle's ``paddle.linalg.pca_lowrank``; see :func:`svd_lowrank`).

    >>> import numpy as np, eager
    >>> _ = eager.seed(0)
    >>> x = eager.to_tensor(np.random.default_rng(0).normal(size=(20, 4)))
    >>> [t.shape for t in eager.linalg.pca_lowrank(x, q=2)]
    [[20, 2], [2], [4, 2]]
    """
    _matrices("pca_lowrank", "x", x)
    if not isinstance(center, bool):
        raise TypeError(f"pca_lowrank: argument 'center' expected a bool, got {center!r}")
    q = min(6, x.shape[-2], x.shape[-1]) if q is None else q
    mean = _F.mean(x, [-2], True) if center else None
    return _lowrank("pca_lowrank", x, q, niter, mean)


# Paddle's Tensor methods among these (x.cov(), x.lu(): Paddle's lu returns infos only when
# asked, over the generated Tensor.lu). Attached here because eager.tensor_api, which attaches
# the others, is loaded by the generated code this module imports, before this module is.
for _name in ("cond", "corrcoef", "cov", "lstsq", "multi_dot", "triangular_solve", "eigvals", "eigvalsh", "lu",
              "cholesky_solve", "householder_product", "pca_lowrank"):
    setattr(Tensor, _name, globals()[_name])
del _name
