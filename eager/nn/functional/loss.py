"""Loss functions (Paddle's ``paddle.nn.functional.loss``)."""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from phi.common.data_type import FLOATING_TYPES, INTEGER_TYPES, DataType, float_info
from phi.core import DenseTensor
from phi.core.errors import AssertedArgumentError, PhiError

from ...arguments import to_scalar
from ...composite.spine import reshape_exactly
from ...creation import to_tensor
from ...generated import forward_api as _F
from ...tensor import Tensor
from ...type_promotion import promoted_dtype
from .checks import (FLOAT_ARRAY_DTYPES, REDUCTIONS, as_int64, check_axis, check_float, check_integer, check_number,
                     check_reduction, check_same_shape, check_tensor, dtypes_differ, reads_values,
                     promote_floats, reduce_loss, same_shape_promoted, value_range)
from .common import pairwise_distance
from .levenshtein import edit_distance  # noqa: F401  (Paddle keeps edit_distance in this module)
from .margin_softmax import margin_cross_entropy  # noqa: F401  (so does Paddle's paddle.nn.functional.loss)
from .rnnt import rnnt_loss  # noqa: F401  (and rnnt_loss)

_INTEGER_ARRAY_DTYPES = frozenset(np.dtype(t.value) for t in INTEGER_TYPES)  # class labels' array dtypes


def mse_loss(input: Tensor, label: Tensor, reduction: str = "mean", name=None) -> Tensor:
    """Mean squared error: reduce((input - label) ** 2). ``input`` and ``label``
    share a dtype; different shapes broadcast as in Paddle, with a warning.

    >>> float(eager.nn.functional.mse_loss(eager.to_tensor([1.0, 3.0]), eager.to_tensor([2.0, 1.0])))
    2.5
    """
    if isinstance(input, Tensor) and isinstance(label, Tensor):  # the common case, checked in line
        a, b = input.impl, label.impl
        if type(a) is DenseTensor and type(b) is DenseTensor:
            a, b = a.array, b.array
            if (a.shape == b.shape and a.dtype in FLOAT_ARRAY_DTYPES and a.dtype == b.dtype
                    and type(reduction) is str and reduction in REDUCTIONS):
                return _F.fused_mse_loss(input, label, reduction)  # one op; its backward is one pass
    fn = "mse_loss"
    check_reduction(fn, reduction)
    check_float(fn, "input", input)
    check_tensor(fn, "label", label)
    if input.shape != label.shape:
        _broadcast_with_warning(fn, ("input", input), ("label", label))
        input, label = promote_floats(fn, "input", input, ("label", label))
    else:
        input, label = same_shape_promoted(fn, "input", input, "label", label)
        return _F.fused_mse_loss(input, label, reduction)  # one op; its backward is one pass
    diff = _F.subtract(input, label)
    return reduce_loss(fn, _F.multiply(diff, diff), reduction)


def _broadcast_with_warning(fn: str, *named) -> None:
    """A ValueError unless the (name, tensor) pairs' shapes broadcast together, else
    a warning: Paddle broadcasts these losses' operands, so a [N, 1] against a [N]
    is silently an N x N loss there; eager computes it too, and says so."""
    try:
        np.broadcast_shapes(*(tuple(tensor.shape) for _, tensor in named))
    except ValueError:
        listing = ", ".join(f"'{name}' {tensor.shape}" for name, tensor in named)
        raise ValueError(f"{fn}: arguments {listing} do not broadcast together") from None
    parts = [f"{name} of shape {tensor.shape}" for name, tensor in named]
    listing = ", ".join(parts[:-1]) + " and " + parts[-1]
    warnings.warn(f"{fn}: {listing} are broadcast together, as Paddle does; reshape one if that is not meant",
                  stacklevel=3)


def square_error_cost(input: Tensor, label: Tensor) -> Tensor:
    """``(input - label) ** 2`` elementwise, with no reduction; the two broadcast
    together, as Paddle's subtraction does.

    >>> eager.nn.functional.square_error_cost(eager.to_tensor([1.0, 3.0]), eager.to_tensor([2.0, 1.0])).numpy()
    array([1., 4.], dtype=float32)
    """
    fn = "square_error_cost"
    check_float(fn, "input", input)
    check_tensor(fn, "label", label)
    input, label = promote_floats(fn, "input", input, ("label", label))
    try:
        np.broadcast_shapes(tuple(input.shape), tuple(label.shape))
    except ValueError:
        raise ValueError(f"{fn}: argument 'label' of shape {label.shape} cannot be broadcast with 'input' of "
                         f"shape {input.shape}") from None
    diff = _F.subtract(input, label)
    return _F.multiply(diff, diff)


def l1_loss(input: Tensor, label: Tensor, reduction: str = "mean", name=None) -> Tensor:
    """Mean absolute error: reduce(|input - label|); the gradient at 0 is 0, as in
    Paddle and PyTorch (|d| is computed as d * sign(d)).

    >>> float(eager.nn.functional.l1_loss(eager.to_tensor([1.0, 3.0]), eager.to_tensor([2.0, 1.0])))
    1.5
    """
    fn = "l1_loss"
    check_reduction(fn, reduction)
    check_float(fn, "input", input)
    check_tensor(fn, "label", label)
    input, label = same_shape_promoted(fn, "input", input, "label", label)
    diff = _F.subtract(input, label)
    return reduce_loss(fn, _F.multiply(diff, _F.sign(diff)), reduction)


def binary_cross_entropy_with_logits(logit: Tensor, label: Tensor, weight=None,
                                     reduction: str = "mean", pos_weight=None,
                                     name=None) -> Tensor:
    """Sigmoid cross entropy on logits, stable for any magnitude (a fused kernel):

    loss = (1 - z) * x + (1 + (p - 1) * z) * log(1 + exp(-x))

    with z the label, p ``pos_weight`` (default 1; broadcast to the logits'
    shape), scaled by ``weight`` if given (broadcast to the logits' shape). Its
    gradient is sigmoid(x) - z for p = 1. The label gets no gradient.

    >>> logit, label = eager.to_tensor([5.0, 1.0, 3.0]), eager.to_tensor([1.0, 0.0, 1.0])
    >>> round(float(eager.nn.functional.binary_cross_entropy_with_logits(logit, label)), 4)
    0.4562
    """
    fn = "binary_cross_entropy_with_logits"
    check_reduction(fn, reduction)
    check_float(fn, "logit", logit)
    check_tensor(fn, "label", label)
    check_same_shape(fn, "logit", logit, "label", label)
    if pos_weight is not None:
        check_tensor(fn, "pos_weight", pos_weight)
        if dtypes_differ(pos_weight, logit):
            # a narrower float one is cast up, as Paddle's arithmetic on it does; a wider one
            # would change the loss's dtype, which Paddle's kernel refuses too
            if (pos_weight.dtype not in FLOATING_TYPES or logit.dtype not in FLOATING_TYPES
                    or promoted_dtype(logit.dtype, pos_weight.dtype) != logit.dtype):
                raise TypeError(f"{fn}: argument 'pos_weight' expected dtype {logit.dtype}, got "
                                f"{pos_weight.dtype}")
            pos_weight = _F.cast(pos_weight, logit.dtype)
        _check_broadcasts(fn, "pos_weight", pos_weight, logit.shape, "the shape of 'logit'")
        pos_weight = _F.expand(pos_weight, logit.shape)
    loss = _F.sigmoid_cross_entropy_with_logits(logit, label, pos_weight)
    return reduce_loss(fn, _scaled_by(fn, loss, weight, logit), reduction)


def cross_entropy(input: Tensor, label: Tensor, weight=None, ignore_index: int = -100,
                  reduction: str = "mean", soft_label: bool = False, axis: int = -1,
                  use_softmax: bool = True, label_smoothing: float = 0.0, name=None) -> Tensor:
    """Softmax cross entropy (Paddle's ``paddle.nn.functional.cross_entropy``).

    ``input``: logits (or probabilities with ``use_softmax=False``), classes along
    ``axis``. ``label``: integer class indices shaped like input without the class
    axis, or with it of size 1 ([N] or [N, 1]); with ``soft_label=True``, a float
    distribution shaped like input. ``weight``: per-class weights [C]. Samples
    whose label is ``ignore_index`` contribute nothing, and the mean divides by
    the total weight of the samples that count (0 when none does); with soft
    labels a sample's weight is ``sum_k label_k * weight_k``, as in Paddle, no
    sample is ignored (a positive ``ignore_index`` raises, as Paddle's does), and
    the gradient is ``softmax - label`` per sample (Paddle's kernel: the exact
    derivative when each label sums to 1).

    ``label_smoothing`` = eps in [0, 1] replaces the target by
    ``(1 - eps) * target + eps / C`` (a hard label becomes its smoothed one-hot
    vector; ignored samples still count for nothing). With smoothing, a float
    label shaped like input (a one-hot, say) is taken as soft, as in Paddle.

    It runs one fused kernel: a logit of -inf (a masked class) has probability 0
    and adds nothing, to the loss or the gradient. The common case (hard labels,
    classes last, no weight, no smoothing, use_softmax, reduction 'mean' or
    'sum') is a single op whose forward also reduces and whose backward writes
    (softmax - onehot) * g / count into one buffer. Labels out of range raise on
    the CPU; on a GPU they are not checked (that would wait for the device):
    there they are clipped into range and, on that fast path, make the loss
    NaN (which anomaly mode reports).

    >>> logits = eager.to_tensor([[2.0, 0.5, float("-inf")]])
    >>> float(eager.nn.functional.cross_entropy(logits, eager.to_tensor([0])))
    0.2014...
    """
    fn = "cross_entropy"
    if (weight is None and soft_label is False and use_softmax is True and (reduction == "mean" or reduction == "sum")
            and type(ignore_index) is int and type(axis) is int and type(label_smoothing) in (float, int)
            and label_smoothing == 0 and isinstance(input, Tensor) and isinstance(label, Tensor)):
        fused = _fused_cross_entropy(fn, input, label, ignore_index, reduction, axis)
        if fused is not None:
            return fused
    check_reduction(fn, reduction)
    check_float(fn, "input", input)
    check_tensor(fn, "label", label)
    if input.ndim < 1:
        raise ValueError(f"{fn}: argument 'input' expected at least 1 dimension, got shape {input.shape}")
    _check_int(fn, "ignore_index", ignore_index)
    for flag, value in (("soft_label", soft_label), ("use_softmax", use_softmax)):
        if not isinstance(value, bool):
            raise TypeError(f"{fn}: argument '{flag}' expected a bool, got {value!r}")
    if (isinstance(label_smoothing, bool) or not isinstance(label_smoothing, numbers.Real)
            or not 0.0 <= label_smoothing <= 1.0):
        raise ValueError(f"{fn}: argument 'label_smoothing' expected a float in [0, 1], got {label_smoothing!r}")
    if soft_label and ignore_index > 0:  # (as Paddle: soft labels have no class to ignore)
        raise ValueError(f"{fn}: argument 'ignore_index' expected -100 (or another negative value) with "
                         f"soft_label=True, got {ignore_index}")
    axis = check_axis(fn, input, axis)
    classes = input.shape[axis]
    if not classes:  # (as Paddle's kernel: a softmax over no class is undefined)
        raise ValueError(f"{fn}: argument 'input' expected at least one class on axis {axis}, got shape "
                         f"{input.shape}")
    kept = input.shape[:axis] + [1] + input.shape[axis + 1:]
    if weight is not None:
        check_tensor(fn, "weight", weight)
        if weight.shape != [classes]:
            raise ValueError(f"{fn}: argument 'weight' expected shape [{classes}], got {weight.shape}")
        weight = weight.astype(input.dtype) if weight.dtype != input.dtype else weight
        weight = reshape_exactly(weight, [classes if d == axis else 1 for d in range(input.ndim)])

    if label_smoothing > 0 and soft_label and label.dtype in INTEGER_TYPES and label.ndim == input.ndim - 1:
        # (as Paddle: with smoothing, soft_label does not matter; class indices are one-hot first)
        soft_label = False
    if (label_smoothing > 0 and not soft_label and label.dtype in FLOATING_TYPES and label.ndim == input.ndim
            and label.shape[axis] != 1):
        # (as Paddle: with smoothing, a float label shaped like input is a distribution, a one-hot
        # say, smoothed and cast to input's dtype; its docstring example passes a float32 one-hot)
        soft_label = True
        label = label.astype(input.dtype) if label.dtype != input.dtype else label
    if soft_label:
        check_same_shape(fn, "input", input, "label", label)
        if label_smoothing > 0:
            label = _F.scale(label, 1.0 - label_smoothing, label_smoothing / classes, True)
        loss = _F.cross_entropy_with_softmax(input, label, True, use_softmax, True, ignore_index, axis)
        if weight is None:
            return reduce_loss(fn, loss, reduction)
        sample_weight = _F.sum(_F.multiply(label, weight), [axis], None, True)
        return _weighted(fn, _F.multiply(loss, sample_weight), sample_weight, reduction, kept)

    label_kept = _hard_label(fn, input, label, axis, kept)
    label_kept = as_int64(label_kept)  # an ignore_index (-100) that, say, uint8 cannot hold
    valid_mask = _F.not_equal(label_kept, _F.full_like(label_kept, ignore_index, None))
    valid = _F.cast(valid_mask, input.dtype)
    if label_smoothing > 0:
        safe = _F.where(valid_mask, label_kept, _F.full_like(label_kept, 0, None))
        hot = _renamed(fn, "one_hot", lambda: _F.one_hot(_F.squeeze(safe, [axis]), classes))
        hot = _F.cast(_F.moveaxis(hot, -1, axis), input.dtype)
        smooth = _F.multiply(_F.scale(hot, 1.0 - label_smoothing, label_smoothing / classes, True), valid)
        loss = _F.cross_entropy_with_softmax(input, smooth, True, use_softmax, True, ignore_index, axis)
        if weight is None:
            # times the mask: the soft-label kernel's gradient is softmax - target, which an
            # ignored sample's all-zero target would leave at softmax
            return _weighted(fn, _F.multiply(loss, valid), valid, reduction, label.shape)
        sample_weight = _F.sum(_F.multiply(smooth, weight), [axis], None, True)
        return _weighted(fn, _F.multiply(loss, sample_weight), sample_weight, reduction, label.shape)

    loss = _renamed(fn, "cross_entropy_with_softmax", lambda: _F.cross_entropy_with_softmax(
        input, label_kept, False, use_softmax, True, ignore_index, axis))
    if weight is None:
        sample_weight = valid
    else:
        safe = _F.where(valid_mask, label_kept, _F.full_like(label_kept, 0, None))
        one_hot = _F.cast(_F.one_hot(_F.squeeze(safe, [axis]), classes), input.dtype)
        per_class = _F.reshape(weight, [classes])
        sample_weight = _F.multiply(reshape_exactly(_F.matmul(one_hot, per_class, False, False), kept), valid)
        loss = _F.multiply(loss, sample_weight)
    return _weighted(fn, loss, sample_weight, reduction, label.shape)


def _fused_cross_entropy(fn: str, input: Tensor, label: Tensor, ignore_index: int, reduction: str, axis: int):
    """The common case as one op (fused_softmax_cross_entropy), or None when the
    call is not that case (and the general path checks it and does the rest).
    The caller has checked the Python arguments' types and values. Dense
    tensors' shapes and dtypes are read from their arrays, in line."""
    a, b = input.impl, label.impl
    if type(a) is DenseTensor and type(b) is DenseTensor:
        a, b = a.array, b.array
        if a.dtype not in FLOAT_ARRAY_DTYPES or b.dtype not in _INTEGER_ARRAY_DTYPES:
            return None
        dims, label_dims = a.shape, b.shape
    else:
        if input.dtype not in FLOATING_TYPES or label.dtype not in INTEGER_TYPES:
            return None
        dims, label_dims = a.dims, b.dims
    ndim = len(dims)
    if not ndim or (axis != -1 and axis != ndim - 1):
        return None
    if label_dims != dims[:-1] and label_dims != dims[:-1] + (1,):
        return None
    try:  # (what _renamed does, without its frame and closure on the way)
        return _F.fused_softmax_cross_entropy(input, label, ignore_index, reduction)
    except PhiError as error:
        raise _renamed_error(fn, "fused_softmax_cross_entropy", error) from None


def softmax_with_cross_entropy(logits: Tensor, label: Tensor, soft_label: bool = False, ignore_index: int = -100,
                               numeric_stable_mode: bool = True, return_softmax: bool = False, axis: int = -1):
    """Softmax cross entropy per sample, unreduced (Paddle's older loss API).

    ``logits``: unscaled scores, classes along ``axis``. ``label``: integer class
    indices shaped like logits with the class axis of size 1 (or without it), or
    with ``soft_label=True`` a float distribution shaped like logits. The loss
    has logits' shape with the class axis of size 1; a sample whose label is
    ``ignore_index`` has loss 0 and no gradient. With ``return_softmax=True``
    the result is ``(loss, softmax(logits))``. ``numeric_stable_mode`` is
    accepted for compatibility: the kernel is stable for any magnitude.

    >>> logits = eager.to_tensor([[2.0, 0.5, 1.0]])
    >>> loss, prob = eager.nn.functional.softmax_with_cross_entropy(logits, eager.to_tensor([[0]]), return_softmax=True)
    >>> loss.shape, round(float(loss), 4), prob.numpy().round(3)
    ([1, 1], 0.4644, array([[0.629, 0.14 , 0.231]], dtype=float32))
    """
    fn = "softmax_with_cross_entropy"
    check_float(fn, "logits", logits)
    check_tensor(fn, "label", label)
    for flag, value in (("soft_label", soft_label), ("numeric_stable_mode", numeric_stable_mode),
                        ("return_softmax", return_softmax)):
        if not isinstance(value, bool):
            raise TypeError(f"{fn}: argument '{flag}' expected a bool, got {value!r}")
    ignore_index = _check_int(fn, "ignore_index", ignore_index)
    if logits.ndim < 1:
        raise ValueError(f"{fn}: argument 'logits' expected at least 1 dimension, got shape {logits.shape}")
    axis = check_axis(fn, logits, axis)
    kept = logits.shape[:axis] + [1] + logits.shape[axis + 1:]
    if soft_label:
        check_same_shape(fn, "logits", logits, "label", label)
    else:
        label = _hard_label(fn, logits, label, axis, kept)
    loss = _renamed(fn, "cross_entropy_with_softmax", lambda: _F.cross_entropy_with_softmax(
        logits, label, soft_label, True, numeric_stable_mode, ignore_index, axis))
    if return_softmax:
        return loss, _F.softmax(logits, axis)
    return loss


def _check_int(fn: str, arg: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{fn}: argument '{arg}' expected an int, got {value!r}")
    return int(value)


def _renamed(fn: str, op: str, call):
    """call(), with a phi error of op (a label out of range) renamed to the function the user called."""
    try:
        return call()
    except PhiError as error:
        raise _renamed_error(fn, op, error) from None


def _renamed_error(fn: str, op: str, error: PhiError) -> PhiError:
    """``error`` of phi op ``op`` as the same error of the function ``fn`` the user called
    (and the op's argument names as the function's, where they differ)."""
    message = str(error).replace(f"{op}:", f"{fn}:", 1)
    for op_arg, arg in _ARGUMENT_NAMES.get(fn, ()):
        message = message.replace(f"argument '{op_arg}'", f"argument '{arg}'")
    return type(error)(message)


# the functions whose arguments the ops they call name otherwise: (the op's, the function's)
_ARGUMENT_NAMES = {"cross_entropy": (("logits", "input"),)}


def _hard_label(fn: str, input: Tensor, label: Tensor, axis: int, kept) -> Tensor:
    """Integer class indices, checked, reshaped to input's shape with the class axis of size 1."""
    check_integer(fn, "label", label, "an integer Tensor of class indices (or soft_label=True)")
    dropped = input.shape[:axis] + input.shape[axis + 1:]
    if label.shape == dropped:
        return _F.unsqueeze(label, [axis])
    if label.shape == kept or (label.shape == dropped + [1] and axis == input.ndim - 1):
        return reshape_exactly(label, kept)
    raise ValueError(
        f"{fn}: argument 'label' expected shape {dropped} or {dropped + [1]} for input of "
        f"shape {input.shape} (classes on axis {axis}), got {label.shape}")


def _weighted(fn: str, loss: Tensor, sample_weight: Tensor, reduction: str, shape) -> Tensor:
    """The reduction of a per-sample loss whose mean divides by the weights' sum."""
    if reduction == "none":
        return reshape_exactly(loss, shape)
    total = _F.sum(loss)
    if reduction == "sum":
        return total
    denominator = _F.sum(sample_weight)
    # No sample counts: the total is 0 too, and Paddle returns 0 rather than 0/0.
    tiny = _F.full_like(denominator, float(float_info(denominator.dtype).tiny), None)
    return _F.divide(total, _F.maximum(denominator, tiny))


# -- helpers of the losses below -------------------------------------------------

def _softplus(x: Tensor) -> Tensor:
    """log(1 + exp(x)) for any magnitude: the fused sigmoid cross entropy with label 0
    ((1 - 0) x + log(1 + exp(-x))), so its gradient sigmoid(x) is right at 0 too."""
    return _F.sigmoid_cross_entropy_with_logits(x, _F.zeros_like(x), None, False, -100)


def _like_input(fn: str, arg: str, input: Tensor, other) -> Tensor:
    """other shaped like input; an integer or other float dtype is cast to input's."""
    check_tensor(fn, arg, other)
    if other.shape != input.shape:
        raise ValueError(f"{fn}: argument '{arg}' expected the shape of 'input' {input.shape}, got {other.shape}")
    return other if other.dtype == input.dtype else _F.cast(other, input.dtype)


def _scaled_by(fn: str, loss: Tensor, weight, reference: Tensor) -> Tensor:
    """loss * weight, where weight broadcasts to the loss's shape; another float
    dtype promotes (as Paddle's multiply: float32 with float64 gives float64)."""
    if weight is None:
        return loss
    check_tensor(fn, "weight", weight)
    if dtypes_differ(weight, reference) and weight.dtype not in FLOATING_TYPES:
        raise TypeError(f"{fn}: argument 'weight' expected dtype {reference.dtype}, got {weight.dtype}")
    _check_broadcasts(fn, "weight", weight, loss.shape, "the loss's shape")
    return _F.multiply(loss, weight)


def _check_broadcasts(fn: str, name: str, tensor: Tensor, shape, what: str) -> None:
    """Raise unless argument ``name`` broadcasts to ``shape`` (``what`` says whose)."""
    try:
        broadcast = list(np.broadcast_shapes(tuple(tensor.shape), tuple(shape)))
    except ValueError:
        broadcast = None
    if broadcast != list(shape):
        raise ValueError(f"{fn}: argument '{name}' of shape {tensor.shape} expected to broadcast to {what} "
                         f"{list(shape)}")


def _zeros(x: Tensor) -> Tensor:
    return _F.zeros_like(x)


# -- the losses -------------------------------------------------------------------

def nll_loss(input: Tensor, label: Tensor, weight=None, ignore_index: int = -100,
             reduction: str = "mean", name=None) -> Tensor:
    """Negative log likelihood: ``-weight[y] * input[n, y, d1, ...]`` for each label y.

    ``input``: log-probabilities [N, C] or [N, C, d1, ...]; ``label``: integer
    class indices [N] (or [N, 1], as Paddle) or [N, d1, ...]; ``weight``: per-class weights [C]. Labels
    equal to ``ignore_index`` count for nothing, and the mean divides by the sum
    of the weights of the labels that count (0 when none does). A fused kernel.

    >>> log_p = eager.nn.functional.log_softmax(eager.to_tensor([[1.0, 2.0], [0.5, 0.0]]))
    >>> round(float(eager.nn.functional.nll_loss(log_p, eager.to_tensor([1, 0]))), 4)
    0.3937
    """
    fn = "nll_loss"
    check_reduction(fn, reduction)
    check_float(fn, "input", input)
    check_tensor(fn, "label", label)
    ignore_index = _check_int(fn, "ignore_index", ignore_index)
    if input.ndim < 2:
        raise ValueError(f"{fn}: argument 'input' expected at least 2 dimensions [N, C, ...], got shape "
                         f"{input.shape}")
    check_integer(fn, "label", label, "an integer Tensor of class indices")
    expected = input.shape[:1] + input.shape[2:]
    if input.ndim == 2 and label.shape == expected + [1]:
        label = reshape_exactly(label, expected)  # [N, 1] is [N] for [N, C] input, as Paddle reads it
    if label.shape != expected:
        raise ValueError(f"{fn}: argument 'label' expected shape {expected} for input of shape {input.shape} "
                         f"(classes on axis 1), got {label.shape}")
    classes = input.shape[1]
    if weight is not None:
        check_tensor(fn, "weight", weight)
        if weight.shape != [classes] or dtypes_differ(weight, input):
            raise ValueError(f"{fn}: argument 'weight' expected {input.dtype}[{classes}] (one per class), got "
                             f"{weight.dtype}{weight.shape}")
    loss = _renamed(fn, "nll_loss", lambda: _F.nll_loss(input, label, weight, ignore_index))
    if reduction != "mean":
        return reduce_loss(fn, loss, reduction)
    valid_mask = _F.not_equal(label, _F.full_like(label, ignore_index, None))
    sample_weight = _F.cast(valid_mask, input.dtype)
    if weight is not None and classes:  # (with no class every label is ignored: the op checked)
        safe = _F.where(valid_mask, label, _F.full_like(label, 0, None))
        picked = reshape_exactly(_F.gather(weight, _F.reshape(safe, [-1]), 0), label.shape)
        sample_weight = _F.multiply(sample_weight, picked)
    return _weighted(fn, loss, sample_weight, reduction, label.shape)


def binary_cross_entropy(input: Tensor, label: Tensor, weight=None, reduction: str = "mean",
                         name=None) -> Tensor:
    """Binary cross entropy on probabilities:
    ``-weight * (z * log(x) + (1 - z) * log(1 - x))``.

    ``input`` must lie in [0, 1] (checked on the CPU); each log is clamped below
    at -100 and the gradient's denominator x (1 - x) at 1e-12, as Paddle does, so
    0 and 1 give finite values. ``weight`` broadcasts to input's shape.
    The label gets no gradient.

    >>> p = eager.to_tensor([0.5, 0.6, 0.7])
    >>> round(float(eager.nn.functional.binary_cross_entropy(p, eager.to_tensor([1.0, 0.0, 1.0]))), 4)
    0.6554
    """
    fn = "binary_cross_entropy"
    check_reduction(fn, reduction)
    check_float(fn, "input", input)
    check_tensor(fn, "label", label)
    check_same_shape(fn, "input", input, "label", label)
    loss = _renamed(fn, "bce_loss", lambda: _F.bce_loss(input, label))
    return reduce_loss(fn, _scaled_by(fn, loss, weight, input), reduction)


def log_loss(input: Tensor, label: Tensor, epsilon: float = 1e-4, name=None) -> Tensor:
    """Negative log likelihood of probabilities, unreduced:
    ``-label * log(input + epsilon) - (1 - label) * log(1 - input + epsilon)``.
    ``input`` and ``label`` share shape (Paddle's [N, 1]) and dtype.

    >>> p = eager.to_tensor([[0.9], [0.2]])
    >>> eager.nn.functional.log_loss(p, eager.to_tensor([[1.0], [0.0]])).numpy().round(4)
    array([[0.1052],
           [0.223 ]], dtype=float32)
    """
    fn = "log_loss"
    check_float(fn, "input", input)
    check_tensor(fn, "label", label)
    check_same_shape(fn, "input", input, "label", label)
    epsilon = check_number(fn, "epsilon", epsilon)
    hit = _F.multiply(label, _F.log(_F.scale(input, 1.0, epsilon, True)))
    miss = _F.multiply(_F.scale(label, -1.0, 1.0, True), _F.log(_F.scale(input, -1.0, 1.0 + epsilon, True)))
    return _F.neg(_F.add(hit, miss))


def smooth_l1_loss(input: Tensor, label: Tensor, reduction: str = "mean", delta: float = 1.0,
                   name=None) -> Tensor:
    """Paddle's smooth L1 loss, which is the Huber loss: with d = input - label,
    ``0.5 * d**2`` where ``|d| < delta``, else ``delta * (|d| - 0.5 * delta)``.

    (PyTorch's smooth_l1_loss divides by its beta instead; this equals its huber_loss.)

    >>> x, y = eager.to_tensor([0.5, 3.0]), eager.to_tensor([0.0, 0.0])
    >>> eager.nn.functional.smooth_l1_loss(x, y, reduction="none").numpy()
    array([0.125, 2.5  ], dtype=float32)
    """
    fn = "smooth_l1_loss"
    check_reduction(fn, reduction)
    check_float(fn, "input", input)
    check_tensor(fn, "label", label)
    check_same_shape(fn, "input", input, "label", label)
    delta = check_number(fn, "delta", delta)
    diff = _F.subtract(input, label)
    size = _F.multiply(diff, _F.sign(diff))   # |d| with gradient 0 at 0
    quadratic = _F.scale(_F.multiply(diff, diff), 0.5, 0.0, True)
    linear = _F.scale(size, delta, -0.5 * delta * delta, True)
    inside = _F.less_than(size, _F.full_like(size, delta, None))
    return reduce_loss(fn, _F.where(inside, quadratic, linear), reduction)


def kl_div(input: Tensor, label: Tensor, reduction: str = "mean", log_target: bool = False,
           name=None) -> Tensor:
    """Kullback-Leibler divergence loss, ``input`` being log-probabilities:
    ``label * (log(label) - input)`` (0 where label <= 0), or with
    ``log_target=True`` ``exp(label) * (label - input)``.

    ``reduction``: 'mean' (over all elements), 'batchmean' (the sum divided by
    the batch size ``input.shape[0]``: NaN for an empty batch, as Paddle; the sum
    for a 0-d input), 'sum' or 'none'.

    >>> x = eager.to_tensor([[-1.0, -0.5]])
    >>> round(float(eager.nn.functional.kl_div(x, eager.to_tensor([[0.3, 0.7]]), "batchmean")), 4)
    0.0391
    """
    fn = "kl_div"
    if not isinstance(reduction, str) or reduction not in ("mean", "batchmean", "sum", "none"):
        raise ValueError(f"{fn}: argument 'reduction' expected one of 'mean', 'batchmean', 'sum', 'none', "
                         f"got {reduction!r}")
    check_float(fn, "input", input)
    check_tensor(fn, "label", label)
    input, label = same_shape_promoted(fn, "input", input, "label", label)
    if not isinstance(log_target, bool):
        raise TypeError(f"{fn}: argument 'log_target' expected a bool, got {log_target!r}")
    if log_target:
        loss = _F.multiply(_F.exp(label), _F.subtract(label, input))
    else:
        positive = _F.greater_than(label, _zeros(label))
        safe = _F.where(positive, label, _F.ones_like(label))   # no log(0) even in the unused branch
        loss = _F.where(positive, _F.multiply(label, _F.subtract(_F.log(safe), input)), _zeros(input))
    if reduction == "batchmean":
        if not input.ndim:  # no batch axis: the sum, as Paddle
            return _F.sum(loss)
        if not input.shape[0]:  # 0 / 0, as Paddle (and as 'mean' of an empty loss)
            return _F.mean(loss)
        return _F.scale(_F.sum(loss), 1.0 / input.shape[0], 0.0, True)
    return reduce_loss(fn, loss, reduction)


def margin_ranking_loss(input: Tensor, other: Tensor, label: Tensor, margin: float = 0.0,
                        reduction: str = "mean", name=None) -> Tensor:
    """``max(0, -label * (input - other) + margin)``: label 1 wants input ranked
    above other, -1 below. The three broadcast together, as in Paddle (with a
    warning where their shapes differ); float32 with float64 promotes.

    >>> a, b = eager.to_tensor([1.0, 2.0]), eager.to_tensor([2.0, 1.0])
    >>> float(eager.nn.functional.margin_ranking_loss(a, b, eager.to_tensor([1.0, 1.0]), 0.5))
    0.75
    """
    fn = "margin_ranking_loss"
    check_reduction(fn, reduction)
    check_float(fn, "input", input)
    check_tensor(fn, "other", other)
    check_tensor(fn, "label", label)
    if not input.shape == other.shape == label.shape:  # Paddle's tests pass a [N] label for [N, N] inputs
        _broadcast_with_warning(fn, ("input", input), ("other", other), ("label", label))
    input, other, label = promote_floats(fn, "input", input, ("other", other), ("label", label))
    margin = check_number(fn, "margin", margin)
    out = _F.multiply(_F.neg(label), _F.subtract(input, other))
    return reduce_loss(fn, _F.relu(_F.scale(out, 1.0, margin, True)), reduction)


def hinge_embedding_loss(input: Tensor, label: Tensor, margin: float = 1.0, reduction: str = "mean",
                         name=None) -> Tensor:
    """``input`` where label is 1, ``max(0, margin - input)`` where label is -1
    (0 for any other label), as Paddle.

    >>> x = eager.to_tensor([0.3, 0.4])
    >>> eager.nn.functional.hinge_embedding_loss(x, eager.to_tensor([1.0, -1.0]), reduction="none").numpy()
    array([0.3, 0.6], dtype=float32)
    """
    fn = "hinge_embedding_loss"
    check_reduction(fn, reduction)
    check_float(fn, "input", input)
    label = _like_input(fn, "label", input, label)
    margin = check_number(fn, "margin", margin)
    zeros = _zeros(input)
    positive = _F.where(_F.equal(label, _F.ones_like(label)), input, zeros)
    hinge = _F.relu(_F.scale(input, -1.0, margin, True))
    negative = _F.where(_F.equal(label, _F.full_like(label, -1, None)), hinge, zeros)
    return reduce_loss(fn, _F.add(positive, negative), reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, label: Tensor, margin: float = 0,
                          reduction: str = "mean", name=None) -> Tensor:
    """With cos the cosine similarity of input1 and input2 along the last axis:
    ``1 - cos`` where label is 1, ``max(0, cos - margin)`` where label is -1.

    ``input1``, ``input2``: [N, M] or [M]; ``label``: [N] (or [1]) of 1 and -1.
    The squared norms get 1e-11 added, as Paddle does, so a zero vector gives no NaN.

    >>> a = eager.to_tensor([[1.0, 0.0], [1.0, 1.0]])
    >>> b = eager.to_tensor([[1.0, 0.0], [-1.0, -1.0]])
    >>> eager.nn.functional.cosine_embedding_loss(a, b, eager.to_tensor([1, -1]), reduction="none").numpy()
    array([0., 0.], dtype=float32)
    """
    fn = "cosine_embedding_loss"
    check_reduction(fn, reduction)
    check_tensor(fn, "input1", input1)
    check_tensor(fn, "input2", input2)
    check_tensor(fn, "label", label)
    # Paddle checks these dtypes in dygraph too, and its check raises ValueError
    if input1.dtype not in (DataType.FLOAT32, DataType.FLOAT64):
        raise ValueError(f"{fn}: argument 'input1' expected a float32 or float64 Tensor, got {input1.dtype}")
    if label.dtype not in (DataType.INT32, DataType.INT64, DataType.FLOAT32, DataType.FLOAT64):
        raise ValueError(f"{fn}: argument 'label' expected an int32, int64, float32 or float64 Tensor, got "
                         f"{label.dtype}")
    check_float(fn, "input2", input2)   # float32 with float64 promotes, as in Paddle's multiply
    if input1.shape != input2.shape:
        raise ValueError(f"{fn}: argument 'input2' expected the shape of 'input1' {input1.shape}, got {input2.shape}")
    margin = check_number(fn, "margin", margin)
    if input1.ndim not in (1, 2):
        raise ValueError(f"{fn}: argument 'input1' expected shape [N, M] or [M], got {input1.shape}")
    rows = input1.shape[0] if input1.ndim == 2 else 1
    if label.ndim > 1 or (label.ndim == 1 and label.shape[0] != rows):
        raise ValueError(f"{fn}: argument 'label' expected shape [{rows}] (a 1-d label), got {label.shape}")
    product = _F.sum(_F.multiply(input1, input2), [-1])
    if label.dtype != product.dtype:
        label = _F.cast(label, product.dtype)
    square1 = _F.scale(_F.sum(_F.multiply(input1, input1), [-1]), 1.0, 1e-11, True)
    square2 = _F.scale(_F.sum(_F.multiply(input2, input2), [-1]), 1.0, 1e-11, True)
    cos = _F.divide(product, _F.sqrt(_F.multiply(square1, square2)))
    if input1.ndim == 1 and label.ndim == 1:
        cos = _F.reshape(cos, [1])
    zeros = _zeros(cos)
    same = _F.where(_F.equal(label, _F.ones_like(label)), _F.scale(cos, -1.0, 1.0, True), zeros)
    apart = _F.where(_F.equal(label, _F.full_like(label, -1, None)),
                     _F.relu(_F.scale(cos, 1.0, -margin, True)), zeros)
    return reduce_loss(fn, _F.add(same, apart), reduction)


def _triplet_operands(fn: str, input: Tensor, positive: Tensor, negative: Tensor) -> list:
    """The three tensors of a triplet loss: one shape, floating, float32 with float64
    promoted (Paddle composes both triplet losses of elementwise ops)."""
    check_float(fn, "input", input)
    check_tensor(fn, "positive", positive)
    check_tensor(fn, "negative", negative)
    check_same_shape(fn, "input", input, "positive", positive, dtypes=False)
    check_same_shape(fn, "input", input, "negative", negative, dtypes=False)
    return promote_floats(fn, "input", input, ("positive", positive), ("negative", negative))


def triplet_margin_loss(input: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, epsilon: float = 1e-6, swap: bool = False,
                        reduction: str = "mean", name=None) -> Tensor:
    """``max(d(input, positive) - d(input, negative) + margin, 0)`` with
    ``d(x, y) = ||x - y + epsilon||_p`` along the last axis; ``swap`` uses
    ``min(d(input, negative), d(positive, negative))`` as the negative distance.

    >>> a = eager.to_tensor([[0.0, 0.0]])
    >>> loss = eager.nn.functional.triplet_margin_loss(a, a + 1.0, a + 3.0, epsilon=0.0)
    >>> round(float(loss), 4)
    0.0
    """
    fn = "triplet_margin_loss"
    check_reduction(fn, reduction)
    input, positive, negative = _triplet_operands(fn, input, positive, negative)
    margin, p, epsilon = (check_number(fn, a, v) for a, v in (("margin", margin), ("p", p), ("epsilon", epsilon)))
    if margin < 0:  # (as Paddle)
        raise ValueError(f"{fn}: argument 'margin' expected a number >= 0, got {margin}")
    if input.ndim < 1:
        raise ValueError(f"{fn}: argument 'input' expected at least 1 dimension, got shape {input.shape}")
    if not isinstance(swap, bool):
        raise TypeError(f"{fn}: argument 'swap' expected a bool, got {swap!r}")

    def distance(x, y):
        return _F.norm(_F.scale(_F.subtract(x, y), 1.0, epsilon, True), p, [-1], False)

    near, far = distance(input, positive), distance(input, negative)
    if swap:
        far = _F.minimum(far, distance(positive, negative))
    return reduce_loss(fn, _F.relu(_F.scale(_F.subtract(near, far), 1.0, margin, True)), reduction)


def triplet_margin_with_distance_loss(input: Tensor, positive: Tensor, negative: Tensor, distance_function=None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean",
                                      name=None) -> Tensor:
    """``max(d(input, positive) - d(input, negative) + margin, 0)`` per sample, with
    d = ``distance_function`` (a callable of two tensors returning one distance per
    sample; default :func:`pairwise_distance`, the 2-norm of x - y + 1e-6 along the
    last axis). ``swap`` uses ``min(d(input, negative), d(positive, negative))``
    as the negative distance. ``margin`` must be >= 0.

    >>> a = eager.to_tensor([[0.0, 0.0]])
    >>> l1 = lambda x, y: (x - y).abs().sum(-1)
    >>> float(eager.nn.functional.triplet_margin_with_distance_loss(a, a + 1.0, a + 0.5, distance_function=l1))
    2.0
    """
    fn = "triplet_margin_with_distance_loss"
    check_reduction(fn, reduction)
    input, positive, negative = _triplet_operands(fn, input, positive, negative)
    margin = check_number(fn, "margin", margin)
    if margin < 0:
        raise ValueError(f"{fn}: argument 'margin' expected a number >= 0, got {margin}")
    if not isinstance(swap, bool):
        raise TypeError(f"{fn}: argument 'swap' expected a bool, got {swap!r}")
    if distance_function is None:
        if input.ndim < 1:
            raise ValueError(f"{fn}: argument 'input' expected at least 1 dimension, got shape {input.shape}")
        distance_function = pairwise_distance
    elif not callable(distance_function):
        raise TypeError(f"{fn}: argument 'distance_function' expected a callable or None, got "
                        f"{type(distance_function).__name__}")

    def distance(x, y, arg):
        value = distance_function(x, y)
        if not isinstance(value, Tensor):
            raise TypeError(f"{fn}: argument 'distance_function' expected to return a Tensor, got "
                            f"{type(value).__name__} for ({arg})")
        return value

    near, far = distance(input, positive, "input, positive"), distance(input, negative, "input, negative")
    if swap:
        far = _F.minimum(far, distance(positive, negative, "positive, negative"))
    if near.shape != far.shape:
        raise ValueError(f"{fn}: argument 'distance_function' returned distances of shapes {near.shape} and "
                         f"{far.shape}; expected one shape")
    return reduce_loss(fn, _F.relu(_F.scale(_F.subtract(near, far), 1.0, margin, True)), reduction)


def soft_margin_loss(input: Tensor, label: Tensor, reduction: str = "mean", name=None) -> Tensor:
    """``log(1 + exp(-label * input))``, stable for any magnitude; label is 1 or -1
    (cast to input's dtype).

    >>> x = eager.to_tensor([0.0, 100.0])
    >>> eager.nn.functional.soft_margin_loss(x, eager.to_tensor([1.0, -1.0]), reduction="none").numpy()
    array([  0.6931472, 100.       ], dtype=float32)
    """
    fn = "soft_margin_loss"
    check_reduction(fn, reduction)
    check_float(fn, "input", input)
    label = _like_input(fn, "label", input, label)
    return reduce_loss(fn, _softplus(_F.neg(_F.multiply(label, input))), reduction)


def multi_label_soft_margin_loss(input: Tensor, label: Tensor, weight=None, reduction: str = "mean",
                                 name=None) -> Tensor:
    """Per sample, the mean over the C classes of
    ``-weight * (z * log(sigmoid(x)) + (1 - z) * log(sigmoid(-x)))``: input and
    label are [N, C] (label 0/1, cast to input's dtype), the result [N] before
    the reduction. Computed as the fused sigmoid cross entropy, stable for any x.

    >>> x = eager.to_tensor([[0.0, 0.0]])
    >>> round(float(eager.nn.functional.multi_label_soft_margin_loss(x, eager.to_tensor([[1.0, 0.0]]))), 4)
    0.6931
    """
    fn = "multi_label_soft_margin_loss"
    check_reduction(fn, reduction)
    check_float(fn, "input", input)
    label = _like_input(fn, "label", input, label)
    if input.ndim < 1:
        raise ValueError(f"{fn}: argument 'input' expected shape [N, C], got {input.shape}")
    loss = _F.sigmoid_cross_entropy_with_logits(input, label, None, False, -100)
    loss = _F.mean(_scaled_by(fn, loss, weight, input), [-1])
    return reduce_loss(fn, loss, reduction)


def multi_margin_loss(input: Tensor, label: Tensor, p: int = 1, margin: float = 1.0, weight=None,
                      reduction: str = "mean", name=None) -> Tensor:
    """Multi-class hinge loss: per sample i of input [N, C] with class y = label[i],
    ``sum_{j != y} weight[y] * max(0, margin - x[i, y] + x[i, j]) ** p / C``.
    ``label``: integer [N]; ``weight``: per-class [C] (default all 1); ``p``: a positive number.
    Labels out of range raise on the CPU (on a GPU in anomaly mode only).

    >>> x = eager.to_tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> round(float(eager.nn.functional.multi_margin_loss(x, eager.to_tensor([3]))), 4)
    0.325
    """
    fn = "multi_margin_loss"
    check_reduction(fn, reduction)
    check_float(fn, "input", input)
    check_tensor(fn, "label", label)
    p = check_number(fn, "p", p)   # any positive power, as Paddle's ** (PyTorch: 1 or 2)
    if not p > 0:
        raise ValueError(f"{fn}: argument 'p' expected a positive number, got {p!r}")
    margin = check_number(fn, "margin", margin)
    if input.ndim != 2:
        raise ValueError(f"{fn}: argument 'input' expected a 2-d tensor [N, C], got shape {input.shape}")
    check_integer(fn, "label", label, "an integer Tensor of class indices")
    rows, classes = input.shape
    if label.shape != [rows]:
        raise ValueError(f"{fn}: argument 'label' expected shape [{rows}] for input of shape {input.shape}, got "
                         f"{label.shape}")
    if weight is not None:
        check_tensor(fn, "weight", weight)
        # another float dtype promotes in the product below, as in Paddle's
        if weight.shape != [classes] or (dtypes_differ(weight, input) and weight.dtype not in FLOATING_TYPES):
            raise ValueError(f"{fn}: argument 'weight' expected {input.dtype}[{classes}] (one per class), got "
                             f"{weight.dtype}{weight.shape}")
    if rows and reads_values(label):
        low, high = value_range(label)
        if low < 0 or high >= classes:
            raise ValueError(f"{fn}: argument 'label' expected class indices in [0, {classes}), got values in "
                             f"[{low}, {high}]")
    column = _F.unsqueeze(as_int64(label), [1])   # [N, 1]
    target = _F.take_along_axis(input, column, 1)                                                   # x[i, y]
    hinge = _F.relu(_F.add(_F.scale(input, 1.0, margin, True), _F.neg(target)))
    if p == 2:
        hinge = _F.multiply(hinge, hinge)
    elif p != 1:
        hinge = _F.pow(hinge, p)
    others = _F.not_equal(_F.unsqueeze(_F.arange(0, classes, 1, DataType.INT64, input.place), [0]), column)
    hinge = _F.where(others, hinge, _zeros(hinge))
    if weight is not None:
        hinge = _F.multiply(hinge, _F.take_along_axis(_F.unsqueeze(weight, [0]), column, 1))
    loss = _F.scale(_F.sum(hinge, [1]), 1.0 / max(classes, 1), 0.0, True)
    return reduce_loss(fn, loss, reduction)


def sigmoid_focal_loss(logit: Tensor, label: Tensor, normalizer=None, alpha: float = 0.25,
                       gamma: float = 2.0, reduction: str = "sum", name=None) -> Tensor:
    """Focal loss on logits: ``alpha_t * (1 - p_t) ** gamma * bce_with_logits``, where
    p = sigmoid(logit), ``p_t = p z + (1 - p)(1 - z)`` and
    ``alpha_t = alpha z + (1 - alpha)(1 - z)``; divided by ``normalizer`` (a
    Tensor of shape [1] or []) if given. Note the default reduction is 'sum'.

    >>> x = eager.to_tensor([[0.0, 2.0]])
    >>> round(float(eager.nn.functional.sigmoid_focal_loss(x, eager.to_tensor([[1.0, 0.0]]))), 4)
    1.2809
    """
    fn = "sigmoid_focal_loss"
    check_reduction(fn, reduction)
    check_float(fn, "logit", logit)
    check_tensor(fn, "label", label)
    check_same_shape(fn, "logit", logit, "label", label)
    alpha, gamma = check_number(fn, "alpha", alpha), check_number(fn, "gamma", gamma)
    loss = _F.sigmoid_cross_entropy_with_logits(logit, label, None, False, -100)
    alpha_t = _F.scale(label, 2.0 * alpha - 1.0, 1.0 - alpha, True)
    loss = _F.multiply(alpha_t, loss)
    if gamma != 0.0:
        # 1 - p_t = sigmoid(-x) z + sigmoid(x) (1 - z), without the cancellation of 1 - p_t
        miss = _F.add(_F.multiply(_F.sigmoid(_F.neg(logit)), label),
                      _F.multiply(_F.sigmoid(logit), _F.scale(label, -1.0, 1.0, True)))
        loss = _F.multiply(_F.pow(miss, gamma), loss)
    if normalizer is not None:
        check_tensor(fn, "normalizer", normalizer)
        if normalizer.ndim > 1 or normalizer.numel() != 1:
            raise ValueError(f"{fn}: argument 'normalizer' expected shape [1] or [], got {normalizer.shape}")
        if dtypes_differ(normalizer, logit):
            raise TypeError(f"{fn}: argument 'normalizer' expected dtype {logit.dtype}, got {normalizer.dtype}")
        loss = _F.divide(loss, _F.reshape(normalizer, []))
    return reduce_loss(fn, loss, reduction)


def poisson_nll_loss(input: Tensor, label: Tensor, log_input: bool = True, full: bool = False,
                     epsilon: float = 1e-8, reduction: str = "mean", name=None) -> Tensor:
    """Poisson negative log likelihood: ``exp(input) - label * input`` with
    ``log_input=True``, else ``input - label * log(input + epsilon)``; ``full`` adds
    Stirling's term ``label log(label) - label + 0.5 log(2 pi label)`` where label > 1.

    >>> x = eager.to_tensor([0.0, 1.0])
    >>> round(float(eager.nn.functional.poisson_nll_loss(x, eager.to_tensor([1.0, 2.0]))), 4)
    0.8591
    """
    fn = "poisson_nll_loss"
    check_reduction(fn, reduction)
    check_float(fn, "input", input)
    label = _like_input(fn, "label", input, label)   # any dtype, cast to input's (as Paddle)
    epsilon = check_number(fn, "epsilon", epsilon)
    if epsilon <= 0:
        raise ValueError(f"{fn}: argument 'epsilon' expected a positive number, got {epsilon}")
    for flag, value in (("log_input", log_input), ("full", full)):
        if not isinstance(value, bool):
            raise TypeError(f"{fn}: argument '{flag}' expected a bool, got {value!r}")
    if log_input:
        loss = _F.subtract(_F.exp(input), _F.multiply(label, input))
    else:
        loss = _F.subtract(input, _F.multiply(label, _F.log(_F.scale(input, 1.0, epsilon, True))))
    if full:
        above = _F.greater_than(label, _F.ones_like(label))
        safe = _F.where(above, label, _F.ones_like(label))
        stirling = _F.add(_F.subtract(_F.multiply(safe, _F.log(safe)), safe),
                          _F.scale(_F.log(_F.scale(safe, 2.0 * np.pi, 0.0, True)), 0.5, 0.0, True))
        loss = _F.add(loss, _F.where(above, stirling, _zeros(stirling)))
    return reduce_loss(fn, loss, reduction)


def gaussian_nll_loss(input: Tensor, label: Tensor, variance: Tensor, full: bool = False, epsilon: float = 1e-6,
                      reduction: str = "mean", name=None) -> Tensor:
    """Gaussian negative log likelihood of ``label`` under N(input, variance):
    ``0.5 * (log(v) + (input - label) ** 2 / v)`` with v = max(variance, epsilon),
    plus ``0.5 * log(2 pi)`` when ``full``. ``label`` is shaped like input (or with
    a last dimension of 1); ``variance`` too, or shaped like input without its last
    dimension. Negative variances raise on the CPU (on a GPU in anomaly mode only:
    elsewhere the check would wait for the device). Below epsilon the variance
    gets no gradient.

    >>> x = eager.to_tensor([[1.0, 2.0]])
    >>> loss = eager.nn.functional.gaussian_nll_loss(x, eager.to_tensor([[2.0, 2.0]]), eager.to_tensor([[1.0, 4.0]]))
    >>> round(float(loss), 4)
    0.5966
    """
    fn = "gaussian_nll_loss"
    check_reduction(fn, reduction)
    for arg, value in (("input", input), ("label", label), ("variance", variance)):
        check_tensor(fn, arg, value)
        # Paddle checks these dtypes in dygraph too (a ValueError); float32 with float64 promotes
        if value.dtype not in (DataType.FLOAT32, DataType.FLOAT64):
            raise ValueError(f"{fn}: argument '{arg}' expected a float32 or float64 Tensor, got {value.dtype}")
    if not isinstance(full, bool):
        raise TypeError(f"{fn}: argument 'full' expected a bool, got {full!r}")
    epsilon = check_number(fn, "epsilon", epsilon)   # any number, as Paddle (the clamp's floor)
    shape = input.shape
    if label.shape != shape and not (input.ndim and label.shape == shape[:-1] + [1]):
        raise ValueError(f"{fn}: argument 'label' expected shape {shape} (or with a last dimension of 1), got "
                         f"{label.shape}")
    if input.ndim and variance.shape == shape[:-1] and variance.shape != shape:
        variance = _F.unsqueeze(variance, [-1])
    elif variance.shape != shape and not (input.ndim and variance.shape == shape[:-1] + [1]):
        raise ValueError(f"{fn}: argument 'variance' expected shape {shape}, that with a last dimension of 1, or "
                         f"{shape[:-1]}, got {variance.shape}")
    if variance.numel() and reads_values(variance) and float(_F.min(variance).numpy()) < 0:
        raise ValueError(f"{fn}: argument 'variance' expected non-negative values, got a minimum of "
                         f"{float(_F.min(variance).numpy())}")
    v = _F.maximum(variance, _F.full_like(variance, epsilon, None))
    diff = _F.subtract(input, label)
    loss = _F.scale(_F.add(_F.log(v), _F.divide(_F.multiply(diff, diff), v)), 0.5, 0.0, True)
    if full:
        loss = _F.scale(loss, 1.0, 0.5 * float(np.log(2.0 * np.pi)), True)
    return reduce_loss(fn, loss, reduction)


def hsigmoid_loss(input: Tensor, label: Tensor, num_classes: int, weight: Tensor, bias=None, path_table=None,
                  path_code=None, is_sparse: bool = False, name=None) -> Tensor:
    """Hierarchical sigmoid loss, [N, 1]: per sample, the binary cross entropies of
    the decisions on its class's path through a tree of sigmoid nodes.

    Node j on the path of sample i has the logit ``p = input[i] . weight[node] +
    bias[node]`` (clipped to [-40, 40]) and the target bit b; the loss is the sum
    of ``softplus(p) - b * p`` over the path. Without ``path_table`` the tree is
    Paddle's default complete binary tree over ``num_classes`` classes (class c
    has code c + num_classes; weight [num_classes - 1, D], bias
    [num_classes - 1, 1]); with ``path_table``/``path_code`` [N, L] (node
    indices padded with -1, and bits) the path is given per sample. As Paddle's
    kernel does, each of the L - len(path) padding slots adds log(2) (the loss of
    a zero logit), which does not change the gradient. ``is_sparse`` is accepted;
    the weight gradient is dense.

    >>> x = eager.to_tensor([[1.0, 2.0]])
    >>> w = eager.to_tensor([[0.5, -0.5], [0.0, 1.0]])       # 3 classes: 2 inner nodes
    >>> loss = eager.nn.functional.hsigmoid_loss(x, eager.to_tensor([1]), 3, w)
    >>> round(float(loss), 4)          # class 1: code 4 = 0b100, nodes 1 and 0, bits 0 and 0
    2.601
    """
    fn = "hsigmoid_loss"
    check_float(fn, "input", input)
    check_tensor(fn, "label", label)
    check_tensor(fn, "weight", weight)
    if input.ndim != 2:
        raise ValueError(f"{fn}: argument 'input' expected a 2-d tensor [N, D], got shape {input.shape}")
    rows, features = input.shape
    check_integer(fn, "label", label, "an integer Tensor of classes")   # a float label: TypeError, as Paddle
    if label.shape not in ([rows], [rows, 1]):
        raise ValueError(f"{fn}: argument 'label' expected an integer tensor of shape [{rows}] or [{rows}, 1], "
                         f"got {label.dtype}{label.shape}")
    num_classes = _check_int(fn, "num_classes", num_classes)
    if not isinstance(is_sparse, bool):
        raise TypeError(f"{fn}: argument 'is_sparse' expected a bool, got {is_sparse!r}")
    custom = path_table is not None or path_code is not None
    if custom:
        for arg, value in (("path_table", path_table), ("path_code", path_code)):
            check_tensor(fn, arg, value)
            if value.dtype not in INTEGER_TYPES or value.ndim != 2 or value.shape[0] != rows:
                raise ValueError(f"{fn}: argument '{arg}' expected an integer tensor [{rows}, L], got "
                                 f"{value.dtype}{value.shape}")
        if path_code.shape != path_table.shape:
            raise ValueError(f"{fn}: argument 'path_code' expected the shape of 'path_table' {path_table.shape}, "
                             f"got {path_code.shape}")
        nodes = weight.shape[0] if weight.ndim else 0
    else:
        if num_classes < 2:
            raise ValueError(f"{fn}: argument 'num_classes' expected an int >= 2 with the default tree, got "
                             f"{num_classes}")
        nodes = num_classes - 1
    if weight.ndim != 2 or weight.shape[1] != features or (not custom and weight.shape[0] != nodes):
        rows_text = "num_nodes" if custom else str(nodes)
        raise ValueError(f"{fn}: argument 'weight' expected shape [{rows_text}, {features}], got {weight.shape}")
    if dtypes_differ(weight, input):
        raise TypeError(f"{fn}: argument 'weight' expected the dtype of 'input' {input.dtype}, got {weight.dtype}")
    if bias is not None:
        check_tensor(fn, "bias", bias)
        if dtypes_differ(bias, input):
            raise TypeError(f"{fn}: argument 'bias' expected the dtype of 'input' {input.dtype}, got {bias.dtype}")
        if bias.shape not in ([nodes, 1], [nodes]):
            raise ValueError(f"{fn}: argument 'bias' expected {input.dtype}[{nodes}, 1], got "
                             f"{bias.dtype}{bias.shape}")
    labels = _F.reshape(label, [rows, 1])
    labels = as_int64(labels)
    if custom:
        index = as_int64(path_table)
        bits = _F.cast(path_code, input.dtype)
        # the path ends at its first negative entry
        on_path = _F.cast(_F.cumprod(_F.cast(_F.greater_equal(index, _F.zeros_like(index)), DataType.INT64), 1),
                          DataType.BOOL)
        checked = index
    else:
        if reads_values(labels) and rows:
            low, high = value_range(labels)
            if low < 0 or high >= num_classes:
                raise ValueError(f"{fn}: argument 'label' expected classes in [0, {num_classes}), got values in "
                                 f"[{low}, {high}]")
        length = max(int(num_classes - 1).bit_length(), 1)
        powers = to_tensor(np.array([[2 ** j for j in range(length)]], dtype=np.int64), place=labels.place)
        code = _F.add(labels, _F.full_like(labels, num_classes, None))           # c + num_classes, [N, 1]
        # node of step j: (code >> (j + 1)) - 1, its bit (code >> j) & 1; -1 past the path's end
        index = _F.subtract(_F.floor_divide(code, _F.add(powers, powers)), _F.ones_like(powers))
        bits = _F.cast(_F.remainder(_F.floor_divide(code, powers), _F.full_like(powers, 2, None)), input.dtype)
        on_path = _F.greater_equal(index, _F.zeros_like(index))
        checked = None
    if checked is not None and reads_values(checked) and checked.numel():
        high = int(_F.max(checked).numpy())
        if high >= nodes:
            raise ValueError(f"{fn}: argument 'path_table' expected node indices below {nodes} (weight's rows), "
                             f"got {high}")
    steps = index.shape[1]
    safe = _F.where(on_path, index, _F.zeros_like(index))
    flat = _F.reshape(safe, [rows * steps])
    picked = _F.reshape(_F.gather(weight, flat, 0), [rows, steps, features])
    logits = _F.sum(_F.multiply(picked, _F.unsqueeze(input, [1])), [-1])    # [N, L]
    if bias is not None:
        logits = _F.add(logits, _F.reshape(_F.gather(_F.reshape(bias, [nodes]), flat, 0), [rows, steps]))
    # clipped to [-40, 40] in value; the gradient is taken at the clipped logit, as Paddle's
    logits = _F.add(logits, _F.subtract(_F.clip(logits, -40.0, 40.0), logits).detach())
    per_node = _F.subtract(_softplus(logits), _F.multiply(bits, logits))
    padding = _F.full_like(per_node, float(np.log(2.0)), None)
    return _F.sum(_F.where(on_path, per_node, padding), [1], None, True)


def ctc_loss(log_probs: Tensor, labels: Tensor, input_lengths: Tensor, label_lengths: Tensor,
             blank: int = 0, reduction: str = "mean", norm_by_times: bool = False) -> Tensor:
    """Connectionist Temporal Classification loss (Paddle's, after warp-ctc).

    ``log_probs``: [max_logit_length, batch_size, num_classes + 1] *unnormalised*
    scores: as Paddle (warp-ctc) does, a softmax over the classes is applied
    inside, so logits and log-probabilities give the same loss. ``labels``:
    [batch_size, max_label_length] padded integer labels; ``input_lengths``,
    ``label_lengths``: [batch_size] integers. Returns ``-log p(labels)`` per
    sequence ('none'), their sum, or ('mean') the mean of each loss divided by
    its label length (at least 1). A sequence no alignment fits has an infinite
    loss and a zero gradient. ``norm_by_times`` divides the gradient (not the
    loss) by each sequence's length, as warp-ctc. First-order gradients only.

    The forward (alpha) and backward (beta) recursions run in log space, each a
    loop over time that is vectorised over the batch and the label positions.

    >>> logits = eager.zeros([2, 1, 3])
    >>> loss = eager.nn.functional.ctc_loss(logits, eager.to_tensor([[1]], dtype="int32"),
    ...     eager.to_tensor([2]), eager.to_tensor([1]), reduction="none")
    >>> round(float(loss[0]), 4)      # 3 of the 9 paths give "1": -log(3/9)
    1.0986
    """
    fn = "ctc_loss"
    check_reduction(fn, reduction)
    check_float(fn, "log_probs", log_probs)
    for arg, value in (("labels", labels), ("input_lengths", input_lengths), ("label_lengths", label_lengths)):
        if value is None:  # Paddle's static graph takes LoD inputs without lengths; its dygraph refuses (ValueError)
            raise ValueError(f"{fn}: argument '{arg}' expected an integer Tensor (the lengths are required), got None")
        check_integer(fn, arg, value)
    blank = _check_int(fn, "blank", blank)
    if not isinstance(norm_by_times, bool):
        raise TypeError(f"{fn}: argument 'norm_by_times' expected a bool, got {norm_by_times!r}")
    try:
        loss = _F.warpctc(log_probs, labels, input_lengths, label_lengths, blank, norm_by_times)
    except PhiError as error:  # name the function and the arguments the user called
        message = str(error).replace("warpctc:", f"{fn}:", 1)
        for op_arg, arg in (("logits_length", "input_lengths"), ("labels_length", "label_lengths"),
                            ("label", "labels"), ("logits", "log_probs")):
            message = message.replace(f"argument '{op_arg}'", f"argument '{arg}'")
        raise type(error)(message) from None
    if reduction == "mean":
        lengths = _F.cast(label_lengths, log_probs.dtype)
        lengths = _F.maximum(lengths, _F.ones_like(lengths))
        return _F.mean(_F.divide(loss, lengths))
    return reduce_loss(fn, loss, reduction)


def label_smooth(label: Tensor, prior_dist=None, epsilon: float = 0.1, name=None) -> Tensor:
    """Label smoothing: ``(1 - epsilon) * label + epsilon * prior_dist`` over the
    last axis (the classes), the prior uniform (1 / classes) when ``prior_dist``
    is None; a given prior is [1, classes] or [classes]. Differentiable in label
    and prior.

    >>> out = eager.nn.functional.label_smooth(eager.to_tensor([[0.0, 1.0]]), epsilon=0.2)
    >>> out.numpy().round(4)
    array([[0.1, 0.9]], dtype=float32)
    """
    fn = "label_smooth"
    check_float(fn, "label", label)
    if label.ndim == 0:
        raise ValueError(f"{fn}: argument 'label' expected at least 1 dimension (the classes), got a 0-d tensor")
    if isinstance(epsilon, Tensor):   # Paddle float()s a one-element tensor here
        epsilon = to_scalar(epsilon, fn, "epsilon")
    epsilon = check_number(fn, "epsilon", epsilon)
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"{fn}: argument 'epsilon' expected a value in [0, 1], got {epsilon}")
    kept = _F.scale(label, 1.0 - epsilon)
    if prior_dist is None:  # no classes: nothing to share epsilon among (and no 1 / 0)
        return _F.scale(kept, 1.0, epsilon / label.shape[-1]) if label.shape[-1] else kept
    check_float(fn, "prior_dist", prior_dist)
    if prior_dist.shape not in ([1, label.shape[-1]], [label.shape[-1]]):
        raise ValueError(f"{fn}: argument 'prior_dist' expected shape [1, {label.shape[-1]}] or "
                         f"[{label.shape[-1]}] (one weight per class), got {prior_dist.shape}")
    if prior_dist.dtype != label.dtype:
        raise TypeError(f"{fn}: argument 'prior_dist' expected the dtype of label ({label.dtype}), "
                        f"got {prior_dist.dtype}")
    if prior_dist.ndim > label.ndim:  # a [1, C] prior for a [C] label: the result is shaped like the label
        prior_dist = _F.reshape(prior_dist, [label.shape[-1]])
    return _F.add(kept, _F.scale(prior_dist, epsilon))


def dice_loss(input: Tensor, label: Tensor, epsilon: float = 1e-5, name=None) -> Tensor:
    """Dice loss of class probabilities ``input`` [N, ..., C] (a softmax output)
    against integer labels [N, ..., 1]: the mean over samples of
    ``1 - 2 * sum(input * onehot) / (sum(input) + sum(onehot) + epsilon)``, the
    sums over every axis but the first. Differentiable in input.

    >>> probs = eager.to_tensor([[[0.9, 0.1], [0.2, 0.8]]])
    >>> round(float(eager.nn.functional.dice_loss(probs, eager.to_tensor([[[0], [1]]]))), 4)
    0.15
    """
    fn = "dice_loss"
    check_float(fn, "input", input)
    check_tensor(fn, "label", label)
    if label.dtype not in (DataType.INT32, DataType.INT64):
        raise TypeError(f"{fn}: argument 'label' expected an int32 or int64 tensor, got {label.dtype}")
    if input.ndim < 2:
        raise ValueError(f"{fn}: argument 'input' expected at least 2 dimensions [N, ..., C], got {input.shape}")
    if label.ndim != input.ndim or label.shape[-1] != 1 or label.shape[:-1] != input.shape[:-1]:
        # Paddle asserts it (AssertionError): both that and eager's ValueError
        raise AssertedArgumentError(f"{fn}: argument 'label' expected shape {input.shape[:-1] + [1]} (input's "
                                    f"with 1 class axis), got {label.shape}")
    epsilon = check_number(fn, "epsilon", epsilon)
    onehot = _F.cast(_renamed(fn, "one_hot", lambda: _F.one_hot(_F.squeeze(label, [-1]), input.shape[-1])),
                     input.dtype)
    axes = list(range(1, input.ndim))
    overlap = _F.sum(_F.multiply(input, onehot), axes)
    total = _F.add(_F.sum(input, axes), _F.sum(onehot, axes))
    score = _F.divide(_F.scale(overlap, 2.0), _F.scale(total, 1.0, epsilon))
    return _F.mean(_F.scale(score, -1.0, 1.0))


def npair_loss(anchor: Tensor, positive: Tensor, labels: Tensor, l2_reg: float = 0.002, name=None) -> Tensor:
    """N-pair loss (Sohn, 2016) of embeddings anchor [B, D] and positive [B, D]
    with class labels [B] (or [B, 1]): the mean over anchors of the cross
    entropy between ``softmax(anchor @ positive.T)`` and the row-normalized
    same-label matrix, plus ``l2_reg * 0.25 * (mean |anchor|^2 + mean |positive|^2)``.
    Differentiable in anchor and positive.

    >>> a = eager.to_tensor([[1.0, 0.0], [0.0, 1.0]])
    >>> round(float(eager.nn.functional.npair_loss(a, a, eager.to_tensor([0, 1]), l2_reg=0.0)), 4)
    0.3133
    """
    fn = "npair_loss"
    check_float(fn, "anchor", anchor)
    check_float(fn, "positive", positive)
    check_tensor(fn, "labels", labels)
    if anchor.ndim != 2:
        raise ValueError(f"{fn}: argument 'anchor' expected a 2-D tensor [batch, dim], got {anchor.shape}")
    check_same_shape(fn, "anchor", anchor, "positive", positive)
    batch = anchor.shape[0]
    if labels.shape not in ([batch], [batch, 1]):
        raise ValueError(f"{fn}: argument 'labels' expected shape [{batch}] or [{batch}, 1], got {labels.shape}")
    l2_reg = check_number(fn, "l2_reg", l2_reg)
    column = _F.reshape(labels, [batch, 1])
    same = _F.cast(_F.equal(column, _F.reshape(labels, [1, batch])), anchor.dtype)
    targets = _F.divide(same, _F.sum(same, [1], None, True))
    squares = _F.add(_F.mean(_F.sum(_F.multiply(anchor, anchor), [1])),
                     _F.mean(_F.sum(_F.multiply(positive, positive), [1])))
    similarity = _F.matmul(anchor, positive, False, True)
    cross_entropy = _F.scale(_F.sum(_F.multiply(targets, _F.log_softmax(similarity, 1)), [1]), -1.0)
    return _F.add(_F.scale(squares, 0.25 * l2_reg), _F.mean(cross_entropy))


def multi_label_margin_loss(input: Tensor, label: Tensor, reduction: str = "mean", name=None) -> Tensor:
    """Multi-class multi-label hinge loss of input [N, C] against label [N, C]
    (int): sample i's targets are label[i]'s entries before its first -1, and
    its loss is ``sum_{j target} sum_{k not a target} max(0, 1 - (x[j] - x[k])) / C``.
    The pairs are formed at once: an [N, C, C] intermediate.

    >>> x = eager.to_tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> y = eager.to_tensor([[3, 0, -1, 1]])
    >>> round(float(eager.nn.functional.multi_label_margin_loss(x, y)), 4)
    0.85
    """
    fn = "multi_label_margin_loss"
    check_reduction(fn, reduction)
    check_float(fn, "input", input)
    check_integer(fn, "label", label)
    if input.ndim not in (1, 2):
        raise ValueError(f"{fn}: argument 'input' expected a 2-d tensor [N, C] (or 1-d [C]), got shape {input.shape}")
    if label.shape != input.shape:
        raise ValueError(f"{fn}: argument 'label' expected the shape of input {input.shape}, got {label.shape}")
    unbatched = input.ndim == 1
    if unbatched:
        input, label = _F.unsqueeze(input, [0]), _F.unsqueeze(label, [0])
    rows, classes = input.shape
    if input.numel() and reads_values(label):
        low, high = value_range(label)
        if low < -1 or high >= classes:
            raise ValueError(f"{fn}: argument 'label' expected class indices in [0, {classes}) or -1, got values "
                             f"in [{low}, {high}]")
    label = as_int64(label)
    # positions j before the first -1 of each row
    negative = _F.cast(_F.less_than(label, _F.zeros_like(label)), DataType.INT64)
    valid = _F.equal(_F.cumsum(negative, 1), _F.zeros_like(negative))                       # [N, C(j)]
    safe = _F.where(valid, label, _F.zeros_like(label))
    valid_f = _F.cast(valid, input.dtype)
    hits = _F.multiply(_F.one_hot(safe, classes).astype(input.dtype), _F.unsqueeze(valid_f, [2]))  # [N, j, k]
    is_target = _F.greater_than(_F.sum(hits, [1]), _F.zeros([rows, classes], input.dtype, input.place))
    others = _F.scale(_F.cast(is_target, input.dtype), -1.0, 1.0, True)                      # [N, C(k)]
    target_x = _F.take_along_axis(input, safe, 1)                                            # x[y_j]
    hinge = _F.relu(_F.add(_F.scale(_F.unsqueeze(input, [1]), 1.0, 1.0, True),
                           _F.neg(_F.unsqueeze(target_x, [2]))))                             # 1 - x[y_j] + x[k]
    hinge = _F.multiply(_F.multiply(hinge, _F.unsqueeze(valid_f, [2])), _F.unsqueeze(others, [1]))
    loss = _F.scale(_F.sum(hinge, [1, 2]), 1.0 / classes, 0.0, True)
    if unbatched and reduction == "none":
        return _F.squeeze(loss, [0])
    return reduce_loss(fn, loss, reduction)


__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_embedding_loss", "cross_entropy",
           "ctc_loss", "dice_loss", "hinge_embedding_loss", "kl_div", "l1_loss", "label_smooth",
           "margin_ranking_loss", "mse_loss", "multi_label_soft_margin_loss", "nll_loss", "npair_loss",
           "poisson_nll_loss", "sigmoid_focal_loss", "smooth_l1_loss", "soft_margin_loss", "triplet_margin_loss"]
__all__ += ["gaussian_nll_loss", "log_loss", "multi_margin_loss", "softmax_with_cross_entropy", "square_error_cost",
            "triplet_margin_with_distance_loss", "hsigmoid_loss", "multi_label_margin_loss"]
__all__ += ["edit_distance"]
