"""Paddle's ``fused_multi_transformer``: a stack of transformer layers (self-attention
then feed-forward, pre- or post-layer-norm) with the key/value caches of
generation, composed per layer of the pieces of fused_multi_head_attention and
fused_feedforward (eager.incubate.nn.functional.transformer) and the rotation of
fused_rotary_position_embedding.

Two stages, as Paddle's kernel: without ``time_step`` (the context stage) the
whole sequence attends to itself, after any ``pre_caches`` prefix, and the keys
and values are written to the front of each cache; with ``time_step`` (the decode
stage) one new token per sequence writes its key and value at position
``time_step`` (``seq_lens[b]`` per sequence when given) and attends to the cache
up to there. The caches keep Paddle's shape ``[2, batch, num_heads, max_seq_len,
head_dim]`` (keys, then values) in plain order and are updated in place."""
from __future__ import annotations

import numbers

import numpy as np

from ....arguments import describe
from ....composite._paddle_api import composed_in
from ....creation import to_tensor
from ....generated import forward_api as _F
from ....nn import functional as F
from ....tensor import Tensor
from . import _checks
from .rotary import _rotate
from .transformer import _attend, _dropout, _feedforward, _layer_norm, _project_qkv

_composed = composed_in(_checks.NAMESPACE)

_FN = "fused_multi_transformer"
_ACTIVATIONS = {
    "gelu": lambda t: F.gelu(t, approximate=True),  # the cuBLASLt GELU epilogue of Paddle's kernel: tanh form
    "relu": F.relu,
    "none": lambda t: t,
}


def _who() -> str:
    return _checks.who(_FN)


def _per_layer(arg: str, value, count, optional: bool) -> list:
    """The list of per-layer tensors ``value`` (None entries allowed when
    ``optional``, and None itself: no such tensor in any layer)."""
    if value is None and optional and count is not None:
        return [None] * count
    if isinstance(value, Tensor) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{_who()}: argument '{arg}' expected a list or tuple of Tensors (one per layer), got "
                        f"{describe(value)}")
    if count is None and not value:
        raise ValueError(f"{_who()}: argument '{arg}' expected at least one layer's Tensor, got an empty list")
    if count is not None and len(value) != count:
        raise ValueError(f"{_who()}: argument '{arg}' expected {count} Tensors (one per layer, as qkv_weights), got "
                         f"{len(value)}")
    return list(value)


def _each(arg: str, values: list, x: Tensor, shape, optional: bool) -> None:
    for i, value in enumerate(values):
        wanted = shape(i) if callable(shape) else shape
        _checks.like(_FN, f"{arg}[{i}]", value, x, shape=wanted, optional=optional)


def _qkv_layout(x: Tensor, qkv_weights: list, trans_qkvw: bool) -> tuple:
    """(num_heads, head_dim, the expected qkv_weight shape) from qkv_weights[0]."""
    embed = x.shape[-1]
    first = _checks.like(_FN, "qkv_weights[0]", qkv_weights[0], x, optional=False)
    dims = first.shape
    if trans_qkvw:
        if len(dims) != 4 or dims[0] != 3 or dims[3] != embed:
            raise ValueError(f"{_who()}: argument 'qkv_weights[0]' expected shape [3, num_heads, head_dim, {embed}] "
                             f"(trans_qkvw=True), got {dims}")
        return dims[1], dims[2], dims
    if len(dims) != 4 or dims[0] != embed or dims[1] != 3:
        raise ValueError(f"{_who()}: argument 'qkv_weights[0]' expected shape [{embed}, 3, num_heads, head_dim] "
                         f"(trans_qkvw=False), got {dims}")
    return dims[2], dims[3], dims


def _int_tensor(arg: str, value) -> np.ndarray:
    """An integer Tensor's values on the host (time_step and seq_lens set shapes
    and masks; Paddle's kernel reads time_step on the host too)."""
    if not isinstance(value, Tensor) or not value.dtype.is_integer:
        raise TypeError(f"{_who()}: argument '{arg}' expected an integer Tensor, got "
                        f"{value.dtype if isinstance(value, Tensor) else describe(value)}")
    return np.asarray(value.numpy()).astype(np.int64)


def _time_step(value, seq: int, cache_kvs, max_len: int):
    if value is None:
        return None
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        step = int(value)
    else:
        values = _int_tensor("time_step", value).reshape(-1)
        if values.size != 1:
            raise ValueError(f"{_who()}: argument 'time_step' expected one value (shape [1]), got shape "
                             f"{value.shape}")
        step = int(values[0])
    if cache_kvs is None:
        raise ValueError(f"{_who()}: argument 'time_step' expected None without cache_kvs (the decode stage "
                         f"reads and writes the caches), got {step}")
    if seq != 1:
        raise ValueError(f"{_who()}: argument 'x' expected one token per sequence ([batch, 1, embed_dim]) with "
                         f"time_step given (the decode stage), got sequence length {seq}")
    if not 0 < step < max_len:
        raise ValueError(f"{_who()}: argument 'time_step' expected a value in [1, {max_len - 1}] (the tokens "
                         f"already cached; the caches' max_seq_len is {max_len}), got {step}")
    return step


def _check_mask(attn_mask, x: Tensor, target: list) -> None:
    if attn_mask is None:
        return
    _checks.like(_FN, "attn_mask", attn_mask, x, optional=False)
    dims = attn_mask.shape
    if len(dims) > 4 or any(d not in (1, t) for d, t in zip(dims[::-1], target[::-1])):
        raise ValueError(f"{_who()}: argument 'attn_mask' expected a shape that broadcasts to {target} [batch, "
                         f"num_heads, seq_len, key_len], got {dims}")


def _hide(valid: np.ndarray, like: Tensor) -> Tensor:
    """An additive mask of like's dtype: 0 where ``valid``, -inf elsewhere."""
    return to_tensor(np.where(valid, 0.0, -np.inf), dtype=like.dtype, place=like.place)


def _rope(t: Tensor, cos: Tensor, sin: Tensor, dims: int) -> Tensor:
    """``t * cos + rotate_half(t) * sin`` within each of ``dims`` equal chunks of
    the head dimension (t ``[batch, heads, seq, head_dim]``, cos and sin
    ``[batch, 1, seq, head_dim]``)."""
    shape = t.shape
    if dims == 2:
        chunked = shape[:3] + [2, shape[3] // 2]
        table = cos.shape[:3] + [2, shape[3] // 2]
        t, cos, sin = _F.reshape(t, chunked), _F.reshape(cos, table), _F.reshape(sin, table)
    out = _F.add(_F.multiply(t, cos), _F.multiply(_rotate(t, False), sin))
    return _F.reshape(out, shape) if dims == 2 else out


@_composed
def fused_multi_transformer(x, ln_scales, ln_biases, qkv_weights, qkv_biases, linear_weights, linear_biases,
                            ffn_ln_scales, ffn_ln_biases, ffn1_weights, ffn1_biases, ffn2_weights, ffn2_biases,
                            pre_layer_norm=True, epsilon=1e-05, cache_kvs=None, pre_caches=None, seq_lens=None,
                            rotary_embs=None, time_step=None, attn_mask=None, dropout_rate=0.0, rotary_emb_dims=0,
                            activation="gelu", training=False, mode="upscale_in_train", trans_qkvw=True, ring_id=-1,
                            name=None):
    """Runs ``len(qkv_weights)`` transformer layers on x ``[batch, seq_len,
    embed_dim]``. Layer i, with ``p = dropout_rate`` (dropping only when
    ``training``, scaled as ``mode`` says)::

        h   = layer_norm(x, ln_scales[i], ln_biases[i]) if pre_layer_norm else x
        q, k, v = split(h @ qkv_weights[i] + qkv_biases[i])        # [batch, heads, seq, head_dim]
        q, k = rotary(q), rotary(k)                                # with rotary_emb_dims > 0
        a   = dropout(softmax(q / sqrt(head_dim) @ k^T + attn_mask), p) @ v
        out = x + dropout(merge_heads(a) @ linear_weights[i] + linear_biases[i], p)
        out = out if pre_layer_norm else layer_norm(out, ln_scales[i], ln_biases[i])
        f   = layer_norm(out, ffn_ln_scales[i], ffn_ln_biases[i]) if pre_layer_norm else out
        f   = dropout(activation(f @ ffn1_weights[i] + ffn1_biases[i]), p) @ ffn2_weights[i]
        x   = out + dropout(f + ffn2_biases[i], p)
        x   = x if pre_layer_norm else layer_norm(x, ffn_ln_scales[i], ffn_ln_biases[i])

    Shapes per layer: ``qkv_weights`` ``[3, num_heads, head_dim, embed_dim]``
    (``[embed_dim, 3, num_heads, head_dim]`` with ``trans_qkvw=False``),
    ``qkv_biases`` ``[3, num_heads, head_dim]``, ``linear_weights`` ``[num_heads
    * head_dim, embed_dim]``, ``ffn1_weights`` ``[embed_dim, dim_feedforward]``,
    ``ffn2_weights`` ``[dim_feedforward, embed_dim]``, the layer norms' and the
    other biases 1-d. Every list but the weights' may be None (or hold None): no
    such scale, shift or bias. ``activation``: 'gelu' (the tanh form Paddle's
    kernel computes), 'relu' or 'none'. ``attn_mask`` is additive, broadcast to
    ``[batch, num_heads, seq_len, key_len]``.

    Generation: ``cache_kvs`` (one ``[2, batch, num_heads, max_seq_len,
    head_dim]`` per layer) receive the keys and values; without ``time_step``
    positions ``[0, key_len)`` are written (key_len = the ``pre_caches`` prefix
    ``[2, batch, num_heads, prefix_len, head_dim]`` plus seq_len), with
    ``time_step`` t (an int or an integer Tensor ``[1]``; x then ``[batch, 1,
    embed_dim]``) position t, or ``seq_lens[b]`` for sequence b, and the token
    attends to positions ``0 ..`` that one (attn_mask broadcast to ``[batch,
    num_heads, 1, t + 1]``; pre_caches are then ignored, as they are already
    in the caches). ``seq_lens`` (integer ``[batch]``) in the context stage:
    sequence b's tokens from ``seq_lens[b]`` on are padding, hidden from
    attention, with zero output. ``rotary_embs`` ``[2, batch, 1, seq_len,
    head_dim]`` (cos, then sin) rotate q and k when ``rotary_emb_dims`` is 1
    (the two halves of head_dim) or 2 (the halves of each half of head_dim).

    Returns the output ``[batch, seq_len, embed_dim]``, or ``(output,
    cache_kvs)`` with caches given (the same tensors, updated in place).

    >>> x = eager.ones([1, 2, 4])
    >>> out = eager.incubate.nn.functional.fused_multi_transformer(
    ...     x, [eager.ones([4])], [eager.zeros([4])], [eager.ones([3, 2, 2, 4])], [eager.zeros([3, 2, 2])],
    ...     [eager.ones([4, 4])], [eager.zeros([4])], [eager.ones([4])], [eager.zeros([4])],
    ...     [eager.ones([4, 8])], [eager.zeros([8])], [eager.ones([8, 4])], [eager.zeros([4])])
    >>> out.shape
    [1, 2, 4]
    """
    _checks.floating(_FN, "x", x)
    _checks.ndim(_FN, "x", x, (3,))
    batch, seq, embed = x.shape
    trans = _checks.flag(_FN, "trans_qkvw", trans_qkvw)
    pre = _checks.flag(_FN, "pre_layer_norm", pre_layer_norm)
    training = _checks.flag(_FN, "training", training)
    _checks.mode(_FN, mode)
    _checks.single_card(_FN, ring_id)
    rate = _checks.rate(_FN, "dropout_rate", dropout_rate)
    eps = _checks.positive(_FN, "epsilon", epsilon)
    if eps > 1e-3:
        raise ValueError(f"{_who()}: argument 'epsilon' expected a value in [0, 0.001] (as Paddle's op), got {eps}")
    if not isinstance(activation, str) or activation not in _ACTIVATIONS:
        raise ValueError(f"{_who()}: argument 'activation' expected 'gelu', 'relu' or 'none', got {activation!r}")

    qkv_weights = _per_layer("qkv_weights", qkv_weights, None, False)
    layers = len(qkv_weights)
    heads, head_dim, qkv_shape = _qkv_layout(x, qkv_weights, trans)
    weights = {"linear_weights": linear_weights, "ffn1_weights": ffn1_weights, "ffn2_weights": ffn2_weights}
    weights = {arg: _per_layer(arg, value, layers, False) for arg, value in weights.items()}
    optional = {"ln_scales": ln_scales, "ln_biases": ln_biases, "qkv_biases": qkv_biases,
                "linear_biases": linear_biases, "ffn_ln_scales": ffn_ln_scales, "ffn_ln_biases": ffn_ln_biases,
                "ffn1_biases": ffn1_biases, "ffn2_biases": ffn2_biases}
    optional = {arg: _per_layer(arg, value, layers, True) for arg, value in optional.items()}
    _each("qkv_weights", qkv_weights, x, qkv_shape, False)
    _each("qkv_biases", optional["qkv_biases"], x, [3, heads, head_dim], True)
    _each("linear_weights", weights["linear_weights"], x, [heads * head_dim, embed], False)
    for arg in ("ln_scales", "ln_biases", "linear_biases", "ffn_ln_scales", "ffn_ln_biases", "ffn2_biases"):
        _each(arg, optional[arg], x, [embed], True)
    hidden = []
    for i, w in enumerate(weights["ffn1_weights"]):
        _checks.like(_FN, f"ffn1_weights[{i}]", w, x, optional=False)
        if w.ndim != 2 or w.shape[0] != embed:
            raise ValueError(f"{_who()}: argument 'ffn1_weights[{i}]' expected shape [{embed}, dim_feedforward], "
                             f"got {w.shape}")
        hidden.append(w.shape[1])
    _each("ffn1_biases", optional["ffn1_biases"], x, lambda i: [hidden[i]], True)
    _each("ffn2_weights", weights["ffn2_weights"], x, lambda i: [hidden[i], embed], False)

    caches = None if cache_kvs is None else _per_layer("cache_kvs", cache_kvs, layers, False)
    max_len = None
    if caches is not None:
        first = _checks.like(_FN, "cache_kvs[0]", caches[0], x, optional=False)
        if first.ndim != 5:
            raise ValueError(f"{_who()}: argument 'cache_kvs[0]' expected shape [2, {batch}, {heads}, max_seq_len, "
                             f"{head_dim}], got {first.shape}")
        max_len = first.shape[3]
        _each("cache_kvs", caches, x, [2, batch, heads, max_len, head_dim], False)
    step = _time_step(time_step, seq, caches, max_len)
    prefixes, prefix = None, 0
    if pre_caches is not None and step is None:
        prefixes = _per_layer("pre_caches", pre_caches, layers, False)
        first = _checks.like(_FN, "pre_caches[0]", prefixes[0], x, optional=False)
        if first.ndim != 5:
            raise ValueError(f"{_who()}: argument 'pre_caches[0]' expected shape [2, {batch}, {heads}, prefix_len, "
                             f"{head_dim}], got {first.shape}")
        prefix = first.shape[3]
        _each("pre_caches", prefixes, x, [2, batch, heads, prefix, head_dim], False)
    key_len = step + 1 if step is not None else prefix + seq
    if caches is not None and step is None and key_len > max_len:
        raise ValueError(f"{_who()}: argument 'cache_kvs' expected room for {key_len} positions (pre_caches' "
                         f"{prefix} plus x's {seq}), got max_seq_len {max_len}")
    lengths = None
    if seq_lens is not None:
        lengths = _int_tensor("seq_lens", seq_lens)
        top = step if step is not None else seq
        if lengths.shape != (batch,) or lengths.min(initial=0) < 0 or lengths.max(initial=0) > top:
            raise ValueError(f"{_who()}: argument 'seq_lens' expected shape [{batch}] with values in [0, {top}] "
                             f"({'time_step' if step is not None else 'the sequence length'}), got shape "
                             f"{seq_lens.shape} with values {lengths.tolist()}")
    if isinstance(rotary_emb_dims, bool) or not isinstance(rotary_emb_dims, int) or rotary_emb_dims not in (0, 1, 2):
        raise ValueError(f"{_who()}: argument 'rotary_emb_dims' expected 0, 1 or 2, got {rotary_emb_dims!r}")
    cos = sin = None
    if rotary_emb_dims:
        if rotary_embs is None:
            raise ValueError(f"{_who()}: argument 'rotary_embs' expected a Tensor [2, {batch}, 1, {seq}, "
                             f"{head_dim}] with rotary_emb_dims={rotary_emb_dims}, got None")
        _checks.like(_FN, "rotary_embs", rotary_embs, x, shape=[2, batch, 1, seq, head_dim], optional=False)
        if head_dim % (2 * rotary_emb_dims):
            raise ValueError(f"{_who()}: argument 'rotary_emb_dims' expected a divisor of head_dim / 2 "
                             f"({head_dim} / 2), got {rotary_emb_dims}")
        cos, sin = _F.unbind(rotary_embs, 0)
    _check_mask(attn_mask, x, [batch, heads, seq, key_len])

    # Masks from seq_lens and time_step (host values, as Paddle's kernel reads them).
    hidden_keys = rows = write = None
    if step is not None:
        positions = np.full(batch, step) if lengths is None else lengths
        write = to_tensor((np.arange(max_len)[None, :] == positions[:, None]).reshape(1, batch, 1, max_len, 1),
                          place=x.place)
        if lengths is not None:
            hidden_keys = _hide((np.arange(key_len)[None, :] <= positions[:, None]).reshape(batch, 1, 1, key_len), x)
    elif lengths is not None:
        visible = np.arange(seq)[None, :] < np.maximum(lengths, 1)[:, None]
        visible = np.concatenate([np.ones((batch, prefix), bool), visible], 1)
        hidden_keys = _hide(visible.reshape(batch, 1, 1, key_len), x)
        rows = to_tensor((np.arange(seq)[None, :] < lengths[:, None]).reshape(batch, seq, 1), place=x.place)
    mask = attn_mask
    if hidden_keys is not None:
        mask = hidden_keys if mask is None else _F.add(mask, hidden_keys)

    act = _ACTIVATIONS[activation]
    new_caches = []
    out = x
    for i in range(layers):
        residual = out
        h = _layer_norm(out, optional["ln_scales"][i], optional["ln_biases"][i], eps) if pre else out
        q, k, v = _project_qkv(h, qkv_weights[i], optional["qkv_biases"][i], heads, head_dim, trans)
        if cos is not None:
            q, k = _rope(q, cos, sin, rotary_emb_dims), _rope(k, cos, sin, rotary_emb_dims)
        if step is not None:
            full = [2, batch, heads, max_len, head_dim]
            kv = _F.where(_F.expand(write, full), _F.expand(_F.stack([k, v], 0), full), caches[i])
            new_caches.append(kv)
            k, v = _F.unbind(_F.slice(kv, [3], [0], [key_len]), 0)
        else:
            if prefixes is not None:
                k_pre, v_pre = _F.unbind(prefixes[i], 0)
                k, v = _F.concat([k_pre, k], 2), _F.concat([v_pre, v], 2)
            if caches is not None:
                kv = _F.stack([k, v], 0)
                if key_len < max_len:
                    kv = _F.concat([kv, _F.slice(caches[i], [3], [key_len], [max_len])], 3)
                new_caches.append(kv)
        attended = _attend(q, k, v, mask, rate, training, mode)
        attended = _F.matmul(attended, weights["linear_weights"][i])
        if optional["linear_biases"][i] is not None:
            attended = _F.add(attended, optional["linear_biases"][i])
        out = _F.add(residual, _dropout(attended, rate, training, mode))
        if not pre:
            out = _layer_norm(out, optional["ln_scales"][i], optional["ln_biases"][i], eps)
        ffn_ln = (optional["ffn_ln_scales"][i], optional["ffn_ln_biases"][i], eps)
        out = _feedforward(out, weights["ffn1_weights"][i], weights["ffn2_weights"][i], optional["ffn1_biases"][i],
                           optional["ffn2_biases"][i], ffn_ln, ffn_ln, rate, rate, act, pre, training, mode, True)
    if rows is not None:
        out = _F.where(_F.expand(rows, out.shape), out, _F.zeros_like(out))
    if caches is None:
        return out
    for cache, value in zip(caches, new_caches):
        cache.set_value(value)  # in place and unrecorded, as Paddle's kernel writes its caches
    return out, list(caches)


__all__ = ["fused_multi_transformer"]
