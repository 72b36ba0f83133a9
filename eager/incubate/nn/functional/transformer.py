"""Paddle's fused transformer blocks (``fused_feedforward``,
``fused_multi_head_attention``, ``fused_bias_dropout_residual_layer_norm``),
composed of matmul, layer_norm, softmax, dropout and the activation ops, in the
order Paddle's fused kernels compute them. The parameters keep the layouts of
Paddle's kernels (qkv_weight ``[3, num_heads, head_dim, embed_dim]``), so the
weights of a Paddle model load as they are."""
from __future__ import annotations

import numbers

from ....composite._paddle_api import composed_in
from ....generated import forward_api as _F
from ....nn import functional as F
from . import _checks

_composed = composed_in(_checks.NAMESPACE)


def _dropout(x, p: float, training: bool, mode: str):
    if p == 0.0 and mode == "upscale_in_train":
        return x
    return F.dropout(x, p, training=training, mode=mode)


def _layer_norm(x, scale, bias, epsilon: float):
    return F.layer_norm(x, [x.shape[-1]], scale, bias, epsilon)


def _common(fn: str, training, mode, ring_id, **rates) -> dict:
    _checks.flag(fn, "training", training)
    _checks.mode(fn, mode)
    _checks.single_card(fn, ring_id)
    return {arg: _checks.rate(fn, arg, value) for arg, value in rates.items()}


@_composed
def fused_feedforward(x, linear1_weight, linear2_weight, linear1_bias=None, linear2_bias=None, ln1_scale=None,
                      ln1_bias=None, ln2_scale=None, ln2_bias=None, dropout1_rate=0.5, dropout2_rate=0.5,
                      activation="relu", ln1_epsilon=1e-5, ln2_epsilon=1e-5, pre_layer_norm=False, training=True,
                      mode="upscale_in_train", ring_id=-1, add_residual=True, name=None):
    """A transformer feed-forward block::

        out = layer_norm(x, ln1) if pre_layer_norm else x
        out = dropout2(linear2(dropout1(activation(linear1(out)))))
        out = x + out if add_residual else out
        out = out if pre_layer_norm else layer_norm(out, ln2)

    ``linear1_weight`` is ``[d_model, dim_feedforward]``, ``linear2_weight``
    ``[dim_feedforward, d_model]``; ``activation`` 'relu' or 'gelu' (exact).

    >>> x = eager.ones([1, 2, 4])
    >>> out = eager.incubate.nn.functional.fused_feedforward(x, eager.ones([4, 8]), eager.ones([8, 4]),
    ...                                                      dropout1_rate=0.0, dropout2_rate=0.0)
    >>> out.shape
    [1, 2, 4]
    """
    fn = "fused_feedforward"
    _checks.floating(fn, "x", x)
    d_model = x.shape[-1] if x.ndim else 0
    _checks.like(fn, "linear1_weight", linear1_weight, x, optional=False)
    if linear1_weight.ndim != 2 or linear1_weight.shape[0] != d_model:
        raise ValueError(f"{_checks.who(fn)}: argument 'linear1_weight' expected shape [{d_model}, "
                         f"dim_feedforward] (x's last dimension first), got {linear1_weight.shape}")
    hidden = linear1_weight.shape[1]
    _checks.like(fn, "linear2_weight", linear2_weight, x, shape=[hidden, d_model], optional=False)
    _checks.like(fn, "linear1_bias", linear1_bias, x, shape=[hidden])
    for arg, value in (("linear2_bias", linear2_bias), ("ln1_scale", ln1_scale), ("ln1_bias", ln1_bias),
                       ("ln2_scale", ln2_scale), ("ln2_bias", ln2_bias)):
        _checks.like(fn, arg, value, x, shape=[d_model])
    if not isinstance(activation, str) or activation not in ("relu", "gelu"):
        raise ValueError(f"{_checks.who(fn)}: argument 'activation' expected 'relu' or 'gelu', got {activation!r}")
    rates = _common(fn, training, mode, ring_id, dropout1_rate=dropout1_rate, dropout2_rate=dropout2_rate)
    eps1 = _checks.positive(fn, "ln1_epsilon", ln1_epsilon)
    eps2 = _checks.positive(fn, "ln2_epsilon", ln2_epsilon)
    _checks.flag(fn, "pre_layer_norm", pre_layer_norm)
    _checks.flag(fn, "add_residual", add_residual)

    act = F.relu if activation == "relu" else F.gelu
    return _feedforward(x, linear1_weight, linear2_weight, linear1_bias, linear2_bias, (ln1_scale, ln1_bias, eps1),
                        (ln2_scale, ln2_bias, eps2), rates["dropout1_rate"], rates["dropout2_rate"], act,
                        pre_layer_norm, training, mode, add_residual)


def _feedforward(x, w1, w2, b1, b2, ln1, ln2, rate1: float, rate2: float, act, pre_layer_norm: bool, training: bool,
                 mode: str, add_residual: bool):
    """fused_feedforward's computation on checked arguments: ``ln1``/``ln2`` are
    (scale, bias, epsilon), ``act`` the activation function (also used by
    fused_multi_transformer's feed-forward blocks)."""
    out = _layer_norm(x, *ln1) if pre_layer_norm else x
    out = _F.matmul(out, w1)
    if b1 is not None:
        out = _F.add(out, b1)
    out = act(out)
    out = _F.matmul(_dropout(out, rate1, training, mode), w2)
    if b2 is not None:
        out = _F.add(out, b2)
    out = _dropout(out, rate2, training, mode)
    if add_residual:
        out = _F.add(x, out)
    return out if pre_layer_norm else _layer_norm(out, *ln2)


@_composed
def fused_bias_dropout_residual_layer_norm(x, residual, bias=None, ln_scale=None, ln_bias=None, dropout_rate=0.5,
                                           ln_epsilon=1e-5, training=True, mode="upscale_in_train", name=None):
    """``layer_norm(residual + dropout(x + bias))`` over the last axis.

    >>> x, r = eager.ones([2, 4]), eager.zeros([2, 4])
    >>> eager.incubate.nn.functional.fused_bias_dropout_residual_layer_norm(x, r, dropout_rate=0.0).numpy()[0]
    array([0., 0., 0., 0.], dtype=float32)
    """
    fn = "fused_bias_dropout_residual_layer_norm"
    _checks.floating(fn, "x", x)
    _checks.like(fn, "residual", residual, x, shape=x.shape, optional=False)
    embed = x.shape[-1] if x.ndim else 0
    for arg, value in (("bias", bias), ("ln_scale", ln_scale), ("ln_bias", ln_bias)):
        _checks.like(fn, arg, value, x, shape=[embed])
    rates = _common(fn, training, mode, -1, dropout_rate=dropout_rate)
    eps = _checks.positive(fn, "ln_epsilon", ln_epsilon)
    out = x if bias is None else _F.add(x, bias)
    out = _F.add(residual, _dropout(out, rates["dropout_rate"], training, mode))
    return _layer_norm(out, ln_scale, ln_bias, eps)


def _qkv_shapes(fn: str, x, qkv_weight, qkv_bias, num_heads, transpose_qkv_wb: bool) -> tuple:
    """(num_heads, head_dim) from qkv_weight's layout, checking qkv_bias with it."""
    embed = x.shape[-1]
    if not transpose_qkv_wb:
        if qkv_weight.ndim != 4 or qkv_weight.shape[0] != 3 or qkv_weight.shape[3] != embed:
            raise ValueError(f"{_checks.who(fn)}: argument 'qkv_weight' expected shape [3, num_heads, head_dim, "
                             f"{embed}], got {qkv_weight.shape}")
        heads, head_dim = qkv_weight.shape[1], qkv_weight.shape[2]
        _checks.like(fn, "qkv_bias", qkv_bias, x, shape=[3, heads, head_dim])
        return heads, head_dim
    # a NumPy integer too: Paddle's attribute parser takes it
    if isinstance(num_heads, bool) or not isinstance(num_heads, numbers.Integral) or num_heads <= 0:
        raise ValueError(f"{_checks.who(fn)}: argument 'num_heads' expected a positive int with "
                         f"transpose_qkv_wb=True, got {num_heads!r}")
    num_heads = int(num_heads)
    if qkv_weight.ndim != 2 or qkv_weight.shape[0] != embed or qkv_weight.shape[1] % (3 * num_heads):
        raise ValueError(f"{_checks.who(fn)}: argument 'qkv_weight' expected shape [{embed}, 3 * num_heads * "
                         f"head_dim] with transpose_qkv_wb=True, got {qkv_weight.shape}")
    _checks.like(fn, "qkv_bias", qkv_bias, x, shape=[qkv_weight.shape[1]])
    return num_heads, qkv_weight.shape[1] // (3 * num_heads)


@_composed
def fused_multi_head_attention(x, qkv_weight, linear_weight, pre_layer_norm=False, pre_ln_scale=None,
                               pre_ln_bias=None, ln_scale=None, ln_bias=None, pre_ln_epsilon=1e-05, qkv_bias=None,
                               linear_bias=None, cache_kv=None, attn_mask=None, dropout_rate=0.5,
                               attn_dropout_rate=0.5, ln_epsilon=1e-05, training=True, mode="upscale_in_train",
                               ring_id=-1, add_residual=True, num_heads=-1, transpose_qkv_wb=False, name=None):
    """Self-attention of x (``[batch, seq, embed_dim]``) as Paddle's fused kernel::

        out = layer_norm(x, pre_ln) if pre_layer_norm else x
        q, k, v = (out @ qkv_weight^T + qkv_bias) split per head   # [batch, heads, seq, head_dim]
        out = dropout(softmax(q * head_dim**-0.5 @ k^T + attn_mask), attn_dropout_rate) @ v
        out = dropout(merge_heads(out) @ linear_weight + linear_bias, dropout_rate)
        out = x + out if add_residual else out
        out = out if pre_layer_norm else layer_norm(out, ln)

    qkv_weight is ``[3, num_heads, head_dim, embed_dim]`` (qkv_bias ``[3,
    num_heads, head_dim]``), or with ``transpose_qkv_wb=True`` ``[embed_dim, 3 *
    num_heads * head_dim]`` with ``num_heads`` given; linear_weight is ``[num_heads
    * head_dim, embed_dim]``. attn_mask is additive (float), broadcast to
    ``[batch, num_heads, seq, seq]``. ``cache_kv`` (decoding) is not offered.

    >>> x = eager.ones([1, 3, 4])
    >>> out = eager.incubate.nn.functional.fused_multi_head_attention(
    ...     x, eager.ones([3, 2, 2, 4]), eager.ones([4, 4]), dropout_rate=0.0, attn_dropout_rate=0.0)
    >>> out.shape
    [1, 3, 4]
    """
    fn = "fused_multi_head_attention"
    _checks.floating(fn, "x", x)
    _checks.ndim(fn, "x", x, (3,))
    if cache_kv is not None:
        raise ValueError(f"{_checks.who(fn)}: argument 'cache_kv' expected None (eager's fused attention has no "
                         f"decoding cache; use eager.nn.MultiHeadAttention's cache), got {type(cache_kv).__name__}")
    _checks.like(fn, "qkv_weight", qkv_weight, x, optional=False)
    _checks.flag(fn, "transpose_qkv_wb", transpose_qkv_wb)
    heads, head_dim = _qkv_shapes(fn, x, qkv_weight, qkv_bias, num_heads, transpose_qkv_wb)
    batch, seq, embed = x.shape
    _checks.like(fn, "linear_weight", linear_weight, x, shape=[heads * head_dim, embed], optional=False)
    for arg, value in (("linear_bias", linear_bias), ("pre_ln_scale", pre_ln_scale), ("pre_ln_bias", pre_ln_bias),
                       ("ln_scale", ln_scale), ("ln_bias", ln_bias)):
        _checks.like(fn, arg, value, x, shape=[embed])
    if attn_mask is not None:
        _checks.like(fn, "attn_mask", attn_mask, x, optional=False)
        target = [batch, heads, seq, seq]
        dims = attn_mask.shape
        if len(dims) > 4 or any(d not in (1, t) for d, t in zip(dims[::-1], target[::-1])):
            raise ValueError(f"{_checks.who(fn)}: argument 'attn_mask' expected a shape that broadcasts to "
                             f"{target} [batch, num_heads, seq, seq], got {dims}")
    rates = _common(fn, training, mode, ring_id, dropout_rate=dropout_rate, attn_dropout_rate=attn_dropout_rate)
    pre_eps = _checks.positive(fn, "pre_ln_epsilon", pre_ln_epsilon)
    eps = _checks.positive(fn, "ln_epsilon", ln_epsilon)
    _checks.flag(fn, "pre_layer_norm", pre_layer_norm)
    _checks.flag(fn, "add_residual", add_residual)

    out = _layer_norm(x, pre_ln_scale, pre_ln_bias, pre_eps) if pre_layer_norm else x
    q, k, v = _project_qkv(out, qkv_weight, qkv_bias, heads, head_dim, not transpose_qkv_wb)
    out = _F.matmul(_attend(q, k, v, attn_mask, rates["attn_dropout_rate"], training, mode), linear_weight)
    if linear_bias is not None:
        out = _F.add(out, linear_bias)
    out = _dropout(out, rates["dropout_rate"], training, mode)
    if add_residual:
        out = _F.add(x, out)
    return out if pre_layer_norm else _layer_norm(out, ln_scale, ln_bias, eps)


def _project_qkv(x, weight, bias, heads: int, head_dim: int, output_major: bool) -> tuple:
    """q, k, v (each ``[batch, heads, seq, head_dim]``) of ``x @ weight + bias``,
    the projection's outputs laid out (3, heads, head_dim): ``weight`` holds
    them first (``[3, heads, head_dim, embed]``) when ``output_major``, last
    (``[embed, 3 * heads * head_dim]`` or ``[embed, 3, heads, head_dim]``)
    otherwise."""
    width, embed = 3 * heads * head_dim, x.shape[-1]
    if output_major:
        qkv = _F.matmul(x, _F.reshape(weight, [width, embed]), False, True)
    else:
        qkv = _F.matmul(x, _F.reshape(weight, [embed, width]))
    if bias is not None:
        qkv = _F.add(qkv, _F.reshape(bias, [width]))
    batch, seq = qkv.shape[0], qkv.shape[1]
    qkv = _F.transpose(_F.reshape(qkv, [batch, seq, 3, heads, head_dim]), [2, 0, 3, 1, 4])
    return tuple(_F.unbind(qkv, 0))


def _attend(q, k, v, attn_mask, rate: float, training: bool, mode: str):
    """``dropout(softmax(q / sqrt(head_dim) @ k^T + attn_mask)) @ v`` with the
    heads merged back: q ``[batch, heads, seq, head_dim]``, k and v ``[batch,
    heads, kv_len, head_dim]``; returns ``[batch, seq, heads * head_dim]``."""
    batch, heads, seq, head_dim = q.shape
    scores = _F.matmul(_F.scale(q, head_dim ** -0.5), k, False, True)
    if attn_mask is not None:
        scores = _F.add(scores, attn_mask)
    weights = _dropout(F.softmax(scores, -1), rate, training, mode)
    out = _F.transpose(_F.matmul(weights, v), [0, 2, 1, 3])
    return _F.reshape(out, [batch, seq, heads * head_dim])


__all__ = ["fused_bias_dropout_residual_layer_norm", "fused_feedforward", "fused_multi_head_attention"]
