"""Regression cases from the optimizer / learning-rate differential sweep: each
discrepancy with Paddle's rule it found, checked against a direct float64 loop
of Paddle's formula (Lamb's always_adapt, per-group gradient clipping) or
Paddle's schedule formula (MultiplicativeDecay, LinearLR's last step), and the
arguments Paddle refuses (ExponentialDecay, NaturalExpDecay gammas)."""
import math

import numpy as np
import pytest

import eager
from eager import nn
from eager.optimizer import SGD, Adam, Lamb, lr

pytestmark = pytest.mark.usefixtures("device")


def _lamb_loop(p, grads, lr_value, wd, always_adapt, beta1=0.9, beta2=0.999, eps=1e-6):
    """Paddle's lamb kernel, element by element in float64."""
    p = np.array(p, dtype=np.float64)
    m, v = np.zeros_like(p), np.zeros_like(p)
    b1p, b2p = beta1, beta2
    for g in grads:
        r = np.empty_like(p)
        for i in np.ndindex(p.shape):
            m[i] = beta1 * m[i] + (1 - beta1) * g[i]
            v[i] = beta2 * v[i] + (1 - beta2) * g[i] * g[i]
            r[i] = (m[i] / (1 - b1p)) / (math.sqrt(v[i] / (1 - b2p)) + eps) + wd * p[i]
        p_norm = math.sqrt(sum(x * x for x in p.flat))
        r_norm = math.sqrt(sum(x * x for x in r.flat))
        trust = p_norm / r_norm if (wd > 0 or always_adapt) and p_norm > 0 and r_norm > 0 else 1.0
        for i in np.ndindex(p.shape):
            p[i] = p[i] - lr_value * trust * r[i]
        b1p, b2p = b1p * beta1, b2p * beta2
    return p


@pytest.mark.parametrize("always_adapt", [False, True])
@pytest.mark.parametrize("how", ["excluded", "zero_decay"])
def test_lamb_without_decay_adapts_only_with_always_adapt(how, always_adapt):
    rng = np.random.default_rng(3)
    start = rng.standard_normal((2, 3))
    grads = [rng.standard_normal((2, 3)) for _ in range(3)]
    w, b = nn.Parameter(start.copy()), nn.Parameter(start[0].copy())
    if how == "excluded":  # w is excluded, b keeps lamb_weight_decay=0.1
        opt = Lamb(0.05, lamb_weight_decay=0.1, parameters=[w, b], always_adapt=always_adapt,
                   exclude_from_weight_decay_fn=lambda p: p is w)
    else:
        opt = Lamb(0.05, lamb_weight_decay=0.0, parameters=[w, b], always_adapt=always_adapt)
    for g in grads:
        w.grad, b.grad = eager.to_tensor(g), eager.to_tensor(g[0])
        opt.step()
    np.testing.assert_allclose(w.numpy(), _lamb_loop(start, grads, 0.05, 0.0, always_adapt), rtol=1e-12)
    b_decay = 0.1 if how == "excluded" else 0.0
    np.testing.assert_allclose(b.numpy(), _lamb_loop(start[0], [g[0] for g in grads], 0.05, b_decay,
                                                     always_adapt), rtol=1e-12)


def test_lamb_always_adapt_must_be_a_bool():
    with pytest.raises(TypeError, match="Lamb.*always_adapt"):
        Lamb(0.01, parameters=[nn.Parameter(np.ones(2))], always_adapt="yes")


def _global_norm_clipped(grads, clip_norm):
    total = 0.0
    for g in grads:
        for x in g.flat:
            total += x * x
    norm = math.sqrt(total)
    return [g * (clip_norm / max(norm, clip_norm)) for g in grads]


@pytest.mark.parametrize("opt_cls", [SGD, Adam])
def test_global_norm_clip_is_per_parameter_group(opt_cls):
    # Paddle's step runs each group's clip on that group's gradients alone.
    rng = np.random.default_rng(7)
    starts = [rng.standard_normal(s) for s in [(3,), (2, 2), (), (4, 1)]]
    grads = [rng.standard_normal(s.shape) * 3 for s in starts]
    params = [nn.Parameter(s.copy()) for s in starts]
    groups = [{"params": params[:2], "learning_rate": 1.0}, {"params": params[2:], "learning_rate": 0.5}]
    opt = opt_cls(learning_rate=0.1, parameters=groups, grad_clip=nn.ClipGradByGlobalNorm(1.0))
    for p, g in zip(params, grads):
        p.grad = eager.to_tensor(g)
    opt.step()
    clipped = _global_norm_clipped(grads[:2], 1.0) + _global_norm_clipped(grads[2:], 1.0)
    rates = [0.1, 0.1, 0.05, 0.05]
    for p, s, g, rate in zip(params, starts, clipped, rates):
        if opt_cls is SGD:
            want = s - rate * g
        else:  # Adam's first step: m/(sqrt(v)+eps*sqrt(1-b2)) with the bias corrections
            m, v = 0.1 * g, 0.001 * g * g
            want = s - rate * math.sqrt(1 - 0.999) / (1 - 0.9) * m / (np.sqrt(v) + 1e-8 * math.sqrt(1 - 0.999))
        np.testing.assert_allclose(p.numpy(), want, rtol=1e-12, atol=1e-15)


def test_global_norm_clip_of_a_group_without_gradients_leaves_the_others_alone():
    a, b = nn.Parameter(np.array([3.0, 4.0])), nn.Parameter(np.array([1.0]))
    opt = SGD(learning_rate=1.0, parameters=[{"params": [a]}, {"params": [b]}],
              grad_clip=nn.ClipGradByGlobalNorm(1.0))
    b.grad = eager.to_tensor(np.array([0.5]))  # a has no gradient: only b's group clips, norm 0.5 < 1
    opt.step()
    np.testing.assert_array_equal(a.numpy(), [3.0, 4.0])
    np.testing.assert_allclose(b.numpy(), [0.5], rtol=1e-15)


def _product_rate(base, f, epoch):
    rate = base
    for e in range(1, epoch + 1):
        rate *= f(e)
    return rate


def test_multiplicative_decay_is_the_product_from_the_base_rate():
    f = lambda e: 1.0 / (1.0 + 0.1 * e)  # noqa: E731  (depends on the epoch)
    s = lr.MultiplicativeDecay(0.5, f)
    for epoch in range(6):
        assert s.last_epoch == epoch and s() == pytest.approx(_product_rate(0.5, f, epoch), rel=1e-14)
        s.step()
    s.step(13)  # a jump: the rate of epoch 13, not the running product times f(13)
    assert s() == pytest.approx(_product_rate(0.5, f, 13), rel=1e-14)
    s.step(2)
    assert s() == pytest.approx(_product_rate(0.5, f, 2), rel=1e-14)
    resumed = lr.MultiplicativeDecay(0.5, f, last_epoch=4)  # resumes at epoch 5
    assert resumed.last_epoch == 5 and resumed() == pytest.approx(_product_rate(0.5, f, 5), rel=1e-14)


def test_linear_lr_decaying_to_zero_reaches_zero_at_its_last_step():
    s = lr.LinearLR(0.1, total_steps=5, end_factor=0.0)
    rates = []
    for _ in range(8):
        rates.append(s())
        s.step()
    want = [0.1 * (1 / 3 + (0.0 - 1 / 3) * min(t, 5) / 5) for t in range(8)]
    np.testing.assert_allclose(rates, want, rtol=1e-12, atol=1e-15)
    assert rates[5:] == [0.0, 0.0, 0.0]


def test_a_truly_negative_rate_still_raises():
    with pytest.raises(ValueError, match="LambdaDecay: the learning rate for epoch 0 is -0.01"):
        lr.LambdaDecay(0.1, lambda e: -0.1)


@pytest.mark.parametrize("make, message", [
    (lambda: lr.ExponentialDecay(0.5, gamma=1.0), r"ExponentialDecay: argument 'gamma' expected a value in \(0, 1\)"),
    (lambda: lr.ExponentialDecay(0.5, gamma=1.5), r"ExponentialDecay: argument 'gamma' expected a value in \(0, 1\)"),
    (lambda: lr.NaturalExpDecay(0.5, gamma=0.0), r"NaturalExpDecay: argument 'gamma' expected a value > 0"),
    (lambda: lr.NaturalExpDecay(0.5, gamma=-0.1), r"NaturalExpDecay: argument 'gamma' expected a value > 0"),
    (lambda: lr.exponential_decay(0.5, 3, decay_rate=1.2), r"exponential_decay: argument 'decay_rate' expected"),
    (lambda: lr.exponential_decay(0.5, 3, decay_rate=1.2, staircase=True),
     r"exponential_decay: argument 'decay_rate' expected"),
    (lambda: lr.natural_exp_decay(0.5, 3, decay_rate=0.0), r"natural_exp_decay: argument 'decay_rate' expected"),
])
def test_decays_that_paddle_refuses(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("make, message", [
    (lambda v: lr.OneCycleLR(0.1, 10, anneal_strategy=v), r"OneCycleLR: argument 'anneal_strategy' expected 'cos' or"),
    (lambda v: lr.OneCycleLR(0.1, 10, three_phase=v), r"OneCycleLR: argument 'three_phase' expected a bool"),
    (lambda v: lr.CyclicLR(0.01, 0.1, 2, mode=v), r"CyclicLR: argument 'mode' expected 'triangular', "),
    (lambda v: lr.CyclicLR(0.01, 0.1, 2, scale_mode=v), r"CyclicLR: argument 'scale_mode' expected 'cycle' or"),
    (lambda v: lr.ReduceOnPlateau(0.1, mode=v), r"ReduceOnPlateau: argument 'mode' expected 'min' or 'max'"),
    (lambda v: lr.ReduceOnPlateau(0.1, threshold_mode=v), r"ReduceOnPlateau: argument 'threshold_mode' expected"),
])
@pytest.mark.parametrize("value", [np.array([0.1, 0.2]), "bogus"])
def test_string_choices_refuse_arrays_and_unknown_names(make, message, value):
    # an array used to reach `value not in (...)` and die in NumPy's truth-value error
    if "three_phase" in message and isinstance(value, str):
        with pytest.raises(TypeError, match=message):
            make(value)
        return
    with pytest.raises((ValueError, TypeError), match=message):
        make(value)


@pytest.mark.parametrize("make, arg", [
    (lambda: lr.NoamDecay(16, 4, learning_rate=-1.0), "learning_rate"),  # first rate -0.0: nothing caught it
    (lambda: lr.StepDecay(-0.1, 2), "learning_rate"),
    (lambda: lr.CyclicLR(-0.01, 0.1, 2), "base_learning_rate"),
])
def test_a_negative_base_rate_is_refused_at_construction(make, arg):
    with pytest.raises(ValueError, match=rf"argument '{arg}' expected a value >= 0"):
        make()


def test_a_group_grad_clip_replaces_the_optimizers_for_its_parameters():
    # Paddle's groups take 'grad_clip' (default: the optimizer's); None leaves that group unclipped.
    a, b, c = (nn.Parameter(np.zeros(2)) for _ in range(3))
    ga, gb, gc = np.array([3.0, 4.0]), np.array([0.3, -2.0]), np.array([6.0, 8.0])
    opt = SGD(learning_rate=1.0, grad_clip=nn.ClipGradByGlobalNorm(1.0),
              parameters=[{"params": [a]}, {"params": [b], "grad_clip": nn.ClipGradByValue(0.5)},
                          {"params": [c], "grad_clip": None}])
    for p, g in ((a, ga), (b, gb), (c, gc)):
        p.grad = eager.to_tensor(g)
    opt.step()
    np.testing.assert_allclose(a.numpy(), -ga / 5.0, rtol=1e-15)            # its own norm, 5
    np.testing.assert_allclose(b.numpy(), -np.clip(gb, -0.5, 0.5), rtol=1e-15)
    np.testing.assert_allclose(c.numpy(), -gc, rtol=1e-15)
    # a group-only clip works without an optimizer-wide one, also for a group added later
    d = nn.Parameter(np.zeros(1))
    opt = SGD(learning_rate=1.0, parameters=[{"params": [a]}])
    opt.add_param_group({"params": [d], "grad_clip": nn.ClipGradByNorm(0.5)})
    d.grad = eager.to_tensor(np.array([-2.0]))
    opt.step()
    np.testing.assert_allclose(d.numpy(), [0.5], rtol=1e-15)


def test_a_group_grad_clip_must_be_a_clip():
    with pytest.raises(TypeError, match=r"SGD: parameter group 0 'grad_clip' expected None, eager.nn.ClipGradByValue"):
        SGD(learning_rate=0.1, parameters=[{"params": [nn.Parameter(np.ones(2))], "grad_clip": 1.0}])
