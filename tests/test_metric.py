"""eager.metric against hand computations, literal loops of Paddle's rules and
scikit-learn."""
import numpy as np
import pytest

import eager
from eager import metric


def topk_correct(scores, labels, k):
    """Hand reference: 1 where the label is the j-th best class, per row."""
    order = np.argsort(-scores, axis=-1, kind="stable")[..., :k]
    return (order == labels[..., None]).astype("float32")


# -- Accuracy ---------------------------------------------------------------
@pytest.mark.parametrize("label_shape", ["flat", "column", "onehot"])
def test_accuracy_compute_update_accumulate(label_shape):
    rng = np.random.default_rng(0)
    m = metric.Accuracy(topk=(1, 3))
    totals, count = np.zeros(2), 0
    for batch in (7, 5, 9):
        scores = rng.permutation(batch * 6).reshape(batch, 6).astype("float32")  # no ties
        labels = rng.integers(0, 6, batch)
        label = {"flat": labels, "column": labels[:, None],
                 "onehot": np.eye(6, dtype="float32")[labels]}[label_shape]
        correct = m.compute(eager.to_tensor(scores), eager.to_tensor(label))
        assert correct.dtype == eager.float32 and correct.shape == [batch, 3]
        expected = topk_correct(scores, labels, 3)
        np.testing.assert_array_equal(correct.numpy(), expected)
        batch_acc = m.update(correct)
        hand = [expected[:, :1].sum() / batch, expected.sum() / batch]
        assert batch_acc == pytest.approx(hand)
        totals += [expected[:, :1].sum(), expected.sum()]
        count += batch
    assert m.accumulate() == pytest.approx(list(totals / count))
    assert m.name() == ["acc_top1", "acc_top3"]
    m.reset()
    assert m.accumulate() == [0.0, 0.0]


def test_accuracy_single_k_returns_floats_and_plain_name():
    m = metric.Accuracy(name="my_acc")
    pred = eager.to_tensor([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4]])
    correct = m.compute(pred, eager.to_tensor([[1], [1], [1], [0]]))
    assert m.update(correct) == 0.75
    assert m.update(correct.numpy()) == 0.75        # numpy arrays too, as Paddle
    assert isinstance(m.accumulate(), float) and m.accumulate() == 0.75
    assert m.name() == ["my_acc"]


def test_accuracy_sequence_predictions():
    # [N, T, C] scores with [N, T, 1] labels: every (n, t) is a sample.
    rng = np.random.default_rng(1)
    scores = rng.random((3, 4, 5))
    labels = rng.integers(0, 5, (3, 4))
    m = metric.Accuracy(topk=(2,))
    correct = m.compute(eager.to_tensor(scores), eager.to_tensor(labels[..., None]))
    expected = topk_correct(scores, labels, 2)
    np.testing.assert_array_equal(correct.numpy(), expected)
    assert m.update(correct) == pytest.approx(expected.sum() / 12)


def test_accuracy_k_above_the_class_count_counts_every_class():
    m = metric.Accuracy(topk=(1, 5))
    correct = m.compute(eager.to_tensor([[0.2, 0.8], [0.6, 0.4]]), eager.to_tensor([0, 0]))
    assert correct.shape == [2, 2]
    assert m.update(correct) == [0.5, 1.0]


def test_accuracy_compute_records_no_graph():
    pred = eager.to_tensor([[0.2, 0.8], [0.6, 0.4]], stop_gradient=False)
    correct = metric.Accuracy().compute(pred * 2, eager.to_tensor([1, 1]))
    assert correct.stop_gradient and correct.grad_node is None


def test_accuracy_bad_inputs():
    with pytest.raises(TypeError, match="Accuracy: argument 'topk'"):
        metric.Accuracy(topk=0)
    with pytest.raises(ValueError, match="Accuracy: argument 'topk'"):  # a bad value, not a bad kind
        metric.Accuracy(topk=(1, -2))
    m = metric.Accuracy()
    with pytest.raises(ValueError, match="Accuracy.compute: argument 'label'"):
        m.compute(eager.to_tensor(np.ones((4, 3))), eager.to_tensor(np.zeros(5, "int64")))
    with pytest.raises(TypeError, match="Accuracy.compute: argument 'pred'"):
        m.compute([[0.1, 0.9]], eager.to_tensor([1]))
    with pytest.raises(ValueError, match="Accuracy.update: argument 'correct'"):
        m.update([1.0, 0.0])
    with pytest.raises(ValueError, match="no samples"):
        m.update(np.zeros((0, 1)))
    assert m.total == [0.0] and m.count == [0]      # the failed updates changed nothing


def test_metric_is_abstract_and_compute_passes_through():
    with pytest.raises(TypeError):
        metric.Metric()

    class Count(metric.Metric):
        def name(self):
            return "count"

        def reset(self):
            self.n = 0

        def update(self, x, *args):
            self.n += len(x)

        def accumulate(self):
            return self.n

    c = Count()
    c.reset()
    args = c.compute([1, 2], "label")
    assert args == ([1, 2], "label")
    c.update(*args)
    assert c.accumulate() == 2


# -- Precision and Recall ---------------------------------------------------
def test_precision_recall_match_sklearn():
    sk = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(2)
    p, r = metric.Precision(), metric.Recall()
    all_preds, all_labels = [], []
    for batch in (10, 1, 17):
        preds = rng.random(batch).astype("float32")
        preds[::4] = 0.5                      # exactly 0.5 rounds to positive
        labels = rng.integers(0, 2, (batch, 1))
        p.update(eager.to_tensor(preds), eager.to_tensor(labels))
        r.update(preds[:, None], labels)
        all_preds.append(preds)
        all_labels.append(labels[:, 0])
    predicted = (np.concatenate(all_preds) >= 0.5).astype(int)
    truth = np.concatenate(all_labels)
    assert p.accumulate() == pytest.approx(sk.precision_score(truth, predicted))
    assert r.accumulate() == pytest.approx(sk.recall_score(truth, predicted))
    assert (p.name(), r.name()) == ("precision", "recall")


def test_precision_recall_by_hand_and_empty_cases():
    p, r = metric.Precision(name="p"), metric.Recall()
    assert p.accumulate() == 0.0 and r.accumulate() == 0.0
    preds = np.array([0.9, 0.49, 0.51, 0.2, 0.7])
    labels = np.array([1, 1, 0, 0, 1])
    p.update(preds, labels)
    r.update(preds, labels)
    # positives: 0.9 (tp), 0.51 (fp), 0.7 (tp); label-1 rows: 0.9, 0.49 (fn), 0.7
    assert (p.tp, p.fp) == (2, 1) and p.accumulate() == pytest.approx(2 / 3)
    assert (r.tp, r.fn) == (2, 1) and r.accumulate() == pytest.approx(2 / 3)
    p.reset()
    assert (p.tp, p.fp) == (0, 0) and p.name() == "p"


def test_precision_recall_bad_inputs():
    with pytest.raises(ValueError, match="Precision.update: argument 'preds'"):
        metric.Precision().update([0.5], np.array([1]))
    with pytest.raises(ValueError, match="Recall.update: argument 'labels'"):
        metric.Recall().update(np.array([0.5]), 1)
    with pytest.raises(ValueError, match="Recall.update: .*one value per sample"):
        metric.Recall().update(np.ones((3, 2)), np.ones(3))


# -- Auc --------------------------------------------------------------------
def paddle_auc_loop(batches, num_thresholds):
    """Paddle's algorithm written out with scalar loops."""
    pos = [0.0] * (num_thresholds + 1)
    neg = [0.0] * (num_thresholds + 1)
    for preds, labels in batches:
        for i in range(len(labels)):
            b = int(preds[i, 1] * num_thresholds)
            if labels[i]:
                pos[b] += 1
            else:
                neg[b] += 1
    tot_pos = tot_neg = area = 0.0
    for idx in range(num_thresholds, -1, -1):
        prev_pos, prev_neg = tot_pos, tot_neg
        tot_pos += pos[idx]
        tot_neg += neg[idx]
        area += abs(tot_neg - prev_neg) * (tot_pos + prev_pos) / 2
    return area / tot_pos / tot_neg if tot_pos > 0 and tot_neg > 0 else 0.0


@pytest.mark.parametrize("num_thresholds", [1, 2, 3, 10])
def test_auc_on_bucket_edges_against_a_loop(num_thresholds):
    rng = np.random.default_rng(num_thresholds)
    scores = np.concatenate([rng.random(20), [0.0, 0.5, 1.0, 1.0, 0.25, 1 / num_thresholds]])
    labels = rng.integers(0, 2, scores.size)
    labels[:2] = [0, 1]
    m = metric.Auc(num_thresholds=num_thresholds)
    for part in (slice(0, 9), slice(9, None)):  # two batches, [N] and [N, 1] labels
        s, y = scores[part], labels[part]
        m.update(np.stack([1 - s, s], 1), y if part.start == 0 else y[:, None])
    assert m.accumulate() == pytest.approx(paddle_auc_loop([(np.stack([1 - scores, scores], 1), labels)], num_thresholds), abs=1e-12)


@pytest.mark.parametrize("num_thresholds", [4095, 7, 200])
def test_auc_matches_the_bucketed_algorithm_and_sklearn(num_thresholds):
    sk = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(3)
    m = metric.Auc(num_thresholds=num_thresholds)
    batches = []
    for batch in (50, 31, 80):
        labels = rng.integers(0, 2, (batch, 1))
        p1 = np.clip(rng.normal(0.35 + 0.3 * labels[:, 0], 0.2), 0, 1)
        preds = np.stack([1 - p1, p1], axis=1)
        m.update(eager.to_tensor(preds), eager.to_tensor(labels))
        batches.append((preds, labels[:, 0]))
    assert m.accumulate() == pytest.approx(paddle_auc_loop(batches, num_thresholds), rel=1e-12)
    truth = np.concatenate([b[1] for b in batches])
    scores = np.concatenate([b[0][:, 1] for b in batches])
    exact = sk.roc_auc_score(truth, scores)
    # Bucketing only turns pairs that share a bucket into ties (worth half).
    buckets = (scores * num_thresholds).astype(int)
    pos, neg = buckets[truth == 1], buckets[truth == 0]
    same = (pos[:, None] == neg[None, :]).mean()
    assert abs(m.accumulate() - exact) <= same / 2 + 1e-12
    if num_thresholds == 4095:
        assert m.accumulate() == pytest.approx(exact, abs=2e-3)


def test_auc_exact_when_buckets_separate_and_by_hand():
    sk = pytest.importorskip("sklearn.metrics")
    m = metric.Auc(num_thresholds=100)
    p1 = np.array([0.105, 0.215, 0.335, 0.455, 0.555, 0.695, 0.705, 0.915])
    labels = np.array([0, 1, 0, 0, 1, 1, 0, 1])
    m.update(np.stack([1 - p1, p1], 1), labels)
    assert m.accumulate() == pytest.approx(sk.roc_auc_score(labels, p1), abs=1e-12)
    # By hand: 4 positives x 4 negatives; the pairs ranked wrongly: (0.215 vs
    # 0.335, 0.455, 0.705), (0.555 vs 0.705), (0.695 vs 0.705) -> 5 of 16.
    assert m.accumulate() == pytest.approx(11 / 16)
    m.reset()
    assert m.accumulate() == 0.0
    m.update(np.array([[0.2, 0.8]]), np.array([1]))       # one class only
    assert m.accumulate() == 0.0 and m.name() == "auc"


def test_auc_bad_inputs():
    with pytest.raises(ValueError, match="Auc: argument 'curve'"):
        metric.Auc(curve="PR")
    with pytest.raises(ValueError, match="Auc: argument 'num_thresholds'"):
        metric.Auc(num_thresholds=0)
    m = metric.Auc()
    with pytest.raises(ValueError, match="Auc.update: argument 'preds'"):
        m.update(np.array([0.2, 0.8]), np.array([1, 0]))
    with pytest.raises(ValueError, match=r"Auc.update: argument 'preds' expected probabilities"):
        m.update(np.array([[0.2, 1.5]]), np.array([1]))
    with pytest.raises(ValueError, match="Auc.update: argument 'labels'"):
        m.update(np.array([[0.2, 0.8]]), np.array([1, 0]))
    assert m._stat_pos.sum() == 0 and m._stat_neg.sum() == 0


# -- functional accuracy ----------------------------------------------------
@pytest.mark.parametrize("k", [1, 2, 4])
def test_functional_accuracy(k):
    rng = np.random.default_rng(4)
    scores = rng.permutation(40).reshape(8, 5).astype("float32")
    labels = rng.integers(0, 5, (8, 1))
    correct = eager.to_tensor(np.zeros([1], "int32"))
    total = eager.to_tensor(np.zeros([1], "int64"))
    acc = metric.accuracy(eager.to_tensor(scores), eager.to_tensor(labels.astype("int32")), k=k,
                          correct=correct, total=total)
    hits = int(topk_correct(scores, labels[:, 0], k).sum())
    assert acc.dtype == eager.float32 and acc.shape == []
    assert acc.item() == pytest.approx(np.float32(hits) / np.float32(8))
    # Paddle's op leaves int32 0-d counts in the Tensors given, whatever they were
    assert correct.numpy().tolist() == hits and total.numpy().tolist() == 8
    assert correct.dtype == total.dtype == eager.int32 and correct.shape == total.shape == []


def test_functional_accuracy_paddle_example():
    pred = eager.to_tensor([[0.2, 0.1, 0.4, 0.1, 0.1], [0.2, 0.3, 0.1, 0.15, 0.25]])
    assert eager.metric.accuracy(input=pred, label=eager.to_tensor([[2], [0]]), k=1).item() == 0.5
    assert eager.metric.accuracy(pred, eager.to_tensor([2, 0]), k=2).item() == 0.5  # 0.2 is third
    assert eager.metric.accuracy(pred, eager.to_tensor([2, 0]), k=3).item() == 1.0


def test_functional_accuracy_bad_inputs():
    pred = eager.to_tensor(np.ones((3, 4), "float32"))
    label = eager.to_tensor(np.zeros((3, 1), "int64"))
    with pytest.raises(TypeError, match="accuracy: argument 'input'"):
        metric.accuracy(np.ones((3, 4)), label)
    with pytest.raises(ValueError, match="accuracy: argument 'label' expected shape"):
        metric.accuracy(pred, eager.to_tensor(np.zeros((4, 1), "int64")))
    with pytest.raises(TypeError, match="accuracy: argument 'label' expected an int"):
        metric.accuracy(pred, eager.to_tensor(np.zeros((3, 1), "float32")))
    with pytest.raises(ValueError, match="accuracy: argument 'k'"):
        metric.accuracy(pred, label, k=5)
    with pytest.raises(TypeError, match="accuracy: argument 'correct' expected a Tensor or None, got list"):
        metric.accuracy(pred, label, correct=[0])
