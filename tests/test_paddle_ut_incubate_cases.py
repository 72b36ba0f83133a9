"""Cases found by re-running the dygraph parts of PaddlePaddle's own unit tests for
paddle.audio, paddle.text, paddle.incubate and paddle.geometric (test_audio_functions,
test_audio_mel_feature, test_audio_logmel_feature, ...) against eager, each checked
against the real Paddle 2.6.2.

What they found (one test per bug below; each failed before its fix):
- audio.functional.get_window refused win_length=0; Paddle 2.6.2 (and SciPy)
  return an empty window.
- audio.functional.hz_to_mel / mel_to_hz with htk=True on a float32 Tensor lost
  about 5e-5 relatively at low frequencies (1 + f/700 and exp(.) - 1 cancel):
  now log1p / expm1, correct to float32 rounding.
- hz_to_mel / mel_to_hz refused integer Tensors; Paddle 2.6.2 computes them in
  float32.
- nn.functional.flash_attention.sdp_kernel (the backend-choosing context that
  test_scaled_dot_product_attention uses) was missing.
- incubate.nn.functional.fused_multi_head_attention(transpose_qkv_wb=True)
  refused a NumPy integer num_heads, which Paddle's attribute parser takes.
- geometric.sample_neighbors / weighted_sample_neighbors (test_graph_sample_neighbors,
  test_weighted_sample_neighbors): a colptr, eids or edge_weight of another dtype
  raised TypeError only; Paddle's kernels raise ValueError: now both.
- geometric.reindex_graph / reindex_heter_graph / incubate.graph_reindex
  (test_graph_reindex) refused [N, 1] x, neighbors and count, which Paddle's
  InferMeta takes; a count or neighbors of another dtype raised TypeError only
  (Paddle: ValueError): now both.
- incubate.nn.functional.fused_ec_moe and incubate.nn.FusedEcMoe
  (test_fused_ec_moe_op) were missing: now composed of softmax, topk, gathers and
  batched matmuls (Paddle 2.6.2 has only a GPU kernel).
- audio.info's AudioInfo named its sample count num_frames; Paddle's is
  num_samples (num_frames stays as an alias). A file that is not 16-bit PCM WAV
  and set_backend of an unknown name raised ValueError only; Paddle raises
  NotImplementedError, which test_audio_backend catches: now both.

Checked and in agreement (no change): the audio features (Spectrogram, MelSpectrogram,
LogMelSpectrogram, MFCC), windows, fbank and dct matrices; viterbi_decode /
ViterbiDecoder on random draws; softmax_mask_fuse, identity_loss; the fused ops
(fused_feedforward, fused_multi_head_attention, fused_bias_dropout_residual_layer_norm,
fused_matmul_bias / fused_linear(_activation), fused_rotary_position_embedding,
fused_rms_norm / fused_layer_norm, FusedTransformerEncoderLayer) against Paddle's
unfused ops; LookAhead / ModelAverage trajectories; sample_neighbors,
weighted_sample_neighbors, graph_khop_sampler, reindex, segment_* and send_* with
gradients.

Paddle quirks kept out (eager keeps its answer): layer_norm's x gradient ignores a
scale whose stop_gradient is True (as if no scale); scaled_dot_product_attention
without a mask ignores training=False (dropout still applied); viterbi_decode with
one or two tags fails in the kernel (slice index errors); graph_sample_neighbors /
sample_neighbors with sample_size=-1 abort the process on CPU; reindex_heter_graph
with all counts zero fails in concat; audio.load with frame_offset past the end
returns the whole file; the float32 mel scale is less accurate in Paddle.
"""
import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")

AF = eager.audio.functional


@pytest.mark.parametrize("window", ["hann", "hamming", "triang", ("gaussian", 7), ("tukey", 0.3)])
@pytest.mark.parametrize("fftbins", [True, False])
def test_get_window_of_length_zero_is_empty(window, fftbins):
    w = AF.get_window(window, 0, fftbins)
    assert w.shape == [0] and w.dtype == eager.float64
    with pytest.raises(ValueError, match="argument 'win_length' expected an int >= 0, got -1"):
        AF.get_window(window, -1, fftbins)


def test_htk_mel_scale_is_accurate_in_float32():
    hz = np.array([0.01, 1.0, 3.0, 9.0, 25.0, 440.0, 8000.0], dtype="float32")
    mel_ref = 2595.0 * np.log10(1.0 + hz.astype("float64") / 700.0)
    got = AF.hz_to_mel(eager.to_tensor(hz), htk=True).numpy()
    np.testing.assert_allclose(got, mel_ref, rtol=4e-7)
    mel = hz
    hz_ref = 700.0 * (10.0 ** (mel.astype("float64") / 2595.0) - 1.0)
    got = AF.mel_to_hz(eager.to_tensor(mel), htk=True).numpy()
    np.testing.assert_allclose(got, hz_ref, rtol=4e-7)
    assert AF.mel_to_hz(9.0, htk=True) == pytest.approx(700.0 * (10.0 ** (9.0 / 2595.0) - 1.0), rel=1e-14)


def test_sdp_kernel_selects_backends_and_refuses_none():
    from eager.nn.functional.flash_attention import flash_attention, sdp_kernel
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 3, 2, 4)) for _ in range(3))
    scores = np.einsum("bshd,bthd->bhst", q, k) / 2.0
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    ref = np.einsum("bhst,bthd->bshd", weights, v)
    with sdp_kernel(enable_math=True, enable_flash=False, enable_mem_efficient=False):
        out, _ = flash_attention(eager.to_tensor(q), eager.to_tensor(k), eager.to_tensor(v))
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-10)
    with sdp_kernel(False, False, False):
        with pytest.raises(AssertionError, match="flash_attention: no backend is enabled"):
            flash_attention(eager.to_tensor(q), eager.to_tensor(k), eager.to_tensor(v))
    # the block's end restores the default
    out, _ = flash_attention(eager.to_tensor(q), eager.to_tensor(k), eager.to_tensor(v))
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-10)
    with pytest.raises(TypeError, match="sdp_kernel: argument 'enable_flash' expected a bool"):
        with sdp_kernel(True, "no"):
            pass


def test_fused_multi_head_attention_takes_a_numpy_int_num_heads():
    F = eager.incubate.nn.functional
    rng = np.random.default_rng(1)
    B, S, H, Dh = 2, 3, 2, 2
    E = H * Dh
    x = rng.standard_normal((B, S, E))
    qkvw = rng.standard_normal((3, H, Dh, E))
    lw = rng.standard_normal((E, E))
    # the pseudo code of Paddle's docstring: post layer norm (unit scale), residual, no dropout
    qkv = np.einsum("bse,thde->tbhsd", x, qkvw)
    scores = qkv[0] * Dh ** -0.5 @ qkv[1].transpose(0, 1, 3, 2)
    w = np.exp(scores - scores.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    o = x + (w @ qkv[2]).transpose(0, 2, 1, 3).reshape(B, S, E) @ lw
    ref = (o - o.mean(-1, keepdims=True)) / np.sqrt(o.var(-1, keepdims=True) + 1e-5)
    packed = eager.to_tensor(qkvw.reshape(3 * E, E).T.copy())
    got = F.fused_multi_head_attention(eager.to_tensor(x), packed, eager.to_tensor(lw), dropout_rate=0.0,
                                       attn_dropout_rate=0.0, num_heads=np.int64(H), transpose_qkv_wb=True)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-9, atol=1e-9)


def _csc_graph():
    # node 0 <- {0, 1, 2}, node 1 <- {0, 1}
    return np.array([0, 1, 2, 0, 1], "int64"), np.array([0, 3, 5], "int64"), np.array([0, 1], "int64")


def test_sample_neighbors_dtype_mismatches_are_value_errors_too():
    row, colptr, nodes = _csc_graph()
    T = eager.to_tensor
    # Paddle 2.6.2's kernels raise ValueError ("the type of data ... does not match")
    with pytest.raises(ValueError, match="sample_neighbors: argument 'colptr' expected row's dtype paddle.int32"):
        eager.geometric.sample_neighbors(T(row.astype("int32")), T(colptr), T(nodes.astype("int32")), sample_size=2)
    with pytest.raises(ValueError, match="sample_neighbors: argument 'eids' expected row's dtype paddle.int64"):
        eager.geometric.sample_neighbors(T(row), T(colptr), T(nodes), eids=T(np.arange(5, dtype="int32")),
                                         sample_size=2, return_eids=True)
    with pytest.raises(ValueError, match="weighted_sample_neighbors: argument 'edge_weight' expected a floating"):
        eager.geometric.weighted_sample_neighbors(T(row), T(colptr), T(np.ones(5, "int64")), T(nodes), sample_size=2)
    with pytest.raises(TypeError):
        eager.geometric.sample_neighbors(T(row.astype("int32")), T(colptr), T(nodes), sample_size=2)
    # sampling everything is deterministic: every neighbor, in CSC order (as Paddle 2.6.2 for sample_size=100)
    nb, cnt, eids = eager.geometric.sample_neighbors(T(row), T(colptr), T(nodes), eids=T(np.arange(5)),
                                                     sample_size=100, return_eids=True)
    assert nb.numpy().tolist() == [0, 1, 2, 0, 1] and cnt.numpy().tolist() == [3, 2]
    assert eids.numpy().tolist() == [0, 1, 2, 3, 4] and cnt.dtype == eager.int32


def test_reindex_graph_takes_column_tensors_and_raises_dtype_mismatches_as_value_errors():
    T = eager.to_tensor
    x = np.array([0, 1, 2], "int64")
    nb = np.array([8, 9, 0, 4, 7, 6, 7], "int64")
    cnt = np.array([2, 3, 2], "int32")
    # values from Paddle 2.6.2, whose GraphReindexInferMeta takes [N, 1] for x, neighbors and count
    want = ([3, 4, 0, 5, 6, 7, 6], [0, 0, 1, 1, 1, 2, 2], [0, 1, 2, 8, 9, 4, 7, 6])
    for args in [(x[:, None], nb, cnt), (x, nb[:, None], cnt[:, None])]:
        got = eager.geometric.reindex_graph(*map(T, args))
        assert tuple(t.numpy().tolist() for t in got) == want
    got = eager.geometric.reindex_heter_graph(T(x[:, None]), [T(nb[:, None])], [T(cnt[:, None])])
    assert tuple(t.numpy().tolist() for t in got) == want
    got = eager.incubate.graph_reindex(T(x[:, None]), T(nb[:, None]), T(cnt[:, None]))
    assert tuple(t.numpy().tolist() for t in got) == want
    with pytest.raises(ValueError, match=r"argument 'x' expected a 1-d Tensor \(or \[N, 1\]\), got shape \[1, 3\]"):
        eager.geometric.reindex_graph(T(x[None]), T(nb), T(cnt))
    with pytest.raises(ValueError, match="reindex_graph: argument 'count' expected an int32 Tensor"):
        eager.geometric.reindex_graph(T(x), T(nb), T(cnt.astype("int64")))
    with pytest.raises(ValueError, match="reindex_graph: argument 'neighbors' expected x's dtype paddle.int32"):
        eager.geometric.reindex_graph(T(x.astype("int32")), T(nb), T(cnt))


def _ec_moe_reference(x, gate, w0, b0, w1, b1, act):
    """Expert choice by loops: each expert takes the seq_len // 16 most probable tokens of each sequence."""
    batch, seq_len, _ = x.shape
    probs = np.exp(gate - gate.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    out = x.copy()
    for b in range(batch):
        for e in range(gate.shape[-1]):
            for s in np.argsort(-probs[b, :, e], kind="stable")[:seq_len // 16]:
                h = x[b, s] @ w0[e] + b0[e, 0]
                if act == "relu":
                    h = np.maximum(h, 0.0)
                else:  # the tanh approximation of the kernel's GELU epilogue
                    h = 0.5 * h * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (h + 0.044715 * h ** 3)))
                out[b, s] += probs[b, s, e] * (h @ w1[e] + b1[e, 0])
    return out


@pytest.mark.parametrize("act", ["gelu", "relu"])
@pytest.mark.parametrize("shape", [(2, 32, 4, 3, 5), (1, 16, 2, 2, 3), (2, 15, 3, 2, 2)])
def test_fused_ec_moe_matches_expert_choice_by_loops(act, shape):
    batch, seq_len, hidden, experts, inter = shape
    rng = np.random.default_rng(seq_len)
    arrays = [rng.standard_normal(s) for s in [(batch, seq_len, hidden), (batch, seq_len, experts),
                                                (experts, hidden, inter), (experts, 1, inter),
                                                (experts, inter, hidden), (experts, 1, hidden)]]
    got = eager.incubate.nn.functional.fused_ec_moe(*map(eager.to_tensor, arrays), act)
    np.testing.assert_allclose(got.numpy(), _ec_moe_reference(*arrays, act), rtol=1e-12, atol=1e-12)


def test_fused_ec_moe_layer_has_paddles_parameters_and_checks():
    moe = eager.incubate.nn.FusedEcMoe(4, 8, 2, act_type="gelu")
    # names and shapes of Paddle 2.6.2's FusedEcMoe.state_dict()
    assert {k: v.shape for k, v in moe.state_dict().items()} == {
        "bmm_weight0": [2, 4, 8], "bmm_bias0": [2, 1, 8], "bmm_weight1": [2, 8, 4], "bmm_bias1": [2, 1, 4]}
    x = eager.to_tensor(np.random.default_rng(0).standard_normal((1, 32, 4)).astype("float32"), stop_gradient=False)
    out = moe(x, eager.ones([1, 32, 2]))
    out.sum().backward()
    assert out.shape == [1, 32, 4] and x.grad is not None and moe.bmm_weight0.grad is not None
    with pytest.raises(NotImplementedError, match="FusedEcMoe: argument 'act_type' expected 'gelu' or 'relu'"):
        eager.incubate.nn.FusedEcMoe(4, 8, 2, act_type="silu")
    with pytest.raises(ValueError, match="fused_ec_moe: argument 'gate' expected shape"):
        moe(x, eager.ones([1, 16, 2]))


def test_audio_backend_errors_and_info_as_paddles_test_audio_backend_reads_them(tmp_path):
    path = str(tmp_path / "tone.wav")
    wav = (np.linspace(-1.0, 1.0, 8000, dtype="float32") * 0.1)[None]
    eager.audio.save(path, eager.to_tensor(wav), 16000, channels_first=True)
    info = eager.audio.info(path)
    # Paddle 2.6.2's AudioInfo fields
    assert (info.sample_rate, info.num_samples, info.num_channels, info.bits_per_sample, info.encoding) == (
        16000, 8000, 1, 16, "PCM_S")
    bad = str(tmp_path / "bad.wav")
    with open(bad, "wb") as f:
        f.write(b"RIFF1234notawave")
    for call in (lambda: eager.audio.info(bad), lambda: eager.audio.load(bad),
                 lambda: eager.audio.backends.set_backend("jfiji")):
        with pytest.raises(NotImplementedError):  # what Paddle raises (and its test catches)
            call()
        with pytest.raises(ValueError):
            call()


def test_mel_scale_takes_integer_tensors_as_float32():
    hz = np.array([440, 1500, 8000])
    for dtype in ("int32", "int64", "uint8"):
        x = hz.astype(dtype)
        got = AF.hz_to_mel(eager.to_tensor(x), htk=True)
        assert got.dtype == eager.float32  # as Paddle 2.6.2 (int / float gives float32)
        np.testing.assert_allclose(got.numpy(), 2595.0 * np.log10(1.0 + x / 700.0), rtol=1e-6)
        mel = np.array([5, 20, 40]).astype(dtype)
        got = AF.mel_to_hz(eager.to_tensor(mel), htk=False)
        assert got.dtype == eager.float32
        np.testing.assert_allclose(got.numpy(), AF.mel_to_hz(eager.to_tensor(mel.astype("float64"))).numpy(),
                                   rtol=1e-6)
    with pytest.raises(TypeError, match="argument 'freq' expected a floating-point or integer Tensor, got paddle.bool"):
        AF.hz_to_mel(eager.to_tensor([True]))
