"""The adaptive softmax layer (Paddle's ``paddle.nn.AdaptiveLogSoftmaxWithLoss``):
its head and tail parameters, ``forward`` through
eager.nn.functional.adaptive_log_softmax_with_loss (see there for the formula),
and ``log_prob``/``predict`` over all classes."""
from __future__ import annotations

import numbers

from phi.common.data_type import DataType

from ..generated import forward_api as _F
from .container import ParameterList
from .functional import adaptive_softmax as _adaptive
from .functional.checks import check_float, check_positive_int
from .layer import Layer
from .layers import LayerList

__all__ = ["AdaptiveLogSoftmaxWithLoss"]


class AdaptiveLogSoftmaxWithLoss(Layer):
    """Adaptive softmax (Grave et al., 2016) for large vocabularies.

    Classes below cutoffs[0] form the head's shortlist; cluster i holds classes
    [cutoffs[i], cutoffs[i + 1]) (the last ending at n_classes) and is reached
    through a head logit, then a two-matrix projection of width
    in_features // div_value ** (i + 1). Parameters: ``head_weight``
    [in_features, cutoffs[0] + n_clusters], ``head_bias`` (with
    ``head_bias=True``), ``tail_weights[i]`` a ParameterList of the two
    matrices. ``forward(input, label)`` gives (output, loss) as
    :func:`eager.nn.functional.adaptive_log_softmax_with_loss`; ``log_prob``
    all classes' log-probabilities [N, n_classes]; ``predict`` the most
    likely class.

    >>> asm = eager.nn.AdaptiveLogSoftmaxWithLoss(16, 10, cutoffs=[4, 8])
    >>> out, loss = asm(eager.randn([3, 16]), eager.to_tensor([0, 5, 9]))
    >>> out.shape, asm.log_prob(eager.randn([3, 16])).shape
    ([3], [3, 10])
    """

    def __init__(self, in_features: int, n_classes: int, cutoffs, weight_attr=None, bias_attr=None,
                 div_value: float = 4.0, head_bias: bool = False, name=None):
        super().__init__()
        self._name = name
        fn = "AdaptiveLogSoftmaxWithLoss"
        in_features = check_positive_int(fn, "in_features", in_features, ValueError)
        n_classes = check_positive_int(fn, "n_classes", n_classes, ValueError)
        if (not isinstance(cutoffs, (list, tuple)) or not cutoffs
                or any(isinstance(c, bool) or not isinstance(c, numbers.Integral) for c in cutoffs)
                or list(cutoffs) != sorted(set(cutoffs)) or cutoffs[0] <= 0 or cutoffs[-1] >= n_classes):
            raise ValueError(f"{fn}: argument 'cutoffs' expected increasing unique ints in [1, n_classes - 1] = "
                             f"[1, {n_classes - 1}], got {cutoffs!r}")
        if isinstance(div_value, bool) or not isinstance(div_value, numbers.Real) or div_value <= 0:
            raise ValueError(f"{fn}: argument 'div_value' expected a positive number, got {div_value!r}")
        if not isinstance(head_bias, bool):
            raise TypeError(f"{fn}: argument 'head_bias' expected a bool, got {type(head_bias).__name__}")
        self.in_features, self.n_classes, self.div_value = in_features, n_classes, float(div_value)
        self.cutoffs = [int(c) for c in cutoffs] + [n_classes]
        self.shortlist_size, self.n_clusters = self.cutoffs[0], len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head_weight = self.create_parameter([in_features, self.head_size], weight_attr)
        self.head_bias = self.create_parameter([self.head_size], bias_attr, is_bias=True) if head_bias else None
        tails = []
        for i in range(self.n_clusters):
            hidden = int(in_features // (self.div_value ** (i + 1)))
            if hidden <= 0:
                raise ValueError(f"{fn}: cluster {i}'s projection width in_features // div_value ** {i + 1} = "
                                 f"{hidden} must be positive (in_features {in_features}, div_value {div_value})")
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            tails.append(ParameterList([self.create_parameter([in_features, hidden], weight_attr),
                                        self.create_parameter([hidden, size], weight_attr)]))
        self.tail_weights = LayerList(tails)

    def _tails(self) -> list:
        return [[pair[0], pair[1]] for pair in self.tail_weights]

    def forward(self, input, label):
        """(output, loss): label's log-probability per sample and the mean negative."""
        return _adaptive.adaptive_log_softmax_with_loss(input, label, self.head_weight, self._tails(), self.cutoffs,
                                                        self.head_bias)

    def log_prob(self, input):
        """Every class's log-probability, [N, n_classes]."""
        check_float("AdaptiveLogSoftmaxWithLoss.log_prob", "input", input)
        if input.ndim != 2 or input.shape[1] != self.in_features:
            raise ValueError(f"AdaptiveLogSoftmaxWithLoss.log_prob: argument 'input' expected shape [N, "
                             f"{self.in_features}], got {input.shape}")
        head = _F.matmul(input, self.head_weight, False, False)
        if self.head_bias is not None:
            head = _F.add(head, self.head_bias)
        head = _F.log_softmax(head, -1)
        parts = [_F.slice(head, [1], [0], [self.shortlist_size])]
        for i, (w1, w2) in enumerate(self._tails()):
            tail = _F.log_softmax(_F.matmul(_F.matmul(input, w1, False, False), w2, False, False), -1)
            cluster = _F.slice(head, [1], [self.shortlist_size + i], [self.shortlist_size + i + 1])
            parts.append(_F.add(tail, cluster))
        return _F.concat(parts, 1)

    def predict(self, input):
        """The most likely class of each sample, int64 [N]."""
        return _F.argmax(self.log_prob(input), 1, False, DataType.INT64)

    def extra_repr(self) -> str:
        """The sizes, shown by repr."""
        return (f"in_features={self.in_features}, n_classes={self.n_classes}, cutoffs={self.cutoffs[:-1]}, "
                f"div_value={self.div_value}, head_bias={self.head_bias is not None}")
