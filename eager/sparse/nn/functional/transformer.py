"""Sparse attention (Paddle's paddle.sparse.nn.functional.attention):
``softmax(Q K^T / sqrt(d)) V`` where the attention matrix exists only at the
entries of a CSR layout, so memory grows with its nnz, not with seq_len^2.
Composed of masked_matmul, a row softmax of the stored scores and a sparse @
dense product, so query, key and value get gradients.

>>> q = eager.ones([1, 1, 2, 4])
>>> layout = eager.sparse.sparse_csr_tensor([0, 1, 3], [0, 0, 1], [1.0, 1.0, 1.0], [1, 2, 2])
>>> v = eager.to_tensor([[[[1.0, 1.0, 1.0, 1.0], [3.0, 3.0, 3.0, 3.0]]]])
>>> eager.sparse.nn.functional.attention(q, q, v, layout).numpy()[0, 0, :, 0]
array([1., 2.], dtype=float32)
"""
from __future__ import annotations

import math

from ....autograd.grad_mode import no_grad
from ....composite import _paddle_api as _check
from ....composite.spine import reshape_exactly  # _F.reshape reads a 0 as 'keep that dimension'
from ....generated import forward_api as _F
from ....geometric import segment_max, segment_sum
from ....tensor import Tensor
from ..._core import CSR, coo_indices, expect_dense, expect_sparse, from_values, values_of
from ...matmul import masked_matmul, matmul
from ...unary import apply_to_values
from .activation import softmax


@_check.composed_in("sparse.nn.functional")
def attention(query, key, value, sparse_mask, key_padding_mask=None, attn_mask=None, name=None):
    """Attention of dense query, key, value ``[batch, heads, seq_len, head_dim]``
    over the entries of ``sparse_mask``, a CSR tensor ``[batch * heads, seq_len,
    seq_len]`` (each row's stored keys are the ones it attends to; a row with none
    gives zeros). ``key_padding_mask`` ``[batch, seq_len]`` and ``attn_mask``
    ``[seq_len, seq_len]`` leave out the stored entries where they are 0 (the key
    column j of batch b, the pair (i, j)); a row left with no key gives zeros."""
    op = "sparse.nn.functional.attention"
    for arg, tensor in (("query", query), ("key", key), ("value", value)):
        expect_dense(op, arg, tensor)
        if tensor.ndim != 4 or tensor.shape != query.shape or tensor.dtype != query.dtype:
            raise ValueError(f"{op}: query, key and value must be 4-d [batch, heads, seq_len, head_dim] of one "
                             f"shape and dtype, got {query.dtype}{query.shape}, {key.dtype}{key.shape} and "
                             f"{value.dtype}{value.shape}")
    if not query.dtype.is_floating_point:
        raise TypeError(f"{op}: query, key and value must be floating-point, got {query.dtype}")
    expect_sparse(op, "sparse_mask", sparse_mask, (CSR,))
    batch, heads, seq_len, head_dim = query.shape
    if sparse_mask.shape != [batch * heads, seq_len, seq_len]:
        raise ValueError(f"{op}: sparse_mask must have shape [batch * heads, seq_len, seq_len] = "
                         f"{[batch * heads, seq_len, seq_len]}, got {sparse_mask.shape}")
    for arg, mask, shape in (("key_padding_mask", key_padding_mask, [batch, seq_len]),
                             ("attn_mask", attn_mask, [seq_len, seq_len])):
        if mask is not None and expect_dense(op, arg, mask).shape != shape:
            raise ValueError(f"{op}: argument '{arg}' expected shape {shape}, got {mask.shape}")
    flat = [batch * heads, seq_len, head_dim]
    q, k, v = (reshape_exactly(t, flat) for t in (query, key, value))
    scores = masked_matmul(q, _F.transpose(k, [0, 2, 1]), sparse_mask)
    scale = 1.0 / math.sqrt(head_dim) if head_dim else 1.0  # head_dim 0: an empty result, any scale does
    scores = apply_to_values(op, scores, lambda values: _F.scale(values, scale, 0.0, True))
    if key_padding_mask is None and attn_mask is None:
        weights = softmax(scores)
    else:
        weights = _masked_softmax(scores, _kept(scores, key_padding_mask, attn_mask, heads), seq_len)
    return reshape_exactly(matmul(weights, v), query.shape)


def _kept(scores, key_padding_mask, attn_mask, heads: int) -> Tensor:
    """Whether each stored score survives the masks (both nonzero at its key / pair)."""
    indices = coo_indices(scores)  # (batch * head, row, column) of each stored score
    kept = None
    if key_padding_mask is not None:
        batch = _F.floor_divide(indices[0], _F.full_like(indices[0], heads))
        at = _F.gather_nd(key_padding_mask, _F.stack([batch, indices[2]], 1))
        kept = _F.not_equal(at, _F.zeros_like(at))
    if attn_mask is not None:
        at = _F.gather_nd(attn_mask, _F.stack([indices[1], indices[2]], 1))
        pair = _F.not_equal(at, _F.zeros_like(at))
        kept = pair if kept is None else _F.logical_and(kept, pair)
    return kept


def _masked_softmax(scores, kept: Tensor, seq_len: int):
    """The row softmax of the kept stored scores; the others (and rows with none kept) get 0."""
    indices = coo_indices(scores)
    rows = _F.add(_F.scale(indices[0], float(seq_len), 0.0, True), indices[1])  # sorted: CSR order
    values = _F.where(kept, values_of(scores), _F.full_like(values_of(scores), -math.inf))
    with no_grad():  # the shift keeps exp finite (0 for a row with nothing kept, whose exps are all 0)
        peak = segment_max(values.detach(), rows)
        peak = _F.index_select(_F.where(_F.isfinite(peak), peak, _F.zeros_like(peak)), rows, 0)
    exp = _F.exp(_F.subtract(values, peak))
    total = _F.index_select(segment_sum(exp, rows), rows, 0)
    with no_grad():
        empty = _F.equal(total, _F.zeros_like(total))
    total = _F.where(empty, _F.ones_like(total), total)
    return from_values(_F.divide(exp, total), scores.impl)


__all__ = ["attention"]
