"""``Normal``: Paddle's ``paddle.distribution.Normal`` (and its KL divergence)."""
from __future__ import annotations

import math

from ..generated import forward_api as _F
from .distribution import Distribution
from .kl import register_kl
from ._params import as_params, as_value

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


class Normal(Distribution):
    """The normal distribution with mean ``loc`` and standard deviation ``scale``.

    ``loc`` and ``scale`` are numbers, lists, NumPy arrays or Tensors,
    broadcast together into the batch shape; Tensor parameters receive
    gradients from ``rsample``, ``log_prob``, ``entropy`` and ``kl_divergence``.

    >>> import eager
    >>> from eager.distribution import Normal
    >>> d = Normal(loc=[0.0, 1.0], scale=[1.0, 2.0])
    >>> d.sample([3]).shape
    [3, 2]
    >>> [round(v, 4) for v in d.log_prob(eager.to_tensor([0.0, 1.0])).numpy().tolist()]
    [-0.9189, -1.6121]
    """

    def __init__(self, loc, scale, name=None):
        self.loc, self.scale = as_params("Normal", loc=loc, scale=scale)
        self.name = name or "Normal"
        self.dtype = self.loc.dtype
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        """The mean, ``loc``."""
        return self.loc

    @property
    def variance(self):
        """The variance, ``scale ** 2``."""
        return self.scale * self.scale

    @property
    def stddev(self):
        """The standard deviation, ``scale``."""
        return self.scale

    def sample(self, shape=(), seed=0):
        """Draws of shape ``shape + batch_shape``, ``loc + scale * eps``: as in Paddle,
        they carry gradients to loc and scale like ``rsample`` (``seed`` != 0: a
        generator of its own, as the gaussian op)."""
        return self._draw(shape, seed)

    def rsample(self, shape=()):
        """``loc + scale * eps`` with standard normal ``eps``: gradients reach loc and scale."""
        return self._draw(shape, 0)

    def _draw(self, shape, seed):
        out_shape = list(self._extend_shape(shape))
        eps = _F.gaussian(out_shape, 0.0, 1.0, seed, self.dtype, self.loc.place)
        return eps * self.scale + self.loc

    def entropy(self):
        """``0.5 + 0.5 * log(2 pi) + log(scale)``, of shape ``batch_shape``."""
        return _F.log(self.scale) + (0.5 + _HALF_LOG_2PI)

    def log_prob(self, value):
        """``-(value - loc)^2 / (2 scale^2) - log(scale) - 0.5 log(2 pi)``."""
        value = as_value("Normal.log_prob", value, self.loc)
        z = (value - self.loc) / self.scale
        return z * z * -0.5 - _F.log(self.scale) - _HALF_LOG_2PI

    def cdf(self, value):
        """``0.5 * (1 + erf((value - loc) / (scale sqrt 2)))``."""
        value = as_value("Normal.cdf", value, self.loc)
        return (_F.erf((value - self.loc) / (self.scale * math.sqrt(2.0))) + 1.0) * 0.5

    def icdf(self, value):
        """The inverse of ``cdf``: ``loc + scale * sqrt(2) * erfinv(2 value - 1)``."""
        value = as_value("Normal.icdf", value, self.loc)
        return self.loc + self.scale * _F.erfinv(value * 2.0 - 1.0) * math.sqrt(2.0)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    ratio = p.scale / q.scale
    var_ratio = ratio * ratio
    t = (p.loc - q.loc) / q.scale
    return (var_ratio + t * t - 1.0 - _F.log(var_ratio)) * 0.5


__all__ = ["Normal"]
