"""Adaptive softmax (Paddle's ``paddle.nn.functional.adaptive_log_softmax_with_loss``):
the log-probability of each sample's class through a head shortlist and per-cluster
tail projections (Grave et al., 2016). A composition of differentiable ops
(matmul, log_softmax, take_along_axis, scatter), so gradients of every order come
from the ops' own rules. Label values are checked on the CPU (on a GPU only in
anomaly mode, where the read would otherwise wait for the device).
"""
from __future__ import annotations

import numbers

from phi.common.data_type import DataType

from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import as_int64, check_float, check_integer, check_tensor, reads_values, value_range

__all__ = ["adaptive_log_softmax_with_loss"]


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
    check_integer(fn, "label", label)
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
        low, high = value_range(label)
        if low < 0 or high >= classes:
            raise ValueError(f"{fn}: argument 'label' expected class indices in [0, {classes}), got values in "
                             f"[{low}, {high}]")
    label = as_int64(label)
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
