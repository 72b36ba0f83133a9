"""The LeNet step on the GPU (G5): how many CuPy calls it makes, that it moves
nothing between host and device, and the GPU-only kernel paths it takes (col2im
as one gather, max pooling over tiling windows as rows) against hand-written
NumPy loops.

The counts run on tests/fake_cupy.py (its ``calls``, ``transfers`` and
``uploads`` counters); the value tests run on whichever CuPy conftest installed.
"""
from __future__ import annotations

import importlib
import itertools
import sys
from pathlib import Path

import numpy as np
import pytest

import eager
import eager.nn.functional as F
from conftest import REAL_GPU

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import lenet  # noqa: E402  (benchmarks/lenet.py)


def _gpu(array, stop_gradient=True):
    return eager.to_tensor(array, place="gpu", stop_gradient=stop_gradient)


# -- the whole step --------------------------------------------------------------------------

@pytest.mark.skipif(REAL_GPU, reason="counts CuPy calls on tests/fake_cupy.py")
def test_eager_lenet_step_makes_no_more_cupy_calls_than_the_hand_written_one_and_no_copies():
    cupy = importlib.import_module("cupy")
    params = lenet.init_weights()
    x, labels = lenet.make_batch(8)
    ref = lenet.HandWrittenLeNet(params, xp=cupy)
    ours = lenet.EagerLeNet(params)
    ours.model.to("gpu")
    x_ref, labels_ref = cupy.asarray(x), cupy.asarray(labels)
    x_ours, labels_ours = _gpu(x), _gpu(labels)

    def per_step(step):
        for _ in range(2):  # the first steps build caches (index arrays on the device)
            step()
        calls, down, up = cupy.calls[0], cupy.transfers[0], cupy.uploads[0]
        step()
        return cupy.calls[0] - calls, cupy.transfers[0] - down, cupy.uploads[0] - up

    hand_written, _, _ = per_step(lambda: ref.step(x_ref, labels_ref))
    calls, down, up = per_step(lambda: ours.step(x_ours, labels_ours))
    assert (down, up) == (0, 0)
    assert calls <= hand_written, (calls, hand_written)  # 203 and 234 when this test was written


def test_eager_lenet_on_the_gpu_trains_as_the_numpy_step():
    params = lenet.init_weights()
    x, labels = lenet.make_batch(4)
    ref = lenet.HandWrittenLeNet(params)
    ours = lenet.EagerLeNet(params)
    ours.model.to("gpu")
    for _ in range(3):
        expected = ref.step(x, labels)
        assert np.isclose(ours.step(_gpu(x), _gpu(labels)).item(), expected, rtol=1e-4)
    # the model's parameters in SHAPES order
    for (name, _), p in zip(lenet.SHAPES, ours.model.parameters()):
        np.testing.assert_allclose(p.numpy(), ref.p[name], rtol=1e-4, atol=1e-6)


# -- conv: the input gradient as one gather -----------------------------------------------------

def _conv_input_grad_by_loops(x_shape, w, g, strides, pads, dilations, groups):
    """d(sum(out * g))/dx of out = conv(x, w), one output position and kernel tap at a time."""
    n, c = x_shape[:2]
    o = w.shape[0]
    k = len(strides)
    padded = np.zeros((n, c) + tuple(s + b + a for s, (b, a) in zip(x_shape[2:], pads)))
    cg, og = c // groups, o // groups
    for out_at in itertools.product(*map(range, g.shape[2:])):
        for tap in itertools.product(*map(range, w.shape[2:])):
            at = tuple(p * s + t * d for p, s, t, d in zip(out_at, strides, tap, dilations))
            for group in range(groups):
                gi = g[(slice(None), slice(group * og, (group + 1) * og)) + out_at]         # [N, O/g]
                wi = w[(slice(group * og, (group + 1) * og), slice(None)) + tap]             # [O/g, C/g]
                padded[(slice(None), slice(group * cg, (group + 1) * cg)) + at] += gi @ wi
    return padded[(slice(None), slice(None)) + tuple(slice(b, b + s) for s, (b, _) in zip(x_shape[2:], pads))]


@pytest.mark.parametrize("x_shape, w_shape, stride, padding, dilation, groups", [
    ((2, 3, 7, 6), (4, 3, 3, 2), (1, 1), (1, 0), (1, 1), 1),
    ((1, 4, 9, 8), (6, 2, 3, 3), (2, 1), (2, 1), (1, 2), 2),   # strides, dilation, groups
    ((2, 2, 8, 8), (3, 2, 2, 2), (3, 3), (0, 0), (1, 1), 1),   # stride > kernel: rows no window reads
    ((1, 2, 4, 5, 4), (2, 2, 2, 3, 2), (1, 2, 1), (1, 1, 0), (1, 1, 1), 1),  # 3-D
])
def test_conv_input_grad_on_the_gpu_matches_loops(x_shape, w_shape, stride, padding, dilation, groups):
    rng = np.random.default_rng(0)
    x_np, w_np = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    conv = F.conv2d if len(x_shape) == 4 else F.conv3d
    x, w = _gpu(x_np, stop_gradient=False), _gpu(w_np)
    out = conv(x, w, stride=list(stride), padding=list(padding), dilation=list(dilation), groups=groups)
    g_np = rng.standard_normal(out.shape)
    out.backward(_gpu(g_np))
    expected = _conv_input_grad_by_loops(x_shape, w_np, g_np, stride, [(p, p) for p in padding], dilation, groups)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-10, atol=1e-10)


def test_conv_transpose_on_the_gpu_matches_the_cpu_with_output_padding_and_groups():
    rng = np.random.default_rng(1)
    x_np, w_np = rng.standard_normal((2, 4, 3, 4)), rng.standard_normal((4, 3, 3, 2))
    args = dict(stride=[2, 3], padding=[1, 0], output_padding=[1, 2], groups=2, dilation=[1, 2])
    on_cpu = F.conv2d_transpose(eager.to_tensor(x_np), eager.to_tensor(w_np), **args)
    on_gpu = F.conv2d_transpose(_gpu(x_np), _gpu(w_np), **args)
    assert on_gpu.place.is_gpu_place()
    # the CPU adds one kernel position at a time: an independent computation
    np.testing.assert_allclose(on_gpu.numpy(), on_cpu.numpy(), rtol=1e-10, atol=1e-12)


# -- max pooling over tiling windows ------------------------------------------------------------

def _max_pool_by_loops(x, kernel):
    """(max, flat plane index of the first maximum) over tiles, NaN never winning
    (a window of NaN: NaN at its last position), channel-first."""
    k = len(kernel)
    outs = tuple(s // ks for s, ks in zip(x.shape[2:], kernel))
    best = np.empty(x.shape[:2] + outs)
    mask = np.empty(x.shape[:2] + outs, dtype=np.int64)
    for plane in itertools.product(*map(range, x.shape[:2])):
        for at in itertools.product(*map(range, outs)):
            taps = list(itertools.product(*(range(a * ks, (a + 1) * ks) for a, ks in zip(at, kernel))))
            values = [x[plane + t] for t in taps]
            numbers = [v for v in values if not np.isnan(v)]
            winner = values.index(max(numbers)) if numbers else len(taps) - 1
            best[plane + at] = values[winner]
            mask[plane + at] = np.ravel_multi_index(taps[winner], x.shape[2:])
    return best, mask


@pytest.mark.parametrize("shape, kernel, data_format", [
    ((2, 3, 6, 8), (2, 2), "NCHW"),
    ((1, 2, 6, 6), (3, 2), "NHWC"),     # the input as given is [N, H, W, C]
    ((1, 2, 4, 6, 4), (2, 3, 2), "NCDHW"),
])
def test_tiled_max_pool_on_the_gpu_first_maximum_nan_never_wins_and_grad(shape, kernel, data_format):
    rng = np.random.default_rng(2)
    x_first = rng.integers(0, 3, shape).astype(np.float64)  # many ties: the first maximum must win
    x_first[0, 0].reshape(-1)[:3] = np.nan                  # NaN beside numbers never wins
    x_first[-1, -1].reshape(-1)[:] = np.nan                 # whole windows of NaN
    channel_last = data_format in ("NHWC",)
    x_np = np.moveaxis(x_first, 1, -1) if channel_last else x_first
    pool = F.max_pool2d if len(shape) == 4 else F.max_pool3d
    x = _gpu(x_np, stop_gradient=False)
    out, mask = pool(x, kernel, stride=kernel, return_mask=True, data_format=data_format)
    best, expected_mask = _max_pool_by_loops(x_first, kernel)
    to_first = (lambda a: np.moveaxis(a, -1, 1)) if channel_last else (lambda a: a)
    np.testing.assert_array_equal(to_first(out.numpy()), best)
    np.testing.assert_array_equal(to_first(mask.numpy()), expected_mask)
    on_cpu = pool(eager.to_tensor(x_np), kernel, stride=kernel, return_mask=True, data_format=data_format)
    np.testing.assert_array_equal(mask.numpy(), on_cpu[1].numpy())
    g = rng.standard_normal(out.shape)
    out.backward(_gpu(g))
    expected = np.zeros(x_first.shape)
    g_first = to_first(g)
    for plane in itertools.product(*map(range, x_first.shape[:2])):
        np.put(expected[plane], expected_mask[plane].reshape(-1), g_first[plane].reshape(-1))
    np.testing.assert_array_equal(to_first(x.grad.numpy()), expected)


def test_adaptive_max_pool_to_a_divisor_on_the_gpu_matches_loops():
    rng = np.random.default_rng(3)
    x_np = rng.standard_normal((2, 3, 6, 8))
    out, mask = F.adaptive_max_pool2d(_gpu(x_np), [3, 2], return_mask=True)
    best, expected_mask = _max_pool_by_loops(x_np, (2, 4))
    np.testing.assert_array_equal(out.numpy(), best)
    np.testing.assert_array_equal(mask.numpy(), expected_mask)


# -- softmax cross-entropy's labels on the GPU --------------------------------------------------

def test_cross_entropy_on_the_gpu_ignores_ignore_index_and_makes_bad_labels_nan_without_a_sync():
    cupy = importlib.import_module("cupy")
    rng = np.random.default_rng(4)
    logits_np = rng.standard_normal((5, 4))
    labels = np.array([1, -100, 3, 0, 2])
    logits = _gpu(logits_np, stop_gradient=False)
    down = getattr(cupy, "transfers", [0])[0]
    loss = F.cross_entropy(logits, _gpu(labels), ignore_index=-100)
    loss.backward()
    assert getattr(cupy, "transfers", [0])[0] == down
    shifted = logits_np - logits_np.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    kept = labels != -100
    np.testing.assert_allclose(loss.item(), -log_p[kept, labels[kept]].mean(), rtol=1e-12)
    expected = np.exp(log_p)
    expected[kept, labels[kept]] -= 1
    expected[~kept] = 0
    np.testing.assert_allclose(logits.grad.numpy(), expected / kept.sum(), rtol=1e-12, atol=1e-15)
    for bad in (-1, 4):  # neither a class nor ignore_index: NaN (the CPU raises; a GPU would have to sync)
        logits = _gpu(logits_np, stop_gradient=False)
        loss = F.cross_entropy(logits, _gpu(np.array([1, bad, 3, 0, 2])))
        loss.backward()
        grad = logits.grad.numpy()
        assert np.isnan(loss.item()) and np.isnan(grad[1]).all() and np.isfinite(np.delete(grad, 1, 0)).all()
