"""Indexing kernels: x[index], x with x[index] = value, and their gradients."""
from ..core.kernel_registry import register_kernel
from ..infermeta.shape import split_index
from .dtypes import ALL_BACKENDS, ALL_TYPES, ALL_TYPES_AND_BFLOAT16, NUMERIC
from .funcs import apart, copied_into, device_index, reduce_to_shape, scatter_add, want


def _has_array(index) -> bool:
    return any(hasattr(item, "dtype") for item in index)


def _paddle_order(x, index):
    """(x[basic], rest) for an index that NumPy reads otherwise than Paddle and PyTorch
    (split_index: ints beside index arrays apply first), else (x, index); either
    way target[rest] is x[index] as Paddle reads it, and x[basic] is a view, so
    writes through it reach x."""
    split = split_index(index, x.ndim)
    if split is None:
        return x, index
    return x[split[0]], split[1]


# Index arrays arrive as NumPy arrays; device_index puts them where x is (CuPy wants that).

@register_kernel("getitem", ALL_BACKENDS, ALL_TYPES_AND_BFLOAT16)
def getitem(ctx, x, index):
    index = device_index(ctx.xp, index)
    split = split_index(index, x.ndim)
    if split is not None:
        return x[split[0]][split[1]]
    out = x[index]
    if type(out) is not type(x):
        # An int per axis gives NumPy a scalar, a copy (CuPy gives a 0-d view): with a
        # trailing Ellipsis it is a 0-d view, as every other basic index is (x[1]
        # must see x[1] += 1). Only that index gives a scalar, so it has no Ellipsis.
        return x[index + (Ellipsis,)]
    return out


@register_kernel("getitem_grad", ALL_BACKENDS, NUMERIC)
def getitem_grad(ctx, x, out_grad, index):
    xp = ctx.xp
    index = device_index(xp, index)
    x_grad = xp.zeros(x.shape, dtype=out_grad.dtype)
    target, index = _with_new_axes(*_paddle_order(x_grad, index))
    if _has_array(index):
        # An integer array may name one element twice: its gradients add up.
        scatter_add(xp, target, index, out_grad)
    else:
        target[index] = out_grad
    return x_grad


def _with_new_axes(x_grad, index):
    """(a view of x_grad with index's None axes as size-1 axes, index with each None
    a full slice of its axis), so that view[index] has out_grad's shape and axis
    order. Dropping the Nones instead would move axes: advanced indices that a None
    separates put their axes first, and without it they stay in place."""
    if not any(item is None for item in index):
        return x_grad, index
    axes = []
    for item in index:
        if item is None or item is Ellipsis:
            axes.append(item)
        elif isinstance(item, bool) or getattr(item, "dtype", None) == bool:   # a mask takes its rank's axes
            axes.extend([slice(None)] * getattr(item, "ndim", 0))
        else:
            axes.append(slice(None))
    return x_grad[tuple(axes)], tuple(slice(None) if item is None else item for item in index)


def _without_leading_ones(value):
    """value without its leading size-1 dimensions. InferMeta lets them drop, as
    Paddle does (``x[0, 0] = ones([1])``); NumPy and CuPy drop them only down to the
    indexed region's rank and refuse a value of rank > 0 into one element.
    Broadcasting puts them back, so the assignment is the same."""
    shape = value.shape
    if not shape or shape[0] != 1:
        return value
    kept = 1
    while kept < len(shape) and shape[kept] == 1:
        kept += 1
    return value.reshape(shape[kept:])


@register_kernel("setitem", ALL_BACKENDS, ALL_TYPES)
def setitem(ctx, x, value, index, *, into=None):
    """A copy of x with x[index] = value. With ``into`` x itself (the inplace op's
    target, KernelFactory.writes_into: Tensor.__setitem__) the assignment is made
    there, after InferMeta checked the index and value; a value or index array that
    may share x's memory (``x[1:] = x[:-1]``, an index that is x's own buffer) is
    copied first. Another ``into`` gets the new result written in."""
    xp = ctx.xp
    index = device_index(xp, index)
    value = _without_leading_ones(value)
    if into is not x:
        out = x.copy()
        target, index = _paddle_order(out, index)
        target[index] = value
        return copied_into(out, into)
    if _has_array(index):
        index = tuple(apart(xp, into, item) if hasattr(item, "dtype") else item for item in index)
    target, index = _paddle_order(into, index)
    target[index] = apart(xp, into, value)
    return into


@register_kernel("setitem_grad", ALL_BACKENDS, NUMERIC)
def setitem_grad(ctx, value, out_grad, index, *, out_mask=None):
    x_grad = value_grad = None
    index = device_index(ctx.xp, index)
    if want(out_mask, 0):
        x_grad = out_grad.copy()
        target, rest = _paddle_order(x_grad, index)
        target[rest] = 0
    if want(out_mask, 1):
        target, rest = _paddle_order(out_grad, index)
        value_grad = reduce_to_shape(target[rest], value.shape)
    return x_grad, value_grad
