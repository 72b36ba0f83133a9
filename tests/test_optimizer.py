"""eager.optimizer: SGD, Momentum, Adam and AdamW steps against hand-written NumPy
over several steps (weight decay, per-parameter learning rates, regularizers,
gradient clipping, float16 master weights, sparse gradients), inplace
semantics, state dicts (exact round trip, atomic restore) and argument errors.
torch.optim comparisons are in test_optimizer_kernels.py."""
import math

import numpy as np
import pytest

import eager
from eager import nn
from eager.optimizer import SGD, Adam, AdamW, Momentum
from eager.regularizer import L1Decay, L2Decay
from phi.core import DenseTensor
from phi.core.selected_rows import SelectedRows

# Every test runs on the device axis (tests/conftest.py): on the CPU and with the GPU as the default place.
pytestmark = pytest.mark.usefixtures("device")


def make_param(seed=0, shape=(3, 2)):
    rng = np.random.default_rng(seed)
    return nn.Parameter(rng.standard_normal(shape))  # float64


def run_steps(opt_cls, grads, seed=0, **kwargs):
    """Applies opt_cls to one parameter with the given sequence of gradients
    (each set as .grad), returning the parameter's value after each step."""
    p = make_param(seed)
    opt = opt_cls(parameters=[p], **kwargs)
    values = []
    for g in grads:
        p.grad = eager.to_tensor(g)
        opt.step()
        values.append(p.numpy().copy())
    return p, values


def grads_sequence(n=4, shape=(3, 2)):
    rng = np.random.default_rng(42)
    return [rng.standard_normal(shape) for _ in range(n)]


def test_sgd_step_matches_numpy_and_is_inplace():
    p = make_param()
    start = p.numpy().copy()
    buffer = p.impl.array
    version = p.inplace_version
    opt = SGD(learning_rate=0.1, parameters=[p])
    g = np.full((3, 2), 0.5)
    p.grad = eager.to_tensor(g)
    opt.step()
    np.testing.assert_allclose(p.numpy(), start - 0.1 * g, rtol=1e-15)
    assert p.impl.array is buffer, "the update must write into the parameter's own buffer"
    assert p.inplace_version > version
    assert p.is_leaf and not p.stop_gradient


def test_sgd_weight_decay_and_param_learning_rate():
    grads = grads_sequence(2)
    p, values = run_steps(SGD, grads, learning_rate=0.1, weight_decay=0.01)
    ref = make_param().numpy().copy()
    for g, got in zip(grads, values):
        ref = ref - 0.1 * (g + 0.01 * ref)
        np.testing.assert_allclose(got, ref, rtol=1e-13)
    q = nn.Parameter(np.ones(2), learning_rate=0.5)
    q.grad = eager.to_tensor(np.ones(2))
    SGD(learning_rate=0.2, parameters=[q]).step()
    np.testing.assert_allclose(q.numpy(), 1 - 0.2 * 0.5)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_matches_numpy(nesterov):
    grads = grads_sequence(4)
    _, values = run_steps(Momentum, grads, learning_rate=0.05, momentum=0.8, use_nesterov=nesterov)
    param = make_param().numpy().copy()
    velocity = np.zeros_like(param)
    for g, got in zip(grads, values):
        velocity = 0.8 * velocity + g
        param = param - 0.05 * ((g + 0.8 * velocity) if nesterov else velocity)
        np.testing.assert_allclose(got, param, rtol=1e-13)


def test_adam_matches_numpy():
    grads = grads_sequence(5)
    lr, b1, b2, eps = 0.01, 0.8, 0.95, 1e-6
    _, values = run_steps(Adam, grads, learning_rate=lr, beta1=b1, beta2=b2, epsilon=eps)
    param = make_param().numpy().copy()
    m = np.zeros_like(param)
    v = np.zeros_like(param)
    for t, (g, got) in enumerate(zip(grads, values), start=1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        lr_t = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        param = param - lr_t * m / (np.sqrt(v) + eps * math.sqrt(1 - b2 ** t))
        np.testing.assert_allclose(got, param, rtol=1e-12)


def test_adam_first_step_moves_each_weight_by_about_lr():
    # With bias correction, step 1 is lr * g / |g| (up to epsilon): the defining Adam property.
    p = make_param()
    start = p.numpy().copy()
    p.grad = eager.to_tensor(np.array([[1e-3, -5.0], [2.0, -0.1], [7.0, 3.0]]))
    Adam(learning_rate=0.01, parameters=[p]).step()
    np.testing.assert_allclose(start - p.numpy(), 0.01 * np.sign(p.grad.numpy()), rtol=1e-4)


def test_step_skips_parameters_without_grad_and_clear_grad():
    a, b = make_param(0), make_param(1)
    before = b.numpy().copy()
    opt = SGD(learning_rate=0.1, parameters=[a, b])
    (a * a).sum().backward()
    opt.step()
    np.testing.assert_array_equal(b.numpy(), before)
    opt.clear_grad()
    np.testing.assert_array_equal(a.grad.numpy(), np.zeros((3, 2)))
    opt.clear_grad(set_to_zero=False)
    assert a.grad is None


def test_training_loop_reduces_loss_and_keeps_parameters_leaves():
    nn.seed(0)
    net = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    rng = np.random.default_rng(0)
    x = eager.to_tensor(rng.standard_normal((32, 3)).astype("float32"))
    y = eager.to_tensor(rng.standard_normal((32, 1)).astype("float32"))
    for opt in (SGD(0.1, parameters=net.parameters()),
                Momentum(0.05, parameters=net.parameters()),
                Adam(0.01, parameters=net.parameters())):
        losses = []
        for _ in range(20):
            loss = nn.functional.mse_loss(net(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(loss.item())
        assert losses[-1] < losses[0], type(opt).__name__
    assert all(p.is_leaf for p in net.parameters())


def test_optimizer_argument_errors():
    p = make_param()
    with pytest.raises(ValueError, match="SGD: argument 'parameters' is required"):
        SGD(0.1)
    with pytest.raises(TypeError, match="SGD: argument 'parameters' expected a list of Tensors, got one Tensor"):
        SGD(0.1, parameters=p)
    with pytest.raises(TypeError, match="Adam: argument 'parameters' expected a list of Tensors, position 1 is ndarray"):
        Adam(0.1, parameters=[p, np.ones(2)])
    with pytest.raises(ValueError, match="Momentum: argument 'learning_rate' expected a finite float >= 0, got -0.1"):
        Momentum(-0.1, parameters=[p])
    with pytest.raises(TypeError, match="SGD: argument 'learning_rate' expected a float, got '0.1'"):
        SGD("0.1", parameters=[p])
    with pytest.raises(ValueError, match=r"Adam: argument 'beta1' expected a float in \[0, 1\), got 1.0"):
        Adam(0.1, beta1=1.0, parameters=[p])
    with pytest.raises(ValueError, match="SGD: argument 'parameters' lists the same tensor twice"):
        SGD(0.1, parameters=[p, p])
    x = eager.to_tensor([1.0], stop_gradient=False)
    with pytest.raises(ValueError, match="SGD: argument 'parameters' position 0 is not a leaf"):
        SGD(0.1, parameters=[x * 2])
    with pytest.raises(TypeError, match="SGD: argument 'grad_clip' expected None, eager.nn.ClipGradByValue, "
                                        "ClipGradByNorm or ClipGradByGlobalNorm, got object"):
        SGD(0.1, parameters=[p], grad_clip=object())
    with pytest.raises(TypeError, match="SGD: argument 'weight_decay' expected a finite float >= 0, an "
                                        "eager.regularizer.L1Decay/L2Decay or None, got 'x'"):
        SGD(0.1, parameters=[p], weight_decay="x")
    with pytest.raises(TypeError, match="AdamW: argument 'lr_ratio' expected a callable or None, got float"):
        AdamW(0.1, parameters=[p], lr_ratio=0.5)
    with pytest.raises(TypeError, match="Adam: argument 'multi_precision' expected a bool, got int 1"):
        Adam(0.1, parameters=[p], multi_precision=1)


def test_set_lr():
    p = make_param()
    opt = SGD(0.1, parameters=[p])
    opt.set_lr(0.5)
    assert opt.get_lr() == 0.5
    opt.set_lr(0.0)  # a zero rate is taken, as Paddle
    assert opt.get_lr() == 0.0
    with pytest.raises(ValueError, match="SGD.set_lr: argument 'learning_rate'"):
        opt.set_lr(-1e-3)


@pytest.mark.parametrize("opt_cls", [SGD, Momentum, Adam])
def test_step_leaves_grad_unchanged_and_invalidates_saved_graph(opt_cls):
    p = make_param()
    g = np.full((3, 2), 0.25)
    p.grad = eager.to_tensor(g)
    opt_cls(learning_rate=0.1, parameters=[p], weight_decay=0.1).step()
    np.testing.assert_array_equal(p.grad.numpy(), g)
    # A graph that saved p before the update must refuse to backpropagate.
    q = make_param(1)
    out = (q * q).sum()
    q.grad = eager.to_tensor(g)
    opt_cls(learning_rate=0.1, parameters=[q]).step()
    with pytest.raises(eager.autograd.AutogradError, match="modified by an inplace operation"):
        out.backward()


# -- NumPy references, several steps ------------------------------------------------
def numpy_adam(param, grads, lr, b1, b2, eps, decay=0.0, coeff=0.0):
    """Paddle's Adam (coeff: AdamW's decoupled decay; decay: L2 added to the gradient)."""
    m = np.zeros_like(param)
    v = np.zeros_like(param)
    out = []
    for t, g in enumerate(grads, start=1):
        param = param * (1 - lr * coeff)
        g = g + decay * param if decay else g
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        lr_t = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        param = param - lr_t * m / (np.sqrt(v) + eps * math.sqrt(1 - b2 ** t))
        out.append(param)
    return out


def test_adam_with_l2_weight_decay_matches_numpy():
    grads = grads_sequence(5)
    _, values = run_steps(Adam, grads, learning_rate=0.01, weight_decay=0.05)
    ref = numpy_adam(make_param().numpy(), grads, 0.01, 0.9, 0.999, 1e-8, decay=0.05)
    for got, want in zip(values, ref):
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("ratio", [1.0, 0.5])
def test_adamw_matches_numpy_with_lr_ratio_and_decay_filter(ratio):
    grads = grads_sequence(5)
    w = make_param(0)
    w.name = "fc.w_0"
    b = make_param(1)
    b.name = "fc.b_0"
    opt = AdamW(0.02, parameters=[w, b], weight_decay=0.1, lr_ratio=lambda p: ratio,
                apply_decay_param_fun=lambda name: name.endswith("w_0"))
    w0, b0 = w.numpy().copy(), b.numpy().copy()
    for g in grads:
        w.grad = eager.to_tensor(g)
        b.grad = eager.to_tensor(g)
        opt.step()
    want_w = numpy_adam(w0, grads, 0.02 * ratio, 0.9, 0.999, 1e-8, coeff=0.1)[-1]
    want_b = numpy_adam(b0, grads, 0.02 * ratio, 0.9, 0.999, 1e-8)[-1]  # exempt from decay
    np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-12)
    np.testing.assert_allclose(b.numpy(), want_b, rtol=1e-12)


def test_momentum_l2_decay_in_the_kernel_and_rescale_grad_match_numpy():
    grads = grads_sequence(4)
    for decay in (0.01, L2Decay(0.01)):
        _, values = run_steps(Momentum, grads, learning_rate=0.05, momentum=0.9, weight_decay=decay,
                              rescale_grad=0.5)
        param = make_param().numpy().copy()
        velocity = np.zeros_like(param)
        for g, got in zip(grads, values):
            velocity = 0.9 * velocity + (0.5 * g + 0.01 * param)
            param = param - 0.05 * velocity
            np.testing.assert_allclose(got, param, rtol=1e-13)


def test_l1_decay_and_a_parameter_regularizer_take_precedence():
    grads = grads_sequence(3)
    _, values = run_steps(SGD, grads, learning_rate=0.1, weight_decay=L1Decay(0.2))
    ref = make_param().numpy().copy()
    for g, got in zip(grads, values):
        ref = ref - 0.1 * (g + 0.2 * np.sign(ref))
        np.testing.assert_allclose(got, ref, rtol=1e-13)
    # A parameter's own regularizer replaces the optimizer's (Paddle's precedence),
    # also for Momentum, whose optimizer-level L2 otherwise runs inside the kernel.
    for cls in (SGD, Momentum):
        layer = nn.Linear(3, 2, weight_attr=nn.ParamAttr(regularizer=L1Decay(0.3)))
        w0, b0 = layer.weight.numpy().copy(), layer.bias.numpy().copy()
        g_w, g_b = np.ones((3, 2), "float32"), np.ones(2, "float32")
        layer.weight.grad, layer.bias.grad = eager.to_tensor(g_w), eager.to_tensor(g_b)
        cls(0.1, parameters=layer.parameters(), weight_decay=0.5).step()
        np.testing.assert_allclose(layer.weight.numpy(), w0 - 0.1 * (g_w + 0.3 * np.sign(w0)), rtol=1e-6)
        np.testing.assert_allclose(layer.bias.numpy(), b0 - 0.1 * (g_b + 0.5 * b0), rtol=1e-6)


def test_parameter_learning_rate_scales_every_optimizer():
    for cls in (SGD, Momentum, Adam, AdamW):
        a = nn.Parameter(np.ones(3), learning_rate=0.25)
        b = nn.Parameter(np.ones(3))
        opt = cls(0.2, parameters=[a, b])
        for _ in range(2):
            a.grad = eager.to_tensor(np.full(3, 0.5))
            b.grad = eager.to_tensor(np.full(3, 0.5))
            opt.step()
        # Moving by lr * ratio vs lr: the same rule with a 4x smaller rate.
        c = nn.Parameter(np.ones(3))
        ref = cls(0.05, parameters=[c])
        for _ in range(2):
            c.grad = eager.to_tensor(np.full(3, 0.5))
            ref.step()
        np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=1e-14, err_msg=cls.__name__)
        assert not np.allclose(a.numpy(), b.numpy())


def test_set_lr_takes_effect_at_the_next_step():
    p = nn.Parameter(np.zeros(2))
    opt = SGD(0.1, parameters=[p])
    p.grad = eager.to_tensor(np.ones(2))
    opt.step()
    opt.set_lr(0.5)
    opt.step()
    np.testing.assert_allclose(p.numpy(), [-0.6, -0.6])


# -- gradient clipping -----------------------------------------------------------
def test_clip_by_global_norm_against_numpy_with_need_clip_false_excluded():
    rng = np.random.default_rng(3)
    shapes = [(3, 4), (4,), (2, 2)]
    values = [rng.standard_normal(s) for s in shapes]
    grads = [3 * rng.standard_normal(s) for s in shapes]
    params = [nn.Parameter(v.copy()) for v in values]
    params[2].need_clip = False
    for p, g in zip(params, grads):
        p.grad = eager.to_tensor(g)
    SGD(0.1, parameters=params, grad_clip=nn.ClipGradByGlobalNorm(1.5)).step()
    norm = math.sqrt(sum(float((g ** 2).sum()) for g in grads[:2]))
    assert norm > 1.5
    for i, (v, g) in enumerate(zip(values, grads)):
        clipped = g if i == 2 else g * 1.5 / max(norm, 1.5)
        np.testing.assert_allclose(params[i].numpy(), v - 0.1 * clipped, rtol=1e-13)
        np.testing.assert_array_equal(params[i].grad.numpy(), g)  # .grad is left alone


def test_clip_by_global_norm_within_bounds_changes_nothing():
    p = nn.Parameter(np.zeros(3))
    g = np.array([0.1, -0.2, 0.2])
    p.grad = eager.to_tensor(g)
    SGD(1.0, parameters=[p], grad_clip=nn.ClipGradByGlobalNorm(1.0, auto_skip_clip=True)).step()
    np.testing.assert_allclose(p.numpy(), -g, rtol=1e-15)


def test_clip_by_norm_is_per_tensor_and_by_value_clamps():
    big, small = np.array([3.0, 4.0]), np.array([0.3, 0.4])
    a, b = nn.Parameter(np.zeros(2)), nn.Parameter(np.zeros(2))
    a.grad, b.grad = eager.to_tensor(big), eager.to_tensor(small)
    SGD(1.0, parameters=[a, b], grad_clip=nn.ClipGradByNorm(1.0)).step()
    np.testing.assert_allclose(a.numpy(), -big / 5.0, rtol=1e-15)
    np.testing.assert_allclose(b.numpy(), -small, rtol=1e-15)
    c = nn.Parameter(np.zeros(4))
    g = np.array([-3.0, -0.5, 0.5, 3.0])
    c.grad = eager.to_tensor(g)
    SGD(1.0, parameters=[c], grad_clip=nn.ClipGradByValue(max=1.0, min=-0.25)).step()
    np.testing.assert_allclose(c.numpy(), -np.clip(g, -0.25, 1.0))


def test_clip_by_global_norm_of_float16_gradients_does_not_overflow():
    # 300 ** 2 overflows float16 (max 65504): the squares are summed in float32.
    p = nn.Parameter(np.zeros(4, "float16"))
    p.grad = eager.to_tensor(np.full(4, 300.0, "float16"))
    SGD(1.0, parameters=[p], grad_clip=nn.ClipGradByGlobalNorm(1.0)).step()
    np.testing.assert_allclose(p.numpy().astype("float64"), -np.full(4, 0.5), rtol=1e-3)


# -- float16 parameters, master weights, sparse gradients ------------------------
def test_multi_precision_updates_a_float32_master_and_rounds_into_the_parameter():
    rng = np.random.default_rng(5)
    start = rng.standard_normal(8).astype("float16")
    grads = [rng.standard_normal(8).astype("float16") for _ in range(3)]
    p = nn.Parameter(start.copy())
    opt = Adam(0.01, parameters=[p], multi_precision=True)
    for g in grads:
        p.grad = eager.to_tensor(g)
        opt.step()
    want = numpy_adam(start.astype("float32"), [g.astype("float32") for g in grads], 0.01, 0.9,
                      0.999, 1e-8)[-1]
    state = opt.state_dict()
    master = state["master_weights"][p.name]
    assert master.dtype == np.float32 and state[f"{p.name}_moment1_0"].dtype == np.float32
    np.testing.assert_allclose(master, want, rtol=1e-5)
    np.testing.assert_array_equal(p.numpy(), master.astype("float16"))
    # Without multi_precision the state is still float32 and the update computed
    # in float32 each step, then rounded.
    q = nn.Parameter(start.copy())
    sgd = SGD(0.5, parameters=[q])
    q.grad = eager.to_tensor(grads[0])
    sgd.step()
    np.testing.assert_array_equal(q.numpy(), (start.astype("float32") - np.float32(0.5)
                                              * grads[0].astype("float32")).astype("float16"))


def test_a_selected_rows_gradient_updates_as_its_dense_form():
    values = np.arange(6, dtype="float64").reshape(3, 2)
    dense_grad = np.zeros((4, 2))
    dense_grad[[0, 2]] = values[:2]
    dense_grad[0] += values[2]
    for cls in (SGD, Momentum, Adam):
        p = nn.Parameter(np.ones((4, 2)))
        q = nn.Parameter(np.ones((4, 2)))
        # rows and value where the parameter is (the default place of the device axis)
        sparse = SelectedRows(eager.to_tensor(np.array([0, 2, 0])).impl.array, eager.to_tensor(values).impl, 4)
        p.grad = eager.Tensor(sparse)
        q.grad = eager.to_tensor(dense_grad)
        cls(0.1, parameters=[p]).step()
        cls(0.1, parameters=[q]).step()
        np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-15, err_msg=cls.__name__)


# -- buffers and state -----------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda ps: SGD(0.1, parameters=ps),
    lambda ps: Momentum(0.1, parameters=ps, use_nesterov=True),
    lambda ps: Adam(0.01, parameters=ps),
    lambda ps: AdamW(0.01, parameters=ps),
])
def test_parameter_and_state_buffers_are_kept_across_steps_and_restores(make):
    p = make_param()
    opt = make([p])
    p.grad = eager.to_tensor(np.ones((3, 2)))
    opt.step()
    param_buffer = p.impl.array
    states = {k: v.impl.array for k, v in opt._accumulators.items()}
    version = p.inplace_version
    for _ in range(3):
        opt.step()
    opt.set_state_dict(opt.state_dict())
    assert p.impl.array is param_buffer
    assert {k: v.impl.array for k, v in opt._accumulators.items()} == states
    assert all(v.impl.array is states[k] for k, v in opt._accumulators.items())
    assert p.inplace_version == version + 3


def train(opt, params, grads):
    for g in grads:
        for p in params:
            p.grad = eager.to_tensor(g)
        opt.step()


@pytest.mark.parametrize("cls,kwargs", [
    (SGD, {}), (Momentum, {"use_nesterov": True}), (Adam, {}), (AdamW, {"weight_decay": 0.1}),
    (Adam, {"multi_precision": True}),
])
def test_state_dict_round_trip_continues_training_exactly(cls, kwargs):
    dtype = "float16" if kwargs.get("multi_precision") else "float64"
    grads = [g.astype(dtype) for g in grads_sequence(6)]
    a = nn.Parameter(make_param().numpy().astype(dtype), name="w")
    opt_a = cls(0.01, parameters=[a], **kwargs)
    train(opt_a, [a], grads[:3])
    state = opt_a.state_dict()
    b = nn.Parameter(a.numpy().copy(), name="w")
    opt_b = cls(0.5, parameters=[b], **kwargs)   # another rate: restored from "@lr"
    opt_b.set_state_dict(state)
    assert opt_b.get_lr() == 0.01 and opt_b.state_dict()["@step"] == 3
    train(opt_a, [a], grads[3:])
    train(opt_b, [b], grads[3:])
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    for key, value in opt_a.state_dict().items():
        if key == "master_weights":
            np.testing.assert_array_equal(value["w"], opt_b.state_dict()[key]["w"])
        else:
            np.testing.assert_array_equal(value, opt_b.state_dict()[key])


def test_state_dict_uses_paddle_accumulator_names():
    w = nn.Parameter(np.ones(2), name="linear_0.w_0")
    opt = Adam(0.01, parameters=[w])
    w.grad = eager.to_tensor(np.ones(2))
    opt.step()
    state = opt.state_dict()
    assert set(state) == {"linear_0.w_0_moment1_0", "linear_0.w_0_moment2_0", "linear_0.w_0_beta1_pow_acc_0",
                          "linear_0.w_0_beta2_pow_acc_0", "@step", "@lr"}
    np.testing.assert_allclose(state["linear_0.w_0_beta1_pow_acc_0"], [0.9 ** 2])  # advanced by the step
    assert state["linear_0.w_0_beta1_pow_acc_0"].shape == (1,)


def snapshot(opt):
    state = opt.state_dict()
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in state.items()}


def assert_unchanged(opt, before):
    after = opt.state_dict()
    assert after.keys() == before.keys()
    for key, value in before.items():
        np.testing.assert_array_equal(after[key], value, err_msg=key)


BAD_ENTRIES = [
    ({"@lr": -1.0}, ValueError, r"'@lr' expected a finite float >= 0, got float -1.0"),
    ({"@lr": "abc"}, ValueError, r"'@lr' expected a finite float >= 0, got str 'abc'"),
    ({"@lr": float("nan")}, ValueError, r"'@lr' expected a finite float >= 0, got float nan"),
    ({"@lr": True}, ValueError, r"'@lr' expected a finite float >= 0, got bool True"),
    ({"@step": -2}, ValueError, r"'@step' expected a non-negative int, got int -2"),
    ({"@step": 1.5}, ValueError, r"'@step' expected a non-negative int, got float 1.5"),
    ({"w_moment2_0": np.zeros(3)}, ValueError,
     r"'w_moment2_0' expected a Tensor or numpy array of paddle.float64\[2, 2\], got ndarray of paddle.float64\[3\]"),
    ({"w_moment1_0": np.zeros((2, 2), "float32")}, ValueError,
     r"'w_moment1_0' expected a Tensor or numpy array of paddle.float64\[2, 2\], got ndarray of paddle.float32\[2, 2\]"),
    ({"w_moment1_0": [[0.0, 0.0], [0.0, 0.0]]}, TypeError,
     r"'w_moment1_0' expected a Tensor or numpy array of paddle.float64\[2, 2\], got list"),
    ({"w_beta1_pow_acc_0": np.array([1.5])}, ValueError,
     r"'w_beta1_pow_acc_0' expected a beta power in \[0, 1\], got 1.5"),
    ({"master_weights": {"w": np.zeros((2, 2), "float32")}}, ValueError,
     r"'master_weights' holds 'w', but this optimizer keeps no master weight for it"),
    ({"master_weights": [1]}, TypeError, r"'master_weights' expected a dict"),
]


@pytest.mark.parametrize("bad,error,message", BAD_ENTRIES)
def test_set_state_dict_is_atomic(bad, error, message):
    w = nn.Parameter(np.ones((2, 2)), name="w")
    opt = Adam(0.01, parameters=[w])
    w.grad = eager.to_tensor(np.full((2, 2), 0.5))
    opt.step()
    opt.step()
    before = snapshot(opt)
    # Every good entry comes first in the dict, so a non-atomic restore would
    # have applied them by the time the bad one is reached.
    good = {"@lr": 0.5, "@step": 7, "w_moment1_0": np.full((2, 2), 9.0),
            "w_moment2_0": np.full((2, 2), 9.0), "w_beta1_pow_acc_0": np.array([0.5]),
            "w_beta2_pow_acc_0": np.array([0.5])}
    with pytest.raises(error, match=r"Adam.set_state_dict: " + message):
        opt.set_state_dict({**good, **bad})
    assert_unchanged(opt, before)
    assert opt.get_lr() == 0.01
    w.grad = eager.to_tensor(np.full((2, 2), 0.5))
    opt.step()  # and it still trains, from the state it kept
    assert opt.state_dict()["@step"] == 3


def test_set_state_dict_accepts_tensors_and_numpy_numbers():
    w = nn.Parameter(np.ones(2), name="w")
    opt = Momentum(0.1, parameters=[w])
    opt.set_state_dict({"@lr": np.float64(0.2), "@step": np.int64(4),
                        "w_velocity_0": eager.to_tensor(np.array([1.0, 2.0]))})
    assert opt.get_lr() == 0.2 and opt.state_dict()["@step"] == 4
    np.testing.assert_array_equal(opt.state_dict()["w_velocity_0"], [1.0, 2.0])
    with pytest.raises(ValueError, match="two parameters are named 'w'"):
        Momentum(0.1, parameters=[w, nn.Parameter(np.ones(2), name="w")]).state_dict()


# -- hyperparameters given as Tensors (Paddle: beta1/beta2/epsilon "float|Tensor") ----------

TENSOR_HYPER = [
    (Adam, {}), (AdamW, {"weight_decay": 0.01}), (eager.optimizer.Adamax, {}), (eager.optimizer.Lamb, {}),
    (eager.optimizer.NAdam, {}), (eager.optimizer.RAdam, {}),
]


@pytest.mark.parametrize("cls, extra", TENSOR_HYPER, ids=lambda v: getattr(v, "__name__", ""))
def test_tensor_betas_and_epsilon_update_as_the_same_floats(cls, extra):
    grads = grads_sequence(4)
    b1, b2, eps = (float(np.float32(v)) for v in (0.8, 0.95, 1e-6))
    _, want = run_steps(cls, grads, learning_rate=0.01, beta1=b1, beta2=b2, epsilon=eps, **extra)
    _, got = run_steps(cls, grads, learning_rate=0.01, beta1=eager.to_tensor([0.8], dtype="float32"),
                       beta2=eager.to_tensor(0.95, dtype="float32"),
                       epsilon=eager.to_tensor([1e-6], dtype="float32"), **extra)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_a_tensor_beta_changed_in_place_is_read_at_the_next_step():
    # Paddle's Adam reads a Tensor beta at every step; the beta power advances by the beta in use.
    grads = grads_sequence(4)
    beta1 = eager.to_tensor([0.9], dtype="float64")
    p = make_param()
    opt = Adam(learning_rate=0.01, beta1=beta1, beta2=0.99, epsilon=1e-8, parameters=[p])
    param = p.numpy().copy()
    m, v, b1p, b2p = np.zeros_like(param), np.zeros_like(param), 0.9, 0.99
    for step, g in enumerate(grads):
        b1 = 0.9 if step < 2 else 0.5
        if step == 2:
            beta1.set_value(np.array([0.5]))
        p.grad = eager.to_tensor(g)
        opt.step()
        m = b1 * m + (1 - b1) * g
        v = 0.99 * v + 0.01 * g * g
        lr_t = 0.01 * math.sqrt(1 - b2p) / (1 - b1p)
        param = param - lr_t * m / (np.sqrt(v) + 1e-8 * math.sqrt(1 - b2p))
        b1p, b2p = b1p * b1, b2p * 0.99
        np.testing.assert_allclose(p.numpy(), param, rtol=1e-12)


def test_tensor_hyperparameter_errors():
    p = make_param()
    with pytest.raises(TypeError, match=r"Adam: argument 'beta1' expected a float or a one-element float Tensor, "
                                        r"got a Tensor of .*int64.* with shape \[1\]"):
        Adam(parameters=[p], beta1=eager.to_tensor([1]))
    with pytest.raises(TypeError, match=r"AdamW: argument 'beta2' .* with shape \[2\]"):
        AdamW(parameters=[p], beta2=eager.to_tensor([0.9, 0.9]))
    with pytest.raises(ValueError, match=r"Adamax: argument 'beta1' expected a float in \[0, 1\), got 1.5"):
        eager.optimizer.Adamax(parameters=[p], beta1=eager.to_tensor([1.5]))
    beta2 = eager.to_tensor([0.99], dtype="float64")
    opt = Adam(parameters=[p], beta2=beta2)
    p.grad = eager.ones_like(p)
    opt.step()
    before = p.numpy().copy()
    state = {k: v.numpy().copy() for k, v in opt.state_dict().items() if isinstance(v, eager.Tensor)}
    beta2.set_value(np.array([1.0]))
    with pytest.raises(ValueError, match=r"Adam.step: argument 'beta2' expected a float in \[0, 1\), got 1.0"):
        opt.step()
    np.testing.assert_array_equal(p.numpy(), before)
    for k, v in opt.state_dict().items():
        if isinstance(v, eager.Tensor):
            np.testing.assert_array_equal(v.numpy(), state[k])
