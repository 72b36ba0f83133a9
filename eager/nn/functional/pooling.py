"""Pooling, unfold and fold (Paddle's ``paddle.nn.functional``).

Max pooling calls the phi ops ``max_pool2d_with_index``/``max_pool3d_with_index``
(the value and the argmax mask, int32 flat indices into each input plane as
Paddle's), average pooling ``avg_pool2d``/``avg_pool3d``; both take
``adaptive`` for the adaptive variants. 1-D pooling is the 2-D op over a
height of 1. ``padding`` takes Paddle's forms: an int, one int per spatial
axis, a (before, after) pair per axis flattened, a pair per axis of the input
including [0, 0] for batch and channels, or "SAME"/"VALID". ``unfold`` and
``fold`` (im2col and col2im, each the other's adjoint) are phi ops too.
Everything is differentiable to any order. Two more families compose those ops:

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
from phi.common.shape_rules import padded_window_counts, pool_window_problem, window_geometry
from phi.core.errors import ArgumentKindError, AssertedArgumentError

from ...arguments import to_bool, to_int, to_int_array
from ...creation import to_tensor
from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import check_float, check_number, reads_values, value_range
from .conv import conv_padding, int_tuple

_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _check_input(fn: str, x, k: int, data_format: str) -> bool:
    """Checks x and data_format; whether the layout is channel-last."""
    check_float(fn, "x", x)
    if not isinstance(data_format, str) or data_format not in _FORMATS[k]:
        raise ValueError(f"{fn}: argument 'data_format' expected one of {list(_FORMATS[k])}, got "
                         f"{data_format!r}")
    if x.ndim != k + 2:
        raise ValueError(f"{fn}: argument 'x' expected a {k + 2}-d tensor ({data_format}), got shape {x.shape}")
    channel_last = data_format == _FORMATS[k][1]
    if any(n <= 0 for n in _spatial(x, channel_last)):
        raise ValueError(f"{fn}: argument 'x' expected positive spatial sizes, got shape {x.shape} ({data_format})")
    return channel_last


def _spatial(x, channel_last: bool) -> tuple:
    return tuple(x.shape[1:-1] if channel_last else x.shape[2:])


def _geometry(fn, x, channel_last, kernel, strides, paddings, algorithm, ceil_mode) -> tuple:
    """(pads as (before, after) per axis, output sizes), checked here so that an
    error names the function (1-D pooling and lp_pool run other ops)."""
    spatial = _spatial(x, channel_last)
    pads, _, outs = window_geometry(spatial, kernel, strides, paddings, (1,) * len(kernel), algorithm, ceil_mode)
    problem = pool_window_problem(spatial, kernel, pads, outs, "padding")
    if problem:
        raise ValueError(f"{fn}: {problem}")
    return pads, outs


def _window(fn, k, x, kernel_size, stride, padding, ceil_mode, data_format):
    """(channel_last, kernel, strides, flat paddings, padding algorithm)."""
    channel_last = _check_input(fn, x, k, data_format)
    kernel = int_tuple(fn, "kernel_size", kernel_size, k)
    strides = kernel if stride is None else int_tuple(fn, "stride", stride, k)
    paddings, algorithm = conv_padding(fn, padding, k, channel_last)
    to_bool(ceil_mode, fn, "ceil_mode")
    if algorithm == "VALID" and ceil_mode:
        raise ValueError(f"{fn}: argument 'ceil_mode' must be False when padding is 'VALID', got True")
    _geometry(fn, x, channel_last, kernel, strides, paddings, algorithm, ceil_mode)
    return channel_last, kernel, strides, paddings, algorithm


def _as_2d(x, channel_last, kernel, strides, paddings):
    """A 1-D pooling's input and attributes as a 2-D pooling's over a height of 1."""
    return (_F.unsqueeze(x, [1 if channel_last else 2]), (1,) + tuple(kernel), (1,) + tuple(strides),
            [0, 0] + list(paddings), "NHWC" if channel_last else "NCHW")


def _max_pool(fn, k, x, kernel, strides, paddings, algorithm, ceil_mode, adaptive, return_mask, data_format,
              channel_last):
    to_bool(return_mask, fn, "return_mask")
    if k == 1:
        x, kernel, strides, paddings, data_format = _as_2d(x, channel_last, kernel, strides, paddings)
    op = _F.max_pool3d_with_index if k == 3 else _F.max_pool2d_with_index
    out, mask = op(x, list(kernel), list(strides), list(paddings), algorithm, ceil_mode, adaptive, data_format)
    if k == 1:
        axis = [1 if channel_last else 2]
        out, mask = _F.squeeze(out, axis), _F.squeeze(mask, axis)
    return (out, mask) if return_mask else out


def _avg_pool(fn, k, x, kernel, strides, paddings, algorithm, ceil_mode, exclusive, adaptive, data_format,
              channel_last):
    to_bool(exclusive, fn, "exclusive")
    if k == 1:
        x, kernel, strides, paddings, data_format = _as_2d(x, channel_last, kernel, strides, paddings)
    op = _F.avg_pool3d if k == 3 else _F.avg_pool2d
    out = op(x, list(kernel), list(strides), list(paddings), algorithm, ceil_mode, exclusive, adaptive,
             data_format)
    return _F.squeeze(out, [1 if channel_last else 2]) if k == 1 else out


def _divide_override(fn, out, kernel, divisor_override):
    """Paddle's divisor_override: the average times prod(kernel) / divisor_override."""
    if divisor_override is None:
        return out
    if (not isinstance(divisor_override, numbers.Real) or isinstance(divisor_override, bool)
            or divisor_override <= 0):
        raise ValueError(f"{fn}: argument 'divisor_override' expected a positive number, got "
                         f"{divisor_override!r}")
    return _F.scale(out, math.prod(kernel) / divisor_override, 0.0, True)


def max_pool1d(x: Tensor, kernel_size, stride=None, padding=0, return_mask: bool = False, ceil_mode: bool = False,
               data_format: str = "NCL", name=None):
    """1-D max pooling of x [N, C, L] (or NLC); ``stride`` defaults to
    ``kernel_size``. With ``return_mask`` also the int32 index of each maximum
    along L.

    >>> x = eager.to_tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]])
    >>> eager.nn.functional.max_pool1d(x, 2).tolist()
    [[[3.0, 5.0, 4.0]]]
    """
    channel_last, kernel, strides, paddings, algorithm = _window("max_pool1d", 1, x, kernel_size, stride, padding,
                                                                 ceil_mode, data_format)
    return _max_pool("max_pool1d", 1, x, kernel, strides, paddings, algorithm, ceil_mode, False, return_mask,
                     data_format, channel_last)


def max_pool2d(x: Tensor, kernel_size, stride=None, padding=0, return_mask: bool = False, ceil_mode: bool = False,
               data_format: str = "NCHW", name=None):
    """2-D max pooling of x [N, C, H, W] (or NHWC); padded positions never win.
    With ``return_mask`` also the int32 mask of each maximum's flat index
    h * W + w in its input plane (the first maximum in window order).

    >>> x = eager.arange(16, dtype="float32").reshape([1, 1, 4, 4])
    >>> eager.nn.functional.max_pool2d(x, kernel_size=2, stride=2).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
    """
    channel_last, kernel, strides, paddings, algorithm = _window("max_pool2d", 2, x, kernel_size, stride, padding,
                                                                 ceil_mode, data_format)
    return _max_pool("max_pool2d", 2, x, kernel, strides, paddings, algorithm, ceil_mode, False, return_mask,
                     data_format, channel_last)


def max_pool3d(x: Tensor, kernel_size, stride=None, padding=0, return_mask: bool = False, ceil_mode: bool = False,
               data_format: str = "NCDHW", name=None):
    """3-D max pooling of x [N, C, D, H, W] (or NDHWC); the mask holds flat
    indices d * H * W + h * W + w.

    >>> eager.nn.functional.max_pool3d(eager.ones([1, 2, 4, 4, 4]), 2).shape
    [1, 2, 2, 2, 2]
    """
    channel_last, kernel, strides, paddings, algorithm = _window("max_pool3d", 3, x, kernel_size, stride, padding,
                                                                 ceil_mode, data_format)
    return _max_pool("max_pool3d", 3, x, kernel, strides, paddings, algorithm, ceil_mode, False, return_mask,
                     data_format, channel_last)


def _max_unpool(fn, k, x, indices, kernel_size, stride, padding, data_format, output_size):
    """Scatters x into zeros at the flat indices of max_pool*d's mask: per (n, c), out.flat[indices] = x."""
    check_float(fn, "x", x)
    if not isinstance(data_format, str) or data_format != _FORMATS[k][0]:
        raise ValueError(f"{fn}: argument 'data_format' expected {_FORMATS[k][0]!r} (channels first), got "
                         f"{data_format!r}")
    if x.ndim != k + 2:
        raise ValueError(f"{fn}: argument 'x' expected a {k + 2}-d tensor ({data_format}), got shape {x.shape}")
    if not isinstance(indices, Tensor):
        raise TypeError(f"{fn}: argument 'indices' expected a Tensor (max_pool{k}d's mask), got "
                        f"{type(indices).__name__}")
    if indices.dtype not in (DataType.INT32, DataType.INT64) or indices.shape != x.shape:
        raise ValueError(f"{fn}: argument 'indices' expected an int32 or int64 tensor of x's shape {x.shape}, got "
                         f"{indices.dtype}{indices.shape}")
    kernel = int_tuple(fn, "kernel_size", kernel_size, k)
    strides = kernel if stride is None else int_tuple(fn, "stride", stride, k)
    pads = int_tuple(fn, "padding", padding, k, minimum=0)
    spatial_in = x.shape[2:]
    default = [(n - 1) * s - 2 * p + q for n, s, p, q in zip(spatial_in, strides, pads, kernel)]
    if output_size is None:
        spatial_out = default
    else:
        if isinstance(output_size, Tensor):
            output_size = [int(v) for v in output_size.numpy().reshape(-1)]
        sizes = list(output_size) if isinstance(output_size, (list, tuple)) else None
        if sizes is not None:  # entries may be 1-element integer Tensors, as in Paddle
            sizes = [int(v.item()) if isinstance(v, Tensor) and v.numel() == 1 and not v.dtype.is_floating_point
                     else v for v in sizes]
        if sizes is not None and len(sizes) == k + 2:
            sizes = sizes[2:]
        if (sizes is None or len(sizes) != k
                or any(isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in sizes)):
            raise TypeError(f"{fn}: argument 'output_size' expected {k} ints (or {k + 2}), got {output_size!r}")
        spatial_out = [int(v) for v in sizes]
        for size, low, step in zip(spatial_out, default, strides):  # Paddle: within its own axis's stride
            if not low - step < size < low + step:
                raise ValueError(f"{fn}: argument 'output_size' {spatial_out} must lie within one stride "
                                 f"{list(strides)} of the default output size {default}, each axis by its own")
    if any(v <= 0 for v in spatial_out):
        raise ValueError(f"{fn}: the output size {spatial_out} (from kernel_size, stride and padding) must be "
                         f"positive for x of shape {x.shape}")
    n, c = x.shape[:2]
    length_in, length_out = math.prod(spatial_in), math.prod(spatial_out)
    if indices.numel() and reads_values(indices):  # on a GPU in anomaly mode only (a wait for the device)
        low, high = value_range(indices)
        if low < 0 or high >= length_out:
            raise ValueError(f"{fn}: argument 'indices' expected flat indices in [0, {length_out}) (the output "
                             f"plane {spatial_out}), got values in [{low}, {high}]")
    if x.numel() == 0:
        return _F.zeros([n, c] + spatial_out, x.dtype, x.place)
    flat_index = _F.reshape(indices, [n, c, length_in])
    if flat_index.dtype != DataType.INT64:
        flat_index = _F.cast(flat_index, DataType.INT64)
    zeros = _F.zeros([n, c, length_out], x.dtype, x.place)
    out = _F.put_along_axis(zeros, flat_index, _F.reshape(x, [n, c, length_in]), 2, "assign", True, True)
    return _F.reshape(out, [n, c] + spatial_out)


def max_unpool1d(x: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, data_format: str = "NCL",
                 output_size=None, name=None) -> Tensor:
    """The partial inverse of :func:`max_pool1d`: x [N, C, L] written at ``indices``
    (the pooling's ``return_mask`` output) into zeros of length ``output_size`` or
    (L - 1) * stride - 2 * padding + kernel_size.

    >>> x = eager.to_tensor([[[1.0, 3.0, 2.0, 5.0]]])
    >>> out, mask = eager.nn.functional.max_pool1d(x, 2, return_mask=True)
    >>> eager.nn.functional.max_unpool1d(out, mask, 2).tolist()
    [[[0.0, 3.0, 0.0, 5.0]]]
    """
    return _max_unpool("max_unpool1d", 1, x, indices, kernel_size, stride, padding, data_format, output_size)


def max_unpool2d(x: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, data_format: str = "NCHW",
                 output_size=None, name=None) -> Tensor:
    """The partial inverse of :func:`max_pool2d`: x [N, C, H, W] written at the flat
    indices h * W_out + w of ``indices`` into zeros of [N, C, H_out, W_out].

    >>> x = eager.arange(16, dtype="float32").reshape([1, 1, 4, 4])
    >>> out, mask = eager.nn.functional.max_pool2d(x, 2, return_mask=True)
    >>> eager.nn.functional.max_unpool2d(out, mask, 2)[0, 0].tolist()
    [[0.0, 0.0, 0.0, 0.0], [0.0, 5.0, 0.0, 7.0], [0.0, 0.0, 0.0, 0.0], [0.0, 13.0, 0.0, 15.0]]
    """
    return _max_unpool("max_unpool2d", 2, x, indices, kernel_size, stride, padding, data_format, output_size)


def max_unpool3d(x: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, data_format: str = "NCDHW",
                 output_size=None, name=None) -> Tensor:
    """The partial inverse of :func:`max_pool3d`, as :func:`max_unpool2d` with a depth axis.

    >>> out, mask = eager.nn.functional.max_pool3d(eager.ones([1, 1, 2, 2, 2]), 2, return_mask=True)
    >>> eager.nn.functional.max_unpool3d(out, mask, 2).sum().item()
    1.0
    """
    return _max_unpool("max_unpool3d", 3, x, indices, kernel_size, stride, padding, data_format, output_size)


def avg_pool1d(x: Tensor, kernel_size, stride=None, padding=0, exclusive: bool = True, ceil_mode: bool = False,
               data_format: str = "NCL", name=None) -> Tensor:
    """1-D average pooling of x [N, C, L] (or NLC). ``exclusive`` (default)
    divides by the window's elements inside the input, else by kernel_size.

    >>> x = eager.to_tensor([[[1.0, 3.0, 2.0, 6.0]]])
    >>> eager.nn.functional.avg_pool1d(x, 2).tolist()
    [[[2.0, 4.0]]]
    """
    channel_last, kernel, strides, paddings, algorithm = _window("avg_pool1d", 1, x, kernel_size, stride, padding,
                                                                 ceil_mode, data_format)
    return _avg_pool("avg_pool1d", 1, x, kernel, strides, paddings, algorithm, ceil_mode, exclusive, False,
                     data_format, channel_last)


def avg_pool2d(x: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False, exclusive: bool = True,
               divisor_override=None, data_format: str = "NCHW", name=None) -> Tensor:
    """2-D average pooling of x [N, C, H, W] (or NHWC). ``exclusive`` (default)
    leaves padding out of each window's count; ``divisor_override`` scales the
    result by kh * kw / divisor_override, as Paddle does.

    >>> x = eager.arange(16, dtype="float32").reshape([1, 1, 4, 4])
    >>> eager.nn.functional.avg_pool2d(x, kernel_size=2).tolist()
    [[[[2.5, 4.5], [10.5, 12.5]]]]
    """
    fn = "avg_pool2d"
    channel_last, kernel, strides, paddings, algorithm = _window(fn, 2, x, kernel_size, stride, padding,
                                                                 ceil_mode, data_format)
    out = _avg_pool(fn, 2, x, kernel, strides, paddings, algorithm, ceil_mode, exclusive, False, data_format,
                    channel_last)
    return _divide_override(fn, out, kernel, divisor_override)


def avg_pool3d(x: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False, exclusive: bool = True,
               divisor_override=None, data_format: str = "NCDHW", name=None) -> Tensor:
    """3-D average pooling of x [N, C, D, H, W] (or NDHWC).

    >>> eager.nn.functional.avg_pool3d(eager.ones([1, 1, 4, 4, 4]), 2, padding=1, exclusive=False).shape
    [1, 1, 3, 3, 3]
    """
    fn = "avg_pool3d"
    channel_last, kernel, strides, paddings, algorithm = _window(fn, 3, x, kernel_size, stride, padding,
                                                                 ceil_mode, data_format)
    out = _avg_pool(fn, 3, x, kernel, strides, paddings, algorithm, ceil_mode, exclusive, False, data_format,
                    channel_last)
    return _divide_override(fn, out, kernel, divisor_override)


def _output_size(fn: str, x, k: int, output_size, channel_last: bool) -> tuple:
    """An int or k entries (None keeps that input size), as k positive ints."""
    spatial = x.shape[1:-1] if channel_last else x.shape[2:]
    if isinstance(output_size, Tensor):  # as Paddle's: a 1-D integer tensor of the sizes, read here
        output_size = to_int_array(output_size, fn, "output_size")
    if isinstance(output_size, (list, tuple)) and len(output_size) == k:
        output_size = tuple(n if o is None else to_int(o, fn, "output_size") if isinstance(o, Tensor) else o
                            for o, n in zip(output_size, spatial))
    elif k > 1 and isinstance(output_size, numbers.Real) and not isinstance(output_size, numbers.Integral):
        # Paddle iterates a non-int (TypeError: 'float' object is not iterable): ArgumentKindError is that
        # TypeError and the ValueError of eager's other malformed sizes
        raise ArgumentKindError(f"{fn}: argument 'output_size' expected an int or a list of {k} ints, got "
                                f"{output_size!r}")
    return int_tuple(fn, "output_size", output_size, k)


def _adaptive(fn, k, x, output_size, data_format):
    channel_last = _check_input(fn, x, k, data_format)
    return channel_last, _output_size(fn, x, k, output_size, channel_last)


def adaptive_avg_pool1d(x: Tensor, output_size, data_format: str = "NCL", name=None) -> Tensor:
    """Average pooling of x [N, C, L] to output_size positions, window i
    spanning [floor(i * L / out), ceil((i + 1) * L / out)).

    >>> eager.nn.functional.adaptive_avg_pool1d(eager.ones([2, 3, 10]), 4).shape
    [2, 3, 4]
    """
    channel_last, outs = _adaptive("adaptive_avg_pool1d", 1, x, output_size, data_format)
    return _avg_pool("adaptive_avg_pool1d", 1, x, outs, (1,), [0, 0], "EXPLICIT", False, True, True, data_format,
                     channel_last)


def adaptive_avg_pool2d(x: Tensor, output_size, data_format: str = "NCHW", name=None) -> Tensor:
    """Average pooling of x [N, C, H, W] (or NHWC) to output_size (an int or
    [oh, ow], None keeping that size); adaptive_avg_pool2d(x, 1) is a global
    average.

    >>> eager.nn.functional.adaptive_avg_pool2d(eager.ones([2, 3, 7, 7]), 1).shape
    [2, 3, 1, 1]
    """
    channel_last, outs = _adaptive("adaptive_avg_pool2d", 2, x, output_size, data_format)
    return _avg_pool("adaptive_avg_pool2d", 2, x, outs, (1, 1), [0, 0], "EXPLICIT", False, True, True,
                     data_format, channel_last)


def adaptive_avg_pool3d(x: Tensor, output_size, data_format: str = "NCDHW", name=None) -> Tensor:
    """Average pooling of x [N, C, D, H, W] (or NDHWC) to output_size.

    >>> eager.nn.functional.adaptive_avg_pool3d(eager.ones([1, 2, 5, 6, 7]), [2, None, 3]).shape
    [1, 2, 2, 6, 3]
    """
    channel_last, outs = _adaptive("adaptive_avg_pool3d", 3, x, output_size, data_format)
    return _avg_pool("adaptive_avg_pool3d", 3, x, outs, (1, 1, 1), [0, 0, 0], "EXPLICIT", False, True, True,
                     data_format, channel_last)


def adaptive_max_pool1d(x: Tensor, output_size, return_mask: bool = False, data_format: str = "NCL", name=None):
    """Max pooling of x [N, C, L] to output_size positions (adaptive windows);
    with ``return_mask`` also the int32 index of each maximum.

    >>> x = eager.to_tensor([[[1.0, 3.0, 2.0, 5.0, 4.0]]])
    >>> eager.nn.functional.adaptive_max_pool1d(x, 2).tolist()
    [[[3.0, 5.0]]]
    """
    fn = "adaptive_max_pool1d"
    channel_last, outs = _adaptive(fn, 1, x, output_size, data_format)
    return _max_pool(fn, 1, x, outs, (1,), [0, 0], "EXPLICIT", False, True, return_mask, data_format,
                     channel_last)


def adaptive_max_pool2d(x: Tensor, output_size, return_mask: bool = False, data_format: str = "NCHW", name=None):
    """Max pooling of x [N, C, H, W] (or NHWC) to output_size (adaptive windows).

    >>> eager.nn.functional.adaptive_max_pool2d(eager.ones([1, 3, 7, 9]), [3, 4]).shape
    [1, 3, 3, 4]
    """
    fn = "adaptive_max_pool2d"
    channel_last, outs = _adaptive(fn, 2, x, output_size, data_format)
    return _max_pool(fn, 2, x, outs, (1, 1), [0, 0], "EXPLICIT", False, True, return_mask, data_format,
                     channel_last)


def adaptive_max_pool3d(x: Tensor, output_size, return_mask: bool = False, data_format: str = "NCDHW", name=None):
    """Max pooling of x [N, C, D, H, W] (or NDHWC) to output_size (adaptive windows).

    >>> eager.nn.functional.adaptive_max_pool3d(eager.ones([1, 1, 4, 5, 6]), 2).shape
    [1, 1, 2, 2, 2]
    """
    fn = "adaptive_max_pool3d"
    channel_last, outs = _adaptive(fn, 3, x, output_size, data_format)
    return _max_pool(fn, 3, x, outs, (1, 1, 1), [0, 0, 0], "EXPLICIT", False, True, return_mask, data_format,
                     channel_last)


def _fold_args(fn, kernel_sizes, strides, paddings, dilations):
    kernel = int_tuple(fn, "kernel_sizes", kernel_sizes, 2)
    strides = int_tuple(fn, "strides", strides, 2)
    dilations = int_tuple(fn, "dilations", dilations, 2)
    if isinstance(paddings, (list, tuple)) and len(paddings) == 4:
        paddings = list(int_tuple(fn, "paddings", paddings, 4, minimum=0))   # top, left, bottom, right
    else:
        pair = int_tuple(fn, "paddings", paddings, 2, minimum=0)
        paddings = list(pair + pair)
    return list(kernel), list(strides), paddings, list(dilations)


def _blocks(fn, size, kernel, strides, paddings, dilations) -> tuple:
    """The number of sliding blocks along each spatial axis (checked positive)."""
    blocks = tuple((n + paddings[i] + paddings[2 + i] - dilations[i] * (kernel[i] - 1) - 1) // strides[i] + 1
                   for i, n in enumerate(size))
    if any(b <= 0 for b in blocks):
        raise ValueError(f"{fn}: the kernel {kernel} (dilations {dilations}) is larger than the padded input "
                         f"{list(size)} (paddings {paddings}): {list(blocks)} blocks")
    return blocks


def unfold(x: Tensor, kernel_sizes, strides=1, paddings=0, dilations=1, name=None) -> Tensor:
    """im2col: the sliding blocks of x [N, C, H, W] as columns [N, C * kh * kw, L]
    (channel-major, then kernel row, column; blocks in row-major order).
    ``paddings``: an int, [ph, pw] or [top, left, bottom, right].

    >>> eager.nn.functional.unfold(eager.ones([2, 3, 4, 4]), kernel_sizes=2).shape
    [2, 12, 9]
    """
    check_float("unfold", "x", x)
    if x.ndim != 4:
        # Paddle asserts it: AssertedArgumentError is that AssertionError and a ValueError
        raise AssertedArgumentError(f"unfold: argument 'x' expected a 4-d tensor [N, C, H, W], got shape {x.shape}")
    args = _fold_args("unfold", kernel_sizes, strides, paddings, dilations)
    blocks = _blocks("unfold", x.shape[2:], *args)
    if 0 in x.shape[2:]:
        # every block lies in the padding: zeros (x's empty sum, broadcast), still
        # connected to x, whose empty gradient col2im could not give (it takes positive sizes)
        kernel = args[0]
        shape = [x.shape[0], x.shape[1] * kernel[0] * kernel[1], blocks[0] * blocks[1]]
        return _F.broadcast_to(_F.sum(x, [], x.dtype, False), shape)
    return _F.im2col(x, *args)


def fold(x: Tensor, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None) -> Tensor:
    """col2im, the adjoint of unfold: columns [N, C * kh * kw, L] summed back into
    [N, C, *output_sizes] (overlapping blocks add up).

    >>> x = eager.ones([1, 4, 9])
    >>> eager.nn.functional.fold(x, output_sizes=[4, 4], kernel_sizes=2).shape
    [1, 1, 4, 4]
    """
    check_float("fold", "x", x)
    if x.ndim != 3:
        # Paddle asserts it: AssertedArgumentError is that AssertionError and a ValueError
        raise AssertedArgumentError(f"fold: argument 'x' expected a 3-d tensor [N, C * kh * kw, L], got shape "
                                    f"{x.shape}")
    sizes = int_tuple("fold", "output_sizes", output_sizes, 2)
    args = _fold_args("fold", kernel_sizes, strides, paddings, dilations)
    blocks = _blocks("fold", sizes, *args)
    kernel = args[0]
    if x.shape[1] % (kernel[0] * kernel[1]):
        raise ValueError(f"fold: argument 'x' expected a channel size divisible by kh * kw = "
                         f"{kernel[0] * kernel[1]}, got shape {x.shape}")
    if x.shape[2] != blocks[0] * blocks[1]:
        raise ValueError(f"fold: argument 'x' expected {blocks[0] * blocks[1]} blocks ({blocks[0]} x {blocks[1]} for "
                         f"output_sizes {list(sizes)}) in its last axis, got shape {x.shape}")
    return _F.col2im(x, list(sizes), *args)


def _norm_type(fn: str, norm_type) -> float:
    norm_type = check_number(fn, "norm_type", norm_type)
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
    # the non-exclusive average divides by each window's positions inside the padded input
    # (padded_window_counts); the sum multiplies that back
    pads, outs = _geometry(fn, x, channel_last, kernel, strides, paddings, algorithm, ceil_mode)
    counts = padded_window_counts(_spatial(x, channel_last), kernel, strides, pads, outs)
    if all(c == ks for axis, ks in zip(counts, kernel) for c in axis):
        total = _F.scale(mean, float(math.prod(kernel)), 0.0, True)
    else:
        grid = math.prod(np.ix_(*map(np.asarray, counts))).astype(np.float64)
        grid = grid[..., None] if channel_last else grid
        total = _F.multiply(mean, to_tensor(grid, dtype=x.dtype, place=x.place))
    return _F.pow(total, 1.0 / p)


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


__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "fold",
           "max_pool1d", "max_pool2d", "max_pool3d", "unfold"]
__all__ += ["max_unpool1d", "max_unpool2d", "max_unpool3d"]
__all__ += ["fractional_max_pool2d", "fractional_max_pool3d", "lp_pool1d", "lp_pool2d"]
