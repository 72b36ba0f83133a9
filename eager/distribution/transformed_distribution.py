"""``TransformedDistribution``: Paddle's ``paddle.distribution.TransformedDistribution``."""
from __future__ import annotations

from ..tensor import Tensor
from . import transform as _transform
from .distribution import Distribution
from .independent import Independent
from .transform import ChainTransform, Transform, sum_rightmost


class TransformedDistribution(Distribution):
    """The distribution of ``y = transforms[-1](... transforms[0](x))`` for ``x ~ base``.

    ``log_prob(y)`` is ``base.log_prob(x) - sum of log |det J|`` along the chain,
    summed over event axes; ``sample``/``rsample`` transform the base's draws.

    >>> import eager
    >>> from eager.distribution import ExpTransform, Normal, TransformedDistribution
    >>> d = TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()])   # a log-normal
    >>> round(float(d.log_prob(eager.to_tensor(1.0))), 4)
    -0.9189
    """

    def __init__(self, base, transforms):
        if not isinstance(base, Distribution):
            raise TypeError(f"TransformedDistribution: argument 'base' expected a Distribution, "
                            f"got {type(base).__name__}")
        if not isinstance(transforms, (list, tuple)) or not all(isinstance(t, Transform) for t in transforms):
            raise TypeError(f"TransformedDistribution: argument 'transforms' expected a list of Transforms, "
                            f"got {transforms!r}")
        chain = ChainTransform(transforms)
        base_shape = tuple(base.batch_shape) + tuple(base.event_shape)
        if len(base_shape) < chain._domain.event_rank:
            raise ValueError(f"TransformedDistribution: the base's shape {list(base_shape)} has fewer "
                             f"dimensions than the transforms' event rank {chain._domain.event_rank}")
        if chain._domain.event_rank > len(base.event_shape):
            base = Independent(base, chain._domain.event_rank - len(base.event_shape))
        self._base = base
        self._transforms = list(transforms)
        shape = chain.forward_shape(tuple(base.batch_shape) + tuple(base.event_shape))
        event_rank = chain._codomain.event_rank + max(len(base.event_shape) - chain._domain.event_rank, 0)
        split = len(shape) - event_rank
        super().__init__(shape[:split], shape[split:])

    def sample(self, shape=()):
        """The base's ``sample`` pushed through the transforms (a gradient flows where the base's does)."""
        x = self._base.sample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def rsample(self, shape=()):
        """The base's reparameterized draws pushed through the transforms."""
        x = self._base.rsample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value):
        """``base.log_prob(x) - sum log |det J|`` with ``x`` the chain's inverse of ``value``."""
        if not isinstance(value, Tensor):
            raise TypeError(f"TransformedDistribution.log_prob: argument 'value' expected a Tensor, "
                            f"got {type(value).__name__}")
        y = value
        log_prob = 0.0
        event_rank = len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            event_rank += t._domain.event_rank - t._codomain.event_rank
            log_prob = log_prob - sum_rightmost(t.forward_log_det_jacobian(x), event_rank - t._domain.event_rank)
            y = x
        return log_prob + sum_rightmost(self._base.log_prob(y), event_rank - len(self._base.event_shape))


_transform._TRANSFORMED["class"] = TransformedDistribution

__all__ = ["TransformedDistribution"]
