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

import math
import numbers

import numpy as np

from phi.common import DataType

from .arguments import bad_tensor
from .generated import forward_api as _F
from .tensor import Tensor

__all__ = [
    "cholesky", "det", "eigh", "eigvalsh", "inv", "matrix_power", "matrix_rank", "norm", "pinv", "qr", "slogdet",
    "solve", "svd",
    # ops-gap: written over the ops above (see each docstring)
    "cond", "corrcoef", "cov", "lstsq", "multi_dot", "triangular_solve",
    "eig", "eigvals", "lu", "lu_unpack",
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


# -- ops-gap: Paddle's linalg functions written as compositions of the ops ------------------

def _tensor(fn: str, arg: str, value) -> Tensor:
    # (eager.composite._paddle_api.tensor, which this module cannot import: composite loads after it)
    if not isinstance(value, Tensor):
        raise bad_tensor(fn, arg, value)
    return value


def _floating(fn: str, arg: str, value: Tensor, ndims=None) -> Tensor:
    _tensor(fn, arg, value)
    if not value.dtype.is_floating_point:
        raise TypeError(f"{fn}: argument '{arg}' expected a floating-point tensor, got {value.dtype}")
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
        _floating("multi_dot", f"x[{i}]", item)
        if item.dtype != x[0].dtype:
            raise TypeError(f"multi_dot: argument 'x[{i}]' expected the dtype of x[0] ({x[0].dtype}), got {item.dtype}")
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
    return x if rowvar else _F.transpose(x, [1, 0])


def _weights(arg: str, w, count: int, integer: bool) -> Tensor:
    _tensor("cov", arg, w)
    kinds = (DataType.INT32, DataType.INT64) if integer else (w.dtype,) if w.dtype.is_floating_point else ()
    if w.dtype not in kinds:
        wanted = "an int32 or int64" if integer else "a floating-point"
        raise TypeError(f"cov: argument '{arg}' expected {wanted} tensor, got {w.dtype}")
    if w.ndim != 1 or w.shape[0] != count:
        raise ValueError(f"cov: argument '{arg}' expected a 1-D tensor of {count} weights (one per observation), "
                         f"got shape {w.shape}")
    if count and not bool(_F.all(_F.greater_equal(w, _F.zeros_like(w)))):
        raise ValueError(f"cov: argument '{arg}' expected non-negative weights, got a negative one")
    return w


def cov(x, rowvar: bool = True, ddof: bool = True, fweights=None, aweights=None, name=None) -> Tensor:
    """The covariance matrix of the variables of x (Paddle's ``paddle.linalg.cov``):
    each row a variable and each column an observation (the reverse when
    ``rowvar`` is False; a 1-D x is one variable). ``ddof`` True divides by
    N - 1 (the unbiased estimate), False by N; integer frequency weights
    ``fweights`` and floating ``aweights`` weigh the observations as in
    numpy.cov. [V, V], or 0-d for one variable. Differentiable in x and aweights.

    >>> import numpy as np, eager
    >>> round(float(eager.linalg.cov(eager.to_tensor([1.0, 2.0, 3.0, 4.0]))), 6)
    1.666667
    """
    return _covariance("cov", x, rowvar, ddof, fweights, aweights)


def _covariance(fn: str, x, rowvar, ddof, fweights, aweights) -> Tensor:
    observations = _observations(fn, x, rowvar)
    if not isinstance(ddof, bool):
        raise TypeError(f"{fn}: argument 'ddof' expected a bool, got {ddof!r}")
    count = observations.shape[1]
    weights = None
    if fweights is not None:
        weights = _F.cast(_weights("fweights", fweights, count, True), observations.dtype)
    if aweights is not None:
        a = _weights("aweights", aweights, count, False)
        if a.dtype != observations.dtype:
            raise TypeError(f"cov: argument 'aweights' expected the dtype of x ({observations.dtype}), got {a.dtype}")
        weights = a if weights is None else _F.multiply(weights, a)
    if weights is None:
        mean = _F.mean(observations, [1], True)
        centered = _F.subtract(observations, mean)
        scaled = centered
        factor = count - int(ddof)
    else:
        total = _F.sum(weights)
        mean = _F.divide(_F.sum(_F.multiply(observations, weights), [1], None, True), total)
        centered = _F.subtract(observations, mean)
        scaled = _F.multiply(centered, weights)
        factor = total
        if ddof:
            factor = _F.subtract(total, _F.divide(_F.sum(_F.multiply(weights, aweights)), total)) \
                if aweights is not None else _F.subtract(total, _F.ones_like(total))
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
        raise TypeError(f"triangular_solve: argument 'y' expected the dtype of x ({x.dtype}), got {y.dtype}")
    if y.shape[-2] != x.shape[-1]:
        raise ValueError(f"triangular_solve: argument 'y' expected {x.shape[-1]} rows (x is {x.shape}), "
                         f"got shape {y.shape}")
    a = _F.triu(x) if upper else _F.tril(x)
    if unitriangular:
        a = _F.add(_F.subtract(a, _F.diag_embed(_F.diagonal(a, 0, -2, -1))),
                   _F.eye(x.shape[-1], None, x.dtype, x.place))
    if transpose:
        a = _F.transpose(a, list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2])
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
    _matrices("lstsq", "x", x)
    _matrices("lstsq", "y", y)
    if y.dtype != x.dtype:
        raise TypeError(f"lstsq: argument 'y' expected the dtype of x ({x.dtype}), got {y.dtype}")
    if x.dtype not in (DataType.FLOAT32, DataType.FLOAT64):
        raise TypeError(f"lstsq: argument 'x' expected a float32 or float64 tensor, got {x.dtype}")
    if y.shape[-2] != x.shape[-2]:
        raise ValueError(f"lstsq: argument 'y' expected {x.shape[-2]} rows (x is {x.shape}), got shape {y.shape}")
    if driver is None:
        driver = "gels" if x.place.is_gpu_place() else "gelsy"
    if driver not in _LSTSQ_DRIVERS:
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
    return _F.eig(x)[0]


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


# Paddle's Tensor methods among these (x.cov(), x.lu(): Paddle's lu returns infos only when
# asked, over the generated Tensor.lu). Attached here because eager.tensor_api, which attaches
# the others, is loaded by the generated code this module imports, before this module is.
for _name in ("cond", "corrcoef", "cov", "lstsq", "multi_dot", "triangular_solve", "eigvals", "eigvalsh", "lu"):
    setattr(Tensor, _name, globals()[_name])
del _name
