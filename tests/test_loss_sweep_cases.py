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
