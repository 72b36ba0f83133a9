"""eager.nn.functional losses and the eager.nn loss layers (issue #10).

Every functional against a NumPy reference written from its formula (Paddle's
semantics), for each reduction; gradients by finite differences in float64;
PyTorch as a second implementation where its function computes the same thing
(skipped without torch); bad input rejected with errors that name the function
and the argument. The fused ops themselves are in the op table
(tests/op_specs/loss.py).
"""
import contextlib
import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck

pytestmark = pytest.mark.usefixtures("device")


def value_checks(device):
    """Checks that read values (label/id ranges, probabilities) run on the CPU always
    and on the GPU only in anomaly mode (no device sync otherwise): turn it on there."""
    return eager.autograd.detect_anomaly() if device == "gpu" else contextlib.nullcontext()

rng = np.random.default_rng(10)


def t(array, grad=False):
    return eager.to_tensor(np.asarray(array), stop_gradient=not grad)


def reduce(loss, reduction):
    return {"none": loss, "mean": np.mean(loss), "sum": np.sum(loss)}[reduction]


def close(got, want, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(np.asarray(got.numpy() if hasattr(got, "numpy") else got), want,
                               rtol=rtol, atol=atol)


def softplus(x):
    return np.logaddexp(0.0, x)


def log_softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


# -- cross_entropy ---------------------------------------------------------------

def ref_cross_entropy(x, labels, weight=None, ignore_index=-100, reduction="mean", smoothing=0.0, axis=-1,
                      use_softmax=True, soft=False):
    """Paddle's rule: a (smoothed) target distribution; the sample's weight is
    sum_k target_k w_k; the mean divides by the summed sample weights."""
    x = np.moveaxis(x, axis, -1)
    classes = x.shape[-1]
    log_p = log_softmax(x) if use_softmax else np.log(x)
    if soft:
        target = np.moveaxis(labels, axis, -1)
        valid = np.ones(target.shape[:-1])
    else:
        valid = (labels != ignore_index).astype(float)
        target = np.eye(classes)[np.where(labels == ignore_index, 0, labels)] * valid[..., None]
    if smoothing:
        target = ((1 - smoothing) * target + smoothing / classes) * (valid[..., None] if not soft else 1)
    loss = -(target * log_p).sum(-1)
    if weight is None:
        sample_weight = valid
    else:
        if soft or smoothing:
            sample_weight = (target * weight).sum(-1)
        else:
            sample_weight = weight[np.where(valid > 0, labels, 0)] * valid
        loss = loss * sample_weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if weight is None and soft:
        return loss.mean()
    return loss.sum() / max(sample_weight.sum(), np.finfo(float).tiny)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("with_weight", [False, True])
def test_cross_entropy_hard_labels(reduction, smoothing, with_weight):
    x = rng.normal(size=(6, 5))
    labels = rng.integers(0, 5, 6)
    labels[[1, 4]] = -100
    weight = rng.uniform(0.5, 2.0, 5) if with_weight else None
    got = F.cross_entropy(t(x), t(labels), weight=None if weight is None else t(weight), reduction=reduction,
                          label_smoothing=smoothing)
    close(got, ref_cross_entropy(x, labels, weight, reduction=reduction, smoothing=smoothing))
    assert got.shape == ([6] if reduction == "none" else [])


@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_cross_entropy_soft_labels_axis_and_probabilities(smoothing):
    x = rng.normal(size=(2, 4, 3))
    target = rng.dirichlet(np.ones(4), (2, 3)).transpose(0, 2, 1)  # classes on axis 1
    weight = rng.uniform(0.5, 2.0, 4)
    got = F.cross_entropy(t(x), t(target), weight=t(weight), soft_label=True, axis=1, label_smoothing=smoothing)
    close(got, ref_cross_entropy(x, target, weight, smoothing=smoothing, axis=1, soft=True))
    got = F.cross_entropy(t(x), t(target), weight=t(weight), soft_label=True, axis=1, reduction="none")
    assert got.shape == [2, 1, 3]      # the class axis kept, of size 1, as Paddle
    close(got[:, 0], ref_cross_entropy(x, target, weight, reduction="none", axis=1, soft=True))
    probs = np.exp(log_softmax(x, 1))
    labels = rng.integers(0, 4, (2, 1, 3))                          # class axis kept, size 1
    got = F.cross_entropy(t(probs), t(labels), axis=1, use_softmax=False, reduction="sum", label_smoothing=smoothing)
    close(got, ref_cross_entropy(probs, labels[:, 0], axis=1, use_softmax=False, reduction="sum",
                                 smoothing=smoothing))


def test_cross_entropy_label_with_trailing_one_and_gradients():
    x = rng.normal(size=(4, 3))
    labels = rng.integers(0, 3, (4, 1))
    weight = t(rng.uniform(0.5, 2.0, 3))
    close(F.cross_entropy(t(x), t(labels), reduction="none"),
          ref_cross_entropy(x, labels[:, 0], reduction="none")[:, None])
    for smoothing in (0.0, 0.1):
        assert gradcheck(lambda a: F.cross_entropy(a, t(labels[:, 0]), weight=weight, label_smoothing=smoothing),
                         (t(x, True),))


@pytest.mark.parametrize("label_dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_cross_entropy_common_case_is_one_op_for_every_integer_label(label_dtype, device):
    """Hard labels of any integer dtype, [N] or [N, 1], classes last, take the one
    fused op (read from the arrays in line); its label error names cross_entropy;
    float labels, another class axis or a 0-d input take the general path, which
    takes uint8 labels with the default ignore_index -100 too."""
    x = rng.normal(size=(6, 4))
    labels = rng.integers(0, 4, 6)
    for shaped in (labels, labels[:, None]):
        loss = F.cross_entropy(t(x, True), t(shaped.astype(label_dtype)))
        assert loss.grad_node.forward_op == "fused_softmax_cross_entropy"
        close(loss, ref_cross_entropy(x, labels))
    wrong = labels.copy()
    wrong[2] = 4
    with value_checks(device), pytest.raises(ValueError, match=r"^cross_entropy: argument 'label' .*got 4"):
        F.cross_entropy(t(x, True), t(wrong.astype(label_dtype)))
    with pytest.raises(TypeError, match="cross_entropy: argument 'label' expected an integer Tensor"):
        F.cross_entropy(t(x, True), t(labels.astype("float64")))
    general = F.cross_entropy(t(x.T, True), t(labels.astype(label_dtype)), axis=0)  # (-100: no uint8 label)
    assert general.grad_node.forward_op != "fused_softmax_cross_entropy"
    close(general, ref_cross_entropy(x, labels))
    with pytest.raises(ValueError, match="cross_entropy: argument 'input' expected at least 1 dimension"):
        F.cross_entropy(t(np.float64(1.0), True), t(np.int64(0)))


def test_cross_entropy_masked_logit_gives_no_nan():
    x = t(np.array([[2.0, 0.5, -np.inf], [-np.inf, 1.0, 0.0]]), grad=True)
    loss = F.cross_entropy(x, t([0, 1]))
    loss.backward()
    assert np.isfinite(loss.numpy()) and np.isfinite(x.grad.numpy()).all()
    assert x.grad.numpy()[0, 2] == 0 and x.grad.numpy()[1, 0] == 0
    # Smoothing puts mass on the masked class: the loss is honestly infinite, never NaN.
    x.clear_grad()
    smoothed = F.cross_entropy(x, t([0, 1]), label_smoothing=0.1)
    smoothed.backward()
    assert np.isinf(smoothed.numpy()) and not np.isnan(x.grad.numpy()).any()


def test_cross_entropy_against_torch_label_smoothing():
    torch = pytest.importorskip("torch")
    x = rng.normal(size=(5, 4))
    labels = rng.integers(0, 4, 5)
    a, b = t(x, True), torch.tensor(x, requires_grad=True)
    ours = F.cross_entropy(a, t(labels), label_smoothing=0.25)
    theirs = torch.nn.functional.cross_entropy(b, torch.tensor(labels), label_smoothing=0.25)
    ours.backward()
    theirs.backward()
    close(ours, theirs.item())
    close(a.grad, b.grad.numpy())


@pytest.mark.parametrize("call, error, text", [
    (lambda x: F.cross_entropy(x, t(np.array([0.0, 1.0]))), TypeError, "integer Tensor"),
    (lambda x: F.cross_entropy(x, t(np.array([0, 1, 2]))), ValueError, "expected shape"),
    (lambda x: F.cross_entropy(x, t(np.array([0, 7]))), ValueError, "cross_entropy: argument 'label'"),
    (lambda x: F.cross_entropy(x, t(np.array([0, 7])), label_smoothing=0.1), ValueError, "cross_entropy: "),
    (lambda x: F.cross_entropy(x, t(np.array([0, 1])), reduction="avg"), ValueError, "reduction"),
    (lambda x: F.cross_entropy(x, t(np.array([0, 1])), label_smoothing=1.5), ValueError, "label_smoothing"),
])
def test_cross_entropy_errors(call, error, text, device):
    x = t(rng.normal(size=(2, 3)))
    before = x.numpy().copy()
    with value_checks(device), pytest.raises(error, match=text):
        call(x)
    np.testing.assert_array_equal(x.numpy(), before)


# -- nll_loss ----------------------------------------------------------------------

def ref_nll(x, labels, weight=None, ignore_index=-100, reduction="mean"):
    x = np.moveaxis(x, 1, -1)
    valid = labels != ignore_index
    safe = np.where(valid, labels, 0)
    w = (np.ones(x.shape[-1]) if weight is None else weight)[safe] * valid
    loss = -np.take_along_axis(x, safe[..., None], -1)[..., 0] * w
    return loss.sum() / w.sum() if reduction == "mean" else reduce(loss, reduction)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss(reduction):
    x = log_softmax(rng.normal(size=(4, 3, 2)), 1)
    labels = rng.integers(0, 3, (4, 2))
    labels[0, 1] = -100
    weight = rng.uniform(0.5, 2.0, 3)
    close(F.nll_loss(t(x), t(labels), t(weight), reduction=reduction), ref_nll(x, labels, weight, reduction=reduction))
    other = np.where(labels == -100, 2, labels)
    close(F.nll_loss(t(x), t(other), ignore_index=2, reduction=reduction),
          ref_nll(x, other, ignore_index=2, reduction=reduction))
    assert gradcheck(lambda a: F.nll_loss(a, t(labels), t(weight), reduction=reduction), (t(x, True),))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_takes_a_column_of_labels_for_two_dimensional_input(reduction):
    # Paddle's nll_loss checks only the batch size of the label of [N, C] input: [N, 1] is read as [N].
    x = log_softmax(rng.normal(size=(5, 3)))
    labels = rng.integers(0, 3, 5)
    got = F.nll_loss(t(x), t(labels[:, None]), reduction=reduction)
    assert got.shape == ([5] if reduction == "none" else [])
    close(got, ref_nll(x, labels, reduction=reduction))
    assert gradcheck(lambda a: F.nll_loss(a, t(labels[:, None]), reduction=reduction), (t(x, True),))


def test_nll_loss_against_torch():
    torch = pytest.importorskip("torch")
    x = log_softmax(rng.normal(size=(5, 4)))
    labels = rng.integers(0, 4, 5)
    weight = rng.uniform(0.5, 2.0, 4)
    close(F.nll_loss(t(x), t(labels), t(weight)),
          torch.nn.functional.nll_loss(torch.tensor(x), torch.tensor(labels), torch.tensor(weight)).item())


@pytest.mark.parametrize("call, error, text", [
    (lambda x: F.nll_loss(x, t([0.0, 1.0])), TypeError, "nll_loss: argument 'label' expected an integer"),
    (lambda x: F.nll_loss(x, t([[0, 1], [1, 0]])), ValueError, "nll_loss: argument 'label' expected shape"),
    (lambda x: F.nll_loss(x, t([[[0]], [[1]]])), ValueError, "nll_loss: argument 'label' expected shape"),
    (lambda x: F.nll_loss(x, t([0, 3])), ValueError, "nll_loss: argument 'label' expected class indices"),
    (lambda x: F.nll_loss(x, t([0, -1])), ValueError, "nll_loss: argument 'label'"),
    (lambda x: F.nll_loss(x[0], t(0)), ValueError, "at least 2 dimensions"),
    (lambda x: F.nll_loss(x, t([0, 1]), weight=t([1.0, 2.0])), ValueError, "argument 'weight'"),
    (lambda x: F.nll_loss(x, t([0, 1]), reduction="batchmean"), ValueError, "reduction"),
])
def test_nll_loss_errors(call, error, text, device):
    with value_checks(device), pytest.raises(error, match=text):
        call(t(rng.normal(size=(2, 3))))


# -- elementwise losses against NumPy, every reduction, with gradients ---------------

def _bce_ref(x, z, w):
    return -w * (z * np.maximum(np.log(x), -100) + (1 - z) * np.maximum(np.log1p(-x), -100))


def _kl_ref(x, z, log_target):
    if log_target:
        return np.exp(z) * (z - x)
    return np.where(z > 0, z * (np.log(np.where(z > 0, z, 1)) - x), 0)


def _huber_ref(x, z, delta):
    d = np.abs(x - z)
    return np.where(d < delta, 0.5 * d * d, delta * d - 0.5 * delta * delta)


def _poisson_ref(x, z, log_input, full, eps=1e-8):
    loss = np.exp(x) - z * x if log_input else x - z * np.log(x + eps)
    if full:
        safe = np.where(z > 1, z, 1)
        loss = loss + np.where(z > 1, safe * np.log(safe) - safe + 0.5 * np.log(2 * np.pi * safe), 0)
    return loss


def _focal_ref(x, z, alpha, gamma):
    p = 1 / (1 + np.exp(-x))
    p_t = p * z + (1 - p) * (1 - z)
    alpha_t = alpha * z + (1 - alpha) * (1 - z)
    return alpha_t * (1 - p_t) ** gamma * (softplus(x) - z * x)


SHAPE = (4, 3)
U = rng.uniform(0.05, 0.95, SHAPE)                 # probabilities
X = rng.normal(size=SHAPE) * 2
Z = rng.uniform(0, 1, SHAPE)                       # soft 0/1 labels
SIGN = rng.choice([-1.0, 1.0], SHAPE)
W = rng.uniform(0.5, 2.0, (3,))
COUNTS = rng.integers(0, 5, SHAPE).astype(float)

ELEMENTWISE = {
    "binary_cross_entropy": (lambda a, r: F.binary_cross_entropy(a, t(Z), t(W), reduction=r),
                             lambda: _bce_ref(U, Z, W), U),
    "bce_with_logits": (lambda a, r: F.binary_cross_entropy_with_logits(a, t(Z), t(W), r, t(W[::-1].copy())),
                        lambda: W * (1 + (W[::-1] - 1) * Z) * softplus(-X) * 1 + W * (1 - Z) * X, X),
    "smooth_l1_loss": (lambda a, r: F.smooth_l1_loss(a, t(Z), r, delta=0.7), lambda: _huber_ref(X, Z, 0.7), X),
    "kl_div": (lambda a, r: F.kl_div(a, t(np.where(Z > 0.3, Z, 0.0)), r),
               lambda: _kl_ref(X, np.where(Z > 0.3, Z, 0), False), X),
    "kl_div_log_target": (lambda a, r: F.kl_div(a, t(np.log(U)), r, log_target=True),
                          lambda: _kl_ref(X, np.log(U), True), X),
    "margin_ranking_loss": (lambda a, r: F.margin_ranking_loss(a, t(Z), t(SIGN), 0.3, r),
                            lambda: np.maximum(0, -SIGN * (X - Z) + 0.3), X),
    "hinge_embedding_loss": (lambda a, r: F.hinge_embedding_loss(a, t(SIGN), 1.5, r),
                             lambda: np.where(SIGN == 1, X, np.maximum(0, 1.5 - X)), X),
    "soft_margin_loss": (lambda a, r: F.soft_margin_loss(a, t(SIGN), r), lambda: softplus(-SIGN * X), X),
    "sigmoid_focal_loss": (lambda a, r: F.sigmoid_focal_loss(a, t(Z), t([2.0]), 0.3, 1.5, r),
                           lambda: _focal_ref(X, Z, 0.3, 1.5) / 2.0, X),
    "poisson_nll_loss": (lambda a, r: F.poisson_nll_loss(a, t(COUNTS), reduction=r),
                         lambda: _poisson_ref(X, COUNTS, True, False), X),
    "poisson_nll_loss_full": (lambda a, r: F.poisson_nll_loss(a, t(COUNTS), False, True, reduction=r),
                              lambda: _poisson_ref(U, COUNTS, False, True), U),
}


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_losses(name, reduction):
    call, reference, x = ELEMENTWISE[name]
    close(call(t(x), reduction), reduce(reference(), reduction))
    if reduction == "mean":
        assert gradcheck(lambda a: call(a, reduction), (t(x, True),))


def test_kl_div_batchmean():
    close(F.kl_div(t(X), t(Z), "batchmean"), _kl_ref(X, Z, False).sum() / SHAPE[0])


def test_row_losses():
    a, b = rng.normal(size=SHAPE), rng.normal(size=SHAPE)
    labels = np.array([1, -1, 1, -1])
    cos = (a * b).sum(1) / np.sqrt(((a * a).sum(1) + 1e-11) * ((b * b).sum(1) + 1e-11))
    want = np.where(labels == 1, 1 - cos, np.maximum(0, cos - 0.2))
    close(F.cosine_embedding_loss(t(a), t(b), t(labels), 0.2, "none"), want)
    assert gradcheck(lambda x, y: F.cosine_embedding_loss(x, y, t(labels), 0.2), (t(a, True), t(b, True)))
    c = rng.normal(size=SHAPE)
    near = np.linalg.norm(a - b + 1e-6, axis=1)
    far = np.minimum(np.linalg.norm(a - c + 1e-6, axis=1), np.linalg.norm(b - c + 1e-6, axis=1))
    close(F.triplet_margin_loss(t(a), t(b), t(c), swap=True, reduction="none"), np.maximum(near - far + 1.0, 0))
    assert gradcheck(lambda x, y, z: F.triplet_margin_loss(x, y, z, p=3.0, margin=2.0),
                     (t(a, True), t(b, True), t(c, True)))
    weight = rng.uniform(0.5, 2.0, 3)
    want = (weight * (softplus(-X) * Z + softplus(X) * (1 - Z))).mean(1)
    close(F.multi_label_soft_margin_loss(t(X), t(Z), t(weight), "none"), want)
    assert gradcheck(lambda x: F.multi_label_soft_margin_loss(x, t(Z), t(weight)), (t(X, True),))


def test_stable_for_large_logits():
    big = t([-1000.0, 1000.0], grad=True)
    label = t([1.0, 0.0])
    for loss in (F.binary_cross_entropy_with_logits(big, label, reduction="sum"),
                 F.soft_margin_loss(big, t([1.0, -1.0]), "sum"),
                 F.multi_label_soft_margin_loss(big, label, reduction="sum"),
                 F.sigmoid_focal_loss(big, label)):
        big.clear_grad()
        loss.backward()
        assert np.isfinite(loss.numpy()) and np.isfinite(big.grad.numpy()).all()
    close(F.soft_margin_loss(big, t([1.0, -1.0]), "none"), [1000.0, 1000.0])


def test_binary_cross_entropy_at_zero_and_one_is_finite(device):
    p = t([0.0, 1.0, 0.0], grad=True)
    loss = F.binary_cross_entropy(p, t([1.0, 0.0, 0.0]), reduction="none")
    close(loss, [100.0, 100.0, 0.0])
    loss.sum().backward()
    assert np.isfinite(p.grad.numpy()).all()
    with value_checks(device), pytest.raises(ValueError, match=r"binary_cross_entropy: argument 'input' expected probabilities"):
        F.binary_cross_entropy(t([0.5, 1.5]), t([1.0, 0.0]))


def test_against_torch():
    torch = pytest.importorskip("torch")
    TF = torch.nn.functional
    T = torch.tensor
    close(F.smooth_l1_loss(t(X), t(Z), delta=0.7), TF.huber_loss(T(X), T(Z), delta=0.7).item())
    close(F.kl_div(t(X), t(Z), "batchmean"), TF.kl_div(T(X), T(Z), reduction="batchmean").item())
    close(F.kl_div(t(X), t(np.log(U)), log_target=True), TF.kl_div(T(X), T(np.log(U)), log_target=True).item())
    close(F.binary_cross_entropy(t(U), t(Z)), TF.binary_cross_entropy(T(U), T(Z)).item())
    close(F.margin_ranking_loss(t(X), t(Z), t(SIGN), 0.3), TF.margin_ranking_loss(T(X), T(Z), T(SIGN), 0.3).item())
    close(F.hinge_embedding_loss(t(X), t(SIGN), 1.5), TF.hinge_embedding_loss(T(X), T(SIGN), 1.5).item())
    close(F.soft_margin_loss(t(X), t(SIGN)), TF.soft_margin_loss(T(X), T(SIGN)).item())
    close(F.multi_label_soft_margin_loss(t(X), t(Z)), TF.multilabel_soft_margin_loss(T(X), T(Z)).item())
    for log_input, full in ((True, False), (False, True)):
        x = X if log_input else U
        close(F.poisson_nll_loss(t(x), t(COUNTS), log_input, full),
              TF.poisson_nll_loss(T(x), T(COUNTS), log_input, full).item())
    a, b, c = (rng.normal(size=SHAPE) for _ in range(3))
    close(F.triplet_margin_loss(t(a), t(b), t(c), swap=True, p=1.0),
          TF.triplet_margin_loss(T(a), T(b), T(c), swap=True, p=1.0).item())
    close(F.cosine_embedding_loss(t(a), t(b), t([1, -1, 1, -1]), 0.1),
          TF.cosine_embedding_loss(T(a), T(b), T([1, -1, 1, -1]), 0.1).item(), rtol=1e-9)


@pytest.mark.parametrize("call, error, text", [
    (lambda: F.binary_cross_entropy(t(U), t(Z[:2])), ValueError, "binary_cross_entropy: argument 'label'"),
    (lambda: F.binary_cross_entropy(t(U), t(Z), t(np.ones(4))), ValueError, "argument 'weight'"),
    (lambda: F.smooth_l1_loss(t(X), t(Z), "avg"), ValueError, "smooth_l1_loss: argument 'reduction'"),
    (lambda: F.kl_div(t(X), t(Z), "batch"), ValueError, "'batchmean'"),
    (lambda: F.kl_div(t(X), t(Z.astype(np.int64))), TypeError, "kl_div: argument 'label'"),
    (lambda: F.margin_ranking_loss(t(X), t(Z), t(SIGN[:, :2])), ValueError, "do not broadcast"),
    (lambda: F.cosine_embedding_loss(t(X), t(X), t(np.ones((4, 1)))), ValueError, "1-d label"),
    (lambda: F.triplet_margin_loss(t(X), t(X), t(X[:2])), ValueError, "argument 'negative'"),
    (lambda: F.poisson_nll_loss(t(X), t(Z), epsilon=0.0), ValueError, "epsilon"),
    (lambda: F.sigmoid_focal_loss(t(X), t(Z), normalizer=t(np.ones(2))), ValueError, "normalizer"),
    (lambda: F.hinge_embedding_loss(X, t(Z)), TypeError, "expected a Tensor"),
])
def test_errors(call, error, text):
    with pytest.raises(error, match=text):
        call()


# -- ctc_loss -----------------------------------------------------------------------

def _ctc_inputs():
    logits = rng.normal(size=(6, 3, 5))
    labels = np.array([[1, 2, 2], [3, 1, 0], [4, 4, 4]], dtype=np.int32)
    input_lengths = np.array([6, 4, 5])
    label_lengths = np.array([3, 2, 0])
    return logits, labels, input_lengths, label_lengths


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_loss_against_torch(reduction):
    torch = pytest.importorskip("torch")
    logits, labels, il, ll = _ctc_inputs()
    a, b = t(logits, True), torch.tensor(logits, requires_grad=True)
    ours = F.ctc_loss(a, t(labels), t(il), t(ll), blank=0, reduction=reduction)
    theirs = torch.nn.functional.ctc_loss(b.log_softmax(2), torch.tensor(labels).long(), torch.tensor(il),
                                          torch.tensor(ll), blank=0, reduction="none")
    if reduction == "mean":   # Paddle's mean: loss / label length (at least 1), then the mean
        theirs = (theirs / torch.tensor(ll).clamp(min=1)).mean()
    elif reduction == "sum":
        theirs = theirs.sum()
    close(ours, theirs.detach().numpy())
    seed = rng.normal(size=theirs.shape)
    ours.backward(t(seed))
    theirs.backward(torch.tensor(seed))
    close(a.grad, b.grad.numpy())


def test_ctc_loss_softmax_inside_gradcheck_and_norm_by_times():
    logits, labels, il, ll = _ctc_inputs()
    args = (t(labels), t(il), t(ll))
    # Softmax is applied inside (warp-ctc): log-probabilities give the same loss as logits.
    close(F.ctc_loss(t(log_softmax(logits, 2)), *args, reduction="none"),
          F.ctc_loss(t(logits), *args, reduction="none").numpy())
    assert gradcheck(lambda x: F.ctc_loss(x, *args), (t(logits, True),))
    plain, normed = t(logits, True), t(logits, True)
    F.ctc_loss(plain, *args, reduction="sum").backward()
    F.ctc_loss(normed, *args, reduction="sum", norm_by_times=True).backward()
    close(normed.grad, plain.grad.numpy() / il[None, :, None])
    layer = eager.nn.CTCLoss(blank=0, reduction="sum")
    close(layer(t(logits), *args, norm_by_times=True), F.ctc_loss(t(logits), *args, reduction="sum").numpy())


@pytest.mark.parametrize("change, error, text", [
    (lambda a: {**a, "input_lengths": t([6, -1, 5])}, ValueError,
     "ctc_loss: argument 'input_lengths' expected lengths"),
    (lambda a: {**a, "input_lengths": t([7, 4, 5])}, ValueError, "'input_lengths' expected lengths in \\[1, 6\\]"),
    (lambda a: {**a, "label_lengths": t([3, -2, 0])}, ValueError, "ctc_loss: argument 'label_lengths'"),
    (lambda a: {**a, "labels": t(np.array([[1, 2, 9], [3, 1, 0], [4, 4, 4]]))}, ValueError, "class indices in"),
    (lambda a: {**a, "labels": t(np.ones((3, 3)))}, TypeError, "ctc_loss: argument 'labels'"),
    (lambda a: {**a, "labels": t(np.ones((2, 3), dtype=np.int32))}, ValueError,
     "ctc_loss: argument 'labels' expected shape"),
    (lambda a: {**a, "log_probs": t(np.ones((6, 3)))}, ValueError, "3-d tensor"),
    (lambda a: {**a, "blank": 5}, ValueError, "argument 'blank'"),
    (lambda a: {**a, "reduction": "avg"}, ValueError, "reduction"),
])
def test_ctc_loss_errors(change, error, text, device):
    logits, labels, il, ll = _ctc_inputs()
    kwargs = change({"log_probs": t(logits), "labels": t(labels), "input_lengths": t(il), "label_lengths": t(ll)})
    with value_checks(device), pytest.raises(error, match=text):
        F.ctc_loss(**kwargs)


# -- layers ---------------------------------------------------------------------------

LAYERS = [
    (lambda: eager.nn.NLLLoss(t(W), ignore_index=1, reduction="sum"),
     lambda: F.nll_loss(t(log_softmax(X)), t([0, 1, 2, 1]), t(W), 1, "sum"), (log_softmax(X), np.array([0, 1, 2, 1]))),
    (lambda: eager.nn.BCELoss(t(W)), lambda: F.binary_cross_entropy(t(U), t(Z), t(W)), (U, Z)),
    (lambda: eager.nn.BCEWithLogitsLoss(pos_weight=t(W)),
     lambda: F.binary_cross_entropy_with_logits(t(X), t(Z), pos_weight=t(W)), (X, Z)),
    (lambda: eager.nn.L1Loss("sum"), lambda: F.l1_loss(t(X), t(Z), "sum"), (X, Z)),
    (lambda: eager.nn.SmoothL1Loss(delta=0.5), lambda: F.smooth_l1_loss(t(X), t(Z), delta=0.5), (X, Z)),
    (lambda: eager.nn.KLDivLoss("batchmean"), lambda: F.kl_div(t(X), t(Z), "batchmean"), (X, Z)),
    (lambda: eager.nn.MarginRankingLoss(0.2), lambda: F.margin_ranking_loss(t(X), t(Z), t(SIGN), 0.2), (X, Z, SIGN)),
    (lambda: eager.nn.HingeEmbeddingLoss(2.0), lambda: F.hinge_embedding_loss(t(X), t(SIGN), 2.0), (X, SIGN)),
    (lambda: eager.nn.CosineEmbeddingLoss(0.1), lambda: F.cosine_embedding_loss(t(X), t(Z), t([1, -1, 1, 1]), 0.1),
     (X, Z, np.array([1, -1, 1, 1]))),
    (lambda: eager.nn.TripletMarginLoss(p=1.0, swap=True),
     lambda: F.triplet_margin_loss(t(X), t(Z), t(U), p=1.0, swap=True), (X, Z, U)),
    (lambda: eager.nn.SoftMarginLoss("none"), lambda: F.soft_margin_loss(t(X), t(SIGN), "none"), (X, SIGN)),
    (lambda: eager.nn.MultiLabelSoftMarginLoss(t(W)), lambda: F.multi_label_soft_margin_loss(t(X), t(Z), t(W)), (X, Z)),
    (lambda: eager.nn.PoissonNLLLoss(full=True), lambda: F.poisson_nll_loss(t(X), t(COUNTS), full=True), (X, COUNTS)),
    (lambda: eager.nn.CrossEntropyLoss(label_smoothing=0.1),
     lambda: F.cross_entropy(t(X), t([0, 1, 2, 1]), label_smoothing=0.1), (X, np.array([0, 1, 2, 1]))),
]


@pytest.mark.parametrize("make, functional, inputs", LAYERS)
def test_layer_matches_functional(make, functional, inputs):
    close(make()(*[t(a) for a in inputs]), functional().numpy())


@pytest.mark.parametrize("layer", [eager.nn.NLLLoss, eager.nn.BCELoss, eager.nn.L1Loss, eager.nn.SmoothL1Loss,
                                   eager.nn.KLDivLoss, eager.nn.SoftMarginLoss, eager.nn.CTCLoss,
                                   eager.nn.PoissonNLLLoss, eager.nn.TripletMarginLoss])
def test_layer_rejects_bad_reduction(layer):
    with pytest.raises(ValueError, match="reduction"):
        layer(reduction="avg")


# -- second order -----------------------------------------------------------------------

def test_second_order_through_the_fused_ops():
    from eager.autograd import gradgradcheck
    x = log_softmax(rng.normal(size=(4, 3)))
    labels = t(np.array([0, 2, -100, 1]))
    weight = t(rng.uniform(0.5, 2.0, 3))
    # nll is linear in its input, so square it to give a non-zero second derivative
    assert gradgradcheck(lambda a: F.nll_loss(a, labels, weight, reduction="none") ** 2, (t(x, True),))
    assert gradgradcheck(lambda a: F.binary_cross_entropy(a, t(Z), t(W)), (t(U, True),))
    assert gradgradcheck(lambda a: F.cross_entropy(a, labels, label_smoothing=0.2), (t(X, True),))


def test_nll_loss_grad_composite_matches_kernel():
    import eager.composite
    x = t(rng.normal(size=(3, 4, 2)))
    labels = t(np.array([[0, 3], [-100, 1], [2, 2]]))
    weight, seed = t(rng.uniform(0.5, 2.0, 4)), t(rng.normal(size=(3, 2)))
    for w in (None, weight):
        close(eager.composite.nll_loss_grad(x, labels, w, seed, -100),
              eager.ops.nll_loss_grad(x, labels, w, seed, -100).numpy())
