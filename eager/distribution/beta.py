"""``Beta``: Paddle's ``paddle.distribution.Beta`` (and its KL divergence)."""
from __future__ import annotations

import math

from ..generated import forward_api as _F
from .exponential_family import ExponentialFamily
from .kl import register_kl
from ._gamma_sampler import standard_gamma
from ._params import as_params, as_value, check_positive


def _log_beta(a, b):
    return _F.lgamma(a) + _F.lgamma(b) - _F.lgamma(a + b)


class Beta(ExponentialFamily):
    """The beta distribution on [0, 1]: density ``x^(a-1) (1-x)^(b-1) / B(a, b)``, alpha and beta > 0.

    ``sample`` draws without gradient (from two gamma draws), as Paddle.

    >>> from eager.distribution import Beta
    >>> b = Beta([0.5, 0.5], [0.5, 0.5])
    >>> [round(v, 4) for v in b.log_prob(0.2).numpy().tolist()]
    [-0.2284, -0.2284]
    """

    def __init__(self, alpha, beta):
        self.alpha, self.beta = as_params("Beta", alpha=alpha, beta=beta)
        check_positive("Beta", "alpha", self.alpha)
        check_positive("Beta", "beta", self.beta)
        self.dtype = self.alpha.dtype
        super().__init__(self.alpha.shape)

    @property
    def mean(self):
        """``alpha / (alpha + beta)``."""
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        """``alpha beta / ((alpha + beta)^2 (alpha + beta + 1))``."""
        s = self.alpha + self.beta
        return self.alpha * self.beta / (s * s * (s + 1.0))

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return _log_beta(x, y)

    @property
    def _mean_carrier_measure(self):
        # h(x) = 1 / (x (1 - x)): E[log h] = -(E[log x] + E[log(1 - x)])
        a, b = self.alpha, self.beta
        return 2.0 * _F.digamma(a + b) - _F.digamma(a) - _F.digamma(b)

    def sample(self, shape=()):
        """Draws in [0, 1] of shape ``shape + batch_shape``, without gradient."""
        shape = list(self._extend_shape(shape))
        x = standard_gamma(self.alpha, shape)
        y = standard_gamma(self.beta, shape)
        return x / (x + y)

    def log_prob(self, value):
        """``(a - 1) log(value) + (b - 1) log(1 - value) - log B(a, b)``, ``-inf`` outside [0, 1]."""
        value = as_value("Beta.log_prob", value, self.alpha)
        a, b = self.alpha, self.beta
        lp = (a - 1.0) * _F.log(value) + (b - 1.0) * _F.log1p(-value) - _log_beta(a, b)
        outside = _F.logical_or(value < 0.0, value > 1.0)
        return _F.where(outside, _F.full_like(lp, -math.inf), lp)

    def entropy(self):
        """``log B(a, b) - (a-1) digamma(a) - (b-1) digamma(b) + (a+b-2) digamma(a+b)``."""
        a, b = self.alpha, self.beta
        return (_log_beta(a, b) - (a - 1.0) * _F.digamma(a) - (b - 1.0) * _F.digamma(b)
                + (a + b - 2.0) * _F.digamma(a + b))


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    a1, b1, a2, b2 = p.alpha, p.beta, q.alpha, q.beta
    s1 = a1 + b1
    return (_log_beta(a2, b2) - _log_beta(a1, b1) + (a1 - a2) * _F.digamma(a1)
            + (b1 - b2) * _F.digamma(b1) + (a2 - a1 + b2 - b1) * _F.digamma(s1))


__all__ = ["Beta"]
