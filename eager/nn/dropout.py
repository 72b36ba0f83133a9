"""Dropout layers (Paddle's ``paddle.nn``): Dropout, Dropout2D, Dropout3D,
AlphaDropout, FeatureAlphaDropout. Each drops in training mode (``layer.train()``, the default) and
is the identity (or, for ``Dropout(mode="downscale_in_infer")``, a scaling)
after ``layer.eval()``."""
from __future__ import annotations

from . import functional as F
from .functional.dropout import _MODES, _check_p
from .layer import Layer, name_repr


def _checked_mode(who: str, mode) -> str:
    if not isinstance(mode, str) or mode not in _MODES:
        raise ValueError(f"{who}: argument 'mode' expected 'upscale_in_train' or 'downscale_in_infer', got {mode!r}")
    return mode


class Dropout(Layer):
    """Zeroes each element with probability ``p`` in training (see
    :func:`eager.nn.functional.dropout` for ``axis`` and ``mode``).

    >>> drop = eager.nn.Dropout(p=0.5)
    >>> y = drop(eager.ones([2, 3]))       # entries 0 or 2
    >>> drop.eval()(eager.ones([2, 3])).numpy().sum()
    6.0
    """

    def __init__(self, p=0.5, axis=None, mode: str = "upscale_in_train", name=None):
        super().__init__()
        self.p = _check_p("Dropout", p)
        self.axis = axis
        self.mode = _checked_mode("Dropout", mode)
        self.name = name

    def forward(self, input):
        """dropout(input) in training mode, the inference form otherwise."""
        return F.dropout(input, p=self.p, axis=self.axis, training=self.training, mode=self.mode, name=self.name)

    def extra_repr(self) -> str:
        """p, axis and mode, shown by repr."""
        return f"p={self.p}, axis={self.axis}, mode={self.mode}{name_repr(self.name)}"


class Dropout2D(Layer):
    """Drops whole channels of [N, C, H, W] (or NHWC) input with probability ``p``
    in training, scaling the rest by 1 / (1 - p).

    >>> eager.nn.Dropout2D(p=0.5)(eager.ones([2, 3, 4, 4])).shape
    [2, 3, 4, 4]
    """

    def __init__(self, p=0.5, data_format: str = "NCHW", name=None):
        super().__init__()
        self.p = _check_p("Dropout2D", p)
        if not isinstance(data_format, str) or data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"Dropout2D: argument 'data_format' expected 'NCHW' or 'NHWC', got {data_format!r}")
        self.data_format = data_format
        self.name = name

    def forward(self, input):
        """dropout2d(input) in training mode, input otherwise."""
        return F.dropout2d(input, p=self.p, training=self.training, data_format=self.data_format, name=self.name)

    def extra_repr(self) -> str:
        """p and data_format, shown by repr."""
        return f"p={self.p}, data_format={self.data_format}{name_repr(self.name)}"


class Dropout3D(Layer):
    """Drops whole channels of [N, C, D, H, W] (or NDHWC) input with probability
    ``p`` in training, scaling the rest by 1 / (1 - p).

    >>> eager.nn.Dropout3D(p=0.5)(eager.ones([2, 3, 2, 4, 4])).shape
    [2, 3, 2, 4, 4]
    """

    def __init__(self, p=0.5, data_format: str = "NCDHW", name=None):
        super().__init__()
        self.p = _check_p("Dropout3D", p)
        if not isinstance(data_format, str) or data_format not in ("NCDHW", "NDHWC"):
            raise ValueError(f"Dropout3D: argument 'data_format' expected 'NCDHW' or 'NDHWC', got {data_format!r}")
        self.data_format = data_format
        self.name = name

    def forward(self, input):
        """dropout3d(input) in training mode, input otherwise."""
        return F.dropout3d(input, p=self.p, training=self.training, data_format=self.data_format, name=self.name)

    def extra_repr(self) -> str:
        """p and data_format, shown by repr."""
        return f"p={self.p}, data_format={self.data_format}{name_repr(self.name)}"


class AlphaDropout(Layer):
    """Alpha dropout for SELU networks (see :func:`eager.nn.functional.alpha_dropout`):
    keeps zero mean and unit variance; identity after ``eval()``.

    >>> eager.nn.AlphaDropout(p=0.2)(eager.randn([4, 5])).shape
    [4, 5]
    """

    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p = _check_p("AlphaDropout", p)
        self.name = name

    def forward(self, input):
        """alpha_dropout(input) in training mode, input otherwise."""
        return F.alpha_dropout(input, p=self.p, training=self.training, name=self.name)

    def extra_repr(self) -> str:
        """p, shown by repr."""
        return f"p={self.p}{name_repr(self.name)}"


class FeatureAlphaDropout(Layer):
    """Alpha dropout of whole channels of [N, C, ...] input (see
    :func:`eager.nn.functional.feature_alpha_dropout`); identity after ``eval()``.

    >>> eager.nn.FeatureAlphaDropout(p=0.2)(eager.randn([2, 3, 4])).shape
    [2, 3, 4]
    """

    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p = _check_p("FeatureAlphaDropout", p)
        self.name = name

    def forward(self, input):
        """feature_alpha_dropout(input) in training mode, input otherwise."""
        return F.feature_alpha_dropout(input, p=self.p, training=self.training, name=self.name)

    def extra_repr(self) -> str:
        """p, shown by repr."""
        return f"p={self.p}{name_repr(self.name)}"


__all__ = ["AlphaDropout", "Dropout", "Dropout2D", "Dropout3D", "FeatureAlphaDropout"]
