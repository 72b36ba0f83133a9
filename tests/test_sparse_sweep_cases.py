"""Regression cases from the eager.sparse differential sweep.

The sweep drew COO (hybrid included) and CSR tensors of random shapes (empty
and size-1 axes), dtypes and duplicate/unsorted coordinates, and compared every
op against the dense computation in NumPy/PyTorch (values, patterns, float64
gradients against finite differences), plus bad arguments of wrong type and
value. What it found, each pinned below:

- matmul / addmm / masked_matmul of batched operands with an empty N or K were
  refused: the flattening went through _F.reshape, which reads a 0 in the
  target shape as "keep that dimension" (eager/sparse/matmul.py);
- sparse.nn.functional.attention with zero heads, seq_len or head_dim, and
  conv3d with zero in/out channels, hit the same reshape (and attention divided
  by sqrt(0)); a conv weight with a kernel size of 0 died in NumPy's concatenate;
- sparse.sum(x, axis=[]) returned x unchanged (Paddle's sum_coo/sum_csr read an
  empty axis as every axis), and a str or float axis gave Python's own
  messages ("'<=' not supported", "not iterable");
- ``x ** 2`` and comparisons between two tensors (``x == y``, ``x < y``) with a
  sparse operand raised the dense kernel's UnimplementedError, while ``x == 1``
  and ``x // 2`` gave the TypeError docs/sparse.md promises for them.
"""
import numpy as np
import pytest

import eager
from eager import sparse as S

pytestmark = pytest.mark.usefixtures("device")


def _coo(array, sparse_dim=None):
    array = np.asarray(array)
    return eager.to_tensor(array).to_sparse_coo(sparse_dim or array.ndim)


def test_batched_sparse_dense_matmul_with_an_empty_n():
    a = np.array([[[0.0, 2.0], [3.0, 0.0]]])
    x = _coo(a)
    y = eager.to_tensor(np.zeros((1, 2, 0)), stop_gradient=False)
    out = S.matmul(x, y)
    assert out.shape == [1, 2, 0] and out.numpy().shape == (1, 2, 0)
    out.sum().backward()
    assert y.grad.shape == [1, 2, 0]
    added = S.addmm(eager.to_tensor(np.zeros((1, 2, 0))), x, eager.to_tensor(np.zeros((1, 2, 0))), 0.5, 2.0)
    assert added.shape == [1, 2, 0]


def test_batched_sparse_dense_matmul_with_an_empty_k_or_m():
    x = S.sparse_coo_tensor(np.zeros((3, 0), dtype=np.int64), np.zeros((0,)), [2, 0, 3])
    y = np.arange(12.0).reshape(2, 3, 2)
    out = S.matmul(x, eager.to_tensor(y))
    assert out.shape == [2, 0, 2]
    x = S.sparse_coo_tensor(np.zeros((3, 0), dtype=np.int64), np.zeros((0,)), [2, 3, 0])
    out = S.matmul(x, eager.to_tensor(np.zeros((2, 0, 2))))
    np.testing.assert_array_equal(out.numpy(), np.zeros((2, 3, 2)))


def test_batched_masked_matmul_with_an_empty_k():
    mask = _coo(np.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]] * 2))
    x = eager.to_tensor(np.zeros((2, 3, 0)), stop_gradient=False)
    y = eager.to_tensor(np.zeros((2, 0, 2)))
    out = S.masked_matmul(x, y, mask)
    assert out.shape == [2, 3, 2] and out.nnz() == mask.nnz()
    np.testing.assert_array_equal(out.values().numpy(), np.zeros(mask.nnz()))  # an empty sum
    S.sum(out).to_dense().sum().backward()
    assert x.grad.shape == [2, 3, 0]


def test_masked_matmul_batched_values_match_numpy():
    rng = np.random.default_rng(3)
    pattern = rng.random((2, 3, 4)) < 0.5
    mask = _coo(pattern.astype(np.float64))
    a, b = rng.standard_normal((2, 3, 5)), rng.standard_normal((2, 5, 4))
    out = S.masked_matmul(eager.to_tensor(a), eager.to_tensor(b), mask)
    np.testing.assert_allclose(out.to_dense().numpy(), np.where(pattern, a @ b, 0.0), rtol=1e-12)


@pytest.mark.parametrize("batch, heads, seq_len, head_dim", [(2, 1, 3, 0), (1, 2, 0, 2), (2, 0, 2, 2)])
def test_attention_with_an_empty_dimension(batch, heads, seq_len, head_dim):
    q = eager.zeros([batch, heads, seq_len, head_dim], dtype="float64")
    layout = eager.ones([batch * heads, seq_len, seq_len], dtype="float64").to_sparse_csr()
    out = S.nn.functional.attention(q, q, q, layout)
    assert out.shape == [batch, heads, seq_len, head_dim]
    assert out.numpy().shape == (batch, heads, seq_len, head_dim)


def test_attention_values_match_numpy():
    rng = np.random.default_rng(0)
    b, h, n, d = 2, 2, 3, 4
    q, k, v = (rng.standard_normal((b, h, n, d)) for _ in range(3))
    allowed = rng.random((b * h, n, n)) < 0.6
    allowed[:, :, 0] = True  # every row attends somewhere
    layout = eager.to_tensor(allowed.astype(np.float64)).to_sparse_csr()
    out = S.nn.functional.attention(eager.to_tensor(q), eager.to_tensor(k), eager.to_tensor(v), layout)
    scores = q.reshape(b * h, n, d) @ k.reshape(b * h, n, d).transpose(0, 2, 1) / np.sqrt(d)
    scores = np.where(allowed, scores, -np.inf)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    np.testing.assert_allclose(out.numpy(), (p @ v.reshape(b * h, n, d)).reshape(b, h, n, d), rtol=1e-10)


@pytest.mark.parametrize("in_channels, out_channels", [(0, 2), (1, 0)])
def test_conv3d_with_no_channels(in_channels, out_channels):
    x = S.sparse_coo_tensor([[0], [0], [1], [1]], np.ones((1, in_channels)), [1, 2, 2, 2, in_channels])
    out = S.nn.functional.conv3d(x, eager.ones([1, 1, 1, in_channels, out_channels], dtype="float64"))
    assert out.shape == [1, 2, 2, 2, out_channels]
    np.testing.assert_array_equal(out.to_dense().numpy(), np.zeros((1, 2, 2, 2, out_channels)))


@pytest.mark.parametrize("function, weight_shape", [
    (S.nn.functional.conv3d, [0, 3, 3, 1, 2]),
    (S.nn.functional.subm_conv3d, [3, 0, 3, 1, 2]),
])
def test_conv3d_refuses_a_kernel_size_of_zero_by_name(function, weight_shape):
    x = S.sparse_coo_tensor([[0], [1], [1], [1]], [[1.0]], [1, 3, 3, 3, 1])
    weight = eager.ones(weight_shape)
    with pytest.raises(ValueError, match=r"conv3d: weight must be \[kD, kH, kW, 1, out_channels\] \(kernel sizes "
                                         r">= 1\) .* got \[" + ", ".join(map(str, weight_shape))):
        function(x, weight)
    np.testing.assert_array_equal(weight.numpy(), np.ones(weight_shape))


def test_conv2d_refuses_a_kernel_size_of_zero_by_name():
    x = S.sparse_coo_tensor([[0], [1], [1]], [[1.0]], [1, 3, 3, 1])
    with pytest.raises(ValueError, match=r"conv2d: weight must be \[kH, kW, 1, out_channels\] \(kernel sizes >= 1\)"):
        S.nn.functional.conv2d(x, eager.ones([3, 0, 1, 2]))


@pytest.mark.parametrize("kind", ["coo", "csr"])
@pytest.mark.parametrize("axis", [[], ()])
def test_sum_of_an_empty_axis_list_sums_every_axis(kind, axis):
    a = np.array([[0.0, 1.5, 0.0], [-2.0, 0.0, 4.0]])
    x = _coo(a) if kind == "coo" else eager.to_tensor(a).to_sparse_csr()
    out = S.sum(x, axis)
    np.testing.assert_allclose(out.to_dense().numpy().ravel(), [a.sum()])
    np.testing.assert_allclose(S.sum(x, axis, keepdim=True).to_dense().numpy(), a.sum(keepdims=True))


def test_sum_empty_axis_gradient_reaches_every_stored_value():
    x = S.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], np.array([1.0, 2.0, 3.0]), [2, 3], stop_gradient=False)
    out = S.sum(x, [])
    assert out.shape == [1]
    (out.values() * 5.0).sum().backward()
    np.testing.assert_array_equal(x.grad.values().numpy(), [5.0, 5.0, 5.0])


@pytest.mark.parametrize("axis, message", [
    ("a", r"sparse.sum: argument 'axis' expected an int, a list of ints .* got str 'a'"),
    (1.0, r"sparse.sum: argument 'axis' expected an int, a list of ints .* got float 1.0"),
    ([0.5], r"sparse.sum: argument 'axis' expected a list of ints, got an element float 0.5"),
])
def test_sum_refuses_a_non_integer_axis_by_name(axis, message):
    x = _coo(np.array([[0.0, 1.0], [2.0, 0.0]]))
    with pytest.raises(TypeError, match=message):
        S.sum(x, axis)
    np.testing.assert_array_equal(x.to_dense().numpy(), [[0.0, 1.0], [2.0, 0.0]])


@pytest.mark.parametrize("expression, op", [
    (lambda x, y: x ** 2, "pow"),
    (lambda x, y: x ** 0.5, "pow"),
    (lambda x, y: x == y, "equal"),
    (lambda x, y: x != y, "not_equal"),
    (lambda x, y: x < y, "less_than"),
    (lambda x, y: x <= y, "less_equal"),
    (lambda x, y: x > y, "greater_than"),
    (lambda x, y: x >= y, "greater_equal"),
    (lambda x, y: y.to_dense() == x, "equal"),
])
def test_power_and_tensor_comparisons_with_a_sparse_operand_are_type_errors(expression, op):
    x = S.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
    y = S.sparse_coo_tensor([[0, 1], [1, 1]], [2.0, 5.0], [2, 2])
    with pytest.raises(TypeError, match=rf"^{op}: sparse tensors take the operators \+ - \* / @ and unary - only"):
        expression(x, y)
    np.testing.assert_array_equal(x.to_dense().numpy(), [[0.0, 2.0], [3.0, 0.0]])


def test_dense_power_and_comparisons_are_unchanged():
    a = eager.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    b = eager.to_tensor([[1.0, 0.0], [5.0, 4.0]])
    np.testing.assert_array_equal((a ** 2).numpy(), [[1.0, 4.0], [9.0, 16.0]])
    np.testing.assert_array_equal((a == b).numpy(), [[True, False], [False, True]])
    np.testing.assert_array_equal((a < b).numpy(), [[False, False], [True, False]])
    np.testing.assert_array_equal((eager.to_tensor([2, 3]) ** 2).numpy(), [4, 9])
