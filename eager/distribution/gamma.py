"""``Gamma``: Paddle's ``paddle.distribution.Gamma`` (and its KL divergence)."""
from __future__ import annotations

import math

from ..generated import forward_api as _F
from .exponential_family import ExponentialFamily
from .kl import register_kl
from ._gamma_sampler import standard_gamma
from ._params import as_params, as_value, check_positive


class Gamma(ExponentialFamily):
    """The gamma distribution: density ``rate^c x^(c-1) exp(-rate x) / Gamma(c)``, c and rate > 0.

    ``sample`` draws without gradient; ``rsample`` carries gradients to ``rate`` only.

    >>> from eager.distribution import Gamma
    >>> g = Gamma(0.5, 0.5)
    >>> float(g.mean), float(g.variance), round(float(g.entropy()), 4)
    (1.0, 2.0, 0.7838)
    """

    def __init__(self, concentration, rate):
        self.concentration, self.rate = as_params("Gamma", concentration=concentration, rate=rate)
        check_positive("Gamma", "concentration", self.concentration)
        check_positive("Gamma", "rate", self.rate)
        self.dtype = self.rate.dtype
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        """``concentration / rate``."""
        return self.concentration / self.rate

    @property
    def variance(self):
        """``concentration / rate^2``."""
        return self.concentration / (self.rate * self.rate)

    @property
    def _natural_parameters(self):
        return (self.concentration - 1.0, -self.rate)

    def _log_normalizer(self, x, y):
        return _F.lgamma(x + 1.0) - (x + 1.0) * _F.log(-y)

    @property
    def _mean_carrier_measure(self):
        return 0.0

    def sample(self, shape=()):
        """Draws of shape ``shape + batch_shape``, without gradient."""
        shape = list(self._extend_shape(shape))
        return standard_gamma(self.concentration, shape) / self.rate.detach()

    def rsample(self, shape=()):
        """Draws of shape ``shape + batch_shape``, ``standard_gamma(c) / rate``: the
        gradient reaches ``rate`` (exactly: the draw is a pathwise function of it)
        but not ``concentration``, as in Paddle 3, whose standard_gamma has no
        gradient."""
        shape = list(self._extend_shape(shape))
        return standard_gamma(self.concentration, shape) / self.rate

    def log_prob(self, value):
        """``c log(rate) + (c - 1) log(value) - rate value - lgamma(c)`` (``-inf`` for value <= 0)."""
        value = as_value("Gamma.log_prob", value, self.rate)
        positive = value > 0.0
        safe = _F.where(positive, value, _F.ones_like(value))
        c = self.concentration
        lp = c * _F.log(self.rate) + (c - 1.0) * _F.log(safe) - self.rate * safe - _F.lgamma(c)
        return _F.where(positive, lp, _F.full_like(lp, -math.inf))

    def entropy(self):
        """``c - log(rate) + lgamma(c) + (1 - c) digamma(c)``."""
        c = self.concentration
        return c - _F.log(self.rate) + _F.lgamma(c) + (1.0 - c) * _F.digamma(c)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    cp, cq, rp, rq = p.concentration, q.concentration, p.rate, q.rate
    return ((cp - cq) * _F.digamma(cp) - _F.lgamma(cp) + _F.lgamma(cq)
            + cq * (_F.log(rp) - _F.log(rq)) + cp * (rq - rp) / rp)


__all__ = ["Gamma"]
