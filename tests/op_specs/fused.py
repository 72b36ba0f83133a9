"""The op table of the fused ops (issue #14).

linear's reference sums products term by term (no matmul); its gradients come
from linear_vjp of that reference, one argument at a time, so nothing here
shares the kernels' folding of the leading dimensions.
"""
from __future__ import annotations

import numpy as np

from eager.generated import forward_api as F

from .core import Case, OpSpec, linear_vjp


def ref_linear(x, weight, bias=None):
    out = (x[..., :, None] * weight).sum(axis=-2)
    if bias is not None:
        out = out + bias
    return out.astype(x.dtype)


def ref_linear_grad(x, weight, out_grad):
    x_grad = linear_vjp(lambda v: ref_linear(v, weight), x.shape, out_grad, x.dtype)
    weight_grad = linear_vjp(lambda v: ref_linear(x, v), weight.shape, out_grad, x.dtype)
    bias_grad = linear_vjp(lambda v: ref_linear(np.zeros_like(x), weight, v), weight.shape[1:], out_grad, x.dtype)
    return x_grad, weight_grad, bias_grad


# (x, weight, bias): a batch, leading dimensions folded, a single vector, no bias, an empty batch,
# three leading dimensions, an empty middle one (the composite gradient's reshape takes -1 there).
_LINEAR_SHAPES = (((3, 4), (4, 2), (2,)), ((2, 3, 4), (4, 5), (5,)), ((4,), (4, 3), (3,)),
                  ((3, 4), (4, 2), None), ((0, 4), (4, 3), (3,)), ((2, 2, 3, 4), (4, 2), None),
                  ((2, 0, 4), (4, 3), (3,)))


def _out_shape(x, weight):
    return tuple(x[:-1]) + (weight[1],)


SPECS = [
    OpSpec("linear", F.linear, ref_linear, ("real", "real", "real"),
           tuple(Case(shapes) for shapes in _LINEAR_SHAPES)),
    OpSpec("linear_grad", F.linear_grad, ref_linear_grad, ("real", "real", "real"),
           tuple(Case((x, w, _out_shape(x, w))) for x, w, _ in _LINEAR_SHAPES)),
]
