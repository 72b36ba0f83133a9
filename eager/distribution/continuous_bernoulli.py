"""``ContinuousBernoulli``: Paddle's ``paddle.distribution.ContinuousBernoulli`` (and its KL divergence).

The density on [0, 1] is ``C(p) p^x (1 - p)^(1 - x)`` with the normalizer
``C(p) = 2 atanh(1 - 2p) / (1 - 2p)``. Near ``p = 1/2`` the closed forms divide
0 by 0, so inside ``lims`` (default (0.499, 0.501)) ``log C``, the mean and the
variance are their Taylor expansions in ``p - 1/2`` and ``cdf``/``icdf`` are the
uniform ones, as Paddle does.
"""
from __future__ import annotations

import math

import numpy as np

from ..autograd import no_grad
from ..generated import forward_api as _F
from .distribution import Distribution
from .kl import register_kl
from ._params import as_params, as_value, check_unit


class ContinuousBernoulli(Distribution):
    """The continuous Bernoulli distribution on [0, 1] with parameter ``probs`` in [0, 1].

    ``probs`` is clipped to ``[eps, 1 - eps]``. ``rsample`` is ``icdf(u)`` for
    uniform ``u``, so its gradients reach ``probs``.

    >>> from eager.distribution import ContinuousBernoulli
    >>> d = ContinuousBernoulli([0.2, 0.5])
    >>> [round(v, 4) for v in d.mean.numpy().tolist()]
    [0.388, 0.5]
    """

    def __init__(self, probs, lims=(0.499, 0.501)):
        (probs,) = as_params("ContinuousBernoulli", probs=probs)
        check_unit("ContinuousBernoulli", "probs", probs)
        if (not isinstance(lims, (list, tuple)) or len(lims) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in lims)
                or not 0 < lims[0] <= 0.5 <= lims[1] < 1):
            raise ValueError(f"ContinuousBernoulli: argument 'lims' expected two numbers (low, high) with "
                             f"0 < low <= 0.5 <= high < 1, got {lims!r}")
        eps = float(np.finfo(probs.dtype.value).eps)
        self.probs = _F.clip(probs, eps, 1.0 - eps)
        self.lims = (float(lims[0]), float(lims[1]))
        self.dtype = self.probs.dtype
        super().__init__(self.probs.shape)

    def _outside(self):
        """Where ``probs`` is outside ``lims``: the closed forms are stable there."""
        return _F.logical_or(self.probs <= self.lims[0], self.probs > self.lims[1])

    def _cut_probs(self):
        """``probs`` outside ``lims``, and ``lims[0]`` inside (a stand-in the closed forms can take)."""
        return _F.where(self._outside(), self.probs, _F.full_like(self.probs, self.lims[0]))

    def _log_normalizer(self):
        cut = self._cut_probs()
        t = 1.0 - 2.0 * cut
        closed = _F.log(_F.abs(_F.atanh(t)) * 2.0) - _F.log(_F.abs(t))
        x = (self.probs - 0.5) * (self.probs - 0.5)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return _F.where(self._outside(), closed, taylor)

    @property
    def mean(self):
        """``p / (2p - 1) + 1 / (2 atanh(1 - 2p))`` (its Taylor expansion near 1/2)."""
        cut = self._cut_probs()
        closed = cut / (2.0 * cut - 1.0) + 1.0 / (2.0 * _F.atanh(1.0 - 2.0 * cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x * x) * x
        return _F.where(self._outside(), closed, taylor)

    @property
    def variance(self):
        """``p (p - 1) / (1 - 2p)^2 + 1 / log((1 - p) / p)^2`` (its Taylor expansion near 1/2).

        The two terms nearly cancel just outside ``lims`` (each about
        ``1 / (4 (1 - 2p)^2)``), so the closed form is computed in float64 for
        float32 parameters: in float32 it is off by up to 3x at ``p = 0.5011``.
        """
        cut = self._cut_probs()
        if self.dtype.value == "float32":
            cut = _F.cast(cut, "float64")
        t = 1.0 - 2.0 * cut
        logit = _F.log1p(-cut) - _F.log(cut)
        closed = cut * (cut - 1.0) / (t * t) + 1.0 / (logit * logit)
        if self.dtype.value == "float32":
            closed = _F.cast(closed, "float32")
        x = (self.probs - 0.5) * (self.probs - 0.5)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return _F.where(self._outside(), closed, taylor)

    def rsample(self, shape=()):
        """``icdf(u)`` with ``u`` uniform on [0, 1): gradients reach ``probs``."""
        u = _F.uniform(list(self._extend_shape(shape)), self.dtype, 0.0, 1.0, 0, self.probs.place)
        return self._icdf(u)

    def _unit_value(self, owner, value):
        value = as_value(f"ContinuousBernoulli.{owner}", value, self.probs)
        with no_grad():
            inside = value.numpy()
        if not np.all((inside >= 0) & (inside <= 1)):
            bad = inside[~((inside >= 0) & (inside <= 1))].ravel()[0]
            raise ValueError(f"ContinuousBernoulli.{owner}: argument 'value' expected values in [0, 1], "
                             f"got {float(bad)}")
        return value

    def log_prob(self, value):
        """``log C(p) + value log p + (1 - value) log(1 - p)``; values must lie in [0, 1]."""
        value = self._unit_value("log_prob", value)
        return self._log_normalizer() + value * _F.log(self.probs) + (1.0 - value) * _F.log1p(-self.probs)

    def entropy(self):
        """``-log C(p) + E[X] (log(1 - p) - log p) - log(1 - p)``."""
        log_q = _F.log1p(-self.probs)
        return -self._log_normalizer() + self.mean * (log_q - _F.log(self.probs)) - log_q

    def cdf(self, value):
        """``(p^x (1 - p)^(1 - x) + p - 1) / (2p - 1)`` (``x`` near p = 1/2), 0 below 0, 1 above 1."""
        value = self._unit_value("cdf", value)
        cut = self._cut_probs()
        closed = (_F.exp(value * _F.log(cut) + (1.0 - value) * _F.log1p(-cut)) + cut - 1.0) / (2.0 * cut - 1.0)
        return _F.where(self._outside(), closed, value)

    def icdf(self, value):
        """The inverse of ``cdf``: ``(log(1 - p + x (2p - 1)) - log(1 - p)) / (log p - log(1 - p))``."""
        return self._icdf(self._unit_value("icdf", value))

    def _icdf(self, value):
        cut = self._cut_probs()
        closed = (_F.log1p(-cut + value * (2.0 * cut - 1.0)) - _F.log1p(-cut)) / (_F.log(cut) - _F.log1p(-cut))
        return _F.where(self._outside(), closed, value)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli(p, q):
    # -H(p) - E_p[log q(X)], with E_p[log q(X)] = log C(q) + E_p[X] (log q - log(1 - q)) + log(1 - q)
    log_q1 = _F.log1p(-q.probs)
    cross = q._log_normalizer() + p.mean * (_F.log(q.probs) - log_q1) + log_q1
    return -p.entropy() - cross


__all__ = ["ContinuousBernoulli"]
