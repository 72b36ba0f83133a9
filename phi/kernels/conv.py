"""Convolution kernels (conv2d, conv3d, conv2d_transpose, conv3d_transpose) and
their gradients, written once for any number of spatial axes.

The forward is im2col plus matmul: the padded input's columns [groups,
C/g*kernel, positions] per sample are copied out of a strided view and the
filter [groups, O/g, C/g*kernel] times them is the output as it lies, so the
arithmetic is BLAS (cuBLAS on the GPU) with no loop over pixels. On the CPU
the columns are copied and multiplied a block of samples at a time (about
1 MiB of columns, still in the cache when the matmul reads them), and a
stride-1 convolution's columns are "wide" (_column_source): every padded
position of the axes after the first, so each kernel position's block is one
contiguous run of the padded input per channel; a 1x1 stride-1 kernel
multiplies x itself. The filter gradient is, per block, gout's rows [groups,
O/g, b*positions] times the block's columns, contracting the samples and the
positions in one matmul, summed over the blocks. The input gradient
multiplies the filter's transpose by the output gradient back into
per-sample columns and adds each kernel position's block into the input
(col2im: on the CPU by the input's stride phases, each kernel position's block
one flat add into its phase's buffer, or for strided 1x1 kernels a loop of
strided adds; on a GPU one gather), or for a stride-1 convolution on the
CPU is the full convolution of gout with the flipped filter. Filters are [O,
C/groups, *kernel] in both data formats, as in Paddle; channel-last inputs are
moved to channel-first and back.

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


def _steps_taken(strides, dilations, outs, kernel, sizes, pads):
    """strides cut to the padded input's extent along axes of one output, and dilation 1
    along axes of one kernel tap: no such step is taken, so the results are the same,
    and a huge stride or dilation there (Paddle takes any) would otherwise overflow the
    windows' byte strides or make a stride phase per step."""
    return (tuple(s if o > 1 else min(s, n + b + a) for s, o, n, (b, a) in zip(strides, outs, sizes, pads)),
            tuple(d if k > 1 else 1 for d, k in zip(dilations, kernel)))


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


def _strided(xp, base, shape, strides):
    """A read-only strided view of ``base`` (byte strides). On the CPU over a C-contiguous
    base, the ndarray constructor: 1.5 us against as_strided's 7.5, and it refuses a view
    that would read past the base."""
    if xp is np and base.flags.c_contiguous:
        return np.ndarray(shape, base.dtype, base, 0, strides)
    return xp.lib.stride_tricks.as_strided(base, shape, strides)


def _windows(xp, x, kernel, strides, pads, dilations, outs):
    """The padded input's windows as a strided view [N, C, *outs, *kernel]
    (as_strided directly: sliding_window_view's checks cost CuPy ~190 us of
    host time per call)."""
    x = _padded(xp, x, pads)
    for size, o, s, ks, d in zip(x.shape[2:], outs, strides, kernel, dilations):
        if o and (o - 1) * s + (ks - 1) * d >= size:  # as_strided checks no bounds: never read past x
            raise ValueError(f"conv im2col: windows of {outs} outputs overrun the padded input {x.shape[2:]}")
    spatial = x.strides[2:]
    return _strided(
        xp, x, x.shape[:2] + tuple(outs) + tuple(kernel),
        x.strides[:2] + tuple(st * s for st, s in zip(spatial, strides))
        + tuple(st * d for st, d in zip(spatial, dilations)))


# Columns are copied and multiplied a block of samples at a time on the CPU: a block's columns
# (about this many bytes) are still in the cache when the matmul reads them, where a whole
# batch's (tens of MB) went out to memory between the copy and the matmul. The kernels alone
# measured 512 KiB to 1 MiB best (flat between); the whole ResNet and LeNet steps 1 MiB never
# slower than 512 KiB (docs/performance.md).
_BLOCK_BYTES = 1 << 20
# col2im's adds on the CPU, per block of samples of at most this many bytes of columns: the adds
# are prod(kernel) calls per block, and blocks small enough for the cache cost more calls than
# they save (measured: 0.5-2 MiB blocks 0-40% slower than 8 MiB for ResNet's and LeNet's shapes).
_ADD_BLOCK_BYTES = 1 << 23
# col2im on the CPU by stride phases (_col2im_phases) wherever some phase takes two or more kernel
# positions, in blocks of about this many bytes of columns (1-2 MiB within the noise of each other,
# 8 MiB up to 1.35x slower; docs/performance.md, "Conv against PyTorch, per geometry"). Long output
# rows once kept the loop; measured again (docs/performance.md, "col2im: phases for long rows too")
# the phases were 0.48-0.80x the loop's time for strided rows of 33-112 outputs and 0.67-1.0x at
# stride 1, so only kernels with one position per phase (1x1 strided) keep the loop.
_PHASE_BLOCK_BYTES = 1 << 21
# A stride-1 convolution's "wide" columns (below) cover every padded position of the axes after
# the first; taken while that is at most this many times the output positions (8x8 outputs of a
# 3x3 kernel with padding 1: 80 / 64, 1.25; 4x4: 24 / 16, 1.5).
_WIDE_WASTE = 1.5
# The filter gradient takes wide columns only from this many input channels per group on: with
# fewer, the columns' copy saves less than the wide layout costs elsewhere (gout's O channels
# widened by a copy, the GEMM's extra positions). Filter gradient alone, windows against wide,
# 40 rounds alternating the order, two runs: the 3 -> 16 stem (32px) 1.25, 1.18 against 1.33,
# 1.24 ms; LeNet's 1 -> 6 (5x5, 28px) 1.27, 1.26 against 1.35, 1.32; from 6 channels on (LeNet's
# 6 -> 16: even; 16 -> 16: 5.0-5.3 against 4.5-5.0) wide.
_WIDE_FILTER_CHANNELS = 4


def _samples_per_block(xp, n, per_sample, size=None):
    """Samples per block of the column copies: about ``size`` (_BLOCK_BYTES) bytes of
    columns on the CPU, the whole batch on a GPU (one launch per step there)."""
    if xp is not np or n == 0:
        return max(n, 1)
    return max(1, min(n, (size or _BLOCK_BYTES) // max(per_sample, 1)))


def _column_source(xp, x, kernel, strides, pads, dilations, outs, wide=True):
    """What the columns are copied from: (source, grid, layout). ``source`` is a view
    [N, C, *kernel, *positions] whose copy is the columns (C * prod(kernel) rows of
    prod(grid) positions per sample); ``grid`` the positions the matmul computes,
    of which ``outs`` (leading corner) are the output; ``layout`` "direct" when x
    itself is the columns (a 1x1 stride-1 unpadded kernel: no copy at all), else
    "windows" or "wide".

    The windows: grid == outs, each kernel position's block a
    strided view of the padded input (inner runs of outs[-1] elements, times the
    stride). "Wide", on the CPU for a stride-1 convolution: the output positions
    of the first spatial axis times every padded position of the others, flat;
    kernel position t then reads the padded input from the flat offset of t on,
    one contiguous run per channel, so the copy is a memcpy per (channel, t). The
    positions past outs[1:] read across a row's end into the next and are cut off
    after the matmul (the forward) or meet zeros (the filter gradient); the
    padded input gets one more slab along its first axis for the last window's
    overrun. ``wide=False`` keeps the windows where wide columns would be taken."""
    k = len(kernel)
    n, c = x.shape[:2]
    if (math.prod(kernel) == 1 and all(s == 1 for s in strides)
            and not any(p for pair in pads for p in pair)):
        return x.reshape((n, c) + (1,) * k + (math.prod(outs),)), tuple(outs), "direct"
    if wide and xp is np and all(s == 1 for s in strides):
        padded_sizes = tuple(m + b + a for m, (b, a) in zip(x.shape[2:], pads))
        grid = (outs[0],) + padded_sizes[1:]
        if math.prod(grid) <= _WIDE_WASTE * math.prod(outs):
            slab = math.prod(padded_sizes[1:])
            buffer = xp.zeros((n, c, padded_sizes[0] + 1) + padded_sizes[1:], dtype=x.dtype)
            buffer[(slice(None), slice(None)) + tuple(slice(b, b + m) for m, (b, _) in zip(x.shape[2:], pads))] = x
            item = buffer.itemsize
            offsets = [math.prod(padded_sizes[axis + 1:]) for axis in range(k)]   # elements per step of each axis
            source = _strided(
                xp, buffer, (n, c) + tuple(kernel) + (outs[0] * slab,),
                buffer.strides[:2] + tuple(step * d * item for step, d in zip(offsets, dilations)) + (item,))
            return source, grid, "wide"
    windows = _windows(xp, x, kernel, strides, pads, dilations, outs)       # [N, C, *outs, *kernel]
    order = (0, 1) + tuple(range(2 + k, 2 + 2 * k)) + tuple(range(2, 2 + k))
    return xp.transpose(windows, order), tuple(outs), "windows"


def _convolve(xp, x, filter, strides, pads, dilations, outs, groups):
    """x [N, C, *sizes] convolved with filter [O, C/groups, *kernel]: [N, O, *outs].

    Per block of samples the columns [b, groups, C/groups * prod(kernel),
    prod(grid)] (see _column_source) are copied into one reused buffer and the
    filter [groups, O/groups, C/groups * prod(kernel)] times them is the block's
    output as it lies: written by the matmul into the output (or, for wide
    columns, into a block buffer whose leading corner is copied out)."""
    n, c = x.shape[:2]
    o, kernel = filter.shape[0], filter.shape[2:]
    taps = math.prod(kernel)
    matrix = filter.reshape(groups, o // groups, c // groups * taps)
    source, grid, layout = _column_source(xp, x, kernel, strides, pads, dilations, outs)
    length = math.prod(grid)
    out = xp.empty((n, o) + tuple(outs), dtype=xp.result_type(x.dtype, filter.dtype))
    if layout == "direct":
        xp.matmul(matrix, x.reshape(n, groups, c // groups, length),
                  out=out.reshape(n, groups, o // groups, length))
        return out
    block = _samples_per_block(xp, n, c * taps * length * x.itemsize)
    columns = xp.empty((block,) + source.shape[1:], dtype=x.dtype)
    wide = grid != tuple(outs)
    products = xp.empty((block, o) + grid, dtype=out.dtype) if wide else None
    corner = (slice(None), slice(None)) + tuple(slice(0, m) for m in outs)
    for start in range(0, n, block):
        stop = min(start + block, n)
        part = columns[:stop - start]
        part[...] = source[start:stop]
        target = products[:stop - start] if wide else out[start:stop]
        xp.matmul(matrix, part.reshape(stop - start, groups, c // groups * taps, length),
                  out=target.reshape(stop - start, groups, o // groups, length))
        if wide:
            out[start:stop] = target[corner]
    return out


def _filter_gradient(xp, x, gout, filter_shape, strides, pads, dilations, outs, groups, out=None):
    """The gradient [O, C/groups, *kernel] of the filter that convolved x [N, C, *sizes]
    into an output [N, O, *outs] whose gradient is gout: gout's rows [groups,
    O/groups, N, prod(grid)] (one transposing copy; zeros at a wide grid's extra
    positions) times x's columns, per block of samples one matmul contracting
    the block's samples and positions, [groups, C/groups * prod(kernel), b *
    prod(grid)] (copied into one reused buffer), the blocks' products summed.
    ``out``: a C-contiguous array of filter_shape written into instead of a new one."""
    n, c = x.shape[:2]
    o, kernel = gout.shape[1], tuple(filter_shape[2:])
    k, taps = len(kernel), math.prod(kernel)
    source, grid, _ = _column_source(xp, x, kernel, strides, pads, dilations, outs,
                                     wide=c // groups >= _WIDE_FILTER_CHANNELS)
    length = math.prod(grid)
    dtype = xp.result_type(x.dtype, gout.dtype)
    rows = xp.empty((o, n) + grid, dtype=gout.dtype)
    for axis in range(1, k):              # a wide grid's positions past outs (only ever after the first axis)
        if grid[axis] > outs[axis]:
            rows[(slice(None),) * (2 + axis) + (slice(outs[axis], None),)] = 0
    rows[(slice(None), slice(None)) + tuple(slice(0, m) for m in outs)] = gout.swapaxes(0, 1)
    rows = rows.reshape(groups, o // groups, n, length)
    if out is None:
        out = xp.empty(tuple(filter_shape), dtype=dtype)
    total = out.reshape(groups, o // groups, c // groups * taps)
    if n == 0:
        total[...] = 0
        return out
    block = _samples_per_block(xp, n, c * taps * length * x.itemsize)
    # [C, *kernel, N, *grid]: each block's copy keeps its positions innermost
    source = xp.transpose(source, (1,) + tuple(range(2, 2 + k)) + (0,) + tuple(range(2 + k, source.ndim)))
    scratch = xp.empty(c * taps * block * length, dtype=x.dtype)
    for start in range(0, n, block):
        stop = min(start + block, n)
        part = scratch[:c * taps * (stop - start) * length].reshape(
            source.shape[:1 + k] + (stop - start,) + source.shape[2 + k:])
        part[...] = source[(slice(None),) * (1 + k) + (slice(start, stop),)]
        cols = part.reshape(groups, c // groups * taps, (stop - start) * length).swapaxes(1, 2)
        lhs = rows[:, :, start:stop].reshape(groups, o // groups, (stop - start) * length)
        if start == 0:
            xp.matmul(lhs, cols, out=total)
        else:
            total += xp.matmul(lhs, cols)
    return out


def conv_nd(ctx, input, filter, strides, paddings, padding_algorithm, dilations, groups, data_format):
    xp = ctx.xp
    channel_last = data_format in ("NHWC", "NDHWC", "NLC")
    x = channel_first(xp, input, channel_last)
    pads, dilations, outs = _geometry(x.shape, filter.shape, strides, paddings, padding_algorithm, dilations)
    if 1 in outs or 1 in filter.shape[2:]:
        strides, dilations = _steps_taken(strides, dilations, outs, filter.shape[2:], x.shape[2:], pads)
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
    if 1 in outs or 1 in kernel:
        strides, dilations = _steps_taken(strides, dilations, outs, kernel, x.shape[2:], pads)
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
    input position it was read from. On the CPU: for stride 1 with O/g at most
    twice C/g the full convolution; where some stride phase takes two or more
    kernel positions, by phases (_col2im_phases); else (a strided 1x1 kernel:
    one position per phase) a loop over the kernel's positions (each a
    whole-tensor strided add). On a GPU, where every call costs
    the host 8-30 us, one gather with a cached index (one launch, prod(kernel)
    reads per input element)."""
    if xp is np:
        full_pads = tuple(((ks - 1) * d - b, (ks - 1) * d - a) for ks, d, (b, a) in zip(kernel, dilations, pads))
        if (all(s == 1 for s in strides) and all(p >= 0 for pair in full_pads for p in pair)
                and filter.shape[0] <= 2 * filter.shape[1] * groups):
            return _col2im_by_convolution(xp, gout, filter, x_shape, full_pads, dilations, groups)
        if outs and math.prod(outs) and math.prod(x_shape[2:]):
            plan = _phase_plan(tuple(x_shape[2:]), tuple(kernel), tuple(strides), tuple(map(tuple, pads)),
                               tuple(dilations), tuple(outs))
            if max(len(taps) for _, _, taps in plan[3]) >= 2:
                return _col2im_phases(xp, gout, filter, x_shape, kernel, groups, plan)
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
    """Per block of samples the filter's transpose times gout gives the columns [b,
    C, *kernel, *outs] (into one reused buffer, each kernel position's block
    contiguous per channel, so the adds read in memory order); each position's
    block is added into the input's gradient where it lies inside the input (the
    parts that fell on the padding are skipped, so no padded copy is cropped)."""
    n, c = x_shape[:2]
    o = gout.shape[1]
    taps, positions = math.prod(kernel), math.prod(outs)
    matrix = filter.reshape(groups, o // groups, c // groups * taps).swapaxes(1, 2)
    dtype = xp.result_type(gout.dtype, filter.dtype)
    out = xp.zeros(tuple(x_shape), dtype=dtype)
    adds = _col2im_adds(tuple(x_shape[2:]), tuple(kernel), tuple(strides), tuple(map(tuple, pads)), tuple(dilations),
                        tuple(outs))
    block = _samples_per_block(xp, n, c * taps * positions * dtype.itemsize, _ADD_BLOCK_BYTES)
    columns = xp.empty((block, groups, c // groups * taps, positions), dtype=dtype)
    for start in range(0, n, block):
        stop = min(start + block, n)
        part = columns[:stop - start]
        xp.matmul(matrix, gout[start:stop].reshape(stop - start, groups, o // groups, positions), out=part)
        part = part.reshape((stop - start, c) + tuple(kernel) + tuple(outs))
        into = out[start:stop]
        for target, source in adds:
            into[(slice(None), slice(None)) + target] += part[(slice(None), slice(None)) + source]
    return out


@functools.lru_cache(maxsize=256)
def _phase_plan(sizes, kernel, strides, pads, dilations, outs):
    """_col2im_phases' plan: (grid, ext, plane, phases). Input index i = j * s + p * d -
    before of output j and kernel index p lies in phase r = i mod s at phase index
    u = j + q, q = (p * d - before) // s. Each phase's gradient is accumulated in a
    buffer of ``ext`` positions per axis (phase indices from lo = min(0, q) on), flat,
    so kernel position t adds its columns at one flat offset: gout is widened to
    ``grid`` (outs[0] times ext's other axes, zeros past outs), and ``plane`` elements
    per (sample, channel) hold every tap's run. ``phases``: per phase r (row major),
    (the output's strided slice of it, the buffer's slice of its positions, ((tap,
    offset), ...))."""
    per_axis = [[((p * d - b) % s, (p * d - b) // s) for p in range(ks)]
                for ks, s, d, (b, _) in zip(kernel, strides, dilations, pads)]
    lo = tuple(min(0, *(q for _, q in axis)) for axis in per_axis)
    hi = tuple(max(-(-size // s), m + max(q for _, q in axis))
               for axis, size, s, m in zip(per_axis, sizes, strides, outs))
    ext = tuple(h - low for h, low in zip(hi, lo))
    grid = (outs[0],) + ext[1:]
    length = math.prod(grid)
    pitches = [math.prod(ext[axis + 1:]) for axis in range(len(ext))]
    by_phase = {}
    for t, position in enumerate(itertools.product(*(range(ks) for ks in kernel))):
        phase = tuple(per_axis[axis][p][0] for axis, p in enumerate(position))
        offset = sum((per_axis[axis][p][1] - lo[axis]) * pitches[axis] for axis, p in enumerate(position))
        by_phase.setdefault(phase, []).append((t, offset))
    plane = max([math.prod(ext)] + [offset + length for taps in by_phase.values() for _, offset in taps])
    phases = []
    for phase in itertools.product(*(range(s) for s in strides)):
        counts = (-(-(size - r) // s) for size, r, s in zip(sizes, phase, strides))
        phases.append((tuple(slice(r, None, s) for r, s in zip(phase, strides)),
                       tuple(slice(-low, -low + u) for low, u in zip(lo, counts)),
                       tuple(by_phase.get(phase, ()))))
    return grid, ext, plane, tuple(phases)


def _col2im_phases(xp, gout, filter, x_shape, kernel, groups, plan):
    """col2im on the CPU by the input's stride phases (one phase for stride 1). Per
    block of samples the filter's transpose times gout (widened to the plan's grid)
    gives the columns [b * C, prod(kernel), prod(grid)]; each phase's buffer
    [b * C, plane] takes its first kernel position's run as a copy and adds the
    others' (one whole-block add per kernel position, runs of prod(grid) elements:
    the loop's adds move runs of one output row), and the phase's positions are
    copied into the gradient's strided slice of that phase. A phase no kernel
    position reaches is zero."""
    grid, ext, plane, phases = plan
    n, c = x_shape[:2]
    o = gout.shape[1]
    taps, length, outs = math.prod(kernel), math.prod(grid), gout.shape[2:]
    dtype = xp.result_type(gout.dtype, filter.dtype)
    matrix = filter.reshape(groups, o // groups, c // groups * taps).swapaxes(1, 2)
    if grid != tuple(outs):
        wide = xp.zeros((n, o) + grid, dtype=gout.dtype)
        wide[(slice(None), slice(None)) + tuple(slice(0, m) for m in outs)] = gout
        gout = wide
    gout = gout.reshape(n, groups, o // groups, length)
    out = xp.empty(tuple(x_shape), dtype=dtype)
    block = _samples_per_block(xp, n, c * taps * length * dtype.itemsize, _PHASE_BLOCK_BYTES)
    columns = xp.empty((block, groups, c // groups * taps, length), dtype=dtype)
    buffers = xp.empty((len(phases), block * c, plane), dtype=dtype)
    every = (slice(None), slice(None))
    for start in range(0, n, block):
        b = min(block, n - start)
        cols = columns[:b]
        xp.matmul(matrix, gout[start:start + b], out=cols)
        cols = cols.reshape(b * c, taps, length)
        into = out[start:start + b]
        for buffer, (target, crop, phase_taps) in zip(buffers, phases):
            if not phase_taps:
                into[every + target] = 0
                continue
            buffer = buffer[:b * c]
            (first, offset), rest = phase_taps[0], phase_taps[1:]
            buffer[:, :offset] = 0
            buffer[:, offset:offset + length] = cols[:, first]
            buffer[:, offset + length:] = 0
            for t, offset in rest:
                buffer[:, offset:offset + length] += cols[:, t]
            into[every + target] = buffer[:, :math.prod(ext)].reshape((b, c) + ext)[every + crop]
    return out


@functools.lru_cache(maxsize=256)
def _col2im_adds(sizes, kernel, strides, pads, dilations, outs):
    """col2im's adds: (target, source) index tuples per kernel position, the target the
    input positions (spatial axes) its columns' block adds into, the source the
    kernel position and the output positions whose windows read the input there
    (not the padding). A kernel position whose windows all fall on the padding adds nothing."""
    adds = []
    for position in itertools.product(*(range(ks) for ks in kernel)):
        target, source = [], []
        for p, size, s, d, (before, _), m in zip(position, sizes, strides, dilations, pads, outs):
            shift = p * d - before                     # output index j reads input index j * s + shift
            low = max(0, -(-(-shift) // s))            # the first j with j * s + shift >= 0
            high = min(m, (size - 1 - shift) // s + 1)  # one past the last j with j * s + shift < size
            if high <= low:
                break
            target.append(slice(low * s + shift, (high - 1) * s + shift + 1, s))
            source.append(slice(low, high))
        else:
            adds.append((tuple(target), position + tuple(source)))
    return tuple(adds)


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
    reached, pads = _transpose_reach(ins, kernel, strides, pads, dilations, outs)
    shape = (x.shape[0], c_out) + outs
    if reached == outs:
        out = _col2im(xp, x, filter, shape, kernel, strides, pads, dilations, ins, groups)
    else:   # the positions past ``reached`` take no input: zeros
        out = xp.zeros(shape, dtype=xp.result_type(x.dtype, filter.dtype))
        if all(reached):
            out[(slice(None), slice(None)) + tuple(slice(0, r) for r in reached)] = _col2im(
                xp, x, filter, shape[:2] + reached, kernel, strides, pads, dilations, ins, groups)
    out = xp.moveaxis(out, 1, -1) if channel_last else out
    return xp.ascontiguousarray(out).astype(x.dtype, copy=False)


def _transpose_reach(ins, kernel, strides, pads, dilations, outs):
    """(reached, pads): the output sizes a transposed convolution's input reaches and
    the pads that make its geometry a convolution's again. Output position o takes
    input i's tap t where o = i * stride - before + t * dilation, so positions from
    (ins - 1) * stride - before + dilation * (kernel - 1) + 1 on take nothing; an
    output_padding of at least the stride (allowed up to the dilation, as in Paddle)
    reaches past them. Within the reach, after-padding is what is left of that span,
    so the columns' windows count exactly ``ins`` per axis."""
    reached, new_pads = [], []
    for size, ks, s, d, (before, after), o in zip(ins, kernel, strides, dilations, pads, outs):
        span = (size - 1) * s + d * (ks - 1) + 1          # positions from -before
        if (o + before + after - span) // s == 0:       # the windows fit as they are
            reached.append(o)
            new_pads.append((before, after))
        else:
            r = max(0, min(o, span - before))
            reached.append(r)
            new_pads.append((before, span - before - r))
    return tuple(reached), tuple(new_pads)


def conv_transpose_nd_grad(ctx, x, filter, out_grad, strides, paddings, output_padding, output_size,
                           padding_algorithm, groups, dilations, data_format, *, out_mask=None):
    """(x_grad: the convolution of out_grad with the filter, filter_grad: x against out_grad's columns)."""
    xp = ctx.xp
    want_x, want_filter = out_mask or (True, True)
    channel_last = data_format in ("NHWC", "NDHWC")
    xc = channel_first(xp, x, channel_last)
    gout = channel_first(xp, out_grad, channel_last)
    kernel, ins = filter.shape[2:], xc.shape[2:]
    pads, dilations, outs = conv_transpose_geometry(ins, kernel, strides, paddings, output_padding, output_size,
                                                    padding_algorithm, dilations)
    reached, pads = _transpose_reach(ins, kernel, strides, pads, dilations, outs)
    if reached != outs:   # the output positions no input reaches add nothing to either gradient
        if not all(reached):
            return (xp.zeros(x.shape, dtype=x.dtype) if want_x else None,
                    xp.zeros(filter.shape, dtype=filter.dtype) if want_filter else None)
        gout = gout[(slice(None), slice(None)) + tuple(slice(0, r) for r in reached)]
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
