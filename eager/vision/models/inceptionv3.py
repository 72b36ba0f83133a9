"""InceptionV3 (Paddle's ``paddle.vision.models.InceptionV3`` and ``inception_v3``),
without the auxiliary head, as Paddle's; Paddle's layer names."""
from __future__ import annotations

import math

from ... import nn
from ...generated import forward_api as _F
from ..ops import ConvNormActivation
from ._utils import check_num_classes, check_pretrained


def _cna(cin, cout, kernel, stride=1, padding=0):
    return ConvNormActivation(cin, cout, kernel, stride=stride, padding=padding, activation_layer=nn.ReLU)


def _avg_pool():
    return nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)


class InceptionStem(nn.Layer):
    """Five conv-BN-ReLU layers and two max pools: 299x299 -> 192x35x35.

    >>> eager.vision.models.inceptionv3.InceptionStem()(eager.rand([1, 3, 75, 75])).shape
    [1, 192, 7, 7]
    """

    def __init__(self):
        super().__init__()
        self.conv_1a_3x3 = _cna(3, 32, 3, stride=2)
        self.conv_2a_3x3 = _cna(32, 32, 3)
        self.conv_2b_3x3 = _cna(32, 64, 3, padding=1)
        self.max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        self.conv_3b_1x1 = _cna(64, 80, 1)
        self.conv_4a_3x3 = _cna(80, 192, 3)

    def forward(self, x):
        x = self.max_pool(self.conv_2b_3x3(self.conv_2a_3x3(self.conv_1a_3x3(x))))
        return self.max_pool(self.conv_4a_3x3(self.conv_3b_1x1(x)))


class InceptionA(nn.Layer):
    """1x1 | 1x1-5x5 | 1x1-3x3-3x3 | avg pool-1x1 (``pool_features``): 224 + pool_features channels.

    >>> eager.vision.models.inceptionv3.InceptionA(8, 4)(eager.rand([1, 8, 5, 5])).shape
    [1, 228, 5, 5]
    """

    def __init__(self, num_channels, pool_features):
        super().__init__()
        self.branch1x1 = _cna(num_channels, 64, 1)
        self.branch5x5_1 = _cna(num_channels, 48, 1)
        self.branch5x5_2 = _cna(48, 64, 5, padding=2)
        self.branch3x3dbl_1 = _cna(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cna(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cna(96, 96, 3, padding=1)
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cna(num_channels, pool_features, 1)

    def forward(self, x):
        return _F.concat([self.branch1x1(x), self.branch5x5_2(self.branch5x5_1(x)),
                          self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
                          self.branch_pool_conv(self.branch_pool(x))], axis=1)


class InceptionB(nn.Layer):
    """Grid reduction: 3x3/2 | 1x1-3x3-3x3/2 | max pool/2: 480 + input channels.

    >>> eager.vision.models.inceptionv3.InceptionB(8)(eager.rand([1, 8, 7, 7])).shape
    [1, 488, 3, 3]
    """

    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3 = _cna(num_channels, 384, 3, stride=2)
        self.branch3x3dbl_1 = _cna(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cna(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cna(96, 96, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        return _F.concat([self.branch3x3(x), self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
                          self.branch_pool(x)], axis=1)


class InceptionC(nn.Layer):
    """Factorised 7x7 (1x7 and 7x1) branches with ``channels_7x7`` inner channels: 768 channels out.

    >>> eager.vision.models.inceptionv3.InceptionC(8, 4)(eager.rand([1, 8, 5, 5])).shape
    [1, 768, 5, 5]
    """

    def __init__(self, num_channels, channels_7x7):
        super().__init__()
        c = channels_7x7
        self.branch1x1 = _cna(num_channels, 192, 1)
        self.branch7x7_1 = _cna(num_channels, c, 1)
        self.branch7x7_2 = _cna(c, c, (1, 7), padding=(0, 3))
        self.branch7x7_3 = _cna(c, 192, (7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = _cna(num_channels, c, 1)
        self.branch7x7dbl_2 = _cna(c, c, (7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = _cna(c, c, (1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = _cna(c, c, (7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = _cna(c, 192, (1, 7), padding=(0, 3))
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cna(num_channels, 192, 1)

    def forward(self, x):
        b1 = self.branch1x1(x)  # the branches run in Paddle's order (the order hooks and summary see)
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        d7 = self.branch7x7dbl_1(x)
        for layer in (self.branch7x7dbl_2, self.branch7x7dbl_3, self.branch7x7dbl_4, self.branch7x7dbl_5):
            d7 = layer(d7)
        return _F.concat([b1, b7, d7, self.branch_pool_conv(self.branch_pool(x))], axis=1)


class InceptionD(nn.Layer):
    """Grid reduction: 1x1-3x3/2 | 1x1-1x7-7x1-3x3/2 | max pool/2: 512 + input channels.

    >>> eager.vision.models.inceptionv3.InceptionD(8)(eager.rand([1, 8, 7, 7])).shape
    [1, 520, 3, 3]
    """

    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3_1 = _cna(num_channels, 192, 1)
        self.branch3x3_2 = _cna(192, 320, 3, stride=2)
        self.branch7x7x3_1 = _cna(num_channels, 192, 1)
        self.branch7x7x3_2 = _cna(192, 192, (1, 7), padding=(0, 3))
        self.branch7x7x3_3 = _cna(192, 192, (7, 1), padding=(3, 0))
        self.branch7x7x3_4 = _cna(192, 192, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        b3 = self.branch3x3_2(self.branch3x3_1(x))  # Paddle's branch order
        b7 = self.branch7x7x3_4(self.branch7x7x3_3(self.branch7x7x3_2(self.branch7x7x3_1(x))))
        return _F.concat([b3, b7, self.branch_pool(x)], axis=1)


class InceptionE(nn.Layer):
    """Expanded filter bank (1x3 and 3x1 side by side): 2048 channels out.

    >>> eager.vision.models.inceptionv3.InceptionE(8)(eager.rand([1, 8, 3, 3])).shape
    [1, 2048, 3, 3]
    """

    def __init__(self, num_channels):
        super().__init__()
        self.branch1x1 = _cna(num_channels, 320, 1)
        self.branch3x3_1 = _cna(num_channels, 384, 1)
        self.branch3x3_2a = _cna(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3_2b = _cna(384, 384, (3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = _cna(num_channels, 448, 1)
        self.branch3x3dbl_2 = _cna(448, 384, 3, padding=1)
        self.branch3x3dbl_3a = _cna(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = _cna(384, 384, (3, 1), padding=(1, 0))
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cna(num_channels, 192, 1)

    def forward(self, x):
        b1 = self.branch1x1(x)  # Paddle's branch order
        b3 = self.branch3x3_1(x)
        b3a, b3b = self.branch3x3_2a(b3), self.branch3x3_2b(b3)
        d3 = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        return _F.concat([b1, b3a, b3b, self.branch3x3dbl_3a(d3), self.branch3x3dbl_3b(d3),
                          self.branch_pool_conv(self.branch_pool(x))], axis=1)


class InceptionV3(nn.Layer):
    """InceptionV3 (no auxiliary head): stem, 3 InceptionA, InceptionB, 4
    InceptionC, InceptionD, 2 InceptionE; ``with_pool`` adds the global average
    pool and ``num_classes > 0`` dropout 0.2 and the Linear classifier (which
    needs the pool or 1x1 features: 299x299 inputs without the pool would not
    fit it, as in Paddle). 23,834,568 parameters with 1000 classes.

    >>> model = eager.vision.models.InceptionV3(num_classes=10)
    >>> model(eager.rand([1, 3, 75, 75])).shape
    [1, 10]
    """

    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = check_num_classes("InceptionV3", num_classes)
        self.with_pool = with_pool
        self.layers_config = {"inception_a": [[192, 256, 288], [32, 64, 64]], "inception_b": [288],
                              "inception_c": [[768, 768, 768, 768], [128, 160, 160, 192]], "inception_d": [768],
                              "inception_e": [1280, 2048]}
        cfg = self.layers_config
        self.inception_stem = InceptionStem()
        blocks = [InceptionA(c, p) for c, p in zip(*cfg["inception_a"])]
        blocks += [InceptionB(c) for c in cfg["inception_b"]]
        blocks += [InceptionC(c, c7) for c, c7 in zip(*cfg["inception_c"])]
        blocks += [InceptionD(c) for c in cfg["inception_d"]]
        blocks += [InceptionE(c) for c in cfg["inception_e"]]
        self.inception_block_list = nn.LayerList(blocks)
        if with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            bound = 1.0 / math.sqrt(2048.0)
            self.fc = nn.Linear(2048, num_classes,
                                weight_attr=nn.ParamAttr(initializer=nn.initializer.Uniform(-bound, bound)))

    def forward(self, x):
        x = self.inception_stem(x)
        for block in self.inception_block_list:
            x = block(x)
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            x = self.fc(self.dropout(_F.reshape(x, [-1, 2048])))
        return x


def inception_v3(pretrained=False, **kwargs):
    """InceptionV3 (see :class:`InceptionV3`).

    >>> model = eager.vision.models.inception_v3(num_classes=10)
    """
    check_pretrained("inception_v3", pretrained)
    return InceptionV3(**kwargs)


__all__ = ["InceptionV3", "inception_v3"]
