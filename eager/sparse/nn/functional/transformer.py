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

from ....composite import _paddle_api as _check
from ....composite.spine import reshape_exactly  # _F.reshape reads a 0 as 'keep that dimension'
from ....generated import forward_api as _F
from ..._core import CSR, expect_dense, expect_sparse
from ...matmul import masked_matmul, matmul
from ...unary import apply_to_values
from .activation import softmax


@_check.composed_in("sparse.nn.functional")
def attention(query, key, value, sparse_mask, key_padding_mask=None, attn_mask=None, name=None):
    """Attention of dense query, key, value ``[batch, heads, seq_len, head_dim]``
    over the entries of ``sparse_mask``, a CSR tensor ``[batch * heads, seq_len,
    seq_len]`` (each row's stored keys are the ones it attends to; a row with none
    gives zeros). ``key_padding_mask`` and ``attn_mask`` must be None (see docs/sparse.md)."""
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
    if key_padding_mask is not None or attn_mask is not None:
        raise ValueError(f"{op}: key_padding_mask and attn_mask are not supported; leave the masked entries out "
                         f"of sparse_mask instead")
    flat = [batch * heads, seq_len, head_dim]
    q, k, v = (reshape_exactly(t, flat) for t in (query, key, value))
    scores = masked_matmul(q, _F.transpose(k, [0, 2, 1]), sparse_mask)
    scale = 1.0 / math.sqrt(head_dim) if head_dim else 1.0  # head_dim 0: an empty result, any scale does
    scores = apply_to_values(op, scores, lambda values: _F.scale(values, scale, 0.0, True))
    return reshape_exactly(matmul(softmax(scores), v), query.shape)


__all__ = ["attention"]
