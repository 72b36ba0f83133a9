"""The op table of the creation ops."""
from __future__ import annotations

import math

import numpy as np

import eager
from eager.generated import forward_api as F  # noqa: F401

from .core import FLOATS, INTS, Case, D, OpSpec

ALL = ("bool",) + INTS + FLOATS


def _np_dtype(dtype, default):
    return np.dtype(default) if dtype is None else dtype.numpy_dtype


# -- references, written from the definitions -----------------------------------------

def ref_arange(start=0, end=None, step=1, dtype=None):
    if end is None:
        start, end = 0, start
    ints = all(isinstance(v, int) for v in (start, end, step))
    out_dtype = _np_dtype(dtype, "int64" if ints else "float32")
    if out_dtype.kind in "iu":
        start, end, step = int(start), int(end), int(step)
    count = max(0, math.ceil((end - start) / step))
    return np.array([start + k * step for k in range(count)], dtype=np.float64).astype(out_dtype)


def ref_linspace(start, stop, num, dtype=None):
    step = (stop - start) / (num - 1) if num > 1 else 0.0
    values = np.array([start + k * step for k in range(num)], dtype=np.float64)
    if num > 1:
        values[-1] = stop
    out_dtype = _np_dtype(dtype, "float32")
    return (np.trunc(values) if out_dtype.kind in "iu" else values).astype(out_dtype)


def ref_logspace(start, stop, num, base=10.0, dtype=None):
    values = np.array([float(base) ** v for v in ref_linspace(start, stop, num, D.FLOAT64)], dtype=np.float64)
    out_dtype = _np_dtype(dtype, "float32")
    return (np.trunc(values) if out_dtype.kind in "iu" else values).astype(out_dtype)


def ref_eye(num_rows, num_columns=None, dtype=None):
    columns = num_rows if num_columns is None else num_columns
    out = np.zeros((num_rows, columns), dtype=_np_dtype(dtype, "float32"))
    for k in range(min(num_rows, columns)):
        out[k, k] = 1
    return out


def ref_triangle(x, diagonal=0, lower=True):
    out = x.copy()
    rows, columns = x.shape[-2:]
    for i in range(rows):
        for j in range(columns):
            drop = (j - i > diagonal) if lower else (j - i < diagonal)
            if drop:
                out[..., i, j] = 0
    return out


def _shape_only(got, *inputs, **attrs):
    """empty's values are whatever the memory held: only its dtype and shape are
    checked (before this is called), and that the result is a fresh buffer."""
    assert got.flags.owndata or got.base is not None


def _empty_ref(shape, dtype=None):
    return np.zeros(shape, _np_dtype(dtype, "float32"))


TRIANGLE_CASES = (
    Case(((3, 4),), {"diagonal": 0}),
    Case(((4, 3),), {"diagonal": 1}),
    Case(((2, 3, 4),), {"diagonal": -1}),
    Case(((3, 3),), {"diagonal": 5}),
    Case(((3, 3),), {"diagonal": -5}),
    Case(((0, 3),), {"diagonal": 0}),
    Case(((2, 0, 2),), {"diagonal": 0}),
)

SPECS: list = [
    OpSpec("arange", eager.arange, ref_arange, (),
           (Case((), {"start": 0, "end": 5, "step": 1, "dtype": None}),
            Case((), {"start": 5}),
            Case((), {"start": 0.5, "end": 3, "step": 0.5}),
            Case((), {"start": 10, "end": 2, "step": -3}),
            Case((), {"start": 1, "end": 1}),
            Case((), {"start": 0, "end": 1, "step": 0.1, "dtype": D.FLOAT64}),
            Case((), {"start": 0.5, "end": 4.9, "step": 1.5, "dtype": D.INT32}),
            Case((), {"start": -2, "end": 2, "dtype": D.FLOAT32})),
           dtypes=("float64",), grad=False),
    OpSpec("zeros_like", eager.zeros_like, lambda x, dtype=None: np.zeros(x.shape, _np_dtype(dtype, x.dtype)),
           ("real",), (Case(((3, 4),)), Case(((),)), Case(((0, 2),)), Case(((2, 3),), {"dtype": D.BOOL})),
           dtypes=ALL, grad=False),
    OpSpec("ones_like", eager.ones_like, lambda x, dtype=None: np.ones(x.shape, _np_dtype(dtype, x.dtype)),
           ("real",), (Case(((3, 4),)), Case(((),)), Case(((0, 2),)), Case(((2, 3),), {"dtype": D.INT32})),
           dtypes=ALL, grad=False),
    OpSpec("empty", eager.empty, _empty_ref, (),
           (Case((), {"shape": [2, 3]}), Case((), {"shape": []}), Case((), {"shape": [0, 4], "dtype": D.INT64}),
            Case((), {"shape": [3], "dtype": D.BOOL})),
           dtypes=("float64",), grad=False, check=_shape_only),
    OpSpec("empty_like", eager.empty_like, lambda x, dtype=None: np.zeros(x.shape, _np_dtype(dtype, x.dtype)),
           ("real",), (Case(((3, 4),)), Case(((),)), Case(((0, 2),), {"dtype": D.FLOAT64})),
           dtypes=ALL, grad=False, check=_shape_only),
    OpSpec("eye", eager.eye, ref_eye, (),
           (Case((), {"num_rows": 3}), Case((), {"num_rows": 2, "num_columns": 4}),
            Case((), {"num_rows": 4, "num_columns": 2, "dtype": D.INT32}), Case((), {"num_rows": 0}),
            Case((), {"num_rows": 3, "num_columns": 0, "dtype": D.BOOL})),
           dtypes=("float64",), grad=False),
    OpSpec("linspace", eager.linspace, ref_linspace, (),
           (Case((), {"start": 0, "stop": 1, "num": 5}), Case((), {"start": -1.5, "stop": 2.5, "num": 9,
                                                                   "dtype": D.FLOAT64}),
            Case((), {"start": 3, "stop": -3, "num": 4, "dtype": D.INT64}), Case((), {"start": 2, "stop": 7, "num": 1}),
            Case((), {"start": 0, "stop": 1, "num": 0})),
           dtypes=("float64",), grad=False),
    OpSpec("logspace", eager.logspace, ref_logspace, (),
           (Case((), {"start": 0, "stop": 3, "num": 4}), Case((), {"start": -1, "stop": 1, "num": 5, "base": 2.0,
                                                                   "dtype": D.FLOAT64}),
            Case((), {"start": 0, "stop": 2, "num": 3, "base": 3, "dtype": D.INT32})),
           dtypes=("float64",), grad=False),
    OpSpec("tril", eager.tril, lambda x, diagonal=0: ref_triangle(x, diagonal, True), ("real",), TRIANGLE_CASES,
           dtypes=ALL),
    OpSpec("triu", eager.triu, lambda x, diagonal=0: ref_triangle(x, diagonal, False), ("real",), TRIANGLE_CASES,
           dtypes=ALL),
    OpSpec("clone", eager.clone, lambda x: x.copy(), ("real",), (Case(((3, 4),)), Case(((),)), Case(((0, 2),))),
           dtypes=ALL),

    # == backward ops (composite-only: called as eager.ops.<name>, differentiable) ==========
    OpSpec("tril_grad", F.tril_grad, lambda g, diagonal=0: ref_triangle(g, diagonal, True), ("real",),
           TRIANGLE_CASES),
    OpSpec("triu_grad", F.triu_grad, lambda g, diagonal=0: ref_triangle(g, diagonal, False), ("real",),
           TRIANGLE_CASES),
]
