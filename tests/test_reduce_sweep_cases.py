"""Cases a random differential sweep of the reductions, scans and statistics
(sum ... count_nonzero, std/var, cumsum ... logcumsumexp, median/nanmedian/
quantile, diff, trace, kron, inner/outer/dot/mv/addmm, isclose/allclose/
equal_all, logical/bitwise ops, clip, sign, nan_to_num, increment, histogram,
bincount, logit, lerp, heaviside, gcd/lcm, frac/trunc/round) against NumPy,
PyTorch and Paddle's kernels found. Each test failed before its fix:

- logit: the gradient outside [0, 1] (eps None or 0) was 1 / (x (1 - x)) where
  Paddle's logit_grad gives 0, NaN at 0 and 1 where Paddle's is infinite, and
  eps=0 gave -inf/inf outside [0, 1] where Paddle's kernel gives NaN.
- median ignored a NaN in the reduced values (NumPy's sort puts it last);
  Paddle's median is NaN there. An odd count's median was (x + x) / 2, which
  overflows near the dtype's largest value.
- nanmedian interpolated linearly, low + (high - low) * w: an infinite middle
  element gave NaN (nanmedian([-inf]), nanmedian([-inf, 1])) where Paddle's
  kernel gives the element or the mean of the two.
- logsumexp_grad shifted a non-finite result to 0: logsumexp([inf, 1]) had the
  gradient [inf, e] where Paddle's exp(x - out) gives [NaN, 0]; a NaN in x left
  the other elements finite. amax/amin_grad divided by max(ties, 1), so a NaN
  extreme gave 0 where Paddle's g / ties (and the composite) give NaN;
  logcumsumexp_grad zeroed the NaN of a NaN or +inf element. In each case the first-order kernel also
  disagreed with the op's own composite (second-order) gradient.
- nanmedian took an empty axis list and reduced over nothing; Paddle refuses it
  (quantile and nanquantile read it as every axis in Paddle 2.6.2:
  test_paddle_ut_shape_cases.py).
- float16 cumsum (and cumprod, and cumsum's gradient) accumulated in float16:
  a running sum of 0.1s stalled at 256. Paddle's GPU scan accumulates in float32.
  So did NumPy's float16 sum down a strided axis, in sum, nansum, mean (on the
  CPU), nanmean, var/std, logsumexp, norm and the sum of a broadcast gradient:
  they now sum float16 in float32 (CuPy's float16 sum does so on a GPU).
"""
import math

import numpy as np
import pytest

import eager
from torch_reference import needs_torch, torch

pytestmark = pytest.mark.usefixtures("device")


def _grad(f, values, dtype="float64", create_graph=False):
    x = eager.to_tensor(np.asarray(values, dtype=dtype))
    x.stop_gradient = False
    out = f(x)
    if create_graph:
        (g,) = eager.grad(out.sum(), x, create_graph=True)
        return out.numpy(), g.numpy()
    out.sum().backward()
    return out.numpy(), x.grad.numpy()


# -- logit ------------------------------------------------------------------------------

@pytest.mark.parametrize("eps", [None, 0.0])
@pytest.mark.parametrize("create_graph", [False, True])
def test_logit_gradient_is_paddles_outside_and_at_the_ends_of_0_1(eps, create_graph):
    values = [0.0, 1.0, 0.25, -0.1, 1.2]
    out, grad = _grad(lambda t: eager.logit(t, eps=eps), values, create_graph=create_graph)
    # Paddle's LogitGradFunctor: 0 where x < eps or x > 1 - eps, else 1 / (x (1 - x)).
    expected = [math.inf, math.inf, 1 / (0.25 * 0.75), 0.0, 0.0]
    np.testing.assert_allclose(grad, expected, rtol=1e-12)
    # Its forward: log(x / (1 - x)), NaN outside [0, 1] when eps is 0.
    np.testing.assert_allclose(out, [-math.inf, math.inf, math.log(1 / 3), math.nan, math.nan], rtol=1e-12)


def test_logit_with_eps_still_clips_and_stops_the_gradient_there():
    out, grad = _grad(lambda t: eager.logit(t, eps=0.1), [0.0, 0.1, 0.5, 0.95])
    np.testing.assert_allclose(out, [math.log(1 / 9), math.log(1 / 9), 0.0, math.log(9)], rtol=1e-12)
    np.testing.assert_allclose(grad, [0.0, 1 / (0.1 * 0.9), 4.0, 0.0], rtol=1e-12)


@needs_torch
def test_logit_inside_0_1_matches_torch_to_second_order():
    values = np.array([0.05, 0.3, 0.5, 0.77, 0.99])
    _, grad = _grad(eager.logit, values, create_graph=True)
    t = torch.tensor(values, requires_grad=True)
    (expected,) = torch.autograd.grad(torch.logit(t).sum(), t)
    np.testing.assert_allclose(grad, expected.numpy(), rtol=1e-12)


# -- median / nanmedian --------------------------------------------------------------------

def test_median_of_values_holding_nan_is_nan():
    x = eager.to_tensor(np.array([[math.nan, 1.0, 2.0], [3.0, 1.0, 2.0], [4.0, math.nan, 5.0]]))
    got = eager.median(x, axis=1).numpy()
    assert np.isnan(got[0]) and np.isnan(got[2]) and got[1] == 2.0
    assert np.isnan(eager.median(x).numpy())
    assert np.isnan(eager.median(eager.to_tensor(np.array([math.nan, 1.0, 2.0, 3.0]))).numpy())
    assert np.isnan(eager.median(x, axis=1, keepdim=True).numpy()[[0, 2], 0]).all()


def test_median_of_an_odd_count_is_the_middle_element_without_overflow():
    big = np.float32(3e38)
    assert eager.median(eager.to_tensor(np.array([big], dtype="float32"))).numpy() == big
    assert eager.median(eager.to_tensor(np.array([big, big, 1.0], dtype="float32"))).numpy() == big
    # An even count stays the mean of the two middle elements (Paddle's 'avg').
    assert eager.median(eager.to_tensor([1.0, 2.0, 4.0, 8.0])).numpy() == 3.0


@pytest.mark.parametrize("values, expected", [
    ([-math.inf], -math.inf),
    ([math.inf, math.nan], math.inf),
    ([-math.inf, 1.0], -math.inf),            # (-inf + 1) / 2
    ([-math.inf, math.nan, 1.0, 3.0], 1.0),
    ([1.0, math.inf], math.inf),
    ([-math.inf, math.inf], math.nan),
])
def test_nanmedian_of_infinite_middle_elements_is_paddles_middle_or_mean(values, expected):
    got = eager.nanmedian(eager.to_tensor(np.array(values))).numpy()
    np.testing.assert_equal(got, expected)
    # The same as NumPy's nanmedian (a mean of the two middle ones as well).
    np.testing.assert_equal(got, np.nanmedian(np.array(values)))


def test_nanmedian_gradient_still_goes_to_the_middle_elements():
    _, grad = _grad(lambda t: eager.nanmedian(t, axis=1), [[math.nan, 2.0, 3.0, 5.0], [0.0, 1.0, 2.0, 4.0]])
    np.testing.assert_array_equal(grad, [[0.0, 0.0, 1.0, 0.0], [0.0, 0.5, 0.5, 0.0]])


@pytest.mark.parametrize("axis", [[], ()])
def test_nanmedian_refuses_an_empty_axis_list(axis):
    x = eager.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match=r"nanmedian: argument 'axis' expected an int or "
                                         r"a non-empty list of axes, got (\[\]|\(\))"):
        eager.nanmedian(x, axis=axis)
    np.testing.assert_array_equal(x.numpy(), [[1.0, 2.0], [3.0, 4.0]])


# -- gradients at +inf / NaN: Paddle's formulas, first order = composite ------------------------

@pytest.mark.parametrize("create_graph", [False, True])
def test_logsumexp_gradient_is_exp_of_x_minus_out(create_graph):
    # Paddle's logsumexp_grad: g * exp(x - out).
    _, grad = _grad(lambda t: eager.logsumexp(t, axis=-1), [[math.inf, 1.0], [math.nan, 1.0], [0.5, 1.0]],
                    create_graph=create_graph)
    np.testing.assert_equal(grad[0], [math.nan, 0.0])       # exp(inf - inf), exp(1 - inf)
    np.testing.assert_equal(grad[1], [math.nan, math.nan])
    total = math.exp(0.5) + math.exp(1.0)
    np.testing.assert_allclose(grad[2], [math.exp(0.5) / total, math.exp(1.0) / total], rtol=1e-12)
    # A group of -inf only keeps its zero gradient (the documented exception).
    _, grad = _grad(lambda t: eager.logsumexp(t), [-math.inf, -math.inf], create_graph=create_graph)
    np.testing.assert_array_equal(grad, [0.0, 0.0])


@pytest.mark.parametrize("op", ["amax", "amin"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_amax_amin_gradient_of_a_nan_extreme_is_nan(op, create_graph):
    f = getattr(eager, op)
    out, grad = _grad(lambda t: f(t, axis=-1), [[math.nan, 1.0, 2.0], [1.0, 2.0, 2.0]], create_graph=create_graph)
    assert np.isnan(out[0])
    # Paddle: g * (x == out) / sum(x == out); no element equals NaN, so 0 / 0.
    assert np.isnan(grad[0]).all()
    expected = [0.0, 0.5, 0.5] if op == "amax" else [1.0, 0.0, 0.0]
    np.testing.assert_array_equal(grad[1], expected)


def test_max_gradient_of_a_nan_extreme_stays_zero():
    # max/min: g * (x == out), no division (Paddle's max_grad).
    _, grad = _grad(lambda t: eager.max(t, axis=-1), [[math.nan, 1.0, 2.0], [1.0, 2.0, 2.0]])
    np.testing.assert_array_equal(grad, [[0.0, 0.0, 0.0], [0.0, 1.0, 1.0]])


@pytest.mark.parametrize("create_graph", [False, True])
def test_logcumsumexp_gradient_of_a_line_holding_nan_is_nan(create_graph):
    values = [[2.0, 0.0, math.nan], [1.0, 2.0, 0.5]]
    _, grad = _grad(lambda t: eager.logcumsumexp(t, axis=-1), values, create_graph=create_graph)
    assert np.isnan(grad[0]).all()
    # +inf: exp(inf - inf) is NaN at it; before it, exp(1 - out_0) + exp(1 - inf) = 1 + 0.
    _, grad_inf = _grad(lambda t: eager.logcumsumexp(t, axis=-1), [[1.0, math.inf]], create_graph=create_graph)
    np.testing.assert_equal(grad_inf, [[1.0, math.nan]])
    # dx_i = sum_{k >= i} exp(x_i - out_k) for the finite line, by hand.
    line = np.array(values[1])
    outs = np.log(np.cumsum(np.exp(line)))
    expected = [sum(math.exp(line[i] - outs[k]) for k in range(i, 3)) for i in range(3)]
    np.testing.assert_allclose(grad[1], expected, rtol=1e-12)


# -- float16 scans accumulate in float32 ---------------------------------------------------------

def test_float16_cumsum_and_its_gradient_do_not_stall():
    # A float16 running sum of 0.1s stopped at 256 (0.1 is under half the spacing
    # there); Paddle's GPU scan accumulates in float32 (its MPType).
    steps = np.full(5000, 0.1, dtype="float16")
    expected = np.cumsum(steps.astype("float32")).astype("float16")
    x = eager.to_tensor(steps)
    x.stop_gradient = False
    out = eager.cumsum(x)
    assert out.dtype == eager.float16
    np.testing.assert_array_equal(out.numpy(), expected)
    out.backward(eager.ones_like(out))
    assert x.grad.dtype == eager.float16
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(5000, 0, -1).astype("float16"))
    inplace = eager.to_tensor(steps)
    inplace.cumsum_()
    np.testing.assert_array_equal(inplace.numpy(), expected)
    # cumprod takes the same path.
    factors = np.full(200, 1.01, dtype="float16")
    np.testing.assert_array_equal(eager.cumprod(eager.to_tensor(factors), dim=0).numpy(),
                                  np.cumprod(factors.astype("float32")).astype("float16"))


# -- float16 sums accumulate in float32 ----------------------------------------------------------

_TENTHS = np.full((20000, 2), 0.1, dtype="float16")  # summed down axis 0: a strided reduction
_TOTAL = float(np.sum(_TENTHS.astype("float64"), axis=0)[0])  # 1999.5 (float16's 0.1 is a bit under)


@pytest.mark.parametrize("op, expected", [
    (lambda x: eager.sum(x, axis=0), _TOTAL),
    (lambda x: eager.sum(x, axis=0, dtype="float16"), _TOTAL),
    (lambda x: eager.nansum(x, axis=0), _TOTAL),
    (lambda x: eager.nanmean(x, axis=0), _TOTAL / 20000),
    (lambda x: eager.var(x, axis=0), 0.0),
    (lambda x: eager.std(x, axis=0), 0.0),
    (lambda x: eager.logsumexp(x, axis=0), math.log(20000 * math.exp(float(np.float16(0.1))))),
    (lambda x: eager.norm(x, p=2, axis=0), math.sqrt(20000 * float(np.float16(0.1)) ** 2)),
    (lambda x: eager.norm(x, p=1, axis=0), _TOTAL),
    (lambda x: eager.norm(x, p=3, axis=0), (20000 * float(np.float16(0.1)) ** 3) ** (1 / 3)),
])
def test_float16_reductions_sum_in_float32(op, expected):
    # NumPy summed float16 in float16: down a strided axis the total stalled at 256
    # (mean 0.0128, var 0.0008 of a constant); Paddle's kernels accumulate in float32.
    got = op(eager.to_tensor(_TENTHS))
    assert got.dtype == eager.float16
    np.testing.assert_allclose(got.numpy().astype(np.float64), [expected, expected], rtol=2e-3, atol=1e-6)


def test_float16_mean_on_the_cpu_sums_in_float32(device):
    if device != "cpu":
        pytest.skip("CuPy's own float16 sum accumulates in float32 (the fake's NumPy one does not)")
    np.testing.assert_allclose(eager.mean(eager.to_tensor(_TENTHS), axis=0).numpy().astype(np.float64),
                               [_TOTAL / 20000] * 2, rtol=1e-3)


def test_float16_broadcast_gradient_sums_in_float32():
    # A bias broadcast over 20000 rows: its gradient is the sum of the rows' gradients.
    bias = eager.to_tensor(np.zeros(2, dtype="float16"))
    bias.stop_gradient = False
    (eager.to_tensor(_TENTHS) + bias).backward(eager.to_tensor(_TENTHS))
    np.testing.assert_allclose(bias.grad.numpy().astype(np.float64), [_TOTAL] * 2, rtol=2e-3)
