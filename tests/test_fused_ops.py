"""The fused ops of issue #14 behind nn.Linear and cross_entropy, and the loss
kernels' GPU code paths, run on the GPU's array module (tests/fake_cupy.py
where there is no real GPU: it refuses NumPy calls on its arrays and counts
every device-to-host copy).

References are NumPy written from the maths (loops over rows for the loss);
torch only as an extra cross-check where installed.
"""
from __future__ import annotations

import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager import nn
from eager.autograd import gradcheck, gradgradcheck
from phi.backends import get_gpu_context
from phi.backends.cpu_context import CPU_CONTEXT
from phi.kernels import fused as fused_kernels
from phi.kernels import loss as loss_kernels


def leaf(array):
    return eager.to_tensor(array, stop_gradient=False)


# -- linear ------------------------------------------------------------------------

def test_linear_layer_is_one_node_with_numpy_values_and_gradients(rng):
    fc = nn.Linear(4, 3)
    x_np = rng.standard_normal((2, 5, 4)).astype("float32")
    g_np = rng.standard_normal((2, 5, 3)).astype("float32")
    x = leaf(x_np)
    y = fc(x)
    assert y.grad_node.forward_op == "linear"
    assert y.grad_node.next_edges[0][0] is not None   # x, weight and bias hang off the one node
    w, b = fc.weight.numpy(), fc.bias.numpy()
    want = np.einsum("bni,io->bno", x_np, w) + b
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5)
    y.backward(eager.to_tensor(g_np))
    np.testing.assert_allclose(x.grad.numpy(), np.einsum("bno,io->bni", g_np, w), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fc.weight.grad.numpy(), np.einsum("bni,bno->io", x_np, g_np), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fc.bias.grad.numpy(), g_np.sum(axis=(0, 1)), rtol=1e-5, atol=1e-5)


def test_linear_without_bias_and_with_a_constant_input(rng):
    x_np, w_np = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    w = leaf(w_np)
    y = F.linear(eager.to_tensor(x_np), w)
    np.testing.assert_allclose(y.numpy(), x_np @ w_np, rtol=1e-12)
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), x_np.T @ np.ones((3, 2)), rtol=1e-12)


def test_linear_bias_changed_in_place_before_backward_is_fine(rng):
    # As with matmul + add, the bias's values are not needed for the gradients,
    # so the grad node keeps no bias and an in-place update does not invalidate it.
    x, w, b = leaf(rng.standard_normal((3, 4))), leaf(rng.standard_normal((4, 2))), leaf(np.zeros(2))
    y = F.linear(x, w, b)
    with eager.no_grad():
        b.add_(eager.ones([2], "float64"))
    y.sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), [3.0, 3.0])


def test_linear_double_gradient_and_gradcheck(rng):
    x, w, b = leaf(rng.standard_normal((2, 3, 4))), leaf(rng.standard_normal((4, 2))), leaf(rng.standard_normal(2))
    assert gradcheck(lambda *t: F.linear(*t), (x, w, b))
    # linear is bilinear in (x, weight): square it so the second derivative is not zero.
    assert gradgradcheck(lambda *t: F.linear(*t) * F.linear(*t), (x, w, b))


def test_linear_op_errors_name_the_op():
    with pytest.raises(ValueError, match=r"linear: argument 'x' expected a last dimension of 4"):
        eager.linear(eager.ones([2, 3]), eager.ones([4, 2]), None)
    with pytest.raises(ValueError, match=r"linear: argument 'bias' expected paddle.float32\[2\]"):
        eager.linear(eager.ones([2, 4]), eager.ones([4, 2]), eager.ones([3]))


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 2, 3, 4), (2, 0, 4)])
@pytest.mark.parametrize("contiguous", [True, False])
def test_linear_kernels_fold_leading_dimensions(rng, shape, contiguous):
    # Inputs of three or more dimensions run as one [rows, k] GEMM when they are
    # C-contiguous (a transposed view takes matmul's batched path): float64
    # values as an einsum reference, shapes kept, into= written and returned.
    x = rng.standard_normal(shape)
    if not contiguous:
        x = np.ascontiguousarray(np.swapaxes(x, 0, 1)).swapaxes(0, 1)
    assert x.flags.c_contiguous == contiguous or x.size == 0
    w, b = rng.standard_normal((4, 5)), rng.standard_normal(5)
    out = fused_kernels.linear(CPU_CONTEXT, x, w, b)
    assert out.shape == shape[:-1] + (5,)
    np.testing.assert_allclose(out, np.einsum("...k,kn->...n", x, w) + b, rtol=1e-12, atol=1e-12)
    g = rng.standard_normal(out.shape)
    x_grad, w_grad, b_grad = fused_kernels.linear_grad(CPU_CONTEXT, x, w, g)
    np.testing.assert_allclose(x_grad, np.einsum("...n,kn->...k", g, w), rtol=1e-12, atol=1e-12)
    lead = tuple(range(len(shape) - 1))
    np.testing.assert_allclose(w_grad, np.tensordot(x, g, axes=(lead, lead)), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b_grad, g.reshape(-1, 5).sum(axis=0), rtol=1e-12, atol=1e-12)
    into = (np.full(shape, np.nan), np.full((4, 5), np.nan), np.full(5, np.nan))
    written = fused_kernels.linear_grad(CPU_CONTEXT, x, w, g, into=into)
    for buffer, result, want in zip(into, written, (x_grad, w_grad, b_grad)):
        assert result is buffer
        assert result.tobytes() == want.tobytes()  # into= gives the same bits


# -- the cross-entropy fast path -------------------------------------------------------

def ref_cross_entropy(logits, labels, ignore_index=-100, reduction="mean"):
    """Loss and d loss / d logits, row by row (classes last)."""
    classes = logits.shape[-1]
    rows, flat = logits.reshape(-1, classes).astype(np.float64), labels.reshape(-1)
    counted = [i for i, label in enumerate(flat) if label != ignore_index]
    scale = 1.0 / max(len(counted), 1) if reduction == "mean" else 1.0
    loss, grad = 0.0, np.zeros(rows.shape)
    for i in counted:
        p = np.exp(rows[i] - rows[i].max())
        p /= p.sum()
        loss += -np.log(p[flat[i]]) * scale
        grad[i] = p * scale
        grad[i, flat[i]] -= scale
    return loss, grad.reshape(logits.shape)


CE_CASES = [
    ((8, 5), (8,), {}),
    ((8, 5), (8, 1), {"reduction": "sum"}),
    ((2, 3, 4), (2, 3), {}),
    ((6, 3), (6,), {"ignore_index": 1}),
    ((6, 3), (6, 1), {"ignore_index": 2, "reduction": "sum"}),
]


@pytest.mark.parametrize("logits_shape, label_shape, kwargs", CE_CASES)
def test_cross_entropy_common_case_is_one_fused_node(rng, logits_shape, label_shape, kwargs):
    logits = rng.standard_normal(logits_shape)
    labels = rng.integers(0, logits_shape[-1], label_shape)
    if "ignore_index" not in kwargs:
        labels.reshape(-1)[::3] = -100                # Paddle's default ignore_index
    x = leaf(logits)
    loss = F.cross_entropy(x, eager.to_tensor(labels), **kwargs)
    assert loss.grad_node.forward_op == "fused_softmax_cross_entropy" and loss.shape == []
    want_loss, want_grad = ref_cross_entropy(logits, labels, **kwargs)
    np.testing.assert_allclose(loss.numpy(), want_loss, rtol=1e-12)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), want_grad, rtol=1e-12, atol=1e-15)


def test_fused_cross_entropy_backward_twice_keeps_the_saved_softmax(rng):
    # The backward writes into a fresh buffer, never into the softmax it saved.
    logits, labels = rng.standard_normal((5, 4)), rng.integers(0, 4, 5)
    x = leaf(logits)
    loss = F.cross_entropy(x, eager.to_tensor(labels))
    loss.backward(retain_graph=True)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * ref_cross_entropy(logits, labels)[1], rtol=1e-12, atol=1e-15)


def test_cross_entropy_loss_layer_takes_the_fast_path(rng):
    logits, labels = rng.standard_normal((4, 3)).astype("float32"), rng.integers(0, 3, (4, 1))
    loss = nn.CrossEntropyLoss()(leaf(logits), eager.to_tensor(labels))
    assert loss.grad_node.forward_op == "fused_softmax_cross_entropy"
    np.testing.assert_allclose(loss.numpy(), ref_cross_entropy(logits, labels)[0], rtol=1e-6)


def test_other_cross_entropy_options_keep_the_general_path(rng):
    x, labels = leaf(rng.standard_normal((4, 3))), eager.to_tensor(rng.integers(0, 3, 4))
    for kwargs in ({"reduction": "none"}, {"weight": eager.ones([3], "float64")}, {"label_smoothing": 0.1}):
        assert F.cross_entropy(x, labels, **kwargs).grad_node.forward_op != "fused_softmax_cross_entropy"
    # weight of ones is the same loss, computed the general way
    np.testing.assert_allclose(F.cross_entropy(x, labels).numpy(),
                               F.cross_entropy(x, labels, weight=eager.ones([3], "float64")).numpy(), rtol=1e-12)


def test_every_row_ignored_gives_zero_loss_and_gradient():
    for reduction in ("mean", "sum"):
        x = leaf(np.arange(6.0).reshape(2, 3))
        loss = F.cross_entropy(x, eager.to_tensor(np.array([-100, -100])), reduction=reduction)
        loss.backward()
        assert loss.item() == 0.0 and not x.grad.numpy().any()


def test_masked_logits_stay_finite_on_the_fast_path():
    x = leaf(np.array([[2.0, -np.inf, 0.5], [-np.inf, 1.0, 0.0]]))
    loss = F.cross_entropy(x, eager.to_tensor(np.array([0, 2])))
    loss.backward()
    assert np.isfinite(loss.item()) and np.isfinite(x.grad.numpy()).all()
    assert x.grad.numpy()[0, 1] == 0 and x.grad.numpy()[1, 0] == 0


def test_label_out_of_range_raises_and_leaves_gradients_alone():
    x = leaf(np.zeros((2, 3)))
    F.cross_entropy(x, eager.to_tensor(np.array([0, 1]))).backward()
    before = x.grad.numpy().copy()
    for bad in (3, -1):
        with pytest.raises(ValueError, match=rf"cross_entropy: argument 'label' expected class indices in "
                                             rf"\[0, 3\) or ignore_index -100, got {bad}"):
            F.cross_entropy(x, eager.to_tensor(np.array([0, bad])))
    np.testing.assert_array_equal(x.grad.numpy(), before)


def test_fused_cross_entropy_second_derivative():
    labels = eager.to_tensor(np.array([1, -100, 2, 0]))
    x = leaf(np.random.default_rng(3).standard_normal((4, 3)))
    assert gradgradcheck(lambda t: F.cross_entropy(t, labels), (x,))


@pytest.mark.parametrize("with_softmax_grad", [False, True])
def test_fused_cross_entropy_grad_composite_rule_matches_kernel(rng, with_softmax_grad):
    labels = eager.to_tensor(np.array([1, -100, 2, 0, 2]))
    raw = np.exp(rng.standard_normal((5, 3)))
    softmax = eager.to_tensor(raw / raw.sum(axis=1, keepdims=True))
    softmax_grad = eager.to_tensor(rng.standard_normal((5, 3))) if with_softmax_grad else None
    loss_grad = eager.to_tensor(np.array(0.7))
    for reduction in ("mean", "sum"):
        kernel = eager.ops.fused_softmax_cross_entropy_grad(labels, softmax, softmax_grad, loss_grad, -100, reduction)
        rule = eager.composite.fused_softmax_cross_entropy_grad(labels, softmax, softmax_grad, loss_grad, -100,
                                                                reduction)
        np.testing.assert_allclose(rule.numpy(), kernel.numpy(), rtol=1e-12, atol=1e-15)


def test_fused_cross_entropy_against_torch(rng):
    torch = pytest.importorskip("torch")
    logits, labels = rng.standard_normal((7, 4)), rng.integers(0, 4, 7)
    labels[2] = -100
    x, t = leaf(logits), torch.tensor(logits, requires_grad=True)
    ours = F.cross_entropy(x, eager.to_tensor(labels))
    theirs = torch.nn.functional.cross_entropy(t, torch.tensor(labels))
    ours.backward()
    theirs.backward()
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-14)


# -- the GPU code paths, on the GPU's array module ----------------------------------------

def _to_device(array):
    return get_gpu_context().from_host(array)


def _to_host(value):
    if isinstance(value, tuple):
        return tuple(_to_host(v) for v in value)
    return None if value is None else get_gpu_context().to_host(value)


def _transfers() -> int:
    """Device-to-host copies so far (the fake counts them; real CuPy does not: 0)."""
    return getattr(get_gpu_context().xp, "transfers", [0])[0]


def _both(kernel, *args):
    """kernel's results on the CPU and on the GPU; the GPU call must not read
    anything back to the host (a synchronisation on a real device)."""
    cpu = kernel(CPU_CONTEXT, *args)
    device_args = [_to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    before = _transfers()
    device = kernel(get_gpu_context(), *device_args)
    assert _transfers() == before, f"{kernel.__name__} read a device value back to the host"
    return cpu, _to_host(device)


def _assert_same(cpu, device):
    cpu, device = (cpu, device) if isinstance(cpu, tuple) else ((cpu,), (device,))
    for c, d in zip(cpu, device):
        if c is None:
            assert d is None
            continue
        assert d.dtype == c.dtype and d.shape == c.shape
        np.testing.assert_allclose(d, c, rtol=1e-12, atol=1e-15)


def _loss_kernel_calls(rng):
    logits = rng.standard_normal((6, 4))
    labels = rng.integers(0, 4, 6)
    labels[1] = -100
    kept = labels[:, None]
    kept2 = np.where(kept < 0, 2, kept)   # rows to ignore with ignore_index 2
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    soft = rng.dirichlet(np.ones(4), 6)
    g_rows, g0 = rng.standard_normal((6, 1)), np.asarray(0.5)
    unit = rng.uniform(0.1, 0.9, (6, 4))
    k = loss_kernels
    ctc_logits = rng.standard_normal((5, 2, 3))
    ctc_label, ctc_lengths, ctc_label_lengths = np.array([[1, 2], [1, 0]]), np.array([5, 4]), np.array([2, 1])
    return [
        (k.softmax, logits, 1), (k.log_softmax, logits, 1),
        (k.softmax_grad, p, logits, 1), (k.log_softmax_grad, np.log(p), logits, 1),
        (k.cross_entropy_with_softmax, logits, kept, False, True, True, -100, 1),
        (k.cross_entropy_with_softmax, logits, soft, True, True, True, -100, 1),
        (k.cross_entropy_with_softmax, p, kept, False, False, True, -100, 1),
        (k.cross_entropy_with_softmax_grad, kept, p, None, g_rows, False, True, True, -100, 1),
        (k.cross_entropy_with_softmax_grad, kept, p, logits, g_rows, False, True, True, -100, 1),
        (k.cross_entropy_with_softmax_grad, soft, p, None, g_rows, True, True, True, -100, 1),
        (k.cross_entropy_with_softmax_grad, kept, p, None, g_rows, False, False, True, -100, 1),
        (k.sigmoid_cross_entropy_with_logits, logits, unit, None, True, -100),
        (k.sigmoid_cross_entropy_with_logits, logits, unit, unit + 1, False, -100),
        (k.sigmoid_cross_entropy_with_logits_grad, logits, unit, None, logits, True, -100),
        (k.one_hot, np.abs(labels), 101),
        (k.bce_loss, unit, soft), (k.bce_loss_grad, unit, soft, logits),
        (k.nll_loss, np.log(p), labels, None, -100), (k.nll_loss, np.log(p), labels, unit[0], -100),
        (k.nll_loss_grad, np.log(p), labels, unit[0], logits[:, 0], -100),
        (k.warpctc, ctc_logits, ctc_label, ctc_lengths, ctc_label_lengths, 0, False),
        (k.warpctc_grad, ctc_logits, ctc_label, ctc_lengths, ctc_label_lengths, np.ones(2), 0, True),
        (k.fused_softmax_cross_entropy, logits, labels, -100, "mean"),
        (k.fused_softmax_cross_entropy, logits, kept2, 2, "sum"),
        (k.fused_softmax_cross_entropy_grad, labels, p, None, g0, -100, "mean"),
        (k.fused_softmax_cross_entropy_grad, kept2, p, logits, g0, 2, "sum"),
        (fused_kernels.linear, logits, unit.T, logits[:, 0]),
        (fused_kernels.linear_grad, logits, unit.T, rng.standard_normal((6, 6))),
        (fused_kernels.linear, logits.reshape(2, 3, 4), unit.T, logits[:, 0]),  # leading dimensions folded
        (fused_kernels.linear_grad, logits.reshape(2, 3, 4), unit.T, rng.standard_normal((2, 3, 6))),
    ]


def test_loss_kernels_run_on_the_device_without_host_syncs(rng):
    for kernel, *args in _loss_kernel_calls(rng):
        cpu, device = _both(kernel, *args)
        _assert_same(cpu, device)


def test_fused_cross_entropy_on_the_device_marks_out_of_range_labels_nan():
    # On a GPU the range is not read back: the bad row makes the loss (and its
    # gradient row) NaN instead, which anomaly mode reports.
    gpu = get_gpu_context()
    logits, labels = _to_device(np.zeros((3, 4))), _to_device(np.array([0, 7, -100]))
    softmax, loss = _to_host(loss_kernels.fused_softmax_cross_entropy(gpu, logits, labels, -100, "mean"))
    assert np.isnan(loss)
    grad = _to_host(loss_kernels.fused_softmax_cross_entropy_grad(
        gpu, labels, _to_device(softmax), None, _to_device(np.asarray(1.0)), -100, "mean"))
    assert np.isnan(grad[1]).all() and np.isfinite(grad[[0, 2]]).all()
