"""Sequence and video helpers (Paddle's ``paddle.nn.functional.extension``):
sequence_mask, temporal_shift, gather_tree.

Compositions of ops: temporal_shift is pads, slices and a concat, so its
gradients of every order come from theirs; sequence_mask and gather_tree give
integer or boolean results and are not differentiable.
"""
from __future__ import annotations

import numbers

from phi.common.data_type import INTEGER_TYPES, DataType
from phi.core.errors import ArgumentKindError

from ...arguments import describe, to_dtype
from ... import tensor_api as _tensor_api
from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import check_float, check_integer, check_tensor, reads_values, value_range

# the dtypes Paddle's sequence_mask kernel is registered for (int8/int16/uint8 lengths have none)
_LENGTH_TYPES = frozenset({DataType.INT32, DataType.INT64, DataType.FLOAT32, DataType.FLOAT64})


def sequence_mask(x: Tensor, maxlen=None, dtype="int64", name=None) -> Tensor:
    """The mask of sequences of lengths ``x``: ``out[..., j] = j < x[...]``, of shape
    ``x.shape + [maxlen]`` and dtype ``dtype``. ``maxlen`` (a non-zero int or a
    1-element Tensor) defaults to the largest length in x (truncated to an int for float
    lengths; also when negative), which reads
    x's values (on a GPU, a wait for the device, as in Paddle).

    >>> eager.nn.functional.sequence_mask(eager.to_tensor([1, 3]), maxlen=4).numpy()
    array([[1, 0, 0, 0],
           [1, 1, 1, 0]])
    """
    fn = "sequence_mask"
    check_tensor(fn, "x", x)
    if x.dtype not in _LENGTH_TYPES:    # Paddle's kernel takes float32/float64 lengths too: j < x[...]
        raise TypeError(f"{fn}: argument 'x' expected an int32/int64/float32/float64 Tensor of lengths, got "
                        f"{x.dtype}{x.shape}")
    out_dtype = to_dtype(dtype, fn, "dtype")
    if isinstance(maxlen, Tensor):
        if maxlen.numel() != 1 or maxlen.dtype not in INTEGER_TYPES:
            raise TypeError(f"{fn}: argument 'maxlen' expected an int or an integer Tensor of one element, got "
                            f"{maxlen.dtype}{maxlen.shape}")
        maxlen = int(maxlen.numpy().reshape(-1)[0])
    elif maxlen is not None and (isinstance(maxlen, bool) or not isinstance(maxlen, numbers.Integral)):
        raise TypeError(f"{fn}: argument 'maxlen' expected an int, a Tensor or None, got {describe(maxlen)}")
    if maxlen == 0:  # Paddle's op refuses it: 0 is neither a width nor "the largest length" (< 0)
        raise ValueError(f"{fn}: argument 'maxlen' expected a positive int, or a negative one or None for the "
                         f"largest length, got 0")
    if maxlen is None or maxlen < 0:  # as Paddle's op: a negative maxlen means the largest length
        maxlen = max(int(_F.max(x).numpy()), 0) if x.numel() else 0
    positions = _F.arange(0, maxlen, 1, x.dtype, x.place)
    return _F.cast(_F.less_than(positions, _F.unsqueeze(x, [-1])), out_dtype)


def temporal_shift(x: Tensor, seg_num: int, shift_ratio: float = 0.25, name=None,
                   data_format: str = "NCHW") -> Tensor:
    """The temporal shift of TSM: x [N*T, C, H, W] (or NHWC) is seen as N clips
    of T = ``seg_num`` frames; the first ``int(C * shift_ratio)`` channels of
    each frame take the previous frame's values, the next ones up to
    ``int(C * 2 * shift_ratio)`` the following frame's (zeros past either end),
    and the rest stay.

    >>> x = eager.arange(12, dtype="float32").reshape([3, 4, 1, 1])  # one clip: 3 frames of 4 channels
    >>> eager.nn.functional.temporal_shift(x, 3, shift_ratio=0.25).reshape([3, 4]).numpy()
    array([[ 0.,  5.,  2.,  3.],
           [ 0.,  9.,  6.,  7.],
           [ 4.,  0., 10., 11.]], dtype=float32)
    """
    fn = "temporal_shift"
    check_float(fn, "x", x)
    if not isinstance(data_format, str) or data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{fn}: argument 'data_format' expected 'NCHW' or 'NHWC', got {data_format!r}")
    if x.ndim != 4:
        raise ValueError(f"{fn}: argument 'x' expected a 4-d tensor [N*T, C, H, W] ({data_format}), got shape "
                         f"{x.shape}")
    if isinstance(seg_num, bool) or not isinstance(seg_num, numbers.Integral):
        # Paddle's argument parser raises ValueError for a float: ArgumentKindError is that and a TypeError
        raise ArgumentKindError(f"{fn}: argument 'seg_num' expected a positive int, got {seg_num!r}")
    if seg_num <= 0:
        raise ValueError(f"{fn}: argument 'seg_num' expected a positive int, got {seg_num!r}")
    # Paddle's InferMeta takes 0 < shift_ratio < 0.5 (open at both ends)
    if isinstance(shift_ratio, bool) or not isinstance(shift_ratio, numbers.Real) or not 0 < shift_ratio < 0.5:
        raise ValueError(f"{fn}: argument 'shift_ratio' expected a number in (0, 0.5), got {shift_ratio!r}")
    seg_num = int(seg_num)
    nt = x.shape[0]
    if nt % seg_num:
        raise ValueError(f"{fn}: argument 'seg_num' ({seg_num}) must divide the first dimension of x "
                         f"(shape {x.shape})")
    channel_last = data_format == "NHWC"
    c = x.shape[3] if channel_last else x.shape[1]
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    if 0 in x.shape or c2 == 0:
        return _F.assign(x)
    rest = list(x.shape[1:])
    clips = _F.reshape(x, [nt // seg_num, seg_num] + rest)         # [N, T, ...]
    padded = _F.pad(clips, [0, 0, 1, 1] + [0, 0] * 3, 0.0)         # [N, T + 2, ...]: zeros before and after
    caxis = 4 if channel_last else 2

    def part(t_start, c_start, c_end):
        return _F.slice(padded, [1, caxis], [t_start, c_start], [t_start + seg_num, c_end])

    pieces = [part(0, 0, c1), part(2, c1, c2)]                     # previous frame, next frame
    if c2 < c:
        pieces.append(part(1, c2, c))                              # unchanged
    return _F.reshape(_F.concat(pieces, caxis), [nt] + rest)


def gather_tree(ids: Tensor, parents: Tensor) -> Tensor:
    """The full beams of a beam search, traced back from the last step.

    ``ids`` and ``parents``: integer [max_time, batch_size, beam_size], the id
    chosen at each step and the beam it extended. ``out[T-1] = ids[T-1]``; going
    back, ``out[t, b, k] = ids[t, b, p]`` with p the beam that ``out[t+1, b, k]``
    came from (p = parents[T-1, b, k] at first, then parents[t, b, p]).
    Parents outside [0, beam_size) raise on the CPU (on a GPU in anomaly mode
    only: elsewhere the check would wait for the device).

    >>> ids = eager.to_tensor([[[2, 3]], [[4, 5]]])          # T = 2, batch 1, beam 2
    >>> parents = eager.to_tensor([[[0, 0]], [[1, 0]]])
    >>> eager.nn.functional.gather_tree(ids, parents).numpy().tolist()
    [[[3, 2]], [[4, 5]]]
    """
    fn = "gather_tree"
    for arg, value in (("ids", ids), ("parents", parents)):
        check_integer(fn, arg, value)
    if ids.ndim != 3:
        raise ValueError(f"{fn}: argument 'ids' expected a 3-d tensor [max_time, batch_size, beam_size], got "
                         f"shape {ids.shape}")
    if parents.shape != ids.shape or parents.dtype != ids.dtype:
        raise ValueError(f"{fn}: argument 'parents' expected the shape and dtype of 'ids' {ids.dtype}{ids.shape}, "
                         f"got {parents.dtype}{parents.shape}")
    steps = ids.shape[0]
    if steps == 0 or 0 in ids.shape:
        return _F.assign(ids)
    beam = ids.shape[2]
    if steps > 1 and reads_values(parents):
        low, high = value_range(parents[1:])
        if low < 0 or high >= beam:
            raise ValueError(f"{fn}: argument 'parents' expected values in [0, {beam}) (the beam size), got values "
                             f"in [{low}, {high}]")
    out = [ids[steps - 1]]
    parent = parents[steps - 1]                                     # [batch, beam]
    for t in range(steps - 2, -1, -1):
        out.append(_F.take_along_axis(ids[t], parent, 1))
        if t:
            parent = _F.take_along_axis(parents[t], parent, 1)
    return _F.stack(out[::-1], 0)


# Paddle 2.x keeps paddle.diag_embed here too: the same op, differentiable.
diag_embed = _tensor_api.diag_embed

__all__ = ["diag_embed", "gather_tree", "sequence_mask", "temporal_shift"]
