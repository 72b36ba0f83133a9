"""Index-driven kernels (gather, gather_nd, scatter, scatter_nd(_add), index_add/put,
take/put_along_axis, masked ops, nonzero) and their gradients.

Index values are checked here, before anything is computed or written: whether
they are in range depends on the data, which InferMeta never sees. On a GPU
the check would read two numbers back (the index's minimum and maximum), a device
sync, so it runs there only where ``ctx.check_values`` (anomaly mode); Paddle's
GPU kernels assert on the device instead. An out-of-range value
raises ElementIndexError (an IndexError, and the ValueError Paddle raises) naming
the argument, the range and the value; the generated API prefixes the op's name.

Inplace ops (``x.scatter_(...)``, ``masked_fill_``, ``index_add_``, ``index_put_``,
``put_along_axis_``) pass their target as ``into`` (KernelFactory.writes_into), and
these kernels then write only the places the op changes, into that buffer, after
every check (a failed call leaves the target as it was); an input that may share
memory with the target is copied first (funcs.apart). Another ``into`` gets the
new result written in.

Repeated indices: gathers' gradients add up (each read sends its gradient back);
``scatter(overwrite=True)`` and ``put_along_axis(reduce='assign')`` keep the
last write, as Paddle's CPU kernels do.
"""
import numpy as np

from ..core.errors import ElementIndexError, InvalidArgumentError
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, ALL_TYPES, NUMERIC
from .funcs import apart, copied_into, reduce_to_shape, scatter_add, want


def _check_range(ctx, index, low: int, high: int, arg: str, detail: str = "") -> None:
    """Raises unless every value of index lies in [low, high); only where
    ``ctx.check_values`` (always on the CPU, on the GPU in anomaly mode: reading
    the minimum and maximum back is a device sync)."""
    if index.size == 0 or not ctx.check_values:
        return
    smallest, largest = int(index.min()), int(index.max())
    if smallest < low or largest >= high:
        bad = smallest if smallest < low else largest
        # an IndexError, and the ValueError Paddle's index checks raise (index_add, gather, scatter)
        raise ElementIndexError(f"argument '{arg}'{detail} expected index values in [{low}, {high}), got {bad}")


def _flat_index(index):
    """A [N, 1] index read as [N] (Paddle accepts both)."""
    return index.reshape(-1) if index.ndim == 2 else index


def _wrapped(index, size):
    """Negative indices counted from the end (after _check_range allowed [-size, size))."""
    return index % size if size else index


def _axis_slot(ndim, axis, index) -> tuple:
    """The index tuple that puts ``index`` at dimension ``axis`` and takes all of the others before it."""
    return (slice(None),) * (axis % ndim) + (index,)


# -- gather (index_select invokes it) ----------------------------------------------------

@register_kernel("gather", ALL_BACKENDS, ALL_TYPES)
def gather(ctx, x, index, axis):
    """The slices of x at index along axis (index values in [0, x.shape[axis]))."""
    a = axis % x.ndim
    flat = _flat_index(index)
    _check_range(ctx, flat, 0, x.shape[a], "index")
    return ctx.xp.take(x, flat, axis=a)


@register_kernel("gather_grad", ALL_BACKENDS, NUMERIC)
def gather_grad(ctx, x, index, out_grad, axis):
    """out_grad added into zeros shaped like x at index along axis."""
    xp = ctx.xp
    flat = _flat_index(index)
    _check_range(ctx, flat, 0, x.shape[axis % len(x.shape)], "index")
    x_grad = xp.zeros(x.shape, dtype=out_grad.dtype)
    # A row gathered twice sends both of its gradients back.
    scatter_add(xp, x_grad, _axis_slot(len(x.shape), axis, flat), out_grad)
    return x_grad


# -- take_along_axis / put_along_axis ----------------------------------------------------

def _flat_places(xp, shape, where, values_shape):
    """Each value's place in an array of ``shape`` as one C-order flat int64 index (1-d)."""
    flat_place = xp.zeros(values_shape, dtype=xp.int64)
    stride = 1
    for d in range(len(shape) - 1, -1, -1):
        flat_place = flat_place + xp.broadcast_to(where[d], values_shape).astype(xp.int64) * stride
        stride *= shape[d]
    return flat_place.reshape(-1)


def _combine_in_rounds(xp, target, where, values, combine):
    """target[where] = combine(target[where], values) with repeated places combined in
    the values' order.

    For the GPU: CuPy has no multiply.at, and its minimum.at / maximum.at atomics gave
    wrong float64 results on an H200 (CuPy 14.2). So the places are applied in rounds, each
    round taking the first remaining occurrence of every place (``unique``'s
    return_index: its sort is stable), no place twice in one assignment; there are as
    many rounds as the most repeated place has writes. Any strides (places unravelled).
    """
    places = _flat_places(xp, target.shape, where, values.shape)
    remaining = values.reshape(-1)
    while places.size:
        unique, first = xp.unique(places, return_index=True)
        index = xp.unravel_index(unique, target.shape)
        target[index] = combine(target[index], remaining[first])
        rest = xp.ones(places.size, dtype=bool)
        rest[first] = False
        places, remaining = places[rest], remaining[rest]
    return target


def _multiply_at(xp, target, where, values):
    """target[where] *= values with repeated places multiplied in turn (numpy.multiply.at)."""
    if xp is np:
        np.multiply.at(target, where, values)
        return target
    return _combine_in_rounds(xp, target, where, values, xp.multiply)


def _last_occurrences(xp, places):
    """(each of the 1-d ``places`` once, the position of its last occurrence): ``unique``
    of the reversed places gives each one's first position there (its sort is stable)."""
    unique, first_from_end = xp.unique(places[::-1], return_index=True)
    return unique, places.size - 1 - first_from_end


def _assign_at(xp, target, where, values):
    """target[where] = values, the last write winning at a repeated place (NumPy's order;
    CuPy leaves the winner undefined, so only each place's last value is written there)."""
    if xp is np:
        target[where] = values
        return target
    unique, last = _last_occurrences(xp, _flat_places(xp, target.shape, where, values.shape))
    target[xp.unravel_index(unique, target.shape)] = values.reshape(-1)[last]
    return target


def _along_axis_operands(xp, arr_shape, indices, axis, broadcast):
    """(the shape arr takes, the indices broadcast off the axis, the axis), as Paddle."""
    a = axis % len(arr_shape)
    if broadcast:
        off = tuple(1 if d == a else s for d, s in enumerate(arr_shape))
        off_i = tuple(1 if d == a else s for d, s in enumerate(indices.shape))
        common = tuple(max(p, q) if min(p, q) != 0 else 0 for p, q in zip(off, off_i))
        target_i = common[:a] + (indices.shape[a],) + common[a + 1:]
        target_arr = common[:a] + (arr_shape[a],) + common[a + 1:]
        return target_arr, xp.broadcast_to(indices, target_i), a
    return tuple(arr_shape), indices, a


def _positions(xp, indices, a):
    """The full index tuple naming, for each element of ``indices``, the element of arr it
    stands for: its own coordinates off the axis, its value along it."""
    shape = indices.shape
    tup = []
    for d, size in enumerate(shape):
        if d == a:
            tup.append(indices)
        else:
            view = [1] * len(shape)
            view[d] = size
            tup.append(xp.arange(size).reshape(view))
    return tuple(tup)


@register_kernel("take_along_axis", ALL_BACKENDS, ALL_TYPES)
def take_along_axis(ctx, arr, indices, axis, broadcast):
    """arr's elements picked along axis by indices (negative ones count from the end)."""
    xp = ctx.xp
    target, idx, a = _along_axis_operands(xp, arr.shape, indices, axis, broadcast)
    n = arr.shape[a]
    _check_range(ctx, idx, -n, n, "indices")
    source = xp.broadcast_to(arr, target) if broadcast else arr
    return source[_positions(xp, _wrapped(idx, n), a)]


@register_kernel("take_along_axis_grad", ALL_BACKENDS, NUMERIC)
def take_along_axis_grad(ctx, arr, indices, out_grad, axis, broadcast):
    """out_grad added back to where each element was taken, summed over arr's broadcasting."""
    xp = ctx.xp
    target, idx, a = _along_axis_operands(xp, arr.shape, indices, axis, broadcast)
    n = arr.shape[a]
    _check_range(ctx, idx, -n, n, "indices")
    grad = xp.zeros(target, dtype=out_grad.dtype)
    scatter_add(xp, grad, _positions(xp, _wrapped(idx, n), a), out_grad)
    return reduce_to_shape(grad, arr.shape)


@register_kernel("put_along_axis", ALL_BACKENDS, NUMERIC)
def put_along_axis(ctx, arr, indices, values, axis, reduce, include_self, broadcast, *, into=None):
    """A copy of arr with values reduced in at indices along axis (into arr itself when
    ``into`` is arr: see the module docstring). ``reduce``: 'assign' (the last write wins),
    'add', 'mul'/'multiply', 'mean', 'amin', 'amax'; with ``include_self=False`` the old
    values at the written places are left out of the reduction (Paddle's rule)."""
    xp = ctx.xp
    _, idx, a = _along_axis_operands(xp, arr.shape, indices, axis, broadcast)
    n = arr.shape[a]
    _check_range(ctx, idx, -n, n, "indices")
    where = _positions(xp, _wrapped(idx, n), a)
    if into is not arr:
        return copied_into(_put_along(xp, arr.copy(), where, xp.broadcast_to(values, idx.shape), reduce,
                                      include_self), into)
    # where is new arrays (the wrapped indices, aranges): only values may overlap into
    return _put_along(xp, into, where, xp.broadcast_to(apart(xp, into, values), idx.shape), reduce, include_self)


def _extremum_at(xp, out, where, values, name):
    """out[where] = name(out[where], values), repeated places reduced in turn (numpy's
    ``minimum.at`` / ``maximum.at``; on the GPU in rounds: see _combine_in_rounds)."""
    if xp is np:
        getattr(np, name).at(out, where, values)
        return
    _combine_in_rounds(xp, out, where, values, getattr(xp, name))


def _identity(dtype, name):
    """The value every element beats under minimum (its largest) or maximum (its smallest)."""
    if dtype.kind == "f":
        return np.inf if name == "minimum" else -np.inf
    info = np.iinfo(dtype)
    return info.max if name == "minimum" else info.min


def _write_counts(xp, shape, where, idx_shape):
    """How many values each element of an arr-shaped array is written by (int64)."""
    count = xp.zeros(shape, dtype=np.int64)
    scatter_add(xp, count, where, xp.ones(idx_shape, dtype=np.int64))
    return count


def _divide_exact(xp, total, denominator):
    """total / denominator in total's dtype: integers truncate toward zero (C's division, Paddle's)."""
    if total.dtype.kind in "iu":
        quotient = xp.abs(total) // denominator.astype(total.dtype)
        return xp.where(total < 0, -quotient, quotient).astype(total.dtype)
    return (total / denominator).astype(total.dtype)


def _put_along(xp, out, where, values, reduce, include_self=True):
    """out with values reduced in at ``where`` (out contiguous for mul): see put_along_axis."""
    if reduce == "assign":
        _assign_at(xp, out, where, values)
    elif reduce in ("add", "mean"):
        if not include_self:
            out[where] = 0
        if reduce == "mean":
            count = _write_counts(xp, out.shape, where, values.shape)
            denominator = xp.where(count > 0, count + int(include_self), 1)
        scatter_add(xp, out, where, values)
        if reduce == "mean":
            out[...] = _divide_exact(xp, out, denominator)
    elif reduce in ("amin", "amax"):
        name = "minimum" if reduce == "amin" else "maximum"
        if not include_self:
            out[where] = _identity(out.dtype, name)
        _extremum_at(xp, out, where, values, name)
    else:  # mul / multiply
        if not include_self:
            out[where] = 1
        _multiply_at(xp, out, where, values)
    return out


@register_kernel("put_along_axis_grad", ALL_BACKENDS, NUMERIC)
def put_along_axis_grad(ctx, arr, indices, values, out, out_grad, axis, reduce, include_self, broadcast, *,
                        out_mask=None):
    """Paddle's rules (its CPU kernel), per reduce:

    arr: zero where a value was written when include_self is False or reduce is 'assign';
    else 'add' passes out_grad through, 'mul' multiplies it by the product of the values
    written there, 'mean' divides it by (count + 1), and 'amin'/'amax' give it, divided
    among the ties, where arr's element is the extremum (0 where a value beat it).

    values: each gets its place's gradient ('add'; 'assign': only the value that was
    written last there, the one the result holds: the others it overwrote get 0, as in
    Paddle); divided by the place's count (+1 with include_self) for 'mean';
    times out / value for 'mul'; for 'amin'/'amax' the values equal to the extremum share
    it equally (with arr's element when include_self and it ties), the others get 0."""
    xp = ctx.xp
    _, idx, a = _along_axis_operands(xp, arr.shape, indices, axis, broadcast)
    n = arr.shape[a]
    _check_range(ctx, idx, -n, n, "indices")
    where = _positions(xp, _wrapped(idx, n), a)
    spread = xp.broadcast_to(values, idx.shape)
    dtype = out_grad.dtype
    count = _write_counts(xp, arr.shape, where, idx.shape) if reduce in ("mean", "amin", "amax") else None
    if reduce in ("amin", "amax"):
        hit = spread == out[where]                                     # values that are the extremum
        ties = xp.zeros(arr.shape, dtype=np.int64)
        scatter_add(xp, ties, where, hit.astype(np.int64))
        self_hit = out == arr if include_self else xp.zeros(arr.shape, dtype=bool)
    arr_grad = values_grad = None
    if want(out_mask, 0):
        if reduce == "assign" or not include_self:
            arr_grad = out_grad.copy()
            arr_grad[where] = 0
        elif reduce == "add":
            arr_grad = out_grad.copy()
        elif reduce == "mean":
            arr_grad = (out_grad / xp.where(count > 0, count + 1, 1)).astype(dtype)
        elif reduce in ("amin", "amax"):
            share = xp.where(self_hit, out_grad / (ties + 1), xp.zeros((), dtype=dtype))
            arr_grad = xp.where(count > 0, share, out_grad).astype(dtype)
        else:
            factor = xp.ones(arr.shape, dtype=dtype)
            _multiply_at(xp, factor, where, spread.astype(dtype))
            arr_grad = out_grad * factor
    if want(out_mask, 1):
        picked = out_grad[where]
        if reduce == "assign" and idx.size:
            _, last = _last_occurrences(xp, _flat_places(xp, arr.shape, where, idx.shape))
            won = xp.zeros(idx.size, dtype=bool)
            won[last] = True
            picked = xp.where(won.reshape(idx.shape), picked, xp.zeros((), dtype=dtype))
        elif reduce in ("mul", "multiply"):
            picked = picked * out[where] / spread
        elif reduce == "mean":
            picked = picked / (count + int(include_self))[where]
        elif reduce in ("amin", "amax"):
            sharers = (ties + self_hit)[where]
            picked = xp.where(hit, picked / xp.maximum(sharers, 1), xp.zeros((), dtype=dtype))
        values_grad = reduce_to_shape(picked.astype(dtype), values.shape)
    return arr_grad, values_grad


# -- masked ops ------------------------------------------------------------------------

@register_kernel("masked_fill", ALL_BACKENDS, ALL_TYPES)
def masked_fill(ctx, x, mask, value, *, into=None):
    """value where mask is True, x elsewhere (into x itself when ``into`` is x: see
    the module docstring; x, mask and value broadcast together, value has x's dtype)."""
    xp = ctx.xp
    if into is not x:
        return copied_into(xp.where(mask, value, x).astype(x.dtype, copy=False), into)
    xp.copyto(into, apart(xp, into, value), where=apart(xp, into, mask))
    return into


@register_kernel("masked_fill_grad", ALL_BACKENDS, NUMERIC)
def masked_fill_grad(ctx, x, mask, value, out_grad, *, out_mask=None):
    """out_grad where mask is False (for x); summed where it is True (for value)."""
    xp = ctx.xp
    zero = xp.zeros((), dtype=out_grad.dtype)
    x_grad = reduce_to_shape(xp.where(mask, zero, out_grad), x.shape) if want(out_mask, 0) else None
    value_grad = reduce_to_shape(xp.where(mask, out_grad, zero), value.shape) if want(out_mask, 1) else None
    return x_grad, value_grad


@register_kernel("masked_select", ALL_BACKENDS, ALL_TYPES)
def masked_select(ctx, x, mask):
    """The elements of the broadcast x where the broadcast mask is True, in row-major order."""
    xp = ctx.xp
    source, chosen = xp.broadcast_arrays(x, mask)
    return source[chosen]


def _check_selected_count(mask, out_grad, arg: str) -> None:
    count = int(mask.sum())
    if out_grad.shape != (count,):
        raise InvalidArgumentError(f"argument '{arg}' expected shape [{count}] (one per True of the mask), "
                                   f"got {list(out_grad.shape)}")


@register_kernel("masked_select_grad", ALL_BACKENDS, NUMERIC)
def masked_select_grad(ctx, x, mask, out_grad):
    """out_grad put back where the mask was True, summed over x's broadcasting."""
    xp = ctx.xp
    shape = np.broadcast_shapes(tuple(x.shape), mask.shape)
    chosen = xp.broadcast_to(mask, shape)
    if ctx.check_values:  # counting the mask reads a number back from the device
        _check_selected_count(chosen, out_grad, "out_grad")
    grad = xp.zeros(shape, dtype=out_grad.dtype)
    grad[chosen] = out_grad
    return reduce_to_shape(grad, x.shape)


@register_kernel("masked_scatter", ALL_BACKENDS, ALL_TYPES)
def masked_scatter(ctx, x, mask, value, *, into=None):
    """A copy of x with the True places of mask filled by value's first elements, in row-major
    order (into x itself when ``into`` is x: see the module docstring)."""
    xp = ctx.xp
    chosen = xp.broadcast_to(mask, x.shape)
    if ctx.check_values:  # the count is a read of device memory on a GPU: anomaly mode only there
        count = int(chosen.sum())
        if count > value.size:
            raise InvalidArgumentError(f"argument 'value' expected at least {count} elements (the number of "
                                       f"True in the mask), got {value.size}")
    if value.size == 0:  # then no place is chosen (or the check above was off)
        return x.copy() if into is None else copied_into(x, into)
    # The k-th chosen place (row-major) takes value's k-th element: its running count
    # says which, without reading the count back as out[chosen] = ... would.
    source = _chosen_positions(xp, chosen, value.size)
    picked = value.reshape(-1)[source].reshape(x.shape)  # a new array (an integer index copies)
    if into is not x:
        return copied_into(xp.where(chosen, picked, x), into)
    xp.copyto(into, picked, where=apart(xp, into, chosen))
    return into


def _chosen_positions(xp, chosen, limit):
    """For every place, the index of the value element a chosen place takes (its
    row-major rank among the chosen), clipped into [0, limit) for the others."""
    rank = xp.cumsum(chosen.reshape(-1), dtype=xp.int64) - 1
    return xp.clip(rank, 0, limit - 1)


@register_kernel("masked_scatter_grad", ALL_BACKENDS, NUMERIC)
def masked_scatter_grad(ctx, x, mask, value, out_grad, *, out_mask=None):
    """x's gradient is zero where the mask wrote; value's first count elements get the
    gradient of the place each went to, the rest (never read) zero."""
    xp = ctx.xp
    chosen = xp.broadcast_to(mask, out_grad.shape)
    x_grad = value_grad = None
    if want(out_mask, 0):
        x_grad = xp.where(chosen, xp.zeros((), dtype=out_grad.dtype), out_grad)
    if want(out_mask, 1):
        # value's k-th element went to the k-th chosen place: the first place whose running
        # count reaches k + 1. A gather (no scatter, so no repeated writes on a GPU); the
        # elements past the count were never read and get zero.
        running = xp.cumsum(chosen.reshape(-1), dtype=xp.int64)
        if running.size == 0:
            return x_grad, xp.zeros(value.shape, dtype=out_grad.dtype)
        places = xp.searchsorted(running, xp.arange(1, value.size + 1, dtype=xp.int64))
        read = places < running.size
        picked = out_grad.reshape(-1)[xp.minimum(places, running.size - 1)]
        value_grad = xp.where(read, picked, xp.zeros((), dtype=out_grad.dtype)).reshape(value.shape)
    return x_grad, value_grad


# -- scatter, index_add ----------------------------------------------------------------

@register_kernel("scatter", ALL_BACKENDS, ALL_TYPES)
def scatter(ctx, x, index, updates, overwrite, *, into=None):
    """A copy of x with rows replaced (overwrite) or zeroed and summed into (into x
    itself when ``into`` is x: see the module docstring)."""
    xp = ctx.xp
    flat = _flat_index(index)
    _check_range(ctx, flat, 0, x.shape[0], "index")
    if into is not x:
        return copied_into(_scatter_rows(xp, x.copy(), flat, updates, overwrite), into)
    return _scatter_rows(xp, into, apart(xp, into, flat), apart(xp, into, updates), overwrite)


def _scatter_rows(xp, out, flat, updates, overwrite):
    """out with the rows at flat replaced by updates (overwrite), or zeroed and summed into."""
    if overwrite:
        if xp is np or flat.size < 2:
            out[flat] = updates
        else:  # CuPy leaves the winner of a repeated row undefined: each row's last update, as the host
            rows, last = _last_occurrences(xp, flat)
            out[rows] = updates[last]
    else:  # Paddle: the indexed rows are zeroed, then every update adds into its row
        out[flat] = 0
        scatter_add(xp, out, flat, updates)
    return out


@register_kernel("scatter_grad", ALL_BACKENDS, NUMERIC)
def scatter_grad(ctx, index, updates, out_grad, overwrite, *, out_mask=None):
    """x's gradient is zero at the indexed rows (overwritten or zeroed, both modes);
    updates' is the gradient of the row each went to, gathered (Paddle's rule: with a
    repeated index under overwrite=True every update gets it, not only the last)."""
    flat = _flat_index(index)
    _check_range(ctx, flat, 0, out_grad.shape[0], "index")
    x_grad = updates_grad = None
    if want(out_mask, 0):
        x_grad = out_grad.copy()
        x_grad[flat] = 0
    if want(out_mask, 1):
        updates_grad = ctx.xp.take(out_grad, flat, axis=0)
    return x_grad, updates_grad


@register_kernel("index_add", ALL_BACKENDS, NUMERIC)
def index_add(ctx, x, index, value, axis, *, into=None):
    """A copy of x with value's slices added at index along axis (into x itself when
    ``into`` is x: see the module docstring)."""
    xp = ctx.xp
    a = axis % x.ndim
    _check_range(ctx, index, 0, x.shape[a], "index")
    if into is not x:
        out = x.copy()
        scatter_add(xp, out, _axis_slot(x.ndim, a, index), value)
        return copied_into(out, into)
    scatter_add(xp, into, _axis_slot(x.ndim, a, apart(xp, into, index)), apart(xp, into, value))
    return into


@register_kernel("index_add_grad", ALL_BACKENDS, NUMERIC)
def index_add_grad(ctx, index, value, out_grad, axis, *, out_mask=None):
    """out_grad for x; out_grad gathered at index along axis for value."""
    a = axis % out_grad.ndim
    _check_range(ctx, index, 0, out_grad.shape[a], "index")
    x_grad = out_grad if want(out_mask, 0) else None
    value_grad = ctx.xp.take(out_grad, index, axis=a) if want(out_mask, 1) else None
    return x_grad, value_grad


# -- gather_nd, scatter_nd, scatter_nd_add ------------------------------------------------

def _nd_coordinates(ctx, index, shape, arg="index"):
    """index[..., k] as a tuple of k coordinate arrays into the first k dimensions of shape."""
    k = index.shape[-1]
    coords = []
    for j in range(k):
        column = index[..., j]
        _check_range(ctx, column, -shape[j], shape[j], arg, f" (coordinate {j} of its last dimension)")
        coords.append(_wrapped(column, shape[j]))
    return tuple(coords)


def _add_nd(ctx, out, index, updates):
    xp = ctx.xp
    coords = _nd_coordinates(ctx, index, out.shape)
    if coords:
        scatter_add(xp, out, coords, updates)
    else:  # empty coordinates name all of out: every update adds to the whole
        lead = tuple(range(updates.ndim - out.ndim))
        out += updates.sum(axis=lead, dtype=out.dtype) if lead else updates
    return out


@register_kernel("gather_nd", ALL_BACKENDS, ALL_TYPES)
def gather_nd(ctx, x, index):
    """The slices of x at the coordinates in index's last dimension."""
    coords = _nd_coordinates(ctx, index, x.shape)
    if coords:
        return x[coords]
    return ctx.xp.broadcast_to(x, index.shape[:-1] + x.shape).copy()


@register_kernel("gather_nd_grad", ALL_BACKENDS, NUMERIC)
def gather_nd_grad(ctx, x, index, out_grad):
    """out_grad added into zeros shaped like x at the coordinates in index."""
    xp = ctx.xp
    return _add_nd(ctx, xp.zeros(x.shape, dtype=out_grad.dtype), index, out_grad)


@register_kernel("scatter_nd_add", ALL_BACKENDS, NUMERIC)
def scatter_nd_add(ctx, x, index, updates):
    """A copy of x with updates added at the coordinates in index."""
    return _add_nd(ctx, x.copy(), index, updates)


@register_kernel("scatter_nd_add_grad", ALL_BACKENDS, NUMERIC)
def scatter_nd_add_grad(ctx, index, updates, out_grad, *, out_mask=None):
    """out_grad for x; out_grad gathered at the coordinates for updates."""
    x_grad = out_grad if want(out_mask, 0) else None
    updates_grad = gather_nd(ctx, out_grad, index) if want(out_mask, 1) else None
    return x_grad, updates_grad


@register_kernel("scatter_nd", ALL_BACKENDS, NUMERIC)
def scatter_nd(ctx, index, updates, shape):
    """Zeros of the given shape with updates added at the coordinates in index."""
    xp = ctx.xp
    return _add_nd(ctx, xp.zeros(tuple(shape), dtype=updates.dtype), index, updates)


@register_kernel("scatter_nd_grad", ALL_BACKENDS, NUMERIC)
def scatter_nd_grad(ctx, index, out_grad):
    """out_grad gathered at the coordinates in index."""
    return gather_nd(ctx, out_grad, index)


# -- nonzero, index_put ------------------------------------------------------------------

@register_kernel("nonzero", ALL_BACKENDS, ALL_TYPES)
def nonzero(ctx, x):
    """The coordinates of the non-zero elements, int64 [count, ndim], row-major."""
    xp = ctx.xp
    if x.ndim == 0:  # a 0-d tensor has one element and no coordinates
        return xp.zeros((int(x != 0), 0), dtype=xp.int64)
    return xp.stack(xp.nonzero(x), axis=1).astype(xp.int64, copy=False)


def _put_index(ctx, shape, indices):
    """indices as a NumPy advanced index, every integer one checked against its dimension."""
    out = []
    dim = 0
    for k, index in enumerate(indices):
        if index.dtype == bool:
            out.append(index)
            dim += index.ndim
        else:
            _check_range(ctx, index, -shape[dim], shape[dim], "indices", f" (element {k}, for dimension {dim})")
            out.append(index)
            dim += 1
    return tuple(out)


def _put_region(xp, x, where):
    """The shape of x[where], without gathering it: the index arrays broadcast together
    (a bool mask stands for its count of True, read back on a GPU as x[where] would),
    then x's dimensions after the indexed ones. A 0-d mask: NumPy's own answer."""
    shapes, consumed = [], 0
    for index in where:
        if index.dtype != bool:
            shapes.append(index.shape)
            consumed += 1
        elif index.ndim == 0:
            return x[where].shape
        else:
            shapes.append((int(xp.count_nonzero(index)),))
            consumed += index.ndim
    try:
        return np.broadcast_shapes(*shapes) + tuple(x.shape[consumed:])
    except ValueError:  # a mask's count that does not broadcast with the other indices
        raise InvalidArgumentError(
            f"argument 'indices' holds indices of shapes {[list(s) for s in shapes]} (a bool mask counted "
            f"by its True entries) that do not broadcast together") from None


def _empty(shape) -> bool:
    return any(d == 0 for d in shape)


@register_kernel("index_put", ALL_BACKENDS, ALL_TYPES)
def index_put(ctx, x, indices, value, accumulate, *, into=None):
    """A copy of x with x[indices] assigned (or added, accumulate) from value (into x
    itself when ``into`` is x: see the module docstring)."""
    xp = ctx.xp
    where = _put_index(ctx, x.shape, indices)
    region = _put_region(xp, x, where)
    if value.shape != region:
        if _empty(region):  # nothing is written (an all-False mask): Paddle takes any value then
            return into if into is x else copied_into(x.copy(), into)
        try:
            np.broadcast_shapes(value.shape, region)
        except ValueError:
            raise InvalidArgumentError(
                f"argument 'value' of shape {list(value.shape)} cannot be broadcast to x[indices], of shape "
                f"{list(region)} (a bool mask counted by its True entries)") from None
    if into is x:
        out, where, value = into, tuple(apart(xp, into, w) for w in where), apart(xp, into, value)
    else:
        out = x.copy()
    value = xp.broadcast_to(value, region) if value.shape != region else value
    if accumulate:
        scatter_add(xp, out, where, value)
    else:
        out[where] = value
    return out if into is x else copied_into(out, into)


@register_kernel("index_put_grad", ALL_BACKENDS, NUMERIC)
def index_put_grad(ctx, x, indices, value, out_grad, accumulate, *, out_mask=None):
    """x's gradient is zero where values were written (unless accumulate); value's is the
    gradient of the places it went to, summed over its broadcast dimensions."""
    where = _put_index(ctx, out_grad.shape, indices)
    x_grad = value_grad = None
    if want(out_mask, 0):
        x_grad = out_grad.copy()
        if not accumulate:
            x_grad[where] = 0
    if want(out_mask, 1):
        picked = out_grad[where]
        # nothing was written (an all-False mask): value reached no place
        if _empty(picked.shape) and value.shape != picked.shape:
            value_grad = ctx.xp.zeros(value.shape, dtype=out_grad.dtype)
        else:
            value_grad = reduce_to_shape(picked, value.shape)
        if value.dtype != out_grad.dtype:  # a real value of a complex x: the real part, in value's dtype
            value_grad = value_grad.real.astype(value.dtype)
    return x_grad, value_grad
