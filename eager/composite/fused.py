"""Composite rules of the fused ops (issue #14) (see eager/composite/__init__.py).

linear's gradient written with matmul, reshape and sum, so under create_graph
it differentiates again to any order, in x, weight and out_grad.
"""
from __future__ import annotations

import math

from ..generated import forward_api as _F
from .spine import conj_if_complex, reshape_exactly


def linear_grad(x, weight, out_grad):
    out_features = weight.shape[1]
    x, weight = conj_if_complex(x), conj_if_complex(weight)  # out_grad times the conjugate factors
    x_grad = _F.matmul(out_grad, weight, False, True)
    # reshape_exactly: a 0 in _F.reshape's shape means "x's size there" (Paddle's rule), and an
    # empty batch, in_features or out_features puts zeros there.
    lead = math.prod(out_grad.shape[:-1])
    rows = reshape_exactly(out_grad, [lead, out_features])
    weight_grad = _F.matmul(reshape_exactly(x, [lead, weight.shape[0]]), rows, True, False)
    bias_grad = _F.sum(rows, [0], None, False)
    return x_grad, weight_grad, bias_grad
