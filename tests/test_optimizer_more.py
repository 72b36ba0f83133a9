"""eager.optimizer: Adamax, Adagrad, Adadelta, RMSProp and Lamb against their update
rules written in NumPy over several steps (and torch.optim where its rule is
Paddle's), LBFGS on the Rosenbrock function (to the minimum, and iterate for
iterate against torch.optim.LBFGS), parameter groups, exact state-dict round
trips of every optimizer and hyperparameter errors that change nothing."""
import math

import numpy as np
import pytest

import eager
from eager import nn
from eager.optimizer import (SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, Lamb, LBFGS, Momentum,
                             RMSProp)
from eager.regularizer import L2Decay

# Every test runs on the device axis (tests/conftest.py): on the CPU and with the GPU as the default place.
pytestmark = pytest.mark.usefixtures("device")


def make_param(seed=0, shape=(3, 2)):
    return nn.Parameter(np.random.default_rng(seed).standard_normal(shape))  # float64


def grads_sequence(n=5, shape=(3, 2), seed=42):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) for _ in range(n)]


def run(opt_cls, grads, seed=0, **kwargs):
    p = make_param(seed)
    opt = opt_cls(parameters=[p], **kwargs)
    out = []
    for g in grads:
        p.grad = eager.to_tensor(g)
        opt.step()
        out.append(p.numpy().copy())
    return out


# -- NumPy references of Paddle's rules ----------------------------------------------

def ref_adamax(p, grads, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    m, u, out = np.zeros_like(p), np.zeros_like(p), []
    for t, g in enumerate(grads, 1):
        m = beta1 * m + (1 - beta1) * g
        u = np.maximum(beta2 * u + eps, np.abs(g))
        p = p - lr / (1 - beta1 ** t) * m / u
        out.append(p)
    return out


def ref_adagrad(p, grads, lr, eps=1e-6, init=0.0):
    acc, out = np.full_like(p, init), []
    for g in grads:
        acc = acc + g * g
        p = p - lr * g / (np.sqrt(acc) + eps)
        out.append(p)
    return out


def ref_adadelta(p, grads, lr, rho=0.95, eps=1e-6):
    eg, ex, out = np.zeros_like(p), np.zeros_like(p), []
    for g in grads:
        eg = rho * eg + (1 - rho) * g * g
        upd = np.sqrt((ex + eps) / (eg + eps)) * g
        ex = rho * ex + (1 - rho) * upd * upd
        p = p - lr * upd
        out.append(p)
    return out


def ref_rmsprop(p, grads, lr, rho=0.95, eps=1e-6, momentum=0.0, centered=False):
    ms, mg, mom, out = np.zeros_like(p), np.zeros_like(p), np.zeros_like(p), []
    for g in grads:
        ms = rho * ms + (1 - rho) * g * g
        if centered:
            mg = rho * mg + (1 - rho) * g
            denom = np.sqrt(ms - mg * mg + eps)
        else:
            denom = np.sqrt(ms + eps)
        mom = momentum * mom + lr * g / denom
        p = p - mom
        out.append(p)
    return out


def ref_lamb(p, grads, lr, wd=0.01, beta1=0.9, beta2=0.999, eps=1e-6, always_adapt=False):
    m, v, out = np.zeros_like(p), np.zeros_like(p), []
    for t, g in enumerate(grads, 1):
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        r = (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + eps) + wd * p
        pn, rn = np.linalg.norm(p), np.linalg.norm(r)
        # Paddle: no trust ratio for a parameter without decay unless always_adapt
        trust = pn / rn if pn > 0 and rn > 0 and (wd > 0 or always_adapt) else 1.0
        p = p - lr * trust * r
        out.append(p)
    return out


CASES = [
    (Adamax, dict(learning_rate=0.05, beta1=0.8, beta2=0.99, epsilon=1e-3),
     lambda p, gs: ref_adamax(p, gs, 0.05, 0.8, 0.99, 1e-3)),
    (Adagrad, dict(learning_rate=0.1, epsilon=1e-4, initial_accumulator_value=0.3),
     lambda p, gs: ref_adagrad(p, gs, 0.1, 1e-4, 0.3)),
    (Adadelta, dict(learning_rate=0.5, rho=0.9, epsilon=1e-3),
     lambda p, gs: ref_adadelta(p, gs, 0.5, 0.9, 1e-3)),
    (RMSProp, dict(learning_rate=0.01, rho=0.9, epsilon=1e-3),
     lambda p, gs: ref_rmsprop(p, gs, 0.01, 0.9, 1e-3)),
    (RMSProp, dict(learning_rate=0.01, rho=0.9, epsilon=1e-3, momentum=0.5, centered=True),
     lambda p, gs: ref_rmsprop(p, gs, 0.01, 0.9, 1e-3, 0.5, True)),
    (Lamb, dict(learning_rate=0.02, lamb_weight_decay=0.1, beta1=0.8, beta2=0.9, epsilon=1e-4),
     lambda p, gs: ref_lamb(p, gs, 0.02, 0.1, 0.8, 0.9, 1e-4)),
]


@pytest.mark.parametrize("cls, kwargs, ref", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_new_optimizers_match_their_numpy_rule(cls, kwargs, ref):
    grads = grads_sequence()
    got = run(cls, grads, **kwargs)
    want = ref(make_param().numpy(), grads)
    for step, (a, b) in enumerate(zip(got, want)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, err_msg=f"step {step + 1}")


def test_step_is_in_place_and_state_is_named_as_paddle():
    p = make_param()
    buffer = p.impl.array
    opt = RMSProp(learning_rate=0.01, parameters=[p], centered=True)
    p.grad = eager.to_tensor(np.ones((3, 2)))
    opt.step()
    assert p.impl.array is buffer and p.is_leaf
    keys = set(opt.state_dict())
    assert {f"{p.name}_momentum_0", f"{p.name}_mean_square_0", f"{p.name}_mean_grad_0"} <= keys
    opt = Adamax(parameters=[p])
    p.grad = eager.to_tensor(np.ones((3, 2)))
    opt.step()
    state = opt.state_dict()
    np.testing.assert_allclose(state[f"{p.name}_beta1_pow_acc_0"], [0.9 * 0.9])


def test_lamb_exclude_from_weight_decay_and_zero_parameter_trust_ratio():
    grads = grads_sequence(3)
    got = run(Lamb, grads, learning_rate=0.02, exclude_from_weight_decay_fn=lambda p: True)
    want = ref_lamb(make_param().numpy(), grads, 0.02, wd=0.0)
    np.testing.assert_allclose(got[-1], want[-1], rtol=1e-12)
    # always_adapt=True keeps the trust ratio for the excluded parameter (Paddle's flag)
    got = run(Lamb, grads, learning_rate=0.02, exclude_from_weight_decay_fn=lambda p: True, always_adapt=True)
    want = ref_lamb(make_param().numpy(), grads, 0.02, wd=0.0, always_adapt=True)
    np.testing.assert_allclose(got[-1], want[-1], rtol=1e-12)
    # a zero parameter: ||param|| = 0, so the trust ratio is 1 (a plain Adam-like step)
    p = nn.Parameter(np.zeros(4))
    opt = Lamb(learning_rate=0.1, parameters=[p])
    p.grad = eager.to_tensor(np.array([1.0, -2.0, 0.5, 0.0]))
    opt.step()
    np.testing.assert_allclose(p.numpy(), ref_lamb(np.zeros(4), [p.grad.numpy()], 0.1)[0])


def test_multi_precision_float16_updates_a_float32_master():
    grads = grads_sequence(3)
    p = nn.Parameter(make_param().numpy().astype(np.float16))
    opt = Adagrad(learning_rate=0.1, parameters=[p], multi_precision=True)
    for g in grads:
        p.grad = eager.to_tensor(g.astype(np.float16))
        opt.step()
    master = opt.state_dict()["master_weights"][p.name]
    want = ref_adagrad(make_param().numpy().astype(np.float16).astype(np.float32),
                       [g.astype(np.float16).astype(np.float32) for g in grads], 0.1)[-1]
    np.testing.assert_allclose(master, want, rtol=1e-5)
    assert p.dtype == eager.float16
    np.testing.assert_array_equal(p.numpy(), master.astype(np.float16))


# -- torch.optim where its rule is Paddle's ---------------------------------------------

TORCH_CASES = [
    # Adagrad: the same rule (torch's lr_decay=0); eps set equal.
    (Adagrad, dict(learning_rate=0.1, epsilon=1e-6, initial_accumulator_value=0.1),
     "Adagrad", dict(lr=0.1, eps=1e-6, initial_accumulator_value=0.1)),
    # Adadelta: the same rule, learning rate included.
    (Adadelta, dict(learning_rate=0.7, rho=0.9, epsilon=1e-6), "Adadelta", dict(lr=0.7, rho=0.9, eps=1e-6)),
    # RMSProp: equal only with epsilon 0 (Paddle: inside the sqrt) and a constant lr
    # (Paddle: inside the momentum buffer).
    (RMSProp, dict(learning_rate=0.01, rho=0.9, epsilon=0.0, momentum=0.7, centered=True),
     "RMSprop", dict(lr=0.01, alpha=0.9, eps=0.0, momentum=0.7, centered=True)),
    (Momentum, dict(learning_rate=0.1, momentum=0.9, use_nesterov=True),
     "SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
]


@pytest.mark.parametrize("cls, kwargs, torch_name, torch_kwargs", TORCH_CASES,
                         ids=lambda c: getattr(c, "__name__", ""))
def test_against_torch_optim(cls, kwargs, torch_name, torch_kwargs):
    torch = pytest.importorskip("torch")
    grads = grads_sequence()
    got = run(cls, grads, **kwargs)
    w = torch.tensor(make_param().numpy(), requires_grad=True)
    opt = getattr(torch.optim, torch_name)([w], **torch_kwargs)
    for step, g in enumerate(grads):
        w.grad = torch.tensor(g)
        opt.step()
        np.testing.assert_allclose(got[step], w.detach().numpy(), rtol=1e-10, atol=1e-12)


# -- LBFGS -------------------------------------------------------------------------------

def rosenbrock_lbfgs(line_search_fn, steps, dtype="float64", **kwargs):
    x = eager.to_tensor(np.array([-1.5, 2.0], dtype), stop_gradient=False)
    opt = LBFGS(parameters=[x], line_search_fn=line_search_fn, **kwargs)
    evaluations = []

    def closure():
        opt.clear_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        evaluations.append(float(loss))
        return loss

    iterates = []
    for _ in range(steps):
        opt.step(closure)
        iterates.append(x.numpy().copy())
    return np.array(iterates), opt, evaluations


@pytest.mark.parametrize("line_search_fn, steps", [("strong_wolfe", 3), (None, 15)])
def test_lbfgs_minimizes_rosenbrock(line_search_fn, steps):
    iterates, opt, evaluations = rosenbrock_lbfgs(line_search_fn, steps)
    np.testing.assert_allclose(iterates[-1], [1.0, 1.0], atol=1e-4)
    assert evaluations[-1] < 1e-8
    assert opt.state["func_evals"] == len(evaluations)


def test_lbfgs_float32_with_strong_wolfe():
    iterates, _, _ = rosenbrock_lbfgs("strong_wolfe", 3, dtype="float32")
    np.testing.assert_allclose(iterates[-1], [1.0, 1.0], atol=1e-4)


@pytest.mark.parametrize("line_search_fn", ["strong_wolfe", None])
def test_lbfgs_iterates_match_torch(line_search_fn):
    torch = pytest.importorskip("torch")
    ours, _, _ = rosenbrock_lbfgs(line_search_fn, 3, history_size=5)
    x = torch.tensor([-1.5, 2.0], dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([x], line_search_fn=line_search_fn, history_size=5)

    def closure():
        opt.zero_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        return loss

    for step in range(3):
        opt.step(closure)
        # each step is 20 iterations; rounding (dot products) differs by ulps
        np.testing.assert_allclose(ours[step], x.detach().numpy(), rtol=1e-5, err_msg=f"step {step}")


def test_lbfgs_state_dict_round_trip_continues_exactly():
    def fresh(start):
        x = eager.to_tensor(np.array(start), stop_gradient=False)
        opt = LBFGS(parameters=[x], line_search_fn="strong_wolfe", max_iter=3, history_size=4)

        def closure():
            opt.clear_grad()
            loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
            loss.backward()
            return loss
        return x, opt, closure

    x, opt, closure = fresh([-1.5, 2.0])
    opt.step(closure)
    saved, at = opt.state_dict(), x.numpy().copy()
    opt.step(closure)
    opt.step(closure)
    x2, opt2, closure2 = fresh(at)
    opt2.set_state_dict(saved)
    opt2.step(closure2)
    opt2.step(closure2)
    np.testing.assert_array_equal(x.numpy(), x2.numpy())


def test_lbfgs_bad_arguments():
    x = eager.to_tensor(np.ones(2), stop_gradient=False)
    with pytest.raises(ValueError, match="LBFGS: argument 'line_search_fn'"):
        LBFGS(parameters=[x], line_search_fn="armijo")
    with pytest.raises(ValueError, match="LBFGS: argument 'history_size'"):
        LBFGS(parameters=[x], history_size=0)
    with pytest.raises(ValueError, match="LBFGS: argument 'learning_rate'"):
        LBFGS(learning_rate=float("nan"), parameters=[x])
    opt = LBFGS(parameters=[x])
    with pytest.raises(TypeError, match="LBFGS.step: argument 'closure'"):
        opt.step()
    with pytest.raises(ValueError, match="'d' expected a vector of 2"):
        opt.set_state_dict({"state": {"n_iter": 5, "d": np.ones(3)}})
    assert opt.state == {"func_evals": 0, "n_iter": 0}


# -- parameter groups --------------------------------------------------------------------

def test_param_groups_learning_rate_multiplier_weight_decay_and_hyperparameters():
    grads = grads_sequence(3)
    a, b = make_param(1), make_param(2)
    a0, b0 = a.numpy().copy(), b.numpy().copy()
    opt = Adam(learning_rate=0.1, parameters=[
        {"params": [a]},
        {"params": [b], "learning_rate": 0.5, "weight_decay": L2Decay(0.1), "beta1": 0.5}])
    for g in grads:
        a.grad, b.grad = eager.to_tensor(g), eager.to_tensor(g)
        opt.step()

    def ref(p, lr, beta1, wd):
        m = v = np.zeros_like(p)
        for t, g in enumerate(grads, 1):
            g = g + wd * p
            m = beta1 * m + (1 - beta1) * g
            v = 0.999 * v + 0.001 * g * g
            lr_t = lr * math.sqrt(1 - 0.999 ** t) / (1 - beta1 ** t)
            p = p - lr_t * m / (np.sqrt(v) + 1e-8 * math.sqrt(1 - 0.999 ** t))
        return p

    np.testing.assert_allclose(a.numpy(), ref(a0, 0.1, 0.9, 0.0), rtol=1e-12)
    np.testing.assert_allclose(b.numpy(), ref(b0, 0.05, 0.5, 0.1), rtol=1e-12)


def test_param_groups_sgd_adamw_and_add_param_group():
    a, b, c = make_param(1), make_param(2), make_param(3)
    starts = [p.numpy().copy() for p in (a, b, c)]
    opt = SGD(learning_rate=0.1, parameters=[{"params": [a], "learning_rate": 2.0}])
    opt.add_param_group({"params": [c], "weight_decay": 0.5})
    g = np.ones((3, 2))
    a.grad, c.grad = eager.to_tensor(g), eager.to_tensor(g)
    opt.step()
    np.testing.assert_allclose(a.numpy(), starts[0] - 0.2 * g)
    np.testing.assert_allclose(c.numpy(), starts[2] - 0.1 * (g + 0.5 * starts[2]))
    # AdamW: a group's weight_decay is the decoupled coefficient
    opt = AdamW(learning_rate=0.1, parameters=[{"params": [b], "weight_decay": 0.3}])
    b.grad = eager.to_tensor(g)
    opt.step()
    np.testing.assert_allclose(b.numpy(), starts[1] * (1 - 0.1 * 0.3) - 0.1 * np.sign(g), rtol=1e-6)


def test_param_group_errors_change_nothing():
    a, b = make_param(1), make_param(2)
    with pytest.raises(ValueError, match="group 0 has unknown keys \\['beta9'\\]"):
        Adam(parameters=[{"params": [a], "beta9": 0.1}])
    with pytest.raises(ValueError, match="group 1 'learning_rate' expected"):
        SGD(parameters=[{"params": [a]}, {"params": [b], "learning_rate": -1.0}])
    with pytest.raises(ValueError, match="'beta1' expected a float in \\[0, 1\\)"):
        Adam(parameters=[{"params": [a], "beta1": 1.0}])
    with pytest.raises(ValueError, match="in two parameter groups"):
        SGD(parameters=[{"params": [a]}, {"params": [a]}])
    with pytest.raises(TypeError, match="mixes Tensors and parameter group dicts"):
        SGD(parameters=[{"params": [a]}, b])
    opt = SGD(parameters=[{"params": [a]}])
    with pytest.raises(ValueError, match="already in another group"):
        opt.add_param_group({"params": [a, b]})
    assert len(opt._parameter_list) == 1 and len(opt._param_groups) == 1


# -- state dicts round trip for every optimizer ----------------------------------------

ALL = [
    (SGD, dict(learning_rate=0.1)),
    (Momentum, dict(learning_rate=0.1, use_nesterov=True, weight_decay=0.01)),
    (Adam, dict(learning_rate=0.01)),
    (AdamW, dict(learning_rate=0.01)),
    (Adamax, dict(learning_rate=0.01)),
    (Adagrad, dict(learning_rate=0.1)),
    (Adadelta, dict(learning_rate=1.0)),
    (RMSProp, dict(learning_rate=0.01, momentum=0.9, centered=True)),
    (Lamb, dict(learning_rate=0.01)),
]


@pytest.mark.parametrize("cls, kwargs", ALL, ids=lambda c: getattr(c, "__name__", ""))
def test_state_dict_round_trip_with_groups_is_bit_exact(cls, kwargs):
    grads = grads_sequence(6)

    def build(values=None):
        a, b = make_param(1), make_param(2)
        a.name, b.name = "a", "b"
        if values is not None:
            a.set_value(values[0]), b.set_value(values[1])
        opt = cls(parameters=[{"params": [a]}, {"params": [b], "learning_rate": 0.5}], **kwargs)
        return a, b, opt

    def steps(a, b, opt, gs):
        for g in gs:
            a.grad, b.grad = eager.to_tensor(g), eager.to_tensor(-g)
            opt.step()

    a, b, opt = build()
    steps(a, b, opt, grads[:3])
    saved, values = opt.state_dict(), (a.numpy().copy(), b.numpy().copy())
    steps(a, b, opt, grads[3:])
    a2, b2, opt2 = build(values)
    opt2.set_state_dict(saved)
    steps(a2, b2, opt2, grads[3:])
    np.testing.assert_array_equal(a.numpy(), a2.numpy())
    np.testing.assert_array_equal(b.numpy(), b2.numpy())


# -- hyperparameter errors ---------------------------------------------------------------

@pytest.mark.parametrize("cls, kwargs, message", [
    (Adadelta, dict(learning_rate=1.0, rho=1.0), "Adadelta: argument 'rho' expected a float in \\(0, 1\\)"),
    (Adadelta, dict(learning_rate=1.0, rho=0.0), "'rho' expected a float in \\(0, 1\\)"),
    (RMSProp, dict(learning_rate=0.1, rho=1.5), "RMSProp: argument 'rho'"),
    (RMSProp, dict(learning_rate=0.1, momentum=-0.1), "RMSProp: argument 'momentum'"),
    (RMSProp, dict(learning_rate=float("nan")), "RMSProp: argument 'learning_rate'"),
    (Adagrad, dict(learning_rate=-0.1), "Adagrad: argument 'learning_rate'"),
    (Adagrad, dict(learning_rate=0.1, epsilon=-1.0), "Adagrad: argument 'epsilon'"),
    (Adagrad, dict(learning_rate=0.1, initial_accumulator_value=float("inf")),
     "'initial_accumulator_value'"),
    (Adamax, dict(beta1=1.0), "Adamax: argument 'beta1'"),
    (Lamb, dict(lamb_weight_decay=-0.1), "Lamb: argument 'lamb_weight_decay'"),
    (Lamb, dict(beta2=-0.5), "Lamb: argument 'beta2'"),
])
def test_bad_hyperparameters(cls, kwargs, message):
    with pytest.raises(ValueError, match=message):
        cls(parameters=[make_param()], **kwargs)


def test_bad_learning_rate_in_set_lr_changes_nothing():
    p = make_param()
    opt = RMSProp(learning_rate=0.1, parameters=[p])
    for bad in (float("nan"), -1.0, float("inf")):
        with pytest.raises(ValueError, match="set_lr: argument 'learning_rate'"):
            opt.set_lr(bad)
    assert opt.get_lr() == 0.1


def test_minimize_and_clear_grad():
    p = make_param()
    start = p.numpy().copy()
    opt = Adagrad(learning_rate=0.1, parameters=[p])
    loss = (p * p).sum()
    loss.backward()
    ops, params_grads = opt.minimize(loss)
    assert ops == [] and params_grads[0][0] is p
    np.testing.assert_allclose(p.numpy(), ref_adagrad(start, [2 * start], 0.1)[0])
    opt.clear_grad(set_to_zero=False)
    assert p.grad is None
    with pytest.raises(TypeError, match="LBFGS.minimize"):
        LBFGS(parameters=[p]).minimize(loss)


def test_phi_api_checks_before_writing():
    from phi.api import optimizer as phi_opt
    from phi.core import DenseTensor
    from phi.core.errors import PhiError
    param = DenseTensor(np.ones(3))
    moment = DenseTensor(np.zeros(4))
    with pytest.raises(PhiError, match="argument 'moment' expected"):
        phi_opt.adagrad_(param, DenseTensor(np.ones(3)), moment, DenseTensor(np.array(0.1)))
    with pytest.raises(PhiError, match="argument 'rho' expected a float in \\(0, 1\\)"):
        phi_opt.adadelta_(param, DenseTensor(np.ones(3)), DenseTensor(np.zeros(3)),
                          DenseTensor(np.zeros(3)), DenseTensor(np.array(0.1)), rho=1.0)
    with pytest.raises(PhiError, match="'mean_grad' is required with centered=True"):
        phi_opt.rmsprop_(param, DenseTensor(np.zeros(3)), DenseTensor(np.ones(3)),
                         DenseTensor(np.zeros(3)), DenseTensor(np.array(0.1)), centered=True)
    np.testing.assert_array_equal(param.array, np.ones(3))
    np.testing.assert_array_equal(moment.array, np.zeros(4))


@pytest.mark.parametrize("cls", [SGD, Momentum, Adam, AdamW, Adamax, Adagrad, Adadelta, RMSProp, Lamb])
def test_a_zero_dimensional_parameter_updates_as_its_one_element_form(cls):
    # A 0-d update must not turn a scratch array into a NumPy scalar (Lamb's did).
    scalar, vector = nn.Parameter(np.array(0.7)), nn.Parameter(np.array([0.7]))
    kwargs = {"learning_rate": 0.05}
    opts = [cls(parameters=[scalar], **kwargs), cls(parameters=[vector], **kwargs)]
    for g in (0.3, -1.2, 0.4):
        scalar.grad, vector.grad = eager.to_tensor(np.array(g)), eager.to_tensor(np.array([g]))
        for opt in opts:
            opt.step()
        assert scalar.shape == [] and scalar.numpy().tobytes() == vector.numpy().tobytes()
