"""Convolution kernels (conv2d, conv3d, conv2d_transpose, conv3d_transpose) and
their gradients, written once for any number of spatial axes.

The forward is im2col plus one batched matmul: a strided sliding-window view
of the padded input is copied once into columns [groups, N*out, C/g*kernel]
and multiplied by the filter as [groups, C/g*kernel, O/g], so the arithmetic
is BLAS (cuBLAS on the GPU) with no loop over pixels. The filter gradient is
the same columns times the output gradient; the input gradient multiplies
the output gradient back into columns and adds each kernel position's slice
into the padded input (col2im: a loop over the kernel's positions, e.g. 9 for
3x3, each a whole-tensor add). Filters are [O, C/groups, *kernel] in both
data formats, as in Paddle; channel-last inputs are moved to channel-first
and back.

A transposed convolution is the input gradient of a convolution: its forward
is the matmul-then-col2im above (x playing the output gradient, the filter
[C_in, C_out/groups, *kernel] playing a convolution filter [O, C/groups,
*kernel]), and its gradients are a convolution of the output gradient (x's)
and the columns of the output gradient times x (the filter's).
"""
from __future__ import annotations

import itertools
import math

from ..common.shape_rules import window_geometry
from ..core.kernel_registry import register_kernel
from ..infermeta.conv import conv_transpose_geometry
from .dtypes import ALL_BACKENDS, FLOATS
from .funcs import channel_first


def _geometry(x_shape, w_shape, strides, paddings, padding_algorithm, dilations):
    """(pads, dilations, output sizes) for a channel-first input."""
    return window_geometry(x_shape[2:], w_shape[2:], strides, paddings, dilations, padding_algorithm)


def _columns(xp, x, kernel, strides, pads, dilations, outs, groups):
    """im2col: [groups, N * prod(outs), C/groups * prod(kernel)], a copy."""
    k = len(kernel)
    n, c = x.shape[:2]
    if any(p for pair in pads for p in pair):
        x = xp.pad(x, ((0, 0), (0, 0)) + tuple(pads))
    span = tuple(d * (ks - 1) + 1 for ks, d in zip(kernel, dilations))
    windows = xp.lib.stride_tricks.sliding_window_view(x, span, axis=tuple(range(2, 2 + k)))
    index = ((slice(None), slice(None)) + tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(outs, strides))
             + tuple(slice(None, None, d) for d in dilations))
    windows = windows[index]                                          # [N, C, *outs, *kernel]
    windows = windows.reshape((n, groups, c // groups) + windows.shape[2:])
    order = (1, 0) + tuple(range(3, 3 + k)) + (2,) + tuple(range(3 + k, 3 + 2 * k))
    cols = xp.transpose(windows, order)                              # [g, N, *outs, C/g, *kernel]
    return xp.ascontiguousarray(cols).reshape(groups, n * math.prod(outs), c // groups * math.prod(kernel))


def _filter_matrix(w, groups):
    """[groups, C/groups * prod(kernel), O/groups]."""
    o = w.shape[0]
    return w.reshape(groups, o // groups, math.prod(w.shape[1:])).swapaxes(1, 2)


def _out_grad_matrix(xp, out_grad, groups):
    """out_grad [N, O, *outs] as [groups, N * prod(outs), O/groups]."""
    n, o = out_grad.shape[:2]
    k = out_grad.ndim - 2
    g = out_grad.reshape((n, groups, o // groups) + out_grad.shape[2:])
    g = xp.transpose(g, (1, 0) + tuple(range(3, 3 + k)) + (2,))     # [g, N, *outs, O/g]
    return g.reshape(groups, n * math.prod(out_grad.shape[2:]), o // groups)


def conv_nd(ctx, input, filter, strides, paddings, padding_algorithm, dilations, groups, data_format):
    xp = ctx.xp
    channel_last = data_format in ("NHWC", "NDHWC", "NLC")
    x = channel_first(xp, input, channel_last)
    pads, dilations, outs = _geometry(x.shape, filter.shape, strides, paddings, padding_algorithm, dilations)
    cols = _columns(xp, x, filter.shape[2:], strides, pads, dilations, outs, groups)
    out = xp.matmul(cols, _filter_matrix(filter, groups))            # [g, N*outs, O/g]
    out = _from_matrix(xp, out, x.shape[0], outs, filter.shape[0], groups)
    out = xp.moveaxis(out, 1, -1) if channel_last else out
    return xp.ascontiguousarray(out)


def _from_matrix(xp, mat, n, outs, o, groups):
    """[groups, N * prod(outs), O/groups] back to [N, O, *outs] (the inverse of _out_grad_matrix)."""
    k = len(outs)
    mat = mat.reshape((groups, n) + tuple(outs) + (o // groups,))
    mat = xp.transpose(mat, (1, 0, k + 2) + tuple(range(2, 2 + k)))  # [N, g, O/g, *outs]
    return mat.reshape((n, o) + tuple(outs))


def conv_nd_grad(ctx, input, filter, out_grad, strides, paddings, padding_algorithm, dilations, groups,
                 data_format, *, out_mask=None):
    xp = ctx.xp
    want_input, want_filter = out_mask or (True, True)
    channel_last = data_format in ("NHWC", "NDHWC", "NLC")
    x = channel_first(xp, input, channel_last)
    gout = channel_first(xp, out_grad, channel_last)
    kernel = filter.shape[2:]
    pads, dilations, outs = _geometry(x.shape, filter.shape, strides, paddings, padding_algorithm, dilations)
    g_mat = _out_grad_matrix(xp, gout, groups)                        # [g, N*outs, O/g]
    input_grad = filter_grad = None
    if want_filter:
        cols = _columns(xp, x, kernel, strides, pads, dilations, outs, groups)
        filter_grad = xp.matmul(g_mat.swapaxes(1, 2), cols).reshape(filter.shape).astype(filter.dtype, copy=False)
    if want_input:
        dcols = xp.matmul(g_mat, _filter_matrix(filter, groups).swapaxes(1, 2))   # [g, N*outs, C/g*K]
        input_grad = _col2im(xp, dcols, x.shape, kernel, strides, pads, dilations, outs, groups)
        input_grad = xp.moveaxis(input_grad, 1, -1) if channel_last else input_grad
        input_grad = xp.ascontiguousarray(input_grad).astype(input.dtype, copy=False)
    return input_grad, filter_grad


def _col2im(xp, dcols, x_shape, kernel, strides, pads, dilations, outs, groups):
    """Adds each kernel position's column block into a zero padded input."""
    n, c = x_shape[:2]
    k = len(kernel)
    blocks = dcols.reshape((groups, n) + outs + (c // groups,) + tuple(kernel))
    order = (1, 0, k + 2) + tuple(range(2, 2 + k)) + tuple(range(k + 3, 3 + 2 * k))
    blocks = xp.transpose(blocks, order).reshape((n, c) + outs + tuple(kernel))   # [N, C, *outs, *kernel]
    padded = xp.zeros((n, c) + tuple(size + b + a for size, (b, a) in zip(x_shape[2:], pads)), dtype=dcols.dtype)
    for position in itertools.product(*(range(ks) for ks in kernel)):
        target = (slice(None), slice(None)) + tuple(
            slice(p * d, p * d + (o - 1) * s + 1, s) for p, d, o, s in zip(position, dilations, outs, strides))
        padded[target] += blocks[(Ellipsis,) + position]
    crop = (slice(None), slice(None)) + tuple(slice(b, b + size) for size, (b, _) in zip(x_shape[2:], pads))
    return padded[crop]


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
    dcols = xp.matmul(_out_grad_matrix(xp, x, groups), _filter_matrix(filter, groups).swapaxes(1, 2))
    out = _col2im(xp, dcols, (x.shape[0], c_out) + outs, kernel, strides, pads, dilations, ins, groups)
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
    cols = _columns(xp, gout, kernel, strides, pads, dilations, ins, groups)   # [g, N*ins, C_out/g*K]
    x_grad = filter_grad = None
    if want_x:
        x_grad = _from_matrix(xp, xp.matmul(cols, _filter_matrix(filter, groups)), xc.shape[0], ins,
                              filter.shape[0], groups)
        x_grad = xp.moveaxis(x_grad, 1, -1) if channel_last else x_grad
        x_grad = xp.ascontiguousarray(x_grad).astype(x.dtype, copy=False)
    if want_filter:
        filter_grad = xp.matmul(_out_grad_matrix(xp, xc, groups).swapaxes(1, 2), cols)
        filter_grad = filter_grad.reshape(filter.shape).astype(filter.dtype, copy=False)
    return x_grad, filter_grad


for _name in ("conv2d_transpose", "conv3d_transpose"):
    register_kernel(_name, ALL_BACKENDS, FLOATS)(conv_transpose_nd)
    register_kernel(f"{_name}_grad", ALL_BACKENDS, FLOATS)(conv_transpose_nd_grad)

for _name in ("conv2d", "conv3d"):
    register_kernel(_name, ALL_BACKENDS, FLOATS)(conv_nd)
    register_kernel(f"{_name}_grad", ALL_BACKENDS, FLOATS)(conv_nd_grad)
