"""eager.nn.functional.conv1d/2d/3d and the Conv layers: values and gradients
against PyTorch (a second, independent implementation), Paddle's padding
forms, padding modes, initialization and errors. The conv ops themselves are
in the op table (tests/op_specs/conv.py) against a NumPy reference."""
import numpy as np
import pytest

import eager
import eager.nn.functional as F

pytestmark = pytest.mark.usefixtures("device")

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def pair(shape, seed=0):
    array = np.random.default_rng(seed).standard_normal(shape)
    return eager.to_tensor(array, stop_gradient=False), torch.tensor(array, requires_grad=True)


def check_against_torch(ours, theirs, inputs):
    out, expected = ours(*[a for a, _ in inputs]), theirs(*[b for _, b in inputs])
    np.testing.assert_allclose(out.numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-10)
    seed = np.random.default_rng(9).standard_normal(expected.shape)
    out.backward(eager.to_tensor(seed))
    expected.backward(torch.tensor(seed))
    for a, b in inputs:
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("kwargs, torch_kwargs", [
    ({}, {}),
    ({"stride": 2, "padding": 1}, {"stride": 2, "padding": 1}),
    ({"stride": [2, 1], "padding": [1, 2], "dilation": [1, 2]}, {"stride": (2, 1), "padding": (1, 2), "dilation": (1, 2)}),
    ({"padding": "SAME"}, {"padding": "same"}),
    ({"padding": "VALID", "groups": 2}, {"padding": "valid", "groups": 2}),
    ({"padding": [[0, 0], [0, 0], [1, 1], [2, 2]]}, {"padding": (1, 2)}),
])
def test_conv2d_matches_torch(kwargs, torch_kwargs):
    x, tx = pair((2, 4, 7, 6))
    w, tw = pair((6, 4 // kwargs.get("groups", 1), 3, 3), 1)
    b, tb = pair((6,), 2)
    check_against_torch(lambda x, w, b: F.conv2d(x, w, b, **kwargs),
                        lambda x, w, b: TF.conv2d(x, w, b, **torch_kwargs), [(x, tx), (w, tw), (b, tb)])


def test_conv2d_asymmetric_padding_and_nhwc():
    x, tx = pair((2, 5, 6, 3))                                  # NHWC
    w, tw = pair((4, 3, 2, 3), 1)
    check_against_torch(
        lambda x, w: F.conv2d(x, w, padding=[1, 0, 2, 1], data_format="NHWC"),
        lambda x, w: TF.conv2d(TF.pad(x.permute(0, 3, 1, 2), (2, 1, 1, 0)), w).permute(0, 2, 3, 1),
        [(x, tx), (w, tw)])


def test_conv1d_and_conv3d_match_torch():
    x, tx = pair((2, 3, 11))
    w, tw = pair((5, 3, 4), 1)
    check_against_torch(lambda x, w: F.conv1d(x, w, stride=2, padding=[1, 2], dilation=2),
                        lambda x, w: TF.conv1d(TF.pad(x, (1, 2)), w, stride=2, dilation=2), [(x, tx), (w, tw)])
    x, tx = pair((1, 2, 4, 5, 4))
    w, tw = pair((4, 1, 2, 3, 2), 1)
    check_against_torch(lambda x, w: F.conv3d(x, w, padding=1, groups=2),
                        lambda x, w: TF.conv3d(x, w, padding=1, groups=2), [(x, tx), (w, tw)])


def test_conv1d_channel_last():
    x, tx = pair((2, 9, 3))
    w, tw = pair((4, 3, 3), 1)
    check_against_torch(lambda x, w: F.conv1d(x, w, padding=1, data_format="NLC"),
                        lambda x, w: TF.conv1d(x.permute(0, 2, 1), w, padding=1).permute(0, 2, 1),
                        [(x, tx), (w, tw)])


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_conv2d_layer_padding_modes_match_torch(mode):
    eager.seed(0)
    layer = eager.nn.Conv2D(3, 4, kernel_size=3, padding=[1, 2], padding_mode=mode)
    reference = torch.nn.Conv2d(3, 4, kernel_size=3, padding=(1, 2), padding_mode=mode)
    bias = np.random.default_rng(3).standard_normal(4).astype("float32")
    layer.set_state_dict({"bias": bias})
    with torch.no_grad():
        reference.weight.copy_(torch.tensor(layer.weight.numpy()))
        reference.bias.copy_(torch.tensor(bias))
    array = np.random.default_rng(0).standard_normal((2, 3, 5, 6)).astype("float32")
    x, tx = eager.to_tensor(array, stop_gradient=False), torch.tensor(array, requires_grad=True)
    out, expected = layer(x), reference(tx)
    np.testing.assert_allclose(out.numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-5)
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(layer.weight.grad.numpy(), reference.weight.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_layer_shapes_and_paddle_initialization():
    eager.seed(1)
    conv = eager.nn.Conv2D(16, 32, kernel_size=3, groups=2)
    assert conv.weight.shape == [32, 8, 3, 3] and conv.bias.shape == [32]
    np.testing.assert_array_equal(conv.bias.numpy(), np.zeros(32))
    std = float(np.std(conv.weight.numpy()))
    assert abs(std - (2.0 / (9 * 16)) ** 0.5) < 0.01          # Normal(0, sqrt(2 / (k*k*in_channels)))
    assert eager.nn.Conv1D(2, 3, 5)(eager.ones([4, 2, 10])).shape == [4, 3, 6]
    assert eager.nn.Conv3D(2, 3, 3, stride=2, padding=1)(eager.ones([1, 2, 5, 5, 5])).shape == [1, 3, 3, 3, 3]
    no_bias = eager.nn.Conv2D(2, 2, 1, bias_attr=False)
    assert no_bias.bias is None and no_bias(eager.ones([1, 2, 3, 3])).shape == [1, 2, 3, 3]
    assert "kernel_size=[3, 3]" in repr(conv)


def test_a_small_cnn_trains():
    eager.seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 1, 6, 6)).astype("float32")
    y = (x[:, 0, :3].sum(axis=(1, 2)) > x[:, 0, 3:].sum(axis=(1, 2))).astype("int64")
    model = eager.nn.Sequential(eager.nn.Conv2D(1, 4, 3, padding=1), eager.nn.ReLU(),
                                eager.nn.Conv2D(4, 2, 6))
    opt = eager.optimizer.Adam(learning_rate=0.05, parameters=model.parameters())
    xs, ys = eager.to_tensor(x), eager.to_tensor(y)
    for _ in range(60):
        loss = F.cross_entropy(model(xs).reshape([32, 2]), ys)
        loss.backward(); opt.step(); opt.clear_grad()
    assert loss.item() < 0.1


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.conv2d(eager.ones([1, 3, 5, 5]), eager.ones([2, 2, 3, 3])), ValueError,
     "conv2d: argument 'filter' expects input channels / groups = 2 (2 channels), but the input has 3"),
    (lambda: F.conv2d(eager.ones([1, 3, 5]), eager.ones([2, 3, 3, 3])), ValueError,
     "conv2d: argument 'x' expected a 4-d tensor (NCHW), got shape [1, 3, 5]"),
    (lambda: F.conv2d(eager.ones([1, 3, 5, 5]), eager.ones([2, 3, 3, 3]), padding="FULL"), ValueError,
     "conv2d: argument 'padding' expected 'SAME', 'VALID', an int or a list, got 'FULL'"),
    (lambda: F.conv2d(eager.ones([1, 3, 5, 5]), eager.ones([2, 3, 3, 3]), stride=0), ValueError,
     "conv2d: argument 'stride' expected values >= 1, got [0, 0]"),
    (lambda: F.conv2d(eager.ones([1, 3, 2, 2]), eager.ones([2, 3, 3, 3])), ValueError,
     "is larger than the padded input [2, 2]"),
    (lambda: F.conv2d(eager.ones([1, 3, 5, 5]), eager.ones([2, 3, 3, 3]), eager.ones([3])), ValueError,
     "conv2d: argument 'bias' expected shape [2] (one per output channel), got [3]"),
    (lambda: F.conv2d(eager.ones([1, 3, 5, 5]), eager.ones([2, 3, 3, 3], "float64")), ValueError,
     "conv2d: arguments 'input' and 'filter' expected the same dtype"),
    (lambda: F.conv2d(eager.ones([1, 3, 5, 5]), eager.ones([2, 3, 3, 3]),
                      padding=[[1, 1], [0, 0], [1, 1], [1, 1]]), ValueError, "may not pad the batch or channel axis"),
    (lambda: eager.nn.Conv2D(3, 4, 3, groups=2), ValueError, "Conv2D: argument 'groups' (2) must divide in_channels (3)"),
    (lambda: eager.nn.Conv2D(3, 4, 3, padding_mode="mirror"), ValueError, "argument 'padding_mode' expected one of"),
    (lambda: eager.nn.Conv2D(3, 4, 3, padding="SAME", padding_mode="reflect"), ValueError,
     "padding_mode 'reflect' needs explicit padding sizes"),
])
def test_bad_calls_raise_clear_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


# -- transposed convolutions ---------------------------------------------------------

@pytest.mark.parametrize("kwargs, torch_kwargs", [
    ({}, {}),
    ({"stride": 2, "padding": 1, "output_padding": 1}, {"stride": 2, "padding": 1, "output_padding": 1}),
    ({"stride": [2, 3], "padding": [1, 0], "dilation": [1, 2], "groups": 2},
     {"stride": (2, 3), "padding": (1, 0), "dilation": (1, 2), "groups": 2}),
    ({"stride": [3, 2], "output_padding": [2, 1], "dilation": 2}, {"stride": (3, 2), "output_padding": (2, 1),
                                                                   "dilation": 2}),
    ({"padding": [[0, 0], [0, 0], [1, 1], [2, 2]]}, {"padding": (1, 2)}),
])
def test_conv2d_transpose_matches_torch(kwargs, torch_kwargs):
    groups = kwargs.get("groups", 1)
    x, tx = pair((2, 4, 5, 4))
    w, tw = pair((4, 3, 3, 3), 1)
    b, tb = pair((3 * groups,), 2)
    check_against_torch(lambda x, w, b: F.conv2d_transpose(x, w, b, **kwargs),
                        lambda x, w, b: TF.conv_transpose2d(x, w, b, **torch_kwargs), [(x, tx), (w, tw), (b, tb)])


def test_conv2d_transpose_output_size_and_nhwc_match_torch():
    x, tx = pair((1, 4, 3, 2))                                  # NHWC
    w, tw = pair((2, 3, 3, 2), 1)
    # output_size [8, 5] is output_padding [1, 1] for stride 2, padding 1
    check_against_torch(
        lambda x, w: F.conv2d_transpose(x, w, stride=2, padding=1, output_size=[8, 5], data_format="NHWC"),
        lambda x, w: TF.conv_transpose2d(x.permute(0, 3, 1, 2), w, stride=2, padding=1,
                                         output_padding=1).permute(0, 2, 3, 1), [(x, tx), (w, tw)])


def test_conv1d_and_conv3d_transpose_match_torch():
    x, tx = pair((2, 4, 6))
    w, tw = pair((4, 1, 3), 1)
    check_against_torch(lambda x, w: F.conv1d_transpose(x, w, stride=2, padding=1, output_padding=1, groups=2),
                        lambda x, w: TF.conv_transpose1d(x, w, stride=2, padding=1, output_padding=1, groups=2),
                        [(x, tx), (w, tw)])
    x, tx = pair((1, 2, 3, 2, 3))
    w, tw = pair((2, 3, 2, 3, 2), 1)
    check_against_torch(lambda x, w: F.conv3d_transpose(x, w, stride=[2, 1, 2], padding=[0, 1, 1], dilation=[1, 2, 1]),
                        lambda x, w: TF.conv_transpose3d(x, w, stride=(2, 1, 2), padding=(0, 1, 1), dilation=(1, 2, 1)),
                        [(x, tx), (w, tw)])


def test_conv_transpose_layer_matches_torch_layer():
    eager.seed(0)
    layer = eager.nn.Conv2DTranspose(4, 6, kernel_size=3, stride=2, padding=1, output_padding=1, groups=2)
    reference = torch.nn.ConvTranspose2d(4, 6, kernel_size=3, stride=2, padding=1, output_padding=1, groups=2)
    bias = np.random.default_rng(3).standard_normal(6).astype("float32")
    layer.set_state_dict({"bias": bias})
    with torch.no_grad():
        reference.weight.copy_(torch.tensor(layer.weight.numpy()))          # the same [C_in, C_out/g, k, k] layout
        reference.bias.copy_(torch.tensor(bias))
    array = np.random.default_rng(0).standard_normal((2, 4, 5, 5)).astype("float32")
    x, tx = eager.to_tensor(array, stop_gradient=False), torch.tensor(array, requires_grad=True)
    out, expected = layer(x), reference(tx)
    np.testing.assert_allclose(out.numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-5)
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(layer.weight.grad.numpy(), reference.weight.grad.numpy(), rtol=1e-4, atol=1e-4)
