"""ResNet (Paddle's ``paddle.vision.models.ResNet``, ``resnet18`` ... ``resnet152``),
with Paddle's layer and parameter names, so state_dict keys match."""
from __future__ import annotations

from ... import nn
from ._utils import check_choice, check_num_classes, check_positive_int, check_pretrained


class BasicBlock(nn.Layer):
    """Two 3x3 conv + batch-norm layers and a shortcut (``expansion = 1``).

    >>> block = eager.vision.models.resnet.BasicBlock(8, 8)
    >>> block(eager.rand([1, 8, 4, 4])).shape
    [1, 8, 4, 4]
    """

    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        if groups != 1 or base_width != 64:
            # Paddle ignores them here; refused rather than building a plain ResNet that was not asked for
            raise ValueError(f"BasicBlock: only groups=1 and base_width=64 are supported (use BottleneckBlock "
                             f"for ResNeXt or wide ResNet), got groups={groups}, base_width={base_width}")
        if dilation > 1:
            raise ValueError(f"BasicBlock: dilation > 1 is not supported (as Paddle), got {dilation}")
        norm_layer = nn.BatchNorm2D if norm_layer is None else norm_layer
        self.conv1 = nn.Conv2D(inplanes, planes, 3, padding=1, stride=stride, bias_attr=False)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2D(planes, planes, 3, padding=1, bias_attr=False)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        # the shortcut runs after the main branch, as Paddle's (the order hooks and summary see)
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class BottleneckBlock(nn.Layer):
    """1x1, 3x3 (stride, groups), 1x1 conv + batch-norm layers and a shortcut
    (``expansion = 4``).

    >>> block = eager.vision.models.resnet.BottleneckBlock(32, 8)
    >>> block(eager.rand([1, 32, 4, 4])).shape
    [1, 32, 4, 4]
    """

    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        norm_layer = nn.BatchNorm2D if norm_layer is None else norm_layer
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = nn.Conv2D(inplanes, width, 1, bias_attr=False)
        self.bn1 = norm_layer(width)
        self.conv2 = nn.Conv2D(width, width, 3, padding=dilation, stride=stride, groups=groups,
                               dilation=dilation, bias_attr=False)
        self.bn2 = norm_layer(width)
        self.conv3 = nn.Conv2D(width, planes * self.expansion, 1, bias_attr=False)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU()
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        identity = x if self.downsample is None else self.downsample(x)  # after the main branch, as Paddle's
        return self.relu(out + identity)


_DEPTHS = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3], 152: [3, 8, 36, 3]}


class ResNet(nn.Layer):
    """ResNet of ``depth`` 18, 34, 50, 101 or 152 built from ``block``
    (:class:`BasicBlock` or :class:`BottleneckBlock`), as Paddle: ``width``
    is the bottleneck's base width and ``groups`` its 3x3 conv's groups
    (ResNeXt, wide ResNet); ``with_pool`` adds the global average pool;
    ``num_classes <= 0`` leaves out ``fc`` (then the output is the feature map).

    >>> from eager.vision.models.resnet import ResNet, BasicBlock
    >>> model = ResNet(BasicBlock, 18, num_classes=10)
    >>> model(eager.rand([1, 3, 32, 32])).shape
    [1, 10]
    """

    def __init__(self, block, depth=50, width=64, num_classes=1000, with_pool=True, groups=1):
        super().__init__()
        if not (isinstance(block, type) and issubclass(block, nn.Layer) and hasattr(block, "expansion")):
            raise TypeError(f"ResNet: argument 'block' expected a block class such as BasicBlock or "
                            f"BottleneckBlock, got {block!r}")
        layers = _DEPTHS[check_choice("ResNet", "depth", depth, _DEPTHS)]
        self.groups, self.base_width = check_positive_int("ResNet", "groups", groups), check_positive_int(
            "ResNet", "width", width)
        self.num_classes = check_num_classes("ResNet", num_classes)
        self.with_pool = with_pool
        self._norm_layer = nn.BatchNorm2D
        self.inplanes, self.dilation = 64, 1
        self.conv1 = nn.Conv2D(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias_attr=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((1, 1))
        if num_classes > 0:
            self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv2D(self.inplanes, planes * block.expansion, 1, stride=stride, bias_attr=False),
                self._norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width,
                        norm_layer=self._norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                                norm_layer=self._norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.fc(x.flatten(1))
        return x


def _resnet(fn, block, depth, pretrained, **kwargs):
    check_pretrained(fn, pretrained)
    return ResNet(block, depth, **kwargs)


def resnet18(pretrained=False, **kwargs):
    """ResNet-18 (11,689,512 parameters with 1000 classes); ``kwargs`` go to :class:`ResNet`.

    >>> eager.vision.models.resnet18(num_classes=10)(eager.rand([1, 3, 32, 32])).shape
    [1, 10]
    """
    return _resnet("resnet18", BasicBlock, 18, pretrained, **kwargs)


def resnet34(pretrained=False, **kwargs):
    """ResNet-34 (21,797,672 parameters with 1000 classes).

    >>> model = eager.vision.models.resnet34(num_classes=10)
    """
    return _resnet("resnet34", BasicBlock, 34, pretrained, **kwargs)


def resnet50(pretrained=False, **kwargs):
    """ResNet-50 (25,557,032 parameters with 1000 classes).

    >>> model = eager.vision.models.resnet50(num_classes=10)
    """
    return _resnet("resnet50", BottleneckBlock, 50, pretrained, **kwargs)


def resnet101(pretrained=False, **kwargs):
    """ResNet-101 (44,549,160 parameters with 1000 classes).

    >>> model = eager.vision.models.resnet101(num_classes=10)
    """
    return _resnet("resnet101", BottleneckBlock, 101, pretrained, **kwargs)


def resnet152(pretrained=False, **kwargs):
    """ResNet-152 (60,192,808 parameters with 1000 classes).

    >>> model = eager.vision.models.resnet152(num_classes=10)
    """
    return _resnet("resnet152", BottleneckBlock, 152, pretrained, **kwargs)



def _variant(name, depth, groups, width):
    """A ResNeXt (``groups`` x ``width``) or wide ResNet (``width``) builder, as Paddle's."""
    def build(pretrained=False, **kwargs):
        kwargs["groups"], kwargs["width"] = groups, width
        return _resnet(name, BottleneckBlock, depth, pretrained, **kwargs)
    kind = f"{groups} groups of width {width}" if groups > 1 else f"bottleneck base width {width}"
    build.__name__ = build.__qualname__ = name
    build.__doc__ = (f"ResNet-{depth} with {kind} (:class:`ResNet` with BottleneckBlock); ``kwargs`` other "
                     f"than groups/width go to :class:`ResNet`.\n\n"
                     f"    >>> model = eager.vision.models.{name}(num_classes=10)\n    ")
    return build


resnext50_32x4d = _variant("resnext50_32x4d", 50, 32, 4)
resnext50_64x4d = _variant("resnext50_64x4d", 50, 64, 4)
resnext101_32x4d = _variant("resnext101_32x4d", 101, 32, 4)
resnext101_64x4d = _variant("resnext101_64x4d", 101, 64, 4)
resnext152_32x4d = _variant("resnext152_32x4d", 152, 32, 4)
resnext152_64x4d = _variant("resnext152_64x4d", 152, 64, 4)
wide_resnet50_2 = _variant("wide_resnet50_2", 50, 1, 128)
wide_resnet101_2 = _variant("wide_resnet101_2", 101, 1, 128)

__all__ = ["BasicBlock", "BottleneckBlock", "ResNet", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
           "resnext50_32x4d", "resnext50_64x4d", "resnext101_32x4d", "resnext101_64x4d", "resnext152_32x4d",
           "resnext152_64x4d", "wide_resnet50_2", "wide_resnet101_2"]
