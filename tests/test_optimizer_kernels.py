"""The fused optimizer kernels against PyTorch, gradient clipping against its
definition, minimize's Paddle semantics and an atomic set_state_dict."""
import numpy as np
import pytest

import eager
from eager.optimizer import SGD, Adam, AdamW, Momentum

torch = pytest.importorskip("torch")
rng = np.random.default_rng(13)


def run_both(make_ours, make_theirs, steps=4, clip=None):
    init = rng.normal(size=(3, 4))
    grads = [rng.normal(size=(3, 4)) for _ in range(steps)]
    ours = eager.nn.Parameter(init.copy())
    theirs = torch.tensor(init.copy(), requires_grad=True)
    opt_ours, opt_theirs = make_ours([ours]), make_theirs([theirs])
    buffer = ours.impl.array if hasattr(ours.impl, "array") else None
    for g in grads:
        ours.grad = eager.to_tensor(g)
        theirs.grad = torch.tensor(g)
        if clip is not None:
            clip(theirs)
        opt_ours.step()
        opt_theirs.step()
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert ours.impl.array is buffer  # updated in place, never replaced


def test_sgd_with_weight_decay():
    run_both(lambda p: SGD(0.1, parameters=p, weight_decay=0.01),
             lambda p: torch.optim.SGD(p, lr=0.1, weight_decay=0.01))


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum(nesterov):
    # torch's dampening=0 momentum is Paddle's rule.
    run_both(lambda p: Momentum(0.05, momentum=0.9, parameters=p, use_nesterov=nesterov),
             lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=nesterov))


def test_adamw_decoupled_decay():
    # With epsilon 0 Paddle's bias-corrected epsilon and torch's agree exactly.
    run_both(lambda p: AdamW(0.01, parameters=p, epsilon=0.0, weight_decay=0.1),
             lambda p: torch.optim.AdamW(p, lr=0.01, eps=0.0, weight_decay=0.1))


def test_adam_matches_torch_without_epsilon():
    run_both(lambda p: Adam(0.01, parameters=p, epsilon=0.0), lambda p: torch.optim.Adam(p, lr=0.01, eps=0.0))


def _paddle_global_clip(t, clip_norm=0.5):
    # Paddle's definition: scale by clip_norm / max(norm, clip_norm) (torch adds 1e-6 to the norm).
    norm = float(t.grad.norm())
    t.grad *= clip_norm / max(norm, clip_norm)


def test_clip_by_global_norm():
    run_both(lambda p: SGD(0.1, parameters=p, grad_clip=eager.nn.ClipGradByGlobalNorm(0.5)),
             lambda p: torch.optim.SGD(p, lr=0.1), clip=_paddle_global_clip)


def test_clip_by_value_and_by_norm_leave_grad_alone():
    p = eager.nn.Parameter(np.zeros(4))
    g = np.array([3.0, -4.0, 0.5, 0.0])
    p.grad = eager.to_tensor(g)
    SGD(1.0, parameters=[p], grad_clip=eager.nn.ClipGradByValue(1.0)).step()
    np.testing.assert_allclose(p.numpy(), -np.clip(g, -1, 1))
    np.testing.assert_allclose(p.grad.numpy(), g)          # .grad is not clipped in place
    q = eager.nn.Parameter(np.zeros(4))
    q.grad = eager.to_tensor(g)
    SGD(1.0, parameters=[q], grad_clip=eager.nn.ClipGradByNorm(1.0)).step()
    np.testing.assert_allclose(q.numpy(), -g / np.linalg.norm(g))


def test_clip_arguments_are_checked():
    with pytest.raises(ValueError, match="clip_norm' expected a positive finite float"):
        eager.nn.ClipGradByGlobalNorm(-1.0)
    with pytest.raises(ValueError, match="min 2.0 is greater than max 1.0"):
        eager.nn.ClipGradByValue(1.0, min=2.0)


def test_minimize_applies_existing_gradients_as_paddle_does():
    w = eager.nn.Parameter(np.array([1.0, 2.0]))
    opt = SGD(0.5, parameters=[w])
    loss = (w * w).sum()
    loss.backward()
    ops, params_grads = opt.minimize(loss)   # Paddle's loss.backward(); opt.minimize(loss)
    assert ops == [] and params_grads[0][0] is w
    np.testing.assert_allclose(w.numpy(), [0.0, 0.0])


def test_set_state_dict_checks_everything_before_changing_anything():
    w = eager.nn.Parameter(np.ones((2, 2)), name="w")
    opt = Adam(0.01, parameters=[w])
    w.grad = eager.to_tensor(np.full((2, 2), 0.5))
    opt.step()
    before = opt.state_dict()
    for bad in ({"@lr": -1.0}, {"@lr": "abc"}, {"@step": -2},
                {"w_moment1": np.zeros((2, 2)), "w_moment2": np.zeros((3,))},
                {"@lr": 0.5, "w_moment1": "not an array"}):
        with pytest.raises((ValueError, TypeError)):
            opt.set_state_dict(bad)
        after = opt.state_dict()
        assert after.keys() == before.keys()
        for key in before:
            np.testing.assert_array_equal(after[key], before[key])
    opt.set_state_dict({**before, "@lr": 0.02})
    assert opt.get_lr() == 0.02


def test_regularizers_as_weight_decay_and_per_parameter():
    from eager.regularizer import L1Decay, L2Decay

    g = np.array([0.5, -0.5, 0.0])
    # L2Decay(c) is a float weight_decay c; L1Decay adds c * sign(param).
    for decay, expected in ((L2Decay(0.1), lambda p: p - 1.0 * (g + 0.1 * p)),
                            (L1Decay(0.1), lambda p: p - 1.0 * (g + 0.1 * np.sign(p)))):
        init = np.array([2.0, -3.0, 0.0])
        w = eager.nn.Parameter(init.copy())
        w.grad = eager.to_tensor(g)
        SGD(1.0, parameters=[w], weight_decay=decay).step()
        np.testing.assert_allclose(w.numpy(), expected(init))
        np.testing.assert_array_equal(w.grad.numpy(), g)   # .grad itself untouched
    # A ParamAttr regularizer replaces the optimizer's for its parameter (Paddle's rule).
    layer = eager.nn.Linear(3, 1, weight_attr=eager.ParamAttr(regularizer=L1Decay(0.5)))
    before = layer.weight.numpy().copy()
    layer.weight.grad = eager.to_tensor(np.zeros((3, 1), "float32"))
    SGD(1.0, parameters=[layer.weight], weight_decay=10.0).step()
    np.testing.assert_allclose(layer.weight.numpy(), before - 0.5 * np.sign(before), rtol=1e-6)
    with pytest.raises(ValueError, match="L2Decay: argument 'coeff' expected a non-negative finite float"):
        L2Decay(-1.0)
