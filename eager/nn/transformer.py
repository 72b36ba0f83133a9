"""Attention and Transformer layers (Paddle's ``paddle.nn``): MultiHeadAttention,
TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer,
TransformerDecoder and Transformer.

Inputs are batch-first, [batch_size, seq_len, d_model], as in Paddle. Attention
masks follow Paddle's layers: they broadcast to [batch_size, num_heads,
query_len, key_len]; a bool mask keeps the True positions, an integer mask the
non-zero ones (the others get -1e9, Paddle's ``(mask - 1) * 1e9``), and a float
mask is added to the scores (``-inf`` or a large negative value masks).
Decoding step by step reuses keys and values through Paddle's caches:
``MultiHeadAttention.Cache`` (self-attention: grows by the new positions at
each call) and ``MultiHeadAttention.StaticCache`` (cross-attention: the
memory's keys and values, computed once); ``gen_cache`` makes them.
"""
from __future__ import annotations

import collections
import copy
import math
import numbers

from phi.common.data_type import FLOATING_TYPES, DataType

from ..generated import forward_api as _F
from ..tensor import Tensor
from . import functional as F
from .functional.attention import _attention_heads_first
from .functional.checks import check_float, check_tensor
from .functional.dropout import _check_p
from .layer import Layer, ParamAttr
from .layers import Linear

_INTEGER_TYPES = (DataType.INT8, DataType.UINT8, DataType.INT16, DataType.INT32, DataType.INT64)


def _positive_int(who: str, arg: str, value) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{who}: argument '{arg}' expected a positive int, got {value!r}")
    return int(value)


def _convert_attention_mask(who: str, attn_mask, dtype):
    """Paddle's layer convention as an additive float mask of ``dtype``: bool or
    integer masks become 0 where kept (True, non-zero) and -1e9 elsewhere; float
    masks are cast. None stays None."""
    if attn_mask is None:
        return None
    check_tensor(who, "attn_mask", attn_mask)
    if attn_mask.dtype == DataType.BOOL or attn_mask.dtype in _INTEGER_TYPES:
        return _F.scale(_F.cast(attn_mask, dtype), 1e9, -1e9, True)  # (mask - 1) * 1e9
    if attn_mask.dtype not in FLOATING_TYPES:
        raise TypeError(f"{who}: argument 'attn_mask' expected a bool, integer or floating Tensor, got "
                        f"{attn_mask.dtype}")
    return attn_mask if attn_mask.dtype == dtype else _F.cast(attn_mask, dtype)


def _param_attrs(attr, n: int, who: str, arg: str) -> list:
    """Paddle's _convert_param_attr_to_list: one attribute per sublayer group, from
    a list of 1 or n, a bool, or one attribute (copied, a name suffixed _0, _1, ...)."""
    if isinstance(attr, (list, tuple)):
        if len(attr) not in (1, n):
            raise ValueError(f"{who}: argument '{arg}' expected a list of length 1 or {n}, got {len(attr)}")
        if len(attr) == 1:
            return [copy.deepcopy(attr[0]) for _ in range(n)]
        return list(attr)
    if isinstance(attr, bool):
        return [None if attr else False for _ in range(n)]
    attr = ParamAttr.from_argument(attr, who, arg)
    attrs = []
    for i in range(n):
        copied = copy.deepcopy(attr)
        if copied.name:
            copied.name = f"{copied.name}_{i}"
        attrs.append(copied)
    return attrs


class MultiHeadAttention(Layer):
    """Multi-head attention (Paddle's ``paddle.nn.MultiHeadAttention``).

    Queries, keys and values are projected by ``q_proj``, ``k_proj``, ``v_proj``
    (each a Linear to embed_dim), split into ``num_heads`` heads of
    embed_dim / num_heads, combined by scaled dot-product attention with
    ``attn_mask`` (see the module docstring), dropout ``dropout`` on the weights
    in training, and projected back by ``out_proj``. ``kdim``/``vdim`` are the
    key's and value's feature sizes (default embed_dim). ``forward(query,
    key=None, value=None, attn_mask=None, cache=None)`` takes [batch, length,
    features] tensors (key and value default to query) and returns the output,
    followed by the attention weights when ``need_weights`` and by the updated
    cache when one was given.

    >>> mha = eager.nn.MultiHeadAttention(embed_dim=16, num_heads=4)
    >>> x = eager.randn([2, 5, 16])
    >>> mha(x).shape
    [2, 5, 16]
    """

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, kdim=None, vdim=None,
                 need_weights: bool = False, weight_attr=None, bias_attr=None):
        super().__init__()
        who = "MultiHeadAttention"
        self.embed_dim = _positive_int(who, "embed_dim", embed_dim)
        self.num_heads = _positive_int(who, "num_heads", num_heads)
        if self.embed_dim % self.num_heads:
            raise ValueError(f"{who}: argument 'num_heads' expected a divisor of embed_dim ({self.embed_dim}), "
                             f"got {num_heads}")
        self.kdim = self.embed_dim if kdim is None else _positive_int(who, "kdim", kdim)
        self.vdim = self.embed_dim if vdim is None else _positive_int(who, "vdim", vdim)
        self.dropout = _check_p(who, dropout)
        if not isinstance(need_weights, bool):
            raise TypeError(f"{who}: argument 'need_weights' expected a bool, got {type(need_weights).__name__}")
        self.need_weights = need_weights
        self.head_dim = self.embed_dim // self.num_heads
        self.q_proj = Linear(self.embed_dim, self.embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, self.embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, self.embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(self.embed_dim, self.embed_dim, weight_attr, bias_attr=bias_attr)

    def _split_heads(self, x: Tensor) -> Tensor:
        """[batch, length, embed_dim] -> [batch, num_heads, length, head_dim]."""
        batch, length = x.shape[0], x.shape[1]
        return _F.transpose(_F.reshape(x, [batch, length, self.num_heads, self.head_dim]), [0, 2, 1, 3])

    def _check_input(self, arg: str, x, features: int) -> Tensor:
        who = f"MultiHeadAttention({self.full_name()})"
        check_float(who, arg, x)
        if x.ndim != 3 or x.shape[-1] != features:
            raise ValueError(f"{who}: argument '{arg}' expected a 3-d tensor [batch_size, seq_len, {features}], "
                             f"got shape {x.shape}")
        return x

    def compute_kv(self, key: Tensor, value: Tensor):
        """The keys and values of ``key`` and ``value`` ([batch, length, kdim/vdim]),
        projected and split into heads: each [batch, num_heads, length, head_dim]."""
        self._check_input("key", key, self.kdim)
        self._check_input("value", value, self.vdim)
        if key.shape[:2] != value.shape[:2]:
            raise ValueError(f"MultiHeadAttention({self.full_name()}): arguments 'key' and 'value' expected the "
                             f"same batch size and length, got {key.shape} and {value.shape}")
        return self._split_heads(self.k_proj(key)), self._split_heads(self.v_proj(value))

    def gen_cache(self, key: Tensor, value=None, type=Cache):  # noqa: A002  (Paddle's argument name)
        """A cache for incremental decoding.

        ``type=MultiHeadAttention.StaticCache``: the keys and values of ``key`` and
        ``value`` (the encoder's memory), for cross-attention that sees the same
        memory at every step. ``type=MultiHeadAttention.Cache`` with ``value=None``:
        empty keys and values (length 0) that self-attention extends at each step;
        with ``value`` given: ``Cache(key, value)`` as they are (already split into
        heads, [batch, num_heads, length, head_dim]).
        """
        if type is MultiHeadAttention.StaticCache:
            return self.StaticCache(*self.compute_kv(key, key if value is None else value))
        if type is not MultiHeadAttention.Cache:
            raise TypeError(f"MultiHeadAttention.gen_cache: argument 'type' expected MultiHeadAttention.Cache or "
                            f"MultiHeadAttention.StaticCache, got {type!r}")
        if value is None:
            check_float("MultiHeadAttention.gen_cache", "key", key)
            empty = [key.shape[0], self.num_heads, 0, self.head_dim]
            return self.Cache(_F.zeros(empty, key.dtype, key.place), _F.zeros(empty, key.dtype, key.place))
        return self.Cache(key, value)

    def _prepare_qkv(self, query, key, value, cache):
        q = self._split_heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v  # cross-attention: the memory's keys and values, computed once
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            k = _F.concat([cache.k, k], 2)
            v = _F.concat([cache.v, v], 2)
            cache = self.Cache(k, v)
        return q, k, v, cache

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        """Attention of ``query`` over ``key``/``value`` (both default to query);
        returns out [batch, query_len, embed_dim], then the weights [batch,
        num_heads, query_len, key_len] if need_weights, then the new cache if
        ``cache`` was given."""
        who = f"MultiHeadAttention({self.full_name()})"
        self._check_input("query", query, self.embed_dim)
        key = query if key is None else key
        value = query if value is None else value
        if cache is not None and not isinstance(cache, (self.Cache, self.StaticCache)):
            raise TypeError(f"{who}: argument 'cache' expected a MultiHeadAttention.Cache or StaticCache, got "
                            f"{type(cache).__name__}")
        q, k, v, cache = self._prepare_qkv(query, key, value, cache)
        scores_shape = [q.shape[0], self.num_heads, q.shape[2], k.shape[2]]
        bias = _convert_attention_mask(who, attn_mask, q.dtype)
        if bias is not None and (len(bias.shape) > 4 or any(
                s not in (1, t) for s, t in zip(reversed(bias.shape), reversed(scores_shape)))):
            raise ValueError(f"{who}: argument 'attn_mask' expected a shape that broadcasts to [batch_size, "
                             f"num_heads, query_len, key_len] = {scores_shape}, got {attn_mask.shape}")
        out, weights = _attention_heads_first(q, k, v, bias, self.dropout, self.training)
        out = _F.reshape(_F.transpose(out, [0, 2, 1, 3]), [out.shape[0], out.shape[2], self.embed_dim])
        out = self.out_proj(out)
        outs = [out]
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(cache)
        return out if len(outs) == 1 else tuple(outs)

    def extra_repr(self) -> str:
        """Sizes, shown by repr."""
        return (f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout={self.dropout}, "
                f"kdim={self.kdim}, vdim={self.vdim}, need_weights={self.need_weights}")


__all__ = ["MultiHeadAttention"]
