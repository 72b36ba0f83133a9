"""Regression cases found by a random differential sweep of interpolate, pad,
pixel_shuffle/unshuffle (against PyTorch, each discrepancy checked against
Paddle's rules, which win). References are direct float64 loops written here;
gradients are checked by finite differences.

- Paddle's interpolation kernels copy x when no spatial axis changes size,
  whatever the scale (scale_factor 1.3 on 2 pixels gives 2); an axis that
  keeps its size while another changes still uses the scale's ratio.
- A single output position reads from ratio 0 (Paddle: the ratio is set only
  when the output has more than one position), not the centre of the axis.
- A 0-d tensor scale_factor is one number for every spatial axis.
- pad's mode 'circular' wraps as often as needed (paddings beyond the size).
- pixel_shuffle/unshuffle of an empty x give the empty result, still
  connected to x (reshape reads a 0 as "keep this dimension").
"""
import math

import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck
from op_specs import vision as vision_specs

pytestmark = pytest.mark.usefixtures("device")


def leaf(shape, seed=0):
    return eager.to_tensor(np.random.default_rng(seed).standard_normal(shape), stop_gradient=False)


keys = vision_specs._keys  # Keys' cubic convolution kernel (the op table's reference has it)


# -- an unchanged size copies x --------------------------------------------------------

@pytest.mark.parametrize("mode, shape, scale, fmt", [
    ("linear", (3, 2, 2), [1.3], "NCW"),
    ("linear", (2, 2, 3), 1.3, "NWC"),
    ("bilinear", (1, 2, 2, 2), 1.3, "NCHW"),
    ("bicubic", (1, 2, 3, 2), [1.2, 1.4], "NCHW"),
    ("nearest", (1, 2, 2, 3), 1.3, "NHWC"),
    ("trilinear", (1, 1, 2, 2, 2), [1.4, 1.3, 1.2], "NCDHW"),
])
def test_scale_that_keeps_every_size_copies_x(mode, shape, scale, fmt):
    x = leaf(shape)
    out = F.interpolate(x, scale_factor=scale, mode=mode, data_format=fmt)
    np.testing.assert_array_equal(out.numpy(), x.numpy())
    g = np.random.default_rng(1).standard_normal(shape)
    out.backward(eager.to_tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), g)
    assert gradcheck(lambda t: F.interpolate(t, scale_factor=scale, mode=mode, data_format=fmt), (x,))


def test_axis_that_keeps_its_size_still_uses_the_scale_when_another_changes():
    # [2, 4] by 1.3 is [2, 5]: the rows keep their size, yet row 1 reads floor(1 / 1.3) = 0.
    x = leaf((1, 1, 2, 4))
    out = F.interpolate(x, scale_factor=1.3, mode="nearest").numpy()
    a = x.numpy()
    expected = np.empty((1, 1, 2, 5))
    for i in range(2):
        for j in range(5):
            expected[0, 0, i, j] = a[0, 0, min(math.floor(i / 1.3), 1), min(math.floor(j / 1.3), 3)]
    np.testing.assert_array_equal(out, expected)
    assert (out[0, 0, 1] == out[0, 0, 0]).all()


# -- a single output position reads from the start ---------------------------------------

def _linear_1d(row, n_out, ratio):
    """Half-pixel linear resampling of one row, clamped at 0 (align_mode 0)."""
    n = len(row)
    out = []
    for j in range(n_out):
        src = max(ratio * (j + 0.5) - 0.5, 0.0)
        low = min(math.floor(src), n - 1)
        high = min(low + 1, n - 1)
        frac = src - low
        out.append((1 - frac) * row[low] + frac * row[high])
    return np.array(out)


def _cubic_1d(row, n_out, ratio):
    n = len(row)
    out = []
    for j in range(n_out):
        src = ratio * (j + 0.5) - 0.5
        base = math.floor(src)
        out.append(sum(keys(src - t) * row[min(max(t, 0), n - 1)] for t in range(base - 1, base + 3)))
    return np.array(out)


def test_linear_to_one_position_reads_the_first_pixel():
    x = leaf((2, 3, 5))
    out = F.interpolate(x, size=[1], mode="linear", data_format="NCW")
    np.testing.assert_array_equal(out.numpy(), x.numpy()[:, :, :1])
    assert gradcheck(lambda t: F.interpolate(t, size=[1], mode="linear", data_format="NCW"), (x,))


def test_bilinear_to_one_row_uses_ratio_zero_on_that_axis_only():
    x = leaf((1, 2, 4, 5))
    out = F.interpolate(x, size=[1, 3], mode="bilinear").numpy()
    a = x.numpy()
    expected = np.stack([_linear_1d(a[0, c, 0], 3, 5 / 3) for c in range(2)])[None, :, None, :]
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
    assert gradcheck(lambda t: F.interpolate(t, size=[1, 3], mode="bilinear"), (x,))


def test_bicubic_to_one_position_centres_its_taps_at_minus_half():
    x = leaf((1, 1, 4, 3))
    out = F.interpolate(x, size=[1, 2], mode="bicubic").numpy()
    a = x.numpy()[0, 0]
    # rows: ratio 0, so src = -0.5 (taps -2..1, clamped); columns: ratio 3 / 2
    rows = np.array([_cubic_1d(a[:, w], 1, 0.0)[0] for w in range(3)])
    expected = _cubic_1d(rows, 2, 1.5)
    np.testing.assert_allclose(out[0, 0, 0], expected, rtol=1e-12, atol=1e-12)
    assert gradcheck(lambda t: F.interpolate(t, size=[1, 2], mode="bicubic"), (x,))


def test_align_corners_to_one_position_reads_the_first_pixel():
    x = leaf((1, 1, 3, 4))
    out = F.interpolate(x, size=[1, 1], mode="bilinear", align_corners=True)
    np.testing.assert_array_equal(out.numpy(), x.numpy()[:, :, :1, :1])


# -- scale_factor as a 0-d tensor ---------------------------------------------------------

@pytest.mark.parametrize("mode, shape", [("nearest", (1, 2, 3, 4)), ("trilinear", (1, 1, 2, 3, 2)),
                                         ("linear", (1, 2, 3))])
def test_zero_d_tensor_scale_factor_is_one_number_for_every_axis(mode, shape):
    x = leaf(shape)
    fmt = {3: "NCW", 4: "NCHW", 5: "NCDHW"}[len(shape)]
    by_tensor = F.interpolate(x, scale_factor=eager.to_tensor(2.0), mode=mode, data_format=fmt)
    by_number = F.interpolate(x, scale_factor=2.0, mode=mode, data_format=fmt)
    assert by_tensor.shape == [s * 2 if i >= 2 else s for i, s in enumerate(shape)]
    np.testing.assert_array_equal(by_tensor.numpy(), by_number.numpy())


def test_one_element_tensor_scale_factor_for_two_axes_is_refused():
    with pytest.raises(ValueError, match=r"interpolate: argument 'scale_factor' expected a positive finite number or 2"):
        F.interpolate(leaf((1, 1, 2, 2)), scale_factor=eager.to_tensor([2.0]), mode="bilinear")


@pytest.mark.parametrize("mode, shape, fmt", [("bilinear", (1, 2, 0, 3), "NCHW"), ("nearest", (1, 2, 3, 0, 4), "NDHWC"),
                                              ("linear", (2, 0, 3), "NWC"), ("area", (1, 1, 0, 3), "NCHW")])
def test_empty_spatial_axis_is_refused_naming_interpolate(mode, shape, fmt):
    with pytest.raises(ValueError, match=r"interpolate: x \(\w+\) has an empty spatial axis"):
        F.interpolate(eager.zeros(shape), size=[2] * (len(shape) - 2), mode=mode, data_format=fmt)


# -- circular padding beyond the size ------------------------------------------------------

@pytest.mark.parametrize("shape, pad, fmt", [((1, 2, 3), [7, 4], "NCL"), ((2, 3, 1), [2, 5], "NLC"),
                                             ((1, 1, 2, 3), [4, 0, 5, 3], "NCHW")])
def test_circular_padding_wraps_beyond_the_size(shape, pad, fmt):
    x = leaf(shape)
    out = F.pad(x, pad, mode="circular", data_format=fmt).numpy()
    a = x.numpy()
    channel_last = fmt[-1] == "C"
    first = 1 if channel_last else 2
    k = len(shape) - 2
    before = [pad[2 * (k - 1 - i)] for i in range(k)]      # pairs start at the last axis
    expected = np.empty(out.shape)
    for index in np.ndindex(*out.shape):
        src = list(index)
        for i in range(k):
            src[first + i] = (index[first + i] - before[i]) % shape[first + i]
        expected[index] = a[tuple(src)]
    np.testing.assert_array_equal(out, expected)
    assert gradcheck(lambda t: F.pad(t, pad, mode="circular", data_format=fmt), (x,))


def test_circular_padding_of_an_empty_axis_is_refused():
    with pytest.raises(ValueError, match=r"pad: mode 'circular' cannot pad the empty axis 2"):
        F.pad(eager.zeros([1, 2, 0]), [1, 1], mode="circular", data_format="NCL")


# -- empty pixel_shuffle / pixel_unshuffle --------------------------------------------------

@pytest.mark.parametrize("fn, shape, factor, fmt, expected", [
    (F.pixel_shuffle, (2, 9, 0, 1), 3, "NCHW", [2, 1, 0, 3]),
    (F.pixel_shuffle, (2, 0, 1, 8), 2, "NHWC", [2, 0, 2, 2]),
    (F.pixel_shuffle, (0, 4, 2, 3), 2, "NCHW", [0, 1, 4, 6]),
    (F.pixel_unshuffle, (1, 1, 0, 6), 3, "NCHW", [1, 9, 0, 2]),
    (F.pixel_unshuffle, (3, 4, 0, 2), 2, "NHWC", [3, 2, 0, 8]),
])
def test_empty_pixel_shuffles_give_the_empty_result(fn, shape, factor, fmt, expected):
    x = leaf(shape)
    out = fn(x, factor, data_format=fmt)
    assert out.shape == expected
    out.sum().backward()
    assert x.grad.shape == list(shape)


# -- argument forms ---------------------------------------------------------------------------

@pytest.mark.parametrize("scale", [math.inf, [2.0, math.inf], math.nan])
def test_non_finite_scale_factor_is_refused(scale):
    with pytest.raises(ValueError, match=r"interpolate: argument 'scale_factor' expected a positive finite number"):
        F.interpolate(leaf((1, 1, 2, 2)), scale_factor=scale)


def test_lower_case_data_formats_are_taken_as_paddle_upper_cases_them():
    x = leaf((1, 3, 4, 2))
    np.testing.assert_array_equal(F.interpolate(x, size=[2, 4], mode="bilinear", data_format="nhwc").numpy(),
                                  F.interpolate(x, size=[2, 4], mode="bilinear", data_format="NHWC").numpy())
    padded = F.pad(x, [1, 0, 2, 1], mode="reflect", data_format="nhwc").numpy()
    np.testing.assert_array_equal(padded, np.pad(x.numpy(), [(0, 0), (2, 1), (1, 0), (0, 0)], mode="reflect"))


@pytest.mark.parametrize("shape, data_format", [((1, 2, 3), "NHWC"), ((1, 2, 3, 4), "NCL"), ((1, 2, 3, 4, 5), "NLC")])
def test_pad_data_format_of_another_rank_is_refused(shape, data_format):
    with pytest.raises(ValueError, match=r"pad: argument 'data_format' expected one of \[.*\] for a \d-d x"):
        F.pad(eager.zeros(shape), [1] * (2 * (len(shape) - 2)), mode="replicate", data_format=data_format)


@pytest.mark.parametrize("shape", [(1, 2, 3), (1, 1, 2, 2, 3)])
def test_pad_default_data_format_is_channels_first_at_any_rank(shape):
    x = leaf(shape)
    k = len(shape) - 2
    out = F.pad(x, [1, 2] * k, mode="replicate").numpy()
    np.testing.assert_array_equal(out, np.pad(x.numpy(), [(0, 0), (0, 0)] + [(1, 2)] * k, mode="edge"))
