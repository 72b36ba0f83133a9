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


SPECS = [
    OpSpec("layer_norm", F.layer_norm, ref_layer_norm, ("real", "real", "real"), LAYER_NORM_CASES),
    OpSpec("layer_norm_grad", F.layer_norm_grad, ref_layer_norm_grad, ("real",) * 6,
           _grad_cases(LAYER_NORM_CASES[i] for i in (0, 1, 4)), prepare=_layer_norm_prepare, wrt=(1, 2, 5)),
]
