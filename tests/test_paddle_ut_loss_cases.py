"""Regressions found by re-telling the dygraph parts of Paddle's own unit tests
for the losses (test/legacy_test: test_cross_entropy_loss, test_nll_loss,
test_bce_loss, test_hinge_embedding_loss, test_cosine_embedding_loss,
test_triplet_margin_loss, test_soft_margin_loss, test_gaussian_nll_loss,
test_poisson_nll_loss, test_sigmoid_focal_loss, test_multi_margin_loss,
test_npair_loss_op, test_hsigmoid_op, test_warpctc_op, test_warprnnt_op,
test_margin_cross_entropy_op, test_kldiv_loss_op, test_mse_loss, ...) under
``import eager as paddle`` and checking each disagreement against the real
Paddle 2.6.2.

Found:
- cosine_embedding_loss took an int16 label and raised TypeError for an
  integer input; Paddle checks both dtypes in dygraph and raises ValueError
  (test_cosine_embedding_loss's test_errors). CosineEmbeddingLoss took a
  margin outside [-1, 1], which Paddle refuses (ValueError).
- gaussian_nll_loss raised TypeError for integer input/label/variance; Paddle
  raises ValueError (test_gaussian_nll_loss's test_int).
- a bad ``reduction`` with NumPy inputs was a TypeError (the inputs were
  checked first); Paddle checks the reduction first, so it is the ValueError
  (test_hinge_embedding_loss's test_reduce_errors). Now so in every loss.
- float32 with float64 was a TypeError in the losses Paddle composes of
  elementwise ops, which promote: mse_loss, l1_loss, kl_div,
  square_error_cost, margin_ranking_loss, triplet_margin_loss(_with_distance),
  cosine_embedding_loss, gaussian_nll_loss and the ``weight`` of
  binary_cross_entropy(_with_logits), multi_label_soft_margin_loss and
  multi_margin_loss (float64 results, as Paddle 2.6.2's); a float32
  pos_weight with float64 logits is cast up, as Paddle's arithmetic does.
- poisson_nll_loss refused an integer label (or a float label of another
  dtype); Paddle casts the label to the input's dtype.
- hsigmoid_loss raised ValueError for a float label and an int32 bias; they are
  wrong kinds (TypeError, as Paddle's checks in test_hsigmoid_op).
- ctc_loss with ``input_lengths``/``label_lengths`` None raised TypeError;
  Paddle's dygraph raises ValueError (test_warpctc_op's test_dygraph_errors).
- margin_ranking_loss refused inputs/labels of different shapes; Paddle
  broadcasts them (test_margin_rank_loss_op's broadcast case); eager now
  broadcasts too, with mse_loss's warning.
- MultiMarginLoss/multi_margin_loss refused a non-integer power (p=1.5) and
  GaussianNLLLoss/gaussian_nll_loss an epsilon <= 0; Paddle takes both.
- the loss layers had no public ``name`` attribute, which Paddle's keep.
- cross_entropy(soft_label=True, label_smoothing > 0) refused class-index
  labels; Paddle one-hots them whatever soft_label says (test_cross_entropy_loss's
  integer_label_smoothing cases).

Paddle 2.6.2 quirks met and left (eager keeps its behaviour; docs/nn.md rows
where they are differences): cross_entropy's label_smoothing and soft-label
weight along an axis other than the last, a [N, 1] hard label with
label_smoothing (kernel not registered), nll_loss with ignore_index (heap
corruption), most losses of an empty batch (errors), kl_div and
cosine_embedding_loss taking any reduction string, SmoothL1Loss/
CrossEntropyLoss not checking it at construction, rnnt_loss's CPU kernel
reading unnormalised scores, gaussian_nll_loss giving the variance no
gradient, binary_cross_entropy_with_logits' pos_weight (also with soft
labels), multi_margin_loss with weight and p > 1, p <= 0 or margin < 0,
hinge_embedding_loss/sigmoid_focal_loss turning a 0-d input into [1],
multi_label_soft_margin_loss
and multi_margin_loss with an integer label/input giving integer garbage,
npair_loss failing on float64 and on NumPy inputs (ValueError for TypeError),
dice_loss's AssertionError for a rank mismatch (eager: ValueError),
label_smooth of a 0-d label, HSigmoidLoss/initializer.Assign taking a value of
another shape, margin_cross_entropy (GPU-only kernel) raising
NotImplementedError for a float label (eager: TypeError), cross_entropy taking
float class indices forward only (its backward and ``weight`` fail),
identity_loss raising a bare Exception for an unknown reduction string (eager:
ValueError; Paddle 3: TypeError), bool flags given as 0/1 (eager: TypeError),
the 1e-8 float32 rounding of Paddle's p_norm for p = 3 and of its
label_smooth. Newer than 2.6.2 and left out: ctc_loss ``zero_infinity``, cross_entropy's ``target`` alias,
KLDivLoss ``log_target`` (eager has it).
"""
import numpy as np
import pytest

import eager
import eager.nn.functional as F

pytestmark = pytest.mark.usefixtures("device")

rng = np.random.default_rng(7)


def t(array, grad=False):
    return eager.to_tensor(np.asarray(array), stop_gradient=not grad)


def _cosine_loss(a, b, label, margin):
    cos = (a * b).sum(-1) / np.sqrt(((a * a).sum(-1) + 1e-11) * ((b * b).sum(-1) + 1e-11))
    return np.where(label == 1, 1 - cos, np.where(label == -1, np.maximum(cos - margin, 0), 0))


def test_cosine_embedding_loss_checks_dtypes_as_paddle():
    a, b = rng.random((5, 3)), rng.random((5, 3))
    label = np.array([1, -1, 1, -1, 1])
    with pytest.raises(ValueError, match="cosine_embedding_loss: argument 'input1' expected a float32 or float64"):
        F.cosine_embedding_loss(t(a.astype(np.int64)), t(b), t(label))
    with pytest.raises(ValueError, match="cosine_embedding_loss: argument 'label' expected an int32, int64"):
        F.cosine_embedding_loss(t(a), t(b), t(label.astype(np.int16)))
    with pytest.raises(ValueError, match="CosineEmbeddingLoss: argument 'margin' expected a number in \\[-1, 1\\]"):
        eager.nn.CosineEmbeddingLoss(margin=2)
    # float32 with float64 promotes (as Paddle's multiply); the gradient keeps each input's dtype
    x1 = t(a.astype(np.float32), grad=True)
    out = F.cosine_embedding_loss(x1, t(b), t(label), margin=0.5, reduction="none")
    assert out.dtype == eager.float64
    # (input1's own squared norm is summed in float32, as in Paddle)
    np.testing.assert_allclose(out.numpy(), _cosine_loss(a.astype(np.float32).astype(np.float64), b, label, 0.5),
                               rtol=1e-5)
    out.sum().backward()
    assert x1.grad.dtype == eager.float32


def test_gaussian_nll_loss_dtypes_as_paddle():
    x, y, v = rng.random((4, 2)), rng.random((4, 2)), rng.random((4, 2)) + 0.5
    for args in ((t(x.astype(np.int64)), t(y), t(v)), (t(x), t(y.astype(np.int32)), t(v)),
                 (t(x), t(y), t(np.ones((4, 2), np.int64)))):
        with pytest.raises(ValueError, match="gaussian_nll_loss: argument '.*' expected a float32 or float64"):
            F.gaussian_nll_loss(*args)
    out = F.gaussian_nll_loss(t(x.astype(np.float32)), t(y), t(v), reduction="none")
    assert out.dtype == eager.float64
    x32 = x.astype(np.float32).astype(np.float64)
    np.testing.assert_allclose(out.numpy(), 0.5 * (np.log(v) + (x32 - y) ** 2 / v), rtol=1e-6)


def test_poisson_nll_loss_casts_the_label_to_the_input_dtype():
    x, counts = rng.random((5, 2)), rng.integers(0, 5, (5, 2))
    for label in (counts, counts.astype(np.int32), counts.astype(np.float32)):
        out = F.poisson_nll_loss(t(x), t(label), reduction="none")
        assert out.dtype == eager.float64
        np.testing.assert_allclose(out.numpy(), np.exp(x) - counts * x, rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda a, b, s, l: F.mse_loss(a, b, reduction="bad"),
    lambda a, b, s, l: F.l1_loss(a, b, reduction="bad"),
    lambda a, b, s, l: F.smooth_l1_loss(a, b, reduction="bad"),
    lambda a, b, s, l: F.binary_cross_entropy(a, b, reduction="bad"),
    lambda a, b, s, l: F.binary_cross_entropy_with_logits(a, b, reduction="bad"),
    lambda a, b, s, l: F.cross_entropy(a, l, reduction="bad"),
    lambda a, b, s, l: F.nll_loss(a, l, reduction="bad"),
    lambda a, b, s, l: F.kl_div(a, b, reduction="bad"),
    lambda a, b, s, l: F.margin_ranking_loss(a, b, s, reduction="bad"),
    lambda a, b, s, l: F.hinge_embedding_loss(a, s, reduction="bad"),
    lambda a, b, s, l: F.cosine_embedding_loss(a, b, l, reduction="bad"),
    lambda a, b, s, l: F.triplet_margin_loss(a, b, a, reduction="bad"),
    lambda a, b, s, l: F.triplet_margin_with_distance_loss(a, b, a, reduction="bad"),
    lambda a, b, s, l: F.soft_margin_loss(a, s, reduction="bad"),
    lambda a, b, s, l: F.multi_label_soft_margin_loss(a, s, reduction="bad"),
    lambda a, b, s, l: F.multi_margin_loss(a, l, reduction="bad"),
    lambda a, b, s, l: F.sigmoid_focal_loss(a, b, reduction="bad"),
    lambda a, b, s, l: F.poisson_nll_loss(a, b, reduction="bad"),
    lambda a, b, s, l: F.gaussian_nll_loss(a, b, b, reduction="bad"),
])
def test_a_bad_reduction_is_the_value_error_whatever_the_inputs(call):
    a, b = rng.random((4, 3)), rng.random((4, 3))
    sign, label = np.sign(rng.normal(size=(4, 3))), rng.integers(0, 3, (4,))
    with pytest.raises(ValueError, match="argument 'reduction' expected one of"):
        call(a, b, sign, label)   # NumPy inputs, as Paddle's tests pass them


def test_losses_composed_of_elementwise_ops_promote_float32_with_float64():
    a, b = rng.random((4, 3)) * 0.8 + 0.1, rng.random((4, 3)) * 0.8 + 0.1
    sign, w = np.sign(rng.normal(size=(4, 3))), rng.random(3)
    a32 = a.astype(np.float32).astype(np.float64)
    positive = b > 0.5
    bce = -(b * np.log(a32) + (1 - b) * np.log(1 - a32))
    softplus = np.log1p(np.exp(-np.abs(a32))) + np.maximum(a32, 0)
    lab = rng.integers(0, 3, (4,))
    margins = np.maximum(1 - a32[np.arange(4), lab][:, None] + a32, 0) * w[lab][:, None]
    margins[np.arange(4), lab] = 0
    cases = [
        (F.mse_loss(t(a.astype(np.float32)), t(b)), ((a32 - b) ** 2).mean()),
        (F.l1_loss(t(b), t(a.astype(np.float32))), np.abs(a32 - b).mean()),
        (F.kl_div(t(a.astype(np.float32)), t(b)), (b * (np.log(b) - a32)).mean()),
        (F.square_error_cost(t(b), t(a.astype(np.float32))), (b - a32) ** 2),
        (F.margin_ranking_loss(t(a.astype(np.float32)), t(b), t(sign.astype(np.float32))),
         np.maximum(-sign * (a32 - b), 0).mean()),
        (F.triplet_margin_loss(t(a.astype(np.float32)), t(b), t(b[::-1].copy()), epsilon=0.0),
         np.maximum(np.linalg.norm(a32 - b, axis=1) - np.linalg.norm(a32 - b[::-1], axis=1) + 1, 0).mean()),
        (F.binary_cross_entropy(t(a.astype(np.float32)), t(b.astype(np.float32)), weight=t(w)),
         (bce * w).mean()),
        (F.binary_cross_entropy_with_logits(t(a.astype(np.float32)), t(positive.astype(np.float32)), weight=t(w)),
         ((softplus - a32 * positive) * w).mean()),
        (F.multi_margin_loss(t(a.astype(np.float32)), t(lab), weight=t(w)), (margins.sum(1) / 3).mean()),
    ]
    for out, want in cases:
        assert out.dtype == eager.float64
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-5)
    with pytest.raises(TypeError, match="mse_loss: argument 'label' expected the dtype of 'input'"):
        F.mse_loss(t(a), t(a.astype(np.int64)))   # no rule for float with int: still refused


def test_promoted_loss_gradients_come_back_in_each_inputs_dtype():
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    x = t(a.astype(np.float32), grad=True)
    y = t(b, grad=True)
    F.mse_loss(x, y, reduction="sum").backward()
    assert x.grad.dtype == eager.float32 and y.grad.dtype == eager.float64
    diff = a.astype(np.float32).astype(np.float64) - b
    np.testing.assert_allclose(x.grad.numpy(), 2 * diff, rtol=1e-6)
    np.testing.assert_allclose(y.grad.numpy(), -2 * diff, rtol=1e-12)


def test_hsigmoid_loss_wrong_dtypes_are_type_errors():
    x, w = t(rng.random((4, 6))), t(rng.random((7, 6)))
    with pytest.raises(TypeError, match="hsigmoid_loss: argument 'label' expected an integer Tensor"):
        F.hsigmoid_loss(x, t(np.zeros((4, 1), np.float32)), 8, w)
    with pytest.raises(TypeError, match="hsigmoid_loss: argument 'bias' expected the dtype of 'input'"):
        F.hsigmoid_loss(x, t(np.zeros((4, 1), np.int64)), 8, w, bias=t(np.zeros(7, np.int32)))


def test_ctc_loss_without_lengths_is_a_value_error():
    logits = t(rng.uniform(0.1, 1.0, (20, 15)).astype(np.float32))
    labels = t(rng.integers(0, 14, (15, 1)).astype(np.int32))
    with pytest.raises(ValueError, match="ctc_loss: argument 'input_lengths' expected an integer Tensor"):
        F.ctc_loss(logits, labels, None, None, reduction="none")


@pytest.mark.parametrize("shape", [(4, 3), (3, 2, 2, 5)])
def test_cross_entropy_soft_label_with_smoothing_takes_class_indices(shape):
    # Paddle: with label_smoothing > 0, soft_label does not matter, and class
    # indices are one-hot first (test_cross_entropy_loss's integer_label_smoothing
    # cases pass soft_label=True with an index label)
    x = rng.uniform(0.1, 1.0, shape)
    classes = shape[-1]
    label = rng.integers(0, classes, shape[:-1])
    weight, epsilon = rng.uniform(0.1, 1.0, classes), 0.4
    log_softmax = x - np.log(np.exp(x).sum(-1, keepdims=True))
    target = np.eye(classes)[label] * (1 - epsilon) + epsilon / classes
    per_sample = -(target * log_softmax).sum(-1)
    out = F.cross_entropy(t(x), t(label), soft_label=True, label_smoothing=epsilon, reduction="none")
    np.testing.assert_allclose(out.numpy(), per_sample, rtol=1e-12)
    sample_weight = target @ weight
    out = F.cross_entropy(t(x), t(label), weight=t(weight), soft_label=True, label_smoothing=epsilon)
    np.testing.assert_allclose(out.numpy(), (per_sample * sample_weight).sum() / sample_weight.sum(), rtol=1e-12)


def test_margin_ranking_loss_broadcasts_as_paddle():
    # test_margin_rank_loss_op's run_dynamic_broadcast_api: a [10] label for [10, 10] inputs
    x, y = rng.random((10, 10)), rng.random((10, 10))
    label = rng.choice([-1.0, 1.0], 10)
    for reduction in ("none", "mean", "sum"):
        with pytest.warns(UserWarning, match="broadcast together"):
            out = eager.nn.MarginRankingLoss(margin=0.2, reduction=reduction)(t(x), t(y), t(label))
        want = np.maximum(-label * (x - y) + 0.2, 0)
        np.testing.assert_allclose(out.numpy(), {"none": want, "mean": want.mean(), "sum": want.sum()}[reduction],
                                   rtol=1e-12)
    xt = t(x, grad=True)
    with pytest.warns(UserWarning, match="broadcast together"):
        F.margin_ranking_loss(xt, t(y[0]), t(label), margin=0.1, reduction="sum").backward()
    np.testing.assert_allclose(xt.grad.numpy(), np.where(-label * (x - y[0]) + 0.1 > 0, -label, 0.0), rtol=1e-12)
    with pytest.raises(ValueError, match="margin_ranking_loss: arguments .* do not broadcast"):
        F.margin_ranking_loss(t(x), t(y), t(label[:3]))


def test_bce_with_logits_takes_a_narrower_float_pos_weight():
    # Paddle 2.6.2: a float32 pos_weight with float64 logits gives the float64 loss
    # (a float64 pos_weight with float32 logits it refuses, and so does eager)
    x, z, pw = rng.normal(size=(4, 3)), (rng.random((4, 3)) > 0.5).astype(np.float64), rng.random(3) * 2
    out = F.binary_cross_entropy_with_logits(t(x), t(z), pos_weight=t(pw.astype(np.float32)), reduction="none")
    assert out.dtype == eager.float64
    log_sigmoid = -(np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0))
    pw32 = pw.astype(np.float32).astype(np.float64)
    want = -(pw32 * z * log_sigmoid + (1 - z) * (log_sigmoid - x))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)
    with pytest.raises(TypeError, match="argument 'pos_weight' expected dtype paddle.float32"):
        F.binary_cross_entropy_with_logits(t(x.astype(np.float32)), t(z.astype(np.float32)), pos_weight=t(pw))


def test_multi_margin_loss_takes_a_real_power_and_gaussian_nll_any_epsilon():
    # Paddle 2.6.2 takes MultiMarginLoss(p=1.5) (its ** takes any power) and
    # GaussianNLLLoss(epsilon=0) (the clamp's floor); eager refused both
    x, label = rng.normal(size=(4, 3)), rng.integers(0, 3, 4)
    hinge = np.maximum(1 - x[np.arange(4), label][:, None] + x, 0) ** 1.5
    hinge[np.arange(4), label] = 0
    np.testing.assert_allclose(eager.nn.MultiMarginLoss(p=1.5, reduction="none")(t(x), t(label)).numpy(),
                               hinge.sum(1) / 3, rtol=1e-12)
    y, v = rng.normal(size=(4, 3)), rng.random((4, 3)) + 0.1
    np.testing.assert_allclose(eager.nn.GaussianNLLLoss(epsilon=0, reduction="sum")(t(x), t(y), t(v)).numpy(),
                               (0.5 * (np.log(v) + (x - y) ** 2 / v)).sum(), rtol=1e-12)


@pytest.mark.parametrize("layer", [eager.nn.BCELoss, eager.nn.CrossEntropyLoss, eager.nn.L1Loss, eager.nn.SmoothL1Loss,
                                   eager.nn.MarginRankingLoss, eager.nn.TripletMarginLoss, eager.nn.GaussianNLLLoss])
def test_loss_layers_keep_their_name_as_paddle(layer):
    # Paddle's loss layers store ``name`` as a public attribute (test_nll_loss's TestNLLLossName reads result names)
    assert layer(name="my_loss").name == "my_loss"
    assert layer().name is None
