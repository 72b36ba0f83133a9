"""The op table of the gather scatter ops.

Index and mask inputs are drawn as numbers like the others and turned into
valid int64 indices (or bool masks) by each row's ``prepare``, so the generic
checker can draw them; the references are loops and NumPy indexing written
from each op's definition. Where an overwriting op would see a repeated index
(whose gradient is Paddle's rule, not a derivative) the rows draw distinct
indices; tests/test_gather_scatter.py covers repeated ones.
"""
from __future__ import annotations

import itertools

import numpy as np

import eager
from eager.generated import forward_api as F

from .core import FLOATS, INTS, Case, OpSpec, linear_vjp, unbroadcast


def _ints(raw, low, high):
    """Deterministic int64 values in [low, high) drawn from the numbers in raw."""
    raw = np.asarray(raw, dtype=np.float64)
    if high <= low:
        assert raw.size == 0, "no valid index for an empty dimension"
        return np.zeros(raw.shape, np.int64)
    return (np.floor(np.abs(raw) * 1000).astype(np.int64) % (high - low)) + low


def _distinct(raw, high):
    """Distinct int64 values in [0, high), shaped like raw (raw.size <= high): raw's ranks."""
    raw = np.asarray(raw, dtype=np.float64)
    assert raw.size <= high
    ranks = np.argsort(np.argsort(raw.reshape(-1), kind="stable"), kind="stable")
    return ranks.astype(np.int64).reshape(raw.shape)


def _mask(raw):
    return np.asarray(raw) > 0


# -- gather, index_select ---------------------------------------------------------------

def ref_gather(x, index, axis=0):
    flat = index.reshape(-1) if index.ndim == 2 else index
    a = axis % x.ndim
    if flat.ndim == 0:
        return np.array(x[(slice(None),) * a + (int(flat),)])
    pieces = [x[(slice(None),) * a + (int(i),)] for i in flat]
    out_shape = x.shape[:a] + (len(flat),) + x.shape[a + 1:]
    return np.stack(pieces, axis=a) if pieces else np.zeros(out_shape, x.dtype)


def _gather_prepare(arrays, attrs):
    x, index, *rest = arrays
    return [x, _ints(index, 0, x.shape[attrs.get("axis", 0) % x.ndim]), *rest]


def _gather_double_prepare(arrays, attrs):
    index, g = arrays
    return [_ints(index, 0, g.shape[attrs["axis"] % g.ndim]), g]


GATHER_CASES = (
    Case(((4, 3), (5,)), {"axis": 0}),
    Case(((3, 4), (2,)), {"axis": -1}),
    Case(((2, 3, 4), (3,)), {"axis": 1}),
    Case(((3, 4), (3, 1)), {"axis": 0}),
    Case(((5,), (3,)), {"axis": 0}),
    Case(((0, 3), (0,)), {"axis": 0}),
    Case(((2, 0), (4,)), {"axis": 0}),
)
GATHER_0D_CASES = (Case(((4, 3), ()), {"axis": 0}), Case(((4, 3), ()), {"axis": 1}))


def _gather_out_shape(x, index, axis):
    flat = index[:1] if len(index) == 2 else index
    a = axis % len(x)
    return x[:a] + tuple(flat) + x[a + 1:]


SPECS = [
    OpSpec("gather", F.gather, ref_gather, ("real", "real"), GATHER_CASES + GATHER_0D_CASES,
           dtypes=FLOATS + INTS + ("bool",), prepare=_gather_prepare, wrt=(0,)),
    OpSpec("gather_grad", F.gather_grad,
           lambda x, index, g, axis: linear_vjp(lambda a: ref_gather(a, index, axis), x.shape, g, g.dtype),
           ("real", "real", "real"),
           tuple(Case(c.shapes + (_gather_out_shape(*c.shapes, c.attrs["axis"]),), c.attrs)
                 for c in GATHER_CASES + GATHER_0D_CASES),
           dtypes=FLOATS + INTS, prepare=_gather_prepare, wrt=(2,)),
    OpSpec("gather_double_grad", F.gather_double_grad, lambda index, g, axis: ref_gather(g, index, axis),
           ("real", "real"), tuple(Case((c.shapes[1], c.shapes[0]), c.attrs) for c in GATHER_CASES),
           prepare=_gather_double_prepare, wrt=(1,)),
    OpSpec("index_select", eager.index_select, ref_gather, ("real", "real"), GATHER_CASES,
           dtypes=FLOATS + INTS, prepare=_gather_prepare, wrt=(0,)),
]


# -- take_along_axis, put_along_axis ------------------------------------------------------

def _along_shapes(arr_shape, idx_shape, axis, broadcast):
    a = axis % len(arr_shape)
    if not broadcast:
        return arr_shape, idx_shape, a
    common = []
    for d, (p, q) in enumerate(zip(arr_shape, idx_shape)):
        common.append(None if d == a else (q if p == 1 else p))
    arr_t = tuple(arr_shape[a] if d == a else c for d, c in enumerate(common))
    idx_t = tuple(idx_shape[a] if d == a else c for d, c in enumerate(common))
    return arr_t, idx_t, a


def ref_take_along_axis(arr, indices, axis, broadcast=True):
    arr_t, idx_t, a = _along_shapes(arr.shape, indices.shape, axis, broadcast)
    arr = np.broadcast_to(arr, arr_t)
    indices = np.broadcast_to(indices, idx_t)
    out = np.zeros(indices.shape, arr.dtype)
    for pos in itertools.product(*map(range, indices.shape)):
        src = list(pos)
        src[a] = int(indices[pos]) % arr.shape[a]
        out[pos] = arr[tuple(src)]
    return out


def _along_prepare(arrays, attrs):
    arr, indices, *rest = arrays
    n = arr.shape[attrs["axis"] % arr.ndim]
    return [arr, _ints(indices, -n, n), *rest]


TAKE_CASES = (
    Case(((3, 4), (3, 2)), {"axis": 1}),
    Case(((4, 3), (2, 3)), {"axis": 0}),
    Case(((3, 4), (3, 5)), {"axis": -1}),
    Case(((3, 4, 1), (3, 2, 5)), {"axis": 1}),     # arr broadcasts off the axis
    Case(((3, 4), (1, 2)), {"axis": 1}),           # indices broadcast off the axis
    Case(((3, 4), (2, 2)), {"axis": 1, "broadcast": False}),
    Case(((0, 3), (0, 2)), {"axis": 1}),
    Case(((5,), (3,)), {"axis": 0}),
)


def _take_out_shape(arr, idx, attrs):
    return _along_shapes(arr, idx, attrs["axis"], attrs.get("broadcast", True))[1]


def _with_broadcast(cases):
    return tuple(Case(c.shapes, {"broadcast": True, **c.attrs}) for c in cases)


def _put_prepare(distinct):
    def prepare(arrays, attrs):
        arr, indices, values, *rest = arrays
        a = attrs["axis"] % arr.ndim
        n = arr.shape[a]
        if distinct and attrs["reduce"] == "assign":  # each place written once along the axis
            idx = np.argsort(np.argsort(indices, axis=a, kind="stable"), axis=a, kind="stable").astype(np.int64)
            idx[..., ::2] -= n  # -n + k names the same place as k
        else:
            idx = _ints(indices, -n, n)
        return [arr, idx, values, *rest]
    return prepare


def _put_places(arr, indices, values, axis, broadcast):
    """(source position, destination element) pairs in write order, values broadcast to the indices."""
    _, idx_t, a = _along_shapes(arr.shape, indices.shape, axis, broadcast)
    indices = np.broadcast_to(indices, idx_t)
    values = np.broadcast_to(values, idx_t)
    pairs = []
    for pos in itertools.product(*map(range, indices.shape)):
        dst = list(pos)
        dst[a] = int(indices[pos]) % arr.shape[a]
        pairs.append((pos, tuple(dst)))
    return pairs, values


def ref_put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True, broadcast=True):
    """The definition, element by element: each written place reduces its values in write
    order, starting from arr's element (include_self) or from the first value."""
    pairs, values = _put_places(arr, indices, values, axis, broadcast)
    out = arr.copy()
    count = {}
    for pos, dst in pairs:
        v = values[pos]
        if reduce == "assign" or (not include_self and dst not in count):
            out[dst] = v
        elif reduce in ("add", "mean"):
            out[dst] += v
        elif reduce == "amin":
            out[dst] = min(out[dst], v)
        elif reduce == "amax":
            out[dst] = max(out[dst], v)
        else:
            out[dst] *= v
        count[dst] = count.get(dst, 0) + 1
    if reduce == "mean":
        for dst, c in count.items():
            n = c + int(include_self)
            if out.dtype.kind in "iu":  # C's integer division truncates toward zero
                total = int(out[dst])
                out[dst] = abs(total) // n * (1 if total >= 0 else -1)
            else:
                out[dst] = out[dst] / n
    return out


def _put_grad_prepare(distinct):
    first = _put_prepare(distinct)

    def prepare(arrays, attrs):
        arr, idx, values, _, g = first(arrays, attrs)
        out = ref_put_along_axis(arr, idx, values, attrs["axis"], attrs["reduce"], attrs["include_self"],
                                 attrs["broadcast"])
        return [arr, idx, values, out, g]
    return prepare


def ref_put_along_axis_extremum_grad(arr, indices, values, out, g, axis, include_self, broadcast):
    """amin / amax: at a written place, every input equal to the result (the values, and arr's
    element when include_self) gets an equal share of the place's gradient; the others none."""
    pairs, vb = _put_places(arr, indices, values, axis, broadcast)
    sharers = {}
    for pos, dst in pairs:
        sharers.setdefault(dst, [])
        if vb[pos] == out[dst]:
            sharers[dst].append(pos)
    arr_grad = g.astype(np.float64).copy()
    v_grad = np.zeros(vb.shape)
    for dst, hits in sharers.items():
        self_shares = include_self and arr[dst] == out[dst]
        n = len(hits) + int(self_shares)
        arr_grad[dst] = g[dst] / n if self_shares else 0.0
        for pos in hits:
            v_grad[pos] += g[dst] / n
    return arr_grad.astype(g.dtype), unbroadcast(v_grad, values.shape).astype(g.dtype)


def ref_put_along_axis_grad(arr, indices, values, out, g, axis, reduce, include_self, broadcast):
    if reduce in ("amin", "amax"):
        return ref_put_along_axis_extremum_grad(arr, indices, values, out, g, axis, include_self, broadcast)

    def arr_part(a):
        return ref_put_along_axis(a, indices, values, axis, reduce, include_self, broadcast)

    def values_part(v):
        return ref_put_along_axis(arr, indices, v, axis, reduce, include_self, broadcast)

    if reduce in ("mul", "multiply"):  # linear in arr, not in values: the product rule, place by place
        pairs, vb = _put_places(arr, indices, values, axis, broadcast)
        v_grad = np.zeros(vb.shape)
        for pos, dst in pairs:
            v_grad[pos] = g[dst] * out[dst] / vb[pos]
        v_grad = unbroadcast(v_grad, values.shape).astype(g.dtype)
        if include_self:
            factor = (arr_part(np.ones(arr.shape)) if arr.size else np.ones(arr.shape))
            return (g * factor).astype(g.dtype), v_grad
        return linear_vjp(lambda a: arr_part(a) - arr_part(np.zeros(arr.shape)), arr.shape, g, g.dtype), v_grad
    if reduce == "add" and include_self:
        arr_grad = g.copy()
    else:
        arr_grad = linear_vjp(lambda a: arr_part(a) - ref_put_along_axis(np.zeros(arr.shape), indices, values, axis,
                                                                         reduce, include_self, broadcast),
                              arr.shape, g, g.dtype)
    values_grad = linear_vjp(lambda v: values_part(v) - ref_put_along_axis(arr, indices, np.zeros(values.shape),
                                                                           axis, reduce, include_self, broadcast),
                             values.shape, g, g.dtype)
    return arr_grad, values_grad


PUT_CASES = (
    Case(((3, 4), (3, 2), (3, 2)), {"axis": 1}),
    Case(((4, 3), (2, 3), ()), {"axis": 0}),
    Case(((3, 4), (3, 4), (4,)), {"axis": -1}),
    Case(((3, 4), (1, 2), (2,)), {"axis": 1}),       # indices broadcast to (3, 2)
    Case(((0, 3), (0, 2), (0, 2)), {"axis": 1}),
    Case(((5,), (3,), (3,)), {"axis": 0}),
)


def _put_cases(reduce, include_self=True):
    cases = PUT_CASES if include_self else PUT_CASES[:3]
    return tuple(Case(c.shapes, {**c.attrs, "reduce": reduce, "include_self": include_self, "broadcast": True})
                 for c in cases)


def _put_grad_cases(reduce, include_self=True):
    out = []
    for c in PUT_CASES if include_self else PUT_CASES[:3]:
        arr, idx, values = c.shapes
        out.append(Case((arr, idx, values, arr, arr),
                        {**c.attrs, "reduce": reduce, "include_self": include_self, "broadcast": True}))
    return tuple(out)


def _put(reduce_domain):
    return ("real", "real", reduce_domain)


SPECS += [
    OpSpec("take_along_axis", F.take_along_axis, ref_take_along_axis, ("real", "real"), _with_broadcast(TAKE_CASES),
           dtypes=FLOATS + INTS + ("bool",), prepare=_along_prepare, wrt=(0,)),
    OpSpec("take_along_axis_grad", F.take_along_axis_grad,
           lambda arr, idx, g, axis, broadcast: linear_vjp(
               lambda a: ref_take_along_axis(a, idx, axis, broadcast), arr.shape, g, g.dtype),
           ("real", "real", "real"),
           tuple(Case(c.shapes + (_take_out_shape(*c.shapes, c.attrs),), c.attrs) for c in _with_broadcast(TAKE_CASES)),
           dtypes=FLOATS + INTS, prepare=_along_prepare, wrt=(2,)),
    OpSpec("take_along_axis_double_grad", F.take_along_axis_double_grad,
           lambda idx, g, axis, broadcast: ref_take_along_axis(g, idx, axis, broadcast), ("real", "real"),
           tuple(Case((c.shapes[1], c.shapes[0]), c.attrs) for c in _with_broadcast(TAKE_CASES)),
           prepare=lambda arrays, attrs: _along_prepare(arrays[::-1], attrs)[::-1], wrt=(1,)),
    OpSpec("put_along_axis", F.put_along_axis, ref_put_along_axis, _put("real"),
           _put_cases("assign") + _put_cases("add") + _put_cases("mul") + _put_cases("multiply")[:1]
           + _put_cases("mean") + _put_cases("amin") + _put_cases("amax")
           + sum((_put_cases(r, False) for r in ("add", "mul", "mean", "amin", "amax")), ()),
           dtypes=FLOATS + INTS, prepare=_put_prepare(True), wrt=(0, 2)),
    # amin / amax compare values with out, so their gradients are not smooth in either:
    # tests/test_put_along_axis_reduce.py checks those rows of put_along_axis_grad
    OpSpec("put_along_axis_grad", F.put_along_axis_grad, ref_put_along_axis_grad, _put("real") + ("real", "real"),
           _put_grad_cases("assign") + _put_grad_cases("add") + _put_grad_cases("mul") + _put_grad_cases("mean")
           + sum((_put_grad_cases(r, False) for r in ("add", "mul", "mean")), ()), dtypes=FLOATS,
           prepare=_put_grad_prepare(True), wrt=(2, 3, 4)),
]


# -- masked_fill, masked_select, masked_scatter ---------------------------------------------

def _mask_prepare(position):
    def prepare(arrays, attrs):
        arrays = list(arrays)
        arrays[position] = _mask(arrays[position])
        return arrays
    return prepare


def ref_masked_fill(x, mask, value):
    out = x.copy()
    chosen = np.broadcast_to(mask, x.shape)
    out[chosen] = np.broadcast_to(value, x.shape)[chosen]
    return out


def ref_masked_fill_grad(x, mask, value, g):
    chosen = np.broadcast_to(mask, g.shape)
    return (np.where(chosen, 0, g).astype(g.dtype),
            unbroadcast(np.where(chosen, g, 0), value.shape).astype(g.dtype))


FILL_CASES = (
    Case(((3, 4), (3, 4), ())),
    Case(((3, 4), (4,), ())),
    Case(((3, 4), (3, 1), (4,))),
    Case(((2, 3, 4), (3, 4), (2, 1, 4))),
    Case(((), (), ())),
    Case(((0, 3), (3,), ())),
)


def ref_masked_select(x, mask):
    xb, mb = np.broadcast_arrays(x, mask)
    return np.array([xb[pos] for pos in itertools.product(*map(range, xb.shape)) if mb[pos]], dtype=x.dtype)


def _select_grad_prepare(arrays, attrs):
    x, mask, g = arrays
    mask = _mask(mask)
    count = int(np.broadcast_to(mask, np.broadcast_shapes(x.shape, mask.shape)).sum())
    return [x, mask, np.resize(g.reshape(-1), count).astype(g.dtype) if g.size else np.zeros(count, g.dtype)]


SELECT_CASES = (
    Case(((3, 4), (3, 4))),
    Case(((3, 4), (4,))),
    Case(((4,), (3, 4))),                 # x broadcasts to the mask
    Case(((), ())),
    Case(((0, 3), (3,))),
)


def ref_masked_scatter(x, mask, value):
    out = x.copy()
    chosen = np.broadcast_to(mask, x.shape)
    source = iter(value.reshape(-1))
    for pos in itertools.product(*map(range, x.shape)):
        if chosen[pos]:
            out[pos] = next(source)
    return out


SCATTER_MASK_CASES = (
    Case(((3, 4), (3, 4), (12,))),
    Case(((3, 4), (4,), (3, 5))),
    Case(((2, 3), (2, 1), (2, 2, 2))),
    Case(((), (), (2,))),
    Case(((0, 3), (3,), (0,))),
)


def ref_masked_scatter_grad(x, mask, value, g):
    def x_part(a):
        return ref_masked_scatter(a, mask, np.zeros(value.shape))

    def value_part(v):
        return ref_masked_scatter(np.zeros(x.shape), mask, v)

    return linear_vjp(x_part, x.shape, g, g.dtype), linear_vjp(value_part, value.shape, g, g.dtype)


SPECS += [
    OpSpec("masked_fill", F.masked_fill, ref_masked_fill, ("real", "real", "real"), FILL_CASES,
           dtypes=FLOATS + INTS + ("bool",), prepare=_mask_prepare(1), wrt=(0, 2)),
    OpSpec("masked_fill_grad", F.masked_fill_grad, ref_masked_fill_grad, ("real", "real", "real", "real"),
           tuple(Case(c.shapes + (c.shapes[0],)) for c in FILL_CASES), dtypes=FLOATS + INTS,
           prepare=_mask_prepare(1), wrt=(3,)),
    OpSpec("masked_select", F.masked_select, ref_masked_select, ("real", "real"), SELECT_CASES,
           dtypes=FLOATS + INTS + ("bool",), prepare=_mask_prepare(1), wrt=(0,)),
    OpSpec("masked_select_grad", F.masked_select_grad,
           lambda x, mask, g: linear_vjp(lambda a: ref_masked_select(a, mask), x.shape, g, g.dtype),
           ("real", "real", "real"), tuple(Case(c.shapes + ((12,),)) for c in SELECT_CASES),
           dtypes=FLOATS + INTS, prepare=_select_grad_prepare, wrt=(2,)),
    OpSpec("masked_select_double_grad", F.masked_select_double_grad, lambda mask, g: ref_masked_select(g, mask),
           ("real", "real"), tuple(Case(c.shapes[::-1]) for c in SELECT_CASES), prepare=_mask_prepare(0), wrt=(1,)),
    OpSpec("masked_scatter", F.masked_scatter, ref_masked_scatter, ("real", "real", "real"), SCATTER_MASK_CASES,
           dtypes=FLOATS + INTS + ("bool",), prepare=_mask_prepare(1), wrt=(0, 2)),
    OpSpec("masked_scatter_grad", F.masked_scatter_grad, ref_masked_scatter_grad, ("real", "real", "real", "real"),
           tuple(Case(c.shapes + (c.shapes[0],)) for c in SCATTER_MASK_CASES), dtypes=FLOATS + INTS,
           prepare=_mask_prepare(1), wrt=(3,)),
]


# -- scatter, index_add -------------------------------------------------------------------

def ref_scatter(x, index, updates, overwrite=True):
    out = x.copy()
    flat = index.reshape(-1) if index.ndim == 2 else index
    if flat.ndim == 0:
        flat, updates = flat[None], updates[None]
    if not overwrite:
        for i in flat:
            out[int(i)] = 0
    for k, i in enumerate(flat):
        out[int(i)] = updates[k] if overwrite else out[int(i)] + updates[k]
    return out


def _scatter_prepare(arrays, attrs):
    x, index, *rest = arrays
    if attrs.get("overwrite", True):  # distinct rows: the last-write-wins rule never applies
        flat = _distinct(index, x.shape[0])
    else:
        flat = _ints(index, 0, x.shape[0])
    return [x, np.asarray(flat, np.int64), *rest]


def _scatter_grad_prepare(arrays, attrs):
    index, updates, g = arrays
    _, idx, _ = _scatter_prepare([g, index, updates], attrs)
    return [idx, updates, g]


SCATTER_CASES = tuple(
    Case(shapes, {"overwrite": overwrite})
    for shapes in (((5, 3), (3,), (3, 3)), ((4,), (2,), (2,)), ((4, 3), (), (3,)), ((4, 3), (2, 1), (2, 3)),
                   ((4, 3), (0,), (0, 3)), ((6, 2), (4,), (4, 2)))
    for overwrite in (True, False))


def ref_scatter_grad(index, updates, g, overwrite):
    def x_part(a):
        return ref_scatter(a, index, np.zeros(updates.shape), overwrite)

    def updates_part(u):
        return ref_scatter(np.zeros(g.shape), index, u, overwrite)

    return linear_vjp(x_part, g.shape, g, g.dtype), linear_vjp(updates_part, updates.shape, g, g.dtype)


def ref_index_add(x, index, value, axis=0):
    out = x.copy()
    a = axis % x.ndim
    for k, i in enumerate(index):
        out[(slice(None),) * a + (int(i),)] += value[(slice(None),) * a + (k,)]
    return out


INDEX_ADD_CASES = (
    Case(((4, 3), (5,), (5, 3)), {"axis": 0}),
    Case(((3, 4), (2,), (3, 2)), {"axis": -1}),
    Case(((2, 3, 4), (3,), (2, 3, 4)), {"axis": 1}),
    Case(((4,), (3,), (3,)), {"axis": 0}),
    Case(((0, 3), (2,), (0, 2)), {"axis": 1}),
)


def _index_add_grad_prepare(arrays, attrs):
    index, value, g = arrays
    return [_ints(index, 0, g.shape[attrs["axis"] % g.ndim]), value, g]


SPECS += [
    OpSpec("scatter", F.scatter, ref_scatter, ("real", "real", "real"), SCATTER_CASES,
           dtypes=FLOATS + INTS + ("bool",), prepare=_scatter_prepare, wrt=(0, 2)),
    OpSpec("scatter_grad", F.scatter_grad, ref_scatter_grad, ("real", "real", "real"),
           tuple(Case((c.shapes[1], c.shapes[2], c.shapes[0]), c.attrs) for c in SCATTER_CASES),
           dtypes=FLOATS + INTS, prepare=_scatter_grad_prepare, wrt=(2,)),
    OpSpec("index_add", F.index_add, ref_index_add, ("real", "real", "real"), INDEX_ADD_CASES,
           dtypes=FLOATS + INTS, prepare=_gather_prepare, wrt=(0, 2)),
    OpSpec("index_add_grad", F.index_add_grad,
           lambda index, value, g, axis: (g, ref_gather(g, index, axis)), ("real", "real", "real"),
           tuple(Case((c.shapes[1], c.shapes[2], c.shapes[0]), c.attrs) for c in INDEX_ADD_CASES),
           dtypes=FLOATS + INTS, prepare=_index_add_grad_prepare, wrt=(2,)),
]


# -- gather_nd, scatter_nd, scatter_nd_add ----------------------------------------------------

def _nd_index(raw, shape):
    k = raw.shape[-1]
    columns = [_ints(raw[..., j], -shape[j], shape[j]) for j in range(k)]
    return np.stack(columns, axis=-1) if columns else np.zeros(raw.shape, np.int64)


def ref_gather_nd(x, index):
    k = index.shape[-1]
    lead = index.shape[:-1]
    out = np.zeros(lead + x.shape[k:], x.dtype)
    for pos in itertools.product(*map(range, lead)):
        out[pos] = x[tuple(int(c) for c in index[pos])]
    return out


def ref_scatter_nd_add(x, index, updates):
    out = x.copy()
    for pos in itertools.product(*map(range, index.shape[:-1])):
        out[tuple(int(c) for c in index[pos])] += updates[pos]
    return out


ND_CASES = (
    Case(((4, 3), (5, 2))),
    Case(((4, 3), (2, 1))),
    Case(((4, 3), (2, 3, 1))),
    Case(((2, 3, 4), (3, 2))),
    Case(((4, 3), (2, 0))),        # empty coordinates: the whole of x
    Case(((4, 3), (0, 2))),
    Case(((5,), (1,))),             # one coordinate, 0-d result
)


def _nd_out(x, index):
    return tuple(index[:-1]) + tuple(x[index[-1]:])


def _nd_prepare(x_position, index_position, shape_of=None):
    def prepare(arrays, attrs):
        arrays = list(arrays)
        shape = attrs["shape"] if shape_of == "attr" else arrays[x_position].shape
        arrays[index_position] = _nd_index(arrays[index_position], shape)
        return arrays
    return prepare


SPECS += [
    OpSpec("gather_nd", F.gather_nd, ref_gather_nd, ("real", "real"), ND_CASES, dtypes=FLOATS + INTS + ("bool",),
           prepare=_nd_prepare(0, 1), wrt=(0,)),
    OpSpec("gather_nd_grad", F.gather_nd_grad,
           lambda x, index, g: linear_vjp(lambda a: ref_gather_nd(a, index), x.shape, g, g.dtype),
           ("real", "real", "real"), tuple(Case(c.shapes + (_nd_out(*c.shapes),)) for c in ND_CASES),
           dtypes=FLOATS + INTS, prepare=_nd_prepare(0, 1), wrt=(2,)),
    OpSpec("gather_nd_double_grad", F.gather_nd_double_grad, lambda index, g: ref_gather_nd(g, index),
           ("real", "real"), tuple(Case(c.shapes[::-1]) for c in ND_CASES), prepare=_nd_prepare(1, 0), wrt=(1,)),
    OpSpec("scatter_nd_add", F.scatter_nd_add, ref_scatter_nd_add, ("real", "real", "real"),
           tuple(Case(c.shapes + (_nd_out(*c.shapes),)) for c in ND_CASES), dtypes=FLOATS + INTS,
           prepare=_nd_prepare(0, 1), wrt=(0, 2)),
    OpSpec("scatter_nd_add_grad", F.scatter_nd_add_grad,
           lambda index, updates, g: (g, ref_gather_nd(g, index)), ("real", "real", "real"),
           tuple(Case((c.shapes[1], _nd_out(*c.shapes), c.shapes[0])) for c in ND_CASES), dtypes=FLOATS + INTS,
           prepare=_nd_prepare(2, 0), wrt=(2,)),
    OpSpec("scatter_nd", F.scatter_nd,
           lambda index, updates, shape: ref_scatter_nd_add(np.zeros(shape, updates.dtype), index, updates),
           ("real", "real"), tuple(Case((c.shapes[1], _nd_out(*c.shapes)), {"shape": list(c.shapes[0])})
                                   for c in ND_CASES),
           dtypes=FLOATS + INTS, prepare=_nd_prepare(None, 0, "attr"), wrt=(1,)),
    OpSpec("scatter_nd_grad", F.scatter_nd_grad, lambda index, updates, g: ref_gather_nd(g, index),
           ("real", "real", "real"), tuple(Case((c.shapes[1], _nd_out(*c.shapes), c.shapes[0])) for c in ND_CASES),
           dtypes=FLOATS + INTS, prepare=_nd_prepare(2, 0), wrt=(2,)),
]


# -- nonzero, index_put -----------------------------------------------------------------------

def ref_nonzero(x):
    rows = [pos for pos in itertools.product(*map(range, x.shape)) if x[pos]]
    return np.array(rows, dtype=np.int64).reshape(len(rows), x.ndim)


def _index_put(x, *rest, accumulate):
    *indices, value = rest
    return F.index_put(x, list(indices), value, accumulate)


def _index_put_grad(x, *rest, accumulate):
    *indices, value, g = rest
    return F.index_put_grad(x, list(indices), value, g, accumulate)


def _index_put_prepare(arrays, attrs):
    x, *indices, value = arrays
    return _index_put_indices(x, indices, attrs) + [value]


def _index_put_indices(x, indices, attrs):
    out = [x]
    for dim, raw in enumerate(indices):
        if attrs["accumulate"]:
            out.append(_ints(raw, -x.shape[dim], x.shape[dim]))
        else:  # distinct coordinates in every dimension: no place written twice
            out.append(_distinct(raw, x.shape[dim]) - x.shape[dim] * (raw.size % 2))
    return out


def ref_index_put(x, *rest, accumulate):
    *indices, value = rest
    out = x.copy()
    region = x[tuple(indices)].shape
    value = np.broadcast_to(value, region)
    flat = np.broadcast_arrays(*indices)
    for pos in itertools.product(*map(range, flat[0].shape)):
        place = tuple(int(i[pos]) for i in flat)
        out[place] = out[place] + value[pos] if accumulate else value[pos]
    return out


def ref_index_put_grad(x, *rest, accumulate):
    *indices, value, g = rest

    def x_part(a):
        return ref_index_put(a, *indices, np.zeros(value.shape), accumulate=accumulate)

    def value_part(v):
        return ref_index_put(np.zeros(x.shape), *indices, v, accumulate=accumulate)

    return linear_vjp(x_part, x.shape, g, g.dtype), linear_vjp(value_part, value.shape, g, g.dtype)


INDEX_PUT_CASES = tuple(
    Case(shapes, {"accumulate": accumulate})
    for shapes in (((4, 3), (2,), (2,), ()), ((4, 3), (3,), (3,), (3,)), ((4, 3), (2, 1), (3,), (2, 3)),
                   ((4, 3, 2), (2,), (2,), (2, 2)), ((4, 3, 2), (2,), (2,), (2,)), ((4, 3), (0,), (0,), ()))
    for accumulate in (False, True))


def _index_put_grad_prepare(arrays, attrs):
    *head, g = arrays
    return _index_put_prepare(head, attrs) + [g]


SPECS += [
    OpSpec("nonzero", F.nonzero, ref_nonzero, ("coarse",),
           tuple(Case((s,)) for s in ((3, 4), (5,), (), (0, 3), (2, 3, 2))), dtypes=FLOATS + INTS + ("bool",),
           grad=False),
    OpSpec("index_put", _index_put, ref_index_put, ("real",) * 4,
           INDEX_PUT_CASES, dtypes=FLOATS + INTS, prepare=_index_put_prepare, wrt=(0, 3)),
    OpSpec("index_put_grad", _index_put_grad, ref_index_put_grad, ("real",) * 5,
           tuple(Case(c.shapes + (c.shapes[0],), c.attrs) for c in INDEX_PUT_CASES), dtypes=FLOATS + INTS,
           prepare=_index_put_grad_prepare, wrt=(4,)),
]
