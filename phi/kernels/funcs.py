"""Helpers shared by kernels (Paddle's phi/kernels/funcs)."""
from __future__ import annotations

import numpy as np

from ..common.shape_rules import broadcast_axes
from ..core.errors import InvalidArgumentError

# The dtypes CuPy's add.at (CUDA's atomicAdd) takes; others go through one of these.
_ATOMIC_ADD = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64, np.int32, np.uint32,
                                              np.uint64))
_FLOAT16 = np.dtype("float16")
_FLOAT32 = np.dtype("float32")


def sum_dtype(dtype):
    """The dtype a sum or scan of ``dtype`` values runs in: float32 for float16, as
    Paddle's kernels accumulate in its MPType (a float16 running total stalls once
    the addend is under half its spacing: a sum of 0.1s stops at 256); else dtype."""
    return _FLOAT32 if dtype == _FLOAT16 else dtype


def reduce_to_shape(grad, shape):
    """Sums ``grad`` over the axes along which an input of ``shape`` was broadcast.

    Every backward kernel undoes broadcasting here (composite rules use the same
    axes, from phi.common.shape_rules).
    """
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    axes = broadcast_axes(grad.shape, shape)
    if not axes:
        return grad.reshape(shape)
    if grad.dtype == _FLOAT16:  # summed in float32: sum_dtype
        return grad.sum(axis=axes, dtype=_FLOAT32).astype(_FLOAT16).reshape(shape)
    # dtype: NumPy would widen int32 sums to int64, and the gradient must keep its dtype.
    return grad.sum(axis=axes, dtype=grad.dtype).reshape(shape)


def kept_shape(shape, axes) -> tuple:
    """``shape`` with the reduced ``axes`` kept as 1 (a keepdim result's shape)."""
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def channel_first(xp, x, channel_last: bool):
    """x with a channel-last layout's channels moved to axis 1 (a view)."""
    return xp.moveaxis(x, -1, 1) if channel_last else x


_HOST_FLOATS = tuple(np.dtype(t) for t in (np.float16, np.float32, np.float64))


def _host_constants(value) -> dict:
    """NumPy float dtype -> a read-only 0-d NumPy array holding ``value`` in that dtype."""
    table = {}
    for dtype in _HOST_FLOATS:
        constant = np.full((), value, dtype)
        constant.flags.writeable = False
        table[dtype] = constant
    return table


# 0-d host constants of the float dtypes, for NumPy kernels on small arrays: a ufunc
# meeting a Python number (a weak scalar) resolves its loop and converts the number on
# every call, ~300 ns at (16,); a 0-d array of the operand's own dtype costs what an
# array operand does, and rounds the same (NumPy converts the number to that dtype
# before it computes). Only where ``xp is np`` (a host array must never meet a device
# array), for float operands:  one = ONES[out.dtype] if xp is np else 1
ZEROS = _host_constants(0)
ONES = _host_constants(1)
HALVES = _host_constants(0.5)

# NumPy float dtype -> {Python float -> its read-only 0-d array}: the factors scale
# meets (``y * 0.5`` each step), remembered as the constants above are (see host_factor).
_FACTORS = {dtype: {} for dtype in _HOST_FLOATS}
_FACTOR_LIMIT = 64  # per dtype; the table is emptied when it grows past this


def host_factor(value: float, dtype):
    """``value`` (a Python float or int) as a read-only 0-d NumPy array of float ``dtype``,
    remembered for the next call; None for another dtype. Zeros and NaN are never
    remembered (0.0 and -0.0 are one dict key, NaN never equals itself).

    >>> float(host_factor(0.5, np.dtype(np.float32)))
    0.5
    """
    factors = _FACTORS.get(dtype)
    if factors is None:
        return None
    factor = factors.get(value)
    if factor is None:
        factor = np.asarray(value, dtype)
        factor.flags.writeable = False
        if value and value == value:
            if len(factors) >= _FACTOR_LIMIT:
                factors.clear()
            factors[value] = factor
    return factor


def check_integer_divisor(xp, y) -> None:
    """Integer division by zero has no result (Paddle's integer functors PADDLE_ENFORCE
    it); float divisors pass, as their quotients are inf or NaN."""
    if y.dtype.kind in "iu" and y.size and not bool(xp.all(y)):
        raise InvalidArgumentError("argument 'y' holds a zero divisor; integer division by zero "
                                   "has no result")


# Paddle's EqualFunctor: float32 and float64 values closer than this compare equal
# (equal, not_equal, ==, !=, equal_all); half types, integers and complex compare exactly.
PADDLE_EQUAL_TOLERANCE = 1e-8


def paddle_float_equal(xp, x, y):
    """x == y elementwise as Paddle compares float32/float64: |x - y| < 1e-8, an
    infinity equal only to itself, NaN equal to nothing."""
    if xp is np:
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf is NaN: not near
            gap = np.subtract(x, y)
    else:  # CuPy does not warn
        gap = xp.subtract(x, y)
    # No out= here: with 0-d operands NumPy's ufuncs give scalars, which cannot be written into.
    return xp.logical_or(xp.less(xp.abs(gap), PADDLE_EQUAL_TOLERANCE), xp.equal(x, y))


def want(out_mask, index: int) -> bool:
    return out_mask is None or out_mask[index]


def copied_into(value, into):
    """``value``, or ``into`` with ``value`` written in (cast to its dtype) when an
    inplace op passed its target (into=, KernelFactory.writes_into): for kernels
    whose last step (``where``, ``astype``) has no ``out=``."""
    if into is None:
        return value
    into[...] = value
    return into


def apart(xp, into, array):
    """``array``, or a copy of it when it may share memory with ``into``, the
    target an inplace kernel writes into (``x.scatter_(index, x[:2])``): what a
    kernel reads while it writes must not change under its writes. Two arrays
    that own their memory (``base`` None) never overlap, so the common case
    skips ``may_share_memory`` (~0.4 us)."""
    if array is into or ((into.base is not None or array.base is not None)
                         and xp.may_share_memory(into, array)):
        return array.copy()
    return array


def conj(array):
    """The complex conjugate, and the array itself when it is real.

    Gradients of complex ops need conjugates; np.conj on a real array would
    still allocate a full copy (a measurable cost in matmul_grad).
    """
    return array.conj() if array.dtype.kind == "c" else array


_ROUNDS = 8  # an id repeated at most this often is added round by round, more often as one sum
_WIDE = 32  # rows at least this wide take _add_rows on the host; narrower ones np.add.at (fast there)


def _add_rows(grad, ids, blocks) -> None:
    """``grad[ids] += blocks`` on the host with repeated ids adding up in their
    order, the same bits as ``np.add.at`` (0 + first + second + ...), which walks
    element by element (1.6 ms for 1,024 rows of 128 floats; this takes 0.4 ms).

    The ids are sorted stably (each id's blocks keep their order). An id seen at
    most ``_ROUNDS`` times gets its k-th block in round k, one fancy-indexed
    ``+=`` per round (an id occurs at most once in a round). An id seen more
    often (a padding token, a frequent word) gets the sum of its blocks, a
    contiguous run of the sorted rows, from ``np.add.reduce`` over axis 0: for
    rows of two or more elements NumPy adds them one row after the other, the
    order add.at uses (a single-column run would be summed pairwise, hence
    ``_WIDE``); adding that sum into the zero row turns a -0.0 into the 0.0 that
    add.at's first addition gives."""
    n = ids.size
    if n == 0:
        return
    order = np.argsort(ids, kind="stable")
    ids = ids[order]
    rows = blocks[order]
    first = np.empty(n, dtype=bool)
    first[0] = True
    np.not_equal(ids[1:], ids[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    if starts.size == n:  # no repeats: one round
        grad[ids] += rows
        return
    counts = np.diff(starts, append=n)
    heavy = counts > _ROUNDS
    rank = np.arange(n) - np.repeat(starts, counts)  # k for an id's k-th block
    rounds = int(counts.max())
    if rounds > _ROUNDS:
        rank[np.repeat(heavy, counts)] = _ROUNDS  # left out of the rounds
        for start, count in zip(starts[heavy].tolist(), counts[heavy].tolist()):
            grad[ids[start]] += np.add.reduce(rows[start:start + count], axis=0)
        light = counts[~heavy]
        rounds = int(light.max()) if light.size else 0
    for k in range(rounds):
        pick = rank == k
        grad[ids[pick]] += rows[pick]


def _adds_rows(out, index, values) -> bool:
    """Whether ``out[index] += values`` adds whole rows that _add_rows serves: a
    non-negative 1-D integer index (a negative one and its wrapped twin would sort
    apart and meet in one round), values [len(index), width] of out's float or
    complex dtype, rows at least _WIDE wide."""
    return (type(index) is np.ndarray and index.ndim == 1 and index.dtype.kind in "iu"
            and type(values) is np.ndarray and values.ndim == 2 and out.ndim == 2
            and values.shape == (index.size, out.shape[1]) and values.shape[1] >= _WIDE
            and values.dtype == out.dtype and out.dtype.kind in "fc"
            and (index.size == 0 or int(index.min()) >= 0))


def scatter_add(xp, out, index, values) -> None:
    """``out[index] += values`` with repeated indices adding up (``numpy.add.at``),
    on either backend.

    CuPy's ``add.at`` serves only the dtypes CUDA's atomicAdd has (float16/32/64,
    int32, uint32, uint64); the others are added through one of those: int64 as
    uint64 (two's complement addition is the same bits), complex as its real and
    imaginary parts, bool and narrow integers in int32 (bool's sum is its "or").
    On the host, whole rows of 32 or more floats (an embedding's gradient, a
    SelectedRows' rows merged) take _add_rows: add.at's bits, without its
    element-by-element walk.
    """
    if xp is np:
        if _adds_rows(out, index, values):
            _add_rows(out, index, values)
        else:
            np.add.at(out, index, values)
        return
    if out.dtype in _ATOMIC_ADD:
        xp.add.at(out, index, values)
        return
    values = xp.asarray(values)
    if out.dtype.kind == "c":
        values = values.astype(out.dtype, copy=False)
        scatter_add(xp, out.real, index, values.real)
        scatter_add(xp, out.imag, index, values.imag)
    elif out.dtype == np.int64:
        xp.add.at(out.view(np.uint64), index, values.astype(np.int64, copy=False).view(np.uint64))
    else:
        wide = out.astype(np.int32)
        xp.add.at(wide, index, values.astype(np.int32))
        out[...] = wide != 0 if out.dtype.kind == "b" else wide.astype(out.dtype)


def device_index(xp, index: tuple) -> tuple:
    """An index tuple with its arrays (NumPy arrays from the caller) on ``xp``'s
    device: CuPy refuses host arrays as indices."""
    if xp is np or not any(hasattr(item, "dtype") for item in index):
        return index
    return tuple(xp.asarray(i) if hasattr(i, "dtype") else i for i in index)
