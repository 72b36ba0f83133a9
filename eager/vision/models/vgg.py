"""VGG (Paddle's ``paddle.vision.models.VGG``, ``vgg11`` ... ``vgg19``), with
Paddle's layer and parameter names."""
from __future__ import annotations

from ... import nn
from ._utils import check_num_classes, check_pretrained


class VGG(nn.Layer):
    """VGG on a ``features`` Sequential (see :func:`make_layers`): an adaptive
    7x7 average pool when ``with_pool``, then a classifier (Linear 25088->4096,
    ReLU, Dropout, 4096->4096, ReLU, Dropout, 4096->num_classes) unless
    ``num_classes <= 0``.

    >>> from eager.vision.models.vgg import VGG, make_layers
    >>> model = VGG(make_layers([8, "M"]), num_classes=-1)
    >>> model(eager.rand([1, 3, 8, 8])).shape
    [1, 8, 7, 7]
    """

    def __init__(self, features, num_classes=1000, with_pool=True):
        super().__init__()
        if not isinstance(features, nn.Layer):
            raise TypeError(f"VGG: argument 'features' expected a Layer, got {type(features).__name__}")
        self.features = features
        self.num_classes = check_num_classes("VGG", num_classes)
        self.with_pool = with_pool
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((7, 7))
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(x.flatten(1))
        return x


def make_layers(cfg, batch_norm=False):
    """The VGG feature extractor of ``cfg``: an int is a 3x3 conv (padding 1)
    to that many channels (then BatchNorm2D when ``batch_norm``) and ReLU, 'M'
    a 2x2 max pool; the input has 3 channels.

    >>> len(eager.vision.models.vgg.make_layers([64, "M"], batch_norm=True))
    4
    """
    layers, in_channels = [], 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2D(kernel_size=2, stride=2))
            continue
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ValueError(f"make_layers: argument 'cfg' expected positive ints and 'M', got {v!r}")
        layers.append(nn.Conv2D(in_channels, v, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2D(v))
        layers.append(nn.ReLU())
        in_channels = v
    return nn.Sequential(*layers)


_CFGS = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"],
}


def _vgg(fn, cfg, pretrained, batch_norm, **kwargs):
    check_pretrained(fn, pretrained)
    return VGG(make_layers(_CFGS[cfg], batch_norm=batch_norm), **kwargs)


def vgg11(pretrained=False, batch_norm=False, **kwargs):
    """VGG-11 (132,863,336 parameters with 1000 classes; 132,868,840 with ``batch_norm``).

    >>> model = eager.vision.models.vgg11(num_classes=-1, with_pool=False)
    """
    return _vgg("vgg11", "A", pretrained, batch_norm, **kwargs)


def vgg13(pretrained=False, batch_norm=False, **kwargs):
    """VGG-13 (133,047,848 parameters with 1000 classes).

    >>> model = eager.vision.models.vgg13(num_classes=-1, with_pool=False)
    """
    return _vgg("vgg13", "B", pretrained, batch_norm, **kwargs)


def vgg16(pretrained=False, batch_norm=False, **kwargs):
    """VGG-16 (138,357,544 parameters with 1000 classes).

    >>> model = eager.vision.models.vgg16(num_classes=-1, with_pool=False)
    """
    return _vgg("vgg16", "D", pretrained, batch_norm, **kwargs)


def vgg19(pretrained=False, batch_norm=False, **kwargs):
    """VGG-19 (143,667,240 parameters with 1000 classes).

    >>> model = eager.vision.models.vgg19(num_classes=-1, with_pool=False)
    """
    return _vgg("vgg19", "E", pretrained, batch_norm, **kwargs)


__all__ = ["VGG", "make_layers", "vgg11", "vgg13", "vgg16", "vgg19"]
