"""``Binomial``: Paddle's ``paddle.distribution.Binomial`` (and its KL divergence)."""
from __future__ import annotations

import math

import numpy as np

from ..autograd import no_grad
from ..generated import forward_api as _F
from ..tensor import Tensor
from .distribution import Distribution
from .kl import register_kl
from ._params import as_params, as_value, check_unit, xlogy


def _xlogy(x, y, dtype):
    """xlogy with y kept at or above dtype's smallest normal, so a probability of 0
    gives a large finite log-probability instead of -inf."""
    return xlogy(x, _F.clip(y, float(np.finfo(dtype.value).tiny), None))


class Binomial(Distribution):
    """The number of successes in ``total_count`` trials with success probability ``probs``.

    ``total_count`` is a positive integer (a Python int or an integer Tensor or
    array); draws are float counts in ``probs``' dtype.

    >>> from eager.distribution import Binomial
    >>> b = Binomial(10, 0.3)
    >>> float(b.mean), round(float(b.variance), 4)
    (3.0, 2.1)
    """

    def __init__(self, total_count, probs):
        if isinstance(total_count, Tensor):
            count = total_count.detach()
            if count.dtype.is_floating_point or count.dtype.value == "bool":
                raise TypeError(f"Binomial: argument 'total_count' expected an int or an integer Tensor, "
                                f"got a Tensor of dtype {count.dtype}")
            count = count.numpy()
        elif isinstance(total_count, bool) or not isinstance(total_count, (int, np.integer, list, tuple, np.ndarray)):
            raise TypeError(f"Binomial: argument 'total_count' expected an int or an integer Tensor, "
                            f"got {type(total_count).__name__}")
        else:
            count = np.asarray(total_count)
            if count.dtype.kind not in "iu":
                raise TypeError(f"Binomial: argument 'total_count' expected integers, got dtype {count.dtype}")
        if np.any(count <= 0):
            raise ValueError(f"Binomial: argument 'total_count' expected integers > 0, "
                             f"got {count[count <= 0].ravel()[0]}")
        dtype = probs.dtype.value if isinstance(probs, Tensor) else (
            probs.dtype.name if isinstance(probs, np.ndarray) and probs.dtype.name in ("float32", "float64") else "float32")
        self.total_count, self.probs = as_params("Binomial", total_count=count.astype(dtype), probs=probs)
        check_unit("Binomial", "probs", self.probs)
        self._max_count = int(count.max())
        self.dtype = self.probs.dtype
        super().__init__(self.probs.shape)

    @property
    def mean(self):
        """``total_count * probs``."""
        return self.total_count * self.probs

    @property
    def variance(self):
        """``total_count * probs * (1 - probs)``."""
        return self.total_count * self.probs * (1.0 - self.probs)

    def sample(self, shape=()):
        """Counts of shape ``shape + batch_shape``, without gradient (sums of Bernoulli draws)."""
        shape = list(self._extend_shape(shape))
        with no_grad():
            trials = _F.broadcast_to(_F.unsqueeze(self.probs.detach(), -1), shape + [self._max_count])
            hits = _F.bernoulli(trials)
            index = _F.arange(0, self._max_count, 1, self.dtype, self.probs.place)
            live = _F.cast(index < _F.unsqueeze(self.total_count.detach(), -1), self.dtype)
            return _F.sum(hits * live, axis=-1)

    def log_prob(self, value):
        """``log C(n, k) + k log p + (n - k) log(1 - p)``."""
        value = as_value("Binomial.log_prob", value, self.probs)
        n, p = self.total_count, self.probs
        log_comb = _F.lgamma(n + 1.0) - _F.lgamma(value + 1.0) - _F.lgamma(n - value + 1.0)
        lp = log_comb + _xlogy(value, p, self.dtype) + _xlogy(n - value, 1.0 - p, self.dtype)
        outside = _F.logical_or(value < 0.0, value > n)
        return _F.where(outside, _F.full_like(lp, -math.inf), lp)

    def entropy(self):
        """``-sum_k P(k) log P(k)`` over k = 0 .. total_count."""
        k = _F.arange(0, self._max_count + 1, 1, self.dtype, self.probs.place)
        k = _F.reshape(k, [self._max_count + 1] + [1] * len(self.batch_shape))
        lp = self.log_prob(k)
        terms = _F.where(lp == -math.inf, _F.zeros_like(lp), _F.exp(lp) * lp)
        return -_F.sum(terms, axis=0)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    with no_grad():
        same = np.array_equal(*np.broadcast_arrays(p.total_count.numpy(), q.total_count.numpy()))
    if not same:
        raise ValueError("kl_divergence: Binomial distributions with different total_count "
                         "have an infinite or undefined KL divergence")
    a, b = p.probs, q.probs
    per_trial = (_xlogy(a, a, p.dtype) - _xlogy(a, b, p.dtype)
                 + _xlogy(1.0 - a, 1.0 - a, p.dtype) - _xlogy(1.0 - a, 1.0 - b, p.dtype))
    return p.total_count * per_trial


__all__ = ["Binomial"]
