"""Regression cases from re-running Paddle's own sparse unit tests against eager.

Paddle's test/legacy_test/test_sparse_*_op.py files (utils, unary, elementwise,
matmul, addmm, softmax, reshape, slice, sum, transpose, ...) compare each sparse
op with the dense op on the same values, gradients included; they were re-told
with eager, and checked against Paddle 2.6.2 where its CPU kernels run. Found:

- ``out.backward()`` on a sparse ``out`` (no grad_tensor) died in full_like's
  missing sparse kernel; Paddle seeds ones at the stored entries
  (eager/autograd/seeds.py);
- ``dense.to_sparse_coo(n)`` passed back only the gradient at the stored entries;
  Paddle's backward is coo_to_dense of the whole incoming gradient (the COO form
  stands for x itself) (eager/sparse/creation.py);
- ``dense.to_sparse_csr()``: Paddle's result is a new leaf whose ``.grad`` Paddle
  code reads; eager's result kept no ``.grad`` (eager/sparse/creation.py);
- ``Tensor.__div__`` / ``__rdiv__`` were missing (Paddle's Tensor has them; its
  unary test passes ``paddle.Tensor.__div__``) (eager/tensor_api.py);
- complex sparse @ dense (matmul, addmm, mv) gave unconjugated gradients, unlike
  the dense matmul's (eager/sparse/matmul.py);
- COO softmax took only the last axis of an all-sparse COO; Paddle 2.6.2 takes
  any axis, of a hybrid COO too (a dense axis within each stored block); CSR off
  the last axis is NotImplementedError, as Paddle's (eager/sparse/nn/functional/activation.py).
- sparse.nn.BatchNorm refused data_format="NHWC", which Paddle 2.6.2 takes (eager/sparse/nn/norm.py).
- sparse_coo_tensor / sparse_csr_tensor refused dtype=False, which Paddle reads as None
  (test_sparse_conv_op passes it positionally) (eager/sparse/creation.py);
- sparse.nn.functional.attention refused key_padding_mask and attn_mask; they now
  leave out the stored entries where they are 0 (eager/sparse/nn/functional/transformer.py);
- the module path paddle.sparse.multiary (addmm) was missing, and paddle.sparse.binary's
  matmul / masked_matmul / mv and paddle.sparse.unary's transpose / sum / reshape / slice /
  coalesce / pca_lowrank were not there (eager/sparse/multiary.py, binary.py, unary.py).
"""
import numpy as np
import pytest

import eager
from eager import sparse as S

pytestmark = pytest.mark.usefixtures("device")


def _masked(rng, shape, density=0.5):
    return rng.random(shape) * (rng.random(shape) < density)


def test_backward_of_a_sparse_output_seeds_ones_at_its_stored_entries():
    rng = np.random.default_rng(0)
    d = _masked(rng, (3, 4))
    for x in (eager.to_tensor(d).to_sparse_coo(2), eager.to_tensor(d).to_sparse_csr()):
        x.stop_gradient = False
        S.sin(x).backward()
        np.testing.assert_allclose(x.grad.to_dense().numpy(), np.cos(d) * (d != 0), rtol=1e-12)


def test_dense_to_sparse_coo_passes_the_whole_gradient_back():
    x = eager.to_tensor([[0.0, 1.0, 0.0, 2.0], [0.0, 0.0, 3.0, 0.0], [4.0, 5.0, 0.0, 0.0]], stop_gradient=False)
    out = x.to_sparse_coo(2)
    grad = S.sparse_coo_tensor([[0, 1], [0, 1]], [2.0, 3.0], out.shape)  # entries off out's pattern
    out.backward(grad)
    # from Paddle 2.6.2 (test_sparse_utils_op): x.grad == grad.to_dense()
    np.testing.assert_array_equal(x.grad.numpy(), [[2.0, 0, 0, 0], [0, 3.0, 0, 0], [0, 0, 0, 0]])


def test_dense_to_sparse_coo_hybrid_gradient_and_the_values_path():
    x = eager.to_tensor([[0.0, 1.0, 0.0, 2.0], [0.0, 0.0, 0.0, 0.0], [4.0, 5.0, 0.0, 0.0]], stop_gradient=False)
    x.to_sparse_coo(1).backward(S.sparse_coo_tensor([[1]], [[1.0, 2.0, 3.0, 4.0]], [3, 4]))
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0, 0, 0], [1.0, 2.0, 3.0, 4.0], [0, 0, 0, 0]])
    d = np.array([[0.0, 1.0], [2.0, 0.0]])
    x = eager.to_tensor(d, stop_gradient=False)
    S.sin(x.to_sparse_coo(2)).values().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(d) * (d != 0), rtol=1e-12)


def test_to_sparse_csr_result_keeps_its_grad():
    a = np.array([[1.0, 0.0], [2.0, 3.0]])
    x = eager.to_tensor(a, stop_gradient=False)
    csr = x.to_sparse_csr()
    S.multiply(csr, eager.to_tensor(a).to_sparse_csr()).backward()
    # from Paddle 2.6.2: csr.grad holds a's values on csr's pattern
    np.testing.assert_array_equal(csr.grad.to_dense().numpy(), a)
    np.testing.assert_array_equal(x.grad.numpy(), a)  # eager also reaches x


def test_tensor_div_aliases():
    x = eager.to_tensor([2.0, 8.0])
    np.testing.assert_array_equal(eager.Tensor.__div__(x, 2).numpy(), [1.0, 4.0])
    np.testing.assert_array_equal(eager.Tensor.__rdiv__(x, 8).numpy(), [4.0, 1.0])


@pytest.mark.parametrize("kind", ["coo", "csr"])
def test_complex_sparse_matmul_gradients_are_conjugated(kind):
    rng = np.random.default_rng(1)
    mask = rng.random((3, 4)) < 0.6
    a = (rng.random((3, 4)) + 1j * rng.random((3, 4))) * mask
    b = rng.random((4, 2)) + 1j * rng.random((4, 2))
    g = rng.random((3, 2)) + 1j * rng.random((3, 2))
    x = eager.to_tensor(a).to_sparse_coo(2) if kind == "coo" else eager.to_tensor(a).to_sparse_csr()
    x.stop_gradient = False
    y = eager.to_tensor(b, stop_gradient=False)
    S.matmul(x, y).backward(eager.to_tensor(g))
    # Paddle's convention (its dense matmul's): dx = g @ conj(b)^T, dy = conj(a)^T @ g
    np.testing.assert_allclose(x.grad.to_dense().numpy(), (g @ b.conj().T) * mask, rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), a.conj().T @ g, rtol=1e-12)


def _stored_softmax(d, stored, axis):
    e = np.where(stored, np.exp(d), 0.0)
    total = e.sum(axis=axis, keepdims=True)
    return np.where(stored, e / np.where(total == 0, 1, total), 0.0)


@pytest.mark.parametrize("sparse_dim", [1, 2, 3])
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_coo_softmax_along_any_axis(sparse_dim, axis):
    rng = np.random.default_rng(2)
    d = _masked(rng, (3, 4, 5))
    x = eager.to_tensor(d).to_sparse_coo(sparse_dim)
    x.stop_gradient = False
    stored = np.zeros(d.shape, bool)
    stored[tuple(x.indices().numpy())] = True  # whole blocks of a hybrid COO
    out = S.nn.functional.softmax(x, axis)
    ref = _stored_softmax(d, stored, axis)
    np.testing.assert_allclose(out.to_dense().numpy(), ref, rtol=1e-12, atol=1e-15)
    out.backward(x.detach())
    dout = np.where(stored, d, 0.0)
    np.testing.assert_allclose(x.grad.to_dense().numpy(), (dout - (dout * ref).sum(axis, keepdims=True)) * ref,
                               rtol=1e-10, atol=1e-15)


def test_coo_softmax_matches_paddle_values():
    # from Paddle 2.6.2: softmax over axis 0 of a COO [[1, 0], [3, 2]] (stored entries only)
    x = eager.to_tensor([[1.0, 0.0], [3.0, 2.0]]).to_sparse_coo(2)
    out = S.nn.functional.softmax(x, 0).to_dense().numpy()
    e = np.exp([1.0, 3.0])
    np.testing.assert_allclose(out, [[e[0] / e.sum(), 0.0], [e[1] / e.sum(), 1.0]], rtol=1e-6)


def test_csr_softmax_off_the_last_axis_is_not_implemented():
    x = eager.to_tensor([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]).to_sparse_csr()
    with pytest.raises(NotImplementedError, match="sparse.nn.functional.softmax: a CSR x takes the last axis"):
        S.nn.functional.softmax(x, 0)
    with pytest.raises(ValueError, match="argument 'axis'"):
        S.nn.functional.softmax(x.to_sparse_coo(2), 2)


def test_sparse_batch_norm_takes_nhwc():
    # Paddle 2.6.2's sparse BatchNorm takes 'NHWC' as well as 'NDHWC' (channels last both)
    rng = np.random.default_rng(3)
    d = rng.uniform(-1, 1, (2, 4, 4, 3)).astype("float32")
    x = eager.to_tensor(d).to_sparse_coo(3)
    bn = S.nn.BatchNorm(3, data_format="NHWC")
    out = bn(x).to_dense().numpy()
    mean, var = d.reshape(-1, 3).mean(0), d.reshape(-1, 3).var(0)
    np.testing.assert_allclose(out, (d - mean) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-5)
    assert "data_format=NHWC" in repr(bn)
    with pytest.raises(ValueError, match="sparse.nn.BatchNorm: argument 'data_format' expected 'NDHWC' or 'NHWC'"):
        S.nn.BatchNorm(3, data_format="NCDHW")


def test_sparse_coo_tensor_reads_dtype_false_as_none():
    # Paddle's `if dtype:` skips a False dtype; its conv tests pass stop_gradient=False in dtype's place
    x = S.sparse_coo_tensor([[0, 1], [1, 0]], np.array([[1.0], [2.0]], "float32"), [2, 2, 1], False)
    assert x.dtype == eager.float32
    np.testing.assert_array_equal(x.to_dense().numpy()[..., 0], [[0.0, 1.0], [2.0, 0.0]])
    y = S.sparse_csr_tensor([0, 1, 2], [1, 0], [1.0, 2.0], [2, 2], False)
    assert y.dtype == eager.float32


def _masked_attention_reference(q, k, v, keep):
    """softmax over the kept keys of each row (a row with none gives zeros), in NumPy."""
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    scores = np.where(keep, scores, -np.inf)
    peak = np.max(scores, -1, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    e = np.where(keep, np.exp(scores - peak), 0.0)
    total = e.sum(-1, keepdims=True)
    return (e / np.where(total == 0, 1.0, total)) @ v


def test_sparse_attention_takes_key_padding_and_attn_masks():
    # test_sparse_fused_attention_op: entries where key_padding_mask[b, j] or attn_mask[i, j] is 0 drop out
    rng = np.random.default_rng(4)
    b, h, s, d = 2, 2, 6, 3
    q, k, v = (rng.random((b, h, s, d)) for _ in range(3))
    layout = rng.random((s, s)) < 0.7
    kp = (rng.random((b, s)) < 0.7).astype(float)
    am = (rng.random((s, s)) < 0.7).astype(float)
    am[0] = 0.0  # row 0 keeps no key: zeros
    mask = eager.to_tensor(np.broadcast_to(layout, (b * h, s, s)).astype(float)).to_sparse_csr()
    out = S.nn.functional.attention(eager.to_tensor(q), eager.to_tensor(k), eager.to_tensor(v), mask,
                                    eager.to_tensor(kp), eager.to_tensor(am))
    keep = layout[None, None] & (kp[:, None, None, :] != 0) & (am[None, None] != 0)
    np.testing.assert_allclose(out.numpy(), _masked_attention_reference(q, k, v, keep), rtol=1e-12, atol=1e-14)
    qs, ks, vs = (eager.to_tensor(a, stop_gradient=False) for a in (q, k, v))
    S.nn.functional.attention(qs, ks, vs, mask, eager.to_tensor(kp), eager.to_tensor(am)).sum().backward()
    assert all(np.isfinite(t.grad.numpy()).all() for t in (qs, ks, vs))
    np.testing.assert_array_equal(qs.grad.numpy()[:, :, 0], 0.0)  # the fully masked row
    step, g = 1e-6, qs.grad.numpy()
    for index in [(0, 0, 1, 0), (1, 1, 3, 2), (0, 1, 5, 1)]:
        bumped = [q.copy(), q.copy()]
        bumped[0][index] += step
        bumped[1][index] -= step
        f = [_masked_attention_reference(x, k, v, keep).sum() for x in bumped]
        np.testing.assert_allclose(g[index], (f[0] - f[1]) / (2 * step), rtol=1e-6)


def test_sparse_module_paths_hold_paddles_names():
    from eager.sparse import binary, multiary, unary
    assert multiary.addmm is S.addmm
    assert (binary.matmul, binary.masked_matmul, binary.mv) == (S.matmul, S.masked_matmul, S.mv)
    assert (unary.transpose, unary.sum, unary.reshape, unary.slice) == (S.transpose, S.sum, S.reshape, S.slice)
    assert (unary.coalesce, unary.pca_lowrank) == (S.coalesce, S.pca_lowrank)
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        unary.nope  # noqa: B018
