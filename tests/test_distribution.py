"""eager.distribution against independent references.

Densities are checked against the formulas written in NumPy/math here;
entropy, mean, variance and KL divergence against numerical integration (or
summation) of the density, which shares nothing with the closed forms the
package uses; gradients against finite differences (gradcheck, float64);
draws by their moments with a fixed seed.
"""
import math

import numpy as np
import pytest

import eager
import eager.distribution as D
from eager.autograd import gradcheck
from eager.distribution import kl as kl_module

F64 = "float64"


def t64(values, grad=False):
    return eager.to_tensor(np.asarray(values, dtype=F64), stop_gradient=not grad)


def np_of(x):
    return np.asarray(x.numpy(), dtype=F64)


lgamma = np.vectorize(math.lgamma)


def integrate(f, lo, hi, n=400001):
    x = np.linspace(lo, hi, n)
    return np.trapezoid(f(x), x) if hasattr(np, "trapezoid") else np.trapz(f(x), x)


# --- continuous distributions: (factory, NumPy density, integration range) ---

CONTINUOUS = {
    "Normal": (lambda: D.Normal(t64(0.7), t64(1.3)),
               lambda x: np.exp(-0.5 * ((x - 0.7) / 1.3) ** 2) / (1.3 * math.sqrt(2 * math.pi)), (-15, 16)),
    "Uniform": (lambda: D.Uniform(t64(-1.0), t64(2.5)),
                lambda x: np.where((x >= -1) & (x < 2.5), 1 / 3.5, 0.0), (-1, 2.5)),
    "Exponential": (lambda: D.Exponential(t64(1.7)), lambda x: 1.7 * np.exp(-1.7 * x), (0, 40)),
    "Laplace": (lambda: D.Laplace(t64(0.3), t64(0.8)),
                lambda x: np.exp(-np.abs(x - 0.3) / 0.8) / 1.6, (-30, 30)),
    "Gumbel": (lambda: D.Gumbel(t64(0.5), t64(2.0)),
               lambda x: np.exp(-((x - 0.5) / 2 + np.exp(-(x - 0.5) / 2))) / 2.0, (-15, 120)),
    "LogNormal": (lambda: D.LogNormal(t64(0.2), t64(0.5)),
                  lambda x: np.exp(-0.5 * ((np.log(x) - 0.2) / 0.5) ** 2) / (x * 0.5 * math.sqrt(2 * math.pi)),
                  (1e-9, 60)),
    "Gamma": (lambda: D.Gamma(t64(2.5), t64(1.5)),
              lambda x: np.exp(2.5 * math.log(1.5) + 1.5 * np.log(x) - 1.5 * x - math.lgamma(2.5)), (1e-12, 60)),
    "Beta": (lambda: D.Beta(t64(2.0), t64(3.5)),
             lambda x: x ** 1.0 * (1 - x) ** 2.5 * math.exp(math.lgamma(5.5) - math.lgamma(2.0) - math.lgamma(3.5)),
             (0, 1)),
}


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_log_prob_matches_the_density_written_in_numpy(name):
    make, density, (lo, hi) = CONTINUOUS[name]
    d = make()
    grid = np.linspace(lo, hi, 20001)[1:-1]
    grid = grid[density(grid) > 1e-6]
    x = grid[np.linspace(0, len(grid) - 1, 7).astype(int)]
    np.testing.assert_allclose(np_of(d.log_prob(t64(x))), np.log(density(x)), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(np_of(d.prob(t64(x))), density(x), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_entropy_mean_variance_match_numerical_integration(name):
    make, density, (lo, hi) = CONTINUOUS[name]
    d = make()

    def plogp(x):
        p = density(x)
        return np.where(p > 0, -p * np.log(np.where(p > 0, p, 1.0)), 0.0)

    np.testing.assert_allclose(float(d.entropy()), integrate(plogp, lo, hi), rtol=2e-4, atol=2e-4)
    mean = integrate(lambda x: x * density(x), lo, hi)
    np.testing.assert_allclose(float(d.mean), mean, rtol=2e-4, atol=2e-4)
    var = integrate(lambda x: (x - mean) ** 2 * density(x), lo, hi)
    np.testing.assert_allclose(float(d.variance), var, rtol=2e-3, atol=2e-4)


def test_cauchy_against_its_density_and_has_no_mean():
    c = D.Cauchy(t64(0.5), t64(2.0))
    x = np.array([-3.0, 0.0, 0.5, 7.0])
    ref = 1 / (math.pi * 2.0 * (1 + ((x - 0.5) / 2.0) ** 2))
    np.testing.assert_allclose(np_of(c.log_prob(t64(x))), np.log(ref), rtol=1e-12)
    np.testing.assert_allclose(np_of(c.cdf(t64(x))), np.arctan((x - 0.5) / 2) / math.pi + 0.5, rtol=1e-12)
    # entropy: -int p log p over a wide range plus the analytic tails is log(4 pi scale)
    lo, hi = -2e4, 2e4
    p = lambda v: 1 / (math.pi * 2.0 * (1 + ((v - 0.5) / 2.0) ** 2))
    numeric = integrate(lambda v: -p(v) * np.log(p(v)), lo, hi, 4000001)
    assert abs(float(c.entropy()) - numeric) < 2e-3
    with pytest.raises(ValueError, match="Cauchy has no mean"):
        c.mean
    with pytest.raises(ValueError, match="Cauchy has no variance"):
        c.variance


KL_PAIRS = {
    "Normal": (lambda: D.Normal(t64(0.3), t64(0.9)), lambda: D.Normal(t64(-0.5), t64(1.7)), (-20, 20)),
    "Uniform": (lambda: D.Uniform(t64(0.0), t64(1.0)), lambda: D.Uniform(t64(-1.0), t64(3.0)), (0, 1)),
    "Exponential": (lambda: D.Exponential(t64(2.0)), lambda: D.Exponential(t64(0.7)), (0, 60)),
    "Laplace": (lambda: D.Laplace(t64(0.0), t64(1.0)), lambda: D.Laplace(t64(1.5), t64(2.0)), (-60, 60)),
    "LogNormal": (lambda: D.LogNormal(t64(0.0), t64(0.5)), lambda: D.LogNormal(t64(0.4), t64(0.8)), (1e-6, 40)),
    "Gamma": (lambda: D.Gamma(t64(2.0), t64(1.0)), lambda: D.Gamma(t64(3.0), t64(2.0)), (1e-9, 60)),
    "Beta": (lambda: D.Beta(t64(2.0), t64(3.0)), lambda: D.Beta(t64(1.5), t64(1.2)), (1e-9, 1 - 1e-9)),
    "Cauchy": (lambda: D.Cauchy(t64(0.0), t64(1.0)), lambda: D.Cauchy(t64(1.0), t64(2.0)), (-3e4, 3e4)),
    "Gumbel": (lambda: D.Gumbel(t64(0.5), t64(1.0)), lambda: D.Gumbel(t64(-0.3), t64(1.6)), (-10, 60)),
}


@pytest.mark.parametrize("name", sorted(KL_PAIRS))
def test_kl_divergence_matches_the_integral_of_p_log_p_over_q(name):
    make_p, make_q, (lo, hi) = KL_PAIRS[name]
    p, q = make_p(), make_q()
    n = 4000001 if name == "Cauchy" else 400001

    def integrand(x):
        xs = t64(x)
        lp, lq = np_of(p.log_prob(xs)), np_of(q.log_prob(xs))
        return np.where(np.isfinite(lp), np.exp(lp) * (lp - lq), 0.0)

    expected = integrate(integrand, lo, hi, n)
    got = float(D.kl_divergence(p, q))
    assert abs(got - expected) < 5e-4 * max(1.0, abs(expected)), (got, expected)
    assert float(p.kl_divergence(p)) == pytest.approx(0.0, abs=1e-12)


def test_uniform_kl_is_inf_when_q_does_not_cover_p():
    kl = D.kl_divergence(D.Uniform(0.0, 2.0), D.Uniform(0.5, 3.0))
    assert np.isinf(kl.numpy())


# --- discrete distributions: sums over the support ---

def pmf_sum(d, ks, f):
    lp = np_of(d.log_prob(t64(ks)))
    return np.sum(np.exp(lp) * f(ks, lp))


DISCRETE = {
    "Poisson": (lambda: D.Poisson(t64(3.5)), np.arange(0, 80),
                lambda k: k * math.log(3.5) - 3.5 - lgamma(k + 1)),
    "Geometric": (lambda: D.Geometric(t64(0.3)), np.arange(0, 400), lambda k: k * math.log(0.7) + math.log(0.3)),
    "Binomial": (lambda: D.Binomial(12, t64(0.35)), np.arange(0, 13),
                 lambda k: lgamma(13) - lgamma(k + 1) - lgamma(13 - k) + k * math.log(0.35) + (12 - k) * math.log(0.65)),
    "Bernoulli": (lambda: D.Bernoulli(t64(0.2)), np.array([0.0, 1.0]), lambda k: np.log(np.where(k == 1, 0.2, 0.8))),
}


@pytest.mark.parametrize("name", sorted(DISCRETE))
def test_discrete_log_prob_entropy_mean_variance_against_sums(name):
    make, ks, log_pmf = DISCRETE[name]
    d = make()
    ks = ks.astype(F64)
    np.testing.assert_allclose(np_of(d.log_prob(t64(ks))), log_pmf(ks), rtol=1e-9, atol=1e-9)
    assert pmf_sum(d, ks, lambda k, lp: np.ones_like(k)) == pytest.approx(1.0, abs=1e-9)
    mean = pmf_sum(d, ks, lambda k, lp: k)
    np.testing.assert_allclose(float(d.mean), mean, rtol=1e-8)
    np.testing.assert_allclose(float(d.variance), pmf_sum(d, ks, lambda k, lp: (k - mean) ** 2), rtol=1e-7)
    np.testing.assert_allclose(float(d.entropy()), pmf_sum(d, ks, lambda k, lp: -lp), rtol=1e-8)


DISCRETE_KL = {
    "Poisson": (lambda: D.Poisson(t64(2.0)), lambda: D.Poisson(t64(5.0)), np.arange(0, 80)),
    "Geometric": (lambda: D.Geometric(t64(0.4)), lambda: D.Geometric(t64(0.1)), np.arange(0, 300)),
    "Binomial": (lambda: D.Binomial(9, t64(0.3)), lambda: D.Binomial(9, t64(0.6)), np.arange(0, 10)),
    "Bernoulli": (lambda: D.Bernoulli(t64(0.3)), lambda: D.Bernoulli(t64(0.75)), np.array([0, 1])),
}


@pytest.mark.parametrize("name", sorted(DISCRETE_KL))
def test_discrete_kl_divergence_against_sums(name):
    make_p, make_q, ks = DISCRETE_KL[name]
    p, q = make_p(), make_q()
    lp, lq = np_of(p.log_prob(t64(ks.astype(F64)))), np_of(q.log_prob(t64(ks.astype(F64))))
    np.testing.assert_allclose(float(D.kl_divergence(p, q)), np.sum(np.exp(lp) * (lp - lq)), rtol=1e-8)


def test_categorical_matches_paddles_documented_values():
    # Paddle's docs: probs and log_prob read logits / sum; sample, entropy and kl read softmax(logits)
    x = np.array([0.55355281, 0.20714243, 0.01162981, 0.51577556, 0.36369765, 0.26091650], "float32")
    y = np.array([0.77663314, 0.90824795, 0.15685187, 0.04279523, 0.34468332, 0.79557180], "float32")
    cat, cat2 = D.Categorical(eager.to_tensor(x)), D.Categorical(eager.to_tensor(y))
    value = eager.to_tensor([2, 1, 3])
    np.testing.assert_allclose(cat.probs(value).numpy(), [0.00608027, 0.10829761, 0.26965630], rtol=1e-5)
    np.testing.assert_allclose(cat.log_prob(value).numpy(), [-5.1027074, -2.2228723, -1.3106071], rtol=1e-5)
    assert cat.entropy().shape == [] and float(cat.entropy()) == pytest.approx(1.77528250, rel=1e-6)
    kl = cat.kl_divergence(cat2)
    assert kl.shape == [1] and float(kl[0]) == pytest.approx(0.07195196, rel=1e-5)


def test_categorical_entropy_and_kl_against_loops():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(3, 5)), rng.normal(size=(3, 5))
    p = np.exp(a) / np.exp(a).sum(-1, keepdims=True)
    q = np.exp(b) / np.exp(b).sum(-1, keepdims=True)
    ca, cb = D.Categorical(t64(a)), D.Categorical(t64(b))
    for row in range(3):
        ent = -sum(p[row, k] * math.log(p[row, k]) for k in range(5))
        kl = sum(p[row, k] * math.log(p[row, k] / q[row, k]) for k in range(5))
        assert np_of(ca.entropy())[row] == pytest.approx(ent, rel=1e-12)
        assert np_of(D.kl_divergence(ca, cb))[row, 0] == pytest.approx(kl, rel=1e-12)


def test_categorical_probs_layouts_follow_paddle():
    w = np.array([[1.0, 2.0, 1.0], [3.0, 1.0, 0.0]])
    c = D.Categorical(t64(w))
    probs = w / w.sum(-1, keepdims=True)
    # a 1-d value is looked up in every batch row
    np.testing.assert_allclose(np_of(c.probs(eager.to_tensor([0, 1]))), probs[:, [0, 1]])
    # a value of batch_shape + [n] row by row
    got = np_of(c.probs(eager.to_tensor([[2], [0]])))
    np.testing.assert_allclose(got, [[probs[0, 2]], [probs[1, 0]]])


def test_dirichlet_and_multinomial_against_formulas():
    c = np.array([1.5, 2.0, 3.0])
    d = D.Dirichlet(t64(c))
    x = np.array([0.2, 0.3, 0.5])
    ref = np.sum((c - 1) * np.log(x)) + math.lgamma(c.sum()) - np.sum(lgamma(c))
    assert float(d.log_prob(t64(x))) == pytest.approx(ref, rel=1e-12)
    s = c.sum()
    np.testing.assert_allclose(np_of(d.mean), c / s)
    np.testing.assert_allclose(np_of(d.variance), c * (s - c) / (s * s * (s + 1)))
    # entropy by Monte Carlo on exact log densities at many draws would be noisy; check the
    # Beta special case: Dirichlet([a, b]) is Beta(a, b) on its first coordinate
    d2, b = D.Dirichlet(t64([2.0, 3.5])), D.Beta(t64(2.0), t64(3.5))
    ent_beta = integrate(lambda v: -CONTINUOUS["Beta"][1](v) * np.log(np.maximum(CONTINUOUS["Beta"][1](v), 1e-300)), 0, 1)
    assert float(d2.entropy()) == pytest.approx(ent_beta, abs=2e-4)
    assert float(b.entropy()) == pytest.approx(ent_beta, abs=2e-4)
    kl_ref = integrate(lambda v: _beta_kl_integrand(v), 1e-9, 1 - 1e-9)
    kl = D.kl_divergence(D.Dirichlet(t64([2.0, 3.0])), D.Dirichlet(t64([1.5, 1.2])))
    assert float(kl) == pytest.approx(kl_ref, abs=5e-4)

    m = D.Multinomial(4, t64([0.2, 0.3, 0.5]))
    p = np.array([0.2, 0.3, 0.5])
    support = [(i, j, 4 - i - j) for i in range(5) for j in range(5 - i)]
    log_pmf = {}
    for v in support:
        log_pmf[v] = math.lgamma(5) - sum(math.lgamma(k + 1) for k in v) + sum(k * math.log(pk) for k, pk in zip(v, p))
        assert float(m.log_prob(t64(v))) == pytest.approx(log_pmf[v], rel=1e-10)
    assert sum(math.exp(v) for v in log_pmf.values()) == pytest.approx(1.0)
    assert float(m.entropy()) == pytest.approx(-sum(math.exp(v) * v for v in log_pmf.values()), rel=1e-10)
    np.testing.assert_allclose(np_of(m.mean), 4 * p)
    np.testing.assert_allclose(np_of(m.variance), 4 * p * (1 - p))


def _beta_kl_integrand(v):
    lp = np.log(v) * 1.0 + np.log1p(-v) * 2.0 - (math.lgamma(2) + math.lgamma(3) - math.lgamma(5))
    lq = np.log(v) * 0.5 + np.log1p(-v) * 0.2 - (math.lgamma(1.5) + math.lgamma(1.2) - math.lgamma(2.7))
    return np.exp(lp) * (lp - lq)


# --- gradients against finite differences ---

GRADS = {
    "Normal.log_prob": (lambda a, b: D.Normal(a, b).log_prob(t64([0.1, -0.4])), [0.3, 1.2]),
    "Normal.entropy": (lambda a, b: D.Normal(a, b).entropy(), [0.3, 1.2]),
    "Normal.kl": (lambda a, b: D.kl_divergence(D.Normal(a, b), D.Normal(t64(0.5), t64(0.8))), [0.3, 1.2]),
    "Uniform.log_prob": (lambda a, b: D.Uniform(a, b).log_prob(t64([0.5])), [0.1, 2.0]),
    "Uniform.kl": (lambda a, b: D.kl_divergence(D.Uniform(a, b), D.Uniform(t64(-1.0), t64(3.0))), [0.1, 2.0]),
    "Laplace.log_prob": (lambda a, b: D.Laplace(a, b).log_prob(t64([0.9, -1.0])), [0.3, 0.7]),
    "Laplace.kl": (lambda a, b: D.kl_divergence(D.Laplace(a, b), D.Laplace(t64(0.0), t64(1.5))), [0.3, 0.7]),
    "LogNormal.log_prob": (lambda a, b: D.LogNormal(a, b).log_prob(t64([0.9, 2.0])), [0.3, 0.7]),
    "Gumbel.log_prob": (lambda a, b: D.Gumbel(a, b).log_prob(t64([0.9, -1.0])), [0.3, 0.7]),
    "Gumbel.kl": (lambda a, b: D.kl_divergence(D.Gumbel(a, b), D.Gumbel(t64(1.0), t64(2.0))), [0.3, 0.7]),
    "Cauchy.kl": (lambda a, b: D.kl_divergence(D.Cauchy(a, b), D.Cauchy(t64(1.0), t64(2.0))), [0.3, 0.7]),
    "Gamma.log_prob": (lambda a, b: D.Gamma(a, b).log_prob(t64([0.9, 2.0])), [1.3, 0.7]),
    "Gamma.entropy": (lambda a, b: D.Gamma(a, b).entropy(), [1.3, 0.7]),
    "Gamma.kl": (lambda a, b: D.kl_divergence(D.Gamma(a, b), D.Gamma(t64(2.0), t64(1.5))), [1.3, 0.7]),
    "Beta.log_prob": (lambda a, b: D.Beta(a, b).log_prob(t64([0.2, 0.7])), [1.3, 0.7]),
    "Beta.kl": (lambda a, b: D.kl_divergence(D.Beta(a, b), D.Beta(t64(2.0), t64(1.5))), [1.3, 0.7]),
    "Exponential.kl": (lambda a, b: D.kl_divergence(D.Exponential(a), D.Exponential(b)), [1.3, 0.7]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_match_finite_differences(name):
    fn, values = GRADS[name]
    a, b = t64(values[0], grad=True), t64(values[1], grad=True)
    assert gradcheck(fn, (a, b), eps=1e-6, atol=1e-6, rtol=1e-4)


@pytest.mark.parametrize("name", ["Normal", "Uniform", "Laplace", "LogNormal", "Gumbel", "Cauchy", "Exponential"])
def test_rsample_gradients_match_finite_differences(name):
    make = {
        "Normal": lambda a, b: D.Normal(a, b), "Uniform": lambda a, b: D.Uniform(a, a + b),
        "Laplace": lambda a, b: D.Laplace(a, b), "LogNormal": lambda a, b: D.LogNormal(a, b),
        "Gumbel": lambda a, b: D.Gumbel(a, b), "Cauchy": lambda a, b: D.Cauchy(a, b),
        "Exponential": lambda a, b: D.Exponential(a * b),
    }[name]

    def draw(a, b):
        eager.seed(7)  # the same noise at every evaluation
        return make(a, b).rsample([4])

    a, b = t64(0.4, grad=True), t64(0.9, grad=True)
    assert gradcheck(draw, (a, b), eps=1e-6, atol=1e-6, rtol=1e-4)
    assert not draw(a, b).stop_gradient


def test_dirichlet_multinomial_categorical_bernoulli_gradients():
    c = t64([1.5, 2.0, 3.0], grad=True)
    assert gradcheck(lambda c: D.Dirichlet(c).log_prob(t64([0.2, 0.3, 0.5])), (c,), atol=1e-6, rtol=1e-4)
    assert gradcheck(lambda c: D.Dirichlet(c).entropy(), (c,), atol=1e-6, rtol=1e-4)
    assert gradcheck(lambda c: D.kl_divergence(D.Dirichlet(c), D.Dirichlet(t64([1.0, 1.0, 2.0]))), (c,),
                     atol=1e-6, rtol=1e-4)
    p = t64([0.2, 0.3, 0.5], grad=True)
    assert gradcheck(lambda p: D.Multinomial(5, p).log_prob(t64([1.0, 1.0, 3.0])), (p,), atol=1e-6, rtol=1e-4)
    logits = t64([[0.3, -1.0, 2.0]], grad=True)
    assert gradcheck(lambda l: D.Categorical(l).entropy(), (logits,), atol=1e-6, rtol=1e-4)
    assert gradcheck(lambda l: D.Categorical(l).kl_divergence(D.Categorical(t64([[1.0, 0.0, 0.5]]))), (logits,),
                     atol=1e-6, rtol=1e-4)
    w = t64([0.2, 0.5, 0.3], grad=True)
    assert gradcheck(lambda w: D.Categorical(w).log_prob(eager.to_tensor([2, 0])), (w,), atol=1e-6, rtol=1e-4)
    pb = t64([0.3, 0.8], grad=True)
    assert gradcheck(lambda p: D.Bernoulli(p).log_prob(t64([1.0, 0.0])), (pb,), atol=1e-6, rtol=1e-4)
    assert gradcheck(lambda p: D.Bernoulli(p).entropy(), (pb,), atol=1e-6, rtol=1e-4)
    pois = t64([2.5], grad=True)
    assert gradcheck(lambda r: D.Poisson(r).log_prob(t64([3.0])), (pois,), atol=1e-6, rtol=1e-4)
    assert gradcheck(lambda r: D.Poisson(r).entropy(), (pois,), atol=1e-6, rtol=1e-4)


def test_bernoulli_relaxed_rsample_carries_gradient_to_probs():
    p = t64([0.3, 0.8], grad=True)

    def draw(p):
        eager.seed(3)
        return D.Bernoulli(p).rsample([5], temperature=0.5)

    assert gradcheck(draw, (p,), atol=1e-6, rtol=1e-4)
    # as Paddle's, the draw is a logit: sigmoid of it is in (0, 1), and at a low temperature
    # it is nearly a 0/1 draw with P(1) = p
    eager.seed(5)
    relaxed = 1 / (1 + np.exp(-np_of(D.Bernoulli(t64([0.3, 0.8])).rsample([20000], temperature=0.05))))
    assert np.all((relaxed >= 0) & (relaxed <= 1))
    np.testing.assert_allclose((relaxed > 0.5).mean(0), [0.3, 0.8], atol=0.015)
    assert np.mean((relaxed < 0.01) | (relaxed > 0.99)) > 0.9


# --- sampling: moments, shapes, seeds ---

MOMENTS = {
    "Normal": lambda: D.Normal(t64([0.5, -1.0]), t64([1.0, 2.0])),
    "Uniform": lambda: D.Uniform(t64([0.0, -2.0]), t64([1.0, 3.0])),
    "Exponential": lambda: D.Exponential(t64([0.5, 3.0])),
    "Laplace": lambda: D.Laplace(t64([0.0, 1.0]), t64([1.0, 0.5])),
    "LogNormal": lambda: D.LogNormal(t64([0.0, 0.3]), t64([0.3, 0.5])),
    "Gumbel": lambda: D.Gumbel(t64([0.0, 1.0]), t64([1.0, 0.5])),
    "Gamma": lambda: D.Gamma(t64([0.3, 4.0]), t64([1.0, 2.0])),
    "Beta": lambda: D.Beta(t64([0.5, 2.0]), t64([0.5, 5.0])),
    "Poisson": lambda: D.Poisson(t64([0.7, 6.0])),
    "Geometric": lambda: D.Geometric(t64([0.3, 0.8])),
    "Binomial": lambda: D.Binomial(np.array([5, 20]), t64([0.3, 0.6])),
    "Bernoulli": lambda: D.Bernoulli(t64([0.1, 0.6])),
}


@pytest.mark.parametrize("name", sorted(MOMENTS))
def test_sample_moments_match_mean_and_variance(name):
    d = MOMENTS[name]()
    eager.seed(123)
    n = 40000
    draws = np_of(d.sample([n]))
    assert draws.shape == (n, 2)
    mean, var = np_of(d.mean), np_of(d.variance)
    # the sample mean is within 5 standard errors; the variance within 10%
    assert np.all(np.abs(draws.mean(0) - mean) < 5 * np.sqrt(var / n)), (draws.mean(0), mean)
    np.testing.assert_allclose(draws.var(0), var, rtol=0.1)


def test_categorical_dirichlet_multinomial_sample_frequencies():
    eager.seed(5)
    probs = np.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]])
    # sample() reads its argument as logits (softmax), as Paddle's does
    draws = D.Categorical(t64(np.log(probs) + 3.0)).sample([20000]).numpy()
    assert draws.shape == (20000, 2) and draws.dtype == np.int64
    for row in range(2):
        freq = np.bincount(draws[:, row], minlength=3) / 20000
        np.testing.assert_allclose(freq, probs[row], atol=0.015)
    dr = np_of(D.Dirichlet(t64([1.0, 2.0, 5.0])).sample([20000]))
    np.testing.assert_allclose(dr.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(dr.mean(0), [1 / 8, 2 / 8, 5 / 8], atol=0.01)
    mu = np_of(D.Multinomial(6, t64([0.2, 0.3, 0.5])).sample([20000]))
    assert np.all(mu.sum(-1) == 6)
    np.testing.assert_allclose(mu.mean(0), [1.2, 1.8, 3.0], atol=0.05)


@pytest.mark.parametrize("make, batch, event", [
    (lambda: D.Normal(np.zeros((2, 3)), 1.0), (2, 3), ()),
    (lambda: D.Uniform(0.0, [1.0, 2.0]), (2,), ()),
    (lambda: D.Categorical(np.ones((4, 5))), (4,), ()),
    (lambda: D.Bernoulli([[0.5], [0.2]]), (2, 1), ()),
    (lambda: D.Dirichlet(np.ones((2, 3))), (2,), (3,)),
    (lambda: D.Multinomial(3, np.ones((2, 4))), (2,), (4,)),
    (lambda: D.Gamma(np.ones(3), 2.0), (3,), ()),
    (lambda: D.Independent(D.Normal(np.zeros((2, 3)), 1.0), 1), (2,), (3,)),
])
def test_sample_shape_is_sample_shape_plus_batch_plus_event(make, batch, event):
    d = make()
    assert d.batch_shape == batch and d.event_shape == event
    for shape in ([], [5], (2, 3)):
        assert tuple(d.sample(shape).shape) == tuple(shape) + batch + event


def test_independent_sums_log_prob_over_reinterpreted_dims():
    base = D.Normal(t64(np.zeros((2, 3))), t64(np.ones((2, 3))))
    ind = D.Independent(base, 1)
    x = np.arange(6.0).reshape(2, 3) / 10
    np.testing.assert_allclose(np_of(ind.log_prob(t64(x))), np_of(base.log_prob(t64(x))).sum(-1))
    np.testing.assert_allclose(np_of(ind.entropy()), np_of(base.entropy()).sum(-1))
    beta = D.Independent(D.Beta(t64([0.5, 0.5]), t64([0.5, 0.5])), 1)
    assert float(beta.log_prob(t64([0.2, 0.2]))) == pytest.approx(-0.45687842, rel=1e-6)  # Paddle's doc value


@pytest.mark.parametrize("name", sorted(MOMENTS) + ["Categorical", "Dirichlet", "Multinomial"])
def test_eager_seed_makes_draws_reproducible(name):
    make = MOMENTS.get(name) or {
        "Categorical": lambda: D.Categorical(t64([0.2, 0.8])),
        "Dirichlet": lambda: D.Dirichlet(t64([0.5, 2.0])),
        "Multinomial": lambda: D.Multinomial(5, t64([0.2, 0.8])),
    }[name]
    d = make()
    eager.seed(99)
    first = d.sample([50]).numpy()
    eager.seed(99)
    np.testing.assert_array_equal(d.sample([50]).numpy(), first)
    eager.seed(100)
    assert not np.array_equal(d.sample([50]).numpy(), first)


def test_which_draws_carry_gradients():
    # Paddle's Normal, Uniform and LogNormal sample() are reparameterized (scripts such as
    # SAC actors backpropagate through them); the others' sample() are not, rsample() is
    loc = eager.to_tensor([0.0], stop_gradient=False)
    for d in (D.Normal(loc, 1.0), D.Uniform(loc, 1.0), D.LogNormal(loc, 1.0)):
        assert not d.sample([3]).stop_gradient
        assert not d.rsample([3]).stop_gradient
    for d in (D.Laplace(loc, 1.0), D.Exponential(loc + 1.0), D.Gumbel(loc, 1.0), D.Cauchy(loc, 1.0),
              D.Bernoulli(loc + 0.5), D.Gamma(loc + 1.0, 1.0)):
        assert d.sample([3]).stop_gradient
    D.Normal(loc, 1.0).sample([3]).sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [3.0])


# --- parameters, kl dispatch, errors ---

def test_parameter_kinds_and_dtypes():
    assert D.Normal(0.0, 1.0).batch_shape == () and D.Normal(0.0, 1.0).loc.dtype.value == "float32"
    assert D.Normal([0.0], [1.0]).loc.dtype.value == "float32"
    assert D.Normal(np.zeros(2), 1.0).loc.dtype.value == "float64"
    assert D.Normal(np.zeros(2, "float32"), 1.0).scale.dtype.value == "float32"
    assert D.Normal(np.zeros(2, "int64"), 1).loc.dtype.value == "float32"
    d = D.Normal(t64([1.0, 2.0]), 3.0)
    assert d.scale.dtype.value == "float64" and d.scale.shape == [2]
    assert D.Normal(np.zeros((3, 1)), np.ones(4)).batch_shape == (3, 4)


def test_kl_dispatch_picks_the_most_specific_registration():
    class Wide(D.Normal):
        pass

    class Wider(Wide):
        pass

    @D.register_kl(Wide, D.Normal)
    def _wide(p, q):
        return "wide"

    try:
        n = D.Normal(0.0, 1.0)
        assert D.kl_divergence(Wider(0.0, 1.0), n) == "wide"  # (Wide, Normal) beats (Normal, Normal)
        assert float(D.kl_divergence(n, Wider(0.0, 1.0))) == 0.0  # only (Normal, Normal) matches
    finally:
        del kl_module._REGISTRY[Wide, D.Normal]
    with pytest.raises(NotImplementedError, match="no KL divergence is registered for p of type Normal "
                                                  "and q of type Uniform"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Uniform(0.0, 1.0))
    with pytest.raises(TypeError, match="register_kl: argument 'cls_q' expected a Distribution class"):
        D.register_kl(D.Normal, "Normal")


@pytest.mark.parametrize("call, error, message", [
    (lambda: D.Normal("0", 1.0), TypeError, r"Normal: argument 'loc' expected a number, list, tuple, NumPy array or Tensor, got str"),
    (lambda: D.Normal(True, 1.0), TypeError, r"Normal: argument 'loc' expected .* got bool"),
    (lambda: D.Normal(eager.to_tensor([1, 2]), 1.0), TypeError, r"Normal: argument 'loc' expected a float32 or float64 Tensor, got a Tensor of dtype paddle.int64"),
    (lambda: D.Normal([0.0, 1.0], [1.0, 1.0, 1.0]), ValueError, r"Normal: the parameters' shapes cannot be broadcast together: loc \[2\], scale \[3\]"),
    (lambda: D.Normal(t64(0.0), eager.to_tensor(1.0)), TypeError, r"Normal: the Tensor parameters expected one dtype"),
    (lambda: D.Gamma(0.0, 1.0), ValueError, r"Gamma: argument 'concentration' expected values > 0, got 0.0"),
    (lambda: D.Gamma(1.0, [1.0, -2.0]), ValueError, r"Gamma: argument 'rate' expected values > 0, got -2.0"),
    (lambda: D.Exponential(-1.0), ValueError, r"Exponential: argument 'rate' expected values > 0"),
    (lambda: D.Laplace(0.0, 0.0), ValueError, r"Laplace: argument 'scale' expected values > 0"),
    (lambda: D.Cauchy(0.0, -1.0), ValueError, r"Cauchy: argument 'scale' expected values > 0"),
    (lambda: D.Beta(1.0, 0.0), ValueError, r"Beta: argument 'beta' expected values > 0"),
    (lambda: D.Dirichlet(1.0), ValueError, r"Dirichlet: argument 'concentration' expected at least 1 dimension"),
    (lambda: D.Poisson(-0.5), ValueError, r"Poisson: argument 'rate' expected values >= 0"),
    (lambda: D.Bernoulli(1.5), ValueError, r"Bernoulli: argument 'probs' expected probabilities in \[0, 1\], got 1.5"),
    (lambda: D.Geometric(0.0), ValueError, r"Geometric: argument 'probs' expected probabilities in \(0, 1\]"),
    (lambda: D.Binomial(0, 0.5), ValueError, r"Binomial: argument 'total_count' expected integers > 0, got 0"),
    (lambda: D.Binomial(2.5, 0.5), TypeError, r"Binomial: argument 'total_count' expected an int or an integer Tensor, got float"),
    (lambda: D.Multinomial(0, [0.5, 0.5]), ValueError, r"Multinomial: argument 'total_count' expected an int >= 1, got 0"),
    (lambda: D.Categorical(1.0), ValueError, r"Categorical: argument 'logits' expected at least 1 dimension"),
    (lambda: D.Categorical([0.5, 0.5]).probs([0]), TypeError, r"Categorical.probs: argument 'value' expected an integer Tensor, got list"),
    (lambda: D.Normal(0.0, 1.0).sample(3), TypeError, r"Normal.sample: argument 'shape' expected a list or tuple of ints, got int"),
    (lambda: D.Normal(0.0, 1.0).sample([2.5]), TypeError, r"Normal.sample: argument 'shape' expected non-negative ints"),
    (lambda: D.Normal(0.0, 1.0).log_prob("x"), TypeError, r"Normal.log_prob: argument 'value' expected a number, list, NumPy array or Tensor, got str"),
    (lambda: D.Bernoulli(0.5).rsample([2], temperature=0), ValueError, r"Bernoulli.rsample: argument 'temperature' expected a number > 0"),
    (lambda: D.Independent(D.Normal(0.0, 1.0), 1), ValueError, r"Independent: argument 'reinterpreted_batch_rank' expected an int in \[1, 0\]"),
    (lambda: D.Independent("normal", 1), TypeError, r"Independent: argument 'base' expected a Distribution, got str"),
    (lambda: D.Categorical([0.5, 0.5]).rsample([2]), NotImplementedError, r"Categorical has no rsample"),
    (lambda: D.Beta(1.0, 1.0).rsample([2]), NotImplementedError, r"Beta has no rsample"),
    (lambda: D.kl_divergence(D.Binomial(3, 0.5), D.Binomial(4, 0.5)), ValueError, r"different total_count"),
])
def test_bad_arguments_raise_clear_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_failed_construction_leaves_the_parameters_untouched():
    rate = eager.to_tensor([1.0, -1.0], stop_gradient=False)
    with pytest.raises(ValueError):
        D.Gamma(1.0, rate)
    np.testing.assert_array_equal(rate.numpy(), [1.0, -1.0])
    assert rate.grad is None


def test_the_package_is_reachable_as_paddle_distribution():
    paddle = eager
    assert paddle.distribution.Normal is D.Normal
    assert set(D.__all__) >= {"Distribution", "Normal", "Uniform", "Categorical", "Bernoulli", "Beta",
                              "Dirichlet", "Exponential", "Gamma", "Laplace", "LogNormal", "Gumbel", "Cauchy",
                              "Geometric", "Multinomial", "Poisson", "Binomial", "Independent",
                              "kl_divergence", "register_kl", "TransformedDistribution", "Transform",
                              "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform",
                              "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
                              "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "TanhTransform"}
    assert all(hasattr(D, name) for name in D.__all__)


# --- the GPU (tests/fake_cupy.py without a real one) ---

def on_device(tensor, device):
    return ("gpu" in str(tensor.place).lower()) == (device == "gpu")


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("name", sorted(MOMENTS))
def test_every_method_runs_on_the_current_device(name, device):
    eager.seed(1)
    d, other = MOMENTS[name](), MOMENTS[name]()
    draws = d.sample([8])
    assert draws.shape == [8, 2] and on_device(draws, device)
    lp = d.log_prob(draws)
    assert on_device(lp, device) and np.all(np.isfinite(lp.numpy()))
    for value in (d.entropy(), d.mean, d.variance, D.kl_divergence(d, other)):
        assert on_device(value, device) and np.all(np.isfinite(value.numpy()))
    np.testing.assert_allclose(D.kl_divergence(d, other).numpy(), 0.0, atol=1e-9)
    if name in ("Normal", "Uniform", "Laplace", "LogNormal", "Gumbel", "Exponential"):
        assert on_device(d.rsample([2]), device)


@pytest.mark.usefixtures("device")
def test_vector_distributions_and_transforms_on_the_current_device(device):
    eager.seed(2)
    c = D.Categorical(eager.to_tensor([[0.2, 0.8], [0.6, 0.4]]))
    s = c.sample([6])
    assert s.shape == [6, 2] and on_device(s, device)
    assert on_device(c.log_prob(s[0]), device) and on_device(c.entropy(), device)
    dirichlet = D.Dirichlet(eager.to_tensor([1.0, 2.0]))
    draws = dirichlet.sample([3])
    assert draws.shape == [3, 2] and on_device(draws, device) and on_device(dirichlet.log_prob(draws), device)
    m = D.Multinomial(4, eager.to_tensor([0.3, 0.7]))
    counts = m.sample([5])
    assert on_device(counts, device) and np.all(counts.numpy().sum(-1) == 4)
    assert on_device(m.log_prob(counts), device) and on_device(m.entropy(), device)
    simplex = D.TransformedDistribution(D.Normal(eager.zeros([2]), 1.0), [D.StickBreakingTransform()])
    y = simplex.rsample([4])
    assert y.shape == [4, 3] and on_device(y, device) and on_device(simplex.log_prob(y), device)
    ind = D.Independent(D.Cauchy(eager.zeros([3]), 1.0), 1)
    assert on_device(ind.log_prob(ind.sample([2])), device)
    kl = D.kl_divergence(D.Normal(eager.to_tensor([0.0]), 1.0), D.Normal(1.0, 1.0))
    assert float(kl[0]) == pytest.approx(0.5)


# --- transforms and TransformedDistribution ---

ELEMENTWISE = {
    "Exp": (lambda: D.ExpTransform(), np.exp, np.array([-1.0, 0.3, 2.0])),
    "Sigmoid": (lambda: D.SigmoidTransform(), lambda x: 1 / (1 + np.exp(-x)), np.array([-3.0, 0.3, 2.0])),
    "Tanh": (lambda: D.TanhTransform(), np.tanh, np.array([-2.0, 0.3, 1.5])),
    "Affine": (lambda: D.AffineTransform(t64(1.5), t64(-2.0)), lambda x: 1.5 - 2.0 * x, np.array([-1.0, 0.3, 2.0])),
    "Power": (lambda: D.PowerTransform(t64(2.5)), lambda x: x ** 2.5, np.array([0.2, 1.0, 3.0])),
    "Chain": (lambda: D.ChainTransform([D.AffineTransform(t64(0.5), t64(2.0)), D.TanhTransform()]),
              lambda x: np.tanh(0.5 + 2 * x), np.array([-0.5, 0.1, 0.4])),
    "Stack": (lambda: D.StackTransform([D.ExpTransform(), D.SigmoidTransform(), D.TanhTransform()], 0),
              lambda x: np.array([np.exp(x[0]), 1 / (1 + np.exp(-x[1])), np.tanh(x[2])]), np.array([0.2, -1.0, 0.7])),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_transforms_forward_inverse_and_log_det_against_numpy(name):
    make, f, x = ELEMENTWISE[name]
    t = make()
    y = t.forward(t64(x))
    np.testing.assert_allclose(np_of(y), f(x), rtol=1e-12)
    np.testing.assert_allclose(np_of(t.inverse(y)), x, rtol=1e-9, atol=1e-12)
    h = 1e-6
    slope = (f(x + h) - f(x - h)) / (2 * h)
    np.testing.assert_allclose(np_of(t.forward_log_det_jacobian(t64(x))), np.log(np.abs(slope)), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(np_of(t.inverse_log_det_jacobian(y)), -np.log(np.abs(slope)), rtol=1e-6, atol=1e-7)
    assert tuple(t.forward_shape((4, 3))) == (4, 3)


def test_stick_breaking_maps_onto_the_simplex_with_the_numerical_log_det():
    t = D.StickBreakingTransform()
    x = np.array([0.3, -1.2, 0.8])
    y = np_of(t.forward(t64(x)))
    assert y.shape == (4,) and y.sum() == pytest.approx(1.0) and np.all(y > 0)
    np.testing.assert_allclose(np_of(t.inverse(t64(y))), x, rtol=1e-9)
    h = 1e-6
    jac = np.stack([(np_of(t.forward(t64(x + h * e)))[:-1] - np_of(t.forward(t64(x - h * e)))[:-1]) / (2 * h)
                    for e in np.eye(3)], axis=1)
    assert float(t.forward_log_det_jacobian(t64(x))) == pytest.approx(np.log(abs(np.linalg.det(jac))), rel=1e-6)
    assert t.forward_shape((5, 3)) == (5, 4) and t.inverse_shape((5, 4)) == (5, 3)


def test_other_transforms():
    x = t64([[0.5, -2.0, 1.0]])
    sm = np_of(D.SoftmaxTransform().forward(x))
    np.testing.assert_allclose(sm, np.exp([[0.5, -2.0, 1.0]]) / np.exp([[0.5, -2.0, 1.0]]).sum())
    neg, pos = D.AbsTransform().inverse(t64([1.5]))
    assert np_of(neg).tolist() == [-1.5] and np_of(pos).tolist() == [1.5]
    r = D.ReshapeTransform((2, 3), (3, 2))
    assert r.forward(t64(np.ones((4, 2, 3)))).shape == [4, 3, 2] and r.forward_shape((4, 2, 3)) == (4, 3, 2)
    assert r.forward_log_det_jacobian(t64(np.ones((4, 2, 3)))).shape == [4]
    ind = D.IndependentTransform(D.ExpTransform(), 1)
    assert float(ind.forward_log_det_jacobian(t64([0.5, 1.5]))) == pytest.approx(2.0)
    chain = D.ExpTransform()(D.AffineTransform(0.0, 2.0))  # a Transform called on a Transform chains them
    assert isinstance(chain, D.ChainTransform)
    assert float(chain.forward(t64(0.5))) == pytest.approx(2 * math.exp(0.5))


def test_transformed_distribution_matches_closed_forms():
    x = t64([0.3, 1.0, 2.5])
    log_normal = D.TransformedDistribution(D.Normal(t64(0.2), t64(0.5)), [D.ExpTransform()])
    np.testing.assert_allclose(np_of(log_normal.log_prob(x)), np_of(D.LogNormal(t64(0.2), t64(0.5)).log_prob(x)),
                               rtol=1e-12)
    affine = D.AffineTransform(t64(1.0), t64(3.0))(D.Normal(t64(0.5), t64(2.0)))
    assert isinstance(affine, D.TransformedDistribution)
    np.testing.assert_allclose(np_of(affine.log_prob(x)), np_of(D.Normal(t64(2.5), t64(6.0)).log_prob(x)), rtol=1e-12)
    # a logit-normal on (0, 1): the density integrates to one
    logit = D.TransformedDistribution(D.Normal(t64(0.3), t64(1.1)), [D.SigmoidTransform()])
    total = integrate(lambda v: np.exp(np_of(logit.log_prob(t64(v)))), 1e-9, 1 - 1e-9, 200001)
    assert total == pytest.approx(1.0, abs=1e-4)
    eager.seed(4)
    draws = np_of(logit.sample([20000]))
    assert np.all((draws > 0) & (draws < 1))
    mean = integrate(lambda v: v * np.exp(np_of(logit.log_prob(t64(v)))), 1e-9, 1 - 1e-9, 200001)
    assert abs(draws.mean() - mean) < 0.01


def test_transformed_distribution_shapes_and_gradients():
    base = D.Independent(D.Normal(t64(np.zeros((5, 2))), t64(np.ones((5, 2)))), 1)
    simplex = D.TransformedDistribution(base, [D.StickBreakingTransform()])
    assert simplex.batch_shape == (5,) and simplex.event_shape == (3,)
    draws = simplex.sample([4])
    assert draws.shape == [4, 5, 3]
    np.testing.assert_allclose(np_of(draws).sum(-1), 1.0)
    assert simplex.log_prob(draws).shape == [4, 5]
    # a batch Normal through a 1-event-rank transform is made Independent first
    assert D.TransformedDistribution(D.Normal(t64(np.zeros(2)), t64(1.0)),
                                     [D.StickBreakingTransform()]).event_shape == (3,)
    loc = t64(0.3, grad=True)

    def draw(loc):
        eager.seed(8)
        return D.TransformedDistribution(D.Normal(loc, t64(0.5)), [D.TanhTransform()]).rsample([3])

    assert gradcheck(draw, (loc,), atol=1e-6, rtol=1e-4)
    assert gradcheck(lambda l: D.TransformedDistribution(D.Normal(l, t64(0.5)), [D.TanhTransform()])
                     .log_prob(t64([0.2, -0.4])), (loc,), atol=1e-6, rtol=1e-4)


@pytest.mark.parametrize("call, error, message", [
    (lambda: D.ExpTransform().forward([1.0]), TypeError, r"ExpTransform.forward: argument 'x' expected a Tensor, got list"),
    (lambda: D.ReshapeTransform((2, 3), (4,)), ValueError, r"ReshapeTransform: in_event_shape \[2, 3\] and out_event_shape \[4\] expected the same number of elements"),
    (lambda: D.ReshapeTransform((2,), (2,)).forward(t64([1.0, 2.0, 3.0])), ValueError, r"ReshapeTransform.forward: expected a shape ending in \[2\], got \[3\]"),
    (lambda: D.ChainTransform([D.ExpTransform(), "tanh"]), TypeError, r"ChainTransform: argument 'transforms' expected a list of Transforms"),
    (lambda: D.IndependentTransform(D.ExpTransform(), 0), ValueError, r"IndependentTransform: argument 'reinterpreted_batch_rank' expected an int > 0, got 0"),
    (lambda: D.StackTransform([D.ExpTransform()], 0).forward(t64([1.0, 2.0])), ValueError, r"StackTransform: axis 0 of the input has size 2, expected one slice per transform \(1\)"),
    (lambda: D.TransformedDistribution("normal", [D.ExpTransform()]), TypeError, r"TransformedDistribution: argument 'base' expected a Distribution, got str"),
    (lambda: D.TransformedDistribution(D.Normal(0.0, 1.0), [D.StickBreakingTransform()]), ValueError, r"TransformedDistribution: the base's shape \[\] has fewer dimensions than the transforms' event rank 1"),
    (lambda: D.TransformedDistribution(D.Normal(0.0, 1.0), [D.ExpTransform()]).log_prob(1.0), TypeError, r"TransformedDistribution.log_prob: argument 'value' expected a Tensor, got float"),
    (lambda: D.SoftmaxTransform().forward_log_det_jacobian(t64([1.0, 2.0])), NotImplementedError, r"SoftmaxTransform has no log det Jacobian"),
])
def test_bad_transform_arguments_raise_clear_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


# --- MultivariateNormal ---

COV = np.array([[1.0, 0.5, 0.0], [0.5, 2.0, -0.3], [0.0, -0.3, 0.7]])


def mvn_log_density(x, mean, cov):
    diff = x - mean
    sol = np.linalg.solve(cov, diff[..., None])[..., 0]
    k = mean.shape[-1]
    return -0.5 * (np.sum(diff * sol, -1) + k * math.log(2 * math.pi) + np.log(np.linalg.det(cov)))


@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_multivariate_normal_against_numpy(kind):
    mean = np.array([[0.5, -1.0, 0.2], [0.0, 0.3, 1.0]])        # a batch of two
    matrix = {"covariance_matrix": COV, "precision_matrix": np.linalg.inv(COV),
              "scale_tril": np.linalg.cholesky(COV)}[kind]
    d = D.MultivariateNormal(t64(mean), **{kind: t64(matrix)})
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    x = np.random.default_rng(1).normal(size=(4, 2, 3))
    np.testing.assert_allclose(np_of(d.log_prob(t64(x))), mvn_log_density(x, mean, COV), rtol=1e-10)
    np.testing.assert_allclose(np_of(d.entropy()), [0.5 * np.log(np.linalg.det(2 * math.pi * math.e * COV))] * 2,
                               rtol=1e-10)
    np.testing.assert_allclose(np_of(d.mean), mean)
    np.testing.assert_allclose(np_of(d.variance), np.broadcast_to(np.diag(COV), (2, 3)), rtol=1e-10)


def test_multivariate_normal_kl_and_moments():
    cov_q = np.array([[2.0, -0.4, 0.1], [-0.4, 1.0, 0.0], [0.1, 0.0, 0.5]])
    mp, mq = np.array([0.5, -1.0, 0.2]), np.array([0.0, 0.3, 1.0])
    p = D.MultivariateNormal(t64(mp), covariance_matrix=t64(COV))
    q = D.MultivariateNormal(t64(mq), covariance_matrix=t64(cov_q))
    inv_q = np.linalg.inv(cov_q)
    ref = 0.5 * (np.trace(inv_q @ COV) + (mq - mp) @ inv_q @ (mq - mp) - 3
                 + np.log(np.linalg.det(cov_q) / np.linalg.det(COV)))
    assert float(D.kl_divergence(p, q)) == pytest.approx(ref, rel=1e-10)
    assert float(p.kl_divergence(p)) == pytest.approx(0.0, abs=1e-12)
    eager.seed(6)
    draws = np_of(p.sample([40000]))
    assert draws.shape == (40000, 3)
    np.testing.assert_allclose(draws.mean(0), mp, atol=5 * np.sqrt(np.diag(COV).max() / 40000))
    np.testing.assert_allclose(np.cov(draws.T), COV, atol=0.05)


def test_multivariate_normal_gradients():
    tril = t64(np.linalg.cholesky(COV), grad=True)
    loc = t64([0.5, -1.0, 0.2], grad=True)
    x = t64([[0.1, 0.2, -0.3], [1.0, -1.0, 0.5]])
    assert gradcheck(lambda m, l: D.MultivariateNormal(m, scale_tril=l).log_prob(x), (loc, tril),
                     atol=1e-6, rtol=1e-4)
    assert gradcheck(lambda m, l: D.MultivariateNormal(m, scale_tril=l).entropy(), (loc, tril),
                     atol=1e-6, rtol=1e-4)
    q = D.MultivariateNormal(t64([0.0, 0.0, 1.0]), covariance_matrix=t64(np.eye(3) * 1.5))
    assert gradcheck(lambda m, l: D.kl_divergence(D.MultivariateNormal(m, scale_tril=l), q), (loc, tril),
                     atol=1e-6, rtol=1e-4)

    def draw(m, l):
        eager.seed(9)
        return D.MultivariateNormal(m, scale_tril=l).rsample([2])

    assert gradcheck(draw, (loc, tril), atol=1e-6, rtol=1e-4)


@pytest.mark.parametrize("call, error, message", [
    (lambda: D.MultivariateNormal([0.0, 0.0]), ValueError, r"MultivariateNormal: expected exactly one of covariance_matrix, precision_matrix or scale_tril, got 0"),
    (lambda: D.MultivariateNormal([0.0, 0.0], covariance_matrix=np.eye(2), scale_tril=np.eye(2)), ValueError, r"expected exactly one .* got 2"),
    (lambda: D.MultivariateNormal([0.0, 0.0], covariance_matrix=np.eye(3)), ValueError, r"MultivariateNormal: argument 'covariance_matrix' expected matrices \[\.\.\., 2, 2\] matching loc's last axis, got shape \[3, 3\]"),
    (lambda: D.MultivariateNormal([0.0, 0.0], covariance_matrix=np.array([[1.0, 2.0], [2.0, 1.0]])), ValueError, r"MultivariateNormal: argument 'covariance_matrix' expected symmetric positive-definite matrices"),
    (lambda: D.MultivariateNormal([0.0, 0.0], scale_tril=np.array([[1.0, 0.0], [0.5, -1.0]])), ValueError, r"MultivariateNormal: argument 'scale_tril' expected a positive diagonal, got -1.0"),
    (lambda: D.MultivariateNormal(0.0, covariance_matrix=np.eye(1)), ValueError, r"MultivariateNormal: argument 'loc' expected at least 1 dimension"),
    (lambda: D.MultivariateNormal(np.zeros((2, 2)), covariance_matrix=np.eye(2)[None].repeat(3, 0)), ValueError, r"MultivariateNormal: the batch shapes of loc \[2\] and covariance_matrix \[3\] cannot be broadcast together"),
])
def test_multivariate_normal_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.usefixtures("device")
def test_multivariate_normal_on_the_current_device(device):
    eager.seed(3)
    d = D.MultivariateNormal(eager.to_tensor([0.0, 1.0]), covariance_matrix=eager.to_tensor([[1.0, 0.2], [0.2, 0.5]]))
    x = d.sample([4])
    assert x.shape == [4, 2] and on_device(x, device)
    for value in (d.log_prob(x), d.entropy(), D.kl_divergence(d, d), d.rsample([2])):
        assert on_device(value, device)


# --- ExponentialFamily: entropy and KL from the log normalizer ---

EXP_FAMILY = {
    "Exponential": (lambda: D.Exponential(t64(2.0)), lambda: D.Exponential(t64(0.7))),
    "Gamma": (lambda: D.Gamma(t64(2.0), t64(1.0)), lambda: D.Gamma(t64(3.0), t64(2.0))),
    "Beta": (lambda: D.Beta(t64([2.0, 0.5]), t64(3.0)), lambda: D.Beta(t64(1.5), t64([1.2, 4.0]))),
    "Dirichlet": (lambda: D.Dirichlet(t64([1.0, 2.0, 3.0])), lambda: D.Dirichlet(t64([2.0, 1.0, 1.0]))),
    "Bernoulli": (lambda: D.Bernoulli(t64([0.3, 0.6])), lambda: D.Bernoulli(t64([0.7, 0.2]))),
}


@pytest.mark.parametrize("name", sorted(EXP_FAMILY))
def test_exponential_family_bregman_entropy_and_kl_match_the_closed_forms(name):
    make_p, make_q = EXP_FAMILY[name]
    p, q = make_p(), make_q()
    assert isinstance(p, D.ExponentialFamily)
    np.testing.assert_allclose(np_of(D.ExponentialFamily.entropy(p)), np_of(p.entropy()), rtol=1e-10, atol=1e-12)
    bregman = kl_module._REGISTRY[D.ExponentialFamily, D.ExponentialFamily]
    np.testing.assert_allclose(np_of(bregman(p, q)), np_of(D.kl_divergence(p, q)), rtol=1e-9, atol=1e-12)


class _RateFamily(D.ExponentialFamily):
    """A user's exponential-family class with no KL of its own: density rate exp(-rate x)."""

    def __init__(self, rate):
        self.rate = rate
        super().__init__(rate.shape)

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -eager.log(-x)

    @property
    def _mean_carrier_measure(self):
        return 0.0


def test_a_users_exponential_family_gets_entropy_and_kl_with_gradients():
    rate = t64([0.5, 2.0], grad=True)
    d = _RateFamily(rate)
    np.testing.assert_allclose(np_of(d.entropy()), 1 - np.log([0.5, 2.0]), rtol=1e-12)
    kl = D.kl_divergence(d, _RateFamily(t64([1.0, 1.0])))
    ratio = 1.0 / np.array([0.5, 2.0])
    np.testing.assert_allclose(np_of(kl), ratio - np.log(ratio) - 1, rtol=1e-10)
    assert gradcheck(lambda r: _RateFamily(r).entropy(), (rate,), atol=1e-6, rtol=1e-4)
    assert gradcheck(lambda r: D.kl_divergence(_RateFamily(r), _RateFamily(t64([1.0, 3.0]))), (rate,),
                     atol=1e-6, rtol=1e-4)
    with eager.no_grad():
        assert d.entropy().stop_gradient
    with pytest.raises(NotImplementedError, match="no KL divergence is registered for p of type _RateFamily "
                                                  "and q of type Exponential"):
        D.kl_divergence(d, D.Exponential(t64([1.0, 1.0])))


# --- ContinuousBernoulli ---

def cb_density(x, lam):
    norm = 0.5 if lam == 0.5 else (2 * lam - 1) / (2 * math.atanh(2 * lam - 1))   # int_0^1 lam^x (1-lam)^(1-x) dx
    return lam ** x * (1 - lam) ** (1 - x) / norm


@pytest.mark.parametrize("lam", [0.03, 0.2, 0.4995, 0.5, 0.5008, 0.7, 0.97])
def test_continuous_bernoulli_against_numerical_integration(lam):
    d = D.ContinuousBernoulli(t64(lam))
    grid = np.linspace(0.0, 1.0, 200001)
    x = np.array([0.0, 0.1, 0.5, 0.93, 1.0])
    np.testing.assert_allclose(np_of(d.log_prob(t64(x))), np.log(cb_density(x, lam)), rtol=1e-7, atol=1e-9)
    dens = cb_density(grid, lam)
    assert integrate(lambda v: cb_density(v, lam), 0, 1, 200001) == pytest.approx(1.0, abs=1e-9)
    mean = integrate(lambda v: v * cb_density(v, lam), 0, 1, 200001)
    assert float(d.mean) == pytest.approx(mean, abs=1e-8)
    assert float(d.variance) == pytest.approx(integrate(lambda v: (v - mean) ** 2 * cb_density(v, lam), 0, 1, 200001),
                                              abs=1e-8)
    assert float(d.entropy()) == pytest.approx(-np.trapezoid(dens * np.log(dens), grid) if hasattr(np, "trapezoid")
                                               else -np.trapz(dens * np.log(dens), grid), abs=1e-8)
    cdf = integrate(lambda v: cb_density(v, lam), 0, 0.3, 200001)
    # inside lims (0.499, 0.501] the cdf is the uniform one, as Paddle's: off by O(|lam - 1/2|)
    assert float(d.cdf(t64(0.3))) == pytest.approx(cdf, abs=1e-8 if abs(lam - 0.5) > 1e-3 else 1e-3)
    assert float(d.icdf(d.cdf(t64(0.3)))) == pytest.approx(0.3, abs=1e-9)


def test_continuous_bernoulli_matches_paddles_documented_values_and_kl_integral():
    rv = D.ContinuousBernoulli(eager.to_tensor([0.2, 0.5]))
    np.testing.assert_allclose(rv.mean.numpy(), [0.38801414, 0.5], rtol=1e-6)
    np.testing.assert_allclose(rv.variance.numpy(), [0.07589778, 0.08333334], rtol=1e-6)
    np.testing.assert_allclose(rv.entropy().numpy(), [-0.07641457, 0.0], atol=1e-6)
    np.testing.assert_allclose(rv.cdf(eager.to_tensor(0.1)).numpy(), [0.17259926, 0.1], rtol=1e-6)
    np.testing.assert_allclose(rv.icdf(eager.to_tensor(0.1)).numpy(), [0.05623737, 0.1], rtol=1e-5)
    p, q = D.ContinuousBernoulli(t64([0.2, 0.8])), D.ContinuousBernoulli(t64([0.7, 0.5]))
    for i, (a, b) in enumerate([(0.2, 0.7), (0.8, 0.5)]):
        ref = integrate(lambda v: cb_density(v, a) * np.log(cb_density(v, a) / cb_density(v, b)), 0, 1, 200001)
        assert np_of(D.kl_divergence(p, q))[i] == pytest.approx(ref, abs=1e-8)


def test_continuous_bernoulli_sampling_and_gradients():
    eager.seed(10)
    d = D.ContinuousBernoulli(t64([0.1, 0.5, 0.85]))
    draws = np_of(d.sample([40000]))
    assert draws.shape == (40000, 3) and np.all((draws >= 0) & (draws <= 1))
    np.testing.assert_allclose(draws.mean(0), np_of(d.mean), atol=5 * np.sqrt(np_of(d.variance).max() / 40000))
    probs = t64([0.1, 0.3, 0.85], grad=True)

    def draw(p):
        eager.seed(11)
        return D.ContinuousBernoulli(p).rsample([3])

    assert gradcheck(draw, (probs,), atol=1e-6, rtol=1e-4)
    assert gradcheck(lambda p: D.ContinuousBernoulli(p).log_prob(t64([0.2, 0.9, 0.5])), (probs,), atol=1e-6, rtol=1e-4)
    assert gradcheck(lambda p: D.ContinuousBernoulli(p).entropy(), (probs,), atol=1e-6, rtol=1e-4)
    with pytest.raises(ValueError, match=r"ContinuousBernoulli.log_prob: argument 'value' expected values in \[0, 1\], got 1.5"):
        d.log_prob(t64([0.2, 1.5, 0.3]))
    with pytest.raises(ValueError, match=r"ContinuousBernoulli: argument 'probs' expected probabilities in \[0, 1\]"):
        D.ContinuousBernoulli(1.2)
    with pytest.raises(ValueError, match=r"ContinuousBernoulli: argument 'lims' expected two numbers"):
        D.ContinuousBernoulli(0.3, lims=(0.6, 0.7))


# --- LKJCholesky ---

@pytest.mark.parametrize("method", ["onion", "cvine"])
def test_lkj_cholesky_draws_are_cholesky_factors_with_the_lkj_marginals(method):
    eager.seed(12)
    eta = 1.5
    d = D.LKJCholesky(4, t64([eta, 3.0]), method)
    assert d.batch_shape == (2,) and d.event_shape == (4, 4)
    draws = np_of(d.sample([10000]))
    assert draws.shape == (10000, 2, 4, 4)
    assert np.all(np.triu(draws, 1) == 0) and np.all(np.diagonal(draws, 0, -2, -1) > 0)
    corr = draws @ np.swapaxes(draws, -1, -2)
    np.testing.assert_allclose(np.diagonal(corr, 0, -2, -1), 1.0, atol=1e-12)
    # every correlation r has (r + 1) / 2 ~ Beta(a, a), a = eta - 1 + dim / 2: variance 1 / (2a + 1)
    for b, e in enumerate([eta, 3.0]):
        expected = 1 / (2 * (e - 1 + 2) + 1)
        for i, j in [(0, 1), (1, 2), (0, 3), (2, 3)]:
            assert corr[:, b, i, j].var() == pytest.approx(expected, rel=0.06)
            assert abs(corr[:, b, i, j].mean()) < 0.02


def test_lkj_cholesky_log_prob_is_a_normalized_density():
    # dim 2: one free entry r = L_21, density on (-1, 1)
    eta = 2.3
    r = np.linspace(-1 + 1e-12, 1 - 1e-12, 200001)
    L = np.zeros((len(r), 2, 2))
    L[:, 0, 0], L[:, 1, 0], L[:, 1, 1] = 1.0, r, np.sqrt(1 - r * r)
    assert integrate(lambda _: np.exp(np_of(D.LKJCholesky(2, t64(eta)).log_prob(t64(L)))), -1, 1, 200001) \
        == pytest.approx(1.0, abs=1e-6)
    # dim 3: the free entries a = L_21 and (b, c) = (L_31, L_32) in the unit disk; the unnormalized
    # density (1 - a^2)^(eta - 1/2) (1 - b^2 - c^2)^(eta - 1) integrates to
    # [int (1 - a^2)^(eta - 1/2) da] * pi / eta
    for eta in (0.8, 1.5, 4.0):
        z = integrate(lambda a: (1 - a * a) ** (eta - 0.5), -1, 1, 400001) * math.pi / eta
        point = np.array([[1.0, 0, 0], [0.3, math.sqrt(1 - 0.09), 0], [-0.2, 0.5, math.sqrt(1 - 0.04 - 0.25)]])
        unnormalized = (eta - 0.5) * math.log(1 - 0.09) + (eta - 1) * math.log(1 - 0.04 - 0.25)
        lp = float(D.LKJCholesky(3, t64(eta)).log_prob(t64(point)))
        assert lp == pytest.approx(unnormalized - math.log(z), abs=1e-6)


def test_lkj_cholesky_gradients_seed_and_errors():
    point = t64([[1.0, 0, 0], [0.3, math.sqrt(1 - 0.09), 0], [-0.2, 0.5, math.sqrt(1 - 0.04 - 0.25)]])
    eta = t64([1.5], grad=True)
    assert gradcheck(lambda e: D.LKJCholesky(3, e).log_prob(point), (eta,), atol=1e-6, rtol=1e-4)
    value = t64(np.asarray(point.numpy()), grad=True)
    assert gradcheck(lambda v: D.LKJCholesky(3, t64(2.0)).log_prob(v), (value,), atol=1e-6, rtol=1e-4)
    d = D.LKJCholesky(3, 0.7, "cvine")
    eager.seed(4)
    first = d.sample([5]).numpy()
    eager.seed(4)
    np.testing.assert_array_equal(d.sample([5]).numpy(), first)
    for call, error, message in [
        (lambda: D.LKJCholesky(1), ValueError, r"LKJCholesky: argument 'dim' expected an int >= 2, got 1"),
        (lambda: D.LKJCholesky(3, 0.0), ValueError, r"LKJCholesky: argument 'concentration' expected values > 0"),
        (lambda: D.LKJCholesky(3, 1.0, "vine"), ValueError, r"LKJCholesky: argument 'sample_method' expected 'onion' or 'cvine', got 'vine'"),
        (lambda: D.LKJCholesky(3).log_prob(np.eye(2)), ValueError, r"LKJCholesky.log_prob: argument 'value' expected shape \[\.\.\., 3, 3\], got \[2, 2\]"),
    ]:
        with pytest.raises(error, match=message):
            call()


@pytest.mark.usefixtures("device")
def test_lkj_cholesky_on_the_current_device(device):
    eager.seed(13)
    d = D.LKJCholesky(3, 2.0)
    x = d.sample([4])
    assert x.shape == [4, 3, 3] and on_device(x, device) and on_device(d.log_prob(x), device)
