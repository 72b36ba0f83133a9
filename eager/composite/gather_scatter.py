"""Composite rules of the gather scatter ops (see eager/composite/__init__.py).

Every op here is linear in its data, so each gradient is again a gather or a
scatter: a gather's gradient scatters (adds) back, and the gradient of that
gathers again; a scatter's gradient zeroes what was overwritten and gathers what
was written.
"""
from __future__ import annotations

import numpy as np

from phi.common import DataType
from phi.core.errors import AssertedArgumentError, AxisError, ElementIndexError, PhiError, UnsupportedDtypeError

from ..generated import forward_api as _F
from ..tensor import Tensor
from . import _paddle_api as _check
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
    x_grad = sum_to_shape(_F.masked_fill(out_grad, mask, zero), x.shape)
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


def put_along_axis_grad(arr, indices, values, out, out_grad, axis, reduce, include_self, broadcast):
    """The kernel's rule per reduce and include_self (see phi/kernels/gather_scatter.py), with forward ops."""
    picked = _F.take_along_axis(out_grad, indices, axis, broadcast)
    zeros = _F.full_like(out_grad, 0, None)
    if reduce in ("mean", "amin", "amax"):  # how many values each place is written by
        count = _F.put_along_axis(zeros, indices, _F.full([], 1, out_grad.dtype, out_grad.place), axis, "add", True,
                                  broadcast)
        touched = _F.greater_than(count, zeros)
    if reduce in ("amin", "amax"):
        hit = _F.cast(_F.equal(values, _F.take_along_axis(out, indices, axis, broadcast)), out_grad.dtype)
        ties = _F.put_along_axis(zeros, indices, hit, axis, "add", True, broadcast)
        self_hit = _F.cast(_F.equal(out, arr), out_grad.dtype) if include_self else zeros
    if reduce == "assign" or not include_self:
        arr_grad = _F.put_along_axis(out_grad, indices, _zeros((), out_grad), axis, "assign", True, broadcast)
    elif reduce == "add":
        arr_grad = out_grad
    elif reduce == "mean":
        arr_grad = _F.divide(out_grad, _F.where(touched, count + 1.0, _F.full_like(count, 1, None)))
    elif reduce in ("amin", "amax"):
        arr_grad = _F.where(touched, _F.divide(_F.multiply(out_grad, self_hit), ties + 1.0), out_grad)
    else:  # mul: out = arr * (product of the values put at each place)
        factor = _F.put_along_axis(_F.full_like(out_grad, 1, None), indices, values, axis, "mul", True, broadcast)
        arr_grad = _F.multiply(out_grad, factor)
    if reduce in ("mul", "multiply"):
        picked = _F.divide(_F.multiply(picked, _F.take_along_axis(out, indices, axis, broadcast)), values)
    elif reduce == "mean":
        picked = _F.divide(picked, _F.take_along_axis(count + float(include_self), indices, axis, broadcast))
    elif reduce in ("amin", "amax"):
        sharers = _F.take_along_axis(_F.maximum(ties + self_hit, _F.full_like(ties, 1, None)), indices, axis, broadcast)
        picked = _F.divide(_F.multiply(picked, hit), sharers)
    return arr_grad, sum_to_shape(picked, values.shape)


def index_put_grad(x, indices, value, out_grad, accumulate):
    """Zero at the written places for x (unless accumulate); the places' gradient for value."""
    region = _F.getitem(out_grad, tuple(indices))
    x_grad = out_grad if accumulate else _F.index_put(out_grad, indices, _zeros((), out_grad), False)
    if value.dtype != out_grad.dtype:  # a real value of a complex x: the real part, in value's dtype
        region = _F.cast(_F.real(region), value.dtype)
    if 0 in region.shape and region.shape != list(value.shape):  # nothing written (an all-False mask)
        return x_grad, _zeros(value.shape, region)
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


# -- Paddle API functions composed of the ops above (eager.take, eager.index_fill, ...) -----

def _index_array(op: str, arg: str, index) -> np.ndarray:
    """An integer index tensor's values on the host (they decide shapes or are range-checked)."""
    _check.integral(op, arg, index)
    return index.numpy()  # a conversion point: index values


@_check.composed
def take(x, index, mode="raise", name=None):
    """The elements of x, read as a flat 1-d tensor, at ``index`` (an integer tensor);
    the result has index's shape. ``mode`` says what an index outside [-n, n) does:
    'raise' (an error; negative indices count from the end), 'wrap' (taken modulo
    n) or 'clip' (clipped to [0, n - 1], so negative indices read element 0).
    Differentiable in x.

    >>> eager.take(eager.arange(12).reshape([3, 4]), eager.to_tensor([[0, -1], [5, 6]])).numpy()
    array([[ 0, 11],
           [ 5,  6]])
    """
    _check.tensor("take", "x", x)
    _check.integral("take", "index", index)
    _check.choice("take", "mode", mode, ("raise", "wrap", "clip"))
    n = x.size
    # The positions keep index's shape (reshaping to it would read a 0 in an empty
    # index's shape as "copy that dimension"); gather_nd of the flat x at them then
    # has index's shape, empty dimensions and 0-d included.
    positions = _F.cast(index, "int64")
    if n == 0 and index.size:
        # IndexError, and the ValueError Paddle 2.6.2 raises (its index_select / clip checks)
        raise ElementIndexError("take: argument 'x' is empty, so no index can be taken")
    if mode == "raise":
        values = _index_array("take", "index", index)
        if values.size and (values.min() < -n or values.max() >= n):
            bad = values[(values < -n) | (values >= n)].flat[0]
            raise ElementIndexError(f"take: argument 'index' holds {bad}, outside [{-n}, {n}) for x of {n} elements")
        positions = _F.where(_F.less_than(positions, _F.zeros_like(positions)),
                             _F.scale(positions, 1.0, float(n), True), positions)
    elif index.size == 0:
        pass  # nothing to wrap or clip (and an empty x has no range to clip to)
    elif mode == "wrap":
        positions = _F.remainder(positions, _F.full_like(positions, n, None))
    else:
        positions = _F.clip(positions, 0, n - 1)
    return _F.gather_nd(_F.reshape(x, [-1]), _F.unsqueeze(positions, [-1]))


def _where_along(axis: int, positions):
    """The index tuple selecting ``positions`` along ``axis`` and everything elsewhere."""
    return (slice(None),) * axis + (positions,)


@_check.composed
def index_fill(x, index, axis, value, name=None):
    """A copy of x whose slices at ``index`` (a 1-d integer tensor) along ``axis`` are
    ``value`` (a number or a 0-d tensor). Differentiable in x (0 where filled) and
    in a tensor value.

    >>> eager.index_fill(eager.zeros([2, 3]), eager.to_tensor([0, 2]), 1, 5.0).numpy()
    array([[5., 0., 5.],
           [5., 0., 5.]], dtype=float32)
    """
    _check.tensor("index_fill", "x", x)
    positions = _index_array("index_fill", "index", index)
    if positions.ndim != 1:
        raise ValueError(f"index_fill: argument 'index' expected a 1-d tensor, got shape {list(positions.shape)}")
    axis = _check.axis("index_fill", "axis", axis, len(x.shape))
    size = x.shape[axis] if x.shape else 1
    if positions.size and (positions.min() < -size or positions.max() >= size):
        raise IndexError(f"index_fill: argument 'index' holds values outside [{-size}, {size}) for axis "
                         f"{axis} of x's shape {x.shape}")
    if isinstance(value, type(x)):
        if value.size != 1 or len(value.shape) > 1:
            raise ValueError(f"index_fill: argument 'value' expected a number or a 0-d tensor, got shape {value.shape}")
        value = _F.cast(_F.reshape(value, []), x.dtype) if value.dtype != x.dtype else _F.reshape(value, [])
    else:
        if not isinstance(value, bool):  # a bool fills as 1 / 0 (True into a bool x), as in Paddle
            _check.number("index_fill", "value", value)
        value = _F.full([], value, x.dtype, x.place)
    out = _F.clone(x)
    if positions.size:
        out[_where_along(axis, positions % size)] = value
    return out


@_check.composed
def isin(x, test_x, assume_unique=False, invert=False, name=None):
    """True where an element of x occurs in test_x (a bool tensor of x's shape; with
    ``invert`` the opposite). ``assume_unique`` is accepted for Paddle's signature
    and changes nothing. Not differentiable.

    >>> eager.isin(eager.to_tensor([1, 2, 3, 4]), eager.to_tensor([2, 4, 6])).numpy()
    array([False,  True, False,  True])
    """
    _check.tensor("isin", "x", x)
    _check.tensor("isin", "test_x", test_x)
    if not isinstance(assume_unique, bool) or not isinstance(invert, bool):
        raise TypeError(f"isin: arguments 'assume_unique' and 'invert' expected bools, got "
                        f"{assume_unique!r} and {invert!r}")
    if x.dtype != test_x.dtype:
        raise TypeError(f"isin: arguments 'x' and 'test_x' expected the same dtype, got {x.dtype} and {test_x.dtype}")
    flat = _F.unsqueeze(_F.reshape(x, [-1]), [1])
    tests = _F.reshape(test_x, [-1])
    found = _F.full([x.size], False, "bool", x.place)
    # x against test_x a block at a time, so the comparison table stays near 2**22 entries.
    block = max(1, (1 << 22) // max(x.size, 1))
    for start in range(0, test_x.size, block):
        part = _F.unsqueeze(tests[start:start + block], [0])
        found = _F.logical_or(found, _F.any(_F.equal(flat, part), [1]))
    found = _F.reshape(found, x.shape)
    return _F.logical_not(found) if invert else found


@_check.composed
def select_scatter(x, values, axis, index, name=None):
    """A copy of x whose slice at ``index`` along ``axis`` is ``values`` (x's shape
    without that axis; broadcast). Differentiable in x and values.

    >>> eager.select_scatter(eager.zeros([2, 3]), eager.ones([2]), 1, 1).numpy()
    array([[0., 1., 0.],
           [0., 1., 0.]], dtype=float32)
    """
    _check.tensor("select_scatter", "x", x)
    _check.tensor("select_scatter", "values", values)
    axis = _check.axis("select_scatter", "axis", axis, len(x.shape))
    index = _check.integer("select_scatter", "index", index)
    if not x.shape:
        raise ValueError("select_scatter: argument 'x' expected at least 1 dimension, got a 0-d tensor")
    size = x.shape[axis]
    if not -size <= index < size:  # Paddle 2.6.2's set_value raises ValueError here: both
        raise ElementIndexError(f"select_scatter: argument 'index' expected a position in [{-size}, {size}) "
                                f"along axis {axis}, got {index}")
    if values.dtype != x.dtype:  # cast, as Paddle 2.6.2's select_scatter does
        values = _F.cast(values, x.dtype)
    out = _F.clone(x)
    out[_where_along(axis, index % size)] = values
    return out


@_check.composed
def slice_scatter(x, value, axes=(0,), starts=(0,), ends=None, strides=(1,), name=None):
    """A copy of x whose slice ``starts[i]:ends[i]:strides[i]`` along each of ``axes``
    is ``value`` (the slice's shape; broadcast). ``ends`` defaults to the axes' sizes.
    Differentiable in x and value.

    >>> eager.slice_scatter(eager.zeros([2, 4]), eager.ones([2, 2]), axes=[1], starts=[0], ends=[4], strides=[2]).numpy()
    array([[1., 0., 1., 0.],
           [1., 0., 1., 0.]], dtype=float32)
    """
    _check.tensor("slice_scatter", "x", x)
    _check.tensor("slice_scatter", "value", value)
    lists = {}
    for arg, given in (("axes", axes), ("starts", starts), ("ends", ends), ("strides", strides)):
        if given is None and arg == "ends":  # the axes' sizes; the others have no default to fall back on
            continue
        if not isinstance(given, (list, tuple)):
            raise TypeError(f"slice_scatter: argument '{arg}' expected a list of ints, got "
                            f"{type(given).__name__} {given!r}")
        lists[arg] = [_check.integer("slice_scatter", arg, v) for v in given]
    axes_ = [_check.axis("slice_scatter", "axes", a, len(x.shape)) for a in lists["axes"]]
    ends_ = lists.get("ends", [x.shape[a] for a in axes_])
    if not len(axes_) == len(lists["starts"]) == len(ends_) == len(lists["strides"]):
        raise ValueError(f"slice_scatter: arguments 'axes', 'starts', 'ends' and 'strides' expected one length, "
                         f"got {len(axes_)}, {len(lists['starts'])}, {len(ends_)} and {len(lists['strides'])}")
    if any(step <= 0 for step in lists["strides"]):
        raise ValueError(f"slice_scatter: argument 'strides' expected positive ints, got {lists['strides']}")
    if value.dtype != x.dtype:
        raise TypeError(f"slice_scatter: argument 'value' expected dtype {x.dtype}, got {value.dtype}")
    index = [slice(None)] * len(x.shape)
    for a, start, end, step in zip(axes_, lists["starts"], ends_, lists["strides"]):
        index[a] = slice(start, end, step)
    out = _F.clone(x)
    out[tuple(index)] = value
    return out


@_check.composed
def diagonal_scatter(x, y, offset=0, axis1=0, axis2=1, name=None):
    """A copy of x whose diagonal (as ``eager.diagonal(x, offset, axis1, axis2)``
    reads it) is y. Differentiable in x and y.

    >>> eager.diagonal_scatter(eager.zeros([2, 3]), eager.ones([2]), offset=1).numpy()
    array([[0., 1., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    _check.tensor("diagonal_scatter", "x", x)
    _check.tensor("diagonal_scatter", "y", y)
    offset = _check.integer("diagonal_scatter", "offset", offset)
    # Paddle 2.6.2 checks x, the axes and y's shape with assert: AssertedArgumentError, a
    # ValueError as eager's other argument checks and the AssertionError its tests expect.
    if len(x.shape) < 2:
        raise AssertedArgumentError(
            f"diagonal_scatter: argument 'x' expected at least 2 dimensions, got shape {x.shape}")
    try:
        axis1 = _check.axis("diagonal_scatter", "axis1", axis1, len(x.shape))
        axis2 = _check.axis("diagonal_scatter", "axis2", axis2, len(x.shape))
    except AxisError as error:
        raise AssertedArgumentError(str(error)) from None
    if axis1 == axis2:
        raise AssertedArgumentError(
            f"diagonal_scatter: arguments 'axis1' and 'axis2' must differ, both are {axis1}")
    expected = _F.diagonal(x, offset, axis1, axis2).shape
    if y.shape != expected:
        raise AssertedArgumentError(
            f"diagonal_scatter: argument 'y' expected the diagonal's shape {expected}, got {y.shape}")
    if y.dtype != x.dtype:
        raise TypeError(f"diagonal_scatter: argument 'y' expected dtype {x.dtype}, got {y.dtype}")
    rows, cols = x.shape[axis1], x.shape[axis2]
    length = max(0, min(rows - max(-offset, 0), cols - max(offset, 0)))
    steps = np.arange(length)
    out = _F.clone(_F.moveaxis(x, [axis1, axis2], [-2, -1]))
    if length:
        out[..., steps + max(-offset, 0), steps + max(offset, 0)] = y
    return _F.moveaxis(out, [-2, -1], [axis1, axis2])


@_check.composed
def fill_diagonal_tensor(x, y, offset=0, dim1=0, dim2=1, name=None):
    """Paddle's ``fill_diagonal_tensor``: a copy of x whose diagonal between ``dim1`` and
    ``dim2`` (shifted by ``offset``) is y, which has the diagonal's shape (x's other
    dimensions, then the diagonal's length) and x's dtype: :func:`diagonal_scatter`.
    Differentiable in x and y.

    >>> eager.ones([3, 2]).fill_diagonal_tensor(eager.zeros([2])).numpy().tolist()
    [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    """
    return diagonal_scatter(x, y, offset, dim1, dim2)


_INDEX_TYPES = (DataType.INT32, DataType.INT64)


@_check.composed
def index_sample(x, index) -> Tensor:
    """``out[i, j] = x[i, index[i, j]]`` for x [N, M] and an int32/int64 index
    [N, K] (Paddle's ``paddle.index_sample``); differentiable in x (the gradient
    adds up where an index repeats). It is take_along_axis over axis 1.

    >>> import eager
    >>> x = eager.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> eager.index_sample(x, eager.to_tensor([[2, 0], [1, 1]])).numpy()
    array([[3., 1.],
           [5., 5.]], dtype=float32)
    """
    _check.tensor("index_sample", "x", x)
    _check.tensor("index_sample", "index", index)
    if x.ndim != 2:
        raise ValueError(f"index_sample: argument 'x' expected a 2-D tensor, got shape {x.shape}")
    if index.ndim != 2:
        raise ValueError(f"index_sample: argument 'index' expected a 2-D tensor, got shape {index.shape}")
    if index.dtype not in _INDEX_TYPES:
        raise TypeError(f"index_sample: argument 'index' expected an int32 or int64 tensor, got {index.dtype}")
    if index.shape[0] != x.shape[0]:
        raise ValueError(f"index_sample: argument 'index' expected {x.shape[0]} rows (as x {x.shape}), "
                         f"got shape {index.shape}")
    try:
        return _F.take_along_axis(x, index, 1, False)
    except PhiError as error:
        raise type(error)(f"index_sample: {error}") from None


@_check.composed
def multiplex(inputs, index, name=None) -> Tensor:
    """Row i of the output is row i of ``inputs[index[i]]``: inputs a list of tensors of
    one shape [N, ...] and dtype, index an int32/int64 tensor [N, 1] (or [N]) with values
    in [0, len(inputs)). Differentiable in the inputs.

    >>> a, b = eager.to_tensor([[1.0, 2.0], [3.0, 4.0]]), eager.to_tensor([[5.0, 6.0], [7.0, 8.0]])
    >>> eager.multiplex([a, b], eager.to_tensor([[1], [0]])).numpy()
    array([[5., 6.],
           [3., 4.]], dtype=float32)
    """
    inputs = _check.tensor_list("multiplex", "inputs", inputs)
    _check.tensor("multiplex", "index", index)
    first = inputs[0]
    if first.ndim == 0:
        raise ValueError("multiplex: argument 'inputs' expected tensors of at least 1 dimension, got 0-d")
    for i, t in enumerate(inputs):
        if t.shape != first.shape or t.dtype != first.dtype:
            raise ValueError(f"multiplex: argument 'inputs' expected one shape and dtype, element 0 is "
                             f"{first.dtype} {first.shape} and element {i} is {t.dtype} {t.shape}")
    if index.dtype not in _INDEX_TYPES:
        raise TypeError(f"multiplex: argument 'index' expected an int32 or int64 tensor, got {index.dtype}")
    rows = first.shape[0]
    if index.shape not in ([rows, 1], [rows]):
        raise ValueError(f"multiplex: argument 'index' expected shape [{rows}, 1] (one per row of the inputs), "
                         f"got {index.shape}")
    index = _F.reshape(_F.cast(index, "int64"), [rows, 1])
    if rows and bool(_F.any(_F.logical_or(_F.less_than(index, _F.zeros_like(index)),
                                          _F.greater_equal(index, _F.full_like(index, len(inputs), None))))):
        raise IndexError(f"multiplex: argument 'index' expected values in [0, {len(inputs)}), got "
                         f"{index.numpy().ravel().tolist()}")
    positions = _F.reshape(_F.arange(0, rows, 1, "int64"), [rows, 1])
    return _F.gather_nd(_F.stack(inputs, 0), _F.concat([index, positions], 1))


@_check.composed
def shard_index(input, index_num, nshards, shard_id, ignore_value=-1, name=None) -> Tensor:  # noqa: A002
    """Ids of a table of ``index_num`` rows split into ``nshards`` shards of
    ceil(index_num / nshards) rows: an id in shard ``shard_id`` becomes its offset
    in that shard, any other id becomes ``ignore_value``. input is an int32/int64
    tensor whose last axis has size 1, with values in [0, index_num).

    >>> ids = eager.to_tensor([[1], [6], [12], [19]])
    >>> eager.shard_index(ids, index_num=20, nshards=2, shard_id=0).numpy().ravel()
    array([ 1,  6, -1, -1])
    """
    _check.tensor("shard_index", "input", input)
    if input.dtype not in _INDEX_TYPES:
        raise UnsupportedDtypeError(f"shard_index: argument 'input' expected an int32 or int64 tensor, got {input.dtype}")
    if input.ndim < 1 or input.shape[-1] != 1:
        raise ValueError(f"shard_index: argument 'input' expected a last axis of size 1, got shape {input.shape}")
    index_num = _check.integer("shard_index", "index_num", index_num, minimum=1)
    nshards = _check.integer("shard_index", "nshards", nshards, minimum=1)
    shard_id = _check.integer("shard_index", "shard_id", shard_id, minimum=0)
    ignore_value = _check.integer("shard_index", "ignore_value", ignore_value)
    if shard_id >= nshards:
        raise ValueError(f"shard_index: argument 'shard_id' expected a shard in [0, {nshards}), got {shard_id}")
    if input.size and bool(_F.any(_F.logical_or(_F.less_than(input, _F.zeros_like(input)),
                                               _F.greater_equal(input, _F.full_like(input, index_num, None))))):
        raise ValueError(f"shard_index: argument 'input' expected ids in [0, {index_num}), got some outside")
    shard_size = (index_num + nshards - 1) // nshards
    in_shard = _F.equal(_F.floor_divide(input, _F.full_like(input, shard_size, None)),
                        _F.full_like(input, shard_id, None))
    return _F.where(in_shard, _F.subtract(input, _F.full_like(input, shard_id * shard_size, None)),
                    _F.full_like(input, ignore_value, None))
