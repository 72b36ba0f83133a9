"""Convolution layers (Paddle's ``paddle.nn.Conv1D/Conv2D/Conv3D`` and
``Conv1DTranspose/Conv2DTranspose/Conv3DTranspose``).

The weight is [out_channels, in_channels / groups, *kernel_size], initialized
as Paddle does: Normal(0, sqrt(2 / (prod(kernel_size) * in_channels))); the
bias [out_channels] starts at zero. ``padding_mode`` other than 'zeros'
('reflect', 'replicate', 'circular') pads the input first, by gathering
indices along each spatial axis (``functional.vision.pad_by_index``, shared
with ``F.pad``; the gradient adds back into the rows it came from), then
convolves without padding.

A transposed layer's weight is [in_channels, out_channels / groups,
*kernel_size] and starts as Paddle's does, XavierUniform (Paddle gives it no
initializer of its own); ``forward(x, output_size=None)``.
"""
from __future__ import annotations

import numbers

import numpy as np
from phi.core.errors import ArgumentKindError, AssertedArgumentError, InvalidArgumentError, ZeroDivisorError

from ..tensor import Tensor
from . import initializer as _init
from .functional import conv as conv_functional
from .functional.checks import check_tensor
from .functional.vision import pad_by_index
from .layer import Layer, ParamAttr

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")



def _check_channels(who: str, in_channels, out_channels, groups) -> None:
    """The channel counts and groups of a ConvNd layer: ints, and positive. Paddle
    raises ValueError for a float (its divisibility check or argument parser),
    asserts the weight's dims > 0 (AssertionError) and divides by groups
    (ZeroDivisionError for 0): eager's errors are those types and ValueErrors."""
    for arg, value in (("in_channels", in_channels), ("out_channels", out_channels), ("groups", groups)):
        if not isinstance(value, numbers.Integral) or isinstance(value, bool):
            raise ArgumentKindError(f"{who}: argument '{arg}' expected a positive int, got {value!r}")
        if value <= 0:
            error = ZeroDivisorError if arg == "groups" and value == 0 else AssertedArgumentError
            raise error(f"{who}: argument '{arg}' expected a positive int, got {value!r}")


def _kernel_size(who: str, kernel_size, k: int) -> tuple:
    """A ConvNd layer's kernel size as k ints; a size below 1 is the
    AssertionError of Paddle's weight shape check (and a ValueError)."""
    sizes = conv_functional.int_tuple(who, "kernel_size", kernel_size, k, minimum=-(1 << 62))
    if any(v < 1 for v in sizes):
        raise AssertedArgumentError(f"{who}: argument 'kernel_size' expected values >= 1, got {list(sizes)}")
    return sizes


def convolve(who: str, conv, x: Tensor, weight: Tensor) -> Tensor:
    """The convolution a ConvNd layer ``conv`` computes (its padding and padding
    mode, stride, dilation, groups, layout and bias), of x with ``weight``; also
    for the layers that hold a convolution's settings and another weight (a
    fake-quantized one: nn.quant.quant_layers.QuantizedConv2D)."""
    padding = conv._padding
    if conv._padding_mode != "zeros":
        first = 1 if conv._data_format.endswith("C") else 2
        x = pad_by_index(who, x, conv._paddings, conv._padding_mode, first)
        padding = 0
    return conv_functional._conv(who, conv._k, x, weight, conv.bias, conv._stride, padding, conv._dilation,
                                 conv._groups, conv._data_format)


def convolve_transpose(who: str, conv, x: Tensor, weight: Tensor, output_size=None) -> Tensor:
    """The transposed convolution a ConvNdTranspose layer ``conv`` computes (its
    padding, output padding unless ``output_size`` is given, stride, dilation,
    groups, layout and bias), of x with ``weight``; also for the layers that hold
    its settings and another weight (nn.quant.quant_layers.QuantizedConv2DTranspose)."""
    output_padding = 0 if output_size is not None else conv._output_padding
    return conv_functional._conv_transpose(who, conv._k, x, weight, conv.bias, conv._stride, conv._padding,
                                           output_padding, conv._dilation, conv._groups, output_size,
                                           conv._data_format)


def _refused(who: str, conv, x: Tensor, error: InvalidArgumentError) -> ValueError:
    """Why the convolution op refused the input x of layer ``conv``: its channels
    against the layer's in_channels (which the op reports as the weight's shape),
    else the op's own error. Only on the failure path."""
    channels = x.shape[-1 if conv._data_format.endswith("C") else 1]
    if channels != conv._in_channels:
        return ValueError(f"{who}: argument 'x' expected {conv._in_channels} channels (in_channels) in "
                          f"data_format {conv._data_format!r}, got shape {x.shape} with {channels}")
    return error


def _check_output_padding(who: str, output_padding, stride, dilation) -> None:
    for axis, (pad, s, d) in enumerate(zip(output_padding, stride, dilation)):
        if pad >= max(s, d):
            raise ValueError(f"{who}: argument 'output_padding' expected values smaller than max(stride, "
                             f"dilation) = {max(s, d)} on axis {axis}, got {list(output_padding)}")


def _conv_repr(conv, output_padding) -> str:
    """A convolution's repr text in Paddle's order; like Paddle's it leaves out the
    defaults and shows padding, padding_mode and output_padding as given."""
    text = f"{conv._in_channels}, {conv._out_channels}, kernel_size={list(conv._kernel_size)}"
    if any(s != 1 for s in conv._stride):
        text += f", stride={list(conv._stride)}"
    if conv._padding != 0:
        text += f", padding={conv._padding}"
    if getattr(conv, "_padding_mode", "zeros") != "zeros":
        text += f", padding_mode={conv._padding_mode}"
    if output_padding != 0:
        text += f", output_padding={output_padding}"
    if any(d != 1 for d in conv._dilation):
        text += f", dilation={list(conv._dilation)}"
    if conv._groups != 1:
        text += f", groups={conv._groups}"
    return text + f", data_format={conv._data_format}"


class _ConvNd(Layer):
    _k = 2
    _default_format = "NCHW"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format=None):
        super().__init__()
        who = type(self).__name__
        k = self._k
        _check_channels(who, in_channels, out_channels, groups)
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"{who}: argument 'groups' ({groups}) must divide in_channels ({in_channels}) and "
                             f"out_channels ({out_channels})")
        if not isinstance(padding_mode, str) or padding_mode not in _PADDING_MODES:
            raise ValueError(f"{who}: argument 'padding_mode' expected one of {list(_PADDING_MODES)}, got "
                             f"{padding_mode!r}")
        data_format = self._default_format if data_format is None else data_format
        if not isinstance(data_format, str) or data_format not in conv_functional._FORMATS[k]:
            raise ValueError(f"{who}: argument 'data_format' expected one of "
                             f"{list(conv_functional._FORMATS[k])}, got {data_format!r}")
        self._in_channels, self._out_channels, self._groups = int(in_channels), int(out_channels), int(groups)
        self._kernel_size = _kernel_size(who, kernel_size, k)
        self._stride = conv_functional.int_tuple(who, "stride", stride, k)
        self._dilation = conv_functional.int_tuple(who, "dilation", dilation, k)
        self._padding_mode, self._data_format = padding_mode, data_format
        channel_last = data_format == conv_functional._FORMATS[k][1]
        self._paddings, self._algorithm = conv_functional.conv_padding(who, padding, k, channel_last)
        if padding_mode != "zeros" and self._algorithm != "EXPLICIT":
            # Paddle's check is of the padding's kind (an int, not a string): its TypeError, and a ValueError
            raise ArgumentKindError(f"{who}: padding_mode {padding_mode!r} needs explicit padding sizes, got "
                                    f"padding={padding!r}")
        self._padding = padding
        std = (2.0 / (np.prod(self._kernel_size) * self._in_channels)) ** 0.5
        weight_attr = ParamAttr.from_argument(weight_attr, who, "weight_attr")
        if weight_attr is False:
            raise ValueError(f"{who}: argument 'weight_attr' cannot be False: a convolution needs a weight")
        self.weight = self.create_parameter(
            [self._out_channels, self._in_channels // self._groups, *self._kernel_size], weight_attr,
            default_initializer=_init.Normal(0.0, float(std)))
        self.bias = self.create_parameter([self._out_channels], ParamAttr.from_argument(bias_attr, who, "bias_attr"),
                                          is_bias=True)

    def forward(self, x: Tensor) -> Tensor:
        """The convolution of x (layout ``data_format``) with this layer's weight and bias."""
        who = f"{type(self).__name__}({self._full_name})"
        check_tensor(who, "x", x)
        try:
            return convolve(who, self, x, self.weight)
        except InvalidArgumentError as error:
            raise _refused(who, self, x, error) from None

    def extra_repr(self) -> str:
        """The sizes, shown by repr."""
        return _conv_repr(self, 0)


class Conv1D(_ConvNd):
    """1-D convolution layer over [N, C, L] (``data_format="NCL"``) or [N, L, C].

    >>> conv = eager.nn.Conv1D(3, 8, kernel_size=3, padding=1)
    >>> conv(eager.ones([2, 3, 16])).shape
    [2, 8, 16]
    """

    _k, _default_format = 1, "NCL"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         padding_mode, weight_attr, bias_attr, data_format)


class Conv2D(_ConvNd):
    """2-D convolution layer over [N, C, H, W] (``data_format="NCHW"``) or NHWC.

    >>> conv = eager.nn.Conv2D(1, 6, kernel_size=5, padding=2)
    >>> conv(eager.ones([4, 1, 28, 28])).shape
    [4, 6, 28, 28]
    """

    _k, _default_format = 2, "NCHW"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         padding_mode, weight_attr, bias_attr, data_format)


class Conv3D(_ConvNd):
    """3-D convolution layer over [N, C, D, H, W] (``data_format="NCDHW"``) or NDHWC.

    >>> eager.nn.Conv3D(2, 4, kernel_size=3)(eager.ones([1, 2, 5, 5, 5])).shape
    [1, 4, 3, 3, 3]
    """

    _k, _default_format = 3, "NCDHW"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         padding_mode, weight_attr, bias_attr, data_format)


class _ConvTransposeNd(Layer):
    _k = 2
    _default_format = "NCHW"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 dilation=1, weight_attr=None, bias_attr=None, data_format=None):
        super().__init__()
        who = type(self).__name__
        k = self._k
        _check_channels(who, in_channels, out_channels, groups)
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"{who}: argument 'groups' ({groups}) must divide in_channels ({in_channels}) and "
                             f"out_channels ({out_channels})")
        data_format = self._default_format if data_format is None else data_format
        if not isinstance(data_format, str) or data_format not in conv_functional._FORMATS[k]:
            raise ValueError(f"{who}: argument 'data_format' expected one of "
                             f"{list(conv_functional._FORMATS[k])}, got {data_format!r}")
        self._in_channels, self._out_channels, self._groups = int(in_channels), int(out_channels), int(groups)
        self._kernel_size = _kernel_size(who, kernel_size, k)
        self._stride = conv_functional.int_tuple(who, "stride", stride, k)
        self._dilation = conv_functional.int_tuple(who, "dilation", dilation, k)
        self._output_padding = conv_functional.int_tuple(who, "output_padding", output_padding, k, minimum=0)
        self._given_output_padding = output_padding  # repr shows it as given (1, not [1, 1]), as Paddle's
        _check_output_padding(who, self._output_padding, self._stride, self._dilation)
        conv_functional.conv_padding(who, padding, k, data_format == conv_functional._FORMATS[k][1])
        self._padding, self._data_format = padding, data_format
        weight_attr = ParamAttr.from_argument(weight_attr, who, "weight_attr")
        if weight_attr is False:
            raise ValueError(f"{who}: argument 'weight_attr' cannot be False: a convolution needs a weight")
        self.weight = self.create_parameter(
            [self._in_channels, self._out_channels // self._groups, *self._kernel_size], weight_attr)
        self.bias = self.create_parameter([self._out_channels], ParamAttr.from_argument(bias_attr, who, "bias_attr"),
                                          is_bias=True)

    def forward(self, x: Tensor, output_size=None) -> Tensor:
        """The transposed convolution of x (layout ``data_format``); ``output_size``
        picks the spatial output size among those the stride allows."""
        who = f"{type(self).__name__}({self._full_name})"
        check_tensor(who, "x", x)
        try:
            return convolve_transpose(who, self, x, self.weight, output_size)
        except InvalidArgumentError as error:
            raise _refused(who, self, x, error) from None

    def extra_repr(self) -> str:
        """The sizes, shown by repr."""
        return _conv_repr(self, self._given_output_padding)


class Conv1DTranspose(_ConvTransposeNd):
    """1-D transposed convolution layer over [N, C, L] (``data_format="NCL"``) or [N, L, C].

    >>> up = eager.nn.Conv1DTranspose(4, 2, kernel_size=2, stride=2)
    >>> up(eager.ones([1, 4, 5])).shape
    [1, 2, 10]
    """

    _k, _default_format = 1, "NCL"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 dilation=1, weight_attr=None, bias_attr=None, data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, dilation,
                         weight_attr, bias_attr, data_format)


class Conv2DTranspose(_ConvTransposeNd):
    """2-D transposed convolution layer over [N, C, H, W] (``data_format="NCHW"``) or NHWC.

    >>> up = eager.nn.Conv2DTranspose(8, 4, kernel_size=3, stride=2, padding=1, output_padding=1)
    >>> up(eager.ones([2, 8, 7, 7])).shape
    [2, 4, 14, 14]
    """

    _k, _default_format = 2, "NCHW"

    # Paddle 2.6's positional order: dilation before groups here (Conv1DTranspose has groups first)
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, dilation=1,
                 groups=1, weight_attr=None, bias_attr=None, data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, dilation,
                         weight_attr, bias_attr, data_format)


class Conv3DTranspose(_ConvTransposeNd):
    """3-D transposed convolution layer over [N, C, D, H, W] (``data_format="NCDHW"``) or NDHWC.

    >>> eager.nn.Conv3DTranspose(2, 3, kernel_size=2, stride=2)(eager.ones([1, 2, 3, 3, 3])).shape
    [1, 3, 6, 6, 6]
    """

    _k, _default_format = 3, "NCDHW"

    # Paddle 2.6's positional order: dilation before groups here (Conv1DTranspose has groups first)
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, dilation=1,
                 groups=1, weight_attr=None, bias_attr=None, data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, dilation,
                         weight_attr, bias_attr, data_format)


__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose"]
