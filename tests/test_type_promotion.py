"""Paddle 2.6's type promotion between two Tensors of different dtypes: every pair
of the guide's table for the binary APIs (add, subtract, multiply, divide) and
their operators, checked against NumPy in the promoted dtype; gradients coming
back in each input's own dtype (finite differences in float64); the operators'
cast of the right operand where no rule exists; errors that stay errors."""
import itertools
import warnings

import numpy as np
import pytest

import eager
from eager.autograd import gradcheck
from eager.type_promotion import promoted_dtype
from phi.common import DataType

F16, F32, F64 = DataType.FLOAT16, DataType.FLOAT32, DataType.FLOAT64
C64, C128 = DataType.COMPLEX64, DataType.COMPLEX128
REALS_WITHOUT_RULE = (DataType.BOOL, DataType.UINT8, DataType.INT8, DataType.INT16, DataType.INT32, DataType.INT64)
FLOATS = (F16, F32, F64)

# The guide's Tensor-to-Tensor table, written out by hand (row, column) -> result.
EXPECTED = {
    (F16, F32): F32, (F16, F64): F64, (F32, F64): F64,
    (F16, C64): C64, (F32, C64): C64, (F64, C64): C128,
    (F16, C128): C128, (F32, C128): C128, (F64, C128): C128, (C64, C128): C128,
    **{(real, C64): C64 for real in REALS_WITHOUT_RULE},
    **{(real, C128): C128 for real in REALS_WITHOUT_RULE},
}
PAIRS = sorted(EXPECTED, key=str)

APIS = {"add": (eager.add, np.add), "subtract": (eager.subtract, np.subtract),
        "multiply": (eager.multiply, np.multiply), "divide": (eager.divide, np.divide)}
OPERATORS = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
             "multiply": lambda a, b: a * b, "divide": lambda a, b: a / b}


def values(dtype: DataType, shape=(2, 3), seed=0) -> np.ndarray:
    """Small positive values exact in every dtype (no zero: divide)."""
    rng = np.random.default_rng(seed)
    ints = rng.integers(1, 5, shape)
    if dtype is DataType.BOOL:
        return np.ones(shape, dtype=bool)
    array = ints.astype(np.dtype(dtype.value))
    if dtype.is_complex:
        array = array + 1j * rng.integers(1, 5, shape).astype(array.dtype)
    return array


def tensor(dtype: DataType, seed=0, stop_gradient=True):
    return eager.to_tensor(values(dtype, seed=seed), dtype=dtype.value, stop_gradient=stop_gradient)


def test_table_is_symmetric_and_matches_the_guide():
    for (a, b), want in EXPECTED.items():
        assert promoted_dtype(a, b) is want and promoted_dtype(b, a) is want
    for a, b in itertools.product(REALS_WITHOUT_RULE + FLOATS, repeat=2):
        if a is not b and (a not in FLOATS or b not in FLOATS):
            assert promoted_dtype(a, b) is None, (a, b)


@pytest.mark.parametrize("op", sorted(APIS))
@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}-{p[1]}")
def test_api_and_operator_promote_every_pair_of_the_table(op, pair):
    fn, reference = APIS[op]
    for left, right in (pair, pair[::-1]):
        x, y = tensor(left, 1), tensor(right, 2)
        want_dtype = EXPECTED[pair]
        numpy_dtype = np.dtype(want_dtype.value)
        want = reference(values(left, seed=1).astype(numpy_dtype), values(right, seed=2).astype(numpy_dtype))
        for got in (fn(x, y), OPERATORS[op](x, y)):
            assert got.dtype == want_dtype, (op, left, right)
            tolerance = 1e-3 if want_dtype is F16 else 1e-6
            np.testing.assert_allclose(got.numpy(), want.astype(numpy_dtype), rtol=tolerance)
            if op == "divide" and not want_dtype.is_complex:
                break  # Paddle 2.6.2's / of two real dtypes casts y to x's (test_true_division_keeps_...)
        assert x.dtype == left and y.dtype == right  # the inputs are not changed


@pytest.mark.parametrize("op", sorted(APIS))
def test_gradients_come_back_in_each_inputs_dtype(op):
    fn = APIS[op][0]
    x, y = tensor(F32, 1, stop_gradient=False), tensor(F64, 2, stop_gradient=False)
    fn(x, y).sum().backward()
    assert x.grad.dtype == F32 and y.grad.dtype == F64
    # the values: d/dx and d/dy of the op, by hand
    xv, yv = values(F64, seed=1), values(F64, seed=2)
    want_x = {"add": np.ones_like(xv), "subtract": np.ones_like(xv), "multiply": yv, "divide": 1 / yv}[op]
    want_y = {"add": np.ones_like(yv), "subtract": -np.ones_like(yv), "multiply": xv, "divide": -xv / yv ** 2}[op]
    np.testing.assert_allclose(x.grad.numpy(), want_x, rtol=1e-6)
    np.testing.assert_allclose(y.grad.numpy(), want_y, rtol=1e-12)


@pytest.mark.parametrize("op", sorted(APIS))
def test_float32_input_gradient_matches_finite_differences_of_the_float64_op(op):
    # x (float32) meets y (float64, broadcast): x is cast up, so its gradient is the
    # float64 op's, summed back over the broadcast and returned as float32.
    fn = APIS[op][0]
    x_values = values(F64, (3,), 3) + 0.25  # exact in float32
    y = eager.to_tensor(values(F64, (2, 1), 4) + 0.5, dtype="float64")
    x = eager.to_tensor(x_values, dtype="float32", stop_gradient=False)
    out = fn(x, y)
    assert out.dtype == F64 and out.shape == [2, 3]
    out.sum().backward()
    assert x.grad.dtype == F32
    eps = 1e-6

    def total(array):
        return fn(eager.to_tensor(array), y).numpy().sum()

    for i in range(3):
        up, down = x_values.copy(), x_values.copy()
        up[i] += eps
        down[i] -= eps
        numeric = (total(up) - total(down)) / (2 * eps)
        np.testing.assert_allclose(x.grad.numpy()[i], numeric, rtol=1e-6)
    assert gradcheck(lambda a, b: fn(a, b), (eager.to_tensor(x_values, stop_gradient=False),
                                              eager.to_tensor(y.numpy(), stop_gradient=False)))


def test_complex_promotion_gradient_of_the_real_input_is_real():
    x = tensor(F64, 1, stop_gradient=False)
    c = tensor(C64, 2, stop_gradient=False)
    out = x * c
    assert out.dtype == C128
    eager.real(out).sum().backward()
    assert x.grad.dtype == F64 and c.grad.dtype == C64
    np.testing.assert_allclose(x.grad.numpy(), values(C64, seed=2).real, rtol=1e-12)


@pytest.mark.parametrize("op", sorted(APIS))
@pytest.mark.parametrize("left,right", [(F32, DataType.INT64), (DataType.INT32, F64), (F32, DataType.BOOL),
                                        (DataType.INT32, DataType.INT64), (DataType.BOOL, DataType.INT8)])
def test_api_without_a_rule_still_raises(op, left, right):
    fn = APIS[op][0]
    x, y = tensor(left, 1), tensor(right, 2)
    with pytest.raises(ValueError, match=rf"{op}: arguments 'x' and 'y' expected the same dtype, "
                                         rf"got {left} and {right}"):
        fn(x, y)


def test_shape_errors_are_not_turned_into_promotion():
    with pytest.raises(ValueError, match="add"):
        eager.add(tensor(F32), eager.ones([4], dtype="float64"))
    with pytest.raises(ValueError, match="broadcast|shape"):
        eager.add(eager.ones([2]), eager.ones([3]))


@pytest.mark.parametrize("op", ["add", "subtract", "multiply"])
@pytest.mark.parametrize("left,right", [(F32, DataType.BOOL), (F32, DataType.INT64), (DataType.INT64, F32),
                                        (DataType.INT32, DataType.INT64), (DataType.INT32, F64)])
def test_operator_without_a_rule_casts_the_right_operand_with_a_warning(op, left, right):
    x, y = tensor(left, 1), tensor(right, 2)
    with pytest.warns(UserWarning, match=rf"{op}: the left Tensor is {left} and the right Tensor is {right}; "
                                         rf"the operator casts the right one to {left}"):
        got = OPERATORS[op](x, y)
    assert got.dtype == left
    left_np = np.dtype(left.value)
    xv, yv = values(left, seed=1), values(right, seed=2).astype(left_np)
    want = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply}[op](xv, yv)
    np.testing.assert_array_equal(got.numpy(), want.astype(left_np))


def test_operator_example_of_the_brief():
    with pytest.warns(UserWarning, match="multiply"):
        got = eager.ones([2]) * eager.to_tensor([True, False])
    assert got.dtype == F32 and got.numpy().tolist() == [1.0, 0.0]


def test_operator_cast_keeps_the_gradient_of_the_left_input():
    x = tensor(F32, 1, stop_gradient=False)
    mask = eager.to_tensor([[True, False, True], [False, True, True]])
    with pytest.warns(UserWarning):
        (x * mask).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), mask.numpy().astype(np.float32))


@pytest.mark.parametrize("operator,name", [(lambda a, b: a // b, "floor_divide"), (lambda a, b: a % b, "remainder"),
                                           (lambda a, b: a ** b, "elementwise_pow"), (lambda a, b: a == b, "equal"),
                                           (lambda a, b: a < b, "less_than"), (lambda a, b: a >= b, "greater_equal")])
def test_non_promoting_operators_cast_the_right_operand(operator, name):
    x = eager.to_tensor([2.0, 3.0, 4.5])
    y = eager.to_tensor([2.0, 2.0, 2.0], dtype="float64")  # floats too: these never promote in Paddle 2.6
    with pytest.warns(UserWarning, match=rf"{name}: the left Tensor is paddle.float32 and the right Tensor is paddle.float64"):
        got = operator(x, y)
    want = operator(np.array([2.0, 3.0, 4.5], np.float32), np.array([2.0, 2.0, 2.0], np.float32))
    assert got.numpy().dtype == want.dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def test_int_compared_with_float_casts_the_float_to_int_as_paddle():
    ints, floats = eager.to_tensor([1, 2]), eager.to_tensor([1.5, 2.0])
    with pytest.warns(UserWarning):
        assert (ints == floats).numpy().tolist() == [True, True]  # 1.5 -> 1


def test_true_division_of_int_by_float64():
    # Paddle 2.6.2's __div__ casts y to x's dtype (4.5 -> 4) before integers become float32
    with pytest.warns(UserWarning, match="divide"):
        got = eager.to_tensor([1, 2], dtype="int32") / eager.to_tensor([4.5, 8.0], dtype="float64")
    assert got.dtype == F32 and got.numpy().tolist() == [0.25, 0.25]


@pytest.mark.parametrize("left, right", [(F32, F64), (F64, F32), (F16, F32), (F32, F16)])
def test_true_division_keeps_the_left_real_dtype(left, right):
    # Paddle 2.6.2: float32 / float64 is float32 (its __div__ does not promote real
    # dtypes, unlike + - *); eager.divide still promotes (Paddle's divide refuses the pair)
    x, y = tensor(left, 1), tensor(right, 2)
    with pytest.warns(UserWarning, match="divide"):
        got = x / y
    assert got.dtype == left
    np.testing.assert_allclose(got.numpy(), values(left, seed=1) / values(right, seed=2).astype(np.dtype(left.value)),
                               rtol=1e-3)


def test_equal_dtypes_take_no_detour_and_warn_nothing():
    x, y = tensor(F32, 1), tensor(F32, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (x + y).dtype == F32 and eager.add(x, y).dtype == F32 and (x == y).dtype == DataType.BOOL


def test_inplace_ops_keep_refusing_a_mismatch_and_leave_x_unchanged():
    # Paddle 2.6 does not promote inplace ops: x.add_(y) needs y in x's dtype.
    x, y = tensor(F32, 1), tensor(F64, 2)
    before = x.numpy().copy()
    for method in ("add_", "subtract_", "multiply_", "divide_"):
        with pytest.raises(ValueError, match="expected the same dtype"):
            getattr(x, method)(y)
        assert x.dtype == F32
        np.testing.assert_array_equal(x.numpy(), before)


def test_promotion_on_the_gpu_axis(device):
    x = eager.to_tensor([1.0, 2.0], dtype="float32")
    y = eager.to_tensor([0.5, 0.25], dtype="float64")
    assert str(x.place).lower().startswith(device) or device in str(x.place).lower()
    got = eager.multiply(x, y)
    assert got.dtype == F64 and got.numpy().tolist() == [0.5, 0.5]
    assert (x + y).dtype == F64


# -- the @ operator: Paddle 2.6's Tensor.__matmul__ casts a real right operand to the left's dtype --

def matrices(seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((2, 3)), rng.standard_normal((3, 4))


@pytest.mark.parametrize("left,right", [(F32, F64), (F64, F32), (F16, F32), (F32, F16)])
def test_matmul_of_two_real_float_dtypes_casts_the_right_operand_to_the_left(left, right):
    a, b = matrices()
    x = eager.to_tensor(a, dtype=left.value)
    y = eager.to_tensor(b, dtype=right.value)
    with pytest.warns(UserWarning, match=rf"matmul: the left Tensor is {left} and the right Tensor is {right}; "
                                         rf"the operator casts the right one to {left}"):
        got = x @ y
    assert got.dtype == left  # never the wider one: @ does not promote real types
    left_np = np.dtype(left.value)
    want = a.astype(left_np).astype(np.float64) @ b.astype(np.dtype(right.value)).astype(left_np).astype(np.float64)
    np.testing.assert_allclose(got.numpy().astype(np.float64), want, rtol=2e-3 if F16 in (left, right) else 1e-6)
    assert x.dtype == left and y.dtype == right


def test_matmul_of_int_and_float_casts_the_float_to_int():
    x = eager.to_tensor([[1, 2], [3, 4]], dtype="int32")
    y = eager.to_tensor([[1.5, 0.0], [2.7, 1.0]], dtype="float32")
    with pytest.warns(UserWarning, match="matmul: the left Tensor is paddle.int32 and the right Tensor is paddle.float32"):
        got = x @ y
    assert got.dtype == DataType.INT32
    np.testing.assert_array_equal(got.numpy(), np.array([[1, 2], [3, 4]]) @ np.array([[1, 0], [2, 1]]))


def test_matmul_mixed_gradients_come_back_in_each_inputs_dtype():
    a, b = matrices(1)
    x = eager.to_tensor(a, dtype="float32", stop_gradient=False)
    y = eager.to_tensor(b, dtype="float64", stop_gradient=False)
    g = np.random.default_rng(2).standard_normal((2, 4))
    with pytest.warns(UserWarning):
        out = x @ y
    out.backward(eager.to_tensor(g, dtype="float32"))
    assert x.grad.dtype == F32 and y.grad.dtype == F64
    b32, a32, g32 = b.astype(np.float32), a.astype(np.float32), g.astype(np.float32)
    np.testing.assert_allclose(x.grad.numpy(), g32 @ b32.T, rtol=1e-5)
    np.testing.assert_allclose(y.grad.numpy(), (a32.T @ g32).astype(np.float64), rtol=1e-5)


def test_matmul_mixed_gradient_of_the_float64_left_matches_finite_differences():
    a, b = matrices(3)
    y = eager.to_tensor(b, dtype="float32")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(lambda t: t @ y, (eager.to_tensor(a, stop_gradient=False),))


def test_matmul_shape_errors_stay_errors_and_equal_dtypes_warn_nothing():
    x, y = eager.ones([2, 3]), eager.ones([4, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="matmul: the contracted dimensions differ"):
            x @ y
        assert (x @ eager.ones([3, 2])).dtype == F32
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="matmul: the contracted dimensions differ"):
        x @ eager.ones([4, 2], dtype="float64")  # cast first (as Paddle), then the shapes are refused


def test_matmul_api_still_refuses_two_dtypes():
    # Paddle 2.6's paddle.matmul has no rule for float32 with float64: only the operator casts.
    with pytest.raises(ValueError, match="matmul: arguments 'x' and 'y' expected the same dtype"):
        eager.matmul(eager.ones([2, 3]), eager.ones([3, 2], dtype="float64"))
