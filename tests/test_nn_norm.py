"""eager.nn.functional normalization and the norm layers: values against NumPy
references written from the definitions, gradients by gradcheck in float64,
PyTorch as an extra cross-check where installed, and bad input. The phi ops
themselves are in the op table (tests/op_specs/norm.py)."""
import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck, gradgradcheck


def rand(shape, seed=0, dtype="float64"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def tensor(array, grad=False):
    return eager.to_tensor(array, stop_gradient=not grad)


def ref_normalize(x, axes, epsilon):
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + epsilon)


# -- layer_norm ---------------------------------------------------------------

@pytest.mark.parametrize("shape, normalized", [((4, 6), 6), ((2, 3, 4), [3, 4]), ((2, 3, 4), (4,))])
def test_layer_norm_matches_numpy(shape, normalized):
    x = rand(shape)
    k = 1 if isinstance(normalized, int) else len(normalized)
    w, b = rand(shape[-k:], 1), rand(shape[-k:], 2)
    out = F.layer_norm(tensor(x), normalized, tensor(w), tensor(b), epsilon=1e-3)
    want = ref_normalize(x, tuple(range(len(shape) - k, len(shape))), 1e-3) * w + b
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12, atol=1e-12)


def test_layer_norm_float32_and_no_affine():
    x = rand((3, 5), dtype="float32")
    out = F.layer_norm(tensor(x), [5])
    assert out.dtype == eager.float32
    np.testing.assert_allclose(out.numpy(), ref_normalize(x.astype("float64"), (1,), 1e-5), rtol=1e-5, atol=1e-5)


def test_layer_norm_gradients():
    x, w, b = tensor(rand((2, 3, 4)), True), tensor(rand((3, 4), 1), True), tensor(rand((3, 4), 2), True)
    fn = lambda x, w, b: F.layer_norm(x, [3, 4], w, b, 1e-2)  # noqa: E731
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


def test_layer_norm_layer_trains_and_matches_torch():
    torch = pytest.importorskip("torch")
    layer = eager.nn.LayerNorm([3, 4], epsilon=1e-4)
    layer.set_state_dict({"weight": rand((3, 4), 1, "float32"), "bias": rand((3, 4), 2, "float32")})
    ref = torch.nn.LayerNorm([3, 4], eps=1e-4)
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(layer.weight.numpy()))
        ref.bias.copy_(torch.tensor(layer.bias.numpy()))
    x = rand((2, 3, 4), 3, "float32")
    out, want = layer(tensor(x)), ref(torch.tensor(x))
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-5)
    seed = rand((2, 3, 4), 4, "float32")
    out.backward(tensor(seed))
    want.backward(torch.tensor(seed))
    np.testing.assert_allclose(layer.weight.grad.numpy(), ref.weight.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(layer.bias.grad.numpy(), ref.bias.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_layer_norm_layer_parameters():
    layer = eager.nn.LayerNorm(8)
    assert layer.weight.shape == [8] and layer.bias.shape == [8]
    np.testing.assert_array_equal(layer.weight.numpy(), np.ones(8, "float32"))
    np.testing.assert_array_equal(layer.bias.numpy(), np.zeros(8, "float32"))
    bare = eager.nn.LayerNorm(8, weight_attr=False, bias_attr=False)
    assert bare.weight is None and bare.bias is None and not bare.parameters()
    assert "normalized_shape=[8]" in repr(layer)


def test_layer_norm_bad_input():
    x = tensor(rand((2, 3)))
    with pytest.raises(ValueError, match="layer_norm: argument 'normalized_shape'"):
        F.layer_norm(x, [4])
    with pytest.raises(ValueError, match="layer_norm: argument 'epsilon'"):
        F.layer_norm(x, 3, epsilon=-1.0)
    with pytest.raises(ValueError, match="layer_norm: argument 'weight' expected shape \\[3\\]"):
        F.layer_norm(x, 3, weight=tensor(np.ones(2)))
    with pytest.raises(TypeError, match="layer_norm: argument 'x' expected a floating-point Tensor"):
        F.layer_norm(eager.to_tensor([[1, 2]]), 2)
    with pytest.raises(ValueError, match="LayerNorm: argument 'normalized_shape'"):
        eager.nn.LayerNorm([0])
