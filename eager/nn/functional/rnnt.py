"""RNN-Transducer loss (Paddle's ``paddle.nn.functional.rnnt_loss``), Graves
(2012): the forward variable over every alignment of the label with the input
frames, one frame at a time, the label axis as a cumulative log-sum-exp. A
composition of differentiable ops (log_softmax, take_along_axis, logcumsumexp),
so gradients of every order come from the ops' own rules. Lengths and label
values are checked on the CPU (on a GPU only in anomaly mode, where the read
would otherwise wait for the device).

The module is ``rnnt``, not ``rnnt_loss``: the package's name ``rnnt_loss`` is
the function.
"""
from __future__ import annotations

import numbers

from phi.common.data_type import DataType

from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import (as_int64, check_float, check_integer, check_number, check_reduction, reads_values,
                     reduce_loss, value_range)

__all__ = ["rnnt_loss"]


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
        check_integer(fn, arg, value)
    check_reduction(fn, reduction)
    lam = check_number(fn, "fastemit_lambda", fastemit_lambda)
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
            got = value_range(value)
            if got[0] < low or got[1] > high:
                raise ValueError(f"{fn}: argument '{arg}' expected values in [{low}, {high}], got values in "
                                 f"[{got[0]}, {got[1]}]")
        if label.numel():   # the labels within each sample's label_length (the padding may hold anything)
            inside = _F.less_than(_F.unsqueeze(_F.arange(0, positions - 1, 1, DataType.INT64, label.place), [0]),
                                  _F.unsqueeze(as_int64(label_lengths), [1]))
            used = _F.masked_select(as_int64(label), inside)
            got = value_range(used) if used.numel() else (0, 0)
            if got[0] < 0 or got[1] >= classes:
                raise ValueError(f"{fn}: argument 'label' expected class indices in [0, {classes}) within "
                                 f"label_lengths, got values in [{got[0]}, {got[1]}]")
    if batch == 0 or frames == 0:
        raise ValueError(f"{fn}: argument 'input' expected a non-empty batch and time axis, got shape {input.shape}")
    log_p = _F.log_softmax(input, -1)
    blank_lp = _F.squeeze(_F.take_along_axis(
        log_p, _F.full([batch, frames, positions, 1], int(blank), DataType.INT64, input.place), 3), [3])
    # emit[b, t, u] = log p(label[b, u] | t, u) for u < U
    targets = as_int64(label)
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
    frame = _F.subtract(as_int64(input_lengths), _F.ones([batch], DataType.INT64, input.place))
    last = _F.add(_F.multiply(frame, _F.full([batch], positions, DataType.INT64, input.place)), as_int64(label_lengths))
    last = _F.unsqueeze(last, [1])                                    # flat index of (T_b - 1, U_b)
    total = _F.add(alpha, blank_lp)
    loss = _F.neg(_F.squeeze(_F.take_along_axis(_F.reshape(total, [batch, frames * positions]), last, 1), [1]))
    return reduce_loss(fn, loss, reduction)
