"""MobileNetV2 (Paddle's ``paddle.vision.models.MobileNetV2`` and ``mobilenet_v2``):
inverted residual blocks with linear bottlenecks, Paddle's layer names."""
from __future__ import annotations

from ... import nn
from ..ops import ConvNormActivation
from ._layers import make_divisible
from ._utils import check_num_classes, check_pretrained, check_scale


class InvertedResidual(nn.Layer):
    """1x1 expansion (by ``expand_ratio``; none at 1), 3x3 depthwise at
    ``stride``, 1x1 linear projection; the input is added back when the shape
    is kept.

    >>> block = eager.vision.models.mobilenetv2.InvertedResidual(8, 8, 1, 6)
    >>> block(eager.rand([1, 8, 4, 4])).shape
    [1, 8, 4, 4]
    """

    def __init__(self, inp, oup, stride, expand_ratio, norm_layer=nn.BatchNorm2D):
        super().__init__()
        if stride not in (1, 2):
            raise ValueError(f"InvertedResidual: argument 'stride' expected 1 or 2, got {stride!r}")
        self.stride = stride
        hidden = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvNormActivation(inp, hidden, 1, norm_layer=norm_layer, activation_layer=nn.ReLU6))
        layers += [ConvNormActivation(hidden, hidden, 3, stride, groups=hidden, norm_layer=norm_layer,
                                      activation_layer=nn.ReLU6),
                   nn.Conv2D(hidden, oup, 1, 1, 0, bias_attr=False), norm_layer(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


# (expansion t, channels c, repeats n, first stride s), as in the paper's Table 2.
_SETTING = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
            (6, 320, 1, 1)]


class MobileNetV2(nn.Layer):
    """MobileNetV2 with width multiplier ``scale`` (channels rounded to
    multiples of 8); ``with_pool`` adds the global average pool and
    ``num_classes <= 0`` leaves out the classifier (Dropout 0.2 + Linear).
    3,504,872 parameters at scale 1.0 with 1000 classes.

    >>> model = eager.vision.models.MobileNetV2(scale=0.35, num_classes=10)
    >>> model(eager.rand([1, 3, 32, 32])).shape
    [1, 10]
    """

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        scale = check_scale("MobileNetV2", scale)
        self.num_classes = check_num_classes("MobileNetV2", num_classes)
        self.with_pool = with_pool
        channels = make_divisible(32 * scale)
        self.last_channel = make_divisible(1280 * max(1.0, scale))
        features = [ConvNormActivation(3, channels, 3, 2, activation_layer=nn.ReLU6)]
        for t, c, n, s in _SETTING:
            out = make_divisible(c * scale)
            for i in range(n):
                features.append(InvertedResidual(channels, out, s if i == 0 else 1, expand_ratio=t))
                channels = out
        features.append(ConvNormActivation(channels, self.last_channel, 1, activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(self.last_channel, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.classifier(x.flatten(1))
        return x


def mobilenet_v2(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV2 (see :class:`MobileNetV2`).

    >>> model = eager.vision.models.mobilenet_v2(scale=0.5, num_classes=10)
    """
    check_pretrained("mobilenet_v2", pretrained)
    return MobileNetV2(scale=scale, **kwargs)


__all__ = ["MobileNetV2", "mobilenet_v2"]
