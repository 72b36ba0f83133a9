"""Regression cases found by a random differential sweep of nn.functional's
common/vision/extension functions and the transformer layers (against
PyTorch, each discrepancy checked against Paddle's rules, which win).
References are direct float64 loops written here; gradients are checked by
finite differences.

- embedding with embedding_dim 0: the table's gradient (dense or sparse) is
  its empty rows, not a NumPy reshape error.
- bilinear with a 0 in1/in2/batch size: the bias (or zeros), not a reshape
  error (reshape reads a 0 as "keep this dimension").
- label_smooth of a label with no classes: the empty label, not a division by 0.
- gumbel_softmax(hard=True) of an empty x: the empty sample, not argmax's error.
- unfold of an x with a 0 spatial size whose padding still holds blocks: the
  zero blocks, and an (empty) gradient, which col2im could not give.
- cosine_similarity broadcasting along ``axis``: the cosine of the broadcast
  vectors (docs/nn.md's differences table: Paddle sums the squares first).
- MultiHeadAttention with key/memory (or a cache) of another batch size: a
  ValueError naming the layer and the argument, not matmul's or concat's.
"""
import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck

pytestmark = pytest.mark.usefixtures("device")


def leaf(shape, seed=0):
    return eager.to_tensor(np.random.default_rng(seed).standard_normal(shape), stop_gradient=False)


# -- embedding with embedding_dim 0 ----------------------------------------------------------

@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("padding_idx", [None, 0])
def test_embedding_of_zero_width_table_has_empty_gradient(sparse, padding_idx):
    ids = eager.to_tensor(np.array([[0, 1], [1, 0]], dtype=np.int64))
    table = eager.to_tensor(np.zeros((2, 0)), stop_gradient=False)
    out = F.embedding(ids, table, padding_idx=padding_idx, sparse=sparse)
    assert out.shape == [2, 2, 0]
    (grad,) = eager.grad([out], [table], [eager.to_tensor(np.zeros((2, 2, 0)))])
    assert grad.shape == [2, 0]  # a SelectedRows of the 4 looked-up rows where sparse


def test_embedding_padding_rows_are_zero_and_get_no_gradient():
    rng = np.random.default_rng(3)
    ids_np = np.array([[2, 0, 1], [1, 2, 2]], dtype=np.int64)
    w_np = rng.standard_normal((3, 4))
    table = eager.to_tensor(w_np, stop_gradient=False)
    out = F.embedding(eager.to_tensor(ids_np), table, padding_idx=-1)  # row 2
    g = rng.standard_normal((2, 3, 4))
    expected, expected_grad = np.zeros((2, 3, 4)), np.zeros((3, 4))
    for i in range(2):
        for j in range(3):
            if ids_np[i, j] != 2:
                expected[i, j] = w_np[ids_np[i, j]]
                expected_grad[ids_np[i, j]] += g[i, j]
    np.testing.assert_allclose(out.numpy(), expected)
    (grad,) = eager.grad([out], [table], [eager.to_tensor(g)])
    np.testing.assert_allclose(grad.numpy(), expected_grad)


# -- bilinear with empty sizes -----------------------------------------------------------------

def bilinear_loop(x1, x2, w, b):
    n, o = x1.shape[0], w.shape[0]
    out = np.zeros((n, o))
    for s in range(n):
        for k in range(o):
            for i in range(w.shape[1]):
                for j in range(w.shape[2]):
                    out[s, k] += x1[s, i] * w[k, i, j] * x2[s, j]
    return out if b is None else out + b.reshape(1, o)


@pytest.mark.parametrize("n, in1, in2, out", [(3, 2, 0, 3), (2, 0, 3, 2), (0, 3, 0, 1), (0, 2, 3, 4), (2, 3, 2, 4)])
@pytest.mark.parametrize("with_bias", [False, True])
def test_bilinear_with_empty_sizes(n, in1, in2, out, with_bias):
    x1, x2, w = leaf((n, in1), 1), leaf((n, in2), 2), leaf((out, in1, in2), 3)
    b = leaf((1, out), 4) if with_bias else None
    y = F.bilinear(x1, x2, w, b)
    expected = bilinear_loop(x1.numpy(), x2.numpy(), w.numpy(), None if b is None else b.numpy())
    assert y.shape == [n, out]
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12, atol=1e-12)
    inputs = [x1, x2, w] + ([b] if with_bias else [])
    grads = eager.grad([y], inputs, [eager.to_tensor(np.ones((n, out)))], allow_unused=True)
    for t, g in zip(inputs, grads):
        assert g is None or g.shape == t.shape
    if n and in1 and in2:
        assert gradcheck(lambda a, c, d, *e: F.bilinear(a, c, d, *e), tuple(inputs))


def test_bilinear_checks_bias_before_computing():
    x = eager.ones([2, 3], dtype="float64")
    with pytest.raises(ValueError, match=r"bilinear: argument 'bias' expected shape \[1, 4\]"):
        F.bilinear(x, x, eager.ones([4, 3, 3], dtype="float64"), eager.ones([3], dtype="float64"))


# -- label_smooth and gumbel_softmax of empty inputs -----------------------------------------

def test_label_smooth_with_no_classes_is_the_empty_label():
    label = leaf((3, 0))
    out = F.label_smooth(label, epsilon=0.3)
    assert out.shape == [3, 0]
    (grad,) = eager.grad([out], [label], [eager.to_tensor(np.zeros((3, 0)))])
    assert grad.shape == [3, 0]


def test_label_smooth_values_uniform_and_prior():
    rng = np.random.default_rng(5)
    lab, prior = rng.random((2, 3, 4)), rng.random((1, 4))
    out = F.label_smooth(eager.to_tensor(lab), epsilon=0.2).numpy()
    with_prior = F.label_smooth(eager.to_tensor(lab), eager.to_tensor(prior), epsilon=0.2).numpy()
    for idx in np.ndindex(2, 3, 4):
        assert out[idx] == pytest.approx(0.8 * lab[idx] + 0.2 / 4)
        assert with_prior[idx] == pytest.approx(0.8 * lab[idx] + 0.2 * prior[0, idx[-1]])
    assert gradcheck(lambda a, p: F.label_smooth(a, p, 0.2), (leaf((2, 4), 6), leaf((1, 4), 7)))


@pytest.mark.parametrize("shape, axis", [([1, 0], -1), ([0, 3], -1), ([3, 0], 0), ([0], 0)])
@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_of_empty_x(shape, axis, hard):
    x = eager.to_tensor(np.zeros(shape), stop_gradient=False)
    y = F.gumbel_softmax(x, hard=hard, axis=axis)
    assert y.shape == shape
    (grad,) = eager.grad([y], [x], [eager.to_tensor(np.zeros(shape))])
    assert grad.shape == shape


def test_gumbel_softmax_hard_is_one_hot_with_the_soft_gradient():
    eager.seed(11)
    x = leaf((3, 5), 8)
    y = F.gumbel_softmax(x, temperature=0.7, hard=True, axis=0)
    values = y.numpy()
    assert set(np.unique(values)) <= {0.0, 1.0}
    np.testing.assert_array_equal(values.sum(0), np.ones(5))
    (grad,) = eager.grad([y], [x], [leaf((3, 5), 9).detach()])
    g = grad.numpy()
    assert np.abs(g).sum() > 0
    np.testing.assert_allclose(g.sum(0), 0, atol=1e-12)  # a softmax's gradient sums to 0 along its axis


# -- unfold with an empty spatial size --------------------------------------------------------

def unfold_loop(x, k, s, p, d):
    """im2col of x [N, C, H, W], paddings p = [top, left, bottom, right]."""
    n, c, h, w = x.shape
    padded = np.zeros((n, c, h + p[0] + p[2], w + p[1] + p[3]))
    padded[:, :, p[0]:p[0] + h, p[1]:p[1] + w] = x
    oh = (h + p[0] + p[2] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + p[1] + p[3] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c * k[0] * k[1], oh * ow))
    for ci in range(c):
        for i in range(k[0]):
            for j in range(k[1]):
                row = (ci * k[0] + i) * k[1] + j
                for bi in range(oh):
                    for bj in range(ow):
                        out[:, row, bi * ow + bj] = padded[:, ci, bi * s[0] + i * d[0], bj * s[1] + j * d[1]]
    return out


@pytest.mark.parametrize("shape, k, s, p, d", [
    ((2, 2, 0, 4), [3, 2], [2, 2], [2, 2, 3, 0], [2, 1]),
    ((1, 3, 4, 0), [1, 1], [1, 1], [0, 1, 0, 1], [1, 1]),
    ((2, 1, 0, 0), [2, 2], [1, 1], [1, 1, 1, 1], [1, 1]),
])
def test_unfold_of_empty_spatial_size_inside_padding(shape, k, s, p, d):
    x = leaf(shape)
    y = F.unfold(x, k, s, p, d)
    expected = unfold_loop(x.numpy(), k, s, p, d)
    assert y.shape == list(expected.shape)
    np.testing.assert_array_equal(y.numpy(), expected)
    (grad,) = eager.grad([y], [x], [eager.to_tensor(np.ones(expected.shape))])
    assert grad.shape == list(shape)


def test_unfold_four_paddings_against_loop_and_finite_differences():
    x = leaf((1, 2, 4, 3), 10)
    k, s, p, d = [2, 2], [1, 2], [1, 0, 2, 1], [2, 1]
    np.testing.assert_allclose(F.unfold(x, k, s, p, d).numpy(), unfold_loop(x.numpy(), k, s, p, d))
    assert gradcheck(lambda a: F.unfold(a, k, s, p, d), (x,))


# -- cosine_similarity broadcasting along the axis ----------------------------------------

@pytest.mark.parametrize("s1, s2, axis", [([1], [3], 0), ([2, 1], [2, 3], -1), ([1, 3], [2, 3], 0),
                                          ([3, 1, 2], [3, 2, 2], 1)])
def test_cosine_similarity_broadcasts_before_the_norms(s1, s2, axis):
    x1, x2 = leaf(s1, 12), leaf(s2, 13)
    out = F.cosine_similarity(x1, x2, axis=axis, eps=1e-8).numpy()
    a, b = np.broadcast_arrays(x1.numpy(), x2.numpy())
    a, b = np.moveaxis(a, axis, -1), np.moveaxis(b, axis, -1)
    expected = np.zeros(a.shape[:-1])
    for idx in np.ndindex(*a.shape[:-1]):
        u, v = a[idx], b[idx]
        expected[idx] = sum(u * v) / np.sqrt(max(sum(u * u) * sum(v * v), 1e-16))
    np.testing.assert_allclose(out, expected, rtol=1e-12)
    assert np.all(np.abs(out) <= 1 + 1e-12)
    assert gradcheck(lambda p, q: F.cosine_similarity(p, q, axis=axis), (x1, x2))


# -- MultiHeadAttention with keys of another batch size ---------------------------------------

def test_multi_head_attention_key_of_other_batch_is_a_clear_error():
    mha = eager.nn.MultiHeadAttention(4, 2)
    q = eager.ones([2, 3, 4])
    kv = eager.ones([3, 3, 4])
    with pytest.raises(ValueError, match=r"MultiHeadAttention.*argument 'key' expected the batch size of query "
                                         r"\(2\), got 3"):
        mha(q, kv, kv)


def test_decoder_memory_of_other_batch_is_a_clear_error():
    layer = eager.nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0)
    with pytest.raises(ValueError, match=r"MultiHeadAttention.*batch size of query \(2\), got 3"):
        layer(eager.ones([2, 3, 4]), eager.ones([3, 5, 4]))


@pytest.mark.parametrize("cache_shape", [[3, 2, 1, 2], [2, 2, 3, 3], [2, 1, 2, 2]])
def test_multi_head_attention_cache_of_other_shape_is_a_clear_error(cache_shape):
    mha = eager.nn.MultiHeadAttention(4, 2)
    held = eager.ones(cache_shape)
    with pytest.raises(ValueError, match=r"MultiHeadAttention.*argument 'cache' expected k of shape \[2, 2, length, "
                                         r"2\]"):
        mha(eager.ones([2, 1, 4]), cache=mha.Cache(held, held))


def test_multi_head_attention_cache_steps_match_the_causal_mask():
    rng = np.random.default_rng(14)
    mha = eager.nn.MultiHeadAttention(4, 2)
    x = eager.to_tensor(rng.standard_normal((2, 3, 4)).astype("float32"))
    full = mha(x, attn_mask=eager.to_tensor(np.tril(np.ones((3, 3), bool)))).numpy()
    cache = mha.gen_cache(x, type=mha.Cache)
    steps = []
    for i in range(3):
        out, cache = mha(x[:, i:i + 1], cache=cache)
        steps.append(out.numpy())
    assert cache.k.shape == [2, 2, 3, 2]
    np.testing.assert_allclose(np.concatenate(steps, 1), full, rtol=1e-5, atol=1e-6)
