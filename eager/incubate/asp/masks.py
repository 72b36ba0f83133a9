"""n:m structured-sparsity masks on NumPy arrays (Paddle's ``paddle.incubate.asp``
mask helpers): density, 1-D and 2-D pattern checks, and the three ways of
building a mask.

The patterns, for a matrix read row-major and padded with zeros up to whole
blocks:

- 1-D ``n:m``: every ``1 x m`` block of a row holds at least ``n`` zeros;
  ``get_mask_1d`` keeps the ``m - n`` largest magnitudes of each block.
- 2-D ``n:m``: ``m x m`` blocks whose rows and columns each keep ``m - n``
  entries; ``get_mask_2d_greedy`` takes entries largest first while their row
  and column have room, ``get_mask_2d_best`` tries every such block pattern and
  keeps the one that preserves the most magnitude.

Tensors of 1 to 4 dimensions are viewed as matrices the way Paddle's pruning
sees them (``create_mask``): 1-D as one row, 3-D ``[a, b, c]`` as ``[a*b, c]``,
4-D ``[a, b, c, d]`` as ``[a*b*d, c]``.
"""
from __future__ import annotations

import enum
import functools
import itertools

import numpy as np

from ...tensor import Tensor


class MaskAlgo(enum.Enum):
    """How :func:`create_mask` builds a mask: ``MASK_1D`` (:func:`get_mask_1d`),
    ``MASK_2D_GREEDY`` (:func:`get_mask_2d_greedy`), ``MASK_2D_BEST``
    (:func:`get_mask_2d_best`)."""

    MASK_1D = "get_mask_1d"
    MASK_2D_GREEDY = "get_mask_2d_greedy"
    MASK_2D_BEST = "get_mask_2d_best"


class CheckMethod(enum.Enum):
    """How :func:`check_sparsity` checks a mask: ``CHECK_1D`` (:func:`check_mask_1d`)
    or ``CHECK_2D`` (:func:`check_mask_2d`)."""

    CHECK_1D = "check_mask_1d"
    CHECK_2D = "check_mask_2d"

    @staticmethod
    def get_checking_method(mask_algo):
        """The check that fits masks built by ``mask_algo``: CHECK_1D for MASK_1D,
        CHECK_2D for the two 2-D algorithms.

        >>> CheckMethod.get_checking_method(MaskAlgo.MASK_2D_BEST)
        <CheckMethod.CHECK_2D: 'check_mask_2d'>
        """
        if not isinstance(mask_algo, MaskAlgo):
            raise TypeError(f"CheckMethod.get_checking_method: argument 'mask_algo' expected a MaskAlgo, got "
                            f"{type(mask_algo).__name__}")
        return CheckMethod.CHECK_1D if mask_algo is MaskAlgo.MASK_1D else CheckMethod.CHECK_2D


def _array(op: str, value) -> np.ndarray:
    if isinstance(value, Tensor):
        return value.numpy()
    array = np.asarray(value)
    if not (np.issubdtype(array.dtype, np.number) or array.dtype == np.bool_):
        raise TypeError(f"{op}: argument 'mat' expected a numeric NumPy array (or a Tensor), got dtype {array.dtype}")
    return array


def _matrix(op: str, value) -> np.ndarray:
    array = _array(op, value)
    if array.ndim != 2:
        raise ValueError(f"{op}: argument 'mat' expected a 2-D array, got shape {list(array.shape)}")
    return array


def _n_m(op: str, n, m) -> tuple:
    for arg, value in (("n", n), ("m", m)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{op}: argument '{arg}' expected an int, got {type(value).__name__} {value!r}")
    if not 0 < m or not 0 <= n <= m:
        raise ValueError(f"{op}: arguments 'n' and 'm' expected 0 <= n <= m and m > 0, got n={n}, m={m}")
    return int(n), int(m)


def _pad(array: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """array padded with zeros on the bottom/right to multiples of rows/cols."""
    pad_r, pad_c = -array.shape[0] % rows, -array.shape[1] % cols
    return np.pad(array, ((0, pad_r), (0, pad_c))) if pad_r or pad_c else array


def _blocks(padded: np.ndarray, m: int) -> np.ndarray:
    """The m x m blocks of a padded matrix, row of blocks after row: [count, m, m]."""
    r, c = padded.shape
    return padded.reshape(r // m, m, c // m, m).transpose(0, 2, 1, 3).reshape(-1, m, m)


def _unblock(blocks: np.ndarray, shape: tuple, m: int) -> np.ndarray:
    r, c = shape
    return blocks.reshape(r // m, c // m, m, m).transpose(0, 2, 1, 3).reshape(r, c)


def calculate_density(x) -> float:
    """The fraction of nonzero entries of ``x``.

    >>> calculate_density(np.array([[0, 1, 3, 0], [1, 1, 0, 1]]))
    0.625
    """
    array = _array("calculate_density", x)
    if array.size == 0:
        raise ValueError("calculate_density: argument 'x' expected a non-empty array, got shape "
                         f"{list(array.shape)}")
    return float(np.count_nonzero(array)) / array.size


def check_mask_1d(mat, n, m) -> bool:
    """Whether every ``1 x m`` block of every row of the 2-D ``mat`` (columns
    padded with zeros to a multiple of m) holds at least ``n`` zeros.

    >>> check_mask_1d(np.array([[0, 1, 3, 0], [1, 0, 0, 1]]), 2, 4)
    True
    """
    n, m = _n_m("check_mask_1d", n, m)
    rows = _pad(_matrix("check_mask_1d", mat), 1, m).reshape(-1, m)
    return bool(np.all(np.count_nonzero(rows, axis=1) <= m - n))


def get_mask_1d(mat, n, m) -> np.ndarray:
    """A float64 0/1 mask of the 2-D ``mat`` (its shape) keeping, in every
    ``1 x m`` block of each row, the ``m - n`` entries largest in magnitude (of
    equal magnitudes, the earlier entry is dropped first).

    >>> get_mask_1d(np.array([[2, 8, 9, 9], [5, 6, 3, 9]]), 2, 4)
    array([[0., 0., 1., 1.],
           [0., 1., 0., 1.]])
    """
    n, m = _n_m("get_mask_1d", n, m)
    matrix = _matrix("get_mask_1d", mat)
    padded = _pad(matrix, 1, m)
    rows = np.abs(padded.reshape(-1, m).astype(np.float64))
    mask = np.ones(rows.shape)
    smallest = np.argsort(rows, axis=1, kind="stable")[:, :n]
    np.put_along_axis(mask, smallest, 0, axis=1)
    return mask.reshape(padded.shape)[:matrix.shape[0], :matrix.shape[1]]


def check_mask_2d(mat, n, m) -> bool:
    """Whether every ``m x m`` block of the 2-D ``mat`` (padded with zeros to whole
    blocks) keeps the 2-D ``n:m`` pattern. As in Paddle, a block fails only when
    some row *and* some column of it hold more than ``m - n`` nonzeros (so a
    1-D ``n:m`` mask passes too).

    >>> check_mask_2d(np.array([[0, 8, 9, 0], [9, 0, 0, 10], [5, 0, 0, 6], [0, 4, 6, 0]]), 2, 4)
    True
    """
    n, m = _n_m("check_mask_2d", n, m)
    blocks = _blocks(_pad(_matrix("check_mask_2d", mat), m, m), m) != 0
    row_over = np.any(blocks.sum(axis=2) > m - n, axis=1)
    col_over = np.any(blocks.sum(axis=1) > m - n, axis=1)
    return not bool(np.any(row_over & col_over))


def get_mask_2d_greedy(mat, n, m) -> np.ndarray:
    """A float64 0/1 mask of the 2-D ``mat`` in the 2-D ``n:m`` pattern, built block by
    block: entries are taken largest magnitude first (of equal magnitudes, the
    later row-major position first, as Paddle takes them) while their row and
    column in the block keep fewer than ``m - n``. A row can end up with fewer
    (see :func:`get_mask_2d_best` for the best block).

    >>> get_mask_2d_greedy(np.array([[9, 1, 1, 8], [7, 1, 1, 1], [1, 6, 5, 1], [1, 4, 1, 3]]), 2, 4)
    array([[1., 0., 0., 1.],
           [1., 0., 1., 0.],
           [0., 1., 1., 0.],
           [0., 1., 0., 1.]])
    """
    n, m = _n_m("get_mask_2d_greedy", n, m)
    matrix = _matrix("get_mask_2d_greedy", mat)
    padded = _pad(matrix, m, m)
    blocks = np.abs(_blocks(padded, m).astype(np.float64))
    keep, count = m - n, blocks.shape[0]
    flat = blocks.reshape(count, m * m)
    order = np.argsort(flat, axis=1, kind="stable")[:, ::-1]       # every block at once, largest first
    masks = np.zeros((count, m * m))
    row_used, col_used = np.zeros((count, m), int), np.zeros((count, m), int)
    everyone = np.arange(count)
    for cell in order.T:                                           # the k-th largest entry of each block
        i, j = np.divmod(cell, m)
        take = (row_used[everyone, i] < keep) & (col_used[everyone, j] < keep)
        masks[everyone[take], cell[take]] = 1
        row_used[everyone[take], i[take]] += 1
        col_used[everyone[take], j[take]] += 1
    masks = masks.reshape(count, m, m)
    return _unblock(masks, padded.shape, m)[:matrix.shape[0], :matrix.shape[1]]


@functools.lru_cache(maxsize=None)
def _patterns_2d(n: int, m: int) -> np.ndarray:
    """Every m x m 0/1 block with m - n ones in each row and each column, flattened: [count, m*m]."""
    keep = m - n
    rows = [np.array(r) for r in itertools.product((0, 1), repeat=m) if sum(r) == keep]
    found = [np.stack(choice) for choice in itertools.product(rows, repeat=m)
             if np.all(np.sum(choice, axis=0) == keep)]
    return np.stack(found).reshape(len(found), m * m)


def get_mask_2d_best(mat, n, m) -> np.ndarray:
    """A float64 0/1 mask of the 2-D ``mat`` in the 2-D ``n:m`` pattern: for each
    ``m x m`` block, of all blocks with ``m - n`` ones in every row and column,
    the one keeping the largest sum of magnitudes. (Enumerates the patterns: 90
    for 2:4; meant for small m.)

    >>> get_mask_2d_best(np.array([[2, 8, 9, 9], [9, 1, 3, 9], [5, 6, 3, 9], [2, 4, 6, 9]]), 2, 4)
    array([[0., 1., 1., 0.],
           [1., 0., 0., 1.],
           [1., 1., 0., 0.],
           [0., 0., 1., 1.]])
    """
    n, m = _n_m("get_mask_2d_best", n, m)
    if m > 6:
        raise ValueError(f"get_mask_2d_best: argument 'm' expected at most 6 (every pattern is tried), got {m}")
    matrix = _matrix("get_mask_2d_best", mat)
    padded = _pad(matrix, m, m)
    blocks = np.abs(_blocks(padded, m).astype(np.float64)).reshape(-1, m * m)
    patterns = _patterns_2d(n, m)
    best = np.argmax(blocks @ patterns.T, axis=1)
    masks = patterns[best].reshape(-1, m, m).astype(np.float64)
    return _unblock(masks, padded.shape, m)[:matrix.shape[0], :matrix.shape[1]]


_MASKERS = {MaskAlgo.MASK_1D: get_mask_1d, MaskAlgo.MASK_2D_GREEDY: get_mask_2d_greedy,
            MaskAlgo.MASK_2D_BEST: get_mask_2d_best}
_CHECKERS = {CheckMethod.CHECK_1D: check_mask_1d, CheckMethod.CHECK_2D: check_mask_2d}


def _as_matrix(op: str, array: np.ndarray) -> np.ndarray:
    """The matrix Paddle's pruning sees in a 1- to 4-D array (see the module docstring)."""
    shape = array.shape
    if array.ndim == 1:
        return array.reshape(1, shape[0])
    if array.ndim == 2:
        return array
    if array.ndim == 3:
        return array.reshape(shape[0] * shape[1], shape[2])
    if array.ndim == 4:
        return array.transpose(0, 1, 3, 2).reshape(shape[0] * shape[1] * shape[3], shape[2])
    raise ValueError(f"{op}: argument 'tensor' expected 1 to 4 dimensions, got shape {list(shape)}")


def create_mask(tensor, func_name=MaskAlgo.MASK_1D, n=2, m=4) -> np.ndarray:
    """The ``n:m`` sparsity mask of a 1- to 4-D array, built by ``func_name`` (a
    :class:`MaskAlgo`) on its matrix view; same shape and dtype as ``tensor``.

    >>> create_mask(np.array([[2, 8, 9, 9], [9, 1, 3, 9]]))
    array([[0, 0, 1, 1],
           [1, 0, 0, 1]])
    """
    if not isinstance(func_name, MaskAlgo):
        raise TypeError(f"create_mask: argument 'func_name' expected a MaskAlgo, got {type(func_name).__name__}")
    array = _array("create_mask", tensor)
    matrix = _as_matrix("create_mask", array)
    mask = _MASKERS[func_name](matrix.astype(np.float64), n, m)
    if array.ndim == 4:
        a, b, c, d = array.shape
        return mask.reshape(a, b, d, c).transpose(0, 1, 3, 2).astype(array.dtype)
    return mask.reshape(array.shape).astype(array.dtype)


def check_sparsity(tensor, func_name=CheckMethod.CHECK_1D, n=2, m=4) -> bool:
    """Whether a 1- to 4-D array keeps the ``n:m`` pattern that ``func_name`` (a
    :class:`CheckMethod`) checks, on the matrix view :func:`create_mask` uses.

    >>> check_sparsity(np.array([[0, 0, 1, 1], [1, 0, 0, 1]]))
    True
    """
    if not isinstance(func_name, CheckMethod):
        raise TypeError(f"check_sparsity: argument 'func_name' expected a CheckMethod, got "
                        f"{type(func_name).__name__}")
    matrix = _as_matrix("check_sparsity", _array("check_sparsity", tensor))
    return _CHECKERS[func_name](matrix.astype(np.float64), n, m)


__all__ = ["CheckMethod", "MaskAlgo", "calculate_density", "check_mask_1d", "check_mask_2d", "check_sparsity",
           "create_mask", "get_mask_1d", "get_mask_2d_best", "get_mask_2d_greedy"]
