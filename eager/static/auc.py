"""``paddle.static.auc`` as Paddle 2.6.2 runs it in dygraph mode: its statistics
are made anew (zeros) at each call, so both AUCs are those of this batch, and the
statistics come back as Paddle's ``auc`` op leaves them.

>>> p = eager.to_tensor([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]])
>>> auc, batch_auc, stats = eager.static.auc(p, eager.to_tensor([[0], [1], [1], [0]]))
>>> float(auc)
0.75
"""
from __future__ import annotations

import numbers

import numpy as np

from phi.common import DataType

from ..arguments import describe
from ..creation import to_tensor
from ..metric.metrics import roc_area
from ..tensor import Tensor

_PREDICT_TYPES = frozenset({DataType.FLOAT32, DataType.FLOAT64})
_LABEL_TYPES = frozenset({DataType.INT32, DataType.INT64})


def _check_int(who: str, arg: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{who}: argument '{arg}' expected an int >= {minimum}, got {value!r}")
    return int(value)


def auc(input, label, curve="ROC", num_thresholds=2**12 - 1, topk=1, slide_steps=1, ins_tag_weight=None):
    """Paddle's ``paddle.static.auc`` in dygraph mode. ``input``: [N, 2] (or
    [N, 1]) float probabilities in [0, 1], the last column the positive class's;
    ``label``: N int labels (> 0 positive, 0 negative, others not counted). Each
    prediction goes to bucket ``int(p * num_thresholds)``. Returns ``(auc_out,
    batch_auc_out, [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg])``: two
    float64 0-d tensors (equal: the statistics start at zero in each call) and the
    int64 bucket counts (the batch ones in ``slide_steps + 1`` rows of
    ``num_thresholds + 1`` plus a step counter, or ``[1, num_thresholds + 1]`` with
    ``slide_steps=0``; the global ones ``[1, num_thresholds + 1]``). As in Paddle
    2.6.2, ``curve``, ``topk`` and ``ins_tag_weight`` are accepted and change nothing."""
    who = "auc"
    if not isinstance(input, Tensor):
        raise TypeError(f"{who}: argument 'input' expected a Tensor, got {describe(input)}")
    if not isinstance(label, Tensor):
        raise TypeError(f"{who}: argument 'label' expected a Tensor, got {describe(label)}")
    if input.impl.dtype not in _PREDICT_TYPES:
        raise TypeError(f"{who}: argument 'input' expected a float32 or float64 Tensor, got {input.dtype}")
    if label.impl.dtype not in _LABEL_TYPES:
        raise TypeError(f"{who}: argument 'label' expected an int32 or int64 Tensor, got {label.dtype}")
    if ins_tag_weight is not None and (not isinstance(ins_tag_weight, Tensor)
                                       or ins_tag_weight.impl.dtype not in _PREDICT_TYPES):
        raise TypeError(f"{who}: argument 'ins_tag_weight' expected None or a float32/float64 Tensor, got "
                        f"{describe(ins_tag_weight)}")
    num_thresholds = _check_int(who, "num_thresholds", num_thresholds, 1)
    slide_steps = _check_int(who, "slide_steps", slide_steps, 0)
    if input.ndim != 2 or input.shape[1] not in (1, 2):
        raise ValueError(f"{who}: argument 'input' expected shape [N, 2] or [N, 1] (binary classification), "
                         f"got {input.shape}")
    batch = input.shape[0]
    if label.size != batch or label.ndim not in (1, 2):
        raise ValueError(f"{who}: argument 'label' expected {batch} labels (shape [{batch}] or [{batch}, 1]), "
                         f"got shape {label.shape}")
    scores = input.numpy()[:, -1]
    if not np.all((scores >= 0) & (scores <= 1)):
        raise ValueError(f"{who}: argument 'input' expected probabilities in [0, 1], got values from "
                         f"{scores.min()} to {scores.max()}")
    labels = label.numpy().reshape(-1)
    buckets = (scores * num_thresholds).astype(np.int64)
    length = num_thresholds + 1
    pos = np.bincount(buckets[labels > 0], minlength=length).astype(np.int64)
    neg = np.bincount(buckets[labels == 0], minlength=length).astype(np.int64)
    value = roc_area(pos, neg) or 0.0  # Paddle's op leaves 0 when a class is missing
    if slide_steps:
        # Paddle's layout: slide_steps rows of per-step counts (this call's in the first),
        # their running sum, then the step counter (1 after this step)
        batch_pos = np.zeros((slide_steps + 1) * length + 1, np.int64)
        batch_neg = np.zeros_like(batch_pos)
        for stats, counts in ((batch_pos, pos), (batch_neg, neg)):
            stats[:length] = counts
            stats[slide_steps * length:(slide_steps + 1) * length] = counts
            stats[-1] = 1
    else:
        batch_pos, batch_neg = pos.reshape(1, length), neg.reshape(1, length)
    place = input.place
    stats = [to_tensor(array, place=place) for array in
             (batch_pos, batch_neg, pos.reshape(1, length), neg.reshape(1, length))]
    auc_out = to_tensor(np.float64(value), place=place)
    batch_auc_out = to_tensor(np.float64(value), place=place)
    return auc_out, batch_auc_out, stats


__all__ = ["auc"]
