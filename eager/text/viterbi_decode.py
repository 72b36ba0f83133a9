"""Viterbi decoding (Paddle's ``paddle.text.viterbi_decode`` and ``ViterbiDecoder``):
the highest-scoring tag path of a linear-chain CRF, given per-step emission scores
and a tag-to-tag transition matrix.

Composed of generated ops (add, max, argmax, where, take_along_axis), so it runs
wherever its inputs live (CPU or GPU); its outputs are indices and a maximum, and
carry no gradient (``stop_gradient=True``), as Paddle's.

>>> import eager
>>> emission = eager.to_tensor([[[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]]])
>>> transition = eager.to_tensor([[0.0, 1.0], [1.0, 0.0]])
>>> scores, path = eager.text.viterbi_decode(emission, transition, eager.to_tensor([3]), False)
>>> float(scores[0]), path.numpy().tolist()
(8.0, [[0, 1, 0]])
"""
from __future__ import annotations

from phi.common import DataType

from ..autograd.grad_mode import no_grad
from ..composite import _paddle_api as _api
from ..generated import forward_api as _F
from ..nn.layer import Layer
from ..tensor import Tensor

__all__ = ["ViterbiDecoder", "viterbi_decode"]

_FN = "viterbi_decode"
_FLOATS = (DataType.FLOAT32, DataType.FLOAT64)


def _check_transitions(fn: str, arg: str, transitions, include_bos_eos_tag) -> int:
    _api.tensor(fn, arg, transitions)
    if transitions.dtype not in _FLOATS:
        raise TypeError(f"{fn}: argument '{arg}' expected a float32 or float64 Tensor, got {transitions.dtype}")
    shape = list(transitions.shape)
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError(f"{fn}: argument '{arg}' expected a square 2-D Tensor [num_tags, num_tags], got shape "
                         f"{shape}")
    if not isinstance(include_bos_eos_tag, bool):
        raise TypeError(f"{fn}: argument 'include_bos_eos_tag' expected a bool, got "
                        f"{type(include_bos_eos_tag).__name__} {include_bos_eos_tag!r}")
    if include_bos_eos_tag and shape[0] < 2:
        raise ValueError(f"{fn}: include_bos_eos_tag=True needs at least 2 tags (the last two are the start and "
                         f"stop tags), got '{arg}' of shape {shape}")
    return shape[0]


def _check(potentials, transition_params, lengths, include_bos_eos_tag):
    num_tags = _check_transitions(_FN, "transition_params", transition_params, include_bos_eos_tag)
    _api.tensor(_FN, "potentials", potentials)
    if potentials.dtype not in _FLOATS:
        raise TypeError(f"{_FN}: argument 'potentials' expected a float32 or float64 Tensor, got {potentials.dtype}")
    shape = list(potentials.shape)
    if len(shape) != 3:
        raise ValueError(f"{_FN}: argument 'potentials' expected a 3-D Tensor [batch_size, sequence_length, "
                         f"num_tags], got shape {shape}")
    if potentials.dtype != transition_params.dtype:
        raise TypeError(f"{_FN}: arguments 'potentials' ({potentials.dtype}) and 'transition_params' "
                        f"({transition_params.dtype}) expected the same dtype")
    if shape[2] != num_tags:
        raise ValueError(f"{_FN}: argument 'potentials' has {shape[2]} tags (its last axis) but "
                         f"'transition_params' is {num_tags}x{num_tags}")
    if shape[1] == 0:
        raise ValueError(f"{_FN}: argument 'potentials' expected at least one step, got shape {shape}")
    _api.tensor(_FN, "lengths", lengths)
    if lengths.dtype not in (DataType.INT32, DataType.INT64):
        raise TypeError(f"{_FN}: argument 'lengths' expected an int64 (or int32) Tensor, got {lengths.dtype}")
    if list(lengths.shape) != shape[:1]:
        raise ValueError(f"{_FN}: argument 'lengths' expected shape [{shape[0]}] (one length per sequence), got "
                         f"{list(lengths.shape)}")
    if shape[0] == 0:
        return 0
    low, high = int(_F.min(lengths)), int(_F.max(lengths))
    if low < 0 or high > shape[1]:
        raise ValueError(f"{_FN}: argument 'lengths' expected values in [0, {shape[1]}] (the sequence_length of "
                         f"'potentials'), got values from {low} to {high}")
    return high


def _decode(potentials: Tensor, transitions: Tensor, lengths: Tensor, bos_eos: bool, max_len: int):
    num_tags = transitions.shape[0]
    lengths = _F.cast(lengths, DataType.INT64)
    steps = _F.transpose(potentials, [1, 0, 2])  # [sequence_length, batch, num_tags]
    alpha = steps[0]
    if bos_eos:
        # Row num_tags-1 scores leaving the start tag; row num_tags-2 scores the stop tag
        # added after a sequence's last step (Paddle's kernel reads both as rows).
        start, stop = transitions[num_tags - 1], transitions[num_tags - 2]
        alpha = alpha + start
        alpha = _F.where(_F.unsqueeze(lengths == 1, [1]), alpha + stop, alpha)
    history = []
    for i in range(1, max_len):
        scores = _F.unsqueeze(alpha, [2]) + transitions  # [batch, from, to]
        history.append(_F.argmax(scores, axis=1))
        moved = _F.max(scores, axis=1) + steps[i]
        alpha = _F.where(_F.unsqueeze(lengths > i, [1]), moved, alpha)
        if bos_eos:
            alpha = _F.where(_F.unsqueeze(lengths == i + 1, [1]), alpha + stop, alpha)
    best = _F.max(alpha, axis=1)
    last = _F.argmax(alpha, axis=1)
    if max_len == 0:
        return best, _F.zeros([lengths.shape[0], 0], DataType.INT64)
    zero = _F.zeros_like(last)
    path = [_F.where(lengths == max_len, last, zero)]
    for i in range(max_len - 1, 0, -1):
        # Position i-1: before a sequence's end it follows the back-pointer of step i;
        # at its end it is the best last tag; past its end (padding) it is 0.
        back = _F.squeeze(_F.take_along_axis(history[i - 1], _F.unsqueeze(last, [1]), 1), [1])
        inside = lengths > i
        path.append(_F.where(inside, back, _F.where(lengths == i, last, zero)))
        last = _F.where(inside, back, last)
    return best, _F.stack(path[::-1], axis=1)


@_api.composed
def viterbi_decode(potentials, transition_params, lengths, include_bos_eos_tag=True, name=None):
    """The best-scoring tag sequence of each batch entry and its score (Viterbi).

    ``potentials``: [batch_size, sequence_length, num_tags] float32/float64 emission
    scores; ``transition_params``: [num_tags, num_tags] of the same dtype, entry
    ``[i, j]`` scoring tag i followed by tag j; ``lengths``: [batch_size] int64, each
    in [0, sequence_length]. With ``include_bos_eos_tag`` the last tag is the start
    tag (its row is added at the first step) and the second-to-last the stop tag (its
    row is added after a sequence's last step).

    Returns ``(scores, paths)``: scores [batch_size] of potentials' dtype, paths
    [batch_size, max(lengths)] int64, 0 past a sequence's length.

    >>> import eager
    >>> emission = eager.rand([2, 4, 3])
    >>> scores, path = eager.text.viterbi_decode(emission, eager.rand([3, 3]), eager.to_tensor([4, 2]))
    >>> scores.shape, path.shape
    ([2], [2, 4])
    """
    max_len = _check(potentials, transition_params, lengths, include_bos_eos_tag)
    with no_grad():
        return _decode(potentials, transition_params, lengths, include_bos_eos_tag, max_len)


class ViterbiDecoder(Layer):
    """A layer holding a transition matrix that decodes with :func:`viterbi_decode`:
    ``decoder(potentials, lengths)`` returns ``(scores, paths)``.

    >>> import eager
    >>> decoder = eager.text.ViterbiDecoder(eager.rand([3, 3]), include_bos_eos_tag=False)
    >>> scores, path = decoder(eager.rand([2, 4, 3]), eager.to_tensor([4, 2]))
    >>> path.shape
    [2, 4]
    """

    def __init__(self, transitions, include_bos_eos_tag=True, name=None):
        super().__init__()
        _check_transitions(type(self).__name__, "transitions", transitions, include_bos_eos_tag)
        self.transitions = transitions
        self.include_bos_eos_tag = include_bos_eos_tag
        self.name = name

    def forward(self, potentials, lengths):
        """``(scores, paths)`` of :func:`viterbi_decode` with this layer's transitions."""
        return viterbi_decode(potentials, self.transitions, lengths, self.include_bos_eos_tag, self.name)
