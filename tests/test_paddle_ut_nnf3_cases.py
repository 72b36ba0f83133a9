"""Regressions found by re-telling the dygraph parts of Paddle's own unit tests
(test/legacy_test, third nn.functional/layers pass: test_conv*_layer,
test_conv*_transpose_layer, test_functional_conv*(_transpose) and their error
cases, test_pool1d/2d/3d_api, test_adaptive_*_pool*, test_max_unpool*,
test_*_norm_op(_v2), test_local_response_norm, test_lookup_table_v2_op,
test_fold/unfold_op, test_pixel_(un)shuffle, test_channel_shuffle,
test_affine_grid/grid_sample_function, test_*_interp_v2_op (API parts),
test_zeropad2d, test_pad3d_op, test_dropout_nd, test_alpha_dropout,
test_bilinear_tensor_product_op, test_temporal_shift_op, ...) under
``import eager as paddle`` as random differential draws (values, gradients,
every data_format and padding form) and their error cases, each disagreement
checked against the real Paddle 2.6.2.

Found:
- Conv*D/Conv*DTranspose layers raised TypeError for a non-positive
  in_channels/out_channels/groups and ValueError for a kernel_size below 1;
  Paddle asserts the weight's dims > 0 (AssertionError) and divides by groups
  (ZeroDivisionError for groups=0): now those types and ValueErrors. A float
  channel count or groups is a TypeError that is also Paddle's ValueError.
  Bilinear's non-positive sizes likewise (AssertionError).
- Conv*D with a non-zero padding_mode and padding='same' raised ValueError;
  Paddle raises TypeError (the padding must be an int): now both.
- interpolate: a non-positive size was a ValueError only (Paddle asserts it);
  a scale_factor Tensor of rows ([[2, 2]]) was flattened, Paddle refuses it.
- batch/layer/instance/group norm of float64 x with float32 parameters was a
  TypeError only; Paddle's kernels raise ValueError: now both.
- temporal_shift took shift_ratio 0 and 0.5 (Paddle: 0 < ratio < 0.5) and
  raised TypeError for seg_num <= 0 (Paddle: ValueError).
- embedding ids out of range were an IndexError only (Paddle: ValueError; now
  both); a 0-d integer Tensor padding_idx was refused (Paddle int()s it); a
  float padding_idx or an int ``sparse`` is Paddle's ValueError too.
- fold/unfold of the wrong rank and pad's bad mode/data_format were
  ValueErrors only; Paddle asserts them (AssertionError; now both).
- adaptive_*_pool2d/3d with a float output_size: Paddle TypeError (now both).

Paddle 2.6.2 quirks met and left (eager keeps its behaviour): conv2d_transpose
(and Conv2DTranspose) with data_format='NHWC' and a non-zero padding gives
wrong x and weight gradients (eager's agree with finite differences);
max_pool2d/3d with return_mask and (before, after) padding pairs raises
"Paddings size 4 and pooling size 2"; max_pool2d takes kernel_size=[-1, 2];
conv*_transpose takes dilation=0 and a [C, 1] bias; conv*d with a kernel
larger than the input fails with PreconditionNotMet; conv*_transpose whose
paddings crop the whole output segfaults; Conv*DTranspose layers with groups
not dividing the channels segfault; avg_pool2d of an empty input leaves
x.grad None; pooling refuses a NumPy-int padding; avg_pool divisor_override
<= 0, adaptive output_size 0, class_center_sample labels >= num_classes,
affine_grid theta [N, 3, 3] for 2-D are accepted (garbage); interpolate
'area' ignores channel-last formats and Tensor sizes; sequence_mask with an
int64 Tensor maxlen fails; label_smooth gives prior_dist no gradient; layer_norm
takes only a flat weight; embedding ids of other int dtypes are
NotImplementedError (eager: TypeError). Documented differences added
(docs/nn.md): max_unpool's gradient at repeated indices (Paddle gives every
repeat the gradient) and its 1-D output_size / int64 indices, fold to a size-1
output, bilinear's 1-D bias, conv of an empty batch. Documented ones met again:
ceil_mode windows starting in the right padding, padding >= kernel,
exclusive=False with unequal paddings, return_mask with NHWC/"SAME", conv
padding lists with a padding_mode, affine_grid of a size-1 axis with
align_corners, BatchNorm's running statistics as buffers, a SelectedRows
gradient's shape. Not in 2.6.2: lp_pool1d/2d, F.group_norm,
feature_alpha_dropout (eager has them).
"""
import numpy as np
import pytest

import eager
from eager import nn


@pytest.mark.parametrize("layer", [nn.Conv1D, nn.Conv2D, nn.Conv3D,
                                   nn.Conv1DTranspose, nn.Conv2DTranspose, nn.Conv3DTranspose])
def test_conv_layer_bad_sizes_raise_paddles_types(layer):
    # Paddle 2.6.2: AssertionError "Expected every dim's size to be larger than 0"
    for args, kwargs in (((0, 4, 3), {}), ((4, -1, 3), {}), ((4, 4, 3), {"groups": -2}),
                         ((4, 4, 0), {}), ((4, 4, -1), {})):
        with pytest.raises(AssertionError, match=layer.__name__):
            layer(*args, **kwargs)
        with pytest.raises(ValueError):
            layer(*args, **kwargs)
    # Paddle 2.6.2: ZeroDivisionError (in_channels % groups)
    with pytest.raises(ZeroDivisionError, match="groups"):
        layer(4, 4, 3, groups=0)
    # Paddle 2.6.2: ValueError for a float channel count or groups
    for args, kwargs in (((2.5, 4, 3), {}), ((4, 4, 3), {"groups": 1.0})):
        with pytest.raises(ValueError):
            layer(*args, **kwargs)
        with pytest.raises(TypeError):
            layer(*args, **kwargs)


@pytest.mark.parametrize("layer", [nn.Conv1D, nn.Conv2D, nn.Conv3D])
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_conv_layer_padding_mode_with_same_is_a_type_error(layer, mode):
    # Paddle 2.6.2: TypeError "when padding_mode in [...], type of padding must be int"
    with pytest.raises(TypeError, match="padding_mode"):
        layer(4, 4, 3, padding="same", padding_mode=mode)
    with pytest.raises(ValueError):
        layer(4, 4, 3, padding="valid", padding_mode=mode)


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("size", [[0, 3], [-1, 3]])
def test_interpolate_non_positive_size_is_paddles_assertion(size):
    # Paddle 2.6.2: AssertionError "Each dimension size given in out_shape must be greater than 0"
    x = eager.ones([1, 1, 3, 3])
    with pytest.raises(AssertionError, match="'size'"):
        eager.nn.functional.interpolate(x, size=size)
    with pytest.raises(ValueError):
        eager.nn.functional.interpolate(x, size=size)


@pytest.mark.usefixtures("device")
def test_interpolate_scale_factor_tensor_of_rows_is_refused():
    # Paddle 2.6.2 reads a Tensor scale_factor by its first axis: [[2, 2]] is one
    # (non-number) scale for two spatial axes, ValueError "scale_shape length should be 2"
    x = eager.ones([1, 1, 3, 3])
    with pytest.raises(ValueError, match="scale_factor"):
        eager.nn.functional.interpolate(x, scale_factor=eager.to_tensor([[2.0, 2.0]]))
    assert eager.nn.functional.interpolate(x, scale_factor=eager.to_tensor([2.0, 3.0])).shape == [1, 1, 6, 9]


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("call", [
    lambda x: eager.nn.BatchNorm2D(3)(x),
    lambda x: eager.nn.LayerNorm([4, 4])(x),
    lambda x: eager.nn.InstanceNorm2D(3)(x),
    lambda x: eager.nn.GroupNorm(3, 3)(x),
])
def test_norm_layer_of_float64_input_with_float32_parameters(call):
    # Paddle 2.6.2: ValueError "(InvalidArgument) The type of data we are trying to
    # retrieve (float64) does not match the type of data (float32)"
    x = eager.to_tensor(np.random.RandomState(0).rand(2, 3, 4, 4))
    with pytest.raises(ValueError, match="expected the dtype of x"):
        call(x)
    with pytest.raises(TypeError):
        call(x)


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("ratio", [0.5, 0.0, -0.1])
def test_temporal_shift_ratio_is_open_interval(ratio):
    # Paddle 2.6.2's InferMeta: "Attr(shift_ratio) should be less than 0.5" / "greater than 0"
    x = eager.ones([4, 4, 2, 2])
    with pytest.raises(ValueError, match="shift_ratio"):
        eager.nn.functional.temporal_shift(x, 2, ratio)


@pytest.mark.usefixtures("device")
def test_temporal_shift_seg_num_errors():
    x = eager.ones([4, 4, 2, 2])
    # Paddle 2.6.2: ValueError "Attr(seg_num) should be greater than 0" and
    # "argument (position 2) must be int, but got float"
    for seg_num in (0, -1, 2.0):
        with pytest.raises(ValueError, match="seg_num"):
            eager.nn.functional.temporal_shift(x, seg_num)
    with pytest.raises(TypeError, match="seg_num"):
        eager.nn.functional.temporal_shift(x, 2.0)


@pytest.mark.usefixtures("device")
def test_temporal_shift_values_against_reference():
    # one clip of 3 frames, 4 channels, ratio 0.25 (value from Paddle 2.6.2)
    x = eager.arange(12, dtype="float32").reshape([3, 4, 1, 1])
    out = eager.nn.functional.temporal_shift(x, 3, 0.25).reshape([3, 4]).numpy()
    np.testing.assert_array_equal(out, [[0, 5, 2, 3], [0, 9, 6, 7], [4, 0, 10, 11]])


@pytest.mark.parametrize("ids", [[[1, 10]], [[1, -1]]])
def test_embedding_id_out_of_range_is_paddles_value_error(ids):
    # Paddle 2.6.2: ValueError "(InvalidArgument) Variable value (input) of
    # OP(paddle.nn.functional.embedding) expected >= 0 and < 10" (eager keeps its IndexError too)
    weight = eager.ones([10, 4])
    for error in (ValueError, IndexError):
        with pytest.raises(error, match="expected ids in"):
            eager.nn.functional.embedding(eager.to_tensor(ids), weight)


@pytest.mark.usefixtures("device")
def test_fold_unfold_rank_errors_are_paddles_assertions():
    # Paddle 2.6.2: AssertionError "input should be the format of [N, C, H, W]" / "[N, C, L]"
    for call in (lambda: eager.nn.functional.unfold(eager.ones([2, 5, 5]), 2),
                 lambda: eager.nn.functional.fold(eager.ones([8, 9]), [4, 4], 2)):
        with pytest.raises(AssertionError, match="expected a"):
            call()
        with pytest.raises(ValueError):
            call()


@pytest.mark.parametrize("sizes", [(0, 5, 6), (4, -1, 6), (4, 5, 0)])
def test_bilinear_layer_non_positive_size_is_paddles_assertion(sizes):
    # Paddle 2.6.2: AssertionError "Expected every dim's size to be larger than 0"
    with pytest.raises(AssertionError, match="Bilinear"):
        nn.Bilinear(*sizes)
    with pytest.raises(ValueError):
        nn.Bilinear(*sizes)


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("name, shape", [("adaptive_avg_pool2d", [1, 2, 4, 4]), ("adaptive_max_pool2d", [1, 2, 4, 4]),
                                         ("adaptive_avg_pool3d", [1, 2, 4, 4, 4]),
                                         ("adaptive_max_pool3d", [1, 2, 4, 4, 4])])
def test_adaptive_pool_float_output_size_is_a_type_error(name, shape):
    # Paddle 2.6.2: TypeError "'float' object is not iterable" (eager's ValueError kept too)
    x = eager.ones(shape)
    with pytest.raises(TypeError, match="output_size"):
        getattr(eager.nn.functional, name)(x, 2.0)
    with pytest.raises(ValueError, match="output_size"):
        getattr(eager.nn.functional, name)(x, 2.0)


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("kwargs, shape", [({"mode": "xx"}, [2, 3, 4, 5]), ({"data_format": "NCWH"}, [2, 3, 4, 5]),
                                           ({"data_format": "NCL"}, [2, 3, 4, 5])])
def test_pad_mode_and_format_errors_are_paddles_assertions(kwargs, shape):
    # Paddle 2.6.2 asserts them: "mode should be one of constant, reflect, replicate, circular",
    # "data_format should be in one of [NCL, ...]", "it's data format should be in ['NCHW', 'NHWC']"
    x = eager.ones(shape)
    with pytest.raises(AssertionError):
        eager.nn.functional.pad(x, [1, 1, 1, 1], **kwargs)
    with pytest.raises(ValueError):
        eager.nn.functional.pad(x, [1, 1, 1, 1], **kwargs)


def test_embedding_argument_kinds_as_paddle():
    weight = eager.to_tensor(np.arange(40, dtype="float32").reshape([10, 4]))
    ids = eager.to_tensor([[1, 2], [3, 2]])
    # Paddle 2.6.2 int()s a 0-d integer Tensor padding_idx
    out = eager.nn.functional.embedding(ids, weight, padding_idx=eager.to_tensor(2))
    want = np.arange(40, dtype="float32").reshape([10, 4])[[[1, 2], [3, 2]]]
    want[:, 1] = 0
    want[1, 1] = 0
    np.testing.assert_array_equal(out.numpy(), want)
    # Paddle 2.6.2: ValueError "argument (position 3) must be long, but got float" /
    # "(position 4) must be bool, but got int"
    for kwargs in ({"padding_idx": 1.0}, {"sparse": 1}):
        with pytest.raises(ValueError):
            eager.nn.functional.embedding(ids, weight, **kwargs)
        with pytest.raises(TypeError):
            eager.nn.functional.embedding(ids, weight, **kwargs)
