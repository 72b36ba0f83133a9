"""``Geometric``: Paddle's ``paddle.distribution.Geometric`` (and its KL divergence)."""
from __future__ import annotations

import math

import numpy as np

from ..generated import forward_api as _F
from .distribution import Distribution
from .kl import register_kl
from ._params import as_params, as_value, check_unit


class Geometric(Distribution):
    """The number of failures before the first success: ``P(k) = (1 - p)^k p``, k = 0, 1, ...

    ``probs`` lies in (0, 1]. Draws are float counts in ``probs``' dtype.

    >>> from eager.distribution import Geometric
    >>> g = Geometric(0.5)
    >>> float(g.mean), float(g.variance), float(g.pmf(2))
    (1.0, 2.0, 0.125)
    """

    def __init__(self, probs):
        (self.probs,) = as_params("Geometric", probs=probs)
        check_unit("Geometric", "probs", self.probs, low_open=True)
        self.dtype = self.probs.dtype
        super().__init__(self.probs.shape)

    @property
    def mean(self):
        """``1 / p - 1``."""
        return 1.0 / self.probs - 1.0

    @property
    def variance(self):
        """``(1 - p) / p^2``."""
        return (1.0 - self.probs) / (self.probs * self.probs)

    @property
    def stddev(self):
        """``sqrt(1 - p) / p``."""
        return _F.sqrt(self.variance)

    def rsample(self, shape=()):
        """``floor(log(u) / log(1 - p))`` (the gradient of floor is zero)."""
        tiny = float(np.finfo(self.dtype.value).tiny)
        u = _F.uniform(list(self._extend_shape(shape)), self.dtype, tiny, 1.0, 0, self.probs.place)
        return _F.floor(_F.log(u) / _F.log1p(-self.probs))

    def log_pmf(self, k):
        """``k log(1 - p) + log p`` (``-inf`` for negative k)."""
        k = as_value("Geometric.log_pmf", k, self.probs)
        one_minus = 1.0 - self.probs
        # k * log(1 - p) with 0 * log(0) = 0 (p = 1 puts all mass on k = 0)
        term = _F.where(k == 0.0, _F.zeros_like(k * one_minus), k * _F.log(one_minus))
        lp = term + _F.log(self.probs)
        return _F.where(k < 0.0, _F.full_like(lp, -math.inf), lp)

    def pmf(self, k):
        """``(1 - p)^k p``."""
        return _F.exp(self.log_pmf(k))

    def log_prob(self, value):
        """The same as ``log_pmf``."""
        return self.log_pmf(value)

    def cdf(self, k):
        """``1 - (1 - p)^(k + 1)``."""
        k = as_value("Geometric.cdf", k, self.probs)
        return 1.0 - _F.exp((k + 1.0) * _F.log1p(-self.probs))

    def entropy(self):
        """``-(p log p + (1 - p) log(1 - p)) / p``."""
        p = self.probs
        q = 1.0 - p
        q_log_q = _F.where(q > 0.0, q * _F.log(_F.clip(q, float(np.finfo(self.dtype.value).tiny), None)),
                           _F.zeros_like(q))
        return -(p * _F.log(p) + q_log_q) / p


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return _F.log(p.probs / q.probs) + (1.0 - p.probs) / p.probs * (_F.log1p(-p.probs) - _F.log1p(-q.probs))


__all__ = ["Geometric"]
