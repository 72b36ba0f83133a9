"""Convolutions (Paddle's ``paddle.nn.functional.conv``): conv1d, conv2d, conv3d
and their transposes conv1d_transpose, conv2d_transpose, conv3d_transpose.

They call the phi ops ``conv2d``/``conv3d`` (im2col and one matmul, double
differentiable: convolution is bilinear in input and filter); conv1d is a
conv2d over a height of 1, as in Paddle. ``padding`` takes Paddle's forms: an
int, one int per spatial axis, a (before, after) pair per axis flattened, a
pair per axis of the input including [0, 0] for batch and channels, or
"SAME"/"VALID". The transposed ones call ``conv2d_transpose``/``conv3d_transpose``
(the input gradient of a convolution; filter [C_in, C_out/groups, *kernel])
and take ``output_padding`` or ``output_size`` to pick among the output sizes a
stride > 1 leaves open.
"""
from __future__ import annotations

import numbers

from phi.core.errors import InvalidArgumentError
from phi.core.meta_tensor import MetaTensor
from phi.infermeta.conv import conv_infer_meta, conv_transpose_infer_meta

from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import check_float

_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _check_groups(fn: str, groups) -> None:
    # Paddle: a non-int is pybind's error, a value below 1 its own ValueError
    if not isinstance(groups, numbers.Integral) or isinstance(groups, bool):
        raise TypeError(f"{fn}: argument 'groups' expected a positive int, got {groups!r}")
    if groups < 1:
        raise ValueError(f"{fn}: argument 'groups' expected a positive int, got {groups!r}")


def int_tuple(fn: str, arg: str, value, k: int, minimum: int = 1) -> tuple:
    """An int or k ints, each >= minimum, as a k-tuple. A malformed value is a
    ValueError whatever its kind, as Paddle's convert_to_list and padding checks
    raise it (None, a float, a bool, a list of the wrong length)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = (value,) * k
    if (not isinstance(value, (list, tuple)) or len(value) != k
            or any(not isinstance(v, numbers.Integral) or isinstance(v, bool) for v in value)):
        raise ValueError(f"{fn}: argument '{arg}' expected an int or a list of {k} ints, got {value!r}")
    if any(v < minimum for v in value):
        raise ValueError(f"{fn}: argument '{arg}' expected values >= {minimum}, got {list(value)}")
    return tuple(int(v) for v in value)


def conv_padding(fn: str, padding, k: int, channel_last: bool) -> tuple:
    """(paddings as a flat (before, after) list per spatial axis, algorithm)."""
    if isinstance(padding, str):
        algorithm = padding.upper()
        if algorithm not in ("SAME", "VALID"):
            raise ValueError(f"{fn}: argument 'padding' expected 'SAME', 'VALID', an int or a list, got "
                             f"{padding!r}")
        return [0] * (2 * k), algorithm
    if isinstance(padding, (list, tuple)) and len(padding) == k + 2 and all(
            isinstance(p, (list, tuple)) for p in padding):
        outer = (padding[0], padding[-1]) if channel_last else (padding[0], padding[1])
        if any(list(p) != [0, 0] for p in outer):
            raise ValueError(f"{fn}: argument 'padding' may not pad the batch or channel axis, got {padding!r}")
        pairs = padding[1:-1] if channel_last else padding[2:]
        flat = [v for pair in pairs for v in pair]
        return list(int_tuple(fn, "padding", flat, 2 * k, minimum=0)), "EXPLICIT"
    if isinstance(padding, (list, tuple)) and len(padding) == 2 * k and not isinstance(padding[0], (list, tuple)):
        return list(int_tuple(fn, "padding", padding, 2 * k, minimum=0)), "EXPLICIT"
    symmetric = int_tuple(fn, "padding", padding, k, minimum=0)
    return [v for p in symmetric for v in (p, p)], "EXPLICIT"


def _in_1d_terms(fn: str, error: InvalidArgumentError, infer) -> InvalidArgumentError:
    """The error for a 1-D convolution that its 2-D op (over a height of 1)
    refused: the same InferMeta run in 1-D terms (``infer(out)``), whose message
    names the caller's function and shapes rather than the op's 4-d ones; the
    op's own error where the 1-D checks pass. Only on the failure path."""
    try:
        infer(MetaTensor())
    except InvalidArgumentError as own:
        return InvalidArgumentError(f"{fn}: {own}")
    return error


def _conv(fn: str, k: int, x, weight, bias, stride, padding, dilation, groups, data_format):
    check_float(fn, "x", x)
    check_float(fn, "weight", weight)
    if not isinstance(data_format, str) or data_format not in _FORMATS[k]:
        raise ValueError(f"{fn}: argument 'data_format' expected one of {list(_FORMATS[k])}, got "
                         f"{data_format!r}")
    channel_last = data_format == _FORMATS[k][1]
    if x.ndim != k + 2:
        raise ValueError(f"{fn}: argument 'x' expected a {k + 2}-d tensor ({data_format}), got shape {x.shape}")
    if weight.ndim != k + 2:
        raise ValueError(f"{fn}: argument 'weight' expected a {k + 2}-d tensor [out_channels, "
                         f"in_channels / groups, kernel...], got shape {weight.shape}")
    _check_groups(fn, groups)
    strides = int_tuple(fn, "stride", stride, k)
    dilations = int_tuple(fn, "dilation", dilation, k)
    paddings, algorithm = conv_padding(fn, padding, k, channel_last)
    if bias is not None:
        check_float(fn, "bias", bias)
        if bias.shape != [weight.shape[0]]:
            raise ValueError(f"{fn}: argument 'bias' expected shape [{weight.shape[0]}] (one per output "
                             f"channel), got {bias.shape}")
    if k == 1:  # a conv2d over a height of 1
        try:
            out = _F.conv2d(_F.unsqueeze(x, [1 if channel_last else 2]), _F.unsqueeze(weight, [2]),
                            [1, *strides], [0, 0, *paddings], algorithm, [1, *dilations], int(groups),
                            "NHWC" if channel_last else "NCHW")
        except InvalidArgumentError as error:
            raise _in_1d_terms(fn, error, lambda meta: conv_infer_meta(
                1, x.impl, weight.impl, strides, paddings, algorithm, dilations, int(groups), data_format,
                meta)) from None
        out = _F.squeeze(out, [1 if channel_last else 2])
    else:
        op = _F.conv2d if k == 2 else _F.conv3d
        out = op(x, weight, list(strides), paddings, algorithm, list(dilations), int(groups), data_format)
    if bias is not None:
        shape = [bias.shape[0]] if channel_last else [bias.shape[0]] + [1] * k
        out = _F.add(out, _F.reshape(bias, shape))
    return out


def conv1d(x: Tensor, weight: Tensor, bias=None, stride=1, padding=0, dilation=1, groups: int = 1,
           data_format: str = "NCL", name=None) -> Tensor:
    """1-D convolution of x [N, C, L] (or NLC) with weight [O, C/groups, k].

    >>> x = eager.ones([2, 3, 10]); w = eager.ones([4, 3, 3])
    >>> eager.nn.functional.conv1d(x, w, padding=1).shape
    [2, 4, 10]
    """
    return _conv("conv1d", 1, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv2d(x: Tensor, weight: Tensor, bias=None, stride=1, padding=0, dilation=1, groups: int = 1,
           data_format: str = "NCHW", name=None) -> Tensor:
    """2-D convolution of x [N, C, H, W] (or NHWC) with weight [O, C/groups, kh, kw],
    plus bias [O] if given. ``padding``: an int, [ph, pw], [top, bottom, left,
    right], pairs per axis, or "SAME"/"VALID".

    >>> x = eager.ones([1, 3, 8, 8]); w = eager.ones([6, 3, 3, 3])
    >>> eager.nn.functional.conv2d(x, w, stride=2, padding="SAME").shape
    [1, 6, 4, 4]
    """
    return _conv("conv2d", 2, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv3d(x: Tensor, weight: Tensor, bias=None, stride=1, padding=0, dilation=1, groups: int = 1,
           data_format: str = "NCDHW", name=None) -> Tensor:
    """3-D convolution of x [N, C, D, H, W] (or NDHWC) with weight [O, C/groups, kd, kh, kw].

    >>> eager.nn.functional.conv3d(eager.ones([1, 2, 4, 4, 4]), eager.ones([3, 2, 3, 3, 3])).shape
    [1, 3, 2, 2, 2]
    """
    return _conv("conv3d", 3, x, weight, bias, stride, padding, dilation, groups, data_format)


def _optional_ints(fn: str, arg: str, value, k: int, minimum: int) -> tuple:
    """None/0 as (), otherwise k ints >= minimum (a Tensor of sizes is read once)."""
    if value is None:
        return ()
    if isinstance(value, Tensor):
        value = [int(v) for v in value.numpy().reshape(-1)]
    return int_tuple(fn, arg, value, k, minimum)


def _conv_transpose(fn: str, k: int, x, weight, bias, stride, padding, output_padding, dilation, groups,
                    output_size, data_format):
    check_float(fn, "x", x)
    check_float(fn, "weight", weight)
    if not isinstance(data_format, str) or data_format not in _FORMATS[k]:
        raise ValueError(f"{fn}: argument 'data_format' expected one of {list(_FORMATS[k])}, got "
                         f"{data_format!r}")
    channel_last = data_format == _FORMATS[k][1]
    if x.ndim != k + 2:
        raise ValueError(f"{fn}: argument 'x' expected a {k + 2}-d tensor ({data_format}), got shape {x.shape}")
    if weight.ndim != k + 2:
        raise ValueError(f"{fn}: argument 'weight' expected a {k + 2}-d tensor [in_channels, "
                         f"out_channels / groups, kernel...], got shape {weight.shape}")
    _check_groups(fn, groups)
    strides = int_tuple(fn, "stride", stride, k)
    dilations = int_tuple(fn, "dilation", dilation, k)
    paddings, algorithm = conv_padding(fn, padding, k, channel_last)
    output_padding = _optional_ints(fn, "output_padding", output_padding, k, 0)
    output_size = _optional_ints(fn, "output_size", output_size, k, 1)
    if output_size and any(output_padding):
        raise ValueError(f"{fn}: arguments 'output_padding' ({list(output_padding)}) and 'output_size' "
                         f"({list(output_size)}) are mutually exclusive")
    if not any(output_padding):
        output_padding = ()
    if bias is not None:
        check_float(fn, "bias", bias)
        c_out = weight.shape[1] * groups
        if bias.shape != [c_out]:
            raise ValueError(f"{fn}: argument 'bias' expected shape [{c_out}] (one per output channel), got "
                             f"{bias.shape}")
    if k == 1:  # a conv2d_transpose over a height of 1
        try:
            out = _F.conv2d_transpose(
                _F.unsqueeze(x, [1 if channel_last else 2]), _F.unsqueeze(weight, [2]), [1, *strides],
                [0, 0, *paddings], [0, *output_padding] if output_padding else [],
                [1, *output_size] if output_size else [], algorithm, int(groups), [1, *dilations],
                "NHWC" if channel_last else "NCHW")
        except InvalidArgumentError as error:
            raise _in_1d_terms(fn, error, lambda meta: conv_transpose_infer_meta(
                1, x.impl, weight.impl, strides, paddings, output_padding, output_size, algorithm, int(groups),
                dilations, data_format, meta)) from None
        out = _F.squeeze(out, [1 if channel_last else 2])
    else:
        op = _F.conv2d_transpose if k == 2 else _F.conv3d_transpose
        out = op(x, weight, list(strides), paddings, list(output_padding), list(output_size), algorithm,
                 int(groups), list(dilations), data_format)
    if bias is not None:
        shape = [bias.shape[0]] if channel_last else [bias.shape[0]] + [1] * k
        out = _F.add(out, _F.reshape(bias, shape))
    return out


def conv1d_transpose(x: Tensor, weight: Tensor, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1,
                     dilation=1, output_size=None, data_format: str = "NCL", name=None) -> Tensor:
    """1-D transposed convolution of x [N, C_in, L] (or NLC) with weight
    [C_in, C_out/groups, k]: L_out = (L - 1) * stride - 2 * padding +
    dilation * (k - 1) + 1 + output_padding (or ``output_size``).

    >>> x = eager.ones([2, 3, 5]); w = eager.ones([3, 4, 3])
    >>> eager.nn.functional.conv1d_transpose(x, w, stride=2).shape
    [2, 4, 11]
    """
    return _conv_transpose("conv1d_transpose", 1, x, weight, bias, stride, padding, output_padding, dilation,
                           groups, output_size, data_format)


def conv2d_transpose(x: Tensor, weight: Tensor, bias=None, stride=1, padding=0, output_padding=0, dilation=1,
                     groups: int = 1, output_size=None, data_format: str = "NCHW", name=None) -> Tensor:
    """2-D transposed convolution (the gradient of conv2d with respect to its
    input) of x [N, C_in, H, W] (or NHWC) with weight [C_in, C_out/groups, kh, kw],
    plus bias [C_out] if given. ``output_size`` ([H_out, W_out]) or
    ``output_padding`` chooses among the sizes a stride > 1 allows.

    >>> x = eager.ones([1, 4, 8, 8]); w = eager.ones([4, 2, 3, 3])
    >>> eager.nn.functional.conv2d_transpose(x, w, stride=2, padding=1, output_padding=1).shape
    [1, 2, 16, 16]
    """
    return _conv_transpose("conv2d_transpose", 2, x, weight, bias, stride, padding, output_padding, dilation,
                           groups, output_size, data_format)


def conv3d_transpose(x: Tensor, weight: Tensor, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1,
                     dilation=1, output_size=None, data_format: str = "NCDHW", name=None) -> Tensor:
    """3-D transposed convolution of x [N, C_in, D, H, W] (or NDHWC) with weight
    [C_in, C_out/groups, kd, kh, kw].

    >>> eager.nn.functional.conv3d_transpose(eager.ones([1, 2, 3, 3, 3]), eager.ones([2, 4, 2, 2, 2]),
    ...                                      stride=2).shape
    [1, 4, 6, 6, 6]
    """
    return _conv_transpose("conv3d_transpose", 3, x, weight, bias, stride, padding, output_padding, dilation,
                           groups, output_size, data_format)


__all__ = ["conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose", "conv3d_transpose"]
