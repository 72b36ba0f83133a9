"""Loss layers (Paddle's ``paddle.nn.loss``, also exported from ``paddle.nn``).

Each holds its options and calls its functional in ``eager.nn.functional`` (see
there for the formulas); options are checked when the layer is built. A
``weight`` given to a layer is kept as a plain attribute, not a parameter.
"""
from __future__ import annotations

import numbers

from .functional import loss as _loss
from .functional import rnnt as _rnnt
from .functional.checks import check_number, check_positive_int, check_reduction
from .layer import Layer


def _set_name(layer, value) -> None:
    layer._name = value


# Paddle's loss layers keep their ``name`` argument as a public attribute
_NAME = property(lambda layer: layer._name, _set_name, doc="The ``name`` the loss was built with (or None).")


class _Loss(Layer):
    name = _NAME

    def __init__(self, reduction: str = "mean", name=None):
        super().__init__()
        self._name = name
        self.reduction = check_reduction(type(self).__name__, reduction)


class MSELoss(Layer):
    """Layer form of :func:`eager.nn.functional.mse_loss`."""

    def __init__(self, reduction: str = "mean"):
        super().__init__()
        self.reduction = check_reduction("MSELoss", reduction)

    def forward(self, input, label):
        """The loss of input against label."""
        return _loss.mse_loss(input, label, self.reduction)


class CrossEntropyLoss(Layer):
    """Layer form of :func:`eager.nn.functional.cross_entropy`."""

    name = _NAME

    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean",
                 soft_label: bool = False, axis: int = -1, use_softmax: bool = True,
                 label_smoothing: float = 0.0, name=None):
        super().__init__()
        self._name = name
        self.weight, self.ignore_index = weight, ignore_index
        self.reduction = check_reduction("CrossEntropyLoss", reduction)
        self.soft_label, self.axis, self.use_softmax = soft_label, axis, use_softmax
        self.label_smoothing = label_smoothing

    def forward(self, input, label):
        """The loss of input against label."""
        return _loss.cross_entropy(input, label, self.weight, self.ignore_index, self.reduction,
                               self.soft_label, self.axis, self.use_softmax, self.label_smoothing)


class NLLLoss(_Loss):
    """Layer form of :func:`eager.nn.functional.nll_loss`: input log-probabilities
    [N, C, ...], label class indices [N, ...].

    >>> loss = eager.nn.NLLLoss()
    >>> log_p = eager.nn.functional.log_softmax(eager.to_tensor([[1.0, 2.0]]))
    >>> round(float(loss(log_p, eager.to_tensor([1]))), 4)
    0.3133
    """

    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean", name=None):
        super().__init__(reduction, name)
        self.weight, self.ignore_index = weight, ignore_index

    def forward(self, input, label):
        """The loss of input against label."""
        return _loss.nll_loss(input, label, self.weight, self.ignore_index, self.reduction)


class BCELoss(_Loss):
    """Layer form of :func:`eager.nn.functional.binary_cross_entropy` (input: probabilities).

    >>> loss = eager.nn.BCELoss()
    >>> round(float(loss(eager.to_tensor([0.5, 0.6, 0.7]), eager.to_tensor([1.0, 0.0, 1.0]))), 4)
    0.6554
    """

    def __init__(self, weight=None, reduction: str = "mean", name=None):
        super().__init__(reduction, name)
        self.weight = weight

    def forward(self, input, label):
        """The loss of input against label."""
        return _loss.binary_cross_entropy(input, label, self.weight, self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Layer form of :func:`eager.nn.functional.binary_cross_entropy_with_logits`.

    >>> loss = eager.nn.BCEWithLogitsLoss()
    >>> round(float(loss(eager.to_tensor([5.0, 1.0, 3.0]), eager.to_tensor([1.0, 0.0, 1.0]))), 4)
    0.4562
    """

    def __init__(self, weight=None, reduction: str = "mean", pos_weight=None, name=None):
        super().__init__(reduction, name)
        self.weight, self.pos_weight = weight, pos_weight

    def forward(self, logit, label):
        """The loss of logit against label."""
        return _loss.binary_cross_entropy_with_logits(logit, label, self.weight, self.reduction, self.pos_weight)


class L1Loss(_Loss):
    """Layer form of :func:`eager.nn.functional.l1_loss`.

    >>> float(eager.nn.L1Loss()(eager.to_tensor([1.0, 3.0]), eager.to_tensor([2.0, 1.0])))
    1.5
    """

    def __init__(self, reduction: str = "mean", name=None):
        super().__init__(reduction, name)

    def forward(self, input, label):
        """The loss of input against label."""
        return _loss.l1_loss(input, label, self.reduction)


class SmoothL1Loss(_Loss):
    """Layer form of :func:`eager.nn.functional.smooth_l1_loss` (Paddle's, i.e. the Huber loss).

    >>> float(eager.nn.SmoothL1Loss(delta=1.0)(eager.to_tensor([3.0]), eager.to_tensor([0.0])))
    2.5
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0, name=None):
        super().__init__(reduction, name)
        self.delta = check_number("SmoothL1Loss", "delta", delta)

    def forward(self, input, label):
        """The loss of input against label."""
        return _loss.smooth_l1_loss(input, label, self.reduction, self.delta)


class KLDivLoss(Layer):
    """Layer form of :func:`eager.nn.functional.kl_div` (reduction also 'batchmean').

    >>> loss = eager.nn.KLDivLoss(reduction="sum")
    >>> round(float(loss(eager.to_tensor([-1.0, -0.5]), eager.to_tensor([0.3, 0.7]))), 4)
    0.0391
    """

    def __init__(self, reduction: str = "mean", log_target: bool = False):
        super().__init__()
        if not isinstance(reduction, str) or reduction not in ("mean", "batchmean", "sum", "none"):
            raise ValueError(f"KLDivLoss: argument 'reduction' expected one of 'mean', 'batchmean', 'sum', "
                             f"'none', got {reduction!r}")
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input, label):
        """The loss of input (log-probabilities) against label."""
        return _loss.kl_div(input, label, self.reduction, self.log_target)


class MarginRankingLoss(_Loss):
    """Layer form of :func:`eager.nn.functional.margin_ranking_loss`.

    >>> loss = eager.nn.MarginRankingLoss(margin=0.5)
    >>> float(loss(eager.to_tensor([1.0]), eager.to_tensor([2.0]), eager.to_tensor([1.0])))
    1.5
    """

    def __init__(self, margin: float = 0.0, reduction: str = "mean", name=None):
        super().__init__(reduction, name)
        self.margin = check_number("MarginRankingLoss", "margin", margin)

    def forward(self, input, other, label):
        """The loss of ranking input against other as label says."""
        return _loss.margin_ranking_loss(input, other, label, self.margin, self.reduction)


class HingeEmbeddingLoss(_Loss):
    """Layer form of :func:`eager.nn.functional.hinge_embedding_loss`.

    >>> loss = eager.nn.HingeEmbeddingLoss(margin=1.0, reduction="sum")
    >>> round(float(loss(eager.to_tensor([0.3, 0.4]), eager.to_tensor([1.0, -1.0]))), 4)
    0.9
    """

    def __init__(self, margin: float = 1.0, reduction: str = "mean", name=None):
        super().__init__(reduction, name)
        self.margin = check_number("HingeEmbeddingLoss", "margin", margin)

    def forward(self, input, label):
        """The loss of input against label (1 or -1)."""
        return _loss.hinge_embedding_loss(input, label, self.margin, self.reduction)


class CosineEmbeddingLoss(_Loss):
    """Layer form of :func:`eager.nn.functional.cosine_embedding_loss`.

    >>> loss = eager.nn.CosineEmbeddingLoss()
    >>> a = eager.to_tensor([[1.0, 0.0]])
    >>> float(loss(a, eager.to_tensor([[0.0, 1.0]]), eager.to_tensor([1])))
    1.0
    """

    def __init__(self, margin: float = 0, reduction: str = "mean", name=None):
        super().__init__(reduction, name)
        self.margin = check_number("CosineEmbeddingLoss", "margin", margin)
        if not -1 <= self.margin <= 1:  # a cosine lies in [-1, 1] (Paddle refuses it too)
            raise ValueError(f"CosineEmbeddingLoss: argument 'margin' expected a number in [-1, 1], got {margin!r}")

    def forward(self, input1, input2, label):
        """The loss of input1 against input2 as label (1 or -1) says."""
        return _loss.cosine_embedding_loss(input1, input2, label, self.margin, self.reduction)


class TripletMarginLoss(_Loss):
    """Layer form of :func:`eager.nn.functional.triplet_margin_loss`.

    >>> loss = eager.nn.TripletMarginLoss(epsilon=0.0)
    >>> a = eager.to_tensor([[0.0, 0.0]])
    >>> float(loss(a, a + 1.0, a + 0.5))
    1.7071...
    """

    def __init__(self, margin: float = 1.0, p: float = 2.0, epsilon: float = 1e-6, swap: bool = False,
                 reduction: str = "mean", name=None):
        super().__init__(reduction, name)
        fn = "TripletMarginLoss"
        self.margin, self.p, self.epsilon = (check_number(fn, a, v)
                                             for a, v in (("margin", margin), ("p", p), ("epsilon", epsilon)))
        self.swap = swap

    def forward(self, input, positive, negative):
        """The loss of the triplet."""
        return _loss.triplet_margin_loss(input, positive, negative, self.margin, self.p, self.epsilon,
                                         self.swap, self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """Layer form of :func:`eager.nn.functional.triplet_margin_with_distance_loss`.

    >>> loss = eager.nn.TripletMarginWithDistanceLoss(margin=0.5)
    >>> a = eager.to_tensor([[0.0, 0.0]])
    >>> round(float(loss(a, a + 3.0, a + 4.0)), 4)      # distances sqrt(18), sqrt(32): max(0, -1.4142 + 0.5)
    0.0
    """

    def __init__(self, distance_function=None, margin: float = 1.0, swap: bool = False, reduction: str = "mean",
                 name=None):
        super().__init__(reduction, name)
        fn = "TripletMarginWithDistanceLoss"
        self.margin = check_number(fn, "margin", margin)
        if self.margin < 0:
            raise ValueError(f"{fn}: argument 'margin' expected a number >= 0, got {self.margin}")
        if distance_function is not None and not callable(distance_function):
            raise TypeError(f"{fn}: argument 'distance_function' expected a callable or None, got "
                            f"{type(distance_function).__name__}")
        if not isinstance(swap, bool):
            raise TypeError(f"{fn}: argument 'swap' expected a bool, got {swap!r}")
        self.distance_function, self.swap = distance_function, swap

    def forward(self, input, positive, negative):
        """The loss of the triplet."""
        return _loss.triplet_margin_with_distance_loss(input, positive, negative, self.distance_function,
                                                       self.margin, self.swap, self.reduction)


class SoftMarginLoss(_Loss):
    """Layer form of :func:`eager.nn.functional.soft_margin_loss`.

    >>> round(float(eager.nn.SoftMarginLoss()(eager.to_tensor([0.0]), eager.to_tensor([1.0]))), 4)
    0.6931
    """

    def __init__(self, reduction: str = "mean", name=None):
        super().__init__(reduction, name)

    def forward(self, input, label):
        """The loss of input against label (1 or -1)."""
        return _loss.soft_margin_loss(input, label, self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    """Layer form of :func:`eager.nn.functional.multi_label_soft_margin_loss`.

    >>> loss = eager.nn.MultiLabelSoftMarginLoss()
    >>> round(float(loss(eager.to_tensor([[0.0, 0.0]]), eager.to_tensor([[1.0, 0.0]]))), 4)
    0.6931
    """

    def __init__(self, weight=None, reduction: str = "mean", name=None):
        super().__init__(reduction, name)
        self.weight = weight

    def forward(self, input, label):
        """The loss of input against the 0/1 label."""
        return _loss.multi_label_soft_margin_loss(input, label, self.weight, self.reduction)


class MultiMarginLoss(_Loss):
    """Layer form of :func:`eager.nn.functional.multi_margin_loss` (input [N, C], label [N]).

    >>> loss = eager.nn.MultiMarginLoss(p=2)
    >>> round(float(loss(eager.to_tensor([[0.1, 0.2, 0.4, 0.8]]), eager.to_tensor([3]))), 4)
    0.1525
    """

    def __init__(self, p: int = 1, margin: float = 1.0, weight=None, reduction: str = "mean", name=None):
        super().__init__(reduction, name)
        fn = "MultiMarginLoss"
        p = check_number(fn, "p", p)
        if not p > 0:
            raise ValueError(f"{fn}: argument 'p' expected a positive number, got {p!r}")
        self.p, self.margin, self.weight = p, check_number(fn, "margin", margin), weight

    def forward(self, input, label):
        """The loss of input against label."""
        return _loss.multi_margin_loss(input, label, self.p, self.margin, self.weight, self.reduction)


class HSigmoidLoss(Layer):
    """Layer form of :func:`eager.nn.functional.hsigmoid_loss`, holding the node
    weights [num_classes - 1, feature_size] and biases [num_classes - 1, 1]
    ([num_classes, ...] with ``is_custom=True``, where num_classes counts the
    tree's inner nodes); called as ``loss(input, label, path_table=None,
    path_code=None)``.

    >>> loss = eager.nn.HSigmoidLoss(feature_size=4, num_classes=5)
    >>> loss.weight.shape, loss(eager.ones([2, 4]), eager.to_tensor([0, 4])).shape
    ([4, 4], [2, 1])
    """

    def __init__(self, feature_size: int, num_classes: int, weight_attr=None, bias_attr=None, is_custom: bool = False,
                 is_sparse: bool = False, name=None):
        super().__init__()
        self._name = name
        fn = "HSigmoidLoss"
        feature_size = check_positive_int(fn, "feature_size", feature_size, ValueError)
        num_classes = check_positive_int(fn, "num_classes", num_classes, ValueError)
        for flag, value in (("is_custom", is_custom), ("is_sparse", is_sparse)):
            if not isinstance(value, bool):
                raise TypeError(f"{fn}: argument '{flag}' expected a bool, got {value!r}")
        if not is_custom and num_classes < 2:
            raise ValueError(f"{fn}: argument 'num_classes' expected an int >= 2 with the default tree, got "
                             f"{num_classes}")
        self._num_classes, self._is_custom, self._is_sparse = num_classes, is_custom, is_sparse
        nodes = num_classes if is_custom else num_classes - 1
        self.weight = self.create_parameter([nodes, feature_size], weight_attr)
        self.bias = self.create_parameter([nodes, 1], bias_attr, is_bias=True)

    def forward(self, input, label, path_table=None, path_code=None):
        """The loss of each sample, [N, 1]."""
        return _loss.hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias, path_table, path_code,
                                   self._is_sparse)


class CTCLoss(_Loss):
    """Layer form of :func:`eager.nn.functional.ctc_loss` (softmax applied inside, as Paddle).

    >>> loss = eager.nn.CTCLoss(reduction="sum")
    >>> out = loss(eager.zeros([2, 1, 3]), eager.to_tensor([[1]], dtype="int32"),
    ...            eager.to_tensor([2]), eager.to_tensor([1]))
    >>> round(float(out), 4)
    1.0986
    """

    def __init__(self, blank: int = 0, reduction: str = "mean"):
        super().__init__(reduction)
        self.blank = _loss._check_int("CTCLoss", "blank", blank)

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times: bool = False):
        """The CTC loss of the padded logit sequences against the padded labels."""
        return _loss.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank, self.reduction,
                              norm_by_times)


class GaussianNLLLoss(_Loss):
    """Layer form of :func:`eager.nn.functional.gaussian_nll_loss`; called as
    ``loss(input, label, variance)``.

    >>> loss = eager.nn.GaussianNLLLoss(reduction="sum")
    >>> round(float(loss(eager.to_tensor([1.0]), eager.to_tensor([3.0]), eager.to_tensor([2.0]))), 4)
    1.3466
    """

    def __init__(self, full: bool = False, epsilon: float = 1e-6, reduction: str = "mean", name=None):
        super().__init__(reduction, name)
        fn = "GaussianNLLLoss"
        if not isinstance(full, bool):
            raise TypeError(f"{fn}: argument 'full' expected a bool, got {full!r}")
        self.full, self.epsilon = full, check_number(fn, "epsilon", epsilon)

    def forward(self, input, label, variance):
        """The loss of label under N(input, variance)."""
        return _loss.gaussian_nll_loss(input, label, variance, self.full, self.epsilon, self.reduction)


class PoissonNLLLoss(_Loss):
    """Layer form of :func:`eager.nn.functional.poisson_nll_loss`.

    >>> loss = eager.nn.PoissonNLLLoss()
    >>> round(float(loss(eager.to_tensor([0.0, 1.0]), eager.to_tensor([1.0, 2.0]))), 4)
    0.8591
    """

    def __init__(self, log_input: bool = True, full: bool = False, epsilon: float = 1e-8,
                 reduction: str = "mean", name=None):
        super().__init__(reduction, name)
        epsilon = check_number("PoissonNLLLoss", "epsilon", epsilon)
        if epsilon <= 0:
            raise ValueError(f"PoissonNLLLoss: argument 'epsilon' expected a positive number, got {epsilon}")
        self.log_input, self.full, self.epsilon = log_input, full, epsilon

    def forward(self, input, label):
        """The loss of input against label (counts)."""
        return _loss.poisson_nll_loss(input, label, self.log_input, self.full, self.epsilon, self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Layer form of :func:`eager.nn.functional.multi_label_margin_loss`
    (input [N, C], label [N, C] of class indices padded with -1).

    >>> loss = eager.nn.MultiLabelMarginLoss()
    >>> round(float(loss(eager.to_tensor([[0.1, 0.2, 0.4, 0.8]]), eager.to_tensor([[3, 0, -1, 1]]))), 4)
    0.85
    """

    def forward(self, input, label):
        """The loss of input against label."""
        return _loss.multi_label_margin_loss(input, label, self.reduction)


class RNNTLoss(_Loss):
    """Layer form of :func:`eager.nn.functional.rnnt_loss`.

    >>> loss = eager.nn.RNNTLoss(fastemit_lambda=0.0)
    >>> out = loss(eager.zeros([1, 2, 2, 3]), eager.to_tensor([[1]], dtype="int32"), eager.to_tensor([2]),
    ...            eager.to_tensor([1]))
    >>> round(float(out), 4)
    2.6027
    """

    def __init__(self, blank: int = 0, fastemit_lambda: float = 0.001, reduction: str = "mean", name=None):
        super().__init__(reduction, name)
        if isinstance(blank, bool) or not isinstance(blank, numbers.Integral) or blank < 0:
            raise ValueError(f"RNNTLoss: argument 'blank' expected a non-negative int, got {blank!r}")
        self.blank = int(blank)
        self.fastemit_lambda = check_number("RNNTLoss", "fastemit_lambda", fastemit_lambda)

    def forward(self, input, label, input_lengths, label_lengths):
        """The RNN-T loss of the joint logits against the padded labels."""
        return _rnnt.rnnt_loss(input, label, input_lengths, label_lengths, self.blank, self.fastemit_lambda,
                               self.reduction)


__all__ = ["BCELoss", "BCEWithLogitsLoss", "CTCLoss", "CosineEmbeddingLoss", "HingeEmbeddingLoss", "KLDivLoss",
           "L1Loss", "MarginRankingLoss", "MultiLabelSoftMarginLoss", "NLLLoss", "PoissonNLLLoss", "SmoothL1Loss",
           "SoftMarginLoss", "TripletMarginLoss"]
__all__ += ["GaussianNLLLoss", "HSigmoidLoss", "MultiMarginLoss", "TripletMarginWithDistanceLoss"]
__all__ += ["MultiLabelMarginLoss", "RNNTLoss"]
__all__ += ["CrossEntropyLoss", "MSELoss"]
