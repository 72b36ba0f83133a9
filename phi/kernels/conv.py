"""Convolution kernels (conv2d, conv3d, conv2d_transpose, conv3d_transpose) and
their gradients, written once for any number of spatial axes.

The forward is im2col plus one batched matmul: a strided sliding-window view
of the padded input is copied once into per-sample columns [N, groups,
C/g*kernel, out] and the filter [groups, O/g, C/g*kernel] times them is the
output as it lies, so the arithmetic is BLAS (cuBLAS on the GPU) with no loop
over pixels. The filter gradient is the output gradient's rows [groups, O/g,
N*out] times the batch's columns [groups, C/g*kernel, N*out] (one matmul
contracting the batch too); both copies keep the output positions innermost,
so they read their sources nearly in memory order. The input gradient
multiplies the filter's transpose by the output gradient back into
per-sample columns and adds each kernel position's block into the padded
input (col2im: on the CPU a loop over the kernel's positions, e.g. 9 for 3x3,
each a whole-tensor add; on a GPU one gather). Filters are [O, C/groups,
*kernel] in both data formats, as in Paddle; channel-last inputs are moved to
channel-first and back.

A transposed convolution is the input gradient of a convolution: its forward
is the matmul-then-col2im above (x playing the output gradient, the filter
[C_in, C_out/groups, *kernel] playing a convolution filter [O, C/groups,
*kernel]), and its gradients are a convolution of the output gradient (x's)
and that convolution's filter gradient with x as the output's (the filter's).
"""
from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from ..common.shape_rules import window_geometry
from ..core.kernel_registry import register_kernel
from ..infermeta.conv import conv_transpose_geometry
from .device_constants import on_device
from .dtypes import ALL_BACKENDS, FLOATS
from .funcs import channel_first


def _geometry(x_shape, w_shape, strides, paddings, padding_algorithm, dilations):
    """(pads, dilations, output sizes) for a channel-first input."""
    return window_geometry(x_shape[2:], w_shape[2:], strides, paddings, dilations, padding_algorithm)


def _padded(xp, x, pads):
    """x [N, C, *sizes] zero padded by ``pads`` ((before, after) per spatial axis):
    one allocation and one copy (xp.pad's general machinery costs CuPy ~70 us of
    host time per call)."""
    if not any(p for pair in pads for p in pair):
        return x
    sizes = x.shape[2:]
    out = xp.zeros(x.shape[:2] + tuple(n + b + a for n, (b, a) in zip(sizes, pads)), dtype=x.dtype)
    out[(slice(None), slice(None)) + tuple(slice(b, b + n) for n, (b, _) in zip(sizes, pads))] = x
    return out


def _windows(xp, x, kernel, strides, pads, dilations, outs):
    """The padded input's windows as a strided view [N, C, *outs, *kernel]
    (as_strided directly: sliding_window_view's checks cost CuPy ~190 us of
    host time per call)."""
    x = _padded(xp, x, pads)
    for size, o, s, ks, d in zip(x.shape[2:], outs, strides, kernel, dilations):
        if o and (o - 1) * s + (ks - 1) * d >= size:  # as_strided checks no bounds: never read past x
            raise ValueError(f"conv im2col: windows of {outs} outputs overrun the padded input {x.shape[2:]}")
    spatial = x.strides[2:]
    return xp.lib.stride_tricks.as_strided(
        x, x.shape[:2] + tuple(outs) + tuple(kernel),
        x.strides[:2] + tuple(st * s for st, s in zip(spatial, strides))
        + tuple(st * d for st, d in zip(spatial, dilations)))


def _sample_columns(xp, x, kernel, strides, pads, dilations, outs, groups):
    """im2col per sample: [N, groups, C/groups * prod(kernel), prod(outs)], a copy;
    the filter [groups, O/groups, C/groups * prod(kernel)] times it is the
    output [N, O, *outs] as it lies (no transpose after the matmul)."""
    k = len(kernel)
    n, c = x.shape[:2]
    windows = _windows(xp, x, kernel, strides, pads, dilations, outs)
    windows = xp.transpose(windows, (0, 1) + tuple(range(2 + k, 2 + 2 * k)) + tuple(range(2, 2 + k)))
    return windows.reshape(n, groups, c // groups * math.prod(kernel), math.prod(outs))


def _batch_columns(xp, x, kernel, strides, pads, dilations, outs, groups):
    """im2col over the whole batch: [groups, C/groups * prod(kernel), N * prod(outs)],
    a copy whose innermost axis walks the output positions, so the copy reads
    the input nearly in memory order (a layout with the channels innermost
    reads it with a stride per element, about twice as slow on the CPU)."""
    k = len(kernel)
    n, c = x.shape[:2]
    windows = _windows(xp, x, kernel, strides, pads, dilations, outs)   # [N, C, *outs, *kernel]
    windows = windows.reshape((n, groups, c // groups) + windows.shape[2:])
    order = (1, 2) + tuple(range(3 + k, 3 + 2 * k)) + (0,) + tuple(range(3, 3 + k))
    cols = xp.ascontiguousarray(xp.transpose(windows, order))      # [g, C/g, *kernel, N, *outs]
    return cols.reshape(groups, c // groups * math.prod(kernel), n * math.prod(outs))


def _batch_rows(xp, t, groups):
    """t [N, O, *outs] as [groups, O/groups, N * prod(outs)], a copy."""
    n, o = t.shape[:2]
    positions = math.prod(t.shape[2:])
    rows = xp.transpose(t.reshape(n, groups, o // groups, positions), (1, 2, 0, 3))
    return xp.ascontiguousarray(rows).reshape(groups, o // groups, n * positions)


def _convolve(xp, x, filter, strides, pads, dilations, outs, groups):
    """x [N, C, *sizes] convolved with filter [O, C/groups, *kernel]: [N, O, *outs]."""
    n, o = x.shape[0], filter.shape[0]
    # im2col per sample: the filter times it is the output as it lies (no transposing copy
    # after the matmul). On a GPU 4-6 calls fewer than one batched matrix; on the CPU about
    # 3x faster than it (its columns' copy reads the windows in memory order).
    cols = _sample_columns(xp, x, filter.shape[2:], strides, pads, dilations, outs, groups)
    return xp.matmul(filter.reshape(groups, o // groups, cols.shape[2]), cols).reshape((n, o) + tuple(outs))


def _filter_gradient(xp, x, gout, filter_shape, strides, pads, dilations, outs, groups, out=None):
    """The gradient [O, C/groups, *kernel] of the filter that convolved x [N, C, *sizes]
    into an output [N, O, *outs] whose gradient is gout: gout's rows times x's
    columns, contracted over the batch and the output positions in one matmul.
    ``out``: a C-contiguous array of filter_shape written into instead of a new one."""
    rows = _batch_rows(xp, gout, groups)                                           # [g, O/g, N*P]
    cols = _batch_columns(xp, x, filter_shape[2:], strides, pads, dilations, outs, groups)  # [g, C/g*K, N*P]
    if out is None:
        return xp.matmul(rows, cols.swapaxes(1, 2)).reshape(filter_shape)
    # [g, O/g, C/g * K] is a view of the contiguous [O, C/g, *kernel] buffer
    xp.matmul(rows, cols.swapaxes(1, 2), out=out.reshape(groups, filter_shape[0] // groups, cols.shape[1]))
    return out


def conv_nd(ctx, input, filter, strides, paddings, padding_algorithm, dilations, groups, data_format):
    xp = ctx.xp
    channel_last = data_format in ("NHWC", "NDHWC", "NLC")
    x = channel_first(xp, input, channel_last)
    pads, dilations, outs = _geometry(x.shape, filter.shape, strides, paddings, padding_algorithm, dilations)
    out = _convolve(xp, x, filter, strides, pads, dilations, outs, groups)
    if not channel_last:
        return out
    return xp.ascontiguousarray(xp.moveaxis(out, 1, -1))


def conv_nd_grad(ctx, input, filter, out_grad, strides, paddings, padding_algorithm, dilations, groups,
                 data_format, *, out_mask=None, into=None):
    """(input_grad, filter_grad). ``into``: None, or (None, filter_into) with
    filter_into a C-contiguous array of the filter's shape and dtype that the
    filter's gradient is written into (its matmul's ``out``) instead of a new
    array: a leaf's zeroed ``.grad`` buffer (see
    eager.autograd.accumulation.LEAF_WRITERS); the values are the same bit for
    bit. The input's gradient is always a new array."""
    xp = ctx.xp
    want_input, want_filter = out_mask or (True, True)
    channel_last = data_format in ("NHWC", "NDHWC", "NLC")
    x = channel_first(xp, input, channel_last)
    gout = channel_first(xp, out_grad, channel_last)
    kernel = filter.shape[2:]
    pads, dilations, outs = _geometry(x.shape, filter.shape, strides, paddings, padding_algorithm, dilations)
    input_grad = filter_grad = None
    if want_filter:
        filter_into = None if into is None else into[1]
        filter_grad = _filter_gradient(xp, x, gout, filter.shape, strides, pads, dilations, outs, groups,
                                       filter_into)
        if filter_into is None:
            filter_grad = filter_grad.astype(filter.dtype, copy=False)
    if want_input:
        input_grad = _col2im(xp, gout, filter, x.shape, kernel, strides, pads, dilations, outs, groups)
        input_grad = xp.moveaxis(input_grad, 1, -1) if channel_last else input_grad
        input_grad = xp.ascontiguousarray(input_grad).astype(input.dtype, copy=False)
    return input_grad, filter_grad


def _col2im(xp, gout, filter, x_shape, kernel, strides, pads, dilations, outs, groups):
    """The gradient [N, C, *sizes] of an input whose columns multiplied the filter
    [O, C/groups, *kernel] gave an output [N, O, *outs] whose gradient is gout:
    gout times the filter back into columns, each column entry added into the
    input position it was read from. On the CPU a loop over the kernel's
    positions (each a whole-tensor strided add, the cheapest per element); on a
    GPU, where every call costs the host 8-30 us, one gather with a cached index
    (one launch, prod(kernel) reads per input element)."""
    if xp is np:
        full_pads = tuple(((ks - 1) * d - b, (ks - 1) * d - a) for ks, d, (b, a) in zip(kernel, dilations, pads))
        if (all(s == 1 for s in strides) and all(p >= 0 for pair in full_pads for p in pair)
                and filter.shape[0] <= 2 * filter.shape[1] * groups):
            return _col2im_by_convolution(xp, gout, filter, x_shape, full_pads, dilations, groups)
        return _col2im_loop(xp, gout, filter, x_shape, kernel, strides, pads, dilations, outs, groups)
    return _col2im_gather(xp, gout, filter, x_shape, kernel, strides, pads, dilations, outs, groups)


def _col2im_by_convolution(xp, gout, filter, x_shape, full_pads, dilations, groups):
    """col2im of a stride-1 convolution as the "full" convolution of gout with the
    filter flipped and its channel axes swapped. Its columns hold O/g * prod(kernel)
    rows per sample where col2im's hold C/g * prod(kernel) and add them back
    prod(kernel) times, so on the CPU it is the cheaper one unless O/g is over
    about twice C/g (measured: 0.5x for 3x3 with O == C, 0.85x at O == 2C, 1.7x
    for LeNet's 6 -> 16 5x5)."""
    o, per_group_in = filter.shape[:2]
    k = filter.ndim - 2
    flipped = filter[(slice(None), slice(None)) + (slice(None, None, -1),) * k]
    swapped = flipped.reshape((groups, o // groups, per_group_in) + filter.shape[2:]).swapaxes(1, 2)
    swapped = xp.ascontiguousarray(swapped).reshape((groups * per_group_in, o // groups) + filter.shape[2:])
    return _convolve(xp, gout, swapped, (1,) * k, full_pads, dilations, tuple(x_shape[2:]), groups)


def _col2im_loop(xp, gout, filter, x_shape, kernel, strides, pads, dilations, outs, groups):
    """Per sample the filter's transpose times gout gives the columns [N, C, *kernel,
    *outs] (each kernel position's block contiguous per channel, so the adds
    read in memory order); each position's block is added into a zero padded input."""
    n, c = x_shape[:2]
    o = gout.shape[1]
    matrix = filter.reshape(groups, o // groups, c // groups * math.prod(kernel)).swapaxes(1, 2)
    blocks = xp.matmul(matrix, gout.reshape(n, groups, o // groups, math.prod(outs)))   # [N, g, C/g*K, P]
    blocks = blocks.reshape((n, c) + tuple(kernel) + tuple(outs))
    padded = xp.zeros((n, c) + tuple(size + b + a for size, (b, a) in zip(x_shape[2:], pads)), dtype=blocks.dtype)
    for position in itertools.product(*(range(ks) for ks in kernel)):
        target = (slice(None), slice(None)) + tuple(
            slice(p * d, p * d + (m - 1) * s + 1, s) for p, d, m, s in zip(position, dilations, outs, strides))
        padded[target] += blocks[(slice(None), slice(None)) + position]
    crop = (slice(None), slice(None)) + tuple(slice(b, b + size) for size, (b, _) in zip(x_shape[2:], pads))
    return padded[crop]


def _col2im_gather(xp, gout, filter, x_shape, kernel, strides, pads, dilations, outs, groups):
    """col2im in a dozen calls whatever the kernel's size: per sample the filter's
    transpose times gout gives each channel's columns as [prod(kernel) + 1,
    prod(outs)] (the extra row is zero: the filter is padded with a zero tap),
    and each input position sums its prod(kernel) entries, read through an index
    that points windows not covering it at the zero row."""
    n, c = x_shape[:2]
    o = gout.shape[1]
    taps, positions = math.prod(kernel), math.prod(outs)
    per_group_in, per_group_out = c // groups, o // groups
    padded_filter = xp.zeros((o, per_group_in, taps + 1), dtype=filter.dtype)
    padded_filter[:, :, :taps] = filter.reshape(o, per_group_in, taps)
    matrix = padded_filter.reshape(groups, per_group_out, per_group_in * (taps + 1)).swapaxes(1, 2)
    cols = xp.matmul(matrix, gout.reshape(n, groups, per_group_out, positions))   # [N, g, C/g*(K+1), P]
    index = _col2im_index_on_device(xp, tuple(x_shape[2:]), tuple(kernel), tuple(strides),
                                    tuple(b for b, _ in pads), tuple(dilations), tuple(outs))
    picked = xp.take(cols.reshape(n, c, (taps + 1) * positions), index, axis=2)     # [N, C, T*K]
    return picked.reshape(n, c, math.prod(x_shape[2:]), taps).sum(axis=3).reshape(x_shape)


_INDEX_ON_DEVICE: dict = {}  # (device, geometry) -> _col2im_index on that device


def _col2im_index_on_device(xp, *geometry):
    """_col2im_index on the current device, looked up by its geometry (on_device
    alone would hash the index's bytes, up to megabytes, on every call)."""
    key = (xp.cuda.runtime.getDevice(),) + geometry
    found = _INDEX_ON_DEVICE.get(key)
    if found is None:
        if len(_INDEX_ON_DEVICE) >= 64:
            _INDEX_ON_DEVICE.clear()
        found = _INDEX_ON_DEVICE[key] = on_device(xp, _col2im_index(*geometry))
    return found


@functools.lru_cache(maxsize=64)
def _col2im_index(sizes, kernel, strides, before, dilations, outs):
    """[prod(sizes) * prod(kernel)]: for input position t and kernel position k (row
    major), the entry k * prod(outs) + p of the output position p whose window
    reads t at k, or prod(kernel) * prod(outs) (the zero row) when none does."""
    k = len(sizes)
    taps, positions = math.prod(kernel), math.prod(outs)
    source = np.zeros(sizes + kernel, dtype=np.int64)
    valid = np.ones(sizes + kernel, dtype=bool)
    for axis, (size, ks, s, b, d, o) in enumerate(zip(sizes, kernel, strides, before, dilations, outs)):
        shape = [1] * (2 * k)
        shape[axis], shape[k + axis] = size, ks
        q = (np.arange(size)[:, None] + b - np.arange(ks)[None, :] * d).reshape(shape)
        p = q // s
        valid &= (q >= 0) & (q % s == 0) & (p < o)
        tap = np.broadcast_to(np.arange(ks)[None, :], (size, ks)).reshape(shape)
        source = source + p * math.prod(outs[axis + 1:]) + tap * math.prod(kernel[axis + 1:]) * positions
    index = np.where(valid, source, taps * positions).reshape(-1)
    index = index.astype(np.int32 if (taps + 1) * positions < 2 ** 31 else np.int64)
    index.flags.writeable = False
    return index


def conv_transpose_nd(ctx, x, filter, strides, paddings, output_padding, output_size, padding_algorithm, groups,
                      dilations, data_format):
    """x [N, C_in, *in] times filter [C_in, C_out/g, *k] back into columns, added into the output (col2im)."""
    xp = ctx.xp
    channel_last = data_format in ("NHWC", "NDHWC")
    x = channel_first(xp, x, channel_last)
    kernel, ins = filter.shape[2:], x.shape[2:]
    pads, dilations, outs = conv_transpose_geometry(ins, kernel, strides, paddings, output_padding, output_size,
                                                    padding_algorithm, dilations)
    c_out = filter.shape[1] * groups
    out = _col2im(xp, x, filter, (x.shape[0], c_out) + outs, kernel, strides, pads, dilations, ins, groups)
    out = xp.moveaxis(out, 1, -1) if channel_last else out
    return xp.ascontiguousarray(out).astype(x.dtype, copy=False)


def conv_transpose_nd_grad(ctx, x, filter, out_grad, strides, paddings, output_padding, output_size,
                           padding_algorithm, groups, dilations, data_format, *, out_mask=None):
    """(x_grad: the convolution of out_grad with the filter, filter_grad: x against out_grad's columns)."""
    xp = ctx.xp
    want_x, want_filter = out_mask or (True, True)
    channel_last = data_format in ("NHWC", "NDHWC")
    xc = channel_first(xp, x, channel_last)
    gout = channel_first(xp, out_grad, channel_last)
    kernel, ins = filter.shape[2:], xc.shape[2:]
    pads, dilations, _ = conv_transpose_geometry(ins, kernel, strides, paddings, output_padding, output_size,
                                                 padding_algorithm, dilations)
    # x played a convolution's output gradient: its gradient is the convolution of out_grad with
    # the filter, and the filter's is that convolution's filter gradient with x as the output's
    x_grad = filter_grad = None
    if want_x:
        x_grad = _convolve(xp, gout, filter, strides, pads, dilations, ins, groups)
        x_grad = xp.moveaxis(x_grad, 1, -1) if channel_last else x_grad
        x_grad = xp.ascontiguousarray(x_grad).astype(x.dtype, copy=False)
    if want_filter:
        filter_grad = _filter_gradient(xp, gout, xc, filter.shape, strides, pads, dilations, ins, groups)
        filter_grad = filter_grad.astype(filter.dtype, copy=False)
    return x_grad, filter_grad


for _name in ("conv2d_transpose", "conv3d_transpose"):
    register_kernel(_name, ALL_BACKENDS, FLOATS)(conv_transpose_nd)
    register_kernel(f"{_name}_grad", ALL_BACKENDS, FLOATS)(conv_transpose_nd_grad)

for _name in ("conv2d", "conv3d"):
    register_kernel(_name, ALL_BACKENDS, FLOATS)(conv_nd)
    register_kernel(f"{_name}_grad", ALL_BACKENDS, FLOATS)(conv_nd_grad)
