"""InferMeta of the search sort ops (group search_sort of phi/kernels).

Every check that does not need the values runs here, before any kernel: the
dtype of x, the axis, k against the size of that axis, the index dtype. An
index output is int64 unless the op's ``dtype`` attribute says int32 (as in
Paddle, which accepts only those two).
"""
from __future__ import annotations

import math

from ..common.data_type import INTEGER_TYPES, DataType, convert_dtype
from ..core.errors import InvalidArgumentError, InvalidDtypeError, UnsupportedInputDtypeError
from .checks import check_result_shape, normalize_axis

__all__ = [
    "arg_min_max_infer_meta",
    "bincount_infer_meta",
    "cum_extreme_infer_meta",
    "kthvalue_infer_meta",
    "mode_infer_meta",
    "sort_infer_meta",
    "argsort_infer_meta",
    "topk_infer_meta",
    "scatter_back_grad_infer_meta",
    "unique_infer_meta",
    "searchsorted_infer_meta",
    "histogram_infer_meta",
]

_INDEX_TYPES = (DataType.INT32, DataType.INT64)


def _real_input(x) -> None:
    """Searching and sorting need an order: integers and floats, not bool or complex
    (Paddle has no kernel for them: its RuntimeError, so UnsupportedInputDtypeError)."""
    if x.dtype not in INTEGER_TYPES and not x.dtype.is_floating_point:
        raise UnsupportedInputDtypeError(
            f"argument 'x' expected an integer or floating-point tensor, got {x.dtype}")


def _index_dtype(dtype) -> DataType:
    if dtype is None:
        raise InvalidArgumentError("argument 'dtype' expected int32 or int64 (the dtype of the indices), got None")
    resolved = convert_dtype(dtype)
    if resolved not in _INDEX_TYPES:
        raise InvalidArgumentError(
            f"argument 'dtype' expected int32 or int64 (the dtype of the indices), got {resolved}")
    return resolved


def _count(dims) -> int:
    count = 1
    for d in dims:
        count *= d
    return count


def _set(meta, dims, dtype, like) -> None:
    meta.dims = tuple(dims)
    meta.dtype = dtype
    meta.layout = like.layout


def _non_empty_axis(dims, axis: int, what: str) -> None:
    if dims and dims[axis] == 0:
        raise InvalidArgumentError(
            f"argument 'x' has shape {list(dims)}: axis {axis} is empty, so it has no {what}")


def _reduced(dims, axis: int, keepdim: bool) -> tuple:
    if not dims:
        return ()
    return tuple(1 if i == axis else d for i, d in enumerate(dims)) if keepdim else \
        tuple(d for i, d in enumerate(dims) if i != axis)


def arg_min_max_infer_meta(x, axis, keepdim, dtype, out) -> None:
    """argmax / argmin: over ``axis``, or over all elements when axis is None
    (then keepdim keeps every dimension as 1, as in Paddle)."""
    _real_input(x)
    index_dtype = _index_dtype(dtype)
    dims = tuple(x.dims)
    if axis is None:
        if 0 in dims:
            raise InvalidArgumentError(
                f"argument 'x' has shape {list(dims)} and no elements, so it has no maximum or minimum")
        _fits_index_dtype(_count(dims), index_dtype)
        _set(out, (1,) * len(dims) if keepdim else (), index_dtype, x)
        return
    axis = normalize_axis("axis", axis, len(dims))
    _non_empty_axis(dims, axis, "maximum or minimum")
    _fits_index_dtype(dims[axis] if dims else 1, index_dtype)
    _set(out, _reduced(dims, axis, keepdim), index_dtype, x)


def _fits_index_dtype(count: int, index_dtype: DataType) -> None:
    if index_dtype is DataType.INT32 and count > 2 ** 31 - 1:
        raise InvalidArgumentError(
            f"argument 'dtype' is int32, but the indices run to {count - 1}, beyond int32; use int64")


def _axis_or_last(axis, ndim: int) -> int:
    return normalize_axis("axis", -1 if axis is None else axis, ndim)


def topk_infer_meta(x, k, axis, largest, sorted, out, indices) -> None:
    """topk: 1 <= k <= x.shape[axis] (axis None is the last axis); out and indices
    are x's shape with k along axis."""
    _real_input(x)
    dims = tuple(x.dims)
    axis = _axis_or_last(axis, len(dims))
    if isinstance(k, bool) or not isinstance(k, (int, float)) or (isinstance(k, float) and not k.is_integer()):
        raise InvalidArgumentError(f"argument 'k' expected an int, got {k!r}")
    k = int(k)
    size = dims[axis] if dims else 1
    if not 1 <= k <= size:
        raise InvalidArgumentError(
            f"argument 'k' expected an int in [1, {size}] (the size of axis {axis} of x, shape "
            f"{list(dims)}), got {k}")
    out_dims = tuple(k if i == axis else d for i, d in enumerate(dims))
    _set(out, out_dims, x.dtype, x)
    _set(indices, out_dims, DataType.INT64, x)


def sort_infer_meta(x, axis, descending, stable, out, indices) -> None:
    """sort: values and their int64 positions, both shaped like x."""
    argsort_infer_meta(x, axis, descending, stable, indices)
    _set(out, x.dims, x.dtype, x)


def argsort_infer_meta(x, axis, descending, stable, out) -> None:
    """argsort: int64 positions shaped like x."""
    _real_input(x)
    normalize_axis("axis", axis, len(x.dims))
    _set(out, x.dims, DataType.INT64, x)


def kthvalue_infer_meta(x, k, axis, keepdim, out, indices) -> None:
    """kthvalue: the k-th smallest (1-based) along axis (None: the last)."""
    _real_input(x)
    dims = tuple(x.dims)
    axis = _axis_or_last(axis, len(dims))
    size = dims[axis] if dims else 1
    if not 1 <= k <= size:
        raise InvalidArgumentError(
            f"argument 'k' expected an int in [1, {size}] (the size of axis {axis} of x, shape "
            f"{list(dims)}), got {k}")
    out_dims = _reduced(dims, axis, keepdim)
    _set(out, out_dims, x.dtype, x)
    _set(indices, out_dims, DataType.INT64, x)


def mode_infer_meta(x, axis, keepdim, out, indices) -> None:
    """mode: the most frequent value along axis; the axis must not be empty."""
    _real_input(x)
    dims = tuple(x.dims)
    axis = normalize_axis("axis", axis, len(dims))
    _non_empty_axis(dims, axis, "mode")
    out_dims = _reduced(dims, axis, keepdim)
    _set(out, out_dims, x.dtype, x)
    _set(indices, out_dims, DataType.INT64, x)


def cum_extreme_infer_meta(x, axis, dtype, out, indices) -> None:
    """cummax / cummin: shaped like x, or flattened to 1-D when axis is None (Paddle)."""
    _real_input(x)
    index_dtype = _index_dtype(dtype)
    dims = tuple(x.dims)
    if axis is None:
        dims = (_count(dims),)
    else:
        normalize_axis("axis", axis, len(dims))
    _fits_index_dtype(dims[axis] if dims and axis is not None else _count(dims), index_dtype)
    _set(out, dims, x.dtype, x)
    _set(indices, dims, index_dtype, x)


def scatter_back_grad_infer_meta(x, indices, out_grad, x_grad) -> None:
    """The gradient of an op that picked elements of x at ``indices``: shaped like x,
    with out_grad's dtype; indices and out_grad must agree in shape."""
    if indices.dtype not in _INDEX_TYPES:
        raise InvalidArgumentError(f"argument 'indices' expected int32 or int64, got {indices.dtype}")
    if tuple(indices.dims) != tuple(out_grad.dims):
        raise InvalidArgumentError(
            f"arguments 'indices' with shape {list(indices.dims)} and 'out_grad' with shape "
            f"{list(out_grad.dims)} expected the same shape")
    if out_grad.dtype is not x.dtype:
        raise InvalidArgumentError(
            f"argument 'out_grad' expected dtype {x.dtype} (that of x), got {out_grad.dtype}")
    _set(x_grad, x.dims, x.dtype, x)


def bincount_infer_meta(x, weights, minlength, out) -> None:
    """bincount: x a 1-D integer tensor, weights (if given) shaped like it; the
    length of out depends on x's largest value, known only to the kernel."""
    if x.dtype not in (DataType.INT32, DataType.INT64):
        raise InvalidDtypeError(f"argument 'x' expected an int32 or int64 tensor, got {x.dtype}")
    if len(x.dims) != 1:
        raise InvalidArgumentError(f"argument 'x' expected a 1-D tensor, got shape {list(x.dims)}")
    if minlength < 0:
        raise InvalidArgumentError(f"argument 'minlength' expected an int >= 0, got {minlength}")
    dtype = DataType.INT64
    if weights is not None:
        if tuple(weights.dims) != tuple(x.dims):
            raise InvalidArgumentError(
                f"argument 'weights' expected the shape of x {list(x.dims)}, got {list(weights.dims)}")
        if weights.dtype.is_floating_point:
            dtype = weights.dtype
        elif weights.dtype in INTEGER_TYPES:
            dtype = DataType.FLOAT64  # Paddle's kernel sums integer weights into doubles
        else:
            raise InvalidArgumentError(
                f"argument 'weights' expected an integer or floating-point tensor, got {weights.dtype}")
    out.dims = None
    out.dtype = dtype
    out.layout = x.layout


def unique_infer_meta(x, return_index, return_inverse, return_counts, axis, dtype,
                      out, indices, inverse, counts) -> None:
    """unique: how many distinct elements (or slices) there are is known only to the
    kernel; inverse has one entry per element of x flattened (axis None) or per
    slice along axis."""
    _real_input(x)
    index_dtype = _index_dtype(dtype)
    dims = tuple(x.dims)
    if axis is None:
        inverse_dims = (_count(dims),)
    else:
        if not dims:
            raise InvalidArgumentError(
                "argument 'axis' expected None for a 0-d x (it has no axis to take slices along), "
                f"got {axis}")
        inverse_dims = (dims[normalize_axis("axis", axis, len(dims))],)
    for meta, dtype_of in ((out, x.dtype), (indices, index_dtype), (counts, index_dtype)):
        meta.dims, meta.dtype, meta.layout = None, dtype_of, x.layout
    _set(inverse, inverse_dims, index_dtype, x)


_SEARCH_TYPES = (DataType.FLOAT32, DataType.FLOAT64, DataType.INT32, DataType.INT64)


def searchsorted_infer_meta(sorted_sequence, values, out_int32, right, out) -> None:
    """searchsorted: both tensors float32/float64/int32/int64 (Paddle's four);
    sorted_sequence 1-D (any values) or N-D with values' leading axes; out is
    values-shaped, int32 when out_int32 (its last axis must then fit an int32)."""
    for arg, tensor in (("sorted_sequence", sorted_sequence), ("values", values)):
        if tensor.dtype not in _SEARCH_TYPES:  # no Paddle kernel: its RuntimeError too
            raise UnsupportedInputDtypeError(
                f"argument '{arg}' expected a float32, float64, int32 or int64 tensor, got {tensor.dtype}")
    seq_dims, value_dims = tuple(sorted_sequence.dims), tuple(values.dims)
    if not seq_dims:
        raise InvalidArgumentError("argument 'sorted_sequence' expected at least 1 dimension, got a 0-d tensor")
    if len(seq_dims) > 1 and seq_dims[:-1] != value_dims[:-1]:
        raise InvalidArgumentError(
            f"argument 'values' expected the leading axes of sorted_sequence {list(seq_dims[:-1])} "
            f"(sorted_sequence is not 1-D), got shape {list(value_dims)}")
    if out_int32 and seq_dims[-1] >= 2 ** 31 - 1:
        raise InvalidArgumentError(
            f"argument 'out_int32' is True, but sorted_sequence's last axis ({seq_dims[-1]}) "
            "does not fit an int32 index")
    _set(out, value_dims, DataType.INT32 if out_int32 else DataType.INT64, values)


def histogram_infer_meta(input, bins, min, max, out) -> None:  # noqa: A002  (Paddle's names)
    """histogram: a float32/float64/int32/int64 input, bins >= 1, max >= min; out is int64 [bins]."""
    if input.dtype not in _SEARCH_TYPES:  # no Paddle kernel: its RuntimeError too
        raise UnsupportedInputDtypeError(
            f"argument 'input' expected a float32, float64, int32 or int64 tensor, got {input.dtype}")
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise InvalidArgumentError(f"argument 'bins' expected an int >= 1, got {bins!r}")
    for name, bound in (("min", min), ("max", max)):
        if not math.isfinite(bound):  # Paddle: "range of min, max is not finite"
            raise InvalidArgumentError(f"argument '{name}' expected a finite number, got {bound}")
    if max < min:
        raise InvalidArgumentError(f"argument 'max' expected a value >= min ({min}), got {max}")
    check_result_shape("bins", (bins,), DataType.INT64)
    _set(out, (bins,), DataType.INT64, input)
