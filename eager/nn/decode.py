"""Decoding with a recurrent cell (Paddle's ``paddle.nn.decode``): Decoder, the
interface dynamic_decode drives; BeamSearchDecoder; dynamic_decode.

dynamic_decode calls ``decoder.initialize`` once and ``decoder.step`` until
every sequence is finished (which reads a flag from the device each step, as
Paddle's dygraph loop does) or ``max_step_num`` is passed, stacks the step
outputs along a new time axis and lets ``decoder.finalize`` turn them into the
result. BeamSearchDecoder keeps ``beam_size`` hypotheses per batch entry: each
step it adds the cell's log-probabilities to the hypotheses' scores, keeps the
best ``beam_size`` of the ``beam_size * vocab_size`` extensions, and finalize
traces the kept beams back with :func:`eager.nn.functional.gather_tree`. All of
it is ops on tensors (no array reads besides the loop's flag).
"""
from __future__ import annotations

import collections
import numbers

import numpy as np

from phi.common.data_type import DataType

from ..creation import to_tensor
from ..generated import forward_api as _F
from ..tensor import Tensor
from .functional.extension import gather_tree


def _map(fn, *structures):
    """fn applied to the leaves (Tensors) of equally shaped nested tuples, lists,
    namedtuples and dicts; the result has the structure of the first."""
    first = structures[0]
    if isinstance(first, dict):
        return type(first)((key, _map(fn, *(s[key] for s in structures))) for key in first)
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return type(first)(*(_map(fn, *parts) for parts in zip(*structures)))
    if isinstance(first, (list, tuple)):
        return type(first)(_map(fn, *parts) for parts in zip(*structures))
    return fn(*structures)


def _leaves(structure) -> list:
    if isinstance(structure, dict):
        return [leaf for key in structure for leaf in _leaves(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [leaf for part in structure for leaf in _leaves(part)]
    return [structure]


class Decoder:
    """The interface :func:`dynamic_decode` drives (Paddle's ``paddle.nn.decode.Decoder``).

    ``initialize(inits)`` returns ``(initial_inputs, initial_states, finished)``;
    ``step(time, inputs, states, **kwargs)`` returns ``(outputs, next_states,
    next_inputs, finished)``; ``finalize(outputs, final_states,
    sequence_lengths)`` may turn the stacked outputs into the result (the
    default returns them as they are). ``tracks_own_finished`` says whether
    step's ``finished`` already accounts for sequences finished earlier (then
    dynamic_decode takes the lengths from ``next_states.lengths``).
    """

    tracks_own_finished = False

    def initialize(self, inits):
        """(initial_inputs, initial_states, finished); subclasses define it."""
        raise TypeError(f"{type(self).__name__} must define initialize(inits) to be decoded")

    def step(self, time, inputs, states, **kwargs):
        """(outputs, next_states, next_inputs, finished); subclasses define it."""
        raise TypeError(f"{type(self).__name__} must define step(time, inputs, states) to be decoded")

    def finalize(self, outputs, final_states, sequence_lengths):
        """The stacked outputs and final states, unchanged."""
        return outputs, final_states


class BeamSearchDecoder(Decoder):
    """Beam search over the outputs of ``cell`` (Paddle's ``paddle.nn.BeamSearchDecoder``).

    ``cell(inputs, states)`` returns ``(outputs, new_states)`` for a batch of
    ``batch_size * beam_size`` rows; ``output_fn`` (e.g. a Linear) maps the
    outputs to logits over the vocabulary, ``embedding_fn`` maps chosen token ids
    [batch_size, beam_size] to the next inputs (without it the ids themselves
    are the inputs). ``start_token`` begins every hypothesis, ``end_token``
    finishes one: a finished hypothesis only extends with ``end_token`` at no
    cost. Initial cell states are [batch_size, ...]; :meth:`initialize` tiles
    them over the beams. Step outputs are ``OutputWrapper(scores,
    predicted_ids, parent_ids)``, states ``StateWrapper(cell_states,
    log_probs, finished, lengths)``; decoded with :func:`dynamic_decode`, the
    result is the traced-back token ids [batch_size, time, beam_size].

    >>> class Toy(eager.nn.Layer):      # next-token logits that ignore the state
    ...     def forward(self, inputs, states):
    ...         return eager.nn.functional.one_hot(inputs, 4) * 2.0 + 1.0, states
    >>> decoder = eager.nn.BeamSearchDecoder(Toy(), start_token=0, end_token=3, beam_size=2)
    >>> ids, states = eager.nn.dynamic_decode(decoder, inits=eager.zeros([1, 1]), max_step_num=3)
    >>> ids.shape, ids[0, :, 0].tolist()   # repeating the last token scores best
    ([1, 4, 2], [0, 0, 0, 0])
    """

    OutputWrapper = collections.namedtuple("OutputWrapper", ("scores", "predicted_ids", "parent_ids"))
    StateWrapper = collections.namedtuple("StateWrapper", ("cell_states", "log_probs", "finished", "lengths"))
    tracks_own_finished = True
    kinf = 1e9

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None, output_fn=None):
        who = type(self).__name__
        if not callable(cell):
            raise TypeError(f"{who}: argument 'cell' expected a callable (an RNN cell), got {type(cell).__name__}")
        for arg, value in (("start_token", start_token), ("end_token", end_token)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
                raise TypeError(f"{who}: argument '{arg}' expected a non-negative int, got {value!r}")
        if isinstance(beam_size, bool) or not isinstance(beam_size, numbers.Integral) or beam_size < 1:
            raise ValueError(f"{who}: argument 'beam_size' expected a positive int, got {beam_size!r}")
        for arg, value in (("embedding_fn", embedding_fn), ("output_fn", output_fn)):
            if value is not None and not callable(value):
                raise TypeError(f"{who}: argument '{arg}' expected a callable or None, got {type(value).__name__}")
        self.cell, self.embedding_fn, self.output_fn = cell, embedding_fn, output_fn
        self.start_token, self.end_token, self.beam_size = int(start_token), int(end_token), int(beam_size)
        self.batch_size = None

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """x [batch_size, ...] repeated per beam into [batch_size * beam_size, ...]
        (each entry's copies adjacent), as the cell sees its inputs."""
        if not isinstance(x, Tensor) or x.ndim < 1:
            raise TypeError(f"BeamSearchDecoder.tile_beam_merge_with_batch: argument 'x' expected a Tensor of at "
                            f"least 1 dimension, got {x!r}")
        tiled = _F.tile(_F.unsqueeze(x, [1]), [1, int(beam_size)] + [1] * (x.ndim - 1))
        return _F.reshape(tiled, [x.shape[0] * int(beam_size)] + x.shape[1:])

    def _split_batch_beams(self, x):
        return _F.reshape(x, [self.batch_size, self.beam_size] + x.shape[1:])

    def _merge_batch_beams(self, x):
        return _F.reshape(x, [self.batch_size * self.beam_size] + x.shape[2:])

    def _expand_to_beam_size(self, x):
        return _F.tile(_F.unsqueeze(x, [1]), [1, self.beam_size] + [1] * (x.ndim - 1))

    def _gather(self, x, indices):
        """x [batch, beam, ...] with its beams picked by indices [batch, beam]."""
        offsets = to_tensor(np.arange(self.batch_size, dtype=np.int64)[:, None] * self.beam_size, place=x.place)
        flat = _F.reshape(_F.add(indices, offsets), [self.batch_size * self.beam_size])
        picked = _F.gather(_F.reshape(x, [self.batch_size * self.beam_size] + x.shape[2:]), flat, 0)
        return _F.reshape(picked, x.shape)

    def initialize(self, initial_cell_states):
        """The start tokens (embedded), the initial beam state (only beam 0 alive:
        the others start at score -1e9) and the finished flags, all False."""
        leaves = _leaves(initial_cell_states)
        if not leaves or not all(isinstance(leaf, Tensor) and leaf.ndim >= 1 for leaf in leaves):
            raise TypeError(f"{type(self).__name__}.initialize: argument 'initial_cell_states' expected Tensors "
                            f"[batch_size, ...] (or a structure of them), got {initial_cell_states!r}")
        self.batch_size = leaves[0].shape[0]
        place = leaves[0].place
        cell_states = _map(self._expand_to_beam_size, initial_cell_states)
        inputs = _F.full([self.batch_size, self.beam_size], self.start_token, DataType.INT64, place)
        first = np.full([self.batch_size, self.beam_size], -self.kinf, dtype=np.float32)  # float32, as Paddle
        first[:, 0] = 0.0
        log_probs = to_tensor(first, place=place)
        finished = _F.full([self.batch_size, self.beam_size], False, DataType.BOOL, place)
        lengths = _F.full([self.batch_size, self.beam_size], 0, DataType.INT64, place)
        if self.embedding_fn is not None:
            inputs = self.embedding_fn(inputs)
        return inputs, self.StateWrapper(cell_states, log_probs, finished, lengths), finished

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        vocab = logits.shape[-1]
        step_log_probs = _F.log_softmax(logits, -1)                           # [batch, beam, vocab]
        finished = _F.cast(_F.unsqueeze(beam_state.finished, [2]), logits.dtype)
        no_end = np.full([vocab], -self.kinf, dtype=logits.dtype.numpy_dtype)
        no_end[self.end_token] = 0.0
        no_end = to_tensor(no_end, place=logits.place)
        # a finished hypothesis only extends with end_token, at no cost
        step_log_probs = _F.add(_F.multiply(step_log_probs, _F.scale(finished, -1.0, 1.0, True)),
                                _F.multiply(finished, no_end))
        previous = beam_state.log_probs
        if previous.dtype != logits.dtype:
            previous = _F.cast(previous, logits.dtype)
        scores = _F.reshape(_F.add(step_log_probs, _F.unsqueeze(previous, [2])), [self.batch_size, -1])
        top_scores, top_indices = _F.topk(scores, self.beam_size, -1, True, True)
        vocab_tensor = _F.full_like(top_indices, vocab, None)
        beam_indices = _F.floor_divide(top_indices, vocab_tensor)
        token_indices = _F.remainder(top_indices, vocab_tensor)
        next_cell_states = _map(lambda x: self._gather(x, beam_indices), next_cell_states)
        next_finished = self._gather(beam_state.finished, beam_indices)
        next_lengths = self._gather(beam_state.lengths, beam_indices)
        next_lengths = _F.add(next_lengths, _F.cast(_F.logical_not(next_finished), DataType.INT64))
        next_finished = _F.logical_or(next_finished, _F.equal(token_indices, _F.full_like(token_indices,
                                                                                           self.end_token, None)))
        output = self.OutputWrapper(top_scores, token_indices, beam_indices)
        state = self.StateWrapper(next_cell_states, top_scores, next_finished, next_lengths)
        return output, state

    def step(self, time, inputs, states, **kwargs):
        """One beam-search step: the cell on every hypothesis, then the best
        beam_size extensions per batch entry."""
        inputs = _map(self._merge_batch_beams, inputs)
        cell_states = _map(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = _map(self._split_batch_beams, cell_outputs)
        next_cell_states = _map(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        output, state = self._beam_search_step(time, cell_outputs, next_cell_states, states)
        sample_ids = output.predicted_ids
        sample_ids.stop_gradient = True
        next_inputs = self.embedding_fn(sample_ids) if self.embedding_fn is not None else sample_ids
        return output, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        """The token ids of the kept beams traced back through their parents
        ([time, batch_size, beam_size]), and the final states."""
        return gather_tree(outputs.predicted_ids, outputs.parent_ids), final_states


def dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False, impute_finished=False,
                   is_test=False, return_length=False, **kwargs):
    """Runs ``decoder`` step by step until every sequence is finished or
    ``max_step_num`` is passed (at most max_step_num + 1 steps, as Paddle's loop);
    returns ``(outputs, final_states)`` and, with ``return_length``, the
    sequence lengths. Outputs are stacked along time, batch-major ([batch, time,
    ...]) unless ``output_time_major``. For a decoder that does not track its own
    finished flags, lengths count the steps before each sequence finished and
    ``impute_finished`` keeps a finished sequence's states as they were.
    ``is_test`` is accepted (a memory hint in Paddle's static graph). ``kwargs``
    go to ``decoder.step``.

    >>> class Toy(eager.nn.Layer):
    ...     def forward(self, inputs, states):
    ...         return eager.nn.functional.one_hot(inputs, 3) * 2.0 + 1.0, states
    >>> decoder = eager.nn.BeamSearchDecoder(Toy(), start_token=2, end_token=2, beam_size=1)
    >>> ids, _, lengths = eager.nn.dynamic_decode(decoder, eager.zeros([2, 1]), return_length=True)
    >>> ids.tolist(), lengths.tolist()      # the end token scores best: done after one step
    ([[[2]], [[2]]], [[1], [1]])
    """
    who = "dynamic_decode"
    if not isinstance(decoder, Decoder):
        raise TypeError(f"{who}: argument 'decoder' expected a Decoder (e.g. BeamSearchDecoder), got "
                        f"{type(decoder).__name__}")
    if max_step_num is not None and (isinstance(max_step_num, bool) or not isinstance(max_step_num, numbers.Integral)
                                     or max_step_num < 0):
        raise ValueError(f"{who}: argument 'max_step_num' expected None or an int >= 0, got {max_step_num!r}")
    for arg, value in (("output_time_major", output_time_major), ("impute_finished", impute_finished),
                       ("is_test", is_test), ("return_length", return_length)):
        if not isinstance(value, bool):
            raise TypeError(f"{who}: argument '{arg}' expected a bool, got {value!r}")

    def keep_finished(state, new_state, done):
        """state where done (the rows of finished sequences), new_state elsewhere."""
        mask = _F.reshape(done, done.shape + [1] * (state.ndim - done.ndim))
        return _F.where(mask, state, new_state)

    inputs, states, finished = decoder.initialize(inits)
    lengths = _F.cast(_F.zeros_like(finished), DataType.INT64)
    steps = []
    step = 0
    time = _F.full([1], 0, DataType.INT64, finished.place)
    while not bool(_F.all(finished).numpy()):
        outputs, next_states, next_inputs, next_finished = decoder.step(time, inputs, states, **kwargs)
        if not decoder.tracks_own_finished:
            next_finished = _F.logical_or(next_finished, finished)
            next_lengths = _F.add(lengths, _F.cast(_F.logical_not(finished), DataType.INT64))
            if impute_finished:
                next_states = _map(lambda old, new: keep_finished(old, new, finished), states, next_states)
        else:
            next_lengths = getattr(next_states, "lengths", lengths)
        steps.append(outputs)
        inputs, states, finished, lengths = next_inputs, next_states, next_finished, next_lengths
        step += 1
        time = _F.full([1], step, DataType.INT64, finished.place)
        if max_step_num is not None and step > max_step_num:
            break
    if not steps:
        raise ValueError(f"{who}: every sequence was finished before the first step (decoder.initialize returned "
                         f"finished flags all True)")
    final_outputs = _map(lambda *xs: _F.stack(list(xs), 0), *steps)
    final_outputs, final_states = decoder.finalize(final_outputs, states, lengths)
    if not output_time_major:
        final_outputs = _map(lambda x: _F.transpose(x, [1, 0] + list(range(2, x.ndim))), final_outputs)
    return (final_outputs, final_states, lengths) if return_length else (final_outputs, final_states)


__all__ = ["BeamSearchDecoder", "dynamic_decode"]
