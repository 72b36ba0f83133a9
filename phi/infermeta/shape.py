"""InferMeta of view ops (squeeze, unsqueeze, flatten) and of indexing."""
from __future__ import annotations

import numpy as np

from ..core.errors import ElementIndexError, InvalidArgumentError
from ..core.kernel_registry import SignatureCache
from .checks import MAX_DIMS, normalize_axis


def squeeze_infer_meta(x, axis, out) -> None:
    """Drops the given size-1 axes (all size-1 axes when axis is empty)."""
    dims = tuple(x.dims)
    if axis:
        # Paddle ignores listed axes whose size is not 1, and an axis listed twice.
        ndim = len(dims)
        drop = {a for a in (normalize_axis("axis", a, ndim) for a in axis) if ndim and dims[a] == 1}
    else:
        drop = {i for i, d in enumerate(dims) if d == 1}
    out.dims = tuple(d for i, d in enumerate(dims) if i not in drop)
    out.dtype = x.dtype
    out.layout = x.layout


def unsqueeze_positions(ndim: int, axis) -> tuple:
    """Where unsqueeze's new size-1 axes land in the result, ascending.

    Paddle inserts them one at a time in the order given, each axis read against the
    shape built so far (a negative one counts from its end: -1 appends), so [2, 0] on
    a 2-d x gives positions (0, 3), not NumPy's (0, 2), and a repeated axis inserts
    twice."""
    marks = [False] * ndim
    for a in axis:
        rank = len(marks)
        if not -(rank + 1) <= a <= rank:
            raise InvalidArgumentError(
                f"argument 'axis' expected positions in [{-(rank + 1)}, {rank}] for the {rank}-d shape "
                f"built so far (axes are inserted in order), got {a} in {list(axis)}")
        marks.insert(a + rank + 1 if a < 0 else a, True)
    return tuple(i for i, mark in enumerate(marks) if mark)


def unsqueeze_infer_meta(x, axis, out) -> None:
    """Inserts size-1 axes at the given positions, one after another (Paddle's order)."""
    dims = list(x.dims)
    if len(dims) + len(axis) > MAX_DIMS:  # a list of 100,000 axes must fail fast
        raise InvalidArgumentError(
            f"argument 'axis' inserts {len(axis)} axes into {len(dims)}; the result may have at "
            f"most {MAX_DIMS} dimensions")
    for p in unsqueeze_positions(len(dims), axis):
        dims.insert(p, 1)
    out.dims = tuple(dims)
    out.dtype = x.dtype
    out.layout = x.layout


def flatten_infer_meta(x, start_axis, stop_axis, out) -> None:
    """Merges the axes start_axis..stop_axis (inclusive) into one."""
    dims = tuple(x.dims)
    if not dims:
        for arg, value in (("start_axis", start_axis), ("stop_axis", stop_axis)):
            if value not in (0, -1):
                raise InvalidArgumentError(
                    f"argument '{arg}' expected 0 or -1 for a 0-d x, got {value}")
        out.dims = (1,)
    else:
        start = normalize_axis("start_axis", start_axis, len(dims))
        stop = normalize_axis("stop_axis", stop_axis, len(dims))
        if start > stop:
            raise InvalidArgumentError(
                f"argument 'start_axis' ({start_axis}) must not come after 'stop_axis' ({stop_axis}) "
                f"for x of shape {list(dims)}"
            )
        merged = 1
        for d in dims[start:stop + 1]:
            merged *= d
        out.dims = dims[:start] + (merged,) + dims[stop + 1:]
    out.dtype = x.dtype
    out.layout = x.layout


_BASIC_INDEX_TYPES = frozenset((int, slice, type(None), type(Ellipsis)))


def split_index(index: tuple, ndim: int):
    """``(basic, rest)`` with x[index] read as Paddle and PyTorch read it equal to
    x[basic][rest] in NumPy, for an index where NumPy reads it otherwise; None for
    any other index (most: no index array, or no int and no Ellipsis beside one).

    Paddle and PyTorch apply the ints first, as basic indexing (each removes its
    axis), and NumPy's advanced-indexing rules only to what is left, so "advanced
    indices separated by a slice go first" is judged after the ints are gone: for
    x of shape [2, 3, 4, 5], x[0, :, [0, 1]] has shape [3, 2, 5] (NumPy, where an
    int is an advanced index too, gives [2, 3, 5]). Likewise an Ellipsis that
    stands for no axis separates nothing there (NumPy counts it as a separator).
    ``basic`` is the ints with a full slice for every other axis (a bool mask spans
    its rank's axes, a bool scalar none; Ellipsis kept, None dropped, a trailing
    Ellipsis so that it is always a view); ``rest`` is the index without its ints.
    x[basic] is a view, so x[basic][rest] = value writes into x."""
    if len(index) < 2:  # x[i], x[mask]: the hot single-item indices, never affected
        return None
    for item in index:  # the hot basic indices (x[:, 1:], x[i, j]) leave here
        if type(item) not in _BASIC_INDEX_TYPES:
            break
    else:
        return None
    has_int = has_array = False
    ellipses = 0
    for item in index:
        kind = type(item)
        if kind is int:
            has_int = True
        elif kind is bool or hasattr(item, "dtype"):
            has_array = True
        elif item is Ellipsis:
            ellipses += 1
    if not has_array or not (has_int or ellipses == 1):
        return None
    if ellipses == 1:
        consumed = 0
        for item in index:
            if hasattr(item, "dtype"):
                consumed += item.ndim if item.dtype == bool else 1
            elif type(item) is not bool and item is not None and item is not Ellipsis:
                consumed += 1
        if consumed == ndim:  # an Ellipsis of no axis: dropped, so it separates nothing
            index = tuple(item for item in index if item is not Ellipsis)
        elif not has_int:
            return None
        if not has_int:
            return (Ellipsis,), index
    basic, rest = [], []
    for item in index:
        kind = type(item)
        if kind is int:
            basic.append(item)
            continue
        rest.append(item)
        if item is Ellipsis:
            basic.append(item)
        elif kind is slice:
            basic.append(slice(None))
        elif hasattr(item, "dtype"):
            basic.extend([slice(None)] * (item.ndim if item.dtype == bool else 1))
    if not any(item is Ellipsis for item in basic):
        basic.append(Ellipsis)
    return tuple(basic), tuple(rest)


def indexed_dims(arg: str, dims, index) -> tuple:
    """The shape of x[index], found by indexing a zero-stride stand-in of x (no data);
    an index with index arrays is read as Paddle reads it (split_index)."""
    stand_in = np.broadcast_to(np.empty((), dtype=np.int8), tuple(dims))
    try:
        split = split_index(index, len(dims))
        if split is not None:
            return stand_in[split[0]][split[1]].shape
        return stand_in[index].shape
    except IndexError as error:
        if str(error).startswith("shape mismatch"):  # index arrays that do not broadcast: Paddle's ValueError
            raise InvalidArgumentError(
                f"argument '{arg}' {_describe_index(index)} cannot index x of shape {list(dims)}: {error}"
            ) from None
        # An IndexError as Python's indexing raises, and a ValueError as Paddle 2.6.2 raises
        # for an index array past the axis, too many index arrays or a second Ellipsis.
        raise ElementIndexError(
            f"argument '{arg}' {_describe_index(index)} cannot index x of shape {list(dims)}: {error}"
        ) from None
    except (TypeError, ValueError) as error:
        raise InvalidArgumentError(
            f"argument '{arg}' {_describe_index(index)} cannot index x of shape {list(dims)}: {error}"
        ) from None


def _describe_index(index) -> str:
    parts = []
    for item in index:
        if isinstance(item, np.ndarray):
            parts.append(f"{item.dtype} array of shape {list(item.shape)}")
        else:
            parts.append(repr(item))
    return "(" + ", ".join(parts) + ")"


def getitem_infer_meta(x, index, out) -> None:
    out.dims = indexed_dims("index", x.dims, index)
    out.dtype = x.dtype
    out.layout = x.layout


# Calls of setitem_infer_meta that passed, by _setitem_signature (bounded, oldest dropped first).
_SETITEM_PASSED = SignatureCache("setitem_infer_meta")


def _setitem_signature(x, value, index):
    """What setitem_infer_meta reads, as one hashable tuple: x's and value's dims
    and dtypes, and each index item's type and value (a slice's fields with
    their types: 1 and True, or 1 and 1.0, index differently). None when the
    index is not a tuple or holds an array (or anything unhashable): such a call
    is checked in full."""
    if type(index) is not tuple:  # a list is a fancy index, not these items
        return None
    key = [tuple(x.dims), x.dtype, tuple(value.dims), value.dtype]
    for item in index:
        kind = type(item)
        if kind is slice:
            start, stop, step = item.start, item.stop, item.step
            key += (slice, type(start), start, type(stop), stop, type(step), step)
        elif kind is int or kind is bool or item is None or item is Ellipsis:
            key += (kind, item)
        else:
            return None
    return tuple(key)


def setitem_infer_meta(x, value, index, out) -> None:
    """x with x[index] = value: value must broadcast to x[index] and share x's dtype.

    A call whose index holds only ints, slices, None and Ellipsis is remembered
    once it passed (_setitem_signature); a repeat of it (same dims, dtypes and
    index) sets ``out`` without checking again. Anything else is checked in
    full, with the same errors."""
    try:
        signature = _setitem_signature(x, value, index)
        if signature is not None and signature in _SETITEM_PASSED:
            out.dims, out.dtype, out.layout = tuple(x.dims), x.dtype, x.layout
            return
    except TypeError:  # an unhashable slice field: checked in full
        signature = None
    _check_setitem(x, value, index)
    out.dims = tuple(x.dims)
    out.dtype = x.dtype
    out.layout = x.layout
    if signature is not None:
        _SETITEM_PASSED.remember(signature, True)


def _check_setitem(x, value, index) -> None:
    """setitem_infer_meta's checks: the index fits x, value broadcasts to x[index]
    and shares x's dtype."""
    target = indexed_dims("index", x.dims, index)
    if value.dtype is not x.dtype:
        raise InvalidArgumentError(
            f"argument 'value' expected dtype {x.dtype} (that of x), got {value.dtype}"
        )
    dims = tuple(value.dims)
    while len(dims) > len(target) and dims[0] == 1:
        dims = dims[1:]  # leading size-1 dimensions drop, as NumPy and Paddle allow
    try:
        fits = np.broadcast_shapes(dims, target) == target
    except ValueError:
        fits = False
    if not fits:
        raise InvalidArgumentError(
            f"argument 'value' of shape {list(value.dims)} cannot be broadcast to the indexed "
            f"region of shape {list(target)}"
        )


def setitem_grad_infer_meta(value, out_grad, x_grad, value_grad) -> None:
    x_grad.share_meta(out_grad)
    value_grad.share_meta(value)
