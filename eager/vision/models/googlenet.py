"""GoogLeNet / Inception v1 (Paddle's ``paddle.vision.models.GoogLeNet`` and
``googlenet``): the main output and the two auxiliary heads, Paddle's layer names."""
from __future__ import annotations

from ... import nn
from ...generated import forward_api as _F
from ...nn import functional as F
from ._utils import check_num_classes, check_pretrained


def _xavier(channels, filter_size):
    bound = (3.0 / (filter_size ** 2 * channels)) ** 0.5
    return nn.ParamAttr(initializer=nn.initializer.Uniform(-bound, bound))


class ConvLayer(nn.Layer):
    """Conv2D without bias, padded to keep the size at stride 1 (no norm, no activation).

    >>> ConvLayer(3, 8, 7, 2)(eager.rand([1, 3, 8, 8])).shape
    [1, 8, 4, 4]
    """

    def __init__(self, num_channels, num_filters, filter_size, stride=1, groups=1):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=(filter_size - 1) // 2, groups=groups, bias_attr=False)

    def forward(self, x):
        return self._conv(x)


class Inception(nn.Layer):
    """Four branches (1x1; 1x1 then 3x3; 1x1 then 5x5; 3x3 max pool then 1x1)
    concatenated, then ReLU. ``output_channels`` is accepted as in Paddle; the
    output has ``filter1 + filter3 + filter5 + proj`` channels.

    >>> block = Inception(8, 16, 4, 2, 4, 2, 4, 4)
    >>> block(eager.rand([1, 8, 5, 5])).shape
    [1, 16, 5, 5]
    """

    def __init__(self, input_channels, output_channels, filter1, filter3R, filter3, filter5R, filter5, proj):
        super().__init__()
        self._conv1 = ConvLayer(input_channels, filter1, 1)
        self._conv3r = ConvLayer(input_channels, filter3R, 1)
        self._conv3 = ConvLayer(filter3R, filter3, 3)
        self._conv5r = ConvLayer(input_channels, filter5R, 1)
        self._conv5 = ConvLayer(filter5R, filter5, 5)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=1, padding=1)
        self._convprj = ConvLayer(input_channels, proj, 1)

    def forward(self, x):
        branches = [self._conv1(x), self._conv3(self._conv3r(x)), self._conv5(self._conv5r(x)),
                    self._convprj(self._pool(x))]
        return F.relu(_F.concat(branches, axis=1))


# name -> (in, out, 1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, pool proj), the paper's Table 1
_INCEPTIONS = [("_ince3a", 192, 192, 64, 96, 128, 16, 32, 32), ("_ince3b", 256, 256, 128, 128, 192, 32, 96, 64),
               ("_ince4a", 480, 480, 192, 96, 208, 16, 48, 64), ("_ince4b", 512, 512, 160, 112, 224, 24, 64, 64),
               ("_ince4c", 512, 512, 128, 128, 256, 24, 64, 64), ("_ince4d", 512, 512, 112, 144, 288, 32, 64, 64),
               ("_ince4e", 528, 528, 256, 160, 320, 32, 128, 128), ("_ince5a", 832, 832, 256, 160, 320, 32, 128, 128),
               ("_ince5b", 832, 832, 384, 192, 384, 48, 128, 128)]


class GoogLeNet(nn.Layer):
    """GoogLeNet: returns ``[out, out1, out2]``, the main output and the two
    auxiliary heads (on inception 4a and 4d; their Linear layers expect
    224x224 inputs). ``with_pool`` adds the pools before the heads and
    ``num_classes <= 0`` leaves the heads out (the three feature maps come back).

    >>> model = eager.vision.models.GoogLeNet(num_classes=0, with_pool=False)
    >>> [t.shape for t in model(eager.rand([1, 3, 64, 64]))]
    [[1, 1024, 1, 1], [1, 512, 3, 3], [1, 528, 3, 3]]
    """

    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = check_num_classes("GoogLeNet", num_classes)
        self.with_pool = with_pool
        self._conv = ConvLayer(3, 64, 7, 2)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2)
        self._conv_1 = ConvLayer(64, 64, 1)
        self._conv_2 = ConvLayer(64, 192, 3)
        for name, *channels in _INCEPTIONS:
            setattr(self, name, Inception(*channels))
        if with_pool:
            self._pool_5 = nn.AdaptiveAvgPool2D(1)
            self._pool_o1 = nn.AvgPool2D(kernel_size=5, stride=3)
            self._pool_o2 = nn.AvgPool2D(kernel_size=5, stride=3)
        if num_classes > 0:
            self._drop = nn.Dropout(p=0.4, mode="downscale_in_infer")
            self._fc_out = nn.Linear(1024, num_classes, weight_attr=_xavier(1024, 1))
            self._conv_o1 = ConvLayer(512, 128, 1)
            self._fc_o1 = nn.Linear(1152, 1024, weight_attr=_xavier(2048, 1))
            self._drop_o1 = nn.Dropout(p=0.7, mode="downscale_in_infer")
            self._out1 = nn.Linear(1024, num_classes, weight_attr=_xavier(1024, 1))
            self._conv_o2 = ConvLayer(528, 128, 1)
            self._fc_o2 = nn.Linear(1152, 1024, weight_attr=_xavier(2048, 1))
            self._drop_o2 = nn.Dropout(p=0.7, mode="downscale_in_infer")
            self._out2 = nn.Linear(1024, num_classes, weight_attr=_xavier(1024, 1))

    def forward(self, x):
        x = self._pool(self._conv_2(self._conv_1(self._pool(self._conv(x)))))
        x = self._pool(self._ince3b(self._ince3a(x)))
        ince4a = self._ince4a(x)
        ince4d = self._ince4d(self._ince4c(self._ince4b(ince4a)))
        x = self._pool(self._ince4e(ince4d))
        out, out1, out2 = self._ince5b(self._ince5a(x)), ince4a, ince4d
        if self.with_pool:
            out, out1, out2 = self._pool_5(out), self._pool_o1(out1), self._pool_o2(out2)
        if self.num_classes > 0:
            out = self._fc_out(_F.squeeze(self._drop(out), axis=[2, 3]))
            out1 = self._out1(self._drop_o1(F.relu(self._fc_o1(self._conv_o1(out1).flatten(1)))))
            out2 = self._out2(self._drop_o2(self._fc_o2(self._conv_o2(out2).flatten(1))))  # no ReLU here, as Paddle
        return [out, out1, out2]


def googlenet(pretrained=False, **kwargs):
    """GoogLeNet (see :class:`GoogLeNet`).

    >>> model = eager.vision.models.googlenet(num_classes=10)
    """
    check_pretrained("googlenet", pretrained)
    return GoogLeNet(**kwargs)


__all__ = ["GoogLeNet", "googlenet"]
