"""Regressions found by re-telling the dygraph parts of Paddle's own unit tests
(test/legacy_test) for nn.functional, layers and losses under ``import eager as
paddle`` and checking each disagreement against the real Paddle 2.6.2.

Found:
- conv*/pool*/unfold/fold and the Conv/Pool layers raised TypeError for a
  malformed kernel_size/stride/padding/dilation/output_size (None, a float, a
  list of the wrong length); Paddle raises ValueError for all of them
  (test_pool1d_api's TestPool1DError_API asserts it for padding=[[2]]).
- a padding of one (before, after) pair per spatial axis without the batch and
  channel pairs (conv2d padding=[[1, 1], [1, 2]], max_pool1d padding=[[1, 1]])
  was accepted; Paddle refuses it ("Invalid padding").
- cross_entropy / softmax_with_cross_entropy with a label outside [0, C)
  raised a ValueError only; Paddle 2.6.2 raises IndexError (now both).
- celu / CELU with alpha=0 raised a ValueError only; Paddle raises
  ZeroDivisionError (test_activation_op's TestCeluErrors; now both).
- instance_norm / InstanceNorm1D refused a 2-D [N, C] input, which Paddle's
  InstanceNorm1D takes (each element its own instance: the output is the bias).
- pixel_shuffle/pixel_unshuffle/channel_shuffle and their layers raised
  TypeError for a non-positive int factor; Paddle raises ValueError.
- dropout refused a repeated axis (axis=[1, 1]); Paddle takes the axes as a set.
- interpolate(mode='area', align_corners=True) was refused; Paddle ignores it.
- pairwise_distance refused inputs of rank 0 or > 2; Paddle takes any
  broadcasting shapes.

Paddle 2.6.2 quirks met and left (eager keeps its behaviour; docs/nn.md rows
where they are differences): max_pool*d(return_mask=True, ceil_mode=True)
drops the ceil window; binary_cross_entropy_with_logits' pos_weight gradient;
multi_margin_loss with weight and p > 1; initializer.Bilinear's fractional
row index; nll_loss with a NumPy-int ignore_index aborts the process.
"""
import numpy as np
import pytest

import eager
import eager.nn.functional as F
from test_nn import value_checks

pytestmark = pytest.mark.usefixtures("device")


def _x(*shape):
    return eager.to_tensor(np.random.default_rng(0).random(shape).astype("float32"))


@pytest.mark.parametrize("call", [
    lambda: F.max_pool1d(_x(2, 3, 8), 2, 2, padding=[[2]]),
    lambda: F.avg_pool2d(_x(1, 3, 6, 6), 2, 2, padding=(1,)),
    lambda: F.max_pool2d(_x(1, 3, 6, 6), 1.5),
    lambda: F.max_pool2d(_x(1, 3, 6, 6), [2, 2, 2]),
    lambda: F.conv2d(_x(1, 3, 6, 6), _x(2, 3, 3, 3), stride=None),
    lambda: F.conv2d(_x(1, 3, 6, 6), _x(2, 3, 3, 3), padding=[1.5, 1]),
    lambda: F.unfold(_x(1, 3, 6, 6), 2, paddings=[1, 2, 3]),
    lambda: F.adaptive_avg_pool2d(_x(1, 3, 6, 6), [1, 2, 3]),
    lambda: eager.nn.Conv2D(3, 2, kernel_size=[1, 2, 3]),
    lambda: eager.nn.Conv2DTranspose(3, 2, 2, output_padding=None),
])
def test_malformed_int_tuple_arguments_are_value_errors(call):
    with pytest.raises(ValueError, match="expected an int or a list of"):
        call()


@pytest.mark.parametrize("call", [
    lambda: F.conv2d(_x(1, 3, 6, 6), _x(2, 3, 3, 3), padding=[[1, 1], [1, 2]]),
    lambda: F.conv1d(_x(1, 3, 6), _x(2, 3, 3), padding=[[1, 1]]),
    lambda: F.max_pool1d(_x(1, 3, 6), 2, 2, padding=[[1, 1]]),
    lambda: F.avg_pool1d(_x(1, 3, 6), 2, 2, padding=[[1, 1]]),
])
def test_padding_pairs_without_batch_and_channel_are_refused(call):
    with pytest.raises(ValueError, match="'padding'"):
        call()


@pytest.mark.parametrize("call", [
    lambda x, label: F.cross_entropy(x, label),
    lambda x, label: F.cross_entropy(x, label.unsqueeze(1), weight=eager.ones([4], "float64")),
    lambda x, label: F.softmax_with_cross_entropy(x, label.unsqueeze(1)),
])
def test_cross_entropy_label_out_of_range_is_an_index_error(call, device):
    # Paddle 2.6.2's cross_entropy kernel raises IndexError; eager's stays a ValueError too
    x = eager.to_tensor(np.random.default_rng(0).random((5, 4)))
    label = eager.to_tensor(np.array([0, 1, 2, 3, 7]))
    with value_checks(device), pytest.raises(IndexError, match=r"'label' expected class indices in \[0, 4\).*got 7"):
        call(x, label)
    with value_checks(device), pytest.raises(ValueError, match="'label' expected class indices"):
        call(x, label)


@pytest.mark.parametrize("call", [
    lambda x: F.celu(x, 0),
    lambda x: F.celu(x, alpha=0.0),
    lambda x: eager.nn.CELU(0)(x),
])
def test_celu_alpha_zero_is_a_zero_division_error(call):
    # test_activation_op's TestCeluErrors asserts ZeroDivisionError, as Paddle 2.6.2 raises
    x = eager.to_tensor(np.random.default_rng(0).uniform(-3, 3, (10, 10)).astype("float32"))
    with pytest.raises(ZeroDivisionError, match="'alpha' expected a nonzero number"):
        call(x)
    with pytest.raises(ValueError, match="'alpha' expected a nonzero number"):
        call(x)


def test_instance_norm_takes_a_2d_input():
    # Paddle's InstanceNorm1D takes [N, C] ("expected 2D or 3D input"): one element
    # per instance, so the output is the bias and x's gradient is 0 (Paddle 2.6.2)
    rng = np.random.default_rng(0)
    x = eager.to_tensor(rng.random((6, 4)), stop_gradient=False)
    w = eager.to_tensor(rng.random(4), stop_gradient=False)
    b = eager.to_tensor(rng.random(4), stop_gradient=False)
    out = F.instance_norm(x, weight=w, bias=b)
    np.testing.assert_allclose(out.numpy(), np.broadcast_to(b.numpy(), (6, 4)))
    g = rng.random((6, 4))
    (out * eager.to_tensor(g)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.zeros((6, 4)), atol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), np.zeros(4), atol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), g.sum(0))
    layer = eager.nn.InstanceNorm1D(4)
    np.testing.assert_array_equal(layer(eager.to_tensor(rng.random((3, 4)).astype("float32"))).numpy(),
                                  np.zeros((3, 4), np.float32))


@pytest.mark.parametrize("call", [
    lambda x: F.pixel_unshuffle(x, 0),
    lambda x: F.pixel_unshuffle(x, -1),
    lambda x: F.channel_shuffle(x, 0),
    lambda x: F.pixel_shuffle(x, 0),
    lambda x: eager.nn.ChannelShuffle(-1),
    lambda x: eager.nn.PixelUnshuffle(-1),
])
def test_non_positive_shuffle_factors_are_value_errors(call):
    # Paddle 2.6.2: "groups must be positive" / "Downscale factor must be positive"
    with pytest.raises(ValueError, match="expected a positive int"):
        call(_x(2, 4, 4, 6))
    with pytest.raises(TypeError, match="expected a positive int"):
        F.channel_shuffle(_x(2, 4, 4, 6), 2.5)


def test_dropout_repeated_axis_is_that_axis():
    # Paddle 2.6.2 builds the mask shape from the axes as a set: [1, 1] is [1]
    x = eager.ones([8, 6, 5])
    eager.seed(3)
    a = F.dropout(x, 0.5, axis=[1, 1]).numpy()
    eager.seed(3)
    b = F.dropout(x, 0.5, axis=[1]).numpy()
    np.testing.assert_array_equal(a, b)
    assert ((a == 0).all(axis=(0, 2)) | (a == 2).all(axis=(0, 2))).all()


def test_interpolate_area_ignores_align_corners():
    # Paddle 2.6.2 refuses align_corners only with 'nearest'; 'area' is adaptive pooling
    x = _x(2, 3, 4, 5)
    np.testing.assert_array_equal(F.interpolate(x, size=[7, 3], mode="area", align_corners=True).numpy(),
                                  F.interpolate(x, size=[7, 3], mode="area").numpy())
    with pytest.raises(ValueError, match="align_corners"):
        F.interpolate(x, size=[7, 3], mode="nearest", align_corners=True)


def test_pairwise_distance_takes_any_broadcasting_shapes():
    # Paddle 2.6.2: p_norm of x - y + epsilon over the last axis, for any ranks
    rng = np.random.default_rng(0)
    a, b = rng.random((2, 3, 4, 5)), rng.random((3, 1, 5))
    out = F.pairwise_distance(eager.to_tensor(a), eager.to_tensor(b), p=1.5)
    np.testing.assert_allclose(out.numpy(), (np.abs(a - b + 1e-6) ** 1.5).sum(-1) ** (1 / 1.5), rtol=1e-12)
    with pytest.raises(ValueError, match="broadcasting"):
        F.pairwise_distance(eager.to_tensor(a), eager.to_tensor(rng.random((3, 5))))
    # 0-d inputs too: |x - y + epsilon| (Paddle 2.6.2 gives 1.5 here)
    out = F.pairwise_distance(eager.to_tensor(1.0), eager.to_tensor(2.5), epsilon=0.0)
    assert out.shape == [] and float(out) == 1.5
