"""InferMeta of the convolution ops (group conv of phi/kernels)."""
from __future__ import annotations

from ..common.shape_rules import window_geometry
from ..core.errors import InvalidArgumentError
from ..core.meta_tensor import MetaTensor
from .checks import check_result_shape, same_dtype

__all__ = ["conv2d_grad_infer_meta", "conv2d_infer_meta", "conv3d_grad_infer_meta", "conv3d_infer_meta"]

_FORMATS = {2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _positive_ints(arg: str, values, k: int) -> tuple:
    values = tuple(values)
    if len(values) != k or any(v <= 0 for v in values):
        raise InvalidArgumentError(f"argument '{arg}' expected {k} positive ints, got {list(values)}")
    return values


def conv_infer_meta(k: int, input, filter, strides, paddings, padding_algorithm, dilations, groups, data_format,
                    out) -> None:
    """A k-d convolution: input [N, C, *spatial] (channel-last: [N, *spatial, C]),
    filter [O, C/groups, *kernel]; out [N, O, *out] in the input's format."""
    dims, w = tuple(input.dims), tuple(filter.dims)
    if len(dims) != k + 2:
        raise InvalidArgumentError(f"argument 'input' expected a {k + 2}-d tensor ([N, C, {k} spatial dims]), "
                                   f"got shape {list(dims)}")
    if len(w) != k + 2:
        raise InvalidArgumentError(f"argument 'filter' expected a {k + 2}-d tensor ([out channels, in channels "
                                   f"/ groups, {k} kernel dims]), got shape {list(w)}")
    same_dtype("input", input, "filter", filter)
    if not input.dtype.is_floating_point:
        raise InvalidArgumentError(f"argument 'input' expected a floating-point tensor, got {input.dtype}")
    if data_format not in _FORMATS[k]:
        raise InvalidArgumentError(f"argument 'data_format' expected one of {list(_FORMATS[k])}, got "
                                   f"{data_format!r}")
    channel_last = data_format == _FORMATS[k][1]
    channels = dims[-1] if channel_last else dims[1]
    spatial = dims[1:-1] if channel_last else dims[2:]
    if groups < 1 or channels % groups or w[0] % groups:
        raise InvalidArgumentError(f"argument 'groups' expected a positive divisor of the input channels "
                                   f"({channels}) and of the filter's output channels ({w[0]}), got {groups}")
    if w[1] * groups != channels:
        raise InvalidArgumentError(f"argument 'filter' expects input channels / groups = {w[1]} "
                                   f"({w[1] * groups} channels), but the input has {channels} (shape "
                                   f"{list(dims)}, data_format {data_format!r}, groups {groups})")
    strides = _positive_ints("strides", strides, k)
    dilations = _positive_ints("dilations", dilations, k)
    if padding_algorithm not in ("EXPLICIT", "SAME", "VALID"):
        raise InvalidArgumentError(f"argument 'padding_algorithm' expected 'EXPLICIT', 'SAME' or 'VALID', got "
                                   f"{padding_algorithm!r}")
    if len(paddings) not in (k, 2 * k) or any(p < 0 for p in paddings):
        raise InvalidArgumentError(f"argument 'paddings' expected {k} or {2 * k} non-negative ints, got "
                                   f"{list(paddings)}")
    _, _, outs = window_geometry(spatial, w[2:], strides, paddings, dilations, padding_algorithm)
    if any(o <= 0 for o in outs):
        raise InvalidArgumentError(f"the kernel {list(w[2:])} (dilations {list(dilations)}) is larger than the "
                                   f"padded input {list(spatial)} (paddings {list(paddings)}): output size "
                                   f"{list(outs)}")
    out_dims = (dims[0],) + outs + (w[0],) if channel_last else (dims[0], w[0]) + outs
    check_result_shape("input", out_dims, input.dtype)
    out.dims, out.dtype, out.layout = out_dims, input.dtype, input.layout


def conv2d_infer_meta(input, filter, strides, paddings, padding_algorithm, dilations, groups, data_format,
                      out) -> None:
    conv_infer_meta(2, input, filter, strides, paddings, padding_algorithm, dilations, groups, data_format, out)


def conv3d_infer_meta(input, filter, strides, paddings, padding_algorithm, dilations, groups, data_format,
                      out) -> None:
    conv_infer_meta(3, input, filter, strides, paddings, padding_algorithm, dilations, groups, data_format, out)


def _conv_grad(k, input, filter, out_grad, strides, paddings, padding_algorithm, dilations, groups, data_format,
               input_grad, filter_grad) -> None:
    forward = MetaTensor()
    conv_infer_meta(k, input, filter, strides, paddings, padding_algorithm, dilations, groups, data_format, forward)
    if tuple(out_grad.dims) != tuple(forward.dims) or out_grad.dtype is not forward.dtype:
        raise InvalidArgumentError(f"argument 'out_grad' expected {forward.dtype}{list(forward.dims)} (the "
                                   f"forward op's result), got {out_grad.dtype}{list(out_grad.dims)}")
    input_grad.share_meta(input)
    filter_grad.share_meta(filter)


def conv2d_grad_infer_meta(input, filter, out_grad, strides, paddings, padding_algorithm, dilations, groups,
                           data_format, input_grad, filter_grad) -> None:
    _conv_grad(2, input, filter, out_grad, strides, paddings, padding_algorithm, dilations, groups, data_format,
               input_grad, filter_grad)


def conv3d_grad_infer_meta(input, filter, out_grad, strides, paddings, padding_algorithm, dilations, groups,
                           data_format, input_grad, filter_grad) -> None:
    _conv_grad(3, input, filter, out_grad, strides, paddings, padding_algorithm, dilations, groups, data_format,
               input_grad, filter_grad)
