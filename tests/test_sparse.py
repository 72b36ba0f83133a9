"""eager.sparse: sparse COO/CSR tensors against dense NumPy references.

Round trips dense <-> COO <-> CSR, coalesce, the values of every op against the
dense computation written with NumPy (hand loops where the maths is per row),
gradients by finite differences in float64, sparse gradients of sparse leaves,
and errors by type and message. Runs on the CPU and the GPU stand-in.
"""
import doctest
import importlib

import numpy as np
import pytest

import eager
import phi.api.sparse
import phi.core.sparse_tensor
from eager.autograd import gradcheck, gradgradcheck
from eager.errors import AnomalyError
from phi.common.tensor_kind import TensorKind
from phi.core.errors import UnimplementedError

S = eager.sparse
pytestmark = pytest.mark.usefixtures("device")


def sparse_matrix(rng, shape, density=0.4):
    """A dense float64 array with about ``density`` of its entries nonzero."""
    values = rng.standard_normal(shape)
    return np.where(rng.random(shape) < density, values, 0.0)  # +0.0 where unstored (x / +0 is +-inf)


def T(array, stop_gradient=True):
    return eager.to_tensor(np.asarray(array), stop_gradient=stop_gradient)


# -- making and converting ------------------------------------------------------

def test_sparse_coo_tensor_holds_its_parts_and_reads_back_dense():
    x = S.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [1.0, 2.0, 3.0], [2, 3])
    assert x.is_sparse() and x.is_sparse_coo() and not x.is_sparse_csr() and not x.is_dense()
    assert x.to_dense().is_dense() and not x.to_dense().is_sparse()
    assert x.shape == [2, 3] and x.nnz() == 3 and x.dtype == eager.float32
    assert x.impl.kind is TensorKind.SPARSE_COO
    np.testing.assert_array_equal(x.indices().numpy(), [[0, 1, 1], [2, 0, 2]])
    np.testing.assert_array_equal(x.values().numpy(), [1, 2, 3])
    np.testing.assert_array_equal(x.to_dense().numpy(), [[0, 0, 1], [2, 0, 3]])
    np.testing.assert_array_equal(x.numpy(), [[0, 0, 1], [2, 0, 3]])
    inferred = S.sparse_coo_tensor([[0, 3], [1, 0]], [1.0, 2.0])
    assert inferred.shape == [4, 2]


def test_sparse_csr_tensor_2d_and_batched():
    x = S.sparse_csr_tensor([0, 1, 3], [2, 0, 2], [1.0, 2.0, 3.0], [2, 3], dtype="float64")
    assert x.is_sparse_csr() and x.dtype == eager.float64
    np.testing.assert_array_equal(x.to_dense().numpy(), [[0, 0, 1], [2, 0, 3]])
    batched = S.sparse_csr_tensor([0, 1, 1, 0, 0, 2], [1, 0, 1], [5.0, 6.0, 7.0], [2, 2, 2])
    np.testing.assert_array_equal(batched.to_dense().numpy(), [[[0, 5], [0, 0]], [[0, 0], [6, 7]]])


@pytest.mark.parametrize("shape, sparse_dim", [((4, 5), 2), ((3, 4, 5), 3), ((4, 3, 2), 1), ((4, 3, 2), 2)])
def test_round_trips_dense_coo_csr(rng, shape, sparse_dim):
    d = sparse_matrix(rng, shape)
    coo = T(d).to_sparse_coo(sparse_dim)
    np.testing.assert_array_equal(coo.to_dense().numpy(), d)
    # every stored block has a nonzero, every nonzero block is stored, in row-major order
    blocks = d.reshape(int(np.prod(shape[:sparse_dim])), -1)
    expected = np.flatnonzero((blocks != 0).any(axis=1))
    np.testing.assert_array_equal(np.ravel_multi_index(coo.indices().numpy(), shape[:sparse_dim]), expected)
    if sparse_dim == len(shape) and len(shape) in (2, 3):
        csr = coo.to_sparse_csr()
        np.testing.assert_array_equal(csr.to_dense().numpy(), d)
        np.testing.assert_array_equal(T(d).to_sparse_csr().to_dense().numpy(), d)
        rows = d.reshape(-1, shape[-1])
        counts = (rows != 0).sum(axis=1).reshape(-1, shape[-2])
        crows = np.concatenate([np.zeros((counts.shape[0], 1), int), counts.cumsum(axis=1)], axis=1)
        np.testing.assert_array_equal(csr.crows().numpy(), crows.ravel())
        np.testing.assert_array_equal(csr.cols().numpy(), np.nonzero(rows)[1])
        np.testing.assert_array_equal(csr.to_sparse_coo(len(shape)).to_dense().numpy(), d)


def test_coalesce_sums_repeated_coordinates_in_row_major_order():
    x = S.sparse_coo_tensor([[1, 0, 1, 1], [2, 1, 2, 0]], [1.0, 2.0, 3.0, 4.0], [2, 3])
    y = S.coalesce(x)
    np.testing.assert_array_equal(y.indices().numpy(), [[0, 1, 1], [1, 0, 2]])
    np.testing.assert_array_equal(y.values().numpy(), [2, 4, 4])
    np.testing.assert_array_equal(y.to_dense().numpy(), x.to_dense().numpy())
    assert y.impl.coalesced and x.coalesce().nnz() == 3


# -- errors -----------------------------------------------------------------------

@pytest.mark.parametrize("indices, values, shape, error, message", [
    ([[0, 5]], [1.0, 2.0], [3], ValueError, r"row 0 of 'indices' must lie in \[0, 3\)"),
    ([[0, -1]], [1.0, 2.0], [3], ValueError, r"row 0 of 'indices' must lie in \[0, 3\)"),
    ([0, 1], [1.0, 2.0], [3], ValueError, r"'indices' expected a 2-d \[sparse_dim, nnz\]"),
    ([[0, 1]], [1.0, 2.0, 3.0], [3], ValueError, "'values' must have 2 rows"),
    ([[0, 1]], [1.0, 2.0], [3, 3], ValueError, "must add up to the 2 dimensions"),
    ([[0.5, 1]], [1.0, 2.0], [3], TypeError, "'indices' expected integers"),
    ([[0, 1], [1]], [1.0, 2.0], [2, 2], ValueError, "'indices' expected a rectangular array of integers"),
    ([[0, 1]], [1.0, 2.0], [2, "a"], TypeError, "argument 'shape' expected a list of ints"),
])
def test_bad_coo_parts_are_refused_by_name(indices, values, shape, error, message):
    with pytest.raises(error, match=message) as info:
        S.sparse_coo_tensor(indices, values, shape)
    assert str(info.value).startswith("sparse.sparse_coo_tensor: ")


@pytest.mark.parametrize("crows, cols, shape, message", [
    ([0, 1, 3], [2, 0, 3], [2, 3], r"'cols' must lie in \[0, 3\)"),
    ([0, 2, 1], [2, 0, 1], [2, 3], "must start at 0 and never decrease"),
    ([0, 1], [2], [2, 3], "must hold 1 x \\(2 \\+ 1\\) = 3 offsets"),
    ([0, 1, 3], [2, 0, 1], [6], "2-d or 3-d"),
])
def test_bad_csr_parts_are_refused_by_name(crows, cols, shape, message):
    with pytest.raises(ValueError, match=message):
        S.sparse_csr_tensor(crows, cols, [1.0] * len(cols), shape)


def test_kind_and_shape_mismatches_are_refused():
    coo = T([[1.0, 0.0], [0.0, 2.0]]).to_sparse_coo(2)
    csr = coo.to_sparse_csr()
    dense = T([[1.0, 0.0], [0.0, 2.0]])
    with pytest.raises(TypeError, match="sparse.add: x and y must be of one sparse kind"):
        S.add(coo, csr)
    with pytest.raises(ValueError, match="sparse.add: a dense y is added to every stored value block of a hybrid COO"):
        S.add(coo, dense)  # Paddle's coo + dense is a bias over a dense last dimension, which coo has not
    with pytest.raises(TypeError, match="sparse.subtract: argument 'y' expected a sparse COO or sparse CSR tensor, "
                                        "got a dense tensor"):
        S.subtract(coo, dense)
    with pytest.raises(ValueError, match="sparse.multiply: x and y must have one shape"):
        S.multiply(coo, T(np.eye(3)).to_sparse_coo(2))
    with pytest.raises(TypeError, match="sparse.sin: argument 'x' expected a sparse COO or sparse CSR tensor"):
        S.sin(dense)
    with pytest.raises(TypeError, match="sparse.matmul: argument 'x' expected a sparse"):
        S.matmul(dense, coo)
    with pytest.raises(ValueError, match="sparse.matmul: x's last dimension must equal y's second to last"):
        S.matmul(coo, T(np.ones((3, 2))))
    with pytest.raises(TypeError, match="sparse.matmul: a sparse y must be of x's kind"):
        S.matmul(coo, csr)
    with pytest.raises(TypeError, match="indices: argument 'x' expected a sparse COO tensor, got a sparse CSR"):
        csr.indices()
    with pytest.raises(TypeError, match="crows: argument 'x' expected a sparse CSR tensor"):
        coo.crows()
    with pytest.raises(UnimplementedError, match="no kernel for a sparse_coo input"):
        eager.exp(coo)


# -- values against the dense computation ---------------------------------------

UNARY = {"abs": np.abs, "sin": np.sin, "tan": np.tan, "asin": np.arcsin, "atan": np.arctan, "sinh": np.sinh,
         "tanh": np.tanh, "asinh": np.arcsinh, "atanh": np.arctanh, "square": np.square, "log1p": np.log1p,
         "expm1": np.expm1, "neg": np.negative, "deg2rad": np.deg2rad, "rad2deg": np.rad2deg}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("kind", ["coo", "csr"])
def test_unary_functions_act_on_stored_values(rng, name, kind):
    d = sparse_matrix(rng, (4, 5)) * 0.5
    x = T(d).to_sparse_coo(2) if kind == "coo" else T(d).to_sparse_csr()
    out = getattr(S, name)(x)
    assert out.impl.kind is x.impl.kind and out.nnz() == x.nnz()
    np.testing.assert_allclose(out.to_dense().numpy(), UNARY[name](d), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name, numpy_function", [("deg2rad", np.deg2rad), ("rad2deg", np.rad2deg)])
def test_angle_conversions_of_integer_values_give_float32(name, numpy_function):
    for dtype in ("int32", "int64"):
        x = eager.to_tensor(np.array([[-180, 0, 90], [0, 45, 0]]), dtype=dtype).to_sparse_coo(2)
        out = getattr(S, name)(x)
        assert out.dtype == eager.float32 and out.nnz() == 3
        np.testing.assert_allclose(out.to_dense().numpy(), numpy_function(np.array([[-180, 0, 90], [0, 45, 0]])),
                                   rtol=1e-6)
    with pytest.raises(TypeError, match=f"sparse.{name}: argument 'x' expected a floating-point or integer sparse "
                                        "tensor, got paddle.bool"):
        getattr(S, name)(T(np.array([True, False])).to_sparse_coo(1))


def test_sqrt_pow_cast_isnan_and_activations(rng):
    d = np.abs(sparse_matrix(rng, (3, 4)))
    x = T(d).to_sparse_coo(2)
    np.testing.assert_allclose(S.sqrt(x).to_dense().numpy(), np.sqrt(d))
    np.testing.assert_allclose(S.pow(x, 3).to_dense().numpy(), d ** 3)
    cast = S.cast(x, "int32", "float32")
    assert cast.dtype == eager.float32 and cast.indices().dtype == eager.int64
    nan = S.sparse_coo_tensor([[0, 1]], [np.nan, 1.0], [3])
    np.testing.assert_array_equal(S.isnan(nan).to_dense().numpy(), [True, False, False])
    signed = T(d - 0.3 * (d != 0) + 7.0 * (d > 1.2)).to_sparse_csr()
    dense = signed.to_dense().numpy()
    F = S.nn.functional
    np.testing.assert_allclose(F.relu(signed).to_dense().numpy(), np.maximum(dense, 0))
    np.testing.assert_allclose(F.relu6(signed).to_dense().numpy(), np.clip(dense, 0, 6))
    np.testing.assert_allclose(F.leaky_relu(signed, 0.2).to_dense().numpy(), np.where(dense > 0, dense, 0.2 * dense))
    np.testing.assert_allclose(S.nn.LeakyReLU(0.2)(signed).to_dense().numpy(), np.where(dense > 0, dense, 0.2 * dense))
    np.testing.assert_allclose(S.nn.ReLU6()(signed).to_dense().numpy(), np.clip(dense, 0, 6))


@pytest.mark.parametrize("kind", ["coo", "csr"])
def test_binary_ops_over_the_union_of_patterns(rng, kind):
    a, b = sparse_matrix(rng, (4, 5)), sparse_matrix(rng, (4, 5))
    convert = (lambda d: T(d).to_sparse_coo(2)) if kind == "coo" else (lambda d: T(d).to_sparse_csr())
    x, y = convert(a), convert(b)
    union = (a != 0) | (b != 0)
    np.testing.assert_allclose(S.add(x, y).to_dense().numpy(), a + b)
    np.testing.assert_allclose(S.subtract(x, y).to_dense().numpy(), a - b)
    np.testing.assert_allclose(S.multiply(x, y).to_dense().numpy(), a * b)
    quotient = S.divide(x, y)
    assert quotient.nnz() == a.size and quotient.impl.kind is x.impl.kind  # every position, as Paddle's
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = a / b  # x / 0 is inf where only x stores, 0 / 0 nan where neither does
    np.testing.assert_allclose(quotient.to_dense().numpy(), expected)
    assert np.isnan(quotient.to_dense().numpy()[~union]).all()
    assert S.is_same_shape(x, y) and not S.is_same_shape(x, T(np.ones((5, 4))))


def test_divide_of_hybrid_coo_stores_every_block_and_differentiates(rng):
    a, b = rng.standard_normal((3, 2)), rng.standard_normal((3, 2)) + 3.0
    a[1], b[1] = 0.0, 0.0  # a row stored by neither: 0 / 0
    a[2, 0] = 0.0
    x, y = T(a).to_sparse_coo(1), T(b).to_sparse_coo(1)
    out = S.divide(x, y)
    assert x.nnz() == y.nnz() == 2 and out.nnz() == 3 and out.impl.sparse_dim == 1
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_allclose(out.to_dense().numpy(), a / b)
    ix, vx = x.indices(), T(x.values().numpy(), stop_gradient=False)
    iy, vy = y.indices(), T(y.values().numpy(), stop_gradient=False)
    rows = T(np.array([0, 2]))

    def stored_quotient(vx, vy):
        q = S.divide(S.sparse_coo_tensor(ix, vx, [3, 2], stop_gradient=False),
                     S.sparse_coo_tensor(iy, vy, [3, 2], stop_gradient=False))
        return eager.index_select(q.values(), rows)
    assert gradcheck(stored_quotient, (vx, vy))


@pytest.mark.parametrize("kind", ["coo", "csr"])
@pytest.mark.parametrize("batched", [False, True])
def test_matmul_sparse_dense_and_sparse_sparse(rng, kind, batched):
    shape = (2, 4, 3) if batched else (4, 3)
    a = sparse_matrix(rng, shape)
    b = rng.standard_normal(shape[:-2] + (3, 5))
    convert = (lambda d: T(d).to_sparse_coo(d.ndim)) if kind == "coo" else (lambda d: T(d).to_sparse_csr())
    x = convert(a)
    np.testing.assert_allclose(S.matmul(x, T(b)).numpy(), a @ b, atol=1e-12)
    c = sparse_matrix(rng, shape[:-2] + (3, 2))
    product = S.matmul(x, convert(c))
    assert product.impl.kind is x.impl.kind
    np.testing.assert_allclose(product.to_dense().numpy(), a @ c, atol=1e-12)
    structure = ((a != 0).astype(float) @ (c != 0).astype(float)) != 0
    assert product.nnz() == structure.sum()


def test_masked_matmul_mv_and_addmm(rng):
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((3, 5))
    mask_d = sparse_matrix(rng, (4, 5))
    for mask in (T(mask_d).to_sparse_csr(), T(mask_d).to_sparse_coo(2)):
        out = S.masked_matmul(T(a), T(b), mask)
        np.testing.assert_allclose(out.to_dense().numpy(), np.where(mask_d != 0, a @ b, 0), atol=1e-12)
    batched_mask = sparse_matrix(rng, (2, 4, 5))
    a3, b3 = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 3, 5))
    out = S.masked_matmul(T(a3), T(b3), T(batched_mask).to_sparse_csr())
    np.testing.assert_allclose(out.to_dense().numpy(), np.where(batched_mask != 0, a3 @ b3, 0), atol=1e-12)
    x_d, v = sparse_matrix(rng, (4, 3)), rng.standard_normal(3)
    np.testing.assert_allclose(S.mv(T(x_d).to_sparse_csr(), T(v)).numpy(), x_d @ v, atol=1e-12)
    inp = rng.standard_normal((4, 5))
    out = S.addmm(T(inp), T(x_d).to_sparse_coo(2), T(b), beta=0.5, alpha=-2.0)
    np.testing.assert_allclose(out.numpy(), 0.5 * inp - 2.0 * (x_d @ b), atol=1e-12)


def test_sum_transpose_reshape_slice(rng):
    d = sparse_matrix(rng, (3, 4, 5), 0.3)
    x = T(d).to_sparse_coo(3)
    np.testing.assert_allclose(S.sum(x).to_dense().numpy(), [d.sum()])
    for axis in (0, 1, -1):
        np.testing.assert_allclose(S.sum(x, axis).to_dense().numpy(), d.sum(axis), atol=1e-12)
        np.testing.assert_allclose(S.sum(x, axis, keepdim=True).to_dense().numpy(), d.sum(axis, keepdims=True),
                                   atol=1e-12)
    hybrid = T(d).to_sparse_coo(1)
    np.testing.assert_allclose(S.sum(hybrid, 2).to_dense().numpy(), d.sum(2), atol=1e-12)
    np.testing.assert_allclose(S.sum(hybrid, 0).to_dense().numpy(), d.sum(0, keepdims=True), atol=1e-12)
    ints = S.sparse_coo_tensor([[0, 1]], np.array([1, 2], np.int32), [2])
    assert S.sum(ints).dtype == eager.int64
    for perm in ([1, 0, 2], [2, 0, 1], [0, 2, 1]):
        out = S.transpose(x, perm)
        np.testing.assert_array_equal(out.to_dense().numpy(), d.transpose(perm))
        assert out.impl.coalesced
    np.testing.assert_array_equal(S.transpose(T(d[0]).to_sparse_csr(), [1, 0]).to_dense().numpy(), d[0].T)
    np.testing.assert_array_equal(S.reshape(x, [6, -1]).to_dense().numpy(), d.reshape(6, -1))
    np.testing.assert_array_equal(S.reshape(T(d[0]).to_sparse_csr(), [5, 4]).to_dense().numpy(),
                                  d[0].reshape(5, 4))
    np.testing.assert_array_equal(S.slice(x, [0, 2], [1, -3], [3, 10]).to_dense().numpy(), d[1:3, :, -3:])
    np.testing.assert_array_equal(S.slice(hybrid, [0, 2], [1, 1], [2, 4]).to_dense().numpy(), d[1:2, :, 1:4])
    with pytest.raises(ValueError, match="sparse.transpose: argument 'perm' expected a permutation of range"):
        S.transpose(x, [0, 0, 1])
    with pytest.raises(ValueError, match="sparse.reshape: shape \\[7, 7\\] does not hold the 60 elements"):
        S.reshape(x, [7, 7])


def test_transpose_moves_dense_dimensions_of_a_hybrid_coo_to_the_front(rng):
    d = rng.standard_normal((3, 4, 2, 5)) * (rng.random((3, 4, 1, 1)) < 0.5)
    d[0, 0] = 1.0  # at least one stored block
    x = T(d).to_sparse_coo(2)
    stored_rows = np.abs(d).sum((2, 3)) != 0  # x's stored blocks, [3, 4]
    for perm in ([2, 0, 1, 3], [3, 2, 1, 0], [0, 3, 1, 2], [1, 3, 0, 2]):
        out = S.transpose(x, perm)
        assert out.impl.sparse_dim == 2 and out.impl.coalesced and out.shape == [d.shape[a] for a in perm]
        np.testing.assert_array_equal(out.to_dense().numpy(), d.transpose(perm))
        # a stored block of the result: some stored block of x reaches it
        reached = np.broadcast_to(stored_rows[:, :, None, None], d.shape).transpose(perm).any(axis=(2, 3))
        np.testing.assert_array_equal(np.ravel_multi_index(out.indices().numpy(), out.shape[:2]),
                                      np.flatnonzero(reached))
    small = T(d[:2, :3, :, :2]).to_sparse_coo(2)
    idx, v = small.indices(), T(small.values().numpy(), stop_gradient=False)
    assert gradcheck(lambda v: S.transpose(S.sparse_coo_tensor(idx, v, small.shape, stop_gradient=False),
                                           [2, 0, 3, 1]).values(), (v,))


def softmax_rows(d):
    """Row-wise softmax over the nonzero entries, a hand loop."""
    out = np.zeros_like(d)
    for index in np.ndindex(d.shape[:-1]):
        row = d[index]
        stored = row != 0
        if stored.any():
            e = np.exp(row[stored] - row[stored].max())
            out[index][stored] = e / e.sum()
    return out


@pytest.mark.parametrize("kind", ["coo", "csr"])
@pytest.mark.parametrize("shape", [(4, 6), (2, 3, 5)])
def test_softmax_normalizes_each_rows_stored_values(rng, kind, shape):
    d = sparse_matrix(rng, shape, 0.5) * 30.0  # large values: the per-row shift matters
    x = T(d).to_sparse_coo(len(shape)) if kind == "coo" else T(d).to_sparse_csr()
    out = S.nn.Softmax()(x)
    assert out.impl.kind is x.impl.kind
    np.testing.assert_allclose(out.to_dense().numpy(), softmax_rows(d), rtol=1e-12, atol=1e-14)
    if kind == "csr":  # Paddle's CSR kernel takes axis -1 only (NotImplementedError there too)
        with pytest.raises(NotImplementedError, match="last axis"):
            S.nn.functional.softmax(x, axis=0)


# -- gradients ----------------------------------------------------------------------

def coo_of(rng, shape, sparse_dim=None):
    d = sparse_matrix(rng, shape, 0.5)
    x = T(d).to_sparse_coo(sparse_dim or len(shape))
    return x.indices(), T(x.values().numpy(), stop_gradient=False), list(shape)


def test_gradcheck_matmul_in_values_and_dense_operand(rng):
    idx, v, shape = coo_of(rng, (4, 3))
    w = T(rng.standard_normal((3, 2)), stop_gradient=False)
    assert gradcheck(lambda v, w: S.matmul(S.sparse_coo_tensor(idx, v, shape, stop_gradient=False), w), (v, w))
    assert gradcheck(lambda v, w: S.matmul(S.sparse_coo_tensor(idx, v, shape, stop_gradient=False).to_sparse_csr(),
                                           w), (v, w))
    assert gradcheck(lambda v: S.mv(S.sparse_coo_tensor(idx, v, shape, stop_gradient=False), T(np.ones(3))), (v,))
    assert gradgradcheck(lambda v, w: S.matmul(S.sparse_coo_tensor(idx, v, shape, stop_gradient=False), w), (v, w))
    idx3, v3, shape3 = coo_of(rng, (2, 3, 4))
    w3 = T(rng.standard_normal((2, 4, 2)), stop_gradient=False)
    assert gradcheck(lambda v, w: S.matmul(S.sparse_coo_tensor(idx3, v, shape3, stop_gradient=False).to_sparse_csr(),
                                           w), (v3, w3))


def test_gradcheck_masked_matmul_softmax_and_sparse_sparse(rng):
    a = T(rng.standard_normal((4, 3)), stop_gradient=False)
    b = T(rng.standard_normal((3, 5)), stop_gradient=False)
    mask = T(sparse_matrix(rng, (4, 5), 0.5)).to_sparse_csr()
    assert gradcheck(lambda a, b: S.masked_matmul(a, b, mask).values(), (a, b))
    idx, v, shape = coo_of(rng, (3, 5))
    assert gradcheck(lambda v: S.nn.functional.softmax(
        S.sparse_coo_tensor(idx, v, shape, stop_gradient=False).to_sparse_csr()).to_dense(), (v,))
    idx2, v2, shape2 = coo_of(rng, (5, 2))
    assert gradcheck(lambda v, v2: S.matmul(S.sparse_coo_tensor(idx, v, shape, stop_gradient=False),
                                            S.sparse_coo_tensor(idx2, v2, shape2, stop_gradient=False)).to_dense(),
                     (v, v2))


def test_gradcheck_union_ops_coalesce_and_shape_functions(rng):
    idx, v, shape = coo_of(rng, (3, 4))
    idx2, v2, _ = coo_of(rng, (3, 4))

    def mix(v, v2):
        x = S.sparse_coo_tensor(idx, v, shape, stop_gradient=False)
        y = S.sparse_coo_tensor(idx2, v2, shape, stop_gradient=False)
        z = S.multiply(S.add(x, y), S.tanh(x))
        return S.sum(S.slice(S.reshape(S.transpose(z, [1, 0]), [2, 6]), [1], [1], [5]), axis=1).to_dense()

    assert gradcheck(mix, (v, v2))
    repeated = eager.to_tensor(np.array([[0, 2, 0], [1, 1, 1]]))
    w = T(rng.standard_normal(3), stop_gradient=False)
    assert gradcheck(lambda w: S.coalesce(S.sparse_coo_tensor(repeated, w, [3, 2], stop_gradient=False)).values(),
                     (w,))


def test_a_sparse_leaf_gets_a_sparse_gradient_of_its_pattern_that_accumulates(rng):
    d = sparse_matrix(rng, (4, 3))
    for convert in (lambda t: t.to_sparse_coo(2), lambda t: t.to_sparse_csr()):
        x = convert(T(d))
        x.stop_gradient = False
        w = rng.standard_normal((3, 2))
        S.matmul(x, T(w)).sum().backward()
        grad = x.grad
        assert grad.impl.kind is x.impl.kind and grad.nnz() == x.nnz()
        expected = np.where(d != 0, np.ones((4, 2)) @ w.T, 0)
        np.testing.assert_allclose(grad.to_dense().numpy(), expected)
        S.sin(x).values().sum().backward()  # a second path adds into the same pattern
        np.testing.assert_allclose(x.grad.to_dense().numpy(), expected + np.where(d != 0, np.cos(d), 0))
        assert x.grad.nnz() == x.nnz()
        x.clear_grad()
        assert x.grad is None


def test_a_dense_tensor_made_sparse_gets_its_gradient_on_the_pattern(rng):
    d = sparse_matrix(rng, (3, 4))
    w = T(d, stop_gradient=False)
    S.square(w.to_sparse_coo(2)).to_dense().sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * d)


def test_training_a_dense_weight_through_sparse_input(rng):
    """A tiny regression with a sparse design matrix: the loss goes down."""
    features = T(sparse_matrix(rng, (16, 8), 0.3)).to_sparse_csr()
    target = T(rng.standard_normal((16, 1)))
    weight = eager.create_parameter([8, 1], "float64")
    opt = eager.optimizer.SGD(learning_rate=0.1, parameters=[weight])
    losses = []
    for _ in range(20):
        loss = ((S.matmul(features, weight) - target) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.9 * losses[0]


def test_docstring_examples_run(device):
    if device == "gpu":
        pytest.skip("the examples print CPU arrays")
    attempted = 0
    names = ["eager.sparse", "eager.sparse._core", "eager.sparse.creation", "eager.sparse.unary", "eager.sparse.binary",
             "eager.sparse.matmul", "eager.sparse.manipulation", "eager.sparse.tensor_methods", "eager.sparse.operators",
             "eager.sparse.nn",
             "eager.sparse.nn.functional", "eager.sparse.nn.functional.conv", "eager.sparse.nn.conv",
             "eager.sparse.nn.functional.pooling", "eager.sparse.nn.pooling", "eager.sparse.nn.norm",
             "eager.sparse.nn.functional.activation", "eager.sparse.nn.functional.transformer"]
    for module in [importlib.import_module(n) for n in names] + [phi.api.sparse, phi.core.sparse_tensor]:
        result = doctest.testmod(module, extraglobs={"eager": eager, "np": np},
                                 optionflags=doctest.NORMALIZE_WHITESPACE, report=False)
        assert result.failed == 0, (module.__name__, result)
        attempted += result.attempted
    assert attempted >= 30


def test_hooks_anomaly_mode_grad_and_double_grad_see_sparse_gradients():
    x = T(np.array([[0.0, 1.5], [2.0, 0.0]])).to_sparse_coo(2)
    x.stop_gradient = False
    seen = []
    x.register_hook(lambda g: seen.append((g.impl.kind, g.nnz())))
    ones = T(np.ones((2, 2)))
    with eager.autograd.detect_anomaly():
        S.matmul(x, ones).sum().backward()
    assert seen == [(TensorKind.SPARSE_COO, 2)]
    np.testing.assert_array_equal(x.grad.to_dense().numpy(), [[0, 2], [2, 0]])
    grad, = eager.grad([S.matmul(x, ones).sum()], [x])
    assert grad.is_sparse_coo()
    np.testing.assert_array_equal(grad.to_dense().numpy(), [[0, 2], [2, 0]])
    v = T(np.array([1.0, 2.0]), stop_gradient=False)
    out = S.matmul(S.pow(S.sparse_coo_tensor([[0, 1], [1, 0]], v, [2, 2], stop_gradient=False), 3),
                   T(np.ones((2, 1)))).sum()
    first, = eager.grad([out], [v], create_graph=True)
    second, = eager.grad([first.sum()], [v])
    np.testing.assert_allclose(first.numpy(), 3 * v.numpy() ** 2)
    np.testing.assert_allclose(second.numpy(), 6 * v.numpy())
    bad = S.sparse_coo_tensor([[0]], [np.nan], [2], stop_gradient=False)
    with pytest.raises(AnomalyError, match="NaN"):
        with eager.autograd.detect_anomaly():
            S.sin(bad).to_dense().sum().backward()


def test_a_sparse_tensor_moves_between_devices_as_one_of_its_kind(device):
    d = np.array([[0.0, 1.5], [2.0, 0.0]])
    for x in (T(d).to_sparse_coo(2), T(d).to_sparse_csr()):
        x.stop_gradient = False
        host = x.cpu()
        assert host.impl.kind is x.impl.kind and host.place == eager.CPUPlace()
        assert host.stop_gradient is False and (host is x) == (device == "cpu")
        np.testing.assert_array_equal(host.to_dense().numpy(), d)
        if device == "gpu":
            back = host.cuda()
            assert back.impl.kind is x.impl.kind and back.place == x.place
            np.testing.assert_array_equal(S.matmul(back, T(np.eye(2))).numpy(), d)


# -- sparse convolution and batch norm ----------------------------------------------

def conv3d_reference(x, w, stride, padding, dilation):
    """Dense NDHWC 3-d convolution with weight [kD, kH, kW, C, O], offset by offset."""
    n, size, c = x.shape[0], np.array(x.shape[1:4]), x.shape[4]
    kernel = np.array(w.shape[:3])
    stride, padding, dilation = (np.broadcast_to(v, 3) for v in (stride, padding, dilation))
    out_size = (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1
    padded = np.zeros((n, *(size + 2 * padding), c))
    padded[:, padding[0]:padding[0] + size[0], padding[1]:padding[1] + size[1], padding[2]:padding[2] + size[2]] = x
    out = np.zeros((n, *out_size, w.shape[4]))
    for k in np.ndindex(*kernel):
        start = np.array(k) * dilation
        window = padded[:, start[0]:start[0] + stride[0] * out_size[0]:stride[0],
                        start[1]:start[1] + stride[1] * out_size[1]:stride[1],
                        start[2]:start[2] + stride[2] * out_size[2]:stride[2]]
        out += window @ w[k]
    return out


def reachable(x, kernel, stride, padding, dilation):
    """The outputs some stored input of x reaches (a 0/1 conv of the pattern)."""
    pattern = (np.abs(x).sum(-1, keepdims=True) != 0).astype(float)
    return conv3d_reference(pattern, np.ones((*kernel, 1, 1)), stride, padding, dilation)[..., 0] != 0


@pytest.mark.parametrize("kernel, stride, padding, dilation", [
    ((3, 3, 3), (1, 1, 1), (1, 1, 1), (1, 1, 1)),
    ((2, 3, 1), (2, 1, 1), (0, 1, 0), (1, 1, 1)),
    ((3, 2, 2), (1, 2, 1), (2, 0, 1), (2, 1, 1)),
])
def test_conv3d_against_the_dense_convolution(rng, kernel, stride, padding, dilation):
    d = np.where(rng.random((2, 4, 5, 4, 1)) < 0.25, rng.standard_normal((2, 4, 5, 4, 3)), 0.0)
    w = rng.standard_normal((*kernel, 3, 2))
    bias = rng.standard_normal(2)
    x = T(d).to_sparse_coo(4)
    out = S.nn.functional.conv3d(x, T(w), T(bias), stride, padding, dilation)
    dense = conv3d_reference(d, w, stride, padding, dilation)
    stored = reachable(d, kernel, stride, padding, dilation)
    assert out.shape == list(dense.shape) and out.nnz() == stored.sum()
    np.testing.assert_allclose(out.to_dense().numpy(), np.where(stored[..., None], dense + bias, 0), atol=1e-12)


def test_subm_conv3d_keeps_the_pattern_and_layers_train(rng):
    d = np.where(rng.random((1, 5, 4, 4, 1)) < 0.3, rng.standard_normal((1, 5, 4, 4, 2)), 0.0)
    w = rng.standard_normal((3, 3, 3, 2, 3))
    x = T(d).to_sparse_coo(4)
    out = S.nn.functional.subm_conv3d(x, T(w), padding=1)
    np.testing.assert_array_equal(out.indices().numpy(), x.indices().numpy())
    stored = np.abs(d).sum(-1, keepdims=True) != 0
    np.testing.assert_allclose(out.to_dense().numpy(), np.where(stored, conv3d_reference(d, w, 1, 1, 1), 0),
                               atol=1e-12)
    # as in Paddle, the kernel is centred on each input whatever stride and padding are given
    ignored = S.nn.functional.subm_conv3d(x, T(w), stride=2, padding=0)
    np.testing.assert_allclose(ignored.to_dense().numpy(), out.to_dense().numpy())
    with pytest.raises(ValueError, match="subm_conv3d: a submanifold convolution centres the kernel .* must keep "
                                         "the spatial size \\[5, 4, 4\\], but kernel \\[3, 3, 3\\] with dilation "
                                         "\\[2, 2, 2\\] gives \\[3, 2, 2\\]"):
        S.nn.functional.subm_conv3d(x, T(w), dilation=2)
    with pytest.raises(ValueError, match="weight must be \\[kD, kH, kW, 2, out_channels\\]"):
        S.nn.functional.conv3d(x, T(np.ones((3, 3, 3, 4, 1))))
    eager.seed(7)
    net = eager.nn.Sequential(S.nn.SubmConv3D(2, 4, 3, padding=1), S.nn.BatchNorm(4), S.nn.ReLU(),
                              S.nn.Conv3D(4, 1, 2, stride=2))
    xf = T(d.astype(np.float32)).to_sparse_coo(4)
    opt = eager.optimizer.Adam(learning_rate=0.05, parameters=net.parameters())
    losses = []
    for _ in range(8):
        loss = (net(xf).values() ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < losses[0]


def conv2d_reference(x, w, stride, padding, dilation):
    """Dense NHWC 2-d convolution with weight [kH, kW, C, O], written directly as sums over the window."""
    n, h, wd, c = x.shape
    kh, kw = w.shape[:2]
    (sh, sw), (ph, pw), (dh, dw) = (np.broadcast_to(v, 2) for v in (stride, padding, dilation))
    oh, ow = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1, (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, oh, ow, w.shape[3]))
    for b, i, j, a, e in np.ndindex(n, oh, ow, kh, kw):
        r, q = i * sh - ph + a * dh, j * sw - pw + e * dw
        if 0 <= r < h and 0 <= q < wd:
            out[b, i, j] += x[b, r, q] @ w[a, e]
    return out


@pytest.mark.parametrize("kernel, stride, padding, dilation", [((3, 3), 1, 0, 1), ((2, 3), (2, 1), (1, 0), (1, 2))])
def test_conv2d_against_the_dense_convolution(rng, kernel, stride, padding, dilation):
    d = np.where(rng.random((2, 5, 6, 1)) < 0.3, rng.standard_normal((2, 5, 6, 3)), 0.0)
    w, bias = rng.standard_normal((*kernel, 3, 2)), rng.standard_normal(2)
    x = T(d).to_sparse_coo(3)
    out = S.nn.functional.conv2d(x, T(w), T(bias), stride, padding, dilation)
    dense = conv2d_reference(d, w, stride, padding, dilation)
    stored = conv2d_reference((np.abs(d).sum(-1, keepdims=True) != 0).astype(float), np.ones((*kernel, 1, 1)),
                              stride, padding, dilation)[..., 0] != 0
    assert out.is_sparse_coo() and out.shape == list(dense.shape) and out.nnz() == stored.sum()
    assert out.impl.sparse_dim == 3
    np.testing.assert_allclose(out.to_dense().numpy(), np.where(stored[..., None], dense + bias, 0), atol=1e-12)


def test_subm_conv2d_keeps_the_pattern_with_the_kernel_centred(rng):
    d = np.where(rng.random((1, 4, 5, 1)) < 0.4, rng.standard_normal((1, 4, 5, 2)), 0.0)
    w = rng.standard_normal((3, 3, 2, 3))
    x = T(d).to_sparse_coo(3)
    out = S.nn.functional.subm_conv2d(x, T(w), stride=2)  # stride and padding ignored, as in Paddle
    np.testing.assert_array_equal(out.indices().numpy(), x.indices().numpy())
    stored = np.abs(d).sum(-1, keepdims=True) != 0
    np.testing.assert_allclose(out.to_dense().numpy(), np.where(stored, conv2d_reference(d, w, 1, 1, 1), 0),
                               atol=1e-12)
    with pytest.raises(ValueError, match="conv2d: weight must be \\[kH, kW, 2, out_channels\\]"):
        S.nn.functional.conv2d(x, T(np.ones((3, 3, 4, 1))))
    with pytest.raises(ValueError, match="conv2d: x must be a COO tensor \\[N, H, W, C\\] with 3 sparse"):
        S.nn.functional.conv2d(T(d).to_sparse_coo(4), T(w))
    with pytest.raises(ValueError, match="subm_conv2d: argument 'data_format' expected 'NHWC'"):
        S.nn.functional.subm_conv2d(x, T(w), data_format="NCHW")
    with pytest.raises(ValueError, match="argument 'stride' expected an int or 2 ints >= 1"):
        S.nn.functional.conv2d(x, T(w), stride=(1, 1, 1))


def test_gradcheck_conv2d_and_the_2d_layers_train(rng):
    d = np.where(rng.random((1, 3, 4, 1)) < 0.5, rng.standard_normal((1, 3, 4, 2)), 0.0)
    d[0, 0, 0] = 1.0  # at least one stored entry
    x = T(d).to_sparse_coo(3)
    idx, v = x.indices(), T(x.values().numpy(), stop_gradient=False)
    w = T(rng.standard_normal((3, 3, 2, 2)), stop_gradient=False)
    b = T(rng.standard_normal(2), stop_gradient=False)
    for function in (lambda *a: S.nn.functional.conv2d(*a, padding=1), S.nn.functional.subm_conv2d):
        assert gradcheck(lambda v, w, b: function(S.sparse_coo_tensor(idx, v, x.shape, stop_gradient=False), w,
                                                  b).values(), (v, w, b))
    eager.seed(3)
    net = eager.nn.Sequential(S.nn.SubmConv2D(2, 4, 3), S.nn.ReLU(), S.nn.Conv2D(4, 1, (2, 2), stride=2))
    assert net[0].weight.shape == [3, 3, 2, 4] and net[2].weight.shape == [2, 2, 4, 1]
    assert "kernel_size=[2, 2], stride=[2, 2]" in repr(net[2])
    xf = T(d.astype(np.float32)).to_sparse_coo(3)
    assert net(xf).shape == [1, 1, 2, 1]
    opt = eager.optimizer.Adam(learning_rate=0.05, parameters=net.parameters())
    losses = []
    for _ in range(6):
        loss = (net(xf).values() - 1.0).square().mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    with pytest.raises(ValueError, match="sparse.nn.Conv2D: argument 'data_format' expected 'NHWC'"):
        S.nn.Conv2D(1, 1, 3, data_format="NDHWC")


def test_sync_batch_norm_is_batch_norm_in_one_process_and_converts_sparse_batch_norms(rng):
    d = np.where(rng.random((2, 3, 3, 3, 1)) < 0.4, rng.standard_normal((2, 3, 3, 3, 4)) * 3 + 1, 0.0)
    x = T(d.astype(np.float32)).to_sparse_coo(4)
    out = S.nn.SyncBatchNorm(4)(x)
    values = x.values().numpy().astype(np.float64)
    np.testing.assert_allclose(out.values().numpy(), (values - values.mean(0)) / np.sqrt(values.var(0) + 1e-5),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(out.indices().numpy(), x.indices().numpy())
    dense_bn = eager.nn.BatchNorm1D(4)
    model = eager.nn.Sequential(S.nn.Conv3D(3, 4, 3), S.nn.BatchNorm(4), dense_bn)
    model[1]._mean.set_value(np.full(4, 0.5, np.float32))
    synced = S.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert type(synced[1]) is S.nn.SyncBatchNorm and type(synced[2]) is eager.nn.SyncBatchNorm
    assert synced[1].weight is model[1].weight and synced[1]._mean is model[1]._mean
    assert synced[2].weight is dense_bn.weight
    np.testing.assert_allclose(synced[1]._mean.numpy(), 0.5)
    with pytest.raises(ValueError, match="sparse.nn.SyncBatchNorm: argument 'data_format' expected one of"):
        S.nn.SyncBatchNorm(4, data_format="NWHC")
    # any rank: the channels are the values' last dimension
    x3 = T(np.array([[[0.3, 0.0], [0.0, 0.0]], [[0.8, 0.4], [0.2, 0.9]]], np.float32)).to_sparse_coo(2)
    v3 = x3.values().numpy().astype(np.float64)
    np.testing.assert_allclose(S.nn.SyncBatchNorm(2)(x3).values().numpy(),
                               (v3 - v3.mean(0)) / np.sqrt(v3.var(0) + 1e-5), rtol=1e-4, atol=1e-5)
    with pytest.raises(TypeError, match="convert_sync_batchnorm: argument 'layer' expected an eager.nn.Layer"):
        S.nn.SyncBatchNorm.convert_sync_batchnorm(3)
    with pytest.raises(ValueError, match="sparse.nn.SyncBatchNorm: x must store values \\[nnz, 3\\]"):
        S.nn.SyncBatchNorm(3)(x)


def test_batch_norm_normalizes_each_channel_of_the_stored_values(rng):
    d = np.where(rng.random((2, 3, 3, 3, 1)) < 0.4, rng.standard_normal((2, 3, 3, 3, 4)) * 3 + 1, 0.0)
    x = T(d.astype(np.float32)).to_sparse_coo(4)
    bn = S.nn.BatchNorm(4)
    out = bn(x)
    values = x.values().numpy().astype(np.float64)
    expected = (values - values.mean(0)) / np.sqrt(values.var(0) + 1e-5)
    np.testing.assert_allclose(out.values().numpy(), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(out.indices().numpy(), x.indices().numpy())
    with pytest.raises(ValueError, match="sparse.nn.BatchNorm: x must store values \\[nnz, 3\\]"):
        S.nn.BatchNorm(3)(x)


def test_gradcheck_conv3d_in_values_weight_and_bias(rng):
    d = np.where(rng.random((1, 3, 3, 2, 1)) < 0.5, rng.standard_normal((1, 3, 3, 2, 2)), 0.0)
    x = T(d).to_sparse_coo(4)
    idx, v = x.indices(), T(x.values().numpy(), stop_gradient=False)
    w = T(rng.standard_normal((2, 2, 2, 2, 2)), stop_gradient=False)
    b = T(rng.standard_normal(2), stop_gradient=False)
    for function in (S.nn.functional.conv3d, lambda *a: S.nn.functional.subm_conv3d(*a, padding=[1, 1, 1],
                                                                                    dilation=2)):
        assert gradcheck(lambda v, w, b: function(S.sparse_coo_tensor(idx, v, x.shape, stop_gradient=False), w,
                                                  b).values(), (v, w, b))


def max_pool_reference(x, kernel, stride, padding):
    """(max over the stored inputs of each window, which windows hold one), a loop per output."""
    stored = np.abs(x).sum(-1) != 0
    size = np.array(x.shape[1:4])
    out_size = (size + 2 * np.array(padding) - np.array(kernel)) // np.array(stride) + 1
    out = np.zeros((x.shape[0], *out_size, x.shape[4]))
    hit = np.zeros((x.shape[0], *out_size), bool)
    for b in range(x.shape[0]):
        for o in np.ndindex(*out_size):
            low = np.array(o) * stride - padding
            window = tuple(slice(max(lo, 0), max(lo + k, 0)) for lo, k in zip(low, kernel))
            mask = stored[(b,) + window]
            if mask.any():
                hit[(b,) + o] = True
                out[(b,) + o] = x[(b,) + window][mask].max(axis=0)
    return out, hit


@pytest.mark.parametrize("kernel, stride, padding", [((2, 2, 2), None, (0, 0, 0)), ((3, 2, 3), (1, 2, 2), (1, 0, 1))])
def test_max_pool3d_takes_the_max_of_stored_inputs(rng, kernel, stride, padding):
    d = np.where(rng.random((2, 4, 5, 4, 1)) < 0.3, rng.standard_normal((2, 4, 5, 4, 3)), 0.0)
    x = T(d).to_sparse_coo(4)
    out = S.nn.MaxPool3D(kernel, stride, padding)(x)
    expected, hit = max_pool_reference(d, kernel, stride or kernel, padding)
    assert out.shape == list(expected.shape) and out.nnz() == hit.sum()
    np.testing.assert_allclose(out.to_dense().numpy(), expected, atol=1e-12)
    small = T(d[:1, :3, :3, :3, :2]).to_sparse_coo(4)
    idx, v = small.indices(), T(small.values().numpy(), stop_gradient=False)
    assert gradcheck(lambda v: S.nn.functional.max_pool3d(
        S.sparse_coo_tensor(idx, v, small.shape, stop_gradient=False), kernel, stride, padding).values(), (v,))


def test_attention_over_a_csr_layout(rng):
    b, h, s, d = 2, 2, 5, 3
    q, k, v = (rng.standard_normal((b, h, s, d)) for _ in range(3))
    layout = rng.random((b * h, s, s)) < 0.5
    layout[:, 0, :] = False  # a row that attends to nothing gives zeros
    mask = T(layout.astype(float)).to_sparse_csr()
    out = S.nn.functional.attention(T(q), T(k), T(v), mask)
    expected = np.zeros((b * h, s, d))
    for i in range(b * h):
        for row in range(s):
            keys = np.flatnonzero(layout[i, row])
            if keys.size:
                scores = q.reshape(b * h, s, d)[i, row] @ k.reshape(b * h, s, d)[i, keys].T / np.sqrt(d)
                weights = np.exp(scores - scores.max())
                expected[i, row] = weights / weights.sum() @ v.reshape(b * h, s, d)[i, keys]
    np.testing.assert_allclose(out.numpy(), expected.reshape(b, h, s, d), atol=1e-12)
    qs, ks, vs = (T(a[:1, :1, :4, :2], stop_gradient=False) for a in (q, k, v))
    small = T(layout[:1, :4, :4].astype(float)).to_sparse_csr()
    assert gradcheck(lambda q, k, v: S.nn.functional.attention(q, k, v, small), (qs, ks, vs))
    with pytest.raises(ValueError, match="argument 'attn_mask' expected shape \\[4, 4\\], got \\[3, 4\\]"):
        S.nn.functional.attention(qs, ks, vs, small, attn_mask=T(np.ones((3, 4))))


# -- printing -------------------------------------------------------------------

def test_repr_of_coo_shows_its_indices_and_values_as_paddle_prints_them():
    # Paddle 2.6.2's template ends each line but the last with a space
    x = S.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1.0, 2.0, 3.0], [3, 3])
    assert repr(x) == (f"Tensor(shape=[3, 3], dtype=paddle.float32, place={x.place}, stop_gradient=True, \n"
                       "       indices=[[0, 1, 2],\n"
                       "                [1, 2, 0]], \n"
                       "       values=[1., 2., 3.])")
    hybrid = T(np.array([[-2.0, 0.0], [0.0, 0.0], [1.5, 2.0]])).to_sparse_coo(1)
    assert repr(hybrid).splitlines()[1:] == ["       indices=[[0, 2]], ",
                                             "       values=[[-2.       ,  0.       ],",
                                             "               [1.50000000,  2.       ]])"]


def test_repr_of_csr_shows_crows_cols_and_values():
    x = S.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1, 2, 3, 4, 5], [3, 4])
    assert repr(x) == (f"Tensor(shape=[3, 4], dtype=paddle.int64, place={x.place}, stop_gradient=True, \n"
                       "       crows=[0, 2, 3, 5], \n"
                       "       cols=[1, 3, 2, 0, 1], \n"
                       "       values=[1, 2, 3, 4, 5])")
    assert str(x) == repr(x)


def test_repr_of_an_empty_sparse_tensor():
    x = S.sparse_coo_tensor(np.zeros((2, 0), np.int64), np.zeros(0), [2, 2])
    assert repr(x).splitlines()[1:] == ["       indices=[[],", "                []], ", "       values=[])"]
