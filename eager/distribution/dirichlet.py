"""``Dirichlet``: Paddle's ``paddle.distribution.Dirichlet`` (and its KL divergence)."""
from __future__ import annotations

from ..generated import forward_api as _F
from .exponential_family import ExponentialFamily
from .kl import register_kl
from ._gamma_sampler import standard_gamma
from ._params import as_params, as_value, check_positive, check_event


def _log_beta(c):
    return _F.sum(_F.lgamma(c), axis=-1) - _F.lgamma(_F.sum(c, axis=-1))


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution on the simplex, concentration ``c`` (> 0) of shape
    ``batch_shape + [K]``; one draw has shape ``[K]`` (the event shape).

    ``sample`` draws without gradient (normalized gamma draws), as Paddle.

    >>> from eager.distribution import Dirichlet
    >>> d = Dirichlet([1.0, 2.0, 3.0])
    >>> d.batch_shape, d.event_shape, d.sample([4]).shape
    ((), (3,), [4, 3])
    """

    def __init__(self, concentration):
        (self.concentration,) = as_params("Dirichlet", concentration=concentration)
        if len(self.concentration.shape) < 1:
            raise ValueError("Dirichlet: argument 'concentration' expected at least 1 dimension, "
                             "got a 0-d value")
        if self.concentration.shape[-1] == 0:
            # Paddle fails later (a ValueError from reducing an empty tensor); no law has 0 categories
            raise ValueError(f"Dirichlet: argument 'concentration' expected at least one category on its last "
                             f"axis, got shape {list(self.concentration.shape)}")
        check_positive("Dirichlet", "concentration", self.concentration)
        self.dtype = self.concentration.dtype
        shape = self.concentration.shape
        super().__init__(shape[:-1], shape[-1:])

    @property
    def mean(self):
        """``c / sum(c)``."""
        return self.concentration / _F.sum(self.concentration, axis=-1, keepdim=True)

    @property
    def variance(self):
        """``c (s - c) / (s^2 (s + 1))`` with ``s = sum(c)``."""
        c = self.concentration
        s = _F.sum(c, axis=-1, keepdim=True)
        return c * (s - c) / (s * s * (s + 1.0))

    @property
    def _natural_parameters(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return _log_beta(x)

    @property
    def _mean_carrier_measure(self):
        # h(x) = 1 / prod(x): E[log h] = -sum(digamma(c) - digamma(sum c))
        c = self.concentration
        s = _F.sum(c, axis=-1, keepdim=True)
        return -_F.sum(_F.digamma(c) - _F.digamma(s), axis=-1)

    def sample(self, shape=()):
        """Draws on the simplex of shape ``shape + batch_shape + [K]``, without gradient."""
        g = standard_gamma(self.concentration, list(self._extend_shape(shape)))
        return g / _F.sum(g, axis=-1, keepdim=True)

    def log_prob(self, value):
        """``sum((c - 1) log(value)) - log B(c)`` over the last axis."""
        value = as_value("Dirichlet.log_prob", value, self.concentration)
        check_event("Dirichlet.log_prob", value, self.event_shape)
        c = self.concentration
        return _F.sum((c - 1.0) * _F.log(value), axis=-1) - _log_beta(c)

    def entropy(self):
        """``log B(c) + (s - K) digamma(s) - sum((c - 1) digamma(c))``."""
        c = self.concentration
        k = c.shape[-1]
        s = _F.sum(c, axis=-1)
        return _log_beta(c) + (s - float(k)) * _F.digamma(s) - _F.sum((c - 1.0) * _F.digamma(c), axis=-1)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    cp, cq = p.concentration, q.concentration
    sp = _F.sum(cp, axis=-1, keepdim=True)
    return (_log_beta(cq) - _log_beta(cp)
            + _F.sum((cp - cq) * (_F.digamma(cp) - _F.digamma(sp)), axis=-1))


__all__ = ["Dirichlet"]
