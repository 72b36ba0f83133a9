"""MobileNetV3 Small and Large (Paddle's ``paddle.vision.models.MobileNetV3Small``,
``MobileNetV3Large``, ``mobilenet_v3_small`` and ``mobilenet_v3_large``), with
Paddle's layer names: squeeze-excitation (hardsigmoid slope 0.2) and hardswish."""
from __future__ import annotations

from ... import nn
from ...nn import functional as F
from ._layers import make_divisible
from ._utils import check_num_classes, check_pretrained, check_scale

_ACTIVATIONS = {"relu": nn.ReLU, "hardswish": nn.Hardswish}


def _activation(act):
    if act is None:
        return None
    if act not in _ACTIVATIONS:
        raise ValueError(f"MobileNetV3: activation expected 'relu', 'hardswish' or None, got {act!r}")
    return _ACTIVATIONS[act]()


class SqueezeExcitation(nn.Layer):
    """Channel gates: global average pool, 1x1 conv to ``channels // reduction``,
    ReLU, 1x1 conv back, hardsigmoid (slope 0.2, offset 0.5), times the input.

    >>> se = eager.vision.models.mobilenetv3.SqueezeExcitation(8)
    >>> se(eager.rand([1, 8, 3, 3])).shape
    [1, 8, 3, 3]
    """

    def __init__(self, channels, reduction=4):
        super().__init__()
        self.avg_pool = nn.AdaptiveAvgPool2D(1)
        self.conv1 = nn.Conv2D(channels, channels // reduction, 1)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2D(channels // reduction, channels, 1)

    def forward(self, x):
        gate = self.conv2(self.relu(self.conv1(self.avg_pool(x))))
        return x * F.hardsigmoid(gate, slope=0.2, offset=0.5)


class ConvBNLayer(nn.Layer):
    """Conv2D (no bias), BatchNorm, then the activation ``act`` ('relu',
    'hardswish' or None).

    >>> eager.vision.models.mobilenetv3.ConvBNLayer(3, 8, 3, 2, 1, act="hardswish")(eager.rand([1, 3, 8, 8])).shape
    [1, 8, 4, 4]
    """

    def __init__(self, in_channels, out_channels, filter_size, stride, padding, num_groups=1, act=None):
        super().__init__()
        self.conv = nn.Conv2D(in_channels, out_channels, filter_size, stride=stride, padding=padding,
                              groups=num_groups, bias_attr=False)
        self.bn = nn.BatchNorm2D(out_channels)
        self.act = _activation(act)

    def forward(self, x):
        x = self.bn(self.conv(x))
        return x if self.act is None else self.act(x)


class InvertedResidual(nn.Layer):
    """1x1 expansion, ``filter_size`` depthwise at ``stride``, optional
    squeeze-excitation, 1x1 linear projection; the input is added back when the
    shape is kept.

    >>> block = eager.vision.models.mobilenetv3.InvertedResidual(8, 16, 8, 3, 1, True, "relu")
    >>> block(eager.rand([1, 8, 4, 4])).shape
    [1, 8, 4, 4]
    """

    def __init__(self, in_channels, expanded_channels, out_channels, filter_size, stride, use_se, act=None):
        super().__init__()
        self.if_shortcut = stride == 1 and in_channels == out_channels
        self.if_se = use_se
        self.expand_conv = ConvBNLayer(in_channels, expanded_channels, 1, 1, 0, act=act)
        self.bottleneck_conv = ConvBNLayer(expanded_channels, expanded_channels, filter_size, stride,
                                           (filter_size - 1) // 2, num_groups=expanded_channels, act=act)
        if use_se:
            self.mid_se = SqueezeExcitation(expanded_channels)
        self.linear_conv = ConvBNLayer(expanded_channels, out_channels, 1, 1, 0, act=None)

    def forward(self, x):
        y = self.bottleneck_conv(self.expand_conv(x))
        if self.if_se:
            y = self.mid_se(y)
        y = self.linear_conv(y)
        return x + y if self.if_shortcut else y


class InvertedResidualConfig:
    """One block's settings: input channels, kernel size, expanded and output
    channels, squeeze-excitation, activation and stride.

    >>> cfg = eager.vision.models.mobilenetv3.InvertedResidualConfig(16, 3, 16, 16, True, "relu", 2)
    """

    def __init__(self, in_channels, kernel, expanded_channels, out_channels, use_se, activation, stride):
        self.in_channels = in_channels
        self.kernel = kernel
        self.expanded_channels = expanded_channels
        self.out_channels = out_channels
        self.use_se = use_se
        self.activation = activation
        self.stride = stride


class MobileNetV3(nn.Layer):
    """MobileNetV3 over a list of :class:`InvertedResidualConfig` (channels
    scaled by ``scale``, rounded to multiples of 8); ``with_pool`` adds the
    global average pool; ``num_classes > 0`` adds a 1x1 conv to
    ``last_channel``, hardswish, dropout 0.2 and the Linear classifier.

    >>> model = eager.vision.models.MobileNetV3Small(scale=0.5, num_classes=10)
    >>> model(eager.rand([1, 3, 32, 32])).shape
    [1, 10]
    """

    def __init__(self, config, scale=1.0, last_channel=1280, num_classes=1000, with_pool=True):
        super().__init__()
        scale = check_scale(type(self).__name__, scale)
        self.config = config
        self.scale = scale
        self.last_channel = last_channel
        self.num_classes = check_num_classes(type(self).__name__, num_classes)
        self.with_pool = with_pool
        self.first_in_channels = config[0].in_channels
        self.last_expanded_channels = config[-1].expanded_channels
        self.last_out_channels = config[-1].out_channels
        self.conv = ConvBNLayer(3, make_divisible(self.first_in_channels * scale), 3, 2, 1, act="hardswish")
        self.blocks = nn.Sequential(*[
            InvertedResidual(make_divisible(scale * c.in_channels), make_divisible(scale * c.expanded_channels),
                             make_divisible(scale * c.out_channels), c.kernel, c.stride, c.use_se, c.activation)
            for c in config])
        last_expanded = make_divisible(scale * self.last_expanded_channels)
        self.last_second_conv = ConvBNLayer(make_divisible(scale * self.last_out_channels), last_expanded, 1, 1, 0,
                                            act="hardswish")
        if with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.last_conv = nn.Conv2D(last_expanded, last_channel, 1, bias_attr=False)
            self.hardswish = nn.Hardswish()
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            self.flatten = nn.Flatten(start_axis=1, stop_axis=-1)
            self.fc = nn.Linear(last_channel, num_classes)

    def forward(self, x):
        x = self.last_second_conv(self.blocks(self.conv(x)))
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            x = self.fc(self.flatten(self.dropout(self.hardswish(self.last_conv(x)))))
        return x


def _configs(rows):
    return [InvertedResidualConfig(*row) for row in rows]


_SMALL = [(16, 3, 16, 16, True, "relu", 2), (16, 3, 72, 24, False, "relu", 2), (24, 3, 88, 24, False, "relu", 1),
          (24, 5, 96, 40, True, "hardswish", 2), (40, 5, 240, 40, True, "hardswish", 1),
          (40, 5, 240, 40, True, "hardswish", 1), (40, 5, 120, 48, True, "hardswish", 1),
          (48, 5, 144, 48, True, "hardswish", 1), (48, 5, 288, 96, True, "hardswish", 2),
          (96, 5, 576, 96, True, "hardswish", 1), (96, 5, 576, 96, True, "hardswish", 1)]
_LARGE = [(16, 3, 16, 16, False, "relu", 1), (16, 3, 64, 24, False, "relu", 2), (24, 3, 72, 24, False, "relu", 1),
          (24, 5, 72, 40, True, "relu", 2), (40, 5, 120, 40, True, "relu", 1), (40, 5, 120, 40, True, "relu", 1),
          (40, 3, 240, 80, False, "hardswish", 2), (80, 3, 200, 80, False, "hardswish", 1),
          (80, 3, 184, 80, False, "hardswish", 1), (80, 3, 184, 80, False, "hardswish", 1),
          (80, 3, 480, 112, True, "hardswish", 1), (112, 3, 672, 112, True, "hardswish", 1),
          (112, 5, 672, 160, True, "hardswish", 2), (160, 5, 960, 160, True, "hardswish", 1),
          (160, 5, 960, 160, True, "hardswish", 1)]


class MobileNetV3Small(MobileNetV3):
    """MobileNetV3-Small (11 blocks); arguments as :class:`MobileNetV3`, in
    Paddle's positional order (``last_channel``, not a Paddle argument, comes last).

    >>> eager.vision.models.MobileNetV3Small(num_classes=0, with_pool=False)(eager.rand([1, 3, 32, 32])).shape
    [1, 576, 1, 1]
    """

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True, last_channel=1280):
        super().__init__(_configs(_SMALL), scale=scale, last_channel=last_channel, num_classes=num_classes,
                         with_pool=with_pool)


class MobileNetV3Large(MobileNetV3):
    """MobileNetV3-Large (15 blocks); arguments as :class:`MobileNetV3`, in
    Paddle's positional order (``last_channel``, not a Paddle argument, comes last).

    >>> eager.vision.models.MobileNetV3Large(scale=0.5, num_classes=10)(eager.rand([1, 3, 32, 32])).shape
    [1, 10]
    """

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True, last_channel=1280):
        super().__init__(_configs(_LARGE), scale=scale, last_channel=last_channel, num_classes=num_classes,
                         with_pool=with_pool)


def mobilenet_v3_small(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV3-Small (see :class:`MobileNetV3Small`).

    >>> model = eager.vision.models.mobilenet_v3_small(scale=0.75, num_classes=10)
    """
    check_pretrained("mobilenet_v3_small", pretrained)
    return MobileNetV3Small(scale=scale, **kwargs)


def mobilenet_v3_large(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV3-Large (see :class:`MobileNetV3Large`).

    >>> model = eager.vision.models.mobilenet_v3_large(scale=0.75, num_classes=10)
    """
    check_pretrained("mobilenet_v3_large", pretrained)
    return MobileNetV3Large(scale=scale, **kwargs)


__all__ = ["MobileNetV3Large", "MobileNetV3Small", "mobilenet_v3_large", "mobilenet_v3_small"]
