"""``Multinomial``: Paddle's ``paddle.distribution.Multinomial``."""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..autograd import no_grad
from ..generated import forward_api as _F
from .distribution import Distribution
from ._params import as_params, as_value, check_positive, check_event


class Multinomial(Distribution):
    """Counts of ``total_count`` draws over K categories with probabilities ``probs``.

    ``probs`` has shape ``batch_shape + [K]`` and is normalized along the last
    axis; one draw is a float vector of K counts summing to ``total_count``.

    >>> import eager
    >>> from eager.distribution import Multinomial
    >>> m = Multinomial(10, eager.to_tensor([0.2, 0.3, 0.5]))
    >>> m.sample([2, 3]).shape, float(m.sample().sum())
    ([2, 3, 3], 10.0)
    """

    def __init__(self, total_count, probs):
        if isinstance(total_count, bool) or not isinstance(total_count, numbers.Integral) or total_count < 1:
            raise ValueError(f"Multinomial: argument 'total_count' expected an int >= 1, got {total_count!r}")
        (probs,) = as_params("Multinomial", probs=probs)
        if len(probs.shape) < 1:
            raise ValueError("Multinomial: argument 'probs' expected at least 1 dimension (the categories), "
                             "got a 0-d value")
        if probs.shape[-1] == 0:
            raise ValueError(f"Multinomial: argument 'probs' expected at least one category on its last axis, "
                             f"got shape {list(probs.shape)}")
        check_positive("Multinomial", "probs", probs, strict=False)
        self.total_count = int(total_count)
        self.probs = probs / _F.sum(probs, axis=-1, keepdim=True)
        self.dtype = self.probs.dtype
        super().__init__(probs.shape[:-1], probs.shape[-1:])

    @property
    def mean(self):
        """``total_count * probs``."""
        return self.probs * float(self.total_count)

    @property
    def variance(self):
        """``total_count * probs * (1 - probs)``."""
        return self.probs * (1.0 - self.probs) * float(self.total_count)

    def sample(self, shape=()):
        """Count vectors of shape ``shape + batch_shape + [K]``, without gradient."""
        full = list(self._extend_shape(shape))
        k = self.event_shape[0]
        n = int(math.prod(full[:len(full) - len(self.batch_shape) - 1]))
        with no_grad():
            rows = _F.reshape(self.probs.detach(), [-1, k])
            b = rows.shape[0]
            if n == 0 or b == 0:
                return _F.zeros(full, self.dtype)
            draws = _F.multinomial(rows, n * self.total_count, True)          # [b, n * total]
            draws = _F.reshape(draws, [b, n, self.total_count])
            counts = _F.sum(_F.cast(_F.one_hot(draws, k), self.dtype), axis=2)   # [b, n, k]
            return _F.reshape(_F.transpose(counts, [1, 0, 2]), full)

    def log_prob(self, value):
        """``lgamma(n + 1) - sum(lgamma(value + 1)) + sum(value log probs)``."""
        value = as_value("Multinomial.log_prob", value, self.probs)
        check_event("Multinomial.log_prob", value, self.event_shape)
        tiny = float(np.finfo(self.dtype.value).tiny)
        terms = _F.where(value == 0.0, _F.zeros_like(value * self.probs),
                         value * _F.log(_F.clip(self.probs, tiny, None)))
        return (math.lgamma(self.total_count + 1.0) - _F.sum(_F.lgamma(value + 1.0), axis=-1)
                + _F.sum(terms, axis=-1))

    def entropy(self):
        """Exactly, from the binomial marginals:
        ``-lgamma(n + 1) - n sum(p log p) + sum_i E[lgamma(X_i + 1)]``, X_i ~ Binomial(n, p_i)."""
        n = self.total_count
        tiny = float(np.finfo(self.dtype.value).tiny)
        p = self.probs
        log_p = _F.log(_F.clip(p, tiny, None))
        log_q = _F.log(_F.clip(1.0 - p, tiny, None))
        k = _F.reshape(_F.arange(0, n + 1, 1, self.dtype, p.place), [n + 1] + [1] * len(p.shape))
        log_pmf = (math.lgamma(n + 1.0) - _F.lgamma(k + 1.0) - _F.lgamma(-k + float(n + 1))
                   + k * log_p + (-k + float(n)) * log_q)
        expected = _F.sum(_F.exp(log_pmf) * _F.lgamma(k + 1.0), axis=0)        # batch + [K]
        p_log_p = _F.where(p == 0.0, _F.zeros_like(p), p * log_p)
        return -math.lgamma(n + 1.0) - float(n) * _F.sum(p_log_p, axis=-1) + _F.sum(expected, axis=-1)


__all__ = ["Multinomial"]
