"""Argument checks shared by eager.geometric's functions: node and edge index tensors,
out_size, and the message / reduce choices. A private module: it holds no rule.

Index values are read on the host (a conversion point): they decide the output's
shape and are range-checked before any op runs, so a bad index never reaches a kernel.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..composite import _paddle_api as _check
from ..errors import ArgumentKindError
from ..tensor import Tensor

REDUCE_OPS = ("sum", "mean", "max", "min")
MESSAGE_OPS = ("add", "sub", "mul", "div")
_VALUE_DTYPES = ("float16", "float32", "float64", "int32", "int64")


def values(op: str, arg: str, value) -> Tensor:
    """A Tensor of at least one dimension whose dtype the graph functions take."""
    _check.tensor(op, arg, value)
    if value.dtype.value not in _VALUE_DTYPES:
        raise TypeError(f"{op}: argument '{arg}' expected a float16, float32, float64, int32 or int64 "
                        f"Tensor, got {value.dtype}")
    if len(value.shape) == 0:
        raise ValueError(f"{op}: argument '{arg}' expected a Tensor of at least 1 dimension, got a 0-d Tensor")
    return value


def index(op: str, arg: str, value, column: bool = False) -> np.ndarray:
    """A 1-d int32/int64 Tensor's values on the host, as a 1-d int64 array; with
    ``column`` also an [N, 1] one (as the InferMeta of Paddle's segment_pool and
    send_* ops allow)."""
    _check.tensor(op, arg, value)
    if value.dtype.value not in ("int32", "int64"):
        # Paddle's kernels raise ValueError for ids of another dtype (segment_ids, dst_index): both
        raise ArgumentKindError(f"{op}: argument '{arg}' expected an int32 or int64 Tensor, got {value.dtype}")
    if len(value.shape) != 1 and not (column and len(value.shape) == 2 and value.shape[1] == 1):
        wanted = "a 1-d Tensor (or [N, 1])" if column else "a 1-d Tensor"
        raise ValueError(f"{op}: argument '{arg}' expected {wanted}, got shape {list(value.shape)}")
    return value.numpy().reshape(-1).astype(np.int64)  # a conversion point: index values


def in_range(op: str, arg: str, positions: np.ndarray, size: int, what: str) -> None:
    """IndexError unless every position lies in [0, size)."""
    if positions.size and (positions.min() < 0 or positions.max() >= size):
        bad = positions[(positions < 0) | (positions >= size)][0]
        raise IndexError(f"{op}: argument '{arg}' holds {bad}, outside [0, {size}) for {what}")


def same_length(op: str, src: np.ndarray, dst: np.ndarray) -> None:
    if src.shape != dst.shape:
        raise ValueError(f"{op}: arguments 'src_index' and 'dst_index' expected the same shape, got "
                         f"{list(src.shape)} and {list(dst.shape)}")


def out_size(op: str, value, default: int, dst: np.ndarray) -> int:
    """The output's row count: ``default`` when out_size is None or <= 0 (as Paddle),
    else out_size, which must exceed every destination index."""
    if value is None:
        return default
    if isinstance(value, Tensor):
        if not value.dtype.is_integer or value.size != 1:
            raise TypeError(f"{op}: argument 'out_size' expected an int or a one-element integer Tensor, "
                            f"got a {value.dtype} Tensor of shape {list(value.shape)}")
        value = int(value.numpy().reshape(-1)[0])  # a conversion point: a shape
    elif not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{op}: argument 'out_size' expected an int, a one-element integer Tensor or None, "
                        f"got {type(value).__name__} {value!r}")
    value = int(value)
    if value <= 0:
        return default
    if dst.size and dst.max() >= value:
        raise ValueError(f"{op}: argument 'out_size' expected at least max(dst_index) + 1 = "
                         f"{int(dst.max()) + 1}, got {value}")
    return value
