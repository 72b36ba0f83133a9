"""DenseNet 121/161/169/201/264 (Paddle's ``paddle.vision.models.DenseNet`` and
``densenet121`` ... ``densenet264``), with Paddle's layer names."""
from __future__ import annotations

import math

from ... import nn
from ...generated import forward_api as _F
from ._utils import check_choice, check_num_classes, check_positive_int, check_pretrained

# layers -> (initial features, growth rate, layers per dense block)
_SPECS = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]), 169: (64, 32, [6, 12, 32, 32]),
          201: (64, 32, [6, 12, 48, 32]), 264: (64, 32, [6, 12, 64, 48])}


class BNACConvLayer(nn.Layer):
    """BatchNorm with ReLU, then Conv2D without bias (pre-activation).

    >>> eager.vision.models.densenet.BNACConvLayer(4, 8, 3, pad=1)(eager.rand([1, 4, 5, 5])).shape
    [1, 8, 5, 5]
    """

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1, act="relu"):
        super().__init__()
        self._batch_norm = nn.BatchNorm(num_channels, act=act)
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride, padding=pad, groups=groups,
                               bias_attr=False)

    def forward(self, x):
        return self._conv(self._batch_norm(x))


class DenseLayer(nn.Layer):
    """A 1x1 bottleneck (``bn_size * growth_rate`` channels) then a 3x3 conv to
    ``growth_rate`` channels, concatenated after the input.

    >>> eager.vision.models.densenet.DenseLayer(8, 4, 2, 0.0)(eager.rand([1, 8, 5, 5])).shape
    [1, 12, 5, 5]
    """

    def __init__(self, num_channels, growth_rate, bn_size, dropout):
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, pad=1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, x):
        y = self.bn_ac_func2(self.bn_ac_func1(x))
        if self.dropout:
            y = self.dropout_func(y)
        return _F.concat([x, y], axis=1)


class DenseBlock(nn.Layer):
    """``num_layers`` DenseLayers, each adding ``growth_rate`` channels;
    sublayers named ``<name>_<i>`` as Paddle's.

    >>> eager.vision.models.densenet.DenseBlock(8, 2, 2, 4, 0.0, "conv2")(eager.rand([1, 8, 5, 5])).shape
    [1, 16, 5, 5]
    """

    def __init__(self, num_channels, num_layers, bn_size, growth_rate, dropout, name=None):
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = []
        for i in range(num_layers):
            layer = DenseLayer(num_channels + i * growth_rate, growth_rate, bn_size, dropout)
            self.dense_layer_func.append(self.add_sublayer(f"{name}_{i + 1}", layer))

    def forward(self, x):
        for layer in self.dense_layer_func:
            x = layer(x)
        return x


class TransitionLayer(nn.Layer):
    """BN-ReLU-1x1 conv to ``num_output_features`` channels, then a 2x2 average pool.

    >>> eager.vision.models.densenet.TransitionLayer(8, 4)(eager.rand([1, 8, 6, 6])).shape
    [1, 4, 3, 3]
    """

    def __init__(self, num_channels, num_output_features):
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, x):
        return self.pool2d_avg(self.conv_ac_func(x))


class ConvBNLayer(nn.Layer):
    """Conv2D without bias, then BatchNorm with ReLU.

    >>> eager.vision.models.densenet.ConvBNLayer(3, 8, 7, 2, 3)(eager.rand([1, 3, 8, 8])).shape
    [1, 8, 4, 4]
    """

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1, act="relu"):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride, padding=pad, groups=groups,
                               bias_attr=False)
        self._batch_norm = nn.BatchNorm(num_filters, act=act)

    def forward(self, x):
        return self._batch_norm(self._conv(x))


class DenseNet(nn.Layer):
    """DenseNet with ``layers`` 121, 161, 169, 201 or 264; ``bn_size`` widens
    the bottleneck, ``dropout`` follows each dense layer; ``with_pool`` adds the
    global average pool and ``num_classes <= 0`` leaves out ``out``.
    7,978,856 parameters for DenseNet-121 with 1000 classes.

    >>> model = eager.vision.models.DenseNet(121, num_classes=10)
    >>> model(eager.rand([1, 3, 32, 32])).shape
    [1, 10]
    """

    def __init__(self, layers=121, bn_size=4, dropout=0.0, num_classes=1000, with_pool=True):
        super().__init__()
        check_choice("DenseNet", "layers", layers, _SPECS)
        bn_size = check_positive_int("DenseNet", "bn_size", bn_size)
        self.num_classes = check_num_classes("DenseNet", num_classes)
        self.with_pool = with_pool
        features, growth, self.block_config = _SPECS[layers]
        self.conv1_func = ConvBNLayer(3, features, 7, stride=2, pad=3)
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.dense_block_func_list = []
        self.transition_func_list = []
        for i, n in enumerate(self.block_config):
            block = DenseBlock(features, n, bn_size, growth, dropout, name=f"conv{i + 2}")
            self.dense_block_func_list.append(self.add_sublayer(f"db_conv_{i + 2}", block))
            features += n * growth
            if i != len(self.block_config) - 1:
                transition = TransitionLayer(features, features // 2)
                self.transition_func_list.append(self.add_sublayer(f"tr_conv{i + 2}_blk", transition))
                features //= 2
        self.batch_norm = nn.BatchNorm(features, act="relu")
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            bound = 1.0 / math.sqrt(features)
            self.out = nn.Linear(features, num_classes,
                                 weight_attr=nn.ParamAttr(initializer=nn.initializer.Uniform(-bound, bound)))

    def forward(self, x):
        x = self.pool2d_max(self.conv1_func(x))
        for i, block in enumerate(self.dense_block_func_list):
            x = block(x)
            if i < len(self.transition_func_list):
                x = self.transition_func_list[i](x)
        x = self.batch_norm(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.out(x.flatten(1))
        return x


def _builder(layers):
    name = f"densenet{layers}"

    def build(pretrained=False, **kwargs):
        check_pretrained(name, pretrained)
        return DenseNet(layers=layers, **kwargs)
    build.__name__ = build.__qualname__ = name
    build.__doc__ = (f"DenseNet-{layers} (see :class:`DenseNet`).\n\n"
                     f"    >>> model = eager.vision.models.{name}(num_classes=10)\n    ")
    return build


densenet121, densenet161, densenet169, densenet201, densenet264 = (_builder(n) for n in (121, 161, 169, 201, 264))

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201", "densenet264"]
