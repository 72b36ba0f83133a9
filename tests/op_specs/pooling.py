"""The op table of the pooling ops: max/avg pooling (adaptive too), unfold, fold.

The references are written from the definitions, one output position at a
time: each window's bounds come from its own formula (start = o * stride -
pad, clipped to the input; adaptive: floor(o * n / out) to ceil((o + 1) * n /
out)), the maximum is the first in the window's row-major order, and its
mask entry is its flat index in the input plane. unfold copies one block at
a time and fold adds one block at a time. Backward ops of the linear ones
(avg pooling, unfold, fold, and each op's gradient in out_grad) take their
reference from linear_vjp.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from eager.generated import forward_api as F

from .core import Case, OpSpec, linear_vjp

_CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


def _windows(size, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive):
    """Per axis a list of (start, end, padded) of each output's window: its bounds clipped to the input, and
    its positions inside the padded input (a ceil_mode window may overhang the right padding)."""
    k = len(size)
    if adaptive:
        return [[(o * n // out, -(-(o + 1) * n // out), 0) for o in range(out)] for n, out in zip(size, kernel_size)]
    if padding_algorithm == "VALID":
        pads = [(0, 0)] * k
    elif padding_algorithm == "SAME":
        pads = []
        for n, ks, s in zip(size, kernel_size, strides):
            total = max((math.ceil(n / s) - 1) * s + ks - n, 0)
            pads.append((total // 2, total - total // 2))
    elif len(paddings) == k:
        pads = [(p, p) for p in paddings]
    else:
        pads = [(paddings[2 * i], paddings[2 * i + 1]) for i in range(k)]
    axes = []
    for n, ks, s, (before, after) in zip(size, kernel_size, strides, pads):
        span = n + before + after - ks
        count = (math.ceil(span / s) if ceil_mode else span // s) + 1
        starts = [-before + i * s for i in range(count)]
        if ceil_mode:  # a window must start inside the input or its left padding
            starts = [start for start in starts if start < n]
        axes.append([(max(start, 0), min(start + ks, n), min(start + ks, n + after) - start) for start in starts])
    return axes


def _first(x, data_format):
    return np.moveaxis(x, -1, 1) if data_format in _CHANNEL_LAST else x


def _last(x, data_format):
    return np.moveaxis(x, 1, -1) if data_format in _CHANNEL_LAST else x


def ref_max_pool(x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive, data_format):
    x = _first(x, data_format)
    size = x.shape[2:]
    axes = _windows(size, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive)
    outs = tuple(len(a) for a in axes)
    out = np.zeros(x.shape[:2] + outs, x.dtype)
    mask = np.zeros(x.shape[:2] + outs, np.int32)
    for position in itertools.product(*(range(o) for o in outs)):
        bounds = [axes[i][o] for i, o in enumerate(position)]
        for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
            best, where = None, None
            for point in itertools.product(*(range(s, e) for s, e, _ in bounds)):  # row-major window order
                value = x[(n, c) + point]
                if best is None or value > best:
                    best, where = value, point
            out[(n, c) + position] = best
            mask[(n, c) + position] = np.ravel_multi_index(where, size)
    return _last(out, data_format), _last(mask, data_format)


def ref_avg_pool(x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, exclusive, adaptive, data_format):
    x = _first(x, data_format)
    axes = _windows(x.shape[2:], kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive)
    outs = tuple(len(a) for a in axes)
    out = np.zeros(x.shape[:2] + outs, np.float64)
    for position in itertools.product(*(range(o) for o in outs)):
        bounds = [axes[i][o] for i, o in enumerate(position)]
        window = x[(slice(None), slice(None)) + tuple(slice(s, e) for s, e, _ in bounds)]
        # exclusive: the window's elements in the input; else (Paddle) its positions in the padded input
        count = math.prod(e - s for s, e, _ in bounds) if (exclusive or adaptive) else math.prod(p for *_, p in bounds)
        out[(slice(None), slice(None)) + position] = window.sum(axis=tuple(range(2, x.ndim))) / count
    return _last(out, data_format).astype(x.dtype)


def ref_max_pool_grad(x, mask, g, data_format, **_):
    """out_grad added at each output's mask index."""
    x_grad = np.zeros(_first(x, data_format).shape, np.float64)
    mask, g = _first(mask, data_format), _first(g, data_format)
    for index in np.ndindex(*mask.shape):
        point = np.unravel_index(mask[index], x_grad.shape[2:])
        x_grad[index[:2] + point] += g[index]
    return _last(x_grad, data_format).astype(g.dtype)


def _max_attrs(kernel, strides=None, paddings=None, algorithm="EXPLICIT", ceil_mode=False, adaptive=False,
               fmt=None):
    k = len(kernel)
    return {"kernel_size": list(kernel), "strides": list(strides or (1,) * k),
            "paddings": list(paddings or (0,) * k), "padding_algorithm": algorithm, "ceil_mode": ceil_mode,
            "adaptive": adaptive, "data_format": fmt or ("NCHW" if k == 2 else "NCDHW")}


def _avg_attrs(kernel, strides=None, paddings=None, algorithm="EXPLICIT", ceil_mode=False, exclusive=True,
               adaptive=False, fmt=None):
    attrs = _max_attrs(kernel, strides, paddings, algorithm, ceil_mode, adaptive, fmt)
    attrs["exclusive"] = exclusive
    return attrs


MAX2D_CASES = (
    Case(((2, 3, 4, 4),), _max_attrs((2, 2), (2, 2))),
    Case(((1, 2, 5, 6),), _max_attrs((3, 2), (2, 1), (1, 1), ceil_mode=True)),
    Case(((1, 2, 5, 4),), _max_attrs((3, 3), (2, 2), (1, 0, 2, 1))),
    Case(((2, 5, 4, 3),), _max_attrs((2, 3), (2, 2), algorithm="SAME", fmt="NHWC")),
    Case(((1, 1, 5, 5),), _max_attrs((2, 2), (2, 2), algorithm="VALID")),
    Case(((1, 2, 5, 7),), _max_attrs((3, 4), adaptive=True)),                   # irregular windows
    Case(((1, 2, 4, 6),), _max_attrs((2, 3), adaptive=True, fmt="NHWC")),      # regular windows
    Case(((0, 2, 4, 4),), _max_attrs((2, 2), (2, 2))),                          # an empty batch
)
MAX3D_CASES = (
    Case(((1, 2, 3, 4, 4),), _max_attrs((2, 2, 2), (1, 2, 2), (0, 1, 1))),
    Case(((1, 3, 3, 4, 2),), _max_attrs((2, 2, 2), (2, 2, 2), ceil_mode=True, fmt="NDHWC")),
    Case(((1, 1, 3, 5, 4),), _max_attrs((2, 3, 3), adaptive=True)),
)
AVG2D_CASES = (
    Case(((2, 3, 4, 4),), _avg_attrs((2, 2), (2, 2))),
    Case(((1, 2, 5, 6),), _avg_attrs((3, 2), (2, 1), (1, 1), ceil_mode=True)),
    Case(((1, 2, 5, 6),), _avg_attrs((3, 2), (2, 1), (1, 1), ceil_mode=True, exclusive=False)),
    Case(((1, 2, 5, 4),), _avg_attrs((3, 3), (2, 2), (1, 0, 2, 1), exclusive=False)),
    Case(((2, 5, 4, 3),), _avg_attrs((2, 3), (2, 2), algorithm="SAME", fmt="NHWC")),
    Case(((1, 2, 5, 7),), _avg_attrs((3, 4), adaptive=True)),
    Case(((1, 2, 6, 4),), _avg_attrs((1, 1), adaptive=True, fmt="NHWC")),     # a global average
    Case(((0, 2, 4, 4),), _avg_attrs((2, 2), (2, 2))),
)
AVG3D_CASES = (
    Case(((1, 2, 3, 4, 4),), _avg_attrs((2, 2, 2), (1, 2, 2), (0, 1, 1))),
    Case(((1, 3, 3, 4, 2),), _avg_attrs((2, 2, 2), (2, 2, 2), ceil_mode=True, exclusive=False, fmt="NDHWC")),
    Case(((1, 1, 3, 5, 4),), _avg_attrs((2, 3, 3), adaptive=True)),
)


def _out_shape(reference, shape, attrs):
    out = reference(np.zeros(shape), **attrs)
    return (out[0] if isinstance(out, tuple) else out).shape


def _max_grad_prepare(arrays, attrs):
    """x, then mask from the reference forward on x, then out_grad shaped like the output."""
    x, _, g = arrays
    _, mask = ref_max_pool(x, **attrs)
    return [x, mask, g]


def _max_grad_cases(cases):
    out = []
    for case in cases:
        shape = _out_shape(ref_max_pool, case.shapes[0], case.attrs)
        out.append(Case((case.shapes[0], shape, shape), case.attrs))
    return tuple(out)


def _max_double_prepare(arrays, attrs):
    """mask from the reference forward on a drawn x, then grad_x_grad shaped like x."""
    mask_source, x = arrays
    _, mask = ref_max_pool(x, **attrs)
    return [mask, x]


def _max_double_cases(cases):
    return tuple(Case((_out_shape(ref_max_pool, c.shapes[0], c.attrs), c.shapes[0]), c.attrs) for c in cases)


def ref_max_pool_double_grad(mask, grad_x_grad, **attrs):
    """The transpose of max_pool_grad in out_grad (a gather), by brute force."""
    return linear_vjp(lambda g: ref_max_pool_grad(grad_x_grad, mask, g, attrs["data_format"]), mask.shape,
                      grad_x_grad, grad_x_grad.dtype)


def _max_double_ref(mask, grad_x_grad, **attrs):
    return ref_max_pool_double_grad(mask, grad_x_grad, **attrs)


def ref_avg_pool_grad(x, g, **attrs):
    return linear_vjp(lambda a: ref_avg_pool(a, **attrs), x.shape, g, g.dtype)


def ref_avg_pool_double_grad(ggx, **attrs):
    """The transpose of avg_pool_grad in out_grad, by brute force."""
    out_shape = _out_shape(ref_avg_pool, ggx.shape, attrs)
    return linear_vjp(lambda g: ref_avg_pool_grad(np.zeros(ggx.shape), g, **attrs), out_shape, ggx, ggx.dtype)


def _avg_grad_cases(cases):
    return tuple(Case((c.shapes[0], _out_shape(ref_avg_pool, c.shapes[0], c.attrs)), c.attrs) for c in cases)


# -- unfold / fold --------------------------------------------------------------

def _blocks(size, kernel_sizes, strides, paddings, dilations):
    return tuple((n + paddings[i] + paddings[2 + i] - dilations[i] * (kernel_sizes[i] - 1) - 1) // strides[i] + 1
                 for i, n in enumerate(size))


def ref_unfold(x, kernel_sizes, strides, paddings, dilations):
    n, c, h, w = x.shape
    padded = np.zeros((n, c, h + paddings[0] + paddings[2], w + paddings[1] + paddings[3]), x.dtype)
    padded[:, :, paddings[0]:paddings[0] + h, paddings[1]:paddings[1] + w] = x
    bh, bw = _blocks((h, w), kernel_sizes, strides, paddings, dilations)
    kh, kw = kernel_sizes
    out = np.zeros((n, c * kh * kw, bh * bw), x.dtype)
    for i, j in itertools.product(range(bh), range(bw)):
        rows = i * strides[0] + dilations[0] * np.arange(kh)
        cols = j * strides[1] + dilations[1] * np.arange(kw)
        out[:, :, i * bw + j] = padded[:, :, rows[:, None], cols[None, :]].reshape(n, -1)
    return out


def ref_fold(x, output_sizes, kernel_sizes, strides, paddings, dilations):
    h, w = output_sizes
    kh, kw = kernel_sizes
    n = x.shape[0]
    c = x.shape[1] // (kh * kw)
    padded = np.zeros((n, c, h + paddings[0] + paddings[2], w + paddings[1] + paddings[3]), np.float64)
    bh, bw = _blocks((h, w), kernel_sizes, strides, paddings, dilations)
    for i, j in itertools.product(range(bh), range(bw)):
        block = x[:, :, i * bw + j].reshape(n, c, kh, kw)
        for a, b in itertools.product(range(kh), range(kw)):
            padded[:, :, i * strides[0] + a * dilations[0], j * strides[1] + b * dilations[1]] += block[:, :, a, b]
    return padded[:, :, paddings[0]:paddings[0] + h, paddings[1]:paddings[1] + w].astype(x.dtype)


def _fold_attrs(kernel, strides=(1, 1), paddings=(0, 0, 0, 0), dilations=(1, 1)):
    return {"kernel_sizes": list(kernel), "strides": list(strides), "paddings": list(paddings),
            "dilations": list(dilations)}


UNFOLD_CASES = (
    Case(((2, 3, 4, 4),), _fold_attrs((2, 2))),
    Case(((1, 2, 5, 6),), _fold_attrs((2, 3), (1, 2), (1, 0, 1, 2), (2, 1))),
    Case(((1, 1, 3, 3),), _fold_attrs((3, 3), paddings=(1, 1, 1, 1))),
)


def _fold_case(case):
    shape = case.shapes[0]
    blocks = _blocks(shape[2:], case.attrs["kernel_sizes"], case.attrs["strides"], case.attrs["paddings"],
                     case.attrs["dilations"])
    cols = (shape[0], shape[1] * math.prod(case.attrs["kernel_sizes"]), math.prod(blocks))
    return cols, {"output_sizes": list(shape[2:]), **case.attrs}


FOLD_CASES = tuple(Case((_fold_case(c)[0],), _fold_case(c)[1]) for c in UNFOLD_CASES)


def ref_unfold_grad(x, g, **attrs):
    return linear_vjp(lambda a: ref_unfold(a, **attrs), x.shape, g, g.dtype)


def ref_fold_grad(g, **attrs):
    cols = ref_unfold(np.zeros(g.shape), **attrs).shape
    return linear_vjp(lambda a: ref_fold(a, list(g.shape[2:]), **attrs), cols, g, g.dtype)


SPECS = [
    OpSpec("max_pool2d_with_index", F.max_pool2d_with_index, ref_max_pool, ("real",), MAX2D_CASES),
    OpSpec("max_pool3d_with_index", F.max_pool3d_with_index, ref_max_pool, ("real",), MAX3D_CASES),
    OpSpec("max_pool2d_with_index_grad", F.max_pool2d_with_index_grad,
           lambda x, mask, g, **a: ref_max_pool_grad(x, mask, g, a["data_format"]), ("real",) * 3,
           _max_grad_cases(MAX2D_CASES[:6]), prepare=_max_grad_prepare, wrt=(2,)),
    OpSpec("max_pool3d_with_index_grad", F.max_pool3d_with_index_grad,
           lambda x, mask, g, **a: ref_max_pool_grad(x, mask, g, a["data_format"]), ("real",) * 3,
           _max_grad_cases(MAX3D_CASES), prepare=_max_grad_prepare, wrt=(2,)),
    OpSpec("max_pool2d_with_index_double_grad", F.max_pool2d_with_index_double_grad, _max_double_ref,
           ("real", "real"), _max_double_cases(MAX2D_CASES[1:4] + MAX2D_CASES[5:6]), prepare=_max_double_prepare,
           wrt=(1,)),
    OpSpec("max_pool3d_with_index_double_grad", F.max_pool3d_with_index_double_grad, _max_double_ref,
           ("real", "real"), _max_double_cases(MAX3D_CASES[1:]), prepare=_max_double_prepare, wrt=(1,)),
    OpSpec("avg_pool2d", F.avg_pool2d, ref_avg_pool, ("real",), AVG2D_CASES),
    OpSpec("avg_pool3d", F.avg_pool3d, ref_avg_pool, ("real",), AVG3D_CASES),
    OpSpec("avg_pool2d_grad", F.avg_pool2d_grad, ref_avg_pool_grad, ("real", "real"), _avg_grad_cases(AVG2D_CASES),
           wrt=(1,)),
    OpSpec("avg_pool3d_grad", F.avg_pool3d_grad, ref_avg_pool_grad, ("real", "real"), _avg_grad_cases(AVG3D_CASES),
           wrt=(1,)),
    OpSpec("avg_pool2d_double_grad", F.avg_pool2d_double_grad, ref_avg_pool_double_grad, ("real",),
           AVG2D_CASES[1:7]),
    OpSpec("avg_pool3d_double_grad", F.avg_pool3d_double_grad, ref_avg_pool_double_grad, ("real",),
           AVG3D_CASES[1:]),
    OpSpec("im2col", F.im2col, ref_unfold, ("real",), UNFOLD_CASES),
    OpSpec("col2im", F.col2im, ref_fold, ("real",), FOLD_CASES),
    OpSpec("im2col_grad", F.im2col_grad, ref_unfold_grad, ("real", "real"),
           tuple(Case((c.shapes[0], f.shapes[0]), c.attrs) for c, f in zip(UNFOLD_CASES, FOLD_CASES)), wrt=(1,)),
    OpSpec("col2im_grad", F.col2im_grad, ref_fold_grad, ("real",), UNFOLD_CASES),
]
