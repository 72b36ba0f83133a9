"""InferMeta of ops with one tensor input."""
from __future__ import annotations

import math

from ..common.data_type import INTEGER_TYPES, DataType, convert_dtype
from ..core.errors import InvalidArgumentError
from .checks import check_in_float_range, check_representable, check_result_shape, normalize_axes, normalize_axis


def unchanged_infer_meta(x, out) -> None:
    """out has x's dims, dtype and layout."""
    out.dims = x.dims
    out.dtype = x.dtype
    out.layout = x.layout


def cast_infer_meta(x, dtype, out) -> None:
    out.share_meta(x)
    out.dtype = convert_dtype(dtype)


def reduce_infer_meta(x, axis, keepdim, out) -> None:
    """Reduction over ``axis`` (all when empty); reduced dims kept as 1 with keepdim."""
    dims = tuple(x.dims)
    axes = normalize_axes("axis", axis, len(dims))
    if keepdim:
        out.dims = tuple(1 if i in axes else d for i, d in enumerate(dims))
    else:
        out.dims = tuple(d for i, d in enumerate(dims) if i not in axes)
    out.dtype = x.dtype
    out.layout = x.layout


def mean_infer_meta(x, axis, keepdim, out) -> None:
    """As reduce_infer_meta; the mean of bool or integer values is float32, as in
    Paddle 3 (Paddle 2 truncated it to an integer)."""
    reduce_infer_meta(x, axis, keepdim, out)
    if x.dtype is DataType.BOOL or x.dtype in INTEGER_TYPES:
        out.dtype = DataType.FLOAT32


def sum_infer_meta(x, axis, dtype, keepdim, out) -> None:
    """As reduce_infer_meta; dtype, when given, is the result's dtype. Without it,
    Paddle's SumRawInferMeta rule: bool and int32 sums are int64, every other dtype
    (int8, uint8 and int16 too, which wrap on overflow) keeps its own."""
    reduce_infer_meta(x, axis, keepdim, out)
    if dtype is not None:
        out.dtype = convert_dtype(dtype)
    elif x.dtype is DataType.BOOL or x.dtype is DataType.INT32:
        out.dtype = DataType.INT64


def reshape_infer_meta(x, shape, out) -> None:
    """Resolves one -1 and any 0 (copy of x's dim at that position) in shape."""
    dims = tuple(x.dims)
    numel = 1
    for d in dims:
        numel *= d
    resolved, unknown = [], None
    for i, s in enumerate(shape):
        if s == -1:
            if unknown is not None:
                raise InvalidArgumentError(
                    f"argument 'shape' may contain -1 only once, got {list(shape)}"
                )
            unknown = i
            resolved.append(1)
        elif s == 0:
            if i >= len(dims):
                raise InvalidArgumentError(
                    f"argument 'shape' has 0 at position {i}, which copies x's dimension "
                    f"there, but x has shape {list(dims)}"
                )
            resolved.append(dims[i])
        elif s < 0:
            raise InvalidArgumentError(
                f"argument 'shape' expected sizes >= 0 or a single -1, got {list(shape)}"
            )
        else:
            resolved.append(s)
    known = 1
    for s in resolved:
        known *= s
    if unknown is not None:
        if known == 0 or numel % known:
            raise InvalidArgumentError(
                f"argument 'shape' {list(shape)} cannot hold x of shape {list(dims)} "
                f"({numel} elements)"
            )
        resolved[unknown] = numel // known
    elif known != numel:
        raise InvalidArgumentError(
            f"argument 'shape' {list(shape)} has {known} elements but x of shape "
            f"{list(dims)} has {numel}"
        )
    out.dims = tuple(resolved)
    out.dtype = x.dtype
    out.layout = x.layout
    check_result_shape("shape", out.dims, out.dtype)


def transpose_infer_meta(x, perm, out) -> None:
    dims = tuple(x.dims)
    ndim = len(dims)
    normalized = [p + ndim if p < 0 else p for p in perm]
    if sorted(normalized) != list(range(ndim)):
        raise InvalidArgumentError(
            f"argument 'perm' expected a permutation of {list(range(ndim))} for x of "
            f"shape {list(dims)}, got {list(perm)}"
        )
    out.dims = tuple(dims[p] for p in normalized)
    out.dtype = x.dtype
    out.layout = x.layout


def create_like_infer_meta(x, dtype, out) -> None:
    out.share_meta(x)
    if dtype is not None:
        out.dtype = convert_dtype(dtype)


def full_like_infer_meta(x, fill_value, dtype, out) -> None:
    """x's meta (or dtype), filled with ``fill_value``, which must fit the dtype:
    as Paddle's full_like, a finite real beyond a floating dtype's range is
    refused rather than stored as inf (inf and nan themselves are taken), and a
    bool out takes finite values in [0, 1] only (Paddle's full_like checks the range of
    every target type, which nan and inf pass: they are True; full does not check)."""
    create_like_infer_meta(x, dtype, out)
    check_representable("fill_value", fill_value, out.dtype)
    check_in_float_range("fill_value", fill_value, out.dtype)
    value = getattr(fill_value, "real", fill_value)
    if out.dtype is DataType.BOOL and math.isfinite(value) and not 0 <= value <= 1:
        raise InvalidArgumentError(f"argument 'fill_value' expected a number in [0, 1] for dtype {out.dtype}, "
                                   f"got {fill_value!r}")


def expand_infer_meta(x, shape, out) -> None:
    """x broadcast to shape: as many dimensions as x or more, each equal to x's,
    or -1 (keep x's), or any size where x has 1."""
    dims, shape = tuple(x.dims), tuple(shape)
    if len(shape) < len(dims):
        raise InvalidArgumentError(
            f"argument 'shape' {list(shape)} has fewer dimensions than x {list(dims)}")
    lead = len(shape) - len(dims)
    target = []
    for i, size in enumerate(shape):
        have = dims[i - lead] if i >= lead else None
        if size == -1:
            if have is None:
                raise InvalidArgumentError(
                    f"argument 'shape' {list(shape)}: -1 at new dimension {i} has no size of x to keep")
            size = have
        elif size < 0:
            raise InvalidArgumentError(f"argument 'shape' expected sizes >= 0 or -1, got {list(shape)}")
        elif have is not None and have not in (1, size):
            raise InvalidArgumentError(
                f"argument 'shape' {list(shape)} cannot expand x of shape {list(dims)}: dimension "
                f"{i} is {have} in x and {size} in shape (only size-1 dimensions expand)")
        target.append(size)
    out.dims = tuple(target)
    out.dtype = x.dtype
    out.layout = x.layout
    check_result_shape("shape", out.dims, out.dtype)


def softmax_infer_meta(x, axis, out) -> None:
    """softmax / log_softmax: a floating x, a valid axis; out is shaped like x."""
    if not x.dtype.is_floating_point:
        raise InvalidArgumentError(f"argument 'x' expected a floating-point tensor, got {x.dtype}")
    normalize_axis("axis", axis, len(x.dims))
    unchanged_infer_meta(x, out)


def one_hot_infer_meta(x, num_classes, out) -> None:
    """Integer class indices x -> float32 one-hot vectors, classes last."""
    if x.dtype not in INTEGER_TYPES:
        raise InvalidArgumentError(f"argument 'x' expected an integer tensor of class indices, got {x.dtype}")
    if num_classes < 1:
        raise InvalidArgumentError(f"argument 'num_classes' expected an int >= 1, got {num_classes}")
    out.dims = tuple(x.dims) + (num_classes,)
    out.dtype = DataType.FLOAT32
    out.layout = x.layout
