"""Padding, upsampling and pixel-shuffle layers (Paddle's ``paddle.nn``): Pad1D,
Pad2D, Pad3D, ZeroPad2D, Upsample, UpsamplingNearest2D, UpsamplingBilinear2D,
PixelShuffle, PixelUnshuffle. Each checks its settings when built and calls the
function of ``eager.nn.functional.vision`` in forward."""
from __future__ import annotations

import numbers

from ..tensor import Tensor
from .functional import vision as _V
from .layer import Layer, name_repr

_PAD_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


class _PadNd(Layer):
    _k = 2

    def __init__(self, padding, mode="constant", value=0.0, data_format=None, name=None):
        super().__init__()
        who, k = type(self).__name__, self._k
        if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
            padding = [int(padding)] * (2 * k)
        elif isinstance(padding, Tensor):
            padding = [int(v) for v in padding.numpy().reshape(-1)]
        if (not isinstance(padding, (list, tuple)) or len(padding) != 2 * k
                or any(isinstance(p, bool) or not isinstance(p, numbers.Integral) or p < 0 for p in padding)):
            raise ValueError(f"{who}: argument 'padding' expected a non-negative int or {2 * k} of them (the last "
                             f"spatial axis first), got {padding!r}")
        if not isinstance(mode, str) or mode not in _V._PAD_MODES:
            raise ValueError(f"{who}: argument 'mode' expected one of {list(_V._PAD_MODES)}, got {mode!r}")
        if not isinstance(data_format, str) or data_format not in _PAD_FORMATS[k]:
            raise ValueError(f"{who}: argument 'data_format' expected one of {list(_PAD_FORMATS[k])}, got "
                             f"{data_format!r}")
        if not isinstance(value, numbers.Number) or isinstance(value, bool):
            raise TypeError(f"{who}: argument 'value' expected a number, got {value!r}")
        self._pad, self._mode, self._value, self._data_format = [int(p) for p in padding], mode, value, data_format
        self._name = name

    def forward(self, x: Tensor) -> Tensor:
        """x padded on its spatial axes."""
        if isinstance(x, Tensor) and x.ndim != self._k + 2:
            raise ValueError(f"{type(self).__name__}: argument 'x' expected a {self._k + 2}-d tensor "
                             f"({self._data_format}), got shape {x.shape}")
        return _V.pad(x, self._pad, self._mode, self._value, self._data_format)

    def extra_repr(self) -> str:
        """The settings, shown by repr."""
        return (f"padding={self._pad}, mode={self._mode}, value={self._value}, data_format={self._data_format}"
                f"{name_repr(self._name)}")


class Pad1D(_PadNd):
    """Pads [N, C, L] (or NLC) by ``padding`` = [left, right] (or an int for both).

    >>> eager.nn.Pad1D([1, 2], mode="replicate")(eager.ones([1, 2, 3])).shape
    [1, 2, 6]
    """

    _k = 1

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__(padding, mode, value, data_format)


class Pad2D(_PadNd):
    """Pads [N, C, H, W] (or NHWC) by ``padding`` = [left, right, top, bottom] (or an int for all).

    >>> eager.nn.Pad2D([1, 1, 2, 0], mode="reflect")(eager.ones([1, 1, 3, 3])).shape
    [1, 1, 5, 5]
    """

    _k = 2

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCHW", name=None):
        super().__init__(padding, mode, value, data_format)


class Pad3D(_PadNd):
    """Pads [N, C, D, H, W] (or NDHWC) by ``padding`` = [left, right, top, bottom, front, back].

    >>> eager.nn.Pad3D(1, mode="circular")(eager.ones([1, 1, 2, 2, 2])).shape
    [1, 1, 4, 4, 4]
    """

    _k = 3

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCDHW", name=None):
        super().__init__(padding, mode, value, data_format)


class ZeroPad2D(_PadNd):
    """Pads [N, C, H, W] (or NHWC) with zeros by [left, right, top, bottom] (or an int).

    >>> eager.nn.ZeroPad2D([1, 0, 0, 2])(eager.ones([1, 1, 2, 2])).shape
    [1, 1, 4, 3]
    """

    _k = 2

    def __init__(self, padding, data_format="NCHW", name=None):
        super().__init__(padding, "constant", 0.0, data_format, name)

    def extra_repr(self) -> str:
        """The padding and data format, shown by repr (a ZeroPad2D's mode and value are fixed)."""
        return f"padding={self._pad}, data_format={self._data_format}{name_repr(self._name)}"


class Upsample(Layer):
    """Resizes the spatial axes with :func:`eager.nn.functional.interpolate`.

    >>> up = eager.nn.Upsample(scale_factor=2, mode="bilinear")
    >>> up(eager.ones([1, 3, 4, 4])).shape
    [1, 3, 8, 8]
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
                 data_format="NCHW", name=None):
        super().__init__()
        who = type(self).__name__
        if size is None and scale_factor is None:
            raise ValueError(f"{who}: one of 'size' and 'scale_factor' must be given")
        if size is not None and scale_factor is not None:
            raise ValueError(f"{who}: only one of 'size' and 'scale_factor' may be given")
        if not isinstance(mode, str) or mode.lower() not in _V._INTERP_RANKS:
            raise ValueError(f"{who}: argument 'mode' expected one of {list(_V._INTERP_RANKS)}, got {mode!r}")
        self.size, self.scale_factor, self.mode = size, scale_factor, mode.lower()
        self.align_corners, self.align_mode, self.data_format = align_corners, align_mode, data_format
        self.name = name

    def forward(self, x: Tensor) -> Tensor:
        """x resized."""
        return _V.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners, self.align_mode,
                              self.data_format)

    def extra_repr(self) -> str:
        """The settings, shown by repr."""
        what = f"size={self.size}" if self.size is not None else f"scale_factor={self.scale_factor}"
        return (f"{what}, mode={self.mode}, align_corners={self.align_corners}, align_mode={self.align_mode}, "
                f"data_format={self.data_format}{name_repr(self.name)}")

    def _fixed_mode_repr(self) -> str:
        # the 2-D upsampling layers fix mode and align_corners, so Paddle's repr leaves them out
        what = f"size={self.size}" if self.size is not None else f"scale_factor={self.scale_factor}"
        return f"{what}, data_format={self.data_format}{name_repr(self.name)}"


def _square_size(size):
    # the 2-D upsampling layers store an int size as [size, size], as Paddle's (its repr shows it)
    return [size, size] if isinstance(size, numbers.Integral) and not isinstance(size, bool) else size


class UpsamplingNearest2D(Upsample):
    """Nearest-neighbour resize of [N, C, H, W] (or NHWC).

    >>> eager.nn.UpsamplingNearest2D(scale_factor=3)(eager.ones([1, 1, 2, 2])).shape
    [1, 1, 6, 6]
    """

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(_square_size(size), scale_factor, "nearest", False, 0, data_format, name)

    extra_repr = Upsample._fixed_mode_repr


class UpsamplingBilinear2D(Upsample):
    """Bilinear resize of [N, C, H, W] (or NHWC) with align_corners=True, as Paddle's.

    >>> eager.nn.UpsamplingBilinear2D(size=[5, 7])(eager.ones([1, 1, 2, 2])).shape
    [1, 1, 5, 7]
    """

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(_square_size(size), scale_factor, "bilinear", True, 0, data_format, name)

    extra_repr = Upsample._fixed_mode_repr


class PixelShuffle(Layer):
    """[N, C*r*r, H, W] to [N, C, H*r, W*r] (see :func:`eager.nn.functional.pixel_shuffle`).

    >>> eager.nn.PixelShuffle(2)(eager.ones([1, 8, 3, 3])).shape
    [1, 2, 6, 6]
    """

    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__()
        who = type(self).__name__
        self._factor = _V._factor(who, "upscale_factor", upscale_factor)
        if not isinstance(data_format, str) or data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"{who}: argument 'data_format' expected 'NCHW' or 'NHWC', got {data_format!r}")
        self._data_format = data_format
        self._name = name

    def forward(self, x: Tensor) -> Tensor:
        """x with channel blocks moved into space."""
        return _V.pixel_shuffle(x, self._factor, self._data_format)

    def extra_repr(self) -> str:
        """The settings, shown by repr."""
        fmt = f", data_format={self._data_format}" if self._data_format != "NCHW" else ""
        return f"upscale_factor={self._factor}{fmt}{name_repr(self._name)}"


class ChannelShuffle(Layer):
    """Interleaves the channel groups (see :func:`eager.nn.functional.channel_shuffle`).

    >>> eager.nn.ChannelShuffle(3)(eager.ones([1, 6, 2, 2])).shape
    [1, 6, 2, 2]
    """

    def __init__(self, groups, data_format="NCHW", name=None):
        super().__init__()
        who = type(self).__name__
        self._groups = _V._factor(who, "groups", groups)
        if not isinstance(data_format, str) or data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"{who}: argument 'data_format' expected 'NCHW' or 'NHWC', got {data_format!r}")
        self._data_format = data_format
        self._name = name

    def forward(self, x: Tensor) -> Tensor:
        """x with its channels shuffled."""
        return _V.channel_shuffle(x, self._groups, self._data_format)

    def extra_repr(self) -> str:
        """The settings, shown by repr."""
        fmt = f", data_format={self._data_format}" if self._data_format != "NCHW" else ""
        return f"groups={self._groups}{fmt}{name_repr(self._name)}"


class PixelUnshuffle(Layer):
    """[N, C, H*r, W*r] to [N, C*r*r, H, W] (see :func:`eager.nn.functional.pixel_unshuffle`).

    >>> eager.nn.PixelUnshuffle(2)(eager.ones([1, 2, 6, 6])).shape
    [1, 8, 3, 3]
    """

    def __init__(self, downscale_factor, data_format="NCHW", name=None):
        super().__init__()
        who = type(self).__name__
        self._factor = _V._factor(who, "downscale_factor", downscale_factor)
        if not isinstance(data_format, str) or data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"{who}: argument 'data_format' expected 'NCHW' or 'NHWC', got {data_format!r}")
        self._data_format = data_format
        self._name = name

    def forward(self, x: Tensor) -> Tensor:
        """x with space blocks moved into channels."""
        return _V.pixel_unshuffle(x, self._factor, self._data_format)

    def extra_repr(self) -> str:
        """The settings, shown by repr."""
        fmt = f", data_format={self._data_format}" if self._data_format != "NCHW" else ""
        return f"downscale_factor={self._factor}{fmt}{name_repr(self._name)}"


__all__ = ["Pad1D", "Pad2D", "Pad3D", "ZeroPad2D", "Upsample", "UpsamplingNearest2D", "UpsamplingBilinear2D",
           "PixelShuffle", "PixelUnshuffle"]
__all__ += ["ChannelShuffle"]
