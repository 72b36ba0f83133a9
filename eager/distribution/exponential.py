"""``Exponential``: Paddle's ``paddle.distribution.Exponential`` (and its KL divergence)."""
from __future__ import annotations

import math

from ..generated import forward_api as _F
from .exponential_family import ExponentialFamily
from .kl import register_kl
from ._params import as_params, as_value, check_positive


class Exponential(ExponentialFamily):
    """The exponential distribution with rate ``rate`` (> 0): density ``rate * exp(-rate x)``.

    >>> from eager.distribution import Exponential
    >>> e = Exponential(2.0)
    >>> float(e.mean), round(float(e.log_prob(1.0)), 4)
    (0.5, -1.3069)
    """

    def __init__(self, rate):
        (self.rate,) = as_params("Exponential", rate=rate)
        check_positive("Exponential", "rate", self.rate)
        self.dtype = self.rate.dtype
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        """``1 / rate``."""
        return 1.0 / self.rate

    @property
    def variance(self):
        """``1 / rate^2``."""
        return 1.0 / (self.rate * self.rate)

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -_F.log(-x)

    @property
    def _mean_carrier_measure(self):
        return 0.0

    def rsample(self, shape=()):
        """``-log(1 - u) / rate``: gradients reach ``rate``."""
        u = _F.uniform(list(self._extend_shape(shape)), self.dtype, 0.0, 1.0, 0, self.rate.place)
        return -_F.log1p(-u) / self.rate

    def log_prob(self, value):
        """``log(rate) - rate * value`` for value >= 0, ``-inf`` below."""
        value = as_value("Exponential.log_prob", value, self.rate)
        lp = _F.log(self.rate) - self.rate * value
        return _F.where(value < 0.0, _F.full_like(lp, -math.inf), lp)

    def entropy(self):
        """``1 - log(rate)``."""
        return 1.0 - _F.log(self.rate)

    def cdf(self, value):
        """``1 - exp(-rate * value)`` for value >= 0, else 0."""
        value = as_value("Exponential.cdf", value, self.rate)
        c = -_F.expm1(-self.rate * value)
        return _F.where(value < 0.0, _F.zeros_like(c), c)

    def icdf(self, value):
        """``-log(1 - value) / rate``."""
        value = as_value("Exponential.icdf", value, self.rate)
        return -_F.log1p(-value) / self.rate


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - _F.log(ratio) - 1.0


__all__ = ["Exponential"]
