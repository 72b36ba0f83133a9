"""Search and sort kernels (argmax/argmin, topk, sort, argsort, kthvalue, mode,
cummax/cummin, bincount, searchsorted, histogram) and their gradients.

Orders are stable: equal values keep their index order (ascending), and a
descending order lists equal values by increasing index too, so which of
several equal elements an op picks is defined (the first for topk, sort and
kthvalue; see mode and cummax/cummin for theirs). Paddle leaves ties
unspecified unless ``stable=True``; these kernels always are.

The gradient of an op that picks elements (topk, sort, kthvalue, mode,
cummax/cummin) sends each gradient to the element it picked: a scatter-add of
out_grad at the saved indices (an element picked several times, as a running
maximum is, gets the sum).
"""
import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, FLOATS, INTS, REAL
from .funcs import scatter_add

_INDEX = np.int64


def _axis(axis, ndim):
    """None is the last axis (topk, kthvalue); negative axes count from the end."""
    if axis is None:
        return ndim - 1
    return axis % ndim


def _stable_order(xp, x, axis, descending):
    """The positions that sort x along axis, ties by increasing position either way."""
    if not descending:
        return xp.argsort(x, axis=axis, kind="stable").astype(_INDEX, copy=False)
    # A stable ascending sort of the reversed array, reversed again, is descending
    # with ties by increasing position (negating x would overflow integer minima).
    size = x.shape[axis]
    reversed_order = xp.argsort(xp.flip(x, axis=axis), axis=axis, kind="stable")
    return (size - 1 - xp.flip(reversed_order, axis=axis)).astype(_INDEX, copy=False)


def _leading(xp, array, axis, count):
    """The first ``count`` entries of ``array`` along axis."""
    return xp.take(array, xp.arange(count), axis=axis)


# -- argmax / argmin ---------------------------------------------------------------------

def _arg_extreme(xp, fn, x, axis, keepdim, dtype):
    if x.ndim == 0:
        return xp.zeros((), dtype=dtype.numpy_dtype)
    if axis is None:
        out = fn(x.reshape(-1))
        if keepdim:
            out = xp.reshape(out, (1,) * x.ndim)
    else:
        out = fn(x, axis=axis)
        if keepdim:
            out = xp.expand_dims(out, axis % x.ndim)
    # numpy/cupy pick the first of equal extremes, as Paddle does.
    return xp.asarray(out).astype(dtype.numpy_dtype)


@register_kernel("argmax", ALL_BACKENDS, REAL)
def argmax(ctx, x, axis, keepdim, dtype):
    return _arg_extreme(ctx.xp, ctx.xp.argmax, x, axis, keepdim, dtype)


@register_kernel("argmin", ALL_BACKENDS, REAL)
def argmin(ctx, x, axis, keepdim, dtype):
    return _arg_extreme(ctx.xp, ctx.xp.argmin, x, axis, keepdim, dtype)


# -- topk, sort, argsort, kthvalue -------------------------------------------------------------

@register_kernel("topk", ALL_BACKENDS, REAL)
def topk(ctx, x, k, axis, largest, sorted):
    xp = ctx.xp
    if x.ndim == 0:
        return x.copy(), xp.zeros((), dtype=_INDEX)
    axis = _axis(axis, x.ndim)
    # sorted=False may return any order (Paddle); a sorted one is such an order.
    indices = _leading(xp, _stable_order(xp, x, axis, largest), axis, int(k))
    return xp.take_along_axis(x, indices, axis=axis), indices


@register_kernel("sort", ALL_BACKENDS, REAL)
def sort(ctx, x, axis, descending, stable):
    xp = ctx.xp
    if x.ndim == 0:
        return x.copy(), xp.zeros((), dtype=_INDEX)
    indices = _stable_order(xp, x, axis % x.ndim, descending)
    return xp.take_along_axis(x, indices, axis=axis % x.ndim), indices


@register_kernel("argsort", ALL_BACKENDS, REAL)
def argsort(ctx, x, axis, descending, stable):
    xp = ctx.xp
    if x.ndim == 0:
        return xp.zeros((), dtype=_INDEX)
    return _stable_order(xp, x, axis % x.ndim, descending)


@register_kernel("kthvalue", ALL_BACKENDS, REAL)
def kthvalue(ctx, x, k, axis, keepdim):
    xp = ctx.xp
    if x.ndim == 0:
        return x.copy(), xp.zeros((), dtype=_INDEX)
    axis = _axis(axis, x.ndim)
    indices = xp.take(_stable_order(xp, x, axis, False), xp.arange(k - 1, k), axis=axis)
    values = xp.take_along_axis(x, indices, axis=axis)
    if not keepdim:
        values, indices = xp.squeeze(values, axis=axis), xp.squeeze(indices, axis=axis)
    return values, indices


# -- mode ----------------------------------------------------------------------------------------

@register_kernel("mode", ALL_BACKENDS, REAL)
def mode(ctx, x, axis, keepdim):
    """The most frequent value along axis; of equally frequent values the smallest,
    and of its occurrences the last index (as Paddle and PyTorch)."""
    xp = ctx.xp
    if x.ndim == 0:
        return x.copy(), xp.zeros((), dtype=_INDEX)
    axis = axis % x.ndim
    moved = xp.moveaxis(x, axis, -1)
    batch, size = moved.shape[:-1], moved.shape[-1]
    rows = moved.reshape(-1, size)
    order = _stable_order(xp, rows, 1, False)
    ranked = xp.take_along_axis(rows, order, axis=1)
    # Runs of equal values in each sorted row: pair the k-th run start with the
    # k-th run end (row-major order keeps the pairs), then write each run's
    # length at its end; the first longest run is the smallest most frequent value.
    differs = ranked[:, 1:] != ranked[:, :-1]
    edge = xp.ones((rows.shape[0], 1), dtype=bool)
    starts = xp.nonzero(xp.concatenate([edge, differs], axis=1).reshape(-1))[0]
    ends = xp.nonzero(xp.concatenate([differs, edge], axis=1).reshape(-1))[0]
    lengths = xp.zeros(rows.size, dtype=_INDEX)
    lengths[ends] = ends - starts + 1
    last = xp.argmax(lengths.reshape(rows.shape), axis=1)[:, None]
    # The stable order lists a value's occurrences by position: its run's end is the last.
    values = xp.take_along_axis(ranked, last, axis=1).reshape(batch)
    indices = xp.take_along_axis(order, last, axis=1).reshape(batch)
    if keepdim:
        values, indices = xp.expand_dims(values, axis), xp.expand_dims(indices, axis)
    return values, indices


# -- cummax / cummin -------------------------------------------------------------------------------

def _cum_extreme(xp, x, axis, dtype, beats):
    """Running extreme along axis and where it was reached (the latest index among
    equal extremes, as Paddle); NaN, once seen, stays (NaN beats any number).

    A log-step (Hillis-Steele) scan of (value, index) pairs, combining each
    prefix with the one ``step`` before it, since ufunc.accumulate is NumPy-only.
    """
    if axis is None:
        x, axis = x.reshape(-1), 0
    if x.ndim == 0:
        return x.copy(), xp.zeros((), dtype=dtype.numpy_dtype)
    axis = axis % x.ndim
    values = xp.moveaxis(x, axis, -1).copy()
    size = values.shape[-1]
    positions = xp.broadcast_to(xp.arange(size, dtype=_INDEX), values.shape).copy()
    floating = values.dtype.kind == "f"
    step = 1
    while step < size:
        before, now = values[..., :-step], values[..., step:]
        earlier = beats(before, now)  # strict: a tie keeps the later index
        if floating:
            earlier = earlier | (xp.isnan(before) & ~xp.isnan(now))
        values = xp.concatenate([values[..., :step], xp.where(earlier, before, now)], axis=-1)
        positions = xp.concatenate(
            [positions[..., :step], xp.where(earlier, positions[..., :-step], positions[..., step:])], axis=-1)
        step *= 2
    return (xp.moveaxis(values, -1, axis),
            xp.moveaxis(positions, -1, axis).astype(dtype.numpy_dtype))


@register_kernel("cummax", ALL_BACKENDS, REAL)
def cummax(ctx, x, axis, dtype):
    return _cum_extreme(ctx.xp, x, axis, dtype, lambda before, now: before > now)


@register_kernel("cummin", ALL_BACKENDS, REAL)
def cummin(ctx, x, axis, dtype):
    return _cum_extreme(ctx.xp, x, axis, dtype, lambda before, now: before < now)


# -- the gradients: scatter-add back to the picked positions -----------------------------------

def scatter_back(xp, shape, indices, grad, axis):
    """An array of ``shape`` holding, at each position along axis, the sum of the
    entries of grad whose index (in ``indices``, shaped like grad, with ``shape``'s
    number of dimensions) points there; zeros elsewhere."""
    if len(shape) == 0:
        return grad.reshape(()).copy()
    size = shape[axis]
    moved_indices = xp.moveaxis(indices, axis, -1)
    batch = moved_indices.shape[:-1]
    rows = int(np.prod(batch, dtype=np.int64))
    picked = moved_indices.shape[-1]
    flat = moved_indices.reshape(rows, picked).astype(_INDEX) + (xp.arange(rows, dtype=_INDEX) * size)[:, None]
    # bincount sums in float64 on both backends; the result is cast back.
    summed = xp.bincount(flat.reshape(-1), weights=xp.moveaxis(grad, axis, -1).reshape(-1),
                         minlength=rows * size)
    return xp.moveaxis(summed.reshape(batch + (size,)), -1, axis).astype(grad.dtype)


def _keepdim_form(xp, x, indices, out_grad, axis, keepdim):
    """indices and out_grad with the reduced axis back (size 1) when keepdim was off."""
    if x.ndim == 0 or keepdim:
        return indices, out_grad
    return xp.expand_dims(indices, axis), xp.expand_dims(out_grad, axis)


@register_kernel("topk_grad", ALL_BACKENDS, FLOATS)
def topk_grad(ctx, x, indices, out_grad, k, axis, largest, sorted):
    axis = _axis(axis, x.ndim) if x.ndim else 0
    return scatter_back(ctx.xp, x.shape, indices, out_grad, axis)


@register_kernel("sort_grad", ALL_BACKENDS, FLOATS)
def sort_grad(ctx, x, indices, out_grad, axis, descending, stable):
    return scatter_back(ctx.xp, x.shape, indices, out_grad, axis % x.ndim if x.ndim else 0)


@register_kernel("kthvalue_grad", ALL_BACKENDS, FLOATS)
def kthvalue_grad(ctx, x, indices, out_grad, k, axis, keepdim):
    xp = ctx.xp
    axis = _axis(axis, x.ndim) if x.ndim else 0
    indices, out_grad = _keepdim_form(xp, x, indices, out_grad, axis, keepdim)
    return scatter_back(xp, x.shape, indices, out_grad, axis)


@register_kernel("mode_grad", ALL_BACKENDS, FLOATS)
def mode_grad(ctx, x, indices, out_grad, axis, keepdim):
    xp = ctx.xp
    axis = axis % x.ndim if x.ndim else 0
    indices, out_grad = _keepdim_form(xp, x, indices, out_grad, axis, keepdim)
    return scatter_back(xp, x.shape, indices, out_grad, axis)


def _cum_extreme_grad(xp, x, indices, out_grad, axis):
    if axis is None:  # the forward ran on x flattened
        return scatter_back(xp, (x.size,), indices, out_grad, 0).reshape(x.shape)
    return scatter_back(xp, x.shape, indices, out_grad, axis % x.ndim if x.ndim else 0)


@register_kernel("cummax_grad", ALL_BACKENDS, FLOATS)
def cummax_grad(ctx, x, indices, out_grad, axis, dtype):
    return _cum_extreme_grad(ctx.xp, x, indices, out_grad, axis)


@register_kernel("cummin_grad", ALL_BACKENDS, FLOATS)
def cummin_grad(ctx, x, indices, out_grad, axis, dtype):
    return _cum_extreme_grad(ctx.xp, x, indices, out_grad, axis)


# -- unique -------------------------------------------------------------------------------------

@register_kernel("unique", ALL_BACKENDS, REAL)
def unique(ctx, x, return_index, return_inverse, return_counts, axis, dtype):
    """Distinct elements (axis None) or slices along axis in ascending (lexicographic)
    order; a stable sort makes each run's first entry the first occurrence. All four
    results are computed; the generated function returns those the flags ask for."""
    xp = ctx.xp
    if axis is None:
        rows = x.reshape(-1, 1)
    else:
        moved = xp.moveaxis(x, axis, 0)
        # Explicit sizes: a -1 cannot be inferred when the tensor is empty.
        rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:], dtype=np.int64)))
    count, width = rows.shape
    if width == 0 or count == 0:
        order = xp.arange(count, dtype=_INDEX)
    else:
        # lexsort's last key is the primary one: column 0 goes last.
        order = xp.lexsort(rows.T[::-1]).astype(_INDEX, copy=False)
    ranked = rows[order]
    starts = xp.ones(count, dtype=bool)
    if count > 1:
        starts[1:] = (ranked[1:] != ranked[:-1]).any(axis=1)
    first = xp.nonzero(starts)[0]
    inverse = xp.empty(count, dtype=_INDEX)
    inverse[order] = xp.cumsum(starts) - 1
    counts = xp.diff(xp.concatenate([first, xp.asarray([count], dtype=first.dtype)]))
    picked = ranked[first]
    if axis is None:
        out = picked.reshape(-1)
    else:
        out = xp.moveaxis(picked.reshape((picked.shape[0],) + moved.shape[1:]), 0, axis)
    index_dtype = dtype.numpy_dtype
    return out, order[first].astype(index_dtype), inverse.astype(index_dtype), counts.astype(index_dtype)


# -- bincount -------------------------------------------------------------------------------------

@register_kernel("bincount", ALL_BACKENDS, (INTS[3], INTS[4]))
def bincount(ctx, x, weights, minlength):
    xp = ctx.xp
    if xp is not np:
        return _bincount_on_device(xp, x, weights, minlength)
    if x.size and bool((x < 0).any()):
        raise InvalidArgumentError(
            f"argument 'x' expected non-negative values, got {int(x.min())}")
    if weights is None:
        return xp.bincount(x, minlength=minlength).astype(_INDEX)
    if weights.dtype.kind == "f":
        return xp.bincount(x, weights=weights, minlength=minlength).astype(weights.dtype)
    # Integer weights add up exactly as int64 (bincount would sum them in float64):
    # each bin's total is a difference of the running sum of the weights sorted by bin.
    # The result is float64, as Paddle's kernel gives for integer weights.
    counts = xp.bincount(x, minlength=minlength)
    ends = xp.cumsum(counts)
    running = xp.concatenate([xp.zeros(1, dtype=_INDEX),
                              xp.cumsum(weights.astype(_INDEX)[xp.argsort(x, kind="stable")])])
    return (running[ends] - running[ends - counts]).astype(np.float64)


def _bincount_on_device(xp, x, weights, minlength):
    """bincount on a GPU with the one device read its output's length needs: the
    smallest and largest value, read back together (the check for negative values
    comes with them). CuPy's own bincount would read the maximum, and the check
    the minimum, each on its own. Bins are filled by scatter-adds: counts and
    integer weights exactly in int64, floating weights in float64 (as NumPy's
    bincount sums them), then cast to the weights' floating dtype (float64 for
    integer weights, as Paddle)."""
    low, high = (int(v) for v in xp.stack([x.min(), x.max()]).tolist()) if x.size else (0, -1)
    if low < 0:
        raise InvalidArgumentError(f"argument 'x' expected non-negative values, got {low}")
    length = max(int(minlength), high + 1)
    if weights is None:
        out = xp.zeros(length, dtype=_INDEX)
        scatter_add(xp, out, x, xp.ones(x.shape, dtype=_INDEX))
        return out
    wide = np.float64 if weights.dtype.kind == "f" else _INDEX
    out = xp.zeros(length, dtype=wide)
    scatter_add(xp, out, x, weights.astype(wide, copy=False))
    return out.astype(weights.dtype if weights.dtype.kind == "f" else np.float64, copy=False)


# -- searchsorted / histogram ------------------------------------------------------------

@register_kernel("searchsorted", ALL_BACKENDS, (INTS[3], INTS[4]) + FLOATS[1:])
def searchsorted(ctx, sorted_sequence, values, out_int32, right):
    """Insertion points along the last axis: one xp.searchsorted for a 1-D
    sequence, else one per row of the leading axes (each row is its own search)."""
    xp = ctx.xp
    side = "right" if right else "left"
    dtype = np.int32 if out_int32 else _INDEX
    if sorted_sequence.ndim == 1:
        return xp.searchsorted(sorted_sequence, values, side=side).astype(dtype, copy=False)
    out = xp.empty(values.shape, dtype=dtype)
    # Explicit row counts: a -1 cannot be inferred when a tensor is empty.
    leading = int(np.prod(values.shape[:-1], dtype=np.int64))
    rows = sorted_sequence.reshape(leading, sorted_sequence.shape[-1])
    wanted = values.reshape(leading, values.shape[-1])
    flat = out.reshape(leading, values.shape[-1])
    for row in range(rows.shape[0]):
        flat[row] = xp.searchsorted(rows[row], wanted[row], side=side)
    return out


@register_kernel("histogram", ALL_BACKENDS, (INTS[3], INTS[4]) + FLOATS[1:])
def histogram(ctx, input, bins, min, max):  # noqa: A002  (Paddle's names)
    """Counts over bins equal-width bins of [min, max] (the data's range when both
    are 0; widened by 1 each way when that range is a single value, as Paddle
    does). Element v goes to bin floor((v - min) * bins / (max - min)), max to the
    last bin; elements outside [min, max] are not counted. On a GPU the range is
    read from the data without a host read, and the bins filled by scatter-add."""
    xp = ctx.xp
    data = input.reshape(-1).astype(np.float64, copy=False)
    out = xp.zeros(bins, dtype=_INDEX)
    if data.size == 0:
        return out
    if min == 0 and max == 0:
        low, high = data.min(), data.max()
    else:
        low, high = xp.asarray(np.float64(min)), xp.asarray(np.float64(max))
    same = high == low
    low, high = xp.where(same, low - 1.0, low), xp.where(same, high + 1.0, high)
    inside = (data >= low) & (data <= high)
    index = xp.floor((data - low) * bins / (high - low)).astype(_INDEX)
    index = xp.minimum(xp.maximum(index, 0), bins - 1)
    scatter_add(xp, out, index, inside.astype(_INDEX))
    return out
