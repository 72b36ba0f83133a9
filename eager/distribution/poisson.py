"""``Poisson``: Paddle's ``paddle.distribution.Poisson`` (and its KL divergence)."""
from __future__ import annotations

import math

import numpy as np

from ..autograd import no_grad
from ..generated import forward_api as _F
from ..nn.functional.checks import reads_values  # read on a GPU only in anomaly mode
from .distribution import Distribution
from .kl import register_kl
from ._params import as_params, as_value, check_positive, xlogy


class Poisson(Distribution):
    """The Poisson distribution with rate ``rate`` (>= 0): ``P(k) = rate^k exp(-rate) / k!``.

    A zero rate is the point mass at 0 (Paddle 3's tests use it), with
    ``0 log 0`` read as 0 in ``log_prob``, ``entropy`` and the KL divergence.

    Draws are float counts in ``rate``'s dtype. ``entropy`` sums ``-P(k) log P(k)``
    over k from 0 to well past the largest rate (``rate + 30 sqrt(rate) + 30``),
    as Paddle sums over a bounded support.

    >>> from eager.distribution import Poisson
    >>> p = Poisson(2.0)
    >>> round(float(p.log_prob(3.0)), 4)
    -1.7123
    """

    def __init__(self, rate):
        (self.rate,) = as_params("Poisson", rate=rate)
        check_positive("Poisson", "rate", self.rate, strict=False)
        self.dtype = self.rate.dtype
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        """``rate``."""
        return self.rate

    @property
    def variance(self):
        """``rate``."""
        return self.rate

    def sample(self, shape=()):
        """Counts of shape ``shape + batch_shape`` in ``rate``'s dtype, without gradient."""
        shape = list(self._extend_shape(shape))
        return _F.poisson(_F.broadcast_to(self.rate.detach(), shape))

    def log_prob(self, value):
        """``value log(rate) - rate - lgamma(value + 1)``.

        As in Paddle, a negative ``value`` raises ValueError (one host read of
        ``value``); on a GPU outside anomaly mode nothing is read and a negative
        value's log probability is -inf.
        """
        value = as_value("Poisson.log_prob", value, self.rate)
        if not reads_values(value):
            return _F.where(value < 0.0, _F.full_like(value, -math.inf), self._log_prob(value))
        with no_grad():
            values = value.numpy()
        if (values < 0).any():
            raise ValueError(f"Poisson.log_prob: argument 'value' expected values >= 0, "
                             f"got {float(values[values < 0].ravel()[0])}")
        return self._log_prob(value)

    def _log_prob(self, value):
        return xlogy(value, self.rate) - self.rate - _F.lgamma(value + 1.0)

    def entropy(self):
        """``-sum_k P(k) log P(k)`` over a support wide enough for every rate."""
        with no_grad():
            top = float(np.max(self.rate.numpy())) if self.rate.size else 0.0
        upper = int(math.ceil(top + 30.0 * math.sqrt(top) + 30.0))
        k = _F.arange(0, upper + 1, 1, self.dtype, self.rate.place)
        k = _F.reshape(k, [upper + 1] + [1] * len(self.batch_shape))
        lp = self._log_prob(k)
        p = _F.exp(lp)
        # P(k) = 0 (every k > 0 at a zero rate) adds 0, not exp(-inf) * -inf = NaN
        terms = _F.where(p > 0.0, p * lp, _F.zeros_like(lp))
        return -_F.sum(terms, axis=0)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return xlogy(p.rate, p.rate) - xlogy(p.rate, q.rate) - p.rate + q.rate


__all__ = ["Poisson"]
