"""Composite rules of the loss ops beyond the spine's cross-entropy pair (issue #10) (see eager/composite/__init__.py).

warpctc_grad has none: its gradient comes from the alpha-beta recursion, and the
loss is first-order only (as Paddle's warpctc).
"""
from __future__ import annotations

import math

from ..generated import forward_api as _F
from .spine import softmax_grad_rule


def fused_mse_loss_grad(input, label, out_grad, reduction):
    # 2 (input - label) g, g spread over the elements (and / count for 'mean')
    factor = _F.scale(out_grad, 2.0 / max(math.prod(input.shape), 1) if reduction == "mean" else 2.0, 0.0, True)
    grad = _F.multiply(_F.subtract(input, label), factor)
    return grad, _F.scale(grad, -1.0, 0.0, True)


def bce_loss_grad(input, label, out_grad):
    # (x - z) / max(x (1 - x), 1e-12)
    denominator = _F.multiply(_F.scale(input, -1.0, 1.0, True), input)
    denominator = _F.maximum(denominator, _F.full_like(denominator, 1e-12, None))
    return _F.divide(_F.multiply(out_grad, _F.subtract(input, label)), denominator)


def nll_loss_grad(input, label, weight, out_grad, ignore_index):
    # -weight[y] * out_grad at each element's class (axis 1), zeros elsewhere
    valid = _F.not_equal(label, _F.full_like(label, ignore_index, None))
    safe = _F.where(valid, label, _F.full_like(label, 0, None))
    coeff = _F.cast(valid, out_grad.dtype)
    if weight is not None:
        picked = _F.reshape(_F.gather(weight, _F.reshape(safe, [-1]), 0), safe.shape)
        coeff = _F.multiply(coeff, picked)
    coeff = _F.scale(_F.multiply(coeff, out_grad), -1.0, 0.0, True)
    hot = _F.cast(_F.moveaxis(_F.one_hot(safe, input.shape[1]), -1, 1), out_grad.dtype)
    return _F.multiply(hot, _F.unsqueeze(coeff, [1]))


def fused_softmax_cross_entropy_grad(label, softmax, softmax_grad, loss_grad, ignore_index, reduction):
    # (softmax - onehot) * g (/ the count of rows that count), 0 on ignored rows
    classes = softmax.shape[-1]
    rows = math.prod(softmax.shape[:-1])
    p = _F.reshape(softmax, [rows, classes])
    labels = _F.reshape(label, [rows])
    valid = _F.not_equal(labels, _F.full_like(labels, ignore_index, None))
    safe = _F.where(valid, labels, _F.full_like(labels, 0, None))
    weight = _F.multiply(_F.cast(valid, softmax.dtype), loss_grad)
    if reduction == "mean":
        count = _F.sum(_F.cast(valid, softmax.dtype), [], None, False)
        weight = _F.divide(weight, _F.maximum(count, _F.full_like(count, 1, None)))
    hot = _F.cast(_F.one_hot(safe, classes), softmax.dtype)
    grad = _F.multiply(_F.subtract(p, hot), _F.unsqueeze(weight, [1]))
    if softmax_grad is not None:
        grad = _F.add(grad, softmax_grad_rule(p, _F.reshape(softmax_grad, [rows, classes]), -1))
    return _F.reshape(grad, softmax.shape)
