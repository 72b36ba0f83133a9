"""SqueezeNet 1.0 and 1.1 (Paddle's ``paddle.vision.models.SqueezeNet``,
``squeezenet1_0`` and ``squeezenet1_1``), with Paddle's layer names."""
from __future__ import annotations

from ... import nn
from ...generated import forward_api as _F
from ...nn import functional as F
from ._utils import check_num_classes, check_pretrained


class MakeFireConv(nn.Layer):
    """Conv2D (with bias) then ReLU.

    >>> eager.vision.models.squeezenet.MakeFireConv(3, 4, 3, 1)(eager.rand([1, 3, 5, 5])).shape
    [1, 4, 5, 5]
    """

    def __init__(self, input_channels, output_channels, filter_size, padding=0):
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, padding=padding)

    def forward(self, x):
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    """A fire module: a 1x1 squeeze, then 1x1 and 3x3 expansions concatenated
    along channels.

    >>> eager.vision.models.squeezenet.MakeFire(8, 2, 4, 4)(eager.rand([1, 8, 5, 5])).shape
    [1, 8, 5, 5]
    """

    def __init__(self, input_channels, squeeze_channels, expand1x1_channels, expand3x3_channels):
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, x):
        x = self._conv(x)
        return _F.concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


_FIRES = [(16, 64), (16, 64), (32, 128), (32, 128), (48, 192), (48, 192), (64, 256), (64, 256)]


class SqueezeNet(nn.Layer):
    """SqueezeNet ``version`` '1.0' or '1.1'; ``num_classes <= 0`` leaves out
    the final dropout and 1x1 classifier convolution, ``with_pool`` the ReLU
    and global average pool after it (output ``[N, num_classes]``).
    1,248,424 (1.0) and 1,235,496 (1.1) parameters with 1000 classes.

    >>> model = eager.vision.models.SqueezeNet("1.1", num_classes=10)
    >>> model(eager.rand([1, 3, 64, 64])).shape
    [1, 10]
    """

    def __init__(self, version, num_classes=1000, with_pool=True):
        super().__init__()
        if version not in ("1.0", "1.1"):
            raise ValueError(f"SqueezeNet: argument 'version' expected '1.0' or '1.1', got {version!r}")
        self.version = version
        self.num_classes = check_num_classes("SqueezeNet", num_classes)
        self.with_pool = with_pool
        if version == "1.0":
            self._conv = nn.Conv2D(3, 96, 7, stride=2)
        else:
            self._conv = nn.Conv2D(3, 64, 3, stride=2, padding=1)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        channels = 96 if version == "1.0" else 64
        for i, (squeeze, expand) in enumerate(_FIRES, start=1):
            setattr(self, f"_conv{i}", MakeFire(channels, squeeze, expand, expand))
            channels = 2 * expand
        self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
        if num_classes > 0:
            self._conv9 = nn.Conv2D(512, num_classes, 1)
        self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, x):
        x = self._pool(F.relu(self._conv(x)))
        pool_after = (3, 7) if self.version == "1.0" else (2, 4)
        for i in range(1, 9):
            x = getattr(self, f"_conv{i}")(x)
            if i in pool_after:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = self._avg_pool(F.relu(x)).squeeze(axis=[2, 3])
        return x


def squeezenet1_0(pretrained=False, **kwargs):
    """SqueezeNet 1.0 (see :class:`SqueezeNet`).

    >>> model = eager.vision.models.squeezenet1_0(num_classes=10)
    """
    check_pretrained("squeezenet1_0", pretrained)
    return SqueezeNet("1.0", **kwargs)


def squeezenet1_1(pretrained=False, **kwargs):
    """SqueezeNet 1.1 (see :class:`SqueezeNet`): fewer computations, about the same accuracy.

    >>> model = eager.vision.models.squeezenet1_1(num_classes=10)
    """
    check_pretrained("squeezenet1_1", pretrained)
    return SqueezeNet("1.1", **kwargs)


__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1"]
