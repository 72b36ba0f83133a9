"""``Independent``: Paddle's ``paddle.distribution.Independent``."""
from __future__ import annotations

import numbers

from ..generated import forward_api as _F
from .distribution import Distribution


class Independent(Distribution):
    """Reinterprets the rightmost ``reinterpreted_batch_rank`` batch dimensions of
    ``base`` as event dimensions: ``log_prob`` and ``entropy`` sum over them.

    >>> from eager.distribution import Independent, Normal
    >>> d = Independent(Normal([0.0, 0.0], [1.0, 1.0]), 1)
    >>> d.batch_shape, d.event_shape, d.log_prob([0.0, 0.0]).shape
    ((), (2,), [])
    """

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Distribution):
            raise TypeError(f"Independent: argument 'base' expected a Distribution, got {type(base).__name__}")
        rank = reinterpreted_batch_rank
        if isinstance(rank, bool) or not isinstance(rank, numbers.Integral) or not 0 < rank <= len(base.batch_shape):
            raise ValueError(f"Independent: argument 'reinterpreted_batch_rank' expected an int in "
                             f"[1, {len(base.batch_shape)}] (the base's batch rank), got {rank!r}")
        self.base = base
        self.reinterpreted_batch_rank = int(rank)
        split = len(base.batch_shape) - self.reinterpreted_batch_rank
        super().__init__(base.batch_shape[:split], base.batch_shape[split:] + base.event_shape)

    def _sum_rightmost(self, value):
        if self.reinterpreted_batch_rank == 0:
            return value
        axes = list(range(-self.reinterpreted_batch_rank, 0))
        return _F.sum(value, axis=axes)

    @property
    def mean(self):
        """The base's mean."""
        return self.base.mean

    @property
    def variance(self):
        """The base's variance."""
        return self.base.variance

    def sample(self, shape=()):
        """The base's draws, of shape ``shape + batch_shape + event_shape``."""
        return self.base.sample(shape)

    def rsample(self, shape=()):
        """The base's reparameterized draws."""
        return self.base.rsample(shape)

    def log_prob(self, value):
        """The base's log_prob summed over the reinterpreted dimensions."""
        return self._sum_rightmost(self.base.log_prob(value))

    def entropy(self):
        """The base's entropy summed over the reinterpreted dimensions."""
        return self._sum_rightmost(self.base.entropy())


__all__ = ["Independent"]
