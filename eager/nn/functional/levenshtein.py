"""Edit (Levenshtein) distance between batches of token sequences (Paddle's
``paddle.nn.functional.edit_distance``, which Paddle keeps in its ``loss``
module; ``eager.nn.functional.loss`` re-exports it from here).

Composed of ops, batched over the samples: the dynamic-programming table is
built one hypothesis token at a time. Along the reference axis a row's
recursion d[i][j] = min(c[j], d[i][j-1] + 1) (c the substitution/deletion
candidates) is a running minimum of c[k] + (j - k), so each row is one cummin.
The result is a count, not differentiable.
"""
from __future__ import annotations

import numbers

from phi.common.data_type import DataType

from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import as_int64, check_integer, reads_values, value_range

__all__ = ["edit_distance"]


def _lengths(fn: str, arg: str, value, batch: int, longest: int, like: Tensor) -> Tensor:
    """The per-sample lengths as int64 [batch]: every row full when None."""
    if value is None:
        return _F.full([batch], longest, DataType.INT64, like.place)
    check_integer(fn, arg, value)
    if value.shape not in ([batch], [batch, 1]):
        raise ValueError(f"{fn}: argument '{arg}' expected shape [{batch}] (one length per sample), got "
                         f"{value.shape}")
    value = _F.reshape(as_int64(value), [batch])
    if batch and reads_values(value):
        low, high = value_range(value)
        if low < 0 or high > longest:
            raise ValueError(f"{fn}: argument '{arg}' expected lengths in [0, {longest}], got values in "
                             f"[{low}, {high}]")
    return value


def _erase(tokens: Tensor, lengths: Tensor, ignored: list) -> tuple:
    """The sequences without the ignored tokens, kept tokens moved to the front in
    their order, and the shortened lengths."""
    positions = _F.unsqueeze(_F.arange(0, tokens.shape[1], 1, DataType.INT64, tokens.place), [0])
    keep = _F.less_than(positions, _F.unsqueeze(lengths, [1]))
    for token in ignored:
        keep = _F.logical_and(keep, _F.not_equal(tokens, _F.full_like(tokens, token, None)))
    order = _F.argsort(_F.cast(_F.logical_not(keep), DataType.INT32), 1, False, True)
    return _F.take_along_axis(tokens, order, 1, True), _F.sum(_F.cast(keep, DataType.INT64), [1], None, False)


def edit_distance(input: Tensor, label: Tensor, normalized: bool = True, ignored_tokens=None,
                  input_length=None, label_length=None, name=None) -> tuple:
    """The edit distance (insertions, deletions and substitutions, each costing 1)
    from each hypothesis in ``input`` to its reference in ``label``.

    ``input`` [B, N] and ``label`` [B, M]: integer tokens, padded; ``input_length``
    and ``label_length`` [B]: each sample's true lengths (None: the whole row).
    ``ignored_tokens``: tokens removed from both sides before comparing.
    ``normalized``: divide each distance by its reference length (a reference
    must then be non-empty).

    Returns ``(sequence_num, distance)`` in this order, as Paddle's dynamic
    graph does: ``sequence_num`` int64 [1] holds B, ``distance`` float32 [B, 1].

    >>> hyp = eager.to_tensor([[1, 2, 3], [4, 5, 6]])
    >>> ref = eager.to_tensor([[1, 3, 3, 0], [4, 5, 6, 0]])
    >>> count, dist = eager.nn.functional.edit_distance(hyp, ref, normalized=False,
    ...     label_length=eager.to_tensor([3, 3]), input_length=eager.to_tensor([3, 3]))
    >>> int(count), dist.numpy().ravel().tolist()
    (2, [1.0, 0.0])
    """
    fn = "edit_distance"
    for arg, value in (("input", input), ("label", label)):
        check_integer(fn, arg, value)
        if value.ndim != 2:
            raise ValueError(f"{fn}: argument '{arg}' expected a 2-d tensor [batch, length], got shape "
                             f"{value.shape}")
    if label.shape[0] != input.shape[0]:
        raise ValueError(f"{fn}: argument 'label' expected {input.shape[0]} rows (input's batch), got shape "
                         f"{label.shape}")
    if not isinstance(normalized, bool):
        raise TypeError(f"{fn}: argument 'normalized' expected a bool, got {normalized!r}")
    if ignored_tokens is None:
        ignored_tokens = []
    if not isinstance(ignored_tokens, (list, tuple)) or any(
            isinstance(t, bool) or not isinstance(t, numbers.Integral) for t in ignored_tokens):
        raise TypeError(f"{fn}: argument 'ignored_tokens' expected a list of ints or None, got {ignored_tokens!r}")
    if (input_length is None) != (label_length is None):
        raise ValueError(f"{fn}: arguments 'input_length' and 'label_length' go together: give both or "
                         f"neither")
    batch, longest_hyp = input.shape
    longest_ref = label.shape[1]
    hyp_len = _lengths(fn, "input_length", input_length, batch, longest_hyp, input)
    ref_len = _lengths(fn, "label_length", label_length, batch, longest_ref, label)
    hyp, ref = as_int64(input), as_int64(label)
    if ignored_tokens:
        hyp, hyp_len = _erase(hyp, hyp_len, ignored_tokens)
        ref, ref_len = _erase(ref, ref_len, ignored_tokens)
    if normalized and batch and reads_values(ref_len) and value_range(ref_len)[0] == 0:
        raise ValueError(f"{fn}: normalized=True divides by the reference length, but a reference "
                         f"(label) is empty")

    columns = _F.unsqueeze(_F.arange(0, longest_ref + 1, 1, DataType.FLOAT32, label.place), [0])  # [1, M+1]
    row = _F.expand(columns, [batch, longest_ref + 1])     # distances from the empty hypothesis
    rows = [row]
    for i in range(longest_hyp):
        differs = _F.cast(_F.not_equal(ref, hyp[:, i:i + 1]), DataType.FLOAT32)                # [B, M]
        replace_or_keep = _F.add(row[:, :-1], differs)
        drop = _F.scale(row[:, 1:], 1.0, 1.0, True)
        candidates = _F.concat([_F.scale(row[:, :1], 1.0, 1.0, True), _F.minimum(replace_or_keep, drop)], 1)
        row = _F.add(_F.cummin(_F.subtract(candidates, columns), 1)[0], columns)             # insertions
        rows.append(row)
    table = _F.stack(rows, 1)                                                               # [B, N+1, M+1]
    at_hyp = _F.take_along_axis(table, _F.reshape(hyp_len, [batch, 1, 1]), 1, True)          # [B, 1, M+1]
    distance = _F.reshape(_F.take_along_axis(at_hyp, _F.reshape(ref_len, [batch, 1, 1]), 2, True), [batch, 1])
    if normalized:
        distance = _F.divide(distance, _F.reshape(_F.cast(ref_len, DataType.FLOAT32), [batch, 1]))
    return _F.full([1], batch, DataType.INT64, input.place), distance
