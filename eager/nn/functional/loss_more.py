"""More losses (Paddle's ``paddle.nn.functional``): multi_label_margin_loss,
adaptive_log_softmax_with_loss, margin_cross_entropy, class_center_sample and
rnnt_loss.

Each is a composition of differentiable ops (log_softmax, take_along_axis,
logcumsumexp, ...), so gradients of every order come from the ops' own rules.
margin_cross_entropy and class_center_sample run in one process (Paddle's
model-parallel ``group`` is not supported: ``group`` must be None or False).
Label values are checked on the CPU (on a GPU only in anomaly mode, where the
read would otherwise wait for the device).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from phi.common.data_type import INTEGER_TYPES, DataType

from ...creation import to_tensor
from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import check_float, check_reduction, check_tensor, reads_values, reduce_loss

__all__ = ["adaptive_log_softmax_with_loss", "class_center_sample", "margin_cross_entropy",
           "multi_label_margin_loss", "rnnt_loss"]


def _check_labels(fn: str, arg: str, label: Tensor) -> Tensor:
    check_tensor(fn, arg, label)
    if label.dtype not in INTEGER_TYPES:
        raise TypeError(f"{fn}: argument '{arg}' expected an int32 or int64 Tensor, got {label.dtype}{label.shape}")
    return label


def _value_range(label: Tensor) -> tuple:
    return int(_F.min(label).numpy()), int(_F.max(label).numpy())


def _int64(x: Tensor) -> Tensor:
    return x if x.dtype == DataType.INT64 else _F.cast(x, DataType.INT64)


def _real(fn: str, arg: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{fn}: argument '{arg}' expected a number, got {type(value).__name__}")
    return float(value)


def _single_process(fn: str, group) -> None:
    if group is not None and group is not False:
        raise ValueError(f"{fn}: argument 'group' expected None or False (eager runs it in one process; the "
                         f"model-parallel form over a communication group is not supported), got {group!r}")


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
    check_float(fn, "input", input)
    _check_labels(fn, "label", label)
    check_reduction(fn, reduction)
    if input.ndim not in (1, 2):
        raise ValueError(f"{fn}: argument 'input' expected a 2-d tensor [N, C] (or 1-d [C]), got shape {input.shape}")
    if label.shape != input.shape:
        raise ValueError(f"{fn}: argument 'label' expected the shape of input {input.shape}, got {label.shape}")
    unbatched = input.ndim == 1
    if unbatched:
        input, label = _F.unsqueeze(input, [0]), _F.unsqueeze(label, [0])
    rows, classes = input.shape
    if input.numel() and reads_values(label):
        low, high = _value_range(label)
        if low < -1 or high >= classes:
            raise ValueError(f"{fn}: argument 'label' expected class indices in [0, {classes}) or -1, got values "
                             f"in [{low}, {high}]")
    label = _int64(label)
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


def _linear(x: Tensor, weight: Tensor, bias=None) -> Tensor:
    out = _F.matmul(x, weight, False, False)
    return out if bias is None else _F.add(out, bias)


def _check_weight(fn: str, arg: str, weight, rows: int, cols: int, dtype) -> None:
    check_tensor(fn, arg, weight)
    if weight.shape != [rows, cols] or weight.dtype != dtype:
        raise ValueError(f"{fn}: argument '{arg}' expected {dtype}[{rows}, {cols}], got {weight.dtype}{weight.shape}")


def adaptive_log_softmax_with_loss(input: Tensor, label: Tensor, head_weight: Tensor, tail_weights, cutoffs,
                                   head_bias=None, name=None):
    """Adaptive softmax (Grave et al., 2016): (output, loss), output[i] the
    log-probability of class label[i] and loss the mean of -output.

    ``cutoffs`` ends with the number of classes (the layer passes its cutoffs
    plus n_classes): classes below cutoffs[0] are the head's shortlist, cluster
    c holds [cutoffs[c], cutoffs[c + 1]). ``head_weight`` is [in_features,
    cutoffs[0] + n_clusters] (the shortlist's logits, then one per cluster),
    ``tail_weights[c]`` a pair [W1 [in_features, h_c], W2 [h_c, cluster size]].
    log p(y) = head_log_softmax[y] in the shortlist, else head_log_softmax[
    cutoffs[0] + c] + log_softmax(x W1 W2)[y - cutoffs[c]]. Only the rows
    labelled in a cluster run its projection, as in Paddle (finding them reads
    the labels: a wait on a GPU).

    >>> x = eager.randn([4, 8])
    >>> out, loss = eager.nn.functional.adaptive_log_softmax_with_loss(
    ...     x, eager.to_tensor([0, 1, 2, 5]), eager.randn([8, 3]), [[eager.randn([8, 2]), eager.randn([2, 4])]],
    ...     [2, 6])
    >>> out.shape, loss.shape
    ([4], [])
    """
    fn = "adaptive_log_softmax_with_loss"
    check_float(fn, "input", input)
    _check_labels(fn, "label", label)
    if input.ndim not in (1, 2):
        raise ValueError(f"{fn}: argument 'input' expected a 2-d tensor [N, in_features] (or 1-d), got shape "
                         f"{input.shape}")
    unbatched = input.ndim == 1
    if unbatched:
        input = _F.unsqueeze(input, [0])
    rows, features = input.shape
    if label.shape != ([] if unbatched else [rows]):
        raise ValueError(f"{fn}: argument 'label' expected shape {[] if unbatched else [rows]} for input of shape "
                         f"{input.shape if not unbatched else [features]}, got {label.shape}")
    if (not isinstance(cutoffs, (list, tuple)) or not cutoffs
            or any(isinstance(c, bool) or not isinstance(c, numbers.Integral) for c in cutoffs)
            or any(b <= a for a, b in zip(cutoffs, cutoffs[1:])) or cutoffs[0] <= 0):
        raise ValueError(f"{fn}: argument 'cutoffs' expected increasing positive ints ending with the number of "
                         f"classes, got {cutoffs!r}")
    cutoffs = [int(c) for c in cutoffs]
    shortlist, clusters, classes = cutoffs[0], len(cutoffs) - 1, cutoffs[-1]
    _check_weight(fn, "head_weight", head_weight, features, shortlist + clusters, input.dtype)
    if head_bias is not None:
        check_tensor(fn, "head_bias", head_bias)
        if head_bias.shape != [shortlist + clusters] or head_bias.dtype != input.dtype:
            raise ValueError(f"{fn}: argument 'head_bias' expected {input.dtype}[{shortlist + clusters}], got "
                             f"{head_bias.dtype}{head_bias.shape}")
    if not isinstance(tail_weights, (list, tuple)) or len(tail_weights) != clusters:
        raise ValueError(f"{fn}: argument 'tail_weights' expected {clusters} pairs [W1, W2] (one per cluster), got "
                         f"{tail_weights!r}")
    for c, pair in enumerate(tail_weights):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or not all(isinstance(w, Tensor) for w in pair):
            raise ValueError(f"{fn}: argument 'tail_weights[{c}]' expected a pair [W1, W2] of Tensors, got {pair!r}")
        if pair[0].ndim != 2:
            raise ValueError(f"{fn}: argument 'tail_weights[{c}][0]' expected a 2-d tensor [in_features, hidden], "
                             f"got shape {pair[0].shape}")
        hidden = pair[0].shape[1]
        _check_weight(fn, f"tail_weights[{c}][0]", pair[0], features, hidden, input.dtype)
        _check_weight(fn, f"tail_weights[{c}][1]", pair[1], hidden, cutoffs[c + 1] - cutoffs[c], input.dtype)
    if unbatched:
        label = _F.unsqueeze(label, [0])
    if rows and reads_values(label):
        low, high = _value_range(label)
        if low < 0 or high >= classes:
            raise ValueError(f"{fn}: argument 'label' expected class indices in [0, {classes}), got values in "
                             f"[{low}, {high}]")
    label = _int64(label)
    head = _F.log_softmax(_linear(input, head_weight, head_bias), -1)                  # [N, shortlist + clusters]
    zero = _F.zeros_like(label)
    in_head = _F.less_than(label, _F.full_like(label, shortlist))
    output = _F.squeeze(_F.take_along_axis(head, _F.unsqueeze(_F.where(in_head, label, zero), [1]), 1), [1])
    for c, (w1, w2) in enumerate(tail_weights):
        # only the rows whose label is in cluster c run its projection (a read of which rows: one sync)
        low, high = cutoffs[c], cutoffs[c + 1]
        inside = _F.logical_and(_F.greater_equal(label, _F.full_like(label, low)),
                                _F.less_than(label, _F.full_like(label, high)))
        rows_in = _F.reshape(_F.nonzero(inside), [-1])
        if rows_in.shape[0] == 0:
            continue
        local = _F.subtract(_F.index_select(label, rows_in, 0), _F.full([rows_in.shape[0]], low, DataType.INT64,
                                                                         label.place))
        tail = _F.log_softmax(_F.matmul(_F.matmul(_F.index_select(input, rows_in, 0), w1, False, False), w2, False,
                                        False), -1)
        cluster = _F.index_select(_F.squeeze(_F.slice(head, [1], [shortlist + c], [shortlist + c + 1]), [1]),
                                  rows_in, 0)
        value = _F.add(cluster, _F.squeeze(_F.take_along_axis(tail, _F.unsqueeze(local, [1]), 1), [1]))
        output = _F.scatter(output, rows_in, value, True)
    loss = _F.neg(_F.mean(output))
    return (_F.squeeze(output, [0]) if unbatched else output), loss


def margin_cross_entropy(logits: Tensor, label: Tensor, margin1: float = 1.0, margin2: float = 0.5,
                         margin3: float = 0.0, scale: float = 64.0, group=None, return_softmax: bool = False,
                         reduction: str = "mean"):
    """ArcFace / CosFace / SphereFace-style margin softmax loss (one process).

    ``logits`` [N, C] are cosines (normalized features times normalized class
    weights); for the label's class the logit cos(theta) becomes
    cos(margin1 * theta + margin2) - margin3, all logits are multiplied by
    ``scale`` and the cross entropy against ``label`` ([N] or [N, 1]) is taken.
    ``reduction``: 'mean' (default), 'sum', or 'none'/None (loss [N, 1]).
    With ``return_softmax`` also the softmax of the scaled margin logits.

    >>> cos = eager.to_tensor([[0.5, 0.1], [0.2, 0.9]])
    >>> loss = eager.nn.functional.margin_cross_entropy(cos, eager.to_tensor([0, 1]), scale=1.0, margin2=0.0)
    >>> round(float(loss), 4)    # plain cross entropy when m1 = 1, m2 = m3 = 0, scale = 1
    0.4581
    """
    fn = "margin_cross_entropy"
    check_float(fn, "logits", logits)
    _check_labels(fn, "label", label)
    m1, m2, m3, s = (_real(fn, a, v) for a, v in (("margin1", margin1), ("margin2", margin2),
                                                    ("margin3", margin3), ("scale", scale)))
    _single_process(fn, group)
    if not isinstance(return_softmax, bool):
        raise TypeError(f"{fn}: argument 'return_softmax' expected a bool, got {type(return_softmax).__name__}")
    if reduction is None:
        reduction = "none"
    check_reduction(fn, reduction)
    if logits.ndim != 2:
        raise ValueError(f"{fn}: argument 'logits' expected a 2-d tensor [N, num_classes], got shape {logits.shape}")
    rows, classes = logits.shape
    if label.shape not in ([rows], [rows, 1]):
        raise ValueError(f"{fn}: argument 'label' expected shape [{rows}] or [{rows}, 1], got {label.shape}")
    if rows and reads_values(label):
        low, high = _value_range(label)
        if low < 0 or high >= classes:
            raise ValueError(f"{fn}: argument 'label' expected class indices in [0, {classes}), got values in "
                             f"[{low}, {high}]")
    column = _int64(_F.reshape(label, [rows, 1]))
    target = _F.take_along_axis(logits, column, 1)                                      # cos(theta), [N, 1]
    theta = _F.acos(_F.clip(target, -1.0, 1.0))
    margin = _F.scale(_F.cos(_F.scale(theta, m1, m2, True)), 1.0, -m3, True)
    hot = _F.cast(_F.one_hot(_F.reshape(column, [rows]), classes), logits.dtype)
    shifted = _F.add(logits, _F.multiply(hot, _F.subtract(margin, target)))
    scaled = _F.scale(shifted, s, 0.0, True)
    log_p = _F.log_softmax(scaled, -1)
    loss = _F.neg(_F.take_along_axis(log_p, column, 1))                                  # [N, 1]
    if reduction != "none":
        loss = reduce_loss(fn, loss, reduction)
    return (loss, _F.exp(log_p)) if return_softmax else loss


def class_center_sample(label: Tensor, num_classes: int, num_samples: int, group=None):
    """PartialFC's class-center sampling (one process): (remapped_label,
    sampled_class_center). Every class in ``label`` (1-d, values in [0,
    num_classes)) is kept, in increasing order, then classes drawn at random
    from the rest (eager's generator: ``eager.seed`` repeats them) until
    ``num_samples`` are taken (more when label has more distinct classes);
    remapped_label[i] is label[i]'s position in sampled_class_center. Reads the
    labels (a wait on a GPU): the result's size depends on them.

    >>> remapped, centers = eager.nn.functional.class_center_sample(eager.to_tensor([7, 2, 7]), 10, 4)
    >>> remapped.tolist(), centers.tolist()[:2], centers.shape
    ([1, 0, 1], [2, 7], [4])
    """
    fn = "class_center_sample"
    _check_labels(fn, "label", label)
    for arg, value in (("num_classes", num_classes), ("num_samples", num_samples)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
            raise ValueError(f"{fn}: argument '{arg}' expected a positive int, got {value!r}")
    if num_samples > num_classes:
        raise ValueError(f"{fn}: argument 'num_samples' ({num_samples}) may not exceed num_classes ({num_classes})")
    _single_process(fn, group)
    if label.ndim != 1:
        raise ValueError(f"{fn}: argument 'label' expected a 1-d tensor [N], got shape {label.shape}")
    values = label.numpy().astype(np.int64)
    if values.size and (values.min() < 0 or values.max() >= num_classes):
        raise ValueError(f"{fn}: argument 'label' expected class indices in [0, {num_classes}), got values in "
                         f"[{values.min()}, {values.max()}]")
    positive = np.unique(values)
    sampled = positive
    if positive.size < num_samples:
        order = _F.randperm(int(num_classes), DataType.INT64).numpy()
        rest = order[~np.isin(order, positive)]
        sampled = np.concatenate([positive, rest[:num_samples - positive.size]])
    remapped = np.searchsorted(positive, values)         # positives lead, in order: a label's rank is its position
    return (to_tensor(remapped.astype(np.dtype(label.dtype.value)), place=label.place),
            to_tensor(sampled.astype(np.dtype(label.dtype.value)), place=label.place))


def rnnt_loss(input: Tensor, label: Tensor, input_lengths: Tensor, label_lengths: Tensor, blank: int = 0,
              fastemit_lambda: float = 0.001, reduction: str = "mean", name=None) -> Tensor:
    """RNN-Transducer loss (Graves, 2012): -log P(label | input), summed over
    every alignment of the label with the input frames.

    ``input`` [B, T, U + 1, D] holds the joint network's log-probabilities or
    logits (log_softmax is applied over D, as Paddle's GPU kernel does; it
    leaves log-probabilities unchanged), ``label`` [B, U] the padded targets, ``input_lengths`` and
    ``label_lengths`` [B] each sample's T_b and U_b. The forward variable
    alpha(t, u) = logaddexp(alpha(t-1, u) + blank(t-1, u), alpha(t, u-1) +
    emit(t, u-1)) is computed one frame at a time, the u-recursion as a
    cumulative log-sum-exp; loss_b = -(alpha(T_b-1, U_b) + blank(T_b-1, U_b)).
    ``fastemit_lambda`` (FastEmit) leaves the value as it is and scales the
    gradient reaching the label log-probabilities by 1 + lambda. ``reduction``:
    'mean' (the batch mean), 'sum' or 'none' ([B]).

    >>> acts = eager.zeros([1, 2, 2, 3])
    >>> loss = eager.nn.functional.rnnt_loss(acts, eager.to_tensor([[1]], dtype="int32"),
    ...     eager.to_tensor([2]), eager.to_tensor([1]), fastemit_lambda=0.0)
    >>> round(float(loss), 4)    # 2 alignments, each of probability (1/3)^3
    2.6027
    """
    fn = "rnnt_loss"
    check_float(fn, "input", input)
    for arg, value in (("label", label), ("input_lengths", input_lengths), ("label_lengths", label_lengths)):
        _check_labels(fn, arg, value)
    check_reduction(fn, reduction)
    lam = _real(fn, "fastemit_lambda", fastemit_lambda)
    if input.ndim != 4:
        raise ValueError(f"{fn}: argument 'input' expected a 4-d tensor [B, T, U + 1, D], got shape {input.shape}")
    batch, frames, positions, classes = input.shape
    if isinstance(blank, bool) or not isinstance(blank, numbers.Integral) or not 0 <= blank < classes:
        raise ValueError(f"{fn}: argument 'blank' expected an int in [0, {classes}) (input's last axis), got {blank!r}")
    if label.shape != [batch, positions - 1]:
        raise ValueError(f"{fn}: argument 'label' expected shape [{batch}, {positions - 1}] (input's U + 1 = "
                         f"{positions}), got {label.shape}")
    for arg, value in (("input_lengths", input_lengths), ("label_lengths", label_lengths)):
        if value.shape != [batch]:
            raise ValueError(f"{fn}: argument '{arg}' expected shape [{batch}], got {value.shape}")
    if batch and reads_values(input_lengths):
        for arg, value, low, high in (("input_lengths", input_lengths, 1, frames),
                                      ("label_lengths", label_lengths, 0, positions - 1)):
            got = _value_range(value)
            if got[0] < low or got[1] > high:
                raise ValueError(f"{fn}: argument '{arg}' expected values in [{low}, {high}], got values in "
                                 f"[{got[0]}, {got[1]}]")
        if label.numel():   # the labels within each sample's label_length (the padding may hold anything)
            inside = _F.less_than(_F.unsqueeze(_F.arange(0, positions - 1, 1, DataType.INT64, label.place), [0]),
                                  _F.unsqueeze(_int64(label_lengths), [1]))
            used = _F.masked_select(_int64(label), inside)
            got = _value_range(used) if used.numel() else (0, 0)
            if got[0] < 0 or got[1] >= classes:
                raise ValueError(f"{fn}: argument 'label' expected class indices in [0, {classes}) within "
                                 f"label_lengths, got values in [{got[0]}, {got[1]}]")
    if batch == 0 or frames == 0:
        raise ValueError(f"{fn}: argument 'input' expected a non-empty batch and time axis, got shape {input.shape}")
    log_p = _F.log_softmax(input, -1)
    blank_lp = _F.squeeze(_F.take_along_axis(
        log_p, _F.full([batch, frames, positions, 1], int(blank), DataType.INT64, input.place), 3), [3])
    # emit[b, t, u] = log p(label[b, u] | t, u) for u < U
    targets = _int64(label)
    outside = _F.logical_or(_F.less_than(targets, _F.zeros_like(targets)),
                            _F.greater_equal(targets, _F.full_like(targets, classes)))
    targets = _F.where(outside, _F.zeros_like(targets), targets)      # padding: any valid index will do
    lp_u = _F.slice(log_p, [2], [0], [positions - 1])                            # [B, T, U, D]
    index = _F.expand(_F.reshape(targets, [batch, 1, positions - 1, 1]), [batch, frames, positions - 1, 1])
    emit = _F.squeeze(_F.take_along_axis(lp_u, index, 3), [3])                            # [B, T, U]
    if lam != 0.0:
        emit = _F.subtract(_F.scale(emit, 1.0 + lam, 0.0, True), _F.scale(emit.detach(), lam, 0.0, True))
    zero_column = _F.zeros([batch, frames, 1], input.dtype, input.place)
    # C[t, u] = sum_{k < u} emit[t, k] (exclusive cumulative sum along u)
    before = _F.concat([zero_column, _F.cumsum(emit, 2)], 2) if positions > 1 else zero_column   # [B, T, U + 1]
    rows = [_F.squeeze(_F.slice(before, [1], [0], [1]), [1])]                   # alpha(0, u)
    for t in range(1, frames):
        c_t = _F.squeeze(_F.slice(before, [1], [t], [t + 1]), [1])
        from_below = _F.add(rows[-1], _F.squeeze(_F.slice(blank_lp, [1], [t - 1], [t]), [1]))
        rows.append(_F.add(c_t, _F.logcumsumexp(_F.subtract(from_below, c_t), 1)))
    alpha = _F.stack(rows, 1)                                                             # [B, T, U + 1]
    frame = _F.subtract(_int64(input_lengths), _F.ones([batch], DataType.INT64, input.place))
    last = _F.add(_F.multiply(frame, _F.full([batch], positions, DataType.INT64, input.place)), _int64(label_lengths))
    last = _F.unsqueeze(last, [1])                                    # flat index of (T_b - 1, U_b)
    total = _F.add(alpha, blank_lp)
    loss = _F.neg(_F.squeeze(_F.take_along_axis(_F.reshape(total, [batch, frames * positions]), last, 1), [1]))
    return reduce_loss(fn, loss, reduction)
