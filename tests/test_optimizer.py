"""eager.optimizer: SGD, Momentum and Adam steps against hand-written NumPy,
inplace semantics and argument errors."""
import math

import numpy as np
import pytest

import eager
from eager import nn
from eager.optimizer import SGD, Adam, Momentum


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


def test_state_dict_roundtrip():
    grads = grads_sequence(3)
    p, _ = run_steps(Adam, grads[:2], learning_rate=0.01)
    p.name = "w"
    opt = Adam(0.01, parameters=[p])
    p.grad = eager.to_tensor(grads[0])
    opt.step()
    state = opt.state_dict()
    assert set(state) >= {"w_moment1", "w_moment2", "@step"}
    clone = Adam(0.01, parameters=[p])
    clone.set_state_dict(state)
    assert clone.state_dict()["@step"] == 1
    np.testing.assert_array_equal(clone.state_dict()["w_moment2"], state["w_moment2"])


def test_optimizer_argument_errors():
    p = make_param()
    with pytest.raises(ValueError, match="SGD: argument 'parameters' is required"):
        SGD(0.1)
    with pytest.raises(TypeError, match="SGD: argument 'parameters' expected a list of Tensors, got one Tensor"):
        SGD(0.1, parameters=p)
    with pytest.raises(TypeError, match="Adam: argument 'parameters' expected a list of Tensors, position 1 is ndarray"):
        Adam(0.1, parameters=[p, np.ones(2)])
    with pytest.raises(ValueError, match="Momentum: argument 'learning_rate' expected a positive finite float, got -0.1"):
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
    with pytest.raises(TypeError, match="SGD: argument 'grad_clip' expected an eager.nn.ClipGradByValue"):
        SGD(0.1, parameters=[p], grad_clip=object())


def test_set_lr():
    p = make_param()
    opt = SGD(0.1, parameters=[p])
    opt.set_lr(0.5)
    assert opt.get_lr() == 0.5
    with pytest.raises(ValueError, match="SGD.set_lr: argument 'learning_rate'"):
        opt.set_lr(0.0)


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
