"""Stateless functions for building networks (Paddle's ``paddle.nn.functional``).

Everything here is composed from differentiable eager ops, so gradients (and
higher-order gradients) come from the ops' own backward rules. Constants such
as one-hot labels and masks are computed directly on the input's array (NumPy
or CuPy) and enter the graph as stop-gradient tensors.
"""
from __future__ import annotations

import numbers

import numpy as np

from phi.common.data_type import COMPLEX_TYPES, FLOATING_TYPES
from phi.core import DenseTensor

from ..arguments import describe
from ..generated import forward_api as _ops
from ..tensor import Tensor

_REDUCTIONS = ("mean", "sum", "none")


# -- argument checks (each names the function and argument) ------------------
def _check_tensor(fn: str, arg: str, value) -> Tensor:
    if not isinstance(value, Tensor):
        hint = " (convert it with eager.to_tensor)" if isinstance(
            value, (np.ndarray, list, tuple, numbers.Number)) else ""
        raise TypeError(f"{fn}: argument '{arg}' expected a Tensor, got {describe(value)}{hint}")
    return value


def _check_float(fn: str, arg: str, value) -> Tensor:
    _check_tensor(fn, arg, value)
    if value.dtype not in FLOATING_TYPES:
        raise TypeError(
            f"{fn}: argument '{arg}' expected a floating-point Tensor, got {value.dtype}{value.shape}")
    return value


def _check_reduction(fn: str, reduction) -> str:
    if reduction not in _REDUCTIONS:
        raise ValueError(
            f"{fn}: argument 'reduction' expected one of 'mean', 'sum', 'none', got {reduction!r}")
    return reduction


def _check_axis(fn: str, x: Tensor, axis) -> int:
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise TypeError(f"{fn}: argument 'axis' expected an int, got {axis!r}")
    ndim = max(x.ndim, 1)
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"{fn}: argument 'axis' expected an int in [{-ndim}, {ndim}) for input of shape "
            f"{x.shape}, got {axis}")
    return int(axis) % ndim


def _check_same_shape(fn: str, a_name: str, a: Tensor, b_name: str, b: Tensor) -> None:
    # Losses do not broadcast: [N, 1] against [N] would silently give an N x N loss.
    if a.shape != b.shape:
        raise ValueError(
            f"{fn}: argument '{b_name}' expected the shape of '{a_name}' {a.shape}, got {b.shape}")
    if a.dtype != b.dtype:
        raise TypeError(
            f"{fn}: argument '{b_name}' expected the dtype of '{a_name}' {a.dtype}, got {b.dtype}")


def _xp(x: Tensor):
    array = x.impl.array
    if type(array) is np.ndarray:
        return np
    import cupy

    return cupy


def _constant(array) -> Tensor:
    """A stop-gradient tensor on the array's own device."""
    return Tensor(DenseTensor(array))


def _reduce(fn: str, loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return _ops.mean(loss)
    if reduction == "sum":
        return _ops.sum(loss)
    return loss


# -- activations ---------------------------------------------------------------
def relu(x: Tensor, name=None) -> Tensor:
    """max(x, 0) elementwise."""
    return _ops.relu(_check_tensor("relu", "x", x))


def sigmoid(x: Tensor, name=None) -> Tensor:
    """1 / (1 + exp(-x)) elementwise."""
    return _ops.sigmoid(_check_float("sigmoid", "x", x))


def tanh(x: Tensor, name=None) -> Tensor:
    """Hyperbolic tangent elementwise."""
    return _ops.tanh(_check_float("tanh", "x", x))


def _shifted(fn: str, x: Tensor, axis: int) -> Tensor:
    # exp overflows for large logits; subtracting the row max changes neither
    # softmax nor log_softmax. The max is a constant: the terms its gradient
    # would contribute cancel exactly, so it need not be differentiated.
    xp = _xp(x)
    peak = xp.max(x.impl.array, axis=axis, keepdims=True)
    peak = xp.where(xp.isfinite(peak), peak, 0).astype(x.impl.array.dtype)
    return _ops.subtract(x, _constant(peak))


def softmax(x: Tensor, axis: int = -1, dtype=None, name=None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``axis``, computed stably."""
    _check_float("softmax", "x", x)
    if dtype is not None:
        x = x.astype(dtype)
    axis = _check_axis("softmax", x, axis)
    e = _ops.exp(_shifted("softmax", x, axis))
    return _ops.divide(e, _ops.sum(e, axis=axis, keepdim=True))


def log_softmax(x: Tensor, axis: int = -1, dtype=None, name=None) -> Tensor:
    """log(softmax(x)) along ``axis``, computed stably (x - max - log(sum(exp(x - max))))."""
    _check_float("log_softmax", "x", x)
    if dtype is not None:
        x = x.astype(dtype)
    axis = _check_axis("log_softmax", x, axis)
    shifted = _shifted("log_softmax", x, axis)
    return _ops.subtract(shifted, _ops.log(_ops.sum(_ops.exp(shifted), axis=axis, keepdim=True)))


# -- losses --------------------------------------------------------------------
def mse_loss(input: Tensor, label: Tensor, reduction: str = "mean", name=None) -> Tensor:
    """Mean squared error: reduce((input - label) ** 2). ``input`` and ``label``
    must have the same shape and dtype (no broadcasting)."""
    fn = "mse_loss"
    _check_float(fn, "input", input)
    _check_tensor(fn, "label", label)
    _check_same_shape(fn, "input", input, "label", label)
    _check_reduction(fn, reduction)
    diff = _ops.subtract(input, label)
    return _reduce(fn, _ops.multiply(diff, diff), reduction)


def l1_loss(input: Tensor, label: Tensor, reduction: str = "mean", name=None) -> Tensor:
    """Mean absolute error: reduce(|input - label|); the gradient at 0 is taken as +1."""
    fn = "l1_loss"
    _check_float(fn, "input", input)
    _check_tensor(fn, "label", label)
    _check_same_shape(fn, "input", input, "label", label)
    _check_reduction(fn, reduction)
    diff = _ops.subtract(input, label)
    xp = _xp(diff)
    sign = xp.where(diff.impl.array >= 0, 1, -1).astype(diff.impl.array.dtype)
    return _reduce(fn, _ops.multiply(diff, _constant(sign)), reduction)


def binary_cross_entropy_with_logits(logit: Tensor, label: Tensor, weight=None,
                                     reduction: str = "mean", pos_weight=None,
                                     name=None) -> Tensor:
    """Sigmoid cross entropy on logits, stable for any magnitude:

    loss = (1 - z) * x + (1 + (p - 1) * z) * softplus(-x),
    softplus(-x) = log(1 + exp(-|x|)) + max(-x, 0)

    with z the label, p ``pos_weight`` (default 1), scaled by ``weight`` if given.
    |x| and max(-x, 0) use constant masks chosen so the gradient is exactly
    sigmoid(x) - z everywhere, x = 0 included.
    """
    fn = "binary_cross_entropy_with_logits"
    _check_float(fn, "logit", logit)
    _check_tensor(fn, "label", label)
    _check_same_shape(fn, "logit", logit, "label", label)
    _check_reduction(fn, reduction)
    xp = _xp(logit)
    x = logit.impl.array
    dtype = x.dtype
    sign = _constant(xp.where(x >= 0, 1, -1).astype(dtype))
    negative = _constant((x < 0).astype(dtype))
    abs_x = _ops.multiply(logit, sign)
    # log(1 + exp(-|x|)) - x * [x < 0]
    softplus_neg = _ops.subtract(_ops.log(_ops.scale(_ops.exp(_ops.scale(abs_x, -1.0)), 1.0, 1.0)),
                                 _ops.multiply(logit, negative))
    one_minus_z = _ops.scale(label, -1.0, 1.0)
    if pos_weight is None:
        coeff = None
    else:
        _check_tensor(fn, "pos_weight", pos_weight)
        if pos_weight.dtype != logit.dtype:
            raise TypeError(f"{fn}: argument 'pos_weight' expected dtype {logit.dtype}, got "
                            f"{pos_weight.dtype}")
        coeff = _ops.add(_ops.multiply(_ops.scale(pos_weight, 1.0, -1.0), label),
                         _ops.full_like(label, 1.0))
    term = softplus_neg if coeff is None else _ops.multiply(coeff, softplus_neg)
    loss = _ops.add(_ops.multiply(one_minus_z, logit), term)
    if weight is not None:
        _check_tensor(fn, "weight", weight)
        if weight.dtype != logit.dtype:
            raise TypeError(f"{fn}: argument 'weight' expected dtype {logit.dtype}, got {weight.dtype}")
        loss = _ops.multiply(loss, weight)
    return _reduce(fn, loss, reduction)


def cross_entropy(input: Tensor, label: Tensor, weight=None, ignore_index: int = -100,
                  reduction: str = "mean", soft_label: bool = False, axis: int = -1,
                  use_softmax: bool = True, name=None) -> Tensor:
    """Softmax cross entropy (Paddle's ``paddle.nn.functional.cross_entropy``).

    ``input``: logits (or probabilities with ``use_softmax=False``), classes along
    ``axis``. ``label``: integer class indices shaped like input without the class
    axis, optionally with a trailing 1 ([N] or [N, 1]); with ``soft_label=True``,
    a float distribution shaped like input. ``weight``: per-class weights [C].
    Samples whose label is ``ignore_index`` contribute nothing, and the mean
    divides by the total weight of the samples that count.
    """
    fn = "cross_entropy"
    _check_float(fn, "input", input)
    _check_tensor(fn, "label", label)
    _check_reduction(fn, reduction)
    if input.ndim < 1:
        raise ValueError(f"{fn}: argument 'input' expected at least 1 dimension, got shape {input.shape}")
    axis = _check_axis(fn, input, axis)
    logp = log_softmax(input, axis=axis) if use_softmax else _ops.log(input)
    xp = _xp(input)
    dtype = input.impl.array.dtype
    classes = input.shape[axis]
    if weight is not None:
        _check_tensor(fn, "weight", weight)
        if weight.shape != [classes]:
            raise ValueError(f"{fn}: argument 'weight' expected shape [{classes}], got {weight.shape}")
        w = weight.impl.array.astype(dtype)

    if soft_label:
        _check_same_shape(fn, "input", input, "label", label)
        per_class = _ops.multiply(logp, label)
        if weight is not None:
            shape = [1] * input.ndim
            shape[axis] = classes
            per_class = _ops.multiply(per_class, _constant(w.reshape(shape)))
        loss = _ops.scale(_ops.sum(per_class, axis=axis, keepdim=True), -1.0)
        if reduction == "mean":
            return _ops.mean(loss)
        return _reduce(fn, loss, reduction)

    indices = label.impl.array
    if indices.dtype.kind not in "iu":
        raise TypeError(
            f"{fn}: argument 'label' expected an integer Tensor of class indices (or "
            f"soft_label=True), got {label.dtype}{label.shape}")
    expected = input.shape[:axis] + input.shape[axis + 1:]
    if label.shape == expected + [1] and axis == input.ndim - 1:
        indices = indices.reshape(expected)
    elif label.shape != expected:
        raise ValueError(
            f"{fn}: argument 'label' expected shape {expected} or {expected + [1]} for input of "
            f"shape {input.shape} (classes on axis {axis}), got {label.shape}")
    valid = indices != ignore_index
    bad = valid & ((indices < 0) | (indices >= classes))
    if bool(bad.any()):
        raise ValueError(
            f"{fn}: argument 'label' expected class indices in [0, {classes}) or ignore_index "
            f"{ignore_index}, got {int(indices[bad].reshape(-1)[0])}")
    safe = xp.where(valid, indices, 0)
    sample_weight = (w[safe] if weight is not None else xp.ones(safe.shape, dtype)) * valid
    # coefficient[..., c, ...] = sample_weight if c is the label: one multiply and
    # one sum select -w * log p[label] without a gather op.
    one_hot = xp.expand_dims(safe, axis) == xp.arange(classes).reshape(
        [classes if d == axis else 1 for d in range(input.ndim)])
    coefficient = (one_hot * xp.expand_dims(sample_weight, axis)).astype(dtype)
    loss = _ops.sum(_ops.multiply(logp, _constant(-coefficient)), axis=axis)
    if reduction == "none":
        return _ops.reshape(loss, label.shape)
    total = _ops.sum(loss)
    if reduction == "sum":
        return total
    denominator = float(sample_weight.sum())
    # All samples ignored: Paddle returns 0 rather than 0/0.
    return _ops.scale(total, 1.0 / denominator if denominator != 0 else 0.0)


__all__ = [
    "binary_cross_entropy_with_logits", "cross_entropy", "l1_loss", "log_softmax", "mse_loss",
    "relu", "sigmoid", "softmax", "tanh",
]
