"""Image transforms (Paddle's ``paddle.vision.transforms``): callables built on
:mod:`eager.vision.transforms.functional`.

Every transform is a :class:`BaseTransform`: called on one image it returns the
transformed image; with ``keys`` (e.g. ``("image", "image")``) it is called on
a tuple and applies one draw of its random parameters to each element whose
key it knows, passing the rest through.

Randomness: the random transforms (RandomCrop, RandomResizedCrop, the flips,
RandomRotation, RandomAffine, RandomPerspective, the colour transforms,
ColorJitter, RandomErasing) draw from
eager's CPU random generator, the one
``eager.seed(n)`` seeds and ``eager.get_rng_state()`` saves, so

>>> import numpy as np, eager
>>> from eager.vision import transforms as T
>>> flip = T.RandomHorizontalFlip(0.5)
>>> img = np.arange(12, dtype=np.uint8).reshape(3, 4)
>>> _ = eager.seed(7); a = [flip(img)[0, 0] for _ in range(8)]
>>> _ = eager.seed(7); b = [flip(img)[0, 0] for _ in range(8)]
>>> a == b
True

repeats the same augmentations. The draws share that stream with the random
ops and initializers: the same program after the same seed repeats exactly.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np
from phi.common import CPUPlace
from phi.core.generator import default_generator

from ...tensor import Tensor
from . import functional as F


def _uniform() -> float:
    """One float in [0, 1) from eager's CPU generator (seeded by eager.seed)."""
    return float(default_generator(CPUPlace()).random(()))


def _uniform_in(low: float, high: float) -> float:
    """One float in [low, high) from eager's CPU generator."""
    return low + (high - low) * _uniform()


def _randint(low: int, high: int) -> int:
    """One int in [low, high] (both included) from eager's CPU generator."""
    return low + min(int(_uniform() * (high - low + 1)), high - low)


def _check_range(name: str, arg: str, value, low: float = 0.0, positive: bool = False) -> tuple:
    """A (min, max) pair of numbers with ``low <= min <= max`` (``0 < min`` when ``positive``)."""
    ok = (isinstance(value, (list, tuple)) and len(value) == 2
          and all(isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v) for v in value))
    if ok:
        ok = (value[0] > 0 if positive else value[0] >= low) and value[0] <= value[1]
    if not ok:
        first = "0 <" if positive else f"{low} <="
        raise ValueError(f"{name}: argument '{arg}' expected a (min, max) pair of numbers with {first} min <= max, "
                         f"got {value!r}")
    return float(value[0]), float(value[1])


def _check_prob(name: str, prob) -> float:
    if isinstance(prob, bool) or not isinstance(prob, numbers.Real) or not 0.0 <= prob <= 1.0:
        raise ValueError(f"{name}: argument 'prob' expected a number in [0, 1], got {prob!r}")
    return float(prob)


class Compose:
    """Applies ``transforms`` one after the other.

    >>> t = T.Compose([T.CenterCrop(2), T.ToTensor()])
    >>> t(np.zeros((4, 4, 3), np.uint8)).shape
    [3, 2, 2]
    """

    def __init__(self, transforms):
        if not isinstance(transforms, (list, tuple)) or not all(callable(t) for t in transforms):
            raise TypeError(f"Compose: argument 'transforms' expected a list or tuple of callables, "
                            f"got {transforms!r}")
        self.transforms = list(transforms)

    def __call__(self, data):
        for t in self.transforms:
            data = t(data)
        return data

    def __repr__(self):
        inner = "".join(f"\n    {t}" for t in self.transforms)
        return f"{type(self).__name__}({inner}\n)"


class BaseTransform:
    """The base of the transforms (Paddle's ``BaseTransform``).

    ``keys`` names what each element of a tuple input is (default
    ``("image",)``); a subclass handles a key by defining ``_apply_<key>``
    (``_apply_image``, ``_apply_mask``, ...), and may draw its random
    parameters once per call in ``_get_params(inputs)`` (available as
    ``self.params``), so every element gets the same crop or flip.

    >>> class AddOne(T.BaseTransform):
    ...     def _apply_image(self, img):
    ...         return img + 1
    >>> AddOne(keys=("image", "label"))((np.zeros(2), 5))
    (array([1., 1.]), 5)
    """

    def __init__(self, keys=None):
        if keys is None:
            keys = ("image",)
        elif isinstance(keys, str):
            # Paddle reads a string as a sequence of one-letter keys, none of which a transform supports
            raise NotImplementedError(f"{type(self).__name__}: argument 'keys' expected a sequence of key names, "
                                      f"got the string {keys!r} (write ({keys!r},))")
        elif not isinstance(keys, Sequence):
            raise ValueError(f"{type(self).__name__}: argument 'keys' expected a sequence of strings, got {keys!r}")
        for key in keys:
            if not isinstance(key, str):
                raise ValueError(f"{type(self).__name__}: argument 'keys' expected strings, got {key!r}")
            if key != "label" and self._get_apply(key) is None:
                # NotImplementedError, as Paddle's "unsupported data structure"
                raise NotImplementedError(f"{type(self).__name__}: key {key!r} is not supported (the transform has "
                                          f"no _apply_{key} method)")
        self.keys = tuple(keys)
        self.params = None

    def _get_params(self, inputs):
        return None

    def _get_apply(self, key):
        return getattr(self, f"_apply_{key}", None)

    def __call__(self, inputs):
        single = not isinstance(inputs, tuple)
        if single:
            inputs = (inputs,)
        self.params = self._get_params(inputs)
        outputs = []
        for i, item in enumerate(inputs):
            apply = self._get_apply(self.keys[i]) if i < len(self.keys) else None
            outputs.append(item if apply is None else apply(item))
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _first_image(self, inputs):
        key = "image" if "image" in self.keys else self.keys[0]
        index = self.keys.index(key)
        return inputs[index] if index < len(inputs) else inputs[0]

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if k not in ("keys", "params"))
        return f"{type(self).__name__}({fields})"


class ToTensor(BaseTransform):
    """A NumPy (HW/HWC) or PIL image as a float32 Tensor in [0, 1] when it is
    uint8 (other dtypes keep their values), ``CHW`` or ``HWC`` by ``data_format``.

    >>> T.ToTensor()(np.full((2, 2, 3), 255, np.uint8)).shape
    [3, 2, 2]
    """

    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        if not isinstance(data_format, str) or data_format not in ("CHW", "HWC"):
            raise ValueError(f"ToTensor: argument 'data_format' expected 'CHW' or 'HWC', got {data_format!r}")
        self.data_format = data_format

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


class Normalize(BaseTransform):
    """``(img - mean) / std`` per channel (see :func:`functional.normalize`);
    a number for ``mean`` or ``std`` applies to every channel.

    >>> T.Normalize(mean=127.5, std=127.5, data_format="HWC")(np.full((1, 1, 3), 255.0)).tolist()
    [[[1.0, 1.0, 1.0]]]
    """

    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        if not isinstance(data_format, str) or data_format not in ("CHW", "HWC"):
            raise ValueError(f"Normalize: argument 'data_format' expected 'CHW' or 'HWC', got {data_format!r}")
        F._channel_values("Normalize", "mean", mean)
        std_values = F._channel_values("Normalize", "std", std)
        if np.any(std_values == 0):
            raise ValueError(f"Normalize: argument 'std' must not contain 0, got {std!r}")
        self.mean, self.std, self.data_format, self.to_rgb = mean, std, data_format, bool(to_rgb)

    def _apply_image(self, img):
        return F.normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Resize(BaseTransform):
    """Resizes to ``size``: (height, width), or an int for the shorter side
    (the longer keeps the aspect ratio). ``interpolation``: 'bilinear' or 'nearest'.

    >>> T.Resize(224)(np.zeros((256, 300, 3), np.uint8)).shape
    (224, 262, 3)
    """

    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        if not (isinstance(size, numbers.Integral) and not isinstance(size, bool)):
            F._size_pair("Resize", "size", size)
        elif size < 1:
            raise ValueError(f"Resize: argument 'size' expected a positive int, got {size!r}")
        if not isinstance(interpolation, str) or interpolation.lower() not in F._TENSOR_INTERPOLATIONS:
            raise ValueError(f"Resize: argument 'interpolation' expected one of {F._TENSOR_INTERPOLATIONS}, "
                             f"got {interpolation!r}")
        self.size, self.interpolation = size, interpolation

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)

    def _apply_mask(self, mask):
        return F.resize(mask, self.size, "nearest")


class CenterCrop(BaseTransform):
    """Crops the centre ``size`` (int or (height, width)) box.

    >>> T.CenterCrop(2)(np.arange(16).reshape(4, 4)).tolist()
    [[5, 6], [9, 10]]
    """

    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = F._size_pair("CenterCrop", "size", size)

    def _apply_image(self, img):
        return F.center_crop(img, self.size)

    _apply_mask = _apply_image


class Pad(BaseTransform):
    """Pads the borders (see :func:`functional.pad` for ``padding``, ``fill``, ``padding_mode``).

    >>> T.Pad(1)(np.ones((2, 2))).shape
    (4, 4)
    """

    def __init__(self, padding, fill=0, padding_mode="constant", keys=None):
        super().__init__(keys)
        F._padding4("Pad", padding)
        if not isinstance(padding_mode, str) or padding_mode not in F._PAD_MODES:
            raise ValueError(f"Pad: argument 'padding_mode' expected one of {F._PAD_MODES}, got {padding_mode!r}")
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


class RandomCrop(BaseTransform):
    """Crops a random ``size`` box, after optional ``padding`` (as :class:`Pad`);
    with ``pad_if_needed`` an image smaller than ``size`` is first padded on both
    sides by the shortfall (as Paddle). The offset is drawn once per call.

    >>> _ = eager.seed(0)
    >>> T.RandomCrop(2, padding=1)(np.ones((3, 3, 1), np.uint8)).shape
    (2, 2, 1)
    """

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant", keys=None):
        super().__init__(keys)
        self.size = F._size_pair("RandomCrop", "size", size)
        if padding is not None:
            F._padding4("RandomCrop", padding)
        if not isinstance(padding_mode, str) or padding_mode not in F._PAD_MODES:
            raise ValueError(f"RandomCrop: argument 'padding_mode' expected one of {F._PAD_MODES}, "
                             f"got {padding_mode!r}")
        self.padding, self.pad_if_needed = padding, bool(pad_if_needed)
        self.fill, self.padding_mode = fill, padding_mode

    def _get_params(self, inputs):
        return {"u": (_uniform(), _uniform())}

    def _apply_image(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        h, w = F._image_hw("RandomCrop", img)
        th, tw = self.size
        if self.pad_if_needed and w < tw:
            img = F.pad(img, (tw - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < th:
            img = F.pad(img, (0, th - h), self.fill, self.padding_mode)
        h, w = F._image_hw("RandomCrop", img)
        if h < th or w < tw:
            raise ValueError(f"RandomCrop: the crop size ({th}, {tw}) is larger than the image ({h}, {w}); "
                             f"pass padding or pad_if_needed=True")
        uy, ux = self.params["u"]
        return F.crop(img, int(uy * (h - th + 1)), int(ux * (w - tw + 1)), th, tw)

    _apply_mask = _apply_image


class RandomHorizontalFlip(BaseTransform):
    """Mirrors left to right with probability ``prob`` (drawn once per call).

    >>> T.RandomHorizontalFlip(1.0)(np.array([[1, 2]])).tolist()
    [[2, 1]]
    """

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        self.prob = _check_prob("RandomHorizontalFlip", prob)

    def _get_params(self, inputs):
        return {"flip": _uniform() < self.prob}

    def _apply_image(self, img):
        return F.hflip(img) if self.params["flip"] else img

    _apply_mask = _apply_image


class RandomVerticalFlip(BaseTransform):
    """Mirrors top to bottom with probability ``prob`` (drawn once per call).

    >>> T.RandomVerticalFlip(1.0)(np.array([[1], [2]])).tolist()
    [[2], [1]]
    """

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        self.prob = _check_prob("RandomVerticalFlip", prob)

    def _get_params(self, inputs):
        return {"flip": _uniform() < self.prob}

    def _apply_image(self, img):
        return F.vflip(img) if self.params["flip"] else img

    _apply_mask = _apply_image


class Transpose(BaseTransform):
    """Permutes the axes of an image by ``order`` (default HWC to CHW); a 2-D
    NumPy image gets a channel axis first, a NumPy array of more dims is permuted
    as it is (an ``order`` of its length). NumPy in, NumPy out; Tensor in, Tensor out.

    >>> T.Transpose()(np.zeros((4, 5, 3))).shape
    (3, 4, 5)
    """

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        if (not isinstance(order, (list, tuple)) or sorted(order) != list(range(len(order)))):
            raise ValueError(f"Transpose: argument 'order' expected a permutation of 0..n-1, got {order!r}")
        self.order = tuple(int(i) for i in order)

    def _apply_image(self, img):
        if isinstance(img, Tensor):
            if img.ndim != len(self.order):
                raise ValueError(f"Transpose: order {self.order} does not fit a Tensor of shape {img.shape}")
            return img.transpose(list(self.order))
        if isinstance(img, np.ndarray) and img.ndim > 3 and img.ndim == len(self.order):
            return img.transpose(self.order)        # a NumPy batch (NHWC with (0, 3, 1, 2)), as Paddle's
        arr = F._as_array("Transpose", img)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        if arr.ndim != len(self.order):
            raise ValueError(f"Transpose: order {self.order} does not fit an image of shape {arr.shape}")
        return arr.transpose(self.order)


class RandomResizedCrop(BaseTransform):
    """Crops a random box and resizes it to ``size`` (an int for a square, or
    (height, width)). The box covers a fraction of the image's area drawn from
    ``scale`` and has a width / height ratio drawn log-uniformly from
    ``ratio``; after 10 draws that do not fit, the centre box of the whole
    image clamped to ``ratio`` is taken (as Paddle). ``interpolation``:
    'bilinear' or 'nearest' (Tensors also 'bicubic' and 'area'); a 'mask' key is resized
    with 'nearest'.

    >>> _ = eager.seed(0)
    >>> T.RandomResizedCrop(4)(np.zeros((10, 12, 3), np.uint8)).shape
    (4, 4, 3)
    """

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3), interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size = F._size_pair("RandomResizedCrop", "size", size)
        self.scale = _check_range("RandomResizedCrop", "scale", scale, positive=True)
        self.ratio = _check_range("RandomResizedCrop", "ratio", ratio, positive=True)
        if not isinstance(interpolation, str) or interpolation.lower() not in F._TENSOR_INTERPOLATIONS:
            raise ValueError(f"RandomResizedCrop: argument 'interpolation' expected one of "
                             f"{F._TENSOR_INTERPOLATIONS}, got {interpolation!r}")
        self.interpolation = interpolation

    def _get_params(self, inputs, attempts=10):
        height, width = F._image_hw("RandomResizedCrop", self._first_image(inputs))
        area = height * width
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(attempts):
            target_area = _uniform_in(*self.scale) * area
            aspect = math.exp(_uniform_in(*log_ratio))
            w = int(round(math.sqrt(target_area * aspect)))
            h = int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return {"box": (_randint(0, height - h), _randint(0, width - w), h, w)}
        in_ratio = width / height
        if in_ratio < self.ratio[0]:
            w, h = width, max(1, int(round(width / self.ratio[0])))
        elif in_ratio > self.ratio[1]:
            h, w = height, max(1, int(round(height * self.ratio[1])))
        else:
            h, w = height, width
        return {"box": ((height - h) // 2, (width - w) // 2, h, w)}

    def _apply_image(self, img):
        return F.resize(F.crop(img, *self.params["box"]), self.size, self.interpolation)

    def _apply_mask(self, mask):
        return F.resize(F.crop(mask, *self.params["box"]), self.size, "nearest")


class RandomRotation(BaseTransform):
    """Turns the image by an angle drawn uniformly from ``degrees`` (a number
    ``d`` for (-d, d), or a (min, max) pair), counter-clockwise, about
    ``center``; see :func:`functional.rotate` for ``interpolation``,
    ``expand`` and ``fill``. A 'mask' key is turned with 'nearest'.

    >>> T.RandomRotation((90, 90))(np.array([[1, 2], [3, 4]])).tolist()
    [[2, 4], [1, 3]]
    """

    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0, keys=None):
        super().__init__(keys)
        if isinstance(degrees, numbers.Real) and not isinstance(degrees, bool):
            if not degrees >= 0:
                raise ValueError(f"RandomRotation: argument 'degrees' expected a number >= 0 or a (min, max) pair, "
                                 f"got {degrees!r}")
            degrees = (-degrees, degrees)
        self.degrees = _check_range("RandomRotation", "degrees", degrees, low=-math.inf)
        if interpolation not in F._ROTATE_INTERPOLATIONS:
            raise ValueError(f"RandomRotation: argument 'interpolation' expected one of "
                             f"{F._ROTATE_INTERPOLATIONS}, got {interpolation!r}")
        if center is not None and not (isinstance(center, (list, tuple)) and len(center) == 2):
            raise ValueError(f"RandomRotation: argument 'center' expected None or an (x, y) pair, got {center!r}")
        self.interpolation, self.expand, self.center, self.fill = interpolation, bool(expand), center, fill

    def _get_params(self, inputs):
        return {"angle": _uniform_in(*self.degrees)}

    def _apply_image(self, img):
        return F.rotate(img, self.params["angle"], self.interpolation, self.expand, self.center, self.fill)

    def _apply_mask(self, mask):
        return F.rotate(mask, self.params["angle"], "nearest", self.expand, self.center, self.fill)


class Grayscale(BaseTransform):
    """An RGB image as its luma ``0.299 R + 0.587 G + 0.114 B``, with
    ``num_output_channels`` 1 or 3 (see :func:`functional.to_grayscale`).

    >>> T.Grayscale()(np.zeros((4, 5, 3), np.uint8)).shape
    (4, 5, 1)
    """

    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        if isinstance(num_output_channels, bool) or num_output_channels not in (1, 3):
            raise ValueError(f"Grayscale: argument 'num_output_channels' expected 1 or 3, "
                             f"got {num_output_channels!r}")
        self.num_output_channels = int(num_output_channels)

    def _apply_image(self, img):
        return F.to_grayscale(img, self.num_output_channels)


def _factor_range(name: str, arg: str, value, center: float, bound: tuple, clip_first_on_zero: bool):
    """Paddle's rule for a colour transform's ``value``: a number ``v`` means
    [center - v, center + v] (the low end clipped at 0 for factors), a pair is
    taken as (min, max) within ``bound``; None when the range is the centre alone."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if not value >= 0:
            raise ValueError(f"{name}: argument '{arg}' expected a number >= 0 or a (min, max) pair, got {value!r}")
        low, high = center - float(value), center + float(value)
        if clip_first_on_zero:
            low = max(low, 0.0)
    elif not (isinstance(value, (list, tuple)) and len(value) == 2):
        # a TypeError, as Paddle's (a string, a dict, a list of another length)
        raise TypeError(f"{name}: argument '{arg}' expected a number >= 0 or a (min, max) pair, got {value!r}")
    else:
        low, high = _check_range(name, arg, value, low=-math.inf)
    if not bound[0] <= low <= high <= bound[1]:
        raise ValueError(f"{name}: argument '{arg}' gives the range [{low}, {high}], which must lie within "
                         f"[{bound[0]}, {bound[1]}]")
    return None if low == high == center else (low, high)


class _ColorTransform(BaseTransform):
    """A colour adjustment whose factor is drawn uniformly, once per call, from a range."""

    _center, _bound, _clip_first_on_zero = 1.0, (0.0, math.inf), True

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = self._range(type(self).__name__, "value", value)

    @classmethod
    def _range(cls, name: str, arg: str, value):
        return _factor_range(name, arg, value, cls._center, cls._bound, cls._clip_first_on_zero)

    def _get_params(self, inputs):
        return {"factor": None if self.value is None else _uniform_in(*self.value)}

    def _apply_image(self, img):
        factor = self.params["factor"]
        return img if factor is None else self._adjust(img, factor)


class BrightnessTransform(_ColorTransform):
    """Scales the brightness by a factor drawn from [max(0, 1 - value), 1 + value]
    (or from a (min, max) ``value``); see :func:`functional.adjust_brightness`.

    >>> T.BrightnessTransform(0.0)(np.array([[7]], np.uint8)).tolist()
    [[7]]
    """

    _adjust = staticmethod(F.adjust_brightness)


class ContrastTransform(_ColorTransform):
    """Scales the contrast by a factor drawn from [max(0, 1 - value), 1 + value]
    (or from a (min, max) ``value``); see :func:`functional.adjust_contrast`.

    >>> _ = eager.seed(0)
    >>> flat = np.full((2, 2, 3), 9, np.uint8)
    >>> bool((T.ContrastTransform(0.5)(flat) == flat).all())     # a flat image has no contrast to change
    True
    """

    _adjust = staticmethod(F.adjust_contrast)


class SaturationTransform(_ColorTransform):
    """Scales the saturation by a factor drawn from [max(0, 1 - value), 1 + value]
    (or from a (min, max) ``value``); see :func:`functional.adjust_saturation`.

    >>> _ = eager.seed(0)
    >>> T.SaturationTransform(0.5)(np.full((1, 1, 3), 0.5)).tolist()       # grey stays grey
    [[[0.5, 0.5, 0.5]]]
    """

    _adjust = staticmethod(F.adjust_saturation)


class HueTransform(_ColorTransform):
    """Turns the hue by a fraction of a turn drawn from [-value, value]
    (``value`` in [0, 0.5], or a (min, max) pair within [-0.5, 0.5]); see
    :func:`functional.adjust_hue`.

    >>> _ = eager.seed(0)
    >>> T.HueTransform(0.5)(np.full((1, 1, 3), 0.5)).tolist()              # grey has no hue
    [[[0.5, 0.5, 0.5]]]
    """

    _center, _bound, _clip_first_on_zero = 0.0, (-0.5, 0.5), False
    _adjust = staticmethod(F.adjust_hue)


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue changes (each as its
    transform: a number ``v`` or a (min, max) pair, 0 to leave it out) in a
    random order drawn once per call.

    >>> _ = eager.seed(0)
    >>> T.ColorJitter(0.4, 0.4, 0.4, 0.1)(np.zeros((4, 4, 3), np.uint8)).shape
    (4, 4, 3)
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.brightness, self.contrast, self.saturation, self.hue = brightness, contrast, saturation, hue
        parts = (BrightnessTransform, ContrastTransform, SaturationTransform, HueTransform)
        values = (brightness, contrast, saturation, hue)
        names = ("brightness", "contrast", "saturation", "hue")
        self._ranges = [part._range("ColorJitter", name, value) for part, name, value in zip(parts, names, values)]
        self._adjusts = [part._adjust for part in parts]

    def _get_params(self, inputs):
        order = [int(k) for k in default_generator(CPUPlace()).permutation(4)]
        return {"steps": [(k, None if self._ranges[k] is None else _uniform_in(*self._ranges[k])) for k in order]}

    def _apply_image(self, img):
        for k, factor in self.params["steps"]:
            if factor is not None:
                img = self._adjusts[k](img, factor)
        return img

    def __repr__(self):
        return (f"ColorJitter(brightness={self.brightness!r}, contrast={self.contrast!r}, "
                f"saturation={self.saturation!r}, hue={self.hue!r})")


class RandomErasing(BaseTransform):
    """With probability ``prob``, sets a random box of the image to ``value``
    (a number, one value per channel, or 'random' for standard normal values).
    The box covers a fraction of the area drawn from ``scale`` and has a
    height / width ratio drawn log-uniformly from ``ratio``; after 10 draws
    that do not fit inside the image nothing is erased (as Paddle). NumPy
    images are HWC, Tensors CHW (the usual place is after ToTensor and
    Normalize). ``inplace`` writes into the input.

    >>> _ = eager.seed(0)
    >>> out = T.RandomErasing(prob=1.0, value=9)(np.zeros((8, 8, 3), np.uint8))
    >>> bool((out == 9).any()) and set(np.unique(out)) <= {0, 9}
    True
    """

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False, keys=None):
        super().__init__(keys)
        self.prob = _check_prob("RandomErasing", prob)
        self.scale = _check_range("RandomErasing", "scale", scale)
        if self.scale[1] > 1:
            raise ValueError(f"RandomErasing: argument 'scale' expected a (min, max) pair within [0, 1], got {scale!r}")
        self.ratio = _check_range("RandomErasing", "ratio", ratio, positive=True)
        if isinstance(value, str):
            if value != "random":
                raise ValueError(f"RandomErasing: argument 'value' expected a number, a sequence of 1 or 3 numbers "
                                 f"or 'random', got {value!r}")
        elif isinstance(value, (list, tuple)):
            if len(value) not in (1, 3) or not all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                                                   for v in value):
                raise ValueError(f"RandomErasing: argument 'value' expected a number, a sequence of 1 or 3 numbers "
                                 f"or 'random', got {value!r}")
        elif isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError(f"RandomErasing: argument 'value' expected a number, a sequence of 1 or 3 numbers "
                             f"or 'random', got {value!r}")
        self.value, self.inplace = value, bool(inplace)

    def _get_params(self, inputs, attempts=10):
        if not _uniform() < self.prob:
            return {"box": None}
        img = self._first_image(inputs)
        height, width = F._image_hw("RandomErasing", img, batch=True)
        area = height * width
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(attempts):
            erase_area = _uniform_in(*self.scale) * area
            aspect = math.exp(_uniform_in(*log_ratio))
            h = int(round(math.sqrt(erase_area * aspect)))
            w = int(round(math.sqrt(erase_area / aspect)))
            if 0 < h < height and 0 < w < width:
                noise = None
                if self.value == "random":
                    channels = (int(img.shape[-3]) if isinstance(img, Tensor)
                                else (1 if np.ndim(img) == 2 else int(np.shape(img)[2])))
                    noise = default_generator(CPUPlace()).standard_normal((h, w, channels))
                return {"box": (_randint(0, height - h), _randint(0, width - w), h, w), "noise": noise}
        return {"box": None}

    def _apply_image(self, img):
        box = self.params["box"]
        if box is None:
            return img
        value = self.value
        if value == "random":
            noise = self.params["noise"]
            value = noise.transpose(2, 0, 1) if isinstance(img, Tensor) else noise
            if not isinstance(img, Tensor) and np.ndim(img) == 2:
                value = noise[:, :, 0]
        return F.erase(img, *box, value, self.inplace)



def _check_degrees(name: str, arg: str, value, sizes=(2,)) -> tuple:
    """A number ``d`` as (-d, d), or a sequence of ``sizes`` numbers, each pair (min, max)."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if not value >= 0:
            raise ValueError(f"{name}: argument '{arg}' expected a number >= 0 or a sequence of {sizes} numbers, "
                             f"got {value!r}")
        return (-float(value), float(value))
    if isinstance(value, (list, tuple)) and len(value) in sizes:
        pairs = [_check_range(name, arg, tuple(value[k:k + 2]), low=-math.inf) for k in range(0, len(value), 2)]
        return tuple(v for pair in pairs for v in pair)
    raise ValueError(f"{name}: argument '{arg}' expected a number >= 0 or a sequence of {' or '.join(map(str, sizes))} "
                     f"numbers, got {value!r}")


class RandomAffine(BaseTransform):
    """A random :func:`functional.affine`: an angle drawn from ``degrees``
    (``d`` for (-d, d), or (min, max); clockwise), a shift up to
    ``translate`` = (fx, fy) of the width and height (whole pixels), a scale
    from ``scale`` = (min, max), and shears from ``shear`` (``s`` for an x
    shear in (-s, s), (min, max) for x, or (xmin, xmax, ymin, ymax)); all
    drawn once per call. A 'mask' key is warped with 'nearest'.

    >>> _ = eager.seed(0)
    >>> T.RandomAffine(15, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5)(np.zeros((8, 8, 3), np.uint8)).shape
    (8, 8, 3)
    """

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation="nearest", fill=0,
                 center=None, keys=None):
        super().__init__(keys)
        self.degrees = _check_degrees("RandomAffine", "degrees", degrees)
        if translate is not None:
            fractions = F._number_pair("RandomAffine", "translate", translate)
            if not all(0.0 <= t <= 1.0 for t in fractions):
                raise ValueError(f"RandomAffine: argument 'translate' expected two fractions in [0, 1], "
                                 f"got {translate!r}")
            translate = fractions
        self.translate = translate
        self.scale = None if scale is None else _check_range("RandomAffine", "scale", scale, positive=True)
        self.shear = None if shear is None else _check_degrees("RandomAffine", "shear", shear, sizes=(2, 4))
        F._check_interpolation("RandomAffine", interpolation)
        if center is not None:
            F._number_pair("RandomAffine", "center", center)
        self.interpolation, self.fill, self.center = interpolation, fill, center

    def _get_params(self, inputs):
        angle = _uniform_in(*self.degrees)
        tx = ty = 0
        if self.translate is not None:
            height, width = F._image_hw("RandomAffine", self._first_image(inputs), batch=True)
            max_dx, max_dy = self.translate[0] * width, self.translate[1] * height
            tx, ty = int(round(_uniform_in(-max_dx, max_dx))), int(round(_uniform_in(-max_dy, max_dy)))
        scale = 1.0 if self.scale is None else _uniform_in(*self.scale)
        shear = [0.0, 0.0]
        if self.shear is not None:
            shear[0] = _uniform_in(*self.shear[:2])
            if len(self.shear) == 4:
                shear[1] = _uniform_in(*self.shear[2:])
        return {"angle": angle, "translate": (tx, ty), "scale": scale, "shear": tuple(shear)}

    def _warp(self, img, interpolation):
        p = self.params
        return F.affine(img, p["angle"], p["translate"], p["scale"], p["shear"], interpolation, self.fill,
                        self.center)

    def _apply_image(self, img):
        return self._warp(img, self.interpolation)

    def _apply_mask(self, mask):
        return self._warp(mask, "nearest")


class RandomPerspective(BaseTransform):
    """With probability ``prob``, a :func:`functional.perspective` that moves
    each corner of the image inwards by a whole number of pixels drawn
    uniformly from 0 to ``distortion_scale`` times half the width (and
    height); drawn once per call. A 'mask' key is warped with 'nearest'.

    >>> T.RandomPerspective(prob=0.0)(np.ones((4, 4))).tolist() == np.ones((4, 4)).tolist()
    True
    """

    def __init__(self, prob=0.5, distortion_scale=0.5, interpolation="nearest", fill=0, keys=None):
        super().__init__(keys)
        self.prob = _check_prob("RandomPerspective", prob)
        if (isinstance(distortion_scale, bool) or not isinstance(distortion_scale, numbers.Real)
                or not 0.0 <= distortion_scale <= 1.0):
            raise ValueError(f"RandomPerspective: argument 'distortion_scale' expected a number in [0, 1], "
                             f"got {distortion_scale!r}")
        F._check_interpolation("RandomPerspective", interpolation)
        self.distortion_scale, self.interpolation, self.fill = float(distortion_scale), interpolation, fill

    def _get_params(self, inputs):
        if not _uniform() < self.prob:
            return {"points": None}
        height, width = F._image_hw("RandomPerspective", self._first_image(inputs), batch=True)
        dx, dy = int(self.distortion_scale * (width // 2)), int(self.distortion_scale * (height // 2))
        start = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        inward = [(1, 1), (-1, 1), (-1, -1), (1, -1)]
        end = [[x + sx * _randint(0, dx), y + sy * _randint(0, dy)] for (x, y), (sx, sy) in zip(start, inward)]
        return {"points": (start, end)}

    def _warp(self, img, interpolation):
        if self.params["points"] is None:
            return img
        return F.perspective(img, *self.params["points"], interpolation, self.fill)

    def _apply_image(self, img):
        return self._warp(img, self.interpolation)

    def _apply_mask(self, mask):
        return self._warp(mask, "nearest")


__all__ = ["BaseTransform", "BrightnessTransform", "CenterCrop", "ColorJitter", "Compose", "ContrastTransform",
           "Grayscale", "HueTransform", "Normalize", "Pad", "RandomAffine", "RandomCrop", "RandomErasing",
           "RandomHorizontalFlip", "RandomPerspective", "RandomResizedCrop", "RandomRotation", "RandomVerticalFlip",
           "Resize", "SaturationTransform", "ToTensor", "Transpose"]
