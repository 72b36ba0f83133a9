"""The fused optimizer ops: the optimizers against torch.optim over several
steps, gradient clipping against its definition, minimize's Paddle semantics,
and the phi API of sgd_/momentum_/adam_/adamw_ on its own (in place, versions,
errors before any write). Atomic set_state_dict is in test_optimizer.py."""
import numpy as np
import pytest

import eager
from eager.optimizer import SGD, Adam, AdamW, Momentum
from eager.regularizer import L1Decay, L2Decay
from phi import api as phi_api
from phi.core import DenseTensor
from phi.core.errors import InvalidArgumentError, InvalidTypeError
from torch_reference import needs_torch, torch

# Every test runs on the device axis (tests/conftest.py): on the CPU and with the GPU as the default place.
pytestmark = pytest.mark.usefixtures("device")

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


@needs_torch
def test_sgd_with_weight_decay():
    run_both(lambda p: SGD(0.1, parameters=p, weight_decay=0.01),
             lambda p: torch.optim.SGD(p, lr=0.1, weight_decay=0.01))


@needs_torch
@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum(nesterov):
    # torch's dampening=0 momentum is Paddle's rule.
    run_both(lambda p: Momentum(0.05, momentum=0.9, parameters=p, use_nesterov=nesterov),
             lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=nesterov))


@needs_torch
def test_adamw_decoupled_decay():
    # With epsilon 0 Paddle's bias-corrected epsilon and torch's agree exactly.
    run_both(lambda p: AdamW(0.01, parameters=p, epsilon=0.0, weight_decay=0.1),
             lambda p: torch.optim.AdamW(p, lr=0.01, eps=0.0, weight_decay=0.1))


@needs_torch
def test_adam_matches_torch_without_epsilon():
    run_both(lambda p: Adam(0.01, parameters=p, epsilon=0.0), lambda p: torch.optim.Adam(p, lr=0.01, eps=0.0))


@needs_torch
def test_adam_and_adamw_match_torch_with_epsilon():
    # Paddle's epsilon * sqrt(1 - beta2^t) inside the bias-corrected step is
    # torch's epsilon added to the corrected root: the same number.
    run_both(lambda p: Adam(0.01, parameters=p, epsilon=1e-3, weight_decay=0.05),
             lambda p: torch.optim.Adam(p, lr=0.01, eps=1e-3, weight_decay=0.05), steps=6)
    run_both(lambda p: AdamW(0.01, parameters=p, epsilon=1e-3, beta1=0.8, beta2=0.9),
             lambda p: torch.optim.AdamW(p, lr=0.01, eps=1e-3, betas=(0.8, 0.9), weight_decay=0.01),
             steps=6)


@needs_torch
@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_with_weight_decay_matches_torch(nesterov):
    run_both(lambda p: Momentum(0.05, momentum=0.8, parameters=p, use_nesterov=nesterov, weight_decay=0.1),
             lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.8, nesterov=nesterov, weight_decay=0.1),
             steps=5)


def _paddle_global_clip(t, clip_norm=0.5):
    # Paddle's definition: scale by clip_norm / max(norm, clip_norm) (torch adds 1e-6 to the norm).
    norm = float(t.grad.norm())
    t.grad *= clip_norm / max(norm, clip_norm)


@needs_torch
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




def test_regularizers_as_weight_decay_and_per_parameter():
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


# -- the phi API on its own ----------------------------------------------------------
def dense(values, dtype="float64"):
    return DenseTensor(np.array(values, dtype=dtype))


def adam_inputs(dtype="float64"):
    return dict(param=dense([1.0, 2.0], dtype), grad=dense([0.5, -0.5], dtype),
                learning_rate=dense(0.1, dtype), moment1=dense([0.0, 0.0], dtype),
                moment2=dense([0.0, 0.0], dtype), beta1_pow=dense([0.9], dtype),
                beta2_pow=dense([0.999], dtype))


@pytest.mark.parametrize("op", ["adam_", "adamw_"])
def test_adam_ops_update_every_buffer_in_place_and_bump_versions(op):
    t = adam_inputs()
    arrays = {k: v.array for k, v in t.items()}
    outs = getattr(phi_api, op)(**t, beta1=0.9, beta2=0.999, epsilon=0.0)
    assert outs[:5] == (t["param"], t["moment1"], t["moment2"], t["beta1_pow"], t["beta2_pow"])
    assert outs[5] is None
    for name in ("param", "moment1", "moment2", "beta1_pow", "beta2_pow"):
        assert t[name].array is arrays[name] and t[name].version == 1, name
    assert t["grad"].version == 0 and t["learning_rate"].version == 0
    np.testing.assert_allclose(t["grad"].array, [0.5, -0.5])          # never written
    np.testing.assert_allclose(t["param"].array, [0.9, 2.1])           # first step: lr * sign(g)
    np.testing.assert_allclose(t["beta1_pow"].array, [0.81])
    np.testing.assert_allclose(t["beta2_pow"].array, [0.999 ** 2])


def test_adamw_op_decays_with_lr_ratio_before_the_step():
    t = adam_inputs()
    phi_api.adamw_(**t, epsilon=0.0, lr_ratio=0.5, coeff=0.2, with_decay=True)
    # param * (1 - 0.1 * 0.5 * 0.2), then the step of size 0.1 * 0.5
    np.testing.assert_allclose(t["param"].array, np.array([1.0, 2.0]) * 0.99 - [0.05, -0.05])


def test_sgd_and_momentum_ops():
    p, g, lr = dense([1.0, 1.0]), dense([1.0, -2.0]), dense([0.5])
    phi_api.sgd_(p, lr, g)
    np.testing.assert_allclose(p.array, [0.5, 2.0])
    v = dense([1.0, 1.0])
    phi_api.momentum_(p, g, v, lr, mu=0.5, use_nesterov=True, regularization_method="l2_decay",
                      regularization_coeff=0.1, rescale_grad=2.0)
    g_eff = 2.0 * np.array([1.0, -2.0]) + 0.1 * np.array([0.5, 2.0])
    v_new = 0.5 * 1.0 + g_eff
    np.testing.assert_allclose(v.array, v_new)
    np.testing.assert_allclose(p.array, [0.5, 2.0] - 0.5 * (g_eff + 0.5 * v_new))
    assert p.version == 2 and v.version == 1


def test_master_param_is_updated_and_rounded_into_the_float16_param():
    p = dense([1.0, 2.0], "float16")
    master = dense([1.0001, 2.0], "float32")
    phi_api.sgd_(p, dense(0.5, "float32"), dense([1.0, 1.0], "float16"), master, True)
    np.testing.assert_allclose(master.array, [0.5001, 1.5], rtol=1e-6)
    np.testing.assert_array_equal(p.array, master.array.astype("float16"))
    assert master.version == 1 and p.version == 1


@pytest.mark.parametrize("change,error,message", [
    ({"grad": dense([0.5, 0.5, 0.5])}, InvalidArgumentError,
     r"adam_: argument 'grad' expected paddle.float64\[2\] like 'param', got paddle.float64\[3\]"),
    ({"moment2": dense([0.0, 0.0], "float32")}, InvalidArgumentError,
     r"adam_: argument 'moment2' expected paddle.float64\[2\] \(param's shape, the state dtype\), got paddle.float32\[2\]"),
    ({"learning_rate": dense([0.1, 0.1])}, InvalidArgumentError,
     r"adam_: argument 'learning_rate' expected one paddle.float64 element \(shape \[\] or \[1\]\), got paddle.float64\[2\]"),
    ({"beta1_pow": dense([[0.9]])}, InvalidArgumentError, r"adam_: argument 'beta1_pow' expected one paddle.float64"),
    ({"param": dense([1, 2], "int64"), "grad": dense([1, 1], "int64")}, InvalidTypeError,
     r"adam_: argument 'param' expected a float16, bfloat16, float32 or float64 tensor, got paddle.int64\[2\]"),
])
def test_adam_op_checks_every_argument_before_writing(change, error, message):
    t = adam_inputs()
    t.update(change)
    before = {k: v.array.copy() for k, v in t.items()}
    with pytest.raises(error, match=message):
        phi_api.adam_(**t)
    for name, tensor in t.items():
        np.testing.assert_array_equal(tensor.array, before[name], err_msg=name)
        assert tensor.version == 0


def test_op_attribute_and_master_param_errors():
    t = adam_inputs()
    with pytest.raises(InvalidArgumentError, match=r"adam_: argument 'beta1' expected a float in \[0, 1\), got 1.0"):
        phi_api.adam_(**t, beta1=1.0)
    with pytest.raises(InvalidArgumentError, match="adamw_: argument 'lr_ratio' expected a positive finite float"):
        phi_api.adamw_(**t, lr_ratio=0.0)
    with pytest.raises(InvalidArgumentError, match="momentum_: argument 'regularization_method' expected '' or 'l2_decay'"):
        phi_api.momentum_(t["param"], t["grad"], t["moment1"], t["learning_rate"], regularization_method="l1")
    with pytest.raises(InvalidArgumentError, match="sgd_: argument 'master_param' is required with multi_precision=True"):
        phi_api.sgd_(dense([1.0], "float16"), dense(0.1, "float32"), dense([1.0], "float16"), None, True)
    with pytest.raises(InvalidArgumentError, match="sgd_: argument 'learning_rate' expected one paddle.float32 element"):
        phi_api.sgd_(dense([1.0], "float16"), dense(0.1, "float16"), dense([1.0], "float16"))
    assert t["param"].version == 0


def test_step_names_the_parameter_whose_update_failed():
    w = eager.nn.Parameter(np.ones(2), name="encoder.w")
    opt = Adam(0.1, parameters=[w])
    w.grad = eager.to_tensor(np.ones(2))
    opt._accumulator("moment1", w)  # made, then corrupted: the op must refuse it
    opt._accumulators[("moment1", id(w))].impl.array = eager.zeros([3], "float64").impl.array  # on w's place
    with pytest.raises(InvalidArgumentError, match=r"Adam.step: parameter 'encoder.w': adam_: argument 'moment1'"):
        opt.step()
    np.testing.assert_array_equal(w.numpy(), [1.0, 1.0])
