"""``Bernoulli``: Paddle's ``paddle.distribution.Bernoulli`` (and its KL divergence)."""
from __future__ import annotations

import numpy as np

from ..generated import forward_api as _F
from .exponential_family import ExponentialFamily
from .kl import register_kl
from ._params import as_params, as_value, check_unit


def _eps(dtype) -> float:
    return float(np.finfo(dtype.value).eps)


class Bernoulli(ExponentialFamily):
    """1 with probability ``probs``, else 0.

    ``sample`` returns 0./1. in ``probs``' dtype; ``rsample(shape, temperature)``
    is the relaxed (binary Concrete) draw as a logit, as Paddle's: follow it
    with ``sigmoid`` for a value in (0, 1); its gradients reach ``probs``. ``log_prob`` is computed from the logits of ``probs`` clipped
    to ``[eps, 1 - eps]``, so 0 and 1 give finite values.

    >>> from eager.distribution import Bernoulli
    >>> b = Bernoulli([0.3, 0.9])
    >>> [round(v, 4) for v in b.log_prob([1.0, 0.0]).numpy().tolist()]
    [-1.204, -2.3026]
    """

    def __init__(self, probs, name=None):
        (self.probs,) = as_params("Bernoulli", probs=probs)
        check_unit("Bernoulli", "probs", self.probs)
        self.name = name or "Bernoulli"
        self.dtype = self.probs.dtype
        super().__init__(self.probs.shape)

    @property
    def logits(self):
        """``log(p) - log(1 - p)`` of ``probs`` clipped to ``[eps, 1 - eps]``.

        Computed from ``probs`` at each use, as Paddle's rsample reads ``probs``:
        a ``probs.stop_gradient = False`` set after construction still lets
        gradients reach it (Paddle's own tests do this).
        """
        eps = _eps(self.dtype)
        clipped = _F.clip(self.probs, eps, 1.0 - eps)
        return _F.log(clipped) - _F.log1p(-clipped)

    @property
    def mean(self):
        """``probs``."""
        return self.probs

    @property
    def variance(self):
        """``probs * (1 - probs)``."""
        return self.probs * (1.0 - self.probs)

    @property
    def _natural_parameters(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        return _F.softplus(x)

    @property
    def _mean_carrier_measure(self):
        return 0.0

    def sample(self, shape=()):
        """0./1. draws of shape ``shape + batch_shape`` in ``probs``' dtype, without gradient."""
        shape = list(self._extend_shape(shape))
        probs = _F.broadcast_to(self.probs.detach(), shape)
        return _F.bernoulli(probs)

    def rsample(self, shape=(), temperature=1.0):
        """Relaxed draws as logits, ``(logits + log u - log(1 - u)) / temperature``
        (as Paddle's; ``sigmoid`` of them lies in (0, 1) and tends to a 0/1 draw as
        the temperature goes to 0)."""
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or temperature <= 0:
            raise ValueError(f"Bernoulli.rsample: argument 'temperature' expected a number > 0, "
                             f"got {temperature!r}")
        shape = list(self._extend_shape(shape))
        eps = _eps(self.dtype)
        u = _F.uniform(shape, self.dtype, eps, 1.0 - eps, 0, self.probs.place)
        return (self.logits + _F.log(u) - _F.log1p(-u)) / float(temperature)

    def log_prob(self, value):
        """``value * log(p) + (1 - value) * log(1 - p)``, from the logits."""
        value = as_value("Bernoulli.log_prob", value, self.probs)
        logits = self.logits
        return value * logits - _F.softplus(logits)

    def cdf(self, value):
        """0 below 0, ``1 - probs`` on [0, 1), 1 from 1 on."""
        value = as_value("Bernoulli.cdf", value, self.probs)
        one_minus, value = _F.broadcast_tensors([1.0 - self.probs, value])
        zeros, ones = _F.zeros_like(value), _F.ones_like(value)
        return _F.where(value < 0.0, zeros, _F.where(value < 1.0, one_minus, ones))

    def entropy(self):
        """``-(p log p + (1 - p) log(1 - p))``."""
        logits = self.logits
        return _F.softplus(logits) - self.probs * logits


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    # sum over {0, 1} of p(x) (log p(x) - log q(x)), with log p(1) = logit - softplus(logit)
    p_logits, q_logits = p.logits, q.logits
    return p.probs * (p_logits - q_logits) + _F.softplus(q_logits) - _F.softplus(p_logits)


__all__ = ["Bernoulli"]
