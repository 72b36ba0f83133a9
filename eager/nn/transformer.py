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

from phi.common.data_type import FLOATING_TYPES, DataType

from ..arguments import to_bool, to_int
from ..generated import forward_api as _F
from ..tensor import Tensor
from . import functional as F
from .functional.attention import _attention_heads_first, _check_mask_shape
from .functional.checks import check_float, check_positive_int, check_tensor
from .functional.dropout import _check_p
from .dropout import Dropout
from .layer import Layer, ParamAttr
from .layers import LayerList, Linear
from .norm import LayerNorm

_INTEGER_TYPES = (DataType.INT8, DataType.UINT8, DataType.INT16, DataType.INT32, DataType.INT64)


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
        self.embed_dim = check_positive_int(who, "embed_dim", embed_dim, ValueError)
        self.num_heads = check_positive_int(who, "num_heads", num_heads, ValueError)
        if self.embed_dim % self.num_heads:
            raise ValueError(f"{who}: argument 'num_heads' expected a divisor of embed_dim ({self.embed_dim}), "
                             f"got {num_heads}")
        self.kdim = self.embed_dim if kdim is None else check_positive_int(who, "kdim", kdim, ValueError)
        self.vdim = self.embed_dim if vdim is None else check_positive_int(who, "vdim", vdim, ValueError)
        self.dropout = _check_p(who, dropout, "dropout")
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
            for arg, held, new in (("k", cache.k, k), ("v", cache.v, v)):
                check_tensor(f"MultiHeadAttention({self.full_name()})", f"cache.{arg}", held)
                if held.ndim != 4 or held.shape[:2] != new.shape[:2] or held.shape[3] != new.shape[3]:
                    raise ValueError(f"MultiHeadAttention({self.full_name()}): argument 'cache' expected {arg} of "
                                     f"shape [{new.shape[0]}, {self.num_heads}, length, {self.head_dim}] (batch, "
                                     f"num_heads, ..., head_dim), got {held.shape}")
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
        if k.shape[0] != q.shape[0]:  # before the scores' matmul, which would name only itself
            source = "cache" if isinstance(cache, (self.Cache, self.StaticCache)) else "key"
            raise ValueError(f"{who}: argument '{source}' expected the batch size of query ({q.shape[0]}), got "
                             f"{k.shape[0]} (query {query.shape}, keys {k.shape})")
        bias = _convert_attention_mask(who, attn_mask, q.dtype)
        if bias is not None:
            _check_mask_shape(who, bias, [q.shape[0], self.num_heads, q.shape[2], k.shape[2]])
        out, weights = _attention_heads_first(q, k, v, bias, self.dropout, self.training)
        out = _F.reshape(_F.transpose(out, [0, 2, 1, 3]), [out.shape[0], out.shape[2], self.embed_dim])
        out = self.out_proj(out)
        outs = [out]
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(cache)
        return out if len(outs) == 1 else tuple(outs)


def _activation(who: str, activation):
    fn = getattr(F, activation, None) if isinstance(activation, str) else None
    if fn is None or not callable(fn) or activation.startswith("_"):
        raise ValueError(f"{who}: argument 'activation' expected the name of a function of "
                         f"eager.nn.functional ('relu', 'gelu', ...), got {activation!r}")
    return fn


def _check_sequence(who: str, arg: str, x, d_model: int) -> Tensor:
    check_float(who, arg, x)
    if x.ndim != 3 or x.shape[-1] != d_model:
        raise ValueError(f"{who}: argument '{arg}' expected a 3-d tensor [batch_size, seq_len, d_model={d_model}], "
                         f"got shape {x.shape}")
    return x


def _clones(who: str, layer: Layer, num_layers) -> LayerList:
    """num_layers layers like ``layer``: the first is ``layer`` itself, the others are
    new layers made from its constructor arguments (fresh parameters, as Paddle
    does), or deep copies for a layer that does not keep them."""
    num_layers = check_positive_int(who, "num_layers", num_layers, ValueError)
    if not isinstance(layer, Layer):
        raise TypeError(f"{who}: the first argument expected a Layer, got {type(layer).__name__}")
    config = getattr(layer, "_config", None)
    others = [type(layer)(**config) if config is not None else copy.deepcopy(layer) for _ in range(num_layers - 1)]
    return LayerList([layer] + others)


def _block_settings(layer: Layer, who: str, n_attrs: int, settings: dict) -> tuple:
    """The checks and settings an encoder or decoder block shares: keeps the
    constructor's arguments in ``layer._config`` (what _clones rebuilds from),
    checks the sizes and rates, and returns (dropout, attn_dropout, act_dropout,
    weight_attrs, bias_attrs) with the None rates defaulted to ``dropout`` and
    the attributes split into ``n_attrs`` (one per attention, one for the
    feed-forward)."""
    layer._config = dict(settings)
    layer.d_model = check_positive_int(who, "d_model", settings["d_model"], ValueError)
    check_positive_int(who, "nhead", settings["nhead"], ValueError)
    check_positive_int(who, "dim_feedforward", settings["dim_feedforward"], ValueError)
    dropout = _check_p(who, settings["dropout"], "dropout")
    attn_dropout, act_dropout = (dropout if settings[name] is None else _check_p(who, settings[name], name)
                                 for name in ("attn_dropout", "act_dropout"))
    layer.normalize_before = to_bool(settings["normalize_before"], who, "normalize_before")
    return (dropout, attn_dropout, act_dropout, _param_attrs(settings["weight_attr"], n_attrs, who, "weight_attr"),
            _param_attrs(settings["bias_attr"], n_attrs, who, "bias_attr"))


class TransformerEncoderLayer(Layer):
    """One encoder block (Paddle's ``paddle.nn.TransformerEncoderLayer``):
    self-attention and a feed-forward network (linear1, activation, dropout,
    linear2), each with a residual connection, dropout and LayerNorm — applied
    after the residual sum (post-norm), or before each sub-block with
    ``normalize_before=True`` (pre-norm). ``attn_dropout`` and ``act_dropout``
    default to ``dropout``. ``weight_attr``/``bias_attr`` may be lists of 1 or 2
    (attention, feed-forward). ``forward(src, src_mask=None, cache=None)``:
    src is [batch, seq_len, d_model]; with ``cache`` (from ``gen_cache``) it
    also returns the updated cache.

    >>> layer = eager.nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32, dropout=0.0)
    >>> layer(eager.randn([2, 5, 16])).shape
    [2, 5, 16]
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout=None, act_dropout=None, normalize_before: bool = False,
                 weight_attr=None, bias_attr=None, layer_norm_eps: float = 1e-5):
        super().__init__()
        who = "TransformerEncoderLayer"
        dropout, attn_dropout, act_dropout, weight_attrs, bias_attrs = _block_settings(
            self, who, 2, dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                               dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                               act_dropout=act_dropout, normalize_before=normalize_before,
                               weight_attr=weight_attr, bias_attr=bias_attr,
                               layer_norm_eps=layer_norm_eps))
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weight_attrs[0],
                                            bias_attr=bias_attrs[0])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[1], bias_attr=bias_attrs[1])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[1], bias_attr=bias_attrs[1])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.activation = _activation(who, activation)

    def forward(self, src, src_mask=None, cache=None):
        """The block on src [batch, seq_len, d_model]; (out, new cache) when ``cache`` is given."""
        _check_sequence(f"TransformerEncoderLayer({self.full_name()})", "src", src, self.d_model)
        src_mask = _convert_attention_mask(f"TransformerEncoderLayer({self.full_name()})", src_mask, src.dtype)
        residual = src
        if self.normalize_before:
            src = self.norm1(src)
        if cache is None:
            src = self.self_attn(src, src, src, src_mask)
        else:
            src, cache = self.self_attn(src, src, src, src_mask, cache)
        src = _F.add(residual, self.dropout1(src))
        if not self.normalize_before:
            src = self.norm1(src)
        residual = src
        if self.normalize_before:
            src = self.norm2(src)
        src = self.linear2(self.dropout(self.activation(self.linear1(src))))
        src = _F.add(residual, self.dropout2(src))
        if not self.normalize_before:
            src = self.norm2(src)
        return src if cache is None else (src, cache)

    def gen_cache(self, src):
        """An empty self-attention cache (MultiHeadAttention.Cache) for src's batch."""
        return self.self_attn.gen_cache(src, type=self.self_attn.Cache)


class TransformerEncoder(Layer):
    """A stack of ``num_layers`` encoder layers (Paddle's ``paddle.nn.TransformerEncoder``):
    the first is ``encoder_layer``, the others new layers built with its arguments
    (their own parameters); ``norm`` (e.g. a LayerNorm) is applied to the output.
    ``forward(src, src_mask=None, cache=None)``; with ``cache`` (a list from
    ``gen_cache``) it returns (out, new caches).

    >>> layer = eager.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0)
    >>> encoder = eager.nn.TransformerEncoder(layer, num_layers=2)
    >>> encoder(eager.randn([2, 5, 16])).shape
    [2, 5, 16]
    """

    def __init__(self, encoder_layer, num_layers: int, norm=None):
        super().__init__()
        self.layers = _clones("TransformerEncoder", encoder_layer, num_layers)
        self.num_layers = int(num_layers)
        self.norm = norm

    def forward(self, src, src_mask=None, cache=None):
        """Each layer in turn on src [batch, seq_len, d_model], then norm."""
        src_mask = _convert_attention_mask(f"TransformerEncoder({self.full_name()})", src_mask,
                                           check_float("TransformerEncoder", "src", src).dtype)
        output = src
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                output = layer(output, src_mask=src_mask)
            else:
                output, new_cache = layer(output, src_mask=src_mask, cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, src):
        """One empty cache per layer."""
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoderLayer(Layer):
    """One decoder block (Paddle's ``paddle.nn.TransformerDecoderLayer``):
    self-attention over the target, cross-attention over the encoder's memory,
    and a feed-forward network, each with residual, dropout and LayerNorm
    (post-norm, or pre-norm with ``normalize_before``). ``weight_attr``/
    ``bias_attr`` may be lists of 1 or 3 (self-attention, cross-attention,
    feed-forward). ``forward(tgt, memory, tgt_mask=None, memory_mask=None,
    cache=None)``; ``cache`` is (Cache, StaticCache) from ``gen_cache(memory)``,
    and then (out, (new Cache, StaticCache)) is returned.

    >>> layer = eager.nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0)
    >>> layer(eager.randn([2, 5, 16]), eager.randn([2, 7, 16])).shape
    [2, 5, 16]
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout=None, act_dropout=None, normalize_before: bool = False,
                 weight_attr=None, bias_attr=None, layer_norm_eps: float = 1e-5):
        super().__init__()
        who = "TransformerDecoderLayer"
        dropout, attn_dropout, act_dropout, weight_attrs, bias_attrs = _block_settings(
            self, who, 3, dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                               dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                               act_dropout=act_dropout, normalize_before=normalize_before,
                               weight_attr=weight_attr, bias_attr=bias_attr,
                               layer_norm_eps=layer_norm_eps))
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weight_attrs[0],
                                            bias_attr=bias_attrs[0])
        self.cross_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weight_attrs[1],
                                             bias_attr=bias_attrs[1])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[2], bias_attr=bias_attrs[2])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[2], bias_attr=bias_attrs[2])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.norm3 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.dropout3 = Dropout(dropout, mode="upscale_in_train")
        self.activation = _activation(who, activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        """The block on tgt [batch, tgt_len, d_model] attending to memory [batch, src_len, d_model]."""
        who = f"TransformerDecoderLayer({self.full_name()})"
        _check_sequence(who, "tgt", tgt, self.d_model)
        _check_sequence(who, "memory", memory, self.d_model)
        tgt_mask = _convert_attention_mask(who, tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(who, memory_mask, memory.dtype)
        if cache is not None and (not isinstance(cache, (list, tuple)) or len(cache) != 2):
            raise TypeError(f"{who}: argument 'cache' expected (Cache, StaticCache) from gen_cache, got "
                            f"{type(cache).__name__}")
        residual = tgt
        if self.normalize_before:
            tgt = self.norm1(tgt)
        if cache is None:
            tgt = self.self_attn(tgt, tgt, tgt, tgt_mask, None)
        else:
            tgt, incremental_cache = self.self_attn(tgt, tgt, tgt, tgt_mask, cache[0])
        tgt = _F.add(residual, self.dropout1(tgt))
        if not self.normalize_before:
            tgt = self.norm1(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm2(tgt)
        if cache is None:
            tgt = self.cross_attn(tgt, memory, memory, memory_mask, None)
        else:
            tgt, static_cache = self.cross_attn(tgt, memory, memory, memory_mask, cache[1])
        tgt = _F.add(residual, self.dropout2(tgt))
        if not self.normalize_before:
            tgt = self.norm2(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm3(tgt)
        tgt = self.linear2(self.dropout(self.activation(self.linear1(tgt))))
        tgt = _F.add(residual, self.dropout3(tgt))
        if not self.normalize_before:
            tgt = self.norm3(tgt)
        return tgt if cache is None else (tgt, (incremental_cache, static_cache))

    def gen_cache(self, memory):
        """(an empty self-attention Cache, the cross-attention StaticCache of memory)."""
        incremental_cache = self.self_attn.gen_cache(memory, type=self.self_attn.Cache)
        static_cache = self.cross_attn.gen_cache(memory, memory, type=self.cross_attn.StaticCache)
        return incremental_cache, static_cache


class TransformerDecoder(Layer):
    """A stack of ``num_layers`` decoder layers (Paddle's ``paddle.nn.TransformerDecoder``),
    built as TransformerEncoder's, with ``norm`` on the output.
    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, cache=None)``.

    >>> layer = eager.nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0)
    >>> decoder = eager.nn.TransformerDecoder(layer, num_layers=2)
    >>> decoder(eager.randn([2, 5, 16]), eager.randn([2, 7, 16])).shape
    [2, 5, 16]
    """

    def __init__(self, decoder_layer, num_layers: int, norm=None):
        super().__init__()
        self.layers = _clones("TransformerDecoder", decoder_layer, num_layers)
        self.num_layers = int(num_layers)
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        """Each layer in turn, then norm; (out, new caches) when ``cache`` is given."""
        who = f"TransformerDecoder({self.full_name()})"
        tgt_mask = _convert_attention_mask(who, tgt_mask, check_float(who, "tgt", tgt).dtype)
        memory_mask = _convert_attention_mask(who, memory_mask, check_float(who, "memory", memory).dtype)
        output = tgt
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, cache=None)
            else:
                output, new_cache = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                                          cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, memory, do_zip: bool = False):
        """One (Cache, StaticCache) per layer; ``do_zip=True`` regroups them as
        (all Caches, all StaticCaches)."""
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


def _split_attr(attr, who: str, arg: str):
    """Transformer's weight_attr/bias_attr: one for all, or a list of 1, 2 or 3
    (Paddle's split between the encoder's 2 groups and the decoder's 3)."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]] * 2, [attr[0]] * 3
    if len(attr) == 2:
        return list(attr), [attr[0], attr[0], attr[-1]]
    if len(attr) == 3:
        return [attr[0], attr[-1]], list(attr)
    raise ValueError(f"{who}: argument '{arg}' expected one attribute or a list of 1, 2 or 3, got {len(attr)}")


class Transformer(Layer):
    """The encoder-decoder Transformer (Paddle's ``paddle.nn.Transformer``):
    ``num_encoder_layers`` encoder layers and ``num_decoder_layers`` decoder
    layers, each stack followed by a LayerNorm (or ``custom_encoder`` /
    ``custom_decoder``). ``forward(src, tgt, src_mask=None, tgt_mask=None,
    memory_mask=None)`` on [batch, length, d_model] inputs;
    ``generate_square_subsequent_mask(length)`` makes the causal tgt_mask.

    >>> model = eager.nn.Transformer(d_model=16, nhead=4, num_encoder_layers=1, num_decoder_layers=1,
    ...                              dim_feedforward=32, dropout=0.0)
    >>> src, tgt = eager.randn([2, 6, 16]), eager.randn([2, 5, 16])
    >>> model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(5)).shape
    [2, 5, 16]
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout=None, act_dropout=None, normalize_before: bool = False,
                 weight_attr=None, bias_attr=None, custom_encoder=None, custom_decoder=None):
        super().__init__()
        who = "Transformer"
        encoder_weight_attr, decoder_weight_attr = _split_attr(weight_attr, who, "weight_attr")
        encoder_bias_attr, decoder_bias_attr = _split_attr(bias_attr, who, "bias_attr")
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    attn_dropout, act_dropout, normalize_before,
                                                    encoder_weight_attr, encoder_bias_attr)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    attn_dropout, act_dropout, normalize_before,
                                                    decoder_weight_attr, decoder_bias_attr)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, LayerNorm(d_model))
        self.d_model = d_model
        self.nhead = nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        """The decoder's output [batch, tgt_len, d_model] for tgt attending to the encoded src."""
        who = f"Transformer({self.full_name()})"
        src_mask = _convert_attention_mask(who, src_mask, check_float(who, "src", src).dtype)
        memory = self.encoder(src, src_mask=src_mask)
        tgt_mask = _convert_attention_mask(who, tgt_mask, check_float(who, "tgt", tgt).dtype)
        memory_mask = _convert_attention_mask(who, memory_mask, memory.dtype)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)

    def generate_square_subsequent_mask(self, length: int) -> Tensor:
        """[length, length] float32 (Paddle: the default dtype; docs/nn.md): 0 on and
        below the diagonal, -inf above it, so position i attends to positions <= i.
        ``length`` is an int or an integer Tensor of one element; 0 gives a [0, 0]
        mask, as in Paddle.

        >>> eager.nn.Transformer.generate_square_subsequent_mask(None, 3).numpy()
        array([[  0., -inf, -inf],
               [  0.,   0., -inf],
               [  0.,   0.,   0.]], dtype=float32)
        """
        who = "Transformer.generate_square_subsequent_mask"
        length = to_int(length, who, "length")
        if length < 0:
            raise ValueError(f"{who}: argument 'length' expected a non-negative int, got {length}")
        return _F.triu(_F.full([length, length], -math.inf, "float32"), 1)


__all__ = ["MultiHeadAttention", "Transformer", "TransformerDecoder", "TransformerDecoderLayer",
           "TransformerEncoder", "TransformerEncoderLayer"]
