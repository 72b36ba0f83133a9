"""eager.nn.functional's activations and their layers (issue #10).

The phi ops themselves (forward values, gradients, double gradients) are in the
op table (tests/op_specs/activation.py). Here: layers against functionals
against NumPy written from the definitions, PyTorch as a second implementation
(skipped without torch), large-|x| stability, gradients of the compositions
(glu, maxout, prelu, rrelu), higher orders, inplace variants and bad input.
"""
import doctest
import math

import numpy as np
import pytest

import eager
import eager.nn as nn
import eager.nn.activation as activation_layers
import eager.nn.functional as F
import eager.nn.functional.activation as activation_functionals
from eager.autograd import gradcheck, gradgradcheck

pytestmark = pytest.mark.usefixtures("device")

SELU_SCALE = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


# (functional, its kwargs, the layer built with the same attributes, NumPy reference in float64)
CASES = [
    (F.gelu, {}, lambda: nn.GELU(), lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2)))),
    (F.gelu, {"approximate": True}, lambda: nn.GELU(True),
     lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    (F.silu, {}, lambda: nn.SiLU(), lambda x: x * _sigmoid(x)),
    (F.swish, {}, lambda: nn.Swish(), lambda x: x * _sigmoid(x)),
    (F.leaky_relu, {"negative_slope": 0.2}, lambda: nn.LeakyReLU(0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    (F.elu, {"alpha": 0.7}, lambda: nn.ELU(0.7), lambda x: np.where(x > 0, x, 0.7 * (np.exp(x) - 1))),
    (F.selu, {}, lambda: nn.SELU(),
     lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * (np.exp(x) - 1))),
    (F.celu, {"alpha": 1.5}, lambda: nn.CELU(1.5),
     lambda x: np.maximum(0, x) + np.minimum(0, 1.5 * (np.exp(x / 1.5) - 1))),
    (F.relu6, {}, lambda: nn.ReLU6(), lambda x: np.minimum(np.maximum(x, 0), 6)),
    (F.softplus, {"beta": 2, "threshold": 3}, lambda: nn.Softplus(2, 3),
     lambda x: np.where(2 * x > 3, x, np.log1p(np.exp(2 * x)) / 2)),
    (F.softsign, {}, lambda: nn.Softsign(), lambda x: x / (1 + np.abs(x))),
    (F.softshrink, {"threshold": 0.3}, lambda: nn.Softshrink(0.3),
     lambda x: np.where(x > 0.3, x - 0.3, np.where(x < -0.3, x + 0.3, 0))),
    (F.hardshrink, {"threshold": 0.3}, lambda: nn.Hardshrink(0.3), lambda x: np.where(np.abs(x) > 0.3, x, 0)),
    (F.tanhshrink, {}, lambda: nn.Tanhshrink(), lambda x: x - np.tanh(x)),
    (F.hardtanh, {"min": -0.5, "max": 2.0}, lambda: nn.Hardtanh(-0.5, 2.0), lambda x: np.clip(x, -0.5, 2.0)),
    (F.hardswish, {}, lambda: nn.Hardswish(), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    (F.hardsigmoid, {}, lambda: nn.Hardsigmoid(), lambda x: np.clip(0.1666667 * x + 0.5, 0, 1)),
    (F.mish, {}, lambda: nn.Mish(), lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    (F.log_sigmoid, {}, lambda: nn.LogSigmoid(), lambda x: np.log(_sigmoid(x))),
    (F.thresholded_relu, {"threshold": 0.5}, lambda: nn.ThresholdedReLU(0.5), lambda x: np.where(x > 0.5, x, 0)),
    (F.glu, {"axis": 1}, lambda: nn.GLU(1), lambda x: x[:, :2] * _sigmoid(x[:, 2:])),
    (F.log_softmax, {"axis": 0}, lambda: nn.LogSoftmax(0),
     lambda x: x - np.log(np.sum(np.exp(x), axis=0, keepdims=True))),
    (F.rrelu, {"training": False}, lambda: nn.RReLU().eval(),
     lambda x: np.where(x >= 0, x, x * (1 / 8 + 1 / 3) / 2)),
]
IDS = [f"{fn.__name__}{kwargs or ''}" for fn, kwargs, _, _ in CASES]


def _x(shape=(3, 4), scale=4.0, seed=0, dtype="float64"):
    return (np.random.default_rng(seed).uniform(-scale, scale, shape)).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn, kwargs, layer, reference", CASES, ids=IDS)
def test_layer_and_functional_match_numpy(fn, kwargs, layer, reference, dtype):
    x = _x(dtype=dtype)
    got = fn(eager.to_tensor(x), **kwargs)
    by_layer = layer()(eager.to_tensor(x))
    want = reference(x.astype(np.float64))
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    assert got.dtype == by_layer.dtype == eager.to_tensor(x).dtype
    np.testing.assert_allclose(got.numpy(), want, **tol)
    np.testing.assert_array_equal(by_layer.numpy(), got.numpy())


@pytest.mark.parametrize("fn, kwargs, layer, reference", CASES[:20], ids=IDS[:20])
def test_elementwise_on_0d_and_empty(fn, kwargs, layer, reference):
    for shape in ((), (0, 3)):
        x = _x(shape, seed=1)
        out = fn(eager.to_tensor(x), **kwargs)
        assert out.shape == list(shape)
        np.testing.assert_allclose(out.numpy(), reference(x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fn, kwargs, layer, reference", CASES, ids=IDS)
def test_gradients_float64(fn, kwargs, layer, reference):
    x = eager.to_tensor(_x(seed=2), stop_gradient=False)
    assert gradcheck(lambda t: fn(t, **kwargs), [x])


@pytest.mark.parametrize("fn, kwargs", [
    (F.gelu, {}), (F.gelu, {"approximate": True}), (F.silu, {}), (F.mish, {}), (F.softplus, {"beta": 2}),
    (F.log_sigmoid, {}), (F.elu, {}), (F.selu, {}), (F.celu, {"alpha": 0.5}), (F.softsign, {}),
    (F.tanhshrink, {}), (F.hardswish, {}), (F.glu, {"axis": 0}),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_second_derivatives_float64(fn, kwargs):
    x = eager.to_tensor(_x((4, 3), seed=3), stop_gradient=False)
    assert gradgradcheck(lambda t: fn(t, **kwargs), [x])


def test_third_derivative_of_log_sigmoid():
    # f' = 1 - s, f'' = -s (1 - s), f''' = -s (1 - s) (1 - 2 s), s = sigmoid(x)
    x_np = _x((5,), seed=4)
    x = eager.to_tensor(x_np, stop_gradient=False)
    (g1,) = eager.grad(F.log_sigmoid(x).sum(), x, create_graph=True)
    (g2,) = eager.grad(g1.sum(), x, create_graph=True)
    (g3,) = eager.grad(g2.sum(), x)
    s = _sigmoid(x_np)
    np.testing.assert_allclose(g1.numpy(), 1 - s, rtol=1e-12)
    np.testing.assert_allclose(g2.numpy(), -s * (1 - s), rtol=1e-12)
    np.testing.assert_allclose(g3.numpy(), -s * (1 - s) * (1 - 2 * s), rtol=1e-10, atol=1e-14)


# -- large |x|: no inf or nan where the true value is finite ---------------------------------

STABLE = [
    (F.gelu, {}), (F.gelu, {"approximate": True}), (F.silu, {}), (F.elu, {}), (F.selu, {}), (F.celu, {}),
    (F.softplus, {}), (F.softplus, {"beta": 0.5, "threshold": 1e9}), (F.softsign, {}), (F.tanhshrink, {}),
    (F.mish, {}), (F.log_sigmoid, {}), (F.hardswish, {}), (F.hardsigmoid, {}), (F.leaky_relu, {}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn, kwargs", STABLE, ids=lambda v: getattr(v, "__name__", str(v)))
def test_large_inputs_stay_finite(fn, kwargs, dtype):
    values = np.array([-3e4, -1e3, -100.0, -30.0, 30.0, 100.0, 1e3, 3e4], dtype=dtype)
    x = eager.to_tensor(values, stop_gradient=False)
    out = fn(x, **kwargs)
    assert np.all(np.isfinite(out.numpy())), out.numpy()
    (grad,) = eager.grad(out.sum(), x, create_graph=True)
    assert np.all(np.isfinite(grad.numpy())), grad.numpy()
    (second,) = eager.grad(grad.sum(), x, allow_unused=True)
    assert second is None or np.all(np.isfinite(second.numpy())), second.numpy()


def test_large_input_values():
    x = eager.to_tensor(np.array([-1e4, 1e4]))
    np.testing.assert_allclose(F.softplus(x, beta=0.5, threshold=1e9).numpy(), [0.0, 1e4], rtol=1e-15)
    np.testing.assert_allclose(F.log_sigmoid(x).numpy(), [-1e4, 0.0], rtol=1e-15)
    np.testing.assert_allclose(F.mish(x).numpy(), [0.0, 1e4], rtol=1e-15, atol=1e-300)
    np.testing.assert_allclose(F.selu(x).numpy(), [-SELU_SCALE * SELU_ALPHA, SELU_SCALE * 1e4], rtol=1e-15)
    np.testing.assert_allclose(F.silu(x).numpy(), [0.0, 1e4], rtol=1e-15, atol=1e-300)
    np.testing.assert_allclose(F.gelu(x).numpy(), [0.0, 1e4], rtol=1e-15, atol=1e-300)


# -- PyTorch as a second implementation -------------------------------------------------------

def _torch_cases(torch):
    TF = torch.nn.functional
    return [
        (F.gelu, {}, TF.gelu, {}),
        (F.gelu, {"approximate": True}, TF.gelu, {"approximate": "tanh"}),
        (F.silu, {}, TF.silu, {}),
        (F.leaky_relu, {"negative_slope": 0.3}, TF.leaky_relu, {"negative_slope": 0.3}),
        (F.elu, {"alpha": 0.5}, TF.elu, {"alpha": 0.5}),
        (F.selu, {}, TF.selu, {}),
        (F.celu, {"alpha": 2.0}, TF.celu, {"alpha": 2.0}),
        (F.relu6, {}, TF.relu6, {}),
        (F.softplus, {"beta": 2, "threshold": 5}, TF.softplus, {"beta": 2, "threshold": 5}),
        (F.softsign, {}, TF.softsign, {}),
        (F.softshrink, {"threshold": 0.7}, TF.softshrink, {"lambd": 0.7}),
        (F.hardshrink, {"threshold": 0.7}, TF.hardshrink, {"lambd": 0.7}),
        (F.tanhshrink, {}, TF.tanhshrink, {}),
        (F.hardtanh, {"min": -2.0, "max": 1.5}, TF.hardtanh, {"min_val": -2.0, "max_val": 1.5}),
        (F.hardswish, {}, TF.hardswish, {}),
        (F.mish, {}, TF.mish, {}),
        (F.log_sigmoid, {}, TF.logsigmoid, {}),
        (F.thresholded_relu, {"threshold": 0.5}, lambda t: TF.threshold(t, 0.5, 0.0), {}),
        (F.glu, {"axis": 0}, TF.glu, {"dim": 0}),
        (F.log_softmax, {"axis": 1}, TF.log_softmax, {"dim": 1}),
    ]


def test_values_and_gradients_match_torch():
    torch = pytest.importorskip("torch")
    x_np = _x((4, 6), seed=5)
    x_np[np.abs(x_np) < 1e-3] = 0.5  # away from kinks at 0
    seed = np.random.default_rng(6).standard_normal
    for ours, kwargs, theirs, torch_kwargs in _torch_cases(torch):
        x = eager.to_tensor(x_np, stop_gradient=False)
        tx = torch.tensor(x_np, requires_grad=True)
        out, expected = ours(x, **kwargs), theirs(tx, **torch_kwargs)
        np.testing.assert_allclose(out.numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=ours.__name__)
        cotangent = seed(expected.shape)
        out.backward(eager.to_tensor(cotangent))
        expected.backward(torch.tensor(cotangent))
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=ours.__name__)


def test_hardsigmoid_and_prelu_match_torch():
    torch = pytest.importorskip("torch")
    x_np = _x((2, 3, 4), seed=7)
    np.testing.assert_allclose(F.hardsigmoid(eager.to_tensor(x_np), slope=1 / 6, offset=0.5).numpy(),
                               torch.nn.functional.hardsigmoid(torch.tensor(x_np)).numpy(), rtol=1e-12)
    w_np = np.array([0.1, -0.3, 0.6])
    x, w = eager.to_tensor(x_np, stop_gradient=False), eager.to_tensor(w_np, stop_gradient=False)
    tx, tw = torch.tensor(x_np, requires_grad=True), torch.tensor(w_np, requires_grad=True)
    out, expected = F.prelu(x, w, data_format="NCL"), torch.nn.functional.prelu(tx, tw)
    np.testing.assert_allclose(out.numpy(), expected.detach().numpy(), rtol=1e-12)
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-12)


# -- the compositions: prelu, maxout, rrelu ----------------------------------------------------

def ref_prelu(x, w, channel_axis):
    shape = [1] * x.ndim
    if w.size > 1:
        shape[channel_axis] = w.size
    return np.where(x > 0, x, x * w.reshape(shape))


@pytest.mark.parametrize("shape, weight_size, data_format, axis", [
    ((2, 3, 4, 5), 1, "NCHW", 1),
    ((2, 3, 4, 5), 3, "NCHW", 1),
    ((2, 4, 5, 3), 3, "NHWC", 3),
    ((2, 3), 3, "NC", 1),
    ((2, 5, 3), 3, "NLC", 2),
    ((2, 3, 2, 2, 2), 3, "NCDHW", 1),
    ((2, 2, 2, 2, 3), 3, "NDHWC", 4),
    ((), 1, "NCHW", 0),
])
def test_prelu(shape, weight_size, data_format, axis):
    x_np = _x(shape, seed=8)
    w_np = np.linspace(-0.5, 0.5, weight_size)
    x, w = eager.to_tensor(x_np, stop_gradient=False), eager.to_tensor(w_np, stop_gradient=False)
    out = F.prelu(x, w, data_format)
    np.testing.assert_allclose(out.numpy(), ref_prelu(x_np, w_np, axis), rtol=1e-15)
    assert gradcheck(lambda a, b: F.prelu(a, b, data_format), [x, w])
    assert gradgradcheck(lambda a, b: F.prelu(a, b, data_format), [x, w])


def test_prelu_layer_has_a_trainable_weight():
    layer = nn.PReLU(num_parameters=3, init=0.1, data_format="NHWC")
    assert [name for name, _ in layer.named_parameters()] == ["_weight"]  # Paddle 2.6.2's name
    np.testing.assert_allclose(layer.weight.numpy(), [0.1, 0.1, 0.1], rtol=1e-7)
    x_np = _x((2, 2, 2, 3), seed=9, dtype="float32")
    out = layer(eager.to_tensor(x_np))
    np.testing.assert_allclose(out.numpy(), ref_prelu(x_np, np.full(3, 0.1, "float32"), 3), rtol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(layer.weight.grad.numpy(), np.minimum(x_np, 0).sum(axis=(0, 1, 2)), rtol=1e-5)
    fixed = nn.PReLU(weight_attr=nn.ParamAttr(initializer=nn.initializer.Constant(0.5), trainable=False))
    assert fixed.weight.stop_gradient and fixed.weight.numpy().tolist() == [0.5]


def ref_maxout(x, groups, axis):
    x = np.moveaxis(x, axis, 1)
    n, c, h, w = x.shape
    out = x.reshape(n, c // groups, groups, h, w).max(axis=2)
    return np.moveaxis(out, 1, axis)


@pytest.mark.parametrize("groups, axis", [(2, 1), (3, 1), (6, 1), (2, -1), (3, 3)])
def test_maxout(groups, axis):
    shape = (2, 6, 3, 2) if axis == 1 else (2, 3, 2, 6)
    x_np = np.random.default_rng(10).permutation(np.prod(shape)).reshape(shape) / 7.0  # no ties
    x = eager.to_tensor(x_np, stop_gradient=False)
    out = F.maxout(x, groups, axis)
    np.testing.assert_array_equal(out.numpy(), ref_maxout(x_np, groups, axis % 4))
    np.testing.assert_array_equal(nn.Maxout(groups, axis)(x).numpy(), out.numpy())
    assert gradcheck(lambda t: F.maxout(t, groups, axis), [x])


def test_maxout_gradient_at_a_tie_goes_to_the_first_maximum():
    x = eager.to_tensor(np.array([1.0, 1.0, 0.5, 2.0, 2.0, 2.0]).reshape(1, 6, 1, 1), stop_gradient=False)
    F.maxout(x, 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy().ravel(), [1.0, 0.0, 0.0, 1.0, 0.0, 0.0])


@pytest.mark.parametrize("shape, axis", [((2, 4, 0, 3), 1), ((0, 4, 2, 2), 1), ((2, 0, 3, 4), -1)])
def test_maxout_of_an_empty_tensor(shape, axis):
    x = eager.to_tensor(np.zeros(shape), stop_gradient=False)
    out = F.maxout(x, 2, axis)
    assert out.shape == list(ref_maxout(np.zeros(shape), 2, axis % 4).shape)
    out.sum().backward()
    assert x.grad.shape == list(shape)


def test_rrelu_training_draws_slopes_in_bounds():
    eager.seed(3)
    x_np = np.concatenate([-np.linspace(0.5, 2.0, 500), np.linspace(0.0, 2.0, 100)])
    x = eager.to_tensor(x_np, stop_gradient=False)
    out = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = out.numpy()[:500] / x_np[:500]
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    np.testing.assert_array_equal(out.numpy()[500:], x_np[500:])
    out.sum().backward()  # the gradient of a negative element is its slope
    np.testing.assert_allclose(x.grad.numpy()[:500], slopes, rtol=1e-12)
    np.testing.assert_array_equal(x.grad.numpy()[500:], 1.0)
    layer = nn.RReLU(0.1, 0.3)
    assert layer.training and not np.allclose(layer(eager.to_tensor(x_np)).numpy()[:500] / x_np[:500], 0.2)
    layer.eval()
    np.testing.assert_allclose(layer(eager.to_tensor(x_np)).numpy()[:500] / x_np[:500], 0.2, rtol=1e-12)


# -- inplace variants ---------------------------------------------------------------------------

@pytest.mark.parametrize("inplace, plain, kwargs", [
    (F.relu_, F.relu, {}), (F.tanh_, F.tanh, {}), (F.elu_, F.elu, {"alpha": 0.5}),
    (F.leaky_relu_, F.leaky_relu, {"negative_slope": 0.2}), (F.hardtanh_, F.hardtanh, {"min": -0.5, "max": 0.5}),
    (F.thresholded_relu_, F.thresholded_relu, {"threshold": 0.2}),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_inplace_variants(inplace, plain, kwargs):
    x_np = _x((3, 4), scale=2.0, seed=11)
    x_np[np.abs(x_np) < 1e-3] = 0.5
    leaf = eager.to_tensor(x_np, stop_gradient=False)
    y = leaf * 1.0
    out = inplace(y, **kwargs)
    assert out is y
    reference = plain(eager.to_tensor(x_np), **kwargs)
    np.testing.assert_array_equal(y.numpy(), reference.numpy())
    y.sum().backward()
    leaf2 = eager.to_tensor(x_np, stop_gradient=False)
    plain(leaf2, **kwargs).sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), leaf2.grad.numpy(), rtol=1e-15)


# -- bad input -----------------------------------------------------------------------------------

BAD_CALLS = [
    (lambda x: F.hardtanh(x, 1.0, -1.0), ValueError, r"hardtanh.*'max'.*min=1\.0, max=-1\.0"),
    (lambda x: F.hardtanh_(x, 2.0, 0.0), ValueError, r"hardtanh.*'max'"),
    (lambda x: F.softshrink(x, -0.1), ValueError, r"softshrink.*'threshold'.*>= 0.*-0\.1"),
    (lambda x: F.selu(x, scale=0.9), ValueError, r"selu.*'scale'.*greater than 1.*0\.9"),
    (lambda x: F.selu(x, alpha=-1.0), ValueError, r"selu.*'alpha'.*>= 0"),
    (lambda x: F.celu(x, alpha=0.0), ValueError, r"celu.*'alpha'.*nonzero"),
    (lambda x: F.softplus(x, beta=0), ValueError, r"softplus.*'beta'.*nonzero"),
    (lambda x: F.elu_(x, alpha=-0.5), ValueError, r"elu_.*'alpha'.*>= 0"),
    (lambda x: F.leaky_relu(x, "big"), TypeError, r"leaky_relu.*'negative_slope'.*number"),
    (lambda x: F.gelu(x, approximate="yes"), TypeError, r"gelu.*'approximate'.*bool"),
    (lambda x: F.glu(x[:, :3]), ValueError, r"glu.*'x'.*even size along axis 1.*\[2, 3\]"),
    (lambda x: F.glu(x, axis=3), ValueError, r"glu.*'axis'"),
    (lambda x: F.maxout(x.reshape([1, 4, 2, 1]), 3), ValueError, r"maxout.*'groups' \(3\).*4 channels"),
    (lambda x: F.maxout(x, 2), ValueError, r"maxout.*'x'.*4-d"),
    (lambda x: F.maxout(x.reshape([1, 4, 2, 1]), 0), ValueError, r"maxout.*'groups'.*positive"),
    (lambda x: F.maxout(x.reshape([1, 4, 2, 1]), 2, axis=2), ValueError, r"maxout.*'axis'"),
    (lambda x: F.prelu(x, eager.to_tensor([0.1, 0.2, 0.3])), ValueError, r"prelu.*'weight'.*1 or 4.*got 3"),
    (lambda x: F.prelu(x, eager.to_tensor([0.1]), data_format="HWC"), ValueError, r"prelu.*'data_format'"),
    (lambda x: F.prelu(x, eager.to_tensor([[0.1]])), ValueError, r"prelu.*'weight'.*1-d"),
    (lambda x: F.rrelu(x, 0.5, 0.2), ValueError, r"rrelu.*'upper'.*>= lower"),
    (lambda x: F.rrelu(x, -0.1, 0.2), ValueError, r"rrelu.*'lower'.*\[0, 1\]"),
    (lambda x: F.mish(x.astype("int64")), TypeError, r"mish.*'x'.*floating-point"),
    (lambda x: F.softplus(x.numpy()), TypeError, r"softplus.*'x'.*Tensor"),
]


@pytest.mark.parametrize("call, error, match", BAD_CALLS, ids=[str(i) for i in range(len(BAD_CALLS))])
def test_bad_input_is_rejected_and_leaves_x_untouched(call, error, match):
    x_np = _x((2, 4), scale=2.0, seed=12, dtype="float32")
    x = eager.to_tensor(x_np)
    with pytest.raises(error, match=match):
        call(x)
    np.testing.assert_array_equal(x.numpy(), x_np)


@pytest.mark.parametrize("build, error, match", [
    (lambda: nn.Hardtanh(2.0, 1.0), ValueError, r"Hardtanh.*'max'"),
    (lambda: nn.Softshrink(-1.0), ValueError, r"Softshrink.*'threshold'"),
    (lambda: nn.SELU(scale=1.0), ValueError, r"SELU.*'scale'"),
    (lambda: nn.CELU(0), ValueError, r"CELU.*'alpha'"),
    (lambda: nn.Softplus(beta=0), ValueError, r"Softplus.*'beta'"),
    (lambda: nn.RReLU(0.4, 0.2), ValueError, r"RReLU.*'lower' and 'upper'"),
    (lambda: nn.Maxout(0), ValueError, r"Maxout.*'groups'"),
    (lambda: nn.PReLU(0), ValueError, r"PReLU.*'num_parameters'"),
    (lambda: nn.PReLU(data_format="CHW"), ValueError, r"PReLU.*'data_format'"),
    (lambda: nn.LeakyReLU("x"), TypeError, r"LeakyReLU.*'negative_slope'"),
    (lambda: nn.GELU("tanh"), TypeError, r"GELU.*'approximate'"),
    (lambda: nn.GLU(1.5), TypeError, r"GLU.*'axis'"),
])
def test_bad_layer_attributes(build, error, match):
    with pytest.raises(error, match=match):
        build()


def test_layer_reprs():
    assert repr(nn.LeakyReLU(0.2)) == "LeakyReLU(negative_slope=0.2)"
    assert repr(nn.Hardtanh()) == "Hardtanh(min=-1.0, max=1.0)"
    assert "num_parameters=2" in repr(nn.PReLU(2))


@pytest.mark.parametrize("module", [activation_functionals, activation_layers], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module, extraglobs={"eager": eager, "np": np},
                             optionflags=doctest.NORMALIZE_WHITESPACE, report=False)
    assert result.failed == 0 and result.attempted > 20


def test_gelu_keeps_its_relative_precision_in_the_lower_tail():
    # 1 + erf(x / sqrt 2) cancels to 0 below about -8; x * erfc(-x / sqrt 2) / 2 does not.
    xs = np.array([-40.0, -30.0, -20.0, -10.0, -5.0, -1.0, -1e-9, 0.0, 1e-300, 1e-9, 2.0, 9.0])
    want = np.array([0.5 * x * math.erfc(-x / math.sqrt(2)) for x in xs])
    np.testing.assert_allclose(F.gelu(eager.to_tensor(xs)).numpy(), want, rtol=1e-12, atol=0)
    narrow = xs[3:].astype("float32")
    want = np.array([0.5 * x * math.erfc(-x / math.sqrt(2)) for x in narrow.astype(np.float64)])
    np.testing.assert_allclose(F.gelu(eager.to_tensor(narrow)).numpy(), want, rtol=2e-7, atol=0)


def test_gelu_grad_kernel_matches_its_composite_rule_and_the_derivative():
    from eager.generated import forward_api as ops
    xs = np.array([-30.0, -9.0, -2.5, -1e-9, -1e-300, 0.0, 1e-12, 1e-9, 1e-7, 0.3, 4.0, 30.0])
    g = np.linspace(-1.0, 1.0, xs.size)
    x = eager.to_tensor(xs)
    kernel = ops.gelu_grad(x, F.gelu(x), eager.to_tensor(g), False).numpy()
    composite = eager.composite.gelu_grad(x, eager.to_tensor(g), False).numpy()
    want = g * np.array([0.5 * math.erfc(-v / math.sqrt(2)) + v * math.exp(-v * v / 2) / math.sqrt(2 * math.pi)
                         for v in xs])
    np.testing.assert_allclose(kernel, want, rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(composite, want, rtol=1e-12, atol=1e-15)
