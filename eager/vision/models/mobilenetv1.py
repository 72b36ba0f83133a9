"""MobileNetV1 (Paddle's ``paddle.vision.models.MobileNetV1`` and ``mobilenet_v1``),
with Paddle 2.6.2's layer and parameter names: each convolution is a
:class:`~eager.vision.ops.ConvNormActivation` (keys ``conv1.0.weight``, ``conv1.1._mean``)."""
from __future__ import annotations

from ... import nn
from ..ops import ConvNormActivation
from ._utils import check_num_classes, check_pretrained, check_scale


class DepthwiseSeparable(nn.Layer):
    """A depthwise 3x3 conv-BN-ReLU then a pointwise 1x1 one, channels scaled by ``scale``.

    >>> block = eager.vision.models.mobilenetv1.DepthwiseSeparable(8, 8, 16, 8, 1, 1.0)
    >>> block(eager.rand([1, 8, 4, 4])).shape
    [1, 16, 4, 4]
    """

    def __init__(self, in_channels, out_channels1, out_channels2, num_groups, stride, scale):
        super().__init__()
        self._depthwise_conv = ConvNormActivation(in_channels, int(out_channels1 * scale), kernel_size=3,
                                                  stride=stride, padding=1, groups=int(num_groups * scale))
        self._pointwise_conv = ConvNormActivation(int(out_channels1 * scale), int(out_channels2 * scale),
                                                  kernel_size=1, stride=1, padding=0)

    def forward(self, x):
        return self._pointwise_conv(self._depthwise_conv(x))


# (in, out1, out2, groups, stride) of the 13 depthwise-separable blocks, named as Paddle's sublayers.
_BLOCKS = [("conv2_1", 32, 32, 64, 32, 1), ("conv2_2", 64, 64, 128, 64, 2), ("conv3_1", 128, 128, 128, 128, 1),
           ("conv3_2", 128, 128, 256, 128, 2), ("conv4_1", 256, 256, 256, 256, 1),
           ("conv4_2", 256, 256, 512, 256, 2)] + \
          [(f"conv5_{i}", 512, 512, 512, 512, 1) for i in range(1, 6)] + \
          [("conv5_6", 512, 512, 1024, 512, 2), ("conv6", 1024, 1024, 1024, 1024, 1)]


class MobileNetV1(nn.Layer):
    """MobileNetV1 with width multiplier ``scale``; ``with_pool`` adds the global
    average pool and ``num_classes <= 0`` leaves out ``fc``. 4,231,976
    parameters at scale 1.0 with 1000 classes.

    >>> model = eager.vision.models.MobileNetV1(scale=0.25, num_classes=10)
    >>> model(eager.rand([1, 3, 32, 32])).shape
    [1, 10]
    """

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        scale = check_scale("MobileNetV1", scale)
        if int(32 * scale) < 1:  # the first conv's int(32 * scale) channels, unrounded as in Paddle
            raise ValueError(f"MobileNetV1: argument 'scale' expected at least 1/32 (int(32 * scale) channels in "
                             f"the first convolution), got {scale!r}")
        self.scale = scale
        self.num_classes = check_num_classes("MobileNetV1", num_classes)
        self.with_pool = with_pool
        self.conv1 = ConvNormActivation(3, int(32 * scale), kernel_size=3, stride=2, padding=1)
        self.dwsl = []
        for name, in_ch, out1, out2, groups, stride in _BLOCKS:
            block = DepthwiseSeparable(int(in_ch * scale), out1, out2, groups, stride, scale)
            self.dwsl.append(self.add_sublayer(name, block))
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.fc = nn.Linear(int(1024 * scale), num_classes)

    def forward(self, x):
        x = self.conv1(x)
        for block in self.dwsl:
            x = block(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.fc(x.flatten(1))
        return x


def mobilenet_v1(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV1 (see :class:`MobileNetV1`).

    >>> model = eager.vision.models.mobilenet_v1(scale=0.5, num_classes=10)
    """
    check_pretrained("mobilenet_v1", pretrained)
    return MobileNetV1(scale=scale, **kwargs)


__all__ = ["MobileNetV1", "mobilenet_v1"]
