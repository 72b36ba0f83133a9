"""The op table of the reduce scan ops.

The references are written from the definitions, one group (or one scanned
line) at a time: a reduction's gradient is computed per group by a 1-D formula
(the product of the others by deleting each element, the softmax of the group,
...), never by the kernels' vectorized tricks.
"""
from __future__ import annotations

import warnings

import numpy as np

import eager
from eager.generated import forward_api as F

from .core import FLOATS, INTS, Case, OpSpec

D = eager.DataType
REAL_TYPES = FLOATS + INTS


# -- cases ----------------------------------------------------------------------------

def _reduce_cases(empty_groups=True):
    """Axis None, ints, lists, negative axes, keepdim both ways, 0-d and size-0 inputs.
    Without empty_groups, no case reduces over a size-0 axis (max of nothing is an error)."""
    cases = [
        Case(((2, 3, 4),), {}),
        Case(((2, 3, 4),), {"axis": None}),
        Case(((2, 3, 4),), {"axis": 1}),
        Case(((2, 3, 4),), {"axis": [-1], "keepdim": True}),
        Case(((2, 3, 4),), {"axis": [0, 2]}),
        Case(((2, 3, 4),), {"axis": [2, 0], "keepdim": True}),
        Case(((5,),), {"axis": 0}),
        Case(((),), {}),
        Case(((),), {"axis": [-1]}),
        Case(((0, 3),), {"axis": [1], "keepdim": True}),
    ]
    if empty_groups:
        cases += [Case(((0, 3),), {"axis": [0]}), Case(((0, 3),), {})]
    return tuple(cases)


def _axes(axis, ndim) -> tuple:
    if axis is None or axis == []:
        return tuple(range(ndim))
    axis = [axis] if isinstance(axis, int) else axis
    return tuple(sorted({a % ndim for a in axis})) if ndim else ()


def _reduced_shape(shape, axis, keepdim):
    axes = _axes(axis, len(shape))
    return tuple(1 if i in axes else d for i, d in enumerate(shape)) if keepdim else \
        tuple(d for i, d in enumerate(shape) if i not in axes)


def _numpy_axis(axis, ndim):
    axes = _axes(axis, ndim)
    return axes if ndim else None


def _quiet(fn):
    """NumPy's warnings for empty or degenerate reductions (the values are what we want)."""
    def call(*args, **kwargs):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            return fn(*args, **kwargs)
    return call


# -- per-group helpers of the gradient references -------------------------------------------

def _groups(x, axis):
    """x as rows (one per reduced group) and a function putting rows back in x's shape."""
    axes = _axes(axis, x.ndim)
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(x, rest + list(axes))
    rows = moved.reshape(int(np.prod([x.shape[i] for i in rest], dtype=np.int64)),
                         int(np.prod([x.shape[a] for a in axes], dtype=np.int64)))

    def back(values):
        return np.transpose(np.asarray(values).reshape(moved.shape), np.argsort(rest + list(axes)))
    return rows, back


def _reduce_grad_reference(row_grad):
    """Reference of a reduction's gradient from ``row_grad(row, g) -> gradient of the row``."""
    def reference(x, g, axis=None, keepdim=False, **attrs):
        rows, back = _groups(x.astype(np.float64), axis)
        scalars = np.asarray(g, np.float64).reshape(-1)
        out = np.zeros_like(rows)
        for m in range(rows.shape[0]):
            if rows.shape[1]:
                out[m] = row_grad(rows[m], scalars[m], **attrs)
        return back(out).astype(x.dtype)
    return reference


def _with_out(reference_grad):
    """Drops the saved forward result (the references recompute what they need)."""
    def reference(x, out, g, *args, **attrs):
        return reference_grad(x, g, *args, **attrs)
    return reference


def _lines(x, axis):
    """x as rows along the scanned axis (flattened when axis is None), and the way back."""
    if axis is None:
        flat = x.reshape(1, -1)
        return flat, lambda values: np.asarray(values).reshape(x.shape)
    if x.ndim == 0:
        return x.reshape(1, 1), lambda values: np.asarray(values).reshape(())
    moved = np.moveaxis(x, axis, -1)
    return moved.reshape(int(np.prod(moved.shape[:-1], dtype=np.int64)), moved.shape[-1]), lambda values: np.moveaxis(
        np.asarray(values).reshape(moved.shape), -1, axis)


def _scan_grad_reference(line_grad, axis_name="axis"):
    def reference(x, g, **attrs):
        axis = attrs.get(axis_name)
        rows, back = _lines(x.astype(np.float64), axis)
        grads, _ = _lines(np.asarray(g, np.float64).reshape(x.shape) if axis is not None
                          else np.asarray(g, np.float64), axis)
        out = np.zeros_like(rows)
        for m in range(rows.shape[0]):
            out[m] = line_grad(rows[m], grads.reshape(rows.shape)[m])
        return back(out).astype(x.dtype)
    return reference


def _prepared_result(forward):
    """Backward ops that read their forward's output get a consistent one."""
    def prepare(arrays, attrs):
        x, _, g = arrays
        return [x, np.asarray(forward(x, **attrs)), g]
    return prepare


# -- forward references ----------------------------------------------------------------------

def ref_max(x, axis=None, keepdim=False):
    return np.asarray(np.max(x, axis=_numpy_axis(axis, x.ndim), keepdims=keepdim))


def ref_min(x, axis=None, keepdim=False):
    return np.asarray(np.min(x, axis=_numpy_axis(axis, x.ndim), keepdims=keepdim))


def ref_prod(x, axis=None, keepdim=False, dtype=None):
    out_dtype = x.dtype if dtype is None else dtype.numpy_dtype
    return np.asarray(np.prod(x.astype(out_dtype), axis=_numpy_axis(axis, x.ndim), keepdims=keepdim,
                              dtype=out_dtype))


def ref_cumsum(x, axis=None, dtype=None):
    out_dtype = x.dtype if dtype is None else dtype.numpy_dtype
    if axis is None:
        return np.cumsum(x.reshape(-1), dtype=out_dtype)
    return np.cumsum(x.reshape(1) if x.ndim == 0 else x, axis=axis, dtype=out_dtype).reshape(x.shape)


def ref_cumprod(x, dim=None, dtype=None):
    out_dtype = x.dtype if dtype is None else dtype.numpy_dtype
    if dim is None:
        return np.cumprod(x.reshape(-1), dtype=out_dtype)
    return np.cumprod(x.reshape(1) if x.ndim == 0 else x, axis=dim, dtype=out_dtype).reshape(x.shape)


def ref_logcumsumexp(x, axis=None, dtype=None):
    values = x if dtype is None else x.astype(dtype.numpy_dtype)
    if axis is None:
        return np.logaddexp.accumulate(values.reshape(-1).astype(np.float64)).astype(values.dtype)
    line = values.reshape(1) if values.ndim == 0 else values
    return np.logaddexp.accumulate(line.astype(np.float64), axis=axis).reshape(values.shape).astype(values.dtype)


def ref_all(x, axis=None, keepdim=False):
    return np.asarray(np.all(x, axis=_numpy_axis(axis, x.ndim), keepdims=keepdim))


def ref_any(x, axis=None, keepdim=False):
    return np.asarray(np.any(x, axis=_numpy_axis(axis, x.ndim), keepdims=keepdim))


def ref_count_nonzero(x, axis=None, keepdim=False):
    return np.asarray(np.sum(x != 0, axis=_numpy_axis(axis, x.ndim), keepdims=keepdim), dtype=np.int64)


@_quiet
def ref_logsumexp(x, axis=None, keepdim=False):
    wide = x.astype(np.float64)
    return np.asarray(np.log(np.sum(np.exp(wide), axis=_numpy_axis(axis, x.ndim), keepdims=keepdim))).astype(x.dtype)


@_quiet
def ref_var(x, axis=None, unbiased=True, keepdim=False):
    # Paddle divides by N - 1 only where N > 1: the unbiased variance of one element is 0
    axes = _numpy_axis(axis, x.ndim)
    count = x.size if axes is None else int(np.prod([x.shape[a] for a in np.atleast_1d(axes)]))
    return np.asarray(np.var(x.astype(np.float64), axis=axes, ddof=1 if unbiased and count > 1 else 0,
                             keepdims=keepdim)).astype(x.dtype)


@_quiet
def ref_std(x, axis=None, unbiased=True, keepdim=False):
    return np.sqrt(ref_var(x.astype(np.float64), axis, unbiased, keepdim)).astype(x.dtype)


def _order(p):
    return 2.0 if p == "fro" else float(p)


@_quiet
def ref_norm(x, p="fro", axis=None, keepdim=False):
    order, wide, ax = _order(p), np.abs(x.astype(np.float64)), _numpy_axis(axis, x.ndim)
    if x.size == 0:
        out = np.sum(wide, axis=ax, keepdims=keepdim)
    elif order == np.inf:
        out = np.max(wide, axis=ax, keepdims=keepdim)
    elif order == -np.inf:
        out = np.min(wide, axis=ax, keepdims=keepdim)
    elif order == 0:
        out = np.sum(wide != 0, axis=ax, keepdims=keepdim)
    else:
        out = np.sum(wide ** order, axis=ax, keepdims=keepdim) ** (1.0 / order)
    return np.asarray(out).astype(x.dtype)


def _with_nans(arrays, attrs):
    """Every third element NaN, for the nan-reductions."""
    x, *rest = arrays
    if x.dtype.kind == "f" and x.ndim:  # a 0-d NaN would have no gradient to check
        x = x.copy()
        x.reshape(-1)[::3] = np.nan
    return [x, *rest]


def ref_nansum(x, axis=None, dtype=None, keepdim=False):
    out_dtype = dtype.numpy_dtype if dtype is not None else (np.dtype("int64") if x.dtype.kind in "iu" else x.dtype)
    return np.asarray(np.nansum(x, axis=_numpy_axis(axis, x.ndim), keepdims=keepdim, dtype=out_dtype))


@_quiet
def ref_nanmean(x, axis=None, keepdim=False):
    return np.asarray(np.nanmean(x.astype(np.float64), axis=_numpy_axis(axis, x.ndim), keepdims=keepdim)
                      ).astype(x.dtype)


@_quiet
def ref_median(x, axis=None, keepdim=False):
    out_dtype = np.float64 if x.dtype == np.float64 else np.float32
    values = np.median(x.astype(np.float64), axis=None if axis is None or x.ndim == 0 else axis,
                       keepdims=keepdim)
    if keepdim and (axis is None or x.ndim == 0):
        values = np.reshape(values, (1,) * x.ndim)
    return np.asarray(values).astype(out_dtype)


# -- gradient references, per group ----------------------------------------------------------

def _max_row(row, g):
    return (row == row.max()) * g


def _min_row(row, g):
    return (row == row.min()) * g


def _amax_row(row, g):
    hits = row == row.max()
    return hits * g / hits.sum()


def _amin_row(row, g):
    hits = row == row.min()
    return hits * g / hits.sum()


def _prod_row(row, g):
    return np.array([np.prod(np.delete(row, i)) for i in range(row.size)]) * g


def _logsumexp_row(row, g):
    return np.exp(row - np.log(np.sum(np.exp(row)))) * g


def _var_row(row, g, unbiased=True):
    return 2 * (row - row.mean()) / (row.size - unbiased if row.size > 1 else row.size) * g


def _std_row(row, g, unbiased=True):
    std = np.sqrt(np.sum((row - row.mean()) ** 2) / (row.size - unbiased))
    return (row - row.mean()) / ((row.size - unbiased) * std) * g


def _norm_row(row, g, p="fro"):
    order = _order(p)
    if order == 0:
        return np.zeros_like(row)
    if np.isinf(order):
        target = np.abs(row).max() if order > 0 else np.abs(row).min()
        return np.sign(row) * (np.abs(row) == target) * g
    norm = np.sum(np.abs(row) ** order) ** (1 / order)
    return np.sign(row) * (np.abs(row) / norm) ** (order - 1) * g


def _nansum_row(row, g, dtype=None):
    return np.where(np.isnan(row), 0.0, g)


def _nanmean_row(row, g):
    present = ~np.isnan(row)
    return np.where(present, g / max(present.sum(), 1), 0.0)


def _median_row(row, g):
    ordered = np.sort(row)
    weights = np.zeros_like(row)
    for rank in ((row.size - 1) // 2, row.size // 2):
        holders = row == ordered[rank]
        weights += 0.5 * holders / holders.sum()
    return weights * g


def _cumsum_line(line, g):
    return np.array([g[i:].sum() for i in range(line.size)])


def _cumprod_line(line, g):
    return np.array([sum(g[k] * np.prod(np.delete(line[:k + 1], i)) for k in range(i, line.size))
                     for i in range(line.size)])


def _logcumsumexp_line(line, g):
    out = np.logaddexp.accumulate(line)
    return np.array([sum(g[k] * np.exp(line[i] - out[k]) for k in range(i, line.size))
                     for i in range(line.size)])


def _median_grad(x, g, axis=None, keepdim=False):
    return _reduce_grad_reference(_median_row)(x, g, None if axis is None else [axis], keepdim)


# -- cases of the ops with extra attributes --------------------------------------------------

SCAN_CASES = (
    Case(((2, 3, 4),), {"axis": 1}),
    Case(((2, 3, 4),), {"axis": -1}),
    Case(((2, 3, 4),), {}),
    Case(((5,),), {"axis": 0}),
    Case(((),), {"axis": 0}),
    Case(((),), {}),
    Case(((0, 3),), {"axis": 0}),
    Case(((2, 0),), {"axis": 1}),
)


def _scan_cases(axis_name="axis"):
    return tuple(Case(c.shapes, {axis_name if k == "axis" else k: v for k, v in c.attrs.items()}) for c in SCAN_CASES)


def _scan_out(x, attrs):
    axis = attrs.get("axis", attrs.get("dim"))
    return (int(np.prod(x, dtype=np.int64)),) if axis is None else x


MEDIAN_CASES = (
    Case(((2, 3, 4),), {}),
    Case(((2, 3, 4),), {"axis": 1}),
    Case(((2, 3, 4),), {"axis": -1, "keepdim": True}),
    Case(((3, 4),), {"axis": 0}),
    Case(((5,),), {"keepdim": True}),
    Case(((),), {}),
    Case(((),), {"axis": -1}),
    Case(((0, 3),), {"axis": 1}),
)

NORM_CASES = tuple(Case(((2, 3, 4),), attrs) for attrs in (
    {}, {"p": "fro", "axis": [0, 2]}, {"p": 2, "axis": -1, "keepdim": True}, {"p": 1, "axis": 1},
    {"p": 3.0, "axis": [1, 2]}, {"p": 0.5}, {"p": float("inf"), "axis": 0}, {"p": float("-inf"), "axis": [-1]},
    {"p": 0, "axis": 1}, {"p": -2.0, "axis": 2},
)) + (Case(((),), {}), Case(((0, 3),), {"axis": [0]}), Case(((0, 3),), {"p": 3.0, "axis": 1}))

# N - 1 = 0 for a 0-d input: the unbiased variance is NaN there, as in Paddle (values only).
VAR_CASES = tuple(Case(c.shapes, c.attrs, grad=bool(c.shapes[0])) for c in _reduce_cases(empty_groups=False)) + (
    Case(((),), {"unbiased": False}),
    Case(((2, 3, 4),), {"axis": [0, 1], "unbiased": False}),
    Case(((3, 4),), {"unbiased": False, "keepdim": True}),
)

# A 0-d std is 0, where its gradient is NaN (Paddle's): values only.
STD_CASES = tuple(Case(c.shapes, c.attrs, grad=bool(c.shapes[0])) for c in VAR_CASES)
EXTREME_CASES = _reduce_cases(empty_groups=False)
SMOOTH_CASES = _reduce_cases(empty_groups=False)


# Every attribute of a backward op, spelled out (its composite rule is called with them all).
REDUCE_ATTRS = {"axis": None, "keepdim": False}


def _grad_cases(cases, out_shape=None, attrs=REDUCE_ATTRS):
    """Cases of a backward op (x, out, out_grad) from its forward's cases."""
    return tuple(Case((c.shapes[0], _out_shape(c, out_shape), _out_shape(c, out_shape)), {**attrs, **c.attrs},
                      grad=c.grad)
                 for c in cases)


def _grad_cases_without_out(cases, out_shape=None, attrs=REDUCE_ATTRS):
    """Cases of a backward op (x, out_grad) from its forward's cases."""
    return tuple(Case((c.shapes[0], _out_shape(c, out_shape)), {**attrs, **c.attrs}, grad=c.grad) for c in cases)


def _out_shape(case, out_shape):
    (x,) = case.shapes
    if out_shape is not None:
        return tuple(out_shape(x, case.attrs))
    return _reduced_shape(x, case.attrs.get("axis"), case.attrs.get("keepdim", False))


def _median_out(x, attrs):
    axis = attrs.get("axis")
    return _reduced_shape(x, None if axis is None else [axis], attrs.get("keepdim", False))


def _nan_grad_prepare(arrays, attrs):
    x, g = arrays
    return [_with_nans([x], attrs)[0], g]


SPECS: list = [
    # -- extremes ---------------------------------------------------------------------
    OpSpec("max", eager.max, ref_max, ("real",), EXTREME_CASES, dtypes=REAL_TYPES),
    OpSpec("min", eager.min, ref_min, ("real",), EXTREME_CASES, dtypes=REAL_TYPES),
    OpSpec("amax", eager.amax, ref_max, ("real",), EXTREME_CASES, dtypes=REAL_TYPES),
    OpSpec("amin", eager.amin, ref_min, ("real",), EXTREME_CASES, dtypes=REAL_TYPES),
    OpSpec("max_grad", F.max_grad, _with_out(_reduce_grad_reference(_max_row)), ("coarse", "real", "real"),
           _grad_cases(EXTREME_CASES), prepare=_prepared_result(ref_max), wrt=(2,)),
    OpSpec("min_grad", F.min_grad, _with_out(_reduce_grad_reference(_min_row)), ("coarse", "real", "real"),
           _grad_cases(EXTREME_CASES), prepare=_prepared_result(ref_min), wrt=(2,)),
    OpSpec("amax_grad", F.amax_grad, _with_out(_reduce_grad_reference(_amax_row)), ("coarse", "real", "real"),
           _grad_cases(EXTREME_CASES), prepare=_prepared_result(ref_max), wrt=(2,)),
    OpSpec("amin_grad", F.amin_grad, _with_out(_reduce_grad_reference(_amin_row)), ("coarse", "real", "real"),
           _grad_cases(EXTREME_CASES), prepare=_prepared_result(ref_min), wrt=(2,)),
    # -- products and sums --------------------------------------------------------------
    OpSpec("prod", eager.prod, ref_prod, ("real",),
           _reduce_cases() + (Case(((2, 3),), {"axis": 1, "dtype": D.FLOAT64}),), dtypes=REAL_TYPES),
    OpSpec("prod_grad", F.prod_grad, _reduce_grad_reference(_prod_row), ("real", "real"),
           _grad_cases_without_out(_reduce_cases()), wrt=(0, 1)),
    OpSpec("cumsum", eager.cumsum, ref_cumsum, ("real",),
           SCAN_CASES + (Case(((2, 3),), {"axis": 1, "dtype": D.FLOAT64}),), dtypes=REAL_TYPES),
    OpSpec("cumsum_grad", F.cumsum_grad, _scan_grad_reference(_cumsum_line), ("real", "real"),
           _grad_cases_without_out(_scan_cases(), _scan_out, {"axis": None, "dtype": None}), wrt=(1,)),
    OpSpec("cumprod", eager.cumprod, ref_cumprod, ("real",),
           _scan_cases("dim") + (Case(((2, 3),), {"dim": 1, "dtype": D.FLOAT64}),), dtypes=REAL_TYPES),
    OpSpec("cumprod_grad", F.cumprod_grad, _scan_grad_reference(_cumprod_line, "dim"), ("real", "real"),
           _grad_cases_without_out(_scan_cases("dim"), _scan_out, {"dim": None, "dtype": None}), wrt=(0, 1)),
    OpSpec("nansum", eager.nansum, ref_nansum, ("real",),
           _reduce_cases() + (Case(((2, 3),), {"axis": 1, "dtype": D.FLOAT64}),), dtypes=REAL_TYPES,
           prepare=_with_nans),
    OpSpec("nansum_grad", F.nansum_grad, _reduce_grad_reference(_nansum_row), ("real", "real"),
           _grad_cases_without_out(_reduce_cases(), attrs={**REDUCE_ATTRS, "dtype": None}), prepare=_nan_grad_prepare, wrt=(1,)),
    OpSpec("nanmean", eager.nanmean, ref_nanmean, ("real",), _reduce_cases(), prepare=_with_nans),
    OpSpec("nanmean_grad", F.nanmean_grad, _reduce_grad_reference(_nanmean_row), ("real", "real"),
           _grad_cases_without_out(_reduce_cases()), prepare=_nan_grad_prepare, wrt=(1,)),
    # -- logical and counting (no gradient) -----------------------------------------------
    OpSpec("all", eager.all, ref_all, ("coarse",), _reduce_cases(), dtypes=REAL_TYPES + ("bool",), grad=False),
    OpSpec("any", eager.any, ref_any, ("coarse",), _reduce_cases(), dtypes=REAL_TYPES + ("bool",), grad=False),
    OpSpec("count_nonzero", eager.count_nonzero, ref_count_nonzero, ("coarse",), _reduce_cases(),
           dtypes=REAL_TYPES + ("bool",), grad=False),
    # -- smooth reductions ----------------------------------------------------------------
    OpSpec("logsumexp", eager.logsumexp, ref_logsumexp, ("real",), _reduce_cases()),
    OpSpec("logsumexp_grad", F.logsumexp_grad, _with_out(_reduce_grad_reference(_logsumexp_row)),
           ("real", "real", "real"), _grad_cases(_reduce_cases()), prepare=_prepared_result(ref_logsumexp),
           wrt=(2,)),
    OpSpec("var", eager.var, ref_var, ("real",), VAR_CASES),
    OpSpec("var_grad", F.var_grad, _reduce_grad_reference(_var_row), ("real", "real"),
           _grad_cases_without_out(VAR_CASES, attrs={**REDUCE_ATTRS, "unbiased": True}), wrt=(0, 1)),
    OpSpec("std", eager.std, ref_std, ("real",), STD_CASES),
    OpSpec("std_grad", F.std_grad, _with_out(_reduce_grad_reference(_std_row)), ("real", "real", "real"),
           _grad_cases(STD_CASES, attrs={**REDUCE_ATTRS, "unbiased": True}), prepare=_prepared_result(ref_std), wrt=(2,)),
    OpSpec("norm", eager.norm, ref_norm, ("nonzero",), NORM_CASES),
    OpSpec("norm_grad", F.norm_grad, _with_out(_reduce_grad_reference(_norm_row)), ("nonzero", "real", "real"),
           _grad_cases(NORM_CASES, attrs={**REDUCE_ATTRS, "p": "fro"}), prepare=_prepared_result(ref_norm), wrt=(2,)),
    # -- median and the log-scan -------------------------------------------------------------
    OpSpec("median", eager.median, ref_median, ("real",), MEDIAN_CASES, dtypes=REAL_TYPES),
    OpSpec("median_grad", F.median_grad, _median_grad, ("coarse", "real"),
           _grad_cases_without_out(MEDIAN_CASES, _median_out), wrt=(1,)),
    OpSpec("logcumsumexp", eager.logcumsumexp, ref_logcumsumexp, ("real",),
           SCAN_CASES + (Case(((2, 3),), {"axis": 1, "dtype": D.FLOAT64}),)),
    OpSpec("logcumsumexp_grad", F.logcumsumexp_grad, _with_out(_scan_grad_reference(_logcumsumexp_line)),
           ("real", "real", "real"),
           _grad_cases(SCAN_CASES, _scan_out, {"axis": None, "dtype": None}),
           prepare=_prepared_result(ref_logcumsumexp), wrt=(2,)),
]
