"""InferMeta of the rearrange ops (group rearrange of phi/kernels): ops that move,
repeat or select elements without arithmetic, and their gradients.

The bound helpers (``slice_bounds``, ``strided_bounds``, ``repeat_counts``) are
shared with the kernels, so the shape InferMeta promises and the elements a
kernel picks come from one rule.
"""
from __future__ import annotations

from ..common import convert_dtype
from ..core.errors import AssertedAxisError, InvalidArgumentError
from ..core.meta_tensor import MetaTensor
from .checks import MAX_DIMS, broadcast_dims, check_result_shape, normalize_axis

__all__ = [
    "tile_infer_meta", "tile_grad_infer_meta", "flip_infer_meta", "slice_infer_meta", "slice_grad_infer_meta",
    "roll_infer_meta", "expand_as_infer_meta", "expand_as_grad_infer_meta", "broadcast_tensors_infer_meta",
    "moveaxis_infer_meta", "moveaxis_grad_infer_meta", "t_infer_meta", "unstack_infer_meta", "repeat_interleave_infer_meta",
    "repeat_interleave_grad_infer_meta", "strided_slice_infer_meta", "strided_slice_grad_infer_meta",
    "rot90_infer_meta", "moveaxis_permutation", "repeat_counts", "slice_bounds", "slice_index",
    "strided_bounds", "strided_index", "tensor_split_bounds", "tensor_split_infer_meta",
    "tensor_split_grad_infer_meta", "as_strided_infer_meta", "as_strided_grad_infer_meta",
    "strided_positions_reach", "view_dtype_infer_meta",
]


def _set(out, dims, like) -> None:
    out.dims = tuple(dims)
    out.dtype = like.dtype
    out.layout = like.layout


def _distinct_axes(arg: str, axes, ndim: int) -> list:
    """Each axis of ``axes`` in [0, ndim), in the given order; a repeat is an error."""
    seen = []
    for axis in axes:
        a = normalize_axis(arg, axis, ndim)
        if a in seen:
            raise InvalidArgumentError(f"argument '{arg}' lists axis {axis} more than once: {list(axes)}")
        seen.append(a)
    return seen


def _same_length(op_args: dict) -> None:
    lengths = {name: len(values) for name, values in op_args.items()}
    if len(set(lengths.values())) > 1:
        listed = ", ".join(f"'{name}' has {n}" for name, n in lengths.items())
        raise InvalidArgumentError(f"arguments {', '.join(repr(n) for n in lengths)} expected one entry per "
                                   f"axis each, but {listed}")


def _grad_of(forward_infer, x, attrs, out_grad, x_grad) -> None:
    """x_grad shaped like x, after checking that out_grad is what the forward op
    gives for x (a backward op called directly with a wrong out_grad says so)."""
    forward = MetaTensor()
    forward_infer(x, *attrs, forward)
    if tuple(out_grad.dims) != tuple(forward.dims) or out_grad.dtype is not forward.dtype:
        raise InvalidArgumentError(
            f"argument 'out_grad' expected {forward.dtype}{list(forward.dims)} (the forward op's "
            f"result), got {out_grad.dtype}{list(out_grad.dims)}")
    _set(x_grad, x.dims, x)


# -- tile ----------------------------------------------------------------------------

def tile_infer_meta(x, repeat_times, out) -> None:
    """x repeated along each axis; the shorter of x's shape and repeat_times is
    padded with 1s in front (a longer repeat_times adds leading axes)."""
    dims, reps = tuple(x.dims), tuple(repeat_times)
    if len(reps) > MAX_DIMS:
        raise InvalidArgumentError(f"argument 'repeat_times' has {len(reps)} entries; at most {MAX_DIMS} "
                                   f"dimensions are supported")
    bad = [r for r in reps if r <= 0]
    if bad:
        raise InvalidArgumentError(f"argument 'repeat_times' expected positive integers, got {list(reps)}")
    n = max(len(dims), len(reps))
    dims = (1,) * (n - len(dims)) + dims
    reps = (1,) * (n - len(reps)) + reps
    _set(out, (d * r for d, r in zip(dims, reps)), x)
    check_result_shape("repeat_times", out.dims, out.dtype)


def tile_grad_infer_meta(x, out_grad, repeat_times, x_grad) -> None:
    """x_grad shaped like x; out_grad must be tile's result for x."""
    _grad_of(tile_infer_meta, x, (repeat_times,), out_grad, x_grad)


# -- flip, roll, rot90, moveaxis, t -----------------------------------------------------

def flip_infer_meta(x, axis, out) -> None:
    """Reverses the listed axes (none when the list is empty). A value listed twice is
    an error; two spellings of one axis ([0, -3] on a 3-d x) reverse it once, as in Paddle."""
    ndim = len(x.dims)
    seen = set()
    for a in axis:
        normalize_axis("axis", a, ndim)
        if a in seen:
            raise InvalidArgumentError(f"argument 'axis' lists axis {a} more than once: {list(axis)}")
        seen.add(a)
    _set(out, x.dims, x)


def roll_infer_meta(x, shifts, axis, out) -> None:
    """Without axis (None or empty), x is rolled as if flattened, by one shift;
    with axes, one shift per axis."""
    ndim = len(x.dims)
    if not axis:
        if len(shifts) != 1:
            raise InvalidArgumentError(
                f"argument 'shifts' expected one shift when axis is None (x is rolled as if flattened), "
                f"got {list(shifts)}")
    else:
        _same_length({"shifts": shifts, "axis": axis})
        for a in axis:
            normalize_axis("axis", a, ndim)
    _set(out, x.dims, x)


def rot90_infer_meta(x, k, axes, out) -> None:
    """Rotates the plane of the two axes by k quarter turns (from the first axis
    towards the second); their sizes swap when k is odd."""
    dims = tuple(x.dims)
    if len(axes) != 2:
        raise InvalidArgumentError(f"argument 'axes' expected two axes, got {list(axes)}")
    if len(dims) < 2:
        raise InvalidArgumentError(f"argument 'x' expected a tensor of at least 2 dimensions, got shape "
                                   f"{list(dims)}")
    a, b = _distinct_axes("axes", axes, len(dims))
    out_dims = list(dims)
    if k % 2:
        out_dims[a], out_dims[b] = dims[b], dims[a]
    _set(out, out_dims, x)


def moveaxis_permutation(source, destination, ndim: int) -> list:
    """The transpose permutation that moves axes ``source`` to positions ``destination``."""
    src = _distinct_axes("source", source, ndim)
    dst = _distinct_axes("destination", destination, ndim)
    if ndim == 0:  # axis 0 / -1 of a 0-d x names the tensor itself: nothing moves
        return []
    perm = [a for a in range(ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return perm


def moveaxis_infer_meta(x, source, destination, out) -> None:
    """Moves the axes in source to the positions in destination; the others keep their order."""
    dims = tuple(x.dims)
    _same_length({"source": source, "destination": destination})
    perm = moveaxis_permutation(source, destination, len(dims))
    _set(out, (dims[p] for p in perm), x)


def moveaxis_grad_infer_meta(out_grad, source, destination, x_grad) -> None:
    """moveaxis back: the axes at destination return to source."""
    moveaxis_infer_meta(out_grad, destination, source, x_grad)


def t_infer_meta(input, out) -> None:
    """A 0-d or 1-d tensor as it is, a 2-d one transposed; more dimensions are an error (as in Paddle)."""
    dims = tuple(input.dims)
    if len(dims) > 2:
        raise InvalidArgumentError(f"argument 'input' expected a tensor of at most 2 dimensions, got shape "
                                   f"{list(dims)}; use transpose or moveaxis")
    _set(out, dims[::-1], input)


# -- slice and strided_slice -------------------------------------------------------------

def slice_bounds(dim: int, start: int, end: int) -> tuple:
    """Paddle's slice rule: a negative index counts from the end, then both are
    clamped into [0, dim]; an end before the start selects nothing."""
    start = start + dim if start < 0 else start
    end = end + dim if end < 0 else end
    start = min(max(start, 0), dim)
    end = min(max(end, start), dim)
    return start, end


def _slice_axes(x, axes, starts, ends) -> list:
    _same_length({"axes": axes, "starts": starts, "ends": ends})
    return _distinct_axes("axes", axes, len(x.dims))


def slice_infer_meta(input, axes, starts, ends, out) -> None:
    """input[starts:ends] along each of axes, with Paddle's clamping."""
    dims = list(input.dims)
    if axes and not dims:
        raise InvalidArgumentError("argument 'input' is 0-d and has no axis to slice")
    for a, start, end in zip(_slice_axes(input, axes, starts, ends), starts, ends):
        lo, hi = slice_bounds(dims[a], start, end)
        dims[a] = hi - lo
    _set(out, dims, input)


def slice_grad_infer_meta(input, out_grad, axes, starts, ends, input_grad) -> None:
    """input_grad shaped like input; out_grad must be slice's result for input."""
    _grad_of(slice_infer_meta, input, (axes, starts, ends), out_grad, input_grad)


def strided_bounds(dim: int, start: int, end: int, stride: int) -> tuple:
    """(start, end, count) of Paddle's strided slice: negative indices count from
    the end; with a positive stride both clamp into [0, dim], with a negative one
    into [-1, dim - 1] (-1: past the first element)."""
    start = start + dim if start < 0 else start
    end = end + dim if end < 0 else end
    if stride > 0:
        start, end = min(max(start, 0), dim), min(max(end, 0), dim)
        count = max(0, -(-(end - start) // stride))
    else:
        start, end = min(max(start, -1), dim - 1), min(max(end, -1), dim - 1)
        count = max(0, -(-(start - end) // -stride))
    return start, end, count


def strided_slice_infer_meta(x, axes, starts, ends, strides, out) -> None:
    """x[starts:ends:strides] along each of axes (a stride may be negative, never 0)."""
    dims = list(x.dims)
    _same_length({"axes": axes, "starts": starts, "ends": ends, "strides": strides})
    if axes and not dims:
        raise InvalidArgumentError("argument 'x' is 0-d and has no axis to slice")
    if 0 in strides:
        raise InvalidArgumentError(f"argument 'strides' expected non-zero strides, got {list(strides)}")
    for a, start, end, stride in zip(_distinct_axes("axes", axes, len(dims)), starts, ends, strides):
        dims[a] = strided_bounds(dims[a], start, end, stride)[2]
    _set(out, dims, x)


def strided_slice_grad_infer_meta(x, out_grad, axes, starts, ends, strides, x_grad) -> None:
    """x_grad shaped like x; out_grad must be strided_slice's result for x."""
    _grad_of(strided_slice_infer_meta, x, (axes, starts, ends, strides), out_grad, x_grad)


def slice_index(shape, axes, starts, ends) -> tuple:
    """The basic NumPy index that paddle.slice takes from an array of ``shape``."""
    index = [slice(None)] * len(shape)
    for axis, start, end in zip(axes, starts, ends):
        a = axis % len(shape)
        index[a] = slice(*slice_bounds(shape[a], start, end))
    return tuple(index)


def strided_index(shape, axes, starts, ends, strides) -> tuple:
    """The basic NumPy index that strided_slice takes from an array of ``shape``."""
    index = [slice(None)] * len(shape)
    for axis, start, end, stride in zip(axes, starts, ends, strides):
        a = axis % len(shape)
        lo, _, count = strided_bounds(shape[a], start, end, stride)
        stop = min(lo + count * stride, shape[a])  # capped: a huge stride must not overflow NumPy's index
        # A stop before the first element is None: -1 as a Python stop would mean the last one.
        index[a] = slice(lo, stop if stop >= 0 else None, stride) if count else slice(0, 0)
    return tuple(index)


# -- expand_as, broadcast_tensors ------------------------------------------------------

def expand_as_infer_meta(x, y, out) -> None:
    """x broadcast to y's shape: y has as many dimensions as x or more, and each
    of x's is 1 or equal to y's (only y's shape is read)."""
    dims, target = tuple(x.dims), tuple(y.dims)
    lead = len(target) - len(dims)
    if lead < 0 or any(d not in (1, target[i + lead]) for i, d in enumerate(dims)):
        raise InvalidArgumentError(
            f"argument 'y' of shape {list(target)} is not a shape x of shape {list(dims)} can expand to "
            f"(each dimension of x must be 1 or equal to y's, counted from the last)")
    _set(out, target, x)


def expand_as_grad_infer_meta(x, y, out_grad, x_grad) -> None:
    """x_grad shaped like x; out_grad must be shaped like y, with x's dtype."""
    _grad_of(expand_as_infer_meta, x, (y,), out_grad, x_grad)


def broadcast_tensors_infer_meta(input, out) -> None:
    """Every tensor of input broadcast to their common shape (one dtype for all)."""
    if not input:
        raise InvalidArgumentError("argument 'input' expected at least one tensor, got an empty list")
    dims = tuple(input[0].dims)
    for i, t in enumerate(input):
        if t.dtype is not input[0].dtype:
            raise InvalidArgumentError(f"argument 'input' expected tensors of one dtype, but input[0] is "
                                       f"{input[0].dtype} and input[{i}] is {t.dtype}")
        try:
            dims = broadcast_dims("input", dims, f"input[{i}]", tuple(t.dims))
        except InvalidArgumentError:
            raise InvalidArgumentError(
                f"argument 'input': input[{i}] of shape {list(t.dims)} cannot be broadcast with "
                f"{list(dims)}, the common shape of input[:{i}]") from None
    for t in input:
        out.append(MetaTensor(dims, t.dtype, t.layout))


# -- unstack ---------------------------------------------------------------------------

def unstack_infer_meta(x, axis, num, out) -> None:
    """The slices of x along axis; num, when given, must be that axis' size."""
    dims = tuple(x.dims)
    if not dims:
        raise InvalidArgumentError("argument 'x' is 0-d and cannot be unstacked")
    a = normalize_axis("axis", axis, len(dims))
    if num is not None and num != dims[a]:
        raise InvalidArgumentError(f"argument 'num' = {num} must equal the size {dims[a]} of axis {axis} of x "
                                   f"(shape {list(dims)}), or be None")
    for _ in range(dims[a]):
        out.append(MetaTensor(dims[:a] + dims[a + 1:], x.dtype, x.layout))


# -- tensor_split ---------------------------------------------------------------------------

MAX_PIECES = 1 << 20  # a list output of more tensors than this is a mistake, not a split


def tensor_split_bounds(dims, num_or_indices, axis) -> tuple:
    """(axis, [(start, end), ...]): the pieces of tensor_split along the axis.

    An int n gives n pieces, the first ``size % n`` of them one longer; a list of
    indices cuts before each, every piece read as a slice from the previous index
    to this one (negative indices count from the end, out-of-range ones clamp, and
    a smaller index than the previous gives an empty piece, as in Paddle and NumPy).
    """
    if not dims:
        # Paddle asserts rank(x) + axis >= 0 (AssertionError) or checks the axis (ValueError)
        raise AssertedAxisError("argument 'x' is 0-d and cannot be split")
    a = normalize_axis("axis", axis, len(dims))
    size = dims[a]
    if isinstance(num_or_indices, int):
        n = num_or_indices
        if n <= 0:
            raise InvalidArgumentError(f"argument 'num_or_indices' expected a positive number of pieces, got {n}")
        if n > MAX_PIECES:
            raise InvalidArgumentError(f"argument 'num_or_indices' asks for {n} pieces; at most {MAX_PIECES} "
                                       f"are supported")
        bounds, start = [], 0
        for i in range(n):
            length = size // n + (1 if i < size % n else 0)
            bounds.append((start, start + length))
            start += length
        return a, bounds
    cuts = [0] + list(num_or_indices) + [size]
    return a, [slice_bounds(size, lo, hi) for lo, hi in zip(cuts[:-1], cuts[1:])]


def tensor_split_infer_meta(x, num_or_indices, axis, out) -> None:
    """The pieces of x along axis (see tensor_split_bounds)."""
    dims = tuple(x.dims)
    a, bounds = tensor_split_bounds(dims, num_or_indices, axis)
    for lo, hi in bounds:
        out.append(MetaTensor(dims[:a] + (hi - lo,) + dims[a + 1:], x.dtype, x.layout))


def tensor_split_grad_infer_meta(x, out_grad, num_or_indices, axis, x_grad) -> None:
    """x_grad shaped like x; out_grad must be the pieces tensor_split gives for x."""
    pieces = []
    tensor_split_infer_meta(x, num_or_indices, axis, pieces)
    got = [f"{g.dtype}{list(g.dims)}" for g in out_grad]
    want = [f"{p.dtype}{list(p.dims)}" for p in pieces]
    if got != want:
        raise InvalidArgumentError(f"argument 'out_grad' expected {want} (the forward op's results), got {got}")
    _set(x_grad, x.dims, x)


# -- repeat_interleave --------------------------------------------------------------------

def repeat_counts(dims, repeats, axis) -> tuple:
    """(axis, counts): the axis repeated (0 of the flattened x when axis is None, or
    for a 0-d x) and how often each of its elements repeats."""
    if axis is None or not dims:
        if axis is not None:
            normalize_axis("axis", axis, 0)
        length, a = 1, 0
        for d in dims:
            length *= d
    else:
        a = normalize_axis("axis", axis, len(dims))
        length = dims[a]
    repeats = list(repeats)
    if any(r < 0 for r in repeats):
        raise InvalidArgumentError(f"argument 'repeats' expected non-negative counts, got {repeats}")
    if len(repeats) == 1:
        return a, repeats * length
    if len(repeats) != length:
        raise InvalidArgumentError(
            f"argument 'repeats' expected one count, or one per element of the axis ({length}), got "
            f"{len(repeats)}")
    return a, repeats


def repeat_interleave_infer_meta(x, repeats, axis, out) -> None:
    """Each element of x along axis repeated repeats[i] times in place."""
    dims = tuple(x.dims)
    a, counts = repeat_counts(dims, repeats, axis)
    if axis is None or not dims:
        _set(out, (sum(counts),), x)
    else:
        _set(out, dims[:a] + (sum(counts),) + dims[a + 1:], x)
    check_result_shape("repeats", out.dims, out.dtype)


def repeat_interleave_grad_infer_meta(x, out_grad, repeats, axis, x_grad) -> None:
    """x_grad shaped like x; out_grad must be repeat_interleave's result for x."""
    _grad_of(repeat_interleave_infer_meta, x, (repeats, axis), out_grad, x_grad)


# -- as_strided -----------------------------------------------------------------------------

def strided_positions_reach(shape, stride, offset) -> tuple:
    """(lowest, highest) position, counted in x's elements in row-major order, that a
    view of ``shape`` and ``stride`` starting at ``offset`` reads; None for an empty view."""
    if any(n == 0 for n in shape):
        return None
    return offset, offset + sum((n - 1) * s for n, s in zip(shape, stride))


def as_strided_infer_meta(x, shape, stride, offset, out) -> None:
    """A view of ``shape`` whose element i reads x's element ``offset / itemsize +
    sum(i_k * stride[k])`` of x in row-major order (``offset`` counts bytes, ``stride``
    elements, as in Paddle): every position read must lie in x."""
    shape, stride = tuple(shape), tuple(stride)
    if len(shape) != len(stride):
        raise InvalidArgumentError(f"argument 'stride' expected one step per dimension of 'shape' "
                                   f"({len(shape)}), got {len(stride)}: {list(stride)}")
    if any(n < 0 for n in shape):
        raise InvalidArgumentError(f"argument 'shape' expected non-negative sizes, got {list(shape)}")
    if any(s < 0 for s in stride):
        raise InvalidArgumentError(f"argument 'stride' expected non-negative steps, got {list(stride)}")
    if offset < 0:
        raise InvalidArgumentError(f"argument 'offset' expected a value >= 0, got {offset}")
    itemsize = x.dtype.itemsize
    if offset % itemsize:  # Paddle reads garbage from a misaligned start
        raise InvalidArgumentError(f"argument 'offset' counts bytes and expected a multiple of x's element size "
                                   f"({itemsize} for {x.dtype}), got {offset}")
    count = 1
    for d in x.dims:
        count *= d
    reach = strided_positions_reach(shape, stride, offset // itemsize)
    if reach is not None and reach[1] >= count:
        raise InvalidArgumentError(
            f"shape {list(shape)}, stride {list(stride)} and offset {offset} read element {reach[1]} of x, "
            f"which has {count} (shape {list(x.dims)})")
    _set(out, shape, x)
    check_result_shape("shape", out.dims, out.dtype)


def as_strided_grad_infer_meta(x, out_grad, shape, stride, offset, x_grad) -> None:
    """x_grad shaped like x; out_grad must be as_strided's result for x."""
    _grad_of(as_strided_infer_meta, x, (shape, stride, offset), out_grad, x_grad)


# -- view_dtype -------------------------------------------------------------------------------

def view_dtype_infer_meta(x, dtype, out) -> None:
    """x's bytes read as ``dtype``: the same shape for a dtype of the same size; else
    the last axis holds as many bytes (it must divide evenly into a larger dtype),
    and x must have at least one dimension."""
    target = convert_dtype(dtype)
    dims = tuple(x.dims)
    old, new = x.dtype.itemsize, target.itemsize
    if new != old:
        if not dims:
            raise InvalidArgumentError(f"a 0-d tensor of {x.dtype} ({old} bytes) cannot be viewed as {target} "
                                       f"({new} bytes): the last axis holds the change of size")
        last = dims[-1] * old
        if last % new:
            raise InvalidArgumentError(f"the last axis of x ({dims[-1]} elements of {x.dtype}, {last} bytes) "
                                       f"does not divide into elements of {target} ({new} bytes)")
        dims = dims[:-1] + (last // new,)
    out.dims = dims
    out.dtype = target
    out.layout = x.layout
