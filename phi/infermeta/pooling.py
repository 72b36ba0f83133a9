"""InferMeta of the pooling ops: max/avg/adaptive pooling, unfold and fold (issue #10)."""
from __future__ import annotations

import math

from ..common.data_type import DataType
from ..common.shape_rules import pool_window_problem, window_geometry
from ..core.errors import InvalidArgumentError
from .checks import check_result_shape

__all__ = [
    "avg_pool2d_grad_infer_meta", "avg_pool2d_infer_meta", "avg_pool3d_grad_infer_meta", "avg_pool3d_infer_meta",
    "col2im_infer_meta", "max_pool2d_with_index_grad_infer_meta", "max_pool2d_with_index_infer_meta",
    "max_pool3d_with_index_grad_infer_meta", "max_pool3d_with_index_infer_meta", "im2col_infer_meta",
]

_FORMATS = {2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _ints(arg: str, values, count: int, minimum: int) -> tuple:
    values = tuple(values)
    if len(values) != count or any(v < minimum for v in values):
        kind = "positive" if minimum == 1 else "non-negative"
        raise InvalidArgumentError(f"argument '{arg}' expected {count} {kind} ints, got {list(values)}")
    return values


def _float_input(arg: str, x) -> None:
    if not x.dtype.is_floating_point:
        raise InvalidArgumentError(f"argument '{arg}' expected a floating-point tensor, got {x.dtype}")


def pool_out_dims(k: int, x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive,
                  data_format) -> tuple:
    """The output shape of a k-d pooling of x (checked)."""
    dims = tuple(x.dims)
    if data_format not in _FORMATS[k]:
        raise InvalidArgumentError(f"argument 'data_format' expected one of {list(_FORMATS[k])}, got "
                                   f"{data_format!r}")
    if len(dims) != k + 2:
        raise InvalidArgumentError(f"argument 'x' expected a {k + 2}-d tensor ({data_format}), got shape "
                                   f"{list(dims)}")
    _float_input("x", x)
    channel_last = data_format == _FORMATS[k][1]
    spatial = dims[1:-1] if channel_last else dims[2:]
    if any(n <= 0 for n in spatial):
        raise InvalidArgumentError(f"argument 'x' expected positive spatial sizes, got shape {list(dims)} "
                                   f"({data_format})")
    if adaptive:
        outs = _ints("output_size", kernel_size, k, 1)
    else:
        kernel = _ints("kernel_size", kernel_size, k, 1)
        strides = _ints("strides", strides, k, 1)
        if padding_algorithm not in ("EXPLICIT", "SAME", "VALID"):
            raise InvalidArgumentError(f"argument 'padding_algorithm' expected 'EXPLICIT', 'SAME' or 'VALID', "
                                       f"got {padding_algorithm!r}")
        if len(paddings) not in (k, 2 * k) or any(p < 0 for p in paddings):
            raise InvalidArgumentError(f"argument 'paddings' expected {k} or {2 * k} non-negative ints, got "
                                       f"{list(paddings)}")
        pads, _, outs = window_geometry(spatial, kernel, strides, paddings, (1,) * k, padding_algorithm,
                                        ceil_mode)
        problem = pool_window_problem(spatial, kernel, pads, outs, "paddings")
        if problem:
            raise InvalidArgumentError(problem)
    out_dims = (dims[0],) + tuple(outs) + (dims[-1],) if channel_last else dims[:2] + tuple(outs)
    check_result_shape("x", out_dims, x.dtype)
    return out_dims


def _max_pool(k, x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive, data_format, out,
              mask) -> None:
    dims = pool_out_dims(k, x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive,
                         data_format)
    out.dims, out.dtype, out.layout = dims, x.dtype, x.layout
    mask.dims, mask.dtype, mask.layout = dims, DataType.INT32, x.layout


def max_pool2d_with_index_infer_meta(x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive,
                                     data_format, out, mask) -> None:
    """2-D max pooling: out and the int32 mask of each maximum's flat index in its input plane."""
    _max_pool(2, x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive, data_format, out, mask)


def max_pool3d_with_index_infer_meta(x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive,
                                     data_format, out, mask) -> None:
    """3-D max pooling: out and the int32 mask of each maximum's flat index in its input volume."""
    _max_pool(3, x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive, data_format, out, mask)


def _check_out_grad(out_grad, dims, dtype) -> None:
    if tuple(out_grad.dims) != tuple(dims) or out_grad.dtype is not dtype:
        raise InvalidArgumentError(f"argument 'out_grad' expected {dtype}{list(dims)} (the forward op's "
                                   f"result), got {out_grad.dtype}{list(out_grad.dims)}")


def _max_pool_grad(k, x, mask, out_grad, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive,
                   data_format, x_grad) -> None:
    dims = pool_out_dims(k, x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive,
                         data_format)
    _check_out_grad(out_grad, dims, x.dtype)
    if tuple(mask.dims) != dims or mask.dtype not in (DataType.INT32, DataType.INT64):
        raise InvalidArgumentError(f"argument 'mask' expected an int32 tensor of shape {list(dims)}, got "
                                   f"{mask.dtype}{list(mask.dims)}")
    x_grad.share_meta(x)


def max_pool2d_with_index_grad_infer_meta(x, mask, out_grad, kernel_size, strides, paddings, padding_algorithm,
                                          ceil_mode, adaptive, data_format, x_grad) -> None:
    _max_pool_grad(2, x, mask, out_grad, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive,
                   data_format, x_grad)


def max_pool3d_with_index_grad_infer_meta(x, mask, out_grad, kernel_size, strides, paddings, padding_algorithm,
                                          ceil_mode, adaptive, data_format, x_grad) -> None:
    _max_pool_grad(3, x, mask, out_grad, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive,
                   data_format, x_grad)


def avg_pool2d_infer_meta(x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, exclusive, adaptive,
                          data_format, out) -> None:
    """2-D average pooling."""
    out.dims = pool_out_dims(2, x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive,
                             data_format)
    out.dtype, out.layout = x.dtype, x.layout


def avg_pool3d_infer_meta(x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, exclusive, adaptive,
                          data_format, out) -> None:
    """3-D average pooling."""
    out.dims = pool_out_dims(3, x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive,
                             data_format)
    out.dtype, out.layout = x.dtype, x.layout


def _avg_pool_grad(k, x, out_grad, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive,
                   data_format, x_grad) -> None:
    dims = pool_out_dims(k, x, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive,
                         data_format)
    _check_out_grad(out_grad, dims, x.dtype)
    x_grad.share_meta(x)


def avg_pool2d_grad_infer_meta(x, out_grad, kernel_size, strides, paddings, padding_algorithm, ceil_mode,
                               exclusive, adaptive, data_format, x_grad) -> None:
    _avg_pool_grad(2, x, out_grad, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive,
                   data_format, x_grad)


def avg_pool3d_grad_infer_meta(x, out_grad, kernel_size, strides, paddings, padding_algorithm, ceil_mode,
                               exclusive, adaptive, data_format, x_grad) -> None:
    _avg_pool_grad(3, x, out_grad, kernel_size, strides, paddings, padding_algorithm, ceil_mode, adaptive,
                   data_format, x_grad)


def _block_geometry(size, kernel_sizes, strides, paddings, dilations) -> tuple:
    """The number of sliding blocks per axis of unfold/fold over spatial ``size``."""
    kernel = _ints("kernel_sizes", kernel_sizes, 2, 1)
    strides = _ints("strides", strides, 2, 1)
    dilations = _ints("dilations", dilations, 2, 1)
    paddings = _ints("paddings", paddings, 4, 0)
    blocks = tuple((n + paddings[i] + paddings[2 + i] - (dilations[i] * (kernel[i] - 1) + 1)) // strides[i] + 1
                   for i, n in enumerate(size))
    if any(b <= 0 for b in blocks):
        raise InvalidArgumentError(f"the kernel {list(kernel)} (dilations {list(dilations)}) is larger than the "
                                   f"padded input {list(size)} (paddings {list(paddings)}): {list(blocks)} blocks")
    return kernel, blocks


def im2col_infer_meta(x, kernel_sizes, strides, paddings, dilations, out) -> None:
    """unfold (im2col): x [N, C, H, W] -> [N, C * kh * kw, L], L the number of blocks."""
    dims = tuple(x.dims)
    if len(dims) != 4:
        raise InvalidArgumentError(f"argument 'x' expected a 4-d tensor [N, C, H, W], got shape {list(dims)}")
    _float_input("x", x)
    kernel, blocks = _block_geometry(dims[2:], kernel_sizes, strides, paddings, dilations)
    out_dims = (dims[0], dims[1] * math.prod(kernel), math.prod(blocks))
    check_result_shape("x", out_dims, x.dtype)
    out.dims, out.dtype, out.layout = out_dims, x.dtype, x.layout


def col2im_infer_meta(x, output_sizes, kernel_sizes, strides, paddings, dilations, out) -> None:
    """fold (col2im): x [N, C * kh * kw, L] -> [N, C, *output_sizes], overlaps summed."""
    dims = tuple(x.dims)
    if len(dims) != 3:
        raise InvalidArgumentError(f"argument 'x' expected a 3-d tensor [N, C * kh * kw, L], got shape "
                                   f"{list(dims)}")
    _float_input("x", x)
    size = _ints("output_sizes", output_sizes, 2, 1)
    kernel, blocks = _block_geometry(size, kernel_sizes, strides, paddings, dilations)
    if dims[1] % math.prod(kernel):
        raise InvalidArgumentError(f"argument 'x' expected a channel size divisible by the kernel's "
                                   f"{math.prod(kernel)} positions ({list(kernel)}), got shape {list(dims)}")
    if dims[2] != math.prod(blocks):
        raise InvalidArgumentError(f"argument 'x' expected {math.prod(blocks)} blocks ({blocks[0]} x {blocks[1]} "
                                   f"for output_sizes {list(size)}) in its last axis, got shape {list(dims)}")
    out_dims = (dims[0], dims[1] // math.prod(kernel)) + size
    check_result_shape("x", out_dims, x.dtype)
    out.dims, out.dtype, out.layout = out_dims, x.dtype, x.layout
