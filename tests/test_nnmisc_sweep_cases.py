"""Regression cases found by a random differential sweep of the activations
(functional, Layer and inplace forms), the initializers, gradient clipping and
nn.utils (against PyTorch, each discrepancy checked against Paddle's kernels and
Python API, which win). References are direct float64 formulas written here.

- hardswish's gradient at x = -3 and x = 3: 0 and 1, as Paddle's kernel (its
  linear piece lies strictly inside (-3, 3)); eager gave -1/2 and 3/2, in the
  kernel and in the composite rule used under create_graph.
- hardshrink, softshrink and thresholded_relu of NaN: NaN (Paddle multiplies x
  by its mask), not 0.
- gelu's float16 gradient: NaN at x = 0 (1e-8 is 0 in float16, so 0 / 0) and,
  with approximate=True, for |x| >= 41 (x**3 overflowed); now in float32, as
  Paddle computes 16-bit activations.
- prelu with a 0-d weight (Paddle's [] weight, one slope): refused.
- softmax/log_softmax(x, dtype=...) cast x first, as Paddle: an integer x with a
  floating-point dtype was refused; a bad dtype was reported by 'cast'.
- relu of an integer tensor: a TypeError naming relu, not the kernel registry's
  NotFoundError.
- initializer.Uniform(low == high): refused, though Paddle only asserts high >= low.
- Xavier/Kaiming initializers of an empty weight ([0, 4]): a "fan_in and fan_out
  must be positive" ValueError instead of the empty array.
- clip_grad_norm_: norm_type=0 refused (Paddle and PyTorch take the norm of the
  per-gradient norms: the number of gradients holding a nonzero entry); the
  total norm of float64 gradients rounded to float32 (Paddle keeps their dtype); these
  cases sit in test_nn_utils.py, beside its clipping helpers.
- weight_norm of a weight with an all-zero slice along dim: NaN weights, outputs
  and gradients (Paddle's norm_except_dim adds 1e-12 inside the root).
- ClipGradByValue/ByNorm/ByGlobalNorm called with malformed pairs: an
  AttributeError, an unpacking ValueError, an integer gradient zeroed; now a
  TypeError naming the clip and 'params_grads'.
"""
import math

import numpy as np
import pytest

import eager
import eager.nn as nn
import eager.nn.functional as F

pytestmark = pytest.mark.usefixtures("device")


def leaf(values, dtype="float64"):
    return eager.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


# -- hardswish's gradient at the kinks --------------------------------------------------------

def _hardswish_slope(x):
    return np.where(x <= -3, 0.0, np.where(x >= 3, 1.0, (2 * x + 3) / 6))


def test_hardswish_gradient_at_the_kinks_is_paddles():
    values = np.array([-3.0, 3.0, -3.5, 3.5, 1.0, -1.0])
    x = leaf(values)
    F.hardswish(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), _hardswish_slope(values), rtol=1e-12)
    # create_graph records the composite rule, which must agree (and be differentiable)
    x2 = leaf(values)
    (g,) = eager.grad(F.hardswish(x2).sum(), x2, create_graph=True)
    np.testing.assert_allclose(g.numpy(), _hardswish_slope(values), rtol=1e-12)
    (h,) = eager.grad(g.sum(), x2)
    np.testing.assert_allclose(h.numpy(), np.where(np.abs(values) < 3, 1 / 3, 0.0), rtol=1e-12)


# -- NaN through the shrink activations -------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_shrinks_and_thresholded_relu_keep_nan(dtype):
    values = np.array([np.nan, 0.2, -0.2, 2.0, -2.0, 0.5, -0.5], dtype=dtype)
    x = eager.to_tensor(values)
    t = 0.5
    hard = values * ((values > t) | (values < -t))                     # Paddle: x * mask
    soft = (values > t) * (values - t) + (values < -t) * (values + t)
    thresholded = values * (values > 1.0)
    np.testing.assert_array_equal(F.hardshrink(x, t).numpy(), hard.astype(dtype))
    np.testing.assert_array_equal(F.softshrink(x, t).numpy(), soft.astype(dtype))
    np.testing.assert_array_equal(F.thresholded_relu(x).numpy(), thresholded.astype(dtype))
    np.testing.assert_array_equal(nn.Hardshrink(t)(x).numpy(), hard.astype(dtype))
    assert np.isnan(F.thresholded_relu_(eager.to_tensor(values)).numpy()[0])


# -- gelu's float16 gradient ------------------------------------------------------------------

def _gelu_slope(x, approximate):
    if approximate:
        k = math.sqrt(2 / math.pi)
        t = np.tanh(k * (x + 0.044715 * x ** 3))
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x)
    cdf = np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in x])
    return cdf + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


@pytest.mark.parametrize("approximate", [False, True])
def test_gelu_float16_gradient_is_finite_and_right(approximate):
    values = np.array([0.0, -0.0, 6e-8, 1e-3, 1.0, -2.0, 3.0, 50.0, -50.0, 700.0, -700.0], dtype="float16")
    x = eager.to_tensor(values, stop_gradient=False)
    F.gelu(x, approximate).sum().backward()
    got = x.grad.numpy()
    assert got.dtype == np.float16 and np.isfinite(got).all()
    want = _gelu_slope(values.astype(np.float64), approximate)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-3, atol=1e-3)


# -- prelu's 0-d weight -----------------------------------------------------------------------

def test_prelu_takes_a_zero_d_weight():
    values = np.array([[-1.0, 2.0, -3.0], [4.0, -0.5, 0.0]])
    x = leaf(values)
    w = eager.to_tensor(np.float64(0.25), stop_gradient=False)
    y = F.prelu(x, w)
    np.testing.assert_allclose(y.numpy(), np.where(values > 0, values, 0.25 * values), rtol=1e-12)
    y.sum().backward()
    assert w.grad.shape == []
    np.testing.assert_allclose(float(w.grad), np.minimum(values, 0).sum(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), np.where(values > 0, 1.0, 0.25), rtol=1e-12)
    with pytest.raises(ValueError, match="prelu: argument 'weight' expected a 0-d or 1-d tensor, got shape"):
        F.prelu(x, eager.to_tensor([[0.25]], dtype="float64"))


# -- softmax/log_softmax dtype ----------------------------------------------------------------

@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_casts_x_to_dtype_first(fn):
    ints = np.array([[1, 2, 3], [0, 0, 5]])
    wide = ints.astype(np.float64)
    shifted = wide - wide.max(-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    want = np.exp(log_p) if fn == "softmax" else log_p
    out = getattr(F, fn)(eager.to_tensor(ints), dtype="float64")
    assert out.dtype == eager.float64
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)
    x = eager.to_tensor(wide)
    with pytest.raises(TypeError, match=f"{fn}: argument 'dtype' expected a floating-point dtype, got"):
        getattr(F, fn)(x, dtype="int32")
    with pytest.raises(TypeError, match=f"{fn}: argument 'dtype': unknown dtype string 'foo'"):
        getattr(F, fn)(x, dtype="foo")
    with pytest.raises(TypeError, match=f"{fn}: argument 'x' expected a floating-point Tensor"):
        getattr(F, fn)(eager.to_tensor(ints))
    np.testing.assert_array_equal(x.numpy(), wide)


def test_relu_of_an_integer_tensor_is_a_type_error():
    x = eager.to_tensor([[-1, 2]])
    with pytest.raises(TypeError, match="relu: argument 'x' expected a floating-point Tensor"):
        F.relu(x)
    with pytest.raises(TypeError, match="relu: argument 'x' expected a floating-point Tensor"):
        nn.ReLU()(x)
    np.testing.assert_array_equal(x.numpy(), [[-1, 2]])


# -- initializers -----------------------------------------------------------------------------

def test_uniform_with_low_equal_to_high_is_constant():
    out = nn.initializer.Uniform(0.5, 0.5)((3, 2), "float64")
    np.testing.assert_array_equal(out, np.full((3, 2), 0.5))
    with pytest.raises(ValueError, match="Uniform: expected low <= high, got low=1.0, high=0.0"):
        nn.initializer.Uniform(1.0, 0.0)


@pytest.mark.parametrize("init", ["XavierUniform", "XavierNormal", "KaimingUniform", "KaimingNormal"])
@pytest.mark.parametrize("shape", [(0, 4), (4, 0), (3, 0, 2, 2)])
def test_fan_initializers_of_an_empty_weight(init, shape):
    out = getattr(nn.initializer, init)()(shape, "float32")
    assert out.shape == shape and out.dtype == np.float32
    assert eager.create_parameter(list(shape), "float32").shape == list(shape)


# -- weight_norm of a zero slice ----------------------------------------------------------------

@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_of_a_zero_weight_is_finite(dim):
    layer = nn.Linear(3, 2, weight_attr=nn.initializer.Constant(0.0), bias_attr=nn.initializer.Constant(0.5))
    nn.utils.weight_norm(layer, dim=dim)
    x = eager.to_tensor(np.ones((4, 3), dtype="float32"))
    y = layer(x)
    np.testing.assert_array_equal(layer.weight.numpy(), np.zeros((3, 2), dtype="float32"))
    np.testing.assert_array_equal(y.numpy(), np.full((4, 2), 0.5, dtype="float32"))
    y.sum().backward()
    assert np.isfinite(layer.weight_v.grad.numpy()).all() and np.isfinite(layer.weight_g.grad.numpy()).all()
    np.testing.assert_array_equal(layer.weight_g.grad.numpy(), np.zeros(layer.weight_g.shape, dtype="float32"))


def test_weight_norm_matches_the_formula():
    rng = np.random.default_rng(0)
    layer = nn.Conv2D(2, 3, 3)
    w = layer.weight.numpy().astype(np.float64)
    nn.utils.weight_norm(layer, dim=1)
    layer(eager.to_tensor(rng.standard_normal((1, 2, 4, 4)).astype("float32")))
    norms = np.sqrt((w ** 2).sum((0, 2, 3)))
    np.testing.assert_allclose(layer.weight_g.numpy(), norms, rtol=1e-6)
    np.testing.assert_allclose(layer.weight.numpy(), w, rtol=1e-5, atol=1e-7)


# -- direct calls of the gradient clips --------------------------------------------------------

@pytest.mark.parametrize("clip", [nn.ClipGradByValue(1.0), nn.ClipGradByNorm(1.0), nn.ClipGradByGlobalNorm(1.0)])
def test_clip_called_with_malformed_pairs(clip):
    name = type(clip).__name__
    p = eager.create_parameter([2], "float32")
    grad = eager.to_tensor([3.0, -4.0])
    with pytest.raises(TypeError, match=f"{name}: argument 'params_grads' expected a list of"):
        clip(3)
    with pytest.raises(TypeError, match=f"{name}: argument 'params_grads' expected \\(param, grad\\) pairs"):
        clip([(p,)])
    with pytest.raises(TypeError, match=f"{name}: argument 'params_grads' expected gradients that are None or "
                                        "floating-point Tensors, got float"):
        clip([(p, grad), (p, 3.0)])
    with pytest.raises(TypeError, match="got paddle.int64 Tensor"):
        clip([(p, eager.to_tensor([1, 2]))])
    np.testing.assert_array_equal(grad.numpy(), [3.0, -4.0])
    ((_, clipped),) = clip([(p, grad)])
    want = {"ClipGradByValue": [1.0, -1.0]}.get(name, [0.6, -0.8])
    np.testing.assert_allclose(clipped.numpy(), want, rtol=1e-6)
