"""Softmax, log-softmax and the fused cross-entropy losses, with their gradients.

Fused because the composition is where numbers go wrong: exp overflows without
the row maximum subtracted, and 0 * log(0) turns a masked (-inf) logit into NaN.
Here a -inf logit has probability 0, contributes 0 to the loss and gets a 0
gradient.
"""
import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, FLOATS, INTS


def _shifted(xp, x, axis):
    """x minus its maximum along axis; a row with no finite maximum is left alone."""
    peak = xp.max(x, axis=axis, keepdims=True)
    return x - xp.where(xp.isfinite(peak), peak, 0).astype(x.dtype)


@register_kernel("softmax", ALL_BACKENDS, FLOATS)
def softmax(ctx, x, axis):
    xp = ctx.xp
    if x.size == 0:
        return xp.empty_like(x)
    e = xp.exp(_shifted(xp, x, axis))
    return e / e.sum(axis=axis, keepdims=True)


@register_kernel("softmax_grad", ALL_BACKENDS, FLOATS)
def softmax_grad(ctx, out, out_grad, axis):
    return out * (out_grad - (out_grad * out).sum(axis=axis, keepdims=True))


@register_kernel("log_softmax", ALL_BACKENDS, FLOATS)
def log_softmax(ctx, x, axis):
    xp = ctx.xp
    if x.size == 0:
        return xp.empty_like(x)
    shifted = _shifted(xp, x, axis)
    with np.errstate(divide="ignore"):  # a row of -inf: log(0), as Paddle gives
        return shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))


@register_kernel("log_softmax_grad", ALL_BACKENDS, FLOATS)
def log_softmax_grad(ctx, out, out_grad, axis):
    return out_grad - ctx.xp.exp(out) * out_grad.sum(axis=axis, keepdims=True)


def _check_labels(xp, label, classes, ignore_index):
    # On the CPU the check is free; on a GPU it would wait for the device, so there
    # an out-of-range label is clipped (documented in nn.functional.cross_entropy).
    if xp is np:
        bad = (label < 0) | (label >= classes)
        if ignore_index is not None:
            bad &= label != ignore_index
        if bad.any():
            raise InvalidArgumentError(
                f"argument 'label' expected class indices in [0, {classes}) or ignore_index "
                f"{ignore_index}, got {int(label[bad].reshape(-1)[0])}")


def _one_hot_along(xp, label, classes, axis, dtype):
    """label (class axis of size 1) as a one-hot array with classes along axis."""
    shape = [1] * label.ndim
    shape[axis] = classes
    return (label == xp.arange(classes).reshape(shape)).astype(dtype)


@register_kernel("cross_entropy_with_softmax", ALL_BACKENDS, FLOATS)
def cross_entropy_with_softmax(ctx, logits, label, soft_label, use_softmax, numeric_stable_mode,
                               ignore_index, axis):
    xp = ctx.xp
    classes = logits.shape[axis]
    if use_softmax:
        softmax_out = softmax(ctx, logits, axis)
        log_p = log_softmax(ctx, logits, axis)
    else:
        softmax_out = logits
        with np.errstate(divide="ignore"):
            log_p = xp.log(logits)
    if soft_label:
        # 0 * log(0) is 0 here: a masked class with no label mass adds nothing.
        with np.errstate(invalid="ignore"):
            terms = xp.where(label == 0, 0, label * log_p)
        return softmax_out, -terms.sum(axis=axis, keepdims=True).astype(logits.dtype)
    _check_labels(xp, label, classes, ignore_index)
    valid = label != ignore_index
    safe = xp.clip(xp.where(valid, label, 0), 0, classes - 1)
    picked = xp.take_along_axis(log_p, safe.astype(np.int64), axis=axis)
    loss = xp.where(valid, -picked, 0).astype(logits.dtype)
    return softmax_out, loss


@register_kernel("cross_entropy_with_softmax_grad", ALL_BACKENDS, FLOATS)
def cross_entropy_with_softmax_grad(ctx, label, softmax, softmax_grad, loss_grad, soft_label, use_softmax,
                                    numeric_stable_mode, ignore_index, axis):
    """The logits' gradient from the loss's and, when the softmax output was used
    too (Paddle drops that one), from the softmax's."""
    grad = _loss_grad(ctx.xp, label, softmax, loss_grad, soft_label, use_softmax, ignore_index, axis)
    if softmax_grad is not None:
        if use_softmax:
            grad = grad + softmax * (softmax_grad - (softmax_grad * softmax).sum(axis=axis, keepdims=True))
        else:
            grad = grad + softmax_grad
    return grad.astype(softmax.dtype)


def _loss_grad(xp, label, softmax, loss_grad, soft_label, use_softmax, ignore_index, axis):
    classes = softmax.shape[axis]
    if soft_label:
        target = label
        weight = loss_grad
    else:
        valid = label != ignore_index
        safe = xp.clip(xp.where(valid, label, 0), 0, classes - 1)
        target = _one_hot_along(xp, safe, classes, axis, softmax.dtype)
        weight = loss_grad * valid
    if use_softmax:
        return ((softmax - target) * weight).astype(softmax.dtype)
    # loss = -sum(target * log p): d/dp = -target / p (0 where target is 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.where(target == 0, 0, -target / softmax * weight).astype(softmax.dtype)


@register_kernel("sigmoid_cross_entropy_with_logits", ALL_BACKENDS, FLOATS)
def sigmoid_cross_entropy_with_logits(ctx, x, label, pos_weight, normalize, ignore_index):
    """(1 - z) x + (1 + (p - 1) z) softplus(-x), softplus(-x) = log1p(exp(-|x|)) + max(-x, 0)."""
    xp = ctx.xp
    softplus_neg = xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(-x, 0)
    coeff = 1 if pos_weight is None else 1 + (pos_weight - 1) * label
    valid = label != ignore_index
    loss = xp.where(valid, (1 - label) * x + coeff * softplus_neg, 0)
    if normalize:
        loss = loss / xp.maximum(valid.sum(), 1)
    return loss.astype(x.dtype)


@register_kernel("sigmoid_cross_entropy_with_logits_grad", ALL_BACKENDS, FLOATS)
def sigmoid_cross_entropy_with_logits_grad(ctx, x, label, pos_weight, out_grad, normalize,
                                           ignore_index):
    """d loss / dx = (1 - z) - c * sigmoid(-x), with c = 1 + (p - 1) z: sigmoid(x) - z when p = 1."""
    xp = ctx.xp
    sigmoid_neg = 0.5 * (1 + xp.tanh(-0.5 * x))
    coeff = 1 if pos_weight is None else 1 + (pos_weight - 1) * label
    valid = label != ignore_index
    grad = xp.where(valid, ((1 - label) - coeff * sigmoid_neg) * out_grad, 0)
    if normalize:
        grad = grad / xp.maximum(valid.sum(), 1)
    return grad.astype(x.dtype)


@register_kernel("one_hot", ALL_BACKENDS, INTS)
def one_hot(ctx, x, num_classes):
    xp = ctx.xp
    _check_labels(xp, x, num_classes, None)
    return (x[..., None] == xp.arange(num_classes)).astype(np.float32)
