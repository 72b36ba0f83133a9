"""``Laplace``: Paddle's ``paddle.distribution.Laplace`` (and its KL divergence)."""
from __future__ import annotations

import math

import numpy as np

from ..generated import forward_api as _F
from .distribution import Distribution
from .kl import register_kl
from ._params import as_params, as_value, check_positive


class Laplace(Distribution):
    """The Laplace distribution: density ``exp(-|x - loc| / scale) / (2 scale)``, scale > 0.

    >>> from eager.distribution import Laplace
    >>> d = Laplace(0.0, 1.0)
    >>> round(float(d.entropy()), 4), float(d.variance)
    (1.6931, 2.0)
    """

    def __init__(self, loc, scale):
        self.loc, self.scale = as_params("Laplace", loc=loc, scale=scale)
        check_positive("Laplace", "scale", self.scale)
        self.dtype = self.loc.dtype
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        """``loc``."""
        return self.loc

    @property
    def variance(self):
        """``2 scale^2``."""
        return self.scale * self.scale * 2.0

    @property
    def stddev(self):
        """``sqrt(2) scale``."""
        return self.scale * math.sqrt(2.0)

    def rsample(self, shape=()):
        """``loc - scale * sign(u) * log(1 - |u|)``, u uniform on (-1, 1): gradients reach loc and scale."""
        eps = float(np.finfo(self.dtype.value).eps)
        u = _F.uniform(list(self._extend_shape(shape)), self.dtype, -1.0 + eps, 1.0, 0, self.loc.place)
        return self.loc - self.scale * _F.sign(u) * _F.log1p(-_F.abs(u))

    def log_prob(self, value):
        """``-log(2 scale) - |value - loc| / scale``."""
        value = as_value("Laplace.log_prob", value, self.loc)
        return -_F.log(self.scale * 2.0) - _F.abs(value - self.loc) / self.scale

    def entropy(self):
        """``1 + log(2 scale)``."""
        return _F.log(self.scale * 2.0) + 1.0

    def cdf(self, value):
        """``0.5 - 0.5 sign(value - loc) (exp(-|value - loc| / scale) - 1)``."""
        value = as_value("Laplace.cdf", value, self.loc)
        z = value - self.loc
        return 0.5 - 0.5 * _F.sign(z) * _F.expm1(-_F.abs(z) / self.scale)

    def icdf(self, value):
        """The inverse of ``cdf``: ``loc - scale sign(value - 0.5) log(1 - 2 |value - 0.5|)``."""
        value = as_value("Laplace.icdf", value, self.loc)
        t = value - 0.5
        return self.loc - self.scale * _F.sign(t) * _F.log1p(_F.abs(t) * -2.0)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    diff = _F.abs(p.loc - q.loc)
    ratio = p.scale / q.scale
    return -_F.log(ratio) + diff / q.scale + ratio * _F.exp(-diff / p.scale) - 1.0


__all__ = ["Laplace"]
