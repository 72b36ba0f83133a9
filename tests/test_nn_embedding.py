"""Embedding (functional and layer), its sparse SelectedRows gradient, and the
optimizers' row kernels (SGD, Adam/AdamW with lazy_mode) against dense NumPy
computations."""
from __future__ import annotations

import contextlib
import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck
from phi.core import SelectedRows

pytestmark = pytest.mark.usefixtures("device")


def value_checks(device):
    """Checks that read values (label/id ranges, probabilities) run on the CPU always
    and on the GPU only in anomaly mode (no device sync otherwise): turn it on there."""
    return eager.autograd.detect_anomaly() if device == "gpu" else contextlib.nullcontext()


def _ref_lookup(ids, table, padding_idx=None):
    out = table[ids.reshape(-1)].copy()
    if padding_idx is not None:
        out[ids.reshape(-1) == padding_idx] = 0
    return out.reshape(ids.shape + (table.shape[1],))


def _ref_grad(ids, table_shape, g, padding_idx=None):
    grad = np.zeros(table_shape)
    for i, row in zip(ids.reshape(-1), g.reshape(-1, table_shape[1])):
        if i != padding_idx:
            grad[i] += row
    return grad


@pytest.mark.parametrize("padding_idx, resolved", [(None, None), (2, 2), (-1, 5), (-6, 0)])
@pytest.mark.parametrize("sparse", [False, True])
def test_functional_values_and_grads(padding_idx, resolved, sparse):
    rng = np.random.default_rng(0)
    table = rng.standard_normal((6, 3))
    ids = np.array([[0, 2, 5], [2, 2, 1]], dtype=np.int64)
    g = rng.standard_normal((2, 3, 3))
    w = eager.to_tensor(table, stop_gradient=False)
    out = F.embedding(eager.to_tensor(ids), w, padding_idx=padding_idx, sparse=sparse)
    np.testing.assert_allclose(out.numpy(), _ref_lookup(ids, table, resolved))
    out.backward(eager.to_tensor(g))
    assert isinstance(w.grad.impl, SelectedRows) is sparse
    np.testing.assert_allclose(w.grad.numpy(), _ref_grad(ids, table.shape, g, resolved))
    # A second backward accumulates (rows side by side for the sparse kind).
    F.embedding(eager.to_tensor(ids), w, padding_idx=padding_idx, sparse=sparse).backward(eager.to_tensor(g))
    np.testing.assert_allclose(w.grad.numpy(), 2 * _ref_grad(ids, table.shape, g, resolved))


def test_int32_ids_and_torch_cross_check():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    table = rng.standard_normal((7, 4))
    ids = rng.integers(0, 7, (3, 5)).astype(np.int32)
    w = eager.to_tensor(table, stop_gradient=False)
    out = F.embedding(eager.to_tensor(ids), w, padding_idx=3)
    (out * out).sum().backward()
    zeroed = table.copy()
    zeroed[3] = 0  # torch keeps the padding row's values in the output; Paddle gives zeros
    tw = torch.tensor(zeroed, requires_grad=True)
    tout = torch.nn.functional.embedding(torch.tensor(ids.astype(np.int64)), tw, padding_idx=3)
    (tout * tout).sum().backward()
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy())
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy())


def test_gradcheck_float64():
    ids = eager.to_tensor(np.array([[1, 0], [3, 1]]))
    w = eager.to_tensor(np.random.default_rng(2).standard_normal((4, 3)), stop_gradient=False)
    assert gradcheck(lambda t: F.embedding(ids, t, padding_idx=0), [w])


def test_double_grad_through_dense_embedding():
    ids = eager.to_tensor(np.array([1, 1, 2]))
    w = eager.to_tensor(np.random.default_rng(3).standard_normal((3, 2)), stop_gradient=False)
    (gw,) = eager.grad([(F.embedding(ids, w) ** 3).sum()], [w], create_graph=True)
    (ggw,) = eager.grad([gw.sum()], [w])
    # d/dw sum(3 w[ids]^2 scattered) = 6 * w[i] * count(i)
    counts = np.array([0, 2, 1])[:, None]
    np.testing.assert_allclose(ggw.numpy(), 6 * w.numpy() * counts)


def test_sparse_gradient_holds_touched_rows_only():
    vocab, dim = 200_000, 64
    w = eager.to_tensor(np.zeros((vocab, dim), np.float32), stop_gradient=False)
    ids = eager.to_tensor(np.random.default_rng(4).integers(0, vocab, 2048))
    F.embedding(ids, w, sparse=True).sum().backward()
    grad = w.grad.impl
    assert isinstance(grad, SelectedRows)
    assert grad.dims == (vocab, dim)                  # stands for the whole table
    assert grad.value.dims == (2048, dim)             # but stores 2048 rows
    assert grad.nbytes < 2048 * dim * 4 + 2048 * 8 + 1 and grad.nbytes < w.impl.nbytes / 90
    merged = eager.Tensor(grad)  # merging keeps at most the 2048 distinct rows
    from phi import api as phi_api
    assert phi_api.merge_selected_rows(merged.impl).value.dims[0] <= 2048


def test_bad_inputs_raise_clear_errors(device):
    w = eager.to_tensor(np.ones((5, 2)), stop_gradient=False)
    with value_checks(device), pytest.raises(IndexError, match=r"embedding.*\[0, 5\).*got 5"):
        F.embedding(eager.to_tensor([1, 5]), w)
    with value_checks(device), pytest.raises(IndexError, match="got -1"):
        F.embedding(eager.to_tensor([-1]), w)
    with pytest.raises(TypeError, match="embedding: argument 'x' expected an int32 or int64"):
        F.embedding(eager.to_tensor([1.0]), w)
    with pytest.raises(ValueError, match="embedding: argument 'weight' expected a 2-D"):
        F.embedding(eager.to_tensor([1]), eager.ones([5]))
    with pytest.raises(ValueError, match=r"padding_idx' expected a value in \[-5, 5\)"):
        F.embedding(eager.to_tensor([1]), w, padding_idx=5)
    with pytest.raises(TypeError, match="sparse"):
        F.embedding(eager.to_tensor([1]), w, sparse=1)
    with pytest.raises(ValueError, match="Embedding: argument 'num_embeddings'"):
        eager.nn.Embedding(0, 3)
    np.testing.assert_array_equal(w.numpy(), np.ones((5, 2)))
    assert w.grad is None


def test_max_norm_renormalizes_looked_up_rows_in_place():
    table = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    w = eager.to_tensor(table, stop_gradient=False)
    out = F.embedding(eager.to_tensor([0, 1]), w, max_norm=1.0)
    want = table.copy()
    want[0] = table[0] / (5.0 + 1e-7)
    np.testing.assert_allclose(w.numpy(), want)   # row 2 not looked up: unchanged
    np.testing.assert_allclose(out.numpy(), want[:2])
    F.embedding(eager.to_tensor([2]), w, max_norm=2.0, norm_type=1.0)
    np.testing.assert_allclose(w.numpy()[2], table[2] * 2.0 / (14.0 + 1e-7))


def test_one_hot():
    out = F.one_hot(eager.to_tensor([[2, 0], [1, 1]]), 3)
    np.testing.assert_array_equal(out.numpy(), np.eye(3, dtype=np.float32)[[[2, 0], [1, 1]]])
    with pytest.raises(ValueError, match="one_hot: argument 'num_classes'"):
        F.one_hot(eager.to_tensor([1]), 0)


def test_layer():
    eager.seed(5)
    emb = eager.nn.Embedding(10, 4, padding_idx=-1, sparse=True)
    assert emb.weight.shape == [10, 4] and emb._padding_idx == 9
    np.testing.assert_array_equal(emb.weight.numpy()[9], 0)     # the padding row starts at zero
    limit = np.sqrt(6.0 / (10 + 4))                               # XavierUniform(fan_in=10, fan_out=4)
    assert np.abs(emb.weight.numpy()).max() <= limit
    out = emb(eager.to_tensor([[1, 9], [3, 3]]))
    assert out.shape == [2, 2, 4]
    out.sum().backward()
    assert emb.weight.grad.impl.value.dims == (4, 4)
    assert "sparse=True" in repr(emb)
    emb2 = eager.nn.Embedding(3, 2, weight_attr=eager.nn.initializer.Constant(0.5))
    np.testing.assert_array_equal(emb2.weight.numpy(), np.full((3, 2), 0.5, np.float32))


# -- optimizers on sparse gradients ------------------------------------------------

def _train(opt_factory, sparse, steps=3, dtype="float64"):
    table = np.linspace(-1, 1, 40).reshape(10, 4).astype(dtype)
    w = eager.nn.Parameter(table.copy())
    opt = opt_factory([w])
    for step in range(steps):
        ids = eager.to_tensor((np.array([[1, 2, 2], [5, 1, 7]]) + step) % 10)
        (F.embedding(ids, w, sparse=sparse) ** 2).sum().backward()
        opt.step()
        opt.clear_grad()
    return w.numpy()


def _ref_adam(lazy, steps=3, lr=0.1, b1=0.9, b2=0.999, eps=1e-8, coeff=0.0):
    w = np.linspace(-1, 1, 40).reshape(10, 4)
    m1, m2 = np.zeros_like(w), np.zeros_like(w)
    for t in range(1, steps + 1):
        ids = (np.array([1, 2, 2, 5, 1, 7]) + t - 1) % 10
        g = np.zeros_like(w)
        for i in ids:
            g[i] += 2 * w[i]
        rows = np.unique(ids) if lazy else np.arange(10)
        w[rows] *= 1 - lr * coeff
        m1[rows] = b1 * m1[rows] + (1 - b1) * g[rows]
        m2[rows] = b2 * m2[rows] + (1 - b2) * g[rows] ** 2
        mhat, vhat = m1[rows] / (1 - b1 ** t), m2[rows] / (1 - b2 ** t)
        w[rows] -= lr * mhat / (np.sqrt(vhat) + eps)
    return w


@pytest.mark.parametrize("name, factory", [
    ("sgd", lambda p: eager.optimizer.SGD(0.1, parameters=p)),
    ("adam", lambda p: eager.optimizer.Adam(0.1, parameters=p)),
    ("adamw", lambda p: eager.optimizer.AdamW(0.1, parameters=p, weight_decay=0.1)),
    ("momentum", lambda p: eager.optimizer.Momentum(0.1, parameters=p)),
    ("adam_clip", lambda p: eager.optimizer.Adam(0.1, parameters=p, grad_clip=eager.nn.ClipGradByGlobalNorm(1.0))),
    ("sgd_decay", lambda p: eager.optimizer.SGD(0.1, parameters=p, weight_decay=0.01)),
])
def test_sparse_gradient_matches_dense_update(name, factory):
    np.testing.assert_allclose(_train(factory, True), _train(factory, False), rtol=1e-12, atol=1e-12)


def test_lazy_adam_moves_only_touched_rows():
    got = _train(lambda p: eager.optimizer.Adam(0.1, parameters=p, lazy_mode=True), True)
    np.testing.assert_allclose(got, _ref_adam(lazy=True), rtol=1e-10, atol=1e-12)
    dense = _train(lambda p: eager.optimizer.Adam(0.1, parameters=p, lazy_mode=True), False)
    np.testing.assert_allclose(dense, _ref_adam(lazy=False), rtol=1e-10, atol=1e-12)
    # Rows never looked up stay exactly as they were.
    start = np.linspace(-1, 1, 40).reshape(10, 4)
    touched = {(i + t) % 10 for t in range(3) for i in (1, 2, 5, 7)}
    untouched = sorted(set(range(10)) - touched)
    np.testing.assert_array_equal(got[untouched], start[untouched])


def test_lazy_adamw_decays_only_touched_rows():
    got = _train(lambda p: eager.optimizer.AdamW(0.1, parameters=p, weight_decay=0.2, lazy_mode=True), True)
    np.testing.assert_allclose(got, _ref_adam(lazy=True, coeff=0.2), rtol=1e-10, atol=1e-12)


def test_sgd_sparse_float16_multi_precision():
    got = _train(lambda p: eager.optimizer.SGD(0.1, parameters=p, multi_precision=True), True, dtype="float16")
    want = _train(lambda p: eager.optimizer.SGD(0.1, parameters=p, multi_precision=True), False, dtype="float16")
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-3, atol=1e-3)


def test_tied_and_repeated_sparse_lookups_accumulate():
    rng = np.random.default_rng(6)
    table = rng.standard_normal((5, 3))
    # The table used twice sparsely: the two gradients meet in the engine and stay rows.
    w = eager.to_tensor(table, stop_gradient=False)
    (F.embedding(eager.to_tensor([1, 2]), w, sparse=True).sum()
     + F.embedding(eager.to_tensor([2, 4, 4]), w, sparse=True).sum()).backward()
    assert isinstance(w.grad.impl, SelectedRows) and w.grad.impl.value.dims[0] == 5
    np.testing.assert_allclose(w.grad.numpy().sum(axis=1), [0, 3, 6, 0, 6])
    # Tied weights (a sparse lookup and a dense matmul of one table): the sum is dense.
    for sparse in (True, False):
        w = eager.to_tensor(table, stop_gradient=False)
        h = F.embedding(eager.to_tensor([1, 2, 2]), w, sparse=sparse)
        (eager.matmul(h, w, False, True) ** 2).sum().backward()
        if sparse:
            got = w.grad.numpy()
        else:
            np.testing.assert_allclose(w.grad.numpy(), got)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64"])
@pytest.mark.parametrize("ids_kind", ["distinct", "uniform", "zipf", "one id", "runs past 8"])
def test_host_row_adds_give_add_at_bits(dtype, ids_kind):
    # The dense gradient's sorted, round-by-round and run-summed adds on the host
    # (rows >= 32 wide, funcs.scatter_add's row path) must give np.add.at's bits,
    # -0.0 blocks included.
    from phi.kernels.funcs import _add_rows as _add_rows_host

    rng = np.random.default_rng(7)
    n, height, width = 300, 50, 40
    ids = {"distinct": rng.permutation(height)[:40], "uniform": rng.integers(0, height, n),
           "zipf": np.minimum(rng.zipf(1.4, n), height - 1), "one id": np.full(n, 3),
           "runs past 8": np.repeat(np.arange(4), [9, 1, 30, 8])}[ids_kind]
    blocks = (rng.standard_normal((ids.size, width)) * rng.uniform(1, 1e3, (ids.size, 1))).astype(dtype)
    if dtype == "complex64":
        blocks = blocks + 1j * rng.standard_normal(blocks.shape).astype(np.float32)
    blocks[: ids.size // 3, :3] = -0.0
    want = np.zeros((height, width), blocks.dtype)
    np.add.at(want, ids, blocks)
    got = np.zeros_like(want)
    _add_rows_host(got, ids.astype(np.int64), blocks)
    assert got.tobytes() == want.tobytes()
    # Blocks of -0.0 only: add.at's 0 + -0.0 is 0.0, for a single id, a round and a run.
    for repeats in (1, 3, 12):
        zeros = np.zeros((2, width), blocks.dtype)
        _add_rows_host(zeros, np.ones(repeats, np.int64), np.full((repeats, width), -0.0, blocks.dtype))
        assert not np.signbit(zeros.real).any()


@pytest.mark.parametrize("case", ["negative ids", "mixed dtypes", "narrow rows", "wide rows"])
def test_scatter_add_gives_add_at_bits_on_every_host_path(case):
    # scatter_add takes the row path only where it is add.at to the bit: a negative id
    # (which would sort apart from its wrapped twin), values of another dtype and narrow
    # rows go to add.at itself; the result is add.at's either way.
    from phi.kernels.funcs import scatter_add

    rng = np.random.default_rng(3)
    ids = rng.integers(0, 20, 200)
    if case == "negative ids":
        ids = np.where(np.arange(ids.size) % 2 == 0, ids - 20, ids)  # each id in both spellings
    width = 8 if case == "narrow rows" else 40
    blocks = rng.standard_normal((ids.size, width)).astype(np.float64 if case == "mixed dtypes" else np.float32)
    want = np.zeros((20, width), np.float32)
    np.add.at(want, ids, blocks)
    got = np.zeros_like(want)
    scatter_add(np, got, ids, blocks)
    assert got.tobytes() == want.tobytes()


def test_dense_gradient_of_wide_rows_matches_loop(device):
    ids = np.array([[1, 4, 1, 1], [0, 4, 1, 2]] * 3)  # id 1 repeats 9 times
    table = np.random.default_rng(8).standard_normal((6, 36))
    w = eager.to_tensor(table, stop_gradient=False)
    out = F.embedding(eager.to_tensor(ids), w, padding_idx=2)
    g = np.random.default_rng(9).standard_normal(out.shape)
    (out * eager.to_tensor(g)).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), _ref_grad(ids, table.shape, g, padding_idx=2), rtol=1e-12, atol=1e-12)
