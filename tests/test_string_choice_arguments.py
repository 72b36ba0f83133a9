"""A Tensor given where a function takes one of a few strings (data_format, mode,
padding_mode, compute_mode) is refused with a ValueError naming the function and
the argument. The checks were written ``value not in ("NCHW", "NHWC")``, which
compares a Tensor with each string through Tensor.__eq__; that raises equal's
TypeError (as Paddle's does for a str operand), so the error named ``equal``
and neither the function nor its argument. The layers sweep met it in conv,
norm and recurrent layers; these are the same checks elsewhere."""
import numpy as np
import pytest

import eager

F = eager.nn.functional
T = eager.vision.transforms


def _x():
    return eager.rand([1, 2, 4, 4])


def _sparse():
    return eager.sparse.sparse_coo_tensor([[0], [0], [0], [0]], [[1.0]], [1, 2, 2, 2, 1])


# (who the message names, argument, call given the bad value)
CASES = [
    ("pad", "mode", lambda v: F.pad(_x(), [1, 1, 1, 1], mode=v)),
    ("pad", "data_format", lambda v: F.pad(_x(), [1, 1, 1, 1], data_format=v)),
    ("interpolate", "data_format", lambda v: F.interpolate(_x(), size=[2, 2], data_format=v)),
    ("pixel_shuffle", "data_format", lambda v: F.pixel_shuffle(eager.rand([1, 4, 2, 2]), 2, data_format=v)),
    ("channel_shuffle", "data_format", lambda v: F.channel_shuffle(_x(), 2, data_format=v)),
    ("temporal_shift", "data_format", lambda v: F.temporal_shift(_x(), 1, data_format=v)),
    ("dropout", "mode", lambda v: F.dropout(_x(), 0.5, mode=v)),
    ("dropout2d", "data_format", lambda v: F.dropout2d(_x(), 0.5, data_format=v)),
    ("Dropout2D", "data_format", lambda v: eager.nn.Dropout2D(data_format=v)),
    ("Dropout3D", "data_format", lambda v: eager.nn.Dropout3D(data_format=v)),
    ("Pad2D", "data_format", lambda v: eager.nn.Pad2D(1, data_format=v)),
    ("Pad2D", "mode", lambda v: eager.nn.Pad2D(1, mode=v)),
    ("PixelShuffle", "data_format", lambda v: eager.nn.PixelShuffle(2, data_format=v)),
    ("PixelUnshuffle", "data_format", lambda v: eager.nn.PixelUnshuffle(2, data_format=v)),
    ("ChannelShuffle", "data_format", lambda v: eager.nn.ChannelShuffle(2, data_format=v)),
    ("cdist", "compute_mode", lambda v: eager.cdist(_x(), _x(), compute_mode=v)),
    ("Normalize", "data_format", lambda v: T.Normalize(data_format=v)),
    ("Pad", "padding_mode", lambda v: T.Pad(1, padding_mode=v)),
    ("pad", "padding_mode", lambda v: T.functional.pad(np.zeros((3, 3, 3), np.uint8), 1, padding_mode=v)),
    ("normalize", "data_format",
     lambda v: T.functional.normalize(np.zeros((3, 3, 3), np.float32), [0.0], [1.0], data_format=v)),
    ("sparse.nn.BatchNorm", "data_format", lambda v: eager.sparse.nn.BatchNorm(1, data_format=v)),
    ("sparse.nn.SyncBatchNorm", "data_format", lambda v: eager.sparse.nn.SyncBatchNorm(1, data_format=v)),
    ("sparse.nn.functional.max_pool3d", "data_format",
     lambda v: eager.sparse.nn.functional.max_pool3d(_sparse(), 1, data_format=v)),
    ("sparse.nn.functional.conv3d", "data_format",
     lambda v: eager.sparse.nn.functional.conv3d(_sparse(), eager.rand([1, 1, 1, 1, 1]), data_format=v)),
    ("sparse.nn.Conv3D", "padding_mode", lambda v: eager.sparse.nn.Conv3D(1, 1, 1, padding_mode=v)),
]


@pytest.mark.parametrize("who, arg, call", CASES, ids=[f"{who}-{arg}" for who, arg, _ in CASES])
@pytest.mark.parametrize("bad", ["tensor", "list"])
def test_a_tensor_or_list_given_for_a_string_choice_is_refused_by_name(who, arg, call, bad):
    value = eager.to_tensor([1]) if bad == "tensor" else ["NCHW"]
    with pytest.raises(ValueError, match=rf"^{who}: .*'?{arg}'?"):
        call(value)
