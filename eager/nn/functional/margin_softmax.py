"""Margin softmax for face recognition (Paddle's ``paddle.nn.functional``):
margin_cross_entropy (ArcFace / CosFace / SphereFace margins) and
class_center_sample (PartialFC's sampling of class centers).

Both run in one process: Paddle's model-parallel ``group`` is not supported
(``group`` must be None or False). margin_cross_entropy composes differentiable
ops (acos, cos, log_softmax, take_along_axis), so gradients of every order come
from the ops' own rules; its label values are checked on the CPU (on a GPU only
in anomaly mode). class_center_sample reads the labels: its result's size
depends on them.
"""
from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType

from ...creation import to_tensor
from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import (as_int64, check_float, check_integer, check_number, check_positive_int, check_reduction,
                     reads_values, reduce_loss, value_range)

__all__ = ["class_center_sample", "margin_cross_entropy"]


def _single_process(fn: str, group) -> None:
    if group is not None and group is not False:
        raise ValueError(f"{fn}: argument 'group' expected None or False (eager runs it in one process; the "
                         f"model-parallel form over a communication group is not supported), got {group!r}")


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
    check_integer(fn, "label", label)
    m1, m2, m3, s = (check_number(fn, a, v) for a, v in (("margin1", margin1), ("margin2", margin2),
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
        low, high = value_range(label)
        if low < 0 or high >= classes:
            raise ValueError(f"{fn}: argument 'label' expected class indices in [0, {classes}), got values in "
                             f"[{low}, {high}]")
    column = as_int64(_F.reshape(label, [rows, 1]))
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
    check_integer(fn, "label", label)
    for arg, value in (("num_classes", num_classes), ("num_samples", num_samples)):
        check_positive_int(fn, arg, value, ValueError)
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
