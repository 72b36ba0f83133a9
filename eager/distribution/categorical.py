"""``Categorical``: Paddle's ``paddle.distribution.Categorical`` (and its KL divergence).

As in Paddle, the ``logits`` argument plays two parts: ``probs`` and
``log_prob`` read it as unnormalized probabilities (``logits / sum``), while
``sample``, ``entropy`` and ``kl_divergence`` read it as logits (``softmax``).
"""
from __future__ import annotations

import math

from ..autograd import no_grad
from ..generated import forward_api as _F
from ..nn.functional.checks import reads_values  # read on a GPU only in anomaly mode
from ..tensor import Tensor
from .distribution import Distribution
from .kl import register_kl
from ._params import as_params


class Categorical(Distribution):
    """A distribution over the categories ``0 .. K-1`` along the last axis of ``logits``.

    ``logits`` has shape ``batch_shape + [K]``. ``sample`` draws category
    indices (int64) with probabilities ``softmax(logits)``, as ``entropy`` and
    ``kl_divergence`` read them, while ``probs`` and ``log_prob`` use
    ``logits / logits.sum(-1)``: Paddle's two readings, kept as they are.

    >>> import eager
    >>> from eager.distribution import Categorical
    >>> c = Categorical(eager.to_tensor([0.1, 0.2, 0.7]))
    >>> c.sample([4]).shape
    [4]
    >>> [round(v, 4) for v in c.probs(eager.to_tensor([2, 0])).numpy().tolist()]
    [0.7, 0.1]
    """

    def __init__(self, logits, name=None):
        (self.logits,) = as_params("Categorical", logits=logits)
        if len(self.logits.shape) == 0:
            raise ValueError("Categorical: argument 'logits' expected at least 1 dimension "
                             "(the categories), got a 0-d value")
        if self.logits.shape[-1] == 0:
            raise ValueError(f"Categorical: argument 'logits' expected at least one category on its last axis, "
                             f"got shape {list(self.logits.shape)}")
        self.name = name or "Categorical"
        self.dtype = self.logits.dtype
        self._prob = self.logits / _F.sum(self.logits, axis=-1, keepdim=True)
        super().__init__(self.logits.shape[:-1])

    def sample(self, shape=()):
        """Category indices (int64) of shape ``shape + batch_shape``, drawn with
        probabilities ``softmax(logits)`` (as Paddle)."""
        shape = self._extend_shape(shape)
        n = int(math.prod(shape[:len(shape) - len(self.batch_shape)]))
        k = self.logits.shape[-1]
        prob = _F.softmax(_F.reshape(self.logits.detach(), [-1, k]), -1)
        if n == 0 or prob.shape[0] == 0:
            return _F.zeros(list(shape), "int64")
        draws = _F.multinomial(prob, n, True)                 # [batch, n]
        return _F.reshape(_F.transpose(draws, [1, 0]), list(shape))

    def entropy(self):
        """``-sum(softmax(logits) * log_softmax(logits))`` over the categories."""
        log_p = _F.log_softmax(self.logits, -1)
        return -_F.sum(_F.exp(log_p) * log_p, axis=-1)

    def probs(self, value):
        """The probabilities of the category indices ``value`` (Paddle's layout).

        With 1-d logits the result has ``value``'s shape. With batched logits a
        1-d ``value`` is looked up in every batch row (``batch_shape + [n]``),
        and a ``value`` of shape ``batch_shape + [n]`` row by row. Indices outside
        ``[0, K)`` raise ValueError (one host read of ``value``; on a GPU only in
        anomaly mode, as the GPU kernels check values).
        """
        if not isinstance(value, Tensor):
            raise TypeError(f"Categorical.probs: argument 'value' expected an integer Tensor, "
                            f"got {type(value).__name__}")
        if value.dtype.is_floating_point or value.dtype.value == "bool":
            raise TypeError(f"Categorical.probs: argument 'value' expected an integer Tensor, "
                            f"got dtype {value.dtype}")
        k = self.logits.shape[-1]
        if reads_values(value):
            with no_grad():
                indices = value.numpy()
            bad = (indices < 0) | (indices >= k)
            if bad.any():
                raise ValueError(f"Categorical.probs: argument 'value' expected category indices in [0, {k}), "
                                 f"got {int(indices[bad].ravel()[0])}")
        if len(self.logits.shape) == 1:
            flat = _F.reshape(value, [-1])
            return _F.reshape(_F.gather(self._prob, flat, 0), list(value.shape))
        if len(value.shape) == 1:
            value = _F.reshape(value, [1] * (len(self.logits.shape) - 1) + [-1])
        return _F.take_along_axis(self._prob, value, -1)

    def prob(self, value):
        """The same as ``probs``."""
        return self.probs(value)

    def log_prob(self, value):
        """``log(probs(value))``."""
        return _F.log(self.probs(value))


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    # Paddle keeps the category axis: the result is batch_shape + [1].
    log_p = _F.log_softmax(p.logits, -1)
    log_q = _F.log_softmax(q.logits, -1)
    return _F.sum(_F.exp(log_p) * (log_p - log_q), axis=-1, keepdim=True)


__all__ = ["Categorical"]
