"""Image functions (Paddle's ``paddle.vision.transforms.functional``).

An image is one of:

- a NumPy array ``H x W`` or ``H x W x C`` (uint8 or floating), the layout of
  Paddle's 'cv2' backend; results are NumPy arrays of the same dtype;
- a ``PIL.Image`` when Pillow is installed: it is read as ``numpy.asarray(img)``
  and the result is a NumPy array (Pillow itself is never imported here);
- an eager ``Tensor`` ``C x H x W`` (where Paddle takes Tensor images: resize,
  pad, crop, center_crop, hflip, vflip, normalize); results are Tensors built
  with ops, so gradients flow through them.

Resizing is written in NumPy (no OpenCV): 'bilinear' uses half-pixel centres
as OpenCV's INTER_LINEAR (``src = (dst + 0.5) * in / out - 0.5``, clamped at
the border, no antialiasing), 'nearest' takes ``floor(dst * in / out)`` as
INTER_NEAREST. Integer images are rounded to nearest and clipped to their range.

>>> import numpy as np
>>> from eager.vision.transforms import functional as F
>>> img = np.zeros((4, 6, 3), np.uint8)
>>> F.resize(img, 2).shape, F.hflip(img).shape, F.to_tensor(img).shape
((2, 3, 3), (4, 6, 3), [3, 4, 6])
"""
from __future__ import annotations

import numbers

import numpy as np

from ... import nn
from ...creation import to_tensor as _to_tensor
from ...generated import forward_api as _F  # noqa: F401  (loads the Tensor methods used below)
from ...tensor import Tensor

_INTERPOLATIONS = ("nearest", "bilinear")
_TENSOR_INTERPOLATIONS = ("nearest", "bilinear", "bicubic")
_PAD_MODES = ("constant", "edge", "reflect", "symmetric")


def _is_pil_image(img) -> bool:
    return type(img).__module__.split(".")[0] == "PIL" and hasattr(img, "mode") and hasattr(img, "size")


def _is_numpy_image(img) -> bool:
    return isinstance(img, np.ndarray) and img.ndim in (2, 3)


def _is_tensor_image(img) -> bool:
    return isinstance(img, Tensor)


def _as_array(fn: str, img) -> np.ndarray:
    """A NumPy or PIL image as a NumPy array (HW or HWC); anything else is an error."""
    if _is_pil_image(img):
        img = np.asarray(img)
    if not isinstance(img, np.ndarray):
        raise TypeError(f"{fn}: argument 'img' expected a NumPy array (HW or HWC), a PIL Image or a Tensor (CHW), "
                        f"got {type(img).__name__}")
    if img.ndim not in (2, 3):
        raise ValueError(f"{fn}: argument 'img' expected a NumPy image of 2 (HW) or 3 (HWC) dims, "
                         f"got shape {img.shape}")
    return img


def _check_tensor_image(fn: str, img: Tensor) -> None:
    if img.ndim != 3:
        raise ValueError(f"{fn}: a Tensor image must be 3-D (CHW), got shape {img.shape}")


def _image_hw(fn: str, img) -> tuple:
    """(height, width) of any supported image."""
    if isinstance(img, Tensor):
        _check_tensor_image(fn, img)
        return int(img.shape[1]), int(img.shape[2])
    arr = _as_array(fn, img)
    return int(arr.shape[0]), int(arr.shape[1])


def _check_int(fn: str, arg: str, value, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{fn}: argument '{arg}' expected an int >= {minimum}, got {value!r}")
    return int(value)


def _size_pair(fn: str, arg: str, size) -> tuple:
    """An int or a (height, width) pair as (height, width) of positive ints."""
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        return _check_int(fn, arg, size, 1), int(size)
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return _check_int(fn, arg, size[0], 1), _check_int(fn, arg, size[1], 1)
    raise ValueError(f"{fn}: argument '{arg}' expected an int or a (height, width) pair of ints, got {size!r}")


def _cast_like(out: np.ndarray, dtype) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(dtype)
    if dtype == np.bool_:
        return out >= 0.5
    return out.astype(dtype, copy=False)


def to_tensor(pic, data_format: str = "CHW") -> Tensor:
    """A NumPy (HW or HWC) or PIL image as a Tensor, ``CHW`` (or ``HWC``).

    A uint8 image (or a PIL image of a uint8 or bool mode) becomes float32 in
    [0, 1] (divided by 255); any other dtype keeps its values and dtype, as in
    Paddle. A 2-D image gets a channel axis of 1.

    >>> F.to_tensor(np.full((2, 3), 255, np.uint8)).numpy().tolist()
    [[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]]
    """
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"to_tensor: argument 'data_format' expected 'CHW' or 'HWC', got {data_format!r}")
    if isinstance(pic, Tensor):
        raise TypeError("to_tensor: argument 'pic' expected a NumPy array or a PIL Image, got a Tensor "
                        "(it is one already)")
    arr = _as_array("to_tensor", pic)
    if arr.dtype == np.bool_:
        arr = arr.astype(np.uint8) * 255
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if data_format == "CHW":
        arr = arr.transpose(2, 0, 1)
    if arr.dtype == np.uint8:
        return _to_tensor(arr.astype(np.float32) / np.float32(255.0))
    return _to_tensor(np.ascontiguousarray(arr))


def _resize_array(img: np.ndarray, oh: int, ow: int, interpolation: str) -> np.ndarray:
    h, w = img.shape[:2]
    if interpolation == "nearest":
        ys = np.minimum((np.arange(oh) * (h / oh)).astype(np.int64), h - 1)
        xs = np.minimum((np.arange(ow) * (w / ow)).astype(np.int64), w - 1)
        return img[ys][:, xs]

    def taps(n_out, n_in):
        src = np.maximum((np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5, 0.0)
        lo = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
        hi = np.minimum(lo + 1, n_in - 1)
        return lo, hi, src - lo

    y0, y1, wy = taps(oh, h)
    x0, x1, wx = taps(ow, w)
    data = img.astype(np.float64)
    extra = (1,) * (img.ndim - 2)
    wy = wy.reshape((oh, 1) + extra)
    rows = data[y0] * (1.0 - wy) + data[y1] * wy
    wx = wx.reshape((1, ow) + extra)
    out = rows[:, x0] * (1.0 - wx) + rows[:, x1] * wx
    return _cast_like(out, img.dtype)


def _output_size(h: int, w: int, size) -> tuple:
    """Paddle's rule: an int is the shorter side, the longer one keeps the aspect ratio (truncated)."""
    if isinstance(size, int):
        if (w <= h and w == size) or (h <= w and h == size):
            return h, w
        if w < h:
            return int(size * h / w), size
        return size, int(size * w / h)
    return size


def resize(img, size, interpolation: str = "bilinear"):
    """``img`` resized to ``size``: (height, width), or an int for the shorter
    side (the other one keeps the aspect ratio, ``int(size * long / short)``).

    ``interpolation``: 'bilinear' or 'nearest' (Tensors also 'bicubic').

    >>> F.resize(np.zeros((256, 300, 3), np.uint8), 224).shape
    (224, 262, 3)
    """
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        size = _check_int("resize", "size", size, 1)
    else:
        size = _size_pair("resize", "size", size)
    if isinstance(img, Tensor):
        if interpolation not in _TENSOR_INTERPOLATIONS:
            raise ValueError(f"resize: argument 'interpolation' expected one of {_TENSOR_INTERPOLATIONS} for a "
                             f"Tensor image, got {interpolation!r}")
        h, w = _image_hw("resize", img)
        oh, ow = _output_size(h, w, size)
        if (oh, ow) == (h, w):
            return img
        out = nn.functional.interpolate(img.unsqueeze(0), size=[oh, ow], mode=interpolation,
                                        align_corners=False, data_format="NCHW")
        return out.squeeze(0)
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"resize: argument 'interpolation' expected one of {_INTERPOLATIONS} for a NumPy or PIL "
                         f"image, got {interpolation!r}")
    arr = _as_array("resize", img)
    h, w = arr.shape[:2]
    oh, ow = _output_size(h, w, size)
    if (oh, ow) == (h, w):
        return arr
    return _resize_array(arr, oh, ow, interpolation)


def _padding4(fn: str, padding) -> tuple:
    """(left, top, right, bottom) from an int, a (left/right, top/bottom) pair or a 4-sequence."""
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        p = _check_int(fn, "padding", padding)
        return p, p, p, p
    if isinstance(padding, (list, tuple)) and len(padding) in (2, 4):
        values = [_check_int(fn, "padding", p) for p in padding]
        if len(values) == 2:
            return values[0], values[1], values[0], values[1]
        return tuple(values)
    raise ValueError(f"{fn}: argument 'padding' expected an int or a sequence of 2 or 4 ints, got {padding!r}")


def pad(img, padding, fill=0, padding_mode: str = "constant"):
    """``img`` padded on its borders.

    ``padding``: an int (every border), (left/right, top/bottom) or (left, top,
    right, bottom). ``padding_mode``: 'constant' (with ``fill``: a number, or
    one value per channel for a NumPy image), 'edge', 'reflect' (without
    repeating the edge) or 'symmetric' (repeating it; NumPy images only, as in Paddle).

    >>> F.pad(np.array([[1, 2, 3, 4]]), (2, 0), padding_mode="reflect").tolist()
    [[3, 2, 1, 2, 3, 4, 3, 2]]
    """
    left, top, right, bottom = _padding4("pad", padding)
    if padding_mode not in _PAD_MODES:
        raise ValueError(f"pad: argument 'padding_mode' expected one of {_PAD_MODES}, got {padding_mode!r}")
    is_number = isinstance(fill, numbers.Real) and not isinstance(fill, bool)
    if not is_number and not (isinstance(fill, (list, tuple))
                              and all(isinstance(v, numbers.Real) for v in fill)):
        raise TypeError(f"pad: argument 'fill' expected a number or a sequence of numbers, got {fill!r}")
    if isinstance(img, Tensor):
        _check_tensor_image("pad", img)
        if padding_mode == "symmetric":
            raise ValueError("pad: padding_mode 'symmetric' is not supported for Tensor images (as in Paddle); "
                             "use 'reflect', 'edge' or 'constant'")
        if not is_number:
            raise TypeError(f"pad: argument 'fill' must be a number for a Tensor image, got {fill!r}")
        mode = {"edge": "replicate"}.get(padding_mode, padding_mode)
        out = nn.functional.pad(img.unsqueeze(0), [left, right, top, bottom], mode=mode, value=float(fill),
                                data_format="NCHW")
        return out.squeeze(0)
    arr = _as_array("pad", img)
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (arr.ndim - 2)
    if padding_mode == "reflect" and (max(top, bottom) >= arr.shape[0] or max(left, right) >= arr.shape[1]):
        raise ValueError(f"pad: padding_mode 'reflect' needs paddings smaller than the image, got {padding} for "
                         f"an image of {arr.shape[0]}x{arr.shape[1]}")
    if padding_mode != "constant":
        return np.pad(arr, widths, mode=padding_mode)
    if is_number:
        return np.pad(arr, widths, mode="constant", constant_values=fill)
    channels = 1 if arr.ndim == 2 else arr.shape[2]
    if len(fill) != channels:
        raise ValueError(f"pad: argument 'fill' has {len(fill)} values for an image of {channels} channels")
    out = np.empty((arr.shape[0] + top + bottom, arr.shape[1] + left + right) + arr.shape[2:], arr.dtype)
    out[...] = np.asarray(fill, dtype=np.float64).astype(arr.dtype).reshape((1, 1) + arr.shape[2:])
    out[top:top + arr.shape[0], left:left + arr.shape[1]] = arr
    return out


def crop(img, top: int, left: int, height: int, width: int):
    """The box of ``height x width`` at (``top``, ``left``) of ``img``; the box must lie inside the image.

    >>> F.crop(np.arange(16).reshape(4, 4), 1, 2, 2, 2).tolist()
    [[6, 7], [10, 11]]
    """
    top, left = _check_int("crop", "top", top), _check_int("crop", "left", left)
    height, width = _check_int("crop", "height", height, 1), _check_int("crop", "width", width, 1)
    h, w = _image_hw("crop", img)
    if top + height > h or left + width > w:
        raise ValueError(f"crop: the box (top={top}, left={left}, height={height}, width={width}) does not fit "
                         f"in an image of {h}x{w}")
    if isinstance(img, Tensor):
        return img[:, top:top + height, left:left + width]
    return _as_array("crop", img)[top:top + height, left:left + width]


def center_crop(img, output_size):
    """The ``output_size`` (int or (height, width)) box at the centre of ``img``
    (offsets ``round((h - th) / 2)``, ``round((w - tw) / 2)`` as Paddle).

    >>> F.center_crop(np.arange(16).reshape(4, 4), 2).tolist()
    [[5, 6], [9, 10]]
    """
    th, tw = _size_pair("center_crop", "output_size", output_size)
    h, w = _image_hw("center_crop", img)
    if th > h or tw > w:
        raise ValueError(f"center_crop: argument 'output_size' ({th}, {tw}) is larger than the image ({h}, {w})")
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def hflip(img):
    """``img`` mirrored left to right.

    >>> F.hflip(np.array([[1, 2, 3]])).tolist()
    [[3, 2, 1]]
    """
    if isinstance(img, Tensor):
        _check_tensor_image("hflip", img)
        return img.flip(axis=[2])
    return _as_array("hflip", img)[:, ::-1].copy()


def vflip(img):
    """``img`` mirrored top to bottom.

    >>> F.vflip(np.array([[1], [2]])).tolist()
    [[2], [1]]
    """
    if isinstance(img, Tensor):
        _check_tensor_image("vflip", img)
        return img.flip(axis=[1])
    return _as_array("vflip", img)[::-1].copy()


def _channel_values(fn: str, arg: str, value) -> np.ndarray:
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return np.asarray([value], np.float64)
    if isinstance(value, (list, tuple, np.ndarray)) and len(value) > 0:
        try:
            return np.asarray(value, np.float64).reshape(-1)
        except (TypeError, ValueError):
            pass
    raise TypeError(f"{fn}: argument '{arg}' expected a number or a sequence of numbers, got {value!r}")


def normalize(img, mean, std, data_format: str = "CHW", to_rgb: bool = False):
    """``(img - mean) / std`` per channel; ``data_format`` says where the channel
    axis is ('CHW' or 'HWC'). NumPy and PIL images give float32 arrays; with
    ``to_rgb`` their channel order is reversed first (BGR to RGB). Tensor images
    give Tensors (``to_rgb`` is ignored for them, as in Paddle).

    >>> F.normalize(np.full((1, 2, 2), 4.0), [2.0], [0.5]).tolist()
    [[[4.0, 4.0], [4.0, 4.0]]]
    """
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"normalize: argument 'data_format' expected 'CHW' or 'HWC', got {data_format!r}")
    mean = _channel_values("normalize", "mean", mean)
    std = _channel_values("normalize", "std", std)
    if np.any(std == 0):
        raise ValueError(f"normalize: argument 'std' must not contain 0, got {std.tolist()}")
    if isinstance(img, Tensor):
        _check_tensor_image("normalize", img)
    else:
        img = _as_array("normalize", img)
        if img.ndim == 2 and data_format == "HWC":
            img = img[:, :, None]
        elif img.ndim == 2:
            img = img[None]
    channels = img.shape[0] if data_format == "CHW" else img.shape[-1]
    for arg, values in (("mean", mean), ("std", std)):
        if len(values) not in (1, channels):
            raise ValueError(f"normalize: argument '{arg}' has {len(values)} values for an image of {channels} "
                             f"channels ({data_format})")
    shape = (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)
    if isinstance(img, Tensor):
        dtype = img.dtype if img.dtype.is_floating_point else "float32"
        x = img if img.dtype.is_floating_point else img.astype("float32")
        m = _to_tensor(mean.reshape(shape)).astype(dtype)
        s = _to_tensor(std.reshape(shape)).astype(dtype)
        return (x - m) / s
    if to_rgb:
        img = img[::-1] if data_format == "CHW" else img[..., ::-1]
    return ((img.astype(np.float32) - mean.reshape(shape).astype(np.float32))
            / std.reshape(shape).astype(np.float32))


__all__ = ["center_crop", "crop", "hflip", "normalize", "pad", "resize", "to_tensor", "vflip"]
