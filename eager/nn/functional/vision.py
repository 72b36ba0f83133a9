"""Padding, resizing and sampling (Paddle's ``paddle.nn.functional`` pad,
interpolate, upsample, pixel_shuffle, pixel_unshuffle, affine_grid,
grid_sample; Paddle keeps pad/interpolate/upsample in ``common``).

- ``pad``: constant padding is the phi op ``pad``; reflect, replicate and
  circular gather each spatial axis with an index array (getitem), so the
  gradient adds back into the rows a value came from.
- ``interpolate``/``upsample``: the phi ops ``nearest_interp``,
  ``linear_interp``, ``bilinear_interp``, ``trilinear_interp``,
  ``bicubic_interp`` (separable taps; backward adds the taps back).
- ``pixel_shuffle``/``pixel_unshuffle``: reshape and transpose.
- ``affine_grid``: a constant base grid times theta (matmul, so theta gets gradients).
- ``grid_sample``: the phi op ``grid_sample`` (gradients for x and grid).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from phi.common.data_type import FLOATING_TYPES, DataType, dtype_name
from phi.core.errors import AssertedArgumentError

from ...arguments import describe, to_scalar
from ...composite.spine import reshape_exactly
from ...creation import to_tensor
from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import check_float, check_tensor
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

_PAD_MODES = ("constant", "reflect", "replicate", "circular")
_PAD_FORMATS = ("NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC")
_INTERP_FORMATS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}
_INTERP_OPS = {"nearest": "nearest_interp", "linear": "linear_interp", "bilinear": "bilinear_interp",
               "trilinear": "trilinear_interp", "bicubic": "bicubic_interp"}
_INTERP_RANKS = {"nearest": (4, 5), "linear": (3,), "bilinear": (4,), "trilinear": (5,), "bicubic": (4,),
                 "area": (3, 4, 5)}
# The integer dtypes each mode takes besides the floats, as Paddle's CPU kernels
# (uint8 images for nearest and the linear modes; bicubic and area take floats only).
_UINT8 = (DataType.UINT8,)
_INTERP_INTEGERS = {"nearest": _UINT8 + (DataType.INT32, DataType.INT64), "linear": _UINT8, "bilinear": _UINT8,
                    "trilinear": _UINT8}
# mode 'area' is adaptive average pooling to the output size (as Paddle's), by rank:
_AREA_POOLS = {3: adaptive_avg_pool1d, 4: adaptive_avg_pool2d, 5: adaptive_avg_pool3d}


def _int_list(fn: str, arg: str, value) -> list:
    if isinstance(value, Tensor):
        value = value.numpy().reshape(-1).tolist()
    if isinstance(value, np.ndarray):
        value = value.reshape(-1).tolist()
    if not isinstance(value, (list, tuple)) or any(
            isinstance(v, bool) or not isinstance(v, (numbers.Integral, Tensor)) for v in value):
        raise TypeError(f"{fn}: argument '{arg}' expected a list of ints, got {value!r}")
    return [int(v.item()) if isinstance(v, Tensor) else int(v) for v in value]


def pad_by_index(fn: str, x: Tensor, paddings, mode: str, first: int) -> Tensor:
    """x padded on the axes first, first+1, ... by (paddings[2i], paddings[2i+1]),
    reflecting, replicating or wrapping its own values: a gather with an index
    array per axis (getitem), so gradients add back where the values came from."""
    for i in range(len(paddings) // 2):
        before, after = paddings[2 * i], paddings[2 * i + 1]
        if not before and not after:
            continue
        axis = first + i
        n = x.shape[axis]
        if mode == "reflect" and (before >= n or after >= n):
            raise ValueError(f"{fn}: mode 'reflect' needs paddings smaller than the input size: axis {axis} has "
                             f"size {n}, paddings ({before}, {after})")
        if mode in ("replicate", "circular") and n == 0:
            raise ValueError(f"{fn}: mode {mode!r} cannot pad the empty axis {axis}")
        positions = np.arange(-before, n + after)
        if mode == "reflect":
            positions = np.abs(positions)
            positions = np.where(positions > n - 1, 2 * (n - 1) - positions, positions)
        elif mode == "replicate":
            positions = np.clip(positions, 0, n - 1)
        else:  # circular: wraps around as often as needed (Paddle takes paddings beyond the size)
            positions = positions % n
        # A list, not an array: the positions depend on shapes only, and a to_static
        # trace keeps a list of ints as a constant (an array it cannot locate would
        # make the call run eagerly).
        x = _F.getitem(x, (slice(None),) * axis + (positions.tolist(),))
    return x


def pad(x: Tensor, pad, mode: str = "constant", value: float = 0.0, data_format: str = "NCHW",
        name=None) -> Tensor:
    """x padded by ``pad`` with ``mode`` 'constant' (``value``), 'reflect',
    'replicate' or 'circular'.

    ``pad`` lists (before, after) pairs starting at the LAST spatial axis:
    [left, right] for 3-d x, [left, right, top, bottom] for 4-d, [left, right,
    top, bottom, front, back] for 5-d. With mode 'constant' it may instead hold
    2 * x.ndim ints, a (before, after) pair for every axis from the first.

    >>> x = eager.ones([1, 1, 2, 3])
    >>> eager.nn.functional.pad(x, [1, 1, 0, 2], value=5.0).shape
    [1, 1, 4, 5]
    """
    fn = "pad"
    check_tensor(fn, "x", x)
    # Paddle asserts mode, data_format and the format's rank: AssertedArgumentError is that AssertionError
    # and a ValueError
    if not isinstance(mode, str) or mode not in _PAD_MODES:
        raise AssertedArgumentError(f"{fn}: argument 'mode' expected one of {list(_PAD_MODES)}, got {mode!r}")
    data_format = data_format.upper() if isinstance(data_format, str) else data_format    # as Paddle
    if not isinstance(data_format, str) or data_format not in _PAD_FORMATS:
        raise AssertedArgumentError(f"{fn}: argument 'data_format' expected one of {list(_PAD_FORMATS)}, got "
                                    f"{data_format!r}")
    pads = _int_list(fn, "pad", pad)
    if any(p < 0 for p in pads):
        raise ValueError(f"{fn}: argument 'pad' expected non-negative ints, got {pads}")
    nd = x.ndim
    if isinstance(value, Tensor):   # Paddle float()s a one-element tensor value
        value = to_scalar(value, fn, "value")
    if not isinstance(value, numbers.Number) or isinstance(value, bool):
        raise TypeError(f"{fn}: argument 'value' expected a number, got {value!r}")
    if mode == "constant" and len(pads) == 2 * nd:
        return _F.pad(x, pads, float(value))
    if nd not in (3, 4, 5):
        raise ValueError(f"{fn}: mode {mode!r} pads the spatial axes of a 3-, 4- or 5-d x (or, with mode "
                         f"'constant', takes 2 * x.ndim = {2 * nd} values), got x of shape {x.shape}")
    k = nd - 2
    formats = _INTERP_FORMATS[nd] if nd != 3 else ("NCL", "NLC")
    if not isinstance(data_format, str) or data_format not in formats and data_format != "NCHW":   # the default: channels first at any rank
        raise AssertedArgumentError(f"{fn}: argument 'data_format' expected one of {list(formats)} for a {nd}-d x, "
                                    f"got {data_format!r}")
    if len(pads) != 2 * k:
        expected = f"{2 * k} ints (a pair per spatial axis, the last axis first)"
        if mode == "constant":
            expected += f" or {2 * nd} (a pair per axis, the first axis first)"
        raise ValueError(f"{fn}: argument 'pad' expected {expected} for x of shape {x.shape}, got {pads}")
    channel_last = data_format[-1] == "C"
    first = 1 if channel_last else 2
    spatial_pairs = []                        # in axis order: the pair for spatial axis i is pads[2(k-1-i)...]
    for i in range(k):
        j = k - 1 - i
        spatial_pairs += [pads[2 * j], pads[2 * j + 1]]
    if mode == "constant":
        full = [0] * (2 * nd)
        full[2 * first:2 * (first + k)] = spatial_pairs
        return _F.pad(x, full, float(value))
    return pad_by_index(fn, x, spatial_pairs, mode, first)


def _interp_sizes(fn, x, size, scale_factor, k, spatial):
    """(out sizes, scales for the op ([] when size was given))."""
    if size is None and scale_factor is None:
        raise ValueError(f"{fn}: one of 'size' and 'scale_factor' must be given")
    if size is not None and scale_factor is not None:
        raise ValueError(f"{fn}: only one of 'size' and 'scale_factor' may be given, got size={size!r} and "
                         f"scale_factor={scale_factor!r}")
    if size is not None:
        if isinstance(size, numbers.Integral) and not isinstance(size, bool):
            size = [size] * k
        sizes = _int_list(fn, "size", size)
        if len(sizes) != k or any(s <= 0 for s in sizes):
            # Paddle asserts each size > 0: AssertedArgumentError is its AssertionError and a ValueError
            raise (ValueError if len(sizes) != k else AssertedArgumentError)(f"{fn}: argument 'size' expected {k} positive ints (one per spatial axis of x "
                             f"{x.shape}), got {sizes}")
        return sizes, []
    if isinstance(scale_factor, Tensor):       # a 0-d tensor is one number for every axis, as in Paddle
        # a 1-D one a number per axis; Paddle reads a deeper one by its first axis (rows: refused below)
        scale_factor = scale_factor.item() if scale_factor.ndim == 0 else scale_factor.numpy().tolist()
    if isinstance(scale_factor, numbers.Real) and not isinstance(scale_factor, bool):
        scale_factor = [scale_factor] * k
    if not isinstance(scale_factor, (list, tuple)):      # a wrong kind is Paddle's TypeError, a wrong value ValueError
        raise TypeError(f"{fn}: argument 'scale_factor' expected a number, a list/tuple of {k} numbers or a Tensor, "
                        f"got {describe(scale_factor)}")
    # one-element tensors in the list are numbers, as in Paddle
    scale_factor = [s.item() if isinstance(s, Tensor) and s.size == 1 else s for s in scale_factor]
    if (len(scale_factor) != k
            or any(isinstance(s, bool) or not isinstance(s, numbers.Real) or not 0 < s < math.inf
                   for s in scale_factor)):
        raise ValueError(f"{fn}: argument 'scale_factor' expected a positive finite number or {k} of them, got "
                         f"{scale_factor!r}")
    scales = [float(s) for s in scale_factor]
    sizes = [int(n * s) for n, s in zip(spatial, scales)]
    if any(s <= 0 for s in sizes):
        raise ValueError(f"{fn}: argument 'scale_factor' {scales} gives an empty output for x of shape {x.shape}")
    return sizes, scales


def interpolate(x: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool = False,
                align_mode: int = 0, data_format: str = "NCHW", name=None) -> Tensor:
    """x resized on its spatial axes to ``size`` or by ``scale_factor``.

    ``mode``: 'nearest' (4-/5-d x), 'linear' (3-d, data_format 'NCW'/'NWC'),
    'bilinear' or 'bicubic' (4-d), 'trilinear' (5-d, 'NCDHW'/'NDHWC'), 'area'
    (3-/4-/5-d: adaptive average pooling to the output size).
    ``align_corners`` maps the corner pixels' centres onto each other; else,
    for the linear modes, ``align_mode`` 0 uses half-pixel centres
    (src = (dst + 0.5) / scale - 0.5) and 1 uses src = dst / scale.
    x is floating-point, or, as Paddle's CPU kernels take, a uint8 image for
    nearest, linear, bilinear and trilinear (weighted in float32, the sum
    truncated toward zero) or int32/int64 for nearest; other modes refuse
    integers (TypeError).

    >>> x = eager.ones([1, 3, 4, 4])
    >>> eager.nn.functional.interpolate(x, scale_factor=2, mode="bilinear").shape
    [1, 3, 8, 8]
    """
    fn = "interpolate"
    check_tensor(fn, "x", x)
    if not isinstance(mode, str) or mode.lower() not in _INTERP_RANKS:
        raise ValueError(f"{fn}: argument 'mode' expected one of {list(_INTERP_RANKS)}, got {mode!r}")
    mode = mode.lower()
    data_format = data_format.upper() if isinstance(data_format, str) else data_format    # as Paddle
    if x.dtype not in FLOATING_TYPES and x.dtype not in _INTERP_INTEGERS.get(mode, ()):
        accepted = "".join(f"; {m} also takes {', '.join(dtype_name(t) for t in kinds)}"
                           for m, kinds in _INTERP_INTEGERS.items())
        raise TypeError(f"{fn}: mode {mode!r} expected a floating-point x{accepted}; got {x.dtype}{x.shape}")
    nd = x.ndim
    if nd not in _INTERP_RANKS[mode]:
        ranks = " or ".join(f"{r}-d" for r in _INTERP_RANKS[mode])
        raise ValueError(f"{fn}: mode {mode!r} expects a {ranks} x, got shape {x.shape}")
    if mode == "area" and data_format == "NCHW":    # the default: channels first at any rank, as Paddle's area
        data_format = _INTERP_FORMATS[nd][0]
    if not isinstance(data_format, str) or data_format not in _INTERP_FORMATS[nd]:
        raise ValueError(f"{fn}: argument 'data_format' expected one of {list(_INTERP_FORMATS[nd])} for a "
                         f"{nd}-d x, got {data_format!r}")
    if not isinstance(align_corners, (bool, np.bool_)):
        raise TypeError(f"{fn}: argument 'align_corners' expected a bool, got {align_corners!r}")
    if align_mode not in (0, 1) or isinstance(align_mode, bool):
        raise ValueError(f"{fn}: argument 'align_mode' expected 0 or 1, got {align_mode!r}")
    if mode == "nearest" and align_corners:   # area pooling has no corners to align: Paddle ignores it there
        raise ValueError(f"{fn}: align_corners can only be set with the interpolating modes linear, bilinear, "
                         f"bicubic and trilinear, got mode {mode!r}")
    k = nd - 2
    channel_last = data_format[-1] == "C"
    spatial = x.shape[1:-1] if channel_last else x.shape[2:]
    sizes, scales = _interp_sizes(fn, x, size, scale_factor, k, spatial)
    if 0 in spatial:
        raise ValueError(f"{fn}: x ({data_format}) has an empty spatial axis, shape {x.shape}: there is nothing to "
                         f"resize from")
    if mode == "area":      # 1-d pooling names its formats NCL/NLC
        return _AREA_POOLS[nd](x, sizes, {"NCW": "NCL", "NWC": "NLC"}.get(data_format, data_format))
    op = getattr(_F, _INTERP_OPS[mode])
    return op(x, sizes, scales, bool(align_corners), int(align_mode), data_format)


def upsample(x: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool = False,
             align_mode: int = 0, data_format: str = "NCHW", name=None) -> Tensor:
    """The same as :func:`interpolate` (Paddle keeps both names).

    >>> eager.nn.functional.upsample(eager.ones([1, 1, 2, 2]), size=[3, 5]).shape
    [1, 1, 3, 5]
    """
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


def _factor(fn: str, arg: str, value) -> int:
    """A positive int: another kind is a TypeError, a non-positive int a
    ValueError (Paddle's pixel_unshuffle and channel_shuffle: "must be positive")."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{fn}: argument '{arg}' expected a positive int, got {value!r}")
    if value <= 0:
        raise ValueError(f"{fn}: argument '{arg}' expected a positive int, got {value!r}")
    return int(value)


def _check_4d(fn: str, x, data_format):
    check_tensor(fn, "x", x)
    if x.ndim != 4:
        raise ValueError(f"{fn}: argument 'x' expected a 4-d tensor ({data_format}), got shape {x.shape}")
    if not isinstance(data_format, str) or data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{fn}: argument 'data_format' expected 'NCHW' or 'NHWC', got {data_format!r}")
    return data_format == "NHWC"


def pixel_shuffle(x: Tensor, upscale_factor: int, data_format: str = "NCHW", name=None) -> Tensor:
    """[N, C*r*r, H, W] rearranged to [N, C, H*r, W*r] (r = upscale_factor):
    out[n, c, h*r + i, w*r + j] = x[n, c*r*r + i*r + j, h, w].

    >>> eager.nn.functional.pixel_shuffle(eager.ones([2, 9, 4, 4]), 3).shape
    [2, 1, 12, 12]
    """
    fn = "pixel_shuffle"
    channel_last = _check_4d(fn, x, data_format)
    r = _factor(fn, "upscale_factor", upscale_factor)
    n, c, h, w = (x.shape[0], x.shape[3], x.shape[1], x.shape[2]) if channel_last else x.shape
    if c % (r * r):
        raise ValueError(f"{fn}: the channels of x ({c}, shape {x.shape}) must be divisible by upscale_factor ** 2 "
                         f"= {r * r}")
    if 0 in x.shape:
        out = [n, h * r, w * r, c // (r * r)] if channel_last else [n, c // (r * r), h * r, w * r]
        return reshape_exactly(x, out)
    if channel_last:
        y = _F.reshape(x, [n, h, w, c // (r * r), r, r])
        y = _F.transpose(y, [0, 1, 4, 2, 5, 3])                     # [n, h, r, w, r, c']
        return _F.reshape(y, [n, h * r, w * r, c // (r * r)])
    y = _F.reshape(x, [n, c // (r * r), r, r, h, w])
    y = _F.transpose(y, [0, 1, 4, 2, 5, 3])                         # [n, c', h, r, w, r]
    return _F.reshape(y, [n, c // (r * r), h * r, w * r])


def pixel_unshuffle(x: Tensor, downscale_factor: int, data_format: str = "NCHW", name=None) -> Tensor:
    """The inverse of :func:`pixel_shuffle`: [N, C, H*r, W*r] to [N, C*r*r, H, W].

    >>> eager.nn.functional.pixel_unshuffle(eager.ones([2, 1, 12, 12]), 3).shape
    [2, 9, 4, 4]
    """
    fn = "pixel_unshuffle"
    channel_last = _check_4d(fn, x, data_format)
    r = _factor(fn, "downscale_factor", downscale_factor)
    n, c, h, w = (x.shape[0], x.shape[3], x.shape[1], x.shape[2]) if channel_last else x.shape
    if h % r or w % r:
        raise ValueError(f"{fn}: the height and width of x ({h}, {w}; shape {x.shape}) must be divisible by "
                         f"downscale_factor = {r}")
    if 0 in x.shape:
        out = [n, h // r, w // r, c * r * r] if channel_last else [n, c * r * r, h // r, w // r]
        return reshape_exactly(x, out)
    if channel_last:
        y = _F.reshape(x, [n, h // r, r, w // r, r, c])
        y = _F.transpose(y, [0, 1, 3, 5, 2, 4])                     # [n, h', w', c, r, r]
        return _F.reshape(y, [n, h // r, w // r, c * r * r])
    y = _F.reshape(x, [n, c, h // r, r, w // r, r])
    y = _F.transpose(y, [0, 1, 3, 5, 2, 4])                         # [n, c, r, r, h', w']
    return _F.reshape(y, [n, c * r * r, h // r, w // r])


def zeropad2d(x: Tensor, padding, data_format: str = "NCHW", name=None) -> Tensor:
    """x [N, C, H, W] (or NHWC) padded with zeros by ``padding`` = [left, right,
    top, bottom] (or one int for all four); :func:`pad` in mode 'constant'.

    >>> eager.nn.functional.zeropad2d(eager.ones([1, 1, 2, 2]), [1, 0, 0, 2]).shape
    [1, 1, 4, 3]
    """
    fn = "zeropad2d"
    _check_4d(fn, x, data_format)
    if isinstance(padding, Tensor):
        padding = [int(v) for v in padding.numpy().reshape(-1)]
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        padding = [int(padding)] * 4
    if (not isinstance(padding, (list, tuple)) or len(padding) != 4
            or any(isinstance(p, bool) or not isinstance(p, numbers.Integral) or p < 0 for p in padding)):
        raise ValueError(f"{fn}: argument 'padding' expected a non-negative int or 4 of them [left, right, top, "
                         f"bottom], got {padding!r}")
    return pad(x, [int(p) for p in padding], "constant", 0.0, data_format)


def channel_shuffle(x: Tensor, groups: int, data_format: str = "NCHW", name=None) -> Tensor:
    """The channels of x [N, C, H, W] (or NHWC) split into ``groups`` groups and
    interleaved (ShuffleNet): output channel ``j * groups + i`` is input channel
    ``i * (C // groups) + j``.

    >>> x = eager.arange(4, dtype="float32").reshape([1, 4, 1, 1])
    >>> eager.nn.functional.channel_shuffle(x, 2).reshape([4]).numpy()
    array([0., 2., 1., 3.], dtype=float32)
    """
    fn = "channel_shuffle"
    channel_last = _check_4d(fn, x, data_format)
    g = _factor(fn, "groups", groups)
    n, c, h, w = (x.shape[0], x.shape[3], x.shape[1], x.shape[2]) if channel_last else x.shape
    if c % g:
        raise ValueError(f"{fn}: argument 'groups' ({g}) must divide the {c} channels of x (shape {x.shape})")
    if 0 in x.shape:  # reshape reads a 0 as "keep this dimension": nothing to move
        return _F.assign(x)
    if channel_last:
        y = _F.transpose(_F.reshape(x, [n, h, w, g, c // g]), [0, 1, 2, 4, 3])
        return _F.reshape(y, [n, h, w, c])
    y = _F.transpose(_F.reshape(x, [n, g, c // g, h, w]), [0, 2, 1, 3, 4])
    return _F.reshape(y, [n, c, h, w])


def _base_axis(size: int, align_corners: bool) -> np.ndarray:
    """The normalised pixel-centre coordinates of one axis in [-1, 1]."""
    if size == 1:
        return np.zeros(1)
    line = np.linspace(-1.0, 1.0, size)
    return line if align_corners else line * (size - 1) / size


def affine_grid(theta: Tensor, out_shape, align_corners: bool = True, name=None) -> Tensor:
    """Sampling grid for :func:`grid_sample` from affine matrices: theta [N, 2, 3]
    with out_shape [N, C, H, W] gives [N, H, W, 2]; theta [N, 3, 4] with
    [N, C, D, H, W] gives [N, D, H, W, 3]. Each output point is theta @ (x, y(, z), 1)
    over the normalised pixel centres.

    >>> theta = eager.to_tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> eager.nn.functional.affine_grid(theta, [1, 3, 4, 5]).shape
    [1, 4, 5, 2]
    """
    fn = "affine_grid"
    check_float(fn, "theta", theta)
    shape = _int_list(fn, "out_shape", out_shape)
    if len(shape) not in (4, 5):
        raise ValueError(f"{fn}: argument 'out_shape' expected [N, C, H, W] or [N, C, D, H, W], got {shape}")
    k = len(shape) - 2
    if theta.shape != [shape[0], k, k + 1]:
        raise ValueError(f"{fn}: argument 'theta' expected shape {[shape[0], k, k + 1]} for out_shape {shape}, "
                         f"got {theta.shape}")
    if any(s <= 0 for s in shape[2:]):
        raise ValueError(f"{fn}: argument 'out_shape' expected positive spatial sizes, got {shape}")
    axes = [_base_axis(s, bool(align_corners)) for s in shape[2:]]        # D, H, W order
    mesh = np.meshgrid(*axes, indexing="ij")
    coords = [mesh[k - 1 - j] for j in range(k)] + [np.ones(shape[2:])]   # x (W) first, then y, z, 1
    base = np.stack(coords, axis=-1).reshape(1, -1, k + 1)
    base = to_tensor(base, dtype=theta.dtype, place=theta.place)
    grid = _F.matmul(base, theta, False, True)                           # [N, P, k]
    return _F.reshape(grid, [shape[0]] + shape[2:] + [k])


def grid_sample(x: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool = True, name=None) -> Tensor:
    """x [N, C, H, W] sampled at grid [N, H_out, W_out, 2] (x, y in [-1, 1],
    -1 the first pixel, 1 the last; 5-d x takes [N, D_out, H_out, W_out, 3]).
    ``mode`` 'bilinear' or 'nearest'; ``padding_mode`` 'zeros', 'border' or
    'reflection' for points outside. Differentiable in x and grid.

    >>> x = eager.ones([1, 1, 4, 4]); grid = eager.zeros([1, 2, 3, 2])
    >>> eager.nn.functional.grid_sample(x, grid).shape
    [1, 1, 2, 3]
    """
    fn = "grid_sample"
    check_float(fn, "x", x)
    check_float(fn, "grid", grid)
    if not isinstance(align_corners, (bool, np.bool_)):
        raise TypeError(f"{fn}: argument 'align_corners' expected a bool, got {align_corners!r}")
    return _F.grid_sample(x, grid, mode, padding_mode, bool(align_corners))


__all__ = ["pad", "interpolate", "upsample", "pixel_shuffle", "pixel_unshuffle", "affine_grid", "grid_sample"]
__all__ += ["channel_shuffle", "zeropad2d"]
