"""``Uniform``: Paddle's ``paddle.distribution.Uniform`` (and its KL divergence)."""
from __future__ import annotations

import math

from ..generated import forward_api as _F
from .distribution import Distribution
from .kl import register_kl
from ._params import as_params, as_value


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``.

    >>> from eager.distribution import Uniform
    >>> u = Uniform(low=[0.0, 1.0], high=[2.0, 5.0])
    >>> [round(v, 4) for v in u.entropy().numpy().tolist()]
    [0.6931, 1.3863]
    >>> [round(v, 4) for v in u.log_prob(3.0).numpy().tolist()]   # 3 is outside [0, 2)
    [-inf, -1.3863]
    """

    def __init__(self, low, high, name=None):
        self.low, self.high = as_params("Uniform", low=low, high=high)
        self.name = name or "Uniform"
        self.dtype = self.low.dtype
        super().__init__(self.low.shape)

    @property
    def mean(self):
        """``(low + high) / 2``."""
        return (self.low + self.high) * 0.5

    @property
    def variance(self):
        """``(high - low)^2 / 12``."""
        width = self.high - self.low
        return width * width / 12.0

    def sample(self, shape=(), seed=0):
        """Draws of shape ``shape + batch_shape``, ``low + (high - low) * u``: as in
        Paddle, they carry gradients to low and high like ``rsample``."""
        return self._draw(shape, seed)

    def rsample(self, shape=()):
        """``low + (high - low) * u`` with ``u`` uniform on [0, 1): gradients reach low and high."""
        return self._draw(shape, 0)

    def _draw(self, shape, seed):
        u = _F.uniform(list(self._extend_shape(shape)), self.dtype, 0.0, 1.0, seed, self.low.place)
        return u * (self.high - self.low) + self.low

    def entropy(self):
        """``log(high - low)``."""
        return _F.log(self.high - self.low)

    def log_prob(self, value):
        """``-log(high - low)`` on ``[low, high)``, ``-inf`` outside.

        As in Paddle, this is ``log(inside) - log(high - low)`` with ``inside`` a
        0/1 mask without gradient, so low and high receive the gradient of
        ``-log(high - low)`` at every value, outside the support too.
        """
        return _F.log(self._inside("Uniform.log_prob", value)) - _F.log(self.high - self.low)

    def prob(self, value):
        """``1 / (high - low)`` on ``[low, high)``, 0 outside.

        Paddle's ``inside / (high - low)``, not ``exp(log_prob)``: with
        ``high < low`` (no support) it gives zeros where the log form gives NaN.
        """
        return self._inside("Uniform.prob", value) / (self.high - self.low)

    def _inside(self, owner, value):
        value = as_value(owner, value, self.low)
        return _F.cast(_F.logical_and(self.low <= value, value < self.high), self.dtype)

    def cdf(self, value):
        """``(value - low) / (high - low)`` clipped to [0, 1]."""
        value = as_value("Uniform.cdf", value, self.low)
        return _F.clip((value - self.low) / (self.high - self.low), 0.0, 1.0)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    inside = _F.logical_and(q.low <= p.low, p.high <= q.high)
    kl = _F.log((q.high - q.low) / (p.high - p.low))
    return _F.where(inside, kl, _F.full_like(kl, math.inf))


__all__ = ["Uniform"]
