"""incubate.nn.functional.fused_multi_transformer and incubate.nn.FusedMultiTransformer.

References are NumPy written from the maths of each layer (layer norm, the qkv
projection by einsum over Paddle's [3, num_heads, head_dim, embed_dim] layout,
attention with a mask, the output projection, residuals, the feed-forward block),
in float64. Decoding with caches is checked step by step against the
full-sequence run; gradients by finite differences.
"""
from __future__ import annotations

import doctest
import math

import numpy as np
import pytest

import eager
from eager import incubate
from eager.autograd import gradcheck
from eager.incubate.nn import functional as IF
from eager.incubate.nn.functional import multi_transformer

pytestmark = pytest.mark.usefixtures("device")

_erf = np.vectorize(math.erf)
NAMES = ["ln_scales", "ln_biases", "qkv_weights", "qkv_biases", "linear_weights", "linear_biases", "ffn_ln_scales",
         "ffn_ln_biases", "ffn1_weights", "ffn1_biases", "ffn2_weights", "ffn2_biases"]


def _t(array, grad=False):
    return eager.to_tensor(np.asarray(array), stop_gradient=not grad)


def _ln(x, scale, bias, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * scale + bias


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


ACTS = {"gelu": lambda x: 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3))),
        "relu": lambda x: np.maximum(x, 0.0),
        "none": lambda x: x}


def _params(rng, layers, embed, heads, ffn, trans=True):
    hd = embed // heads
    p = {name: [] for name in NAMES}
    for _ in range(layers):
        p["ln_scales"].append(1.0 + 0.1 * rng.normal(size=embed))
        p["ln_biases"].append(0.1 * rng.normal(size=embed))
        w = rng.normal(size=(3, heads, hd, embed)) / math.sqrt(embed)
        p["qkv_weights"].append(w if trans else w.transpose(3, 0, 1, 2).copy())
        p["qkv_biases"].append(0.1 * rng.normal(size=(3, heads, hd)))
        p["linear_weights"].append(rng.normal(size=(embed, embed)) / math.sqrt(embed))
        p["linear_biases"].append(0.1 * rng.normal(size=embed))
        p["ffn_ln_scales"].append(1.0 + 0.1 * rng.normal(size=embed))
        p["ffn_ln_biases"].append(0.1 * rng.normal(size=embed))
        p["ffn1_weights"].append(rng.normal(size=(embed, ffn)) / math.sqrt(embed))
        p["ffn1_biases"].append(0.1 * rng.normal(size=ffn))
        p["ffn2_weights"].append(rng.normal(size=(ffn, embed)) / math.sqrt(ffn))
        p["ffn2_biases"].append(0.1 * rng.normal(size=embed))
    return p


def _tensors(p):
    return [[_t(a) for a in p[name]] for name in NAMES]


def _rope_ref(x, cos, sin, dims):
    """Rotate each chunk's two halves, element by element with loops (x [b, n, s, d], tables [b, 1, s, d])."""
    out = x.copy()
    d = x.shape[-1]
    chunk = d // dims
    half = chunk // 2
    for c in range(dims):
        for i in range(half):
            left, right = c * chunk + i, c * chunk + i + half
            out[..., left] = x[..., left] * cos[..., left] - x[..., right] * sin[..., left]
            out[..., right] = x[..., right] * cos[..., right] + x[..., left] * sin[..., right]
    return out


def _reference(x, p, pre=True, eps=1e-5, act="gelu", mask=None, trans=True, prefix=None, rope=None,
               scale_dropout=1.0):
    """The layers in NumPy; returns (out, per-layer (k, v) after rotation and prefix).
    ``scale_dropout`` multiplies at the four dropout points (1 - p under
    downscale_in_infer at inference)."""
    b, s, e = x.shape
    kvs = []
    for i in range(len(p["qkv_weights"])):
        w = p["qkv_weights"][i]
        if not trans:
            w = w.transpose(1, 2, 3, 0)                      # [e, 3, n, d] -> [3, n, d, e]
        n, d = w.shape[1], w.shape[2]
        residual = x
        h = _ln(x, p["ln_scales"][i], p["ln_biases"][i], eps) if pre else x
        proj = np.einsum("bse,tnde->tbnsd", h, w) + p["qkv_biases"][i][:, None, :, None, :]
        q, k, v = proj
        if rope is not None:
            cos, sin, dims = rope
            q, k = _rope_ref(q, cos, sin, dims), _rope_ref(k, cos, sin, dims)
        if prefix is not None:
            k = np.concatenate([prefix[i][0], k], 2)
            v = np.concatenate([prefix[i][1], v], 2)
        kvs.append((k, v))
        scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(d)
        if mask is not None:
            scores = scores + mask
        a = (_softmax(scores) * scale_dropout) @ v
        a = a.transpose(0, 2, 1, 3).reshape(b, s, n * d)
        out = residual + (a @ p["linear_weights"][i] + p["linear_biases"][i]) * scale_dropout
        if not pre:
            out = _ln(out, p["ln_scales"][i], p["ln_biases"][i], eps)
        f = _ln(out, p["ffn_ln_scales"][i], p["ffn_ln_biases"][i], eps) if pre else out
        f = ACTS[act](f @ p["ffn1_weights"][i] + p["ffn1_biases"][i]) * scale_dropout
        x = out + (f @ p["ffn2_weights"][i] + p["ffn2_biases"][i]) * scale_dropout
        if not pre:
            x = _ln(x, p["ffn_ln_scales"][i], p["ffn_ln_biases"][i], eps)
    return x, kvs


def _causal(b, s):
    return np.broadcast_to(np.where(np.tril(np.ones((s, s), bool)), 0.0, -1e4), (b, 1, s, s)).copy()


# -- values --------------------------------------------------------------------------------------

@pytest.mark.parametrize("pre", [True, False])
@pytest.mark.parametrize("act", ["gelu", "relu", "none"])
def test_matches_numpy_layer_by_layer(rng, pre, act):
    b, s, e, n, f = 2, 3, 8, 2, 12
    p = _params(rng, 2, e, n, f)
    x = rng.normal(size=(b, s, e))
    mask = np.where(rng.random((b, 1, s, s)) < 0.3, -1e4, 0.0)
    out = IF.fused_multi_transformer(_t(x), *_tensors(p), pre_layer_norm=pre, epsilon=1e-4, attn_mask=_t(mask),
                                     activation=act)
    want, _ = _reference(x, p, pre, 1e-4, act, mask)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-9, atol=1e-11)


def test_qkv_layout_without_trans_qkvw_and_missing_biases(rng):
    b, s, e, n, f = 1, 4, 6, 3, 5
    p = _params(rng, 2, e, n, f, trans=False)
    x = rng.normal(size=(b, s, e))
    lists = _tensors(p)
    out = IF.fused_multi_transformer(_t(x), *lists, trans_qkvw=False)
    want, _ = _reference(x, p, trans=False)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-9, atol=1e-11)
    # Bias lists left out (None) are no bias at all.
    for name in ("qkv_biases", "linear_biases", "ffn1_biases", "ffn2_biases"):
        p[name] = [np.zeros_like(a) for a in p[name]]
        lists[NAMES.index(name)] = None
    out = IF.fused_multi_transformer(_t(x), *lists, trans_qkvw=False)
    np.testing.assert_allclose(out.numpy(), _reference(x, p, trans=False)[0], rtol=1e-9, atol=1e-11)


def test_float32_follows_the_float64_reference(rng):
    p = _params(rng, 1, 8, 2, 16)
    x = rng.normal(size=(2, 5, 8))
    lists = [[eager.to_tensor(a.astype("float32")) for a in p[name]] for name in NAMES]
    out = IF.fused_multi_transformer(eager.to_tensor(x.astype("float32")), *lists)
    assert out.dtype == eager.float32
    np.testing.assert_allclose(out.numpy(), _reference(x, p)[0], rtol=1e-4, atol=1e-4)


def test_dropout_points_in_training_and_under_downscale_in_infer(rng):
    p = _params(rng, 2, 4, 2, 6)
    x = rng.normal(size=(2, 3, 4))
    # Every dropout at rate 1 in training: attention and feed-forward add nothing (pre-LN keeps x).
    out = IF.fused_multi_transformer(_t(x), *_tensors(p), dropout_rate=1.0, training=True)
    np.testing.assert_array_equal(out.numpy(), x)
    # At inference, downscale_in_infer scales each of the four dropout points by 1 - p.
    out = IF.fused_multi_transformer(_t(x), *_tensors(p), dropout_rate=0.25, mode="downscale_in_infer")
    np.testing.assert_allclose(out.numpy(), _reference(x, p, scale_dropout=0.75)[0], rtol=1e-9, atol=1e-11)
    # ... and upscale_in_train leaves inference alone.
    out = IF.fused_multi_transformer(_t(x), *_tensors(p), dropout_rate=0.25)
    np.testing.assert_allclose(out.numpy(), _reference(x, p)[0], rtol=1e-9, atol=1e-11)
    # In training at 0.5 some values are dropped: the output moves, and repeats under the same seed.
    eager.seed(3)
    first = IF.fused_multi_transformer(_t(x), *_tensors(p), dropout_rate=0.5, training=True).numpy()
    eager.seed(3)
    second = IF.fused_multi_transformer(_t(x), *_tensors(p), dropout_rate=0.5, training=True).numpy()
    np.testing.assert_array_equal(first, second)
    assert not np.allclose(first, _reference(x, p)[0])


@pytest.mark.parametrize("dims", [1, 2])
def test_rotary_embeddings_rotate_q_and_k(rng, dims):
    b, s, e, n, f = 2, 3, 8, 1, 4
    p = _params(rng, 1, e, n, f)
    x = rng.normal(size=(b, s, e))
    tables = rng.normal(size=(2, b, 1, s, e // n))          # any tables: each element uses its own entry
    out = IF.fused_multi_transformer(_t(x), *_tensors(p), rotary_embs=_t(tables), rotary_emb_dims=dims)
    want, _ = _reference(x, p, rope=(tables[0], tables[1], dims))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-9, atol=1e-11)
    # rotary_emb_dims=0 ignores the tables, as Paddle's kernel does.
    plain = IF.fused_multi_transformer(_t(x), *_tensors(p), rotary_embs=_t(tables), rotary_emb_dims=0)
    np.testing.assert_allclose(plain.numpy(), _reference(x, p)[0], rtol=1e-9, atol=1e-11)


def test_pre_caches_prefix_the_keys_and_values(rng):
    b, s, e, n, f, prefix_len, max_len = 2, 3, 4, 2, 6, 2, 8
    p = _params(rng, 2, e, n, f)
    x = rng.normal(size=(b, s, e))
    prefix = [rng.normal(size=(2, b, n, prefix_len, e // n)) for _ in range(2)]
    mask = np.where(rng.random((b, 1, s, prefix_len + s)) < 0.3, -1e4, 0.0)
    want, kvs = _reference(x, p, mask=mask, prefix=prefix)
    out = IF.fused_multi_transformer(_t(x), *_tensors(p), pre_caches=[_t(c) for c in prefix], attn_mask=_t(mask))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-9, atol=1e-11)
    # With caches: the prefix and the sequence's keys/values are written at [0, prefix_len + s).
    old = [rng.normal(size=(2, b, n, max_len, e // n)) for _ in range(2)]
    caches = [_t(c) for c in old]
    out, returned = IF.fused_multi_transformer(_t(x), *_tensors(p), cache_kvs=caches,
                                               pre_caches=[_t(c) for c in prefix], attn_mask=_t(mask))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-9, atol=1e-11)
    assert all(r is c for r, c in zip(returned, caches))
    for i, (k, v) in enumerate(kvs):
        got = caches[i].numpy()
        np.testing.assert_allclose(got[0, :, :, :prefix_len + s], k, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got[1, :, :, :prefix_len + s], v, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(got[:, :, :, prefix_len + s:], old[i][:, :, :, prefix_len + s:])


# -- generation: context stage then decode steps -------------------------------------------------

@pytest.mark.parametrize("pre, dims", [(True, 0), (False, 0), (True, 1), (False, 2)])
def test_decoding_step_by_step_equals_the_full_sequence(rng, pre, dims):
    b, total, start, e, n, f, max_len = 2, 6, 3, 8, 2, 12, 8
    p = _params(rng, 2, e, n, f)
    x = rng.normal(size=(b, total, e))
    tables = rng.normal(size=(2, b, 1, total, e // n))
    rope = {} if not dims else {"rotary_embs": _t(tables), "rotary_emb_dims": dims}
    full = IF.fused_multi_transformer(_t(x), *_tensors(p), pre_layer_norm=pre, attn_mask=_t(_causal(b, total)),
                                      **rope).numpy()
    want, kvs = _reference(x, p, pre, mask=_causal(b, total),
                           rope=None if not dims else (tables[0], tables[1], dims))
    np.testing.assert_allclose(full, want, rtol=1e-9, atol=1e-11)

    caches = [eager.zeros([2, b, n, max_len, e // n], dtype="float64") for _ in range(2)]
    rope = {} if not dims else {"rotary_embs": _t(tables[:, :, :, :start]), "rotary_emb_dims": dims}
    out, _ = IF.fused_multi_transformer(_t(x[:, :start]), *_tensors(p), pre_layer_norm=pre, cache_kvs=caches,
                                        attn_mask=_t(_causal(b, start)), **rope)
    np.testing.assert_allclose(out.numpy(), want[:, :start], rtol=1e-9, atol=1e-11)
    for t in range(start, total):
        rope = {} if not dims else {"rotary_embs": _t(tables[:, :, :, t:t + 1]), "rotary_emb_dims": dims}
        step = eager.to_tensor(np.array([t], "int32"), place="cpu")
        out, caches = IF.fused_multi_transformer(_t(x[:, t:t + 1]), *_tensors(p), pre_layer_norm=pre,
                                                 cache_kvs=caches, time_step=step,
                                                 attn_mask=_t(np.zeros((b, 1, 1, t + 1))), **rope)
        np.testing.assert_allclose(out.numpy(), want[:, t:t + 1], rtol=1e-9, atol=1e-11)
    for i, (k, v) in enumerate(kvs):                        # every position's key and value, in plain order
        np.testing.assert_allclose(caches[i].numpy()[0, :, :, :total], k, rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(caches[i].numpy()[1, :, :, :total], v, rtol=1e-9, atol=1e-11)
        np.testing.assert_array_equal(caches[i].numpy()[:, :, :, total:], 0.0)


def test_seq_lens_pad_the_context_and_place_each_decode_step(rng):
    b, s, e, n, f, max_len = 3, 4, 4, 2, 6, 6
    lengths = np.array([4, 2, 1])
    p = _params(rng, 2, e, n, f)
    x = rng.normal(size=(b, s + 1, e))                      # the last token is each sequence's next one
    caches = [eager.zeros([2, b, n, max_len, e // n], dtype="float64") for _ in range(2)]
    out, _ = IF.fused_multi_transformer(_t(x[:, :s]), *_tensors(p), cache_kvs=caches,
                                        seq_lens=_t(lengths.astype("int32")), attn_mask=_t(_causal(b, s)))
    out = out.numpy()
    step_in = np.stack([x[i, lengths[i]] for i in range(b)])[:, None]
    step_out, _ = IF.fused_multi_transformer(_t(step_in), *_tensors(p), cache_kvs=caches, time_step=int(s),
                                             seq_lens=_t(lengths.astype("int32")))
    for i, length in enumerate(lengths):
        # Each sequence alone, its real tokens then its next one, causally.
        alone = np.concatenate([x[i:i + 1, :length], step_in[i:i + 1]], 1)
        want, _ = _reference(alone, p, mask=_causal(1, length + 1))
        np.testing.assert_allclose(out[i, :length], want[0, :length], rtol=1e-9, atol=1e-11)
        np.testing.assert_array_equal(out[i, length:], 0.0)   # padding comes out as zeros
        np.testing.assert_allclose(step_out.numpy()[i, 0], want[0, length], rtol=1e-9, atol=1e-11)


def test_layer_runs_the_functional_with_its_parameter_lists(rng):
    layer = incubate.nn.FusedMultiTransformer(8, 2, 16, num_layers=3, normalize_before=False, activation="relu",
                                              qkv_bias_attrs=[None, False, None], epsilon=1e-4)
    assert [len(getattr(layer, name)) for name in NAMES] == [3] * 12
    assert layer.qkv_weights[0].shape == [3, 2, 4, 8] and layer.ffn1_weights[2].shape == [8, 16]
    assert layer.qkv_biases[1] is None and layer.qkv_biases[0].shape == [3, 2, 4]
    assert layer.ln_scales[0].numpy().tolist() == [1.0] * 8
    names = [name for name, _ in layer.named_parameters()]
    assert len(names) == 35 and "qkv_weights_2" in names and "qkv_biases_1" not in names
    p = {name: [None if t is None else rng.normal(size=t.shape) for t in getattr(layer, name)] for name in NAMES}
    for name in NAMES:
        for param, value in zip(getattr(layer, name), p[name]):
            if param is not None:
                param.set_value(value.astype("float32"))
    p["qkv_biases"][1] = np.zeros((3, 2, 4))
    x = rng.normal(size=(2, 3, 8))
    keep = np.tril(np.ones((3, 3), bool))                  # a bool mask: True attends
    out = layer(eager.to_tensor(x.astype("float32")), attn_mask=eager.to_tensor(keep))
    want, _ = _reference(x, p, pre=False, eps=1e-4, act="relu", mask=np.where(keep, 0.0, -1e9))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4)
    out.mean().backward()
    assert layer.qkv_weights[2].grad is not None and layer.ffn2_biases[0].grad.shape == [8]
    fresh = incubate.nn.FusedMultiTransformer(8, 2, 16, num_layers=3, normalize_before=False, activation="relu",
                                              qkv_bias_attrs=[None, False, None], epsilon=1e-4)
    fresh.set_state_dict(layer.state_dict())
    np.testing.assert_array_equal(fresh.eval()(eager.to_tensor(x.astype("float32"))).numpy(),
                                  layer.eval()(eager.to_tensor(x.astype("float32"))).numpy())


def test_layer_with_caches_and_trans_qkvw_false(rng):
    layer = incubate.nn.FusedMultiTransformer(4, 2, 8, num_layers=2, trans_qkvw=False)
    assert layer.qkv_weights[0].shape == [4, 3, 2, 2]
    x = eager.randn([1, 3, 4])
    full = layer(x, attn_mask=eager.to_tensor(_causal(1, 3).astype("float32")))
    caches = [eager.zeros([2, 1, 2, 4, 2]) for _ in range(2)]
    first, returned = layer(x[:, :2], attn_mask=eager.to_tensor(_causal(1, 2).astype("float32")), caches=caches)
    assert returned[0] is caches[0]
    last, _ = layer(x[:, 2:], caches=caches, time_step=eager.to_tensor([2], dtype="int32"))
    np.testing.assert_allclose(np.concatenate([first.numpy(), last.numpy()], 1), full.numpy(), rtol=1e-5,
                               atol=1e-5)


# -- gradients ------------------------------------------------------------------------------------

@pytest.mark.parametrize("pre", [True, False])
def test_gradients_match_finite_differences(pre):
    rng = np.random.default_rng(7)
    p = _params(rng, 2, 4, 2, 3)
    lists = _tensors(p)
    x = _t(rng.normal(size=(1, 3, 4)), grad=True)
    qkv_w, ffn1_w = _t(p["qkv_weights"][1], grad=True), _t(p["ffn1_weights"][0], grad=True)
    ln_s, lin_b = _t(p["ln_scales"][0], grad=True), _t(p["linear_biases"][1], grad=True)
    mask = _t(_causal(1, 3))

    def run(x, qkv_w, ffn1_w, ln_s, lin_b):
        args = [list(a) for a in lists]
        args[2][1], args[8][0], args[0][0], args[5][1] = qkv_w, ffn1_w, ln_s, lin_b
        return IF.fused_multi_transformer(x, *args, pre_layer_norm=pre, attn_mask=mask, activation="gelu")

    assert gradcheck(run, (x, qkv_w, ffn1_w, ln_s, lin_b))


def test_gradients_through_a_decode_step_and_its_cache():
    rng = np.random.default_rng(8)
    p = _params(rng, 1, 4, 2, 3)
    lists = _tensors(p)
    cache = _t(rng.normal(size=(2, 1, 2, 4, 2)), grad=True)
    x = _t(rng.normal(size=(1, 1, 4)), grad=True)
    w = _t(p["qkv_weights"][0], grad=True)

    def run(x, w, cache):
        args = [list(a) for a in lists]
        args[2][0] = w
        # A fresh copy each call: the step writes its position in place.
        return IF.fused_multi_transformer(x, *args, cache_kvs=[cache * 1.0], time_step=2)[0]

    assert gradcheck(run, (x, w, cache))
    # Backward after the in-place cache write: the graph saved no cache buffer.
    caches = [eager.zeros([2, 1, 2, 4, 2], dtype="float64")]
    out, _ = IF.fused_multi_transformer(x, *[[w] if name == "qkv_weights" else lists[i]
                                             for i, name in enumerate(NAMES)], cache_kvs=caches, time_step=1)
    out.sum().backward()
    assert w.grad is not None and np.isfinite(w.grad.numpy()).all()


# -- errors ---------------------------------------------------------------------------------------

def _good(rng):
    p = _params(rng, 2, 4, 2, 6)
    return _t(rng.normal(size=(1, 3, 4))), _tensors(p)


@pytest.mark.parametrize("change, error, message", [
    (lambda x, l: (x, [l[0][:1]] + l[1:], {}), ValueError, "'ln_scales' expected 2 Tensors"),
    (lambda x, l: (x, l[:2] + [l[2][0]] + l[3:], {}), TypeError, "'qkv_weights' expected a list or tuple"),
    (lambda x, l: (x, l[:2] + [[]] + l[3:], {}), ValueError, "'qkv_weights' expected at least one"),
    (lambda x, l: (x, l[:2] + [[eager.zeros([3, 2, 2, 5], dtype="float64")] * 2] + l[3:], {}), ValueError,
     r"'qkv_weights\[0\]' expected shape \[3, num_heads, head_dim, 4\]"),
    (lambda x, l: (x, l[:2] + [l[2]] + l[3:], {"trans_qkvw": False}), ValueError,
     r"expected shape \[4, 3, num_heads, head_dim\] \(trans_qkvw=False\)"),
    (lambda x, l: (x, l[:4] + [[l[4][0], eager.zeros([4, 5], dtype="float64")]] + l[5:], {}), ValueError,
     r"'linear_weights\[1\]' expected shape \[4, 4\]"),
    (lambda x, l: (x, l[:10] + [[eager.zeros([5, 4], dtype="float64")] * 2] + l[11:], {}), ValueError,
     r"'ffn2_weights\[0\]' expected shape \[6, 4\]"),
    (lambda x, l: (x.astype("float32"), l, {}), TypeError, r"'qkv_weights\[0\]' expected dtype"),
    (lambda x, l: (x, l, {"activation": "swish"}), ValueError, "'activation' expected 'gelu', 'relu' or 'none'"),
    (lambda x, l: (x, l, {"epsilon": 0.01}), ValueError, r"'epsilon' expected a value in \[0, 0.001\]"),
    (lambda x, l: (x, l, {"dropout_rate": 1.5}), ValueError, "'dropout_rate' expected a float in"),
    (lambda x, l: (x, l, {"ring_id": 0}), ValueError, "'ring_id' expected -1"),
    (lambda x, l: (x, l, {"attn_mask": eager.zeros([1, 1, 3, 4], dtype="float64")}), ValueError,
     r"'attn_mask' expected a shape that broadcasts to \[1, 2, 3, 3\]"),
    (lambda x, l: (x, l, {"time_step": 1}), ValueError, "'time_step' expected None without cache_kvs"),
    (lambda x, l: (x, l, {"cache_kvs": [eager.zeros([2, 1, 2, 8, 2], dtype="float64")] * 2, "time_step": 3}),
     ValueError, r"expected one token per sequence"),
    (lambda x, l: (x[:, :1], l, {"cache_kvs": [eager.zeros([2, 1, 2, 8, 2], dtype="float64")] * 2,
                                 "time_step": 8}), ValueError, r"'time_step' expected a value in \[1, 7\]"),
    (lambda x, l: (x[:, :1], l, {"cache_kvs": [eager.zeros([2, 1, 2, 8, 2], dtype="float64")] * 2,
                                 "time_step": eager.to_tensor([1.0])}), TypeError,
     "'time_step' expected an integer Tensor"),
    (lambda x, l: (x, l, {"cache_kvs": [eager.zeros([2, 1, 2, 8, 2], dtype="float64")]}), ValueError,
     "'cache_kvs' expected 2 Tensors"),
    (lambda x, l: (x, l, {"cache_kvs": [eager.zeros([2, 1, 2, 2, 2], dtype="float64")] * 2}), ValueError,
     "'cache_kvs' expected room for 3 positions"),
    (lambda x, l: (x, l, {"cache_kvs": [eager.zeros([2, 2, 2, 8, 2], dtype="float64")] * 2}), ValueError,
     r"'cache_kvs\[0\]' expected shape \[2, 1, 2, 8, 2\]"),
    (lambda x, l: (x, l, {"rotary_emb_dims": 1}), ValueError, "'rotary_embs' expected a Tensor"),
    (lambda x, l: (x, l, {"rotary_emb_dims": 3}), ValueError, "'rotary_emb_dims' expected 0, 1 or 2"),
    (lambda x, l: (x, l, {"rotary_embs": eager.zeros([2, 1, 1, 3, 2], dtype="float64"), "rotary_emb_dims": 2}),
     ValueError, "'rotary_emb_dims' expected a divisor of head_dim / 2"),
    (lambda x, l: (x, l, {"seq_lens": eager.to_tensor([4])}), ValueError, r"'seq_lens' expected shape \[1\] with "
                                                                         r"values in \[0, 3\]"),
    (lambda x, l: (x[0], l, {}), ValueError, "'x' expected a 3-d Tensor"),
])
def test_errors_name_the_function_argument_and_expectation(rng, change, error, message):
    x, lists = _good(rng)
    x, lists, kwargs = change(x, lists)
    with pytest.raises(error, match=message) as info:
        IF.fused_multi_transformer(x, *lists, **kwargs)
    assert "incubate.nn.functional.fused_multi_transformer" in str(info.value)


def test_bad_input_leaves_the_caches_alone(rng):
    x, lists = _good(rng)
    caches = [eager.ones([2, 1, 2, 8, 2], dtype="float64") for _ in range(2)]
    with pytest.raises(ValueError, match="attn_mask"):
        IF.fused_multi_transformer(x, *lists, cache_kvs=caches, attn_mask=eager.zeros([1, 1, 3, 2], "float64"))
    assert all((c.numpy() == 1.0).all() for c in caches)


def test_layer_errors():
    with pytest.raises(ValueError, match="'num_layers' expected a positive int"):
        incubate.nn.FusedMultiTransformer(8, 2, 16)
    with pytest.raises(ValueError, match="'ffn1_bias_attrs' expected one attribute per layer \\(2\\)"):
        incubate.nn.FusedMultiTransformer(8, 2, 16, num_layers=2, ffn1_bias_attrs=[None])
    with pytest.raises(ValueError, match="'num_heads' expected a divisor of embed_dim"):
        incubate.nn.FusedMultiTransformer(8, 3, 16, num_layers=1)
    with pytest.raises(ValueError, match="'activation' expected"):
        incubate.nn.FusedMultiTransformer(8, 2, 16, num_layers=1, activation="tanh")
    with pytest.raises(ValueError, match="'nranks'/'ring_id' expected 1/-1"):
        incubate.nn.FusedMultiTransformer(8, 2, 16, num_layers=1, nranks=2, ring_id=0)
    # A list of qkv_weight_attrs sets the number of layers.
    assert len(incubate.nn.FusedMultiTransformer(8, 2, 16, qkv_weight_attrs=[None] * 3).qkv_weights) == 3


def test_docstring_examples_run(device):
    if device == "gpu":
        pytest.skip("the examples print CPU values; once is enough")
    result = doctest.testmod(multi_transformer, extraglobs={"eager": eager}, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
