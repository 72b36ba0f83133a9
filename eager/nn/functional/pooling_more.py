"""Power-average (LP) and fractional max pooling (Paddle's ``paddle.nn.functional``).

Both are compositions of ops, so they are differentiable to any order:

- ``lp_pool1d``/``lp_pool2d``: (sum over the window of x ** p) ** (1 / p). The
  window sum is the average pooling op with ``exclusive=False`` (which always
  divides by the kernel's size) times that size; padded positions add nothing.
- ``fractional_max_pool2d``/``3d`` (Graham, 2015): along each spatial axis,
  output i takes the maximum over a window [start_i, end_i) whose bounds
  follow Paddle's kernel (see :func:`fractional_windows`: alpha = in / out
  for disjoint windows, (in - k) / (out - 1) with ``kernel_size``); u is
  ``random_u``, drawn from eager's generator when None (``eager.seed``
  repeats it). The windows are gathered (index_select per axis, a short
  window repeating its last position) and the maximum taken with
  take_along_axis at the first argmax in window order, so the gradient goes
  to that element, the one the mask names.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from phi.common.data_type import DataType

from ...arguments import to_bool
from ...creation import to_tensor
from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import check_float
from .conv import int_tuple
from .pooling import _avg_pool, _max_pool, _window

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d", "lp_pool1d", "lp_pool2d"]


def _norm_type(fn: str, norm_type) -> float:
    if isinstance(norm_type, bool) or not isinstance(norm_type, numbers.Real):
        raise TypeError(f"{fn}: argument 'norm_type' expected a number, got {type(norm_type).__name__}")
    norm_type = float(norm_type)
    if norm_type == 0.0 or math.isnan(norm_type):
        raise ValueError(f"{fn}: argument 'norm_type' expected a non-zero number, got {norm_type}")
    return norm_type


def _lp_pool(fn, k, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format):
    p = _norm_type(fn, norm_type)
    channel_last, kernel, strides, paddings, algorithm = _window(fn, k, x, kernel_size, stride, padding, ceil_mode,
                                                                 data_format)
    if math.isinf(p) and p > 0:   # the limit of the p-norm: the window's maximum
        return _max_pool(fn, k, x, kernel, strides, paddings, algorithm, ceil_mode, False, False, data_format,
                         channel_last)
    powered = _F.pow(x, p)
    mean = _avg_pool(fn, k, powered, kernel, strides, paddings, algorithm, ceil_mode, False, False, data_format,
                     channel_last)
    return _F.pow(_F.scale(mean, float(math.prod(kernel)), 0.0, True), 1.0 / p)


def lp_pool1d(x: Tensor, norm_type, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
              data_format: str = "NCL", name=None) -> Tensor:
    """1-D power-average pooling of x [N, C, L] (or NLC): each output is
    (sum of x ** norm_type over its window) ** (1 / norm_type); ``stride``
    defaults to ``kernel_size``; padding adds zeros to the sums. norm_type = inf
    is max pooling. As in Paddle, a negative window sum with a fractional
    1 / norm_type gives NaN.

    >>> x = eager.to_tensor([[[3.0, 4.0, 6.0, 8.0]]])
    >>> eager.nn.functional.lp_pool1d(x, 2, 2).tolist()      # sqrt(9 + 16), sqrt(36 + 64)
    [[[5.0, 10.0]]]
    """
    return _lp_pool("lp_pool1d", 1, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format)


def lp_pool2d(x: Tensor, norm_type, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
              data_format: str = "NCHW", name=None) -> Tensor:
    """2-D power-average pooling of x [N, C, H, W] (or NHWC): (sum over the
    kh x kw window of x ** norm_type) ** (1 / norm_type). ``padding`` takes the
    pooling functions' forms (an int, a pair, four ints, pairs per axis,
    "SAME"/"VALID").

    >>> x = eager.ones([1, 1, 4, 4])
    >>> eager.nn.functional.lp_pool2d(x, 1, 2).tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
    """
    return _lp_pool("lp_pool2d", 2, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format)


def _random_u(fn: str, random_u) -> float:
    if random_u is None:
        return float(_F.uniform([1], DataType.FLOAT64, 0.0, 1.0, 0).numpy()[0])
    if isinstance(random_u, bool) or not isinstance(random_u, numbers.Real):
        raise TypeError(f"{fn}: argument 'random_u' expected a float in (0, 1), got {type(random_u).__name__}")
    if not 0.0 < float(random_u) < 1.0:
        raise ValueError(f"{fn}: argument 'random_u' expected a float in (0, 1), got {random_u}")
    return float(random_u)


def fractional_windows(size: int, out: int, kernel: int | None, u: float) -> tuple:
    """(starts, ends) of the fractional windows along one axis of ``size``
    elements, ``out`` windows (``kernel`` None: disjoint windows), by Paddle's
    rule in float32: alpha = (size - k) / (out - 1) with a kernel, else
    size / out and u scaled by min((b + 2) / alpha - 1, (size + 1 - b) / alpha
    - (out - 1)), b = size // out (so the last window ends inside); start_i =
    floor((i + u) alpha) - floor(u alpha), end_i = start_i + k, or the same
    formula at i + 1; clipped to the input."""
    f32 = np.float32
    if kernel is None:
        alpha = f32(size) / f32(out)
        base = size // out
        u = f32(u) * min(f32(base + 2) / alpha - f32(1), f32(size + 1 - base) / alpha - f32(out - 1))
    else:
        alpha = f32(size - kernel) / f32(out - 1) if out > 1 else f32(0)
        u = f32(u)
    i = np.arange(out, dtype=np.float32)
    offset = np.int64(np.floor(u * alpha))
    starts = np.floor((i + u) * alpha).astype(np.int64) - offset
    if kernel is None:
        ends = np.floor((i + f32(1) + u) * alpha).astype(np.int64) - offset
    else:
        ends = starts + kernel
    starts = np.clip(starts, 0, size - 1)
    ends = np.clip(ends, starts + 1, size)
    return starts, ends


def _fractional(fn, k, x, output_size, kernel_size, random_u, return_mask):
    check_float(fn, "x", x)
    if x.ndim != k + 2:
        layout = "[N, C, H, W]" if k == 2 else "[N, C, D, H, W]"
        raise ValueError(f"{fn}: argument 'x' expected a {k + 2}-d tensor {layout}, got shape {x.shape}")
    to_bool(return_mask, fn, "return_mask")
    spatial = x.shape[2:]
    if isinstance(output_size, (list, tuple)) and len(output_size) == k:
        output_size = tuple(n if o is None else o for o, n in zip(output_size, spatial))
    outs = int_tuple(fn, "output_size", output_size, k)
    kernel = (None,) * k if kernel_size is None else int_tuple(fn, "kernel_size", kernel_size, k)
    for n, o, kk in zip(spatial, outs, kernel):
        if o > n:
            raise ValueError(f"{fn}: argument 'output_size' {list(outs)} may not exceed the input's spatial size "
                             f"{list(spatial)}")
        if kk is not None and n < o - 1 + kk:
            raise ValueError(f"{fn}: the input's spatial size {list(spatial)} must be at least output_size - 1 + "
                             f"kernel_size = {[a - 1 + b for a, b in zip(outs, kernel)]} (distinct window starts)")
    u = _random_u(fn, random_u)
    n, c = x.shape[:2]
    if x.numel() == 0:
        out = _F.zeros([n, c] + list(outs), x.dtype, x.place)
        return (out, _F.zeros([n, c] + list(outs), DataType.INT32, x.place)) if return_mask else out
    # per axis a [out, K] table of input positions, a short window repeating its last one
    tables = []
    for size, o, kk in zip(spatial, outs, kernel):
        starts, ends = fractional_windows(size, o, kk, u)
        width = int((ends - starts).max())
        tables.append(np.minimum(starts[:, None] + np.arange(width)[None, :], ends[:, None] - 1))
    windows = x
    for axis, table in enumerate(tables):
        index = to_tensor(table.reshape(-1), dtype="int64", place=x.place)
        windows = _F.index_select(windows, index, 2 + axis)
    split = [n, c]
    for table in tables:
        split += list(table.shape)
    windows = _F.reshape(windows, split)
    order = [0, 1] + [2 + 2 * a for a in range(k)] + [3 + 2 * a for a in range(k)]
    widths = [table.shape[1] for table in tables]
    windows = _F.reshape(_F.transpose(windows, order), [n, c] + list(outs) + [math.prod(widths)])
    best = _argmax_last(windows)
    out = _F.squeeze(_F.take_along_axis(windows, best, -1, True), [-1])
    if not return_mask:
        return out
    # each window position's flat index in the input plane, [outs..., prod(widths)]
    plane = np.zeros(tuple(outs) + tuple(widths), dtype=np.int64)
    stride = 1
    for axis in reversed(range(k)):
        shape = [1] * (2 * k)
        shape[axis], shape[k + axis] = tables[axis].shape
        plane = plane + tables[axis].reshape(shape) * stride
        stride *= spatial[axis]
    flat = to_tensor(plane.reshape(list(outs) + [-1]), dtype="int64", place=x.place)
    flat = _F.expand(_F.unsqueeze(flat, [0, 1]), [n, c] + list(outs) + [math.prod(widths)])
    mask = _F.squeeze(_F.take_along_axis(flat, best, -1, True), [-1])
    return out, _F.cast(mask, DataType.INT32)


def _argmax_last(windows: Tensor) -> Tensor:
    """The index of the first maximum along the last axis, kept as a size-1 axis (int64)."""
    return _F.argmax(windows, -1, True, DataType.INT64)


def fractional_max_pool2d(x: Tensor, output_size, kernel_size=None, random_u=None, return_mask: bool = False,
                          name=None):
    """2-D fractional max pooling of x [N, C, H, W] to ``output_size`` (an int or
    [H_out, W_out], None keeping that size) with pseudo-random windows fixed by
    ``random_u`` in (0, 1) (see the module docstring); ``kernel_size`` gives
    overlapping windows of that size. With ``return_mask`` also the int32 flat
    index h * W + w of each maximum (the first in window order).

    >>> x = eager.to_tensor([[[[2.0, 4.0, 3.0, 1.0, 5.0, 2.0, 3.0]]]])
    >>> eager.nn.functional.fractional_max_pool2d(x, [1, 5], random_u=0.3).tolist()
    [[[[2.0, 4.0, 1.0, 5.0, 3.0]]]]
    """
    return _fractional("fractional_max_pool2d", 2, x, output_size, kernel_size, random_u, return_mask)


def fractional_max_pool3d(x: Tensor, output_size, kernel_size=None, random_u=None, return_mask: bool = False,
                          name=None):
    """3-D fractional max pooling of x [N, C, D, H, W] to ``output_size``; the
    mask holds flat indices d * H * W + h * W + w.

    >>> eager.nn.functional.fractional_max_pool3d(eager.ones([1, 2, 5, 6, 7]), 3, random_u=0.5).shape
    [1, 2, 3, 3, 3]
    """
    return _fractional("fractional_max_pool3d", 3, x, output_size, kernel_size, random_u, return_mask)
