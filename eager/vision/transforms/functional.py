"""Image functions (Paddle's ``paddle.vision.transforms.functional``).

An image is one of:

- a NumPy array ``H x W`` or ``H x W x C`` (uint8 or floating), the layout of
  Paddle's 'cv2' backend; results are NumPy arrays of the same dtype;
- a ``PIL.Image`` when Pillow is installed: it is read as ``numpy.asarray(img)``,
  computed on as a NumPy image, and the result is a PIL image again (as in
  Paddle, whose functions return what they are given); a one-channel result
  is an 'L' image, a palette image keeps its palette. Pillow is imported
  only when a PIL image comes in;
- an eager ``Tensor`` ``C x H x W`` (where Paddle takes Tensor images: resize,
  pad, crop, center_crop, hflip, vflip, normalize); results are Tensors built
  with ops, so gradients flow through them. A batch ``N x C x H x W`` is taken
  where Paddle 2.6.2 takes one (hflip, vflip, normalize, to_grayscale, the
  adjust_* functions, affine, perspective, erase): each image alike.

Resizing is written in NumPy (no OpenCV): 'bilinear' uses half-pixel centres
as OpenCV's INTER_LINEAR (``src = (dst + 0.5) * in / out - 0.5``, clamped at
the border, no antialiasing), 'nearest' takes ``floor(dst * in / out)`` as
INTER_NEAREST for NumPy images and ``floor((dst + 0.5) * in / out)`` as
Pillow's NEAREST for PIL images. Integer images are rounded to nearest and clipped to their range.

Colour functions (to_grayscale, adjust_brightness/contrast/saturation/hue)
take integer images as values in [0, 255] and floating ones as values in
[0, 1], and clip their results to that range. Rotation maps every output pixel
back into the input (exact for multiples of 90 degrees) and samples it there.

>>> import numpy as np
>>> from eager.vision.transforms import functional as F
>>> img = np.zeros((4, 6, 3), np.uint8)
>>> F.resize(img, 2).shape, F.hflip(img).shape, F.to_tensor(img).shape
((2, 3, 3), (4, 6, 3), [3, 4, 6])
"""
from __future__ import annotations

import functools
import math
import numbers

import numpy as np

from ... import nn
from ...creation import to_tensor as _to_tensor
from ...errors import ArgumentKindError
from ...generated import forward_api as _F  # also loads the Tensor methods used below
from ...tensor import Tensor
from ...utils.lazy_import import try_import

_INTERPOLATIONS = ("nearest", "bilinear")
_TENSOR_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "area")   # 2.6.2 hands these to interpolate
_PAD_MODES = ("constant", "edge", "reflect", "symmetric")
_ROTATE_INTERPOLATIONS = ("nearest", "bilinear")
_GRAY_WEIGHTS = (0.299, 0.587, 0.114)   # ITU-R 601, as Paddle (and OpenCV, PIL)
_TENSOR_GRAY_WEIGHTS = (0.2989, 0.587, 0.114)   # Paddle's Tensor backend (torchvision's rounding of the same)


def _is_pil_image(img) -> bool:
    return type(img).__module__.split(".")[0] == "PIL" and hasattr(img, "mode") and hasattr(img, "size")


def _as_pil_like(img, out: np.ndarray):
    """``out`` (the NumPy result computed from the PIL image ``img``) as a PIL image:
    one channel becomes an 'L' (or 'I', 'F', '1') image, a palette image keeps its palette,
    a multi-band image keeps its mode."""
    image_module = try_import("PIL.Image")
    if out.ndim == 3 and out.shape[2] == 1:
        out = out[:, :, 0]
    result = image_module.fromarray(np.ascontiguousarray(out))
    if img.mode == "P" and out.ndim == 2:
        result.putpalette(img.getpalette())
    elif (result.mode != img.mode and out.ndim == 3 and out.dtype == np.uint8
          and out.shape[2] == len(img.getbands())):
        # fromarray reads 4 bands as RGBA (3 as RGB): a CMYK, YCbCr, LAB or HSV image keeps its mode, as Pillow's ops
        result = image_module.frombytes(img.mode, result.size, out.tobytes())
    return result


def _keeps_pil(fn):
    """``fn`` (an image function) returning a PIL image when given one, as Paddle does."""
    @functools.wraps(fn)
    def keeping_pil(img, *args, **kwargs):
        out = fn(img, *args, **kwargs)
        if _is_pil_image(img) and isinstance(out, np.ndarray):
            return _as_pil_like(img, out)
        return out
    return keeping_pil


def _keeps_alpha(fn):
    """``fn`` (an RGB colour function) also taking a PIL 'RGBA' image: the colour
    part is transformed and the alpha band kept, as Pillow's ImageEnhance.Color."""
    @functools.wraps(fn)
    def keeping_alpha(img, *args, **kwargs):
        if _is_pil_image(img) and img.mode == "RGBA":
            out = fn(img.convert("RGB"), *args, **kwargs)
            out.putalpha(img.getchannel("A"))
            return out
        return fn(img, *args, **kwargs)
    return keeping_alpha


def _each_image(fn):
    """``fn`` (an image function) also taking a batch of Tensor images (N x C x H x W):
    every image is transformed alike and the results stacked, as Paddle 2.6.2's
    Tensor backend does for its colour, flip, affine, perspective and erase functions."""
    @functools.wraps(fn)
    def each_image(img, *args, **kwargs):
        if isinstance(img, Tensor) and img.ndim == 4:
            _check_tensor_image(fn.__name__, img, batch=True)
            return _F.stack([fn(image, *args, **kwargs) for image in img.unbind(0)], axis=0)
        return fn(img, *args, **kwargs)
    return each_image


def _is_numpy_image(img) -> bool:
    return isinstance(img, np.ndarray) and img.ndim in (2, 3)


def _is_tensor_image(img) -> bool:
    return isinstance(img, Tensor)


def _as_array(fn: str, img, arg: str = "img") -> np.ndarray:
    """A NumPy or PIL image as a NumPy array (HW or HWC); anything else is an error."""
    if _is_pil_image(img):
        img = np.asarray(img)
    if not isinstance(img, np.ndarray):
        raise TypeError(f"{fn}: argument '{arg}' expected a NumPy array (HW or HWC), a PIL Image or a Tensor (CHW), "
                        f"got {type(img).__name__}")
    if img.ndim not in (2, 3):
        # a TypeError, as Paddle's (an array of other dims is not an image to it)
        raise TypeError(f"{fn}: argument '{arg}' expected a NumPy image of 2 (HW) or 3 (HWC) dims, "
                        f"got shape {img.shape}")
    if img.size == 0 and fn != "to_tensor":
        raise ValueError(f"{fn}: argument '{arg}' is an empty image (shape {img.shape}); its height, width and "
                         f"channels must be at least 1")
    return img


def _check_tensor_image(fn: str, img: Tensor, arg: str = "img", batch: bool = False) -> None:
    if img.ndim != 3 and not (batch and img.ndim == 4):
        raise ValueError(f"{fn}: a Tensor image must be 3-D (CHW){' or a 4-D batch (NCHW)' if batch else ''}, "
                         f"got shape {img.shape}")
    if 0 in img.shape:
        raise ValueError(f"{fn}: argument '{arg}' is an empty Tensor image (shape {img.shape}); its channels, "
                         f"height and width must be at least 1")


def _image_hw(fn: str, img, batch: bool = False) -> tuple:
    """(height, width) of any supported image (with ``batch``, also of a batch of Tensor images, NCHW)."""
    if isinstance(img, Tensor):
        _check_tensor_image(fn, img, batch=batch)
        return int(img.shape[-2]), int(img.shape[-1])
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
    error = ValueError if isinstance(size, (list, tuple, numbers.Integral)) else TypeError
    raise error(f"{fn}: argument '{arg}' expected an int or a (height, width) pair of ints, got {size!r}")


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
    [0, 1] (divided by 255); any other dtype (a NumPy bool image too) keeps its
    values and dtype, as in Paddle (a 16-bit PIL image, mode 'I;16', becomes int32 as in Paddle).
    A 2-D image gets a channel axis of 1. A Tensor (a CHW image) is returned
    as it is, or moved to HWC, as Paddle does.

    >>> F.to_tensor(np.full((2, 3), 255, np.uint8)).numpy().tolist()
    [[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]]
    """
    if not isinstance(data_format, str) or data_format not in ("CHW", "HWC"):
        raise ValueError(f"to_tensor: argument 'data_format' expected 'CHW' or 'HWC', got {data_format!r}")
    if isinstance(pic, Tensor):
        # a Tensor image (CHW) is one already: returned as it is, or as HWC (as Paddle)
        _check_tensor_image("to_tensor", pic, "pic")
        return pic if data_format == "CHW" else pic.transpose([1, 2, 0])
    if _is_pil_image(pic) and pic.mode.startswith("I;16"):
        pic = np.asarray(pic).astype(np.int32)        # a 16-bit PIL image comes as int32, as Paddle's
    arr = _as_array("to_tensor", pic, "pic")
    if arr.dtype == np.bool_ and _is_pil_image(pic):
        arr = arr.astype(np.uint8) * 255       # a PIL '1' image is 0/255, as Paddle reads it; a NumPy bool stays bool
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if data_format == "CHW":
        arr = arr.transpose(2, 0, 1)
    if arr.dtype == np.uint8:
        return _to_tensor(arr.astype(np.float32) / np.float32(255.0))
    return _to_tensor(np.ascontiguousarray(arr))


def _resize_array(img: np.ndarray, oh: int, ow: int, interpolation: str, centres: bool = False) -> np.ndarray:
    """``img`` resized to ``oh x ow``; 'nearest' takes ``floor(dst * in / out)`` (OpenCV's INTER_NEAREST),
    or with ``centres`` the pixel whose area holds the output pixel's centre, ``floor((dst + 0.5) * in / out)``
    (Pillow's NEAREST, which Paddle uses for PIL images)."""
    h, w = img.shape[:2]
    if interpolation == "nearest":
        def sources(n_out, n_in):
            step = n_in / n_out
            if centres:
                # Pillow steps from the first centre by repeated addition (its ImagingScaleAffine): the
                # same rounding, so ties such as 4.5 * 20 / 15 fall where Pillow's do
                return np.minimum(np.cumsum(np.r_[step * 0.5, np.full(n_out - 1, step)]).astype(np.int64), n_in - 1)
            return np.minimum((np.arange(n_out) * step).astype(np.int64), n_in - 1)
        return img[sources(oh, h)][:, sources(ow, w)]

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


@_keeps_pil
def resize(img, size, interpolation: str = "bilinear"):
    """``img`` resized to ``size``: (height, width), or an int for the shorter
    side (the other one keeps the aspect ratio, ``int(size * long / short)``).

    ``interpolation``: 'bilinear' or 'nearest' (Tensors also 'bicubic' and
    'area', the mean over each output pixel's box).

    >>> F.resize(np.zeros((256, 300, 3), np.uint8), 224).shape
    (224, 262, 3)
    """
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        size = _check_int("resize", "size", size, 1)
    elif isinstance(size, (list, tuple)) and len(size) != 2:
        # Paddle raises TypeError ("Got inappropriate size arg"): a kind error, a ValueError as before too
        raise ArgumentKindError(f"resize: argument 'size' expected an int or a (height, width) pair of ints, "
                                f"got {size!r}")
    else:
        size = _size_pair("resize", "size", size)
    if isinstance(img, Tensor):
        if not isinstance(interpolation, str) or interpolation.lower() not in _TENSOR_INTERPOLATIONS:
            raise ValueError(f"resize: argument 'interpolation' expected one of {_TENSOR_INTERPOLATIONS} for a "
                             f"Tensor image, got {interpolation!r}")
        interpolation = interpolation.lower()      # Paddle's Tensor path takes any case ('BILINEAR')
        h, w = _image_hw("resize", img)
        if interpolation in ("bicubic", "area") and not img.dtype.is_floating_point:
            raise TypeError(f"resize: interpolation {interpolation!r} expected a floating-point Tensor image (as "
                            f"Paddle's {interpolation} kernel), got {img.dtype}; cast it first or use 'bilinear' or "
                            f"'nearest'")
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
    return _resize_array(arr, oh, ow, interpolation, centres=_is_pil_image(img))


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
    error = ValueError if isinstance(padding, (list, tuple)) else TypeError      # as Paddle's pad
    raise error(f"{fn}: argument 'padding' expected an int or a sequence of 2 or 4 ints, got {padding!r}")


@_keeps_pil
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
    if not isinstance(padding_mode, str):  # Paddle: TypeError; eager's string choices: ValueError
        raise ArgumentKindError(f"pad: argument 'padding_mode' expected one of {_PAD_MODES}, got {padding_mode!r}")
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


@_keeps_pil
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


@_keeps_pil
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


@_each_image
@_keeps_pil
def hflip(img):
    """``img`` mirrored left to right.

    >>> F.hflip(np.array([[1, 2, 3]])).tolist()
    [[3, 2, 1]]
    """
    if isinstance(img, Tensor):
        _check_tensor_image("hflip", img)
        return img.flip(axis=[2])
    return _as_array("hflip", img)[:, ::-1].copy()


@_each_image
@_keeps_pil
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


@_each_image
def normalize(img, mean, std, data_format: str = "CHW", to_rgb: bool = False):
    """``(img - mean) / std`` per channel; ``data_format`` says where the channel
    axis is ('CHW' or 'HWC'). NumPy images give arrays of the type
    NumPy promotes their dtype and float32 to (float32 for uint8 and float32,
    float64 for float64, as Paddle), PIL images float32 arrays; with ``to_rgb`` their channel order is
    reversed first (BGR to RGB). Tensor images
    give Tensors (``to_rgb`` is ignored for them, as in Paddle).

    >>> F.normalize(np.full((1, 2, 2), 4.0), [2.0], [0.5]).tolist()
    [[[4.0, 4.0], [4.0, 4.0]]]
    """
    if not isinstance(data_format, str) or data_format not in ("CHW", "HWC"):
        raise ValueError(f"normalize: argument 'data_format' expected 'CHW' or 'HWC', got {data_format!r}")
    mean = _channel_values("normalize", "mean", mean)
    std = _channel_values("normalize", "std", std)
    if np.any(std == 0):
        raise ValueError(f"normalize: argument 'std' must not contain 0, got {std.tolist()}")
    if isinstance(img, Tensor):
        _check_tensor_image("normalize", img)
    else:
        pil = _is_pil_image(img)
        img = _as_array("normalize", img)
        if pil:
            img = img.astype(np.float32)        # Paddle reads every PIL mode ('I', 'F', '1', ...) as float32
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
    # float32 mean and std, so the result is what NumPy makes of img's dtype with float32 (as Paddle's):
    # float32 for uint8 and float32 images, float64 for float64 ones
    dtype = np.result_type(img.dtype, np.float32)
    return ((img.astype(dtype) - mean.reshape(shape).astype(np.float32).astype(dtype))
            / std.reshape(shape).astype(np.float32).astype(dtype))


# -- helpers of the colour and geometry functions ----------------------------------------

def _check_factor(fn: str, arg: str, value, low: float = 0.0, high: float = math.inf) -> float:
    if (isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value)
            or not low <= value <= high):
        where = f"in [{low}, {high}]" if high != math.inf else f">= {low}"
        raise ValueError(f"{fn}: argument '{arg}' expected a number {where}, got {value!r}")
    return float(value)


def _bound(dtype) -> float:
    """The brightest value: 255 for integer images (uint8's range), 1.0 for floating ones."""
    return 255.0 if np.issubdtype(dtype, np.integer) else 1.0


def _tensor_float(img: Tensor):
    """A floating Tensor to compute on, its bound, and how to bring a result back to ``img``'s dtype."""
    if img.dtype.is_floating_point:
        return img, 1.0, lambda out: out
    dtype = img.dtype
    return img.astype("float32"), 255.0, lambda out: out.round().clip(0.0, 255.0).astype(dtype)


def _channels(arr: np.ndarray) -> int:
    return 1 if arr.ndim == 2 else int(arr.shape[2])


def _check_rgb(fn: str, img) -> None:
    shape = tuple(img.shape)
    channels = shape[0] if isinstance(img, Tensor) else (shape[2] if len(shape) == 3 else 1)
    if channels != 3:
        layout = "CHW Tensor" if isinstance(img, Tensor) else "HWC array"
        raise ValueError(f"{fn}: argument 'img' expected an RGB image of 3 channels ({layout}), got shape "
                         f"{list(shape) if isinstance(img, Tensor) else shape}")


def _gray(arr: np.ndarray) -> np.ndarray:
    """The luma of an HWC RGB array, float64, HW."""
    r, g, b = _GRAY_WEIGHTS
    data = arr.astype(np.float64)
    return r * data[..., 0] + g * data[..., 1] + b * data[..., 2]


def _gray_tensor(x: Tensor) -> Tensor:
    r, g, b = _TENSOR_GRAY_WEIGHTS
    return x[0:1] * r + x[1:2] * g + x[2:3] * b


def _blend(arr: np.ndarray, other, factor: float) -> np.ndarray:
    """``factor * arr + (1 - factor) * other``, clipped to the image range, in ``arr``'s dtype."""
    out = factor * arr.astype(np.float64) + (1.0 - factor) * other
    return _cast_like(np.clip(out, 0.0, _bound(arr.dtype)), arr.dtype)


def _blend_tensor(img: Tensor, other_of, factor: float) -> Tensor:
    x, bound, finish = _tensor_float(img)
    other = other_of(x)
    return finish((x * factor + other * (1.0 - factor)).clip(0.0, bound))


def _fill_values(fn: str, fill, channels: int) -> np.ndarray:
    """``fill`` (a number or one value per channel) as a float64 vector of ``channels`` values."""
    if isinstance(fill, numbers.Real) and not isinstance(fill, bool):
        return np.full(channels, float(fill))
    if isinstance(fill, (list, tuple, np.ndarray)) and len(fill) > 0 and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in fill):
        if len(fill) == 1:
            return np.full(channels, float(fill[0]))
        if len(fill) == channels:
            return np.asarray(fill, np.float64)
        raise ValueError(f"{fn}: argument 'fill' has {len(fill)} values for an image of {channels} channels")
    raise TypeError(f"{fn}: argument 'fill' expected a number or a sequence of numbers, got {fill!r}")


# -- colour ---------------------------------------------------------------------------------

@_each_image
def to_grayscale(img, num_output_channels: int = 1):
    """The luma ``0.299 R + 0.587 G + 0.114 B`` of an RGB image, as 1 channel
    (``H x W x 1``; ``1 x H x W`` for a Tensor) or repeated into 3. A PIL image
    of another mode is converted as PIL's ``convert('L')`` does (an 'L' image is
    already gray; RGBA, P and the others through RGB), as Paddle's PIL path.

    >>> F.to_grayscale(np.array([[[255, 0, 0], [0, 0, 255]]], np.uint8)).tolist()
    [[[76], [29]]]
    """
    if isinstance(num_output_channels, bool) or num_output_channels not in (1, 3):
        raise ValueError(f"to_grayscale: argument 'num_output_channels' expected 1 or 3, got {num_output_channels!r}")
    if isinstance(img, Tensor):
        _check_tensor_image("to_grayscale", img)
        _check_rgb("to_grayscale", img)
        x, _, finish = _tensor_float(img)
        gray = _gray_tensor(x)
        if num_output_channels == 3:
            gray = gray.expand([3, int(img.shape[1]), int(img.shape[2])])
        return finish(gray)
    if _is_pil_image(img) and img.mode != "L":
        # Paddle's PIL path is img.convert('L'): any mode (RGBA, P, ...) goes to RGB first,
        # whose luma that is; an 'L' image (a mask read as grayscale) is kept as it is.
        img = img.convert("RGB") if img.mode != "RGB" else img
    arr = _as_array("to_grayscale", img)
    if _is_pil_image(img) and img.mode == "L":
        gray = arr[:, :, None]
    else:
        _check_rgb("to_grayscale", arr)
        gray = _gray(arr)[:, :, None]
    if num_output_channels == 3:
        gray = np.repeat(gray, 3, axis=2)
    gray = _cast_like(gray, arr.dtype)
    if _is_pil_image(img):
        # an 'L' image (or 'RGB' for 3 channels), as Paddle's convert('L'): never the input's palette or mode
        return _as_pil_like(img.convert("RGB") if num_output_channels == 3 else img.convert("L"), gray)
    return gray


@_each_image
@_keeps_pil
def adjust_brightness(img, brightness_factor: float):
    """``img * brightness_factor``, clipped to the image range: 0 gives black,
    1 the image itself, 2 twice as bright. An integer image's values are
    truncated, not rounded (as all of Paddle's backends: cv2's lookup table,
    PIL's blend, the Tensor cast).

    >>> F.adjust_brightness(np.array([[10, 200, 5]], np.uint8), 1.5).tolist()
    [[15, 255, 7]]
    """
    factor = _check_factor("adjust_brightness", "brightness_factor", brightness_factor)
    if isinstance(img, Tensor):
        _check_tensor_image("adjust_brightness", img)
        if img.dtype.is_floating_point:
            return (img * factor).clip(0.0, 1.0)
        return (img.astype("float32") * factor).clip(0.0, 255.0).floor().astype(img.dtype)
    arr = _as_array("adjust_brightness", img)
    out = np.clip(arr.astype(np.float64) * factor, 0.0, _bound(arr.dtype))
    return np.floor(out).astype(arr.dtype) if np.issubdtype(arr.dtype, np.integer) else out.astype(arr.dtype)


@_each_image
@_keeps_pil
def adjust_contrast(img, contrast_factor: float):
    """The image blended with its mean grey (the mean of the luma of an RGB
    image, of the values of a one-channel one; rounded for an integer image
    as Paddle's cv2 and PIL backends): 0 gives flat grey, 1 the image itself.

    >>> F.adjust_contrast(np.array([[0.25, 0.75]]), 2.0).tolist()
    [[0.0, 1.0]]
    """
    factor = _check_factor("adjust_contrast", "contrast_factor", contrast_factor)
    if isinstance(img, Tensor):
        _check_tensor_image("adjust_contrast", img)
        if int(img.shape[0]) == 3:
            return _blend_tensor(img, lambda x: _gray_tensor(x).mean(), factor)
        return _blend_tensor(img, lambda x: x.mean(), factor)
    arr = _as_array("adjust_contrast", img)
    mean = float(_gray(arr).mean()) if _channels(arr) == 3 else float(arr.astype(np.float64).mean())
    if np.issubdtype(arr.dtype, np.integer):
        mean = float(np.rint(mean))
    return _blend(arr, mean, factor)


@_each_image
@_keeps_alpha
@_keeps_pil
def adjust_saturation(img, saturation_factor: float):
    """The RGB image blended with its own luma: 0 gives grey, 1 the image
    itself, 2 doubles the saturation. A one-channel image is returned as is,
    a PIL 'RGBA' image keeps its alpha.

    >>> F.adjust_saturation(np.array([[[1.0, 0.0, 0.0]]]), 0.0).tolist()
    [[[0.299, 0.299, 0.299]]]
    """
    factor = _check_factor("adjust_saturation", "saturation_factor", saturation_factor)
    if isinstance(img, Tensor):
        _check_tensor_image("adjust_saturation", img)
        if int(img.shape[0]) == 1:
            return img
        _check_rgb("adjust_saturation", img)
        return _blend_tensor(img, _gray_tensor, factor)
    arr = _as_array("adjust_saturation", img)
    if _channels(arr) == 1:
        return arr
    _check_rgb("adjust_saturation", arr)
    return _blend(arr, _gray(arr)[:, :, None], factor)


def _rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    """HSV (each in [0, 1]) of float RGB values in [0, 1] along the last axis."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    maxc, minc = rgb.max(axis=-1), rgb.min(axis=-1)
    delta = maxc - minc
    s = np.where(maxc > 0, delta / np.where(maxc > 0, maxc, 1.0), 0.0)
    safe = np.where(delta > 0, delta, 1.0)
    rc, gc, bc = (maxc - r) / safe, (maxc - g) / safe, (maxc - b) / safe
    h = np.where(maxc == r, bc - gc, np.where(maxc == g, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(delta > 0, (h / 6.0) % 1.0, 0.0)
    return np.stack([h, s, maxc], axis=-1)


def _hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    """The inverse of :func:`_rgb_to_hsv`."""
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    sector = np.floor(h * 6.0)
    f = h * 6.0 - sector
    sector = sector.astype(np.int64) % 6
    p, q, t = v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f))
    r = np.choose(sector, [v, q, p, p, t, v])
    g = np.choose(sector, [t, v, v, q, p, p])
    b = np.choose(sector, [p, p, t, v, v, q])
    return np.stack([r, g, b], axis=-1)


def _shift_hue_tensor(x: Tensor, bound: float, factor: float) -> Tensor:
    """:func:`_rgb_to_hsv`, the hue shift and :func:`_hsv_to_rgb` in Tensor ops (CHW)."""
    x = x / bound
    r, g, b = x[0], x[1], x[2]
    maxc, minc = x.max(axis=0), x.min(axis=0)
    delta = maxc - minc
    zeros, ones = maxc * 0.0, maxc * 0.0 + 1.0
    s = _F.where(maxc > 0, delta / _F.where(maxc > 0, maxc, ones), zeros)
    safe = _F.where(delta > 0, delta, ones)
    rc, gc, bc = (maxc - r) / safe, (maxc - g) / safe, (maxc - b) / safe
    h = _F.where(maxc == r, bc - gc, _F.where(maxc == g, rc - bc + 2.0, gc - rc + 4.0))
    # the fractional part as x - floor(x), not x % 1 (remainder has no gradient): the hue keeps its gradient
    h = h / 6.0
    h = _F.where(delta > 0, h - h.floor(), zeros)
    h = h + factor
    h = h - h.floor()
    sector = (h * 6.0).floor()
    f = h * 6.0 - sector
    sector = sector % 6.0
    v = maxc
    p, q, t = v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f))

    def pick(*values):
        out = values[5]
        for k in range(4, -1, -1):
            out = _F.where(sector == float(k), values[k], out)
        return out

    rgb = [pick(v, q, p, p, t, v), pick(t, v, v, q, p, p), pick(p, p, t, v, v, q)]
    return _F.stack(rgb, axis=0) * bound


@_each_image
@_keeps_alpha
@_keeps_pil
def adjust_hue(img, hue_factor: float):
    """The RGB image with its hue turned by ``hue_factor`` of a full turn
    (in [-0.5, 0.5]; 0 keeps the image), through HSV. A one-channel image is
    returned as is, a PIL 'RGBA' image keeps its alpha.

    >>> F.adjust_hue(np.array([[[1.0, 0.0, 0.0]]]), 1 / 3).round(6).tolist()
    [[[0.0, 1.0, 0.0]]]
    """
    factor = _check_factor("adjust_hue", "hue_factor", hue_factor, -0.5, 0.5)
    if isinstance(img, Tensor):
        _check_tensor_image("adjust_hue", img)
        if int(img.shape[0]) == 1:
            return img
        _check_rgb("adjust_hue", img)
        x, bound, finish = _tensor_float(img)
        out = _shift_hue_tensor(x, bound, factor).clip(0.0, bound)
        # Paddle casts an integer image back with astype (toward zero), not rounding as the other colour functions
        return out if img.dtype.is_floating_point else out.astype(img.dtype)
    arr = _as_array("adjust_hue", img)
    if _channels(arr) == 1:
        return arr
    _check_rgb("adjust_hue", arr)
    bound = _bound(arr.dtype)
    hsv = _rgb_to_hsv(np.clip(arr.astype(np.float64) / bound, 0.0, 1.0))
    hsv[..., 0] = (hsv[..., 0] + factor) % 1.0
    return _cast_like(np.clip(_hsv_to_rgb(hsv) * bound, 0.0, bound), arr.dtype)


# -- geometry ---------------------------------------------------------------------------------

def _rotation_sources(h: int, w: int, angle: float, expand: bool, center):
    """The output size and, for every output pixel, the point of the input it
    comes from, in index coordinates (column ``u``, row ``v``; pixel (i, j)'s
    centre is (j, i)). ``center`` is (x, y) with the image spanning [0, w] x [0, h]."""
    quarter = angle / 90.0
    if quarter == int(quarter):                  # exact for multiples of 90 degrees
        cos, sin = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))[int(quarter) % 4]
    else:
        theta = math.radians(angle)
        cos, sin = math.cos(theta), math.sin(theta)
    cx, cy = (w / 2.0, h / 2.0) if center is None else center
    oh, ow = h, w
    if expand and quarter == int(quarter) and center is None:
        if int(quarter) % 2:                     # a quarter turn swaps the sides (np.rot90), as Pillow's
            oh, ow = w, h
    elif expand:
        # Paddle's Tensor rule: the corners (centred frame) through the rotation about the centre,
        # translation included, spanning ceil(max) - floor(min); snapped so that float noise on an
        # integer corner does not add a pixel
        ox, oy = cx - w / 2.0, cy - h / 2.0
        dx = np.array([-w, w, -w, w]) / 2.0
        dy = np.array([-h, -h, h, h]) / 2.0
        xs = dx * cos - dy * sin + (ox - cos * ox + sin * oy)
        ys = dx * sin + dy * cos + (oy - sin * ox - cos * oy)

        def span(values):
            values = np.where(np.abs(values - np.rint(values)) < 1e-9, np.rint(values), values)
            return max(1, int(math.ceil(values.max()) - math.floor(values.min())))
        ow, oh = span(xs), span(ys)
    # output pixel centres in the input's frame (an expanded output grows evenly on every side)
    x = (np.arange(ow) + 0.5 - (ow - w) / 2.0)[None, :] - cx
    y = (np.arange(oh) + 0.5 - (oh - h) / 2.0)[:, None] - cy
    u = cx + x * cos - y * sin - 0.5
    v = cy + x * sin + y * cos - 0.5
    return oh, ow, u, v


def _sampling_taps(u: np.ndarray, v: np.ndarray, h: int, w: int, interpolation: str):
    """[(flat index into h*w, weight, inside)] whose weighted sum samples the image at (u, v)."""
    if interpolation == "nearest":
        corners = [(np.floor(u + 0.5).astype(np.int64), np.floor(v + 0.5).astype(np.int64), np.ones(u.shape))]
    else:
        x0, y0 = np.floor(u), np.floor(v)
        fx, fy = u - x0, v - y0
        x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
        corners = [(x0, y0, (1 - fx) * (1 - fy)), (x0 + 1, y0, fx * (1 - fy)),
                   (x0, y0 + 1, (1 - fx) * fy), (x0 + 1, y0 + 1, fx * fy)]
    taps = []
    for xi, yi, weight in corners:
        inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        taps.append((np.where(inside, yi * w + xi, 0), weight, inside))
    return taps


@_keeps_pil
def rotate(img, angle, interpolation: str = "nearest", expand: bool = False, center=None, fill=0):
    """``img`` turned by ``angle`` degrees counter-clockwise about ``center``
    ((x, y), origin at the image's upper-left corner, so the default centre
    is (width / 2, height / 2)). ``interpolation``: 'nearest' or 'bilinear'.
    With ``expand`` the output grows to hold the whole turned image (assuming
    rotation about the centre); the area from outside the input gets ``fill``
    (a number, or one value per channel). 90 degrees is ``np.rot90``.

    >>> F.rotate(np.array([[1, 2], [3, 4]]), 90).tolist()
    [[2, 4], [1, 3]]
    """
    if isinstance(angle, bool) or not isinstance(angle, numbers.Real) or not math.isfinite(angle):
        raise TypeError(f"rotate: argument 'angle' expected a finite number of degrees, got {angle!r}")
    _check_interpolation("rotate", interpolation)
    if center is not None:
        if not (isinstance(center, (list, tuple)) and len(center) == 2
                and all(isinstance(c, numbers.Real) and not isinstance(c, bool) for c in center)):
            # a non-sequence is a wrong kind (TypeError, as Paddle's subscript of it and its affine's check)
            error = ValueError if isinstance(center, (list, tuple)) else TypeError
            raise error(f"rotate: argument 'center' expected None or an (x, y) pair of numbers, got {center!r}")
        center = (float(center[0]), float(center[1]))
    return _warp("rotate", img, interpolation, fill,
                 lambda h, w: _rotation_sources(h, w, float(angle), bool(expand), center))


def _check_interpolation(fn: str, interpolation) -> None:
    if interpolation not in _ROTATE_INTERPOLATIONS:
        # Paddle's affine raises TypeError for a non-string (an int flag): a kind error, also a ValueError
        error = ValueError if isinstance(interpolation, str) else ArgumentKindError
        raise error(f"{fn}: argument 'interpolation' expected one of {_ROTATE_INTERPOLATIONS}, "
                    f"got {interpolation!r}")


def _warp(fn: str, img, interpolation: str, fill, geometry):
    """``img`` resampled where ``geometry(h, w)`` says: it returns the output
    height and width and, per output pixel, the source column and row in index
    coordinates. Whatever falls outside the input takes ``fill``."""
    h, w = _image_hw(fn, img)
    if isinstance(img, Tensor):
        channels = int(img.shape[0])
    else:
        arr = _as_array(fn, img)
        channels = _channels(arr)
    fill_values = _fill_values(fn, fill, channels)
    oh, ow, u, v = geometry(h, w)
    # far-away (or undefined) points are outside either way; clipping keeps the indices small
    u = np.clip(np.nan_to_num(u, nan=-2.0), -2.0, w + 1.0)
    v = np.clip(np.nan_to_num(v, nan=-2.0), -2.0, h + 1.0)
    taps = _sampling_taps(u, v, h, w, interpolation)
    outside = sum(weight * ~inside for _, weight, inside in taps)            # how much of each pixel is fill
    if isinstance(img, Tensor):
        x, _, finish = _tensor_float(img)
        flat = x.reshape([channels, h * w])
        # Paddle's Tensor path (grid_sample, then img * mask + (1 - mask) * fill) scales a bilinear sample
        # that reaches past the border by the inside share once more; 'nearest' has a share of 0 or 1.
        share = 1.0 - outside
        sampled = None
        for index, weight, inside in taps:
            picked = flat.index_select(_to_tensor(index.reshape(-1)), axis=1)
            term = picked * _to_tensor((weight * inside * share).reshape(1, -1).astype(np.float32)).astype(x.dtype)
            sampled = term if sampled is None else sampled + term
        out = sampled + _to_tensor((outside.reshape(1, -1) * fill_values[:, None]).astype(np.float32)).astype(x.dtype)
        return finish(out.reshape([channels, oh, ow]))
    flat = arr.reshape(h * w, channels).astype(np.float64)
    out = outside[:, :, None] * fill_values
    for index, weight, inside in taps:
        out += flat[index] * (weight * inside)[:, :, None]
    out = _cast_like(out, arr.dtype)
    return out[:, :, 0] if arr.ndim == 2 else out


def _output_points(h: int, w: int):
    """The centres of the output pixels, (x, y), with the image spanning [0, w] x [0, h]."""
    return (np.arange(w) + 0.5)[None, :], (np.arange(h) + 0.5)[:, None]


def _number_pair(fn: str, arg: str, value, sequence_type_error: bool = False) -> tuple:
    if sequence_type_error and not isinstance(value, (list, tuple)):
        raise TypeError(f"{fn}: argument '{arg}' expected a sequence (list or tuple) of 2 numbers, got {value!r}")
    if (isinstance(value, (list, tuple)) and len(value) == 2
            and all(isinstance(c, numbers.Real) and not isinstance(c, bool) and math.isfinite(c) for c in value)):
        return float(value[0]), float(value[1])
    raise ValueError(f"{fn}: argument '{arg}' expected a pair of numbers, got {value!r}")


@_each_image
@_keeps_pil
def affine(img, angle, translate, scale, shear, interpolation: str = "nearest", fill=0, center=None):
    """``img`` turned by ``angle`` degrees *clockwise*, scaled by ``scale``
    and sheared by ``shear`` degrees (a number for x, [s] for x and y alike, or (x, y)) about
    ``center`` ((x, y) from the upper-left corner; default the image centre),
    then moved by ``translate`` = (dx, dy) pixels, as Paddle (and torchvision):
    the forward map is ``p -> center + translate + R(angle) S(scale) Shy Shx (p - center)``.
    The output keeps the input's size; what comes from outside gets ``fill``.

    >>> F.affine(np.arange(9).reshape(3, 3), 0, (1, 0), 1.0, 0).tolist()
    [[0, 0, 1], [0, 3, 4], [0, 6, 7]]
    """
    if isinstance(angle, bool) or not isinstance(angle, numbers.Real) or not math.isfinite(angle):
        raise TypeError(f"affine: argument 'angle' expected a finite number of degrees, got {angle!r}")
    tx, ty = _number_pair("affine", "translate", translate, sequence_type_error=True)
    scale = _check_factor("affine", "scale", scale)
    if scale <= 0:
        raise ValueError(f"affine: argument 'scale' expected a positive number, got {scale!r}")
    if isinstance(shear, numbers.Real) and not isinstance(shear, bool):
        shear = (float(shear), 0.0)
    elif isinstance(shear, (list, tuple)) and len(shear) == 1:
        shear = (shear[0], shear[0])                # one value shears x and y alike, as Paddle
    sx, sy = (math.radians(a) for a in _number_pair("affine", "shear", shear, sequence_type_error=True))
    _check_interpolation("affine", interpolation)
    if center is not None:
        center = _number_pair("affine", "center", center, sequence_type_error=True)
    a = math.radians(angle)
    rotation = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    shear_x = np.array([[1.0, -math.tan(sx)], [0.0, 1.0]])
    shear_y = np.array([[1.0, 0.0], [-math.tan(sy), 1.0]])
    inverse = np.linalg.inv(scale * rotation @ shear_y @ shear_x)

    def geometry(h, w):
        cx, cy = (w / 2.0, h / 2.0) if center is None else center
        x, y = _output_points(h, w)
        dx, dy = x - cx - tx, y - cy - ty
        u = cx + inverse[0, 0] * dx + inverse[0, 1] * dy - 0.5
        v = cy + inverse[1, 0] * dx + inverse[1, 1] * dy - 0.5
        return h, w, u, v

    return _warp("affine", img, interpolation, fill, geometry)


def _corners(fn: str, arg: str, points) -> np.ndarray:
    try:
        arr = np.asarray(points, np.float64)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.shape != (4, 2) or not np.isfinite(arr).all():
        raise ValueError(f"{fn}: argument '{arg}' expected 4 [x, y] points (top-left, top-right, bottom-right, "
                         f"bottom-left), got {points!r}")
    return arr


def _three_on_a_line(points: np.ndarray) -> bool:
    """Whether some three of the 4 points (x, y) lie on one line (two equal points count)."""
    scale = max(1.0, float(np.abs(points).max()))
    for skip in range(4):
        p, q, r = (points[k] for k in range(4) if k != skip)
        if abs((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])) <= 1e-12 * scale * scale:
            return True
    return False


@_each_image
@_keeps_pil
def perspective(img, startpoints, endpoints, interpolation: str = "nearest", fill=0):
    """``img`` warped by the projective map that takes the 4 ``startpoints``
    ([x, y]: top-left, top-right, bottom-right, bottom-left) to the 4
    ``endpoints``, in pixel coordinates whose origin is the image's upper-left
    corner (pixel (0, 0) covers [0, 1) x [0, 1)). Start points three on
    a line (the corners of a one-pixel-high or -wide image) take the affine
    least-squares map nearest the identity; end points three on a line with
    start points that are not raise ValueError. The output keeps the input's size; what comes from outside gets ``fill``.

    >>> corners = [[0, 0], [3, 0], [3, 3], [0, 3]]
    >>> F.perspective(np.arange(9).reshape(3, 3), corners, [[1, 0], [4, 0], [4, 3], [1, 3]]).tolist()
    [[0, 0, 1], [0, 3, 4], [0, 6, 7]]
    """
    start = _corners("perspective", "startpoints", startpoints)
    end = _corners("perspective", "endpoints", endpoints)
    _check_interpolation("perspective", interpolation)
    # the map from output (end) to input (start) points: X = (a x + b y + c) / (g x + h y + 1), Y likewise
    system = np.zeros((8, 8))
    rhs = start.reshape(-1)
    for k, ((x, y), (sx, sy)) in enumerate(zip(end, start)):
        system[2 * k] = [x, y, 1.0, 0.0, 0.0, 0.0, -sx * x, -sx * y]
        system[2 * k + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -sy * x, -sy * y]
    try:
        coef = np.linalg.solve(system, rhs)
    except np.linalg.LinAlgError:
        if not _three_on_a_line(start):
            raise ValueError(f"perspective: the points {end.tolist()} do not define a projective map onto "
                             f"{start.tolist()} (three of them are on a line where the start points are not)") from None
        # the start points are degenerate too (the corners of a one-pixel-high or -wide image, which
        # RandomPerspective draws; Paddle takes a least-squares map there): the affine least-squares
        # map nearest the identity, so what the points leave free stays as it is
        identity = np.array([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
        coef = identity.copy()
        coef[:6] += np.linalg.lstsq(system[:, :6], rhs - system @ identity, rcond=None)[0]

    def geometry(h, w):
        x, y = _output_points(h, w)
        denom = coef[6] * x + coef[7] * y + 1.0
        ahead = denom > 1e-12                                    # behind the horizon: outside
        safe = np.where(ahead, denom, 1.0)
        u = np.where(ahead, (coef[0] * x + coef[1] * y + coef[2]) / safe, -2.0) - 0.5
        v = np.where(ahead, (coef[3] * x + coef[4] * y + coef[5]) / safe, -2.0) - 0.5
        return h, w, u, v

    return _warp("perspective", img, interpolation, fill, geometry)


@_keeps_pil
def erase(img, i: int, j: int, h: int, w: int, v, inplace: bool = False):
    """``img`` with the ``h x w`` box at row ``i``, column ``j`` set to ``v``:
    a number, one value per channel, or an array (Tensor) of the box's shape
    (``h x w x C`` for a NumPy image, ``C x h x w`` for a Tensor; a batch of
    Tensor images, N x C x H x W, has the same box erased in each). With
    ``inplace`` the input itself is written (as Paddle); otherwise it is left
    alone, and a Tensor result keeps the gradient of the pixels outside the box.

    >>> F.erase(np.ones((3, 3), np.uint8), 1, 1, 2, 1, 0).tolist()
    [[1, 1, 1], [1, 0, 1], [1, 0, 1]]
    """
    i, j = _check_int("erase", "i", i), _check_int("erase", "j", j)
    h, w = _check_int("erase", "h", h, 1), _check_int("erase", "w", w, 1)
    height, width = _image_hw("erase", img, batch=True)
    if i + h > height or j + w > width:
        raise ValueError(f"erase: the box (i={i}, j={j}, h={h}, w={w}) does not fit in an image of "
                         f"{height}x{width}")
    if isinstance(v, Tensor):
        v = v.numpy()
    if isinstance(v, (list, tuple)):
        v = _channel_values("erase", "v", v)
    elif not (isinstance(v, np.ndarray) or (isinstance(v, numbers.Real) and not isinstance(v, bool))):
        raise TypeError(f"erase: argument 'v' expected a number, a sequence of numbers or an array, got {v!r}")
    v = np.asarray(v, np.float64)
    if isinstance(img, Tensor):
        channels = int(img.shape[-3])
        if v.ndim == 1:
            v = v.reshape(-1, 1, 1)
        try:
            box = np.broadcast_to(v, (channels, h, w))
        except ValueError:
            raise ValueError(f"erase: argument 'v' of shape {v.shape} does not fit a box of {channels}x{h}x{w} "
                             f"(CHW)") from None
        if inplace:
            img[..., i:i + h, j:j + w] = _to_tensor(np.ascontiguousarray(box)).astype(img.dtype)
            return img
        keep = np.ones((1, height, width), np.float32)
        keep[:, i:i + h, j:j + w] = 0.0
        values = np.zeros((channels, height, width), np.float64)
        values[:, i:i + h, j:j + w] = box
        x, _, finish = _tensor_float(img)
        return finish(x * _to_tensor(keep).astype(x.dtype) + _to_tensor(values).astype(x.dtype))
    arr = _as_array("erase", img)
    if _is_pil_image(img):
        inplace = False             # a PIL image cannot be written in place: the result is a new image, as Paddle's
    box_shape = (h, w) + arr.shape[2:]
    try:
        box = np.broadcast_to(v, box_shape)
    except ValueError:
        raise ValueError(f"erase: argument 'v' of shape {v.shape} does not fit a box of shape {box_shape} "
                         f"(HWC)") from None
    out = arr if inplace else arr.copy()
    out[i:i + h, j:j + w] = _cast_like(box, arr.dtype)
    return out


__all__ = ["adjust_brightness", "adjust_contrast", "adjust_hue", "adjust_saturation", "affine", "center_crop", "crop",
           "erase", "hflip", "normalize", "pad", "perspective", "resize", "rotate", "to_grayscale", "to_tensor",
           "vflip"]
