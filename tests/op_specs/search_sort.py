"""The op table of the search sort ops.

The references walk each row in plain Python with explicit tie rules (sorting
(value, index) pairs, counting with a dict, a running loop), so they share
nothing with the kernels' vectorized stable sorts and scans. Integer inputs
are drawn from [-3, 3], so ties are common and the tie rules are checked;
float inputs are distinct (finite differences need them away from ties).
"""
from __future__ import annotations

import numpy as np

import eager
from eager.generated import forward_api as F

from .core import FLOATS, INTS, Case, OpSpec

D = eager.DataType
# Every dtype the kernels register: the ordered (real) ones, and float16 for the gradients.
REAL = FLOATS + INTS + ("float16", "int8", "uint8", "int16")
GRAD_FLOATS = FLOATS + ("float16",)


# -- helpers -------------------------------------------------------------------------------

def _last_axis(axis, ndim):
    if ndim == 0:
        return 0
    return ndim - 1 if axis is None else axis % ndim


def _rows(x, axis):
    """x with axis moved last, as (batch shape, list of 1-D rows)."""
    moved = np.moveaxis(x, axis, -1)
    return moved.shape[:-1], [moved[index] for index in np.ndindex(moved.shape[:-1])]


def _from_rows(batch, rows, width, dtype, axis):
    """Rows of ``width`` stacked back to batch + (width,), then the last axis moved to axis."""
    out = np.empty(batch + (width,), dtype=dtype)
    for index, row in zip(np.ndindex(batch), rows):
        out[index] = row
    return np.moveaxis(out, -1, axis)


def _order(row, descending):
    """Positions sorting row; equal values by increasing position either way."""
    return sorted(range(len(row)), key=lambda i: ((-1 if descending else 1) * row[i].item(), i))


def _per_row(x, axis, fn, width, dtypes):
    """Applies fn(row) -> tuple of 1-D results of ``width`` along axis of x (not 0-d)."""
    batch, rows = _rows(x, axis)
    results = [fn(row) for row in rows]
    return tuple(_from_rows(batch, [r[j] for r in results], width, dtype, axis)
                 for j, dtype in enumerate(dtypes))


def ref_scatter_back(shape, indices, grad, axis):
    """x-shaped: each grad entry added at its index along axis (a loop over entries,
    summed in float64 and rounded once, so float16 sums are exact before rounding)."""
    out = np.zeros(shape, dtype=np.float64)
    if len(shape) == 0:
        return grad.copy()
    for position in np.ndindex(grad.shape):
        target = list(position)
        target[axis] = int(indices[position])
        out[tuple(target)] += grad[position]
    return out.astype(grad.dtype)


# -- argmax / argmin -----------------------------------------------------------------------

def _ref_arg(pick_max):
    def ref(x, axis=None, keepdim=False, dtype="int64"):
        dtype = np.dtype(getattr(dtype, "numpy_dtype", dtype))
        better = (lambda a, b: a > b) if pick_max else (lambda a, b: a < b)

        def first_extreme(row):
            best = 0
            for i in range(1, len(row)):
                if better(row[i], row[best]):
                    best = i
            return best
        if x.ndim == 0:
            return np.zeros((), dtype=dtype)
        if axis is None:
            out = np.asarray(first_extreme(x.reshape(-1)), dtype=dtype)
            return out.reshape((1,) * x.ndim) if keepdim else out
        axis = axis % x.ndim
        batch, rows = _rows(x, axis)
        out = np.array([first_extreme(r) for r in rows], dtype=dtype).reshape(batch)
        return np.expand_dims(out, axis) if keepdim else out
    return ref


ARG_CASES = (
    Case(((3, 4),)),
    Case(((3, 4),), {"axis": 1}),
    Case(((3, 4),), {"axis": -2, "keepdim": True}),
    Case(((2, 3, 4),), {"keepdim": True}),
    Case(((2, 3, 4),), {"axis": 1, "dtype": "int32"}),
    Case(((),)),
    Case(((),), {"axis": -1, "keepdim": True}),
    Case(((0, 3),), {"axis": 1}),
    Case(((5,),), {"axis": 0, "dtype": D.INT32}),
)


# -- topk, sort, argsort, kthvalue ---------------------------------------------------------

def ref_topk(x, k, axis=None, largest=True, sorted=True):
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    axis = _last_axis(axis, x.ndim)

    def pick(row):
        chosen = _order(row, largest)[:k]
        return row[chosen], np.array(chosen, dtype=np.int64)
    return _per_row(x, axis, pick, k, (x.dtype, np.int64))


def _ref_sorted(x, axis, descending):
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    axis = axis % x.ndim

    def pick(row):
        order = _order(row, descending)
        return row[order], np.array(order, dtype=np.int64)
    return _per_row(x, axis, pick, x.shape[axis], (x.dtype, np.int64))


def ref_sort(x, axis=-1, descending=False, stable=False):
    return _ref_sorted(x, axis, descending)[0]


def ref_argsort(x, axis=-1, descending=False, stable=False):
    return _ref_sorted(x, axis, descending)[1]


def ref_kthvalue(x, k, axis=None, keepdim=False):
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    axis = _last_axis(axis, x.ndim)

    def pick(row):
        index = _order(row, False)[k - 1]
        return row[[index]], np.array([index], dtype=np.int64)
    values, indices = _per_row(x, axis, pick, 1, (x.dtype, np.int64))
    if not keepdim:
        values, indices = values.squeeze(axis), indices.squeeze(axis)
    return values, indices


def ref_mode(x, axis=-1, keepdim=False):
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    axis = axis % x.ndim

    def pick(row):
        counts, last = {}, {}
        for i, v in enumerate(row.tolist()):
            counts[v] = counts.get(v, 0) + 1
            last[v] = i
        most = max(counts.values())
        value = min(v for v, c in counts.items() if c == most)
        return np.array([value], dtype=row.dtype), np.array([last[value]], dtype=np.int64)
    values, indices = _per_row(x, axis, pick, 1, (x.dtype, np.int64))
    if not keepdim:
        values, indices = values.squeeze(axis), indices.squeeze(axis)
    return values, indices


def _ref_cum(pick_max):
    def ref(x, axis=None, dtype="int64"):
        dtype = np.dtype(getattr(dtype, "numpy_dtype", dtype))
        if axis is None:
            x, axis = x.reshape(-1), 0
        if x.ndim == 0:
            return x.copy(), np.zeros((), dtype)
        axis = axis % x.ndim

        def run(row):
            values, where = [], []
            for i, v in enumerate(row):
                # >= / <=: an equal value moves the index to the latest one.
                if not where or (v >= values[-1] if pick_max else v <= values[-1]):
                    values.append(v)
                    where.append(i)
                else:
                    values.append(values[-1])
                    where.append(where[-1])
            return np.array(values, dtype=row.dtype), np.array(where, dtype=dtype)
        return _per_row(x, axis, run, x.shape[axis], (x.dtype, dtype))
    return ref


# Distinct float values keep finite differences away from ties (and mode's
# answer, the smallest when every value occurs once, differentiable).
TOPK_CASES = (
    Case(((3, 5),), {"k": 2}),
    Case(((3, 5),), {"k": 3, "axis": 0, "largest": False}),
    Case(((2, 3, 4),), {"k": 4, "axis": -1}),
    Case(((2, 3, 4),), {"k": 1, "axis": 1, "largest": False, "sorted": False}),
    Case(((),), {"k": 1}),
    Case(((0, 3),), {"k": 2, "axis": 1}),
    Case(((6,),), {"k": 6}),
)
SORT_CASES = (
    Case(((3, 5),)),
    Case(((3, 5),), {"axis": 0, "descending": True}),
    Case(((2, 3, 4),), {"axis": -2, "stable": True}),
    Case(((2, 3, 4),), {"axis": 2, "descending": True, "stable": True}),
    Case(((),)),
    Case(((0, 3),), {"axis": 1}),
    Case(((7,),), {"descending": True}),
)
KTH_CASES = (
    Case(((3, 5),), {"k": 2}),
    Case(((3, 5),), {"k": 3, "axis": 0, "keepdim": True}),
    Case(((2, 3, 4),), {"k": 4, "axis": -1}),
    Case(((2, 3, 4),), {"k": 1, "axis": 1, "keepdim": True}),
    Case(((),), {"k": 1}),
    Case(((),), {"k": 1, "keepdim": True}),
    Case(((0, 3),), {"k": 2, "axis": 1}),
)
MODE_CASES = (
    Case(((3, 6),)),
    Case(((3, 6),), {"axis": 0, "keepdim": True}),
    Case(((2, 3, 4),), {"axis": -2}),
    Case(((2, 3, 4),), {"axis": 2, "keepdim": True}),
    Case(((),)),
    Case(((0, 3),), {"axis": 1}),
    Case(((8,),), {"keepdim": True}),
)
CUM_CASES = (
    Case(((3, 5),), {"axis": 1}),
    Case(((3, 5),), {"axis": 0, "dtype": "int32"}),
    Case(((2, 3, 4),), {"axis": -1}),
    Case(((2, 3, 4),)),
    Case(((),)),
    Case(((),), {"axis": -1}),
    Case(((0, 3),), {"axis": 0}),
    Case(((9,),), {"axis": 0}),
)


# -- the backward ops: indices consistent with x, from the references above -------------------

def _grad_prepare(forward, reduced):
    """Inputs (x, indices, out_grad) of a backward op: indices from the reference
    forward on x, out_grad drawn and shaped like them."""
    def prepare(arrays, attrs):
        x, _, grad_source = arrays
        forward_attrs = {k: v for k, v in attrs.items() if k in reduced}
        _, indices = forward(x, **forward_attrs)
        grad = np.resize(grad_source.reshape(-1), indices.shape)  # the source is never empty
        return [x, indices, grad.astype(x.dtype)]
    return prepare


def _grad_cases(cases, defaults):
    """Backward cases from forward cases: x, then indices and out_grad (reshaped by prepare)."""
    return tuple(Case((c.shapes[0], c.shapes[0], (max(1, int(np.prod(c.shapes[0]))),)),
                      {**defaults, **c.attrs}) for c in cases)


def _ref_grad(axis_of, reduced_axis=True):
    def ref(x, indices, out_grad, **attrs):
        axis = axis_of(x, attrs)
        if axis is None:  # cummax/cummin over x flattened
            return ref_scatter_back((x.size,), indices, out_grad, 0).reshape(x.shape)
        if reduced_axis and x.ndim and not attrs.get("keepdim", True):
            indices, out_grad = np.expand_dims(indices, axis), np.expand_dims(out_grad, axis)
        return ref_scatter_back(x.shape, indices, out_grad, axis)
    return ref


def _axis_attr(default):
    def axis_of(x, attrs):
        axis = attrs.get("axis", default)
        return _last_axis(axis, x.ndim)
    return axis_of


def _cum_axis(x, attrs):
    axis = attrs.get("axis")
    return None if axis is None else _last_axis(axis, x.ndim)


TOPK_DEFAULTS = {"axis": None, "largest": True, "sorted": True}
SORT_DEFAULTS = {"axis": -1, "descending": False, "stable": False}
KTH_DEFAULTS = {"axis": None, "keepdim": False}
MODE_DEFAULTS = {"axis": -1, "keepdim": False}
CUM_DEFAULTS = {"axis": None, "dtype": "int64"}


# -- unique --------------------------------------------------------------------------------------

def ref_unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None, dtype="int64"):
    """Distinct elements (or slices along axis, compared as tuples) from a dict of first
    positions; the results the flags ask for, in Paddle's order."""
    dtype = np.dtype(getattr(dtype, "numpy_dtype", dtype))
    if axis is None:
        items = [v.item() for v in x.reshape(-1)]
        slice_shape = ()
        moved = x.reshape(-1)
    else:
        moved = np.moveaxis(x, axis, 0)
        items = [tuple(moved[i].reshape(-1).tolist()) for i in range(moved.shape[0])]
        slice_shape = moved.shape[1:]
    first = {}
    for position, item in enumerate(items):
        first.setdefault(item, position)
    distinct = sorted(first)
    rank = {item: r for r, item in enumerate(distinct)}
    picked = np.array([moved[first[item]] for item in distinct], dtype=x.dtype).reshape((len(distinct),) + slice_shape)
    out = picked if axis is None else np.moveaxis(picked, 0, axis)
    results = [out]
    if return_index:
        results.append(np.array([first[item] for item in distinct], dtype=dtype))
    if return_inverse:
        results.append(np.array([rank[item] for item in items], dtype=dtype))
    if return_counts:
        results.append(np.array([items.count(item) for item in distinct], dtype=dtype))
    return results[0] if len(results) == 1 else tuple(results)


_ALL_FLAGS = {"return_index": True, "return_inverse": True, "return_counts": True}
UNIQUE_CASES = (
    Case(((3, 4),)),
    Case(((3, 4),), _ALL_FLAGS),
    Case(((2, 3, 4),), {"return_counts": True, "dtype": "int32"}),
    Case(((4, 3),), {**_ALL_FLAGS, "axis": 0}),
    Case(((3, 4),), {"return_inverse": True, "axis": -1}),
    Case(((2, 3, 2),), {**_ALL_FLAGS, "axis": 1}),
    Case(((),), _ALL_FLAGS),
    Case(((0, 3),), _ALL_FLAGS),
    Case(((3, 0),), {**_ALL_FLAGS, "axis": 0}),
)


# -- bincount ------------------------------------------------------------------------------------

def ref_bincount(x, weights=None, minlength=0):
    length = max([minlength] + [int(v) + 1 for v in x])
    # int64 counts; float64 for integer weights (Paddle 2.6.2 sums them into doubles); else the weights' dtype
    out = np.zeros(length, dtype=np.int64 if weights is None else weights.dtype if weights.dtype.kind == "f"
                   else np.float64)
    for i, v in enumerate(x):
        out[int(v)] += 1 if weights is None else weights[i]
    return out


BINCOUNT_CASES = (
    Case(((7,), None)),
    Case(((7,), (7,))),
    Case(((5,), None), {"minlength": 9}),
    Case(((0,), None)),
    Case(((0,), (0,)), {"minlength": 3}),
)



# -- searchsorted / histogram ----------------------------------------------------------------

def _sorted_last_axis(arrays, attrs):
    """The sequence sorted along its last axis (drawn coarse, so values repeat)."""
    sequence, values = arrays
    return [np.sort(sequence, axis=-1), values]


def ref_searchsorted(sorted_sequence, values, out_int32=False, right=False):
    """A count per value: the sequence entries below it (or at most it, for right)."""
    out = np.zeros(values.shape, dtype=np.int32 if out_int32 else np.int64)
    for index in np.ndindex(values.shape):
        row = sorted_sequence if sorted_sequence.ndim == 1 else sorted_sequence[index[:-1]]
        v = values[index]
        out[index] = sum(1 for s in row if (s <= v if right else s < v))
    return out


def ref_histogram(input, bins=100, min=0.0, max=0.0):  # noqa: A002  (Paddle's names)
    """Each element placed by the bin formula, in a loop; the range from the data when min == max == 0."""
    data = [float(v) for v in input.reshape(-1)]
    low, high = float(min), float(max)
    if low == 0 and high == 0 and data:
        low, high = sorted(data)[0], sorted(data)[-1]
    if low == high:
        low, high = low - 1, high + 1
    out = np.zeros(bins, dtype=np.int64)
    for v in data:
        if low <= v <= high:
            index = int((v - low) * bins / (high - low))
            out[index if index < bins else bins - 1] += 1
    return out


SEARCHSORTED_CASES = (
    Case(((6,), (3, 4))),
    Case(((6,), (3, 4)), {"right": True}),
    Case(((2, 3, 5), (2, 3, 4)), {"out_int32": True}),
    Case(((2, 5), (2, 4)), {"right": True}),
    Case(((5,), ())),
    Case(((4,), (0,))),
)
HISTOGRAM_CASES = (
    Case(((3, 4),), {"bins": 5}),
    Case(((10,),), {"bins": 4, "min": -1.0, "max": 1.0}),
    Case(((7,),), {"bins": 3, "min": 0.5, "max": 0.5}),
    Case(((6,),)),
    Case(((0,),), {"bins": 2}),
)

SPECS: list = [
    OpSpec("argmax", eager.argmax, _ref_arg(True), ("real",), ARG_CASES, REAL, grad=False),
    OpSpec("argmin", eager.argmin, _ref_arg(False), ("real",), ARG_CASES, REAL, grad=False),
    OpSpec("topk", eager.topk, ref_topk, ("real",), TOPK_CASES, REAL),
    OpSpec("topk_grad", F.topk_grad, _ref_grad(_axis_attr(None), reduced_axis=False), ("real", "real", "real"),
           _grad_cases(TOPK_CASES, TOPK_DEFAULTS), prepare=_grad_prepare(ref_topk, ("k", "axis", "largest", "sorted")),
           dtypes=GRAD_FLOATS, wrt=(2,)),
    OpSpec("sort", eager.sort, ref_sort, ("real",), SORT_CASES, REAL),
    OpSpec("sort_grad", F.sort_grad, _ref_grad(_axis_attr(-1), reduced_axis=False), ("real", "real", "real"),
           _grad_cases(SORT_CASES, SORT_DEFAULTS),
           prepare=_grad_prepare(lambda x, **a: _ref_sorted(x, a.get("axis", -1), a.get("descending", False)),
                                 ("axis", "descending")),
           dtypes=GRAD_FLOATS, wrt=(2,)),
    OpSpec("argsort", eager.argsort, ref_argsort, ("real",), SORT_CASES, REAL, grad=False),
    OpSpec("kthvalue", eager.kthvalue, ref_kthvalue, ("real",), KTH_CASES, REAL),
    OpSpec("kthvalue_grad", F.kthvalue_grad, _ref_grad(_axis_attr(None)), ("real", "real", "real"),
           _grad_cases(KTH_CASES, KTH_DEFAULTS), prepare=_grad_prepare(ref_kthvalue, ("k", "axis", "keepdim")),
           dtypes=GRAD_FLOATS, wrt=(2,)),
    OpSpec("cummax", eager.cummax, _ref_cum(True), ("real",), CUM_CASES, REAL),
    OpSpec("cummax_grad", F.cummax_grad, _ref_grad(_cum_axis), ("real", "real", "real"),
           _grad_cases(CUM_CASES, CUM_DEFAULTS), prepare=_grad_prepare(_ref_cum(True), ("axis", "dtype")),
           dtypes=GRAD_FLOATS, wrt=(2,)),
    OpSpec("cummin", eager.cummin, _ref_cum(False), ("real",), CUM_CASES, REAL),
    OpSpec("cummin_grad", F.cummin_grad, _ref_grad(_cum_axis), ("real", "real", "real"),
           _grad_cases(CUM_CASES, CUM_DEFAULTS), prepare=_grad_prepare(_ref_cum(False), ("axis", "dtype")),
           dtypes=GRAD_FLOATS, wrt=(2,)),
    OpSpec("mode", eager.mode, ref_mode, ("real",), MODE_CASES, REAL),
    OpSpec("mode_grad", F.mode_grad, _ref_grad(_axis_attr(-1)), ("real", "real", "real"),
           _grad_cases(MODE_CASES, MODE_DEFAULTS), prepare=_grad_prepare(ref_mode, ("axis", "keepdim")),
           dtypes=GRAD_FLOATS, wrt=(2,)),
    OpSpec("unique", eager.unique, ref_unique, ("real",), UNIQUE_CASES, REAL, grad=False),
    OpSpec("bincount", eager.bincount, ref_bincount, ("positive", "real"), BINCOUNT_CASES, INTS, grad=False),
    OpSpec("searchsorted", eager.searchsorted, ref_searchsorted, ("coarse", "coarse"), SEARCHSORTED_CASES,
           FLOATS + INTS, grad=False, prepare=_sorted_last_axis),
    OpSpec("histogram", eager.histogram, ref_histogram, ("real",), HISTOGRAM_CASES, FLOATS + INTS, grad=False),
]
