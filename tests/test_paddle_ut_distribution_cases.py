"""Cases found by re-running the dygraph parts of PaddlePaddle's own unit tests for
``paddle.distribution`` (test/distribution: normal, uniform, categorical, beta,
dirichlet, gamma, exponential, laplace, lognormal, gumbel, multinomial, bernoulli,
binomial, poisson, geometric, cauchy, continuous_bernoulli, multivariate_normal,
lkj_cholesky, independent, transform, transformed_distribution, kl, expfamily) with
``import eager as paddle``, each failure checked against the real Paddle 2.6.2
(classes 2.6.2 lacks against the stored Paddle 3 tests). Each test failed before
its fix:

- Uniform.prob was exp(log_prob): NaN where high < low (log of a negative width);
  Paddle's is ``inside / (high - low)``, zeros there (test_distribution_uniform's
  UniformTest9);
- a float Tensor value of another dtype than the parameters was cast silently;
  Paddle warns (UserWarning, _check_values_dtype_in_probs) in log_prob/prob/cdf
  (the bernoulli and cauchy tests assertWarns);
- Bernoulli computed its logits once in the constructor, so ``probs.stop_gradient
  = False`` set afterwards (as Paddle's tests do) left rsample without a path to
  probs: paddle.grad raised;
- Gamma had no rsample (Paddle 3's: standard_gamma(c) / rate);
- kl_divergence / .kl_divergence with a q of the wrong type raised only
  NotImplementedError; Paddle's Geometric (and Paddle 3's Exponential, Gamma)
  raise TypeError: the error is now both;
- Poisson refused rate 0 (Paddle 3's test_distribution_poisson uses [0, 1000]):
  now the point mass at 0, with 0 log 0 read as 0 in log_prob, entropy and KL;
- lgamma(1) and lgamma(2) were 3.6e-15, not 0 (std::lgamma, Paddle's kernel, gives
  0): log P(0) of a Poisson was not exactly -rate and its entropy at rate 0 not 0;
- ExponentialFamily.entropy of a subclass without _mean_carrier_measure failed
  with an AttributeError from its natural parameters; Paddle reads the carrier
  measure first and raises NotImplementedError (test_distribution_expfamily);
- Transform.forward_shape / inverse_shape turned a list into a tuple; Paddle's
  shape-keeping transforms give the shape back as it came (its tests compare
  ``forward_shape(x.shape)`` with ``[]``);
- LKJCholesky(3.0, ...) raised ValueError; a non-int dim is a TypeError in Paddle's
  test_bad_parameter;
- paddle.distribution.constraint and .variable (in 2.6.2) were missing, and the
  transforms' _domain/_codomain were bare event ranks: now Paddle's Real / Positive /
  Independent / Stack variables with Range / Simplex constraints (test_distribution_
  transform's domain checks, test_distribution_constraint, _variable);
- Dirichlet / Multinomial over zero categories (an empty last axis) were built and
  gave NaN or empty results; Paddle raises ValueError (from its reductions), and
  eager's Categorical already refused it: now a ValueError on construction.
"""
import math
import warnings

import numpy as np
import pytest

import eager
import eager.distribution as D

pytestmark = pytest.mark.usefixtures("device")


def _t(values, dtype="float64", grad=False):
    return eager.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=not grad)


def test_uniform_prob_is_zero_not_nan_when_high_is_below_low():
    low, high = np.array([1.0, 2.0, 0.0]), np.array([0.0, 1.0, 2.0])
    value = np.array([0.5, 1.5, 0.5])
    got = D.Uniform(_t(low), _t(high)).prob(_t(value)).numpy()
    inside = (low <= value) & (value < high)
    np.testing.assert_array_equal(got, inside / (high - low))   # [-0, -0, 0.5]
    assert not np.isnan(got).any()
    # the gradient is the density's
    low, high = _t([0.0, 1.0], grad=True), _t([2.0, 1.5], grad=True)
    D.Uniform(low, high).prob(_t([0.5, 3.0])).sum().backward()
    # d/dlow 1/(h - l) = 1/(h - l)^2 inside; the outside point adds nothing
    np.testing.assert_allclose(low.grad.numpy(), [0.25, 0.0])
    np.testing.assert_allclose(high.grad.numpy(), [-0.25, 0.0])


@pytest.mark.parametrize("make, method", [
    (lambda: D.Normal(_t(0.0, "float32"), _t(1.0, "float32")), "log_prob"),
    (lambda: D.Uniform(_t(0.0, "float32"), _t(1.0, "float32")), "prob"),
    (lambda: D.Bernoulli(_t([0.3], "float32")), "cdf"),
    (lambda: D.Cauchy(_t(0.0, "float32"), _t(1.0, "float32")), "log_prob"),
])
def test_a_value_of_another_float_dtype_is_cast_with_a_warning(make, method):
    d = make()
    with pytest.warns(UserWarning, match=r"argument 'value' of dtype paddle.float64 is cast"):
        out = getattr(d, method)(_t([0.3], "float64"))
    assert out.dtype == eager.float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(d, method)(_t([0.3], "float32"))      # same dtype: no warning


def test_bernoulli_probs_made_trainable_after_construction_reach_rsample():
    rv = D.Bernoulli(_t([0.3, 0.6], "float32"))
    rv.probs.stop_gradient = False
    eager.seed(3)
    draws = rv.rsample([50])
    (grad,) = eager.grad([eager.nn.functional.sigmoid(draws)], [rv.probs])
    assert grad.shape == [2] and grad.dtype == eager.float32
    # d logit / dp = 1 / (p (1 - p)), times sum of sigmoid' over the draws
    s = 1.0 / (1.0 + np.exp(-draws.numpy().astype(np.float64)))
    p = np.array([0.3, 0.6])
    np.testing.assert_allclose(grad.numpy(), (s * (1 - s)).sum(0) / (p * (1 - p)), rtol=1e-4)


def test_gamma_rsample_shapes_and_gradient_to_rate():
    conc, rate = _t([0.5, 3.0]), _t([2.0, 0.5], grad=True)
    d = D.Gamma(conc, rate)
    assert d.rsample([]).shape == [2] and d.rsample([3, 2]).shape == [3, 2, 2]
    eager.seed(5)
    draws = d.rsample([4000])
    assert draws.dtype == eager.float64
    np.testing.assert_allclose(draws.numpy().mean(0), [0.25, 6.0], rtol=0.1)
    (grad,) = eager.grad([draws], [rate])
    # x = g / rate with g ~ Gamma(c, 1): dx/drate = -x / rate
    np.testing.assert_allclose(grad.numpy(), -draws.numpy().sum(0) / rate.numpy(), rtol=1e-10)


@pytest.mark.parametrize("p, q", [
    (lambda: D.Geometric(_t([0.3])), lambda: D.Beta),              # a class, as Paddle's tests pass
    (lambda: D.Gamma(_t([1.0]), _t([1.0])), lambda: D.Beta(_t([1.0]), _t([2.0]))),
    (lambda: D.Cauchy(0.0, 1.0), lambda: np.array(1.0)),
])
def test_kl_of_a_wrong_type_is_a_type_error_and_not_implemented(p, q):
    with pytest.raises(TypeError, match="no KL divergence is registered"):
        p().kl_divergence(q())
    with pytest.raises(NotImplementedError, match="no KL divergence is registered"):
        D.kl_divergence(p(), q())


def test_poisson_rate_zero_is_the_point_mass_at_zero():
    d = D.Poisson(_t([0.0, 2.0]))
    np.testing.assert_array_equal(d.log_prob(_t([0.0, 0.0])).numpy(), [0.0, -2.0])
    assert d.log_prob(_t([1.0, 1.0])).numpy()[0] == -np.inf
    entropy = d.entropy().numpy()
    assert entropy[0] == 0.0
    k = np.arange(0, 60)
    pmf = np.exp(k * np.log(2.0) - 2.0 - np.array([math.lgamma(v + 1) for v in k]))
    np.testing.assert_allclose(entropy[1], -(pmf * np.log(pmf)).sum(), rtol=1e-10)
    # KL(Poisson(0) || Poisson(q)) = q
    kl = D.kl_divergence(D.Poisson(_t([0.0])), D.Poisson(_t([1.5])))
    np.testing.assert_allclose(kl.numpy(), [1.5])
    with pytest.raises(ValueError, match=r"Poisson: argument 'rate' expected values >= 0"):
        D.Poisson(-0.5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lgamma_is_exactly_zero_at_one_and_two(dtype):
    out = eager.lgamma(_t([1.0, 2.0, 3.0], dtype)).numpy()
    assert out[0] == 0.0 and out[1] == 0.0
    np.testing.assert_allclose(out[2], math.log(2.0), rtol=1e-6)


def test_exponential_family_entropy_without_carrier_measure_is_not_implemented():
    class Dummy(D.ExponentialFamily):
        def __init__(self):
            pass

        @property
        def _natural_parameters(self):
            return (1.0,)   # not a Tensor: must not be touched before the carrier measure

        def _log_normalizer(self, x):
            return -eager.log(-x)

    with pytest.raises(NotImplementedError, match="mean carrier measure"):
        D.ExponentialFamily.entropy(Dummy())


def test_shape_keeping_transforms_give_the_shape_back_as_it_came():
    x = _t(1.0, "float32")
    for t in (D.AbsTransform(), D.ExpTransform(), D.TanhTransform(), D.SigmoidTransform(),
              D.ChainTransform([D.ExpTransform(), D.TanhTransform()])):
        assert t.forward_shape(x.shape) == [] and isinstance(t.forward_shape(x.shape), list)
        assert t.inverse_shape([2, 3]) == [2, 3] and isinstance(t.inverse_shape([2, 3]), list)
        assert t.forward_shape((2, 3)) == (2, 3)
    # transforms that compute a shape give a tuple, as Paddle's
    assert D.AffineTransform(eager.zeros([]), eager.ones([])).forward_shape(x.shape) == ()
    assert D.StickBreakingTransform().forward_shape([2, 3, 5]) == (2, 3, 6)
    assert D.StickBreakingTransform().inverse_shape([2, 3, 5]) == (2, 3, 4)
    with pytest.raises(TypeError, match="a shape must be a list or tuple of ints"):
        D.ExpTransform().forward_shape(0)


def test_lkj_cholesky_float_dim_is_a_type_error():
    with pytest.raises(TypeError, match=r"LKJCholesky: argument 'dim' expected an int >= 2, got float 3.0"):
        D.LKJCholesky(3.0, 1.0)
    with pytest.raises(ValueError, match=r"LKJCholesky: argument 'dim' expected an int >= 2, got 1"):
        D.LKJCholesky(1, 1.0)


def test_transform_domains_are_paddle_variables():
    from eager.distribution import constraint, variable
    cases = [
        (D.AbsTransform(), variable.Real, variable.Positive, 0, 0),
        (D.ExpTransform(), variable.Real, variable.Positive, 0, 0),
        (D.PowerTransform(_t([2.0])), variable.Real, variable.Positive, 0, 0),
        (D.AffineTransform(_t([0.0]), _t([1.0])), variable.Real, variable.Real, 0, 0),
        (D.TanhTransform(), variable.Real, variable.Variable, 0, 0),
        (D.SoftmaxTransform(), variable.Independent, variable.Variable, 1, 1),
        (D.StickBreakingTransform(), variable.Independent, variable.Variable, 1, 1),
        (D.ReshapeTransform((2, 3), (6,)), variable.Independent, variable.Independent, 2, 1),
        (D.IndependentTransform(D.ExpTransform(), 2), variable.Independent, variable.Independent, 2, 2),
        (D.StackTransform([D.ExpTransform()], 0), variable.Stack, variable.Stack, 0, 0),
    ]
    for t, domain, codomain, d_rank, c_rank in cases:
        assert isinstance(t._domain, domain) and isinstance(t._codomain, codomain), type(t).__name__
        assert (t._domain.event_rank, t._codomain.event_rank) == (d_rank, c_rank), type(t).__name__
        assert t._domain.is_discrete is False
    tanh_range = D.TanhTransform()._codomain._constraint
    assert isinstance(tanh_range, constraint.Range) and (tanh_range._lower, tanh_range._upper) == (-1.0, 1.0)
    chain = D.ChainTransform([D.IndependentTransform(D.ExpTransform(), 1), D.IndependentTransform(D.ExpTransform(), 10),
                              D.IndependentTransform(D.ExpTransform(), 8)])
    assert isinstance(chain._domain, variable.Independent) and chain._domain.event_rank == 10


def test_constraints_and_variables_check_values():
    from eager.distribution import constraint, variable
    x = _t([-1.0, 0.0, 0.5, 2.0, np.nan])
    np.testing.assert_array_equal(constraint.real(x).numpy(), [True, True, True, True, False])
    np.testing.assert_array_equal(constraint.positive(x).numpy(), [False, True, True, True, False])
    np.testing.assert_array_equal(constraint.Range(0.0, 1.0)(x).numpy(), [False, True, True, False, False])
    assert constraint.Range(0, 1).check(0.5) is True and constraint.Range(0, 1).check(2) is False
    np.testing.assert_array_equal(constraint.simplex(_t([[0.5, 0.5], [-0.5, 1.5], [0.2, 0.7]])).numpy(),
                                  [True, False, False])
    with pytest.raises(NotImplementedError):
        constraint.Constraint().check(x)
    with pytest.raises(NotImplementedError):
        variable.Variable(False, 0, constraint.Constraint()).constraint(1)
    np.testing.assert_array_equal(variable.Independent(variable.positive, 1).constraint(
        _t([[1.0, 2.0], [1.0, -2.0]])).numpy(), [True, False])
    with pytest.raises(ValueError, match="at least 10 dimensions"):
        variable.Independent(variable.real, 10).constraint(_t(np.ones((2, 3, 4))))
    stack = variable.Stack([variable.positive, variable.real], 0)
    assert stack.is_discrete is False and stack.event_rank == 0
    np.testing.assert_array_equal(stack.constraint(_t([[-1.0, 1.0], [-1.0, 1.0]])).numpy(),
                                  [[False, True], [True, True]])
    with pytest.raises(ValueError, match="axis 10 is out of range"):
        variable.Stack([variable.real], 10).constraint(_t(np.ones((2, 3, 4))))


@pytest.mark.parametrize("make, name", [
    (lambda: D.Dirichlet(_t(np.zeros((0,)))), r"Dirichlet: argument 'concentration'"),
    (lambda: D.Dirichlet(_t(np.ones((2, 0)))), r"Dirichlet: argument 'concentration'"),
    (lambda: D.Multinomial(3, _t(np.zeros((0,)))), r"Multinomial: argument 'probs'"),
])
def test_zero_categories_are_refused(make, name):
    with pytest.raises(ValueError, match=name + r" expected at least one category on its last axis"):
        make()
    # an empty batch with categories is fine
    assert D.Dirichlet(_t(np.ones((0, 3)))).entropy().shape == [0]
