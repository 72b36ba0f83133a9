"""The op table of the normalization ops: batch_norm, layer_norm, group_norm, instance_norm (issue #10).

References follow the definitions: the statistics by np.mean/np.var over the
normalized group in float64, and the input gradient as the explicit Jacobian
of the standardization per group (rstd * (I - 1/n - xhat xhat^T / n)) times
the incoming gradient, not the kernels' closed form. The backward ops take
their saved statistics from ``prepare`` (the forward's own values), and are
gradchecked in the tensors their composite rule differentiates (out_grad,
scale, bias); the second derivative in x is checked through the forward ops, and the
paths without scale or bias through the forward ops' gradchecks (the
composite-versus-kernel check compares only gradients that came).
"""
from __future__ import annotations

import numpy as np

from eager.generated import forward_api as F

from .core import Case, OpSpec


def _f64(a):
    return None if a is None else np.asarray(a, np.float64)


def _standardize_rows(rows, epsilon):
    """rows [m, n] -> (xhat, mean, biased variance), each group a row."""
    mean = np.mean(rows, axis=1)
    variance = np.var(rows, axis=1)
    return (rows - mean[:, None]) / np.sqrt(variance[:, None] + epsilon), mean, variance


def _standardize_rows_vjp(rows, g, epsilon):
    """g [m, n] times the Jacobian of each row's standardization."""
    n = rows.shape[1]
    xhat, _, variance = _standardize_rows(rows, epsilon)
    out = np.empty_like(rows)
    for i in range(rows.shape[0]):
        jac = (np.eye(n) - 1.0 / n - np.outer(xhat[i], xhat[i]) / n) / np.sqrt(variance[i] + epsilon)
        out[i] = jac.T @ g[i]
    return out


# -- layer_norm ----------------------------------------------------------------

def ref_layer_norm(x, scale, bias, epsilon=1e-5, begin_norm_axis=1):
    left, right = int(np.prod(x.shape[:begin_norm_axis])), int(np.prod(x.shape[begin_norm_axis:]))
    xhat, _, _ = _standardize_rows(_f64(x).reshape(left, right), epsilon)
    out = xhat.reshape(x.shape)
    trailing = x.shape[begin_norm_axis:]
    if scale is not None:
        out = out * _f64(scale).reshape(trailing)
    if bias is not None:
        out = out + _f64(bias).reshape(trailing)
    return out.astype(x.dtype)


def ref_layer_norm_grad(x, scale, bias, mean, variance, out_grad, epsilon=1e-5, begin_norm_axis=1):
    left = int(np.prod(x.shape[:begin_norm_axis]))
    rows, g = _f64(x).reshape(left, -1), _f64(out_grad).reshape(left, -1)
    xhat, _, _ = _standardize_rows(rows, epsilon)
    gs = g if scale is None else g * _f64(scale).reshape(-1)
    x_grad = _standardize_rows_vjp(rows, gs, epsilon).reshape(x.shape).astype(x.dtype)
    scale_grad = None if scale is None else (g * xhat).sum(axis=0).reshape(scale.shape).astype(x.dtype)
    bias_grad = None if bias is None else g.sum(axis=0).reshape(bias.shape).astype(x.dtype)
    return x_grad, scale_grad, bias_grad


def _layer_norm_prepare(arrays, attrs):
    x, scale, bias, _, _, out_grad = arrays
    b = attrs.get("begin_norm_axis", 1)
    rows = _f64(x).reshape(int(np.prod(x.shape[:b])), -1)
    return [x, scale, bias, rows.mean(axis=1).astype(x.dtype), rows.var(axis=1).astype(x.dtype), out_grad]


LAYER_NORM_CASES = (
    Case(((3, 5), (5,), (5,)), {"epsilon": 1e-5, "begin_norm_axis": 1}),
    Case(((2, 3, 4), (3, 4), (12,)), {"epsilon": 1e-3, "begin_norm_axis": 1}),
    Case(((2, 3, 4), (4,), None), {"epsilon": 1e-5, "begin_norm_axis": 2}),
    Case(((2, 3, 4), None, None), {"epsilon": 0.1, "begin_norm_axis": 2}),
    Case(((2, 3), (2, 3), (2, 3)), {"epsilon": 1e-5, "begin_norm_axis": 0}),
    Case(((0, 4), (4,), (4,)), {"epsilon": 1e-5, "begin_norm_axis": 1}),          # an empty batch
    Case(((4, 1), (1,), (1,)), {"epsilon": 1e-5, "begin_norm_axis": 1}),          # one element per row
)


def _grad_cases(cases):
    return tuple(Case((x, s, b, (1,), (1,), x), attrs) for (x, s, b), attrs in ((c.shapes, c.attrs) for c in cases))


# -- batch_norm, instance_norm, group_norm -------------------------------------------

def _channel_rows(x, data_format):
    """x as [C, everything else] (the channel axis first)."""
    axis = x.ndim - 1 if data_format in ("NLC", "NHWC", "NDHWC") and x.ndim > 2 else 1
    return np.moveaxis(_f64(x), axis, 0).reshape(x.shape[axis], x.size // x.shape[axis]), axis


def _from_channel_rows(rows, x, axis):
    moved = np.moveaxis(np.empty(x.shape), axis, 0).shape
    return np.moveaxis(rows.reshape(moved), 0, axis)


def _uses_running_stats(attrs):
    return (attrs["is_test"] and not attrs["trainable_statistics"]) or attrs["use_global_stats"]


def ref_batch_norm(x, mean, variance, scale, bias, **attrs):
    """The normalized output only (the op table's batch_norm entry returns out;
    the running statistics are checked in tests/test_nn_norm.py)."""
    rows, axis = _channel_rows(x, attrs["data_format"])
    if not _uses_running_stats(attrs) and rows.shape[1] == 1:
        return x.copy()   # one value per channel: Paddle's kernels pass x through (y = x)
    if _uses_running_stats(attrs):
        xhat = (rows - _f64(mean)[:, None]) / np.sqrt(_f64(variance)[:, None] + attrs["epsilon"])
    else:
        xhat, _, _ = _standardize_rows(rows, attrs["epsilon"])
    out = xhat * (1.0 if scale is None else _f64(scale)[:, None]) + (0.0 if bias is None else _f64(bias)[:, None])
    return _from_channel_rows(out, x, axis).astype(x.dtype)


def _bn_out(x, mean, variance, scale, bias, **attrs):
    return F.batch_norm(x, mean, variance, scale, bias, **attrs)[0]


def ref_batch_norm_grad(x, scale, bias, saved_mean, saved_variance, out_grad, momentum, epsilon, data_format, **flags):
    rows, axis = _channel_rows(x, data_format)
    g, _ = _channel_rows(out_grad, data_format)
    if not _uses_running_stats(flags) and rows.shape[1] == 1:   # the forward was y = x
        zeros = np.zeros(rows.shape[0], x.dtype)
        return out_grad.copy(), zeros, zeros.copy()
    if _uses_running_stats(flags):
        rstd = 1.0 / np.sqrt(_f64(saved_variance)[:, None] + epsilon)
        xhat = (rows - _f64(saved_mean)[:, None]) * rstd
        x_grad = g * _f64(scale)[:, None] * rstd
    else:
        xhat, _, _ = _standardize_rows(rows, epsilon)
        x_grad = _standardize_rows_vjp(rows, g * _f64(scale)[:, None], epsilon)
    return (_from_channel_rows(x_grad, x, axis).astype(x.dtype), (g * xhat).sum(axis=1).astype(x.dtype),
            g.sum(axis=1).astype(x.dtype))


def _batch_norm_grad_prepare(arrays, attrs):
    x, scale, bias, saved_mean, saved_variance, out_grad = arrays
    if not _uses_running_stats(attrs):
        rows, _ = _channel_rows(x, attrs["data_format"])
        saved_mean, saved_variance = rows.mean(axis=1).astype(x.dtype), rows.var(axis=1).astype(x.dtype)
    return [x, scale, bias, saved_mean, saved_variance, out_grad]


def _bn(fmt, is_test=False, use_global_stats=False, trainable_statistics=False, momentum=0.9, epsilon=1e-5):
    return {"is_test": is_test, "momentum": momentum, "epsilon": epsilon, "data_format": fmt,
            "use_global_stats": use_global_stats, "trainable_statistics": trainable_statistics}


BATCH_NORM_CASES = (
    Case(((4, 3), (3,), (3,), (3,), (3,)), _bn("NC")),
    Case(((2, 3, 4, 2), (3,), (3,), (3,), (3,)), _bn("NCHW", momentum=0.5, epsilon=1e-3)),
    Case(((2, 4, 2, 3), (3,), (3,), (3,), (3,)), _bn("NHWC")),
    Case(((2, 3, 4), (3,), (3,), (3,), None), _bn("NCL", is_test=True)),
    Case(((2, 4, 3), (3,), (3,), None, (3,)), _bn("NLC", use_global_stats=True)),
    Case(((2, 2, 2, 3, 2), (2,), (2,), None, None), _bn("NCDHW", is_test=True, trainable_statistics=True)),
    Case(((2, 2, 3, 2, 2), (2,), (2,), (2,), (2,)), _bn("NDHWC")),
    Case(((1, 3), (3,), (3,), (3,), (3,)), _bn("NC")),                        # one value per channel: y = x
)


def _bn_grad_cases():
    chosen = (BATCH_NORM_CASES[i] for i in (0, 1, 2, 6))
    global_case = Case(((2, 3, 4), (3,), (3,), (3,), (3,)), _bn("NCL", is_test=True))
    cases = []
    for case in (*chosen, global_case):
        x, _, _, c, _ = case.shapes
        attrs = dict(case.attrs)
        cases.append(Case((x, c, c, c, c, x), attrs))
    return tuple(cases)


def _instance_rows(x, data_format):
    """x [N, C, ...] (or channel-last) as rows [N * C, spatial]."""
    if data_format in ("NLC", "NHWC", "NDHWC"):
        x = np.moveaxis(x, -1, 1)
    return _f64(x).reshape(x.shape[0] * x.shape[1], int(np.prod(x.shape[2:])))


def _channel_first_shape(x, data_format):
    return np.moveaxis(np.empty(x.shape), -1, 1).shape if data_format in ("NLC", "NHWC", "NDHWC") else x.shape


def _back_to_format(a, data_format):
    return np.moveaxis(a, 1, -1) if data_format in ("NLC", "NHWC", "NDHWC") else a


def _per_channel(v, shape):
    """[C] as [1, C, 1, ...] for a channel-first array of ``shape``."""
    return _f64(v).reshape((1, shape[1]) + (1,) * (len(shape) - 2))


def ref_instance_norm(x, scale, bias, epsilon=1e-5, data_format="NCHW"):
    shape = _channel_first_shape(x, data_format)
    xhat, _, _ = _standardize_rows(_instance_rows(x, data_format), epsilon)
    out = xhat.reshape(shape)
    if scale is not None:
        out = out * _per_channel(scale, shape)
    if bias is not None:
        out = out + _per_channel(bias, shape)
    return _back_to_format(out, data_format).astype(x.dtype)


def ref_instance_norm_grad(x, scale, bias, saved_mean, saved_variance, out_grad, epsilon=1e-5, data_format="NCHW"):
    shape = _channel_first_shape(x, data_format)
    rows, g = _instance_rows(x, data_format), _instance_rows(out_grad, data_format)
    xhat, _, _ = _standardize_rows(rows, epsilon)
    gs = (g.reshape(shape) * _per_channel(scale, shape)).reshape(g.shape)
    x_grad = _standardize_rows_vjp(rows, gs, epsilon).reshape(shape)
    n, c = shape[:2]
    scale_grad = (g * xhat).reshape(n, c, -1).sum(axis=(0, 2))
    bias_grad = g.reshape(n, c, -1).sum(axis=(0, 2))
    return _back_to_format(x_grad, data_format).astype(x.dtype), scale_grad.astype(x.dtype), bias_grad.astype(x.dtype)


def _instance_prepare(arrays, attrs):
    x, scale, bias, _, _, out_grad = arrays
    rows = _instance_rows(x, attrs["data_format"])
    return [x, scale, bias, rows.mean(axis=1).astype(x.dtype), rows.var(axis=1).astype(x.dtype), out_grad]


INSTANCE_NORM_CASES = (
    Case(((2, 3, 4), (3,), (3,)), {"epsilon": 1e-5, "data_format": "NCL"}),
    Case(((2, 3, 2, 3), (3,), (3,)), {"epsilon": 1e-3, "data_format": "NCHW"}),
    Case(((2, 3, 2, 2), None, None), {"epsilon": 1e-5, "data_format": "NHWC"}),
    Case(((1, 2, 2, 2, 2), (2,), None), {"epsilon": 1e-5, "data_format": "NCDHW"}),
    Case(((2, 5, 3), (3,), (3,)), {"epsilon": 1e-5, "data_format": "NLC"}),
    Case(((0, 2, 3), (2,), (2,)), {"epsilon": 1e-5, "data_format": "NCL"}),   # an empty batch
)


def _group_rows(x, groups, data_format):
    """x as rows [N * groups, C / groups * spatial]."""
    if data_format in ("NLC", "NHWC", "NDHWC") and x.ndim > 2:
        x = np.moveaxis(x, -1, 1)
    return _f64(x).reshape(x.shape[0] * groups, int(np.prod(x.shape[1:])) // groups)


def ref_group_norm(x, scale, bias, epsilon=1e-5, groups=1, data_format="NCHW"):
    shape = _channel_first_shape(x, data_format) if x.ndim > 2 else x.shape
    xhat, _, _ = _standardize_rows(_group_rows(x, groups, data_format), epsilon)
    out = xhat.reshape(shape)
    if scale is not None:
        out = out * _per_channel(scale, shape)
    if bias is not None:
        out = out + _per_channel(bias, shape)
    return (_back_to_format(out, data_format) if x.ndim > 2 else out).astype(x.dtype)


def ref_group_norm_grad(x, scale, bias, mean, variance, out_grad, epsilon=1e-5, groups=1, data_format="NCHW"):
    shape = _channel_first_shape(x, data_format) if x.ndim > 2 else x.shape
    rows, g = _group_rows(x, groups, data_format), _group_rows(out_grad, groups, data_format)
    xhat, _, _ = _standardize_rows(rows, epsilon)
    gs = (g.reshape(shape) * _per_channel(scale, shape)).reshape(g.shape)
    x_grad = _standardize_rows_vjp(rows, gs, epsilon).reshape(shape)
    n, c = shape[:2]
    scale_grad = (g * xhat).reshape(n, c, -1).sum(axis=(0, 2))
    bias_grad = g.reshape(n, c, -1).sum(axis=(0, 2))
    x_grad = _back_to_format(x_grad, data_format) if x.ndim > 2 else x_grad
    return x_grad.astype(x.dtype), scale_grad.astype(x.dtype), bias_grad.astype(x.dtype)


def _group_prepare(arrays, attrs):
    x, scale, bias, _, _, out_grad = arrays
    rows = _group_rows(x, attrs["groups"], attrs["data_format"])
    n = x.shape[0]
    return [x, scale, bias, rows.mean(axis=1).reshape(n, -1).astype(x.dtype),
            rows.var(axis=1).reshape(n, -1).astype(x.dtype), out_grad]


GROUP_NORM_CASES = (
    Case(((2, 4, 3), (4,), (4,)), {"epsilon": 1e-5, "groups": 2, "data_format": "NCL"}),
    Case(((2, 6, 2, 2), (6,), (6,)), {"epsilon": 1e-3, "groups": 3, "data_format": "NCHW"}),
    Case(((2, 2, 3, 4), (4,), (4,)), {"epsilon": 1e-5, "groups": 2, "data_format": "NHWC"}),
    Case(((3, 4), None, None), {"epsilon": 1e-5, "groups": 2, "data_format": "NCHW"}),
    Case(((1, 2, 2, 1, 2), (2,), None), {"epsilon": 1e-5, "groups": 1, "data_format": "NCDHW"}),
    Case(((2, 3, 2), (3,), (3,)), {"epsilon": 1e-5, "groups": 3, "data_format": "NCL"}),
)


def _stats_grad_cases(cases, stats_shape):
    out = []
    for case in cases:
        x, s, b = case.shapes
        if s is None or b is None:
            continue
        out.append(Case((x, s, b, stats_shape(x, case.attrs), stats_shape(x, case.attrs), x), case.attrs))
    return tuple(out)


SPECS = [
    OpSpec("layer_norm", F.layer_norm, ref_layer_norm, ("real", "real", "real"), LAYER_NORM_CASES),
    OpSpec("layer_norm_grad", F.layer_norm_grad, ref_layer_norm_grad, ("real",) * 6,
           _grad_cases(LAYER_NORM_CASES[i] for i in (0, 1, 4)), prepare=_layer_norm_prepare, wrt=(1, 2, 5)),
    OpSpec("batch_norm", _bn_out, ref_batch_norm, ("real", "real", "positive", "real", "real"), BATCH_NORM_CASES,
           wrt=(0, 3, 4)),
    OpSpec("batch_norm_grad", F.batch_norm_grad, ref_batch_norm_grad, ("real", "real", "real", "real", "positive", "real"),
           _bn_grad_cases(), prepare=_batch_norm_grad_prepare, wrt=(1, 2, 5)),
    OpSpec("instance_norm", F.instance_norm, ref_instance_norm, ("real",) * 3, INSTANCE_NORM_CASES),
    OpSpec("instance_norm_grad", F.instance_norm_grad, ref_instance_norm_grad, ("real",) * 6,
           _stats_grad_cases(INSTANCE_NORM_CASES[:5], lambda x, a: (x[0] * (x[-1] if a["data_format"] in ("NLC", "NHWC", "NDHWC") else x[1]),)),
           prepare=_instance_prepare, wrt=(1, 2, 5)),
    OpSpec("group_norm", F.group_norm, ref_group_norm, ("real",) * 3, GROUP_NORM_CASES),
    OpSpec("group_norm_grad", F.group_norm_grad, ref_group_norm_grad, ("real",) * 6,
           _stats_grad_cases(GROUP_NORM_CASES, lambda x, a: (x[0], a["groups"])), prepare=_group_prepare,
           wrt=(1, 2, 5)),
]
