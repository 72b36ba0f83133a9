"""Kernels for SelectedRows inputs (rows of a tall tensor), registered under the
names of the dense ops they stand beside, with ``kind=SELECTED_ROWS``.

Each takes the SelectedRows itself; duplicate rows mean their blocks add up.
"""
from ..common.tensor_kind import TensorKind
from ..core.dense_tensor import DenseTensor
from ..core.kernel_registry import register_kernel
from ..core.selected_rows import SelectedRows
from .math_elementary import scale as dense_scale
from .dtypes import ALL_BACKENDS, ALL_TYPES, NUMERIC
from .funcs import scatter_add

SR = TensorKind.SELECTED_ROWS


@register_kernel("assign", ALL_BACKENDS, ALL_TYPES, kind=SR)
def assign(ctx, x):
    return SelectedRows(x.rows.copy(), DenseTensor(x.value.array.copy()), x.height)


@register_kernel("accumulate_", ALL_BACKENDS, NUMERIC, kind=SR)
def accumulate_(ctx, acc, x):
    """A dense acc += the rows of x, each block added into its row (repeats add)."""
    scatter_add(ctx.xp, acc, x.rows, x.value.array)
    return acc


@register_kernel("selected_rows_to_dense", ALL_BACKENDS, ALL_TYPES, kind=SR)
def selected_rows_to_dense(ctx, x):
    value = x.value.array
    out = ctx.xp.zeros((x.height,) + value.shape[1:], dtype=value.dtype)
    scatter_add(ctx.xp, out, x.rows, value)
    return out


@register_kernel("selected_rows_add", ALL_BACKENDS, NUMERIC, kind=SR)
def selected_rows_add(ctx, x, y):
    """x + y for two SelectedRows of one height: the rows side by side, not merged."""
    xp = ctx.xp
    return SelectedRows(xp.concatenate([x.rows, y.rows]),
                        DenseTensor(xp.concatenate([x.value.array, y.value.array])), x.height)


@register_kernel("merge_selected_rows", ALL_BACKENDS, NUMERIC, kind=SR)
def merge_selected_rows(ctx, x):
    """The same tensor with each row once, in increasing order, repeats summed."""
    xp = ctx.xp
    rows, inverse = xp.unique(x.rows, return_inverse=True)
    value = x.value.array
    merged = xp.zeros((len(rows),) + value.shape[1:], dtype=value.dtype)
    scatter_add(xp, merged, inverse.reshape(-1), value)
    return SelectedRows(rows, DenseTensor(merged), x.height)


@register_kernel("scale", ALL_BACKENDS, NUMERIC, kind=SR)
def scale(ctx, x, scale, bias, bias_after_scale):
    """Each stored row block scaled (Paddle's scale_sr): rows and height stay.

    As in Paddle, ``bias`` is added to the stored blocks only (the rows that are
    not stored stay zero), and a repeated row gets it once per entry.
    """
    value = dense_scale(ctx, x.value.array, scale, bias, bias_after_scale)
    return SelectedRows(x.rows.copy(), DenseTensor(value, x.value.layout), x.height)
