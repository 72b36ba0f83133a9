"""Image transforms (Paddle's ``paddle.vision.transforms``): callables built on
:mod:`eager.vision.transforms.functional`.

Every transform is a :class:`BaseTransform`: called on one image it returns the
transformed image; with ``keys`` (e.g. ``("image", "image")``) it is called on
a tuple and applies one draw of its random parameters to each element whose
key it knows, passing the rest through.

Randomness: the random transforms (RandomCrop, RandomHorizontalFlip,
RandomVerticalFlip) draw from eager's CPU random generator, the one
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
        elif isinstance(keys, str) or not isinstance(keys, Sequence):
            raise ValueError(f"{type(self).__name__}: argument 'keys' expected a sequence of strings, got {keys!r}")
        for key in keys:
            if not isinstance(key, str):
                raise ValueError(f"{type(self).__name__}: argument 'keys' expected strings, got {key!r}")
            if key != "label" and self._get_apply(key) is None:
                raise ValueError(f"{type(self).__name__}: key {key!r} is not supported (the transform has no "
                                 f"_apply_{key} method)")
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
        if data_format not in ("CHW", "HWC"):
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
        if data_format not in ("CHW", "HWC"):
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
        if interpolation not in F._TENSOR_INTERPOLATIONS:
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
        if padding_mode not in F._PAD_MODES:
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
        if padding_mode not in F._PAD_MODES:
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
    NumPy image gets a channel axis first. NumPy in, NumPy out; Tensor in, Tensor out.

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
        arr = F._as_array("Transpose", img)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        if arr.ndim != len(self.order):
            raise ValueError(f"Transpose: order {self.order} does not fit an image of shape {arr.shape}")
        return arr.transpose(self.order)


__all__ = ["BaseTransform", "CenterCrop", "Compose", "Normalize", "Pad", "RandomCrop", "RandomHorizontalFlip",
           "RandomVerticalFlip", "Resize", "ToTensor", "Transpose"]
