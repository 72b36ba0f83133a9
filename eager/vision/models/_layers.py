"""Building blocks the newer vision models share: Paddle's ``_make_divisible``
and ``ConvNormActivation`` (``paddle.vision.ops.ConvNormActivation``)."""
from __future__ import annotations

from ... import nn


def make_divisible(value, divisor=8, min_value=None) -> int:
    """``value`` rounded to the nearest multiple of ``divisor`` (at least
    ``min_value``, default ``divisor``), never more than 10% below ``value``.

    >>> make_divisible(32 * 0.35), make_divisible(10)
    (16, 16)
    """
    min_value = divisor if min_value is None else min_value
    rounded = max(min_value, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


class ConvNormActivation(nn.Sequential):
    """Conv2D, then ``norm_layer`` (default BatchNorm2D; None leaves it out),
    then ``activation_layer`` (default ReLU; None leaves it out). ``padding``
    None keeps the size at stride 1; ``bias`` None means a bias only without a
    norm layer.

    >>> block = ConvNormActivation(3, 8, kernel_size=3, stride=2)
    >>> block(eager.rand([1, 3, 8, 8])).shape
    [1, 8, 4, 4]
    """

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=nn.BatchNorm2D, activation_layer=nn.ReLU, dilation=1, bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation,
                            groups=groups, bias_attr=None if bias else False)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
