"""``LogNormal``: Paddle's ``paddle.distribution.LogNormal`` (and its KL divergence)."""
from __future__ import annotations

import math

from ..arguments import as_called
from ..generated import forward_api as _F
from .kl import register_kl
from .normal import Normal, _kl_normal_normal
from .transform import ExpTransform
from .transformed_distribution import TransformedDistribution
from ._params import as_value


class LogNormal(TransformedDistribution):
    """``exp(X)`` for ``X ~ Normal(loc, scale)``: a TransformedDistribution of a Normal
    by ``ExpTransform``, as Paddle's, with closed forms for its moments and entropy.

    >>> from eager.distribution import LogNormal
    >>> d = LogNormal(0.0, 1.0)
    >>> round(float(d.mean), 4), round(float(d.log_prob(1.0)), 4)
    (1.6487, -0.9189)
    """

    def __init__(self, loc, scale):
        try:
            base = Normal(loc, scale)
        except (TypeError, ValueError) as error:
            raise as_called(error, "Normal", "LogNormal") from None
        self.loc, self.scale = base.loc, base.scale
        self.dtype = self.loc.dtype
        super().__init__(base, [ExpTransform()])

    @property
    def mean(self):
        """``exp(loc + scale^2 / 2)``."""
        return _F.exp(self.loc + self.scale * self.scale * 0.5)

    @property
    def variance(self):
        """``(exp(scale^2) - 1) exp(2 loc + scale^2)``."""
        s2 = self.scale * self.scale
        return _F.expm1(s2) * _F.exp(self.loc * 2.0 + s2)

    def log_prob(self, value):
        """``Normal(loc, scale).log_prob(log value) - log value`` (``-inf`` for value <= 0)."""
        v = as_value("LogNormal.log_prob", value, self.loc)
        safe = _F.where(v > 0.0, v, _F.ones_like(v))
        log_v = _F.log(safe)
        lp = self._base.log_prob(log_v) - log_v
        return _F.where(v > 0.0, lp, _F.full_like(lp, -math.inf))

    def entropy(self):
        """The normal's entropy plus ``loc``."""
        return self._base.entropy() + self.loc


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return _kl_normal_normal(p._base, q._base)


__all__ = ["LogNormal"]
