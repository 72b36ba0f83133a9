"""``Gumbel``: Paddle's ``paddle.distribution.Gumbel`` (and its KL divergence)."""
from __future__ import annotations

import math

import numpy as np

from ..generated import forward_api as _F
from .distribution import Distribution
from .kl import register_kl
from ._params import as_params, as_value, check_positive

_EULER = 0.57721566490153286060


class Gumbel(Distribution):
    """The Gumbel (type-I extreme value) distribution: cdf ``exp(-exp(-(x - loc) / scale))``.

    >>> from eager.distribution import Gumbel
    >>> g = Gumbel(0.0, 1.0)
    >>> round(float(g.mean), 4), round(float(g.entropy()), 4)
    (0.5772, 1.5772)
    """

    def __init__(self, loc, scale):
        self.loc, self.scale = as_params("Gumbel", loc=loc, scale=scale)
        check_positive("Gumbel", "scale", self.scale)
        self.dtype = self.loc.dtype
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        """``loc + scale * euler_gamma``."""
        return self.loc + self.scale * _EULER

    @property
    def variance(self):
        """``pi^2 / 6 * scale^2``."""
        return self.scale * self.scale * (math.pi ** 2 / 6.0)

    @property
    def stddev(self):
        """``pi / sqrt(6) * scale``."""
        return self.scale * (math.pi / math.sqrt(6.0))

    def rsample(self, shape=()):
        """``loc - scale * log(-log u)``: gradients reach loc and scale."""
        tiny = float(np.finfo(self.dtype.value).tiny)
        u = _F.uniform(list(self._extend_shape(shape)), self.dtype, tiny, 1.0, 0, self.loc.place)
        return self.loc - self.scale * _F.log(-_F.log(u))

    def log_prob(self, value):
        """``-(z + exp(-z)) - log(scale)`` with ``z = (value - loc) / scale``."""
        value = as_value("Gumbel.log_prob", value, self.loc)
        z = (value - self.loc) / self.scale
        return -(z + _F.exp(-z)) - _F.log(self.scale)

    def cdf(self, value):
        """``exp(-exp(-(value - loc) / scale))``."""
        value = as_value("Gumbel.cdf", value, self.loc)
        return _F.exp(-_F.exp(-(value - self.loc) / self.scale))

    def entropy(self):
        """``log(scale) + 1 + euler_gamma``."""
        return _F.log(self.scale) + (1.0 + _EULER)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    # E_p[log p] = -log b1 - euler - 1; E_p[log q] from E[exp(-t Z)] = Gamma(1 + t), Z standard Gumbel
    ratio = p.scale / q.scale
    shift = (p.loc - q.loc) / q.scale
    return (_F.log(q.scale) - _F.log(p.scale) - _EULER - 1.0 + shift + ratio * _EULER
            + _F.exp(_F.lgamma(ratio + 1.0) - shift))


__all__ = ["Gumbel"]
