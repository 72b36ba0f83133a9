"""Paddle 2.x's ``paddle.metric``: the streaming metrics a training loop (or
``eager.Model``) feeds batch by batch, and the functional ``accuracy``.

A metric's life: ``compute(pred, label)`` turns a batch's network outputs into
what ``update`` takes (only Accuracy does work there: its correct matrix), then
``update(...)`` folds the batch in and returns the batch's value,
``accumulate()`` gives the value over every batch since ``reset()``, and
``name()`` labels it in logs. ``update`` takes Tensors or NumPy arrays and
reads them as NumPy, as Paddle's do: the metrics' state is host-side counts.

>>> m = eager.metric.Precision()
>>> m.update(np.array([0.9, 0.2, 0.7]), np.array([1, 0, 0]))
>>> m.accumulate()
0.5
"""
from __future__ import annotations

import abc
import numbers

import numpy as np

from phi.common.data_type import INTEGER_TYPES, DataType
from phi.core.errors import InvalidArgumentError
from phi.infermeta.checks import check_result_shape

from ..autograd import no_grad
from ..creation import to_tensor
from ..generated import forward_api as _F
from ..tensor import Tensor

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]


def _as_numpy(who: str, arg: str, value) -> np.ndarray:
    """A Tensor or NumPy array as a NumPy array; anything else is refused."""
    if isinstance(value, Tensor):
        return value.numpy()
    if not isinstance(value, np.ndarray):
        raise ValueError(f"{who}: argument '{arg}' expected a Tensor or numpy.ndarray, "
                         f"got {type(value).__name__}")
    return _numeric(who, arg, value)


def _numeric(who: str, arg: str, array: np.ndarray) -> np.ndarray:
    """``array`` if it holds numbers; text, objects and complex values (which no
    count or threshold reads) are a TypeError naming who and arg."""
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{who}: argument '{arg}' expected an array of numbers (bool, int or float), "
                        f"got dtype {array.dtype}")
    return array


def _as_tensor(who: str, arg: str, value) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if isinstance(value, np.ndarray):
        return to_tensor(_numeric(who, arg, value))
    raise TypeError(f"{who}: argument '{arg}' expected a Tensor or numpy.ndarray, "
                    f"got {type(value).__name__}")


def _check_name(who: str, name, default: str) -> str:
    if name is None:
        return default
    if not isinstance(name, str) or not name:
        raise TypeError(f"{who}: argument 'name' expected a non-empty str or None, got {name!r}")
    return name


class Metric(metaclass=abc.ABCMeta):
    """Base class of every metric: subclass it and define ``name``, ``reset``,
    ``update`` and ``accumulate``; override ``compute`` to preprocess a batch's
    outputs and labels (as Tensors, before ``update``).

    >>> class MeanAbsError(eager.metric.Metric):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.reset()
    ...     def name(self):
    ...         return "mae"
    ...     def reset(self):
    ...         self.total, self.count = 0.0, 0
    ...     def compute(self, pred, label, *args):
    ...         return (pred - label).abs()
    ...     def update(self, errors, *args):
    ...         errors = np.asarray(errors)
    ...         self.total += float(errors.sum()); self.count += errors.size
    ...         return float(errors.mean())
    ...     def accumulate(self):
    ...         return self.total / self.count if self.count else 0.0
    >>> m = MeanAbsError()
    >>> m.update(m.compute(eager.to_tensor([1.0, 3.0]), eager.to_tensor([2.0, 3.0])))
    0.5
    """

    def __init__(self):
        pass

    @abc.abstractmethod
    def reset(self):
        """Clears the state, as a new metric."""

    @abc.abstractmethod
    def update(self, *args):
        """Folds one batch in (what ``compute`` returned, unpacked); returns the batch's value."""

    @abc.abstractmethod
    def accumulate(self):
        """The value over every batch since the last ``reset``."""

    @abc.abstractmethod
    def name(self):
        """The metric's name (a str, or a list of str for a metric with several values)."""

    def compute(self, *args):
        """Preprocesses a batch's outputs and labels (Tensors) into ``update``'s
        arguments; by default returns them unchanged."""
        return args


class Accuracy(Metric):
    """Top-k classification accuracy, for each k in ``topk``.

    ``compute(pred, label)`` gives the correct matrix: ``pred`` is
    ``[..., num_classes]`` scores, ``label`` class ids ``[...]`` or
    ``[..., 1]`` (or one-hot ``[..., num_classes]``); the result is float32
    ``[..., max(topk)]`` whose column j is 1 where the label is the j-th best
    class. ``update(correct)`` returns the batch's accuracy (a NumPy float64, as
    Paddle, or a list with one per k); ``accumulate()`` the same over all
    batches (0.0, a Python float, before any).

    >>> m = eager.metric.Accuracy(topk=(1, 2))
    >>> pred = eager.to_tensor([[0.1, 0.7, 0.2], [0.5, 0.2, 0.3]])
    >>> correct = m.compute(pred, eager.to_tensor([[2], [0]]))
    >>> m.update(correct)
    [np.float64(0.5), np.float64(1.0)]
    >>> m.name()
    ['acc_top1', 'acc_top2']
    """

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if (not isinstance(topk, (tuple, list)) or not topk
                or not all(isinstance(k, numbers.Integral) and not isinstance(k, bool) for k in topk)):
            raise TypeError(f"Accuracy: argument 'topk' expected a non-empty tuple or list of "
                            f"positive ints, got {topk!r}")
        if not all(k > 0 for k in topk):
            raise ValueError(f"Accuracy: argument 'topk' expected a non-empty tuple or list of "
                             f"positive ints, got {topk!r}")
        self.topk = tuple(int(k) for k in topk)
        self.maxk = max(self.topk)
        name = _check_name("Accuracy", name, "acc")
        self._name = [f"{name}_top{k}" for k in self.topk] if self.maxk != 1 else [name]
        self.reset()

    def compute(self, pred, label, *args):
        """The correct matrix of a batch: float32 ``[..., max(topk)]``."""
        pred = _as_tensor("Accuracy.compute", "pred", pred)
        label = _as_tensor("Accuracy.compute", "label", label)
        if pred.ndim < 1:
            raise ValueError("Accuracy.compute: argument 'pred' expected at least 1 dimension "
                             "(the classes), got a 0-d tensor")
        with no_grad():  # a count: nothing to differentiate
            if label.ndim == 1 or (label.ndim == 2 and label.shape[-1] == 1):
                label = _F.reshape(label, [-1, 1])
            elif label.ndim >= 1 and label.shape[-1] != 1:
                label = _F.argmax(label, axis=-1, keepdim=True)  # one-hot
            if label.ndim != pred.ndim or label.shape[:-1] != pred.shape[:-1]:
                raise ValueError(f"Accuracy.compute: argument 'label' expected class ids of shape "
                                 f"{pred.shape[:-1]} or {pred.shape[:-1] + [1]} (or one-hot "
                                 f"{pred.shape}) for 'pred' of shape {pred.shape}, got {label.shape}")
            order = _F.argsort(pred, axis=-1, descending=True)
            top = _F.slice(order, [pred.ndim - 1], [0], [min(self.maxk, pred.shape[-1])])
            if label.dtype != top.dtype:
                label = _F.cast(label, top.dtype)
            return _F.cast(_F.equal(top, label), "float32")

    def update(self, correct, *args):
        """Adds a correct matrix (from ``compute``); returns the batch's accuracy."""
        correct = _as_numpy("Accuracy.update", "correct", correct)
        if correct.ndim < 1:
            raise ValueError("Accuracy.update: argument 'correct' expected the [..., k] correct "
                             "matrix from Accuracy.compute, got a 0-d array")
        num_samples = int(np.prod(correct.shape[:-1]))
        if num_samples == 0:
            raise ValueError(f"Accuracy.update: argument 'correct' holds no samples "
                             f"(shape {list(correct.shape)})")
        accs = []
        for i, k in enumerate(self.topk):
            num_corrects = float(correct[..., :k].sum())
            # NumPy float64, as Paddle's (its sample count is a NumPy int): the
            # type shows where a user prints or logs the value.
            accs.append(np.float64(num_corrects / num_samples))
            self.total[i] += num_corrects
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        """Clears the counts."""
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        """Accuracy over all batches since ``reset`` (0.0 before any): a float, or a list per k."""
        res = [np.float64(t / c) if c > 0 else 0.0 for t, c in zip(self.total, self.count)]  # as update
        return res[0] if len(self.topk) == 1 else res

    def name(self):
        """``['acc']``, or ``['acc_top1', 'acc_top5', ...]`` when some k is above 1."""
        return self._name


def _binary_batch(who: str, preds, labels):
    """preds and labels of a binary metric as flat arrays of one length."""
    preds = _as_numpy(who, "preds", preds)
    labels = _as_numpy(who, "labels", labels)
    if labels.ndim == 0 or preds.ndim == 0:
        raise ValueError(f"{who}: arguments 'preds' and 'labels' expected arrays of shape [N] or "
                         f"[N, 1], got shapes {list(preds.shape)} and {list(labels.shape)}")
    n = labels.shape[0]
    if preds.size != n or labels.size != n:
        raise ValueError(f"{who}: arguments 'preds' and 'labels' expected one value per sample "
                         f"(shape [N] or [N, 1]), got shapes {list(preds.shape)} and "
                         f"{list(labels.shape)}")
    return preds.reshape(n), labels.reshape(n)


class Precision(Metric):
    """Binary precision, tp / (tp + fp): ``preds`` are probabilities of the
    positive class (a prediction is positive when it rounds to 1, i.e. >= 0.5),
    ``labels`` 0 or 1, each of shape [N] or [N, 1].

    >>> m = eager.metric.Precision()
    >>> m.update(np.array([0.1, 0.5, 0.8, 0.6]), np.array([0, 1, 1, 0]))
    >>> m.accumulate()
    0.6666666666666666
    """

    def __init__(self, name="precision", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._name = _check_name("Precision", name, "precision")
        self.reset()

    def update(self, preds, labels):
        """Counts the batch's true and false positives."""
        preds, labels = _binary_batch("Precision.update", preds, labels)
        positive = np.floor(preds + 0.5).astype("int32") == 1
        hit = positive & (labels == 1)
        self.tp += int(hit.sum())
        self.fp += int(positive.sum()) - int(hit.sum())

    def reset(self):
        """Clears the counts."""
        self.tp = 0
        self.fp = 0

    def accumulate(self):
        """tp / (tp + fp) over all batches; 0.0 when nothing was predicted positive."""
        predicted = self.tp + self.fp
        return float(self.tp) / predicted if predicted != 0 else 0.0

    def name(self):
        """The name given at construction (``'precision'``)."""
        return self._name


class Recall(Metric):
    """Binary recall, tp / (tp + fn): ``preds`` are probabilities of the
    positive class (positive when >= 0.5), ``labels`` 0 or 1, shape [N] or [N, 1].

    >>> m = eager.metric.Recall()
    >>> m.update(np.array([0.1, 0.5, 0.8, 0.6]), np.array([0, 1, 1, 1]))
    >>> m.accumulate()
    1.0
    """

    def __init__(self, name="recall", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._name = _check_name("Recall", name, "recall")
        self.reset()

    def update(self, preds, labels):
        """Counts the batch's true positives and false negatives."""
        preds, labels = _binary_batch("Recall.update", preds, labels)
        positive = np.floor(preds + 0.5).astype("int32") == 1
        actual = labels == 1
        self.tp += int((positive & actual).sum())
        self.fn += int((~positive & actual).sum())

    def reset(self):
        """Clears the counts."""
        self.tp = 0
        self.fn = 0

    def accumulate(self):
        """tp / (tp + fn) over all batches; 0.0 when no label was positive."""
        actual = self.tp + self.fn
        return float(self.tp) / actual if actual != 0 else 0.0

    def name(self):
        """The name given at construction (``'recall'``)."""
        return self._name


class Auc(Metric):
    """Area under the ROC curve, by Paddle's bucketed algorithm: each
    prediction goes to bucket ``int(p * num_thresholds)``, and the area is the
    trapezoid sum over the buckets' cumulative (false positive, true positive)
    counts, so it is exact up to ties that the bucketing creates.

    ``update(preds, labels)``: ``preds`` ``[N, 2]`` class probabilities (column
    1 is the positive class's), ``labels`` ``[N]`` or ``[N, 1]`` (nonzero is
    positive).

    >>> m = eager.metric.Auc()
    >>> p1 = np.array([0.1, 0.4, 0.35, 0.8])
    >>> m.update(np.stack([1 - p1, p1], axis=1), np.array([0, 0, 1, 1]))
    >>> m.accumulate()
    0.75
    """

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not isinstance(curve, str) or curve != "ROC":
            raise ValueError(f"Auc: argument 'curve' expected 'ROC' (the curve Paddle's Auc "
                             f"computes), got {curve!r}")
        if not isinstance(num_thresholds, numbers.Integral) or isinstance(num_thresholds, bool):
            raise TypeError(f"Auc: argument 'num_thresholds' expected a positive int, "
                            f"got {num_thresholds!r}")
        if num_thresholds < 1:
            raise ValueError(f"Auc: argument 'num_thresholds' expected a positive int, "
                             f"got {num_thresholds!r}")
        try:  # its two histograms hold num_thresholds + 1 float64 buckets each
            check_result_shape("num_thresholds", (int(num_thresholds) + 1,), DataType.FLOAT64)
        except InvalidArgumentError as error:
            raise ValueError(f"Auc: {error}") from None
        self._curve = curve
        self._num_thresholds = int(num_thresholds)
        self._name = _check_name("Auc", name, "auc")
        self.reset()

    def update(self, preds, labels):
        """Adds the batch's predictions to the positive and negative histograms."""
        preds = _as_numpy("Auc.update", "preds", preds)
        labels = _as_numpy("Auc.update", "labels", labels)
        if preds.ndim != 2 or preds.shape[1] < 2:
            raise ValueError(f"Auc.update: argument 'preds' expected class probabilities of shape "
                             f"[N, 2], got {list(preds.shape)}")
        n = preds.shape[0]
        if labels.ndim == 0 or labels.shape[0] != n or labels.size != n:
            raise ValueError(f"Auc.update: argument 'labels' expected shape [{n}] or [{n}, 1] for "
                             f"'preds' of shape {list(preds.shape)}, got {list(labels.shape)}")
        scores = preds[:, 1]
        if not np.all((scores >= 0) & (scores <= 1)):
            raise ValueError("Auc.update: argument 'preds' expected probabilities in [0, 1] in "
                             f"column 1, got values from {scores.min()} to {scores.max()}")
        buckets = (scores * self._num_thresholds).astype(np.int64)
        positive = labels.reshape(n) != 0
        size = self._num_thresholds + 1
        self._stat_pos += np.bincount(buckets[positive], minlength=size)
        self._stat_neg += np.bincount(buckets[~positive], minlength=size)

    @staticmethod
    def trapezoid_area(x1, x2, y1, y2):
        """Area of the trapezoid between x1 and x2 under the line from y1 to y2."""
        return abs(x1 - x2) * (y1 + y2) / 2.0

    def accumulate(self):
        """The area over all batches; 0.0 unless both classes were seen."""
        area = roc_area(self._stat_pos, self._stat_neg)
        return 0.0 if area is None else np.float64(area)  # NumPy float64, as Paddle's (0.0 stays a float)

    def reset(self):
        """Clears the histograms."""
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def name(self):
        """The name given at construction (``'auc'``)."""
        return self._name


def roc_area(stat_pos: np.ndarray, stat_neg: np.ndarray):
    """The area under the ROC curve of bucketed positive and negative counts (bucket i
    holds the predictions in [i, i + 1) / num_thresholds), as Paddle's auc op and
    Auc metric compute it; None unless both classes were counted."""
    # From the highest bucket down: each bucket moves the curve from (neg so far, pos so
    # far) by its own counts; the area is the trapezoids' sum over positives x negatives.
    pos = np.concatenate([[0.0], np.cumsum(stat_pos[::-1], dtype=np.float64)])
    neg = np.concatenate([[0.0], np.cumsum(stat_neg[::-1], dtype=np.float64)])
    tot_pos, tot_neg = pos[-1], neg[-1]
    if tot_pos <= 0.0 or tot_neg <= 0.0:
        return None
    return float(np.sum(Auc.trapezoid_area(neg[1:], neg[:-1], pos[1:], pos[:-1]))) / tot_pos / tot_neg


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """Top-k accuracy of one batch as a float32 0-d Tensor: the fraction of
    rows of ``input`` ([N, C] scores) whose label (``label``, int [N, 1] or
    [N]) is among the k highest scores. ``correct`` and ``total``, Tensors,
    are set to the counts when given (int32 0-d, as Paddle's op leaves them).

    >>> pred = eager.to_tensor([[0.2, 0.1, 0.4, 0.1, 0.1], [0.2, 0.3, 0.1, 0.15, 0.25]])
    >>> eager.metric.accuracy(pred, eager.to_tensor([[2], [0]]), k=1).item()
    0.5
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"accuracy: argument 'input' expected a Tensor, got {type(input).__name__}")
    if not isinstance(label, Tensor):
        raise TypeError(f"accuracy: argument 'label' expected a Tensor, got {type(label).__name__}")
    if input.ndim != 2:
        raise ValueError(f"accuracy: argument 'input' expected shape [N, C], got {input.shape}")
    if not input.dtype.is_floating_point:
        # Paddle's accuracy takes float16/32/64 scores (its static check: TypeError; dygraph has no int kernel)
        raise TypeError(f"accuracy: argument 'input' expected a float16, float32 or float64 Tensor, got {input.dtype}")
    n, classes = input.shape
    if label.shape not in ([n, 1], [n]):
        raise ValueError(f"accuracy: argument 'label' expected shape [{n}, 1] for 'input' of "
                         f"shape {input.shape}, got {label.shape}")
    if label.dtype not in INTEGER_TYPES:
        raise TypeError(f"accuracy: argument 'label' expected an int32 or int64 Tensor, "
                        f"got {label.dtype}")
    if not isinstance(k, numbers.Integral) or isinstance(k, bool) or not 1 <= k <= classes:
        raise ValueError(f"accuracy: argument 'k' expected an int in [1, {classes}], got {k!r}")
    for arg, holder in (("correct", correct), ("total", total)):
        if holder is not None and not isinstance(holder, Tensor):
            raise TypeError(f"accuracy: argument '{arg}' expected a Tensor or None, got "
                            f"{type(holder).__name__}")
    with no_grad():  # a count: nothing to differentiate
        _, indices = _F.topk(input, int(k))
        hits = _F.equal(indices, _F.cast(_F.reshape(label, [n, 1]), indices.dtype))
        num_correct = _F.cast(_F.sum(_F.cast(_F.any(hits, axis=1), "int64")), "int32")
        result = _F.divide(_F.cast(num_correct, "float32"), _F.full([], float(n), "float32"))
        # Paddle's accuracy op writes its outputs into the Tensors given: afterwards
        # they hold the int32 0-d counts, whatever shape and dtype they had.
        if correct is not None:
            correct.data = num_correct
        if total is not None:
            total.data = _F.full([], n, "int32")
    return result
