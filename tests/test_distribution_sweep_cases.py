"""Cases found by a random differential sweep of eager.distribution against
torch.distributions and Paddle's rules (python/paddle/distribution/*.py).

References are written here by hand (closed forms in NumPy, loops); gradients
are checked against closed forms and finite differences (gradcheck, float64).
"""
from math import lgamma

import numpy as np
import pytest

import eager
import eager.distribution as D
from eager.autograd import gradcheck

F64 = "float64"


def t64(values, grad=False):
    return eager.to_tensor(np.asarray(values, dtype=F64), stop_gradient=not grad)


# --- Uniform.log_prob: Paddle's log(mask) - log(high - low) ---

def test_uniform_log_prob_values_inside_outside_and_at_the_ends():
    low, high = np.array([0.0, -1.0, 2.0]), np.array([2.0, 0.5, 3.0])
    value = np.array([[0.0, 0.5, 2.5], [2.0, -1.5, 3.5], [-0.1, 0.49, 2.999]])
    got = D.Uniform(t64(low), t64(high)).log_prob(t64(value)).numpy()
    want = np.empty_like(value)
    for i in range(3):
        for j in range(3):
            inside = low[j] <= value[i, j] < high[j]  # [low, high): eager's documented support
            want[i, j] = -np.log(high[j] - low[j]) if inside else -np.inf
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(D.Uniform(t64(low), t64(high)).prob(t64(value)).numpy(), np.exp(want), rtol=1e-12)


def test_uniform_log_prob_gradient_reaches_low_and_high_at_every_value():
    # Paddle differentiates -log(high - low) whatever the value; the 0/1 mask has no gradient.
    low, high = t64([0.0, 1.0], grad=True), t64([2.0, 1.5], grad=True)
    value = t64([[0.5, 3.0], [-1.0, 1.2]])   # one point outside each column
    weights = np.array([[0.7, -1.3], [2.0, 0.4]])
    (D.Uniform(low, high).log_prob(value) * t64(weights)).sum().backward()
    width = np.array([2.0, 0.5])
    np.testing.assert_allclose(low.grad.numpy(), weights.sum(0) / width, rtol=1e-12)
    np.testing.assert_allclose(high.grad.numpy(), -weights.sum(0) / width, rtol=1e-12)


def test_uniform_log_prob_gradcheck_inside_the_support():
    value = t64([0.3, 1.1, 1.9])
    assert gradcheck(lambda a, b: D.Uniform(a, b).log_prob(value),
                     (t64([0.1, 0.2, 0.0], grad=True), t64([2.0, 1.5, 2.5], grad=True)),
                     eps=1e-6, atol=1e-6, rtol=1e-4)


# --- Categorical: indices outside [0, K) and empty category axes ---

@pytest.mark.parametrize("logits, value, bad", [
    ([0.2, 0.3, 0.5], [0, 3], 3),
    ([0.2, 0.3, 0.5], [-1], -1),
    ([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], [[0], [3]], 3),
    ([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], [[0], [-1]], -1),   # take_along_axis alone would wrap -1
    ([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], [2, 5], 5),
])
def test_categorical_rejects_indices_outside_the_categories(logits, value, bad):
    c = D.Categorical(t64(logits))
    index = eager.to_tensor(np.asarray(value, dtype="int64"))
    for method in (c.probs, c.prob, c.log_prob):
        with pytest.raises(ValueError, match=rf"Categorical.probs: argument 'value' expected category "
                                             rf"indices in \[0, 3\), got {bad}"):
            method(index)


def test_categorical_in_range_indices_still_match_a_loop():
    logits = np.array([[0.2, 0.3, 0.5], [1.0, 2.0, 1.0]])
    value = np.array([[2, 0], [1, 1]], dtype="int64")
    got = D.Categorical(t64(logits)).probs(eager.to_tensor(value)).numpy()
    want = [[logits[i, value[i, j]] / logits[i].sum() for j in range(2)] for i in range(2)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_categorical_needs_at_least_one_category():
    with pytest.raises(ValueError, match=r"Categorical: argument 'logits' expected at least one category "
                                         r"on its last axis, got shape \[2, 0\]"):
        D.Categorical(t64(np.zeros((2, 0))))


# --- StackTransform: an axis outside the input's rank ---

@pytest.mark.parametrize("axis", [2, 5, -3])
def test_stack_transform_rejects_an_axis_outside_the_input(axis):
    st = D.StackTransform([D.ExpTransform(), D.TanhTransform()], axis=axis)
    x = t64([[0.1, 0.2], [0.3, 0.4]])
    for method in (st.forward, st.inverse, st.forward_log_det_jacobian):
        with pytest.raises(ValueError, match=rf"StackTransform: axis {axis} is out of range for an input "
                                             rf"of shape \[2, 2\] \(expected an axis in \[-2, 2\)\)"):
            method(x)


def test_stack_transform_negative_axis_applies_one_transform_per_slice():
    x = np.array([[0.1, 0.2], [0.3, 0.4], [-0.5, 0.6]])
    st = D.StackTransform([D.ExpTransform(), D.TanhTransform()], axis=-1)
    np.testing.assert_allclose(st.forward(t64(x)).numpy(),
                               np.stack([np.exp(x[:, 0]), np.tanh(x[:, 1])], -1), rtol=1e-12)
    np.testing.assert_allclose(st.forward_log_det_jacobian(t64(x)).numpy(),
                               np.stack([x[:, 0], np.log(1 - np.tanh(x[:, 1]) ** 2)], -1), rtol=1e-10)


# --- ContinuousBernoulli.variance in float32 just outside lims ---

@pytest.mark.parametrize("p", [0.5011, 0.502, 0.505, 0.52, 0.4985, 0.47, 0.2])
def test_continuous_bernoulli_float32_variance_against_integration(p):
    # The closed form's two terms (each ~ 1 / (4 (1 - 2p)^2)) cancel: evaluated in float32 it
    # gave 0.246 at p = 0.5011 and 0.0166 at 0.502 instead of ~0.0833.
    x = np.linspace(0.0, 1.0, 200001)
    p64 = float(np.float32(p))
    density = p64 ** x * (1 - p64) ** (1 - x)
    density /= np.trapezoid(density, x) if hasattr(np, "trapezoid") else np.trapz(density, x)
    trap = np.trapezoid if hasattr(np, "trapezoid") else np.trapz
    mean = trap(x * density, x)
    want = trap((x - mean) ** 2 * density, x)
    got = D.ContinuousBernoulli(eager.to_tensor(np.float32(p))).variance
    assert got.dtype == eager.float32
    np.testing.assert_allclose(float(got), want, rtol=2e-6)


def test_continuous_bernoulli_float32_variance_gradient_matches_float64():
    probs = np.asarray([0.2, 0.5011, 0.52, 0.8], dtype="float32")   # the same points in both dtypes
    grads = []
    for dtype in ("float32", "float64"):
        x = eager.to_tensor(probs.astype(dtype), stop_gradient=False)
        D.ContinuousBernoulli(x).variance.sum().backward()
        grads.append(x.grad.numpy().astype(F64))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-4, atol=1e-7)
    assert gradcheck(lambda q: D.ContinuousBernoulli(q).variance, (t64([0.2, 0.53, 0.8], grad=True),),
                     eps=1e-7, atol=1e-6, rtol=1e-4)


# --- Poisson.log_prob: Paddle refuses negative values ---

def test_poisson_log_prob_rejects_negative_values_as_paddle():
    d = D.Poisson(t64([2.0, 3.5]))
    for method in (d.log_prob, d.prob):
        with pytest.raises(ValueError, match=r"Poisson.log_prob: argument 'value' expected values >= 0, got -1.0"):
            method(t64([1.0, -1.0]))


def test_poisson_log_prob_and_entropy_against_sums():
    rate = np.array([0.7, 2.0, 6.5])
    k = np.array([[0.0, 3.0, 10.0], [1.0, 0.0, 2.0]])
    got = D.Poisson(t64(rate)).log_prob(t64(k)).numpy()
    want = [[k[i, j] * np.log(rate[j]) - rate[j] - sum(np.log(m) for m in range(1, int(k[i, j]) + 1))
             for j in range(3)] for i in range(2)]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    entropy = []
    for r in rate:
        lp = [n * np.log(r) - r - sum(np.log(m) for m in range(1, n + 1)) for n in range(120)]
        entropy.append(-sum(np.exp(v) * v for v in lp))
    np.testing.assert_allclose(D.Poisson(t64(rate)).entropy().numpy(), entropy, rtol=1e-10)
    assert gradcheck(lambda r: D.Poisson(r).log_prob(t64([0.0, 3.0, 1.0])), (t64(rate, grad=True),),
                     eps=1e-6, atol=1e-6, rtol=1e-4)


# --- the fixed paths on both device axes ---

@pytest.mark.usefixtures("device")
def test_the_fixed_paths_run_on_the_current_device(device):
    def on_device(tensor):
        return ("gpu" in str(tensor.place).lower()) == (device == "gpu")

    low = eager.to_tensor(np.array([0.0, 1.0]), stop_gradient=False)
    lp = D.Uniform(low, 3.0).log_prob(t64([4.0, 2.0]))
    lp.sum().backward()
    assert on_device(lp) and on_device(low.grad)
    np.testing.assert_allclose(low.grad.numpy(), [1 / 3.0, 1 / 2.0], rtol=1e-12)
    var = D.ContinuousBernoulli(eager.to_tensor(np.float32(0.5011))).variance
    assert on_device(var) and var.dtype == eager.float32 and abs(float(var) - 1 / 12) < 1e-6
    c = D.Categorical(t64([0.2, 0.8]))
    assert on_device(c.probs(eager.to_tensor(np.array([1], dtype="int64"))))
    # (on a GPU these per-call checks read values only in anomaly mode, as the kernels do)
    with eager.autograd.detect_anomaly(), pytest.raises(ValueError, match="Categorical.probs"):
        c.probs(eager.to_tensor(np.array([2], dtype="int64")))
    with eager.autograd.detect_anomaly(), pytest.raises(ValueError, match="Poisson.log_prob"):
        D.Poisson(t64([1.0])).log_prob(t64([-2.0]))


# --- vector distributions: a value whose event axis does not match ---

@pytest.mark.parametrize("make, value, event", [
    (lambda: D.Dirichlet(t64([1.0, 2.0, 3.0])), [0.3], [3]),          # broadcast silently before
    (lambda: D.Dirichlet(t64([[1.0, 2.0, 3.0]])), [[0.5, 0.5]], [3]),
    (lambda: D.Multinomial(2, t64([0.5, 0.5])), 1.0, [2]),
    (lambda: D.Multinomial(4, t64([0.2, 0.3, 0.5])), [[1.0], [2.0]], [3]),
    (lambda: D.MultivariateNormal(t64([0.0, 0.0]), t64(np.eye(2))), [0.3], [2]),
    (lambda: D.MultivariateNormal(t64([0.0, 0.0]), t64(np.eye(2))), [1.0, 2.0, 3.0], [2]),
])
def test_vector_log_prob_rejects_a_value_with_another_event_shape(make, value, event):
    d = make()
    name = type(d).__name__
    with pytest.raises(ValueError, match=rf"{name}.log_prob: argument 'value' expected trailing dimensions "
                                         rf"\[{event[0]}\] \(the event shape\)"):
        d.log_prob(t64(value))


def test_dirichlet_log_prob_with_a_batch_of_values_against_the_formula():
    c = np.array([1.5, 2.0, 3.0])
    x = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
    got = D.Dirichlet(t64(c)).log_prob(t64(x)).numpy()
    want = [sum((c[j] - 1) * np.log(x[i, j]) for j in range(3)) - sum(lgamma(v) for v in c) + lgamma(c.sum())
            for i in range(2)]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert gradcheck(lambda a: D.Dirichlet(a).log_prob(t64(x)), (t64(c, grad=True),), eps=1e-6, atol=1e-6, rtol=1e-4)


def test_per_call_value_checks_do_not_read_a_gpu_tensor_outside_anomaly_mode():
    # Categorical.log_prob and Poisson.log_prob check values by reading them; on a GPU that
    # read would wait for the device on every call, so it happens only in anomaly mode.
    fake = pytest.importorskip("cupy")
    if not getattr(fake, "__fake__", False):
        pytest.skip("counts the stand-in's device-to-host copies")
    logits = eager.to_tensor(np.array([[1.0, 2.0, 3.0]]), place="gpu")
    labels = eager.to_tensor(np.array([0, 2]), place="gpu")
    counts = eager.to_tensor(np.array([0.0, 1.0, 2.0]), place="gpu")
    categorical = eager.distribution.Categorical(logits)
    poisson = eager.distribution.Poisson(eager.to_tensor(np.array([1.5]), place="gpu"))
    before = fake.transfers[0]
    categorical.log_prob(labels)
    poisson.log_prob(counts)
    assert fake.transfers[0] == before
    with eager.autograd.detect_anomaly(), pytest.raises(ValueError, match=r"Categorical.probs: argument 'value'"):
        categorical.log_prob(eager.to_tensor(np.array([0, 3]), place="gpu"))
    with eager.autograd.detect_anomaly(), pytest.raises(ValueError, match=r"Poisson.log_prob: argument 'value'"):
        poisson.log_prob(eager.to_tensor(np.array([-1.0]), place="gpu"))
    negative = poisson.log_prob(eager.to_tensor(np.array([-1.0, 2.0]), place="gpu")).numpy()
    assert negative[0] == -np.inf and np.isfinite(negative[1])
