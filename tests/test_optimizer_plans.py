"""Optimizer step plans (eager/optimizer/plan.py): each parameter's update is
worked out once and reused while what it rests on holds. Whatever the step
read before plans must still take effect from the step after it changes (the
parameter's ParamAttr learning rate and regularizer, the optimizer's rate,
regularization and settings, a Layer.to move), the user's callables are
asked at every step, a failing update still names the parameter and writes
nothing. Values against the update rules written out in NumPy."""
import gc
import weakref

import numpy as np
import pytest

import eager
from eager import nn
from eager.optimizer import SGD, AdamW, Lamb, Momentum
from eager.optimizer.lr import StepDecay
from eager.regularizer import L1Decay, L2Decay
from phi.core.errors import InvalidArgumentError

# On the CPU and with the GPU (tests/fake_cupy.py) as the default place.
pytestmark = pytest.mark.usefixtures("device")


def param(seed, shape=(3, 2), name=None):
    return nn.Parameter(np.random.default_rng(seed).standard_normal(shape), name=name)  # float64


def set_grad(p, seed):
    g = np.random.default_rng(100 + seed).standard_normal(p.shape).astype(p.numpy().dtype)
    p.grad = eager.to_tensor(g)
    return g


def test_plans_are_made_once_and_reused_while_nothing_changes():
    a, b = param(0), param(1, (4,))
    opt = SGD(0.1, parameters=[a, b])
    expected = [a.numpy().copy(), b.numpy().copy()]
    first = None
    for step in range(3):
        for i, p in enumerate((a, b)):
            expected[i] = expected[i] - 0.1 * set_grad(p, 2 * step + i)
        opt.step()
        plans = list(opt._plans.values())
        first = first or plans
        assert len(plans) == 2 and all(x is y for x, y in zip(plans, first))
    # a few float64 ulps: CUDA contracts p - lr * g into one fused multiply-add
    np.testing.assert_allclose(a.numpy(), expected[0], rtol=1e-14)
    np.testing.assert_allclose(b.numpy(), expected[1], rtol=1e-14)


def test_a_changed_param_learning_rate_applies_from_the_next_step():
    p = param(0)
    opt = SGD(0.1, parameters=[p])
    expected = p.numpy() - 0.1 * set_grad(p, 1)
    opt.step()
    p.optimize_attr["learning_rate"] = 0.5  # read at every step, as Paddle
    expected = expected - 0.05 * set_grad(p, 2)
    opt.step()
    np.testing.assert_allclose(p.numpy(), expected, rtol=1e-15)


def test_set_lr_and_a_scheduler_apply_from_the_next_step():
    p, q = param(0), param(1)
    opt = SGD(0.1, parameters=[p])
    scheduled = SGD(StepDecay(0.1, step_size=1, gamma=0.5), parameters=[q])
    expected_p, expected_q = p.numpy().copy(), q.numpy().copy()
    for step, rate in enumerate([0.1, 0.2, 0.4]):
        opt.set_lr(rate)
        expected_p = expected_p - rate * set_grad(p, step)
        expected_q = expected_q - 0.1 * 0.5 ** step * set_grad(q, step)
        opt.step()
        scheduled.step()
        scheduled._lr_scheduler.step()
    np.testing.assert_allclose(p.numpy(), expected_p, rtol=1e-15)
    np.testing.assert_allclose(q.numpy(), expected_q, rtol=1e-15)


@pytest.mark.parametrize("cls", [SGD, Momentum])
def test_regularizers_set_between_steps_apply(cls):
    # step 1 no decay; 2 the parameter's own L2; 3 the optimizer's L1 (the own one
    # removed); 4 none again. Momentum runs L2 inside its kernel, L1 on the gradient.
    p = param(0)
    opt = cls(0.1, parameters=[p]) if cls is SGD else cls(0.1, momentum=0.9, parameters=[p])
    value, velocity = p.numpy().copy(), np.zeros(p.shape)
    for step in range(4):
        if step == 1:
            p.regularizer = L2Decay(0.3)
        elif step == 2:
            p.regularizer = None
            opt.regularization = L1Decay(0.2)
        elif step == 3:
            opt.regularization = None
        g = set_grad(p, step)
        if step == 1:
            g = g + 0.3 * value if cls is SGD else value * 0.3 + g
        elif step == 2:
            g = g + 0.2 * np.sign(value)
        if cls is SGD:
            value = value - 0.1 * g
        else:
            velocity = velocity * 0.9 + g
            value = value - velocity * 0.1
        opt.step()
        np.testing.assert_allclose(p.numpy(), value, rtol=1e-14, err_msg=f"step {step}")


def test_a_changed_parameter_group_value_applies_from_the_next_step():
    a, b = param(0), param(1)
    opt = Momentum(0.1, momentum=0.9, parameters=[{"params": [a]}, {"params": [b], "learning_rate": 2.0}])
    value, velocity = b.numpy().copy(), np.zeros(b.shape)
    for step, ratio in enumerate([2.0, 0.5, 0.5]):
        if step == 1:
            opt._param_groups[1]["learning_rate"] = 0.5
        set_grad(a, 10 + step)
        velocity = velocity * 0.9 + set_grad(b, step)
        value = value - velocity * (0.1 * ratio)
        opt.step()
    np.testing.assert_allclose(b.numpy(), value, rtol=1e-14)


def test_a_layer_moved_to_another_dtype_gets_a_new_plan():
    net = nn.Linear(3, 2)  # float32
    opt = SGD(0.1, parameters=net.parameters())
    for p in net.parameters():
        set_grad(p, 0)
    opt.step()
    net.to(dtype="float64")
    expected = []
    for i, p in enumerate(net.parameters()):
        expected.append(p.numpy() - 0.1 * set_grad(p, 1 + i))
    opt.step()
    for p, want in zip(net.parameters(), expected):
        assert p.dtype == eager.float64
        np.testing.assert_allclose(p.numpy(), want, rtol=1e-15)
        assert opt._plans[id(p)].impl is p.impl


def test_adamw_and_lamb_callables_are_asked_at_every_step():
    a, b = param(0, name="w"), param(1, name="bias")
    asked = []
    adamw = AdamW(0.01, parameters=[a, b],
                  apply_decay_param_fun=lambda name: asked.append(("decay", name)) or name != "bias",
                  lr_ratio=lambda p: asked.append(("ratio", p.name)) or 1.0)
    lamb = Lamb(0.01, parameters=[a, b], exclude_from_weight_decay_fn=lambda p: asked.append(("lamb", p.name)))
    for step in range(3):
        set_grad(a, step)
        set_grad(b, 5 + step)
        adamw.step()
        lamb.step()
    for kind in ("decay", "ratio", "lamb"):
        assert sorted(name for k, name in asked if k == kind) == ["bias"] * 3 + ["w"] * 3


def test_a_failing_update_still_names_the_parameter_and_writes_nothing():
    w = param(0, (2,), name="encoder.w")
    opt = Momentum(0.1, parameters=[w])
    for step in range(2):  # the plan and the op's remembered signature are made
        set_grad(w, step)
        opt.step()
    velocity = opt._accumulators[("velocity", id(w))]
    velocity.impl.array = eager.zeros([3], "float64").impl.array  # on w's place; the plan holds velocity
    before, version = w.numpy().copy(), w.inplace_version
    with pytest.raises(InvalidArgumentError,
                       match=r"Momentum.step: parameter 'encoder.w': momentum_: argument 'velocity'"):
        opt.step()
    np.testing.assert_array_equal(w.numpy(), before)
    assert w.inplace_version == version


def test_an_optimizer_with_plans_is_freed_without_the_cycle_collector():
    p = param(0)
    opt = AdamW(0.01, parameters=[p], apply_decay_param_fun=lambda name: True)
    set_grad(p, 0)
    opt.step()
    assert opt._plans
    ref = weakref.ref(opt)
    gc.disable()
    try:
        del opt
        assert ref() is None  # plans hold the parameter's tensors, never the optimizer
    finally:
        gc.enable()
