"""Composite rules of the gather scatter ops (see eager/composite/__init__.py).

Every op here is linear in its data, so each gradient is again a gather or a
scatter: a gather's gradient scatters (adds) back, and the gradient of that
gathers again; a scatter's gradient zeroes what was overwritten and gathers what
was written.
"""
from __future__ import annotations

from ..generated import forward_api as _F
from .spine import sum_to_shape


def _zeros(shape, like):
    return _F.full(list(shape), 0, like.dtype, like.place)


def gather_double_grad(index, grad_x_grad, axis):
    # gather_grad adds out_grad into zeros at index; its derivative gathers again.
    """gather_grad scatters out_grad; its derivative gathers again."""
    return _F.gather(grad_x_grad, index, axis)


def take_along_axis_double_grad(indices, grad_arr_grad, axis, broadcast):
    """take_along_axis_grad scatters out_grad; its derivative takes again."""
    return _F.take_along_axis(grad_arr_grad, indices, axis, broadcast)


def gather_nd_double_grad(index, grad_x_grad):
    """gather_nd_grad scatters out_grad; its derivative gathers again."""
    return _F.gather_nd(grad_x_grad, index)


def masked_select_double_grad(mask, grad_x_grad):
    """masked_select_grad puts out_grad back; its derivative selects again."""
    return _F.masked_select(grad_x_grad, mask)


def masked_fill_grad(x, mask, value, out_grad):
    """out_grad where mask is False for x; for value, out_grad where it is True, summed to value's shape."""
    zero = _zeros((), out_grad)
    x_grad = _F.masked_fill(out_grad, mask, zero)
    value_grad = sum_to_shape(_F.where(mask, out_grad, _F.full_like(out_grad, 0, None)), value.shape)
    return x_grad, value_grad


def scatter_grad(index, updates, out_grad, overwrite):
    # Both modes leave nothing of x's indexed rows; updates get their rows' gradient.
    """Zero at the written rows for x (both modes); the rows' gradient gathered for updates."""
    x_grad = _F.scatter(out_grad, index, _zeros(updates.shape, out_grad), True)
    return x_grad, _F.gather(out_grad, index, 0)


def scatter_nd_add_grad(index, updates, out_grad):
    """out_grad for x; gathered at the coordinates for updates."""
    return out_grad, _F.gather_nd(out_grad, index)


def scatter_nd_grad(index, updates, out_grad):
    """out_grad gathered at the coordinates for updates."""
    return _F.gather_nd(out_grad, index)


def index_add_grad(index, value, out_grad, axis):
    """out_grad for x; gathered at index along axis for value."""
    return out_grad, _F.gather(out_grad, index, axis)


def put_along_axis_grad(arr, indices, values, out, out_grad, axis, reduce, broadcast):
    """The kernel's rule per reduce (see phi/kernels/gather_scatter.py), with forward ops."""
    picked = _F.take_along_axis(out_grad, indices, axis, broadcast)
    if reduce == "assign":
        arr_grad = _F.put_along_axis(out_grad, indices, _zeros((), out_grad), axis, "assign", True, broadcast)
    elif reduce == "add":
        arr_grad = out_grad
    else:  # mul: out = arr * (product of the values put at each place)
        factor = _F.put_along_axis(_F.full_like(out_grad, 1, None), indices, values, axis, "mul", True, broadcast)
        arr_grad = _F.multiply(out_grad, factor)
        picked = _F.divide(_F.multiply(picked, _F.take_along_axis(out, indices, axis, broadcast)), values)
    return arr_grad, sum_to_shape(picked, values.shape)


def index_put_grad(x, indices, value, out_grad, accumulate):
    """Zero at the written places for x (unless accumulate); the places' gradient for value."""
    region = _F.getitem(out_grad, tuple(indices))
    x_grad = out_grad if accumulate else _F.index_put(out_grad, indices, _zeros((), out_grad), False)
    return x_grad, sum_to_shape(region, value.shape)


def masked_scatter_grad(x, mask, value, out_grad):
    """Zero at the True places for x; value's first elements get their places' gradient."""
    x_grad = _F.masked_fill(out_grad, mask, _zeros((), out_grad))
    picked = _F.masked_select(out_grad, mask)
    size = 1
    for d in value.shape:
        size *= d
    unused = size - picked.shape[0]
    flat = _F.concat([picked, _zeros((unused,), out_grad)], 0) if unused else picked
    return x_grad, _F.reshape(flat, list(value.shape)) if 0 not in value.shape else _zeros(value.shape, out_grad)
