"""Learning-rate schedules (eager.optimizer.lr): each against its formula over
many steps, against torch.optim.lr_scheduler where the two define the same
schedule, state round trips, the optimizer reading the scheduler, and errors."""
import math

import numpy as np
import pytest

import eager
from eager.optimizer import lr
from torch_reference import needs_torch, torch

STEPS = 60


def rates(scheduler, steps=STEPS):
    """The rate at epochs 0..steps-1 (the constructor took the first step)."""
    out = []
    for _ in range(steps):
        out.append(scheduler())
        scheduler.step()
    return out


FORMULAS = [
    (lambda: lr.NoamDecay(d_model=64, warmup_steps=10, learning_rate=2.0),
     lambda t: 2.0 * 64 ** -0.5 * min(1.0 if t == 0 else t ** -0.5, t * 10 ** -1.5)),
    (lambda: lr.PiecewiseDecay([5, 20], [0.3, 0.1, 0.01]),
     lambda t: 0.3 if t < 5 else 0.1 if t < 20 else 0.01),
    (lambda: lr.NaturalExpDecay(0.5, gamma=0.1), lambda t: 0.5 * math.exp(-0.1 * t)),
    (lambda: lr.InverseTimeDecay(0.5, gamma=0.2), lambda t: 0.5 / (1 + 0.2 * t)),
    (lambda: lr.PolynomialDecay(0.5, decay_steps=20, end_lr=0.01, power=2.0),
     lambda t: (0.5 - 0.01) * (1 - min(t, 20) / 20) ** 2 + 0.01),
    (lambda: lr.PolynomialDecay(0.5, decay_steps=20, end_lr=0.01, cycle=True),
     lambda t: (0.5 - 0.01) * (1 - t / (20 * max(1, math.ceil(t / 20)))) + 0.01),
    (lambda: lr.LinearWarmup(0.5, warmup_steps=10, start_lr=0.0, end_lr=0.5),
     lambda t: 0.05 * t if t < 10 else 0.5),
    (lambda: lr.LinearWarmup(lr.ExponentialDecay(0.5, 0.9), warmup_steps=10, start_lr=0.1, end_lr=0.5),
     lambda t: 0.1 + 0.04 * t if t < 10 else 0.5 * 0.9 ** (t - 10)),
    (lambda: lr.ExponentialDecay(0.5, gamma=0.95), lambda t: 0.5 * 0.95 ** t),
    (lambda: lr.MultiStepDecay(0.5, milestones=[10, 25, 40], gamma=0.5),
     lambda t: 0.5 * 0.5 ** sum(t >= m for m in (10, 25, 40))),
    (lambda: lr.StepDecay(0.5, step_size=7, gamma=0.3), lambda t: 0.5 * 0.3 ** (t // 7)),
    (lambda: lr.LambdaDecay(0.5, lambda e: 0.9 ** e + 0.1), lambda t: 0.5 * (0.9 ** t + 0.1)),
    (lambda: lr.MultiplicativeDecay(0.5, lambda e: 0.9), lambda t: 0.5 * 0.9 ** t),
    (lambda: lr.CosineAnnealingDecay(0.5, T_max=15, eta_min=0.01),
     lambda t: 0.01 + (0.5 - 0.01) * (1 + math.cos(math.pi * t / 15)) / 2),
    (lambda: lr.CosineAnnealingWarmRestarts(0.5, T_0=5, T_mult=2, eta_min=0.01),
     lambda t: 0.01 + 0.49 * (1 + math.cos(math.pi * _sgdr(t, 5, 2)[0] / _sgdr(t, 5, 2)[1])) / 2),
    (lambda: lr.OneCycleLR(1.0, total_steps=STEPS, divide_factor=10.0, end_learning_rate=0.001, phase_pct=0.25),
     lambda t: _one_cycle(t, [(0.0, 14.0, 0.1, 1.0), (14.0, 59.0, 1.0, 0.001)])),
    (lambda: lr.OneCycleLR(1.0, total_steps=STEPS, divide_factor=10.0, end_learning_rate=0.001, phase_pct=0.25,
                           anneal_strategy="linear", three_phase=True),
     lambda t: _one_cycle(t, [(0.0, 14.0, 0.1, 1.0), (14.0, 28.0, 1.0, 0.1), (28.0, 59.0, 0.1, 0.001)], cos=False)),
    (lambda: lr.CyclicLR(0.1, 1.0, step_size_up=4, step_size_down=6),
     lambda t: _cyclic(t, 0.1, 1.0, 4, 6, lambda c, i: 1.0)),
    (lambda: lr.CyclicLR(0.1, 1.0, step_size_up=5, mode="triangular2"),
     lambda t: _cyclic(t, 0.1, 1.0, 5, 5, lambda c, i: 0.5 ** (c - 1))),
    (lambda: lr.CyclicLR(0.1, 1.0, step_size_up=5, mode="exp_range", exp_gamma=0.98),
     lambda t: _cyclic(t, 0.1, 1.0, 5, 5, lambda c, i: 0.98 ** i)),
]


def _sgdr(t, T_0, T_mult):
    """(position in the period, period length) at epoch t, counted period by period."""
    period, start = T_0, 0
    while t >= start + period:
        start += period
        period *= T_mult
    return t - start, period


def _one_cycle(t, phases, cos=True):
    for start, end, a, b in phases:
        if t <= end or (start, end, a, b) == phases[-1]:
            pct = (t - start) / (end - start)
            return b + (a - b) * (1 + math.cos(math.pi * pct)) / 2 if cos else a + (b - a) * pct


def _cyclic(t, low, high, up, down, scale):
    cycle_length = up + down
    cycle = t // cycle_length + 1
    x = t % cycle_length
    fraction = x / up if x <= up else 1 - (x - up) / down
    return low + (high - low) * fraction * scale(cycle, t)


@pytest.mark.parametrize("make, formula", FORMULAS, ids=lambda v: getattr(v, "__name__", ""))
def test_each_schedule_follows_its_formula(make, formula):
    got = rates(make())
    np.testing.assert_allclose(got, [formula(t) for t in range(STEPS)], rtol=1e-10, atol=1e-12)




def torch_rates(make_scheduler, steps=STEPS, base=0.5):
    param = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([param], lr=base)
    scheduler = make_scheduler(opt)
    out = []
    for _ in range(steps):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        scheduler.step()
    return out


@needs_torch
@pytest.mark.parametrize("ours, theirs", [
    (lambda: lr.StepDecay(0.5, 7, 0.3), lambda o: torch.optim.lr_scheduler.StepLR(o, 7, 0.3)),
    (lambda: lr.MultiStepDecay(0.5, [10, 25], 0.5), lambda o: torch.optim.lr_scheduler.MultiStepLR(o, [10, 25], 0.5)),
    (lambda: lr.ExponentialDecay(0.5, 0.95), lambda o: torch.optim.lr_scheduler.ExponentialLR(o, 0.95)),
    (lambda: lr.CosineAnnealingDecay(0.5, 15, 0.01),
     lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 15, 0.01)),
    (lambda: lr.CosineAnnealingWarmRestarts(0.5, 5, 2, 0.01),
     lambda o: torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 5, 2, 0.01)),
    (lambda: lr.LambdaDecay(0.5, lambda e: 1 / (1 + e)),
     lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (1 + e))),
    (lambda: lr.MultiplicativeDecay(0.5, lambda e: 0.9),
     lambda o: torch.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.9)),
])
def test_schedules_agree_with_torch(ours, theirs):
    np.testing.assert_allclose(rates(ours()), torch_rates(theirs), rtol=1e-10)


@needs_torch
def test_reduce_on_plateau_agrees_with_torch():
    metrics = [5.0, 4.0, 4.0, 4.0, 3.99999, 4.0, 4.0, 4.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 1.0] * 3
    ours = lr.ReduceOnPlateau(0.5, factor=0.5, patience=2, cooldown=1, min_lr=0.01)
    param = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([param], lr=0.5)
    theirs = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2, cooldown=1, min_lr=0.01)
    for m in metrics:
        ours.step(eager.to_tensor(m))
        theirs.step(m)
        assert ours() == pytest.approx(opt.param_groups[0]["lr"], rel=1e-12)
    assert ours() < 0.5                                       # it did reduce


def test_reduce_on_plateau_max_mode_and_absolute_threshold():
    s = lr.ReduceOnPlateau(1.0, mode="max", patience=0, threshold=0.5, threshold_mode="abs")
    s.step(1.0)           # best = 1
    s.step(1.4)           # not better by 0.5: one bad step > patience 0 -> reduce
    assert s() == pytest.approx(0.1)
    s.step(2.0)           # better: no change
    assert s() == pytest.approx(0.1)


def test_step_to_an_epoch_uses_the_closed_form():
    s = lr.CosineAnnealingDecay(0.5, T_max=10)
    s.step(7)
    assert s.last_epoch == 7
    assert s() == pytest.approx((1 + math.cos(math.pi * 0.7)) / 2 * 0.5)
    w = lr.CosineAnnealingWarmRestarts(0.5, T_0=5, T_mult=2)
    w.step(12)                                    # periods 0-4, 5-14: position 7 of 10
    assert w() == pytest.approx(0.5 * (1 + math.cos(math.pi * 7 / 10)) / 2)


@pytest.mark.parametrize("make", [make for make, _ in FORMULAS], ids=range(len(FORMULAS)))
def test_state_dict_round_trip_resumes_the_same_rates(make):
    first = make()
    rates(first, 23)
    state = first.state_dict()
    resumed = make()
    resumed.set_state_dict(state)
    np.testing.assert_allclose(rates(resumed, 20), rates(first, 20), rtol=1e-12)


def test_a_bad_state_dict_changes_nothing():
    s = lr.LinearWarmup(lr.StepDecay(0.5, 3), warmup_steps=4, start_lr=0.0, end_lr=0.5)
    rates(s, 9)
    before = s.state_dict()
    bad = dict(before, LinearWarmup_LR={"last_epoch": "three", "last_lr": 0.1})
    with pytest.raises(TypeError, match="StepDecay.set_state_dict: argument 'last_epoch' expected a finite float, got 'three'"):
        s.set_state_dict(bad)
    assert s.state_dict() == before


def test_optimizer_reads_the_scheduler_at_every_step():
    w = eager.nn.Parameter(np.array([1.0, 2.0], dtype=np.float64))
    scheduler = lr.StepDecay(0.5, step_size=2, gamma=0.1)
    opt = eager.optimizer.SGD(learning_rate=scheduler, parameters=[w])
    expected = np.array([1.0, 2.0])
    for epoch in range(5):
        assert opt.get_lr() == pytest.approx(0.5 * 0.1 ** (epoch // 2))
        (w * w).sum().backward()
        expected = expected - opt.get_lr() * 2 * expected
        opt.step()
        opt.clear_grad()
        scheduler.step()
        np.testing.assert_allclose(w.numpy(), expected, rtol=1e-12)
    with pytest.raises(RuntimeError, match="SGD.set_lr: the learning rate comes from StepDecay"):
        opt.set_lr(0.1)


def test_optimizer_state_dict_carries_the_scheduler():
    def make():
        w = eager.nn.Parameter(np.ones(2))
        w.name = "w"
        s = lr.ExponentialDecay(0.5, gamma=0.5)
        return w, s, eager.optimizer.Adam(learning_rate=s, parameters=[w])

    w, s, opt = make()
    for _ in range(3):
        (w * w).sum().backward()
        opt.step(); opt.clear_grad(); s.step()
    state = opt.state_dict()
    assert state["LR_Scheduler"] == {"last_epoch": 3, "last_lr": 0.0625}
    w2, s2, opt2 = make()
    opt2.set_state_dict(state)
    assert s2.last_epoch == 3 and opt2.get_lr() == 0.0625


@pytest.mark.parametrize("make, error, message", [
    (lambda: lr.StepDecay(0.5, step_size=0), ValueError, "StepDecay: argument 'step_size' expected a value > 0, got 0"),
    (lambda: lr.StepDecay(0.5, 2, gamma=1.5), ValueError, "StepDecay: argument 'gamma' expected a value < 1.0"),
    (lambda: lr.StepDecay("0.5", 2), TypeError, "StepDecay: argument 'learning_rate' expected a finite float, got '0.5'"),
    (lambda: lr.PiecewiseDecay([3, 5], [0.1]), ValueError, "'values' must have one more entry than 'boundaries'"),
    (lambda: lr.MultiStepDecay(0.5, [5, 3]), ValueError, "'milestones' must be strictly increasing"),
    (lambda: lr.OneCycleLR(1.0, 10, phase_pct=1.5), ValueError, "argument 'phase_pct' expected a value in (0, 1.0)"),
    (lambda: lr.CyclicLR(0.1, 1.0, 4, mode="zigzag"), ValueError, "argument 'mode' expected 'triangular'"),
    (lambda: lr.ReduceOnPlateau(0.1, factor=2.0), ValueError, "argument 'factor' expected a value < 1.0"),
    (lambda: lr.ReduceOnPlateau(0.1).step(eager.ones([2])), TypeError, "argument 'metrics' expected a number or a one-element tensor"),
    (lambda: lr.ReduceOnPlateau(0.1).step(float("nan")), ValueError, "a plateau needs finite values"),
    (lambda: lr.LambdaDecay(0.1, lambda e: -1.0), ValueError, "the learning rate for epoch 0 is -0.1"),
    (lambda: eager.optimizer.SGD(learning_rate=0.1, parameters=[eager.nn.Parameter(np.ones(1))]).set_lr_scheduler(0.1),
     TypeError, "set_lr_scheduler: argument 'scheduler' expected an eager.optimizer.lr.LRScheduler"),
])
def test_bad_arguments_raise_clear_errors(make, error, message):
    with pytest.raises(error) as info:
        make()
    assert message in str(info.value)


def test_one_cycle_refuses_to_run_past_its_total_steps():
    s = lr.OneCycleLR(1.0, total_steps=3)
    s.step(); s.step(); s.step()
    with pytest.raises(ValueError, match="OneCycleLR: stepped 4 times, beyond total_steps=3"):
        s.step()


# -- the function forms (noam_decay, polynomial_decay, ...) ----------------------------------

FUNCTION_FORMS = [
    (lambda: lr.noam_decay(64, 10, learning_rate=2.0), lr.NoamDecay,
     lambda t: 2.0 * 64 ** -0.5 * min(1.0 if t == 0 else t ** -0.5, t * 10 ** -1.5)),
    (lambda: lr.polynomial_decay(0.5, 20, 0.0, power=1), lr.PolynomialDecay,
     lambda t: 0.5 * (1 - min(t, 20) / 20)),
    (lambda: lr.polynomial_decay(0.5, 20, end_learning_rate=0.01, power=2.0, cycle=True), lr.PolynomialDecay,
     lambda t: 0.49 * (1 - t / (20 * max(1, math.ceil(t / 20)))) ** 2 + 0.01),
    (lambda: lr.piecewise_decay([5, 20], [0.3, 0.1, 0.01]), lr.PiecewiseDecay,
     lambda t: 0.3 if t < 5 else 0.1 if t < 20 else 0.01),
    # cosine_decay counts epochs; step_each_epoch does not enter the rate
    (lambda: lr.cosine_decay(0.1, step_each_epoch=10000, epochs=25), lr.CosineAnnealingDecay,
     lambda t: 0.1 * 0.5 * (math.cos(t * math.pi / 25) + 1)),
    (lambda: lr.linear_lr_warmup(0.5, 10, 0.0, 0.5), lr.LinearWarmup, lambda t: 0.05 * t if t < 10 else 0.5),
    (lambda: lr.exponential_decay(0.5, decay_steps=7, decay_rate=0.5), lr.ExponentialDecay,
     lambda t: 0.5 * 0.5 ** (t / 7)),
    (lambda: lr.exponential_decay(0.5, decay_steps=7, decay_rate=0.5, staircase=True), lr.LambdaDecay,
     lambda t: 0.5 * 0.5 ** (t // 7)),
    (lambda: lr.natural_exp_decay(0.5, decay_steps=7, decay_rate=0.3), lr.NaturalExpDecay,
     lambda t: 0.5 * math.exp(-0.3 * t / 7)),
    (lambda: lr.natural_exp_decay(0.5, decay_steps=7, decay_rate=0.3, staircase=True), lr.LambdaDecay,
     lambda t: 0.5 * math.exp(-0.3 * (t // 7))),
    (lambda: lr.inverse_time_decay(0.5, decay_steps=7, decay_rate=0.3), lr.InverseTimeDecay,
     lambda t: 0.5 / (1 + 0.3 * t / 7)),
    (lambda: lr.inverse_time_decay(0.5, decay_steps=7, decay_rate=0.3, staircase=True), lr.LambdaDecay,
     lambda t: 0.5 / (1 + 0.3 * (t // 7))),
]


@pytest.mark.parametrize("make, kind, formula", FUNCTION_FORMS)
def test_function_forms_return_the_schedule_of_their_formula(make, kind, formula):
    scheduler = make()
    assert type(scheduler) is kind
    np.testing.assert_allclose(rates(scheduler), [formula(t) for t in range(STEPS)], rtol=1e-12, atol=1e-15)


def test_function_form_drives_an_optimizer():
    net = eager.nn.Linear(2, 1)
    scheduler = lr.noam_decay(1 / (100 * 0.01 ** 2), 100, 0.01)
    opt = eager.optimizer.SGD(learning_rate=scheduler, parameters=net.parameters())
    scheduler.step()
    assert opt.get_lr() == pytest.approx(0.01 * (1 / (100 * 0.01 ** 2)) ** -0.5 * 100 ** -1.5)


@pytest.mark.parametrize("call, error, message", [
    (lambda: lr.cosine_decay(0.1, step_each_epoch=0, epochs=10), ValueError, "'step_each_epoch' expected a value > 0"),
    (lambda: lr.cosine_decay(0.1, step_each_epoch=1.5, epochs=10), TypeError, "'step_each_epoch' expected a finite int"),
    (lambda: lr.exponential_decay(0.1, 10, 0.5, staircase="yes"), TypeError, "'staircase' expected a bool"),
    (lambda: lr.exponential_decay(0.1, 0, 0.5), ValueError, "'decay_steps' expected a value > 0"),
    (lambda: lr.inverse_time_decay(0.1, 10, -0.5), ValueError, "'decay_rate' expected a value >= 0"),
    (lambda: lr.polynomial_decay(0.1, 0), ValueError, "PolynomialDecay: argument 'decay_steps'"),
])
def test_function_forms_check_their_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
