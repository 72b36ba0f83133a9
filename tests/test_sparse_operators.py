"""Tensor operators on sparse tensors (x + y, x - y, x * y, x / y, -x, x @ y) and
the methods x.add(y) & co.: each runs the paddle.sparse function of its op.

Values against the dense NumPy computation, the result's kind and dtype, gradients
by finite differences in float64 (through the values of sparse tensors made in the
checked function), and the pairings sparse tensors do not take, refused by type
and message. Runs on the CPU and the GPU stand-in.
"""
import warnings

import numpy as np
import pytest

import eager
from eager.autograd import gradcheck
from phi.common.tensor_kind import TensorKind
from phi.core.errors import UnimplementedError

S = eager.sparse
pytestmark = pytest.mark.usefixtures("device")

OPERATORS = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
             "multiply": lambda a, b: a * b, "divide": lambda a, b: a / b}
METHODS = {"add": lambda a, b: a.add(b), "subtract": lambda a, b: a.subtract(b),
           "multiply": lambda a, b: a.multiply(b), "divide": lambda a, b: a.divide(b)}
NUMPY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide}


def sparse_matrix(rng, shape, density=0.5):
    """A dense float64 array with about ``density`` of its entries nonzero (the rest +0.0)."""
    return np.where(rng.random(shape) < density, rng.standard_normal(shape), 0.0)


def T(array, stop_gradient=True, dtype=None):
    return eager.to_tensor(np.asarray(array), dtype=dtype, stop_gradient=stop_gradient)


def convert(kind):
    return (lambda d: d.to_sparse_coo(d.ndim)) if kind == "coo" else (lambda d: d.to_sparse_csr())


# -- values --------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["coo", "csr"])
@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_operators_and_methods_of_two_sparse_tensors_match_numpy(rng, kind, op):
    a, b = sparse_matrix(rng, (4, 5)), sparse_matrix(rng, (4, 5))
    x, y = convert(kind)(T(a)), convert(kind)(T(b))
    with np.errstate(divide="ignore", invalid="ignore"):
        want = NUMPY[op](a, b)  # divide: x / 0 is inf, 0 / 0 nan, as Paddle's sparse divide
    for got in (OPERATORS[op](x, y), METHODS[op](x, y), getattr(eager, op)(x, y)):
        assert got.is_sparse() and got.impl.kind is x.impl.kind and got.dtype == eager.float64
        np.testing.assert_allclose(got.to_dense().numpy(), want)
    if op != "divide":  # the union of both patterns is stored, nothing more
        assert got.nnz() == int(((a != 0) | (b != 0)).sum())


@pytest.mark.parametrize("kind", ["coo", "csr"])
def test_negation_and_numbers_on_either_side_of_star_and_after_slash(rng, kind):
    a = sparse_matrix(rng, (3, 4))
    x = convert(kind)(T(a))
    for got, want in ((-x, -a), (x * 2.5, a * 2.5), (2.5 * x, a * 2.5), (x * 3, a * 3),
                      (x * np.float32(0.5), a * 0.5), (x / 4.0, a / 4.0), (x / 2, a / 2)):
        assert got.impl.kind is x.impl.kind and got.dtype == eager.float64
        assert got.nnz() == x.nnz()  # the pattern is kept
        np.testing.assert_allclose(got.to_dense().numpy(), want)
    np.testing.assert_allclose((x * 2 - x / 2 + -x).to_dense().numpy(), a * 2 - a / 2 - a)


def test_integer_sparse_tensor_divides_in_float32_and_scales_in_its_own_dtype():
    x = S.sparse_coo_tensor([[0, 1, 2]], [3, 4, 6], [4], dtype="int64")
    half = x / 2
    assert half.dtype == eager.float32
    np.testing.assert_array_equal(half.to_dense().numpy(), [1.5, 2.0, 3.0, 0.0])
    ratio = x / x  # both cast to float32; the unstored position is 0 / 0
    assert ratio.dtype == eager.float32
    np.testing.assert_array_equal(ratio.to_dense().numpy()[:3], [1.0, 1.0, 1.0])
    assert np.isnan(ratio.to_dense().numpy()[3])
    doubled = x * 2
    assert doubled.dtype == eager.int64
    np.testing.assert_array_equal(doubled.to_dense().numpy(), [6, 8, 12, 0])
    # Paddle's scale kernel casts the factor to the tensor's dtype: 2.5 multiplies an int by 2
    np.testing.assert_array_equal((x * 2.5).to_dense().numpy(), [6, 8, 12, 0])
    assert (-x).dtype == eager.int64 and (-x).to_dense().numpy().tolist() == [-3, -4, -6, 0]


def test_a_right_operand_of_another_dtype_is_cast_to_the_left_ones(rng):
    a, b = sparse_matrix(rng, (3, 3)), sparse_matrix(rng, (3, 3))
    x32 = T(a, dtype="float32").to_sparse_coo(2)
    y64 = T(b).to_sparse_coo(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # as paddle.sparse: a silent cast of y
        left32, left64 = x32 + y64, y64 + x32
    assert left32.dtype == eager.float32 and left64.dtype == eager.float64
    want = a.astype(np.float32) + b.astype(np.float32)
    np.testing.assert_allclose(left32.to_dense().numpy(), want, rtol=1e-6)
    np.testing.assert_allclose((x32 * y64).to_dense().numpy(), a.astype(np.float32) * b.astype(np.float32),
                               rtol=1e-6)


def test_hybrid_coo_plus_a_dense_bias_adds_it_to_every_stored_block(rng):
    d = sparse_matrix(rng, (4, 3, 2), density=0.6)
    x = T(d).to_sparse_coo(2)  # values [nnz, 2]
    bias = T([10.0, -20.0])
    stored = (d != 0).any(axis=2, keepdims=True)
    want = np.where(stored, d + np.array([10.0, -20.0]), 0.0)
    for got in (x + bias, x.add(bias), S.add(x, bias), eager.add(x, bias)):
        assert got.is_sparse_coo() and got.nnz() == x.nnz()
        np.testing.assert_allclose(got.to_dense().numpy(), want)


@pytest.mark.parametrize("kind", ["coo", "csr"])
def test_matmul_operator_of_sparse_with_dense_and_with_sparse(rng, kind):
    a, b, c = sparse_matrix(rng, (4, 3)), rng.standard_normal((3, 2)), sparse_matrix(rng, (3, 5))
    x = convert(kind)(T(a))
    dense = x @ T(b)
    assert dense.is_dense() and dense.shape == [4, 2]
    np.testing.assert_allclose(dense.numpy(), a @ b)
    product = x @ convert(kind)(T(c))
    assert product.impl.kind is x.impl.kind
    np.testing.assert_allclose(product.to_dense().numpy(), a @ c, atol=1e-12)
    np.testing.assert_allclose((x @ b).numpy(), a @ b)  # a NumPy array becomes a dense tensor first


def test_sparse_methods_named_in_paddle():
    x = S.sparse_coo_tensor([[1, 0, 1], [2, 1, 2]], [1.0, 2.0, 3.0], [2, 3])
    assert x.is_sparse_coo() and not x.is_sparse_csr() and x.nnz() == 3
    np.testing.assert_array_equal(x.indices().numpy(), [[1, 0, 1], [2, 1, 2]])
    np.testing.assert_array_equal(x.values().numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(x.to_dense().numpy(), [[0, 2, 0], [0, 0, 4]])
    merged = x.coalesce()
    assert merged.nnz() == 2
    np.testing.assert_array_equal((merged + x).to_dense().numpy(), [[0, 4, 0], [0, 0, 8]])


# -- gradients (finite differences in float64) -----------------------------------------

def coo_parts(rng, shape, sparse_dim=None):
    d = sparse_matrix(rng, shape)
    x = T(d).to_sparse_coo(sparse_dim or len(shape))
    return x.indices(), T(x.values().numpy(), stop_gradient=False), list(shape)


@pytest.mark.parametrize("kind", ["coo", "csr"])
@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_operator_gradients_in_both_operands_match_finite_differences(rng, kind, op):
    ix, vx, shape = coo_parts(rng, (3, 4))
    iy, vy, _ = coo_parts(rng, (3, 4))
    if op == "divide":  # the result stores every position: y stores them all too (no 0 / 0), away from 0
        full = T(np.ones(shape)).to_sparse_coo(2)
        ix, iy = full.indices(), full.indices()
        vx = T(rng.standard_normal(12), stop_gradient=False)
        vy = T(rng.uniform(1.0, 2.0, 12) * rng.choice([-1.0, 1.0], 12), stop_gradient=False)

    def sparse(indices, values):
        out = S.sparse_coo_tensor(indices, values, shape, stop_gradient=False)
        return out if kind == "coo" else out.to_sparse_csr()

    def f(vx, vy):
        return OPERATORS[op](sparse(ix, vx), sparse(iy, vy)).to_dense()

    assert gradcheck(f, (vx, vy))


def test_gradients_of_negation_scaling_bias_and_matmul_match_finite_differences(rng):
    idx, v, shape = coo_parts(rng, (4, 3))
    w = T(rng.standard_normal((3, 2)), stop_gradient=False)

    def x_of(values):
        return S.sparse_coo_tensor(idx, values, shape, stop_gradient=False)

    assert gradcheck(lambda v: (-x_of(v) * 3.0 / 2.0).to_dense(), (v,))
    assert gradcheck(lambda v: (1.5 * x_of(v)).to_dense(), (v,))
    assert gradcheck(lambda v, w: x_of(v) @ w, (v, w))
    assert gradcheck(lambda v, w: x_of(v).to_sparse_csr() @ w, (v, w))
    hi, hv, hshape = coo_parts(rng, (3, 2, 4), sparse_dim=2)
    bias = T(rng.standard_normal(4), stop_gradient=False)
    assert gradcheck(lambda v, b: (S.sparse_coo_tensor(hi, v, hshape, stop_gradient=False) + b).values(), (hv, bias))


def test_backward_through_operators_gives_sparse_gradients_of_the_leaves_pattern():
    x = S.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2], stop_gradient=False)
    y = S.sparse_coo_tensor([[0, 1], [1, 1]], [5.0, 7.0], [2, 2], stop_gradient=False)
    w = T([[1.0], [10.0]], stop_gradient=False, dtype="float32")
    ((x * y + x) @ w).sum().backward()
    # x * y stores (0, 1): 10, and x's (1, 0) meets nothing in y: d/dx = (y + 1) * w[col]
    assert x.grad.is_sparse_coo() and y.grad.is_sparse_coo()
    np.testing.assert_allclose(x.grad.to_dense().numpy(), [[0.0, 60.0], [1.0, 0.0]])
    np.testing.assert_allclose(y.grad.to_dense().numpy(), [[0.0, 20.0], [0.0, 0.0]])
    np.testing.assert_allclose(w.grad.numpy(), [[3.0], [12.0]])


# -- what sparse tensors do not take ---------------------------------------------------

@pytest.mark.parametrize("expression, message", [
    (lambda x, d: x + 2.0, r"add: a sparse COO tensor of shape \[2, 2\] \+ the float 2.0 is not supported"),
    (lambda x, d: 2 + x, r"add: a sparse COO tensor of shape \[2, 2\] \+ the int 2 is not supported"),
    (lambda x, d: d + x, r"add: a dense tensor of shape \[2, 2\] \+ a sparse COO tensor .* is not supported"),
    (lambda x, d: x - 1.0, r"subtract: a sparse COO tensor of shape \[2, 2\] - the float 1.0 is not supported"),
    (lambda x, d: 1.0 - x, r"subtract: the float 1.0 - a sparse COO tensor"),
    (lambda x, d: x - d, r"subtract: a sparse COO tensor of shape \[2, 2\] - a dense tensor"),
    (lambda x, d: x * d, r"multiply: a sparse COO tensor of shape \[2, 2\] \* a dense tensor"),
    (lambda x, d: d * x, r"multiply: a dense tensor of shape \[2, 2\] \* a sparse COO tensor"),
    (lambda x, d: x * True, r"multiply: a sparse COO tensor of shape \[2, 2\] \* the bool True"),
    (lambda x, d: x * [1, 2], r"multiply: a sparse COO tensor .* \* the list \[1, 2\]"),
    (lambda x, d: 2.0 / x, r"divide: the float 2.0 / a sparse COO tensor"),
    (lambda x, d: d / x, r"divide: a dense tensor of shape \[2, 2\] / a sparse COO tensor"),
    (lambda x, d: d @ x, r"matmul: a dense tensor of shape \[2, 2\] @ a sparse COO tensor"),
    (lambda x, d: x == 1, r"equal: sparse tensors take the operators \+ - \* / @ and unary - only"),
    (lambda x, d: x // 2, r"floor_divide: sparse tensors take the operators"),
])
def test_pairings_sparse_tensors_do_not_take_are_type_errors_naming_the_op(expression, message):
    x = S.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
    d = eager.ones([2, 2])
    with pytest.raises(TypeError, match=message) as info:
        expression(x, d)
    assert "to_dense()" in str(info.value)
    np.testing.assert_array_equal(x.to_dense().numpy(), [[0, 2], [3, 0]])  # nothing changed


def test_sparse_checks_name_the_sparse_function():
    coo = S.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
    with pytest.raises(TypeError, match="sparse.add: x and y must be of one sparse kind, got sparse COO and "
                                        "sparse CSR"):
        coo + coo.to_sparse_csr()
    with pytest.raises(ValueError, match=r"sparse.multiply: x and y must have one shape, got \[2, 2\] and \[3, 3\]"):
        coo * S.sparse_coo_tensor([[0], [0]], [1.0], [3, 3])
    with pytest.raises(ValueError, match="sparse.add: a dense y is added to every stored value block of a hybrid COO "
                                         "x, so x needs a dense last dimension"):
        coo + eager.ones([2])
    hybrid = S.sparse_coo_tensor([[0, 1]], [[1.0, 2.0], [3.0, 4.0]], [2, 2])
    with pytest.raises(ValueError, match=r"sparse.add: a dense y must be 1-D of x's last dimension 2 \(a bias\), "
                                         r"got shape \[3\]"):
        hybrid + eager.ones([3])
    with pytest.raises(TypeError, match="sparse.add: argument 'x' expected a sparse COO tensor, got a sparse CSR"):
        S.add(coo.to_sparse_csr(), eager.ones([2]))
    with pytest.raises(ValueError, match="sparse.matmul: x's last dimension must equal y's second to last"):
        coo @ eager.ones([3, 2])


def test_other_ops_on_a_sparse_tensor_say_how_to_get_a_dense_one():
    x = S.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
    with pytest.raises(UnimplementedError,
                       match=r"abs: no kernel for a sparse_coo input .*convert it with to_dense\(\)"):
        abs(x)
    with pytest.raises(UnimplementedError, match="convert it with to_dense()"):
        x.matmul(eager.ones([2, 2]))  # the method is eager.matmul: no sparse form (eager.sparse.matmul has one)


def test_dense_operators_are_unchanged_and_silent():
    a, b = eager.to_tensor([[1.0, 2.0], [3.0, 4.0]]), eager.to_tensor([[0.5, -1.0], [1.0, 2.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results = (a + b, a - b, a * b, a / b, -a, a @ b, a * 2, 2 - a, 1 / a)
    for got in results:
        assert got.impl.kind is TensorKind.DENSE
    np.testing.assert_allclose(results[5].numpy(), a.numpy() @ b.numpy())
    np.testing.assert_allclose(results[7].numpy(), 2 - a.numpy())
