"""Kernels that rearrange elements without arithmetic (tile, repeat_interleave,
flip, roll, rot90, slice, strided_slice, moveaxis, t, expand_as, ...) and their
gradients.

Every forward result is a fresh array (``.copy()`` where NumPy would return a
view), because these ops are not declared ``view`` in ops.yaml: a later inplace
write to the result must not reach x. The gradients are the adjoint maps:
flip's is flip, roll's is roll back, tile's and repeat_interleave's sum the
copies, the slices' scatter into zeros. The views are ``as_strided`` and
``view_dtype`` (declared ``view`` in ops.yaml): their results read x's buffer;
as_strided's gradient adds each element's gradient into the position it read.
"""
import numpy as np

from ..core.kernel_registry import register_kernel
from ..infermeta.rearrange import (
    moveaxis_permutation, repeat_counts, slice_index, strided_index, tensor_split_bounds,
)
from .dtypes import ALL_BACKENDS, ALL_TYPES, ALL_TYPES_AND_BFLOAT16, NUMERIC
from .funcs import reduce_to_shape, scatter_add


def _flip_axes(axis, ndim):
    return tuple({a % ndim for a in axis}) if ndim else ()  # [0, -3] reverses axis 0 once


# -- tile --------------------------------------------------------------------------------

@register_kernel("tile", ALL_BACKENDS, ALL_TYPES)
def tile(ctx, x, repeat_times):
    """x repeated along each axis (NumPy's tile: the shorter shape padded with 1s in front)."""
    return ctx.xp.tile(x, tuple(repeat_times))


@register_kernel("tile_grad", ALL_BACKENDS, NUMERIC)
def tile_grad(ctx, x, out_grad, repeat_times):
    """The sum of out_grad's copies of each element of x."""
    # out = tile(x): view out_grad as (r0, d0, r1, d1, ...) and sum the r axes.
    n = max(x.ndim, len(repeat_times))
    dims = (1,) * (n - x.ndim) + tuple(x.shape)
    reps = (1,) * (n - len(repeat_times)) + tuple(repeat_times)
    split = [size for pair in zip(reps, dims) for size in pair]
    summed = out_grad.reshape(split).sum(axis=tuple(range(0, 2 * n, 2)), dtype=out_grad.dtype)
    return summed.reshape(x.shape)


# -- flip, roll, rot90, moveaxis, t -----------------------------------------------------------

@register_kernel("flip", ALL_BACKENDS, ALL_TYPES)
def flip(ctx, x, axis):
    """x reversed along the given axes, as a fresh array."""
    axes = _flip_axes(axis, x.ndim)
    return ctx.xp.flip(x, axes).copy() if axes else x.copy()


@register_kernel("flip_grad", ALL_BACKENDS, ALL_TYPES)
def flip_grad(ctx, out_grad, axis):
    """flip is its own adjoint."""
    return flip(ctx, out_grad, axis)


@register_kernel("roll", ALL_BACKENDS, ALL_TYPES)
def roll(ctx, x, shifts, axis):
    """x shifted cyclically; without axes, as if flattened."""
    if not axis or x.ndim == 0:  # a 0-d x (axis 0 / -1) has one element: nothing moves
        return ctx.xp.roll(x, shifts[0])  # None / []: rolled as if flattened (np.roll's axis=None)
    return ctx.xp.roll(x, tuple(shifts), tuple(axis))


@register_kernel("roll_grad", ALL_BACKENDS, ALL_TYPES)
def roll_grad(ctx, out_grad, shifts, axis):
    """roll back by the negated shifts."""
    return roll(ctx, out_grad, tuple(-s for s in shifts), axis)


@register_kernel("rot90", ALL_BACKENDS, ALL_TYPES)
def rot90(ctx, x, k, axes):
    """x turned k quarter turns in the plane of axes, as a fresh array."""
    return ctx.xp.rot90(x, k % 4, tuple(axes)).copy()


@register_kernel("rot90_grad", ALL_BACKENDS, ALL_TYPES)
def rot90_grad(ctx, out_grad, k, axes):
    """rot90 back by -k."""
    return rot90(ctx, out_grad, -k, axes)


@register_kernel("moveaxis", ALL_BACKENDS, ALL_TYPES)
def moveaxis(ctx, x, source, destination):
    """x with axes source moved to destination, as a fresh array."""
    return ctx.xp.transpose(x, moveaxis_permutation(source, destination, x.ndim)).copy()


@register_kernel("moveaxis_grad", ALL_BACKENDS, ALL_TYPES)
def moveaxis_grad(ctx, out_grad, source, destination):
    """moveaxis back: destination to source."""
    return moveaxis(ctx, out_grad, destination, source)


@register_kernel("t", ALL_BACKENDS, ALL_TYPES)
def t(ctx, input):
    """A 2-d array transposed, a 0-d or 1-d one copied."""
    return input.T.copy()


@register_kernel("t_grad", ALL_BACKENDS, ALL_TYPES)
def t_grad(ctx, out_grad):
    """t is its own adjoint."""
    return out_grad.T.copy()


# -- slice, strided_slice -----------------------------------------------------------------

@register_kernel("slice", ALL_BACKENDS, ALL_TYPES)
def slice_(ctx, input, axes, starts, ends):
    """input[starts:ends] along axes with Paddle's clamping (registered as slice)."""
    return input[slice_index(input.shape, axes, starts, ends)].copy()


@register_kernel("slice_grad", ALL_BACKENDS, ALL_TYPES)
def slice_grad(ctx, input, out_grad, axes, starts, ends):
    """out_grad written into zeros shaped like input, at the sliced region."""
    grad = ctx.xp.zeros(input.shape, dtype=out_grad.dtype)
    grad[slice_index(input.shape, axes, starts, ends)] = out_grad
    return grad


@register_kernel("strided_slice", ALL_BACKENDS, ALL_TYPES)
def strided_slice(ctx, x, axes, starts, ends, strides):
    """x[starts:ends:strides] along axes with Paddle's clamping."""
    return x[strided_index(x.shape, axes, starts, ends, strides)].copy()


@register_kernel("strided_slice_grad", ALL_BACKENDS, ALL_TYPES)
def strided_slice_grad(ctx, x, out_grad, axes, starts, ends, strides):
    """out_grad written into zeros shaped like x, at the strided region."""
    grad = ctx.xp.zeros(x.shape, dtype=out_grad.dtype)
    grad[strided_index(x.shape, axes, starts, ends, strides)] = out_grad
    return grad


# -- expand_as ---------------------------------------------------------------------------

@register_kernel("expand_as", ALL_BACKENDS, ALL_TYPES)
def expand_as(ctx, x, y):
    """x broadcast to y's shape, as a fresh array."""
    return ctx.xp.broadcast_to(x, y.shape).copy()


@register_kernel("expand_as_grad", ALL_BACKENDS, NUMERIC)
def expand_as_grad(ctx, x, y, out_grad):
    """out_grad summed over the axes x was broadcast along."""
    return reduce_to_shape(out_grad, x.shape)


# -- repeat_interleave ---------------------------------------------------------------------

@register_kernel("repeat_interleave", ALL_BACKENDS, ALL_TYPES)
def repeat_interleave(ctx, x, repeats, axis):
    """Each element along the axis repeated its count of times."""
    xp = ctx.xp
    a, counts = repeat_counts(x.shape, repeats, axis)
    source = x.reshape(-1) if axis is None or x.ndim == 0 else x
    if len(set(counts)) <= 1:
        return xp.repeat(source, counts[0] if counts else 0, axis=a)
    return xp.repeat(source, list(counts), axis=a)  # a list: CuPy's repeat takes no device array here


@register_kernel("repeat_interleave_grad", ALL_BACKENDS, NUMERIC)
def repeat_interleave_grad(ctx, x, out_grad, repeats, axis):
    """The sum of out_grad over each element's copies."""
    xp = ctx.xp
    a, counts = repeat_counts(x.shape, repeats, axis)
    length = len(counts)
    moved = xp.moveaxis(out_grad, a, 0)
    rest = moved.shape[1:]
    if len(set(counts)) <= 1:
        # Equal counts r: the copies of element i are rows i*r .. i*r + r - 1.
        r = counts[0] if counts else 0
        summed = moved.reshape((length, r) + rest).sum(axis=1, dtype=out_grad.dtype)
    else:
        # Unequal counts: a 0/1 matrix adds each element's copies (exact: one product per term).
        owner = xp.repeat(xp.arange(length), list(counts))
        adds = (xp.arange(length)[:, None] == owner[None, :]).astype(out_grad.dtype)
        summed = xp.tensordot(adds, moved, axes=1).astype(out_grad.dtype, copy=False)
    return xp.moveaxis(summed, 0, a).reshape(x.shape)


# -- broadcast_tensors, unstack (list results) --------------------------------------------

@register_kernel("broadcast_tensors", ALL_BACKENDS, ALL_TYPES)
def broadcast_tensors(ctx, input):
    """Every array broadcast to the common shape, each a fresh array."""
    return [array.copy() for array in ctx.xp.broadcast_arrays(*input)]


@register_kernel("unstack", ALL_BACKENDS, ALL_TYPES)
def unstack(ctx, x, axis, num):
    """The slices of x along axis, each a fresh array."""
    lead = (slice(None),) * (axis % x.ndim)
    return [x[lead + (i,)].copy() for i in range(x.shape[axis])]


# -- tensor_split ---------------------------------------------------------------------------

def _piece(a, lo, hi):
    return (slice(None),) * a + (slice(lo, hi),)


@register_kernel("tensor_split", ALL_BACKENDS, ALL_TYPES)
def tensor_split(ctx, x, num_or_indices, axis):
    """The pieces of x along axis (tensor_split_bounds), each a fresh array."""
    a, bounds = tensor_split_bounds(x.shape, num_or_indices, axis)
    return [x[_piece(a, lo, hi)].copy() for lo, hi in bounds]


@register_kernel("tensor_split_grad", ALL_BACKENDS, NUMERIC)
def tensor_split_grad(ctx, x, out_grad, num_or_indices, axis):
    """Zeros shaped like x with each piece's gradient added into its place."""
    # Pieces from decreasing indices overlap, so each adds into its place.
    a, bounds = tensor_split_bounds(x.shape, num_or_indices, axis)
    grad = ctx.xp.zeros(x.shape, dtype=out_grad[0].dtype)
    for (lo, hi), g in zip(bounds, out_grad):
        grad[_piece(a, lo, hi)] += g
    return grad


# -- as_strided ------------------------------------------------------------------------------

def _positions(xp, shape, stride, offset):
    """The position in x (row-major) each element of the strided view reads, as an
    int64 array of ``shape``."""
    positions = xp.full(tuple(shape), offset, dtype=xp.int64)
    for axis, (n, s) in enumerate(zip(shape, stride)):
        steps = xp.arange(n, dtype=xp.int64) * s
        positions = positions + steps.reshape((n,) + (1,) * (len(shape) - axis - 1))
    return positions


@register_kernel("as_strided", ALL_BACKENDS, ALL_TYPES_AND_BFLOAT16)
def as_strided(ctx, x, shape, stride, offset):
    """The view of x's elements (row-major; a copy of a non-contiguous x first) of
    ``shape`` and element ``stride`` starting ``offset`` bytes in (checked in InferMeta)."""
    xp = ctx.xp
    flat = (x if x.flags.c_contiguous else xp.ascontiguousarray(x)).reshape(-1)
    return xp.lib.stride_tricks.as_strided(flat[offset // flat.itemsize:], shape=tuple(shape),
                                           strides=tuple(s * flat.itemsize for s in stride))


@register_kernel("as_strided_grad", ALL_BACKENDS, NUMERIC)
def as_strided_grad(ctx, x, out_grad, shape, stride, offset):
    """Zeros shaped like x with each element of out_grad added at the position it read
    (positions read twice get both)."""
    xp = ctx.xp
    count = 1
    for d in x.shape:
        count *= d
    grad = xp.zeros(count, dtype=out_grad.dtype)
    start = offset // np.dtype(x.dtype).itemsize  # offset counts bytes of x (an ArraySpec here)
    scatter_add(xp, grad, _positions(xp, shape, stride, start).reshape(-1), out_grad.reshape(-1))
    return grad.reshape(x.shape)


@register_kernel("view_dtype", ALL_BACKENDS, ALL_TYPES_AND_BFLOAT16)
def view_dtype(ctx, x, dtype):
    """x's bytes as ``dtype`` (shape from InferMeta): a view of x, of a row-major copy
    when x's last axis is not contiguous."""
    if x.ndim and x.strides[-1] != x.itemsize and x.shape[-1] > 1:
        x = ctx.xp.ascontiguousarray(x)
    return x.view(dtype.numpy_dtype)
