"""InferMeta of the gather scatter ops (group gather_scatter of phi/kernels).

Index tensors must be int32 or int64 (Paddle's index dtypes). Whether the index
*values* are in range depends on the data, so the kernels check that, before
they compute or write anything (phi/kernels/gather_scatter.py).
"""
from __future__ import annotations

from ..common.data_type import DataType
from ..core.errors import AssertedAxisError, AxisError, InvalidArgumentError
from ..core.meta_tensor import MetaTensor
from .checks import broadcast_dims, check_result_shape, normalize_axis

__all__ = [
    "gather_infer_meta", "gather_grad_infer_meta", "take_along_axis_infer_meta", "masked_fill_infer_meta",
    "masked_fill_grad_infer_meta", "masked_select_infer_meta", "scatter_infer_meta", "scatter_grad_infer_meta",
    "scatter_nd_add_infer_meta", "scatter_nd_add_grad_infer_meta", "scatter_nd_infer_meta", "gather_nd_infer_meta",
    "put_along_axis_infer_meta", "put_along_axis_grad_infer_meta", "index_add_infer_meta",
    "index_add_grad_infer_meta", "nonzero_infer_meta", "index_put_infer_meta", "index_put_grad_infer_meta",
    "masked_scatter_infer_meta", "masked_scatter_grad_infer_meta", "take_along_axis_grad_infer_meta",
    "masked_select_grad_infer_meta", "scatter_nd_grad_infer_meta", "gather_nd_grad_infer_meta",
]

_INDEX_TYPES = (DataType.INT32, DataType.INT64)
PUT_ALONG_AXIS_REDUCTIONS = ("assign", "add", "mul", "multiply", "mean", "amin", "amax")


def _require_index(arg: str, index) -> None:
    if index.dtype not in _INDEX_TYPES:
        raise InvalidArgumentError(f"argument '{arg}' expected an int32 or int64 tensor of indices, got {index.dtype}")


def _require_bool(arg: str, mask) -> None:
    if mask.dtype is not DataType.BOOL:
        raise InvalidArgumentError(f"argument '{arg}' expected a bool tensor, got {mask.dtype}")


def _require_same_dtype(arg: str, value, x, x_name: str = "x") -> None:
    if value.dtype is not x.dtype:
        raise InvalidArgumentError(
            f"argument '{arg}' expected dtype {x.dtype} (that of {x_name}), got {value.dtype}; cast it with .astype()")


def _set(out, dims, like) -> None:
    out.dims, out.dtype, out.layout = tuple(dims), like.dtype, like.layout


def _vector_index_length(arg: str, index, allow_scalar: bool) -> int | None:
    """Length of a 1-D index ([N, 1] counts as [N], as Paddle allows); None for a 0-d one."""
    dims = tuple(index.dims)
    if len(dims) == 1:
        return dims[0]
    if len(dims) == 2 and dims[1] == 1:
        return dims[0]
    if len(dims) == 0 and allow_scalar:
        return None
    expected = "a 0-d or 1-d" if allow_scalar else "a 1-d"
    raise InvalidArgumentError(f"argument '{arg}' expected {expected} index tensor (or [N, 1]), got shape {list(dims)}")


def gather_infer_meta(x, index, axis, out) -> None:
    """x.shape with dimension axis replaced by index's length (removed for a 0-d index)."""
    _require_index("index", index)
    dims = tuple(x.dims)
    if not dims:
        # Paddle's axis check raises IndexError (OutOfRange) here: AxisError is that and a ValueError
        raise AxisError("argument 'x' expected at least one dimension to gather from, got a 0-d tensor")
    a = normalize_axis("axis", axis, len(dims))
    n = _vector_index_length("index", index, allow_scalar=True)
    _set(out, dims[:a] + (() if n is None else (n,)) + dims[a + 1:], x)


def gather_grad_infer_meta(x, index, out_grad, axis, x_grad) -> None:
    """Shaped like x; out_grad must be what gather(x, index, axis) gives."""
    expected = MetaTensor()
    gather_infer_meta(x, index, axis, expected)
    _require_result("out_grad", out_grad, expected)
    _set(x_grad, x.dims, out_grad)


def _require_result(arg: str, got, expected) -> None:
    if tuple(got.dims) != tuple(expected.dims) or got.dtype is not expected.dtype:
        raise InvalidArgumentError(
            f"argument '{arg}' expected {expected.dtype}{list(expected.dims)} (the forward op's result), "
            f"got {got.dtype}{list(got.dims)}")


def _along_axis_shapes(arr, indices, axis, broadcast, arg="indices"):
    """(arr's shape after broadcasting, indices' shape after broadcasting, the axis), as Paddle:
    both have one rank; off the axis they broadcast together (broadcast=True) or indices
    must be no larger than arr (broadcast=False); along the axis each keeps its own size."""
    _require_index(arg, indices)
    a_dims, i_dims = tuple(arr.dims), tuple(indices.dims)
    if len(a_dims) != len(i_dims):
        raise InvalidArgumentError(
            f"argument '{arg}' expected as many dimensions as arr ({len(a_dims)}), got shape {list(i_dims)}")
    if not a_dims:
        # Paddle asserts the axis's range, empty for a 0-d arr
        raise AssertedAxisError("argument 'arr' expected at least one dimension, got a 0-d tensor")
    try:
        a = normalize_axis("axis", axis, len(a_dims))
    except AxisError as e:  # Paddle asserts the axis's range
        raise AssertedAxisError(str(e)) from None
    if not broadcast:
        for d, (m, n) in enumerate(zip(a_dims, i_dims)):
            if d != a and n > m:
                raise InvalidArgumentError(
                    f"argument '{arg}' of shape {list(i_dims)} is larger than arr {list(a_dims)} in dimension {d} "
                    f"(broadcast=False)")
        return a_dims, i_dims, a
    off_a = a_dims[:a] + (1,) + a_dims[a + 1:]
    off_i = i_dims[:a] + (1,) + i_dims[a + 1:]
    common = broadcast_dims("arr", off_a, arg, off_i)
    return (common[:a] + (a_dims[a],) + common[a + 1:], common[:a] + (i_dims[a],) + common[a + 1:], a)


def take_along_axis_infer_meta(arr, indices, axis, broadcast, out) -> None:
    """The shape of indices (after broadcasting with arr off the axis), arr's dtype."""
    _, i_dims, _ = _along_axis_shapes(arr, indices, axis, broadcast)
    check_result_shape("indices", i_dims, arr.dtype)
    _set(out, i_dims, arr)


def _broadcasts_to(arg: str, dims, target) -> None:
    try:
        fits = broadcast_dims(arg, dims, "x", target) == tuple(target)
    except InvalidArgumentError:
        fits = False
    if not fits:
        raise InvalidArgumentError(
            f"argument '{arg}' of shape {list(dims)} expected to broadcast to x's shape {list(target)}")


def masked_fill_infer_meta(x, mask, value, out) -> None:
    """x's dtype; x, mask (bool) and value (x's dtype) broadcast together, as Paddle
    2.6.2's where(~mask, x, value) (a mask larger than x gives the larger shape)."""
    _require_bool("mask", mask)
    _require_same_dtype("value", value, x)
    dims = tuple(x.dims)
    if tuple(mask.dims) != dims:
        dims = broadcast_dims("x", dims, "mask", mask.dims)
    _broadcasts_to("value", value.dims, dims)
    check_result_shape("mask", dims, x.dtype)
    _set(out, dims, x)


def masked_fill_grad_infer_meta(x, value, out_grad, x_grad, value_grad) -> None:
    """Gradients shaped like x and value; out_grad of x's dtype, x broadcast to its shape."""
    if out_grad.dtype is not x.dtype or tuple(out_grad.dims) != tuple(x.dims):
        _require_same_dtype("out_grad", out_grad, x)
        try:
            fits = broadcast_dims("x", x.dims, "out_grad", out_grad.dims) == tuple(out_grad.dims)
        except InvalidArgumentError:
            fits = False
        if not fits:
            raise InvalidArgumentError(
                f"argument 'out_grad' of shape {list(out_grad.dims)} is not the forward op's result for x of "
                f"shape {list(x.dims)} (x broadcast with mask)")
    _set(x_grad, x.dims, out_grad)
    _set(value_grad, value.dims, out_grad)


def masked_select_infer_meta(x, mask, out) -> None:
    """A 1-d tensor of x's dtype; its length (the number of True in the broadcast mask)
    is known only from the values, so dims stay unset."""
    _require_bool("mask", mask)
    broadcast_dims("x", x.dims, "mask", mask.dims)
    out.dims, out.dtype, out.layout = None, x.dtype, x.layout


def scatter_infer_meta(x, index, updates, overwrite, out) -> None:
    """x's shape; updates is [len(index)] + x.shape[1:] (x.shape[1:] for a 0-d index)."""
    _require_index("index", index)
    _require_same_dtype("updates", updates, x)
    dims = tuple(x.dims)
    if not dims:
        raise InvalidArgumentError("argument 'x' expected at least one dimension, got a 0-d tensor")
    n = _vector_index_length("index", index, allow_scalar=True)
    expected = dims[1:] if n is None else (n,) + dims[1:]
    if tuple(updates.dims) != expected:
        raise InvalidArgumentError(
            f"argument 'updates' expected shape {list(expected)} (index's length, then x's trailing dimensions), "
            f"got {list(updates.dims)}")
    _set(out, dims, x)


def scatter_grad_infer_meta(index, updates, out_grad, x_grad, updates_grad) -> None:
    """Gradients shaped like out_grad (for x) and updates."""
    _require_index("index", index)
    _set(x_grad, out_grad.dims, out_grad)
    _set(updates_grad, updates.dims, out_grad)


def _nd_updates_dims(x_dims, index, arg="index") -> tuple:
    """index.shape[:-1] + x.shape[index.shape[-1]:]: what gather_nd gives and scatter_nd takes."""
    _require_index(arg, index)
    i_dims = tuple(index.dims)
    if not i_dims:
        raise InvalidArgumentError(f"argument '{arg}' expected at least one dimension (the last holds coordinates), "
                                   f"got a 0-d tensor")
    k = i_dims[-1]
    if k > len(x_dims):
        raise InvalidArgumentError(
            f"argument '{arg}' has coordinates of length {k} (its last dimension) but x has only "
            f"{len(x_dims)} dimensions")
    return i_dims[:-1] + tuple(x_dims)[k:]


def scatter_nd_add_infer_meta(x, index, updates, out) -> None:
    """x's shape; updates is index.shape[:-1] + x.shape[index.shape[-1]:]."""
    _require_same_dtype("updates", updates, x)
    expected = _nd_updates_dims(x.dims, index)
    if tuple(updates.dims) != expected:
        raise InvalidArgumentError(
            f"argument 'updates' expected shape {list(expected)} (index.shape[:-1] + x.shape[index.shape[-1]:]), "
            f"got {list(updates.dims)}")
    _set(out, x.dims, x)


def scatter_nd_add_grad_infer_meta(index, updates, out_grad, x_grad, updates_grad) -> None:
    """Gradients shaped like out_grad (for x) and updates."""
    _require_index("index", index)
    _set(x_grad, out_grad.dims, out_grad)
    _set(updates_grad, updates.dims, out_grad)


def scatter_nd_infer_meta(index, updates, shape, out) -> None:
    """A tensor of the given shape and updates' dtype."""
    if any(d < 0 for d in shape):
        raise InvalidArgumentError(f"argument 'shape' expected sizes >= 0, got {list(shape)}")
    check_result_shape("shape", shape, updates.dtype)
    expected = _nd_updates_dims(tuple(shape), index)
    if tuple(updates.dims) != expected:
        raise InvalidArgumentError(
            f"argument 'updates' expected shape {list(expected)} (index.shape[:-1] + shape[index.shape[-1]:]), "
            f"got {list(updates.dims)}")
    _set(out, shape, updates)


def gather_nd_infer_meta(x, index, out) -> None:
    """index.shape[:-1] + x.shape[index.shape[-1]:]."""
    dims = _nd_updates_dims(x.dims, index)
    check_result_shape("index", dims, x.dtype)
    _set(out, dims, x)


def put_along_axis_infer_meta(arr, indices, values, axis, reduce, include_self, broadcast, out) -> None:
    """arr's shape; values (arr's dtype) broadcast to the indices' shape."""
    _require_same_dtype("values", values, arr, "arr")
    if reduce not in PUT_ALONG_AXIS_REDUCTIONS:
        raise InvalidArgumentError(f"argument 'reduce' expected one of {list(PUT_ALONG_AXIS_REDUCTIONS)}, "
                                   f"got {reduce!r}")
    if reduce in ("amin", "amax") and arr.dtype.is_complex:
        raise InvalidArgumentError(f"argument 'reduce' {reduce!r} needs ordered values, got a {arr.dtype} arr")
    a_dims, i_dims, _ = _along_axis_shapes(arr, indices, axis, broadcast)
    if broadcast and a_dims != tuple(arr.dims):
        raise InvalidArgumentError(
            f"argument 'indices' of shape {list(indices.dims)} would broadcast arr {list(arr.dims)} to "
            f"{list(a_dims)}; the result must keep arr's shape")
    try:
        fits = broadcast_dims("values", values.dims, "indices", i_dims) == i_dims
    except InvalidArgumentError:
        fits = False
    if not fits:
        raise InvalidArgumentError(
            f"argument 'values' of shape {list(values.dims)} expected to broadcast to the indices' shape "
            f"{list(i_dims)}")
    _set(out, arr.dims, arr)


def put_along_axis_grad_infer_meta(arr, indices, values, out, out_grad, axis, reduce, include_self, broadcast,
                                   arr_grad, values_grad) -> None:
    """Gradients shaped like arr and values; out_grad must be arr-shaped."""
    _require_result("out_grad", out_grad, arr)
    _set(arr_grad, arr.dims, out_grad)
    _set(values_grad, values.dims, out_grad)


def _index_add_value_dims(x, index, axis):
    _require_index("index", index)
    dims = tuple(x.dims)
    a = normalize_axis("axis", axis, len(dims))
    if len(tuple(index.dims)) != 1:
        raise InvalidArgumentError(f"argument 'index' expected a 1-d index tensor, got shape {list(index.dims)}")
    return (dims[:a] + (index.dims[0],) + dims[a + 1:]) if dims else ()


def index_add_infer_meta(x, index, value, axis, out) -> None:
    """x's shape; value is x's shape with dimension axis of index's length."""
    _require_same_dtype("value", value, x)
    if not tuple(x.dims):  # Paddle's axis check: IndexError (OutOfRange)
        raise AxisError("argument 'x' expected at least one dimension, got a 0-d tensor")
    expected = _index_add_value_dims(x, index, axis)
    if tuple(value.dims) != expected:
        raise InvalidArgumentError(
            f"argument 'value' expected shape {list(expected)} (x's with dimension {axis} of index's length), "
            f"got {list(value.dims)}")
    _set(out, x.dims, x)


def index_add_grad_infer_meta(index, value, out_grad, axis, x_grad, value_grad) -> None:
    """Gradients shaped like out_grad (for x) and value."""
    _require_index("index", index)
    _set(x_grad, out_grad.dims, out_grad)
    _set(value_grad, value.dims, out_grad)


def nonzero_infer_meta(x, out) -> None:
    """[count, x.ndim] int64; the count is known only from the values."""
    out.dims, out.dtype, out.layout = None, DataType.INT64, x.layout


def _indexed_region(x, indices) -> tuple:
    """The shape x[indices] has (NumPy advanced indexing: integer index tensors broadcast
    together; a bool tensor stands for the coordinates of its True entries)."""
    dims = tuple(x.dims)
    if not indices:
        raise InvalidArgumentError("argument 'indices' expected at least one index tensor, got none")
    consumed = 0
    shapes = []
    for k, index in enumerate(indices):
        if index.dtype is DataType.BOOL:
            n = len(tuple(index.dims))
            if tuple(index.dims) != dims[consumed:consumed + n]:
                raise InvalidArgumentError(
                    f"argument 'indices' element {k}: a bool mask of shape {list(index.dims)} expected the shape "
                    f"of the dimensions it indexes, {list(dims[consumed:consumed + n])}")
            consumed += n
            shapes.append(None)  # its length is the count of True: known from the values only
        elif index.dtype in _INDEX_TYPES:
            consumed += 1
            shapes.append(tuple(index.dims))
        else:
            raise InvalidArgumentError(
                f"argument 'indices' element {k} expected an int32, int64 or bool tensor, got {index.dtype}")
    if consumed > len(dims):
        raise InvalidArgumentError(
            f"argument 'indices' indexes {consumed} dimensions but x has only {len(dims)}")
    return shapes, consumed


def index_put_infer_meta(x, indices, value, accumulate, out) -> None:
    """x's shape and dtype; value (x's dtype, or a real floating one for a complex x, as
    Paddle 2.6 allows) must broadcast to x[indices]."""
    if value.dtype is not x.dtype and not (x.dtype.is_complex and value.dtype.is_floating_point):
        _require_same_dtype("value", value, x)
    shapes, consumed = _indexed_region(x, indices)
    if all(s is not None for s in shapes):
        try:
            region = _broadcast_many(shapes) + tuple(x.dims)[consumed:]
        except InvalidArgumentError:
            raise InvalidArgumentError(
                f"argument 'indices' holds index tensors of shapes {[list(s) for s in shapes]} that do not "
                f"broadcast together") from None
        try:
            fits = broadcast_dims("value", value.dims, "x[indices]", region) == region
        except InvalidArgumentError:
            fits = False
        if not fits:
            raise InvalidArgumentError(
                f"argument 'value' of shape {list(value.dims)} cannot be broadcast to x[indices], of shape "
                f"{list(region)}")
    _set(out, x.dims, x)


def _broadcast_many(shapes) -> tuple:
    """The broadcast of several shapes (an InvalidArgumentError if they do not broadcast)."""
    result = ()
    for shape in shapes:
        result = broadcast_dims("indices", result, "indices", shape)
    return result


def index_put_grad_infer_meta(x, indices, value, out_grad, accumulate, x_grad, value_grad) -> None:
    """Gradients shaped like x and value (a real value of a complex x gets a real one);
    out_grad must be x-shaped."""
    _require_result("out_grad", out_grad, x)
    _set(x_grad, x.dims, out_grad)
    _set(value_grad, value.dims, value if value.dtype is not out_grad.dtype else out_grad)


def masked_scatter_infer_meta(x, mask, value, out) -> None:
    """x's shape; mask (bool) broadcasts to x; value has x's dtype (enough elements is
    checked by the kernel, which counts the mask)."""
    _require_bool("mask", mask)
    _require_same_dtype("value", value, x)
    _broadcasts_to("mask", mask.dims, x.dims)
    _set(out, x.dims, x)


def masked_scatter_grad_infer_meta(x, mask, value, out_grad, x_grad, value_grad) -> None:
    """Gradients shaped like x and value; out_grad must be x-shaped."""
    _require_result("out_grad", out_grad, x)
    _set(x_grad, x.dims, out_grad)
    _set(value_grad, value.dims, out_grad)


def take_along_axis_grad_infer_meta(arr, indices, out_grad, axis, broadcast, arr_grad) -> None:
    """Shaped like arr; out_grad must be what take_along_axis gives."""
    expected = MetaTensor()
    take_along_axis_infer_meta(arr, indices, axis, broadcast, expected)
    _require_result("out_grad", out_grad, expected)
    _set(arr_grad, arr.dims, out_grad)


def masked_select_grad_infer_meta(x, mask, out_grad, x_grad) -> None:
    """Shaped like x; out_grad is 1-d of x's dtype (its length is checked against the mask by the kernel)."""
    _require_bool("mask", mask)
    if len(tuple(out_grad.dims)) != 1 or out_grad.dtype is not x.dtype:
        raise InvalidArgumentError(
            f"argument 'out_grad' expected a 1-d {x.dtype} tensor (the forward op's result), "
            f"got {out_grad.dtype}{list(out_grad.dims)}")
    _set(x_grad, x.dims, out_grad)


def scatter_nd_grad_infer_meta(index, updates, out_grad, updates_grad) -> None:
    """The gradient of updates, shaped like updates."""
    _require_index("index", index)
    _set(updates_grad, updates.dims, out_grad)


def gather_nd_grad_infer_meta(x, index, out_grad, x_grad) -> None:
    """Shaped like x; out_grad must be what gather_nd(x, index) gives."""
    expected = MetaTensor()
    gather_nd_infer_meta(x, index, expected)
    _require_result("out_grad", out_grad, expected)
    _set(x_grad, x.dims, out_grad)
