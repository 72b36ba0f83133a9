"""eager.nn.functional.conv1d/2d/3d and the Conv layers: values and gradients
against PyTorch (a second, independent implementation), Paddle's padding
forms, padding modes, initialization and errors. The conv ops themselves are
in the op table (tests/op_specs/conv.py) against a NumPy reference."""
import itertools

import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck
from phi.backends.cpu_context import CPU_CONTEXT
from phi.kernels import conv as conv_kernels
from torch_reference import needs_torch, torch

pytestmark = pytest.mark.usefixtures("device")

TF = torch.nn.functional if torch is not None else None


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


@needs_torch
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


@needs_torch
def test_conv2d_asymmetric_padding_and_nhwc():
    x, tx = pair((2, 5, 6, 3))                                  # NHWC
    w, tw = pair((4, 3, 2, 3), 1)
    check_against_torch(
        lambda x, w: F.conv2d(x, w, padding=[1, 0, 2, 1], data_format="NHWC"),
        lambda x, w: TF.conv2d(TF.pad(x.permute(0, 3, 1, 2), (2, 1, 1, 0)), w).permute(0, 2, 3, 1),
        [(x, tx), (w, tw)])


@needs_torch
def test_conv1d_and_conv3d_match_torch():
    x, tx = pair((2, 3, 11))
    w, tw = pair((5, 3, 4), 1)
    check_against_torch(lambda x, w: F.conv1d(x, w, stride=2, padding=[1, 2], dilation=2),
                        lambda x, w: TF.conv1d(TF.pad(x, (1, 2)), w, stride=2, dilation=2), [(x, tx), (w, tw)])
    x, tx = pair((1, 2, 4, 5, 4))
    w, tw = pair((4, 1, 2, 3, 2), 1)
    check_against_torch(lambda x, w: F.conv3d(x, w, padding=1, groups=2),
                        lambda x, w: TF.conv3d(x, w, padding=1, groups=2), [(x, tx), (w, tw)])


@needs_torch
def test_conv1d_channel_last():
    x, tx = pair((2, 9, 3))
    w, tw = pair((4, 3, 3), 1)
    check_against_torch(lambda x, w: F.conv1d(x, w, padding=1, data_format="NLC"),
                        lambda x, w: TF.conv1d(x.permute(0, 2, 1), w, padding=1).permute(0, 2, 1),
                        [(x, tx), (w, tw)])


@needs_torch
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

@needs_torch
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


@needs_torch
def test_conv2d_transpose_output_size_and_nhwc_match_torch():
    x, tx = pair((1, 4, 3, 2))                                  # NHWC
    w, tw = pair((2, 3, 3, 2), 1)
    # output_size [8, 5] is output_padding [1, 1] for stride 2, padding 1
    check_against_torch(
        lambda x, w: F.conv2d_transpose(x, w, stride=2, padding=1, output_size=[8, 5], data_format="NHWC"),
        lambda x, w: TF.conv_transpose2d(x.permute(0, 3, 1, 2), w, stride=2, padding=1,
                                         output_padding=1).permute(0, 2, 3, 1), [(x, tx), (w, tw)])


@needs_torch
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


@needs_torch
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


# -- the kernels' column layouts and blocks (phi/kernels/conv.py) ---------------------

def loop_reference(x, w, g, strides, pads, dilations, groups):
    """A convolution's output and, for an output gradient g, the input's and the
    filter's gradients, in float64 by a loop over the kernel's positions and the
    groups: each position's strided slice of the padded input times that
    position's filter taps (and their transposes back), no columns at all."""
    k = w.ndim - 2
    padded = np.pad(x, [(0, 0), (0, 0)] + list(pads))
    outs = [(padded.shape[2 + a] - dilations[a] * (w.shape[2 + a] - 1) - 1) // strides[a] + 1 for a in range(k)]
    n, c = x.shape[:2]
    o = w.shape[0]
    cg, og = c // groups, o // groups
    out, padded_grad, w_grad = np.zeros((n, o, *outs)), np.zeros_like(padded), np.zeros_like(w)
    for position in itertools.product(*(range(ks) for ks in w.shape[2:])):
        window = tuple(slice(p * d, p * d + (m - 1) * s + 1, s)
                       for p, d, m, s in zip(position, dilations, outs, strides))
        for group in range(groups):
            cs, os_ = slice(group * cg, (group + 1) * cg), slice(group * og, (group + 1) * og)
            patch, taps = padded[(slice(None), cs) + window], w[(os_, slice(None)) + position]
            out[:, os_] += np.einsum("nc...,oc->no...", patch, taps)
            padded_grad[(slice(None), cs) + window] += np.einsum("no...,oc->nc...", g[:, os_], taps)
            summed = [0] + list(range(2, 2 + k))                   # the batch and the output positions
            w_grad[(os_, slice(None)) + position] += np.tensordot(g[:, os_], patch, axes=(summed, summed))
    crop = (slice(None), slice(None)) + tuple(slice(b, b + m) for (b, _), m in zip(pads, x.shape[2:]))
    return out, padded_grad[crop], w_grad


CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}

# (layout on the CPU, x shape, filter shape, strides, (before, after) pads, dilations, groups)
LAYOUT_CASES = [
    ("direct", (5, 4, 5, 6), (6, 4, 1, 1), (1, 1), ((0, 0), (0, 0)), (1, 1), 1),    # 1x1: x is the columns
    ("direct", (5, 4, 3, 4), (6, 2, 1, 1), (1, 1), ((0, 0), (0, 0)), (1, 1), 2),
    ("wide", (5, 3, 7, 6), (4, 3, 3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), 1),
    ("wide", (5, 4, 9, 8), (6, 2, 3, 2), (1, 1), ((2, 1), (0, 2)), (2, 1), 2),       # dilated, grouped, uneven
    ("wide", (5, 2, 6, 6), (8, 2, 3, 3), (1, 1), ((0, 0), (0, 0)), (1, 1), 1),       # unpadded; O > 2C: adds
    ("wide", (5, 3, 11), (4, 3, 4), (1,), ((2, 1),), (2,), 1),                       # 1-d: no extra positions
    ("wide", (2, 2, 3, 6, 7), (3, 2, 2, 3, 1), (1, 1, 1), ((1, 0), (1, 1), (0, 0)), (1, 1, 1), 1),
    ("windows", (5, 3, 9, 8), (4, 3, 3, 3), (2, 2), ((1, 1), (1, 1)), (1, 1), 1),
    ("windows", (5, 4, 7, 6), (6, 4, 1, 1), (2, 2), ((0, 0), (0, 0)), (1, 1), 1),    # the 1x1 strided shortcut
    ("windows", (5, 2, 2, 2), (3, 2, 3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), 1),    # wide would be 2x the outputs
    ("windows", (3, 2, 2, 5), (3, 2, 3, 3), (4, 1), ((2, 2), (1, 1)), (1, 1), 1),    # 2 taps' rows all padding
]


@pytest.mark.parametrize("layout, x_shape, w_shape, strides, pads, dilations, groups", LAYOUT_CASES)
def test_cpu_column_layout_choice(layout, x_shape, w_shape, strides, pads, dilations, groups):
    x = np.zeros(x_shape)
    _, _, outs = conv_kernels._geometry(x.shape, w_shape, strides, [p for pair in pads for p in pair],
                                        "EXPLICIT", dilations)
    assert conv_kernels._column_source(np, x, w_shape[2:], strides, pads, dilations, outs)[2] == layout


def test_cpu_filter_gradient_takes_wide_columns_from_4_channels_per_group(monkeypatch):
    """The filter gradient keeps the windows below _WIDE_FILTER_CHANNELS input channels
    per group (where the forward takes wide columns), and takes wide ones from there on."""
    layouts = []
    real = conv_kernels._column_source
    monkeypatch.setattr(conv_kernels, "_column_source",
                        lambda *a, **k: layouts.append(real(*a, **k)[2]) or real(*a, **k))
    for channels, groups, expected in ((3, 1, "windows"), (6, 2, "windows"), (4, 1, "wide"), (8, 2, "wide")):
        x = np.zeros((2, channels, 6, 6))
        w = np.zeros((4, channels // groups, 3, 3))
        g = np.zeros((2, 4, 6, 6))
        layouts.clear()
        conv_kernels.conv_nd_grad(CPU_CONTEXT, x, w, g, [1, 1], [1, 1], "EXPLICIT", [1, 1], groups, "NCHW",
                                  out_mask=(False, True))
        assert layouts == [expected]
        layouts.clear()
        conv_kernels.conv_nd(CPU_CONTEXT, x, w, [1, 1], [1, 1], "EXPLICIT", [1, 1], groups, "NCHW")
        assert layouts == ["wide"]


@pytest.mark.parametrize("filter_channels", [1, None])
@pytest.mark.parametrize("per_block", [1, 2, None])
@pytest.mark.parametrize("layout, x_shape, w_shape, strides, pads, dilations, groups", LAYOUT_CASES)
def test_conv_blocks_and_layouts_match_a_loop(monkeypatch, filter_channels, per_block, layout, x_shape, w_shape,
                                              strides, pads, dilations, groups):
    """Forward and both gradients of every column layout, with the samples taken one
    or two per block (5 samples: a short last block) or all at once, against the loop;
    the filter gradient in the layout named (filter_channels 1) or as chosen by default."""
    if filter_channels is not None:
        monkeypatch.setattr(conv_kernels, "_WIDE_FILTER_CHANNELS", filter_channels)
    if per_block is not None:
        monkeypatch.setattr(conv_kernels, "_samples_per_block",
                            lambda xp, n, per_sample, size=None: max(1, min(n, per_block)))
    rng = np.random.default_rng(0)
    x_np, w_np = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    x = eager.to_tensor(x_np, stop_gradient=False)
    w = eager.to_tensor(w_np, stop_gradient=False)
    padding = [p for pair in pads for p in pair]
    out = CONV[len(strides)](x, w, stride=list(strides), padding=padding, dilation=list(dilations), groups=groups)
    g_np = rng.standard_normal(out.shape)
    expected, x_grad, w_grad = loop_reference(x_np, w_np, g_np, strides, pads, dilations, groups)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)
    out.backward(eager.to_tensor(g_np))
    np.testing.assert_allclose(x.grad.numpy(), x_grad, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), w_grad, rtol=1e-12, atol=1e-12)


# (col2im path on the CPU, x shape, filter shape, strides, pads, dilations, groups): the input
# gradient's (and a transposed convolution's forward's) way on the CPU
COL2IM_CASES = [
    ("convolution", (5, 3, 7, 6), (4, 3, 3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), 1),       # O <= 2C, stride 1
    ("phases", (5, 3, 9, 8), (4, 3, 3, 3), (2, 2), ((1, 1), (1, 1)), (1, 1), 1),            # 3x3 stride 2
    ("phases", (5, 2, 6, 6), (8, 2, 3, 3), (1, 1), ((0, 0), (0, 0)), (1, 1), 1),            # stride 1, O > 2C
    ("phases", (4, 4, 11, 9), (6, 2, 3, 2), (2, 1), ((2, 1), (0, 2)), (2, 1), 2),           # dilated, grouped
    ("phases", (3, 2, 13), (3, 2, 4), (3,), ((2, 3),), (1,), 1),                             # 1-d
    ("phases", (2, 2, 5, 6, 7), (3, 2, 3, 2, 3), (2, 1, 2), ((1, 0), (1, 1), (2, 1)), (1, 1, 1), 1),  # 3-d
    ("phases", (3, 2, 2, 5), (3, 2, 3, 3), (4, 1), ((2, 2), (1, 1)), (1, 1), 1),            # taps all on padding
    ("phases", (3, 2, 9, 9), (3, 2, 3, 3), (4, 4), ((0, 0), (0, 0)), (2, 2), 1),            # phases no tap reaches
    ("loop", (5, 4, 7, 6), (6, 4, 1, 1), (2, 2), ((0, 0), (0, 0)), (1, 1), 1),              # 1x1: a tap per phase
    ("phases", (2, 2, 4, 50), (6, 2, 3, 3), (2, 1), ((1, 1), (1, 1)), (1, 1), 1),           # long rows
]


def col2im_path(monkeypatch, run):
    """Which CPU col2im ran inside ``run()``: 'convolution', 'phases' or 'loop'."""
    taken = []
    for name, label in (("_col2im_by_convolution", "convolution"), ("_col2im_phases", "phases"),
                        ("_col2im_loop", "loop")):
        real = getattr(conv_kernels, name)
        monkeypatch.setattr(conv_kernels, name,
                            lambda *a, _real=real, _label=label, **k: taken.append(_label) or _real(*a, **k))
    run()
    return taken


@pytest.mark.parametrize("path, x_shape, w_shape, strides, pads, dilations, groups", COL2IM_CASES)
def test_cpu_col2im_paths_match_a_loop(monkeypatch, device, path, x_shape, w_shape, strides, pads, dilations,
                                       groups):
    """The input gradient by each CPU col2im path (stride phases: one buffer add per
    kernel position) with one, two and all samples per block, against the loop
    reference in float64; on the CPU each case takes the path it names."""
    rng = np.random.default_rng(3)
    x_np, w_np = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    padding = [p for pair in pads for p in pair]
    for per_block in (1, 2, None):
        with monkeypatch.context() as patch:
            if per_block is not None:
                patch.setattr(conv_kernels, "_samples_per_block",
                              lambda xp, n, per_sample, size=None, _b=per_block: max(1, min(n, _b)))
            x = eager.to_tensor(x_np, stop_gradient=False)
            w = eager.to_tensor(w_np, stop_gradient=False)
            out = CONV[len(strides)](x, w, stride=list(strides), padding=padding, dilation=list(dilations),
                                     groups=groups)
            g_np = rng.standard_normal(out.shape)
            _, x_grad, w_grad = loop_reference(x_np, w_np, g_np, strides, pads, dilations, groups)
            taken = col2im_path(patch, lambda: out.backward(eager.to_tensor(g_np)))
            np.testing.assert_allclose(x.grad.numpy(), x_grad, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(w.grad.numpy(), w_grad, rtol=1e-12, atol=1e-12)
            if device == "cpu":
                assert taken == [path]


def test_conv_transpose_by_phases_matches_a_loop(monkeypatch, device):
    """conv2d_transpose's forward is col2im: 4x4 stride 2 (four phases of four taps)
    against the loop reference's input gradient, and float64 finite differences."""
    rng = np.random.default_rng(4)
    x_np, w_np = rng.standard_normal((3, 4, 5, 6)), rng.standard_normal((4, 3, 4, 4))
    x = eager.to_tensor(x_np, stop_gradient=False)
    w = eager.to_tensor(w_np, stop_gradient=False)
    out = None

    def forward():
        nonlocal out
        out = F.conv2d_transpose(x, w, stride=2, padding=1)
    taken = col2im_path(monkeypatch, forward)
    # the transposed convolution of x is the input gradient of the convolution (filter w) of
    # an input of out's shape whose output gradient is x
    _, expected, _ = loop_reference(np.zeros(out.shape), w_np, x_np, (2, 2), ((1, 1), (1, 1)), (1, 1), 1)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)
    if device == "cpu":
        assert taken == ["phases"]
    assert gradcheck(lambda x, w: F.conv2d_transpose(x, w, stride=2, padding=1), (x, w))


@pytest.mark.parametrize("x_shape, w_shape, strides, pads, dilations, groups", [
    ((3, 2, 3, 3), (4, 2, 1, 1), (1, 1), ((0, 0), (0, 0)), (1, 1), 1),                # direct
    ((3, 2, 5, 4), (4, 1, 3, 2), (1, 1), ((2, 1), (0, 2)), (2, 1), 2),                # wide
    ((3, 2, 5, 4), (3, 2, 3, 3), (2, 2), ((1, 1), (1, 1)), (1, 1), 1),                # windows, col2im's adds
    ((3, 2, 2, 5), (3, 2, 3, 3), (4, 1), ((2, 2), (1, 1)), (1, 1), 1),                # taps all on the padding
    ((3, 4, 7, 6), (4, 2, 3, 2), (3, 2), ((2, 1), (0, 2)), (2, 1), 2),                # phases: dilated, grouped
    ((3, 2, 4, 4), (5, 2, 3, 3), (1, 1), ((0, 0), (0, 0)), (1, 1), 1),                # phases: stride 1, O > 2C
])
def test_conv_blocks_gradcheck(monkeypatch, x_shape, w_shape, strides, pads, dilations, groups):
    """Finite differences in float64 through every layout (the filter gradient's wide one
    too), two samples per block."""
    monkeypatch.setattr(conv_kernels, "_samples_per_block", lambda xp, n, per_sample, size=None: max(1, min(n, 2)))
    monkeypatch.setattr(conv_kernels, "_WIDE_FILTER_CHANNELS", 1)
    rng = np.random.default_rng(1)
    x = eager.to_tensor(rng.standard_normal(x_shape), stop_gradient=False)
    w = eager.to_tensor(rng.standard_normal(w_shape), stop_gradient=False)
    padding = [p for pair in pads for p in pair]
    assert gradcheck(lambda x, w: F.conv2d(x, w, stride=list(strides), padding=padding, dilation=list(dilations),
                                           groups=groups), (x, w))


def test_conv_of_an_empty_batch_has_a_zero_filter_gradient():
    x = eager.to_tensor(np.zeros((0, 3, 6, 6)), stop_gradient=False)
    w = eager.to_tensor(np.ones((4, 3, 3, 3)), stop_gradient=False)
    out = F.conv2d(x, w, padding=1)
    assert out.shape == [0, 4, 6, 6]
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros((4, 3, 3, 3)))
    assert x.grad.shape == [0, 3, 6, 6]


def transpose_loop_reference(x, w, strides, pads, dilations, output_padding, groups):
    """A transposed convolution in float64 by its definition: input position i's
    value times tap t lands on output o = i * stride - pad_before + t * dilation,
    kept where 0 <= o < the output size ((in - 1) * stride - pads + dilation *
    (kernel - 1) + 1 + output_padding)."""
    k = x.ndim - 2
    n, c = x.shape[:2]
    og = w.shape[1]
    cg = c // groups
    outs = [(x.shape[2 + a] - 1) * strides[a] - sum(pads[a]) + dilations[a] * (w.shape[2 + a] - 1) + 1
            + output_padding[a] for a in range(k)]
    out = np.zeros((n, og * groups, *outs))
    for i in itertools.product(*(range(m) for m in x.shape[2:])):
        for t in itertools.product(*(range(ks) for ks in w.shape[2:])):
            o = tuple(ii * s - b + tt * d for ii, tt, s, (b, _), d in zip(i, t, strides, pads, dilations))
            if not all(0 <= oo < m for oo, m in zip(o, outs)):
                continue
            for group in range(groups):
                cs, os_ = slice(group * cg, (group + 1) * cg), slice(group * og, (group + 1) * og)
                out[(slice(None), os_) + o] += x[(slice(None), cs) + i] @ w[(cs, slice(None)) + t]
    return out


# (x shape, filter shape, strides, pads, dilations, output_padding, groups): output_padding up to
# the dilation (Paddle allows less than max(stride, dilation)) reaches positions no input does
TRANSPOSE_PADDING_CASES = [
    ((2, 2, 5, 2), (2, 2, 2, 4), (1, 1), ((1, 1), (1, 1)), (2, 1), (1, 0), 1),     # stride 1, padding 1 each side
    ((1, 2, 7, 4), (2, 3, 4, 2), (1, 1), ((0, 0), (2, 2)), (2, 2), (1, 1), 1),     # after-padding 0 on one axis
    ((2, 2, 3), (2, 1, 1), (1,), ((0, 0),), (2,), (1,), 1),                         # 1x1: the last row gets nothing
    ((1, 2, 4, 3, 4), (2, 2, 1, 3, 2), (1, 1, 2), ((2, 2), (0, 0), (0, 0)), (2, 1, 2), (1, 0, 0), 1),  # 1 row back
    ((2, 4, 4, 3), (4, 1, 3, 2), (2, 1), ((1, 1), (0, 0)), (3, 2), (2, 1), 2),     # grouped, stride 2, padding 2
]
CONV_TRANSPOSE = {1: F.conv1d_transpose, 2: F.conv2d_transpose, 3: F.conv3d_transpose}


@pytest.mark.parametrize("x_shape, w_shape, strides, pads, dilations, output_padding, groups",
                         TRANSPOSE_PADDING_CASES)
def test_conv_transpose_output_padding_past_the_stride(x_shape, w_shape, strides, pads, dilations,
                                                       output_padding, groups):
    """An output_padding of at least the stride (allowed while below the dilation) reaches
    output positions past every window: their values are zero, the rest are the
    definition's, and the gradients match finite differences in float64. (Once the
    kernel's windows overran the padded input there, and the whole-output check refused
    a size that only the output_padding makes positive.)"""
    rng = np.random.default_rng(5)
    x = eager.to_tensor(rng.standard_normal(x_shape), stop_gradient=False)
    w = eager.to_tensor(rng.standard_normal(w_shape), stop_gradient=False)
    kwargs = dict(stride=list(strides), padding=[p for pair in pads for p in pair], dilation=list(dilations),
                  output_padding=list(output_padding), groups=groups)
    op = CONV_TRANSPOSE[len(strides)]
    expected = transpose_loop_reference(x.numpy(), w.numpy(), strides, pads, dilations, output_padding, groups)
    np.testing.assert_allclose(op(x, w, **kwargs).numpy(), expected, rtol=1e-12, atol=1e-12)
    assert gradcheck(lambda x, w: op(x, w, **kwargs), (x, w))


def test_conv_transpose_whose_output_no_input_reaches_is_zero():
    """A padding that crops every position the input reaches, with an output_padding
    that leaves positions beyond them: zeros, and zero gradients."""
    x = eager.to_tensor(np.ones((1, 1, 2)), stop_gradient=False)
    w = eager.to_tensor(np.ones((1, 1, 1)), stop_gradient=False)
    out = F.conv1d_transpose(x, w, stride=1, padding=[2, 0], dilation=3, output_padding=2)
    assert out.shape == [1, 1, 2]
    np.testing.assert_array_equal(out.numpy(), np.zeros((1, 1, 2)))
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((1, 1, 2)))
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros((1, 1, 1)))
