"""eager.nn.utils against NumPy references (and torch where installed):
gradient clipping, parameters <-> vector, weight_norm, spectral_norm."""
from __future__ import annotations

import math

import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck
from eager.nn import utils
from phi.core import SelectedRows

pytestmark = pytest.mark.usefixtures("device")


def _params_with_grads(grads):
    params = []
    for g in grads:
        p = eager.to_tensor(np.zeros_like(g), stop_gradient=False)
        (p * eager.to_tensor(g)).sum().backward()
        params.append(p)
    return params


_GRADS = [np.array([[3.0, -4.0], [1.0, 2.0]]), np.array([0.5, -6.0, 2.0])]


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 2, float("inf")])
@pytest.mark.parametrize("max_norm", [1.0, 100.0])
def test_clip_grad_norm(norm_type, max_norm):
    params = _params_with_grads(_GRADS)
    flat = np.concatenate([g.ravel() for g in _GRADS])
    p = norm_type
    want_total = np.abs(flat).max() if p == float("inf") else (np.abs(flat) ** p).sum() ** (1 / p)
    total = utils.clip_grad_norm_(params, max_norm, norm_type)
    assert total.shape == [] and total.dtype == eager.float64   # the gradients' dtype, as Paddle
    np.testing.assert_allclose(float(total), want_total, rtol=1e-12)
    scale = min(1.0, max_norm / (want_total + 1e-6))
    for param, g in zip(params, _GRADS):
        np.testing.assert_allclose(param.grad.numpy(), g * scale, rtol=1e-6)


def test_clip_grad_norm_matches_torch():
    torch = pytest.importorskip("torch")
    params = _params_with_grads(_GRADS)
    tparams = [torch.zeros(g.shape, dtype=torch.float64, requires_grad=True) for g in _GRADS]
    for t, g in zip(tparams, _GRADS):
        t.grad = torch.tensor(g)
    want = torch.nn.utils.clip_grad_norm_(tparams, 2.5, 2.0)
    got = utils.clip_grad_norm_(params, 2.5, 2.0)
    np.testing.assert_allclose(float(got), float(want), rtol=1e-6)
    for p, t in zip(params, tparams):
        np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=1e-6)


def test_clip_grad_norm_edge_cases():
    p = eager.to_tensor([1.0], stop_gradient=False)
    assert float(utils.clip_grad_norm_([p], 1.0)) == 0.0         # no gradients at all
    grad_buffer_params = _params_with_grads([np.array([np.inf, 1.0])])
    with pytest.raises(RuntimeError, match="clip_grad_norm_: the total norm"):
        utils.clip_grad_norm_(grad_buffer_params, 1.0, error_if_nonfinite=True)
    np.testing.assert_array_equal(grad_buffer_params[0].grad.numpy(), [np.inf, 1.0])   # left untouched
    with pytest.raises(ValueError, match="norm_type"):
        utils.clip_grad_norm_(grad_buffer_params, 1.0, norm_type=-1)
    with pytest.raises(ValueError, match="max_norm"):
        utils.clip_grad_norm_(grad_buffer_params, -1.0)
    with pytest.raises(TypeError, match="parameters"):
        utils.clip_grad_norm_(3, 1.0)
    # A single tensor is accepted; the buffer of .grad is kept.
    (q,) = _params_with_grads([np.array([3.0, 4.0])])
    buffer = q.grad
    utils.clip_grad_norm_(q, 1.0)
    assert q.grad is buffer
    np.testing.assert_allclose(buffer.numpy(), [0.6, 0.8], rtol=1e-5)


def test_clipping_sparse_embedding_gradients():
    w = eager.to_tensor(np.ones((6, 2)), stop_gradient=False)
    ids = eager.to_tensor([1, 1, 4])
    (F.embedding(ids, w, sparse=True) * 3.0).sum().backward()
    dense = w.grad.numpy()                       # rows 1: [6, 6], 4: [3, 3]
    total = utils.clip_grad_norm_([w], 1.0)
    np.testing.assert_allclose(float(total), np.sqrt((dense ** 2).sum()), rtol=1e-6)
    assert isinstance(w.grad.impl, SelectedRows) and w.grad.impl.value.dims[0] == 2   # merged rows
    np.testing.assert_allclose(w.grad.numpy(), dense / (float(total) + 1e-6), rtol=1e-6)
    utils.clip_grad_value_([w], 0.5)
    np.testing.assert_allclose(w.grad.numpy(), np.minimum(dense / (float(total) + 1e-6), 0.5), rtol=1e-6)


def test_clip_grad_value():
    params = _params_with_grads(_GRADS)
    utils.clip_grad_value_(params, 2.0)
    for p, g in zip(params, _GRADS):
        np.testing.assert_array_equal(p.grad.numpy(), np.clip(g, -2.0, 2.0))
    with pytest.raises(ValueError, match="clip_value"):
        utils.clip_grad_value_(params, -1)


def test_parameters_to_vector_and_back():
    net = eager.nn.Sequential(eager.nn.Linear(2, 3), eager.nn.Linear(3, 1))
    params = net.parameters()
    vec = utils.parameters_to_vector(params)
    np.testing.assert_array_equal(vec.numpy(), np.concatenate([p.numpy().ravel() for p in params]))
    (vec * vec).sum().backward()                   # differentiable: gradients reach the parameters
    np.testing.assert_allclose(params[0].grad.numpy(), 2 * params[0].numpy())
    new = np.arange(vec.shape[0], dtype=np.float32)
    weight = params[0]
    utils.vector_to_parameters(eager.to_tensor(new), params)
    assert net.parameters()[0] is weight
    np.testing.assert_array_equal(utils.parameters_to_vector(params).numpy(), new)
    np.testing.assert_array_equal(weight.numpy(), new[:6].reshape(2, 3))
    with pytest.raises(ValueError, match=r"vector_to_parameters: argument 'vec' expected shape \[13\]"):
        utils.vector_to_parameters(eager.zeros([12]), params)
    with pytest.raises(TypeError, match="dtype"):
        utils.vector_to_parameters(eager.zeros([13], "float64"), params)
    np.testing.assert_array_equal(utils.parameters_to_vector(params).numpy(), new)


# -- weight_norm --------------------------------------------------------------------------

def _norm_except(w, dim):
    if dim is None:
        return np.sqrt((w ** 2).sum() + 1e-12)
    axes = tuple(a for a in range(w.ndim) if a != dim)
    return np.sqrt((w ** 2).sum(axis=axes))


@pytest.mark.parametrize("dim", [0, 1, None, -2])
def test_weight_norm_linear(dim):
    eager.seed(0)
    fc = eager.nn.Linear(3, 4)
    w0 = fc.weight.numpy().copy()
    utils.weight_norm(fc, dim=dim)
    d = None if dim is None else dim % 2
    assert sorted(n for n, _ in fc.named_parameters()) == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(fc.weight_g.numpy().reshape(-1), np.ravel(_norm_except(w0, d)), rtol=1e-6)
    assert fc.weight_g.shape == ([] if d is None else [w0.shape[d]])  # 0-d, as Paddle 2.6's
    np.testing.assert_allclose(fc.weight.numpy(), w0, rtol=1e-5)
    # New g and v give weight = g * v / ||v|| in the next forward.
    with eager.no_grad():
        fc.weight_g.multiply_(eager.full_like(fc.weight_g, 2.0))
    x = eager.ones([2, 3])
    np.testing.assert_allclose(fc(x).numpy(), np.ones((2, 3)) @ (2 * w0) + fc.bias.numpy(), rtol=1e-5)


def test_weight_norm_gradients_and_conv():
    conv = eager.nn.Conv2D(2, 3, 3, weight_attr=eager.nn.initializer.Normal(), bias_attr=False)
    utils.weight_norm(conv)       # dim 0: one g per output channel
    assert conv.weight_g.shape == [3]
    x = eager.to_tensor(np.random.default_rng(0).standard_normal((1, 2, 4, 4)))
    conv.double()
    g, v = conv.weight_g, conv.weight_v

    def f(g_, v_):
        w = v_ * (g_ / (v_ * v_).sum([1, 2, 3]).sqrt()).reshape([3, 1, 1, 1])
        return F.conv2d(x, w)

    assert gradcheck(f, [g, v])
    out = conv(x)
    (out * out).sum().backward()
    g2 = eager.to_tensor(g.numpy(), stop_gradient=False)
    v2 = eager.to_tensor(v.numpy(), stop_gradient=False)
    ref = f(g2, v2)
    (ref * ref).sum().backward()
    np.testing.assert_allclose(g.grad.numpy(), g2.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(v.grad.numpy(), v2.grad.numpy(), rtol=1e-10)


def test_weight_norm_matches_torch():
    torch = pytest.importorskip("torch")
    eager.seed(1)
    fc = eager.nn.Linear(3, 4)
    w0 = fc.weight.numpy().astype(np.float64)
    utils.weight_norm(fc, dim=1)
    tl = torch.nn.Linear(3, 4).double()
    with torch.no_grad():
        tl.weight.copy_(torch.tensor(w0.T))
    tl = torch.nn.utils.weight_norm(tl, dim=0)   # torch's weight is [out, in]: its dim 0 is Paddle's dim 1
    np.testing.assert_allclose(fc.weight_g.numpy(), tl.weight_g.detach().numpy().ravel(), rtol=1e-6)


def test_remove_weight_norm_and_errors():
    fc = eager.nn.Linear(3, 4)
    utils.weight_norm(fc)
    with eager.no_grad():
        fc.weight_g.multiply_(eager.full_like(fc.weight_g, 3.0))
    want = fc.weight_v.numpy() * (fc.weight_g.numpy() / _norm_except(fc.weight_v.numpy(), 0))[:, None]
    with pytest.raises(RuntimeError, match="already weight-normalized"):
        utils.weight_norm(fc)
    utils.remove_weight_norm(fc)
    assert sorted(n for n, _ in fc.named_parameters()) == ["bias", "weight"]
    assert isinstance(fc.weight, eager.nn.Parameter) and not fc._forward_pre_hooks
    np.testing.assert_allclose(fc.weight.numpy(), want, rtol=1e-5)
    with pytest.raises(ValueError, match="is not weight-normalized"):
        utils.remove_weight_norm(fc)
    with pytest.raises(ValueError, match="has no parameter 'kernel'"):
        utils.weight_norm(fc, name="kernel")
    with pytest.raises(ValueError, match="argument 'dim'"):
        utils.weight_norm(fc, dim=2)


# -- spectral_norm --------------------------------------------------------------------------

def test_spectral_norm_power_iteration_against_numpy():
    eager.seed(2)
    fc = eager.nn.Linear(5, 3)          # weight [5, 3]; Paddle's default dim for Linear is 1
    w = fc.weight.numpy().astype(np.float64)
    utils.spectral_norm(fc, n_power_iterations=2)
    assert sorted(n for n, _ in fc.named_parameters()) == ["bias", "weight_orig"]
    # The computed weight is a Tensor attribute: a non-persistable buffer (Paddle's rule).
    assert sorted(n for n, _ in fc.named_buffers()) == ["weight", "weight_u", "weight_v"]
    assert sorted(fc.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert fc.weight_u.shape == [3] and fc.weight_v.shape == [5]
    u, v = fc.weight_u.numpy().astype(np.float64), fc.weight_v.numpy().astype(np.float64)
    m = w.T                                   # dim 1 moved to the front: [3, 5]
    for _ in range(2):
        v = m.T @ u
        v /= max(np.linalg.norm(v), 1e-12)
        u = m @ v
        u /= max(np.linalg.norm(u), 1e-12)
    sigma = u @ m @ v
    out = fc(eager.ones([1, 5]))
    np.testing.assert_allclose(fc.weight.numpy(), w / sigma, rtol=1e-5)
    np.testing.assert_allclose(fc.weight_u.numpy(), u, rtol=1e-5)
    out.sum().backward()                      # the gradient reaches weight_orig
    assert fc.weight_orig.grad.shape == [5, 3]
    # Many iterations: the largest singular value of the weight becomes 1.
    for _ in range(30):
        fc(eager.ones([1, 5]))
    assert abs(np.linalg.svd(fc.weight.numpy(), compute_uv=False)[0] - 1) < 1e-4
    # eval: no iteration, the buffers stay.
    fc.eval()
    u_before = fc.weight_u.numpy().copy()
    fc(eager.ones([1, 5]))
    np.testing.assert_array_equal(fc.weight_u.numpy(), u_before)


def test_spectral_norm_conv_and_double_backward_safety():
    eager.seed(3)
    conv = eager.nn.Conv2D(2, 4, 3)
    utils.spectral_norm(conv, n_power_iterations=1)
    assert conv.weight_u.shape == [4] and conv.weight_v.shape == [18]      # dim 0 for a conv
    x = eager.ones([1, 2, 5, 5])
    first = conv(x).sum()
    second = conv(x).sum()          # updates u, v in place again: the first graph must still run
    (first + second).backward()
    assert conv.weight_orig.grad.shape == [4, 2, 3, 3]
    with pytest.raises(RuntimeError, match="already has spectral normalization"):
        utils.spectral_norm(conv)
    with pytest.raises(ValueError, match="n_power_iterations"):
        utils.spectral_norm(eager.nn.Linear(2, 2), n_power_iterations=-1)


def test_spectral_norm_matches_torch():
    torch = pytest.importorskip("torch")
    eager.seed(4)
    fc = eager.nn.Linear(4, 3)
    w = fc.weight.numpy().astype(np.float64)
    utils.spectral_norm(fc, n_power_iterations=50)
    fc.double()
    fc(eager.ones([1, 4], "float64"))
    sigma = torch.linalg.matrix_norm(torch.tensor(w), ord=2).item()
    np.testing.assert_allclose(fc.weight.numpy(), w / sigma, rtol=1e-4)


# -- clip_grad_norm_ of order 0 and float64 gradients (the activation/clipping sweep) --------------------------------------------------------------------------

_ORDER0_GRADS = [np.array([[0.0, 0.0], [3.0, 0.0]]), np.array([0.0, 0.0, 0.0]), np.array([1.0, -2.0, 0.5])]


@pytest.mark.parametrize("max_norm", [0.5, 10.0])
def test_clip_grad_norm_of_order_zero(max_norm):
    params = _params_with_grads(_ORDER0_GRADS)
    total = utils.clip_grad_norm_(params, max_norm, norm_type=0)
    # the order-0 norm of the per-gradient order-0 norms (2 nonzero counts of 3)
    want = float(sum(np.count_nonzero(np.count_nonzero(g)) for g in _ORDER0_GRADS))
    assert want == 2.0
    np.testing.assert_allclose(float(total), want, rtol=1e-12)
    scale = min(1.0, max_norm / (want + 1e-6))
    for p, g in zip(params, _ORDER0_GRADS):
        np.testing.assert_allclose(p.grad.numpy(), g * scale, rtol=1e-12)


def test_clip_grad_norm_of_order_zero_matches_torch():
    torch = pytest.importorskip("torch")
    params = _params_with_grads(_ORDER0_GRADS)
    tparams = [torch.zeros(g.shape, dtype=torch.float64, requires_grad=True) for g in _ORDER0_GRADS]
    for t, g in zip(tparams, _ORDER0_GRADS):
        t.grad = torch.tensor(g)
    want = torch.nn.utils.clip_grad_norm_(tparams, 1.5, 0)
    got = utils.clip_grad_norm_(params, 1.5, 0)
    np.testing.assert_allclose(float(got), float(want), rtol=1e-12)
    for p, t in zip(params, tparams):
        np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_clip_grad_norm_keeps_float64():
    grads = [np.array([1.0 + 2 ** -40, 2.0]), np.array([[3.0, 1e-9]])]
    params = _params_with_grads(grads)
    total = utils.clip_grad_norm_(params, 1.0)
    assert total.dtype == eager.float64
    want = math.sqrt(sum(float((g ** 2).sum()) for g in grads))
    assert abs(float(total) - want) <= 1e-15 * want        # float32 rounding was 1e-8 off
    for p, g in zip(params, grads):
        np.testing.assert_allclose(p.grad.numpy(), g / (want + 1e-6), rtol=1e-13)
    with pytest.raises(ValueError, match="clip_grad_norm_: argument 'norm_type' expected one of 0, 1, 2 and inf"):
        utils.clip_grad_norm_(params, 1.0, norm_type=-1)
