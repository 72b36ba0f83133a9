"""The op table of the vision ops: pad, the interpolation ops, grid_sample.

References are written from the definitions, not from the kernels:
- interpolation builds, per spatial axis, the dense [out, in] resampling
  matrix one output position at a time from Paddle's source-coordinate
  formula (nearest: floor(ratio * j), or round with align_corners; linear:
  half-pixel centres clamped at 0 unless align_corners/align_mode 1; cubic:
  Keys' kernel with a = -0.75 evaluated at the distance to each clamped tap)
  and applies it with tensordot;
- grid_sample loops over the output points (tiny shapes) and reads each
  corner by hand; its grid gradient is a central difference of that loop.
Backward ops of the linear maps come from linear_vjp.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from eager.generated import forward_api as F

from .core import Case, OpSpec, linear_vjp

# -- pad ------------------------------------------------------------------------------


def ref_pad(x, paddings, pad_value):
    shape = tuple(d + paddings[2 * i] + paddings[2 * i + 1] for i, d in enumerate(x.shape))
    out = np.full(shape, pad_value, dtype=x.dtype)
    out[tuple(slice(paddings[2 * i], paddings[2 * i] + d) for i, d in enumerate(x.shape))] = x
    return out


def ref_pad_grad(x, g, paddings, pad_value):
    return linear_vjp(lambda a: ref_pad(a, paddings, 0.0), x.shape, g, g.dtype)


def ref_pad_double_grad(gxg, paddings, pad_value):
    return ref_pad(gxg, paddings, 0.0)


PAD_CASES = (
    Case(((2, 3),), {"paddings": [1, 0, 2, 1], "pad_value": 0.0}),
    Case(((1, 2, 3, 2),), {"paddings": [0, 0, 0, 0, 1, 2, 2, 1], "pad_value": -1.5}),
    Case(((3,),), {"paddings": [0, 0], "pad_value": 2.0}),
    Case(((0, 2),), {"paddings": [1, 1, 0, 1], "pad_value": 3.0}),
)


def _pad_grad_cases():
    out = []
    for case in PAD_CASES:
        (x,) = case.shapes
        result = ref_pad(np.zeros(x), **case.attrs).shape
        out.append(Case((x, result), case.attrs))
    return tuple(out)


# -- interpolation --------------------------------------------------------------------

def _source_ratio(n_in, n_out, scale, align_corners):
    if n_out == 1:          # Paddle: a single output position reads from the start of the axis
        return 0.0
    if align_corners:
        return (n_in - 1) / (n_out - 1)
    return 1.0 / scale if scale else n_in / n_out


def _keys(d, a=-0.75):
    d = abs(d)
    if d <= 1:
        return (a + 2) * d ** 3 - (a + 3) * d ** 2 + 1
    if d < 2:
        return a * d ** 3 - 5 * a * d ** 2 + 8 * a * d - 4 * a
    return 0.0


def resample_matrix(method, n_in, n_out, scale, align_corners, align_mode):
    """M [n_out, n_in] with out = M @ in along one axis."""
    ratio = _source_ratio(n_in, n_out, scale, align_corners)
    m = np.zeros((n_out, n_in))
    for j in range(n_out):
        if method == "nearest":
            src = int(ratio * j + 0.5) if align_corners else int(ratio * j)
            m[j, min(src, n_in - 1)] = 1.0
        elif method == "linear":
            if align_corners or align_mode == 1:
                src = ratio * j
            else:
                src = max(ratio * (j + 0.5) - 0.5, 0.0)
            left = min(int(src), n_in - 1)
            right = min(left + 1, n_in - 1)
            m[j, left] += 1.0 - (src - left)
            m[j, right] += src - left
        else:  # cubic
            src = ratio * j if align_corners else ratio * (j + 0.5) - 0.5
            base = math.floor(src)
            for tap in range(base - 1, base + 3):
                m[j, min(max(tap, 0), n_in - 1)] += _keys(src - tap)
    return m


def _ref_interp(method):
    def reference(x, out_size, scale, align_corners, align_mode, data_format):
        channel_last = data_format.endswith("C")
        k = x.ndim - 2
        first = 1 if channel_last else 2
        if [x.shape[first + i] for i in range(k)] == list(out_size):
            return x.copy()     # Paddle copies x when no axis changes size, whatever the scale
        out = x.astype(np.float64)
        for i in range(k):
            axis = first + i
            m = resample_matrix(method, x.shape[axis], out_size[i], scale[i] if scale else None, align_corners,
                                align_mode)
            out = np.moveaxis(np.tensordot(m, np.moveaxis(out, axis, 0), axes=(1, 0)), 0, axis)
        return out.astype(x.dtype)
    return reference


def _ref_interp_grad(method):
    forward = _ref_interp(method)

    def reference(x, g, **attrs):
        return linear_vjp(lambda a: forward(a, **attrs), x.shape, g, g.dtype)
    return reference


def _ref_interp_double_grad(method):
    forward = _ref_interp(method)

    def reference(gxg, **attrs):
        return forward(gxg, **attrs)
    return reference


def _iattrs(out_size, scale=(), align_corners=False, align_mode=0, fmt="NCHW"):
    return {"out_size": list(out_size), "scale": list(scale), "align_corners": align_corners,
            "align_mode": align_mode, "data_format": fmt}


INTERP_CASES = {
    "nearest_interp": (
        Case(((1, 2, 3, 4),), _iattrs((5, 2))),
        Case(((2, 4, 3, 1),), _iattrs((2, 7), fmt="NHWC")),
        Case(((1, 1, 2, 3, 2),), _iattrs((3, 4, 3), align_corners=True, fmt="NCDHW")),
        Case(((1, 2, 3),), _iattrs((7,), fmt="NCW")),
        Case(((1, 1, 3, 3),), _iattrs((6, 7), scale=(2.0, 2.5))),
    ),
    "linear_interp": (
        Case(((2, 2, 4),), _iattrs((7,), fmt="NCW")),
        Case(((1, 3, 2),), _iattrs((5,), align_corners=True, fmt="NWC")),
        Case(((1, 1, 5),), _iattrs((3,), align_mode=1, fmt="NCW")),
    ),
    "bilinear_interp": (
        Case(((1, 2, 3, 4),), _iattrs((5, 3))),
        Case(((1, 2, 3, 4),), _iattrs((4, 7), align_corners=True)),
        Case(((1, 3, 2, 2),), _iattrs((2, 5), align_mode=1, fmt="NHWC")),
        Case(((1, 1, 2, 3),), _iattrs((3, 4), scale=(1.5, 1.5))),
        Case(((1, 1, 1, 3),), _iattrs((1, 1), align_corners=True)),        # single pixel out
    ),
    "trilinear_interp": (
        Case(((1, 1, 2, 3, 2),), _iattrs((3, 2, 4), fmt="NCDHW")),
        Case(((1, 2, 2, 2, 1),), _iattrs((3, 3, 3), align_corners=True, fmt="NDHWC")),
    ),
    "bicubic_interp": (
        Case(((1, 1, 3, 3),), _iattrs((4, 5))),
        Case(((1, 1, 3, 4),), _iattrs((5, 2), align_corners=True)),
        Case(((1, 2, 3, 1),), _iattrs((5, 4), fmt="NHWC")),
    ),
}
_METHODS = {"nearest_interp": "nearest", "linear_interp": "linear", "bilinear_interp": "linear",
            "trilinear_interp": "linear", "bicubic_interp": "cubic"}


def _interp_grad_cases(name):
    out = []
    for case in INTERP_CASES[name][:2]:
        (x,) = case.shapes
        result = _ref_interp(_METHODS[name])(np.zeros(x), **case.attrs).shape
        out.append(Case((x, result), case.attrs))
    return tuple(out)


def _interp_double_grad_cases(name):
    return tuple(Case(case.shapes, case.attrs) for case in INTERP_CASES[name][:1])


# -- grid_sample -----------------------------------------------------------------------

def _unnormalise(g, size, align_corners):
    return (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2


def _fold(c, low, high):
    """Reflect c into [low, high] (a mirror at each end, repeatedly)."""
    if high <= low:
        return 0.0
    span = high - low
    c = abs(c - low) % (2 * span)
    return low + (c if c <= span else 2 * span - c)


def _coordinate(g, size, padding_mode, align_corners):
    c = _unnormalise(g, size, align_corners)
    if padding_mode == "reflection":
        c = _fold(c, 0.0, size - 1.0) if align_corners else _fold(c, -0.5, size - 0.5)
    if padding_mode in ("border", "reflection"):
        c = min(max(c, 0.0), size - 1.0)
    return c


def ref_grid_sample(x, grid, mode, padding_mode, align_corners):
    n, ch = x.shape[:2]
    spatial = x.shape[2:]
    k = len(spatial)
    out = np.zeros((n, ch) + grid.shape[1:-1])
    for b in range(n):
        for point in itertools.product(*(range(s) for s in grid.shape[1:-1])):
            # grid[..., 0] is x (the last axis), grid[..., 1] is y, ...
            coords = [_coordinate(float(grid[(b,) + point + (k - 1 - i,)]), spatial[i], padding_mode, align_corners)
                      for i in range(k)]
            if mode == "nearest":
                idx = tuple(int(np.rint(c)) for c in coords)
                if all(0 <= v < s for v, s in zip(idx, spatial)):
                    out[(b, slice(None)) + point] = x[(b, slice(None)) + idx]
                continue
            for corner in itertools.product((0, 1), repeat=k):
                idx = tuple(math.floor(c) + o for c, o in zip(coords, corner))
                if not all(0 <= v < s for v, s in zip(idx, spatial)):
                    continue
                weight = np.prod([1 - abs(c - v) for c, v in zip(coords, idx)])
                out[(b, slice(None)) + point] += weight * x[(b, slice(None)) + idx]
    return out.astype(x.dtype)


def ref_grid_sample_grad(x, grid, g, mode, padding_mode, align_corners):
    """x's gradient by linear_vjp (the op is linear in x); the grid's by the
    product rule over each point's corners: d weight / d c_i is the other axes'
    factors times +-1, chained with dc/dgrid, the slope of the piecewise-linear
    coordinate map (unnormalise, fold, clip) taken by a central difference."""
    attrs = {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}
    x_grad = linear_vjp(lambda a: ref_grid_sample(a, grid, **attrs), x.shape, g, x.dtype)
    grid_grad = np.zeros(grid.shape)
    spatial = x.shape[2:]
    k = len(spatial)
    h = 1e-3
    for b in range(x.shape[0]):
        for point in itertools.product(*(range(s) for s in grid.shape[1:-1])):
            if mode == "nearest":
                continue
            raw = [float(grid[(b,) + point + (k - 1 - i,)]) for i in range(k)]
            coords = [_coordinate(r, spatial[i], padding_mode, align_corners) for i, r in enumerate(raw)]
            slopes = [(_coordinate(r + h, spatial[i], padding_mode, align_corners)
                       - _coordinate(r - h, spatial[i], padding_mode, align_corners)) / (2 * h)
                      for i, r in enumerate(raw)]
            upstream = g[(b, slice(None)) + point].astype(np.float64)
            for corner in itertools.product((0, 1), repeat=k):
                idx = tuple(math.floor(c) + o for c, o in zip(coords, corner))
                if not all(0 <= v < s for v, s in zip(idx, spatial)):
                    continue
                seen = float(np.dot(upstream, x[(b, slice(None)) + idx].astype(np.float64)))
                factors = [1 - abs(c - v) for c, v in zip(coords, idx)]
                for i in range(k):
                    others = np.prod([f for j, f in enumerate(factors) if j != i])
                    sign = 1.0 if idx[i] > coords[i] else -1.0
                    grid_grad[(b,) + point + (k - 1 - i,)] += seen * others * sign * slopes[i]
    return x_grad, grid_grad.astype(grid.dtype)


def _gattrs(mode="bilinear", padding_mode="zeros", align_corners=True):
    return {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}


GRID_CASES = (
    Case(((1, 2, 3, 4), (1, 2, 3, 2)), _gattrs()),
    Case(((2, 1, 3, 3), (2, 2, 2, 2)), _gattrs(align_corners=False)),
    Case(((1, 2, 3, 4), (1, 3, 2, 2)), _gattrs(padding_mode="border", align_corners=False)),
    Case(((1, 1, 4, 3), (1, 2, 3, 2)), _gattrs(padding_mode="reflection")),
    Case(((1, 1, 4, 3), (1, 2, 2, 2)), _gattrs(padding_mode="reflection", align_corners=False)),
    Case(((1, 2, 3, 3), (1, 2, 2, 2)), _gattrs(mode="nearest", padding_mode="border")),
    Case(((1, 1, 2, 3, 2), (1, 2, 1, 2, 3)), _gattrs(align_corners=False)),
)


def _grid_grad_cases():
    out = []
    for case in GRID_CASES[:5] + GRID_CASES[6:]:
        x, grid = case.shapes
        out.append(Case((x, grid, x[:2] + grid[1:-1]), case.attrs))
    return tuple(out)


SPECS = [
    OpSpec("pad", F.pad, ref_pad, ("real",), PAD_CASES),
    OpSpec("pad_grad", F.pad_grad, ref_pad_grad, ("real", "real"), _pad_grad_cases(), wrt=(1,)),
    OpSpec("pad_double_grad", F.pad_double_grad, ref_pad_double_grad, ("real",), PAD_CASES[:2]),
    OpSpec("grid_sample", F.grid_sample, ref_grid_sample, ("real", "real"), GRID_CASES),
    OpSpec("grid_sample_grad", F.grid_sample_grad, ref_grid_sample_grad, ("real",) * 3, _grid_grad_cases(),
           grad=False),
]
for _name in INTERP_CASES:
    _method = _METHODS[_name]
    SPECS += [
        OpSpec(_name, getattr(F, _name), _ref_interp(_method), ("real",), INTERP_CASES[_name]),
        OpSpec(f"{_name}_grad", getattr(F, f"{_name}_grad"), _ref_interp_grad(_method), ("real", "real"),
               _interp_grad_cases(_name), wrt=(1,)),
        OpSpec(f"{_name}_double_grad", getattr(F, f"{_name}_double_grad"), _ref_interp_double_grad(_method),
               ("real",), _interp_double_grad_cases(_name)),
    ]
