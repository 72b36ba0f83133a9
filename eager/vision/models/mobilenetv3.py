"""MobileNetV3 Small and Large (Paddle's ``paddle.vision.models.MobileNetV3Small``,
``MobileNetV3Large``, ``mobilenet_v3_small`` and ``mobilenet_v3_large``), built
as Paddle 2.6.2 builds them, so a state dict saved there loads here: every
convolution is a :class:`~eager.vision.ops.ConvNormActivation` (keys ``conv.0.weight``,
``conv.1._mean``), BatchNorm with epsilon 0.001 and momentum 0.99,
squeeze-excitation with a hardsigmoid gate, and a classifier of Linear,
Hardswish, Dropout(0.2) and Linear."""
from __future__ import annotations

from functools import partial

from ... import nn
from ..ops import ConvNormActivation
from ._layers import make_divisible
from ._utils import check_num_classes, check_pretrained, check_scale

_ACTIVATIONS = {"relu": nn.ReLU, "hardswish": nn.Hardswish}


def _activation_layer(act):
    if act is None:
        return None
    if act not in _ACTIVATIONS:
        raise ValueError(f"MobileNetV3: activation expected 'relu', 'hardswish' or None, got {act!r}")
    return _ACTIVATIONS[act]


class SqueezeExcitation(nn.Layer):
    """Channel gates: global average pool, 1x1 conv ``fc1`` to ``squeeze_channels``,
    ``activation``, 1x1 conv ``fc2`` back, ``scale_activation``, times the input.

    >>> se = eager.vision.models.mobilenetv3.SqueezeExcitation(8, 2)
    >>> se(eager.rand([1, 8, 3, 3])).shape
    [1, 8, 3, 3]
    """

    def __init__(self, input_channels, squeeze_channels, activation=nn.ReLU, scale_activation=nn.Sigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2D(1)
        self.fc1 = nn.Conv2D(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2D(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def forward(self, x):
        return x * self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(x)))))


class InvertedResidualConfig:
    """One block's settings: input channels, kernel size, expanded and output
    channels (each scaled by ``scale`` and rounded to a multiple of 8, as Paddle),
    squeeze-excitation, activation ('relu', 'hardswish' or None) and stride.

    >>> cfg = eager.vision.models.mobilenetv3.InvertedResidualConfig(16, 3, 16, 16, True, "relu", 2, 0.5)
    >>> cfg.in_channels, cfg.expanded_channels
    (8, 8)
    """

    def __init__(self, in_channels, kernel, expanded_channels, out_channels, use_se, activation, stride, scale=1.0):
        self.in_channels = self.adjust_channels(in_channels, scale)
        self.kernel = kernel
        self.expanded_channels = self.adjust_channels(expanded_channels, scale)
        self.out_channels = self.adjust_channels(out_channels, scale)
        self.use_se = use_se
        self.activation_layer = _activation_layer(activation)
        self.stride = stride

    @staticmethod
    def adjust_channels(channels, scale=1.0):
        return make_divisible(channels * scale, 8)


class InvertedResidual(nn.Layer):
    """1x1 expansion (only when it widens), ``filter_size`` depthwise at
    ``stride``, optional squeeze-excitation, 1x1 linear projection; the input is
    added back when the shape is kept.

    >>> block = eager.vision.models.mobilenetv3.InvertedResidual(8, 16, 8, 3, 1, True, eager.nn.ReLU, eager.nn.BatchNorm2D)
    >>> block(eager.rand([1, 8, 4, 4])).shape
    [1, 8, 4, 4]
    """

    def __init__(self, in_channels, expanded_channels, out_channels, filter_size, stride, use_se, activation_layer,
                 norm_layer):
        super().__init__()
        self.use_res_connect = stride == 1 and in_channels == out_channels
        self.use_se = use_se
        self.expand = in_channels != expanded_channels
        if self.expand:
            self.expand_conv = ConvNormActivation(in_channels, expanded_channels, 1, 1, 0, norm_layer=norm_layer,
                                                  activation_layer=activation_layer)
        self.bottleneck_conv = ConvNormActivation(expanded_channels, expanded_channels, filter_size, stride,
                                                  (filter_size - 1) // 2, groups=expanded_channels,
                                                  norm_layer=norm_layer, activation_layer=activation_layer)
        if use_se:
            self.mid_se = SqueezeExcitation(expanded_channels, make_divisible(expanded_channels // 4),
                                            scale_activation=nn.Hardsigmoid)
        self.linear_conv = ConvNormActivation(expanded_channels, out_channels, 1, 1, 0, norm_layer=norm_layer,
                                              activation_layer=None)

    def forward(self, x):
        y = self.expand_conv(x) if self.expand else x
        y = self.bottleneck_conv(y)
        if self.use_se:
            y = self.mid_se(y)
        y = self.linear_conv(y)
        return x + y if self.use_res_connect else y


class MobileNetV3(nn.Layer):
    """MobileNetV3 over a list of :class:`InvertedResidualConfig`: a 3x3 stem,
    the blocks, a 1x1 conv to six times the last block's input channels;
    ``with_pool`` adds the global average pool; ``num_classes > 0`` the
    classifier (Linear to ``last_channel``, Hardswish, Dropout(0.2), Linear).

    >>> model = eager.vision.models.MobileNetV3Small(scale=0.5, num_classes=10)
    >>> model(eager.rand([1, 3, 32, 32])).shape
    [1, 10]
    """

    def __init__(self, config, last_channel, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.config = config
        self.scale = check_scale(type(self).__name__, scale)
        self.last_channel = last_channel
        self.num_classes = check_num_classes(type(self).__name__, num_classes)
        self.with_pool = with_pool
        self.firstconv_in_channels = config[0].in_channels
        self.lastconv_in_channels = config[-1].in_channels
        self.lastconv_out_channels = self.lastconv_in_channels * 6
        norm_layer = partial(nn.BatchNorm2D, epsilon=0.001, momentum=0.99)
        self.conv = ConvNormActivation(3, self.firstconv_in_channels, 3, 2, 1, groups=1,
                                       activation_layer=nn.Hardswish, norm_layer=norm_layer)
        self.blocks = nn.Sequential(*[
            InvertedResidual(c.in_channels, c.expanded_channels, c.out_channels, c.kernel, c.stride, c.use_se,
                             c.activation_layer, norm_layer)
            for c in config])
        self.lastconv = ConvNormActivation(self.lastconv_in_channels, self.lastconv_out_channels, 1, 1, 0, groups=1,
                                           norm_layer=norm_layer, activation_layer=nn.Hardswish)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(nn.Linear(self.lastconv_out_channels, last_channel), nn.Hardswish(),
                                            nn.Dropout(p=0.2), nn.Linear(last_channel, num_classes))

    def forward(self, x):
        x = self.lastconv(self.blocks(self.conv(x)))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(x.flatten(1))
        return x


def _configs(rows, scale):
    return [InvertedResidualConfig(*row, scale) for row in rows]


def _last_channel(width, scale, last_channel):
    return make_divisible(width * scale, 8) if last_channel is None else last_channel


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
    """MobileNetV3-Small (11 blocks, classifier width 1024 * scale, rounded to 8).
    ``last_channel`` (not a Paddle argument, last) overrides that width.

    >>> eager.vision.models.MobileNetV3Small(num_classes=0, with_pool=False)(eager.rand([1, 3, 32, 32])).shape
    [1, 576, 1, 1]
    """

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True, last_channel=None):
        scale = check_scale(type(self).__name__, scale)
        super().__init__(_configs(_SMALL, scale), _last_channel(1024, scale, last_channel), scale=scale,
                         num_classes=num_classes, with_pool=with_pool)


class MobileNetV3Large(MobileNetV3):
    """MobileNetV3-Large (15 blocks, classifier width 1280 * scale, rounded to 8).
    ``last_channel`` (not a Paddle argument, last) overrides that width.

    >>> eager.vision.models.MobileNetV3Large(scale=0.5, num_classes=10)(eager.rand([1, 3, 32, 32])).shape
    [1, 10]
    """

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True, last_channel=None):
        scale = check_scale(type(self).__name__, scale)
        super().__init__(_configs(_LARGE, scale), _last_channel(1280, scale, last_channel), scale=scale,
                         num_classes=num_classes, with_pool=with_pool)


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
