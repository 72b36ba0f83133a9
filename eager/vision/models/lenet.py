"""LeNet (Paddle's ``paddle.vision.models.LeNet``)."""
from __future__ import annotations

from ... import nn
from ._utils import check_num_classes


class LeNet(nn.Layer):
    """LeNet for 1x28x28 images, as Paddle defines it: ``features`` (conv 1->6,
    3x3, padding 1; ReLU; 2x2 max pool; conv 6->16, 5x5; ReLU; 2x2 max pool)
    and ``fc`` (Linear 400->120->84->num_classes, no activation between them,
    as Paddle). With ``num_classes <= 0`` there is no ``fc`` and the output is
    the 16x5x5 feature map. 61,610 parameters with 10 classes.

    >>> model = eager.vision.models.LeNet()
    >>> model(eager.rand([2, 1, 28, 28])).shape
    [2, 10]
    """

    def __init__(self, num_classes=10):
        super().__init__()
        self.num_classes = check_num_classes("LeNet", num_classes)
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        if num_classes > 0:
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, num_classes))

    def forward(self, inputs):
        x = self.features(inputs)
        if self.num_classes > 0:
            x = self.fc(x.flatten(1))
        return x


__all__ = ["LeNet"]
