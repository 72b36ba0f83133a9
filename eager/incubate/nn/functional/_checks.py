"""Argument checks shared by eager.incubate.nn.functional: each error names
``incubate.nn.functional.<function>``, the argument, what was expected and what came."""
from __future__ import annotations

import numbers

from phi.common.data_type import FLOATING_TYPES

from ....arguments import describe, to_bool
from ....nn.functional.checks import check_number
from ....tensor import Tensor

NAMESPACE = "incubate.nn.functional"
MODES = ("upscale_in_train", "downscale_in_infer")


def who(function: str) -> str:
    return f"{NAMESPACE}.{function}"


def floating(fn: str, arg: str, value) -> Tensor:
    """A floating-point Tensor, else TypeError."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{who(fn)}: argument '{arg}' expected a Tensor, got {describe(value)}")
    if value.dtype not in FLOATING_TYPES:
        raise TypeError(f"{who(fn)}: argument '{arg}' expected a floating-point Tensor, got "
                        f"{value.dtype}{value.shape}")
    return value


def like(fn: str, arg: str, value, x: Tensor, shape=None, optional: bool = True, of: str = "x"):
    """None (when optional) or a floating Tensor of x's dtype and, when given, of
    ``shape``; ``of`` names x in the message."""
    if value is None and optional:
        return None
    floating(fn, arg, value)
    if value.dtype != x.dtype:
        raise TypeError(f"{who(fn)}: argument '{arg}' expected dtype {x.dtype} (that of {of}), got {value.dtype}")
    if shape is not None and list(value.shape) != list(shape):
        raise ValueError(f"{who(fn)}: argument '{arg}' expected shape {list(shape)}, got {value.shape}")
    return value


def ndim(fn: str, arg: str, value: Tensor, allowed) -> None:
    if value.ndim not in allowed:
        wanted = " or ".join(f"{n}-d" for n in allowed)
        raise ValueError(f"{who(fn)}: argument '{arg}' expected a {wanted} Tensor, got shape {value.shape}")


def rate(fn: str, arg: str, value) -> float:
    """A probability in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{who(fn)}: argument '{arg}' expected a float in [0, 1], got {describe(value)}")
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{who(fn)}: argument '{arg}' expected a float in [0, 1], got {value}")
    return float(value)


def number(fn: str, arg: str, value) -> float:
    return check_number(who(fn), arg, value)


def positive(fn: str, arg: str, value) -> float:
    value = check_number(who(fn), arg, value)
    if not value >= 0.0:
        raise ValueError(f"{who(fn)}: argument '{arg}' expected a number >= 0, got {value}")
    return float(value)


def flag(fn: str, arg: str, value) -> bool:
    return to_bool(value, who(fn), arg)


def mode(fn: str, value) -> str:
    if not isinstance(value, str) or value not in MODES:  # str first: an array compares elementwise
        raise ValueError(f"{who(fn)}: argument 'mode' expected 'upscale_in_train' or 'downscale_in_infer', "
                         f"got {value!r}")
    return value


def single_card(fn: str, ring_id) -> None:
    """Tensor model parallelism (ring_id >= 0) is not offered: refuse it plainly."""
    if ring_id != -1:
        raise ValueError(f"{who(fn)}: argument 'ring_id' expected -1 (eager has no tensor model "
                         f"parallelism inside fused ops), got {ring_id!r}")


def last_dim(fn: str, arg: str, value: Tensor, size: int, of: str) -> None:
    if not value.shape or value.shape[-1] != size:
        raise ValueError(f"{who(fn)}: argument '{arg}' expected a last dimension of {size} ({of}), got shape "
                         f"{value.shape}")
