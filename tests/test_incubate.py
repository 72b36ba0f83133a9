"""eager.incubate (Paddle's paddle.incubate): the fused functionals against NumPy
written from the maths, gradients against float64 finite differences, the fused
layers' parameter layouts and forward, LookAhead/ModelAverage against updates
computed by hand, incubate.autograd's matrices against analytic derivatives, and
errors by type and message. Runs on both device axes."""
from __future__ import annotations

import doctest
import importlib
import math

import numpy as np
import pytest

import eager
from eager import incubate
from eager.autograd import gradcheck
from eager.incubate.nn import functional as IF

pytestmark = pytest.mark.usefixtures("device")

_erf = np.vectorize(math.erf)


def _t(array, grad=False, dtype=None):
    return eager.to_tensor(np.asarray(array, dtype=dtype), stop_gradient=not grad)


def _ln(x, scale=None, bias=None, eps=1e-5, axes=(-1,)):
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    out = (x - mean) / np.sqrt(var + eps)
    if scale is not None:
        out = out * scale
    return out if bias is None else out + bias


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _gelu(x):
    return 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))


def _gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


# -- fused linear ---------------------------------------------------------------------------------

@pytest.mark.parametrize("tx, ty", [(False, False), (True, False), (False, True), (True, True)])
def test_fused_matmul_bias_matches_numpy(rng, tx, ty):
    a, b, bias = rng.normal(size=(3, 4)), rng.normal(size=(4, 5)), rng.normal(size=5)
    x, y = (a.T if tx else a), (b.T if ty else b)
    out = IF.fused_matmul_bias(_t(x), _t(y), _t(bias), tx, ty)
    np.testing.assert_allclose(out.numpy(), a @ b + bias, rtol=1e-12)
    np.testing.assert_allclose(IF.fused_matmul_bias(_t(x), _t(y), None, tx, ty).numpy(), a @ b, rtol=1e-12)
    batched = rng.normal(size=(2, 5, 4))  # without a bias, a plain (batched) matmul
    np.testing.assert_allclose(IF.fused_matmul_bias(_t(x), _t(batched), None, tx, True).numpy(),
                               a @ np.swapaxes(batched, 1, 2), rtol=1e-12)


def test_fused_linear_and_activation(rng):
    x, w, bias = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 6)), rng.normal(size=6)
    np.testing.assert_allclose(IF.fused_linear(_t(x), _t(w), _t(bias)).numpy(), x @ w + bias, rtol=1e-12)
    np.testing.assert_allclose(IF.fused_linear(_t(x), _t(w.T.copy()), _t(bias), transpose_weight=True).numpy(),
                               x @ w + bias, rtol=1e-12)
    x2 = x.reshape(6, 4)
    for act, ref in ((None, lambda v: v), ("none", lambda v: v), ("relu", lambda v: np.maximum(v, 0)),
                     ("gelu", _gelu_tanh)):
        out = IF.fused_linear_activation(_t(x2), _t(w), _t(bias), activation=act)
        np.testing.assert_allclose(out.numpy(), ref(x2 @ w + bias), rtol=1e-10, atol=1e-12)


def test_fused_linear_gradients():
    rng = np.random.default_rng(3)
    x, w, b = (_t(rng.normal(size=s), grad=True) for s in ((2, 3), (3, 4), (4,)))
    assert gradcheck(lambda x, w, b: IF.fused_linear_activation(x, w, b, activation="gelu"), (x, w, b))
    assert gradcheck(lambda x, w, b: IF.fused_matmul_bias(x, w, b, True, False),
                     (_t(rng.normal(size=(3, 2)), grad=True), w, b))


# -- feed-forward, attention, bias-dropout-residual-layer-norm -----------------------------------------

def _ffn_ref(x, w1, b1, w2, b2, s1, c1, s2, c2, act, pre, residual):
    h = _ln(x, s1, c1) if pre else x
    h = h @ w1 + b1
    h = np.maximum(h, 0) if act == "relu" else _gelu(h)
    h = h @ w2 + b2
    if residual:
        h = x + h
    return h if pre else _ln(h, s2, c2)


@pytest.mark.parametrize("act, pre, residual", [("relu", False, True), ("gelu", True, True), ("relu", True, False)])
def test_fused_feedforward_matches_numpy(rng, act, pre, residual):
    d, f = 4, 6
    x = rng.normal(size=(2, 3, d))
    w1, b1, w2, b2 = rng.normal(size=(d, f)), rng.normal(size=f), rng.normal(size=(f, d)), rng.normal(size=d)
    s1, c1, s2, c2 = (rng.normal(size=d) for _ in range(4))
    out = IF.fused_feedforward(_t(x), _t(w1), _t(w2), _t(b1), _t(b2), _t(s1), _t(c1), _t(s2), _t(c2),
                               dropout1_rate=0.0, dropout2_rate=0.0, activation=act, pre_layer_norm=pre,
                               add_residual=residual)
    want = _ffn_ref(x, w1, b1, w2, b2, s1, c1, s2, c2, act, pre, residual)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10, atol=1e-12)


def _mha_ref(x, qkv_w, qkv_b, lin_w, lin_b, mask, pre, s_pre, c_pre, s, c, residual=True):
    batch, seq, embed = x.shape
    _, heads, hd, _ = qkv_w.shape
    h = _ln(x, s_pre, c_pre) if pre else x
    qkv = np.einsum("bse,tnde->tbnsd", h, qkv_w) + qkv_b[:, None, :, None, :]
    q, k, v = qkv[0] / math.sqrt(hd), qkv[1], qkv[2]
    scores = q @ np.swapaxes(k, -1, -2)
    if mask is not None:
        scores = scores + mask
    out = _softmax(scores) @ v                                   # [b, n, s, d]
    out = out.transpose(0, 2, 1, 3).reshape(batch, seq, heads * hd) @ lin_w + lin_b
    if residual:
        out = x + out
    return out if pre else _ln(out, s, c)


@pytest.mark.parametrize("pre", [False, True])
def test_fused_multi_head_attention_matches_numpy(rng, pre):
    b, s, e, n = 2, 3, 4, 2
    x = rng.normal(size=(b, s, e))
    qkv_w, qkv_b = rng.normal(size=(3, n, e // n, e)), rng.normal(size=(3, n, e // n))
    lin_w, lin_b = rng.normal(size=(e, e)), rng.normal(size=e)
    ln = [rng.normal(size=e) for _ in range(4)]
    mask = np.where(rng.random((b, 1, s, s)) < 0.3, -1e4, 0.0)
    kwargs = dict(pre_layer_norm=pre, pre_ln_scale=_t(ln[0]), pre_ln_bias=_t(ln[1]), ln_scale=_t(ln[2]),
                  ln_bias=_t(ln[3]), qkv_bias=_t(qkv_b), linear_bias=_t(lin_b), attn_mask=_t(mask),
                  dropout_rate=0.0, attn_dropout_rate=0.0)
    out = IF.fused_multi_head_attention(_t(x), _t(qkv_w), _t(lin_w), **kwargs)
    want = _mha_ref(x, qkv_w, qkv_b, lin_w, lin_b, mask, pre, *ln)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-9, atol=1e-12)
    # The [embed, 3 * embed] layout (transpose_qkv_wb) computes the same thing.
    w_t = qkv_w.reshape(3 * e, e).T.copy()
    kwargs["qkv_bias"] = _t(qkv_b.reshape(-1))
    out_t = IF.fused_multi_head_attention(_t(x), _t(w_t), _t(lin_w), num_heads=n, transpose_qkv_wb=True, **kwargs)
    np.testing.assert_allclose(out_t.numpy(), want, rtol=1e-9, atol=1e-12)
    no_res = IF.fused_multi_head_attention(_t(x), _t(qkv_w), _t(lin_w), add_residual=False, **kwargs | {
        "qkv_bias": _t(qkv_b)})
    np.testing.assert_allclose(no_res.numpy(), _mha_ref(x, qkv_w, qkv_b, lin_w, lin_b, mask, pre, *ln, False),
                               rtol=1e-9, atol=1e-12)


def test_fused_attention_and_feedforward_gradients():
    rng = np.random.default_rng(5)
    x = _t(rng.normal(size=(1, 3, 4)), grad=True)
    qkv_w, lin_w = _t(rng.normal(size=(3, 2, 2, 4)), grad=True), _t(rng.normal(size=(4, 4)), grad=True)
    qkv_b = _t(rng.normal(size=(3, 2, 2)), grad=True)
    assert gradcheck(lambda x, w, lw, qb: IF.fused_multi_head_attention(
        x, w, lw, qkv_bias=qb, dropout_rate=0.0, attn_dropout_rate=0.0), (x, qkv_w, lin_w, qkv_b))
    w1, w2 = _t(rng.normal(size=(4, 5)), grad=True), _t(rng.normal(size=(5, 4)), grad=True)
    assert gradcheck(lambda x, a, b: IF.fused_feedforward(x, a, b, dropout1_rate=0.0, dropout2_rate=0.0,
                                                          activation="gelu", pre_layer_norm=True), (x, w1, w2))


def test_fused_bias_dropout_residual_layer_norm(rng):
    x, r, bias, s, c = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 4)), *(rng.normal(size=4) for _ in range(3))
    out = IF.fused_bias_dropout_residual_layer_norm(_t(x), _t(r), _t(bias), _t(s), _t(c), dropout_rate=0.0)
    np.testing.assert_allclose(out.numpy(), _ln(r + x + bias, s, c), rtol=1e-10, atol=1e-12)
    # Evaluation with downscale_in_infer scales the dropped branch by 1 - p.
    out = IF.fused_bias_dropout_residual_layer_norm(_t(x), _t(r), _t(bias), dropout_rate=0.25, training=False,
                                                    mode="downscale_in_infer")
    np.testing.assert_allclose(out.numpy(), _ln(r + 0.75 * (x + bias)), rtol=1e-10, atol=1e-12)


def test_dropout_in_training_keeps_or_drops_whole_elements(rng):
    x, y = np.full((400,), 2.0), rng.normal(size=400)
    out = IF.fused_dropout_add(_t(x), _t(y), p=0.5).numpy() - y
    assert np.all(np.isclose(out, 0.0) | np.isclose(out, 4.0))           # dropped, or scaled by 1 / (1 - p)
    assert 100 < np.isclose(out, 0.0).sum() < 300
    np.testing.assert_allclose(IF.fused_dropout_add(_t(x), _t(y), p=0.5, training=False).numpy(), x + y)
    np.testing.assert_allclose(IF.fused_dropout_add(_t(x), _t(y), 0.5, False, "downscale_in_infer").numpy(), 1 + y)


# -- norms, swiglu, rotary -----------------------------------------------------------------------------

def test_fused_layer_norm_with_bias_and_residual(rng):
    x, r, bias = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 4)), rng.normal(size=4)
    w, c = rng.normal(size=12), rng.normal(size=12)
    out, h, mean, variance = IF.fused_layer_norm(_t(x), _t(w), _t(c), 1e-5, residual_alpha=0.5, begin_norm_axis=1,
                                                 bias=_t(bias), residual=_t(r))
    want_h = x + bias + 0.5 * r
    np.testing.assert_allclose(h.numpy(), want_h, rtol=1e-12)
    np.testing.assert_allclose(out.numpy(), _ln(want_h, w.reshape(3, 4), c.reshape(3, 4), axes=(1, 2)), rtol=1e-10)
    assert mean.dtype == eager.float32 and mean.shape == [2] and variance.shape == [2]
    np.testing.assert_allclose(mean.numpy(), want_h.reshape(2, -1).mean(1), rtol=1e-6)
    np.testing.assert_allclose(variance.numpy(), want_h.reshape(2, -1).var(1), rtol=1e-6)
    only, none_residual, mean, _ = IF.fused_layer_norm(_t(x), _t(w[:4]), _t(c[:4]), 1e-5, begin_norm_axis=-1)
    np.testing.assert_allclose(only.numpy(), _ln(x, w[:4], c[:4]), rtol=1e-10)
    assert none_residual is None and mean.shape == [6]
    # No norm parameters: with a residual only the sum is made; without, a plain normalization.
    summed = IF.fused_layer_norm(_t(x), None, None, 1e-5, bias=_t(bias), residual=_t(r))
    np.testing.assert_allclose(summed[0].numpy(), x + bias + r, rtol=1e-12)
    assert summed[1:] == (None, None, None)
    plain = IF.fused_layer_norm(_t(x), None, None, 1e-5, begin_norm_axis=2)[0]
    np.testing.assert_allclose(plain.numpy(), _ln(x), rtol=1e-10)


def test_fused_rms_norm(rng):
    x, r, bias, w, c = rng.normal(size=(2, 5)), rng.normal(size=(2, 5)), *(rng.normal(size=5) for _ in range(3))
    out, h = IF.fused_rms_norm(_t(x), _t(w), _t(c), 1e-6, 1, bias=_t(bias), residual=_t(r))
    s = x + bias + r
    np.testing.assert_allclose(h.numpy(), s, rtol=1e-12)
    np.testing.assert_allclose(out.numpy(), s / np.sqrt((s ** 2).mean(-1, keepdims=True) + 1e-6) * w + c,
                               rtol=1e-10)
    out, none_residual = IF.fused_rms_norm(_t(x), _t(w), None, 1e-6, 1)  # scripts index [0]
    assert none_residual is None
    np.testing.assert_allclose(out.numpy(), x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6) * w, rtol=1e-10)
    xt, wt = _t(x, grad=True), _t(w, grad=True)
    assert gradcheck(lambda x, w: IF.fused_rms_norm(x, w, None, 1e-6, 1)[0], (xt, wt))


def test_swiglu(rng):
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    silu = a / (1 + np.exp(-a))
    np.testing.assert_allclose(IF.swiglu(_t(a), _t(b)).numpy(), silu * b, rtol=1e-12)
    np.testing.assert_allclose(IF.swiglu(_t(np.concatenate([a, b], -1))).numpy(), silu * b, rtol=1e-12)
    assert gradcheck(IF.swiglu, (_t(np.concatenate([a, b], -1), grad=True),))


def _rope_ref(x, sin, cos, interleaved):
    """x [b, s, h, d]; sin/cos broadcast to it."""
    if interleaved:
        rot = np.stack([-x[..., 1::2], x[..., 0::2]], -1).reshape(x.shape)
    else:
        half = x.shape[-1] // 2
        rot = np.concatenate([-x[..., half:], x[..., :half]], -1)
    return x * cos + rot * sin


def _tables(positions, dim, interleaved, base=10000.0):
    inv = base ** (-np.arange(0, dim, 2) / dim)
    pair = np.arange(dim) // 2 if interleaved else np.arange(dim) % (dim // 2)
    angle = np.asarray(positions, dtype=np.float64)[..., None] * inv[pair]
    return np.sin(angle), np.cos(angle)


@pytest.mark.parametrize("interleaved", [True, False])
def test_rotary_position_embedding(rng, interleaved):
    b, s, h, d = 2, 5, 3, 8
    q, k, v = (rng.normal(size=(b, s, h, d)) for _ in range(3))
    sin, cos = _tables(np.arange(s), d, interleaved)
    want = [_rope_ref(t, sin[None, :, None], cos[None, :, None], interleaved) for t in (q, k, v)]
    out = IF.fused_rotary_position_embedding(_t(q), _t(k), _t(v), use_neox_rotary_style=interleaved)
    for got, ref in zip(out, want):
        np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10, atol=1e-12)
    # Explicit tables, in both accepted shapes; the rotation keeps each pair's norm.
    out_q, none_k, none_v = IF.fused_rotary_position_embedding(
        _t(q), sin=_t(sin[None, :, None]), cos=_t(cos), use_neox_rotary_style=interleaved)
    assert none_k is None and none_v is None
    np.testing.assert_allclose(out_q.numpy(), want[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(out_q.numpy(), axis=-1), np.linalg.norm(q, axis=-1), rtol=1e-10)
    # position_ids pick each token's row; time_major swaps the two leading axes.
    ids = rng.integers(0, 9, (b, s))
    sin_p, cos_p = _tables(ids, d, interleaved)
    got = IF.fused_rotary_position_embedding(_t(q), position_ids=_t(ids), use_neox_rotary_style=interleaved)[0]
    np.testing.assert_allclose(got.numpy(), _rope_ref(q, sin_p[:, :, None], cos_p[:, :, None], interleaved),
                               rtol=1e-10, atol=1e-12)
    tm = IF.fused_rotary_position_embedding(_t(q.transpose(1, 0, 2, 3)), time_major=True,
                                            use_neox_rotary_style=interleaved)[0]
    np.testing.assert_allclose(tm.numpy().transpose(1, 0, 2, 3), want[0], rtol=1e-10, atol=1e-12)
    tm_ids = IF.fused_rotary_position_embedding(_t(q.transpose(1, 0, 2, 3)), position_ids=_t(ids), time_major=True,
                                                use_neox_rotary_style=interleaved)[0]
    np.testing.assert_allclose(tm_ids.numpy().transpose(1, 0, 2, 3), got.numpy(), rtol=1e-12, atol=1e-12)
    table_ids = IF.fused_rotary_position_embedding(_t(q), sin=_t(_tables(np.arange(9), d, interleaved)[0]),
                                                   cos=_t(_tables(np.arange(9), d, interleaved)[1]),
                                                   position_ids=_t(ids), use_neox_rotary_style=interleaved)[0]
    np.testing.assert_allclose(table_ids.numpy(), got.numpy(), rtol=1e-10, atol=1e-12)
    assert gradcheck(lambda t: IF.fused_rotary_position_embedding(t, use_neox_rotary_style=interleaved)[0],
                     (_t(q[:1, :3, :1], grad=True),))


# -- layers ---------------------------------------------------------------------------------------------

def test_layer_parameters_have_paddles_names_and_shapes():
    attn = incubate.nn.FusedMultiHeadAttention(8, 2)
    assert {k: v.shape for k, v in attn.state_dict().items()} == {
        "qkv_weight": [3, 2, 4, 8], "qkv_bias": [3, 2, 4], "linear_weight": [8, 8], "linear_bias": [8],
        "ln_scale": [8], "ln_bias": [8]}
    pre = incubate.nn.FusedMultiHeadAttention(8, 2, normalize_before=True, transpose_qkv_wb=True)
    assert {k: v.shape for k, v in pre.state_dict().items()} == {
        "qkv_weight": [8, 24], "qkv_bias": [24], "linear_weight": [8, 8], "linear_bias": [8],
        "pre_ln_scale": [8], "pre_ln_bias": [8]}
    ffn = incubate.nn.FusedFeedForward(4, 6, normalize_before=True)
    assert {k: v.shape for k, v in ffn.state_dict().items()} == {
        "_linear1_weight": [4, 6], "_linear1_bias": [6], "_linear2_weight": [6, 4], "_linear2_bias": [4],
        "_ln1_scale": [4], "_ln1_bias": [4]}
    enc = incubate.nn.FusedTransformerEncoderLayer(8, 2, 16)
    assert [k.split(".")[0] for k in enc.state_dict()] == ["fused_attn"] * 6 + ["ffn"] * 6
    assert incubate.nn.FusedLinear(3, 5, transpose_weight=True).weight.shape == [5, 3]
    assert incubate.nn.FusedLinear(3, 5, bias_attr=False).bias is None
    norm = incubate.nn.FusedBiasDropoutResidualLayerNorm(4)
    assert sorted(norm.state_dict()) == ["linear_bias", "ln_bias", "ln_scale"]
    np.testing.assert_array_equal(norm.ln_scale.numpy(), np.ones(4, np.float32))


def test_encoder_layer_forward_is_attention_then_feedforward(rng):
    eager.seed(7)
    layer = incubate.nn.FusedTransformerEncoderLayer(8, 2, 16, dropout_rate=0.5)
    layer.eval()  # no dropout
    x = rng.normal(size=(2, 3, 8)).astype(np.float32)
    keep = np.ones((2, 1, 3, 3), bool)
    keep[:, :, :, -1] = False
    a = {k: v.numpy().astype(np.float64) for k, v in layer.fused_attn.state_dict().items()}
    f = {k: v.numpy().astype(np.float64) for k, v in layer.ffn.state_dict().items()}
    mask = np.where(keep, 0.0, -1e9)
    h = _mha_ref(x.astype(np.float64), a["qkv_weight"], a["qkv_bias"], a["linear_weight"], a["linear_bias"], mask,
                 False, None, None, a["ln_scale"], a["ln_bias"])
    want = _ffn_ref(h, f["_linear1_weight"], f["_linear1_bias"], f["_linear2_weight"], f["_linear2_bias"], None,
                    None, f["_ln2_scale"], f["_ln2_bias"], "relu", False, True)
    out = layer(eager.to_tensor(x), eager.to_tensor(keep))
    np.testing.assert_allclose(out.numpy(), want, rtol=2e-4, atol=2e-5)


def test_state_dict_round_trip_into_a_fresh_layer(rng):
    first = incubate.nn.FusedFeedForward(4, 6, dropout_rate=0.0)
    second = incubate.nn.FusedFeedForward(4, 6, dropout_rate=0.0)
    second.set_state_dict(first.state_dict())
    x = eager.to_tensor(rng.normal(size=(2, 4)).astype(np.float32))
    np.testing.assert_array_equal(first(x).numpy(), second(x).numpy())
    linear = incubate.nn.FusedLinear(4, 3)
    np.testing.assert_allclose(linear(x).numpy(), x.numpy() @ linear.weight.numpy() + linear.bias.numpy(),
                               rtol=1e-5)
    drop = incubate.nn.FusedDropoutAdd(p=0.5)
    drop.eval()
    np.testing.assert_array_equal(drop(x, x).numpy(), 2 * x.numpy())


# -- LookAhead -----------------------------------------------------------------------------------------

def _quadratic_grads(w):
    """Gradient of sum((w - 1)**2 * c): the gradient a test sets by hand."""
    return 2.0 * (w - 1.0) * np.array([1.0, 3.0])


def _lookahead_run(opt_params, opt, steps):
    (w,) = opt_params
    for _ in range(steps):
        w.grad = eager.to_tensor(_quadratic_grads(w.numpy()))
        opt.step()
        opt.clear_grad()
    return w.numpy()


@pytest.mark.parametrize("alpha, k", [(0.5, 2), (0.8, 3), (0.3, 1)])
def test_lookahead_matches_hand_computed_updates(alpha, k):
    w = eager.create_parameter([2], "float64")
    w.set_value(np.array([3.0, -2.0]))
    opt = incubate.LookAhead(eager.optimizer.SGD(0.1, parameters=[w]), alpha=alpha, k=k)
    fast, slow = np.array([3.0, -2.0]), np.zeros(2)
    for step in range(1, 8):
        fast = fast - 0.1 * _quadratic_grads(fast)
        if step == 1:
            slow = fast.copy()
        if step % k == 0:
            fast = slow = alpha * fast + (1 - alpha) * slow
        w.grad = eager.to_tensor(_quadratic_grads(w.numpy()))
        opt.step()
        opt.clear_grad()
        np.testing.assert_allclose(w.numpy(), fast, rtol=1e-12)
    np.testing.assert_allclose(opt._accumulator("slow", w).numpy(), slow, rtol=1e-12)


def test_lookahead_state_dict_continues_identically():
    def make():
        w = eager.create_parameter([2], "float64")
        w.set_value(np.array([3.0, -2.0]))
        w.name = "w_look"
        return w, incubate.optimizer.LookAhead(eager.optimizer.Adam(0.1, parameters=[w]), alpha=0.5, k=3)
    w1, opt1 = make()
    _lookahead_run([w1], opt1, 4)
    state = opt1.state_dict()
    assert {"w_look_slow_0", "@step", "inner_optimizer"} <= set(state) and state["@step"] == 4
    w2, opt2 = make()
    w2.set_value(w1.numpy())
    opt2.set_state_dict(state)
    np.testing.assert_array_equal(_lookahead_run([w1], opt1, 5), _lookahead_run([w2], opt2, 5))
    # A bad entry leaves both optimizers as they were.
    before = opt2.state_dict()
    with pytest.raises(ValueError, match="w_look_slow_0"):
        opt2.set_state_dict({**state, "w_look_slow_0": np.zeros(3)})
    after = opt2.state_dict()
    np.testing.assert_array_equal(after["w_look_slow_0"], before["w_look_slow_0"])
    assert after["inner_optimizer"]["@step"] == before["inner_optimizer"]["@step"]


def test_lookahead_keeps_float16_slow_weights():
    w = eager.create_parameter([2], "float16")
    w.set_value(np.array([1.0, 2.0], np.float16))
    opt = incubate.LookAhead(eager.optimizer.SGD(0.5, parameters=[w]), alpha=0.5, k=2)
    for _ in range(2):
        w.grad = eager.to_tensor(np.ones(2, np.float16))
        opt.step()
    # fast: 1 -> 0.5 (slow = 0.5) -> 0.0, then 0.5 * 0.0 + 0.5 * 0.5
    np.testing.assert_array_equal(w.numpy(), [0.25, 1.25])
    assert opt._accumulator("slow", w).dtype == eager.float16


def test_lookahead_errors():
    w = eager.create_parameter([2], "float32")
    sgd = eager.optimizer.SGD(0.1, parameters=[w])
    with pytest.raises(TypeError, match="LookAhead: argument 'inner_optimizer' expected"):
        incubate.LookAhead("sgd")
    with pytest.raises(ValueError, match="LookAhead: argument 'alpha' expected a float in \\[0, 1\\], got 1.5"):
        incubate.LookAhead(sgd, alpha=1.5)
    with pytest.raises(ValueError, match="LookAhead: argument 'k' expected a positive int, got 0"):
        incubate.LookAhead(sgd, k=0)
    assert incubate.LookAhead(sgd).get_lr() == pytest.approx(0.1)
    assert incubate.optimizer.LBFGS is eager.optimizer.LBFGS  # Paddle 2.5 kept LBFGS in incubate


# -- ModelAverage --------------------------------------------------------------------------------------

def _average_reference(values, rate, min_w, max_w, move_every=16384):
    """Paddle's average_accumulates, by hand: the average apply() would give."""
    s1 = s2 = s3 = 0.0
    n_acc = old = n_upd = 0
    for value in values:
        n_upd += 1
        n_acc += 1
        s1 = s1 + value
        if n_upd % move_every == 0:
            s2, s1 = s2 + s1, 0.0
        if n_acc >= min_w and n_acc >= min(max_w, int(n_upd * rate)):
            s3, s1, s2, old, n_acc = s1 + s2, 0.0, 0.0, n_acc, 0
    return (s1 + s2 + s3) / (n_acc + old), (n_acc, old, n_upd), (s1, s2, s3)


@pytest.mark.parametrize("rate, min_w, max_w", [(0.5, 2, 3), (0.15, 1, 10), (1.0, 4, 4)])
def test_model_average_matches_hand_computed_window(rate, min_w, max_w):
    w = eager.create_parameter([2], "float64")
    w.name = "w_avg"
    avg = incubate.ModelAverage(rate, parameters=[w], min_average_window=min_w, max_average_window=max_w)
    values = [np.array([float(i), -2.0 * i]) for i in range(1, 10)]
    for value in values:
        w.set_value(value)
        w.grad = eager.to_tensor(np.ones(2))
        avg.step()
    want, counts, _ = _average_reference(values, rate, min_w, max_w)
    with avg.apply():
        np.testing.assert_allclose(w.numpy(), want, rtol=1e-12)
    np.testing.assert_array_equal(w.numpy(), values[-1])   # restored
    state = avg.state_dict()
    assert [int(state[f"w_avg_{n}_0"][0]) for n in ("num_accumulates", "old_num_accumulates", "num_updates")] \
        == list(counts)
    with avg.apply(need_restore=False):
        pass
    np.testing.assert_allclose(w.numpy(), want, rtol=1e-12)
    avg.restore()
    np.testing.assert_array_equal(w.numpy(), values[-1])


def test_model_average_moves_sum_1_into_sum_2(monkeypatch):
    # Paddle moves sum_1 into sum_2 every 16384 updates; shrink that to see it.
    monkeypatch.setattr(importlib.import_module("eager.incubate.optimizer.modelaverage"), "_MAX_NUM_ACCUMULATES", 3)
    w = eager.create_parameter([1], "float64")
    avg = incubate.ModelAverage(0.5, parameters=[w], min_average_window=5, max_average_window=7)
    w.name = "w_move"
    values = [np.array([2.0 ** i]) for i in range(8)]
    for value in values:
        w.set_value(value)
        w.grad = eager.to_tensor(np.ones(1))
        avg.step()
    want, _, sums = _average_reference(values, 0.5, 5, 7, move_every=3)
    assert sums[1] != 0  # the move happened after the last window restart
    state = avg.state_dict()
    np.testing.assert_array_equal([state[f"w_move_sum_{i}_0"][0] for i in (1, 2, 3)], np.ravel(sums))
    with avg.apply():
        np.testing.assert_allclose(w.numpy(), want, rtol=1e-12)


def test_model_average_state_dict_round_trip():
    def make():
        w = eager.create_parameter([2], "float64")
        w.name = "w_ma"
        return w, incubate.optimizer.ModelAverage(0.5, parameters=[w], min_average_window=2, max_average_window=4)
    w1, first = make()
    for i in range(5):
        w1.set_value(np.array([i, i * i], np.float64))
        w1.grad = eager.to_tensor(np.ones(2))
        first.step()
    w2, second = make()
    second.set_state_dict(first.state_dict())
    for opt, w in ((first, w1), (second, w2)):
        w.set_value(np.array([7.0, 8.0]))
        w.grad = eager.to_tensor(np.ones(2))
        opt.step()
    with first.apply(), second.apply():
        np.testing.assert_array_equal(w1.numpy(), w2.numpy())
    with pytest.raises(ValueError, match="w_ma_num_updates_0"):
        second.set_state_dict({"w_ma_num_updates_0": np.zeros(2, np.int64)})


def test_model_average_of_a_float16_parameter():
    w = eager.create_parameter([2], "float16")
    avg = incubate.ModelAverage(0.5, parameters=[w], min_average_window=2, max_average_window=3)
    for v in (1.0, 2.0, 4.0):  # the window restarts after the second step: (1 + 2 + 4) / 3
        w.set_value(np.array([v, -v], np.float16))
        w.grad = eager.to_tensor(np.ones(2, np.float16))
        avg.step()
    with avg.apply():
        assert w.dtype == eager.float16
        np.testing.assert_allclose(w.numpy(), [7 / 3, -7 / 3], rtol=1e-3)
    np.testing.assert_array_equal(w.numpy(), [4.0, -4.0])


def test_model_average_skips_parameters_without_steps_and_checks_arguments():
    w = eager.create_parameter([2], "float32")
    w.set_value(np.array([1.0, 2.0], np.float32))
    avg = incubate.ModelAverage(0.5, parameters=[w])
    with avg.apply():
        np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])
    assert avg.get_lr() == 0.0
    with pytest.raises(ValueError, match="ModelAverage: argument 'average_window_rate' expected a positive float"):
        incubate.ModelAverage(0.0, parameters=[w])
    with pytest.raises(ValueError, match="'min_average_window' \\(5\\) expected to be at most"):
        incubate.ModelAverage(0.5, parameters=[w], min_average_window=5, max_average_window=2)
    with pytest.raises(TypeError, match="ModelAverage.apply: argument 'need_restore' expected a bool"):
        with avg.apply(need_restore=1):
            pass


# -- top-level functions ----------------------------------------------------------------------------------

def test_softmax_mask_fuse_and_upper_triangle(rng):
    x, mask = rng.normal(size=(2, 3, 4, 4)), np.where(rng.random((2, 1, 4, 4)) < 0.3, -1e4, 0.0)
    np.testing.assert_allclose(incubate.softmax_mask_fuse(_t(x), _t(mask)).numpy(), _softmax(x + mask),
                               rtol=1e-10)
    causal = np.where(np.triu(np.ones((4, 4)), 1) > 0, -np.inf, 0.0)
    out = incubate.softmax_mask_fuse_upper_triangle(_t(x))
    np.testing.assert_allclose(out.numpy(), _softmax(x + causal), rtol=1e-10)
    assert np.all(out.numpy()[..., np.triu_indices(4, 1)[0], np.triu_indices(4, 1)[1]] == 0)
    assert gradcheck(incubate.softmax_mask_fuse_upper_triangle, (_t(x[:1, :1], grad=True),))


def test_identity_loss_and_graph_aliases(rng):
    x = rng.normal(size=(3, 2))
    assert incubate.identity_loss(_t(x), "sum").item() == pytest.approx(x.sum())
    assert incubate.identity_loss(_t(x), 1).item() == pytest.approx(x.mean())
    np.testing.assert_array_equal(incubate.identity_loss(_t(x), 2).numpy(), x)
    src, dst = _t(np.array([0, 1, 2, 0])), _t(np.array([1, 2, 1, 0]))
    for pool in ("sum", "mean", "max", "min"):
        np.testing.assert_array_equal(incubate.graph_send_recv(_t(x), src, dst, pool).numpy(),
                                      eager.geometric.send_u_recv(_t(x), src, dst, pool).numpy())
    ids = _t(np.array([0, 0, 2]))
    np.testing.assert_array_equal(incubate.segment_mean(_t(x), ids).numpy(), [x[:2].mean(0), [0, 0], x[2]])
    for a, b in zip(incubate.graph_reindex(_t([0, 1, 2]), _t([8, 9, 0, 4, 7, 6, 7]), _t([2, 3, 2], dtype="int32")),
                    ([3, 4, 0, 5, 6, 7, 6], [0, 0, 1, 1, 1, 2, 2], [0, 1, 2, 8, 9, 4, 7, 6])):
        np.testing.assert_array_equal(a.numpy(), b)
    row, colptr = _t(np.array([1, 2, 0, 2, 0])), _t(np.array([0, 2, 3, 5]))
    neighbors, count = incubate.graph_sample_neighbors(row, colptr, _t(np.array([0, 2])))
    np.testing.assert_array_equal(neighbors.numpy(), [1, 2, 2, 0])
    np.testing.assert_array_equal(count.numpy(), [2, 2])


_ROW = np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
_COLPTR = np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])


def test_graph_khop_sampler_taking_every_neighbor():
    # Every node has at most 2 neighbors, so sampling 2 takes them all. By hand: hop 0 samples
    # 0 <- 3, 7; 8 <- 9, 7; 1 <- 0, 9; 2 <- 1; the next frontier is {3, 7, 9} (new, sorted);
    # hop 1 samples 3 <- 4. New ids: frontiers 0, 8, 1, 2, 3, 7, 9, then 4.
    eids = np.arange(100, 113)
    src, dst, index, reindex, edge_ids = incubate.graph_khop_sampler(
        _t(_ROW), _t(_COLPTR), _t(np.array([0, 8, 1, 2])), [2, 2], sorted_eids=_t(eids), return_eids=True)
    np.testing.assert_array_equal(index.numpy(), [0, 8, 1, 2, 3, 7, 9, 4])
    np.testing.assert_array_equal(src.numpy(), [[4], [5], [6], [5], [0], [6], [2], [7]])
    np.testing.assert_array_equal(dst.numpy(), [[0], [0], [1], [1], [2], [2], [3], [4]])
    np.testing.assert_array_equal(reindex.numpy(), [0, 1, 2, 3])
    np.testing.assert_array_equal(edge_ids.numpy(), [100, 101, 111, 112, 102, 103, 104, 105])
    one_hop = incubate.graph_khop_sampler(_t(_ROW), _t(_COLPTR), _t(np.array([5, 5, 6])), [5])
    np.testing.assert_array_equal(one_hop[2].numpy(), [5, 6, 9, 3, 1])  # the repeated 5 sampled once
    np.testing.assert_array_equal(one_hop[3].numpy(), [0, 0, 1])


def test_graph_khop_sampler_samples_real_edges(rng):
    n = 30
    degree = rng.integers(0, 6, n)
    colptr = np.r_[0, np.cumsum(degree)]
    row = rng.integers(0, n, colptr[-1])
    nodes = np.array([1, 4, 7, 11])
    src, dst, index, reindex = incubate.graph_khop_sampler(_t(row), _t(colptr), _t(nodes), [2, 3])
    original = index.numpy()
    edges = set(zip(row.tolist(), np.repeat(np.arange(n), degree).tolist()))
    pairs = list(zip(original[src.numpy().ravel()].tolist(), original[dst.numpy().ravel()].tolist()))
    assert pairs and all(pair in edges for pair in pairs)
    np.testing.assert_array_equal(original[reindex.numpy()], nodes)
    first_hop = [p for p in pairs if p[1] in nodes.tolist()]
    for v in nodes.tolist():
        assert sum(1 for p in first_hop if p[1] == v) == min(2, degree[v])


def test_graph_khop_sampler_errors():
    with pytest.raises(ValueError, match="graph_khop_sampler: argument 'sample_sizes' expected a non-empty list"):
        incubate.graph_khop_sampler(_t(_ROW), _t(_COLPTR), _t(np.array([0])), [-1])
    with pytest.raises(ValueError, match="argument 'sorted_eids' expected a Tensor when return_eids=True"):
        incubate.graph_khop_sampler(_t(_ROW), _t(_COLPTR), _t(np.array([0])), [1], return_eids=True)
    with pytest.raises(ValueError, match="none of the input nodes has a neighbor"):
        incubate.graph_khop_sampler(_t(_ROW), _t(_COLPTR), _t(np.array([7, 9])), [1])


# -- incubate.autograd ------------------------------------------------------------------------------

def test_jacobian_and_hessian_matrices(rng):
    A = rng.normal(size=(3, 2))
    x, y = rng.normal(size=2), rng.normal(size=3)
    J = incubate.autograd.Jacobian(lambda a, b: (eager.matmul(_t(A), a) * b, a.sum() + b), (_t(x), _t(y)))
    want = np.zeros((6, 5))
    want[:3, :2], want[:3, 2:] = A * y[:, None], np.diag(A @ x)
    want[3:, :2], want[3:, 2:] = 1.0, np.eye(3)
    assert J.shape == (6, 5)
    np.testing.assert_allclose(J[:].numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(J[1, :].numpy(), want[1], rtol=1e-12)
    H = incubate.autograd.Hessian(lambda a, b: (a * a).sum() * b.sum(), [_t(x), _t(y)])
    want_h = np.zeros((5, 5))
    want_h[:2, :2] = 2 * y.sum() * np.eye(2)
    want_h[:2, 2:] = 2 * x[:, None]
    want_h[2:, :2] = 2 * x[None, :]
    np.testing.assert_allclose(H[:].numpy(), want_h, rtol=1e-12)
    xb = rng.normal(size=(4, 3))
    Jb = incubate.autograd.Jacobian(lambda t: t ** 3, _t(xb), is_batched=True)
    assert Jb.shape == (4, 3, 3)
    np.testing.assert_allclose(Jb[:].numpy(), np.stack([np.diag(3 * r ** 2) for r in xb]), rtol=1e-12)
    Hb = incubate.autograd.Hessian(lambda t: (t ** 3).sum(-1, keepdim=True), _t(xb), is_batched=True)
    np.testing.assert_allclose(Hb[:].numpy(), np.stack([np.diag(6 * r) for r in xb]), rtol=1e-12)


def test_vjp_jvp_grad_forward_grad_and_prim_flags(rng):
    x, v = rng.normal(size=3), rng.normal(size=3)
    out, g = incubate.autograd.vjp(eager.tanh, _t(x), _t(v))
    np.testing.assert_allclose(g.numpy(), (1 - np.tanh(x) ** 2) * v, rtol=1e-12)
    out, t = incubate.autograd.jvp(lambda a: a * a, _t(x), _t(v))
    np.testing.assert_allclose(t.numpy(), 2 * x * v, rtol=1e-12)
    xt = _t(x, grad=True)
    y = eager.sin(xt)
    np.testing.assert_allclose(incubate.autograd.forward_grad(y, xt, _t(v)).numpy(), np.cos(x) * v, rtol=1e-12)
    (dx,) = incubate.autograd.grad([y.sum()], [xt])
    np.testing.assert_allclose(dx.numpy(), np.cos(x), rtol=1e-12)
    assert not dx.stop_gradient   # differentiable again
    incubate.autograd.enable_prim()
    assert incubate.autograd.prim_enabled()
    incubate.autograd.disable_prim()
    assert not incubate.autograd.prim_enabled()


def test_functional_results_are_recorded_and_a_repeated_input_counts_twice(rng):
    # Paddle's incubate.autograd differentiates with create_graph=True: results differentiate again.
    x = rng.normal(size=(2, 2))
    xt = _t(x, grad=True)
    _, g = incubate.autograd.vjp(lambda a: (a * a * a).sum(), xt)
    assert not g.stop_gradient
    np.testing.assert_allclose(g.numpy(), 3 * x ** 2, rtol=1e-12)
    (gg,) = eager.grad(g.sum(), xt)                     # d/dx sum(3 x^2) = 6 x
    np.testing.assert_allclose(gg.numpy(), 6 * x, rtol=1e-12)
    _, t = incubate.autograd.jvp(lambda a: eager.matmul(a, a), _t(x), _t(np.eye(2)))
    assert not t.stop_gradient
    np.testing.assert_allclose(t.numpy(), 2 * x, rtol=1e-12)   # d(A A)[I] = A + A
    # matmul(a, b) at a = b = x, the one tensor passed twice: two blocks side by side.
    J = incubate.autograd.Jacobian(lambda a, b: eager.matmul(a, b), [_t(x), _t(x)])
    want_a = np.einsum("ik,jl->ijkl", np.eye(2), np.eye(2)) * 0
    for i in range(2):
        for j in range(2):
            for k in range(2):
                want_a[i, j, i, k] += x[k, j]          # d(ab)_ij / d a_ik = b_kj
    want_b = np.zeros((2, 2, 2, 2))
    for i in range(2):
        for j in range(2):
            for k in range(2):
                want_b[i, j, k, j] += x[i, k]          # d(ab)_ij / d b_kj = a_ik
    assert J.shape == (4, 8) and not J[:].stop_gradient
    np.testing.assert_allclose(J[:].numpy(), np.concatenate([want_a.reshape(4, 4), want_b.reshape(4, 4)], 1),
                               rtol=1e-12)
    H = incubate.autograd.Hessian(lambda a: (a * a).sum(), _t(x))
    np.testing.assert_allclose(H[:].numpy(), 2 * np.eye(4), rtol=1e-12)
    assert xt.grad is None                              # nothing written into .grad


def test_graph_reindex_takes_concatenated_edge_types():
    x = _t(np.array([0, 1, 2]))
    n1, c1 = np.array([8, 9, 0, 4, 7, 6, 7]), np.array([2, 3, 2], np.int32)
    n2, c2 = np.array([0, 2, 3, 5, 1]), np.array([1, 3, 1], np.int32)
    # By hand: x keeps 0..2; type 1 brings 8, 9, 4, 7, 6 (3..7); type 2 brings 3, 5 (8, 9).
    src, dst, nodes = incubate.graph_reindex(x, _t(np.r_[n1, n2]), _t(np.r_[c1, c2]))
    np.testing.assert_array_equal(nodes.numpy(), [0, 1, 2, 8, 9, 4, 7, 6, 3, 5])
    np.testing.assert_array_equal(src.numpy(), [3, 4, 0, 5, 6, 7, 6, 0, 2, 8, 9, 1])
    np.testing.assert_array_equal(dst.numpy(), [0, 0, 1, 1, 1, 2, 2, 0, 1, 1, 1, 2])
    with pytest.raises(ValueError, match="incubate.graph_reindex: reindex_graph: argument 'count' expected "
                                         "non-negative counts summing to the 11 neighbors, got a sum of 12"):
        incubate.graph_reindex(x, _t(np.r_[n1, n2[:-1]]), _t(np.r_[c1, c2]))
    with pytest.raises(ValueError, match="argument 'count' expected one count per node of x \\(3\\), or a multiple"):
        incubate.graph_reindex(x, _t(n1), _t(np.array([2, 3, 1, 1], np.int32)))


def test_fused_dropout_is_dropout_with_paddles_arguments(rng):
    x = rng.normal(size=(4, 6)).astype(np.float32) + 3.0
    layer = incubate.nn.FusedDropout(p=0.25)
    y = layer(_t(x)).numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], x[kept] / 0.75, rtol=1e-6)
    rows = incubate.nn.FusedDropout(p=0.5, axis=0)(_t(x)).numpy()
    assert all(np.all(r == 0) or np.allclose(r, 2 * xr, rtol=1e-6) for r, xr in zip(rows, x))  # whole rows
    down = incubate.nn.FusedDropout(p=0.25, mode="downscale_in_infer").eval()
    np.testing.assert_allclose(down(_t(x)).numpy(), 0.75 * x, rtol=1e-6)
    np.testing.assert_array_equal(layer.eval()(_t(x)).numpy(), x)
    assert repr(incubate.nn.FusedDropout(0.1, axis=[0, 1])) == "FusedDropout(p=0.1, axis=[0, 1], mode=upscale_in_train)"
    with pytest.raises(TypeError, match="incubate.nn.FusedDropout: argument 'p' expected a float or an int, got str"):
        incubate.nn.FusedDropout("0.5")
    with pytest.raises(ValueError, match="incubate.nn.FusedDropout: argument 'p' expected a float in \\[0, 1\\]"):
        incubate.nn.FusedDropout(1.5)
    with pytest.raises(TypeError, match="incubate.nn.FusedDropout: argument 'axis' expected None, an int or a list"):
        incubate.nn.FusedDropout(0.5, axis="0")
    with pytest.raises(ValueError, match="incubate.nn.FusedDropout: argument 'mode' expected 'upscale_in_train'"):
        incubate.nn.FusedDropout(0.5, mode="scale")


def test_partial_concat_and_partial_sum(rng):
    a, b = rng.normal(size=(2, 5)), rng.normal(size=(2, 5))
    np.testing.assert_array_equal(incubate.layers.partial_concat([_t(a), _t(b)], 1, 3).numpy(),
                                  np.concatenate([a[:, 1:4], b[:, 1:4]], 1))
    np.testing.assert_array_equal(incubate.layers.partial_concat([_t(a), _t(b)], -2).numpy(),
                                  np.concatenate([a[:, 3:], b[:, 3:]], 1))
    np.testing.assert_allclose(incubate.layers.partial_sum([_t(a), _t(b)], 0, 2).numpy(), a[:, :2] + b[:, :2],
                               rtol=1e-12)
    assert gradcheck(lambda p, q: incubate.layers.partial_concat([p, q], 1, 2) * 1.5, (_t(a, True), _t(b, True)))
    assert gradcheck(lambda p, q: incubate.layers.partial_sum([p, q], 2) ** 2, (_t(a, True), _t(b, True)))
    with pytest.raises(ValueError, match="incubate.layers.partial_concat: arguments 'start_index' \\+ 'length' "
                                         "expected at most 5"):
        incubate.layers.partial_concat([_t(a), _t(b)], 3, 3)
    with pytest.raises(ValueError, match="incubate.layers.partial_sum: argument 'start_index' expected an int in "
                                         "\\[-5, 5\\)"):
        incubate.layers.partial_sum([_t(a)], 5)
    with pytest.raises(ValueError, match="partial_concat: argument 'input' expected Tensors of one shape"):
        incubate.layers.partial_concat([_t(a), _t(b[:, :4])])
    with pytest.raises(TypeError, match="partial_concat: argument 'length' expected an int, got float"):
        incubate.layers.partial_concat([_t(a)], 0, 2.0)


# -- errors ------------------------------------------------------------------------------------------

def test_errors_name_the_function_and_argument():
    x = eager.ones([2, 3, 4])
    with pytest.raises(ValueError, match="incubate.nn.functional.fused_linear: argument 'bias' expected shape \\[5\\]"):
        IF.fused_linear(x, eager.ones([4, 5]), eager.ones([4]))
    with pytest.raises(TypeError, match="fused_matmul_bias: argument 'y' expected dtype paddle.float32 \\(that of x\\)"):
        IF.fused_matmul_bias(x, eager.ones([4, 5], "float64"))
    with pytest.raises(ValueError, match="fused_linear_activation: argument 'activation' expected None, 'none', "
                                         "'relu' or 'gelu', got 'tanh'"):
        IF.fused_linear_activation(eager.ones([2, 4]), eager.ones([4, 5]), eager.ones([5]), activation="tanh")
    with pytest.raises(ValueError, match="fused_multi_head_attention: argument 'qkv_weight' expected shape "
                                         "\\[3, num_heads, head_dim, 4\\]"):
        IF.fused_multi_head_attention(x, eager.ones([3, 2, 2, 5]), eager.ones([4, 4]))
    with pytest.raises(ValueError, match="fused_multi_head_attention: argument 'cache_kv' expected None"):
        IF.fused_multi_head_attention(x, eager.ones([3, 2, 2, 4]), eager.ones([4, 4]), cache_kv=x)
    with pytest.raises(ValueError, match="fused_multi_head_attention: argument 'attn_mask' expected a shape that "
                                         "broadcasts to \\[2, 2, 3, 3\\]"):
        IF.fused_multi_head_attention(x, eager.ones([3, 2, 2, 4]), eager.ones([4, 4]),
                                      attn_mask=eager.ones([2, 1, 5, 5]))
    with pytest.raises(ValueError, match="fused_feedforward: argument 'dropout1_rate' expected a float in \\[0, 1\\]"):
        IF.fused_feedforward(x, eager.ones([4, 6]), eager.ones([6, 4]), dropout1_rate=1.5)
    with pytest.raises(ValueError, match="fused_feedforward: argument 'ring_id' expected -1"):
        IF.fused_feedforward(x, eager.ones([4, 6]), eager.ones([6, 4]), ring_id=0)
    with pytest.raises(ValueError, match="fused_rms_norm: argument 'begin_norm_axis' expected an int in \\[-3, 2\\]"):
        IF.fused_rms_norm(x, eager.ones([4]), None, 1e-6, 3)
    with pytest.raises(ValueError, match="fused_layer_norm: argument 'quant_scale' expected a value <= 0"):
        IF.fused_layer_norm(x, eager.ones([12]), eager.ones([12]), 1e-5, quant_scale=1.0)
    with pytest.raises(ValueError, match="swiglu: argument 'x' expected an even last dimension"):
        IF.swiglu(eager.ones([2, 3]))
    with pytest.raises(ValueError, match="fused_rotary_position_embedding: arguments 'sin' and 'cos' expected both"):
        IF.fused_rotary_position_embedding(eager.ones([1, 2, 1, 4]), sin=eager.ones([2, 4]))
    with pytest.raises(ValueError, match="fused_rotary_position_embedding: argument 'cos' expected \\[2, 4\\]"):
        IF.fused_rotary_position_embedding(eager.ones([1, 2, 1, 4]), sin=eager.ones([2, 4]), cos=eager.ones([3, 4]))
    with pytest.raises(ValueError, match="incubate.softmax_mask_fuse: argument 'mask' expected shape"):
        incubate.softmax_mask_fuse(eager.ones([1, 2, 3, 3]), eager.ones([1, 2, 3, 3]))
    with pytest.raises(ValueError, match="incubate.identity_loss: argument 'reduction' expected"):
        incubate.identity_loss(x, "max")
    with pytest.raises(ValueError, match="FusedMultiHeadAttention: argument 'num_heads' expected a divisor"):
        incubate.nn.FusedMultiHeadAttention(6, 4)
    with pytest.raises(ValueError, match="FusedFeedForward: arguments 'nranks'/'ring_id' expected 1/-1"):
        incubate.nn.FusedFeedForward(4, 6, nranks=2)
    attn = incubate.nn.FusedMultiHeadAttention(4, 2)
    with pytest.raises(ValueError, match="argument 'key' expected None or a tensor equal to query"):
        attn(x, eager.zeros([2, 3, 4]))
    with pytest.raises(TypeError, match="incubate.autograd.Jacobian: argument 'is_batched' expected a bool"):
        incubate.autograd.Jacobian(eager.tanh, x, is_batched=1)


@pytest.mark.parametrize("module", ["eager.incubate", "eager.incubate.operators", "eager.incubate.autograd",
                                    "eager.incubate.layers",
                                    "eager.incubate.optimizer", "eager.incubate.optimizer.lookahead",
                                    "eager.incubate.optimizer.modelaverage",
                                    "eager.incubate.nn.layer", "eager.incubate.nn.functional.linear",
                                    "eager.incubate.nn.functional.transformer", "eager.incubate.nn.functional.norm",
                                    "eager.incubate.nn.functional.activation", "eager.incubate.nn.functional.rotary",
                                    "eager.incubate.nn.functional.moe",
                                    "eager.incubate.autotune"])
def test_docstring_examples_run(module, device):
    if device == "gpu":
        pytest.skip("the examples print CPU values; once is enough")
    result = doctest.testmod(importlib.import_module(module), extraglobs={"eager": eager},
                             optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_model_average_steps_replay_exactly_under_to_static():
    # The window decisions live on the device, so a replayed step moves them too.
    def run(static):
        eager.seed(1)
        linear = eager.nn.Linear(3, 1)
        sgd = eager.optimizer.SGD(0.1, parameters=linear.parameters())
        avg = incubate.ModelAverage(0.5, parameters=linear.parameters(), min_average_window=2, max_average_window=3)

        def step(x):
            loss = linear(x).square().mean()
            loss.backward()
            sgd.step()
            avg.step()
            sgd.clear_grad()
            return loss
        step = eager.jit.to_static(step) if static else step
        for i in range(7):
            step(eager.to_tensor(np.random.default_rng(i).normal(size=(4, 3)).astype("float32")))
        with avg.apply():
            return linear.weight.numpy().copy(), [v for k, v in sorted(avg.state_dict().items()) if "num" in k]
    (w_eager, counts_eager), (w_static, counts_static) = run(False), run(True)
    np.testing.assert_allclose(w_static, w_eager, rtol=1e-6)
    np.testing.assert_array_equal(counts_static, counts_eager)


def test_autotune_set_config_checks_and_keeps_the_settings(tmp_path, monkeypatch, device):
    tune = importlib.import_module("eager.incubate.autotune")
    monkeypatch.setattr(tune, "_CONFIG", tune.get_config())  # restored after the test
    tune.set_config({"kernel": {"enable": True, "tuning_range": [2, 4]}, "layout": {"enable": False},
                     "other": {"x": 1}})
    assert tune.get_config()["kernel"] == {"enable": True, "tuning_range": [2, 4]}
    path = tmp_path / "tune.json"
    path.write_text('{"dataloader": {"enable": true, "tuning_steps": 30}}')
    tune.set_config(str(path))
    assert tune.get_config()["dataloader"] == {"enable": True, "tuning_steps": 30}
    with pytest.warns(UserWarning, match="'layout.enable' expected a bool, got 1; the entry is ignored"):
        tune.set_config({"layout": {"enable": 1}})
    with pytest.warns(UserWarning, match="'kernel.tuning_range' expected a list of two ints"):
        tune.set_config({"kernel": {"tuning_range": (1, 2)}})
    with pytest.warns(UserWarning, match="could not read"):
        tune.set_config(str(tmp_path / "missing.json"))
    assert tune.get_config()["layout"] == {"enable": False}
    tune.set_config()
    assert all(section["enable"] for section in tune.get_config().values())
    with pytest.raises(TypeError, match="incubate.autotune.set_config: argument 'config' expected None, a dict"):
        tune.set_config(["kernel"])
