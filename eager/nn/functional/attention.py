"""Attention (Paddle's ``paddle.nn.functional``): scaled_dot_product_attention.

It is a composition of differentiable ops: a batched matmul of the scaled
queries with the keys, the additive mask, the fused (overflow-free) softmax
op, dropout on the weights and a second matmul, so gradients of every order
come from those ops. The attention core and the mask shape check are shared
with the MultiHeadAttention layer (eager/nn/transformer.py), which works in the
heads-first layout and has Paddle's layer convention for masks.
"""
from __future__ import annotations

import math

from phi.common.data_type import FLOATING_TYPES, DataType

from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import check_float, check_tensor, dtype_mismatch, dtypes_differ
from .dropout import _check_p, dropout

def _broadcasts_to(shape, target) -> bool:
    """Whether ``shape`` broadcasts to ``target`` without growing it."""
    if len(shape) > len(target):
        return False
    return all(s in (1, t) for s, t in zip(reversed(shape), reversed(target)))


def _check_mask_shape(fn: str, mask: Tensor, scores_shape) -> None:
    if not _broadcasts_to(tuple(mask.shape), tuple(scores_shape)):
        raise ValueError(f"{fn}: argument 'attn_mask' expected a shape that broadcasts to [batch_size, num_heads, "
                         f"query_len, key_len] = {list(scores_shape)}, got {mask.shape}")


def _additive_mask(fn: str, mask, dtype, scores_shape):
    """scaled_dot_product_attention's mask as a float tensor added to the scores
    (None stays None): a bool mask keeps the True positions and gives the others
    -inf; a float mask, of the query's dtype, is added as it is. It must broadcast
    to the scores' shape [batch, heads, query length, key length]."""
    if mask is None:
        return None
    check_tensor(fn, "attn_mask", mask)
    _check_mask_shape(fn, mask, scores_shape)
    if mask.dtype == DataType.BOOL:
        zero = _F.full([], 0.0, dtype, mask.place)
        return _F.where(mask, zero, _F.full([], -math.inf, dtype, mask.place))
    if mask.dtype not in FLOATING_TYPES:
        raise TypeError(f"{fn}: argument 'attn_mask' expected a bool or floating Tensor, got {mask.dtype}")
    if dtype_mismatch(mask.dtype, dtype):
        raise TypeError(f"{fn}: argument 'attn_mask' expected the dtype of query ({dtype}) for a float mask, "
                        f"got {mask.dtype}")
    return mask


def _causal_mask(query_len: int, key_len: int, dtype, place) -> Tensor:
    """[query_len, key_len]: 0 where key position <= query position, -inf above
    (top-left aligned when the lengths differ)."""
    return _F.triu(_F.full([query_len, key_len], -math.inf, dtype, place), 1)


def _attention_heads_first(q: Tensor, k: Tensor, v: Tensor, bias, dropout_p: float, training: bool):
    """softmax(q k^T / sqrt(d) + bias) v for q [..., Lq, d], k [..., Lk, d],
    v [..., Lk, dv]; returns (out, weights), the weights after dropout."""
    head_dim = q.shape[-1]
    scores = _F.matmul(_F.scale(q, head_dim ** -0.5 if head_dim else 1.0, 0.0, True), k, False, True)
    if bias is not None:
        scores = _F.add(scores, bias)
    weights = _F.softmax(scores, -1)
    if dropout_p > 0.0 and training:
        weights = dropout(weights, dropout_p, training=True, mode="upscale_in_train")
    return _F.matmul(weights, v), weights


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask=None,
                                 dropout_p: float = 0.0, is_causal: bool = False, training: bool = True,
                                 name=None) -> Tensor:
    """softmax(Q K^T / sqrt(d) + mask) V over each head, in Paddle's layout.

    ``query`` is [batch_size, seq_len, num_heads, head_dim] (or 3-d without the
    batch); ``key`` and ``value`` have the same batch and heads and a length of
    their own (value may have another head_dim); the result is shaped like
    query with value's head_dim. ``attn_mask`` broadcasts to [batch_size,
    num_heads, seq_len, key_len]: a bool mask keeps the True positions (the
    others get -inf), a float mask of query's dtype is added to the scores.
    ``is_causal`` lets position i attend to key positions <= i only. Dropout
    with ``dropout_p`` is applied to the attention weights when ``training``.
    A query row whose every key is masked has no defined weights and gives NaN.

    >>> q = eager.randn([2, 5, 4, 8])                 # [batch, seq, heads, head_dim]
    >>> out = eager.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
    >>> out.shape
    [2, 5, 4, 8]
    """
    fn = "scaled_dot_product_attention"
    for arg, value_ in (("query", query), ("key", key), ("value", value)):
        check_float(fn, arg, value_)
    if query.ndim not in (3, 4):
        raise ValueError(f"{fn}: argument 'query' expected a 4-d tensor [batch_size, seq_len, num_heads, "
                         f"head_dim] (or 3-d without the batch), got shape {query.shape}")
    for arg, value_ in (("key", key), ("value", value)):
        if value_.ndim != query.ndim:
            raise ValueError(f"{fn}: argument '{arg}' expected a {query.ndim}-d tensor like query "
                             f"{query.shape}, got shape {value_.shape}")
        if dtypes_differ(value_, query):
            raise TypeError(f"{fn}: argument '{arg}' expected the dtype of query ({query.dtype}), got {value_.dtype}")
    q_shape, k_shape, v_shape = query.shape[-4:], key.shape[-4:], value.shape[-4:]
    if k_shape[:-3] != q_shape[:-3] or k_shape[-2] != q_shape[-2] or k_shape[-1] != q_shape[-1]:
        raise ValueError(f"{fn}: argument 'key' expected query's batch size, num_heads and head_dim "
                         f"(query {query.shape}), got shape {key.shape}")
    if v_shape[:-3] != q_shape[:-3] or v_shape[-2] != q_shape[-2] or v_shape[-3] != k_shape[-3]:
        raise ValueError(f"{fn}: argument 'value' expected query's batch size and num_heads and key's seq_len "
                         f"(key {key.shape}), got shape {value.shape}")
    dropout_p = _check_p(fn, dropout_p, "dropout_p")
    for arg, flag in (("is_causal", is_causal), ("training", training)):
        if not isinstance(flag, bool):
            raise TypeError(f"{fn}: argument '{arg}' expected a bool, got {type(flag).__name__}")
    unbatched = query.ndim == 3
    if unbatched:
        query, key, value = (_F.unsqueeze(t, [0]) for t in (query, key, value))
    batch, query_len, heads, _ = query.shape
    key_len = key.shape[1]
    bias = _additive_mask(fn, attn_mask, query.dtype, [batch, heads, query_len, key_len])
    if is_causal:
        causal = _causal_mask(query_len, key_len, query.dtype, query.place)
        bias = causal if bias is None else _F.add(bias, causal)
    heads_first = [0, 2, 1, 3]
    out, _ = _attention_heads_first(_F.transpose(query, heads_first), _F.transpose(key, heads_first),
                                   _F.transpose(value, heads_first), bias, dropout_p, training)
    out = _F.transpose(out, heads_first)
    return _F.squeeze(out, [0]) if unbatched else out


__all__ = ["scaled_dot_product_attention"]
