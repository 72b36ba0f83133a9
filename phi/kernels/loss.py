"""Softmax, log-softmax and the fused cross-entropy losses, with their gradients.

Fused because the composition is where numbers go wrong: exp overflows without
the row maximum subtracted, and 0 * log(0) turns a masked (-inf) logit into NaN.
Here a -inf logit has probability 0, contributes 0 to the loss and gets a 0
gradient.
"""
import math

import numpy as np

from ..core.errors import ClassIndexOutOfRangeError, InvalidArgumentError
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, FLOATS, INTS
from .funcs import host_factor
from .fusion import fused
from .reduction import mean_over

_ADD_REDUCE = np.add.reduce
_ADD, _SUBTRACT, _MULTIPLY, _DIVIDE, _NEGATIVE = np.add, np.subtract, np.multiply, np.divide, np.negative
_EMPTY, _as_0d = np.empty, np.asarray
_ROWS: dict = {}  # rows -> read-only np.arange(rows); emptied past _ROWS_LIMIT entries
_ROWS_LIMIT = 64
_MIN_REDUCE, _MAX_REDUCE, _ascontiguous = np.minimum.reduce, np.maximum.reduce, np.ascontiguousarray
_MAX_BLOCK = 1 << 16  # elements of logits transposed at a time for their row maxima
_UNSIGNED = {size: np.dtype(f"u{size}") for size in (1, 2, 4, 8)}  # an integer label's itemsize -> its unsigned view


def _shifted(xp, x, axis):
    """x minus its maximum along axis, as Paddle's softmax kernels subtract it: a row
    holding +inf (inf - inf) or only -inf (-inf + inf) becomes NaN throughout, as there."""
    return x - xp.max(x, axis=axis, keepdims=True)


@register_kernel("softmax", ALL_BACKENDS, FLOATS)
def softmax(ctx, x, axis, *, into=None):  # into: see KernelFactory.writes_into (softmax_)
    xp = ctx.xp
    if x.size == 0:
        return xp.empty_like(x) if into is None else into
    e = xp.exp(_shifted(xp, x, axis))  # a new buffer: x may be into
    return xp.divide(e, e.sum(axis=axis, keepdims=True), out=into)


@register_kernel("softmax_grad", ALL_BACKENDS, FLOATS)
def softmax_grad(ctx, out, out_grad, axis):
    return out * (out_grad - (out_grad * out).sum(axis=axis, keepdims=True))


@register_kernel("log_softmax", ALL_BACKENDS, FLOATS)
def log_softmax(ctx, x, axis):
    xp = ctx.xp
    if x.size == 0:
        return xp.empty_like(x)
    shifted = _shifted(xp, x, axis)
    return shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))


@register_kernel("log_softmax_grad", ALL_BACKENDS, FLOATS)
def log_softmax_grad(ctx, out, out_grad, axis):
    return out_grad - ctx.xp.exp(out) * out_grad.sum(axis=axis, keepdims=True)


def _check_labels(ctx, label, classes, ignore_index, error=InvalidArgumentError):
    # On the CPU the check is free; on a GPU it would wait for the device, so there
    # it runs only in anomaly mode (ctx.check_values) and an out-of-range label is
    # otherwise clipped (documented in nn.functional.cross_entropy).
    if ctx.check_values:
        bad = (label < 0) | (label >= classes)
        if ignore_index is not None:
            bad &= label != ignore_index
        if bad.any():
            raise error(
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
        log_p = log_softmax(ctx, logits, axis)
        softmax_out = xp.exp(log_p)  # one pass of max, exp and sum instead of two
    else:
        # A view, not logits itself: the result is an array of its own, so a recorded
        # program does not take the logits as made by this call (jit.save's pruning
        # would then keep the loss for a forward that returns only the logits).
        softmax_out = logits.view()
        with np.errstate(divide="ignore"):
            # Paddle's kernels pass the log through TolerableValue: log(0) is
            # -1e20, so a zero probability's loss is 1e20, not inf (the
            # gradient, -label / p, stays -inf as there).
            log_p = xp.maximum(xp.log(logits), -1e20)
    if soft_label:
        # 0 * log(0) is 0 here: a masked class with no label mass adds nothing.
        with np.errstate(invalid="ignore"):
            terms = xp.where(label == 0, 0, label * log_p)
        return softmax_out, -terms.sum(axis=axis, keepdims=True).astype(logits.dtype)
    _check_labels(ctx, label, classes, ignore_index, ClassIndexOutOfRangeError)
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
    return grad.astype(softmax.dtype, copy=False)


def _loss_grad(xp, label, softmax, loss_grad, soft_label, use_softmax, ignore_index, axis):
    classes = softmax.shape[axis]
    if not soft_label and use_softmax and hasattr(xp, "put_along_axis"):
        # (softmax - one_hot) * w without building the one-hot: scale, then subtract
        # w at each sample's class.
        valid = label != ignore_index
        safe = xp.clip(xp.where(valid, label, 0), 0, classes - 1).astype(np.int64)
        weight = (loss_grad * valid).astype(softmax.dtype, copy=False)
        grad = softmax * weight
        xp.put_along_axis(grad, safe, xp.take_along_axis(grad, safe, axis=axis) - weight, axis=axis)
        return grad
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
    sigmoid_neg = 1 / (1 + xp.exp(x))  # Paddle's form: sigmoid(-x) keeps its precision for large x
    coeff = 1 if pos_weight is None else 1 + (pos_weight - 1) * label
    valid = label != ignore_index
    grad = xp.where(valid, ((1 - label) - coeff * sigmoid_neg) * out_grad, 0)
    if normalize:
        grad = grad / xp.maximum(valid.sum(), 1)
    return grad.astype(x.dtype)


@register_kernel("one_hot", ALL_BACKENDS, INTS)
def one_hot(ctx, x, num_classes):
    xp = ctx.xp
    _check_labels(ctx, x, num_classes, None)
    return (x[..., None] == xp.arange(num_classes)).astype(np.float32)


# ==== loss ops (issue #10) ====================================================

# -- fused_softmax_cross_entropy: the common classifier loss in one pass --------
# Hard labels, classes last, reduced to one number. Forward: the row maximum
# subtracted, the label's shifted logit picked, exp and the row sums in place,
# the softmax left in that same buffer for the backward; loss = log(sum) -
# picked per row, 0 for rows whose label is ignore_index, summed (and divided by
# the number of rows that count, at least 1, for 'mean'). Backward: (softmax -
# onehot) * g / count written into one fresh buffer.

def _class_rows(logits, label):
    """logits [..., C] as rows [N, C] and the labels ([...] or [..., 1]) as [N]."""
    classes = logits.shape[-1]
    rows = logits.shape[0] if logits.ndim == 2 else math.prod(logits.shape[:-1])
    # (no reshape call when the shapes already fit: a GPU pays the host for each call)
    return (logits if logits.ndim == 2 else logits.reshape(rows, classes),
            label if label.shape == (rows,) else label.reshape(rows))


def _as_shaped(xp, array, shape, dtype):
    """array with ``shape`` and ``dtype`` (no call for what already fits)."""
    if array.shape != shape:
        array = array.reshape(shape)
    return array if array.dtype == dtype else array.astype(dtype)


def _label_mask(ctx, label, classes, ignore_index):
    """(safe, valid, bad) for labels [N]: safe class indices in [0, C) to read
    and write at, the mask of rows that count (None: all of them) and, on a GPU,
    the mask of out-of-range labels (None on the CPU, where they raise instead:
    reading the range back from a GPU would wait for the device: there they raise
    only where ctx.check_values, in anomaly mode)."""
    xp = ctx.xp
    if xp is np:
        if label.size == 0:
            return label, None, None
        if ((ignore_index < 0 or ignore_index >= classes)
                and int(_MAX_REDUCE(label.view(_UNSIGNED[label.dtype.itemsize]), None)) < classes):
            # One reduction for the common case: every label a class (a negative one
            # wraps above C in the unsigned view) and ignore_index none of them.
            return label, None, None
        low, high = int(_MIN_REDUCE(label, None)), int(_MAX_REDUCE(label, None))
        if low < 0 or high >= classes:  # out of range, or ignore_index rows, or both
            _check_labels(ctx, label, classes, ignore_index, ClassIndexOutOfRangeError)
        if ignore_index < low or ignore_index > high:
            return label, None, None  # every row counts: no mask, no copy
        valid = label != ignore_index
        return xp.where(valid, label, 0), valid, None
    _check_labels(ctx, label, classes, ignore_index, ClassIndexOutOfRangeError)
    inside = label.view(np.dtype(f"u{label.dtype.itemsize}")) < classes   # a negative label wraps above C
    valid = label != ignore_index
    bad = valid > inside                                                  # counts, but is no class
    return xp.where(inside, label, 0), valid, bad


def _count(xp, valid, rows, dtype):
    """How many rows count, at least 1 (0 / 0 would be NaN: Paddle gives 0 when none
    does); a Python int on the CPU, a device scalar of ``dtype`` on a GPU."""
    if valid is None:
        return max(rows, 1)
    if xp is np:
        return max(int(_ADD_REDUCE(valid, None)), 1)
    return xp.maximum(valid.sum(), 1).astype(dtype)


def _host_divisor(xp, count, dtype):
    """_count's Python int as the host's cached read-only 0-d array of ``dtype``
    (funcs.host_factor: the operand NumPy makes of the int, so the same
    conversion, on a ufunc's quick path); on a GPU unchanged."""
    return host_factor(count, dtype) if xp is np and type(count) is int else count


def _row_index(xp, rows):
    """arange(rows), for picking each row's class; on the host one cached
    read-only array per row count (an index is only read)."""
    if xp is not np:
        return xp.arange(rows)
    index = _ROWS.get(rows)
    if index is None:
        if len(_ROWS) >= _ROWS_LIMIT:
            _ROWS.clear()
        index = np.arange(rows)
        index.flags.writeable = False
        _ROWS[rows] = index
    return index


def _row_max(xp, z):
    """The maxima of z's rows [N, C] as [N, 1]. On the host, many short rows are
    reduced through a transposed copy: a reduction along rows of C elements runs
    NumPy's inner loop once per row (23 us at (512, 10)), C passes over a column
    of N cost 4 us with the copy. A maximum is exact, so the values are the same
    either way (NaN included; a row's maximum of 0.0 and -0.0 may take either
    zero's sign, which neither exp nor the loss can tell apart). The copy is made
    _MAX_BLOCK elements at a time, so it adds at most that much memory."""
    rows, classes = z.shape
    if xp is not np or rows < 4 * classes:
        return z.max(axis=1, keepdims=True)
    block = max(_MAX_BLOCK // classes, 1)  # rows per copy: the copy stays small (in cache)
    if rows <= block:
        return _MAX_REDUCE(_ascontiguous(z.T), 0)[:, None]
    peaks = _EMPTY((rows, 1), z.dtype)
    for start in range(0, rows, block):
        peaks[start:start + block, 0] = _MAX_REDUCE(_ascontiguous(z[start:start + block].T), 0)
    return peaks


@register_kernel("fused_softmax_cross_entropy", ALL_BACKENDS, FLOATS)
def fused_softmax_cross_entropy(ctx, logits, label, ignore_index, reduction):
    xp = ctx.xp
    z, labels = _class_rows(logits, label)
    rows, classes = z.shape
    safe, valid, bad = _label_mask(ctx, labels, classes, ignore_index)
    if rows == 0:
        return xp.empty_like(logits), xp.zeros((), dtype=logits.dtype)
    work = xp.subtract(z, _row_max(xp, z))      # the one buffer: shifted, exp, softmax
    picked = work[_row_index(xp, rows), safe]
    xp.exp(work, out=work)
    total = _ADD_REDUCE(work, 1) if xp is np else work.sum(axis=1)
    work /= total[:, None]
    row_loss = xp.log(total)
    row_loss -= picked
    if valid is not None:
        row_loss = xp.where(valid, row_loss, 0)
    if bad is not None:
        row_loss = xp.where(bad, xp.nan, row_loss)
    loss = _ADD_REDUCE(row_loss, 0) if xp is np else row_loss.sum()
    if reduction == "mean":
        loss = loss / _host_divisor(xp, _count(xp, valid, rows, logits.dtype), logits.dtype)
    if not isinstance(loss, xp.ndarray) or loss.dtype != logits.dtype:  # NumPy's sum gives a scalar
        loss = xp.asarray(loss, dtype=logits.dtype)
    return _as_shaped(xp, work, logits.shape, logits.dtype), loss


@register_kernel("fused_softmax_cross_entropy_grad", ALL_BACKENDS, FLOATS)
def fused_softmax_cross_entropy_grad(ctx, label, softmax, softmax_grad, loss_grad, ignore_index, reduction):
    """(softmax - onehot) * loss_grad (/ count), 0 on ignored rows; plus the
    gradient through the softmax output when one came (create_graph's path)."""
    xp = ctx.xp
    p, labels = _class_rows(softmax, label)
    rows, classes = p.shape
    safe, valid, bad = _label_mask(ctx, labels, classes, ignore_index)
    scale = loss_grad
    if reduction == "mean":
        scale = scale / _host_divisor(xp, _count(xp, valid, rows, softmax.dtype), loss_grad.dtype)
    if valid is not None:
        scale = valid * scale
        if bad is not None:
            scale = xp.where(bad, xp.nan, scale)
        grad = p * scale[:, None]
    else:
        grad = p * scale
    grad[_row_index(xp, rows), safe] -= scale
    if softmax_grad is not None:
        g = softmax_grad.reshape(p.shape)
        grad += p * (g - (g * p).sum(axis=1, keepdims=True))
    return _as_shaped(xp, grad, softmax.shape, softmax.dtype)


@fused
def mse_loss_gpu(xp, input, label, count, *, reduction):
    """(input - label)^2, its sum or its sum / count, in one fused kernel."""
    diff = input - label
    squares = diff * diff
    if reduction == "none":
        return squares
    total = xp.sum(squares)
    return total if reduction == "sum" else total / count


@fused
def mse_loss_grad_gpu(xp, input, label, out_grad, count, *, mean, outputs):
    """fused_mse_loss_grad's 2 (input - label) g (g / count for 'mean') and its
    negation, in one fused kernel; ``outputs``: "input", "label" or "both"."""
    factor = out_grad / count * 2 if mean else out_grad * 2
    grad = (input - label) * factor
    if outputs == "input":
        return grad
    if outputs == "label":
        return -grad
    return grad, -grad


@register_kernel("fused_mse_loss", ALL_BACKENDS, FLOATS)
def fused_mse_loss(ctx, input, label, reduction):
    """(input - label)^2, its mean or sum, squared in the difference's buffer; the
    same sums as subtract, multiply and mean (or sum) one after the other. On a
    GPU one fused kernel (fusion.py)."""
    xp = ctx.xp
    if xp is np:
        if input.ndim and input.size:  # (a 0-d difference is a NumPy scalar; nothing to sum: below)
            # Four NumPy calls, each on arrays (the ufuncs' quick path): the squares in
            # the difference's buffer, add.reduce over every axis (what np.sum and
            # mean_over call: the same pairwise sums), the division by the count as
            # a 0-d array of the dtype (what NumPy makes of a Python int, cached).
            squares = _SUBTRACT(input, label)
            _MULTIPLY(squares, squares, squares)
            if reduction == "none":
                return squares
            total = _ADD_REDUCE(squares, None)  # a NumPy scalar of the dtype
            if reduction == "sum":
                return _as_0d(total)
            return _DIVIDE(total, host_factor(squares.size, squares.dtype), _EMPTY((), squares.dtype))
    elif input.size:
        return mse_loss_gpu(xp, input, label, input.size, reduction=reduction)
    diff = xp.subtract(input, label)
    squares = xp.multiply(diff, diff, out=diff if diff.ndim else None)  # (NumPy's 0-d result is a scalar)
    if reduction == "none":
        return squares
    if xp is np and squares.size:  # 0-d: a NumPy scalar, reduced into one 0-d array
        total = _ADD_REDUCE(squares, None, squares.dtype, _EMPTY((), squares.dtype))
        return total if reduction == "sum" else _DIVIDE(total, squares.size, out=total)
    if reduction == "sum":
        return xp.sum(squares, axis=tuple(range(squares.ndim)), dtype=squares.dtype)
    return mean_over(xp, squares, [], False, None, squares.dtype)


@register_kernel("fused_mse_loss_grad", ALL_BACKENDS, FLOATS)
def fused_mse_loss_grad(ctx, input, label, out_grad, reduction, *, out_mask=None):
    """2 (input - label) g (g / count for 'mean'; elementwise for 'none') in one pass
    over the difference's fresh buffer, and its negation for label. The product rule's
    two halves g (x - y) + g (x - y) are 2 fl(g (x - y)); here fl(2g (x - y)) is that
    (doubling is exact), rounded once where it is subnormal."""
    xp = ctx.xp
    input_wanted = out_mask is None or out_mask[0]
    label_wanted = out_mask is None or out_mask[1]
    if xp is np:
        if input.ndim and input.size:
            # 2g/count (2g: the exact doubling g + g) on a NumPy scalar, then two calls
            # on the arrays: the difference, scaled in its fresh buffer.
            if reduction == "mean":
                half = _DIVIDE(out_grad, host_factor(input.size, out_grad.dtype))
                factor = half + half
            else:
                factor = _ADD(out_grad, out_grad)
            grad = _SUBTRACT(input, label)
            _MULTIPLY(grad, factor, grad)
            if not label_wanted:
                return grad if input_wanted else None, None
            if input_wanted:
                return grad, _NEGATIVE(grad)
            return None, _NEGATIVE(grad, grad)
    elif input.size and (input_wanted or label_wanted):
        outputs = "both" if input_wanted and label_wanted else "input" if input_wanted else "label"
        grads = mse_loss_grad_gpu(xp, input, label, out_grad, input.size, mean=reduction == "mean",
                                  outputs=outputs)
        if outputs == "both":
            return grads
        return (grads, None) if input_wanted else (None, grads)
    if reduction == "mean":
        count = input.size
        factor = xp.multiply(xp.divide(out_grad, count), 2) if count else out_grad
    else:
        factor = xp.multiply(out_grad, 2)
    diff = xp.subtract(input, label)
    grad = xp.multiply(diff, factor, out=diff if diff.ndim else None)
    input_grad = grad if input_wanted else None
    label_grad = None
    if label_wanted:
        label_grad = xp.negative(grad) if input_grad is not None or not grad.ndim else xp.negative(grad, out=grad)
    return input_grad, label_grad


@register_kernel("bce_loss", ALL_BACKENDS, FLOATS)
def bce_loss(ctx, input, label):
    """-(z log x + (1 - z) log(1 - x)), each log clamped below at -100 as Paddle does,
    so a probability of exactly 0 or 1 gives a finite loss."""
    xp = ctx.xp
    if ctx.check_values and input.size and ((input < 0) | (input > 1)).any():  # a device read on a GPU
        bad = input[(input < 0) | (input > 1)].reshape(-1)[0]
        raise InvalidArgumentError(f"argument 'input' expected probabilities in [0, 1], got {float(bad)}")
    with np.errstate(divide="ignore"):
        log_x = xp.maximum(xp.log(input), -100)
        log_not_x = xp.maximum(xp.log1p(-input), -100)
    return (-(label * log_x + (1 - label) * log_not_x)).astype(input.dtype)


@register_kernel("bce_loss_grad", ALL_BACKENDS, FLOATS)
def bce_loss_grad(ctx, input, label, out_grad):
    """(x - z) / (x (1 - x)), the denominator kept above 1e-12 as Paddle does."""
    xp = ctx.xp
    return (out_grad * (input - label) / xp.maximum((1 - input) * input, 1e-12)).astype(input.dtype)


def _nll_parts(ctx, input, label, weight, ignore_index):
    """The safe class indices, the per-element weights (0 where ignored) and the classes."""
    xp = ctx.xp
    classes = input.shape[1]
    _check_labels(ctx, label, classes, ignore_index)
    valid = label != ignore_index
    if not classes:  # no class to pick (every label is ignore_index where values are checked): loss 0
        return None, xp.zeros(label.shape, input.dtype), classes
    safe = xp.clip(xp.where(valid, label, 0), 0, classes - 1).astype(np.int64)
    w = valid.astype(input.dtype) if weight is None else weight[safe] * valid
    return safe, w.astype(input.dtype), classes


@register_kernel("nll_loss", ALL_BACKENDS, FLOATS)
def nll_loss(ctx, input, label, weight, ignore_index):
    """-weight[y] * input[n, y, ...] per element of label; 0 where label is ignore_index."""
    xp = ctx.xp
    safe, w, _ = _nll_parts(ctx, input, label, weight, ignore_index)
    if safe is None:
        return w
    picked = xp.take_along_axis(input, safe[:, None], axis=1)[:, 0]
    return (-picked * w).astype(input.dtype)


@register_kernel("nll_loss_grad", ALL_BACKENDS, FLOATS)
def nll_loss_grad(ctx, input, label, weight, out_grad, ignore_index):
    """-weight[y] * out_grad placed at each element's class, zeros elsewhere."""
    xp = ctx.xp
    safe, w, classes = _nll_parts(ctx, input, label, weight, ignore_index)
    if safe is None:
        return xp.zeros(input.shape, input.dtype)
    hot = _one_hot_along(xp, safe[:, None], classes, 1, input.dtype)
    return (hot * (-w * out_grad)[:, None]).astype(input.dtype)


# -- CTC: the forward (alpha) and backward (beta) recursions in log space, --------
# vectorised over the batch and the label positions, looping over time only.

def _logsumexp3(xp, a, b, c):
    peak = xp.maximum(xp.maximum(a, b), c)
    safe = xp.where(xp.isfinite(peak), peak, 0)
    with np.errstate(divide="ignore"):
        return safe + xp.log(xp.exp(a - safe) + xp.exp(b - safe) + xp.exp(c - safe))


def _ctc_check(ctx, label, logits_length, labels_length, steps, classes):
    if not ctx.check_values:  # on a GPU the checks would wait for the device; see ctc_loss
        return
    xp = ctx.xp
    for arg, lengths, high in (("logits_length", logits_length, steps),
                               ("labels_length", labels_length, label.shape[1])):
        low = 1 if arg == "logits_length" else 0
        bad = (lengths < low) | (lengths > high)
        if bad.any():
            raise InvalidArgumentError(f"argument '{arg}' expected lengths in [{low}, {high}], got "
                                       f"{int(lengths[bad][0])}")
    inside = xp.arange(label.shape[1])[None, :] < labels_length[:, None]
    bad = inside & ((label < 0) | (label >= classes))
    if bad.any():
        raise InvalidArgumentError(f"argument 'label' expected class indices in [0, {classes}), got "
                                   f"{int(label[bad][0])}")


def _ctc_forward(ctx, logits, label, logits_length, labels_length, blank):
    """log-softmax, the extended labels' log-probabilities, alpha and the log-likelihood."""
    xp = ctx.xp
    steps, batch, classes = logits.shape
    _ctc_check(ctx, label, logits_length, labels_length, steps, classes)
    work = logits.astype(np.promote_types(logits.dtype, np.float32))
    log_p = log_softmax(ctx, work, 2)
    positions = 2 * label.shape[1] + 1
    ext = xp.full((batch, positions), blank, dtype=np.int64)
    ext[:, 1::2] = xp.clip(label, 0, classes - 1)
    lp = xp.take_along_axis(log_p, xp.broadcast_to(ext[None], (steps, batch, positions)), axis=2)
    labels_length = labels_length.astype(np.int64)
    logits_length = logits_length.astype(np.int64)
    s = xp.arange(positions)[None, :]
    inside = s < 2 * labels_length[:, None] + 1
    skip = xp.zeros((batch, positions), dtype=bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    neg = xp.full((batch, 2), -np.inf, dtype=work.dtype)

    alpha = xp.full((steps, batch, positions), -np.inf, dtype=work.dtype)
    first = xp.where(s < 2, lp[0], -np.inf)
    alpha[0] = xp.where(inside, first, -np.inf)
    for t in range(1, steps):
        prev = alpha[t - 1]
        one = xp.concatenate([neg[:, :1], prev[:, :-1]], axis=1)
        two = xp.where(skip, xp.concatenate([neg, prev[:, :-2]], axis=1), -np.inf)
        new = xp.where(inside, _logsumexp3(xp, prev, one, two) + lp[t], -np.inf)
        alpha[t] = xp.where((t < logits_length)[:, None], new, prev)  # frozen once a sequence ends
    end = 2 * labels_length
    final = alpha[steps - 1]
    last_blank = xp.take_along_axis(final, end[:, None], axis=1)[:, 0]
    last_label = xp.take_along_axis(final, xp.maximum(end - 1, 0)[:, None], axis=1)[:, 0]
    last_label = xp.where(labels_length > 0, last_label, -np.inf)
    log_likelihood = xp.logaddexp(last_blank, last_label)
    return log_p, ext, lp, inside, skip, alpha, log_likelihood, logits_length, end


@register_kernel("warpctc", ALL_BACKENDS, FLOATS)
def warpctc(ctx, logits, label, logits_length, labels_length, blank, norm_by_times):
    """CTC loss -log p(label | softmax(logits)) per sequence (inf where no alignment fits)."""
    *_, log_likelihood, _, _ = _ctc_forward(ctx, logits, label, logits_length, labels_length, blank)
    return (-log_likelihood).astype(logits.dtype)


@register_kernel("warpctc_grad", ALL_BACKENDS, FLOATS)
def warpctc_grad(ctx, logits, label, logits_length, labels_length, loss_grad, blank, norm_by_times):
    """softmax - the posterior occupancy of each class (alpha * beta / p), per frame;
    zero on padding frames and for sequences no alignment fits; divided by the
    sequence's length with norm_by_times (the loss itself is not)."""
    xp = ctx.xp
    log_p, ext, lp, inside, skip, alpha, log_likelihood, logits_length, end = _ctc_forward(
        ctx, logits, label, logits_length, labels_length, blank)
    steps, batch, classes = logits.shape
    positions = ext.shape[1]
    s = xp.arange(positions)[None, :]
    start = (s == end[:, None]) | ((s == end[:, None] - 1) & (end[:, None] > 0))
    skip_next = xp.zeros_like(skip)
    skip_next[:, :-2] = skip[:, 2:]
    neg = xp.full((batch, 2), -np.inf, dtype=alpha.dtype)
    beta = xp.full_like(alpha, -np.inf)
    following = xp.full((batch, positions), -np.inf, dtype=alpha.dtype)
    for t in range(steps - 1, -1, -1):
        one = xp.concatenate([following[:, 1:], neg[:, :1]], axis=1)
        two = xp.where(skip_next, xp.concatenate([following[:, 2:], neg], axis=1), -np.inf)
        new = _logsumexp3(xp, following, one, two) + lp[t]
        new = xp.where((t == logits_length - 1)[:, None], xp.where(start, lp[t], -np.inf), new)
        new = xp.where((t < logits_length)[:, None] & inside, new, -np.inf)
        beta[t] = following = new
    both = alpha + beta
    fits = xp.isfinite(log_likelihood)
    log_post = xp.where(both > -np.inf, both - lp - xp.where(fits, log_likelihood, 0)[None, :, None], -np.inf)
    post = xp.exp(log_post)
    hot = (ext[:, :, None] == xp.arange(classes)).astype(post.dtype)
    grad = xp.exp(log_p) - xp.einsum("tbs,bsc->tbc", post, hot)
    frames = xp.arange(steps)[:, None] < logits_length[None, :]
    scale = xp.where(fits, loss_grad.astype(grad.dtype), 0)
    if norm_by_times:
        scale = scale / logits_length
    grad = xp.where(frames[:, :, None], grad * scale[None, :, None], 0)
    return grad.astype(logits.dtype)
