"""scaled_dot_product_attention, MultiHeadAttention and the Transformer layers.

Attention is checked against NumPy written from the formula softmax(Q K^T /
sqrt(d) + mask) V, the layers against a NumPy encoder layer and, where torch is
installed, against torch's layers with the same weights (Paddle's Linear keeps
weights as [in, out], torch's as [out, in]; the blocks are otherwise the same).
Gradients by gradcheck in float64 with dropout 0.
"""
import importlib.util
import pathlib

import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck, gradgradcheck

pytestmark = pytest.mark.usefixtures("device")


def _rng(seed=0):
    return np.random.default_rng(seed)


def np_softmax(x):
    with np.errstate(invalid="ignore"):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)


def np_sdpa(q, k, v, mask=None, causal=False):
    """Paddle's layout [batch, seq, heads, dim]; a bool mask keeps True, a float one is added."""
    q, k, v = (np.swapaxes(a, -3, -2).astype(np.float64) for a in (q, k, v))  # heads first
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf) if mask.dtype == bool else scores + mask
    if causal:
        lq, lk = scores.shape[-2:]
        scores = np.where(np.arange(lk)[None, :] <= np.arange(lq)[:, None], scores, -np.inf)
    return np.swapaxes(np_softmax(scores) @ v, -3, -2)


def _to_float64(layer):
    """The layer with every parameter replaced by a float64 copy (for gradcheck)."""
    for sub in layer.sublayers(include_self=True):
        for name, param in list(sub._parameters.items()):
            if param is not None:
                setattr(sub, name, eager.nn.Parameter(param.numpy().astype(np.float64)))
    return layer


# -- scaled_dot_product_attention ---------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("q_shape, k_len, v_dim, mask_shape, mask_kind, causal", [
    ((2, 5, 3, 4), 5, 4, None, None, False),
    ((2, 5, 3, 4), 7, 6, None, None, False),
    ((2, 5, 3, 4), 5, 4, None, None, True),
    ((2, 4, 3, 4), 6, 4, None, None, True),          # causal, top-left aligned
    ((2, 5, 3, 4), 6, 4, (2, 3, 5, 6), "bool", False),
    ((2, 5, 3, 4), 6, 4, (5, 6), "float", False),     # broadcast over batch and heads
    ((2, 5, 3, 4), 5, 4, (2, 1, 1, 5), "bool", True),  # padding mask and causal
    ((5, 2, 4), 6, 4, (2, 5, 6), "float", False),     # 3-d: no batch
    ((1, 1, 1, 1), 1, 1, None, None, False),
])
def test_sdpa_matches_the_formula(dtype, q_shape, k_len, v_dim, mask_shape, mask_kind, causal):
    rng = _rng(1)
    kv = q_shape[:-3] + (k_len, q_shape[-2])
    q = rng.standard_normal(q_shape).astype(dtype)
    k = rng.standard_normal(kv + (q_shape[-1],)).astype(dtype)
    v = rng.standard_normal(kv + (v_dim,)).astype(dtype)
    mask = None
    if mask_kind == "bool":
        mask = rng.random(mask_shape) > 0.3
        mask[..., 0] = True  # every row keeps a key
    elif mask_kind == "float":
        mask = rng.standard_normal(mask_shape).astype(dtype)
    out = F.scaled_dot_product_attention(eager.to_tensor(q), eager.to_tensor(k), eager.to_tensor(v),
                                         None if mask is None else eager.to_tensor(mask), is_causal=causal)
    want = np_sdpa(q, k, v, mask, causal)
    assert out.shape == list(want.shape) and out.dtype == eager.to_tensor(q).dtype
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(out.numpy(), want, rtol=tol, atol=tol)


def test_sdpa_is_stable_for_large_scores():
    q = eager.to_tensor(np.full((1, 3, 1, 2), 1e4, "float32"))
    out = F.scaled_dot_product_attention(q, q, q).numpy()
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, 1e4, rtol=1e-6)


def test_sdpa_bool_mask_equals_minus_inf_float_mask():
    rng = _rng(2)
    q, k, v = (eager.to_tensor(rng.standard_normal((2, 4, 2, 3))) for _ in range(3))
    keep = rng.random((2, 2, 4, 4)) > 0.4
    keep[..., 0] = True
    a = F.scaled_dot_product_attention(q, k, v, eager.to_tensor(keep))
    b = F.scaled_dot_product_attention(q, k, v, eager.to_tensor(np.where(keep, 0.0, -np.inf)))
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_sdpa_dropout_on_the_weights():
    rng = _rng(3)
    q, k, v = (eager.to_tensor(rng.standard_normal((2, 6, 2, 4))) for _ in range(3))
    plain = F.scaled_dot_product_attention(q, k, v).numpy()
    np.testing.assert_allclose(F.scaled_dot_product_attention(q, k, v, dropout_p=0.5, training=False).numpy(),
                               plain, rtol=1e-12)
    eager.seed(4)
    a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).numpy()
    eager.seed(4)
    b = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, plain)
    np.testing.assert_array_equal(F.scaled_dot_product_attention(q, k, v, dropout_p=1.0).numpy(), 0.0)


def test_sdpa_gradients():
    rng = _rng(5)
    q, k = (eager.to_tensor(rng.standard_normal((2, 3, 2, 4)), stop_gradient=False) for _ in range(2))
    v = eager.to_tensor(rng.standard_normal((2, 3, 2, 5)), stop_gradient=False)
    mask = eager.to_tensor(rng.standard_normal((3, 3)), stop_gradient=False)
    fn = lambda q_, k_, v_, m_: F.scaled_dot_product_attention(q_, k_, v_, m_, is_causal=True)  # noqa: E731
    assert gradcheck(fn, [q, k, v, mask])
    assert gradgradcheck(fn, [q, k, v, mask])

    def with_dropout(q_, k_, v_):
        eager.seed(7)  # one dropout mask for every evaluation
        return F.scaled_dot_product_attention(q_, k_, v_, dropout_p=0.3)

    assert gradcheck(with_dropout, [q, k, v])


def test_sdpa_matches_torch():
    torch = pytest.importorskip("torch")
    rng = _rng(6)
    q, k, v = (rng.standard_normal((2, 5, 3, 4)) for _ in range(3))
    keep = rng.random((2, 3, 5, 5)) > 0.3
    keep[..., 0] = True
    got = F.scaled_dot_product_attention(*(eager.to_tensor(a) for a in (q, k, v)), eager.to_tensor(keep))
    heads_first = [torch.tensor(a).permute(0, 2, 1, 3) for a in (q, k, v)]
    want = torch.nn.functional.scaled_dot_product_attention(*heads_first, attn_mask=torch.tensor(keep))
    np.testing.assert_allclose(got.numpy(), want.permute(0, 2, 1, 3).numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("call, error, words", [
    (lambda q: F.scaled_dot_product_attention(q[0, 0], q[0, 0], q[0, 0]), ValueError, "4-d"),
    (lambda q: F.scaled_dot_product_attention(q, q.astype("float32"), q), TypeError, "dtype of query"),
    (lambda q: F.scaled_dot_product_attention(q, q[:, :, :1], q), ValueError, "argument 'key'"),
    (lambda q: F.scaled_dot_product_attention(q, q, q[:, :2]), ValueError, "argument 'value'"),
    (lambda q: F.scaled_dot_product_attention(q, q, q, eager.ones([3, 3])), ValueError, "attn_mask"),
    (lambda q: F.scaled_dot_product_attention(q, q, q, eager.ones([4, 4], "int64")), TypeError, "attn_mask"),
    (lambda q: F.scaled_dot_product_attention(q, q, q, eager.ones([4, 4], "float32")), TypeError, "attn_mask"),
    (lambda q: F.scaled_dot_product_attention(q, q, q, dropout_p=1.2), ValueError, "argument 'dropout_p'"),
    (lambda q: F.scaled_dot_product_attention(q, q, q, is_causal=1), TypeError, "is_causal"),
    (lambda q: F.scaled_dot_product_attention(q.numpy(), q, q), TypeError, "query"),
])
def test_sdpa_rejects_bad_input(call, error, words):
    q = eager.to_tensor(_rng(7).standard_normal((2, 4, 2, 3)))
    with pytest.raises(error) as info:
        call(q)
    assert "scaled_dot_product_attention" in str(info.value) and words in str(info.value)


# -- MultiHeadAttention -------------------------------------------------------------------

def np_mha(layer, query, key, value, additive_mask=None):
    """MultiHeadAttention from its definition, with the layer's weights."""
    def proj(lin, x):
        return x.astype(np.float64) @ lin.weight.numpy() + lin.bias.numpy()

    def heads(x):
        b, length, _ = x.shape
        return x.reshape(b, length, layer.num_heads, layer.head_dim).transpose(0, 2, 1, 3)

    q, k, v = heads(proj(layer.q_proj, query)), heads(proj(layer.k_proj, key)), heads(proj(layer.v_proj, value))
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(layer.head_dim)
    if additive_mask is not None:
        scores = scores + additive_mask
    weights = np_softmax(scores)
    out = (weights @ v).transpose(0, 2, 1, 3).reshape(query.shape[0], query.shape[1], layer.embed_dim)
    return proj(layer.out_proj, out), weights


def test_mha_matches_numpy_with_each_mask_kind():
    eager.seed(0)
    layer = eager.nn.MultiHeadAttention(8, 2, kdim=6, vdim=5, need_weights=True)
    rng = _rng(8)
    q = rng.standard_normal((3, 4, 8)).astype("float32")
    k = rng.standard_normal((3, 7, 6)).astype("float32")
    v = rng.standard_normal((3, 7, 5)).astype("float32")
    keep = rng.random((3, 1, 4, 7)) > 0.3
    want, want_w = np_mha(layer, q, k, v, np.where(keep, 0.0, -1e9))
    for mask in (keep, keep.astype("int64"), np.where(keep, 0.0, -1e9).astype("float32")):
        out, weights = layer(eager.to_tensor(q), eager.to_tensor(k), eager.to_tensor(v), eager.to_tensor(mask))
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(weights.numpy(), want_w, rtol=1e-4, atol=1e-6)
        assert weights.shape == [3, 2, 4, 7]
    # key and value default to query
    self_attn = eager.nn.MultiHeadAttention(8, 4)
    np.testing.assert_allclose(self_attn(eager.to_tensor(q)).numpy(), np_mha(self_attn, q, q, q)[0],
                               rtol=1e-4, atol=1e-5)


def test_mha_matches_torch():
    torch = pytest.importorskip("torch")
    eager.seed(1)
    layer = eager.nn.MultiHeadAttention(8, 2)
    ref = torch.nn.MultiheadAttention(8, 2, batch_first=True).double()
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.tensor(np.concatenate(
            [p.weight.numpy().T for p in (layer.q_proj, layer.k_proj, layer.v_proj)])))
        ref.in_proj_bias.copy_(torch.tensor(np.concatenate(
            [p.bias.numpy() for p in (layer.q_proj, layer.k_proj, layer.v_proj)])))
        ref.out_proj.weight.copy_(torch.tensor(layer.out_proj.weight.numpy().T))
        ref.out_proj.bias.copy_(torch.tensor(layer.out_proj.bias.numpy()))
    rng = _rng(9)
    q, kv = rng.standard_normal((2, 5, 8)), rng.standard_normal((2, 6, 8))
    causal = np.triu(np.full((5, 6), -np.inf), 1)
    got = layer(*(eager.to_tensor(a.astype("float32")) for a in (q, kv, kv)), eager.to_tensor(causal))
    want = ref(torch.tensor(q), torch.tensor(kv), torch.tensor(kv), attn_mask=torch.tensor(causal))[0]
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_mha_incremental_cache_matches_the_causal_pass():
    eager.seed(2)
    layer = eager.nn.MultiHeadAttention(8, 2)
    x = eager.to_tensor(_rng(10).standard_normal((2, 5, 8)).astype("float32"))
    full = layer(x, attn_mask=eager.nn.Transformer.generate_square_subsequent_mask(None, 5)).numpy()
    cache = layer.gen_cache(x)
    assert isinstance(cache, layer.Cache) and cache.k.shape == [2, 2, 0, 4]
    steps = []
    for t in range(5):
        out, cache = layer(x[:, t:t + 1], cache=cache)
        steps.append(out.numpy())
    assert isinstance(cache, eager.nn.MultiHeadAttention.Cache) and cache.k.shape == [2, 2, 5, 4]
    np.testing.assert_allclose(np.concatenate(steps, axis=1), full, rtol=1e-5, atol=1e-6)
    # a cache built from given keys and values is used as it is
    given = layer.gen_cache(cache.k, cache.v, type=layer.Cache)
    assert given.k is cache.k and given.v is cache.v


def test_mha_static_cache_is_the_memory_projection():
    eager.seed(3)
    layer = eager.nn.MultiHeadAttention(8, 2, need_weights=True)
    rng = _rng(11)
    x = eager.to_tensor(rng.standard_normal((2, 3, 8)).astype("float32"))
    memory = eager.to_tensor(rng.standard_normal((2, 6, 8)).astype("float32"))
    static = layer.gen_cache(memory, memory, type=layer.StaticCache)
    out, weights, same = layer(x, memory, memory, cache=static)
    assert same is static
    want, want_weights = layer(x, memory, memory)
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-6)
    np.testing.assert_allclose(weights.numpy(), want_weights.numpy(), rtol=1e-6)


def test_mha_dropout_follows_train_and_eval():
    eager.seed(4)
    layer = eager.nn.MultiHeadAttention(8, 2, dropout=0.5)
    x = eager.to_tensor(_rng(12).standard_normal((2, 4, 8)).astype("float32"))
    a, b = layer(x).numpy(), layer(x).numpy()
    assert not np.allclose(a, b)
    layer.eval()
    np.testing.assert_allclose(layer(x).numpy(), np_mha(layer, x.numpy(), x.numpy(), x.numpy())[0],
                               rtol=1e-4, atol=1e-5)


def test_mha_gradients():
    eager.seed(5)
    layer = _to_float64(eager.nn.MultiHeadAttention(4, 2, kdim=3))
    rng = _rng(13)
    q = eager.to_tensor(rng.standard_normal((2, 3, 4)), stop_gradient=False)
    k = eager.to_tensor(rng.standard_normal((2, 2, 3)), stop_gradient=False)
    v = eager.to_tensor(rng.standard_normal((2, 2, 4)), stop_gradient=False)
    mask = eager.to_tensor(np.array([[True, False], [True, True], [False, True]]))
    assert gradcheck(lambda q_, k_, v_: layer(q_, k_, v_, mask), [q, k, v])
    out = layer(q, k, v, mask)
    out.sum().backward()
    assert all(p.grad is not None for p in layer.parameters())


@pytest.mark.parametrize("call, error, words", [
    (lambda: eager.nn.MultiHeadAttention(10, 3), ValueError, "divisor of embed_dim"),
    (lambda: eager.nn.MultiHeadAttention(0, 1), ValueError, "embed_dim"),
    (lambda: eager.nn.MultiHeadAttention(8, 2, dropout=1.5), ValueError, "argument 'dropout'"),
    (lambda: eager.nn.MultiHeadAttention(8, 2)(eager.ones([2, 3, 6])), ValueError, "argument 'query'"),
    (lambda: eager.nn.MultiHeadAttention(8, 2)(eager.ones([2, 3, 8]), eager.ones([2, 4, 8]), eager.ones([2, 5, 8])),
     ValueError, "'key' and 'value'"),
    (lambda: eager.nn.MultiHeadAttention(8, 2)(eager.ones([2, 3, 8]), attn_mask=eager.ones([3, 4])),
     ValueError, "attn_mask"),
    (lambda: eager.nn.MultiHeadAttention(8, 2)(eager.ones([2, 3, 8]), attn_mask=eager.ones([3, 3], "complex64")),
     TypeError, "attn_mask"),
    (lambda: eager.nn.MultiHeadAttention(8, 2)(eager.ones([2, 3, 8]), cache=(1, 2)), TypeError, "cache"),
    (lambda: eager.nn.MultiHeadAttention(8, 2).gen_cache(eager.ones([2, 3, 8]), type=tuple), TypeError, "type"),
])
def test_mha_rejects_bad_input(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


# -- encoder and decoder layers -----------------------------------------------------------

def np_layer_norm(x, norm):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * norm.weight.numpy() + norm.bias.numpy()


def np_encoder_layer(layer, x, additive_mask=None, normalize_before=False):
    def ffn(h):
        hidden = np.maximum(h @ layer.linear1.weight.numpy() + layer.linear1.bias.numpy(), 0.0)
        return hidden @ layer.linear2.weight.numpy() + layer.linear2.bias.numpy()

    x = x.astype(np.float64)
    if normalize_before:
        h = np_layer_norm(x, layer.norm1)
        x = x + np_mha(layer.self_attn, h, h, h, additive_mask)[0]
        return x + ffn(np_layer_norm(x, layer.norm2))
    x = np_layer_norm(x + np_mha(layer.self_attn, x, x, x, additive_mask)[0], layer.norm1)
    return np_layer_norm(x + ffn(x), layer.norm2)


@pytest.mark.parametrize("normalize_before", [False, True])
def test_encoder_layer_matches_numpy(normalize_before):
    eager.seed(6)
    layer = eager.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, normalize_before=normalize_before)
    x = _rng(14).standard_normal((2, 5, 8)).astype("float32")
    keep = np.ones((2, 1, 1, 5), bool)
    keep[1, ..., 3:] = False  # padding of the second sequence
    got = layer(eager.to_tensor(x), eager.to_tensor(keep)).numpy()
    want = np_encoder_layer(layer, x, np.where(keep, 0.0, -1e9), normalize_before)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def _copy_linear(t, e):
    t.weight.data = __import__("torch").tensor(e.weight.numpy().T.astype(np.float64))
    t.bias.data = __import__("torch").tensor(e.bias.numpy().astype(np.float64))


def _copy_mha(t, e):
    torch = __import__("torch")
    t.in_proj_weight.data = torch.tensor(np.concatenate([p.weight.numpy().T for p in (e.q_proj, e.k_proj, e.v_proj)])
                                         .astype(np.float64))
    t.in_proj_bias.data = torch.tensor(np.concatenate([p.bias.numpy() for p in (e.q_proj, e.k_proj, e.v_proj)])
                                       .astype(np.float64))
    _copy_linear(t.out_proj, e.out_proj)


def _copy_norm(t, e):
    torch = __import__("torch")
    t.weight.data = torch.tensor(e.weight.numpy().astype(np.float64))
    t.bias.data = torch.tensor(e.bias.numpy().astype(np.float64))


def _copy_encoder_layer(t, e):
    _copy_mha(t.self_attn, e.self_attn)
    _copy_linear(t.linear1, e.linear1)
    _copy_linear(t.linear2, e.linear2)
    _copy_norm(t.norm1, e.norm1)
    _copy_norm(t.norm2, e.norm2)


def _copy_decoder_layer(t, e):
    _copy_mha(t.self_attn, e.self_attn)
    _copy_mha(t.multihead_attn, e.cross_attn)
    _copy_linear(t.linear1, e.linear1)
    _copy_linear(t.linear2, e.linear2)
    for i in (1, 2, 3):
        _copy_norm(getattr(t, f"norm{i}"), getattr(e, f"norm{i}"))


@pytest.mark.parametrize("normalize_before", [False, True])
def test_transformer_matches_torch(normalize_before):
    torch = pytest.importorskip("torch")
    eager.seed(7)
    model = eager.nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, normalize_before=normalize_before)
    ref = torch.nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, batch_first=True, norm_first=normalize_before).double()
    for t, e in zip(ref.encoder.layers, model.encoder.layers):
        _copy_encoder_layer(t, e)
    for t, e in zip(ref.decoder.layers, model.decoder.layers):
        _copy_decoder_layer(t, e)
    _copy_norm(ref.encoder.norm, model.encoder.norm)
    _copy_norm(ref.decoder.norm, model.decoder.norm)
    rng = _rng(15)
    src, tgt = rng.standard_normal((2, 6, 8)), rng.standard_normal((2, 5, 8))
    tgt_mask = model.generate_square_subsequent_mask(5)
    got = model(eager.to_tensor(src.astype("float32")), eager.to_tensor(tgt.astype("float32")), tgt_mask=tgt_mask)
    ref.eval()
    want = ref(torch.tensor(src), torch.tensor(tgt), tgt_mask=torch.tensor(tgt_mask.numpy().astype(np.float64)))
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-4, atol=1e-4)


def test_encoder_stacks_fresh_layers_and_applies_norm():
    eager.seed(8)
    layer = eager.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    encoder = eager.nn.TransformerEncoder(layer, 3, norm=eager.nn.LayerNorm(8))
    assert len(encoder.layers) == 3 and encoder.layers[0] is layer
    weights = [id(l.linear1.weight) for l in encoder.layers]
    assert len(set(weights)) == 3
    assert not np.array_equal(encoder.layers[0].linear1.weight.numpy(), encoder.layers[1].linear1.weight.numpy())
    assert len(encoder.parameters()) == 3 * len(layer.parameters()) + 2
    x = eager.to_tensor(_rng(16).standard_normal((2, 4, 8)).astype("float32"))
    h = x
    for l in encoder.layers:
        h = l(h)
    np.testing.assert_allclose(encoder(x).numpy(), np_layer_norm(h.numpy().astype(np.float64), encoder.norm),
                               rtol=1e-4, atol=1e-4)
    caches = encoder.gen_cache(x)
    out, new_caches = encoder(x, cache=caches)
    assert len(new_caches) == 3 and new_caches[0].k.shape == [2, 2, 4, 4]


def test_decoder_incremental_decoding_matches_the_causal_pass():
    eager.seed(9)
    decoder = eager.nn.TransformerDecoder(eager.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2,
                                          norm=eager.nn.LayerNorm(8))
    rng = _rng(17)
    tgt = eager.to_tensor(rng.standard_normal((2, 4, 8)).astype("float32"))
    memory = eager.to_tensor(rng.standard_normal((2, 6, 8)).astype("float32"))
    memory_keep = eager.to_tensor(np.array([True] * 5 + [False]).reshape(1, 1, 1, 6))
    full = decoder(tgt, memory, eager.nn.Transformer.generate_square_subsequent_mask(None, 4), memory_keep).numpy()
    cache = decoder.gen_cache(memory)
    outs = []
    for t in range(4):
        out, cache = decoder(tgt[:, t:t + 1], memory, memory_mask=memory_keep, cache=cache)
        outs.append(out.numpy())
    np.testing.assert_allclose(np.concatenate(outs, axis=1), full, rtol=1e-5, atol=1e-5)
    zipped = decoder.gen_cache(memory, do_zip=True)
    assert len(zipped) == 2 and len(zipped[0]) == 2


def test_layer_dropouts_follow_train_and_eval():
    eager.seed(10)
    layer = eager.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.3, attn_dropout=0.2, act_dropout=0.1)
    assert (layer.self_attn.dropout, layer.dropout.p, layer.dropout1.p) == (0.2, 0.1, 0.3)
    x = eager.to_tensor(_rng(18).standard_normal((2, 4, 8)).astype("float32"))
    assert not np.allclose(layer(x).numpy(), layer(x).numpy())
    layer.eval()
    np.testing.assert_allclose(layer(x).numpy(), np_encoder_layer(layer, x.numpy()), rtol=1e-4, atol=1e-4)


def test_encoder_and_decoder_layer_gradients():
    eager.seed(11)
    enc = _to_float64(eager.nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, normalize_before=True))
    dec = _to_float64(eager.nn.TransformerDecoderLayer(4, 2, 6, dropout=0.0, activation="tanh"))
    rng = _rng(19)
    src = eager.to_tensor(rng.standard_normal((2, 3, 4)), stop_gradient=False)
    tgt = eager.to_tensor(rng.standard_normal((2, 2, 4)), stop_gradient=False)
    causal = eager.nn.Transformer.generate_square_subsequent_mask(None, 3).astype("float64")
    assert gradcheck(lambda s: enc(s, causal), [src])
    assert gradcheck(lambda t, m: dec(t, m), [tgt, src])


def test_param_attr_lists_and_no_bias():
    layer = eager.nn.TransformerEncoderLayer(8, 2, 16, bias_attr=[False, None])
    assert layer.self_attn.q_proj.bias is None and layer.linear1.bias is not None
    layer = eager.nn.TransformerDecoderLayer(8, 2, 16, weight_attr=eager.nn.ParamAttr(name="w"))
    assert layer.self_attn.q_proj.weight.name == "w_0" and layer.linear1.weight.name == "w_2"
    model = eager.nn.Transformer(8, 2, 1, 1, 16, bias_attr=[None, False])
    assert model.encoder.layers[0].linear1.bias is None and model.decoder.layers[0].cross_attn.q_proj.bias is not None


def test_generate_square_subsequent_mask():
    mask = eager.nn.Transformer(8, 2, 1, 1, 16).generate_square_subsequent_mask(4)
    assert mask.dtype == eager.float32 and mask.shape == [4, 4]
    np.testing.assert_array_equal(mask.numpy(), np.triu(np.full((4, 4), -np.inf), 1))


@pytest.mark.parametrize("call, error, words", [
    (lambda: eager.nn.TransformerEncoderLayer(8, 3, 16), ValueError, "divisor of embed_dim"),
    (lambda: eager.nn.TransformerEncoderLayer(8, 2, 16, activation="nope"), ValueError, "activation"),
    (lambda: eager.nn.TransformerEncoderLayer(8, 2, 0), ValueError, "dim_feedforward"),
    (lambda: eager.nn.TransformerEncoderLayer(8, 2, 16, dropout=-0.5), ValueError, "argument 'dropout'"),
    (lambda: eager.nn.TransformerEncoderLayer(8, 2, 16, weight_attr=[None, None, None]), ValueError, "weight_attr"),
    (lambda: eager.nn.TransformerEncoder(eager.nn.TransformerEncoderLayer(8, 2, 16), 0), ValueError, "num_layers"),
    (lambda: eager.nn.TransformerEncoder("layer", 2), TypeError, "Layer"),
    (lambda: eager.nn.TransformerEncoderLayer(8, 2, 16)(eager.ones([2, 3, 4])), ValueError, "argument 'src'"),
    (lambda: eager.nn.TransformerDecoderLayer(8, 2, 16)(eager.ones([2, 3, 8]), eager.ones([2, 3, 5])),
     ValueError, "argument 'memory'"),
    (lambda: eager.nn.TransformerDecoderLayer(8, 2, 16)(eager.ones([2, 3, 8]), eager.ones([2, 3, 8]), cache=[1]),
     TypeError, "cache"),
    (lambda: eager.nn.Transformer(8, 2, 1, 1, 16, bias_attr=[None] * 4), ValueError, "bias_attr"),
    (lambda: eager.nn.Transformer(8, 2, 1, 1, 16).generate_square_subsequent_mask(-1), ValueError, "length"),
])
def test_layers_reject_bad_input(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


def test_tiny_transformer_example_runs():
    path = pathlib.Path(__file__).resolve().parents[1] / "examples" / "tiny_transformer.py"
    spec = importlib.util.spec_from_file_location("tiny_transformer", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # A few steps only (the full run reaches ~100% in 600 steps); the loss must fall.
    assert module.main(["--steps", "30", "--batch-size", "16", "--threshold", "0.3"])
