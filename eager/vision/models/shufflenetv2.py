"""ShuffleNetV2 (Paddle's ``paddle.vision.models.ShuffleNetV2`` and
``shufflenet_v2_x0_25`` ... ``shufflenet_v2_x2_0``, ``shufflenet_v2_swish``),
with Paddle's layer names."""
from __future__ import annotations

from ... import nn
from ...arguments import to_float, to_str
from ...generated import forward_api as _F
from ..ops import ConvNormActivation
from ._utils import check_num_classes, check_pretrained

# Output channels of conv1, the three stages and the last conv, per scale.
_STAGE_CHANNELS = {0.25: [24, 24, 48, 96, 512], 0.33: [24, 32, 64, 128, 512], 0.5: [24, 48, 96, 192, 1024],
                   1.0: [24, 116, 232, 464, 1024], 1.5: [24, 176, 352, 704, 1024],
                   2.0: [24, 224, 488, 976, 2048]}
_ACTIVATIONS = {"relu": nn.ReLU, "swish": nn.Swish}


def channel_shuffle(x, groups):
    """Interleaves the channels of ``x`` (NCHW) across ``groups`` groups.

    >>> x = eager.arange(4, dtype="float32").reshape([1, 4, 1, 1])
    >>> channel_shuffle(x, 2).flatten().tolist()
    [0.0, 2.0, 1.0, 3.0]
    """
    n, c, h, w = x.shape[:4]
    x = _F.reshape(x, [n, groups, c // groups, h, w])
    return _F.reshape(_F.transpose(x, [0, 2, 1, 3, 4]), [n, c, h, w])


def _pw(cin, cout, act):
    return ConvNormActivation(cin, cout, 1, 1, 0, activation_layer=act)


def _dw(channels, stride):
    return ConvNormActivation(channels, channels, 3, stride, 1, groups=channels, activation_layer=None)


class InvertedResidual(nn.Layer):
    """A stride-1 unit: half the channels pass through, the other half go
    through 1x1, 3x3 depthwise, 1x1; then the channels are shuffled.

    >>> eager.vision.models.shufflenetv2.InvertedResidual(8, 8, 1)(eager.rand([1, 8, 4, 4])).shape
    [1, 8, 4, 4]
    """

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        self._conv_pw = _pw(in_channels // 2, out_channels // 2, activation_layer)
        self._conv_dw = _dw(out_channels // 2, stride)
        self._conv_linear = _pw(out_channels // 2, out_channels // 2, activation_layer)

    def forward(self, x):
        half = x.shape[1] // 2
        x1, x2 = _F.split(x, [half, half], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(_F.concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    """A down-sampling unit: two branches (3x3 depthwise + 1x1, and 1x1 + 3x3
    depthwise + 1x1) at ``stride``, concatenated and shuffled.

    >>> eager.vision.models.shufflenetv2.InvertedResidualDS(8, 16, 2)(eager.rand([1, 8, 4, 4])).shape
    [1, 16, 2, 2]
    """

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        self._conv_dw_1 = _dw(in_channels, stride)
        self._conv_linear_1 = _pw(in_channels, out_channels // 2, activation_layer)
        self._conv_pw_2 = _pw(in_channels, out_channels // 2, activation_layer)
        self._conv_dw_2 = _dw(out_channels // 2, stride)
        self._conv_linear_2 = _pw(out_channels // 2, out_channels // 2, activation_layer)

    def forward(self, x):
        x1 = self._conv_linear_1(self._conv_dw_1(x))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(x)))
        return channel_shuffle(_F.concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    """ShuffleNetV2 at ``scale`` 0.25, 0.33, 0.5, 1.0, 1.5 or 2.0, activation
    ``act`` 'relu' or 'swish'; ``with_pool`` adds the global average pool and
    ``num_classes <= 0`` leaves out ``_fc``. 2,278,604 parameters at scale 1.0
    with 1000 classes.

    >>> model = eager.vision.models.ShuffleNetV2(scale=0.25, num_classes=10)
    >>> model(eager.rand([1, 3, 32, 32])).shape
    [1, 10]
    """

    def __init__(self, scale=1.0, act="relu", num_classes=1000, with_pool=True):
        super().__init__()
        # to_float/to_str first: True matched the 1.0 key and a list failed as unhashable
        scale, act = to_float(scale, "ShuffleNetV2", "scale"), to_str(act, "ShuffleNetV2", "act")
        if scale not in _STAGE_CHANNELS:
            raise ValueError(f"ShuffleNetV2: argument 'scale' expected one of {sorted(_STAGE_CHANNELS)}, got "
                             f"{scale!r}")
        if act not in _ACTIVATIONS:
            raise ValueError(f"ShuffleNetV2: argument 'act' expected 'relu' or 'swish', got {act!r}")
        self.scale = scale
        self.num_classes = check_num_classes("ShuffleNetV2", num_classes)
        self.with_pool = with_pool
        channels = _STAGE_CHANNELS[scale]
        activation = _ACTIVATIONS[act]
        self._conv1 = ConvNormActivation(3, channels[0], 3, 2, 1, activation_layer=activation)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self._block_list = []
        for stage, repeats in enumerate([4, 8, 4]):
            for i in range(repeats):
                if i == 0:
                    block = InvertedResidualDS(channels[stage], channels[stage + 1], 2, activation)
                else:
                    block = InvertedResidual(channels[stage + 1], channels[stage + 1], 1, activation)
                self._block_list.append(self.add_sublayer(f"{stage + 2}_{i + 1}", block))
        self._last_conv = ConvNormActivation(channels[3], channels[4], 1, 1, 0, activation_layer=activation)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = channels[4]
            self._fc = nn.Linear(channels[4], num_classes)

    def forward(self, x):
        x = self._max_pool(self._conv1(x))
        for block in self._block_list:
            x = block(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(x.flatten(1))
        return x


def _builder(name, scale, act="relu"):
    def build(pretrained=False, **kwargs):
        check_pretrained(name, pretrained)
        return ShuffleNetV2(scale=scale, act=act, **kwargs)
    build.__name__ = build.__qualname__ = name
    build.__doc__ = (f"ShuffleNetV2 at scale {scale}{' with swish' if act == 'swish' else ''} (see "
                     f":class:`ShuffleNetV2`).\n\n    >>> model = eager.vision.models.{name}(num_classes=10)\n    ")
    return build


shufflenet_v2_x0_25 = _builder("shufflenet_v2_x0_25", 0.25)
shufflenet_v2_x0_33 = _builder("shufflenet_v2_x0_33", 0.33)
shufflenet_v2_x0_5 = _builder("shufflenet_v2_x0_5", 0.5)
shufflenet_v2_x1_0 = _builder("shufflenet_v2_x1_0", 1.0)
shufflenet_v2_x1_5 = _builder("shufflenet_v2_x1_5", 1.5)
shufflenet_v2_x2_0 = _builder("shufflenet_v2_x2_0", 2.0)
shufflenet_v2_swish = _builder("shufflenet_v2_swish", 1.0, act="swish")

__all__ = ["ShuffleNetV2", "shufflenet_v2_swish", "shufflenet_v2_x0_25", "shufflenet_v2_x0_33", "shufflenet_v2_x0_5",
           "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0"]
