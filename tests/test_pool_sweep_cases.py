"""Regression cases found by a differential sweep of the pooling family against
PyTorch (random kernels, strides, paddings, ceil_mode, exclusive, layouts,
empty and size-1 axes): values against loop references written here in
float64, gradients by finite differences, errors by type and message, and
PyTorch as an extra cross-check where it is installed.

- average pooling with ``exclusive=False`` and ``ceil_mode``: Paddle divides a
  window by its positions inside the padded input, min(start + k, n + pad) -
  start per axis, so a last window overhanging the right padding divides by
  less than the kernel's size (eager divided by the kernel's size);
- ``lp_pool`` sums over such a window (its sum is unchanged by that fix);
- max pooling whose window is the whole plane on an empty batch or channel
  axis died inside NumPy (a reshape with -1 of zero elements);
- 1-D pooling, lp_pool and adaptive pooling named the op they run
  (``avg_pool2d``, ``max_pool2d_with_index``) in their geometry errors;
- a Tensor as ``data_format`` died comparing itself with the format names.
"""
import itertools
import math

import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck
from torch_reference import needs_torch, torch

pytestmark = pytest.mark.usefixtures("device")

rng = np.random.default_rng(7)


def leaf(a):
    return eager.to_tensor(a, stop_gradient=False)


def windows(n, k, s, before, after, ceil_mode):
    """Per output along one axis: (first, last + 1) inside the input and the
    window's positions inside the padded input, by Paddle's rule."""
    span = n + before + after - k
    count = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (count - 1) * s >= n + before:
        count -= 1
    out = []
    for i in range(count):
        start = i * s - before
        out.append((max(start, 0), min(start + k, n), min(start + k, n + after) - start))
    return out


def loop_pool(x, kernel, strides, pads, ceil_mode, reduce):
    """x [N, C, *spatial] in float64; pads as (before, after) per axis;
    ``reduce(values, padded_count, inside_count)`` per window."""
    axes = [windows(n, k, s, b, a, ceil_mode) for n, k, s, (b, a) in zip(x.shape[2:], kernel, strides, pads)]
    out = np.zeros(x.shape[:2] + tuple(len(w) for w in axes))
    for position in itertools.product(*(range(len(w)) for w in axes)):
        bounds = [axes[i][o] for i, o in enumerate(position)]
        for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
            values = [x[(n, c) + point] for point in itertools.product(*(range(lo, hi) for lo, hi, _ in bounds))]
            padded = math.prod(p for *_, p in bounds)
            inside = math.prod(hi - lo for lo, hi, _ in bounds)
            out[(n, c) + position] = reduce(values, padded, inside)
    return out


def channel_last(a):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1))


AVG_CASES = [
    # (function, shape, kernel, stride, padding (symmetric per axis), data_format)
    (F.avg_pool1d, (2, 3, 7), (2,), (2,), (0,), "NCL"),
    (F.avg_pool1d, (1, 2, 6), (3,), (3,), (1,), "NLC"),
    (F.avg_pool2d, (1, 2, 7, 5), (2, 3), (2, 3), (0, 1), "NCHW"),
    (F.avg_pool2d, (2, 1, 6, 4), (4, 4), (3, 2), (1, 0), "NHWC"),
    (F.avg_pool3d, (1, 2, 5, 4, 6), (3, 2, 4), (2, 3, 3), (1, 0, 1), "NDHWC"),
]


@pytest.mark.parametrize("fn, shape, kernel, stride, padding, fmt", AVG_CASES)
def test_avg_pool_not_exclusive_ceil_mode_divides_by_the_padded_window(fn, shape, kernel, stride, padding, fmt):
    x = rng.standard_normal(shape)
    pads = [(p, p) for p in padding]
    expected = loop_pool(x, kernel, stride, pads, True, lambda v, padded, inside: sum(v) / padded)
    last = fmt in ("NLC", "NHWC", "NDHWC")
    xin = channel_last(x) if last else x
    out = fn(eager.to_tensor(xin), list(kernel), stride=list(stride), padding=list(padding), ceil_mode=True,
             exclusive=False, data_format=fmt).numpy()
    out = np.moveaxis(out, -1, 1) if last else out
    # the case has a window overhanging the right padding (so the divisor is not the kernel's size)
    assert any(w[2] < k for n, k, s, (b, a) in zip(shape[2:], kernel, stride, pads)
               for w in windows(n, k, s, b, a, True))
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
    f = lambda t: fn(t, list(kernel), stride=list(stride), padding=list(padding), ceil_mode=True,  # noqa: E731
                     exclusive=False, data_format=fmt)
    assert gradcheck(f, (leaf(xin),))


def test_avg_pool_exclusive_ceil_mode_still_divides_by_the_inside_count():
    x = rng.standard_normal((1, 2, 7, 5))
    expected = loop_pool(x, (2, 3), (2, 3), [(0, 0), (1, 1)], True, lambda v, padded, inside: sum(v) / inside)
    out = F.avg_pool2d(eager.to_tensor(x), [2, 3], [2, 3], [0, 1], ceil_mode=True, exclusive=True)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_avg_pool_divisor_override_scales_paddles_average():
    x = rng.standard_normal((1, 1, 7, 5))
    expected = loop_pool(x, (2, 2), (2, 2), [(0, 0), (0, 0)], True, lambda v, padded, inside: sum(v) / padded)
    out = F.avg_pool2d(eager.to_tensor(x), 2, ceil_mode=True, exclusive=False, divisor_override=3)
    np.testing.assert_allclose(out.numpy(), expected * 4 / 3, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fn, shape, kernel, stride, padding, fmt, p", [
    (F.lp_pool1d, (2, 2, 7), (3,), (2,), (0,), "NCL", 2.0),
    (F.lp_pool1d, (1, 3, 6), (4,), (3,), (1,), "NLC", 3.0),
    (F.lp_pool2d, (1, 2, 7, 5), (2, 3), (2, 3), (0, 1), "NCHW", 1.5),
    (F.lp_pool2d, (2, 1, 5, 6), (3, 4), (2, 3), (1, 0), "NHWC", 2.0),
])
def test_lp_pool_ceil_mode_sums_the_overhanging_window(fn, shape, kernel, stride, padding, fmt, p):
    x = rng.uniform(0.2, 2.0, shape)
    pads = [(q, q) for q in padding]
    expected = loop_pool(x, kernel, stride, pads, True, lambda v, padded, inside: sum(t ** p for t in v) ** (1 / p))
    last = fmt in ("NLC", "NHWC")
    xin = channel_last(x) if last else x
    f = lambda t: fn(t, p, list(kernel), stride=list(stride), padding=list(padding), ceil_mode=True,  # noqa: E731
                     data_format=fmt)
    out = f(eager.to_tensor(xin)).numpy()
    np.testing.assert_allclose(np.moveaxis(out, -1, 1) if last else out, expected, rtol=1e-12, atol=1e-12)
    assert gradcheck(f, (leaf(xin),))


@pytest.mark.parametrize("shape", [(0, 2, 4, 4), (2, 0, 4, 4), (0, 0, 3, 3)])
@pytest.mark.parametrize("call", [
    lambda x: F.max_pool2d(x, list(x.shape[2:])),
    lambda x: F.adaptive_max_pool2d(x, 1, return_mask=True)[0],
    lambda x: F.adaptive_max_pool1d(x.reshape([x.shape[0], x.shape[1], x.shape[2] * x.shape[3]]), 1),
    lambda x: F.adaptive_max_pool3d(x.unsqueeze(2), 1),
    lambda x: F.lp_pool2d(x, float("inf"), list(x.shape[2:])),
])
def test_whole_plane_max_pooling_of_an_empty_batch_or_channel_axis(shape, call):
    x = leaf(np.zeros(shape))
    out = call(x)
    assert out.shape[:2] == list(shape[:2]) and out.numel() == 0
    out.sum().backward()
    assert x.grad.shape == list(shape) and x.grad.numel() == 0


@pytest.mark.parametrize("call, message", [
    (lambda: F.max_pool1d(eager.ones([1, 2, 2]), 3),
     "max_pool1d: the kernel [3] is larger than the padded input [2] (paddings [0, 0]): output size [0]"),
    (lambda: F.avg_pool1d(eager.ones([1, 2, 3]), 2, padding=2),
     "avg_pool1d: argument 'padding' expected each padding smaller than the kernel size [2]"),
    (lambda: F.lp_pool1d(eager.ones([1, 2, 3], "float64"), 2, 4), "lp_pool1d: the kernel [4] is larger"),
    (lambda: F.lp_pool2d(eager.ones([1, 1, 2, 5]), float("inf"), [3, 1]), "lp_pool2d: the kernel [3, 1] is larger"),
    (lambda: F.max_pool3d(eager.ones([1, 1, 2, 2, 0]), 1),
     "max_pool3d: argument 'x' expected positive spatial sizes, got shape [1, 1, 2, 2, 0]"),
    (lambda: F.adaptive_avg_pool1d(eager.ones([2, 3, 0]), 1),
     "adaptive_avg_pool1d: argument 'x' expected positive spatial sizes, got shape [2, 3, 0] (NCL)"),
    (lambda: F.adaptive_max_pool2d(eager.ones([1, 0, 3, 1]), 1, data_format="NHWC"),
     "adaptive_max_pool2d: argument 'x' expected positive spatial sizes, got shape [1, 0, 3, 1] (NHWC)"),
    (lambda: F.avg_pool2d(eager.ones([1, 1, 4, 4]), 2, data_format=eager.to_tensor([2])),
     "avg_pool2d: argument 'data_format' expected one of ['NCHW', 'NHWC'], got Tensor"),
    (lambda: F.max_unpool1d(*F.max_pool1d(eager.ones([1, 1, 4]), 2, return_mask=True), 2,
                            data_format=eager.to_tensor(1.0)),
     "max_unpool1d: argument 'data_format' expected 'NCL' (channels first), got Tensor"),
])
def test_geometry_errors_name_the_function_called(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value)


@needs_torch
@pytest.mark.parametrize("fn, shape, kernel, stride, padding, fmt", AVG_CASES)
def test_avg_pool_not_exclusive_ceil_mode_matches_torch(fn, shape, kernel, stride, padding, fmt):
    # PyTorch's count_include_pad divisor is the same clipped count as Paddle's
    x = rng.standard_normal(shape)
    k = len(kernel)
    tf = getattr(torch.nn.functional, f"avg_pool{k}d")
    expected = tf(torch.tensor(x), list(kernel), list(stride), list(padding), ceil_mode=True,
                  count_include_pad=True).numpy()
    last = fmt in ("NLC", "NHWC", "NDHWC")
    out = fn(eager.to_tensor(channel_last(x) if last else x), list(kernel), stride=list(stride),
             padding=list(padding), ceil_mode=True, exclusive=False, data_format=fmt).numpy()
    np.testing.assert_allclose(np.moveaxis(out, -1, 1) if last else out, expected, rtol=1e-12, atol=1e-12)


def test_max_unpool_output_size_lies_within_each_axis_own_stride():
    # Paddle checks default - stride[d] < output_size[d] < default + stride[d] per axis; eager took the
    # largest stride for every axis, accepting [5, 8] here (axis 0's stride is 1: only 4 is allowed)
    x = rng.standard_normal((1, 2, 4, 6))
    out, mask = F.max_pool2d(eager.to_tensor(x), [1, 3], stride=[1, 3], return_mask=True)
    assert F.max_unpool2d(out, mask, [1, 3], stride=[1, 3], output_size=[4, 8]).shape == [1, 2, 4, 8]
    with pytest.raises(ValueError, match=r"max_unpool2d: argument 'output_size' \[5, 8\] must lie within one stride"):
        F.max_unpool2d(out, mask, [1, 3], stride=[1, 3], output_size=[5, 8])


def test_max_unpool_output_size_takes_integer_tensor_entries():
    x = rng.standard_normal((1, 1, 7))
    out, mask = F.max_pool1d(eager.to_tensor(x), 2, return_mask=True)
    got = F.max_unpool1d(out, mask, 2, output_size=[eager.to_tensor(7)]).numpy()
    # a loop reference: each maximum written back at its index in zeros of length 7
    expected = np.zeros((1, 1, 7))
    for i in range(3):
        j = 2 * i + int(np.argmax(x[0, 0, 2 * i:2 * i + 2]))
        expected[0, 0, j] = x[0, 0, j]
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(TypeError, match="max_unpool1d: argument 'output_size' expected 1 ints"):
        F.max_unpool1d(out, mask, 2, output_size=[eager.to_tensor(7.0)])
