"""What the op table cannot express for the reduce scan ops: gradients at ties
(Paddle's max vs amax), exact gradients with zeros (prod, cumprod), -inf and
huge inputs, Paddle's dtype rules, clear errors, and higher derivatives."""
import numpy as np
import pytest

import eager
from eager.autograd import gradcheck, gradgradcheck
from eager.autograd.gradient_check import gradient_function


def _leaf(values, dtype="float64"):
    return eager.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


def _grad(fn, x):
    (g,) = eager.grad(fn(x).sum(), x)
    return g.numpy()


# -- ties: max gives every tied element the whole gradient, amax splits it ------------

TIES = [[0.1, 0.9, 0.9, 0.9], [0.9, 0.9, 0.6, 0.7]]


def test_max_gives_every_tied_maximum_the_whole_gradient():
    np.testing.assert_array_equal(_grad(eager.max, _leaf(TIES)), [[0, 1, 1, 1], [1, 1, 0, 0]])


def test_amax_splits_the_gradient_evenly_among_tied_maxima():
    np.testing.assert_allclose(_grad(eager.amax, _leaf(TIES)), [[0, .2, .2, .2], [.2, .2, 0, 0]])


def test_amax_along_an_axis_splits_within_each_group():
    got = _grad(lambda x: eager.amax(x, axis=1), _leaf(TIES))
    np.testing.assert_allclose(got, [[0, 1 / 3, 1 / 3, 1 / 3], [.5, .5, 0, 0]])


def test_min_and_amin_at_ties():
    x = [[2.0, -1.0, -1.0], [3.0, 3.0, 4.0]]
    np.testing.assert_array_equal(_grad(lambda t: eager.min(t, axis=-1), _leaf(x)), [[0, 1, 1], [1, 1, 0]])
    np.testing.assert_allclose(_grad(lambda t: eager.amin(t, axis=-1), _leaf(x)), [[0, .5, .5], [.5, .5, 0]])


def test_max_of_an_empty_set_is_a_clear_error_and_an_empty_result_is_not():
    with pytest.raises(ValueError, match=r"max: argument 'x' of shape \[0, 3\] has no elements along the "
                                         r"reduced axes \[0\]"):
        eager.max(eager.zeros([0, 3]), axis=0)
    with pytest.raises(ValueError, match="amin: argument 'x'"):
        eager.amin(eager.zeros([2, 0]))
    assert eager.max(eager.zeros([0, 3]), axis=1).shape == [0]


# -- zeros: prod and cumprod gradients are the products of the others ---------------------

@pytest.mark.parametrize("values", [[2.0, 0.0, 3.0, 4.0], [0.0, 5.0, 0.0, 2.0], [0.0, 0.0, 0.0, 0.0]])
def test_prod_gradient_is_exact_with_zeros(values):
    want = [np.prod(np.delete(values, i)) for i in range(len(values))]
    np.testing.assert_array_equal(_grad(eager.prod, _leaf(values)), want)


def test_prod_with_zeros_passes_gradcheck_to_second_order():
    x = _leaf([[1.5, 0.0, -2.0], [0.0, 0.0, 0.7]])
    assert gradcheck(lambda t: eager.prod(t, axis=1), [x])
    assert gradgradcheck(lambda t: eager.prod(t, axis=1), [x])


def test_cumprod_gradient_is_exact_with_zeros():
    values = np.array([2.0, 0.0, 3.0, 0.5])
    g = np.array([1.0, -2.0, 0.5, 3.0])
    x = _leaf(values)
    (got,) = eager.grad(eager.cumprod(x, dim=0), x, eager.to_tensor(g))
    want = [sum(g[k] * np.prod(np.delete(values[:k + 1], i)) for k in range(i, 4)) for i in range(4)]
    np.testing.assert_allclose(got.numpy(), want)
    assert gradgradcheck(lambda t: eager.cumprod(t, dim=0), [x])


# -- -inf and overflow ---------------------------------------------------------------------

def test_logsumexp_does_not_overflow_and_handles_minus_infinity():
    x = _leaf([[1000.0, 1000.0], [-np.inf, -np.inf], [-np.inf, 0.0]])
    out = eager.logsumexp(x, axis=1)
    np.testing.assert_allclose(out.numpy(), [1000 + np.log(2), -np.inf, 0.0])
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[.5, .5], [0, 0], [0, 1]])


def test_logcumsumexp_does_not_overflow():
    x = _leaf([800.0, 800.0, -np.inf, 10.0])
    out = eager.logcumsumexp(x)
    np.testing.assert_allclose(out.numpy(), [800, 800 + np.log(2), 800 + np.log(2), 800 + np.log(2)])
    out.sum().backward()
    assert np.isfinite(x.grad.numpy()).all()
    assert x.grad.numpy()[2] == 0


def test_norm_orders_match_their_definitions():
    values = np.array([[3.0, -4.0, 0.0], [1.0, 2.0, -2.0]])
    x = eager.to_tensor(values)
    assert eager.norm(x).numpy() == pytest.approx(np.sqrt(np.sum(values ** 2)))
    np.testing.assert_allclose(eager.norm(x, p=1, axis=1).numpy(), [7, 5])
    np.testing.assert_allclose(eager.norm(x, p=float("inf"), axis=1).numpy(), [4, 2])
    np.testing.assert_allclose(eager.norm(x, p=float("-inf"), axis=1).numpy(), [0, 1])
    np.testing.assert_allclose(eager.norm(x, p=0, axis=1).numpy(), [2, 3])
    np.testing.assert_allclose(eager.norm(x, p=3, axis=[0, 1]).numpy(), np.sum(np.abs(values) ** 3) ** (1 / 3))
    assert eager.norm(eager.to_tensor([np.inf, 1.0]), p=3).numpy() == np.inf
    # Huge values do not overflow the p-th powers.
    assert eager.norm(eager.to_tensor(np.array([1e200, 1e200])), p=3).numpy() == pytest.approx(1e200 * 2 ** (1 / 3))


def test_norm_of_zero_has_a_zero_gradient():
    x = _leaf([0.0, 0.0])
    eager.norm(x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 0])


def test_norm_refuses_other_words_and_more_than_two_axes():
    with pytest.raises(ValueError, match="norm: argument 'p' expected 'fro', inf, -inf or a real number, got 'nuc'"):
        eager.norm(eager.ones([2, 2]), p="nuc")
    with pytest.raises(ValueError, match="norm: argument 'axis' expected None, an int or a list of two ints"):
        eager.norm(eager.ones([2, 2, 2]), axis=[0, 1, 2])


# -- median ---------------------------------------------------------------------------------

def test_median_of_an_even_count_splits_the_gradient_between_the_middle_values():
    x = _leaf([4.0, 1.0, 3.0, 2.0])
    out = eager.median(x)
    assert out.numpy() == 2.5
    out.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 0, .5, .5])


def test_median_shares_a_middle_value_among_equal_elements():
    x = _leaf([[1.0, 2.0, 2.0, 5.0], [3.0, 3.0, 3.0, 0.0]])
    eager.median(x, axis=1).sum().backward()
    # row 0: both middle values are 2 (two elements): 1/4 + 1/4 each; row 1: middle
    # values 3 and 3 held by three elements: 1/3 each.
    np.testing.assert_allclose(x.grad.numpy(), [[0, .5, .5, 0], [1 / 3, 1 / 3, 1 / 3, 0]])


def test_median_follows_paddles_dtypes():
    assert eager.median(eager.to_tensor(np.arange(12, dtype="int64").reshape(3, 4))).dtype == eager.float32
    assert eager.median(eager.ones([3], "float64")).dtype == eager.float64
    np.testing.assert_allclose(eager.median(eager.to_tensor(np.arange(12).reshape(3, 4)), axis=1).numpy(),
                               [1.5, 5.5, 9.5])


# -- Paddle's dtype rules and defaults -----------------------------------------------------------

def test_integer_dtypes_follow_paddle():
    ints = eager.to_tensor(np.array([[1, 2], [3, 4]], dtype="int32"))
    assert eager.cumsum(ints).dtype == eager.int32           # Paddle keeps the dtype (NumPy widens)
    assert eager.prod(ints).dtype == eager.int32
    assert eager.nansum(ints).dtype == eager.int64           # as sum
    assert eager.count_nonzero(ints).dtype == eager.int64
    assert eager.all(ints).dtype == eager.bool and eager.any(ints, axis=0).shape == [2]
    assert eager.cumsum(ints, dtype="float64").dtype == eager.float64


@pytest.mark.parametrize("dtype, expected", [("bool", "int64"), ("int32", "int64"), ("int64", "int64"),
                                             ("int8", "int8"), ("uint8", "uint8"), ("int16", "int16")])
def test_sum_widens_only_bool_and_int32_as_paddles_sum_raw_infer_meta(dtype, expected):
    # Paddle's SumRawInferMeta: without dtype, bool and int32 sum to int64 and every other
    # dtype keeps its own (eager widened int8/uint8/int16 as NumPy and torch do).
    values = np.array([[100, 27], [3, 4]]).astype(dtype)
    x = eager.to_tensor(values)
    for total in (eager.sum(x), x.sum(axis=0), eager.nansum(x) if dtype != "bool" else eager.sum(x, keepdim=True)):
        assert total.dtype == getattr(eager, expected)
    np.testing.assert_array_equal(eager.sum(x).numpy(), values.sum(dtype=expected))  # int8: 134 wraps to -122
    assert eager.sum(x, dtype="int64").dtype == eager.int64  # an explicit dtype still widens


def test_axis_none_and_defaults():
    values = np.arange(1.0, 7.0).reshape(2, 3)
    x = eager.to_tensor(values)
    np.testing.assert_allclose(eager.cumsum(x, axis=None).numpy(), np.cumsum(values))
    assert eager.max(x, axis=None).numpy() == 6
    assert eager.var(x).numpy() == pytest.approx(np.var(values, ddof=1))   # unbiased by default
    assert eager.std(x, unbiased=False).numpy() == pytest.approx(np.std(values))
    np.testing.assert_allclose(x.prod(axis=[0, 1], keepdim=True).numpy(), [[720.0]])


def test_nan_reductions_skip_nans():
    x = _leaf([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    np.testing.assert_allclose(eager.nansum(x, axis=1).numpy(), [4, 0])
    mean = eager.nanmean(x, axis=1)
    np.testing.assert_allclose(mean.numpy(), [2, np.nan])
    eager.nanmean(x, axis=1)[0].backward()
    np.testing.assert_allclose(x.grad.numpy(), [[.5, 0, .5], [0, 0, 0]])


def test_tensor_methods_and_inplace_scans():
    x = eager.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    for name in ("max", "min", "amax", "amin", "prod", "cumsum", "cumprod", "logsumexp", "std", "var", "norm",
                 "all", "any", "nansum", "nanmean", "count_nonzero", "median", "logcumsumexp"):
        assert callable(getattr(x, name)), name
    x.cumsum_(axis=1)
    np.testing.assert_array_equal(x.numpy(), [[1, 3], [3, 7]])
    x.cumprod_(dim=0)
    np.testing.assert_array_equal(x.numpy(), [[1, 3], [3, 21]])


# -- higher derivatives through the composite rules ------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda t: eager.prod(t, axis=1),
    lambda t: eager.logsumexp(t, axis=0),
    lambda t: eager.std(t, axis=1),
    lambda t: eager.norm(t, p=3, axis=1),
    lambda t: eager.cumprod(t, dim=1),
    lambda t: eager.logcumsumexp(t, axis=0),
], ids=["prod", "logsumexp", "std", "norm3", "cumprod", "logcumsumexp"])
def test_third_order_gradients(fn):
    rng = np.random.default_rng(7)
    x = eager.to_tensor(rng.uniform(0.5, 1.5, (2, 3)) * rng.choice([-1, 1], (2, 3)), stop_gradient=False)
    seed = eager.to_tensor(rng.uniform(-1, 1, fn(x).shape), stop_gradient=False)
    assert gradgradcheck(gradient_function(fn, 1), [x, seed])


# -- clear errors before any kernel runs ------------------------------------------------------------

@pytest.mark.parametrize("call, error, message", [
    (lambda: eager.max(eager.to_tensor([True, False])), ValueError,
     "max: argument 'x' expected an integer or floating-point tensor, got dtype paddle.bool"),
    (lambda: eager.logsumexp(eager.to_tensor([1, 2])), ValueError,
     "logsumexp: argument 'x' expected a floating-point tensor"),
    (lambda: eager.cumsum(eager.ones([2, 3]), axis=2), ValueError,
     r"cumsum: argument 'axis' expected an axis in \[-2, 2\) for a 2-d tensor, got 2"),
    (lambda: eager.cumprod(eager.ones([2, 3]), dim=-3), ValueError, "cumprod: argument 'dim' expected an axis"),
    (lambda: eager.var(eager.ones([2, 3]), axis=[0, 0]), ValueError, "var: argument 'axis' lists axis 0 more than once"),
    (lambda: eager.median(eager.ones([2, 3]), axis=[0]), TypeError, "median: argument 'axis' expected an int"),
    (lambda: eager.norm(eager.ones([2]), p=float("nan")), ValueError, "norm: argument 'p' expected 'fro'"),
    (lambda: eager.norm(eager.ones([2, 2]), p=0, axis=[0, 1]), ValueError,
     r"norm: argument 'p' = 0 needs axis None or a single axis"),
    (lambda: eager.ops.max_grad(eager.ones([3, 4]), eager.ones([3]), eager.ones([4]), axis=1), ValueError,
     r"max_grad: argument 'out_grad' expected paddle.float32\[3\] \(the forward op's result\), got paddle.float32\[4\]"),
    (lambda: eager.ops.cumsum_grad(eager.ones([3, 4]), eager.ones([3, 4])), ValueError,
     r"cumsum_grad: argument 'out_grad' expected paddle.float32\[12\]"),
    (lambda: eager.ops.norm_grad(eager.ones([3]), eager.ones([]), eager.ones([]), p="nuc"), ValueError,
     "norm_grad: argument 'p' expected 'fro'"),
])
def test_bad_input_gets_a_clear_error_naming_the_op(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_failed_reduction_leaves_its_input_as_it_was():
    x = eager.to_tensor([[1.0, 2.0]])
    with pytest.raises(ValueError):
        x.cumsum_(axis=5)
    np.testing.assert_array_equal(x.numpy(), [[1.0, 2.0]])
