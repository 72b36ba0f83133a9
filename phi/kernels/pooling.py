"""Kernels of the pooling ops: max pooling with its argmax mask, average
pooling, both also adaptive, and unfold/fold (im2col/col2im). Written once
for any number of spatial axes; the 2-D and 3-D ops register the same
functions (1-D pooling is the 2-D op over a height of 1).

Channel-last inputs are moved to channel-first (a view) and back. Every
kernel loops over the kernel's positions, never over pixels:

- max pooling pads the input with -inf and, per kernel position, compares a
  strided slice (one output-sized array) with the running maximum, keeping
  the first maximum's position in window order as Paddle does; the mask is
  that position's flat index in the input plane (h * W + w; d * H * W + ...).
  Its gradient adds out_grad at the mask's indices (one bincount).
- average pooling is separable: the window sum is a 1-D sum along each axis
  in turn (k_h + k_w slices, not k_h * k_w), divided by the window's count
  (exclusive: its elements inside the input, else its positions inside the
  padded input, as Paddle's CPU kernel (docs/nn.md): the kernel's size
  except for a ceil_mode window overhanging the right padding). Its gradient
  runs the same 1-D sums transposed.
- adaptive windows (start floor(i * in / out), end ceil((i + 1) * in / out))
  become regular ones when every input size is a multiple of the output's;
  otherwise average pooling applies a [out, in] window matrix along each axis
  (a matmul) and max pooling gathers each kernel position with index arrays.
"""
from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from ..common.shape_rules import padded_window_counts, window_geometry
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, FLOATS
from .device_constants import on_device
from .funcs import channel_first
from .search_sort import scatter_back

_CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


def _first_shape(shape, channel_last):
    """A shape as channel-first (x may be a shape-only placeholder: no_need_buffer)."""
    shape = tuple(shape)
    return (shape[0], shape[-1]) + shape[1:-1] if channel_last else shape


def _restore(xp, out, channel_last):
    return xp.ascontiguousarray(xp.moveaxis(out, 1, -1) if channel_last else out)


class _Windows:
    """The windows of a pooling over the spatial sizes ``size``: per axis the
    unclipped start of each output's window (``starts``), its clipped end
    (``ends``), the most positions a window has (``kernel``) and, for regular
    windows, the stride and left padding."""

    def __init__(self, size, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive):
        self.size = tuple(size)
        k = len(self.size)
        if adaptive:
            outs = tuple(kernel_size)
            self.regular = all(n % o == 0 for n, o in zip(self.size, outs))
            if self.regular:  # windows of in/out positions, stride in/out
                kernel_size = strides = tuple(n // o for n, o in zip(self.size, outs))
                pads = ((0, 0),) * k
            else:
                self.starts = [np.arange(o) * n // o for n, o in zip(self.size, outs)]
                self.ends = [-(-(np.arange(o) + 1) * n // o) for n, o in zip(self.size, outs)]
                self.kernel = tuple(int((e - s).max()) for s, e in zip(self.starts, self.ends))
        else:
            self.regular = True
            pads, _, outs = window_geometry(self.size, kernel_size, strides, paddings, (1,) * k,
                                            padding_algorithm, ceil_mode)
        self.outs = tuple(int(o) for o in outs)
        if self.regular:
            self.kernel, self.strides = tuple(kernel_size), tuple(strides)
            self.before = tuple(b for b, _ in pads)
            self.after = tuple(a for _, a in pads)
            self.starts = [np.arange(o) * s - b for o, s, b in zip(self.outs, self.strides, self.before)]
            self.ends = [np.minimum(s + ks, n) for s, ks, n in zip(self.starts, self.kernel, self.size)]

    def counts(self):
        """Per axis, the number of input elements in each output's window."""
        return [e - np.maximum(s, 0) for s, e in zip(self.starts, self.ends)]

    def padded_counts(self):
        """Per axis, each regular window's positions inside the padded input
        (shape_rules.padded_window_counts: the non-exclusive divisor)."""
        counts = padded_window_counts(self.size, self.kernel, self.strides, zip(self.before, self.after), self.outs)
        return [np.asarray(c) for c in counts]

    def padded(self, xp, x, fill):
        """x padded with ``fill`` so that every window lies inside it."""
        pads = []
        for n, o, s, ks, b in zip(self.size, self.outs, self.strides, self.kernel, self.before):
            pads.append((b, max((o - 1) * s + ks - n - b, 0)))
        if not any(p for pair in pads for p in pair):
            return x
        return xp.pad(x, ((0, 0), (0, 0)) + tuple(pads), constant_values=fill)

    def slice_at(self, position, axes=None):
        """The index of kernel position ``position`` (one per axis in ``axes``)
        in the padded input: a strided slice per axis."""
        axes = range(len(self.size)) if axes is None else axes
        index = [slice(None)] * (2 + len(self.size))
        for axis, p in zip(axes, position):
            index[2 + axis] = slice(p, p + (self.outs[axis] - 1) * self.strides[axis] + 1, self.strides[axis])
        return tuple(index)


def _broadcast_axis(xp, values, axis, k):
    """A per-output array along spatial axis ``axis``, shaped to broadcast over [N, C, *outs]."""
    shape = [1] * (2 + k)
    shape[2 + axis] = len(values)
    return on_device(xp, values).reshape(shape)


# -- max pooling --------------------------------------------------------------

def max_pool_nd(ctx, x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive, data_format):
    xp = ctx.xp
    channel_last = data_format in _CHANNEL_LAST
    x = channel_first(xp, x, channel_last)
    w = _Windows(x.shape[2:], kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive)
    if w.regular and all(o == 1 for o in w.outs) and w.kernel == w.size and not any(w.before):
        # a global maximum: one argmax per plane, NaN never winning (the plane's size spelled out: N or C may be 0)
        flat = x.reshape(x.shape[:2] + (math.prod(w.size),))
        flat = xp.where(xp.isnan(flat), xp.full((), -np.inf, dtype=flat.dtype), flat)
        arg = xp.argmax(flat, axis=-1)[..., None]
        best = xp.take_along_axis(flat, arg, axis=-1).reshape(x.shape[:2] + w.outs)
        arg = arg.astype(np.int32).reshape(best.shape)
    elif xp is not np and _tiled(w):
        best, mask = _tiled_max(xp, x, w)
        return (_restore(xp, best, channel_last), _restore(xp, mask, channel_last)) if channel_last else (best, mask)
    elif w.regular:
        best, arg = _regular_max(xp, w.padded(xp, x, -np.inf), w)
    else:
        best, arg = _running_max(xp, _adaptive_candidates(xp, x, w))
    return _restore(xp, best, channel_last), _restore(xp, _flat_index(xp, best, arg, w), channel_last)


def _flat_index(xp, best, arg, w):
    """The flat index in the input plane of each winner, from its row-major number
    in its window: a lookup of the number's offset plus the window's start."""
    k = len(w.size)
    plane_strides = [math.prod(w.size[axis + 1:]) for axis in range(k)]
    offsets = np.zeros(w.kernel, dtype=np.int32)
    base = 0
    for axis in range(k):
        shape = [1] * k
        shape[axis] = w.kernel[axis]
        offsets = offsets + (np.arange(w.kernel[axis]) * plane_strides[axis]).reshape(shape)
        base = base + _broadcast_axis(xp, (w.starts[axis] * plane_strides[axis]).astype(np.int32), axis, k)
    mask = on_device(xp, offsets.reshape(-1))[arg] + base
    if w.regular and any(w.before) and (xp is not np or bool(xp.isneginf(best).any())):
        # A window whose input values are all -inf may have picked its padding: per axis, clip into the
        # input. A winner inside the input is unchanged by the clip, so the GPU clips always rather than
        # read back whether some window is all -inf; the CPU reads that for free and skips the clip.
        positions, rest = [], arg.astype(np.int32)
        for size in reversed(w.kernel):
            positions.insert(0, rest % np.int32(size))
            rest = rest // np.int32(size)
        mask = None
        for axis in range(k):
            coordinate = positions[axis] + _broadcast_axis(xp, w.starts[axis].astype(np.int32), axis, k)
            coordinate = xp.clip(coordinate, 0, w.size[axis] - 1)
            mask = coordinate if mask is None else mask * np.int32(w.size[axis]) + coordinate
    return mask.astype(np.int32, copy=False)


def _tiled(w):
    """Whether the windows tile the input exactly: stride = kernel, no padding,
    every size a multiple of the kernel's (2x2 pooling with stride 2, adaptive
    pooling to a divisor of the size)."""
    return (w.regular and w.strides == w.kernel and not any(w.before)
            and all(o * ks == n for o, ks, n in zip(w.outs, w.kernel, w.size)))


def _global(w):
    """Whether one window covers each whole plane (global or adaptive pooling to size 1)."""
    return _tiled(w) and all(o == 1 for o in w.outs)


def _tile_order(k):
    """The axes of x [N, C, o1, k1, o2, k2, ...] as [N, C, o1, o2, ..., k1, k2, ...]."""
    return (0, 1) + tuple(range(2, 2 + 2 * k, 2)) + tuple(range(3, 3 + 2 * k, 2))


@functools.lru_cache(maxsize=64)
def _tile_indices(size, kernel):
    """(offsets [prod(kernel)], starts [*outs], positions [*outs, prod(kernel)]) of
    tiles: the flat index in the plane of each position of a tile relative to its
    first, of each tile's first position, and their sum (read-only, int32)."""
    k = len(size)
    outs = tuple(n // ks for n, ks in zip(size, kernel))
    plane = np.arange(math.prod(size), dtype=np.int32).reshape(sum(zip(outs, kernel), ()))
    starts = np.ascontiguousarray(plane[(slice(None), 0) * k])
    offsets = np.ascontiguousarray(plane[(0, slice(None)) * k].reshape(-1))
    positions = np.ascontiguousarray(starts[..., None] + offsets)
    for array in (offsets, starts, positions):
        array.flags.writeable = False
    return offsets, starts, positions


def _tiled_max(xp, x, w):
    """(maximum, flat plane index of the first maximum) of tiling windows in a
    dozen calls whatever the kernel (the GPU's path: the CPU's per-position loop
    costs the host 4 calls per position there): the tiles copied out as rows
    [N, C, *outs, prod(kernel)], one argmax and one max over them. NaN never
    wins (it reads as -inf), a window of NaN only gives NaN at its last
    position, as the CPU's loop does."""
    k = len(w.size)
    n, c = x.shape[:2]
    taps = math.prod(w.kernel)
    tiles = x.reshape((n, c) + sum(zip(w.outs, w.kernel), ()))
    rows = xp.transpose(tiles, _tile_order(k)).reshape((n, c) + w.outs + (taps,))
    clean = xp.fmax(rows, -np.inf)
    arg = xp.argmax(clean, axis=-1)
    best = clean.max(axis=-1)
    all_nan = xp.isnan(rows).all(axis=-1)
    xp.copyto(best, np.nan, where=all_nan)
    arg = xp.where(all_nan, taps - 1, arg)
    offsets, starts, _ = (on_device(xp, a) for a in _tile_indices(w.size, w.kernel))
    return best, offsets[arg] + starts


def _tiled_max_grad(xp, mask, out_grad, shape, w):
    """out_grad put at the mask's positions of tiling windows: each tile's
    positions compared with its winner's (a one-hot row), times out_grad, the
    rows put back in the input's layout (no scatter)."""
    k = len(w.size)
    positions = on_device(xp, _tile_indices(w.size, w.kernel)[2])     # [*outs, prod(kernel)]
    rows = xp.multiply(mask[..., None] == positions, out_grad[..., None])
    tiles = rows.reshape(shape[:2] + w.outs + w.kernel)
    inverse = tuple(np.argsort(_tile_order(k)))
    return xp.transpose(tiles, inverse).reshape(shape)


def _regular_max(xp, source, w):
    """The maximum over each regular window and the winner's position in it
    (row-major number): per kernel position, contiguous slices of the input's
    stride phases (strided slices of the input itself would be many times
    slower), an fmax (NaN never wins, as in Paddle's comparison), and the first
    position equal to the maximum found by integer arithmetic (no masked
    writes)."""
    phases = _Phases(xp, source, w)
    positions = list(itertools.product(*map(range, w.kernel)))
    best = phases.at(positions[0]).copy()
    for position in positions[1:]:
        xp.fmax(best, phases.at(position), out=best)
    count = len(positions)
    dtype = np.int8 if count < 128 else np.int32
    arg = xp.full(best.shape, count - 1, dtype=dtype)
    equal = xp.empty(best.shape, dtype=bool)
    step = xp.empty(best.shape, dtype=dtype)
    for number in range(count - 2, -1, -1):  # the first equal position wins
        xp.equal(phases.at(positions[number]), best, out=equal)
        xp.subtract(arg, dtype(number), out=step)
        xp.multiply(step, equal, out=step)
        arg -= step
    return best, arg


class _Phases:
    """A padded input split by stride phase: for each axis and residue r < stride,
    the positions r, r + stride, ... copied contiguously, so that kernel
    position p's slice is phase p % stride at offset p // stride."""

    def __init__(self, xp, source, w):
        self.w = w
        residues = itertools.product(*(range(min(s, ks)) for s, ks in zip(w.strides, w.kernel)))
        if all(s == 1 for s in w.strides):
            self.arrays = {(0,) * len(w.size): source}
        else:
            self.arrays = {r: xp.ascontiguousarray(source[(slice(None), slice(None)) + tuple(
                slice(ri, None, s) for ri, s in zip(r, w.strides))]) for r in residues}

    def at(self, position):
        w = self.w
        array = self.arrays[tuple(p % s for p, s in zip(position, w.strides))]
        return array[(slice(None), slice(None)) + tuple(
            slice(p // s, p // s + o) for p, s, o in zip(position, w.strides, w.outs))]


def _running_max(xp, candidates):
    """The first maximum over the (value, valid) candidates and its number."""
    best = arg = None
    for number, (value, valid) in enumerate(candidates):
        # NaN never wins, as in the regular windows' fmax
        value = xp.where(valid & ~xp.isnan(value), value, -np.inf).astype(value.dtype, copy=False)
        if best is None:
            best, arg = value, xp.zeros(value.shape, dtype=np.int32)
            continue
        better = value > best
        xp.copyto(best, value, where=better)
        xp.copyto(arg, np.int32(number), where=better)
    return best, arg


def _adaptive_candidates(xp, x, w):
    """(values, valid) of each kernel position of irregular windows: a gather."""
    k = len(w.size)
    for position in itertools.product(*map(range, w.kernel)):
        index, valid = [slice(None), slice(None)], None
        for axis, p in enumerate(position):
            at = w.starts[axis] + p
            shape = [1] * k
            shape[axis] = len(at)
            index.append(on_device(xp, np.minimum(at, w.size[axis] - 1).reshape(shape)))
            ok = _broadcast_axis(xp, at < w.ends[axis], axis, k)
            valid = ok if valid is None else valid & ok
        yield x[tuple(index)], valid


def max_pool_nd_grad(ctx, x, mask, out_grad, kernel_size, strides, paddings, padding_algorithm, ceil_mode,
                     adaptive, data_format):
    xp = ctx.xp
    channel_last = data_format in _CHANNEL_LAST
    shape = _first_shape(x.shape, channel_last)
    mask = channel_first(xp, mask, channel_last)
    out_grad = channel_first(xp, out_grad, channel_last)
    if xp is not np:
        w = _Windows(shape[2:], kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive)
        if _tiled(w):
            grad = _tiled_max_grad(xp, mask, out_grad, shape, w).astype(x.dtype, copy=False)
            return _restore(xp, grad, channel_last) if channel_last else grad
    rows = shape[:2]
    flat = rows + (math.prod(mask.shape[2:]),)
    grad = scatter_back(xp, rows + (math.prod(shape[2:]),), mask.reshape(flat), out_grad.reshape(flat), 2)
    return _restore(xp, grad.reshape(shape), channel_last).astype(x.dtype, copy=False)


# -- average pooling ----------------------------------------------------------

def avg_pool_nd(ctx, x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, exclusive, adaptive,
                data_format):
    xp = ctx.xp
    channel_last = data_format in _CHANNEL_LAST
    x = channel_first(xp, x, channel_last)
    w = _Windows(x.shape[2:], kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive)
    k = len(w.size)
    if _global(w):  # one window per plane: a BLAS product with ones
        plane = math.prod(w.size)
        total = (x.reshape(-1, plane) @ xp.ones(plane, dtype=x.dtype)).reshape(x.shape[:2] + w.outs)
    elif w.regular:
        total = x
        for axis in range(k):  # a 1-D window sum along each axis in turn
            source = _pad_axis(xp, total, w, axis)
            total = sum(source[w.slice_at((p,), (axis,))] for p in range(w.kernel[axis]))
    else:
        total = _apply_matrices(xp, x, _window_matrices(w, x.dtype), transpose=False)
    return _restore(xp, total * _inverse_counts(xp, w, exclusive or adaptive, x.dtype), channel_last)


def avg_pool_nd_grad(ctx, x, out_grad, kernel_size, strides, paddings, padding_algorithm, ceil_mode, exclusive,
                     adaptive, data_format):
    xp = ctx.xp
    channel_last = data_format in _CHANNEL_LAST
    shape = _first_shape(x.shape, channel_last)
    g = channel_first(xp, out_grad, channel_last)
    w = _Windows(shape[2:], kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive)
    k = len(w.size)
    g = g * _inverse_counts(xp, w, exclusive or adaptive, g.dtype)
    if _global(w):  # each plane's gradient spread over it: one broadcasting copy
        g = xp.ascontiguousarray(xp.broadcast_to(g, shape))
    elif w.regular:
        for axis in reversed(range(k)):  # the transposed 1-D window sums
            target_shape = list(g.shape)
            target_shape[2 + axis] = w.size[axis]
            padded = xp.zeros(_pad_axis_shape(tuple(target_shape), w, axis), dtype=g.dtype)
            for p in range(w.kernel[axis]):
                padded[w.slice_at((p,), (axis,))] += g
            crop = [slice(None)] * (2 + k)
            crop[2 + axis] = slice(w.before[axis], w.before[axis] + w.size[axis])
            g = padded[tuple(crop)]
    else:
        g = _apply_matrices(xp, g, _window_matrices(w, g.dtype), transpose=True)
    return _restore(xp, g, channel_last).astype(x.dtype, copy=False)


def _pad_axis_shape(shape, w, axis):
    n, o, s, ks, b = w.size[axis], w.outs[axis], w.strides[axis], w.kernel[axis], w.before[axis]
    shape = list(shape)
    shape[2 + axis] = b + max(n, (o - 1) * s + ks - b)
    return tuple(shape)


def _pad_axis(xp, x, w, axis):
    """x zero padded along one spatial axis so that every window lies inside it."""
    n, o, s, ks, b = w.size[axis], w.outs[axis], w.strides[axis], w.kernel[axis], w.before[axis]
    after = max((o - 1) * s + ks - n - b, 0)
    if not b and not after:
        return x
    pads = [(0, 0)] * x.ndim
    pads[2 + axis] = (b, after)
    return xp.pad(x, pads)


def _inverse_counts(xp, w, exclusive, dtype):
    """1 / the divisor of each output, shaped to broadcast over [N, C, *outs]."""
    k = len(w.size)
    counts = w.counts() if exclusive else w.padded_counts()
    if not exclusive and all((c == ks).all() for c, ks in zip(counts, w.kernel)):
        return xp.full((), 1.0 / math.prod(w.kernel), dtype=dtype)
    inverse = None
    for axis, count in enumerate(counts):
        factor = _broadcast_axis(xp, (1.0 / count).astype(dtype), axis, k)
        inverse = factor if inverse is None else inverse * factor
    return inverse


def _window_matrices(w, dtype):
    """Per axis the [out, in] 0/1 matrix of which inputs each output's window holds."""
    matrices = []
    for n, s, e in zip(w.size, w.starts, w.ends):
        columns = np.arange(n)
        matrices.append(((columns >= np.maximum(s, 0)[:, None]) & (columns < e[:, None])).astype(dtype))
    return matrices


def _apply_matrices(xp, x, matrices, transpose):
    """x with each spatial axis multiplied by its matrix (or its transpose)."""
    for axis, m in enumerate(matrices):
        m = on_device(xp, m.T if transpose else m)
        moved = xp.moveaxis(x, 2 + axis, -1)
        x = xp.moveaxis(xp.matmul(moved, m.T), -1, 2 + axis)
    return x


# -- unfold / fold ------------------------------------------------------------

def _fold_geometry(size, kernel_sizes, strides, paddings, dilations):
    """((before, after) per axis, output positions per axis) of Paddle's unfold;
    paddings are [top, left, bottom, right] (one per axis before, then after)."""
    k = len(size)
    pads = tuple((paddings[i], paddings[k + i]) for i in range(k))
    outs = tuple((n + b + a - (d * (ks - 1) + 1)) // s + 1
                 for n, (b, a), ks, s, d in zip(size, pads, kernel_sizes, strides, dilations))
    return pads, outs


def _position_slices(position, dilations, outs, strides):
    return (slice(None), slice(None)) + tuple(
        slice(p * d, p * d + (o - 1) * s + 1, s) for p, d, o, s in zip(position, dilations, outs, strides))


def unfold_nd(ctx, x, kernel_sizes, strides, paddings, dilations):
    xp = ctx.xp
    n, c = x.shape[:2]
    pads, outs = _fold_geometry(x.shape[2:], kernel_sizes, strides, paddings, dilations)
    if any(p for pair in pads for p in pair):
        x = xp.pad(x, ((0, 0), (0, 0)) + pads)
    cols = xp.empty((n, c) + tuple(kernel_sizes) + outs, dtype=x.dtype)
    for position in itertools.product(*map(range, kernel_sizes)):
        cols[(slice(None), slice(None)) + position] = x[_position_slices(position, dilations, outs, strides)]
    return cols.reshape(n, c * math.prod(kernel_sizes), math.prod(outs))


def fold_nd(ctx, x, output_sizes, kernel_sizes, strides, paddings, dilations):
    xp = ctx.xp
    n = x.shape[0]
    c = x.shape[1] // math.prod(kernel_sizes)
    pads, outs = _fold_geometry(output_sizes, kernel_sizes, strides, paddings, dilations)
    cols = x.reshape((n, c) + tuple(kernel_sizes) + outs)
    padded = xp.zeros((n, c) + tuple(s + b + a for s, (b, a) in zip(output_sizes, pads)), dtype=x.dtype)
    for position in itertools.product(*map(range, kernel_sizes)):
        padded[_position_slices(position, dilations, outs, strides)] += cols[(slice(None), slice(None)) + position]
    crop = (slice(None), slice(None)) + tuple(slice(b, b + s) for s, (b, _) in zip(output_sizes, pads))
    return xp.ascontiguousarray(padded[crop])


for _k in ("2d", "3d"):
    register_kernel(f"max_pool{_k}_with_index", ALL_BACKENDS, FLOATS)(max_pool_nd)
    register_kernel(f"max_pool{_k}_with_index_grad", ALL_BACKENDS, FLOATS)(max_pool_nd_grad)
    register_kernel(f"avg_pool{_k}", ALL_BACKENDS, FLOATS)(avg_pool_nd)
    register_kernel(f"avg_pool{_k}_grad", ALL_BACKENDS, FLOATS)(avg_pool_nd_grad)
register_kernel("im2col", ALL_BACKENDS, FLOATS)(unfold_nd)
register_kernel("col2im", ALL_BACKENDS, FLOATS)(fold_nd)
