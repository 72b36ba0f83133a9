"""Composite rules of the rearrange ops (see eager/composite/__init__.py).

Each of these ops is linear, so its gradient is the adjoint map, written with
forward ops: flip's is flip, roll's is roll back, rot90's is rot90 back,
moveaxis's moves the axes back, tile's and repeat_interleave's sum the copies,
the slices' write out_grad into zeros (setitem, whose own gradient reads the
region again). Their second derivatives are therefore the ops themselves.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from phi.common import convert_dtype
from phi.core.errors import ArgumentKindError
from phi.infermeta.checks import check_result_shape
from phi.infermeta.rearrange import repeat_counts, slice_index, strided_index, tensor_split_bounds

from ..creation import to_tensor
from ..generated import forward_api as _F
from ..tensor import Tensor
from . import _paddle_api as _check
from .spine import exactly_equal, reshape_exactly, sum_to_shape


def tile_grad(x, out_grad, repeat_times):
    """tile's gradient: the copies summed, differentiably."""
    # out_grad viewed as (r0, d0, r1, d1, ...): the r axes hold the copies.
    n = max(len(x.shape), len(repeat_times))
    dims = [1] * (n - len(x.shape)) + list(x.shape)
    reps = [1] * (n - len(repeat_times)) + list(repeat_times)
    split = [size for pair in zip(reps, dims) for size in pair]
    if not split:
        return out_grad  # 0-d x, no repeats: out is x
    summed = _F.sum(reshape_exactly(out_grad, split), list(range(0, 2 * n, 2)), out_grad.dtype, False)
    return reshape_exactly(summed, x.shape)


def flip_grad(out_grad, axis):
    """flip's gradient: flip again."""
    return _F.flip(out_grad, axis)


def roll_grad(out_grad, shifts, axis):
    """roll's gradient: roll back."""
    return _F.roll(out_grad, [-s for s in shifts], axis)


def rot90_grad(out_grad, k, axes):
    """rot90's gradient: turn back."""
    return _F.rot90(out_grad, -k, axes)


def moveaxis_grad(out_grad, source, destination):
    """moveaxis's gradient: move the axes back."""
    return _F.moveaxis(out_grad, destination, source)


def t_grad(out_grad):
    """t's gradient: t again."""
    return _F.t(out_grad)


def _into_zeros(shape, out_grad, index):
    zeros = _F.full(list(shape), 0, out_grad.dtype, out_grad.place)
    return _F.setitem(zeros, out_grad, index)


def slice_grad(input, out_grad, axes, starts, ends):
    """slice's gradient: out_grad set into zeros (setitem, differentiable in out_grad)."""
    return _into_zeros(input.shape, out_grad, slice_index(input.shape, axes, starts, ends))


def strided_slice_grad(x, out_grad, axes, starts, ends, strides):
    """strided_slice's gradient: out_grad set into zeros at the strided region."""
    return _into_zeros(x.shape, out_grad, strided_index(x.shape, axes, starts, ends, strides))


def expand_as_grad(x, y, out_grad):
    """expand_as's gradient: summed back to x's shape."""
    return sum_to_shape(out_grad, x.shape)


def broadcast_tensors_grad(input, out_grad):
    """broadcast_tensors' gradients: each summed back to its tensor's shape."""
    grads = [sum_to_shape(g, t.shape) for t, g in zip(input, out_grad)]
    # An integer sum widens to int64; a gradient keeps its tensor's dtype.
    return [g if g.dtype == t.dtype else _F.cast(g, t.dtype) for t, g in zip(input, grads)]


def unstack_grad(out_grad, axis):
    """unstack's gradient: the pieces stacked again."""
    return _F.stack(out_grad, axis)


def tensor_split_grad(x, out_grad, num_or_indices, axis):
    """tensor_split's gradient: the pieces joined, or added into place where they overlap."""
    a, bounds = tensor_split_bounds(x.shape, num_or_indices, axis)
    ends = [0] + [hi for _, hi in bounds]
    if len(out_grad) == 1:
        return out_grad[0]  # one piece: x itself
    if all(lo == ends[i] for i, (lo, _) in enumerate(bounds)) and ends[-1] == x.shape[a]:
        return _F.concat(out_grad, a)  # pieces side by side: the usual case
    # Decreasing indices give overlapping pieces: each adds into its place.
    total = None
    for (lo, hi), g in zip(bounds, out_grad):
        part = _into_zeros(x.shape, g, (slice(None),) * a + (slice(lo, hi),))
        total = part if total is None else _F.add(total, part)
    return total


def repeat_interleave_grad(x, out_grad, repeats, axis):
    """repeat_interleave's gradient: each element's copies summed."""
    a, counts = repeat_counts(x.shape, repeats, axis)
    moved = _F.moveaxis(out_grad, [a], [0]) if a else out_grad
    rest = moved.shape[1:]
    if len(set(counts)) <= 1:
        # Equal counts r: the copies of element i are rows i*r .. i*r + r - 1.
        r = counts[0] if counts else 0
        summed = _F.sum(reshape_exactly(moved, [len(counts), r] + rest), [1], out_grad.dtype, False)
    else:
        pieces = _F.split(moved, counts, 0)
        summed = _F.concat([_F.sum(p, [0], out_grad.dtype, True) for p in pieces], 0)
    summed = _F.moveaxis(summed, [0], [a]) if a else summed
    return reshape_exactly(summed, x.shape)


def as_strided_grad(x, out_grad, shape, stride, offset):
    """as_strided's gradient: each element's gradient added at the position of x it
    read (index_add, whose own gradient reads those positions again). ``offset``
    counts bytes of x."""
    positions = np.full(tuple(shape), offset // x.dtype.itemsize, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(shape, stride)):
        positions = positions + (np.arange(n, dtype=np.int64) * s).reshape((n,) + (1,) * (len(shape) - axis - 1))
    zeros = _F.full([math.prod(x.shape)], 0, out_grad.dtype, out_grad.place)
    index = to_tensor(positions.reshape(-1), place=out_grad.place)
    return reshape_exactly(_F.index_add(zeros, index, reshape_exactly(out_grad, [-1]), 0), x.shape)


# -- Paddle API functions composed of the ops above (eager.hstack, eager.view, ...) ---------

def _as_tensor(op: str, data) -> Tensor:
    try:
        return to_tensor(data)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{op}: argument 'inputs' expected Tensors or data to_tensor takes, got "
                        f"{type(data).__name__} ({error})") from None


def _at_least(op: str, inputs, ndim: int):
    # Paddle converts what is not a Tensor (a number, a list, an array) with to_tensor.
    tensors = [x if isinstance(x, Tensor) else _as_tensor(op, x) for x in inputs]
    if not tensors:
        raise TypeError(f"{op}: expected at least one Tensor, got none")
    out = []
    for x in tensors:
        shape = x.shape
        if len(shape) >= ndim:
            out.append(x)
        elif ndim == 1 or len(shape) == 0:
            out.append(_F.reshape(x, [1] * (ndim - len(shape)) + shape))
        # unsqueeze, not reshape: reshape reads a 0 in the shape as "copy x's size", so an
        # empty [0] became an error instead of [1, 0]
        elif ndim == 2 or len(shape) == 2:             # [n] -> [1, n]; [m, n] -> [m, n, 1]
            out.append(_F.unsqueeze(x, 2) if len(shape) == 2 else _F.unsqueeze(x, 0))
        else:                                          # [n] -> [1, n, 1]
            out.append(_F.unsqueeze(x, [0, 2]))
    return out[0] if len(out) == 1 else out


@_check.composed
def atleast_1d(*inputs, name=None):
    """Each input with at least 1 dimension (a 0-d tensor becomes [1]); one input
    gives a Tensor, several a list. Views of the inputs.

    >>> eager.atleast_1d(eager.to_tensor(3.0)).shape
    [1]
    """
    return _at_least("atleast_1d", inputs, 1)


@_check.composed
def atleast_2d(*inputs, name=None):
    """Each input with at least 2 dimensions: 0-d becomes [1, 1], [n] becomes [1, n].

    >>> eager.atleast_2d(eager.ones([3])).shape
    [1, 3]
    """
    return _at_least("atleast_2d", inputs, 2)


@_check.composed
def atleast_3d(*inputs, name=None):
    """Each input with at least 3 dimensions: 0-d becomes [1, 1, 1], [n] becomes
    [1, n, 1], [m, n] becomes [m, n, 1] (NumPy's rule).

    >>> eager.atleast_3d(eager.ones([2, 3])).shape
    [2, 3, 1]
    """
    return _at_least("atleast_3d", inputs, 3)


def _as_list(op: str, value, ndim: int) -> list:
    tensors = _check.tensor_list(op, "x", value)
    made = _at_least(op, tensors, ndim)
    return made if isinstance(made, list) else [made]


@_check.composed
def hstack(x, name=None):
    """The tensors joined column-wise: along axis 1, or axis 0 when all are 1-d
    (0-d ones count as [1]). Differentiable.

    >>> eager.hstack([eager.ones([2, 1]), eager.zeros([2, 2])]).shape
    [2, 3]
    """
    tensors = _as_list("hstack", x, 1)
    return _F.concat(tensors, 0 if all(len(t.shape) == 1 for t in tensors) else 1)


@_check.composed
def vstack(x, name=None):
    """The tensors joined row-wise (along axis 0), 0-d and 1-d ones first made
    [1, n]. Differentiable.

    >>> eager.vstack([eager.ones([3]), eager.zeros([3])]).shape
    [2, 3]
    """
    return _F.concat(_as_list("vstack", x, 2), 0)


@_check.composed
def row_stack(x, name=None):
    """The same as :func:`vstack`.

    >>> eager.row_stack([eager.ones([3]), eager.zeros([3])]).shape
    [2, 3]
    """
    return _F.concat(_as_list("row_stack", x, 2), 0)


@_check.composed
def dstack(x, name=None):
    """The tensors joined depth-wise (along axis 2), each first made at least 3-d
    as :func:`atleast_3d` does. Differentiable.

    >>> eager.dstack([eager.ones([2, 3]), eager.zeros([2, 3])]).shape
    [2, 3, 2]
    """
    return _F.concat(_as_list("dstack", x, 3), 2)


@_check.composed
def column_stack(x, name=None):
    """The tensors joined as columns (along axis 1): a 1-d tensor [n] is a column
    [n, 1], a 0-d one [1, 1]. Differentiable.

    >>> eager.column_stack([eager.ones([3]), eager.zeros([3, 2])]).shape
    [3, 3]
    """
    tensors = _check.tensor_list("column_stack", "x", x)
    columns = [_F.reshape(t, [t.size, 1]) if len(t.shape) < 2 else t for t in tensors]
    return _F.concat(columns, 1)


def _split_along(op: str, x, num_or_indices, axis: int, least: int):
    _check.tensor(op, "x", x)
    if len(x.shape) < least:
        raise ValueError(f"{op}: argument 'x' expected at least {least} dimension(s), got shape {x.shape}")
    if isinstance(num_or_indices, int) and not isinstance(num_or_indices, bool):
        if num_or_indices <= 0 or x.shape[axis] % num_or_indices:
            raise ValueError(f"{op}: argument 'num_or_indices' as an int must divide axis {axis}'s size "
                             f"{x.shape[axis]} into equal parts, got {num_or_indices}")
    elif not isinstance(num_or_indices, (list, tuple)):
        raise TypeError(f"{op}: argument 'num_or_indices' expected an int or a list of indices, got "
                        f"{type(num_or_indices).__name__} {num_or_indices!r}")
    return list(_F.tensor_split(x, num_or_indices, axis))


@_check.composed
def hsplit(x, num_or_indices, name=None):
    """x split column-wise (along axis 1; axis 0 for a 1-d x): into ``num_or_indices``
    equal parts, or at the listed indices. Returns a list of views.

    >>> [t.shape for t in eager.hsplit(eager.ones([2, 6]), 3)]
    [[2, 2], [2, 2], [2, 2]]
    """
    _check.tensor("hsplit", "x", x)
    return _split_along("hsplit", x, num_or_indices, 0 if len(x.shape) == 1 else 1, 1)


@_check.composed
def vsplit(x, num_or_sections, name=None):
    """x split row-wise (along axis 0; x at least 2-d) as Paddle 2.x's ``vsplit``
    does: :func:`split` with axis 0, so ``num_or_sections`` is a number of equal
    parts or a list of part SIZES (one may be -1), not of split indices as in
    :func:`hsplit` / :func:`dsplit`. Returns a list of views.

    >>> [t.shape for t in eager.vsplit(eager.ones([4, 3]), [1, -1])]
    [[1, 3], [3, 3]]
    """
    _check.tensor("vsplit", "x", x)
    if len(x.shape) < 2:
        raise ValueError(f"vsplit: argument 'x' expected at least 2 dimension(s), got shape {x.shape}")
    return list(_F.split(x, num_or_sections, 0))


@_check.composed
def dsplit(x, num_or_indices, name=None):
    """x split depth-wise (along axis 2; x at least 3-d), as :func:`hsplit`.

    >>> [t.shape for t in eager.dsplit(eager.ones([1, 2, 4]), 2)]
    [[1, 2, 2], [1, 2, 2]]
    """
    return _split_along("dsplit", x, num_or_indices, 2, 3)


@_check.composed
def unflatten(x, axis, shape, name=None):
    """x with ``axis`` expanded into ``shape`` (a list/tuple whose product is that
    axis's size; one entry may be -1). A view of x.

    >>> eager.unflatten(eager.ones([2, 6]), 1, [2, 3]).shape
    [2, 2, 3]
    """
    _check.tensor("unflatten", "x", x)
    axis = _check.axis("unflatten", "axis", axis, len(x.shape))
    if hasattr(shape, "numpy") and not isinstance(shape, (list, tuple)):
        shape = shape.numpy().tolist()  # a conversion point: a Tensor of sizes
    if not isinstance(shape, (list, tuple)) or not shape:
        raise TypeError(f"unflatten: argument 'shape' expected a non-empty list or tuple of ints, got {shape!r}")
    sizes = [_check.integer("unflatten", "shape", s, minimum=-1) for s in shape]
    size = x.shape[axis] if x.shape else 1
    known = math.prod(s for s in sizes if s != -1)
    if sizes.count(-1) > 1 or (-1 in sizes and (known == 0 or size % known)) or \
            (-1 not in sizes and known != size):
        raise ValueError(f"unflatten: argument 'shape' {list(shape)} does not split axis {axis} of size {size}")
    if -1 in sizes:
        sizes[sizes.index(-1)] = size // known
    return _F.reshape(x, x.shape[:axis] + sizes + x.shape[axis + 1:])


@_check.composed
def view(x, shape_or_dtype, name=None):
    """x in another shape (a list/tuple; one entry may be -1), sharing its buffer and
    version counter as reshape's view does; or, given a dtype, x's bytes read as that
    dtype (:func:`eager.view_dtype`: a view too, the last axis taking the change of
    element size; not differentiable).

    >>> eager.view(eager.ones([2, 3]), [3, 2]).shape
    [3, 2]
    >>> eager.view(eager.ones([2, 3]), "uint8").shape
    [2, 12]
    """
    _check.tensor("view", "x", x)
    if not isinstance(shape_or_dtype, (list, tuple)):
        try:
            dtype = convert_dtype(shape_or_dtype)
        except (TypeError, ValueError):
            raise TypeError(f"view: argument 'shape_or_dtype' expected a list or tuple of ints (a shape) or a "
                            f"dtype, got {type(shape_or_dtype).__name__} {shape_or_dtype!r}") from None
        return _F.view_dtype(x, dtype)
    sizes = [_check.integer("view", "shape_or_dtype", s, minimum=-1) for s in shape_or_dtype]
    known = math.prod(s for s in sizes if s != -1)
    if sizes.count(-1) > 1 or (-1 in sizes and (known == 0 or x.size % known)) or \
            (-1 not in sizes and known != x.size):
        raise ValueError(f"view: shape {sizes} does not hold x's {x.size} elements (shape {x.shape})")
    if -1 in sizes:
        sizes[sizes.index(-1)] = x.size // known
    return _F.reshape(x, sizes)


@_check.composed
def view_as(x, other, name=None):
    """x in ``other``'s shape (a view, as :func:`view`); the sizes must match.

    >>> eager.view_as(eager.ones([6]), eager.zeros([2, 3])).shape
    [2, 3]
    """
    _check.tensor("view_as", "x", x)
    _check.tensor("view_as", "other", other)
    if other.size != x.size:
        raise ValueError(f"view_as: argument 'other' has {other.size} elements (shape {other.shape}), x has "
                         f"{x.size} (shape {x.shape})")
    return _F.reshape(x, other.shape)


@_check.composed
def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None, dtype="int64", name=None):
    """x with each run of equal consecutive elements (or slices along ``axis``)
    collapsed to one; ``axis`` None flattens x first. With ``return_inverse``
    also where each input element went, with ``return_counts`` each run's length
    (in ``dtype``), returned as (out, inverse, counts). Not differentiable.

    >>> eager.unique_consecutive(eager.to_tensor([1, 1, 2, 2, 3, 1]), return_counts=True)[1].numpy()
    array([2, 2, 1, 1])
    """
    _check.tensor("unique_consecutive", "x", x)
    for arg, value in (("return_inverse", return_inverse), ("return_counts", return_counts)):
        if not isinstance(value, bool):
            raise TypeError(f"unique_consecutive: argument '{arg}' expected a bool, got {value!r}")
    index_dtype = _check.index_dtype("unique_consecutive", dtype)
    if axis is None:
        rows = _F.reshape(x, [-1])
        moved, axis_ = rows, 0
    else:
        axis_ = _check.axis("unique_consecutive", "axis", axis, len(x.shape))
        moved = _F.moveaxis(x, [axis_], [0])
        rows = moved
    n = rows.shape[0] if rows.shape else 1
    if n == 0:
        empty = _F.full([0], 0, index_dtype, x.place)
        out = [rows if axis is None else x] + ([empty] if return_inverse else []) + ([empty] if return_counts else [])
        return out[0] if len(out) == 1 else tuple(out)
    flat = _F.reshape(rows, [n, -1])
    differs = _F.any(_F.logical_not(exactly_equal(flat[1:], flat[:-1])), [1])
    starts = _F.concat([_F.full([1], True, "bool", x.place), differs], 0)
    positions = _F.reshape(_F.nonzero(starts), [-1])
    if axis is None:
        out = _F.index_select(rows, positions, 0)
    else:
        out = _F.moveaxis(_F.index_select(moved, positions, 0), [0], [axis_])
    results = [out]
    if return_inverse:
        results.append(_F.cast(_F.scale(_F.cumsum(_F.cast(starts, "int64"), 0), 1.0, -1.0, True), index_dtype))
    if return_counts:
        ends = _F.concat([positions[1:], _F.full([1], n, "int64", x.place)], 0)
        results.append(_F.cast(_F.subtract(ends, positions), index_dtype))
    return results[0] if len(results) == 1 else tuple(results)


@_check.composed
def combinations(x, r=2, with_replacement=False, name=None):
    """The r-element combinations of a 1-d x's elements, in lexicographic order of
    positions, as rows of an [N, r] tensor (``with_replacement``: an element may
    repeat). Differentiable in x.

    >>> eager.combinations(eager.to_tensor([1, 2, 3])).numpy()
    array([[1, 2],
           [1, 3],
           [2, 3]])
    """
    _check.tensor("combinations", "x", x)
    if len(x.shape) != 1:
        # Paddle raises TypeError ("Expect a 1-D vector"): a ValueError and that TypeError
        raise ArgumentKindError(f"combinations: argument 'x' expected a 1-d tensor, got shape {x.shape}")
    r = _check.integer("combinations", "r", r, minimum=0)
    if not isinstance(with_replacement, bool):
        raise TypeError(f"combinations: argument 'with_replacement' expected a bool, got {with_replacement!r}")
    if r == 0:
        return _F.full([0], 0, x.dtype, x.place)
    n = x.shape[0]
    count = math.comb(n + r - 1, r) if with_replacement else math.comb(n, r)
    # Before the table of positions is built; one row at least, as NumPy refuses even an
    # empty [0, r] array whose r elements a row could not hold.
    check_result_shape("r", (max(count, 1), r), x.dtype)
    if count == 0:
        return _F.full([0, r], 0, x.dtype, x.place)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    table = np.array(list(pick(range(x.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    if table.shape[0] == 0:
        return _F.full([0, r], 0, x.dtype, x.place)
    return _F.getitem(x, table)  # gathers rows of positions; differentiable in x


@_check.composed
def cartesian_prod(x, name=None):
    """The Cartesian product of a list of 1-d tensors as rows of an [N, len(x)]
    tensor (the last input varying fastest); one tensor comes back as itself.
    Differentiable.

    >>> eager.cartesian_prod([eager.to_tensor([1, 2]), eager.to_tensor([3, 4, 5])]).shape
    [6, 2]
    """
    tensors = _check.tensor_list("cartesian_prod", "x", x)
    for i, t in enumerate(tensors):
        if len(t.shape) != 1:
            raise ValueError(f"cartesian_prod: argument 'x' expected 1-d tensors, element {i} has shape {t.shape}")
        if t.dtype != tensors[0].dtype:
            raise TypeError(f"cartesian_prod: argument 'x' expected one dtype, got {tensors[0].dtype} and {t.dtype}")
    if len(tensors) == 1:
        return tensors[0]
    grids = _F.meshgrid(tensors)
    return _F.stack([_F.reshape(g, [-1]) for g in grids], 1)


@_check.composed
def block_diag(inputs, name=None):
    """The tensors (0-d, 1-d as a row, or 2-d) placed along the diagonal of one
    matrix, zeros elsewhere. Differentiable.

    >>> eager.block_diag([eager.ones([1, 2]), eager.ones([2, 1])]).numpy()
    array([[1., 1., 0.],
           [0., 0., 1.],
           [0., 0., 1.]], dtype=float32)
    """
    tensors = _check.tensor_list("block_diag", "inputs", inputs)
    matrices = []
    for i, t in enumerate(tensors):
        if len(t.shape) > 2:
            raise ValueError(f"block_diag: argument 'inputs' expected tensors of at most 2 dimensions, element "
                             f"{i} has shape {t.shape}")
        if t.dtype != tensors[0].dtype:
            raise TypeError(f"block_diag: argument 'inputs' expected one dtype, got {tensors[0].dtype} and {t.dtype}")
        matrices.append(_F.reshape(t, [1, t.size]) if len(t.shape) < 2 else t)
    width = sum(m.shape[1] for m in matrices)
    bands, left = [], 0
    for m in matrices:
        rows, cols = m.shape
        parts = [_F.full([rows, left], 0, m.dtype, m.place), m,
                 _F.full([rows, width - left - cols], 0, m.dtype, m.place)]
        bands.append(_F.concat(parts, 1))
        left += cols
    return _F.concat(bands, 0)


@_check.composed
def unfold(x, axis, size, step, name=None):
    """The windows of ``size`` elements of x along ``axis``, one every ``step``
    elements, as a view (Paddle's ``paddle.unfold`` / ``Tensor.unfold``): x's
    ``axis`` becomes the window count (dims[axis] - size) // step + 1 and a last
    axis of ``size`` holds each window. Written through :func:`eager.as_strided`,
    so it shares x's buffer (a contiguous x) and differentiates by adding each
    window's gradient back.

    >>> eager.unfold(eager.arange(5.0), 0, 2, 2).numpy()
    array([[0., 1.],
           [2., 3.]], dtype=float32)
    """
    _check.tensor("unfold", "x", x)
    dims = x.shape
    a = _check.axis("unfold", "axis", axis, len(dims))
    size = _check.integer("unfold", "size", size, minimum=0)
    step = _check.integer("unfold", "step", step, minimum=1)
    if not dims:
        # Paddle 2.6.2 (and torch) read a 0-d x as one element along axis 0: one window of size <= 1
        if size > 1:
            raise ValueError(f"unfold: argument 'size' ({size}) exceeds the one element of a 0-d x")
        return _F.as_strided(x, [size], [1], 0)
    if size > dims[a]:
        raise ValueError(f"unfold: argument 'size' ({size}) exceeds the size of axis {axis} ({dims[a]}), shape "
                         f"{dims}")
    steps = [math.prod(dims[k + 1:]) for k in range(len(dims))]  # x's elements in row-major order
    shape = dims[:a] + [(dims[a] - size) // step + 1] + dims[a + 1:] + [size]
    stride = steps[:a] + [steps[a] * step] + steps[a + 1:] + [steps[a]]
    return _F.as_strided(x, shape, stride, 0)


def _int_list(op: str, arg: str, value, ndim: int) -> list:
    """A list/tuple of ints (0-d int Tensors allowed) or a 1-D int Tensor, of length ndim."""
    if hasattr(value, "numpy") and not isinstance(value, (list, tuple)):
        if not value.dtype.is_integer or value.ndim != 1:
            raise TypeError(f"{op}: argument '{arg}' expected a 1-D int Tensor, got {value.dtype} shape {value.shape}")
        value = value.tolist()  # a conversion point: the sizes are read on the host
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{op}: argument '{arg}' expected a list or tuple of ints, got {type(value).__name__}")
    items = [int(v) if hasattr(v, "numpy") and v.dtype.is_integer and v.size == 1 else v for v in value]
    for v in items:
        _check.integer(op, arg, v)
    if len(items) != ndim:
        raise ValueError(f"{op}: argument '{arg}' expected {ndim} values (one per axis of x), got {len(items)}")
    return [int(v) for v in items]


@_check.composed
def crop(x, shape=None, offsets=None, name=None):
    """The block of x of size ``shape`` starting at ``offsets`` (one int per axis;
    offsets default to 0, shape to x's shape; -1 in shape takes the rest of that
    axis past its offset). Differentiable in x.

    >>> x = eager.to_tensor([[0, 1, 2, 0], [0, 3, 4, 0], [0, 0, 0, 0]])
    >>> eager.crop(x, shape=[2, 2], offsets=[0, 1]).numpy()
    array([[1, 2],
           [3, 4]])
    """
    _check.tensor("crop", "x", x)
    ndim = x.ndim
    dims = x.shape
    offsets = [0] * ndim if offsets is None else _int_list("crop", "offsets", offsets, ndim)
    shape = list(dims) if shape is None else _int_list("crop", "shape", shape, ndim)
    ends = []
    for axis, (size, start, length) in enumerate(zip(dims, offsets, shape)):
        if start < 0:
            raise ValueError(f"crop: argument 'offsets' expected values >= 0, got {offsets}")
        if length == -1:
            length = size - start  # 0 for an offset at the end of the axis: an empty block, as in Paddle
        elif length <= 0 and not (length == 0 and size == 0):
            raise ValueError(f"crop: argument 'shape' expected positive sizes or -1, got {shape}")
        if length < 0 or start + length > size:
            raise ValueError(f"crop: offsets {offsets} plus shape {shape} exceed x's shape {dims} on axis {axis}")
        ends.append(start + length)
    if ndim == 0:
        return _F.assign(x)
    return _F.slice(x, list(range(ndim)), offsets, ends)
