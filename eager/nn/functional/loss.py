"""Loss functions (Paddle's ``paddle.nn.functional.loss``)."""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from phi.common.data_type import INTEGER_TYPES
from phi.core.errors import PhiError

from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import check_axis, check_float, check_reduction, check_same_shape, check_tensor, reduce_loss


def mse_loss(input: Tensor, label: Tensor, reduction: str = "mean", name=None) -> Tensor:
    """Mean squared error: reduce((input - label) ** 2). ``input`` and ``label``
    share a dtype; different shapes broadcast as in Paddle, with a warning."""
    fn = "mse_loss"
    check_float(fn, "input", input)
    check_tensor(fn, "label", label)
    if input.shape != label.shape:
        try:
            np.broadcast_shapes(tuple(input.shape), tuple(label.shape))
        except ValueError:
            raise ValueError(f"{fn}: argument 'label' of shape {label.shape} cannot be broadcast "
                             f"with 'input' of shape {input.shape}") from None
        # Paddle broadcasts here, so [N, 1] against [N] is an N x N loss: say so.
        warnings.warn(f"{fn}: input of shape {input.shape} and label of shape {label.shape} are "
                      f"broadcast together, as Paddle does; reshape one if that is not meant",
                      stacklevel=2)
        if input.dtype != label.dtype:
            raise TypeError(f"{fn}: argument 'label' expected the dtype of 'input' {input.dtype}, "
                            f"got {label.dtype}")
    else:
        check_same_shape(fn, "input", input, "label", label)
    check_reduction(fn, reduction)
    diff = _F.subtract(input, label)
    return reduce_loss(fn, _F.multiply(diff, diff), reduction)


def l1_loss(input: Tensor, label: Tensor, reduction: str = "mean", name=None) -> Tensor:
    """Mean absolute error: reduce(|input - label|); the gradient at 0 is 0, as in
    Paddle and PyTorch (|d| is computed as d * sign(d))."""
    fn = "l1_loss"
    check_float(fn, "input", input)
    check_tensor(fn, "label", label)
    check_same_shape(fn, "input", input, "label", label)
    check_reduction(fn, reduction)
    diff = _F.subtract(input, label)
    return reduce_loss(fn, _F.multiply(diff, _F.sign(diff)), reduction)


def binary_cross_entropy_with_logits(logit: Tensor, label: Tensor, weight=None,
                                     reduction: str = "mean", pos_weight=None,
                                     name=None) -> Tensor:
    """Sigmoid cross entropy on logits, stable for any magnitude (a fused kernel):

    loss = (1 - z) * x + (1 + (p - 1) * z) * log(1 + exp(-x))

    with z the label, p ``pos_weight`` (default 1; broadcast to the logits'
    shape), scaled by ``weight`` if given. Its gradient is sigmoid(x) - z for p = 1.
    """
    fn = "binary_cross_entropy_with_logits"
    check_float(fn, "logit", logit)
    check_tensor(fn, "label", label)
    check_same_shape(fn, "logit", logit, "label", label)
    check_reduction(fn, reduction)
    if pos_weight is not None:
        check_tensor(fn, "pos_weight", pos_weight)
        if pos_weight.dtype != logit.dtype:
            raise TypeError(f"{fn}: argument 'pos_weight' expected dtype {logit.dtype}, got "
                            f"{pos_weight.dtype}")
        pos_weight = _F.expand(pos_weight, logit.shape)
    loss = _F.sigmoid_cross_entropy_with_logits(logit, label, pos_weight)
    if weight is not None:
        check_tensor(fn, "weight", weight)
        if weight.dtype != logit.dtype:
            raise TypeError(f"{fn}: argument 'weight' expected dtype {logit.dtype}, got {weight.dtype}")
        loss = _F.multiply(loss, weight)
    return reduce_loss(fn, loss, reduction)


def cross_entropy(input: Tensor, label: Tensor, weight=None, ignore_index: int = -100,
                  reduction: str = "mean", soft_label: bool = False, axis: int = -1,
                  use_softmax: bool = True, name=None) -> Tensor:
    """Softmax cross entropy (Paddle's ``paddle.nn.functional.cross_entropy``).

    ``input``: logits (or probabilities with ``use_softmax=False``), classes along
    ``axis``. ``label``: integer class indices shaped like input without the class
    axis, or with it of size 1 ([N] or [N, 1]); with ``soft_label=True``, a float
    distribution shaped like input. ``weight``: per-class weights [C]. Samples
    whose label is ``ignore_index`` contribute nothing, and the mean divides by
    the total weight of the samples that count (0 when none does).

    It runs one fused kernel: a logit of -inf (a masked class) has probability 0
    and adds nothing, to the loss or the gradient. Labels out of range raise on
    the CPU; on a GPU they are not checked (that would wait for the device) and
    are clipped into range.

    >>> logits = eager.to_tensor([[2.0, 0.5, float("-inf")]])
    >>> float(eager.nn.functional.cross_entropy(logits, eager.to_tensor([0])))
    0.2014...
    """
    fn = "cross_entropy"
    check_float(fn, "input", input)
    check_tensor(fn, "label", label)
    check_reduction(fn, reduction)
    if input.ndim < 1:
        raise ValueError(f"{fn}: argument 'input' expected at least 1 dimension, got shape {input.shape}")
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, numbers.Integral):
        raise TypeError(f"{fn}: argument 'ignore_index' expected an int, got {ignore_index!r}")
    for flag, value in (("soft_label", soft_label), ("use_softmax", use_softmax)):
        if not isinstance(value, bool):
            raise TypeError(f"{fn}: argument '{flag}' expected a bool, got {value!r}")
    axis = check_axis(fn, input, axis)
    classes = input.shape[axis]
    kept = input.shape[:axis] + [1] + input.shape[axis + 1:]
    if weight is not None:
        check_tensor(fn, "weight", weight)
        if weight.shape != [classes]:
            raise ValueError(f"{fn}: argument 'weight' expected shape [{classes}], got {weight.shape}")
        weight = weight.astype(input.dtype) if weight.dtype != input.dtype else weight
        weight = _F.reshape(weight, [classes if d == axis else 1 for d in range(input.ndim)])

    if soft_label:
        check_same_shape(fn, "input", input, "label", label)
        loss = _F.cross_entropy_with_softmax(input, label, True, use_softmax, True, ignore_index, axis)
        if weight is None:
            return reduce_loss(fn, loss, reduction)
        sample_weight = _F.sum(_F.multiply(label, weight), [axis], None, True)
        return _weighted(fn, _F.multiply(loss, sample_weight), sample_weight, reduction, label.shape)

    if label.dtype not in INTEGER_TYPES:
        raise TypeError(
            f"{fn}: argument 'label' expected an integer Tensor of class indices (or "
            f"soft_label=True), got {label.dtype}{label.shape}")
    dropped = input.shape[:axis] + input.shape[axis + 1:]
    if label.shape == dropped:
        label_kept = _F.unsqueeze(label, [axis])
    elif label.shape == kept or (label.shape == dropped + [1] and axis == input.ndim - 1):
        label_kept = _F.reshape(label, kept)
    else:
        raise ValueError(
            f"{fn}: argument 'label' expected shape {dropped} or {dropped + [1]} for input of "
            f"shape {input.shape} (classes on axis {axis}), got {label.shape}")
    try:
        loss = _F.cross_entropy_with_softmax(input, label_kept, False, use_softmax, True, ignore_index, axis)
    except PhiError as error:  # a label out of range: name the function the user called
        raise type(error)(str(error).replace("cross_entropy_with_softmax:", f"{fn}:", 1)) from None
    valid = _F.cast(_F.not_equal(label_kept, _F.full_like(label_kept, ignore_index, None)), input.dtype)
    if weight is None:
        sample_weight = valid
    else:
        safe = _F.where(_F.not_equal(label_kept, _F.full_like(label_kept, ignore_index, None)),
                          label_kept, _F.full_like(label_kept, 0, None))
        one_hot = _F.cast(_F.one_hot(_F.squeeze(safe, [axis]), classes), input.dtype)
        per_class = _F.reshape(weight, [classes])
        sample_weight = _F.multiply(_F.reshape(_F.matmul(one_hot, per_class, False, False), kept), valid)
        loss = _F.multiply(loss, sample_weight)
    return _weighted(fn, loss, sample_weight, reduction, label.shape)


def _weighted(fn: str, loss: Tensor, sample_weight: Tensor, reduction: str, shape) -> Tensor:
    """The reduction of a per-sample loss whose mean divides by the weights' sum."""
    if reduction == "none":
        return _F.reshape(loss, shape)
    total = _F.sum(loss)
    if reduction == "sum":
        return total
    denominator = _F.sum(sample_weight)
    # No sample counts: the total is 0 too, and Paddle returns 0 rather than 0/0.
    tiny = _F.full_like(denominator, float(np.finfo(denominator.dtype.numpy_dtype).tiny), None)
    return _F.divide(total, _F.maximum(denominator, tiny))


__all__ = ["binary_cross_entropy_with_logits", "cross_entropy", "l1_loss", "mse_loss"]
