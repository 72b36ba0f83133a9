"""InferMeta of the linalg ops (group linalg of phi/kernels).

Matrix arguments are batched: ``[..., M, N]``, the last two dimensions being
the matrix. Decompositions and inverses take float32 and float64 (what
numpy.linalg and cupy.linalg compute in); products take integers too.
"""
from __future__ import annotations

import string
from dataclasses import dataclass

from ..common.data_type import DataType
from ..core.errors import AxisError, AssertedArgumentError, InvalidArgumentError, UnsupportedInputDtypeError
from .checks import broadcast_dims, check_result_shape, normalize_axis, same_dtype

__all__ = [
    "EinsumPlan", "parse_einsum", "diagonal_length",
    "bmm_infer_meta", "dot_infer_meta", "mv_infer_meta", "outer_infer_meta", "inner_infer_meta",
    "einsum_infer_meta", "trace_infer_meta", "diagonal_infer_meta", "diagonal_grad_infer_meta",
    "square_matrix_infer_meta", "det_infer_meta", "slogdet_infer_meta", "solve_infer_meta", "solve_vector_rhs",
    "cholesky_infer_meta", "kron_infer_meta", "cross_infer_meta", "matrix_power_infer_meta",
    "qr_infer_meta", "svd_infer_meta", "eigh_infer_meta", "pinv_infer_meta", "matrix_rank_infer_meta",
    "matrix_grad_infer_meta",
    "eig_infer_meta", "lu_infer_meta", "lu_unpack_infer_meta",
]

_FLOAT_DTYPES = (DataType.FLOAT32, DataType.FLOAT64)
_COMPLEX_OF = {DataType.FLOAT32: DataType.COMPLEX64, DataType.FLOAT64: DataType.COMPLEX128,
               DataType.COMPLEX64: DataType.COMPLEX64, DataType.COMPLEX128: DataType.COMPLEX128}
_REAL_PART = {DataType.COMPLEX64: DataType.FLOAT32, DataType.COMPLEX128: DataType.FLOAT64}


def _require_float(arg: str, x) -> None:
    """numpy.linalg / cupy.linalg decompose float32 and float64 only (Paddle has no
    kernel for other dtypes: its RuntimeError, so UnsupportedInputDtypeError)."""
    if x.dtype not in _FLOAT_DTYPES:
        raise UnsupportedInputDtypeError(
            f"argument '{arg}' expected a float32 or float64 tensor, got {x.dtype}; cast it with .astype('float32')")


def _require_float_or_complex(arg: str, x) -> None:
    """inverse, det and matrix_power: numpy.linalg / cupy.linalg also invert complex64/complex128."""
    if x.dtype not in _FLOAT_DTYPES and not x.dtype.is_complex:
        raise UnsupportedInputDtypeError(
            f"argument '{arg}' expected a float32, float64, complex64 or complex128 tensor, got {x.dtype}; "
            f"cast it with .astype('float32')")


def _require_ndim(arg: str, x, ndim: int, what: str) -> None:
    if len(x.dims) != ndim:
        raise InvalidArgumentError(f"argument '{arg}' expected a {ndim}-d tensor ({what}), got shape {list(x.dims)}")


def _require_matrix(arg: str, x, square: bool = False) -> None:
    """x is a (batch of) matrices [..., M, N], square when asked."""
    dims = x.dims
    if len(dims) < 2:
        raise InvalidArgumentError(
            f"argument '{arg}' expected a matrix or a batch of matrices [..., M, N], got shape {list(dims)}")
    if square and dims[-1] != dims[-2]:
        raise InvalidArgumentError(
            f"argument '{arg}' expected square matrices [..., N, N], got shape {list(dims)}")


def _set(out, dims, dtype, layout) -> None:
    out.dims = tuple(dims)
    out.dtype = dtype
    out.layout = layout


class MetaLike:
    """A scratch output for an InferMeta called only to learn a shape."""

    __slots__ = ("dims", "dtype", "layout")


# -- products -------------------------------------------------------------------

def bmm_infer_meta(x, y, out) -> None:
    """x [B, M, K] and y [B, K, N], both 3-D with one batch size (no broadcasting, as Paddle's bmm)."""
    same_dtype("x", x, "y", y)
    _require_ndim("x", x, 3, "[batch, M, K]")
    _require_ndim("y", y, 3, "[batch, K, N]")
    (b, m, k), (b2, k2, n) = x.dims, y.dims
    if b != b2:
        raise InvalidArgumentError(
            f"arguments 'x' and 'y' expected the same batch size, got shapes {list(x.dims)} and {list(y.dims)}")
    if k != k2:
        raise InvalidArgumentError(
            f"the contracted dimensions differ: x has shape {list(x.dims)} (inner size {k}) and y has shape "
            f"{list(y.dims)} (inner size {k2})")
    _set(out, (b, m, n), x.dtype, x.layout)


def dot_infer_meta(x, y, out) -> None:
    """x and y of one shape, 1-D [N] (a 0-d result) or 2-D [B, N] (a [B] result)."""
    same_dtype("x", x, "y", y)
    if len(x.dims) not in (1, 2):
        raise InvalidArgumentError(f"argument 'x' expected a 1-d or 2-d tensor, got shape {list(x.dims)}")
    if tuple(x.dims) != tuple(y.dims):
        raise InvalidArgumentError(
            f"arguments 'x' and 'y' expected the same shape, got {list(x.dims)} and {list(y.dims)}")
    _set(out, x.dims[:-1], x.dtype, x.layout)


def mv_infer_meta(x, vec, out) -> None:
    """x [M, N] times vec [N] gives [M]."""
    same_dtype("x", x, "vec", vec)
    _require_ndim("x", x, 2, "a matrix [M, N]")
    _require_ndim("vec", vec, 1, "a vector [N]")
    if x.dims[1] != vec.dims[0]:
        raise InvalidArgumentError(
            f"the contracted dimensions differ: x has shape {list(x.dims)} and vec has shape {list(vec.dims)}")
    _set(out, x.dims[:1], x.dtype, x.layout)


def _numel(dims) -> int:
    count = 1
    for d in dims:
        count *= d
    return count


def outer_infer_meta(x, y, out) -> None:
    """x and y are flattened; the result is [x.numel, y.numel]."""
    same_dtype("x", x, "y", y)
    dims = (_numel(x.dims), _numel(y.dims))
    check_result_shape("x", dims, x.dtype)
    _set(out, dims, x.dtype, x.layout)


def inner_infer_meta(x, y, out) -> None:
    """Sum over the last axes of x and y: x.shape[:-1] + y.shape[:-1]; an operand of one
    element multiplies instead, broadcasting (Paddle's rule)."""
    same_dtype("x", x, "y", y)
    xd, yd = tuple(x.dims), tuple(y.dims)
    if _numel(xd) == 1 or _numel(yd) == 1:
        dims = broadcast_dims("x", xd, "y", yd)
    else:
        if xd[-1] != yd[-1]:
            raise InvalidArgumentError(
                f"arguments 'x' and 'y' expected the same last dimension, got shapes {list(xd)} and {list(yd)}")
        dims = xd[:-1] + yd[:-1]
    check_result_shape("x", dims, x.dtype)
    _set(out, dims, x.dtype, x.layout)


# -- einsum -----------------------------------------------------------------------

_LABELS = string.ascii_letters


@dataclass(frozen=True)
class EinsumPlan:
    """An einsum equation made explicit: one label per dimension of every operand
    (the ellipsis spelled out as labels the equation does not use, right-aligned
    as NumPy broadcasts them) and of the output, and each label's size after
    broadcasting (a label of size 1 broadcasts against a larger one, as in NumPy)."""

    inputs: tuple   # one string of labels per operand, len == operand ndim
    output: str
    sizes: dict     # label -> broadcast size

    @property
    def equation(self) -> str:
        return ",".join(self.inputs) + "->" + self.output


def _split_term(term: str, arg: str):
    """(labels before '...', labels after '...', has_ellipsis) of one term."""
    if term.count("...") > 1 or (term.replace("...", "").count(".") > 0):
        raise AssertedArgumentError(f"argument '{arg}': the term {term!r} has a stray '.' or more than one '...'")
    for ch in term.replace("...", ""):
        if ch not in _LABELS:
            raise AssertedArgumentError(
                f"argument '{arg}': the term {term!r} has {ch!r}; labels are the letters a-z and A-Z")
    if "..." in term:
        head, tail = term.split("...")
        return head, tail, True
    return term, "", False


def parse_einsum(equation: str, shapes) -> EinsumPlan:
    """Checks ``equation`` against the operand ``shapes`` and makes it explicit (see EinsumPlan).

    Follows numpy.einsum: implicit mode (no '->') outputs the ellipsis dims, then the
    labels that appear once, in alphabetical order (upper case first); an explicit
    output names only labels of the inputs and keeps '...' whenever the operands
    have ellipsis dimensions. A label repeated in the output puts the values on
    that diagonal, zeros elsewhere (Paddle's einsum: 'i->ii' is diag_embed).
    """
    arg = "equation"
    if not isinstance(equation, str):
        raise InvalidArgumentError(f"argument '{arg}' expected a str, got {type(equation).__name__}")
    eq = equation.replace(" ", "")
    if eq.count("->") > 1:
        raise AssertedArgumentError(f"argument '{arg}' has more than one '->': {equation!r}")
    lhs, explicit, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise AssertedArgumentError(
            f"argument '{arg}' names {len(terms)} operand(s) in {equation!r}, but {len(shapes)} were given")
    parsed = [_split_term(t, arg) for t in terms]
    used = set(ch for t in terms for ch in t if ch in _LABELS) | set(ch for ch in rhs if ch in _LABELS)
    ellipsis_ndim = 0
    for index, ((head, tail, has_ellipsis), shape) in enumerate(zip(parsed, shapes)):
        named = len(head) + len(tail)
        if (has_ellipsis and named > len(shape)) or (not has_ellipsis and named != len(shape)):
            raise AssertedArgumentError(
                f"argument '{arg}': term {terms[index]!r} of {equation!r} names {named} dimension(s), but "
                f"operand {index} has shape {list(shape)}")
        if has_ellipsis:
            ellipsis_ndim = max(ellipsis_ndim, len(shape) - named)
    spare = [ch for ch in _LABELS if ch not in used]
    if ellipsis_ndim > len(spare):
        raise InvalidArgumentError(f"argument '{arg}': {equation!r} needs more than 52 labels")
    ellipsis = "".join(spare[:ellipsis_ndim])
    inputs = []
    for (head, tail, has_ellipsis), shape in zip(parsed, shapes):
        middle = ellipsis[ellipsis_ndim - (len(shape) - len(head) - len(tail)):] if has_ellipsis else ""
        inputs.append(head + middle + tail)
    sizes: dict = {}
    for index, (labels, shape) in enumerate(zip(inputs, shapes)):
        mine: dict = {}
        for label, size in zip(labels, shape):
            if label in mine and mine[label] != size:
                raise InvalidArgumentError(
                    f"argument '{arg}': label {label!r} repeats in operand {index} (shape {list(shape)}) "
                    f"with sizes {mine[label]} and {size}")
            mine[label] = size
        for label, size in mine.items():
            known = sizes.get(label)
            if known is None or known == 1:
                sizes[label] = size
            elif size not in (1, known):
                raise InvalidArgumentError(
                    f"argument '{arg}': label {label!r} of {equation!r} has size {known} in one operand and "
                    f"{size} in operand {index}")
    if explicit:
        head, tail, has_ellipsis = _split_term(rhs, arg)
        if ellipsis_ndim and not has_ellipsis:
            raise AssertedArgumentError(
                f"argument '{arg}': the output of {equation!r} has no '...' but the operands have "
                f"{ellipsis_ndim} ellipsis dimension(s)")
        output = head + (ellipsis if has_ellipsis else "") + tail
        for label in head + tail:
            if label not in sizes:
                raise InvalidArgumentError(
                    f"argument '{arg}': output label {label!r} of {equation!r} is in no operand")
    else:
        counts: dict = {}
        for labels in inputs:
            for label in labels:
                counts[label] = counts.get(label, 0) + 1
        once = sorted(label for label, n in counts.items() if n == 1 and label not in ellipsis)
        output = ellipsis + "".join(once)
    return EinsumPlan(tuple(inputs), output, sizes)


def einsum_infer_meta(x, equation, out) -> None:
    """Operands of one dtype; the output shape follows numpy.einsum (see parse_einsum)."""
    if not x:
        raise AssertedArgumentError("argument 'x' expected at least one operand, got none")
    for index, operand in enumerate(x[1:], 1):
        same_dtype("x[0]", x[0], f"x[{index}]", operand)
    plan = parse_einsum(equation, [tuple(t.dims) for t in x])
    dims = tuple(plan.sizes[label] for label in plan.output)
    check_result_shape("equation", dims, x[0].dtype)
    _set(out, dims, x[0].dtype, x[0].layout)


# -- diagonals --------------------------------------------------------------------

def diagonal_length(rows: int, cols: int, offset: int) -> int:
    """Length of the diagonal ``offset`` above the main one of a rows x cols matrix."""
    if offset >= 0:
        return max(0, min(rows, cols - offset))
    return max(0, min(rows + offset, cols))


def _diagonal_axes(x, offset, axis1, axis2):
    dims = tuple(x.dims)
    if len(dims) < 2:  # Paddle's OutOfRange (IndexError) for diagonal and trace: AxisError is both
        raise AxisError(f"argument 'x' expected at least 2 dimensions, got shape {list(dims)}")
    a1 = normalize_axis("axis1", axis1, len(dims))
    a2 = normalize_axis("axis2", axis2, len(dims))
    if a1 == a2:
        raise InvalidArgumentError(
            f"arguments 'axis1' and 'axis2' expected two different axes, got {axis1} and {axis2} "
            f"(both axis {a1} of a {len(dims)}-d tensor)")
    rest = tuple(d for i, d in enumerate(dims) if i not in (a1, a2))
    return rest, diagonal_length(dims[a1], dims[a2], offset)


def diagonal_infer_meta(x, offset, axis1, axis2, out) -> None:
    """The diagonal of the (axis1, axis2) planes, appended as the last dimension."""
    rest, length = _diagonal_axes(x, offset, axis1, axis2)
    _set(out, rest + (length,), x.dtype, x.layout)


def trace_infer_meta(x, offset, axis1, axis2, out) -> None:
    """The sum of that diagonal: x's shape without axis1 and axis2."""
    rest, _ = _diagonal_axes(x, offset, axis1, axis2)
    if x.dtype is DataType.BOOL:
        raise InvalidArgumentError("argument 'x' expected a numeric tensor, got bool")
    _set(out, rest, x.dtype, x.layout)


def diagonal_grad_infer_meta(x, out_grad, offset, axis1, axis2, x_grad) -> None:
    """out_grad shaped like diagonal(x, offset, axis1, axis2); the result like x."""
    want = MetaLike()
    diagonal_infer_meta(x, offset, axis1, axis2, want)
    if tuple(out_grad.dims) != want.dims:
        raise InvalidArgumentError(
            f"argument 'out_grad' expected shape {list(want.dims)} (the diagonal of x), got {list(out_grad.dims)}")
    _set(x_grad, x.dims, out_grad.dtype, x.layout)


# -- square matrices ----------------------------------------------------------------

def square_matrix_infer_meta(x, out) -> None:
    """Float or complex square matrices [..., N, N]; the result has x's shape (inv)."""
    _require_float_or_complex("x", x)
    _require_matrix("x", x, square=True)
    _set(out, x.dims, x.dtype, x.layout)


def det_infer_meta(x, out) -> None:
    """Float or complex square matrices [..., N, N]; one value per matrix [...]."""
    _require_float_or_complex("x", x)
    _require_matrix("x", x, square=True)
    _set(out, x.dims[:-2], x.dtype, x.layout)


def slogdet_infer_meta(x, out) -> None:
    """Float or complex square matrices [..., N, N]; [2, ...]: the signs, then log|det| (Paddle 2.x's
    layout; for complex x, sign det/|det| and log|det| with a zero imaginary part, as Paddle's kernel)."""
    _require_float_or_complex("x", x)
    _require_matrix("x", x, square=True)
    _set(out, (2,) + tuple(x.dims[:-2]), x.dtype, x.layout)


def solve_vector_rhs(x_dims, y_dims) -> bool:
    """Whether solve reads y as vectors: Paddle's (and PyTorch's) rule, a 1-d y, or a y
    shaped exactly x.shape[:-1] (a batch of vectors, one per matrix)."""
    return len(y_dims) == 1 or tuple(y_dims) == tuple(x_dims)[:-1]


def solve_infer_meta(x, y, out) -> None:
    """x [..., N, N]; y [..., N, K], or vectors: [N] or exactly x.shape[:-1] (Paddle's rule);
    batch dims broadcast; float or complex (complex: see docs/dtypes.md)."""
    _require_float_or_complex("x", x)
    same_dtype("x", x, "y", y)
    _require_matrix("x", x, square=True)
    n = x.dims[-1]
    ydims = tuple(y.dims)
    if solve_vector_rhs(x.dims, ydims):
        if ydims[-1] != n:
            raise InvalidArgumentError(
                f"argument 'y' expected vectors [..., {n}] to match x {list(x.dims)}, got shape {list(ydims)}")
        dims = broadcast_dims("x", tuple(x.dims[:-2]), "y", ydims[:-1]) + (n,)
    else:
        if len(ydims) < 2 or ydims[-2] != n:
            raise InvalidArgumentError(
                f"argument 'y' expected [..., {n}, K] to match x {list(x.dims)}, got shape {list(ydims)}")
        dims = broadcast_dims("x", tuple(x.dims[:-2]), "y", ydims[:-2]) + ydims[-2:]
    _set(out, dims, x.dtype, x.layout)


def cholesky_infer_meta(x, upper, out) -> None:
    """Float symmetric positive-definite matrices [..., N, N]; the factor has x's shape."""
    square_matrix_infer_meta(x, out)


def matrix_grad_infer_meta(x, out_grad, x_grad) -> None:
    """A gradient shaped and typed like the forward input x."""
    same_dtype("x", x, "out_grad", out_grad)
    _set(x_grad, x.dims, x.dtype, x.layout)


# -- other products -------------------------------------------------------------------

def kron_infer_meta(x, y, out) -> None:
    """The Kronecker product: the shorter shape padded with leading 1s, then sizes multiply."""
    same_dtype("x", x, "y", y)
    xd, yd = tuple(x.dims), tuple(y.dims)
    n = max(len(xd), len(yd))
    xd, yd = (1,) * (n - len(xd)) + xd, (1,) * (n - len(yd)) + yd
    dims = tuple(a * b for a, b in zip(xd, yd))
    check_result_shape("y", dims, x.dtype)
    _set(out, dims, x.dtype, x.layout)


def cross_infer_meta(x, y, axis, out) -> None:
    """x and y of one shape with size 3 along axis; axis 9 (Paddle's default) means the first axis of size 3."""
    same_dtype("x", x, "y", y)
    if tuple(x.dims) != tuple(y.dims):
        raise InvalidArgumentError(
            f"arguments 'x' and 'y' expected the same shape, got {list(x.dims)} and {list(y.dims)}")
    dims = tuple(x.dims)
    if axis == 9:  # Paddle's default: the first axis of size 3
        if 3 not in dims:
            raise InvalidArgumentError(
                f"argument 'x' has no axis of size 3 (shape {list(dims)}); pass the axis")
    else:
        a = normalize_axis("axis", axis, len(dims))
        if not dims or dims[a] != 3:
            raise InvalidArgumentError(
                f"argument 'axis' expected an axis of size 3, got axis {axis} of shape {list(dims)}")
    if x.dtype is DataType.BOOL:
        raise InvalidArgumentError("argument 'x' expected a numeric tensor, got bool")
    _set(out, dims, x.dtype, x.layout)


def matrix_power_infer_meta(x, n, out) -> None:
    """Square matrices [..., N, N] to an integer power; float or complex for a negative n (an inverse)."""
    _require_matrix("x", x, square=True)
    if n < 0:
        _require_float_or_complex("x", x)
    _set(out, x.dims, x.dtype, x.layout)


# -- decompositions ----------------------------------------------------------------------

def qr_infer_meta(x, mode, q, r) -> None:
    """x [..., M, N], K = min(M, N): 'reduced' Q [..., M, K], R [..., K, N]; 'complete' Q [..., M, M],
    R [..., M, N]; 'r' R [..., K, N] and an empty Q."""
    _require_float("x", x)
    _require_matrix("x", x)
    if mode not in ("reduced", "complete", "r"):
        raise InvalidArgumentError(f"argument 'mode' expected 'reduced', 'complete' or 'r', got {mode!r}")
    *batch, m, n = x.dims
    k = min(m, n)
    batch = tuple(batch)
    if mode == "complete":
        qd, rd = batch + (m, m), batch + (m, n)
    elif mode == "reduced":
        qd, rd = batch + (m, k), batch + (k, n)
    else:
        qd, rd = (0,), batch + (k, n)
    _set(q, qd, x.dtype, x.layout)
    _set(r, rd, x.dtype, x.layout)


def svd_infer_meta(x, full_matrices, u, s, vh) -> None:
    """x [..., M, N], K = min(M, N): U [..., M, K], S [..., K], VH [..., K, N]
    (full_matrices: U [..., M, M], VH [..., N, N])."""
    _require_float("x", x)
    _require_matrix("x", x)
    *batch, m, n = x.dims
    k = min(m, n)
    batch = tuple(batch)
    _set(u, batch + ((m, m) if full_matrices else (m, k)), x.dtype, x.layout)
    _set(s, batch + (k,), x.dtype, x.layout)
    _set(vh, batch + ((n, n) if full_matrices else (k, n)), x.dtype, x.layout)


def eigh_infer_meta(x, UPLO, out_w, out_v) -> None:
    """Symmetric (float) or Hermitian (complex) matrices [..., N, N]: real eigenvalues
    [..., N] (ascending; float32 for complex64), eigenvectors [..., N, N] of x's dtype."""
    _require_float_or_complex("x", x)
    _require_matrix("x", x, square=True)
    if UPLO not in ("L", "U"):
        raise InvalidArgumentError(f"argument 'UPLO' expected 'L' or 'U', got {UPLO!r}")
    _set(out_w, x.dims[:-1], _REAL_PART.get(x.dtype, x.dtype), x.layout)
    _set(out_v, x.dims, x.dtype, x.layout)


def pinv_infer_meta(x, rcond, hermitian, out) -> None:
    """x [..., M, N] gives [..., N, M]; rcond is a non-negative cutoff. A Hermitian x may be
    complex (eigh decomposes it, as in Paddle); the svd path takes float32 / float64."""
    if hermitian:
        _require_float_or_complex("x", x)
    else:
        _require_float("x", x)
    _require_matrix("x", x, square=bool(hermitian))
    if not rcond >= 0:
        raise InvalidArgumentError(f"argument 'rcond' expected a non-negative number, got {rcond!r}")
    _set(out, tuple(x.dims[:-2]) + (x.dims[-1], x.dims[-2]), x.dtype, x.layout)


def matrix_rank_infer_meta(x, tol, hermitian, out) -> None:
    """x [..., M, N] (a float tensor) gives int32 ranks [...] (Paddle's dtype); tol, when given, is a
    number (a negative one counts as 0, as in Paddle's kernel and for a Tensor tol), not NaN."""
    _require_float("x", x)
    _require_matrix("x", x, square=bool(hermitian))
    if tol is not None and tol != tol:
        raise InvalidArgumentError(f"argument 'tol' expected a number or None, got {tol!r}")
    _set(out, x.dims[:-2], DataType.INT32, x.layout)


def eig_infer_meta(x, out_w, out_v) -> None:
    """General square matrices [..., N, N] (float32/64, complex64/128): complex
    eigenvalues [..., N] and eigenvectors [..., N, N]."""
    _require_float_or_complex("x", x)
    _require_matrix("x", x, square=True)
    dtype = _COMPLEX_OF[x.dtype]
    _set(out_w, x.dims[:-1], dtype, x.layout)
    _set(out_v, x.dims, dtype, x.layout)


def lu_infer_meta(x, pivot, out, pivots, infos) -> None:
    """Matrices [..., M, N] (float32/64): the packed factors [..., M, N], int32
    pivots [..., min(M, N)] and int32 infos [...] ([1] for one matrix, as Paddle's
    LUInferMeta)."""
    _require_float("x", x)
    _require_matrix("x", x)
    dims = tuple(x.dims)
    _set(out, dims, x.dtype, x.layout)
    _set(pivots, dims[:-2] + (min(dims[-2:]),), DataType.INT32, x.layout)
    _set(infos, dims[:-2] or (1,), DataType.INT32, x.layout)


def lu_unpack_infer_meta(x, y, unpack_ludata, unpack_pivots, pmat, l, u) -> None:  # noqa: E741  (Paddle's name)
    """lu's packed x [..., M, N] and int32 pivots y [..., min(M, N)]: P [..., M, M],
    L [..., M, K], U [..., K, N]; a part not asked for is [0]."""
    _require_float("x", x)
    _require_matrix("x", x)
    dims = tuple(x.dims)
    m, n = dims[-2:]
    k = min(m, n)
    if y.dtype not in (DataType.INT32, DataType.INT64):
        raise InvalidArgumentError(f"argument 'y' expected an int32 or int64 tensor (lu's pivots), got {y.dtype}")
    if tuple(y.dims) != dims[:-2] + (k,):
        raise InvalidArgumentError(
            f"argument 'y' expected shape {list(dims[:-2] + (k,))} (lu's pivots of x {list(dims)}), "
            f"got {list(y.dims)}")
    _set(pmat, dims[:-2] + (m, m) if unpack_pivots else (0,), x.dtype, x.layout)
    _set(l, dims[:-2] + (m, k) if unpack_ludata else (0,), x.dtype, x.layout)
    _set(u, dims[:-2] + (k, n) if unpack_ludata else (0,), x.dtype, x.layout)
