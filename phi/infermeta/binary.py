"""InferMeta of ops with two tensor inputs."""
from __future__ import annotations

from ..common.data_type import DataType
from ..core.errors import InvalidArgumentError
from .checks import broadcast_dims, normalize_axis, same_dtype


def elementwise_infer_meta(x, y, out) -> None:
    """NumPy broadcasting of x and y, which must share a dtype."""
    dtype = x.dtype
    if dtype is not y.dtype:
        same_dtype("x", x, "y", y)  # raises with both dtypes named
    x_dims, y_dims = x.dims, y.dims
    out.dims = x_dims if x_dims == y_dims else broadcast_dims("x", x_dims, "y", y_dims)
    out.dtype = dtype
    out.layout = x.layout


def compare_infer_meta(x, y, out) -> None:
    """As elementwise_infer_meta, with a bool result."""
    elementwise_infer_meta(x, y, out)
    out.dtype = DataType.BOOL


def matmul_infer_meta(x, y, transpose_x, transpose_y, out) -> None:
    """numpy.matmul's shape rule with optional transposes of the last two dims.

    A 1-D x is a row vector and a 1-D y a column vector, and that dimension is
    dropped from the result; batch dimensions broadcast.
    """
    same_dtype("x", x, "y", y)
    x_dims, y_dims = list(x.dims), list(y.dims)
    if not x_dims or not y_dims:
        raise InvalidArgumentError(
            f"arguments 'x' and 'y' must be at least 1-d, got shapes {x_dims} and {y_dims}"
        )
    x_vec, y_vec = len(x_dims) == 1, len(y_dims) == 1
    xm = [1] + x_dims if x_vec else list(x_dims)
    ym = y_dims + [1] if y_vec else list(y_dims)
    if transpose_x and not x_vec:
        xm[-1], xm[-2] = xm[-2], xm[-1]
    if transpose_y and not y_vec:
        ym[-1], ym[-2] = ym[-2], ym[-1]
    if xm[-1] != ym[-2]:
        raise InvalidArgumentError(
            f"the contracted dimensions differ: x{'ᵀ' if transpose_x else ''} has shape "
            f"{x_dims} (inner size {xm[-1]}) and y{'ᵀ' if transpose_y else ''} has shape "
            f"{y_dims} (inner size {ym[-2]})"
        )
    batch = broadcast_dims("x", tuple(xm[:-2]), "y", tuple(ym[:-2]))
    dims = list(batch)
    if not x_vec:
        dims.append(xm[-2])
    if not y_vec:
        dims.append(ym[-1])
    out.dims = tuple(dims)
    out.dtype = x.dtype
    out.layout = x.layout


def where_infer_meta(condition, x, y, out) -> None:
    """x and y share a dtype; condition is bool; the three broadcast together."""
    if condition.dtype is not DataType.BOOL:
        raise InvalidArgumentError(f"argument 'condition' expected a bool tensor, got {condition.dtype}")
    elementwise_infer_meta(x, y, out)
    out.dims = broadcast_dims("condition", condition.dims, "x and y", out.dims)


def cross_entropy_with_softmax_infer_meta(logits, label, soft_label, use_softmax, numeric_stable_mode,
                                          ignore_index, axis, softmax, loss) -> None:
    """Softmax cross entropy: soft labels are shaped and typed like the logits; hard
    labels are integers shaped like the logits with the class axis of size 1."""
    if not logits.dtype.is_floating_point:
        raise InvalidArgumentError(f"argument 'logits' expected a floating-point tensor, got {logits.dtype}")
    dims = tuple(logits.dims)
    if not dims:
        raise InvalidArgumentError("argument 'logits' expected at least one dimension (the classes)")
    a = normalize_axis("axis", axis, len(dims))
    kept = dims[:a] + (1,) + dims[a + 1:]
    if soft_label:
        if tuple(label.dims) != dims or label.dtype is not logits.dtype:
            raise InvalidArgumentError(
                f"argument 'label' with soft_label=True expected {logits.dtype}{list(dims)} like the "
                f"logits, got {label.dtype}{list(label.dims)}")
    else:
        if not label.dtype.is_integer:
            raise InvalidArgumentError(
                f"argument 'label' expected integer class indices (or soft_label=True), got {label.dtype}")
        if tuple(label.dims) != kept:
            raise InvalidArgumentError(
                f"argument 'label' expected shape {list(kept)} (the logits' with the class axis "
                f"{a} of size 1), got {list(label.dims)}")
    softmax.dims, softmax.dtype, softmax.layout = dims, logits.dtype, logits.layout
    loss.dims, loss.dtype, loss.layout = kept, logits.dtype, logits.layout


def sigmoid_cross_entropy_with_logits_infer_meta(x, label, pos_weight, normalize, ignore_index, out) -> None:
    """Elementwise: label (and pos_weight, if given) shaped and typed like x."""
    if not x.dtype.is_floating_point:
        raise InvalidArgumentError(f"argument 'x' expected a floating-point tensor, got {x.dtype}")
    for name, other in (("label", label), ("pos_weight", pos_weight)):
        if other is not None and (tuple(other.dims) != tuple(x.dims) or other.dtype is not x.dtype):
            raise InvalidArgumentError(
                f"argument '{name}' expected {x.dtype}{list(x.dims)} like x, got "
                f"{other.dtype}{list(other.dims)}")
    out.dims, out.dtype, out.layout = tuple(x.dims), x.dtype, x.layout
