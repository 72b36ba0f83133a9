"""``Distribution``: the base class of eager.distribution, Paddle's
``paddle.distribution.Distribution``.

A distribution has a batch shape (independent, possibly different
distributions side by side) and an event shape (the shape of one draw).
``sample(shape)`` returns ``shape + batch_shape + event_shape``; ``rsample``
does too, with gradients to the parameters (the reparameterization trick)
where the subclass has one. ``log_prob``, ``prob``, ``entropy`` and
``kl_divergence`` are computed with the framework's differentiable ops, so
they carry gradients to Tensor parameters.
"""
from __future__ import annotations

import numbers

from ..arguments import describe
from ..autograd import no_grad
from ..generated import forward_api as _F
from . import kl
from ._params import sample_shape


def _shape(owner: str, arg: str, value) -> tuple:
    """A batch or event shape: a list or tuple of non-negative ints, as a tuple."""
    if (not isinstance(value, (list, tuple))
            or not all(isinstance(d, numbers.Integral) and not isinstance(d, bool) for d in value)):
        raise TypeError(f"{owner}: argument '{arg}' expected a list or tuple of ints, got {describe(value)}")
    if any(d < 0 for d in value):
        raise ValueError(f"{owner}: argument '{arg}' expected non-negative sizes, got {list(value)}")
    return tuple(int(d) for d in value)


class Distribution:
    """The abstract base class of probability distributions.

    Subclasses set ``batch_shape`` and ``event_shape`` (through this
    constructor) and override what they support; what a subclass does not
    define raises NotImplementedError naming the class and the method.

    >>> from eager.distribution import Normal
    >>> d = Normal([0.0, 1.0], 2.0)
    >>> d.batch_shape, d.event_shape, d.sample([3]).shape
    ((2,), (), [3, 2])
    """

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = _shape(type(self).__name__, "batch_shape", batch_shape)
        self._event_shape = _shape(type(self).__name__, "event_shape", event_shape)

    @property
    def batch_shape(self) -> tuple:
        """The shape over which parameters vary (independent distributions)."""
        return self._batch_shape

    @property
    def event_shape(self) -> tuple:
        """The shape of one draw."""
        return self._event_shape

    @property
    def mean(self):
        """The mean, of shape ``batch_shape + event_shape``."""
        raise NotImplementedError(f"{type(self).__name__} has no mean")

    @property
    def variance(self):
        """The variance, of shape ``batch_shape + event_shape``."""
        raise NotImplementedError(f"{type(self).__name__} has no variance")

    def _extend_shape(self, shape) -> tuple:
        return sample_shape(type(self).__name__, shape) + self._batch_shape + self._event_shape

    def sample(self, shape=()):
        """Draws of shape ``shape + batch_shape + event_shape``, without gradient
        (Normal, Uniform and LogNormal override it: as in Paddle, theirs carry gradients)."""
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """Reparameterized draws: gradients flow to the parameters."""
        raise NotImplementedError(f"{type(self).__name__} has no rsample (no reparameterized sampling)")

    def entropy(self):
        """The entropy, of shape ``batch_shape``."""
        raise NotImplementedError(f"{type(self).__name__} has no entropy")

    def log_prob(self, value):
        """The log density (or log mass) of ``value``."""
        raise NotImplementedError(f"{type(self).__name__} has no log_prob")

    def prob(self, value):
        """The density (or mass) of ``value``: ``exp(log_prob(value))``."""
        return _F.exp(self.log_prob(value))

    def probs(self, value):
        """The same as ``prob`` (Paddle's older name)."""
        return self.prob(value)

    def kl_divergence(self, other):
        """KL(self || other), by ``eager.distribution.kl_divergence``."""
        return kl.kl_divergence(self, other)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(batch_shape={list(self.batch_shape)}, event_shape={list(self.event_shape)})"


__all__ = ["Distribution"]
