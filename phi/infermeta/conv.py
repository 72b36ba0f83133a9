"""InferMeta of the convolution ops (group conv of phi/kernels)."""
from __future__ import annotations

from ..common.shape_rules import window_geometry
from ..core.errors import InvalidArgumentError
from ..core.meta_tensor import MetaTensor
from .checks import check_result_shape, same_dtype

__all__ = ["conv2d_grad_infer_meta", "conv2d_infer_meta", "conv3d_grad_infer_meta", "conv3d_infer_meta",
           "conv2d_transpose_infer_meta", "conv3d_transpose_infer_meta", "conv2d_transpose_grad_infer_meta",
           "conv3d_transpose_grad_infer_meta"]

# k = 1 is no op of its own: eager's conv1d runs conv2d over a height of 1, and where that op
# refuses, it checks again in 1-D terms so that the message speaks of the caller's shapes.
_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


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


# -- transposed convolution ----------------------------------------------------

def conv_transpose_geometry(in_sizes, kernel, strides, paddings, output_padding, output_size, padding_algorithm,
                            dilations):
    """(pads, dilations used, output sizes) of a transposed convolution over
    ``in_sizes`` (the spatial sizes of its input x), as Paddle computes them:
    out = (in - 1) * stride - pad_before - pad_after + dilation * (kernel - 1) + 1,
    plus output_padding, or output_size when one is given. "SAME" derives the
    pads from x's sizes with dilation 1, as Paddle's conv_transpose does."""
    pads, dilations, _ = window_geometry(in_sizes, kernel, strides, paddings, dilations, padding_algorithm)
    outs = []
    for i, (size, ks, s, d, (before, after)) in enumerate(zip(in_sizes, kernel, strides, dilations, pads)):
        natural = (size - 1) * s - before - after + d * (ks - 1) + 1
        if output_size:
            outs.append(int(output_size[i]))
        else:
            outs.append(natural + (int(output_padding[i]) if output_padding else 0))
    return tuple(pads), tuple(dilations), tuple(outs)


def conv_transpose_infer_meta(k: int, x, filter, strides, paddings, output_padding, output_size, padding_algorithm,
                              groups, dilations, data_format, out) -> None:
    """A k-d transposed convolution: x [N, C_in, *spatial] (channel-last: [N, *spatial, C_in]),
    filter [C_in, C_out/groups, *kernel]; out [N, C_out, *out] in x's format."""
    dims, w = tuple(x.dims), tuple(filter.dims)
    if len(dims) != k + 2:
        raise InvalidArgumentError(f"argument 'x' expected a {k + 2}-d tensor ([N, C, {k} spatial dims]), "
                                   f"got shape {list(dims)}")
    if len(w) != k + 2:
        raise InvalidArgumentError(f"argument 'filter' expected a {k + 2}-d tensor ([in channels, out channels "
                                   f"/ groups, {k} kernel dims]), got shape {list(w)}")
    same_dtype("x", x, "filter", filter)
    if not x.dtype.is_floating_point:
        raise InvalidArgumentError(f"argument 'x' expected a floating-point tensor, got {x.dtype}")
    if data_format not in _FORMATS[k]:
        raise InvalidArgumentError(f"argument 'data_format' expected one of {list(_FORMATS[k])}, got "
                                   f"{data_format!r}")
    channel_last = data_format == _FORMATS[k][1]
    channels = dims[-1] if channel_last else dims[1]
    spatial = dims[1:-1] if channel_last else dims[2:]
    if groups < 1 or channels % groups:
        raise InvalidArgumentError(f"argument 'groups' expected a positive divisor of the input channels "
                                   f"({channels}), got {groups}")
    if w[0] != channels:
        raise InvalidArgumentError(f"argument 'filter' expects {w[0]} input channels (filter shape {list(w)} is "
                                   f"[in channels, out channels / groups, kernel...]), but x has {channels} "
                                   f"(shape {list(dims)}, data_format {data_format!r})")
    strides = _positive_ints("strides", strides, k)
    dilations = _positive_ints("dilations", dilations, k)
    if padding_algorithm not in ("EXPLICIT", "SAME", "VALID"):
        raise InvalidArgumentError(f"argument 'padding_algorithm' expected 'EXPLICIT', 'SAME' or 'VALID', got "
                                   f"{padding_algorithm!r}")
    if len(paddings) not in (k, 2 * k) or any(p < 0 for p in paddings):
        raise InvalidArgumentError(f"argument 'paddings' expected {k} or {2 * k} non-negative ints, got "
                                   f"{list(paddings)}")
    if output_padding and (len(output_padding) != k or any(p < 0 for p in output_padding)):
        raise InvalidArgumentError(f"argument 'output_padding' expected {k} non-negative ints, got "
                                   f"{list(output_padding)}")
    if output_size and (len(output_size) != k or any(s <= 0 for s in output_size)):
        raise InvalidArgumentError(f"argument 'output_size' expected {k} positive ints, got {list(output_size)}")
    if output_size and output_padding and any(output_padding):
        raise InvalidArgumentError(f"arguments 'output_size' ({list(output_size)}) and 'output_padding' "
                                   f"({list(output_padding)}) cannot both be given")
    natural = conv_transpose_geometry(spatial, w[2:], strides, paddings, (), (), padding_algorithm, dilations)
    pads, used_dilations, base = natural
    for i in range(k):
        bound = max(strides[i], used_dilations[i])
        if output_padding and output_padding[i] >= bound:
            raise InvalidArgumentError(f"argument 'output_padding' expected values smaller than max(stride, "
                                       f"dilation) = {bound} on axis {i}, got {list(output_padding)}")
        if output_size and not base[i] <= output_size[i] < base[i] + strides[i]:
            raise InvalidArgumentError(f"argument 'output_size' expected a size in [{base[i]}, "
                                       f"{base[i] + strides[i]}) on axis {i} (the sizes this stride can "
                                       f"give), got {list(output_size)}")
    outs = conv_transpose_geometry(spatial, w[2:], strides, paddings, output_padding, output_size,
                                   padding_algorithm, dilations)[2]
    if any(o <= 0 for o in outs):   # (output_padding may give back what the paddings crop, as in Paddle)
        raise InvalidArgumentError(f"the paddings {list(paddings)} crop the whole output: output size "
                                   f"{list(outs)}")
    c_out = w[1] * groups
    out_dims = (dims[0],) + outs + (c_out,) if channel_last else (dims[0], c_out) + outs
    check_result_shape("x", out_dims, x.dtype)
    out.dims, out.dtype, out.layout = out_dims, x.dtype, x.layout


def conv2d_transpose_infer_meta(x, filter, strides, paddings, output_padding, output_size, padding_algorithm,
                                groups, dilations, data_format, out) -> None:
    conv_transpose_infer_meta(2, x, filter, strides, paddings, output_padding, output_size, padding_algorithm,
                              groups, dilations, data_format, out)


def conv3d_transpose_infer_meta(x, filter, strides, paddings, output_padding, output_size, padding_algorithm,
                                groups, dilations, data_format, out) -> None:
    conv_transpose_infer_meta(3, x, filter, strides, paddings, output_padding, output_size, padding_algorithm,
                              groups, dilations, data_format, out)


def _conv_transpose_grad(k, x, filter, out_grad, strides, paddings, output_padding, output_size,
                         padding_algorithm, groups, dilations, data_format, x_grad, filter_grad) -> None:
    forward = MetaTensor()
    conv_transpose_infer_meta(k, x, filter, strides, paddings, output_padding, output_size, padding_algorithm,
                              groups, dilations, data_format, forward)
    if tuple(out_grad.dims) != tuple(forward.dims) or out_grad.dtype is not forward.dtype:
        raise InvalidArgumentError(f"argument 'out_grad' expected {forward.dtype}{list(forward.dims)} (the "
                                   f"forward op's result), got {out_grad.dtype}{list(out_grad.dims)}")
    x_grad.share_meta(x)
    filter_grad.share_meta(filter)


def conv2d_transpose_grad_infer_meta(x, filter, out_grad, strides, paddings, output_padding, output_size,
                                     padding_algorithm, groups, dilations, data_format, x_grad,
                                     filter_grad) -> None:
    _conv_transpose_grad(2, x, filter, out_grad, strides, paddings, output_padding, output_size, padding_algorithm,
                         groups, dilations, data_format, x_grad, filter_grad)


def conv3d_transpose_grad_infer_meta(x, filter, out_grad, strides, paddings, output_padding, output_size,
                                     padding_algorithm, groups, dilations, data_format, x_grad,
                                     filter_grad) -> None:
    _conv_transpose_grad(3, x, filter, out_grad, strides, paddings, output_padding, output_size, padding_algorithm,
                         groups, dilations, data_format, x_grad, filter_grad)
