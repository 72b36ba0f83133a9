"""Embedding lookups and one-hot encoding (Paddle's ``paddle.nn.functional.input``).

``embedding`` calls the phi op ``embedding``: rows of the table picked by
integer ids, the padding id's rows zero and without gradient. With
``sparse=True`` the table's gradient is a SelectedRows holding only the rows
looked up (Paddle's ``embedding_sparse_grad``), which the optimizers' sparse
kernels (SGD, Adam with ``lazy_mode``) update row by row.
"""
from __future__ import annotations

import numbers

from phi.common.data_type import DataType
from phi.core.errors import ArgumentKindError

from ...arguments import describe, to_int
from ...autograd import no_grad
from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import check_tensor

_ID_TYPES = (DataType.INT32, DataType.INT64)


def _check_ids(fn: str, x) -> None:
    check_tensor(fn, "x", x)
    if x.dtype not in _ID_TYPES:
        raise TypeError(f"{fn}: argument 'x' expected an int32 or int64 Tensor of ids, got {x.dtype}{x.shape}")


def _padding_idx(fn: str, padding_idx, rows: int) -> int:
    """Paddle's padding_idx as the op takes it: -1 for none, else a row in [0, rows)."""
    if padding_idx is None:
        return -1
    if isinstance(padding_idx, Tensor):     # Paddle int()s a one-element integer tensor
        padding_idx = to_int(padding_idx, fn, "padding_idx")
    if not isinstance(padding_idx, numbers.Integral) or isinstance(padding_idx, bool):
        # Paddle's argument parser raises ValueError ("must be long, but got float"): ArgumentKindError is
        # that and a TypeError
        raise ArgumentKindError(f"{fn}: argument 'padding_idx' expected None or an int, got {padding_idx!r}")
    if not -rows <= padding_idx < rows:
        raise ValueError(f"{fn}: argument 'padding_idx' expected a value in [{-rows}, {rows}) "
                         f"(num_embeddings {rows}), got {padding_idx}")
    return int(padding_idx) + rows if padding_idx < 0 else int(padding_idx)


def _renorm_rows_(x, weight, max_norm: float, norm_type: float) -> None:
    """Rescales, in place and without recording, the rows of weight that x looks up
    and whose norm_type-norm exceeds max_norm, to norm max_norm (Paddle's max_norm)."""
    rows = weight.shape[0]
    with no_grad():
        counts = _F.reshape(_F.bincount(_F.reshape(_F.cast(x, DataType.INT64), [-1]), None, rows), [rows, 1])
        norms = _F.norm(weight, float(norm_type), [1], True)
        too_long = _F.logical_and(_F.greater_than(counts, _F.full_like(counts, 0)),
                                  _F.greater_than(norms, _F.full_like(norms, max_norm)))
        shrink = _F.divide(_F.full_like(norms, max_norm), _F.add(norms, _F.full_like(norms, 1e-7)))
        factor = _F.where(too_long, shrink, _F.full_like(norms, 1.0))
        _F.multiply_(weight, factor)


def embedding(x, weight, padding_idx=None, sparse=False, name=None, max_norm=None, norm_type=2.0):
    """The rows of ``weight`` ([num_embeddings, embedding_dim]) picked by the ids in
    ``x`` (int32/int64, any shape): the result has shape ``x.shape + [embedding_dim]``.

    ``padding_idx``: ids equal to it give zero rows and send no gradient
    (a negative value counts from the end: num_embeddings + padding_idx).
    ``max_norm``: before the lookup, the rows that x looks up whose
    ``norm_type``-norm exceeds it are scaled, in place, to that norm.
    ``sparse``: weight's gradient becomes a SelectedRows of the looked-up rows
    (its memory is the ids', not the table's). Ids outside [0, num_embeddings)
    raise an IndexError (on a GPU their rows come out NaN instead: the check
    would wait for the device). The positional order is Paddle 2.x's
    (``sparse`` fourth); ``max_norm``/``norm_type`` follow ``name``: pass them by keyword.

    >>> w = eager.to_tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]])
    >>> eager.nn.functional.embedding(eager.to_tensor([2, 1, 0]), w, padding_idx=0).numpy()
    array([[3., 4.],
           [1., 2.],
           [0., 0.]], dtype=float32)
    """
    fn = "embedding"
    _check_ids(fn, x)
    check_tensor(fn, "weight", weight)
    if len(weight.shape) != 2:
        raise ValueError(f"{fn}: argument 'weight' expected a 2-D table [num_embeddings, embedding_dim], "
                         f"got shape {weight.shape}")
    if not isinstance(sparse, bool):        # Paddle's parser: ValueError "must be bool, but got int"
        raise ArgumentKindError(f"{fn}: argument 'sparse' expected a bool, got {sparse!r}")
    padding = _padding_idx(fn, padding_idx, weight.shape[0])
    if max_norm is not None:
        if not isinstance(max_norm, numbers.Real) or isinstance(max_norm, bool) or max_norm <= 0:
            raise ValueError(f"{fn}: argument 'max_norm' expected a positive number or None, got {max_norm!r}")
        if not isinstance(norm_type, numbers.Real) or isinstance(norm_type, bool) or norm_type <= 0:
            raise ValueError(f"{fn}: argument 'norm_type' expected a positive number, got {norm_type!r}")
        _renorm_rows_(x, weight, float(max_norm), float(norm_type))
    return _F.embedding(x, weight, padding, sparse)


def one_hot(x, num_classes, name=None):
    """Integer ids ``x`` (int32/int64, values in [0, num_classes)) as float32 one-hot
    vectors: shape ``x.shape + [num_classes]``. Not differentiable (ids have no gradient).
    ``num_classes`` is an int or a one-element int32/int64 Tensor (read on the host).

    >>> eager.nn.functional.one_hot(eager.to_tensor([2, 0]), 3).numpy()
    array([[0., 0., 1.],
           [1., 0., 0.]], dtype=float32)
    """
    _check_ids("one_hot", x)
    if isinstance(num_classes, Tensor) and num_classes.dtype in _ID_TYPES and num_classes.numel() == 1:
        num_classes = int(num_classes.item())  # Paddle's num_classes is a Scalar: a one-element tensor too
    if not isinstance(num_classes, numbers.Integral) or isinstance(num_classes, bool) or num_classes < 1:
        raise ValueError(f"one_hot: argument 'num_classes' expected a positive int (or a one-element int "
                         f"Tensor), got {describe(num_classes)}")
    return _F.one_hot(x, int(num_classes))


__all__ = ["embedding", "one_hot"]
