"""Cases found by re-running the dygraph parts of PaddlePaddle's own unit tests for
paddle.incubate a second time (test_fused_attention_op_api, test_fused_feedforward_op,
test_fused_matmul_bias, test_fused_dropout_add_op, test_fused_rotary_position_embedding,
test_softmax_mask_fuse(_upper_triangle)_op, test_graph_send_recv_op, test_lbfgs / bfgs,
test_fused_transformer_encoder_layer, test_fused_bias_dropout_residual_layer_norm_op_api,
test_graph_khop_sampler, test/asp test_asp_utils / test_asp_pruning_dynamic /
test_asp_optimize_dynamic, test/autograd test_primapi) against eager, each checked against
the real Paddle 2.6.2 where its CPU build runs them, else against the tests' NumPy
references.

What they found (one test per bug below; each failed before its fix):
- incubate.nn.FusedMultiHeadAttention refused key/value tensors that are copies of
  the query (test_fused_attention_op_api calls ``attn(to_tensor(q), to_tensor(q),
  to_tensor(q), mask)``); Paddle ignores key and value. Now a tensor equal to the
  query is taken; a different one is still refused (self-attention only).
- FusedFeedForward / FusedMultiHeadAttention extra_repr (the strings that
  test_fused_transformer_encoder_layer spells out, and print(layer)) lacked
  Paddle's epsilon, kdim, vdim, need_weights, dtype and name fields.
- incubate.asp.prune_model pruned weights whose input dimension is shorter than m
  (a Conv2D with 3 input channels, a Linear with 3 inputs); Paddle leaves them
  dense with a warning, and test_asp_pruning_dynamic / test_asp_optimize_dynamic
  check that they are not n:m sparse.
- amp.GradScaler.minimize refused the optimizer incubate.asp.decorate returns
  (test_asp_optimize_dynamic's AMP training).
- incubate.segment_* / geometric.segment_* with float segment_ids, and
  send_u_recv / graph_send_recv with a float dst_index, raised TypeError only;
  Paddle 2.6.2's kernels raise ValueError: now both (as the sampling and
  reindex ids already did).
- incubate.autograd.Hessian(is_batched=True) refused a func returning [B] (one
  value per batch row, e.g. ``sum(x * x, axis=-1)``); Paddle 2.6.2 takes it as
  [B, 1].
- incubate.graph_khop_sampler with an empty input_nodes died inside NumPy
  ("need at least one array to concatenate"); Paddle raises ValueError for an
  empty row, colptr or input_nodes (test_graph_khop_sampler's
  test_for_null_pointer_error): now a clear ValueError naming the argument.
- graph_khop_sampler refused a sample size of 0 for a later hop, which Paddle
  2.6.2 takes (that hop samples nothing).
- incubate.nn.functional.fused_layer_norm refused float32 norm_weight/norm_bias
  for a float16 x, the combination Paddle's own example uses (its kernel keeps
  layer-norm parameters in float32): now normalized in float32 and rounded once.
- the module paths paddle.incubate.nn.layer.fused_transformer / fused_dropout_add
  / fused_dropout_nd / fused_ec_moe / fused_linear, from which Paddle's own tests
  import the layers (test_fused_attention_op_api, test_fused_dropout_add_op),
  were missing; so were the functional ones (fused_layer_norm, fused_rms_norm,
  fused_transformer, fused_matmul_bias, ...), which scripts import from.
- the module path paddle.incubate.asp.utils (test_asp_utils) was missing: now the
  mask helpers are there too.

Checked and in agreement (no change): fused_dropout_add / FusedDropoutAdd against
dropout + add under the same seed (all modes, p in {0, .5, .9, 1}, training or not,
gradients); FusedDropout (axis None/int/list, train/eval) against Paddle;
fused_matmul_bias with trans_x/trans_y and bias or not (values and gradients),
FusedLinear/fused_linear with transpose_weight and zero rows;
fused_rotary_position_embedding (neox and rotate-half, position_ids, MQA/GQA
shapes, no sin/cos) against the test's reference; FusedMultiHeadAttention (24
configurations) and fused_multi_head_attention (768: masks, pre/post norm,
add_residual, biases, both dropout modes in eval) against NumPy references;
FusedTransformerEncoderLayer against nn.TransformerEncoderLayer with copied weights
(values and input gradients); FusedBiasDropoutResidualLayerNorm;
fused_rms_norm / fused_layer_norm (residual, bias, residual_alpha, begin_norm_axis)
against the tests' formulas; FusedEcMoe parameters; softmax_mask_fuse(_upper_triangle);
graph_send_recv / send_u_recv values (float, int32, out_size) and gradients and
segment_* values and gradients with ties (against Paddle 2.6.2); graph_khop_sampler
(test_sample_result with and without eids); minimize_bfgs / minimize_lbfgs
(quadratics, Rosenbrock, float64, initial inverse Hessian good and bad, int dtype
refused); asp masks (check/get 1d/2d, density, create_mask, check_sparsity), pruning
and decorated training; incubate.autograd vjp/jvp/Jacobian/Hessian (36 + 23 calls);
the fused layers' argument errors; LookAhead / ModelAverage argument errors.

Paddle quirks kept out (eager keeps its answer): Paddle 2.6.2's CPU build has no
kernel for fused_dropout_add, fused_gemm_epilogue (fused_matmul_bias, fused_linear),
fused_attention, fused_feedforward, fused_rotary_position_embedding, rms_norm,
fused_bias_residual_layernorm, fused_gate_attention or the softmax mask fuses (its
tests skip without CUDA); its CPU softmax_mask_fuse gives 1e-29 instead of 0 under a
-10000 mask; minimize_lbfgs fails under NumPy 2 (float() of a 1-element array);
incubate.autograd.grad / forward_grad assert static mode, and integer inputs are
differentiated in integer arithmetic (both documented); jvp through sin fails in
Paddle's double grad; FusedDropout(mode='downscale_in_infer') always raises (Paddle
renames the mode, then refuses the new name); FusedBiasDropoutResidualLayerNorm's
extra_repr raises AttributeError; graph_khop_sampler aborts on sample size -1 or a
0 between hops, and graph_sample_neighbors segfaults on an empty row; send_u_recv
takes a float src_index; the fused_ec_moe and fused_matmul_bias docstring examples
have mismatched shapes; the layer constructors take dropout_rate=-1 and fail later.

Missing, GPU-only in Paddle 2.6.2 (documented in docs/incubate.md or not exported):
variable_length_memory_efficient_attention, masked_multihead_attention,
block_multihead_attention, fused_gate_attention; asp.ASPHelper (static-Program
internals).
"""
import warnings

import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")

IN = eager.incubate.nn


def _layer_norm(x, w, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_fused_multi_head_attention_takes_copies_of_the_query_as_key_and_value():
    rng = np.random.default_rng(0)
    batch, seq, heads, head_dim = 2, 3, 2, 2
    embed = heads * head_dim
    q = rng.random((batch, seq, embed)).astype("float32")
    mask = ((np.tril(np.ones((batch, heads, seq, seq))) - 1.0) * 1e9)
    attn = IN.FusedMultiHeadAttention(embed, heads, 0.0, 0.0)
    out = attn(eager.to_tensor(q), eager.to_tensor(q), eager.to_tensor(q), eager.to_tensor(mask))
    # the test's reference: post layer norm, qkv weight [3, heads, head_dim, embed]
    qkv_w = attn.qkv_weight.numpy().transpose(3, 0, 1, 2).reshape(embed, -1)
    x = q.astype("float64")
    qkv = (x @ qkv_w + attn.qkv_bias.numpy().reshape(-1)).reshape(batch, seq, 3, heads, head_dim)
    qkv = qkv.transpose(2, 0, 3, 1, 4)
    scores = qkv[0] @ qkv[1].transpose(0, 1, 3, 2) / np.sqrt(head_dim) + mask
    heads_out = (_softmax(scores) @ qkv[2]).transpose(0, 2, 1, 3).reshape(batch, seq, embed)
    ref = _layer_norm(x + heads_out @ attn.linear_weight.numpy() + attn.linear_bias.numpy(),
                      attn.ln_scale.numpy(), attn.ln_bias.numpy())
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="argument 'value' expected None or a tensor equal to query"):
        attn(eager.to_tensor(q), eager.to_tensor(q), eager.to_tensor(q + 1))
    with pytest.raises(ValueError, match="argument 'key' expected None or a tensor equal to query"):
        attn(eager.to_tensor(q), eager.to_tensor(q[:, :2]))


def test_fused_layers_extra_repr_is_paddles():
    # strings from Paddle 2.6.2
    ffn = IN.FusedFeedForward(4, 8, 0.1, activation="gelu", act_dropout_rate=0.2, normalize_before=True, name="ff")
    assert ffn.extra_repr() == ("d_model=4, dim_feedforward=8, dropout_rate=0.1, epsilon=1e-05, activation=gelu, "
                                "act_dropout_rate=0.2, normalize_before=True, dtype=float32, name=ff")
    attn = IN.FusedMultiHeadAttention(4, 2, 0.1, 0.2, normalize_before=True)
    assert attn.extra_repr() == ("embed_dim=4, num_heads=2, dropout_rate=0.1, attn_dropout_rate=0.2, epsilon=1e-05, "
                                 "kdim=None, vdim=None, normalize_before=True, need_weights=False, dtype=float32")


class _ConvNet(eager.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv1 = eager.nn.Conv2D(3, 2, 3, padding=2)
        self.linear1 = eager.nn.Linear(2 * 6 * 6, 8)
        self.linear2 = eager.nn.Linear(8, 4)

    def forward(self, img):
        return self.linear2(self.linear1(eager.flatten(self.conv1(img), start_axis=1)))


@pytest.mark.parametrize("algo", ["mask_1d", "mask_2d_best", "mask_2d_greedy"])
def test_asp_leaves_weights_with_fewer_inputs_than_m_dense(algo):
    asp = eager.incubate.asp
    net = _ConvNet()
    conv_before = net.conv1.weight.numpy().copy()
    with pytest.warns(UserWarning, match=r"is not pruned because dimension 1 of \[2, 3, 3, 3\] is smaller than m=4"):
        masks = asp.prune_model(net, mask_algo=algo, with_mask=False)
    np.testing.assert_array_equal(net.conv1.weight.numpy(), conv_before)
    np.testing.assert_array_equal(masks[net.conv1.weight.name], np.ones([2, 3, 3, 3]))
    assert not asp.check_sparsity(net.conv1.weight.numpy().T, n=2, m=4)
    check = asp.CheckMethod.CHECK_1D if algo == "mask_1d" else asp.CheckMethod.CHECK_2D
    for linear in (net.linear1, net.linear2):
        assert asp.check_sparsity(linear.weight.numpy().T, func_name=check, n=2, m=4)
    small = eager.nn.Linear(3, 8)
    with pytest.warns(UserWarning, match=r"dimension 0 of \[3, 8\] is smaller than m=4"):
        asp.prune_model(small, with_mask=False)
    assert (small.weight.numpy() != 0).all()


def test_grad_scaler_minimize_takes_an_asp_decorated_optimizer():
    asp = eager.incubate.asp
    net = _ConvNet()
    opt = asp.decorate(eager.optimizer.SGD(learning_rate=0.01, parameters=net.parameters()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # conv1 stays dense (tested above)
        asp.prune_model(net)
    rng = np.random.default_rng(1)
    imgs = eager.to_tensor(rng.standard_normal((4, 3, 4, 4)).astype("float32"))
    scaler = eager.amp.GradScaler(init_loss_scaling=1024)
    with eager.amp.auto_cast(enable=True):
        loss = net(imgs).square().mean()
    scaled = scaler.scale(loss)
    scaled.backward()
    before = net.linear1.weight.numpy().copy()
    scaler.minimize(opt, scaled)
    opt.clear_grad()
    after = net.linear1.weight.numpy()
    assert not np.array_equal(after, before)
    assert ((before == 0) <= (after == 0)).all()       # pruned entries stay zero after the step
    assert asp.check_sparsity(after.T, n=2, m=4)


def test_asp_utils_module_path():
    from eager.incubate.asp import utils
    x = np.array([[1.0, 0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0, 1.0]])
    assert utils.check_mask_1d(x, 2, 4) and not utils.check_mask_1d(x, 3, 4)
    assert utils.calculate_density(x) == pytest.approx(8 / 15)
    assert utils.create_mask is eager.incubate.asp.create_mask


@pytest.mark.parametrize("name", ["segment_sum", "segment_mean", "segment_max", "segment_min"])
def test_segment_ids_of_a_float_dtype_raise_value_error_too(name):
    data = eager.to_tensor(np.ones([3, 2], "float32"))
    with pytest.raises(ValueError, match=f"{name}: argument 'segment_ids' expected an int32 or int64 Tensor"):
        getattr(eager.incubate, name)(data, eager.to_tensor([0.0, 0.0, 1.0]))
    with pytest.raises(TypeError):
        getattr(eager.geometric, name)(data, eager.to_tensor([0.0, 0.0, 1.0]))


def test_graph_send_recv_float_dst_index_raises_value_error_too():
    x = eager.to_tensor(np.ones([3, 2], "float32"))
    with pytest.raises(ValueError, match="argument 'dst_index' expected an int32 or int64 Tensor"):
        eager.incubate.graph_send_recv(x, eager.to_tensor([0, 1, 2]), eager.to_tensor([0.0, 1.0, 2.0]))


def test_batched_hessian_takes_a_function_returning_one_value_per_row():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3))
    hess = eager.incubate.autograd.Hessian(lambda t: eager.sum(t * t * t, axis=-1), eager.to_tensor(x),
                                           is_batched=True)
    ref = np.stack([np.diag(6.0 * row) for row in x])            # d2/dx2 of sum x^3
    assert hess.shape == (2, 3, 3)                                # a tuple, as Paddle's
    np.testing.assert_allclose(hess[:].numpy(), ref, rtol=1e-12)
    with pytest.raises(ValueError, match=r"func expected to return a Tensor of shape \[2, 1\] or \[2\], got \[2, 2\]"):
        eager.incubate.autograd.Hessian(lambda t: t[:, :2] * 1.0, eager.to_tensor(x), is_batched=True)[:]


_ROW = np.array([1, 2, 0, 2, 0, 1])
_COLPTR = np.array([0, 2, 4, 6])


@pytest.mark.parametrize("arg", ["row", "colptr", "input_nodes"])
def test_graph_khop_sampler_refuses_empty_inputs_clearly(arg):
    given = {"row": eager.to_tensor(_ROW), "colptr": eager.to_tensor(_COLPTR), "input_nodes": eager.to_tensor([0, 2])}
    given[arg] = eager.to_tensor(np.zeros([0], "int64"))
    with pytest.raises(ValueError, match=f"graph_khop_sampler: argument '{arg}' expected a non-empty Tensor, "
                                         r"got shape \[0\]"):
        eager.incubate.graph_khop_sampler(given["row"], given["colptr"], given["input_nodes"], [2])


def test_graph_khop_sampler_takes_a_later_hop_of_size_zero():
    # every node has exactly two neighbors, so sampling two is deterministic; values from Paddle 2.6.2
    out = eager.incubate.graph_khop_sampler(eager.to_tensor(_ROW), eager.to_tensor(_COLPTR), eager.to_tensor([0, 2]),
                                            [2, 0])
    assert [t.numpy().ravel().tolist() for t in out] == [[2, 1, 0, 2], [0, 0, 1, 1], [0, 2, 1], [0, 1]]
    with pytest.raises(ValueError, match="none of the input nodes has a neighbor"):
        eager.incubate.graph_khop_sampler(eager.to_tensor(_ROW), eager.to_tensor(_COLPTR), eager.to_tensor([0]), [0])


@pytest.mark.parametrize("dtype, ulp", [("float16", 2.0 ** -10), ("bfloat16", 2.0 ** -7)])
def test_fused_layer_norm_takes_float32_parameters_for_a_half_x(dtype, ulp, device):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
        if device != "cpu":
            pytest.skip("bfloat16 lives on the CPU only")
    rng = np.random.default_rng(4)
    x32, w, b = rng.standard_normal((4, 8)), rng.standard_normal(8), rng.standard_normal(8)
    x = eager.cast(eager.to_tensor(x32.astype("float32")), dtype)
    out, residual_out, mean, variance = eager.incubate.nn.functional.fused_layer_norm(
        x, eager.to_tensor(w.astype("float32")), eager.to_tensor(b.astype("float32")), 1e-6, begin_norm_axis=1)
    assert out.dtype == x.dtype and residual_out is None and mean.dtype == eager.float32
    h = eager.cast(x, "float32").numpy().astype("float64")
    ref = (h - h.mean(-1, keepdims=True)) / np.sqrt(h.var(-1, keepdims=True) + 1e-6) * w.astype("float32") \
        + b.astype("float32")
    got = eager.cast(out, "float32").numpy()
    assert np.all(np.abs(got - ref) <= ulp * np.maximum(np.abs(ref), 1.0))     # one rounding to x's dtype


def test_incubate_nn_layer_module_paths():
    from eager.incubate.nn.layer.fused_dropout_add import FusedDropoutAdd
    from eager.incubate.nn.layer.fused_dropout_nd import FusedDropout
    from eager.incubate.nn.layer.fused_ec_moe import FusedEcMoe
    from eager.incubate.nn.layer.fused_linear import FusedLinear
    from eager.incubate.nn.layer.fused_transformer import (FusedBiasDropoutResidualLayerNorm, FusedFeedForward,
                                                           FusedMultiHeadAttention, FusedMultiTransformer,
                                                           FusedTransformerEncoderLayer)
    IN_ = eager.incubate.nn
    assert (FusedDropoutAdd, FusedDropout, FusedEcMoe, FusedLinear) == (IN_.FusedDropoutAdd, IN_.FusedDropout,
                                                                       IN_.FusedEcMoe, IN_.FusedLinear)
    assert (FusedBiasDropoutResidualLayerNorm, FusedFeedForward, FusedMultiHeadAttention, FusedMultiTransformer,
            FusedTransformerEncoderLayer) == (IN_.FusedBiasDropoutResidualLayerNorm, IN_.FusedFeedForward,
                                              IN_.FusedMultiHeadAttention, IN_.FusedMultiTransformer,
                                              IN_.FusedTransformerEncoderLayer)
    assert IN_.layer.fused_linear.FusedLinear is IN_.FusedLinear


def test_incubate_nn_functional_module_paths_keep_the_functions_bound():
    from eager.incubate.nn.functional.fused_dropout_add import fused_dropout_add
    from eager.incubate.nn.functional.fused_ec_moe import fused_ec_moe
    from eager.incubate.nn.functional.fused_layer_norm import fused_layer_norm
    from eager.incubate.nn.functional.fused_matmul_bias import fused_linear, fused_linear_activation, fused_matmul_bias
    from eager.incubate.nn.functional.fused_rms_norm import fused_rms_norm
    from eager.incubate.nn.functional.fused_rotary_position_embedding import fused_rotary_position_embedding
    from eager.incubate.nn.functional.fused_transformer import (fused_bias_dropout_residual_layer_norm,
                                                                fused_feedforward, fused_multi_head_attention,
                                                                fused_multi_transformer)
    F = eager.incubate.nn.functional
    found = [fused_dropout_add, fused_ec_moe, fused_layer_norm, fused_linear, fused_linear_activation, fused_matmul_bias,
             fused_rms_norm, fused_rotary_position_embedding, fused_bias_dropout_residual_layer_norm,
             fused_feedforward, fused_multi_head_attention, fused_multi_transformer]
    assert all(callable(f) and getattr(F, f.__name__) is f for f in found)
    out = F.fused_rms_norm(eager.to_tensor([[3.0, 4.0]]), eager.ones([2]), None, 0.0, 1)[0]
    np.testing.assert_allclose(out.numpy(), [[3.0, 4.0]] / np.sqrt(12.5), rtol=1e-6)
