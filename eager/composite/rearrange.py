"""Composite rules of the rearrange ops (see eager/composite/__init__.py).

Each of these ops is linear, so its gradient is the adjoint map, written with
forward ops: flip's is flip, roll's is roll back, rot90's is rot90 back,
moveaxis's moves the axes back, tile's and repeat_interleave's sum the copies,
the slices' write out_grad into zeros (setitem, whose own gradient reads the
region again). Their second derivatives are therefore the ops themselves.
"""
from __future__ import annotations

from phi.infermeta.rearrange import repeat_counts, slice_index, strided_index, tensor_split_bounds

from ..generated import forward_api as _F
from .spine import _reshape, sum_to_shape


def tile_grad(x, out_grad, repeat_times):
    """tile's gradient: the copies summed, differentiably."""
    # out_grad viewed as (r0, d0, r1, d1, ...): the r axes hold the copies.
    n = max(len(x.shape), len(repeat_times))
    dims = [1] * (n - len(x.shape)) + list(x.shape)
    reps = [1] * (n - len(repeat_times)) + list(repeat_times)
    split = [size for pair in zip(reps, dims) for size in pair]
    if not split:
        return out_grad  # 0-d x, no repeats: out is x
    summed = _F.sum(_reshape(out_grad, split), list(range(0, 2 * n, 2)), out_grad.dtype, False)
    return _reshape(summed, x.shape)


def flip_grad(out_grad, axis):
    """flip's gradient: flip again."""
    return _F.flip(out_grad, axis)


def roll_grad(out_grad, shifts, axis):
    """roll's gradient: roll back."""
    return _F.roll(out_grad, [-s for s in shifts], axis)


def rot90_grad(out_grad, k, axes):
    """rot90's gradient: turn back."""
    return _F.rot90(out_grad, -k, axes)


def moveaxis_grad(out_grad, source, destination):
    """moveaxis's gradient: move the axes back."""
    return _F.moveaxis(out_grad, destination, source)


def t_grad(out_grad):
    """t's gradient: t again."""
    return _F.t(out_grad)


def _into_zeros(shape, out_grad, index):
    zeros = _F.full(list(shape), 0, out_grad.dtype, out_grad.place)
    return _F.setitem(zeros, out_grad, index)


def slice_grad(input, out_grad, axes, starts, ends):
    """slice's gradient: out_grad set into zeros (setitem, differentiable in out_grad)."""
    return _into_zeros(input.shape, out_grad, slice_index(input.shape, axes, starts, ends))


def strided_slice_grad(x, out_grad, axes, starts, ends, strides):
    """strided_slice's gradient: out_grad set into zeros at the strided region."""
    return _into_zeros(x.shape, out_grad, strided_index(x.shape, axes, starts, ends, strides))


def expand_as_grad(x, y, out_grad):
    """expand_as's gradient: summed back to x's shape."""
    return sum_to_shape(out_grad, x.shape)


def broadcast_tensors_grad(input, out_grad):
    """broadcast_tensors' gradients: each summed back to its tensor's shape."""
    grads = [sum_to_shape(g, t.shape) for t, g in zip(input, out_grad)]
    # An integer sum widens to int64; a gradient keeps its tensor's dtype.
    return [g if g.dtype == t.dtype else _F.cast(g, t.dtype) for t, g in zip(input, grads)]


def unstack_grad(out_grad, axis):
    """unstack's gradient: the pieces stacked again."""
    return _F.stack(out_grad, axis)


def tensor_split_grad(x, out_grad, num_or_indices, axis):
    """tensor_split's gradient: the pieces joined, or added into place where they overlap."""
    a, bounds = tensor_split_bounds(x.shape, num_or_indices, axis)
    ends = [0] + [hi for _, hi in bounds]
    if len(out_grad) == 1:
        return out_grad[0]  # one piece: x itself
    if all(lo == ends[i] for i, (lo, _) in enumerate(bounds)) and ends[-1] == x.shape[a]:
        return _F.concat(out_grad, a)  # pieces side by side: the usual case
    # Decreasing indices give overlapping pieces: each adds into its place.
    total = None
    for (lo, hi), g in zip(bounds, out_grad):
        part = _into_zeros(x.shape, g, (slice(None),) * a + (slice(lo, hi),))
        total = part if total is None else _F.add(total, part)
    return total


def repeat_interleave_grad(x, out_grad, repeats, axis):
    """repeat_interleave's gradient: each element's copies summed."""
    a, counts = repeat_counts(x.shape, repeats, axis)
    moved = _F.moveaxis(out_grad, [a], [0]) if a else out_grad
    rest = moved.shape[1:]
    if len(set(counts)) <= 1:
        # Equal counts r: the copies of element i are rows i*r .. i*r + r - 1.
        r = counts[0] if counts else 0
        summed = _F.sum(_reshape(moved, [len(counts), r] + rest), [1], out_grad.dtype, False)
    else:
        pieces = _F.split(moved, counts, 0)
        summed = _F.concat([_F.sum(p, [0], out_grad.dtype, True) for p in pieces], 0)
    summed = _F.moveaxis(summed, [0], [a]) if a else summed
    return _reshape(summed, x.shape)
