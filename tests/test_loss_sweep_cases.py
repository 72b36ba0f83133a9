"""Regression cases found by a differential sweep of the losses and norms
against PyTorch (random shapes, keywords, reductions, float64 data): each is
checked here against a reference loop written from the formula (Paddle's
semantics) and, for gradients, by finite differences in float64."""
import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck

pytestmark = pytest.mark.usefixtures("device")

rng = np.random.default_rng(14)


def t(array, grad=False):
    return eager.to_tensor(np.asarray(array), stop_gradient=not grad)


def smoothed_cross_entropy_loop(x, labels, epsilon, ignore_index, axis):
    """Per-sample loss of cross_entropy(label_smoothing=epsilon) by a direct loop:
    the target (1 - eps) onehot + eps / C, an ignored sample 0; classes on ``axis``."""
    x = np.moveaxis(x, axis, -1)
    classes = x.shape[-1]
    loss = np.zeros(labels.shape)
    for index in np.ndindex(*labels.shape):
        label = labels[index]
        if label == ignore_index:
            continue
        row = x[index]
        top = max(row)
        log_sum = top + np.log(sum(np.exp(v - top) for v in row))
        for k in range(classes):
            target = (1.0 - epsilon) * (k == label) + epsilon / classes
            loss[index] -= target * (row[k] - log_sum)
    return loss


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("axis", [-1, 0])
@pytest.mark.parametrize("use_softmax", [True, False])
def test_cross_entropy_label_smoothing_ignored_samples_get_no_gradient(reduction, axis, use_softmax):
    # The smoothed target of an ignored sample is all zeros, and the soft-label
    # kernel's gradient (softmax - target, as Paddle's) left it at softmax: the
    # loss was right, the gradient of the ignored samples was not zero.
    x = rng.normal(size=[4, 3]) if axis == -1 else rng.normal(size=[3, 4])
    if not use_softmax:   # probabilities
        x = np.exp(x) / np.exp(x).sum(axis=axis, keepdims=True)
    labels = np.array([1, 0, 2, 0])
    ignore, epsilon = 0, 0.3
    logits = np.log(x) if not use_softmax else x
    per_sample = smoothed_cross_entropy_loop(logits, labels, epsilon, ignore, axis)
    want = {"none": per_sample, "sum": per_sample.sum(),
            "mean": per_sample.sum() / np.count_nonzero(labels != ignore)}[reduction]

    def loss(a):
        return F.cross_entropy(a, t(labels), ignore_index=ignore, reduction=reduction, axis=axis,
                               use_softmax=use_softmax, label_smoothing=epsilon)

    np.testing.assert_allclose(loss(t(x)).numpy(), want, rtol=1e-12, atol=1e-12)
    assert gradcheck(loss, (t(x, True),))
    xe = t(x, True)
    out = loss(xe)
    (grad,) = eager.autograd.grad([out], [xe], [t(np.ones(out.shape))])
    ignored = np.take(grad.numpy(), np.flatnonzero(labels == ignore), axis=1 - (axis % 2))
    assert ignored.shape[0] and not ignored.any()


def nll_loop(x, labels, weight, ignore_index):
    """Per-element nll_loss and the weight each counts with, by a direct loop (classes on axis 1)."""
    loss, counted = np.zeros(labels.shape), np.zeros(labels.shape)
    for index in np.ndindex(*labels.shape):
        label = labels[index]
        if label == ignore_index:
            continue
        w = 1.0 if weight is None else weight[label]
        loss[index] = -w * x[(index[0], label) + index[1:]]
        counted[index] = w
    return loss, counted


@pytest.mark.parametrize("shape", [[2, 0], [0, 3], [3, 0, 2], [2, 3, 0], [0, 0]])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_empty_and_classless_inputs(shape, reduction, weighted):
    # No class (every label then must be ignore_index) died inside NumPy (an index of
    # -1 into an empty axis); empty labels with a weight failed in reshape, which
    # reads a 0 in the target shape as "keep x's dimension" (Paddle's rule).
    classes = shape[1]
    labels = np.zeros([shape[0]] + shape[2:], dtype=np.int64)   # 0 is ignore_index, in range or not
    x = rng.normal(size=shape)
    weight = rng.uniform(0.5, 2.0, size=[classes]) if weighted else None
    loss, counted = nll_loop(x, labels, weight, 0)
    want = {"none": loss, "sum": loss.sum(), "mean": loss.sum() / counted.sum() if counted.sum() else 0.0}[reduction]
    xe = t(x, True)
    out = F.nll_loss(xe, t(labels), None if weight is None else t(weight), ignore_index=0, reduction=reduction)
    assert out.shape == list(np.shape(want))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12, atol=0)
    (grad,) = eager.autograd.grad([out], [xe], [t(np.ones(out.shape))])
    assert grad.shape == shape and not grad.numpy().any()


def test_nll_loss_counted_labels_next_to_empty_ones_keep_their_gradient():
    x, labels, weight = rng.normal(size=[3, 4, 2]), np.array([[1, 0], [3, 3], [0, 2]]), rng.uniform(0.5, 2, [4])
    loss, counted = nll_loop(x, labels, weight, 0)
    out = F.nll_loss(t(x), t(labels), t(weight), ignore_index=0)
    np.testing.assert_allclose(out.numpy(), loss.sum() / counted.sum(), rtol=1e-12)
    assert gradcheck(lambda a: F.nll_loss(a, t(labels), t(weight), ignore_index=0), (t(x, True),))


@pytest.mark.parametrize("shape, axis", [([0, 3], -1), ([0, 2, 3], 1), ([4, 2, 0], 1), ([3, 0], 0)])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_weighted_empty_batches(shape, axis, smoothing, reduction):
    # The weight, reshaped to broadcast along axis, and the per-sample weights went
    # through reshape with 0 in the target shape: "copy x's dimension there" failed.
    classes = shape[axis]
    dropped = [d for i, d in enumerate(shape) if i != axis % len(shape)]
    labels = np.zeros(dropped, dtype=np.int64)
    xe = t(rng.normal(size=shape), True)
    out = F.cross_entropy(xe, t(labels), weight=t(rng.uniform(0.5, 2, [classes])), axis=axis,
                          reduction=reduction, label_smoothing=smoothing)
    assert out.shape == (dropped if reduction == "none" else [])
    assert not out.numpy().any()
    (grad,) = eager.autograd.grad([out], [xe], [t(np.ones(out.shape))])
    assert grad.shape == shape


@pytest.mark.parametrize("kwargs", [{}, {"label_smoothing": 0.1}, {"soft_label": True}, {"axis": 0}])
def test_cross_entropy_without_classes_names_input(kwargs):
    # Smoothing over no class divided by zero in Python (ZeroDivisionError), or one_hot
    # complained of its own 'num_classes'; the fused op's error named its 'logits'.
    x = t(np.zeros([3, 0]) if kwargs.get("axis") is None else np.zeros([0, 3]))
    label = x if kwargs.get("soft_label") else t(np.zeros([3], dtype=np.int64))
    with pytest.raises(ValueError, match=r"^cross_entropy: argument 'input' expected .*at least one class"):
        F.cross_entropy(x, label, **kwargs)


@pytest.mark.parametrize("pos_weight_shape", [[2], [3, 4, 1], [4, 1], [1, 4, 1]])
def test_bce_with_logits_pos_weight_that_does_not_broadcast(pos_weight_shape):
    # Died in expand with the op's message; now names the function and the argument.
    logit, label = t(np.zeros([3, 4])), t(np.zeros([3, 4]))
    with pytest.raises(ValueError, match=r"^binary_cross_entropy_with_logits: argument 'pos_weight' of shape "
                                         rf"\[{', '.join(map(str, pos_weight_shape))}\] expected to broadcast"):
        F.binary_cross_entropy_with_logits(logit, label, pos_weight=t(np.ones(pos_weight_shape)))


@pytest.mark.parametrize("pos_weight_shape", [[4], [1, 4], [3, 1], []])
def test_bce_with_logits_pos_weight_broadcasts(pos_weight_shape):
    x, z, p = rng.normal(size=[3, 4]), rng.uniform(size=[3, 4]), rng.uniform(0.5, 2.0, size=pos_weight_shape)
    pb = np.broadcast_to(p, [3, 4])
    want = np.mean([(1 - z[i, j]) * x[i, j] + (1 + (pb[i, j] - 1) * z[i, j]) * np.log1p(np.exp(-x[i, j]))
                    for i in range(3) for j in range(4)])
    loss = F.binary_cross_entropy_with_logits(t(x), t(z), pos_weight=t(p))
    np.testing.assert_allclose(loss.numpy(), want, rtol=1e-12)
    assert gradcheck(lambda a: F.binary_cross_entropy_with_logits(a, t(z), pos_weight=t(p)), (t(x, True),))


@pytest.mark.parametrize("margin", [-1.0, -1e-9])
def test_triplet_margin_loss_rejects_a_negative_margin(margin):
    # Paddle raises for margin < 0 (as triplet_margin_with_distance_loss here did); this accepted it.
    x = t(np.zeros([2, 3]))
    with pytest.raises(ValueError, match=r"^triplet_margin_loss: argument 'margin' expected a number >= 0"):
        F.triplet_margin_loss(x, x, x, margin=margin)


def test_triplet_margin_loss_zero_margin_against_a_loop():
    a, p, n = rng.normal(size=[4, 3]), rng.normal(size=[4, 3]), rng.normal(size=[4, 3])
    want = np.mean([max(np.linalg.norm(a[i] - p[i] + 1e-6) - np.linalg.norm(a[i] - n[i] + 1e-6), 0.0)
                    for i in range(4)])
    np.testing.assert_allclose(F.triplet_margin_loss(t(a), t(p), t(n), margin=0.0).numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("ignore_index", [1, 5])
def test_cross_entropy_soft_labels_reject_a_positive_ignore_index(ignore_index):
    # As Paddle: soft labels have no class index to ignore.
    x = t(np.full([2, 3], 1.0 / 3))
    with pytest.raises(ValueError, match=r"^cross_entropy: argument 'ignore_index' expected -100"):
        F.cross_entropy(x, x, soft_label=True, ignore_index=ignore_index)


@pytest.mark.parametrize("shape", [[0], [0, 3], [0, 2, 2]])
def test_kl_div_batchmean_of_an_empty_batch_is_nan(shape):
    # Paddle divides the sum (0) by the batch size (0); this returned 0, while 'mean'
    # of the same empty loss gave NaN.
    x = t(np.zeros(shape), True)
    out = F.kl_div(x, t(np.zeros(shape)), "batchmean")
    assert out.shape == [] and np.isnan(out.numpy())
    (grad,) = eager.autograd.grad([out], [x])
    assert grad.shape == shape


@pytest.mark.parametrize("shape", [[], [1], [3, 2], [2, 3, 4]])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_batchmean_against_a_loop(shape, log_target):
    x = rng.normal(size=shape)
    z = rng.normal(size=shape) if log_target else rng.uniform(size=shape) * (rng.uniform(size=shape) < 0.7)
    total = 0.0
    for index in np.ndindex(*shape):
        if log_target:
            total += np.exp(z[index]) * (z[index] - x[index])
        elif z[index] > 0:
            total += z[index] * (np.log(z[index]) - x[index])
    want = total / shape[0] if shape else total
    np.testing.assert_allclose(F.kl_div(t(x), t(z), "batchmean", log_target).numpy(), want, rtol=1e-12)
    assert gradcheck(lambda a: F.kl_div(a, t(z), "batchmean", log_target), (t(x, True),))
