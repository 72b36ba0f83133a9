"""AlexNet (Paddle's ``paddle.vision.models.AlexNet`` and ``alexnet``), with
Paddle's layer names and its uniform initialisation (bound 1/sqrt(fan_in))."""
from __future__ import annotations

import math

from ... import nn
from ...nn import functional as F
from ._utils import check_num_classes, check_pretrained


def _uniform(bound):
    return nn.ParamAttr(initializer=nn.initializer.Uniform(-bound, bound))


def _conv(in_channels, out_channels, kernel_size, stride, padding):
    bound = 1.0 / math.sqrt(in_channels * kernel_size * kernel_size)
    return nn.Conv2D(in_channels, out_channels, kernel_size, stride=stride, padding=padding,
                     weight_attr=_uniform(bound), bias_attr=_uniform(bound))


class ConvPoolLayer(nn.Layer):
    """Conv2D (uniformly initialised), ReLU when ``act='relu'``, then a 3x3
    stride-2 max pool.

    >>> layer = ConvPoolLayer(3, 8, 3, 1, 1, act="relu")
    >>> layer(eager.rand([1, 3, 9, 9])).shape
    [1, 8, 4, 4]
    """

    def __init__(self, input_channels, output_channels, filter_size, stride, padding, groups=1, act=None):
        super().__init__()
        self.relu = nn.ReLU() if act == "relu" else None
        bound = 1.0 / math.sqrt(input_channels * filter_size * filter_size)
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, stride=stride, padding=padding,
                               groups=groups, weight_attr=_uniform(bound), bias_attr=_uniform(bound))
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, x):
        x = self._conv(x)
        if self.relu is not None:
            x = self.relu(x)
        return self._pool(x)


class AlexNet(nn.Layer):
    """AlexNet: five convolutions then, when ``num_classes > 0``, three Linear
    layers with dropout (the first expects 256x6x6 features: 224x224 inputs).
    61,100,840 parameters with 1000 classes.

    >>> model = eager.vision.models.AlexNet(num_classes=0)
    >>> model(eager.rand([1, 3, 127, 127])).shape
    [1, 256, 3, 3]
    """

    def __init__(self, num_classes=1000):
        super().__init__()
        self.num_classes = check_num_classes("AlexNet", num_classes)
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, act="relu")
        self._conv3 = _conv(192, 384, 3, 1, 1)
        self._conv4 = _conv(384, 256, 3, 1, 1)
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, act="relu")
        if num_classes > 0:
            bound = 1.0 / math.sqrt(256 * 6 * 6)
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc6 = nn.Linear(256 * 6 * 6, 4096, weight_attr=_uniform(bound), bias_attr=_uniform(bound))
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc7 = nn.Linear(4096, 4096, weight_attr=_uniform(bound), bias_attr=_uniform(bound))
            self._fc8 = nn.Linear(4096, num_classes, weight_attr=_uniform(bound), bias_attr=_uniform(bound))

    def forward(self, x):
        x = self._conv2(self._conv1(x))
        x = F.relu(self._conv4(F.relu(self._conv3(x))))
        x = self._conv5(x)
        if self.num_classes > 0:
            x = F.relu(self._fc6(self._drop1(x.flatten(1))))
            x = F.relu(self._fc7(self._drop2(x)))
            x = self._fc8(x)
        return x


def alexnet(pretrained=False, **kwargs):
    """AlexNet (see :class:`AlexNet`).

    >>> model = eager.vision.models.alexnet(num_classes=10)
    """
    check_pretrained("alexnet", pretrained)
    return AlexNet(**kwargs)


__all__ = ["AlexNet", "alexnet"]
