"""The fused softmax / cross-entropy kernels behind eager.nn.functional, against
PyTorch: every option of cross_entropy, masked (-inf) logits, and the
sigmoid cross entropy with pos_weight."""
import numpy as np
import pytest

import eager
import eager.nn.functional as F
from torch_reference import needs_torch, torch

pytestmark = pytest.mark.usefixtures("device")

TF = torch.nn.functional if torch is not None else None
rng = np.random.default_rng(11)


def pair(array):
    """The same values as an eager leaf and a torch leaf."""
    return (eager.to_tensor(array, stop_gradient=False),
            torch.tensor(array, requires_grad=True))


def check(ours, theirs, a, b, rtol=1e-6):
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=rtol, atol=1e-10)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("with_weight", [False, True])
@pytest.mark.parametrize("with_ignore", [False, True])
def test_hard_labels_against_torch(reduction, with_weight, with_ignore):
    logits = rng.normal(size=(6, 5))
    labels = rng.integers(0, 5, 6)
    if with_ignore:
        labels[[1, 4]] = -100
    weight = rng.uniform(0.5, 2.0, 5) if with_weight else None
    a, b = pair(logits)
    ours = F.cross_entropy(a, eager.to_tensor(labels), reduction=reduction,
                           weight=None if weight is None else eager.to_tensor(weight))
    theirs = TF.cross_entropy(b, torch.tensor(labels), reduction=reduction,
                              weight=None if weight is None else torch.tensor(weight))
    check(ours, theirs, a, b)


@needs_torch
def test_class_axis_not_last_against_torch():
    logits = rng.normal(size=(2, 4, 3))          # classes on axis 1, as torch takes them
    labels = rng.integers(0, 4, (2, 3))
    a, b = pair(logits)
    check(F.cross_entropy(a, eager.to_tensor(labels), axis=1, reduction="none"),
          TF.cross_entropy(b, torch.tensor(labels), reduction="none"), a, b)


@needs_torch
def test_soft_labels_against_torch():
    logits = rng.normal(size=(4, 3))
    target = rng.dirichlet(np.ones(3), 4)
    a, b = pair(logits)
    check(F.cross_entropy(a, eager.to_tensor(target), soft_label=True),
          TF.cross_entropy(b, torch.tensor(target)), a, b)


@needs_torch
def test_masked_logits_give_finite_loss_and_gradients():
    logits = rng.normal(size=(3, 5))
    logits[0, [1, 3]] = -np.inf                   # masked vocabulary entries
    logits[2, 0] = -np.inf
    labels = np.array([0, 4, 2])
    a, b = pair(logits)
    ours = F.cross_entropy(a, eager.to_tensor(labels), reduction="none")
    assert np.isfinite(ours.numpy()).all()
    check(ours, TF.cross_entropy(b, torch.tensor(labels), reduction="none"), a, b)
    assert np.isfinite(a.grad.numpy()).all() and (a.grad.numpy()[0, [1, 3]] == 0).all()


def test_soft_labels_with_masked_logits_stay_finite():
    logits = np.array([[1.0, -np.inf, 0.5]])
    target = np.array([[0.7, 0.0, 0.3]])
    a = eager.to_tensor(logits, stop_gradient=False)
    loss = F.cross_entropy(a, eager.to_tensor(target), soft_label=True)
    loss.backward()
    assert np.isfinite(loss.numpy()) and np.isfinite(a.grad.numpy()).all()


def test_every_label_ignored_gives_zero():
    a = eager.to_tensor(rng.normal(size=(2, 3)), stop_gradient=False)
    loss = F.cross_entropy(a, eager.to_tensor(np.array([-100, -100])))
    loss.backward()
    assert loss.item() == 0.0 and not a.grad.numpy().any()


def test_second_derivative_of_cross_entropy_matches_finite_differences():
    labels = eager.to_tensor(np.array([1, 0, 2]))
    assert eager.autograd.gradgradcheck(lambda x: F.cross_entropy(x, labels, reduction="sum"),
                                        (eager.to_tensor(rng.normal(size=(3, 4)), stop_gradient=False),))


@needs_torch
@pytest.mark.parametrize("with_pos_weight", [False, True])
def test_binary_cross_entropy_with_logits_against_torch(with_pos_weight):
    logits = rng.normal(size=(4, 3)) * 30         # large magnitudes: no overflow
    target = rng.uniform(0, 1, (4, 3))
    pos_weight = rng.uniform(0.5, 3.0, 3) if with_pos_weight else None
    a, b = pair(logits)
    ours = F.binary_cross_entropy_with_logits(
        a, eager.to_tensor(target), reduction="none",
        pos_weight=None if pos_weight is None else eager.to_tensor(pos_weight))
    theirs = TF.binary_cross_entropy_with_logits(
        b, torch.tensor(target), reduction="none",
        pos_weight=None if pos_weight is None else torch.tensor(pos_weight))
    check(ours, theirs, a, b)


@needs_torch
def test_softmax_and_log_softmax_against_torch():
    x = rng.normal(size=(3, 4)) * 50
    for ours_fn, theirs_fn in ((F.softmax, TF.softmax), (F.log_softmax, TF.log_softmax)):
        a, b = pair(x)
        weight = rng.normal(size=(3, 4))
        check(ours_fn(a, axis=0) * eager.to_tensor(weight), theirs_fn(b, dim=0) * torch.tensor(weight), a, b)


def test_nn_functional_reads_no_arrays():
    import inspect

    source = inspect.getsource(F)
    assert "impl.array" not in source and "DenseTensor" not in source
