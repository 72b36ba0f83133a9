"""What the op table cannot express for the math binary ops: pow's dispatch on its
exponent, the operators, Paddle's conventions (signs, ties, edges, NaN), inplace
variants and value-dependent errors that leave the inputs untouched."""
import itertools
import math

import numpy as np
import pytest

import eager
from eager.autograd import gradcheck, gradgradcheck
from eager.autograd.gradient_check import gradient_function


def t(values, dtype=None, stop_gradient=True):
    array = np.asarray(values) if dtype is None else np.asarray(values, dtype=dtype)
    return eager.to_tensor(array, stop_gradient=stop_gradient)


# -- pow with a tensor exponent -----------------------------------------------------------

def test_pow_dispatches_on_the_exponents_type():
    x_values, y_values = np.array([0.5, 1.5, 2.0]), np.array([2.0, -1.0, 0.5])
    x, y = t(x_values), t(y_values)
    want = x_values ** y_values
    for got in (eager.pow(x, y), x.pow(y), x ** y):
        assert got.grad_node is None and got.dtype == eager.float64
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-15)
    np.testing.assert_allclose(eager.pow(x, 3).numpy(), x_values ** 3, rtol=1e-15)
    np.testing.assert_allclose(x.pow(0.5).numpy(), np.sqrt(x_values), rtol=1e-15)


def test_pow_with_a_tensor_exponent_broadcasts_and_differentiates_in_both():
    rng = np.random.default_rng(0)
    x = t(rng.uniform(0.5, 2.0, (3, 1)), stop_gradient=False)
    y = t(rng.uniform(-1.5, 1.5, (4,)), stop_gradient=False)
    assert (x ** y).shape == [3, 4]
    assert gradcheck(lambda a, b: a ** b, (x, y))
    assert gradgradcheck(lambda a, b: eager.pow(a, b), (x, y))


def test_number_base_to_a_tensor_power():
    e = np.array([-1.0, 0.0, 2.5])
    x = t(e, stop_gradient=False)
    out = 3 ** x
    np.testing.assert_allclose(out.numpy(), 3.0 ** e, rtol=1e-15)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.log(3.0) * 3.0 ** e, rtol=1e-14)
    # Paddle's promotion: an int base keeps an integer tensor integer, a float one makes it float32.
    ints = t([0, 1, 5], "int32")
    assert (2 ** ints).dtype == eager.int32 and (2 ** ints).numpy().tolist() == [1, 2, 32]
    assert (2.0 ** ints).dtype == eager.float32


def test_integer_negative_exponent_is_refused_before_writing():
    x, y = t([2, 3], "int64"), t([1, -1], "int64")
    with pytest.raises(ValueError, match="elementwise_pow: argument 'y' holds a negative exponent"):
        x ** y
    assert x.numpy().tolist() == [2, 3]


# -- clip -------------------------------------------------------------------------------------

def test_clip_gradient_passes_at_the_edges_as_paddle():
    # Paddle's clip_grad: out_grad where min <= x <= max, edges included.
    x = t([-2.0, -1.0, 0.0, 1.0, 2.0], stop_gradient=False)
    eager.clip(x, -1.0, 1.0).sum().backward()
    assert x.grad.numpy().tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]


def test_clip_open_sides_tensor_bounds_and_inplace():
    values = np.array([-3.0, -0.5, 0.5, 3.0])
    x = t(values)
    np.testing.assert_array_equal(eager.clip(x, min=0.0).numpy(), [0.0, 0.0, 0.5, 3.0])
    np.testing.assert_array_equal(x.clip(max=0.0).numpy(), [-3.0, -0.5, 0.0, 0.0])
    np.testing.assert_array_equal(eager.clip(x, None, None).numpy(), values)
    # A one-element tensor bound is read as its number (Paddle 2.x: shape [1]).
    np.testing.assert_array_equal(eager.clip(x, t([-1.0]), t(1.0)).numpy(), [-1.0, -0.5, 0.5, 1.0])
    same = x.clip_(-1.0, 1.0)
    assert same is x and x.numpy().tolist() == [-1.0, -0.5, 0.5, 1.0]
    ints = t([-5, 0, 5], "int32")
    assert eager.clip(ints, -2, 2).numpy().tolist() == [-2, 0, 2]


@pytest.mark.parametrize("call, message", [
    (lambda x: eager.clip(x, 1.0, -1.0), "clip: argument 'max' expected a bound >= min"),
    (lambda x: eager.clip(x, t([0.0, 1.0])), "clip: argument 'min' expected a number"),
    (lambda x: eager.clip(x.astype("int8"), -1000, 0), "clip: argument 'min'"),
    (lambda x: x.clip_(2.0, 1.0), "^clip_: argument 'max'"),   # the inplace twin names itself
])
def test_clip_bad_bounds_are_named_and_leave_x(call, message):
    x = t([1.5, -1.5])
    with pytest.raises((TypeError, ValueError), match=message):
        call(x)
    assert x.numpy().tolist() == [1.5, -1.5]


# -- remainder and floor division ----------------------------------------------------------------

def test_integer_floor_divide_and_remainder_follow_python():
    pairs = [(a, b) for a, b in itertools.product(range(-7, 8), [-3, -2, -1, 1, 2, 3])]
    a = t([p[0] for p in pairs], "int32")
    b = t([p[1] for p in pairs], "int32")
    assert eager.floor_divide(a, b).numpy().tolist() == [p // q for p, q in pairs]
    assert eager.remainder(a, b).numpy().tolist() == [p % q for p, q in pairs]
    assert eager.mod(a, b).numpy().tolist() == eager.floor_mod(a, b).numpy().tolist() == [p % q for p, q in pairs]
    assert (a // b).numpy().tolist() == [p // q for p, q in pairs]
    quotient, rest = divmod(a, b)
    assert (quotient * b + rest).numpy().tolist() == a.numpy().tolist()


def test_float_remainder_has_the_divisors_sign_and_floor_divide_is_floor_of_the_quotient():
    x, y = t([-7.5, 7.5, -7.5, 1.0]), t([2.0, -2.0, -2.0, 0.1])
    np.testing.assert_allclose(eager.remainder(x, y).numpy()[:3], [0.5, -0.5, -1.5])
    # Paddle 2.6's float functor floors (x - fmod(x, y)) / y, as Python's //: 1 // 0.1 is
    # 9.0, though 1 / 0.1 rounds to 10.0 (floor of the rounded quotient would give 10).
    assert eager.floor_divide(x, y).numpy().tolist() == [-4.0, -4.0, 3.0, 9.0]
    assert np.isnan(eager.remainder(t([1.0]), t([0.0])).numpy()[0])


@pytest.mark.parametrize("op", ["floor_divide", "remainder", "floor_divide_", "remainder_"])
def test_integer_division_by_zero_is_an_error_that_writes_nothing(op):
    x, y = t([7, 8], "int64"), t([2, 0], "int64")
    with pytest.raises(ValueError, match=f"^{op}: argument 'y' holds a zero divisor"):
        getattr(eager, op)(x, y)
    assert x.numpy().tolist() == [7, 8]


def test_inplace_integer_ops():
    x = t([7, -7], "int64")
    assert eager.floor_divide_(x, t([2, 2], "int64")) is x and x.numpy().tolist() == [3, -4]
    x.remainder_(t([2, 3], "int64"))
    assert x.numpy().tolist() == [1, 2]
    x.bitwise_or_(t([4, 4], "int64"))
    assert x.numpy().tolist() == [5, 6]
    x.bitwise_and_(t([3, 3], "int64"))
    x.bitwise_xor_(t([1, 1], "int64"))
    assert x.numpy().tolist() == [0, 3]


# -- logical and bitwise operators ------------------------------------------------------------------

def test_bitwise_operators_with_tensors_and_scalars():
    a, b = t([12, -3, 0], "int32"), t([10, 5, 7], "int32")
    assert (a & b).numpy().tolist() == [12 & 10, -3 & 5, 0]
    assert (a | b).numpy().tolist() == [12 | 10, -3 | 5, 7]
    assert (a ^ b).numpy().tolist() == [12 ^ 10, -3 ^ 5, 7]
    assert (a & 6).numpy().tolist() == [4, 4, 0] and (6 & a).dtype == eager.int32
    assert (1 | a).numpy().tolist() == [13, -3, 1]
    assert (a ^ 1).numpy().tolist() == [13, -4, 1]
    m, n = t([True, True, False]), t([True, False, False])
    assert (m & n).numpy().tolist() == [True, False, False] and (m & n).dtype == eager.bool
    assert (m | n).numpy().tolist() == [True, True, False]
    assert (m ^ True).numpy().tolist() == [False, False, True]


def test_bitwise_of_floats_is_a_named_error():
    with pytest.raises(ValueError, match="bitwise_and: argument 'x' expected a bool or integer tensor"):
        t([1.0]) & t([2.0])


def test_logical_ops_read_nonzero_as_true():
    x, y = t([0.0, 2.5, -1.0, 0.0]), t([0.0, 0.0, 3.0, 1.0])
    assert eager.logical_and(x, y).numpy().tolist() == [False, False, True, False]
    assert x.logical_or(y).numpy().tolist() == [False, True, True, True]
    assert eager.logical_xor(x, y).numpy().tolist() == [False, True, False, True]


# -- closeness and equality ---------------------------------------------------------------------------

def test_isclose_nan_inf_and_tolerances():
    x = t([1.0, np.nan, np.inf, -np.inf, 1.0, 100.0])
    y = t([1.0 + 1e-9, np.nan, np.inf, np.inf, 1.1, 101.0])
    assert eager.isclose(x, y).numpy().tolist() == [True, False, True, False, False, False]
    assert eager.isclose(x, y, equal_nan=True).numpy().tolist()[1] is True
    assert eager.isclose(x, y, rtol=0.01).numpy().tolist()[5] is True      # |1| <= 0.01 * |101|
    assert eager.isclose(x, y, atol=0.2).numpy().tolist()[4] is True
    out = eager.allclose(x[:1], y[:1])
    assert out.shape == [] and out.dtype == eager.bool and bool(out) is True
    assert bool(eager.allclose(x, y, equal_nan=True)) is False
    with pytest.raises(ValueError, match="isclose: argument 'rtol' expected a finite tolerance >= 0"):
        eager.isclose(x, y, rtol=-1.0)


def test_equal_all_compares_shapes_without_broadcasting():
    a = t([[1, 2], [3, 4]], "int64")
    assert bool(eager.equal_all(a, t([[1, 2], [3, 4]], "int64"))) is True
    assert bool(eager.equal_all(a, t([[1, 2], [3, 5]], "int64"))) is False
    assert bool(eager.equal_all(a, t([1, 2], "int64"))) is False      # broadcastable, still not equal
    assert eager.equal_all(a, a).shape == []
    with pytest.raises(ValueError, match="equal_all: arguments 'x' and 'y' expected the same dtype"):
        eager.equal_all(a, a.astype("float32"))


# -- atan2, hypot, lerp ----------------------------------------------------------------------------------

def test_atan2_quadrants_and_integer_inputs():
    x, y = t([1.0, 1.0, -1.0, -1.0, 0.0]), t([1.0, -1.0, -1.0, 1.0, -1.0])
    want = [math.atan2(a, b) for a, b in zip(x.numpy(), y.numpy())]
    np.testing.assert_allclose(eager.atan2(x, y).numpy(), want, rtol=1e-15)
    ints = eager.atan2(t([1, -2], "int32"), t([1, 1], "int32"))
    assert ints.dtype == eager.float64
    np.testing.assert_allclose(ints.numpy(), [math.atan2(1, 1), math.atan2(-2, 1)], rtol=1e-15)


def test_hypot_avoids_overflow_and_works_in_place():
    big = t([1e300, 3.0])
    np.testing.assert_allclose(eager.hypot(big, t([1e300, 4.0])).numpy(), [math.sqrt(2) * 1e300, 5.0])
    x = t([3.0, 5.0])
    assert x.hypot_(t([4.0, 12.0])) is x and x.numpy().tolist() == [5.0, 13.0]


def test_lerp_takes_a_number_or_a_tensor_weight_and_differentiates_in_all_three():
    x, y = t([0.0, 10.0], stop_gradient=False), t([4.0, 20.0], stop_gradient=False)
    assert eager.lerp(x, y, 0.25).numpy().tolist() == [1.0, 12.5]
    assert x.lerp(y, 0.5).numpy().tolist() == [2.0, 15.0]
    w = t([[0.0], [1.0]], stop_gradient=False)
    out = eager.lerp(x, y, w)
    assert out.numpy().tolist() == [[0.0, 10.0], [4.0, 20.0]]
    rng = np.random.default_rng(1)
    args = [t(rng.uniform(-1, 1, s), stop_gradient=False) for s in ((3,), (2, 1), (2, 3))]
    assert gradcheck(eager.lerp, args) and gradgradcheck(eager.lerp, args)
    z = t([1.0, 2.0])
    assert z.lerp_(t([3.0, 6.0]), 0.5) is z and z.numpy().tolist() == [2.0, 4.0]


# -- fmax and fmin ---------------------------------------------------------------------------------------------

def test_fmax_fmin_ignore_a_nan_side():
    x, y = t([np.nan, 1.0, np.nan, 2.0]), t([3.0, np.nan, np.nan, 1.0])
    got = eager.fmax(x, y).numpy()
    assert got[0] == 3.0 and got[1] == 1.0 and np.isnan(got[2]) and got[3] == 2.0
    got = eager.fmin(x, y).numpy()
    assert got[0] == 3.0 and got[1] == 1.0 and np.isnan(got[2]) and got[3] == 1.0


@pytest.mark.parametrize("op", ["fmax", "fmin"])
def test_fmax_fmin_gradient_goes_to_x_at_ties_and_where_y_is_nan(op):
    # Paddle's FMaxGradDx: (x >= y) || isnan(y); maximum gives ties to y instead.
    x = t([1.0, 2.0, 5.0, 0.0], stop_gradient=False)
    y = t([1.0, np.nan, 3.0, 4.0], stop_gradient=False)
    getattr(eager, op)(x, y).sum().backward()
    x_wins = [True, True, op == "fmax", op == "fmin"]
    assert x.grad.numpy().tolist() == [float(w) for w in x_wins]
    assert y.grad.numpy().tolist() == [float(not w) for w in x_wins]


# -- higher orders through the composite rules ------------------------------------------------------------

THIRD_ORDER = {
    "elementwise_pow": (((2, 3), (3,)), lambda x, y: eager.pow(x, y), (0.5, 2.0)),
    "atan2": (((3,), (3,)), eager.atan2, (0.5, 2.0)),
    "hypot": (((2, 3), (3,)), eager.hypot, (0.5, 2.0)),
    "lerp": (((3,), (2, 3), (3,)), eager.lerp, (-1.0, 1.0)),
}


@pytest.mark.parametrize("name", sorted(THIRD_ORDER))
def test_third_order_gradients(name):
    shapes, func, (low, high) = THIRD_ORDER[name]
    rng = np.random.default_rng(len(name))
    inputs = [t(rng.uniform(low, high, s), stop_gradient=False) for s in shapes]
    grad_out = t(rng.uniform(-1, 1, func(*inputs).shape), stop_gradient=False)
    # gradgradcheck of the gradient function checks func's third derivatives.
    assert gradgradcheck(gradient_function(func, len(inputs)), inputs + [grad_out])
