"""Kernels of the vision ops: pad (constant), interpolation (nearest, linear,
bilinear, trilinear, bicubic) and grid_sample, with their gradients.

Interpolation is separable: along each spatial axis every output position
reads a few taps of the input (1 for nearest, 2 for linear, 4 for cubic) with
weights that depend on the position only, so the forward is, per axis, a
``take`` of each tap times its weights, and the backward sends each tap's
weighted gradient back with :func:`_scatter_add` along that axis. Tap indices
and weights are computed once per axis on the host (they are small: one row
per output position) and moved to the device.

grid_sample gathers the 2**k corners around each sampling point from the input
flattened over its spatial axes; its input gradient adds the weighted output
gradient back into those corners (``add.at``), its grid gradient is the
corner values times the derivative of the weights, chained through the
padding rule (border clips, reflection folds) and the [-1, 1] unnormalisation.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.kernel_registry import register_kernel
from ..common.data_type import DataType as T
from .dtypes import ALL_BACKENDS, ALL_TYPES, FLOATS
from .device_constants import on_device
from .funcs import scatter_add

_CUBIC_A = -0.75


# -- pad ----------------------------------------------------------------------------

@register_kernel("pad", ALL_BACKENDS, ALL_TYPES)
def pad(ctx, x, paddings, pad_value):
    """x with paddings[2i] values before and paddings[2i+1] after axis i, all pad_value."""
    pairs = [(paddings[2 * i], paddings[2 * i + 1]) for i in range(x.ndim)]
    return ctx.xp.pad(x, pairs, mode="constant", constant_values=x.dtype.type(pad_value))


@register_kernel("pad_grad", ALL_BACKENDS, ALL_TYPES)
def pad_grad(ctx, x, out_grad, paddings, pad_value):
    """The unpadded window of out_grad."""
    window = tuple(slice(paddings[2 * i], paddings[2 * i] + size) for i, size in enumerate(x.shape))
    return ctx.xp.ascontiguousarray(out_grad[window])


# -- interpolation ------------------------------------------------------------------

def _ratio(in_size, out_size, scale, align_corners):
    """Source positions per output position; 0 for a single output position
    (Paddle's kernels: it reads from the start, not the centre, of the axis)."""
    if out_size <= 1:
        return 0.0
    if align_corners:
        return (in_size - 1) / (out_size - 1)
    if scale is not None and scale > 0:
        return 1.0 / scale
    return in_size / out_size


def _cubic_weights(t):
    """Keys' cubic convolution (a = -0.75) weights of the taps at floor-1 .. floor+2."""
    a = _CUBIC_A

    def near(d):   # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):    # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)])


def axis_taps(method, in_size, out_size, scale, align_corners, align_mode, precision=np.float64):
    """(indices [taps, out_size] int64, weights [taps, out_size]) of one axis, Paddle's rules,
    the positions computed in ``precision`` (float32 for integer images: Paddle's
    kernels compute them in float, and a truncated result depends on the last bit)."""
    ratio = precision(_ratio(in_size, out_size, scale, align_corners))
    dst = np.arange(out_size, dtype=precision)
    half, one = precision(0.5), precision(1.0)
    last = in_size - 1
    if method == "nearest":
        src = np.floor(ratio * dst + half) if align_corners else np.floor(ratio * dst)
        return np.minimum(src, last).astype(np.int64)[None], np.ones((1, out_size))
    if method == "cubic":
        src = ratio * dst if align_corners else ratio * (dst + half) - half
        base = np.floor(src)
        index = np.clip(base[None] + np.arange(-1, 3)[:, None], 0, last).astype(np.int64)
        return index, _cubic_weights(src - base)
    # linear: half-pixel centres unless align_corners or align_mode 1, clamped at 0
    src = ratio * dst if (align_corners or align_mode == 1) else np.maximum(ratio * (dst + half) - half, 0)
    low = np.minimum(np.floor(src), last)
    high = np.minimum(low + 1, last)
    frac = src - low
    return np.stack([low, high]).astype(np.int64), np.stack([one - frac, frac])


def _scatter_add(xp, target, axis, index, values):
    """target[..., index[j], ...] += values[..., j, ...] along ``axis``, repeated indices
    adding up: positions are grouped by how many earlier positions share their
    index, and each group (whose indices are distinct) is one vectorised add."""
    order = np.argsort(index, kind="stable")
    sorted_index = index[order]
    position = np.arange(len(index))
    new_run = np.concatenate(([True], sorted_index[1:] != sorted_index[:-1])) if len(index) else np.zeros(0, bool)
    run_start = np.maximum.accumulate(np.where(new_run, position, 0)) if len(index) else position
    rank = position - run_start
    lead = (slice(None),) * axis
    for r in range(int(rank.max()) + 1 if len(index) else 0):
        chosen = order[rank == r]
        target[lead + (on_device(xp, index[chosen]),)] += values[lead + (on_device(xp, chosen),)]


def _interp_setup(x_shape, out_size, scale, data_format):
    channel_last = data_format.endswith("C")
    k = len(x_shape) - 2
    spatial = x_shape[1:-1] if channel_last else x_shape[2:]
    scales = list(scale) + [None] * (k - len(scale)) if scale else [None] * k
    first = 1 if channel_last else 2
    return k, spatial, scales, first


def _broadcast_weights(xp, w, ndim, axis, dtype):
    shape = [1] * ndim
    shape[axis] = w.shape[0]
    return on_device(xp, w.astype(dtype)).reshape(shape)


def interp(method, ctx, x, out_size, scale, align_corners, align_mode, data_format):
    """x resized to out_size one spatial axis at a time: per axis, each tap's take times its weights.
    An integer x (uint8 images) is weighted in float32 and the result truncated
    toward zero into x's dtype, as Paddle's CPU kernels cast their float sum."""
    xp = ctx.xp
    k, spatial, scales, first = _interp_setup(x.shape, out_size, scale, data_format)
    if tuple(spatial) == tuple(out_size):   # Paddle's kernels copy, whatever the scale (1.3 on 2 pixels is 2)
        return xp.array(x, copy=True, order="C")
    integer = x.dtype.kind in "iu" and method != "nearest"
    if integer and method == "linear" and k > 1:
        return _linear_integer(xp, x, k, spatial, out_size, scales, align_corners, align_mode, first)
    work = np.dtype(np.float32) if integer else x.dtype
    out = x.astype(work) if integer else x
    for i in range(k):
        axis = first + i
        index, weights = axis_taps(method, spatial[i], out_size[i], scales[i], align_corners, align_mode,
                                   np.float32 if integer else np.float64)
        if method == "nearest":
            out = xp.take(out, on_device(xp, index[0]), axis=axis)
            continue
        acc = None
        for t in range(index.shape[0]):
            term = xp.take(out, on_device(xp, index[t]), axis=axis) * _broadcast_weights(
                xp, weights[t], out.ndim, axis, work)
            acc = term if acc is None else acc + term
        out = acc
    if integer:
        out = out.astype(x.dtype)   # truncation toward zero (the weights are >= 0 and sum to 1)
    return xp.ascontiguousarray(out)


# The order in which Paddle's CPU kernels add the corner terms (tap per axis): bilinear
# runs y fastest, trilinear x fastest; float32 sums in another order can round across
# an integer and truncate 1 off.
_CORNER_ORDER = {2: ((0, 0), (1, 0), (0, 1), (1, 1)),
                 3: tuple((a, b, c) for a in range(2) for b in range(2) for c in range(2))}


def _linear_integer(xp, x, k, spatial, out_size, scales, align_corners, align_mode, first):
    """Bi/trilinear resize of an integer image as Paddle's CPU kernels: each corner term
    pixel * weight per axis in float32, the terms summed in the kernel's order, then
    truncated (equal to Paddle 2.6.2 on every pixel of random uint8 resizes)."""
    taps = [axis_taps("linear", spatial[i], out_size[i], scales[i], align_corners, align_mode, np.float32)
            for i in range(k)]
    image = x.astype(np.float32)
    weights = [[_broadcast_weights(xp, taps[i][1][t], image.ndim, first + i, np.float32) for t in range(2)]
               for i in range(k)]
    taken = {(): image}
    out = None
    for corner in _CORNER_ORDER[k]:
        for depth in range(1, k + 1):   # each partial corner's takes once
            key = corner[:depth]
            if key not in taken:
                taken[key] = xp.take(taken[key[:-1]], on_device(xp, taps[depth - 1][0][key[-1]]),
                                     axis=first + depth - 1)
        term = taken[corner]
        for i, t in enumerate(corner):
            term = term * weights[i][t]
        out = term if out is None else out + term
    return xp.ascontiguousarray(out.astype(x.dtype))


def interp_grad(method, ctx, x, out_grad, out_size, scale, align_corners, align_mode, data_format):
    """The transpose of interp: per axis (last first), each tap's weighted out_grad added back."""
    xp = ctx.xp
    k, spatial, scales, first = _interp_setup(x.shape, out_size, scale, data_format)
    if tuple(spatial) == tuple(out_size):   # the forward copied
        return xp.array(out_grad, copy=True, order="C")
    grad = out_grad
    for i in reversed(range(k)):
        axis = first + i
        index, weights = axis_taps(method, spatial[i], out_size[i], scales[i], align_corners, align_mode)
        # The axis goes first (one copy), so each scattered slice is a contiguous block.
        front = xp.ascontiguousarray(xp.moveaxis(grad, axis, 0))
        back = xp.zeros((spatial[i],) + front.shape[1:], dtype=out_grad.dtype)
        for t in range(index.shape[0]):
            values = front if method == "nearest" else front * _broadcast_weights(
                xp, weights[t], front.ndim, 0, out_grad.dtype)
            _scatter_add(xp, back, 0, index[t], values)
        grad = xp.moveaxis(back, 0, axis)
    return xp.ascontiguousarray(grad)


# Paddle's CPU kernels: uint8 for nearest and the linear modes, int32/int64 for
# nearest too; bicubic only floats. The gradients are of floats only.
_INTERP_TYPES = {"nearest": FLOATS + (T.UINT8, T.INT32, T.INT64), "linear": FLOATS + (T.UINT8,), "cubic": FLOATS}


def _register_interp(op: str, method: str):
    def forward(ctx, x, out_size, scale, align_corners, align_mode, data_format):
        return interp(method, ctx, x, out_size, scale, align_corners, align_mode, data_format)

    def backward(ctx, x, out_grad, out_size, scale, align_corners, align_mode, data_format):
        return interp_grad(method, ctx, x, out_grad, out_size, scale, align_corners, align_mode, data_format)

    forward.__name__, backward.__name__ = op, f"{op}_grad"
    forward.__doc__ = f"{method} interpolation of x's spatial axes to out_size (separable, one axis at a time)."
    backward.__doc__ = f"The gradient of {op}: each tap's weighted out_grad added back along each axis."
    register_kernel(op, ALL_BACKENDS, _INTERP_TYPES[method])(forward)
    register_kernel(f"{op}_grad", ALL_BACKENDS, FLOATS)(backward)


for _op, _method in (("nearest_interp", "nearest"), ("linear_interp", "linear"), ("bilinear_interp", "linear"),
                     ("trilinear_interp", "linear"), ("bicubic_interp", "cubic")):
    _register_interp(_op, _method)


# -- grid_sample --------------------------------------------------------------------

def _reflect(xp, c, low, high):
    """c folded into [low, high] by reflection, and d(folded)/dc (+1 or -1)."""
    span = high - low
    if span <= 0:
        return xp.zeros_like(c), xp.zeros_like(c)
    shifted = c - low
    sign = xp.where(shifted < 0, -1.0, 1.0).astype(c.dtype)
    shifted = xp.abs(shifted)
    flips = xp.floor(shifted / span)
    extra = shifted - flips * span
    even = (flips % 2) == 0
    folded = xp.where(even, low + extra, high - extra)
    return folded, xp.where(even, sign, -sign)


def _source_coords(xp, g, size, padding_mode, align_corners):
    """Grid values in [-1, 1] as input coordinates along an axis of ``size``, and dcoord/dg."""
    if align_corners:
        c, scale = (g + 1) * ((size - 1) / 2), (size - 1) / 2
    else:
        c, scale = ((g + 1) * size - 1) / 2, size / 2
    d = xp.full(c.shape, scale, dtype=c.dtype)
    if padding_mode == "reflection":
        c, s = _reflect(xp, c, 0.0, size - 1.0) if align_corners else _reflect(xp, c, -0.5, size - 0.5)
        d = d * s
    if padding_mode in ("border", "reflection"):
        inside = (c > 0) & (c < size - 1)
        c = xp.clip(c, 0, size - 1)
        d = xp.where(inside, d, 0)
    return c, d


def _grid_setup(xp, x, grid, padding_mode, align_corners):
    n, ch = x.shape[:2]
    spatial = x.shape[2:]
    k = len(spatial)
    points = grid.reshape(n, -1, k)                        # [N, P, k], last axis x, y(, z)
    coords, derivs = [], []
    for i in range(k):                                     # spatial axis i reads grid component k-1-i
        c, d = _source_coords(xp, points[..., k - 1 - i], spatial[i], padding_mode, align_corners)
        coords.append(c)
        derivs.append(d)
    return n, ch, spatial, k, coords, derivs


def _corners(xp, mode, coords, spatial):
    """Per corner: (flat index [N, P], weight [N, P], per-axis weight derivatives or None)."""
    k = len(spatial)
    strides = [math.prod(spatial[i + 1:]) for i in range(k)]
    if mode == "nearest":
        flat, valid = 0, True
        for i in range(k):
            idx = xp.rint(coords[i]).astype(np.int64)
            valid = valid & (idx >= 0) & (idx < spatial[i])
            flat = flat + xp.clip(idx, 0, spatial[i] - 1) * strides[i]
        yield flat, valid.astype(coords[0].dtype), None
        return
    lows = [xp.floor(c) for c in coords]
    fracs = [c - low for c, low in zip(coords, lows)]
    for corner in range(2 ** k):
        bits = [(corner >> (k - 1 - i)) & 1 for i in range(k)]
        flat, valid = 0, True
        factors = []
        for i, b in enumerate(bits):
            idx = lows[i].astype(np.int64) + b
            valid = valid & (idx >= 0) & (idx < spatial[i])
            flat = flat + xp.clip(idx, 0, spatial[i] - 1) * strides[i]
            factors.append(fracs[i] if b else 1 - fracs[i])
        mask = valid.astype(coords[0].dtype)
        weight = mask
        for f in factors:
            weight = weight * f
        derivs = []
        for i, b in enumerate(bits):
            d = mask * (1.0 if b else -1.0)
            for j, f in enumerate(factors):
                if j != i:
                    d = d * f
            derivs.append(d)
        yield flat, weight, derivs


@register_kernel("grid_sample", ALL_BACKENDS, FLOATS)
def grid_sample(ctx, x, grid, mode, padding_mode, align_corners):
    """x [N, C, *in] sampled at grid [N, *out, k] (x, y(, z) in [-1, 1]): [N, C, *out]."""
    xp = ctx.xp
    n, ch, spatial, k, coords, _ = _grid_setup(xp, x, grid, padding_mode, align_corners)
    source = x.reshape(n, ch, -1)
    out = xp.zeros((n, ch, coords[0].shape[1]), dtype=x.dtype)
    for flat, weight, _ in _corners(xp, mode, coords, spatial):
        values = xp.take_along_axis(source, flat[:, None, :], axis=2)
        out += values * weight[:, None, :]
    return out.reshape((n, ch) + tuple(grid.shape[1:-1]))


@register_kernel("grid_sample_grad", ALL_BACKENDS, FLOATS)
def grid_sample_grad(ctx, x, grid, out_grad, mode, padding_mode, align_corners, *, out_mask=None):
    """(x_grad: out_grad added into each corner with its weight, grid_grad: corner values times the
    weights' derivatives, chained through the coordinate map; zero for mode 'nearest')."""
    xp = ctx.xp
    want_x, want_grid = out_mask or (True, True)
    n, ch, spatial, k, coords, derivs = _grid_setup(xp, x, grid, padding_mode, align_corners)
    source = x.reshape(n, ch, -1)
    g = out_grad.reshape(n, ch, -1)                                   # [N, C, P]
    x_grad_t = xp.zeros((n, source.shape[2], ch), dtype=x.dtype) if want_x else None
    coord_grads = [xp.zeros(coords[0].shape, dtype=x.dtype) for _ in range(k)]
    batch = xp.arange(n)[:, None]
    g_t = xp.swapaxes(g, 1, 2)                                       # [N, P, C]
    for flat, weight, weight_derivs in _corners(xp, mode, coords, spatial):
        if want_x:
            scatter_add(xp, x_grad_t, (xp.broadcast_to(batch, flat.shape), flat), g_t * weight[:, :, None])
        if want_grid and weight_derivs is not None:
            values = xp.take_along_axis(source, flat[:, None, :], axis=2)      # [N, C, P]
            seen = (values * g).sum(axis=1)                                     # [N, P]
            for i in range(k):
                coord_grads[i] += seen * weight_derivs[i]
    x_grad = grid_grad = None
    if want_x:
        x_grad = xp.ascontiguousarray(xp.swapaxes(x_grad_t, 1, 2)).reshape(x.shape)
    if want_grid:
        parts = [coord_grads[k - 1 - j] * derivs[k - 1 - j] for j in range(k)]   # grid component j is axis k-1-j
        grid_grad = xp.stack(parts, axis=-1).reshape(grid.shape).astype(grid.dtype, copy=False)
    return x_grad, grid_grad
