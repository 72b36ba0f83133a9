"""eager.incubate.optimizer.LarsMomentumOptimizer (Paddle 2.6's
paddle.incubate.optimizer.LarsMomentumOptimizer) and its phi op lars_momentum_:
values of a Linear layer over three steps from Paddle 2.6.2 (with and without
exclude_from_weight_decay, rescale_grad and epsilon, an LRScheduler, grad_clip,
regularization), float64 values against a NumPy loop of the rule (which agrees
with Paddle 2.6.2 to ~1e-8, Paddle's attributes being float32), float16 with a
master weight, state-dict keys and an exact round trip, and errors that change
nothing. Every test runs on the device axis (tests/conftest.py)."""
import doctest

import numpy as np
import pytest

import eager
from eager import nn
from eager.incubate.optimizer import LarsMomentumOptimizer
from eager.incubate.optimizer import lars_momentum as incubate_lars
from eager.optimizer import lars_momentum as lars_module
from eager.optimizer.optimizer import HyperparameterNotSetError
from phi.api import optimizer as phi_opt
from phi.core import DenseTensor
from phi.core.errors import PhiError

pytestmark = pytest.mark.usefixtures("device")


def lars_reference(p, grads, lrs, mu, coeff=0.001, wd=0.0005, eps=0.0, rescale=1.0):
    """Paddle's lars_momentum rule, one step per gradient, in float64."""
    p, v = p.astype(np.float64).copy(), np.zeros(p.shape)
    for g, lr in zip(grads, lrs):
        g = rescale * g
        p_norm, g_norm = np.sqrt((p * p).sum()), np.sqrt((g * g).sum())
        local = lr
        if wd > 0 and p_norm > 0 and g_norm > 0:
            local = lr * coeff * p_norm / (g_norm + wd * p_norm + eps)
        v = mu * v + local * (g + wd * p)
        p = p - v
    return p, v


# -- values from Paddle 2.6.2 -----------------------------------------------------
# Linear(3, 2) with W, B below, loss = mean(linear(X) ** 2), learning_rate=0.1,
# momentum=0.9, three steps; (weight flattened, bias) after the third, from Paddle 2.6.2.
PADDLE_CASES = {
    "default": ({}, [1.7627488, 0.39981142, 0.97792584, 2.240599, 1.8662659, -0.97700596],
                [0.9495744, -0.15152146]),
    "lars": (dict(lars_coeff=0.5, lars_weight_decay=0.01),
             [1.1386874, 0.2317137, 0.58876514, 2.091469, 1.2466557, -0.8389105], [0.70298576, -0.23116124]),
    "exclude": (dict(lars_coeff=0.5, lars_weight_decay=0.01, exclude_from_weight_decay=["b_0"]),
                [1.1403917, 0.23315951, 0.6017324, 2.0946207, 1.2386696, -0.8297193],
                [-0.29592556, -0.5564017]),
    "rescale_epsilon": (dict(lars_coeff=0.5, lars_weight_decay=0.01, rescale_grad=0.25, epsilon=0.3),
                        [1.2985743, 0.2758812, 0.6892924, 2.118578, 1.4048852, -0.8719139],
                        [0.77913517, -0.20533311]),
    "grad_clip": (dict(lars_coeff=0.5, grad_clip="global_norm_0.1"),
                  [1.1405053, 0.23248914, 0.5902903, 2.0861802, 1.2481, -0.8375052], [0.7029485, -0.23064232]),
    "regularization": (dict(lars_coeff=0.5, regularization="l2_0.1"),
                       [1.144726, 0.23554239, 0.59560335, 2.0474854, 1.2497997, -0.8258656],
                       [0.70171976, -0.22721699]),
    "no_weight_decay": (dict(lars_weight_decay=0.0),
                        [0.6964736, 0.10938631, 0.32714224, 1.9948834, 0.7944766, -0.72258806],
                        [-0.2553825, -0.54935634]),
    "scheduler": (dict(lars_coeff=0.5, learning_rate="step_decay"),
                  [1.3178313, 0.28088418, 0.7004849, 2.1391726, 1.4250274, -0.8821815],
                  [0.77418524, -0.20799008]),
}
# Paddle 2.6.2's velocities after the "scheduler" case's three steps.
PADDLE_SCHEDULER_VELOCITY = ([0.16999072, 0.045709454, 0.10606645, 0.03903953, 0.16865154, -0.03683284],
                             [0.06699129, 0.021695508])


def linear_data():
    rng = np.random.RandomState(0)
    return (rng.randn(3, 2).astype("float32"), rng.randn(2).astype("float32"),
            rng.randn(4, 3).astype("float32"))


def run_linear(steps=3, **kwargs):
    w, b, x = linear_data()
    lin = nn.Linear(3, 2)
    lin.weight.set_value(w)
    lin.bias.set_value(b)
    lr = kwargs.pop("learning_rate", 0.1)
    scheduler = eager.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5) if lr == "step_decay" else None
    if kwargs.get("grad_clip") == "global_norm_0.1":
        kwargs["grad_clip"] = nn.ClipGradByGlobalNorm(0.1)
    if kwargs.get("regularization") == "l2_0.1":
        kwargs["regularization"] = eager.regularizer.L2Decay(0.1)
    opt = LarsMomentumOptimizer(learning_rate=scheduler or lr, momentum=0.9, parameter_list=lin.parameters(),
                                **kwargs)
    for _ in range(steps):
        loss = (lin(eager.to_tensor(x)) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        if scheduler is not None:
            scheduler.step()
    return lin, opt


@pytest.mark.parametrize("case", sorted(PADDLE_CASES))
def test_linear_layer_matches_paddle(case):
    kwargs, weight, bias = PADDLE_CASES[case]
    lin, _ = run_linear(**dict(kwargs))
    np.testing.assert_allclose(lin.weight.numpy().ravel(), weight, rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(lin.bias.numpy(), bias, rtol=2e-6, atol=1e-7)


def test_state_dict_keys_and_velocities_match_paddle():
    lin, opt = run_linear(**dict(PADDLE_CASES["scheduler"][0]))
    state = opt.state_dict()
    w_key, b_key = f"{lin.weight.name}_velocity_0", f"{lin.bias.name}_velocity_0"
    assert {w_key, b_key, "LR_Scheduler"} <= set(state)
    assert [k for k in state if "velocity" in k and k not in (w_key, b_key)] == []
    np.testing.assert_allclose(np.asarray(state[w_key]).ravel(), PADDLE_SCHEDULER_VELOCITY[0], rtol=2e-6)
    np.testing.assert_allclose(np.asarray(state[b_key]).ravel(), PADDLE_SCHEDULER_VELOCITY[1], rtol=2e-6)


@pytest.mark.parametrize("kwargs", [
    dict(lars_coeff=0.5, lars_weight_decay=0.01),
    dict(lars_coeff=0.25, lars_weight_decay=0.125, epsilon=0.5, rescale_grad=0.5),
    dict(lars_coeff=0.3, lars_weight_decay=0.0),
    dict(),
], ids=["lars", "eps-rescale", "no-decay", "defaults"])
def test_float64_follows_the_rule_over_steps(kwargs):
    rng = np.random.default_rng(1)
    start = rng.standard_normal((5, 4))
    grads = [rng.standard_normal((5, 4)) for _ in range(4)] + [np.zeros((5, 4))]  # a zero gradient: plain lr
    p = nn.Parameter(start.copy())
    opt = LarsMomentumOptimizer(0.1, 0.9, parameter_list=[p], **kwargs)
    for g in grads:
        p.grad = eager.to_tensor(g)
        opt.step()
    ref_p, ref_v = lars_reference(start, grads, [0.1] * 5, 0.9, **{
        {"lars_coeff": "coeff", "lars_weight_decay": "wd", "epsilon": "eps", "rescale_grad": "rescale"}[k]: v
        for k, v in kwargs.items()})
    np.testing.assert_allclose(p.numpy(), ref_p, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(np.asarray(opt.state_dict()[f"{p.name}_velocity_0"]), ref_v, rtol=1e-12,
                               atol=1e-14)


def test_a_zero_parameter_takes_the_plain_learning_rate():
    p = nn.Parameter(np.zeros(3))
    opt = LarsMomentumOptimizer(0.1, 0.9, lars_coeff=0.5, parameter_list=[p])
    p.grad = eager.to_tensor(np.array([1.0, -2.0, 3.0]))
    opt.step()
    np.testing.assert_allclose(p.numpy(), [-0.1, 0.2, -0.3], rtol=1e-15)


def test_the_gradient_is_not_written():
    p = nn.Parameter(np.ones(4))
    opt = LarsMomentumOptimizer(0.1, 0.9, rescale_grad=0.5, parameter_list=[p])
    g = np.arange(4.0)
    p.grad = eager.to_tensor(g.copy())
    opt.step()
    np.testing.assert_array_equal(p.grad.numpy(), g)


def test_multi_precision_float16_updates_a_float32_master():
    rng = np.random.default_rng(3)
    start = rng.standard_normal(6).astype(np.float16)
    grads = [rng.standard_normal(6).astype(np.float16) for _ in range(3)]
    p = nn.Parameter(start.copy())
    opt = LarsMomentumOptimizer(0.1, 0.9, lars_coeff=0.5, lars_weight_decay=0.01, parameter_list=[p],
                                multi_precision=True)
    for g in grads:
        p.grad = eager.to_tensor(g)
        opt.step()
    ref, _ = lars_reference(start, [g.astype(np.float64) for g in grads], [0.1] * 3, 0.9, coeff=0.5, wd=0.01)
    master = opt._master_weights[id(p)].numpy()
    assert master.dtype == np.float32 and p.numpy().dtype == np.float16
    np.testing.assert_allclose(master, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(p.numpy(), master.astype(np.float16))


def test_state_dict_round_trip_is_bit_exact():
    rng = np.random.default_rng(5)
    start = rng.standard_normal((3, 4))
    grads = [rng.standard_normal((3, 4)) for _ in range(6)]
    kwargs = dict(lars_coeff=0.5, lars_weight_decay=0.01, epsilon=0.1)
    whole = nn.Parameter(start.copy())
    opt = LarsMomentumOptimizer(0.1, 0.9, parameter_list=[whole], **kwargs)
    for g in grads:
        whole.grad = eager.to_tensor(g)
        opt.step()
    p = nn.Parameter(start.copy())
    opt = LarsMomentumOptimizer(0.1, 0.9, parameter_list=[p], **kwargs)
    for g in grads[:3]:
        p.grad = eager.to_tensor(g)
        opt.step()
    q = nn.Parameter(p.numpy().copy())
    q.name = p.name
    fresh = LarsMomentumOptimizer(0.1, 0.9, parameter_list=[q], **kwargs)
    fresh.set_state_dict(opt.state_dict())
    for g in grads[3:]:
        q.grad = eager.to_tensor(g)
        fresh.step()
    assert q.numpy().tobytes() == whole.numpy().tobytes()


def test_a_zero_dimensional_parameter_updates_as_its_one_element_form():
    scalar, vector = nn.Parameter(np.array(0.7)), nn.Parameter(np.array([0.7]))
    opts = [LarsMomentumOptimizer(0.05, 0.9, lars_coeff=0.5, parameter_list=[t]) for t in (scalar, vector)]
    for g in (0.3, -1.2, 0.4):
        scalar.grad, vector.grad = eager.to_tensor(np.array(g)), eager.to_tensor(np.array([g]))
        for opt in opts:
            opt.step()
        assert scalar.shape == [] and scalar.numpy().tobytes() == vector.numpy().tobytes()


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(learning_rate=None), HyperparameterNotSetError, "argument 'learning_rate' is not set"),
    (dict(momentum=None), HyperparameterNotSetError, "argument 'momentum' is not set"),
    (dict(lars_coeff="a"), TypeError, "LarsMomentumOptimizer: argument 'lars_coeff' expected a finite float"),
    (dict(epsilon=-1.0), ValueError, "argument 'epsilon' expected a finite float >= 0"),
    (dict(lars_weight_decay=float("nan")), ValueError, "argument 'lars_weight_decay' expected"),
    (dict(rescale_grad=-1.0), ValueError, "argument 'rescale_grad' expected"),
    (dict(exclude_from_weight_decay=3), TypeError, "argument 'exclude_from_weight_decay' expected None or a list"),
    (dict(exclude_from_weight_decay=[1]), TypeError, "holding int"),
    (dict(parameter_list=None), ValueError, "LarsMomentumOptimizer: argument 'parameter_list' is required"),
    (dict(regularization="l2"), TypeError, "LarsMomentumOptimizer: argument 'regularization' expected"),
    (dict(grad_clip=3), TypeError, "argument 'grad_clip' expected"),
    (dict(learning_rate="a"), TypeError, "argument 'learning_rate'"),
], ids=["lr-none", "mu-none", "coeff-str", "eps-neg", "wd-nan", "rescale-neg", "exclude-int",
        "exclude-items", "no-params", "regularization", "clip", "lr-str"])
def test_bad_arguments(kwargs, error, message):
    p = nn.Parameter(np.ones(3))
    full = dict(learning_rate=0.1, momentum=0.9, parameter_list=[p])
    full.update(kwargs)
    with pytest.raises(error, match=message):
        LarsMomentumOptimizer(**full)


def test_phi_op_checks_everything_before_writing():
    p, g, v = DenseTensor(np.ones(3)), DenseTensor(np.ones(3)), DenseTensor(np.zeros(3))
    lr = DenseTensor(np.array([0.1]))
    with pytest.raises(PhiError, match="lars_momentum_.*argument 'velocity' expected paddle.float64\\[3\\]"):
        phi_opt.lars_momentum_(p, g, DenseTensor(np.zeros(4)), lr)
    with pytest.raises(PhiError, match="lars_momentum_.*argument 'lars_coeff' expected a finite float >= 0"):
        phi_opt.lars_momentum_(p, g, v, lr, lars_coeff=-0.5)
    with pytest.raises(PhiError, match="lars_momentum_.*argument 'epsilon' expected a finite float >= 0"):
        phi_opt.lars_momentum_(p, g, v, lr, epsilon="x")
    np.testing.assert_array_equal(p.array, np.ones(3))
    np.testing.assert_array_equal(v.array, np.zeros(3))


def test_parameter_groups_set_momentum_and_a_learning_rate_factor():
    # Paddle 2.6's LarsMomentumOptimizer fails at its first step with groups
    # (AttributeError); here they work as for Momentum.
    a, b = nn.Parameter(np.ones(2)), nn.Parameter(np.ones(2))
    opt = LarsMomentumOptimizer(0.1, 0.9, lars_coeff=0.5, parameter_list=[
        {"params": [a]}, {"params": [b], "momentum": 0.0, "learning_rate": 0.5}])
    grads = [np.full(2, 2.0)] * 3
    for g in grads:
        a.grad, b.grad = eager.to_tensor(g), eager.to_tensor(g)
        opt.step()
    np.testing.assert_allclose(a.numpy(), lars_reference(np.ones(2), grads, [0.1] * 3, 0.9, coeff=0.5)[0],
                               rtol=1e-13)
    np.testing.assert_allclose(b.numpy(), lars_reference(np.ones(2), grads, [0.05] * 3, 0.0, coeff=0.5)[0],
                               rtol=1e-13)


def test_paddle_module_path():
    assert incubate_lars.LarsMomentumOptimizer is LarsMomentumOptimizer is lars_module.LarsMomentumOptimizer
    assert eager.incubate.optimizer.lars_momentum is incubate_lars


def test_docstring_example_runs(device):
    if device == "gpu":
        pytest.skip("once is enough")
    result = doctest.testmod(lars_module, extraglobs={"eager": eager})
    assert result.failed == 0 and result.attempted > 0
