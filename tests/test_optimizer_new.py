"""eager.optimizer.NAdam, RAdam, ASGD and Rprop (Paddle 2.6): values against NumPy
loops of Paddle's rules over several steps (and torch.optim's NAdam, RAdam and
Rprop, whose rules are Paddle's; torch's ASGD is another method), weight decay,
gradient clipping, LR schedulers, parameter groups, float16 with master weights,
exact state-dict round trips through eager.save/load, and errors that change
nothing. Every test runs on the device axis (tests/conftest.py)."""
import math

import numpy as np
import pytest

import eager
from eager import nn
from eager.optimizer import ASGD, NAdam, RAdam, Rprop
from eager.regularizer import L2Decay

pytestmark = pytest.mark.usefixtures("device")

SHAPE = (3, 4)


def start(seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(SHAPE).astype(dtype)


def grads_sequence(n=8, seed=42, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(SHAPE).astype(dtype) for _ in range(n)]


def run(cls, grads, p0=None, **kwargs):
    p = nn.Parameter(start() if p0 is None else p0)
    opt = cls(parameters=[p], **kwargs)
    out = []
    for g in grads:
        p.grad = eager.to_tensor(g)
        opt.step()
        out.append(p.numpy().copy())
    return out, opt, p


# -- NumPy loops of Paddle's rules (its kernels' formulas, written from the maths) -----

def ref_nadam(p, grads, lr, beta1=0.9, beta2=0.999, eps=1e-8, psi=0.004, wd=0.0, lrs=None):
    m, v, prod, out = np.zeros_like(p), np.zeros_like(p), 1.0, []
    for t, g in enumerate(grads, 1):
        g = g + wd * p
        mu = beta1 * (1 - 0.5 * 0.96 ** (t * psi))
        mu_next = beta1 * (1 - 0.5 * 0.96 ** ((t + 1) * psi))
        prod *= mu
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        m_hat = mu_next * m / (1 - prod * mu_next) + (1 - mu) * g / (1 - prod)
        rate = lr if lrs is None else lrs[t - 1]
        p = p - rate * m_hat / (np.sqrt(v / (1 - beta2 ** t)) + eps)
        out.append(p)
    return out


def ref_radam(p, grads, lr, beta1=0.9, beta2=0.999, eps=1e-8, wd=0.0):
    m, v, out = np.zeros_like(p), np.zeros_like(p), []
    rho_inf = 2 / (1 - beta2) - 1
    for t, g in enumerate(grads, 1):
        g = g + wd * p
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        m_hat = m / (1 - beta1 ** t)
        rho_t = rho_inf - 2 * t * beta2 ** t / (1 - beta2 ** t)
        if rho_t > 5:
            r = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            p = p - lr * m_hat * r * math.sqrt(1 - beta2 ** t) / (np.sqrt(v) + eps)
        else:
            p = p - lr * m_hat
        out.append(p)
    return out


def ref_asgd(p, grads, lr, batch_num, wd=0.0):
    d, ys, out = np.zeros_like(p), [np.zeros_like(p) for _ in range(batch_num)], []
    for k, g in enumerate(grads):
        g = g + wd * p
        i = k % batch_num
        d = d - ys[i] + g
        ys[i] = g
        p = p - lr / min(k + 1, batch_num) * d
        out.append(p)
    return out


def ref_rprop(p, grads, lr, lo=1e-5, hi=50.0, eta_minus=0.5, eta_plus=1.2):
    prev, rates, out = np.zeros_like(p), np.full_like(p, lr), []
    for g in grads:
        g = g.copy()
        flat_g, flat_prev, flat_rates = g.reshape(-1), prev.reshape(-1), rates.reshape(-1)
        for i in range(flat_g.size):  # element by element, as the rule is stated
            s = flat_g[i] * flat_prev[i]
            if s > 0:
                flat_rates[i] = min(flat_rates[i] * eta_plus, hi)
            elif s < 0:
                flat_rates[i] = max(flat_rates[i] * eta_minus, lo)
                flat_g[i] = 0.0
        p = p - np.sign(g) * rates
        prev = g
        out.append(p)
    return out


CASES = [
    (NAdam, dict(learning_rate=0.01), lambda p, gs: ref_nadam(p, gs, 0.01)),
    (NAdam, dict(learning_rate=0.05, beta1=0.8, beta2=0.99, epsilon=1e-6, momentum_decay=0.01),
     lambda p, gs: ref_nadam(p, gs, 0.05, 0.8, 0.99, 1e-6, 0.01)),
    # beta2 = 0.999: steps 1-5 unrectified, 6-8 rectified
    (RAdam, dict(learning_rate=0.01), lambda p, gs: ref_radam(p, gs, 0.01)),
    # beta2 = 0.5: rho_inf = 3, never rectified (and r would divide by zero at rho_inf = 4, 2)
    (RAdam, dict(learning_rate=0.02, beta1=0.7, beta2=0.5), lambda p, gs: ref_radam(p, gs, 0.02, 0.7, 0.5)),
    (ASGD, dict(learning_rate=0.1, batch_num=3), lambda p, gs: ref_asgd(p, gs, 0.1, 3)),
    (Rprop, dict(learning_rate=0.01, learning_rate_range=(1e-3, 0.02), etas=(0.4, 1.5)),
     lambda p, gs: ref_rprop(p, gs, 0.01, 1e-3, 0.02, 0.4, 1.5)),
]


@pytest.mark.parametrize("cls, kwargs, ref", CASES, ids=[c[0].__name__ for c in CASES])
def test_matches_numpy_rule_over_steps(cls, kwargs, ref):
    grads = grads_sequence()
    if cls is Rprop:  # repeat signs so that rates grow, shrink and reach both bounds
        grads = grads[:3] + [g.copy() for g in grads[:3]] + [-g for g in grads[:2]]
    got, _, _ = run(cls, grads, **kwargs)
    want = ref(start(), grads)
    for step, (a, b) in enumerate(zip(got, want)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, err_msg=f"step {step + 1}")


@pytest.mark.parametrize("cls, kwargs, ref", CASES[::2], ids=[c[0].__name__ for c in CASES[::2]])
def test_float32_parameters_follow_the_rule(cls, kwargs, ref):
    grads = grads_sequence(6, dtype=np.float32)
    got, opt, p = run(cls, grads, p0=start(dtype=np.float32), **kwargs)
    assert p.dtype == eager.float32
    for key, value in opt.state_dict().items():
        if key.endswith("_m_0"):
            assert value.dtype == np.int64
        elif not key.startswith("@"):
            assert value.dtype == np.float32, key
    want = ref(start(dtype=np.float32).astype(np.float64), [g.astype(np.float64) for g in grads])
    np.testing.assert_allclose(got[-1], want[-1], rtol=2e-5, atol=2e-6)


def test_asgd_with_one_batch_is_sgd_and_its_slots_cycle():
    grads = grads_sequence(4)
    got, opt, p = run(ASGD, grads, learning_rate=0.1, batch_num=1)
    p_sgd = start()
    for g in grads:
        p_sgd = p_sgd - 0.1 * g
    np.testing.assert_allclose(got[-1], p_sgd, rtol=1e-13)
    _, opt, p = run(ASGD, grads, learning_rate=0.1, batch_num=3)
    state = opt.state_dict()
    assert state[f"{p.name}_y_0"].shape == (3, *SHAPE)
    np.testing.assert_array_equal(state[f"{p.name}_m_0"], [4])
    # slot 0 now holds the 4th gradient, slots 1 and 2 the 2nd and 3rd; d is their sum
    np.testing.assert_array_equal(state[f"{p.name}_y_0"][0], grads[3])
    np.testing.assert_array_equal(state[f"{p.name}_y_0"][1], grads[1])
    np.testing.assert_allclose(state[f"{p.name}_d_0"], grads[1] + grads[2] + grads[3], rtol=1e-13)


TORCH_CASES = [
    # torch keeps NAdam's mu_product in float32 (its default scalar dtype) even for float64
    # parameters: the same rule, agreeing to ~1e-9 relative rather than to rounding.
    (NAdam, dict(learning_rate=0.01, beta1=0.85, beta2=0.99, epsilon=1e-7, momentum_decay=0.006),
     "NAdam", dict(lr=0.01, betas=(0.85, 0.99), eps=1e-7, momentum_decay=0.006), 1e-7),
    (RAdam, dict(learning_rate=0.01, beta2=0.99), "RAdam", dict(lr=0.01, betas=(0.9, 0.99)), 1e-12),
    (Rprop, dict(learning_rate=0.01, learning_rate_range=(1e-4, 0.05), etas=(0.5, 1.2)),
     "Rprop", dict(lr=0.01, step_sizes=(1e-4, 0.05), etas=(0.5, 1.2)), 1e-12),
]


@pytest.mark.parametrize("cls, kwargs, torch_name, torch_kwargs, rtol", TORCH_CASES,
                         ids=[c[2] for c in TORCH_CASES])
def test_against_torch_optim(cls, kwargs, torch_name, torch_kwargs, rtol):
    torch = pytest.importorskip("torch")
    grads = grads_sequence(10)
    got, _, _ = run(cls, grads, **kwargs)
    tp = torch.tensor(start(), requires_grad=True)
    topt = getattr(torch.optim, torch_name)([tp], **torch_kwargs)
    for g, mine in zip(grads, got):
        tp.grad = torch.tensor(g)
        topt.step()
        np.testing.assert_allclose(mine, tp.detach().numpy(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("decay", [0.05, L2Decay(0.05)], ids=["float", "L2Decay"])
@pytest.mark.parametrize("cls, ref", [(NAdam, lambda p, gs, wd: ref_nadam(p, gs, 0.01, wd=wd)),
                                      (RAdam, lambda p, gs, wd: ref_radam(p, gs, 0.01, wd=wd)),
                                      (ASGD, lambda p, gs, wd: ref_asgd(p, gs, 0.01, 2, wd=wd))],
                         ids=["NAdam", "RAdam", "ASGD"])
def test_weight_decay_is_added_to_the_gradient(cls, ref, decay):
    grads = grads_sequence(7)
    extra = {"batch_num": 2} if cls is ASGD else {}
    got, _, _ = run(cls, grads, learning_rate=0.01, weight_decay=decay, **extra)
    np.testing.assert_allclose(got[-1], ref(start(), grads, 0.05)[-1], rtol=1e-12)


def test_grad_clip_and_lr_scheduler():
    grads = grads_sequence(5)
    clipped = [np.clip(g, -0.5, 0.5) for g in grads]
    got, _, _ = run(NAdam, grads, learning_rate=0.01, grad_clip=nn.ClipGradByValue(0.5))
    np.testing.assert_allclose(got[-1], ref_nadam(start(), clipped, 0.01)[-1], rtol=1e-12)
    sched = eager.optimizer.lr.StepDecay(learning_rate=0.1, step_size=2, gamma=0.5)
    p = nn.Parameter(start())
    opt = NAdam(learning_rate=sched, parameters=[p])
    rates = []
    for g in grads:
        rates.append(sched())
        p.grad = eager.to_tensor(g)
        opt.step()
        sched.step()
    assert rates == [0.1, 0.1, 0.05, 0.05, 0.025]
    np.testing.assert_allclose(p.numpy(), ref_nadam(start(), grads, None, lrs=rates)[-1], rtol=1e-12)


def test_rprop_reads_the_learning_rate_once_per_parameter():
    grads = grads_sequence(3)
    sched = eager.optimizer.lr.StepDecay(learning_rate=0.01, step_size=1, gamma=0.5)
    p = nn.Parameter(start())
    opt = Rprop(learning_rate=sched, parameters=[p])
    for g in grads:
        p.grad = eager.to_tensor(g)
        opt.step()
        sched.step()
    np.testing.assert_allclose(p.numpy(), ref_rprop(start(), grads, 0.01)[-1], rtol=1e-12)


def test_param_groups_set_hyperparameters_and_learning_rate_factor():
    grads = grads_sequence(4)
    a, b = nn.Parameter(start(0)), nn.Parameter(start(1))
    opt = RAdam(learning_rate=0.01, parameters=[{"params": [a]},
                                                {"params": [b], "beta1": 0.7, "learning_rate": 0.5}])
    for g in grads:
        a.grad, b.grad = eager.to_tensor(g), eager.to_tensor(g)
        opt.step()
    np.testing.assert_allclose(a.numpy(), ref_radam(start(0), grads, 0.01)[-1], rtol=1e-12)
    np.testing.assert_allclose(b.numpy(), ref_radam(start(1), grads, 0.005, beta1=0.7)[-1], rtol=1e-12)
    with pytest.raises(ValueError, match="unknown keys \\['momentum_decay'\\]"):
        RAdam(parameters=[{"params": [a], "momentum_decay": 0.1}])
    with pytest.raises(ValueError, match="'momentum_decay' expected a finite float >= 0"):
        NAdam(parameters=[{"params": [a], "momentum_decay": -0.1}])


@pytest.mark.parametrize("cls, kwargs, ref", [
    (ASGD, dict(batch_num=2), lambda p, gs: ref_asgd(p, gs, 0.01, 2)),
    (Rprop, {}, lambda p, gs: ref_rprop(p, gs, 0.01))], ids=["ASGD", "Rprop"])
def test_multi_precision_float16_updates_a_float32_master(cls, kwargs, ref):
    grads = grads_sequence(4)
    p0 = start().astype(np.float16)
    p = nn.Parameter(p0.copy())  # a host array may become the parameter's buffer
    opt = cls(learning_rate=0.01, parameters=[p], multi_precision=True, **kwargs)
    for g in grads:
        p.grad = eager.to_tensor(g.astype(np.float16))
        opt.step()
    master = opt.state_dict()["master_weights"][p.name]
    assert master.dtype == np.float32 and p.dtype == eager.float16
    want = ref(p0.astype(np.float64), [g.astype(np.float16).astype(np.float64) for g in grads])[-1]
    np.testing.assert_allclose(master, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(p.numpy(), master.astype(np.float16))


def test_float16_without_master_keeps_float32_state():
    p = nn.Parameter(start().astype(np.float16))
    opt = NAdam(learning_rate=0.01, parameters=[p])
    p.grad = eager.to_tensor(np.ones(SHAPE, np.float16))
    opt.step()
    state = opt.state_dict()
    assert state[f"{p.name}_moment1_0"].dtype == np.float32
    assert p.dtype == eager.float16
    want = ref_nadam(start().astype(np.float16).astype(np.float64), [np.ones(SHAPE)], 0.01)[0]
    np.testing.assert_allclose(p.numpy().astype(np.float64), want, rtol=1e-3)


ROUND_TRIP = [(NAdam, dict(learning_rate=0.01)), (RAdam, dict(learning_rate=0.01)),
              (ASGD, dict(learning_rate=0.01, batch_num=3)),
              (Rprop, dict(learning_rate=0.01, learning_rate_range=(1e-3, 0.05)))]


@pytest.mark.parametrize("cls, kwargs", ROUND_TRIP, ids=[c[0].__name__ for c in ROUND_TRIP])
def test_state_dict_round_trip_through_save_and_load_is_bit_exact(cls, kwargs, tmp_path):
    grads = grads_sequence(9)
    whole, _, _ = run(cls, grads, **kwargs)
    p = nn.Parameter(start())
    opt = cls(parameters=[p], **kwargs)
    for g in grads[:5]:
        p.grad = eager.to_tensor(g)
        opt.step()
    path = str(tmp_path / "opt.pdopt")
    eager.save(opt.state_dict(), path)
    q = nn.Parameter(p.numpy().copy())
    q.name = p.name
    fresh = cls(parameters=[q], **kwargs)
    fresh.set_state_dict(eager.load(path))
    for g in grads[5:]:
        q.grad = eager.to_tensor(g)
        fresh.step()
    assert q.numpy().tobytes() == whole[-1].tobytes()


def test_set_state_dict_checks_every_entry_first():
    p = nn.Parameter(start())
    opt = NAdam(parameters=[p])
    p.grad = eager.to_tensor(np.ones(SHAPE))
    opt.step()
    state = opt.state_dict()
    bad = dict(state, **{f"{p.name}_mu_product_0": np.array([1.5])})
    with pytest.raises(ValueError, match="mu_product_0' expected a beta power in \\[0, 1\\]"):
        opt.set_state_dict(bad)
    opt2 = ASGD(parameters=[p], batch_num=2)
    opt2.step()
    bad = dict(opt2.state_dict(), **{f"{p.name}_y_0": np.zeros(SHAPE)})
    with pytest.raises(ValueError, match=r"y_0' expected a Tensor or numpy array of paddle.float64\[2, 3, 4\]"):
        opt2.set_state_dict(bad)
    bad = dict(opt2.state_dict(), **{f"{p.name}_m_0": np.array([1.0])})
    with pytest.raises(ValueError, match=r"m_0' expected a Tensor or numpy array of paddle.int64\[1\]"):
        opt2.set_state_dict(bad)
    after = opt.state_dict()
    for key in state:
        if not key.startswith("@"):
            np.testing.assert_array_equal(after[key], state[key])


@pytest.mark.parametrize("make, message", [
    (lambda p: NAdam(parameters=p, beta1=1.0), "NAdam: argument 'beta1' expected a float in \\[0, 1\\)"),
    (lambda p: NAdam(parameters=p, epsilon=-1e-8), "NAdam: argument 'epsilon' expected a finite float >= 0"),
    (lambda p: NAdam(parameters=p, momentum_decay=-0.1), "NAdam: argument 'momentum_decay' expected"),
    (lambda p: RAdam(parameters=p, beta2=-0.1), "RAdam: argument 'beta2' expected a float in \\[0, 1\\)"),
    (lambda p: ASGD(parameters=p, batch_num=0), "ASGD: argument 'batch_num' expected an int > 0"),
    (lambda p: ASGD(parameters=p, batch_num=2.0), "ASGD: argument 'batch_num' expected an int > 0"),
    (lambda p: Rprop(parameters=p, etas=(0.5, 0.9)), "Rprop: argument 'etas' expected"),
    (lambda p: Rprop(parameters=p, etas=(0.5,)), "Rprop: argument 'etas' expected a pair"),
    (lambda p: Rprop(parameters=p, learning_rate=0.1, learning_rate_range=(1e-3, 0.05)),
     "0 < learning_rate_range\\[0\\] <= learning_rate <= learning_rate_range\\[1\\]"),
], ids=["nadam-beta1", "nadam-eps", "nadam-psi", "radam-beta2", "asgd-0", "asgd-float", "rprop-etas",
        "rprop-etas-pair", "rprop-range"])
def test_bad_hyperparameters(make, message):
    p = nn.Parameter(start())
    with pytest.raises(ValueError, match=message):
        make([p])
    np.testing.assert_array_equal(p.numpy(), start())


def test_phi_ops_check_everything_before_writing():
    from phi.api import optimizer as phi_opt
    from phi.core import DenseTensor
    from phi.core.errors import PhiError
    p, g = DenseTensor(np.ones(3)), DenseTensor(np.ones(3))
    one, lr = (lambda: DenseTensor(np.ones(1))), DenseTensor(np.array([0.1]))
    moment = DenseTensor(np.zeros(4))
    with pytest.raises(PhiError, match="nadam_.*argument 'moment1' expected paddle.float64\\[3\\]"):
        phi_opt.nadam_(p, g, lr, one(), one(), one(), moment, DenseTensor(np.zeros(3)))
    with pytest.raises(PhiError, match="radam_.*argument 'beta1' expected a float in \\[0, 1\\)"):
        phi_opt.radam_(p, g, lr, one(), one(), one(), DenseTensor(np.zeros(3)), DenseTensor(np.zeros(3)),
                       beta1=1.5)
    m = DenseTensor(np.zeros(1, np.int64))
    with pytest.raises(PhiError, match="asgd_.*argument 'ys' expected paddle.float64\\[2, 3\\]"):
        phi_opt.asgd_(p, g, lr, DenseTensor(np.zeros(3)), DenseTensor(np.zeros((3, 3))), m, batch_num=2)
    with pytest.raises(PhiError, match="asgd_.*argument 'm' expected one int64 element"):
        phi_opt.asgd_(p, g, lr, DenseTensor(np.zeros(3)), DenseTensor(np.zeros((2, 3))), one(), batch_num=2)
    rates = DenseTensor(np.full(3, 0.1))
    with pytest.raises(PhiError, match="rprop_.*argument 'etas' expected a pair"):
        phi_opt.rprop_(p, g, DenseTensor(np.zeros(3)), rates, etas=(1.5, 2.0))
    np.testing.assert_array_equal(p.array, np.ones(3))
    np.testing.assert_array_equal(m.array, [0])
    np.testing.assert_array_equal(rates.array, np.full(3, 0.1))


@pytest.mark.parametrize("cls", [NAdam, RAdam, ASGD, Rprop])
def test_a_zero_dimensional_parameter_updates_as_its_one_element_form(cls):
    scalar, vector = nn.Parameter(np.array(0.7)), nn.Parameter(np.array([0.7]))
    opts = [cls(parameters=[scalar], learning_rate=0.05), cls(parameters=[vector], learning_rate=0.05)]
    for g in (0.3, -1.2, 0.4, 0.5, 0.2, -0.1, 0.3):
        scalar.grad, vector.grad = eager.to_tensor(np.array(g)), eager.to_tensor(np.array([g]))
        for opt in opts:
            opt.step()
        assert scalar.shape == [] and scalar.numpy().tobytes() == vector.numpy().tobytes()


def test_large_parameter_updates_block_by_block_as_a_whole():
    # more elements than a host block (phi.kernels.optimizer._BLOCK): the blockwise path
    import phi.kernels.optimizer as kernels
    n = kernels._BLOCK + 77
    rng = np.random.default_rng(3)
    p0, grads = rng.standard_normal(n), [rng.standard_normal(n) for _ in range(7)]
    for cls, ref in ((NAdam, lambda: ref_nadam(p0, grads, 0.01)), (RAdam, lambda: ref_radam(p0, grads, 0.01)),
                     (ASGD, lambda: ref_asgd(p0, grads, 0.01, 1)), (Rprop, None)):
        p = nn.Parameter(p0.copy())
        opt = cls(parameters=[p], learning_rate=0.01)
        for g in grads:
            p.grad = eager.to_tensor(g)
            opt.step()
        if ref is None:  # the element-by-element loop is slow at this size: Rprop's rule vectorized
            prev, rates, want = np.zeros(n), np.full(n, 0.01), p0.copy()
            for g in grads:
                s = g * prev
                rates = np.clip(rates * np.where(s > 0, 1.2, np.where(s < 0, 0.5, 1.0)), 1e-5, 50)
                g = np.where(s < 0, 0.0, g)
                want, prev = want - np.sign(g) * rates, g
        else:
            want = ref()[-1]
        np.testing.assert_allclose(p.numpy(), want, rtol=1e-12, atol=1e-14, err_msg=cls.__name__)


def _new_ops():
    """(op, its tensors, a bad keyword and its message) for the four ops, on fresh
    float32 host tensors."""
    from phi.core import DenseTensor

    def dense(values, dtype="float32"):
        return DenseTensor(np.array(values, dtype))

    p, g, lr = dense([1.0, 2.0]), dense([0.5, -0.5]), dense(0.1)
    state, one = (lambda: dense([0.25, 0.5])), (lambda: dense([1.0]))
    return {
        "nadam_": ((p, g, lr, one(), one(), one(), state(), state()), {"momentum_decay": -1.0},
                   "argument 'momentum_decay' expected a finite float >= 0"),
        "radam_": ((p, g, lr, one(), one(), one(), state(), state()), {"epsilon": -1.0},
                   "argument 'epsilon' expected a finite float >= 0"),
        "asgd_": ((p, g, lr, state(), dense([[0.0, 0.0]]), dense([0], "int64")), {"batch_num": 2},
                  "argument 'ys' expected paddle.float32\\[2, 2\\]"),
        "rprop_": ((p, g, state(), state()), {"learning_rate_range": (0.5, 0.1)},
                   "argument 'learning_rate_range' expected a pair"),
    }


@pytest.mark.parametrize("op", ["nadam_", "radam_", "asgd_", "rprop_"])
def test_the_ops_remember_a_checked_signature_and_check_a_changed_call_in_full(op, device):
    from phi.api import optimizer as phi_opt
    from phi.core.errors import InvalidArgumentError
    if device == "gpu":
        pytest.skip("host tensors: the signature cache is the same code on both places")
    checked, remembered = _new_ops()[op][0], _new_ops()[op][0]
    fn = getattr(phi_opt, op)
    phi_opt._FUSED_SEEN[op].clear()
    fn(*remembered)
    assert len(phi_opt._FUSED_SEEN[op]) == 1
    fn(*remembered)  # a hit: nothing new remembered
    assert len(phi_opt._FUSED_SEEN[op]) == 1
    for _ in range(2):
        phi_opt._FUSED_SEEN[op].clear()  # the checked path both times
        fn(*checked)
    for a, b in zip(checked, remembered):
        assert a.array.tobytes() == b.array.tobytes() and a.version == b.version
    _, bad, message = _new_ops()[op]
    before = [t.array.copy() for t in remembered]
    with pytest.raises(InvalidArgumentError, match=f"{op}: {message}"):
        fn(*remembered, **bad)
    for t, b in zip(remembered, before):  # the failed call wrote nothing
        np.testing.assert_array_equal(t.array, b)


@pytest.mark.parametrize("cls, reads", [(NAdam, 0), (RAdam, 0), (Rprop, 0), (ASGD, 1)],
                         ids=["NAdam", "RAdam", "Rprop", "ASGD"])
def test_a_gpu_step_reads_nothing_back_but_asgds_slot(cls, reads, device):
    # On the GPU the per-step scalars stay 0-d device arrays (RAdam's branch is an
    # xp.where); ASGD reads its step count, one int per parameter, as Paddle's .item().
    from conftest import REAL_GPU
    if device != "gpu" or REAL_GPU:
        pytest.skip("counts transfers with tests/fake_cupy.py's counters, on the gpu axis")
    import fake_cupy
    params = [nn.Parameter(start(0)), nn.Parameter(start(1))]
    opt = cls(parameters=params, learning_rate=0.01)
    grads = [eager.to_tensor(g) for g in grads_sequence(2)]
    for step in range(8):  # past RAdam's switch to the rectified step
        for p, g in zip(params, grads):
            p.grad = g
        down, up = fake_cupy.transfers[0], fake_cupy.uploads[0]
        opt.step()
        if step > 0:  # the first step makes the accumulators
            assert (fake_cupy.transfers[0] - down, fake_cupy.uploads[0] - up) == (reads * len(params), 0)


@pytest.mark.parametrize("cls, kwargs", ROUND_TRIP, ids=[c[0].__name__ for c in ROUND_TRIP])
def test_a_to_static_training_step_replays_and_matches_eager_bit_for_bit(cls, kwargs, recwarn):
    weights = []
    for convert in (False, True):
        eager.seed(0)
        net = nn.Linear(3, 2)
        opt = cls(parameters=net.parameters(), **kwargs)

        def step(x):
            loss = net(x).mean() ** 2
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss

        fn = eager.jit.to_static(step) if convert else step
        rng = np.random.default_rng(1)
        for _ in range(7):  # ASGD's slots cycle twice; RAdam rectifies from step 6
            fn(eager.to_tensor(rng.standard_normal((4, 3)).astype(np.float32)))
        weights.append(net.weight.numpy())
    assert fn.replays == 5 and not [w for w in recwarn if "runs eagerly" in str(w.message)]
    assert weights[0].tobytes() == weights[1].tobytes()
