"""The op table of the first ops: arithmetic, activations, reductions, shape,
views and indexing, joining, the primitives composite rules build on, softmax
and the fused losses."""
from __future__ import annotations

import numpy as np

import eager
from eager.generated import forward_api as F

from .core import (
    BROADCAST_PAIRS, D, FLOATS, INTS, REDUCE_CASES, UNARY_SHAPES, Case, OpSpec, _axes, _binary, binary_cases,
    linear_vjp, reduce_grad_cases, ref_mean, ref_reshape, ref_sigmoid, ref_sum, unary_cases, unary_grad_cases,
    unbroadcast, with_grad_of_broadcast,
)



def ref_scale(x, scale, bias, bias_after_scale):
    if x.dtype.kind in "iu":  # Paddle 2.6.2 casts the factor and the bias to x's type (-0.5 -> 0)
        scale, bias = int(scale), int(bias)
    return np.asarray((x * scale + bias) if bias_after_scale else (x + bias) * scale, x.dtype)

def ref_matmul(x, y, transpose_x=False, transpose_y=False):
    if transpose_x and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2)
    if transpose_y and y.ndim >= 2:
        y = np.swapaxes(y, -1, -2)
    return np.matmul(x, y)


def ref_matmul_grad(x, y, g, transpose_x, transpose_y):
    # matmul is linear in each argument separately.
    return (linear_vjp(lambda a: ref_matmul(a, y, transpose_x, transpose_y), x.shape, g, x.dtype),
            linear_vjp(lambda b: ref_matmul(x, b, transpose_x, transpose_y), y.shape, g, y.dtype))


def ref_matmul_double_grad(x, y, g, gxg, gyg, transpose_x, transpose_y):
    # matmul_grad(x, y, g) = (gx(y, g), gy(x, g)), each bilinear; its VJP with
    # cotangents (gxg, gyg) is gathered term by term.
    def gx(y_, g_):
        return ref_matmul_grad(x, y_, g_, transpose_x, transpose_y)[0]

    def gy(x_, g_):
        return ref_matmul_grad(x_, y, g_, transpose_x, transpose_y)[1]

    x_grad = None if gyg is None else linear_vjp(lambda a: gy(a, g), x.shape, gyg, x.dtype)
    y_grad = None if gxg is None else linear_vjp(lambda b: gx(b, g), y.shape, gxg, y.dtype)
    terms = []
    if gxg is not None:
        terms.append(linear_vjp(lambda c: gx(y, c), g.shape, gxg, g.dtype))
    if gyg is not None:
        terms.append(linear_vjp(lambda c: gy(x, c), g.shape, gyg, g.dtype))
    return x_grad, y_grad, (sum(terms) if terms else None)


def ref_multiply_double_grad(x, y, g, gxg, gyg):
    # multiply_grad(x, y, g) = (unbroadcast(g*y, x), unbroadcast(g*x, y)).
    x_grad = None if gyg is None else linear_vjp(lambda a: unbroadcast(g * a, y.shape), x.shape, gyg, x.dtype)
    y_grad = None if gxg is None else linear_vjp(lambda b: unbroadcast(g * b, x.shape), y.shape, gxg, y.dtype)
    terms = []
    if gxg is not None:
        terms.append(linear_vjp(lambda c: unbroadcast(c * y, x.shape), g.shape, gxg, g.dtype))
    if gyg is not None:
        terms.append(linear_vjp(lambda c: unbroadcast(c * x, y.shape), g.shape, gyg, g.dtype))
    return x_grad, y_grad, (sum(terms) if terms else None)


MATMUL_CASES = (
    Case(((3, 4), (4, 5))),
    Case(((4,), (4,))),                         # 0-d result
    Case(((2, 3, 4), (4,))),
    Case(((4,), (2, 4, 3))),
    Case(((2, 1, 3, 4), (5, 4, 2))),            # batch dims broadcast
    Case(((4, 3), (4, 5)), {"transpose_x": True}),
    Case(((3, 4), (5, 4)), {"transpose_y": True}),
    Case(((2, 4, 3), (5, 4)), {"transpose_x": True, "transpose_y": True}),
    Case(((0, 4), (4, 3))),                     # size-0 rows
    Case(((3, 0), (0, 2))),                     # size-0 contraction: zeros
)


def _matmul_grad_cases(extra_like_out: int):
    cases = []
    for case in MATMUL_CASES:
        x, y = case.shapes
        out = ref_matmul(np.zeros(x), np.zeros(y), **case.attrs).shape
        attrs = {"transpose_x": False, "transpose_y": False, **case.attrs}
        extra = (x, y)[:extra_like_out]
        cases.append(Case((x, y, out) + extra, attrs))
    return tuple(cases)




RESHAPE_CASES = (
    Case(((3, 4),), {"shape": [4, 3]}),
    Case(((3, 4),), {"shape": [-1]}),
    Case(((2, 3, 4),), {"shape": [0, -1]}),
    Case(((1,),), {"shape": []}),
    Case(((),), {"shape": [1, 1]}),
    Case(((0, 3),), {"shape": [3, -1]}),
)

TRANSPOSE_CASES = (
    Case(((3, 4),), {"perm": [1, 0]}),
    Case(((2, 3, 4),), {"perm": [2, 0, 1]}),
    Case(((2, 3, 4),), {"perm": [-1, 0, 1]}),
    Case(((),), {"perm": []}),
    Case(((0, 3),), {"perm": [1, 0]}),
)


def _compare_spec(name, fn, ufunc):
    return OpSpec(name, fn, ufunc, ("coarse", "coarse"), binary_cases(),
                  dtypes=FLOATS + INTS + ("bool",), grad=False)


def _divide_prepare(arrays, attrs):
    # divide_grad's kernel reads the saved out = x / y; its composite rule reads x and y.
    x, y, _, g = arrays
    return [x, y, (x / y).astype(x.dtype), g]


SPECS = [
    # -- elementwise binary -----------------------------------------------------
    OpSpec("add", eager.add, np.add, ("real", "real"), binary_cases(), dtypes=FLOATS + INTS),
    OpSpec("subtract", eager.subtract, np.subtract, ("real", "real"), binary_cases(),
           dtypes=FLOATS + INTS),
    OpSpec("multiply", eager.multiply, np.multiply, ("real", "real"), binary_cases(),
           dtypes=FLOATS + INTS),
    OpSpec("divide", eager.divide, np.divide, ("real", "nonzero"), binary_cases()),
    OpSpec("pow", F.pow, lambda x, y: np.power(x, np.asarray(y, x.dtype)), ("positive",),
           tuple(Case((s,), {"y": y}) for s in ((3, 4), (), (0, 2)) for y in (2.0, 3, 0.5, -1.5, 0.0))),
    OpSpec("scale", F.scale, ref_scale,
           ("real",),
           tuple(Case((s,), {"scale": 3, "bias": 2, "bias_after_scale": after})
                 for s in ((3, 4), (), (0, 3)) for after in (True, False))
           + (Case(((3, 4),), {"scale": -0.5, "bias": 0.25, "bias_after_scale": False}),),
           dtypes=FLOATS + INTS),
    OpSpec("matmul", eager.matmul, ref_matmul, ("real", "real"), MATMUL_CASES,
           dtypes=FLOATS + INTS),
    # -- activations ----------------------------------------------------------------
    OpSpec("relu", eager.relu, lambda x: np.where(x > 0, x, np.zeros_like(x)), ("nonzero",),
           unary_cases()),
    OpSpec("tanh", eager.tanh, np.tanh, ("real",), unary_cases()),
    OpSpec("sigmoid", eager.sigmoid, ref_sigmoid, ("real",), unary_cases()),
    OpSpec("exp", eager.exp, np.exp, ("real",), unary_cases()),
    OpSpec("log", eager.log, np.log, ("positive",), unary_cases()),
    # -- reductions -------------------------------------------------------------------
    OpSpec("sum", eager.sum, ref_sum, ("real",),
           REDUCE_CASES + (Case(((2, 3),), {"axis": [1], "dtype": D.FLOAT64}, grad=True),),
           dtypes=FLOATS + INTS),
    OpSpec("mean", eager.mean, ref_mean, ("real",), REDUCE_CASES),
    # -- manipulation -----------------------------------------------------------------
    OpSpec("reshape", eager.reshape, ref_reshape, ("real",), RESHAPE_CASES,
           dtypes=FLOATS + INTS + ("bool",)),
    OpSpec("transpose", eager.transpose, lambda x, perm: np.transpose(x, [p % max(x.ndim, 1) for p in perm]),
           ("real",), TRANSPOSE_CASES, dtypes=FLOATS + INTS + ("bool",)),
    OpSpec("cast", eager.cast, lambda x, dtype: x.astype(dtype.numpy_dtype), ("real",),
           tuple(Case((s,), {"dtype": D.FLOAT64}) for s in ((3, 4), (), (0, 2)))
           + tuple(Case(((3, 4),), {"dtype": d}, grad=False)
                   for d in (D.FLOAT32, D.INT32, D.INT64, D.BOOL))),
    # -- creation -----------------------------------------------------------------------
    OpSpec("full", lambda shape, fill_value, dtype: eager.full(shape, fill_value, dtype),
           lambda shape, fill_value, dtype: np.full(shape, fill_value, dtype.numpy_dtype), (),
           tuple(Case((), {"shape": s, "fill_value": v, "dtype": d})
                 for s, v, d in (([2, 3], 1.5, D.FLOAT32), ([], -2, D.INT64), ([0, 4], 7, D.FLOAT64),
                                 ([3], True, D.BOOL))),
           dtypes=("float64",), grad=False),
    OpSpec("full_like", eager.full_like,
           lambda x, fill_value, dtype=None: np.full(x.shape, fill_value, x.dtype if dtype is None else dtype.numpy_dtype),
           ("real",),
           (Case(((3, 4),), {"fill_value": 2.5}), Case(((),), {"fill_value": -1}),
            Case(((0, 2),), {"fill_value": 1}), Case(((2, 3),), {"fill_value": 3, "dtype": D.INT32})),
           dtypes=FLOATS + INTS, grad=False),
    OpSpec("zeros", lambda shape, dtype: eager.zeros(shape, dtype),
           lambda shape, dtype: np.zeros(shape, dtype.numpy_dtype), (),
           tuple(Case((), {"shape": s, "dtype": d})
                 for s, d in (([2, 3], D.FLOAT32), ([], D.INT64), ([0], D.FLOAT64))),
           dtypes=("float64",), grad=False),
    OpSpec("ones", lambda shape, dtype: eager.ones(shape, dtype),
           lambda shape, dtype: np.ones(shape, dtype.numpy_dtype), (),
           tuple(Case((), {"shape": s, "dtype": d})
                 for s, d in (([2, 3], D.FLOAT32), ([], D.INT64), ([4, 0], D.BOOL))),
           dtypes=("float64",), grad=False),
    # -- comparisons ---------------------------------------------------------------------
    _compare_spec("equal", eager.equal, np.equal),
    _compare_spec("not_equal", eager.not_equal, np.not_equal),
    _compare_spec("less_than", eager.less_than, np.less),
    _compare_spec("less_equal", eager.less_equal, np.less_equal),
    _compare_spec("greater_than", eager.greater_than, np.greater),
    _compare_spec("greater_equal", eager.greater_equal, np.greater_equal),

    # == backward ops ==================================================================
    # Called through their eager functions. Those with a ``backward`` in
    # backward.yaml, and the composite-only ones, are differentiable; the others
    # are plain kernels (their derivatives are the forward op's gradgradcheck).
    OpSpec("add_grad", F.add_grad,
           lambda x, y, g: (linear_vjp(lambda a: a + np.zeros(y.shape), x.shape, g, x.dtype),
                            linear_vjp(lambda b: np.zeros(x.shape) + b, y.shape, g, y.dtype)),
           ("real", "real", "real"), with_grad_of_broadcast(), dtypes=FLOATS + INTS, grad=False),
    OpSpec("subtract_grad", F.subtract_grad,
           lambda x, y, g: (linear_vjp(lambda a: a - np.zeros(y.shape), x.shape, g, x.dtype),
                            linear_vjp(lambda b: np.zeros(x.shape) - b, y.shape, g, y.dtype)),
           ("real", "real", "real"), with_grad_of_broadcast(), dtypes=FLOATS + INTS, grad=False),
    OpSpec("multiply_grad", F.multiply_grad,
           lambda x, y, g: (linear_vjp(lambda a: a * y, x.shape, g, x.dtype),
                            linear_vjp(lambda b: x * b, y.shape, g, y.dtype)),
           ("real", "real", "real"), with_grad_of_broadcast(), dtypes=FLOATS + INTS),
    OpSpec("multiply_double_grad", F.multiply_double_grad, ref_multiply_double_grad,
           ("real", "real", "real", "real", "real"),
           tuple(Case((x, y, np.broadcast_shapes(x, y), x, y)) for x, y in BROADCAST_PAIRS)
           + (Case(((3, 4), (4,), (3, 4), None, (4,))), Case(((3, 4), (4,), (3, 4), (3, 4), None)))),
    OpSpec("divide_grad", F.divide_grad,
           lambda x, y, out, g: (linear_vjp(lambda a: a / y, x.shape, g, x.dtype),
                                 unbroadcast(-g * x / (y * y), y.shape).astype(y.dtype)),
           ("real", "nonzero", "real", "real"), with_grad_of_broadcast(n_before=1),
           grad=False, prepare=_divide_prepare),
    OpSpec("pow_grad", F.pow_grad,
           lambda x, g, y: (g * y * np.power(x, np.asarray(y - 1, x.dtype))).astype(x.dtype),
           ("positive", "real"),
           tuple(Case((s, s), {"y": y}) for s in ((3, 4), (), (0, 2)) for y in (2.0, 3, 0.5, -1.5, 0.0)),
           grad=False),
    OpSpec("scale_grad", F.scale_grad, lambda g, scale: np.asarray(g * scale, g.dtype), ("real",),
           tuple(Case((s,), {"scale": 3}) for s in UNARY_SHAPES), dtypes=FLOATS + INTS, grad=False),
    OpSpec("matmul_grad", F.matmul_grad, ref_matmul_grad, ("real", "real", "real"),
           _matmul_grad_cases(0), dtypes=FLOATS + INTS),
    OpSpec("matmul_double_grad", F.matmul_double_grad, ref_matmul_double_grad,
           ("real",) * 5, _matmul_grad_cases(2)
           + (Case(((3, 4), (4, 5), (3, 5), None, (4, 5)), {"transpose_x": False, "transpose_y": False}),
              Case(((3, 4), (4, 5), (3, 5), (3, 4), None), {"transpose_x": False, "transpose_y": False}))),
    OpSpec("relu_grad", F.relu_grad, lambda out, g: g * (out > 0), ("nonzero", "real"),
           unary_grad_cases(2), grad=False),
    OpSpec("tanh_grad", F.tanh_grad, lambda out, g: g * (1 - out * out), ("open", "real"),
           unary_grad_cases(2)),
    OpSpec("tanh_double_grad", F.tanh_double_grad,
           lambda out, go, gxg: (-2 * gxg * go * out, gxg * (1 - out * out)),
           ("open", "real", "real"), unary_grad_cases(3)),
    OpSpec("sigmoid_grad", F.sigmoid_grad, lambda out, g: g * out * (1 - out), ("unit", "real"),
           unary_grad_cases(2)),
    OpSpec("sigmoid_double_grad", F.sigmoid_double_grad,
           lambda out, go, gxg: (gxg * go * (1 - 2 * out), gxg * out * (1 - out)),
           ("unit", "real", "real"), unary_grad_cases(3)),
    OpSpec("exp_grad", F.exp_grad, lambda out, g: g * out, ("positive", "real"), unary_grad_cases(2)),
    OpSpec("exp_double_grad", F.exp_double_grad, lambda out, go, gxg: (gxg * go, gxg * out),
           ("positive", "real", "real"), unary_grad_cases(3)),
    OpSpec("log_grad", F.log_grad, lambda x, g: g / x, ("positive", "real"), unary_grad_cases(2),
           grad=False),
    OpSpec("sum_grad", F.sum_grad,
           lambda x, g, axis, keepdim: linear_vjp(lambda a: ref_sum(a, axis, None, keepdim), x.shape, g, x.dtype),
           ("real", "real"), reduce_grad_cases(), dtypes=FLOATS + INTS, grad=False),
    OpSpec("mean_grad", F.mean_grad,
           lambda x, g, axis, keepdim: linear_vjp(lambda a: ref_mean(a, axis, keepdim), x.shape, g, x.dtype),
           ("real", "real"), reduce_grad_cases(), grad=False),
    OpSpec("reshape_grad", F.reshape_grad,
           lambda x, g: linear_vjp(lambda a: a.reshape(g.shape), x.shape, g, x.dtype),
           ("real", "real"),
           tuple(Case((c.shapes[0], ref_reshape(np.zeros(c.shapes[0]), **c.attrs).shape)) for c in RESHAPE_CASES),
           dtypes=FLOATS + INTS, grad=False),
    OpSpec("transpose_grad", F.transpose_grad,
           lambda g, perm: linear_vjp(lambda a: np.transpose(a, [p % max(a.ndim, 1) for p in perm]),
                                      tuple(g.shape[i] for i in np.argsort([p % max(g.ndim, 1) for p in perm])),
                                      g, g.dtype),
           ("real",),
           tuple(Case((np.transpose(np.zeros(c.shapes[0]), [p % max(len(c.shapes[0]), 1) for p in c.attrs["perm"]]).shape,),
                      c.attrs) for c in TRANSPOSE_CASES),
           dtypes=FLOATS + INTS, grad=False),
    OpSpec("cast_grad", F.cast_grad, lambda x, g: g.astype(x.dtype), ("real", "real"),
           unary_grad_cases(2), grad=False),
]



# -- views and indexing ---------------------------------------------------------------

def ref_setitem(x, value, index):
    out = x.copy()
    out[index] = value
    return out


def ref_setitem_grad(value, g, index):
    # setitem is affine in x (x with x[index] overwritten) and linear in value.
    def x_part(a):
        return ref_setitem(a, np.zeros(()), index)

    def value_part(v):
        return ref_setitem(np.zeros(g.shape), v, index)

    return (linear_vjp(x_part, g.shape, g, g.dtype), linear_vjp(value_part, value.shape, g, value.dtype))


def _indexed_shape(shape, index):
    return np.zeros(shape)[index].shape


SQUEEZE_CASES = (
    Case(((2, 1, 3),), {"axis": []}),
    Case(((2, 1, 3),), {"axis": [1]}),
    Case(((1, 3, 1),), {"axis": [-1]}),
    Case(((1,),), {"axis": []}),
    Case(((),), {"axis": []}),
    Case(((1, 0, 1),), {"axis": [0]}),
)
UNSQUEEZE_CASES = (
    Case(((2, 3),), {"axis": [0]}),
    Case(((2, 3),), {"axis": [-1]}),
    Case(((2, 3),), {"axis": [0, 3]}),
    Case(((),), {"axis": [0]}),
    Case(((0, 3),), {"axis": [1]}),
)
FLATTEN_CASES = (
    Case(((2, 3, 4),), {}),
    Case(((2, 3, 4),), {"start_axis": 1}),
    Case(((2, 3, 4),), {"start_axis": 0, "stop_axis": 1}),
    Case(((2, 3, 4),), {"start_axis": -2, "stop_axis": -1}),
    Case(((0, 3),), {}),
)
# Basic indices (ints, slices, None, Ellipsis) and advanced ones, including a
# repeated integer index, whose gradient must accumulate.
GETITEM_CASES = (
    Case(((4, 3),), {"index": (1,)}),
    Case(((4, 3),), {"index": (slice(None), 0)}),
    Case(((4, 3),), {"index": (slice(1, 3), None, Ellipsis)}),
    Case(((4, 3),), {"index": (slice(None, None, -2),)}),
    Case(((4, 3),), {"index": (np.array([0, 2, 0]),)}),
    Case(((4, 3),), {"index": (np.array([True, False, True, False]),)}),
    Case(((5,),), {"index": (slice(2, 2),)}),          # empty result
)
# setitem cases: each element of x written at most once (a repeated index has no one answer).
SETITEM_CASES = (
    Case(((4, 3), (3,)), {"index": (1,)}),
    Case(((4, 3), ()), {"index": (slice(None), 0)}),
    Case(((4, 3), (2, 1)), {"index": (slice(1, 3),)}),
    Case(((4, 3), (2, 3)), {"index": (np.array([3, 0]),)}),
)


def ref_squeeze(x, axis=()):
    if not axis:
        return np.squeeze(x)
    return np.squeeze(x, axis=tuple(a % x.ndim for a in axis))


def ref_flatten(x, start_axis=0, stop_axis=-1):
    if x.ndim == 0:
        return x.reshape(1)
    start, stop = start_axis % x.ndim, stop_axis % x.ndim
    return x.reshape(x.shape[:start] + (-1 if x.size else int(np.prod(x.shape[start:stop + 1])),) + x.shape[stop + 1:])


def _view_grad_spec(name, fn, ref, cases):
    return OpSpec(f"{name}_grad", fn, lambda x, g: g.reshape(x.shape), ("real", "real"),
                  tuple(Case((c.shapes[0], ref(np.zeros(c.shapes[0]), **c.attrs).shape)) for c in cases),
                  dtypes=FLOATS + INTS, grad=False)


SPECS += [
    OpSpec("squeeze", F.squeeze, ref_squeeze, ("real",), SQUEEZE_CASES, dtypes=FLOATS + INTS),
    _view_grad_spec("squeeze", F.squeeze_grad, ref_squeeze, SQUEEZE_CASES),
    OpSpec("unsqueeze", F.unsqueeze, lambda x, axis: np.expand_dims(x, tuple(axis)), ("real",),
           UNSQUEEZE_CASES, dtypes=FLOATS + INTS),
    _view_grad_spec("unsqueeze", F.unsqueeze_grad, lambda x, axis: np.expand_dims(x, tuple(axis)),
                    UNSQUEEZE_CASES),
    OpSpec("flatten", F.flatten, ref_flatten, ("real",), FLATTEN_CASES, dtypes=FLOATS + INTS),
    _view_grad_spec("flatten", F.flatten_grad, ref_flatten, FLATTEN_CASES),
    OpSpec("getitem", F.getitem, lambda x, index: np.array(x[index]), ("real",), GETITEM_CASES,
           dtypes=FLOATS + INTS),
    OpSpec("getitem_grad", F.getitem_grad,
           lambda x, g, index: linear_vjp(lambda a: a[index], x.shape, g, g.dtype), ("real", "real"),
           tuple(Case((c.shapes[0], _indexed_shape(c.shapes[0], c.attrs["index"])), c.attrs)
                 for c in GETITEM_CASES),
           dtypes=FLOATS + INTS, wrt=(1,)),
    OpSpec("getitem_double_grad", F.getitem_double_grad, lambda g, index: np.array(g[index]), ("real",),
           GETITEM_CASES),
    OpSpec("setitem", F.setitem, ref_setitem, ("real", "real"), SETITEM_CASES, dtypes=FLOATS + INTS),
    OpSpec("setitem_grad", F.setitem_grad, ref_setitem_grad, ("real", "real"),
           tuple(Case((c.shapes[1], c.shapes[0]), c.attrs) for c in SETITEM_CASES),
           dtypes=FLOATS + INTS, grad=False),
]

# -- joining and splitting ---------------------------------------------------------

def _with_list_input(op, n_list):
    """concat/stack take their tensors as one list: the table passes them one by one."""
    def call(*tensors, **attrs):
        result = op(list(tensors[:n_list]), *tensors[n_list:], **attrs) if n_list else op(list(tensors), **attrs)
        return tuple(result) if isinstance(result, list) else result
    return call


def _tuple_result(op):
    def call(*tensors, **attrs):
        result = op(*tensors, **attrs)
        return tuple(result) if isinstance(result, list) else result
    return call


def ref_split(x, num_or_sections, axis=0):
    sections = [num_or_sections] if isinstance(num_or_sections, int) else list(num_or_sections)
    length = x.shape[axis]
    if len(sections) == 1:
        sizes = [length // sections[0]] * sections[0]
    else:
        sizes = [length - sum(s for s in sections if s != -1) if s == -1 else s for s in sections]
    return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=axis))


def ref_unbind(x, axis=0):
    return tuple(np.moveaxis(x, axis, 0))


CONCAT_CASES = (
    Case(((2, 3), (4, 3)), {"axis": 0}),
    Case(((2, 3), (2, 1)), {"axis": -1}),
    Case(((2, 0), (2, 2)), {"axis": 1}),
    Case(((3,), (1,)), {"axis": 0}),
)
STACK_CASES = (
    Case(((2, 3), (2, 3)), {"axis": 0}),
    Case(((2, 3), (2, 3)), {"axis": -1}),
    Case(((), ()), {"axis": 0}),
    Case(((0, 2), (0, 2)), {"axis": 1}),
)
SPLIT_CASES = (
    Case(((6, 2),), {"num_or_sections": 3, "axis": 0}),
    Case(((2, 5),), {"num_or_sections": [1, -1, 2], "axis": 1}),
    Case(((2, 4),), {"num_or_sections": [0, 4], "axis": -1}),
)
UNBIND_CASES = (
    Case(((3, 2),), {"axis": 0}),
    Case(((2, 3, 2),), {"axis": -1}),
    Case(((2,),), {"axis": 0}),
)


def _joined_shape(ref, shapes, attrs):
    return ref(*[np.zeros(s) for s in shapes], **attrs).shape


def _pieces_shapes(ref, shape, attrs):
    return tuple(p.shape for p in ref(np.zeros(shape), **attrs))


SPECS += [
    OpSpec("concat", _with_list_input(F.concat, 0), lambda *xs, axis: np.concatenate(xs, axis=axis),
           ("real", "real"), CONCAT_CASES, dtypes=FLOATS + INTS),
    OpSpec("stack", _with_list_input(F.stack, 0), lambda *xs, axis: np.stack(xs, axis=axis),
           ("real", "real"), STACK_CASES, dtypes=FLOATS + INTS),
    OpSpec("split", _tuple_result(F.split), ref_split, ("real",), SPLIT_CASES, dtypes=FLOATS + INTS),
    OpSpec("unbind", _tuple_result(F.unbind), ref_unbind, ("real",), UNBIND_CASES, dtypes=FLOATS + INTS),
    # Backward ops: the list inputs of concat_grad/stack_grad are shape-only.
    OpSpec("concat_grad", _with_list_input(F.concat_grad, 2),
           lambda x0, x1, g, axis: tuple(np.split(g, [x0.shape[axis]], axis=axis)),
           ("real", "real", "real"),
           tuple(Case(c.shapes + (_joined_shape(lambda *xs, axis: np.concatenate(xs, axis=axis), c.shapes, c.attrs),),
                      c.attrs) for c in CONCAT_CASES),
           dtypes=FLOATS + INTS, wrt=(2,)),
    OpSpec("stack_grad", _with_list_input(F.stack_grad, 2),
           lambda x0, x1, g, axis: tuple(np.moveaxis(g, axis, 0)),
           ("real", "real", "real"),
           tuple(Case(c.shapes + (_joined_shape(lambda *xs, axis: np.stack(xs, axis=axis), c.shapes, c.attrs),),
                      c.attrs) for c in STACK_CASES),
           dtypes=FLOATS + INTS, wrt=(2,)),
    OpSpec("split_grad", _with_list_input(F.split_grad, 3),
           lambda g0, g1, g2, axis: np.concatenate([g0, g1, g2], axis=axis), ("real", "real", "real"),
           (Case(((2, 2), (2, 2), (2, 2)), {"axis": 0}), Case(((2, 1), (2, 0), (2, 3)), {"axis": -1})),
           dtypes=FLOATS + INTS),
    OpSpec("unbind_grad", _with_list_input(F.unbind_grad, 2),
           lambda g0, g1, axis: np.stack([g0, g1], axis=axis), ("real", "real"),
           (Case(((2, 3), (2, 3)), {"axis": 0}), Case(((3,), (3,)), {"axis": -1}), Case(((), ()), {"axis": 0})),
           dtypes=FLOATS + INTS),
]

# -- primitives the composite rules build on -------------------------------------

EXPAND_CASES = (
    Case(((3, 1),), {"shape": [3, 4]}),
    Case(((4,),), {"shape": [2, 3, 4]}),
    Case(((2, 1, 3),), {"shape": [2, 5, -1]}),
    Case(((),), {"shape": [2, 2]}),
    Case(((1, 3),), {"shape": [0, 3]}),
)


def ref_expand(x, shape):
    lead = len(shape) - x.ndim
    return np.broadcast_to(x, tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(shape))).copy()


def _where(condition, x, y):
    """where with a condition drawn as numbers: positive means True."""
    return F.where(condition > 0, x, y)


def _where_grad(condition, x, y, g):
    return F.where_grad(condition > 0, x, y, g)


def ref_where_grad(condition, x, y, g):
    take = np.broadcast_to(condition > 0, g.shape)
    zero = np.zeros((), g.dtype)
    return (unbroadcast(np.where(take, g, zero), x.shape).astype(g.dtype),
            unbroadcast(np.where(take, zero, g), y.shape).astype(g.dtype))


def _select_grad_reference(x_wins):
    def reference(x, y, g):
        wins = np.broadcast_to(x_wins(x, y), g.shape)
        zero = np.zeros((), g.dtype)
        return (unbroadcast(np.where(wins, g, zero), x.shape).astype(g.dtype),
                unbroadcast(np.where(wins, zero, g), y.shape).astype(g.dtype))
    return reference


WHERE_CASES = tuple(Case((np.broadcast_shapes(x, y), x, y)) for x, y in BROADCAST_PAIRS) + (
    Case(((3, 1), (1, 4), (3, 4))),)

SPECS += [
    OpSpec("assign", F.assign, lambda x: x.copy(), ("real",), unary_cases(),
           dtypes=FLOATS + INTS + ("bool",)),
    OpSpec("assign_grad", F.assign_grad, lambda g: g, ("real",), unary_cases()),
    OpSpec("expand", eager.expand, ref_expand, ("real",), EXPAND_CASES, dtypes=FLOATS + INTS + ("bool",)),
    OpSpec("broadcast_to", eager.broadcast_to, ref_expand, ("real",), EXPAND_CASES, dtypes=FLOATS + INTS),
    OpSpec("expand_grad", F.expand_grad,
           lambda x, g, shape: linear_vjp(lambda a: ref_expand(a, shape), x.shape, g, g.dtype),
           ("real", "real"),
           tuple(Case((c.shapes[0], ref_expand(np.zeros(c.shapes[0]), c.attrs["shape"]).shape), c.attrs)
                 for c in EXPAND_CASES),
           dtypes=FLOATS + INTS, wrt=(1,)),
    OpSpec("where", _where, lambda c, x, y: np.where(c > 0, x, y), ("real", "real", "real"), WHERE_CASES,
           dtypes=FLOATS + INTS, wrt=(1, 2)),
    OpSpec("where_grad", _where_grad, ref_where_grad, ("real", "real", "real", "real"),
           tuple(Case(c.shapes + (np.broadcast_shapes(*c.shapes),)) for c in WHERE_CASES),
           dtypes=FLOATS + INTS, wrt=(3,)),
    OpSpec("sign", eager.sign, np.sign, ("nonzero",), unary_cases(), dtypes=FLOATS + INTS),
    OpSpec("sign_grad", F.sign_grad, lambda x, g: np.zeros_like(g), ("real", "real"),
           tuple(Case((s, s)) for s in UNARY_SHAPES), wrt=(1,)),
    OpSpec("maximum", eager.maximum, np.maximum, ("real", "real"), binary_cases(), dtypes=FLOATS + INTS),
    OpSpec("minimum", eager.minimum, np.minimum, ("real", "real"), binary_cases(), dtypes=FLOATS + INTS),
    OpSpec("maximum_grad", F.maximum_grad, _select_grad_reference(np.greater), ("real", "real", "real"),
           with_grad_of_broadcast(), dtypes=FLOATS + INTS, wrt=(2,)),
    OpSpec("minimum_grad", F.minimum_grad, _select_grad_reference(np.less), ("real", "real", "real"),
           with_grad_of_broadcast(), dtypes=FLOATS + INTS, wrt=(2,)),
]

# -- softmax and the fused losses -------------------------------------------------

def ref_softmax(x, axis=-1):
    if x.size == 0:
        return x.copy()
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(x.dtype)


def ref_log_softmax(x, axis=-1):
    if x.size == 0:
        return x.copy()
    shifted = x - x.max(axis=axis, keepdims=True)
    return (shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))).astype(x.dtype)


SOFTMAX_CASES = (Case(((3, 4),), {"axis": -1}), Case(((3, 4),), {"axis": 0}), Case(((2, 3, 4),), {"axis": 1}),
                 Case(((5,),), {"axis": 0}), Case(((0, 3),), {"axis": -1}))


def _prepared_output(forward):
    """Backward ops that read their forward's output get a consistent one."""
    def prepare(arrays, attrs):
        raw, *rest = arrays
        return [forward(raw, attrs["axis"]), *rest]
    return prepare


def _class_labels(u, classes):
    """Labels drawn as numbers in (0, 1) turned into class indices (a recorded cast)."""
    return F.cast(F.scale(u, float(classes), 0.0, True), D.INT64)


def _ce(logits, u, axis):
    return F.cross_entropy_with_softmax(logits, _class_labels(u, logits.shape[axis]), False, True, True,
                                        -100, axis)


def ref_ce(logits, u, axis):
    labels = (u * logits.shape[axis]).astype(np.int64)
    picked = np.take_along_axis(ref_log_softmax(logits, axis), labels, axis=axis)
    return (-picked).astype(logits.dtype)


def _ce_grad(label_u, softmax, loss_grad, axis):
    labels = _class_labels(label_u, softmax.shape[axis])
    return F.cross_entropy_with_softmax_grad(labels, softmax, None, loss_grad, False, True, True, -100, axis)


def ref_ce_grad(label_u, softmax, loss_grad, axis):
    classes = softmax.shape[axis]
    labels = (label_u * classes).astype(np.int64)
    target = np.zeros_like(softmax)
    np.put_along_axis(target, labels, 1.0, axis=axis)
    return ((softmax - target) * loss_grad).astype(softmax.dtype)


def _ce_grad_prepare(arrays, attrs):
    label_u, raw, loss_grad = arrays
    return [label_u, ref_softmax(raw, attrs["axis"]), loss_grad]


CE_CASES = (Case(((3, 4), (3, 1)), {"axis": -1}), Case(((4, 3), (1, 3)), {"axis": 0}),
            Case(((2, 3, 5), (2, 1, 5)), {"axis": 1}), Case(((6,), (1,)), {"axis": 0}))


def ref_sigmoid_ce(x, z, p=None):
    coeff = 1.0 if p is None else 1.0 + (p - 1.0) * z
    return ((1 - z) * x + coeff * (np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0))).astype(x.dtype)


def ref_sigmoid_ce_grad(x, z, p, g, normalize, ignore_index):
    coeff = 1.0 if p is None else 1.0 + (p - 1.0) * z
    grad = ((1 - z) - coeff / (1 + np.exp(x))) * g
    return (grad / max(x.size, 1) if normalize else grad).astype(x.dtype)


SIGMOID_CE_CASES = tuple(Case((s, s, p)) for s in ((3, 4), (), (0, 2)) for p in (None, s))

SPECS += [
    OpSpec("softmax", eager.softmax, ref_softmax, ("real",), SOFTMAX_CASES),
    OpSpec("log_softmax", eager.log_softmax, ref_log_softmax, ("real",), SOFTMAX_CASES),
    OpSpec("softmax_grad", F.softmax_grad,
           lambda out, g, axis: (out * (g - (g * out).sum(axis=axis, keepdims=True))).astype(out.dtype),
           ("real", "real"), tuple(Case((c.shapes[0], c.shapes[0]), c.attrs) for c in SOFTMAX_CASES),
           prepare=_prepared_output(ref_softmax)),
    OpSpec("log_softmax_grad", F.log_softmax_grad,
           lambda out, g, axis: (g - np.exp(out) * g.sum(axis=axis, keepdims=True)).astype(out.dtype),
           ("real", "real"), tuple(Case((c.shapes[0], c.shapes[0]), c.attrs) for c in SOFTMAX_CASES),
           prepare=_prepared_output(ref_log_softmax)),
    OpSpec("cross_entropy_with_softmax", _ce, ref_ce, ("real", "unit"), CE_CASES, wrt=(0,)),
    OpSpec("cross_entropy_with_softmax_grad", _ce_grad, ref_ce_grad, ("unit", "real", "real"),
           tuple(Case((c.shapes[1], c.shapes[0], c.shapes[1]), c.attrs) for c in CE_CASES),
           prepare=_ce_grad_prepare, wrt=(1, 2)),
    OpSpec("sigmoid_cross_entropy_with_logits", F.sigmoid_cross_entropy_with_logits, ref_sigmoid_ce,
           ("real", "unit", "positive"), SIGMOID_CE_CASES, wrt=(0,)),
    OpSpec("sigmoid_cross_entropy_with_logits_grad", F.sigmoid_cross_entropy_with_logits_grad,
           ref_sigmoid_ce_grad, ("real", "unit", "positive", "real"),
           tuple(Case(c.shapes + (c.shapes[0],), {"normalize": n, "ignore_index": -100})
                 for c in SIGMOID_CE_CASES for n in (False, True)), wrt=(0, 3)),
    OpSpec("one_hot", eager.one_hot,
           lambda x, num_classes: (x[..., None] == np.arange(num_classes)).astype(np.float32), ("positive",),
           tuple(Case((s,), {"num_classes": 5}) for s in ((3,), (), (2, 4), (0,))), dtypes=INTS, grad=False),
]
