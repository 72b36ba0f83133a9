"""Regression cases found by a random differential sweep of the layers with
weights and state: Conv1D/2D/3D and their transposes with F.conv*, the batch,
layer, group, instance and local response norms, and SimpleRNN/LSTM/GRU with
their cells and the RNN/BiRNN wrappers (against PyTorch after copying the
weights, Paddle's rules where the two differ: momentum weighing the old
running statistics, output_size within [natural, natural + stride), RNN
outputs past a length kept by the wrapper and zeroed by the layers). Values
and gradients agreed everywhere; what was found:

- group_norm with a bias but no weight (``GroupNorm(weight_attr=False)``):
  the backward summed dy per group instead of per channel and died in a NumPy
  reshape.
- conv1d/conv1d_transpose (and Conv1D/Conv1DTranspose) errors from the op
  named conv2d(_transpose) and the op's 4-d shapes (``output_size [1, 20]``
  for the caller's ``[20]``).
- Conv layers given an input whose channels differ from in_channels: the op's
  error spoke of the filter only, not of the layer's in_channels.
- ConvNDTranspose with output_padding >= max(stride, dilation): accepted when
  built, refused only at the first call.
- GroupNorm without weight and bias normalized an input with the wrong number
  of channels silently (with them, the error named group_norm's weight).
- LocalResponseNorm took a non-number alpha/beta/k when built.
- A Tensor as data_format/padding_mode/activation died in Tensor == str
  (an error naming 'equal'), a list as an RNN direction in hashing; a Tensor
  flag (batch_norm training/use_global_stats, instance_norm use_input_stats,
  RNN time_major/is_reverse) in its truth value, and an int or str flag was
  read by truthiness: now a ValueError / TypeError naming the caller.
- SyncBatchNorm with weight_attr/bias_attr False had no weight/bias; Paddle
  keeps fixed ones/zeros with stop_gradient (in parameters() and state_dict).
  BatchNorm1D/2D/3D and the older nn.BatchNorm have none (the real Paddle
  2.6.2, checked by tests/test_oracle_layers_cases.py's sweep).
References are float64 loops written here; gradients by finite differences.
"""
import numpy as np
import pytest

import eager
import eager.nn as nn
import eager.nn.functional as F
from eager.autograd import gradcheck

pytestmark = pytest.mark.usefixtures("device")


def leaf(shape, seed=0):
    return eager.to_tensor(np.random.default_rng(seed).standard_normal(shape), stop_gradient=False)


def group_norm_reference(x, groups, bias, eps, channel_last):
    """Per sample and group: (x - mean) / sqrt(biased var + eps), + bias per channel."""
    if channel_last:
        x = np.moveaxis(x, -1, 1)
    out = np.empty_like(x)
    channels = x.shape[1]
    per = channels // groups
    for n in range(x.shape[0]):
        for g in range(groups):
            block = x[n, g * per:(g + 1) * per]
            out[n, g * per:(g + 1) * per] = (block - block.mean()) / np.sqrt(block.var() + eps)
    out += bias.reshape([1, channels] + [1] * (x.ndim - 2))
    return np.moveaxis(out, 1, -1) if channel_last else out


# -- group_norm with a bias and no weight -------------------------------------------------

@pytest.mark.parametrize("shape, groups, data_format", [
    ([2, 3, 4], 2, "NLC"), ([1, 4, 3, 1], 1, "NCHW"), ([2, 1, 3, 4], 2, "NHWC"), ([2, 6, 2], 3, "NCL")])
def test_group_norm_bias_without_weight_has_per_channel_gradient(shape, groups, data_format):
    channel_last = data_format.endswith("C")
    channels = shape[-1] if channel_last else shape[1]
    x = leaf(shape, 1)
    norm = nn.GroupNorm(groups, channels, weight_attr=False, data_format=data_format).to(dtype="float64")
    bias_np = np.random.default_rng(2).standard_normal(channels)
    norm.bias.set_value(bias_np)
    out = norm(x)
    np.testing.assert_allclose(out.numpy(), group_norm_reference(x.numpy(), groups, bias_np, 1e-5, channel_last),
                               rtol=1e-10, atol=1e-10)
    g = np.random.default_rng(3).standard_normal(shape)
    out.backward(eager.to_tensor(g))
    summed = np.moveaxis(g, -1, 1) if channel_last else g
    expected = summed.sum(axis=tuple(i for i in range(len(shape)) if i != 1))
    np.testing.assert_allclose(norm.bias.grad.numpy(), expected, rtol=1e-10, atol=1e-10)
    bias = eager.to_tensor(bias_np, stop_gradient=False)
    assert gradcheck(lambda a, b: F.group_norm(a, groups, 1e-5, None, b, data_format), (leaf(shape, 4), bias))


# -- conv1d errors in 1-D terms -----------------------------------------------------------

def test_conv1d_errors_name_conv1d_and_its_shapes():
    x = eager.ones([2, 3, 5])
    with pytest.raises(ValueError, match=r"^conv1d: argument 'filter' expects .* input has 3 \(shape \[2, 3, 5\], "
                                         r"data_format 'NCL'"):
        F.conv1d(x, eager.ones([4, 2, 3]))
    with pytest.raises(ValueError, match=r"^conv1d: the kernel \[3\] \(dilations \[3\]\) is larger than the padded "
                                         r"input \[5\]"):
        F.conv1d(x, eager.ones([4, 3, 3]), dilation=3)
    with pytest.raises(ValueError, match=r"^conv1d_transpose: argument 'output_size' expected a size in \[7, 8\) "
                                         r"on axis 0 .*got \[20\]"):
        F.conv1d_transpose(x, eager.ones([3, 4, 3]), output_size=[20])
    with pytest.raises(ValueError, match=r"^conv1d_transpose: the paddings \[5, 5\] crop the whole output"):
        F.conv1d_transpose(x, eager.ones([3, 4, 3]), padding=5)
    with pytest.raises(ValueError, match=r"^Conv1D\(.*\): the kernel \[3\] .* padded input \[2\]"):
        nn.Conv1D(3, 4, 3)(eager.ones([2, 3, 2]))


# -- Conv layers: input channels against in_channels ------------------------------------

@pytest.mark.parametrize("make, shape, data_format", [
    (lambda fmt: nn.Conv2D(4, 2, 3, data_format=fmt), [2, 3, 5, 5], "NCHW"),
    (lambda fmt: nn.Conv2D(4, 2, 3, padding=1, padding_mode="reflect", data_format=fmt), [2, 5, 5, 3], "NHWC"),
    (lambda fmt: nn.Conv1D(4, 2, 3, data_format=fmt), [2, 3, 5], "NCL"),
    (lambda fmt: nn.Conv3D(4, 4, 1, groups=2, data_format=fmt), [1, 2, 2, 2, 6], "NDHWC"),
    (lambda fmt: nn.Conv1DTranspose(4, 2, 3, data_format=fmt), [2, 5, 3], "NLC"),
    (lambda fmt: nn.Conv2DTranspose(4, 2, 3, data_format=fmt), [2, 3, 5, 5], "NCHW"),
])
def test_conv_layer_names_in_channels_for_a_wrong_input(make, shape, data_format):
    layer = make(data_format)
    x = leaf(shape, 5)
    before, weight_before = x.numpy().copy(), layer.weight.numpy().copy()
    channels = shape[-1] if data_format.endswith("C") else shape[1]
    with pytest.raises(ValueError, match=rf"^{type(layer).__name__}\(.*\): argument 'x' expected 4 channels "
                                         rf"\(in_channels\) in data_format '{data_format}', got shape "
                                         rf"\[{', '.join(map(str, shape))}\] with {channels}"):
        layer(x)
    np.testing.assert_array_equal(x.numpy(), before)
    np.testing.assert_array_equal(layer.weight.numpy(), weight_before)
    assert x.grad is None and layer.weight.grad is None


@pytest.mark.parametrize("cls, k", [(nn.Conv1DTranspose, 1), (nn.Conv2DTranspose, 2), (nn.Conv3DTranspose, 3)])
def test_conv_transpose_checks_output_padding_when_built(cls, k):
    with pytest.raises(ValueError, match=rf"^{cls.__name__}: argument 'output_padding' expected values smaller "
                                         rf"than max\(stride, dilation\) = 2 on axis 0"):
        cls(2, 2, 3, stride=2, output_padding=2)
    # below max(stride, dilation) it is one of the sizes the op can give (Paddle's rule)
    layer = cls(2, 2, 3, stride=1, dilation=2, output_padding=1)
    assert layer(eager.ones([1, 2] + [3] * k)).shape == [1, 2] + [8] * k


# -- GroupNorm's channels, LocalResponseNorm's numbers -----------------------------------

@pytest.mark.parametrize("affine", [False, None])
def test_group_norm_refuses_input_of_other_channels(affine):
    norm = nn.GroupNorm(2, 4, weight_attr=affine, bias_attr=affine, data_format="NLC")
    x = leaf([2, 3, 6], 6)
    before = x.numpy().copy()
    with pytest.raises(ValueError, match=r"^GroupNorm\(.*\): argument 'input' expected 4 channels \(num_channels\) "
                                         r"in data_format 'NLC', got shape \[2, 3, 6\] with 6"):
        norm(x)
    np.testing.assert_array_equal(x.numpy(), before)


@pytest.mark.parametrize("arg", ["alpha", "beta", "k"])
def test_local_response_norm_checks_its_numbers_when_built(arg):
    with pytest.raises(TypeError, match=rf"^LocalResponseNorm: argument '{arg}' expected a number, got str"):
        nn.LocalResponseNorm(3, **{arg: "0.5"})
    with pytest.raises(TypeError, match=rf"^LocalResponseNorm: argument '{arg}' expected a number, got bool"):
        nn.LocalResponseNorm(3, **{arg: True})


# -- non-str formats and modes, non-bool flags ------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda v: F.conv2d(eager.ones([1, 2, 3, 3]), eager.ones([1, 2, 1, 1]), data_format=v),
     r"^conv2d: argument 'data_format' expected one of \['NCHW', 'NHWC'\]"),
    (lambda v: F.conv1d_transpose(eager.ones([1, 2, 3]), eager.ones([2, 1, 1]), data_format=v),
     r"^conv1d_transpose: argument 'data_format'"),
    (lambda v: nn.Conv2D(2, 2, 1, data_format=v), r"^Conv2D: argument 'data_format'"),
    (lambda v: nn.Conv2D(2, 2, 1, padding_mode=v), r"^Conv2D: argument 'padding_mode'"),
    (lambda v: nn.Conv3DTranspose(2, 2, 1, data_format=v), r"^Conv3DTranspose: argument 'data_format'"),
    (lambda v: nn.BatchNorm2D(2, data_format=v), r"^BatchNorm2D: argument 'data_format'"),
    (lambda v: F.group_norm(eager.ones([1, 2, 3]), 1, data_format=v), r"^group_norm: argument 'data_format'"),
    (lambda v: F.instance_norm(eager.ones([1, 2, 3]), data_format=v), r"^instance_norm: argument 'data_format'"),
    (lambda v: nn.SimpleRNNCell(2, 2, activation=v), r"^SimpleRNNCell: argument 'activation'"),
])
def test_non_str_format_mode_direction_is_a_value_error(call, message):
    # a Tensor compared with the allowed strings raised equal's TypeError (naming 'equal', not the caller)
    with pytest.raises(ValueError, match=message):
        call(eager.to_tensor([1, 2]))


def test_rnn_direction_of_a_list_is_a_value_error():
    # the directions are a dict's keys: a list died in hashing ("unhashable type: 'list'")
    with pytest.raises(ValueError, match=r"^LSTM: argument 'direction' expected 'forward', 'bidirect' or "
                                         r"'bidirectional', got \['forward'\]"):
        nn.LSTM(3, 2, direction=["forward"])


@pytest.mark.parametrize("call, message", [
    (lambda x: F.batch_norm(x, eager.zeros([2]), eager.ones([2]), training=eager.to_tensor([True, False])),
     r"^batch_norm: argument 'training' expected a bool"),
    (lambda x: F.batch_norm(x, eager.zeros([2]), eager.ones([2]), use_global_stats=1),
     r"^batch_norm: argument 'use_global_stats' expected a bool"),
    (lambda x: F.instance_norm(x, use_input_stats=eager.to_tensor([True, False])),
     r"^instance_norm: argument 'use_input_stats' expected a bool"),
    (lambda x: nn.LSTM(3, 2, time_major=eager.to_tensor([True, False])),
     r"^LSTM: argument 'time_major' expected a bool"),
    (lambda x: nn.RNN(nn.GRUCell(3, 2), is_reverse="yes"), r"^RNN: argument 'is_reverse' expected a bool"),
    (lambda x: nn.BiRNN(nn.GRUCell(3, 2), nn.GRUCell(3, 2), time_major=1),
     r"^BiRNN: argument 'time_major' expected a bool"),
])
def test_flags_must_be_bools(call, message):
    # a two-element Tensor flag died in its truth value ("ambiguous"); a str or an int was read by truthiness
    x = leaf([2, 2, 3], 7)
    with pytest.raises(TypeError, match=message):
        call(x)


# -- BatchNorm1D/2D/3D with weight_attr/bias_attr False -----------------------------------

@pytest.mark.parametrize("cls, shape", [(nn.BatchNorm1D, [4, 3]), (nn.BatchNorm2D, [2, 3, 2, 2]),
                                        (nn.BatchNorm3D, [2, 3, 1, 2, 2]), (nn.SyncBatchNorm, [2, 3, 2, 2])])
def test_batch_norm_without_affine(cls, shape):
    # Paddle 2.6.2: SyncBatchNorm makes a stop_gradient weight of ones and bias of zeros there;
    # BatchNorm1D/2D/3D have None
    norm = cls(3, weight_attr=False, bias_attr=False)
    if cls is nn.SyncBatchNorm:
        assert sorted(norm.state_dict()) == ["_mean", "_variance", "bias", "weight"]
        assert norm.weight.stop_gradient and norm.bias.stop_gradient
        np.testing.assert_array_equal(norm.weight.numpy(), np.ones(3))
        np.testing.assert_array_equal(norm.bias.numpy(), np.zeros(3))
    else:
        assert list(norm.state_dict()) == ["_mean", "_variance"]
        assert norm.weight is None and norm.bias is None
    x = leaf(shape, 8).astype("float32")
    out = norm(x)
    axes = tuple(i for i in range(len(shape)) if i != 1)
    xn = x.numpy().astype(np.float64)
    ref = (xn - xn.mean(axes, keepdims=True)) / np.sqrt(xn.var(axes, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-5)
    out.sum().backward()
    assert all(p.grad is None for p in (norm.weight, norm.bias) if p is not None)
    legacy = nn.BatchNorm(3, param_attr=False, bias_attr=False)   # the older layer has none
    assert legacy.weight is None and legacy.bias is None
