"""``Cauchy``: Paddle's ``paddle.distribution.Cauchy`` (and its KL divergence)."""
from __future__ import annotations

import math

import numpy as np

from ..generated import forward_api as _F
from .distribution import Distribution
from .kl import register_kl
from ._params import as_params, as_value, check_positive


class Cauchy(Distribution):
    """The Cauchy distribution: density ``1 / (pi scale (1 + ((x - loc) / scale)^2))``.

    It has no mean or variance: those raise ValueError, as Paddle.

    >>> from eager.distribution import Cauchy
    >>> c = Cauchy(0.0, 1.0)
    >>> round(float(c.cdf(1.0)), 4), round(float(c.entropy()), 4)
    (0.75, 2.531)
    """

    def __init__(self, loc, scale, name=None):
        self.loc, self.scale = as_params("Cauchy", loc=loc, scale=scale)
        check_positive("Cauchy", "scale", self.scale)
        self.name = name or "Cauchy"
        self.dtype = self.loc.dtype
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        """Undefined: raises ValueError."""
        raise ValueError("Cauchy has no mean (the integral diverges)")

    @property
    def variance(self):
        """Undefined: raises ValueError."""
        raise ValueError("Cauchy has no variance (the integral diverges)")

    @property
    def stddev(self):
        """Undefined: raises ValueError."""
        raise ValueError("Cauchy has no standard deviation (the integral diverges)")

    def sample(self, shape=(), name=None):
        """Draws of shape ``shape + batch_shape`` without gradient."""
        return super().sample(shape)

    def rsample(self, shape=(), name=None):
        """``loc + scale * tan(pi (u - 1/2))``: gradients reach loc and scale."""
        eps = float(np.finfo(self.dtype.value).eps)
        u = _F.uniform(list(self._extend_shape(shape)), self.dtype, eps, 1.0, 0, self.loc.place)
        return self.loc + self.scale * _F.tan((u - 0.5) * math.pi)

    def log_prob(self, value):
        """``-log(pi) - log(scale) - log(1 + z^2)``, ``z = (value - loc) / scale``."""
        value = as_value("Cauchy.log_prob", value, self.loc)
        z = (value - self.loc) / self.scale
        return -_F.log1p(z * z) - _F.log(self.scale) - math.log(math.pi)

    def cdf(self, value):
        """``atan(z) / pi + 1/2``."""
        value = as_value("Cauchy.cdf", value, self.loc)
        return _F.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def entropy(self):
        """``log(4 pi scale)``."""
        return _F.log(self.scale) + math.log(4.0 * math.pi)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    d = p.loc - q.loc
    s = p.scale + q.scale
    return _F.log(s * s + d * d) - _F.log(p.scale * q.scale * 4.0)


__all__ = ["Cauchy"]
